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
//! ([`Slog2Reader::window_into`], [`Slog2Reader::window_preview_into`]): the same
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
//! by recursion. Bad trees give an [`Error`] naming the byte offset.
//!
//! Answers hold only what the file can vouch for: by default a drawable or shadow
//! of a node read whose category or line ID the file cannot resolve, or whose time
//! lies outside its node's box, is an [`Error::BadDrawable`] at its offset; a node
//! that disagrees with the TreeDir, or a file whose header or TreeDir breaks an
//! error rule of `check`, is an [`Error::BadTree`]. A lenient reader drops such
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

use crate::error::{Error, Result, TreeProblem};
use crate::read::{Counters, Slog2Reader, Validation, WalkCache, TREEROOT_AT};
use crate::size::start_order;
use crate::types::*;
use scan::{Checks, SortKey};
use std::cmp::Ordering;
use std::io::{Read, Seek};

#[path = "window_scan.rs"]
pub(crate) mod scan;
use scan as window_scan;

#[path = "window_buf.rs"]
pub(crate) mod buf;
pub use buf::{DrawableRef, NotStorable, PrimitiveRef, ShadowRef, WindowBuf};

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
    pub fn new(start: f64, end: f64) -> TimeWindow {
        TimeWindow { start, end }
    }

    /// Whether the time box `[earliest, latest]` meets the window:
    /// `earliest < end && latest >= start`. False whenever a value is NaN.
    pub fn meets(&self, earliest: f64, latest: f64) -> bool {
        earliest < self.end && latest >= self.start
    }

    /// Whether a real drawable is visible in the window (its box, the vertex
    /// minimum and maximum, meets it). A drawable without vertices is never visible.
    pub fn shows(&self, d: &Drawable) -> bool {
        self.meets(d.earliest(), d.latest())
    }

    /// Whether a shadow's stored box meets the window.
    pub fn shows_shadow(&self, s: &Shadow) -> bool {
        self.meets(s.earliest, s.latest)
    }

    /// The width `end - start`.
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
    /// [`Slog2Reader::window`].
    pub shadows: Vec<Located<Shadow>>,
    /// The nodes read, in the order they were read (the root first).
    pub nodes: Vec<NodeId>,
    /// What this query read: tree nodes, and the bytes of their blocks. Opening
    /// the file is not included (see [`Slog2Reader::counters`] for the totals).
    pub counters: Counters,
}

pub(crate) fn drawable_key(d: &Drawable) -> (f64, f64, i32, (i32, i32)) {
    (d.earliest(), d.latest(), d.category(), d.end_lines())
}

fn shadow_key(s: &Shadow) -> (f64, f64, i32, (i32, i32)) {
    (
        s.earliest,
        s.latest,
        s.category,
        (
            s.vertices.first().map_or(0, |c| c.line_id),
            s.vertices.last().map_or(0, |c| c.line_id),
        ),
    )
}

/// Java's `INCRE_STARTTIME_ORDER` (spec §10.1, [`crate::size::start_order`]) for
/// two real drawables (their box is the vertex minimum and maximum; for a composite,
/// over all its parts).
pub fn drawable_order(a: &Drawable, b: &Drawable) -> Ordering {
    start_order(drawable_key(a), drawable_key(b))
}

/// Java's `INCRE_STARTTIME_ORDER` (spec §10.1, [`crate::size::start_order`]) for
/// two shadows (their box is the stored union box; the line IDs are those of the
/// first and last vertex).
pub fn shadow_order(a: &Shadow, b: &Shadow) -> Ordering {
    start_order(shadow_key(a), shadow_key(b))
}

/// The most tree nodes a full window query ([`Slog2Reader::window`]) reads in a
/// file written the way the Java one-pass writer writes (spec/queries.md §2.3), with
/// `k = num_children_per_node`, root depth `depth` and `drawables` drawables
/// returned: `ceil(k / (k - 1) * (drawables + 2 + 2 * depth))`, which is
/// `2 * drawables + 4 * depth + 4` for `k = 2`. `u64::MAX` (no bound) for `k < 2`;
/// saturates at `u64::MAX`.
pub fn node_read_bound(k: u32, depth: u32, drawables: u64) -> u64 {
    if k < 2 {
        return u64::MAX;
    }
    let k = k as u128;
    let n = k * (drawables as u128 + 2 + 2 * depth as u128);
    let bound = n.div_ceil(k - 1);
    u64::try_from(bound).unwrap_or(u64::MAX)
}

/// The most tree nodes a preview query ([`Slog2Reader::window_preview`]) reads in a
/// file whose same-depth node boxes do not overlap and increase with xpos
/// (spec/queries.md §2.4): the root, plus at most `pixels + 2` nodes at each lower depth, i.e.
/// `1 + depth * (pixels + 2)`. Saturates at `u64::MAX`.
pub fn preview_node_read_bound(depth: u32, pixels: u32) -> u64 {
    let pixels = pixels.max(1) as u64;
    (depth as u64)
        .checked_mul(pixels + 2)
        .and_then(|n| n.checked_add(1))
        .unwrap_or(u64::MAX)
}

/// Offset of each stub inside its node's block (node header, both drawable lists
/// and the counts before them).
fn stub_offsets(n: &TreeNodeBody, base: u64, v206: bool) -> Vec<u64> {
    let mut at = base
        + 34
        + 4
        + n.nestless.iter().map(Drawable::disk_len).sum::<u64>()
        + 4
        + n.nestable.iter().map(Drawable::disk_len).sum::<u64>()
        + 4;
    n.stubs
        .iter()
        .map(|s| {
            let here = at;
            at += s.disk_len(v206);
            here
        })
        .collect()
}

impl<R: Read + Seek> Slog2Reader<R> {
    /// Whether a node read at `ptr` (stored at `ptr_at`) fits the tree: the stub
    /// that led to it (if any) names a child of its parent that the TreeDir holds
    /// at `ptr`, and the node agrees with the TreeDir entry of that ID (of the
    /// TreeDir's root for the root). These are the checks of S2-TREE-002 and
    /// S2-DIR-003, at the offsets `check` reports. A file with an empty TreeDir
    /// is not compared with it.
    fn check_followed(
        &mut self,
        h: &NodeHeader,
        ptr: FileBlockPtr,
        ptr_at: u64,
        stub: Option<(NodeId, NodeId)>,
        k: i32,
    ) -> Result<()> {
        let h = *h;
        let id = h.id;
        let base = ptr.offset as u64;
        let bad = |offset: u64, problem: TreeProblem, what: String| Error::BadTree {
            offset,
            node: id,
            problem,
            what,
        };
        let cache = self.walk_cache();
        if cache.dir.is_empty() {
            return Ok(());
        }
        let want = match stub {
            Some((parent, sid)) => {
                if sid.xpos.checked_div(k) != Some(parent.xpos) {
                    return Err(bad(
                        ptr_at - 6,
                        TreeProblem::NotAChild,
                        format!(
                            "stub ({},{}) is not a child of node ({},{}) with {k} children per node",
                            sid.depth, sid.xpos, parent.depth, parent.xpos
                        ),
                    ));
                }
                match cache.dir.get(&sid) {
                    None => {
                        return Err(bad(
                            ptr_at - 6,
                            TreeProblem::NotAChild,
                            format!("stub ({},{}) has no TreeDir entry", sid.depth, sid.xpos),
                        ))
                    }
                    Some(c) if c.ptr != ptr => {
                        return Err(bad(
                            ptr_at,
                            TreeProblem::NotAChild,
                            format!(
                                "stub ({},{}) points at {}@{} but the child is at {}@{}",
                                sid.depth, sid.xpos, ptr.size, ptr.offset, c.ptr.size, c.ptr.offset
                            ),
                        ))
                    }
                    Some(_) => sid,
                }
            }
            None => match cache.root {
                Some(r) => r,
                None => return Ok(()),
            },
        };
        let Some(e) = cache.dir.get(&want) else {
            return Ok(());
        };
        if stub.is_none() && e.ptr != ptr {
            return Err(bad(
                ptr_at,
                TreeProblem::File("S2-DIR-002"),
                format!(
                    "treeroot points at {}@{} but the TreeDir's root ({},{}) is at {}@{}",
                    ptr.size, ptr.offset, want.depth, want.xpos, e.ptr.size, e.ptr.offset
                ),
            ));
        }
        if id != want {
            return Err(bad(
                base + 16,
                TreeProblem::DisagreesWithTreeDir,
                format!(
                    "the block at byte {base} says it is node ({},{}), its pointer is that of node ({},{})",
                    id.depth, id.xpos, want.depth, want.xpos
                ),
            ));
        }
        if e.ptr != ptr || h.ptr != ptr {
            return Err(bad(
                base + 22,
                TreeProblem::DisagreesWithTreeDir,
                format!(
                    "node ({},{}) was read from {}@{} and says it is at {}@{}; its TreeDir entry says {}@{}",
                    id.depth, id.xpos, ptr.size, ptr.offset, h.ptr.size, h.ptr.offset, e.ptr.size, e.ptr.offset
                ),
            ));
        }
        if e.earliest.to_bits() != h.earliest.to_bits() || e.latest.to_bits() != h.latest.to_bits()
        {
            return Err(bad(
                base,
                TreeProblem::DisagreesWithTreeDir,
                format!(
                    "node ({},{}) has the box [{:?},{:?}], its TreeDir entry [{:?},{:?}]",
                    id.depth, id.xpos, h.earliest, h.latest, e.earliest, e.latest
                ),
            ));
        }
        Ok(())
    }

    /// The stubs of a node read that the query does not follow: the node has stubs
    /// iff it is above the leaves (S2-TREE-001/002, at the stub count), and each
    /// stub not followed names a child that the TreeDir holds (S2-TREE-002, at the
    /// stub's ID field). Its pointer is not looked at.
    fn check_stubs(
        &mut self,
        id: NodeId,
        n_stubs: usize,
        count_at: u64,
        unfollowed: &[(NodeHeader, u64)],
        k: i32,
    ) -> Result<()> {
        let bad = |offset: u64, problem: TreeProblem, what: String| Error::BadTree {
            offset,
            node: id,
            problem,
            what,
        };
        if id.depth > 0 && n_stubs == 0 {
            return Err(bad(
                count_at,
                TreeProblem::NoStubs,
                format!(
                    "node ({},{}) has depth {} but no child stubs",
                    id.depth, id.xpos, id.depth
                ),
            ));
        }
        if id.depth == 0 && n_stubs > 0 {
            return Err(bad(
                count_at,
                TreeProblem::LeafWithStubs,
                format!("leaf (0,{}) has child stubs", id.xpos),
            ));
        }
        let dir = &self.walk_cache().dir;
        if dir.is_empty() {
            return Ok(());
        }
        for (h, at) in unfollowed {
            let sid = h.id;
            if Some(sid.depth) != id.depth.checked_sub(1)
                || sid.xpos.checked_div(k) != Some(id.xpos)
            {
                return Err(bad(
                    at + 16,
                    TreeProblem::NotAChild,
                    format!(
                        "stub ({},{}) is not a child of node ({},{}) with {k} children per node",
                        sid.depth, sid.xpos, id.depth, id.xpos
                    ),
                ));
            }
            if !dir.contains_key(&sid) {
                return Err(bad(
                    at + 16,
                    TreeProblem::NotAChild,
                    format!("stub ({},{}) has no TreeDir entry", sid.depth, sid.xpos),
                ));
            }
            // The pointer of a stub not followed is not looked at (a query reads
            // nothing it does not need).
        }
        Ok(())
    }
}

/// Where a walk stops descending: into children narrower than a pixel
/// (previews), and below a depth (`window_to_depth`). A child not read gives
/// its stub's shadows instead.
#[derive(Debug, Clone, Copy)]
struct Stop {
    pixel: Option<f64>,
    lowest: i16,
    /// Pictures: also stop at children up to [`PICTURE_SPAN`] pixels wide
    /// whose shadows stand for at least [`PICTURE_DENSITY`] drawables per
    /// pixel each.
    dense: bool,
}

impl Default for Stop {
    fn default() -> Stop {
        Stop {
            pixel: None,
            lowest: i16::MIN,
            dense: false,
        }
    }
}

/// [`Slog2Reader::window_picture_into`] summarises a child up to this many
/// pixels wide, and at most [`PICTURE_SHARE`] of the window, by its shadows
/// when they are dense enough.
pub const PICTURE_SPAN: f64 = 4.0;

/// The largest share of the window that a child summarised for its density
/// may span (so a shadow straddling the window's edge moves little time across
/// it).
pub const PICTURE_SHARE: f64 = 1.0 / 400.0;

/// [`Slog2Reader::window_picture_into`] reads at most the depths whose
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

/// [`Slog2Reader::window_picture_into`]: the drawables per pixel that each
/// shadow of a child must stand for, on average, for the child to be
/// summarised rather than read.
pub const PICTURE_DENSITY: f64 = 2.0;

/// A node to read: its pointer, where that pointer is stored, and (for a child) the
/// parent and the ID its stub names.
struct Pending {
    ptr: FileBlockPtr,
    ptr_at: u64,
    stub: Option<(NodeId, NodeId)>,
}

impl<R: Read + Seek> Slog2Reader<R> {
    /// The real drawables that meet the window `[start, end)` (see
    /// [`TimeWindow::meets`]), at full resolution.
    ///
    /// Reads the root, then every child whose stub box meets the window, down to
    /// the leaves; each node read costs one read of its block. Collects the visible
    /// drawables of every node read. In a file written like Java's writer, this finds
    /// every drawable of the file that meets the window, and reads at most
    /// [`node_read_bound`] nodes.
    ///
    /// Errors: any error reading a node (pointer outside the file, block larger than
    /// `max_buffer_bytesize`, parse errors), a stub whose node ID or whose target
    /// node's depth is not one less than its parent's, and a block reached twice.
    /// Unless the reader's validation is [`Validation::Off`], also: a drawable or
    /// shadow of a node read that the file cannot resolve ([`Error::BadDrawable`];
    /// a lenient reader drops it instead), and ([`Error::BadTree`]) a node read
    /// that disagrees with its TreeDir entry, a stub that names no child of its
    /// node, and a header, line-ID map list or TreeDir that breaks an error rule of
    /// `check` (spec/queries.md §2.2).
    pub fn window(&mut self, start: f64, end: f64) -> Result<WindowAnswer> {
        let mut buf = std::mem::take(&mut self.window_bufs);
        let found = self.window_into(&mut buf, start, end);
        let answer = found.map(|()| buf.to_answer());
        self.window_bufs = buf;
        answer
    }

    /// [`window`](Self::window) into a reusable buffer: the same drawables, nodes
    /// and counters, in the same order, held in `buf`'s flat arrays (read them with
    /// [`WindowBuf::drawables`]; [`WindowBuf::to_answer`] gives what `window`
    /// returns). Once `buf` has grown to the size of the answers, a query allocates
    /// nothing. The same errors as `window`; after an error `buf` holds an empty
    /// answer.
    ///
    /// ```no_run
    /// # fn main() -> slog2_format::Result<()> {
    /// use slog2_format::{Slog2Reader, WindowBuf};
    ///
    /// let mut r = Slog2Reader::new(std::fs::File::open("trace.slog2").unwrap())?;
    /// let mut buf = WindowBuf::new();
    /// r.window_into(&mut buf, 0.5, 0.6)?;
    /// for d in buf.drawables() {
    ///     println!("{} at {:?}: {} vertices", d.category(), d.node(), d.vertices().len());
    /// }
    /// // Owned values on request.
    /// let first: Option<slog2_format::Drawable> = buf.drawable(0).map(|d| d.to_owned());
    /// assert_eq!(buf.to_answer(), r.window(0.5, 0.6)?);
    /// # Ok(()) }
    /// ```
    pub fn window_into(&mut self, buf: &mut WindowBuf, start: f64, end: f64) -> Result<()> {
        self.walk_into(buf, TimeWindow::new(start, end), Stop::default())
    }

    /// Like [`window`](Self::window), reading no node below depth `lowest`
    /// (slog2navigator's `d=`; 0 reads down to the leaves): the nodes at depth
    /// `lowest` are read, and their children meeting the window are shown by
    /// their stub's shadows in [`WindowAnswer::shadows`], as a preview shows
    /// subtrees narrower than a pixel.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use slog2_format::convert::clog2_to_slog2;
    /// use slog2_format::write::TreeOptions;
    /// let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// let opts = TreeOptions::default().leaf_bytes(2048);
    /// let (out, _) = clog2_to_slog2(&mut trace, std::io::Cursor::new(Vec::new()), opts, |_| {})?;
    /// let mut r = slog2_format::Slog2Reader::new(std::io::Cursor::new(out.into_inner()))?;
    /// let full = r.window(0.0, 10.0)?;
    /// let top = r.window_to_depth(0.0, 10.0, 2)?;
    /// assert!(top.nodes.len() < full.nodes.len());
    /// assert!(!top.shadows.is_empty());
    /// assert_eq!(r.window_to_depth(0.0, 10.0, 0)?, full);
    /// # Ok(()) }
    /// ```
    pub fn window_to_depth(&mut self, start: f64, end: f64, lowest: i16) -> Result<WindowAnswer> {
        let mut buf = WindowBuf::new();
        self.window_to_depth_into(&mut buf, start, end, lowest)?;
        Ok(buf.to_answer())
    }

    /// [`window_to_depth`](Self::window_to_depth) into a reusable buffer, as
    /// [`window_into`](Self::window_into) is to [`window`](Self::window).
    ///
    /// ```no_run
    /// # fn main() -> slog2_format::Result<()> {
    /// use slog2_format::{Slog2Reader, WindowBuf};
    ///
    /// let mut r = Slog2Reader::new(std::fs::File::open("trace.slog2").unwrap())?;
    /// let root = r.header().max_treedepth;
    /// let mut buf = WindowBuf::new();
    /// // Only the root: its drawables and its stubs' shadows.
    /// r.window_to_depth_into(&mut buf, 0.0, 10.0, root)?;
    /// assert_eq!(buf.counters().nodes_read, 1);
    /// # Ok(()) }
    /// ```
    pub fn window_to_depth_into(
        &mut self,
        buf: &mut WindowBuf,
        start: f64,
        end: f64,
        lowest: i16,
    ) -> Result<()> {
        let stop = Stop {
            pixel: None,
            lowest,
            dense: false,
        };
        self.walk_into(buf, TimeWindow::new(start, end), stop)
    }

    /// Like [`window`](Self::window), for a view `pixels` wide: one pixel is
    /// `(end - start) / pixels` seconds, and the query does not descend into a child
    /// whose span (stub `latest - earliest`) is less than one pixel. It returns that
    /// stub's shadows that meet the window instead, in
    /// [`WindowAnswer::shadows`]. The drawables are those of the nodes read.
    /// `pixels = 0` is taken as 1. Reads at most [`preview_node_read_bound`] nodes
    /// in a file whose same-depth boxes do not overlap.
    pub fn window_preview(&mut self, start: f64, end: f64, pixels: u32) -> Result<WindowAnswer> {
        let mut buf = std::mem::take(&mut self.window_bufs);
        let found = self.window_preview_into(&mut buf, start, end, pixels);
        let answer = found.map(|()| buf.to_answer());
        self.window_bufs = buf;
        answer
    }

    /// [`window_preview`](Self::window_preview) into a reusable buffer, as
    /// [`window_into`](Self::window_into) is to [`window`](Self::window): the
    /// drawables and the shadows ([`WindowBuf::shadows`]) that `window_preview`
    /// returns, in the same order.
    ///
    /// ```no_run
    /// # fn main() -> slog2_format::Result<()> {
    /// use slog2_format::{Slog2Reader, WindowBuf};
    ///
    /// let mut r = Slog2Reader::new(std::fs::File::open("trace.slog2").unwrap())?;
    /// let mut buf = WindowBuf::new();
    /// r.window_preview_into(&mut buf, 0.0, 10.0, 1000)?;
    /// for s in buf.shadows() {
    ///     println!("{} summarizes {} drawables of {:?}", s.category(), s.num_real_objs(), s.node());
    /// }
    /// assert_eq!(buf.to_answer(), r.window_preview(0.0, 10.0, 1000)?);
    /// # Ok(()) }
    /// ```
    pub fn window_preview_into(
        &mut self,
        buf: &mut WindowBuf,
        start: f64,
        end: f64,
        pixels: u32,
    ) -> Result<()> {
        let w = TimeWindow::new(start, end);
        let pixel = w.width() / f64::from(pixels.max(1));
        self.walk_into(
            buf,
            w,
            Stop {
                pixel: Some(pixel),
                lowest: i16::MIN,
                dense: false,
            },
        )
    }

    /// The query behind a picture of the window `pixels` wide: like
    /// [`window_preview_into`](Self::window_preview_into), and it also does not
    /// descend into a child narrower than [`PICTURE_SPAN`] pixels and
    /// [`PICTURE_SHARE`] of the window whose stub's
    /// shadows stand for at least [`PICTURE_DENSITY`] real drawables per pixel
    /// each on average (`Σ num_real_objs / shadows / (span / pixel)`): what
    /// would be drawn there is many drawables to a pixel on each timeline, which
    /// the shadows summarise as well. So above a few drawables per pixel, what
    /// a picture reads follows its pixels, not the drawables (spec/queries.md
    /// §2.2 step 6). Reads at most [`preview_node_read_bound`] nodes, as a
    /// preview does. The drawables and shadows are left in the order the
    /// nodes were read (not sorted as a preview's are).
    ///
    /// ```no_run
    /// # fn main() -> slog2_format::Result<()> {
    /// use slog2_format::{Slog2Reader, WindowBuf};
    ///
    /// let mut r = Slog2Reader::new(std::fs::File::open("trace.slog2").unwrap())?;
    /// let mut buf = WindowBuf::new();
    /// r.window_picture_into(&mut buf, 0.0, 10.0, 1600)?;
    /// let mut preview = WindowBuf::new();
    /// r.window_preview_into(&mut preview, 0.0, 10.0, 1600)?;
    /// assert!(buf.counters().nodes_read <= preview.counters().nodes_read);
    /// # Ok(()) }
    /// ```
    pub fn window_picture_into(
        &mut self,
        buf: &mut WindowBuf,
        start: f64,
        end: f64,
        pixels: u32,
    ) -> Result<()> {
        let w = TimeWindow::new(start, end);
        let pixel = w.width() / f64::from(pixels.max(1));
        let lowest = self.budget_depth(&w, self.picture_budget);
        self.walk_into(
            buf,
            w,
            Stop {
                pixel: Some(pixel),
                lowest,
                dense: true,
            },
        )
    }

    /// The lowest depth a picture of window `w` may read within `budget`
    /// bytes of breadth: the deepest `D` such that the TreeDir's nodes meeting
    /// the window at depth `D` and above, less the two largest of each depth
    /// (a narrow window's path down, which every query reads), total at most
    /// `budget` bytes. `i16::MIN` (no limit) when every depth fits or the
    /// file has no TreeDir.
    fn budget_depth(&mut self, w: &TimeWindow, budget: u64) -> i16 {
        // Per depth: all bytes, and the two largest blocks.
        let mut by_depth: std::collections::BTreeMap<i16, (u64, [u64; 2])> = Default::default();
        let charge = match self.version().is_compressed() {
            true => COMPRESSED_CHARGE,
            false => 1,
        };
        for e in self.walk_cache().dir.values() {
            if w.meets(e.earliest, e.latest) {
                let size = (e.ptr.size.max(0) as u64).saturating_mul(charge);
                let (all, top) = by_depth.entry(e.id.depth).or_default();
                *all += size;
                if size > top[0] {
                    *top = [size, top[0]];
                } else if size > top[1] {
                    top[1] = size;
                }
            }
        }
        let mut total = 0u64;
        // The top depth is read whatever its size.
        let mut lowest = by_depth.keys().next_back().copied().unwrap_or(i16::MIN);
        for (&depth, &(all, top)) in by_depth.iter().rev() {
            total = total.saturating_add(all - top[0] - top[1]);
            if total > budget {
                return lowest;
            }
            lowest = depth;
        }
        i16::MIN
    }

    /// [`walk`](Self::walk), leaving an empty answer in `buf` after an error.
    fn walk_into(&mut self, buf: &mut WindowBuf, w: TimeWindow, stop: Stop) -> Result<()> {
        let found = self.walk(buf, w, stop);
        if found.is_err() {
            buf.clear(w);
        }
        found
    }

    /// The TreeDir by ID and the file-level check, made at the first query.
    fn walk_cache(&mut self) -> &WalkCache {
        if self.walk_cache.is_none() {
            let dir = self
                .tree_dir()
                .map(|t| t.value.entries.iter().map(|e| (e.id, *e)).collect())
                .unwrap_or_default();
            let file_error = crate::check::first_file_error(self);
            let root = self.tree_dir().and_then(|t| t.value.root().map(|e| e.id));
            let blocks = self
                .tree_dir()
                .map(|t| t.value.entries.iter().map(|e| e.ptr).collect())
                .unwrap_or_default();
            self.walk_cache = Some(WalkCache {
                dir,
                root,
                blocks,
                file_error,
            });
        }
        self.walk_cache.as_ref().expect("just made")
    }

    fn walk(&mut self, buf: &mut WindowBuf, window: TimeWindow, stop: Stop) -> Result<()> {
        let before = self.counters();
        let v206 = self.version().is_v206();
        let validation = self.validation();
        let checked = validation != Validation::Off;
        let k = i32::from(self.header().num_children_per_node.max(1));
        buf.clear(window);
        buf.seen.clear();
        let mut bytes = std::mem::take(&mut buf.node_bytes);
        let root = self.header().treeroot;
        let mut stack = vec![Pending {
            ptr: root,
            ptr_at: self.pointer_at(TREEROOT_AT),
            stub: None,
        }];
        let mut found = Ok(());
        while let Some(p) = stack.pop() {
            let ptr_at = p.ptr_at;
            // Formatted only for an error.
            let what = || match p.stub {
                None => "the header's treeroot pointer".to_string(),
                Some((parent, child)) => format!(
                    "the stub for node ({},{}) in node ({},{})",
                    child.depth, child.xpos, parent.depth, parent.xpos
                ),
            };
            if self.check_ptr(p.ptr, "", ptr_at).is_err() {
                self.check_ptr(p.ptr, &what(), ptr_at)?;
            }
            if !buf.seen.insert(p.ptr.offset) {
                return Err(Error::BadValue {
                    offset: ptr_at,
                    what: format!(
                        "{} points at the block at byte {}, which this query has already read (the tree has a cycle or a shared node)",
                        what(),
                        p.ptr.offset
                    ),
                });
            }
            if let (true, Some((parent, sid))) = (checked, p.stub) {
                // A stub that points at no node block of the TreeDir: report the
                // stub, not the bytes it leads to.
                let cache = self.walk_cache();
                if !cache.dir.is_empty() && !cache.blocks.contains(&p.ptr) {
                    return Err(Error::BadTree {
                        offset: ptr_at,
                        node: parent,
                        problem: TreeProblem::NotAChild,
                        what: format!(
                            "stub ({},{}) points at {}@{}, where the TreeDir has no node",
                            sid.depth, sid.xpos, p.ptr.size, p.ptr.offset
                        ),
                    });
                }
            }
            let read = self.read_node_bytes(p.ptr, ptr_at, &mut bytes, 0);
            let len = match read {
                Ok(len) => len,
                Err(e) => {
                    found = Err(e);
                    break;
                }
            };
            let step = self.walk_node(
                buf,
                &bytes[..len],
                &p,
                &what,
                window,
                stop,
                (v206, checked, validation, k),
                &mut stack,
            );
            if let Err(e) = step {
                found = Err(e);
                break;
            }
        }
        buf.node_bytes = bytes;
        found?;
        // The header and TreeDir rules last, so that a node that cannot be read is
        // reported as such.
        if checked {
            if let Some((rule, offset, node, what)) = self.walk_cache().file_error.clone() {
                return Err(Error::BadTree {
                    offset,
                    node: node.unwrap_or_default(),
                    problem: TreeProblem::File(rule),
                    what: format!("{rule}: {what}"),
                });
            }
        }
        // A stable sort: within one node, file order (nestless before nestable).
        // The lists of a node are in start order already, so this merges runs.
        // A picture's summary orders what it needs itself.
        if stop.dense {
            buf.store.in_read_order();
        } else {
            buf.store.sort();
        }
        let after = self.counters();
        buf.counters = Counters {
            nodes_read: after.nodes_read - before.nodes_read,
            bytes_read: after.bytes_read - before.bytes_read,
        };
        Ok(())
    }

    /// One node of [`walk`](Self::walk): its bytes are `bytes`, read as `p` says.
    /// Adds its visible drawables (and, in a preview, the visible shadows of the
    /// stubs not followed) to `buf`, and the children to follow to `stack`.
    #[allow(clippy::too_many_arguments)]
    fn walk_node(
        &mut self,
        buf: &mut WindowBuf,
        bytes: &[u8],
        p: &Pending,
        what: &dyn Fn() -> String,
        window: TimeWindow,
        stop: Stop,
        (v206, checked, validation, k): (bool, bool, Validation, i32),
        stack: &mut Vec<Pending>,
    ) -> Result<()> {
        let ptr_at = p.ptr_at;
        let base = p.ptr.offset as u64;
        let too_large = || {
            Error::BadValue {
            offset: base,
            what: "the window answer does not fit a WindowBuf (more than 4 Gi vertices, info bytes, parts or weights)"
                .into(),
        }
        };
        if !buf.store.fits(bytes.len()) {
            return Err(too_large());
        }
        let checks = match validation {
            Validation::Off => Checks::Off,
            Validation::Lenient => Checks::Items(self.legend()),
            Validation::Strict => Checks::Strict(self.legend()),
        };
        buf.entries.clear();
        buf.stubs.clear();
        let scanned = window_scan::node(
            bytes,
            v206,
            checks,
            &window,
            &mut buf.entries,
            &mut buf.stubs,
        );
        let depth_error = |id: NodeId, child: NodeId| Error::BadValue {
            offset: base + 16,
            what: format!(
                "{} points at the block at byte {}, whose node ID is ({},{}): its depth is not {}",
                what(),
                p.ptr.offset,
                id.depth,
                id.xpos,
                child.depth
            ),
        };
        let (id, count_at, stubs) = match scanned {
            // The fast path: the node parsed and passed the drawable checks.
            Some(sc) => {
                self.count_node();
                let id = sc.header.id;
                if let Some((_, child)) = p.stub {
                    if id.depth != child.depth {
                        return Err(depth_error(id, child));
                    }
                }
                let count_at = if !buf.stubs.is_empty() || (checked && id.depth > 0) {
                    base + sc.count_at as u64
                } else {
                    0
                };
                if checked {
                    self.check_followed(&sc.header, p.ptr, ptr_at, p.stub, k)?;
                }
                // Upper nodes' drawables apart, so that the leaves' (read in
                // time order) make one long run for the final sort.
                let upper = id.depth > 0;
                if upper {
                    buf.store.swap_upper();
                }
                let (a, b) = buf.entries.split_at(sc.nestless.min(buf.entries.len()));
                let decoded = if a.is_sorted_by_key(|e| e.key) && b.is_sorted_by_key(|e| e.key) {
                    // Both lists in order: decoded merged (ties nestless first, as
                    // the stable sort would put them), one sorted run per node.
                    window_scan::push_merged(bytes, a, b, &mut buf.store)
                } else {
                    window_scan::push_all(bytes, &buf.entries, &mut buf.store)
                };
                if upper {
                    buf.store.swap_upper();
                }
                decoded.map_err(|at| undecodable(base + u64::from(at)))?;
                let stubs: Vec<(NodeHeader, u64, StubShadows)> = buf
                    .stubs
                    .iter()
                    .map(|s| (s.header, base + s.at as u64, StubShadows::Bytes(s.at)))
                    .collect();
                (id, count_at, stubs)
            }
            // Anything else: decoded and checked the ordinary way, which gives
            // the error (or drops what a lenient reader drops).
            None => {
                let mut parsed =
                    crate::read::parse_block::<TreeNodeBody>(bytes, p.ptr, "a tree node", (v206,))?;
                self.count_node();
                let id = parsed.value.header.id;
                if let Some((_, child)) = p.stub {
                    if id.depth != child.depth {
                        return Err(depth_error(id, child));
                    }
                }
                // Offsets before a lenient check drops anything.
                let offsets = stub_offsets(&parsed.value, base, v206);
                // The stub count's offset, needed only to report a node without stubs.
                let count_at = match offsets.first() {
                    Some(at) => at - 4,
                    None if checked && id.depth > 0 => {
                        crate::validate::stub_at(&parsed.value, base, v206, 0) - 4
                    }
                    None => 0,
                };
                if checked {
                    self.check_followed(&parsed.value.header, p.ptr, ptr_at, p.stub, k)?;
                    self.validate_node(&mut parsed)?;
                }
                let node = parsed.value;
                for d in node.nestless.iter().chain(&node.nestable) {
                    // The sort key once per drawable (its box decides visibility).
                    let key = drawable_key(d);
                    if window.meets(key.0, key.1) {
                        buf.store
                            .push_drawable(SortKey::new(key, id), d)
                            .map_err(|_| too_large())?;
                    }
                }
                let stubs: Vec<(NodeHeader, u64, StubShadows)> = node
                    .stubs
                    .into_iter()
                    .zip(offsets)
                    .map(|(s, at)| {
                        let list = s.nestless.into_iter().chain(s.nestable).collect();
                        (s.header, at, StubShadows::Owned(list))
                    })
                    .collect();
                (id, count_at, stubs)
            }
        };
        let n_stubs = stubs.len();
        let mut unfollowed = Vec::new();
        buf.nodes.push(id);
        let mut children = Vec::new();
        for (h, stub_at, list) in stubs {
            if !window.meets(h.earliest, h.latest) {
                if checked {
                    unfollowed.push((h, stub_at));
                }
                continue;
            }
            if id.depth <= 0 || h.id.depth != id.depth - 1 {
                return Err(Error::BadValue {
                    offset: stub_at + 16,
                    what: format!(
                        "a stub in node ({},{}) names node ({},{}), which is not one level below it",
                        id.depth, id.xpos, h.id.depth, h.id.xpos
                    ),
                });
            }
            let span = h.latest - h.earliest;
            let narrow = stop.pixel.is_some_and(|px| {
                span < px
                    || (stop.dense
                        && span < px * PICTURE_SPAN
                        && span < window.width() * PICTURE_SHARE
                        && dense_enough(&list, bytes, v206, span / px))
            });
            match narrow || h.id.depth < stop.lowest {
                true => {
                    if checked {
                        unfollowed.push((h, stub_at));
                    }
                    match list {
                        StubShadows::Owned(list) => {
                            for sh in list.iter().filter(|sh| window.shows_shadow(sh)) {
                                let key = SortKey::new(shadow_key(sh), h.id);
                                buf.store.push_shadow(key, sh).map_err(|_| too_large())?;
                            }
                        }
                        StubShadows::Bytes(at) => {
                            window_scan::push_stub_shadows(
                                bytes,
                                at,
                                v206,
                                &window,
                                h.id,
                                &mut buf.store,
                            )
                            .ok_or_else(|| undecodable(base + at as u64))?;
                        }
                    }
                }
                false => children.push(Pending {
                    ptr: h.ptr,
                    ptr_at: stub_at + 22,
                    stub: Some((id, h.id)),
                }),
            }
        }
        if checked {
            self.check_stubs(id, n_stubs, count_at, &unfollowed, k)?;
        }
        // Reversed, so that children are read in xpos order.
        stack.extend(children.into_iter().rev());
        Ok(())
    }
}

/// Whether a stub's shadows stand for at least [`PICTURE_DENSITY`] real
/// drawables per pixel each, over `pixels` pixels.
fn dense_enough(list: &StubShadows, bytes: &[u8], v206: bool, pixels: f64) -> bool {
    let (objects, shadows) = match list {
        StubShadows::Owned(list) => (
            list.iter().map(|s| s.num_real_objs.max(0)).sum::<i64>(),
            list.len(),
        ),
        StubShadows::Bytes(at) => match window_scan::stub_objects(bytes, *at, v206) {
            Some(n) => n,
            None => return false,
        },
    };
    shadows > 0 && objects as f64 >= PICTURE_DENSITY * shadows as f64 * pixels.max(1.0)
}

/// Where the shadows of a stub are: in the node's bytes (the stub's offset), or
/// decoded already (both lists, nestless first).
enum StubShadows {
    Bytes(usize),
    Owned(Vec<Shadow>),
}

/// An item that the fast path accepted but could not decode again (never happens:
/// the same bytes are read the same way).
fn undecodable(offset: u64) -> Error {
    Error::BadValue {
        offset,
        what: "a drawable or shadow accepted by the window query's scan could not be decoded"
            .into(),
    }
}
