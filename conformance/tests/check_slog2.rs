//! SLOG-2 through the conformance checker: generated files pass plain and
//! compressed, and every compressed-frame rule (`S2Z-FRM-*`, spec/slog2-compressed.md
//! §5) is reported with the right offset on a frame built to break it. (The
//! plain SLOG-2 rules have their tests in slog2-format/tests/check_rules.rs.)

mod common;

use common::crc32;
use mpelog_conformance::{check_bytes, rules, Format, Options, Report, Severity};
use slog2_format::convert::clog2_to_slog2;
use slog2_format::frame::Compression;
use slog2_format::write::TreeOptions;
use std::collections::BTreeSet;
use std::io::Cursor;

fn slog2(compression: Compression) -> Vec<u8> {
    let clog2 = clog2_format::synth::generate_vec(
        &clog2_format::synth::Options::default()
            .ranks(3)
            .events(4000)
            .seed(3)
            .block_size(1024),
    )
    .unwrap();
    let mut r = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    let opts = TreeOptions::default()
        .leaf_bytes(4096)
        .children(2)
        .compression(compression);
    let (out, _) = clog2_to_slog2(&mut r, Cursor::new(Vec::new()), opts, |_| {}).unwrap();
    out.into_inner()
}

/// The root node's frame: (offset, size).
fn root(b: &[u8]) -> (usize, usize) {
    let (h, _, _) = slog2_format::read::parse_header(b).unwrap();
    (h.treeroot.offset as usize, h.treeroot.size as usize)
}

fn check(b: &[u8]) -> Report {
    check_bytes(b, &Options::default())
}

fn only(r: &Report, rule: &str, offset: u64) {
    let errors: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .collect();
    assert_eq!(errors.len(), 1, "expected only {rule}: {r:#?}");
    assert_eq!((errors[0].rule, errors[0].offset), (rule, offset), "{r:#?}");
    assert!(errors[0].message.contains("tree node ("), "{r:#?}");
}

#[test]
fn generated_files_pass_plain_and_compressed() {
    for c in [
        Compression::None,
        Compression::Stored,
        Compression::Deflate(6),
        Compression::Columns(4),
    ] {
        let b = slog2(c);
        let r = check(&b);
        let want = if c == Compression::None {
            Format::Slog2
        } else {
            Format::Slog2Compressed
        };
        assert_eq!(r.format, Some(want));
        assert!(r.findings.is_empty(), "{c:?}: {r:#?}");
    }
}

#[test]
fn every_frame_rule_is_reported_at_its_offset() {
    let mut tested = BTreeSet::new();
    let mut case = |b: &[u8], rule: &'static str, offset: usize| {
        only(&check(b), rule, offset as u64);
        tested.insert(rule);
    };
    let stored = slog2(Compression::Stored);
    let deflated = slog2(Compression::Deflate(6));
    let (f, size) = root(&stored);
    let (g, _) = root(&deflated);

    // 1: an unknown codec; non-zero reserved bytes.
    let mut b = stored.clone();
    b[f] = 7;
    case(&b, "S2Z-FRM-001", f);
    let mut b = stored.clone();
    b[f + 2] = 1;
    case(&b, "S2Z-FRM-001", f + 1);
    // 2: a payload length that is not the block size minus 50.
    let mut b = stored.clone();
    let n = u32::from_be_bytes(b[f + 4..f + 8].try_into().unwrap());
    assert_eq!(n as usize, size - 50);
    b[f + 4..f + 8].copy_from_slice(&(n + 1).to_be_bytes());
    case(&b, "S2Z-FRM-002", f + 4);
    // 3: an uncompressed length below 34.
    let mut b = stored.clone();
    b[f + 8..f + 12].copy_from_slice(&20u32.to_be_bytes());
    case(&b, "S2Z-FRM-003", f + 8);
    // 4: a deflate payload announcing one byte fewer than it gives; a corrupt
    // deflate stream.
    let mut b = deflated.clone();
    let n = u32::from_be_bytes(b[g + 8..g + 12].try_into().unwrap());
    b[g + 8..g + 12].copy_from_slice(&(n - 1).to_be_bytes());
    case(&b, "S2Z-FRM-004", g + 8);
    let mut b = deflated.clone();
    b[g + 50] = 0xff;
    case(&b, "S2Z-FRM-004", g + 50);
    // 5: a wrong checksum.
    let mut b = stored.clone();
    b[f + 12] ^= 1;
    case(&b, "S2Z-FRM-005", f + 12);
    // 6: a node whose own pointer is not its frame's (checksum made to match).
    let mut b = stored.clone();
    b[f + 38..f + 46].copy_from_slice(&(f as i64 + 1).to_be_bytes());
    let crc = crc32(&b[f + 16..f + size]);
    b[f + 12..f + 16].copy_from_slice(&crc.to_be_bytes());
    case(&b, "S2Z-FRM-006", f + 38);

    for r in rules::of(Format::Slog2Compressed) {
        if r.id.starts_with("S2Z-") {
            assert!(tested.contains(r.id), "no test breaks {}", r.id);
        }
    }
}

/// Each problem `slog2_format::check` reports has its own rule of the SLOG-2
/// table, every rule of the table is some problem's, and a rule is an error
/// exactly where the problem breaks readers (what a window query refuses), and
/// in spec/slog2.md's table with that severity.
#[test]
fn every_slog2_problem_has_one_rule_of_the_severity_its_readers_need() {
    use mpelog_conformance::check::slog2::{frame, rule, RULES};
    use slog2_format::check::Problem;
    let spec =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/slog2.md")).unwrap();
    let mut ids = BTreeSet::new();
    for &p in Problem::ALL {
        let r = rule(p);
        assert!(
            ids.insert(r.id),
            "{p:?}: rule {} is another problem's",
            r.id
        );
        let error = r.severity == Severity::Error;
        assert_eq!(error, p.breaks_readers(), "{p:?} ({})", r.id);
        let row = spec
            .lines()
            .find(|l| l.starts_with(&format!("| {} |", r.id)))
            .unwrap_or_else(|| panic!("{} missing from spec/slog2.md", r.id));
        let s = if error { "| error |" } else { "| warning |" };
        assert!(
            row.contains(s),
            "{}: severity differs from the spec: {row}",
            r.id
        );
    }
    let table: BTreeSet<&str> = RULES.iter().chain(frame::RULES).map(|r| r.id).collect();
    assert_eq!(ids, table);
}
