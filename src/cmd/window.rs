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

use super::Input;
use crate::detect::Format;
use crate::error::{CliError, CliResult};
use mpelog::items::Lines;
use mpelog::slices::next_up;
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
    from: Option<f64>,
    to: Option<f64>,
    pixels: u32,
) -> CliResult {
    let (start, end) =
        root_box(r.tree_dir().iter().flat_map(|t| t.value.entries.iter())).unwrap_or((0.0, 0.0));
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
    let (file, format) = match super::input(file)? {
        Input::Remote(r, counts) => return write_remote_window((*r, counts), file, ask),
        Input::Local(path, format) => (path, format),
    };
    let file = &file;
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let dir;
    let res = match format {
        Format::Annotation => {
            if pixels.is_some() || detail.depth.is_some() {
                return Err(CliError::Usage(
                    "window: --pixels and --depth need a SLOG-2 file (an annotation has no shadows)".into(),
                ));
            }
            write_annotation_window(file, trace, from, to, ask.json, &mut out)
        }
        Format::Slog2 | Format::Slog2Compressed => write_window(file, ask, &mut out),
        _ => {
            // Any other trace: converted once into a temporary SLOG-2 file
            // (removed at exit), whose tree the window then reads.
            dir = tempfile::tempdir().map_err(CliError::io(Path::new("TMPDIR")))?;
            let slog2 = super::convert::to_temp_slog2(file, dir.path(), "converted.slog2")?;
            write_window(&slog2, ask, &mut out)
        }
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

/// A window of a remote SLOG-2 file read with HTTP Range requests; the last
/// line adds the requests made and the bytes received.
fn write_remote_window(
    (mut r, counts): (
        Slog2Reader<mpelog::remote::HttpFile>,
        mpelog::remote::Counts,
    ),
    path: &Path,
    ask: Args,
) -> CliResult {
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let received = || {
        [
            ("requests", counts.requests()),
            ("bytes_received", counts.bytes()),
        ]
    };
    write_reader_window(&mut r, path, ask, received, &mut out)?;
    out.flush().map_err(CliError::io(Path::new("<stdout>")))
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

fn check_order(from: f64, to: f64) -> CliResult {
    if from >= to {
        return Err(CliError::Usage(format!(
            "window: --from {from} must be less than --to {to} (the window is [FROM, TO))"
        )));
    }
    Ok(())
}

/// The window to query: the given bounds, the file's start for a missing
/// `--from`, and just after the file's end for a missing `--to`, so that the
/// whole file is `[start, next_up(end))`. `root` is the tree root's time box.
fn window_bounds(
    from: Option<f64>,
    to: Option<f64>,
    root: Option<(f64, f64)>,
) -> CliResult<(f64, f64)> {
    let (start, end) = root
        .filter(|(a, b)| a.is_finite() && b.is_finite() && a <= b)
        .unwrap_or((0.0, 0.0));
    let from = from.unwrap_or(start);
    let to = to.unwrap_or_else(|| next_up(end.max(from)));
    check_order(from, to)?;
    Ok((from, to))
}

/// The box of the root, the deepest TreeDir entry.
fn root_box<'a>(
    entries: impl Iterator<Item = &'a slog2_format::TreeDirEntry>,
) -> Option<(f64, f64)> {
    entries
        .max_by_key(|e| (e.id.depth, std::cmp::Reverse(e.id.xpos)))
        .map(|e| (e.earliest, e.latest))
}

/// Runs the query on `path` and writes its lines to `out`.
pub fn write_window<W: Write>(path: &Path, ask: Args, out: &mut W) -> CliResult {
    let (file, _) = super::open(path)?;
    // No read buffer: the reader reads each block with one read of exactly its
    // bytes, so the counters are what was read from the file.
    let mut r = Slog2Reader::new(file).map_err(CliError::slog2(path))?;
    write_reader_window(&mut r, path, ask, || [], out)
}

/// Runs the query on the opened `r` (of `path`) and writes its lines to
/// `out`: the drawables (and shadows), then the cost, with `extra()`'s
/// fields last.
fn write_reader_window<R: std::io::Read + std::io::Seek, W: Write, const N: usize>(
    r: &mut Slog2Reader<R>,
    path: &Path,
    ask: Args,
    extra: impl Fn() -> [(&'static str, u64); N],
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
        return write_summary(r, path, from, to, p);
    }
    let (from, to) = window_bounds(
        from,
        to,
        root_box(r.tree_dir().iter().flat_map(|t| t.value.entries.iter())),
    )?;
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
        cost.extend(extra());
        write_cost(out, json, &cost)
    })()
    .map_err(o)
}

/// Runs the query through the annotation `idx` (and its trace) and writes its
/// lines to `out`; `bytes_read` counts the annotation's and the trace's bytes.
pub fn write_annotation_window<W: Write>(
    idx: &Path,
    trace: Option<&Path>,
    from: Option<f64>,
    to: Option<f64>,
    json: bool,
    out: &mut W,
) -> CliResult {
    let (mut a, trace) = super::annotation::open(idx, trace)?;
    let (from, to) = window_bounds(from, to, root_box(a.tree_dir().entries.iter()))?;
    let answer = a
        .window(from, to)
        .map_err(|e| super::annotation::error(idx, &trace, e))?;
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
