//! The conformance checker on arbitrary bytes: format detection, then the rules
//! of the detected format (every format's checker: CLOG2, old CLOG, ALOG,
//! SLOG-1, SLOG-2 plain and compressed, annotation without its trace). A first
//! byte `0xF0 + k` (k < 7, an index of `Format::ALL`) forces that format on the
//! bytes after it; any other input, a real file as it is (no real file starts
//! with 0xF0..0xF6), goes through detection. Nothing may panic or loop, and every
//! finding names a rule of the table with that rule's severity.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mpelog_conformance::{check_bytes, check_format, rules, Format, Options};

/// The first byte that forces a format (`FORCE + index`).
const FORCE: u8 = 0xF0;

fuzz_target!(|data: &[u8]| {
    let opts = Options::default().limit(3).trace(None);
    let report = match data.split_first() {
        Some((&k, rest)) if k >= FORCE && usize::from(k - FORCE) < Format::ALL.len() => {
            check_format(Format::ALL[usize::from(k - FORCE)], rest, &opts)
        }
        _ => check_bytes(data, &opts),
    };
    for f in &report.findings {
        let rule = rules::lookup(f.rule).expect("a finding names a rule of the table");
        assert_eq!(rule.severity, f.severity, "{}", f.rule);
    }
});
