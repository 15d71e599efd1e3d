//! Where the real-file corpus is, for the tests of every crate.
//!
//! A corpus test starts with `let Some(dir) = root() else { return };`. When
//! `MPELOG_CORPUS` is unset the test returns early and the harness reports it
//! as `ok`; so that such a run cannot be mistaken for one that checked the
//! corpus, the first skip in a test binary writes one line to the process's
//! standard error, past the harness's output capture, which `cargo test`
//! shows:
//!
//! ```text
//! SKIPPED corpus tests (MPELOG_CORPUS is not set): window: corpus_windows and every other corpus test of this binary pass without checking anything
//! ```
//!
//! When the variable is set, a missing directory or file fails the test; a
//! corpus test never skips a file it cannot find.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Once;

/// The corpus root named by the environment variable `MPELOG_CORPUS` (a
/// relative path is taken from the workspace root, as `.ci/run` gives it), or
/// `None` when it is unset. The first `None` of a process writes one
/// `SKIPPED corpus tests` line to standard error that the test harness does
/// not capture (see the module documentation).
///
/// # Panics
/// When the variable is set but names no directory: a corpus test must fail
/// then, not skip.
pub fn root() -> Option<PathBuf> {
    let Some(root) = std::env::var_os("MPELOG_CORPUS") else {
        announce_skip();
        return None;
    };
    let mut root = PathBuf::from(root);
    if root.is_relative() {
        root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(root);
    }
    assert!(
        root.is_dir(),
        "MPELOG_CORPUS={} is not a directory",
        root.display()
    );
    Some(root)
}

/// `dir/rel`, which must be a file.
///
/// # Panics
/// When it is not (the corpus is set but incomplete: the test fails).
pub fn file(dir: &Path, rel: &str) -> PathBuf {
    let p = dir.join(rel);
    assert!(p.is_file(), "corpus file missing: {}", p.display());
    p
}

/// The files directly in `dir` whose name ends with `suffix`, sorted, which
/// must be exactly `expected` in number: a corpus listing that silently found
/// fewer files would check less than it claims.
///
/// # Panics
/// When `dir` cannot be read or holds another number of such files.
pub fn listing(dir: &Path, suffix: &str, expected: usize) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("corpus directory {}: {e}", dir.display()))
        .map(|e| {
            e.unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .path()
        })
        .filter(|p| {
            p.is_file()
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().ends_with(suffix))
        })
        .collect();
    files.sort();
    assert_eq!(
        files.len(),
        expected,
        "{}: {} files ending in {suffix:?}, the corpus has {expected}: {files:#?}",
        dir.display(),
        files.len()
    );
    files
}

/// Writes the skip line once per process. `std::io::stderr()` is not captured
/// by the test harness (only the `print!` family is), so the line is shown
/// even for a passing test.
fn announce_skip() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let thread = std::thread::current();
        let test = thread.name().unwrap_or("?");
        let exe = std::env::current_exe()
            .ok()
            .and_then(|p| p.file_stem().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_default();
        // Cargo names a test binary `TARGET-HASH`.
        let exe = exe.rsplit_once('-').map_or(exe.as_str(), |(name, _)| name);
        let line = format!(
            "SKIPPED corpus tests (MPELOG_CORPUS is not set): {exe}: {test} and every other corpus test of this binary pass without checking anything\n"
        );
        // One write, so that the harness's own output cannot split the line.
        // (A closed stderr leaves nobody to tell.)
        std::io::stderr().lock().write_all(line.as_bytes()).ok();
    });
}
