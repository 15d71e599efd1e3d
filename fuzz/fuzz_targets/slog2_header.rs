//! The SLOG-2 file header parsed from arbitrary bytes: never a panic; a header
//! that parses writes back to the bytes it was parsed from.
#![no_main]

#[path = "shared/round_trip.rs"]
mod shared;

use libfuzzer_sys::fuzz_target;
use slog2_format::read::parse_header;

fuzz_target!(|data: &[u8]| {
    if let Ok((header, _version, len)) = parse_header(data) {
        shared::round_trip(&header, &data[..len as usize]);
    }
});
