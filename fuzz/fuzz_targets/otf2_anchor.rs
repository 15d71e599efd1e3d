//! The OTF2 anchor file parser: any bytes give an anchor or an error with an
//! offset inside the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use otf2_format::Anchor;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    match Anchor::parse(data, Path::new("traces.otf2")) {
        Ok(a) => assert!(a.anchor_format > 0),
        Err(e) => assert!(e.offset() <= data.len() as u64),
    }
});
