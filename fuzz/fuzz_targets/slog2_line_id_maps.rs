//! The SLOG-2 LineIDMapList block (the timeline views) parsed from arbitrary
//! bytes: never a panic; a list that parses writes back to the bytes it used.
#![no_main]

#[path = "shared/round_trip.rs"]
mod shared;

use libfuzzer_sys::fuzz_target;
use slog2_format::read::parse_block;
use slog2_format::LineIdMapList;

fuzz_target!(|data: &[u8]| {
    if let Ok(p) = parse_block::<LineIdMapList>(
        data,
        shared::whole(data),
        slog2_format::error::Part::LineIdMaps,
        (),
    ) {
        shared::round_trip(&p.value, &data[..data.len() - p.trailing.len()]);
    }
});
