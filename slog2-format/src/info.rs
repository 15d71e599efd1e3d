//! Info buffers: the opaque bytes a drawable carries, decoded with its category's
//! format characters (`s h d l x X e E`, all big-endian), and printed the way the
//! Java slog2sdk prints them (`slog2print`, Jumpshot's info box).
//!
//! Decoding never panics: a buffer that ends before its last value, or a format
//! character the format does not define, gives an [`InfoError`] naming the value and
//! its offset. Bytes after the last value are ignored, as Java ignores them.
//!
//! ```
//! use slog2_format::info::{decode, labelled, InfoValue};
//! use slog2_format::JStr;
//!
//! let bytes = [0, 0, 0, 1, 0, 0, 0, 0];
//! assert_eq!(decode(b"dd", &bytes).unwrap(), vec![InfoValue::I32(1), InfoValue::I32(0)]);
//! let keys = [JStr::new("msg_tag="), JStr::new(", msg_size="), JStr::new("")];
//! assert_eq!(labelled(&keys, b"dd", &bytes).unwrap(), "msg_tag=1, msg_size=0");
//! ```

use crate::types::JStr;
use std::fmt;

/// One decoded info value, its string held as `S`: [`InfoValue`] owns it,
/// [`InfoRef`] borrows it from the info bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Info<S> {
    /// `%s`: an `i16` byte count and that many bytes (a count ≤ 0 is the empty string).
    Str(S),
    /// `%h`: a 2-byte integer.
    I16(i16),
    /// `%d`: a 4-byte integer.
    I32(i32),
    /// `%l`: an 8-byte integer.
    I64(i64),
    /// `%x`: a 4-byte integer shown in hexadecimal.
    Hex32(i32),
    /// `%X`: an 8-byte integer shown in hexadecimal.
    Hex64(i64),
    /// `%e`: an IEEE-754 single.
    F32(f32),
    /// `%E`: an IEEE-754 double.
    F64(f64),
}

/// One decoded info value, owned.
pub type InfoValue = Info<Vec<u8>>;

/// One decoded info value, borrowed from the info bytes: [`InfoValue`]
/// without the copy of a string.
pub type InfoRef<'a> = Info<&'a [u8]>;

impl<S> Info<S> {
    /// The format character this value is decoded with.
    ///
    /// ```
    /// use slog2_format::info::InfoValue;
    /// assert_eq!(InfoValue::Hex32(-1).format_char(), b'x');
    /// ```
    pub fn format_char(&self) -> u8 {
        match self {
            Info::Str(_) => b's',
            Info::I16(_) => b'h',
            Info::I32(_) => b'd',
            Info::I64(_) => b'l',
            Info::Hex32(_) => b'x',
            Info::Hex64(_) => b'X',
            Info::F32(_) => b'e',
            Info::F64(_) => b'E',
        }
    }
}

/// Java's text for the value, as `slog2print` prints it: strings as their bytes
/// (decoded lossily as UTF-8; Java uses the platform charset), integers in decimal,
/// `%x`/`%X` as Java's `Integer.toHexString`/`Long.toHexString` (lower case, no
/// leading zeros, two's complement for negative values), `%e`/`%E` as
/// [`java_float_to_string`]/[`java_double_to_string`].
impl<S: AsRef<[u8]>> fmt::Display for Info<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Info::Str(b) => f.write_str(&String::from_utf8_lossy(b.as_ref())),
            Info::I16(v) => write!(f, "{v}"),
            Info::I32(v) => write!(f, "{v}"),
            Info::I64(v) => write!(f, "{v}"),
            Info::Hex32(v) => write!(f, "{:x}", *v as u32),
            Info::Hex64(v) => write!(f, "{:x}", *v as u64),
            Info::F32(v) => f.write_str(&java_float_to_string(*v)),
            Info::F64(v) => f.write_str(&java_double_to_string(*v)),
        }
    }
}

/// Why an info buffer cannot be decoded with its formats.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InfoError {
    /// The buffer ends inside a value.
    #[error(
        "info value {index} (%{}) needs {needed} bytes at offset {offset} of the {len}-byte info buffer, which ends before them",
        char::from(*format)
    )]
    Truncated {
        /// Index of the value (0 = first format character).
        index: usize,
        /// Its format character.
        format: u8,
        /// Offset within the buffer where the value (or, for `%s`, its bytes after
        /// the count) starts.
        offset: usize,
        /// Bytes the value needs from `offset`.
        needed: usize,
        /// The buffer's length.
        len: usize,
    },
    /// A format character that is not one of `s h d l x X e E`.
    #[error(
        "info value {index}: unknown format character {:?} (0x{found:02x}); known: s h d l x X e E",
        char::from(*found)
    )]
    UnknownFormat {
        /// Index of the value (0 = first format character).
        index: usize,
        /// The character found.
        found: u8,
    },
}

/// Decodes `bytes` with one value per format character in `types`, in order.
///
/// Bytes after the last value are ignored (as Java does). Fails on the first value
/// that runs past the end of the buffer, or on the first unknown format character,
/// whichever comes first in format order (Java decodes the same way and gives up at
/// the first problem).
///
/// # Errors
///
/// As [`visit`].
///
/// ```
/// use slog2_format::info::{decode, InfoError};
/// let bytes = [0, 0, 0, 7, 0, 2, b'o', b'k'];
/// assert_eq!(decode(b"ds", &bytes)?.len(), 2);
/// assert!(matches!(decode(b"dq", &bytes), Err(InfoError::UnknownFormat { index: 1, found: b'q' })));
/// assert!(matches!(decode(b"ddd", &bytes), Err(InfoError::Truncated { index: 2, offset: 8, needed: 4, len: 8, .. })));
/// # Ok::<(), InfoError>(())
/// ```
pub fn decode(types: &[u8], bytes: &[u8]) -> Result<Vec<InfoValue>, InfoError> {
    let mut out = Vec::with_capacity(types.len().min(bytes.len() + 1));
    visit(types, bytes, |_, v| out.push(v.to_owned()))?;
    Ok(out)
}

impl InfoRef<'_> {
    /// The value, owned.
    ///
    /// ```
    /// use slog2_format::info::{InfoRef, InfoValue};
    /// assert_eq!(InfoRef::Str(b"ok").to_owned(), InfoValue::Str(b"ok".to_vec()));
    /// ```
    pub fn to_owned(&self) -> InfoValue {
        match *self {
            Info::Str(b) => Info::Str(b.to_vec()),
            Info::I16(v) => Info::I16(v),
            Info::I32(v) => Info::I32(v),
            Info::I64(v) => Info::I64(v),
            Info::Hex32(v) => Info::Hex32(v),
            Info::Hex64(v) => Info::Hex64(v),
            Info::F32(v) => Info::F32(v),
            Info::F64(v) => Info::F64(v),
        }
    }
}

/// [`decode`] without allocating: calls `f` with the index and the borrowed
/// value of each format character in turn, and fails as [`decode`] fails
/// (after the calls for the values before the problem).
///
/// # Errors
///
/// [`InfoError::Truncated`] for a value that runs past the end of `bytes` (with
/// its offset in the buffer), or [`InfoError::UnknownFormat`] for a format
/// character outside `s h d l x X e E`; whichever comes first. `f` has been called
/// for the values before it.
///
/// ```
/// use slog2_format::info::{visit, InfoRef};
///
/// let bytes = [0, 0, 0, 7, 0, 2, b'o', b'k'];
/// let mut seen = Vec::new();
/// visit(b"ds", &bytes, |i, v| seen.push((i, v)))?;
/// assert_eq!(seen, [(0, InfoRef::I32(7)), (1, InfoRef::Str(b"ok"))]);
/// assert!(visit(b"dd", &bytes[..6], |_, _| {}).is_err());
/// # Ok::<(), slog2_format::info::InfoError>(())
/// ```
pub fn visit<'a>(
    types: &[u8],
    bytes: &'a [u8],
    mut f: impl FnMut(usize, InfoRef<'a>),
) -> Result<(), InfoError> {
    let mut pos = 0usize;
    for (index, &t) in types.iter().enumerate() {
        let width = match t {
            b's' | b'h' => 2,
            b'd' | b'x' | b'e' => 4,
            b'l' | b'X' | b'E' => 8,
            found => return Err(InfoError::UnknownFormat { index, found }),
        };
        let take = |pos: usize, needed: usize| -> Result<&'a [u8], InfoError> {
            bytes
                .get(pos..)
                .and_then(|rest| rest.get(..needed))
                .ok_or(InfoError::Truncated {
                    index,
                    format: t,
                    offset: pos,
                    needed,
                    len: bytes.len(),
                })
        };
        let raw = take(pos, width)?;
        pos += width;
        let value = match t {
            b's' => {
                let n = i16::from_be_bytes([raw[0], raw[1]]).max(0) as usize;
                let s = take(pos, n)?;
                pos += n;
                InfoRef::Str(s)
            }
            b'h' => InfoRef::I16(i16::from_be_bytes([raw[0], raw[1]])),
            b'd' => InfoRef::I32(i32::from_be_bytes(arr4(raw))),
            b'x' => InfoRef::Hex32(i32::from_be_bytes(arr4(raw))),
            b'e' => InfoRef::F32(f32::from_be_bytes(arr4(raw))),
            b'l' => InfoRef::I64(i64::from_be_bytes(arr8(raw))),
            b'X' => InfoRef::Hex64(i64::from_be_bytes(arr8(raw))),
            _ => InfoRef::F64(f64::from_be_bytes(arr8(raw))),
        };
        f(index, value);
    }
    Ok(())
}

fn arr4(b: &[u8]) -> [u8; 4] {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[..4]);
    a
}

fn arr8(b: &[u8]) -> [u8; 8] {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[..8]);
    a
}

/// The message Java appends when a category has formats but the drawable has no
/// info bytes.
pub const MISSING_BYTES: &str = "Missing user byte[] but Non-empty format chars!";
/// The message Java appends when a drawable has info bytes but its category has no
/// formats.
pub const MISSING_FORMATS: &str = "Can't decode user byte[] with Missing format chars!";

/// The text `slog2print` shows for a drawable's info, after `Category=...: ` and
/// before the `]` that closes `infobox[`: the keys interleaved with the values
/// (`key0 value0 key1 value1 ... keyN`, e.g. `msg_tag=1, msg_size=0`).
///
/// This follows Java's `InfoBox.toString`, including its two odd cases:
/// * formats but no bytes (an empty buffer is `null` in Java): every value prints as
///   `null`, followed by ` **** Missing user byte[] but Non-empty format chars! **** `
///   (Java would throw a `NullPointerException` for a missing `%x`/`%X` value; this
///   function prints `null` for them too);
/// * bytes but no formats: the keys, then
///   ` **** Can't decode user byte[] with Missing format chars! **** `.
///
/// Keys and strings are decoded lossily as UTF-8 (Java uses the platform charset).
/// A buffer that cannot be decoded (where Java prints a stack trace and exits) gives
/// the [`InfoError`].
///
/// # Errors
///
/// As [`visit`], when the buffer cannot be decoded. Missing format characters
/// are not an error: they give Java's line.
///
/// ```
/// use slog2_format::{convert::arrow_category, info::labelled};
/// let c = arrow_category(); // msg_tag=%d, msg_size=%d
/// let bytes: Vec<u8> = [7i32, 1024].iter().flat_map(|v| v.to_be_bytes()).collect();
/// assert_eq!(labelled(&c.keys, &c.types, &bytes)?, "msg_tag=7, msg_size=1024");
/// assert!(labelled(&c.keys, &c.types, &bytes[..3]).is_err()); // a cut value
/// # Ok::<(), slog2_format::info::InfoError>(())
/// ```
pub fn labelled(keys: &[JStr], types: &[u8], bytes: &[u8]) -> Result<String, InfoError> {
    let mut err: Option<&str> = None;
    let values: Vec<Option<InfoValue>> = if types.is_empty() {
        if !bytes.is_empty() {
            err = Some(MISSING_FORMATS);
        }
        Vec::new()
    } else if bytes.is_empty() {
        err = Some(MISSING_BYTES);
        vec![None; types.len()]
    } else {
        decode(types, bytes)?.into_iter().map(Some).collect()
    };
    let mut out = String::new();
    for idx in 0..keys.len().max(values.len()) {
        if let Some(k) = keys.get(idx) {
            out.push_str(&String::from_utf8_lossy(&k.bytes));
        }
        match values.get(idx) {
            Some(Some(v)) => out.push_str(&v.to_string()),
            Some(None) => out.push_str("null"),
            None => {}
        }
    }
    if let Some(e) = err {
        out.push_str(" **** ");
        out.push_str(e);
        out.push_str(" **** ");
    }
    Ok(out)
}

/// The format string a category's keys and types were split from, rebuilt as
/// `key0%t0key1%t1...keyN` (Java's `info_fmt` text in `Category.toString`, without
/// the surrounding `< >`). Extra keys or types are appended in the same interleaved
/// order.
///
/// ```
/// use slog2_format::{convert::arrow_category, info::format_string};
/// let c = arrow_category();
/// assert_eq!(format_string(&c.keys, &c.types), "msg_tag=%d, msg_size=%d");
/// ```
pub fn format_string(keys: &[JStr], types: &[u8]) -> String {
    let mut out = String::new();
    for idx in 0..keys.len().max(types.len()) {
        if let Some(k) = keys.get(idx) {
            out.push_str(&String::from_utf8_lossy(&k.bytes));
        }
        if let Some(&t) = types.get(idx) {
            out.push('%');
            out.push(char::from(t));
        }
    }
    out
}

pub use crate::java_number::{java_double_to_string, java_float_to_string};

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn keys(k: &[&str]) -> Vec<JStr> {
        k.iter().map(|s| JStr::new(s)).collect()
    }

    #[test]
    fn each_format_character_decodes_big_endian() {
        let mut b = Vec::new();
        b.extend_from_slice(&3i16.to_be_bytes());
        b.extend_from_slice(b"abc");
        b.extend_from_slice(&(-2i16).to_be_bytes());
        b.extend_from_slice(&1000i32.to_be_bytes());
        b.extend_from_slice(&(-5i64).to_be_bytes());
        b.extend_from_slice(&(0xdeadbeefu32 as i32).to_be_bytes());
        b.extend_from_slice(&(-1i64).to_be_bytes());
        b.extend_from_slice(&1.5f32.to_be_bytes());
        b.extend_from_slice(&3.25f64.to_be_bytes());
        let v = decode(b"shdlxXeE", &b).unwrap();
        assert_eq!(
            v,
            vec![
                InfoValue::Str(b"abc".to_vec()),
                InfoValue::I16(-2),
                InfoValue::I32(1000),
                InfoValue::I64(-5),
                InfoValue::Hex32(0xdeadbeefu32 as i32),
                InfoValue::Hex64(-1),
                InfoValue::F32(1.5),
                InfoValue::F64(3.25),
            ]
        );
        let text: Vec<String> = v.iter().map(|x| x.to_string()).collect();
        assert_eq!(
            text,
            [
                "abc",
                "-2",
                "1000",
                "-5",
                "deadbeef",
                "ffffffffffffffff",
                "1.5",
                "3.25"
            ]
        );
        let chars: Vec<u8> = v.iter().map(InfoValue::format_char).collect();
        assert_eq!(chars, b"shdlxXeE");
    }

    #[test]
    fn hex_has_no_leading_zeros() {
        assert_eq!(InfoValue::Hex32(256).to_string(), "100");
        assert_eq!(InfoValue::Hex32(0).to_string(), "0");
        assert_eq!(InfoValue::Hex64(0x1f).to_string(), "1f");
    }

    #[test]
    fn negative_or_zero_string_count_is_empty() {
        let b = [0xff, 0xfe, 0, 7];
        assert_eq!(
            decode(b"sh", &b).unwrap(),
            vec![InfoValue::Str(vec![]), InfoValue::I16(7)]
        );
        assert_eq!(decode(b"s", &[0, 0]).unwrap(), vec![InfoValue::Str(vec![])]);
    }

    #[test]
    fn extra_bytes_are_ignored() {
        assert_eq!(
            decode(b"h", &[0, 1, 2, 3, 4]).unwrap(),
            vec![InfoValue::I16(1)]
        );
        assert_eq!(decode(b"", &[1, 2, 3]).unwrap(), vec![]);
    }

    #[test]
    fn truncation_names_the_value_and_offset() {
        let e = decode(b"dd", &[0, 0, 0, 1, 0, 0]).unwrap_err();
        assert_eq!(
            e,
            InfoError::Truncated {
                index: 1,
                format: b'd',
                offset: 4,
                needed: 4,
                len: 6
            }
        );
        assert!(e.to_string().contains("info value 1"), "{e}");
        assert!(e.to_string().contains("offset 4"), "{e}");
        // A string whose bytes run past the end: the offset is where its bytes start.
        let e = decode(b"hs", &[0, 0, 0, 5, b'a', b'b']).unwrap_err();
        assert_eq!(
            e,
            InfoError::Truncated {
                index: 1,
                format: b's',
                offset: 4,
                needed: 5,
                len: 6
            }
        );
        // A string whose count runs past the end.
        let e = decode(b"s", &[0]).unwrap_err();
        assert!(matches!(
            e,
            InfoError::Truncated {
                index: 0,
                offset: 0,
                needed: 2,
                ..
            }
        ));
        for (t, n) in [
            (b'h', 2),
            (b'd', 4),
            (b'l', 8),
            (b'x', 4),
            (b'X', 8),
            (b'e', 4),
            (b'E', 8),
        ] {
            let e = decode(&[t], &vec![0; n - 1]).unwrap_err();
            assert!(matches!(e, InfoError::Truncated { index: 0, needed, .. } if needed == n));
            assert!(decode(&[t], &vec![0; n]).is_ok());
        }
    }

    #[test]
    fn unknown_format_character() {
        let e = decode(b"dq", &[0; 16]).unwrap_err();
        assert_eq!(
            e,
            InfoError::UnknownFormat {
                index: 1,
                found: b'q'
            }
        );
        assert!(e.to_string().contains("'q'"), "{e}");
        // The first problem in format order wins.
        assert!(matches!(
            decode(b"lq", &[0; 4]).unwrap_err(),
            InfoError::Truncated { index: 0, .. }
        ));
    }

    #[test]
    fn labelled_interleaves_keys_and_values() {
        let k = keys(&["msg_tag=", ", msg_size=", ""]);
        let b = [0, 0, 0, 1, 0, 0, 0, 0];
        assert_eq!(labelled(&k, b"dd", &b).unwrap(), "msg_tag=1, msg_size=0");
        let k = keys(&["final pi = ", " at iteration ", "."]);
        let mut b = 3.28961815494511f64.to_be_bytes().to_vec();
        b.extend_from_slice(&7i32.to_be_bytes());
        assert_eq!(
            labelled(&k, b"Ed", &b).unwrap(),
            "final pi = 3.28961815494511 at iteration 7."
        );
        // No keys, no types, no bytes: nothing.
        assert_eq!(labelled(&[], b"", &[]).unwrap(), "");
        // Keys without formats and no bytes: the keys.
        assert_eq!(labelled(&keys(&["hello"]), b"", &[]).unwrap(), "hello");
    }

    #[test]
    fn labelled_reproduces_java_odd_cases() {
        let k = keys(&["msg_tag=", ", msg_size=", ""]);
        assert_eq!(
            labelled(&k, b"dd", &[]).unwrap(),
            "msg_tag=null, msg_size=null **** Missing user byte[] but Non-empty format chars! **** "
        );
        assert_eq!(
            labelled(&[], b"", &[1, 2]).unwrap(),
            " **** Can't decode user byte[] with Missing format chars! **** "
        );
        assert!(labelled(&k, b"dd", &[0, 0, 0, 1]).is_err());
    }

    #[test]
    fn format_string_rebuilds_the_printf_text() {
        let k = keys(&["msg_tag=", ", msg_size=", ""]);
        assert_eq!(format_string(&k, b"dd"), "msg_tag=%d, msg_size=%d");
        assert_eq!(format_string(&[], b""), "");
        assert_eq!(format_string(&keys(&["a"]), b"dE"), "a%d%E");
    }

    proptest! {
        #[test]
        fn decode_and_labelled_never_panic(
            types in proptest::collection::vec(any::<u8>(), 0..12),
            bytes in proptest::collection::vec(any::<u8>(), 0..64),
            nkeys in 0usize..14,
        ) {
            let _ = decode(&types, &bytes);
            let k: Vec<JStr> = (0..nkeys).map(|i| JStr::new(&format!("k{i}="))).collect();
            let _ = labelled(&k, &types, &bytes);
            let _ = format_string(&k, &types);
        }

        #[test]
        fn known_formats_decode_when_long_enough(
            types in proptest::collection::vec(proptest::sample::select(b"hdlxXeE".to_vec()), 0..8),
        ) {
            // Numeric formats need exactly their widths.
            let need: usize = types.iter().map(|t| match t { b'h' => 2, b'd' | b'x' | b'e' => 4, _ => 8 }).sum();
            let v = decode(&types, &vec![0x41; need]).unwrap();
            prop_assert_eq!(v.len(), types.len());
            if need > 0 {
                prop_assert!(decode(&types, &vec![0x41; need - 1]).is_err());
            }
        }

        #[test]
        fn java_text_reads_back(bits in any::<u64>(), fbits in any::<u32>()) {
            let d = f64::from_bits(bits);
            let t = java_double_to_string(d);
            if d.is_finite() {
                let back: f64 = t.replace('E', "e").parse().unwrap();
                prop_assert_eq!(back.to_bits(), d.to_bits(), "{}", t);
            }
            let f = f32::from_bits(fbits);
            let t = java_float_to_string(f);
            if f.is_finite() {
                let back: f32 = t.replace('E', "e").parse().unwrap();
                prop_assert_eq!(back.to_bits(), f.to_bits(), "{}", t);
            }
        }
    }
}
