//! Every annotation rule (`IDX-*`) is reported, with the right offset, on an
//! annotation (or trace) built to break it; a fresh annotation passes.

mod common;

use common::crc32;
use mpelog_annotate::{annotate, AnnotateOptions, Annotation};
use mpelog_conformance::check::annotation::RULES;
use mpelog_conformance::{check_annotation, check_bytes, check_path, Options, Report};
use std::collections::BTreeSet;
use std::io::Cursor;
use std::sync::Mutex;

/// The rules a test below has broken.
static TESTED: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());

const BLOCK: u32 = 1024;

fn trace() -> Vec<u8> {
    clog2_format::synth::generate_vec(
        &clog2_format::synth::Options::default()
            .ranks(3)
            .events(6000)
            .seed(11)
            .block_size(BLOCK),
    )
    .unwrap()
}

fn index(clog2: &[u8]) -> Vec<u8> {
    let mut r = clog2_format::Clog2Reader::from_slice(clog2).unwrap();
    let opts = AnnotateOptions::default().tree(
        slog2_format::write::TreeOptions::default()
            .leaf_bytes(2 * BLOCK)
            .children(2),
    );
    let (out, _) = annotate(
        &mut r,
        Cursor::new(Vec::new()),
        opts.trace(clog2.len() as u64, &clog2[..1024]),
        |_| {},
    )
    .unwrap();
    out.into_inner()
}

fn check(idx: &[u8], trace: &[u8]) -> Report {
    check_annotation(Cursor::new(idx), Cursor::new(trace), &Options::default())
}

/// Requires that every error of the report is `rule`, all at `offset` (one per
/// offending drawable of a node, say).
fn all_of(r: &Report, rule: &'static str, offset: u64) {
    assert!(r.errors() > 0, "expected {rule}: {r:#?}");
    for f in &r.findings {
        assert_eq!((f.rule, f.offset), (rule, offset), "{r:#?}");
    }
    TESTED.lock().unwrap().insert(rule);
}

/// Requires that the report's only error is `rule` at `offset`.
fn only(r: &Report, rule: &'static str, offset: u64) {
    let errors: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.severity == mpelog_conformance::Severity::Error)
        .collect();
    assert_eq!(errors.len(), 1, "expected only {rule}: {r:#?}");
    assert_eq!(errors[0].rule, rule, "{r:#?}");
    assert_eq!(errors[0].offset, offset, "{rule}: {r:#?}");
    assert!(errors[0].message.len() > 20, "{r:#?}");
    TESTED.lock().unwrap().insert(rule);
}

fn be_u32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(b[at..at + 4].try_into().unwrap())
}

fn be_i64(b: &[u8], at: usize) -> i64 {
    i64::from_be_bytes(b[at..at + 8].try_into().unwrap())
}

/// (offset, size) of the block whose pointer is at `at` in the header.
fn ptr(b: &[u8], at: usize) -> (usize, usize) {
    (be_i64(b, at) as usize, be_u32(b, at + 8) as usize)
}

const TREEDIR: usize = 71;
const LEAF_TABLE: usize = 83;

#[test]
fn a_fresh_annotation_passes() {
    let t = trace();
    let idx = index(&t);
    let r = check(&idx, &t);
    assert!(r.findings.is_empty(), "{r:#?}");
    // Its nodes hold crossing drawables, so the node rules are exercised.
    let a = Annotation::new(Cursor::new(&idx), Cursor::new(&t)).unwrap();
    assert!(a.tree_dir().entries.len() > 3);
}

#[test]
fn header_rules() {
    let t = trace();
    let idx = index(&t);
    let mut b = idx.clone();
    b[0] = b'X';
    only(&check(&b, &t), "IDX-HDR-001", 0);
    only(&check(&idx[..100], &t), "IDX-HDR-001", 100);
    let mut b = idx.clone();
    b[9] = 2;
    only(&check(&b, &t), "IDX-HDR-002", 8);
    let mut b = idx.clone();
    b[39..41].copy_from_slice(&1u16.to_be_bytes());
    only(&check(&b, &t), "IDX-HDR-003", 39);
}

#[test]
fn block_rules() {
    let t = trace();
    let idx = index(&t);
    let (dir_at, _) = ptr(&idx, TREEDIR);
    // A TreeDir pointer past the end of the file.
    let mut b = idx.clone();
    b[TREEDIR..TREEDIR + 8].copy_from_slice(&(idx.len() as i64).to_be_bytes());
    // Reported at the pointer field, as SLOG-2 reports its pointers.
    only(&check(&b, &t), "IDX-BLK-001", TREEDIR as u64);
    // A TreeDir whose count is negative.
    let mut b = idx.clone();
    b[dir_at..dir_at + 4].copy_from_slice(&(-1i32).to_be_bytes());
    only(&check(&b, &t), "IDX-BLK-002", dir_at as u64);
}

#[test]
fn leaf_rules() {
    let t = trace();
    let idx = index(&t);
    let (table, _) = ptr(&idx, LEAF_TABLE);
    let n = be_u32(&idx, table) as usize;
    assert!(n > 4);
    // The header's leaf count disagrees with the table.
    let mut b = idx.clone();
    b[47..51].copy_from_slice(&(n as u32 + 1).to_be_bytes());
    only(&check(&b, &t), "IDX-LEAF-001", table as u64);
    // The last leaf's range is not whole blocks.
    let last = table + 4 + 48 * (n - 1);
    let mut b = idx.clone();
    let len = be_u32(&b, last + 8);
    b[last + 8..last + 12].copy_from_slice(&(len - 1).to_be_bytes());
    only(&check(&b, &t), "IDX-LEAF-002", last as u64);
    // The last leaf skips a block.
    let mut b = idx.clone();
    let off = be_i64(&b, last) as u64 + BLOCK as u64;
    b[last..last + 8].copy_from_slice(&off.to_be_bytes());
    only(&check(&b, &t), "IDX-LEAF-003", last as u64);
}

/// The TreeDir entry (its offset in `idx`) and the node block of the first node
/// that holds a drawable.
fn a_full_node(idx: &[u8], t: &[u8]) -> (usize, usize) {
    let mut a = Annotation::new(Cursor::new(idx), Cursor::new(t)).unwrap();
    let (dir_at, _) = ptr(idx, TREEDIR);
    let entries = a.tree_dir().entries.clone();
    for (i, e) in entries.iter().enumerate() {
        let node = a.node(e).unwrap();
        if !node.nestless.is_empty() || !node.nestable.is_empty() {
            return (dir_at + 4 + 34 * i, e.ptr.offset as usize);
        }
    }
    panic!("no node holds a drawable");
}

#[test]
fn node_rules() {
    let t = trace();
    let idx = index(&t);
    let (entry, node) = a_full_node(&idx, &t);
    assert_eq!(be_i64(&idx, entry + 22), node as i64, "TreeDir layout");
    // The node's box starts earlier than its TreeDir entry says.
    let mut b = idx.clone();
    b[node..node + 8].copy_from_slice(&(-1.0f64).to_be_bytes());
    only(&check(&b, &t), "IDX-NODE-001", node as u64);
    // The node's box (and its entry) ends before its drawables do.
    let mut b = idx.clone();
    let start = f64::from_be_bytes(b[node..node + 8].try_into().unwrap());
    for at in [node + 8, entry + 14] {
        b[at..at + 8].copy_from_slice(&start.to_be_bytes());
    }
    all_of(&check(&b, &t), "IDX-NODE-002", node as u64);
}

#[test]
fn stale_rules() {
    let t = trace();
    let idx = index(&t);
    let mut longer = t.clone();
    longer.push(0);
    only(&check(&idx, &longer), "IDX-STALE-001", t.len() as u64 + 1);
    let mut b = t.clone();
    b[100] ^= 1;
    only(&check(&idx, &b), "IDX-STALE-002", 0);
    let (table, _) = ptr(&idx, LEAF_TABLE);
    let third = table + 4 + 2 * 48;
    let range = be_i64(&idx, third) as usize;
    let mut b = t.clone();
    b[range + 100] ^= 1;
    only(&check(&idx, &b), "IDX-STALE-003", range as u64);
}

#[test]
fn trace_rules() {
    let t = trace();
    let idx = index(&t);
    // check_bytes has no trace: header checked, IDX-TRACE-001 reported.
    only(&check_bytes(&idx, &Options::default()), "IDX-TRACE-001", 0);
    // A missing trace file.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("gone.clog2.idx");
    std::fs::write(&p, &idx).unwrap();
    let r = check_path(&p, &Options::default()).unwrap();
    only(&r, "IDX-TRACE-001", 0);
    assert!(r.findings[0].message.contains("gone.clog2"), "{r:#?}");
    // Next to its trace, it passes.
    std::fs::write(dir.path().join("gone.clog2"), &t).unwrap();
    assert!(check_path(&p, &Options::default())
        .unwrap()
        .findings
        .is_empty());
    // The first record of leaf 0 gets an unknown type, and the leaf's checksum
    // is made to match: the trace itself is bad.
    let mut b = t.clone();
    b[1024 + 20..1024 + 24].copy_from_slice(&999i32.to_be_bytes());
    let (table, _) = ptr(&idx, LEAF_TABLE);
    let first = table + 4;
    let len = be_u32(&idx, first + 8) as usize;
    let mut i2 = idx.clone();
    i2[first + 32..first + 36].copy_from_slice(&crc32(&b[1024..1024 + len]).to_be_bytes());
    only(&check(&i2, &b), "IDX-TRACE-002", 1024);
}

/// Runs last (alphabetically after the others in one thread is not guaranteed,
/// so it runs the others itself).
#[test]
fn zz_every_rule_has_a_test() {
    header_rules();
    block_rules();
    leaf_rules();
    node_rules();
    stale_rules();
    trace_rules();
    let tested = TESTED.lock().unwrap().clone();
    for r in RULES {
        assert!(tested.contains(r.id), "no test breaks {}", r.id);
    }
}

/// Each problem the annotation crate reports has its own rule of the
/// annotation table, and exactly the trace's changes are `IDX-STALE-*` rules.
#[test]
fn every_annotation_problem_has_its_own_rule() {
    use mpelog_annotate::error::Problem;
    use mpelog_conformance::check::annotation::{rule, RULES};
    let mut ids = std::collections::BTreeSet::new();
    for &p in Problem::ALL {
        let r = rule(p);
        assert!(RULES.contains(&r), "{p:?}");
        assert!(
            ids.insert(r.id),
            "{p:?}: rule {} is another problem's",
            r.id
        );
        assert_eq!(p.is_stale(), r.id.starts_with("IDX-STALE-"), "{p:?}");
    }
    assert_eq!(ids.len(), Problem::ALL.len());
}
