//! SLOG-1's own errors; every error about input bytes names the byte offset.

mod write_problem;

pub use write_problem::{RecordProblem, WriteProblem};

/// A `Result` whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What can go wrong reading or writing SLOG-1. The row of spec/slog1.md §13
/// that a rejected file breaks comes with
/// [`Slog1File::parse_or_reject`](super::Slog1File::parse_or_reject)
/// ([`Rejection`](super::Rejection)).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The underlying reader or writer failed.
    #[error("byte {offset}: I/O error: {source}")]
    Io {
        /// Offset of the operation.
        offset: u64,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A structure ends before its fields do.
    #[error("byte {offset}: {}", self.detail())]
    Truncated {
        /// Offset where the structure starts.
        offset: u64,
        /// What was being read.
        what: String,
        /// The file or the part it lies in.
        within: String,
    },
    /// A value the format forbids (a bad version, count, pointer, record, ...).
    #[error("byte {offset}: {}", self.detail())]
    BadValue {
        /// Offset of the value.
        offset: u64,
        /// What is wrong.
        what: String,
    },
    /// The file cannot be written as asked (frames and directory entries that do
    /// not pair up, overlapping sections, a result that would not read back, ...).
    #[error("{}", self.detail())]
    Write(WriteProblem),
}

impl Error {
    /// The message without its position (the byte offset, [`Self::offset`]):
    /// what a report that shows the offset beside it prints.
    pub fn detail(&self) -> String {
        match self {
            Error::Io { source, .. } => format!("I/O error: {source}"),
            Error::Truncated { what, within, .. } => {
                format!("{what} runs past the end of {within}")
            }
            Error::BadValue { what, .. } => what.clone(),
            Error::Write(v) => format!("cannot write: {v}"),
        }
    }

    /// The byte offset the error concerns, if it concerns input bytes.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Io { offset, .. }
            | Error::Truncated { offset, .. }
            | Error::BadValue { offset, .. } => Some(*offset),
            Error::Write(_) => None,
        }
    }
}
