//! [`Trace::window`]: the drawables of a time window, read from the tree
//! (the SLOG-2 file's, the annotation's, or the temporary conversion's), as
//! `mpelog window` reads them.

use super::error::{Error, Result};
use super::{annotation_error, Trace, Tree};
use crate::slices::next_up;
use slog2_format::window::Located;
use slog2_format::{Drawable, TreeDirEntry};

/// The answer of a window query.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("demo.clog2");
/// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
/// let mut t = mpelog::Trace::open(&path)?;
/// let w = t.window(None, None)?; // the whole trace
/// assert!(w.from < w.to);
/// assert!(w.drawables.iter().all(|d| d.value.earliest() < w.to && d.value.latest() >= w.from));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Window {
    /// The window's start (the trace's start when none was given).
    pub from: f64,
    /// The window's end (just after the trace's end when none was given).
    pub to: f64,
    /// Every drawable that meets `[from, to)`, in the order of `mpelog window`
    /// (Java's start order), each with the tree node it came from.
    pub drawables: Vec<Located<Drawable>>,
    /// Tree nodes this query read.
    pub nodes_read: u64,
    /// Bytes this query read (for an annotation: of the annotation and the trace).
    pub bytes_read: u64,
}

/// The box of the root, the deepest TreeDir entry.
fn root_box<'a>(entries: impl Iterator<Item = &'a TreeDirEntry>) -> Option<(f64, f64)> {
    entries
        .max_by_key(|e| (e.id.depth, std::cmp::Reverse(e.id.xpos)))
        .map(|e| (e.earliest, e.latest))
}

/// The window to query, as `mpelog window` takes it: a missing `from` is the
/// trace's start, a missing `to` just after its end, where `root` is the
/// tree's time box ([`Trace::time_box`]), so that the whole trace is
/// `[start, next_up(end))`.
///
/// # Errors
///
/// [`Error::BadWindow`] unless `from < to`, both finite.
///
/// ```
/// use mpelog::trace::bounds;
/// assert_eq!(bounds(None, Some(2.0), Some((1.0, 3.0)))?, (1.0, 2.0));
/// let (from, to) = bounds(None, None, Some((1.0, 3.0)))?;
/// assert!(from == 1.0 && to > 3.0);
/// assert!(bounds(Some(4.0), Some(2.0), None).is_err());
/// # Ok::<(), mpelog::trace::Error>(())
/// ```
pub fn bounds(from: Option<f64>, to: Option<f64>, root: Option<(f64, f64)>) -> Result<(f64, f64)> {
    let (start, end) = root
        .filter(|(a, b)| a.is_finite() && b.is_finite() && a <= b)
        .unwrap_or((0.0, 0.0));
    let from = from.unwrap_or(start);
    let to = to.unwrap_or_else(|| next_up(end.max(from)));
    if !(from.is_finite() && to.is_finite() && from < to) {
        return Err(Error::BadWindow { from, to });
    }
    Ok((from, to))
}

/// Checks the bounds given for a window: each finite, and `from < to` when
/// both are given.
///
/// # Errors
///
/// [`Error::BadWindow`] otherwise.
///
/// ```
/// use mpelog::trace::check_window;
/// assert!(check_window(Some(0.5), None).is_ok());
/// assert!(check_window(Some(0.5), Some(0.5)).is_err());
/// assert!(check_window(Some(f64::NAN), None).is_err());
/// ```
pub fn check_window(from: Option<f64>, to: Option<f64>) -> Result<()> {
    let finite = |x: Option<f64>| x.is_none_or(f64::is_finite);
    let ordered = match (from, to) {
        (Some(a), Some(b)) => a < b,
        _ => true,
    };
    if finite(from) && finite(to) && ordered {
        Ok(())
    } else {
        Err(Error::BadWindow {
            from: from.unwrap_or(f64::NEG_INFINITY),
            to: to.unwrap_or(f64::INFINITY),
        })
    }
}

impl Tree {
    /// The tree's time box (its root's).
    pub(super) fn time_box(&self) -> Option<(f64, f64)> {
        match self {
            Tree::Slog2(r) => root_box(r.tree_dir().iter().flat_map(|t| t.value.entries.iter())),
            Tree::Annotation(a, _) => root_box(a.tree_dir().entries.iter()),
        }
    }
}

impl Trace {
    /// The drawables that meet `[from, to)` (a missing bound: the trace's
    /// start, or just after its end), the same, in the same order, as
    /// `mpelog window --json` prints them. A format without a tree is
    /// converted to SLOG-2 on the first call (see [`Trace::is_converted`]).
    ///
    /// # Errors
    ///
    /// [`Error::BadWindow`] unless `from < to`, both finite; the format's
    /// error where the tree is bad.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// let mut t = mpelog::Trace::open(&path)?;
    /// let all = t.window(None, None)?.drawables.len();
    /// let some = t.window(Some(0.0), Some(0.001))?.drawables.len();
    /// assert!(0 < some && some < all);
    /// assert_eq!(t.window(Some(1.0), Some(0.0)).unwrap_err().kind(), "bad_window");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn window(&mut self, from: Option<f64>, to: Option<f64>) -> Result<Window> {
        let r = self.window_unstopped(from, to);
        self.stopped(r)
    }

    fn window_unstopped(&mut self, from: Option<f64>, to: Option<f64>) -> Result<Window> {
        let given = self.given.clone();
        let tree = self.tree()?;
        // The trace's box only where a bound is missing (finding the root is
        // a pass over the TreeDir).
        let time_box = match (from, to) {
            (Some(_), Some(_)) => None,
            _ => tree.time_box(),
        };
        let (from, to) = bounds(from, to, time_box)?;
        match tree {
            Tree::Slog2(r) => {
                let answer = r.window(from, to).map_err(|source| Error::Slog2 {
                    path: given,
                    source,
                })?;
                Ok(Window {
                    from,
                    to,
                    drawables: answer.drawables,
                    nodes_read: answer.counters.nodes_read,
                    bytes_read: answer.counters.bytes_read,
                })
            }
            Tree::Annotation(a, trace) => {
                let answer = a
                    .window(from, to)
                    .map_err(|e| annotation_error(&given, trace, e))?;
                Ok(Window {
                    from,
                    to,
                    drawables: answer
                        .drawables
                        .into_iter()
                        .map(|d| Located {
                            node: d.node,
                            value: Drawable::Primitive(d.value),
                        })
                        .collect(),
                    nodes_read: answer.counters.nodes_read,
                    bytes_read: answer.counters.annotation_bytes + answer.counters.trace_bytes,
                })
            }
        }
    }
}
