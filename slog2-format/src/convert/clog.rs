//! Old CLOG (MPE1) → SLOG-2 in one pass, as `clogTOslog2` does: records are read
//! block by block from memory, turned into primitives ([`ClogDrawables`])
//! and placed in the tree as they complete.

pub mod events;

use crate::convert::stats::{into_tree, ConvertStats, PairStats};
use crate::error::{Error, Result};
use crate::write::prim_sink::PrimSink;
use crate::write::tree::TreeOptions;
use clog2_format::clog::ClogRecords;
use events::ClogDrawables;
use std::io::{Seek, Write};

/// Converts the records of an old-CLOG file ([`ClogRecords::new`] infers the
/// block size as spec/clog.md §2 says, [`ClogRecords::with_block_size`] takes
/// it) into a SLOG-2 file written to `out` (which must be at its start).
/// `progress` is called at each new block with the input offset.
///
/// # Errors
///
/// [`Error::Clog2`], naming the byte offset: a malformed record or block; a
/// record completing a drawable that ends before the previous one or at a
/// non-finite time (the records must be in time order); [`Error::Write`]: an
/// input without drawables.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// // A small old-CLOG trace: MPI state 0 (events 1 and 2) on two processes.
/// use clog2_format::clog::{Body, ClogWriter, RawEvent, Record};
/// use clog2_format::FixedBytes;
/// let ev = |t: f64, proc: i32, etype: i32| Record::new(t, proc, Body::Raw(RawEvent {
///     etype, data: 0, srcloc: 0, pad: FixedBytes::default(), string: FixedBytes::default(),
/// }));
/// let mut w = ClogWriter::new(Vec::new(), 1024)?;
/// for p in 0..2 {
///     w.push(&ev(0.1, p, 1))?;
///     w.push(&ev(0.2, p, 2))?;
/// }
/// let clog = w.finish()?;
/// let records = clog2_format::clog::ClogRecords::new(&clog)?;
/// let (out, stats) = slog2_format::convert::clog_to_slog2(records, std::io::Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// assert_eq!(stats.tree.drawables, 2);
/// assert!(slog2_format::looks_like(out.get_ref()));
/// # Ok(())
/// # }
/// ```
pub fn clog_to_slog2<W: Write + Seek>(
    records: ClogRecords<'_>,
    out: W,
    opts: TreeOptions,
    progress: impl FnMut(u64),
) -> Result<(W, ConvertStats)> {
    into_tree(out, opts, |tree| clog_into(records, tree, progress))
}

/// Pairs the events of an old-CLOG file's records into primitives, as
/// [`clog_to_slog2`] does, and hands them to `sink` in increasing end time,
/// then the legend and the line-ID maps.
///
/// # Errors
///
/// As [`clog_to_slog2`], and the sink's errors.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// // A small old-CLOG trace: MPI state 0 (events 1 and 2) on two processes.
/// use clog2_format::clog::{Body, ClogWriter, RawEvent, Record};
/// use clog2_format::FixedBytes;
/// let ev = |t: f64, proc: i32, etype: i32| Record::new(t, proc, Body::Raw(RawEvent {
///     etype, data: 0, srcloc: 0, pad: FixedBytes::default(), string: FixedBytes::default(),
/// }));
/// let mut w = ClogWriter::new(Vec::new(), 1024)?;
/// for p in 0..2 {
///     w.push(&ev(0.1, p, 1))?;
///     w.push(&ev(0.2, p, 2))?;
/// }
/// let clog = w.finish()?;
/// // Any PrimSink takes the primitives; here the tree writer.
/// let tree = slog2_format::write::TreeWriter::new(std::io::Cursor::new(Vec::new()), Default::default())?;
/// let records = clog2_format::clog::ClogRecords::new(&clog)?;
/// let ((_, tree_stats), pair_stats) = slog2_format::convert::clog_into(records, tree, |_| {})?;
/// assert_eq!(tree_stats.drawables, 2);
/// assert!(pair_stats.records >= 4);
/// # Ok(())
/// # }
/// ```
pub fn clog_into<P: PrimSink>(
    mut records: ClogRecords<'_>,
    mut tree: P,
    mut progress: impl FnMut(u64),
) -> Result<(P::Output, PairStats)> {
    let clog = |e: clog2_format::Error| Error::Clog2(Box::new(e));
    let mut events = ClogDrawables::new();
    let mut count = 0u64;
    let mut last_block = 0;
    let mut input_bytes = 0u64;
    let mut last_end = f64::NEG_INFINITY;
    while let Some(item) = records.next() {
        let (rec, at) = item.map_err(clog)?;
        count += 1;
        if let Some(p) = events.push(&rec) {
            crate::convert::stats::in_end_order(&p, &mut last_end, at, rec.time)?;
            tree.add(p)?;
        }
        if events.ended() {
            input_bytes = records.position() as u64;
            break;
        }
        if records.block_index() != last_block {
            last_block = records.block_index();
            progress(records.position() as u64);
        }
    }
    if events.ended() {
        // Structure errors after ENDLOG (blocks after it) are still errors.
        if let Some(Err(e)) = records.next() {
            return Err(clog(e));
        }
    }
    let (categories, maps, unmatched) = events.finish();
    let output = tree.finish(&categories, maps)?;
    Ok((
        output,
        PairStats {
            records: count,
            input_bytes,
            unmatched,
            otf2: None,
        },
    ))
}
