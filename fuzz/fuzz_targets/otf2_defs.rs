//! The OTF2 definition readers (global and local): any bytes, in chunks of a
//! size the first byte chooses (17 … 4081 bytes, or 1 MiB for 0xFF), give definitions or an
//! error with an offset inside the input; nothing is allocated beyond what
//! the bytes hold.
#![no_main]

use libfuzzer_sys::fuzz_target;
use otf2_format::{Definitions, Limits, LocalDefs, MemSource};

fuzz_target!(|data: &[u8]| {
    let Some((&c, rest)) = data.split_first() else {
        return;
    };
    let chunk = if c == 0xff {
        1 << 20
    } else {
        17 + 16 * u64::from(c)
    };
    let src = MemSource(rest.into());
    let limits = Limits::default();
    match Definitions::read(src.clone(), "traces.def".into(), chunk, &limits) {
        Ok(d) => assert!(d.records <= rest.len() as u64),
        Err(e) => assert!(e.offset() <= rest.len() as u64),
    }
    match LocalDefs::read(src, "0.def".into(), chunk, &limits) {
        Ok(d) => assert!(d.intervals.len() <= rest.len()),
        Err(e) => assert!(e.offset() <= rest.len() as u64),
    }
});
