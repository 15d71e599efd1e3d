//! Helpers shared by the command-line tests: run the binary, find the corpus,
//! make generated traces.
#![allow(dead_code)]

pub mod built;
pub mod http;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `mpelog` with `args`.
pub fn mpelog(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mpelog"))
        .args(args)
        .output()
        .expect("run mpelog")
}

pub fn stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "mpelog failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

pub fn corpus() -> Option<PathBuf> {
    mpelog_conformance::corpus::root()
}

pub fn corpus_file(dir: &Path, rel: &str) -> String {
    let p = dir.join(rel);
    assert!(p.is_file(), "corpus file missing: {}", p.display());
    p.to_str().unwrap().to_string()
}

pub fn synth(dir: &Path, name: &str, args: &[&str]) -> String {
    let out = dir.join(name);
    let out_s = out.to_str().unwrap().to_string();
    let mut a = vec!["synth", "-o", &out_s];
    a.extend_from_slice(args);
    let o = mpelog(&a);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out_s
}

/// The JSON that `mpelog ARGS` prints (it must succeed).
pub fn json_of(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&stdout(&mpelog(args))).unwrap()
}

/// The JSON of `mpelog ARGS --from FROM --to TO --json` (`analyze`, `stats`,
/// with or without `--compare`) for the window `(from, to)`.
pub fn window_json(args: &[&str], (from, to): (f64, f64)) -> serde_json::Value {
    let (a, b) = (from.to_string(), to.to_string());
    let mut all = args.to_vec();
    all.extend(["--from", &a, "--to", &b, "--json"]);
    json_of(&all)
}

/// A pattern's `per_timeline` (line ID → seconds) of `analyze --json` or
/// `/api/waits`.
pub fn per_timeline(pattern: &serde_json::Value) -> std::collections::BTreeMap<String, f64> {
    pattern["per_timeline"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(t, s)| (t.clone(), s.as_f64().unwrap()))
        .collect()
}

/// The run with planted waits of the viewer's tests, `ls.clog2` in `dir`:
/// `mpelog synth --ranks 4 --events 3000 --seed 3 --plant-late-sender 0.002
/// --plant-barrier-skew 0.001`. Every iteration rank 0's send to rank 1
/// enters 2 ms after rank 1's receive (a Late Sender of 2 ms on timeline 1,
/// partner 0), and rank r enters the barrier r ms after rank 0 (Wait at
/// Barrier of (3 − r) ms on rank r, partner 3).
pub fn late_sender_run(dir: &Path) -> String {
    synth(
        dir,
        "ls.clog2",
        &[
            "--ranks",
            "4",
            "--events",
            "3000",
            "--seed",
            "3",
            "--plant-late-sender",
            "0.002",
            "--plant-barrier-skew",
            "0.001",
        ],
    )
}

/// A CLOG2 trace's SLOG-2 conversion, in memory.
pub fn slog2_bytes(clog2: &[u8]) -> Vec<u8> {
    let mut reader = clog2_format::Clog2Reader::from_slice(clog2).unwrap();
    let (out, _) = slog2_format::convert::clog2_to_slog2(
        &mut reader,
        std::io::Cursor::new(Vec::new()),
        Default::default(),
        |_| {},
    )
    .unwrap();
    out.into_inner()
}

/// Temporary files (`.NAME.mpelog-PID-XXXXXX.tmp`, or any other `.mpelog-`
/// file) left in `dir`.
pub fn leftovers(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".mpelog-"))
        .count()
}

/// The value of `key` in the last line of `window`: a `key=N` word, or with
/// `--json` a field of the object `{"cost":{...}}`.
pub fn cost_of(last: &str, key: &str) -> Option<u64> {
    if last.starts_with('{') {
        let v: serde_json::Value = serde_json::from_str(last).ok()?;
        return v["cost"][key].as_u64();
    }
    last.split(' ')
        .find_map(|w| w.strip_prefix(key)?.strip_prefix('='))?
        .parse()
        .ok()
}

/// A legend entry for tests that build SLOG-2 files or statistics by hand:
/// category `index` named `c{index}` of `topology`, without info keys.
pub fn category(index: i32, topology: i32) -> slog2_format::types::Category {
    slog2_format::types::Category {
        index,
        name: slog2_format::types::JStr::new(&format!("c{index}")),
        topology,
        argb: [255, 0, 0, 0],
        modifiable: 1,
        width: 1,
        keys: Vec::new(),
        types: Vec::new(),
        methods: Vec::new(),
        summary: None,
    }
}

/// The legend of a SLOG-2 file as (index, topology), sorted.
pub fn topologies(bytes: &[u8]) -> Vec<(i32, i32)> {
    let r = slog2_format::Slog2Reader::new(std::io::Cursor::new(bytes)).unwrap();
    let mut v: Vec<(i32, i32)> = r
        .categories()
        .unwrap()
        .value
        .categories
        .iter()
        .map(|c| (c.index, c.topology))
        .collect();
    v.sort();
    v
}

/// A generated trace of 4 ranks (`events` events from `seed`) converted to
/// SLOG-2 with leaves of `leaf` bytes (small leaves give many slices of 64
/// leaves, and previews above the leaves).
pub fn generated_slog2(seed: u64, events: u64, leaf: u32) -> Vec<u8> {
    let clog2 = clog2_format::synth::generate_vec(
        &clog2_format::synth::Options::default()
            .ranks(4)
            .events(events)
            .seed(seed),
    )
    .unwrap();
    let mut r = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    let opts = slog2_format::write::TreeOptions::default().leaf_bytes(leaf);
    let (out, _) = slog2_format::convert::clog2_to_slog2(
        &mut r,
        std::io::Cursor::new(Vec::new()),
        opts,
        |_| {},
    )
    .unwrap();
    out.into_inner()
}

/// The JSON answer of `url` from `serve`'s service, which must be `200`.
pub fn served_json(s: &mpelog::serve::Service, url: &str) -> serde_json::Value {
    let r = s.handle("GET", url, None);
    let body = r.read_body().unwrap();
    assert_eq!(r.status, 200, "{url}: {}", String::from_utf8_lossy(&body));
    serde_json::from_slice(&body).unwrap()
}

/// The wait index of a SLOG-2 file: its analysis, as `mpelog serve` makes
/// it when no index lies beside the trace.
pub fn wait_index(slog2: &Path) -> mpelog::waits::WaitIndex {
    let mut r = slog2_format::Slog2Reader::new(std::io::BufReader::new(
        std::fs::File::open(slog2).unwrap(),
    ))
    .unwrap();
    let opts = mpelog::analysis::Options::default().record(true);
    let mut report = mpelog::analysis::slog2(&mut r, &opts).unwrap();
    mpelog::waits::WaitIndex::from_report(&mut report).unwrap()
}

/// `serve`'s service of the SLOG-2 `files`, each with its wait index.
pub fn service_with_waits(files: &[PathBuf]) -> mpelog::serve::Service {
    let mut s = mpelog::serve::Service::new(files).unwrap();
    for (k, f) in files.iter().enumerate() {
        s = s.with_waits(k, wait_index(f));
    }
    s
}

/// The number an SVG element (one line of `render`'s output) gives its
/// `attribute`.
pub fn svg_number(element: &str, attribute: &str) -> f64 {
    element
        .split(&format!(" {attribute}=\""))
        .nth(1)
        .and_then(|v| v.split('"').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no number {attribute} in {element}"))
}

/// Runs the Python script `script` (a path below the package, as
/// `tests/pycubexr/dump_cubex.py`) with `args` and returns what it printed;
/// `None`, after saying why, when python3 cannot be run or the script prints
/// `missing` alone (it could not import `package`). Under `CI` both must be
/// there (.ci/run installs them), so a missing one fails.
pub fn python_script(
    script: &str,
    args: &[&std::ffi::OsStr],
    missing: &str,
    package: &str,
) -> Option<String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join(script);
    let out = match Command::new("python3").arg(&script).args(args).output() {
        Ok(o) => o,
        Err(e) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI has python3 (.ci/run): {e}"
            );
            eprintln!("skipped: python3 cannot be run ({e})");
            return None;
        }
    };
    assert!(
        out.status.success(),
        "{} failed: {}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    if text.trim() == missing {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI installs {package} (.ci/run)"
        );
        eprintln!("skipped: python3 cannot import {package} (pip install {package})");
        return None;
    }
    Some(text)
}

/// Whether libotf2's Python package is importable: without it the tests that
/// write archives skip with a message, unless `CI` is set (then they fail).
pub fn have_otf2() -> bool {
    let found = Command::new("python3")
        .args(["-c", "import otf2"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but `python3 -c 'import otf2'` fails: pip install otf2"
        );
        eprintln!("skipped: python3 cannot import otf2 (pip install otf2)");
    }
    found
}

/// A random archive of about `events` events written by libotf2 (the oracle
/// script of otf2-format's tests) into `dir/name`: locations, nested
/// regions, messages on two communicators, collectives, metrics,
/// attributes. Its directory (the anchor file is `traces.otf2` in it).
pub fn python_archive(dir: &Path, name: &str, seed: u64, events: u32) -> PathBuf {
    let path = dir.join(name);
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("otf2-format/tests/oracle/otf2_oracle.py");
    let o = Command::new("python3")
        .arg(script)
        .arg("write")
        .arg(seed.to_string())
        .arg(&path)
        .arg(events.to_string())
        .output()
        .expect("python3 runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    path
}

/// The oracle script's hybrid MPI + OpenMP archive (two ranks of two
/// threads, with RMA, I/O and measurement records; libotf2 writes it) in
/// `dir/hybrid`: its directory. Call after [`have_otf2`].
pub fn hybrid_archive(dir: &Path) -> PathBuf {
    let path = dir.join("hybrid");
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("otf2-format/tests/oracle/otf2_oracle.py");
    let o = Command::new("python3")
        .arg(script)
        .arg("hybrid")
        .arg(&path)
        .output()
        .expect("python3 runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    path
}

/// The locations of a pycubexr dump (tests/pycubexr/dump_cubex.py), in
/// tree order: name, rank, process name, process rank, and the system-tree
/// path as JSON text.
pub fn cube_locations(dump: &serde_json::Value) -> Vec<(String, i64, String, i64, String)> {
    dump["locations"]
        .as_array()
        .expect("a dump's locations")
        .iter()
        .map(|l| {
            (
                l["name"].as_str().unwrap().to_string(),
                l["rank"].as_i64().unwrap(),
                l["process"].as_str().unwrap().to_string(),
                l["process_rank"].as_i64().unwrap(),
                l["system"].to_string(),
            )
        })
        .collect()
}
