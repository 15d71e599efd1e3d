//! The ALOG rules of `mpelog check` (spec/conformance.md §6): for every rule a file
//! written here to break it, checked through `check_format`/`check_bytes`, with
//! the rule ID and the exact byte offset; the unbroken file has no finding; the
//! pairing findings agree with what the converter leaves unpaired; every corpus
//! ALOG file (`MPELOG_CORPUS`) has no error.

use mpelog_conformance::check::alog::{RULES, Z_LIMIT};
use mpelog_conformance::{
    check_bytes, check_format, check_path, Finding, Format, Options, Report, Severity,
};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A clean file: 2 processes, states Work (1/2) and Comm (3/4), a point event
/// (9) and one message from process 1 to 0.
const BASE: &str = "\
-1 0 0 0 0 0 Me
-2 0 0 8 0 0
-3 0 0 2 0 0
-4 0 0 1 0 0
-5 0 0 7 0 0
-6 0 0 0 0 0
-7 0 0 0 0 100
-8 0 0 1 0 0
-11 0 0 0 0 0
-9 0 0 9 0 0 tick
-13 0 1 2 0 0 red:gray Work
-13 0 3 4 0 0 : Comm
1 0 0 0 0 0 
3 1 0 0 0 10 
-101 1 0 0 0 20 5 16
9 0 0 0 0 30 
-102 0 0 1 0 40 5 16
4 1 0 0 0 50 
2 0 0 0 0 60 
9 1 0 0 0 100 
";

/// The header lines of [`BASE`] (records before the first event).
const HEADER_LINES: usize = 12;

fn opts() -> Options {
    Options::default().limit(1000)
}

/// Checks `text` as ALOG (whatever detection says).
fn check(text: &[u8]) -> Report {
    let r = check_format(Format::Alog, text, &opts());
    assert_eq!(r.format, Some(Format::Alog));
    r
}

/// Byte offset of the line `line` (without its LF), which must occur exactly once
/// in `text` as a whole line.
fn at(text: &str, line: &str) -> u64 {
    let starts: Vec<usize> = text
        .match_indices(line)
        .map(|(i, _)| i)
        .filter(|&i| {
            (i == 0 || text.as_bytes()[i - 1] == b'\n')
                && matches!(text.as_bytes().get(i + line.len()), None | Some(b'\n'))
        })
        .collect();
    assert_eq!(starts.len(), 1, "{line:?} must be one line of the text");
    starts[0] as u64
}

/// The 1-based line number of byte `offset` of `text`.
fn line_no(text: &str, offset: u64) -> usize {
    text.as_bytes()[..offset as usize]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// [`BASE`] with `extra` header lines after the header and `events` added, with
/// `-2` counting the events.
fn with(extra_header: &[&str], events: &[&str]) -> String {
    let mut lines: Vec<String> = BASE.lines().map(String::from).collect();
    let mut n = 8 + events.len();
    for e in events {
        let t: i64 = e.split_whitespace().next().unwrap().parse().unwrap();
        if (-100..=-1).contains(&t) {
            n -= 1;
        }
    }
    lines[1] = format!("-2 0 0 {n} 0 0");
    for (k, h) in extra_header.iter().enumerate() {
        lines.insert(HEADER_LINES + k, h.to_string());
    }
    // Events up to t = 100 go before the last event (t = 100), later ones
    // after it: the file stays in time order.
    let last = lines.pop().unwrap();
    let time = |e: &str| -> f64 { e.split_whitespace().nth(5).unwrap().parse().unwrap() };
    lines.extend(
        events
            .iter()
            .filter(|e| time(e) <= 100.0)
            .map(|e| e.to_string()),
    );
    lines.push(last);
    lines.extend(
        events
            .iter()
            .filter(|e| time(e) > 100.0)
            .map(|e| e.to_string()),
    );
    lines.join("\n") + "\n"
}

/// Asserts that the findings are exactly `rules`, in this order, and returns
/// them.
fn exactly(r: &Report, rules: &[&str]) -> Vec<Finding> {
    assert_eq!(r.rule_ids(), rules, "{:#?}", r.findings);
    r.findings.clone()
}

/// Asserts that `f` is `rule` at `offset` with the right severity, and places
/// it on its line.
fn is(f: &Finding, rule: &str, offset: u64, text: &str) {
    assert_eq!((f.rule, f.offset), (rule, offset), "{f:#?}");
    let sev = RULES.iter().find(|r| r.id == rule).unwrap().severity;
    assert_eq!(f.severity, sev);
    assert!(f.message.len() > 40, "{f:?}");
    if offset > 0 || f.place.is_some() {
        let line = line_no(text, offset);
        assert!(
            f.place
                .as_deref()
                .is_some_and(|p| p.starts_with(&format!("line {line}"))),
            "{f:?} is on line {line}"
        );
    }
}

/// The rule IDs the tests below break; compared with the table.
const TESTED: &[&str] = &[
    "AL-REJ-001",
    "AL-REJ-002",
    "AL-REJ-003",
    "AL-REJ-004",
    "AL-REJ-005",
    "AL-Z-001",
    "AL-Z-002",
    "AL-LINE-001",
    "AL-HDR-001",
    "AL-HDR-002",
    "AL-HDR-003",
    "AL-HDR-004",
    "AL-HDR-005",
    "AL-HDR-006",
    "AL-TIME-001",
    "AL-TIME-002",
    "AL-TIME-003",
    "AL-DEF-001",
    "AL-DEF-002",
    "AL-DEF-003",
    "AL-DEF-004",
    "AL-MSG-001",
    "AL-PAIR-001",
    "AL-PAIR-002",
    "AL-PAIR-003",
    "AL-PAIR-004",
    "AL-CONV-001",
];

#[test]
fn every_rule_is_tested() {
    // (The table's shape, and its agreement with the spec: rules_spec.rs.)
    let ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
    assert_eq!(ids, TESTED);
}

#[test]
fn the_clean_file_has_no_finding() {
    assert_eq!(check(BASE.as_bytes()).findings, vec![]);
    let r = check_bytes(BASE.as_bytes(), &Options::default());
    assert_eq!(r.format, Some(Format::Alog));
    assert_eq!(r.findings, vec![]);
    // CRLF line ends and any separators read the same.
    let crlf = BASE
        .replace('\n', "\r\n")
        .replace(" 0 0 0 ", "\t0  0\x0b0 ");
    assert_eq!(check(crlf.as_bytes()).findings, vec![]);
    // A file without a final LF.
    assert_eq!(check(BASE.trim_end().as_bytes()).findings, vec![]);
}

// ---------------------------------------------------------------------------
// Rows of spec/alog.md §3.

#[test]
fn rej_001_a_line_with_five_fields() {
    let text = BASE.replace("-3 0 0 2 0 0\n", "-3 0 0 2 0\n");
    let f = exactly(&check(text.as_bytes()), &["AL-REJ-001"]);
    // The column after the last byte: the LF.
    let end = at(&text, "-3 0 0 2 0") + 10;
    is(&f[0], "AL-REJ-001", end, &text);
    assert_eq!(f[0].place.as_deref(), Some("line 3, column 11"));
    // CRLF: the line ends before its CR; trailing separators belong to the line.
    let text = "-3 0 0 2 0 0\r\n1 2 3\r\n";
    let f = exactly(&check(text.as_bytes()), &["AL-REJ-001"]);
    assert_eq!(
        (f[0].offset, f[0].place.as_deref()),
        (19, Some("line 2, column 6"))
    );
    let text = "1 2 3 4 5   \n";
    let f = exactly(&check(text.as_bytes()), &["AL-REJ-001"]);
    assert_eq!(
        (f[0].offset, f[0].place.as_deref()),
        (12, Some("line 1, column 13"))
    );
}

#[test]
fn rej_002_a_field_that_is_not_an_integer() {
    let text = BASE.replace("3 1 0 0 0 10 \n", "3 1 x 0 0 10 \n");
    let f = exactly(&check(text.as_bytes()), &["AL-REJ-002"]);
    is(&f[0], "AL-REJ-002", at(&text, "3 1 x 0 0 10 ") + 4, &text);
    assert_eq!(f[0].place.as_deref(), Some("line 14, column 5"));
    // Skipped lines count: a `#` line before it.
    let text = "# note\n\n1  0 0 0 1.5 0\n";
    let f = exactly(&check(text.as_bytes()), &["AL-REJ-002"]);
    assert_eq!(
        (f[0].offset, f[0].place.as_deref()),
        (8 + 9, Some("line 3, column 10"))
    );
}

#[test]
fn rej_003_an_integer_outside_i32() {
    let text = BASE.replace("-4 0 0 1 0 0\n", "-4 0 0 2147483648 0 0\n");
    let f = exactly(&check(text.as_bytes()), &["AL-REJ-003"]);
    is(
        &f[0],
        "AL-REJ-003",
        at(&text, "-4 0 0 2147483648 0 0") + 7,
        &text,
    );
    let f = exactly(&check(b"-2147483649 0 0 0 0 0\n"), &["AL-REJ-003"]);
    assert_eq!(f[0].offset, 0);
}

#[test]
fn rej_004_a_timestamp_that_is_not_a_finite_number() {
    for bad in ["1e999", "nan", "inf", "0x10"] {
        let line = format!("9 0 0 0 0 {bad} ");
        let text = BASE.replace("9 0 0 0 0 30 ", &line);
        let f = exactly(&check(text.as_bytes()), &["AL-REJ-004"]);
        is(&f[0], "AL-REJ-004", at(&text, &line) + 10, &text);
    }
}

#[test]
fn rej_005_no_record() {
    for text in [&b""[..], b"\n", b"# only a comment\n\n", b"  \r\n"] {
        let f = exactly(&check(text), &["AL-REJ-005"]);
        assert_eq!((f[0].offset, f[0].place.as_deref()), (0, None));
        assert_eq!(f[0].severity, Severity::Error);
    }
}

// ---------------------------------------------------------------------------
// Unix compress (.Z) files.

/// Packs LZW codes as `compress` does without block mode (flags 0x10: 16-bit
/// codes at most), widening after each group of eight codes as the reader
/// expects. Returns the file and the byte offset of each code.
fn z_pack(codes: impl IntoIterator<Item = u32>) -> (Vec<u8>, Vec<u64>) {
    let mut bits: Vec<u8> = Vec::new();
    let mut offsets = Vec::new();
    let (mut pos, mut group_start) = (0u64, 0u64);
    let (mut n_bits, mut max_code, mut free) = (9u32, 511u32, 256u32);
    for (k, code) in codes.into_iter().enumerate() {
        if free > max_code && n_bits < 16 {
            let g = u64::from(n_bits) * 8;
            pos = group_start + (pos - group_start).div_ceil(g) * g;
            group_start = pos;
            n_bits += 1;
            max_code = if n_bits == 16 {
                1 << 16
            } else {
                (1 << n_bits) - 1
            };
        }
        offsets.push(3 + pos / 8);
        for b in 0..n_bits {
            let p = pos + u64::from(b);
            let byte = (p / 8) as usize;
            if bits.len() <= byte {
                bits.resize(byte + 1, 0);
            }
            if code >> b & 1 == 1 {
                bits[byte] |= 1 << (p % 8);
            }
        }
        pos += u64::from(n_bits);
        if k > 0 && free < 1 << 16 {
            free += 1;
        }
    }
    bits.resize(pos.div_ceil(8) as usize, 0);
    let mut file = vec![0x1f, 0x9d, 0x10];
    file.extend(bits);
    (file, offsets)
}

/// `text` as a `.Z` file of literal codes.
fn z_of(text: &[u8]) -> Vec<u8> {
    z_pack(text.iter().map(|&b| u32::from(b))).0
}

#[test]
fn z_files_are_unpacked_first() {
    let z = z_of(BASE.as_bytes());
    assert_eq!(
        alog_format::z::decompress(&z, 1 << 20).unwrap(),
        BASE.as_bytes()
    );
    let r = check_bytes(&z, &Options::default());
    assert_eq!(r.format, Some(Format::Alog));
    assert_eq!(r.findings, vec![]);
    // Offsets of the text rules are in the unpacked text.
    let text = BASE.replace("9 0 0 0 0 30 ", "9 0 0 0 0 3x0 ");
    let r = check_bytes(&z_of(text.as_bytes()), &opts());
    let f = exactly(&r, &["AL-REJ-004"]);
    is(&f[0], "AL-REJ-004", at(&text, "9 0 0 0 0 3x0 ") + 10, &text);
}

#[test]
fn z_001_a_stream_that_does_not_unpack() {
    // The magic alone: no flags byte (reported where it should be).
    let f = exactly(&check_bytes(b"\x1f\x9d", &opts()), &["AL-Z-001"]);
    assert_eq!((f[0].offset, f[0].severity), (2, Severity::Error));
    // A code width of 8.
    let f = exactly(
        &check_bytes(b"\x1f\x9d\x88\x00\x00", &opts()),
        &["AL-Z-001"],
    );
    assert_eq!(f[0].offset, 2);
    // A code beyond the table, after two good ones: at its byte.
    let (mut z, offsets) = z_pack([b'1' as u32, b' ' as u32, 300]);
    let f = exactly(&check_bytes(&z, &opts()), &["AL-Z-001"]);
    assert_eq!(f[0].offset, offsets[2]);
    assert!(f[0].message.contains("code 300"), "{}", f[0].message);
    // The first code must be a literal.
    z.truncate(3);
    z.extend([0xff, 0x01]);
    let f = exactly(&check_bytes(&z, &opts()), &["AL-Z-001"]);
    assert_eq!(f[0].offset, 3);
}

#[test]
fn z_002_a_stream_that_unpacks_beyond_the_limit() {
    // A run of 'a': code k after the first adds the entry it names (the
    // KwKwK case), so the output grows 1, 2, 3, … bytes per code.
    let n = 12_000u32;
    let (z, offsets) = z_pack(std::iter::once(b'a' as u32).chain(256..256 + n - 1));
    assert!(z.len() < 30_000);
    // The first code whose output passes the limit: (j + 1)(j + 2) / 2 > limit.
    let j = (0..n as u64)
        .find(|j| (j + 1) * (j + 2) / 2 > Z_LIMIT as u64)
        .unwrap() as usize;
    let f = exactly(&check_bytes(&z, &opts()), &["AL-Z-002"]);
    assert_eq!((f[0].offset, f[0].severity), (offsets[j], Severity::Error));
    assert!(f[0].message.contains("uncompress"), "{}", f[0].message);
    // Under the limit it unpacks (and is no ALOG: a line of 'a's).
    let (small, _) = z_pack(std::iter::once(b'a' as u32).chain(256..256 + 99));
    assert_eq!(
        exactly(
            &check_format(Format::Alog, &small, &opts()),
            &["AL-REJ-002"]
        )[0]
        .offset,
        0
    );
}

// ---------------------------------------------------------------------------
// Beyond parsing: warnings.

#[test]
fn line_001_blank_and_comment_lines() {
    let text = BASE.replace("-4 0 0 1 0 0\n", "-4 0 0 1 0 0\n\n# a note\n");
    let f = exactly(&check(text.as_bytes()), &["AL-LINE-001", "AL-LINE-001"]);
    let blank = at(&text, "-4 0 0 1 0 0") + 13;
    is(&f[0], "AL-LINE-001", blank, &text);
    is(&f[1], "AL-LINE-001", at(&text, "# a note"), &text);
    assert!(check(text.as_bytes()).passes());
}

#[test]
fn hdr_001_the_number_of_processes() {
    let text = BASE.replace("-3 0 0 2 0 0\n", "");
    let f = exactly(&check(text.as_bytes()), &["AL-HDR-001"]);
    assert_eq!((f[0].offset, f[0].place.as_deref()), (0, None));
    let text = BASE.replace("-3 0 0 2 0 0\n", "-3 0 0 0 0 0\n");
    let f = exactly(&check(text.as_bytes()), &["AL-HDR-001"]);
    is(&f[0], "AL-HDR-001", at(&text, "-3 0 0 0 0 0"), &text);
}

#[test]
fn hdr_002_start_and_end_of_the_run() {
    let text = BASE.replace("-7 0 0 0 0 100\n", "");
    let f = exactly(&check(text.as_bytes()), &["AL-HDR-002"]);
    assert_eq!((f[0].offset, f[0].place.as_deref()), (0, None));
    assert!(f[0].message.contains("-7 record"), "{}", f[0].message);
    // An end not after the start; events are then not compared with the range.
    let text = BASE.replace("-6 0 0 0 0 0\n", "-6 0 0 0 0 100\n");
    let f = exactly(&check(text.as_bytes()), &["AL-HDR-002"]);
    is(&f[0], "AL-HDR-002", at(&text, "-7 0 0 0 0 100"), &text);
    let text = BASE.replace("-7 0 0 0 0 100\n", "-7 0 0 0 0 0\n");
    let f = exactly(&check(text.as_bytes()), &["AL-HDR-002"]);
    is(&f[0], "AL-HDR-002", at(&text, "-7 0 0 0 0 0"), &text);
}

#[test]
fn hdr_003_the_number_of_events() {
    let text = BASE.replace("-2 0 0 8 0 0\n", "-2 0 0 9 0 0\n");
    let f = exactly(&check(text.as_bytes()), &["AL-HDR-003"]);
    is(&f[0], "AL-HDR-003", at(&text, "-2 0 0 9 0 0"), &text);
    assert!(f[0].message.contains("set it to 8"), "{}", f[0].message);
}

#[test]
fn hdr_004_a_process_outside_the_rows() {
    let text = with(
        &[],
        &["9 2 0 0 0 100 ", "9 2 0 0 0 100 x", "9 -1 0 0 0 100 "],
    );
    let f = exactly(&check(text.as_bytes()), &["AL-HDR-004", "AL-HDR-004"]);
    // Once per process, at its first event.
    is(&f[0], "AL-HDR-004", at(&text, "9 2 0 0 0 100 "), &text);
    is(&f[1], "AL-HDR-004", at(&text, "9 -1 0 0 0 100 "), &text);
}

#[test]
fn hdr_005_an_event_outside_the_declared_range() {
    let text = with(&[], &["9 0 0 0 0 150 "]);
    let f = exactly(&check(text.as_bytes()), &["AL-HDR-005"]);
    is(&f[0], "AL-HDR-005", at(&text, "9 0 0 0 0 150 "), &text);
    let text = BASE.replace("-6 0 0 0 0 0\n", "-6 0 0 0 0 5\n");
    let f = exactly(&check(text.as_bytes()), &["AL-HDR-005"]);
    is(&f[0], "AL-HDR-005", at(&text, "1 0 0 0 0 0 "), &text);
}

#[test]
fn hdr_006_a_header_record_after_the_events() {
    let text = with(&[], &["-9 0 0 4 0 0 late"]);
    let f = exactly(&check(text.as_bytes()), &["AL-HDR-006"]);
    is(&f[0], "AL-HDR-006", at(&text, "-9 0 0 4 0 0 late"), &text);
}

#[test]
fn time_001_events_out_of_time_order() {
    let text = BASE.replace("9 0 0 0 0 30 ", "9 0 0 0 0 15 ");
    let f = exactly(&check(text.as_bytes()), &["AL-TIME-001"]);
    is(&f[0], "AL-TIME-001", at(&text, "9 0 0 0 0 15 "), &text);
    // Header records in between do not count; equal times are in order.
    let text = with(&["-15 0 0 0 0 0 p0"], &["9 0 0 0 0 100 "]);
    assert_eq!(check(text.as_bytes()).findings, vec![]);
}

#[test]
fn time_002_a_cycle_without_a_roll_over_point() {
    let text = with(&[], &["9 0 0 0 1 100 "]);
    let f = exactly(&check(text.as_bytes()), &["AL-TIME-002"]);
    is(&f[0], "AL-TIME-002", at(&text, "9 0 0 0 1 100 "), &text);
    // With a roll-over point the cycle counts (and the event is then late).
    let text = with(&[], &["9 0 0 0 1 0 "]).replace("-11 0 0 0 0 0\n", "-11 0 0 0 0 100\n");
    assert_eq!(check(text.as_bytes()).findings, vec![]);
}

#[test]
fn time_003_a_time_that_is_not_finite() {
    let text = with(&[], &["9 0 0 0 2 0 "]).replace("-11 0 0 0 0 0\n", "-11 0 0 0 0 1e308\n");
    let f = exactly(&check(text.as_bytes()), &["AL-TIME-003"]);
    is(&f[0], "AL-TIME-003", at(&text, "9 0 0 0 2 0 "), &text);
    let f = alog_format::AlogFile::parse(text.as_bytes()).unwrap();
    assert_eq!(
        slog2_format::convert::alog::drawables(&f)
            .unmatched
            .bad_times,
        1
    );
}

#[test]
fn def_001_a_state_definition_that_defines_nothing() {
    let text = with(&["-13 0 5 6 0 0 blue", "-13 0 7 8 0 0 "], &[]);
    let f = exactly(&check(text.as_bytes()), &["AL-DEF-001", "AL-DEF-001"]);
    is(&f[0], "AL-DEF-001", at(&text, "-13 0 5 6 0 0 blue"), &text);
    is(&f[1], "AL-DEF-001", at(&text, "-13 0 7 8 0 0 "), &text);
}

#[test]
fn def_002_a_state_name_defined_again_with_other_events() {
    // The same definition again (MPE 1.0 writes one per process) is fine.
    let text = with(&["-13 1 1 2 0 0 red:gray Work"], &[]);
    assert_eq!(check(text.as_bytes()).findings, vec![]);
    let text = with(&["-13 1 5 6 0 0 blue Work"], &[]);
    let f = exactly(&check(text.as_bytes()), &["AL-DEF-002"]);
    is(
        &f[0],
        "AL-DEF-002",
        at(&text, "-13 1 5 6 0 0 blue Work"),
        &text,
    );
}

#[test]
fn def_003_an_event_type_of_two_states() {
    // Loop starts and ends with event 9: 9 is always a start, so both
    // instances stay open.
    let text = with(&["-13 0 9 9 0 0 blue Loop"], &[]);
    let f = exactly(
        &check(text.as_bytes()),
        &["AL-DEF-003", "AL-PAIR-002", "AL-PAIR-002"],
    );
    is(
        &f[0],
        "AL-DEF-003",
        at(&text, "-13 0 9 9 0 0 blue Loop"),
        &text,
    );
    is(&f[1], "AL-PAIR-002", at(&text, "9 0 0 0 0 30 "), &text);
    is(&f[2], "AL-PAIR-002", at(&text, "9 1 0 0 0 100 "), &text);
    // Other ends with 2, which ends Work: the last definition wins, so the end
    // of Work closes nothing and Work stays open.
    let text = with(&["-13 0 9 2 0 0 blue Other"], &[]);
    let f = exactly(
        &check(text.as_bytes()),
        &["AL-DEF-003", "AL-PAIR-002", "AL-PAIR-002"],
    );
    is(
        &f[0],
        "AL-DEF-003",
        at(&text, "-13 0 9 2 0 0 blue Other"),
        &text,
    );
    is(&f[1], "AL-PAIR-002", at(&text, "1 0 0 0 0 0 "), &text);
    is(&f[2], "AL-PAIR-002", at(&text, "9 1 0 0 0 100 "), &text);
}

#[test]
fn def_004_definitions_never_used() {
    let text = with(
        &["-13 0 5 6 0 0 green Idle", "-13 0 7 8 0 0 green Wait"],
        &[],
    );
    let f = exactly(&check(text.as_bytes()), &["AL-DEF-004"]);
    is(
        &f[0],
        "AL-DEF-004",
        at(&text, "-13 0 5 6 0 0 green Idle"),
        &text,
    );
    assert!(f[0].message.starts_with("2 of the 4"), "{}", f[0].message);
}

#[test]
fn msg_001_a_message_record_without_tag_and_size() {
    let text = with(&[], &["-101 0 0 1 0 70", "-102 1 0 0 0 80 sync"]);
    let f = exactly(&check(text.as_bytes()), &["AL-MSG-001", "AL-MSG-001"]);
    is(&f[0], "AL-MSG-001", at(&text, "-101 0 0 1 0 70"), &text);
    is(
        &f[1],
        "AL-MSG-001",
        at(&text, "-102 1 0 0 0 80 sync"),
        &text,
    );
}

#[test]
fn pair_001_a_state_end_without_start() {
    let text = with(&[], &["2 1 0 0 0 70 "]);
    let f = exactly(&check(text.as_bytes()), &["AL-PAIR-001"]);
    is(&f[0], "AL-PAIR-001", at(&text, "2 1 0 0 0 70 "), &text);
}

#[test]
fn pair_002_a_state_start_without_end() {
    let text = with(&[], &["1 1 0 0 0 70 "]);
    let f = exactly(&check(text.as_bytes()), &["AL-PAIR-002"]);
    is(&f[0], "AL-PAIR-002", at(&text, "1 1 0 0 0 70 "), &text);
}

#[test]
fn pair_003_a_send_without_receive() {
    // Tag 7 has no receive; the receive of tag 5 is matched by the first send.
    let text = with(&[], &["-101 0 0 1 0 70 7 8", "-101 1 0 0 0 80 5 4"]);
    let f = exactly(&check(text.as_bytes()), &["AL-PAIR-003", "AL-PAIR-003"]);
    is(
        &f[0],
        "AL-PAIR-003",
        at(&text, "-101 0 0 1 0 70 7 8"),
        &text,
    );
    is(
        &f[1],
        "AL-PAIR-003",
        at(&text, "-101 1 0 0 0 80 5 4"),
        &text,
    );
}

#[test]
fn pair_004_a_receive_without_send() {
    let text = with(&[], &["-102 1 0 0 0 70 5 16"]);
    let f = exactly(&check(text.as_bytes()), &["AL-PAIR-004"]);
    is(
        &f[0],
        "AL-PAIR-004",
        at(&text, "-102 1 0 0 0 70 5 16"),
        &text,
    );
}

#[test]
fn conv_001_nothing_to_draw() {
    let text = "-3 0 0 1 0 0\n-6 0 0 0 0 0\n-7 0 0 0 0 10\n";
    let f = exactly(&check(text.as_bytes()), &["AL-CONV-001"]);
    assert_eq!((f[0].offset, f[0].place.as_deref()), (0, None));
    let text = "-3 0 0 1 0 0\n-6 0 0 0 0 0\n-7 0 0 0 0 10\n-13 0 1 2 0 0 red A\n2 0 0 0 0 5 \n";
    let f = exactly(
        &check(text.as_bytes()),
        &["AL-PAIR-001", "AL-DEF-004", "AL-CONV-001"],
    );
    is(&f[0], "AL-PAIR-001", at(text, "2 0 0 0 0 5 "), text);
    assert!(check(text.as_bytes()).passes());
}

// ---------------------------------------------------------------------------
// The pairing findings are what the converter leaves unpaired.

fn count(r: &Report, rule: &str) -> u64 {
    r.findings.iter().filter(|f| f.rule == rule).count() as u64
}

fn same_as_converter(text: &[u8], what: &str) {
    let f = alog_format::AlogFile::parse(text).unwrap();
    let u = slog2_format::convert::alog::drawables(&f).unmatched;
    let r = check_format(
        Format::Alog,
        text,
        &Options::default().limit(usize::MAX).trace(None),
    );
    assert_eq!(count(&r, "AL-PAIR-001"), u.state_finals, "{what}");
    assert_eq!(count(&r, "AL-PAIR-002"), u.states_closed_at_end, "{what}");
    assert_eq!(count(&r, "AL-PAIR-003"), u.sends, "{what}");
    assert_eq!(count(&r, "AL-PAIR-004"), u.recvs, "{what}");
    assert_eq!(count(&r, "AL-TIME-003"), u.bad_times, "{what}");
    // Ignored definitions: those that define nothing (AL-DEF-001) and repeats
    // of a name, with other events (AL-DEF-002) or the same (no finding).
    let mut first = std::collections::HashMap::new();
    let mut same_repeats = 0;
    for d in f.records.iter().filter_map(|r| r.state_def()) {
        match first.get(&d.text.name) {
            Some(&pair) => same_repeats += u64::from(pair == (d.start, d.end)),
            None => {
                first.insert(d.text.name.clone(), (d.start, d.end));
            }
        }
    }
    assert_eq!(
        count(&r, "AL-DEF-001") + count(&r, "AL-DEF-002") + same_repeats,
        u.conflicting_definitions,
        "{what}"
    );
}

#[test]
fn pairing_agrees_with_the_converter() {
    // upshot's slots: X in slot 0, A1 in slot 1; the end of X empties slot 0,
    // A2 fills it; the next end of A closes A1; one end of A too many.
    same_as_converter(
        b"-13 0 1 2 0 0 red A\n-13 0 3 4 0 0 blue X\n3 0 0 0 0 1\n1 0 0 0 0 2\n4 0 0 0 0 3\n1 0 0 0 0 4\n2 0 0 0 0 5\n2 0 0 0 0 6\n2 0 0 0 0 7\n",
        "slots",
    );
    // Messages in FIFO order, a receive before its send (in time), unsorted.
    same_as_converter(
        b"-102 1 0 0 0 5 7 4\n-101 0 0 1 0 2 7 8\n-101 0 0 1 0 6 7 9\n-101 0 0 1 0 7 8 1\n-102 0 0 1 0 1 3 3\n",
        "messages",
    );
    same_as_converter(
        with(
            &[
                "-13 0 5 6 0 0 x",
                "-13 0 5 6 0 0 blue Work",
                "-13 1 1 2 0 0 red Work",
            ],
            &["2 1 0 0 0 70 ", "1 1 0 0 0 70 ", "-102 1 0 0 0 70 5 16"],
        )
        .as_bytes(),
        "mixed",
    );
    for (name, text) in corpus_texts() {
        same_as_converter(&text, &name);
    }
}

// ---------------------------------------------------------------------------
// The corpus.

/// The ALOG files of the corpus (spec/alog.md §9).
const CORPUS: &[&str] = &[
    "cpilog.alog",
    "srtest.alog",
    "cpilog.log",
    "monte.log",
    "gmm.log",
    "fpilog_profile.log",
    "systest_profile.log",
    "sam_hyp.16.log",
    "gmmlog_profile.log.Z",
];

/// The corpus's ALOG directory.
fn corpus_dir() -> Option<PathBuf> {
    mpelog_conformance::corpus::root().map(|r| r.join("mpich1/alog"))
}

/// The corpus files as text (`.Z` unpacked); none without `MPELOG_CORPUS`.
fn corpus_texts() -> Vec<(String, Vec<u8>)> {
    let Some(dir) = corpus_dir() else {
        return Vec::new();
    };
    CORPUS
        .iter()
        .map(|name| {
            let p = dir.join(name);
            let b = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let b = if alog_format::z::is_compress(&b) {
                alog_format::z::decompress(&b, Z_LIMIT).unwrap()
            } else {
                b
            };
            (name.to_string(), b)
        })
        .collect()
}

/// The warnings each corpus file gets: rule → count.
const CORPUS_WARNINGS: &[(&str, &[(&str, usize)])] = &[
    ("cpilog.alog", &[]),
    ("srtest.alog", &[]),
    ("cpilog.log", &[]),
    ("monte.log", &[]),
    ("gmm.log", &[]),
    ("fpilog_profile.log", &[("AL-DEF-004", 1)]),
    ("systest_profile.log", &[("AL-DEF-004", 1)]),
    ("sam_hyp.16.log", &[("AL-DEF-004", 1)]),
    ("gmmlog_profile.log.Z", &[("AL-DEF-004", 1)]),
];

#[test]
fn corpus_files_have_no_error() {
    let Some(dir) = corpus_dir() else {
        return;
    };
    for name in CORPUS {
        let p = dir.join(name);
        assert!(p.is_file(), "{} is missing", p.display());
        let r = check_path(&p, &opts()).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert_eq!(r.format, Some(Format::Alog), "{name}");
        println!("{name}: {} errors, {} warnings", r.errors(), r.warnings());
        for f in &r.findings {
            println!(
                "  {} {} byte {} {}: {}",
                f.rule,
                f.severity,
                f.offset,
                f.place.as_deref().unwrap_or("-"),
                f.message
            );
        }
        assert!(r.passes(), "{name}: {:#?}", r.findings);
        let mut got: BTreeMap<&str, usize> = BTreeMap::new();
        for f in &r.findings {
            *got.entry(f.rule).or_default() += 1;
        }
        let want: BTreeMap<&str, usize> = CORPUS_WARNINGS
            .iter()
            .find(|(n, _)| n == name)
            .unwrap()
            .1
            .iter()
            .copied()
            .collect();
        assert_eq!(got, want, "{name}");
    }
}
