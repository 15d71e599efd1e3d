//! The CLOG2 preamble parser: any 1024 bytes give a preamble or an error; a parsed
//! preamble serializes back to the same bytes.
#![no_main]

use clog2_format::Preamble;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(p) = Preamble::parse(data) {
        let bytes = p.to_bytes().expect("a parsed preamble serializes");
        assert_eq!(&bytes[..], &data[..1024]);
    }
});
