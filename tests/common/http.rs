//! A small HTTP/1.1 server on loopback for the tests that read URLs: keep-alive,
//! over TCP or rustls, with a handler per request (a static file server with
//! Range answers, or one that misbehaves on purpose). Every server stops when
//! dropped and gives up on an idle connection after a few seconds.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Request {
    /// The request's number, from 0, over all connections.
    pub n: usize,
    /// The target: path and query.
    pub target: String,
    /// The asked range, inclusive.
    pub range: Option<(u64, u64)>,
    pub headers: Vec<(String, String)>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What the server sends back.
pub enum Reply {
    /// These bytes.
    Bytes(Vec<u8>),
    /// The first bytes now, then the others one every half second.
    Trickle(Vec<u8>, Vec<u8>),
}

pub trait Stream: Read + Write + Send {}
impl<T: Read + Write + Send> Stream for T {}

pub type Handler = dyn Fn(&Request) -> Reply + Send + Sync;

/// A server on a loopback port, stopped when dropped.
pub struct Server {
    pub port: u16,
    requests: Arc<AtomicUsize>,
    connections: Arc<AtomicUsize>,
    seen: Arc<Mutex<Vec<Request>>>,
    stop: Arc<AtomicBool>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accepting thread.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

impl Server {
    pub fn start(
        tls: Option<Arc<rustls::ServerConfig>>,
        handler: impl Fn(&Request) -> Reply + Send + Sync + 'static,
    ) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = Server {
            port,
            requests: Arc::default(),
            connections: Arc::default(),
            seen: Arc::default(),
            stop: Arc::default(),
        };
        let (requests, connections, seen, stop) = (
            server.requests.clone(),
            server.connections.clone(),
            server.seen.clone(),
            server.stop.clone(),
        );
        let handler: Arc<Handler> = Arc::new(handler);
        std::thread::spawn(move || {
            for c in listener.incoming() {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(c) = c else { continue };
                connections.fetch_add(1, Ordering::SeqCst);
                let _ = c.set_read_timeout(Some(Duration::from_secs(5)));
                let _ = c.set_write_timeout(Some(Duration::from_secs(5)));
                let stream: Box<dyn Stream> = match &tls {
                    Some(cfg) => Box::new(rustls::StreamOwned::new(
                        rustls::ServerConnection::new(cfg.clone()).unwrap(),
                        c,
                    )),
                    None => Box::new(c),
                };
                let (h, requests, seen, stop) = (
                    handler.clone(),
                    requests.clone(),
                    seen.clone(),
                    stop.clone(),
                );
                std::thread::spawn(move || serve_connection(stream, &*h, &requests, &seen, &stop));
            }
        });
        server
    }

    pub fn url(&self, scheme: &str, target: &str) -> String {
        let host = if scheme == "https" {
            "localhost"
        } else {
            "127.0.0.1"
        };
        format!("{scheme}://{host}:{}{target}", self.port)
    }

    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }

    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    pub fn seen(&self) -> Vec<Request> {
        self.seen.lock().unwrap().clone()
    }
}

pub fn serve_connection(
    stream: Box<dyn Stream>,
    handler: &Handler,
    requests: &AtomicUsize,
    seen: &Mutex<Vec<Request>>,
    stop: &AtomicBool,
) {
    let mut r = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let target = line.split(' ').nth(1).unwrap_or("/").to_string();
        let mut headers = Vec::new();
        loop {
            let mut h = String::new();
            if r.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.push((k.trim().to_string(), v.trim().to_string()));
            }
        }
        let range = headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("range"))
            .and_then(|(_, v)| {
                let (a, b) = v.strip_prefix("bytes=")?.split_once('-')?;
                Some((a.parse().ok()?, b.parse().ok()?))
            });
        let req = Request {
            n: requests.fetch_add(1, Ordering::SeqCst),
            target,
            range,
            headers,
        };
        seen.lock().unwrap().push(req.clone());
        let w = r.get_mut();
        match handler(&req) {
            Reply::Bytes(b) => {
                if w.write_all(&b).and_then(|()| w.flush()).is_err() {
                    return;
                }
            }
            Reply::Trickle(now, b) => {
                if w.write_all(&now).and_then(|()| w.flush()).is_err() {
                    return;
                }
                for byte in b {
                    if stop.load(Ordering::SeqCst)
                        || w.write_all(&[byte]).and_then(|()| w.flush()).is_err()
                    {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(500));
                }
            }
        }
    }
}

/// An HTTP answer.
pub fn answer(status: &str, headers: &[(&str, String)], body: &[u8]) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {status}\r\nContent-Length: {}\r\n", body.len());
    for (k, v) in headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str("\r\n");
    let mut out = out.into_bytes();
    out.extend_from_slice(body);
    out
}

/// How a well-behaved static file server answers `req` for `data`, with these
/// validators.
pub fn file_answer(data: &[u8], req: &Request, etag: &str, modified: &str) -> Vec<u8> {
    let validators = [
        ("ETag", etag.to_string()),
        ("Last-Modified", modified.to_string()),
        ("Accept-Ranges", "bytes".to_string()),
    ];
    let len = data.len() as u64;
    match req.range {
        Some((a, b)) if a < len => {
            let b = b.min(len - 1);
            let mut h = validators.to_vec();
            h.push(("Content-Range", format!("bytes {a}-{b}/{len}")));
            answer("206 Partial Content", &h, &data[a as usize..=b as usize])
        }
        Some(_) => answer(
            "416 Range Not Satisfiable",
            &[("Content-Range", format!("bytes */{len}"))],
            b"",
        ),
        None => answer("200 OK", &validators, data),
    }
}

pub const ETAG: &str = "\"5f-1a2b\"";
pub const MODIFIED: &str = "Tue, 03 Mar 2026 10:00:00 GMT";

/// A static file server for `data`.
pub fn file_server(data: Arc<Vec<u8>>, tls: Option<Arc<rustls::ServerConfig>>) -> Server {
    Server::start(tls, move |req| {
        Reply::Bytes(file_answer(&data, req, ETAG, MODIFIED))
    })
}

/// One request's answer over a socket: status, header lines, body.
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Sends the raw bytes `request` on a new connection and reads the answer to
/// the end (the request asks for the connection to close); `None` when the
/// server closed without an answer.
pub fn raw(port: u16, request: &[u8]) -> Option<Answer> {
    let mut c = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    c.set_read_timeout(Some(std::time::Duration::from_secs(60)))
        .ok()?;
    // The server may answer and close before it read all of a huge request.
    let _ = c.write_all(request);
    let mut all = Vec::new();
    let _ = c.read_to_end(&mut all);
    let end = all.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&all[..end]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines.next()?.split(' ').nth(1)?.parse().ok()?;
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    Some(Answer {
        status,
        headers,
        body: all[end + 4..].to_vec(),
    })
}
