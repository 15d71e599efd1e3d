//! Annotation files on generated traces: annotation size as a fraction of the
//! trace, annotate throughput (MB/s of trace), and the time of a window holding
//! about 10,000 drawables through the annotation against the same window on the
//! SLOG-2 file converted from the same trace.
//!
//! `cargo bench -p mpelog-benches --bench annotate`. Sizes (MB of CLOG2) from
//! `MPELOG_BENCH_SIZES` (default `10,100,1000`); inputs are cached under
//! `target/mpelog-bench/`.
//!
//! Besides criterion's figures (`annotation_window_10k/{annotation,slog2}`),
//! each size prints one line `side by side:` with both mean times and their
//! ratio (issue 14's target: annotation ≤ 1.2 × SLOG-2), measured in one loop
//! that alternates the two queries (`MPELOG_BENCH_ROUNDS` rounds, default 300,
//! after 20 warm-up rounds), so that a change of load on the machine touches
//! both alike: once for owned answers (`Annotation::window` against
//! `Slog2Reader::window`, each dropped inside the timed part) and once for
//! answers into a reusable `WindowBuf` (`window_into` on both).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use mpelog_annotate::{annotate, AnnotateOptions, Annotation};
use slog2_format::{Slog2Reader, WindowBuf};
use std::fs::File;
use std::hint::black_box;
use std::io::{BufWriter, Cursor};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The annotation of the cached `mb` MB trace, made once.
fn annotation(mb: u64) -> PathBuf {
    let trace = mpelog_benches::clog2_trace(mb);
    let path = trace.with_extension("clog2.idx");
    if !path.exists() {
        let data = std::fs::read(&trace).unwrap();
        let mut r = clog2_format::Clog2Reader::from_slice(&data).unwrap();
        let tmp = path.with_extension("tmp");
        let out = BufWriter::new(File::create(&tmp).unwrap());
        annotate(
            &mut r,
            out,
            AnnotateOptions::default().trace(data.len() as u64, &data[..1024]),
            |_| {},
        )
        .unwrap();
        std::fs::rename(&tmp, &path).unwrap();
    }
    path
}

fn bench(c: &mut Criterion) {
    let sizes: Vec<u64> = std::env::var("MPELOG_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|t| t.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![10, 100, 1000]);

    let data = std::fs::read(mpelog_benches::clog2_trace(100)).unwrap();
    let mut g = c.benchmark_group("annotate");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(data.len() as u64));
    let mut out = Vec::with_capacity(data.len() / 50);
    g.bench_function("annotate_100MB", |b| {
        b.iter(|| {
            let mut r = clog2_format::Clog2Reader::from_slice(&data).unwrap();
            out.clear();
            let (_, s) = annotate(
                &mut r,
                Cursor::new(&mut out),
                AnnotateOptions::default().trace(data.len() as u64, &data[..1024]),
                |_| {},
            )
            .unwrap();
            s.leaves
        })
    });
    g.finish();

    let mut g = c.benchmark_group("annotation_window_10k");
    g.sample_size(30);
    for mb in sizes {
        let trace = mpelog_benches::clog2_trace(mb);
        let idx = annotation(mb);
        let slog2 = mpelog_benches::slog2_file(mb);
        let mut s = Slog2Reader::new(File::open(&slog2).unwrap()).unwrap();
        let (t0, t1, n) = mpelog_benches::window_for(&mut s, 10_000);
        let mut a =
            Annotation::new(File::open(&idx).unwrap(), File::open(&trace).unwrap()).unwrap();
        let x = a.window(t0, t1).unwrap();
        let y = s.window(t0, t1).unwrap();
        let tlen = std::fs::metadata(&trace).unwrap().len();
        let ilen = std::fs::metadata(&idx).unwrap().len();
        eprintln!(
            "{mb} MB trace: annotation {ilen} bytes = {:.3}% of the trace ({} leaves); window of {n} drawables: annotation {} drawables, {} nodes+leaves, {} annotation bytes, {} trace bytes; SLOG-2 {} nodes, {} bytes",
            100.0 * ilen as f64 / tlen as f64,
            a.leaves().len(),
            x.drawables.len(),
            x.counters.nodes_read,
            x.counters.annotation_bytes,
            x.counters.trace_bytes,
            y.counters.nodes_read,
            y.counters.bytes_read
        );
        side_by_side(mb, &mut a, &mut s, t0, t1);
        g.bench_function(BenchmarkId::new("annotation", format!("{mb}MB")), |b| {
            b.iter(|| a.window(t0, t1).unwrap().drawables.len())
        });
        g.bench_function(BenchmarkId::new("slog2", format!("{mb}MB")), |b| {
            b.iter(|| s.window(t0, t1).unwrap().drawables.len())
        });
    }
    g.finish();
}

/// Alternates the annotation window and the SLOG-2 window of `[t0, t1)` and
/// prints both mean times and their ratio: owned answers
/// (`Annotation::window` against `Slog2Reader::window`, each answer dropped
/// inside the timed part), then answers into a reusable `WindowBuf`
/// (`Annotation::window_into` against `Slog2Reader::window_into`).
fn side_by_side<A, T, R>(
    mb: u64,
    a: &mut Annotation<A, T>,
    s: &mut Slog2Reader<R>,
    t0: f64,
    t1: f64,
) where
    A: std::io::Read + std::io::Seek,
    T: std::io::Read + std::io::Seek,
    R: std::io::Read + std::io::Seek,
{
    let rounds: u32 = std::env::var("MPELOG_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300)
        .max(1);
    let ms = |d: Duration| d.as_secs_f64() * 1e3 / f64::from(rounds);
    let line = |api: &str,
                mut ann: Box<dyn FnMut() -> usize + '_>,
                mut slog2: Box<dyn FnMut() -> usize + '_>| {
        let (mut ta, mut ts) = (Duration::ZERO, Duration::ZERO);
        let (mut na, mut ns) = (0, 0);
        for round in 0..rounds + 20 {
            let t = Instant::now();
            na = black_box(ann());
            let da = t.elapsed();
            let t = Instant::now();
            ns = black_box(slog2());
            let ds = t.elapsed();
            if round >= 20 {
                ta += da;
                ts += ds;
            }
        }
        assert_eq!(na, ns, "the two answers differ in size");
        eprintln!(
            "{mb} MB trace, side by side, {api} ({rounds} rounds, {na} drawables): annotation {:.3} ms, SLOG-2 {:.3} ms, ratio {:.2}",
            ms(ta),
            ms(ts),
            ta.as_secs_f64() / ts.as_secs_f64()
        );
    };
    let (ac, sc) = (std::cell::RefCell::new(a), std::cell::RefCell::new(s));
    line(
        "owned answers",
        Box::new(|| ac.borrow_mut().window(t0, t1).unwrap().drawables.len()),
        Box::new(|| sc.borrow_mut().window(t0, t1).unwrap().drawables.len()),
    );
    let (mut ba, mut bs) = (WindowBuf::new(), WindowBuf::new());
    line(
        "WindowBuf answers",
        Box::new(|| {
            ac.borrow_mut().window_into(&mut ba, t0, t1).unwrap();
            ba.drawables_len()
        }),
        Box::new(|| {
            sc.borrow_mut().window_into(&mut bs, t0, t1).unwrap();
            bs.drawables_len()
        }),
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
