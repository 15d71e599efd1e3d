//! Detecting a trace's format from its first bytes: the one format enum and
//! detection of the workspace ([`mpelog_conformance::Format`],
//! [`mpelog_conformance::detect`]), with the CLI's names and messages.

use crate::error::{CliError, CliResult};
use std::path::Path;

pub use mpelog_conformance::Format;

/// The format a `--format` value or a file extension names (`clog2`, `clog`,
/// `slog2`, `alog` or `log`, `slog` or `slog1`).
pub fn named(s: &str) -> Option<Format> {
    match s.to_ascii_lowercase().as_str() {
        "clog2" => Some(Format::Clog2),
        "clog" => Some(Format::Clog),
        "slog2" => Some(Format::Slog2),
        "alog" | "log" => Some(Format::Alog),
        "slog" | "slog1" => Some(Format::Slog1),
        _ => None,
    }
}

/// Reads the start of `path` and names its format: the library's
/// [`mpelog::trace::detect`] (a directory is an OTF2 archive's when it holds an
/// anchor file), its errors as the CLI's.
pub fn detect(path: &Path) -> CliResult<Format> {
    mpelog::trace::detect(path).map_err(|e| match e {
        mpelog::trace::Error::Io { source, .. } => CliError::io(path)(source),
        mpelog::trace::Error::Unrecognized { path, message } => {
            CliError::Unrecognized { path, message }
        }
        other => CliError::Usage(other.to_string()),
    })
}
