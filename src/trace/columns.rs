//! [`Trace::window_columns`]: the rows of a window (the Parquet export's
//! rows, spec/export.md section 7) decoded from the tree straight into flat
//! column buffers in Arrow's memory layout, which a binding hands to Arrow
//! without copying them (the Python package's `t.window()`).
//!
//! The tree query fills a [`WindowBuf`] the [`Trace`] keeps for its next
//! query; the rows go from it into [`Columns`], each column one `Vec`
//! allocated once per query at the size of the answer: nothing is allocated
//! per row.

use super::error::{Error, Result};
use super::{annotation_error, Trace, Tree};
use crate::export::info_columns::{fills, info_columns, InfoColumn, InfoType};
use crate::export::{ArgRef, Cat};
use crate::slices::{order, span_of, Piece, Tree as _};
use rustc_hash::FxHashMap;
use slog2_format::window::TimeWindow;
use slog2_format::{Category, WindowBuf};
use std::cmp::Ordering;
use std::fmt::Write as _;

/// Which rows of a nullable column hold a value: Arrow's validity bitmap
/// (row `i` is bit `i % 8` of byte `i / 8`, set when it holds a value) and
/// the number of null rows.
///
/// ```
/// let v = mpelog::trace::Validity::default();
/// assert_eq!((v.bits.len(), v.nulls), (0, 0));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Validity {
    /// The bitmap.
    pub bits: Vec<u8>,
    /// How many rows are null.
    pub nulls: usize,
    len: usize,
}

impl Validity {
    fn with_capacity(rows: usize) -> Validity {
        Validity {
            bits: Vec::with_capacity(rows.div_ceil(8)),
            nulls: 0,
            len: 0,
        }
    }

    /// Appends `n` null rows (their bits are 0).
    #[inline(always)]
    fn push_nulls(&mut self, n: usize) {
        self.nulls += n;
        self.len += n;
        self.bits.resize(self.len.div_ceil(8), 0);
    }

    #[inline(always)]
    fn push(&mut self, valid: bool) {
        if self.len % 8 == 0 {
            self.bits.push(0);
        }
        if valid {
            if let Some(b) = self.bits.last_mut() {
                *b |= 1 << (self.len % 8);
            }
        } else {
            self.nulls += 1;
        }
        self.len += 1;
    }
}

/// A UTF-8 column in Arrow's layout: `len + 1` offsets into `bytes` (the
/// first 0), and which rows are null.
///
/// ```
/// let c = mpelog::trace::TextColumn::default();
/// assert!(c.offsets.is_empty() && c.bytes.is_empty());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TextColumn {
    /// Where each row's text starts in `bytes`, and where the last ends.
    pub offsets: Vec<i32>,
    /// The rows' text, one after the other.
    pub bytes: Vec<u8>,
    /// Which rows hold a value (all of them in a column that is never null).
    pub valid: Validity,
}

impl TextColumn {
    fn with_capacity(rows: usize, bytes: usize) -> TextColumn {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        TextColumn {
            offsets,
            bytes: Vec::with_capacity(bytes),
            valid: Validity::with_capacity(rows),
        }
    }

    /// The text of row `i` (`None` when null or not there).
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// let mut t = mpelog::Trace::open(&path)?;
    /// let c = t.window_columns(None, None)?;
    /// assert!(c.name.get(0).is_some_and(|n| n.starts_with("MPI_") || !n.is_empty()));
    /// assert_eq!(c.name.get(c.len()), None); // past the last row
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get(&self, i: usize) -> Option<&str> {
        let valid = self
            .valid
            .bits
            .get(i / 8)
            .is_some_and(|b| b & (1 << (i % 8)) != 0);
        let (a, b) = (*self.offsets.get(i)?, *self.offsets.get(i + 1)?);
        let text = self.bytes.get(a as usize..b as usize)?;
        valid.then(|| std::str::from_utf8(text).ok()).flatten()
    }

    /// Appends `n` null rows.
    fn push_nulls(&mut self, n: usize) {
        let end = self.offsets.last().copied().unwrap_or(0);
        self.offsets.resize(self.offsets.len() + n, end);
        self.valid.push_nulls(n);
    }

    /// Appends a row; `false` when the offsets would pass `i32::MAX`.
    #[inline(always)]
    fn push(&mut self, text: Option<&str>) -> bool {
        if let Some(t) = text {
            self.bytes.extend_from_slice(t.as_bytes());
        }
        self.valid.push(text.is_some());
        match i32::try_from(self.bytes.len()) {
            Ok(end) => {
                self.offsets.push(end);
                true
            }
            Err(_) => false,
        }
    }
}

/// The values of a typed info column (`info_msg_size`, ...).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum TypedColumn {
    /// 64-bit integers (0 in null rows).
    Int(Vec<i64>, Validity),
    /// 64-bit floats (0 in null rows).
    Float(Vec<f64>, Validity),
    /// Text.
    Text(TextColumn),
}

impl TypedColumn {
    fn new(kind: InfoType, rows: usize) -> TypedColumn {
        match kind {
            InfoType::Int => {
                TypedColumn::Int(Vec::with_capacity(rows), Validity::with_capacity(rows))
            }
            InfoType::Float => {
                TypedColumn::Float(Vec::with_capacity(rows), Validity::with_capacity(rows))
            }
            InfoType::Text => TypedColumn::Text(TextColumn::with_capacity(rows, 0)),
        }
    }

    /// Appends `v` if it has the column's type; returns whether it did (and
    /// whether text offsets stayed in range).
    #[inline(always)]
    fn push(&mut self, v: &ArgRef<'_>) -> (bool, bool) {
        match (self, v) {
            (TypedColumn::Int(c, ok), ArgRef::Int(x)) => {
                c.push(*x);
                ok.push(true);
            }
            (TypedColumn::Float(c, ok), ArgRef::Float(x)) => {
                c.push(*x);
                ok.push(true);
            }
            (TypedColumn::Text(c), ArgRef::Text(x)) => return (true, c.push(Some(x))),
            _ => return (false, true),
        }
        (true, true)
    }

    /// The number of rows the column has.
    #[inline(always)]
    fn len(&self) -> usize {
        match self {
            TypedColumn::Int(c, _) => c.len(),
            TypedColumn::Float(c, _) => c.len(),
            TypedColumn::Text(c) => c.offsets.len().saturating_sub(1),
        }
    }

    /// Appends null rows up to `rows` rows (the rows no value was stored in
    /// are filled in bulk, when a later row stores one or at the end).
    #[inline(always)]
    fn pad(&mut self, rows: usize) {
        let n = rows.saturating_sub(self.len());
        if n == 0 {
            return;
        }
        match self {
            TypedColumn::Int(c, ok) => {
                c.resize(rows, 0);
                ok.push_nulls(n);
            }
            TypedColumn::Float(c, ok) => {
                c.resize(rows, 0.0);
                ok.push_nulls(n);
            }
            TypedColumn::Text(c) => c.push_nulls(n),
        }
    }
}

/// The rows of a window as columns, in the order and with the values of the
/// Parquet export (spec/export.md section 7): `kind`, `category`, `name`,
/// `start`, `end`, `duration`, `start_line`, `end_line`, `info`, then one
/// typed column per info label of the legend. Each column is in Arrow's
/// memory layout, to be handed over without a copy.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("demo.clog2");
/// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
/// let mut t = mpelog::Trace::open(&path)?;
/// let c = t.window_columns(None, None)?;
/// assert_eq!(c.len(), t.window(None, None)?.drawables.len());
/// assert!(c.start.windows(2).all(|w| w[0] <= w[1])); // in start order
/// assert!((0..c.len()).all(|i| c.duration[i] == c.end[i] - c.start[i]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Columns {
    /// `state`, `arrow` or `event`.
    pub kind: TextColumn,
    /// Category index.
    pub category: Vec<i32>,
    /// Category name (`category N` for an index the legend lacks).
    pub name: TextColumn,
    /// Earliest time, seconds.
    pub start: Vec<f64>,
    /// Latest time, seconds.
    pub end: Vec<f64>,
    /// `end - start`.
    pub duration: Vec<f64>,
    /// Line ID of the first vertex.
    pub start_line: Vec<i32>,
    /// Line ID of the last vertex.
    pub end_line: Vec<i32>,
    /// The info values as `label=value, ...` (null without any).
    pub info: TextColumn,
    /// The typed info columns, named and typed as the legend calls for.
    pub typed: Vec<(InfoColumn, TypedColumn)>,
}

impl Columns {
    /// The number of rows.
    pub fn len(&self) -> usize {
        self.category.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.category.is_empty()
    }
}

/// A category as the rows use it: its legend entry, `kind` cell, and the
/// typed columns each of its info values fills.
#[derive(Debug, Clone)]
struct CatRow {
    cat: Cat,
    kind: &'static str,
    by_arg: Vec<Vec<usize>>,
}

impl CatRow {
    fn new(cat: Cat, kind: &'static str, columns: &[InfoColumn]) -> CatRow {
        let by_arg = fills(&cat, columns);
        CatRow { cat, kind, by_arg }
    }
}

/// What the rows of one legend are made with: kept by the [`Trace`]
/// between queries with the reused query buffer.
#[derive(Debug)]
pub(super) struct Plan {
    cats: Vec<CatRow>,
    at: FxHashMap<i32, usize>,
    columns: Vec<InfoColumn>,
    /// The tree query's buffer, reused by the next query.
    buf: WindowBuf,
}

impl Plan {
    fn new(legend: &[Category]) -> Plan {
        let columns = info_columns(legend);
        let mut cats = Vec::with_capacity(legend.len());
        let mut at = FxHashMap::default();
        for c in legend {
            let kind = match c.topology {
                0 => "event",
                2 => "arrow",
                _ => "state",
            };
            // A later entry of the same index wins, as a map would have it.
            at.insert(c.index, cats.len());
            cats.push(CatRow::new(Cat::of(c), kind, &columns));
        }
        Plan {
            cats,
            at,
            columns,
            buf: WindowBuf::new(),
        }
    }
}

/// Rows being put into [`Columns`].
struct Builder<'p> {
    cols: Columns,
    cats: &'p mut Vec<CatRow>,
    at: &'p mut FxHashMap<i32, usize>,
    columns: &'p [InfoColumn],
    /// The info text of the row being added (reused).
    text: String,
    /// The last category looked up, and where its row is.
    last: Option<(i32, usize)>,
    /// False once a text column passed 2 GiB.
    fits: bool,
}

impl<'p> Builder<'p> {
    fn new(plan: &'p mut Plan, rows: usize) -> Builder<'p> {
        let names: usize = plan
            .cats
            .iter()
            .map(|c| c.cat.name.len())
            .max()
            .unwrap_or(0);
        let cols = Columns {
            kind: TextColumn::with_capacity(rows, rows * 5),
            category: Vec::with_capacity(rows),
            name: TextColumn::with_capacity(rows, rows * names.min(64)),
            start: Vec::with_capacity(rows),
            end: Vec::with_capacity(rows),
            duration: Vec::with_capacity(rows),
            start_line: Vec::with_capacity(rows),
            end_line: Vec::with_capacity(rows),
            info: TextColumn::with_capacity(rows, 0),
            typed: plan
                .columns
                .iter()
                .map(|c| (c.clone(), TypedColumn::new(c.kind, rows)))
                .collect(),
        };
        Builder {
            cols,
            cats: &mut plan.cats,
            at: &mut plan.at,
            columns: &plan.columns,
            text: String::new(),
            last: None,
            fits: true,
        }
    }

    /// Where the row of `category` is (made for an index the legend lacks).
    #[inline(always)]
    fn row(&mut self, category: i32) -> usize {
        if let Some((c, i)) = self.last {
            if c == category {
                return i;
            }
        }
        let i = match self.at.get(&category) {
            Some(&i) => i,
            None => {
                let i = self.cats.len();
                let kind = "state";
                self.cats
                    .push(CatRow::new(Cat::unknown(category), kind, self.columns));
                self.at.insert(category, i);
                i
            }
        };
        self.last = Some((category, i));
        i
    }

    /// Adds the row of `p` (as src/export/parquet.rs writes it).
    #[inline]
    fn push(&mut self, p: &Piece<'_>) {
        let i = self.row(p.category);
        let row = &self.cats[i];
        let c = &mut self.cols;
        let r = c.category.len();
        let mut fits = c.kind.push(Some(row.kind)) & c.name.push(Some(&row.cat.name));
        c.category.push(p.category);
        c.start.push(p.start);
        c.end.push(p.end);
        c.duration.push(p.end - p.start);
        c.start_line.push(p.first.1);
        c.end_line.push(p.last.1);
        if p.info.is_empty() {
            fits &= c.info.push(None);
            self.fits &= fits;
            return;
        }
        let (text, typed) = (&mut self.text, &mut c.typed);
        text.clear();
        let mut n = 0;
        row.cat.each_arg(p.info, |k, v| {
            if n > 0 {
                text.push_str(", ");
            }
            text.push_str(k);
            text.push('=');
            match &v {
                ArgRef::Int(x) => push_int(text, *x),
                ArgRef::Float(x) => {
                    let _ = write!(text, "{x}");
                }
                ArgRef::Text(x) => text.push_str(x),
            }
            for &col in row.by_arg.get(n).map_or(&[][..], |c| &c[..]) {
                if let Some((_, t)) = typed.get_mut(col) {
                    // Rows before this one that stored no value: nulls.
                    t.pad(r);
                    if t.len() == r {
                        fits &= t.push(&v).1;
                    }
                }
            }
            n += 1;
        });
        fits &= c.info.push((n > 0).then_some(text.as_str()));
        self.fits &= fits;
    }

    /// The columns made, the typed ones padded with nulls to the last row.
    fn finish(mut self) -> (Columns, bool) {
        let rows = self.cols.len();
        self.cols.typed.iter_mut().for_each(|(_, t)| t.pad(rows));
        (self.cols, self.fits)
    }
}

/// Appends the decimal digits of `x` (as `{x}` formats it).
#[inline(always)]
fn push_int(s: &mut String, x: i64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut u = x.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (u % 10) as u8;
        u /= 10;
        if u == 0 {
            break;
        }
    }
    if x < 0 {
        s.push('-');
    }
    s.push_str(std::str::from_utf8(&digits[at..]).unwrap_or_default());
}

/// The pieces of the drawables of `buf` that meet `window`, in the query's
/// order, to `f`; stops (returning `false`) at the first that `f` refuses.
fn each_piece<'b>(buf: &'b WindowBuf, window: &TimeWindow, mut f: impl FnMut(Piece<'b>) -> bool) {
    for d in buf.drawables() {
        if !window.meets(d.earliest(), d.latest()) {
            continue;
        }
        for p in d.primitive().into_iter().chain(d.parts()) {
            if !f(Piece::of(&p)) {
                return;
            }
        }
    }
}

/// The rows of the pieces of `buf` that meet `window`, in [`order`]: as the
/// query gives them when they are in that order already (the usual case:
/// the tree's start order is the same but for ties and composites), else
/// sorted.
fn rows_of(plan: &mut Plan, window: &TimeWindow) -> (Columns, bool) {
    let buf = std::mem::take(&mut plan.buf);
    // A row per drawable (a composite's parts beyond one grow the columns).
    let rows = buf.drawables_len();
    let mut b = Builder::new(plan, rows);
    let mut prev: Option<Piece<'_>> = None;
    let mut in_order = true;
    each_piece(&buf, window, |p| {
        if prev.is_some_and(|q| order(&q, &p) == Ordering::Greater) {
            in_order = false;
            return false;
        }
        b.push(&p);
        prev = Some(p);
        true
    });
    if !in_order {
        let mut pieces = Vec::with_capacity(rows);
        each_piece(&buf, window, |p| {
            pieces.push(p);
            true
        });
        pieces.sort_by(order);
        drop(b);
        b = Builder::new(plan, rows);
        pieces.iter().for_each(|p| b.push(p));
    }
    let done = b.finish();
    plan.buf = buf;
    done
}

impl Trace {
    /// The rows of the window `[from, to)` (a missing bound: the trace's
    /// start, or just after its end; neither: the whole trace) as columns,
    /// the same rows in the same order as [`Trace::pieces`] gives them (and
    /// `mpelog export --to parquet` writes them). A SLOG-2 file or an
    /// annotation is queried through its tree into a buffer kept for the
    /// next call; a format without a tree is read in one pass and put in
    /// order, as [`Trace::pieces`] does.
    ///
    /// # Errors
    ///
    /// [`Error::BadWindow`] for bounds that are not finite or not in order;
    /// the format's error where the input is bad; [`Error::Unsupported`] for
    /// a text column past 2 GiB (Arrow's 32-bit offsets).
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// let mut t = mpelog::Trace::open(&path)?;
    /// let c = t.window_columns(Some(0.0), Some(0.001))?;
    /// let mut n = 0;
    /// t.pieces(&mpelog::export::Options::default().window(Some(0.0), Some(0.001)), &mut |_, p| {
    ///     assert_eq!((c.start[n], c.end[n], c.category[n]), (p.start, p.end, p.category));
    ///     n += 1;
    /// })?;
    /// assert_eq!(n, c.len());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn window_columns(&mut self, from: Option<f64>, to: Option<f64>) -> Result<Columns> {
        super::check_window(from, to)?;
        let given = self.given.clone();
        let mut plan = self.plan.take();
        let answer = match self.own_tree() {
            Some(tree) => {
                let span = span_of(tree.time_box(), from, to);
                let (lo, hi) = if span.clipped {
                    (span.from, span.to)
                } else {
                    (f64::NEG_INFINITY, f64::INFINITY)
                };
                let legend = match tree {
                    Tree::Slog2(r) => r.category_list(),
                    Tree::Annotation(a, _) => &a.categories().categories[..],
                };
                let plan = plan.get_or_insert_with(|| Box::new(Plan::new(legend)));
                let queried = match tree {
                    Tree::Slog2(r) => {
                        r.query(&mut plan.buf, lo, hi)
                            .map_err(|source| Error::Slog2 {
                                path: given.clone(),
                                source,
                            })
                    }
                    Tree::Annotation(a, trace) => a
                        .query(&mut plan.buf, lo, hi)
                        .map_err(|e| annotation_error(&given, trace, e)),
                };
                queried.map(|()| rows_of(plan, &TimeWindow::new(lo, hi)))
            }
            None => {
                let opts = crate::export::Options::default().window(from, to);
                let legend_plan = std::cell::RefCell::new(None::<Box<Plan>>);
                // The pieces, their info bytes apart (they are lent one at a time).
                let pieces = std::cell::RefCell::new(Vec::new());
                let mut infos: Vec<u8> = Vec::new();
                self.scan(
                    &opts,
                    &mut |l| *legend_plan.borrow_mut() = Some(Box::new(Plan::new(l))),
                    &mut |p| {
                        let at = infos.len();
                        infos.extend_from_slice(p.info);
                        let bare = Piece {
                            category: p.category,
                            first: p.first,
                            last: p.last,
                            start: p.start,
                            end: p.end,
                            info: &[],
                        };
                        pieces.borrow_mut().push((bare, at, p.info.len()));
                    },
                )
                .map(|_| {
                    let mut plan = legend_plan
                        .into_inner()
                        .unwrap_or_else(|| Box::new(Plan::new(&[])));
                    let pieces = pieces.into_inner();
                    let mut b = Builder::new(&mut plan, pieces.len());
                    for (p, at, len) in pieces {
                        let info = infos.get(at..at + len).unwrap_or_default();
                        b.push(&Piece { info, ..p });
                    }
                    b.finish()
                })
            }
        };
        self.plan = plan;
        let (cols, fits) = answer?;
        if !fits {
            return Err(Error::Unsupported {
                path: given,
                what: "a window with more than 2 GiB of text in one column".into(),
            });
        }
        Ok(cols)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use slog2_format::types::{Composite, Coord, Drawable, JStr, NodeId, Primitive};

    fn category(index: i32, name: &str, topology: i32) -> Category {
        Category {
            index,
            name: JStr::new(name),
            topology,
            argb: [255, 1, 2, 3],
            modifiable: 1,
            width: 1,
            keys: Vec::new(),
            types: Vec::new(),
            methods: Vec::new(),
            summary: None,
        }
    }

    fn state(category: i32, a: f64, b: f64) -> Primitive {
        Primitive {
            category,
            info: JStr::new(""),
            vertices: vec![
                Coord {
                    time: a,
                    line_id: 1,
                },
                Coord {
                    time: b,
                    line_id: 1,
                },
            ],
        }
    }

    /// A composite whose parts are not in start order comes out as its
    /// parts, each in its place among the other rows (the sorted way).
    #[test]
    fn parts_out_of_order_are_sorted_in() {
        let mut plan = Plan::new(&[category(1, "Outer", 1), category(2, "Inner", 1)]);
        let node = NodeId { depth: 0, xpos: 0 };
        let composite = Drawable::Composite(Composite {
            category: 1,
            info: JStr::new(""),
            primitives: vec![state(1, 1.0, 2.0), state(1, 0.2, 0.5)],
        });
        plan.buf.clear(TimeWindow::new(0.0, 10.0));
        plan.buf.push_drawable(node, &composite).unwrap();
        plan.buf
            .push_drawable(node, &Drawable::Primitive(state(2, 0.5, 0.6)))
            .unwrap();
        plan.buf.sort();
        let (c, fits) = rows_of(&mut plan, &TimeWindow::new(0.0, 10.0));
        assert!(fits);
        assert_eq!(c.start, [0.2, 0.5, 1.0]);
        assert_eq!(c.category, [1, 2, 1]);
        assert_eq!(
            (0..3).map(|i| c.name.get(i).unwrap()).collect::<Vec<_>>(),
            ["Outer", "Inner", "Outer"]
        );
        assert_eq!(c.duration, [0.5 - 0.2, 0.6 - 0.5, 1.0]);
    }

    /// Null rows are unset bits, counted; the text of the others is theirs.
    #[test]
    fn text_columns_keep_nulls_apart() {
        let mut t = TextColumn::with_capacity(0, 0);
        for (i, v) in [Some("a"), None, Some("bc")]
            .into_iter()
            .cycle()
            .take(10)
            .enumerate()
        {
            assert!(t.push(v), "row {i}");
        }
        assert_eq!(t.valid.nulls, 3);
        assert_eq!(t.valid.bits, [0b0110_1101, 0b11]);
        let rows: Vec<_> = (0..10).map(|i| t.get(i)).collect();
        assert_eq!(rows[..4], [Some("a"), None, Some("bc"), Some("a")]);
        assert_eq!(rows[9], Some("a"));
        assert_eq!(t.offsets.len(), 11);
        assert_eq!(t.bytes, b"abcabcabca");
    }
}
