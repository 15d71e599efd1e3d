//! Shadows: the per-timeline summaries a tree node's stub carries for its child's
//! subtree (Jumpshot's preview view), built the way the Java writer builds them
//! (spec/conversion.md §4): one shadow per (topology, vertex line IDs), vertex times
//! the count-weighted mean, box the union, one weight per real category with the
//! inclusive and exclusive duration ratios (Java `float` arithmetic) and a count.

use super::prim::Prim;
use crate::types::{topology, NodeId};
use rustc_hash::FxHashMap as HashMap;

/// A shadow's identity: topology and the line IDs of its vertices.
pub(crate) type Key = (i32, i32, i32);

/// One category's share of a shadow.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Weight {
    pub category: i32,
    pub incl: f32,
    pub excl: f32,
    pub count: i64,
    /// The exclusive ratios of the node's own states of this category, summed
    /// while sealing (-0.0, the identity of `+`, otherwise).
    acc: f32,
}

/// One shadow being built.
#[derive(Debug, Clone)]
pub(crate) struct Shadow {
    pub topology: i32,
    pub nv: u8,
    pub times: [f64; 2],
    pub lines: [i32; 2],
    pub earliest: f64,
    pub latest: f64,
    pub count: i64,
    pub weights: Vec<Weight>,
    /// Made from this node's own state primitives: exclusive ratios are computed.
    nestable: bool,
    /// Boxes of the child shadows merged into a nestable shadow.
    child_boxes: Vec<(f64, f64)>,
}

impl Shadow {
    fn duration(&self) -> f64 {
        self.latest - self.earliest
    }

    fn weight_mut(&mut self, category: i32) -> Option<&mut Weight> {
        self.weights.iter_mut().find(|w| w.category == category)
    }

    /// Bytes on disk: info box (4 + 2), vertices (2 + 12·nv), box (16), count (8),
    /// weight count (4) and 20 bytes per weight.
    pub fn disk_len(&self) -> usize {
        4 + 2 + 2 + 12 * self.nv as usize + 16 + 8 + 4 + 20 * self.weights.len()
    }

    /// The preview category of the shadow's topology.
    pub fn category(&self) -> i32 {
        preview_index(self.topology)
    }

    /// The key of `INCRE_STARTTIME_ORDER` as integers (see [`order_key`]), ties
    /// broken by `i`.
    fn int_key(&self, i: u32) -> (u128, u128) {
        int_key(
            self.earliest,
            self.latest,
            self.category(),
            (self.lines[0], self.lines[self.nv as usize - 1]),
            i,
        )
    }

    /// Appends the shadow; sorts its weights as they are written.
    fn write(&mut self, out: &mut Vec<u8>) {
        // Category 4, info length 2, vertex count 2, vertices 2 × 12, box 16,
        // count 8, weight count 4.
        let mut h = [0u8; 8 + 24 + 28];
        h[..4].copy_from_slice(&self.category().to_be_bytes());
        h[6..8].copy_from_slice(&(self.nv as i16).to_be_bytes());
        let mut at = 8;
        for i in 0..(self.nv as usize).min(2) {
            h[at..at + 8].copy_from_slice(&self.times[i].to_be_bytes());
            h[at + 8..at + 12].copy_from_slice(&self.lines[i].to_be_bytes());
            at += 12;
        }
        h[at..at + 8].copy_from_slice(&self.earliest.to_be_bytes());
        h[at + 8..at + 16].copy_from_slice(&self.latest.to_be_bytes());
        h[at + 16..at + 24].copy_from_slice(&self.count.to_be_bytes());
        h[at + 24..at + 28].copy_from_slice(&(self.weights.len() as i32).to_be_bytes());
        out.extend_from_slice(&h[..at + 28]);
        // Increasing inclusive ratio (Java); ties by category, which Java leaves to
        // HashMap order. Categories are distinct: the order is total, so sorting
        // in place changes nothing else (no later use depends on their order).
        if self.weights.len() > 1 {
            self.weights.sort_unstable_by(|a, b| {
                a.incl.total_cmp(&b.incl).then(a.category.cmp(&b.category))
            });
        }
        for w in &self.weights {
            let mut b = [0u8; 20];
            b[..4].copy_from_slice(&w.category.to_be_bytes());
            b[4..8].copy_from_slice(&java_f32(w.incl).to_be_bytes());
            b[8..12].copy_from_slice(&java_f32(w.excl).to_be_bytes());
            b[12..].copy_from_slice(&w.count.to_be_bytes());
            out.extend_from_slice(&b);
        }
    }
}

/// An `f64` as a `u64` in the order of `f64::total_cmp`.
#[inline]
pub(crate) fn ordered(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

/// An `i32` as a `u32` in the same order.
#[inline]
fn ordered_i32(x: i32) -> u32 {
    x as u32 ^ 1 << 31
}

/// The key of Java's `INCRE_STARTTIME_ORDER` ([`start_order`](crate::size::start_order) of
/// [`Prim::order_key`]) of the primitive `j` as two integers whose order is the
/// same, ties broken by `j`: earliest time ascending, latest descending,
/// category, start line, final line, then `j` in the low 32 bits.
#[inline]
pub(crate) fn order_key(p: &Prim, j: u32) -> (u128, u128) {
    int_key(p.earliest(), p.latest(), p.category, p.end_lines(), j)
}

/// [`start_order`](crate::size::start_order) of `(earliest, latest, category, (l0, l1))` as two integers
/// whose order is the same, ties broken by `j` (in the low 32 bits).
#[inline]
fn int_key(
    earliest: f64,
    latest: f64,
    category: i32,
    (l0, l1): (i32, i32),
    j: u32,
) -> (u128, u128) {
    let hi = (ordered(earliest) as u128) << 64 | !ordered(latest) as u128;
    let lo = (ordered_i32(category) as u128) << 96
        | (ordered_i32(l0) as u128) << 64
        | (ordered_i32(l1) as u128) << 32
        | j as u128;
    (hi, lo)
}

/// A `float` as Java writes it: every NaN becomes the canonical `0x7fc00000`
/// (`Float.floatToIntBits`); 0/0 on x86 gives a negative NaN otherwise.
pub fn java_f32(x: f32) -> f32 {
    if x.is_nan() {
        f32::from_bits(0x7fc0_0000)
    } else {
        x
    }
}

/// The preview category index of a topology: event −1, arrow −2, state −3.
pub fn preview_index(topo: i32) -> i32 {
    match topo {
        topology::EVENT => -1,
        topology::ARROW => -2,
        _ => -3,
    }
}

/// The duration of the intersection of two boxes (0 when they do not overlap).
fn intersection(a: (f64, f64), b: (f64, f64)) -> f64 {
    if a.0 <= b.1 && b.0 <= a.1 {
        a.1.min(b.1) - a.0.max(b.0)
    } else {
        0.0
    }
}

/// Where a stub's 12-byte pointer starts within the stub (after the box and ID).
pub(crate) const STUB_PTR_AT: usize = 22;

/// Weight lists of written stubs, kept for new shadows (a shadow is made for
/// every timeline of every node: reusing their lists saves an allocation each).
#[derive(Debug, Default)]
pub(crate) struct WeightPool(Vec<Vec<Weight>>);

/// Lists kept at most: enough for the shadows of a few nodes.
const POOL_MAX: usize = 1 << 14;

impl WeightPool {
    /// An empty list.
    #[inline]
    fn take(&mut self) -> Vec<Weight> {
        self.0.pop().unwrap_or_default()
    }

    /// Keeps the weight lists of a buffer that is no longer needed.
    pub fn give(&mut self, buf: ShadowBuf) {
        for s in buf.shadows {
            if self.0.len() < POOL_MAX && s.weights.capacity() > 0 {
                let mut w = s.weights;
                w.clear();
                self.0.push(w);
            }
        }
    }
}

/// Reusable scratch space for [`ShadowBuf::seal`].
#[derive(Debug, Default)]
pub(crate) struct SealScratch {
    /// Per shadow: where its states start in `grouped`.
    starts: Vec<u32>,
    /// Per shadow: where its next state goes in `grouped`.
    fill: Vec<u32>,
    /// The state primitives' indices grouped by shadow (each group in
    /// `INCRE_STARTTIME_ORDER`).
    grouped: Vec<u32>,
    /// Exclusive duration per primitive index.
    excl: Vec<f64>,
    /// Open enclosing states: index, earliest and latest time.
    stack: Vec<(u32, f64, f64)>,
    /// Per primitive: its weight's position in its shadow's list (weights are
    /// only appended until the buffer is written).
    slots: Vec<u32>,
}

/// The shadows of one node (Java's `BufForShadows`): its box and its shadows.
/// Once sealed it is the stub its parent writes.
#[derive(Debug, Clone)]
pub(crate) struct ShadowBuf {
    pub earliest: f64,
    pub latest: f64,
    pub id: NodeId,
    /// The written node's sequence number in the tree writer: its stub's
    /// pointer is filled in from it when the parent is placed.
    pub seq: u32,
    index: HashMap<Key, usize>,
    pub shadows: Vec<Shadow>,
}

impl ShadowBuf {
    /// An empty buffer with an empty box.
    pub fn new(id: NodeId) -> ShadowBuf {
        ShadowBuf {
            earliest: f64::INFINITY,
            latest: f64::NEG_INFINITY,
            id,
            seq: 0,
            index: HashMap::default(),
            shadows: Vec::new(),
        }
    }

    /// Adds a node's own primitive; returns the index of the shadow it went to.
    #[inline]
    pub fn add(&mut self, p: &Prim) -> u32 {
        let key = (p.topology, p.lines[0], p.lines[p.nv as usize - 1]);
        match self.index.get(&key) {
            None => {
                let i = self.shadows.len();
                self.index.insert(key, i);
                self.shadows.push(Shadow {
                    topology: p.topology,
                    nv: p.nv,
                    times: p.times,
                    lines: p.lines,
                    earliest: p.earliest(),
                    latest: p.latest(),
                    count: 1,
                    weights: Vec::new(),
                    nestable: p.topology == topology::STATE,
                    child_boxes: Vec::new(),
                });
                i as u32
            }
            Some(&i) => {
                let s = &mut self.shadows[i];
                let n = s.count as f64;
                for v in 0..s.nv as usize {
                    s.times[v] = (s.times[v] * n + p.times[v]) / (n + 1.0);
                }
                s.earliest = s.earliest.min(p.earliest());
                s.latest = s.latest.max(p.latest());
                s.count += 1;
                i as u32
            }
        }
    }

    /// Java's `initializeMapOfCategoryWeights`: inclusive ratios and counts of the
    /// own primitives, relative to each shadow's own duration. `shadow_of[j]` is
    /// the shadow [`add`](Self::add) put `prims[j]` in.
    ///
    /// Notes in `scratch` where each primitive's weight is, for [`seal`](Self::seal).
    pub fn init_weights(
        &mut self,
        prims: &[Prim],
        shadow_of: &[u32],
        scratch: &mut SealScratch,
        pool: &mut WeightPool,
    ) {
        let slots = &mut scratch.slots;
        slots.clear();
        slots.reserve(prims.len());
        for (p, &si) in prims.iter().zip(shadow_of) {
            let s = &mut self.shadows[si as usize];
            let fract = ((p.latest() - p.earliest()) / s.duration()) as f32;
            match s.weights.iter().position(|w| w.category == p.category) {
                Some(k) => {
                    let w = &mut s.weights[k];
                    w.incl += fract;
                    w.count += 1;
                    slots.push(k as u32);
                }
                None => {
                    if s.weights.capacity() == 0 {
                        s.weights = pool.take();
                    }
                    slots.push(s.weights.len() as u32);
                    s.weights.push(Weight {
                        category: p.category,
                        incl: fract,
                        excl: 0.0,
                        count: 1,
                        acc: -0.0,
                    });
                }
            }
        }
    }

    /// Java's `mergeWith` and `affectTimeBounds`: folds a sealed child buffer in.
    pub fn merge(&mut self, child: &ShadowBuf, pool: &mut WeightPool) {
        for c in &child.shadows {
            let key = (c.topology, c.lines[0], c.lines[c.nv as usize - 1]);
            match self.index.get(&key) {
                None => {
                    self.index.insert(key, self.shadows.len());
                    let mut weights = pool.take();
                    weights.extend_from_slice(&c.weights);
                    self.shadows.push(Shadow {
                        topology: c.topology,
                        nv: c.nv,
                        times: c.times,
                        lines: c.lines,
                        earliest: c.earliest,
                        latest: c.latest,
                        count: c.count,
                        weights,
                        nestable: false,
                        child_boxes: Vec::new(),
                    });
                }
                Some(&i) => {
                    let s = &mut self.shadows[i];
                    let old = s.duration();
                    let (n, m) = (s.count as f64, c.count as f64);
                    for v in 0..s.nv as usize {
                        s.times[v] = (s.times[v] * n + c.times[v] * m) / (n + m);
                    }
                    s.earliest = s.earliest.min(c.earliest);
                    s.latest = s.latest.max(c.latest);
                    let new = s.duration();
                    s.count += c.count;
                    if old != new {
                        let r = (old / new) as f32;
                        for w in &mut s.weights {
                            w.incl *= r;
                            w.excl *= r;
                        }
                    }
                    let r = (c.duration() / new) as f32;
                    for cw in &c.weights {
                        match s.weight_mut(cw.category) {
                            None => s.weights.push(Weight {
                                incl: cw.incl * r,
                                excl: cw.excl * r,
                                ..*cw
                            }),
                            Some(w) => {
                                w.count += cw.count;
                                w.incl += cw.incl * r;
                                w.excl += cw.excl * r;
                            }
                        }
                    }
                    if s.nestable {
                        s.child_boxes.push((c.earliest, c.latest));
                    }
                }
            }
        }
        self.earliest = self.earliest.min(child.earliest);
        self.latest = self.latest.max(child.latest);
    }

    /// Java's `finalizeMapOfCategoryWeights`: exclusive ratios of the own state
    /// primitives (duration minus the parts covered by merged child shadows and by
    /// nested own states), then the buffer is sealed.
    ///
    /// `shadow_of[j]` is the shadow of `prims[j]`; `states` lists the state
    /// primitives in `INCRE_STARTTIME_ORDER`, ties by index (the index in the low
    /// 32 bits of each entry).
    pub fn seal(
        &mut self,
        prims: &[Prim],
        shadow_of: &[u32],
        states: &[u128],
        scratch: &mut SealScratch,
    ) {
        if !states.is_empty() {
            // Group the states by shadow, keeping the order within each group.
            let n = self.shadows.len();
            let starts = &mut scratch.starts;
            starts.clear();
            starts.resize(n + 1, 0);
            for &x in states {
                starts[shadow_of[x as u32 as usize] as usize + 1] += 1;
            }
            for i in 0..n {
                starts[i + 1] += starts[i];
            }
            let grouped = &mut scratch.grouped;
            grouped.clear();
            grouped.resize(states.len(), 0);
            let fill = &mut scratch.fill;
            fill.clear();
            fill.extend_from_slice(&starts[..n]);
            for &x in states {
                let si = shadow_of[x as u32 as usize] as usize;
                grouped[fill[si] as usize] = x as u32;
                fill[si] += 1;
            }
            let excl = &mut scratch.excl;
            excl.clear();
            excl.resize(prims.len(), 0.0);
            let stack = &mut scratch.stack;
            for (si, s) in self.shadows.iter_mut().enumerate() {
                if !s.nestable {
                    continue;
                }
                let group = &grouped[starts[si] as usize..starts[si + 1] as usize];
                stack.clear();
                // Java keeps the primitives in a TreeSet ordered by
                // INCRE_STARTTIME_ORDER: ones equal under that order are dropped
                // (and keep exclusion 0).
                // Equal under that order within one shadow (same lines): the
                // same times (bit for bit, as total_cmp) and category.
                let mut prev: Option<(u64, u64, i32)> = None;
                for &j in group {
                    let j = j as usize;
                    let p = &prims[j];
                    let pbox = (p.earliest(), p.latest());
                    let key = (pbox.0.to_bits(), pbox.1.to_bits(), p.category);
                    if prev == Some(key) {
                        continue;
                    }
                    prev = Some(key);
                    let mut x = pbox.1 - pbox.0;
                    for cb in s.child_boxes.iter().rev() {
                        x -= intersection(pbox, *cb);
                    }
                    excl[j] = x;
                    while let Some(&(top, te, tl)) = stack.last() {
                        if te <= pbox.0 && pbox.1 <= tl {
                            excl[top as usize] -= x;
                            break;
                        }
                        stack.pop();
                    }
                    stack.push((j as u32, pbox.0, pbox.1));
                }
            }
            // Sums per category in primitive order (as Java iterates its list):
            // the states are the primitives of the nestable shadows.
            for (j, p) in prims.iter().enumerate() {
                if p.topology != topology::STATE {
                    continue;
                }
                let s = &mut self.shadows[shadow_of[j] as usize];
                let fract = (excl[j] / s.duration()) as f32;
                s.weights[scratch.slots[j] as usize].acc += fract;
            }
        }
        for s in &mut self.shadows {
            if s.nestable {
                for w in &mut s.weights {
                    w.excl += w.acc;
                    w.acc = -0.0;
                }
            }
            s.nestable = false;
            s.child_boxes = Vec::new();
        }
    }

    /// Bytes of the stub on disk: 34-byte header, two counts, the shadows.
    pub fn stub_len(&self) -> usize {
        34 + 8 + self.shadows.iter().map(Shadow::disk_len).sum::<usize>()
    }

    /// Appends the stub: header (box, ID, pointer), arrow/event shadows, state
    /// shadows, each list in `INCRE_STARTTIME_ORDER`. The pointer is left zero, to
    /// be filled in at byte [`STUB_PTR_AT`] of the stub once the child is placed.
    ///
    /// `keys` is scratch space. Each shadow's weights are left sorted.
    pub fn write_stub(&mut self, out: &mut Vec<u8>, keys: &mut Vec<(u128, u128)>) {
        out.reserve(self.stub_len());
        let start = out.len();
        out.extend_from_slice(&self.earliest.to_be_bytes());
        out.extend_from_slice(&self.latest.to_be_bytes());
        out.extend_from_slice(&self.id.depth.to_be_bytes());
        out.extend_from_slice(&self.id.xpos.to_be_bytes());
        debug_assert_eq!(out.len() - start, STUB_PTR_AT);
        out.extend_from_slice(&[0; 12]);
        for nestable in [false, true] {
            keys.clear();
            for (i, s) in self.shadows.iter().enumerate() {
                if (s.topology == topology::STATE) == nestable {
                    keys.push(s.int_key(i as u32));
                }
            }
            keys.sort_unstable();
            out.extend_from_slice(&(keys.len() as i32).to_be_bytes());
            for &(_, lo) in keys.iter() {
                self.shadows[lo as u32 as usize].write(out);
            }
        }
        debug_assert_eq!(out.len() - start, self.stub_len());
    }

    /// Java's `summarizeCategories` on the root's buffer: adds each weight, its
    /// ratios scaled by shadow duration / buffer duration, to `sums`
    /// (category → (incl, excl, count)).
    pub fn summarize(&self, sums: &mut HashMap<i32, (f32, f32, i64)>) {
        let dur = self.latest - self.earliest;
        for s in &self.shadows {
            let r = (s.duration() / dur) as f32;
            for w in &s.weights {
                let e = sums.entry(w.category).or_insert((0.0, 0.0, 0));
                e.0 += w.incl * r;
                e.1 += w.excl * r;
                e.2 += w.count;
            }
        }
    }

    /// Every line ID a shadow vertex uses.
    pub fn lines(&self) -> impl Iterator<Item = i32> + '_ {
        self.shadows
            .iter()
            .flat_map(|s| s.lines[..s.nv as usize].iter().copied())
    }

    /// Topologies present.
    pub fn topologies(&self) -> impl Iterator<Item = i32> + '_ {
        self.shadows.iter().map(|s| s.topology)
    }
}
