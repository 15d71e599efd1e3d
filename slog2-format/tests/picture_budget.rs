//! The picture query's read budget (spec/queries.md §2.2 step 6): a wide
//! window of a file with many timelines reads at most the budget below its
//! path, and a narrow window still reads its path down to the leaves.

use slog2_format::convert::clog2_to_slog2;
use slog2_format::write::TreeOptions;
use slog2_format::{ReadOptions, Slog2Reader, TimeWindow, TreeDirEntry, WindowBuf};
use std::collections::BTreeMap;
use std::io::Cursor;

/// A 64-rank generated trace in small leaves: upper nodes carry a shadow per
/// timeline and category, as a 1,024-rank trace's do.
fn many_timelines() -> Vec<u8> {
    let opts = clog2_format::synth::Options::default()
        .ranks(64)
        .events(60_000)
        .seed(3);
    let clog2 = clog2_format::synth::generate_vec(&opts).unwrap();
    let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    let tree = TreeOptions::default().leaf_bytes(4096);
    let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), tree, |_| {}).unwrap();
    out.into_inner()
}

fn reader(bytes: &[u8], budget: u64) -> Slog2Reader<Cursor<&[u8]>> {
    let opts = ReadOptions::default().picture_budget(budget);
    let mut r = Slog2Reader::with_options(Cursor::new(bytes), opts).unwrap();
    // The first query reads the TreeDir: out of the counts below.
    r.window_picture_into(&mut WindowBuf::new(), 0.0, 0.0, 1)
        .unwrap();
    r
}

/// The blocks of the TreeDir meeting `[a, b)`, by depth.
fn blocks(bytes: &[u8], a: f64, b: f64) -> BTreeMap<i16, Vec<u64>> {
    let r = Slog2Reader::new(Cursor::new(bytes)).unwrap();
    let w = TimeWindow::new(a, b);
    let entries: Vec<TreeDirEntry> = r.tree_dir().unwrap().value.entries.clone();
    let mut out: BTreeMap<i16, Vec<u64>> = BTreeMap::new();
    for e in entries.iter().filter(|e| w.meets(e.earliest, e.latest)) {
        out.entry(e.id.depth).or_default().push(e.ptr.size as u64);
    }
    out
}

#[test]
fn a_wide_picture_reads_at_most_its_budget_below_its_path() {
    let bytes = many_timelines();
    let r = Slog2Reader::new(Cursor::new(&bytes[..])).unwrap();
    let root = *r.tree_dir().unwrap().value.root().unwrap();
    let (a, b) = (root.earliest, root.latest);
    let budget = 64 << 10;
    // The path allowance: the two largest blocks of each depth.
    let path: u64 = blocks(&bytes, a, b)
        .values()
        .map(|v| {
            let mut v = v.clone();
            v.sort_unstable_by(|x, y| y.cmp(x));
            v.iter().take(2).sum::<u64>()
        })
        .sum();
    let mut unlimited = reader(&bytes, u64::MAX);
    let mut buf = WindowBuf::new();
    unlimited.window_picture_into(&mut buf, a, b, 1600).unwrap();
    let all = buf.counters().bytes_read;
    assert!(
        all > budget + path,
        "the trace must need more than the budget: {all} bytes"
    );
    let mut limited = reader(&bytes, budget);
    limited.window_picture_into(&mut buf, a, b, 1600).unwrap();
    let read = buf.counters().bytes_read;
    assert!(
        read <= budget + path,
        "{read} bytes read, budget {budget} + path {path}"
    );
    // What it did not read, its shadows show: the real objects they stand
    // for and the drawables read add up to the whole file's.
    let objects = |buf: &WindowBuf| {
        buf.drawables().count() as i64 + buf.shadows().map(|s| s.num_real_objs()).sum::<i64>()
    };
    // (Within a thousandth: the shadows of a stub and the drawables of its
    // parent may both count a drawable on the box's edge.)
    let coarse = objects(&buf);
    unlimited.window_picture_into(&mut buf, a, b, 1600).unwrap();
    let fine = objects(&buf);
    assert!(
        (coarse - fine).abs() * 1000 <= fine,
        "{coarse} against {fine}"
    );
}

#[test]
fn a_narrow_picture_still_reads_down_to_the_leaves() {
    let bytes = many_timelines();
    let r = Slog2Reader::new(Cursor::new(&bytes[..])).unwrap();
    let leaf: TreeDirEntry = *r
        .tree_dir()
        .unwrap()
        .value
        .entries
        .iter()
        .filter(|e| e.id.depth == 0)
        .nth(10)
        .unwrap();
    // An instant in the leaf: a path down, at most a node or two per depth.
    let a = leaf.earliest + (leaf.latest - leaf.earliest) / 2.0;
    let b = a + (leaf.latest - leaf.earliest) * 1e-6;
    let (mut small, mut whole) = (WindowBuf::new(), WindowBuf::new());
    // No budget at all: the path is still read.
    reader(&bytes, 0)
        .window_picture_into(&mut small, a, b, 1600)
        .unwrap();
    reader(&bytes, u64::MAX)
        .window_picture_into(&mut whole, a, b, 1600)
        .unwrap();
    assert!(small.nodes().iter().any(|n| n.depth == 0));
    assert_eq!(small.nodes(), whole.nodes());
    assert_eq!(small.drawables().count(), whole.drawables().count());
}
