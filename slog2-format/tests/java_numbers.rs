//! `java_double_to_string` / `java_float_to_string` against a real JVM's
//! `Double.toString` / `Float.toString` (JDK 8 … 18 print the same; spec/conversion.md
//! §12.1): every boundary (zeros, subnormals, `MIN_NORMAL`, `MAX_VALUE`, powers of
//! ten and their neighbours, integers around 2^53 and 2^24, the fast path's
//! exponent limits) and at least 1,000,000 random bit patterns of each width
//! (`MPELOG_JAVA_NUMBERS` sets the count).
//!
//! The oracle is our own program `tests/java/JavaNumbers.java`, compiled with
//! `javac` into a temporary directory. Without a JDK the test says it skipped,
//! unless `CI` is set: CI installs one (`.ci/run`), and there a missing JDK fails.

use slog2_format::info::{java_double_to_string, java_float_to_string};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;

/// A deterministic 64-bit generator (splitmix64).
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// The doubles every run checks, as bit patterns.
fn double_boundaries() -> Vec<u64> {
    let mut v: Vec<u64> = Vec::new();
    let mut both = |x: u64| {
        v.push(x);
        v.push(x | 1 << 63);
    };
    // Zero, the subnormals' ends and every power-of-two subnormal, MIN_NORMAL
    // and its neighbours, MAX_VALUE, the infinities and NaN.
    for x in [0u64, 1, 2, 3, 0x000f_ffff_ffff_ffff, 0x000f_ffff_ffff_fffe] {
        both(x);
    }
    for k in 0..52 {
        both(1 << k);
        both((1 << k) + 1);
        both((1 << k) - 1);
    }
    for x in [
        f64::MIN_POSITIVE.to_bits(),
        f64::MIN_POSITIVE.to_bits() + 1,
        f64::MIN_POSITIVE.to_bits() - 1,
        f64::MAX.to_bits(),
        f64::MAX.to_bits() - 1,
        f64::INFINITY.to_bits(),
        f64::NAN.to_bits(),
    ] {
        both(x);
    }
    // Powers of ten and their neighbours.
    for e in -325..=309 {
        let p: f64 = format!("1e{e}").parse().unwrap();
        for d in -2i64..=2 {
            both(p.to_bits().wrapping_add(d as u64));
        }
    }
    // Integers around 2^53 (and 2^63, 2^64, where the fast path ends), and every
    // power of two whose exponent is near the fast path's limits −21 … 62.
    for base in [1u64 << 53, 1 << 62, 1 << 63] {
        for d in 0..=64u64 {
            both((base as f64 + d as f64).to_bits());
            both((base as f64 - d as f64).to_bits());
            both((base as f64).to_bits() + d);
            both((base as f64).to_bits() - d);
        }
    }
    for e in -1074..=1023 {
        let p = 2f64.powi(e);
        both(p.to_bits());
        both(p.to_bits() + 1);
        if p.to_bits() > 0 {
            both(p.to_bits() - 1);
        }
    }
    // Integers 1 … 100000 and their halves.
    for i in 1..=100_000u64 {
        both((i as f64).to_bits());
        both((i as f64 / 2.0 + 0.25).to_bits());
    }
    v
}

/// The floats every run checks, as bit patterns.
fn float_boundaries() -> Vec<u32> {
    let mut v: Vec<u32> = Vec::new();
    let mut both = |x: u32| {
        v.push(x);
        v.push(x | 1 << 31);
    };
    for x in [0u32, 1, 2, 3, 0x007f_ffff, 0x007f_fffe] {
        both(x);
    }
    for k in 0..23 {
        both(1 << k);
        both((1 << k) + 1);
        both((1 << k) - 1);
    }
    for x in [
        f32::MIN_POSITIVE.to_bits(),
        f32::MIN_POSITIVE.to_bits() + 1,
        f32::MIN_POSITIVE.to_bits() - 1,
        f32::MAX.to_bits(),
        f32::MAX.to_bits() - 1,
        f32::INFINITY.to_bits(),
        f32::NAN.to_bits(),
    ] {
        both(x);
    }
    for e in -46..=39 {
        let p: f32 = format!("1e{e}").parse().unwrap();
        for d in -2i32..=2 {
            both(p.to_bits().wrapping_add(d as u32));
        }
    }
    for base in [1u32 << 24, 1 << 30] {
        for d in 0..=64u32 {
            both((base as f32 + d as f32).to_bits());
            both((base as f32).to_bits() + d);
            both((base as f32).to_bits() - d);
        }
    }
    for e in -149..=127 {
        let p = 2f32.powi(e);
        both(p.to_bits());
        both(p.to_bits() + 1);
        if p.to_bits() > 0 {
            both(p.to_bits() - 1);
        }
    }
    for i in 1..=100_000u32 {
        both((i as f32).to_bits());
        both((i as f32 / 2.0 + 0.25).to_bits());
    }
    v
}

/// Compiles the oracle; `None` (after saying why) when there is no JDK and CI
/// is unset.
fn oracle_dir() -> Option<PathBuf> {
    let javac_ok = Command::new("javac")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success());
    let java_ok = Command::new("java")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !javac_ok || !java_ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but there is no JDK (javac and java): .ci/run installs openjdk-17-jdk-headless"
        );
        eprintln!(
            "SKIPPED java_numbers: no JDK on PATH (javac and java); install a headless JDK \
             (Debian: openjdk-17-jdk-headless) to compare with Java's Double.toString"
        );
        return None;
    }
    let dir = std::env::temp_dir().join(format!("mpelog-java-numbers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/java/JavaNumbers.java");
    let out = Command::new("javac")
        .arg("-d")
        .arg(&dir)
        .arg(&src)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "javac {}: {}",
        src.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(dir)
}

#[test]
fn number_text_equals_the_jvms() {
    let Some(dir) = oracle_dir() else { return };
    let n: usize = std::env::var("MPELOG_JAVA_NUMBERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let mut rng = SplitMix(0x6d70_656c_6f67_2027);
    let mut doubles = double_boundaries();
    let mut floats = float_boundaries();
    doubles.extend((0..n).map(|_| rng.next()));
    floats.extend((0..n).map(|_| rng.next() as u32));

    let mut input = String::with_capacity((doubles.len() + floats.len()) * 20);
    for d in &doubles {
        writeln!(input, "d {d:016x}").unwrap();
    }
    for f in &floats {
        writeln!(input, "f {f:08x}").unwrap();
    }
    let input_path = dir.join("bits.txt");
    std::fs::write(&input_path, input).unwrap();
    let out = Command::new("java")
        .arg("-cp")
        .arg(&dir)
        .arg("JavaNumbers")
        .arg(&input_path)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "java JavaNumbers: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let mut wrong = Vec::new();
    let mut count = 0usize;
    for d in &doubles {
        let java = lines.next().expect("one line per double");
        let ours = java_double_to_string(f64::from_bits(*d));
        count += 1;
        if ours != java {
            wrong.push(format!("double {d:016x}: Java {java}, ours {ours}"));
        }
    }
    for f in &floats {
        let java = lines.next().expect("one line per float");
        let ours = java_float_to_string(f32::from_bits(*f));
        count += 1;
        if ours != java {
            wrong.push(format!("float {f:08x}: Java {java}, ours {ours}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {count} numbers differ from the JVM's, e.g.\n{}",
        wrong.len(),
        wrong[..wrong.len().min(20)].join("\n")
    );
    eprintln!(
        "java_numbers: {} doubles and {} floats equal the JVM's text",
        doubles.len(),
        floats.len()
    );
}
