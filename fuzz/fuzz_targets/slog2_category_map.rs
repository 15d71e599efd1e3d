//! The SLOG-2 CategoryMap block (the legend) parsed from arbitrary bytes: never a
//! panic; a map that parses writes back to the bytes it used.
#![no_main]

#[path = "shared/round_trip.rs"]
mod shared;

use libfuzzer_sys::fuzz_target;
use slog2_format::read::parse_block;
use slog2_format::CategoryMap;

fuzz_target!(|data: &[u8]| {
    if let Ok(p) = parse_block::<CategoryMap>(
        data,
        shared::whole(data),
        slog2_format::error::Part::CategoryMap,
        (true,),
    ) {
        shared::round_trip(&p.value, &data[..data.len() - p.trailing.len()]);
    }
});
