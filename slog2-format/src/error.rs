//! Typed errors; every error about input bytes names the byte offset.

/// A `Result` whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What can go wrong reading or writing SLOG-2.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The underlying reader or writer failed.
    #[error("byte {offset}: I/O error: {source}")]
    Io {
        /// Offset of the operation.
        offset: u64,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not SLOG-2.
    #[error("byte 0: not a SLOG-2 file: the header starts with {found:?}")]
    NotSlog2 {
        /// What was found (lossy text, at most 16 characters).
        found: String,
    },
    /// A SLOG-2 version this crate does not read.
    #[error(
        "byte 2: unsupported SLOG-2 version {found:?} (supported: \"SLOG 2.0.5\", \"SLOG 2.0.6\", \"SLOG 2.0.6Z\")"
    )]
    UnsupportedVersion {
        /// The version string found.
        found: String,
    },
    /// A structure ends before its fields do (truncated file or block).
    #[error("byte {offset}: {what} runs past the end of {within}")]
    Truncated {
        /// Offset where the structure (or the missing bytes) starts.
        offset: u64,
        /// What was being read.
        what: String,
        /// The file or the block it lies in.
        within: String,
    },
    /// A file block pointer that cannot be followed.
    #[error("byte {offset}: {what} points at {size} bytes at byte {target}: {problem}")]
    BadPointer {
        /// Offset of the pointer itself.
        offset: u64,
        /// Which pointer.
        what: String,
        /// Target offset.
        target: i64,
        /// Target size.
        size: i32,
        /// Why it cannot be followed.
        problem: String,
    },
    /// A value that the format forbids (bad tag byte, negative count, ...).
    #[error("byte {offset}: {what}")]
    BadValue {
        /// Offset of the value.
        offset: u64,
        /// What is wrong.
        what: String,
    },
    /// A compressed tree-node frame (SLOG 2.0.6Z) fails one of the checks of
    /// spec/slog2-compressed.md §5; `step` is the number of that check (1–6), which
    /// `check` reports as rule `S2Z-FRM-00<step>`.
    #[error("byte {offset}: {what}")]
    BadFrame {
        /// Offset of the offending frame field (or of the frame).
        offset: u64,
        /// The check of spec/slog2-compressed.md §5 that fails (1–6).
        step: u8,
        /// What is wrong.
        what: String,
    },
    /// The CLOG2 input of a conversion is bad.
    #[error("CLOG2 input: {0}")]
    Clog2(Box<clog2_format::Error>),
    /// The structure cannot be written as asked.
    #[error("cannot write: {0}")]
    Write(String),
}

impl Error {
    /// The byte offset the error refers to, if it concerns input bytes.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Io { offset, .. }
            | Error::Truncated { offset, .. }
            | Error::BadPointer { offset, .. }
            | Error::BadValue { offset, .. }
            | Error::BadFrame { offset, .. } => Some(*offset),
            Error::NotSlog2 { .. } => Some(0),
            Error::UnsupportedVersion { .. } => Some(2),
            Error::Clog2(e) => e.offset(),
            Error::Write(_) => None,
        }
    }

    /// Converts a binrw error raised while parsing a block that starts at `base`.
    pub(crate) fn from_binrw(e: binrw::Error, base: u64, what: &str, within: &str) -> Error {
        match e {
            binrw::Error::Io(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
                Error::Truncated {
                    offset: base,
                    what: what.to_string(),
                    within: within.to_string(),
                }
            }
            binrw::Error::Io(source) => Error::Io {
                offset: base,
                source,
            },
            binrw::Error::BadMagic { pos, found } => Error::BadValue {
                offset: base + pos,
                what: format!(
                    "drawable tag {found:?} in {what} is neither 0 (primitive) nor 1 (composite)"
                ),
            },
            binrw::Error::NoVariantMatch { pos } => Error::BadValue {
                offset: base + pos,
                what: format!("drawable tag in {what} is neither 0 (primitive) nor 1 (composite)"),
            },
            binrw::Error::EnumErrors { pos, .. } => Error::BadValue {
                offset: base + pos,
                what: format!("drawable tag in {what} is neither 0 (primitive) nor 1 (composite)"),
            },
            binrw::Error::AssertFail { pos, message } => Error::BadValue {
                offset: base + pos,
                what: format!("{what}: {message}"),
            },
            binrw::Error::Backtrace(bt) => Error::from_binrw(*bt.error, base, what, within),
            other => Error::BadValue {
                offset: base,
                what: format!("{what}: {other}"),
            },
        }
    }
}
