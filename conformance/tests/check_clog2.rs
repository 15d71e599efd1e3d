//! The CLOG2 rules of `mpelog check` (spec/clog2.md §10 and §12), one case per
//! rule: a file that breaks the rule (a generated trace with patched bytes, or a
//! small trace written record by record) must give that rule at the exact offset
//! the spec names, and no other error. Valid generated files give no finding at
//! all, and every corpus CLOG2 file (`MPELOG_CORPUS`) passes.

mod common;

use clog2_format::preamble::{Field, GIGA};
use clog2_format::record::{
    comm_etype, rectype, Body, ConstDef, EventDef, MsgEvt, Record, StateDef,
};
use clog2_format::{Clog2Reader, FixedBytes, Preamble, RawPreamble};
use common::{build, build_with, commevt, convert_refusal, info};
use mpelog_conformance::check::clog2::RULES;
use mpelog_conformance::report::Collector;
use mpelog_conformance::{
    check_bytes, check_format, check_path, Format, Options, Report, Severity,
};
use std::collections::BTreeSet;
use std::io::{Cursor, Read, Seek, SeekFrom};
use std::path::PathBuf;

// ---------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------

/// A generated 2-rank trace with 1 KiB blocks (about 12 blocks and a comm table).
fn synth() -> Vec<u8> {
    clog2_format::synth::generate_vec(
        &clog2_format::synth::Options::default()
            .ranks(2)
            .events(300)
            .seed(1)
            .block_size(1024),
    )
    .unwrap()
}

fn set_i32(b: &mut [u8], at: u64, v: i32) {
    let at = at as usize;
    b[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

/// The records of a file with their offsets, terminators included.
fn records(b: &[u8]) -> Vec<(Record, u64)> {
    let mut r = Clog2Reader::from_slice(b).unwrap();
    let mut v = Vec::new();
    while let Some(x) = r.next_record_at().unwrap() {
        v.push(x);
    }
    v
}

/// Offsets of the records that are not terminators, in file order.
fn offsets(b: &[u8]) -> Vec<u64> {
    records(b)
        .into_iter()
        .filter(|(r, _)| !r.is_terminator())
        .map(|(_, at)| at)
        .collect()
}

fn preamble(b: &[u8]) -> Preamble {
    Preamble::parse(b).unwrap()
}

/// The file with preamble token `i` replaced (the padding is re-zeroed).
fn with_token(b: &[u8], i: usize, text: &str) -> Vec<u8> {
    let mut raw = RawPreamble::parse(b).unwrap();
    raw.tokens[i] = text.as_bytes().to_vec();
    let raw = RawPreamble::from_tokens(raw.tokens).unwrap();
    let mut out = raw.to_bytes().unwrap().to_vec();
    out.extend_from_slice(&b[1024..]);
    out
}

/// Offset of preamble token `i`.
fn token_at(b: &[u8], i: usize) -> u64 {
    RawPreamble::parse(b).unwrap().token_offset(i)
}

fn token_count(b: &[u8]) -> usize {
    RawPreamble::parse(b).unwrap().tokens.len()
}

/// The comm table's offset.
fn fptr(b: &[u8]) -> u64 {
    preamble(b).info().commtable_fptr.unwrap()
}

fn msg(time: f64, rank: i32, etype: i32, partner: i32, tag: i32) -> Record {
    Record::new(
        time,
        rank,
        Body::Msg(MsgEvt {
            etype,
            icomm: 0,
            rank: partner,
            tag,
            size: 8,
            pad: FixedBytes::ZERO,
        }),
    )
}

fn statedef(start: i32, fin: i32, name: &str, format: &str) -> Record {
    Record::new(
        0.0,
        0,
        Body::StateDef(StateDef {
            state_id: start / 2,
            start_etype: start,
            final_etype: fin,
            pad: FixedBytes::ZERO,
            color: FixedBytes::from_str_truncated("red"),
            name: FixedBytes::from_str_truncated(name),
            format: FixedBytes::from_str_truncated(format),
        }),
    )
}

fn eventdef(etype: i32, name: &str, format: &str) -> Record {
    Record::new(
        0.0,
        0,
        Body::EventDef(EventDef {
            etype,
            pad: FixedBytes::ZERO,
            color: FixedBytes::from_str_truncated("blue"),
            name: FixedBytes::from_str_truncated(name),
            format: FixedBytes::from_str_truncated(format),
        }),
    )
}

/// Offset of the `i`-th record of `body` in a file made by [`build`].
fn body_at(b: &[u8], i: usize) -> u64 {
    offsets(b)[i + 2]
}

/// A file of 256-byte blocks whose block 1 holds 7 bare events (224 bytes), then
/// its ENDBLOCK at block offset 224 and 32 bytes of padding. Returns the file
/// and the ENDBLOCK's offset.
fn small_blocks() -> (Vec<u8>, u64) {
    let mut i = info(2);
    i.block_size = 256;
    let body: Vec<Record> = (0..40)
        .map(|k| Record::bare(f64::from(k), 0, -10))
        .collect();
    let b = build_with(i, &body);
    let ends: Vec<u64> = records(&b)
        .into_iter()
        .filter(|(r, _)| r.rectype() == rectype::ENDBLOCK)
        .map(|(_, at)| at)
        .collect();
    assert_eq!(ends[1], 1024 + 256 + 224);
    (b, ends[1])
}

fn check(b: &[u8]) -> Report {
    check_bytes(b, &Options::default())
}

// ---------------------------------------------------------------------------
// One case per rule
// ---------------------------------------------------------------------------

/// A file breaking a rule: its report, and the offset the rule must name.
type Case = fn() -> (Report, u64);

/// Every rule of [`RULES`] and the case that breaks it (some rules have
/// several cases).
const CASES: &[(&str, Case)] = &[
    ("C2-REJ-001", || {
        let b = synth();
        (check(&b[..500]), 500)
    }),
    ("C2-REJ-002", || {
        let b = with_token(&synth(), 0, "CLOG-02.42");
        let r = check(&b);
        assert!(r.findings[0].message.contains("CLOG-02.42"), "{r:?}");
        (r, 0)
    }),
    ("C2-REJ-003", || {
        // The token list ends after 10 tokens.
        let b = synth();
        let raw = RawPreamble::parse(&b).unwrap();
        let cut = RawPreamble::from_tokens(raw.tokens[..10].to_vec()).unwrap();
        let mut c = cut.to_bytes().unwrap().to_vec();
        c.extend_from_slice(&b[1024..]);
        (check(&c), token_at(&c, 10))
    }),
    ("C2-REJ-003", || {
        // The same, but the padding has no NUL before byte 1024: it is still
        // padding (spec/clog2.md §3.1 step 1), so the tokens are missing.
        let b = synth();
        let raw = RawPreamble::parse(&b).unwrap();
        let cut = RawPreamble::from_tokens(raw.tokens[..10].to_vec()).unwrap();
        let mut c = cut.to_bytes().unwrap().to_vec();
        let pad = token_at(&c, 10) as usize;
        c[pad..1024].fill(b'x');
        c.extend_from_slice(&b[1024..]);
        (check(&c), pad as u64)
    }),
    ("C2-REJ-004", || {
        let b = with_token(&synth(), 6, &format!("{:0>32}", 1024));
        (check(&b), token_at(&b, 6))
    }),
    ("C2-REJ-005", || {
        let b = with_token(&synth(), 6, "1k");
        (check(&b), token_at(&b, 6))
    }),
    ("C2-REJ-006", || {
        let b = with_token(&synth(), 2, "maybe");
        (check(&b), token_at(&b, 2))
    }),
    ("C2-REJ-007", || {
        let b = with_token(&synth(), 6, "1001");
        (check(&b), token_at(&b, 6))
    }),
    ("C2-REJ-007", || {
        // Below one record header (24 bytes).
        let b = with_token(&synth(), 6, "16");
        (check(&b), token_at(&b, 6))
    }),
    ("C2-REJ-008", || {
        // Off the block grid: rem = 1300.
        let b = synth();
        let n = token_count(&b);
        let c = with_token(&with_token(&b, n - 3, "0"), n - 1, "1300");
        (check(&c), token_at(&c, n - 3))
    }),
    ("C2-REJ-008", || {
        // On the grid, but past the end of the file (found after ENDLOG).
        let b = synth();
        let n = token_count(&b);
        let past = fptr(&b) + 1024 * 100;
        let c = with_token(&b, n - 1, &past.to_string());
        (check(&c[..fptr(&b) as usize]), token_at(&c, n - 3))
    }),
    ("C2-REJ-008", || {
        let b = synth();
        let n = token_count(&b);
        let c = with_token(&b, n - 3, "-1");
        (check(&c), token_at(&c, n - 3))
    }),
    ("C2-REJ-009", || {
        let b = synth();
        let cut = 1024 + 1024 * 3 + 100;
        (check(&b[..cut]), cut as u64)
    }),
    ("C2-REJ-010", || {
        let mut b = synth();
        let at = offsets(&b)[1];
        set_i32(&mut b, at + 20, 42);
        (check(&b), at)
    }),
    ("C2-REJ-011", || {
        // The ENDBLOCK at block offset 224 becomes a 136-byte STATEDEF.
        let (mut b, at) = small_blocks();
        set_i32(&mut b, at + 20, rectype::STATEDEF);
        (check(&b), at)
    }),
    ("C2-REJ-012", || {
        // The ENDBLOCK becomes a 32-byte BAREEVT that ends at the block end.
        let (mut b, at) = small_blocks();
        set_i32(&mut b, at + 20, rectype::BAREEVT);
        (check(&b), at + 32)
    }),
    ("C2-REJ-013", || {
        let b = synth();
        let cut = 1024 + 1024 * 4;
        (check(&b[..cut]), cut as u64)
    }),
    ("C2-REJ-013", || {
        // commtable_fptr = 1024: an empty block stream.
        let b = synth();
        let n = token_count(&b);
        let c = with_token(&with_token(&b, n - 3, "0"), n - 1, "1024");
        (check(&c), 1024)
    }),
    ("C2-REJ-014", || {
        // Block 0's ENDBLOCK becomes ENDLOG.
        let mut b = synth();
        let (_, at) = records(&b)
            .into_iter()
            .find(|(r, _)| r.rectype() == rectype::ENDBLOCK)
            .unwrap();
        assert!(at < 2048);
        set_i32(&mut b, at + 20, rectype::ENDLOG);
        (check(&b), 2048)
    }),
    ("C2-REJ-015", || {
        let b = synth();
        (check(&b[..b.len() - 5]), fptr(&b))
    }),
    ("C2-REJ-015", || {
        // Fewer than 4 bytes at fptr.
        let b = synth();
        let f = fptr(&b);
        (check(&b[..f as usize + 2]), f)
    }),
    ("C2-REJ-015", || {
        let mut b = synth();
        let f = fptr(&b);
        set_i32(&mut b, f, -3);
        (check(&b), f)
    }),
    ("C2-REJ-016", || {
        let mut b = synth();
        let len = b.len() as u64;
        b.extend_from_slice(b"junk");
        (check(&b), len)
    }),
    ("C2-IO-001", || {
        // The input fails while block 3 is read.
        let b = synth();
        let at = 1024 + 1024 * 3;
        let r = FailAt {
            inner: Cursor::new(b),
            at: at + 10,
        };
        let mut c = Collector::new(Format::Clog2, 20);
        mpelog_conformance::check::clog2::check(r, &mut c);
        (c.finish(), at)
    }),
    ("C2-FIN-001", || {
        let mut i = info(2);
        i.finalized = Some(false);
        let b = build_with(i, &[Record::bare(1.0, 0, -10)]);
        let at = preamble(&b).field_offset(Field::IsFinalized);
        (check(&b), at)
    }),
    ("C2-FIN-002", || {
        // commtable_fptr 0 and no table: the block stream runs to the end.
        let b = build(&[Record::bare(1.0, 0, -10)]);
        let f = fptr(&b) as usize;
        let n = token_count(&b);
        let c = with_token(&with_token(&b[..f], n - 3, "0"), n - 1, "0");
        let at = preamble(&c).field_offset(Field::CommtableFptr);
        assert_eq!(
            preamble(&c).raw().tokens[n - 2],
            GIGA.to_string().as_bytes()
        );
        (check(&c), at)
    }),
    ("C2-TIME-001", || {
        // State 0 (events 0/1) from 1 to 2, then state 1 (2/3) from 0.5 to 0.6.
        let b = build(&[
            Record::bare(1.0, 0, 0),
            Record::bare(2.0, 0, 1),
            Record::bare(0.5, 0, 2),
            Record::bare(0.6, 0, 3),
        ]);
        let at = body_at(&b, 3);
        // mpelog convert refuses the file at the same record.
        assert_eq!(convert_refusal(&b), Some(at));
        (check(&b), at)
    }),
    ("C2-TIME-001", || {
        // Overlapping, not wholly before: state 0 from 1 to 3, then state 1 from
        // 0.5 to 2. It starts before the previous start and ends inside the
        // previous state; its end (2) is before the previous end (3), so
        // mpelog convert refuses it. (A checker that remembered the previous
        // drawable's start instead of its end would pass it.)
        let b = build(&[
            Record::bare(1.0, 0, 0),
            Record::bare(3.0, 0, 1),
            Record::bare(0.5, 0, 2),
            Record::bare(2.0, 0, 3),
        ]);
        let at = body_at(&b, 3);
        assert_eq!(convert_refusal(&b), Some(at));
        (check(&b), at)
    }),
    ("C2-TIME-001", || {
        // On another rank: the order is that of the whole merged stream, not
        // per timeline. Rank 0's state [1, 3], then rank 1's [2, 2.5].
        let b = build(&[
            Record::bare(1.0, 0, 0),
            Record::bare(3.0, 0, 1),
            Record::bare(2.0, 1, 2),
            Record::bare(2.5, 1, 3),
        ]);
        let at = body_at(&b, 3);
        assert_eq!(convert_refusal(&b), Some(at));
        (check(&b), at)
    }),
    ("C2-TIME-002", || {
        // A state from 1 to +inf: mpelog convert refuses it at the same record.
        let b = build(&[Record::bare(1.0, 0, 0), Record::bare(f64::INFINITY, 0, 1)]);
        let at = body_at(&b, 1);
        assert_eq!(convert_refusal(&b), Some(at));
        (check(&b), at)
    }),
    ("C2-TIME-002", || {
        // A state from NaN to 2: mpelog convert refuses it too.
        let b = build(&[Record::bare(f64::NAN, 0, 0), Record::bare(2.0, 0, 1)]);
        let at = body_at(&b, 1);
        assert_eq!(convert_refusal(&b), Some(at));
        (check(&b), at)
    }),
    ("C2-DEF-001", || {
        // 700 is a user event ID, and the preamble reserves no user states.
        let b = build(&[Record::bare(1.0, 0, -10), Record::bare(2.0, 0, 700)]);
        (check(&b), body_at(&b, 1))
    }),
    ("C2-DEF-001", || {
        // A MSGEVT that is neither a send nor a receive.
        let b = build(&[msg(1.0, 0, -5, 1, 3)]);
        (check(&b), body_at(&b, 0))
    }),
    ("C2-DEF-002", || {
        // 0 is the start event of known state 0.
        let b = build(&[Record::bare(1.0, 0, -10), eventdef(0, "Oops", "")]);
        (check(&b), body_at(&b, 1))
    }),
    ("C2-DEF-003", || {
        // 0 starts known state 0, 3 ends known state 1.
        let b = build(&[statedef(0, 3, "Mixed", "")]);
        (check(&b), body_at(&b, 0))
    }),
    ("C2-DEF-004", || {
        let b = build(&[
            statedef(600, 601, "Solve", ""),
            statedef(600, 601, "Other", ""),
            Record::bare(1.0, 0, 600),
            Record::bare(2.0, 0, 601),
        ]);
        (check(&b), body_at(&b, 1))
    }),
    ("C2-DEF-005", || {
        let b = build(&[eventdef(5000, "Tick", "n=%q"), Record::bare(1.0, 0, 5000)]);
        (check(&b), body_at(&b, 0))
    }),
    ("C2-PAIR-001", || {
        // A start that is never closed.
        let b = build(&[Record::bare(1.0, 0, 0), Record::bare(2.0, 0, -10)]);
        (check(&b), body_at(&b, 0))
    }),
    ("C2-PAIR-001", || {
        // A final with nothing open.
        let b = build(&[Record::bare(1.0, 0, -10), Record::bare(2.0, 0, 1)]);
        (check(&b), body_at(&b, 1))
    }),
    ("C2-PAIR-002", || {
        // Rank 0 sends tag 3 to rank 1, which receives tag 4.
        let b = build(&[msg(1.0, 0, -101, 1, 3), msg(2.0, 1, -102, 0, 4)]);
        (check(&b), body_at(&b, 0))
    }),
    ("C2-COMM-001", || {
        // A CONSTDEF logged in communicator 2; the table has one entry.
        let mut r = Record::new(
            1.0,
            0,
            Body::ConstDef(ConstDef {
                etype: -201,
                value: -1,
                name: FixedBytes::from_str_truncated("MPI_PROC_NULL"),
            }),
        );
        r.icomm = 2;
        let b = build(&[Record::bare(0.5, 0, -10), r]);
        (check(&b), body_at(&b, 1))
    }),
    ("C2-COMM-001", || {
        // A COMMEVT describing communicator 1, which the table lacks.
        let b = build(&[commevt(1.0, 0, comm_etype::INTRA_CREATE, 1)]);
        (check(&b), body_at(&b, 0))
    }),
    ("C2-COMM-002", || {
        // A state of rank 2 in MPI_COMM_WORLD: only ranks 0 and 1 declared theirs.
        let b = build(&[Record::bare(1.0, 2, 0), Record::bare(2.0, 2, 1)]);
        (check(&b), body_at(&b, 1))
    }),
];

/// A reader whose byte `at` cannot be read (a bad sector).
struct FailAt {
    inner: Cursor<Vec<u8>>,
    at: u64,
}

impl Read for FailAt {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let pos = self.inner.position();
        if pos == self.at {
            return Err(std::io::Error::other("bad sector"));
        }
        let n = if pos < self.at {
            buf.len().min((self.at - pos) as usize)
        } else {
            buf.len()
        };
        self.inner.read(&mut buf[..n])
    }
}

impl Seek for FailAt {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(to)
    }
}

/// Runs one case: the rule must be reported at the offset, and nothing else may
/// be an error (a case for a warning rule may also give other warnings, which
/// must be listed in `extra_warnings`).
fn run_case(rule: &str, case: Case) -> Result<(), String> {
    let (report, offset) = case();
    let hit = report
        .findings
        .iter()
        .any(|f| f.rule == rule && f.offset == offset);
    let other_errors: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error && f.rule != rule)
        .collect();
    let is_rej = rule.contains("-REJ-") || rule.contains("-IO-");
    if !hit {
        return Err(format!(
            "{rule}: expected at byte {offset}, got {report:#?}"
        ));
    }
    if !other_errors.is_empty() {
        return Err(format!("{rule}: unexpected errors {other_errors:#?}"));
    }
    if is_rej && report.findings.len() != 1 {
        return Err(format!(
            "{rule}: a parse error must be the only finding: {report:#?}"
        ));
    }
    if !is_rej && report.findings.iter().any(|f| f.rule != rule) {
        return Err(format!("{rule}: unexpected findings {report:#?}"));
    }
    Ok(())
}

#[test]
fn every_rule_is_reported_at_its_offset() {
    let failures: Vec<String> = CASES
        .iter()
        .filter_map(|&(rule, case)| run_case(rule, case).err())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_rule_has_a_case() {
    // (The table's shape, and its agreement with the spec: rules_spec.rs.)
    let tested: BTreeSet<&str> = CASES.iter().map(|c| c.0).collect();
    let rules: BTreeSet<&str> = RULES.iter().map(|r| r.id).collect();
    assert_eq!(tested, rules);
}

// ---------------------------------------------------------------------------
// Valid files, limits, corpus
// ---------------------------------------------------------------------------

#[test]
fn generated_files_have_no_finding() {
    for (ranks, events, seed, block_size) in [
        (1, 100, 1, 65536),
        (2, 300, 1, 1024),
        (4, 5000, 7, 4096),
        (16, 20000, 3, 65536),
        (3, 2000, 11, 168),
    ] {
        let b = clog2_format::synth::generate_vec(
            &clog2_format::synth::Options::default()
                .ranks(ranks)
                .events(events)
                .seed(seed)
                .block_size(block_size),
        )
        .unwrap();
        let r = check(&b);
        assert_eq!(r.format, Some(Format::Clog2));
        assert!(r.findings.is_empty(), "{ranks} ranks, seed {seed}: {r:#?}");
        assert_eq!(r, check_format(Format::Clog2, &b, &Options::default()));
    }
    // The small hand-made traces of the cases are valid too.
    let b = build(&[
        statedef(600, 601, "Solve", "n=%d"),
        eventdef(5000, "Tick", "t=%E"),
        Record::bare(1.0, 0, 600),
        msg(1.5, 0, -101, 1, 3),
        msg(1.6, 1, -102, 0, 3),
        Record::bare(2.0, 0, 601),
        Record::bare(2.5, 1, 5000),
    ]);
    let r = check(&b);
    assert!(r.findings.is_empty(), "{r:#?}");
}

#[test]
fn per_rank_definitions_differing_only_in_blanks_are_one_definition() {
    // Java trims names and formats (conversion.md §2.1 item 9): these two
    // definitions of the same IDs give the same category, no C2-DEF-004.
    let b = build(&[
        statedef(600, 601, "Solve", "n=%d"),
        statedef(600, 601, "  Solve\t", " n=%d "),
        Record::bare(1.0, 0, 600),
        Record::bare(2.0, 0, 601),
    ]);
    let r = check(&b);
    assert!(r.findings.is_empty(), "{r:#?}");
}

#[test]
fn findings_beyond_parsing_are_limited_per_rule_and_only_for_files_that_parse() {
    // 30 unmatched sends.
    let body: Vec<Record> = (0..30).map(|k| msg(f64::from(k), 0, -101, 1, k)).collect();
    let b = build(&body);
    let r = check_bytes(&b, &Options::default().limit(5));
    assert_eq!(r.rule_ids(), ["C2-PAIR-002"; 5]);
    let offs: Vec<u64> = r.findings.iter().map(|f| f.offset).collect();
    assert_eq!(offs, offsets(&b)[2..7]);
    assert!(r.passes());
    // Cut inside the last block: only the parse error is reported.
    let cut = fptr(&b) as usize - 100;
    assert_eq!(check(&b[..cut]).rule_ids(), ["C2-REJ-009"]);
}

#[test]
fn a_streamed_file_gives_the_same_report() {
    let dir = std::env::temp_dir().join(format!("mpelog-check-clog2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, b) in [
        ("ok.clog2", synth()),
        ("cut.clog2", synth()[..3000].to_vec()),
        (
            "pair.clog2",
            build(&[Record::bare(1.0, 0, 0), Record::bare(2.0, 0, -10)]),
        ),
    ] {
        let p = dir.join(name);
        std::fs::write(&p, &b).unwrap();
        let streamed = check_path(&p, &Options::default()).unwrap();
        assert_eq!(streamed, check(&b), "{name}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A file that the reader rejects gets one `C2-REJ` finding at the reader's
/// offset (the row is checked by the cases above); a file it accepts gets none.
/// Tried on truncations and on byte flips of the preamble, of record headers and
/// of the comm table of a generated file.
#[test]
fn parse_findings_agree_with_the_reader() {
    fn read(b: &[u8]) -> Result<(), clog2_format::Error> {
        let mut r = Clog2Reader::from_slice(b)?;
        while r.next_record()?.is_some() {}
        r.finish().map(drop)
    }
    let b = synth();
    let mut variants: Vec<Vec<u8>> = (0..b.len()).step_by(97).map(|n| b[..n].to_vec()).collect();
    let mut flip = |at: usize, bit: u8| {
        let mut v = b.clone();
        v[at] ^= bit;
        variants.push(v);
    };
    for at in (0..1024).step_by(5) {
        flip(at, 0x01);
    }
    for at in offsets(&b).into_iter().step_by(7) {
        for k in [11, 15, 19, 20, 23] {
            flip(at as usize + k, 0x81);
        }
    }
    for at in fptr(&b) as usize..b.len() {
        flip(at, 0x40);
    }
    let mut rejected = 0;
    for v in &variants {
        let r = check_format(Format::Clog2, v, &Options::default());
        match read(v) {
            Ok(()) => assert!(
                !r.rule_ids().iter().any(|id| id.contains("-REJ-")),
                "{r:#?}"
            ),
            Err(e) => {
                rejected += 1;
                assert_eq!(r.findings.len(), 1, "{e}: {r:#?}");
                assert!(r.findings[0].rule.starts_with("C2-REJ-"), "{e}: {r:#?}");
                assert_eq!(Some(r.findings[0].offset), e.offset(), "{e}: {r:#?}");
            }
        }
    }
    assert!(
        rejected > variants.len() / 4,
        "{rejected} of {}",
        variants.len()
    );
}

/// The corpus root from `MPELOG_CORPUS` (relative: to the workspace root).
fn corpus() -> Option<PathBuf> {
    mpelog_conformance::corpus::root()
}

#[test]
fn every_corpus_clog2_file_passes() {
    let Some(root) = corpus() else { return };
    let dir = root.join("mpe");
    // The corpus README lists 26 CLOG2 files; fewer would check less.
    let files = mpelog_conformance::corpus::listing(&dir, ".clog2", 26);
    for p in &files {
        let r = check_path(p, &Options::default()).unwrap();
        let name = p.file_name().unwrap().to_string_lossy();
        assert_eq!(r.format, Some(Format::Clog2), "{name}");
        assert!(r.passes(), "{name}: {r:#?}");
        let warnings: Vec<String> = r
            .findings
            .iter()
            .map(|f| format!("{} byte {}: {}", f.rule, f.offset, f.message))
            .collect();
        println!("{name}: {} warnings", warnings.len());
        for w in warnings {
            println!("  {w}");
        }
    }
}
