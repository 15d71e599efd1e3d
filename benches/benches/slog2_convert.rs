//! CLOG2 → SLOG-2 conversion throughput (MB/s of CLOG2 input) on a generated
//! trace of about 100 MB, from memory into memory: plain output, and side by
//! side with compressed output.
//!
//! `cargo bench -p mpelog-benches --bench slog2_convert`. `MPELOG_BENCH_MB` sets
//! the size (default 100).
//!
//! Besides criterion's figure for plain output (`slog2_convert/clog2_to_slog2`),
//! it prints one line `side by side:` per compression of
//! `MPELOG_BENCH_COMPRESS` (as `Compression::parse` reads them, comma-separated;
//! default `deflate`): plain and compressed mean times, MB/s, the compressed
//! speed as a share of the plain speed (issue 14's target: at least 60%) and
//! the output sizes. It alternates the two conversions for
//! `MPELOG_BENCH_ROUNDS` rounds (default 10, after one warm-up round), so that
//! a change of load on the machine touches both alike. `MPELOG_BENCH_SIDE=0`
//! skips these lines.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use slog2_format::convert::clog2_to_slog2;
use slog2_format::frame::Compression;
use slog2_format::write::TreeOptions;
use std::hint::black_box;
use std::io::Cursor;
use std::time::{Duration, Instant};

/// Converts a CLOG2 trace held in memory into `out`; returns the drawable count.
fn convert_into(data: &[u8], compression: Compression, out: &mut Vec<u8>) -> u64 {
    let mut r = clog2_format::Clog2Reader::from_slice(data).unwrap();
    out.clear();
    let opts = TreeOptions::default().compression(compression);
    let (_, stats) = clog2_to_slog2(&mut r, Cursor::new(out), opts, |_| {}).unwrap();
    stats.tree.drawables
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Alternates plain and compressed conversions of `data` and prints both.
fn side_by_side(data: &[u8], mb: u64) {
    let rounds: u32 = env_or("MPELOG_BENCH_ROUNDS", 10u32).max(1);
    let spec = std::env::var("MPELOG_BENCH_COMPRESS").unwrap_or_else(|_| "deflate".into());
    let (mut plain, mut packed) = (Vec::with_capacity(data.len()), Vec::new());
    let secs = |d: Duration| d.as_secs_f64() / f64::from(rounds);
    let mbps = |s: f64| data.len() as f64 / s / 1e6;
    for name in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let c = Compression::parse(name).unwrap_or_else(|e| panic!("MPELOG_BENCH_COMPRESS: {e}"));
        let (mut tp, mut tc) = (Duration::ZERO, Duration::ZERO);
        for round in 0..=rounds {
            let t = Instant::now();
            black_box(convert_into(data, Compression::None, &mut plain));
            let dp = t.elapsed();
            let t = Instant::now();
            black_box(convert_into(data, c, &mut packed));
            let dc = t.elapsed();
            if round > 0 {
                tp += dp;
                tc += dc;
            }
        }
        let (sp, sc) = (secs(tp), secs(tc));
        eprintln!(
            "{mb} MB trace, side by side ({rounds} rounds): plain {:.1} ms ({:.0} MB/s, {} bytes), {name} {:.1} ms ({:.0} MB/s, {} bytes = {:.1}% of plain): {name} at {:.0}% of the plain speed",
            sp * 1e3,
            mbps(sp),
            plain.len(),
            sc * 1e3,
            mbps(sc),
            packed.len(),
            100.0 * packed.len() as f64 / plain.len() as f64,
            100.0 * sp / sc
        );
    }
}

fn convert(c: &mut Criterion) {
    let mb: u64 = env_or("MPELOG_BENCH_MB", 100);
    let data = std::fs::read(mpelog_benches::clog2_trace(mb)).expect("trace");
    eprintln!("trace: {} bytes", data.len());
    if env_or("MPELOG_BENCH_SIDE", 1u32) != 0 {
        side_by_side(&data, mb);
    }
    let mut g = c.benchmark_group("slog2_convert");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(data.len() as u64));
    let mut out = Vec::with_capacity(data.len());
    g.bench_function("clog2_to_slog2", |b| {
        b.iter(|| convert_into(black_box(&data), Compression::None, &mut out))
    });
    g.finish();
}

criterion_group!(benches, convert);
criterion_main!(benches);
