//! What is wrong with a node's place in the tree
//! ([`Error::BadTree`](crate::Error::BadTree)), with its values.

use super::{Part, Problem};
use crate::types::{FileBlockPtr, NodeId};

/// What is wrong with a node's place in the tree (window queries, spec/queries.md
/// §2.2, and [`dump::tree`](crate::dump::tree)), with the values the message
/// names. Each variant's doc gives the rule of `check` it breaks and the offset
/// of the [`Error::BadTree`](crate::Error::BadTree) that carries it.
///
/// ```
/// use slog2_format::check::Problem;
/// use slog2_format::error::TreeProblem;
/// use slog2_format::types::NodeId;
/// let p = TreeProblem::NotInTreeDir { stub: NodeId { depth: 0, xpos: 5 } };
/// assert_eq!(p.to_string(), "stub (0,5) has no TreeDir entry");
/// assert_eq!(p.problem(), Problem::BadStub);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum TreeProblem {
    /// The block read says it is another node than the one its pointer leads
    /// to (`check`: S2-DIR-003). Offset: the node's ID field.
    IdDisagrees {
        /// The block's offset.
        block: u64,
        /// The ID the block holds.
        found: NodeId,
        /// The node whose pointer leads to it.
        want: NodeId,
    },
    /// A node's own pointer, the pointer it was read from and its TreeDir
    /// entry's pointer are not all the same (S2-DIR-003). Offset: the node's
    /// own pointer field.
    PointerDisagrees {
        /// The node.
        node: NodeId,
        /// The pointer it was read from.
        read: FileBlockPtr,
        /// The pointer its header holds.
        own: FileBlockPtr,
        /// Its TreeDir entry's pointer.
        entry: FileBlockPtr,
    },
    /// A node's time box differs from its TreeDir entry's (S2-DIR-003). Offset:
    /// the node's block.
    BoxDisagrees {
        /// The node.
        node: NodeId,
        /// The node's own box, `[earliest, latest]`.
        own: [f64; 2],
        /// Its TreeDir entry's box.
        entry: [f64; 2],
    },
    /// A stub names a node that is not a child of its node with K children
    /// per node (S2-TREE-002). Offset: the stub's ID field.
    NotAChild {
        /// The node the stub names.
        stub: NodeId,
        /// The node that holds the stub.
        parent: NodeId,
        /// Children per node (the header's K).
        children: i32,
    },
    /// A stub names a node that the TreeDir does not hold (S2-TREE-002).
    /// Offset: the stub's ID field (for `dump::tree`, the node's block).
    NotInTreeDir {
        /// The node the stub names.
        stub: NodeId,
    },
    /// A stub points elsewhere than its child's TreeDir entry (S2-TREE-002).
    /// Offset: the stub's pointer field.
    PointsElsewhere {
        /// The node the stub names.
        stub: NodeId,
        /// The stub's pointer.
        ptr: FileBlockPtr,
        /// The child's TreeDir pointer.
        child: FileBlockPtr,
    },
    /// A stub points at a block where the TreeDir has no node (S2-TREE-002).
    /// Offset: the stub's pointer field.
    NoNodeThere {
        /// The node the stub names.
        stub: NodeId,
        /// The stub's pointer.
        ptr: FileBlockPtr,
    },
    /// A node above the leaves without stubs (S2-TREE-001). Offset: the stub
    /// count.
    NoStubs {
        /// The node.
        node: NodeId,
    },
    /// A leaf with stubs (S2-TREE-002). Offset: the stub count.
    LeafWithStubs {
        /// The leaf.
        node: NodeId,
    },
    /// A stub (or the header's treeroot pointer) leads to a block that the
    /// query has read already: the tree has a cycle or a shared node
    /// (S2-TREE-002). Offset: the pointer field. Reported whatever the
    /// validation.
    ReadTwice {
        /// The pointer ([`Part::TreeRoot`] or [`Part::Stub`]).
        pointer: Part,
        /// The offset of the block it leads to.
        block: i64,
    },
    /// [`dump::tree`](crate::dump::tree) meets a block a second time
    /// (S2-TREE-002). Offset: the block.
    ReachedTwice {
        /// The block's offset.
        block: i64,
    },
    /// The block a stub leads to holds a node whose depth is not the one the
    /// stub names (S2-TREE-002). Offset: the depth field of the block reached.
    /// Reported whatever the validation.
    WrongDepth {
        /// The node that holds the stub.
        parent: NodeId,
        /// The node the stub names.
        child: NodeId,
        /// The offset of the block it leads to.
        block: i64,
        /// The ID the block holds.
        found: NodeId,
    },
    /// A stub names a node that is not one level below its own node, or a leaf
    /// has a stub that meets the window (S2-TREE-002). Offset: the stub's depth
    /// field. Reported whatever the validation.
    NotOneLevelDown {
        /// The node that holds the stub.
        parent: NodeId,
        /// The node the stub names.
        stub: NodeId,
    },
    /// [`dump::tree`](crate::dump::tree) meets a stub that is not one level
    /// below its node (S2-TREE-002). Offset: the node's block.
    StubNotOneLevelDown {
        /// The node that holds the stub.
        parent: NodeId,
        /// The node the stub names.
        stub: NodeId,
    },
    /// The header's treeroot pointer differs from the TreeDir root's pointer
    /// (S2-DIR-002). Offset: the treeroot pointer field.
    RootElsewhere {
        /// The treeroot pointer.
        ptr: FileBlockPtr,
        /// The TreeDir's root.
        root: NodeId,
        /// Its TreeDir pointer.
        entry: FileBlockPtr,
    },
    /// The header, the line-ID maps or the TreeDir have the `check` problem
    /// named (one that [breaks readers](Problem::breaks_readers): a NULL
    /// pointer, K < 2, no line-ID map, a TreeDir without leaves, with duplicate
    /// IDs, a root other than treeroot, overlapping nodes). Offset: the one
    /// `check` reports.
    File {
        /// What `check` finds.
        problem: Problem,
        /// What `check` finds there, with its values (its
        /// [`Finding::detail`](crate::check::Finding::detail)).
        detail: super::Detail,
    },
}

impl TreeProblem {
    /// The problem `check` reports for the same thing.
    ///
    /// ```
    /// use slog2_format::check::{Detail, Problem};
    /// use slog2_format::error::TreeProblem;
    /// use slog2_format::types::NodeId;
    /// let node = NodeId { depth: 1, xpos: 0 };
    /// assert_eq!(TreeProblem::NoStubs { node }.problem(), Problem::NoStubs);
    /// let file = TreeProblem::File { problem: Problem::NoRoot, detail: Detail::NoRoot };
    /// assert_eq!(file.problem(), Problem::NoRoot);
    /// ```
    pub fn problem(&self) -> Problem {
        match self {
            TreeProblem::IdDisagrees { .. }
            | TreeProblem::PointerDisagrees { .. }
            | TreeProblem::BoxDisagrees { .. } => Problem::DirMismatch,
            TreeProblem::NoStubs { .. } => Problem::NoStubs,
            TreeProblem::RootElsewhere { .. } => Problem::RootMismatch,
            TreeProblem::File { problem, .. } => *problem,
            TreeProblem::NotAChild { .. }
            | TreeProblem::NotInTreeDir { .. }
            | TreeProblem::PointsElsewhere { .. }
            | TreeProblem::NoNodeThere { .. }
            | TreeProblem::LeafWithStubs { .. }
            | TreeProblem::ReadTwice { .. }
            | TreeProblem::ReachedTwice { .. }
            | TreeProblem::WrongDepth { .. }
            | TreeProblem::NotOneLevelDown { .. }
            | TreeProblem::StubNotOneLevelDown { .. } => Problem::BadStub,
        }
    }

    /// The rule of `check` about the header, the line-ID maps or the TreeDir
    /// that the file breaks, if that is what the problem is (a window query
    /// refuses such a file before it reads a node): `mpelog` names the rule
    /// beside the error.
    ///
    /// ```
    /// use slog2_format::check::Problem;
    /// use slog2_format::error::TreeProblem;
    /// use slog2_format::types::{FileBlockPtr, NodeId};
    /// let ptr = FileBlockPtr { offset: 400, size: 90 };
    /// let p = TreeProblem::RootElsewhere { ptr, root: NodeId::default(), entry: ptr };
    /// assert_eq!(p.file_rule(), Some(Problem::RootMismatch));
    /// assert_eq!(TreeProblem::ReachedTwice { block: 400 }.file_rule(), None);
    /// ```
    pub fn file_rule(&self) -> Option<Problem> {
        match self {
            TreeProblem::RootElsewhere { .. } | TreeProblem::File { .. } => Some(self.problem()),
            _ => None,
        }
    }
}

impl std::fmt::Display for TreeProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let id = |n: &NodeId| format!("({},{})", n.depth, n.xpos);
        match self {
            TreeProblem::IdDisagrees { block, found, want } => write!(
                f,
                "the block at byte {block} says it is node {}, its pointer is that of node {}",
                id(found),
                id(want)
            ),
            TreeProblem::PointerDisagrees {
                node,
                read,
                own,
                entry,
            } => write!(
                f,
                "node {} was read from {}@{} and says it is at {}@{}; its TreeDir entry says {}@{}",
                id(node),
                read.size,
                read.offset,
                own.size,
                own.offset,
                entry.size,
                entry.offset
            ),
            TreeProblem::BoxDisagrees { node, own, entry } => write!(
                f,
                "node {} has the box [{:?},{:?}], its TreeDir entry [{:?},{:?}]",
                id(node),
                own[0],
                own[1],
                entry[0],
                entry[1]
            ),
            TreeProblem::NotAChild {
                stub,
                parent,
                children,
            } => write!(
                f,
                "stub {} is not a child of node {} with {children} children per node",
                id(stub),
                id(parent)
            ),
            TreeProblem::NotInTreeDir { stub } => {
                write!(f, "stub {} has no TreeDir entry", id(stub))
            }
            TreeProblem::PointsElsewhere { stub, ptr, child } => write!(
                f,
                "stub {} points at {}@{} but the child is at {}@{}",
                id(stub),
                ptr.size,
                ptr.offset,
                child.size,
                child.offset
            ),
            TreeProblem::NoNodeThere { stub, ptr } => write!(
                f,
                "stub {} points at {}@{}, where the TreeDir has no node",
                id(stub),
                ptr.size,
                ptr.offset
            ),
            TreeProblem::NoStubs { node } => write!(
                f,
                "node {} has depth {} but no child stubs",
                id(node),
                node.depth
            ),
            TreeProblem::LeafWithStubs { node } => {
                write!(f, "leaf (0,{}) has child stubs", node.xpos)
            }
            TreeProblem::ReadTwice { pointer, block } => write!(
                f,
                "{pointer} points at the block at byte {block}, which this query has already read (the tree has a cycle or a shared node)"
            ),
            TreeProblem::ReachedTwice { block } => {
                write!(f, "the block at {block} is reached twice")
            }
            TreeProblem::WrongDepth {
                parent,
                child,
                block,
                found,
            } => write!(
                f,
                "{} points at the block at byte {block}, whose node ID is {}: its depth is not {}",
                Part::Stub {
                    parent: *parent,
                    child: *child
                },
                id(found),
                child.depth
            ),
            TreeProblem::NotOneLevelDown { parent, stub } => write!(
                f,
                "a stub in node {} names node {}, which is not one level below it",
                id(parent),
                id(stub)
            ),
            TreeProblem::StubNotOneLevelDown { parent, stub } => write!(
                f,
                "stub {} of node {} is not one level down",
                id(stub),
                id(parent)
            ),
            TreeProblem::RootElsewhere { ptr, root, entry } => write!(
                f,
                "treeroot points at {}@{} but the TreeDir's root {} is at {}@{}",
                ptr.size,
                ptr.offset,
                id(root),
                entry.size,
                entry.offset
            ),
            TreeProblem::File { detail, .. } => write!(f, "{detail}"),
        }
    }
}
