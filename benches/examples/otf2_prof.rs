//! Where an OTF2 archive's read goes (issue 45): its events decoded and
//! merged in time order alone (`events`), then also paired into drawables
//! (`paired`), rounds interleaved; prints per round the wall and CPU time.
//!
//! `cargo run --release -p mpelog-benches --example otf2_prof -- ANCHOR N [MODE...]`
//! (default modes: `events paired`). A driver for `perf record` too.

use mpelog_benches::cpu;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().ok_or("ANCHOR N [MODE...]")?;
    let rounds: usize = args.get(1).map_or(Ok(1), |n| n.parse())?;
    let modes: Vec<&str> = match args.get(2..) {
        Some(m) if !m.is_empty() => m.iter().map(String::as_str).collect(),
        _ => vec!["events", "paired"],
    };
    let archive = otf2_format::Archive::open(path)?;
    for round in 0..rounds {
        for mode in &modes {
            let (wall, cpu0) = (Instant::now(), cpu());
            let (mut n, mut sum) = (0u64, 0u64);
            match *mode {
                "events" => {
                    let mut events = archive.events()?;
                    while let Some(e) = events.next_event()? {
                        n += 1;
                        sum = sum.wrapping_add(e.time);
                    }
                }
                "paired" => {
                    let mut d = slog2_format::convert::otf2::Otf2Drawables::new(&archive.defs);
                    let mut events = archive.events()?;
                    let mut prims = Vec::new();
                    while let Some(e) = events.next_event()? {
                        prims.clear();
                        d.push_into(&e, &mut prims);
                        n += prims.len() as u64;
                        sum = sum
                            .wrapping_add(prims.iter().map(|p| p.times[0].to_bits()).sum::<u64>());
                    }
                }
                m => return Err(format!("unknown mode {m:?} (events, paired)").into()),
            }
            println!(
                "round {round} {mode:>7}: {n} items, wall {:.3} s, CPU {:.3} s [{sum:x}]",
                wall.elapsed().as_secs_f64(),
                (cpu() - cpu0).as_secs_f64()
            );
        }
    }
    Ok(())
}
