//! CLOG2 → SLOG-2 in one pass: records are read in place, turned into
//! primitives and placed in the tree as they complete.

pub mod event_ids;
pub mod events;
mod survey;

pub use survey::{clog2_survey, Clog2Survey};

use crate::convert::stats::{in_end_order, into_tree, ConvertStats, PairStats};
use crate::error::{Error, Result, Worker, WriteProblem};
use crate::write::prim::Prim;
use crate::write::prim_sink::PrimSink;
use crate::write::tree::TreeOptions;
use clog2_format::record::rectype;
use clog2_format::{Clog2Reader, Source};
use events::Clog2Drawables;
use std::io::{Seek, Write};
use std::ops::ControlFlow;
use std::sync::mpsc;

/// Primitives per batch handed from the pairing thread to the tree-building one.
const BATCH: usize = 2048;

/// Batches in flight between the two threads before the pairing thread waits.
const IN_FLIGHT: usize = 4;

/// A batch of primitives in end-time order, the input offset after the
/// records that made them, and the low-water mark after them (no primitive of
/// a later batch starts before it; `-∞` once the records left time order).
type Batch = (Vec<Prim>, u64, f64);

/// What the pairing thread hands back at the end: the pairing state, records
/// read, input offset after them.
type Paired = (Clog2Drawables, u64, u64);

/// Converts the records of `reader` into a SLOG-2 file written to `out` (which
/// must be at its start). `progress` is called now and then with the input offset.
///
/// Two threads, a pipeline: one reads the CLOG2 records in place and pairs events
/// into primitives (checking their time order), the calling thread places the
/// primitives in the tree and writes the nodes; batches of primitives pass between
/// them through a bounded channel (a few batches in flight), so memory stays
/// bounded. [`clog2_into`] is the same pairing for any [`PrimSink`].
///
/// # Errors
///
/// As [`clog2_into`] (the reader's [`Error::Clog2`], a drawable out of time
/// order, [`Error::OutOfOrder`], at the input record's offset), and
/// [`Error::Empty`] for a trace without drawables, [`Error::Io`] when `out` fails.
///
/// # Examples
///
/// ```
/// let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().ranks(2).events(1000))?;
/// let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// let (out, stats) = slog2_format::convert::clog2_to_slog2(&mut reader, std::io::Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// assert!(stats.tree.drawables > 0);
/// assert_eq!(stats.unmatched.total_dropped(), 0);
/// assert!(slog2_format::looks_like(out.get_ref()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn clog2_to_slog2<S: Source + Send, W: Write + Seek>(
    reader: &mut Clog2Reader<S>,
    out: W,
    opts: TreeOptions,
    progress: impl FnMut(u64),
) -> Result<(W, ConvertStats)> {
    into_tree(out, opts, |tree| clog2_into(reader, tree, progress))
}

/// Pairs the events of `reader` into primitives, as [`clog2_to_slog2`] does,
/// and hands them to `sink` in increasing end time, then the legend and the
/// line-ID maps. The pairing runs on a thread of its own; `sink` works on the
/// calling thread. `progress` is called now and then with the input offset.
///
/// # Errors
///
/// The reader's ([`Error::Clog2`]), a drawable out of time order
/// ([`Error::OutOfOrder`]), or the sink's.
///
/// # Examples
///
/// ```
/// use slog2_format::convert::clog2_into;
/// use slog2_format::write::{TreeOptions, TreeWriter};
/// let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
/// let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// // Any PrimSink takes the primitives; here the tree writer.
/// let tree = TreeWriter::new(std::io::Cursor::new(Vec::new()), TreeOptions::default())?;
/// let ((out, tree_stats), pairs) = clog2_into(&mut reader, tree, |_| {})?;
/// assert!(tree_stats.drawables > 0 && pairs.records > 9_000);
/// assert!(slog2_format::Slog2Reader::new(std::io::Cursor::new(out.into_inner())).is_ok());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn clog2_into<S: Source + Send, P: PrimSink>(
    reader: &mut Clog2Reader<S>,
    mut sink: P,
    mut progress: impl FnMut(u64),
) -> Result<(P::Output, PairStats)> {
    let events = Clog2Drawables::new(reader.preamble().info());
    let (full_tx, full_rx) = mpsc::sync_channel::<Result<Batch>>(IN_FLIGHT);
    let (empty_tx, empty_rx) = mpsc::channel::<Vec<Prim>>();
    let paired = std::thread::scope(|scope| -> Result<Paired> {
        let pairing_thread = scope.spawn(move || pair(reader, events, &full_tx, &empty_rx));
        // The sink's work; `full_rx` is consumed here, so when this ends (after
        // the last batch or on an error) the pairing thread's next send fails
        // and it returns.
        let building = (|| -> Result<()> {
            for msg in full_rx {
                let (mut batch, after, low) = msg?;
                for p in batch.drain(..) {
                    sink.add(p)?;
                }
                sink.low_water(low)?;
                progress(after);
                // The pairing thread may be gone already.
                let _ = empty_tx.send(batch);
            }
            Ok(())
        })();
        // Join explicitly: joining waits until the thread has exited, its
        // thread-locals released; the scope's own wait at its end does not (a
        // leak checker run right after this function saw the thread's handle).
        let paired = match pairing_thread.join() {
            Ok(p) => p,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        building?;
        paired.ok_or_else(|| Error::Write(WriteProblem::Stopped(Worker::Pairing)))
    })?;
    let (events, records, input_bytes) = paired;
    let (categories, maps, unmatched) = events.finish();
    let output = sink.finish(&categories, maps)?;
    Ok((
        output,
        PairStats {
            records,
            input_bytes,
            unmatched,
            otf2: None,
        },
    ))
}

/// The pairing thread: reads records up to ENDLOG, pairs them into primitives,
/// checks that they come in end-time order and sends them in batches (an error
/// ends the stream). Returns the pairing state with the record count and the
/// input offset, or `None` when it stopped on an error or because the receiver
/// went away.
fn pair<S: Source>(
    reader: &mut Clog2Reader<S>,
    mut events: Clog2Drawables,
    full_tx: &mpsc::SyncSender<Result<Batch>>,
    empty_rx: &mpsc::Receiver<Vec<Prim>>,
) -> Option<Paired> {
    /// Why pairing stopped early.
    enum Stop {
        /// A record out of time order (the error to send).
        Order(Error),
        /// The receiver went away.
        Gone,
    }
    let mut records = 0u64;
    let mut last_end = f64::NEG_INFINITY;
    // The latest time of an event record so far, and whether they all came
    // in time order (what the low-water mark rests on).
    let mut order = EventOrder::default();
    let mut batch = Vec::with_capacity(BATCH);
    let read = reader.for_each_ref(|rec, at| {
        records += 1;
        order.see(rec);
        if let Some(p) = events.push_ref(rec) {
            if let Err(e) = in_end_order(&p, &mut last_end, at, rec.time) {
                return ControlFlow::Break(Stop::Order(e));
            }
            batch.push(p);
            if batch.len() == BATCH {
                let next = empty_rx
                    .try_recv()
                    .unwrap_or_else(|_| Vec::with_capacity(BATCH));
                let full = std::mem::replace(&mut batch, next);
                // Later records come no earlier than this one (in time order).
                let low = if order.in_order {
                    events.low_water().min(rec.time)
                } else {
                    f64::NEG_INFINITY
                };
                // Progress: the offset of the record that completed the batch.
                if full_tx.send(Ok((full, at, low))).is_err() {
                    return ControlFlow::Break(Stop::Gone);
                }
            }
        }
        // The reader stops after ENDLOG, where pairing ends too.
        ControlFlow::Continue(())
    });
    match read {
        Ok(None) => {}
        Ok(Some(Stop::Gone)) => return None,
        Ok(Some(Stop::Order(e))) => {
            // The receiver may be gone: then nobody needs the error.
            let _ = full_tx.send(Err(e));
            return None;
        }
        Err(e) => {
            let _ = full_tx.send(Err(Error::Clog2(Box::new(e))));
            return None;
        }
    }
    let offset = reader.offset();
    // Nothing comes after the last batch but what the sink's end gives.
    let low = if order.in_order {
        events.low_water()
    } else {
        f64::NEG_INFINITY
    };
    full_tx.send(Ok((batch, offset, low))).ok()?;
    Some((events, records, offset))
}

/// Whether a CLOG2 trace's event records (BAREEVT, CARGOEVT, MSGEVT) come
/// in non-decreasing time order, as far as they have been seen: what the
/// low-water mark of a streamed read rests on (a NaN time breaks it).
#[derive(Debug, Clone, Copy)]
pub(crate) struct EventOrder {
    last: f64,
    pub(crate) in_order: bool,
}

impl Default for EventOrder {
    fn default() -> EventOrder {
        EventOrder {
            last: f64::NEG_INFINITY,
            in_order: true,
        }
    }
}

impl EventOrder {
    /// Takes the next record.
    pub(crate) fn see(&mut self, rec: &clog2_format::RecordRef<'_>) {
        if matches!(
            rec.rectype,
            rectype::BAREEVT | rectype::CARGOEVT | rectype::MSGEVT
        ) {
            self.in_order &= rec.time >= self.last;
            self.last = rec.time;
        }
    }
}
