//! JSON text with the one escape notation of mpelog's text outputs
//! (spec/README.md §3, strings in text output, [`clog2_format::escape`]): in strings every control
//! character (U+0000 … U+001F and U+007F) is `\u00XX`, never a short form such
//! as `\n`; otherwise the compact JSON serde_json writes.

use serde::Serialize;
use serde_json::ser::{CharEscape, CompactFormatter, Formatter, PrettyFormatter, Serializer};
use std::io;

/// serde_json's compact formatter with control characters as `\u00XX`.
#[derive(Debug, Clone, Copy, Default)]
pub struct UniformEscapes;

impl Formatter for UniformEscapes {
    fn write_char_escape<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        escape: CharEscape,
    ) -> io::Result<()> {
        let byte = match escape {
            CharEscape::Quote => return w.write_all(b"\\\""),
            CharEscape::ReverseSolidus => return w.write_all(b"\\\\"),
            CharEscape::Solidus => return w.write_all(b"\\/"),
            CharEscape::Backspace => 0x08,
            CharEscape::FormFeed => 0x0c,
            CharEscape::LineFeed => b'\n',
            CharEscape::CarriageReturn => b'\r',
            CharEscape::Tab => b'\t',
            CharEscape::AsciiControl(b) => b,
        };
        write!(w, "\\u{byte:04x}")
    }

    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        // serde_json leaves DEL as it is; the notation escapes it too.
        let mut parts = fragment.split('\u{7f}');
        if let Some(first) = parts.next() {
            CompactFormatter.write_string_fragment(w, first)?;
        }
        for p in parts {
            w.write_all(b"\\u007f")?;
            CompactFormatter.write_string_fragment(w, p)?;
        }
        Ok(())
    }
}

/// serde_json's pretty formatter (two-space indents) with the escapes of
/// [`UniformEscapes`].
#[derive(Debug, Default)]
pub struct PrettyUniform(PrettyFormatter<'static>);

macro_rules! delegate {
    ($($name:ident($($arg:ident: $t:ty),*)),* $(,)?) => {$(
        fn $name<W: ?Sized + io::Write>(&mut self, w: &mut W $(, $arg: $t)*) -> io::Result<()> {
            self.0.$name(w $(, $arg)*)
        }
    )*};
}

impl Formatter for PrettyUniform {
    delegate!(
        begin_array(),
        end_array(),
        begin_array_value(first: bool),
        end_array_value(),
        begin_object(),
        end_object(),
        begin_object_key(first: bool),
        begin_object_value(),
        end_object_value(),
    );

    fn write_char_escape<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        escape: CharEscape,
    ) -> io::Result<()> {
        UniformEscapes.write_char_escape(w, escape)
    }

    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        UniformEscapes.write_string_fragment(w, fragment)
    }
}

/// Writes `value` as indented JSON with [`PrettyUniform`].
///
/// # Errors
///
/// As [`to_writer`].
///
/// ```
/// let mut out = Vec::new();
/// mpelog::json_text::to_writer_pretty(&mut out, &serde_json::json!({"a": [1]}))?;
/// assert_eq!(String::from_utf8(out).unwrap(), "{\n  \"a\": [\n    1\n  ]\n}");
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn to_writer_pretty<W: io::Write, T: ?Sized + Serialize>(
    w: W,
    value: &T,
) -> serde_json::Result<()> {
    value.serialize(&mut Serializer::with_formatter(w, PrettyUniform::default()))
}

/// Writes `value` as compact JSON with [`UniformEscapes`].
///
/// # Errors
///
/// The writer's I/O error, or a value serde_json cannot write (a map whose
/// keys are not strings).
///
/// ```
/// let mut out = Vec::new();
/// mpelog::json_text::to_writer(&mut out, &serde_json::json!({"name": "a\tb"}))?;
/// assert_eq!(out, br#"{"name":"a\u0009b"}"#);
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn to_writer<W: io::Write, T: ?Sized + Serialize>(w: W, value: &T) -> serde_json::Result<()> {
    value.serialize(&mut Serializer::with_formatter(w, UniformEscapes))
}

/// `value` as compact JSON text with [`UniformEscapes`].
///
/// ```
/// // Control characters, DEL included, as `\u00XX`; no short forms like `\n`.
/// assert_eq!(mpelog::json_text::to_string("a\nb\u{7f}"), r#""a\u000ab\u007f""#);
/// assert_eq!(mpelog::json_text::to_string(&[1.5, 2.0]), "[1.5,2.0]");
/// ```
pub fn to_string<T: ?Sized + Serialize>(value: &T) -> String {
    let mut out = Vec::new();
    // Serializing a Serialize value into memory does not fail for the values
    // mpelog writes (string keys only).
    let _ = to_writer(&mut out, value);
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_u00xx() {
        assert_eq!(
            to_string("a\u{1}\n\t\u{7f}\"\\é"),
            r#""a\u0001\u000a\u0009\u007f\"\\é""#
        );
        let v = serde_json::json!({"k\n": [1.5, "x"]});
        assert_eq!(to_string(&v), r#"{"k\u000a":[1.5,"x"]}"#);
        // The pretty form: serde_json's layout, the same escapes.
        let mut pretty = Vec::new();
        to_writer_pretty(&mut pretty, &v).unwrap();
        let expected = serde_json::to_string_pretty(&v)
            .unwrap()
            .replace(r"\n", r"\u000a");
        assert_eq!(String::from_utf8(pretty).unwrap(), expected);
        assert!(expected.contains("\n  \"k"));
    }
}
