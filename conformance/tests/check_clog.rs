//! The old-CLOG rules of `mpelog check` (spec/clog.md §6 and spec/conformance.md §5), one case per
//! rule: a file that breaks the rule (written with the old-CLOG writer, then
//! patched) must give that rule at the exact offset the spec names, and no other
//! error. Valid files give no finding at all, and every corpus old-CLOG file
//! (`MPELOG_CORPUS`) passes.

use clog2_format::clog::{
    Body, ClogFile, ClogRecords, ClogWriter, RawEvent, Record, SrcLoc, StateDef,
};
use clog2_format::FixedBytes;
use mpelog_conformance::check::clog::{check_with_block_size, RULES};
use mpelog_conformance::report::Collector;
use mpelog_conformance::{check_bytes, check_format, check_path, Format, Options, Report};
use std::collections::BTreeSet;
use std::io::Cursor;
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------

fn raw(time: f64, procid: i32, etype: i32, data: i32, string: &str) -> Record {
    Record::new(
        time,
        procid,
        Body::Raw(RawEvent {
            etype,
            data,
            srcloc: 0,
            pad: FixedBytes::ZERO,
            string: FixedBytes::from_str_truncated(string),
        }),
    )
}

fn statedef(start: i32, end: i32, color: &str, name: &str) -> Record {
    Record::new(
        0.0,
        0,
        Body::StateDef(StateDef {
            stateid: 200,
            startetype: start,
            endetype: end,
            pad: FixedBytes::ZERO,
            color: FixedBytes::from_str_truncated(color),
            description: FixedBytes::from_str_truncated(name),
        }),
    )
}

fn write(records: &[Record], block_size: usize) -> Vec<u8> {
    let mut w = ClogWriter::new(Vec::new(), block_size).unwrap();
    for r in records {
        w.push(r).unwrap();
    }
    w.finish().unwrap()
}

/// 40 states of MPI placeholder 1 (events 1 and 2) on process 0: three 1 KiB
/// blocks of 16, 16 and 8 RAWEVENTs (56 bytes each), the first two ended by
/// ENDBLOCK at block offset 896.
fn three_blocks() -> Vec<u8> {
    let recs: Vec<Record> = (0..40)
        .map(|i| raw(f64::from(i) * 0.1, 0, 1 + i % 2, 0, ""))
        .collect();
    let b = write(&recs, 1024);
    assert_eq!(b.len(), 3 * 1024);
    b
}

/// Offsets of the records that are not terminators, in file order.
fn offsets(b: &[u8]) -> Vec<u64> {
    ClogRecords::new(b)
        .unwrap()
        .map(Result::unwrap)
        .filter(|(r, _)| !r.is_terminator())
        .map(|(_, at)| at)
        .collect()
}

fn set_i32(b: &mut [u8], at: u64, v: i32) {
    let at = at as usize;
    b[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

fn check(b: &[u8]) -> Report {
    check_bytes(b, &Options::default())
}

/// A check with an explicit block size.
fn check_sized(b: &[u8], block_size: usize) -> Report {
    let mut c = Collector::new(Format::Clog, 20);
    check_with_block_size(b, Some(block_size), &mut c);
    c.finish()
}

/// The offset at which `mpelog convert` refuses a file for its time order, if
/// it does.
fn convert_error(b: &[u8]) -> Option<u64> {
    let records = clog2_format::clog::ClogRecords::new(b).unwrap();
    match slog2_format::convert::clog_to_slog2(
        records,
        Cursor::new(Vec::new()),
        Default::default(),
        |_| {},
    ) {
        Err(e @ slog2_format::Error::OutOfOrder { .. }) => e.offset(),
        Err(slog2_format::Error::Clog2(e)) => panic!("{e}"),
        _ => None,
    }
}

/// A file of `records` (1 KiB blocks) and the offset of record `i`.
fn case_file(records: &[Record], i: usize) -> (Vec<u8>, u64) {
    let b = write(records, 1024);
    let at = offsets(&b)[i];
    (b, at)
}

// ---------------------------------------------------------------------------
// One case per rule
// ---------------------------------------------------------------------------

/// A file breaking a rule: its report, and the offset the rule must name.
type Case = fn() -> (Report, u64);

/// Every rule of [`RULES`] and a case that breaks it (some rules have several).
const CASES: &[(&str, Case)] = &[
    ("C1-REJ-001", || (check_sized(&three_blocks(), 1001), 0)),
    ("C1-REJ-001", || (check_sized(&three_blocks(), 16), 0)),
    ("C1-REJ-002", || {
        // One 4 KiB block cut after 312 bytes: the walk from byte 0 meets the
        // end of the file before a terminator.
        let recs: Vec<Record> = (0..10)
            .map(|i| raw(f64::from(i), 0, 1 + i % 2, 0, ""))
            .collect();
        let b = write(&recs, 4096);
        (check(&b[..312]), 0)
    }),
    ("C1-REJ-002", || {
        // 3000 bytes: no power of two from 1024 divides the length.
        (check(&three_blocks()[..3000]), 0)
    }),
    ("C1-REJ-002", || {
        // Shorter than one record header.
        (
            check_format(Format::Clog, &three_blocks()[..10], &Options::default()),
            0,
        )
    }),
    ("C1-REJ-003", || {
        (check_format(Format::Clog, b"", &Options::default()), 0)
    }),
    ("C1-REJ-003", || {
        (check_sized(&three_blocks()[..3000], 1024), 3000)
    }),
    ("C1-REJ-004", || {
        // A RAWEVENT (length 7) in block 1 with length 8.
        let mut b = three_blocks();
        let at = offsets(&b)[20];
        set_i32(&mut b, at + 12, 8);
        (check(&b), at)
    }),
    ("C1-REJ-005", || {
        let mut b = three_blocks();
        let at = offsets(&b)[20];
        set_i32(&mut b, at + 8, 77);
        set_i32(&mut b, at + 12, 2);
        (check(&b), at)
    }),
    ("C1-REJ-006", || {
        // An unknown type whose length runs past the block end.
        let mut b = three_blocks();
        let at = offsets(&b)[20];
        set_i32(&mut b, at + 8, 77);
        set_i32(&mut b, at + 12, 1000);
        (check(&b), at)
    }),
    ("C1-REJ-006", || {
        // A 56-byte RAWEVENT in an 80-byte block (explicit size).
        let b = write(&[raw(0.0, 0, 1, 0, ""), raw(0.1, 0, 2, 0, "")], 1024);
        (check_sized(&b[..80], 80), 56)
    }),
    ("C1-REJ-007", || {
        // Block 1's ENDBLOCK (at block offset 896) becomes an opaque record of
        // 128 bytes, which ends exactly at the block end.
        let mut b = three_blocks();
        let at = 1024 + 896;
        set_i32(&mut b, at + 8, 99);
        set_i32(&mut b, at + 12, 16);
        (check(&b), 2048)
    }),
    ("C1-REJ-008", || (check(&three_blocks()[..2048]), 2048)),
    ("C1-REJ-009", || {
        let mut b = three_blocks();
        let first = b[..1024].to_vec();
        b.extend_from_slice(&first);
        (check(&b), 3072)
    }),
    ("C1-TIME-001", || {
        // State 1 (events 1/2) from 1 to 2, then state 2 (3/4) from 0.5 to 0.6.
        let (b, at) = case_file(
            &[
                raw(1.0, 0, 1, 0, ""),
                raw(2.0, 0, 2, 0, ""),
                raw(0.5, 0, 3, 0, ""),
                raw(0.6, 0, 4, 0, ""),
            ],
            3,
        );
        assert_eq!(convert_error(&b), Some(at));
        (check(&b), at)
    }),
    ("C1-TIME-002", || {
        let (b, at) = case_file(&[raw(1.0, 0, 1, 0, ""), raw(f64::INFINITY, 0, 2, 0, "")], 1);
        assert_eq!(convert_error(&b), Some(at));
        (check(&b), at)
    }),
    ("C1-TIME-002", || {
        // (The first record needs a finite time to be detected as old CLOG.)
        let (b, at) = case_file(
            &[
                raw(0.5, 0, 3, 0, ""),
                raw(0.6, 0, 4, 0, ""),
                raw(f64::NAN, 0, 1, 0, ""),
                raw(2.0, 0, 2, 0, ""),
            ],
            3,
        );
        (check(&b), at)
    }),
    ("C1-DEF-001", || {
        let (b, at) = case_file(
            &[
                raw(1.0, 0, 1, 0, ""),
                raw(1.5, 0, 700, 0, ""),
                raw(2.0, 0, 2, 0, ""),
            ],
            1,
        );
        (check(&b), at)
    }),
    ("C1-DEF-002", || {
        let (b, at) = case_file(
            &[
                statedef(-101, -102, "red", "Msg"),
                raw(1.0, 0, 1, 0, ""),
                raw(2.0, 0, 2, 0, ""),
            ],
            0,
        );
        (check(&b), at)
    }),
    ("C1-DEF-003", || {
        // 1 starts MPI placeholder 1, 4 ends placeholder 2.
        let (b, at) = case_file(
            &[
                statedef(1, 4, "red", "Mixed"),
                raw(1.0, 0, 1, 0, ""),
                raw(2.0, 0, 2, 0, ""),
            ],
            0,
        );
        (check(&b), at)
    }),
    ("C1-DEF-004", || {
        let (b, at) = case_file(
            &[
                statedef(1, 2, "red", "Send"),
                statedef(1, 2, "red", "Recv"),
                raw(1.0, 0, 1, 0, ""),
                raw(2.0, 0, 2, 0, ""),
            ],
            1,
        );
        (check(&b), at)
    }),
    ("C1-DEF-005", || {
        let (b, at) = case_file(
            &[
                statedef(1, 2, "nosuchcolour", "Compute"),
                raw(1.0, 0, 1, 0, ""),
                raw(2.0, 0, 2, 0, ""),
            ],
            0,
        );
        (check(&b), at)
    }),
    ("C1-MSG-001", || {
        // A send and its receive whose tag is "x": they still pair (tag -2^31).
        let (b, at) = case_file(
            &[raw(1.0, 0, -101, 1, "x 4"), raw(2.0, 1, -102, 0, "x 4")],
            0,
        );
        (check(&b), at)
    }),
    ("C1-PAIR-001", || {
        // A start that is never closed.
        let (b, at) = case_file(
            &[
                raw(1.0, 0, 1, 0, ""),
                raw(2.0, 0, 3, 0, ""),
                raw(3.0, 0, 4, 0, ""),
            ],
            0,
        );
        (check(&b), at)
    }),
    ("C1-PAIR-001", || {
        // A final with nothing open.
        let (b, at) = case_file(
            &[
                raw(1.0, 0, 2, 0, ""),
                raw(2.0, 0, 3, 0, ""),
                raw(3.0, 0, 4, 0, ""),
            ],
            0,
        );
        (check(&b), at)
    }),
    ("C1-PAIR-002", || {
        // Process 0 sends tag 5 to process 1, which receives tag 6.
        let (b, at) = case_file(
            &[
                raw(1.0, 0, -101, 1, "5 4"),
                raw(2.0, 1, -102, 0, "6 4"),
                raw(3.0, 0, 1, 0, ""),
                raw(4.0, 0, 2, 0, ""),
            ],
            0,
        );
        (check(&b), at)
    }),
];

/// Runs one case: the rule must be reported at the offset and nothing else may
/// be reported, except more findings of the same rule for a rule beyond parsing.
fn run_case(rule: &str, case: Case) -> Result<(), String> {
    let (report, offset) = case();
    if !report
        .findings
        .iter()
        .any(|f| f.rule == rule && f.offset == offset)
    {
        return Err(format!(
            "{rule}: expected at byte {offset}, got {report:#?}"
        ));
    }
    let parse = rule.contains("-REJ-");
    if parse && report.findings.len() != 1 {
        return Err(format!(
            "{rule}: a parse error must be the only finding: {report:#?}"
        ));
    }
    if report.findings.iter().any(|f| f.rule != rule) {
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

#[test]
fn a_first_record_of_unknown_type_is_not_old_clog() {
    // Detection never picks such bytes; checked as old CLOG anyway, they are
    // reported as no known format.
    let mut b = three_blocks();
    set_i32(&mut b, 8, 42);
    assert_eq!(check(&b).rule_ids(), ["FORMAT-001"]);
    let r = check_format(Format::Clog, &b, &Options::default());
    assert_eq!(r.rule_ids(), ["FORMAT-001"]);
    assert_eq!(r.findings[0].offset, 0);
}

// ---------------------------------------------------------------------------
// Valid files, parse errors against the reader, corpus
// ---------------------------------------------------------------------------

/// A 4-process trace like MPICH-1's: STATEDEFs, MPI and user states, sends and
/// receives, source locations, in time order.
fn program(iterations: u32) -> Vec<Record> {
    let mut v = vec![
        statedef(11, 12, "yellow:dimple3", "BARRIER"),
        statedef(161, 162, "blue:gray3", "SEND"),
        statedef(155, 156, "green:light_gray", "RECV"),
        statedef(600, 601, "SeaGreen", "Solve"),
    ];
    let mut t = 0.0;
    for i in 0..iterations {
        for p in 0..4 {
            let to = (p + 1) % 4;
            let from = (p + 3) % 4;
            let tag = i as i32;
            v.push(raw(t, p, 600, 0, ""));
            v.push(raw(t + 0.001, p, 161, 0, ""));
            v.push(raw(t + 0.002, p, -101, to, &format!("{tag} 64")));
            v.push(raw(t + 0.003, p, 162, 0, ""));
            v.push(raw(t + 0.004, p, 155, 0, ""));
            v.push(raw(t + 0.005, p, -102, from, &format!("{tag} 64")));
            v.push(raw(t + 0.006, p, 156, 0, ""));
            v.push(raw(t + 0.007, p, 601, 0, ""));
            t += 0.01;
        }
        for p in 0..4 {
            v.push(raw(t, p, 11, 0, ""));
        }
        for p in 0..4 {
            v.push(raw(t + 0.001, p, 12, 0, ""));
        }
        t += 0.01;
        v.push(Record::new(
            t,
            0,
            Body::SrcLoc(SrcLoc {
                srcloc: 900 + i as i32,
                lineno: 10,
                filename: FixedBytes::from_str_truncated("a.c"),
            }),
        ));
    }
    v
}

#[test]
fn valid_files_have_no_finding() {
    for (iterations, block_size) in [(1, 1024), (30, 1024), (5, 65536), (200, 65536)] {
        let b = write(&program(iterations), block_size);
        let f = ClogFile::parse(&b).unwrap();
        assert_eq!(f.block_size, block_size);
        let r = check(&b);
        assert_eq!(r.format, Some(Format::Clog));
        assert!(r.findings.is_empty(), "{iterations} × {block_size}: {r:#?}");
        assert_eq!(check_sized(&b, block_size), r);
    }
    let r = check(&three_blocks());
    assert!(r.findings.is_empty(), "{r:#?}");
}

/// A file that the reader rejects gets one `C1-REJ` finding at the reader's
/// offset; a file it accepts gets none. Tried on every truncation at a record
/// boundary and on byte flips of every header field of a 3-block file.
#[test]
fn parse_findings_agree_with_the_reader() {
    let b = write(&program(6), 1024);
    let mut variants: Vec<Vec<u8>> = (0..b.len()).step_by(8).map(|n| b[..n].to_vec()).collect();
    for at in offsets(&b) {
        for field in [8u64, 12, 16] {
            for bit in [0x80u8, 0x01] {
                let mut v = b.clone();
                v[(at + field) as usize + 3] ^= bit;
                variants.push(v);
                let mut v = b.clone();
                v[(at + field) as usize] ^= bit;
                variants.push(v);
            }
        }
    }
    let mut rejected = 0;
    for v in &variants {
        let r = check_format(Format::Clog, v, &Options::default());
        match ClogFile::parse(v) {
            Ok(_) => assert!(
                !r.rule_ids().iter().any(|id| id.contains("-REJ-")),
                "{r:#?}"
            ),
            Err(clog2_format::Error::UnknownRecordType { .. }) => {
                assert_eq!(r.rule_ids(), ["FORMAT-001"])
            }
            Err(e) => {
                rejected += 1;
                assert_eq!(r.findings.len(), 1, "{e}: {r:#?}");
                assert!(r.findings[0].rule.starts_with("C1-REJ-"), "{e}: {r:#?}");
                assert_eq!(Some(r.findings[0].offset), e.offset(), "{e}: {r:#?}");
            }
        }
    }
    assert!(
        rejected > variants.len() / 2,
        "{rejected} of {}",
        variants.len()
    );
}

/// The corpus root from `MPELOG_CORPUS` (relative: to the workspace root).
fn corpus() -> Option<PathBuf> {
    mpelog_conformance::corpus::root()
}

/// The `.clog` files under `dir`, at any depth.
fn clog_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.unwrap().path();
        if p.is_dir() {
            clog_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "clog") {
            out.push(p);
        }
    }
}

#[test]
fn every_corpus_clog_file_passes() {
    let Some(root) = corpus() else { return };
    // historic/fpilog.clog; mpich1/clog1/{arrowtest,fpilog,nesttest,simple}.clog.
    for (sub, count) in [("historic", 1), ("mpich1", 4)] {
        let mut files = Vec::new();
        clog_files(&root.join(sub), &mut files);
        files.sort();
        assert_eq!(
            files.len(),
            count,
            ".clog files under {}: {files:#?}",
            root.join(sub).display()
        );
        for p in &files {
            let r = check_path(p, &Options::default()).unwrap();
            let name = p.strip_prefix(&root).unwrap().display().to_string();
            assert_eq!(r.format, Some(Format::Clog), "{name}");
            assert!(r.passes(), "{name}: {r:#?}");
            println!("{name}: {} warnings", r.warnings());
            for f in &r.findings {
                println!("  {} byte {}: {}", f.rule, f.offset, f.message);
            }
        }
    }
}
