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
//! With `--json` each drawable or shadow is one JSON object (keys `kind`,
//! `category`, `name`, `topology`, `start`, `end`, `vertices`, `info`, `node`, and
//! `parts` for composites, `num_real_objs` and `weights` for shadows); the last line
//! stays as in text mode, and there is no `shadows=` line.

use crate::detect::{detect, Format};
use crate::error::{CliError, CliResult};
use serde_json::{json, Value};
use slog2_format::window::{Located, WindowAnswer};
use slog2_format::{
    info, topology, Category, Coord, Drawable, JStr, Primitive, Shadow, Slog2Reader,
};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{BufWriter, Write};
use std::path::Path;

/// Runs `mpelog window`, writing to stdout.
pub fn run(
    file: &Path,
    trace: Option<&Path>,
    from: Option<f64>,
    to: Option<f64>,
    pixels: Option<u32>,
    json: bool,
    lenient: bool,
) -> CliResult {
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
    let file = &crate::input::resolve(file)?;
    if pixels == Some(0) {
        return Err(CliError::Usage(
            "window: --pixels must be at least 1".into(),
        ));
    }
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let res = match detect(file)? {
        Format::Annotation => {
            if pixels.is_some() {
                return Err(CliError::Usage(
                    "window: --pixels needs a SLOG-2 file (an annotation has no shadows)".into(),
                ));
            }
            write_annotation_window(file, trace, from, to, json, &mut out)
        }
        _ => write_window(file, from, to, pixels, json, lenient, &mut out),
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

fn check_order(from: f64, to: f64) -> CliResult {
    if from >= to {
        return Err(CliError::Usage(format!(
            "window: --from {from} must be less than --to {to} (the window is [FROM, TO))"
        )));
    }
    Ok(())
}

/// The smallest `f64` above `x` (for finite `x`).
fn next_up(x: f64) -> f64 {
    if x == 0.0 {
        return f64::from_bits(1);
    }
    let bits = x.to_bits();
    f64::from_bits(if x > 0.0 { bits + 1 } else { bits - 1 })
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
pub fn write_window<W: Write>(
    path: &Path,
    from: Option<f64>,
    to: Option<f64>,
    pixels: Option<u32>,
    json: bool,
    lenient: bool,
    out: &mut W,
) -> CliResult {
    match detect(path)? {
        Format::Slog2 => {}
        other => {
            return Err(CliError::Unrecognized {
                path: path.to_path_buf(),
                message: format!(
                    "this is a {} file; window reads SLOG-2 files and annotation files (convert or annotate the trace first)",
                    other.name()
                ),
            })
        }
    }
    let (file, _) = super::open(path)?;
    // No read buffer: the reader reads each block with one read of exactly its
    // bytes, so the counters are what was read from the file.
    let mut r = Slog2Reader::open(file).map_err(CliError::slog2(path))?;
    r.set_lenient(lenient);
    let (from, to) = window_bounds(
        from,
        to,
        root_box(r.tree_dir().iter().flat_map(|t| t.value.entries.iter())),
    )?;
    let answer = match pixels {
        Some(p) => r.window_preview(from, to, p),
        None => r.window(from, to),
    }
    .map_err(CliError::slog2(path))?;
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
        if pixels.is_some() && !json {
            writeln!(out, "shadows={}", answer.shadows.len())?;
        }
        writeln!(
            out,
            "nodes_read={} bytes_read={} drawables={}",
            totals.nodes_read,
            totals.bytes_read,
            answer.drawables.len()
        )
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
        writeln!(
            out,
            "nodes_read={} bytes_read={} drawables={}",
            totals.nodes_read,
            totals.annotation_bytes + totals.trace_bytes,
            as_slog2.drawables.len()
        )
    })()
    .map_err(CliError::io(Path::new("<stdout>")))
}

fn write_items<W: Write>(
    lines: &Lines,
    answer: &WindowAnswer,
    json: bool,
    out: &mut W,
) -> std::io::Result<()> {
    for d in &answer.drawables {
        if json {
            writeln!(out, "{}", lines.drawable_json(d))?;
        } else {
            writeln!(out, "{}", lines.drawable_text(d))?;
        }
    }
    for s in &answer.shadows {
        if json {
            writeln!(out, "{}", lines.shadow_json(s))?;
        } else {
            writeln!(out, "{}", lines.shadow_text(s))?;
        }
    }
    Ok(())
}

/// Formats drawables and shadows with the file's legend.
struct Lines<'a> {
    categories: HashMap<i32, &'a Category>,
}

/// An info buffer, decoded with its category's formats when possible.
struct Info {
    text: Option<String>,
    error: Option<String>,
    hex: String,
}

fn hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        let _ = write!(s, "{x:02x}");
    }
    s
}

fn vertices_text(v: &[Coord]) -> String {
    v.iter()
        .map(|c| format!("({:?},{})", c.time, c.line_id))
        .collect()
}

fn vertices_json(v: &[Coord]) -> Value {
    Value::Array(v.iter().map(|c| json!([c.time, c.line_id])).collect())
}

/// A time as JSON (non-finite times, which JSON cannot hold, become strings).
fn time_json(t: f64) -> Value {
    if t.is_finite() {
        json!(t)
    } else {
        json!(format!("{t:?}"))
    }
}

/// An f32 ratio as JSON, with the digits of its shortest f32 text.
fn ratio_json(x: f32) -> Value {
    match format!("{x:?}").parse::<f64>() {
        Ok(v) if v.is_finite() => json!(v),
        _ => json!(format!("{x:?}")),
    }
}

impl Lines<'_> {
    fn name(&self, category: i32) -> Option<String> {
        self.categories.get(&category).map(|c| c.name.text())
    }

    fn topology(&self, category: i32) -> Option<String> {
        self.categories
            .get(&category)
            .map(|c| topology::name(c.topology))
    }

    fn info(&self, category: i32, bytes: &JStr) -> Info {
        let hex = hex(&bytes.bytes);
        match self.categories.get(&category) {
            None if bytes.bytes.is_empty() => Info {
                text: Some(String::new()),
                error: None,
                hex,
            },
            None => Info {
                text: None,
                error: Some(format!("category {category} is not in the CategoryMap")),
                hex,
            },
            Some(c) => match info::labelled(&c.keys, &c.types, &bytes.bytes) {
                Ok(t) => Info {
                    text: Some(t),
                    error: None,
                    hex,
                },
                Err(e) => Info {
                    text: None,
                    error: Some(e.to_string()),
                    hex,
                },
            },
        }
    }

    /// `cat=.. name=.. topo=..`
    fn head_text(&self, category: i32) -> String {
        format!(
            "cat={category} name={} topo={}",
            self.name(category)
                .map_or_else(|| "?".to_string(), |n| format!("{n:?}")),
            self.topology(category).unwrap_or_else(|| "?".into())
        )
    }

    fn info_text(&self, category: i32, bytes: &JStr) -> String {
        let i = self.info(category, bytes);
        match (i.text, i.error) {
            (Some(t), _) => format!("info={t:?}"),
            (None, e) => format!("info_hex={} info_error={:?}", i.hex, e.unwrap_or_default()),
        }
    }

    fn part_text(&self, p: &Primitive) -> String {
        format!(
            "{} vertices={} {}",
            self.head_text(p.category),
            vertices_text(&p.vertices),
            self.info_text(p.category, &p.info)
        )
    }

    fn drawable_text(&self, d: &Located<Drawable>) -> String {
        let v = &d.value;
        let node = format!("node=({},{})", d.node.depth, d.node.xpos);
        let bx = format!("box=[{:?},{:?}]", v.earliest(), v.latest());
        match v {
            Drawable::Primitive(p) => format!(
                "primitive {} {bx} vertices={} {} {node}",
                self.head_text(p.category),
                vertices_text(&p.vertices),
                self.info_text(p.category, &p.info)
            ),
            Drawable::Composite(c) => {
                let parts: Vec<String> = c.primitives.iter().map(|p| self.part_text(p)).collect();
                format!(
                    "composite {} {bx} {} parts=[{}] {node}",
                    self.head_text(c.category),
                    self.info_text(c.category, &c.info),
                    parts.join("; ")
                )
            }
        }
    }

    fn shadow_text(&self, s: &Located<Shadow>) -> String {
        let v = &s.value;
        let w: Vec<String> = v
            .weights
            .iter()
            .map(|w| match w.count {
                Some(c) => format!("{}:{:?}/{:?}/{}", w.category, w.incl, w.excl, c),
                None => format!("{}:{:?}/{:?}", w.category, w.incl, w.excl),
            })
            .collect();
        format!(
            "shadow {} box=[{:?},{:?}] vertices={} num_real_objs={} weights=[{}] node=({},{})",
            self.head_text(v.category),
            v.earliest,
            v.latest,
            vertices_text(&v.vertices),
            v.num_real_objs,
            w.join(","),
            s.node.depth,
            s.node.xpos
        )
    }

    /// The keys every object has.
    fn object(
        &self,
        kind: &str,
        category: i32,
        (start, end): (f64, f64),
        vertices: Value,
        info: &JStr,
    ) -> serde_json::Map<String, Value> {
        let mut m = serde_json::Map::new();
        m.insert("kind".into(), json!(kind));
        m.insert("category".into(), json!(category));
        m.insert("name".into(), json!(self.name(category)));
        m.insert("topology".into(), json!(self.topology(category)));
        m.insert("start".into(), time_json(start));
        m.insert("end".into(), time_json(end));
        m.insert("vertices".into(), vertices);
        let i = self.info(category, info);
        m.insert("info".into(), json!(i.text));
        if let Some(e) = i.error {
            m.insert("info_hex".into(), json!(i.hex));
            m.insert("info_error".into(), json!(e));
        }
        m
    }

    fn drawable_json(&self, d: &Located<Drawable>) -> Value {
        let v = &d.value;
        let bx = (v.earliest(), v.latest());
        let mut m = match v {
            Drawable::Primitive(p) => self.object(
                "primitive",
                p.category,
                bx,
                vertices_json(&p.vertices),
                &p.info,
            ),
            Drawable::Composite(c) => {
                let all: Vec<Coord> = c
                    .primitives
                    .iter()
                    .flat_map(|p| p.vertices.iter().copied())
                    .collect();
                let mut m = self.object("composite", c.category, bx, vertices_json(&all), &c.info);
                let parts: Vec<Value> = c
                    .primitives
                    .iter()
                    .map(|p| {
                        Value::Object(self.object(
                            "primitive",
                            p.category,
                            (p.earliest(), p.latest()),
                            vertices_json(&p.vertices),
                            &p.info,
                        ))
                    })
                    .collect();
                m.insert("parts".into(), Value::Array(parts));
                m
            }
        };
        m.insert("node".into(), json!([d.node.depth, d.node.xpos]));
        Value::Object(m)
    }

    fn shadow_json(&self, s: &Located<Shadow>) -> Value {
        let v = &s.value;
        let mut m = self.object(
            "shadow",
            v.category,
            (v.earliest, v.latest),
            vertices_json(&v.vertices),
            &v.info,
        );
        m.insert("num_real_objs".into(), json!(v.num_real_objs));
        let weights: Vec<Value> = v
            .weights
            .iter()
            .map(|w| {
                json!({
                    "category": w.category,
                    "incl": ratio_json(w.incl),
                    "excl": ratio_json(w.excl),
                    "count": w.count,
                })
            })
            .collect();
        m.insert("weights".into(), Value::Array(weights));
        m.insert("node".into(), json!([s.node.depth, s.node.xpos]));
        Value::Object(m)
    }
}
