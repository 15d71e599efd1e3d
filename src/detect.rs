//! The formats' names on the command line: the one format enum of the
//! workspace ([`mpelog_conformance::Format`]; detection is
//! [`mpelog::trace::detect`]) and the names `--format` and extensions give it.

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
