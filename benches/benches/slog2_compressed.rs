//! Compressed SLOG-2 tree nodes (`SLOG 2.0.6Z`) against plain ones: the file
//! size ratio, CLOG2 → SLOG-2 conversion throughput (MB/s of CLOG2), and the time
//! of a window query of about 10,000 drawables. The target: a compressed file at
//! most 40% of the plain one, with window queries at most 2× slower.
//!
//! `cargo bench -p mpelog-benches --bench slog2_compressed`.
//!
//! - `MPELOG_BENCH_COMPRESS` lists the compressions to test against plain, as
//!   `Compression::parse` reads them, comma-separated (default `deflate`); e.g.
//!   `MPELOG_BENCH_COMPRESS=deflate:1,deflate:6`.
//! - `compressed_convert` converts from memory into memory, on a trace of about
//!   `MPELOG_BENCH_MB` MB (default 100; a 1 GB conversion per sample is too slow).
//! - `compressed_window_10k` queries the same window in the plain and the
//!   compressed conversions of `MPELOG_BENCH_SIZES` MB of CLOG2 (default 1000),
//!   and prints each file's size, its ratio to plain, and the nodes and bytes the
//!   window reads. The files are made once under `target/mpelog-bench/`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use slog2_format::convert::clog2_to_slog2;
use slog2_format::frame::Compression;
use slog2_format::write::TreeOptions;
use slog2_format::Slog2Reader;
use std::fs::File;
use std::hint::black_box;
use std::io::Cursor;

/// Plain first, then each compression of `MPELOG_BENCH_COMPRESS` (deduplicated),
/// with the name it was given.
fn compressions() -> Vec<(String, Compression)> {
    let spec = std::env::var("MPELOG_BENCH_COMPRESS").unwrap_or_else(|_| "deflate".into());
    let mut v = vec![("none".to_string(), Compression::None)];
    for name in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let c = Compression::parse(name).unwrap_or_else(|e| panic!("MPELOG_BENCH_COMPRESS: {e}"));
        if !v.iter().any(|(_, have)| *have == c) {
            v.push((name.to_string(), c));
        }
    }
    v
}

/// Converts a CLOG2 trace held in memory into `out`; returns the drawable count.
fn convert_into(data: &[u8], compression: Compression, out: &mut Vec<u8>) -> u64 {
    let mut r = clog2_format::Clog2Reader::from_slice(data).unwrap();
    out.clear();
    let opts = TreeOptions::default().compression(compression);
    let (_, stats) = clog2_to_slog2(&mut r, Cursor::new(out), opts, |_| {}).unwrap();
    stats.tree.drawables
}

fn convert(c: &mut Criterion) {
    let mb: u64 = std::env::var("MPELOG_BENCH_MB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100);
    let data = std::fs::read(mpelog_benches::clog2_trace(mb)).expect("trace");
    let mut out = Vec::with_capacity(data.len());
    let mut plain_len = 0;
    let mut g = c.benchmark_group("compressed_convert");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(data.len() as u64));
    for (name, compression) in compressions() {
        convert_into(&data, compression, &mut out);
        if compression == Compression::None {
            plain_len = out.len();
        }
        eprintln!(
            "convert {name}: {} bytes CLOG2 -> {} bytes SLOG-2 ({:.1}% of plain)",
            data.len(),
            out.len(),
            100.0 * out.len() as f64 / plain_len as f64
        );
        g.bench_function(BenchmarkId::new(format!("{mb}MB"), &name), |b| {
            b.iter(|| convert_into(black_box(&data), compression, &mut out))
        });
    }
    g.finish();
}

fn window(c: &mut Criterion) {
    let sizes: Vec<u64> = std::env::var("MPELOG_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|t| t.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1000]);
    let mut g = c.benchmark_group("compressed_window_10k");
    g.sample_size(50);
    for mb in sizes {
        let plain_path = mpelog_benches::slog2_file(mb);
        let plain_len = std::fs::metadata(&plain_path).unwrap().len();
        let mut plain = Slog2Reader::new(File::open(&plain_path).unwrap()).unwrap();
        let (t0, t1, n) = mpelog_benches::window_for(&mut plain, 10_000);
        eprintln!("{mb} MB CLOG2: window [{t0}, {t1}) has {n} drawables");
        for (name, compression) in compressions() {
            let path = mpelog_benches::slog2_file_with(mb, compression);
            let len = std::fs::metadata(&path).unwrap().len();
            let mut r = Slog2Reader::new(File::open(&path).unwrap()).unwrap();
            let a = r.window(t0, t1).unwrap();
            assert_eq!(a.drawables.len(), n, "{name}: same window, same drawables");
            eprintln!(
                "{mb} MB CLOG2, {name}: {len} bytes SLOG-2 ({:.1}% of plain, {}), depth {}; \
                 window reads {} nodes, {} bytes",
                100.0 * len as f64 / plain_len as f64,
                r.version().as_str(),
                r.header().max_treedepth,
                a.counters.nodes_read,
                a.counters.bytes_read
            );
            g.bench_function(BenchmarkId::new(format!("{mb}MB"), &name), |b| {
                b.iter(|| r.window(t0, t1).unwrap().drawables.len())
            });
        }
    }
    g.finish();
}

criterion_group!(benches, convert, window);
criterion_main!(benches);
