//! `mpelog serve`: the viewer page and its API over HTTP ([`mpelog::serve`]),
//! on a few worker threads over tiny_http.

use crate::detect::Format;
use crate::error::{CliError, CliResult};
use crate::input::shown;
use mpelog::serve::{Body, Service};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Worker threads answering requests.
const WORKERS: usize = 8;

/// Runs `mpelog serve` until interrupted.
pub fn run(files: &[PathBuf], bind: &str, port: u16) -> CliResult {
    let tmp = tempfile::tempdir().map_err(CliError::io(Path::new("TMPDIR")))?;
    let mut served = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let (f, format) = super::local_input(f)?;
        match format {
            Format::Slog2 | Format::Slog2Compressed => served.push((f.clone(), display_name(&f))),
            Format::Annotation => {
                return Err(CliError::Usage(format!(
                    "{}: serve shows SLOG-2 files; serve the annotated trace itself",
                    shown(&f)
                )))
            }
            _ => {
                // Converted once, into a temporary directory removed at exit.
                eprintln!("converting {} for the viewer ...", shown(&f));
                let slog2 = super::convert::to_temp_slog2(&f, tmp.path(), &format!("{i}.slog2"))?;
                served.push((slog2, display_name(&f)));
            }
        }
    }
    let service = Service::named(&served).map_err(|e| CliError::slog2(&e.path)(e.source))?;
    let service = Arc::new(service);
    let addr = format!("{bind}:{port}");
    let listener = std::net::TcpListener::bind(&addr)
        .map_err(|e| CliError::Usage(format!("cannot listen on {addr}: {e}")))?;
    no_delay(&listener);
    let server = tiny_http::Server::from_listener(listener, None)
        .map_err(|e| CliError::Usage(format!("cannot listen on {addr}: {e}")))?;
    let local = server
        .server_addr()
        .to_ip()
        .map_or(addr.clone(), |a| a.to_string());
    let loopback = bind == "127.0.0.1" || bind == "::1" || bind == "localhost";
    eprintln!(
        "serving {} at http://{local}/ ({}; Ctrl-C stops)",
        files
            .iter()
            .map(|f| shown(f))
            .collect::<Vec<_>>()
            .join(", "),
        if loopback {
            "loopback only: use an SSH tunnel to reach it from another machine"
        } else {
            "reachable from the network"
        }
    );
    let server = Arc::new(server);
    let workers: Vec<_> = (0..WORKERS)
        .map(|_| {
            let (server, service) = (Arc::clone(&server), Arc::clone(&service));
            std::thread::spawn(move || loop {
                let Ok(req) = server.recv() else { return };
                answer(&service, req);
            })
        })
        .collect();
    for w in workers {
        let _ = w.join();
    }
    Ok(())
}

/// The name the viewer shows for an input: its file name.
fn display_name(f: &Path) -> String {
    f.file_name()
        .map_or_else(|| shown(f), |n| n.to_string_lossy().into_owned())
}

/// Sets TCP_NODELAY on the listening socket; Linux gives it to every accepted
/// connection. Without it a keep-alive client waits out its delayed ACK
/// (40 ms) on most answers, since tiny_http writes the head and the body apart.
fn no_delay(listener: &std::net::TcpListener) {
    use std::os::fd::AsRawFd;
    let one: libc::c_int = 1;
    // SAFETY: a valid socket descriptor and a c_int option of the given size.
    let _ = unsafe {
        libc::setsockopt(
            listener.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_NODELAY,
            (&one as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
}

fn answer(service: &Service, req: tiny_http::Request) {
    let header_bytes: usize = req
        .headers()
        .iter()
        .map(|h| h.field.as_str().as_str().len() + h.value.as_str().len() + 4)
        .sum();
    if header_bytes > mpelog::serve::MAX_HEADER_BYTES {
        let _ignored = req.respond(tiny_http::Response::empty(431));
        return;
    }
    let range = req
        .headers()
        .iter()
        .find(|h| h.field.equiv("Range"))
        .map(|h| h.value.as_str().to_string());
    let method = req.method().as_str().to_string();
    let r = service.handle(&method, req.url(), range.as_deref());
    let mut headers =
        vec![tiny_http::Header::from_bytes("Content-Type", r.content_type).expect("ascii")];
    for (k, v) in &r.headers {
        if let Ok(h) = tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()) {
            headers.push(h);
        }
    }
    let status = tiny_http::StatusCode(r.status);
    // A client that went away is not the server's problem.
    let _ignored = match r.body {
        Body::Bytes(b) => {
            let len = b.len();
            // With its length, not chunked: every answer is in memory already.
            req.respond(
                tiny_http::Response::new(status, headers, std::io::Cursor::new(b), Some(len), None)
                    .with_chunked_threshold(usize::MAX),
            )
        }
        Body::File { path, offset, len } => {
            use std::io::{Read, Seek, SeekFrom};
            match std::fs::File::open(&path)
                .and_then(|mut f| f.seek(SeekFrom::Start(offset)).map(|_| f))
            {
                // With its length, not chunked: range clients read Content-Length.
                Ok(f) => req.respond(
                    tiny_http::Response::new(
                        status,
                        headers,
                        f.take(len),
                        Some(len as usize),
                        None,
                    )
                    .with_chunked_threshold(usize::MAX),
                ),
                Err(_) => req.respond(tiny_http::Response::empty(500)),
            }
        }
    };
}
