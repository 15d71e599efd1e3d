//! Each way a window query (or `dump::tree`) finds a node out of place in the
//! tree is an `Error::BadTree` whose `TreeProblem` carries the node IDs,
//! pointers and boxes its message names, at the offset `check` reports. No
//! corpus: a generated file, changed byte by byte.

mod common;

use common::{generated, tree_entries};
use slog2_format::check::Problem;
use slog2_format::error::TreeProblem;
use slog2_format::types::{FileBlockPtr, NodeId, TreeDirEntry};
use slog2_format::{Error, Slog2Reader};
use std::io::Cursor;

/// A plain file with a tree of several levels (K = 2).
fn file() -> Vec<u8> {
    generated(2, 400, 1024, 2, 11)
}

fn entry(b: &[u8], id: NodeId) -> TreeDirEntry {
    tree_entries(b).into_iter().find(|e| e.id == id).unwrap()
}

fn root(b: &[u8]) -> TreeDirEntry {
    common::root_entry(b)
}

fn ptr_bytes(p: FileBlockPtr) -> Vec<u8> {
    let mut v = p.offset.to_be_bytes().to_vec();
    v.extend_from_slice(&p.size.to_be_bytes());
    v
}

/// The offset of the pointer field of the stub for `child` in node `parent`'s
/// block (the stub's header ends with the child's pointer).
fn stub_ptr_at(b: &[u8], parent: &TreeDirEntry, child: &TreeDirEntry) -> usize {
    let start = parent.ptr.offset as usize + 34;
    let end = parent.ptr.offset as usize + parent.ptr.size as usize;
    let want = ptr_bytes(child.ptr);
    start + b[start..end].windows(12).position(|w| w == want).unwrap()
}

/// The offset and problem of a window over the whole file.
fn refusal(b: &[u8]) -> (u64, TreeProblem) {
    let mut r = Slog2Reader::new(Cursor::new(b)).unwrap();
    match r.window(f64::NEG_INFINITY, f64::INFINITY) {
        Err(Error::BadTree {
            offset, problem, ..
        }) => (offset, problem),
        other => panic!("expected a tree error, got {other:?}"),
    }
}

#[test]
fn a_node_that_disagrees_with_its_tree_dir_entry_names_both() {
    let orig = file();
    let leaf = NodeId { depth: 0, xpos: 0 };
    let e = entry(&orig, leaf);
    let base = e.ptr.offset as usize;
    // The block says it is another node.
    let mut b = orig.clone();
    b[base + 18..base + 22].copy_from_slice(&99i32.to_be_bytes());
    let found = NodeId { depth: 0, xpos: 99 };
    let want = TreeProblem::IdDisagrees {
        block: base as u64,
        found,
        want: leaf,
    };
    assert_eq!(refusal(&b), (base as u64 + 16, want.clone()));
    assert_eq!(
        want.to_string(),
        format!(
            "the block at byte {base} says it is node (0,99), its pointer is that of node (0,0)"
        )
    );
    // Its own pointer says another size.
    let mut b = orig.clone();
    let own = FileBlockPtr {
        size: e.ptr.size + 1,
        ..e.ptr
    };
    b[base + 30..base + 34].copy_from_slice(&own.size.to_be_bytes());
    let want = TreeProblem::PointerDisagrees {
        node: leaf,
        read: e.ptr,
        own,
        entry: e.ptr,
    };
    assert_eq!(refusal(&b), (base as u64 + 22, want));
    // Its box starts a second earlier.
    let mut b = orig.clone();
    let earliest = e.earliest - 1.0;
    b[base..base + 8].copy_from_slice(&earliest.to_be_bytes());
    let want = TreeProblem::BoxDisagrees {
        node: leaf,
        own: [earliest, e.latest],
        entry: [e.earliest, e.latest],
    };
    let (offset, p) = refusal(&b);
    assert_eq!((offset, &p), (base as u64, &want));
    assert_eq!(p.problem(), Problem::DirMismatch);
}

#[test]
fn a_stub_that_leads_nowhere_right_names_the_stub_and_pointers() {
    let orig = file();
    let root = root(&orig);
    let child = NodeId {
        depth: root.id.depth - 1,
        xpos: 0,
    };
    let c = entry(&orig, child);
    let field = stub_ptr_at(&orig, &root, &c);
    // The stub names a node that is no child of the root.
    let mut b = orig.clone();
    b[field - 4..field].copy_from_slice(&1000i32.to_be_bytes());
    let stub = NodeId {
        depth: child.depth,
        xpos: 1000,
    };
    let want = TreeProblem::NotAChild {
        stub,
        parent: root.id,
        children: 2,
    };
    assert_eq!(refusal(&b), (field as u64 - 6, want));
    // The stub points into the middle of its child's block.
    let mut b = orig.clone();
    let ptr = FileBlockPtr {
        offset: c.ptr.offset + 2,
        size: c.ptr.size - 2,
    };
    b[field..field + 12].copy_from_slice(&ptr_bytes(ptr));
    let want = TreeProblem::NoNodeThere { stub: child, ptr };
    assert_eq!(refusal(&b), (field as u64, want));
}

#[test]
fn a_tree_root_other_than_the_tree_dirs_is_a_file_rule() {
    let orig = file();
    let leaf = entry(&orig, NodeId { depth: 0, xpos: 0 });
    let mut b = orig.clone();
    b[60..72].copy_from_slice(&ptr_bytes(leaf.ptr));
    let (offset, p) = refusal(&b);
    assert_eq!(offset, 60);
    assert_eq!(p.file_rule(), Some(Problem::RootMismatch), "{p:?}");
}

#[test]
fn dump_names_a_stub_without_tree_dir_entry() {
    let orig = file();
    let root = root(&orig);
    let child = NodeId {
        depth: root.id.depth - 1,
        xpos: 1,
    };
    let field = stub_ptr_at(&orig, &root, &entry(&orig, child));
    let mut b = orig.clone();
    b[field - 4..field].copy_from_slice(&1001i32.to_be_bytes());
    let mut r = Slog2Reader::new(Cursor::new(&b[..])).unwrap();
    match slog2_format::dump::tree(&mut r, 0, |_| {}) {
        Err(Error::BadTree {
            offset,
            node,
            problem,
        }) => {
            let stub = NodeId {
                depth: child.depth,
                xpos: 1001,
            };
            assert_eq!((offset, node), (root.ptr.offset as u64, root.id));
            assert_eq!(problem, TreeProblem::NotInTreeDir { stub });
        }
        other => panic!("{other:?}"),
    }
}
