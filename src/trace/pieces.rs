//! [`Trace::pieces`]: the primitives of a window in start order, one call
//! each, with the legend: the rows of the Parquet export (and of the Python
//! package's Arrow tables).

use super::error::{Error, Result};
use super::{annotation_error, read, Trace, Tree};
use crate::export::Ordered;
use crate::slices::Piece;
use slog2_format::Category;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Calls `f` with each piece of `tree` in the window until `stop` is set,
/// and returns how many (`None`: stopped).
fn visit_until<T: Ordered>(
    tree: &mut T,
    opts: &crate::export::Options,
    stop: &AtomicBool,
    f: &mut dyn FnMut(Piece<'_>),
) -> std::result::Result<Option<u64>, T::Error> {
    let span = tree.span(opts.from, opts.to);
    let mut n = 0u64;
    let mut stopped = false;
    tree.pieces_while(span, &mut |p| {
        if stop.load(Ordering::Relaxed) {
            stopped = true;
            return ControlFlow::Break(());
        }
        n += 1;
        f(p);
        ControlFlow::Continue(())
    })?;
    Ok((!stopped).then_some(n))
}

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
    /// without a tree is put in order with bounded memory, never converted:
    /// a CLOG2 trace in time order in two passes ([`super::TwoPass`]), any
    /// other in one pass and sorted (`opts.sort_memory`).
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
        let r = self.scan_unstopped(opts, legend, f);
        self.stopped(r)
    }

    fn scan_unstopped(
        &mut self,
        opts: &crate::export::Options,
        legend: &mut dyn FnMut(&[Category]),
        f: &mut dyn FnMut(Piece<'_>),
    ) -> Result<u64> {
        let given = self.given.clone();
        match self.in_order(opts)? {
            InOrder::Slog2(r) => {
                legend(r.category_list());
                visit(r, opts, f).map_err(|source| Error::Slog2 {
                    path: given,
                    source,
                })
            }
            InOrder::Annotation(a, trace) => {
                legend(&a.categories().categories);
                visit(a, opts, f).map_err(|e| annotation_error(&given, trace, e))
            }
            InOrder::Sorted(mut sorted) => {
                legend(sorted.categories());
                visit(sorted.as_mut(), opts, f).map_err(Error::io(&std::env::temp_dir()))
            }
            InOrder::TwoPass(mut two) => {
                legend(two.categories());
                visit(two.as_mut(), opts, f)
            }
        }
    }

    /// The legend the pieces of [`scan`](Self::scan) come with (and the rows
    /// of [`window_columns`](Self::window_columns) are made with), read no
    /// further than it takes: a tree's at once; a CLOG2 trace's after its
    /// first pass (kept for the next read); a format read whole and sorted,
    /// after that read. Unlike [`legend`](Self::legend), never a conversion.
    ///
    /// # Errors
    ///
    /// As [`scan`](Self::scan).
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// let mut t = mpelog::Trace::open(&path)?;
    /// let mut seen = Vec::new();
    /// t.scan(&Default::default(), &mut |l| seen = l.to_vec(), &mut |_| {})?;
    /// assert_eq!(t.scan_legend()?, seen);
    /// assert!(!t.is_converted());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn scan_legend(&mut self) -> Result<Vec<Category>> {
        match self.own_tree() {
            Some(Tree::Slog2(r)) => return Ok(r.category_list().to_vec()),
            Some(Tree::Annotation(a, _)) => return Ok(a.categories().categories.clone()),
            None => {}
        }
        let stop = Arc::new(AtomicBool::new(false));
        let mut legend = None;
        let r = self.scan_until(
            &Default::default(),
            &stop,
            &mut |l| {
                legend = Some(l.to_vec());
                stop.store(true, Ordering::Relaxed);
            },
            &mut |_| {},
        );
        match (legend, r) {
            (Some(l), Ok(_) | Err(Error::Stopped { .. })) => Ok(l),
            (_, Err(e)) => Err(e),
            (None, Ok(_)) => Ok(Vec::new()),
        }
    }

    /// As [`Trace::scan`], but ends early, reading no further, once `stop`
    /// is set (checked before each piece, and before each primitive while a
    /// format without a tree is read and sorted): what a reader on another
    /// thread needs when its consumer goes away.
    ///
    /// # Errors
    ///
    /// As [`Trace::scan`]; [`Error::Stopped`] once stopped.
    ///
    /// ```
    /// use std::sync::{atomic::{AtomicBool, Ordering}, Arc};
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// let mut t = mpelog::Trace::open(&path)?;
    /// let stop = Arc::new(AtomicBool::new(false));
    /// let mut n = 0;
    /// let e = t.scan_until(&Default::default(), &stop, &mut |_| {}, &mut |_| {
    ///     n += 1;
    ///     if n == 100 {
    ///         stop.store(true, Ordering::Relaxed); // the consumer went away
    ///     }
    /// }).unwrap_err();
    /// assert_eq!((e.kind(), n), ("stopped", 100));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn scan_until(
        &mut self,
        opts: &crate::export::Options,
        stop: &Arc<AtomicBool>,
        legend: &mut dyn FnMut(&[Category]),
        f: &mut dyn FnMut(Piece<'_>),
    ) -> Result<u64> {
        super::check_window(opts.from, opts.to)?;
        let given = self.given.clone();
        let stopped = || Error::Stopped {
            path: given.clone(),
        };
        let n = match self.own_tree() {
            Some(Tree::Slog2(r)) => {
                legend(r.category_list());
                visit_until(r.as_mut(), opts, stop, f).map_err(|source| Error::Slog2 {
                    path: given.clone(),
                    source,
                })?
            }
            Some(Tree::Annotation(a, trace)) => {
                legend(&a.categories().categories);
                visit_until(a.as_mut(), opts, stop, f)
                    .map_err(|e| annotation_error(&given, trace, e))?
            }
            None => {
                let local = self.local()?;
                // The reads without a tree stop at the caller's flag and the
                // trace's: a sorted read at either, a streamed one at
                // `both`, set once either is, as its progress and the
                // callbacks find it.
                let trace_stop = self.stop.flag();
                let either = Either::new(stop.clone(), trace_stop.clone());
                let both = &either.both.clone();
                // Looked at after each call, so that a flag the callback
                // sets stops the read before its next piece.
                let mut legend = |l: &[Category]| {
                    legend(l);
                    either.look();
                };
                let mut f = |p: Piece<'_>| {
                    f(p);
                    either.look();
                };
                let streamed = read::streamed_until(
                    &local,
                    self.format,
                    opts,
                    both,
                    &self.survey,
                    &mut |_| either.look(),
                    &mut legend,
                    &mut f,
                );
                if let Some(out) = streamed? {
                    return Ok(out.pieces);
                }
                let flags = (stop, &trace_stop);
                let mut sorted = read::sorted_either(&local, self.format, opts, flags, &mut None)?;
                legend(sorted.categories());
                visit_until(&mut sorted, opts, both, &mut f)
                    .map_err(Error::io(&std::env::temp_dir()))?
            }
        };
        n.ok_or_else(stopped)
    }

    /// The input's drawables in start order, for any [`Ordered`] reader
    /// (the Parquet export's): the input's own tree, or for a format without
    /// one the drawables that meet the window of `opts`, never converted: a
    /// CLOG2 trace in time order read in two passes ([`InOrder::TwoPass`]),
    /// any other read in one pass and sorted with bounded memory
    /// (`opts.sort_memory`).
    ///
    /// # Errors
    ///
    /// [`Error::BadWindow`] for bounds that are not finite or not in order,
    /// the format's error where the input is bad, [`Error::Io`] when the
    /// sorter's temporary runs fail.
    ///
    /// ```
    /// use mpelog::trace::InOrder;
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// let mut t = mpelog::Trace::open(&path)?;
    /// // A CLOG2 trace in time order (as MPE writes it) is read in two passes.
    /// let InOrder::TwoPass(two) = t.in_order(&Default::default())? else { panic!("no tree") };
    /// assert!(!two.categories().is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn in_order(&mut self, opts: &crate::export::Options) -> Result<InOrder<'_>> {
        super::check_window(opts.from, opts.to)?;
        if self.own_tree().is_none() {
            let local = self.local()?;
            let stop = self.stop.flag();
            let mut progress = &mut self.progress;
            if self.format == super::Format::Clog2 {
                match super::TwoPass::open(&local, opts, stop.clone(), progress, &self.survey)? {
                    Ok(two) => return Ok(InOrder::TwoPass(Box::new(two))),
                    Err(back) => progress = back,
                }
            }
            let sorted = read::sorted(&local, self.format, opts, &stop, progress)?;
            return Ok(InOrder::Sorted(Box::new(sorted)));
        }
        Ok(match self.own_tree() {
            Some(Tree::Slog2(r)) => InOrder::Slog2(r),
            Some(Tree::Annotation(a, trace)) => InOrder::Annotation(a, trace),
            None => unreachable!("read above"),
        })
    }
}

/// A trace's drawables in start order, as [`Trace::in_order`] lends them:
/// each arm an [`Ordered`] reader.
#[non_exhaustive]
pub enum InOrder<'a> {
    /// A SLOG-2 file's tree.
    Slog2(&'a mut super::Reader),
    /// An annotation's tree, and the path of the trace it annotates.
    Annotation(&'a mut super::AnnotationReader, &'a std::path::Path),
    /// A format without a tree, read in one pass and sorted.
    Sorted(Box<crate::export::sorted::Sorted>),
    /// A CLOG2 trace whose records are in time order, read in two passes
    /// (no sorted runs).
    TwoPass(Box<super::TwoPass<'a>>),
}

/// Two stop flags a read without a tree stops at (the caller's of
/// [`Trace::scan_until`] and the trace's, [`Trace::set_stop`]), as the one
/// flag `both` it is given: set, by [`look`](Either::look), once either is.
#[derive(Clone)]
struct Either {
    caller: Arc<AtomicBool>,
    trace: Arc<AtomicBool>,
    both: Arc<AtomicBool>,
}

impl Either {
    fn new(caller: Arc<AtomicBool>, trace: Arc<AtomicBool>) -> Either {
        let both = Arc::new(AtomicBool::new(false));
        let e = Either {
            caller,
            trace,
            both,
        };
        e.look();
        e
    }

    /// Sets `both` when the caller's flag or the trace's is set.
    fn look(&self) {
        if self.caller.load(Ordering::Relaxed) || self.trace.load(Ordering::Relaxed) {
            self.both.store(true, Ordering::Relaxed);
        }
    }
}
