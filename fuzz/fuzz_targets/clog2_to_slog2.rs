//! The CLOG2 → SLOG-2 converter never panics, and whatever it writes parses and
//! passes `check` without errors, except the S2-INF rules: cargo bytes are copied
//! as the producer wrote them (spec/conversion.md §2.2), so a cargo that does not
//! decode by its category's format stays so. The first byte picks the tree options.
#![no_main]

use libfuzzer_sys::fuzz_target;
use slog2_format::check::{check, Problem};
use slog2_format::convert::clog2_to_slog2;
use slog2_format::write::TreeOptions;
use std::io::Cursor;

fuzz_target!(|data: &[u8]| {
    let Some((&opt, data)) = data.split_first() else {
        return;
    };
    let opts = TreeOptions::default()
        .leaf_bytes(64 + 64 * (opt as u32 & 0x3f))
        .children(2 + (opt as u16 >> 6));
    let Ok(mut r) = clog2_format::Clog2Reader::from_slice(data) else {
        return;
    };
    let Ok((out, _)) = clog2_to_slog2(&mut r, Cursor::new(Vec::new()), opts, |_| {}) else {
        return;
    };
    let bytes = out.into_inner();
    slog2_format::Slog2File::parse(&bytes).expect("our output parses");
    let errors: Vec<_> = check(Cursor::new(&bytes), 3)
        .into_iter()
        .filter(|f| {
            f.problem.breaks_readers()
                && !matches!(
                    f.problem,
                    Problem::ShortInfo | Problem::BadFormat | Problem::InfoMismatch
                )
        })
        .collect();
    assert!(errors.is_empty(), "our output breaks rules: {errors:?}");
});
