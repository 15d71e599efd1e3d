//! Input paths: `-` is standard input.
//!
//! Standard input is copied to a temporary file first (readers seek, and detection
//! reads the start twice) in the temporary directory (`TMPDIR`); the copy is
//! removed at exit and on a signal, and one left by a killed run is removed by
//! the next run that reads standard input. Messages name it `-`, never the
//! copy's path.

use crate::output::{io, Error, Result};
use crate::signals;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The name of copies of standard input: `.mpelog-stdin-PID-XXXXXX.tmp`.
const STDIN_PREFIX: &str = ".mpelog-stdin-";

/// The copy of standard input, once made.
static STDIN_COPY: OnceLock<PathBuf> = OnceLock::new();

/// The path to read for the input `path`: itself, or for `-` a copy of standard
/// input (made once; `-` given twice reads the same copy).
pub fn resolve(path: &Path) -> Result<PathBuf> {
    if !crate::output::is_dash(path) {
        return Ok(path.to_path_buf());
    }
    if let Some(p) = STDIN_COPY.get() {
        return Ok(p.clone());
    }
    let stdin_err = io(Path::new("-"));
    let dir = std::env::temp_dir();
    crate::output::remove_stale(&dir, STDIN_PREFIX);
    let tmp = crate::output::temp_in(&dir, STDIN_PREFIX).map_err(io(Path::new("-")))?;
    let (mut file, tmp_path) = tmp.keep().map_err(|e| Error::Io {
        path: PathBuf::from("-"),
        source: e.error,
    })?;
    signals::register(&tmp_path);
    let copied = std::io::copy(&mut std::io::stdin().lock(), &mut file);
    let _ = STDIN_COPY.set(tmp_path.clone());
    copied.map_err(stdin_err)?;
    Ok(tmp_path)
}

/// Removes the copy of standard input, if one was made.
pub fn cleanup() {
    if let Some(p) = STDIN_COPY.get() {
        let _ = std::fs::remove_file(p);
        signals::unregister(p);
    }
}

/// How to name `path` in messages: `-` for the copy of standard input.
pub fn shown(path: &Path) -> String {
    match STDIN_COPY.get() {
        Some(p) if p == path => "-".to_string(),
        _ => path.display().to_string(),
    }
}
