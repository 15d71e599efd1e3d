//! The ALOG reader: any input gives a file or an error, never a panic; a parsed
//! file's canonical bytes read back to the same records (and are a fixed point);
//! the dump, the summary and the drawable conversion accept every parsed file; a
//! `.Z` input is unpacked (bounded) without panicking.
#![no_main]

use alog_format::AlogFile;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if alog_format::z::is_compress(data) {
        let _ = alog_format::z::decompress(data, 1 << 20);
    }
    if let Ok(f) = AlogFile::parse(data) {
        let out = f.to_bytes();
        let back = AlogFile::parse(&out).expect("canonical bytes parse");
        assert_eq!(back, f);
        assert_eq!(back.to_bytes(), out);
        let _ = alog_format::dump::lines(&f);
        let _ = alog_format::dump::summary(&f).to_string();
        let d = slog2_format::convert::alog::drawables(&f);
        for w in d.prims.windows(2) {
            assert!(w[0].latest() <= w[1].latest());
        }
    }
});
