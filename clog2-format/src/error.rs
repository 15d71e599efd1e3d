//! Typed errors. Every error that comes from bad input names the byte offset in the
//! file where the problem was found.

mod problems;

pub(crate) use problems::bytes;
pub use problems::{Expected, NotInferable, PreambleProblem, ValueProblem};

/// A `Result` whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong while reading or writing CLOG2 and old-CLOG files.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The underlying reader or writer failed.
    #[error("byte {offset}: I/O error: {source}")]
    Io {
        /// Offset in the file where the operation started.
        offset: u64,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The input ends before a structure that must be there.
    #[error("byte {offset}: {}", self.detail())]
    Truncated {
        /// Offset at which the missing structure starts (or where the input ended).
        offset: u64,
        /// What was expected there.
        expected: Expected,
    },
    /// The first preamble token is not a CLOG2 version string.
    #[error("byte {offset}: {}", self.detail())]
    NotClog2 {
        /// Always 0.
        offset: u64,
        /// The text found (lossily decoded, at most 16 characters).
        found: String,
    },
    /// A CLOG2 version string this crate does not know.
    #[error("byte {offset}: {}", self.detail())]
    UnsupportedVersion {
        /// Always 0.
        offset: u64,
        /// The version string found.
        found: String,
    },
    /// A preamble token is missing, too long or not a valid value.
    #[error("byte {offset}: {}", self.detail())]
    BadPreamble {
        /// Offset of the offending token.
        offset: u64,
        /// The field's title as written by MPE (for example `block_size=`).
        field: &'static str,
        /// What is wrong: one row of spec/clog2.md §10 ("What a reader must
        /// reject"), see [`PreambleProblem::spec_row`] and [`Error::spec_row`].
        problem: PreambleProblem,
    },
    /// A record type that the format does not define. CLOG2 records carry no length,
    /// so nothing after it in the block can be read.
    #[error("byte {offset}: {}", self.detail())]
    UnknownRecordType {
        /// Offset of the record header.
        offset: u64,
        /// Block index (0-based).
        block: u64,
        /// The record type found.
        rectype: i32,
    },
    /// A record, or the search for a block terminator, runs past the end of its block.
    #[error("byte {offset}: {}", self.detail())]
    BlockOverrun {
        /// Offset of the record.
        offset: u64,
        /// Block index (0-based).
        block: u64,
        /// What was being read.
        what: &'static str,
        /// Its length in bytes.
        len: u64,
        /// Offset of the first byte after the block.
        block_end: u64,
    },
    /// The block stream ends without an ENDLOG record.
    #[error("byte {offset}: {}", self.detail())]
    MissingEndLog {
        /// Offset where the block stream ended.
        offset: u64,
    },
    /// Blocks follow the block that holds ENDLOG.
    #[error("byte {offset}: {}", self.detail())]
    DataAfterEndLog {
        /// Offset of the first unexpected block.
        offset: u64,
        /// Where the block stream should have ended.
        expected_end: u64,
    },
    /// A field's value is impossible or would need an unreasonable allocation.
    #[error("byte {offset}: {}", self.detail())]
    BadValue {
        /// Offset of the field.
        offset: u64,
        /// Field name.
        field: &'static str,
        /// The value found.
        value: i64,
        /// Why it is rejected.
        problem: ValueProblem,
    },
    /// Bytes follow the end of the file's last structure.
    #[error("byte {offset}: {}", self.detail())]
    TrailingBytes {
        /// Offset of the first extra byte.
        offset: u64,
        /// How many (at least) were found.
        count: u64,
        /// The structure they follow.
        after: &'static str,
    },
    /// A structure could not be written as asked (for example a record that does not
    /// fit in a block).
    #[error("{}", self.detail())]
    Write(WriteProblem),
    /// The preamble's block size is over the reader's limit
    /// ([`crate::ReadOptions::max_block_bytes`]): refused before allocating.
    #[error("byte {offset}: {}", self.detail())]
    LimitExceeded {
        /// Offset of the preamble's `block_size=` value.
        offset: u64,
        /// The block size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// Options that cannot be used (a caller's mistake, not bad input).
    #[error("{}", self.detail())]
    InvalidOptions(OptionsProblem),
}

/// Why a CLOG2 or old CLOG structure cannot be written as asked
/// ([`Error::Write`]), or a reader is used out of turn.
///
/// ```
/// use clog2_format::error::WriteProblem;
/// let p = WriteProblem::RecordTooLong { len: 300, block_size: 256 };
/// assert_eq!(p.to_string(), "a 300-byte record cannot fit in a 256-byte block");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WriteProblem {
    /// A record or structure could not be encoded (the encoder's words, after
    /// what was being encoded: `record encoding`, `preamble`, `comm table`).
    #[error("{what}: {message}")]
    Encode {
        /// What was being encoded.
        what: &'static str,
        /// The encoder's words.
        message: String,
    },
    /// `next_block` called in the middle of a block.
    #[error("next_block called in the middle of a block")]
    MidBlock,
    /// `finish` called twice.
    #[error("finish called twice")]
    FinishedTwice,
    /// An opaque record given one of the known record types.
    #[error("an opaque record cannot have the known record type {rectype} ({name})")]
    OpaqueKnownType {
        /// The record type.
        rectype: i32,
        /// Its name.
        name: &'static str,
    },
    /// An opaque record whose body is not whole 8-byte words.
    #[error("an opaque record's body must be a multiple of 8 bytes, not {0}")]
    OpaqueBodyLen(usize),
    /// An opaque record too long for its length field.
    #[error("an opaque record of {0} bytes is too long")]
    OpaqueTooLong(usize),
    /// An old-CLOG block that does not end with its only ENDBLOCK or ENDLOG.
    #[error("a block must end with its only ENDBLOCK or ENDLOG record")]
    ClogBlockEnd,
    /// A CLOG2 block that does not end with ENDBLOCK or ENDLOG.
    #[error("a block must end with an ENDBLOCK or ENDLOG record")]
    BlockEnd,
    /// A block's records and trailing bytes overflow the block.
    #[error(
        "the block's records and trailing bytes take {used} bytes; the block size is {block_size}"
    )]
    BlockOverflow {
        /// Bytes used.
        used: usize,
        /// The block size.
        block_size: usize,
    },
    /// An old-CLOG block size that is not a multiple of 8 of at least 24.
    #[error("an old-CLOG block size must be a multiple of 8 and at least 24, not {0}")]
    ClogBlockSize(usize),
    /// An old-CLOG record that cannot fit in a block with the terminator.
    #[error(
        "a {len}-byte record and its block's terminator cannot fit in a {block_size}-byte block"
    )]
    ClogRecordTooLong {
        /// The record's length.
        len: usize,
        /// The block size.
        block_size: usize,
    },
    /// ENDBLOCK and ENDLOG are the writer's own.
    #[error("ENDBLOCK and ENDLOG are written by the writer itself")]
    Terminator,
    /// A CLOG2 record that cannot fit in a block.
    #[error("a {len}-byte record cannot fit in a {block_size}-byte block")]
    RecordTooLong {
        /// The record's length.
        len: usize,
        /// The block size.
        block_size: usize,
    },
    /// A comm table for a version that has none.
    #[error("{0} files have no comm table")]
    NoCommTable(crate::Version),
    /// A comm table pointer for a version whose preamble has none.
    #[error("{0} has no comm table pointer")]
    NoCommTablePointer(crate::Version),
    /// A preamble without `commtable_fptr` values.
    #[error("the preamble lacks commtable_fptr values")]
    NoCommTableValues,
    /// Preamble tokens that do not fit in 1023 bytes.
    #[error("the preamble tokens take {0} bytes; at most 1023 fit")]
    PreambleTooLong(usize),
    /// Preamble tokens and padding that are not 1024 bytes.
    #[error("the preamble tokens and padding take {0} bytes, not 1024")]
    PreambleLength(usize),
    /// A record whose layout (02.10 or 02.30+) is not the file's.
    #[error("a {name} record with the {layout} layout cannot go into a {version} file")]
    WrongLayout {
        /// The record type's name.
        name: &'static str,
        /// Its layout, `02.10` or `02.30+`.
        layout: &'static str,
        /// The file's version.
        version: crate::Version,
    },
}

/// Why generator options are refused ([`Error::InvalidOptions`]).
///
/// ```
/// use clog2_format::error::OptionsProblem;
/// assert_eq!(
///     OptionsProblem::Ranks { ranks: 0, max: 65536 }.to_string(),
///     "synth ranks = 0 (must be between 1 and 65536)"
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OptionsProblem {
    /// A number of ranks outside 1..=`max` ([`MAX_RANKS`](crate::synth::MAX_RANKS)).
    #[error("synth ranks = {ranks} (must be between 1 and {max})")]
    Ranks {
        /// The number asked for.
        ranks: u32,
        /// The most the generator makes.
        max: u32,
    },
    /// A block size that is not a multiple of 8 between `min` and `max`.
    #[error("synth block_size = {block_size} (must be a multiple of 8 between {min} and {max})")]
    BlockSize {
        /// The size asked for.
        block_size: u32,
        /// The least the generator takes ([`MIN_BLOCK_SIZE`](crate::synth::MIN_BLOCK_SIZE)).
        min: u32,
        /// The most the format allows ([`MAX_BLOCK_SIZE`](crate::preamble::MAX_BLOCK_SIZE)).
        max: u32,
    },
}

impl Error {
    /// The byte offset in the input where the problem was found, if the error concerns
    /// input bytes.
    ///
    /// ```
    /// use clog2_format::{Error, Preamble, RawPreamble};
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// assert_eq!(RawPreamble::parse(&bytes[..100]).unwrap_err().offset(), Some(100));
    /// assert_eq!(Preamble::parse(b"SLOG 2.0.6 and more").unwrap_err().offset(), Some(0));
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Io { offset, .. }
            | Error::Truncated { offset, .. }
            | Error::NotClog2 { offset, .. }
            | Error::UnsupportedVersion { offset, .. }
            | Error::BadPreamble { offset, .. }
            | Error::UnknownRecordType { offset, .. }
            | Error::BlockOverrun { offset, .. }
            | Error::MissingEndLog { offset }
            | Error::DataAfterEndLog { offset, .. }
            | Error::BadValue { offset, .. }
            | Error::TrailingBytes { offset, .. }
            | Error::LimitExceeded { offset, .. } => Some(*offset),
            Error::Write(_) | Error::InvalidOptions(_) => None,
        }
    }

    /// The message without its position (the byte offset, [`Self::offset`]):
    /// what a report that shows the offset beside it prints.
    ///
    /// ```
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let e = clog2_format::RawPreamble::parse(&bytes[..100]).unwrap_err();
    /// assert_eq!(e.to_string(), format!("byte 100: {}", e.detail())); // the offset, then the detail
    /// assert!(!e.detail().starts_with("byte"));
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn detail(&self) -> String {
        match self {
            Error::Io { source, .. } => format!("I/O error: {source}"),
            Error::Truncated { expected, .. } => format!("the file ends early: expected {expected}"),
            Error::NotClog2 { found, .. } => format!("not a CLOG2 file: the preamble starts with {found:?}, expected a version such as \"CLOG-02.44\""),
            Error::UnsupportedVersion { found, .. } => format!("unsupported CLOG2 version {found:?} (supported: CLOG-02.10, .20, .30, .40, .41, .43, .44)"),
            Error::BadPreamble { field, problem, .. } => format!("preamble field {field}: {problem}"),
            Error::UnknownRecordType { block, rectype, .. } => format!("unknown record type {rectype} in block {block}; its size is unknown, so the rest of the block cannot be read"),
            Error::BlockOverrun { block, what, len, block_end, .. } => format!("{what} of {len} bytes runs past the end of block {block} (the block ends at byte {block_end})"),
            Error::MissingEndLog { .. } => "the block stream ends without an ENDLOG record (the file was cut or never finished)".to_string(),
            Error::DataAfterEndLog { expected_end, .. } => format!("data blocks follow the block that holds ENDLOG (the block stream should end at byte {expected_end})"),
            Error::BadValue { field, value, problem, .. } => format!("{field} = {value}: {problem}"),
            Error::TrailingBytes { count, after, .. } => format!("{count} unexpected bytes after the end of the {after}"),
            Error::LimitExceeded { size, limit, .. } => format!(
                "the block size {size} is over the reader's limit of {limit} bytes"
            ),
            Error::Write(v) => format!("cannot write: {v}"),
            Error::InvalidOptions(v) => format!("invalid options: {v}"),
        }
    }

    /// The row of spec/clog2.md §10 ("What a reader must reject") that a preamble
    /// error breaks, when the error alone says it: [`Error::NotClog2`] and
    /// [`Error::UnsupportedVersion`] are row 2, [`Error::BadPreamble`] gives its
    /// problem's row (3–8). Other errors depend on where the reader was (a truncation is
    /// row 1 in the preamble, 9 in a block, 15 in the comm table), so `None`.
    ///
    /// ```
    /// let e = clog2_format::Preamble::parse(b"SLOG 2.0.6 and more").unwrap_err();
    /// assert_eq!(e.spec_row(), Some(2)); // not a CLOG2 version token
    /// ```
    pub fn spec_row(&self) -> Option<u8> {
        match self {
            Error::NotClog2 { .. } | Error::UnsupportedVersion { .. } => Some(2),
            Error::BadPreamble { problem, .. } => Some(problem.spec_row()),
            _ => None,
        }
    }

    /// Turns a binrw error raised while parsing a structure that starts at `offset`
    /// (and whose input slice was long enough) into a typed error.
    pub(crate) fn from_binrw(err: binrw::Error, offset: u64, what: &'static str) -> Error {
        match err {
            binrw::Error::Io(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                Error::Truncated {
                    offset,
                    expected: Expected::Structure(what),
                }
            }
            binrw::Error::Io(source) => Error::Io { offset, source },
            other => Error::Truncated {
                offset,
                expected: Expected::Layout {
                    what,
                    message: other.to_string(),
                },
            },
        }
    }
}
