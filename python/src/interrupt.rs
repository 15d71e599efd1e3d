//! Long reads that Ctrl-C interrupts.
//!
//! A call into Rust that releases the GIL runs no Python signal handler
//! until it returns, so a notebook's interrupt would wait for the end of a
//! whole `stats()` or conversion. A long read runs instead on a thread of its
//! own while the calling thread (the one Python runs signal handlers on)
//! waits for it with the GIL released and looks for a signal every
//! [`POLL`]: an interrupt raises at once. The interrupt also sets the read's
//! stop flag (`mpelog::Trace::set_stop`, given to the trace by `with`): the
//! read ends at its next look at the flag, its answer dropped, and the trace
//! (whose lock it holds) answers the next call after it. What does not look
//! at the flag (the parse of an ALOG, SLOG-1 or old CLOG file, read whole
//! before it is converted) goes on to its end in the background; an
//! interrupted `mpelog.convert` commits nothing.

use crate::MpelogError;
use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::Arc;
use std::time::Duration;

/// How often a waiting call looks for a signal.
pub(crate) const POLL: Duration = Duration::from_millis(50);

/// Waits an interrupt cut short (`_mpelog._abandoned()`, for the tests).
static ABANDONED: AtomicU64 = AtomicU64::new(0);

/// Reads that ended with an error while their stop flag was set
/// (`_mpelog._stopped()`, for the tests).
static STOPPED: AtomicU64 = AtomicU64::new(0);

/// `f` run on a thread of its own with a stop flag, waited for as the module
/// docs say: its answer, or the error a signal handler raised
/// (`KeyboardInterrupt`), the flag then set.
pub(crate) fn interruptible<R: Send + 'static>(
    py: Python<'_>,
    f: impl FnOnce(&Arc<AtomicBool>) -> PyResult<R> + Send + 'static,
) -> PyResult<R> {
    let (tx, rx) = channel();
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    std::thread::Builder::new()
        .name("mpelog-read".into())
        .spawn(move || {
            // The caller may be gone (interrupted): nobody to tell.
            let _ = tx.send(f(&flag));
        })
        .map_err(|e| MpelogError::new_err(format!("cannot start a reading thread: {e}")))?;
    let mut rx = rx;
    loop {
        // The receiver goes in and comes back out: it may not be shared
        // with the GIL released.
        let (got, back) = py.detach(move || (rx.recv_timeout(POLL), rx));
        rx = back;
        match got {
            Ok(answer) => return answer,
            Err(RecvTimeoutError::Timeout) => {
                check(py).inspect_err(|_| stop.store(true, Ordering::Relaxed))?
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(MpelogError::new_err(
                    "the read ended without an answer (its thread panicked)",
                ))
            }
        }
    }
}

/// Runs Python's signal handlers (on the main thread): the error one
/// raised (`KeyboardInterrupt`), counted as a wait cut short.
pub(crate) fn check(py: Python<'_>) -> PyResult<()> {
    py.check_signals().inspect_err(|_| {
        ABANDONED.fetch_add(1, Ordering::Relaxed);
    })
}

/// How many waits an interrupt has cut short in this process.
#[pyfunction]
pub(crate) fn _abandoned() -> u64 {
    ABANDONED.load(Ordering::Relaxed)
}

/// Counts a read that its stop flag ended (or kept from beginning).
pub(crate) fn count_stopped() {
    STOPPED.fetch_add(1, Ordering::Relaxed);
}

/// How many reads a stop flag has ended in this process (an interrupted read
/// that ran to its end anyway is not one).
#[pyfunction]
pub(crate) fn _stopped() -> u64 {
    STOPPED.load(Ordering::Relaxed)
}
