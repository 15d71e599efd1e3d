//! One module per subcommand.

pub mod alog;
pub mod annotate;
pub mod annotation;
pub mod check;
pub mod convert;
pub mod export;
pub mod filter;
pub mod info;
pub mod otf2;
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

/// The URL of a remote SLOG-2 file (`http://` or `https://`, as `mpelog
/// serve`, any static web server that answers Range requests and object
/// stores give it), if `path` is one.
pub fn url(path: &Path) -> Option<&str> {
    path.to_str().filter(|p| {
        let p = p.get(..8).unwrap_or(p).to_ascii_lowercase();
        p.starts_with("http://") || p.starts_with("https://")
    })
}

/// Opens the remote file at `url` ([`mpelog::remote::HttpFile`], with the
/// settings of the environment).
pub fn open_http(url: &str) -> CliResult<mpelog::remote::HttpFile> {
    Ok(mpelog::remote::HttpFile::open(url)?)
}

/// Opens the remote SLOG-2 file at `url`, read with HTTP Range requests
/// ([`mpelog::remote::HttpFile`]).
pub fn open_remote(url: &str) -> CliResult<slog2_format::Slog2Reader<mpelog::remote::HttpFile>> {
    let f = open_http(url)?;
    slog2_format::Slog2Reader::new(f).map_err(CliError::slog2(Path::new(url)))
}

/// Opens an input file for streaming (blocks are read whole, so no extra buffering).
pub fn open(path: &Path) -> CliResult<(File, u64)> {
    let f = File::open(path).map_err(CliError::io(path))?;
    let len = f.metadata().map_err(CliError::io(path))?.len();
    Ok((f, len))
}
