//! The rows of a table of drawables, built into Arrow record batches: the
//! columns of `mpelog export --to parquet` (spec/export.md section 7), made
//! by the library's [`ColumnsBuilder`] (what `t.window()` is made by too)
//! and handed to Arrow without a copy. The pieces arrive in [`Chunk`]s
//! copied out of the reader, so that another thread builds the batches.

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use mpelog::export::info_columns::{InfoColumn, InfoType};
use mpelog::slices::Piece;
use mpelog::trace::ColumnsBuilder;
use std::sync::Arc;

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

    /// The piece of `r` (one of these pieces): its vertices' times are its
    /// start and end, as the columns take only the vertices' lines.
    fn piece<'c>(&'c self, r: &Rec) -> Piece<'c> {
        let (at, n) = (r.info.0 as usize, r.info.1 as usize);
        Piece {
            category: r.category,
            first: (r.start, r.start_line),
            last: (r.end, r.end_line),
            start: r.start,
            end: r.end,
            info: self.info.get(at..at + n).unwrap_or_default(),
        }
    }
}

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

/// Rows being gathered into record batches of a given size: the chunks as
/// they came, each piece built into its batch's columns from where it lies.
pub(crate) struct Rows {
    pub(crate) schema: SchemaRef,
    /// Rows of a full batch.
    rows: usize,
    builder: ColumnsBuilder,
    /// The chunks with pieces not in a batch yet.
    pending: std::collections::VecDeque<Chunk>,
    /// The pieces of the first pending chunk already in a batch.
    taken: usize,
    /// The pieces not in a batch yet.
    waiting: usize,
}

impl Rows {
    /// Rows of the legend `legend`, `rows` to a full batch.
    pub(crate) fn with_rows(
        legend: &[slog2_format::Category],
        rows: usize,
        select: &mpelog::trace::Select,
    ) -> Rows {
        let builder = ColumnsBuilder::with_select(legend, select);
        Rows {
            schema: schema(builder.info_columns()),
            rows,
            builder,
            pending: Default::default(),
            taken: 0,
            waiting: 0,
        }
    }

    /// The pieces not in a batch yet.
    pub(crate) fn len(&self) -> usize {
        self.waiting
    }

    /// Adds the rows of `chunk`, handing each full batch to `full`; stops
    /// (`Ok(false)`) when `full` does.
    ///
    /// # Errors
    ///
    /// [`TooLong`] for a row whose text no batch can hold.
    pub(crate) fn push_chunk(
        &mut self,
        chunk: Chunk,
        full: &mut dyn FnMut(RecordBatch) -> bool,
    ) -> Result<bool, TooLong> {
        self.waiting += chunk.len();
        self.pending.push_back(chunk);
        while self.waiting >= self.rows {
            if !self.batch(self.rows, full)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The pieces not in a batch yet as record batches (one, unless a text
    /// column would pass 2 GiB).
    ///
    /// # Errors
    ///
    /// [`TooLong`] for a row whose text no batch can hold.
    pub(crate) fn finish(
        &mut self,
        full: &mut dyn FnMut(RecordBatch) -> bool,
    ) -> Result<bool, TooLong> {
        self.batch(self.waiting, full)
    }

    /// The next `n` pieces waiting (at most as many as wait) as a batch,
    /// then out of the pending chunks.
    fn batch(
        &mut self,
        n: usize,
        full: &mut dyn FnMut(RecordBatch) -> bool,
    ) -> Result<bool, TooLong> {
        let n = n.min(self.waiting);
        let (pending, taken) = (&self.pending, self.taken);
        let pieces = || {
            pending
                .iter()
                .enumerate()
                .flat_map(move |(k, c)| {
                    let from = if k == 0 { taken } else { 0 };
                    c.recs
                        .get(from..)
                        .unwrap_or_default()
                        .iter()
                        .map(move |r| c.piece(r))
                })
                .take(n)
        };
        let done = match self.builder.columns_of(n, pieces()) {
            Some(c) => Ok(full(
                crate::columns_batch(c).expect("columns of the schema"),
            )),
            // A text column past 2 GiB: in halves (rare).
            None => halves(&mut self.builder, &pieces().collect::<Vec<_>>(), full),
        };
        // The pieces taken: out of the chunks.
        let mut left = n;
        while let Some(c) = self.pending.front() {
            let here = c.len() - self.taken;
            if here > left {
                self.taken += left;
                break;
            }
            left -= here;
            self.pending.pop_front();
            self.taken = 0;
        }
        self.waiting -= n;
        done
    }
}

/// The batch of `pieces`, halved until every text column fits Arrow's
/// 32-bit offsets.
fn halves(
    builder: &mut ColumnsBuilder,
    pieces: &[Piece<'_>],
    full: &mut dyn FnMut(RecordBatch) -> bool,
) -> Result<bool, TooLong> {
    match builder.columns(pieces) {
        Some(c) => Ok(full(
            crate::columns_batch(c).expect("columns of the schema"),
        )),
        None if pieces.len() > 1 => {
            let (a, b) = pieces.split_at(pieces.len() / 2);
            Ok(halves(builder, a, full)? && halves(builder, b, full)?)
        }
        None => Err(TooLong),
    }
}

/// A row whose text passes 2 GiB in one column: no Arrow batch (32-bit
/// offsets) can hold it.
#[derive(Debug)]
pub(crate) struct TooLong;
