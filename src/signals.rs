//! Removing temporary files when the run is interrupted.
//!
//! [`install`] starts a thread that waits for SIGINT, SIGTERM and SIGHUP; on one,
//! it removes every registered temporary file and exits with 128 + the signal's
//! number (130, 143, 129), as a shell reports a command killed by it.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The temporary files to remove on a signal.
static TEMPS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Starts the signal thread. Call once, first thing in `main`.
///
/// ```no_run
/// // First thing in `main`: from now on Ctrl-C removes the registered files.
/// mpelog::signals::install();
/// let dir = tempfile::tempdir().unwrap();
/// let tmp = dir.path().join("out.slog2.tmp");
/// std::fs::write(&tmp, b"...").unwrap();
/// mpelog::signals::register(&tmp);
/// // ... the command, which a signal may end: the thread removes `tmp` ...
/// mpelog::signals::remove_all(); // at a normal exit
/// assert!(!tmp.exists());
/// ```
pub fn install() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        // Without the handler, an interrupted run leaves a temporary file with a
        // recognizable name, which the next run removes.
        return;
    };
    std::thread::spawn(move || {
        if let Some(sig) = signals.forever().next() {
            remove_all();
            std::process::exit(128 + sig);
        }
    });
}

/// Removes every registered temporary file (also used at a normal exit).
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let tmp = dir.path().join("half-written.tmp");
/// std::fs::write(&tmp, b"...").unwrap();
/// mpelog::signals::register(&tmp);
/// mpelog::signals::remove_all();
/// assert!(!tmp.exists());
/// ```
pub fn remove_all() {
    let mut temps = TEMPS.lock().unwrap_or_else(|e| e.into_inner());
    for p in temps.drain(..) {
        if p.is_dir() {
            let _ = std::fs::remove_dir_all(p);
        } else {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Registers a temporary file (or directory) to remove on a signal.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let parts = dir.path().join("parts.tmp");
/// std::fs::create_dir(&parts).unwrap();
/// std::fs::write(parts.join("part-0"), b"").unwrap();
/// mpelog::signals::register(&parts); // a directory goes with its content
/// mpelog::signals::remove_all();
/// assert!(!parts.exists());
/// ```
pub fn register(path: &Path) {
    TEMPS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(path.to_path_buf());
}

/// Forgets a temporary file (renamed into place, or removed).
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let done = dir.path().join("done.slog2");
/// std::fs::write(&done, b"complete").unwrap();
/// mpelog::signals::register(&done);
/// mpelog::signals::unregister(&done); // renamed into place: keep it
/// mpelog::signals::remove_all();
/// assert!(done.exists());
/// ```
pub fn unregister(path: &Path) {
    TEMPS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|p| p != path);
}
