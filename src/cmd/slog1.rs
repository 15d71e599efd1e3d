//! Reading SLOG-1 inputs (whole file in memory: SLOG-1 files are small).

use crate::error::{CliError, CliResult};
use slog2_format::slog1::Slog1File;
use std::path::Path;

/// Reads and parses a SLOG-1 file; returns it and its size.
pub fn read(path: &Path) -> CliResult<(Slog1File, u64)> {
    let data = std::fs::read(path).map_err(CliError::io(path))?;
    let f = Slog1File::parse(&data).map_err(CliError::slog1(path))?;
    Ok((f, data.len() as u64))
}
