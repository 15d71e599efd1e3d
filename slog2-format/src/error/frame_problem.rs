//! Why a compressed tree-node frame (SLOG 2.0.6Z) is refused
//! ([`Error::BadFrame`](crate::Error::BadFrame)), with its values.

use super::Problem;
use crate::types::FileBlockPtr;
use crate::types::{NODE_HEADER_LEN, PREFIX_LEN};

/// Which check of spec/slog2-compressed.md §5 a frame fails, and how, with the
/// values the message names; [`Self::step`] is the check's number.
///
/// It displays as the error's message after the frame's name ("tree node
/// (d, x) at byte N: "):
///
/// ```
/// use slog2_format::error::FrameProblem;
/// let p = FrameProblem::Checksum { computed: 0xdeadbeef, declared: 0x12345678 };
/// assert_eq!(p.step(), 5);
/// assert_eq!(
///     p.to_string(),
///     "checksum mismatch: the uncompressed node has CRC-32 deadbeef, the frame says 12345678"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FrameProblem {
    /// Check 1: the block is shorter than the frame and node headers. Offset:
    /// the frame.
    TooShort {
        /// The block's size.
        len: u64,
    },
    /// Check 1: a compression codec this reader does not know. Offset: the
    /// frame.
    UnknownCodec {
        /// The codec byte.
        codec: u8,
    },
    /// Check 1: the reserved bytes are not zero. Offset: the first of them.
    Reserved {
        /// The three reserved bytes.
        bytes: [u8; 3],
    },
    /// Check 2: the payload length does not fit the block. Offset: the payload
    /// length field.
    PayloadLength {
        /// The payload length the frame declares.
        declared: u32,
        /// The block's size (its payload is the rest after the
        /// [`PREFIX_LEN`] bytes of headers).
        block: u64,
    },
    /// Check 3: the uncompressed length is below the node header's or over
    /// the header's `max_buffer_bytesize`; refused before inflating. Offset:
    /// the uncompressed length field.
    UncompressedLength {
        /// The uncompressed length the frame declares.
        declared: u32,
        /// The bound (`max_buffer_bytesize`).
        limit: u64,
    },
    /// Check 4: the deflate stream is corrupt. Offset: the payload.
    CorruptDeflate {
        /// The inflater's own words (flate2's error).
        message: String,
    },
    /// Check 4: the payload inflates to another length than declared. Offset:
    /// the uncompressed length field.
    InflatedLength {
        /// The bytes it inflates to (at most `want + 1`: inflating stops there).
        got: u64,
        /// The bytes it should inflate to.
        want: u64,
    },
    /// Check 4: a stored payload's length is not the node's rest. Offset: the
    /// uncompressed length field.
    StoredLength {
        /// The payload's length.
        payload: u64,
        /// The node's declared length.
        node: u64,
    },
    /// Check 4: the inflated column form does not give a node. Offset: the
    /// payload.
    Columns(ColumnProblem),
    /// Check 4: the column form gives another length than declared. Offset:
    /// the uncompressed length field.
    ColumnLength {
        /// The bytes it gives.
        got: u64,
        /// The node's declared length.
        declared: u64,
    },
    /// Check 5: the CRC-32 of the uncompressed node is not the frame's.
    /// Offset: the checksum field.
    Checksum {
        /// The CRC-32 of the node as inflated.
        computed: u32,
        /// The frame's.
        declared: u32,
    },
    /// Check 6: the node's own pointer is not the pointer to its frame.
    /// Offset: the node's own pointer field.
    OwnPointer {
        /// The node's own pointer.
        own: FileBlockPtr,
        /// The pointer to the frame.
        frame: FileBlockPtr,
    },
}

impl FrameProblem {
    /// The number (1–6) of the check of spec/slog2-compressed.md §5 that fails,
    /// which `check` reports as rule `S2Z-FRM-00<step>`.
    ///
    /// ```
    /// use slog2_format::error::FrameProblem;
    /// assert_eq!(FrameProblem::UnknownCodec { codec: 9 }.step(), 1);
    /// assert_eq!(FrameProblem::InflatedLength { got: 5, want: 4 }.step(), 4);
    /// ```
    pub fn step(&self) -> u8 {
        match self {
            FrameProblem::TooShort { .. }
            | FrameProblem::UnknownCodec { .. }
            | FrameProblem::Reserved { .. } => 1,
            FrameProblem::PayloadLength { .. } => 2,
            FrameProblem::UncompressedLength { .. } => 3,
            FrameProblem::CorruptDeflate { .. }
            | FrameProblem::InflatedLength { .. }
            | FrameProblem::StoredLength { .. }
            | FrameProblem::Columns(_)
            | FrameProblem::ColumnLength { .. } => 4,
            FrameProblem::Checksum { .. } => 5,
            FrameProblem::OwnPointer { .. } => 6,
        }
    }

    /// The problem `check` reports for it.
    ///
    /// ```
    /// use slog2_format::check::Problem;
    /// use slog2_format::error::FrameProblem;
    /// let p = FrameProblem::Checksum { computed: 1, declared: 2 };
    /// assert_eq!(p.problem(), Problem::FrameChecksum);
    /// ```
    pub fn problem(&self) -> Problem {
        Problem::frame(self.step())
    }
}

impl std::fmt::Display for FrameProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameProblem::TooShort { len } => write!(
                f,
                "a {len}-byte block is too short for a node frame ({PREFIX_LEN} bytes at least)"
            ),
            FrameProblem::UnknownCodec { codec } => write!(
                f,
                "unknown compression codec {codec} (this reader knows 0 stored, 1 deflate and 2 columns)"
            ),
            FrameProblem::Reserved { bytes } => {
                write!(f, "reserved frame bytes are {bytes:?}, not zero")
            }
            FrameProblem::PayloadLength { declared, block } => write!(
                f,
                "payload length {declared} does not fit the {block}-byte block (payload {} bytes)",
                block.saturating_sub(PREFIX_LEN as u64)
            ),
            FrameProblem::UncompressedLength { declared, limit } => write!(
                f,
                "uncompressed length {declared} is outside {NODE_HEADER_LEN}..={limit} (max_buffer_bytesize); refused before inflating"
            ),
            FrameProblem::CorruptDeflate { message } => {
                write!(f, "the deflate payload is corrupt: {message}")
            }
            FrameProblem::InflatedLength { got, want } => write!(
                f,
                "the payload inflates to {got} bytes{}, the frame says {want}",
                if got > want { " or more" } else { "" }
            ),
            FrameProblem::StoredLength { payload, node } => write!(
                f,
                "stored payload of {payload} bytes, but the node is {node} bytes"
            ),
            FrameProblem::Columns(problem) => problem.fmt(f),
            FrameProblem::ColumnLength { got, declared } => write!(
                f,
                "the column form gives {got} bytes, the frame says {declared}"
            ),
            FrameProblem::Checksum { computed, declared } => write!(
                f,
                "checksum mismatch: the uncompressed node has CRC-32 {computed:08x}, the frame says {declared:08x}"
            ),
            FrameProblem::OwnPointer { own, frame } => write!(
                f,
                "the node's own pointer ({} bytes at byte {}) is not its frame's ({} bytes at byte {})",
                own.size, own.offset, frame.size, frame.offset
            ),
        }
    }
}

/// Why an inflated column form (codec 2, spec/slog2-compressed.md §4) does not
/// give a node back ([`FrameProblem::Columns`]).
///
/// ```
/// use slog2_format::error::ColumnProblem;
/// let p = ColumnProblem::LeftOver { left: 2, times: 9 };
/// assert_eq!(p.to_string(), "2 of 9 times are left over");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ColumnProblem {
    /// The form is shorter than its 4-byte length field.
    Short,
    /// The length of the node's other bytes does not fit the form, or leaves
    /// a time plane that is not whole 8-byte times.
    Length {
        /// The length the form declares.
        len: u32,
        /// The bytes after the length field.
        body: u64,
    },
    /// The other bytes end inside a node structure.
    EndsInsideNode,
    /// The node uses fewer times than the planes hold.
    LeftOver {
        /// Times not used.
        left: u64,
        /// Times in the planes.
        times: u64,
    },
}

impl std::fmt::Display for ColumnProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ColumnProblem::Short => {
                f.write_str("the column form is shorter than its 4-byte length")
            }
            ColumnProblem::Length { len, body } => {
                write!(
                    f,
                    "the column form's length {len} does not fit its {body} bytes"
                )
            }
            ColumnProblem::EndsInsideNode => {
                f.write_str("the column form ends inside a node structure")
            }
            ColumnProblem::LeftOver { left, times } => {
                write!(f, "{left} of {times} times are left over")
            }
        }
    }
}
