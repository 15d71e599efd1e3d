//! A wait index (spec/waits.md) read from arbitrary bytes: never a panic, an
//! index or an error whose offset lies inside the bytes; an index that reads
//! writes back to the same bytes, and its window queries stay inside it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mpelog::waits::WaitIndex;

fuzz_target!(|data: &[u8]| {
    match WaitIndex::from_bytes(data) {
        Ok(ix) => {
            assert_eq!(ix.to_bytes(), data, "read then written");
            let (a, b) = (ix.from, ix.to);
            if a.is_finite() && b.is_finite() && b > a {
                let c = ix.cells(a, b, 64);
                for r in &c.rows {
                    assert!(r.cells.iter().all(|x| x.column < 64));
                }
                let _ = ix.instances(a, b, 8);
                let _ = ix.critical_path(a, b);
            }
        }
        Err(e) => {
            let at = e.offset().expect("a format error");
            assert!(at <= data.len() as u64);
        }
    }
});
