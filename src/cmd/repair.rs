//! `mpelog repair`: recover every whole record of a cut or damaged CLOG2 file and
//! write a proper file.

use crate::error::{CliError, CliResult};
use crate::input::shown;
use crate::output::Output;
use clog2_format::repair::repair_to;
use std::path::Path;

/// Runs `mpelog repair`.
pub fn run(input: &Path, output: &Path) -> CliResult {
    // In place (OUT the same file as IN) is allowed: the whole input is read
    // first, and the repaired file replaces it by a rename only once complete, so
    // a crash at any moment leaves either the old file or the new one whole.
    let out = Output::create(output, &[input], true)?;
    let input = &mpelog::trace::local_copy(input)?;
    let data = std::fs::read(input).map_err(CliError::io(input))?;
    let mut w = out.writer()?;
    let report = repair_to(&data, &mut w).map_err(|e| match e {
        // The input is in memory: only the output can fail to be written.
        e @ clog2_format::Error::Io { .. } => CliError::input(output)(e),
        e => CliError::clog2(input)(e),
    })?;
    let shown_out = crate::output::name(&out);
    out.finish(w)?;
    eprintln!("{}: {report}", shown(input));
    eprintln!(
        "wrote {}: {} bytes, {} blocks of {} bytes{}",
        shown_out,
        report.output_len,
        report.blocks,
        report.block_size,
        if report.is_intact() {
            " (identical to the input)"
        } else {
            ""
        }
    );
    Ok(())
}
