//! `mpelog synth`: generate a realistic CLOG2 trace.

use crate::error::{CliError, CliResult};
use crate::output::{buffered, commit, temp_beside};
use clog2_format::synth;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::Path;

/// Runs `mpelog synth`.
pub fn run(output: &Path, ranks: u32, events: u64, seed: u64, block_size: u32) -> CliResult {
    let opts = synth::Options {
        ranks,
        events,
        seed,
        block_size,
    };
    let tmp = temp_beside(output)?;
    let out = buffered(&tmp, output)?;
    let bar = ProgressBar::with_draw_target(Some(events), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "generating [{bar:40}] {pos}/{len} records {per_sec} eta {eta}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    let (out, stats) = synth::generate_with_progress(out, &opts, &mut |n| bar.set_position(n))
        .map_err(|e| match e {
            clog2_format::Error::Write(m) => CliError::Usage(m),
            other => CliError::input(output)(other),
        })?;
    out.into_inner().map_err(|e| CliError::Io {
        path: output.to_path_buf(),
        source: e.into_error(),
    })?;
    bar.finish_and_clear();
    commit(tmp, output)?;
    eprintln!(
        "wrote {}: {} records, {} bytes, {} blocks, {} ranks, time 0 .. {:.6} s",
        output.display(),
        stats.records,
        stats.bytes,
        stats.blocks,
        ranks,
        stats.time_max
    );
    Ok(())
}
