//! Detecting a trace's format from its first bytes: the one format enum and
//! detection of the workspace ([`mpelog_conformance::Format`],
//! [`mpelog_conformance::detect`]), with the CLI's names and messages.

use crate::error::{CliError, CliResult};
use std::io::Read;
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

/// Reads the start of `path` and names its format. A directory is an OTF2
/// archive's when it holds an anchor file
/// ([`otf2_format::archive::find_anchor`]), whose start is read instead.
pub fn detect(path: &Path) -> CliResult<Format> {
    let mut head = Vec::with_capacity(1024);
    let file = match path.is_dir() {
        true => otf2_format::archive::find_anchor(path).ok_or_else(|| CliError::Unrecognized {
            path: path.to_path_buf(),
            message: "a directory that holds no OTF2 anchor file (`traces.otf2`, or one `*.otf2` file); give a trace file or an OTF2 archive".into(),
        })?,
        false => path.to_path_buf(),
    };
    std::fs::File::open(&file)
        .and_then(|f| f.take(1024).read_to_end(&mut head))
        .map_err(CliError::io(path))?;
    // The library's detection, which the checker uses too.
    if let Some(format) = mpelog_conformance::detect(&head) {
        return Ok(format);
    }
    let shown: String = String::from_utf8_lossy(&head[..head.len().min(16)])
        .chars()
        .map(|c| if c.is_control() { '.' } else { c })
        .collect();
    Err(CliError::Unrecognized {
        path: path.to_path_buf(),
        message: format!(
            "not a trace format mpelog knows (it starts with {shown:?}; expected a CLOG2 preamble \"CLOG-02.xx\", a SLOG-2 header \"SLOG 2.0.x\", an old CLOG record header, ALOG text, a SLOG-1 header or an OTF2 anchor file)"
        ),
    })
}
