//! The whole CLOG2 reader over a slice: any input gives records or an error; a file
//! that parses writes back byte for byte.
#![no_main]

use clog2_format::Clog2File;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(f) = Clog2File::parse(data) {
        assert_eq!(f.to_bytes().expect("a parsed file serializes"), data);
    }
});
