//! What a [`Finding`](crate::check::Finding) found, with its values: `check`'s
//! findings are typed; their `Display` is the message people read.

use crate::types::{topology, FileBlockPtr, NodeId};

/// A pointer field of the SLOG-2 header ([`Detail::NullPointer`],
/// [`Detail::UnusedPointer`]).
///
/// ```
/// use slog2_format::check::HeaderPointer;
/// assert_eq!(HeaderPointer::TreeRoot.to_string(), "treeroot");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HeaderPointer {
    /// The CategoryMap's.
    Categories,
    /// The LineIDMapList's.
    LineIdMaps,
    /// The tree root's.
    TreeRoot,
    /// The TreeDir's.
    TreeDir,
    /// The method definitions' (unused by every reader).
    MethodDefs,
    /// The annotations' (unused by every reader).
    Annotations,
    /// The postamble's (unused by every reader).
    Postamble,
}

impl std::fmt::Display for HeaderPointer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            HeaderPointer::Categories => "categories",
            HeaderPointer::LineIdMaps => "lineidmaps",
            HeaderPointer::TreeRoot => "treeroot",
            HeaderPointer::TreeDir => "treedir",
            HeaderPointer::MethodDefs => "methoddefs",
            HeaderPointer::Annotations => "annotations",
            HeaderPointer::Postamble => "postamble",
        })
    }
}

/// The reader's error that ended a check ([`Detail::Refused`]), shared so that
/// a finding stays `Clone`: match [`error`](Self::error) for what the reader
/// refused. Its `Display` is the error's [`detail`](crate::Error::detail).
///
/// [`Error`](crate::Error) is not `PartialEq` (it can hold an I/O error), so two
/// refusals are equal when they hold the same error: a finding equals its
/// clones.
///
/// ```
/// use slog2_format::check::{check, Detail};
/// let findings = check(std::io::Cursor::new(b"not a trace"), 10);
/// let Detail::Refused(r) = &findings[0].detail else { panic!("{findings:?}") };
/// assert!(matches!(r.error(), slog2_format::Error::NotSlog2 { .. }), "{r:?}");
/// assert_eq!(r.to_string(), r.error().detail());
/// assert_eq!(findings[0].clone(), findings[0]);
/// ```
#[derive(Debug, Clone)]
pub struct Refusal(std::sync::Arc<crate::Error>);

impl Refusal {
    /// Holds `error`.
    ///
    /// ```
    /// let r = slog2_format::check::Refusal::new(slog2_format::Error::Empty);
    /// assert!(matches!(r.error(), slog2_format::Error::Empty));
    /// ```
    pub fn new(error: crate::Error) -> Refusal {
        Refusal(std::sync::Arc::new(error))
    }

    /// The reader's error.
    ///
    /// ```
    /// let r = slog2_format::check::Refusal::new(slog2_format::Error::Empty);
    /// assert_eq!(r.error().offset(), None);
    /// ```
    pub fn error(&self) -> &crate::Error {
        &self.0
    }
}

impl PartialEq for Refusal {
    fn eq(&self, other: &Refusal) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.detail())
    }
}

/// What a [`Finding`](crate::check::Finding) found, with the values its message
/// names; [`Finding::problem`](crate::check::Finding::problem) is the rule it breaks.
///
/// ```
/// use slog2_format::check::{Detail, HeaderPointer};
/// let d = Detail::NullPointer { pointer: HeaderPointer::TreeDir };
/// assert_eq!(d.to_string(), "the treedir pointer is NULL; Jumpshot-4 exits");
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Detail {
    /// The reader refused the file (a parse error ends the check): its error.
    Refused(Refusal),
    /// The version is SLOG 2.0.5.
    OldVersion,
    /// `num_children_per_node` is below 2.
    FewChildren {
        /// The header's value.
        children: i16,
    },
    /// A header pointer every reader needs is NULL.
    NullPointer {
        /// Which.
        pointer: HeaderPointer,
    },
    /// A header pointer no reader uses is not NULL.
    UnusedPointer {
        /// Which.
        pointer: HeaderPointer,
    },
    /// A block has bytes after its content.
    TrailingBytes {
        /// The block ([`Part::CategoryMap`](crate::error::Part::CategoryMap),
        /// [`LineIdMaps`](crate::error::Part::LineIdMaps) or
        /// [`TreeDir`](crate::error::Part::TreeDir)).
        block: crate::error::Part,
        /// How many.
        bytes: usize,
    },
    /// A category index appears twice in the CategoryMap.
    DuplicateCategory {
        /// The index.
        index: i32,
    },
    /// A category's topology code is not 0, 1 or 2.
    BadTopology {
        /// The category's index.
        index: i32,
        /// Its topology code.
        topology: i32,
    },
    /// A category's key count is not its type count plus one.
    KeyCount {
        /// The category's index.
        index: i32,
        /// Its keys.
        keys: usize,
        /// Its types.
        types: usize,
    },
    /// The LineIDMapList holds no map.
    NoLineIdMap,
    /// A line-ID map has fewer than one column or duplicate rows.
    BadLineIdMap {
        /// The map's title.
        title: String,
        /// Its column count.
        columns: i32,
        /// Whether two rows have one line ID.
        duplicate_rows: bool,
    },
    /// TreeDir entries share an ID.
    SharedDirIds {
        /// How many entries more than IDs.
        entries: usize,
    },
    /// A TreeDir entry has a negative depth or xpos.
    NegativeDirId {
        /// The entry's ID.
        id: NodeId,
    },
    /// A node's block overlaps another block.
    BlocksOverlap {
        /// The node.
        id: NodeId,
        /// Its TreeDir pointer.
        ptr: FileBlockPtr,
        /// Where the block it overlaps ends.
        other_end: u64,
    },
    /// No TreeDir entry has depth 0.
    NoRoot,
    /// The header's treeroot is not the TreeDir's root.
    RootMismatch {
        /// The header's treeroot pointer.
        treeroot: FileBlockPtr,
        /// The TreeDir's root.
        root: NodeId,
        /// The TreeDir's pointer to it.
        root_ptr: FileBlockPtr,
    },
    /// `max_treedepth` is not the root's depth.
    MaxTreeDepth {
        /// The header's value.
        header: i16,
        /// The root's depth.
        root: i16,
    },
    /// A node starts before the one before it at its depth ends.
    NodesOverlap {
        /// The node.
        id: NodeId,
        /// Its start.
        earliest: f64,
        /// The node before it.
        previous: NodeId,
        /// That node's end.
        previous_latest: f64,
    },
    /// A node has bytes after its content.
    NodeTrailingBytes {
        /// How many.
        bytes: usize,
    },
    /// A node's own pointer is not the TreeDir's.
    NodePointer {
        /// The node header's pointer.
        says: FileBlockPtr,
        /// The TreeDir's, which it was read from.
        read_from: FileBlockPtr,
    },
    /// A node header's ID or box is not the TreeDir's.
    NodeHeader {
        /// The TreeDir's ID.
        dir_id: NodeId,
        /// The TreeDir's box.
        dir_box: [f64; 2],
        /// The node header's ID.
        node_id: NodeId,
        /// The node header's box.
        node_box: [f64; 2],
    },
    /// A drawable or shadow is out of start order.
    Unsorted {
        /// Drawables or shadows.
        drawn: crate::error::Drawn,
        /// Its start.
        start: f64,
        /// The start of the one before it.
        previous_start: f64,
    },
    /// A drawable lies outside its node's box.
    OutsideNode {
        /// The drawable's earliest and latest times.
        drawable: [f64; 2],
        /// The node's box.
        node_box: [f64; 2],
    },
    /// A composite has no parts.
    EmptyComposite,
    /// A composite's category is not in the CategoryMap.
    UnknownCompositeCategory {
        /// The category.
        category: i32,
    },
    /// A drawable's info bytes do not decode with its category's formats.
    Info {
        /// The category.
        category: i32,
        /// Why.
        error: crate::info::InfoError,
    },
    /// A category has formats but the drawable no info bytes.
    NoInfo {
        /// The category.
        category: i32,
    },
    /// A drawable has info bytes but its category no formats.
    UnexpectedInfo {
        /// The category.
        category: i32,
        /// How many bytes.
        bytes: usize,
    },
    /// A primitive has no vertices.
    NoVertices {
        /// Its category.
        category: i32,
    },
    /// A primitive's category is not in the CategoryMap.
    UnknownCategory {
        /// The category.
        category: i32,
    },
    /// A primitive has another number of vertices than its topology.
    VertexCount {
        /// Its category's topology code.
        topology: i32,
        /// Its category.
        category: i32,
        /// Its vertices.
        vertices: usize,
    },
    /// A vertex's line ID is not in a line-ID map.
    UnknownLineId {
        /// The line ID.
        line_id: i32,
        /// The map's title.
        map: String,
    },
    /// A node above the leaves has no stubs.
    NoStubs {
        /// The node.
        id: NodeId,
    },
    /// A leaf has stubs.
    LeafWithStubs,
    /// A stub's ID is not one of its node's children.
    NotAChild {
        /// The stub's ID.
        stub: NodeId,
        /// The node.
        node: NodeId,
        /// The header's children per node.
        children: i32,
    },
    /// A stub's ID has no TreeDir entry.
    StubNotInTreeDir {
        /// The stub's ID.
        stub: NodeId,
    },
    /// A stub's pointer is not its child's.
    StubPointer {
        /// The stub's ID.
        stub: NodeId,
        /// The stub's pointer.
        ptr: FileBlockPtr,
        /// The TreeDir's pointer to the child.
        child: FileBlockPtr,
    },
    /// A shadow's category is not a preview category.
    ShadowCategory {
        /// The category.
        category: i32,
    },
    /// A shadow's weight counts do not add up to its `num_real_objs`.
    WeightCounts {
        /// Their sum.
        sum: i64,
        /// The shadow's `num_real_objs`.
        num_real_objs: i64,
    },
    /// A shadow has no category weights.
    NoWeights,
    /// A shadow weight's category is not in the CategoryMap.
    WeightCategory {
        /// The category.
        category: i32,
    },
    /// `max_buffer_bytesize` is larger than the largest block.
    BufferTooLarge {
        /// The header's value.
        max_buffer_bytesize: i32,
        /// The largest block's size.
        largest: i32,
    },
}

impl std::fmt::Display for Detail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let id = |n: &NodeId| format!("({},{})", n.depth, n.xpos);
        let ptr = |p: &FileBlockPtr| format!("{}@{}", p.size, p.offset);
        match self {
            Detail::Refused(refusal) => refusal.fmt(f),
            Detail::OldVersion => f.write_str(
                "version is \"SLOG 2.0.5\"; convert it with `mpelog convert FILE -o NEW.slog2`",
            ),
            Detail::FewChildren { children } => write!(f, "num_children_per_node is {children}"),
            Detail::NullPointer { pointer } => {
                write!(f, "the {pointer} pointer is NULL; Jumpshot-4 exits")
            }
            Detail::UnusedPointer { pointer } => {
                write!(f, "the {pointer} pointer is not NULL; no reader uses it")
            }
            Detail::TrailingBytes { block, bytes } => {
                write!(f, "{block} block has {bytes} bytes after its content")
            }
            Detail::DuplicateCategory { index } => write!(f, "category index {index} appears twice"),
            Detail::BadTopology { index, topology } => {
                write!(f, "category {index} has topology code {topology}")
            }
            Detail::KeyCount { index, keys, types } => {
                write!(f, "category {index} has {keys} keys for {types} types")
            }
            Detail::NoLineIdMap => f.write_str("the LineIDMapList holds no map"),
            Detail::BadLineIdMap {
                title,
                columns,
                duplicate_rows,
            } => write!(
                f,
                "line-ID map {title:?} has {columns} columns{}",
                if *duplicate_rows { " and duplicate rows" } else { "" }
            ),
            Detail::SharedDirIds { entries } => write!(f, "{entries} TreeDir entries share an ID"),
            Detail::NegativeDirId { id: n } => {
                write!(f, "TreeDir entry {} has a negative depth or xpos", id(n))
            }
            Detail::BlocksOverlap { id: n, ptr: p, other_end } => write!(
                f,
                "the block of node {} at {} overlaps another block (which ends at byte {other_end})",
                id(n),
                ptr(p)
            ),
            Detail::NoRoot => f.write_str("no TreeDir entry has depth 0"),
            Detail::RootMismatch {
                treeroot,
                root,
                root_ptr,
            } => write!(
                f,
                "treeroot points at {} but the TreeDir's root {} is at {}",
                ptr(treeroot),
                id(root),
                ptr(root_ptr)
            ),
            Detail::MaxTreeDepth { header, root } => write!(
                f,
                "max_treedepth is {header} but the root has depth {root}"
            ),
            Detail::NodesOverlap {
                id: n,
                earliest,
                previous,
                previous_latest,
            } => write!(
                f,
                "node {} starts at {earliest:?}, before node {} ends at {previous_latest:?}",
                id(n),
                id(previous)
            ),
            Detail::NodeTrailingBytes { bytes } => {
                write!(f, "{bytes} bytes after the node's content")
            }
            Detail::NodePointer { says, read_from } => write!(
                f,
                "the node says it is {} but was read from {}",
                ptr(says),
                ptr(read_from)
            ),
            Detail::NodeHeader {
                dir_id,
                dir_box,
                node_id,
                node_box,
            } => write!(
                f,
                "TreeDir says {} [{:?},{:?}], the node header says {} [{:?},{:?}]",
                id(dir_id),
                dir_box[0],
                dir_box[1],
                id(node_id),
                node_box[0],
                node_box[1]
            ),
            Detail::Unsorted {
                drawn,
                start,
                previous_start,
            } => write!(
                f,
                "a {drawn} starting at {start:?} follows one starting at {previous_start:?}"
            ),
            Detail::OutsideNode { drawable, node_box } => write!(
                f,
                "drawable [{:?},{:?}] lies outside the node's box [{:?},{:?}]",
                drawable[0], drawable[1], node_box[0], node_box[1]
            ),
            Detail::EmptyComposite => f.write_str("a composite has no parts"),
            Detail::UnknownCompositeCategory { category } => write!(
                f,
                "composite category {category} is not in the CategoryMap"
            ),
            Detail::Info { category, error } => write!(f, "category {category}: {error}"),
            Detail::NoInfo { category } => write!(
                f,
                "category {category} has formats but the drawable has no info"
            ),
            Detail::UnexpectedInfo { category, bytes } => write!(
                f,
                "the drawable has {bytes} info bytes but category {category} has no formats"
            ),
            Detail::NoVertices { category } => {
                write!(f, "a primitive of category {category} has no vertices")
            }
            Detail::UnknownCategory { category } => write!(
                f,
                "category {category} is not in the CategoryMap (Jumpshot invents an \"UnknownType\" state)"
            ),
            Detail::VertexCount {
                topology: topo,
                category,
                vertices,
            } => write!(
                f,
                "a {} of category {category} has {vertices} vertices",
                topology::name(*topo)
            ),
            Detail::UnknownLineId { line_id, map } => write!(
                f,
                "line ID {line_id} is missing from the line-ID map {map:?}"
            ),
            Detail::NoStubs { id: n } => write!(
                f,
                "node {} has depth {} but no child stubs",
                id(n),
                n.depth
            ),
            Detail::LeafWithStubs => f.write_str("a leaf has child stubs"),
            Detail::NotAChild {
                stub,
                node,
                children,
            } => write!(
                f,
                "stub {} is not a child of node {} with {children} children per node",
                id(stub),
                id(node)
            ),
            Detail::StubNotInTreeDir { stub } => {
                write!(f, "stub {} has no TreeDir entry", id(stub))
            }
            Detail::StubPointer {
                stub,
                ptr: p,
                child,
            } => write!(
                f,
                "stub {} points at {} but the child is at {}",
                id(stub),
                ptr(p),
                ptr(child)
            ),
            Detail::ShadowCategory { category } => write!(
                f,
                "shadow category {category} is not a preview category of the map"
            ),
            Detail::WeightCounts { sum, num_real_objs } => write!(
                f,
                "weight counts add up to {sum}, num_real_objs is {num_real_objs}"
            ),
            Detail::NoWeights => f.write_str("a shadow has no category weights"),
            Detail::WeightCategory { category } => write!(
                f,
                "a shadow weight names category {category}, which is not in the CategoryMap"
            ),
            Detail::BufferTooLarge {
                max_buffer_bytesize,
                largest,
            } => write!(
                f,
                "max_buffer_bytesize is {max_buffer_bytesize} but the largest block has {largest} bytes"
            ),
        }
    }
}
