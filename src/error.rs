//! The command-line tool's errors and their exit codes.

use std::path::{Path, PathBuf};

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The input is not a valid trace (exit 1).
    #[error("{path}: {source}")]
    BadInput {
        /// The input file.
        path: PathBuf,
        /// What is wrong, with the byte offset.
        #[source]
        source: clog2_format::Error,
    },
    /// The input is not a valid SLOG-2 file (exit 1).
    #[error("{path}: {source}")]
    BadSlog2 {
        /// The input file.
        path: PathBuf,
        /// What is wrong, with the byte offset.
        #[source]
        source: slog2_format::Error,
    },
    /// The input's format could not be recognized (exit 1).
    #[error("{path}: {message}")]
    Unrecognized {
        /// The input file.
        path: PathBuf,
        /// Explanation.
        message: String,
    },
    /// A file could not be opened, read or written (exit 1).
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The input is not a valid ALOG file (exit 1).
    #[error("{path}: {source}")]
    BadAlog {
        /// The input file.
        path: PathBuf,
        /// What is wrong, with the line number.
        #[source]
        source: alog_format::Error,
    },
    /// An annotation or the trace it annotates is bad or stale (exit 1).
    #[error("{path}: {source}")]
    BadAnnotation {
        /// The annotation file (or the trace, for trace errors).
        path: PathBuf,
        /// What is wrong.
        #[source]
        source: mpelog_annotate::Error,
    },
    /// `check` found errors in this many files (exit 1).
    #[error("{0} file(s) failed the check")]
    CheckFailed(usize),
    /// The command line asks for something impossible (exit 2).
    #[error("{0}")]
    Usage(String),
}

impl CliError {
    /// The process exit status for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_) => 2,
            _ => 1,
        }
    }

    /// Wraps an I/O error on `path`.
    pub fn io(path: &Path) -> impl FnOnce(std::io::Error) -> CliError + '_ {
        move |source| CliError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// Wraps a codec error on `path`.
    pub fn input(path: &Path) -> impl FnOnce(clog2_format::Error) -> CliError + '_ {
        move |source| match source {
            clog2_format::Error::Io { source, .. } => CliError::Io {
                path: path.to_path_buf(),
                source,
            },
            source => CliError::BadInput {
                path: path.to_path_buf(),
                source,
            },
        }
    }
}

impl CliError {
    /// Wraps a SLOG-2 codec error on `path`.
    pub fn slog2(path: &Path) -> impl FnOnce(slog2_format::Error) -> CliError + '_ {
        move |source| match source {
            slog2_format::Error::Io { source, .. } => CliError::Io {
                path: path.to_path_buf(),
                source,
            },
            source => CliError::BadSlog2 {
                path: path.to_path_buf(),
                source,
            },
        }
    }
}

/// Result of a command.
pub type CliResult<T = ()> = Result<T, CliError>;
