//! Helpers shared by the command-line tests: run the binary, find the corpus,
//! make generated traces.
#![allow(dead_code)]

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
