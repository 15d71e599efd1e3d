//! Declarative layouts of every SLOG-2 structure (binrw, big-endian, as Java's
//! `DataOutput` writes them).
//!
//! Counts come before their elements. binrw reads counted lists element by element
//! (byte lists through `take`), so a corrupt count cannot force an allocation larger
//! than the bytes actually present; every element is at least one byte, so parsing
//! time is bounded by the input too.

/// Bytes of a node frame's header (SLOG 2.0.6Z, spec/slog2-compressed.md).
pub const FRAME_HEADER_LEN: usize = 16;
/// Bytes of a tree node's header.
pub const NODE_HEADER_LEN: usize = 34;
/// Bytes before a node frame's payload: frame header and node header.
pub const PREFIX_LEN: usize = FRAME_HEADER_LEN + NODE_HEADER_LEN;

mod negative_count;
pub use negative_count::{Count, NegativeCount};

use binrw::binrw;

/// A Java string: `i16` byte count and the raw bytes. A count ≤ 0 means empty; the
/// count is kept as written so that a negative one round-trips.
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct JStr {
    /// The length as written.
    pub len: i16,
    /// The bytes (`max(len, 0)` of them).
    #[br(count = len.max(0))]
    pub bytes: Vec<u8>,
}

impl JStr {
    /// A string holding `s`, or its first [`JStr::MAX_BYTES`] bytes (cut at a
    /// character boundary) when it is longer: the count is an `i16`, and
    /// writers must write at most that many bytes (spec/slog2.md §2).
    ///
    /// ```
    /// use slog2_format::JStr;
    ///
    /// let name = JStr::new("MPI_Send");
    /// assert_eq!(name.len, 8);
    /// assert_eq!(name.to_string(), "MPI_Send");
    ///
    /// // A name too long for the count is cut, never written with a wrong count.
    /// let long = JStr::new(&"é".repeat(20_000));
    /// assert_eq!(long.len, 32766);
    /// assert_eq!(long.bytes.len(), 32766);
    /// ```
    pub fn new(s: &str) -> JStr {
        let mut end = s.len().min(JStr::MAX_BYTES);
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        JStr {
            len: end as i16,
            bytes: s.as_bytes()[..end].to_vec(),
        }
    }

    /// The most bytes a SLOG-2 string holds (`i16::MAX`).
    pub const MAX_BYTES: usize = i16::MAX as usize;

    /// The text, decoded lossily.
    ///
    /// ```
    /// use slog2_format::types::JStr;
    /// assert_eq!(JStr::new("MPI_Recv").text(), "MPI_Recv");
    /// let bad = JStr { len: 2, bytes: vec![b'a', 0xff] };
    /// assert_eq!(bad.text(), "a\u{fffd}"); // lossily
    /// ```
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }

    /// Bytes on disk.
    ///
    /// ```
    /// use slog2_format::types::JStr;
    /// assert_eq!(JStr::new("abc").disk_len(), 5); // a 2-byte length, then the bytes
    /// ```
    pub fn disk_len(&self) -> usize {
        2 + self.bytes.len()
    }
}

/// The text, decoded lossily (as [`JStr::text`]), so a name prints with `{}`.
///
/// ```
/// use slog2_format::types::JStr;
/// assert_eq!(format!("state {}", JStr::new("MPI_Send")), "state MPI_Send");
/// ```
impl std::fmt::Display for JStr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&String::from_utf8_lossy(&self.bytes))
    }
}

/// A file block pointer: absolute offset and size. NULL when `offset == 0` or
/// `size <= 0`.
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash, PartialOrd, Ord)]
pub struct FileBlockPtr {
    /// Absolute offset.
    pub offset: i64,
    /// Size in bytes.
    pub size: i32,
}

impl FileBlockPtr {
    /// The NULL pointer.
    pub const NULL: FileBlockPtr = FileBlockPtr { offset: 0, size: 0 };

    /// Whether this pointer is NULL (points nowhere).
    ///
    /// ```
    /// use slog2_format::FileBlockPtr;
    /// assert!(FileBlockPtr::NULL.is_null());
    /// assert!(FileBlockPtr { offset: 100, size: 0 }.is_null());
    /// assert!(!FileBlockPtr { offset: 100, size: 8 }.is_null());
    /// ```
    pub fn is_null(&self) -> bool {
        self.offset == 0 || self.size <= 0
    }
}

/// The 108-byte file header (for a 10-character version string).
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// Version string, `SLOG 2.0.6` or `SLOG 2.0.5`.
    pub version: JStr,
    /// Children per tree node (Jumpshot's zoom factor; ≥ 2).
    pub num_children_per_node: i16,
    /// Leaf size limit the writer used (informational).
    pub treeleaf_bytesize: i32,
    /// Depth of the root (leaves are depth 0).
    pub max_treedepth: i16,
    /// Largest block in the file; readers refuse larger blocks.
    pub max_buffer_bytesize: i32,
    /// The CategoryMap block.
    pub categories: FileBlockPtr,
    /// Method definitions (never written: NULL).
    pub methoddefs: FileBlockPtr,
    /// The LineIDMapList block.
    pub lineidmaps: FileBlockPtr,
    /// The root tree node.
    pub treeroot: FileBlockPtr,
    /// The TreeDir block.
    pub treedir: FileBlockPtr,
    /// Annotations (never written: NULL).
    pub annotations: FileBlockPtr,
    /// Postamble (never written: NULL).
    pub postamble: FileBlockPtr,
}

/// A tree node's ID: depth (leaves 0) and position at that depth.
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct NodeId {
    /// Depth; leaves are 0.
    pub depth: i16,
    /// Position among the nodes of this depth, in time order.
    pub xpos: i32,
}

/// One TreeDir entry (34 bytes).
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TreeDirEntry {
    /// The node.
    pub id: NodeId,
    /// Start of its time box.
    pub earliest: f64,
    /// End of its time box.
    pub latest: f64,
    /// Its block.
    pub ptr: FileBlockPtr,
}

/// The TreeDir block: every node's ID, time box and block pointer.
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TreeDir {
    #[br(temp, assert(count >= 0, NegativeCount { count: Count::TreeDir, value: count }))]
    #[bw(try_calc = i32::try_from(entries.len()))]
    count: i32,
    /// The entries (depth descending, then xpos ascending, as Java writes them).
    #[br(count = count)]
    pub entries: Vec<TreeDirEntry>,
}

impl TreeDir {
    /// The root: the deepest entry, the first in xpos among equals (`None`
    /// for an empty TreeDir). Its box is the file's time range.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// let r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// let root = r.tree_dir().unwrap().value.root().unwrap();
    /// assert_eq!(root.id.depth, r.header().max_treedepth);
    /// assert_eq!(root.ptr, r.header().treeroot);
    /// assert!(slog2_format::TreeDir::default().root().is_none());
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn root(&self) -> Option<&TreeDirEntry> {
        self.entries
            .iter()
            .max_by_key(|e| (e.id.depth, std::cmp::Reverse(e.id.xpos)))
    }
}

/// A vertex: time and timeline (line ID).
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Coord {
    /// Time in seconds.
    pub time: f64,
    /// Timeline.
    pub line_id: i32,
}

/// A state, arrow or event (the category's topology says which).
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, PartialEq)]
pub struct Primitive {
    /// Category index.
    pub category: i32,
    /// Opaque info buffer, decoded with the category's formats.
    pub info: JStr,
    #[br(temp, assert(nvertices >= 0, NegativeCount { count: Count::Vertex, value: nvertices.into() }))]
    #[bw(try_calc = i16::try_from(vertices.len()))]
    nvertices: i16,
    /// Vertices: 2 for states and arrows, 1 for events.
    #[br(count = nvertices)]
    pub vertices: Vec<Coord>,
}

/// A composite: a category, info, and primitives drawn together.
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, PartialEq)]
pub struct Composite {
    /// Category index.
    pub category: i32,
    /// Info buffer.
    pub info: JStr,
    #[br(temp, assert(nprimitives >= 0, NegativeCount { count: Count::Primitive, value: nprimitives.into() }))]
    #[bw(try_calc = i16::try_from(primitives.len()))]
    nprimitives: i16,
    /// The parts (no tag bytes).
    #[br(count = nprimitives)]
    pub primitives: Vec<Primitive>,
}

/// A real drawable in a node's list, with its tag byte.
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, PartialEq)]
pub enum Drawable {
    /// Tag 0.
    #[brw(magic = 0u8)]
    Primitive(Primitive),
    /// Tag 1.
    #[brw(magic = 1u8)]
    Composite(Composite),
}

/// Time spent per category inside a shadow. 2.0.5 has no `count`.
#[binrw]
#[brw(big)]
#[br(import(v206: bool))]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CategoryWeight {
    /// Category index.
    pub category: i32,
    /// Inclusive ratio.
    pub incl: f32,
    /// Exclusive ratio.
    pub excl: f32,
    /// Number of real drawables (2.0.6 only).
    #[br(if(v206))]
    pub count: Option<i64>,
}

/// A preview drawable summarizing many primitives of a child subtree.
#[binrw]
#[brw(big)]
#[br(import(v206: bool))]
#[derive(Debug, Clone, PartialEq)]
pub struct Shadow {
    /// Preview category (negative index).
    pub category: i32,
    /// Info buffer (always empty in files the Java tools wrote).
    pub info: JStr,
    #[br(temp, assert(nvertices >= 0, NegativeCount { count: Count::Vertex, value: nvertices.into() }))]
    #[bw(try_calc = i16::try_from(vertices.len()))]
    nvertices: i16,
    /// Mean vertex times of the represented primitives.
    #[br(count = nvertices)]
    pub vertices: Vec<Coord>,
    /// Start of the union of the represented boxes.
    pub earliest: f64,
    /// End of the union.
    pub latest: f64,
    /// Number of real primitives represented.
    pub num_real_objs: i64,
    #[br(temp, assert(nweights >= 0, NegativeCount { count: Count::Weight, value: nweights }))]
    #[bw(try_calc = i32::try_from(weights.len()))]
    nweights: i32,
    /// Per-category weights.
    #[br(count = nweights, args { inner: (v206,) })]
    pub weights: Vec<CategoryWeight>,
}

/// The 34-byte header of a tree node or of a child stub.
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeHeader {
    /// Start of the time box.
    pub earliest: f64,
    /// End of the time box.
    pub latest: f64,
    /// The node's ID.
    pub id: NodeId,
    /// The node's own block.
    pub ptr: FileBlockPtr,
}

/// A child stub inside a parent node: the child's header and its shadows.
#[binrw]
#[brw(big)]
#[br(import(v206: bool))]
#[derive(Debug, Clone, PartialEq)]
pub struct Stub {
    /// Describes the child.
    pub header: NodeHeader,
    #[br(temp, assert(n_nestless >= 0, NegativeCount { count: Count::Shadow, value: n_nestless }))]
    #[bw(try_calc = i32::try_from(nestless.len()))]
    n_nestless: i32,
    /// Arrow and event shadows (no tag bytes).
    #[br(count = n_nestless, args { inner: (v206,) })]
    pub nestless: Vec<Shadow>,
    #[br(temp, assert(n_nestable >= 0, NegativeCount { count: Count::Shadow, value: n_nestable }))]
    #[bw(try_calc = i32::try_from(nestable.len()))]
    n_nestable: i32,
    /// State shadows.
    #[br(count = n_nestable, args { inner: (v206,) })]
    pub nestable: Vec<Shadow>,
}

/// A tree node's content: header, real drawables, child stubs.
#[binrw]
#[brw(big)]
#[br(import(v206: bool))]
#[derive(Debug, Clone, PartialEq)]
pub struct TreeNodeBody {
    /// Time box, ID and own pointer.
    pub header: NodeHeader,
    #[br(temp, assert(n_nestless >= 0, NegativeCount { count: Count::Drawable, value: n_nestless }))]
    #[bw(try_calc = i32::try_from(nestless.len()))]
    n_nestless: i32,
    /// Arrows and events.
    #[br(count = n_nestless)]
    pub nestless: Vec<Drawable>,
    #[br(temp, assert(n_nestable >= 0, NegativeCount { count: Count::Drawable, value: n_nestable }))]
    #[bw(try_calc = i32::try_from(nestable.len()))]
    n_nestable: i32,
    /// States and composites.
    #[br(count = n_nestable)]
    pub nestable: Vec<Drawable>,
    #[br(temp, assert(n_stubs >= 0, NegativeCount { count: Count::Stub, value: n_stubs }))]
    #[bw(try_calc = i32::try_from(stubs.len()))]
    n_stubs: i32,
    /// One stub per child (none for leaves).
    #[br(count = n_stubs, args { inner: (v206,) })]
    pub stubs: Vec<Stub>,
}

/// A category's whole-file summary (2.0.6 only).
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CategorySummary {
    /// Inclusive ratio.
    pub incl: f32,
    /// Exclusive ratio.
    pub excl: f32,
    /// Number of real primitives.
    pub count: i64,
}

/// A legend entry.
///
/// `==` compares floats as floats: a category whose [`summary`](Self::summary)
/// holds a NaN ratio (Java's converter writes NaN for some event categories,
/// spec/conversion.md §8) is not equal to itself. Compare such entries
/// field by field, or their ratios with `f32::to_bits`.
///
/// ```
/// use slog2_format::types::{Category, CategorySummary, JStr};
/// let c = Category {
///     index: 3, name: JStr::new("MPI_Send"), topology: 1, argb: [255, 0, 0, 255],
///     modifiable: 1, width: 1, keys: vec![], types: vec![], methods: vec![],
///     summary: Some(CategorySummary { incl: f32::NAN, excl: 0.0, count: 0 }),
/// };
/// assert_ne!(c, c.clone()); // the NaN ratio
/// let bits = |c: &Category| c.summary.map(|s| (s.incl.to_bits(), s.excl.to_bits(), s.count));
/// assert_eq!(bits(&c), bits(&c.clone()));
/// ```
#[binrw]
#[brw(big)]
#[br(import(v206: bool))]
#[derive(Debug, Clone, PartialEq)]
pub struct Category {
    /// Index (negative for preview categories).
    pub index: i32,
    /// Name.
    pub name: JStr,
    /// 0 event, 1 state, 2 arrow.
    pub topology: i32,
    /// Colour bytes A, R, G, B.
    pub argb: [u8; 4],
    /// Colour "modifiable" flag (a Java boolean byte).
    pub modifiable: u8,
    /// Line width.
    pub width: i8,
    #[br(temp, assert(nkeys >= 0, NegativeCount { count: Count::Key, value: nkeys.into() }))]
    #[bw(try_calc = i16::try_from(keys.len()))]
    nkeys: i16,
    /// Info labels (one more than `types` when formats exist).
    #[br(count = nkeys)]
    pub keys: Vec<JStr>,
    #[br(temp, assert(ntypes >= 0, NegativeCount { count: Count::Type, value: ntypes.into() }))]
    #[bw(try_calc = i16::try_from(types.len()))]
    ntypes: i16,
    /// Info value format characters (`s h d l x X e E`).
    #[br(count = ntypes)]
    pub types: Vec<u8>,
    #[br(temp, assert(nmethods >= 0, NegativeCount { count: Count::Method, value: nmethods.into() }))]
    #[bw(try_calc = i16::try_from(methods.len()))]
    nmethods: i16,
    /// Method IDs (1 = connect composite states).
    #[br(count = nmethods)]
    pub methods: Vec<i32>,
    /// Summary (2.0.6 only).
    #[br(if(v206))]
    pub summary: Option<CategorySummary>,
}

/// Category topologies.
pub mod topology {
    /// An event: one vertex.
    pub const EVENT: i32 = 0;
    /// A state: two vertices on one line.
    pub const STATE: i32 = 1;
    /// An arrow: two vertices.
    pub const ARROW: i32 = 2;

    /// The name slog2print uses.
    ///
    /// ```
    /// use slog2_format::types::topology;
    /// assert_eq!(topology::name(topology::STATE), "State");
    /// assert_eq!(topology::name(9), "Unknown(9)");
    /// ```
    pub fn name(t: i32) -> String {
        match t {
            EVENT => "Event".into(),
            STATE => "State".into(),
            ARROW => "Arrow".into(),
            other => format!("Unknown({other})"),
        }
    }
}

/// The CategoryMap block.
#[binrw]
#[brw(big)]
#[br(import(v206: bool))]
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CategoryMap {
    #[br(temp, assert(count >= 0, NegativeCount { count: Count::Category, value: count }))]
    #[bw(try_calc = i32::try_from(categories.len()))]
    count: i32,
    /// The categories, in file order.
    #[br(count = count, args { inner: (v206,) })]
    pub categories: Vec<Category>,
}

impl CategoryMap {
    /// The name of the category of index `index` (the legend's first with that
    /// index), or `None` when the legend has none.
    ///
    /// ```
    /// use slog2_format::types::CategoryMap;
    /// let legend = CategoryMap::default();
    /// assert!(legend.name_of(3).is_none());
    /// ```
    pub fn name_of(&self, index: i32) -> Option<&JStr> {
        self.categories
            .iter()
            .find(|c| c.index == index)
            .map(|c| &c.name)
    }
}

/// One row of a line-ID map.
#[binrw]
#[brw(big)]
#[br(import(ncols: i32))]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineIdRow {
    /// The line ID.
    pub line_id: i32,
    /// One value per column.
    #[br(count = ncols.max(0))]
    pub values: Vec<i32>,
}

/// A y-axis map (for example the Identity Map or a process view).
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineIdMap {
    /// Title.
    pub title: JStr,
    /// Number of columns.
    #[br(assert(ncols >= 0, NegativeCount { count: Count::Column, value: ncols }))]
    pub ncols: i32,
    /// Column labels.
    #[br(count = ncols)]
    pub labels: Vec<JStr>,
    #[br(temp, assert(nrows >= 0, NegativeCount { count: Count::Row, value: nrows }))]
    #[bw(try_calc = i32::try_from(rows.len()))]
    nrows: i32,
    /// Rows, by ascending line ID.
    #[br(count = nrows, args { inner: (ncols,) })]
    pub rows: Vec<LineIdRow>,
    #[br(temp, assert(nmethods >= 0, NegativeCount { count: Count::Method, value: nmethods.into() }))]
    #[bw(try_calc = i16::try_from(methods.len()))]
    nmethods: i16,
    /// Method IDs (1 = connect composite states).
    #[br(count = nmethods)]
    pub methods: Vec<i32>,
}

/// The LineIDMapList block.
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LineIdMapList {
    #[br(temp, assert(count >= 0, NegativeCount { count: Count::Map, value: count }))]
    #[bw(try_calc = i32::try_from(maps.len()))]
    count: i32,
    /// The maps.
    #[br(count = count)]
    pub maps: Vec<LineIdMap>,
}
