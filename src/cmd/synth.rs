//! `mpelog synth`: generate a realistic CLOG2 trace.

use crate::error::{CliError, CliResult};
use crate::output::Output;
use clog2_format::synth;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::Path;

/// Runs `mpelog synth` (`dense`: [`synth::Options::dense`]; `plant`: [`synth::Plant`]).
pub fn run(
    output: &Path,
    ranks: u32,
    events: u64,
    seed: u64,
    block_size: u32,
    dense: bool,
    plant: synth::Plant,
) -> CliResult {
    let opts = synth::Options::default()
        .ranks(ranks)
        .events(events)
        .seed(seed)
        .block_size(block_size)
        .dense(dense)
        .plant(plant);
    let out = Output::create(output, &[], false)?;
    let bar = ProgressBar::with_draw_target(Some(events), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "generating [{bar:40}] {pos}/{len} records {per_sec} eta {eta}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    let (w, stats) =
        synth::generate_with_progress(out.writer()?, &opts, &mut |n| bar.set_position(n)).map_err(
            |e| match e {
                clog2_format::Error::InvalidOptions(m) => CliError::SynthOptions(m),
                other => CliError::input(output)(other),
            },
        )?;
    bar.finish_and_clear();
    let shown_out = crate::output::name(&out);
    out.finish(w)?;
    // Records as `info` and `convert` count them: block terminators included.
    eprintln!(
        "wrote {}: {} records ({} events and definitions, {} block terminators), {} bytes, {} blocks, {} ranks, {} messages, time 0 .. {:.6} s",
        shown_out,
        stats.records + stats.blocks,
        stats.records,
        stats.blocks,
        stats.bytes,
        stats.blocks,
        ranks,
        stats.messages,
        stats.time_max
    );
    Ok(())
}
