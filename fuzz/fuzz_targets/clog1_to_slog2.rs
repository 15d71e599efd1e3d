//! The old-CLOG → SLOG-2 converter never panics, and whatever it writes parses and
//! passes `check` without errors. The first byte picks the tree options.
#![no_main]

use libfuzzer_sys::fuzz_target;
use slog2_format::check::check;
use slog2_format::convert::clog_to_slog2;
use slog2_format::write::TreeOptions;
use std::io::Cursor;

fuzz_target!(|data: &[u8]| {
    let Some((&opt, data)) = data.split_first() else {
        return;
    };
    let opts = TreeOptions::default()
        .leaf_bytes(64 + 64 * (opt as u32 & 0x3f))
        .children(2 + (opt as u16 >> 6));
    let Ok(records) = clog2_format::clog::ClogRecords::new(data) else {
        return;
    };
    let Ok((out, _)) = clog_to_slog2(records, Cursor::new(Vec::new()), opts, |_| {}) else {
        return;
    };
    let bytes = out.into_inner();
    slog2_format::Slog2File::parse(&bytes).expect("our output parses");
    let errors: Vec<_> = check(Cursor::new(&bytes), 3)
        .into_iter()
        .filter(|f| f.problem.breaks_readers())
        .collect();
    assert!(errors.is_empty(), "our output breaks rules: {errors:?}");
});
