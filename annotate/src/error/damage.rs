//! What is wrong with an annotation file ([`Error::BadAnnotation`](super::Error::BadAnnotation)),
//! with its values.

use super::Problem;
use crate::format::{FORMAT_VERSION, HEADER_LEN};
use slog2_format::error::NegativeCount;
use slog2_format::types::FileBlockPtr;

/// What is wrong with an annotation file, with the values the message names;
/// [`Self::problem`] gives the rule of spec/conformance.md §9 it breaks.
///
/// ```
/// use mpelog_annotate::error::{Damage, Problem};
/// let d = Damage::FewChildren { children: 1 };
/// assert_eq!(d.to_string(), "1 children per node");
/// assert_eq!(d.problem(), Problem::FewChildren);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Damage {
    /// The file does not start with the `MPELOGIX` magic (`IDX-HDR-001`).
    /// Offset: 0.
    NoMagic,
    /// The file ends inside its header (`IDX-HDR-001`). Offset: the file's end.
    HeaderCut,
    /// The header does not parse (`IDX-HDR-001`). Offset: 0.
    Header {
        /// The parser's words for what is wrong (without binrw's backtrace or
        /// position).
        message: String,
    },
    /// A format version this reader does not know (`IDX-HDR-002`). Offset: the
    /// version field.
    Version {
        /// The header's format version.
        found: u16,
    },
    /// Fewer than 2 children per node (`IDX-HDR-003`). Offset: the field.
    FewChildren {
        /// The header's children per node.
        children: u16,
    },
    /// A block pointer with a negative offset or size, past the end of the
    /// file, or larger than `max_block` (`IDX-BLK-001`). Offset: the pointer
    /// field (in the header, the leaf table or the TreeDir).
    BadPointer {
        /// The block it points at.
        block: Block,
        /// The pointer.
        ptr: FileBlockPtr,
    },
    /// A block does not parse (`IDX-BLK-002`). Offset: the structure that
    /// fails (the block for its own fields, or, e.g., the category of a
    /// CategoryMap whose key count is negative; the block when it ends inside
    /// a structure).
    Unparsable {
        /// The block.
        block: Block,
        /// The parser's words for what is wrong (the condition a layout
        /// states, without binrw's backtrace or position).
        message: String,
    },
    /// A count field of a block is negative (`IDX-BLK-002`). Offset: the
    /// structure that holds the count (the block itself, or, e.g., the
    /// category of a CategoryMap whose key count is negative).
    NegativeCount {
        /// The block.
        block: Block,
        /// Which count, and its value.
        count: NegativeCount,
    },
    /// The leaf table holds another number of leaves than the header says
    /// (`IDX-LEAF-001`). Offset: the leaf table.
    LeafCount {
        /// The leaves in the leaf table.
        found: usize,
        /// The header's count.
        header: u32,
    },
    /// A leaf's trace range is not whole blocks inside the trace
    /// (`IDX-LEAF-002`). Offset: the leaf's entry in the leaf table.
    LeafRange {
        /// The leaf's index.
        leaf: usize,
        /// Its range's offset in the trace.
        offset: u64,
        /// Its range's length.
        len: u32,
    },
}

impl Damage {
    /// The rule the damage breaks.
    ///
    /// ```
    /// use mpelog_annotate::error::{Damage, Problem};
    /// assert_eq!(Damage::HeaderCut.problem(), Problem::NotAnnotation);
    /// ```
    pub fn problem(&self) -> Problem {
        match self {
            Damage::NoMagic | Damage::HeaderCut | Damage::Header { .. } => Problem::NotAnnotation,
            Damage::Version { .. } => Problem::Version,
            Damage::FewChildren { .. } => Problem::FewChildren,
            Damage::BadPointer { .. } => Problem::BadPointer,
            Damage::Unparsable { .. } | Damage::NegativeCount { .. } => Problem::Unparsable,
            Damage::LeafCount { .. } => Problem::LeafCount,
            Damage::LeafRange { .. } => Problem::LeafRange,
        }
    }
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Damage::NoMagic => f.write_str("not an mpelog annotation file (no MPELOGIX magic)"),
            Damage::HeaderCut => write!(f, "the {HEADER_LEN}-byte header is cut short"),
            Damage::Header { message } => write!(f, "header: {message}"),
            Damage::Version { found } => write!(
                f,
                "format version {found} (this reader knows {FORMAT_VERSION})"
            ),
            Damage::FewChildren { children } => write!(f, "{children} children per node"),
            Damage::BadPointer { block, ptr } => write!(
                f,
                "{block} ({} bytes at byte {}) is not inside the file or exceeds max_block",
                ptr.size, ptr.offset
            ),
            Damage::Unparsable { block, message } => write!(f, "{block}: {message}"),
            Damage::NegativeCount { block, count } => write!(f, "{block}: {count}"),
            Damage::LeafCount { found, header } => {
                write!(f, "{found} leaves, the header says {header}")
            }
            Damage::LeafRange { leaf, offset, len } => write!(
                f,
                "leaf {leaf}: range {offset}+{len} is not whole blocks inside the trace"
            ),
        }
    }
}

/// A block of an annotation file ([`Damage::BadPointer`],
/// [`Damage::Unparsable`]).
///
/// ```
/// use mpelog_annotate::error::Block;
/// assert_eq!(Block::LeafTable.to_string(), "the leaf table");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Block {
    /// The TreeDir.
    TreeDir,
    /// The leaf table.
    LeafTable,
    /// The definitions block.
    Defs,
    /// The CategoryMap.
    CategoryMap,
    /// The LineIDMapList.
    LineIdMaps,
    /// A leaf's carry-in block.
    Carry,
    /// A tree node.
    Node,
}

impl std::fmt::Display for Block {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Block::TreeDir => "the TreeDir",
            Block::LeafTable => "the leaf table",
            Block::Defs => "the definitions",
            Block::CategoryMap => "the CategoryMap",
            Block::LineIdMaps => "the LineIDMapList",
            Block::Carry => "a carry-in block",
            Block::Node => "a tree node",
        })
    }
}

/// binrw's error on `block` as the offset it names (from the start of what
/// was parsed) and the damage: a negative count as its typed value, anything
/// else as its root cause's words alone, without binrw's backtrace frames,
/// their colours and our source lines, and without the position (the
/// caller's error names the offset once).
pub(crate) fn binrw_damage(e: binrw::Error, block: Block) -> (u64, Damage) {
    match root_cause(e) {
        (at, Ok(count)) => (at, Damage::NegativeCount { block, count }),
        (at, Err(message)) => (at, Damage::Unparsable { block, message }),
    }
}

/// binrw's error as the offset it names and its root cause's words alone
/// (see [`binrw_damage`]).
pub(crate) fn binrw_words(e: binrw::Error) -> (u64, String) {
    match root_cause(e) {
        (at, Ok(count)) => (at, count.to_string()),
        (at, Err(message)) => (at, message),
    }
}

/// binrw's root cause: where it is, and a negative count or the words.
fn root_cause(e: binrw::Error) -> (u64, Result<NegativeCount, String>) {
    match e {
        binrw::Error::Backtrace(bt) => root_cause(*bt.error),
        binrw::Error::AssertFail { pos, message } => (pos, Err(message)),
        binrw::Error::Custom { pos, err } => match err.downcast::<NegativeCount>() {
            Ok(count) => (pos, Ok(*count)),
            Err(err) => (pos, Err(err.to_string())),
        },
        binrw::Error::BadMagic { pos, found } => (pos, Err(format!("bad magic {found:?}"))),
        binrw::Error::NoVariantMatch { pos } => (pos, Err("no variant matches".into())),
        binrw::Error::EnumErrors {
            pos,
            mut variant_errors,
        } => {
            // One variant whose tag matched and whose fields then failed:
            // that failure is what is wrong.
            let named = |e: &binrw::Error| !matches!(e.root_cause(), binrw::Error::BadMagic { .. });
            match variant_errors.iter().filter(|(_, e)| named(e)).count() {
                1 => {
                    let i = variant_errors
                        .iter()
                        .position(|(_, e)| named(e))
                        .unwrap_or(0);
                    root_cause(variant_errors.swap_remove(i).1)
                }
                _ => (pos, Err("no variant matches".into())),
            }
        }
        binrw::Error::Io(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            (0, Err("the block ends inside a structure".into()))
        }
        binrw::Error::Io(e) => (0, Err(e.to_string())),
        other => (0, Err(other.to_string())),
    }
}
