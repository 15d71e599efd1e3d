//! Why a SLOG-1 file cannot be written or built ([`Error::Write`](super::Error::Write)).

use super::super::read::Part;

/// Why [`Slog1File::to_bytes`](crate::slog1::Slog1File::to_bytes) or
/// [`build`](crate::slog1::build) refuses: each displays as the words of the
/// error.
///
/// ```
/// use slog2_format::slog1::error::WriteProblem;
/// use slog2_format::slog1::Part;
/// let p = WriteProblem::Overlap { part: Part::Frame(2), at: 100, previous: Part::Header, previous_end: 182 };
/// assert_eq!(p.to_string(), "frame 2 at byte 100 overlaps the header, which ends at byte 182");
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum WriteProblem {
    /// A structure the encoder could not write (its words).
    Encode(String),
    /// Frames and directory entries that do not pair up.
    FramesAndEntries {
        /// Frames.
        frames: usize,
        /// Directory entries.
        entries: usize,
    },
    /// The statistics' `nset` and `nbin` do not match its sets.
    StatisticsShape,
    /// A frame whose content and tail are not the frame size.
    FrameSize {
        /// The frame's index.
        frame: usize,
        /// Bytes it encodes to.
        len: u64,
        /// Its content's bytes.
        content: u64,
        /// Its tail's bytes.
        tail: u64,
        /// The header's frame size.
        frame_bytesize: u32,
    },
    /// A section, frame or gap that starts inside the one before it.
    Overlap {
        /// What starts too early.
        part: Part,
        /// Where it starts.
        at: u64,
        /// What it overlaps.
        previous: Part,
        /// Where that ends.
        previous_end: u64,
    },
    /// A section, frame or gap that ends beyond [`MAX_FILE_LEN`](crate::slog1::write::MAX_FILE_LEN).
    PastMaxLen {
        /// What.
        part: Part,
        /// Where it starts.
        at: u64,
        /// The limit.
        max: u64,
    },
    /// A file longer than [`MAX_FILE_LEN`](crate::slog1::write::MAX_FILE_LEN).
    TooLarge {
        /// Its length.
        len: u64,
        /// The limit.
        max: u64,
    },
    /// The bytes would not read back (what the reader says of them).
    WouldNotReadBack(Box<super::Error>),
    /// Bins per statistics set outside 1–512.
    Bins(u32),
    /// A frame size below 66 bytes (a frame header and the smallest record).
    FrameTooSmall(u64),
    /// An input record [`build`](crate::slog1::build) cannot place.
    Record {
        /// The record's index in the input.
        index: usize,
        /// What is wrong with it.
        problem: RecordProblem,
    },
    /// The records active at one time need more than a frame.
    ActiveRecordsOverflow {
        /// The time.
        time: f64,
        /// The frame size.
        frame_bytesize: u64,
    },
}

/// What is wrong with an input record of [`build`](crate::slog1::build)
/// ([`WriteProblem::Record`]).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum RecordProblem {
    /// A time that is not finite.
    NotFinite,
    /// A negative duration.
    NegativeDuration(f64),
    /// No definition for its interval type and bebits.
    NoDefinition {
        /// The interval type.
        intvltype: u16,
        /// The bebits.
        bebits: u8,
    },
    /// Its associations, arguments or destination do not match its type and
    /// definition.
    Mismatch,
    /// Longer than a frame can hold.
    TooLong {
        /// Its bytes.
        len: u64,
        /// The frame size.
        frame_bytesize: u64,
    },
}

impl std::fmt::Display for WriteProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteProblem::Encode(message) => f.write_str(message),
            WriteProblem::FramesAndEntries { frames, entries } => {
                write!(f, "{frames} frames but {entries} directory entries")
            }
            WriteProblem::StatisticsShape => f.write_str(
                "the statistics' nset and nbin do not match its sets (sets are present exactly when both are non-zero)",
            ),
            WriteProblem::FrameSize {
                frame,
                len,
                content,
                tail,
                frame_bytesize,
            } => write!(
                f,
                "frame {frame} encodes to {len} bytes (content {content} + tail {tail}), not the frame size {frame_bytesize}"
            ),
            WriteProblem::Overlap {
                part,
                at,
                previous,
                previous_end,
            } => write!(
                f,
                "{} at byte {at} overlaps {}, which ends at byte {previous_end}",
                part.name(),
                previous.name()
            ),
            WriteProblem::PastMaxLen { part, at, max } => {
                write!(f, "{} at byte {at} ends beyond {max} bytes", part.name())
            }
            WriteProblem::TooLarge { len, max } => {
                write!(f, "the file would be {len} bytes, more than {max}")
            }
            WriteProblem::WouldNotReadBack(e) => write!(f, "the file would not read back: {e}"),
            WriteProblem::Bins(n) => write!(f, "nbin must be 1 to 512, not {n}"),
            WriteProblem::FrameTooSmall(n) => write!(f, "frame size {n} is below 66 bytes"),
            WriteProblem::Record { index, problem } => write!(f, "record {index}: {problem}"),
            WriteProblem::ActiveRecordsOverflow {
                time,
                frame_bytesize,
            } => write!(
                f,
                "the records active at time {time} need more than a {frame_bytesize}-byte frame"
            ),
        }
    }
}

impl std::fmt::Display for RecordProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecordProblem::NotFinite => f.write_str("a time is not finite"),
            RecordProblem::NegativeDuration(d) => write!(f, "negative duration {d}"),
            RecordProblem::NoDefinition { intvltype, bebits } => write!(
                f,
                "no definition for interval type {intvltype} bebits {bebits}"
            ),
            RecordProblem::Mismatch => f.write_str(
                "its associations, arguments or destination do not match its type and definition",
            ),
            RecordProblem::TooLong {
                len,
                frame_bytesize,
            } => write!(f, "{len} bytes do not fit in a {frame_bytesize}-byte frame"),
        }
    }
}
