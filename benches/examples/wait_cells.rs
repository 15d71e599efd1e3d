//! The cost of window queries on a wait index (spec/waits.md §4): reads
//! `TRACE.waits` as `render --waits` and `serve` do (`read_file`), then asks
//! `cells` for windows of the whole trace and of 1/10, 1/100 and 1/1000 of
//! it at spread positions, 2000 columns wide (the viewer's widest plot), and
//! prints p50/p95/max per width; then the worst 10 instances and the
//! critical path of the same windows.
//!
//! `cargo run --release -p mpelog-benches --example wait_cells -- INDEX [COLUMNS] [N]`

use mpelog::waits::WaitIndex;
use std::time::Instant;

fn pct(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() as f64 - 1.0) * q).round() as usize];
    (at(0.5), at(0.95), at(1.0))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).expect("INDEX");
    let columns: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(2000);
    let n: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(40);
    let t = Instant::now();
    let ix = WaitIndex::read_file(std::path::Path::new(path)).unwrap();
    let size = std::fs::metadata(path).unwrap().len();
    println!(
        "{path}: {} bytes, {} waits on {} timelines, {} path segments; read in {:.1} ms",
        size,
        ix.len(),
        ix.timelines().len(),
        ix.path().len(),
        t.elapsed().as_secs_f64() * 1e3
    );
    let span = ix.to - ix.from;
    for frac in [1.0, 0.1, 0.01, 0.001] {
        let w = span * frac;
        let (mut cells, mut inst, mut path) = (Vec::new(), Vec::new(), Vec::new());
        let mut size = 0usize;
        for k in 0..n {
            let a = ix.from + (span - w) * (k as f64 + 0.5) / n as f64;
            let t = Instant::now();
            let c = ix.cells(a, a + w, columns);
            cells.push(t.elapsed().as_secs_f64() * 1e3);
            size = size.max(c.rows.iter().map(|r| r.cells.len()).sum());
            let t = Instant::now();
            let _ = ix.instances(a, a + w, 10);
            inst.push(t.elapsed().as_secs_f64() * 1e3);
            let t = Instant::now();
            let _ = ix.critical_path(a, a + w);
            path.push(t.elapsed().as_secs_f64() * 1e3);
        }
        let (c50, c95, cmax) = pct(cells);
        let (i50, i95, _) = pct(inst);
        let (p50, p95, _) = pct(path);
        println!(
            "window {frac:>6} of the trace x {columns} columns: cells p50 {c50:.2} ms p95 {c95:.2} ms max {cmax:.2} ms (at most {size} non-empty cells); instances(10) p50 {i50:.2} p95 {i95:.2} ms; critical_path p50 {p50:.3} p95 {p95:.3} ms"
        );
    }
}
