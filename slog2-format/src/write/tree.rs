//! The one-pass SLOG-2 tree writer (spec/conversion.md §3): primitives arrive in
//! increasing end time; each goes into the lowest open node whose start is not
//! after its own; leaves are written as they fill, parents after their children,
//! then the legend, the line-ID maps, the tree directory and finally the header.
//!
//! Memory: one open node per tree level (the leaf is at most `leaf_bytes`; upper
//! nodes hold only the drawables that cross their children's boundaries), their
//! shadow buffers (one shadow per timeline or timeline pair), and one 34-byte
//! directory entry per node written.

use super::node::{Builder, NodeTask};
use super::prim::Prim;
use super::shadow::{java_f32, preview_index, ShadowBuf};
use super::sink::{Job, Placed, Sink};
use crate::error::{Error, Invariant, Limit, OptionsProblem, Oversized, Result, WriteProblem};
use crate::frame::{self, Compression};
use crate::types::*;
use binrw::BinWrite;
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeSet;
use std::io::{Seek, SeekFrom, Write};

/// Bytes of an empty node block: header 34, three counts.
pub const EMPTY_NODE_LEN: u64 = 46;

/// The SLOG-2 version the writer produces for plain nodes.
pub const VERSION: &str = "SLOG 2.0.6";

/// Tree shape options (clog2TOslog2's `-ls` and `-nc`) and node compression.
///
/// ```
/// use slog2_format::{frame::Compression, write::TreeOptions};
/// let o = TreeOptions::default().leaf_bytes(4096).children(4).compression(Compression::Stored);
/// assert_eq!((o.leaf_bytes, o.children, o.compression), (4096, 4, Compression::Stored));
/// assert!(TreeOptions::default().children(1).validate().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct TreeOptions {
    /// A leaf is closed before it would grow past this many (uncompressed) bytes.
    pub leaf_bytes: u32,
    /// Children per node (at least 2).
    pub children: u16,
    /// How nodes are stored: plain `SLOG 2.0.6` (the default), or framed and
    /// compressed (`SLOG 2.0.6Z`, spec/slog2-compressed.md).
    pub compression: Compression,
}

impl Default for TreeOptions {
    /// Java's defaults: 64 KiB leaves, 2 children per node.
    fn default() -> Self {
        TreeOptions {
            leaf_bytes: 65536,
            children: 2,
            compression: Compression::None,
        }
    }
}

/// Setters, one per field (the struct is `#[non_exhaustive]`: start from
/// [`Default`]).
impl TreeOptions {
    /// Sets `leaf_bytes` (see the field).
    ///
    /// ```
    /// let o = slog2_format::write::TreeOptions::default().leaf_bytes(4096);
    /// assert!(o.leaf_bytes == 4096);
    /// ```
    pub fn leaf_bytes(mut self, leaf_bytes: u32) -> Self {
        self.leaf_bytes = leaf_bytes;
        self
    }

    /// Sets `children` (see the field).
    ///
    /// ```
    /// let o = slog2_format::write::TreeOptions::default().children(4);
    /// assert!(o.children == 4);
    /// ```
    pub fn children(mut self, children: u16) -> Self {
        self.children = children;
        self
    }

    /// Sets `compression` (see the field).
    ///
    /// ```
    /// let o = slog2_format::write::TreeOptions::default().compression(slog2_format::frame::Compression::default());
    /// assert!(o.validate().is_ok());
    /// ```
    pub fn compression(mut self, compression: Compression) -> Self {
        self.compression = compression;
        self
    }
}

impl TreeOptions {
    /// Checks the options: at least 2 children and leaves of at least 64 bytes (the
    /// empty node plus the smallest drawable), at most `i32::MAX` bytes.
    ///
    /// # Errors
    ///
    /// An invalid option ([`Error::InvalidOptions`]); [`TreeWriter::new`]
    /// checks the same.
    ///
    /// ```
    /// use slog2_format::write::TreeOptions;
    /// assert!(TreeOptions::default().validate().is_ok());
    /// assert!(TreeOptions::default().children(1).validate().is_err());
    /// assert!(TreeOptions::default().leaf_bytes(63).validate().is_err());
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn validate(&self) -> Result<()> {
        if self.children < 2 || self.children > i16::MAX as u16 {
            return Err(Error::InvalidOptions(OptionsProblem::Children(
                self.children,
            )));
        }
        if self.leaf_bytes < 64 || self.leaf_bytes > i32::MAX as u32 {
            return Err(Error::InvalidOptions(OptionsProblem::LeafBytes(
                self.leaf_bytes,
            )));
        }
        Ok(())
    }
}

/// The "Identity Map" the tree writer puts after the caller's line-ID maps:
/// one row per line ID, in increasing order, whose value is the line ID.
///
/// ```
/// let m = slog2_format::write::tree::identity_map([3, 1, 3]);
/// assert_eq!(m.title.text(), "Identity Map");
/// assert_eq!(m.rows.iter().map(|r| (r.line_id, r.values.clone())).collect::<Vec<_>>(),
///            [(1, vec![1]), (3, vec![3])]);
/// ```
pub fn identity_map(lines: impl IntoIterator<Item = i32>) -> LineIdMap {
    one_column_map("Identity Map", "LineID", lines)
}

/// A line-ID map of one column titled `title` whose label is `label`: one
/// row per line ID, in increasing order, whose value is the line ID (the
/// identity map, or ALOG's "Process View").
///
/// ```
/// let m = slog2_format::write::tree::one_column_map("Process View", "Rank", [2, 0, 1]);
/// assert_eq!(m.title.text(), "Process View");
/// assert_eq!(m.ncols, 1);
/// assert_eq!(m.rows.iter().map(|r| r.line_id).collect::<Vec<_>>(), [0, 1, 2]);
/// # Ok::<(), slog2_format::Error>(())
/// ```
pub fn one_column_map(title: &str, label: &str, lines: impl IntoIterator<Item = i32>) -> LineIdMap {
    let mut rows: Vec<i32> = lines.into_iter().collect();
    rows.sort_unstable();
    rows.dedup();
    LineIdMap {
        title: JStr::new(title),
        ncols: 1,
        labels: vec![JStr::new(label)],
        rows: rows
            .into_iter()
            .map(|l| LineIdRow {
                line_id: l,
                values: vec![l],
            })
            .collect(),
        methods: Vec::new(),
    }
}

/// What the writer wrote.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TreeStats {
    /// Primitives added.
    pub drawables: u64,
    /// Tree nodes written.
    pub nodes: u64,
    /// Depth of the root (0 when the root is the only node).
    pub depth: u16,
    /// Bytes of the finished file.
    pub bytes: u64,
    /// Largest block (the header's max_buffer_bytesize).
    pub max_block: u32,
    /// Categories written (preview categories included).
    pub categories: usize,
    /// Earliest and latest time in the tree.
    pub time_range: (f64, f64),
}

/// One open node of the trunk.
#[derive(Debug)]
struct OpenNode {
    id: NodeId,
    earliest: f64,
    latest: f64,
    prims: Vec<Prim>,
    /// The shadow of each primitive (an index into `shadows.shadows`).
    shadow_of: Vec<u32>,
    /// Java's node byte size: 46 + Σ(primitive + tag).
    bytes: u64,
    shadows: ShadowBuf,
}

impl OpenNode {
    fn new(id: NodeId, earliest: f64) -> OpenNode {
        let mut shadows = ShadowBuf::new(id);
        shadows.earliest = earliest;
        OpenNode {
            id,
            earliest,
            latest: f64::NEG_INFINITY,
            prims: Vec::new(),
            shadow_of: Vec::new(),
            bytes: EMPTY_NODE_LEN,
            shadows,
        }
    }

    /// Makes this (written) node the empty node `id`.
    fn reset(&mut self, id: NodeId, earliest: f64) {
        self.id = id;
        self.earliest = earliest;
        self.latest = f64::NEG_INFINITY;
        self.bytes = EMPTY_NODE_LEN;
        self.shadows = ShadowBuf::new(id);
        self.shadows.earliest = earliest;
    }

    #[inline]
    fn add(&mut self, p: Prim) {
        self.bytes += p.disk_len() as u64 + 1;
        let si = self.shadows.add(&p);
        self.shadow_of.push(si);
        self.prims.push(p);
    }

    fn affect_earliest(&mut self, t: f64) {
        self.earliest = self.earliest.min(t);
        self.shadows.earliest = self.shadows.earliest.min(t);
    }
}

/// Writes a SLOG-2 file in one pass from primitives in increasing end-time order.
///
/// ```
/// # use slog2_format::types::{topology, Category, JStr};
/// # let compute = Category { index: 1, name: JStr::new("Compute"), topology: topology::STATE,
/// #     argb: [255, 0, 0, 255], modifiable: 1, width: 1, keys: Vec::new(), types: Vec::new(),
/// #     methods: Vec::new(), summary: None };
/// use slog2_format::write::{identity_map, Prim, TreeOptions, TreeWriter};
/// use slog2_format::Slog2Reader;
/// let mut w = TreeWriter::new(std::io::Cursor::new(Vec::new()), TreeOptions::default())?;
/// w.add(Prim::two(1, topology::STATE, (0.0, 0), (1.0, 0), &[]))?;
/// w.add(Prim::two(1, topology::STATE, (0.5, 1), (2.0, 1), &[]))?;
/// let (out, stats) = w.finish(&[compute], vec![identity_map(0..2)])?;
/// assert_eq!((stats.drawables, stats.nodes), (2, 1));
/// let mut r = Slog2Reader::new(std::io::Cursor::new(out.into_inner()))?;
/// assert_eq!(r.window(1.5, 3.0)?.drawables.len(), 1); // only the second meets it
/// # Ok::<(), slog2_format::Error>(())
/// ```
#[derive(Debug)]
pub struct TreeWriter<W: Write + Seek> {
    out: W,
    pos: u64,
    opts: TreeOptions,
    /// Index 0 is the current leaf, the last is the root.
    trunk: Vec<OpenNode>,
    last_end: Option<f64>,
    dir: Vec<TreeDirEntry>,
    max_block: u32,
    drawables: u64,
    buf: Vec<u8>,
    /// Builds nodes when the sink does not (compressed files).
    builder: Builder,
    /// Builds (plain files), fills in stub pointers and frames nodes, on a
    /// thread of its own; nodes come back in order to be written.
    sink: Sink,
    header_len: u64,
}

/// Writes placed nodes to `out` at `pos` and records their pointers.
struct Placer<'a, W> {
    out: &'a mut W,
    pos: &'a mut u64,
    dir: &'a mut [TreeDirEntry],
    max_block: &'a mut u32,
}

impl<W: Write> Placer<'_, W> {
    fn place(&mut self, p: Placed) -> Result<()> {
        debug_assert_eq!(p.ptr.offset as u64, *self.pos);
        self.out.write_all(&p.bytes).map_err(io_err(*self.pos))?;
        *self.pos += p.bytes.len() as u64;
        *self.max_block = (*self.max_block)
            .max(p.ptr.size as u32)
            .max(u32::try_from(p.uncompressed).unwrap_or(u32::MAX));
        self.dir[p.seq as usize].ptr = p.ptr;
        Ok(())
    }
}

fn io_err(offset: u64) -> impl FnOnce(std::io::Error) -> Error {
    move |source| Error::Io { offset, source }
}

impl<W: Write + Seek> TreeWriter<W> {
    /// Starts a file: writes a placeholder header at the current position, which
    /// must be the start of the output.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidOptions`] for an option out of range (as
    /// [`TreeOptions::validate`]), and [`Error::Io`] at offset 0 when the header cannot
    /// be written.
    ///
    /// ```
    /// use slog2_format::write::{TreeOptions, TreeWriter};
    /// let w = TreeWriter::new(std::io::Cursor::new(Vec::new()), TreeOptions::default().leaf_bytes(4096))?;
    /// assert!(w.position() > 0); // the header is reserved first
    /// // An empty tree is refused when it is finished: a file needs a drawable.
    /// assert!(matches!(w.finish(&[], vec![]), Err(slog2_format::Error::Empty)));
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn new(mut out: W, opts: TreeOptions) -> Result<TreeWriter<W>> {
        opts.validate()?;
        let header = Self::header(&opts, 0, 0, [FileBlockPtr::NULL; 4]);
        let mut bytes = std::io::Cursor::new(Vec::new());
        header
            .write(&mut bytes)
            .map_err(|e| Error::Write(e.into()))?;
        let bytes = bytes.into_inner();
        out.write_all(&bytes).map_err(io_err(0))?;
        let root = OpenNode::new(NodeId { depth: 0, xpos: 0 }, f64::INFINITY);
        Ok(TreeWriter {
            out,
            pos: bytes.len() as u64,
            opts,
            trunk: vec![root],
            last_end: None,
            dir: Vec::new(),
            max_block: 0,
            drawables: 0,
            buf: Vec::new(),
            builder: Builder::default(),
            sink: Sink::new(bytes.len() as u64, opts.compression),
            header_len: bytes.len() as u64,
        })
    }

    fn header(opts: &TreeOptions, depth: i16, max_buffer: i32, ptrs: [FileBlockPtr; 4]) -> Header {
        Header {
            version: JStr::new(if opts.compression.is_framed() {
                frame::VERSION
            } else {
                VERSION
            }),
            num_children_per_node: opts.children as i16,
            treeleaf_bytesize: opts.leaf_bytes as i32,
            max_treedepth: depth,
            max_buffer_bytesize: max_buffer,
            categories: ptrs[0],
            methoddefs: FileBlockPtr::NULL,
            lineidmaps: ptrs[1],
            treeroot: ptrs[2],
            treedir: ptrs[3],
            annotations: FileBlockPtr::NULL,
            postamble: FileBlockPtr::NULL,
        }
    }

    /// Bytes written so far.
    ///
    /// See [`TreeWriter::new`] for an example.
    ///
    /// ```
    /// use slog2_format::types::topology;
    /// use slog2_format::write::{identity_map, Prim, TreeOptions, TreeWriter};
    /// use std::io::Cursor;
    /// let mut w = TreeWriter::new(Cursor::new(Vec::new()), TreeOptions::default().leaf_bytes(1024))?;
    /// let header = w.position();
    /// assert!(header > 0); // the header is reserved first
    /// for i in 0..1000 {
    ///     let t = f64::from(i);
    ///     w.add(Prim::two(0, topology::STATE, (t, 0), (t + 0.5, 0), &[]))?;
    /// }
    /// assert!(w.position() > header); // full leaves went out
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// Primitives added so far.
    ///
    /// ```
    /// use slog2_format::types::topology;
    /// use slog2_format::write::{Prim, TreeOptions, TreeWriter};
    /// let mut w = TreeWriter::new(std::io::Cursor::new(Vec::new()), TreeOptions::default())?;
    /// for i in 0..3 {
    ///     w.add(Prim::event(0, f64::from(i), 0, &[]))?;
    /// }
    /// assert_eq!(w.drawables(), 3);
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn drawables(&self) -> u64 {
        self.drawables
    }

    /// Adds a primitive. Its end time must not be before the previous one's.
    ///
    /// # Errors
    ///
    /// A primitive with a non-finite time or one ending before the last one
    /// added ([`Error::Write`]), and I/O errors.
    ///
    /// ```
    /// use slog2_format::types::topology;
    /// use slog2_format::write::{Prim, TreeOptions, TreeWriter};
    /// let mut w = TreeWriter::new(std::io::Cursor::new(Vec::new()), TreeOptions::default())?;
    /// w.add(Prim::two(1, topology::STATE, (0.0, 0), (2.0, 0), &[]))?;
    /// // Ends before the last one: refused.
    /// assert!(w.add(Prim::two(1, topology::STATE, (0.5, 0), (1.0, 0), &[])).is_err());
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn add(&mut self, p: Prim) -> Result<()> {
        let (start, end) = (p.earliest(), p.latest());
        if !start.is_finite() || !end.is_finite() {
            return Err(Error::Write(WriteProblem::NotFinite {
                drawable: self.drawables,
                category: p.category,
            }));
        }
        if let Some(last) = self.last_end {
            if end < last {
                return Err(Error::Write(WriteProblem::Unordered {
                    drawable: self.drawables,
                    end,
                    last,
                }));
            }
            // Java switches even from an empty leaf; we never write an empty leaf.
            let leaf = &self.trunk[0];
            if leaf.bytes + p.disk_len() as u64 > self.opts.leaf_bytes as u64
                && !leaf.prims.is_empty()
            {
                self.switch_branch()?;
            }
        }
        let at = self
            .trunk
            .iter()
            .position(|n| n.earliest <= start)
            .unwrap_or(self.trunk.len() - 1);
        let is_root = at == self.trunk.len() - 1;
        let node = &mut self.trunk[at];
        node.add(p);
        if is_root {
            node.affect_earliest(start);
        }
        self.last_end = Some(end);
        self.drawables += 1;
        Ok(())
    }

    /// Closes the current leaf and every ancestor whose last child it was, and
    /// opens the next leaf (Java's `switchToNextBranch`).
    fn switch_branch(&mut self) -> Result<()> {
        let k = self.opts.children as i32;
        let leaf_x = self.trunk[0].id.xpos;
        let mut next = NodeId {
            depth: 0,
            xpos: leaf_x
                .checked_add(1)
                .ok_or_else(|| Error::Write(WriteProblem::TooMany(Limit::Leaves)))?,
        };
        let mut i = 0;
        while i < self.trunk.len() {
            if self.trunk[i].id == next {
                break;
            }
            let latest = if i == 0 {
                self.last_end.unwrap_or(f64::NEG_INFINITY)
            } else {
                self.trunk[i - 1].latest
            };
            let prev_earliest = self.trunk[i].earliest;
            self.write_node(i, latest)?;
            // Reuse the node as its next sibling.
            let next_id = next;
            let node = &mut self.trunk[i];
            node.reset(next_id, latest);
            node.latest = latest;
            next = NodeId {
                depth: next.depth + 1,
                xpos: next.xpos / k,
            };
            if i + 1 == self.trunk.len() {
                if next.depth == i16::MAX {
                    return Err(Error::Write(WriteProblem::TooMany(Limit::Depth)));
                }
                // The written node's buffer is the new root's first stub.
                self.trunk.push(OpenNode::new(next, prev_earliest));
                break;
            }
            i += 1;
        }
        Ok(())
    }

    /// Finalizes trunk node `i` with end time `latest` and hands it to be built
    /// and written; its sealed shadow buffer becomes a stub of its parent.
    fn write_node(&mut self, i: usize, latest: f64) -> Result<()> {
        let seq = u32::try_from(self.dir.len())
            .map_err(|_| Error::Write(WriteProblem::TooMany(Limit::Nodes)))?;
        let node = &mut self.trunk[i];
        node.latest = latest;
        node.shadows.latest = latest;
        self.dir.push(TreeDirEntry {
            id: node.id,
            earliest: node.earliest,
            latest: node.latest,
            ptr: FileBlockPtr::NULL, // filled in when placed
        });
        let cap = node.prims.len();
        let task = NodeTask {
            level: i,
            id: node.id,
            earliest: node.earliest,
            latest: node.latest,
            pos: self.pos,
            seq,
            bytes: node.bytes,
            prims: std::mem::replace(&mut node.prims, Vec::with_capacity(cap)),
            shadow_of: std::mem::replace(&mut node.shadow_of, Vec::with_capacity(cap)),
            shadows: std::mem::replace(&mut node.shadows, ShadowBuf::new(node.id)),
        };
        let job = if self.sink.builds() {
            Job::Task(task)
        } else {
            Job::Built(self.builder.build(task))
        };
        let mut placer = Placer {
            out: &mut self.out,
            pos: &mut self.pos,
            dir: &mut self.dir,
            max_block: &mut self.max_block,
        };
        self.sink.push(job, &mut |p| placer.place(p))
    }

    fn write_block<T>(&mut self, value: &T) -> Result<FileBlockPtr>
    where
        T: for<'a> BinWrite<Args<'a> = ()>,
    {
        let mut c = std::io::Cursor::new(std::mem::take(&mut self.buf));
        c.get_mut().clear();
        value.write_be(&mut c).map_err(|e| Error::Write(e.into()))?;
        let bytes = c.into_inner();
        self.out.write_all(&bytes).map_err(io_err(self.pos))?;
        let ptr = FileBlockPtr {
            offset: self.pos as i64,
            size: i32::try_from(bytes.len())
                .map_err(|_| Error::Write(WriteProblem::TooLarge(Oversized::Block)))?,
        };
        self.pos += bytes.len() as u64;
        self.max_block = self.max_block.max(bytes.len() as u32);
        self.buf = bytes;
        Ok(ptr)
    }

    /// Writes the remaining open nodes (leaf to root), the CategoryMap (the given
    /// categories that have drawables, with their summaries, plus the preview
    /// categories in use), the LineIDMapList (`maps` and then the identity map),
    /// the TreeDir and the header. Fails when no primitive was added.
    ///
    /// # Errors
    ///
    /// [`Error::Empty`] when no primitive was added, and I/O errors.
    ///
    /// ```
    /// # use slog2_format::types::{topology, Category, JStr};
    /// # let compute = Category { index: 1, name: JStr::new("Compute"), topology: topology::STATE,
    /// #     argb: [255, 0, 0, 255], modifiable: 1, width: 1, keys: Vec::new(), types: Vec::new(),
    /// #     methods: Vec::new(), summary: None };
    /// use slog2_format::write::{identity_map, Prim, TreeOptions, TreeWriter};
    /// use slog2_format::Slog2Reader;
    /// use std::io::Cursor;
    /// let mut w = TreeWriter::new(Cursor::new(Vec::new()), TreeOptions::default().leaf_bytes(1024))?;
    /// for i in 0..1000 {
    ///     let t = f64::from(i);
    ///     w.add(Prim::two(1, topology::STATE, (t, i % 4), (t + 0.5, i % 4), &[]))?;
    /// }
    /// let (out, stats) = w.finish(&[compute], vec![identity_map(0..4)])?;
    /// assert_eq!(stats.drawables, 1000);
    /// let mut r = Slog2Reader::new(Cursor::new(out.into_inner()))?;
    /// assert!(r.header().max_treedepth > 0); // more than one leaf
    /// assert_eq!(r.window(f64::NEG_INFINITY, f64::INFINITY)?.drawables.len(), 1000);
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn finish(
        mut self,
        categories: &[Category],
        maps: Vec<LineIdMap>,
    ) -> Result<(W, TreeStats)> {
        if self.last_end.is_none() {
            return Err(Error::Empty);
        }
        let n = self.trunk.len();
        // The root's own lines (its primitives go to be built).
        let mut lines: BTreeSet<i32> = BTreeSet::new();
        for p in &self.trunk[n - 1].prims {
            lines.extend(&p.lines[..p.nv as usize]);
        }
        for i in 0..n {
            let latest = if i == 0 {
                self.last_end.unwrap_or(f64::NEG_INFINITY)
            } else {
                self.trunk[i - 1].latest
            };
            self.write_node(i, latest)?;
        }
        let mut placer = Placer {
            out: &mut self.out,
            pos: &mut self.pos,
            dir: &mut self.dir,
            max_block: &mut self.max_block,
        };
        let builder = self.sink.finish(&mut |p| placer.place(p))?;
        let root_buf = builder
            .unwrap_or_else(|| std::mem::take(&mut self.builder))
            .take_sealed(n)
            .ok_or_else(|| Error::Write(WriteProblem::Internal(Invariant::NoRoot)))?;
        let root = self.trunk[n - 1].id;
        let root_entry = *self.dir.last().expect("the root was written");

        // Legend: summaries from the root's buffer.
        let mut sums = HashMap::default();
        root_buf.summarize(&mut sums);
        let mut out_cats: Vec<Category> = Vec::new();
        let topos: BTreeSet<i32> = root_buf.topologies().collect();
        for (topo, name, argb) in [
            (topology::EVENT, "Preview_Event", [191, 255, 255, 255]),
            (topology::ARROW, "Preview_Arrow", [255, 255, 255, 0]),
            (topology::STATE, "Preview_State", [191, 255, 255, 255]),
        ] {
            if topos.contains(&topo) {
                out_cats.push(Category {
                    index: preview_index(topo),
                    name: JStr::new(name),
                    topology: topo,
                    argb,
                    modifiable: 1,
                    width: 5,
                    keys: Vec::new(),
                    types: Vec::new(),
                    methods: Vec::new(),
                    summary: Some(CategorySummary {
                        incl: 0.0,
                        excl: 0.0,
                        count: 0,
                    }),
                });
            }
        }
        for c in categories {
            if let Some(&(incl, excl, count)) = sums.get(&c.index) {
                let mut c = c.clone();
                c.summary = Some(CategorySummary {
                    incl: java_f32(incl),
                    excl: java_f32(excl),
                    count,
                });
                out_cats.push(c);
            }
        }
        let ncats = out_cats.len();
        let cat_ptr = self.write_block(&CategoryMap {
            categories: out_cats,
        })?;

        // Line-ID maps: the caller's, then the identity map of every line used.
        lines.extend(root_buf.lines());
        let mut maps = maps;
        maps.push(identity_map(lines));
        let map_ptr = self.write_block(&LineIdMapList { maps })?;

        // Tree directory: depth descending, xpos ascending.
        let mut entries = std::mem::take(&mut self.dir);
        entries.sort_by(|a, b| b.id.depth.cmp(&a.id.depth).then(a.id.xpos.cmp(&b.id.xpos)));
        let nodes = entries.len() as u64;
        let dir_ptr = self.write_block(&TreeDir { entries })?;

        let header = Self::header(
            &self.opts,
            root.depth,
            self.max_block as i32,
            [cat_ptr, map_ptr, root_entry.ptr, dir_ptr],
        );
        let mut bytes = std::io::Cursor::new(Vec::new());
        header
            .write(&mut bytes)
            .map_err(|e| Error::Write(e.into()))?;
        let bytes = bytes.into_inner();
        debug_assert_eq!(bytes.len() as u64, self.header_len);
        self.out.flush().map_err(io_err(self.pos))?;
        self.out.seek(SeekFrom::Start(0)).map_err(io_err(0))?;
        self.out.write_all(&bytes).map_err(io_err(0))?;
        self.out
            .seek(SeekFrom::Start(self.pos))
            .map_err(io_err(self.pos))?;
        self.out.flush().map_err(io_err(self.pos))?;
        let stats = TreeStats {
            drawables: self.drawables,
            nodes,
            depth: root.depth as u16,
            bytes: self.pos,
            max_block: self.max_block,
            categories: ncats,
            time_range: (root_entry.earliest, root_entry.latest),
        };
        Ok((self.out, stats))
    }
}
