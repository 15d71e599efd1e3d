//! A wait index (spec/waits.md) read from arbitrary bytes: never a panic, an
//! index or an error whose offset lies inside the bytes; an index that reads
//! writes back to the same bytes, and its window queries stay inside it.
//! When the first byte is odd (as the magic's `M` is), the last 4 bytes are
//! first set to the CRC-32 of the rest, so that mutations reach the
//! structure behind the checksum. The same bytes read from a file in pieces
//! (`read_file`) give the same index or the same error.
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

/// The file the bytes are written to, one per fuzzing process.
fn file() -> &'static std::path::Path {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    static PATH: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    PATH.get_or_init(|| {
        DIR.get_or_init(|| tempfile::tempdir().expect("a temporary directory"))
            .path()
            .join("index.waits")
    })
}

fuzz_target!(|data: &[u8]| {
    let mut data = data.to_vec();
    if data.len() >= 4 && data[0] & 1 == 1 {
        let n = data.len() - 4;
        let c = crc32(&data[..n]);
        data[n..].copy_from_slice(&c.to_le_bytes());
    }
    let whole = WaitIndex::from_bytes(&data);
    std::fs::write(file(), &data).expect("the fuzzer's own file");
    match (&whole, &WaitIndex::read_file(file())) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "read whole and in pieces"),
        (Err(a), Err(b)) => assert_eq!((a.offset(), a.to_string()), (b.offset(), b.to_string())),
        (a, b) => panic!("read whole: {a:?}; in pieces: {b:?}"),
    }
    match whole {
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
