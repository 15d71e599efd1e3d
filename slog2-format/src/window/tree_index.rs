//! What window queries keep between queries: the TreeDir indexed by node ID and
//! by block, with the first file-level `check` error ([`TreeIndex`]), and the
//! buffers a query fills ([`WindowCache`]).

use crate::error::FileRuleError;
use crate::types::*;
use crate::window::WindowBuf;
// Fx hashing: the index of a 16,755-node TreeDir took a millisecond with
// SipHash, at the first window of every file opened.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// The TreeDir by node ID and by block pointer, and the first error the
/// file-level rules of `check` find in the header, the maps or the TreeDir:
/// what a window query checks once per file.
#[derive(Debug)]
pub(crate) struct TreeIndex {
    /// The TreeDir entries by node ID.
    pub(crate) dir: HashMap<NodeId, TreeDirEntry>,
    /// The TreeDir's root entry (deepest, then lowest xpos), if any.
    pub(crate) root: Option<NodeId>,
    /// The block pointers of the TreeDir entries.
    pub(crate) blocks: HashSet<FileBlockPtr>,
    /// The first error-severity file rule broken, if any.
    pub(crate) file_error: Option<FileRuleError>,
}

impl TreeIndex {
    /// Indexes `tree_dir` (none: an empty index), with the file's first
    /// file-level error.
    pub(crate) fn new(tree_dir: Option<&TreeDir>, file_error: Option<FileRuleError>) -> TreeIndex {
        let entries = tree_dir.map_or(&[][..], |t| &t.entries[..]);
        TreeIndex {
            dir: entries.iter().map(|e| (e.id, *e)).collect(),
            root: tree_dir.and_then(|t| t.root().map(|e| e.id)),
            blocks: entries.iter().map(|e| e.ptr).collect(),
            file_error,
        }
    }
}

/// What a reader keeps for its window queries: the [`TreeIndex`], made at the
/// first query, and the buffers of [`Slog2Reader::window`](crate::Slog2Reader::window)
/// and its siblings, reused so that a query does not grow them again.
#[derive(Debug, Default)]
pub(crate) struct WindowCache {
    /// The TreeDir index, once a query has made it.
    pub(crate) tree: Option<TreeIndex>,
    /// The buffers of the queries that return owned answers.
    pub(crate) buf: WindowBuf,
    /// Scratch of the walk: the parts read of a scanned node
    /// ([`NodeScan`](crate::window::node_scan::NodeScan)).
    pub(crate) part: Vec<u8>,
}
