//! A driver for profiling annotation windows under `valgrind --tool=callgrind`:
//! the window of about 10,000 drawables of the `annotate` benchmark, on the
//! annotation and on the SLOG-2 file of the same generated trace, queried `N`
//! times. The instructions per window are the difference of two runs with
//! different `N` divided by the difference of `N`.
//!
//! `cargo run --release -p mpelog-benches --example annotate_prof -- MODE N`,
//! MODE one of `ann` (`Annotation::window`), `ann_into`
//! (`Annotation::window_into`), `slog2` (`Slog2Reader::window`), `slog2_into`.
//! `MPELOG_BENCH_MB` picks the trace (default 100); the annotation must have
//! been made by the `annotate` benchmark.

use mpelog_annotate::Annotation;
use slog2_format::{Slog2Reader, WindowBuf};
use std::fs::File;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map(String::as_str).unwrap_or("ann");
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10);
    let mb: u64 = std::env::var("MPELOG_BENCH_MB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100);
    let trace = mpelog_benches::clog2_trace(mb);
    let idx = trace.with_extension("clog2.idx");
    let mut s = Slog2Reader::new(File::open(mpelog_benches::slog2_file(mb)).unwrap()).unwrap();
    let (t0, t1, _) = mpelog_benches::window_for(&mut s, 10_000);
    let mut a = Annotation::new(File::open(&idx).unwrap(), File::open(&trace).unwrap()).unwrap();
    let mut buf = WindowBuf::new();
    let mut total = 0usize;
    for _ in 0..n {
        total += match mode {
            "ann" => a.window(t0, t1).unwrap().drawables.len(),
            "ann_into" => {
                a.window_into(&mut buf, t0, t1).unwrap();
                buf.drawables_len()
            }
            "slog2" => s.window(t0, t1).unwrap().drawables.len(),
            "slog2_into" => {
                s.window_into(&mut buf, t0, t1).unwrap();
                buf.drawables_len()
            }
            _ => panic!("unknown mode {mode}"),
        };
    }
    println!("{mode}: {n} windows, {total} drawables");
}
