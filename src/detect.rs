//! Detecting a trace's format from its first bytes, by the library's detection
//! ([`mpelog_conformance::detect`]), with the CLI's names and messages.

use crate::error::{CliError, CliResult};
use std::io::Read;
use std::path::Path;

/// The trace formats the tool knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// CLOG2 (`CLOG-02.xx` preamble).
    Clog2,
    /// Old MPE1 CLOG (no preamble, big-endian 24-byte headers with a length field).
    Clog,
    /// SLOG-2 (`SLOG 2.0.x` header).
    Slog2,
    /// An mpelog annotation file (`MPELOGIX` magic, spec/annotation.md).
    Annotation,
    /// ALOG text (upshot's format), possibly Unix-`compress`ed (`.Z`).
    Alog,
    /// SLOG-1 (Jumpshot-3's format).
    Slog1,
}

impl Format {
    /// The name used by `--to` and in `info`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Clog2 => "CLOG2",
            Format::Clog => "CLOG",
            Format::Slog2 => "SLOG-2",
            Format::Annotation => "annotation",
            Format::Alog => "ALOG",
            Format::Slog1 => "SLOG-1",
        }
    }

    /// Parses a `--to` value or a file extension.
    pub fn from_name(s: &str) -> Option<Format> {
        match s.to_ascii_lowercase().as_str() {
            "clog2" => Some(Format::Clog2),
            "clog" => Some(Format::Clog),
            "slog2" => Some(Format::Slog2),
            "alog" | "log" => Some(Format::Alog),
            "slog" | "slog1" => Some(Format::Slog1),
            _ => None,
        }
    }
}

/// Reads the start of `path` and names its format.
pub fn detect(path: &Path) -> CliResult<Format> {
    let mut head = Vec::with_capacity(1024);
    std::fs::File::open(path)
        .and_then(|f| f.take(1024).read_to_end(&mut head))
        .map_err(CliError::io(path))?;
    // The library's detection (the checker uses the same); the CLI reads plain
    // and compressed SLOG-2 through one reader, so both are `Slog2` here.
    use mpelog_conformance::Format as Lib;
    match mpelog_conformance::detect(&head) {
        Some(Lib::Clog2) => return Ok(Format::Clog2),
        Some(Lib::Clog) => return Ok(Format::Clog),
        Some(Lib::Slog2 | Lib::Slog2Compressed) => return Ok(Format::Slog2),
        Some(Lib::Annotation) => return Ok(Format::Annotation),
        Some(Lib::Alog) => return Ok(Format::Alog),
        Some(Lib::Slog1) => return Ok(Format::Slog1),
        None => {}
    }
    let shown: String = String::from_utf8_lossy(&head[..head.len().min(16)])
        .chars()
        .map(|c| if c.is_control() { '.' } else { c })
        .collect();
    Err(CliError::Unrecognized {
        path: path.to_path_buf(),
        message: format!(
            "not a trace format mpelog knows (it starts with {shown:?}; expected a CLOG2 preamble \"CLOG-02.xx\", a SLOG-2 header \"SLOG 2.0.x\", an old CLOG record header, ALOG text or a SLOG-1 header)"
        ),
    })
}
