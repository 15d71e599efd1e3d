//! `Options::stop`: a check whose flag is set reads no further into the file,
//! or into an OTF2 archive's event files (Linux's `/proc/self/io` counts the
//! bytes read; one test, so that no other test of this process reads
//! meanwhile).

use mpelog_conformance::{check_path, Options};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Bytes this process has read from files so far.
fn bytes_read() -> Option<u64> {
    let io = std::fs::read_to_string("/proc/self/io").ok()?;
    io.lines()
        .find_map(|l| l.strip_prefix("rchar:"))
        .and_then(|n| n.trim().parse().ok())
}

#[test]
fn a_stopped_check_reads_no_further_and_an_unset_flag_checks_it_all() {
    if bytes_read().is_none() {
        eprintln!("skipped: no /proc/self/io here");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.clog2");
    let opts = clog2_format::synth::Options::default().events(100_000);
    std::fs::write(&path, clog2_format::synth::generate_vec(&opts).unwrap()).unwrap();
    let size = std::fs::metadata(&path).unwrap().len();
    let stopped = Options::default().stop(Some(Arc::new(AtomicBool::new(true))));
    let before = bytes_read().unwrap();
    let e = check_path(&path, &stopped).unwrap_err();
    let read = bytes_read().unwrap() - before;
    assert_eq!(e.kind(), std::io::ErrorKind::Interrupted);
    // The format's detection reads the first 64 bytes; nothing after them.
    assert!(read < size / 8, "read {read} of {size} bytes");
    // Not set, the flag changes nothing: the whole file is read and passes.
    let unset = Options::default().stop(Some(Arc::new(AtomicBool::new(false))));
    let before = bytes_read().unwrap();
    let report = check_path(&path, &unset).unwrap();
    assert!(bytes_read().unwrap() - before >= size);
    assert!(report.passes(), "{:?}", report.rule_ids());
    otf2_archive_stops();
}

/// An OTF2 archive's check, stopped, reads its definitions and no event
/// (its event files are most of it); not set, the flag changes nothing.
fn otf2_archive_stops() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("archive");
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../otf2-format/tests/oracle/otf2_oracle.py");
    let o = std::process::Command::new("python3")
        .arg(script)
        .args(["write", "3"])
        .arg(&path)
        .arg("200000")
        .output()
        .expect("python3 runs");
    if !o.status.success() && String::from_utf8_lossy(&o.stderr).contains("No module named") {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but the otf2 package is missing: pip install otf2"
        );
        eprintln!("skipped the OTF2 part: python3 cannot import otf2 (pip install otf2)");
        return;
    }
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let events: u64 = std::fs::read_dir(path.join("traces"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "evt"))
        .map(|p| std::fs::metadata(p).unwrap().len())
        .sum();
    let anchor = path.join("traces.otf2");
    let stopped = Options::default().stop(Some(Arc::new(AtomicBool::new(true))));
    let before = bytes_read().unwrap();
    let e = check_path(&anchor, &stopped).unwrap_err();
    let read = bytes_read().unwrap() - before;
    assert_eq!(e.kind(), std::io::ErrorKind::Interrupted);
    assert!(
        read < events / 4,
        "read {read} bytes; its events are {events}"
    );
    let unset = Options::default().stop(Some(Arc::new(AtomicBool::new(false))));
    let before = bytes_read().unwrap();
    check_path(&anchor, &unset).unwrap();
    assert!(bytes_read().unwrap() - before >= events);
}
