//! Shared inputs for the benchmarks in `benches/`: generated CLOG2 traces and
//! their SLOG-2 conversions, cached under `target/mpelog-bench/` so that the
//! large ones (up to 1 GB) are made once.

use clog2_format::synth;
use slog2_format::build::{clog2_to_slog2, TreeOptions};
use std::path::PathBuf;

/// Bytes per record of the generator's MPE-like mix, roughly.
const BYTES_PER_RECORD: u64 = 39;

/// The cache directory (`target/mpelog-bench`, or `MPELOG_BENCH_DIR`).
pub fn cache_dir() -> PathBuf {
    let dir = std::env::var_os("MPELOG_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join("target")
                .join("mpelog-bench")
        });
    std::fs::create_dir_all(&dir).expect("bench cache directory");
    dir
}

/// A generated CLOG2 trace of about `mb` MB (16 ranks, seed 7), made once.
pub fn clog2_trace(mb: u64) -> PathBuf {
    let path = cache_dir().join(format!("synth_{mb}MB.clog2"));
    if !path.exists() {
        let opts = synth::Options {
            ranks: 16,
            events: mb * 1_000_000 / BYTES_PER_RECORD,
            seed: 7,
            block_size: 65536,
        };
        let tmp = path.with_extension("tmp");
        let f = std::io::BufWriter::new(std::fs::File::create(&tmp).expect("create"));
        synth::generate(f, &opts).expect("synth");
        std::fs::rename(&tmp, &path).expect("rename");
    }
    path
}

/// The SLOG-2 conversion (default tree options) of [`clog2_trace`]`(mb)`, made once.
pub fn slog2_file(mb: u64) -> PathBuf {
    let path = cache_dir().join(format!("synth_{mb}MB.slog2"));
    if !path.exists() {
        let clog2 = clog2_trace(mb);
        let f = std::fs::File::open(&clog2).expect("open");
        let mut r = clog2_format::Clog2Reader::new(f).expect("clog2");
        let tmp = path.with_extension("tmp");
        let out = std::io::BufWriter::new(std::fs::File::create(&tmp).expect("create"));
        clog2_to_slog2(&mut r, out, TreeOptions::default(), |_| {}).expect("convert");
        std::fs::rename(&tmp, &path).expect("rename");
    }
    path
}
