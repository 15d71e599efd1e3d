//! Exports a CLOG2 trace to a Perfetto trace (open it in ui.perfetto.dev) in
//! one pass with the `mpelog` library: the events are paired with the
//! converter's code, the drawables put in start order in bounded memory
//! (sorted runs in an unnamed temporary file past 16 MiB here), and the
//! Perfetto writer encodes on a thread of its own.
//!
//! ```sh
//! cargo run --example export_perfetto [TRACE.clog2 [OUT.pftrace]]
//! ```
//!
//! Without arguments it exports a generated 4-rank trace into a temporary
//! directory. The output is written as `mpelog export` writes it
//! (`mpelog::output`): never over the input, to a temporary file beside it,
//! renamed when complete.

use mpelog::export::{self, perfetto::PerfettoTrace, threaded::on_a_thread, Options};
use mpelog::output::Output;
use std::path::{Path, PathBuf};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tmp = tempfile::tempdir()?;
    let mut args = std::env::args_os().skip(1);
    let input = args.next().map(PathBuf::from);
    let trace = match &input {
        Some(path) => std::fs::read(path)?,
        None => clog2_format::synth::generate_vec(
            &clog2_format::synth::Options::default()
                .ranks(4)
                .events(200_000),
        )?,
    };
    let out = args
        .next()
        .map_or_else(|| tmp.path().join("trace.pftrace"), PathBuf::from);

    // Pair the events into drawables, in start order.
    let opts = Options::default().sort_memory(16 << 20);
    let mut reader = clog2_format::Clog2Reader::from_slice(&trace)?;
    let (mut sorted, paired) =
        slog2_format::convert::clog2_into(&mut reader, opts.start_order(), |_| {})?;

    // Write them as a Perfetto trace, the writer on a thread of its own.
    let inputs: Vec<&Path> = input.iter().map(PathBuf::as_path).collect();
    let target = Output::create(&out, &inputs, false)?;
    let mut sink = PerfettoTrace::new(target.writer()?);
    let (counts, written) = on_a_thread(&mut sink, |h| export::one_pass(&mut sorted, &opts, h));
    let counts = counts?;
    written?;
    target.finish(sink.into_inner())?;

    println!(
        "{} records paired: {} states, {} events, {} arrows on {} tracks ({} sorted runs) in {} ({} bytes)",
        paired.records,
        counts.states,
        counts.events,
        counts.arrows,
        counts.tracks,
        sorted.runs(),
        out.display(),
        std::fs::metadata(&out)?.len()
    );
    Ok(())
}
