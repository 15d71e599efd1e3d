//! The window table of issue 14: 100 windows of one fixed width at random places
//! in the generated 1 GB SLOG-2 file (width chosen so that a window in the middle
//! holds about 10,000 drawables), the file opened once, each window read afresh
//! after a warm-up pass. Criterion times the 100 windows (mean per window = time
//! / 100); a pass before it prints the mean and the maximum of single windows.
//! The same for previews at 1,600 pixels (Jumpshot's summary view, `--pixels`).
//!
//! Both APIs side by side, in one run: the owned answers (`window`,
//! `window_preview`: a `WindowAnswer` of owned drawables per query) and the
//! buffer API (`window_into`, `window_preview_into`: one `WindowBuf` reused by
//! every query, read through borrowed views). The buffer API is the headline
//! figure of issue 14 (the ≤ 0.5 ms target); the owned API is what a caller pays
//! for owned values of every drawable.
//!
//! `cargo bench -p mpelog-benches --bench window_random`; `MPELOG_BENCH_MB=100`
//! picks a smaller file (default 1000).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use slog2_format::{Slog2Reader, WindowBuf};
use std::fs::File;
use std::time::Instant;

/// Windows per pass.
const WINDOWS: usize = 100;
/// Width of the preview, in pixels.
const PIXELS: u32 = 1600;

/// The four ways of asking, in the order they are reported.
const KINDS: [(&str, bool, bool); 4] = [
    ("window (buffer)", false, true),
    ("preview (buffer)", true, true),
    ("window (owned)", false, false),
    ("preview (owned)", true, false),
];

/// One query of a kind: the number of drawables and shadows found.
fn ask(
    r: &mut Slog2Reader<File>,
    buf: &mut WindowBuf,
    s: f64,
    width: f64,
    preview: bool,
    into: bool,
) -> usize {
    match (preview, into) {
        (false, true) => {
            r.window_into(buf, s, s + width).unwrap();
            buf.drawables_len()
        }
        (true, true) => {
            r.window_preview_into(buf, s, s + width, PIXELS).unwrap();
            buf.drawables_len() + buf.shadows_len()
        }
        (false, false) => r.window(s, s + width).unwrap().drawables.len(),
        (true, false) => {
            let a = r.window_preview(s, s + width, PIXELS).unwrap();
            a.drawables.len() + a.shadows.len()
        }
    }
}

fn random_windows(c: &mut Criterion) {
    let mb: u64 = std::env::var("MPELOG_BENCH_MB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let path = mpelog_benches::slog2_file(mb);
    let mut r = Slog2Reader::new(File::open(&path).unwrap()).unwrap();
    let (w0, w1, _) = mpelog_benches::window_for(&mut r, 10_000);
    let width = w1 - w0;
    let root = r.tree_dir().unwrap().value.entries[0];
    let windows = mpelog_benches::window_starts(root.earliest, root.latest, width, WINDOWS);
    let mut buf = WindowBuf::new();

    // Warm-up pass (page cache), then one timed pass per kind for the mean and
    // the max.
    let mut drawables = 0usize;
    for &s in &windows {
        drawables += ask(&mut r, &mut buf, s, width, false, true);
    }
    for (what, preview, into) in KINDS {
        let mut times = Vec::with_capacity(WINDOWS);
        for &s in &windows {
            let t = Instant::now();
            let n = ask(&mut r, &mut buf, s, width, preview, into);
            std::hint::black_box(n);
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
        let mean = times.iter().sum::<f64>() / times.len() as f64;
        let max = times.iter().cloned().fold(0.0, f64::max);
        eprintln!(
            "{mb} MB CLOG2 -> {} bytes SLOG-2: {WINDOWS} windows of width {width:.3e} s ({:.0} drawables each on average), {what}: mean {mean:.3} ms, max {max:.3} ms",
            std::fs::metadata(&path).unwrap().len(),
            drawables as f64 / WINDOWS as f64
        );
    }

    let mut g = c.benchmark_group("window_random");
    g.sample_size(10);
    g.throughput(Throughput::Elements(WINDOWS as u64));
    for (_, preview, into) in KINDS {
        let name = match (preview, into) {
            (false, true) => format!("{WINDOWS}_windows_into_{mb}MB"),
            (true, true) => format!("{WINDOWS}_previews_into_{PIXELS}px_{mb}MB"),
            (false, false) => format!("{WINDOWS}_windows_{mb}MB"),
            (true, false) => format!("{WINDOWS}_previews_{PIXELS}px_{mb}MB"),
        };
        g.bench_function(name, |b| {
            b.iter(|| {
                windows
                    .iter()
                    .map(|&s| ask(&mut r, &mut buf, s, width, preview, into))
                    .sum::<usize>()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, random_windows);
criterion_main!(benches);
