//! Converts a CLOG2 trace to SLOG-2, the way MPE's `clog2TOslog2` does.
//!
//! ```sh
//! cargo run --example convert [TRACE.clog2 OUT.slog2]
//! ```
//!
//! Without arguments, it converts a generated 4-rank trace into a temporary
//! directory.

use slog2_format::convert::clog2_to_slog2;
use slog2_format::write::TreeOptions;
use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let mut args = std::env::args_os().skip(1);
    let (input, output) = match (args.next(), args.next()) {
        (Some(i), Some(o)) => (PathBuf::from(i), PathBuf::from(o)),
        _ => {
            let input = dir.path().join("trace.clog2");
            let opts = clog2_format::synth::Options::default()
                .ranks(4)
                .events(20_000);
            clog2_format::synth::generate(File::create(&input)?, &opts)?;
            (input, dir.path().join("trace.slog2"))
        }
    };
    // The converter reads the trace once, block by block.
    let mut reader = clog2_format::Clog2Reader::new(File::open(&input)?)?;
    // A real tool writes to a temporary file and renames it when complete
    // (the `mpelog convert` command does).
    let out = BufWriter::new(File::create(&output)?);
    let options = TreeOptions::default();
    let (out, stats) = clog2_to_slog2(&mut reader, out, options, |_offset| {})?;
    out.into_inner()?.sync_all()?;
    println!(
        "{} -> {}: {} records, {} drawables in {} nodes (depth {}), {} bytes",
        input.display(),
        output.display(),
        stats.records,
        stats.tree.drawables,
        stats.tree.nodes,
        stats.tree.depth,
        std::fs::metadata(&output)?.len()
    );
    let u = &stats.unmatched;
    println!(
        "unmatched: {} state starts, {} state ends, {} sends, {} receives",
        u.state_starts, u.state_finals, u.sends, u.recvs
    );
    Ok(())
}
