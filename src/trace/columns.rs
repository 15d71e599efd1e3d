//! [`Trace::window_columns`]: the rows of a window (the Parquet export's
//! rows, spec/export.md section 7) decoded from the tree straight into flat
//! column buffers in Arrow's memory layout, which a binding hands to Arrow
//! without copying them (the Python package's `t.window()`).
//!
//! The tree query fills a [`WindowBuf`] the [`Trace`] keeps for its next
//! query; the rows go from it into [`Columns`], each column one `Vec`
//! allocated once per query at the size of the answer: nothing is allocated
//! per row. A row whose info bytes are those of its category's last row with
//! info gets that row's info cells copied (the ranks of one phase log the
//! same values); floats are written as `{x}` writes them, from `zmij`'s
//! shortest digits.

use super::error::{Error, Result};
use super::{annotation_error, Trace, Tree};
use crate::export::info_columns::{fills, info_columns, InfoColumn, InfoType};
use crate::export::{ArgRef, Cat};
use crate::slices::{order, span_of, Piece, Tree as _};
use rustc_hash::FxHashMap;
use slog2_format::window::{RawPrimitive, RawWindowBuf, TimeWindow};
use slog2_format::{Category, WindowBuf};
use std::cmp::Ordering;
use std::io::Write as _;

mod select;
pub use select::Select;

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

    /// `rows` rows, all of them holding a value.
    fn all(rows: usize) -> Validity {
        let mut bits = vec![0xff; rows / 8];
        if rows % 8 > 0 {
            bits.push((1u8 << (rows % 8)) - 1);
        }
        Validity {
            bits,
            nulls: 0,
            len: rows,
        }
    }

    /// Whether row `i` holds a value.
    #[inline(always)]
    fn get(&self, i: usize) -> bool {
        self.bits
            .get(i / 8)
            .is_some_and(|b| b & (1 << (i % 8)) != 0)
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

    /// The number of rows.
    #[inline(always)]
    fn rows(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Appends null rows up to `rows` rows.
    #[inline(always)]
    fn pad(&mut self, rows: usize) {
        let n = rows.saturating_sub(self.rows());
        if n > 0 {
            self.push_nulls(n);
        }
    }

    /// Appends `n` null rows.
    fn push_nulls(&mut self, n: usize) {
        let end = self.offsets.last().copied().unwrap_or(0);
        self.offsets.resize(self.offsets.len() + n, end);
        self.valid.push_nulls(n);
    }

    /// Ends the row whose bytes were appended; `false` when the offsets
    /// would pass `i32::MAX`.
    #[inline(always)]
    fn end_row(&mut self) -> bool {
        match i32::try_from(self.bytes.len()) {
            Ok(end) => {
                self.offsets.push(end);
                true
            }
            Err(_) => false,
        }
    }

    /// Appends a row of a column that is never null, leaving its validity
    /// to [`Validity::all`] at the end; `false` when the offsets would pass
    /// `i32::MAX`.
    #[inline(always)]
    fn push_required(&mut self, text: &str) -> bool {
        self.bytes.extend_from_slice(text.as_bytes());
        self.end_row()
    }

    /// [`push_required`](Self::push_required) of `text`, written from its
    /// padded `cell` where it has one.
    #[inline(always)]
    fn push_cell<const N: usize>(&mut self, cell: &Cell<N>, text: &str) -> bool {
        match &cell.0 {
            Some((pad, len)) => {
                let at = self.bytes.len();
                self.bytes.extend_from_slice(pad);
                self.bytes.truncate(at + len);
                self.end_row()
            }
            None => self.push_required(text),
        }
    }

    /// Appends a copy of row `from` (null if that is null or not there).
    #[inline(always)]
    fn repeat(&mut self, from: usize) -> bool {
        let (a, b) = match (self.offsets.get(from), self.offsets.get(from + 1)) {
            (Some(&a), Some(&b)) if self.valid.get(from) && a <= b => (a as usize, b as usize),
            _ => return self.push(None),
        };
        if b > self.bytes.len() {
            return self.push(None);
        }
        self.bytes.extend_from_within(a..b);
        self.valid.push(true);
        self.end_row()
    }

    /// Appends a row; `false` when the offsets would pass `i32::MAX`.
    #[inline(always)]
    fn push(&mut self, text: Option<&str>) -> bool {
        if let Some(t) = text {
            self.bytes.extend_from_slice(t.as_bytes());
        }
        self.valid.push(text.is_some());
        self.end_row()
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

/// A typed info column being built. An integer or float column is
/// allocated zeroed at the answer's size (`vec![0; n]`: `calloc`, whose
/// fresh pages cost nothing until written) and only its values and their
/// validity bits are written, by row, so that a mostly-null column's null
/// rows are never touched one by one; a text column is appended to, its
/// null rows padded in bulk.
#[derive(Debug)]
enum TypedBuild {
    /// Values (0 in null rows, at least as many as rows), the validity bits
    /// (as many bytes as they need), and how many rows hold a value.
    Int(Vec<i64>, Vec<u8>, usize),
    /// As `Int`.
    Float(Vec<f64>, Vec<u8>, usize),
    /// Text.
    Text(TextColumn),
}

/// Sets bit `r` of `bits` (growing it zeroed); `false` if it was set.
#[inline(always)]
fn set_bit(bits: &mut Vec<u8>, r: usize) -> bool {
    let byte = r / 8;
    if byte >= bits.len() {
        bits.resize((byte + 1).max(bits.len() * 2), 0);
    }
    match bits.get_mut(byte) {
        Some(b) if *b & (1 << (r % 8)) == 0 => {
            *b |= 1 << (r % 8);
            true
        }
        _ => false,
    }
}

/// Whether bit `r` of `bits` is set.
#[inline(always)]
fn bit(bits: &[u8], r: usize) -> bool {
    bits.get(r / 8).is_some_and(|b| b & (1 << (r % 8)) != 0)
}

/// Puts `x` at row `r` of `v` (growing it zeroed) unless row `r` holds a
/// value already (the first value of a row wins); counts it in `set`.
#[inline(always)]
fn put<T: Copy + Default>(v: &mut Vec<T>, bits: &mut Vec<u8>, set: &mut usize, r: usize, x: T) {
    if !set_bit(bits, r) {
        return;
    }
    if r >= v.len() {
        v.resize((r + 1).max(v.len() * 2), T::default());
    }
    if let Some(slot) = v.get_mut(r) {
        *slot = x;
    }
    *set += 1;
}

impl TypedBuild {
    fn new(kind: InfoType, rows: usize) -> TypedBuild {
        let bits = rows.div_ceil(8);
        match kind {
            InfoType::Int => TypedBuild::Int(vec![0; rows], vec![0; bits], 0),
            InfoType::Float => TypedBuild::Float(vec![0.0; rows], vec![0; bits], 0),
            InfoType::Text => TypedBuild::Text(TextColumn::with_capacity(rows, 0)),
        }
    }

    /// Puts `v` at row `r` if it has the column's type and the row holds no
    /// value yet; whether text offsets stayed in range.
    #[inline(always)]
    fn push(&mut self, r: usize, v: &ArgRef<'_>) -> bool {
        match (self, v) {
            (TypedBuild::Int(c, bits, set), ArgRef::Int(x)) => put(c, bits, set, r, *x),
            (TypedBuild::Float(c, bits, set), ArgRef::Float(x)) => put(c, bits, set, r, *x),
            (TypedBuild::Text(c), ArgRef::Text(x)) => {
                // Rows before this one that stored no value: nulls.
                c.pad(r);
                if c.rows() == r {
                    return c.push(Some(x));
                }
            }
            _ => {}
        }
        true
    }

    /// Puts a copy of row `from` at row `r` when it holds a value (else
    /// nothing: the row stays null); whether text offsets stayed in range.
    #[inline(always)]
    fn repeat(&mut self, r: usize, from: usize) -> bool {
        match self {
            TypedBuild::Int(c, bits, set) => {
                if let (true, Some(&x)) = (bit(bits, from), c.get(from)) {
                    put(c, bits, set, r, x);
                }
            }
            TypedBuild::Float(c, bits, set) => {
                if let (true, Some(&x)) = (bit(bits, from), c.get(from)) {
                    put(c, bits, set, r, x);
                }
            }
            TypedBuild::Text(c) => {
                if c.valid.get(from) {
                    c.pad(r);
                    if c.rows() == r {
                        return c.repeat(from);
                    }
                }
            }
        }
        true
    }

    /// The column of `rows` rows.
    fn finish(self, rows: usize) -> TypedColumn {
        let validity = |mut bits: Vec<u8>, set: usize| {
            bits.resize(rows.div_ceil(8), 0);
            Validity {
                bits,
                nulls: rows.saturating_sub(set),
                len: rows,
            }
        };
        match self {
            TypedBuild::Int(mut v, bits, set) => {
                v.resize(rows, 0);
                TypedColumn::Int(v, validity(bits, set))
            }
            TypedBuild::Float(mut v, bits, set) => {
                v.resize(rows, 0.0);
                TypedColumn::Float(v, validity(bits, set))
            }
            TypedBuild::Text(mut c) => {
                c.pad(rows);
                TypedColumn::Text(c)
            }
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
    /// Whether any of its info values fills a typed column.
    fills_any: bool,
    /// The `kind` and `name` cells, each written with one copy of fixed size.
    kind_cell: Cell<8>,
    name_cell: Cell<32>,
}

impl CatRow {
    fn new(cat: Cat, kind: &'static str, columns: &[InfoColumn]) -> CatRow {
        let by_arg = fills(&cat, columns);
        CatRow {
            fills_any: by_arg.iter().any(|c| !c.is_empty()),
            kind_cell: Cell::of(kind),
            name_cell: Cell::of(&cat.name),
            cat,
            kind,
            by_arg,
        }
    }
}

/// A short text zero-padded to `N` bytes (`None` past `N`): a row writes its
/// `N` bytes in one copy whose size the compiler knows, then cuts the column
/// back to the text's end, instead of a copy of a length known only then.
#[derive(Debug, Clone, Copy)]
struct Cell<const N: usize>(Option<([u8; N], usize)>);

impl<const N: usize> Cell<N> {
    fn of(text: &str) -> Cell<N> {
        let b = text.as_bytes();
        let mut pad = [0u8; N];
        match pad.get_mut(..b.len()) {
            Some(head) => {
                head.copy_from_slice(b);
                Cell(Some((pad, b.len())))
            }
            None => Cell(None),
        }
    }
}

/// Where each category's row is: by index in a table for the small indexes
/// a legend has (a row per drawable looks its category up), hashed beyond.
#[derive(Debug, Default)]
struct CatIndex {
    /// Row + 1 of category `i` (0: none), for `0 <= i < DENSE`.
    dense: Vec<u32>,
    /// The rows of the other categories.
    sparse: FxHashMap<i32, usize>,
}

/// The categories [`CatIndex`] keeps in its table.
const DENSE: usize = 4096;

impl CatIndex {
    #[inline(always)]
    fn get(&self, category: i32) -> Option<usize> {
        let c = usize::try_from(category).ok().filter(|&c| c < DENSE);
        match c.and_then(|c| self.dense.get(c)) {
            Some(&r) if r > 0 => Some(r as usize - 1),
            _ => self.sparse.get(&category).copied(),
        }
    }

    fn insert(&mut self, category: i32, row: usize) {
        match (usize::try_from(category), u32::try_from(row + 1)) {
            (Ok(c), Ok(r)) if c < DENSE => {
                if self.dense.len() <= c {
                    self.dense.resize(c + 1, 0);
                }
                if let Some(slot) = self.dense.get_mut(c) {
                    *slot = r;
                }
            }
            _ => {
                self.sparse.insert(category, row);
            }
        }
    }
}

/// What the rows of one legend are made with: kept by the [`Trace`]
/// between queries with the reused query buffer.
#[derive(Debug)]
pub(super) struct Plan {
    cats: Vec<CatRow>,
    at: CatIndex,
    columns: Vec<InfoColumn>,
    /// The columns made (`columns` holds the typed ones selected).
    select: Select,
    /// The tree query's buffer, reused by the next query.
    buf: WindowBuf,
    /// The SLOG-2 query's buffer (drawables left in the nodes' bytes),
    /// reused by the next query.
    raw: RawWindowBuf,
}

impl Plan {
    #[cfg(test)]
    fn new(legend: &[Category]) -> Plan {
        Plan::with_select(legend, &Select::default())
    }

    fn with_select(legend: &[Category], select: &Select) -> Plan {
        let columns = select.of(info_columns(legend));
        let mut cats = Vec::with_capacity(legend.len());
        let mut at = CatIndex::default();
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
            select: select.clone(),
            buf: WindowBuf::new(),
            raw: RawWindowBuf::new(),
        }
    }
}

/// No row yet (in [`Builder::memo`]).
const NO_ROW: u32 = u32::MAX;

/// Rows being put into [`Columns`].
struct Builder<'p, 'b> {
    cols: Columns,
    /// The typed info columns (put into `cols` by [`Builder::finish`]).
    typed: Vec<TypedBuild>,
    cats: &'p mut Vec<CatRow>,
    at: &'p mut CatIndex,
    columns: &'p [InfoColumn],
    /// The last category looked up, and where its row is.
    last: Option<(i32, usize)>,
    /// Per category row: the info bytes of its last row with info, and that
    /// row ([`NO_ROW`]: none yet). A row whose bytes are the same gets the
    /// same info cells, copied instead of decoded and formatted again (the
    /// ranks of one phase log the same values).
    memo: Vec<(&'b [u8], u32)>,
    /// False once a text column passed 2 GiB.
    fits: bool,
    /// Whether the `info` text is made (else the column is null throughout,
    /// made at the end).
    info: bool,
    /// Whether a row's info values are decoded at all (the text, or a typed
    /// column, is made).
    args: bool,
}

impl<'p, 'b> Builder<'p, 'b> {
    fn new(plan: &'p mut Plan, rows: usize) -> Builder<'p, 'b> {
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
            typed: Vec::new(),
        };
        let typed = plan
            .columns
            .iter()
            .map(|c| TypedBuild::new(c.kind, rows))
            .collect();
        let memo = vec![(&[][..], NO_ROW); plan.cats.len()];
        Builder {
            cols,
            typed,
            cats: &mut plan.cats,
            at: &mut plan.at,
            columns: &plan.columns,
            last: None,
            memo,
            fits: true,
            info: plan.select.makes_info(),
            args: plan.select.makes_info() || !plan.columns.is_empty(),
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
        let i = match self.at.get(category) {
            Some(i) => i,
            None => {
                let i = self.cats.len();
                let kind = "state";
                self.cats
                    .push(CatRow::new(Cat::unknown(category), kind, self.columns));
                self.at.insert(category, i);
                i
            }
        };
        if self.memo.len() <= i {
            self.memo.resize(i + 1, (&[][..], NO_ROW));
        }
        self.last = Some((category, i));
        i
    }

    /// Adds the row of `p` (as src/export/parquet.rs writes it).
    #[inline]
    fn push(&mut self, p: &Piece<'b>) {
        let i = self.row(p.category);
        let row = &self.cats[i];
        let c = &mut self.cols;
        let r = c.category.len();
        let mut fits = c.kind.push_cell(&row.kind_cell, row.kind)
            & c.name.push_cell(&row.name_cell, &row.cat.name);
        c.category.push(p.category);
        c.start.push(p.start);
        c.end.push(p.end);
        c.duration.push(p.end - p.start);
        c.start_line.push(p.first.1);
        c.end_line.push(p.last.1);
        // No info text, and no typed column this category fills: the values
        // are not decoded.
        if p.info.is_empty() || !self.args || (!self.info && !row.fills_any) {
            if self.info {
                fits &= c.info.push(None);
            }
            self.fits &= fits;
            return;
        }
        let typed = &mut self.typed;
        // The same info as this category's last row with info: its cells again.
        if let Some(&(bytes, from)) = self.memo.get(i) {
            if from != NO_ROW && bytes == p.info {
                let from = from as usize;
                if self.info {
                    fits &= c.info.repeat(from);
                }
                for &col in row.by_arg.iter().flatten() {
                    if let Some(t) = typed.get_mut(col) {
                        fits &= t.repeat(r, from);
                    }
                }
                self.fits &= fits;
                return;
            }
        }
        // The text is written straight into the info column.
        let make_text = self.info;
        let info = &mut c.info;
        let at = info.bytes.len();
        let text = &mut info.bytes;
        let mut n = 0;
        row.cat.each_arg(p.info, |k, v| {
            if make_text {
                if n > 0 {
                    text.extend_from_slice(b", ");
                }
                text.extend_from_slice(k.as_bytes());
                text.push(b'=');
                match &v {
                    ArgRef::Int(x) => push_int(text, *x),
                    ArgRef::Float(x) => push_float(text, *x),
                    ArgRef::Text(x) => text.extend_from_slice(x.as_bytes()),
                }
            }
            for &col in row.by_arg.get(n).map_or(&[][..], |c| &c[..]) {
                if let Some(t) = typed.get_mut(col) {
                    fits &= t.push(r, &v);
                }
            }
            n += 1;
        });
        if make_text && n > 0 {
            info.valid.push(true);
            fits &= info.end_row();
        } else if make_text {
            info.bytes.truncate(at);
            fits &= info.push(None);
        }
        if let (Some(m), Ok(r)) = (self.memo.get_mut(i), u32::try_from(r)) {
            *m = (p.info, r);
        }
        self.fits &= fits;
    }

    /// The columns made, the typed ones null in the rows they got no value.
    fn finish(mut self) -> (Columns, bool) {
        let rows = self.cols.len();
        self.cols.typed = self
            .columns
            .iter()
            .zip(self.typed)
            .map(|(c, t)| (c.clone(), t.finish(rows)))
            .collect();
        self.cols.kind.valid = Validity::all(rows);
        self.cols.name.valid = Validity::all(rows);
        if !self.info {
            self.cols.info.push_nulls(rows);
        }
        (self.cols, self.fits)
    }
}

/// Appends the decimal digits of `x` (as `{x}` formats it).
#[inline(always)]
fn push_int(s: &mut Vec<u8>, x: i64) {
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
        s.push(b'-');
    }
    s.extend_from_slice(digits.get(at..).unwrap_or_default());
}

/// Whether finite `x` lies halfway between two `n`-digit decimals (its
/// exact value has `n + 1` significant digits, the last a 5), where shortest
/// formatters may break the tie apart; or is an integer past 2^53 (taken as
/// one such, as those are rare).
fn may_tie(x: f64, n: usize) -> bool {
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    let (mut m, mut e) = match exp {
        0 => (frac, -1074),
        _ => (frac | (1u64 << 52), exp - 1075),
    };
    if m == 0 {
        return false;
    }
    let tz = m.trailing_zeros();
    m >>= tz;
    e += tz as i32;
    if e >= 0 {
        return x.abs() >= 9_007_199_254_740_992.0;
    }
    // x = m·5^k / 10^k: its significant digits are those of m·5^k, more
    // than 18 past k = 32 (and n is at most 17).
    let k = e.unsigned_abs();
    if k > 32 {
        return false;
    }
    let exact = u128::from(m) * 5u128.pow(k);
    exact.checked_ilog10().map_or(0, |d| d as usize + 1) == n + 1
}

/// Appends `x` as `{x}` formats it (the shortest digits that read back as
/// `x`, never an exponent): the digits from `zmij`, laid out in place.
#[inline]
fn push_float(s: &mut Vec<u8>, x: f64) {
    if !x.is_finite() {
        let _ = write!(s, "{x}");
        return;
    }
    let mut buf = zmij::Buffer::new();
    let t = buf.format_finite(x).as_bytes();
    let (neg, t) = match t.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, t),
    };
    // `t` is `D.DDD`, `D.DDDe±X` or `De±X` (any of them read alike here).
    let (mant, exp) = match t.iter().position(|&c| c == b'e' || c == b'E') {
        Some(e) => {
            let (m, rest) = t.split_at(e);
            let e = std::str::from_utf8(rest.get(1..).unwrap_or_default())
                .ok()
                .and_then(|e| e.trim_start_matches('+').parse::<i32>().ok());
            match e {
                Some(e) => (m, e),
                None => {
                    let _ = write!(s, "{x}");
                    return;
                }
            }
        }
        None => (t, 0),
    };
    // The digits, and how many of them come before the point.
    let mut digits = [0u8; 32];
    let (mut n, mut point) = (0usize, None);
    for &c in mant {
        match c {
            b'.' => point = Some(n),
            b'0'..=b'9' if n < digits.len() => {
                digits[n] = c;
                n += 1;
            }
            _ => {
                let _ = write!(s, "{x}");
                return;
            }
        }
    }
    let mut point = point.unwrap_or(n) as i64 + i64::from(exp);
    let lead = digits[..n].iter().take_while(|&&c| c == b'0').count();
    point -= lead as i64;
    let end = n - digits[lead..n]
        .iter()
        .rev()
        .take_while(|&&c| c == b'0')
        .count();
    let d = digits.get(lead..end).unwrap_or_default();
    if may_tie(x, d.len()) {
        // Two shortest digit strings as near: `{x}` picks its own.
        let _ = write!(s, "{x}");
        return;
    }
    if neg {
        s.push(b'-');
    }
    if d.is_empty() {
        s.push(b'0');
    } else if point <= 0 {
        s.extend_from_slice(b"0.");
        (0..-point).for_each(|_| s.push(b'0'));
        s.extend_from_slice(d);
    } else if point as usize >= d.len() {
        s.extend_from_slice(d);
        (0..point as usize - d.len()).for_each(|_| s.push(b'0'));
    } else {
        let (a, b) = d.split_at(point as usize);
        s.extend_from_slice(a);
        s.push(b'.');
        s.extend_from_slice(b);
    }
}

/// The pieces of the drawables of `buf` that meet `window`, in the query's
/// order, to `f`; stops (returning `false`) at the first that `f` refuses.
fn each_piece<'b>(buf: &'b WindowBuf, window: &TimeWindow, mut f: impl FnMut(Piece<'b>) -> bool) {
    for d in buf.drawables() {
        if !window.meets(d.earliest(), d.latest()) {
            continue;
        }
        // A primitive (the usual case) apart from a composite's parts: no
        // chained iterator per drawable.
        match d.primitive() {
            Some(p) => {
                if !f(Piece::of(&p)) {
                    return;
                }
            }
            None => {
                for p in d.parts() {
                    if !f(Piece::of(&p)) {
                        return;
                    }
                }
            }
        }
    }
}

/// The rows of the pieces of `buf` that meet `window`, in [`order`] (see
/// [`rows_in_order`]).
fn rows_of(plan: &mut Plan, window: &TimeWindow) -> (Columns, bool) {
    let buf = std::mem::take(&mut plan.buf);
    // A row per drawable (a composite's parts beyond one grow the columns).
    let rows = buf.drawables_len();
    let done = rows_in_order(plan, rows, &Source::Buf(&buf, window));
    plan.buf = buf;
    done
}

/// The piece of a primitive read from a node's bytes, as [`Piece::of`]
/// makes it of the same primitive decoded.
#[inline(always)]
fn raw_piece<'b>(p: &RawPrimitive<'b>) -> Piece<'b> {
    let v = p.vertices().map(|c| (c.time, c.line_id));
    Piece::of_vertices(p.category(), p.info(), v)
}

/// The pieces of the drawables of a raw answer, in the query's order, to
/// `f`; stops at the first that `f` refuses. (The query kept only the
/// drawables that meet its window, the one [`each_piece`] checks again.)
fn each_raw_piece<'b>(buf: &'b RawWindowBuf, mut f: impl FnMut(Piece<'b>) -> bool) {
    for d in buf.drawables() {
        match d.primitive() {
            Some(p) => {
                if !f(raw_piece(&p)) {
                    return;
                }
            }
            None => {
                for p in d.parts() {
                    if !f(raw_piece(&p)) {
                        return;
                    }
                }
            }
        }
    }
}

/// The rows of the pieces of the raw answer in `plan`, in [`order`] (see
/// [`rows_in_order`]).
fn rows_of_raw(plan: &mut Plan) -> (Columns, bool) {
    let buf = std::mem::take(&mut plan.raw);
    let rows = buf.len();
    let done = rows_in_order(plan, rows, &Source::Raw(&buf));
    plan.raw = buf;
    done
}

/// Where [`rows_in_order`] reads the pieces that meet a window: a query's
/// buffer, or a raw answer.
enum Source<'b, 'w> {
    Buf(&'b WindowBuf, &'w TimeWindow),
    Raw(&'b RawWindowBuf),
}

impl<'b> Source<'b, '_> {
    /// The pieces, in the query's order, to `f` (see [`each_piece`]).
    #[inline(always)]
    fn each(&self, f: impl FnMut(Piece<'b>) -> bool) {
        match *self {
            Source::Buf(buf, w) => each_piece(buf, w, f),
            Source::Raw(buf) => each_raw_piece(buf, f),
        }
    }
}

/// The rows of the pieces of `each` (about `rows` of them), in [`order`]:
/// as `each` gives them when they are in that order already (the usual
/// case: the tree's start order is the same but for ties and composites),
/// else sorted, stably.
fn rows_in_order<'b>(plan: &mut Plan, rows: usize, each: &Source<'b, '_>) -> (Columns, bool) {
    let mut b = Builder::new(plan, rows);
    let mut prev: Option<Piece<'_>> = None;
    let mut in_order = true;
    each.each(|p| {
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
        each.each(|p| {
            pieces.push(p);
            true
        });
        pieces.sort_by(order);
        drop(b);
        b = Builder::new(plan, rows);
        pieces.iter().for_each(|p| b.push(p));
    }
    b.finish()
}

/// Builds [`Columns`] batch after batch from pieces of one legend (the
/// rows [`Trace::window_columns`] makes, for a stream of pieces: the Python
/// package's `t.batches()`). Every batch has the same columns, the typed
/// ones those the legend calls for.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("demo.clog2");
/// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
/// let mut t = mpelog::Trace::open(&path)?;
/// let whole = t.window_columns(None, None)?;
/// let (mut legend, mut infos, mut pieces) = (Vec::new(), Vec::new(), Vec::new());
/// t.scan(&Default::default(), &mut |l| legend = l.to_vec(), &mut |p| {
///     infos.push(p.info.to_vec());
///     pieces.push(mpelog::slices::Piece { info: &[], ..p });
/// })?;
/// let pieces: Vec<_> = pieces.iter().zip(&infos).map(|(p, i)| mpelog::slices::Piece { info: i, ..*p }).collect();
/// let mut b = mpelog::trace::ColumnsBuilder::new(&legend);
/// let (a, rest) = pieces.split_at(pieces.len() / 2);
/// let (first, second) = (b.columns(a).expect("fits"), b.columns(rest).expect("fits"));
/// assert_eq!(first.len() + second.len(), whole.len());
/// assert_eq!(second.info.get(0), whole.info.get(a.len()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct ColumnsBuilder {
    plan: Plan,
}

impl ColumnsBuilder {
    /// A builder for the pieces of `legend`.
    pub fn new(legend: &[Category]) -> ColumnsBuilder {
        ColumnsBuilder::with_select(legend, &Select::default())
    }

    /// A builder for the pieces of `legend` that makes the info columns
    /// `select` asks for ([`ColumnsBuilder::info_columns`]: the typed ones).
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("demo.clog2");
    /// # std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// # let mut t = mpelog::Trace::open(&path)?;
    /// use mpelog::trace::{ColumnsBuilder, Select};
    /// let legend = t.legend()?;
    /// let b = ColumnsBuilder::with_select(&legend, &Select::default().typed(["info_msg_size"]));
    /// assert_eq!(b.info_columns().len(), 1);
    /// assert!(ColumnsBuilder::with_select(&legend, &Select::default().typed::<&str>([])).info_columns().is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_select(legend: &[Category], select: &Select) -> ColumnsBuilder {
        ColumnsBuilder {
            plan: Plan::with_select(legend, select),
        }
    }

    /// The typed info columns every batch has, in order.
    ///
    /// ```
    /// let b = mpelog::trace::ColumnsBuilder::new(&[]);
    /// assert!(b.info_columns().is_empty());
    /// ```
    pub fn info_columns(&self) -> &[InfoColumn] {
        &self.plan.columns
    }

    /// The columns of `pieces`, in their order; `None` when a text column
    /// would pass 2 GiB (Arrow's 32-bit offsets: build fewer pieces at once).
    pub fn columns(&mut self, pieces: &[Piece<'_>]) -> Option<Columns> {
        self.columns_of(pieces.len(), pieces.iter().copied())
    }

    /// As [`ColumnsBuilder::columns`], of the pieces `pieces` gives (`rows`
    /// of them, or about: the columns are allocated for that many), taken
    /// where they lie, not gathered first.
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("demo.clog2");
    /// # std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// # let mut t = mpelog::Trace::open(&path)?;
    /// let (mut legend, mut infos, mut pieces) = (Vec::new(), Vec::new(), Vec::new());
    /// t.scan(&Default::default(), &mut |l| legend = l.to_vec(), &mut |p| {
    ///     infos.push(p.info.to_vec());
    ///     pieces.push(mpelog::slices::Piece { info: &[], ..p });
    /// })?;
    /// let pieces: Vec<_> = pieces.iter().zip(&infos).map(|(p, i)| mpelog::slices::Piece { info: i, ..*p }).collect();
    /// let mut b = mpelog::trace::ColumnsBuilder::new(&legend);
    /// let gathered = b.columns(&pieces).expect("fits");
    /// assert_eq!(b.columns_of(pieces.len(), pieces.iter().copied()), Some(gathered));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn columns_of<'b>(
        &mut self,
        rows: usize,
        pieces: impl IntoIterator<Item = Piece<'b>>,
    ) -> Option<Columns> {
        let mut b = Builder::new(&mut self.plan, rows);
        for p in pieces {
            b.push(&p);
        }
        let (cols, fits) = b.finish();
        fits.then_some(cols)
    }
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
        self.window_columns_with(from, to, &Select::default())
    }

    /// [`window_columns`](Self::window_columns) with the info columns
    /// `select` asks for: `info` null in every row without it, and the typed
    /// columns it names only. The rows are the same; leaving the info
    /// columns out leaves their values undecoded.
    ///
    /// # Errors
    ///
    /// As [`window_columns`](Self::window_columns).
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// let mut t = mpelog::Trace::open(&path)?;
    /// let all = t.window_columns(None, None)?;
    /// let bare = t.window_columns_with(None, None, &mpelog::trace::Select::default().info(false).typed::<&str>([]))?;
    /// assert_eq!((bare.start, bare.category), (all.start, all.category));
    /// assert!(bare.typed.is_empty() && bare.info.get(0).is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn window_columns_with(
        &mut self,
        from: Option<f64>,
        to: Option<f64>,
        select: &Select,
    ) -> Result<Columns> {
        let r = self.window_columns_unstopped(from, to, select);
        self.stopped(r)
    }

    fn window_columns_unstopped(
        &mut self,
        from: Option<f64>,
        to: Option<f64>,
        select: &Select,
    ) -> Result<Columns> {
        super::check_window(from, to)?;
        let given = self.given.clone();
        let mut plan = self.plan.take();
        // A plan made for another selection: made again, its buffers kept.
        if let Some(p) = plan.as_mut().filter(|p| p.select != *select) {
            let legend = match self.own_tree() {
                Some(Tree::Slog2(r)) => Some(r.category_list().to_vec()),
                Some(Tree::Annotation(a, _)) => Some(a.categories().categories.clone()),
                None => None,
            };
            match legend {
                Some(l) => {
                    let mut fresh = Plan::with_select(&l, select);
                    fresh.buf = std::mem::take(&mut p.buf);
                    fresh.raw = std::mem::take(&mut p.raw);
                    **p = fresh;
                }
                None => plan = None,
            }
        }
        let answer = match self.own_tree() {
            Some(tree) => {
                // The trace's box only where a bound is missing (finding the
                // root is a pass over the TreeDir).
                let time_box = match (from, to) {
                    (Some(_), Some(_)) => None,
                    _ => tree.time_box(),
                };
                let span = span_of(time_box, from, to);
                let (lo, hi) = if span.clipped {
                    (span.from, span.to)
                } else {
                    (f64::NEG_INFINITY, f64::INFINITY)
                };
                let legend = match tree {
                    Tree::Slog2(r) => r.category_list(),
                    Tree::Annotation(a, _) => &a.categories().categories[..],
                };
                let plan = plan.get_or_insert_with(|| Box::new(Plan::with_select(legend, select)));
                let window = TimeWindow::new(lo, hi);
                match tree {
                    // Rows straight from the nodes' bytes.
                    Tree::Slog2(r) => r
                        .window_raw_into(&mut plan.raw, lo, hi)
                        .map_err(|source| Error::Slog2 {
                            path: given.clone(),
                            source,
                        })
                        .map(|()| rows_of_raw(plan)),
                    Tree::Annotation(a, trace) => a
                        .query(&mut plan.buf, lo, hi)
                        .map_err(|e| annotation_error(&given, trace, e))
                        .map(|()| rows_of(plan, &window)),
                }
            }
            None => {
                let opts = crate::export::Options::default().window(from, to);
                let legend_plan = std::cell::RefCell::new(None::<Box<Plan>>);
                // The pieces, their info bytes apart (they are lent one at a time).
                let pieces = std::cell::RefCell::new(Vec::new());
                let mut infos: Vec<u8> = Vec::new();
                self.scan(
                    &opts,
                    &mut |l| {
                        *legend_plan.borrow_mut() = Some(Box::new(Plan::with_select(l, select)))
                    },
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
                        .unwrap_or_else(|| Box::new(Plan::with_select(&[], select)));
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

    /// The info text's floats are `{x}` to the byte: edge values, and many
    /// bit patterns of every exponent.
    #[test]
    fn floats_are_formatted_as_display() {
        let mut values = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.1,
            0.1 + 0.2,
            1.8426136131753845e-5,
            123456789.0,
            1e21,
            1e22,
            1.5e-7,
            5e-324,
            f64::MIN_POSITIVE,
            f64::MAX,
            f64::MIN,
            f64::EPSILON,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            17.15703176825012,
            -0.77042085,
        ];
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20_000 {
            // xorshift64*: bit patterns over every exponent and sign.
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            let bits = x.wrapping_mul(0x2545_f491_4f6c_dd1d);
            values.push(f64::from_bits(bits));
            // And values of a trace's size: short decimals, integers.
            values.push((bits % 1_000_000) as f64 / 1000.0);
            values.push((bits % 100_000) as f64);
            values.push(f64::from(f32::from_bits(bits as u32)));
        }
        let mut s = Vec::new();
        for v in values {
            s.clear();
            push_float(&mut s, v);
            assert_eq!(
                std::str::from_utf8(&s),
                Ok(format!("{v}").as_str()),
                "{:#x}",
                v.to_bits()
            );
        }
    }

    /// Rows whose info bytes repeat an earlier row's of the same category
    /// get that row's cells (text and typed), others their own, and the
    /// typed cells a category does not fill stay null.
    #[test]
    fn repeated_info_gets_the_same_cells() {
        let mut with_info = category(1, "Phase", 1);
        with_info.keys = vec![JStr::new("iter="), JStr::new(" val="), JStr::new("")];
        with_info.types = b"dE".to_vec();
        let mut plan = Plan::new(&[with_info, category(2, "Bare", 1)]);
        let node = NodeId { depth: 0, xpos: 0 };
        let info = |iter: i32, val: f64| {
            let mut b = iter.to_be_bytes().to_vec();
            b.extend_from_slice(&val.to_be_bytes());
            JStr {
                len: b.len() as i16,
                bytes: b,
            }
        };
        let rows = [
            (1, 0.0, info(7, 0.5)),
            (1, 1.0, info(7, 0.5)),
            (2, 2.0, JStr::new("")),
            (1, 3.0, info(7, 0.5)),
            (1, 4.0, info(8, 1.5e-7)),
            (1, 5.0, info(7, 0.5)),
        ];
        plan.buf.clear(TimeWindow::new(0.0, 10.0));
        for (cat, at, info) in &rows {
            let p = Primitive {
                info: info.clone(),
                ..state(*cat, *at, at + 0.5)
            };
            plan.buf
                .push_drawable(node, &Drawable::Primitive(p))
                .unwrap();
        }
        plan.buf.sort();
        let (c, fits) = rows_of(&mut plan, &TimeWindow::new(0.0, 10.0));
        assert!(fits);
        let info: Vec<_> = (0..6).map(|i| c.info.get(i)).collect();
        let a = Some("iter=7, val=0.5");
        assert_eq!(
            info,
            [a, a, None, a, Some("iter=8, val=0.00000015"), a],
            "{:?}",
            c.info
        );
        let typed: Vec<_> = c
            .typed
            .iter()
            .map(|(col, t)| (col.name.clone(), t))
            .collect();
        assert_eq!(typed.len(), 2, "{typed:?}");
        let ints = |t: &TypedColumn| match t {
            TypedColumn::Int(v, ok) => (0..6).map(|i| ok.get(i).then_some(v[i])).collect(),
            other => panic!("{other:?}"),
        };
        let floats = |t: &TypedColumn| match t {
            TypedColumn::Float(v, ok) => (0..6).map(|i| ok.get(i).then_some(v[i])).collect(),
            other => panic!("{other:?}"),
        };
        let iters: Vec<Option<i64>> = ints(typed[0].1);
        assert_eq!(iters, [Some(7), Some(7), None, Some(7), Some(8), Some(7)]);
        let vals: Vec<Option<f64>> = floats(typed[1].1);
        assert_eq!(
            vals,
            [
                Some(0.5),
                Some(0.5),
                None,
                Some(0.5),
                Some(1.5e-7),
                Some(0.5)
            ]
        );
        // The never-null text columns: every bit set, none counted null.
        assert_eq!(
            (&c.kind.valid.bits[..], c.kind.valid.nulls),
            (&[0b11_1111][..], 0)
        );
        assert_eq!(Validity::all(17).bits, [0xff, 0xff, 1]);
        assert_eq!(c.name.get(2), Some("Bare"));
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
