//! Properties of the CLOG2 → SLOG-2 converter and of window queries, over traces
//! from the generator (`clog2_format::synth`) with random sizes, seeds and tree
//! options:
//!
//! * the file passes `check` without errors, and holds one drawable per
//!   completed state, arrow and event whatever the tree options;
//! * (a) a window query returns exactly the drawables a brute-force filter over
//!   every drawable of the file finds;
//! * (b) it reads at most `node_read_bound(K, depth, D)` nodes (spec/slog2.md,
//!   window queries): only the depth term grows with the file.

mod common;

use proptest::prelude::*;
use slog2_format::build::{clog2_to_slog2, ConvertStats, TreeOptions};
use slog2_format::check::{check, Severity};
use slog2_format::window::{node_read_bound, TimeWindow};
use slog2_format::*;
use std::io::Cursor;

fn trace(ranks: u32, events: u64, seed: u64) -> Vec<u8> {
    clog2_format::synth::generate_vec(&clog2_format::synth::Options {
        ranks,
        events,
        seed,
        block_size: 4096,
    })
    .unwrap()
}

fn convert(clog2: &[u8], opts: TreeOptions) -> (Vec<u8>, ConvertStats) {
    let mut r = clog2_format::Clog2Reader::from_slice(clog2).unwrap();
    let (out, stats) = clog2_to_slog2(&mut r, Cursor::new(Vec::new()), opts, |_| {}).unwrap();
    (out.into_inner(), stats)
}

/// Every drawable of the file, as comparable text, sorted.
fn all_drawables(f: &Slog2File) -> Vec<(String, f64, f64)> {
    let mut v: Vec<(String, f64, f64)> = f
        .nodes()
        .flat_map(|n| n.value.nestless.iter().chain(&n.value.nestable))
        .map(|d| (format!("{d:?}"), d.earliest(), d.latest()))
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    #[test]
    fn windows_equal_brute_force_and_read_few_nodes(
        ranks in 1u32..6,
        events in 300u64..6000,
        seed in 0u64..1000,
        leaf_bytes in prop::sample::select(vec![256u32, 700, 2048, 8192, 65536]),
        children in 2u16..5,
        windows in prop::collection::vec((0.0f64..1.0, 0.0f64..0.3), 1..12),
    ) {
        let clog2 = trace(ranks, events, seed);
        let opts = TreeOptions { leaf_bytes, children, ..Default::default() };
        let (bytes, stats) = convert(&clog2, opts);
        let errors: Vec<_> = check(Cursor::new(&bytes), 3)
            .into_iter()
            .filter(|f| f.severity == Severity::Error)
            .collect();
        prop_assert!(errors.is_empty(), "check: {errors:?}");
        let file = Slog2File::parse(&bytes).unwrap();
        let all = all_drawables(&file);
        prop_assert_eq!(all.len() as u64, stats.tree.drawables);
        let (t0, t1) = stats.tree.time_range;
        let span = t1 - t0;
        let mut r = Slog2Reader::open(Cursor::new(&bytes)).unwrap();
        let k = r.header().num_children_per_node as u32;
        let depth = r.header().max_treedepth as u32;
        for (at, width) in windows {
            // Windows from a little before the file to a little after it.
            let start = t0 - 0.05 * span + at * 1.1 * span;
            let end = start + width * span;
            let answer = r.window(start, end).unwrap();
            let w = TimeWindow::new(start, end);
            let mut got: Vec<String> =
                answer.drawables.iter().map(|d| format!("{:?}", d.value)).collect();
            got.sort();
            let want: Vec<String> = all
                .iter()
                .filter(|(_, a, b)| w.meets(*a, *b))
                .map(|(s, _, _)| s.clone())
                .collect();
            prop_assert_eq!(&got, &want, "window [{}, {})", start, end);
            let bound = node_read_bound(k, depth, got.len() as u64);
            prop_assert!(
                answer.counters.nodes_read <= bound,
                "window [{}, {}): {} nodes read, bound {} (K {}, depth {}, D {})",
                start, end, answer.counters.nodes_read, bound, k, depth, got.len()
            );
        }
    }

    /// The tree options change the tree, never the drawables.
    #[test]
    fn tree_options_do_not_change_the_drawables(
        ranks in 1u32..5,
        events in 300u64..4000,
        seed in 0u64..1000,
        leaf_bytes in 200u32..5000,
        children in 2u16..6,
    ) {
        let clog2 = trace(ranks, events, seed);
        let (a, _) = convert(&clog2, TreeOptions::default());
        let (b, sb) = convert(&clog2, TreeOptions { leaf_bytes, children, ..Default::default() });
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
