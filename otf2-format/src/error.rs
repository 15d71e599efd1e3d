//! Typed errors. Every error that comes from bad input names the file and the
//! byte offset in it where the problem was found.

use std::path::{Path, PathBuf};

/// A `Result` whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong while reading an OTF2 archive.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Opening or reading a file failed.
    #[error("{}: byte {offset}: {source}", file.display())]
    Io {
        /// The file.
        file: PathBuf,
        /// Where the read started.
        offset: u64,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The input ends (or a chunk ends) before a structure that must be there.
    #[error("{}: byte {offset}: input ends inside {expected}", file.display())]
    Truncated {
        /// The file.
        file: PathBuf,
        /// Where the missing structure starts.
        offset: u64,
        /// What was expected there.
        expected: &'static str,
    },
    /// Bytes that the format does not allow.
    #[error("{}: byte {offset}: {problem}", file.display())]
    Invalid {
        /// The file.
        file: PathBuf,
        /// Where the offending bytes start.
        offset: u64,
        /// What is wrong.
        problem: String,
    },
    /// A well-formed archive this crate does not read (zlib compression, the
    /// SIONlib substrate).
    #[error("{}: byte {offset}: unsupported: {what}", file.display())]
    Unsupported {
        /// The file.
        file: PathBuf,
        /// Where the field that says so is.
        offset: u64,
        /// What is not supported.
        what: String,
    },
    /// A field asks for more than the [`Limits`](crate::Limits) allow.
    #[error("{}: byte {offset}: {what} is {value}, above the limit {limit}", file.display())]
    Limit {
        /// The file.
        file: PathBuf,
        /// Where the field is.
        offset: u64,
        /// What was counted.
        what: &'static str,
        /// The value found.
        value: u64,
        /// The limit.
        limit: u64,
    },
}

impl Error {
    /// The byte offset in [`Error::file`] where the problem was found.
    pub fn offset(&self) -> u64 {
        match self {
            Error::Io { offset, .. }
            | Error::Truncated { offset, .. }
            | Error::Invalid { offset, .. }
            | Error::Unsupported { offset, .. }
            | Error::Limit { offset, .. } => *offset,
        }
    }

    /// The file the error is about.
    pub fn file(&self) -> &Path {
        match self {
            Error::Io { file, .. }
            | Error::Truncated { file, .. }
            | Error::Invalid { file, .. }
            | Error::Unsupported { file, .. }
            | Error::Limit { file, .. } => file,
        }
    }

    pub(crate) fn invalid(file: &Path, offset: u64, problem: impl Into<String>) -> Error {
        Error::Invalid {
            file: file.to_path_buf(),
            offset,
            problem: problem.into(),
        }
    }

    pub(crate) fn truncated(file: &Path, offset: u64, expected: &'static str) -> Error {
        Error::Truncated {
            file: file.to_path_buf(),
            offset,
            expected,
        }
    }

    pub(crate) fn io(file: &Path, offset: u64, source: std::io::Error) -> Error {
        Error::Io {
            file: file.to_path_buf(),
            offset,
            source,
        }
    }
}
