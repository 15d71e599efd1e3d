//! The start order (spec/export.md §3.1) every exporter takes primitives in,
//! against a sort written here from the spec: by start; the later end first;
//! category; first vertex's line; last vertex's line; first vertex's time;
//! info bytes. Generated primitives on a grid of three times, with few
//! categories, lines and info buffers, so that primitives tying on the first
//! keys (and arrows going back in time, whose first vertex is not their start)
//! are the rule. Both the one-pass path ([`StartOrder`], in memory and through
//! sorted runs) and the SLOG-2 path (a file written by the tree writer, read in
//! slices of leaves) must give exactly that sequence, whole and in windows
//! whose bounds sit on the grid. (tests/export_sorted.rs checks that the two
//! paths agree; this checks that they agree with the spec.)

use mpelog::export::sorted::StartOrder;
use mpelog::export::{Ordered, Piece};
use proptest::prelude::*;
use slog2_format::types::{topology, Category, JStr};
use slog2_format::write::tree::TreeWriter;
use slog2_format::write::{Prim, PrimSink, TreeOptions};
use slog2_format::Slog2Reader;
use std::cmp::Ordering;
use std::io::Cursor;

/// A piece, owned, with its times as bits (so equal means identical).
type Owned = (i32, (u64, i32), (u64, i32), u64, u64, Vec<u8>);

fn owned(p: Piece<'_>) -> Owned {
    (
        p.category,
        (p.first.0.to_bits(), p.first.1),
        (p.last.0.to_bits(), p.last.1),
        p.start.to_bits(),
        p.end.to_bits(),
        p.info.to_vec(),
    )
}

/// The owned piece of a primitive made here.
fn owned_prim(p: &Prim) -> Owned {
    let last = usize::from(p.nv) - 1;
    (
        p.category,
        (p.times[0].to_bits(), p.lines[0]),
        (p.times[last].to_bits(), p.lines[last]),
        p.earliest().to_bits(),
        p.latest().to_bits(),
        p.info().to_vec(),
    )
}

/// Spec/export.md §3.1, written out: start; the later end first; category;
/// first line; last line; first time; info bytes (unsigned, lexicographic).
/// Times compare as IEEE 754 totalOrder.
fn spec_order(a: &Prim, b: &Prim) -> Ordering {
    let last = |p: &Prim| p.lines[usize::from(p.nv) - 1];
    a.earliest()
        .total_cmp(&b.earliest())
        .then(b.latest().total_cmp(&a.latest()))
        .then(a.category.cmp(&b.category))
        .then(a.lines[0].cmp(&b.lines[0]))
        .then(last(a).cmp(&last(b)))
        .then(a.times[0].total_cmp(&b.times[0]))
        .then(a.info().cmp(b.info()))
}

/// A primitive: category 0..6 (its topology the category modulo 3: event,
/// state, arrow), times on the grid {1, 1.5, 2}, lines 0..3, one of a few info
/// buffers. Arrows may go back in time.
fn prim() -> impl Strategy<Value = Prim> {
    let info = prop::sample::select(vec![
        vec![],
        vec![0u8],
        vec![1],
        vec![1, 0],
        vec![0xff],
        vec![0, 0, 0, 7],
    ]);
    (0i32..6, 0u8..3, 0u8..3, 0i32..3, 0i32..3, info).prop_map(|(category, a, b, l1, l2, info)| {
        let t = |k: u8| 1.0 + 0.5 * f64::from(k);
        match category % 3 {
            0 => Prim::event(category, t(a), l1, &info),
            1 => Prim::two(
                category,
                topology::STATE,
                (t(a.min(b)), l1),
                (t(a.max(b)), l1),
                &info,
            ),
            _ => Prim::two(category, topology::ARROW, (t(a), l1), (t(b), l2), &info),
        }
    })
}

/// The legend of the generated primitives: categories 0..6, topology the
/// index modulo 3.
fn legend() -> Vec<Category> {
    (0..6)
        .map(|index| Category {
            index,
            name: JStr::new(&format!("c{index}")),
            topology: index % 3,
            argb: [255, 0, 0, 0],
            modifiable: 1,
            width: 1,
            keys: Vec::new(),
            types: Vec::new(),
            methods: Vec::new(),
            summary: None,
        })
        .collect()
}

/// The primitives in the order the converters give them: by end, the later
/// start first (the rest as generated).
fn in_end_order(mut v: Vec<Prim>) -> Vec<Prim> {
    v.sort_by(|a, b| {
        a.latest()
            .total_cmp(&b.latest())
            .then(b.earliest().total_cmp(&a.earliest()))
    });
    v
}

/// Every piece `src` gives for `[from, to)`, in its order.
fn pieces<T: Ordered>(src: &mut T, from: Option<f64>, to: Option<f64>) -> Vec<Owned>
where
    T::Error: std::fmt::Debug,
{
    let span = src.span(from, to);
    let mut out = Vec::new();
    src.pieces(span, &mut |p| out.push(owned(p))).unwrap();
    out
}

/// What the spec says for `prims` in `[from, to)`: the primitives that meet
/// it, in start order.
fn want(prims: &[Prim], from: Option<f64>, to: Option<f64>) -> Vec<Owned> {
    let (a, b) = (
        from.unwrap_or(f64::NEG_INFINITY),
        to.unwrap_or(f64::INFINITY),
    );
    let mut v: Vec<&Prim> = prims
        .iter()
        .filter(|p| p.earliest() < b && p.latest() >= a)
        .collect();
    v.sort_by(|x, y| spec_order(x, y));
    v.into_iter().map(owned_prim).collect()
}

/// Cases per property: `default`, or `MPELOG_PROPTEST_CASES` when larger.
fn cases(default: u32) -> u32 {
    std::env::var("MPELOG_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(default, |n: u32| n.max(default))
}

/// A window with bounds on the grid (or missing).
fn windows() -> impl Strategy<Value = (Option<f64>, Option<f64>)> {
    let at = prop::sample::select(vec![1.0f64, 1.5, 2.0]);
    prop_oneof![
        2 => Just((None, None)),
        1 => prop::sample::select(vec![(1.0f64, 1.5f64), (1.0, 2.0), (1.5, 2.0), (2.0, 2.5)])
            .prop_map(|(a, b)| (Some(a), Some(b))),
        1 => at.clone().prop_map(|a| (Some(a), None)),
        1 => at.prop_map(|b| (None, Some(b))),
    ]
}

/// A piece as text: category, first and last vertex, info.
fn shown(p: &Owned) -> String {
    let t = f64::from_bits;
    format!(
        "cat {} ({}, line {}) -> ({}, line {}) info {:?}",
        p.0,
        t(p.1 .0),
        p.1 .1,
        t(p.2 .0),
        p.2 .1,
        p.5
    )
}

fn first_difference(got: &[Owned], want: &[Owned]) -> String {
    match got.iter().zip(want).position(|(g, w)| g != w) {
        Some(i) => format!(
            "at {i} of {}: got {}, the spec's order has {}",
            want.len(),
            shown(&got[i]),
            shown(&want[i])
        ),
        None => format!("{} pieces vs {}", got.len(), want.len()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(128)))]

    #[test]
    fn one_pass_and_slog2_paths_give_the_spec_start_order(
        prims in prop::collection::vec(prim(), 1..120),
        memory in prop_oneof![Just(1usize), 100usize..4096, Just(64usize << 20)],
        w in windows(),
        leaf in prop::sample::select(vec![256u32, 2048, 65536]),
    ) {
        let prims = in_end_order(prims);
        let (from, to) = w;
        let want = want(&prims, from, to);

        // One pass: StartOrder (spilling sorted runs when memory is small).
        let mut sink = StartOrder::new().window(from, to).memory(memory);
        for p in &prims {
            sink.add(*p).unwrap();
        }
        let mut sorted = sink.finish(&legend(), Vec::new()).unwrap();
        let got = pieces(&mut sorted, from, to);
        prop_assert!(got == want, "one pass (memory {}): {}", memory, first_difference(&got, &want));

        // Through a SLOG-2 file.
        let mut tree = TreeWriter::new(
            Cursor::new(Vec::new()),
            TreeOptions::default().leaf_bytes(leaf).children(2),
        )
        .unwrap();
        for p in &prims {
            tree.add(*p).unwrap();
        }
        let (out, _) = tree.finish(&legend(), Vec::new()).unwrap();
        let mut r = Slog2Reader::new(Cursor::new(out.into_inner())).unwrap();
        let got = pieces(&mut r, from, to);
        prop_assert!(got == want, "SLOG-2 (leaves {}): {}", leaf, first_difference(&got, &want));
    }
}

/// The generator exercises every key: in a sample of its cases, neighbours in
/// the spec's order often tie on all keys before category, before the lines,
/// before the first time and before the info.
#[test]
fn the_generated_primitives_tie_on_every_key() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    // Ties up to key k (0: start and end equal, 1: and category, ...).
    let mut ties = [0usize; 5];
    for _ in 0..100 {
        let mut v = prop::collection::vec(prim(), 1..120)
            .new_tree(&mut runner)
            .unwrap()
            .current();
        v.sort_by(spec_order);
        for w in v.windows(2) {
            let (a, b) = (&w[0], &w[1]);
            let last = |p: &Prim| p.lines[usize::from(p.nv) - 1];
            let keys = [
                a.earliest() == b.earliest() && a.latest() == b.latest(),
                a.category == b.category,
                a.lines[0] == b.lines[0],
                last(a) == last(b),
                a.times[0] == b.times[0],
            ];
            for k in 0..5 {
                if keys[..=k].iter().all(|&x| x) {
                    ties[k] += 1;
                }
            }
        }
    }
    assert!(ties.iter().all(|&n| n > 50), "ties per key: {ties:?}");
}
