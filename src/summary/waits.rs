//! The wait states and the critical path in a summary (spec/queries.md
//! §6.7): per row and column the seconds of each wait-state pattern, from a
//! [`WaitIndex`] (spec/waits.md), so that a picture's area of waiting equals
//! `mpelog analyze --from --to`'s seconds for the window at any zoom.

use super::Summary;
use crate::analysis::Pattern;
use crate::waits::{WaitIndex, PATTERNS};
use rustc_hash::FxHashMap;

/// The seconds of one wait-state pattern in one cell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WaitShare {
    /// Row index.
    pub row: u32,
    /// Column.
    pub column: u32,
    /// The most specific pattern.
    pub pattern: Pattern,
    /// Seconds of the column.
    pub seconds: f64,
}

/// The time the critical path spends on a row in one column.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PathMark {
    /// Row index.
    pub row: u32,
    /// Column.
    pub column: u32,
    /// Seconds of the column on the path.
    pub seconds: f64,
}

/// Where the critical path moves between rows, one per column and pair of
/// rows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JumpMark {
    /// Column of the jump.
    pub column: u32,
    /// The row of the timeline that caused the wait.
    pub from_row: u32,
    /// The row of the waiting timeline the path continues on.
    pub to_row: u32,
    /// Time of the first such jump in the column.
    pub time: f64,
}

/// The waits of a summary: per cell the seconds of each pattern, the
/// critical path per cell and its jumps.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Waits {
    /// By row, column, then pattern (only positive ones).
    pub shares: Vec<WaitShare>,
    /// The critical path: by row then column.
    pub path: Vec<PathMark>,
    /// Its jumps, by column then rows: none when there are more than one
    /// per [`JUMP_COLUMNS`] columns (too many to tell apart).
    pub jumps: Vec<JumpMark>,
}

/// A cell's wait shares as [`Summary::write_json`] and
/// [`Summary::write_bin`] write them (spec/queries.md §6.7): at most
/// [`WAIT_SHARES`] patterns, the largest, by code ascending, then the rest
/// summed as one share of code [`OTHER_WAITS`]; each share in the format's
/// units, rounded, and left out when it rounds to 0.
pub const WAIT_SHARES: usize = 4;

/// The code of the share that sums a cell's smaller patterns past the
/// [`WAIT_SHARES`] largest (no pattern: drawn in a neutral hatch).
pub const OTHER_WAITS: u8 = 255;

/// A summary keeps (and the JSON and binary forms write, `render` draws) a
/// window's jumps only while there are at most one per this many columns.
pub const JUMP_COLUMNS: usize = 8;

/// With more rows with cells than this, a summary's wait shares and critical
/// path are averaged over bins of columns (spec/queries.md §6.7).
pub const WAIT_ROWS: usize = 16;

/// The columns per bin of the waits of a summary of `rows` rows with cells
/// and `columns` columns: 1 up to [`WAIT_ROWS`] rows, else the least power of
/// two at least `rows / WAIT_ROWS` (at most `columns`).
pub(super) fn wait_bin(rows: usize, columns: usize) -> usize {
    let mut bin = 1;
    while rows > WAIT_ROWS * bin && bin < columns {
        bin *= 2;
    }
    bin
}

/// `shares` (by row, column, pattern) averaged over bins of `bin` columns:
/// each column of a bin (of the `columns`) holds, per pattern, the bin's
/// seconds divided by its columns, so that the area is kept and equal
/// neighbours make one run.
fn binned_shares(shares: &[WaitShare], bin: usize, columns: usize) -> Vec<WaitShare> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < shares.len() {
        let (row, b) = (shares[i].row, shares[i].column as usize / bin);
        let mut sums = [0.0f64; PATTERNS];
        while i < shares.len() && shares[i].row == row && shares[i].column as usize / bin == b {
            sums[shares[i].pattern.index()] += shares[i].seconds;
            i += 1;
        }
        let (lo, hi) = (b * bin, ((b + 1) * bin).min(columns));
        let k = (hi - lo) as f64;
        for c in lo..hi {
            for (p, &x) in sums.iter().enumerate() {
                if x > 0.0 {
                    out.push(WaitShare {
                        row,
                        column: c as u32,
                        pattern: Pattern::ALL[p],
                        seconds: x / k,
                    });
                }
            }
        }
    }
    out
}

/// `path` (by row then column) averaged over bins of `bin` columns, as
/// [`binned_shares`].
fn binned_path(path: &[PathMark], bin: usize, columns: usize) -> Vec<PathMark> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < path.len() {
        let (row, b) = (path[i].row, path[i].column as usize / bin);
        let mut sum = 0.0;
        while i < path.len() && path[i].row == row && path[i].column as usize / bin == b {
            sum += path[i].seconds;
            i += 1;
        }
        let (lo, hi) = (b * bin, ((b + 1) * bin).min(columns));
        let k = (hi - lo) as f64;
        out.extend((lo..hi).map(|c| PathMark {
            row,
            column: c as u32,
            seconds: sum / k,
        }));
    }
    out
}

/// A cell's encoded wait shares: `(code, units)` pairs, how many are set.
pub(super) type WaitKey = ([(u8, u32); WAIT_SHARES + 1], usize);

/// The [`WaitKey`] of one cell's `shares` (sorted by pattern), `units`
/// converting seconds to the format's rounded units: the [`WAIT_SHARES`]
/// largest (ties: the smaller code) kept, the others summed as one share of
/// [`OTHER_WAITS`] (when there are more than `WAIT_SHARES + 1`); no
/// allocation, so that a run of cells costs no heap.
pub(super) fn wait_key(shares: &[WaitShare], units: impl Fn(f64) -> u32) -> WaitKey {
    let mut out: WaitKey = ([(0, 0); WAIT_SHARES + 1], 0);
    let push = |out: &mut WaitKey, code: u8, seconds: f64| {
        let u = units(seconds);
        if u > 0 {
            out.0[out.1] = (code, u);
            out.1 += 1;
        }
    };
    if shares.len() <= WAIT_SHARES + 1 {
        for s in shares {
            push(&mut out, s.pattern.index() as u8, s.seconds);
        }
        return out;
    }
    // The WAIT_SHARES largest, by a partial selection over at most
    // PATTERNS shares.
    let mut top: [usize; WAIT_SHARES] = [usize::MAX; WAIT_SHARES];
    for i in 0..shares.len() {
        let mut k = i;
        for slot in top.iter_mut() {
            if *slot == usize::MAX {
                *slot = k;
                break;
            }
            if shares[k].seconds > shares[*slot].seconds {
                std::mem::swap(slot, &mut k);
            }
        }
    }
    top.sort_unstable();
    let mut rest = 0.0;
    let mut t = 0;
    for (i, s) in shares.iter().enumerate() {
        if t < WAIT_SHARES && top[t] == i {
            t += 1;
            push(&mut out, s.pattern.index() as u8, s.seconds);
        } else {
            rest += s.seconds;
        }
    }
    push(&mut out, OTHER_WAITS, rest);
    out
}

impl Waits {
    /// Per pattern, the seconds of `row` summed over its columns.
    ///
    /// ```
    /// let w = mpelog::summary::Waits::default();
    /// assert!(w.of_row(0).is_empty());
    /// ```
    pub fn of_row(&self, row: u32) -> std::collections::BTreeMap<Pattern, f64> {
        let mut out = std::collections::BTreeMap::new();
        let a = self.shares.partition_point(|s| s.row < row);
        for s in self.shares[a..].iter().take_while(|s| s.row == row) {
            *out.entry(s.pattern).or_insert(0.0) += s.seconds;
        }
        out
    }
}

impl Summary {
    /// The row of each timeline: the row whose lines hold the line ID that
    /// names it (spec/analysis.md §3.1: a timeline is named by its smallest
    /// line ID).
    fn row_of_line(&self) -> FxHashMap<i32, u32> {
        let mut m = FxHashMap::default();
        for (r, row) in self.rows.iter().enumerate() {
            for &l in &row.lines {
                m.insert(l, r as u32);
            }
        }
        m
    }

    /// Adds the wait states and the critical path of `index` in the
    /// summary's window ([`Summary::waits`]): each timeline's on the row that
    /// shows its line, for the rows the summary has cells for. Cost: the
    /// index's [`cells_of`](WaitIndex::cells_of) for those timelines, and the
    /// path's segments in the window.
    ///
    /// ```
    /// use mpelog::analysis::Pattern;
    /// use mpelog::waits::{Wait, WaitIndex};
    /// # use mpelog::summary::Summary;
    /// # use slog2_format::{convert::clog2_to_slog2, Slog2Reader, WindowBuf};
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let mut r = Slog2Reader::new(Cursor::new(out.into_inner()))?;
    /// # let legend = r.category_list().to_vec();
    /// # let view = r.line_id_maps().and_then(|m| m.value.maps.first().cloned());
    /// # let mut buf = WindowBuf::new();
    /// # mpelog::summary::query(&mut r, &mut buf, 0.0, 1.0, 100)?;
    /// let mut s = Summary::of_window(&buf, &legend, view.as_ref(), 0.0, 1.0, 100);
    /// let w = Wait { timeline: 1, start: 0.25, end: 0.5, pattern: Pattern::LateSender, partner: Some(0), cause: 0.5, call: 0 };
    /// s.add_waits(&WaitIndex::new(vec![w], vec![], vec![], (0.0, 1.0), 0, 64));
    /// let waits = s.waits.as_ref().unwrap();
    /// assert!((waits.of_row(1)[&Pattern::LateSender] - 0.25).abs() < 1e-12);
    /// assert_eq!(waits.shares.len(), 25); // columns 25 to 49
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_waits(&mut self, index: &WaitIndex) {
        let rows = self.row_of_line();
        let shown = self.cell_rows.clone();
        let timelines: Vec<i32> = index
            .timelines()
            .into_iter()
            .filter(|t| rows.get(t).is_some_and(|&r| shown.contains(&(r as usize))))
            .collect();
        let cells = index.cells_of(self.from, self.to, self.columns, Some(&timelines));
        let mut out = Waits::default();
        for rc in &cells.rows {
            let Some(&row) = rows.get(&rc.timeline) else {
                continue;
            };
            out.shares.extend(rc.cells.iter().map(|c| WaitShare {
                row,
                column: c.column,
                pattern: c.pattern,
                seconds: c.seconds,
            }));
        }
        // Already in order when rows follow the timelines (the Process
        // View): then no sort.
        let key = |s: &WaitShare| (s.row, s.column, s.pattern.index());
        if !out.shares.is_sorted_by_key(key) {
            out.shares.sort_by_key(key);
        }
        // The critical path per cell: per shown row, the columns of each
        // of its timelines' segments (the index's per-timeline cumulative
        // seconds: O(columns) per row however many segments the window
        // holds), into one dense row of columns.
        let n = self.columns as usize;
        let w = self.column_width();
        let column_of = |t: f64| (((t - self.from) / w).max(0.0) as usize).min(n - 1);
        let mut by_row: Vec<(u32, i32)> = index
            .path_timelines()
            .filter_map(|t| rows.get(&t).map(|&r| (r, t)))
            .filter(|(r, _)| shown.contains(&(*r as usize)))
            .collect();
        by_row.sort_unstable();
        let mut acc = vec![0.0f64; if by_row.is_empty() { 0 } else { n }];
        let mut i = 0;
        while i < by_row.len() {
            let row = by_row[i].0;
            while i < by_row.len() && by_row[i].0 == row {
                index.add_path_columns(by_row[i].1, self.from, self.to, &mut acc);
                i += 1;
            }
            for (c, a) in acc.iter_mut().enumerate() {
                if *a > 0.0 {
                    out.path.push(PathMark {
                        row,
                        column: c as u32,
                        seconds: *a,
                    });
                }
                *a = 0.0;
            }
        }
        // Jumps: the first per column and pair of rows, in one pass over
        // the segments in the window (time order, so the columns never go
        // back); the row of a timeline looked up only when it changes. More
        // than one per JUMP_COLUMNS columns, and none is kept (nor drawn):
        // the pass stops there, so a window of a path that moves often costs
        // a few hundred segments, not all of them.
        let segs = index.path();
        let a = segs.partition_point(|s| s.end <= self.from);
        let b = segs.partition_point(|s| s.start < self.to).max(a);
        let jump_cap = n / JUMP_COLUMNS;
        let (mut jcol, mut jseen): (u32, Vec<(u32, u32)>) = (0, Vec::new());
        let mut prev: Option<(i32, Option<u32>)> = a
            .checked_sub(1)
            .map(|i| (segs[i].timeline, rows.get(&segs[i].timeline).copied()));
        for s in &segs[a..b] {
            let here = match prev {
                Some((t, r)) if t == s.timeline => r,
                _ => rows.get(&s.timeline).copied(),
            };
            if let Some((pt, Some(ra))) = prev {
                if pt != s.timeline && s.start >= self.from && s.start < self.to {
                    if let Some(rb) = here {
                        let column = column_of(s.start) as u32;
                        if column != jcol {
                            jcol = column;
                            jseen.clear();
                        }
                        if !jseen.contains(&(ra, rb)) {
                            jseen.push((ra, rb));
                            if out.jumps.len() == jump_cap {
                                out.jumps.clear();
                                break;
                            }
                            out.jumps.push(JumpMark {
                                column,
                                from_row: ra,
                                to_row: rb,
                                time: s.start,
                            });
                        }
                    }
                }
            }
            prev = Some((s.timeline, here));
        }
        out.path.sort_by_key(|m| (m.row, m.column));
        out.jumps.sort_by(|x, y| {
            (x.column, x.from_row, x.to_row).cmp(&(y.column, y.from_row, y.to_row))
        });
        // More rows than WAIT_ROWS: the shares and the path averaged over
        // bins of columns, so that they cost what WAIT_ROWS rows' do.
        let bin = wait_bin(shown.len(), n);
        if bin > 1 {
            out.shares = binned_shares(&out.shares, bin, n);
            out.path = binned_path(&out.path, bin, n);
        }
        self.waits = Some(out);
    }

    /// Runs of equal neighbouring cells of the waits, rounded as `key`
    /// makes them: `run(row, column, length, key)`, rows and columns
    /// ascending (cells without waits make no run).
    pub(super) fn for_each_wait_run<K: PartialEq>(
        &self,
        mut key: impl FnMut(&[WaitShare]) -> K,
        mut run: impl FnMut(u32, u32, u32, &K),
    ) {
        let Some(w) = &self.waits else {
            return;
        };
        let s = &w.shares;
        let mut i = 0;
        let mut open: Option<(u32, u32, u32, K)> = None;
        while i < s.len() {
            let mut j = i + 1;
            while j < s.len() && s[j].row == s[i].row && s[j].column == s[i].column {
                j += 1;
            }
            let k = key(&s[i..j]);
            let (row, col) = (s[i].row, s[i].column);
            match &mut open {
                Some((r, c, len, kk)) if *r == row && *c + *len == col && *kk == k => *len += 1,
                _ => {
                    if let Some((r, c, len, kk)) = open.take() {
                        run(r, c, len, &kk);
                    }
                    open = Some((row, col, 1, k));
                }
            }
            i = j;
        }
        if let Some((r, c, len, kk)) = open {
            run(r, c, len, &kk);
        }
    }

    /// The jumps that the JSON and binary forms write (spec/queries.md
    /// §6.7): all of them while there are at most one per [`JUMP_COLUMNS`]
    /// columns, else none (a client draws connectors only while they are
    /// that few, as it draws messages' lines, §6.4: more could not be told
    /// apart), so that a crowded window's answer does not carry them.
    pub(super) fn written_jumps(&self) -> &[JumpMark] {
        match &self.waits {
            Some(w) if w.jumps.len() <= self.columns as usize / JUMP_COLUMNS => &w.jumps,
            _ => &[],
        }
    }

    /// Runs of the critical path's cells equal at `key`'s rounding.
    pub(super) fn for_each_path_run<K: PartialEq>(
        &self,
        key: impl Fn(f64) -> K,
        mut run: impl FnMut(u32, u32, u32, &K),
    ) {
        let Some(w) = &self.waits else {
            return;
        };
        let mut open: Option<(u32, u32, u32, K)> = None;
        for m in &w.path {
            let k = key(m.seconds);
            match &mut open {
                Some((r, c, len, kk)) if *r == m.row && *c + *len == m.column && *kk == k => {
                    *len += 1
                }
                _ => {
                    if let Some((r, c, len, kk)) = open.take() {
                        run(r, c, len, &kk);
                    }
                    open = Some((m.row, m.column, 1, k));
                }
            }
        }
        if let Some((r, c, len, kk)) = open {
            run(r, c, len, &kk);
        }
    }
}
