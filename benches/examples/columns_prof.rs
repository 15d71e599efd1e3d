//! A driver for profiling `t.window()`'s Rust side (issue 45) under `perf
//! record` or `valgrind --tool=callgrind`: the windows of `WINDOWS.txt` (`t0
//! t1` per line) of one SLOG-2 file, `N` passes, one way:
//!
//! - `columns`: [`mpelog::Trace::window_columns`] (the rows `t.window()` hands
//!   to Arrow);
//! - `bare`: the same rows without the info columns
//!   ([`mpelog::Trace::window_columns_with`], `t.window(columns=...)`);
//! - `buffer`: [`slog2_format::Slog2Reader::window_into`] into one reused
//!   [`slog2_format::WindowBuf`] (the tree query alone);
//! - `raw`: [`slog2_format::Slog2Reader::window_raw_into`] into one reused
//!   [`slog2_format::window::RawWindowBuf`] (the tree query that `columns`
//!   makes, the drawables left in the nodes' bytes);
//! - `cold`: `window_columns` of a `Trace` opened afresh for each window;
//! - `open`: the opening alone.
//!
//! `cargo run --release -p mpelog-benches --example columns_prof -- FILE.slog2
//! WINDOWS.txt MODE N`; prints the rows read and the wall and CPU time per
//! window.

use slog2_format::{Slog2Reader, WindowBuf};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: columns_prof FILE.slog2 WINDOWS.txt columns|bare|buffer|raw|cold|open N";
    let path = args.get(1).ok_or(usage)?;
    let windows = mpelog_benches::windows_of(args.get(2).ok_or(usage)?)?;
    let mode = args.get(3).map(String::as_str).unwrap_or("columns");
    let n: usize = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(10);
    let mut t = mpelog::Trace::open(path)?;
    let mut r = Slog2Reader::new(std::fs::File::open(path)?)?;
    let mut buf = WindowBuf::new();
    let mut raw = slog2_format::window::RawWindowBuf::new();
    let bare = mpelog::trace::Select::default()
        .info(false)
        .typed::<&str>([]);
    let mut rows = 0usize;
    let cpu0 = cpu_ns();
    let clock = Instant::now();
    for _ in 0..n {
        for &(a, b) in &windows {
            rows += match mode {
                "columns" => t.window_columns(Some(a), Some(b))?.len(),
                "bare" => t.window_columns_with(Some(a), Some(b), &bare)?.len(),
                "cold" => mpelog::Trace::open(path)?
                    .window_columns(Some(a), Some(b))?
                    .len(),
                "open" => mpelog::Trace::open(path).map(|_| 1)?,
                "buffer" => {
                    r.window_into(&mut buf, a, b)?;
                    buf.drawables_len()
                }
                "raw" => {
                    r.window_raw_into(&mut raw, a, b)?;
                    raw.len()
                }
                _ => return Err(usage.into()),
            };
        }
    }
    let per = clock.elapsed().as_secs_f64() * 1e3 / (n * windows.len()).max(1) as f64;
    let cpu = match (cpu0, cpu_ns()) {
        (Some(a), Some(b)) => format!(
            ", {:.4} ms CPU",
            (b - a) as f64 / 1e6 / (n * windows.len()).max(1) as f64
        ),
        _ => String::new(),
    };
    println!("{mode}: {rows} rows, {per:.4} ms per window (wall){cpu}");
    Ok(())
}

/// The CPU time this process has run, in nanoseconds (Linux's
/// `/proc/self/schedstat`; `None` elsewhere): under load, the measure that
/// wall-clock time cannot be.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}
