//! The conformance checker on arbitrary bytes: format detection, then the rules
//! of the detected format (every format's checker: CLOG2, old CLOG, ALOG,
//! SLOG-1, SLOG-2 plain and compressed, annotation without its trace). The first
//! byte, when below 7, forces a format instead of detection. Nothing may panic
//! or loop, and every finding names a rule of the table with that rule's
//! severity.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mpelog_conformance::{check_bytes, check_format, rules, Format, Options};

fuzz_target!(|data: &[u8]| {
    let opts = Options {
        limit: 3,
        trace: None,
    };
    let report = match data.split_first() {
        Some((&k, rest)) if (k as usize) < Format::ALL.len() => {
            check_format(Format::ALL[k as usize], rest, &opts)
        }
        _ => check_bytes(data, &opts),
    };
    for f in &report.findings {
        let rule = rules::lookup(f.rule).expect("a finding names a rule of the table");
        assert_eq!(rule.severity, f.severity, "{}", f.rule);
    }
});
