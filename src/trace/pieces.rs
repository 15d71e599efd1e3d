//! [`Trace::pieces`]: the primitives of a window in start order, one call
//! each, with the legend: the rows of the Parquet export (and of the Python
//! package's Arrow tables).

use super::error::{Error, Result};
use super::{annotation_error, read, Trace, Tree};
use crate::export::Ordered;
use crate::slices::Piece;
use slog2_format::Category;

/// Calls `f` with each piece of `tree` in the window, and returns how many.
fn visit<T: Ordered>(
    tree: &mut T,
    opts: &crate::export::Options,
    f: &mut dyn FnMut(Piece<'_>),
) -> std::result::Result<u64, T::Error> {
    let span = tree.span(opts.from, opts.to);
    let mut n = 0u64;
    tree.pieces(span, &mut |p| {
        n += 1;
        f(p)
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
        let legend = std::cell::RefCell::new(Vec::new());
        self.scan(opts, &mut |l| *legend.borrow_mut() = l.to_vec(), &mut |p| {
            f(&legend.borrow(), p)
        })
    }

    /// As [`Trace::pieces`], but the legend is handed once, to `legend`,
    /// before the first piece (and also for a window without any: what a
    /// table's columns are made from), and each piece alone to `f`. For a
    /// format without a tree the legend comes once the input has been read
    /// and sorted, so an error in the input comes before it.
    ///
    /// # Errors
    ///
    /// As [`Trace::pieces`].
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// let mut t = mpelog::Trace::open(&path)?;
    /// let (mut names, mut n) = (Vec::new(), 0);
    /// let opts = mpelog::export::Options::default().window(Some(-2.0), Some(-1.0));
    /// t.scan(&opts, &mut |l| names = l.iter().map(|c| c.name.text()).collect(), &mut |_| n += 1)?;
    /// assert!(names.iter().any(|n| n == "MPI_Send"));
    /// assert_eq!(n, 0); // nothing before the trace's start, but the legend
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn scan(
        &mut self,
        opts: &crate::export::Options,
        legend: &mut dyn FnMut(&[Category]),
        f: &mut dyn FnMut(Piece<'_>),
    ) -> Result<u64> {
        super::check_window(opts.from, opts.to)?;
        let given = self.given.clone();
        match self.own_tree() {
            Some(Tree::Slog2(r)) => {
                legend(r.category_list());
                visit(r.as_mut(), opts, f).map_err(|source| Error::Slog2 {
                    path: given,
                    source,
                })
            }
            Some(Tree::Annotation(a, trace)) => {
                legend(&a.categories().categories);
                visit(a.as_mut(), opts, f).map_err(|e| annotation_error(&given, trace, e))
            }
            None => {
                let local = self.local()?;
                let mut sorted = read::sorted(&local, self.format, opts, &mut self.progress)?;
                legend(sorted.categories());
                visit(&mut sorted, opts, f).map_err(Error::io(&std::env::temp_dir()))
            }
        }
    }
}
