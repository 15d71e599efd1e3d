//! The one escape notation of mpelog's text outputs (spec/README.md §3, strings in text output): in a
//! string, a control character (U+0000 … U+001F and U+007F; in a byte dump the
//! bytes 0x00 … 0x1F and 0x7F) is written `\u00XX` with two lower-case hex
//! digits, as Java and JSON write it (`\u0001`, a newline `\u000a`; no short
//! forms such as `\n`). Inside a quoted string `"` is `\"` and `\` is `\\`.
//! Byte dumps write a byte ≥ 0x80 as `\xXX` (the bytes are shown, not decoded);
//! decoded text keeps every other character as it is.

use std::fmt::{self, Display, Write};

/// Whether `c` is written `\u00XX`: U+0000 … U+001F and U+007F.
///
/// ```
/// use clog2_format::escape::is_control;
/// assert!(is_control('\n') && is_control('\u{7f}'));
/// assert!(!is_control(' ') && !is_control('é'));
/// ```
pub fn is_control(c: char) -> bool {
    c < ' ' || c == '\u{7f}'
}

/// Writes the escape `\u00XX` of a control character or byte `c`.
///
/// # Errors
///
/// Those of `f` (a [`String`] never fails).
///
/// ```
/// let mut s = String::new();
/// clog2_format::escape::write_control(&mut s, 0x1b).unwrap();
/// assert_eq!(s, "\\u001b");
/// ```
pub fn write_control(f: &mut impl Write, c: u8) -> fmt::Result {
    write!(f, "\\u{:04x}", c)
}

/// Bytes as a quoted string: `"`, `\`, control bytes escaped as the module says,
/// bytes ≥ 0x80 as `\xXX`.
#[derive(Debug, Clone, Copy)]
pub struct QuotedBytes<'a>(pub &'a [u8]);

impl Display for QuotedBytes<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('"')?;
        for &c in self.0 {
            match c {
                b'"' => f.write_str("\\\"")?,
                b'\\' => f.write_str("\\\\")?,
                0x20..=0x7e => f.write_char(c as char)?,
                0x80..=0xff => write!(f, "\\x{c:02x}")?,
                _ => write_control(f, c)?,
            }
        }
        f.write_char('"')
    }
}

/// Text as a quoted string: `"`, `\` and control characters escaped as the
/// module says, every other character as it is.
///
/// ```
/// assert_eq!(clog2_format::escape::quoted_text("a\"b\tc"), r#""a\"b\u0009c""#);
/// ```
pub fn quoted_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    push_escaped(&mut out, s);
    out.push('"');
    out
}

/// Appends `s` with `"`, `\` and control characters escaped, without quotes.
///
/// ```
/// let mut s = String::from("name=");
/// clog2_format::escape::push_escaped(&mut s, "C:\\tmp\n");
/// assert_eq!(s, r"name=C:\\tmp\u000a");
/// ```
pub fn push_escaped(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if is_control(c) => {
                let _ = write_control(out, c as u8);
            }
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_notation_for_control_characters() {
        assert_eq!(
            QuotedBytes(b"a\x01\n\x7f\"\\\xc3\xa9").to_string(),
            r#""a\u0001\u000a\u007f\"\\\xc3\xa9""#
        );
        assert_eq!(
            quoted_text("a\u{1}\n\u{7f}\"\\é"),
            r#""a\u0001\u000a\u007f\"\\é""#
        );
    }
}
