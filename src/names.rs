//! How inputs are named in messages: a copy the tool made of an input
//! (standard input, a downloaded URL) is shown as what the user gave (`-`, the
//! URL without its query string or credentials), never as the copy's path.
//!
//! ```
//! use std::path::Path;
//! // A path the tool did not copy is shown as it is.
//! assert_eq!(mpelog::names::shown(Path::new("trace.clog2")), "trace.clog2");
//! ```

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The copies made so far: the copy's path and the name to show for it.
static COPIES: Mutex<Vec<(PathBuf, String)>> = Mutex::new(Vec::new());

/// Records that `copy` holds the input the user named `name`.
pub(crate) fn register(copy: &Path, name: String) {
    if let Ok(mut c) = COPIES.lock() {
        c.push((copy.to_path_buf(), name));
    }
}

/// The copy of the input named `name`, if one was made.
pub(crate) fn copy_of(name: &str) -> Option<PathBuf> {
    let c = COPIES.lock().ok()?;
    c.iter().find(|(_, n)| n == name).map(|(p, _)| p.clone())
}

/// Every copy made so far.
pub(crate) fn copies() -> Vec<PathBuf> {
    COPIES
        .lock()
        .map(|c| c.iter().map(|(p, _)| p.clone()).collect())
        .unwrap_or_default()
}

/// How to name `path` in messages: what the user gave for a copy the tool
/// made (`-` for standard input, the URL for a download), else the path.
///
/// ```
/// use std::path::Path;
/// assert_eq!(mpelog::names::shown(Path::new("runs/a.clog2")), "runs/a.clog2");
/// ```
pub fn shown(path: &Path) -> String {
    if let Ok(c) = COPIES.lock() {
        if let Some((_, name)) = c.iter().find(|(p, _)| p == path) {
            return name.clone();
        }
    }
    path.display().to_string()
}
