//! Window queries through an annotation file (spec/annotation.md §5): open reads
//! the header, the TreeDir, the leaf table, the definitions, the legend and the
//! line-ID maps, and checks the trace's size and preamble; a query reads the
//! non-leaf nodes whose box meets the window and, for each leaf whose box meets it,
//! its carry-in block and its byte range of the trace (checksum verified), pairs
//! the events there and keeps the drawables that begin in that leaf.

use crate::error::{Error, Result};
use crate::format::{self, *};
use crate::pair::{parse_carry, Pairer, Wait};
use binrw::BinRead;
use clog2_format::codec::{decode_record_ref, Layout};
use clog2_format::preamble::PREAMBLE_LEN;
use clog2_format::record::rectype;
use clog2_format::Preamble;
use flate2::Crc;
use slog2_format::build::Prim;
use slog2_format::types::*;
use slog2_format::window::{Located, TimeWindow};
use std::io::{Cursor, Read, Seek, SeekFrom};

/// What a reader has read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Non-leaf nodes plus leaves read.
    pub nodes_read: u64,
    /// Bytes read from the annotation file.
    pub annotation_bytes: u64,
    /// Bytes read from the trace.
    pub trace_bytes: u64,
    /// Leaves read.
    pub leaves_read: u64,
    /// Records of the leaves read that are no event: definitions, communicator,
    /// collective, constant, source-location and time-shift records (the `X` of
    /// the cost bound, spec/annotation.md §6).
    pub other_records: u64,
}

/// The drawables of one window query, and what it read.
#[derive(Debug, Clone, PartialEq)]
pub struct AnnotationAnswer {
    /// The window.
    pub window: TimeWindow,
    /// The drawables that meet the window, in `INCRE_STARTTIME_ORDER`, each with
    /// the node it came from: a non-leaf node of the annotation, or `(0, i)` for
    /// leaf `i` (a byte range of the trace).
    pub drawables: Vec<Located<Primitive>>,
    /// What this query read (opening not included).
    pub counters: Counters,
}

/// An open annotation and its trace.
#[derive(Debug)]
pub struct Annotation<A, T> {
    idx: A,
    trace: T,
    idx_len: u64,
    header: format::Header,
    dir: TreeDir,
    leaves: Vec<Leaf>,
    defs: Vec<Def>,
    categories: CategoryMap,
    maps: LineIdMapList,
    layout: Layout,
    counters: Counters,
    /// The last block read from the annotation.
    buf: Vec<u8>,
    /// The last leaf range read from the trace.
    tbuf: Vec<u8>,
    /// Where each file's position is, when known (a read that starts there
    /// needs no seek).
    idx_pos: Option<u64>,
    trace_pos: Option<u64>,
    /// Whether the definitions are in leaf order (as a writer writes them).
    defs_sorted: bool,
    pairer: Pairer,
    scratch: Scratch,
}

/// A query's buffers, kept between queries.
#[derive(Debug, Default)]
struct Scratch {
    /// The drawables found, in the order found.
    entries: Vec<Entry>,
    /// The drawables made from leaves.
    prims: Vec<Prim>,
    /// The drawables read from nodes.
    node_prims: Vec<Primitive>,
    /// A carry-in block.
    carry: Vec<Wait>,
}

/// The bits of `x` as an integer that orders as `f64::total_cmp` does.
#[inline(always)]
fn ordered(x: f64) -> i64 {
    let b = x.to_bits() as i64;
    b ^ ((((b >> 63) as u64) >> 1) as i64)
}

/// A drawable found by a query: its `INCRE_STARTTIME_ORDER` key as integers
/// (earliest, latest descending, category, first and last line), its node, and
/// where it is (`NODE` set: an index into the node drawables; otherwise into the
/// leaf drawables).
#[derive(Debug, Clone, Copy)]
struct Entry {
    key: (i64, i64, i32, i32, i32),
    node: NodeId,
    src: u32,
}

const NODE: u32 = 1 << 31;

impl Entry {
    #[inline(always)]
    fn new(k: (f64, f64, i32, (i32, i32)), node: NodeId, src: u32) -> Entry {
        Entry {
            key: (ordered(k.0), !ordered(k.1), k.2, k.3 .0, k.3 .1),
            node,
            src,
        }
    }
}

/// The order key of a node's primitive: its first and last vertex.
fn node_key(p: &Primitive) -> (f64, f64, i32, (i32, i32)) {
    let first = p.vertices.first().map_or((0.0, 0), |c| (c.time, c.line_id));
    let last = p.vertices.last().map_or((0.0, 0), |c| (c.time, c.line_id));
    (
        first.0.min(last.0),
        first.0.max(last.0),
        p.category,
        (first.1, last.1),
    )
}

fn idx_io(offset: u64) -> impl FnOnce(std::io::Error) -> Error {
    move |source| Error::Io {
        file: "annotation",
        offset,
        source,
    }
}

fn trace_io(offset: u64) -> impl FnOnce(std::io::Error) -> Error {
    move |source| Error::Io {
        file: "trace",
        offset,
        source,
    }
}

impl<A: Read + Seek, T: Read + Seek> Annotation<A, T> {
    /// Opens an annotation and the trace it annotates; fails if the trace's size
    /// or preamble changed since.
    pub fn open(mut idx: A, mut trace: T) -> Result<Self> {
        let idx_len = idx.seek(SeekFrom::End(0)).map_err(idx_io(0))?;
        idx.seek(SeekFrom::Start(0)).map_err(idx_io(0))?;
        let mut head = vec![0u8; HEADER_LEN.min(idx_len) as usize];
        idx.read_exact(&mut head).map_err(idx_io(0))?;
        if !head.starts_with(MAGIC) {
            return Err(Error::BadAnnotation {
                rule: "IDX-HDR-001",
                offset: 0,
                what: "not an mpelog annotation file (no MPELOGIX magic)".into(),
            });
        }
        if head.len() < HEADER_LEN as usize {
            return Err(Error::BadAnnotation {
                rule: "IDX-HDR-001",
                offset: head.len() as u64,
                what: format!("the {HEADER_LEN}-byte header is cut short"),
            });
        }
        let header =
            format::Header::read(&mut Cursor::new(&head)).map_err(|e| Error::BadAnnotation {
                rule: "IDX-HDR-001",
                offset: 0,
                what: format!("header: {e}"),
            })?;
        if header.format_version != FORMAT_VERSION {
            return Err(Error::BadAnnotation {
                rule: "IDX-HDR-002",
                offset: 8,
                what: format!(
                    "format version {} (this reader knows {FORMAT_VERSION})",
                    header.format_version
                ),
            });
        }
        if header.children < 2 {
            return Err(Error::BadAnnotation {
                rule: "IDX-HDR-003",
                offset: 39,
                what: format!("{} children per node", header.children),
            });
        }
        let trace_len = trace.seek(SeekFrom::End(0)).map_err(trace_io(0))?;
        if trace_len != header.clog2_size {
            return Err(Error::Stale {
                rule: "IDX-STALE-001",
                offset: trace_len,
                what: format!(
                    "the trace has {trace_len} bytes, it had {} when annotated",
                    header.clog2_size
                ),
            });
        }
        let mut pre = vec![0u8; PREAMBLE_LEN.min(trace_len as usize)];
        trace.seek(SeekFrom::Start(0)).map_err(trace_io(0))?;
        trace.read_exact(&mut pre).map_err(trace_io(0))?;
        let mut crc = Crc::new();
        crc.update(&pre);
        if crc.sum() != header.preamble_crc32 {
            return Err(Error::Stale {
                rule: "IDX-STALE-002",
                offset: 0,
                what: "the trace's preamble changed since it was annotated".into(),
            });
        }
        let preamble = Preamble::parse(&pre)?;
        let layout = Layout {
            endian: preamble.endian(),
            version: preamble.info().version,
        };
        let pairer = Pairer::new(preamble.info());
        let mut a = Annotation {
            idx,
            trace,
            idx_len,
            header,
            dir: TreeDir::default(),
            leaves: Vec::new(),
            defs: Vec::new(),
            categories: CategoryMap::default(),
            maps: LineIdMapList::default(),
            layout,
            pairer,
            counters: Counters {
                nodes_read: 0,
                annotation_bytes: HEADER_LEN,
                trace_bytes: pre.len() as u64,
                leaves_read: 0,
                other_records: 0,
            },
            buf: Vec::new(),
            tbuf: Vec::new(),
            idx_pos: None,
            trace_pos: None,
            defs_sorted: true,
            scratch: Scratch::default(),
        };
        let h = a.header.clone();
        a.dir = a.block(h.treedir, "the TreeDir")?;
        a.leaves = a.block::<LeafTable>(h.leaf_table, "the leaf table")?.leaves;
        a.defs = a.block::<Defs>(h.defs, "the definitions")?.defs;
        a.defs_sorted = a.defs.windows(2).all(|d| d[0].leaf <= d[1].leaf);
        a.categories = a.block_args(h.categories, "the CategoryMap", (true,))?;
        a.maps = a.block(h.lineidmaps, "the LineIDMapList")?;
        if a.leaves.len() != h.leaves as usize {
            return Err(Error::BadAnnotation {
                rule: "IDX-LEAF-001",
                offset: h.leaf_table.offset as u64,
                what: format!("{} leaves, the header says {}", a.leaves.len(), h.leaves),
            });
        }
        Ok(a)
    }

    /// The header.
    pub fn header(&self) -> &format::Header {
        &self.header
    }

    /// The legend.
    pub fn categories(&self) -> &CategoryMap {
        &self.categories
    }

    /// The line-ID maps.
    pub fn line_id_maps(&self) -> &LineIdMapList {
        &self.maps
    }

    /// The leaves.
    pub fn leaves(&self) -> &[Leaf] {
        &self.leaves
    }

    /// The TreeDir: every node with its box and pointer.
    pub fn tree_dir(&self) -> &TreeDir {
        &self.dir
    }

    /// The definitions block's entries, in trace order.
    pub fn defs(&self) -> &[Def] {
        &self.defs
    }

    /// Reads the node that TreeDir entry `e` points at (counted as read).
    pub fn node(&mut self, e: &TreeDirEntry) -> Result<TreeNodeBody> {
        let node = self.block_args(e.ptr, "a tree node", (true,))?;
        self.counters.nodes_read += 1;
        Ok(node)
    }

    /// Everything read so far, opening included.
    pub fn counters(&self) -> Counters {
        self.counters
    }

    fn read_idx(&mut self, ptr: FileBlockPtr, what: &str) -> Result<()> {
        let (at, size) = (ptr.offset, ptr.size);
        if at < 0
            || size < 0
            || size as u64 > self.header.max_block as u64
            || (at as u64)
                .checked_add(size as u64)
                .is_none_or(|e| e > self.idx_len)
        {
            return Err(Error::BadAnnotation {
                rule: "IDX-BLK-001",
                offset: at.max(0) as u64,
                what: format!("{what} ({size} bytes at byte {at}) is not inside the file or exceeds max_block"),
            });
        }
        if self.idx_pos != Some(at as u64) {
            self.idx_pos = None;
            self.idx
                .seek(SeekFrom::Start(at as u64))
                .map_err(idx_io(at as u64))?;
        }
        self.idx_pos = None;
        self.buf.resize(size as usize, 0);
        self.idx
            .read_exact(&mut self.buf)
            .map_err(idx_io(at as u64))?;
        self.idx_pos = Some(at as u64 + size as u64);
        self.counters.annotation_bytes += size as u64;
        Ok(())
    }

    fn block<B: for<'a> BinRead<Args<'a> = ()>>(
        &mut self,
        ptr: FileBlockPtr,
        what: &str,
    ) -> Result<B> {
        self.block_args(ptr, what, ())
    }

    fn block_args<B: BinRead>(
        &mut self,
        ptr: FileBlockPtr,
        what: &str,
        args: B::Args<'_>,
    ) -> Result<B> {
        self.read_idx(ptr, what)?;
        B::read_be_args(&mut Cursor::new(&self.buf), args).map_err(|e| Error::BadAnnotation {
            rule: "IDX-BLK-002",
            offset: ptr.offset as u64,
            what: format!("{what}: {e}"),
        })
    }

    /// The drawables that meet `[start, end)`, exactly as a window on the SLOG-2
    /// file converted from the same trace gives them.
    pub fn window(&mut self, start: f64, end: f64) -> Result<AnnotationAnswer> {
        let w = TimeWindow::new(start, end);
        let before = self.counters;
        self.collect(w)?;
        let s = &mut self.scratch;
        let mut out: Vec<Located<Primitive>> = Vec::with_capacity(s.entries.len());
        for e in &s.entries {
            let value = if e.src & NODE != 0 {
                std::mem::replace(
                    &mut s.node_prims[(e.src & !NODE) as usize],
                    Primitive {
                        category: 0,
                        info: JStr {
                            len: 0,
                            bytes: Vec::new(),
                        },
                        vertices: Vec::new(),
                    },
                )
            } else {
                s.prims[e.src as usize].to_primitive()
            };
            out.push(Located {
                node: e.node,
                value,
            });
        }
        let c = self.counters;
        Ok(AnnotationAnswer {
            window: w,
            drawables: out,
            counters: Counters {
                nodes_read: c.nodes_read - before.nodes_read,
                annotation_bytes: c.annotation_bytes - before.annotation_bytes,
                trace_bytes: c.trace_bytes - before.trace_bytes,
                leaves_read: c.leaves_read - before.leaves_read,
                other_records: c.other_records - before.other_records,
            },
        })
    }

    /// Finds the drawables of window `w` into the scratch buffers, sorted in
    /// `INCRE_STARTTIME_ORDER` (ties: nodes in TreeDir order, then leaves in
    /// order, each in the order read).
    fn collect(&mut self, w: TimeWindow) -> Result<()> {
        self.scratch.entries.clear();
        self.scratch.prims.clear();
        self.scratch.node_prims.clear();
        for k in 0..self.dir.entries.len() {
            let e = self.dir.entries[k];
            if !w.meets(e.earliest, e.latest) {
                continue;
            }
            let node = self.node(&e)?;
            let s = &mut self.scratch;
            for d in node.nestless.into_iter().chain(node.nestable) {
                if w.shows(&d) {
                    if let Drawable::Primitive(p) = d {
                        let src = s.node_prims.len() as u32 | NODE;
                        s.entries.push(Entry::new(node_key(&p), e.id, src));
                        s.node_prims.push(p);
                    }
                }
            }
        }
        for i in 0..self.leaves.len() {
            let l = &self.leaves[i];
            if w.meets(l.earliest, l.latest) {
                self.leaf(i, Some(w))?;
            }
        }
        self.scratch.entries.sort_by_key(|e| e.key);
        Ok(())
    }

    /// Reads leaf `i` as a window query does (its carry-in block and its trace
    /// range, checksum included) and pairs its records; returns how many
    /// drawables begin and end in it. Memory is one leaf's: this is how
    /// `mpelog check` verifies a whole annotation.
    pub fn verify_leaf(&mut self, i: usize) -> Result<usize> {
        if i >= self.leaves.len() {
            return Err(Error::Write(format!(
                "leaf {i} does not exist ({} leaves)",
                self.leaves.len()
            )));
        }
        self.scratch.entries.clear();
        self.scratch.prims.clear();
        self.leaf(i, None)
    }

    /// Pairs the records of leaf `i`; of the drawables that begin and end in
    /// it, those that meet `w` (all without a window) go to the scratch
    /// buffers. Returns how many begin and end in it.
    fn leaf(&mut self, i: usize, w: Option<TimeWindow>) -> Result<usize> {
        let leaf = self.leaves[i];
        self.read_idx(leaf.carry, "a carry-in block")?;
        if parse_carry(&self.buf, &mut self.scratch.carry).is_none() {
            // Not a carry-in block: the binrw reader says why (or, should it
            // read what the fast path refused, its entries are used).
            let carry =
                Carry::read_be(&mut Cursor::new(&self.buf)).map_err(|e| Error::BadAnnotation {
                    rule: "IDX-BLK-002",
                    offset: leaf.carry.offset as u64,
                    what: format!("a carry-in block: {e}"),
                })?;
            self.scratch.carry.clear();
            self.scratch
                .carry
                .extend(carry.waiting.iter().map(Wait::from));
        }
        self.counters.nodes_read += 1;
        self.counters.leaves_read += 1;
        let bs = self.header.clog2_block_size as u64;
        if bs == 0
            || leaf.len as u64 % bs != 0
            || leaf.offset < PREAMBLE_LEN as u64
            || leaf
                .offset
                .checked_add(leaf.len as u64)
                .is_none_or(|e| e > self.header.clog2_size)
        {
            return Err(Error::BadAnnotation {
                rule: "IDX-LEAF-002",
                offset: self.header.leaf_table.offset as u64 + 4 + 48 * i as u64,
                what: format!(
                    "leaf {i}: range {}+{} is not whole blocks inside the trace",
                    leaf.offset, leaf.len
                ),
            });
        }
        if self.trace_pos != Some(leaf.offset) {
            self.trace_pos = None;
            self.trace
                .seek(SeekFrom::Start(leaf.offset))
                .map_err(trace_io(leaf.offset))?;
        }
        self.trace_pos = None;
        self.tbuf.resize(leaf.len as usize, 0);
        self.trace
            .read_exact(&mut self.tbuf)
            .map_err(trace_io(leaf.offset))?;
        self.trace_pos = Some(leaf.offset + leaf.len as u64);
        self.counters.trace_bytes += leaf.len as u64;
        let mut crc = Crc::new();
        crc.update(&self.tbuf);
        if crc.sum() != leaf.crc32 {
            return Err(Error::Stale {
                rule: "IDX-STALE-003",
                offset: leaf.offset,
                what: format!(
                    "the trace's bytes {}..{} (leaf {i}) changed since it was annotated",
                    leaf.offset,
                    leaf.offset + leaf.len as u64
                ),
            });
        }
        let me = i as u32;
        self.pairer
            .start_leaf(&self.defs, me, self.defs_sorted, &self.scratch.carry);
        let node = NodeId { depth: 0, xpos: i as i32 };
        let layout = self.layout;
        let pairer = &mut self.pairer;
        let s = &mut self.scratch;
        let mut count = 0usize;
        let first = (leaf.offset - PREAMBLE_LEN as u64) / bs;
        'blocks: for (b, bytes) in self.tbuf.chunks(bs as usize).enumerate() {
            let base = leaf.offset + b as u64 * bs;
            let index = first + b as u64;
            let mut pos = 0usize;
            loop {
                let (rec, len) = decode_record_ref(bytes, pos, layout, base, index)?;
                pos += len;
                if !matches!(
                    rec.rectype,
                    rectype::ENDBLOCK
                        | rectype::ENDLOG
                        | rectype::BAREEVT
                        | rectype::CARGOEVT
                        | rectype::MSGEVT
                ) {
                    self.counters.other_records += 1;
                }
                if let Some((p, origin)) = pairer.push(&rec, me) {
                    if origin == me {
                        count += 1;
                        if w.is_none_or(|w| w.meets(p.earliest(), p.latest())) {
                            s.entries
                                .push(Entry::new(p.order_key(), node, s.prims.len() as u32));
                            s.prims.push(p);
                        }
                    }
                }
                if pairer.ended() {
                    break 'blocks;
                }
                if rec.is_terminator() {
                    break;
                }
            }
        }
        Ok(count)
    }
}

