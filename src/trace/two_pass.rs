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
pub struct TwoPass<'a> {
    path: PathBuf,
    opts: crate::export::Options,
    survey: Arc<Survey>,
    stop: Arc<AtomicBool>,
    /// The trace's progress: the bytes read by both passes, of twice the
    /// file's size.
    progress: &'a mut Option<super::Progress>,
    len: u64,
}

/// Tells `progress` that `at` bytes of the `total` of a two-pass read are read.
fn tell(progress: &mut Option<super::Progress>, at: u64, total: u64) {
    if let Some(p) = progress.as_mut() {
        p(super::Step::Read { at, total })
    }
}

impl<'a> TwoPass<'a> {
    /// The CLOG2 trace at `path` after its first pass (telling `progress`
    /// how far it is; none when the trace `kept` it from an earlier read),
    /// or `progress` back when its records are not in time order. Both
    /// passes end with [`Error::Stopped`] once `stop` is set.
    pub(crate) fn open(
        path: &Path,
        opts: &crate::export::Options,
        stop: Arc<AtomicBool>,
        progress: &'a mut Option<super::Progress>,
        kept: &read::Kept,
    ) -> Result<std::result::Result<TwoPass<'a>, &'a mut Option<super::Progress>>> {
        let len = std::fs::metadata(path).map_or(0, |m| m.len());
        let survey = read::survey_kept(kept, path, &stop, &mut |at| tell(progress, at, 2 * len))?;
        Ok(match survey {
            survey if survey.in_time_order => Ok(TwoPass {
                path: path.to_path_buf(),
                opts: opts.clone(),
                survey,
                stop,
                progress,
                len,
            }),
            _ => Err(progress),
        })
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

impl Ordered for TwoPass<'_> {
    type Error = Error;

    fn span(&self, from: Option<f64>, to: Option<f64>) -> Span {
        crate::slices::span_of(self.survey.time_box, from, to)
    }

    fn pieces(&mut self, span: Span, f: &mut dyn FnMut(Piece<'_>)) -> Result<()> {
        self.pieces_while(span, &mut crate::export::never_stopping(f))
    }

    fn pieces_while(
        &mut self,
        span: Span,
        f: &mut dyn FnMut(Piece<'_>) -> ControlFlow<()>,
    ) -> Result<()> {
        let (len, progress) = (self.len, &mut *self.progress);
        let mut told = |at| tell(progress, len + at, 2 * len);
        read::stream(&self.path, span, &self.opts, &self.stop, &mut told, f).map(drop)
    }
}
