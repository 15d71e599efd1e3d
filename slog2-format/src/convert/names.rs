//! Category names, colours and formats as MPE's Java converters read them
//! from definition records (spec/conversion.md §2.1 items 9–12): CLOG2's
//! `logformat.clog2.MixedDataInputStream.readString` and the `UnknownType-N`
//! name of `base.drawable.InfoBox.resolveCategory`.

/// A CLOG2 string field (name, colour or format of a STATEDEF or EVENTDEF) as
/// Java's `clog2.MixedDataInputStream.readString` gives it: the field decoded as
/// UTF-8 (a malformed or cut sequence becomes U+FFFD, so a name cut at its
/// 31-byte limit inside a character ends in U+FFFD), the text before the first
/// NUL, without leading and trailing characters ≤ U+0020 (`String.trim`).
///
/// `None` (Java's `null`) when the field starts with NUL (an empty string) or
/// holds no NUL at all. A field of blanks only is `Some("")`.
///
/// ```
/// use slog2_format::convert::names::clog2_field;
/// assert_eq!(clog2_field(b"MPI_Send\0\0"), Some("MPI_Send".to_string()));
/// assert_eq!(clog2_field(b"\0stale"), None); // Java's null
/// assert_eq!(clog2_field(b"no NUL"), None);
/// ```
pub fn clog2_field(field: &[u8]) -> Option<String> {
    let end = field.iter().position(|&b| b == 0)?;
    if end == 0 {
        return None;
    }
    Some(java_trim(&String::from_utf8_lossy(&field[..end])).to_string())
}

/// Java's `String.trim`: without leading and trailing characters ≤ U+0020
/// (blanks and every ASCII control character, NUL included).
///
/// ```
/// assert_eq!(slog2_format::convert::names::java_trim(" \t name \n"), "name");
/// ```
pub fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

/// The name Java gives a used category that has none (a placeholder no
/// definition named, or a definition with an empty name): `UnknownType-N`, `N`
/// the category index.
///
/// ```
/// assert_eq!(slog2_format::convert::names::unknown_type(7), "UnknownType-7");
/// ```
pub fn unknown_type(index: i32) -> String {
    format!("UnknownType-{index}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_read_like_clog2_read_string() {
        assert_eq!(clog2_field(b"  Compute \t\0\0"), Some("Compute".into()));
        assert_eq!(clog2_field(b"\0Compute\0"), None);
        assert_eq!(clog2_field(b"Compute"), None);
        assert_eq!(clog2_field(b"   \0"), Some(String::new()));
        assert_eq!(clog2_field(b"a\x01\0"), Some("a".into()));
        assert_eq!(clog2_field(b"ab\xe2\x82\0junk"), Some("ab\u{fffd}".into()));
        assert_eq!(unknown_type(7), "UnknownType-7");
    }
}
