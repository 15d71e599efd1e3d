//! Pictures of a time window (`mpelog render`): an SVG drawn as Jumpshot-4
//! draws its Timeline window, from one preview query, so the picture costs what
//! its pixels show whatever the trace's size.
//!
//! One row per timeline of the view (labelled with the view's row values, rank
//! 0 at the top), on black, drawn from the window's [`Summary`]: states at
//! least a few pixels wide as bars in their category's colour, a state nested
//! in another thinner and centred inside it; every pixel column that narrower
//! states or shadows reach as bands of its categories' exclusive time (the
//! time each is the innermost state), the largest on the row's middle line and
//! the others below and above it, each as tall as its share of the column.
//! So what the eye sees agrees with `mpelog stats` for the same window at any
//! zoom, and no state narrower than a pixel paints over a column that
//! another category fills. Arrows are white lines with a head at the receive
//! end (yellow where a shadow summarises them) while they are few enough to
//! be seen one by one; more, and they are yellow ticks at the edges of the
//! rows, as tall as their count on a log scale and never as far as a row's
//! middle line, so that messages never hide the states (the legend says how
//! many a tick stands for, and each tick's title its count). Events are a
//! short stalk and a circle at the top of their row (the most frequent
//! category of each column).
//! A time axis with ticks in seconds runs below, and the legend (colour,
//! kind, name) of every category in the picture under it. The picture's size
//! is bounded by its pixels, and the same file and options give the same
//! bytes.

use crate::summary::{Share, Summary};
use slog2_format::types::{topology, Category, LineIdMap};
use slog2_format::{Slog2Reader, WindowBuf};
use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::io::{Read, Seek};

mod legend;
mod messages;
mod palette;
mod waits;
pub use messages::{tick_height, tick_reach};
pub use palette::{leans_right, pattern_colour, OTHER_PATTERNS_COLOUR, PATH_COLOUR, STRIPE_EDGE};
pub use waits::{marked_causes, WaitLayers, CAUSES};

/// What to draw.
///
/// ```
/// let o = mpelog::render::Options::default();
/// assert_eq!((o.from, o.to, o.width, o.row_height, o.view), (None, None, 1200, 40, None));
/// ```
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
    /// Which parts of the wait states and critical path to draw, when a
    /// wait index is given ([`svg_with`]); `None`: none.
    pub waits: Option<WaitLayers>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            from: None,
            to: None,
            width: 1200,
            row_height: 40,
            view: None,
            waits: None,
        }
    }
}

impl Options {
    /// The window `[from, to)` (a missing bound is the file's start or end).
    ///
    /// ```
    /// let o = mpelog::render::Options::default().window(Some(1.5), None);
    /// assert_eq!((o.from, o.to), (Some(1.5), None));
    /// ```
    pub fn window(mut self, from: Option<f64>, to: Option<f64>) -> Options {
        self.from = from;
        self.to = to;
        self
    }
    /// The picture's width in pixels (200 to the plot's
    /// [`MAX_COLUMNS`](crate::summary::MAX_COLUMNS) plus its margins).
    ///
    /// ```
    /// use mpelog::render::Options;
    /// assert_eq!(Options::default().width(800).width, 800);
    /// assert_eq!(Options::default().width(10).width, 200);
    /// ```
    pub fn width(mut self, width: u32) -> Options {
        self.width = width.clamp(200, crate::summary::MAX_COLUMNS + 100);
        self
    }
    /// The view whose rows are the timelines: a line-ID map, by its title or
    /// position (`None`: the first).
    ///
    /// ```
    /// let o = mpelog::render::Options::default().view(Some("Thread View".into()));
    /// assert_eq!(o.view.as_deref(), Some("Thread View"));
    /// ```
    pub fn view(mut self, view: Option<String>) -> Options {
        self.view = view;
        self
    }
    /// Draws the layers `waits` of the wait states and the critical path
    /// (spec/queries.md §6.7) when [`svg_with`] is given a wait index.
    ///
    /// ```
    /// use mpelog::render::{Options, WaitLayers};
    /// assert_eq!(Options::default().waits(Some(WaitLayers::ALL)).waits, Some(WaitLayers::ALL));
    /// ```
    pub fn waits(mut self, waits: Option<WaitLayers>) -> Options {
        self.waits = waits;
        self
    }
}

/// What a picture holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Drawn {
    /// Real primitives summed into the picture.
    pub drawables: u64,
    /// Shadows summed into the picture.
    pub shadows: u64,
    /// Timeline rows.
    pub rows: u64,
    /// Cells (row × column) drawn from their shares.
    pub summarised: u64,
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

/// The summary [`svg`] draws for `opts`: one preview query as wide as the
/// plot, summed per row and pixel column ([`Summary::of_window`]).
///
/// # Errors
///
/// [`Error::EmptyWindow`] when the window is empty or not finite,
/// [`Error::NoView`] when the view asked for is not in the file, and
/// [`Error::Slog2`] when the query fails (as
/// [`Slog2Reader::window_picture_into`]).
///
/// ```
/// # use slog2_format::convert::clog2_to_slog2;
/// # use slog2_format::Slog2Reader;
/// # use std::io::Cursor;
/// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
/// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// # let bytes = out.into_inner();
/// use mpelog::render::{summary, Error, Options};
/// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
/// let (s, legend, view) = summary(&mut r, &Options::default().width(600))?;
/// assert_eq!(s.columns, mpelog::render::plot_columns(600));
/// assert!(!legend.is_empty() && view.is_some());
/// let empty = Options::default().window(Some(1.0), Some(1.0));
/// assert!(matches!(summary(&mut r, &empty), Err(Error::EmptyWindow(..))));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn summary<R: Read + Seek>(
    r: &mut Slog2Reader<R>,
    opts: &Options,
) -> Result<(Summary, Vec<Category>, Option<LineIdMap>), Error> {
    let categories: Vec<Category> = r.category_list().to_vec();
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
        None => maps.first().cloned(),
        Some(v) => Some(
            v.parse::<usize>()
                .ok()
                .and_then(|i| maps.get(i))
                .or_else(|| maps.iter().find(|m| m.title.text().eq_ignore_ascii_case(v)))
                .ok_or_else(|| Error::NoView(v.clone()))?
                .clone(),
        ),
    };
    let columns = plot_columns(opts.width);
    let mut buf = WindowBuf::new();
    // The window's end is included (a whole file's last event is at its end).
    crate::summary::query(r, &mut buf, from, to, columns)?;
    let s = Summary::of_window(&buf, &categories, map.as_ref(), from, to, columns);
    Ok((s, categories, map))
}

/// The plot's width in pixel columns for a picture `width` pixels wide.
///
/// ```
/// use mpelog::render::plot_columns;
/// assert_eq!(plot_columns(1200), 1100); // less the label column and the margin
/// assert_eq!(plot_columns(10), plot_columns(200)); // at least 200 pixels wide
/// ```
pub fn plot_columns(width: u32) -> u32 {
    ((f64::from(width.max(200)) - LEFT - RIGHT) as u32).min(crate::summary::MAX_COLUMNS)
}

/// Draws the window of `opts` of a SLOG-2 file as an SVG document.
///
/// ```
/// use slog2_format::{convert::clog2_to_slog2, write::TreeOptions};
/// use slog2_format::Slog2Reader;
/// use std::io::Cursor;
///
/// let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
/// let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// let (slog2, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), TreeOptions::default(), |_| {})?;
/// let mut r = Slog2Reader::new(Cursor::new(slog2.into_inner()))?;
/// let opts = mpelog::render::Options::default().window(Some(0.0), Some(0.1)).width(600);
/// let (svg, drawn) = mpelog::render::svg(&mut r, &opts)?;
/// assert!(svg.starts_with("<svg") && drawn.rows > 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`Error::Slog2`] when the file cannot be read, [`Error::NoView`] for a
/// view it lacks, [`Error::EmptyWindow`] for a window of no width.
pub fn svg<R: Read + Seek>(
    r: &mut Slog2Reader<R>,
    opts: &Options,
) -> Result<(String, Drawn), Error> {
    svg_with(r, opts, None)
}

/// [`svg`] with the wait states and the critical path of `index` drawn as
/// `opts.waits` asks (spec/queries.md §6.7): the summary carries the waits
/// of each cell ([`Summary::add_waits`]), the worst [`CAUSES`] waits of the
/// window their causes.
///
/// ```
/// use slog2_format::{convert::clog2_to_slog2, Slog2Reader};
/// use mpelog::analysis::{self, Options as Analysis};
/// use mpelog::render::{svg_with, Options, WaitLayers};
/// use mpelog::waits::WaitIndex;
/// use std::io::Cursor;
/// let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
/// let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// let (slog2, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// let bytes = slog2.into_inner();
/// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
/// let mut report = analysis::slog2(&mut r, &Analysis::default().record(true))?;
/// let index = WaitIndex::from_report(&mut report).unwrap();
/// let opts = Options::default().width(600).waits(Some(WaitLayers::ALL));
/// let (svg, _) = svg_with(&mut r, &opts, Some(&index))?;
/// assert!(svg.contains("url(#w") && svg.contains("critical path"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// As [`svg`].
pub fn svg_with<R: Read + Seek>(
    r: &mut Slog2Reader<R>,
    opts: &Options,
    index: Option<&crate::waits::WaitIndex>,
) -> Result<(String, Drawn), Error> {
    let (mut s, categories, map) = summary(r, opts)?;
    let mut worst = Vec::new();
    if let (Some(ix), Some(layers)) = (index, opts.waits) {
        s.add_waits(ix);
        if layers.causes {
            worst = waits::marked_causes(ix, s.from, s.to, s.columns);
        }
    }
    Ok(draw(&s, &categories, map.as_ref(), opts, &worst))
}

/// The vertical bands of one summarised cell: `(category, top, bottom)`,
/// the largest share centred on the row's middle, the others alternately
/// below and above it, each as tall as its share of the column; the stack is
/// moved as little as needed to stay inside `[top, top + h]` (the largest
/// share still covers the middle, since neither side holds more than half).
fn bands(shares: &[Share], col_w: f64, top: f64, h: f64) -> Vec<(i32, f64, f64)> {
    // Shares adding up to more than the column (states that overlap without
    // nesting) are scaled to fit it.
    let total: f64 = shares.iter().map(|s| s.seconds).sum::<f64>() / col_w;
    let scale = if total > 1.0 { 1.0 / total } else { 1.0 };
    let part = |s: &Share| h * (s.seconds / col_w) * scale;
    let below: f64 = shares.iter().skip(1).step_by(2).map(part).sum();
    let above: f64 = shares.iter().skip(2).step_by(2).map(part).sum();
    let first = shares.first().map_or(0.0, part);
    let mut mid = top + h / 2.0;
    mid -= (mid + first / 2.0 + below - (top + h)).max(0.0);
    mid += (top - (mid - first / 2.0 - above)).max(0.0);
    let (mut up, mut down) = (mid - first / 2.0, mid + first / 2.0);
    let mut out = Vec::with_capacity(shares.len());
    for (i, sh) in shares.iter().enumerate() {
        let p = part(sh);
        if i == 0 {
            out.push((sh.category, up, down));
        } else if i % 2 == 1 {
            out.push((sh.category, down, down + p));
            down += p;
        } else {
            out.push((sh.category, up - p, up));
            up -= p;
        }
    }
    out
}

/// A run of summarised cells drawn alike: its first column, its region
/// (top, bottom) and its bands.
type Run = (usize, (f64, f64), Vec<(i32, f64, f64)>);

/// The inset of a state nested `depth` deep in a row `rh` high.
fn inset(depth: f64, rh: f64) -> f64 {
    (depth * rh * 0.12).min(rh * 0.4)
}

fn draw(
    sum: &Summary,
    categories: &[Category],
    map: Option<&LineIdMap>,
    opts: &Options,
    worst: &[(f64, crate::waits::Wait)],
) -> (String, Drawn) {
    let layers = opts.waits.filter(|_| sum.waits.is_some());
    let cats: HashMap<i32, &Category> = categories.iter().map(|c| (c.index, c)).collect();
    let topo = |c: i32| cats.get(&c).map_or(topology::STATE, |c| c.topology);
    let (from, to) = (sum.from, sum.to);
    let rows = sum.rows.len().max(1);
    let rh = f64::from(opts.row_height.max(8));
    let width = f64::from(opts.width.max(200));
    let plot = f64::from(sum.columns);
    let plot_h = rh * rows as f64;
    let x = |t: f64| LEFT + ((t - from) / (to - from) * plot).clamp(-1.0, plot + 1.0);
    let row_top = |row: u32| TOP + rh * f64::from(row);

    // The legend: categories drawn, by index.
    let mut used: BTreeSet<i32> = BTreeSet::new();
    for r in 0..sum.rows.len() {
        for c in 0..sum.columns as usize {
            if let Some(cell) = sum.cell(r, c) {
                used.extend(cell.shares.iter().map(|s| s.category));
            }
        }
    }
    used.extend(sum.states.iter().map(|s| s.category));
    used.extend(sum.events.iter().map(|e| e.category));
    used.extend(sum.arrows.iter().map(|a| a.category));
    used.retain(|c| *c >= 0);
    let wait_patterns = match layers {
        Some(l) if l.hatch => waits::used(sum),
        _ => Vec::new(),
    };
    let wait_legend = match layers {
        Some(l) => waits::legend(&wait_patterns, l.path),
        None => Vec::new(),
    };
    // Each category's entry: its name and kind.
    let entries: Vec<String> = used
        .iter()
        .map(|c| {
            let cat = cats.get(c).copied();
            let kind = match topo(*c) {
                topology::EVENT => "event",
                topology::ARROW => "arrow",
                _ => "state",
            };
            let name = cat.map_or(format!("category {c}"), |c| c.name.text());
            format!("{name} ({kind})")
        })
        .collect();
    let (legend_w, legend_cols) = legend::columns(
        entries
            .iter()
            .map(String::as_str)
            .chain(wait_legend.iter().map(|(_, t)| t.as_str())),
        width - LEFT,
    );
    let legend_rows = (used.len() + wait_legend.len()).div_ceil(legend_cols);
    let ticks_line = messages::legend(sum);
    let height = TOP
        + plot_h
        + AXIS
        + LEGEND_ROW * (legend_rows + usize::from(ticks_line.is_some())) as f64
        + 10.0;

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#,
        w = n(width),
        h = n(height)
    );
    let _ = write!(
        s,
        r##"<defs><marker id="head" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#ffffff"/></marker>"##
    );
    if layers.is_some() {
        waits::defs(&mut s, &wait_patterns, sum.rows.len(), rh, plot);
    }
    let _ = writeln!(s, "</defs>");
    let _ = writeln!(s, r##"<rect width="100%" height="100%" fill="#ffffff"/>"##);
    let title = map.map_or("Timelines".into(), |m| m.title.text());
    let _ = writeln!(
        s,
        r#"<text x="{}" y="18">{} — [{}, {}] s</text>"#,
        n(LEFT),
        escape(&title),
        fmt_time(from, to - from),
        fmt_time(to, to - from)
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
    for (i, row) in sum.rows.iter().enumerate() {
        let y = TOP + rh * i as f64;
        let label = row
            .key
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
        // Over the row labels, ending where they end, so that it never runs
        // into the title (which starts at LEFT); smaller when it would not
        // fit in the margin (`process,thread`, `commID,comm_rank`).
        let header = labels.join(",");
        let room = LEFT - 10.0;
        let wide = legend::text_width(&header);
        let size = if wide > room {
            format!(r#" font-size="{}""#, n((12.0 * room / wide).max(7.0)))
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="end"{size}>{}</text>"#,
            n(LEFT - 6.0),
            n(TOP - 6.0),
            escape(&header)
        );
    }

    // States at least a few pixels wide, as Jumpshot draws them: nested
    // thinner and centred.
    let _ = writeln!(s, r#"<g class="states">"#);
    for st in &sum.states {
        let d = inset(f64::from(st.depth), rh);
        let (x0, x1) = (x(st.start).max(LEFT), x(st.end).min(LEFT + plot));
        let _ = writeln!(
            s,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{}"/>"#,
            n(x0),
            n(row_top(st.row) + 2.0 + d),
            n((x1 - x0).max(0.5)),
            n((rh - 4.0 - 2.0 * d).max(1.0)),
            color(cats.get(&st.category).copied())
        );
    }
    let _ = writeln!(s, "</g>");

    // Cells that narrower states or shadows reach: their shares as bands,
    // the largest on the middle, inside the states that cover the column.
    // Neighbouring columns drawn alike make one rectangle.
    let _ = writeln!(s, r#"<g class="summary">"#);
    let col_w = sum.column_width();
    let q = |y: f64| (y * 4.0).round() / 4.0;
    let mut summarised = 0u64;
    for r in 0..sum.rows.len() {
        // The run being drawn: first column, its region and bands.
        let mut run: Option<Run> = None;
        let flush = |s: &mut String, run: &Option<Run>, end: usize| {
            if let Some((c0, (top, bottom), bands)) = run {
                let (x0, w) = (LEFT + *c0 as f64, (end - c0) as f64);
                let _ = writeln!(
                    s,
                    r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{BACKGROUND}"/>"#,
                    n(x0),
                    n(*top),
                    n(w),
                    n(bottom - top)
                );
                for (c, y0, y1) in bands {
                    if y1 - y0 >= 0.25 {
                        let _ = writeln!(
                            s,
                            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{}"/>"#,
                            n(x0),
                            n(*y0),
                            n(w),
                            n(y1 - y0),
                            color(cats.get(c).copied())
                        );
                    }
                }
            }
        };
        for c in 0..sum.columns as usize {
            let cell = sum.cell(r, c).expect("in range");
            if !cell.summarised {
                flush(&mut s, &run, c);
                run = None;
                continue;
            }
            summarised += 1;
            let d = inset(f64::from(cell.covered), rh);
            let top = row_top(r as u32) + 2.0 + d;
            let h = (rh - 4.0 - 2.0 * d).max(1.0);
            let b: Vec<(i32, f64, f64)> = bands(cell.shares, col_w, top, h)
                .into_iter()
                .map(|(k, y0, y1)| (k, q(y0), q(y1)))
                .filter(|(_, y0, y1)| y1 > y0)
                .collect();
            let region = (top, top + h);
            match &run {
                Some((_, reg, prev)) if *reg == region && *prev == b => {}
                _ => {
                    flush(&mut s, &run, c);
                    run = Some((c, region, b));
                }
            }
        }
        flush(&mut s, &run, sum.columns as usize);
    }
    let _ = writeln!(s, "</g>");
    // The waiting part of each cell, hatched (never over a middle line).
    if layers.is_some_and(|l| l.hatch) {
        let _ = writeln!(s, r#"<g class="waits" mask="url(#middles)">"#);
        waits::hatch(&mut s, sum, rh);
        let _ = writeln!(s, "</g>");
    }

    // Messages (lines, or ticks at the rows' edges), then events on top (at
    // the top of their row, so that the middle of the row keeps the states'
    // colours).
    messages::draw(&mut s, sum, rh, &x, &row_top);
    // One mark per row and column: the category with the most events there.
    // Dense events (marks in more than an eighth of the cells) are a strip
    // 3 pixels tall at the top of the row, each column in its most frequent
    // category's colour, neighbours alike in one rectangle.
    let dense_events = sum.events.len() as f64 > sum.rows.len() as f64 * plot / 8.0;
    if dense_events {
        let mut i = 0;
        while i < sum.events.len() {
            let e = &sum.events[i];
            let mut j = i + 1;
            while j < sum.events.len()
                && sum.events[j].row == e.row
                && sum.events[j].category == e.category
                && sum.events[j].column == e.column + (j - i) as u32
            {
                j += 1;
            }
            let _ = writeln!(
                s,
                r#"<rect x="{}" y="{}" width="{}" height="3" fill="{}"/>"#,
                n(LEFT + f64::from(e.column)),
                n(row_top(e.row) + 1.0),
                j - i,
                color(cats.get(&e.category).copied())
            );
            i = j;
        }
    } else {
        for e in &sum.events {
            let (cx, y) = (LEFT + f64::from(e.column) + 0.5, row_top(e.row));
            let c = color(cats.get(&e.category).copied());
            let _ = writeln!(
                s,
                r#"<line x1="{cx}" y1="{}" x2="{cx}" y2="{}" stroke="{c}"/><circle cx="{cx}" cy="{}" r="3" fill="{c}"/>"#,
                n(y + 2.0),
                n(y + rh * 0.3),
                n(y + 5.0),
                cx = n(cx)
            );
        }
    }

    // The causes of the worst waits and the critical path, over everything
    // but the middle lines.
    if let Some(l) = layers {
        let _ = writeln!(s, r#"<g class="critical" mask="url(#middles)">"#);
        if l.causes {
            waits::causes(&mut s, sum, worst, rh, &x);
        }
        if l.path {
            waits::path(&mut s, sum, rh);
        }
        let _ = writeln!(s, "</g>");
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
        // The last label ends at the plot's edge rather than past it.
        let anchor = if tx > LEFT + plot - 30.0 {
            "end"
        } else {
            "middle"
        };
        let _ = writeln!(
            s,
            r##"<line x1="{tx}" y1="{}" x2="{tx}" y2="{}" stroke="#000000"/><text x="{tx}" y="{}" text-anchor="{anchor}">{}</text>"##,
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
    for (i, (c, entry)) in used.iter().zip(&entries).enumerate() {
        let (col, row) = (i % legend_cols, i / legend_cols);
        let lx = LEFT + legend_w * col as f64;
        let ly = axis_y + AXIS + LEGEND_ROW * row as f64;
        let _ = writeln!(
            s,
            r##"<rect x="{}" y="{}" width="12" height="12" fill="{}" stroke="#000000"/><text x="{}" y="{}">{}</text>"##,
            n(lx),
            n(ly),
            color(cats.get(c).copied()),
            n(lx + 16.0),
            n(ly + 11.0),
            escape(&legend::fit(entry, legend_w))
        );
    }
    for (k, (fill, text)) in wait_legend.iter().enumerate() {
        let i = used.len() + k;
        let (col, row) = (i % legend_cols, i / legend_cols);
        let lx = LEFT + legend_w * col as f64;
        let ly = axis_y + AXIS + LEGEND_ROW * row as f64;
        // A pattern's swatch is hatched on black, as the plot draws it, so
        // that it is never taken for a category's plain swatch.
        if fill.starts_with("url(") {
            let _ = write!(
                s,
                r##"<rect x="{}" y="{}" width="12" height="12" fill="#000000"/>"##,
                n(lx),
                n(ly)
            );
        }
        let _ = writeln!(
            s,
            r##"<rect x="{}" y="{}" width="12" height="12" fill="{fill}" stroke="#000000"/><text x="{}" y="{}">{text}</text>"##,
            n(lx),
            n(ly),
            n(lx + 16.0),
            n(ly + 11.0),
        );
    }
    if let Some(text) = ticks_line {
        let ly = axis_y + AXIS + LEGEND_ROW * legend_rows as f64;
        let _ = writeln!(
            s,
            r##"<rect x="{}" y="{}" width="12" height="12" fill="{}" stroke="#000000"/><text x="{}" y="{}">{}</text>"##,
            n(LEFT),
            n(ly),
            messages::TICK,
            n(LEFT + 16.0),
            n(ly + 11.0),
            escape(&text)
        );
    }
    s.push_str("</svg>\n");
    (
        s,
        Drawn {
            drawables: sum.drawables,
            shadows: sum.shadows,
            rows: sum.rows.len() as u64,
            summarised,
        },
    )
}

/// A time for the title, with enough decimals to tell apart the ends of a
/// window `width` seconds wide (three significant digits of the width).
fn fmt_time(t: f64, width: f64) -> String {
    let decimals = if width > 0.0 && width.is_finite() {
        (2.0 - width.log10().floor()).clamp(0.0, 15.0) as usize
    } else {
        6
    };
    let s = format!("{t:.decimals$}");
    if s.trim_start_matches('-')
        .chars()
        .all(|c| c == '0' || c == '.')
    {
        s.trim_start_matches('-').to_string()
    } else {
        s
    }
}

/// A tick label with as many decimals as the step needs (never `-0.00`).
fn fmt_tick(t: f64, step: f64) -> String {
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    let s = format!("{t:.decimals$}");
    if s.starts_with('-') && s[1..].chars().all(|c| c == '0' || c == '.') {
        s[1..].to_string()
    } else {
        s
    }
}
