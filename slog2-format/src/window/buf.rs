//! A reusable window answer: [`WindowBuf`] holds the drawables and shadows of a
//! query in a few flat arrays (one compact entry per item, the vertices, info
//! bytes and weights of all items in shared arrays), so that a query allocates
//! nothing once the buffer has grown to the size of its answers. Items are read
//! through borrowed views ([`DrawableRef`], [`ShadowRef`]), which give owned
//! values on request.

use crate::counters::Counters;
use crate::types::*;
use crate::window::scan::{Key, SortKey};
use crate::window::{Located, TimeWindow, WindowAnswer};

/// A drawable of a [`WindowBuf`]: its sort key (box, category, end lines, node)
/// and where its parts are.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Item {
    pub(crate) key: SortKey,
    /// A composite's `at` and `n` are its first part and part count.
    place: Place,
    composite: bool,
}

/// Where an item's vertices and info bytes are in the [`Store`]: what a
/// drawable, a part and a shadow share.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Place {
    /// Its first vertex in `vertices`.
    at: u32,
    /// Where its info bytes start in `info`.
    info_at: u32,
    /// Its vertex count.
    n: u16,
    /// The info length as written (the bytes are `max(len, 0)`).
    info_len: i16,
}

/// An item of no drawable (what a view of a bad index would show; never used).
const EMPTY_ITEM: Item = Item {
    key: SortKey {
        earliest: 0,
        latest: 0,
        category: 0,
        first_line: 0,
        last_line: 0,
        depth: 0,
        xpos: 0,
    },
    place: Place {
        at: 0,
        info_at: 0,
        n: 0,
        info_len: 0,
    },
    composite: false,
};

/// A part of a composite in a [`WindowBuf`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Part {
    category: i32,
    place: Place,
}

/// A shadow of a [`WindowBuf`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct ShadowItem {
    pub(crate) key: SortKey,
    num_real_objs: i64,
    place: Place,
    weights_at: u32,
    weights_n: u32,
}

pub use crate::error::NotStorable;

fn idx(n: usize) -> Result<u32, NotStorable> {
    u32::try_from(n).map_err(|_| NotStorable)
}

/// The arrays of an answer (apart from the query's scratch buffers).
#[derive(Debug, Default, Clone)]
pub(crate) struct Store {
    pub(crate) items: Vec<Item>,
    /// While a query runs: the drawables of nodes above the leaves (appended to
    /// `items` before the sort).
    upper: Vec<Item>,
    /// The drawables in answer order (indexes into `items`), made by
    /// [`sort`](Self::sort).
    pub(crate) order: Vec<u32>,
    /// Scratch of [`sort`](Self::sort).
    scratch: Vec<u32>,
    parts: Vec<Part>,
    vertices: Vec<Coord>,
    info: Vec<u8>,
    pub(crate) shadows: Vec<ShadowItem>,
    weights: Vec<CategoryWeight>,
}

/// Big-endian vertices (12 bytes each) into `out`.
#[inline(always)]
fn push_be_vertices(out: &mut Vec<Coord>, v: &[u8]) {
    let coord = |x: &[u8]| Coord {
        time: f64::from_be_bytes(x.first_chunk::<8>().copied().unwrap_or_default()),
        line_id: i32::from_be_bytes(
            x.get(8..12)
                .and_then(|l| l.first_chunk::<4>())
                .copied()
                .unwrap_or_default(),
        ),
    };
    // States and arrows have two vertices, events one.
    match v.len() {
        24 => {
            let (a, b) = v.split_at(12);
            out.extend_from_slice(&[coord(a), coord(b)]);
        }
        12 => out.push(coord(v)),
        _ => out.extend(v.chunks_exact(12).map(coord)),
    }
}

/// `n` items of `v` from `at` (none where they are not there).
fn span<T>(v: &[T], at: u32, n: usize) -> &[T] {
    let at = at as usize;
    v.get(at..at + n).unwrap_or_default()
}

impl Store {
    /// An item's info bytes (its length as written; a negative one is none).
    fn info(&self, p: &Place) -> &[u8] {
        span(&self.info, p.info_at, p.info_len.max(0) as usize)
    }

    /// An item's vertices.
    fn vertex_span(&self, p: &Place) -> &[Coord] {
        span(&self.vertices, p.at, p.n as usize)
    }

    fn clear(&mut self) {
        self.items.clear();
        self.upper.clear();
        self.order.clear();
        self.parts.clear();
        self.vertices.clear();
        self.info.clear();
        self.shadows.clear();
        self.weights.clear();
    }

    /// Whether `more` further vertices, info bytes, parts or weights still fit
    /// the 32-bit indexes (checked once per node, with `more` the node's size).
    pub(crate) fn fits(&self, more: usize) -> bool {
        let most = [
            self.items.len() + self.upper.len(),
            self.vertices.len(),
            self.info.len(),
            self.parts.len(),
            self.weights.len(),
        ]
        .into_iter()
        .max()
        .unwrap_or(0);
        most.checked_add(more)
            .is_some_and(|n| n <= u32::MAX as usize)
    }

    /// A primitive read from a node's bytes: `(info_len, info)` and its vertices
    /// as stored (12 bytes each). The caller has checked [`fits`](Self::fits).
    #[inline(always)]
    pub(crate) fn push_raw_primitive(&mut self, key: SortKey, info: (i16, &[u8]), vertices: &[u8]) {
        let place = self.push_raw_shape(info, vertices);
        self.items.push(Item {
            key,
            place,
            composite: false,
        });
    }

    /// Stores an item's info bytes and its vertices (12 bytes each, as
    /// stored); gives where they are.
    #[inline(always)]
    fn push_raw_shape(&mut self, info: (i16, &[u8]), vertices: &[u8]) -> Place {
        let place = Place {
            at: self.vertices.len() as u32,
            info_at: self.info.len() as u32,
            n: (vertices.len() / 12) as u16,
            info_len: info.0,
        };
        if !info.1.is_empty() {
            self.info.extend_from_slice(info.1);
        }
        push_be_vertices(&mut self.vertices, vertices);
        place
    }

    /// Starts a composite read from a node's bytes: its parts follow with
    /// [`push_raw_part`](Self::push_raw_part).
    #[inline(always)]
    pub(crate) fn push_raw_composite(&mut self, key: SortKey, info: (i16, &[u8]), parts: u16) {
        let item = Item {
            key,
            place: Place {
                at: self.parts.len() as u32,
                info_at: self.info.len() as u32,
                n: parts,
                info_len: info.0,
            },
            composite: true,
        };
        self.info.extend_from_slice(info.1);
        self.items.push(item);
    }

    /// A part of the composite pushed last.
    #[inline(always)]
    pub(crate) fn push_raw_part(&mut self, category: i32, info: (i16, &[u8]), vertices: &[u8]) {
        let place = self.push_raw_shape(info, vertices);
        self.parts.push(Part { category, place });
    }

    /// A shadow read from a node's bytes (vertices and weights as stored). The
    /// caller has checked [`fits`](Self::fits).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn push_raw_shadow(
        &mut self,
        key: SortKey,
        info: (i16, &[u8]),
        vertices: &[u8],
        num_real_objs: i64,
        weights: &[u8],
        v206: bool,
    ) {
        let size = if v206 { 20 } else { 12 };
        let item = ShadowItem {
            key,
            num_real_objs,
            place: self.push_raw_shape(info, vertices),
            weights_at: self.weights.len() as u32,
            weights_n: (weights.len() / size) as u32,
        };
        self.weights.extend(weights.chunks_exact(size).map(|x| {
            let w = |i: usize| {
                let mut b = [0u8; 4];
                b.copy_from_slice(&x[i..i + 4]);
                b
            };
            CategoryWeight {
                category: i32::from_be_bytes(w(0)),
                incl: f32::from_be_bytes(w(4)),
                excl: f32::from_be_bytes(w(8)),
                count: if v206 {
                    let mut b = [0u8; 8];
                    b.copy_from_slice(&x[12..20]);
                    Some(i64::from_be_bytes(b))
                } else {
                    None
                },
            }
        }));
        self.shadows.push(item);
    }

    fn info_of(&self, info: &JStr) -> Result<(u32, i16), NotStorable> {
        if info.bytes.len() != info.len.max(0) as usize {
            return Err(NotStorable);
        }
        let at = idx(self.info.len())?;
        idx(self.info.len() + info.bytes.len())?;
        Ok((at, info.len))
    }

    /// Stores an owned item's info and vertices; gives where they are.
    fn push_shape(&mut self, info: &JStr, v: &[Coord]) -> Result<Place, NotStorable> {
        let (info_at, info_len) = self.info_of(info)?;
        let at = idx(self.vertices.len())?;
        idx(self.vertices.len() + v.len())?;
        let n = i16::try_from(v.len()).map_err(|_| NotStorable)? as u16;
        self.info.extend_from_slice(&info.bytes);
        self.vertices.extend_from_slice(v);
        Ok(Place {
            at,
            info_at,
            n,
            info_len,
        })
    }

    fn push_part(&mut self, p: &Primitive) -> Result<Part, NotStorable> {
        Ok(Part {
            category: p.category,
            place: self.push_shape(&p.info, &p.vertices)?,
        })
    }

    /// An owned drawable, with its sort key.
    pub(crate) fn push_drawable(&mut self, key: SortKey, d: &Drawable) -> Result<(), NotStorable> {
        let item = match d {
            Drawable::Primitive(p) => {
                let part = self.push_part(p)?;
                Item {
                    key,
                    place: part.place,
                    composite: false,
                }
            }
            Drawable::Composite(c) => {
                let (info_at, info_len) = self.info_of(&c.info)?;
                self.info.extend_from_slice(&c.info.bytes);
                let at = idx(self.parts.len())?;
                idx(self.parts.len() + c.primitives.len())?;
                let n = i16::try_from(c.primitives.len()).map_err(|_| NotStorable)? as u16;
                for p in &c.primitives {
                    let part = self.push_part(p)?;
                    self.parts.push(part);
                }
                Item {
                    key,
                    place: Place {
                        at,
                        info_at,
                        n,
                        info_len,
                    },
                    composite: true,
                }
            }
        };
        self.items.push(item);
        Ok(())
    }

    /// An owned shadow, with its sort key.
    pub(crate) fn push_shadow(&mut self, key: SortKey, s: &Shadow) -> Result<(), NotStorable> {
        let weights_at = idx(self.weights.len())?;
        idx(self.weights.len() + s.weights.len())?;
        let weights_n = idx(s.weights.len())?;
        let place = self.push_shape(&s.info, &s.vertices)?;
        self.weights.extend_from_slice(&s.weights);
        self.shadows.push(ShadowItem {
            key,
            num_real_objs: s.num_real_objs,
            place,
            weights_at,
            weights_n,
        });
        Ok(())
    }

    /// Swaps the drawables pushed so far with those set apart: drawables pushed
    /// between two swaps go to the other list, which [`sort`](Self::sort) appends.
    /// As the key holds the node, only the order of one node's drawables matters.
    pub(crate) fn swap_upper(&mut self) {
        std::mem::swap(&mut self.items, &mut self.upper);
    }

    /// Sorts the drawables and the shadows by their keys, stably (ties keep the
    /// order they were pushed in).
    /// Lists the drawables in the order they were read (leaves' first, then
    /// upper nodes'), the shadows as they are: for a picture, whose summary
    /// orders what it needs itself.
    pub(crate) fn in_read_order(&mut self) {
        self.items.append(&mut self.upper);
        self.order.clear();
        self.order.extend((0..self.items.len()).map(|i| i as u32));
    }

    pub(crate) fn sort(&mut self) {
        // The drawables stay where they are; `order` lists them sorted.
        let leaves = self.items.len();
        self.items.append(&mut self.upper);
        sorted_order(
            &self.items,
            leaves,
            |i| i.key,
            &mut self.order,
            &mut self.scratch,
        );
        self.shadows.sort_by_key(|s| s.key);
    }
}

/// The order of `items` (the first `leaves` of them the leaves', then the
/// upper nodes') sorted by `key`, stably (ties keep their place), into
/// `order` as indexes; `scratch` is reused.
pub(crate) fn sorted_order<T>(
    items: &[T],
    leaves: usize,
    key: impl Fn(&T) -> SortKey,
    order: &mut Vec<u32>,
    scratch: &mut Vec<u32>,
) {
    order.clear();
    let (a, b) = items.split_at(leaves.min(items.len()));
    if a.is_sorted_by_key(&key) {
        // The leaves' drawables are one sorted run (the usual case: leaves
        // are read in time order, each node's lists merged as decoded): the
        // few of upper nodes are sorted and merged in. No key is equal across
        // the two but for nodes of one ID read twice (damage that only an
        // unchecked reader reads): then the leaves' first.
        let upper = scratch;
        upper.clear();
        upper.extend((leaves..items.len()).map(|i| i as u32));
        upper.sort_by_key(|&i| key(&b[i as usize - leaves]));
        let mut i = 0usize;
        for &u in upper.iter() {
            let uk = key(&items[u as usize]);
            let n = a[i..].partition_point(|x| key(x) <= uk);
            order.extend((i..i + n).map(|x| x as u32));
            order.push(u);
            i += n;
        }
        order.extend((i..leaves).map(|x| x as u32));
    } else {
        order.extend((0..items.len()).map(|i| i as u32));
        order.sort_by_key(|&i| key(&items[i as usize]));
    }
}

/// A reusable answer of a window query: the drawables and shadows found, the
/// nodes read and what the query read, held in flat arrays that later queries
/// reuse, so that a query into a buffer allocates nothing once the buffer has
/// grown to the size of its answers.
///
/// Filled by [`Slog2Reader::window_into`](crate::Slog2Reader::window_into) and
/// [`Slog2Reader::window_preview_into`](crate::Slog2Reader::window_preview_into)
/// with exactly what [`window`](crate::Slog2Reader::window) and
/// [`window_preview`](crate::Slog2Reader::window_preview) return, in the same
/// order; [`to_answer`](Self::to_answer) makes that [`WindowAnswer`].
///
/// ```no_run
/// # fn main() -> slog2_format::Result<()> {
/// use slog2_format::{Slog2Reader, WindowBuf};
///
/// let mut r = Slog2Reader::new(std::fs::File::open("trace.slog2").unwrap())?;
/// let mut buf = WindowBuf::new();
/// for i in 0..10 {
///     let t = f64::from(i) * 0.1;
///     r.window_into(&mut buf, t, t + 0.1)?;
///     for d in buf.drawables() {
///         println!("{} {:?} {}..{}", d.category(), d.node(), d.earliest(), d.latest());
///     }
/// }
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct WindowBuf {
    pub(crate) window: TimeWindow,
    pub(crate) store: Store,
    pub(crate) nodes: Vec<NodeId>,
    pub(crate) counters: Counters,
    /// Scratch of the query: the node being read.
    pub(crate) node_bytes: Vec<u8>,
    /// Scratch: the visible drawables of the node being read (sort key and offset).
    pub(crate) entries: Vec<crate::window::scan::Entry>,
    /// Scratch: the stubs of the node being read.
    pub(crate) stubs: Vec<crate::window::scan::StubAt>,
    /// Scratch: the blocks read by the query.
    pub(crate) seen: std::collections::HashSet<i64>,
}

impl Default for WindowBuf {
    fn default() -> WindowBuf {
        WindowBuf::new()
    }
}

impl WindowBuf {
    /// An empty buffer (the answer of no query: an empty window `[0, 0)`).
    pub fn new() -> WindowBuf {
        WindowBuf {
            window: TimeWindow::new(0.0, 0.0),
            store: Store::default(),
            nodes: Vec::new(),
            counters: Counters::default(),
            node_bytes: Vec::new(),
            entries: Vec::new(),
            stubs: Vec::new(),
            seen: Default::default(),
        }
    }

    /// Empties the answer and sets its window (keeps the memory for reuse).
    pub fn clear(&mut self, window: TimeWindow) {
        self.window = window;
        self.store.clear();
        self.nodes.clear();
        self.counters = Counters::default();
    }

    /// The window of the answer.
    pub fn window(&self) -> TimeWindow {
        self.window
    }

    /// The nodes read, in the order they were read (the root first).
    pub fn nodes(&self) -> &[NodeId] {
        &self.nodes
    }

    /// What the query read (see [`WindowAnswer::counters`]).
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// The number of drawables.
    pub fn drawables_len(&self) -> usize {
        self.store.items.len()
    }

    /// The number of shadows.
    pub fn shadows_len(&self) -> usize {
        self.store.shadows.len()
    }

    /// The `i`-th drawable, in the order of [`WindowAnswer::drawables`].
    pub fn drawable(&self, i: usize) -> Option<DrawableRef<'_>> {
        let at = *self.store.order.get(i)? as usize;
        self.store.items.get(at).map(|item| DrawableRef {
            store: &self.store,
            item,
        })
    }

    /// The `i`-th shadow, in the order of [`WindowAnswer::shadows`].
    pub fn shadow(&self, i: usize) -> Option<ShadowRef<'_>> {
        self.store.shadows.get(i).map(|item| ShadowRef {
            store: &self.store,
            item,
        })
    }

    /// The drawables, in the order of [`WindowAnswer::drawables`].
    pub fn drawables(
        &self,
    ) -> impl ExactSizeIterator<Item = DrawableRef<'_>> + DoubleEndedIterator + Clone + '_ {
        let store = &self.store;
        store.order.iter().map(move |&at| DrawableRef {
            store,
            // `order` indexes `items` (never the empty item).
            item: store.items.get(at as usize).unwrap_or(&EMPTY_ITEM),
        })
    }

    /// The shadows, in the order of [`WindowAnswer::shadows`] (preview queries
    /// only; empty after [`window_into`](crate::Slog2Reader::window_into)).
    pub fn shadows(
        &self,
    ) -> impl ExactSizeIterator<Item = ShadowRef<'_>> + DoubleEndedIterator + Clone + '_ {
        let store = &self.store;
        store
            .shadows
            .iter()
            .map(move |item| ShadowRef { store, item })
    }

    /// Adds a drawable found in node `node` (for answers built outside this crate,
    /// e.g. from an annotation): listed last until [`sort`](Self::sort) puts it
    /// in its place.
    ///
    /// # Errors
    ///
    /// Only if the buffer would hold more than `u32::MAX` vertices, info
    /// bytes or parts, or the drawable more than `i16::MAX` vertices or parts;
    /// the buffer is then as it was.
    pub fn push_drawable(&mut self, node: NodeId, d: &Drawable) -> Result<(), NotStorable> {
        idx(self.store.items.len() + 1)?;
        let key = SortKey::new(crate::size::drawable_key(d), node);
        let before = (
            self.store.parts.len(),
            self.store.vertices.len(),
            self.store.info.len(),
        );
        let pushed = self.store.push_drawable(key, d);
        if pushed.is_ok() {
            self.store.order.push((self.store.items.len() - 1) as u32);
        }
        if pushed.is_err() {
            self.store.parts.truncate(before.0);
            self.store.vertices.truncate(before.1);
            self.store.info.truncate(before.2);
        }
        pushed
    }

    /// Adds a primitive found in node `node`; see [`push_drawable`](Self::push_drawable).
    ///
    /// # Errors
    ///
    /// As [`push_drawable`](Self::push_drawable): [`NotStorable`] when the buffer would
    /// hold more than it can index, and nothing is added then.
    pub fn push_primitive(&mut self, node: NodeId, p: &Primitive) -> Result<(), NotStorable> {
        idx(self.store.items.len() + 1)?;
        let key: Key = (
            p.earliest(),
            p.latest(),
            p.category,
            (
                p.vertices.first().map_or(0, |c| c.line_id),
                p.vertices.last().map_or(0, |c| c.line_id),
            ),
        );
        let key = SortKey::new(key, node);
        let part = self.store.push_part(p)?;
        self.store.items.push(Item {
            key,
            place: part.place,
            composite: false,
        });
        self.store.order.push((self.store.items.len() - 1) as u32);
        Ok(())
    }

    /// Sorts what was pushed into the order of a window answer: drawables by
    /// [`drawable_order`](crate::window::drawable_order), shadows by
    /// [`shadow_order`](crate::window::shadow_order), ties by node (depth
    /// descending, then xpos) and then in the order they were pushed.
    pub fn sort(&mut self) {
        self.store.sort();
    }

    /// The answer as owned values: what
    /// [`window`](crate::Slog2Reader::window) or
    /// [`window_preview`](crate::Slog2Reader::window_preview) returns.
    pub fn to_answer(&self) -> WindowAnswer {
        WindowAnswer {
            window: self.window,
            drawables: self.drawables().map(|d| d.located()).collect(),
            shadows: self.shadows().map(|s| s.located()).collect(),
            nodes: self.nodes.clone(),
            counters: self.counters,
        }
    }
}

impl From<&WindowBuf> for WindowAnswer {
    fn from(b: &WindowBuf) -> WindowAnswer {
        b.to_answer()
    }
}

fn unordered(x: i64) -> f64 {
    // `ordered` is its own inverse.
    f64::from_bits((x ^ ((((x >> 63) as u64) >> 1) as i64)) as u64)
}

impl SortKey {
    fn earliest(&self) -> f64 {
        unordered(self.earliest)
    }
    fn latest(&self) -> f64 {
        unordered(!self.latest)
    }
    pub(crate) fn node(&self) -> NodeId {
        NodeId {
            // The negated depth of an `i16`: its negation wraps back exactly.
            depth: self.depth.wrapping_neg() as i16,
            xpos: self.xpos,
        }
    }
}

fn jstr(len: i16, bytes: &[u8]) -> JStr {
    JStr {
        len,
        bytes: bytes.to_vec(),
    }
}

/// The accessors [`DrawableRef`] and [`ShadowRef`] share, read from their
/// `item` (its sort key and info): `node`, `category`, `earliest`, `latest`
/// (documented by the four strings), `info`, `info_len` and `located` (the
/// owned `$owned` with its node).
macro_rules! item_accessors {
    ($owned:ident, $node:literal, $category:literal, $earliest:literal, $latest:literal,) => {
        #[doc = $node]
        pub fn node(&self) -> NodeId {
            self.item.key.node()
        }

        #[doc = $category]
        pub fn category(&self) -> i32 {
            self.item.key.category
        }

        #[doc = $earliest]
        pub fn earliest(&self) -> f64 {
            self.item.key.earliest()
        }

        #[doc = $latest]
        pub fn latest(&self) -> f64 {
            self.item.key.latest()
        }

        /// Its info bytes.
        pub fn info(&self) -> &'a [u8] {
            self.store.info(&self.item.place)
        }

        /// Its info length as written (negative lengths are kept; see [`JStr`]).
        pub fn info_len(&self) -> i16 {
            self.item.place.info_len
        }

        #[doc = concat!("The [`", stringify!($owned), "`] as an owned value, with its node.")]
        pub fn located(&self) -> Located<$owned> {
            Located {
                node: self.node(),
                value: self.to_owned(),
            }
        }
    };
}

/// A drawable of a [`WindowBuf`], borrowed.
#[derive(Debug, Clone, Copy)]
pub struct DrawableRef<'a> {
    store: &'a Store,
    item: &'a Item,
}

impl<'a> DrawableRef<'a> {
    item_accessors! {
        Drawable,
        "The node that holds it.",
        "Its category.",
        "Its earliest vertex time ([`Drawable::earliest`]).",
        "Its latest vertex time ([`Drawable::latest`]).",
    }

    /// The line IDs of its first and last vertex ([`Drawable::end_lines`]).
    pub fn end_lines(&self) -> (i32, i32) {
        (self.item.key.first_line, self.item.key.last_line)
    }

    /// Whether it is a composite.
    pub fn is_composite(&self) -> bool {
        self.item.composite
    }

    fn parts_slice(&self) -> &'a [Part] {
        if !self.item.composite {
            return &[];
        }
        span(
            &self.store.parts,
            self.item.place.at,
            self.item.place.n as usize,
        )
    }

    /// Its vertices: a primitive's, or those of every part of a composite in turn.
    pub fn vertices(&self) -> &'a [Coord] {
        if !self.item.composite {
            return self.store.vertex_span(&self.item.place);
        }
        let parts = self.parts_slice();
        let (at, n) = match (parts.first(), parts.last()) {
            (Some(a), Some(z)) => (
                a.place.at as usize,
                (z.place.at as usize + z.place.n as usize).saturating_sub(a.place.at as usize),
            ),
            _ => (0, 0),
        };
        self.store.vertices.get(at..at + n).unwrap_or_default()
    }

    /// The parts of a composite (none for a primitive).
    pub fn parts(&self) -> impl ExactSizeIterator<Item = PrimitiveRef<'a>> + Clone + 'a {
        let store = self.store;
        self.parts_slice()
            .iter()
            .map(move |part| PrimitiveRef { store, part: *part })
    }

    /// A primitive as a primitive view (`None` for a composite; see
    /// [`parts`](Self::parts)).
    pub fn primitive(&self) -> Option<PrimitiveRef<'a>> {
        (!self.item.composite).then_some(PrimitiveRef {
            store: self.store,
            part: Part {
                category: self.item.key.category,
                place: self.item.place,
            },
        })
    }

    /// The drawable as an owned value.
    pub fn to_owned(&self) -> Drawable {
        match self.primitive() {
            Some(p) => Drawable::Primitive(p.to_owned()),
            None => Drawable::Composite(Composite {
                category: self.category(),
                info: jstr(self.item.place.info_len, self.info()),
                primitives: self.parts().map(|p| p.to_owned()).collect(),
            }),
        }
    }
}

/// A part of a composite of a [`WindowBuf`], borrowed.
#[derive(Debug, Clone, Copy)]
pub struct PrimitiveRef<'a> {
    store: &'a Store,
    part: Part,
}

impl<'a> PrimitiveRef<'a> {
    /// Its category.
    pub fn category(&self) -> i32 {
        self.part.category
    }

    /// Its info bytes.
    pub fn info(&self) -> &'a [u8] {
        self.store.info(&self.part.place)
    }

    /// Its info length as written.
    pub fn info_len(&self) -> i16 {
        self.part.place.info_len
    }

    /// Its vertices.
    pub fn vertices(&self) -> &'a [Coord] {
        self.store.vertex_span(&self.part.place)
    }

    /// The primitive as an owned value.
    pub fn to_owned(&self) -> Primitive {
        Primitive {
            category: self.category(),
            info: jstr(self.part.place.info_len, self.info()),
            vertices: self.vertices().to_vec(),
        }
    }
}

/// A shadow of a [`WindowBuf`], borrowed.
#[derive(Debug, Clone, Copy)]
pub struct ShadowRef<'a> {
    store: &'a Store,
    item: &'a ShadowItem,
}

impl<'a> ShadowRef<'a> {
    item_accessors! {
        Shadow,
        "The child node whose subtree it summarizes (see [`Located::node`]).",
        "Its (preview) category.",
        "Start of the union of the represented boxes ([`Shadow::earliest`]).",
        "End of the union ([`Shadow::latest`]).",
    }

    /// Number of real primitives represented.
    pub fn num_real_objs(&self) -> i64 {
        self.item.num_real_objs
    }

    /// Its vertices.
    pub fn vertices(&self) -> &'a [Coord] {
        self.store.vertex_span(&self.item.place)
    }

    /// Its per-category weights.
    pub fn weights(&self) -> &'a [CategoryWeight] {
        span(
            &self.store.weights,
            self.item.weights_at,
            self.item.weights_n as usize,
        )
    }

    /// The shadow as an owned value.
    pub fn to_owned(&self) -> Shadow {
        Shadow {
            category: self.category(),
            info: jstr(self.item.place.info_len, self.info()),
            vertices: self.vertices().to_vec(),
            earliest: self.earliest(),
            latest: self.latest(),
            num_real_objs: self.item.num_real_objs,
            weights: self.weights().to_vec(),
        }
    }
}
