//! Reading ALOG inputs (text, or Unix-`compress`ed `.Z` as MPICH-1 shipped some).

use crate::error::{CliError, CliResult};
use alog_format::AlogFile;
use std::path::Path;

/// Largest unpacked `.Z` input accepted.
const MAX_UNPACKED: usize = 1 << 30;

/// Reads and parses an ALOG file, unpacking `.Z` first; returns it and the
/// file's size.
pub fn read(path: &Path) -> CliResult<(AlogFile, u64)> {
    let data = std::fs::read(path).map_err(CliError::io(path))?;
    let len = data.len() as u64;
    let text = alog_format::z::unpack(&data, MAX_UNPACKED).map_err(|e| CliError::Unrecognized {
        path: path.to_path_buf(),
        message: format!("cannot unpack this compress (.Z) file: {e}"),
    })?;
    let f = AlogFile::parse(&text).map_err(|source| CliError::BadAlog {
        path: path.to_path_buf(),
        source,
    })?;
    Ok((f, len))
}
