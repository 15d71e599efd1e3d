//! The rows of a table of drawables, built into Arrow record batches: the
//! columns of `mpelog export --to parquet` (spec/export.md section 7), as
//! src/export/parquet.rs writes them, cell for cell.
//!
//! Built for speed (issue 45): the columns are plain vectors handed to Arrow
//! without a copy (no per-row builder calls, no per-row allocation), a
//! category is found through a dense index (not a hash per row), integers in
//! the info text are formatted with `itoa`; the pieces arrive in [`Chunk`]s
//! copied out of the reader, so that another thread builds the batches.

use arrow_array::{ArrayRef, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow_buffer::{BooleanBufferBuilder, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use mpelog::export::info_columns::{fills, info_columns, InfoColumn, InfoType};
use mpelog::export::{ArgRef, Cat};
use mpelog::slices::Piece;
use std::collections::HashMap;
use std::io::Write as _;
use std::sync::Arc;

/// Bytes of text a column of one batch holds at most before the batch is
/// cut short: Arrow's `Utf8` offsets are 32-bit.
const TEXT_LIMIT: usize = 1 << 30;

/// What a row needs of a piece, copied out of the reader.
#[derive(Debug, Clone, Copy)]
struct Rec {
    category: i32,
    start_line: i32,
    end_line: i32,
    start: f64,
    end: f64,
    /// The info bytes' range in [`Chunk::info`].
    info: (u32, u32),
}

/// Pieces copied out of the reader, for the thread that builds the batches.
#[derive(Debug, Default)]
pub(crate) struct Chunk {
    recs: Vec<Rec>,
    info: Vec<u8>,
}

impl Chunk {
    /// An empty chunk with room for `n` pieces.
    pub(crate) fn with_capacity(n: usize) -> Chunk {
        Chunk {
            recs: Vec::with_capacity(n),
            info: Vec::with_capacity(n * 16),
        }
    }

    /// Copies `p` in.
    pub(crate) fn push(&mut self, p: Piece<'_>) {
        let at = self.info.len() as u32;
        self.info.extend_from_slice(p.info);
        self.recs.push(Rec {
            category: p.category,
            start_line: p.first.1,
            end_line: p.last.1,
            start: p.start,
            end: p.end,
            info: (at, p.info.len() as u32),
        });
    }

    /// The number of pieces.
    pub(crate) fn len(&self) -> usize {
        self.recs.len()
    }
}

/// A `Utf8` column being built: offsets, bytes, and validity when nullable.
struct Text {
    offsets: Vec<i32>,
    values: Vec<u8>,
    valid: Option<BooleanBufferBuilder>,
}

impl Text {
    fn new(nullable: bool, rows: usize) -> Text {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        Text {
            offsets,
            values: Vec::new(),
            valid: nullable.then(|| BooleanBufferBuilder::new(rows)),
        }
    }

    /// Ends the cell whose bytes were appended to `values`.
    fn end_cell(&mut self, valid: bool) {
        self.offsets.push(self.values.len() as i32);
        if let Some(v) = &mut self.valid {
            v.append(valid);
        }
    }

    fn push(&mut self, s: &[u8]) {
        self.values.extend_from_slice(s);
        self.end_cell(true);
    }

    fn push_null(&mut self) {
        self.end_cell(false);
    }

    fn finish(&mut self, rows: usize) -> ArrayRef {
        let fresh = Text::new(self.valid.is_some(), rows);
        let t = std::mem::replace(self, fresh);
        let nulls = t.valid.map(|mut v| NullBuffer::new(v.finish()));
        let offsets = OffsetBuffer::new(ScalarBuffer::from(t.offsets));
        // The bytes were all appended from `&str`s: valid UTF-8.
        Arc::new(StringArray::new(offsets, Buffer::from_vec(t.values), nulls))
    }
}

/// A typed info column being built (null where a row has no such value).
enum Typed {
    Int(Vec<i64>, BooleanBufferBuilder),
    Float(Vec<f64>, BooleanBufferBuilder),
    Text(Text),
}

impl Typed {
    fn new(kind: InfoType, rows: usize) -> Typed {
        match kind {
            InfoType::Int => Typed::Int(Vec::with_capacity(rows), BooleanBufferBuilder::new(rows)),
            InfoType::Float => {
                Typed::Float(Vec::with_capacity(rows), BooleanBufferBuilder::new(rows))
            }
            InfoType::Text => Typed::Text(Text::new(true, rows)),
        }
    }

    /// Appends `v` if it has the column's type; returns whether it did.
    fn push(&mut self, v: &ArgRef<'_>) -> bool {
        match (self, v) {
            (Typed::Int(c, n), ArgRef::Int(x)) => {
                c.push(*x);
                n.append(true);
            }
            (Typed::Float(c, n), ArgRef::Float(x)) => {
                c.push(*x);
                n.append(true);
            }
            (Typed::Text(c), ArgRef::Text(x)) => c.push(x.as_bytes()),
            _ => return false,
        }
        true
    }

    fn push_null(&mut self) {
        match self {
            Typed::Int(c, n) => {
                c.push(0);
                n.append(false);
            }
            Typed::Float(c, n) => {
                c.push(0.0);
                n.append(false);
            }
            Typed::Text(c) => c.push_null(),
        }
    }

    fn text_bytes(&self) -> usize {
        match self {
            Typed::Text(t) => t.values.len(),
            _ => 0,
        }
    }

    fn finish(&mut self, rows: usize) -> ArrayRef {
        match self {
            Typed::Int(c, n) => {
                let nulls = NullBuffer::new(n.finish());
                let c = std::mem::replace(c, Vec::with_capacity(rows));
                Arc::new(Int64Array::new(ScalarBuffer::from(c), Some(nulls)))
            }
            Typed::Float(c, n) => {
                let nulls = NullBuffer::new(n.finish());
                let c = std::mem::replace(c, Vec::with_capacity(rows));
                Arc::new(Float64Array::new(ScalarBuffer::from(c), Some(nulls)))
            }
            Typed::Text(t) => t.finish(rows),
        }
    }
}

/// A category as the rows use it: its legend entry, `kind` cell, and the
/// typed columns each of its info values fills.
struct CatRow {
    cat: Cat,
    kind: &'static str,
    by_arg: Vec<Vec<usize>>,
}

/// Rows a column reserves room for at most (more grow as they come).
const CAPACITY: usize = 1 << 16;

/// Category indexes below this are found through a table, not a hash.
const DENSE: i32 = 1 << 16;

/// The columns of `mpelog export --to parquet` (spec/export.md section 7),
/// the typed info columns `columns` included.
pub(crate) fn schema(columns: &[InfoColumn]) -> SchemaRef {
    let mut fields = vec![
        Field::new("kind", DataType::Utf8, false),
        Field::new("category", DataType::Int32, false),
        Field::new("name", DataType::Utf8, false),
        Field::new("start", DataType::Float64, false),
        Field::new("end", DataType::Float64, false),
        Field::new("duration", DataType::Float64, false),
        Field::new("start_line", DataType::Int32, false),
        Field::new("end_line", DataType::Int32, false),
        Field::new("info", DataType::Utf8, true),
    ];
    for c in columns {
        let t = match c.kind {
            InfoType::Int => DataType::Int64,
            InfoType::Float => DataType::Float64,
            InfoType::Text => DataType::Utf8,
        };
        fields.push(Field::new(&c.name, t, true));
    }
    Arc::new(Schema::new(fields))
}

/// Rows being gathered into one record batch.
pub(crate) struct Rows {
    pub(crate) schema: SchemaRef,
    /// Rows of a full batch.
    rows: usize,
    kind: Text,
    category: Vec<i32>,
    name: Text,
    start: Vec<f64>,
    end: Vec<f64>,
    duration: Vec<f64>,
    start_line: Vec<i32>,
    end_line: Vec<i32>,
    info: Text,
    typed: Vec<Typed>,
    /// Which typed columns the row being added filled (reused).
    stored: Vec<bool>,
    pub(crate) len: usize,
    /// The legend's categories, and where each index is among them: a
    /// table for the small indexes, a map for the others.
    cats: Vec<CatRow>,
    dense: Vec<u32>,
    sparse: HashMap<i32, u32>,
    columns: Vec<InfoColumn>,
}

impl Rows {
    /// Rows of the legend `legend`, `rows` to a full batch.
    pub(crate) fn with_rows(legend: &[slog2_format::Category], rows: usize) -> Rows {
        let columns = info_columns(legend);
        let cap = rows.min(CAPACITY);
        let mut r = Rows {
            schema: schema(&columns),
            rows,
            kind: Text::new(false, cap),
            category: Vec::with_capacity(cap),
            name: Text::new(false, cap),
            start: Vec::with_capacity(cap),
            end: Vec::with_capacity(cap),
            duration: Vec::with_capacity(cap),
            start_line: Vec::with_capacity(cap),
            end_line: Vec::with_capacity(cap),
            info: Text::new(true, cap),
            typed: columns.iter().map(|c| Typed::new(c.kind, cap)).collect(),
            stored: vec![false; columns.len()],
            len: 0,
            cats: Vec::new(),
            dense: Vec::new(),
            sparse: HashMap::new(),
            columns,
        };
        for c in legend {
            let kind = match c.topology {
                0 => "event",
                2 => "arrow",
                _ => "state",
            };
            r.add_cat(c.index, Cat::of(c), kind);
        }
        r
    }

    /// Adds (or replaces, as the legend's later entry does) category `index`.
    fn add_cat(&mut self, index: i32, cat: Cat, kind: &'static str) -> usize {
        let by_arg = fills(&cat, &self.columns);
        let slot = self.cats.len();
        self.cats.push(CatRow { cat, kind, by_arg });
        if (0..DENSE).contains(&index) {
            let i = index as usize;
            if self.dense.len() <= i {
                self.dense.resize(i + 1, u32::MAX);
            }
            self.dense[i] = slot as u32;
        } else {
            self.sparse.insert(index, slot as u32);
        }
        slot
    }

    /// The slot of category `index`, one made for an index the legend lacks.
    fn slot(&mut self, index: i32) -> usize {
        let found = if (0..DENSE).contains(&index) {
            self.dense
                .get(index as usize)
                .copied()
                .filter(|&s| s != u32::MAX)
        } else {
            self.sparse.get(&index).copied()
        };
        match found {
            Some(s) => s as usize,
            None => self.add_cat(index, Cat::unknown(index), "state"),
        }
    }

    /// Whether the batch is full: its rows, or as much text as a column takes.
    pub(crate) fn is_full(&self) -> bool {
        self.len >= self.rows
            || self.info.values.len() > TEXT_LIMIT
            || self.name.values.len() > TEXT_LIMIT
            || self.typed.iter().any(|t| t.text_bytes() > TEXT_LIMIT)
    }

    /// Adds the rows of `chunk`, handing each full batch to `full`; stops
    /// (returning false) when `full` does.
    pub(crate) fn push_chunk(
        &mut self,
        chunk: &Chunk,
        full: &mut dyn FnMut(RecordBatch) -> bool,
    ) -> bool {
        for r in &chunk.recs {
            let (at, n) = (r.info.0 as usize, r.info.1 as usize);
            let info = &chunk.info[at..at + n];
            self.push_row(r.category, r.start_line, r.end_line, r.start, r.end, info);
            if self.is_full() && !full(self.batch()) {
                return false;
            }
        }
        true
    }

    /// Adds one row (as src/export/parquet.rs writes it).
    fn push_row(
        &mut self,
        category: i32,
        start_line: i32,
        end_line: i32,
        start: f64,
        end: f64,
        info: &[u8],
    ) {
        let slot = self.slot(category);
        let row = &self.cats[slot];
        self.kind.push(row.kind.as_bytes());
        self.category.push(category);
        self.name.push(row.cat.name.as_bytes());
        self.start.push(start);
        self.end.push(end);
        self.duration.push(end - start);
        self.start_line.push(start_line);
        self.end_line.push(end_line);
        let (text, typed, stored) = (&mut self.info.values, &mut self.typed, &mut self.stored);
        if !stored.is_empty() {
            stored.iter_mut().for_each(|s| *s = false);
        }
        let mut n = 0;
        let mut digits = itoa::Buffer::new();
        row.cat.each_arg(info, |k, v| {
            if n > 0 {
                text.extend_from_slice(b", ");
            }
            text.extend_from_slice(k.as_bytes());
            text.push(b'=');
            match &v {
                ArgRef::Int(x) => text.extend_from_slice(digits.format(*x).as_bytes()),
                // As `{x}` formats it (not ryu's shortest form, which differs).
                ArgRef::Float(x) => {
                    let _ = write!(text, "{x}");
                }
                ArgRef::Text(x) => text.extend_from_slice(x.as_bytes()),
            }
            for &col in row.by_arg.get(n).map_or(&[][..], |c| &c[..]) {
                stored[col] = typed[col].push(&v);
            }
            n += 1;
        });
        self.info.end_cell(n > 0);
        for (c, &s) in self.typed.iter_mut().zip(self.stored.iter()) {
            if !s {
                c.push_null();
            }
        }
        self.len += 1;
    }

    /// The rows gathered as a record batch; the columns start again.
    pub(crate) fn batch(&mut self) -> RecordBatch {
        let rows = self.rows.min(CAPACITY);
        let take_f = |v: &mut Vec<f64>| -> ArrayRef {
            let v = std::mem::replace(v, Vec::with_capacity(rows));
            Arc::new(Float64Array::new(ScalarBuffer::from(v), None))
        };
        let take_i = |v: &mut Vec<i32>| -> ArrayRef {
            let v = std::mem::replace(v, Vec::with_capacity(rows));
            Arc::new(Int32Array::new(ScalarBuffer::from(v), None))
        };
        let mut columns: Vec<ArrayRef> = vec![
            self.kind.finish(rows),
            take_i(&mut self.category),
            self.name.finish(rows),
            take_f(&mut self.start),
            take_f(&mut self.end),
            take_f(&mut self.duration),
            take_i(&mut self.start_line),
            take_i(&mut self.end_line),
            self.info.finish(rows),
        ];
        columns.extend(self.typed.iter_mut().map(|t| t.finish(rows)));
        self.len = 0;
        RecordBatch::try_new(self.schema.clone(), columns).expect("columns of the schema")
    }
}
