//! Reading ALOG inputs (text, or Unix-`compress`ed `.Z` as MPICH-1 shipped some).

use crate::error::{CliError, CliResult};
use alog_format::AlogFile;
use std::path::Path;

/// Largest unpacked `.Z` input accepted.
const MAX_UNPACKED: usize = 1 << 30;

/// Reads and parses an ALOG file, unpacking `.Z` first.
pub fn read(path: &Path) -> CliResult<AlogFile> {
    let data = std::fs::read(path).map_err(CliError::io(path))?;
    let text = if alog_format::z::is_compress(&data) {
        alog_format::z::decompress(&data, MAX_UNPACKED).map_err(|e| CliError::Unrecognized {
            path: path.to_path_buf(),
            message: format!("cannot unpack this compress (.Z) file: {e}"),
        })?
    } else {
        data
    };
    AlogFile::parse(&text).map_err(|source| CliError::BadAlog {
        path: path.to_path_buf(),
        source,
    })
}
