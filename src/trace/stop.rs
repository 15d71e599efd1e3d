//! What stops a [`Trace`](super::Trace)'s read before its end
//! ([`Trace::set_stop`](super::Trace::set_stop)): the flag of the call in
//! progress, which the trace's readers look at before each read.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
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

#[cfg(test)]
mod tests {
    use super::*;

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
