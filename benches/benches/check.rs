//! `mpelog check` throughput (MB/s of input) from memory: a generated CLOG2 trace
//! of about 100 MB, the SLOG-2 file converted from it (plain and compressed), and
//! its annotation checked against the trace.
//!
//! `cargo bench -p mpelog-benches --bench check`. `MPELOG_BENCH_MB` sets the size
//! (default 100).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use mpelog_conformance::{check_annotation, check_bytes, Options};
use slog2_format::frame::Compression;
use std::hint::black_box;
use std::io::Cursor;

fn check(c: &mut Criterion) {
    let mb: u64 = std::env::var("MPELOG_BENCH_MB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100);
    let trace = std::fs::read(mpelog_benches::clog2_trace(mb)).expect("trace");
    let slog2 = std::fs::read(mpelog_benches::slog2_file(mb)).expect("SLOG-2");
    let z = std::fs::read(mpelog_benches::slog2_file_with(mb, Compression::Columns(4)))
        .expect("compressed SLOG-2");
    let idx = {
        let mut r = clog2_format::Clog2Reader::from_slice(&trace).unwrap();
        let (out, _) = mpelog_annotate::annotate(
            &mut r,
            Cursor::new(Vec::new()),
            mpelog_annotate::AnnotateOptions::default().trace(trace.len() as u64, &trace[..1024]),
            |_| {},
        )
        .unwrap();
        out.into_inner()
    };
    let opts = Options::default();
    let mut g = c.benchmark_group("check");
    g.sample_size(10);
    for (name, bytes) in [("clog2", &trace), ("slog2", &slog2), ("slog2z", &z)] {
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function(name, |b| {
            b.iter(|| {
                let r = check_bytes(black_box(bytes), &opts);
                assert!(r.passes(), "{name}: {:?}", r.findings);
            })
        });
    }
    // The annotation's check reads the whole trace too: MB/s of the trace.
    g.throughput(Throughput::Bytes(trace.len() as u64));
    g.bench_function("annotation", |b| {
        b.iter(|| {
            let r = check_annotation(Cursor::new(&idx), Cursor::new(&trace), &opts);
            assert!(r.passes(), "{:?}", r.findings);
        })
    });
    g.finish();
}

criterion_group!(benches, check);
criterion_main!(benches);
