//! Properties of the CLOG2 → SLOG-2 converter and of window queries, over traces
//! from the generator (`clog2_format::synth`) with random sizes, seeds and tree
//! options (the shared strategies of `mpelog_conformance::strategies`):
//!
//! * the file passes `check` without errors, and holds one drawable per
//!   completed state, arrow and event whatever the tree options;
//! * (a) a window query returns exactly the drawables a brute-force filter over
//!   every drawable of the file finds. The filter is spec/queries.md §2.1
//!   written out here (box = vertex minimum and maximum; `[a, b]` meets
//!   `[t0, t1)` iff `a < t1` and `b >= t0`), not `TimeWindow`, and half of the
//!   windows start or end exactly on a drawable's time, where a half-open rule
//!   that is off by one comparison shows;
//! * (b) it reads at most `node_read_bound(K, depth, D)` nodes (spec/slog2.md,
//!   window queries): only the depth term grows with the file.

mod common;

use mpelog_conformance::strategies::clog2::{generate, synth_options};
use mpelog_conformance::strategies::slog2::{convert, tree_options, windows};
use proptest::prelude::*;
use slog2_format::check::check;
use slog2_format::frame::Compression;
use slog2_format::window::node_read_bound;
use slog2_format::write::TreeOptions;
use slog2_format::*;
use std::io::Cursor;

fn trace(ranks: u32, events: u64, seed: u64) -> Vec<u8> {
    generate(
        &clog2_format::synth::Options::default()
            .ranks(ranks)
            .events(events)
            .seed(seed)
            .block_size(4096),
    )
}

/// Cases per whole-trace property: `default`, or `MPELOG_PROPTEST_CASES` when
/// that is larger (CI raises it).
fn cases(default: u32) -> u32 {
    std::env::var("MPELOG_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(default, |n: u32| n.max(default))
}

/// The time box of a drawable from its vertices (every member's, for a
/// composite), computed here rather than by the crate.
fn time_box(d: &Drawable) -> (f64, f64) {
    let prims = match d {
        Drawable::Primitive(p) => std::slice::from_ref(p),
        Drawable::Composite(c) => &c.primitives[..],
    };
    let mut b = (f64::INFINITY, f64::NEG_INFINITY);
    for v in prims.iter().flat_map(|p| &p.vertices) {
        b = (b.0.min(v.time), b.1.max(v.time));
    }
    b
}

/// Whether the box `[a, b]` meets the half-open window `[t0, t1)` (spec/queries.md
/// §2.1).
fn meets_spec((a, b): (f64, f64), t0: f64, t1: f64) -> bool {
    a < t1 && b >= t0
}

/// Every drawable of the file, as comparable text with its box, sorted.
fn all_drawables(f: &Slog2File) -> Vec<(String, f64, f64)> {
    let mut v: Vec<(String, f64, f64)> = f
        .nodes()
        .flat_map(|n| n.value.nestless.iter().chain(&n.value.nestable))
        .map(|d| {
            let (a, b) = time_box(d);
            (format!("{d:?}"), a, b)
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

/// A window with an edge exactly on a drawable's time: `kind` 0 starts at the
/// drawable's end (it is shown), 1 ends at its start (it is not), 2 is the
/// zero-width window at its start, 3 the one at its end; `width` is a fraction
/// of the file's span for the other edge.
fn edge_window(d: &(String, f64, f64), kind: u8, width: f64, span: f64) -> (f64, f64) {
    let (_, a, b) = *d;
    match kind {
        0 => (b, b + width * span),
        1 => (a - width * span, a),
        2 => (a, a),
        _ => (b, b),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(24), .. ProptestConfig::default() })]

    #[test]
    fn windows_equal_brute_force_and_read_few_nodes(
        synth in synth_options(1..6, 300..6000, &[4096]),
        opts in tree_options(
            prop::sample::select(vec![256u32, 700, 2048, 8192, 65536]),
            2u16..5,
            Just(Compression::None),
        ),
        windows in windows(0.3, 1..12),
        edges in prop::collection::vec(
            (any::<prop::sample::Index>(), 0u8..4, 0.0f64..0.3),
            1..12,
        ),
    ) {
        let clog2 = generate(&synth);
        let (bytes, stats) = convert(&clog2, opts);
        let errors: Vec<_> = check(Cursor::new(&bytes), 3)
            .into_iter()
            .filter(|f| f.problem.breaks_readers())
            .collect();
        prop_assert!(errors.is_empty(), "check: {errors:?}");
        let file = Slog2File::parse(&bytes).unwrap();
        let all = all_drawables(&file);
        prop_assert_eq!(all.len() as u64, stats.tree.drawables);
        let (t0, t1) = stats.tree.time_range;
        let mut r = Slog2Reader::new(Cursor::new(&bytes)).unwrap();
        let k = r.header().num_children_per_node as u32;
        let depth = r.header().max_treedepth as u32;
        // Windows from a little before the file to a little after it, and
        // windows with an edge on a drawable's start or end.
        let placed = windows.iter().map(|w| w.place(t0, t1));
        let on_edges = edges
            .iter()
            .map(|(i, kind, width)| edge_window(i.get(&all), *kind, *width, t1 - t0));
        let mut edge_hits = 0;
        for (start, end) in placed.chain(on_edges) {
            let answer = r.window(start, end).unwrap();
            let mut got: Vec<String> =
                answer.drawables.iter().map(|d| format!("{:?}", d.value)).collect();
            got.sort();
            let want: Vec<String> = all
                .iter()
                .filter(|(_, a, b)| meets_spec((*a, *b), start, end))
                .map(|(s, _, _)| s.clone())
                .collect();
            edge_hits += all
                .iter()
                .filter(|(_, a, b)| *a == end || *b == start)
                .count();
            prop_assert_eq!(&got, &want, "window [{}, {})", start, end);
            let bound = node_read_bound(k, depth, got.len() as u64);
            prop_assert!(
                answer.counters.nodes_read <= bound,
                "window [{}, {}): {} nodes read, bound {} (K {}, depth {}, D {})",
                start, end, answer.counters.nodes_read, bound, k, depth, got.len()
            );
        }
        // Some drawable lay exactly on a window edge.
        prop_assert!(edge_hits > 0);
    }

    /// The tree options change the tree, never the drawables.
    #[test]
    fn tree_options_do_not_change_the_drawables(
        synth in synth_options(1..5, 300..4000, &[4096]),
        opts in tree_options(200u32..5000, 2u16..6, Just(Compression::None)),
    ) {
        let clog2 = generate(&synth);
        let (a, _) = convert(&clog2, TreeOptions::default());
        let (b, sb) = convert(&clog2, opts);
        let children = opts.children;
        let fa = Slog2File::parse(&a).unwrap();
        let fb = Slog2File::parse(&b).unwrap();
        prop_assert_eq!(all_drawables(&fa), all_drawables(&fb));
        prop_assert_eq!(fb.header.num_children_per_node, children as i16);
        // Every leaf the writer closed held at least one drawable.
        for n in fb.nodes() {
            if n.value.header.id.depth == 0 {
                prop_assert!(!n.value.nestless.is_empty() || !n.value.nestable.is_empty());
            }
        }
        prop_assert!(sb.tree.nodes >= 1);
    }
}

/// A generated trace with every kind of drawable converts without unmatched
/// events, and the summary counts agree with the file.
#[test]
fn generated_trace_converts_cleanly() {
    let clog2 = trace(4, 20_000, 3);
    let (bytes, stats) = convert(&clog2, TreeOptions::default());
    assert_eq!(stats.unmatched.total_dropped(), 0, "{:?}", stats.unmatched);
    assert_eq!(stats.unmatched.undeclared_timelines, 0);
    let f = Slog2File::parse(&bytes).unwrap();
    assert_eq!(f.nodes().count() as u64, stats.tree.nodes);
    assert_eq!(bytes.len() as u64, stats.tree.bytes);
    let topologies: std::collections::BTreeSet<i32> = f
        .blocks
        .values()
        .filter_map(|b| match b {
            FileBlock::Categories(c) => Some(c.value.categories.iter().map(|c| c.topology)),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(topologies.len(), 3, "states, arrows and events");
}
