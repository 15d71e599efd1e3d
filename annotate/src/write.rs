//! Annotating a trace in one pass (spec/annotation.md §9): records are read in
//! order; at each leaf boundary the waiting events are written as the leaf's
//! carry-in; a drawable whose two ends lie in different leaves goes to the lowest
//! node above both; a node is written when its last leaf closes.

use crate::error::{Error, OptionsProblem, Result, WriteProblem};
use crate::format::{self, *};
use binrw::BinWrite;
use clog2_format::{Body, Clog2Reader, Record, Source};
use flate2::Crc;
use rustc_hash::FxHashSet;
use slog2_format::convert::Clog2Drawables;
use slog2_format::size::start_order;
use slog2_format::types::*;
use slog2_format::write::{Prim, TreeOptions};
use std::collections::BTreeMap;
use std::io::{Cursor, Seek, SeekFrom, Write};

/// How to cut the trace into leaves, how wide the tree is (the tree shape
/// options of SLOG-2's writer, [`TreeOptions`]), and which trace the annotation
/// belongs to.
///
/// ```
/// use mpelog_annotate::AnnotateOptions;
/// use slog2_format::write::TreeOptions;
/// let trace = vec![0u8; 2048];
/// let opts = AnnotateOptions::default()
///     .tree(TreeOptions::default().children(4))
///     .trace(2048, &trace[..1024]);
/// assert_eq!(opts.tree.children, 4);
/// assert_eq!(opts.trace.map(|t| t.size), Some(2048));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct AnnotateOptions {
    /// The tree's shape: a leaf holds `max(1, tree.leaf_bytes / block_size)`
    /// whole CLOG2 blocks; `tree.children` children per node (at least 2).
    /// `tree.compression` does not apply (annotation nodes are not framed).
    pub tree: TreeOptions,
    /// The trace the annotation stamps (its size and the CRC-32 of its
    /// preamble), which a reader compares to refuse a stale annotation. No
    /// default: [`annotate`] refuses options without it.
    pub trace: Option<TraceStamp>,
}

/// What an annotation records of its trace to tell a changed trace
/// (spec/annotation.md): the file's size and the CRC-32 of its first bytes.
///
/// ```
/// use mpelog_annotate::TraceStamp;
/// // The CRC-32 of "123456789" is the standard check value.
/// assert_eq!(TraceStamp::new(9, b"123456789").preamble_crc32, 0xCBF4_3926);
/// assert_ne!(TraceStamp::new(1024, b"CLOG-02.44"), TraceStamp::new(1024, b"CLOG-02.43"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct TraceStamp {
    /// The trace file's size in bytes.
    pub size: u64,
    /// The CRC-32 of its preamble bytes (the first 1024, or fewer in a
    /// shorter file).
    pub preamble_crc32: u32,
}

impl TraceStamp {
    /// The stamp of a trace of `size` bytes whose preamble bytes are `preamble`.
    ///
    /// ```
    /// let s = mpelog_annotate::TraceStamp::new(4096, b"CLOG-02.44");
    /// assert_eq!(s.size, 4096);
    /// ```
    pub fn new(size: u64, preamble: &[u8]) -> TraceStamp {
        let mut crc = Crc::new();
        crc.update(preamble);
        TraceStamp {
            size,
            preamble_crc32: crc.sum(),
        }
    }
}

impl Default for AnnotateOptions {
    /// 64 KiB leaves (one block of MPE's default size), 2 children per node:
    /// [`TreeOptions::default`].
    fn default() -> Self {
        AnnotateOptions {
            tree: TreeOptions::default(),
            trace: None,
        }
    }
}

/// Setters, one per field (the struct is `#[non_exhaustive]`: start from
/// [`Default`]).
impl AnnotateOptions {
    /// Sets `tree` (see the field).
    ///
    /// ```
    /// use mpelog_annotate::AnnotateOptions;
    /// use slog2_format::write::TreeOptions;
    /// let opts = AnnotateOptions::default().tree(TreeOptions::default().leaf_bytes(4096));
    /// assert_eq!(opts.tree.leaf_bytes, 4096);
    /// ```
    pub fn tree(mut self, tree: TreeOptions) -> Self {
        self.tree = tree;
        self
    }

    /// Sets `trace` to the stamp of a trace of `size` bytes whose preamble
    /// bytes (its first 1024, or fewer) are `preamble` ([`TraceStamp::new`]).
    ///
    /// ```
    /// use mpelog_annotate::{AnnotateOptions, TraceStamp};
    /// let opts = AnnotateOptions::default().trace(4096, b"CLOG-02.44");
    /// assert_eq!(opts.trace, Some(TraceStamp::new(4096, b"CLOG-02.44")));
    /// ```
    pub fn trace(mut self, size: u64, preamble: &[u8]) -> Self {
        self.trace = Some(TraceStamp::new(size, preamble));
        self
    }
}

/// What annotating did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AnnotateStats {
    /// Trace bytes read.
    pub input_bytes: u64,
    /// Records read.
    pub records: u64,
    /// Leaves (byte ranges).
    pub leaves: u64,
    /// Non-leaf nodes written.
    pub nodes: u64,
    /// Depth of the root.
    pub depth: u16,
    /// Drawables in the trace.
    pub drawables: u64,
    /// Of them, those stored in the annotation (both ends in different leaves).
    pub stored: u64,
    /// Bytes of the annotation file.
    pub bytes: u64,
}

/// An open non-leaf node.
#[derive(Debug)]
struct Open {
    xpos: i32,
    earliest: f64,
    latest: f64,
    prims: Vec<Prim>,
}

/// A writer of annotation blocks that tracks its position.
struct Out<W> {
    w: W,
    pos: u64,
    max_block: u64,
}

impl<W: Write + Seek> Out<W> {
    fn block<T: for<'a> BinWrite<Args<'a> = ()>>(&mut self, v: &T) -> Result<FileBlockPtr> {
        let mut c = Cursor::new(Vec::new());
        v.write_be(&mut c)
            .map_err(|e| Error::Write(WriteProblem::Encode(e.to_string())))?;
        self.raw(&c.into_inner())
    }

    fn raw(&mut self, bytes: &[u8]) -> Result<FileBlockPtr> {
        self.w.write_all(bytes).map_err(|source| Error::Io {
            file: "annotation",
            offset: self.pos,
            source,
        })?;
        let ptr = FileBlockPtr {
            offset: self.pos as i64,
            size: i32::try_from(bytes.len())
                .map_err(|_| Error::Write(WriteProblem::BlockTooLarge))?,
        };
        self.pos += bytes.len() as u64;
        self.max_block = self.max_block.max(bytes.len() as u64);
        Ok(ptr)
    }
}

/// The depth of the lowest node above leaves `a` and `b` in a tree of `k`
/// children per node (0: the same leaf).
///
/// ```
/// use mpelog_annotate::write::common_depth;
/// assert_eq!(common_depth(3, 3, 2), 0);
/// assert_eq!(common_depth(2, 3, 2), 1);
/// assert_eq!(common_depth(0, 4, 2), 3);
/// ```
pub fn common_depth(a: u64, b: u64, k: u64) -> u16 {
    let (mut a, mut b, mut d) = (a, b, 0u16);
    while a != b {
        a /= k;
        b /= k;
        d += 1;
    }
    d
}

/// Writes the node at depth `d`; returns its TreeDir entry.
fn write_node<W: Write + Seek>(out: &mut Out<W>, d: u16, n: Open) -> Result<TreeDirEntry> {
    let mut nestless: Vec<&Prim> = Vec::new();
    let mut nestable: Vec<&Prim> = Vec::new();
    for p in &n.prims {
        if p.topology == topology::STATE {
            nestable.push(p)
        } else {
            nestless.push(p)
        }
    }
    nestless.sort_by(|a, b| start_order(a.order_key(), b.order_key()));
    nestable.sort_by(|a, b| start_order(a.order_key(), b.order_key()));
    let id = NodeId {
        depth: d as i16,
        xpos: n.xpos,
    };
    let mut body = TreeNodeBody {
        header: NodeHeader {
            earliest: n.earliest,
            latest: n.latest,
            id,
            ptr: FileBlockPtr::NULL,
        },
        nestless: nestless
            .iter()
            .map(|p| Drawable::Primitive(p.to_primitive()))
            .collect(),
        nestable: nestable
            .iter()
            .map(|p| Drawable::Primitive(p.to_primitive()))
            .collect(),
        stubs: Vec::new(),
    };
    let mut c = Cursor::new(Vec::new());
    body.write_be(&mut c)
        .map_err(|e| Error::Write(WriteProblem::Encode(e.to_string())))?;
    let len = c.get_ref().len();
    body.header.ptr = FileBlockPtr {
        offset: out.pos as i64,
        size: i32::try_from(len).map_err(|_| Error::Write(WriteProblem::NodeTooLarge))?,
    };
    let ptr = out.block(&body)?;
    Ok(TreeDirEntry {
        id,
        earliest: n.earliest,
        latest: n.latest,
        ptr,
    })
}

/// Annotates the trace `reader` reads (opened at its start), writing the
/// annotation to `out` (at its start), with the shape of the converters
/// (`slog2_format::convert::clog2_to_slog2`): reader in, writer out, options,
/// progress. `opts.trace` names the trace ([`AnnotateOptions::trace`]).
/// `progress` gets the trace offset now and then.
///
/// # Errors
///
/// [`Error::InvalidOptions`] for fewer than 2 or more than 32767 children or
/// options without [`AnnotateOptions::trace`]; the trace's errors; the
/// writer's.
///
/// ```
/// use mpelog_annotate::{annotate, looks_like, AnnotateOptions, Error};
/// use std::io::Cursor;
///
/// let trace = clog2_format::synth::generate_vec(&Default::default())?;
/// let mut reader = clog2_format::Clog2Reader::from_slice(&trace)?;
/// let unnamed = annotate(&mut reader, Cursor::new(Vec::new()), AnnotateOptions::default(), |_| {});
/// assert!(matches!(unnamed, Err(Error::InvalidOptions(_))));
///
/// let mut reader = clog2_format::Clog2Reader::from_slice(&trace)?;
/// let opts = AnnotateOptions::default().trace(trace.len() as u64, &trace[..1024]);
/// let (idx, stats) = annotate(&mut reader, Cursor::new(Vec::new()), opts, |_| {})?;
/// assert!(looks_like(idx.get_ref()));
/// assert_eq!(stats.bytes, idx.get_ref().len() as u64);
/// assert!(stats.stored > 0 && stats.stored < stats.drawables);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn annotate<S: Source, W: Write + Seek>(
    reader: &mut Clog2Reader<S>,
    out: W,
    opts: AnnotateOptions,
    mut progress: impl FnMut(u64),
) -> Result<(W, AnnotateStats)> {
    let Some(stamp) = opts.trace else {
        return Err(Error::InvalidOptions(OptionsProblem::NoTrace));
    };
    if opts.tree.children < 2 || opts.tree.children > i16::MAX as u16 {
        return Err(Error::InvalidOptions(OptionsProblem::Children(
            opts.tree.children,
        )));
    }
    let info = reader.preamble().info().clone();
    let bs = info.block_size as u64;
    let leaf_blocks = (opts.tree.leaf_bytes as u64 / bs).max(1);
    let k = opts.tree.children as u64;
    let mut header = format::Header {
        format_version: FORMAT_VERSION,
        clog2_size: stamp.size,
        clog2_version: {
            let mut v = [0u8; 12];
            let s = info.version.as_str().as_bytes();
            v[..s.len().min(12)].copy_from_slice(&s[..s.len().min(12)]);
            v
        },
        clog2_big_endian: info.big_endian as u8,
        clog2_block_size: info.block_size,
        preamble_crc32: stamp.preamble_crc32,
        children: opts.tree.children,
        leaf_blocks: u32::try_from(leaf_blocks).unwrap_or(u32::MAX),
        depth: 0,
        leaves: 0,
        max_block: 0,
        earliest: f64::INFINITY,
        latest: f64::NEG_INFINITY,
        treedir: FileBlockPtr::NULL,
        leaf_table: FileBlockPtr::NULL,
        defs: FileBlockPtr::NULL,
        categories: FileBlockPtr::NULL,
        lineidmaps: FileBlockPtr::NULL,
    };
    let mut out = Out {
        w: out,
        pos: 0,
        max_block: 0,
    };
    out.raw(&vec![0u8; HEADER_LEN as usize])?;

    let mut ev = Clog2Drawables::new(&info);
    let mut leaves: Vec<Leaf> = Vec::new();
    let mut defs: Vec<Def> = Vec::new();
    let mut dir: Vec<TreeDirEntry> = Vec::new();
    // open[d - 1] is the open node at depth d.
    let mut open: Vec<Open> = Vec::new();
    let mut counts: BTreeMap<i32, u64> = BTreeMap::new();
    let mut lines: FxHashSet<i32> = FxHashSet::default();
    let mut stats = AnnotateStats::default();
    let mut leaf_crc = Crc::new();
    let mut last_block: Option<u64> = None;

    // Closes the current leaf: its length, checksum, and its box into the open nodes.
    let close_leaf = |leaves: &mut Vec<Leaf>, crc: &mut Crc, open: &mut Vec<Open>, last: u64| {
        if let Some(l) = leaves.last_mut() {
            l.len = (last + 1 - l.offset) as u32;
            l.crc32 = crc.sum();
            *crc = Crc::new();
            for n in open.iter_mut() {
                n.earliest = n.earliest.min(l.earliest);
                n.latest = n.latest.max(l.latest);
            }
        }
    };

    while let Some((rec, at)) = reader.next_record_at()? {
        stats.records += 1;
        let block = (at - clog2_format::preamble::PREAMBLE_LEN as u64) / bs;
        let leaf = block / leaf_blocks;
        if last_block != Some(block) {
            if leaves.len() as u64 != leaf + 1 {
                // A new leaf starts.
                let end = clog2_format::preamble::PREAMBLE_LEN as u64 + block * bs - 1;
                close_leaf(&mut leaves, &mut leaf_crc, &mut open, end);
                // Close the nodes the new leaf is not under (lowest first), and grow
                // the root while the leaves outnumber it.
                let mut d = 1usize;
                while d <= open.len() {
                    let x = (leaf / k.pow(d as u32)) as i32;
                    if open[d - 1].xpos != x {
                        let n = std::mem::replace(
                            &mut open[d - 1],
                            Open {
                                xpos: x,
                                earliest: f64::INFINITY,
                                latest: f64::NEG_INFINITY,
                                prims: Vec::new(),
                            },
                        );
                        dir.push(write_node(&mut out, d as u16, n)?);
                    }
                    d += 1;
                }
                while k.checked_pow(open.len() as u32).is_some_and(|c| c <= leaf) {
                    open.push(Open {
                        xpos: 0,
                        earliest: header.earliest,
                        latest: header.latest,
                        prims: Vec::new(),
                    });
                }
                let carry = Carry {
                    waiting: ev.partials().iter().map(Waiting::from).collect(),
                };
                let carry = out.block(&carry)?;
                leaves.push(Leaf {
                    offset: clog2_format::preamble::PREAMBLE_LEN as u64 + block * bs,
                    len: 0,
                    earliest: f64::INFINITY,
                    latest: f64::NEG_INFINITY,
                    records: 0,
                    crc32: 0,
                    carry,
                });
                progress(at);
            }
            leaf_crc.update(reader.loaded_block().0);
            last_block = Some(block);
        }
        let l = leaves.last_mut().expect("a leaf is open");
        l.records += 1;
        if !matches!(rec.body, Body::EndBlock | Body::EndLog) {
            l.earliest = l.earliest.min(rec.time);
            l.latest = l.latest.max(rec.time);
            header.earliest = header.earliest.min(rec.time);
            header.latest = header.latest.max(rec.time);
        }
        match &rec.body {
            Body::StateDef(s) => defs.push(Def {
                leaf: leaf as u32,
                kind: 2,
                id: s.state_id,
                etype: s.start_etype,
                final_etype: s.final_etype,
                color: s.color.0,
                name: s.name.0,
                format: s.format.0,
            }),
            Body::EventDef(e) => defs.push(Def {
                leaf: leaf as u32,
                kind: 3,
                id: 0,
                etype: e.etype,
                final_etype: 0,
                color: e.color.0,
                name: e.name.0,
                format: e.format.0,
            }),
            _ => {}
        }
        if let Some((p, origin)) = ev.push_at(&rec, leaf) {
            stats.drawables += 1;
            *counts.entry(p.category).or_default() += 1;
            lines.extend(&p.lines[..p.nv as usize]);
            if origin != leaf {
                let d = common_depth(origin, leaf, k) as usize;
                open[d - 1].prims.push(p);
                stats.stored += 1;
            }
        }
        if ev.ended() {
            break;
        }
    }
    if leaves.is_empty() {
        return Err(Error::Write(WriteProblem::NoRecords));
    }
    let end = reader.offset() - 1;
    close_leaf(&mut leaves, &mut leaf_crc, &mut open, end);
    for (i, n) in open.drain(..).enumerate() {
        dir.push(write_node(&mut out, i as u16 + 1, n)?);
    }
    stats.leaves = leaves.len() as u64;
    stats.nodes = dir.len() as u64;
    stats.input_bytes = reader.offset();
    header.leaves = leaves.len() as u32;
    header.depth = dir.iter().map(|e| e.id.depth as u16).max().unwrap_or(0);
    stats.depth = header.depth;

    header.leaf_table = out.block(&LeafTable { leaves })?;
    header.defs = out.block(&Defs { defs })?;
    let (cats, mut maps, _) = ev.finish();
    let categories = CategoryMap {
        categories: cats
            .into_iter()
            .filter_map(|mut c| {
                let n = *counts.get(&c.index)?;
                c.summary = Some(CategorySummary {
                    incl: 0.0,
                    excl: 0.0,
                    count: n as i64,
                });
                Some(c)
            })
            .collect(),
    };
    header.categories = out.block(&categories)?;
    maps.push(slog2_format::write::tree::identity_map(lines));
    header.lineidmaps = out.block(&LineIdMapList { maps })?;
    dir.sort_by(|a, b| b.id.depth.cmp(&a.id.depth).then(a.id.xpos.cmp(&b.id.xpos)));
    header.treedir = out.block(&TreeDir { entries: dir })?;
    header.max_block = u32::try_from(out.max_block).unwrap_or(u32::MAX);
    let total = out.pos;
    let io = |source| Error::Io {
        file: "annotation",
        offset: 0,
        source,
    };
    let mut w = out.w;
    w.seek(SeekFrom::Start(0)).map_err(io)?;
    let mut c = Cursor::new(Vec::new());
    header
        .write(&mut c)
        .map_err(|e| Error::Write(WriteProblem::Encode(e.to_string())))?;
    w.write_all(c.get_ref()).map_err(io)?;
    w.seek(SeekFrom::Start(total)).map_err(io)?;
    w.flush().map_err(io)?;
    stats.bytes = total;
    Ok((w, stats))
}

/// A definition as the CLOG2 record it came from (for replaying it).
///
/// ```
/// # use mpelog_annotate::{annotate, AnnotateOptions, Annotation};
/// # use std::io::Cursor;
/// # let trace = clog2_format::synth::generate_vec(&Default::default())?;
/// # let mut reader = clog2_format::Clog2Reader::from_slice(&trace)?;
/// # let opts = AnnotateOptions::default().trace(trace.len() as u64, &trace[..1024]);
/// # let (idx, _) = annotate(&mut reader, Cursor::new(Vec::new()), opts, |_| {})?;
/// # let idx = idx.into_inner();
/// use clog2_format::record::Body;
/// use mpelog_annotate::write::def_record;
/// let a = Annotation::new(Cursor::new(&idx[..]), Cursor::new(&trace[..]))?;
/// let d = a.defs().iter().find(|d| d.kind == 2).unwrap();
/// let Body::StateDef(s) = def_record(d).body else { panic!("a STATEDEF") };
/// assert_eq!((s.state_id, s.start_etype, s.final_etype), (d.id, d.etype, d.final_etype));
/// // It is the record of the trace, as the trace holds it.
/// let f = clog2_format::Clog2File::parse(&trace)?;
/// assert!(f.records().any(|r| r.body == Body::StateDef(s)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn def_record(d: &Def) -> Record {
    use clog2_format::record::{EventDef, StateDef};
    use clog2_format::FixedBytes;
    let body = if d.kind == 2 {
        Body::StateDef(StateDef {
            state_id: d.id,
            start_etype: d.etype,
            final_etype: d.final_etype,
            pad: FixedBytes::ZERO,
            color: FixedBytes(d.color),
            name: FixedBytes(d.name),
            format: FixedBytes(d.format),
        })
    } else {
        Body::EventDef(EventDef {
            etype: d.etype,
            pad: FixedBytes::ZERO,
            color: FixedBytes(d.color),
            name: FixedBytes(d.name),
            format: FixedBytes(d.format),
        })
    };
    Record {
        time: 0.0,
        icomm: 0,
        rank: 0,
        thread: 0,
        body,
    }
}
