//! The HTTP side of `mpelog serve`: a viewer page and the API it reads, as a
//! pure function from a request to a response ([`Service::handle`]), so the
//! server loop is a few lines and every answer can be tested without sockets.
//!
//! Endpoints (other tools may use them; the names are stable):
//! - `GET /` — the viewer page (plain HTML, CSS and JavaScript embedded in
//!   the binary; no network at run time).
//! - `GET /api/info[?file=K]` — the file's time range, views (line-ID maps with
//!   their rows), legend (index, name, topology, colour) and the files served.
//! - `GET /api/window?from=T0&to=T1&pixels=W[&file=K]` — the drawables and
//!   shadows of a preview query `W` pixels wide, each as `mpelog window --json`
//!   prints it, plus what it cost (`nodes_read`, `bytes_read`, `micros`). A
//!   window whose answer would exceed [`MAX_ITEMS`] is asked again at fewer
//!   pixels, so every answer is bounded.
//! - `GET /api/export?from=T0&to=T1[&file=K]` — the window as a Perfetto trace.
//! - `GET /trace[?file=K]` — the file's bytes, with HTTP Range requests (`206`
//!   answers; `416` for a range outside the file).
//!
//! Only the named files are served; any other path is `404`, a malformed or
//! unknown parameter `400`, a method other than GET or HEAD `405`.

use crate::items::Lines;
use slog2_format::{Category, Slog2Reader};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

/// The most drawables and shadows one `/api/window` answer holds.
pub const MAX_ITEMS: usize = 200_000;
/// An `/api/window` answer with more than this many items per pixel of width
/// has its drawables narrower than a pixel summed into shadows (see
/// [`bin_sub_pixel`]), so the answer is bounded by the picture, not the trace.
pub const BIN_ITEMS_PER_PIXEL: usize = 4;

/// States and events narrower than a pixel are summed over columns this many
/// pixels wide.
pub const BIN_PIXELS: f64 = 2.0;

/// The most categories a summed shadow lists (the heaviest; the rest of its
/// share is left undrawn).
pub const BIN_WEIGHTS: usize = 4;

/// Arrows narrower than a pixel are summed over this many pixels (one bin per
/// pair of timelines, so fewer columns than for states and events).
const ARROW_BIN_PIXELS: f64 = 8.0;

/// The widest view `pixels` may ask for.
pub const MAX_PIXELS: u32 = 16_384;

/// The most bytes of request headers a request may have (`431` beyond).
pub const MAX_HEADER_BYTES: usize = 16 * 1024;

/// The viewer page.
pub const PAGE: &str = include_str!("serve/page.html");

/// A response body.
#[derive(Debug)]
pub enum Body {
    /// Bytes in memory.
    Bytes(Vec<u8>),
    /// `len` bytes of a served file from `offset`.
    File {
        /// The file.
        path: PathBuf,
        /// First byte.
        offset: u64,
        /// Number of bytes.
        len: u64,
    },
}

/// An HTTP response.
#[derive(Debug)]
pub struct Response {
    /// Status code.
    pub status: u16,
    /// `Content-Type`.
    pub content_type: &'static str,
    /// Further headers.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Body,
}

impl Response {
    fn bytes(status: u16, content_type: &'static str, body: Vec<u8>) -> Response {
        Response {
            status,
            content_type,
            headers: Vec::new(),
            body: Body::Bytes(body),
        }
    }

    fn json(v: &serde_json::Value) -> Response {
        Response::bytes(200, "application/json", v.to_string().into_bytes())
    }

    fn error(status: u16, message: &str) -> Response {
        let v = serde_json::json!({ "error": message });
        Response::bytes(status, "application/json", v.to_string().into_bytes())
    }

    /// The body's length in bytes.
    pub fn len(&self) -> u64 {
        match &self.body {
            Body::Bytes(b) => b.len() as u64,
            Body::File { len, .. } => *len,
        }
    }

    /// Whether the body is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The body read into memory (for tests and small answers).
    pub fn read_body(&self) -> std::io::Result<Vec<u8>> {
        match &self.body {
            Body::Bytes(b) => Ok(b.clone()),
            Body::File { path, offset, len } => {
                let mut f = File::open(path)?;
                f.seek(SeekFrom::Start(*offset))?;
                let mut v = Vec::new();
                f.take(*len).read_to_end(&mut v)?;
                Ok(v)
            }
        }
    }
}

/// One served SLOG-2 file and a pool of open readers.
struct Served {
    path: PathBuf,
    name: String,
    len: u64,
    readers: Mutex<Vec<Slog2Reader<BufReader<File>>>>,
}

/// What `mpelog serve` serves.
pub struct Service {
    files: Vec<Served>,
}

impl std::fmt::Debug for Service {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service")
            .field(
                "files",
                &self.files.iter().map(|s| &s.path).collect::<Vec<_>>(),
            )
            .finish()
    }
}

fn open(path: &Path) -> slog2_format::Result<Slog2Reader<BufReader<File>>> {
    let f = File::open(path).map_err(|e| slog2_format::Error::Io {
        offset: 0,
        source: e,
    })?;
    Slog2Reader::new(BufReader::new(f))
}

/// The query parameters of `url`; `None` when one is malformed or repeated.
fn params(query: &str) -> Option<HashMap<String, String>> {
    let mut out = HashMap::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let v = v.replace('+', " ");
        let v = percent_decode(&v)?;
        if out.insert(k.to_string(), v).is_some() {
            return None;
        }
    }
    Some(out)
}

fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let h = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(h, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A `Range: bytes=...` header against a file of `len` bytes: `Ok(None)` for no
/// range, `Ok(Some((start, end)))` inclusive, `Err(())` when unsatisfiable.
fn byte_range(header: Option<&str>, len: u64) -> Result<Option<(u64, u64)>, ()> {
    let Some(h) = header else { return Ok(None) };
    let spec = h.trim().strip_prefix("bytes=").ok_or(())?;
    if spec.contains(',') {
        return Err(()); // one range only
    }
    let (a, b) = spec.split_once('-').ok_or(())?;
    let (a, b) = (a.trim(), b.trim());
    let range = if a.is_empty() {
        let n: u64 = b.parse().map_err(|_| ())?;
        if n == 0 || len == 0 {
            return Err(());
        }
        (len.saturating_sub(n), len - 1)
    } else {
        let start: u64 = a.parse().map_err(|_| ())?;
        let end: u64 = if b.is_empty() {
            len.saturating_sub(1)
        } else {
            b.parse::<u64>().map_err(|_| ())?.min(len.saturating_sub(1))
        };
        if start >= len || start > end {
            return Err(());
        }
        (start, end)
    };
    Ok(Some(range))
}

/// Sums the primitives and shadows of `a` narrower than their column into
/// shadows, one per topology, timeline (pair) and column, as the file's own
/// shadows are made: what is narrower than [`BIN_PIXELS`] pixels, over columns
/// that wide (arrows: 8 pixels); the preview
/// category of the topology, the union of the boxes, the
/// mean vertex times, and per category (the [`BIN_WEIGHTS`] heaviest) the share of the summed durations
/// (`incl` = `excl`; events and arrows weigh 1 each; a file's shadow weighs
/// its state ratios times its span) and the count. Wider drawables and
/// shadows and composites stay as they are. Returns the number of primitives
/// summed (a file's shadow counts its `num_real_objs`).
pub fn bin_sub_pixel(
    a: &mut slog2_format::window::WindowAnswer,
    from: f64,
    to: f64,
    pixels: u32,
    categories: &HashMap<i32, Category>,
) -> u64 {
    use slog2_format::window::Located;
    use slog2_format::{topology, Coord, Drawable, JStr, Shadow};
    let pixel = (to - from) / f64::from(pixels.max(1));
    let preview: HashMap<i32, i32> = categories
        .values()
        .filter(|c| c.index < 0)
        .map(|c| (c.topology, c.index))
        .collect();
    #[derive(Default)]
    struct Bin {
        node: Option<slog2_format::NodeId>,
        earliest: f64,
        latest: f64,
        count: i64,
        sums: Vec<f64>,
        // (category, weight, count), few: a linear search.
        weights: Vec<(i32, f64, i64)>,
    }
    impl Bin {
        fn weigh(&mut self, category: i32, w: f64, n: i64) {
            match self.weights.iter_mut().find(|x| x.0 == category) {
                Some(x) => {
                    x.1 += w;
                    x.2 += n;
                }
                None => self.weights.push((category, w, n)),
            }
        }
    }
    /// A bin: topology, first and last timeline, column.
    type Key = (i32, i32, i32, i64);
    /// The bin of `key` with an item of `vertices` vertices spanning `(e, l)`
    /// from `node` joined to its box, or `None` when the bin's items have
    /// another vertex count (the item then stays as it is).
    fn join(
        bins: &mut HashMap<Key, Bin>,
        key: Key,
        node: slog2_format::NodeId,
        (e, l): (f64, f64),
        vertices: usize,
    ) -> Option<&mut Bin> {
        let b = bins.entry(key).or_insert_with(|| Bin {
            earliest: e,
            latest: l,
            sums: vec![0.0; vertices],
            ..Bin::default()
        });
        if b.sums.len() != vertices {
            return None;
        }
        b.node.get_or_insert(node);
        b.earliest = b.earliest.min(e);
        b.latest = b.latest.max(l);
        Some(b)
    }
    let mut bins: HashMap<Key, Bin> =
        HashMap::with_capacity((a.drawables.len() + a.shadows.len()).min(1 << 16));
    // Arrows join over ARROW_BIN_PIXELS columns: one bin per pair of timelines.
    // What is narrower than a column of states is summed.
    let column_width = |_topo: i32| -> f64 { pixel * BIN_PIXELS };
    let column_of = |topo: i32, e: f64| -> i64 {
        let w = if topo == topology::ARROW {
            ARROW_BIN_PIXELS
        } else {
            BIN_PIXELS
        };
        (((e - from) / (pixel * w)).floor() as i64).clamp(-1, i64::from(pixels))
    };
    let mut kept = Vec::with_capacity(a.drawables.len());
    let mut summed = 0;
    for d in a.drawables.drain(..) {
        let Drawable::Primitive(p) = &d.value else {
            kept.push(d);
            continue;
        };
        let topo = categories.get(&p.category).map(|c| c.topology);
        let (e, l) = (d.value.earliest(), d.value.latest());
        let (Some(topo), Some(first), Some(last)) = (topo, p.vertices.first(), p.vertices.last())
        else {
            kept.push(d);
            continue;
        };
        if l - e >= column_width(topo) || !preview.contains_key(&topo) {
            kept.push(d);
            continue;
        }
        let key = (topo, first.line_id, last.line_id, column_of(topo, e));
        let Some(b) = join(&mut bins, key, d.node, (e, l), p.vertices.len()) else {
            kept.push(d);
            continue;
        };
        b.count += 1;
        for (s, v) in b.sums.iter_mut().zip(&p.vertices) {
            *s += v.time;
        }
        b.weigh(
            p.category,
            if topo == topology::STATE { l - e } else { 1.0 },
            1,
        );
        summed += 1;
    }
    a.drawables = kept;
    // The file's shadows narrower than a pixel join the same columns.
    let mut kept = Vec::with_capacity(a.shadows.len());
    for sh in a.shadows.drain(..) {
        let v = &sh.value;
        let topo = categories.get(&v.category).map(|c| c.topology);
        let (Some(topo), Some(first), Some(last)) = (topo, v.vertices.first(), v.vertices.last())
        else {
            kept.push(sh);
            continue;
        };
        let (e, l) = (v.earliest, v.latest);
        if l - e >= column_width(topo) || !preview.contains_key(&topo) || v.num_real_objs < 1 {
            kept.push(sh);
            continue;
        }
        let key = (topo, first.line_id, last.line_id, column_of(topo, e));
        let Some(b) = join(&mut bins, key, sh.node, (e, l), v.vertices.len()) else {
            kept.push(sh);
            continue;
        };
        // Mean vertex times weighted by the primitives each shadow stands for.
        let n = v.num_real_objs;
        b.count += n;
        for (s, c) in b.sums.iter_mut().zip(&v.vertices) {
            *s += c.time * n as f64;
        }
        for w in &v.weights {
            let weight = if topo == topology::STATE {
                f64::from(w.incl) * (l - e)
            } else {
                w.count.unwrap_or(1) as f64
            };
            b.weigh(w.category, weight, w.count.unwrap_or(0));
        }
        summed += n as u64;
    }
    a.shadows = kept;
    // In a fixed order (the answer is deterministic).
    let mut bins: Vec<_> = bins.into_iter().collect();
    bins.sort_unstable_by_key(|(k, _)| *k);
    for ((topo, l0, l1, _), mut b) in bins {
        let n = b.sums.len();
        let vertices = b
            .sums
            .iter()
            .enumerate()
            .map(|(i, s)| Coord {
                time: s / b.count as f64,
                line_id: if i + 1 == n { l1 } else { l0 },
            })
            .collect();
        let total: f64 = b.weights.iter().map(|w| w.1).sum();
        let kinds = b.weights.len();
        b.weights
            .sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
        b.weights.truncate(BIN_WEIGHTS);
        let weights = b
            .weights
            .iter()
            .map(|&(c, w, k)| {
                let r = if total > 0.0 {
                    (w / total) as f32
                } else {
                    1.0 / kinds as f32
                };
                slog2_format::CategoryWeight {
                    category: c,
                    incl: r,
                    excl: r,
                    count: Some(k),
                }
            })
            .collect();
        a.shadows.push(Located {
            node: b.node.unwrap_or(slog2_format::NodeId { depth: 0, xpos: 0 }),
            value: Shadow {
                category: preview[&topo],
                info: JStr::new(""),
                vertices,
                earliest: b.earliest,
                latest: b.latest,
                num_real_objs: b.count,
                weights,
            },
        });
    }
    summed
}

/// Writes [`Lines::shadow_json`]`(s)` to `out` without building it (the same
/// keys and values; a zoomed-out answer has tens of thousands of shadows).
/// `infos` keeps each category's text of an empty info buffer.
pub fn write_shadow_json(
    out: &mut Vec<u8>,
    s: &slog2_format::window::Located<slog2_format::Shadow>,
    lines: &Lines,
    infos: &mut HashMap<i32, Option<String>>,
) {
    use std::io::Write as _;
    let v = &s.value;
    let c = lines.categories.get(&v.category);
    let info = if v.info.bytes.is_empty() {
        infos
            .entry(v.category)
            .or_insert_with(|| match c {
                None => Some(String::new()),
                Some(c) => slog2_format::info::labelled(&c.keys, &c.types, &[]).ok(),
            })
            .clone()
    } else {
        None
    };
    let Some(info) = info else {
        // A shadow with info bytes (never in files the Java tools wrote).
        let _ = serde_json::to_writer(&mut *out, &lines.shadow_json(s));
        return;
    };
    fn time(out: &mut Vec<u8>, t: f64) {
        if t.is_finite() {
            let _ = serde_json::to_writer(&mut *out, &t);
        } else {
            let _ = serde_json::to_writer(&mut *out, &format!("{t:?}"));
        }
    }
    fn ratio(out: &mut Vec<u8>, x: f32) {
        // As `items::ratio_json`: the shortest f32 text read as an f64 (on
        // the stack: tens of thousands of weights in a zoomed-out answer).
        let mut buf = [0u8; 64];
        let mut cur = std::io::Cursor::new(&mut buf[..]);
        let n = write!(cur, "{x:?}").ok().map(|()| cur.position() as usize);
        let r = n.and_then(|n| std::str::from_utf8(&buf[..n]).ok()?.parse::<f64>().ok());
        match r {
            Some(r) if r.is_finite() => {
                let _ = serde_json::to_writer(&mut *out, &r);
            }
            _ => {
                let _ = serde_json::to_writer(&mut *out, &format!("{x:?}"));
            }
        }
    }
    let _ = write!(out, "{{\"category\":{},\"end\":", v.category);
    time(out, v.latest);
    out.extend_from_slice(b",\"info\":");
    let _ = serde_json::to_writer(&mut *out, &info);
    out.extend_from_slice(b",\"kind\":\"shadow\",\"name\":");
    match c {
        Some(c) => {
            let _ = serde_json::to_writer(&mut *out, &c.name.text());
        }
        None => out.extend_from_slice(b"null"),
    }
    let _ = write!(
        out,
        ",\"node\":[{},{}],\"num_real_objs\":{},\"start\":",
        s.node.depth, s.node.xpos, v.num_real_objs
    );
    time(out, v.earliest);
    out.extend_from_slice(b",\"topology\":");
    match c {
        Some(c) => {
            let _ = serde_json::to_writer(&mut *out, &slog2_format::topology::name(c.topology));
        }
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"vertices\":[");
    for (i, p) in v.vertices.iter().enumerate() {
        out.extend_from_slice(if i > 0 { b",[" } else { b"[" });
        let _ = serde_json::to_writer(&mut *out, &p.time);
        let _ = write!(out, ",{}]", p.line_id);
    }
    out.extend_from_slice(b"],\"weights\":[");
    for (i, w) in v.weights.iter().enumerate() {
        let sep = if i > 0 { "," } else { "" };
        let _ = write!(out, "{sep}{{\"category\":{},\"count\":", w.category);
        match w.count {
            Some(n) => {
                let _ = write!(out, "{n}");
            }
            None => out.extend_from_slice(b"null"),
        }
        out.extend_from_slice(b",\"excl\":");
        ratio(out, w.excl);
        out.extend_from_slice(b",\"incl\":");
        ratio(out, w.incl);
        out.push(b'}');
    }
    out.extend_from_slice(b"]}");
}

impl Service {
    /// Serves the SLOG-2 files `paths` (each is opened once to check it).
    pub fn new(paths: &[PathBuf]) -> slog2_format::Result<Service> {
        let mut files = Vec::new();
        for p in paths {
            let r = open(p)?;
            let len = std::fs::metadata(p)
                .map_err(|e| slog2_format::Error::Io {
                    offset: 0,
                    source: e,
                })?
                .len();
            files.push(Served {
                path: p.clone(),
                name: p
                    .file_name()
                    .map_or("trace".into(), |n| n.to_string_lossy().into_owned()),
                len,
                readers: Mutex::new(vec![r]),
            });
        }
        Ok(Service { files })
    }

    /// Runs `f` with a reader of file `k` from the pool (or a new one).
    fn with_reader<T>(
        &self,
        k: usize,
        f: impl FnOnce(&mut Slog2Reader<BufReader<File>>) -> T,
    ) -> slog2_format::Result<T> {
        let s = &self.files[k];
        let taken = s.readers.lock().map(|mut v| v.pop()).unwrap_or(None);
        let mut r = match taken {
            Some(r) => r,
            None => open(&s.path)?,
        };
        let out = f(&mut r);
        if let Ok(mut v) = s.readers.lock() {
            if v.len() < 16 {
                v.push(r);
            }
        }
        Ok(out)
    }

    /// Answers one request: `method`, the request target `url` (path and
    /// query) and the `Range` header if any.
    pub fn handle(&self, method: &str, url: &str, range: Option<&str>) -> Response {
        if method != "GET" && method != "HEAD" {
            let mut r = Response::error(405, "only GET and HEAD");
            r.headers.push(("Allow".into(), "GET, HEAD".into()));
            return r;
        }
        if url.len() > 4096 {
            return Response::error(414, "request target too long");
        }
        let (path, query) = url.split_once('?').unwrap_or((url, ""));
        let Some(q) = params(query) else {
            return Response::error(400, "malformed query");
        };
        let known: &[&str] = match path {
            "/" | "/index.html" => &[],
            "/api/info" | "/trace" => &["file"],
            "/api/window" => &["file", "from", "to", "pixels"],
            "/api/export" => &["file", "from", "to"],
            _ => return Response::error(404, "no such page: the viewer is at /"),
        };
        if let Some(k) = q.keys().find(|k| !known.contains(&k.as_str())) {
            return Response::error(400, &format!("unknown parameter {k:?}"));
        }
        let file = match q.get("file").map(|v| v.parse::<usize>()) {
            None => 0,
            Some(Ok(k)) if k < self.files.len() => k,
            _ => return Response::error(400, "file: the index of a served file"),
        };
        match path {
            "/api/info" => self.info(file),
            "/api/window" => self.window(file, &q),
            "/api/export" => self.export(file, &q),
            "/trace" => self.trace(file, range),
            _ => {
                let mut r =
                    Response::bytes(200, "text/html; charset=utf-8", PAGE.as_bytes().to_vec());
                r.headers.push(("Cache-Control".into(), "no-store".into()));
                r
            }
        }
    }

    fn info(&self, k: usize) -> Response {
        let names: Vec<&str> = self.files.iter().map(|f| f.name.as_str()).collect();
        let v = self.with_reader(k, |r| {
            let root = r.tree_dir().and_then(|t| t.value.root().copied());
            let legend: Vec<serde_json::Value> = r
                .categories()
                .map(|c| {
                    c.value
                        .categories
                        .iter()
                        .map(|c| {
                            serde_json::json!({
                                "index": c.index,
                                "name": c.name.text(),
                                "topology": slog2_format::topology::name(c.topology),
                                "color": format!("#{:02x}{:02x}{:02x}", c.argb[1], c.argb[2], c.argb[3]),
                            })
                        })
                        .collect()
                })
                .unwrap_or_default();
            let views: Vec<serde_json::Value> = r
                .line_id_maps()
                .map(|m| {
                    m.value
                        .maps
                        .iter()
                        .map(|m| {
                            serde_json::json!({
                                "title": m.title.text(),
                                "labels": m.labels.iter().map(|l| l.text()).collect::<Vec<_>>(),
                                "rows": m.rows.iter().map(|r| serde_json::json!({"line": r.line_id, "values": r.values})).collect::<Vec<_>>(),
                            })
                        })
                        .collect()
                })
                .unwrap_or_default();
            serde_json::json!({
                "files": names,
                "file": k,
                "bytes": self.files[k].len,
                "time_min": root.map(|e| e.earliest),
                "time_max": root.map(|e| e.latest),
                "depth": root.map(|e| e.id.depth),
                "views": views,
                "legend": legend,
            })
        });
        match v {
            Ok(v) => Response::json(&v),
            Err(e) => Response::error(500, &e.to_string()),
        }
    }

    fn window(&self, k: usize, q: &HashMap<String, String>) -> Response {
        let num = |key: &str| q.get(key).map(|v| v.parse::<f64>());
        let (from, to) = match (num("from"), num("to")) {
            (Some(Ok(a)), Some(Ok(b))) if a.is_finite() && b.is_finite() && a < b => (a, b),
            _ => return Response::error(400, "from and to: finite seconds, from < to"),
        };
        let pixels = match q.get("pixels").map(|v| v.parse::<u32>()) {
            Some(Ok(p)) if (1..=MAX_PIXELS).contains(&p) => p,
            None => 1600,
            _ => return Response::error(400, "pixels: 1 to 16384"),
        };
        let answer = self.with_reader(k, |r| -> slog2_format::Result<Vec<u8>> {
            let started = Instant::now();
            let before = r.counters();
            let categories: HashMap<i32, Category> = r
                .categories()
                .map(|c| {
                    c.value
                        .categories
                        .iter()
                        .map(|c| (c.index, c.clone()))
                        .collect()
                })
                .unwrap_or_default();
            // Zoomed out (more leaves in the window than pixels): the tree is
            // read at the resolution of the summary's columns, since whatever
            // is narrower than a column is summed anyway.
            let leaves = r.tree_dir().map_or(0, |t| {
                t.value
                    .entries
                    .iter()
                    .filter(|e| e.id.depth == 0 && e.latest >= from && e.earliest <= to)
                    .count()
            });
            let mut px = pixels;
            let (answer, binned) = loop {
                let read = if leaves > px as usize {
                    ((f64::from(px) / BIN_PIXELS) as u32).max(1)
                } else {
                    px
                };
                let mut a = r.window_preview(from, to, read)?;
                let binned =
                    if a.drawables.len() + a.shadows.len() > BIN_ITEMS_PER_PIXEL * px as usize {
                        bin_sub_pixel(&mut a, from, to, px, &categories)
                    } else {
                        0
                    };
                if a.drawables.len() + a.shadows.len() <= MAX_ITEMS || px == 1 {
                    break (a, binned);
                }
                px = (px / 2).max(1);
            };
            let after = r.counters();
            let lines = Lines {
                categories: categories.iter().map(|(k, c)| (*k, c)).collect(),
            };
            // Written item by item: no tree of JSON values for the whole answer.
            let mut out =
                Vec::with_capacity(256 * (answer.drawables.len() + answer.shadows.len()) + 256);
            let num = |v: f64| serde_json::Value::from(v).to_string();
            out.extend_from_slice(
                format!(
                    "{{\"from\":{},\"to\":{},\"pixels\":{px},\"binned\":{binned},\"drawables\":[",
                    num(from),
                    num(to)
                )
                .as_bytes(),
            );
            for (i, d) in answer.drawables.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                serde_json::to_writer(&mut out, &lines.drawable_json(d)).map_err(|e| {
                    slog2_format::Error::Io {
                        offset: 0,
                        source: e.into(),
                    }
                })?;
            }
            out.extend_from_slice(b"],\"shadows\":[");
            let mut infos = HashMap::new();
            for (i, sh) in answer.shadows.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_shadow_json(&mut out, sh, &lines, &mut infos);
            }
            out.extend_from_slice(
                format!(
                    "],\"cost\":{{\"nodes_read\":{},\"bytes_read\":{},\"micros\":{}}}}}",
                    after.nodes_read - before.nodes_read,
                    after.bytes_read - before.bytes_read,
                    started.elapsed().as_micros() as u64
                )
                .as_bytes(),
            );
            Ok(out)
        });
        match answer {
            Ok(Ok(v)) => Response::bytes(200, "application/json", v),
            Ok(Err(e)) | Err(e) => Response::error(422, &e.to_string()),
        }
    }

    fn export(&self, k: usize, q: &HashMap<String, String>) -> Response {
        let num = |key: &str| q.get(key).map(|v| v.parse::<f64>());
        let (from, to) = match (num("from"), num("to")) {
            (Some(Ok(a)), Some(Ok(b))) if a.is_finite() && b.is_finite() && a < b => (a, b),
            _ => return Response::error(400, "from and to: finite seconds, from < to"),
        };
        let out = self.with_reader(k, |r| {
            let mut sink = crate::export::perfetto::PerfettoTrace::new(Vec::new());
            let opts = crate::export::Options::default().window(Some(from), Some(to));
            crate::export::slog2(r, &opts, &mut sink).map(|_| sink.into_inner())
        });
        match out {
            Ok(Ok(bytes)) => {
                let mut r = Response::bytes(200, "application/octet-stream", bytes);
                r.headers.push((
                    "Content-Disposition".into(),
                    format!(
                        "attachment; filename=\"{}-{from}-{to}.pftrace\"",
                        self.files[k].name.replace('"', "")
                    ),
                ));
                r
            }
            Ok(Err(e)) => Response::error(422, &e.to_string()),
            Err(e) => Response::error(500, &e.to_string()),
        }
    }

    fn trace(&self, k: usize, range: Option<&str>) -> Response {
        let s = &self.files[k];
        match byte_range(range, s.len) {
            Ok(None) => {
                let mut r = Response {
                    status: 200,
                    content_type: "application/octet-stream",
                    headers: Vec::new(),
                    body: Body::File {
                        path: s.path.clone(),
                        offset: 0,
                        len: s.len,
                    },
                };
                r.headers.push(("Accept-Ranges".into(), "bytes".into()));
                r
            }
            Ok(Some((a, b))) => {
                let mut r = Response {
                    status: 206,
                    content_type: "application/octet-stream",
                    headers: Vec::new(),
                    body: Body::File {
                        path: s.path.clone(),
                        offset: a,
                        len: b - a + 1,
                    },
                };
                r.headers.push(("Accept-Ranges".into(), "bytes".into()));
                r.headers
                    .push(("Content-Range".into(), format!("bytes {a}-{b}/{}", s.len)));
                r
            }
            Err(()) => {
                let mut r = Response::error(416, "range not satisfiable");
                r.headers
                    .push(("Content-Range".into(), format!("bytes */{}", s.len)));
                r
            }
        }
    }
}
