//! Statistics of a CLOG2 trace: records per kind and per rank, and the time span.
//!
//! ```sh
//! cargo run --example clog2_stats [TRACE.clog2]
//! ```
//!
//! Without an argument, it reads a generated 4-rank trace.

use clog2_format::{synth, Body, Clog2Reader};
use std::collections::BTreeMap;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let bytes = match std::env::args_os().nth(1) {
        Some(path) => std::fs::read(path)?,
        None => synth::generate_vec(&synth::Options::default().ranks(4).events(20_000))?,
    };
    // Streams block by block over the bytes; `Clog2Reader::new(file)` does the
    // same over any `std::io::Read`.
    let mut reader = Clog2Reader::from_slice(&bytes)?;
    let info = reader.preamble().info().clone();
    println!(
        "{}, {} processes, blocks of {} bytes",
        info.version,
        info.comm_world_size.map_or("?".into(), |n| n.to_string()),
        info.block_size
    );
    let mut kinds: BTreeMap<&str, u64> = BTreeMap::new();
    let mut ranks: BTreeMap<i32, u64> = BTreeMap::new();
    let (mut first, mut last) = (f64::INFINITY, f64::NEG_INFINITY);
    while let Some(rec) = reader.next_record()? {
        let kind = match &rec.body {
            Body::EndLog | Body::EndBlock => continue,
            Body::StateDef(_) | Body::EventDef(_) | Body::ConstDef(_) => "definition",
            Body::Bare(_) | Body::Cargo(_) => "event",
            Body::Msg(_) | Body::LegacyMsg(_) => "message",
            Body::Coll(_) | Body::LegacyColl(_) => "collective",
            Body::Comm(_) | Body::LegacyComm(_) => "communicator",
            Body::SrcLoc(_) => "source location",
            Body::TimeShift(_) => "time shift",
        };
        *kinds.entry(kind).or_default() += 1;
        *ranks.entry(rec.rank).or_default() += 1;
        first = first.min(rec.time);
        last = last.max(rec.time);
    }
    for (kind, n) in &kinds {
        println!("{n:>10} {kind} records");
    }
    for (rank, n) in &ranks {
        println!("{n:>10} records of rank {rank}");
    }
    println!("time span {first:.6} s .. {last:.6} s");
    Ok(())
}
