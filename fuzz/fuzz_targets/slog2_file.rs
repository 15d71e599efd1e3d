//! The SLOG-2 reader and lossless model: any input gives a file or an error; a file
//! that parses writes back byte for byte.
#![no_main]

use libfuzzer_sys::fuzz_target;
use slog2_format::Slog2File;

fuzz_target!(|data: &[u8]| {
    if let Ok(f) = Slog2File::parse(data) {
        assert!(f.to_bytes().expect("a parsed file serializes") == data);
    }
});
