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
//! ([`Options::timeout`], `MPELOG_HTTP_TIMEOUT`). A request whose connection
//! ends before any answer (a kept-alive connection the server closed as the
//! request went out, or a reset) is sent again once, on a new connection.
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

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use ureq::http::{HeaderMap, Response, StatusCode};
use ureq::{Agent, Body, ResponseExt};

mod error;
mod options;

use error::shown;
pub use error::{shown_url, Change, Error, Problem};
use options::agent;
#[cfg(test)]
use options::bytes;
pub use options::Options;

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

/// The requests made and the body bytes received by an [`HttpFile`], readable
/// while a reader owns the file (a shared handle).
#[derive(Debug, Clone, Default)]
pub struct Counts(Arc<(AtomicU64, AtomicU64)>);

impl Counts {
    /// Requests made (a request whose redirects were followed counts once).
    ///
    /// ```no_run
    /// let f = mpelog::remote::HttpFile::open("http://127.0.0.1:8080/trace")?;
    /// let counts = f.counts();
    /// assert_eq!(counts.requests(), 1); // opening asks for the length
    /// let mut r = slog2_format::Slog2Reader::new(f)?;
    /// r.window(0.0, 1.0)?;
    /// assert!(counts.requests() > 1); // the handle sees the reader's requests
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn requests(&self) -> u64 {
        self.0 .0.load(Ordering::Relaxed)
    }
    /// Body bytes received.
    ///
    /// ```no_run
    /// let f = mpelog::remote::HttpFile::open("http://127.0.0.1:8080/trace")?;
    /// let (counts, len) = (f.counts(), f.len());
    /// let mut r = slog2_format::Slog2Reader::new(f)?;
    /// r.window(0.0, 1.0)?;
    /// assert!(counts.bytes() > 0 && counts.bytes() <= len); // ranges, not the whole file
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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
    ///
    /// # Errors
    ///
    /// [`Error::BadSetting`] for an environment variable it cannot use, and
    /// those of [`open_with`](Self::open_with).
    ///
    /// ```
    /// // Runs without a network: the URL is refused before any request.
    /// let e = mpelog::remote::HttpFile::open("ftp://example.org/trace.slog2").unwrap_err();
    /// assert!(matches!(e, mpelog::remote::Error::BadUrl { .. }));
    /// ```
    pub fn open(url: &str) -> Result<HttpFile, Error> {
        HttpFile::open_with(url, &Options::from_env()?)
    }

    /// Opens `url` with `options`: one request for its length (after its
    /// redirects, which later requests skip).
    ///
    /// # Errors
    ///
    /// [`Error::BadUrl`] for a URL that is not `http://` or `https://`;
    /// [`Error::Transport`], [`Error::Tls`], [`Error::Timeout`] or
    /// [`Error::TooManyRedirects`] when no answer comes; [`Error::Status`] for
    /// an error status; [`Error::NoRanges`] when the server sends the whole
    /// file and it is larger than [`Options::download_max`].
    ///
    /// ```no_run
    /// use mpelog::remote::{HttpFile, Options};
    /// use std::time::Duration;
    /// let opts = Options::default().timeout(Duration::from_secs(5)).download_max(0);
    /// let f = HttpFile::open_with("https://example.org/trace.slog2", &opts)?;
    /// assert!(!f.is_downloaded()); // download_max 0: ranges or an error
    /// let r = slog2_format::Slog2Reader::new(f)?;
    /// assert!(r.file_len() > 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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
    ///
    /// ```no_run
    /// let f = mpelog::remote::HttpFile::open("http://127.0.0.1:8080/trace")?;
    /// let counts = f.counts();
    /// let r = slog2_format::Slog2Reader::new(f)?; // the reader owns the file now
    /// assert!(counts.requests() >= 2 && r.file_len() > 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn counts(&self) -> Counts {
        self.counts.clone()
    }

    /// The file's length.
    ///
    /// ```no_run
    /// use std::io::{Seek, SeekFrom};
    /// let mut f = mpelog::remote::HttpFile::open("http://127.0.0.1:8080/trace")?;
    /// assert_eq!(f.seek(SeekFrom::End(0))?, f.len());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the file is empty.
    ///
    /// ```no_run
    /// let f = mpelog::remote::HttpFile::open("http://127.0.0.1:8080/trace")?;
    /// assert_eq!(f.is_empty(), f.len() == 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the file was downloaded whole (its server answers no ranges).
    ///
    /// ```no_run
    /// use mpelog::remote::{HttpFile, Options};
    /// // A server without Range support: a small file is downloaded whole.
    /// let f = HttpFile::open_with("http://127.0.0.1:8080/trace", &Options::default().download_max(1 << 30))?;
    /// if f.is_downloaded() {
    ///     assert_eq!(f.counts().bytes(), f.len());
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_downloaded(&self) -> bool {
        matches!(self.source, Source::Downloaded(_))
    }

    /// A GET of `url` (bytes `range`, inclusive, if given); `whole`: no time
    /// limit on the whole answer, only on each read.
    ///
    /// A GET whose connection ends before any answer (the server closed a
    /// kept-alive connection as the request went out on it, or reset it) is
    /// sent again once: a GET is idempotent, and a client may retry it
    /// (RFC 9112 §9.3.1).
    fn request(
        &self,
        agent: &Agent,
        url: &str,
        authorization: Option<&str>,
        range: Option<(u64, u64)>,
        whole: bool,
    ) -> Result<Response<Body>, Error> {
        let send = || {
            self.counts.request();
            let mut req = agent.get(url);
            if let Some((a, b)) = range {
                req = req.header("Range", format!("bytes={a}-{b}"));
            }
            if let Some(auth) = authorization {
                req = req.header("Authorization", auth);
            }
            if whole {
                req.config().timeout_per_call(None).build().call()
            } else {
                req.call()
            }
        };
        match send() {
            Err(ureq::Error::Io(e)) if connection_ended(&e) => send(),
            res => res,
        }
        .map_err(|e| self.error(e))
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
/// Whether a request failed because its connection ended before any answer:
/// closed (ureq's "peer disconnected"), reset or aborted by the server.
fn connection_ended(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::UnexpectedEof
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::BrokenPipe
    )
}

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
