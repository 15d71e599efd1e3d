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
        problem: Problem,
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
        what: Feature,
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

/// What is wrong with the bytes of an [`Error::Invalid`]; each displays as the
/// words of the error.
///
/// ```
/// use otf2_format::error::Problem;
/// assert_eq!(Problem::Endianness(7).to_string(), "endianness byte 0x07");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Problem {
    /// An anchor file that does not start with a chunk header byte (3).
    #[error("not an OTF2 anchor file (no chunk header)")]
    NotAnchor,
    /// A chunk that does not start with the chunk header byte (3).
    #[error("chunk header byte is {0:#04x}, not 0x03")]
    ChunkHeader(u8),
    /// A chunk header byte inside a chunk's records.
    #[error("chunk header inside a chunk")]
    ChunkInsideChunk,
    /// An endianness byte other than 0x42 (little-endian) or 0x23 (big-endian).
    #[error("endianness byte {0:#04x}")]
    Endianness(u8),
    /// An anchor file whose magic string is not `OTF2`.
    #[error("magic is not OTF2")]
    Magic,
    /// An anchor format of 0.
    #[error("anchor format 0")]
    AnchorFormat,
    /// A file substrate other than POSIX (1), SIONlib (2) or none (3).
    #[error("file substrate {0}")]
    Substrate(u8),
    /// A compression other than none (1) or zlib (2).
    #[error("compression {0}")]
    Compression(u8),
    /// An ID map mode other than dense (0) or sparse (1).
    #[error("id map mode {0}")]
    IdMapMode(u8),
    /// Clock offsets of a location not in increasing time.
    #[error("clock offsets not in increasing time")]
    ClockOffsets,
    /// A compressed integer whose length byte is above its type's size.
    #[error("compressed {what}: length byte {byte} above {max}")]
    CompressedLength {
        /// The field.
        what: &'static str,
        /// The length byte.
        byte: u8,
        /// The type's size in bytes (4 or 8).
        max: u8,
    },
}

/// What an [`Error::Unsupported`] archive uses that this crate does not read.
///
/// ```
/// use otf2_format::error::Feature;
/// assert_eq!(Feature::Zlib.to_string(), "zlib compression");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Feature {
    /// The SIONlib file substrate (substrate 2).
    #[error("the SION file substrate")]
    Sion,
    /// zlib compression (compression 2).
    #[error("zlib compression")]
    Zlib,
}

impl Error {
    /// The message without its file and offset ([`Self::file`],
    /// [`Self::offset`]): what a report that shows them beside it prints.
    ///
    /// ```
    /// use otf2_format::Anchor;
    /// use std::path::Path;
    /// let e = Anchor::parse(&[3, 7], Path::new("traces.otf2")).unwrap_err();
    /// assert_eq!(e.to_string(), "traces.otf2: byte 1: endianness byte 0x07");
    /// assert_eq!(e.detail(), "endianness byte 0x07");
    /// ```
    pub fn detail(&self) -> String {
        match self {
            Error::Io { source, .. } => source.to_string(),
            Error::Truncated { expected, .. } => format!("input ends inside {expected}"),
            Error::Invalid { problem, .. } => problem.to_string(),
            Error::Unsupported { what, .. } => format!("unsupported: {what}"),
            Error::Limit {
                what, value, limit, ..
            } => format!("{what} is {value}, above the limit {limit}"),
        }
    }

    /// The byte offset in [`Error::file`] where the problem was found.
    ///
    /// ```
    /// use otf2_format::{Definitions, Limits, MemSource};
    /// let junk = MemSource(std::sync::Arc::from(&[0xffu8; 40][..]));
    /// let e = Definitions::read(junk, "junk.def".into(), 40, &Limits::default()).unwrap_err();
    /// assert!(e.offset() < 40);
    /// ```
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
    ///
    /// ```
    /// use otf2_format::{Definitions, Limits, MemSource};
    /// let junk = MemSource(std::sync::Arc::from(&[0xffu8; 40][..]));
    /// let e = Definitions::read(junk, "junk.def".into(), 40, &Limits::default()).unwrap_err();
    /// assert_eq!(e.file(), std::path::Path::new("junk.def"));
    /// ```
    pub fn file(&self) -> &Path {
        match self {
            Error::Io { file, .. }
            | Error::Truncated { file, .. }
            | Error::Invalid { file, .. }
            | Error::Unsupported { file, .. }
            | Error::Limit { file, .. } => file,
        }
    }

    pub(crate) fn invalid(file: &Path, offset: u64, problem: Problem) -> Error {
        Error::Invalid {
            file: file.to_path_buf(),
            offset,
            problem,
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
