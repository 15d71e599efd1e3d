//! The one-pass export of a CLOG2 trace never panics, whatever the bytes and
//! the sort memory (the first byte: 1 to 16 KiB, so runs spill), and when the
//! converter accepts the trace, the Perfetto, Chrome JSON and CSV outputs are
//! byte for byte those of the converted SLOG-2 file (spec/export.md §2).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mpelog::export::{self, chrome::ChromeJson, perfetto::PerfettoTrace, pipit::PipitCsv};
use mpelog::export::{Options, Sink};
use slog2_format::convert::{clog2_into, clog2_to_slog2};
use slog2_format::write::TreeOptions;
use std::io::Cursor;

/// The three outputs of one export.
fn outputs(mut run: impl FnMut(&mut dyn Sink) -> bool) -> Option<[Vec<u8>; 3]> {
    let mut p = PerfettoTrace::new(Vec::new());
    let mut j = ChromeJson::new(Vec::new());
    let mut c = PipitCsv::new(Vec::new());
    (run(&mut p) && run(&mut j) && run(&mut c))
        .then(|| [p.into_inner(), j.into_inner(), c.into_inner()])
}

fuzz_target!(|data: &[u8]| {
    let Some((&m, data)) = data.split_first() else {
        return;
    };
    let opts = Options::default().sort_memory(1 + 64 * usize::from(m));
    let one_pass = outputs(|sink| {
        let Ok(mut r) = clog2_format::Clog2Reader::from_slice(data) else {
            return false;
        };
        let Ok((mut sorted, _)) = clog2_into(&mut r, opts.start_order(), |_| {}) else {
            return false;
        };
        export::one_pass(&mut sorted, &opts, &mut &mut *sink).is_ok()
    });
    let Ok(mut r) = clog2_format::Clog2Reader::from_slice(data) else {
        return;
    };
    let Ok((out, _)) = clog2_to_slog2(
        &mut r,
        Cursor::new(Vec::new()),
        TreeOptions::default(),
        |_| {},
    ) else {
        return;
    };
    let bytes = out.into_inner();
    let via = outputs(|sink| {
        let mut r = slog2_format::Slog2Reader::new(Cursor::new(&bytes[..])).unwrap();
        export::slog2(&mut r, &opts, &mut &mut *sink).is_ok()
    });
    assert_eq!(
        one_pass.is_some(),
        via.is_some(),
        "both exports succeed or neither"
    );
    assert!(
        one_pass == via,
        "the one-pass export differs from the converted file's"
    );
});
