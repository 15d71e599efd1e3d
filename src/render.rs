//! Pictures of a time window (`mpelog render`): an SVG drawn as Jumpshot-4
//! draws its Timeline window, from one preview query, so the picture costs what
//! its pixels show whatever the trace's size.
//!
//! One row per timeline of the view (labelled with the view's row values, rank
//! 0 at the top), on black: states as bars in their category's colour, a state
//! nested in another drawn thinner inside it; arrows as white lines with a head
//! at the receive end; events as circles in their colour on a tick at the top
//! of their row. Where a subtree is narrower than a pixel the query returns its
//! shadows instead ([`slog2_format::Slog2Reader::window_preview`]); a shadow is
//! a grey box on its row (a yellow line for arrow shadows) filled from the
//! bottom with its categories' colours in proportion to their inclusive
//! ratios, as Jumpshot's summary view. A time axis with ticks in seconds runs
//! below, and the legend (colour, kind, name) of every category in the picture
//! under it. What one pixel already shows is drawn once (one sub-pixel state
//! per row, nesting depth and pixel column, one arrow per pair of pixels, one
//! event per category, row and pixel), so the picture's size is bounded by its
//! pixels. The output is deterministic: the same file and options give the
//! same bytes.

use slog2_format::types::{topology, Category, Coord, Drawable, LineIdMap, Primitive};
use slog2_format::{Slog2Reader, WindowAnswer};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::io::{Read, Seek};

/// What to draw.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Options {
    /// Start of the window; `None`: the file's start.
    pub from: Option<f64>,
    /// End of the window; `None`: the file's end.
    pub to: Option<f64>,
    /// Width of the picture in pixels (the plot is this minus the label column).
    pub width: u32,
    /// Height of one timeline row in pixels.
    pub row_height: u32,
    /// The view whose rows are the timelines, by title or position.
    pub view: Option<String>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            from: None,
            to: None,
            width: 1200,
            row_height: 40,
            view: None,
        }
    }
}

impl Options {
    /// The window `[from, to)`.
    pub fn window(mut self, from: Option<f64>, to: Option<f64>) -> Options {
        self.from = from;
        self.to = to;
        self
    }
    /// The picture's width in pixels (at least 200).
    pub fn width(mut self, width: u32) -> Options {
        self.width = width.max(200);
        self
    }
    /// The view.
    pub fn view(mut self, view: Option<String>) -> Options {
        self.view = view;
        self
    }
}

/// What a picture holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Drawn {
    /// Real drawables drawn.
    pub drawables: u64,
    /// Shadows drawn.
    pub shadows: u64,
    /// Timeline rows.
    pub rows: u64,
}

/// Why a picture could not be drawn.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading the file failed.
    #[error(transparent)]
    Slog2(#[from] slog2_format::Error),
    /// The view asked for is not in the file.
    #[error("no view {0:?} in the file")]
    NoView(String),
    /// The window is empty or not finite.
    #[error("the window [{0}, {1}) is empty")]
    EmptyWindow(f64, f64),
}

/// A merged summary box: its time span and each category's seconds in it.
type SummaryBox = (f64, f64, BTreeMap<i32, f64>);

const LEFT: f64 = 80.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 30.0;
const AXIS: f64 = 40.0;
const LEGEND_ROW: f64 = 18.0;
const BACKGROUND: &str = "#000000";

fn color(c: Option<&Category>) -> String {
    c.map_or("#808080".into(), |c| {
        format!("#{:02x}{:02x}{:02x}", c.argb[1], c.argb[2], c.argb[3])
    })
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A number for SVG: two decimals, no trailing zeros.
fn n(x: f64) -> String {
    let s = format!("{x:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

/// A tick step of 1, 2 or 5 times a power of ten giving about `want` ticks.
fn tick_step(width: f64, want: f64) -> f64 {
    let raw = width / want;
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * p)
}

/// Draws the window of `opts` of a SLOG-2 file as an SVG document.
pub fn svg<R: Read + Seek>(
    r: &mut Slog2Reader<R>,
    opts: &Options,
) -> Result<(String, Drawn), Error> {
    let categories: Vec<Category> = r
        .categories()
        .map(|c| c.value.categories.clone())
        .unwrap_or_default();
    let maps: Vec<LineIdMap> = r
        .line_id_maps()
        .map(|m| m.value.maps.clone())
        .unwrap_or_default();
    let root = r.tree_dir().and_then(|t| t.value.root().copied());
    let (start, end) = root.map_or((0.0, 1.0), |e| (e.earliest, e.latest));
    let from = opts.from.unwrap_or(start);
    let to = opts.to.unwrap_or(end);
    if !(from.is_finite() && to.is_finite() && to > from) {
        return Err(Error::EmptyWindow(from, to));
    }
    let map = match &opts.view {
        None => maps.first(),
        Some(v) => Some(
            v.parse::<usize>()
                .ok()
                .and_then(|i| maps.get(i))
                .or_else(|| maps.iter().find(|m| m.title.text().eq_ignore_ascii_case(v)))
                .ok_or_else(|| Error::NoView(v.clone()))?,
        ),
    };
    let plot = f64::from(opts.width) - LEFT - RIGHT;
    // The window's end is included (a whole file's last event is at its end).
    let answer = r.window_preview(from, next_up(to), plot.max(1.0) as u32)?;
    Ok(draw(&answer, &categories, map, from, to, opts))
}

fn next_up(x: f64) -> f64 {
    crate::slices::next_up(x)
}

fn draw(
    answer: &WindowAnswer,
    categories: &[Category],
    map: Option<&LineIdMap>,
    from: f64,
    to: f64,
    opts: &Options,
) -> (String, Drawn) {
    let cats: HashMap<i32, &Category> = categories.iter().map(|c| (c.index, c)).collect();
    let topo = |c: i32| cats.get(&c).map_or(topology::STATE, |c| c.topology);
    let rows_of: HashMap<i32, Vec<i32>> = map
        .map(|m| {
            m.rows
                .iter()
                .map(|r| (r.line_id, r.values.clone()))
                .collect()
        })
        .unwrap_or_default();
    let row_key = |line: i32| rows_of.get(&line).cloned().unwrap_or_else(|| vec![line]);

    // The rows: every row of the view, then any line seen that the view lacks.
    let mut keys: BTreeSet<Vec<i32>> = rows_of.values().cloned().collect();
    let parts = |d: &Drawable| -> Vec<Primitive> {
        match d {
            Drawable::Primitive(p) => vec![p.clone()],
            Drawable::Composite(c) => c.primitives.clone(),
        }
    };
    let prims: Vec<Primitive> = answer
        .drawables
        .iter()
        .flat_map(|d| parts(&d.value))
        .collect();
    for p in &prims {
        for v in &p.vertices {
            keys.insert(row_key(v.line_id));
        }
    }
    for s in &answer.shadows {
        for v in &s.value.vertices {
            keys.insert(row_key(v.line_id));
        }
    }
    let row_index: BTreeMap<Vec<i32>, usize> = keys
        .iter()
        .cloned()
        .enumerate()
        .map(|(i, k)| (k, i))
        .collect();
    let rows = row_index.len().max(1);

    let rh = f64::from(opts.row_height.max(8));
    let width = f64::from(opts.width);
    let plot = width - LEFT - RIGHT;
    let plot_h = rh * rows as f64;
    let x = |t: f64| LEFT + ((t - from) / (to - from) * plot).clamp(-1.0, plot + 1.0);
    let row_top = |line: i32| TOP + rh * row_index[&row_key(line)] as f64;

    // The legend: categories drawn, by index.
    let mut used: BTreeSet<i32> = prims.iter().map(|p| p.category).collect();
    for s in &answer.shadows {
        used.extend(s.value.weights.iter().map(|w| w.category));
    }
    used.retain(|c| *c >= 0);
    let legend_cols = ((width - LEFT) / 220.0).floor().max(1.0) as usize;
    let legend_rows = used.len().div_ceil(legend_cols);
    let height = TOP + plot_h + AXIS + LEGEND_ROW * legend_rows as f64 + 10.0;

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#,
        w = n(width),
        h = n(height)
    );
    let _ = writeln!(
        s,
        r##"<defs><marker id="head" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#ffffff"/></marker></defs>"##
    );
    let _ = writeln!(s, r##"<rect width="100%" height="100%" fill="#ffffff"/>"##);
    let title = map.map_or("Timelines".into(), |m| m.title.text());
    let _ = writeln!(
        s,
        r#"<text x="{}" y="18">{} — [{}, {}] s</text>"#,
        n(LEFT),
        escape(&title),
        fmt_time(from),
        fmt_time(to)
    );
    let _ = writeln!(
        s,
        r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{BACKGROUND}"/>"#,
        n(LEFT),
        n(TOP),
        n(plot),
        n(plot_h)
    );
    // Row labels and separators.
    let labels: Vec<String> =
        map.map_or(Vec::new(), |m| m.labels.iter().map(|l| l.text()).collect());
    for (k, i) in &row_index {
        let y = TOP + rh * *i as f64;
        let label = k
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(",");
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="end">{}</text>"#,
            n(LEFT - 6.0),
            n(y + rh / 2.0 + 4.0),
            escape(&label)
        );
        let _ = writeln!(
            s,
            r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#2f4f4f" stroke-width="1"/>"##,
            n(LEFT),
            n(y + rh),
            n(LEFT + plot),
            n(y + rh)
        );
    }
    if !labels.is_empty() {
        let _ = writeln!(
            s,
            r#"<text x="4" y="{}">{}</text>"#,
            n(TOP - 6.0),
            escape(&labels.join(","))
        );
    }

    // Shadows (the summary where the query stopped above the leaves): state
    // shadows starting in the same pixel of a row are merged into one box
    // whose fill adds their categories' time; arrow shadows once per pixel pair.
    let mut shadows = 0u64;
    let mut boxes: BTreeMap<(usize, i64), SummaryBox> = BTreeMap::new();
    let mut arrow_pixels: BTreeSet<(i64, i64, i64, i64)> = BTreeSet::new();
    for sh in &answer.shadows {
        let sh = &sh.value;
        let (Some(a), Some(b)) = (sh.vertices.first(), sh.vertices.last()) else {
            continue;
        };
        shadows += 1;
        if topo(sh.category) == topology::ARROW {
            let key = (
                row_index[&row_key(a.line_id)] as i64,
                row_index[&row_key(b.line_id)] as i64,
                x(a.time).floor() as i64,
                x(b.time).floor() as i64,
            );
            if arrow_pixels.insert(key) {
                let _ = writeln!(
                    s,
                    r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#ffff00" stroke-width="2"/>"##,
                    n(x(a.time)),
                    n(row_top(a.line_id) + rh / 2.0),
                    n(x(b.time)),
                    n(row_top(b.line_id) + rh / 2.0)
                );
            }
            continue;
        }
        let row = row_index[&row_key(a.line_id)];
        let entry = boxes
            .entry((row, x(sh.earliest).floor() as i64))
            .or_insert((f64::INFINITY, f64::NEG_INFINITY, BTreeMap::new()));
        entry.0 = entry.0.min(sh.earliest);
        entry.1 = entry.1.max(sh.latest);
        let span = (sh.latest - sh.earliest).max(0.0);
        for w in &sh.weights {
            if w.incl.is_finite() && w.incl > 0.0 {
                *entry.2.entry(w.category).or_insert(0.0) += f64::from(w.incl) * span;
            }
        }
    }
    for ((row, _), (t0, t1, weights)) in &boxes {
        draw_shadow(
            &mut s,
            (*t0, *t1),
            TOP + rh * *row as f64,
            weights,
            &cats,
            &x,
            rh,
        );
    }

    // States, nested thinner: per row, a stack of the ends of enclosing states.
    let mut states: Vec<&Primitive> = prims
        .iter()
        .filter(|p| topo(p.category) == topology::STATE && p.vertices.len() >= 2)
        .collect();
    states.sort_by(|a, b| {
        a.earliest()
            .total_cmp(&b.earliest())
            .then(b.latest().total_cmp(&a.latest()))
            .then(a.category.cmp(&b.category))
    });
    let mut stacks: HashMap<usize, Vec<f64>> = HashMap::new();
    // Whatever one pixel already shows is not drawn again: per row, depth and
    // pixel column one sub-pixel state, per pixel pair one arrow, per row and
    // pixel one event. So the picture's size is bounded by its pixels.
    let mut seen: std::collections::HashSet<(u8, i64, i64, i64, i64)> = Default::default();
    let px = |t: f64| x(t).floor() as i64;
    for p in &states {
        let line = p.vertices[0].line_id;
        let stack = stacks.entry(row_index[&row_key(line)]).or_default();
        while stack.last().is_some_and(|&e| e <= p.earliest()) {
            stack.pop();
        }
        let depth = stack.len() as f64;
        stack.push(p.latest());
        let inset = (depth * rh * 0.12).min(rh * 0.4);
        let (x0, x1) = (x(p.earliest()), x(p.latest()));
        let row = row_index[&row_key(line)] as i64;
        if x1 - x0 < 1.0 && !seen.insert((0, row, depth as i64, px(p.earliest()), 0)) {
            continue;
        }
        let _ = writeln!(
            s,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{}"/>"#,
            n(x0),
            n(row_top(line) + 2.0 + inset),
            n((x1 - x0).max(0.5)),
            n((rh - 4.0 - 2.0 * inset).max(1.0)),
            color(cats.get(&p.category).copied())
        );
    }
    // Arrows, then events on top.
    for p in prims.iter().filter(|p| topo(p.category) == topology::ARROW) {
        let (a, b) = (&p.vertices[0], &p.vertices[p.vertices.len() - 1]);
        let (ra, rb) = (
            row_index[&row_key(a.line_id)] as i64,
            row_index[&row_key(b.line_id)] as i64,
        );
        if !seen.insert((1, ra, rb, px(a.time), px(b.time))) {
            continue;
        }
        let _ = writeln!(
            s,
            r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#ffffff" stroke-width="1" marker-end="url(#head)"/>"##,
            n(x(a.time)),
            n(row_top(a.line_id) + rh / 2.0),
            n(x(b.time)),
            n(row_top(b.line_id) + rh / 2.0)
        );
    }
    for p in prims.iter().filter(|p| topo(p.category) == topology::EVENT) {
        let v: &Coord = &p.vertices[0];
        let row = row_index[&row_key(v.line_id)] as i64;
        if !seen.insert((2, row, i64::from(p.category), px(v.time), 0)) {
            continue;
        }
        let (cx, y) = (x(v.time), row_top(v.line_id));
        let c = color(cats.get(&p.category).copied());
        let _ = writeln!(
            s,
            r#"<line x1="{cx}" y1="{}" x2="{cx}" y2="{}" stroke="{c}"/><circle cx="{cx}" cy="{}" r="4" fill="{c}"/>"#,
            n(y + 2.0),
            n(y + rh - 2.0),
            n(y + 6.0),
            cx = n(cx)
        );
    }

    // Time axis.
    let axis_y = TOP + plot_h;
    let step = tick_step(to - from, 8.0);
    let mut t = (from / step).ceil() * step;
    let _ = writeln!(
        s,
        r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#000000"/>"##,
        n(LEFT),
        n(axis_y),
        n(LEFT + plot),
        n(axis_y)
    );
    let mut ticks = 0;
    while t <= to + step * 1e-9 && ticks < 100 {
        let tx = x(t);
        let _ = writeln!(
            s,
            r##"<line x1="{tx}" y1="{}" x2="{tx}" y2="{}" stroke="#000000"/><text x="{tx}" y="{}" text-anchor="middle">{}</text>"##,
            n(axis_y),
            n(axis_y + 6.0),
            n(axis_y + 20.0),
            fmt_tick(t, step),
            tx = n(tx)
        );
        t += step;
        ticks += 1;
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="end">time (s)</text>"#,
        n(LEFT + plot),
        n(axis_y + 34.0)
    );

    // Legend.
    for (i, c) in used.iter().enumerate() {
        let (col, row) = (i % legend_cols, i / legend_cols);
        let lx = LEFT + 220.0 * col as f64;
        let ly = axis_y + AXIS + LEGEND_ROW * row as f64;
        let cat = cats.get(c).copied();
        let kind = match topo(*c) {
            topology::EVENT => "event",
            topology::ARROW => "arrow",
            _ => "state",
        };
        let name = cat.map_or(format!("category {c}"), |c| c.name.text());
        let _ = writeln!(
            s,
            r##"<rect x="{}" y="{}" width="12" height="12" fill="{}" stroke="#000000"/><text x="{}" y="{}">{} ({kind})</text>"##,
            n(lx),
            n(ly),
            color(cat),
            n(lx + 16.0),
            n(ly + 11.0),
            escape(&name)
        );
    }
    s.push_str("</svg>\n");
    (
        s,
        Drawn {
            drawables: prims.len() as u64,
            shadows,
            rows: row_index.len() as u64,
        },
    )
}

/// One summary box on the row whose top is `row_top`: grey, filled from the
/// bottom by each category's share of `weights` (seconds), largest first.
fn draw_shadow(
    s: &mut String,
    (t0, t1): (f64, f64),
    row_top: f64,
    weights: &BTreeMap<i32, f64>,
    cats: &HashMap<i32, &Category>,
    x: &impl Fn(f64) -> f64,
    rh: f64,
) {
    let (x0, x1) = (x(t0), x(t1));
    let (top, h) = (row_top + 2.0, rh - 4.0);
    let w = (x1 - x0).max(1.0);
    let _ = writeln!(
        s,
        r##"<rect x="{}" y="{}" width="{}" height="{}" fill="#404040"/>"##,
        n(x0),
        n(top),
        n(w),
        n(h)
    );
    let mut parts: Vec<(i32, f64)> = weights.iter().map(|(c, v)| (*c, *v)).collect();
    parts.sort_by(|p, q| q.1.total_cmp(&p.1).then(p.0.cmp(&q.0)));
    // The weights are ratios of the box's time summed over its shadows: the
    // box is full when they add up to its duration or more.
    let total: f64 = parts
        .iter()
        .map(|p| p.1)
        .sum::<f64>()
        .max((t1 - t0).max(f64::MIN_POSITIVE));
    let mut y = top + h;
    for (c, v) in parts {
        let part = h * v / total;
        if part < 0.5 {
            // Less than half a pixel tall: not visible.
            break;
        }
        y -= part;
        let _ = writeln!(
            s,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{}"/>"#,
            n(x0),
            n(y),
            n(w),
            n(part),
            color(cats.get(&c).copied())
        );
    }
}

/// A time for the title: the shortest text that reads back.
fn fmt_time(t: f64) -> String {
    format!("{t:?}")
}

/// A tick label with as many decimals as the step needs.
fn fmt_tick(t: f64, step: f64) -> String {
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    format!("{t:.decimals$}")
}
