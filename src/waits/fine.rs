//! The in-memory levels that make a zoomed-out window cost what its columns
//! show (spec/waits.md §4): per timeline, cumulative seconds every [`FINE`]
//! waits of the patterns it has, and the critical path split per timeline
//! with its cumulative seconds. Both are computed from the index when it is
//! built or read (they are not in the file), so a column boundary costs a
//! short gallop over a dense array of times and at most [`FINE`] waits, not
//! a decode of a 64-wait block.

use super::{Segment, Wait, PATTERNS};

/// Waits per entry of a lane's fine level.
pub(crate) const FINE: usize = 8;

/// A lane's fine level: per run of [`FINE`] waits (sorted by start), the
/// start of its first, the latest end through it, and the seconds before it
/// of each pattern the lane has.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Fine {
    /// The pattern indices the lane has waits of, ascending.
    pub patterns: Vec<u8>,
    /// Per pattern index, its place in [`patterns`](Self::patterns) (0 for
    /// a pattern the lane lacks).
    pub slot: [u8; PATTERNS],
    /// Per entry, the start of its first wait.
    pub first: Vec<f64>,
    /// Per entry, the latest end of its waits and every earlier entry's.
    pub reach: Vec<f64>,
    /// Per entry and pattern of [`patterns`](Self::patterns) (entry-major),
    /// the seconds of that pattern's waits before the entry: summed in wait
    /// order, so at a directory block's first wait they are the directory's
    /// sums to the bit.
    pub before: Vec<f64>,
}

impl Fine {
    /// The fine level of `waits`, sorted by start.
    pub(crate) fn new(waits: &[Wait]) -> Fine {
        let mut have = 0u16;
        for w in waits {
            have |= 1 << w.pattern.index();
        }
        let patterns: Vec<u8> = (0..PATTERNS as u8)
            .filter(|p| have & (1 << p) != 0)
            .collect();
        let mut slot = [0u8; PATTERNS];
        for (j, &p) in patterns.iter().enumerate() {
            slot[p as usize] = j as u8;
        }
        let n = waits.len().div_ceil(FINE);
        let mut out = Fine {
            slot,
            first: Vec::with_capacity(n),
            reach: Vec::with_capacity(n),
            before: Vec::with_capacity(n * patterns.len()),
            patterns,
        };
        let mut sums = [0.0f64; PATTERNS];
        let mut reach = f64::NEG_INFINITY;
        for chunk in waits.chunks(FINE) {
            out.first.push(chunk[0].start);
            out.before
                .extend(out.patterns.iter().map(|&p| sums[p as usize]));
            for w in chunk {
                reach = reach.max(w.end);
                sums[w.pattern.index()] += w.seconds();
            }
            out.reach.push(reach);
        }
        out
    }
}

/// The number of entries of `first` (ascending) below `t`, found from
/// `from`, a count known to be below `t` (a cursor over increasing `t`s):
/// galloping forward (steps 1, 2, 4, … then a binary search of the last
/// step), so a walk over a row's column boundaries costs `O(log gap)` each.
pub(crate) fn gallop(first: &[f64], from: usize, t: f64) -> usize {
    let len = first.len();
    let mut lo = from.min(len);
    if lo == len || first[lo] >= t {
        return lo;
    }
    let mut step = 1;
    let mut hi = lo + 1;
    while hi < len && first[hi] < t {
        lo = hi;
        step *= 2;
        hi = lo + step;
    }
    let hi = hi.min(len);
    lo + 1 + first[lo + 1..hi].partition_point(|&x| x < t)
}

/// The critical path's segments of one timeline, in time order, with the
/// seconds of the segments before each.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct PathLane {
    /// The timeline.
    pub timeline: i32,
    /// Segment starts, ascending.
    pub start: Vec<f64>,
    /// Segment ends.
    pub end: Vec<f64>,
    /// Per segment, the seconds of the lane's segments before it.
    pub cum: Vec<f64>,
}

impl PathLane {
    /// The seconds of the lane's segments before `t`
    /// (`Σ |[start, end) ∩ (−∞, t)|`; the segments are disjoint), with
    /// `cursor` a count of segments starting before `t` ([`gallop`]),
    /// moved to the count for `t`.
    pub(crate) fn before(&self, t: f64, cursor: &mut usize) -> f64 {
        let i = gallop(&self.start, *cursor, t);
        *cursor = i;
        match i.checked_sub(1) {
            None => 0.0,
            Some(k) => self.cum[k] + (self.end[k].min(t) - self.start[k]),
        }
    }

    /// The index range of the segments that overlap `[from, to)`.
    pub(crate) fn within(&self, from: f64, to: f64) -> std::ops::Range<usize> {
        let a = self.end.partition_point(|&e| e <= from);
        let b = self.start.partition_point(|&s| s < to).max(a);
        a..b
    }
}

/// The path (in time order, disjoint) split per timeline, ascending.
pub(crate) fn path_lanes(path: &[Segment]) -> Vec<PathLane> {
    let mut lanes: Vec<PathLane> = Vec::new();
    let mut ts: Vec<i32> = path.iter().map(|s| s.timeline).collect();
    ts.sort_unstable();
    ts.dedup();
    lanes.extend(ts.iter().map(|&timeline| PathLane {
        timeline,
        ..PathLane::default()
    }));
    for s in path {
        let Ok(k) = ts.binary_search(&s.timeline) else {
            continue;
        };
        let l = &mut lanes[k];
        let cum = match l.cum.last() {
            Some(&c) => c + (l.end[l.end.len() - 1] - l.start[l.start.len() - 1]),
            None => 0.0,
        };
        l.start.push(s.start);
        l.end.push(s.end);
        l.cum.push(cum);
    }
    lanes
}
