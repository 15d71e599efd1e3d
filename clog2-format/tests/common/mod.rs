//! Shared test helpers: finding the corpus through `MPELOG_CORPUS`.
#![allow(dead_code)]

use std::io::Read;
use std::path::{Path, PathBuf};

/// The corpus directory, or `None` (after saying so) when `MPELOG_CORPUS` is unset.
/// A relative path is taken from the workspace root, as `.ci/run` gives it.
pub fn corpus() -> Option<PathBuf> {
    mpelog_conformance::corpus::root()
}

/// A corpus file that must exist.
pub fn file(dir: &Path, rel: &str) -> PathBuf {
    let p = dir.join(rel);
    assert!(p.is_file(), "corpus file missing: {}", p.display());
    p
}

/// The bytes of a corpus file that must exist.
pub fn read(dir: &Path, rel: &str) -> Vec<u8> {
    std::fs::read(file(dir, rel)).unwrap()
}

/// A text dump, stored plain or gzip-compressed (`rel` + `.gz`).
pub fn read_dump(dir: &Path, rel: &str) -> Vec<u8> {
    let plain = dir.join(rel);
    if plain.is_file() {
        return std::fs::read(plain).unwrap();
    }
    let gz = file(dir, &format!("{rel}.gz"));
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(gz).unwrap())
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// Every CLOG2 file of the corpus (relative paths), with its block size.
pub const CLOG2_FILES: &[(&str, u32)] = &[
    ("mpe/colls_n1.clog2", 65536),
    ("mpe/colls_n2.clog2", 65536),
    ("mpe/colls_n4.clog2", 65536),
    ("mpe/colls_n8.clog2", 65536),
    ("mpe/colls_n16.clog2", 65536),
    ("mpe/comm1_isr_n4.clog2", 65536),
    ("mpe/comm1_isr_loop_n2.clog2", 65536),
    ("mpe/cpi_n4.clog2", 65536),
    ("mpe/cpilog_n1.clog2", 65536),
    ("mpe/cpilog_n2.clog2", 65536),
    ("mpe/cpilog_n4.clog2", 65536),
    ("mpe/cpilog_n4_bs4k.clog2", 4096),
    ("mpe/cpilog_n8.clog2", 65536),
    ("mpe/cpilog_pack_n4.clog2", 65536),
    ("mpe/iotest_n2.clog2", 65536),
    ("mpe/many_events_n4.clog2", 65536),
    ("mpe/nested_states_n1.clog2", 65536),
    ("mpe/nested_states_n2.clog2", 65536),
    ("mpe/nested_states_n4.clog2", 65536),
    ("mpe/nested_states_n16.clog2", 65536),
    ("mpe/p2p_n2.clog2", 65536),
    ("mpe/p2p_n4.clog2", 65536),
    ("mpe/p2p_n4_bs4k.clog2", 4096),
    ("mpe/p2p_n8.clog2", 65536),
    ("mpe/p2p_n16.clog2", 65536),
    ("mpe/srtest_n2.clog2", 65536),
];
