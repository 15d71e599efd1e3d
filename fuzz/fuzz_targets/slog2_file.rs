//! The SLOG-2 reader and lossless model: any input gives a file or an error; a plain
//! file that parses writes back byte for byte (a compressed one is rewritten by
//! `write::reframe`, which must then succeed).
#![no_main]

use libfuzzer_sys::fuzz_target;
use slog2_format::Slog2File;

fuzz_target!(|data: &[u8]| {
    if let Ok(f) = Slog2File::parse(data) {
        if f.version.is_compressed() {
            let c = slog2_format::frame::Compression::None;
            let out = std::io::Cursor::new(Vec::new());
            let _ = slog2_format::write::reframe(std::io::Cursor::new(data), out, c, |_| {});
        } else {
            assert!(f.to_bytes().expect("a parsed file serializes") == data);
        }
    }
});
