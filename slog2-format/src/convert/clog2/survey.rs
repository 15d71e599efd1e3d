//! The first pass of a streamed read: what the conversion's legend, time box
//! and record order are, learnt by pairing on the calling thread alone, with
//! no primitive kept, handed to another thread or put in order.

use super::events::Clog2Drawables;
use crate::convert::stats::{in_end_order, PairStats};
use crate::error::{Error, Result};
use crate::types::{Category, LineIdMap};
use clog2_format::{Clog2Reader, Source};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};

/// Records read between two looks at the stop flag.
const STOP_EVERY: u64 = 1 << 16;

/// What [`clog2_survey`] learnt of a CLOG2 trace: what the same records give
/// through [`clog2_into`](super::clog2_into) into any sink, without the
/// primitives.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Clog2Survey {
    /// The legend as a converted file has it: the categories primitives use,
    /// in the converter's order.
    pub categories: Vec<Category>,
    /// The line-ID maps as a converted file has them: the converter's (as
    /// [`PrimSink::finish`] gets them), then the identity map of the lines
    /// primitives use.
    ///
    /// [`PrimSink::finish`]: crate::write::PrimSink::finish
    pub maps: Vec<LineIdMap>,
    /// Earliest start and latest end of every primitive (`None` without any).
    pub time_box: Option<(f64, f64)>,
    /// Whether the event records came in time order (what a low-water mark
    /// rests on; [`PrimSink::low_water`] is told `-∞` otherwise).
    ///
    /// [`PrimSink::low_water`]: crate::write::PrimSink::low_water
    pub in_time_order: bool,
    /// The pairing's figures.
    pub stats: PairStats,
}

/// Pairs the events of `reader` as [`clog2_into`](super::clog2_into) does and
/// keeps only what the legend, the time box and the record order need: one
/// thread, no primitive leaves the pairing. `Ok(None)` once `stop` is set
/// (looked at before the first record and every 65,536 records, and at the end).
///
/// # Errors
///
/// As [`clog2_into`](super::clog2_into): the reader's ([`Error::Clog2`]) or a
/// drawable out of time order ([`Error::OutOfOrder`]).
///
/// # Examples
///
/// ```
/// use slog2_format::convert::{clog2_into, clog2_survey};
/// use slog2_format::write::{TreeOptions, TreeWriter};
/// use std::sync::atomic::AtomicBool;
/// let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
/// let mut r = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// let s = clog2_survey(&mut r, &AtomicBool::new(false))?.expect("not stopped");
/// assert!(s.in_time_order && s.time_box.is_some());
/// // The same legend as the tree writer's file.
/// let mut r = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// let tree = TreeWriter::new(std::io::Cursor::new(Vec::new()), TreeOptions::default())?;
/// let ((out, stats), pairs) = clog2_into(&mut r, tree, |_| {})?;
/// assert_eq!(s.stats, pairs);
/// assert_eq!(Some(stats.time_range), s.time_box);
/// # let _ = out;
/// // Stopped: nothing learnt.
/// let mut r = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// assert!(clog2_survey(&mut r, &AtomicBool::new(true))?.is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn clog2_survey<S: Source>(
    reader: &mut Clog2Reader<S>,
    stop: &AtomicBool,
) -> Result<Option<Clog2Survey>> {
    /// Why the pass ended early.
    enum Early {
        Order(Error),
        Stopped,
    }
    let mut events = Clog2Drawables::new(reader.preamble().info());
    let mut records = 0u64;
    let mut last_end = f64::NEG_INFINITY;
    let mut order = super::EventOrder::default();
    // Categories used, by index (most primitives repeat the last one's).
    let mut used = rustc_hash::FxHashSet::default();
    let mut last_category = None;
    let mut time_box: Option<(f64, f64)> = None;
    // Lines used, and the previous primitive's (most repeat them).
    let mut lines = rustc_hash::FxHashSet::default();
    let mut last_lines = None;
    let read = reader.for_each_ref(|rec, at| {
        // The first record, then every STOP_EVERY.
        if records % STOP_EVERY == 0 && stop.load(Ordering::Relaxed) {
            return ControlFlow::Break(Early::Stopped);
        }
        records += 1;
        order.see(rec);
        if let Some(p) = events.push_ref(rec) {
            if let Err(e) = in_end_order(&p, &mut last_end, at, rec.time) {
                return ControlFlow::Break(Early::Order(e));
            }
            if last_category != Some(p.category) {
                last_category = Some(p.category);
                used.insert(p.category);
            }
            if last_lines != Some(p.lines) {
                last_lines = Some(p.lines);
                lines.extend(&p.lines[..usize::from(p.nv.clamp(1, 2))]);
            }
            let (start, end) = (p.earliest(), p.latest());
            time_box = Some(match time_box {
                None => (start, end),
                Some((a, b)) => (a.min(start), b.max(end)),
            });
        }
        ControlFlow::Continue(())
    });
    match read {
        Ok(None) if stop.load(Ordering::Relaxed) => return Ok(None),
        Ok(None) => {}
        Ok(Some(Early::Stopped)) => return Ok(None),
        Ok(Some(Early::Order(e))) => return Err(e),
        Err(e) => return Err(Error::Clog2(Box::new(e))),
    }
    let input_bytes = reader.offset();
    let (categories, mut maps, unmatched) = events.finish();
    maps.push(crate::write::tree::identity_map(lines));
    Ok(Some(Clog2Survey {
        categories: categories
            .into_iter()
            .filter(|c| used.contains(&c.index))
            .collect(),
        maps,
        time_box,
        in_time_order: order.in_order,
        stats: PairStats {
            records,
            input_bytes,
            unmatched,
            otf2: None,
        },
    }))
}
