//! [`NodeScan`]: what the window query needs of an upper tree node, kept
//! between queries so that a node on the path to a window costs what is shown
//! of it, not its bytes.
//!
//! An upper node of a trace with many timelines is mostly its stubs' shadows
//! (a 1,024-rank trace's are about 2 MB each), and every query reads the
//! nodes on its path down. A reader with a [`NodeCache`](crate::NodeCache)
//! scans an upper node once, with the same checks as the fast path
//! ([`scan::node`]), and keeps the sort keys and offsets of all its drawables
//! and the headers, offsets and object counts of its stubs. A later query
//! reads from the file only the bytes of the drawables it shows and of the
//! stubs whose shadows it shows.

use crate::types::NodeHeader;
use crate::window::scan::{self, Checks, Entry, StubAt};
use crate::window::TimeWindow;

/// One upper node, scanned: every drawable (the nestless list first) and
/// every stub. Offsets are into the node's bytes.
#[derive(Debug)]
pub(crate) struct NodeScan {
    pub(crate) header: NodeHeader,
    /// The node's length in bytes.
    pub(crate) len: usize,
    /// Where the stub count is.
    pub(crate) count_at: usize,
    /// How many of `entries` are of the nestless list.
    pub(crate) nestless: usize,
    pub(crate) entries: Vec<Entry>,
    pub(crate) stubs: Vec<ScannedStub>,
}

/// A stub of a [`NodeScan`]: its header, where its bytes are, and what its
/// shadows stand for.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ScannedStub {
    pub(crate) header: NodeHeader,
    /// Its first byte and the byte after its last.
    pub(crate) at: usize,
    pub(crate) end: usize,
    /// The real drawables its shadows stand for, and how many shadows
    /// (`scan::stub_objects`).
    pub(crate) objects: (i64, usize),
}

impl NodeScan {
    /// Scans `bytes` (a whole node) as [`scan::node`] does for a window that
    /// shows everything. `None` where the scan is (the node does not parse or
    /// fails a check).
    pub(crate) fn of(bytes: &[u8], v206: bool, checks: Checks) -> Option<NodeScan> {
        let mut entries = Vec::new();
        let mut stubs: Vec<StubAt> = Vec::new();
        let all = TimeWindow::new(f64::NEG_INFINITY, f64::INFINITY);
        let found = scan::node(bytes, v206, checks, &all, &mut entries, &mut stubs)?;
        let mut scanned = Vec::with_capacity(stubs.len());
        for (i, s) in stubs.iter().enumerate() {
            let end = stubs.get(i + 1).map_or(bytes.len(), |next| next.at);
            scanned.push(ScannedStub {
                header: s.header,
                at: s.at,
                end,
                objects: scan::stub_objects(bytes, s.at, v206)?,
            });
        }
        entries.shrink_to_fit();
        Some(NodeScan {
            header: found.header,
            len: bytes.len(),
            count_at: found.count_at,
            nestless: found.nestless,
            entries,
            stubs: scanned,
        })
    }

    /// About how many bytes it holds (for the cache's bound).
    pub(crate) fn size(&self) -> usize {
        std::mem::size_of::<NodeScan>()
            + self.entries.len() * std::mem::size_of::<Entry>()
            + self.stubs.len() * std::mem::size_of::<ScannedStub>()
    }
}
