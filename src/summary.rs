//! The one summary model behind every picture (`render`, `serve`'s viewer and
//! `window --summary`): for each timeline row and each pixel column of a
//! window, the exclusive time of each state category in that column — the
//! time in which it is the innermost state — with the events and arrows that
//! fall there. spec/queries.md §6 specifies it.
//!
//! A column's exclusive times come from the real drawables of a preview query
//! where the query read their nodes, and from the stored ratios of the shadows
//! where a subtree was narrower than what is worth reading. Summed over the
//! columns of a row they give, per category, the exclusive time `mpelog stats`
//! gives for the same window (exactly when the query returned no shadow).
//!
//! States at least [`WIDE`] columns wide are also kept as drawables
//! ([`Summary::states`]), so that a zoomed-in picture draws them as Jumpshot
//! does (nested states thinner and centred); a cell that narrower states or
//! shadows reach is marked [`Cell::summarised`] and drawn from its shares.
//!
//! ```
//! use mpelog::summary::Summary;
//! use slog2_format::convert::clog2_to_slog2;
//! use slog2_format::write::TreeOptions;
//! use slog2_format::{Slog2Reader, WindowBuf};
//! use std::io::Cursor;
//! let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
//! let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
//! let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), TreeOptions::default(), |_| {})?;
//! let mut r = Slog2Reader::new(Cursor::new(out.into_inner()))?;
//! let legend = r.categories().map(|c| c.value.categories.clone()).unwrap_or_default();
//! let view = r.line_id_maps().and_then(|m| m.value.maps.first().cloned());
//! let mut buf = WindowBuf::new();
//! r.window_preview_into(&mut buf, 0.0, 1.0, 100)?;
//! let s = Summary::of_window(&buf, &legend, view.as_ref(), 0.0, 1.0, 100);
//! assert_eq!(s.columns, 100);
//! for (category, seconds) in s.exclusive_by_category() {
//!     assert!(seconds >= -1e-9, "category {category}");
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::slices::Piece;
use rustc_hash::FxHashMap;
use serde::Serialize;
use slog2_format::types::{topology, Category, LineIdMap};
use slog2_format::WindowBuf;
use std::collections::{BTreeMap, HashMap};

/// The most columns a summary has (wider asks get this many): memory is
/// rows × columns cells.
pub const MAX_COLUMNS: u32 = 16_384;

/// States at least this many columns wide are kept as drawables.
pub const WIDE: f64 = 3.0;

/// [`Summary::write_json`] writes at least this many of a cell's shares…
pub const JSON_SHARES: usize = 4;

/// …and any other of at least this many 1/10000 of the column; the rest
/// together as one share of no category ([`OTHER`], `null` in JSON).
pub const JSON_SMALL: f64 = 50.0;

/// The category of the share that sums a cell's small shares in JSON.
pub const OTHER: i32 = i32::MIN;

/// One category's exclusive time in a cell.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Share {
    /// The category's index in the legend.
    pub category: i32,
    /// Seconds of the column in which it is the innermost state.
    pub seconds: f64,
}

/// One row's column: its shares, largest first, and how it is drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell<'a> {
    /// The categories' exclusive times, largest first (ties by index).
    pub shares: &'a [Share],
    /// Whether states narrower than [`WIDE`] columns or shadows reach this
    /// cell: a picture draws it from its shares, not from its drawables.
    pub summarised: bool,
    /// How many wide states cover the whole column (the nesting depth a
    /// picture draws the cell's shares inside).
    pub covered: u16,
}

/// A state wide enough to be drawn as itself.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WideState {
    /// Row index.
    pub row: u32,
    /// Nesting depth on its timeline (0: outermost).
    pub depth: u16,
    /// Category index.
    pub category: i32,
    /// Start time.
    pub start: f64,
    /// End time.
    pub end: f64,
    /// Its timeline.
    pub line: i32,
    /// Its info decoded with its category's formats (`None` when it cannot be
    /// decoded).
    pub info: Option<String>,
}

/// The events of one cell.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EventMark {
    /// Row index.
    pub row: u32,
    /// Column.
    pub column: u32,
    /// The category with the most events in the cell (ties: the lower index).
    pub category: i32,
    /// Time of the first one of that category seen (a shadow's mean time).
    pub time: f64,
    /// How many events of any category (real events, and shadows' counts).
    pub count: u64,
    /// How many of them are of `category`.
    pub top: u64,
    /// Whether any came from a shadow.
    pub summary: bool,
}

/// Arrows between one pair of rows from one column to another.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ArrowMark {
    /// Row of the send.
    pub from_row: u32,
    /// Row of the receive.
    pub to_row: u32,
    /// Send time (of the first one seen).
    pub start: f64,
    /// Receive time (of the first one seen).
    pub end: f64,
    /// Category index (a shadow's: its heaviest category).
    pub category: i32,
    /// How many.
    pub count: u64,
    /// Whether any came from a shadow.
    pub summary: bool,
}

/// A timeline row: the view's row values and the line IDs drawn on it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Row {
    /// The view's values for the row (the line ID itself for a line the view
    /// lacks).
    pub key: Vec<i32>,
    /// Line IDs on this row.
    pub lines: Vec<i32>,
}

/// The summary of a window: rows × columns of cells, wide states, events and
/// arrows. Built by [`Summary::of_window`].
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// Start of the window.
    pub from: f64,
    /// End of the window.
    pub to: f64,
    /// Pixel columns.
    pub columns: u32,
    /// The rows, in the view's order (by row values).
    pub rows: Vec<Row>,
    /// The rows that have cells (the others' are empty).
    cell_rows: std::ops::Range<usize>,
    /// Each cell's shares, `shares[a..b]`, `cell_rows × columns` of them: a
    /// cell that repeats its left neighbour (inside wide shadows, most do)
    /// has the same range, so that the writers round it once.
    cells: Vec<(u32, u32)>,
    shares: Vec<Share>,
    summarised: Vec<bool>,
    covered: Vec<u16>,
    /// States at least [`WIDE`] columns wide, in start order.
    pub states: Vec<WideState>,
    /// Events, by row, column and category.
    pub events: Vec<EventMark>,
    /// Arrows, by rows and columns.
    pub arrows: Vec<ArrowMark>,
    /// Columns per arrow mark: 1, or 4 when there are more arrows than
    /// columns (a picture then draws them faint).
    pub arrow_columns: u32,
    /// Real primitives that went in.
    pub drawables: u64,
    /// Shadows that went in.
    pub shadows: u64,
}

/// A state or a state shadow on one timeline, for the sweep.
#[derive(Debug, Clone, Copy)]
struct Item<'a> {
    start: f64,
    end: f64,
    category: i32,
    /// The order a real state came in ([`SHADOW`] for a shadow).
    order: u32,
    /// A real state's category slot; a shadow's first weight.
    slot: u32,
    /// A shadow's number of weights.
    weights: u32,
    info: &'a [u8],
}

impl Item<'_> {
    const EMPTY: Item<'static> = Item {
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
const SHADOW: u32 = u32::MAX;

/// No index.
const NONE: u32 = u32::MAX;

/// Keys below this (and not negative) are indexed by a table.
const DENSE_SMALL: i32 = 1 << 16;

/// Dense indexes of `i32` keys (line IDs, categories) in the order first
/// seen: a table for small non-negative keys, a hash map for the rest, so that
/// the per-drawable loops index vectors instead of hashing.
#[derive(Default)]
struct Dense {
    small: Vec<u32>,
    big: FxHashMap<i32, u32>,
    keys: Vec<i32>,
}

impl Dense {
    /// The index of `k`, a new one when first seen.
    #[inline]
    fn index(&mut self, k: i32) -> u32 {
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
    fn insert(&mut self, k: i32) -> u32 {
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
    fn get(&self, k: i32) -> Option<u32> {
        if (0..DENSE_SMALL).contains(&k) {
            self.small.get(k as usize).copied().filter(|&i| i != NONE)
        } else {
            self.big.get(&k).copied()
        }
    }

    fn len(&self) -> usize {
        self.keys.len()
    }
}

/// Categories: each one's topology (a state's when the legend lacks it) and
/// the slot of a state category in a cell's scratch.
struct Cats {
    index: Dense,
    topology: Vec<i32>,
    slot: Vec<u32>,
    /// The category of each slot.
    slot_cat: Vec<i32>,
}

impl Cats {
    /// The legend's categories; its state categories take the first slots.
    fn new(legend: &[Category]) -> Cats {
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

    fn ix(&mut self, category: i32) -> usize {
        let i = self.index.index(category) as usize;
        if i == self.topology.len() {
            self.topology.push(topology::STATE);
            self.slot.push(NONE);
        }
        i
    }

    fn topology(&mut self, category: i32) -> i32 {
        let i = self.ix(category);
        self.topology[i]
    }

    /// The slot of a state category, a new one when first seen.
    fn slot(&mut self, category: i32) -> u32 {
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
struct Open {
    start: f64,
    end: f64,
    slot: usize,
}

/// Per-row scratch: seconds per (column, category slot).
struct Scratch {
    columns: usize,
    slots: usize,
    seconds: Vec<f64>,
    /// The part of `seconds` from container weights of shadows.
    container: Vec<f64>,
    touched: Vec<bool>,
    summarised: Vec<bool>,
    covered: Vec<u16>,
    /// Spans wider than [`SPREAD`] columns add their whole columns here, as
    /// changes of a per-column rate per (column, slot) (`columns + 1` rows)
    /// that [`settle`](Self::settle) sums: one step per span, not per column.
    rate: Vec<f64>,
    /// The same for `container`.
    container_rate: Vec<f64>,
    /// Changes of the number of spans that touch (and that summarise) a
    /// column.
    touching: Vec<i32>,
    summarising: Vec<i32>,
    /// The running sums of [`settle`](Self::settle), and whether any span
    /// went to the rates this row.
    running: (Vec<f64>, Vec<f64>, i32, i32),
    rated: bool,
    /// Whether a rate changes at a column, and the slots whose running rates
    /// are not zero.
    changed: Vec<bool>,
    active: Vec<usize>,
    /// Whether anything but the rates reached a column.
    point: Vec<bool>,
}

/// Spans of more columns than this go to [`Scratch::rate`].
const SPREAD: f64 = 4.0;

impl Scratch {
    fn new(columns: usize, slots: usize) -> Scratch {
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
    fn add(&mut self, slot: usize, a: f64, b: f64, weight: f64, summarised: bool) {
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
        let last = self.columns - 1;
        let first = (a as usize).min(last);
        let end = ceil(b).clamp(first + 1, self.columns);
        for c in first..end {
            let lo = a.max(c as f64);
            let hi = b.min((c + 1) as f64);
            if hi > lo {
                self.seconds[c * self.slots + slot] += weight * (hi - lo);
                self.touched[c] = true;
                self.point[c] = true;
                if summarised {
                    self.summarised[c] = true;
                }
            }
        }
    }

    /// Adds the rates' part of column `c` (call for every column in order;
    /// `point_before`: whether anything but the rates reached column `c - 1`).
    /// True when column `c` holds exactly what column `c - 1` held (the same
    /// running rates and nothing else, as inside a wide shadow): its cell is
    /// the last one again, and nothing is added.
    fn settle(&mut self, c: usize, point_before: bool) -> bool {
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
    fn end_row(&mut self) {
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
    fn add_container(&mut self, slot: usize, a: f64, b: f64, weight: f64) {
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
        let last = self.columns - 1;
        let first = (a as usize).min(last);
        let end = ceil(b).clamp(first + 1, self.columns);
        for c in first..end {
            let lo = a.max(c as f64);
            let hi = b.min((c + 1) as f64);
            if hi > lo {
                self.container[c * self.slots + slot] += weight * (hi - lo);
                self.point[c] = true;
            }
        }
    }

    /// Takes the excess of column `c` over `lines` times its width (each
    /// timeline of the row holds at most one innermost state at a time) from
    /// the container parts of its slots, in proportion to them.
    fn cap(&mut self, c: usize, lines: usize) {
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
    fn cover(&mut self, a: f64, b: f64, depth: u16) {
        let first = a.ceil().max(0.0) as usize;
        let end = (b.floor().max(0.0) as usize).min(self.columns);
        for c in first..end {
            self.covered[c] = self.covered[c].max(depth);
        }
    }
}

/// The least integer at least `x`, for `x` in `[0, 2⁵²]` (column positions),
/// without the library call that `ceil` is on targets without SSE4.1.
fn ceil(x: f64) -> usize {
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
fn round(x: f64) -> f64 {
    if (0.0..4e15).contains(&x) {
        // Exact but for 0.5 − 2⁻⁵⁴, which this takes to 1.
        ((x + 0.5) as i64) as f64
    } else {
        x.round()
    }
}

/// An info buffer as text, decoded with its category's formats (`None` when
/// it cannot be), as `mpelog window --json` shows it.
fn info_text(legend: &[Category], category: i32, bytes: &[u8]) -> Option<String> {
    match legend.iter().find(|c| c.index == category) {
        None if bytes.is_empty() => Some(String::new()),
        None => None,
        Some(c) => slog2_format::info::labelled(&c.keys, &c.types, bytes).ok(),
    }
}

impl Summary {
    /// The summary of a preview answer in `buf` for the window `[from, to]`
    /// drawn `columns` pixels wide (at most [`MAX_COLUMNS`]), with the file's legend and the view whose
    /// rows are the timelines (`None`: one row per line ID).
    ///
    /// Real states are nested per timeline as `stats` nests them (in start
    /// order, the longer first; a state inside the open one's box is its
    /// child); a state shadow's exclusive ratios are spread evenly over its
    /// box and taken from the states open around it.
    pub fn of_window(
        buf: &WindowBuf,
        legend: &[Category],
        view: Option<&LineIdMap>,
        from: f64,
        to: f64,
        columns: u32,
    ) -> Summary {
        Summary::of_window_rows(buf, legend, view, from, to, columns, None)
    }

    /// [`of_window`](Self::of_window) with the cells, states, events and
    /// arrows of the rows `first..=last` only (an arrow when either end is
    /// there); [`rows`](Self::rows) still lists every row, so row indexes are
    /// those of the whole summary.
    pub fn of_window_rows(
        buf: &WindowBuf,
        legend: &[Category],
        view: Option<&LineIdMap>,
        from: f64,
        to: f64,
        columns: u32,
        only: Option<(u32, u32)>,
    ) -> Summary {
        let shown = |row: u32| only.is_none_or(|(a, b)| a <= row && row <= b);
        let columns = columns.clamp(1, MAX_COLUMNS);
        let columns = columns.max(1);
        // Categories: their topology and (state categories) their slot; the
        // legend's state categories first.
        let mut cats = Cats::new(legend);

        // Rows: the view's, then any line it lacks.
        let view_rows: HashMap<i32, Vec<i32>> = view
            .map(|m| {
                m.rows
                    .iter()
                    .map(|r| (r.line_id, r.values.clone()))
                    .collect()
            })
            .unwrap_or_default();
        let key_of = |line: i32| view_rows.get(&line).cloned().unwrap_or_else(|| vec![line]);
        let mut lines = Dense::default();
        for &l in view_rows.keys() {
            lines.index(l);
        }

        // First pass: the lines, and per line how many states and state
        // shadows (and shadow weights) it holds, so that the second pass puts
        // each where its line's sweep reads it.
        let mut per_line: Vec<(usize, usize)> = Vec::new();
        let mut count = |lines: &mut Dense, first: i32, last: i32, weights: Option<usize>| {
            let a = lines.index(first) as usize;
            lines.index(last);
            per_line.resize(lines.len(), (0, 0));
            if let Some(w) = weights {
                per_line[a].0 += 1;
                per_line[a].1 += w;
            }
        };
        for d in buf.drawables() {
            for p in d.primitive().into_iter().chain(d.parts()) {
                let v = p.vertices();
                let (Some(a), Some(b)) = (v.first(), v.last()) else {
                    continue;
                };
                let state = cats.topology(p.category()) == topology::STATE;
                count(&mut lines, a.line_id, b.line_id, state.then_some(0));
            }
        }
        for s in buf.shadows() {
            let v = s.vertices();
            let (Some(a), Some(b)) = (v.first(), v.last()) else {
                continue;
            };
            let state = cats.topology(s.category()) == topology::STATE;
            count(
                &mut lines,
                a.line_id,
                b.line_id,
                state.then_some(s.weights().len()),
            );
        }
        per_line.resize(lines.len(), (0, 0));

        // Rows by key; lines per row.
        let mut sorted: Vec<i32> = lines.keys.clone();
        sorted.sort_unstable();
        let mut by_key: BTreeMap<Vec<i32>, Vec<i32>> = BTreeMap::new();
        for &l in &sorted {
            by_key.entry(key_of(l)).or_default().push(l);
        }
        let rows: Vec<Row> = by_key
            .into_iter()
            .map(|(key, lines)| Row { key, lines })
            .collect();
        let mut row_of = vec![0u32; lines.len()];
        // Each shown line's group: its rank in row order, its row and line ID.
        let mut rank = vec![NONE; lines.len()];
        let mut groups: Vec<(u32, i32)> = Vec::new();
        for (r, row) in rows.iter().enumerate() {
            for &l in &row.lines {
                let ix = lines.get(l).expect("every row's line is indexed") as usize;
                row_of[ix] = r as u32;
                if shown(r as u32) {
                    rank[ix] = groups.len() as u32;
                    groups.push((r as u32, l));
                }
            }
        }
        let mut starts = vec![(0usize, 0usize); groups.len() + 1];
        for (ix, &k) in rank.iter().enumerate() {
            if k != NONE {
                starts[k as usize + 1] = per_line[ix];
            }
        }
        for k in 1..starts.len() {
            starts[k].0 += starts[k - 1].0;
            starts[k].1 += starts[k - 1].1;
        }

        // Second pass: states and state shadows into their line's group (a
        // shadow's weights beside its group's), events and arrows as marks.
        let (n_items, n_weights) = starts[groups.len()];
        let mut items: Vec<Item> = vec![Item::EMPTY; n_items];
        // State shadows' weights: (category slot, exclusive ratio, container).
        let mut weights: Vec<(u32, f64, bool)> = vec![(0, 0.0, false); n_weights];
        let mut next = starts.clone();
        let mut events: Vec<(u32, i32, f64, u64, bool)> = Vec::new();
        let mut arrows: Vec<(u32, u32, f64, f64, i32, u64, bool)> = Vec::new();
        let mut drawables = 0u64;
        let mut order = 0u32;
        let ix = |lines: &Dense, l: i32| lines.get(l).expect("indexed in the first pass");
        for d in buf.drawables() {
            for p in d.primitive().into_iter().chain(d.parts()) {
                if p.vertices().is_empty() {
                    continue;
                }
                let piece = Piece::of(&p);
                drawables += 1;
                order += 1;
                let (a, b) = (ix(&lines, piece.first.1), ix(&lines, piece.last.1));
                match cats.topology(piece.category) {
                    topology::STATE => {
                        let slot = cats.slot(piece.category);
                        let k = rank[a as usize];
                        if k != NONE {
                            let at = &mut next[k as usize].0;
                            items[*at] = Item {
                                start: piece.start,
                                end: piece.end,
                                category: piece.category,
                                order,
                                slot,
                                weights: 0,
                                info: piece.info,
                            };
                            *at += 1;
                        }
                    }
                    topology::ARROW => {
                        arrows.push((a, b, piece.first.0, piece.last.0, piece.category, 1, false))
                    }
                    _ => events.push((a, piece.category, piece.first.0, 1, false)),
                }
            }
        }
        let mut shadows = 0u64;
        let ratio = |x: f32| {
            let x = f64::from(x);
            if x.is_finite() && x > 0.0 {
                x
            } else {
                0.0
            }
        };
        for s in buf.shadows() {
            let v = s.vertices();
            let (Some(a), Some(b)) = (v.first(), v.last()) else {
                continue;
            };
            shadows += 1;
            let (la, lb) = (ix(&lines, a.line_id), ix(&lines, b.line_id));
            match cats.topology(s.category()) {
                topology::STATE => {
                    let k = rank[la as usize];
                    if k == NONE {
                        continue;
                    }
                    let span = s.latest() - s.earliest();
                    let (at, w_at) = &mut next[k as usize];
                    let first = *w_at;
                    // A member that holds nested states gets an `excl` from
                    // its own subtree only (conversion.md §4 step 4), while
                    // the states nested in it may lie in other subtrees,
                    // whose shadows count them too: such weights (`incl` above
                    // `excl`) are marked as containers, and a column whose
                    // shares add up to more than its width loses the excess
                    // from them (spec/queries.md §6.2).
                    for w in s.weights() {
                        if cats.topology(w.category) != topology::STATE {
                            continue;
                        }
                        let x = ratio(w.excl);
                        if !(x > 0.0 && span > 0.0) {
                            continue;
                        }
                        let container = ratio(w.incl) > x * (1.0 + 1e-6);
                        weights[*w_at] = (cats.slot(w.category), x, container);
                        *w_at += 1;
                    }
                    items[*at] = Item {
                        start: s.earliest(),
                        end: s.latest(),
                        category: s.category(),
                        order: SHADOW,
                        slot: first as u32,
                        weights: (*w_at - first) as u32,
                        info: &[],
                    };
                    *at += 1;
                }
                topology::ARROW => {
                    let heaviest = s
                        .weights()
                        .iter()
                        .filter(|w| w.incl.is_finite())
                        .max_by(|p, q| p.incl.total_cmp(&q.incl).then(q.category.cmp(&p.category)))
                        .map_or(s.category(), |w| w.category);
                    arrows.push((
                        la,
                        lb,
                        a.time,
                        b.time,
                        heaviest,
                        u64::try_from(s.num_real_objs()).unwrap_or(0),
                        true,
                    ))
                }
                _ => {
                    for w in s.weights() {
                        let n = w.count.map_or(1, |n| u64::try_from(n).unwrap_or(0)).max(1);
                        events.push((la, w.category, a.time, n, true));
                    }
                }
            }
        }

        let width = to - from;
        let scale = if width > 0.0 {
            f64::from(columns) / width
        } else {
            0.0
        };
        let pos = |t: f64| ((t - from) * scale).clamp(0.0, f64::from(columns));
        let col = |t: f64| (pos(t) as u32).min(columns - 1);
        let col_w = if columns > 0 {
            width / f64::from(columns)
        } else {
            0.0
        };

        // The sweep, row by row (lines of a row each with their own stack),
        // each line's group sorted first. A group is a few runs already in
        // start order (one per node read), which the stable sort merges rather
        // than sorts.
        for k in 0..groups.len() {
            items[starts[k].0..starts[k + 1].0].sort_by(|a, b| {
                a.start
                    .total_cmp(&b.start)
                    .then(b.end.total_cmp(&a.end))
                    .then((a.order == SHADOW).cmp(&(b.order == SHADOW)))
                    .then(a.category.cmp(&b.category))
                    .then(a.order.cmp(&b.order))
            });
        }
        let slot_cat = &cats.slot_cat;
        let slots = slot_cat.len().max(1);
        let n = columns as usize;
        let mut scratch = Scratch::new(n, slots);
        // Cells for the rows shown only: a few rows of a 1,024-rank trace
        // cost what they show.
        let cell_rows = match only {
            None => 0..rows.len(),
            Some((a, b)) => (a as usize).min(rows.len())..(b as usize + 1).min(rows.len()),
        };
        let mut cells: Vec<(u32, u32)> = Vec::with_capacity(cell_rows.len() * n);
        let mut shares: Vec<Share> = Vec::new();
        let mut summarised: Vec<bool> = Vec::with_capacity(cell_rows.len() * n);
        let mut covered: Vec<u16> = Vec::with_capacity(cell_rows.len() * n);
        let mut states: Vec<WideState> = Vec::new();
        let mut stack: Vec<Open> = Vec::new();
        let mut k = 0;
        // A cell's shares with their slots, the last cell's slots in order,
        // and which slots that order holds.
        let mut cell: Vec<(Share, u32)> = Vec::new();
        let mut last_order: Vec<u32> = Vec::new();
        let mut seen = vec![false; slots];
        // Per line: the innermost real state of each stretch of time.
        let mut segments: Vec<(f64, f64, usize)> = Vec::new();
        // Info texts by category and bytes: decoding (Java's number forms)
        // is slow, and ranks often log the same values.
        let mut infos: FxHashMap<(i32, &[u8]), Option<String>> = FxHashMap::default();
        for (r, row) in rows.iter().enumerate() {
            while k < groups.len() && groups[k].0 as usize == r {
                let l = groups[k].1;
                let line_items = &items[starts[k].0..starts[k + 1].0];
                k += 1;
                // Real states: nested as stats nests them, the exclusive time
                // of each, the wide ones, and the innermost segments.
                stack.clear();
                segments.clear();
                let mut cursor = f64::NEG_INFINITY;
                let close = |open: &Open,
                             upto: f64,
                             cursor: &mut f64,
                             segments: &mut Vec<(f64, f64, usize)>| {
                    let from = cursor.max(open.start);
                    if upto > from {
                        segments.push((from, upto, open.slot));
                    }
                    *cursor = cursor.max(upto);
                };
                for it in line_items.iter().filter(|it| it.order != SHADOW) {
                    let (a, b) = (pos(it.start), pos(it.end));
                    while let Some(top) = stack.last() {
                        if top.start <= it.start && it.end <= top.end {
                            break;
                        }
                        let top = stack.pop().expect("checked");
                        close(&top, top.end, &mut cursor, &mut segments);
                    }
                    if let Some(parent) = stack.last() {
                        close(parent, it.start, &mut cursor, &mut segments);
                    }
                    let slot = it.slot as usize;
                    let wide = b - a >= WIDE;
                    scratch.add(slot, a, b, 1.0, !wide);
                    if let Some(parent) = stack.last() {
                        scratch.add(parent.slot, a, b, -1.0, !wide);
                    }
                    let depth = stack.len() as u16;
                    if wide {
                        scratch.cover(a, b, depth + 1);
                        states.push(WideState {
                            row: r as u32,
                            depth,
                            category: it.category,
                            start: it.start,
                            end: it.end,
                            line: l,
                            info: infos
                                .entry((it.category, it.info))
                                .or_insert_with(|| info_text(legend, it.category, it.info))
                                .clone(),
                        });
                    }
                    stack.push(Open {
                        start: it.start,
                        end: it.end,
                        slot,
                    });
                }
                while let Some(top) = stack.pop() {
                    close(&top, top.end, &mut cursor, &mut segments);
                }
                // Shadows: their ratios spread over their boxes, taken from
                // the innermost real state of each stretch they overlap
                // (their members nest in it).
                for it in line_items.iter().filter(|it| it.order == SHADOW) {
                    let (a, b) = (pos(it.start), pos(it.end));
                    let ws = &weights[it.slot as usize..(it.slot + it.weights) as usize];
                    let mut density = 0.0;
                    for &(slot, x, container) in ws {
                        scratch.add(slot as usize, a, b, x, true);
                        if container {
                            scratch.add_container(slot as usize, a, b, x);
                        }
                        density += x;
                    }
                    if density <= 0.0 || it.end <= it.start {
                        continue;
                    }
                    let first = segments.partition_point(|seg| seg.1 <= it.start);
                    for &(s0, s1, slot) in segments[first..].iter().take_while(|seg| seg.0 < it.end)
                    {
                        let (lo, hi) = (s0.max(it.start), s1.min(it.end));
                        if hi > lo {
                            scratch.add(slot, pos(lo), pos(hi), -density, true);
                        }
                    }
                }
            }
            if !cell_rows.contains(&r) {
                continue;
            }
            // The row's cells.
            let mut point_before = true;
            for c in 0..n {
                let same = scratch.settle(c, point_before);
                point_before = std::mem::take(&mut scratch.point[c]);
                if !same {
                    cell.clear();
                }
                if !same && scratch.touched[c] {
                    scratch.cap(c, row.lines.len());
                    let base = c * slots;
                    scratch.container[base..base + slots].fill(0.0);
                    // The slots in the last cell's order first: neighbouring
                    // cells mostly rank their categories alike, so the sort
                    // below finds them nearly in order.
                    let secs = &mut scratch.seconds[base..base + slots];
                    let mut take = |s: usize, cell: &mut Vec<(Share, u32)>| {
                        let v = std::mem::take(&mut secs[s]) * col_w;
                        if v > 0.0 && v > col_w * 1e-12 {
                            let category = slot_cat[s];
                            cell.push((
                                Share {
                                    category,
                                    seconds: v,
                                },
                                s as u32,
                            ));
                        }
                    };
                    for &s in &last_order {
                        seen[s as usize] = true;
                        take(s as usize, &mut cell);
                    }
                    for (s, seen) in seen.iter_mut().enumerate() {
                        if !std::mem::take(seen) {
                            take(s, &mut cell);
                        }
                    }
                    // Categories are unique in a cell: no ties to keep.
                    cell.sort_unstable_by(|(p, _), (q, _)| {
                        q.seconds
                            .total_cmp(&p.seconds)
                            .then(p.category.cmp(&q.category))
                    });
                    last_order.clear();
                    last_order.extend(cell.iter().map(|&(_, s)| s));
                }
                match cells.last() {
                    Some(&last) if same && c > 0 => cells.push(last),
                    _ => {
                        let a = shares.len() as u32;
                        shares.extend(cell.iter().map(|&(s, _)| s));
                        cells.push((a, shares.len() as u32));
                    }
                }
                summarised.push(scratch.summarised[c]);
                covered.push(scratch.covered[c]);
                scratch.touched[c] = false;
                scratch.summarised[c] = false;
                scratch.covered[c] = 0;
            }
            scratch.end_row();
        }
        states.sort_by(|p, q| {
            p.start
                .total_cmp(&q.start)
                .then(q.end.total_cmp(&p.end))
                .then(p.row.cmp(&q.row))
                .then(p.depth.cmp(&q.depth))
        });

        // Events: one mark per row and column, in the category with the most
        // events there (ties: the lower index), counting them all.
        let mut per_cat: FxHashMap<(u32, u32, i32), (u64, f64, bool)> = FxHashMap::default();
        for (line, category, t, count, summary) in events {
            if !(t >= from && t <= to) {
                continue;
            }
            if !shown(row_of[line as usize]) {
                continue;
            }
            let e = per_cat
                .entry((row_of[line as usize], col(t), category))
                .or_insert((0, t, false));
            e.0 += count;
            e.2 |= summary;
        }
        let mut per_cat: Vec<_> = per_cat.into_iter().collect();
        per_cat.sort_unstable_by_key(|(k, _)| *k);
        let mut events: Vec<EventMark> = Vec::new();
        for ((row, column, category), (count, time, summary)) in per_cat {
            match events.last_mut() {
                Some(m) if m.row == row && m.column == column => {
                    if count > m.top {
                        (m.category, m.time, m.top) = (category, time, count);
                    }
                    m.count += count;
                    m.summary |= summary;
                }
                _ => events.push(EventMark {
                    row,
                    column,
                    category,
                    time,
                    count,
                    top: count,
                    summary,
                }),
            }
        }
        // Arrows: one mark per pair of rows and pair of columns; when there
        // are more than columns, per pair of 4-column bins.
        let arrow_columns: u32 = if arrows.len() as f64 > f64::from(columns) {
            4
        } else {
            1
        };
        let mut ar: FxHashMap<(u32, u32, u32, u32), ArrowMark> = FxHashMap::default();
        for (a, b, t0, t1, category, count, summary) in arrows {
            let (from_row, to_row) = (row_of[a as usize], row_of[b as usize]);
            if !shown(from_row) && !shown(to_row) {
                continue;
            }
            let key = (
                from_row,
                to_row,
                col(t0) / arrow_columns,
                col(t1) / arrow_columns,
            );
            let e = ar.entry(key).or_insert(ArrowMark {
                from_row,
                to_row,
                start: t0,
                end: t1,
                category,
                count: 0,
                summary,
            });
            e.count += count;
            e.summary |= summary;
        }
        let mut ar: Vec<_> = ar.into_iter().collect();
        ar.sort_unstable_by_key(|(k, _)| *k);
        Summary {
            from,
            to,
            columns,
            rows,
            cell_rows,
            cells,
            shares,
            summarised,
            covered,
            states,
            events,
            arrows: ar.into_iter().map(|(_, m)| m).collect(),
            arrow_columns,
            drawables,
            shadows,
        }
    }

    /// The cell of `row` and `column` (`None` outside the summary).
    pub fn cell(&self, row: usize, column: usize) -> Option<Cell<'_>> {
        let n = self.columns as usize;
        if row >= self.rows.len() || column >= n {
            return None;
        }
        if !self.cell_rows.contains(&row) {
            return Some(Cell {
                shares: &[],
                summarised: false,
                covered: 0,
            });
        }
        let k = (row - self.cell_rows.start) * n + column;
        let (a, b) = self.cells[k];
        Some(Cell {
            shares: &self.shares[a as usize..b as usize],
            summarised: self.summarised[k],
            covered: self.covered[k],
        })
    }

    /// The width of one column in seconds.
    pub fn column_width(&self) -> f64 {
        (self.to - self.from) / f64::from(self.columns)
    }

    /// Per category, the exclusive seconds summed over every cell.
    pub fn exclusive_by_category(&self) -> BTreeMap<i32, f64> {
        let mut out = BTreeMap::new();
        for &(a, b) in &self.cells {
            for s in &self.shares[a as usize..b as usize] {
                *out.entry(s.category).or_insert(0.0) += s.seconds;
            }
        }
        out
    }

    /// Which shares the cell of `row` and `column` holds: equal for two cells
    /// with one range of shares (and for every empty cell), so a writer
    /// rounds a repeated cell once.
    fn shares_id(&self, row: usize, column: usize) -> (u32, u32) {
        let n = self.columns as usize;
        match self.cell_rows.contains(&row) && column < n {
            true => match self.cells[(row - self.cell_rows.start) * n + column] {
                (a, b) if a < b => (a, b),
                _ => (0, 0),
            },
            false => (0, 0),
        }
    }

    /// Per category, the exclusive seconds summed over the cells of `row`.
    pub fn exclusive_of_row(&self, row: usize) -> BTreeMap<i32, f64> {
        let mut out = BTreeMap::new();
        for c in 0..self.columns as usize {
            if let Some(cell) = self.cell(row, c) {
                for s in cell.shares {
                    *out.entry(s.category).or_insert(0.0) += s.seconds;
                }
            }
        }
        out
    }
}

/// The query behind every picture: the window `[from, to]` (its end
/// included, so that a whole file's last event shows) read `columns` pixels
/// wide into `buf` ([`slog2_format::Slog2Reader::window_picture_into`]: a
/// preview that also summarises dense subtrees a few pixels wide).
pub fn query<R: std::io::Read + std::io::Seek>(
    r: &mut slog2_format::Slog2Reader<R>,
    buf: &mut WindowBuf,
    from: f64,
    to: f64,
    columns: u32,
) -> slog2_format::Result<()> {
    r.window_picture_into(buf, from, crate::slices::next_up(to), columns.max(1))
}

/// Writes a time as JSON: the shortest text that reads back exactly.
fn time(out: &mut Vec<u8>, t: f64) {
    if t.is_finite() {
        let _ = serde_json::to_writer(&mut *out, &t);
    } else {
        out.push(b'0');
    }
}

impl Summary {
    /// A cell's `shares` in units of 1/10000 of its column, as
    /// [`write_json`](Self::write_json) writes them, into `out`: the
    /// [`JSON_SHARES`] largest and any other of at least [`JSON_SMALL`] units,
    /// then the rest summed as one share of category [`OTHER`] (zeros left
    /// out).
    fn rounded(&self, shares: &[Share], out: &mut Vec<(i32, u32)>) {
        out.clear();
        let w = self.column_width();
        let mut rest = 0.0;
        for (i, s) in shares.iter().enumerate() {
            let f = s.seconds / w * 1e4;
            if i < JSON_SHARES || f >= JSON_SMALL {
                let f = round(f);
                if f >= 1.0 {
                    out.push((s.category, f.min(1e9) as u32));
                }
            } else {
                rest += f;
            }
        }
        let rest = round(rest);
        if rest >= 1.0 {
            out.push((OTHER, rest.min(1e9) as u32));
        }
    }

    /// Calls `run(row, column, length, first cell, key)` for each run of
    /// equal neighbouring cells of every row: equal in whether they are
    /// summarised, their covering depth, and the `key` that `key_of(shares,
    /// &mut key)` makes of their shares (made once for cells that share one
    /// range of shares).
    fn for_each_run<K: PartialEq + Default>(
        &self,
        mut key_of: impl FnMut(&[Share], &mut K),
        mut run: impl FnMut(usize, usize, usize, Cell<'_>, &K),
    ) {
        let n = self.columns as usize;
        let (mut key, mut next) = (K::default(), K::default());
        let same =
            |a: Cell<'_>, b: Cell<'_>| a.summarised == b.summarised && a.covered == b.covered;
        // Empty unsummarised cells make no run that is written: the rows
        // without cells are left out.
        for r in self.cell_rows.clone() {
            // The shares whose key `key` is.
            let mut key_id = None;
            let mut c = 0;
            while c < n {
                let cell = self.cell(r, c).expect("in range");
                let id = self.shares_id(r, c);
                if key_id != Some(id) {
                    key_of(cell.shares, &mut key);
                    key_id = Some(id);
                }
                let mut len = 1;
                let mut next_id = None;
                while c + len < n {
                    let other = self.cell(r, c + len).expect("in range");
                    if !same(cell, other) {
                        break;
                    }
                    let other_id = self.shares_id(r, c + len);
                    if other_id != id {
                        key_of(other.shares, &mut next);
                        if next != key {
                            next_id = Some(other_id);
                            break;
                        }
                    }
                    len += 1;
                }
                run(r, c, len, cell, &key);
                if next_id.is_some() {
                    // The next run's key is made already.
                    std::mem::swap(&mut key, &mut next);
                    key_id = next_id;
                }
                c += len;
            }
        }
    }

    /// The summary as one compact JSON object (spec/queries.md §6.3): the
    /// window, the rows, the cells as runs `[row, column, length, flags,
    /// category, share, …]` (shares in units of 1/10000 of the column; `flags`
    /// is 1 for a summarised cell plus twice the covering depth; empty
    /// unsummarised cells are left out), the wide states `[row, depth,
    /// category, start, end, line, info]`, the events `[row, column, category,
    /// time, count, top, summary]` and the arrows `[from_row, to_row, start, end,
    /// category, count, summary]`.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        use std::io::Write as _;
        out.extend_from_slice(b"{\"from\":");
        time(out, self.from);
        out.extend_from_slice(b",\"to\":");
        time(out, self.to);
        let _ = write!(out, ",\"columns\":{},\"rows\":[", self.columns);
        for (i, r) in self.rows.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            let _ = crate::json_text::to_writer(&mut *out, r);
        }
        out.extend_from_slice(b"],\"cells\":[");
        let mut first = true;
        self.for_each_run(
            |shares, out: &mut Vec<(i32, u32)>| self.rounded(shares, out),
            |r, c, len, cell, shares| {
                if !cell.summarised && shares.is_empty() {
                    return;
                }
                if !first {
                    out.push(b',');
                }
                first = false;
                let flags = u32::from(cell.summarised) + 2 * u32::from(cell.covered);
                let _ = write!(out, "[{r},{c},{len},{flags}");
                for (k, f) in shares {
                    if *k == OTHER {
                        let _ = write!(out, ",null,{f}");
                    } else {
                        let _ = write!(out, ",{k},{f}");
                    }
                }
                out.push(b']');
            },
        );
        json_rows(out, b"],\"states\":[", &self.states, |out, s| {
            let _ = write!(out, "{},{},{},", s.row, s.depth, s.category);
            time(out, s.start);
            out.push(b',');
            time(out, s.end);
            let _ = write!(out, ",{},", s.line);
            let _ = crate::json_text::to_writer(&mut *out, &s.info);
        });
        json_rows(out, b"],\"events\":[", &self.events, |out, e| {
            let _ = write!(out, "{},{},{},", e.row, e.column, e.category);
            time(out, e.time);
            let _ = write!(out, ",{},{},{}", e.count, e.top, u8::from(e.summary));
        });
        json_rows(out, b"],\"arrows\":[", &self.arrows, |out, a| {
            let _ = write!(out, "{},{},", a.from_row, a.to_row);
            time(out, a.start);
            out.push(b',');
            time(out, a.end);
            let _ = write!(out, ",{},{},{}", a.category, a.count, u8::from(a.summary));
        });
        let _ = write!(
            out,
            "],\"arrow_columns\":{},\"drawables\":{},\"shadows\":{}}}",
            self.arrow_columns, self.drawables, self.shadows
        );
    }
}

/// Writes `name` (the text before the array), then `items` as the JSON
/// array's elements, each `[…]` around what `item` writes.
fn json_rows<T>(
    out: &mut Vec<u8>,
    name: &[u8],
    items: &[T],
    mut item: impl FnMut(&mut Vec<u8>, &T),
) {
    out.extend_from_slice(name);
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.push(b'[');
        item(out, x);
        out.push(b']');
    }
}

/// The first bytes of [`Summary::write_bin`]'s form.
pub const BIN_MAGIC: &[u8; 4] = b"MPLS";

impl Summary {
    /// The summary in the compact binary form the viewer reads
    /// (spec/queries.md §6.6): little-endian, the same content as
    /// [`write_json`](Self::write_json) (its shares, small ones summed, in
    /// 1/250 of the column), with categories as indexes into a table, arrows
    /// by column and no event times, in about a fifth of the bytes.
    ///
    /// ```
    /// # use mpelog::summary::{Summary, BIN_MAGIC};
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::write::TreeOptions;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), TreeOptions::default(), |_| {})?;
    /// # let mut r = slog2_format::Slog2Reader::new(Cursor::new(out.into_inner()))?;
    /// # let legend = r.categories().map(|c| c.value.categories.clone()).unwrap_or_default();
    /// # let mut buf = slog2_format::WindowBuf::new();
    /// # mpelog::summary::query(&mut r, &mut buf, 0.0, 1.0, 400)?;
    /// let s = Summary::of_window(&buf, &legend, None, 0.0, 1.0, 400);
    /// let (mut bin, mut json) = (Vec::new(), Vec::new());
    /// s.write_bin(&mut bin);
    /// s.write_json(&mut json);
    /// assert_eq!(&bin[..4], BIN_MAGIC);
    /// assert!(bin.len() < json.len());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_bin(&self, out: &mut Vec<u8>) {
        fn u16_(out: &mut Vec<u8>, v: usize) {
            out.extend_from_slice(&(v.min(u16::MAX as usize) as u16).to_le_bytes());
        }
        fn u32_(out: &mut Vec<u8>, v: usize) {
            out.extend_from_slice(&(v.min(u32::MAX as usize) as u32).to_le_bytes());
        }
        out.extend_from_slice(BIN_MAGIC);
        out.extend_from_slice(&[1, 0, 0, 0]);
        out.extend_from_slice(&self.from.to_le_bytes());
        out.extend_from_slice(&self.to.to_le_bytes());
        u32_(out, self.columns as usize);
        u32_(out, self.arrow_columns as usize);
        out.extend_from_slice(&self.drawables.to_le_bytes());
        out.extend_from_slice(&self.shadows.to_le_bytes());
        u32_(out, self.rows.len());
        for r in &self.rows {
            u16_(out, r.key.len());
            for v in &r.key {
                out.extend_from_slice(&v.to_le_bytes());
            }
            u16_(out, r.lines.len());
            for l in &r.lines {
                out.extend_from_slice(&l.to_le_bytes());
            }
        }
        // The category table: every category named below, by first use.
        let mut table: Vec<i32> = Vec::new();
        let mut slot = Dense::default();
        let mut slot_of = |c: i32, table: &mut Vec<i32>| -> u16 {
            if c == OTHER {
                return u16::MAX;
            }
            let i = slot.index(c) as usize;
            if i == table.len() {
                table.push(c);
            }
            i.min(u16::MAX as usize - 1) as u16
        };
        let mut body = Vec::with_capacity(1 << 16);
        let w = self.column_width();
        // Cells, as runs: shares as (u8 slot, u8 share in 1/250 of the
        // column), slot 255 the null share and any category past the 255th.
        let mut runs = 0usize;
        let mut cells = Vec::with_capacity(1 << 16);
        let mut shares = Vec::new();
        self.for_each_run(
            |now, q: &mut Vec<(u8, u8)>| {
                self.rounded(now, &mut shares);
                q.clear();
                for (k, f) in &shares {
                    let units = round(f64::from(*f) * 250.0 / 1e4).min(255.0) as u8;
                    if units > 0 {
                        let s = slot_of(*k, &mut table);
                        q.push((if s < 255 { s as u8 } else { 255 }, units));
                    }
                }
            },
            |r, c, len, cell, q| {
                if !cell.summarised && q.is_empty() {
                    return;
                }
                runs += 1;
                u16_(&mut cells, r);
                u16_(&mut cells, c);
                u16_(&mut cells, len);
                cells.push(u8::from(cell.summarised) | (cell.covered.min(127) as u8) << 1);
                cells.push(q.len().min(255) as u8);
                for (slot, units) in q.iter().take(255) {
                    cells.push(*slot);
                    cells.push(*units);
                }
            },
        );
        u32_(&mut body, runs);
        body.extend_from_slice(&cells);
        u32_(&mut body, self.states.len());
        for s in &self.states {
            u16_(&mut body, s.row as usize);
            u16_(&mut body, usize::from(s.depth));
            let k = slot_of(s.category, &mut table);
            body.extend_from_slice(&k.to_le_bytes());
            let info = s.info.as_deref().map(str::as_bytes);
            u16_(
                &mut body,
                info.map_or(u16::MAX as usize, |b| b.len().min(u16::MAX as usize - 1)),
            );
            body.extend_from_slice(&s.start.to_le_bytes());
            body.extend_from_slice(&s.end.to_le_bytes());
            body.extend_from_slice(&s.line.to_le_bytes());
            if let Some(b) = info {
                body.extend_from_slice(&b[..b.len().min(u16::MAX as usize - 1)]);
            }
        }
        u32_(&mut body, self.events.len());
        for e in &self.events {
            u16_(&mut body, e.row as usize);
            u16_(&mut body, e.column as usize);
            let k = slot_of(e.category, &mut table);
            body.extend_from_slice(&k.to_le_bytes());
            body.push(u8::from(e.summary));
            body.push(0);
            u32_(&mut body, e.count as usize);
            u32_(&mut body, e.top as usize);
        }
        u32_(&mut body, self.arrows.len());
        for a in &self.arrows {
            u16_(&mut body, a.from_row as usize);
            u16_(&mut body, a.to_row as usize);
            let k = slot_of(a.category, &mut table);
            body.extend_from_slice(&k.to_le_bytes());
            body.push(u8::from(a.summary));
            body.push(0);
            for t in [a.start, a.end] {
                let c = ((t - self.from) / w).floor().clamp(-1e9, 1e9) as i32;
                body.extend_from_slice(&c.to_le_bytes());
            }
            u32_(&mut body, a.count as usize);
        }
        u32_(out, table.len());
        for c in &table {
            out.extend_from_slice(&c.to_le_bytes());
        }
        out.extend_from_slice(&body);
    }
}
