//! What window queries keep between queries: the TreeDir indexed by node ID and
//! by block, with the first file-level `check` error ([`TreeIndex`]), and the
//! buffers a query fills ([`WindowCache`]).

use crate::error::FileRuleError;
use crate::types::*;
use crate::window::WindowBuf;

/// The entries of `entries` sorted by node ID, one per ID: the last of the
/// TreeDir's with that ID, as a map filled in TreeDir order keeps it. A
/// TreeDir is written in ID order, so the sort (stable, run-adaptive) is a
/// pass over it; the first window of every file opened pays for it (a
/// B-tree map and two hash maps of a 16,755-node TreeDir cost about 2 ms).
pub(crate) fn by_id(entries: &[TreeDirEntry]) -> Vec<TreeDirEntry> {
    let mut v = entries.to_vec();
    if !v.is_sorted_by_key(|e| e.id) {
        v.sort_by_key(|e| e.id);
    }
    // `dedup_by` keeps the first of equal neighbours: give it the later's value.
    v.dedup_by(|later, kept| {
        let same = later.id == kept.id;
        if same {
            *kept = *later;
        }
        same
    });
    v
}

/// The TreeDir entries by node ID: sorted, looked up by binary search.
#[derive(Debug, Default)]
pub(crate) struct DirById(Vec<TreeDirEntry>);

impl DirById {
    /// The entry of node `id`.
    pub(crate) fn get(&self, id: &NodeId) -> Option<&TreeDirEntry> {
        let i = self.0.binary_search_by_key(id, |e| e.id).ok()?;
        self.0.get(i)
    }

    /// Whether the TreeDir has no entries.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The entries, in ID order.
    pub(crate) fn values(&self) -> impl Iterator<Item = &TreeDirEntry> {
        self.0.iter()
    }
}

/// The block pointers of the TreeDir entries: sorted, without repeats.
#[derive(Debug, Default)]
pub(crate) struct Blocks(Vec<FileBlockPtr>);

impl Blocks {
    /// Whether `p` is the pointer of a TreeDir entry.
    pub(crate) fn contains(&self, p: &FileBlockPtr) -> bool {
        self.0.binary_search(p).is_ok()
    }
}

/// The TreeDir by node ID and by block pointer, and the first error the
/// file-level rules of `check` find in the header, the maps or the TreeDir:
/// what a window query checks once per file.
#[derive(Debug)]
pub(crate) struct TreeIndex {
    /// The TreeDir entries by node ID.
    pub(crate) dir: DirById,
    /// The TreeDir's root entry (deepest, then lowest xpos), if any.
    pub(crate) root: Option<NodeId>,
    /// The block pointers of the TreeDir entries.
    pub(crate) blocks: Blocks,
    /// The first error-severity file rule broken, if any.
    pub(crate) file_error: Option<FileRuleError>,
}

impl TreeIndex {
    /// Indexes `tree_dir` (none: an empty index), with the file's first
    /// file-level error.
    pub(crate) fn new(tree_dir: Option<&TreeDir>, file_error: Option<FileRuleError>) -> TreeIndex {
        let entries = tree_dir.map_or(&[][..], |t| &t.entries[..]);
        let mut blocks: Vec<FileBlockPtr> = entries.iter().map(|e| e.ptr).collect();
        blocks.sort();
        blocks.dedup();
        TreeIndex {
            dir: DirById(by_id(entries)),
            root: tree_dir.and_then(|t| t.root().map(|e| e.id)),
            blocks: Blocks(blocks),
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
