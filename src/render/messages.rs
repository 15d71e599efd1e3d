//! The messages of a picture (spec/queries.md §6.4 step 3): lines between
//! the middles of their rows when they are few enough to be seen one by one,
//! else ticks at the edges of the rows, which never reach a middle line.

use super::{n, LEFT};
use crate::summary::{ArrowStyle, Summary, TickMark};
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The colour of summary lines and of ticks.
pub(super) const TICK: &str = "#ffff00";

/// The tallest a tick may be in a row `rh` pixels high: 15 % of the row,
/// from 3 to 8 pixels (its middle line is half the row away).
///
/// ```
/// # use mpelog::render::tick_reach;
/// assert_eq!(tick_reach(40.0), 6.0);
/// assert_eq!(tick_reach(200.0), 8.0);
/// assert_eq!(tick_reach(12.0), 3.0);
/// ```
pub fn tick_reach(rh: f64) -> f64 {
    (0.15 * rh).clamp(3.0, 8.0)
}

/// How far a tick of `count` message ends reaches into its row, in a picture
/// whose largest tick has `most` and whose rows are `rh` pixels high: 2
/// pixels for one message end, [`tick_reach`] for `most`, on a log scale
/// between.
///
/// ```
/// # use mpelog::render::{tick_height, tick_reach};
/// assert_eq!(tick_height(1, 1000, 40.0), 2.0);
/// assert_eq!(tick_height(1000, 1000, 40.0), tick_reach(40.0));
/// assert!(tick_height(30, 1000, 40.0) < tick_height(31, 1000, 40.0));
/// assert_eq!(tick_height(5, 5, 40.0), tick_reach(40.0));
/// ```
pub fn tick_height(count: u64, most: u64, rh: f64) -> f64 {
    let h = tick_reach(rh);
    if most <= 1 || count >= most {
        return h;
    }
    let f = (count.max(1) as f64).ln() / (most as f64).ln();
    2.0 + (h - 2.0) * f
}

/// Draws the summary's messages; `x` places a time, `row_top` a row.
pub(super) fn draw(
    s: &mut String,
    sum: &Summary,
    rh: f64,
    x: &dyn Fn(f64) -> f64,
    row_top: &dyn Fn(u32) -> f64,
) {
    match sum.arrow_style {
        ArrowStyle::Lines => lines(s, sum, rh, x, row_top),
        ArrowStyle::Ticks => ticks(s, sum, rh, row_top),
    }
}

/// Each mark a line between the middles of its rows: a real one white with
/// a head; one that shadows summarise (or of 4-column bins) faint yellow
/// without a head, once per pair of rows and of 4-pixel bins.
fn lines(
    s: &mut String,
    sum: &Summary,
    rh: f64,
    x: &dyn Fn(f64) -> f64,
    row_top: &dyn Fn(u32) -> f64,
) {
    let dense = sum.arrow_columns > 1;
    let mut seen_bins: BTreeSet<(u32, u32, i64, i64)> = BTreeSet::new();
    for a in &sum.arrows {
        let (x1, y1) = (x(a.start), row_top(a.from_row) + rh / 2.0);
        let (x2, y2) = (x(a.end), row_top(a.to_row) + rh / 2.0);
        if dense || a.summary {
            let bin = (
                a.from_row,
                a.to_row,
                ((x1 - LEFT) / 4.0).floor() as i64,
                ((x2 - LEFT) / 4.0).floor() as i64,
            );
            if !seen_bins.insert(bin) {
                continue;
            }
            let _ = writeln!(
                s,
                r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{TICK}" stroke-width="1" stroke-opacity="0.5"/>"##,
                n(x1),
                n(y1),
                n(x2),
                n(y2)
            );
        } else {
            let _ = writeln!(
                s,
                r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#ffffff" stroke-width="1" marker-end="url(#head)"/>"##,
                n(x1),
                n(y1),
                n(x2),
                n(y2)
            );
        }
    }
}

/// Each tick a yellow rectangle as wide as its bin at its row's edge, as
/// tall as [`tick_height`] says, with a title (a hover) that says what it
/// stands for.
fn ticks(s: &mut String, sum: &Summary, rh: f64, row_top: &dyn Fn(u32) -> f64) {
    let most = sum.ticks.iter().map(TickMark::count).max().unwrap_or(0);
    let w = sum.column_width();
    let _ = writeln!(s, r#"<g class="ticks">"#);
    for t in &sum.ticks {
        let h = tick_height(t.count(), most, rh);
        let top = row_top(t.row);
        let y = if t.bottom { top + rh - h } else { top };
        let width = sum
            .arrow_columns
            .min(sum.columns - t.column.min(sum.columns));
        let t0 = sum.from + f64::from(t.column) * w;
        let _ = writeln!(
            s,
            r#"<rect x="{}" y="{}" width="{width}" height="{}" fill="{TICK}"><title>{} messages sent, {} received in [{}, {}) s, with rows {}</title></rect>"#,
            n(LEFT + f64::from(t.column)),
            n(y),
            n(h),
            t.sent,
            t.received,
            t0,
            t0 + f64::from(sum.arrow_columns) * w,
            if t.bottom {
                "below (or this one)"
            } else {
                "above"
            },
        );
    }
    let _ = writeln!(s, "</g>");
}

/// The legend's line for ticks (`None` when the messages are lines): how
/// many message ends the shortest and the tallest tick stand for, and how
/// many messages the window holds.
pub(super) fn legend(sum: &Summary) -> Option<String> {
    if sum.arrow_style != ArrowStyle::Ticks {
        return None;
    }
    let most = sum.ticks.iter().map(TickMark::count).max().unwrap_or(0);
    let least = sum.ticks.iter().map(TickMark::count).min().unwrap_or(0);
    let messages: u64 = sum.ticks.iter().map(|t| t.sent).sum();
    Some(format!(
        "messages: {messages} sent in the window, drawn as ticks at the rows' edges, each {} px wide, from {least} (short) to {most} (tall) message ends each",
        sum.arrow_columns
    ))
}
