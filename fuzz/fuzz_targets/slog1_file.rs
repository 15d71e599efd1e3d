//! The SLOG-1 reader and lossless model: any input gives a file or an error; a
//! file that parses writes back byte for byte and reads back as the same value;
//! its warnings, print and summary never panic, and its conversion to SLOG-2
//! either fails cleanly or gives one drawable per record.
#![no_main]

use libfuzzer_sys::fuzz_target;
use slog2_format::convert::slog1_to_slog2;
use slog2_format::slog1::{dump, Slog1File};
use slog2_format::write::TreeOptions;
use std::io::Cursor;

fuzz_target!(|data: &[u8]| {
    if let Ok(f) = Slog1File::parse(data) {
        let out = f.to_bytes().expect("a parsed file serializes");
        assert!(out == data, "not byte-identical");
        let back = Slog1File::parse(&out).expect("our output parses");
        // Compare as text: NaN times are equal bit patterns but not equal f64s.
        assert_eq!(format!("{back:?}"), format!("{f:?}"));
        let _ = dump::lines(&f);
        let s = dump::summary(&f);
        let opts = TreeOptions::default().leaf_bytes(256);
        if let Ok((_, stats)) = slog1_to_slog2(&f, Cursor::new(Vec::new()), opts, |_| {}) {
            assert_eq!(stats.tree.drawables, s.records);
        }
    }
});
