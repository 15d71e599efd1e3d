//! The small field parsers and writers the declarative record layouts use: a
//! whitespace-separated decimal token, the rest of a line, and their canonical
//! written forms (spec/alog.md §3).
//!
//! The parsers run over one line (its LF and trailing CRs already removed), so the
//! end of the input is the end of the line.

use crate::error::{Field, TokenProblem};
use binrw::BinResult;
use std::io::{Read, Seek, SeekFrom};

/// Whether `b` separates fields: space, tab, vertical tab, form feed or carriage
/// return (C's `isspace` without the newline, which ends the line).
///
/// ```
/// use alog_format::text::is_space;
/// assert!(is_space(b' ') && is_space(b'\t') && is_space(b'\r'));
/// assert!(!is_space(b'\n')); // the newline ends the line
/// ```
#[inline]
pub fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c)
}

/// The error a token parser raises, carried through binrw as a custom error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenError {
    /// Which field.
    pub field: Field,
    /// What is wrong.
    pub problem: TokenProblem,
    /// The token (lossy text, at most 32 characters; empty when missing).
    pub token: String,
}

impl std::fmt::Display for TokenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "field {} {}: {:?}", self.field, self.problem, self.token)
    }
}

/// At most 32 characters of a token, lossily decoded.
pub(crate) fn shown(tok: &[u8]) -> String {
    let s = String::from_utf8_lossy(tok);
    let mut out: String = s.chars().take(32).collect();
    if s.chars().nth(32).is_some() {
        out.push('…');
    }
    out
}

fn fail(pos: u64, field: Field, problem: TokenProblem, tok: &[u8]) -> binrw::Error {
    binrw::Error::Custom {
        pos,
        err: Box::new(TokenError {
            field,
            problem,
            token: shown(tok),
        }),
    }
}

/// Skips separators, then reads a maximal run of non-separator bytes. Returns the
/// token's start position and its bytes (empty at the end of the line, the
/// position then being the end).
pub(crate) fn read_word<R: Read + Seek>(r: &mut R) -> BinResult<(u64, Vec<u8>)> {
    let mut b = [0u8; 1];
    loop {
        if r.read(&mut b)? == 0 {
            return Ok((r.stream_position()?, Vec::new()));
        }
        if !is_space(b[0]) {
            break;
        }
    }
    let start = r.stream_position()? - 1;
    let mut tok = vec![b[0]];
    loop {
        if r.read(&mut b)? == 0 {
            break;
        }
        if is_space(b[0]) {
            r.seek(SeekFrom::Current(-1))?;
            break;
        }
        tok.push(b[0]);
    }
    Ok((start, tok))
}

/// Parses a decimal integer token `[+-]?[0-9]+` that fits in i32.
///
/// # Errors
///
/// [`TokenProblem::OutOfRange`] for an integer outside `i32`,
/// [`TokenProblem::NotAnInteger`] for anything else that is not one (the empty token
/// included).
///
/// ```
/// use alog_format::{text::parse_int, TokenProblem};
/// assert_eq!(parse_int(b"-42"), Ok(-42));
/// assert_eq!(parse_int(b"+7"), Ok(7));
/// assert_eq!(parse_int(b"2147483648"), Err(TokenProblem::OutOfRange));
/// assert_eq!(parse_int(b"4.0"), Err(TokenProblem::NotAnInteger));
/// ```
pub fn parse_int(tok: &[u8]) -> Result<i32, TokenProblem> {
    let s = std::str::from_utf8(tok).map_err(|_| TokenProblem::NotAnInteger)?;
    s.parse::<i32>().map_err(|e| match e.kind() {
        std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow => {
            TokenProblem::OutOfRange
        }
        _ => TokenProblem::NotAnInteger,
    })
}

/// Parses a finite decimal number: digits with an optional sign, fraction and
/// exponent (what C's `strtod` reads, without hex, infinity and NaN forms).
///
/// # Errors
///
/// [`TokenProblem::NotANumber`] for a token that is not one of these forms, or
/// whose value is not finite.
///
/// ```
/// use alog_format::{text::parse_number, TokenProblem};
/// assert_eq!(parse_number(b"1.5e3"), Ok(1500.0));
/// assert_eq!(parse_number(b"-.5"), Ok(-0.5));
/// assert_eq!(parse_number(b"inf"), Err(TokenProblem::NotANumber));
/// assert_eq!(parse_number(b"1e999"), Err(TokenProblem::NotANumber)); // not finite
/// ```
pub fn parse_number(tok: &[u8]) -> Result<f64, TokenProblem> {
    let ok_chars = tok
        .iter()
        .all(|&c| c.is_ascii_digit() || matches!(c, b'+' | b'-' | b'.' | b'e' | b'E'));
    if !ok_chars || !tok.iter().any(u8::is_ascii_digit) {
        return Err(TokenProblem::NotANumber);
    }
    let s = std::str::from_utf8(tok).map_err(|_| TokenProblem::NotANumber)?;
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(TokenProblem::NotANumber),
    }
}

/// The parser of an integer field.
#[binrw::parser(reader)]
pub(crate) fn int(field: Field) -> BinResult<i32> {
    token(reader, field, parse_int)
}

/// The parser of the timestamp field.
#[binrw::parser(reader)]
pub(crate) fn number(field: Field) -> BinResult<f64> {
    token(reader, field, parse_number)
}

/// The next word of `reader` as `parse` reads it; a missing word or one
/// `parse` refuses is an error naming `field`.
fn token<R: Read + Seek, T>(
    reader: &mut R,
    field: Field,
    parse: fn(&[u8]) -> Result<T, TokenProblem>,
) -> BinResult<T> {
    let (pos, tok) = read_word(reader)?;
    if tok.is_empty() {
        return Err(fail(pos, field, TokenProblem::Missing, &tok));
    }
    parse(&tok).map_err(|p| fail(pos, field, p, &tok))
}

/// The parser of a free-text word (a run of non-separators; empty at the end).
#[binrw::parser(reader)]
pub(crate) fn word() -> BinResult<Vec<u8>> {
    Ok(read_word(reader)?.1)
}

/// The parser of the rest of the line after the separators that follow the last
/// field: `None` when the line ends right after that field.
#[binrw::parser(reader)]
pub(crate) fn tail() -> BinResult<Option<Vec<u8>>> {
    let mut rest = Vec::new();
    reader.read_to_end(&mut rest)?;
    if rest.is_empty() {
        return Ok(None);
    }
    let start = rest
        .iter()
        .position(|&b| !is_space(b))
        .unwrap_or(rest.len());
    rest.drain(..start);
    Ok(Some(rest))
}

/// The rest of the line after the separators, empty when nothing follows.
#[binrw::parser(reader)]
pub(crate) fn rest() -> BinResult<Vec<u8>> {
    Ok(tail(reader, binrw::Endian::Little, ())?.unwrap_or_default())
}

/// The parser of an integer inside a comment (tag or size of a message): a word
/// that must be a decimal i32.
#[binrw::parser(reader)]
pub(crate) fn comment_int() -> BinResult<i32> {
    let (pos, tok) = read_word(reader)?;
    parse_int(&tok).map_err(|p| binrw::Error::AssertFail {
        pos,
        message: format!("{:?}: {p}", shown(&tok)),
    })
}

/// Writes an integer in canonical form (`i32` decimal, no sign for positives).
#[binrw::writer(writer)]
pub(crate) fn write_first_int(v: &i32) -> BinResult<()> {
    writer.write_all(v.to_string().as_bytes())?;
    Ok(())
}

/// Writes a separating space and an integer.
#[binrw::writer(writer)]
pub(crate) fn write_int(v: &i32) -> BinResult<()> {
    writer.write_all(format!(" {v}").as_bytes())?;
    Ok(())
}

/// Writes a separating space and a number in its shortest decimal form that reads
/// back to the same double (no exponent; an integral value has no point).
#[binrw::writer(writer)]
pub(crate) fn write_number(v: &f64) -> BinResult<()> {
    writer.write_all(format!(" {v}").as_bytes())?;
    Ok(())
}

/// Writes bytes as they are.
#[allow(clippy::ptr_arg)] // binrw passes the field as it is typed
#[binrw::writer(writer)]
pub(crate) fn write_bytes(v: &Vec<u8>) -> BinResult<()> {
    writer.write_all(v)?;
    Ok(())
}

/// Writes a separating space and bytes (nothing at all for an empty value).
#[allow(clippy::ptr_arg)] // binrw passes the field as it is typed
#[binrw::writer(writer)]
pub(crate) fn write_spaced(v: &Vec<u8>) -> BinResult<()> {
    if !v.is_empty() {
        writer.write_all(b" ")?;
        writer.write_all(v)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers() {
        assert_eq!(parse_int(b"0"), Ok(0));
        assert_eq!(parse_int(b"-13"), Ok(-13));
        assert_eq!(parse_int(b"+7"), Ok(7));
        assert_eq!(parse_int(b"007"), Ok(7));
        assert_eq!(parse_int(b"2147483647"), Ok(i32::MAX));
        assert_eq!(parse_int(b"-2147483648"), Ok(i32::MIN));
        assert_eq!(parse_int(b"2147483648"), Err(TokenProblem::OutOfRange));
        assert_eq!(
            parse_int(b"99999999999999999999999999"),
            Err(TokenProblem::OutOfRange)
        );
        for bad in [&b"-"[..], b"1.5", b"x", b"1e3", b"\xff", b"--1"] {
            assert_eq!(parse_int(bad), Err(TokenProblem::NotAnInteger), "{bad:?}");
        }
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_number(b"2025436865"), Ok(2025436865.0));
        assert_eq!(parse_number(b"4294967295"), Ok(4294967295.0));
        assert_eq!(parse_number(b"1.5"), Ok(1.5));
        assert_eq!(parse_number(b".5"), Ok(0.5));
        assert_eq!(parse_number(b"1e6"), Ok(1e6));
        assert_eq!(parse_number(b"-3"), Ok(-3.0));
        assert_eq!(
            parse_number(b"18446744073709551616"),
            Ok(18446744073709551616.0)
        );
        for bad in [
            &b"inf"[..],
            b"nan",
            b"NaN",
            b"e",
            b"1e999",
            b"0x10",
            b"1,5",
            b".",
        ] {
            assert_eq!(parse_number(bad), Err(TokenProblem::NotANumber), "{bad:?}");
        }
        let huge = vec![b'9'; 400];
        assert_eq!(parse_number(&huge), Err(TokenProblem::NotANumber));
    }

    #[test]
    fn canonical_numbers_read_back() {
        for v in [
            0.0f64,
            1.0,
            2570401.0,
            4294967295.0,
            0.5,
            1e21,
            123.456,
            -0.0,
            1e-7,
        ] {
            let s = format!("{v}");
            assert!(!s.contains('e'), "{s}");
            assert_eq!(parse_number(s.as_bytes()).unwrap().to_bits(), v.to_bits());
        }
        assert_eq!(format!("{}", 2570401.0f64), "2570401");
    }
}
