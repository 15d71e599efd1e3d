//! Time-window queries (spec/queries.md §2): the drawables of a file that overlap a window
//! `[start, end)`, read by descending the tree from the root and loading only the
//! children whose stub box meets the window, as Jumpshot-4 does.
//!
//! ```no_run
//! # fn main() -> slog2_format::Result<()> {
//! use slog2_format::Slog2Reader;
//!
//! let mut r = Slog2Reader::new(std::fs::File::open("trace.slog2").unwrap())?;
//! let answer = r.window(0.5, 0.6)?;
//! for d in &answer.drawables {
//!     println!("{:?} in node {:?}", d.value.category(), d.node);
//! }
//! println!("{} nodes, {} bytes", answer.counters.nodes_read, answer.counters.bytes_read);
//! // A 1000-pixel overview: subtrees narrower than a pixel are shown by their shadows.
//! let preview = r.window_preview(0.0, 10.0, 1000)?;
//! println!("{} shadows", preview.shadows.len());
//! # Ok(()) }
//! ```
//!
//! The same queries fill a reusable [`WindowBuf`] instead
//! ([`Slog2Reader::window_into`](crate::Slog2Reader::window_into), [`Slog2Reader::window_preview_into`](crate::Slog2Reader::window_preview_into)): the same
//! answer, read through borrowed views, with no allocation per query once the
//! buffer has grown (owned values on request):
//!
//! ```no_run
//! # fn main() -> slog2_format::Result<()> {
//! use slog2_format::{Slog2Reader, WindowBuf};
//!
//! let mut r = Slog2Reader::new(std::fs::File::open("trace.slog2").unwrap())?;
//! let mut buf = WindowBuf::new();
//! r.window_into(&mut buf, 0.5, 0.6)?;
//! let states = buf.drawables().filter(|d| d.vertices().len() == 2).count();
//! println!("{states} of {} drawables have two vertices", buf.drawables_len());
//! # Ok(()) }
//! ```
//!
//! A query reads each block at most once and follows a stub only to a node exactly
//! one level down, so it ends on every input; it walks with an explicit stack, never
//! by recursion. Bad trees give an [`Error`](crate::Error) naming the byte offset.
//!
//! Answers hold only what the file can vouch for: by default a drawable or shadow
//! of a node read whose category or line ID the file cannot resolve, or whose time
//! lies outside its node's box, is an [`Error::BadDrawable`](crate::Error::BadDrawable) at its offset; a node
//! that disagrees with the TreeDir, or a file whose header or TreeDir breaks an
//! error rule of `check`, is an [`Error::BadTree`](crate::Error::BadTree). A lenient reader drops such
//! drawables instead and counts them:
//!
//! ```no_run
//! # fn main() -> slog2_format::Result<()> {
//! use slog2_format::Slog2Reader;
//!
//! let mut r = Slog2Reader::new(std::fs::File::open("damaged.slog2").unwrap())?;
//! r.set_lenient(true);
//! let answer = r.window(0.5, 0.6)?;
//! println!("{} drawables, {} dropped", answer.drawables.len(), r.dropped().drawables);
//! # Ok(()) }
//! ```

use crate::counters::Counters;
use crate::size::{drawable_key, shadow_key, start_order};
use crate::types::*;
use std::cmp::Ordering;

mod buf;
pub(crate) mod node_scan;
pub(crate) mod raw;
pub(crate) mod scan;
pub(crate) mod tree_index;
pub use buf::{DrawableRef, NotStorable, PrimitiveRef, ShadowRef, WindowBuf};
pub(crate) use raw::RawStore;
pub use raw::{RawDrawable, RawParts, RawPrimitive, RawWindowBuf};
pub(crate) use tree_index::{TreeIndex, WindowCache};

/// A half-open time window `[start, end)`.
///
/// Something whose time box is `[earliest, latest]` (a drawable, a shadow, a node
/// or a stub) *meets* the window iff `earliest < end && latest >= start`. So an
/// event at `t` meets it iff `start <= t < end`; a zero-width window
/// (`start == end`) is met only by boxes with `earliest < start <= latest`; NaN
/// bounds or times meet nothing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeWindow {
    /// Start of the window (inclusive), in seconds.
    pub start: f64,
    /// End of the window (exclusive), in seconds.
    pub end: f64,
}

impl TimeWindow {
    /// The window `[start, end)`.
    ///
    /// ```
    /// use slog2_format::TimeWindow;
    ///
    /// let w = TimeWindow::new(1.0, 2.0);
    /// assert!(w.meets(1.5, 3.0)); // a state across the end
    /// assert!(w.meets(0.5, 1.0)); // ends at the start: meets
    /// assert!(!w.meets(2.0, 2.5)); // starts at the end: does not
    /// ```
    pub fn new(start: f64, end: f64) -> TimeWindow {
        TimeWindow { start, end }
    }

    /// Whether the time box `[earliest, latest]` meets the window:
    /// `earliest < end && latest >= start`. False whenever a value is NaN.
    ///
    /// ```
    /// use slog2_format::TimeWindow;
    /// let w = TimeWindow::new(1.0, 2.0);
    /// assert!(w.meets(1.5, 1.6));
    /// assert!(!w.meets(2.0, 3.0)); // the end is exclusive
    /// assert!(!w.meets(f64::NAN, 1.5));
    /// ```
    pub fn meets(&self, earliest: f64, latest: f64) -> bool {
        earliest < self.end && latest >= self.start
    }

    /// Whether a real drawable is visible in the window (its box, the vertex
    /// minimum and maximum, meets it). A drawable without vertices is never visible.
    ///
    /// ```
    /// use slog2_format::{types::{Coord, Drawable, JStr, Primitive}, TimeWindow};
    /// let event = |time| Drawable::Primitive(Primitive { category: 1, info: JStr::new(""), vertices: vec![Coord { time, line_id: 0 }] });
    /// let w = TimeWindow::new(1.0, 2.0);
    /// assert!(w.shows(&event(1.0)));
    /// assert!(!w.shows(&event(2.0)));
    /// ```
    pub fn shows(&self, d: &Drawable) -> bool {
        self.meets(d.earliest(), d.latest())
    }

    /// Whether a shadow's stored box meets the window.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// use slog2_format::TimeWindow;
    /// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// let root = r.read_root()?;
    /// let s = root.value.stubs.iter().flat_map(|s| &s.nestable).next().unwrap();
    /// assert!(TimeWindow::new(s.earliest, s.latest).shows_shadow(s));
    /// assert!(!TimeWindow::new(s.latest + 1.0, s.latest + 2.0).shows_shadow(s));
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn shows_shadow(&self, s: &Shadow) -> bool {
        self.meets(s.earliest, s.latest)
    }

    /// The width `end - start`.
    ///
    /// ```
    /// assert_eq!(slog2_format::TimeWindow::new(1.0, 3.5).width(), 2.5);
    /// ```
    pub fn width(&self) -> f64 {
        self.end - self.start
    }
}

/// An item found by a query, with the tree node it belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct Located<T> {
    /// For a drawable, the node that holds it. For a shadow, the child node whose
    /// subtree it summarizes (the node its stub describes, which was not read).
    pub node: NodeId,
    /// The drawable or shadow.
    pub value: T,
}

/// What a window query found and what it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowAnswer {
    /// The window asked for.
    pub window: TimeWindow,
    /// Every real drawable of every node read that meets the window, sorted by
    /// [`drawable_order`], ties by node (depth descending, then xpos) and then in
    /// file order (nestless list before nestable list). Composites count as one.
    pub drawables: Vec<Located<Drawable>>,
    /// Preview queries only: the shadows that meet the window, of the stubs whose
    /// subtree was not read because it is narrower than a pixel. Sorted by
    /// [`shadow_order`], ties by node and then in file order. Always empty for
    /// [`Slog2Reader::window`](crate::Slog2Reader::window).
    pub shadows: Vec<Located<Shadow>>,
    /// The nodes read, in the order they were read (the root first).
    pub nodes: Vec<NodeId>,
    /// What this query read: tree nodes, and the bytes of their blocks. Opening
    /// the file is not included (see [`Slog2Reader::counters`](crate::Slog2Reader::counters) for the totals).
    pub counters: Counters,
}

/// Java's `INCRE_STARTTIME_ORDER` (spec §10.1, [`crate::size::start_order`]) for
/// two real drawables (their box is the vertex minimum and maximum; for a composite,
/// over all its parts).
///
/// ```
/// use slog2_format::{window::drawable_order, types::{Coord, Drawable, JStr, Primitive}};
/// let state = |from, to| Drawable::Primitive(Primitive { category: 1, info: JStr::new(""), vertices: vec![
///     Coord { time: from, line_id: 0 }, Coord { time: to, line_id: 0 },
/// ] });
/// let mut v = vec![state(1.0, 2.0), state(0.0, 1.0), state(0.0, 3.0)];
/// v.sort_by(drawable_order);
/// assert_eq!(v, [state(0.0, 3.0), state(0.0, 1.0), state(1.0, 2.0)]); // start, then the longest
/// ```
pub fn drawable_order(a: &Drawable, b: &Drawable) -> Ordering {
    start_order(drawable_key(a), drawable_key(b))
}

/// Java's `INCRE_STARTTIME_ORDER` (spec §10.1, [`crate::size::start_order`]) for
/// two shadows (their box is the stored union box; the line IDs are those of the
/// first and last vertex).
///
/// ```
/// # use slog2_format::convert::clog2_to_slog2;
/// # use slog2_format::Slog2Reader;
/// # use std::io::Cursor;
/// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
/// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
/// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// # let bytes = out.into_inner();
/// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
/// let root = r.read_root()?;
/// let mut shadows: Vec<_> = root.value.stubs.iter().flat_map(|s| s.nestable.iter().cloned()).collect();
/// shadows.sort_by(slog2_format::window::shadow_order);
/// assert!(shadows.windows(2).all(|w| w[0].earliest <= w[1].earliest));
/// # Ok::<(), slog2_format::Error>(())
/// ```
pub fn shadow_order(a: &Shadow, b: &Shadow) -> Ordering {
    start_order(shadow_key(a), shadow_key(b))
}

/// The most tree nodes a full window query ([`Slog2Reader::window`](crate::Slog2Reader::window)) reads in a
/// file written the way the Java one-pass writer writes (spec/queries.md §2.3), with
/// `k = num_children_per_node`, root depth `depth` and `drawables` drawables
/// returned: `ceil(k / (k - 1) * (drawables + 2 + 2 * depth))`, which is
/// `2 * drawables + 4 * depth + 4` for `k = 2`. `u64::MAX` (no bound) for `k < 2`;
/// saturates at `u64::MAX`.
///
/// ```
/// use slog2_format::node_read_bound;
/// assert_eq!(node_read_bound(2, 3, 100), 2 * 100 + 4 * 3 + 4);
/// assert_eq!(node_read_bound(1, 3, 100), u64::MAX); // no bound
/// ```
pub fn node_read_bound(k: u32, depth: u32, drawables: u64) -> u64 {
    if k < 2 {
        return u64::MAX;
    }
    let k = k as u128;
    let n = k * (drawables as u128 + 2 + 2 * depth as u128);
    let bound = n.div_ceil(k - 1);
    u64::try_from(bound).unwrap_or(u64::MAX)
}

/// The most tree nodes a preview query ([`Slog2Reader::window_preview`](crate::Slog2Reader::window_preview)) reads in a
/// file whose same-depth node boxes do not overlap and increase with xpos
/// (spec/queries.md §2.4): the root, plus at most `pixels + 2` nodes at each lower depth, i.e.
/// `1 + depth * (pixels + 2)`. Saturates at `u64::MAX`.
///
/// ```
/// use slog2_format::window::preview_node_read_bound;
/// assert_eq!(preview_node_read_bound(3, 640), 1 + 3 * 642);
/// assert_eq!(preview_node_read_bound(0, 640), 1); // the root alone
/// ```
pub fn preview_node_read_bound(depth: u32, pixels: u32) -> u64 {
    let pixels = pixels.max(1) as u64;
    (depth as u64)
        .checked_mul(pixels + 2)
        .and_then(|n| n.checked_add(1))
        .unwrap_or(u64::MAX)
}

/// [`Slog2Reader::window_picture_into`](crate::Slog2Reader::window_picture_into) summarises a child up to this many
/// pixels wide, and at most [`PICTURE_SHARE`] of the window, by its shadows
/// when they are dense enough.
pub const PICTURE_SPAN: f64 = 4.0;

/// The largest share of the window that a child summarised for its density
/// may span (so a shadow straddling the window's edge moves little time across
/// it).
pub const PICTURE_SHARE: f64 = 1.0 / 400.0;

/// [`Slog2Reader::window_picture_into`](crate::Slog2Reader::window_picture_into) reads at most the depths whose
/// TreeDir blocks meeting the window, less the two largest of each depth,
/// total this many bytes (from the root down): a wide picture of a file with
/// many timelines, whose upper nodes carry a shadow per timeline and
/// category, shows coarser boxes rather than read gigabytes, while a narrow
/// window still reads its path down to the leaves. 4 MiB is about 160 bytes
/// (four drawables) per cell of a picture 1,600 pixels wide with 16 rows:
/// above that the shadows summarise each cell as well, and the answer stays
/// within tens of milliseconds whatever the file's size.
pub const PICTURE_BUDGET: u64 = 4 << 20;

/// What [`PICTURE_BUDGET`] charges per byte of a compressed file's node
/// frame: a node inflates to about three times its frame (MPE's
/// converter's trees, 2.8 on a generated 1 GB trace), and inflating costs
/// more than reading, so a compressed file's picture costs what a plain one's
/// does.
pub const COMPRESSED_CHARGE: u64 = 4;

/// [`Slog2Reader::window_picture_into`](crate::Slog2Reader::window_picture_into): the drawables per pixel that each
/// shadow of a child must stand for, on average, for the child to be
/// summarised rather than read.
pub const PICTURE_DENSITY: f64 = 2.0;
