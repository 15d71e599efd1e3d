//! Window queries against `check` on mutated plain SLOG-2 files (issue 13), and
//! the reproducers of the header and TreeDir cases of the issue.
//!
//! Differential property: whenever a strict window query succeeds, `check`
//! reports no error about the header, the TreeDir or a node the query read; where
//! both fail, `check` has an error at the offset the query names (full windows
//! and previews). Mutations: byte
//! flips anywhere, truncations, node blocks copied over other node blocks, and a
//! node block inserted twice (every later offset shifts).
//!
//! Allowed differences, by design: info buffers are not decoded by a query
//! (S2-INF-001/002, spec §14 #7–#8, are reported when values are decoded); the
//! pointer of a stub the query does not follow is not looked at; a stub that
//! leads to a block already read or of another depth is reported at that block's
//! pointer or depth field (spec/queries.md §2.2), where `check` reports the stub
//! (S2-TREE-002).

mod common;

use common::{generated, tiny};
use slog2_format::check::{check, Finding, Problem};
use slog2_format::error::PointerProblem;
use slog2_format::read::parse_header;
use slog2_format::*;
use std::collections::HashSet;
use std::io::Cursor;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn originals() -> Vec<Vec<u8>> {
    vec![
        tiny().0,
        generated(2, 400, 1024, 2, 11),
        generated(4, 900, 2048, 3, 12),
    ]
}

fn mutate(orig: &[u8], rng: &mut Rng) -> (String, Vec<u8>) {
    let mut b = orig.to_vec();
    let blocks = common::node_blocks(orig);
    match rng.below(8) {
        0..=4 => {
            let at = rng.below(b.len());
            let x = 1 + rng.below(255) as u8;
            b[at] ^= x;
            (format!("flip byte {at} ^ {x:#x}"), b)
        }
        5 => {
            let len = rng.below(b.len());
            b.truncate(len);
            (format!("truncate to {len}"), b)
        }
        6 => {
            let (a, asz) = blocks[rng.below(blocks.len())];
            let (t, tsz) = blocks[rng.below(blocks.len())];
            let n = asz.min(tsz);
            let src = orig[a..a + n].to_vec();
            b[t..t + n].copy_from_slice(&src);
            (
                format!("copy {n} bytes of the block at {a} over the block at {t}"),
                b,
            )
        }
        _ => {
            let (a, asz) = blocks[rng.below(blocks.len())];
            let src = orig[a..a + asz].to_vec();
            b.splice(a..a, src);
            (format!("insert the block at {a} ({asz} bytes) twice"), b)
        }
    }
}

fn i64_at(b: &[u8], at: u64) -> Option<i64> {
    let s = b.get(at as usize..at as usize + 8)?;
    Some(i64::from_be_bytes(s.try_into().unwrap()))
}

/// The blocks `[start, end)` a successful query read, by the TreeDir of the file.
fn read_ranges(bytes: &[u8], nodes: &[NodeId]) -> Vec<(u64, u64)> {
    let r = Slog2Reader::new(Cursor::new(bytes)).unwrap();
    let want: HashSet<NodeId> = nodes.iter().copied().collect();
    let mut v: Vec<(u64, u64)> = r
        .tree_dir()
        .map(|t| {
            t.value
                .entries
                .iter()
                .filter(|e| want.contains(&e.id))
                .map(|e| (e.ptr.offset as u64, e.ptr.offset as u64 + e.ptr.size as u64))
                .collect()
        })
        .unwrap_or_default();
    // The root as the header names it.
    let h = parse_header(bytes).unwrap().0;
    v.push((
        h.treeroot.offset as u64,
        h.treeroot.offset as u64 + h.treeroot.size.max(0) as u64,
    ));
    v
}

/// The errors of `findings` that concern the header, the TreeDir or a block in
/// `read`, less the allowed differences (see the module comment).
fn concerning<'a>(bytes: &[u8], findings: &'a [Finding], nodes: &[NodeId]) -> Vec<&'a Finding> {
    let (h, _, header_len) = parse_header(bytes).unwrap();
    let read = read_ranges(bytes, nodes);
    let starts: HashSet<i64> = read.iter().map(|r| r.0 as i64).collect();
    let dir = (
        h.treedir.offset.max(0) as u64,
        h.treedir.offset.max(0) as u64 + h.treedir.size.max(0) as u64,
    );
    findings
        .iter()
        .filter(|f| f.problem.breaks_readers())
        .filter(|f| {
            !matches!(
                f.problem,
                Problem::ShortInfo | Problem::BadFormat | Problem::InfoMismatch
            )
        })
        .filter(|f| {
            // A stub pointer the query did not follow.
            !(f.problem == Problem::BadStub
                && i64_at(bytes, f.offset).is_some_and(|p| !starts.contains(&p)))
        })
        .filter(|f| {
            f.offset < header_len
                || (!h.treedir.is_null() && f.offset >= dir.0 && f.offset < dir.1)
                || f.node.is_some_and(|n| nodes.contains(&n))
                || read.iter().any(|r| f.offset >= r.0 && f.offset < r.1)
        })
        .collect()
}

/// Queries: `(start, end, pixels)`, a preview when pixels are given.
fn windows(orig: &[u8]) -> Vec<(f64, f64, Option<u32>)> {
    let root = common::root_entry(orig);
    let (t0, w) = (root.earliest, root.latest - root.earliest);
    vec![
        (f64::NEG_INFINITY, f64::INFINITY, None),
        (t0 + 0.4 * w, t0 + 0.5 * w, None),
        (t0, t0 + w, Some(30)),
    ]
}

#[test]
fn a_window_that_succeeds_has_a_clean_check_and_both_failures_name_one_offset() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut ok, mut both, mut only_window) = (0, 0, 0);
    for orig in originals() {
        assert!(check(Cursor::new(&orig[..]), 10).is_empty());
        let qs = windows(&orig);
        for _ in 0..2000 {
            let (how, b) = mutate(&orig, &mut rng);
            let findings = check(Cursor::new(&b[..]), 1 << 20);
            let errors: Vec<&Finding> = findings
                .iter()
                .filter(|f| f.problem.breaks_readers())
                .collect();
            for &(t0, t1, pixels) in &qs {
                let w = Slog2Reader::new(Cursor::new(&b[..])).and_then(|mut r| match pixels {
                    None => r.window(t0, t1),
                    Some(p) => r.window_preview(t0, t1, p),
                });
                match w {
                    Ok(a) => {
                        ok += 1;
                        let bad = concerning(&b, &findings, &a.nodes);
                        assert!(
                            bad.is_empty(),
                            "{how}: window [{t0}, {t1}) / {pixels:?} read {:?}, check: {bad:#?}",
                            a.nodes
                        );
                    }
                    Err(e) if errors.is_empty() => {
                        only_window += 1;
                        assert!(e.offset().is_some(), "{how}: {e}");
                    }
                    Err(e) => {
                        both += 1;
                        let at = e.offset().expect("an offset");
                        let same = errors.iter().any(|f| f.offset == at)
                            || matches!(e, Error::BadValue { .. } | Error::BadTag { .. })
                                && errors.iter().any(|f| {
                                    f.problem == Problem::BadStub
                                        && i64_at(&b, f.offset)
                                            .is_some_and(|p| p as u64 == at || p as u64 + 16 == at)
                                });
                        assert!(same, "{how}: window: {e}; check: {errors:#?}");
                    }
                }
            }
        }
    }
    eprintln!("{ok} answers, {both} failures of both, {only_window} of the window alone");
    assert!(ok > 100 && both > 100, "{ok} {both}");
}

// ---------------------------------------------------------------------------------
// Reproducers of the header and TreeDir cases of issue 13.

fn open_err(b: &[u8]) -> Error {
    Slog2Reader::new(Cursor::new(b)).unwrap_err()
}

fn only_error(b: &[u8]) -> Finding {
    let f: Vec<Finding> = check(Cursor::new(b), 10)
        .into_iter()
        .filter(|f| f.problem.breaks_readers())
        .collect();
    assert_eq!(f.len(), 1, "{f:#?}");
    f[0].clone()
}

fn set_ptr(b: &mut [u8], at: usize, offset: i64, size: i32) {
    b[at..at + 8].copy_from_slice(&offset.to_be_bytes());
    b[at + 8..at + 12].copy_from_slice(&size.to_be_bytes());
}

fn pointer(e: &Error) -> (u64, PointerProblem) {
    match e {
        Error::BadPointer { offset, kind, .. } => (*offset, *kind),
        other => panic!("{other:?}"),
    }
}

/// A TreeDir entry whose pointer is NULL, past the end of the file or larger than
/// max_buffer_bytesize is refused at open (so by `window`), at the entry's pointer
/// field, and `check` reports it there.
#[test]
fn bad_tree_dir_entry_pointers_are_refused_at_open_at_their_field() {
    let (orig, [node_at, .., dir_at]) = tiny();
    let field = dir_at as usize + 4 + 22;
    let len = orig.len() as i64;
    for (offset, size, kind, rule) in [
        (0, 0, PointerProblem::Null, Problem::NullPointer),
        (
            len - 10,
            100,
            PointerProblem::OutsideFile,
            Problem::OutsideFile,
        ),
        (
            node_at as i64,
            1 << 20,
            PointerProblem::OutsideFile,
            Problem::OutsideFile,
        ),
        (
            node_at as i64,
            150,
            PointerProblem::TooLarge,
            Problem::BlockTooLarge,
        ),
    ] {
        let mut b = orig.clone();
        set_ptr(&mut b, field, offset, size);
        let e = open_err(&b);
        assert_eq!(pointer(&e), (field as u64, kind), "{e}");
        let f = only_error(&b);
        assert_eq!((f.problem, f.offset), (rule, field as u64), "{f:?}");
    }
}

/// Header pointers are reported at their own fields (24, 48, 60, 72), in offset
/// order: with two bad pointers the earlier one is reported, by the reader and by
/// `check`.
#[test]
fn header_pointers_are_checked_in_offset_order_at_their_fields() {
    let orig = tiny().0;
    let len = orig.len() as i64;
    for field in [24usize, 48, 60, 72] {
        let mut b = orig.clone();
        set_ptr(&mut b, field, len + 5, 10);
        assert_eq!(
            pointer(&open_err(&b)),
            (field as u64, PointerProblem::OutsideFile)
        );
        let f = only_error(&b);
        assert_eq!(
            (f.problem, f.offset),
            (Problem::OutsideFile, field as u64),
            "{f:?}"
        );
        // max_buffer_bytesize is 150 in the tiny file... any size above it.
        let mut b = orig.clone();
        set_ptr(&mut b, field, 108, i32::MAX);
        let e = open_err(&b);
        assert_eq!(e.offset(), Some(field as u64), "{e}");
    }
    // The categories pointer and the TreeDir pointer both bad: 24 is reported.
    let mut b = orig.clone();
    set_ptr(&mut b, 72, len + 5, 10);
    set_ptr(&mut b, 24, len + 7, 10);
    assert_eq!(pointer(&open_err(&b)).0, 24);
    assert_eq!(only_error(&b).offset, 24);
}

/// A treeroot past the end of the file fails at open (so `info`, `print` and
/// `window` fail), and `check` reports S2-HDR-007 at 60.
#[test]
fn a_tree_root_past_the_end_is_refused_at_open() {
    let (orig, [node_at, ..]) = tiny();
    let mut b = orig.clone();
    set_ptr(&mut b, 60, node_at as i64 + 1_000_000, 50);
    assert_eq!(pointer(&open_err(&b)), (60, PointerProblem::OutsideFile));
    let f = check(Cursor::new(&b[..]), 10);
    assert!(
        f.iter()
            .any(|f| f.problem == Problem::OutsideFile && f.offset == 60),
        "{f:#?}"
    );
    assert!(Slog2File::parse(&b).is_err());
}

/// The lenient option keeps the structural checks: a drawable is dropped, a bad
/// pointer is still an error.
#[test]
fn lenient_readers_still_refuse_bad_pointers() {
    let orig = tiny().0;
    let mut b = orig.clone();
    set_ptr(&mut b, 60, 0, 0);
    let mut r = Slog2Reader::new(Cursor::new(&b[..])).unwrap();
    r.set_lenient(true);
    let e = r.window(f64::NEG_INFINITY, f64::INFINITY).unwrap_err();
    assert_eq!(pointer(&e), (60, PointerProblem::Null));
}

/// A TreeDir entry pointer moved into another node's block (found by the
/// differential test): `check` reads garbage there; a window that never reads that
/// node still refuses the file, at the entry's pointer field, where `check`
/// reports S2-DIR-003.
#[test]
fn a_tree_dir_pointer_into_another_block_is_refused() {
    let orig = generated(2, 400, 1024, 2, 11);
    let r = Slog2Reader::new(Cursor::new(&orig[..])).unwrap();
    let h = r.header().clone();
    let entries = r.tree_dir().unwrap().value.entries.clone();
    let (i, last) = entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.id.depth == 0)
        .max_by_key(|(_, e)| e.id.xpos)
        .unwrap();
    let first = entries
        .iter()
        .find(|e| e.id == NodeId { depth: 0, xpos: 0 })
        .unwrap();
    let field = h.treedir.offset as usize + 4 + 34 * i + 22;
    let mut b = orig.clone();
    set_ptr(
        &mut b,
        field,
        first.ptr.offset + 10,
        last.ptr.size.min(first.ptr.size - 10),
    );
    let mut r = Slog2Reader::new(Cursor::new(&b[..])).unwrap();
    let e = r.window(first.earliest, first.earliest).unwrap_err();
    match e {
        Error::BadTree {
            offset, problem, ..
        } => {
            assert_eq!(offset, field as u64);
            assert_eq!(problem.problem(), Problem::DirMismatch);
        }
        other => panic!("{other:?}"),
    }
    let f = check(Cursor::new(&b[..]), 10);
    assert!(
        f.iter()
            .any(|f| f.problem == Problem::DirMismatch && f.offset == field as u64),
        "{f:#?}"
    );
}
