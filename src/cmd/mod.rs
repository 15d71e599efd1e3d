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
/// The URL of a remote SLOG-2 file (`http://HOST:PORT/PATH`, as `mpelog
/// serve` and any static web server that answers Range requests give it), if
/// `path` is one.
pub fn url(path: &Path) -> Option<&str> {
    path.to_str().filter(|p| p.starts_with("http://"))
}

/// Opens the remote SLOG-2 file at `url`, read with HTTP Range requests
/// ([`mpelog::remote::HttpFile`]).
pub fn open_remote(url: &str) -> CliResult<slog2_format::Slog2Reader<mpelog::remote::HttpFile>> {
    let path = Path::new(url);
    let f = mpelog::remote::HttpFile::open(url).map_err(CliError::io(path))?;
    slog2_format::Slog2Reader::new(f).map_err(CliError::slog2(path))
}

pub fn open(path: &Path) -> CliResult<(File, u64)> {
    let f = File::open(path).map_err(CliError::io(path))?;
    let len = f.metadata().map_err(CliError::io(path))?.len();
    Ok((f, len))
}
