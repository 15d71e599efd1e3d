//! A CLOG2 trace in start order, read in two passes rather than sorted:
//! what `mpelog export` and `stats` read of a CLOG2 trace whose records are
//! in time order (as MPE writes them), as `t.batches()` does.

use super::error::{Error, Result};
use super::read::{self, Survey};
use crate::export::Ordered;
use crate::slices::{Piece, Span};
use slog2_format::types::{Category, LineIdMap};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// A CLOG2 trace whose first pass is done (it learnt the legend, the
/// line-ID maps, the time box, and that the records are in time order): its pieces
/// come from a second pass that hands each out once no piece still to come
/// can start before it (spec/export.md §2), in the order the sorted path
/// gives them, with memory bounded by the pieces held.
///
/// ```
/// use mpelog::export::Ordered;
/// use mpelog::trace::InOrder;
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("demo.clog2");
/// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
/// let mut t = mpelog::Trace::open(&path)?;
/// let InOrder::TwoPass(mut two) = t.in_order(&Default::default())? else { panic!("a CLOG2 in time order") };
/// assert!(!two.categories().is_empty());
/// let span = two.span(None, None);
/// let mut starts = Vec::new();
/// two.pieces(span, &mut |p| starts.push(p.start))?;
/// assert!(!starts.is_empty() && starts.windows(2).all(|w| w[0] <= w[1]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct TwoPass {
    path: PathBuf,
    opts: crate::export::Options,
    survey: Survey,
    stop: Arc<AtomicBool>,
}

impl TwoPass {
    /// The trace at `path` after its first pass, or `None` when it cannot be
    /// read in two passes (not CLOG2, or its records not in time order).
    pub(crate) fn open(
        path: &Path,
        format: super::Format,
        opts: &crate::export::Options,
    ) -> Result<Option<TwoPass>> {
        let stop = Arc::new(AtomicBool::new(false));
        Ok(read::survey(path, format, &stop)?
            .filter(|s| s.in_time_order)
            .map(|survey| TwoPass {
                path: path.to_path_buf(),
                opts: opts.clone(),
                survey,
                stop,
            }))
    }

    /// The legend (as the conversion's, and the sorted path's, is).
    pub fn categories(&self) -> &[Category] {
        &self.survey.categories
    }

    /// The line-ID maps (the views).
    pub fn maps(&self) -> &[LineIdMap] {
        &self.survey.maps
    }
}

impl Ordered for TwoPass {
    type Error = Error;

    fn span(&self, from: Option<f64>, to: Option<f64>) -> Span {
        crate::slices::span_of(self.survey.time_box, from, to)
    }

    fn pieces(&mut self, span: Span, f: &mut dyn FnMut(Piece<'_>)) -> Result<()> {
        self.pieces_while(span, &mut |p| {
            f(p);
            ControlFlow::Continue(())
        })
    }

    fn pieces_while(
        &mut self,
        span: Span,
        f: &mut dyn FnMut(Piece<'_>) -> ControlFlow<()>,
    ) -> Result<()> {
        read::stream(&self.path, span, &self.opts, &self.stop, f).map(drop)
    }
}
