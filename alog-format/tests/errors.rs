//! Bad input: typed errors with line and column, and no panic on any bytes.

use alog_format::{AlogFile, Error, Field, TokenProblem};
use proptest::prelude::*;

fn bad_field(input: &[u8]) -> (u64, u64, Field, TokenProblem, String) {
    match AlogFile::parse(input) {
        Err(Error::BadField {
            line,
            column,
            field,
            position,
            token,
            problem,
            ..
        }) => {
            assert_eq!(position, field.position());
            (line, column, field, problem, token)
        }
        other => panic!("expected a field error, got {other:?}"),
    }
}

#[test]
fn missing_fields_name_the_end_of_the_line() {
    let e = bad_field(b"-1 0 0 0 0 0 Me\n1 2 3\n");
    assert_eq!(e, (2, 6, Field::Data, TokenProblem::Missing, String::new()));
    let e = bad_field(b"1 2 3 4 5   \n");
    assert_eq!(e.0, 1);
    assert_eq!(
        (e.1, e.2, e.3),
        (13, Field::Timestamp, TokenProblem::Missing)
    );
    let e = AlogFile::parse(b"-3 0 0 1 0 0\n1 2 3\n").unwrap_err();
    assert_eq!(e.line(), Some(2));
    assert_eq!(e.column(), Some(6));
    assert_eq!(
        e.to_string(),
        "line 2, column 6: field 4 (data) missing: the line ends before it (a record has six numeric fields)"
    );
}

#[test]
fn line_numbers_count_skipped_and_crlf_lines() {
    let e = bad_field(b"-3 0 0 1 0 0\r\n\r\n# note\n1 0 0 x 0 5\n");
    assert_eq!(
        e,
        (4, 7, Field::Data, TokenProblem::NotAnInteger, "x".into())
    );
}

#[test]
fn numbers_out_of_range_and_malformed() {
    let e = bad_field(b"1 0 0 99999999999 0 0\n");
    assert_eq!(
        (e.0, e.1, e.2, e.3),
        (1, 7, Field::Data, TokenProblem::OutOfRange)
    );
    let e = bad_field(b"-2147483649 0 0 0 0 0\n");
    assert_eq!((e.1, e.2, e.3), (1, Field::Type, TokenProblem::OutOfRange));
    let e = bad_field(b"1 0 0 0 0 1e999\n");
    assert_eq!(
        (e.1, e.2, e.3),
        (11, Field::Timestamp, TokenProblem::NotANumber)
    );
    let e = bad_field(b"1 0 0 0 0 nan\n");
    assert_eq!(e.3, TokenProblem::NotANumber);
    let e = bad_field(b"1 0 0 0 1.5 0\n");
    assert_eq!((e.2, e.3), (Field::Cycle, TokenProblem::NotAnInteger));
    let huge = format!("1 0 0 0 0 {}\n", "9".repeat(100_000));
    let e = bad_field(huge.as_bytes());
    assert_eq!(
        (e.1, e.2, e.3),
        (11, Field::Timestamp, TokenProblem::NotANumber)
    );
    assert!(e.4.chars().count() <= 33, "the token is shortened");
}

#[test]
fn non_utf8_fields_fail_non_utf8_comments_are_kept() {
    let e = bad_field(b"1 \xff 0 0 0 0\n");
    assert_eq!(
        (e.1, e.2, e.3),
        (3, Field::Process, TokenProblem::NotAnInteger)
    );
    assert_eq!(e.4, "\u{fffd}");
    let f = AlogFile::parse(b"15 0 0 3 0 5502241 \xba\x07\n").unwrap();
    assert_eq!(f.records[0].comment_bytes(), b"\xba\x07");
    assert_eq!(f.to_bytes().unwrap(), b"15 0 0 3 0 5502241 \xba\x07\n");
}

#[test]
fn empty_inputs_are_errors() {
    for input in [&b""[..], b"\n", b"  \t\n\n", b"# comment only\n", b"\r\n"] {
        let e = AlogFile::parse(input).unwrap_err();
        assert!(matches!(e, Error::Empty { .. }), "{input:?}: {e}");
        assert_eq!(e.line(), None);
    }
}

#[test]
fn text_that_is_not_alog() {
    for input in [
        &b"CLOG-02.44\0\0\0"[..],
        b"\x00\x0aSLOG 2.0.6",
        b"hello world\n",
        b"1 2 3 4 5 6abc\n",
    ] {
        assert!(AlogFile::parse(input).is_err(), "{input:?}");
        assert!(!alog_format::looks_like(input), "{input:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Any bytes: a value or an error, never a panic; a parsed file's canonical
    /// bytes read back to the same records.
    #[test]
    fn any_bytes(data in prop::collection::vec(any::<u8>(), 0..400)) {
        check_bytes(&data);
    }

    /// Bytes close to ALOG: digits, signs, separators, line ends.
    #[test]
    fn alog_like_bytes(data in prop::collection::vec(
        prop::sample::select(b"0123456789-+. \t\r\n#e:xZ\x0b\xff".to_vec()), 0..400)) {
        check_bytes(&data);
    }

    /// A real-looking file with one byte changed or cut short.
    #[test]
    fn mutated_file(at in 0usize..200, byte in any::<u8>(), cut in any::<bool>()) {
        let mut data = b"-1 0 0 0 0 0 Me\n-2 0 0 3 0 0\n-3 0 0 2 0 0\n-13 0 1 2 0 0 red:gray A\n1 0 0 0 0 5 x\n-101 0 0 1 0 7 3 4\n-102 1 0 0 0 9 3 4\n2 0 0 0 0 12 \n".to_vec();
        let at = at % data.len();
        if cut { data.truncate(at) } else { data[at] = byte }
        check_bytes(&data);
    }
}

fn check_bytes(data: &[u8]) {
    let lines = data.split(|&b| b == b'\n').count() as u64;
    match AlogFile::parse(data) {
        Ok(f) => {
            let out = f.to_bytes().unwrap();
            let back = AlogFile::parse(&out).expect("canonical bytes parse");
            assert_eq!(back, f);
            assert_eq!(back.to_bytes().unwrap(), out);
            let _ = alog_format::dump::lines(&f);
            let _ = alog_format::dump::summary(&f).to_string();
        }
        Err(e) => {
            if let Some(l) = e.line() {
                assert!(l >= 1 && l <= lines, "line {l} of {lines}");
            }
            let _ = e.to_string();
        }
    }
}
