//! The Rust side of `benches/window_vs_java.py` (issue 45): times the same
//! time windows three ways on one SLOG-2 file, each window afresh, `REPS`
//! passes after `WARMUP` passes, the ways interleaved window by window so
//! that they share the machine's load:
//!
//! - `columns`: [`mpelog::Trace::window_columns`], the rows of the Python
//!   package's `t.window()` (before Arrow takes the buffers over);
//! - `owned`: [`mpelog::Trace::window`], owned drawables;
//! - `buffer`: [`slog2_format::Slog2Reader::window_into`] into one reused
//!   [`slog2_format::WindowBuf`] (the decoding alone, read through views);
//! - `cold`: `window_columns` of a [`mpelog::Trace`] opened just before (not
//!   timed) for this one window: no node scan cached, no buffer grown (the
//!   file's pages are in the operating system's cache, as for Java's fresh
//!   `TreeTrunk`).
//!
//! `cargo run --release -p mpelog-benches --example window_side -- FILE.slog2
//! WINDOWS.txt [REPS [WARMUP]]`; `WINDOWS.txt` holds `t0 t1` per line. Prints
//! one JSON object per window and way: `rows`, `median_ms`, `p95_ms`, `min_ms`
//! and every sample (`samples_ms`).

use slog2_format::{Slog2Reader, WindowBuf};
use std::time::Instant;

/// The `q`-quantile of sorted `v` (nearest rank).
fn quantile(v: &[f64], q: f64) -> f64 {
    let i = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len().max(1)) - 1;
    v.get(i).copied().unwrap_or(f64::NAN)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: window_side FILE.slog2 WINDOWS.txt [REPS [WARMUP]]";
    let path = args.get(1).ok_or(usage)?;
    let windows = mpelog_benches::windows_of(args.get(2).ok_or(usage)?)?;
    let reps: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(30);
    let warmup: usize = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(5);
    let mut t = mpelog::Trace::open(path)?;
    let mut r = Slog2Reader::new(std::fs::File::open(path)?)?;
    let mut buf = WindowBuf::new();
    const WAYS: [&str; 4] = ["columns", "owned", "buffer", "cold"];
    let mut ms = vec![[Vec::new(), Vec::new(), Vec::new(), Vec::new()]; windows.len()];
    let mut rows = vec![[0usize; 4]; windows.len()];
    for pass in 0..warmup + reps {
        for (i, &(a, b)) in windows.iter().enumerate() {
            for (w, way) in WAYS.iter().enumerate() {
                let mut fresh = match *way {
                    "cold" => Some(mpelog::Trace::open(path)?),
                    _ => None,
                };
                let clock = Instant::now();
                let n = match (*way, &mut fresh) {
                    ("columns", _) => t.window_columns(Some(a), Some(b))?.len(),
                    ("owned", _) => t.window(Some(a), Some(b))?.drawables.len(),
                    ("cold", Some(t)) => t.window_columns(Some(a), Some(b))?.len(),
                    _ => {
                        r.window_into(&mut buf, a, b)?;
                        buf.drawables_len()
                    }
                };
                let took = clock.elapsed().as_secs_f64() * 1e3;
                if pass >= warmup {
                    ms[i][w].push(took);
                }
                rows[i][w] = n;
            }
        }
    }
    for (i, &(a, b)) in windows.iter().enumerate() {
        for (w, way) in WAYS.iter().enumerate() {
            let v = &mut ms[i][w];
            v.sort_by(f64::total_cmp);
            let samples: Vec<String> = v.iter().map(|x| format!("{x:.4}")).collect();
            println!(
                "{{\"window\":{i},\"from\":{a},\"to\":{b},\"way\":\"{way}\",\"rows\":{},\"median_ms\":{:.4},\"p95_ms\":{:.4},\"min_ms\":{:.4},\"samples_ms\":[{}]}}",
                rows[i][w],
                quantile(v, 0.5),
                quantile(v, 0.95),
                v.first().copied().unwrap_or(f64::NAN),
                samples.join(",")
            );
        }
    }
    Ok(())
}
