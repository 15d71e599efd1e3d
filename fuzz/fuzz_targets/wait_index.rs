//! A wait index (spec/waits.md) read from arbitrary bytes: never a panic, an
//! index or an error whose offset lies inside the bytes; an index that reads
//! writes back to the same bytes, and its window queries stay inside it.
//! When the first byte is odd (as the magic's `M` is), the last 4 bytes are
//! first set to the CRC-32 of the rest, so that mutations reach the
//! structure behind the checksum.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mpelog::waits::WaitIndex;

/// CRC-32 (IEEE), bit by bit.
fn crc32(b: &[u8]) -> u32 {
    let mut c = !0u32;
    for &x in b {
        c ^= u32::from(x);
        for _ in 0..8 {
            c = if c & 1 == 1 {
                (c >> 1) ^ 0xedb8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

fuzz_target!(|data: &[u8]| {
    let mut data = data.to_vec();
    if data.len() >= 4 && data[0] & 1 == 1 {
        let n = data.len() - 4;
        let c = crc32(&data[..n]);
        data[n..].copy_from_slice(&c.to_le_bytes());
    }
    match WaitIndex::from_bytes(&data) {
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
