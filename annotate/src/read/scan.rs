//! Reading a tree node's drawables straight from its bytes for a window: the
//! query's scratch buffers, the entries it sorts (nearly sorted already), and the
//! scan of a node's drawable lists.

use super::*;

/// A query's buffers, kept between queries.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    /// The drawables found in nodes, in the order found.
    pub(super) node_entries: Vec<Entry>,
    /// The drawables found in leaves, by slot ([`Pairer::next_slot`]; `HOLE`
    /// for a slot whose drawable is not part of the answer).
    pub(super) entries: Vec<Entry>,
    /// The drawables made from leaves.
    pub(super) prims: Vec<Prim>,
    /// The drawables read from nodes.
    pub(super) node_prims: Vec<Primitive>,
    /// A carry-in block.
    pub(super) carry: Vec<Partial>,
    /// A leaf drawable being handed to a [`WindowBuf`] (its vectors reused).
    pub(super) tmp: Option<Primitive>,
}

impl Scratch {
    /// The drawables found, sorted: the node and the leaf lists merged, on
    /// equal keys the node's drawable first (nodes are deeper than leaves).
    pub(super) fn merged(&self) -> impl Iterator<Item = Entry> + '_ {
        let (mut a, mut b) = (0, 0);
        std::iter::from_fn(
            move || match (self.node_entries.get(a), self.entries.get(b)) {
                (Some(x), Some(y)) if x.key <= y.key => {
                    a += 1;
                    Some(*x)
                }
                (_, Some(y)) => {
                    b += 1;
                    Some(*y)
                }
                (Some(x), None) => {
                    a += 1;
                    Some(*x)
                }
                (None, None) => None,
            },
        )
    }
}

/// The bits of `x` as an integer that orders as `f64::total_cmp` does.
#[inline(always)]
pub(super) fn ordered(x: f64) -> i64 {
    let b = x.to_bits() as i64;
    b ^ ((((b >> 63) as u64) >> 1) as i64)
}

/// A drawable found by a query: its `INCRE_STARTTIME_ORDER` key as integers
/// (earliest, latest descending, category, first and last line), its node, and
/// where it is (`NODE` set: an index into the node drawables; otherwise into the
/// leaf drawables).
#[derive(Debug, Clone, Copy)]
pub(super) struct Entry {
    pub(super) key: (i64, i64, i32, i32, i32),
    pub(super) node: NodeId,
    pub(super) src: u32,
}

pub(super) const NODE: u32 = 1 << 31;
/// A slot without a drawable.
pub(super) const HOLE: u32 = u32::MAX;
pub(super) const HOLE_ENTRY: Entry = Entry {
    key: (0, 0, 0, 0, 0),
    node: NodeId { depth: 0, xpos: 0 },
    src: HOLE,
};

/// Sorts `v` by key, stably. Insertion sort while it moves at most about 8
/// entries per entry (a time-ordered trace gives the leaves' drawables in
/// start order but for ties), the standard stable sort after that.
pub(super) fn sort_nearly_sorted(v: &mut [Entry]) {
    let mut budget = v.len().saturating_mul(8).saturating_add(64);
    for i in 1..v.len() {
        if v[i - 1].key <= v[i].key {
            continue;
        }
        let x = v[i];
        let mut j = i;
        while j > 0 && v[j - 1].key > x.key {
            v[j] = v[j - 1];
            j -= 1;
            budget = budget.saturating_sub(1);
        }
        v[j] = x;
        if budget == 0 {
            // Insertion moves an entry only past greater ones: equal keys are
            // still in their first order, which the stable sort keeps.
            v.sort_by_key(|e| e.key);
            return;
        }
    }
}

/// The record at `pos` of `block` read in place, when it is a whole 02.30+
/// record of a known type (`None` otherwise: the caller asks
/// `decode_record_ref`, which says what is wrong). The same values as
/// `decode_record_ref` gives.
#[inline(always)]
pub(super) fn record_at<'a>(
    block: &'a [u8],
    pos: usize,
    layout: Layout,
    lens: &[u32; 16],
) -> Option<(RecordRef<'a>, usize)> {
    let h: &[u8; 24] = block.get(pos..pos.checked_add(24)?)?.try_into().ok()?;
    let (time, icomm, rank, thread, rt) = match layout.endian {
        binrw::Endian::Big => (
            f64::from_be_bytes([h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]]),
            i32::from_be_bytes([h[8], h[9], h[10], h[11]]),
            i32::from_be_bytes([h[12], h[13], h[14], h[15]]),
            i32::from_be_bytes([h[16], h[17], h[18], h[19]]),
            i32::from_be_bytes([h[20], h[21], h[22], h[23]]),
        ),
        binrw::Endian::Little => (
            f64::from_le_bytes([h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]]),
            i32::from_le_bytes([h[8], h[9], h[10], h[11]]),
            i32::from_le_bytes([h[12], h[13], h[14], h[15]]),
            i32::from_le_bytes([h[16], h[17], h[18], h[19]]),
            i32::from_le_bytes([h[20], h[21], h[22], h[23]]),
        ),
    };
    let bl = *lens.get(usize::try_from(rt).ok()?)?;
    if bl == u32::MAX {
        return None;
    }
    let start = pos + 24;
    let body = block.get(start..start + bl as usize)?;
    Some((
        RecordRef {
            time,
            icomm,
            rank,
            thread,
            rectype: rt,
            body,
            layout,
        },
        24 + bl as usize,
    ))
}

impl Entry {
    #[inline(always)]
    pub(super) fn new(k: (f64, f64, i32, (i32, i32)), node: NodeId, src: u32) -> Entry {
        Entry {
            key: (ordered(k.0), !ordered(k.1), k.2, k.3 .0, k.3 .1),
            node,
            src,
        }
    }
}

/// Reads the drawables of a node block (spec/annotation.md §5) that meet `w`
/// into `s` as [`Annotation::collect`] does with the parsed node, straight from
/// the bytes: only a block of primitives with non-negative info lengths and no
/// stubs (what a writer writes). `None` for anything else, with `s` as it was:
/// the caller parses the block with binrw, which reads it or says what is
/// wrong. What this accepts, binrw reads alike (tested).
pub(super) fn scan_node(b: &[u8], w: TimeWindow, id: NodeId, s: &mut Scratch) -> Option<()> {
    let mark = (s.node_entries.len(), s.node_prims.len());
    let found = scan_lists(b, w, id, s);
    if found.is_none() {
        s.node_entries.truncate(mark.0);
        s.node_prims.truncate(mark.1);
    }
    found
}

pub(super) fn scan_lists(b: &[u8], w: TimeWindow, id: NodeId, s: &mut Scratch) -> Option<()> {
    let mut at = 34usize;
    let i32_at = |at: usize| -> Option<i32> {
        let x: [u8; 4] = b.get(at..at + 4)?.try_into().ok()?;
        Some(i32::from_be_bytes(x))
    };
    let i16_at = |at: usize| -> Option<i16> {
        let x: [u8; 2] = b.get(at..at + 2)?.try_into().ok()?;
        Some(i16::from_be_bytes(x))
    };
    b.get(..34)?;
    for _list in 0..2 {
        let n = i32_at(at)?;
        if n < 0 {
            return None;
        }
        at += 4;
        for _ in 0..n {
            // Tag 0 (a primitive), category, info length and bytes, vertices.
            if *b.get(at)? != 0 {
                return None;
            }
            let category = i32_at(at + 1)?;
            let info_len = i16_at(at + 5)?;
            if info_len < 0 {
                return None;
            }
            let info_at = at + 7;
            let nv_at = info_at + info_len as usize;
            let nv = i16_at(nv_at)?;
            if nv < 0 {
                return None;
            }
            let v_at = nv_at + 2;
            let end = v_at + 12 * nv as usize;
            let verts = b.get(v_at..end)?;
            at = end;
            let coord = |v: &[u8]| Coord {
                time: f64::from_be_bytes([v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]]),
                line_id: i32::from_be_bytes([v[8], v[9], v[10], v[11]]),
            };
            let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
            for v in verts.chunks_exact(12) {
                let t = coord(v).time;
                lo = lo.min(t);
                hi = hi.max(t);
            }
            if !w.meets(lo, hi) {
                continue;
            }
            let p = Primitive {
                category,
                info: JStr {
                    len: info_len,
                    bytes: b.get(info_at..nv_at)?.to_vec(),
                },
                vertices: verts.chunks_exact(12).map(coord).collect(),
            };
            let src = s.node_prims.len() as u32 | NODE;
            s.node_entries.push(Entry::new(node_key(&p), id, src));
            s.node_prims.push(p);
        }
    }
    // No stubs: the count must be there and be 0.
    (i32_at(at)? == 0).then_some(())
}

/// A leaf's drawable as an owned primitive: `Prim::to_primitive`, with the
/// vertices pushed into a vector made at its size.
#[inline]
pub(super) fn owned(p: &Prim) -> Primitive {
    let mut vertices = Vec::with_capacity(p.nv as usize);
    for i in 0..(p.nv as usize).min(2) {
        vertices.push(Coord {
            time: p.times[i],
            line_id: p.lines[i],
        });
    }
    Primitive {
        category: p.category,
        info: JStr {
            len: i16::from(p.info_len),
            bytes: p.info().to_vec(),
        },
        vertices,
    }
}

/// The order key of a node's primitive: its first and last vertex.
pub(super) fn node_key(p: &Primitive) -> (f64, f64, i32, (i32, i32)) {
    let first = p.vertices.first().map_or((0.0, 0), |c| (c.time, c.line_id));
    let last = p.vertices.last().map_or((0.0, 0), |c| (c.time, c.line_id));
    (
        first.0.min(last.0),
        first.0.max(last.0),
        p.category,
        (first.1, last.1),
    )
}
