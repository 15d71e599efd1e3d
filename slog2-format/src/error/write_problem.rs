//! Why the SLOG-2 writers refuse to write ([`Error::Write`](crate::Error::Write))
//! and why their options are refused ([`Error::InvalidOptions`](crate::Error::InvalidOptions)).

use crate::version::Version;
use std::fmt;

/// Why a structure cannot be written ([`Error::Write`](crate::Error::Write)).
///
/// ```
/// use slog2_format::error::{Error, WriteProblem};
/// let e = Error::Write(WriteProblem::NoTreeDir);
/// assert_eq!(e.to_string(), "cannot write: the input has no TreeDir");
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum WriteProblem {
    /// binrw could not encode a structure.
    Encode(binrw::Error),
    /// Deflate failed while compressing a node.
    Deflate(flate2::CompressError),
    /// A block, node or frame too large for the field that gives its size.
    TooLarge(Oversized),
    /// More items than the format can number.
    TooMany(Limit),
    /// A node block shorter than its 38-byte header.
    NodeShorterThanHeader,
    /// A node frame shorter than its frame and node headers.
    FrameShorterThanHeaders,
    /// A helper thread of a writer stopped or panicked before its work was done.
    Stopped(Worker),
    /// A drawable handed to the tree writer has a time that is not finite.
    NotFinite {
        /// The drawable's number (from 0) in the writer's input.
        drawable: u64,
        /// Its category.
        category: i32,
    },
    /// A drawable handed to the tree writer ends before the previous one.
    Unordered {
        /// The drawable's number (from 0) in the writer's input.
        drawable: u64,
        /// Its end time.
        end: f64,
        /// The previous drawable's end time.
        last: f64,
    },
    /// A compressed (SLOG 2.0.6Z) file asked to be written byte for byte.
    Compressed,
    /// A SLOG 2.0.5 file given to the reframer.
    NeedsUpdate,
    /// The input of the reframer has no TreeDir.
    NoTreeDir,
    /// A file of another version than the rewrite takes.
    WrongVersion {
        /// The file's version.
        found: Version,
        /// The version the rewrite takes.
        wanted: Version,
    },
    /// A structure of a parsed file would land elsewhere than where it was read.
    Misplaced {
        /// Where it was read.
        offset: u64,
        /// Where it would be written.
        position: u64,
    },
    /// A block of a parsed file encodes to another size than its pointer says.
    SizeMismatch {
        /// The block's offset.
        offset: u64,
        /// Its encoded size.
        size: u64,
        /// The size its pointer gives.
        pointer: i32,
    },
    /// The tree writer's state breaks one of its own rules (a bug, never input).
    Internal(Invariant),
}

/// What is too large for its size field ([`WriteProblem::TooLarge`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Oversized {
    /// A tree node block over 2 GiB (the tree writer or the framer).
    NodeBlock,
    /// A tree node over 2 GiB (the reframer).
    Node,
    /// A node block over 4 GiB (a frame's uncompressed length).
    NodeBlockForFrame,
    /// A node frame over 2 GiB.
    Frame,
    /// A block other than a node over 2 GiB (the tree writer).
    Block,
    /// A block other than a node over 2 GiB (the reframer).
    CopiedBlock,
    /// A block of the 2.0.5 update, with its length.
    UpdatedBlock(u64),
}

/// A count the format cannot hold ([`WriteProblem::TooMany`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Limit {
    /// More than 2^32 tree nodes.
    Nodes,
    /// More than 2^31 leaves.
    Leaves,
    /// A tree deeper than 32767 levels.
    Depth,
}

/// A writer's helper thread ([`WriteProblem::Stopped`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Worker {
    /// The CLOG2 converter's pairing thread.
    Pairing,
    /// The threads that compress nodes.
    Compressing,
    /// A compressing thread panicked.
    CompressingPanicked,
    /// The tree writer's thread.
    TreeWriter,
    /// The framing thread.
    Framing,
}

/// A rule of the tree writer's own state ([`WriteProblem::Internal`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Invariant {
    /// A node came back from compression twice.
    CompressedTwice {
        /// Its sequence number.
        seq: u32,
    },
    /// A stub names a node not yet written.
    ChildNotWritten {
        /// The child's sequence number.
        child: u32,
    },
    /// A stub pointer lies outside its node.
    StubOutsideNode,
    /// A node to build was handed to a sink that does not build.
    NotABuilder,
    /// The root node was not built.
    NoRoot,
}

/// Why writer options are refused ([`Error::InvalidOptions`](crate::Error::InvalidOptions)).
///
/// ```
/// use slog2_format::error::{Error, OptionsProblem};
/// let e = Error::InvalidOptions(OptionsProblem::Children(1));
/// assert_eq!(e.to_string(), "invalid options: children per node must be 2 to 32767, not 1");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum OptionsProblem {
    /// Children per node outside 2..=32767.
    Children(u16),
    /// Leaf byte size outside 64..=2147483647.
    LeafBytes(u32),
}

impl fmt::Display for WriteProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteProblem::Encode(e) => write!(f, "{e}"),
            WriteProblem::Deflate(e) => write!(f, "deflate: {e}"),
            WriteProblem::TooLarge(what) => f.write_str(match what {
                Oversized::NodeBlock => "a node block exceeds 2 GiB",
                Oversized::Node => "a node over 2 GiB",
                Oversized::NodeBlockForFrame => "a node block over 4 GiB",
                Oversized::Frame => "a node frame over 2 GiB",
                Oversized::Block => "block exceeds 2 GiB",
                Oversized::CopiedBlock => "block over 2 GiB",
                Oversized::UpdatedBlock(len) => return write!(f, "a block of {len} bytes"),
            }),
            WriteProblem::TooMany(limit) => f.write_str(match limit {
                Limit::Nodes => "more than 2^32 tree nodes",
                Limit::Leaves => "more than 2^31 leaves",
                Limit::Depth => "tree deeper than 32767 levels",
            }),
            WriteProblem::NodeShorterThanHeader => f.write_str("a node block shorter than its header"),
            WriteProblem::FrameShorterThanHeaders => f.write_str("a node frame shorter than its headers"),
            WriteProblem::Stopped(worker) => f.write_str(match worker {
                Worker::Pairing => "the pairing thread stopped early",
                Worker::Compressing => "the compressing threads stopped",
                Worker::CompressingPanicked => "compressing a node panicked",
                Worker::TreeWriter => "the tree writer stopped",
                Worker::Framing => "the framing thread stopped",
            }),
            WriteProblem::NotFinite { drawable, category } => {
                write!(f, "drawable #{drawable} of category {category} has a non-finite time")
            }
            WriteProblem::Unordered { drawable, end, last } => write!(
                f,
                "drawable #{drawable} ends at {end}, before the previous one ({last}): the tree writer needs increasing end times"
            ),
            WriteProblem::Compressed => f.write_str(
                "a compressed (SLOG 2.0.6Z) file is rewritten by write::reframe, not byte for byte",
            ),
            WriteProblem::NeedsUpdate => f.write_str(
                "SLOG 2.0.5 input: update it to 2.0.6 first (mpelog convert without --compress)",
            ),
            WriteProblem::NoTreeDir => f.write_str("the input has no TreeDir"),
            WriteProblem::WrongVersion { found, wanted } => {
                write!(f, "{} is not {}", found.as_str(), wanted.as_str())
            }
            WriteProblem::Misplaced { offset, position } => write!(
                f,
                "the structure at byte {offset} would be written at byte {position}"
            ),
            WriteProblem::SizeMismatch { offset, size, pointer } => write!(
                f,
                "the block at byte {offset} encodes to {size} bytes but its pointer says {pointer}"
            ),
            WriteProblem::Internal(rule) => match rule {
                Invariant::CompressedTwice { seq } => write!(f, "node #{seq} came back compressed twice"),
                Invariant::ChildNotWritten { child } => write!(f, "a stub names node #{child}, not yet written"),
                Invariant::StubOutsideNode => f.write_str("a stub pointer outside its node"),
                Invariant::NotABuilder => f.write_str("a node to build handed to a sink that does not build"),
                Invariant::NoRoot => f.write_str("the root node was not built"),
            },
        }
    }
}

impl fmt::Display for OptionsProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionsProblem::Children(n) => {
                write!(f, "children per node must be 2 to 32767, not {n}")
            }
            OptionsProblem::LeafBytes(n) => {
                write!(f, "leaf byte size must be 64 to 2147483647, not {n}")
            }
        }
    }
}

impl From<binrw::Error> for WriteProblem {
    fn from(e: binrw::Error) -> Self {
        WriteProblem::Encode(e)
    }
}
