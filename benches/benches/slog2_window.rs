//! Window-query time for a window holding about 10,000 drawables in the middle
//! of generated SLOG-2 files of about 10 MB, 100 MB and 1 GB of CLOG2 input: the
//! time should stay flat as the file grows (only the tree depth grows).
//!
//! `cargo bench -p mpelog-benches --bench slog2_window`. The files are made once
//! under `target/mpelog-bench/` (the 1 GB one takes about a minute).
//! `MPELOG_BENCH_SIZES=10,100` limits the sizes.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use slog2_format::Slog2Reader;
use std::fs::File;

fn window(c: &mut Criterion) {
    let sizes: Vec<u64> = std::env::var("MPELOG_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|t| t.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![10, 100, 1000]);
    let mut g = c.benchmark_group("slog2_window_10k");
    g.sample_size(50);
    for mb in sizes {
        let path = mpelog_benches::slog2_file(mb);
        let mut r = Slog2Reader::new(File::open(&path).unwrap()).unwrap();
        let (t0, t1, n) = mpelog_benches::window_for(&mut r, 10_000);
        let a = r.window(t0, t1).unwrap();
        eprintln!(
            "{mb} MB CLOG2 -> {} bytes SLOG-2, depth {}: window [{t0}, {t1}) has {n} drawables, reads {} nodes, {} bytes",
            std::fs::metadata(&path).unwrap().len(),
            r.header().max_treedepth,
            a.counters.nodes_read,
            a.counters.bytes_read
        );
        g.bench_function(BenchmarkId::from_parameter(format!("{mb}MB")), |b| {
            b.iter(|| r.window(t0, t1).unwrap().drawables.len())
        });
    }
    g.finish();
}

criterion_group!(benches, window);
criterion_main!(benches);
