//! The OTF2 event reader and the OTF2 → drawables pairing: the input is a
//! chunk-size byte (chunks of 17 … 4081 bytes, or 1 MiB for 0xFF), a two-byte length L, L bytes
//! of global definitions, then an event file. Any bytes give events (each
//! consuming input, so the reader ends) or an error with an offset inside the
//! event file; the events, whatever they say, pair into drawables in end-time
//! order without a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use otf2_format::{Definitions, Limits, LocalDefs, LocationEvents, MemSource};
use slog2_format::convert::otf2::Otf2Drawables;
use std::sync::Arc;

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let chunk = if data[0] == 0xff {
        1 << 20
    } else {
        17 + 16 * u64::from(data[0])
    };
    let l = usize::from(u16::from_be_bytes([data[1], data[2]])).min(data.len() - 3);
    let (defs, evt) = data[3..].split_at(l);
    let limits = Limits::default();
    let mut d =
        Definitions::read(MemSource(defs.into()), "d".into(), chunk, &limits).unwrap_or_default();
    if d.locations.is_empty() {
        d.locations.push((
            0,
            otf2_format::defs::Location {
                name: 0,
                location_type: 1,
                number_of_events: 0,
                location_group: 0,
            },
        ));
    }
    let loc = d.locations[0].0;
    let mut r = LocationEvents::new(
        Some(MemSource(evt.into())),
        "0.evt".into(),
        loc,
        chunk,
        64,
        Arc::new(LocalDefs::default()),
    );
    let mut pairing = Otf2Drawables::new(&d);
    let mut last = f64::NEG_INFINITY;
    let mut n = 0u64;
    loop {
        match r.next_event() {
            Ok(Some(e)) => {
                n += 1;
                assert!(n <= evt.len() as u64, "more events than bytes");
                for p in pairing.push(&e) {
                    assert!(p.latest() >= last, "drawables out of end-time order");
                    last = p.latest();
                }
            }
            Ok(None) => break,
            Err(e) => {
                assert!(e.offset() <= evt.len() as u64);
                break;
            }
        }
    }
    let (prims, cats, _, _, _) = pairing.finish();
    for p in prims {
        assert!(p.latest() >= last);
        assert!(cats.iter().any(|c| c.index == p.category));
    }
});
