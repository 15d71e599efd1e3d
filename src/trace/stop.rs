//! What stops a [`Trace`](super::Trace)'s read before its end
//! ([`Trace::set_stop`](super::Trace::set_stop)): the flag of the call in
//! progress, which the trace's readers look at before each read.

use slog2_format::convert::{ConvertStats, PairStats};
use slog2_format::types::{Category, LineIdMap};
use slog2_format::write::{Prim, PrimSink, TreeOptions, TreeStats, TreeWriter};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// The flag a trace's reads stop at, shared by the trace and the readers it
/// made (a SLOG-2 file's is made once, at open): replacing the flag reaches
/// them all.
#[derive(Debug, Clone, Default)]
pub(crate) struct StopSlot(Arc<Mutex<Arc<AtomicBool>>>);

impl StopSlot {
    /// A slot holding `flag`.
    pub(crate) fn new(flag: Arc<AtomicBool>) -> StopSlot {
        StopSlot(Arc::new(Mutex::new(flag)))
    }

    /// The flag now in the slot.
    pub(crate) fn flag(&self) -> Arc<AtomicBool> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Puts `flag` in the slot.
    pub(crate) fn set(&self, flag: Arc<AtomicBool>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = flag;
    }

    /// Whether the flag now in the slot is set.
    pub(crate) fn is_set(&self) -> bool {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .load(Ordering::Relaxed)
    }
}

/// An annotation and its trace as a [`Trace`](super::Trace) reads them
/// (what [`TreeMut::Annotation`](super::TreeMut::Annotation) lends).
///
/// ```
/// use mpelog::trace::{AnnotationReader, TreeMut};
/// use mpelog_annotate::{annotate, AnnotateOptions};
/// let dir = tempfile::tempdir()?;
/// let trace = clog2_format::synth::generate_vec(&Default::default())?;
/// std::fs::write(dir.path().join("demo.clog2"), &trace)?;
/// let mut r = clog2_format::Clog2Reader::from_slice(&trace)?;
/// let opts = AnnotateOptions::default().trace(trace.len() as u64, &trace[..1024]);
/// let (idx, _) = annotate(&mut r, std::io::Cursor::new(Vec::new()), opts, |_| {})?;
/// std::fs::write(dir.path().join("demo.clog2.idx"), idx.into_inner())?;
/// let mut t = mpelog::Trace::open(dir.path().join("demo.clog2.idx"))?;
/// let TreeMut::Annotation(a, _) = t.tree_mut()? else { panic!("an annotation") };
/// let a: &mut AnnotationReader = a;
/// assert!(!a.categories().categories.is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub type AnnotationReader = mpelog_annotate::Annotation<Stoppable<File>, Stoppable<File>>;

/// The I/O error a [`Stoppable`] read gives once its flag is set (kind
/// `Other`: an `Interrupted` one would be retried by `read_exact`).
#[derive(Debug, thiserror::Error)]
#[error("the read was stopped")]
pub(crate) struct StoppedRead;

/// A file of a [`Trace`](super::Trace) that fails each read once the trace's
/// stop flag is set ([`Trace::set_stop`](super::Trace::set_stop)); its seeks
/// go through. What an annotation is read through ([`AnnotationReader`]).
///
/// ```
/// use mpelog::trace::{AnnotationReader, Stoppable};
/// fn is_read_seek<R: std::io::Read + std::io::Seek>() {}
/// is_read_seek::<Stoppable<std::fs::File>>();
/// # let _: Option<&AnnotationReader> = None;
/// ```
pub struct Stoppable<R> {
    inner: R,
    stop: StopSlot,
}

impl<R> Stoppable<R> {
    /// `inner`, stopping at the flag in `stop`.
    pub(crate) fn new(inner: R, stop: StopSlot) -> Stoppable<R> {
        Stoppable { inner, stop }
    }
}

/// The file at `path`, read no further once `stop` is set (the input of a
/// conversion or rewrite, whose flag does not change while it runs).
pub(crate) fn open(
    path: &std::path::Path,
    stop: &Arc<AtomicBool>,
) -> super::Result<Stoppable<File>> {
    let file = File::open(path).map_err(super::Error::io(path))?;
    Ok(Stoppable::new(file, StopSlot::new(stop.clone())))
}

impl<R: Read> Read for Stoppable<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.stop.is_set() {
            return Err(io::Error::other(StoppedRead));
        }
        self.inner.read(buf)
    }
}

impl<R: Seek> Seek for Stoppable<R> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos)
    }
}

/// The error a [`Stopping`] sink gives once its flag is set: the sink's own,
/// an `Interrupted` I/O error (as [`StartOrder`]'s stop).
///
/// [`StartOrder`]: crate::export::sorted::StartOrder
fn stopped_sink() -> slog2_format::Error {
    slog2_format::Error::Sink(Box::new(io::Error::new(
        io::ErrorKind::Interrupted,
        "the conversion was stopped by its reader",
    )))
}

/// A sink that hands each primitive on to `inner` until `stop` is set, then
/// fails: what stops a conversion whose input was read whole (ALOG, SLOG-1,
/// old CLOG) or whose reads are the codec's own (an OTF2 archive's) at its
/// next primitive.
pub(crate) struct Stopping<P> {
    inner: P,
    stop: Arc<AtomicBool>,
}

impl<P: PrimSink> PrimSink for Stopping<P> {
    type Output = P::Output;

    fn add(&mut self, p: Prim) -> slog2_format::Result<()> {
        if self.stop.load(Ordering::Relaxed) {
            return Err(stopped_sink());
        }
        self.inner.add(p)
    }

    fn finish(
        self,
        categories: &[Category],
        maps: Vec<LineIdMap>,
    ) -> slog2_format::Result<P::Output> {
        if self.stop.load(Ordering::Relaxed) {
            return Err(stopped_sink());
        }
        self.inner.finish(categories, maps)
    }

    fn low_water(&mut self, time: f64) -> slog2_format::Result<()> {
        self.inner.low_water(time)
    }
}

/// A conversion into a SLOG-2 file over `out` (an `X_to_slog2` of
/// [`slog2_format::convert`]) whose tree writer takes the primitives of
/// `pair` (the format's `X_into`) through a [`Stopping`] sink, so that it
/// ends at the next primitive once `stop` is set.
pub(crate) fn into_stopping_tree<W: Write + Seek>(
    out: W,
    opts: TreeOptions,
    stop: &Arc<AtomicBool>,
    pair: impl FnOnce(Stopping<TreeWriter<W>>) -> slog2_format::Result<((W, TreeStats), PairStats)>,
) -> slog2_format::Result<(W, ConvertStats)> {
    let inner = TreeWriter::new(out, opts)?;
    let ((out, tree), stats) = pair(Stopping {
        inner,
        stop: stop.clone(),
    })?;
    Ok((out, stats.with_tree(tree)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts what it takes in `taken`, and sets `stop` at the `at`-th
    /// primitive.
    struct SetsAt {
        taken: Arc<std::sync::atomic::AtomicU64>,
        at: u64,
        stop: Arc<AtomicBool>,
    }

    impl PrimSink for SetsAt {
        type Output = ();
        fn add(&mut self, _: Prim) -> slog2_format::Result<()> {
            if self.taken.fetch_add(1, Ordering::Relaxed) + 1 == self.at {
                self.stop.store(true, Ordering::Relaxed);
            }
            Ok(())
        }
        fn finish(self, _: &[Category], _: Vec<LineIdMap>) -> slog2_format::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_stopping_sink_ends_an_otf2_conversion_at_the_next_primitive() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/otf2-format/tests/data/tiny");
        let archive = otf2_format::Archive::open(dir).unwrap();
        let sets_at = |at, stop| SetsAt {
            taken: Arc::default(),
            at,
            stop,
        };
        let all = sets_at(0, Arc::default());
        let taken = all.taken.clone();
        slog2_format::convert::otf2_into(&archive, all, |_| {}).unwrap();
        assert!(
            taken.load(Ordering::Relaxed) > 2,
            "the tiny archive draws {taken:?}"
        );
        let stop = Arc::new(AtomicBool::new(false));
        let inner = sets_at(2, stop.clone());
        let taken = inner.taken.clone();
        let e = slog2_format::convert::otf2_into(&archive, Stopping { inner, stop }, |_| {})
            .unwrap_err();
        let slog2_format::Error::Sink(e) = e else {
            panic!("the sink's error, not {e:?}")
        };
        let io = e.downcast_ref::<io::Error>().expect("an I/O error");
        assert_eq!(io.kind(), io::ErrorKind::Interrupted);
        assert_eq!(taken.load(Ordering::Relaxed), 2, "none after the stop");
    }

    #[test]
    fn a_set_flag_fails_the_next_read_and_a_new_flag_lets_it_read() {
        let slot = StopSlot::default();
        let mut r = Stoppable::new(io::Cursor::new(vec![1u8, 2, 3, 4]), slot.clone());
        let mut two = [0u8; 2];
        r.read_exact(&mut two).unwrap();
        let flag = Arc::new(AtomicBool::new(false));
        slot.set(flag.clone());
        flag.store(true, Ordering::Relaxed);
        let e = r.read_exact(&mut two).unwrap_err();
        assert!(e.get_ref().is_some_and(|e| e.is::<StoppedRead>()));
        slot.set(Arc::new(AtomicBool::new(false)));
        r.read_exact(&mut two).unwrap();
        assert_eq!(two, [3, 4]);
    }
}
