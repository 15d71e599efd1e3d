//! [`Trace::pieces`]: the primitives of a window in start order, one call
//! each, with the legend: the rows of the Parquet export (and of the Python
//! package's Arrow tables).

use super::error::{Error, Result};
use super::{annotation_error, read, Trace, Tree};
use crate::export::Ordered;
use crate::slices::Piece;
use slog2_format::Category;

/// Calls `f` with the legend and each piece of `tree` in the window, and
/// returns how many.
fn visit<T: Ordered>(
    tree: &mut T,
    legend: &[Category],
    opts: &crate::export::Options,
    f: &mut dyn FnMut(&[Category], Piece<'_>),
) -> std::result::Result<u64, T::Error> {
    let span = tree.span(opts.from, opts.to);
    let mut n = 0u64;
    tree.pieces(span, &mut |p| {
        n += 1;
        f(legend, p)
    })?;
    Ok(n)
}

impl Trace {
    /// Calls `f` with every primitive that meets the window of `opts`, in
    /// start order (the rows of `mpelog export --to parquet`, one per call),
    /// and the legend its category indexes; returns how many. A format
    /// without a tree is read in one pass and put in order with bounded
    /// memory (`opts.sort_memory`), never converted.
    ///
    /// # Errors
    ///
    /// [`Error::BadWindow`] for bounds that are not finite or not in order,
    /// the format's error where the input is bad, [`Error::Io`] when the
    /// sorter's temporary runs fail.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// let mut t = mpelog::Trace::open(&path)?;
    /// let mut starts = Vec::new();
    /// let n = t.pieces(&Default::default(), &mut |_, p| starts.push(p.start))?;
    /// assert_eq!(n as usize, starts.len());
    /// assert!(starts.windows(2).all(|w| w[0] <= w[1]));
    /// assert!(!t.is_converted());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn pieces(
        &mut self,
        opts: &crate::export::Options,
        f: &mut dyn FnMut(&[Category], Piece<'_>),
    ) -> Result<u64> {
        super::check_window(opts.from, opts.to)?;
        let given = self.given.clone();
        match self.own_tree() {
            Some(Tree::Slog2(r)) => {
                let legend = r.category_list().to_vec();
                visit(r.as_mut(), &legend, opts, f).map_err(|source| Error::Slog2 {
                    path: given,
                    source,
                })
            }
            Some(Tree::Annotation(a, trace)) => {
                let legend = a.categories().categories.clone();
                visit(a.as_mut(), &legend, opts, f).map_err(|e| annotation_error(&given, trace, e))
            }
            None => {
                let local = self.local()?;
                let mut sorted = read::sorted(&local, self.format, opts)?;
                let legend = sorted.categories().to_vec();
                visit(&mut sorted, &legend, opts, f).map_err(Error::io(&std::env::temp_dir()))
            }
        }
    }
}
