//! Every wait state as an interval, and the critical path as segments, in an
//! index whose queries cost what a picture shows (spec/waits.md).
//!
//! `mpelog analyze` knows each wait state (spec/analysis.md §5): the
//! waiting timeline, the part `[start, end)` of the call its pattern's
//! seconds measure, the partner that caused it and when. A [`WaitIndex`]
//! keeps them per timeline, sorted by start, in blocks whose directory carries
//! the seconds of each pattern before the block, so that the seconds of each
//! pattern in every pixel column of a window ([`WaitIndex::cells`]) cost a
//! short gallop over the directory and one block per column boundary, not a
//! pass over the trace.
//! It is built in memory from one analysis ([`WaitIndex::from_report`]),
//! written beside the trace (`mpelog analyze TRACE --write-index` writes
//! `TRACE.waits`, [`index_path`]) and read back, bound to the trace's size,
//! mtime and bytes ([`Binding`]).
//!
//! ```
//! use mpelog::analysis::{self, Options, Pattern};
//! use mpelog::waits::WaitIndex;
//! let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
//! let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
//! let sink = mpelog::export::sorted::StartOrder::new();
//! let (mut sorted, _) = slog2_format::convert::clog2_into(&mut reader, sink, |_| {})?;
//! let mut report = analysis::one_pass(&mut sorted, &Options::default().record(true))?;
//! let index = WaitIndex::from_report(&mut report).expect("recorded");
//! // One column over the whole trace: each timeline's seconds, as analyze's.
//! let cells = index.cells(report.from, report.to, 1);
//! for row in &cells.rows {
//!     let ours: f64 = row.cells.iter().map(|c| c.seconds).sum();
//!     let theirs: f64 = report.patterns.iter().filter(|p| p.parent.is_none())
//!         .map(|p| p.per_timeline.get(&row.timeline).copied().unwrap_or(0.0)).sum();
//!     assert!((ours - theirs).abs() < 1e-9);
//! }
//! // Written and read back, the same index.
//! let bytes = index.to_bytes();
//! assert_eq!(WaitIndex::from_bytes(&bytes)?, index);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod file;
mod fine;
pub(crate) mod log;
mod query;
mod read;
mod write;

pub use file::{index_path, Binding, Error, Problem, Stale, MAGIC, VERSION};
pub use log::Spilled;
pub use query::{CellWait, Cells, Path, RowCells};
pub use write::{write_recorded, Written};

use crate::analysis::{Pattern, Report};

/// How many patterns an index holds seconds for (every [`Pattern`]).
pub const PATTERNS: usize = Pattern::ALL.len();

/// Waits per block of a timeline in an index [`WaitIndex::from_report`]
/// builds.
pub const BLOCK: usize = 64;

/// One wait state: the part `[start, end)` of a call on `timeline` that its
/// pattern's seconds measure (spec/waits.md §2).
///
/// ```
/// use mpelog::analysis::Pattern;
/// let w = mpelog::waits::Wait { timeline: 1, start: 0.5, end: 0.75, pattern: Pattern::LateSender, partner: Some(0), cause: 0.75, call: 3 };
/// assert_eq!(w.seconds(), 0.25);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Wait {
    /// The waiting timeline.
    pub timeline: i32,
    /// Where the wait starts.
    pub start: f64,
    /// Where it ends.
    pub end: f64,
    /// Its most specific pattern (the parents' seconds are sums).
    pub pattern: Pattern,
    /// The timeline that caused it (the late sender, the last to enter, the
    /// root, the first to leave).
    pub partner: Option<i32>,
    /// When the partner caused it: the late send's enter, the latest
    /// arrival, the root's enter, the first leave.
    pub cause: f64,
    /// The waiting call's category index in the trace's legend.
    pub call: i32,
}

impl Wait {
    /// Its seconds (`end − start`).
    pub fn seconds(&self) -> f64 {
        self.end - self.start
    }

    /// The order of an index's waits: timeline, start, end, then every other
    /// field, so that two waits tie only when they are alike.
    pub(crate) fn total_order(a: &Wait, b: &Wait) -> std::cmp::Ordering {
        a.timeline
            .cmp(&b.timeline)
            .then(a.start.total_cmp(&b.start))
            .then(a.end.total_cmp(&b.end))
            .then(a.cause.total_cmp(&b.cause))
            .then(a.partner.cmp(&b.partner))
            .then(a.call.cmp(&b.call))
            .then(a.pattern.index().cmp(&b.pattern.index()))
    }
}

/// A stretch of the critical path on one timeline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment {
    /// The timeline the path runs on.
    pub timeline: i32,
    /// Start time.
    pub start: f64,
    /// End time.
    pub end: f64,
}

/// Where the critical path moves from one timeline to another (forwards in
/// time: the wait on `to` ended at `time` because of `from`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Jump {
    /// When.
    pub time: f64,
    /// The timeline that caused the wait.
    pub from: i32,
    /// The waiting timeline the path continues on.
    pub to: i32,
}

/// One block's directory entry (spec/waits.md §3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Block {
    /// The start of its first wait.
    pub first: f64,
    /// The latest end of the waits in this block and every block before it.
    pub reach: f64,
    /// The longest wait in the block.
    pub longest: f64,
    /// Per pattern, the seconds of the waits of the blocks before it.
    pub before: [f64; PATTERNS],
}

/// One timeline's waits, sorted by start (then end), their blocks, and
/// the finer level the queries walk (computed from the waits, not stored).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Lane {
    pub timeline: i32,
    pub waits: Vec<Wait>,
    pub dir: Vec<Block>,
    pub fine: fine::Fine,
}

impl Lane {
    /// The lane of `waits` (sorted here) in blocks of `block`.
    pub(crate) fn new(timeline: i32, mut waits: Vec<Wait>, block: usize) -> Lane {
        let by_time =
            |a: &Wait, b: &Wait| a.start.total_cmp(&b.start).then(a.end.total_cmp(&b.end));
        if !waits.is_sorted_by(|a, b| by_time(a, b).is_le()) {
            waits.sort_by(by_time);
        }
        let dir = directory(&waits, block);
        let fine = fine::Fine::new(&waits);
        Lane {
            timeline,
            waits,
            dir,
            fine,
        }
    }
}

/// The directory of `waits` (sorted by start) in blocks of `block`.
pub(crate) fn directory(waits: &[Wait], block: usize) -> Vec<Block> {
    let mut dir = Vec::with_capacity(waits.len().div_ceil(block.max(1)));
    let mut before = [0.0; PATTERNS];
    let mut reach = f64::NEG_INFINITY;
    for chunk in waits.chunks(block.max(1)) {
        let mut longest = 0.0f64;
        for w in chunk {
            reach = reach.max(w.end);
            longest = longest.max(w.seconds());
        }
        dir.push(Block {
            first: chunk[0].start,
            reach,
            longest,
            before,
        });
        for w in chunk {
            before[w.pattern.index()] += w.seconds();
        }
    }
    dir
}

/// Every wait state of a trace per timeline, and its critical path, with the
/// directory that makes window queries cheap (spec/waits.md).
#[derive(Debug, Clone, PartialEq)]
pub struct WaitIndex {
    /// The analysed trace's first enter.
    pub from: f64,
    /// Its last leave.
    pub to: f64,
    /// The root rank the rooted collectives were analysed with.
    pub root: i32,
    /// The trace this index was made from, when known.
    pub binding: Option<Binding>,
    /// Waits per block.
    pub(crate) block: usize,
    /// The names of the waiting calls' categories (index, name), by index.
    pub(crate) calls: Vec<(i32, String)>,
    /// Per timeline, ascending.
    pub(crate) lanes: Vec<Lane>,
    /// The critical path, in time order.
    pub(crate) path: Vec<Segment>,
    /// The path split per timeline, with cumulative seconds (from `path`).
    pub(crate) path_lanes: Vec<fine::PathLane>,
}

impl WaitIndex {
    /// The index of the waits and the critical path an analysis recorded
    /// ([`crate::analysis::Options::record`]); `None` when it recorded
    /// nothing. Takes them out of the report (they can be large).
    /// Spilled waits ([`crate::analysis::Options::record_memory`]) are read
    /// back into memory (an error reading them leaves them out);
    /// [`write_recorded`] writes an index without holding it.
    pub fn from_report(report: &mut Report) -> Option<WaitIndex> {
        let mut rec = report.recorded.take()?;
        let waits = match rec.spilled.take() {
            None => rec.waits,
            Some(spilled) => {
                let mut all = Vec::with_capacity(spilled.len() + rec.waits.len());
                let _ = log::merged(&mut rec.waits, Some(&spilled.0), &mut |w| {
                    all.push(*w);
                    Ok(())
                });
                all
            }
        };
        Some(WaitIndex::new(
            waits, rec.path, rec.calls, rec.span, rec.root, BLOCK,
        ))
    }

    /// An index of `waits` and the critical path `path` over the trace's
    /// span `(from, to)`, in blocks of `block` waits (at least 1).
    ///
    /// ```
    /// use mpelog::analysis::Pattern;
    /// use mpelog::waits::{Wait, WaitIndex};
    /// let w = |timeline, start, end| Wait { timeline, start, end, pattern: Pattern::WaitAtBarrier, partner: Some(2), cause: end, call: 1 };
    /// let ix = WaitIndex::new(vec![w(1, 4.0, 9.0), w(0, 1.0, 9.0)], vec![], vec![(1, "MPI_Barrier".into())], (0.0, 10.0), 0, 2);
    /// assert_eq!(ix.timelines(), vec![0, 1]);
    /// assert_eq!(ix.waits(1)[0].start, 4.0);
    /// ```
    pub fn new(
        mut waits: Vec<Wait>,
        mut path: Vec<Segment>,
        mut calls: Vec<(i32, String)>,
        (from, to): (f64, f64),
        root: i32,
        block: usize,
    ) -> WaitIndex {
        let block = block.clamp(1, file::MAX_BLOCK);
        waits.retain(|w| w.start.is_finite() && w.end.is_finite() && w.end > w.start);
        // In place (no room for a stable sort's scratch, half the waits
        // again): by timeline, start and end, then the rest of each wait, so
        // that only waits alike in every field are left in a tie and the
        // order, and the bytes, do not depend on the order found.
        waits.sort_unstable_by(Wait::total_order);
        // The lanes from the last: each taken off the end, and the room it
        // held given back, so that the lanes replace the waits instead of
        // doubling them (the largest lane is the most held twice).
        let mut lanes = Vec::new();
        while let Some(timeline) = waits.last().map(|w| w.timeline) {
            let lane = waits.split_off(waits.partition_point(|w| w.timeline < timeline));
            waits.shrink_to_fit();
            lanes.push(Lane::new(timeline, lane, block));
        }
        lanes.reverse();
        calls.sort();
        calls.dedup_by_key(|c| c.0);
        path.retain(|s| s.start.is_finite() && s.end.is_finite() && s.end > s.start);
        path.sort_by(|a, b| a.start.total_cmp(&b.start));
        let path_lanes = fine::path_lanes(&path);
        WaitIndex {
            from,
            to,
            root,
            binding: None,
            block,
            calls,
            lanes,
            path,
            path_lanes,
        }
    }

    /// The index bound to the trace `binding` (its size, mtime and bytes).
    pub fn bound(mut self, binding: Binding) -> WaitIndex {
        self.binding = Some(binding);
        self
    }

    /// The timelines that have a wait, ascending.
    pub fn timelines(&self) -> Vec<i32> {
        self.lanes.iter().map(|l| l.timeline).collect()
    }

    /// The waits of `timeline`, sorted by start (empty for a timeline
    /// without any).
    pub fn waits(&self, timeline: i32) -> &[Wait] {
        self.lane(timeline).map_or(&[], |l| &l.waits[..])
    }

    /// How many waits the index holds.
    pub fn len(&self) -> usize {
        self.lanes.iter().map(|l| l.waits.len()).sum()
    }

    /// Whether it holds no wait.
    pub fn is_empty(&self) -> bool {
        self.lanes.iter().all(|l| l.waits.is_empty())
    }

    /// The critical path's segments, in time order.
    pub fn path(&self) -> &[Segment] {
        &self.path
    }

    /// The timelines the critical path runs on, ascending.
    pub(crate) fn path_timelines(&self) -> impl Iterator<Item = i32> + '_ {
        self.path_lanes.iter().map(|l| l.timeline)
    }

    /// The name of the call of category `call` (`None`: not in the index).
    pub fn call_name(&self, call: i32) -> Option<&str> {
        self.calls
            .binary_search_by_key(&call, |c| c.0)
            .ok()
            .map(|i| self.calls[i].1.as_str())
    }

    fn lane(&self, timeline: i32) -> Option<&Lane> {
        self.lanes
            .binary_search_by_key(&timeline, |l| l.timeline)
            .ok()
            .map(|i| &self.lanes[i])
    }
}
