//! CLOG2 → SLOG-2 conversion throughput (MB/s of CLOG2 input) on a generated
//! trace of about 100 MB, from memory into memory.
//!
//! `cargo bench -p mpelog-benches --bench slog2_convert`. `MPELOG_BENCH_MB` sets
//! the size (default 100).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use slog2_format::build::{clog2_to_slog2, TreeOptions};
use std::hint::black_box;
use std::io::Cursor;

fn convert(c: &mut Criterion) {
    let mb: u64 = std::env::var("MPELOG_BENCH_MB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100);
    let data = std::fs::read(mpelog_benches::clog2_trace(mb)).expect("trace");
    eprintln!("trace: {} bytes", data.len());
    let mut g = c.benchmark_group("slog2_convert");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(data.len() as u64));
    let mut out = Vec::with_capacity(data.len());
    g.bench_function("clog2_to_slog2", |b| {
        b.iter(|| {
            let mut r = clog2_format::Clog2Reader::from_slice(black_box(&data)).unwrap();
            out.clear();
            let (_, stats) = clog2_to_slog2(
                &mut r,
                Cursor::new(&mut out),
                TreeOptions::default(),
                |_| {},
            )
            .unwrap();
            stats.tree.drawables
        })
    });
    g.finish();
}

criterion_group!(benches, convert);
criterion_main!(benches);
