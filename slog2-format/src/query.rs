//! The window queries of a [`Slog2Reader`] (spec/queries.md §2), whose answers,
//! buffers and bounds [`crate::window`] describes: the public query methods and the
//! budget of a picture here, the walk down the tree in [`walk`], and the checks of
//! each node followed against the TreeDir in [`follow`].

use crate::check::{first_file_error, FileParts};
use crate::error::{Error, Result, TreeProblem};
use crate::read::{Slog2Reader, Validation, TREEROOT_AT};
use crate::types::*;
use crate::window::scan::{self as window_scan, Checks, SortKey};
use crate::window::*;
use std::io::{Read, Seek};

mod follow;
mod walk;
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

impl Stop {
    /// Stops at children narrower than a pixel of a window `w` drawn
    /// `pixels` wide, and below depth `lowest`; `dense` as the field.
    fn pixels(w: &TimeWindow, pixels: u32, lowest: i16, dense: bool) -> Stop {
        Stop {
            pixel: Some(w.width() / f64::from(pixels.max(1))),
            lowest,
            dense,
        }
    }
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

/// A node to read: its pointer, where that pointer is stored, and (for a child) the
/// parent and the ID its stub names.
struct Pending {
    ptr: FileBlockPtr,
    ptr_at: u64,
    stub: Option<(NodeId, NodeId)>,
}

impl<R: Read + Seek> Slog2Reader<R> {
    /// The TreeDir by ID and by block and the file-level check, made at the
    /// first query.
    fn tree_index(&mut self) -> &TreeIndex {
        if self.window_cache().tree.is_none() {
            let file_error = first_file_error(&FileParts::of(self));
            let index = TreeIndex::new(self.tree_dir().map(|t| &t.value), file_error);
            self.window_cache().tree = Some(index);
        }
        self.window_cache().tree.as_ref().expect("just made")
    }

    /// The real drawables that meet the window `[start, end)` (see
    /// [`TimeWindow::meets`]), at full resolution.
    ///
    /// Reads the root, then every child whose stub box meets the window, down to
    /// the leaves; each node read costs one read of its block. Collects the visible
    /// drawables of every node read. In a file written like Java's writer, this finds
    /// every drawable of the file that meets the window, and reads at most
    /// [`node_read_bound`] nodes.
    ///
    /// # Errors
    ///
    /// Any error reading a node (pointer outside the file, block larger than
    /// `max_buffer_bytesize`, parse errors), a stub whose node ID or whose target
    /// node's depth is not one less than its parent's, and a block reached twice.
    /// Unless the reader's validation is [`Validation::Off`], also: a drawable or
    /// shadow of a node read that the file cannot resolve ([`Error::BadDrawable`];
    /// a lenient reader drops it instead), and ([`Error::BadTree`]) a node read
    /// that disagrees with its TreeDir entry, a stub that names no child of its
    /// node, and a header, line-ID map list or TreeDir that breaks an error rule of
    /// `check` (spec/queries.md §2.2).
    ///
    /// # Examples
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// # let (out, stats) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// use slog2_format::Slog2Reader;
    ///
    /// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// let (start, end) = stats.tree.time_range;
    /// // A window past both ends holds every drawable of the file, at full
    /// // resolution: no shadows.
    /// let all = r.window(start - 1.0, end + 1.0)?;
    /// assert_eq!(all.drawables.len() as u64, stats.tree.drawables);
    /// assert!(all.shadows.is_empty());
    /// // The first half: fewer drawables, each meeting [start, mid).
    /// let mid = (start + end) / 2.0;
    /// let half = r.window(start, mid)?;
    /// assert!(half.drawables.len() < all.drawables.len());
    /// assert!(half.drawables.iter().all(|d| d.value.earliest() < mid && d.value.latest() >= start));
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn window(&mut self, start: f64, end: f64) -> Result<WindowAnswer> {
        let mut buf = std::mem::take(&mut self.window_cache().buf);
        let found = self.window_into(&mut buf, start, end);
        let answer = found.map(|()| buf.to_answer());
        self.window_cache().buf = buf;
        answer
    }

    /// [`window`](Self::window) into a reusable buffer: the same drawables, nodes
    /// and counters, in the same order, held in `buf`'s flat arrays (read them with
    /// [`WindowBuf::drawables`]; [`WindowBuf::to_answer`] gives what `window`
    /// returns). Once `buf` has grown to the size of the answers, a query allocates
    /// nothing. The same errors as `window`; after an error `buf` holds an empty
    /// answer.
    ///
    /// # Errors
    ///
    /// As [`window`](Self::window).
    ///
    /// # Examples
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

    /// [`window_into`](Self::window_into) leaving the drawables in the
    /// nodes' bytes ([`RawWindowBuf`]): the same drawables, nodes and
    /// counters, in the same order, with the same checks and errors, read
    /// through [`crate::window::RawDrawable`] views of the bytes
    /// as the file holds them. A query decodes no vertex and copies no
    /// drawable of a leaf: what a column builder reads once costs one pass.
    /// After an error `buf` holds an empty answer.
    ///
    /// # Errors
    ///
    /// As [`window`](Self::window).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn main() -> slog2_format::Result<()> {
    /// use slog2_format::{window::RawWindowBuf, Slog2Reader};
    ///
    /// let mut r = Slog2Reader::new(std::fs::File::open("trace.slog2").unwrap())?;
    /// let mut buf = RawWindowBuf::new();
    /// r.window_raw_into(&mut buf, 0.5, 0.6)?;
    /// for d in buf.drawables() {
    ///     if let Some(p) = d.primitive() {
    ///         println!("{} from {:?}", p.category(), p.first());
    ///     }
    /// }
    /// # Ok(()) }
    /// ```
    pub fn window_raw_into(&mut self, buf: &mut RawWindowBuf, start: f64, end: f64) -> Result<()> {
        self.walk_raw_into(buf, TimeWindow::new(start, end), Stop::default())
    }

    /// Like [`window`](Self::window), reading no node below depth `lowest`
    /// (slog2navigator's `d=`; 0 reads down to the leaves): the nodes at depth
    /// `lowest` are read, and their children meeting the window are shown by
    /// their stub's shadows in [`WindowAnswer::shadows`], as a preview shows
    /// subtrees narrower than a pixel.
    ///
    /// # Errors
    ///
    /// As [`window`](Self::window).
    ///
    /// # Examples
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
    /// # Errors
    ///
    /// As [`window`](Self::window).
    ///
    /// # Examples
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
    ///
    /// # Errors
    ///
    /// As [`window`](Self::window).
    ///
    /// # Examples
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// # let (out, stats) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// use slog2_format::Slog2Reader;
    ///
    /// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// let (start, end) = stats.tree.time_range;
    /// // Ten pixels for the whole file: the subtrees narrower than a pixel are
    /// // not read; their shadows stand for them.
    /// let coarse = r.window_preview(start, end, 10)?;
    /// assert!(!coarse.shadows.is_empty());
    /// let full = r.window(start, end)?;
    /// assert!(coarse.drawables.len() < full.drawables.len());
    /// assert!(coarse.counters.nodes_read < full.counters.nodes_read);
    /// // Each shadow counts the real drawables it stands for.
    /// let summarized: i64 = coarse.shadows.iter().map(|s| s.value.num_real_objs).sum();
    /// assert!(summarized > 0);
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn window_preview(&mut self, start: f64, end: f64, pixels: u32) -> Result<WindowAnswer> {
        let mut buf = std::mem::take(&mut self.window_cache().buf);
        let found = self.window_preview_into(&mut buf, start, end, pixels);
        let answer = found.map(|()| buf.to_answer());
        self.window_cache().buf = buf;
        answer
    }

    /// [`window_preview`](Self::window_preview) into a reusable buffer, as
    /// [`window_into`](Self::window_into) is to [`window`](Self::window): the
    /// drawables and the shadows ([`WindowBuf::shadows`]) that `window_preview`
    /// returns, in the same order.
    ///
    /// # Errors
    ///
    /// As [`window`](Self::window).
    ///
    /// # Examples
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
        self.walk_into(buf, w, Stop::pixels(&w, pixels, i16::MIN, false))
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
    /// # Errors
    ///
    /// As [`window`](Self::window).
    ///
    /// # Examples
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
        let lowest = self.budget_depth(&w, self.picture_budget());
        self.walk_into(buf, w, Stop::pixels(&w, pixels, lowest, true))
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
        for e in self.tree_index().dir.values() {
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
}
