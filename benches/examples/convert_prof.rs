//! Converts a generated CLOG2 trace from memory into memory `N` times and
//! prints, per round, the wall time and the process's CPU time (all threads),
//! so that conversions can be compared on a loaded machine: on 2 cores a
//! conversion cannot take less wall time than half its CPU time. Also a driver
//! for `valgrind --tool=callgrind`.
//!
//! `cargo run --release -p mpelog-benches --example convert_prof -- MB N [CODEC]`,
//! CODEC as `Compression::parse` reads it (default `none`).

use mpelog_benches::cpu;
use slog2_format::convert::clog2_to_slog2;
use slog2_format::frame::Compression;
use slog2_format::write::TreeOptions;
use std::io::Cursor;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mb: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100);
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(3);
    let name = args.get(3).map_or("none", String::as_str);
    let compression = Compression::parse(name).unwrap();
    let data = std::fs::read(mpelog_benches::clog2_trace(mb)).unwrap();
    let mut out = Vec::with_capacity(data.len());
    for round in 0..n {
        let (t, c) = (Instant::now(), cpu());
        let mut r = clog2_format::Clog2Reader::from_slice(&data).unwrap();
        out.clear();
        let opts = TreeOptions::default().compression(compression);
        clog2_to_slog2(&mut r, Cursor::new(&mut out), opts, |_| {}).unwrap();
        let (wall, cpu) = (t.elapsed(), cpu() - c);
        println!(
            "{mb} MB {name} round {round}: wall {:.1} ms ({:.0} MB/s), CPU {:.0} ms ({:.2} ns/byte), output {} bytes",
            wall.as_secs_f64() * 1e3,
            data.len() as f64 / wall.as_secs_f64() / 1e6,
            cpu.as_secs_f64() * 1e3,
            cpu.as_secs_f64() * 1e9 / data.len() as f64,
            out.len()
        );
    }
}
