//! Where the tree writer puts each drawable, without the corpus. Java's
//! `TreeTrunk.addDrawable` puts a drawable in the lowest open node whose start
//! time is not after the drawable's start; so in the written file:
//!
//! * a drawable of a non-root node starts no earlier than that node;
//! * a drawable of an inner node starts before the child that was open when it
//!   was added (the child whose time box holds the drawable's end), else it
//!   would be in that child.
//!
//! The oracle reads only the file's node headers and drawables, not the writer.
//! The hand-made trace has states back to back, so that a drawable starts at
//! exactly the time its leaf starts: the boundary where `<=` and `<` differ.

use clog2_format::commtable::{comm_kind, CommEntry, CommTable};
use clog2_format::record::{comm_etype, BareEvt, Body, CommEvt, Record, Uuid};
use clog2_format::{Clog2Writer, FixedBytes, PreambleInfo};
use mpelog_conformance::strategies::clog2::generate;
use mpelog_conformance::strategies::slog2::convert;
use slog2_format::frame::Compression;
use slog2_format::write::TreeOptions;
use slog2_format::{Drawable, NodeId, Slog2File, TreeNodeBody};
use std::collections::BTreeMap;
use std::io::Cursor;

/// `n` states of rank 0 back to back: [k, k + 1] for k = 0..n (state 0, events
/// 0 and 1 of MPE's known-state range).
fn back_to_back(n: u32) -> Vec<u8> {
    let mut info = PreambleInfo::mpe_default(1);
    info.block_size = 4096;
    let mut w = Clog2Writer::new(Cursor::new(Vec::new()), info).unwrap();
    w.push(&Record::new(
        0.0,
        0,
        Body::Comm(CommEvt {
            etype: comm_etype::WORLD_CREATE,
            icomm: 0,
            rank: 0,
            wrank: 0,
            gcomm: Uuid::ZERO,
        }),
    ))
    .unwrap();
    for k in 0..n {
        for (t, etype) in [(f64::from(k), 0), (f64::from(k + 1), 1)] {
            let body = Body::Bare(BareEvt {
                etype,
                pad: FixedBytes::ZERO,
            });
            w.push(&Record::new(t, 0, body)).unwrap();
        }
    }
    let table = CommTable::new(vec![CommEntry {
        gcomm: Uuid::ZERO,
        local_id: 0,
        kind: comm_kind::INTRA,
    }]);
    w.finish(Some(&table)).unwrap().0.into_inner()
}

fn opts(leaf_bytes: u32, children: u16) -> TreeOptions {
    TreeOptions::default()
        .leaf_bytes(leaf_bytes)
        .children(children)
        .compression(Compression::None)
}

fn drawables(n: &TreeNodeBody) -> impl Iterator<Item = &Drawable> {
    n.nestless.iter().chain(&n.nestable)
}

/// The placement rules above, for every drawable of the file; returns the
/// number of drawables in inner nodes.
fn check_placement(bytes: &[u8], what: &str) -> usize {
    let f = Slog2File::parse(bytes).unwrap();
    let k = f.header.num_children_per_node as i32;
    let nodes: BTreeMap<(i16, i32), &TreeNodeBody> = f
        .nodes()
        .map(|n| ((n.value.header.id.depth, n.value.header.id.xpos), &n.value))
        .collect();
    let root_depth = f.header.max_treedepth;
    let mut inner = 0;
    for (&(depth, xpos), node) in &nodes {
        let children: Vec<&TreeNodeBody> = (0..k)
            .filter_map(|j| nodes.get(&(depth - 1, xpos * k + j)).copied())
            .collect();
        assert_eq!(
            children.is_empty(),
            depth == 0,
            "{what}: node {depth}/{xpos}"
        );
        for d in drawables(node) {
            let (start, end) = (d.earliest(), d.latest());
            let at = NodeId { depth, xpos };
            if depth != root_depth {
                assert!(
                    node.header.earliest <= start,
                    "{what}: {d:?} in {at:?} starts before the node ({})",
                    node.header.earliest
                );
            }
            if depth > 0 {
                inner += 1;
                // The children whose box holds the end (two at a boundary).
                let open: Vec<f64> = children
                    .iter()
                    .filter(|c| c.header.earliest <= end && end <= c.header.latest)
                    .map(|c| c.header.earliest)
                    .collect();
                assert!(
                    !open.is_empty(),
                    "{what}: {d:?} in {at:?}: no child holds its end"
                );
                assert!(
                    open.iter().any(|&e| start < e),
                    "{what}: {d:?} in {at:?} starts at {start}, not before the child open at its end (children start at {open:?}): it belongs in the child"
                );
            }
        }
    }
    inner
}

#[test]
fn back_to_back_states_all_go_to_leaves() {
    let clog2 = back_to_back(400);
    for (leaf, k) in [(256, 2), (300, 3), (700, 2), (1024, 4)] {
        let what = format!("leaf {leaf}, {k} children");
        let (bytes, stats) = convert(&clog2, opts(leaf, k));
        assert_eq!(stats.tree.drawables, 400, "{what}");
        let f = Slog2File::parse(&bytes).unwrap();
        assert!(f.header.max_treedepth >= 2, "{what}: a deep tree");
        // No state starts before the leaf that is open when it ends: each
        // starts where the previous one (the last of the previous leaf) ended.
        for n in f.nodes() {
            let id = n.value.header.id;
            assert!(
                id.depth == 0 || drawables(&n.value).next().is_none(),
                "{what}: node {id:?} holds {:?}",
                drawables(&n.value).collect::<Vec<_>>()
            );
        }
        assert_eq!(check_placement(&bytes, &what), 0);
    }
}

#[test]
fn generated_traces_place_every_drawable_by_the_rule() {
    let mut inner = 0;
    for (ranks, events, seed) in [(2, 3000, 1), (4, 6000, 2), (3, 4000, 9)] {
        let clog2 = generate(
            &clog2_format::synth::Options::default()
                .ranks(ranks)
                .events(events)
                .seed(seed)
                .block_size(4096),
        );
        for (leaf, k) in [(256, 2), (700, 3), (2048, 2), (4096, 5)] {
            let what = format!("{ranks} ranks, seed {seed}, leaf {leaf}, {k} children");
            let (bytes, _) = convert(&clog2, opts(leaf, k));
            inner += check_placement(&bytes, &what);
        }
    }
    // Long states (nested user states) do end up above the leaves.
    assert!(inner > 0);
}

/// A leaf is closed only when the next drawable would not fit: for every leaf
/// but the last, its block size plus the on-disk size of the next leaf's first
/// drawable exceeds `leaf_bytes`, and the leaf itself is at most one byte over
/// (Java counts a drawable without its tag byte when it decides). The states
/// are all alike, so some leaf size hits `leaf_bytes` exactly.
#[test]
fn a_leaf_is_closed_only_when_the_next_drawable_does_not_fit() {
    let clog2 = back_to_back(300);
    for leaf_bytes in 200..=330 {
        let what = format!("leaf {leaf_bytes}");
        let (bytes, _) = convert(&clog2, opts(leaf_bytes, 3));
        let f = Slog2File::parse(&bytes).unwrap();
        let mut leaves: Vec<&TreeNodeBody> = f
            .nodes()
            .map(|n| &n.value)
            .filter(|n| n.header.id.depth == 0)
            .collect();
        leaves.sort_by_key(|n| n.header.id.xpos);
        assert!(leaves.len() > 10, "{what}");
        for pair in leaves.windows(2) {
            let size = u64::from(pair[0].header.ptr.size as u32);
            let next = drawables(pair[1]).next().expect("a leaf has drawables");
            let next_len = match next {
                Drawable::Primitive(p) => p.disk_len(),
                Drawable::Composite(c) => c.disk_len(),
            };
            assert!(
                size <= u64::from(leaf_bytes) + 1,
                "{what}: leaf {:?} has {size} bytes",
                pair[0].header.id
            );
            assert!(
                size + next_len > u64::from(leaf_bytes),
                "{what}: leaf {:?} of {size} bytes was closed, but the next drawable ({next_len} bytes) fits",
                pair[0].header.id
            );
        }
    }
}
