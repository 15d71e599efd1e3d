//! Shared inputs for the benchmarks in `benches/`: generated CLOG2 traces and
//! their SLOG-2 conversions, cached under `target/mpelog-bench/` so that the
//! large ones (up to 1 GB) are made once.

use clog2_format::synth;
use slog2_format::convert::clog2_to_slog2;
use slog2_format::frame::Compression;
use slog2_format::write::TreeOptions;
use slog2_format::Slog2Reader;
use std::io::{Read, Seek};
use std::path::PathBuf;

/// Bytes per record of the generator's MPE-like mix, roughly.
const BYTES_PER_RECORD: u64 = 39;

/// The cache directory (`target/mpelog-bench`, or `MPELOG_BENCH_DIR`).
pub fn cache_dir() -> PathBuf {
    let dir = std::env::var_os("MPELOG_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join("target")
                .join("mpelog-bench")
        });
    std::fs::create_dir_all(&dir).expect("bench cache directory");
    dir
}

/// A generated CLOG2 trace of about `mb` MB (16 ranks, seed 7), made once.
pub fn clog2_trace(mb: u64) -> PathBuf {
    let path = cache_dir().join(format!("synth_{mb}MB.clog2"));
    if !path.exists() {
        let opts = synth::Options::default()
            .ranks(16)
            .events(mb * 1_000_000 / BYTES_PER_RECORD)
            .seed(7)
            .block_size(65536);
        let tmp = path.with_extension("tmp");
        let f = std::io::BufWriter::new(std::fs::File::create(&tmp).expect("create"));
        synth::generate(f, &opts).expect("synth");
        std::fs::rename(&tmp, &path).expect("rename");
    }
    path
}

/// The SLOG-2 conversion (default tree options) of [`clog2_trace`]`(mb)`, made once.
pub fn slog2_file(mb: u64) -> PathBuf {
    let path = cache_dir().join(format!("synth_{mb}MB.slog2"));
    if !path.exists() {
        let clog2 = clog2_trace(mb);
        let f = std::fs::File::open(&clog2).expect("open");
        let mut r = clog2_format::Clog2Reader::new(f).expect("clog2");
        let tmp = path.with_extension("tmp");
        let out = std::io::BufWriter::new(std::fs::File::create(&tmp).expect("create"));
        clog2_to_slog2(&mut r, out, TreeOptions::default(), |_| {}).expect("convert");
        std::fs::rename(&tmp, &path).expect("rename");
    }
    path
}

/// A file-name-safe name for a compression (`none`, `stored`, `deflate-6`, ...),
/// from its `Debug` form so that new variants get a name too.
pub fn compression_slug(compression: Compression) -> String {
    let mut s = String::new();
    for ch in format!("{compression:?}").chars() {
        if ch.is_ascii_alphanumeric() {
            s.push(ch.to_ascii_lowercase());
        } else if !s.is_empty() && !s.ends_with('-') {
            s.push('-');
        }
    }
    s.trim_end_matches('-').to_string()
}

/// The SLOG-2 conversion of [`clog2_trace`]`(mb)` with default tree options and
/// tree nodes stored as `compression` says, made once (cached as
/// `synth_{mb}MB.{compression}.slog2`; `Compression::None` is [`slog2_file`]).
pub fn slog2_file_with(mb: u64, compression: Compression) -> PathBuf {
    if compression == Compression::None {
        return slog2_file(mb);
    }
    let slug = compression_slug(compression);
    let path = cache_dir().join(format!("synth_{mb}MB.{slug}.slog2"));
    if !path.exists() {
        let clog2 = clog2_trace(mb);
        let f = std::fs::File::open(&clog2).expect("open");
        let mut r = clog2_format::Clog2Reader::new(f).expect("clog2");
        let tmp = cache_dir().join(format!("synth_{mb}MB.{slug}.slog2.tmp"));
        let out = std::io::BufWriter::new(std::fs::File::create(&tmp).expect("create"));
        let opts = TreeOptions::default().compression(compression);
        clog2_to_slog2(&mut r, out, opts, |_| {}).expect("convert");
        std::fs::rename(&tmp, &path).expect("rename");
    }
    path
}

/// A window `(t0, t1, drawables)` around the middle of the file with about `want`
/// drawables (within 2%, else the 30th try); shared by the window benches.
pub fn window_for<R: Read + Seek>(r: &mut Slog2Reader<R>, want: usize) -> (f64, f64, usize) {
    let root = r.tree_dir().unwrap().value.entries[0];
    let (t0, t1) = (root.earliest, root.latest);
    let mid = (t0 + t1) / 2.0;
    let mut width = (t1 - t0) / 1000.0;
    let mut n = 0;
    for _ in 0..30 {
        let a = r.window(mid - width / 2.0, mid + width / 2.0).unwrap();
        n = a.drawables.len();
        if n.abs_diff(want) * 50 < want {
            break;
        }
        width *= want as f64 / n.max(1) as f64;
    }
    (mid - width / 2.0, mid + width / 2.0, n)
}

/// `n` window starts of windows `width` wide spread at random over `[t0, t1]` (a
/// fixed LCG, so every run asks the same windows); shared by `window_random` and
/// the `window_prof` example.
pub fn window_starts(t0: f64, t1: f64, width: f64, n: usize) -> Vec<f64> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let u = (x >> 11) as f64 / (1u64 << 53) as f64;
            t0 + u * (t1 - t0 - width).max(0.0)
        })
        .collect()
}

/// CPU time of the whole process so far (user and system, every thread),
/// from `/proc/self/stat` (zero where there is none): on a shared machine,
/// what a run cost whatever its wall time.
///
/// ```
/// let before = mpelog_benches::cpu();
/// let mut x = 0u64;
/// for i in 0..10_000_000u64 { x = x.wrapping_add(i * i); }
/// assert!(mpelog_benches::cpu() >= before && x > 0);
/// ```
pub fn cpu() -> std::time::Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which ends with ')'): utime is the 14th
    // field of the line, stime the 15th, in clock ticks (100 per second here).
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<u64> = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|s| s.parse().ok())
        .collect();
    std::time::Duration::from_millis(f.iter().sum::<u64>() * 10)
}

/// The windows of a text file of `t0 t1` lines (seconds; other lines
/// skipped), as the window benches take them.
///
/// ```
/// let p = std::env::temp_dir().join(format!("windows-{}.txt", std::process::id()));
/// std::fs::write(&p, "1 2\n# note\n3.5 4\n").unwrap();
/// assert_eq!(mpelog_benches::windows_of(&p).unwrap(), vec![(1.0, 2.0), (3.5, 4.0)]);
/// std::fs::remove_file(&p).unwrap();
/// ```
pub fn windows_of(path: impl AsRef<std::path::Path>) -> std::io::Result<Vec<(f64, f64)>> {
    Ok(std::fs::read_to_string(path)?
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace().map(str::parse::<f64>);
            match (w.next(), w.next()) {
                (Some(Ok(a)), Some(Ok(b))) => Some((a, b)),
                _ => None,
            }
        })
        .collect())
}
