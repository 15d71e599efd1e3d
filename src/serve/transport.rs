//! The HTTP/1.1 transport of `mpelog serve`: hyper on a tokio runtime in
//! front of the synchronous [`Service`] and [`Access`].
//!
//! One thread runs the runtime: it accepts every connection at once and reads
//! and writes all of them (keep-alive included), so a burst of connections is
//! never queued behind threads that each hold one open connection. Each
//! request's access check and answer are computed on tokio's blocking
//! threads, at most [`ANSWERING`] at once (more wait their turn without
//! stopping the accept loop or other connections' writes); a served file's
//! bytes (`Body::File`) are read in [`CHUNK`]-byte pieces as the client takes
//! them.
//!
//! What the transport adds to the [`Service`]'s answers: a request whose
//! header lines (name, value and 4 bytes each) exceed [`MAX_HEADER_BYTES`] is
//! answered `431` and not looked at further; every answer has its
//! `Content-Length` (never chunked: range clients read it); connections are
//! kept alive until the client closes them or sends no request head for
//! [`IDLE`]; TCP_NODELAY is set on every accepted TCP connection.

use super::{Access, Body, Decision, Head, Service, MAX_HEADER_BYTES};
use hyper::body::{Bytes, Frame, Incoming, SizeHint};
use std::convert::Infallible;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

/// The most answers computed at once.
pub const ANSWERING: usize = 8;

/// How long a connection may stay without a complete request head (idle
/// between keep-alive requests included) before it is closed.
pub const IDLE: Duration = Duration::from_secs(120);

/// Bytes of a served file read and sent at a time.
pub const CHUNK: usize = 64 * 1024;

/// Blocking threads besides those computing answers: file reads of streamed
/// bodies never wait behind [`ANSWERING`] slow windows.
const FILE_THREADS: usize = 4;

/// Where the transport accepts connections.
#[derive(Debug)]
#[non_exhaustive]
pub enum Listener {
    /// A TCP socket (plain HTTP on the network).
    Tcp(std::net::TcpListener),
    /// A Unix socket (behind the TLS [`super::tls::Terminator`]).
    Unix(std::os::unix::net::UnixListener),
}

/// Serves `service` to the clients `access` lets in, on `listener`, until
/// the process ends.
///
/// # Errors
///
/// Only when the runtime or the listener cannot be set up; errors of single
/// connections (a client that goes away, a malformed request) are answered
/// or end that connection alone.
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use mpelog::serve::transport::{self, Listener};
/// use mpelog::serve::{Access, Service};
/// let service = Service::new(&[std::path::PathBuf::from("run.slog2")])?;
/// let listener = std::net::TcpListener::bind("127.0.0.1:8080")?;
/// transport::run(Listener::Tcp(listener), service, Access::new("127.0.0.1", 8080))?;
/// # Ok(()) }
/// ```
pub fn run(listener: Listener, service: Service, access: Access) -> io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .max_blocking_threads(ANSWERING + FILE_THREADS)
        .thread_name("mpelog-serve")
        .build()?;
    let shared = Arc::new(Shared {
        service,
        access,
        answering: tokio::sync::Semaphore::new(ANSWERING),
    });
    runtime.block_on(async move {
        match listener {
            Listener::Tcp(l) => {
                l.set_nonblocking(true)?;
                let l = tokio::net::TcpListener::from_std(l)?;
                loop {
                    match l.accept().await {
                        Ok((s, _)) => {
                            // Head and body go out in one write, but an
                            // answer streamed in pieces must not wait out
                            // the client's delayed ACK (40 ms) either.
                            let _ = s.set_nodelay(true);
                            tokio::spawn(connection(s, Arc::clone(&shared)));
                        }
                        Err(e) => pause_after(&e).await,
                    }
                }
            }
            Listener::Unix(l) => {
                l.set_nonblocking(true)?;
                let l = tokio::net::UnixListener::from_std(l)?;
                loop {
                    match l.accept().await {
                        Ok((s, _)) => {
                            tokio::spawn(connection(s, Arc::clone(&shared)));
                        }
                        Err(e) => pause_after(&e).await,
                    }
                }
            }
        }
    })
}

/// What every connection's requests are answered from.
struct Shared {
    service: Service,
    access: Access,
    /// Permits for [`ANSWERING`] answers computed at once.
    answering: tokio::sync::Semaphore,
}

/// After a failed `accept`: a short pause when out of descriptors or memory
/// (the error repeats at once until a connection closes), none otherwise.
async fn pause_after(e: &io::Error) {
    if matches!(
        e.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    ) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Serves one connection's requests until it closes.
async fn connection<S>(stream: S, shared: Arc<Shared>)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let answer = hyper::service::service_fn(move |req| answer(Arc::clone(&shared), req));
    // A connection that fails (the client went away, bytes that are no
    // request) is that client's problem alone: hyper has answered what it
    // could (400, 431) and closed it.
    let _ = hyper::server::conn::http1::Builder::new()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(IDLE)
        // `Content-Type`, not `content-type`, as clients written by hand
        // (and tiny_http before) expect.
        .title_case_headers(true)
        .serve_connection(hyper_util::rt::TokioIo::new(stream), answer)
        .await;
}

/// The parts of a request the answer needs, owned (for a blocking thread).
struct Asked {
    method: String,
    target: String,
    header_bytes: usize,
    host: Option<String>,
    origin: Option<String>,
    authorization: Option<String>,
    cookie: Option<String>,
    range: Option<String>,
}

impl Asked {
    fn of(req: &hyper::Request<Incoming>) -> Asked {
        let headers = req.headers();
        let header = |name: hyper::header::HeaderName| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        use hyper::header::{AUTHORIZATION, COOKIE, HOST, ORIGIN, RANGE};
        Asked {
            method: req.method().as_str().to_string(),
            // As sent: origin form `/path?query`, or the absolute form.
            target: req.uri().to_string(),
            header_bytes: headers
                .iter()
                .map(|(k, v)| k.as_str().len() + v.len() + 4)
                .sum(),
            host: header(HOST),
            origin: header(ORIGIN),
            authorization: header(AUTHORIZATION),
            cookie: header(COOKIE),
            range: header(RANGE),
        }
    }
}

/// The answer to `req`, computed on a blocking thread once a permit is free.
async fn answer(
    shared: Arc<Shared>,
    req: hyper::Request<Incoming>,
) -> Result<hyper::Response<Answer>, Infallible> {
    let asked = Asked::of(&req);
    if asked.header_bytes > MAX_HEADER_BYTES {
        return Ok(empty(431));
    }
    // The semaphore is never closed.
    let Ok(_permit) = shared.answering.acquire().await else {
        return Ok(empty(503));
    };
    let worker = Arc::clone(&shared);
    let computed = tokio::task::spawn_blocking(move || {
        let r = compute(&worker.service, &worker.access, &asked);
        let file = match &r.body {
            Body::Bytes(_) => None,
            Body::File { path, offset, len } => Some(open_at(path, *offset).map(|f| (f, *len))),
        };
        (r, file)
    })
    .await;
    let Ok((r, file)) = computed else {
        // The answer panicked: the connection goes on.
        return Ok(empty(500));
    };
    let body = match (r.body, file) {
        (Body::Bytes(b), _) => Answer::Bytes(Some(Bytes::from(b))),
        (Body::File { .. }, Some(Ok((f, len)))) => Answer::File {
            file: tokio::fs::File::from_std(f),
            left: len,
            buf: Vec::new(),
        },
        (Body::File { .. }, _) => return Ok(empty(500)),
    };
    let mut out = hyper::Response::new(body);
    *out.status_mut() =
        hyper::StatusCode::from_u16(r.status).unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    let headers = out.headers_mut();
    headers.insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static(r.content_type),
    );
    for (k, v) in &r.headers {
        if let (Ok(k), Ok(v)) = (
            hyper::header::HeaderName::from_bytes(k.as_bytes()),
            hyper::header::HeaderValue::from_str(v),
        ) {
            headers.append(k, v);
        }
    }
    Ok(out)
}

/// The service's answer to `asked` as `access` decides.
fn compute(service: &Service, access: &Access, asked: &Asked) -> super::Response {
    let head = Head::new(&asked.target)
        .host(asked.host.as_deref())
        .origin(asked.origin.as_deref())
        .authorization(asked.authorization.as_deref())
        .cookie(asked.cookie.as_deref());
    match access.check(&head) {
        Decision::Serve(extra) => {
            let mut r = service.handle(&asked.method, &asked.target, asked.range.as_deref());
            r.headers.extend(extra);
            r
        }
        Decision::Answer(r) => r,
    }
}

/// `path` opened and positioned at `offset`.
fn open_at(path: &std::path::Path, offset: u64) -> io::Result<std::fs::File> {
    use std::io::{Seek, SeekFrom};
    let mut f = std::fs::File::open(path)?;
    f.seek(SeekFrom::Start(offset))?;
    Ok(f)
}

/// An answer without a body.
fn empty(status: u16) -> hyper::Response<Answer> {
    let mut out = hyper::Response::new(Answer::Bytes(None));
    *out.status_mut() =
        hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    out
}

/// A response body: bytes in memory, or `left` bytes of an open file read
/// [`CHUNK`] at a time. Its exact length is known, so hyper writes
/// `Content-Length` (and, for bytes, the head and body in one write).
enum Answer {
    /// The bytes, taken by the first frame.
    Bytes(Option<Bytes>),
    /// The rest of a file.
    File {
        file: tokio::fs::File,
        left: u64,
        buf: Vec<u8>,
    },
}

impl hyper::body::Body for Answer {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        match self.get_mut() {
            Answer::Bytes(b) => Poll::Ready(
                b.take()
                    .filter(|b| !b.is_empty())
                    .map(|b| Ok(Frame::data(b))),
            ),
            Answer::File { file, left, buf } => {
                if *left == 0 {
                    return Poll::Ready(None);
                }
                let want = usize::try_from(*left).map_or(CHUNK, |l| l.min(CHUNK));
                buf.resize(want, 0);
                let mut rb = tokio::io::ReadBuf::new(&mut buf[..want]);
                match tokio::io::AsyncRead::poll_read(Pin::new(file), cx, &mut rb) {
                    Poll::Pending => Poll::Pending,
                    Poll::Ready(Err(e)) => Poll::Ready(Some(Err(e))),
                    Poll::Ready(Ok(())) if rb.filled().is_empty() => {
                        // The file became shorter than its Content-Length:
                        // the connection is ended, not padded.
                        Poll::Ready(Some(Err(io::ErrorKind::UnexpectedEof.into())))
                    }
                    Poll::Ready(Ok(())) => {
                        let got = Bytes::copy_from_slice(rb.filled());
                        *left -= got.len() as u64;
                        Poll::Ready(Some(Ok(Frame::data(got))))
                    }
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            Answer::Bytes(b) => b.as_ref().is_none_or(Bytes::is_empty),
            Answer::File { left, .. } => *left == 0,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            Answer::Bytes(b) => SizeHint::with_exact(b.as_ref().map_or(0, |b| b.len() as u64)),
            Answer::File { left, .. } => SizeHint::with_exact(*left),
        }
    }
}
