//! Reads a trace's pieces in start order the two ways `t.batches()` can
//! (issue 45), rounds interleaved, and prints per round the wall time, the
//! CPU time of the process (all threads) and its peak RSS so far:
//!
//! - `sorted`: `Trace::scan`, a format without a tree read whole, paired,
//!   sorted in runs and merged before the first piece;
//! - `streamed`: `Trace::scan_until`, pieces handed out while the input is
//!   read (a CLOG2 trace in time order), after a first pass for the legend;
//! - `survey`: that first pass alone.
//!
//! `cargo run --release -p mpelog-benches --example scan_prof -- TRACE N [MODE...]`
//! (default modes: `streamed sorted`). The pieces' start times are summed so
//! that nothing is optimised away. A driver for `perf record` too.

use mpelog_benches::cpu;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

/// Peak resident set of the process so far, MB.
fn peak_mb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb / 1024)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().ok_or("TRACE N [MODE...]")?;
    let rounds: usize = args.get(1).map_or(Ok(1), |n| n.parse())?;
    let modes: Vec<&str> = match args.get(2..) {
        Some(m) if !m.is_empty() => m.iter().map(String::as_str).collect(),
        _ => vec!["streamed", "sorted"],
    };
    let mb = std::fs::metadata(path)?.len() as f64 / 1e6;
    let mut t = mpelog::Trace::open(path)?;
    let opts = mpelog::export::Options::default();
    for round in 0..rounds {
        for mode in &modes {
            let (w, c) = (Instant::now(), cpu());
            let mut sum = 0.0;
            let n = match *mode {
                "sorted" => t.scan(&opts, &mut |_| {}, &mut |p| sum += p.start)?,
                "streamed" => {
                    let stop = Arc::new(AtomicBool::new(false));
                    t.scan_until(&opts, &stop, &mut |_| {}, &mut |p| sum += p.start)?
                }
                "survey" => {
                    // Stops at the first piece: the first pass and no more.
                    let stop = Arc::new(AtomicBool::new(false));
                    let s = stop.clone();
                    let _ = t.scan_until(&opts, &stop, &mut |_| {}, &mut |_| {
                        s.store(true, std::sync::atomic::Ordering::Relaxed)
                    });
                    0
                }
                other => return Err(format!("unknown mode {other}").into()),
            };
            let (w, c) = (w.elapsed().as_secs_f64(), (cpu() - c).as_secs_f64());
            println!(
                "round {round} {mode:>8}: {n} pieces, wall {w:.2} s ({:.0} MB/s), CPU {c:.2} s ({:.0} MB/s of CPU), peak RSS {} MB [{sum:.3e}]",
                mb / w,
                mb / c.max(1e-9),
                peak_mb()
            );
        }
    }
    Ok(())
}
