//! Window queries through an annotation file (spec/queries.md §4.1): open reads
//! the header, the TreeDir, the leaf table, the definitions, the legend and the
//! line-ID maps, and checks the trace's size and preamble; a query reads the
//! non-leaf nodes whose box meets the window and, for each leaf whose box meets it,
//! its carry-in block and its byte range of the trace (checksum verified), pairs
//! the events there and keeps the drawables that begin in that leaf.

use crate::error::{binrw_damage, binrw_words};
use crate::error::{Block, Change, Damage, Error, Result, WriteProblem};
use crate::format::{self, *};
use crate::pair::{parse_carry, Pairer, NO_SLOT};
use binrw::BinRead;
use clog2_format::codec::{decode_record_ref, Layout, RecordRef};
use clog2_format::preamble::PREAMBLE_LEN;
use clog2_format::record::{body_len, rectype};
use clog2_format::Preamble;
use flate2::Crc;
use slog2_format::convert::Partial;
use slog2_format::types::*;
use slog2_format::window::{Located, TimeWindow};
use slog2_format::write::Prim;
use slog2_format::WindowBuf;
use std::io::{Cursor, Read, Seek, SeekFrom};

mod scan;
use scan::*;

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
    /// the cost bound, spec/queries.md §4.2).
    pub other_records: u64,
}

/// The drawables of one window query, and what it read.
#[derive(Debug, Clone, PartialEq)]
pub struct AnnotationAnswer {
    /// The window.
    pub window: TimeWindow,
    /// The drawables that meet the window, in `INCRE_STARTTIME_ORDER`, each with
    /// the node it came from: a non-leaf node of the annotation, or `(0, i)` for
    /// leaf `i` (a byte range of the trace). Ties as in a SLOG-2 answer: by node
    /// (depth descending, then xpos), then in file order (for a leaf, the order
    /// of the records that begin the drawables).
    pub drawables: Vec<Located<Primitive>>,
    /// What this query read (opening not included).
    pub counters: Counters,
}

/// An open annotation and its trace.
///
/// ```
/// # use mpelog_annotate::{annotate, AnnotateOptions, Annotation, Error};
/// # use std::io::Cursor;
/// # let trace = clog2_format::synth::generate_vec(&Default::default())?;
/// # let mut reader = clog2_format::Clog2Reader::from_slice(&trace)?;
/// # let opts = AnnotateOptions::default().trace(trace.len() as u64, &trace[..1024]);
/// # let (idx, stats) = annotate(&mut reader, Cursor::new(Vec::new()), opts, |_| {})?;
/// # let idx = idx.into_inner();
/// let mut a = Annotation::new(Cursor::new(&idx[..]), Cursor::new(&trace[..]))?;
/// let answer = a.window(0.0, 0.05)?;
/// assert!(!answer.drawables.is_empty());
/// assert!(a.counters().leaves_read >= 1); // the trace's records were read
/// # let _ = stats;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
    /// Body length of each record type below 16 (`u32::MAX`: unknown), for the
    /// in-place reading of 02.30+ records.
    body_lens: [u32; 16],
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
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when either file cannot be read; [`Error::BadAnnotation`]
    /// or [`Error::Slog2`] for a malformed annotation; [`Error::Stale`] when the
    /// trace's size or preamble is not the one annotated.
    ///
    /// ```
    /// use mpelog_annotate::{annotate, AnnotateOptions, Annotation, Error};
    /// use std::io::Cursor;
    ///
    /// let trace = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut reader = clog2_format::Clog2Reader::from_slice(&trace)?;
    /// let opts = AnnotateOptions::default().trace(trace.len() as u64, &trace[..1024]);
    /// let (idx, stats) = annotate(&mut reader, Cursor::new(Vec::new()), opts, |_| {})?;
    /// let idx = idx.into_inner();
    ///
    /// let a = Annotation::new(Cursor::new(&idx[..]), Cursor::new(&trace[..]))?;
    /// assert_eq!(a.leaves().len() as u64, stats.leaves);
    ///
    /// // A trace that grew since is not the one annotated.
    /// let mut grown = trace.clone();
    /// grown.extend_from_slice(&trace[trace.len() - 1024..]);
    /// let stale = Annotation::new(Cursor::new(&idx[..]), Cursor::new(&grown[..]));
    /// assert_eq!(stale.err().and_then(|e| e.problem()), Some(mpelog_annotate::error::Problem::TraceSize));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(mut idx: A, mut trace: T) -> Result<Self> {
        let idx_len = idx.seek(SeekFrom::End(0)).map_err(idx_io(0))?;
        idx.seek(SeekFrom::Start(0)).map_err(idx_io(0))?;
        let mut head = vec![0u8; HEADER_LEN.min(idx_len) as usize];
        idx.read_exact(&mut head).map_err(idx_io(0))?;
        if !head.starts_with(MAGIC) {
            return Err(Error::BadAnnotation {
                offset: 0,
                damage: Damage::NoMagic,
            });
        }
        if head.len() < HEADER_LEN as usize {
            return Err(Error::BadAnnotation {
                offset: head.len() as u64,
                damage: Damage::HeaderCut,
            });
        }
        let header = format::Header::read(&mut Cursor::new(&head)).map_err(|e| {
            let (offset, message) = binrw_words(e);
            Error::BadAnnotation {
                offset,
                damage: Damage::Header { message },
            }
        })?;
        if header.format_version != FORMAT_VERSION {
            return Err(Error::BadAnnotation {
                offset: 8,
                damage: Damage::Version {
                    found: header.format_version,
                },
            });
        }
        if header.children < 2 {
            return Err(Error::BadAnnotation {
                offset: 39,
                damage: Damage::FewChildren {
                    children: header.children,
                },
            });
        }
        let trace_len = trace.seek(SeekFrom::End(0)).map_err(trace_io(0))?;
        if trace_len != header.clog2_size {
            return Err(Error::Stale {
                offset: trace_len,
                change: Change::TraceSize {
                    now: trace_len,
                    then: header.clog2_size,
                },
            });
        }
        let mut pre = vec![0u8; PREAMBLE_LEN.min(trace_len as usize)];
        trace.seek(SeekFrom::Start(0)).map_err(trace_io(0))?;
        trace.read_exact(&mut pre).map_err(trace_io(0))?;
        let mut crc = Crc::new();
        crc.update(&pre);
        if crc.sum() != header.preamble_crc32 {
            return Err(Error::Stale {
                offset: 0,
                change: Change::Preamble,
            });
        }
        let preamble = Preamble::parse(&pre)?;
        let layout = Layout {
            endian: preamble.endian(),
            version: preamble.info().version,
        };
        let pairer = Pairer::new(preamble.info());
        let legacy = layout.version.has_legacy_header();
        let mut body_lens = [u32::MAX; 16];
        for (rt, l) in body_lens.iter_mut().enumerate() {
            // A legacy file never takes the in-place path (its header differs).
            if let (false, Some(n)) = (legacy, body_len(rt as i32, legacy)) {
                *l = n as u32;
            }
        }
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
            body_lens,
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
        a.dir = a.block(h.treedir, Block::TreeDir, TREEDIR_AT)?;
        a.leaves = a
            .block::<LeafTable>(h.leaf_table, Block::LeafTable, LEAF_TABLE_AT)?
            .leaves;
        a.defs = a.block::<Defs>(h.defs, Block::Defs, DEFS_AT)?.defs;
        a.defs_sorted = a.defs.windows(2).all(|d| d[0].leaf <= d[1].leaf);
        let categories = (h.categories, Block::CategoryMap, CATEGORIES_AT);
        a.categories = a.block_args(categories, (true,))?;
        a.maps = a.block(h.lineidmaps, Block::LineIdMaps, LINEIDMAPS_AT)?;
        if a.leaves.len() != h.leaves as usize {
            return Err(Error::BadAnnotation {
                offset: h.leaf_table.offset as u64,
                damage: Damage::LeafCount {
                    found: a.leaves.len(),
                    header: h.leaves,
                },
            });
        }
        Ok(a)
    }

    /// The header.
    ///
    /// ```
    /// # use mpelog_annotate::{annotate, AnnotateOptions, Annotation};
    /// # use std::io::Cursor;
    /// # let trace = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut reader = clog2_format::Clog2Reader::from_slice(&trace)?;
    /// # let opts = AnnotateOptions::default().trace(trace.len() as u64, &trace[..1024]);
    /// # let (idx, _) = annotate(&mut reader, Cursor::new(Vec::new()), opts, |_| {})?;
    /// # let idx = idx.into_inner();
    /// let a = Annotation::new(Cursor::new(&idx[..]), Cursor::new(&trace[..]))?;
    /// assert_eq!(a.header().clog2_size, trace.len() as u64);
    /// assert_eq!(a.header().leaves as usize, a.leaves().len());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn header(&self) -> &format::Header {
        &self.header
    }

    /// The legend.
    ///
    /// ```
    /// # use mpelog_annotate::{annotate, AnnotateOptions, Annotation};
    /// # use std::io::Cursor;
    /// # let trace = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut reader = clog2_format::Clog2Reader::from_slice(&trace)?;
    /// # let opts = AnnotateOptions::default().trace(trace.len() as u64, &trace[..1024]);
    /// # let (idx, _) = annotate(&mut reader, Cursor::new(Vec::new()), opts, |_| {})?;
    /// # let idx = idx.into_inner();
    /// let a = Annotation::new(Cursor::new(&idx[..]), Cursor::new(&trace[..]))?;
    /// let legend = &a.categories().categories;
    /// assert_eq!(legend[0].name.text(), "message"); // the arrow category first
    /// assert!(legend.len() > 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn categories(&self) -> &CategoryMap {
        &self.categories
    }

    /// The line-ID maps.
    ///
    /// ```
    /// # use mpelog_annotate::{annotate, AnnotateOptions, Annotation};
    /// # use std::io::Cursor;
    /// # let trace = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut reader = clog2_format::Clog2Reader::from_slice(&trace)?;
    /// # let opts = AnnotateOptions::default().trace(trace.len() as u64, &trace[..1024]);
    /// # let (idx, _) = annotate(&mut reader, Cursor::new(Vec::new()), opts, |_| {})?;
    /// # let idx = idx.into_inner();
    /// let a = Annotation::new(Cursor::new(&idx[..]), Cursor::new(&trace[..]))?;
    /// let titles: Vec<String> = a.line_id_maps().maps.iter().map(|m| m.title.text()).collect();
    /// assert!(titles.contains(&"Process View".to_string()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn line_id_maps(&self) -> &LineIdMapList {
        &self.maps
    }

    /// The leaves: each a run of whole trace blocks, with its time box and the
    /// CRC-32 that tells whether the trace changed since.
    ///
    /// ```
    /// use mpelog_annotate::{annotate, AnnotateOptions, Annotation};
    /// use std::io::Cursor;
    ///
    /// let trace = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// let mut reader = clog2_format::Clog2Reader::from_slice(&trace).unwrap();
    /// let opts = AnnotateOptions::default()
    ///     .tree(slog2_format::write::TreeOptions::default().leaf_bytes(4096))
    ///     .trace(trace.len() as u64, &trace[..1024]);
    /// let (idx, stats) = annotate(&mut reader, Cursor::new(Vec::new()), opts, |_| {})?;
    /// let idx = idx.into_inner();
    /// let a = Annotation::new(Cursor::new(&idx[..]), Cursor::new(&trace[..]))?;
    /// let h = a.header();
    /// assert_eq!((h.clog2_size, h.leaves as u64), (trace.len() as u64, stats.leaves));
    /// assert_eq!(a.leaves().len() as u64, stats.leaves);
    /// // The leaves tile the trace's blocks in order.
    /// assert!(a.leaves().windows(2).all(|l| l[0].offset + l[0].len as u64 == l[1].offset));
    /// assert_eq!(a.tree_dir().entries.len() as u64, stats.nodes);
    /// assert!(!a.categories().categories.is_empty());
    /// # Ok::<(), mpelog_annotate::Error>(())
    /// ```
    pub fn leaves(&self) -> &[Leaf] {
        &self.leaves
    }

    /// The TreeDir: every node with its box and pointer.
    ///
    /// ```
    /// # use mpelog_annotate::{annotate, AnnotateOptions, Annotation};
    /// # use std::io::Cursor;
    /// # let trace = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut reader = clog2_format::Clog2Reader::from_slice(&trace)?;
    /// # let opts = AnnotateOptions::default().trace(trace.len() as u64, &trace[..1024]);
    /// # let (idx, _) = annotate(&mut reader, Cursor::new(Vec::new()), opts, |_| {})?;
    /// # let idx = idx.into_inner();
    /// let a = Annotation::new(Cursor::new(&idx[..]), Cursor::new(&trace[..]))?;
    /// let root = a.tree_dir().root().unwrap();
    /// assert_eq!(root.id.depth as u16, a.header().depth);
    /// assert!(a.tree_dir().entries.len() >= a.leaves().len());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn tree_dir(&self) -> &TreeDir {
        &self.dir
    }

    /// The definitions block's entries, in trace order.
    ///
    /// ```
    /// # use mpelog_annotate::{annotate, AnnotateOptions, Annotation};
    /// # use std::io::Cursor;
    /// # let trace = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut reader = clog2_format::Clog2Reader::from_slice(&trace)?;
    /// # let opts = AnnotateOptions::default().trace(trace.len() as u64, &trace[..1024]);
    /// # let (idx, _) = annotate(&mut reader, Cursor::new(Vec::new()), opts, |_| {})?;
    /// # let idx = idx.into_inner();
    /// let a = Annotation::new(Cursor::new(&idx[..]), Cursor::new(&trace[..]))?;
    /// assert!(!a.defs().is_empty()); // the trace's STATEDEFs and EVENTDEFs
    /// assert!(a.defs().iter().all(|d| d.kind == 2 || d.kind == 3));
    /// assert!(a.defs().windows(2).all(|w| w[0].leaf <= w[1].leaf)); // in trace order
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn defs(&self) -> &[Def] {
        &self.defs
    }

    /// Reads the node that TreeDir entry `e` points at (counted as read).
    ///
    /// # Errors
    ///
    /// [`Error::BadAnnotation`]: [`Damage::BadPointer`] when `e` points outside
    /// the annotation or past its `max_block`, at the pointer field of `e` in the
    /// TreeDir (at the offset `e` points at, for an entry the TreeDir does not
    /// hold); [`Damage::Unparsable`] at the node's offset when the block is not a
    /// tree node. [`Error::Io`] at the node's offset when the read fails.
    ///
    /// ```
    /// # use mpelog_annotate::{annotate, AnnotateOptions, Annotation, Error};
    /// # use std::io::Cursor;
    /// # let trace = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut reader = clog2_format::Clog2Reader::from_slice(&trace)?;
    /// # let opts = AnnotateOptions::default().trace(trace.len() as u64, &trace[..1024]);
    /// # let (idx, stats) = annotate(&mut reader, Cursor::new(Vec::new()), opts, |_| {})?;
    /// # let idx = idx.into_inner();
    /// use mpelog_annotate::error::Problem;
    /// let mut a = Annotation::new(Cursor::new(&idx[..]), Cursor::new(&trace[..]))?;
    /// let root = *a.tree_dir().root().unwrap();
    /// let node = a.node(&root)?;
    /// assert_eq!(node.header.id, root.id);
    /// assert_eq!(a.counters().nodes_read, 1);
    /// let mut lost = root;
    /// lost.ptr.offset = idx.len() as i64; // past the annotation's end
    /// let e = a.node(&lost).unwrap_err();
    /// assert_eq!(e.problem(), Some(Problem::BadPointer));
    /// // An entry the TreeDir does not hold: the offset it points at.
    /// assert_eq!(e.offset(), Some(idx.len() as u64));
    /// # let _ = stats;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn node(&mut self, e: &TreeDirEntry) -> Result<TreeNodeBody> {
        let field = self.node_field(e);
        let node = self.block_args((e.ptr, Block::Node, field), (true,))?;
        self.counters.nodes_read += 1;
        Ok(node)
    }

    /// Everything read so far, opening included.
    ///
    /// ```
    /// # use mpelog_annotate::{annotate, AnnotateOptions, Annotation, Error};
    /// # use std::io::Cursor;
    /// # let trace = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut reader = clog2_format::Clog2Reader::from_slice(&trace)?;
    /// # let opts = AnnotateOptions::default().trace(trace.len() as u64, &trace[..1024]);
    /// # let (idx, stats) = annotate(&mut reader, Cursor::new(Vec::new()), opts, |_| {})?;
    /// # let idx = idx.into_inner();
    /// let mut a = Annotation::new(Cursor::new(&idx[..]), Cursor::new(&trace[..]))?;
    /// let opened = a.counters();
    /// assert_eq!((opened.trace_bytes, opened.leaves_read), (1024, 0)); // the preamble
    /// a.verify_leaf(0)?;
    /// assert_eq!(a.counters().leaves_read, 1);
    /// assert_eq!(a.counters().trace_bytes, 1024 + a.leaves()[0].len as u64);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// Reads the block that `ptr`, the pointer at offset `field` of the file,
    /// points at into `self.buf`.
    fn read_idx(&mut self, ptr: FileBlockPtr, block: Block, field: u64) -> Result<()> {
        let (at, size) = (ptr.offset, ptr.size);
        if at < 0
            || size < 0
            || size as u64 > self.header.max_block as u64
            || (at as u64)
                .checked_add(size as u64)
                .is_none_or(|e| e > self.idx_len)
        {
            return Err(Error::BadAnnotation {
                offset: field,
                damage: Damage::BadPointer { block, ptr },
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

    /// Reads and parses the block that `ptr`, the pointer at offset `field`,
    /// points at.
    fn block<B: for<'a> BinRead<Args<'a> = ()>>(
        &mut self,
        ptr: FileBlockPtr,
        block: Block,
        field: u64,
    ) -> Result<B> {
        self.block_args((ptr, block, field), ())
    }

    /// [`Self::block`] with the parser's arguments.
    fn block_args<B: BinRead>(
        &mut self,
        (ptr, block, field): (FileBlockPtr, Block, u64),
        args: B::Args<'_>,
    ) -> Result<B> {
        self.read_idx(ptr, block, field)?;
        self.parse_buf(ptr, block, args)
    }

    /// Parses the block just read (from `ptr`).
    fn parse_buf<B: BinRead>(
        &self,
        ptr: FileBlockPtr,
        block: Block,
        args: B::Args<'_>,
    ) -> Result<B> {
        B::read_be_args(&mut Cursor::new(&self.buf), args).map_err(|e| {
            let (at, damage) = binrw_damage(e, block);
            Error::BadAnnotation {
                offset: ptr.offset as u64 + at,
                damage,
            }
        })
    }

    /// The offset of the pointer field of TreeDir entry `e`: its place in the
    /// TreeDir, or, for an entry the TreeDir does not hold (another ID or
    /// pointer), the offset it points at.
    fn node_field(&self, e: &TreeDirEntry) -> u64 {
        let held = |x: &TreeDirEntry| x.id == e.id && x.ptr == e.ptr;
        match self.dir.entries.iter().position(held) {
            Some(i) => self.entry_field(i),
            None => e.ptr.offset.max(0) as u64,
        }
    }

    /// The offset of TreeDir entry `i`'s pointer field.
    fn entry_field(&self, i: usize) -> u64 {
        self.header.treedir.offset as u64 + 4 + 34 * i as u64 + 22
    }

    /// The offset of leaf `i`'s carry-in pointer field in the leaf table.
    fn carry_field(&self, i: usize) -> u64 {
        self.header.leaf_table.offset as u64 + 4 + 48 * i as u64 + 36
    }

    /// The drawables that meet `[start, end)`, exactly as a window on the SLOG-2
    /// file converted from the same trace gives them.
    ///
    /// # Errors
    ///
    /// As [`Annotation::verify_leaf`] for each leaf the window reads, and
    /// [`Error::Io`], [`Error::BadAnnotation`] or [`Error::Slog2`] for the
    /// annotation's nodes.
    ///
    /// ```
    /// # use mpelog_annotate::{annotate, AnnotateOptions, Annotation, Error};
    /// # use std::io::Cursor;
    /// # let trace = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut reader = clog2_format::Clog2Reader::from_slice(&trace)?;
    /// # let opts = AnnotateOptions::default().trace(trace.len() as u64, &trace[..1024]);
    /// # let (idx, stats) = annotate(&mut reader, Cursor::new(Vec::new()), opts, |_| {})?;
    /// # let idx = idx.into_inner();
    /// use slog2_format::{convert::clog2_to_slog2, Drawable, Slog2Reader};
    ///
    /// let mut a = Annotation::new(Cursor::new(&idx[..]), Cursor::new(&trace[..]))?;
    /// let answer = a.window(0.1, 0.11)?;
    ///
    /// // The same drawables as the converted SLOG-2 file's window.
    /// let mut reader = clog2_format::Clog2Reader::from_slice(&trace)?;
    /// let (slog2, _) = clog2_to_slog2(&mut reader, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// let converted = Slog2Reader::new(Cursor::new(slog2.into_inner()))?.window(0.1, 0.11)?;
    /// let mut ours: Vec<_> = answer.drawables.iter().map(|d| Drawable::Primitive(d.value.clone())).collect();
    /// let mut theirs: Vec<_> = converted.drawables.into_iter().map(|d| d.value).collect();
    /// let key = |d: &Drawable| (d.earliest().to_bits(), d.latest().to_bits(), d.category());
    /// ours.sort_by_key(key);
    /// theirs.sort_by_key(key);
    /// assert!(!ours.is_empty());
    /// assert_eq!(ours, theirs);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn window(&mut self, start: f64, end: f64) -> Result<AnnotationAnswer> {
        let w = TimeWindow::new(start, end);
        let before = self.counters;
        self.collect(w)?;
        let s = &mut self.scratch;
        let mut out: Vec<Located<Primitive>> =
            Vec::with_capacity(s.node_entries.len() + s.entries.len());
        let mut nodes = std::mem::take(&mut s.node_prims);
        for e in s.merged() {
            let value = if e.src & NODE != 0 {
                std::mem::replace(
                    &mut nodes[(e.src & !NODE) as usize],
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
                owned(&s.prims[e.src as usize])
            };
            out.push(Located {
                node: e.node,
                value,
            });
        }
        s.node_prims = nodes;
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

    /// [`window`](Self::window) into a reusable [`WindowBuf`] (the answer type
    /// of SLOG-2 window queries): the same drawables in the same order, held in
    /// the buffer's flat arrays, so that a query allocates nothing once the
    /// buffer and this reader's own buffers have grown to the size of its
    /// answers. Returns what the query read; the buffer's own
    /// [`WindowBuf::counters`] and [`WindowBuf::nodes`] stay empty. After an
    /// error the buffer holds an empty answer. Besides the errors of `window`:
    /// [`Error::Slog2`] with `BadValue` when the answer does not fit the
    /// buffer (more than 4 Gi vertices or info bytes).
    ///
    /// # Errors
    ///
    /// As [`window`](Self::window).
    ///
    /// ```no_run
    /// # fn main() -> mpelog_annotate::Result<()> {
    /// use mpelog_annotate::Annotation;
    /// use slog2_format::WindowBuf;
    /// use std::fs::File;
    ///
    /// let idx = File::open("trace.clog2.idx").unwrap();
    /// let trace = File::open("trace.clog2").unwrap();
    /// let mut a = Annotation::new(idx, trace)?;
    /// let mut buf = WindowBuf::new();
    /// for i in 0..10 {
    ///     let t = f64::from(i) * 0.1;
    ///     let read = a.window_into(&mut buf, t, t + 0.1)?;
    ///     println!("{} drawables, {} trace bytes read", buf.drawables_len(), read.trace_bytes);
    ///     for d in buf.drawables() {
    ///         println!("{} {:?} {}..{}", d.category(), d.node(), d.earliest(), d.latest());
    ///     }
    /// }
    /// # Ok(()) }
    /// ```
    pub fn window_into(&mut self, buf: &mut WindowBuf, start: f64, end: f64) -> Result<Counters> {
        let w = TimeWindow::new(start, end);
        buf.clear(w);
        let before = self.counters;
        self.collect(w)?;
        let s = &mut self.scratch;
        let mut tmp = s.tmp.take().unwrap_or(Primitive {
            category: 0,
            info: JStr {
                len: 0,
                bytes: Vec::new(),
            },
            vertices: Vec::new(),
        });
        let mut pushed = Ok(());
        for e in s.merged() {
            pushed = if e.src & NODE != 0 {
                buf.push_primitive(e.node, &s.node_prims[(e.src & !NODE) as usize])
            } else {
                let p = &s.prims[e.src as usize];
                tmp.category = p.category;
                tmp.info.len = i16::from(p.info_len);
                tmp.info.bytes.clear();
                tmp.info.bytes.extend_from_slice(p.info());
                tmp.vertices.clear();
                for i in 0..(p.nv as usize).min(2) {
                    tmp.vertices.push(Coord {
                        time: p.times[i],
                        line_id: p.lines[i],
                    });
                }
                buf.push_primitive(e.node, &tmp)
            };
            if pushed.is_err() {
                break;
            }
        }
        s.tmp = Some(tmp);
        if let Err(e) = pushed {
            buf.clear(w);
            // As `Slog2Reader::window_into` says it.
            return Err(Error::Slog2(slog2_format::Error::BadValue {
                offset: 0,
                problem: slog2_format::error::ValueProblem::AnswerTooLarge { refused: Some(e) },
            }));
        }
        // In order already: the sort checks it and keeps it.
        buf.sort();
        let c = self.counters;
        Ok(Counters {
            nodes_read: c.nodes_read - before.nodes_read,
            annotation_bytes: c.annotation_bytes - before.annotation_bytes,
            trace_bytes: c.trace_bytes - before.trace_bytes,
            leaves_read: c.leaves_read - before.leaves_read,
            other_records: c.other_records - before.other_records,
        })
    }

    /// Finds the drawables of window `w` into the scratch buffers: those of
    /// nodes and those of leaves, each list sorted in `INCRE_STARTTIME_ORDER`
    /// (ties: by node, depth descending then xpos, each in file order; leaves in order, each
    /// by the record that began the drawable).
    fn collect(&mut self, w: TimeWindow) -> Result<()> {
        self.scratch.node_entries.clear();
        self.scratch.entries.clear();
        self.scratch.prims.clear();
        self.scratch.node_prims.clear();
        for k in 0..self.dir.entries.len() {
            let e = self.dir.entries[k];
            if !w.meets(e.earliest, e.latest) {
                continue;
            }
            self.read_idx(e.ptr, Block::Node, self.entry_field(k))?;
            if scan_node(&self.buf, w, e.id, &mut self.scratch).is_some() {
                self.counters.nodes_read += 1;
                continue;
            }
            let node: TreeNodeBody = self.parse_buf(e.ptr, Block::Node, (true,))?;
            self.counters.nodes_read += 1;
            let s = &mut self.scratch;
            for d in node.nestless.into_iter().chain(node.nestable) {
                if w.shows(&d) {
                    if let Drawable::Primitive(p) = d {
                        let src = s.node_prims.len() as u32 | NODE;
                        s.node_entries.push(Entry::new(node_key(&p), e.id, src));
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
        let s = &mut self.scratch;
        // Ties by node (depth descending, then xpos) whatever the TreeDir's order.
        s.node_entries
            .sort_by_key(|e| (e.key, -i32::from(e.node.depth), e.node.xpos));
        s.entries.retain(|e| e.src != HOLE);
        sort_nearly_sorted(&mut s.entries);
        Ok(())
    }

    /// Reads leaf `i` as a window query does (its carry-in block and its trace
    /// range, checksum included) and pairs its records; returns how many
    /// drawables begin and end in it. Memory is one leaf's: this is how
    /// `mpelog check` verifies a whole annotation.
    ///
    /// # Errors
    ///
    /// [`Error::Write`] for a leaf that does not exist; [`Error::BadAnnotation`]
    /// for a carry-in block or a range that breaks spec/annotation.md;
    /// [`Error::Stale`] for trace bytes whose checksum changed; [`Error::Io`]
    /// and the trace's [`Error::Clog2`] errors.
    ///
    /// ```
    /// # use mpelog_annotate::{annotate, AnnotateOptions, Annotation, Error};
    /// # use std::io::Cursor;
    /// # let trace = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut reader = clog2_format::Clog2Reader::from_slice(&trace)?;
    /// # let opts = AnnotateOptions::default().trace(trace.len() as u64, &trace[..1024]);
    /// # let (idx, stats) = annotate(&mut reader, Cursor::new(Vec::new()), opts, |_| {})?;
    /// # let idx = idx.into_inner();
    /// let mut a = Annotation::new(Cursor::new(&idx[..]), Cursor::new(&trace[..]))?;
    /// let mut paired = 0;
    /// for i in 0..a.leaves().len() {
    ///     paired += a.verify_leaf(i)?;
    /// }
    /// assert!(paired > 0);
    /// assert!(matches!(a.verify_leaf(a.leaves().len()), Err(Error::Write(_))));
    ///
    /// // A changed byte inside a leaf's range fails its checksum.
    /// let mut changed = trace.clone();
    /// let at = a.leaves()[0].offset as usize + 100;
    /// changed[at] ^= 0xff;
    /// let mut b = Annotation::new(Cursor::new(&idx[..]), Cursor::new(&changed[..]))?;
    /// assert_eq!(b.verify_leaf(0).err().and_then(|e| e.problem()), Some(mpelog_annotate::error::Problem::LeafChanged));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn verify_leaf(&mut self, i: usize) -> Result<usize> {
        if i >= self.leaves.len() {
            return Err(Error::Write(WriteProblem::NoSuchLeaf {
                index: i,
                leaves: self.leaves.len(),
            }));
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
        self.read_idx(leaf.carry, Block::Carry, self.carry_field(i))?;
        if parse_carry(&self.buf, &mut self.scratch.carry).is_none() {
            // Not a carry-in block: the binrw reader says why (or, should it
            // read what the fast path refused, its entries are used).
            let carry = Carry::read_be(&mut Cursor::new(&self.buf)).map_err(|e| {
                let (at, damage) = binrw_damage(e, Block::Carry);
                Error::BadAnnotation {
                    offset: leaf.carry.offset as u64 + at,
                    damage,
                }
            })?;
            self.scratch.carry.clear();
            self.scratch
                .carry
                .extend(carry.waiting.iter().map(Partial::from));
        }
        self.counters.nodes_read += 1;
        self.counters.leaves_read += 1;
        let bs = self.header.clog2_block_size as u64;
        if !whole_blocks_in_trace(&leaf, &self.header) {
            return Err(Error::BadAnnotation {
                offset: self.header.leaf_table.offset as u64 + 4 + 48 * i as u64,
                damage: Damage::LeafRange {
                    leaf: i,
                    offset: leaf.offset,
                    len: leaf.len,
                },
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
                offset: leaf.offset,
                change: Change::Leaf {
                    leaf: i,
                    offset: leaf.offset,
                    len: leaf.len,
                },
            });
        }
        let me = i as u32;
        let first_slot = u32::try_from(self.scratch.entries.len()).unwrap_or(u32::MAX);
        self.pairer.start_leaf(
            &self.defs,
            me,
            self.defs_sorted,
            &self.scratch.carry,
            first_slot,
        );
        let node = NodeId {
            depth: 0,
            xpos: i as i32,
        };
        let (layout, lens) = (self.layout, self.body_lens);
        let pairer = &mut self.pairer;
        let s = &mut self.scratch;
        let mut count = 0usize;
        let first = (leaf.offset - PREAMBLE_LEN as u64) / bs;
        'blocks: for (b, bytes) in self.tbuf.chunks(bs as usize).enumerate() {
            let base = leaf.offset + b as u64 * bs;
            let index = first + b as u64;
            let mut pos = 0usize;
            loop {
                let (rec, len) = match record_at(bytes, pos, layout, &lens) {
                    Some(r) => r,
                    None => decode_record_ref(bytes, pos, layout, base, index)?,
                };
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
                let done = pairer.push(&rec, me);
                while (s.entries.len() as u64) < u64::from(pairer.next_slot()) {
                    s.entries.push(HOLE_ENTRY);
                }
                if let Some((p, origin, slot)) = done {
                    if origin == me {
                        count += 1;
                        if w.is_none_or(|w| w.meets(p.earliest(), p.latest())) {
                            let e = Entry::new(p.order_key(), node, s.prims.len() as u32);
                            match s.entries.get_mut(slot as usize) {
                                Some(at) if slot != NO_SLOT => *at = e,
                                _ => s.entries.push(e),
                            }
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

/// Whether a leaf's range is whole CLOG2 blocks after the preamble and inside
/// the trace (rule IDX-LEAF-002).
fn whole_blocks_in_trace(leaf: &Leaf, header: &format::Header) -> bool {
    let bs = header.clog2_block_size as u64;
    bs != 0
        && leaf.len as u64 % bs == 0
        && leaf.offset >= PREAMBLE_LEN as u64
        && leaf
            .offset
            .checked_add(leaf.len as u64)
            .is_some_and(|e| e <= header.clog2_size)
}

#[cfg(test)]
mod tests {
    //! The in-place pairing of leaves against `Clog2Drawables` (the converter's
    //! pairing, as this reader used it before): every leaf of generated traces
    //! full of definitions that clash, undeclared and unmatched events, both
    //! byte orders and every version, and of the corpus, gives the same
    //! drawables, counts and errors.

    use super::*;
    use crate::write::def_record;
    use clog2_format::codec::BlockRecords;
    use clog2_format::Body;
    use proptest::prelude::*;
    use slog2_format::convert::{Clog2Drawables, Partial};

    /// Leaf `i` as this reader read it before (a new `Clog2Drawables` per
    /// leaf, owned records): its drawables that begin in it, and the records
    /// that are no event.
    fn reference_leaf<A: Read + Seek, T: Read + Seek>(
        a: &mut Annotation<A, T>,
        i: usize,
    ) -> Result<(Vec<Prim>, u64)> {
        let leaf = a.leaves[i];
        let carry: Carry = a.block(leaf.carry, Block::Carry, a.carry_field(i))?;
        let bs = a.header.clog2_block_size as u64;
        if !whole_blocks_in_trace(&leaf, &a.header) {
            return Err(Error::Write(WriteProblem::LeafRange));
        }
        a.trace
            .seek(SeekFrom::Start(leaf.offset))
            .map_err(|source| Error::Io {
                file: "trace",
                offset: leaf.offset,
                source,
            })?;
        a.trace_pos = None;
        let mut buf = vec![0u8; leaf.len as usize];
        a.trace.read_exact(&mut buf).unwrap();
        let mut pre = vec![0u8; PREAMBLE_LEN];
        a.trace.seek(SeekFrom::Start(0)).unwrap();
        a.trace.read_exact(&mut pre).unwrap();
        let preamble = clog2_format::Preamble::parse(&pre).unwrap();
        let info = preamble.info();
        let mut ev = Clog2Drawables::new(info);
        for d in a.defs.iter().filter(|d| (d.leaf as usize) < i) {
            ev.push(&def_record(d));
        }
        let partials: Vec<Partial> = carry.waiting.iter().map(Partial::from).collect();
        ev.restore(&partials);
        let mut out = Vec::new();
        let mut other = 0;
        let first = (leaf.offset - PREAMBLE_LEN as u64) / bs;
        'blocks: for (b, bytes) in buf.chunks(bs as usize).enumerate() {
            let base = leaf.offset + b as u64 * bs;
            for r in BlockRecords::new(bytes, a.layout, base, first + b as u64) {
                let (rec, _) = r?;
                if !matches!(
                    rec.body,
                    Body::EndBlock
                        | Body::EndLog
                        | Body::Bare(_)
                        | Body::Cargo(_)
                        | Body::Msg(_)
                        | Body::LegacyMsg(_)
                ) {
                    other += 1;
                }
                if let Some((p, origin)) = ev.push_at(&rec, i as u64) {
                    if origin == i as u64 {
                        out.push(p);
                    }
                }
                if ev.ended() {
                    break 'blocks;
                }
            }
        }
        Ok((out, other))
    }

    fn sorted(v: &[Prim]) -> Vec<String> {
        let mut s: Vec<String> = v.iter().map(|p| format!("{p:?}")).collect();
        s.sort();
        s
    }

    /// Compares every leaf of `idx` over `clog2`, in order and then backwards
    /// (so that the reused pairing state is exercised both ways); returns the
    /// drawables found.
    fn compare_leaves(clog2: &[u8], idx: &[u8]) -> usize {
        let mut a = Annotation::new(Cursor::new(idx), Cursor::new(clog2)).unwrap();
        let n = a.leaves.len();
        let mut total = 0;
        for i in (0..n).chain((0..n).rev()) {
            let before = a.counters.other_records;
            let fast = a.verify_leaf(i);
            let got: Vec<Prim> = a
                .scratch
                .entries
                .iter()
                .filter(|e| e.src != HOLE)
                .map(|e| a.scratch.prims[e.src as usize])
                .collect();
            let other = a.counters.other_records - before;
            match (fast, reference_leaf(&mut a, i)) {
                (Ok(count), Ok((want, want_other))) => {
                    assert_eq!(count, want.len(), "leaf {i}");
                    assert_eq!(sorted(&got), sorted(&want), "leaf {i}");
                    assert_eq!(other, want_other, "leaf {i}");
                    total += count;
                }
                (Err(e), Err(f)) => assert_eq!(format!("{e:?}"), format!("{f:?}"), "leaf {i}"),
                (x, y) => panic!("leaf {i}: {x:?} against {:?}", y.map(|(v, o)| (v.len(), o))),
            }
        }
        total
    }

    /// A trace of [`pairing_case`] records, with a leaf size and a tree's
    /// children.
    ///
    /// [`pairing_case`]: mpelog_conformance::strategies::clog2::pairing_case
    fn case() -> impl Strategy<Value = (Vec<u8>, u32, u16)> {
        use mpelog_conformance::strategies::clog2::{pairing_case, write};
        (
            pairing_case(),
            prop::sample::select(vec![256u32, 512, 1024]),
            2u16..4,
        )
            .prop_map(|(case, leaf_bytes, children)| (write(&case), leaf_bytes, children))
    }

    fn annotated(clog2: &[u8], leaf_bytes: u32, children: u16) -> Option<Vec<u8>> {
        let mut r = clog2_format::Clog2Reader::from_slice(clog2).ok()?;
        let (out, _) = crate::annotate(
            &mut r,
            Cursor::new(Vec::new()),
            crate::AnnotateOptions::default()
                .tree(
                    slog2_format::write::TreeOptions::default()
                        .leaf_bytes(leaf_bytes)
                        .children(children),
                )
                .trace(clog2.len() as u64, &clog2[..PREAMBLE_LEN.min(clog2.len())]),
            |_| {},
        )
        .ok()?;
        Some(out.into_inner())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

        #[test]
        fn leaves_pair_as_clog2_drawables((clog2, leaf_bytes, children) in case()) {
            let idx = annotated(&clog2, leaf_bytes, children);
            prop_assume!(idx.is_some());
            compare_leaves(&clog2, &idx.unwrap_or_default());
        }
    }

    #[test]
    fn generated_traces_pair_as_clog2_drawables() {
        for (ranks, events, seed, bs, leaf) in [
            (1, 3000, 1, 512, 512),
            (4, 20000, 2, 1024, 4096),
            (16, 30000, 3, 4096, 4096),
        ] {
            let clog2 = clog2_format::synth::generate_vec(
                &clog2_format::synth::Options::default()
                    .ranks(ranks)
                    .events(events)
                    .seed(seed)
                    .block_size(bs),
            )
            .unwrap();
            let idx = annotated(&clog2, leaf, 2).unwrap();
            assert!(compare_leaves(&clog2, &idx) > events as usize / 4);
        }
    }

    #[test]
    fn corpus_traces_pair_as_clog2_drawables() {
        let Some(dir) = mpelog_conformance::corpus::root() else {
            return;
        };
        let mut n = 0;
        for e in std::fs::read_dir(dir.join("mpe")).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_none_or(|x| x != "clog2") {
                continue;
            }
            let clog2 = std::fs::read(&p).unwrap();
            for leaf in [4096, 65536] {
                let idx = annotated(&clog2, leaf, 3).unwrap();
                compare_leaves(&clog2, &idx);
            }
            n += 1;
        }
        assert_eq!(n, 26, "corpus CLOG2 files");
    }

    /// What the node scan finds in a block, and what the binrw path finds
    /// (`None` when binrw refuses the block).
    fn node_both(b: &[u8], w: TimeWindow) -> (Option<String>, Option<String>) {
        let id = NodeId { depth: 1, xpos: 0 };
        let mut s = Scratch::default();
        let fast = scan_node(b, w, id, &mut s)
            .map(|()| format!("{:?} {:?}", s.node_entries, s.node_prims));
        let slow = TreeNodeBody::read_be_args(&mut Cursor::new(b), (true,))
            .ok()
            .map(|node| {
                let mut s = Scratch::default();
                for d in node.nestless.into_iter().chain(node.nestable) {
                    if w.shows(&d) {
                        if let Drawable::Primitive(p) = d {
                            let src = s.node_prims.len() as u32 | NODE;
                            s.node_entries.push(Entry::new(node_key(&p), id, src));
                            s.node_prims.push(p);
                        }
                    }
                }
                format!("{:?} {:?}", s.node_entries, s.node_prims)
            });
        (fast, slow)
    }

    /// The node scan reads what binrw reads, alike: on the nodes of a
    /// generated annotation, with every byte of some of them changed.
    #[test]
    fn node_scan_reads_as_binrw_reads() {
        let clog2 = clog2_format::synth::generate_vec(
            &clog2_format::synth::Options::default()
                .ranks(3)
                .events(6000)
                .seed(5)
                .block_size(512),
        )
        .unwrap();
        let idx = annotated(&clog2, 512, 2).unwrap();
        let a = Annotation::new(Cursor::new(&idx), Cursor::new(&clog2)).unwrap();
        let (t0, t1) = (a.header.earliest, a.header.latest);
        let windows = [
            TimeWindow::new(t0, t1 + 1.0),
            TimeWindow::new(t0 + (t1 - t0) * 0.3, t0 + (t1 - t0) * 0.4),
            TimeWindow::new(t1, t1),
        ];
        let (mut fast, mut refused) = (0, 0);
        for (k, e) in a.dir.entries.iter().enumerate() {
            let (at, n) = (e.ptr.offset as usize, e.ptr.size as usize);
            let block = &idx[at..at + n];
            for w in windows {
                let (x, y) = node_both(block, w);
                assert!(x.is_some(), "a writer's node is read in place");
                assert_eq!(x, y);
            }
            if k % 7 != 0 || n > 2000 {
                continue;
            }
            for i in 0..n {
                for v in [0u8, 1, 0x80, 0xff] {
                    let mut b = block.to_vec();
                    b[i] = v;
                    let (x, y) = node_both(&b, windows[0]);
                    if x.is_some() {
                        assert_eq!(x, y, "byte {i} of node {k} set to {v}");
                        fast += 1;
                    } else {
                        refused += 1;
                    }
                }
            }
            let (x, y) = node_both(&block[..n - 1], windows[0]);
            assert_eq!(x, None);
            assert_eq!(y, None);
        }
        assert!(
            fast > 100 && refused > 100,
            "{fast} read, {refused} refused"
        );
    }

    /// The in-place carry-in reader accepts exactly what the binrw layout
    /// reads, with the same values.
    #[test]
    fn carry_blocks_read_as_binrw_reads_them() {
        use binrw::BinWrite;
        let carry = Carry {
            waiting: vec![
                Waiting::State {
                    category: 3,
                    line: -2,
                    time: 1.5,
                    origin: 7,
                    info: vec![1, 2, 3],
                },
                Waiting::Send {
                    key: [1, 2, 3],
                    time: 2.5,
                    line: 4,
                    size: 99,
                    origin: 1,
                },
                Waiting::Recv {
                    key: [4, 5, 6],
                    time: -1.0,
                    line: 8,
                    origin: 0,
                },
                Waiting::State {
                    category: 0,
                    line: 0,
                    time: 0.0,
                    origin: 0,
                    info: vec![9; 32],
                },
            ],
        };
        let mut c = Cursor::new(Vec::new());
        carry.write_be(&mut c).unwrap();
        let bytes = c.into_inner();
        let mut out = Vec::new();
        let mut tried = 0;
        // Every cut, every single-byte change and a trailing byte.
        let mut cases: Vec<Vec<u8>> = (0..=bytes.len()).map(|n| bytes[..n].to_vec()).collect();
        for at in 0..bytes.len() {
            for v in [0u8, 1, 2, 3, 32, 33, 0x80, 0xff] {
                let mut b = bytes.clone();
                b[at] = v;
                cases.push(b);
            }
        }
        let mut longer = bytes.clone();
        longer.push(5);
        cases.push(longer);
        for b in cases {
            // Debug text: a changed byte may make a NaN time.
            let fast = parse_carry(&b, &mut out).map(|_| format!("{out:?}"));
            let slow = Carry::read_be(&mut Cursor::new(&b)).ok().map(|c| {
                format!(
                    "{:?}",
                    c.waiting.iter().map(Partial::from).collect::<Vec<_>>()
                )
            });
            assert_eq!(fast, slow, "{b:?}");
            tried += usize::from(fast.is_some());
        }
        assert!(tried > 100, "{tried} cases read");
    }
}
