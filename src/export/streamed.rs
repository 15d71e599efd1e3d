//! A conversion's primitives handed out in start order while the input is
//! still being read (issue 45): the converter tells a low-water mark between
//! batches ([`PrimSink::low_water`]: no primitive still to come starts
//! before it), and the held primitives starting before the mark are sorted
//! and leave at once; those are all earlier than anything held back or still
//! to come, so what leaves is in order. A primitive that stays open long (a
//! state around the whole run, a send never received) holds the mark back;
//! when too many wait the rest of the conversion goes through [`StartOrder`]'s
//! sorted runs instead (the fallback), and comes out after what has already
//! left: everything that left started before every primitive the fallback
//! holds, so the order is the same as [`StartOrder`] alone gives, row for row.
//!
//! The legend, the time box and the window's bounds must be known before the
//! first row leaves: [`Trace::scan_until`](crate::Trace::scan_until) learns
//! them from a first pass that keeps nothing ([`StartOrder::survey`]).

use super::sorted::{held_key, sort_keys, StartOrder};
use super::Ordered;
use crate::slices::{Piece, Span};
use slog2_format::types::{Category, LineIdMap};
use slog2_format::write::{Prim, PrimSink};
use slog2_format::TimeWindow;
use std::io;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::Arc;

/// The default number of primitives held before the rest goes to sorted
/// runs (about 24 MB).
pub(crate) const DEFAULT_HELD: usize = 1 << 18;

/// The primitives held for a sorter given `memory` bytes
/// ([`crate::export::Options::sort_memory`]; `None`: [`DEFAULT_HELD`]).
pub(crate) fn held_for(memory: Option<usize>) -> usize {
    let each = std::mem::size_of::<Prim>() + std::mem::size_of::<(i64, i64, u32)>();
    memory.map_or(DEFAULT_HELD, |m| (m / each).max(1))
}

/// Whether `p` may leave at the low-water mark `time`: it starts strictly
/// before (a NaN start never does).
fn leaves(p: &Prim, time: f64) -> bool {
    p.earliest() < time
}

/// What a [`Streamed`] sink did: the pieces it handed out, whether the
/// consumer stopped it, and whether it fell back to sorted runs.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Outcome {
    pub(crate) pieces: u64,
    pub(crate) stopped: bool,
    pub(crate) fell_back: bool,
}

/// A [`PrimSink`] that hands the primitives meeting a window to `emit` in
/// start order ([`crate::slices::order`]) as soon as the low-water mark lets
/// them go (see the module's text).
pub(crate) struct Streamed<'f> {
    /// The primitives kept (as [`StartOrder::window`] keeps them).
    keep: TimeWindow,
    /// The pieces handed out: those meeting the window's span, as
    /// [`Ordered::pieces_while`] clips it (`show`).
    span: Span,
    show: TimeWindow,
    /// The primitives held, in arrival order, and the start order of those
    /// leaving (reused).
    held: Vec<Prim>,
    keys: Vec<(i64, i64, u32)>,
    limit: usize,
    /// The sorted runs, once too many primitives were held.
    fallback: Option<StartOrder>,
    spill: Box<dyn Fn() -> StartOrder + Send + 'f>,
    emit: &'f mut dyn FnMut(Piece<'_>) -> ControlFlow<()>,
    stop: Arc<AtomicBool>,
    out: Outcome,
}

impl<'f> Streamed<'f> {
    /// A sink keeping what meets `keep`, handing out what meets `span` (as
    /// [`Ordered::pieces_while`] does) to `emit`, until `stop` is set or
    /// `emit` breaks; `spill` makes the fallback's sorter.
    pub(crate) fn new(
        keep: (Option<f64>, Option<f64>),
        span: Span,
        spill: Box<dyn Fn() -> StartOrder + Send + 'f>,
        stop: Arc<AtomicBool>,
        emit: &'f mut dyn FnMut(Piece<'_>) -> ControlFlow<()>,
    ) -> Streamed<'f> {
        Streamed {
            keep: TimeWindow::new(
                keep.0.unwrap_or(f64::NEG_INFINITY),
                keep.1.unwrap_or(f64::INFINITY),
            ),
            span,
            show: if span.clipped {
                TimeWindow::new(span.from, span.to)
            } else {
                TimeWindow::new(f64::NEG_INFINITY, f64::INFINITY)
            },
            held: Vec::new(),
            keys: Vec::new(),
            limit: DEFAULT_HELD,
            fallback: None,
            spill,
            emit,
            stop,
            out: Outcome::default(),
        }
    }

    /// Holds at most `n` primitives (at least one) before falling back.
    pub(crate) fn held(mut self, n: usize) -> Self {
        self.limit = n.max(1);
        self
    }

    /// Hands `p` out if it meets the span; false once the consumer stops.
    fn give(&mut self, p: &Prim) -> bool {
        if !self.show.meets(p.earliest(), p.latest()) {
            return true;
        }
        if self.stop.load(AtomicOrdering::Relaxed) || (self.emit)(Piece::of_prim(p)).is_break() {
            self.out.stopped = true;
            return false;
        }
        self.out.pieces += 1;
        true
    }

    /// Hands out the held primitives that `pick` takes, in start order;
    /// returns how many it took (all handed out unless the consumer stopped).
    fn give_sorted(&mut self, pick: impl Fn(&Prim) -> bool) -> usize {
        let mut keys = std::mem::take(&mut self.keys);
        keys.clear();
        keys.extend(
            self.held
                .iter()
                .enumerate()
                .filter(|(_, p)| pick(p))
                .map(|(i, p)| {
                    let (a, b) = held_key(p);
                    (a, b, i as u32)
                }),
        );
        sort_keys(&self.held, &mut keys);
        for &(_, _, i) in &keys {
            let p = self.held[i as usize];
            if !self.give(&p) {
                break;
            }
        }
        let n = keys.len();
        self.keys = keys;
        n
    }

    /// The consumer went away: the converter's next call fails and it stops.
    fn stopped() -> slog2_format::Error {
        slog2_format::Error::Sink(Box::new(io::Error::new(
            io::ErrorKind::Interrupted,
            "the conversion was stopped by its reader",
        )))
    }
}

impl PrimSink for Streamed<'_> {
    type Output = Outcome;

    fn add(&mut self, p: Prim) -> slog2_format::Result<()> {
        if self.out.stopped || self.stop.load(AtomicOrdering::Relaxed) {
            self.out.stopped = true;
            return Err(Self::stopped());
        }
        if let Some(f) = &mut self.fallback {
            return f.add(p);
        }
        if !self.keep.meets(p.earliest(), p.latest()) {
            return Ok(());
        }
        self.held.push(p);
        if self.held.len() > self.limit {
            // Something stays open too long: the rest is sorted in runs.
            let mut f = (self.spill)();
            // The held primitives' memory goes back before the runs take theirs.
            for q in std::mem::take(&mut self.held) {
                f.add(q)?;
            }
            self.fallback = Some(f);
            self.out.fell_back = true;
        }
        Ok(())
    }

    fn low_water(&mut self, time: f64) -> slog2_format::Result<()> {
        if self.fallback.is_some() {
            return Ok(());
        }
        // Only what starts strictly before the mark (a NaN never does).
        let n = self.give_sorted(|p| leaves(p, time));
        if self.out.stopped {
            return Err(Self::stopped());
        }
        if n == 0 {
            return Ok(());
        }
        if n == self.held.len() {
            self.held.clear();
        } else {
            self.held.retain(|p| !leaves(p, time));
        }
        Ok(())
    }

    fn finish(
        mut self,
        categories: &[Category],
        maps: Vec<LineIdMap>,
    ) -> slog2_format::Result<Outcome> {
        match self.fallback.take() {
            None => {
                self.give_sorted(|_| true);
            }
            Some(f) => {
                let mut sorted = f.finish(categories, maps)?;
                let stop = self.stop.clone();
                let (emit, out) = (&mut self.emit, &mut self.out);
                sorted
                    .pieces_while(self.span, &mut |p| {
                        if stop.load(AtomicOrdering::Relaxed) || emit(p).is_break() {
                            out.stopped = true;
                            return ControlFlow::Break(());
                        }
                        out.pieces += 1;
                        ControlFlow::Continue(())
                    })
                    .map_err(|e| slog2_format::Error::Sink(Box::new(e)))?;
            }
        }
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use slog2_format::types::topology;

    fn state(start: f64, end: f64) -> Prim {
        Prim::two(1, topology::STATE, (start, 0), (end, 0), &[])
    }

    /// Feeds a sink holding at most `held` (falling back to a 1 KiB sorter)
    /// with `feed`; returns the starts handed out, in order, and the outcome.
    fn run(held: usize, feed: impl FnOnce(&mut Streamed<'_>)) -> (Vec<f64>, Outcome) {
        let mut starts = Vec::new();
        let mut emit = |p: Piece<'_>| {
            starts.push(p.start);
            ControlFlow::Continue(())
        };
        let all = Span {
            from: 0.0,
            to: 0.0,
            clipped: false,
        };
        let stop = Arc::new(AtomicBool::new(false));
        let spill = Box::new(|| StartOrder::new().memory(1 << 10));
        let mut s = Streamed::new((None, None), all, spill, stop, &mut emit).held(held);
        feed(&mut s);
        let out = s.finish(&[], vec![]).unwrap();
        (starts, out)
    }

    #[test]
    fn pieces_leave_at_the_low_water_mark_not_before() {
        let mut held = 0;
        let (starts, out) = run(1000, |s| {
            // In end order: (1, 2), (0.5, 3), (2.5, 3.5).
            for p in [state(1.0, 2.0), state(0.5, 3.0), state(2.5, 3.5)] {
                s.add(p).unwrap();
            }
            s.low_water(1.0).unwrap(); // 0.5 starts before: it leaves
            s.low_water(2.5).unwrap(); // 1.0 leaves, 2.5 does not (not strictly before)
            s.low_water(f64::NAN).unwrap(); // nothing leaves on a NaN
            s.low_water(f64::NEG_INFINITY).unwrap();
            held = s.held.len();
        });
        assert_eq!(held, 1);
        assert!(!out.fell_back);
        assert_eq!(out.pieces, 3);
        assert_eq!(starts, [0.5, 1.0, 2.5]);
    }

    #[test]
    fn too_many_held_fall_back_to_sorted_runs_in_order() {
        let (starts, out) = run(4, |s| {
            s.add(state(0.0, 0.5)).unwrap();
            s.low_water(0.25).unwrap(); // 0.0 leaves
            for i in (1..100).rev() {
                s.add(state(f64::from(i), 1000.0)).unwrap();
            }
        });
        assert!(out.fell_back);
        assert_eq!(out.pieces, 100);
        let want: Vec<f64> = (0..100).map(f64::from).collect();
        assert_eq!(starts, want);
    }
}
