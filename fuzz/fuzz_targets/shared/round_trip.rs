//! The check every SLOG-2 structure target shares: a structure that parsed
//! writes back to exactly the bytes it was parsed from.

use binrw::BinWrite;

/// Writes `v` big-endian and requires the result to equal `used`.
pub fn round_trip<T: for<'a> BinWrite<Args<'a> = ()>>(v: &T, used: &[u8]) {
    let mut c = std::io::Cursor::new(Vec::new());
    v.write_be(&mut c).expect("a parsed structure writes");
    assert_eq!(
        c.into_inner(),
        used,
        "written bytes differ from the parsed ones"
    );
}

/// A pointer naming the whole input as one block at offset 0 (the header target
/// does not need it).
#[allow(dead_code)]
pub fn whole(b: &[u8]) -> slog2_format::FileBlockPtr {
    slog2_format::FileBlockPtr {
        offset: 0,
        size: b.len() as i32,
    }
}
