//! The on-disk layouts of an annotation file (spec/annotation.md), big-endian.
//! Tree nodes, the TreeDir, the CategoryMap and the LineIDMapList are the SLOG-2
//! layouts of `slog2_format::types`.

use binrw::binrw;
use slog2_format::convert::{Partial, WaitingMessage};
use slog2_format::error::{Count, NegativeCount};
use slog2_format::types::{topology, FileBlockPtr};
use slog2_format::write::Prim;

/// The file's first 8 bytes.
pub const MAGIC: &[u8; 8] = b"MPELOGIX";
/// The format version this crate writes and reads.
pub const FORMAT_VERSION: u16 = 1;
/// Bytes of the header.
pub const HEADER_LEN: u64 = 8 + 2 + 8 + 12 + 1 + 4 + 4 + 2 + 4 + 2 + 4 + 4 + 16 + 5 * 12;

/// The header: which trace, the tree's shape, where the blocks are.
#[binrw]
#[brw(big, magic = b"MPELOGIX")]
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    /// Format version, 1.
    pub format_version: u16,
    /// Size of the annotated CLOG2 file in bytes.
    pub clog2_size: u64,
    /// Its version string (`CLOG-02.44`), NUL-padded.
    pub clog2_version: [u8; 12],
    /// 1 if its records are big-endian.
    pub clog2_big_endian: u8,
    /// Its block size.
    pub clog2_block_size: u32,
    /// CRC-32 of its 1024-byte preamble.
    pub preamble_crc32: u32,
    /// Children per node (K ≥ 2).
    pub children: u16,
    /// CLOG2 blocks per leaf (the last leaf may have fewer).
    pub leaf_blocks: u32,
    /// Depth of the root: the smallest H with K^H ≥ leaves (0 for one leaf).
    pub depth: u16,
    /// Number of leaves.
    pub leaves: u32,
    /// Largest block of this file (a reader's allocation bound).
    pub max_block: u32,
    /// Earliest record time of the trace (terminators excluded).
    pub earliest: f64,
    /// Latest record time.
    pub latest: f64,
    /// The TreeDir of the non-leaf nodes (SLOG-2 layout).
    pub treedir: FileBlockPtr,
    /// The leaf table.
    pub leaf_table: FileBlockPtr,
    /// The definitions block.
    pub defs: FileBlockPtr,
    /// The CategoryMap (SLOG-2 2.0.6 layout).
    pub categories: FileBlockPtr,
    /// The LineIDMapList (SLOG-2 layout).
    pub lineidmaps: FileBlockPtr,
}

/// One leaf: a range of whole CLOG2 blocks.
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Leaf {
    /// Offset of the range in the CLOG2 file.
    pub offset: u64,
    /// Length of the range (whole blocks).
    pub len: u32,
    /// Earliest record time in the range (terminators excluded; +∞ if none).
    pub earliest: f64,
    /// Latest record time in the range (−∞ if none).
    pub latest: f64,
    /// Records in the range, terminators included.
    pub records: u32,
    /// CRC-32 of the range's bytes.
    pub crc32: u32,
    /// The carry-in block: the events waiting for a partner when the range starts.
    pub carry: FileBlockPtr,
}

/// The leaf table.
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LeafTable {
    #[br(temp, assert(count >= 0, NegativeCount { count: Count::Leaf, value: count }))]
    #[bw(try_calc = i32::try_from(leaves.len()))]
    count: i32,
    /// The leaves, in trace order.
    #[br(count = count)]
    pub leaves: Vec<Leaf>,
}

/// An event waiting for its partner (see `slog2_format::convert::Partial`).
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, PartialEq)]
pub enum Waiting {
    /// An open state.
    #[brw(magic = 0u8)]
    State {
        /// Category index.
        category: i32,
        /// Thread line.
        line: i32,
        /// Start time.
        time: f64,
        /// Leaf of the start event.
        origin: u32,
        /// Info bytes of the start event (the CLOG2 cargo, ≤ 32 bytes).
        #[br(temp, assert(info_len <= 32, "info of {} bytes", info_len))]
        #[bw(try_calc = u8::try_from(info.len()))]
        info_len: u8,
        /// The info bytes.
        #[br(count = info_len)]
        info: Vec<u8>,
    },
    /// A send waiting for its receive.
    #[brw(magic = 1u8)]
    Send {
        /// Tag, sender process line, receiver process line.
        key: [i32; 3],
        /// Send time.
        time: f64,
        /// Sender thread line.
        line: i32,
        /// Message size.
        size: i32,
        /// Leaf of the send.
        origin: u32,
    },
    /// A receive waiting for its send.
    #[brw(magic = 2u8)]
    Recv {
        /// Tag, sender process line, receiver process line.
        key: [i32; 3],
        /// Receive time.
        time: f64,
        /// Receiver thread line.
        line: i32,
        /// Leaf of the receive.
        origin: u32,
    },
}

impl From<&Waiting> for Partial {
    /// The converter's form of a waiting event, as a leaf's pairing resumes
    /// from it.
    ///
    /// ```
    /// use mpelog_annotate::format::Waiting;
    /// use slog2_format::convert::{Partial, WaitingMessage};
    /// let w = Waiting::Recv { key: [7, 0, 1], time: 2.5, line: 1, origin: 3 };
    /// let p = Partial::from(&w);
    /// let m = WaitingMessage { key: [7, 0, 1], time: 2.5, line: 1, size: 0, origin: 3 };
    /// assert_eq!(p, Partial::Recv(m));
    /// assert_eq!(Waiting::from(&p), w);
    /// ```
    fn from(w: &Waiting) -> Partial {
        match *w {
            Waiting::State {
                category,
                line,
                time,
                origin,
                ref info,
            } => Partial::State {
                prim: Prim::two(category, topology::STATE, (time, line), (time, line), info),
                origin: u64::from(origin),
            },
            Waiting::Send {
                key,
                time,
                line,
                size,
                origin,
            } => Partial::Send(WaitingMessage {
                key,
                time,
                line,
                size,
                origin: u64::from(origin),
            }),
            Waiting::Recv {
                key,
                time,
                line,
                origin,
            } => Partial::Recv(WaitingMessage {
                key,
                time,
                line,
                size: 0,
                origin: u64::from(origin),
            }),
        }
    }
}

impl From<&Partial> for Waiting {
    /// The stored form of the converter's waiting event (origins are leaf
    /// indexes, which fit in `u32`; a receive stores no size).
    fn from(p: &Partial) -> Waiting {
        match *p {
            Partial::State { prim, origin } => Waiting::State {
                category: prim.category,
                line: prim.lines[0],
                time: prim.times[0],
                origin: origin as u32,
                info: prim.info().to_vec(),
            },
            Partial::Send(m) => Waiting::Send {
                key: m.key,
                time: m.time,
                line: m.line,
                size: m.size,
                origin: m.origin as u32,
            },
            Partial::Recv(m) => Waiting::Recv {
                key: m.key,
                time: m.time,
                line: m.line,
                origin: m.origin as u32,
            },
        }
    }
}

/// A carry-in block.
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Carry {
    #[br(temp, assert(count >= 0, NegativeCount { count: Count::Entry, value: count }))]
    #[bw(try_calc = i32::try_from(waiting.len()))]
    count: i32,
    /// The waiting events, oldest first per pairing key.
    #[br(count = count)]
    pub waiting: Vec<Waiting>,
}

/// A STATEDEF or EVENTDEF of the trace, with the leaf it is in.
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Def {
    /// Leaf holding the record.
    pub leaf: u32,
    /// 2 = STATEDEF, 3 = EVENTDEF.
    pub kind: u8,
    /// State ID (STATEDEF) or 0.
    pub id: i32,
    /// Start event (STATEDEF) or the event (EVENTDEF).
    pub etype: i32,
    /// Final event (STATEDEF) or 0.
    pub final_etype: i32,
    /// Colour name, as in the record.
    pub color: [u8; 24],
    /// Name, as in the record.
    pub name: [u8; 32],
    /// Info format, as in the record.
    pub format: [u8; 40],
}

/// The definitions block.
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Defs {
    #[br(temp, assert(count >= 0, NegativeCount { count: Count::Entry, value: count }))]
    #[bw(try_calc = i32::try_from(defs.len()))]
    count: i32,
    /// The definitions, in trace order.
    #[br(count = count)]
    pub defs: Vec<Def>,
}

// The pointer fields' offsets stand last: binrw's parse errors name the
// lines of the layouts above, which `mpelog check` prints.
/// Offset of the header's TreeDir pointer field (spec/annotation.md §3).
pub const TREEDIR_AT: u64 = 71;
/// Offset of the header's leaf table pointer field.
pub const LEAF_TABLE_AT: u64 = 83;
/// Offset of the header's definitions pointer field.
pub const DEFS_AT: u64 = 95;
/// Offset of the header's CategoryMap pointer field.
pub const CATEGORIES_AT: u64 = 107;
/// Offset of the header's LineIDMapList pointer field.
pub const LINEIDMAPS_AT: u64 = 119;
