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
//! let legend = r.category_list().to_vec();
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

/// A summary keeps at most this many wide states per column (all rows
/// together), and at least [`MIN_STATES`]: past that the narrowest are
/// summarised in their cells as narrower states are (spec/queries.md §6.2),
/// so that an answer's states are bounded by its width, not by its rows.
pub const MAX_STATES_PER_COLUMN: usize = 4;

/// The wide states a summary may keep however few its columns.
pub const MIN_STATES: usize = 4096;

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
    /// columns.
    pub arrow_columns: u32,
    /// How a picture draws the arrows: as lines when they are few enough to
    /// be seen one by one, else as [`ticks`](Self::ticks) (spec/queries.md
    /// §6.4 step 3).
    pub arrow_style: ArrowStyle,
    /// With [`ArrowStyle::Ticks`], the message ends in the window per row,
    /// edge and bin of [`arrow_columns`](Self::arrow_columns) columns, by
    /// row, edge (top first) and column; empty with [`ArrowStyle::Lines`].
    pub ticks: Vec<TickMark>,
    /// Real primitives that went in.
    pub drawables: u64,
    /// Shadows that went in.
    pub shadows: u64,
    /// The wait states and the critical path per cell, when a wait index was
    /// given ([`Summary::add_waits`], spec/queries.md §6.7).
    pub waits: Option<Waits>,
}

mod arrows;
pub use arrows::{ArrowStyle, TickMark, LINE_COLUMNS, MAX_TICKS_PER_COLUMN};
mod bin;
pub use bin::{BIN_MAGIC, BIN_VERSION, BIN_VERSION_WAITS};
mod build;
mod json;
mod sweep;
mod waits;
pub use waits::{
    JumpMark, PathMark, WaitShare, Waits, JUMP_COLUMNS, OTHER_WAITS, WAIT_ROWS, WAIT_SHARES,
};

impl Summary {
    /// The cell of `row` and `column` (`None` outside the summary).
    ///
    /// ```
    /// # use mpelog::summary::Summary;
    /// # use slog2_format::{convert::clog2_to_slog2, Slog2Reader, WindowBuf};
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let mut r = Slog2Reader::new(Cursor::new(out.into_inner()))?;
    /// # let legend = r.categories().map(|c| c.value.categories.clone()).unwrap_or_default();
    /// # let view = r.line_id_maps().and_then(|m| m.value.maps.first().cloned());
    /// # let root = *r.tree_dir().unwrap().value.root().unwrap();
    /// # let (from, to) = (root.earliest, root.latest);
    /// # let mut buf = WindowBuf::new();
    /// # mpelog::summary::query(&mut r, &mut buf, from, to, 100)?;
    /// # let s = Summary::of_window(&buf, &legend, view.as_ref(), from, to, 100);
    /// let c = s.cell(0, 0).unwrap();
    /// assert!(c.shares.iter().all(|sh| sh.seconds >= 0.0));
    /// assert!(s.cell(s.rows.len(), 0).is_none()); // outside
    /// assert!(s.cell(0, 100).is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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
    ///
    /// ```
    /// # use mpelog::summary::Summary;
    /// # use slog2_format::{convert::clog2_to_slog2, Slog2Reader, WindowBuf};
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let mut r = Slog2Reader::new(Cursor::new(out.into_inner()))?;
    /// # let legend = r.categories().map(|c| c.value.categories.clone()).unwrap_or_default();
    /// # let view = r.line_id_maps().and_then(|m| m.value.maps.first().cloned());
    /// # let root = *r.tree_dir().unwrap().value.root().unwrap();
    /// # let (from, to) = (root.earliest, root.latest);
    /// # let mut buf = WindowBuf::new();
    /// # mpelog::summary::query(&mut r, &mut buf, from, to, 100)?;
    /// # let s = Summary::of_window(&buf, &legend, view.as_ref(), from, to, 100);
    /// assert!((s.column_width() * 100.0 - (to - from)).abs() < 1e-9);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn column_width(&self) -> f64 {
        (self.to - self.from) / f64::from(self.columns)
    }

    /// Per category, the exclusive seconds summed over every cell.
    ///
    /// ```
    /// # use mpelog::summary::Summary;
    /// # use slog2_format::{convert::clog2_to_slog2, Slog2Reader, WindowBuf};
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let mut r = Slog2Reader::new(Cursor::new(out.into_inner()))?;
    /// # let legend = r.categories().map(|c| c.value.categories.clone()).unwrap_or_default();
    /// # let view = r.line_id_maps().and_then(|m| m.value.maps.first().cloned());
    /// # let root = *r.tree_dir().unwrap().value.root().unwrap();
    /// # let (from, to) = (root.earliest, root.latest);
    /// # let mut buf = WindowBuf::new();
    /// # mpelog::summary::query(&mut r, &mut buf, from, to, 100)?;
    /// # let s = Summary::of_window(&buf, &legend, view.as_ref(), from, to, 100);
    /// let by_cat = s.exclusive_by_category();
    /// let total: f64 = by_cat.values().sum();
    /// // Every row's columns hold at most the row's time.
    /// assert!(total <= s.rows.len() as f64 * (to - from) + 1e-6);
    /// assert!(!by_cat.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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
    ///
    /// ```
    /// # use mpelog::summary::Summary;
    /// # use slog2_format::{convert::clog2_to_slog2, Slog2Reader, WindowBuf};
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let mut r = Slog2Reader::new(Cursor::new(out.into_inner()))?;
    /// # let legend = r.categories().map(|c| c.value.categories.clone()).unwrap_or_default();
    /// # let view = r.line_id_maps().and_then(|m| m.value.maps.first().cloned());
    /// # let root = *r.tree_dir().unwrap().value.root().unwrap();
    /// # let (from, to) = (root.earliest, root.latest);
    /// # let mut buf = WindowBuf::new();
    /// # mpelog::summary::query(&mut r, &mut buf, from, to, 100)?;
    /// # let s = Summary::of_window(&buf, &legend, view.as_ref(), from, to, 100);
    /// let row0 = s.exclusive_of_row(0);
    /// assert!(row0.values().sum::<f64>() <= (to - from) + 1e-6);
    /// // The rows add up to the whole.
    /// let mut sum = std::collections::BTreeMap::new();
    /// for r in 0..s.rows.len() {
    ///     for (c, x) in s.exclusive_of_row(r) {
    ///         *sum.entry(c).or_insert(0.0) += x;
    ///     }
    /// }
    /// for (c, x) in s.exclusive_by_category() {
    ///     assert!((sum[&c] - x).abs() < 1e-9);
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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
///
/// # Errors
///
/// As [`Slog2Reader::window_picture_into`](slog2_format::Slog2Reader::window_picture_into).
///
/// ```
/// # use mpelog::summary::Summary;
/// # use slog2_format::{convert::clog2_to_slog2, Slog2Reader, WindowBuf};
/// # use std::io::Cursor;
/// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
/// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// # let mut r = Slog2Reader::new(Cursor::new(out.into_inner()))?;
/// # let legend = r.categories().map(|c| c.value.categories.clone()).unwrap_or_default();
/// # let view = r.line_id_maps().and_then(|m| m.value.maps.first().cloned());
/// # let root = *r.tree_dir().unwrap().value.root().unwrap();
/// # let (from, to) = (root.earliest, root.latest);
/// # let mut buf = WindowBuf::new();
/// # mpelog::summary::query(&mut r, &mut buf, from, to, 100)?;
/// # let s = Summary::of_window(&buf, &legend, view.as_ref(), from, to, 100);
/// let mut other = WindowBuf::new();
/// mpelog::summary::query(&mut r, &mut other, from, to, 10)?; // 10 columns: fewer nodes read
/// assert!(other.counters().nodes_read <= buf.counters().nodes_read);
/// assert!(other.drawables_len() + other.shadows_len() > 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn query<R: std::io::Read + std::io::Seek>(
    r: &mut slog2_format::Slog2Reader<R>,
    buf: &mut WindowBuf,
    from: f64,
    to: f64,
    columns: u32,
) -> slog2_format::Result<()> {
    r.window_picture_into(buf, from, crate::slices::next_up(to), columns.max(1))
}
