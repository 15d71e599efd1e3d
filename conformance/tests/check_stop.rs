//! `Options::stop`: a check whose flag is set reads no further into the file
//! (Linux's `/proc/self/io` counts the bytes read; one test, so that no
//! other test of this process reads meanwhile).

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
}
