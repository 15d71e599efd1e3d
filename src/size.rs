//! Byte sizes on the command line: `65536`, `64k`, `1m` (as clog2TOslog2's `-ls`).

/// Parses a byte count with an optional `k`/`K` (×1024), `m`/`M` (×1024²) or
/// `g`/`G` (×1024³) suffix into a `u32`.
pub fn parse_u32(s: &str) -> Result<u32, String> {
    parse_u64(s).and_then(|v| {
        u32::try_from(v).map_err(|_| format!("{s:?} is too large (at most 4294967295 bytes)"))
    })
}

/// [`parse_u32`] into a `u64`.
pub fn parse_u64(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (digits, mult) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 1u64 << 10),
        Some((i, 'm' | 'M')) => (&t[..i], 1u64 << 20),
        Some((i, 'g' | 'G')) => (&t[..i], 1u64 << 30),
        _ => (t, 1),
    };
    let n: u64 = digits.parse().map_err(|_| {
        format!("{s:?} is not a byte count (a whole number, with k, m or g allowed: 64k)")
    })?;
    n.checked_mul(mult)
        .ok_or_else(|| format!("{s:?} is too large (at most 18446744073709551615 bytes)"))
}

#[cfg(test)]
mod tests {
    use super::{parse_u32, parse_u64};

    #[test]
    fn suffixes_multiply_by_powers_of_1024() {
        assert_eq!(parse_u32("65536"), Ok(65536));
        assert_eq!(parse_u32("64k"), Ok(65536));
        assert_eq!(parse_u32("64K"), Ok(65536));
        assert_eq!(parse_u32("1m"), Ok(1 << 20));
        assert_eq!(parse_u32("2G"), Ok(2 << 30));
        assert!(parse_u32("4g").is_err());
        assert!(parse_u32("k").is_err());
        assert!(parse_u32("-1").is_err());
        assert!(parse_u32("1.5k").is_err());
        assert_eq!(parse_u64("4g"), Ok(4 << 30));
        assert!(parse_u64("17179869184g").is_err());
    }
}
