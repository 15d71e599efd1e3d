//! The old-CLOG (MPE1) reader: any input gives a file or an error; a file that
//! parses writes back byte for byte.
#![no_main]

use clog2_format::clog::ClogFile;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(f) = ClogFile::parse(data) {
        assert_eq!(f.to_bytes().expect("a parsed file serializes"), data);
    }
});
