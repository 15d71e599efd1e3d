//! The HTTP side of `mpelog serve`: a viewer page and the API it reads, as a
//! pure function from a request to a response ([`Service::handle`]), so the
//! server loop is a few lines and every answer can be tested without sockets.
//!
//! Endpoints (other tools may use them; the names are stable):
//! - `GET /` — the viewer page (plain HTML, CSS and JavaScript embedded in
//!   the binary; no network at run time); with [`Service::comparing`]
//!   (`serve A B --compare`) the page of two runs compared.
//! - `GET /viewer[?file=K][&embed=1]` — the viewer page of file K, always
//!   (`embed=1`: without its file chooser, as the page of two runs shows it).
//! - `GET /compare` — the page of two runs compared (files 0 and 1), always
//!   when two files or more are served.
//! - `GET /api/compare?a_from=T0&a_to=T1&b_from=T2&b_to=T3[&pixels=W][&a=K][&b=L][&limit=N]`
//!   — the state categories of file K (default 0) over `[T0, T1]` and of file
//!   L (default 1) over `[T2, T3]` per timeline, compared as `mpelog stats
//!   A --compare B` compares them, largest change first
//!   ([`crate::compare::summaries`] of the windows read `W` pixels wide, as
//!   `/api/window` reads them; `exact` when no shadow went in), the first N
//!   rows of each table (default [`DEFAULT_COMPARE_ROWS`]).
//! - `GET /api/info[?file=K][&pixels=W][&view=V][&rows=A-B]` — the file's time range,
//!   views (line-ID maps with their rows), legend (index, name, topology,
//!   colour), the names of the files served, and the whole trace's summary
//!   from the root node alone (`summary`, `W` columns wide), for a first
//!   frame drawn at once.
//! - `GET /api/window?from=T0&to=T1&pixels=W[&view=V][&file=K]` — the
//!   window's [`Summary`] `W` columns wide with the rows of view `V`, as
//!   [`Summary::write_json`] writes it (what `render` draws and `mpelog window
//!   --summary` prints), plus what it cost (`nodes_read`, `bytes_read`,
//!   `micros`). Its size is bounded by rows × columns, whatever the trace.
//! - `GET /api/window?…&format=bin` — the same summary in the binary form
//!   of spec/queries.md §6.6, followed by the cost as three little-endian
//!   `u64` (nodes read, bytes read, microseconds); `&rows=A-B` keeps the
//!   cells, states, events and arrows of rows A to B only (a viewer showing
//!   some rows of many).
//! - `GET /api/search?category=C&t=T&dir=next|prev[&end=E&line=L][&view=V][&file=K]`
//!   — the next or previous real primitive of category C after or before T
//!   ([`crate::search::find`]; with E and L, the one right after or before
//!   the primitive of C starting at T with that end and line, ties included:
//!   [`crate::search::find_after`]) with its row's values in view V, or
//!   `null`.
//! - `GET /api/window?…&waits=1` — with the file's wait index
//!   ([`Service::with_waits`]) the summary also carries the waits and the
//!   critical path (spec/queries.md §6.7; binary form version 3).
//! - `GET /api/waits?from=T0&to=T1[&file=K][&instances=N][&line=L][&pixels=W]`
//!   — where time is lost in the window: the wait-state patterns ranked by
//!   their seconds in it (each with its sub-patterns, per timeline, as
//!   `mpelog analyze --from T0 --to T1 --json`), and the N worst waits
//!   overlapping it (with L: timeline L's, in time order); with W, the waits
//!   whose causes a picture W columns wide marks (at most 64, as `render`).
//! - `GET /api/export?from=T0&to=T1[&file=K]` — the window as a Perfetto trace.
//! - `GET /trace[?file=K]` — the file's bytes, with HTTP Range requests (`206`
//!   answers; `416` for a range outside the file).
//!
//! Only the named files are served; any other path is `404`, a malformed or
//! unknown parameter `400`, a method other than GET or HEAD `405`.
//!
//! Who may ask is [`Access`]'s to decide, before [`Service::handle`]: the
//! `Host` and `Origin` checks and the token that every request needs off
//! loopback (the query parameter `token`, accepted on every path,
//! `Authorization: Bearer`, or the cookie the page sets). [`tls`] serves the
//! same over HTTPS.

mod access;
mod compare;
pub mod tls;
pub mod transport;
mod waits;

pub use compare::{DEFAULT_COMPARE_ROWS, MAX_COMPARE_ROWS};
pub use waits::{DEFAULT_INSTANCES, MAX_INSTANCES};

pub use access::{Access, Decision, Head, Token, TOKEN_PARAM, TOKEN_VAR};

use crate::summary::Summary;
use slog2_format::{Category, NodeCache, Slog2Reader};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The widest view `pixels` may ask for.
pub const MAX_PIXELS: u32 = 16_384;

/// The most bytes of request headers a request may have (`431` beyond).
pub const MAX_HEADER_BYTES: usize = 16 * 1024;

/// The viewer page.
pub const PAGE: &str = include_str!("serve/page.html");

/// The page of two runs compared: two viewers ([`PAGE`]) stacked, zoomed and
/// panned together, and the table of `/api/compare`.
pub const COMPARE_PAGE: &str = include_str!("serve/compare.html");

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
        Response::bytes(
            200,
            "application/json",
            crate::json_text::to_string(v).into_bytes(),
        )
    }

    /// A page of the viewer, never cached (a new server may serve another).
    fn page(html: &'static str) -> Response {
        let mut r = Response::bytes(200, "text/html; charset=utf-8", html.as_bytes().to_vec());
        r.headers.push(("Cache-Control".into(), "no-store".into()));
        r
    }

    fn error(status: u16, message: &str) -> Response {
        let v = serde_json::json!({ "error": message });
        Response::bytes(
            status,
            "application/json",
            crate::json_text::to_string(&v).into_bytes(),
        )
    }

    /// The body's length in bytes.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("t.slog2");
    /// # std::fs::write(&path, out.into_inner())?;
    /// let service = mpelog::serve::Service::new(&[path.clone()])?;
    /// let whole = service.handle("GET", "/trace", None);
    /// assert_eq!(whole.len(), std::fs::metadata(&path)?.len());
    /// assert_eq!(service.handle("GET", "/trace", Some("bytes=0-9")).len(), 10);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn len(&self) -> u64 {
        match &self.body {
            Body::Bytes(b) => b.len() as u64,
            Body::File { len, .. } => *len,
        }
    }

    /// Whether the body is empty.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("t.slog2");
    /// # std::fs::write(&path, out.into_inner())?;
    /// let service = mpelog::serve::Service::new(&[path])?;
    /// assert!(!service.handle("GET", "/trace", None).is_empty());
    /// assert!(!service.handle("GET", "/nowhere", None).is_empty()); // a 404 says why
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The body read into memory (for tests and small answers).
    ///
    /// # Errors
    ///
    /// The I/O error of opening, seeking or reading the body's file.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("t.slog2");
    /// # std::fs::write(&path, out.into_inner())?;
    /// let service = mpelog::serve::Service::new(&[path.clone()])?;
    /// let part = service.handle("GET", "/trace", Some("bytes=0-9"));
    /// assert_eq!(part.read_body()?, std::fs::read(&path)?[..10]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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

/// Pixels, view and rows (first and last) of a picture request.
type PictureParams = (u32, usize, Option<(u32, u32)>);

/// A picture's parameters: `pixels` (default `default_pixels`), `view`
/// (default 0) and `rows` (`FIRST-LAST`, default all), or the `400` answer.
fn picture_params(
    q: &HashMap<String, String>,
    default_pixels: u32,
) -> Result<PictureParams, Response> {
    let pixels = match q.get("pixels").map(|v| v.parse::<u32>()) {
        Some(Ok(p)) if (1..=MAX_PIXELS).contains(&p) => p,
        None => default_pixels,
        _ => return Err(Response::error(400, "pixels: 1 to 16384")),
    };
    let view = match q.get("view").map(|v| v.parse::<usize>()) {
        None => 0,
        Some(Ok(v)) => v,
        _ => return Err(Response::error(400, "view: the index of a view")),
    };
    let rows = match q.get("rows").map(|v| parse_rows(v)) {
        None => None,
        Some(Some(r)) => Some(r),
        Some(None) => return Err(Response::error(400, "rows: FIRST-LAST, row indexes")),
    };
    Ok((pixels, view, rows))
}

/// `FIRST-LAST` (row indexes, inclusive) as a pair.
fn parse_rows(v: &str) -> Option<(u32, u32)> {
    let (a, b) = v.split_once('-')?;
    let (a, b) = (a.parse::<u32>().ok()?, b.parse::<u32>().ok()?);
    (a <= b).then_some((a, b))
}

/// How many window buffers [`Service`] keeps between requests (about one per
/// request answered at once).
const POOLED_BUFS: usize = 4;

/// The decompressed nodes [`Service`] keeps per compressed file (a plain
/// file's nodes are in the operating system's page cache).
pub const NODE_CACHE_BYTES: usize = 128 << 20;

/// One served SLOG-2 file and a pool of open readers.
struct Served {
    path: PathBuf,
    name: String,
    len: u64,
    readers: Mutex<Vec<Slog2Reader<BufReader<File>>>>,
    /// Its decompressed nodes (a compressed file's), shared by its readers.
    nodes: Arc<NodeCache>,
    /// Its wait index ([`Service::with_waits`]).
    waits: Option<crate::waits::WaitIndex>,
}

/// What `mpelog serve` serves.
pub struct Service {
    files: Vec<Served>,
    /// Window buffers kept between picture requests: a buffer grown once is
    /// not allocated, copied and zeroed again for every answer.
    bufs: Mutex<Vec<slog2_format::WindowBuf>>,
    /// Whether `/` is the page of two runs compared ([`COMPARE_PAGE`]).
    comparing: bool,
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

/// A file [`Service::named`] cannot serve: which, and why.
///
/// ```
/// use std::path::PathBuf;
/// let missing = PathBuf::from("/nonexistent/a.slog2");
/// let e = mpelog::serve::Service::new(&[missing.clone()]).unwrap_err();
/// assert_eq!(e.path, missing);
/// assert!(matches!(e.source, slog2_format::Error::Io { offset: 0, .. }));
/// ```
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
#[non_exhaustive]
pub struct OpenError {
    /// The file.
    pub path: PathBuf,
    /// Why it cannot be served.
    #[source]
    pub source: slog2_format::Error,
}

fn open(path: &Path, nodes: &Arc<NodeCache>) -> slog2_format::Result<Slog2Reader<BufReader<File>>> {
    let f = File::open(path).map_err(|e| slog2_format::Error::Io {
        offset: 0,
        source: e,
    })?;
    let mut r = Slog2Reader::new(BufReader::new(f))?;
    r.set_node_cache(Arc::clone(nodes));
    Ok(r)
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

impl Service {
    /// Serves the SLOG-2 files `paths` (each is opened once to check it),
    /// each shown by its file name.
    ///
    /// # Errors
    ///
    /// As [`Service::named`].
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("t.slog2");
    /// # std::fs::write(&path, out.into_inner())?;
    /// let service = mpelog::serve::Service::new(&[path])?;
    /// let info = service.handle("GET", "/api/info", None);
    /// let v: serde_json::Value = serde_json::from_slice(&info.read_body()?)?;
    /// assert_eq!(v["files"][0], "t.slog2"); // shown by its file name
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(paths: &[PathBuf]) -> Result<Service, OpenError> {
        let named: Vec<(PathBuf, String)> = paths
            .iter()
            .map(|p| {
                let name = p
                    .file_name()
                    .map_or("trace".into(), |n| n.to_string_lossy().into_owned());
                (p.clone(), name)
            })
            .collect();
        Service::named(&named)
    }

    /// Serves the SLOG-2 files of `files`, each shown by the name beside it
    /// (a converted input by the name of the trace it came from).
    ///
    /// # Errors
    ///
    /// [`OpenError`] naming the first file that cannot be served: its
    /// [`Slog2Reader::new`](slog2_format::Slog2Reader::new) error, or
    /// [`Error::Io`](slog2_format::Error::Io) at offset 0 when it cannot be
    /// opened or its length read.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("t.slog2");
    /// # std::fs::write(&path, out.into_inner())?;
    /// let service = mpelog::serve::Service::named(&[(path, "run 1.clog2".to_string())])?;
    /// let v: serde_json::Value = serde_json::from_slice(&service.handle("GET", "/api/info", None).read_body()?)?;
    /// assert_eq!(v["files"][0], "run 1.clog2");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn named(files_and_names: &[(PathBuf, String)]) -> Result<Service, OpenError> {
        let mut files = Vec::new();
        for (p, name) in files_and_names {
            let failed = |source| OpenError {
                path: p.clone(),
                source,
            };
            let nodes = Arc::new(NodeCache::new(NODE_CACHE_BYTES));
            let r = open(p, &nodes).map_err(failed)?;
            let len = std::fs::metadata(p)
                .map_err(|e| {
                    failed(slog2_format::Error::Io {
                        offset: 0,
                        source: e,
                    })
                })?
                .len();
            files.push(Served {
                path: p.clone(),
                name: name.clone(),
                len,
                readers: Mutex::new(vec![r]),
                nodes,
                waits: None,
            });
        }
        Ok(Service {
            files,
            bufs: Mutex::new(Vec::new()),
            comparing: false,
        })
    }

    /// The same service with the page of two runs compared at `/` (`mpelog
    /// serve A B --compare`): its first two files stacked, zoomed and panned
    /// together, with the table of `/api/compare`; the one-run viewer stays at
    /// `/viewer`.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("t.slog2");
    /// # std::fs::write(&path, out.into_inner())?;
    /// use mpelog::serve::{Service, COMPARE_PAGE, PAGE};
    /// let s = Service::new(&[path.clone(), path])?.comparing();
    /// assert_eq!(s.handle("GET", "/", None).read_body()?, COMPARE_PAGE.as_bytes());
    /// assert_eq!(s.handle("GET", "/viewer?file=1", None).read_body()?, PAGE.as_bytes());
    /// let c = s.handle("GET", "/api/compare?a_from=0&a_to=0.1&b_from=0&b_to=0.1&pixels=100", None);
    /// let v: serde_json::Value = serde_json::from_slice(&c.read_body()?)?;
    /// // The same file twice: nothing changed.
    /// assert!(v["timelines"].as_array().unwrap().iter().all(|r| r["a"] == r["b"]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn comparing(mut self) -> Service {
        self.comparing = true;
        self
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
            None => open(&s.path, &s.nodes)?,
        };
        let out = f(&mut r);
        if let Ok(mut v) = s.readers.lock() {
            if v.len() < 16 {
                v.push(r);
            }
        }
        Ok(out)
    }

    /// Runs `f` with a window buffer from the pool (or a new one), kept for
    /// the next request afterwards (at most [`POOLED_BUFS`]).
    fn with_buf<T>(&self, f: impl FnOnce(&mut slog2_format::WindowBuf) -> T) -> T {
        let taken = self.bufs.lock().map(|mut v| v.pop()).unwrap_or(None);
        let mut buf = taken.unwrap_or_default();
        let out = f(&mut buf);
        if let Ok(mut v) = self.bufs.lock() {
            if v.len() < POOLED_BUFS {
                v.push(buf);
            }
        }
        out
    }

    /// Answers one request: `method`, the request target `url` (path and
    /// query) and the `Range` header if any.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("t.slog2");
    /// # std::fs::write(&path, out.into_inner())?;
    /// let service = mpelog::serve::Service::new(&[path])?;
    /// assert_eq!(service.handle("GET", "/", None).status, 200); // the viewer page
    /// assert_eq!(service.handle("POST", "/", None).status, 405);
    /// assert_eq!(service.handle("GET", "/api/window?from=x", None).status, 400);
    /// let w = service.handle("GET", "/api/window?from=0&to=0.01&pixels=50", None);
    /// let v: serde_json::Value = serde_json::from_slice(&w.read_body()?)?;
    /// assert_eq!(v["columns"], 50);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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
            "/" | "/index.html" | "/compare" => &[],
            "/viewer" => &["file", "embed"],
            "/api/compare" => &[
                "a", "b", "a_from", "a_to", "b_from", "b_to", "pixels", "limit", "rows",
            ],
            "/api/info" => &["file", "pixels", "view", "rows"],
            "/trace" => &["file"],
            "/api/window" => &[
                "file", "from", "to", "pixels", "view", "rows", "format", "waits",
            ],
            "/api/waits" => &["file", "from", "to", "instances", "line", "pixels"],
            "/api/search" => &["file", "view", "category", "t", "dir", "end", "line"],
            "/api/export" => &["file", "from", "to"],
            _ => return Response::error(404, "no such page: the viewer is at /"),
        };
        // `token` is the access check's ([`Access`]), on every path.
        let unknown = |k: &&String| !known.contains(&k.as_str()) && k.as_str() != TOKEN_PARAM;
        if let Some(k) = q.keys().find(unknown) {
            return Response::error(400, &format!("unknown parameter {k:?}"));
        }
        let file = match q.get("file").map(|v| v.parse::<usize>()) {
            None => 0,
            Some(Ok(k)) if k < self.files.len() => k,
            _ => return Response::error(400, "file: the index of a served file"),
        };
        match path {
            "/api/info" => self.info(file, &q),
            "/api/window" => self.window(file, &q),
            "/api/search" => self.search(file, &q),
            "/api/export" => self.export(file, &q),
            "/trace" => self.trace(file, range),
            "/api/compare" => self.compare(&q),
            "/api/waits" => self.waits(file, &q),
            "/compare" if self.files.len() < 2 => {
                Response::error(404, "one file served: nothing to compare it with")
            }
            "/compare" => Response::page(COMPARE_PAGE),
            "/viewer" => Response::page(PAGE),
            _ if self.comparing => Response::page(COMPARE_PAGE),
            _ => Response::page(PAGE),
        }
    }

    fn info(&self, k: usize, q: &HashMap<String, String>) -> Response {
        let names: Vec<&str> = self.files.iter().map(|f| f.name.as_str()).collect();
        let (pixels, view, rows) = match picture_params(q, 1000) {
            Ok(p) => p,
            Err(r) => return r,
        };
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
            // The root's summary of the whole trace (one node read), for a
            // first frame drawn at once.
            let summary = root.and_then(|e| {
                let legend: Vec<Category> = r.category_list().to_vec();
                let map = r.line_id_maps().and_then(|m| m.value.maps.get(view).cloned());
                let mut buf = slog2_format::WindowBuf::new();
                let to = crate::slices::next_up(e.latest);
                r.window_to_depth_into(&mut buf, e.earliest, to, e.id.depth)
                    .ok()?;
                let s = Summary::of_window_rows(
                    &buf,
                    &legend,
                    map.as_ref(),
                    e.earliest,
                    e.latest,
                    pixels,
                    rows,
                );
                let mut out = Vec::new();
                s.write_json(&mut out);
                serde_json::from_slice::<serde_json::Value>(&out).ok()
            });
            serde_json::json!({
                "files": names,
                "file": k,
                "waits": self.files[k].waits.is_some(),
                "patterns": waits::patterns_json(),
                "palette": waits::palette_json(),
                "summary": summary,
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
        let (pixels, view, rows) = match picture_params(q, 1600) {
            Ok(p) => p,
            Err(r) => return r,
        };
        let binary = match q.get("format").map(String::as_str) {
            None | Some("json") => false,
            Some("bin") => true,
            Some(_) => return Response::error(400, "format: json or bin"),
        };
        // With `waits=1`, the file's waits (spec/queries.md §6.7), if it has them.
        let waits = match q.get("waits").map(String::as_str) {
            None | Some("0") => None,
            Some("1") => self.files[k].waits.as_ref(),
            Some(_) => return Response::error(400, "waits: 0 or 1"),
        };
        let answer = self.with_reader(k, |r| -> slog2_format::Result<Vec<u8>> {
            let started = Instant::now();
            let before = r.counters();
            let legend: Vec<Category> = r.category_list().to_vec();
            let map = r
                .line_id_maps()
                .and_then(|m| m.value.maps.get(view).cloned());
            let mut s = self.with_buf(|buf| {
                crate::summary::query(r, buf, from, to, pixels)?;
                Ok::<_, slog2_format::Error>(Summary::of_window_rows(
                    buf,
                    &legend,
                    map.as_ref(),
                    from,
                    to,
                    pixels,
                    rows,
                ))
            })?;
            if let Some(index) = waits {
                s.add_waits(index);
            }
            let after = r.counters();
            let mut out = Vec::with_capacity(1 << 16);
            if binary {
                s.write_bin(&mut out);
                // The cost: nodes read, bytes read, microseconds.
                out.extend_from_slice(&(after.nodes_read - before.nodes_read).to_le_bytes());
                out.extend_from_slice(&(after.bytes_read - before.bytes_read).to_le_bytes());
                out.extend_from_slice(&(started.elapsed().as_micros() as u64).to_le_bytes());
                return Ok(out);
            }
            s.write_json(&mut out);
            // The cost joins the summary's object.
            out.pop();
            out.extend_from_slice(
                format!(
                    ",\"cost\":{{\"nodes_read\":{},\"bytes_read\":{},\"micros\":{}}}}}",
                    after.nodes_read - before.nodes_read,
                    after.bytes_read - before.bytes_read,
                    started.elapsed().as_micros() as u64
                )
                .as_bytes(),
            );
            Ok(out)
        });
        match answer {
            Ok(Ok(v)) if binary => Response::bytes(200, "application/octet-stream", v),
            Ok(Ok(v)) => Response::bytes(200, "application/json", v),
            Ok(Err(e)) | Err(e) => Response::error(422, &e.to_string()),
        }
    }

    /// `/api/search`: the next (`dir=next`) or previous (`dir=prev`) real
    /// primitive of `category` after or before time `t`, with its row in view
    /// `view`, or `null`.
    fn search(&self, k: usize, q: &HashMap<String, String>) -> Response {
        let Some(Ok(category)) = q.get("category").map(|v| v.parse::<i32>()) else {
            return Response::error(400, "category: a category index");
        };
        let t = match q.get("t").map(|v| v.parse::<f64>()) {
            Some(Ok(t)) if !t.is_nan() => t,
            None => f64::NEG_INFINITY,
            _ => return Response::error(400, "t: seconds"),
        };
        let dir = match q.get("dir").map(String::as_str) {
            None | Some("next") => crate::search::Direction::Next,
            Some("prev") => crate::search::Direction::Previous,
            Some(_) => return Response::error(400, "dir: next or prev"),
        };
        // From a primitive found before (its end and line): the one right
        // after (before) it, ties included.
        let after = match (q.get("end"), q.get("line")) {
            (None, None) => None,
            (Some(e), Some(l)) => match (e.parse::<f64>(), l.parse::<i32>()) {
                (Ok(end), Ok(line)) if !end.is_nan() => Some(crate::search::Found {
                    category,
                    start: t,
                    end,
                    line,
                }),
                _ => return Response::error(400, "end and line: seconds and a line ID"),
            },
            _ => return Response::error(400, "end and line: both or neither"),
        };
        let view = match picture_params(q, 1) {
            Ok((_, view, _)) => view,
            Err(r) => return r,
        };
        let found = self.with_reader(k, |r| {
            let f = match &after {
                Some(from) => crate::search::find_after(r, from, dir)?,
                None => crate::search::find(r, category, t, dir)?,
            };
            let values = f.and_then(|f| {
                r.line_id_maps()?
                    .value
                    .maps
                    .get(view)?
                    .rows
                    .iter()
                    .find(|row| row.line_id == f.line)
                    .map(|row| row.values.clone())
            });
            Ok::<_, slog2_format::Error>(f.map(|f| {
                serde_json::json!({
                    "category": f.category,
                    "start": f.start,
                    "end": f.end,
                    "line": f.line,
                    "key": values.unwrap_or_else(|| vec![f.line]),
                })
            }))
        });
        match found {
            Ok(Ok(v)) => Response::json(&serde_json::json!({ "found": v })),
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
