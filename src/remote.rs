//! Reading a file over HTTP or HTTPS with Range requests, as `Read + Seek`
//! ([`HttpFile`]), so a SLOG-2 reader queries a remote file the way it queries
//! a local one: one request per read (the reader reads a tree node's block with
//! one read), plus the few reads of opening. A small cache keeps the last
//! blocks read.
//!
//! The client is [`ureq`] over rustls: HTTPS checked against the system's
//! roots (or only those of `SSL_CERT_FILE` / `SSL_CERT_DIR` when set; the
//! bundled Mozilla roots when the system has none), redirects followed (at most
//! [`Options::max_redirects`]), `HTTP_PROXY` / `HTTPS_PROXY` / `ALL_PROXY` and
//! `NO_PROXY`, kept-alive connections, and a time limit on every request
//! ([`Options::timeout`], `MPELOG_HTTP_TIMEOUT`).
//!
//! Every answer is checked: a `206` whose `Content-Range` is the range asked
//! for, a body of that length, and the same total size, `ETag` and
//! `Last-Modified` as the first answer; anything else is an [`Error`] naming
//! the URL (a changed file: [`Error::Changed`], "the remote file changed while
//! it was read"). A server that answers a range with the whole file
//! ([`Error::NoRanges`]) is downloaded to a temporary file first when the file
//! is at most [`Options::download_max`] bytes (`MPELOG_HTTP_DOWNLOAD_MAX`).
//!
//! ```no_run
//! let f = mpelog::remote::HttpFile::open("http://127.0.0.1:8080/trace")?;
//! let mut r = slog2_format::Slog2Reader::new(f)?;
//! let answer = r.window(0.0, 1.0)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use ureq::http::{HeaderMap, Response, StatusCode};
use ureq::tls::{Certificate, RootCerts, TlsConfig};
use ureq::{Agent, Body, ResponseExt};

/// Blocks kept by the cache.
const CACHE: usize = 8;

/// The environment variable that sets [`Options::timeout`], in seconds.
pub const TIMEOUT_VAR: &str = "MPELOG_HTTP_TIMEOUT";
/// The environment variable that sets [`Options::download_max`], in bytes
/// (`k`, `m`, `g` suffixes; `0`: never download).
pub const DOWNLOAD_MAX_VAR: &str = "MPELOG_HTTP_DOWNLOAD_MAX";
/// The environment variable whose value is sent as the `Authorization` header
/// of every request (`Bearer TOKEN`, `Basic BASE64`, ...).
pub const AUTHORIZATION_VAR: &str = "MPELOG_HTTP_AUTHORIZATION";

/// Why a remote file cannot be read. Every variant names the URL (its query
/// string, which may hold a presigned URL's signature, shown as `?…`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Not an `http://` or `https://` URL, or not one the client can use.
    #[error("{}: {reason}", shown(.url))]
    BadUrl {
        /// The URL.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An environment variable of the client holds a value it cannot use.
    #[error("{name}={value:?}: {reason}")]
    BadSetting {
        /// The variable.
        name: &'static str,
        /// Its value.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// No answer (or not all of one) within the time limit.
    #[error("{}: no answer within {} s ({what}; {TIMEOUT_VAR} sets the limit)", shown(.url), .after.as_secs_f64())]
    Timeout {
        /// The URL.
        url: String,
        /// The limit.
        after: Duration,
        /// Which step timed out (connecting, the answer's headers or body).
        what: String,
    },
    /// More redirects than [`Options::max_redirects`] (a redirect loop).
    #[error("{}: more than {max} redirects (a redirect loop?)", shown(.url))]
    TooManyRedirects {
        /// The URL.
        url: String,
        /// The limit.
        max: u32,
    },
    /// The TLS connection failed: most often a certificate that no trusted root
    /// vouches for.
    #[error("{}: TLS: {message} (trusted roots: the system's, or SSL_CERT_FILE / SSL_CERT_DIR when set)", shown(.url))]
    Tls {
        /// The URL.
        url: String,
        /// What TLS said.
        message: String,
    },
    /// The server answered with an error status.
    #[error("{}: HTTP {status}{}", shown(.url), status_hint(*.status))]
    Status {
        /// The URL.
        url: String,
        /// The status code.
        status: u16,
    },
    /// The server does not answer Range requests (it sent the whole file), and
    /// the file is larger than [`Options::download_max`] (or its size is
    /// unknown).
    #[error(
        "{}: the server does not support HTTP Range requests (it answered a range with the whole file{}); \
         download the file and give its path, or set {DOWNLOAD_MAX_VAR} to at least its size to let mpelog \
         download it to a temporary file (now {max} bytes)",
        shown(.url), .len.map(|n| format!(", {n} bytes")).unwrap_or_default()
    )]
    NoRanges {
        /// The URL.
        url: String,
        /// The file's length, if the server said.
        len: Option<u64>,
        /// The download limit in force.
        max: u64,
    },
    /// An answer to a range request is not that range.
    #[error("{}: bytes {start}-{end}: {problem}", shown(.url))]
    BadAnswer {
        /// The URL.
        url: String,
        /// The first byte asked for.
        start: u64,
        /// The last byte asked for.
        end: u64,
        /// What is wrong.
        problem: Problem,
    },
    /// The file changed between two answers: its size, `ETag` or
    /// `Last-Modified` differ from the first answer's.
    #[error("{}: the remote file changed while it was read: {change}", shown(.url))]
    Changed {
        /// The URL.
        url: String,
        /// What changed.
        change: Change,
    },
    /// The connection failed (refused, reset, closed early, a name that does
    /// not resolve, a proxy that refused).
    #[error("{}: {source}", shown(.url))]
    Transport {
        /// The URL.
        url: String,
        /// The error.
        #[source]
        source: io::Error,
    },
    /// The HTTP exchange broke the protocol (a malformed answer, headers too
    /// large).
    #[error("{}: {message}", shown(.url))]
    Protocol {
        /// The URL.
        url: String,
        /// What is wrong.
        message: String,
    },
    /// The temporary file of a download could not be written.
    #[error("{}: downloading to a temporary file: {source}", shown(.url))]
    Download {
        /// The URL.
        url: String,
        /// The error.
        #[source]
        source: io::Error,
    },
}

/// How an answer to a range request differs from that range.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Problem {
    /// Another status than `206 Partial Content`.
    Status(u16),
    /// No `Content-Range`, or one that names other bytes (its text).
    ContentRange(Option<String>),
    /// A body of another length than the range's.
    Length {
        /// The range's length.
        expected: u64,
        /// The body's length (or its announced `Content-Length`).
        got: u64,
    },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Status(s) => write!(f, "HTTP {s} instead of 206 Partial Content"),
            Problem::ContentRange(None) => f.write_str("a 206 answer without a Content-Range"),
            Problem::ContentRange(Some(c)) => {
                write!(f, "the answer's Content-Range {c:?} names other bytes")
            }
            Problem::Length { expected, got } => {
                write!(f, "a {got}-byte answer to a {expected}-byte range")
            }
        }
    }
}

/// What changed in a remote file between two answers.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Change {
    /// Its size.
    Size {
        /// The size first seen.
        before: u64,
        /// The size now.
        after: u64,
    },
    /// Its `ETag` (`None`: the header was missing).
    ETag {
        /// The first answer's.
        before: Option<String>,
        /// This answer's.
        after: Option<String>,
    },
    /// Its `Last-Modified` (`None`: the header was missing).
    LastModified {
        /// The first answer's.
        before: Option<String>,
        /// This answer's.
        after: Option<String>,
    },
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let or_none = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".into());
        match self {
            Change::Size { before, after } => {
                write!(f, "its size was {before} bytes, now {after}")
            }
            Change::ETag { before, after } => write!(
                f,
                "its ETag was {}, now {}",
                or_none(before),
                or_none(after)
            ),
            Change::LastModified { before, after } => write!(
                f,
                "its Last-Modified was {}, now {}",
                or_none(before),
                or_none(after)
            ),
        }
    }
}

impl Error {
    /// The kind of [`io::Error`] this error becomes when a read fails.
    fn kind(&self) -> io::ErrorKind {
        match self {
            Error::Timeout { .. } => io::ErrorKind::TimedOut,
            Error::BadAnswer { .. } | Error::Changed { .. } | Error::Protocol { .. } => {
                io::ErrorKind::InvalidData
            }
            Error::BadUrl { .. } | Error::BadSetting { .. } => io::ErrorKind::InvalidInput,
            _ => io::ErrorKind::Other,
        }
    }
}

impl Error {
    /// The remote error an I/O error of reading `url` holds (as [`HttpFile`]'s
    /// `Read` and `Seek` give them), or a [`Error::Transport`] error of `url`.
    ///
    /// ```
    /// use mpelog::remote::Error;
    /// let e = std::io::Error::other("reset");
    /// assert!(matches!(Error::from_io("http://h/f", e), Error::Transport { .. }));
    /// ```
    pub fn from_io(url: &str, e: io::Error) -> Error {
        if !e.get_ref().is_some_and(|i| i.is::<Error>()) {
            return Error::Transport {
                url: url.to_string(),
                source: e,
            };
        }
        let kind = e.kind();
        match e.into_inner().map(|i| i.downcast::<Error>()) {
            Some(Ok(remote)) => *remote,
            Some(Err(other)) => Error::Transport {
                url: url.to_string(),
                source: io::Error::new(kind, other),
            },
            None => Error::Transport {
                url: url.to_string(),
                source: kind.into(),
            },
        }
    }
}

impl From<Error> for io::Error {
    /// An I/O error holding the remote error (recover it with
    /// [`io::Error::into_inner`] and a downcast).
    fn from(e: Error) -> io::Error {
        io::Error::new(e.kind(), e)
    }
}

/// A URL as messages show it: without a query string (a presigned URL's
/// signature) or user information.
///
/// ```
/// assert_eq!(
///     mpelog::remote::shown_url("https://me:pw@host/f.slog2?X-Sig=1"),
///     "https://host/f.slog2?…"
/// );
/// ```
pub fn shown_url(url: &str) -> String {
    shown(url)
}

fn shown(url: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((b, _)) => (b, "?…"),
        None => (url, ""),
    };
    let base = match base.split_once("://") {
        Some((scheme, rest)) => match rest.split('/').next().and_then(|h| h.rsplit_once('@')) {
            Some((_, host)) => format!(
                "{scheme}://{host}{}",
                &rest[rest.find('/').unwrap_or(rest.len())..]
            ),
            None => base.to_string(),
        },
        None => base.to_string(),
    };
    format!("{base}{query}")
}

fn status_hint(status: u16) -> &'static str {
    match status {
        401 | 403 => " (credentials: set MPELOG_HTTP_AUTHORIZATION to the Authorization header's value, or use a presigned URL)",
        404 => " (no such file)",
        _ => "",
    }
}

/// How the client connects and what it accepts.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Options {
    /// The time limit of each request: connecting, and the whole answer of a
    /// range request (a download's limit is per read: no byte for this long).
    pub timeout: Duration,
    /// The most redirects followed for one request.
    pub max_redirects: u32,
    /// The largest file downloaded whole to a temporary file when its server
    /// does not answer Range requests (0: never).
    pub download_max: u64,
    /// The `Authorization` header sent with every request (not on redirects
    /// to another host).
    pub authorization: Option<String>,
    /// Whether a download says so and shows its progress on stderr.
    pub progress: bool,
}

impl Default for Options {
    /// 30 s, 10 redirects, downloads up to 256 MiB, no credentials, no
    /// progress.
    fn default() -> Options {
        Options {
            timeout: Duration::from_secs(30),
            max_redirects: 10,
            download_max: 256 << 20,
            authorization: None,
            progress: false,
        }
    }
}

impl Options {
    /// The defaults, changed by `MPELOG_HTTP_TIMEOUT` (seconds, fractions
    /// allowed), `MPELOG_HTTP_DOWNLOAD_MAX` (bytes, with `k`, `m`, `g`) and
    /// `MPELOG_HTTP_AUTHORIZATION`; progress on.
    pub fn from_env() -> Result<Options, Error> {
        let mut o = Options {
            progress: true,
            ..Options::default()
        };
        let var = |name| std::env::var(name).ok().filter(|v: &String| !v.is_empty());
        if let Some(v) = var(TIMEOUT_VAR) {
            o.timeout = v
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|s| s.is_finite() && *s > 0.0 && *s < 1e9)
                .map(Duration::from_secs_f64)
                .ok_or_else(|| Error::BadSetting {
                    name: TIMEOUT_VAR,
                    value: v.clone(),
                    reason: "give a positive number of seconds".into(),
                })?;
        }
        if let Some(v) = var(DOWNLOAD_MAX_VAR) {
            o.download_max = bytes(&v).ok_or_else(|| Error::BadSetting {
                name: DOWNLOAD_MAX_VAR,
                value: v.clone(),
                reason: "give a number of bytes (k, m, g suffixes allowed; 0: never download)"
                    .into(),
            })?;
        }
        o.authorization = var(AUTHORIZATION_VAR);
        Ok(o)
    }
}

/// `N`, `Nk`, `Nm`, `Ng` (powers of 1024).
fn bytes(s: &str) -> Option<u64> {
    let s = s.trim().to_ascii_lowercase();
    let (n, shift) = match s.strip_suffix(['k', 'm', 'g']) {
        Some(n) => (
            n,
            [10, 20, 30][s.ends_with('m') as usize + 2 * s.ends_with('g') as usize],
        ),
        None => (s.as_str(), 0),
    };
    n.trim().parse::<u64>().ok()?.checked_mul(1 << shift)
}

/// The trusted roots: the system's (only `SSL_CERT_FILE` / `SSL_CERT_DIR`
/// when set), else the bundled Mozilla roots.
fn roots() -> Result<RootCerts, Error> {
    let found = rustls_native_certs::load_native_certs();
    let named = ["SSL_CERT_FILE", "SSL_CERT_DIR"].into_iter().find_map(|v| {
        std::env::var(v)
            .ok()
            .filter(|p| !p.is_empty())
            .map(|p| (v, p))
    });
    if found.certs.is_empty() {
        if let Some((name, value)) = named {
            return Err(Error::BadSetting {
                name,
                value,
                reason: match found.errors.first() {
                    Some(e) => format!("no certificate loaded: {e}"),
                    None => "no PEM certificate in it".into(),
                },
            });
        }
        return Ok(RootCerts::WebPki);
    }
    Ok(RootCerts::from(
        found
            .certs
            .iter()
            .map(|c| Certificate::from_der(c.as_ref()).to_owned()),
    ))
}

/// The client of `options`.
fn agent(options: &Options) -> Result<Agent, Error> {
    let tls = TlsConfig::builder().root_certs(roots()?).build();
    let t = Some(options.timeout);
    Ok(Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(options.max_redirects)
        .redirect_auth_headers(ureq::config::RedirectAuthHeaders::SameHost)
        .user_agent(concat!("mpelog/", env!("CARGO_PKG_VERSION")))
        .accept_encoding(ureq::config::AutoHeaderValue::None)
        .tls_config(tls)
        .timeout_connect(t)
        .timeout_recv_response(t)
        .timeout_per_read(t)
        .timeout_per_call(t)
        .build()
        .new_agent())
}

/// The requests made and the body bytes received by an [`HttpFile`], readable
/// while a reader owns the file (a shared handle).
#[derive(Debug, Clone, Default)]
pub struct Counts(Arc<(AtomicU64, AtomicU64)>);

impl Counts {
    /// Requests made (a request whose redirects were followed counts once).
    pub fn requests(&self) -> u64 {
        self.0 .0.load(Ordering::Relaxed)
    }
    /// Body bytes received.
    pub fn bytes(&self) -> u64 {
        self.0 .1.load(Ordering::Relaxed)
    }
    fn request(&self) {
        self.0 .0.fetch_add(1, Ordering::Relaxed);
    }
    fn received(&self, n: u64) {
        self.0 .1.fetch_add(n, Ordering::Relaxed);
    }
}

/// What identifies one version of the remote file: its size and validators.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Version {
    len: u64,
    etag: Option<String>,
    last_modified: Option<String>,
}

fn header(h: &HeaderMap, name: &str) -> Option<String> {
    h.get(name)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_string())
}

/// Where reads come from.
#[derive(Debug)]
enum Source {
    /// Range requests.
    Remote {
        agent: Agent,
        /// The URL requests go to: the given one's redirects followed once.
        at: String,
        authorization: Option<String>,
        version: Version,
        /// Recent blocks: (offset, bytes).
        cache: Vec<(u64, Vec<u8>)>,
    },
    /// The whole file, downloaded to a temporary file.
    Downloaded(File),
}

/// A remote file read with HTTP Range requests (or, from a server without
/// them, a temporary copy).
#[derive(Debug)]
pub struct HttpFile {
    url: String,
    timeout: Duration,
    max_redirects: u32,
    len: u64,
    pos: u64,
    source: Source,
    counts: Counts,
}

impl HttpFile {
    /// Opens `url` (`http://` or `https://`) with [`Options::from_env`]: one
    /// request for its length.
    pub fn open(url: &str) -> Result<HttpFile, Error> {
        HttpFile::open_with(url, &Options::from_env()?)
    }

    /// Opens `url` with `options`: one request for its length (after its
    /// redirects, which later requests skip).
    pub fn open_with(url: &str, options: &Options) -> Result<HttpFile, Error> {
        let lower = url.to_ascii_lowercase();
        if !lower.starts_with("http://") && !lower.starts_with("https://") {
            return Err(Error::BadUrl {
                url: url.into(),
                reason: "only http:// and https:// URLs".into(),
            });
        }
        let agent = agent(options)?;
        let mut f = HttpFile {
            url: url.into(),
            timeout: options.timeout,
            max_redirects: options.max_redirects,
            len: 0,
            pos: 0,
            source: Source::Remote {
                agent: agent.clone(),
                at: url.into(),
                authorization: None,
                version: Version {
                    len: 0,
                    etag: None,
                    last_modified: None,
                },
                cache: Vec::new(),
            },
            counts: Counts::default(),
        };
        let auth = options.authorization.clone();
        let mut answer = f.request(&agent, url, auth.as_deref(), Some((0, 0)), false)?;
        let at = answer.get_uri().to_string();
        let status = answer.status();
        let h = answer.headers();
        let mut version = Version {
            len: 0,
            etag: header(h, "etag"),
            last_modified: header(h, "last-modified"),
        };
        match status {
            StatusCode::PARTIAL_CONTENT => {
                let cr = header(h, "content-range");
                version.len = match cr.as_deref().and_then(content_range) {
                    Some((0, 0, total)) => total,
                    _ => return Err(f.bad(0, 0, Problem::ContentRange(cr))),
                };
                let body = f.body(&mut answer, 0, 0)?;
                f.len = version.len;
                f.source = Source::Remote {
                    agent,
                    at,
                    authorization: auth,
                    version,
                    cache: vec![(0, body)],
                };
            }
            // An empty file has no byte 0.
            StatusCode::RANGE_NOT_SATISFIABLE => {
                f.source = Source::Remote {
                    agent,
                    at,
                    authorization: auth,
                    version,
                    cache: Vec::new(),
                };
            }
            StatusCode::OK => {
                let len = answer.body().content_length();
                drop(answer);
                match len {
                    Some(len) if len <= options.download_max => {
                        version.len = len;
                        let file = tempfile::tempfile().map_err(|source| Error::Download {
                            url: url.into(),
                            source,
                        })?;
                        f.source = Source::Downloaded(file);
                        f.download(&agent, &at, auth.as_deref(), &version, options.progress)?;
                    }
                    _ => {
                        return Err(Error::NoRanges {
                            url: url.into(),
                            len,
                            max: options.download_max,
                        })
                    }
                }
            }
            s => {
                return Err(Error::Status {
                    url: url.into(),
                    status: s.as_u16(),
                })
            }
        }
        Ok(f)
    }

    /// A handle on the requests and bytes counted so far (it stays valid after
    /// the file is handed to a reader).
    pub fn counts(&self) -> Counts {
        self.counts.clone()
    }

    /// The file's length.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the file is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the file was downloaded whole (its server answers no ranges).
    pub fn is_downloaded(&self) -> bool {
        matches!(self.source, Source::Downloaded(_))
    }

    /// A GET of `url` (bytes `range`, inclusive, if given); `whole`: no time
    /// limit on the whole answer, only on each read.
    fn request(
        &self,
        agent: &Agent,
        url: &str,
        authorization: Option<&str>,
        range: Option<(u64, u64)>,
        whole: bool,
    ) -> Result<Response<Body>, Error> {
        self.counts.request();
        let mut req = agent.get(url);
        if let Some((a, b)) = range {
            req = req.header("Range", format!("bytes={a}-{b}"));
        }
        if let Some(auth) = authorization {
            req = req.header("Authorization", auth);
        }
        let res = if whole {
            req.config().timeout_per_call(None).build().call()
        } else {
            req.call()
        };
        res.map_err(|e| self.error(e))
    }

    /// A client error as ours.
    fn error(&self, e: ureq::Error) -> Error {
        let url = self.url.clone();
        match e {
            ureq::Error::Timeout(t) => Error::Timeout {
                url,
                after: self.timeout,
                what: t.to_string(),
            },
            ureq::Error::TooManyRedirects => Error::TooManyRedirects {
                url,
                max: self.max_redirects,
            },
            ureq::Error::Tls(m) => Error::Tls {
                url,
                message: m.into(),
            },
            ureq::Error::Rustls(e) => Error::Tls {
                url,
                message: e.to_string(),
            },
            ureq::Error::Pem(e) => Error::Tls {
                url,
                message: e.to_string(),
            },
            ureq::Error::BadUri(m) => Error::BadUrl { url, reason: m },
            ureq::Error::Io(source) => match source
                .get_ref()
                .and_then(|e| e.downcast_ref::<rustls::Error>())
            {
                Some(e) => Error::Tls {
                    url,
                    message: e.to_string(),
                },
                None => Error::Transport { url, source },
            },
            ureq::Error::HostNotFound => Error::Transport {
                url,
                source: io::Error::new(io::ErrorKind::NotFound, "host not found"),
            },
            ureq::Error::ConnectionFailed => Error::Transport {
                url,
                source: io::Error::new(io::ErrorKind::ConnectionRefused, "connection failed"),
            },
            ureq::Error::ConnectProxyFailed(m) => Error::Transport {
                url,
                source: io::Error::other(format!("the proxy refused: {m}")),
            },
            ureq::Error::InvalidProxyUrl => Error::BadSetting {
                name: "HTTP_PROXY",
                value: std::env::var("HTTPS_PROXY")
                    .or_else(|_| std::env::var("HTTP_PROXY"))
                    .unwrap_or_default(),
                reason: "not a proxy URL".into(),
            },
            ureq::Error::BodyExceedsLimit(n) => Error::Protocol {
                url,
                message: format!("an answer over the {n} bytes asked for"),
            },
            e => Error::Protocol {
                url,
                message: e.to_string(),
            },
        }
    }

    fn bad(&self, start: u64, end: u64, problem: Problem) -> Error {
        Error::BadAnswer {
            url: self.url.clone(),
            start,
            end,
            problem,
        }
    }

    /// The body of a 206 answer to bytes `a..=b`: exactly that many bytes.
    fn body(&self, answer: &mut Response<Body>, a: u64, b: u64) -> Result<Vec<u8>, Error> {
        let want = b - a + 1;
        if let Some(n) = answer.body().content_length().filter(|n| *n != want) {
            return Err(self.bad(
                a,
                b,
                Problem::Length {
                    expected: want,
                    got: n,
                },
            ));
        }
        let mut body = Vec::with_capacity(want as usize);
        answer
            .body_mut()
            .with_config()
            .limit(want)
            .reader()
            .read_to_end(&mut body)
            .map_err(|e| self.error(ureq::Error::from(e)))?;
        self.counts.received(body.len() as u64);
        if body.len() as u64 != want {
            return Err(self.bad(
                a,
                b,
                Problem::Length {
                    expected: want,
                    got: body.len() as u64,
                },
            ));
        }
        Ok(body)
    }

    /// Bytes `a..=b` of the remote file, checked.
    fn range(&mut self, a: u64, b: u64) -> Result<Vec<u8>, Error> {
        let Source::Remote {
            agent,
            at,
            authorization,
            version,
            ..
        } = &self.source
        else {
            unreachable!("only a remote source reads ranges")
        };
        let mut answer = self.request(agent, at, authorization.as_deref(), Some((a, b)), false)?;
        let h = answer.headers();
        let changed = |change| Error::Changed {
            url: self.url.clone(),
            change,
        };
        let (etag, last_modified) = (header(h, "etag"), header(h, "last-modified"));
        if etag != version.etag {
            return Err(changed(Change::ETag {
                before: version.etag.clone(),
                after: etag,
            }));
        }
        if last_modified != version.last_modified {
            return Err(changed(Change::LastModified {
                before: version.last_modified.clone(),
                after: last_modified,
            }));
        }
        let status = answer.status().as_u16();
        if status != 206 {
            return Err(match status {
                200 => Error::NoRanges {
                    url: self.url.clone(),
                    len: answer.body().content_length(),
                    max: 0,
                },
                s if s >= 400 && s != 416 => Error::Status {
                    url: self.url.clone(),
                    status: s,
                },
                s => self.bad(a, b, Problem::Status(s)),
            });
        }
        let cr = header(h, "content-range");
        match cr.as_deref().and_then(content_range) {
            Some((x, y, total)) if (x, y) == (a, b) => {
                if total != version.len {
                    return Err(changed(Change::Size {
                        before: version.len,
                        after: total,
                    }));
                }
            }
            _ => return Err(self.bad(a, b, Problem::ContentRange(cr))),
        }
        self.body(&mut answer, a, b)
    }

    /// Downloads the whole file (a server without ranges) to the temporary
    /// file, checking it is the version `expected`.
    fn download(
        &mut self,
        agent: &Agent,
        at: &str,
        authorization: Option<&str>,
        expected: &Version,
        progress: bool,
    ) -> Result<(), Error> {
        let url = self.url.clone();
        let started = Instant::now();
        if progress {
            eprintln!(
                "mpelog: {}: the server does not support HTTP Range requests; downloading the whole file ({} bytes) to a temporary file first",
                shown(&url),
                expected.len
            );
        }
        let mut answer = self.request(agent, at, authorization, None, true)?;
        let h = answer.headers();
        let got = Version {
            len: answer.body().content_length().unwrap_or(u64::MAX),
            etag: header(h, "etag"),
            last_modified: header(h, "last-modified"),
        };
        if !answer.status().is_success() {
            return Err(Error::Status {
                url,
                status: answer.status().as_u16(),
            });
        }
        if let Some(change) = version_change(expected, &got) {
            return Err(Error::Changed { url, change });
        }
        let Source::Downloaded(file) = &mut self.source else {
            unreachable!("the source is the temporary file until the download ends")
        };
        let bar = if progress {
            indicatif::ProgressBar::with_draw_target(
                Some(expected.len),
                indicatif::ProgressDrawTarget::stderr(),
            )
        } else {
            indicatif::ProgressBar::hidden()
        };
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "downloading [{bar:40}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        let mut reader = answer.body_mut().with_config().limit(expected.len).reader();
        let mut buf = vec![0u8; 1 << 16];
        let mut n = 0u64;
        let mut out = io::BufWriter::with_capacity(1 << 20, &mut *file);
        loop {
            let k = match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(k) => k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    bar.abandon();
                    let e = ureq::Error::from(e);
                    let e = match e {
                        ureq::Error::Timeout(t) => Error::Timeout {
                            url: url.clone(),
                            after: self.timeout,
                            what: t.to_string(),
                        },
                        e => Error::Protocol {
                            url: url.clone(),
                            message: e.to_string(),
                        },
                    };
                    return Err(e);
                }
            };
            out.write_all(&buf[..k]).map_err(|source| Error::Download {
                url: url.clone(),
                source,
            })?;
            n += k as u64;
            self.counts.received(k as u64);
            bar.set_position(n);
        }
        out.flush().map_err(|source| Error::Download {
            url: url.clone(),
            source,
        })?;
        drop(out);
        bar.finish_and_clear();
        if n != expected.len {
            return Err(Error::Changed {
                url,
                change: Change::Size {
                    before: expected.len,
                    after: n,
                },
            });
        }
        file.seek(SeekFrom::Start(0))
            .map_err(|source| Error::Download {
                url: url.clone(),
                source,
            })?;
        self.len = n;
        if progress {
            eprintln!(
                "mpelog: downloaded {n} bytes in {:.1} s",
                started.elapsed().as_secs_f64()
            );
        }
        Ok(())
    }
}

/// What differs between two versions, the size first.
fn version_change(before: &Version, after: &Version) -> Option<Change> {
    if before.len != after.len {
        Some(Change::Size {
            before: before.len,
            after: after.len,
        })
    } else if before.etag != after.etag {
        Some(Change::ETag {
            before: before.etag.clone(),
            after: after.etag.clone(),
        })
    } else if before.last_modified != after.last_modified {
        Some(Change::LastModified {
            before: before.last_modified.clone(),
            after: after.last_modified.clone(),
        })
    } else {
        None
    }
}

/// `bytes A-B/TOTAL` as (A, B, TOTAL).
fn content_range(v: &str) -> Option<(u64, u64, u64)> {
    let rest = v.trim().strip_prefix("bytes")?.trim_start();
    let (range, total) = rest.split_once('/')?;
    let (a, b) = range.split_once('-')?;
    let (a, b, total) = (
        a.trim().parse().ok()?,
        b.trim().parse().ok()?,
        total.trim().parse().ok()?,
    );
    (a <= b && b < total).then_some((a, b, total))
}

impl Read for HttpFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Source::Downloaded(f) = &mut self.source {
            f.seek(SeekFrom::Start(self.pos))?;
            let n = f.read(buf)?;
            self.pos += n as u64;
            return Ok(n);
        }
        if self.pos >= self.len || buf.is_empty() {
            return Ok(0);
        }
        let want = (buf.len() as u64).min(self.len - self.pos);
        // From the cache when a kept block holds the whole read.
        if let Source::Remote { cache, .. } = &self.source {
            if let Some((off, b)) = cache
                .iter()
                .find(|(off, b)| *off <= self.pos && self.pos + want <= off + b.len() as u64)
            {
                let at = (self.pos - off) as usize;
                buf[..want as usize].copy_from_slice(&b[at..at + want as usize]);
                self.pos += want;
                return Ok(want as usize);
            }
        }
        let a = self.pos;
        let body = self.range(a, a + want - 1)?;
        buf[..body.len()].copy_from_slice(&body);
        self.pos += want;
        if let Source::Remote { cache, .. } = &mut self.source {
            if cache.len() >= CACHE {
                cache.remove(0);
            }
            cache.push((a, body));
        }
        Ok(want as usize)
    }
}

impl Seek for HttpFile {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let p = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::End(d) => self.len.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        self.pos = p.ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "seek before 0"))?;
        Ok(self.pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_ranges_and_sizes_parse() {
        assert_eq!(content_range("bytes 0-0/1000"), Some((0, 0, 1000)));
        assert_eq!(content_range("bytes 10-19/20"), Some((10, 19, 20)));
        assert_eq!(content_range("bytes 10-20/20"), None);
        assert_eq!(content_range("bytes */20"), None);
        assert_eq!(bytes("64k"), Some(64 << 10));
        assert_eq!(bytes("2M"), Some(2 << 20));
        assert_eq!(bytes("1g"), Some(1 << 30));
        assert_eq!(bytes("0"), Some(0));
        assert_eq!(bytes("x"), None);
    }

    #[test]
    fn errors_show_no_query_string_or_credentials() {
        assert_eq!(
            shown("https://u:p@host/a/b.slog2?X-Amz-Signature=abc"),
            "https://host/a/b.slog2?…"
        );
        assert_eq!(shown("http://h:1/trace"), "http://h:1/trace");
    }
}
