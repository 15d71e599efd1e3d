//! `mpelog window`: the drawables of a SLOG-2 file in a time window.

use crate::error::{CliError, CliResult};
use std::path::Path;

/// Runs `mpelog window`.
pub fn run(file: &Path, from: f64, to: f64, pixels: Option<u32>, json: bool) -> CliResult {
    let _ = (file, from, to, pixels, json);
    Err(CliError::Usage("window: not implemented yet".into()))
}
