//! The wait states and the critical path in a summary (spec/queries.md
//! §6.7): per row and column the seconds of each wait-state pattern, from a
//! [`WaitIndex`] (spec/waits.md), so that a picture's area of waiting equals
//! `mpelog analyze --from --to`'s seconds for the window at any zoom.

use super::Summary;
use crate::analysis::Pattern;
use crate::waits::WaitIndex;
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
    /// Its jumps, by column then rows.
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

/// The JSON and binary forms write a window's jumps only while there are at
/// most one per this many columns ([`Summary`]'s `written_jumps`).
pub const JUMP_COLUMNS: usize = 8;

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
        // The critical path per cell, in one pass over its segments in the
        // window (sorted by start and disjoint, so their columns never go
        // back): the current column's marks, one per row it visits, are
        // kept in a short list and flushed when the column moves on. No
        // segment is copied and nothing is hashed per segment.
        let n = self.columns as usize;
        let w = self.column_width();
        let edge = |c: usize| {
            if c == n {
                self.to
            } else {
                self.from + c as f64 * w
            }
        };
        let column_of = |t: f64| (((t - self.from) / w).max(0.0) as usize).min(n - 1);
        let segs = index.path();
        let a = segs.partition_point(|s| s.end <= self.from);
        let b = segs.partition_point(|s| s.start < self.to).max(a);
        // The row of a timeline, the last one looked up kept.
        let mut last: Option<(i32, Option<u32>)> = None;
        let mut row_of = |t: i32| match last {
            Some((l, r)) if l == t => r,
            _ => {
                let r = rows.get(&t).copied();
                last = Some((t, r));
                r
            }
        };
        let (mut col, mut here): (usize, Vec<(u32, f64)>) = (0, Vec::new());
        let flush = |col: usize, here: &mut Vec<(u32, f64)>, path: &mut Vec<PathMark>| {
            path.extend(here.drain(..).map(|(row, seconds)| PathMark {
                row,
                column: col as u32,
                seconds,
            }));
        };
        // Jumps: the first per column and pair of rows (time order, so
        // the columns never go back either).
        let (mut jcol, mut jseen): (u32, Vec<(u32, u32)>) = (0, Vec::new());
        for i in a..b {
            let s = segs[i];
            if i > 0 {
                let p = segs[i - 1];
                if p.timeline != s.timeline && s.start >= self.from && s.start < self.to {
                    if let (Some(ra), Some(rb)) = (rows.get(&p.timeline), rows.get(&s.timeline)) {
                        let column = column_of(s.start) as u32;
                        if column != jcol {
                            jcol = column;
                            jseen.clear();
                        }
                        if !jseen.contains(&(*ra, *rb)) {
                            jseen.push((*ra, *rb));
                            out.jumps.push(JumpMark {
                                column,
                                from_row: *ra,
                                to_row: *rb,
                                time: s.start,
                            });
                        }
                    }
                }
            }
            let Some(row) = row_of(s.timeline) else {
                continue;
            };
            if !shown.contains(&(row as usize)) {
                continue;
            }
            let (x, y) = (s.start.max(self.from), s.end.min(self.to));
            if y <= x {
                continue;
            }
            let mut c = column_of(x);
            loop {
                let part = y.min(edge(c + 1)) - x.max(edge(c));
                if part > 0.0 {
                    if c != col {
                        flush(col, &mut here, &mut out.path);
                        col = c;
                    }
                    match here.iter_mut().find(|m| m.0 == row) {
                        Some(m) => m.1 += part,
                        None => here.push((row, part)),
                    }
                }
                c += 1;
                if c >= n || edge(c) >= y {
                    break;
                }
            }
        }
        flush(col, &mut here, &mut out.path);
        out.path.sort_by_key(|m| (m.row, m.column));
        out.jumps.sort_by(|x, y| {
            (x.column, x.from_row, x.to_row).cmp(&(y.column, y.from_row, y.to_row))
        });
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
