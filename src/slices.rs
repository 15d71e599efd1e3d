//! Reading a tree of time boxes (a SLOG-2 file or an annotation) in start order
//! with bounded memory: consecutive slices of leaves, one window query each,
//! every drawable taken in the slice where it starts. [`crate::stats`] and
//! [`crate::export`] are built on it.

use slog2_format::types::{Primitive, TreeDirEntry};
use slog2_format::write::Prim;
use slog2_format::{PrimitiveRef, Slog2Reader, TimeWindow, WindowBuf};
use std::io::{Read, Seek};
use std::ops::ControlFlow;

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
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// use mpelog::slices::Tree;
    /// let r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// assert_eq!(Tree::entries(&r), r.tree_dir().unwrap().value.entries);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn entries(&self) -> Vec<TreeDirEntry>;
    /// The start time of every leaf.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// use mpelog::slices::Tree;
    /// let r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// let leaves = r.tree_dir().unwrap().value.entries.iter().filter(|e| e.id.depth == 0).count();
    /// assert_eq!(r.leaf_starts().len(), leaves);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn leaf_starts(&self) -> Vec<f64>;
    /// Fills `buf` with the drawables that meet `[a, b)`.
    ///
    /// # Errors
    ///
    /// The tree's reading error (a damaged node, a changed trace).
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// use mpelog::slices::Tree;
    /// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// let mut buf = slog2_format::WindowBuf::new();
    /// Tree::query(&mut r, &mut buf, 0.0, 0.01)?;
    /// assert_eq!(buf.drawables_len(), r.window(0.0, 0.01)?.drawables.len());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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
    /// The TreeDir holds the nodes above the leaves; a trace of one leaf has
    /// none, so the leaf stands for the root (its box the trace's).
    fn entries(&self) -> Vec<TreeDirEntry> {
        let dir = &self.tree_dir().entries;
        if !dir.is_empty() {
            return dir.clone();
        }
        let leaves = self.leaves();
        let Some(first) = leaves.first() else {
            return Vec::new();
        };
        let (earliest, latest) = leaves.iter().fold((first.earliest, first.latest), |b, l| {
            (b.0.min(l.earliest), b.1.max(l.latest))
        });
        vec![TreeDirEntry {
            id: slog2_format::types::NodeId { depth: 0, xpos: 0 },
            earliest,
            latest,
            ptr: Default::default(),
        }]
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
///
/// ```
/// # use slog2_format::convert::clog2_to_slog2;
/// # use slog2_format::Slog2Reader;
/// # use std::io::Cursor;
/// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
/// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// # let bytes = out.into_inner();
/// use mpelog::slices::span;
/// let r = Slog2Reader::new(Cursor::new(&bytes))?;
/// let entries = &r.tree_dir().unwrap().value.entries;
/// let whole = span(entries, None, None);
/// assert!(!whole.clipped);
/// let part = span(entries, Some(0.5), None);
/// assert!(part.clipped && part.from == 0.5 && part.to > whole.to); // just after the end
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn span(entries: &[TreeDirEntry], from: Option<f64>, to: Option<f64>) -> Span {
    let root = entries
        .iter()
        .max_by_key(|e| (e.id.depth, std::cmp::Reverse(e.id.xpos)));
    span_of(root.map(|e| (e.earliest, e.latest)), from, to)
}

/// The span of `[from, to)` in a trace whose time box is `time_box` (`None`:
/// an empty trace, taken as `[0, 0]`), as [`span`] makes it.
///
/// ```
/// use mpelog::slices::{next_up, span_of};
/// let s = span_of(Some((1.0, 9.0)), None, Some(5.0));
/// assert_eq!((s.from, s.to, s.clipped), (1.0, 5.0, true));
/// assert_eq!(span_of(Some((1.0, 9.0)), Some(2.0), None).to, next_up(9.0));
/// assert_eq!(span_of(None, None, None).to, 0.0); // an empty trace
/// ```
pub fn span_of(time_box: Option<(f64, f64)>, from: Option<f64>, to: Option<f64>) -> Span {
    let (start, end) = time_box.unwrap_or((0.0, 0.0));
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
/// composite one by one) as a borrowed [`Piece`], in start order
/// ([`order`]).
///
/// # Errors
///
/// The first error of `tree`'s query ([`Tree::query`]); `f` has been called for
/// the pieces before it.
///
/// ```
/// # use slog2_format::convert::clog2_to_slog2;
/// # use slog2_format::Slog2Reader;
/// # use std::io::Cursor;
/// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
/// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// # let bytes = out.into_inner();
/// use mpelog::slices::{order, span, visit_pieces};
/// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
/// let s = span(&r.tree_dir().unwrap().value.entries, None, None);
/// let mut starts = Vec::new();
/// visit_pieces(&mut r, s, |p| starts.push(p.start))?;
/// assert_eq!(starts.len(), r.window(f64::NEG_INFINITY, f64::INFINITY)?.drawables.len());
/// assert!(starts.windows(2).all(|w| w[0] <= w[1])); // in start order
/// # let _ = order;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn visit_pieces<T: Tree>(
    tree: &mut T,
    span: Span,
    mut f: impl FnMut(Piece<'_>),
) -> Result<(), T::Error> {
    visit_refs(tree, span, Order::Start, |p| {
        f(Piece::of(p));
        ControlFlow::Continue(())
    })
}

/// [`visit_pieces`] that stops, reading no further, once `f` breaks.
///
/// # Errors
///
/// As [`visit_pieces`].
///
/// ```
/// # use slog2_format::convert::clog2_to_slog2;
/// # use slog2_format::Slog2Reader;
/// # use std::io::Cursor;
/// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
/// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// # let bytes = out.into_inner();
/// use mpelog::slices::{span, visit_pieces_while};
/// use std::ops::ControlFlow;
/// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
/// let s = span(&r.tree_dir().unwrap().value.entries, None, None);
/// let mut n = 0;
/// visit_pieces_while(&mut r, s, |_| {
///     n += 1;
///     if n == 10 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
/// })?;
/// assert_eq!(n, 10);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn visit_pieces_while<T: Tree>(
    tree: &mut T,
    span: Span,
    mut f: impl FnMut(Piece<'_>) -> ControlFlow<()>,
) -> Result<(), T::Error> {
    visit_refs(tree, span, Order::Start, |p| f(Piece::of(p)))
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

/// A primitive as the exporters take it, borrowed from wherever it was read:
/// its category, first and last vertex, time box and info bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Piece<'a> {
    /// Category index.
    pub category: i32,
    /// Time and line ID of the first vertex (a state's start, an arrow's send).
    pub first: (f64, i32),
    /// Time and line ID of the last vertex (an event's only one).
    pub last: (f64, i32),
    /// Earliest vertex time.
    pub start: f64,
    /// Latest vertex time.
    pub end: f64,
    /// Info bytes.
    pub info: &'a [u8],
}

impl<'a> Piece<'a> {
    /// The piece of a primitive of a [`WindowBuf`] (one without vertices gives
    /// zero times on line 0; queries never return one).
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// use mpelog::slices::Piece;
    /// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// let mut buf = slog2_format::WindowBuf::new();
    /// r.window_into(&mut buf, 0.0, 0.01)?;
    /// let d = buf.drawables().find_map(|d| d.primitive()).unwrap();
    /// let p = Piece::of(&d);
    /// assert_eq!((p.category, p.first.0, p.info), (d.category(), d.vertices()[0].time, d.info()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn of(p: &PrimitiveRef<'a>) -> Piece<'a> {
        let v = p.vertices().iter().map(|c| (c.time, c.line_id));
        Piece::of_vertices(p.category(), p.info(), v)
    }

    /// The piece of a primitive of `category` and `info` whose vertices
    /// (time, line ID) are `vertices`: the first and the last as they are,
    /// the start and end the least and greatest of their times (all of it 0
    /// without vertices).
    ///
    /// ```
    /// use mpelog::slices::Piece;
    /// let p = Piece::of_vertices(3, b"", [(2.0, 1), (0.5, 4), (1.0, 2)]);
    /// assert_eq!((p.first, p.last, p.start, p.end), ((2.0, 1), (1.0, 2), 0.5, 2.0));
    /// assert_eq!(Piece::of_vertices(3, b"", []).first, (0.0, 0));
    /// ```
    #[inline(always)]
    pub fn of_vertices(
        category: i32,
        info: &'a [u8],
        vertices: impl IntoIterator<Item = (f64, i32)>,
    ) -> Piece<'a> {
        let mut v = vertices.into_iter();
        let first = v.next().unwrap_or((0.0, 0));
        let (mut last, mut start, mut end) = (first, first.0, first.0);
        for c in v {
            last = c;
            start = start.min(c.0);
            end = end.max(c.0);
        }
        Piece {
            category,
            first,
            last,
            start,
            end,
            info,
        }
    }

    /// The piece of an owned primitive (`None` without vertices).
    ///
    /// ```
    /// use mpelog::slices::Piece;
    /// use slog2_format::types::{Coord, JStr, Primitive};
    /// let p = Primitive { category: 2, info: JStr::new(""), vertices: vec![Coord { time: 1.0, line_id: 0 }, Coord { time: 0.5, line_id: 3 }] };
    /// let piece = Piece::of_primitive(&p).unwrap();
    /// assert_eq!((piece.first, piece.last, piece.start, piece.end), ((1.0, 0), (0.5, 3), 0.5, 1.0));
    /// assert!(Piece::of_primitive(&Primitive { vertices: vec![], ..p }).is_none());
    /// ```
    pub fn of_primitive(p: &'a Primitive) -> Option<Piece<'a>> {
        let (a, b) = (p.vertices.first()?, p.vertices.last()?);
        Some(Piece {
            category: p.category,
            first: (a.time, a.line_id),
            last: (b.time, b.line_id),
            start: p.earliest(),
            end: p.latest(),
            info: &p.info.bytes,
        })
    }

    /// The piece of a converter's primitive.
    ///
    /// ```
    /// use mpelog::slices::Piece;
    /// use slog2_format::{types::topology, write::Prim};
    /// let p = Prim::two(1, topology::STATE, (0.5, 2), (1.5, 2), b"ab");
    /// let piece = Piece::of_prim(&p);
    /// assert_eq!((piece.first, piece.last, piece.info), ((0.5, 2), (1.5, 2), &b"ab"[..]));
    /// let e = Prim::event(1, 3.0, 4, &[]);
    /// assert_eq!(Piece::of_prim(&e).last, (3.0, 4)); // an event's only vertex
    /// ```
    pub fn of_prim(p: &'a Prim) -> Piece<'a> {
        let last = usize::from(p.nv.clamp(1, 2)) - 1;
        Piece {
            category: p.category,
            first: (p.times[0], p.lines[0]),
            last: (p.times[last], p.lines[last]),
            start: p.earliest(),
            end: p.latest(),
            info: &p.info[..usize::from(p.info_len).min(p.info.len())],
        }
    }
}

/// The start order every exporter uses, total over what a [`Piece`] holds:
/// start, the longer first, then category, first and last line, first time,
/// info bytes. Pieces equal in all of these are the same drawable twice.
///
/// ```
/// use mpelog::slices::{order, Piece};
/// let piece = |start, end| Piece { category: 1, first: (start, 0), last: (end, 0), start, end, info: &[] };
/// let mut v = vec![piece(1.0, 2.0), piece(0.0, 1.0), piece(0.0, 3.0)];
/// v.sort_by(order);
/// let starts: Vec<(f64, f64)> = v.iter().map(|p| (p.start, p.end)).collect();
/// assert_eq!(starts, [(0.0, 3.0), (0.0, 1.0), (1.0, 2.0)]); // the longer first
/// ```
pub fn order(a: &Piece<'_>, b: &Piece<'_>) -> std::cmp::Ordering {
    a.start
        .total_cmp(&b.start)
        .then_with(|| b.end.total_cmp(&a.end))
        .then_with(|| a.category.cmp(&b.category))
        .then_with(|| a.first.1.cmp(&b.first.1))
        .then_with(|| a.last.1.cmp(&b.last.1))
        .then_with(|| a.first.0.total_cmp(&b.first.0))
        .then_with(|| a.info.cmp(b.info))
}

/// Calls `f` with every real primitive that meets the span, in `order`: each
/// slice's query keeps the primitives whose start (or end) lies in the slice.
///
/// # Errors
///
/// As [`visit_pieces`].
///
/// ```
/// # use slog2_format::convert::clog2_to_slog2;
/// # use slog2_format::Slog2Reader;
/// # use std::io::Cursor;
/// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
/// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// # let bytes = out.into_inner();
/// use mpelog::slices::{span, visit_in, Order};
/// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
/// let s = span(&r.tree_dir().unwrap().value.entries, None, None);
/// let mut ends = Vec::new();
/// visit_in(&mut r, s, Order::End, |p| ends.push(p.latest()))?;
/// assert!(ends.len() > 100);
/// assert!(ends.windows(2).all(|w| w[0] <= w[1])); // in end order
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn visit_in<T: Tree>(
    tree: &mut T,
    span: Span,
    order: Order,
    mut f: impl FnMut(&Primitive),
) -> Result<(), T::Error> {
    visit_refs(tree, span, order, |p| {
        f(&p.to_owned());
        ControlFlow::Continue(())
    })
}

/// [`visit_in`] with borrowed primitives: a slice's primitives are sorted as
/// references into the query's buffer. Stops, reading no further slice, once
/// `f` breaks.
fn visit_refs<T: Tree>(
    tree: &mut T,
    span: Span,
    by: Order,
    mut f: impl FnMut(&PrimitiveRef<'_>) -> ControlFlow<()>,
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
    for (k, pair) in bounds.windows(2).enumerate() {
        let (a, b) = (pair[0], pair[1]);
        tree.query(&mut buf, a, b)?;
        let last = k + 2 == bounds.len();
        let mut slice: Vec<(Piece<'_>, PrimitiveRef<'_>)> = Vec::new();
        for d in buf.drawables() {
            let (start, end) = (d.earliest(), d.latest());
            let key = if by == Order::Start { start } else { end };
            // Each drawable in the slice where its key lies (the first slice
            // also takes the keys before it, the last the keys after it).
            if (k > 0 && key < a) || (!last && key >= b) || !window.meets(start, end) {
                continue;
            }
            slice.extend(
                d.primitive()
                    .into_iter()
                    .chain(d.parts())
                    .map(|p| (Piece::of(&p), p)),
            );
        }
        match by {
            Order::Start => slice.sort_by(|x, y| order(&x.0, &y.0)),
            Order::End => slice.sort_by(|x, y| {
                x.0.end
                    .total_cmp(&y.0.end)
                    .then(y.0.start.total_cmp(&x.0.start))
                    .then(order(&x.0, &y.0))
            }),
        }
        for (_, p) in &slice {
            if f(p).is_break() {
                return Ok(());
            }
        }
    }
    Ok(())
}

/// The smallest double above `x` (for a finite `x`).
///
/// ```
/// use mpelog::slices::next_up;
/// assert!(next_up(1.0) > 1.0);
/// assert_eq!(next_up(1.0), 1.0 + f64::EPSILON);
/// assert_eq!(next_up(f64::INFINITY), f64::INFINITY);
/// ```
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
