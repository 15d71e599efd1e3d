//! `mpelog repair`: recover every whole record of a cut or damaged CLOG2 file and
//! write a proper file.

use crate::error::{CliError, CliResult};
use crate::output::{buffered, commit, temp_beside};
use clog2_format::repair::repair_to;
use std::io::Write;
use std::path::Path;

/// Runs `mpelog repair`.
pub fn run(input: &Path, output: &Path) -> CliResult {
    let data = std::fs::read(input).map_err(CliError::io(input))?;
    let tmp = temp_beside(output)?;
    let mut out = buffered(&tmp, output)?;
    let report = repair_to(&data, &mut out).map_err(|e| match e {
        // The input is in memory: only the output can fail to be written.
        e @ clog2_format::Error::Io { .. } => CliError::input(output)(e),
        e => CliError::input(input)(e),
    })?;
    out.flush().map_err(CliError::io(output))?;
    drop(out);
    commit(tmp, output)?;
    eprintln!("{}: {report}", input.display());
    eprintln!(
        "wrote {}: {} bytes, {} blocks of {} bytes{}",
        output.display(),
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
