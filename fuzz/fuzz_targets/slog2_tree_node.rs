//! A SLOG-2 tree node parsed from arbitrary bytes, in the 2.0.6 layout (first
//! byte even) or the 2.0.5 one (odd): never a panic; a 2.0.6 node that parses
//! writes back to the bytes it used.
#![no_main]

#[path = "shared/round_trip.rs"]
mod shared;

use libfuzzer_sys::fuzz_target;
use slog2_format::read::parse_block;
use slog2_format::TreeNodeBody;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, b)) = data.split_first() else {
        return;
    };
    let v206 = pick & 1 == 0;
    if let Ok(p) = parse_block::<TreeNodeBody>(
        b,
        shared::whole(b),
        slog2_format::error::Part::Node,
        (v206,),
    ) {
        if v206 {
            shared::round_trip(&p.value, &b[..b.len() - p.trailing.len()]);
        }
    }
});
