//! The wait states and the critical path of a picture (spec/queries.md
//! §6.7): each cell's waiting part hatched in its patterns' colours from the
//! rows' edges towards their middles, the causes of the worst waits marked,
//! the critical path as a bar at the bottom edge of its rows with
//! connectors where it moves. A mask keeps every one of them off the 4
//! pixels around each row's middle line, so that line keeps its states'
//! colours.

use super::palette::{leans_right, pattern_colour, PATH_COLOUR, STRIPE_EDGE};
use super::{escape, n, LEFT, TOP};
use crate::analysis::Pattern;
use crate::summary::{Summary, JUMP_COLUMNS};
use crate::waits::{Wait, WaitIndex};
use std::fmt::Write as _;

/// Which parts of the waits a picture draws (`render --waits=hatch,causes,path`).
///
/// ```
/// use mpelog::render::WaitLayers;
/// assert_eq!(WaitLayers::parse("all"), Ok(WaitLayers::ALL));
/// let h = WaitLayers::parse("hatch").unwrap();
/// assert!(h.hatch && !h.causes && !h.path);
/// assert!(WaitLayers::parse("hatch,smoke").is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct WaitLayers {
    /// Each call's waiting part hatched in its pattern's colour.
    pub hatch: bool,
    /// The late send's arrow emphasised, a mark at a collective's latest
    /// arrival (for the worst waits at least a column wide).
    pub causes: bool,
    /// The critical path: bars at the rows' bottom edges and connectors.
    pub path: bool,
}

impl WaitLayers {
    /// Every layer.
    pub const ALL: WaitLayers = WaitLayers {
        hatch: true,
        causes: true,
        path: true,
    };

    /// Layers from `all` or a comma-separated list of `hatch`, `causes`,
    /// `path`.
    ///
    /// # Errors
    ///
    /// The word that is none of them.
    pub fn parse(s: &str) -> Result<WaitLayers, String> {
        if s == "all" {
            return Ok(WaitLayers::ALL);
        }
        let mut l = WaitLayers {
            hatch: false,
            causes: false,
            path: false,
        };
        for w in s.split(',') {
            match w.trim() {
                "hatch" => l.hatch = true,
                "causes" => l.causes = true,
                "path" => l.path = true,
                other => {
                    return Err(format!(
                        "{other:?}: --waits takes all or hatch, causes, path"
                    ))
                }
            }
        }
        Ok(l)
    }
}

/// The most waits at least a column wide whose causes a picture marks (more,
/// and none is marked: they would not be told apart).
pub const CAUSES: usize = 64;

/// The waits whose causes a picture of `[from, to)` drawn `columns` wide
/// marks (spec/queries.md §6.7), worst first with their seconds inside the
/// window: those at least a column wide while there are at most [`CAUSES`]
/// of them, else none (they could not be told apart). `render --waits` and
/// the viewer (`/api/waits?…&pixels=W`) mark the same.
///
/// ```
/// use mpelog::analysis::Pattern;
/// use mpelog::waits::{Wait, WaitIndex};
/// let w = |start: f64| Wait { timeline: 1, start, end: start + 0.01, pattern: Pattern::LateSender, partner: Some(0), cause: start + 0.01, call: 0 };
/// let index = WaitIndex::new((0..100).map(|i| w(f64::from(i) * 0.02)).collect(), vec![], vec![], (0.0, 2.0), 0, 64);
/// // 100 waits of a column or more on the whole run: none marked.
/// assert!(mpelog::render::marked_causes(&index, 0.0, 2.0, 100).is_empty());
/// // Zoomed in to 10 of them: each marked.
/// assert_eq!(mpelog::render::marked_causes(&index, 0.0, 0.2, 100).len(), 10);
/// ```
pub fn marked_causes(index: &WaitIndex, from: f64, to: f64, columns: u32) -> Vec<(f64, Wait)> {
    let cw = (to - from) / f64::from(columns.max(1));
    let mut worst = index.instances(from, to, CAUSES + 1);
    worst.retain(|(secs, _)| *secs >= cw);
    if worst.len() > CAUSES {
        worst.clear();
    }
    worst
}

/// The patterns the summary's waits use, by code.
pub(super) fn used(sum: &Summary) -> Vec<Pattern> {
    let mut on = [false; Pattern::ALL.len()];
    if let Some(w) = &sum.waits {
        for s in &w.shares {
            on[usize::from(s.pattern.code())] = true;
        }
    }
    Pattern::ALL
        .iter()
        .copied()
        .filter(|p| on[usize::from(p.code())])
        .collect()
}

/// The hatch patterns and the mask that keeps the middle lines clear.
pub(super) fn defs(s: &mut String, patterns: &[Pattern], rows: usize, rh: f64, plot: f64) {
    for p in patterns {
        // Point-to-point patterns lean one way, collective ones the other.
        // Every 6 pixels a stripe of 2 between dark edges of 1, so that it
        // shows over a state of its own colour (Late Receiver's #00e5ff over
        // MPI_Ssend's #00bfff); 2 pixels of the state between stripes.
        let angle = if leans_right(*p) { 45 } else { -45 };
        let _ = writeln!(
            s,
            r##"<pattern id="w{}" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate({angle})"><rect width="4" height="6" fill="{STRIPE_EDGE}"/><rect x="1" width="2" height="6" fill="{}"/></pattern>"##,
            p.code(),
            pattern_colour(*p)
        );
    }
    let _ = write!(
        s,
        r##"<mask id="middles" maskUnits="userSpaceOnUse" x="0" y="0" width="{}" height="{}"><rect width="100%" height="100%" fill="#ffffff"/>"##,
        n(LEFT + plot + 100.0),
        n(TOP + rh * rows as f64 + 100.0)
    );
    for r in 0..rows {
        let mid = TOP + rh * r as f64 + rh / 2.0;
        let _ = write!(
            s,
            r##"<rect x="0" y="{}" width="100%" height="4" fill="#000000"/>"##,
            n(mid - 2.0)
        );
    }
    let _ = writeln!(s, "</mask>");
}

/// One cell's hatch bands: per pattern code, its height on each side.
type Bands = Vec<(u8, f64)>;

/// The hatch of every cell with waits: bands from the row's top and bottom
/// edges towards its middle, as tall as each pattern's fraction of the
/// column times half the inner height less 2 pixels; equal neighbours make
/// one rectangle.
pub(super) fn hatch(s: &mut String, sum: &Summary, rh: f64) {
    let Some(w) = &sum.waits else {
        return;
    };
    let cw = sum.column_width();
    let inner = (rh - 4.0).max(1.0);
    let avail = (inner / 2.0 - 2.0).max(0.0);
    let q = |y: f64| (y * 4.0).round() / 4.0;
    let emit = |s: &mut String, row: u32, c0: u32, len: u32, bands: &Bands| {
        let top = TOP + rh * f64::from(row) + 2.0;
        let bottom = TOP + rh * f64::from(row + 1) - 2.0;
        let (mut down, mut up) = (top, bottom);
        for &(code, h) in bands {
            for (y, hh) in [(down, h), (up - h, h)] {
                let _ = writeln!(
                    s,
                    r#"<rect x="{}" y="{}" width="{len}" height="{}" fill="url(#w{code})"/>"#,
                    n(LEFT + f64::from(c0)),
                    n(y),
                    n(hh)
                );
            }
            down += h;
            up -= h;
        }
    };
    let sh = &w.shares;
    let mut i = 0;
    let mut open: Option<(u32, u32, u32, Bands)> = None;
    while i < sh.len() {
        let mut j = i + 1;
        while j < sh.len() && sh[j].row == sh[i].row && sh[j].column == sh[i].column {
            j += 1;
        }
        let total: f64 = sh[i..j].iter().map(|x| x.seconds / cw).sum();
        let scale = if total > 1.0 { 1.0 / total } else { 1.0 };
        let bands: Bands = sh[i..j]
            .iter()
            .map(|x| (x.pattern.code(), q(x.seconds / cw * scale * avail)))
            .filter(|b| b.1 > 0.0)
            .collect();
        let (row, col) = (sh[i].row, sh[i].column);
        match &mut open {
            Some((r, c, len, b)) if *r == row && *c + *len == col && *b == bands => *len += 1,
            _ => {
                if let Some((r, c, len, b)) = open.take() {
                    emit(s, r, c, len, &b);
                }
                if !bands.is_empty() {
                    open = Some((row, col, 1, bands));
                }
            }
        }
        i = j;
    }
    if let Some((r, c, len, b)) = open {
        emit(s, r, c, len, &b);
    }
}

/// The causes of the worst waits at least a column wide: for a message, a
/// line in the pattern's colour from the partner's row at the cause time to
/// the waiting row at the wait's end (the late send's arrow emphasised); for
/// a collective, a triangle at the top of the partner's row at the latest
/// arrival.
pub(super) fn causes(
    s: &mut String,
    sum: &Summary,
    worst: &[(f64, Wait)],
    rh: f64,
    x: &dyn Fn(f64) -> f64,
) {
    let cw = sum.column_width();
    let row_of = |t: i32| {
        sum.rows
            .iter()
            .position(|r| r.lines.contains(&t))
            .map(|r| r as f64)
    };
    for (secs, w) in worst {
        if *secs < cw {
            continue;
        }
        let (Some(me), Some(partner)) = (row_of(w.timeline), w.partner.and_then(row_of)) else {
            continue;
        };
        let colour = pattern_colour(w.pattern);
        if leans_right(w.pattern) {
            // The dot at the partner's end sits beside its middle line, on
            // the side of the waiting row (the middle stays the states').
            let side = if me >= partner { 6.0 } else { -6.0 };
            let _ = writeln!(
                s,
                r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{colour}" stroke-width="2"/><circle cx="{}" cy="{}" r="3" fill="{colour}"/>"#,
                n(x(w.cause)),
                n(TOP + rh * partner + rh / 2.0),
                n(x(w.end)),
                n(TOP + rh * me + rh / 2.0),
                n(x(w.cause)),
                n(TOP + rh * partner + rh / 2.0 + side),
            );
        } else {
            let (cx, y) = (x(w.cause), TOP + rh * partner + 1.0);
            let _ = writeln!(
                s,
                r##"<path d="M{},{}L{},{}L{},{}z" fill="{colour}" stroke="#000000" stroke-width="0.5"/>"##,
                n(cx - 4.0),
                n(y),
                n(cx + 4.0),
                n(y),
                n(cx),
                n(y + 6.0)
            );
        }
    }
}

/// The critical path: a bar 3 pixels tall at the bottom of each row (inside
/// its 2-pixel margin) in the columns where it spends time there, and a
/// connector along each jump's column between the two rows' bars while
/// there are at most one per [`JUMP_COLUMNS`] columns (else none).
pub(super) fn path(s: &mut String, sum: &Summary, rh: f64) {
    let Some(w) = &sum.waits else {
        return;
    };
    // Inside the row's 2-pixel margin, over the bottom of its states.
    let bar = |row: u32| TOP + rh * f64::from(row + 1) - 5.0;
    let mut i = 0;
    while i < w.path.len() {
        let m = w.path[i];
        let mut j = i + 1;
        while j < w.path.len()
            && w.path[j].row == m.row
            && w.path[j].column == m.column + (j - i) as u32
        {
            j += 1;
        }
        let _ = writeln!(
            s,
            r#"<rect x="{}" y="{}" width="{}" height="3" fill="{PATH_COLOUR}"/>"#,
            n(LEFT + f64::from(m.column)),
            n(bar(m.row)),
            j - i
        );
        i = j;
    }
    // Connectors only while few (at most one per JUMP_COLUMNS columns, as
    // the summary's forms write them, §6.7): more could not be told apart
    // and would cover the rows; the bars above still say where it runs.
    if w.jumps.len() > sum.columns as usize / JUMP_COLUMNS {
        return;
    }
    for j in &w.jumps {
        let cx = LEFT + f64::from(j.column) + 0.5;
        let (a, b) = (bar(j.from_row) + 1.5, bar(j.to_row) + 1.5);
        let _ = writeln!(
            s,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{PATH_COLOUR}" stroke-width="1"/>"#,
            n(cx),
            n(a.min(b)),
            n(cx),
            n(a.max(b))
        );
    }
}

/// The legend's entries for the waits: each pattern drawn (a hatched
/// swatch) and the critical path.
pub(super) fn legend(patterns: &[Pattern], path: bool) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = patterns
        .iter()
        .map(|p| {
            // Short enough for a legend column of 220 pixels.
            let name = match p {
                Pattern::LateSenderWrongOrder => "LS, wrong order",
                Pattern::LswoDifferentSource => "LS, wrong order, other source",
                Pattern::LswoSameSource => "LS, wrong order, same source",
                p => p.name(),
            };
            (format!("url(#w{})", p.code()), escape(name))
        })
        .collect();
    if path {
        out.push((PATH_COLOUR.to_string(), "critical path".to_string()));
    }
    out
}
