//! A driver for profiling window queries under `valgrind --tool=callgrind`: opens
//! the generated SLOG-2 file of the `window_random` benchmark, picks the same
//! window width, and runs `N` windows of one kind. The instructions per window are
//! the difference of two runs with different `N` divided by the difference of `N`.
//!
//! `cargo run --release -p mpelog-benches --example window_prof -- MODE N`, MODE
//! one of `window`, `preview` (the owned answers), `into`, `preview_into` (into
//! one reused [`slog2_format::WindowBuf`]).

use slog2_format::{Slog2Reader, WindowBuf};
use std::fs::File;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map(String::as_str).unwrap_or("window");
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10);
    let mb: u64 = std::env::var("MPELOG_BENCH_MB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let path = mpelog_benches::slog2_file(mb);
    let mut r = Slog2Reader::new(File::open(&path).unwrap()).unwrap();
    let (w0, w1, _) = mpelog_benches::window_for(&mut r, 10_000);
    let width = w1 - w0;
    let root = r.tree_dir().unwrap().value.entries[0];
    let starts = mpelog_benches::window_starts(root.earliest, root.latest, width, n);
    let mut buf = WindowBuf::new();
    let mut total = 0usize;
    for &s in &starts {
        total += match mode {
            "window" => r.window(s, s + width).unwrap().drawables.len(),
            "preview" => {
                let a = r.window_preview(s, s + width, 1600).unwrap();
                a.drawables.len() + a.shadows.len()
            }
            "into" => {
                r.window_into(&mut buf, s, s + width).unwrap();
                buf.drawables_len()
            }
            "preview_into" => {
                r.window_preview_into(&mut buf, s, s + width, 1600).unwrap();
                buf.drawables_len() + buf.shadows_len()
            }
            _ => panic!("unknown mode {mode}"),
        };
    }
    println!("{mode}: {n} windows, {total} items");
}
