//! `mpelog window`: the drawables of a SLOG-2 file in a time window (spec/slog2.md
//! §2), one per line, then what the query cost.
//!
//! Text lines, for example (times in full precision, the shortest form that reads
//! back exactly; `shadows=` only in previews):
//!
//! ```text
//! primitive cat=1 name="Compute" topo=State box=[0.25,0.5] vertices=(0.25,0)(0.5,0) info="" node=(0,0)
//! primitive cat=3 name="Tick" topo=Event box=[0.75,0.75] vertices=(0.75,1) info="tick 3" node=(0,0)
//! composite cat=10 name="Group" topo=State box=[1.0625,1.2] info="" parts=[cat=1 name="Compute" topo=State vertices=(1.0625,0)(1.125,0) info=""; cat=0 ...] node=(0,1)
//! shadow cat=-3 name="Preview_State" topo=State box=[0.25,0.5] vertices=(0.25,0) num_real_objs=1 weights=[1:0.25/0.125/1] node=(0,0)
//! shadows=S
//! nodes_read=N bytes_read=B drawables=D
//! ```
//!
//! With `--pixels W --summary` it prints instead one JSON object: the window's
//! summary `W` columns wide, as `render` draws it and `serve`'s `/api/window`
//! answers it (spec/queries.md §6), with the cost inside it.
//!
//! With `--json` each drawable or shadow is one JSON object (keys `kind`,
//! `category`, `name`, `topology`, `start`, `end`, `vertices`, `info`, `node`, and
//! `parts` for composites, `num_real_objs` and `weights` for shadows); the last line
//! stays as in text mode, and there is no `shadows=` line.

use crate::detect::Format;
use crate::error::{CliError, CliResult};
use mpelog::items::Lines;
use mpelog::trace::TreeMut;
use slog2_format::window::{Located, WindowAnswer};
use slog2_format::{Category, Drawable, Slog2Reader};
use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::path::Path;

/// How much of the tree a window reads: all of it, down to a pixel's width
/// (`--pixels`), or down to a depth (`--depth`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Detail {
    /// `--pixels`.
    pub pixels: Option<u32>,
    /// `--depth`.
    pub depth: Option<i16>,
    /// `--summary`: the picture's summary of the window instead of its items.
    pub summary: bool,
}

/// What `mpelog window` was asked (but the files).
#[derive(Debug, Clone, Copy, Default)]
pub struct Args {
    /// `--from`.
    pub from: Option<f64>,
    /// `--to`.
    pub to: Option<f64>,
    /// `--pixels`, `--depth`, `--summary`.
    pub detail: Detail,
    /// `--json`.
    pub json: bool,
    /// `--lenient`.
    pub lenient: bool,
}

/// Writes the [`mpelog::summary::Summary`] of `[from, to]` at `pixels`
/// columns (what `render` draws and `/api/window` answers) as one JSON
/// object, the cost inside it.
fn write_summary<R: std::io::Read + std::io::Seek>(
    r: &mut Slog2Reader<R>,
    path: &Path,
    root: Option<(f64, f64)>,
    (from, to): (Option<f64>, Option<f64>),
    pixels: u32,
) -> CliResult {
    let (start, end) = root.unwrap_or((0.0, 0.0));
    let (from, to) = (from.unwrap_or(start), to.unwrap_or(end));
    if pixels > mpelog::summary::MAX_COLUMNS {
        return Err(CliError::Usage(format!(
            "window: --summary takes --pixels up to {}",
            mpelog::summary::MAX_COLUMNS
        )));
    }
    if from.is_nan() || to.is_nan() || from >= to {
        return Err(CliError::Usage(format!(
            "window: --summary needs a window of positive width, not [{from}, {to}]"
        )));
    }
    let legend: Vec<Category> = r.category_list().to_vec();
    let view = r.line_id_maps().and_then(|m| m.value.maps.first().cloned());
    let mut buf = slog2_format::WindowBuf::new();
    mpelog::summary::query(r, &mut buf, from, to, pixels).map_err(CliError::slog2(path))?;
    let s = mpelog::summary::Summary::of_window(&buf, &legend, view.as_ref(), from, to, pixels);
    let totals = r.counters();
    let mut out = Vec::with_capacity(1 << 16);
    s.write_json(&mut out);
    out.pop();
    out.extend_from_slice(
        format!(
            ",\"cost\":{{\"nodes_read\":{},\"bytes_read\":{}}}}}\n",
            totals.nodes_read, totals.bytes_read
        )
        .as_bytes(),
    );
    let stdout = std::io::stdout();
    let mut w = stdout.lock();
    match w.write_all(&out).and_then(|()| w.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(CliError::io(Path::new("<stdout>"))),
    }
}

/// Runs `mpelog window`, writing to stdout.
pub fn run(file: &Path, trace: Option<&Path>, ask: Args) -> CliResult {
    let Args {
        from, to, detail, ..
    } = ask;
    let pixels = detail.pixels;
    for (flag, v) in [("--from", from), ("--to", to)] {
        if let Some(v) = v.filter(|v| !v.is_finite()) {
            return Err(CliError::Usage(format!(
                "window: {flag} {v}: give a finite number of seconds"
            )));
        }
    }
    if let (Some(from), Some(to)) = (from, to) {
        check_order(from, to)?;
    }
    if pixels == Some(0) {
        return Err(CliError::Usage(
            "window: --pixels must be at least 1".into(),
        ));
    }
    let mut t = super::open_trace(file, trace)?;
    if t.format() == Format::Annotation && (pixels.is_some() || detail.depth.is_some()) {
        return Err(CliError::Usage(
            "window: --pixels and --depth need a SLOG-2 file (an annotation has no shadows)".into(),
        ));
    }
    // A SLOG-2 file at a URL: the last line adds the requests made and the
    // bytes received.
    let requests = t.requests();
    let received = || {
        requests
            .as_ref()
            .map_or([("requests", None), ("bytes_received", None)], |c| {
                [
                    ("requests", Some(c.requests())),
                    ("bytes_received", Some(c.bytes())),
                ]
            })
    };
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    // Any other format than SLOG-2 and annotations: converted once into a
    // temporary SLOG-2 file (removed with `t`), whose tree the window reads.
    let format = t.format();
    let root = t.time_box().map_err(super::failed(format))?;
    let res = match t.tree_mut().map_err(super::failed(format))? {
        TreeMut::Annotation(a, trace) => {
            write_annotation_window(a, file, trace, root, ask, &mut out)
        }
        TreeMut::Slog2(r) => write_reader_window(r, file, root, ask, received, &mut out),
        _ => unreachable!("a trace's tree is SLOG-2 or an annotation"),
    }
    .and_then(|()| out.flush().map_err(CliError::io(Path::new("<stdout>"))));
    match res {
        // A closed pipe (`mpelog window x ... | head`) is not an error.
        Err(CliError::Io { source, .. }) if source.kind() == std::io::ErrorKind::BrokenPipe => {
            Ok(())
        }
        other => other,
    }
}

/// The query `detail` asks for.
fn query<R: std::io::Read + std::io::Seek>(
    r: &mut Slog2Reader<R>,
    from: f64,
    to: f64,
    detail: Detail,
) -> slog2_format::Result<WindowAnswer> {
    match (detail.pixels, detail.depth) {
        (Some(p), _) => r.window_preview(from, to, p),
        (None, Some(d)) => r.window_to_depth(from, to, d),
        (None, None) => r.window(from, to),
    }
}

/// The window to query ([`mpelog::trace::bounds`]).
fn window_bounds(
    from: Option<f64>,
    to: Option<f64>,
    root: Option<(f64, f64)>,
) -> CliResult<(f64, f64)> {
    Ok(mpelog::trace::bounds(from, to, root)?)
}

fn check_order(from: f64, to: f64) -> CliResult {
    if from >= to {
        return Err(CliError::Usage(format!(
            "window: --from {from} must be less than --to {to} (the window is [FROM, TO))"
        )));
    }
    Ok(())
}

/// Runs the query on the opened `r` (of `path`) and writes its lines to
/// `out`: the drawables (and shadows), then the cost, with `extra()`'s
/// fields last.
fn write_reader_window<R: std::io::Read + std::io::Seek, W: Write, const N: usize>(
    r: &mut Slog2Reader<R>,
    path: &Path,
    root: Option<(f64, f64)>,
    ask: Args,
    extra: impl Fn() -> [(&'static str, Option<u64>); N],
    out: &mut W,
) -> CliResult {
    let Args {
        from,
        to,
        detail,
        json,
        lenient,
    } = ask;
    r.set_lenient(lenient);
    if let (true, Some(p)) = (detail.summary, detail.pixels) {
        return write_summary(r, path, root, (from, to), p);
    }
    let (from, to) = window_bounds(from, to, root)?;
    let answer = query(r, from, to, detail).map_err(CliError::slog2(path))?;
    let pixels = detail.pixels.or(detail.depth.map(|_| 0));
    let categories: HashMap<i32, &Category> = r
        .categories()
        .map(|c| c.value.categories.iter().map(|c| (c.index, c)).collect())
        .unwrap_or_default();
    let totals = r.counters();
    let dropped = r.dropped();
    if dropped.drawables + dropped.shadows > 0 {
        eprintln!(
            "mpelog: {}: --lenient: dropped {} drawables and {} shadows that the file cannot resolve (unknown category or line ID, outside their node's box, ...); `mpelog check` says where",
            crate::input::shown(path),
            dropped.drawables,
            dropped.shadows
        );
    }
    let o = CliError::io(Path::new("<stdout>"));
    let lines = Lines { categories };
    (|| -> std::io::Result<()> {
        write_items(&lines, &answer, json, out)?;
        let mut cost = vec![
            ("nodes_read", totals.nodes_read),
            ("bytes_read", totals.bytes_read),
            ("drawables", answer.drawables.len() as u64),
        ];
        if pixels.is_some() {
            if json {
                cost.push(("shadows", answer.shadows.len() as u64));
            } else {
                writeln!(out, "shadows={}", answer.shadows.len())?;
            }
        }
        cost.extend(extra().into_iter().filter_map(|(k, v)| Some((k, v?))));
        write_cost(out, json, &cost)
    })()
    .map_err(o)
}

/// Runs the query through the annotation `idx` (and its trace) and writes its
/// lines to `out`; `bytes_read` counts the annotation's and the trace's bytes.
fn write_annotation_window<W: Write>(
    a: &mut mpelog::trace::AnnotationReader,
    idx: &Path,
    trace: &Path,
    root: Option<(f64, f64)>,
    Args { from, to, json, .. }: Args,
    out: &mut W,
) -> CliResult {
    let (from, to) = window_bounds(from, to, root)?;
    let answer = a
        .window(from, to)
        .map_err(|e| super::annotation::error(idx, trace, e))?;
    let categories: HashMap<i32, &Category> = a
        .categories()
        .categories
        .iter()
        .map(|c| (c.index, c))
        .collect();
    let totals = a.counters();
    let as_slog2 = WindowAnswer {
        window: answer.window,
        drawables: answer
            .drawables
            .into_iter()
            .map(|d| Located {
                node: d.node,
                value: Drawable::Primitive(d.value),
            })
            .collect(),
        shadows: Vec::new(),
        nodes: Vec::new(),
        counters: Default::default(),
    };
    let lines = Lines { categories };
    (|| -> std::io::Result<()> {
        write_items(&lines, &as_slog2, json, out)?;
        write_cost(
            out,
            json,
            &[
                ("nodes_read", totals.nodes_read),
                ("bytes_read", totals.annotation_bytes + totals.trace_bytes),
                ("drawables", as_slog2.drawables.len() as u64),
            ],
        )
    })()
    .map_err(CliError::io(Path::new("<stdout>")))
}

/// The last line: what the query cost, as `key=value` words, or with `--json`
/// as one JSON object `{"cost":{...}}` (so every line is JSON).
fn write_cost<W: Write>(out: &mut W, json: bool, cost: &[(&str, u64)]) -> std::io::Result<()> {
    let words: Vec<String> = cost
        .iter()
        .map(|(k, v)| {
            if json {
                format!("\"{k}\":{v}")
            } else {
                format!("{k}={v}")
            }
        })
        .collect();
    if json {
        writeln!(out, "{{\"cost\":{{{}}}}}", words.join(","))
    } else {
        writeln!(out, "{}", words.join(" "))
    }
}

fn write_items<W: Write>(
    lines: &Lines,
    answer: &WindowAnswer,
    json: bool,
    out: &mut W,
) -> std::io::Result<()> {
    for d in &answer.drawables {
        write_item(
            out,
            json,
            || lines.drawable_json(d),
            || lines.drawable_text(d),
        )?;
    }
    for s in &answer.shadows {
        write_item(out, json, || lines.shadow_json(s), || lines.shadow_text(s))?;
    }
    Ok(())
}

/// One line of `write_items`: the item's JSON form (`--json`) or its text.
fn write_item<W: Write, V: serde::Serialize>(
    out: &mut W,
    json: bool,
    json_form: impl FnOnce() -> V,
    text_form: impl FnOnce() -> String,
) -> std::io::Result<()> {
    if json {
        writeln!(out, "{}", mpelog::json_text::to_string(&json_form()))
    } else {
        writeln!(out, "{}", text_form())
    }
}
