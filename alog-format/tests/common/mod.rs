//! Shared test helpers: the corpus directory and its ALOG files.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The corpus directory, or `None` (after saying so) when `MPELOG_CORPUS` is unset.
/// A relative path is taken from the workspace root, as `.ci/run` gives it.
pub fn corpus() -> Option<PathBuf> {
    mpelog_conformance::corpus::root()
}

/// The ALOG samples of `mpich1/alog/` (file name, as stored).
pub const FILES: &[&str] = &[
    "cpilog.alog",
    "srtest.alog",
    "cpilog.log",
    "monte.log",
    "gmm.log",
    "fpilog_profile.log",
    "systest_profile.log",
    "sam_hyp.16.log",
    "gmmlog_profile.log.Z",
];

/// The bytes of a corpus ALOG file (a `.Z` file unpacked); fails when it is
/// missing.
pub fn read(dir: &Path, name: &str) -> Vec<u8> {
    let path = dir.join("mpich1/alog").join(name);
    let data = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("corpus file {} is missing: {e}", path.display()));
    if name.ends_with(".Z") {
        alog_format::z::decompress(&data, 1 << 24).expect("the .Z sample unpacks")
    } else {
        data
    }
}
