//! What window queries keep between queries: the TreeDir indexed by node ID and
//! by block, with the first file-level `check` error ([`TreeIndex`]), and the
//! buffers a query fills ([`WindowCache`]).

use crate::error::FileRuleError;
use crate::types::*;
use crate::window::WindowBuf;

/// The entries of `entries` sorted by node ID, one per ID: the last of the
/// TreeDir's with that ID, as a map filled in TreeDir order keeps it. A
/// TreeDir is written depth descending, xpos ascending (Java's order), so
/// its depth groups in reverse are the ID order: a copy, not a sort, at the
/// first window of every file opened (a B-tree map and two hash maps of a
/// 16,755-node TreeDir cost about 2 ms). Any other order is sorted (stably).
pub(crate) fn by_id(entries: &[TreeDirEntry]) -> Vec<TreeDirEntry> {
    let mut v = Vec::with_capacity(entries.len());
    if entries.is_sorted_by_key(|e| (std::cmp::Reverse(e.id.depth), e.id.xpos)) {
        for group in entries.chunk_by(|a, b| a.id.depth == b.id.depth).rev() {
            v.extend_from_slice(group);
        }
    } else {
        v.extend_from_slice(entries);
        if !v.is_sorted_by_key(|e| e.id) {
            v.sort_by_key(|e| e.id);
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(depth: i16, xpos: i32, offset: i64) -> TreeDirEntry {
        TreeDirEntry {
            id: NodeId { depth, xpos },
            earliest: 0.0,
            latest: 1.0,
            ptr: FileBlockPtr { offset, size: 1 },
        }
    }

    /// A TreeDir in Java's order (depth descending, xpos ascending) and the
    /// same entries in any other order give the entries in ID order, one
    /// per ID: the last of the TreeDir's with that ID.
    #[test]
    fn by_id_is_id_order_with_the_last_of_each_id() {
        let java = [
            entry(2, 0, 1),
            entry(1, 0, 2),
            entry(1, 1, 3),
            entry(1, 1, 4),
            entry(0, 0, 5),
            entry(0, 1, 6),
            entry(0, 2, 7),
        ];
        let want: Vec<(i16, i32, i64)> = vec![
            (0, 0, 5),
            (0, 1, 6),
            (0, 2, 7),
            (1, 0, 2),
            (1, 1, 4),
            (2, 0, 1),
        ];
        let got = |v: Vec<TreeDirEntry>| -> Vec<(i16, i32, i64)> {
            v.iter()
                .map(|e| (e.id.depth, e.id.xpos, e.ptr.offset))
                .collect()
        };
        assert_eq!(got(by_id(&java)), want);
        let mut other = java.to_vec();
        other.swap(0, 5);
        assert_eq!(got(by_id(&other)), want);
        let index = TreeIndex::new(
            Some(&TreeDir {
                entries: java.to_vec(),
            }),
            None,
        );
        assert_eq!(
            index
                .dir
                .get(&NodeId { depth: 1, xpos: 1 })
                .map(|e| e.ptr.offset),
            Some(4)
        );
        assert!(index.dir.get(&NodeId { depth: 3, xpos: 0 }).is_none());
        assert!(index.blocks.contains(&FileBlockPtr { offset: 3, size: 1 }));
        assert!(!index.blocks.contains(&FileBlockPtr { offset: 9, size: 1 }));
    }
}
