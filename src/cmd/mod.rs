//! One module per subcommand.

pub mod alog;
pub mod annotate;
pub mod annotation;
pub mod check;
pub mod convert;
pub mod export;
pub mod filter;
pub mod info;
pub mod print;
pub mod raster;
pub mod render;
pub mod repair;
pub mod serve;
pub mod slog1;
pub mod stats;
pub mod synth;
pub mod window;

use crate::error::{CliError, CliResult};
use std::fs::File;
use std::path::Path;

/// Opens an input file for streaming (blocks are read whole, so no extra buffering).
pub fn open(path: &Path) -> CliResult<(File, u64)> {
    let f = File::open(path).map_err(CliError::io(path))?;
    let len = f.metadata().map_err(CliError::io(path))?.len();
    Ok((f, len))
}
