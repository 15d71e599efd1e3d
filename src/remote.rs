//! Reading a file over HTTP with Range requests, as `Read + Seek`
//! ([`HttpFile`]), so a SLOG-2 reader queries a remote file the way it queries
//! a local one: one request per read (the reader reads a tree node's block with
//! one read), plus the few reads of opening. Plain `http://` only (reach a
//! remote `mpelog serve` through an SSH tunnel); a small cache keeps the last
//! blocks read.
//!
//! ```no_run
//! let f = mpelog::remote::HttpFile::open("http://127.0.0.1:8080/trace")?;
//! let mut r = slog2_format::Slog2Reader::new(f)?;
//! let answer = r.window(0.0, 1.0)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The most bytes of response headers accepted.
const MAX_HEADERS: usize = 64 * 1024;
/// Blocks kept by the cache.
const CACHE: usize = 8;

/// A remote file read with HTTP Range requests.
#[derive(Debug)]
pub struct HttpFile {
    host: String,
    port: u16,
    path: String,
    len: u64,
    pos: u64,
    /// Recent blocks: (offset, bytes).
    cache: Vec<(u64, Vec<u8>)>,
    counts: Counts,
}

/// The requests made and the body bytes received by an [`HttpFile`], readable
/// while a reader owns the file (a shared handle).
#[derive(Debug, Clone, Default)]
pub struct Counts(Arc<(AtomicU64, AtomicU64)>);

impl Counts {
    /// Requests made.
    pub fn requests(&self) -> u64 {
        self.0 .0.load(Ordering::Relaxed)
    }
    /// Body bytes received.
    pub fn bytes(&self) -> u64 {
        self.0 .1.load(Ordering::Relaxed)
    }
}

fn invalid(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg)
}

impl HttpFile {
    /// Opens `url` (`http://HOST[:PORT]/PATH`): one request for its length.
    pub fn open(url: &str) -> io::Result<HttpFile> {
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "only http:// URLs"))?;
        let (hostport, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let (host, port) = match hostport.rsplit_once(':') {
            Some((h, p)) => (
                h.to_string(),
                p.parse()
                    .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "bad port"))?,
            ),
            None => (hostport.to_string(), 80),
        };
        let mut f = HttpFile {
            host,
            port,
            path: if path.is_empty() {
                "/".into()
            } else {
                path.into()
            },
            len: 0,
            pos: 0,
            cache: Vec::new(),
            counts: Counts::default(),
        };
        // The length, from the first byte's Content-Range.
        let (status, headers, body) = f.get("bytes=0-0", MAX_HEADERS as u64)?;
        f.len = match status {
            206 => headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("content-range"))
                .and_then(|(_, v)| v.rsplit('/').next()?.trim().parse().ok())
                .ok_or_else(|| invalid("a 206 answer without a Content-Range length".into()))?,
            416 => 0,
            s => return Err(invalid(format!("{url}: HTTP {s}, not a Range answer"))),
        };
        if f.len > 0 {
            f.cache.push((0, body));
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

    /// One GET with a Range header: status, headers and body.
    #[allow(clippy::type_complexity)]
    /// `max` is the most body bytes accepted: the answer to a range request is
    /// that range, so a server cannot make the reader allocate more.
    fn get(&mut self, range: &str, max: u64) -> io::Result<(u16, Vec<(String, String)>, Vec<u8>)> {
        self.counts.0 .0.fetch_add(1, Ordering::Relaxed);
        let mut s = TcpStream::connect((self.host.as_str(), self.port))?;
        s.set_read_timeout(Some(Duration::from_secs(60)))?;
        write!(
            s,
            "GET {} HTTP/1.1\r\nHost: {}\r\nRange: {range}\r\nConnection: close\r\nUser-Agent: mpelog\r\n\r\n",
            self.path, self.host
        )?;
        let mut r = BufReader::new(s);
        let mut line = String::new();
        let mut seen = 0usize;
        // Every line is read through a limit, so a line without an end cannot
        // grow without bound.
        fn line_of<R: BufRead>(r: &mut R, line: &mut String) -> io::Result<usize> {
            r.by_ref().take(MAX_HEADERS as u64).read_line(line)
        }
        line_of(&mut r, &mut line)?;
        seen += line.len();
        let status: u16 = line
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .ok_or_else(|| invalid(format!("not an HTTP answer: {:?}", line.trim_end())))?;
        let mut headers = Vec::new();
        loop {
            line.clear();
            if line_of(&mut r, &mut line)? == 0 {
                break;
            }
            seen += line.len();
            if seen > MAX_HEADERS {
                return Err(invalid("response headers too large".into()));
            }
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            if let Some((k, v)) = l.split_once(':') {
                headers.push((k.trim().to_string(), v.trim().to_string()));
            }
        }
        let length: Option<u64> = headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
            .and_then(|(_, v)| v.parse().ok());
        let chunked = headers.iter().any(|(k, v)| {
            k.eq_ignore_ascii_case("transfer-encoding")
                && v.to_ascii_lowercase().contains("chunked")
        });
        let mut body = Vec::new();
        if chunked {
            loop {
                line.clear();
                line_of(&mut r, &mut line)?;
                let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                    .map_err(|_| invalid(format!("bad chunk size {:?}", line.trim())))?;
                if size == 0 {
                    break;
                }
                if (body.len() + size) as u64 > max {
                    return Err(invalid(format!("an answer over the {max} bytes asked for")));
                }
                let at = body.len();
                body.resize(at + size, 0);
                r.read_exact(&mut body[at..])?;
                line.clear();
                line_of(&mut r, &mut line)?;
            }
            self.counts
                .0
                 .1
                .fetch_add(body.len() as u64, Ordering::Relaxed);
            return Ok((status, headers, body));
        }
        match length {
            Some(n) => {
                if n > max {
                    return Err(invalid(format!("a {n}-byte answer to a {max}-byte range")));
                }
                r.take(n).read_to_end(&mut body)?;
                if body.len() as u64 != n {
                    return Err(invalid("the answer was cut short".into()));
                }
            }
            None => {
                r.take(max + 1).read_to_end(&mut body)?;
                if body.len() as u64 > max {
                    return Err(invalid(format!("an answer over the {max} bytes asked for")));
                }
            }
        }
        self.counts
            .0
             .1
            .fetch_add(body.len() as u64, Ordering::Relaxed);
        Ok((status, headers, body))
    }
}

impl Read for HttpFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pos >= self.len || buf.is_empty() {
            return Ok(0);
        }
        let want = (buf.len() as u64).min(self.len - self.pos);
        // From the cache when a kept block holds the whole read.
        if let Some((off, b)) = self
            .cache
            .iter()
            .find(|(off, b)| *off <= self.pos && self.pos + want <= off + b.len() as u64)
        {
            let at = (self.pos - off) as usize;
            buf[..want as usize].copy_from_slice(&b[at..at + want as usize]);
            self.pos += want;
            return Ok(want as usize);
        }
        let (a, b) = (self.pos, self.pos + want - 1);
        let (status, _, body) = self.get(&format!("bytes={a}-{b}"), want)?;
        if status != 206 || body.len() as u64 != want {
            return Err(invalid(format!(
                "bytes {a}-{b}: HTTP {status} with {} bytes",
                body.len()
            )));
        }
        buf[..body.len()].copy_from_slice(&body);
        self.pos += want;
        if self.cache.len() >= CACHE {
            self.cache.remove(0);
        }
        self.cache.push((a, body));
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
