//! The sweep's working state behind [`Summary::of_window`](super::Summary::of_window):
//! the states and shadows of one timeline ([`Item`]), dense indexes of line IDs and
//! categories, and the per-column accumulators ([`Scratch`]).

use super::*;

/// A state or a state shadow on one timeline, for the sweep.
#[derive(Debug, Clone, Copy)]
pub(super) struct Item<'a> {
    pub(super) start: f64,
    pub(super) end: f64,
    pub(super) category: i32,
    /// The order a real state came in ([`SHADOW`] for a shadow).
    pub(super) order: u32,
    /// A real state's category slot; a shadow's first weight.
    pub(super) slot: u32,
    /// A shadow's number of weights.
    pub(super) weights: u32,
    pub(super) info: &'a [u8],
}

impl Item<'_> {
    pub(super) const EMPTY: Item<'static> = Item {
        start: 0.0,
        end: 0.0,
        category: 0,
        order: 0,
        slot: 0,
        weights: 0,
        info: &[],
    };
}

/// [`Item::order`] of a shadow.
pub(super) const SHADOW: u32 = u32::MAX;

/// No index.
pub(super) const NONE: u32 = u32::MAX;

/// Keys below this (and not negative) are indexed by a table.
pub(super) const DENSE_SMALL: i32 = 1 << 16;

/// Dense indexes of `i32` keys (line IDs, categories) in the order first
/// seen: a table for small non-negative keys, a hash map for the rest, so that
/// the per-drawable loops index vectors instead of hashing.
#[derive(Default)]
pub(super) struct Dense {
    pub(super) small: Vec<u32>,
    pub(super) big: FxHashMap<i32, u32>,
    pub(super) keys: Vec<i32>,
}

impl Dense {
    /// The index of `k`, a new one when first seen.
    #[inline]
    pub(super) fn index(&mut self, k: i32) -> u32 {
        // Seen small keys take one load (a negative key casts past the table).
        if let Some(&i) = self.small.get(k as u32 as usize) {
            if i != NONE {
                return i;
            }
        }
        self.insert(k)
    }

    /// [`index`](Self::index) for a key not in the table.
    #[cold]
    pub(super) fn insert(&mut self, k: i32) -> u32 {
        let next = self.keys.len() as u32;
        if (0..DENSE_SMALL).contains(&k) {
            let u = k as usize;
            if u >= self.small.len() {
                self.small.resize(u + 1, NONE);
            }
            if self.small[u] == NONE {
                self.small[u] = next;
                self.keys.push(k);
            }
            self.small[u]
        } else {
            let keys = &mut self.keys;
            *self.big.entry(k).or_insert_with(|| {
                keys.push(k);
                next
            })
        }
    }

    /// The index of `k` if seen.
    #[inline]
    pub(super) fn get(&self, k: i32) -> Option<u32> {
        if (0..DENSE_SMALL).contains(&k) {
            self.small.get(k as usize).copied().filter(|&i| i != NONE)
        } else {
            self.big.get(&k).copied()
        }
    }

    pub(super) fn len(&self) -> usize {
        self.keys.len()
    }
}

/// Categories: each one's topology (a state's when the legend lacks it) and
/// the slot of a state category in a cell's scratch.
pub(super) struct Cats {
    pub(super) index: Dense,
    pub(super) topology: Vec<i32>,
    pub(super) slot: Vec<u32>,
    /// The category of each slot.
    pub(super) slot_cat: Vec<i32>,
}

impl Cats {
    /// The legend's categories; its state categories take the first slots.
    pub(super) fn new(legend: &[Category]) -> Cats {
        let mut cats = Cats {
            index: Dense::default(),
            topology: Vec::new(),
            slot: Vec::new(),
            slot_cat: Vec::new(),
        };
        for c in legend {
            let i = cats.ix(c.index);
            cats.topology[i] = c.topology;
        }
        for c in legend.iter().filter(|c| c.topology == topology::STATE) {
            cats.slot(c.index);
        }
        cats
    }

    pub(super) fn ix(&mut self, category: i32) -> usize {
        let i = self.index.index(category) as usize;
        if i == self.topology.len() {
            self.topology.push(topology::STATE);
            self.slot.push(NONE);
        }
        i
    }

    pub(super) fn topology(&mut self, category: i32) -> i32 {
        let i = self.ix(category);
        self.topology[i]
    }

    /// The slot of a state category, a new one when first seen.
    pub(super) fn slot(&mut self, category: i32) -> u32 {
        let i = self.ix(category);
        if self.slot[i] == NONE {
            self.slot[i] = self.slot_cat.len() as u32;
            self.slot_cat.push(category);
        }
        self.slot[i]
    }
}

/// A state open on the sweep's stack.
#[derive(Debug, Clone, Copy)]
pub(super) struct Open {
    pub(super) start: f64,
    pub(super) end: f64,
    pub(super) slot: usize,
}

/// Per-row scratch: seconds per (column, category slot).
pub(super) struct Scratch {
    pub(super) columns: usize,
    pub(super) slots: usize,
    pub(super) seconds: Vec<f64>,
    /// The part of `seconds` from container weights of shadows.
    pub(super) container: Vec<f64>,
    pub(super) touched: Vec<bool>,
    pub(super) summarised: Vec<bool>,
    pub(super) covered: Vec<u16>,
    /// Spans wider than [`SPREAD`] columns add their whole columns here, as
    /// changes of a per-column rate per (column, slot) (`columns + 1` rows)
    /// that [`settle`](Self::settle) sums: one step per span, not per column.
    pub(super) rate: Vec<f64>,
    /// The same for `container`.
    pub(super) container_rate: Vec<f64>,
    /// Changes of the number of spans that touch (and that summarise) a
    /// column.
    pub(super) touching: Vec<i32>,
    pub(super) summarising: Vec<i32>,
    /// The running sums of [`settle`](Self::settle), and whether any span
    /// went to the rates this row.
    pub(super) running: (Vec<f64>, Vec<f64>, i32, i32),
    pub(super) rated: bool,
    /// Whether a rate changes at a column, and the slots whose running rates
    /// are not zero.
    pub(super) changed: Vec<bool>,
    pub(super) active: Vec<usize>,
    /// Whether anything but the rates reached a column.
    pub(super) point: Vec<bool>,
}

/// Spans of more columns than this go to [`Scratch::rate`].
pub(super) const SPREAD: f64 = 4.0;

impl Scratch {
    pub(super) fn new(columns: usize, slots: usize) -> Scratch {
        Scratch {
            columns,
            slots,
            seconds: vec![0.0; columns * slots],
            container: vec![0.0; columns * slots],
            touched: vec![false; columns],
            summarised: vec![false; columns],
            covered: vec![0; columns],
            rate: vec![0.0; (columns + 1) * slots],
            container_rate: vec![0.0; (columns + 1) * slots],
            touching: vec![0; columns + 1],
            summarising: vec![0; columns + 1],
            running: (vec![0.0; slots], vec![0.0; slots], 0, 0),
            rated: false,
            changed: vec![false; columns + 1],
            point: vec![false; columns],
            active: Vec::new(),
        }
    }

    /// Adds `weight` × the part of `[a, b]` in each column (times as column
    /// positions, already clipped to `[0, columns]`).
    pub(super) fn add(&mut self, slot: usize, a: f64, b: f64, weight: f64, summarised: bool) {
        if b.partial_cmp(&a) != Some(std::cmp::Ordering::Greater)
            || weight == 0.0
            || !weight.is_finite()
        {
            return;
        }
        if b - a > SPREAD {
            // The first and last columns in part, those between at a rate.
            let (first, last) = (a as usize, (b as usize).min(self.columns));
            let (head, tail) = ((first + 1) as f64 - a, b - last as f64);
            self.seconds[first * self.slots + slot] += weight * head;
            self.touched[first] = true;
            self.point[first] = true;
            self.summarised[first] |= summarised;
            self.rate[(first + 1) * self.slots + slot] += weight;
            self.rate[last * self.slots + slot] -= weight;
            self.changed[first + 1] = true;
            self.changed[last] = true;
            self.touching[first + 1] += 1;
            self.touching[last] -= 1;
            if summarised {
                self.summarising[first + 1] += 1;
                self.summarising[last] -= 1;
            }
            if last < self.columns && tail > 0.0 {
                self.seconds[last * self.slots + slot] += weight * tail;
                self.touched[last] = true;
                self.point[last] = true;
                self.summarised[last] |= summarised;
            }
            self.rated = true;
            return;
        }
        for (c, part) in parts(a, b, self.columns) {
            self.seconds[c * self.slots + slot] += weight * part;
            self.touched[c] = true;
            self.point[c] = true;
            if summarised {
                self.summarised[c] = true;
            }
        }
    }

    /// Adds the rates' part of column `c` (call for every column in order;
    /// `point_before`: whether anything but the rates reached column `c - 1`).
    /// True when column `c` holds exactly what column `c - 1` held (the same
    /// running rates and nothing else, as inside a wide shadow): its cell is
    /// the last one again, and nothing is added.
    pub(super) fn settle(&mut self, c: usize, point_before: bool) -> bool {
        if !self.rated {
            return false;
        }
        let (rate, container, touching, summarising) = &mut self.running;
        *touching += std::mem::take(&mut self.touching[c]);
        *summarising += std::mem::take(&mut self.summarising[c]);
        let base = c * self.slots;
        let changed = std::mem::take(&mut self.changed[c]);
        if changed {
            self.active.clear();
            for s in 0..self.slots {
                rate[s] += std::mem::take(&mut self.rate[base + s]);
                container[s] += std::mem::take(&mut self.container_rate[base + s]);
                if rate[s] != 0.0 || container[s] != 0.0 {
                    self.active.push(s);
                }
            }
        }
        if *summarising > 0 {
            self.summarised[c] = true;
        }
        if *touching > 0 {
            if c > 0 && !changed && !point_before && !self.point[c] {
                return true;
            }
            self.touched[c] = true;
            for &s in &self.active {
                self.seconds[base + s] += rate[s];
                self.container[base + s] += container[s];
            }
        } else if !self.active.is_empty() {
            // No span open: the sums are zero but for rounding.
            rate.fill(0.0);
            container.fill(0.0);
            self.active.clear();
        }
        false
    }

    /// Clears the rates after a row's last [`settle`](Self::settle).
    pub(super) fn end_row(&mut self) {
        if std::mem::take(&mut self.rated) {
            let base = self.columns * self.slots;
            self.rate[base..].fill(0.0);
            self.container_rate[base..].fill(0.0);
            self.touching[self.columns] = 0;
            self.summarising[self.columns] = 0;
            self.changed[self.columns] = false;
            self.active.clear();
            let (rate, container, touching, summarising) = &mut self.running;
            rate.fill(0.0);
            container.fill(0.0);
            *touching = 0;
            *summarising = 0;
        }
    }

    /// Adds `weight` × the part of `[a, b]` in each column to the container
    /// part of a slot (see [`Summary::of_window`]).
    pub(super) fn add_container(&mut self, slot: usize, a: f64, b: f64, weight: f64) {
        if b.partial_cmp(&a) != Some(std::cmp::Ordering::Greater) {
            return;
        }
        if b - a > SPREAD && weight != 0.0 && weight.is_finite() {
            // As `add` does it (which is called for the same span first, and
            // counts the span as touching its columns).
            let (first, last) = (a as usize, (b as usize).min(self.columns));
            let (head, tail) = ((first + 1) as f64 - a, b - last as f64);
            self.container[first * self.slots + slot] += weight * head;
            self.point[first] = true;
            self.container_rate[(first + 1) * self.slots + slot] += weight;
            self.container_rate[last * self.slots + slot] -= weight;
            self.changed[first + 1] = true;
            self.changed[last] = true;
            if last < self.columns && tail > 0.0 {
                self.container[last * self.slots + slot] += weight * tail;
                self.point[last] = true;
            }
            return;
        }
        for (c, part) in parts(a, b, self.columns) {
            self.container[c * self.slots + slot] += weight * part;
            self.point[c] = true;
        }
    }

    /// Takes the excess of column `c` over `lines` times its width (each
    /// timeline of the row holds at most one innermost state at a time) from
    /// the container parts of its slots, in proportion to them.
    pub(super) fn cap(&mut self, c: usize, lines: usize) {
        let base = c * self.slots;
        // Most columns hold no container weight: nothing to take.
        let held: f64 = self.container[base..base + self.slots].iter().sum();
        if held <= 0.0 {
            return;
        }
        let total: f64 = self.seconds[base..base + self.slots]
            .iter()
            .map(|x| x.max(0.0))
            .sum();
        let excess = total - lines.max(1) as f64;
        if excess <= 1e-9 {
            return;
        }
        let f = (excess / held).min(1.0);
        for s in 0..self.slots {
            self.seconds[base + s] -= self.container[base + s] * f;
        }
    }

    /// Marks the columns that `[a, b]` covers whole as covered to `depth`.
    pub(super) fn cover(&mut self, a: f64, b: f64, depth: u16) {
        let first = a.ceil().max(0.0) as usize;
        let end = (b.floor().max(0.0) as usize).min(self.columns);
        for c in first..end {
            self.covered[c] = self.covered[c].max(depth);
        }
    }
}

/// The columns that a span `[a, b]` (column positions in `[0, columns]`,
/// `a < b`) reaches, each with the part of the span inside it (above 0): how
/// [`Scratch::add`] and [`Scratch::add_container`] spread a short span.
#[inline(always)]
fn parts(a: f64, b: f64, columns: usize) -> impl Iterator<Item = (usize, f64)> {
    let last = columns - 1;
    let first = (a as usize).min(last);
    let end = ceil(b).clamp(first + 1, columns);
    (first..end).filter_map(move |c| {
        let lo = a.max(c as f64);
        let hi = b.min((c + 1) as f64);
        (hi > lo).then_some((c, hi - lo))
    })
}

/// The least integer at least `x`, for `x` in `[0, 2⁵²]` (column positions),
/// without the library call that `ceil` is on targets without SSE4.1.
pub(super) fn ceil(x: f64) -> usize {
    let i = x as usize;
    if (i as f64) < x {
        i + 1
    } else {
        i
    }
}

/// `x` rounded half away from zero, as [`f64::round`] does, without the
/// library call that `round` is on targets without SSE4.1 (the answers round
/// every share).
pub(super) fn round(x: f64) -> f64 {
    if (0.0..4e15).contains(&x) {
        // Exact but for 0.5 − 2⁻⁵⁴, which this takes to 1.
        ((x + 0.5) as i64) as f64
    } else {
        x.round()
    }
}

/// An info buffer as text, decoded with its category's formats (`None` when
/// it cannot be), as `mpelog window --json` shows it.
pub(super) fn info_text(legend: &[Category], category: i32, bytes: &[u8]) -> Option<String> {
    match legend.iter().find(|c| c.index == category) {
        None if bytes.is_empty() => Some(String::new()),
        None => None,
        Some(c) => slog2_format::info::labelled(&c.keys, &c.types, bytes).ok(),
    }
}
