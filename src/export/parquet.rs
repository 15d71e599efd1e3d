//! Parquet: one row per drawable, for DuckDB, Polars, pandas and Spark.
//!
//! Columns: `kind` (`state`, `arrow`, `event`), `category` (legend index),
//! `name`, `start` and `end` (seconds, as in the trace), `duration`,
//! `start_line` and `end_line` (line IDs), `info` (the info values as text,
//! `label=value` pairs; values decoded as every export decodes them, so a
//! `%x` value is an integer in decimal) and one typed column per info label of the
//! legend (`msg_tag`, `msg_size`, ...: INT64, DOUBLE or UTF8; null where a
//! drawable's category has no such value). Rows are sorted by start time, and a
//! row group closes after 131,072 rows or 1/256 of the exported span (a whole
//! trace's: from its first start to its container's end), so every
//! row group covers a bounded time range: its column statistics (min/max of
//! `start`, `end`) let a query with a time filter skip the others.

use super::info_columns::{fills, info_columns, InfoColumn, InfoType as Kind};
use super::{ArgRef, Cat, Ordered, Piece};
use parquet::basic::{ConvertedType, Repetition, Type as Physical};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int32Type, Int64Type};
use parquet::errors::ParquetError;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use slog2_format::types::{topology, Category};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write;
use std::sync::{mpsc, Arc};

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

/// A column's values for the row group being built.
#[derive(Debug)]
enum Values {
    Int(Vec<i64>),
    Float(Vec<f64>),
    Text(Vec<ByteArray>),
}

impl Values {
    /// The type of these values.
    fn kind(&self) -> Kind {
        match self {
            Values::Int(_) => Kind::Int,
            Values::Float(_) => Kind::Float,
            Values::Text(_) => Kind::Text,
        }
    }
}

#[derive(Debug)]
struct Column {
    name: String,
    values: Values,
    defined: Vec<i16>,
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
        let columns: Vec<InfoColumn> = typed
            .iter()
            .map(|c| InfoColumn {
                name: c.name.clone(),
                kind: c.values.kind(),
            })
            .collect();
        let by_arg = fills(&cat, &columns);
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

/// One row group's values, column by column (reused once written).
#[derive(Debug)]
struct Columns {
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
}

impl Columns {
    /// Empty columns with the typed columns `typed` asks for.
    fn new(typed: impl IntoIterator<Item = (String, Kind)>) -> Columns {
        Columns {
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
        }
    }

    /// Empty columns of the same layout.
    fn empty_like(&self) -> Columns {
        Columns::new(self.typed.iter().map(|c| (c.name.clone(), c.values.kind())))
    }

    /// Writes the rows held as one row group of `file`, and forgets them.
    fn write<W: Write + Send>(
        &mut self,
        file: &mut SerializedFileWriter<W>,
    ) -> parquet::errors::Result<()> {
        if self.start.is_empty() {
            return Ok(());
        }
        let mut g = file.next_row_group()?;
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

/// What the writer thread does next.
enum Job {
    /// Write these rows as a row group (the columns come back, emptied).
    Group(Box<Columns>),
    /// Close the part and open the next.
    NextPart,
}

/// Turns primitives into rows of the row group being filled.
struct Writer {
    cols: Box<Columns>,
    cats: HashMap<i32, CatPlan>,
    group_start: f64,
    group_span: f64,
    /// For a whole trace, its end until the first row sets `group_span`.
    whole_to: Option<f64>,
    rows: u64,
    /// Which typed columns the row being added filled (reused).
    stored: Vec<bool>,
}

impl Writer {
    /// Whether the row group must close before a row that starts at `start`.
    fn closes_before(&mut self, start: f64) -> bool {
        if let Some(end) = self.whole_to.take() {
            // A whole trace: from its first start (not its container's box).
            self.group_span = ((end - start) / GROUPS_PER_SPAN).max(0.0);
        }
        !self.cols.start.is_empty()
            && (self.cols.start.len() >= GROUP_ROWS || start - self.group_start > self.group_span)
    }

    /// Adds the row of `p` (after [`closes_before`](Self::closes_before)).
    fn push(&mut self, p: Piece<'_>) {
        let start = p.start;
        let cols = &mut self.cols;
        if cols.start.is_empty() {
            self.group_start = start;
        }
        let typed = &mut cols.typed;
        let plan = self
            .cats
            .entry(p.category)
            .or_insert_with(|| CatPlan::new(Cat::unknown(p.category), topology::STATE, typed));
        cols.kind.push(plan.kind.clone());
        cols.category.push(p.category);
        cols.name.push(plan.name.clone());
        cols.start.push(start);
        cols.end.push(p.end);
        cols.duration.push(p.end - start);
        cols.start_line.push(p.first.1);
        cols.end_line.push(p.last.1);
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
            cols.info_defined.push(0);
        } else {
            cols.info.push(text.into_bytes().into());
            cols.info_defined.push(1);
        }
        for (c, &s) in typed.iter_mut().zip(stored.iter()) {
            c.defined.push(i16::from(s));
        }
        self.rows += 1;
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
///
/// # Errors
///
/// [`Error::Read`] with `tree`'s error when a query fails, [`Error::Write`] when
/// the Parquet writer or `out` fails.
///
/// ```
/// # use slog2_format::convert::clog2_to_slog2;
/// # use slog2_format::Slog2Reader;
/// # use std::io::Cursor;
/// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
/// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// # let bytes = out.into_inner();
/// use mpelog::export::Options;
/// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
/// let legend = r.categories().unwrap().value.categories.clone();
/// let (rows, out) = mpelog::export::parquet::export(&mut r, &legend, &Options::default(), Vec::new())?;
/// assert_eq!(rows as usize, r.window(f64::NEG_INFINITY, f64::INFINITY)?.drawables.len());
/// assert!(out.starts_with(b"PAR1") && out.ends_with(b"PAR1"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
///
/// # Errors
///
/// As [`export`], and [`Error::Write`] when `open` or `close` fails.
///
/// ```
/// # use slog2_format::convert::clog2_to_slog2;
/// # use slog2_format::Slog2Reader;
/// # use std::io::Cursor;
/// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
/// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// # let bytes = out.into_inner();
/// use mpelog::export::Options;
/// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
/// let legend = r.categories().unwrap().value.categories.clone();
/// let mut parts = Vec::new();
/// let rows = mpelog::export::parquet::write_parts(&mut r, &legend, &Options::default(), 1000,
///     |_| Ok(Vec::new()), |i, w| { parts.push((i, w)); Ok(()) })?;
/// assert_eq!(parts.len() as u64, rows.div_ceil(1000)); // 1000 rows a part
/// assert!(parts.iter().all(|(_, w)| w.starts_with(b"PAR1")));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_parts<T: Ordered, W: Write + Send>(
    tree: &mut T,
    categories: &[Category],
    opts: &super::Options,
    rows_per_part: u64,
    mut open: impl FnMut(usize) -> std::io::Result<W> + Send,
    mut close: impl FnMut(usize, W) -> std::io::Result<()> + Send,
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
    for InfoColumn { name, kind } in &typed {
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
    let cols = Box::new(Columns::new(typed.into_iter().map(|c| (c.name, c.kind))));
    let cats = categories
        .iter()
        .map(|c| (c.index, CatPlan::new(Cat::of(c), c.topology, &cols.typed)))
        .collect();
    let mut w = Writer {
        cols,
        cats,
        group_start: 0.0,
        group_span: ((span.to - span.from) / GROUPS_PER_SPAN).max(0.0),
        whole_to: (!span.clipped).then_some(span.to),
        rows: 0,
        stored: Vec::new(),
    };
    let io = |e: std::io::Error| ParquetError::External(Box::new(e));
    // Rows are made on this thread; row groups are encoded and written, and
    // parts opened and closed, on another (two groups in flight).
    let (jobs, jobs_rx) = mpsc::sync_channel::<Job>(2);
    let (spare_tx, spare_rx) = mpsc::channel::<Box<Columns>>();
    std::thread::scope(|scope| {
        let writer = scope.spawn(move || -> parquet::errors::Result<()> {
            let mut file =
                SerializedFileWriter::new(open(0).map_err(io)?, schema.clone(), props.clone())?;
            let mut part = 0usize;
            for job in jobs_rx {
                match job {
                    Job::Group(mut c) => {
                        c.write(&mut file)?;
                        // The filling side may be done already.
                        let _ = spare_tx.send(c);
                    }
                    Job::NextPart => {
                        let next = open(part + 1).map_err(io)?;
                        let fresh = SerializedFileWriter::new(next, schema.clone(), props.clone())?;
                        let done = std::mem::replace(&mut file, fresh);
                        close(part, done.into_inner()?).map_err(io)?;
                        part += 1;
                    }
                }
            }
            close(part, file.into_inner()?).map_err(io)
        });
        let stopped = || ParquetError::General("the Parquet writer thread stopped".into());
        // Hands the filled row group to the writer thread.
        let flush = |w: &mut Writer| -> parquet::errors::Result<()> {
            if w.cols.start.is_empty() {
                return Ok(());
            }
            let spare = spare_rx
                .try_recv()
                .unwrap_or_else(|_| Box::new(w.cols.empty_like()));
            let full = std::mem::replace(&mut w.cols, spare);
            jobs.send(Job::Group(full)).map_err(|_| stopped())
        };
        let mut part_rows = 0u64;
        let mut filled: parquet::errors::Result<()> = Ok(());
        let read = tree.pieces(span, &mut |p| {
            if filled.is_err() {
                return;
            }
            if part_rows >= rows_per_part {
                // The part is full: its rows go out as its last row group, and
                // the next part starts with this row.
                filled =
                    flush(&mut w).and_then(|_| jobs.send(Job::NextPart).map_err(|_| stopped()));
                part_rows = 0;
            }
            if filled.is_ok() && w.closes_before(p.start) {
                filled = flush(&mut w);
            }
            if filled.is_ok() {
                w.push(p);
                part_rows += 1;
            }
        });
        if filled.is_ok() && read.is_ok() {
            filled = flush(&mut w);
        }
        drop(jobs);
        let written = match writer.join() {
            Ok(r) => r,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        // The writer's error first: the filling side only saw it stop.
        written?;
        read.map_err(Error::Read)?;
        filled?;
        Ok(w.rows)
    })
}
