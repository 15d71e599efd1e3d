//! A summary's messages (spec/queries.md §6.3): arrow marks per pair of rows
//! and of column bins, the arrow style a picture draws them in, and, when
//! they are too many to be seen one by one, the ticks that stand for them at
//! the rows' edges.

use super::*;

/// How a picture draws a summary's messages (spec/queries.md §6.4 step 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ArrowStyle {
    /// Few enough to be seen one by one: each arrow mark is a line between
    /// the middles of its rows (a real one with a head), as Jumpshot draws
    /// them.
    Lines,
    /// Too many: no lines, but the [`Summary::ticks`] at the edges of the
    /// rows, which never reach a row's middle line.
    Ticks,
}

impl ArrowStyle {
    /// Its name in the JSON form: `"lines"` or `"ticks"`.
    ///
    /// ```
    /// use mpelog::summary::ArrowStyle;
    /// assert_eq!(ArrowStyle::Ticks.name(), "ticks");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            ArrowStyle::Lines => "lines",
            ArrowStyle::Ticks => "ticks",
        }
    }
}

/// Messages are drawn as lines while no row is *touched* (as its send row,
/// its receive row or a row between them) by more than `columns /
/// LINE_COLUMNS` of them: about one line every 8 pixels along a row at
/// most, few enough to be told apart (`p2p_n8` of the corpus, 228 messages
/// over 8 ranks, touches a row 103 times: lines from 824 columns on). A
/// steep line inks one or two pixels of each middle line it meets; more
/// messages are ticks, which ink none.
pub const LINE_COLUMNS: u32 = 8;

/// In the ticks style, the bins of [`Summary::ticks`](super::Summary) widen
/// (by doubling `arrow_columns`) until the rows with cells hold at most this
/// many ticks per column (both edges of every bin): 16 rows' at 4 columns.
pub const MAX_TICKS_PER_COLUMN: u64 = 8;

/// The messages with an end in one row, on one edge of it, in one bin of
/// [`Summary::arrow_columns`] columns: a tick of a picture whose
/// [`Summary::arrow_style`] is [`ArrowStyle::Ticks`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TickMark {
    /// Row index.
    pub row: u32,
    /// The row's bottom edge (the messages' other rows are below it, or are
    /// the row itself), or its top edge (above it).
    pub bottom: bool,
    /// The bin's first column.
    pub column: u32,
    /// Messages sent from this row in the bin (real arrows, and shadows'
    /// counts).
    pub sent: u64,
    /// Messages received in this row in the bin.
    pub received: u64,
}

impl TickMark {
    /// The message ends the tick stands for: sent and received.
    ///
    /// ```
    /// let t = mpelog::summary::TickMark { row: 0, bottom: true, column: 8, sent: 3, received: 4 };
    /// assert_eq!(t.count(), 7);
    /// ```
    pub fn count(&self) -> u64 {
        self.sent.saturating_add(self.received)
    }
}

/// An arrow (or an arrow shadow) before marking.
pub(super) struct RawArrow {
    /// The send's line (its index).
    pub(super) from: u32,
    /// The receive's line.
    pub(super) to: u32,
    /// Send time (a shadow's mean).
    pub(super) start: f64,
    /// Receive time (a shadow's mean).
    pub(super) end: f64,
    pub(super) category: i32,
    /// 1, or a shadow's real arrows.
    pub(super) count: u64,
    /// A shadow's box.
    pub(super) shadow: Option<(f64, f64)>,
}

/// The messages of a summary.
pub(super) struct Marks {
    pub(super) arrows: Vec<ArrowMark>,
    pub(super) arrow_columns: u32,
    pub(super) style: ArrowStyle,
    pub(super) ticks: Vec<TickMark>,
}

/// Where the arrows go: the row of each line, the number of rows, which rows
/// are shown, the window and its columns, and the column of a time.
pub(super) struct Layout<'a> {
    pub(super) row_of: &'a [u32],
    pub(super) rows: usize,
    pub(super) shown: &'a dyn Fn(u32) -> bool,
    pub(super) from: f64,
    pub(super) to: f64,
    pub(super) columns: u32,
    pub(super) col: &'a dyn Fn(f64) -> u32,
}

/// The message ends an arrow mark puts in each bin (by its first column):
/// a real arrow's end at `t`, `count` in its bin when `t` is in the window;
/// a shadow's ends spread evenly over its box `[a, b]`: the part in the
/// window, `count · |[a, b] ∩ window| / (b − a)` rounded, shared among the
/// bins in proportion to their part of the box, each bin the difference of
/// the rounded running totals (so they add up to that part). A shadow whose
/// box has no length is a real arrow at `a`.
fn spread(
    t: f64,
    shadow: Option<(f64, f64)>,
    count: u64,
    l: &Layout<'_>,
    arrow_columns: u32,
) -> Vec<(u32, u64)> {
    let bin_of = |t: f64| (l.col)(t) / arrow_columns * arrow_columns;
    let inside = |t: f64| l.from <= t && t <= l.to;
    let (a, b) = match shadow {
        Some((a, b)) if b > a => (a, b),
        Some((a, _)) => {
            return if inside(a) {
                vec![(bin_of(a), count)]
            } else {
                Vec::new()
            }
        }
        None => {
            return if inside(t) {
                vec![(bin_of(t), count)]
            } else {
                Vec::new()
            }
        }
    };
    let (lo, hi) = (a.max(l.from), b.min(l.to));
    if hi <= lo {
        return Vec::new();
    }
    let total = super::sweep::round(count as f64 * ((hi - lo) / (b - a)).min(1.0));
    let w = (l.to - l.from) / f64::from(l.columns);
    let (first, last) = (bin_of(lo), bin_of(hi));
    let mut out = Vec::new();
    let mut done = 0.0;
    let mut bin = first;
    while bin <= last {
        let end = l.from + f64::from(bin + arrow_columns) * w;
        let upto = if bin + arrow_columns > last {
            total
        } else {
            super::sweep::round(total * ((end.min(hi) - lo) / (hi - lo)).clamp(0.0, 1.0))
        };
        if upto > done {
            out.push((bin, (upto - done) as u64));
            done = upto;
        }
        bin += arrow_columns;
    }
    out
}

/// Marks `arrows` (spec/queries.md §6.3): per pair of rows and of column
/// bins; the style from the messages that touch each row; the ticks.
pub(super) fn marks(arrows: Vec<RawArrow>, l: &Layout<'_>) -> Marks {
    let arrow_columns: u32 = if arrows.len() as f64 > f64::from(l.columns) {
        4
    } else {
        1
    };
    // Messages touching each row (a difference array over the rows).
    let mut touch = vec![0i128; l.rows + 1];
    let mut kept = Vec::with_capacity(arrows.len());
    for a in arrows {
        let (from_row, to_row) = (l.row_of[a.from as usize], l.row_of[a.to as usize]);
        if !(l.shown)(from_row) && !(l.shown)(to_row) {
            continue;
        }
        let (lo, hi) = (from_row.min(to_row) as usize, from_row.max(to_row) as usize);
        touch[lo] += i128::from(a.count);
        touch[hi + 1] -= i128::from(a.count);
        kept.push((from_row, to_row, a));
    }
    let mut most = 0i128;
    let mut sum = 0i128;
    for d in &touch {
        sum += d;
        most = most.max(sum);
    }
    let style = if most <= i128::from(l.columns / LINE_COLUMNS) {
        ArrowStyle::Lines
    } else {
        ArrowStyle::Ticks
    };
    // Ticks: bins of `arrow_columns` columns, doubled while the rows shown
    // would hold more than MAX_TICKS_PER_COLUMN × columns of them (both
    // edges of every bin), so that ticks cost what 16 rows' do at 4 columns
    // whatever the rows (arrow marks, not written in this style, bin alike).
    let arrow_columns = if style == ArrowStyle::Ticks {
        let rows = (0..l.rows as u32).filter(|&r| (l.shown)(r)).count() as u64;
        let budget = MAX_TICKS_PER_COLUMN * u64::from(l.columns);
        let mut bin = arrow_columns;
        while rows * 2 * u64::from(l.columns.div_ceil(bin)) > budget && bin < l.columns {
            bin *= 2;
        }
        bin
    } else {
        arrow_columns
    };
    let mut ar: FxHashMap<(u32, u32, u32, u32), ArrowMark> = FxHashMap::default();
    let mut ticks: FxHashMap<(u32, bool, u32), (u64, u64)> = FxHashMap::default();
    for (from_row, to_row, a) in &kept {
        let (from_row, to_row, t0, t1, count) = (*from_row, *to_row, a.start, a.end, a.count);
        let (category, summary) = (a.category, a.shadow.is_some());
        let key = (
            from_row,
            to_row,
            (l.col)(t0) / arrow_columns,
            (l.col)(t1) / arrow_columns,
        );
        let e = ar.entry(key).or_insert(ArrowMark {
            from_row,
            to_row,
            start: t0,
            end: t1,
            category,
            count: 0,
            summary,
        });
        e.count += count;
        e.summary |= summary;
        if style == ArrowStyle::Ticks {
            // Each end on a row shown: on the edge that faces the other
            // end's row, in the bin of its time (a shadow's ends spread over
            // its box).
            let shadow = a.shadow;
            for (row, t, other, sent) in
                [(from_row, t0, to_row, true), (to_row, t1, from_row, false)]
            {
                if !(l.shown)(row) {
                    continue;
                }
                for (bin, n) in spread(t, shadow, count, l, arrow_columns) {
                    let e = ticks.entry((row, other >= row, bin)).or_insert((0, 0));
                    if sent {
                        e.0 += n;
                    } else {
                        e.1 += n;
                    }
                }
            }
        }
    }
    let mut ar: Vec<_> = ar.into_iter().collect();
    ar.sort_unstable_by_key(|(k, _)| *k);
    let mut ticks: Vec<TickMark> = ticks
        .into_iter()
        .map(|((row, bottom, column), (sent, received))| TickMark {
            row,
            bottom,
            column,
            sent,
            received,
        })
        .collect();
    ticks.sort_unstable_by_key(|t| (t.row, t.bottom, t.column));
    Marks {
        arrows: ar.into_iter().map(|(_, m)| m).collect(),
        arrow_columns,
        style,
        ticks,
    }
}

impl super::Summary {
    /// The arrow marks that the JSON and binary forms write (spec/queries.md
    /// §6.3): all of them in the `lines` style, none in the `ticks` style,
    /// where no line is drawn and the ticks count every message.
    pub(super) fn written_arrows(&self) -> &[ArrowMark] {
        match self.arrow_style {
            ArrowStyle::Lines => &self.arrows,
            _ => &[],
        }
    }
}
