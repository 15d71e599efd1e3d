//! The fast path of window queries: a tree node decoded straight from its bytes.
//!
//! [`node`] walks a node's bytes once, checks every drawable and shadow as
//! [`crate::validate`] does, and keeps only what a query needs: the sort key and
//! byte offset of each drawable that meets the window, and the header and offset of
//! each stub. Nothing is allocated per drawable; the visible ones are decoded into
//! owned values only once the answer is sorted ([`drawable`]).
//!
//! The scan never reports errors itself: whenever the bytes do not parse, or a check
//! fails, it says so (`None`) and the caller decodes the node the ordinary way
//! (binrw and [`crate::validate::node`]), which gives the error, with its offset and
//! text, or the lenient result. So on every node the scan accepts, it finds exactly
//! what the ordinary path would.

use crate::types::*;
use crate::validate::{inside, Legend};
use crate::window::buf::Store;
use crate::window::TimeWindow;

/// One cursor method per number type `T`: the next `size_of::<T>()` bytes as a
/// big-endian `T`.
macro_rules! big_endian_reads {
    ($($t:ident,)*) => {$(
        #[inline(always)]
        fn $t(&mut self) -> Option<$t> {
            self.take().map($t::from_be_bytes)
        }
    )*};
}

/// A cursor over a node's bytes: big-endian reads that fail (`None`) at the end.
struct Cur<'a> {
    b: &'a [u8],
    p: usize,
}

impl<'a> Cur<'a> {
    #[inline(always)]
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let s = *self.b.get(self.p..)?.first_chunk::<N>()?;
        self.p += N;
        Some(s)
    }
    big_endian_reads! {
        u8,
        i16,
        i32,
        i64,
        f64,
    }
    /// The next `n` bytes.
    #[inline(always)]
    fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.p..)?.get(..n)?;
        self.p += n;
        Some(s)
    }
    /// A count stored as `i16`/`i32` that binrw asserts is not negative.
    #[inline(always)]
    fn count16(&mut self) -> Option<usize> {
        usize::try_from(self.i16()?).ok()
    }
    #[inline(always)]
    fn count32(&mut self) -> Option<usize> {
        usize::try_from(self.i32()?).ok()
    }
    /// A `JStr`: its length as written and its bytes.
    #[inline(always)]
    fn jstr(&mut self) -> Option<(i16, &'a [u8])> {
        let len = self.i16()?;
        let bytes = self.bytes(len.max(0) as usize)?;
        Some((len, bytes))
    }
    fn header(&mut self) -> Option<NodeHeader> {
        Some(NodeHeader {
            earliest: self.f64()?,
            latest: self.f64()?,
            id: NodeId {
                depth: self.i16()?,
                xpos: self.i32()?,
            },
            ptr: FileBlockPtr {
                offset: self.i64()?,
                size: self.i32()?,
            },
        })
    }
}

/// Java's start-time order (spec §10.1) with the node order after it, as one
/// integer tuple: sorting by it is sorting by
/// `start_order(key).then(node_order(node))`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct SortKey {
    pub(crate) earliest: i64,
    /// Descending: the bitwise complement of the ordered bits.
    pub(crate) latest: i64,
    pub(crate) category: i32,
    pub(crate) first_line: i32,
    pub(crate) last_line: i32,
    /// Depth descending.
    pub(crate) depth: i32,
    pub(crate) xpos: i32,
}

/// The bits of `x` as an integer that orders as `f64::total_cmp` does.
#[inline(always)]
fn ordered(x: f64) -> i64 {
    let b = x.to_bits() as i64;
    b ^ ((((b >> 63) as u64) >> 1) as i64)
}

/// A drawable's sort key `(earliest, latest, category, (first line, last line))`
/// ([`crate::size::OrderKey`]).
pub(crate) type Key = crate::size::OrderKey;

impl SortKey {
    /// The drawable's earliest and latest times (as [`SortKey::new`] took them).
    #[inline(always)]
    pub(crate) fn times(&self) -> (f64, f64) {
        // `ordered` is its own inverse.
        let back = |o: i64| f64::from_bits(ordered(f64::from_bits(o as u64)) as u64);
        (back(self.earliest), back(!self.latest))
    }

    /// The key of a drawable with key `k` in node `node`.
    #[inline(always)]
    pub(crate) fn new(k: Key, node: NodeId) -> SortKey {
        SortKey {
            earliest: ordered(k.0),
            latest: !ordered(k.1),
            category: k.2,
            first_line: k.3 .0,
            last_line: k.3 .1,
            depth: -i32::from(node.depth),
            xpos: node.xpos,
        }
    }
}

/// A visible drawable of the node being scanned: its sort key (which holds its
/// node), the offset of its tag byte in the node's bytes and, for a primitive,
/// where its info bytes and vertices are.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry {
    pub(crate) key: SortKey,
    pub(crate) at: u32,
    /// Where the drawable ends (the offset after its last byte).
    pub(crate) end: u32,
    /// A primitive's info bytes (`max(info_len, 0)` of them) and vertices.
    pub(crate) loc: Loc,
    pub(crate) composite: bool,
}

impl Entry {
    /// The entry with its offsets `by` bytes lower (for bytes read from
    /// byte `by` of the node on).
    pub(crate) fn shifted(mut self, by: u32) -> Entry {
        self.at -= by;
        self.end -= by;
        if !self.composite {
            self.loc.info_at -= by;
            self.loc.vert_at -= by;
        }
        self
    }

    /// The entry with its offsets `by` bytes higher (for a node's bytes put
    /// at byte `by` of a larger buffer); `None` past `u32::MAX`.
    #[inline(always)]
    pub(crate) fn moved(mut self, by: usize) -> Option<Entry> {
        let by = u32::try_from(by).ok()?;
        self.at = self.at.checked_add(by)?;
        self.end = self.end.checked_add(by)?;
        if !self.composite {
            self.loc.info_at = self.loc.info_at.checked_add(by)?;
            self.loc.vert_at = self.loc.vert_at.checked_add(by)?;
        }
        Some(self)
    }
}

/// Where a primitive's info bytes and vertices are in a node's bytes.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Loc {
    pub(crate) info_at: u32,
    pub(crate) vert_at: u32,
    pub(crate) n: u16,
    pub(crate) info_len: i16,
}

/// How the scan checks what it decodes (see [`crate::validate::Validation`]).
#[derive(Clone, Copy)]
pub(crate) enum Checks<'a> {
    /// No check.
    Off,
    /// The per-item checks: a failure sends the node to the ordinary path.
    Items(&'a Legend),
    /// The per-item checks and the start-time order of every list.
    Strict(&'a Legend),
}

impl<'a> Checks<'a> {
    #[inline(always)]
    fn legend(self) -> Option<&'a Legend> {
        match self {
            Checks::Off => None,
            Checks::Items(g) | Checks::Strict(g) => Some(g),
        }
    }
    #[inline(always)]
    fn order(self) -> bool {
        matches!(self, Checks::Strict(_))
    }
    /// 0, 1, 2 for no checks, the per-item checks, and all of them.
    pub(crate) fn level(self) -> u8 {
        match self {
            Checks::Off => 0,
            Checks::Items(_) => 1,
            Checks::Strict(_) => 2,
        }
    }
}

/// A stub of a scanned node: its header and where it starts in the node's bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StubAt {
    pub(crate) header: NodeHeader,
    pub(crate) at: usize,
}

/// What [`node`] found besides the visible drawables.
pub(crate) struct Scanned {
    pub(crate) header: NodeHeader,
    /// Where the stub count is, in the node's bytes.
    pub(crate) count_at: usize,
    /// How many of the entries pushed are of the nestless list (they come first).
    pub(crate) nestless: usize,
}

/// A scanned primitive: category, earliest, latest, the line IDs of its first
/// and last vertex (`None` without vertices), and where its parts are.
type Scanned1 = (i32, f64, f64, Option<(i32, i32)>, Loc);

/// One primitive (no tag byte): `(category, earliest, latest, first line, last
/// line)`, the lines `None` without vertices. `None` if it does not parse or (with
/// a legend) fails a check of `validate::primitive_box`. The node's bytes are at
/// most `u32::MAX` long.
#[inline(always)]
fn primitive(c: &mut Cur, e: f64, l: f64, g: Option<&Legend>) -> Option<Scanned1> {
    let category = c.i32()?;
    let info_len = c.i16()?;
    let info_at = c.p;
    c.bytes(info_len.max(0) as usize)?;
    let n = c.count16()?;
    let vert_at = c.p;
    let v = c.bytes(12 * n)?;
    if let Some(g) = g {
        if n == 0 || !g.category_known(category) {
            return None;
        }
    }
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    let mut known: Option<i32> = None;
    for x in v.chunks_exact(12) {
        let t = f64::from_be_bytes(*x.first_chunk::<8>()?);
        if let Some(g) = g {
            let line = i32::from_be_bytes(*x.last_chunk::<4>()?);
            if known != Some(line) {
                if !g.line_known(line) {
                    return None;
                }
                known = Some(line);
            }
            if !inside(t, e, l) {
                return None;
            }
        }
        // `lo.min(t)` and `hi.max(t)` (as x86 lowers them: `lo` is never NaN,
        // a NaN `t` changes nothing, ties keep `lo`), without the NaN fix-ups.
        if t < lo {
            lo = t;
        }
        if t > hi {
            hi = t;
        }
    }
    let lines = match (v.get(8..12), v.last_chunk::<4>()) {
        (Some(a), Some(b)) => Some((
            i32::from_be_bytes(a.try_into().ok()?),
            i32::from_be_bytes(*b),
        )),
        _ => None,
    };
    let loc = Loc {
        info_at: info_at as u32,
        vert_at: vert_at as u32,
        n: n as u16,
        info_len,
    };
    Some((category, lo, hi, lines, loc))
}

/// One drawable (tag byte first): its sort key, as `size::drawable_key` makes
/// it, and for a primitive where its parts are.
#[inline(always)]
fn drawable_key(c: &mut Cur, e: f64, l: f64, g: Option<&Legend>) -> Option<(Key, Option<Loc>)> {
    match c.u8()? {
        0 => {
            let (category, lo, hi, lines, loc) = primitive(c, e, l, g)?;
            Some(((lo, hi, category, lines.unwrap_or((0, 0))), Some(loc)))
        }
        1 => {
            let category = c.i32()?;
            c.jstr()?;
            let n = c.count16()?;
            if let Some(g) = g {
                if n == 0 || !g.category_known(category) {
                    return None;
                }
            }
            let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
            let (mut first, mut last) = (None, None);
            for _ in 0..n {
                let (_, a, b, lines, _) = primitive(c, e, l, g)?;
                if a < lo {
                    lo = a;
                }
                if b > hi {
                    hi = b;
                }
                if let Some((f, z)) = lines {
                    first = first.or(Some(f));
                    last = Some(z);
                }
            }
            Some((
                (lo, hi, category, (first.unwrap_or(0), last.unwrap_or(0))),
                None,
            ))
        }
        _ => None,
    }
}

/// One shadow: its sort key (`size::shadow_key`), `None` if it does not parse
/// or (with a legend) fails a check of `validate::shadow`.
#[inline(always)]
fn shadow_key(c: &mut Cur, v206: bool, g: Option<&Legend>) -> Option<Key> {
    let category = c.i32()?;
    c.jstr()?;
    let n = c.count16()?;
    let v = c.bytes(12 * n)?;
    let earliest = c.f64()?;
    let latest = c.f64()?;
    c.i64()?;
    let nw = c.count32()?;
    let size = if v206 { 20 } else { 12 };
    let w = c.bytes(nw.checked_mul(size)?)?;
    if let Some(g) = g {
        if !g.preview_known(category) || nw == 0 {
            return None;
        }
        let known = |x: &[u8]| {
            x.first_chunk::<4>()
                .is_some_and(|c| g.category_known(i32::from_be_bytes(*c)))
        };
        let all = if v206 {
            w.chunks_exact(20).all(known)
        } else {
            w.chunks_exact(12).all(known)
        };
        if !all {
            return None;
        }
    }
    let line =
        |i: usize| -> Option<i32> { Some(i32::from_be_bytes(v.get(i..i + 4)?.try_into().ok()?)) };
    let (first, last) = if n == 0 {
        (0, 0)
    } else {
        (line(8)?, line(12 * (n - 1) + 8)?)
    };
    Some((earliest, latest, category, (first, last)))
}

/// Scans a whole node (`bytes`): pushes
/// an [`Entry`] for each drawable that meets `window` (nestless list first) and a
/// [`StubAt`] for each stub. `None` if the node does not parse or fails a check
/// (what was pushed by then is not to be used): the caller then decodes it the
/// ordinary way.
pub(crate) fn node(
    bytes: &[u8],
    v206: bool,
    checks: Checks,
    window: &TimeWindow,
    entries: &mut Vec<Entry>,
    stubs: &mut Vec<StubAt>,
) -> Option<Scanned> {
    let g = checks.legend();
    let mut c = Cur { b: bytes, p: 0 };
    let header = c.header()?;
    let (e, l, id) = (header.earliest, header.latest, header.id);
    let first = entries.len();
    let mut nestless = 0;
    if u32::try_from(bytes.len()).is_err() {
        return None;
    }
    for list in 0..2 {
        if list == 1 {
            nestless = entries.len() - first;
        }
        let n = c.count32()?;
        let mut last: Option<(i64, Key)> = None;
        for _ in 0..n {
            let at = c.p as u32;
            let (key, loc) = drawable_key(&mut c, e, l, g)?;
            if checks.order() {
                // `start_order` on the keys of one node: the integer key's order,
                // whole only when the start times are equal.
                let start = ordered(key.0);
                if let Some((prev_start, prev)) = last {
                    if prev_start > start
                        || (prev_start == start && SortKey::new(prev, id) > SortKey::new(key, id))
                    {
                        return None;
                    }
                }
                last = Some((start, key));
            }
            if window.meets(key.0, key.1) {
                entries.push(Entry {
                    key: SortKey::new(key, id),
                    at,
                    end: c.p as u32,
                    loc: loc.unwrap_or_default(),
                    composite: loc.is_none(),
                });
            }
        }
    }
    let count_at = c.p;
    let n = c.count32()?;
    for _ in 0..n {
        let at = c.p;
        let h = c.header()?;
        for _list in 0..2 {
            let k = c.count32()?;
            let mut last: Option<SortKey> = None;
            for _ in 0..k {
                let key = shadow_key(&mut c, v206, g)?;
                if checks.order() {
                    // `start_order`: the integer key's order (one node).
                    let sk = SortKey::new(key, id);
                    if let Some(prev) = last {
                        if prev > sk {
                            return None;
                        }
                    }
                    last = Some(sk);
                }
            }
        }
        stubs.push(StubAt { header: h, at });
    }
    Some(Scanned {
        header,
        count_at,
        nestless,
    })
}

/// A primitive (no tag byte) at the cursor into `store`, as `key` says.
#[inline(always)]
fn push_primitive(c: &mut Cur, key: SortKey, store: &mut Store) -> Option<()> {
    c.i32()?;
    let info = c.jstr()?;
    let n = c.count16()?;
    let v = c.bytes(12 * n)?;
    store.push_raw_primitive(key, info, v);
    Some(())
}

/// Decodes the drawable (tag byte first) at `at` in `bytes` into `store`, with
/// sort key `key`: the value binrw would read there. `None` (and possibly part of
/// it pushed) if it does not parse. The caller has checked [`Store::fits`] with
/// the length of `bytes`.
#[inline(always)]
pub(crate) fn push_drawable(
    bytes: &[u8],
    at: usize,
    key: SortKey,
    store: &mut Store,
) -> Option<()> {
    let mut c = Cur { b: bytes, p: at };
    match c.u8()? {
        0 => push_primitive(&mut c, key, store),
        1 => {
            c.i32()?;
            let info = c.jstr()?;
            let n = c.count16()?;
            store.push_raw_composite(key, info, n as u16);
            for _ in 0..n {
                let category = c.i32()?;
                let info = c.jstr()?;
                let n = c.count16()?;
                let v = c.bytes(12 * n)?;
                store.push_raw_part(category, info, v);
            }
            Some(())
        }
        _ => None,
    }
}

/// A shadow of a stub as its bytes lie: vertices and weights undecoded.
struct RawShadow<'a> {
    category: i32,
    info: (i16, &'a [u8]),
    /// `n` vertices of 12 bytes each.
    vertices: &'a [u8],
    n: usize,
    earliest: f64,
    latest: f64,
    num_real_objs: i64,
    weights: &'a [u8],
}

/// Calls `f` with each shadow of the stub at `at` in `bytes` (nestless list
/// first); `None` if the stub does not parse or `f` says `None`.
#[inline(always)]
fn for_each_shadow<'a>(
    bytes: &'a [u8],
    at: usize,
    v206: bool,
    mut f: impl FnMut(RawShadow<'a>) -> Option<()>,
) -> Option<()> {
    let mut c = Cur { b: bytes, p: at };
    c.header()?;
    let size = if v206 { 20 } else { 12 };
    for _list in 0..2 {
        let k = c.count32()?;
        for _ in 0..k {
            let category = c.i32()?;
            let info = c.jstr()?;
            let n = c.count16()?;
            let vertices = c.bytes(12 * n)?;
            let earliest = c.f64()?;
            let latest = c.f64()?;
            let num_real_objs = c.i64()?;
            let nw = c.count32()?;
            let weights = c.bytes(nw.checked_mul(size)?)?;
            f(RawShadow {
                category,
                info,
                vertices,
                n,
                earliest,
                latest,
                num_real_objs,
                weights,
            })?;
        }
    }
    Some(())
}

/// Decodes the shadows of the stub at `at` in `bytes` (nestless list first) and
/// pushes into `store` those that meet `window`, as shadows of node `node`: the
/// values binrw would read there. The caller has checked [`Store::fits`] with the
/// length of `bytes`.
pub(crate) fn push_stub_shadows(
    bytes: &[u8],
    at: usize,
    v206: bool,
    window: &TimeWindow,
    node: NodeId,
    store: &mut Store,
) -> Option<()> {
    for_each_shadow(bytes, at, v206, |s| {
        if !window.meets(s.earliest, s.latest) {
            return Some(());
        }
        let v = s.vertices;
        let line = |i: usize| -> Option<i32> {
            Some(i32::from_be_bytes(v.get(i..i + 4)?.try_into().ok()?))
        };
        let lines = if s.n == 0 {
            (0, 0)
        } else {
            (line(8)?, line(12 * (s.n - 1) + 8)?)
        };
        let key = SortKey::new((s.earliest, s.latest, s.category, lines), node);
        store.push_raw_shadow(key, s.info, v, s.num_real_objs, s.weights, v206);
        Some(())
    })
}

/// The real drawables the shadows of the stub at `at` stand for (the sum of
/// their `num_real_objs`, negative ones as 0) and how many shadows it has;
/// `None` if it does not parse.
pub(crate) fn stub_objects(bytes: &[u8], at: usize, v206: bool) -> Option<(i64, usize)> {
    let (mut objects, mut shadows) = (0i64, 0usize);
    for_each_shadow(bytes, at, v206, |s| {
        objects = objects.saturating_add(s.num_real_objs.max(0));
        shadows += 1;
        Some(())
    })?;
    Some((objects, shadows))
}

/// Decodes the drawable of `e` (in `bytes`) into `store`. `Err` with its
/// offset if it does not parse.
#[inline(always)]
fn push_entry(bytes: &[u8], e: &Entry, store: &mut Store) -> Result<(), u32> {
    if e.composite {
        return push_drawable(bytes, e.at as usize, e.key, store).ok_or(e.at);
    }
    let l = e.loc;
    let info_at = l.info_at as usize;
    let vert_at = l.vert_at as usize;
    let info = bytes
        .get(info_at..info_at + l.info_len.max(0) as usize)
        .ok_or(e.at)?;
    let v = bytes
        .get(vert_at..vert_at + 12 * l.n as usize)
        .ok_or(e.at)?;
    store.push_raw_primitive(e.key, (l.info_len, info), v);
    Ok(())
}

/// Decodes the drawables of `entries` (offsets in `bytes`) into `store`, in
/// order. `Err` with the offset of one that does not parse.
pub(crate) fn push_all(bytes: &[u8], entries: &[Entry], store: &mut Store) -> Result<(), u32> {
    for e in entries {
        push_entry(bytes, e, store)?;
    }
    Ok(())
}

/// Decodes the drawables of two lists sorted by key into `store`, merged (on
/// equal keys, `a` first). `Err` with the offset of one that does not parse.
pub(crate) fn push_merged(
    bytes: &[u8],
    a: &[Entry],
    b: &[Entry],
    store: &mut Store,
) -> Result<(), u32> {
    each_merged(a, b, |e| push_entry(bytes, e, store))
}

/// Hands `f` the entries of two lists sorted by key, merged (on equal keys,
/// `a` first); stops at `f`'s first error.
pub(crate) fn each_merged<E>(
    a: &[Entry],
    b: &[Entry],
    mut f: impl FnMut(&Entry) -> Result<(), E>,
) -> Result<(), E> {
    let (mut i, mut j) = (0, 0);
    while let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
        let e = if y.key < x.key {
            j += 1;
            y
        } else {
            i += 1;
            x
        };
        f(e)?;
    }
    a.get(i..)
        .unwrap_or_default()
        .iter()
        .chain(b.get(j..).unwrap_or_default())
        .try_for_each(f)
}
