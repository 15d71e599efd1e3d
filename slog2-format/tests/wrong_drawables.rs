//! The drawable checks a reader makes on each node it decodes (spec/slog2.md §14
//! #9–#12, `validate.rs`), one damage at a time at every position of a node that
//! has every kind of list: nestless primitives and a composite, nestable states,
//! and two stubs with nestless and nestable shadows.
//!
//! Strict: the error names the problem, the node and the offset, which the test
//! finds by serializing the node cut just before the damaged item (not by adding
//! up sizes as the reader does). Lenient: exactly the damaged item is gone and
//! counted. Off: the node comes back as it was written.

mod common;

use common::{bytes_of, category, one_node_file};
use slog2_format::error::{DrawableProblem, Drawn};
use slog2_format::*;
use std::io::Cursor;

/// The node's time box.
const E: f64 = 1.0;
const L: f64 = 2.0;

/// The next `f64` below a positive `x`.
fn just_below(x: f64) -> f64 {
    f64::from_bits(x.to_bits() - 1)
}

/// The next `f64` above a positive `x`.
fn just_above(x: f64) -> f64 {
    f64::from_bits(x.to_bits() + 1)
}

fn coord(time: f64, line_id: i32) -> Coord {
    Coord { time, line_id }
}

fn prim(category: i32, info: &[u8], vertices: &[(f64, i32)]) -> Primitive {
    Primitive {
        category,
        info: JStr {
            len: info.len() as i16,
            bytes: info.to_vec(),
        },
        vertices: vertices.iter().map(|&(t, l)| coord(t, l)).collect(),
    }
}

fn state(t0: f64, t1: f64, line: i32) -> Drawable {
    Drawable::Primitive(prim(5, &[], &[(t0, line), (t1, line)]))
}

fn arrow(t0: f64, l0: i32, t1: f64, l1: i32) -> Drawable {
    Drawable::Primitive(prim(0, &[0, 0, 0, 7, 0, 0, 0, 4], &[(t0, l0), (t1, l1)]))
}

fn shadow(
    category: i32,
    t0: f64,
    t1: f64,
    lines: (i32, i32),
    weights: &[i32],
    v206: bool,
) -> Shadow {
    Shadow {
        category,
        info: JStr::default(),
        vertices: vec![coord(t0, lines.0), coord(t1, lines.1)],
        earliest: t0,
        latest: t1,
        num_real_objs: 3,
        weights: weights
            .iter()
            .map(|&c| CategoryWeight {
                category: c,
                incl: 0.5,
                excl: 0.25,
                count: v206.then_some(2),
            })
            .collect(),
    }
}

fn stub(t0: f64, t1: f64, nestless: Vec<Shadow>, nestable: Vec<Shadow>) -> Stub {
    Stub {
        header: NodeHeader {
            earliest: t0,
            latest: t1,
            id: NodeId { depth: 0, xpos: 0 },
            ptr: FileBlockPtr::NULL,
        },
        nestless,
        nestable,
    }
}

/// Categories 0 (arrow), 5 (state), 7 (composite), 9 (unused); previews -1 and -2.
/// Version 2.0.5 has no summaries.
fn categories(v206: bool) -> CategoryMap {
    let mut map = CategoryMap {
        categories: vec![
            category(-2, "message preview", 2, &[], b""),
            category(-1, "state preview", 1, &[], b""),
            category(0, "message", 2, &["msg_tag=", ", msg_size=", ""], b"dd"),
            category(5, "Compute", 1, &[], b""),
            category(7, "Collective", 1, &[], b""),
            category(9, "Unused", 0, &[], b""),
        ],
    };
    if !v206 {
        map.categories.iter_mut().for_each(|c| c.summary = None);
    }
    map
}

fn map(title: &str, ids: &[i32]) -> LineIdMap {
    LineIdMap {
        title: JStr::new(title),
        ncols: 1,
        labels: vec![JStr::new("LineID")],
        rows: ids
            .iter()
            .map(|&line_id| LineIdRow {
                line_id,
                values: vec![line_id],
            })
            .collect(),
        methods: vec![],
    }
}

/// Two maps: line IDs 0–2 are in both, 3 only in the second and 4 only in the
/// first, so neither is known.
fn maps() -> LineIdMapList {
    LineIdMapList {
        maps: vec![map("one", &[4, 0, 1, 2]), map("two", &[0, 1, 2, 3])],
    }
}

/// A valid node, each list in start order (earliest ascending, latest
/// descending, then category and end lines) with ties of every kind.
fn node(v206: bool) -> TreeNodeBody {
    let composite = Drawable::Composite(Composite {
        category: 7,
        info: JStr::default(),
        primitives: vec![
            prim(0, &[], &[(1.2, 2), (1.3, 0)]),
            prim(5, &[1, 2, 3], &[(1.1, 2), (1.6, 2)]),
        ],
    });
    TreeNodeBody {
        header: NodeHeader {
            earliest: E,
            latest: L,
            id: NodeId { depth: 0, xpos: 0 },
            ptr: FileBlockPtr::NULL,
        },
        nestless: vec![
            arrow(E, 0, 1.25, 1),
            // The same box as the composite, category 0 before 7.
            arrow(1.1, 1, 1.6, 0),
            composite,
            arrow(1.5, 1, L, 2),
        ],
        nestable: vec![
            state(E, L, 0),
            state(1.2, 1.8, 1),
            state(1.2, 1.5, 1),
            state(1.2, 1.5, 2),
            // The same key as the one before: not out of order.
            state(1.2, 1.5, 2),
        ],
        stubs: vec![
            stub(
                E,
                1.5,
                vec![
                    shadow(-2, E, 1.4, (0, 1), &[0], v206),
                    shadow(-2, 1.1, 1.3, (1, 0), &[0, 0], v206),
                ],
                vec![
                    shadow(-1, E, 1.5, (0, 0), &[5, 7], v206),
                    shadow(-1, 1.1, 1.2, (1, 1), &[5], v206),
                    shadow(-1, 1.1, 1.2, (2, 2), &[7], v206),
                ],
            ),
            stub(
                1.5,
                L,
                vec![shadow(-2, 1.5, L, (2, 1), &[0], v206)],
                vec![
                    shadow(-1, 1.5, L, (0, 0), &[5], v206),
                    shadow(-1, 1.6, L, (0, 0), &[7, 5], v206),
                ],
            ),
        ],
    }
}

/// An item of the node: a drawable (list 0 nestless, 1 nestable; index) or a
/// shadow (stub; list; index).
#[derive(Debug, Clone, Copy)]
enum Pos {
    Drawable(usize, usize),
    Shadow(usize, usize, usize),
}

fn positions(n: &TreeNodeBody) -> Vec<Pos> {
    let mut out = Vec::new();
    for (li, list) in [&n.nestless, &n.nestable].into_iter().enumerate() {
        out.extend((0..list.len()).map(|i| Pos::Drawable(li, i)));
    }
    for (s, st) in n.stubs.iter().enumerate() {
        for (li, list) in [&st.nestless, &st.nestable].into_iter().enumerate() {
            out.extend((0..list.len()).map(|i| Pos::Shadow(s, li, i)));
        }
    }
    out
}

fn drawables(n: &mut TreeNodeBody, list: usize) -> &mut Vec<Drawable> {
    if list == 0 {
        &mut n.nestless
    } else {
        &mut n.nestable
    }
}

fn shadows(n: &mut TreeNodeBody, s: usize, list: usize) -> &mut Vec<Shadow> {
    if list == 0 {
        &mut n.stubs[s].nestless
    } else {
        &mut n.stubs[s].nestable
    }
}

/// Where the item starts in the node's block: the length of the node written
/// up to it, less the counts written after the cut.
fn offset_in_node(n: &TreeNodeBody, pos: Pos) -> u64 {
    let mut cut = n.clone();
    let after = match pos {
        Pos::Drawable(list, i) => {
            cut.stubs.clear();
            drawables(&mut cut, list).truncate(i);
            if list == 0 {
                cut.nestable.clear();
                8
            } else {
                4
            }
        }
        Pos::Shadow(s, list, i) => {
            cut.stubs.truncate(s + 1);
            shadows(&mut cut, s, list).truncate(i);
            if list == 0 {
                cut.stubs[s].nestable.clear();
                4
            } else {
                0
            }
        }
    };
    bytes_of(&cut).len() as u64 - after
}

fn file(n: &TreeNodeBody, v206: bool) -> (Vec<u8>, u64) {
    let version = if v206 { "SLOG 2.0.6" } else { "SLOG 2.0.5" };
    let (bytes, [node_at, ..]) = one_node_file(n.clone(), &categories(v206), &maps(), version);
    (bytes, node_at)
}

fn reader(bytes: &[u8], v: Validation) -> Slog2Reader<Cursor<&[u8]>> {
    let mut r = Slog2Reader::new(Cursor::new(bytes)).unwrap();
    r.set_validation(v);
    r
}

fn read(bytes: &[u8], v: Validation) -> Result<(TreeNodeBody, Dropped)> {
    let mut r = reader(bytes, v);
    let root = r.header().treeroot;
    let n = r.read_node(root)?.value;
    Ok((n, r.dropped()))
}

/// The lists of a node (not its header, whose pointer the file sets).
fn lists(n: &TreeNodeBody) -> String {
    format!("{:?} {:?} {:?}", n.nestless, n.nestable, n.stubs)
}

fn strict_error(bytes: &[u8]) -> (u64, NodeId, DrawableProblem) {
    match read(bytes, Validation::Strict) {
        Err(Error::BadDrawable {
            offset,
            node,
            problem,
            ..
        }) => (offset, node, problem),
        other => panic!("expected a BadDrawable error, got {other:?}"),
    }
}

/// One damage to one item: strict names it, lenient drops exactly it, off keeps it.
fn expect_damage(n: &TreeNodeBody, pos: Pos, problem: DrawableProblem, v206: bool) {
    let (bytes, node_at) = file(n, v206);
    let delta = match problem {
        DrawableProblem::UnknownCategory(_) | DrawableProblem::UnknownLineId(_) => 1,
        _ => 0,
    };
    let want = node_at + offset_in_node(n, pos) + delta;
    let what = format!("{pos:?} {problem:?} v206={v206}");
    assert_eq!(strict_error(&bytes), (want, n.header.id, problem), "{what}");
    if n.stubs.is_empty() {
        // A window query meets the same leaf and names the same place.
        let mut r = reader(&bytes, Validation::Strict);
        match r.window(f64::NEG_INFINITY, f64::INFINITY) {
            Err(Error::BadDrawable {
                offset, problem: p, ..
            }) => assert_eq!((offset, p), (want, problem), "{what}: window"),
            other => panic!("{what}: window gave {other:?}"),
        }
    }
    let (lenient, dropped) = read(&bytes, Validation::Lenient).unwrap();
    let mut kept = n.clone();
    let dropped_want = match pos {
        Pos::Drawable(list, i) => {
            drawables(&mut kept, list).remove(i);
            Dropped {
                drawables: 1,
                shadows: 0,
            }
        }
        Pos::Shadow(s, list, i) => {
            shadows(&mut kept, s, list).remove(i);
            Dropped {
                drawables: 0,
                shadows: 1,
            }
        }
    };
    assert_eq!(lists(&lenient), lists(&kept), "{what}: lenient");
    assert_eq!(dropped, dropped_want, "{what}: lenient count");
    let (off, dropped) = read(&bytes, Validation::Off).unwrap();
    assert_eq!(lists(&off), lists(n), "{what}: off");
    assert_eq!(dropped, Dropped::default(), "{what}: off count");
}

/// The damages of a primitive: what to change and the problem it is.
#[allow(clippy::type_complexity)]
fn primitive_damages() -> Vec<(fn(&mut Primitive), DrawableProblem)> {
    vec![
        (|p| p.category = 99, DrawableProblem::UnknownCategory(99)),
        (|p| p.category = 10, DrawableProblem::UnknownCategory(10)),
        (
            |p| p.vertices[0].line_id = 3,
            DrawableProblem::UnknownLineId(3),
        ),
        (
            |p| p.vertices[1].line_id = 4,
            DrawableProblem::UnknownLineId(4),
        ),
        (
            |p| p.vertices[1].line_id = -1,
            DrawableProblem::UnknownLineId(-1),
        ),
        (
            |p| p.vertices[0].time = just_below(E),
            DrawableProblem::OutsideNode {
                earliest: E,
                latest: L,
            },
        ),
        (
            |p| p.vertices[1].time = just_above(L),
            DrawableProblem::OutsideNode {
                earliest: E,
                latest: L,
            },
        ),
        (
            |p| p.vertices[1].time = f64::NAN,
            DrawableProblem::OutsideNode {
                earliest: E,
                latest: L,
            },
        ),
        (|p| p.vertices.clear(), DrawableProblem::Empty),
    ]
}

#[test]
fn the_undamaged_node_reads_alike_in_every_mode() {
    for v206 in [true, false] {
        let n = node(v206);
        let (bytes, _) = file(&n, v206);
        for v in [Validation::Strict, Validation::Lenient, Validation::Off] {
            let (got, dropped) = read(&bytes, v).unwrap();
            assert_eq!(lists(&got), lists(&n), "{v:?}");
            assert_eq!(dropped, Dropped::default(), "{v:?}");
        }
        // Every vertex on the box's edges is inside it.
        assert_eq!(n.nestable[0].earliest(), E);
        assert_eq!(n.nestable[0].latest(), L);
    }
}

#[test]
fn each_damaged_drawable_is_named_at_its_offset_dropped_or_kept() {
    let mut leaf = node(true);
    leaf.stubs.clear();
    for base in [node(true), leaf] {
        for pos in positions(&base) {
            let Pos::Drawable(list, i) = pos else {
                continue;
            };
            for (damage, problem) in primitive_damages() {
                let mut n = base.clone();
                match &mut drawables(&mut n, list)[i] {
                    Drawable::Primitive(p) => damage(p),
                    // A part's problem is reported at the composite.
                    Drawable::Composite(c) => damage(&mut c.primitives[1]),
                }
                expect_damage(&n, pos, problem, true);
            }
        }
    }
}

#[test]
fn a_damaged_composite_is_named_at_its_offset() {
    let base = node(true);
    let pos = Pos::Drawable(0, 2);
    #[allow(clippy::type_complexity)]
    let damages: Vec<(fn(&mut Composite), DrawableProblem)> = vec![
        (|c| c.category = 99, DrawableProblem::UnknownCategory(99)),
        (
            |c| c.primitives[0].category = 98,
            DrawableProblem::UnknownCategory(98),
        ),
        (|c| c.primitives.clear(), DrawableProblem::Empty),
        (|c| c.primitives[0].vertices.clear(), DrawableProblem::Empty),
        (
            |c| c.primitives[0].vertices[1].line_id = 3,
            DrawableProblem::UnknownLineId(3),
        ),
        (
            |c| c.primitives[0].vertices[0].time = just_above(L),
            DrawableProblem::OutsideNode {
                earliest: E,
                latest: L,
            },
        ),
    ];
    let mut leaf = base.clone();
    leaf.stubs.clear();
    for (damage, problem) in damages {
        for base in [&base, &leaf] {
            let mut n = base.clone();
            let Drawable::Composite(c) = &mut n.nestless[2] else {
                panic!("the third nestless drawable is the composite")
            };
            damage(c);
            expect_damage(&n, pos, problem, true);
        }
    }
}

#[test]
fn each_damaged_shadow_is_named_at_its_offset_dropped_or_kept() {
    #[allow(clippy::type_complexity)]
    let damages: Vec<(fn(&mut Shadow), DrawableProblem)> = vec![
        (|s| s.category = 5, DrawableProblem::ShadowCategory(5)),
        (|s| s.category = -7, DrawableProblem::ShadowCategory(-7)),
        (|s| s.weights.clear(), DrawableProblem::NoWeights),
        (
            |s| {
                s.weights.push(CategoryWeight {
                    category: 99,
                    incl: 0.0,
                    excl: 0.0,
                    count: s.weights[0].count,
                })
            },
            DrawableProblem::WeightCategory(99),
        ),
        (
            |s| s.weights[0].category = -9,
            DrawableProblem::WeightCategory(-9),
        ),
    ];
    for v206 in [true, false] {
        let base = node(v206);
        for pos in positions(&base) {
            let Pos::Shadow(s, list, i) = pos else {
                continue;
            };
            for (damage, problem) in &damages {
                let mut n = base.clone();
                damage(&mut shadows(&mut n, s, list)[i]);
                expect_damage(&n, pos, *problem, v206);
            }
        }
    }
}

/// Swapping an item with the one before it is refused at the item's new place
/// (strict); lenient and unchecked readers keep the node as it is.
#[test]
fn an_item_before_its_predecessor_is_unsorted_at_its_offset() {
    for v206 in [true, false] {
        let base = node(v206);
        let mut swapped = 0;
        for pos in positions(&base) {
            let mut n = base.clone();
            match pos {
                Pos::Drawable(_, 0) | Pos::Shadow(_, _, 0) => continue,
                Pos::Drawable(list, i) => drawables(&mut n, list).swap(i - 1, i),
                Pos::Shadow(s, list, i) => shadows(&mut n, s, list).swap(i - 1, i),
            }
            if lists(&n) == lists(&base) {
                continue; // two equal items
            }
            swapped += 1;
            let (bytes, node_at) = file(&n, v206);
            let want = node_at + offset_in_node(&n, pos);
            let drawn = match pos {
                Pos::Drawable(..) => Drawn::Drawable,
                Pos::Shadow(..) => Drawn::Shadow,
            };
            assert_eq!(
                strict_error(&bytes),
                (want, n.header.id, DrawableProblem::Unsorted(drawn)),
                "{pos:?}"
            );
            for v in [Validation::Lenient, Validation::Off] {
                let (got, dropped) = read(&bytes, v).unwrap();
                assert_eq!(lists(&got), lists(&n), "{pos:?} {v:?}");
                assert_eq!(dropped, Dropped::default(), "{pos:?} {v:?}");
            }
        }
        assert_eq!(swapped, 10);
    }
}

/// Ties of the start order, one key part at a time: equal earliest times
/// order by latest descending, then category, start line and final line
/// ascending; the other way round is unsorted, equal keys are not.
#[test]
fn ties_order_by_latest_then_category_then_lines() {
    let prims = |a: Drawable, b: Drawable| {
        let mut n = node(true);
        n.nestless = vec![a, b];
        n.nestable.clear();
        n.stubs.clear();
        n
    };
    let composite = |category: i32, first: i32, last: i32| {
        Drawable::Composite(Composite {
            category,
            info: JStr::default(),
            primitives: vec![
                prim(5, &[], &[(1.2, first), (1.4, first)]),
                prim(0, &[], &[(1.3, 1), (1.5, last)]),
            ],
        })
    };
    let sorted_pairs = [
        (state(1.2, 1.5, 1), state(1.2, 1.4, 0)),
        (state(1.2, 1.5, 1), composite(7, 0, 0)),
        (composite(5, 2, 2), composite(7, 0, 0)),
        (composite(7, 0, 2), composite(7, 1, 0)),
        (composite(7, 1, 0), composite(7, 1, 2)),
        (arrow(1.2, 0, 1.5, 2), arrow(1.2, 1, 1.5, 0)),
        (arrow(1.2, 1, 1.5, 0), arrow(1.2, 1, 1.5, 2)),
    ];
    for (a, b) in sorted_pairs {
        let what = format!("{a:?} then {b:?}");
        let n = prims(a.clone(), b.clone());
        let (bytes, _) = file(&n, true);
        assert!(read(&bytes, Validation::Strict).is_ok(), "{what}");
        let n = prims(a.clone(), a.clone());
        let (bytes, _) = file(&n, true);
        assert!(read(&bytes, Validation::Strict).is_ok(), "{what}: equal");
        let n = prims(b, a);
        let (bytes, node_at) = file(&n, true);
        let want = node_at + offset_in_node(&n, Pos::Drawable(0, 1));
        assert_eq!(
            strict_error(&bytes),
            (
                want,
                n.header.id,
                DrawableProblem::Unsorted(Drawn::Drawable)
            ),
            "{what} swapped"
        );
    }
    // Shadows: the same key from their own fields and vertices.
    let shadow_pairs = [
        (
            shadow(-1, 1.2, 1.5, (0, 0), &[5], true),
            shadow(-1, 1.2, 1.4, (0, 0), &[5], true),
        ),
        (
            shadow(-2, 1.2, 1.5, (0, 0), &[5], true),
            shadow(-1, 1.2, 1.5, (0, 0), &[5], true),
        ),
        (
            shadow(-1, 1.2, 1.5, (0, 2), &[5], true),
            shadow(-1, 1.2, 1.5, (1, 0), &[5], true),
        ),
        (
            shadow(-1, 1.2, 1.5, (1, 0), &[5], true),
            shadow(-1, 1.2, 1.5, (1, 2), &[5], true),
        ),
    ];
    for (a, b) in shadow_pairs {
        let what = format!("{a:?} then {b:?}");
        let one = |x: &Shadow, y: &Shadow| {
            let mut n = node(true);
            n.stubs = vec![stub(E, L, vec![], vec![x.clone(), y.clone()])];
            n
        };
        let (bytes, _) = file(&one(&a, &b), true);
        assert!(read(&bytes, Validation::Strict).is_ok(), "{what}");
        let (bytes, _) = file(&one(&a, &a), true);
        assert!(read(&bytes, Validation::Strict).is_ok(), "{what}: equal");
        let n = one(&b, &a);
        let (bytes, node_at) = file(&n, true);
        let want = node_at + offset_in_node(&n, Pos::Shadow(0, 1, 1));
        assert_eq!(
            strict_error(&bytes),
            (want, n.header.id, DrawableProblem::Unsorted(Drawn::Shadow)),
            "{what} swapped"
        );
    }
}

/// Without line-ID maps no line ID is known: the error is reported where the
/// maps should be (the header's pointer field, or the empty block).
#[test]
fn without_line_id_maps_every_line_id_is_unknown_at_the_maps() {
    let n = node(true);
    // An empty LineIdMapList block.
    let (bytes, [_, _, maps_at, _]) = one_node_file(
        n.clone(),
        &categories(true),
        &LineIdMapList { maps: vec![] },
        "SLOG 2.0.6",
    );
    let (offset, _, problem) = strict_error(&bytes);
    assert_eq!(
        (offset, problem),
        (maps_at, DrawableProblem::NoLineIdMaps(0))
    );
    // A null pointer: the header's lineIDmaps field (byte 48).
    let mut bytes = bytes;
    bytes[48..60].fill(0);
    let (offset, _, problem) = strict_error(&bytes);
    assert_eq!((offset, problem), (48, DrawableProblem::NoLineIdMaps(0)));
    let (lenient, dropped) = read(&bytes, Validation::Lenient).unwrap();
    assert!(lenient.nestless.is_empty() && lenient.nestable.is_empty());
    assert_eq!(
        dropped,
        Dropped {
            drawables: 9,
            shadows: 0
        }
    );
}

/// A lenient reader counts every item it drops, drawables and shadows apart,
/// over several lists at once.
#[test]
fn lenient_counts_add_up_over_lists() {
    let mut n = node(true);
    n.nestless[0] = state(E, L, 3);
    n.nestless[3] = state(E, L, 3);
    n.nestable[2] = state(E, L, 3);
    n.stubs[0].nestable[1].weights.clear();
    n.stubs[1].nestless[0].category = 0;
    n.stubs[1].nestable[1].category = 0;
    let (bytes, _) = file(&n, true);
    let (got, dropped) = read(&bytes, Validation::Lenient).unwrap();
    assert_eq!(
        dropped,
        Dropped {
            drawables: 3,
            shadows: 3
        }
    );
    let want = node(true);
    assert_eq!(got.nestless, want.nestless[1..3].to_vec());
    assert_eq!(
        got.nestable,
        [&want.nestable[..2], &want.nestable[3..]].concat()
    );
    assert_eq!(
        got.stubs[0].nestable,
        vec![
            want.stubs[0].nestable[0].clone(),
            want.stubs[0].nestable[2].clone()
        ]
    );
    assert!(got.stubs[1].nestless.is_empty());
    assert_eq!(got.stubs[1].nestable, want.stubs[1].nestable[..1].to_vec());
    // Reading again adds to the count.
    let mut r = reader(&bytes, Validation::Lenient);
    let root = r.header().treeroot;
    r.read_node(root).unwrap();
    r.read_node(root).unwrap();
    assert_eq!(
        r.dropped(),
        Dropped {
            drawables: 6,
            shadows: 6
        }
    );
}
