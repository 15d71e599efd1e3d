//! What an [`Error`](super::Error) found wrong, typed: what the input ended
//! before ([`Expected`]), why a field's value is refused ([`ValueProblem`]), why
//! a preamble token is ([`PreambleProblem`]). Each displays as the words the
//! error prints.

use crate::version::Version;

/// What the input ends before ([`Error::Truncated`](super::Error::Truncated)).
///
/// ```
/// use clog2_format::error::Expected;
/// assert_eq!(
///     Expected::Block { index: 2, size: 1024, have: 100 }.to_string(),
///     "block 2 to have 1024 bytes (it has 100)"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Expected {
    /// The 1024-byte CLOG2 preamble; the input has `have` bytes.
    Preamble {
        /// Bytes the input has.
        have: u64,
    },
    /// A whole block: block `index` has only `have` of its `size` bytes.
    Block {
        /// The block's index (0-based).
        index: u64,
        /// The block size.
        size: u64,
        /// Bytes there are.
        have: u64,
    },
    /// The comm table the preamble says starts at byte `at`.
    CommTable {
        /// Where the table starts.
        at: u64,
    },
    /// The comm table's 4-byte count.
    CommTableCount {
        /// Where the table starts and how many bytes remain there, when the
        /// message names them.
        at: Option<(u64, u64)>,
    },
    /// An old-CLOG record header of 24 bytes; the file has `have` bytes.
    ClogHeader {
        /// Bytes the file has.
        have: u64,
    },
    /// Whole old-CLOG blocks: the file length is not a multiple of the block size.
    WholeBlocks {
        /// The block size.
        block_size: u64,
        /// The file length.
        len: u64,
    },
    /// A structure the parser names (`a record header`, `the comm table`, ...).
    Structure(&'static str),
    /// A structure the parser could not read, with the parser's words.
    Layout {
        /// The structure.
        what: &'static str,
        /// The parser's words.
        message: String,
    },
}

impl std::fmt::Display for Expected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Expected::Preamble { have } => {
                write!(f, "a 1024-byte CLOG2 preamble (the input has {have} bytes)")
            }
            Expected::Block { index, size, have } => {
                write!(f, "block {index} to have {size} bytes (it has {have})")
            }
            Expected::CommTable { at } => write!(f, "the comm table at byte {at}"),
            Expected::CommTableCount { at: None } => f.write_str("the comm table's 4-byte count"),
            Expected::CommTableCount {
                at: Some((at, remain)),
            } => write!(
                f,
                "the comm table's 4-byte count at byte {at} (only {} remain)",
                bytes(*remain)
            ),
            Expected::ClogHeader { have } => write!(
                f,
                "an old-CLOG record header of 24 bytes (the file has {have} bytes)"
            ),
            Expected::WholeBlocks { block_size, len } => write!(
                f,
                "whole blocks of {block_size} bytes (the file length {len} is not a multiple of the block size)"
            ),
            Expected::Structure(what) => f.write_str(what),
            Expected::Layout { what, message } => write!(f, "{what} ({message})"),
        }
    }
}

/// `1 byte`, `n bytes`.
pub(crate) fn bytes(n: u64) -> String {
    if n == 1 {
        "1 byte".to_string()
    } else {
        format!("{n} bytes")
    }
}

/// Why a field's value is refused ([`Error::BadValue`](super::Error::BadValue)).
///
/// ```
/// use clog2_format::error::ValueProblem;
/// assert_eq!(ValueProblem::Negative.to_string(), "negative");
/// assert_eq!(
///     ValueProblem::CommTableCut { need: 36, have: 20 }.to_string(),
///     "the table needs 36 bytes but only 20 follow"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ValueProblem {
    /// A count below zero.
    Negative,
    /// The comm table needs more bytes than follow its start.
    CommTableCut {
        /// Bytes the table needs (its count and entries).
        need: u64,
        /// Bytes there are.
        have: u64,
    },
    /// The comm table does not start after whole blocks following the preamble.
    CommTableNotAfterBlocks {
        /// The block size.
        block_size: u64,
    },
    /// The comm table pointer is past the end of the file.
    CommTablePastEnd {
        /// The file length.
        len: u64,
    },
    /// The comm table's layout refuses its count (the parser's words).
    CommTableLayout(String),
    /// An old-CLOG record of a known type whose length is not its type's.
    RecordLength {
        /// The record, in words (`a RAWEVENT record`).
        record: &'static str,
        /// The length the type has (8-byte units).
        fixed: i32,
    },
    /// An old-CLOG record of an unknown type shorter than its header.
    UnknownTypeLength {
        /// The record's type.
        rectype: i32,
    },
    /// An old-CLOG block size that is not a multiple of 8 of at least 24.
    ClogBlockSize,
    /// An old-CLOG block size that cannot be inferred from the file.
    NotInferable(NotInferable),
}

/// Why an old-CLOG file's block size cannot be inferred
/// ([`ValueProblem::NotInferable`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NotInferable {
    /// The records from byte 0 reach the file's end (at the record at `at`)
    /// without a terminator.
    NoTerminator {
        /// The last record's offset.
        at: u64,
    },
    /// The file is too large for a power-of-two block size.
    TooLarge,
    /// No power of two qualifies.
    NoPowerOfTwo {
        /// Where the first block's ENDBLOCK is.
        endblock: u64,
        /// The least block size it allows.
        need: u64,
        /// The least block size inferred ([`MIN_INFERRED_BLOCK_SIZE`](crate::clog::MIN_INFERRED_BLOCK_SIZE)).
        min: u64,
        /// The file length.
        len: u64,
        /// The first size with a record header at its start but not dividing
        /// the file length, if any.
        plausible: Option<u64>,
    },
}

impl std::fmt::Display for ValueProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ValueProblem::Negative => f.write_str("negative"),
            ValueProblem::CommTableCut { need, have } => {
                write!(f, "the table needs {need} bytes but only {have} follow")
            }
            ValueProblem::CommTableNotAfterBlocks { block_size } => write!(
                f,
                "the comm table must start after a whole number of {block_size}-byte blocks following the 1024-byte preamble"
            ),
            ValueProblem::CommTablePastEnd { len } => write!(
                f,
                "the comm table pointer is past the end of the file ({len} bytes)"
            ),
            ValueProblem::CommTableLayout(message) => f.write_str(message),
            ValueProblem::RecordLength { record, fixed } => write!(
                f,
                "{record} must have length {fixed} ({} bytes)",
                fixed * 8
            ),
            ValueProblem::UnknownTypeLength { rectype } => write!(
                f,
                "a record of unknown type {rectype} needs a length of at least 3 (its 24-byte header)"
            ),
            ValueProblem::ClogBlockSize => {
                f.write_str("an old-CLOG block size must be a multiple of 8 and at least 24")
            }
            ValueProblem::NotInferable(why) => {
                write!(f, "cannot be inferred from the file length: {why}")
            }
        }
    }
}

impl std::fmt::Display for NotInferable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotInferable::NoTerminator { at } => write!(
                f,
                "the records from byte 0 reach the end of the file (at the record at byte {at}) without an ENDBLOCK or ENDLOG record; the file may be truncated"
            ),
            NotInferable::TooLarge => f.write_str("the file is too large"),
            NotInferable::NoPowerOfTwo {
                endblock,
                need,
                min,
                len,
                plausible,
            } => {
                write!(
                    f,
                    "the first block ends with ENDBLOCK at byte {endblock}, but no power of two B >= {min} with B >= {need} divides the file length {len} and has a plausible record header at byte B"
                )?;
                if let Some(p) = plausible {
                    write!(f, "; {p} bytes has a record header at its start but the file length {len} is not a multiple of it (the file may be truncated)")?;
                }
                f.write_str("; pass the block size explicitly")
            }
        }
    }
}

/// Why a preamble token is refused ([`Error::BadPreamble`](super::Error::BadPreamble));
/// each is one row of spec/clog2.md §10 ([`PreambleProblem::spec_row`]).
///
/// ```
/// use clog2_format::error::PreambleProblem;
/// let p = PreambleProblem::NotInteger("12x".into());
/// assert_eq!(p.to_string(), "\"12x\" is not a 32-bit decimal integer");
/// assert_eq!(p.spec_row(), 5);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PreambleProblem {
    /// The token list breaks its layout (the parser's words).
    TokenList(String),
    /// The preamble has `tokens` tokens; the field needs at least `needs`.
    Missing {
        /// Tokens there are.
        tokens: usize,
        /// The version, whose layout the field belongs to.
        version: Version,
        /// Tokens needed.
        needs: usize,
    },
    /// A value token longer than 31 bytes.
    TooLong(usize),
    /// An integer token that is not a 32-bit decimal integer (its text).
    NotInteger(String),
    /// A boolean token that is neither TRUE nor FALSE (its text).
    NotBoolean(String),
    /// A block size that is not a multiple of 8 within the format's bounds.
    BlockSize {
        /// The value.
        value: i64,
        /// The least block size ([`MIN_BLOCK_SIZE`](crate::preamble::MIN_BLOCK_SIZE)).
        min: i64,
        /// The largest ([`MAX_BLOCK_SIZE`](crate::preamble::MAX_BLOCK_SIZE)).
        max: i64,
    },
    /// A comm table pointer `a * b + c` below zero.
    NegativePointer([i64; 3]),
}

impl PreambleProblem {
    /// The row of spec/clog2.md §10 ("What a reader must reject") the problem
    /// breaks: 3 a missing token, 4 a value token longer than 31 bytes, 5 an
    /// integer that is not decimal, 6 a bad boolean, 7 a bad block_size, 8 a bad
    /// commtable_fptr.
    pub fn spec_row(&self) -> u8 {
        match self {
            PreambleProblem::TokenList(_) | PreambleProblem::Missing { .. } => 3,
            PreambleProblem::TooLong(_) => 4,
            PreambleProblem::NotInteger(_) => 5,
            PreambleProblem::NotBoolean(_) => 6,
            PreambleProblem::BlockSize { .. } => 7,
            PreambleProblem::NegativePointer(_) => 8,
        }
    }
}

impl std::fmt::Display for PreambleProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PreambleProblem::TokenList(message) => f.write_str(message),
            PreambleProblem::Missing {
                tokens,
                version,
                needs,
            } => write!(
                f,
                "missing: the preamble has {tokens} tokens, {version} needs at least {needs}"
            ),
            PreambleProblem::TooLong(len) => write!(f, "value of {len} characters (at most 31)"),
            PreambleProblem::NotInteger(t) => write!(f, "{t:?} is not a 32-bit decimal integer"),
            PreambleProblem::NotBoolean(t) => write!(f, "{t:?} is neither TRUE nor FALSE"),
            PreambleProblem::BlockSize { value, min, max } => {
                write!(f, "{value} is not a multiple of 8 between {min} and {max}")
            }
            PreambleProblem::NegativePointer([a, b, c]) => write!(f, "{a} * {b} + {c} is negative"),
        }
    }
}
