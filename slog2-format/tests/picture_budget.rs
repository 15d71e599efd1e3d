//! The picture query's read budget (spec/queries.md §2.2 step 6): a wide
//! window of a file with many timelines reads at most the budget below its
//! path, and a narrow window still reads its path down to the leaves.

use slog2_format::convert::clog2_to_slog2;
use slog2_format::frame::Compression;
use slog2_format::window::COMPRESSED_CHARGE;
use slog2_format::write::TreeOptions;
use slog2_format::{ReadOptions, Slog2Reader, TimeWindow, TreeDirEntry, WindowBuf};
use std::collections::BTreeMap;
use std::io::Cursor;

/// A 64-rank generated trace in small leaves: upper nodes carry a shadow per
/// timeline and category, as a 1,024-rank trace's do.
fn many_timelines() -> Vec<u8> {
    many_timelines_stored(Compression::None)
}

/// [`many_timelines`] with its nodes stored as `compression` says.
fn many_timelines_stored(compression: Compression) -> Vec<u8> {
    let opts = clog2_format::synth::Options::default()
        .ranks(64)
        .events(60_000)
        .seed(3);
    let clog2 = clog2_format::synth::generate_vec(&opts).unwrap();
    let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    let tree = TreeOptions::default()
        .leaf_bytes(4096)
        .compression(compression);
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
    assert_wide_picture_within_budget(&many_timelines(), 1);
}

/// A compressed file's frames are charged [`COMPRESSED_CHARGE`] bytes each:
/// a whole-file picture stops at the depth that charge gives (computed here
/// from the TreeDir as spec/queries.md §2.2 step 6 says), above the one a
/// charge of 1 would give.
#[test]
fn a_compressed_files_frames_are_charged_more() {
    let bytes = many_timelines_stored(Compression::Deflate(6));
    assert!(Slog2Reader::new(Cursor::new(&bytes[..]))
        .unwrap()
        .version()
        .is_compressed());
    assert_wide_picture_within_budget(&bytes, COMPRESSED_CHARGE);
    let r = Slog2Reader::new(Cursor::new(&bytes[..])).unwrap();
    let root = *r.tree_dir().unwrap().value.root().unwrap();
    let (a, b) = (root.earliest, root.latest);
    // Per depth from the root down: the running charge (sizes less the two
    // largest).
    let mut running = Vec::new();
    let mut total = 0u64;
    for (&depth, sizes) in blocks(&bytes, a, b).iter().rev() {
        let mut v = sizes.clone();
        v.sort_unstable_by(|x, y| y.cmp(x));
        total += v.iter().skip(2).sum::<u64>();
        running.push((depth, total));
    }
    let lowest = |charge: u64, budget: u64| {
        let mut lowest = running[0].0;
        for &(depth, total) in &running {
            if total * charge > budget {
                break;
            }
            lowest = depth;
        }
        lowest
    };
    // A budget between the charges of 1 and 4 at a middle depth.
    let middle = running[running.len() / 2].1;
    let budget = middle * 2;
    let (charged, plain) = (lowest(COMPRESSED_CHARGE, budget), lowest(1, budget));
    assert!(charged > plain, "the budget must tell the charges apart");
    let mut buf = WindowBuf::new();
    reader(&bytes, budget)
        .window_picture_into(&mut buf, a, b, 1600)
        .unwrap();
    let deepest = buf.nodes().iter().map(|n| n.depth).min().unwrap();
    assert_eq!(deepest, charged, "plain charge would stop at {plain}");
}

/// A whole-file picture of `bytes` at a 64 KiB budget reads at most the
/// budget / `charge` of frame bytes below its path.
fn assert_wide_picture_within_budget(bytes: &[u8], charge: u64) {
    let bytes = bytes.to_vec();
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
        read <= budget / charge + path,
        "{read} bytes read, budget {budget} / {charge} + path {path}"
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
