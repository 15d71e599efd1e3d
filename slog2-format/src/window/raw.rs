//! A window answer left in the nodes' bytes: [`RawWindowBuf`] keeps the bytes
//! of the drawables a query shows as the file holds them (big-endian, 12
//! bytes per vertex) and, per drawable, its sort key and where it lies, in
//! the answer's order. Nothing is decoded into owned values or copied into
//! per-item arrays: a reader of the answer (a column builder, say) reads
//! each drawable's parts straight from the bytes ([`RawDrawable`],
//! [`RawPrimitive`]).
//!
//! The query is the same walk as [`Slog2Reader::window_into`]
//! (crate::Slog2Reader::window_into), with the same checks and errors; only
//! where the drawables go differs. The leaves' bytes are read one after the
//! other into one buffer and kept up to their last drawable shown; the few
//! drawables of upper nodes, and those a node that the fast path does not take
//! gives as owned values (written back in the node layout), are copied apart
//! and put after the leaves' bytes when the walk ends.

use crate::types::*;
use crate::window::buf::{sorted_order, NotStorable};
use crate::window::scan::{Entry, Loc, SortKey};
use crate::window::{TimeWindow, WindowBuf};

/// The drawables of a raw answer and the bytes they lie in.
#[derive(Debug, Default, Clone)]
pub(crate) struct RawStore {
    /// The bytes of the nodes read (up to their last drawable shown), then
    /// the spilled bytes; the first `used` are the answer's. Its length is
    /// its high-water mark, so that a node read into it is not zeroed first.
    pub(crate) bytes: Vec<u8>,
    /// How many of `bytes` the answer holds so far.
    pub(crate) used: usize,
    /// Where the entries of the node being read end in `bytes` (kept when
    /// the node's step ends).
    pub(crate) node_end: usize,
    /// The drawables of leaves (and of nodes decoded the ordinary way).
    pub(crate) items: Vec<Entry>,
    /// While a query runs: the drawables of upper nodes (appended to `items`
    /// by [`sort`](Self::sort)).
    pub(crate) upper: Vec<Entry>,
    /// The answer's order (indexes into `items`).
    pub(crate) order: Vec<u32>,
    scratch: Vec<u32>,
    /// Bytes that are not in the nodes read into `bytes`: the parts read of
    /// cached upper nodes, and the drawables decoded the ordinary way.
    pub(crate) spill: Vec<u8>,
    /// The entries whose offsets are into `spill`: in `upper` (true) or
    /// `items`, by index.
    pub(crate) spilled: Vec<(bool, u32)>,
}

/// Appends a big-endian number.
macro_rules! put_be {
    ($out:expr, $x:expr) => {
        $out.extend_from_slice(&$x.to_be_bytes())
    };
}

impl RawStore {
    pub(crate) fn clear(&mut self) {
        self.used = 0;
        self.node_end = 0;
        self.items.clear();
        self.upper.clear();
        self.order.clear();
        self.spill.clear();
        self.spilled.clear();
    }

    /// Whether `more` further bytes and entries still fit the 32-bit offsets.
    pub(crate) fn fits(&self, more: usize) -> bool {
        let most = (self.used + self.spill.len()).max(self.items.len() + self.upper.len());
        most.checked_add(more)
            .is_some_and(|n| n <= u32::MAX as usize)
    }

    /// The list an entry of a node goes to.
    fn list(&mut self, upper: bool) -> &mut Vec<Entry> {
        match upper {
            true => &mut self.upper,
            false => &mut self.items,
        }
    }

    /// Adds entry `e` (offsets into the node being read, which lies at
    /// `self.used` in `bytes`); `None` past the 32-bit offsets.
    #[inline(always)]
    pub(crate) fn push_in_place(&mut self, e: &Entry, upper: bool) -> Option<()> {
        let moved = e.moved(self.used)?;
        self.node_end = self.node_end.max(moved.end as usize);
        self.list(upper).push(moved);
        Some(())
    }

    /// Adds entry `e` whose bytes are `node[e.at..e.end]` of a node that is
    /// not kept in `bytes`: the bytes are copied into `spill`.
    pub(crate) fn push_spilled(&mut self, node: &[u8], e: &Entry, upper: bool) -> Option<()> {
        let b = node.get(e.at as usize..e.end as usize)?;
        let at = self.spill.len();
        self.spill.extend_from_slice(b);
        let moved = e.shifted(e.at).moved(at)?;
        let list = self.list(upper);
        list.push(moved);
        let i = u32::try_from(list.len() - 1).ok()?;
        self.spilled.push((upper, i));
        Some(())
    }

    /// Adds an owned drawable (of a node decoded the ordinary way), written
    /// in the node layout into `spill`, to the leaves' list as
    /// [`Store::push_drawable`](crate::window::buf::Store) does.
    pub(crate) fn push_owned(&mut self, key: SortKey, d: &Drawable) -> Result<(), NotStorable> {
        let before = self.spill.len();
        let written = self.write_owned(key, d);
        match written {
            Some(mut e) if u32::try_from(self.spill.len()).is_ok() => {
                e.end = self.spill.len() as u32;
                self.items.push(e);
                let i = u32::try_from(self.items.len() - 1).map_err(|_| NotStorable)?;
                self.spilled.push((false, i));
                Ok(())
            }
            _ => {
                self.spill.truncate(before);
                Err(NotStorable)
            }
        }
    }

    /// Writes `d` into `spill` as a node holds it (tag byte first); its entry
    /// (`end` still to set).
    fn write_owned(&mut self, key: SortKey, d: &Drawable) -> Option<Entry> {
        let at = u32::try_from(self.spill.len()).ok()?;
        let s = &mut self.spill;
        match d {
            Drawable::Primitive(p) => {
                s.push(0);
                let loc = write_primitive(s, p)?;
                Some(Entry {
                    key,
                    at,
                    end: 0,
                    loc,
                    composite: false,
                })
            }
            Drawable::Composite(c) => {
                s.push(1);
                put_be!(s, c.category);
                write_jstr(s, &c.info)?;
                put_be!(s, i16::try_from(c.primitives.len()).ok()?);
                for p in &c.primitives {
                    write_primitive(s, p)?;
                }
                Some(Entry {
                    key,
                    at,
                    end: 0,
                    loc: Loc::default(),
                    composite: true,
                })
            }
        }
    }

    /// Puts the spilled bytes after the nodes' and sorts the drawables into
    /// the answer's order, as [`Store::sort`](crate::window::buf::Store)
    /// does; `None` past the 32-bit offsets.
    pub(crate) fn finish(&mut self) -> Option<()> {
        let at = self.used;
        let end = at.checked_add(self.spill.len())?;
        u32::try_from(end).ok()?;
        if self.bytes.len() < end {
            self.bytes.resize(end, 0);
        }
        self.bytes.get_mut(at..end)?.copy_from_slice(&self.spill);
        self.used = end;
        for &(upper, i) in &self.spilled {
            let list = match upper {
                true => &mut self.upper,
                false => &mut self.items,
            };
            let e = list.get_mut(i as usize)?;
            *e = e.moved(at)?;
        }
        let leaves = self.items.len();
        self.items.append(&mut self.upper);
        sorted_order(
            &self.items,
            leaves,
            |e| e.key,
            &mut self.order,
            &mut self.scratch,
        );
        Some(())
    }
}

/// Writes a `JStr` (its length as written, then its bytes).
fn write_jstr(s: &mut Vec<u8>, j: &JStr) -> Option<()> {
    if j.bytes.len() != j.len.max(0) as usize {
        return None;
    }
    put_be!(s, j.len);
    s.extend_from_slice(&j.bytes);
    Some(())
}

/// Writes a primitive (no tag byte); where its info and vertices are.
fn write_primitive(s: &mut Vec<u8>, p: &Primitive) -> Option<Loc> {
    put_be!(s, p.category);
    let info_at = u32::try_from(s.len() + 2).ok()?;
    write_jstr(s, &p.info)?;
    let n = i16::try_from(p.vertices.len()).ok()?;
    put_be!(s, n);
    let vert_at = u32::try_from(s.len()).ok()?;
    for v in &p.vertices {
        put_be!(s, v.time);
        put_be!(s, v.line_id);
    }
    Some(Loc {
        info_at,
        vert_at,
        n: n as u16,
        info_len: p.info.len,
    })
}

/// Whether the composite at `at` (tag byte first) parses: its parts as
/// [`RawDrawable::parts`] reads them.
pub(crate) fn composite_parses(bytes: &[u8], at: usize) -> bool {
    match composite_head(bytes, at) {
        Some((mut p, n)) => (0..n).all(|_| match part_at(bytes, p) {
            Some((_, next)) => {
                p = next;
                true
            }
            None => false,
        }),
        None => false,
    }
}

/// A big-endian `i16` or `i32` at `at`.
#[inline(always)]
fn be16(b: &[u8], at: usize) -> Option<i16> {
    Some(i16::from_be_bytes(*b.get(at..)?.first_chunk::<2>()?))
}
#[inline(always)]
fn be32(b: &[u8], at: usize) -> Option<i32> {
    Some(i32::from_be_bytes(*b.get(at..)?.first_chunk::<4>()?))
}

/// Where a composite's first part is, and its part count.
fn composite_head(b: &[u8], at: usize) -> Option<(usize, usize)> {
    if *b.get(at)? != 1 {
        return None;
    }
    let info_len = be16(b, at + 5)?;
    let p = at + 7 + info_len.max(0) as usize;
    let n = usize::try_from(be16(b, p)?).ok()?;
    Some((p + 2, n))
}

/// The part (a primitive without its tag byte) at `p`, and where the next
/// begins.
#[inline(always)]
fn part_at(b: &[u8], p: usize) -> Option<(RawPrimitive<'_>, usize)> {
    let category = be32(b, p)?;
    let info_len = be16(b, p + 4)?;
    let info_at = p + 6;
    let info = b.get(info_at..info_at + info_len.max(0) as usize)?;
    let q = info_at + info.len();
    let n = usize::try_from(be16(b, q)?).ok()?;
    let vertices = b.get(q + 2..q + 2 + 12 * n)?;
    let next = q + 2 + 12 * n;
    Some((
        RawPrimitive {
            category,
            info_len,
            info,
            vertices,
        },
        next,
    ))
}

/// An entry of no drawable (what a view of a bad index would show; never used).
const EMPTY_ENTRY: Entry = Entry {
    key: SortKey {
        earliest: 0,
        latest: 0,
        category: 0,
        first_line: 0,
        last_line: 0,
        depth: 0,
        xpos: 0,
    },
    at: 0,
    end: 0,
    loc: Loc {
        info_at: 0,
        vert_at: 0,
        n: 0,
        info_len: 0,
    },
    composite: false,
};

/// A drawable of a [`RawWindowBuf`]: its sort key's values, and its parts as
/// the node's bytes hold them.
#[derive(Debug, Clone, Copy)]
pub struct RawDrawable<'a> {
    bytes: &'a [u8],
    e: &'a Entry,
}

impl<'a> RawDrawable<'a> {
    /// The node that holds it.
    pub fn node(&self) -> NodeId {
        self.e.key.node()
    }

    /// Its category.
    pub fn category(&self) -> i32 {
        self.e.key.category
    }

    /// Its earliest vertex time ([`Drawable::earliest`]).
    pub fn earliest(&self) -> f64 {
        self.e.key.times().0
    }

    /// Its latest vertex time ([`Drawable::latest`]).
    pub fn latest(&self) -> f64 {
        self.e.key.times().1
    }

    /// The line IDs of its first and last vertex ([`Drawable::end_lines`]).
    pub fn end_lines(&self) -> (i32, i32) {
        (self.e.key.first_line, self.e.key.last_line)
    }

    /// Whether it is a composite.
    pub fn is_composite(&self) -> bool {
        self.e.composite
    }

    /// A primitive as a primitive view (`None` for a composite; see
    /// [`parts`](Self::parts)).
    #[inline(always)]
    pub fn primitive(&self) -> Option<RawPrimitive<'a>> {
        if self.e.composite {
            return None;
        }
        let l = &self.e.loc;
        let (i, v) = (l.info_at as usize, l.vert_at as usize);
        Some(RawPrimitive {
            category: self.e.key.category,
            info_len: l.info_len,
            info: self.bytes.get(i..i + l.info_len.max(0) as usize)?,
            vertices: self.bytes.get(v..v + 12 * l.n as usize)?,
        })
    }

    /// The parts of a composite, in file order (none for a primitive).
    pub fn parts(&self) -> RawParts<'a> {
        let head = match self.e.composite {
            true => composite_head(self.bytes, self.e.at as usize),
            false => None,
        };
        let (at, left) = head.unwrap_or((0, 0));
        RawParts {
            bytes: self.bytes,
            at,
            left,
        }
    }

    /// The drawable as an owned value (`None` only where its bytes do not
    /// parse, which a query never leaves).
    pub fn to_owned(&self) -> Option<Drawable> {
        match self.primitive() {
            Some(p) => Some(Drawable::Primitive(p.to_owned())),
            None => {
                let b = self.bytes;
                let at = self.e.at as usize;
                let info_len = be16(b, at + 5)?;
                let info = b.get(at + 7..at + 7 + info_len.max(0) as usize)?;
                let parts = self.parts();
                let n = parts.left;
                let primitives: Vec<Primitive> = parts.map(|p| p.to_owned()).collect();
                (primitives.len() == n).then(|| {
                    Drawable::Composite(Composite {
                        category: self.category(),
                        info: JStr {
                            len: info_len,
                            bytes: info.to_vec(),
                        },
                        primitives,
                    })
                })
            }
        }
    }
}

/// The parts of a composite of a [`RawWindowBuf`], in file order.
#[derive(Debug, Clone)]
pub struct RawParts<'a> {
    bytes: &'a [u8],
    at: usize,
    left: usize,
}

impl<'a> Iterator for RawParts<'a> {
    type Item = RawPrimitive<'a>;

    #[inline]
    fn next(&mut self) -> Option<RawPrimitive<'a>> {
        if self.left == 0 {
            return None;
        }
        // The query checked that every part parses.
        let (p, next) = part_at(self.bytes, self.at)?;
        self.at = next;
        self.left -= 1;
        Some(p)
    }
}

/// A primitive (or a composite's part) of a [`RawWindowBuf`]: its category,
/// info bytes and vertices as the node holds them.
#[derive(Debug, Clone, Copy)]
pub struct RawPrimitive<'a> {
    category: i32,
    info_len: i16,
    info: &'a [u8],
    /// 12 bytes a vertex: the time (`f64`) and line ID (`i32`), big-endian.
    vertices: &'a [u8],
}

/// The vertex of 12 bytes at the start of `v`.
#[inline(always)]
fn coord(v: &[u8]) -> Option<Coord> {
    Some(Coord {
        time: f64::from_be_bytes(*v.first_chunk::<8>()?),
        line_id: i32::from_be_bytes(*v.get(8..)?.first_chunk::<4>()?),
    })
}

impl<'a> RawPrimitive<'a> {
    /// Its category.
    pub fn category(&self) -> i32 {
        self.category
    }

    /// Its info bytes.
    pub fn info(&self) -> &'a [u8] {
        self.info
    }

    /// Its info length as written (negative lengths are kept; see [`JStr`]).
    pub fn info_len(&self) -> i16 {
        self.info_len
    }

    /// Its vertex count.
    pub fn vertex_count(&self) -> usize {
        self.vertices.len() / 12
    }

    /// Its first vertex.
    #[inline(always)]
    pub fn first(&self) -> Option<Coord> {
        coord(self.vertices)
    }

    /// Its last vertex.
    #[inline(always)]
    pub fn last(&self) -> Option<Coord> {
        coord(self.vertices.get(self.vertices.len().checked_sub(12)?..)?)
    }

    /// Its vertices, decoded.
    #[inline(always)]
    pub fn vertices(&self) -> impl ExactSizeIterator<Item = Coord> + 'a {
        self.vertices.chunks_exact(12).map(|v| {
            coord(v).unwrap_or(Coord {
                time: 0.0,
                line_id: 0,
            })
        })
    }

    /// The primitive as an owned value.
    pub fn to_owned(&self) -> Primitive {
        Primitive {
            category: self.category,
            info: JStr {
                len: self.info_len,
                bytes: self.info.to_vec(),
            },
            vertices: self.vertices().collect(),
        }
    }
}

/// A reusable answer of a window query left in the nodes' bytes: the
/// drawables of
/// [`Slog2Reader::window_raw_into`](crate::Slog2Reader::window_raw_into),
/// the same, in the same order, as
/// [`window_into`](crate::Slog2Reader::window_into) gives them, read through
/// [`RawDrawable`] views of the bytes.
///
/// ```
/// # use slog2_format::convert::clog2_to_slog2;
/// # use std::io::Cursor;
/// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
/// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
/// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// use slog2_format::{window::RawWindowBuf, Slog2Reader, WindowBuf};
/// let mut r = Slog2Reader::new(Cursor::new(out.into_inner()))?;
/// let (mut raw, mut buf) = (RawWindowBuf::new(), WindowBuf::new());
/// r.window_raw_into(&mut raw, 0.0, 0.01)?;
/// r.window_into(&mut buf, 0.0, 0.01)?;
/// assert_eq!(raw.len(), buf.drawables_len());
/// assert!(raw.drawables().zip(buf.drawables()).all(|(a, b)| a.to_owned() == Some(b.to_owned())));
/// assert_eq!(raw.counters(), buf.counters());
/// # Ok::<(), slog2_format::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct RawWindowBuf {
    /// The walk's buffer: the window, nodes read, counters and scratch (its
    /// drawables stay empty).
    pub(crate) buf: WindowBuf,
    pub(crate) raw: RawStore,
}

impl RawWindowBuf {
    /// An empty buffer (the answer of no query).
    pub fn new() -> RawWindowBuf {
        RawWindowBuf::default()
    }

    /// The window of the answer.
    pub fn window(&self) -> TimeWindow {
        self.buf.window()
    }

    /// The nodes read, in the order they were read (the root first).
    pub fn nodes(&self) -> &[NodeId] {
        self.buf.nodes()
    }

    /// What the query read.
    pub fn counters(&self) -> crate::Counters {
        self.buf.counters()
    }

    /// The number of drawables.
    pub fn len(&self) -> usize {
        self.raw.order.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.raw.order.is_empty()
    }

    /// The `i`-th drawable, in the answer's order.
    pub fn drawable(&self, i: usize) -> Option<RawDrawable<'_>> {
        let at = *self.raw.order.get(i)? as usize;
        Some(RawDrawable {
            bytes: self.raw.bytes.get(..self.raw.used).unwrap_or_default(),
            e: self.raw.items.get(at)?,
        })
    }

    /// The drawables, in the answer's order.
    pub fn drawables(&self) -> impl ExactSizeIterator<Item = RawDrawable<'_>> + Clone + '_ {
        let bytes = self.raw.bytes.get(..self.raw.used).unwrap_or_default();
        let items = &self.raw.items;
        self.raw.order.iter().map(move |&at| RawDrawable {
            bytes,
            // `order` indexes `items` (never the empty entry).
            e: items.get(at as usize).unwrap_or(&EMPTY_ENTRY),
        })
    }
}
