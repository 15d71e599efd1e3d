//! Where the real-file corpus is, for the tests of every crate.

use std::path::PathBuf;

/// The corpus root named by the environment variable `MPELOG_CORPUS` (a
/// relative path is taken from the workspace root, as `.ci/run` gives it), or
/// `None` after printing `skipped: MPELOG_CORPUS is not set` when it is unset.
///
/// # Panics
/// When the variable is set but names no directory: a corpus test must fail
/// then, not skip.
pub fn root() -> Option<PathBuf> {
    let Some(root) = std::env::var_os("MPELOG_CORPUS") else {
        eprintln!("skipped: MPELOG_CORPUS is not set");
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
