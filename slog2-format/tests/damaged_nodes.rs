//! Damaged plain SLOG-2 (issue 13): a single changed byte inside a node block of a
//! generated file never makes a window query return a drawable whose category,
//! line IDs or times the file cannot vouch for. Each query either fails (with a
//! byte offset) or answers with valid drawables only, strict or lenient.

mod common;

use proptest::prelude::*;
use slog2_format::window::WindowAnswer;
use slog2_format::*;
use std::collections::{HashMap, HashSet};
use std::io::Cursor;

/// A few generated plain files (ranks, events, leaf bytes, children).
fn files() -> Vec<Vec<u8>> {
    [
        (2u32, 600u64, 1024u32, 2u16, 1u64),
        (4, 1500, 2048, 3, 2),
        (3, 300, 65536, 2, 3),
    ]
    .iter()
    .map(|&(ranks, events, leaf_bytes, children, seed)| {
        common::generated(ranks, events, leaf_bytes, children, seed)
    })
    .collect()
}

/// What a file can vouch for: its categories, the line IDs of every map, each
/// node's box.
struct Oracle {
    categories: HashSet<i32>,
    maps: Vec<HashSet<i32>>,
    boxes: HashMap<NodeId, (f64, f64)>,
}

impl Oracle {
    fn of(bytes: &[u8]) -> Oracle {
        let r = Slog2Reader::new(Cursor::new(bytes)).unwrap();
        Oracle {
            categories: r
                .categories()
                .unwrap()
                .value
                .categories
                .iter()
                .map(|c| c.index)
                .collect(),
            maps: r
                .line_id_maps()
                .unwrap()
                .value
                .maps
                .iter()
                .map(|m| m.rows.iter().map(|r| r.line_id).collect())
                .collect(),
            boxes: r
                .tree_dir()
                .unwrap()
                .value
                .entries
                .iter()
                .map(|e| (e.id, (e.earliest, e.latest)))
                .collect(),
        }
    }

    /// Why an answer's drawable is not valid for the file, if it is not.
    fn invalid(&self, a: &WindowAnswer) -> Option<String> {
        for d in &a.drawables {
            let Some(&(e, l)) = self.boxes.get(&d.node) else {
                return Some(format!("node {:?} is not in the TreeDir", d.node));
            };
            let (cat, prims): (i32, Vec<&Primitive>) = match &d.value {
                Drawable::Primitive(p) => (p.category, vec![p]),
                Drawable::Composite(c) => (c.category, c.primitives.iter().collect()),
            };
            if !self.categories.contains(&cat) || prims.is_empty() {
                return Some(format!("category {cat} or no parts: {d:?}"));
            }
            for p in prims {
                if !self.categories.contains(&p.category) || p.vertices.is_empty() {
                    return Some(format!("part category {} or no vertices", p.category));
                }
                for v in &p.vertices {
                    if !self.maps.iter().all(|m| m.contains(&v.line_id)) {
                        return Some(format!("line ID {} in {:?}", v.line_id, d.node));
                    }
                    if !(v.time >= e && v.time <= l) {
                        return Some(format!(
                            "time {:?} outside [{e:?}, {l:?}] of {:?}",
                            v.time, d.node
                        ));
                    }
                }
            }
        }
        for s in &a.shadows {
            if !(s.value.category < 0 && self.categories.contains(&s.value.category)) {
                return Some(format!("shadow category {}", s.value.category));
            }
        }
        None
    }
}

fn queries(bytes: &[u8]) -> Vec<(f64, f64, Option<u32>)> {
    let root = common::root_entry(bytes);
    let (t0, t1) = (root.earliest, root.latest);
    let w = t1 - t0;
    vec![
        (f64::NEG_INFINITY, f64::INFINITY, None),
        (t0 + w * 0.3, t0 + w * 0.45, None),
        (t0, t1, Some(40)),
    ]
}

fn run(bytes: &[u8], v: Validation, q: (f64, f64, Option<u32>)) -> Result<WindowAnswer> {
    let mut r = Slog2Reader::new(Cursor::new(bytes))?;
    r.set_validation(v);
    match q.2 {
        None => r.window(q.0, q.1),
        Some(p) => r.window_preview(q.0, q.1, p),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// A random single-byte change inside a node block: every query errs with an
    /// offset or answers with drawables valid for the file.
    #[test]
    fn a_changed_node_byte_gives_an_error_or_valid_drawables(
        which in 0usize..3,
        block in any::<prop::sample::Index>(),
        at in any::<prop::sample::Index>(),
        xor in 1u8..=255,
    ) {
        thread_local!(static FILES: Vec<Vec<u8>> = files());
        let orig = FILES.with(|f| f[which].clone());
        let blocks = common::node_blocks(&orig);
        let (off, size) = blocks[block.index(blocks.len())];
        let mut bytes = orig.clone();
        bytes[off + at.index(size)] ^= xor;
        let oracle = Oracle::of(&bytes);
        for q in queries(&orig) {
            for v in [Validation::Strict, Validation::Lenient] {
                match run(&bytes, v, q) {
                    Err(e) => prop_assert!(e.offset().is_some(), "{e}"),
                    Ok(a) => {
                        let bad = oracle.invalid(&a);
                        prop_assert!(bad.is_none(), "{v:?} {q:?}: {}", bad.unwrap());
                    }
                }
            }
        }
    }
}

/// The undamaged files answer the same strict, lenient and unchecked, and a
/// lenient reader drops nothing from them.
#[test]
fn clean_files_answer_alike_in_every_mode() {
    for bytes in files() {
        for q in queries(&bytes) {
            let strict = run(&bytes, Validation::Strict, q).unwrap();
            let lenient = run(&bytes, Validation::Lenient, q).unwrap();
            let off = run(&bytes, Validation::Off, q).unwrap();
            // Debug text: preview weights may hold NaN ratios.
            assert_eq!(format!("{strict:?}"), format!("{lenient:?}"));
            assert_eq!(format!("{strict:?}"), format!("{off:?}"));
            assert!(Oracle::of(&bytes).invalid(&strict).is_none());
        }
        let mut r = Slog2Reader::new(Cursor::new(&bytes[..])).unwrap();
        r.set_lenient(true);
        r.window(f64::NEG_INFINITY, f64::INFINITY).unwrap();
        assert_eq!(r.dropped(), Dropped::default());
    }
}

/// The example: a line ID the maps do not hold (65283 in a 4-rank trace).
/// Strict: an error at the drawable, typed; lenient: the drawable is dropped and
/// counted; unchecked: it comes back as it is.
#[test]
fn an_unknown_line_id_is_an_error_or_dropped_and_counted() {
    let bytes = &files()[1];
    let leaf = Slog2Reader::new(Cursor::new(&bytes[..]))
        .unwrap()
        .tree_dir()
        .unwrap()
        .value
        .entries
        .iter()
        .find(|e| e.id.depth == 0)
        .copied()
        .unwrap();
    // The first drawable of the leaf's nestless list, or else of its nestable list.
    let mut r = Slog2Reader::new(Cursor::new(&bytes[..])).unwrap();
    let node = r.read_node(leaf.ptr).unwrap().value;
    let base = leaf.ptr.offset as u64;
    let (at, d) = match node.nestless.first() {
        Some(d) => (base + 38, d.clone()),
        None => (base + 42, node.nestable[0].clone()),
    };
    let Drawable::Primitive(p) = d else {
        panic!("expected a primitive first")
    };
    // tag, category, info, vertex count; the first vertex's line ID after its time.
    let line_at = at + 1 + 4 + p.info.disk_len() as u64 + 2 + 8;
    let mut b = bytes.clone();
    b[line_at as usize..line_at as usize + 4].copy_from_slice(&65283i32.to_be_bytes());
    let mut r = Slog2Reader::new(Cursor::new(&b[..])).unwrap();
    match r.window(f64::NEG_INFINITY, f64::INFINITY) {
        Err(Error::BadDrawable {
            offset,
            node: n,
            problem,
            ..
        }) => {
            assert_eq!(offset, at + 1);
            assert_eq!(n, leaf.id);
            assert_eq!(problem, error::DrawableProblem::UnknownLineId(65283));
        }
        other => panic!("{other:?}"),
    }
    // The same through read_node (print, info, convert).
    let mut r = Slog2Reader::new(Cursor::new(&b[..])).unwrap();
    assert!(matches!(
        r.read_node(leaf.ptr),
        Err(Error::BadDrawable { offset, .. }) if offset == at + 1
    ));
    let mut r = Slog2Reader::new(Cursor::new(&b[..])).unwrap();
    r.set_lenient(true);
    let a = r.window(f64::NEG_INFINITY, f64::INFINITY).unwrap();
    assert_eq!(
        r.dropped(),
        Dropped {
            drawables: 1,
            shadows: 0
        }
    );
    assert!(Oracle::of(&b).invalid(&a).is_none());
    let full = run(
        bytes,
        Validation::Strict,
        (f64::NEG_INFINITY, f64::INFINITY, None),
    )
    .unwrap();
    assert_eq!(a.drawables.len() + 1, full.drawables.len());
    let mut r = Slog2Reader::new(Cursor::new(&b[..])).unwrap();
    r.set_validation(Validation::Off);
    let raw = r.window(f64::NEG_INFINITY, f64::INFINITY).unwrap();
    assert!(Oracle::of(&b).invalid(&raw).is_some());
    // check names the same offset under S2-LID-001.
    let f = check::check(Cursor::new(&b[..]), 100);
    assert!(
        f.iter()
            .any(|f| f.problem == slog2_format::check::Problem::UnknownLineId && f.offset == at + 1),
        "{f:#?}"
    );
}

/// Every corpus SLOG-2 file without check errors answers the whole-file window
/// strictly, exactly as without checks; the files `check` finds errors in (the
/// six `historic/*_fromtxt`) are refused with an offset `check` names, and a
/// lenient reader answers them with valid drawables only.
#[test]
fn corpus_files_pass_strict_reading_unless_check_finds_errors() {
    let Some(dir) = mpelog_conformance::corpus::root() else {
        return;
    };
    let mut files: Vec<_> = ["mpe", "historic"]
        .iter()
        .flat_map(|d| std::fs::read_dir(dir.join(d)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "slog2"))
        .collect();
    files.sort();
    let (mut clean, mut refused) = (0, 0);
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let shown = path.display();
        let findings = check::check(Cursor::new(&bytes[..]), 1 << 20);
        let errors: Vec<_> = findings
            .iter()
            .filter(|f| f.problem.breaks_readers())
            .collect();
        let all = (f64::NEG_INFINITY, f64::INFINITY, None);
        let strict = run(&bytes, Validation::Strict, all);
        if errors.is_empty() {
            let strict = strict.unwrap_or_else(|e| panic!("{shown}: {e}"));
            let off = run(&bytes, Validation::Off, all).unwrap();
            assert_eq!(format!("{strict:?}"), format!("{off:?}"), "{shown}");
            clean += 1;
        } else {
            let e = strict.expect_err(&format!("{shown}: {errors:?}"));
            let at = e.offset().unwrap();
            assert!(errors.iter().any(|f| f.offset == at), "{shown}: {e}");
            let lenient = run(&bytes, Validation::Lenient, all).unwrap();
            assert!(Oracle::of(&bytes).invalid(&lenient).is_none(), "{shown}");
            refused += 1;
        }
    }
    assert!(
        clean >= 35 && refused == 6,
        "{clean} clean, {refused} refused"
    );
}
