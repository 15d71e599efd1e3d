//! The window table of issue 14: 100 windows of one fixed width at random places
//! in the generated 1 GB SLOG-2 file (width chosen so that a window in the middle
//! holds about 10,000 drawables), the file opened once, each window read afresh
//! after a warm-up pass. Criterion times the 100 windows (mean per window = time
//! / 100); a pass before it prints the mean and the maximum of single windows.
//! The same for previews at 1,600 pixels (Jumpshot's summary view, `--pixels`).
//!
//! `cargo bench -p mpelog-benches --bench window_random`; `MPELOG_BENCH_MB=100`
//! picks a smaller file (default 1000).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use slog2_format::Slog2Reader;
use std::fs::File;
use std::time::Instant;

/// Windows per pass.
const WINDOWS: usize = 100;
/// Width of the preview, in pixels.
const PIXELS: u32 = 1600;

/// `n` window starts spread at random (a fixed LCG, so every run asks the same).
fn starts(t0: f64, t1: f64, width: f64, n: usize) -> Vec<f64> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let u = (x >> 11) as f64 / (1u64 << 53) as f64;
            t0 + u * (t1 - t0 - width).max(0.0)
        })
        .collect()
}

fn random_windows(c: &mut Criterion) {
    let mb: u64 = std::env::var("MPELOG_BENCH_MB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let path = mpelog_benches::slog2_file(mb);
    let mut r = Slog2Reader::open(File::open(&path).unwrap()).unwrap();
    let (w0, w1, _) = mpelog_benches::window_for(&mut r, 10_000);
    let width = w1 - w0;
    let root = r.tree_dir().unwrap().value.entries[0];
    let windows = starts(root.earliest, root.latest, width, WINDOWS);

    // Warm-up pass (page cache), then one timed pass for the mean and the max.
    let mut drawables = 0usize;
    for &s in &windows {
        drawables += r.window(s, s + width).unwrap().drawables.len();
    }
    for (what, preview) in [("window", false), ("preview", true)] {
        let mut times = Vec::with_capacity(WINDOWS);
        for &s in &windows {
            let t = Instant::now();
            let n = if preview {
                let a = r.window_preview(s, s + width, PIXELS).unwrap();
                a.drawables.len() + a.shadows.len()
            } else {
                r.window(s, s + width).unwrap().drawables.len()
            };
            std::hint::black_box(n);
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
        let mean = times.iter().sum::<f64>() / times.len() as f64;
        let max = times.iter().cloned().fold(0.0, f64::max);
        eprintln!(
            "{mb} MB CLOG2 -> {} bytes SLOG-2: {WINDOWS} {what}s of width {width:.3e} s ({:.0} drawables each on average): mean {mean:.3} ms, max {max:.3} ms",
            std::fs::metadata(&path).unwrap().len(),
            drawables as f64 / WINDOWS as f64
        );
    }

    let mut g = c.benchmark_group("window_random");
    g.sample_size(10);
    g.throughput(Throughput::Elements(WINDOWS as u64));
    g.bench_function(format!("{WINDOWS}_windows_{mb}MB"), |b| {
        b.iter(|| {
            windows
                .iter()
                .map(|&s| r.window(s, s + width).unwrap().drawables.len())
                .sum::<usize>()
        })
    });
    g.bench_function(format!("{WINDOWS}_previews_{PIXELS}px_{mb}MB"), |b| {
        b.iter(|| {
            windows
                .iter()
                .map(|&s| {
                    let a = r.window_preview(s, s + width, PIXELS).unwrap();
                    a.drawables.len() + a.shadows.len()
                })
                .sum::<usize>()
        })
    });
    g.finish();
}

criterion_group!(benches, random_windows);
criterion_main!(benches);
