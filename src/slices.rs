//! Reading a tree of time boxes (a SLOG-2 file or an annotation) in start order
//! with bounded memory: consecutive slices of leaves, one window query each,
//! every drawable taken in the slice where it starts. [`crate::stats`] and
//! [`crate::export`] are built on it.

use slog2_format::types::{Drawable, Primitive, TreeDirEntry};
use slog2_format::{Slog2Reader, TimeWindow, WindowBuf};
use std::io::{Read, Seek};

/// Leaves per slice.
const SLICE: usize = 64;

/// The window a visit covers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    /// Start: the window's, or the file's start for a whole file.
    pub from: f64,
    /// End: the window's, or the file's end for a whole file.
    pub to: f64,
    /// Whether a window was asked for (durations are then clipped to it).
    pub clipped: bool,
}

/// A tree whose window queries fill a [`WindowBuf`]: its TreeDir, the start
/// times of its leaves and the query.
pub trait Tree {
    /// The query's error.
    type Error;
    /// The TreeDir entries.
    fn entries(&self) -> Vec<TreeDirEntry>;
    /// The start time of every leaf.
    fn leaf_starts(&self) -> Vec<f64>;
    /// Fills `buf` with the drawables that meet `[a, b)`.
    fn query(&mut self, buf: &mut WindowBuf, a: f64, b: f64) -> Result<(), Self::Error>;
}

impl<R: Read + Seek> Tree for Slog2Reader<R> {
    type Error = slog2_format::Error;
    fn entries(&self) -> Vec<TreeDirEntry> {
        self.tree_dir()
            .map(|t| t.value.entries.clone())
            .unwrap_or_default()
    }
    fn leaf_starts(&self) -> Vec<f64> {
        self.entries()
            .iter()
            .filter(|e| e.id.depth == 0)
            .map(|e| e.earliest)
            .collect()
    }
    fn query(&mut self, buf: &mut WindowBuf, a: f64, b: f64) -> slog2_format::Result<()> {
        self.window_into(buf, a, b)
    }
}

impl<A: Read + Seek, T: Read + Seek> Tree for mpelog_annotate::Annotation<A, T> {
    type Error = mpelog_annotate::Error;
    fn entries(&self) -> Vec<TreeDirEntry> {
        self.tree_dir().entries.clone()
    }
    fn leaf_starts(&self) -> Vec<f64> {
        self.leaves().iter().map(|l| l.earliest).collect()
    }
    fn query(&mut self, buf: &mut WindowBuf, a: f64, b: f64) -> mpelog_annotate::Result<()> {
        self.window_into(buf, a, b).map(|_| ())
    }
}

/// The span of `[from, to)` in a tree: the window with a missing bound taken
/// from the root's box (the end just after its last time), or, with neither
/// bound, the root's box unclipped.
pub fn span(entries: &[TreeDirEntry], from: Option<f64>, to: Option<f64>) -> Span {
    let root = entries
        .iter()
        .max_by_key(|e| (e.id.depth, std::cmp::Reverse(e.id.xpos)));
    let (start, end) = root.map_or((0.0, 0.0), |e| (e.earliest, e.latest));
    match (from, to) {
        (None, None) => Span {
            from: start,
            to: end,
            clipped: false,
        },
        (a, b) => Span {
            from: a.unwrap_or(start),
            to: b.unwrap_or_else(|| next_up(end.max(a.unwrap_or(start)))),
            clipped: true,
        },
    }
}

/// Calls `f` with every real primitive that meets the span (the parts of a
/// composite one by one), in start order (ties: the longer first).
pub fn visit<T: Tree>(tree: &mut T, span: Span, f: impl FnMut(&Primitive)) -> Result<(), T::Error> {
    visit_in(tree, span, Order::Start, f)
}

/// The order [`visit_in`] feeds primitives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// By start time (ties: the longer first).
    Start,
    /// By end time (ties: the later start first), as the one-pass tree writer
    /// takes them.
    End,
}

/// Calls `f` with every real primitive that meets the span, in `order`: each
/// slice's query keeps the primitives whose start (or end) lies in the slice.
pub fn visit_in<T: Tree>(
    tree: &mut T,
    span: Span,
    order: Order,
    mut f: impl FnMut(&Primitive),
) -> Result<(), T::Error> {
    let entries = tree.entries();
    if entries.is_empty() {
        return Ok(());
    }
    let mut leaves = tree.leaf_starts();
    leaves.sort_by(f64::total_cmp);
    let (lo, hi) = if span.clipped {
        (span.from, span.to)
    } else {
        (f64::NEG_INFINITY, f64::INFINITY)
    };
    // Slice boundaries: the start of every SLICE-th leaf, inside the window.
    let mut bounds = vec![lo];
    bounds.extend(
        leaves
            .iter()
            .step_by(SLICE)
            .skip(1)
            .copied()
            .filter(|&c| c > lo && c < hi),
    );
    bounds.dedup();
    bounds.push(hi);
    let window = TimeWindow::new(lo, hi);
    let mut buf = WindowBuf::new();
    let mut slice: Vec<Primitive> = Vec::new();
    for (k, pair) in bounds.windows(2).enumerate() {
        let (a, b) = (pair[0], pair[1]);
        tree.query(&mut buf, a, b)?;
        slice.clear();
        let last = k + 2 == bounds.len();
        for d in buf.drawables() {
            let (start, end) = (d.earliest(), d.latest());
            let key = if order == Order::Start { start } else { end };
            // Each drawable in the slice where its key lies (the first slice
            // also takes the keys before it, the last the keys after it).
            if (k > 0 && key < a) || (!last && key >= b) || !window.meets(start, end) {
                continue;
            }
            match d.to_owned() {
                Drawable::Primitive(p) => slice.push(p),
                Drawable::Composite(c) => slice.extend(c.primitives),
            }
        }
        match order {
            Order::Start => slice.sort_by(|x, y| {
                x.earliest()
                    .total_cmp(&y.earliest())
                    .then(y.latest().total_cmp(&x.latest()))
            }),
            Order::End => slice.sort_by(|x, y| {
                x.latest()
                    .total_cmp(&y.latest())
                    .then(y.earliest().total_cmp(&x.earliest()))
            }),
        }
        slice.iter().for_each(&mut f);
    }
    Ok(())
}

/// The smallest double above `x` (for a finite `x`).
pub fn next_up(x: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    if x == 0.0 {
        return f64::from_bits(1);
    }
    let bits = x.to_bits();
    f64::from_bits(if x > 0.0 { bits + 1 } else { bits - 1 })
}
