//! Parquet: one row per drawable, for DuckDB, Polars, pandas and Spark.
//!
//! Columns: `kind` (`state`, `arrow`, `event`), `category` (legend index),
//! `name`, `start` and `end` (seconds, as in the trace), `duration`,
//! `start_line` and `end_line` (line IDs), `info` (the info values as text,
//! labelled as Jumpshot shows them) and one typed column per info label of the
//! legend (`msg_tag`, `msg_size`, ...: INT64, DOUBLE or UTF8; null where a
//! drawable's category has no such value). Rows are sorted by start time, and a
//! row group closes after 131,072 rows or 1/256 of the exported span (a whole
//! trace's: from its first start to its container's end), so every
//! row group covers a bounded time range: its column statistics (min/max of
//! `start`, `end`) let a query with a time filter skip the others.

use super::{ArgRef, Cat, Ordered, Piece};
use parquet::basic::{ConvertedType, Repetition, Type as Physical};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int32Type, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use slog2_format::types::{topology, Category};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write;
use std::sync::Arc;

/// Rows per row group at most.
const GROUP_ROWS: usize = 131_072;
/// Row groups per exported span at least (time bound).
const GROUPS_PER_SPAN: f64 = 256.0;

/// Why a Parquet export failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error<E: std::error::Error + 'static> {
    /// Reading the input failed.
    #[error(transparent)]
    Read(E),
    /// The Parquet writer failed (writing the output, mostly).
    #[error("writing Parquet: {0}")]
    Write(#[from] parquet::errors::ParquetError),
}

/// The type of a typed info column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Int,
    Float,
    Text,
}

/// A column's values for the row group being built.
#[derive(Debug)]
enum Values {
    Int(Vec<i64>),
    Float(Vec<f64>),
    Text(Vec<ByteArray>),
}

#[derive(Debug)]
struct Column {
    name: String,
    values: Values,
    defined: Vec<i16>,
}

/// The typed info columns the legend calls for: a label's column per type.
fn info_columns(categories: &[Category]) -> Vec<(String, Kind)> {
    let mut out: Vec<(String, Kind)> = Vec::new();
    for c in categories {
        let cat = Cat::of(c);
        for (i, &t) in c.types.iter().enumerate() {
            let kind = match t {
                b'h' | b'd' | b'l' | b'x' | b'X' => Kind::Int,
                b'e' | b'E' => Kind::Float,
                b's' => Kind::Text,
                _ => continue,
            };
            let label = label(cat.keys.get(i).map(String::as_str), i);
            let name = if out.iter().any(|(n, k)| *n == label && *k != kind) {
                format!("{label}_{}", ["int", "float", "text"][kind as usize])
            } else {
                label
            };
            if !out.iter().any(|(n, _)| *n == name) {
                out.push((name, kind));
            }
        }
    }
    out
}

/// A column name from an info label (`", msg_size="` → `msg_size`).
fn label(key: Option<&str>, i: usize) -> String {
    let base: String = key
        .unwrap_or("")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    let base = base.trim_matches('_').to_string();
    if base.is_empty() {
        format!("arg{i}")
    } else {
        format!("info_{base}")
    }
}

/// A category as the writer uses it: the legend entry, its `kind` and `name`
/// cells, and for each info value the typed columns it fills.
struct CatPlan {
    cat: Cat,
    kind: ByteArray,
    name: ByteArray,
    /// Per info value: the typed columns that take it.
    by_arg: Vec<Vec<usize>>,
}

impl CatPlan {
    /// Matches the category's info labels with the typed columns: a column
    /// takes the last value whose label is its name, else the last whose label
    /// is its name without the `_int`/`_float`/`_text` suffix.
    fn new(cat: Cat, topology: i32, typed: &[Column]) -> CatPlan {
        let labels: Vec<String> = (0..cat.types.len())
            .map(|i| label(cat.keys.get(i).map(String::as_str), i))
            .collect();
        let last = |name: &str| labels.iter().rposition(|l| l == name);
        let mut by_arg = vec![Vec::new(); labels.len()];
        for (col, c) in typed.iter().enumerate() {
            let base = c
                .name
                .trim_end_matches("_int")
                .trim_end_matches("_float")
                .trim_end_matches("_text");
            if let Some(i) = last(&c.name).or_else(|| last(base)) {
                by_arg[i].push(col);
            }
        }
        let kind = match topology {
            topology::EVENT => "event",
            topology::ARROW => "arrow",
            _ => "state",
        };
        CatPlan {
            kind: kind.into(),
            name: cat.name.as_str().into(),
            cat,
            by_arg,
        }
    }
}

struct Writer<W: Write + Send> {
    file: SerializedFileWriter<W>,
    cats: HashMap<i32, CatPlan>,
    kind: Vec<ByteArray>,
    category: Vec<i32>,
    name: Vec<ByteArray>,
    start: Vec<f64>,
    end: Vec<f64>,
    duration: Vec<f64>,
    start_line: Vec<i32>,
    end_line: Vec<i32>,
    info: Vec<ByteArray>,
    info_defined: Vec<i16>,
    typed: Vec<Column>,
    group_start: f64,
    group_span: f64,
    /// For a whole trace, its end until the first row sets `group_span`.
    whole_to: Option<f64>,
    rows: u64,
    /// Which typed columns the row being added filled (reused).
    stored: Vec<bool>,
}

impl<W: Write + Send> Writer<W> {
    fn push(&mut self, p: Piece<'_>) -> parquet::errors::Result<()> {
        let start = p.start;
        if let Some(end) = self.whole_to.take() {
            // A whole trace: from its first start (not its container's box).
            self.group_span = ((end - start) / GROUPS_PER_SPAN).max(0.0);
        }
        if !self.start.is_empty()
            && (self.start.len() >= GROUP_ROWS || start - self.group_start > self.group_span)
        {
            self.flush()?;
        }
        if self.start.is_empty() {
            self.group_start = start;
        }
        let typed = &mut self.typed;
        let plan = self
            .cats
            .entry(p.category)
            .or_insert_with(|| CatPlan::new(Cat::unknown(p.category), topology::STATE, typed));
        self.kind.push(plan.kind.clone());
        self.category.push(p.category);
        self.name.push(plan.name.clone());
        self.start.push(start);
        self.end.push(p.end);
        self.duration.push(p.end - start);
        self.start_line.push(p.first.1);
        self.end_line.push(p.last.1);
        // The info text and the typed columns, in one decoding.
        let stored = &mut self.stored;
        stored.clear();
        stored.resize(typed.len(), false);
        let mut text = String::new();
        let mut i = 0usize;
        plan.cat.each_arg(p.info, |k, v| {
            if !text.is_empty() {
                text.push_str(", ");
            }
            let _ = match &v {
                ArgRef::Int(x) => write!(text, "{k}={x}"),
                ArgRef::Float(x) => write!(text, "{k}={x}"),
                ArgRef::Text(x) => write!(text, "{k}={x}"),
            };
            for &col in plan.by_arg.get(i).map_or(&[][..], |c| &c[..]) {
                let c = &mut typed[col];
                stored[col] = match (&v, &mut c.values) {
                    (ArgRef::Int(x), Values::Int(out)) => {
                        out.push(*x);
                        true
                    }
                    (ArgRef::Float(x), Values::Float(out)) => {
                        out.push(*x);
                        true
                    }
                    (ArgRef::Text(x), Values::Text(out)) => {
                        out.push(x.as_ref().into());
                        true
                    }
                    _ => false,
                };
            }
            i += 1;
        });
        if i == 0 {
            self.info_defined.push(0);
        } else {
            self.info.push(text.into_bytes().into());
            self.info_defined.push(1);
        }
        for (c, &s) in typed.iter_mut().zip(stored.iter()) {
            c.defined.push(i16::from(s));
        }
        self.rows += 1;
        Ok(())
    }

    /// Writes the rows held as one row group.
    fn flush(&mut self) -> parquet::errors::Result<()> {
        if self.start.is_empty() {
            return Ok(());
        }
        let mut g = self.file.next_row_group()?;
        macro_rules! column {
            ($t:ty, $values:expr, $def:expr) => {{
                let mut c = g.next_column()?.expect("a column of the schema");
                c.typed::<$t>().write_batch($values, $def, None)?;
                c.close()?;
            }};
        }
        column!(ByteArrayType, &self.kind, None);
        column!(Int32Type, &self.category, None);
        column!(ByteArrayType, &self.name, None);
        column!(DoubleType, &self.start, None);
        column!(DoubleType, &self.end, None);
        column!(DoubleType, &self.duration, None);
        column!(Int32Type, &self.start_line, None);
        column!(Int32Type, &self.end_line, None);
        column!(ByteArrayType, &self.info, Some(&self.info_defined[..]));
        for c in &self.typed {
            match &c.values {
                Values::Int(v) => column!(Int64Type, v, Some(&c.defined[..])),
                Values::Float(v) => column!(DoubleType, v, Some(&c.defined[..])),
                Values::Text(v) => column!(ByteArrayType, v, Some(&c.defined[..])),
            }
        }
        g.close()?;
        self.kind.clear();
        self.category.clear();
        self.name.clear();
        self.start.clear();
        self.end.clear();
        self.duration.clear();
        self.start_line.clear();
        self.end_line.clear();
        self.info.clear();
        self.info_defined.clear();
        for c in &mut self.typed {
            c.defined.clear();
            match &mut c.values {
                Values::Int(v) => v.clear(),
                Values::Float(v) => v.clear(),
                Values::Text(v) => v.clear(),
            }
        }
        Ok(())
    }
}

fn field(name: &str, physical: Physical, repetition: Repetition, utf8: bool) -> Arc<Type> {
    let mut b = Type::primitive_type_builder(name, physical).with_repetition(repetition);
    if utf8 {
        b = b.with_converted_type(ConvertedType::UTF8);
    }
    Arc::new(b.build().expect("a valid column"))
}

/// Writes the drawables of `tree` that meet the window of `opts` to `out` as
/// one Parquet file; returns the number of rows and `out`.
pub fn export<T: Ordered, W: Write + Send>(
    tree: &mut T,
    categories: &[Category],
    opts: &super::Options,
    out: W,
) -> Result<(u64, W), Error<T::Error>>
where
    T::Error: std::error::Error + 'static,
{
    let mut out = Some(out);
    let mut back = None;
    let rows = write_parts(
        tree,
        categories,
        opts,
        u64::MAX,
        |_| Ok(out.take().expect("one part")),
        |_, w| {
            back = Some(w);
            Ok(())
        },
    )?;
    Ok((rows, back.expect("the part was closed")))
}

/// Writes the drawables of `tree` that meet the window of `opts` as a Parquet
/// dataset: parts of `rows_per_part` rows each (the last one fewer; a part's
/// last row group is cut short), in start-time order, so that part
/// `i`'s last start is at most part `i + 1`'s first. `open(i)` gives the writer
/// of part `i` (0, 1, ...); `close(i, w)` gets it back when the part is
/// complete. Returns the number of rows; the number of parts is the number of
/// `open` calls (at least 1: an empty window gives one empty part).
pub fn write_parts<T: Ordered, W: Write + Send>(
    tree: &mut T,
    categories: &[Category],
    opts: &super::Options,
    rows_per_part: u64,
    mut open: impl FnMut(usize) -> std::io::Result<W>,
    mut close: impl FnMut(usize, W) -> std::io::Result<()>,
) -> Result<u64, Error<T::Error>>
where
    T::Error: std::error::Error + 'static,
{
    const REQUIRED: Repetition = Repetition::REQUIRED;
    const OPTIONAL: Repetition = Repetition::OPTIONAL;
    let typed = info_columns(categories);
    let mut fields = vec![
        field("kind", Physical::BYTE_ARRAY, REQUIRED, true),
        field("category", Physical::INT32, REQUIRED, false),
        field("name", Physical::BYTE_ARRAY, REQUIRED, true),
        field("start", Physical::DOUBLE, REQUIRED, false),
        field("end", Physical::DOUBLE, REQUIRED, false),
        field("duration", Physical::DOUBLE, REQUIRED, false),
        field("start_line", Physical::INT32, REQUIRED, false),
        field("end_line", Physical::INT32, REQUIRED, false),
        field("info", Physical::BYTE_ARRAY, OPTIONAL, true),
    ];
    for (name, kind) in &typed {
        fields.push(match kind {
            Kind::Int => field(name, Physical::INT64, OPTIONAL, false),
            Kind::Float => field(name, Physical::DOUBLE, OPTIONAL, false),
            Kind::Text => field(name, Physical::BYTE_ARRAY, OPTIONAL, true),
        });
    }
    let schema = Arc::new(
        Type::group_type_builder("drawable")
            .with_fields(fields)
            .build()
            .expect("a valid schema"),
    );
    let props = Arc::new(
        WriterProperties::builder()
            .set_created_by("mpelog".into())
            .build(),
    );
    let span = tree.span(opts.from, opts.to);
    let io = |e: std::io::Error| Error::Write(parquet::errors::ParquetError::External(Box::new(e)));
    let first = open(0).map_err(io)?;
    let mut w = Writer {
        file: SerializedFileWriter::new(first, schema.clone(), props.clone())?,
        cats: HashMap::new(),
        kind: Vec::new(),
        category: Vec::new(),
        name: Vec::new(),
        start: Vec::new(),
        end: Vec::new(),
        duration: Vec::new(),
        start_line: Vec::new(),
        end_line: Vec::new(),
        info: Vec::new(),
        info_defined: Vec::new(),
        typed: typed
            .into_iter()
            .map(|(name, kind)| Column {
                name,
                values: match kind {
                    Kind::Int => Values::Int(Vec::new()),
                    Kind::Float => Values::Float(Vec::new()),
                    Kind::Text => Values::Text(Vec::new()),
                },
                defined: Vec::new(),
            })
            .collect(),
        group_start: 0.0,
        group_span: ((span.to - span.from) / GROUPS_PER_SPAN).max(0.0),
        whole_to: (!span.clipped).then_some(span.to),
        rows: 0,
        stored: Vec::new(),
    };
    w.cats = categories
        .iter()
        .map(|c| (c.index, CatPlan::new(Cat::of(c), c.topology, &w.typed)))
        .collect();
    let mut part = 0usize;
    let mut part_rows = 0u64;
    let mut written: Result<(), Error<T::Error>> = Ok(());
    tree.pieces(span, &mut |p| {
        if written.is_err() {
            return;
        }
        if part_rows >= rows_per_part {
            // The part is full: its rows go out as its last row group, and the
            // next part starts with this row.
            written = (|| {
                w.flush()?;
                let next = open(part + 1).map_err(io)?;
                let fresh = SerializedFileWriter::new(next, schema.clone(), props.clone())?;
                let done = std::mem::replace(&mut w.file, fresh);
                close(part, done.into_inner()?).map_err(io)?;
                part += 1;
                part_rows = 0;
                Ok(())
            })();
            if written.is_err() {
                return;
            }
        }
        let before = w.rows;
        written = w.push(p).map_err(Error::Write);
        part_rows += w.rows - before;
    })
    .map_err(Error::Read)?;
    written?;
    w.flush()?;
    close(part, w.file.into_inner()?).map_err(io)?;
    Ok(w.rows)
}
