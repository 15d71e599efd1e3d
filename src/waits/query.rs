//! Window queries on a [`WaitIndex`]: per row, column and pattern seconds,
//! the worst instances, the critical path (spec/waits.md §4).

use super::fine::{gallop, FINE};
use super::{Jump, Lane, Segment, Wait, WaitIndex, PATTERNS};
use crate::analysis::Pattern;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// The seconds of one pattern in one column of a row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellWait {
    /// The column (0: the window's first).
    pub column: u32,
    /// The pattern (most specific).
    pub pattern: Pattern,
    /// Seconds of the column in that pattern's waits.
    pub seconds: f64,
}

/// One timeline's cells: the columns with a wait, by column then pattern.
#[derive(Debug, Clone, PartialEq)]
pub struct RowCells {
    /// The timeline.
    pub timeline: i32,
    /// Its non-empty cells, by column, then pattern.
    pub cells: Vec<CellWait>,
}

/// Per timeline, column and pattern, the seconds of the waits in a window
/// ([`WaitIndex::cells`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Cells {
    /// Start of the window.
    pub from: f64,
    /// End of the window.
    pub to: f64,
    /// How many columns (of `(to − from) / columns` seconds each).
    pub columns: u32,
    /// The timelines asked for that have waits, ascending.
    pub rows: Vec<RowCells>,
}

impl Cells {
    /// Per pattern, the seconds of `timeline` summed over the columns.
    ///
    /// ```
    /// use mpelog::analysis::Pattern;
    /// use mpelog::waits::{Wait, WaitIndex};
    /// let w = Wait { timeline: 0, start: 1.0, end: 3.0, pattern: Pattern::LateSender, partner: Some(1), cause: 3.0, call: 1 };
    /// let ix = WaitIndex::new(vec![w], vec![], vec![], (0.0, 4.0), 0, 64);
    /// let c = ix.cells(0.0, 2.0, 10);
    /// assert!((c.of_timeline(0)[&Pattern::LateSender] - 1.0).abs() < 1e-12);
    /// ```
    pub fn of_timeline(&self, timeline: i32) -> std::collections::BTreeMap<Pattern, f64> {
        let mut out = std::collections::BTreeMap::new();
        if let Some(r) = self.rows.iter().find(|r| r.timeline == timeline) {
            for c in &r.cells {
                *out.entry(c.pattern).or_insert(0.0) += c.seconds;
            }
        }
        out
    }
}

/// The critical path in a window ([`WaitIndex::critical_path`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Path {
    /// Its segments clipped to the window, in time order.
    pub segments: Vec<Segment>,
    /// Where it moves between timelines inside the window.
    pub jumps: Vec<Jump>,
}

/// The seconds of each pattern of `lane`'s waits before `t`
/// (`Σ |[start, end) ∩ (−∞, t)|`) into `out`, one per pattern of the lane's
/// fine level (`fine.patterns`), given `nb`, the number of fine entries that
/// start before `t`: the fine level's sums before the entry that holds `t`,
/// that entry's waits (at most [`FINE`]), less what waits of earlier entries
/// reach past `t`.
fn before(lane: &Lane, nb: usize, t: f64, out: &mut [f64]) {
    let f = &lane.fine;
    let Some(b) = nb.checked_sub(1) else {
        out.fill(0.0);
        return;
    };
    let np = f.patterns.len();
    out.copy_from_slice(&f.before[b * np..(b + 1) * np]);
    let lo = b * FINE;
    for w in &lane.waits[lo..(lo + FINE).min(lane.waits.len())] {
        if w.start >= t {
            break;
        }
        out[f.slot[w.pattern.index()] as usize] += w.end.min(t) - w.start;
    }
    // Waits of earlier entries that end after t (none when waits are
    // disjoint): their part after t is not before t.
    let mut k = b;
    while k > 0 && f.reach[k - 1] > t {
        k -= 1;
        let lo = k * FINE;
        for w in &lane.waits[lo..(lo + FINE).min(lane.waits.len())] {
            if w.end > t {
                out[f.slot[w.pattern.index()] as usize] -= w.end - t;
            }
        }
    }
}

/// The index of the first wait of `lane` that may overlap `[t, …)`: the
/// first of the earliest block whose reach passes `t`.
fn first_reaching(lane: &Lane, block: usize, t: f64) -> usize {
    lane.dir.partition_point(|b| b.reach <= t) * block
}

/// The index of the first wait of `lane` starting at or after `t`.
fn first_from(lane: &Lane, block: usize, t: f64) -> usize {
    let nb = lane.dir.partition_point(|b| b.first < t);
    let Some(b) = nb.checked_sub(1) else {
        return 0;
    };
    let lo = b * block;
    let hi = (lo + block).min(lane.waits.len());
    lo + lane.waits[lo..hi].partition_point(|w| w.start < t)
}

/// A wait ranked by its seconds inside the window (then earlier, then the
/// smaller timeline first).
#[derive(Debug, Clone, Copy)]
struct Ranked(f64, Wait);

impl PartialEq for Ranked {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Ranked {}
impl PartialOrd for Ranked {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Ranked {
    /// The better-ranked is the greater... reversed, so that a max-heap's top
    /// is the worst kept.
    fn cmp(&self, o: &Self) -> Ordering {
        o.0.total_cmp(&self.0)
            .then(self.1.start.total_cmp(&o.1.start))
            .then(self.1.timeline.cmp(&o.1.timeline))
    }
}

impl WaitIndex {
    /// Per timeline, pixel column and pattern, the seconds of the waits in
    /// `[from, to)` cut in `columns` equal columns (at least 1).
    ///
    /// A timeline whose waits in the window are few (at most twice the
    /// columns) has them spread over the columns one by one; else the
    /// `columns + 1` boundaries are walked in order with a cursor over the
    /// fine level's starts (one entry per 8 waits, computed when the index
    /// is built or read: a gallop from the previous boundary's entry, so a
    /// column spanning many waits costs `O(log waits)`, not a read of them)
    /// and at most 8 waits read per boundary: `O(timelines × columns)`,
    /// whatever the number of waits in the window.
    ///
    /// ```
    /// use mpelog::analysis::Pattern;
    /// use mpelog::waits::{Wait, WaitIndex};
    /// let w = |start, end, pattern| Wait { timeline: 0, start, end, pattern, partner: Some(1), cause: end, call: 1 };
    /// let ix = WaitIndex::new(vec![w(1.0, 3.0, Pattern::LateSender), w(3.5, 4.0, Pattern::WaitAtBarrier)], vec![], vec![], (0.0, 4.0), 0, 64);
    /// let c = ix.cells(0.0, 4.0, 4);
    /// let cells: Vec<_> = c.rows[0].cells.iter().map(|c| (c.column, c.pattern, c.seconds)).collect();
    /// assert_eq!(cells, [(1, Pattern::LateSender, 1.0), (2, Pattern::LateSender, 1.0), (3, Pattern::WaitAtBarrier, 0.5)]);
    /// ```
    pub fn cells(&self, from: f64, to: f64, columns: u32) -> Cells {
        self.cells_of(from, to, columns, None)
    }

    /// [`cells`](Self::cells) of the timelines `only` (every one: `None`).
    ///
    /// ```
    /// use mpelog::analysis::Pattern;
    /// use mpelog::waits::{Wait, WaitIndex};
    /// let w = |timeline| Wait { timeline, start: 1.0, end: 2.0, pattern: Pattern::LateSender, partner: Some(9), cause: 2.0, call: 1 };
    /// let ix = WaitIndex::new(vec![w(0), w(1), w(2)], vec![], vec![], (0.0, 4.0), 0, 64);
    /// let c = ix.cells_of(0.0, 4.0, 8, Some(&[2, 5]));
    /// assert_eq!(c.rows.iter().map(|r| r.timeline).collect::<Vec<_>>(), [2]);
    /// ```
    pub fn cells_of(&self, from: f64, to: f64, columns: u32, only: Option<&[i32]>) -> Cells {
        let columns = columns.clamp(1, crate::summary::MAX_COLUMNS);
        let mut out = Cells {
            from,
            to,
            columns,
            rows: Vec::new(),
        };
        if !(from.is_finite() && to.is_finite() && to > from) {
            return out;
        }
        let n = columns as usize;
        let w = (to - from) / f64::from(columns);
        let edge = |c: usize| if c == n { to } else { from + c as f64 * w };
        // Per column: the seconds of each pattern and which are set.
        let mut acc = vec![[0.0f64; PATTERNS]; n];
        let mut set = vec![0u16; n];
        // Per boundary: its fine entry, and the seconds before it per
        // pattern of the lane (reused from lane to lane).
        let (mut entries, mut sums) = (Vec::with_capacity(n + 1), Vec::new());
        for lane in &self.lanes {
            if only.is_some_and(|o| !o.contains(&lane.timeline)) {
                continue;
            }
            let a = first_reaching(lane, self.block, from);
            let b = first_from(lane, self.block, to);
            if b <= a {
                continue;
            }
            let (mut c_lo, mut c_hi) = (n, 0);
            if b - a <= 2 * n {
                for wt in &lane.waits[a..b] {
                    let (s, e) = (wt.start.max(from), wt.end.min(to));
                    if e <= s {
                        continue;
                    }
                    let p = wt.pattern.index();
                    let c0 = (((s - from) / w) as usize).min(n - 1);
                    let mut c = c0;
                    loop {
                        let (x0, x1) = (edge(c), edge(c + 1));
                        let part = e.min(x1) - s.max(x0);
                        if part > 0.0 {
                            acc[c][p] += part;
                            set[c] |= 1 << p;
                            c_lo = c_lo.min(c);
                            c_hi = c_hi.max(c + 1);
                        }
                        c += 1;
                        if c >= n || edge(c) >= e {
                            break;
                        }
                    }
                }
            } else {
                // Three passes, so that the loads of the second (the
                // fine level's sums and at most 8 waits per boundary, cold
                // in a large index) do not wait on each other: each
                // boundary's entry, found by a gallop over the dense
                // starts; the seconds before each boundary; their
                // differences.
                let np = lane.fine.patterns.len();
                entries.clear();
                let mut cursor = 0;
                for c in 0..=n {
                    cursor = gallop(&lane.fine.first, cursor, edge(c));
                    entries.push(cursor);
                }
                sums.clear();
                sums.resize((n + 1) * np, 0.0);
                for (c, (&nb, out)) in entries.iter().zip(sums.chunks_exact_mut(np)).enumerate() {
                    before(lane, nb, edge(c), out);
                }
                for c in 0..n {
                    let (lo, hi) = (
                        &sums[c * np..(c + 1) * np],
                        &sums[(c + 1) * np..(c + 2) * np],
                    );
                    for (j, &p) in lane.fine.patterns.iter().enumerate() {
                        let p = p as usize;
                        let d = hi[j] - lo[j];
                        if d > 0.0 {
                            acc[c][p] = d;
                            set[c] |= 1 << p;
                            c_lo = c_lo.min(c);
                            c_hi = c_hi.max(c + 1);
                        }
                    }
                }
            }
            let mut row = RowCells {
                timeline: lane.timeline,
                cells: Vec::with_capacity(c_hi.saturating_sub(c_lo)),
            };
            for c in c_lo..c_hi {
                let mut bits = set[c];
                while bits != 0 {
                    let p = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    row.cells.push(CellWait {
                        column: c as u32,
                        pattern: Pattern::ALL[p],
                        seconds: acc[c][p],
                    });
                    acc[c][p] = 0.0;
                }
                set[c] = 0;
            }
            if !row.cells.is_empty() {
                out.rows.push(row);
            }
        }
        out
    }

    /// Adds to `acc[c]` the seconds the critical path spends on `timeline`
    /// in column `c` of `[from, to)` cut in `acc.len()` equal columns (the
    /// last one ending at `to`). A timeline with few segments in the window
    /// (at most twice the columns) has them spread one by one; else the
    /// column boundaries are walked with a cursor over its segments'
    /// cumulative seconds: `O(columns)`, whatever the number of segments.
    pub(crate) fn add_path_columns(&self, timeline: i32, from: f64, to: f64, acc: &mut [f64]) {
        let n = acc.len();
        let Ok(k) = self
            .path_lanes
            .binary_search_by_key(&timeline, |l| l.timeline)
        else {
            return;
        };
        if n == 0 || to.partial_cmp(&from) != Some(std::cmp::Ordering::Greater) {
            return;
        }
        let lane = &self.path_lanes[k];
        let w = (to - from) / n as f64;
        let edge = |c: usize| if c == n { to } else { from + c as f64 * w };
        let r = lane.within(from, to);
        if r.len() <= 2 * n {
            for i in r {
                let (x, y) = (lane.start[i].max(from), lane.end[i].min(to));
                if y <= x {
                    continue;
                }
                let mut c = (((x - from) / w).max(0.0) as usize).min(n - 1);
                loop {
                    let part = y.min(edge(c + 1)) - x.max(edge(c));
                    if part > 0.0 {
                        acc[c] += part;
                    }
                    c += 1;
                    if c >= n || edge(c) >= y {
                        break;
                    }
                }
            }
            return;
        }
        let mut cursor = r.start;
        let mut lo = lane.before(from, &mut cursor);
        for (c, a) in acc.iter_mut().enumerate() {
            let hi = lane.before(edge(c + 1), &mut cursor);
            if hi > lo {
                *a += hi - lo;
            }
            lo = hi;
        }
    }

    /// The `n` worst waits overlapping `[from, to)`, ranked by their seconds
    /// inside it (ties: the earlier, then the smaller timeline first), each
    /// with those seconds. Blocks whose longest wait cannot enter the list
    /// are skipped unread.
    ///
    /// ```
    /// use mpelog::analysis::Pattern;
    /// use mpelog::waits::{Wait, WaitIndex};
    /// let w = |timeline, start, end| Wait { timeline, start, end, pattern: Pattern::LateSender, partner: Some(9), cause: end, call: 1 };
    /// let ix = WaitIndex::new(vec![w(0, 1.0, 2.0), w(1, 0.0, 3.0), w(2, 5.0, 9.0)], vec![], vec![], (0.0, 9.0), 0, 64);
    /// let worst = ix.instances(0.0, 6.0, 2);
    /// assert_eq!(worst.iter().map(|(s, w)| (*s, w.timeline)).collect::<Vec<_>>(), [(3.0, 1), (1.0, 0)]);
    /// ```
    pub fn instances(&self, from: f64, to: f64, n: usize) -> Vec<(f64, Wait)> {
        let mut heap: BinaryHeap<Ranked> = BinaryHeap::new();
        if n == 0 || to.partial_cmp(&from) != Some(std::cmp::Ordering::Greater) {
            return Vec::new();
        }
        for lane in &self.lanes {
            let a = first_reaching(lane, self.block, from);
            let b = first_from(lane, self.block, to);
            let mut i = a;
            while i < b {
                let k = i / self.block;
                let block_end = ((k + 1) * self.block).min(b);
                if heap.len() == n && heap.peek().is_some_and(|m| lane.dir[k].longest < m.0) {
                    i = block_end;
                    continue;
                }
                for wt in &lane.waits[i..block_end] {
                    let s = wt.end.min(to) - wt.start.max(from);
                    if s > 0.0 {
                        heap.push(Ranked(s, *wt));
                        if heap.len() > n {
                            heap.pop();
                        }
                    }
                }
                i = block_end;
            }
        }
        let mut v: Vec<Ranked> = heap.into_vec();
        v.sort();
        v.into_iter().map(|r| (r.0, r.1)).collect()
    }

    /// The critical path's segments in `[from, to)` (clipped to it) and its
    /// jumps between timelines inside it (`from ≤ time < to`).
    ///
    /// ```
    /// use mpelog::waits::{Segment, WaitIndex};
    /// let seg = |timeline, start, end| Segment { timeline, start, end };
    /// let ix = WaitIndex::new(vec![], vec![seg(0, 0.0, 2.0), seg(1, 2.0, 5.0)], vec![], (0.0, 5.0), 0, 64);
    /// let p = ix.critical_path(1.0, 3.0);
    /// assert_eq!(p.segments, [seg(0, 1.0, 2.0), seg(1, 2.0, 3.0)]);
    /// assert_eq!((p.jumps[0].time, p.jumps[0].from, p.jumps[0].to), (2.0, 0, 1));
    /// ```
    pub fn critical_path(&self, from: f64, to: f64) -> Path {
        let mut out = Path::default();
        if to.partial_cmp(&from) != Some(std::cmp::Ordering::Greater) {
            return out;
        }
        let a = self.path.partition_point(|s| s.end <= from);
        let b = self.path.partition_point(|s| s.start < to);
        for i in a..b.max(a) {
            let s = self.path[i];
            let (x, y) = (s.start.max(from), s.end.min(to));
            if y > x {
                out.segments.push(Segment {
                    timeline: s.timeline,
                    start: x,
                    end: y,
                });
            }
            if i > 0 {
                let p = self.path[i - 1];
                if p.timeline != s.timeline && s.start >= from && s.start < to {
                    out.jumps.push(Jump {
                        time: s.start,
                        from: p.timeline,
                        to: s.timeline,
                    });
                }
            }
        }
        out
    }
}
