//! Reading remote SLOG-2 files (`mpelog::remote`, and every command that takes
//! a URL) against servers of our own on loopback that misbehave on purpose:
//! a stalled server times out within the limit; a wrong `Content-Range`, a
//! changed size, `ETag` or `Last-Modified` are refused; redirects are followed
//! (once) and a loop is stopped; a server without ranges is named and its file
//! downloaded; HTTPS with a self-signed certificate trusted through
//! `SSL_CERT_FILE` answers as the local file does and an untrusted one is
//! refused; a CONNECT proxy from `HTTP_PROXY` is used, over one kept-alive
//! connection; credentials come from `MPELOG_HTTP_AUTHORIZATION` and presigned
//! query strings pass as they are.
//!
//! Every server here is in-process on 127.0.0.1, stops when dropped, and
//! gives up on an idle connection after a few seconds.

mod common;

use common::http::{answer, file_answer, file_server, Reply, Request, Server, ETAG, MODIFIED};
use common::{mpelog, synth};
use mpelog::remote::{Change, Error, HttpFile, Options, Problem};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------
// Traces, certificates, the command line.

/// A generated SLOG-2 file of about 1.5 MB in small leaves, and its bytes.
fn trace(dir: &Path) -> (PathBuf, Arc<Vec<u8>>) {
    let clog2 = synth(dir, "t.clog2", &["--events", "20000", "--seed", "6"]);
    let slog2 = dir.join("t.slog2");
    let o = mpelog(&[
        "convert",
        &clog2,
        "-o",
        slog2.to_str().unwrap(),
        "--leaf-bytes",
        "1k",
    ]);
    assert!(o.status.success());
    let bytes = std::fs::read(&slog2).unwrap();
    (slog2, Arc::new(bytes))
}

/// Runs `mpelog` with `env` set and every variable that changes how it reaches
/// a URL removed first (a proxy of the machine, its certificate settings).
fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    command(args, env).output().expect("run mpelog")
}

/// The command [`run`] runs.
fn command(args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mpelog"));
    c.args(args);
    for v in [
        "HTTP_PROXY",
        "http_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "ALL_PROXY",
        "all_proxy",
        "NO_PROXY",
        "no_proxy",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "MPELOG_HTTP_TIMEOUT",
        "MPELOG_HTTP_DOWNLOAD_MAX",
        "MPELOG_HTTP_AUTHORIZATION",
    ] {
        c.env_remove(v);
    }
    c.envs(env.iter().copied());
    c
}

fn ok(o: Output, what: &str) -> Vec<u8> {
    assert!(
        o.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o.stdout
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `window --json` output without its last line (the cost, which names the
/// requests of a remote read), and that last line's `key=` value.
fn drawables(out: &[u8]) -> String {
    let t = String::from_utf8(out.to_vec()).unwrap();
    t.trim_end()
        .rsplit_once('\n')
        .map_or(String::new(), |b| b.0.to_string())
}

fn cost(out: &[u8], key: &str) -> u64 {
    let t = String::from_utf8(out.to_vec()).unwrap();
    let last = t.trim_end().lines().last().unwrap().to_string();
    common::cost_of(&last, key).unwrap_or_else(|| panic!("{key} in {last}"))
}

/// A self-signed certificate for `localhost` and 127.0.0.1: the server's
/// configuration and the certificate's PEM.
fn tls_config() -> (Arc<rustls::ServerConfig>, String) {
    let ck =
        rcgen::generate_simple_self_signed(vec!["localhost".into(), "127.0.0.1".into()]).unwrap();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(ck.signing_key.serialize_der().into());
    let cfg = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(vec![ck.cert.der().clone()], key)
    .unwrap();
    (Arc::new(cfg), ck.cert.pem())
}

fn options(timeout: f64) -> Options {
    let mut o = Options::default();
    o.timeout = Duration::from_secs_f64(timeout);
    o
}

/// The error of opening `url` and querying its whole window.
fn read_error(url: &str, o: &Options) -> Error {
    let e = match HttpFile::open_with(url, o) {
        Err(e) => return e,
        Ok(f) => {
            let mut r = match slog2_format::Slog2Reader::new(f) {
                Ok(r) => r,
                Err(e) => return remote_of(e),
            };
            match r.window(f64::MIN, f64::MAX) {
                Ok(_) => panic!("{url}: read without an error"),
                Err(e) => e,
            }
        }
    };
    remote_of(e)
}

/// The remote error inside a SLOG-2 reader's error.
fn remote_of(e: slog2_format::Error) -> Error {
    match e {
        slog2_format::Error::Io { source, .. } => *source
            .into_inner()
            .expect("an error of the remote reader")
            .downcast::<Error>()
            .expect("a remote error"),
        e => panic!("not an I/O error: {e}"),
    }
}

/// A server that answers as `python -m http.server` does: 200 and the whole
/// file, whatever the Range header.
fn no_ranges_server(data: Arc<Vec<u8>>) -> Server {
    Server::start(None, move |req| {
        let mut r = req.clone();
        r.range = None;
        Reply::Bytes(file_answer(&data, &r, ETAG, MODIFIED))
    })
}

// ---------------------------------------------------------------------------
// The tests.

#[test]
fn a_stalled_server_times_out_within_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let (_, data) = trace(dir.path());
    // Stalled in the headers of the first answer, and in the body of a later
    // one (headers on time, then a byte every half second).
    let head = Server::start(None, |_| {
        Reply::Trickle(
            Vec::new(),
            b"HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-0/9\r\n".to_vec(),
        )
    });
    let data2 = data.clone();
    let body = Server::start(None, move |req| {
        let full = file_answer(&data2, req, ETAG, MODIFIED);
        if req.n < 3 {
            return Reply::Bytes(full);
        }
        let split = full.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
        let (h, b) = full.split_at(split);
        // The headers and a first byte now, then a byte every half second:
        // never a pause as long as the limit.
        let mut now = h.to_vec();
        now.extend_from_slice(&b[..1]);
        Reply::Trickle(now, b[1..b.len().min(200)].to_vec())
    });
    for (name, server) in [("headers", &head), ("body", &body)] {
        let url = server.url("http", "/t.slog2");
        let t = Instant::now();
        let mut child = command(&["window", &url], &[("MPELOG_HTTP_TIMEOUT", "2")])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Bounded: a client that never gives up is killed after 20 s.
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if t.elapsed() > Duration::from_secs(20) {
                let _ = child.kill();
                let _ = child.wait();
                panic!("stalled {name}: mpelog still waiting after 20 s (limit 2 s)");
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let took = t.elapsed();
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        assert!(!status.success(), "stalled {name}: {err}");
        assert!(
            took < Duration::from_secs(6),
            "stalled {name}: gave up after {took:?} (limit 2 s)"
        );
        assert!(
            err.contains("no answer within 2 s") && err.contains(&url),
            "stalled {name}: {err}"
        );
    }
    // The library's error is typed.
    let e = read_error(&head.url("http", "/t.slog2"), &options(1.0));
    assert!(
        matches!(e, Error::Timeout { after, .. } if after == Duration::from_secs(1)),
        "{e}"
    );
}

#[test]
fn answers_that_are_not_the_range_asked_for_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_, data) = trace(dir.path());
    // Each server answers well for its first 3 requests (the opening), then
    // misbehaves in one way.
    type Bad = fn(&[u8], &Request) -> Vec<u8>;
    let cases: [(&str, Bad); 6] = [
        ("a Content-Range one byte off", |d, r| {
            let (a, b) = r.range.unwrap();
            let len = d.len();
            answer(
                "206 Partial Content",
                &[
                    ("ETag", ETAG.into()),
                    ("Last-Modified", MODIFIED.into()),
                    ("Content-Range", format!("bytes {}-{}/{len}", a + 1, b + 1)),
                ],
                &d[a as usize + 1..=b as usize + 1],
            )
        }),
        ("a grown file", |d, r| {
            let mut grown = d.to_vec();
            grown.extend_from_slice(&[0; 4096]);
            file_answer(&grown, r, ETAG, MODIFIED)
        }),
        ("a new ETag", |d, r| {
            file_answer(d, r, "\"60-ffff\"", MODIFIED)
        }),
        ("a new Last-Modified", |d, r| {
            file_answer(d, r, ETAG, "Wed, 04 Mar 2026 10:00:00 GMT")
        }),
        ("a short body", |d, r| {
            let full = file_answer(d, r, ETAG, MODIFIED);
            // Content-Length and body one byte short.
            let (a, b) = r.range.unwrap();
            let n = (b - a + 1).to_string();
            let m = (b - a).to_string();
            let text = String::from_utf8_lossy(
                &full[..full.windows(4).position(|w| w == b"\r\n\r\n").unwrap()],
            )
            .replace(
                &format!("Content-Length: {n}"),
                &format!("Content-Length: {m}"),
            );
            let mut out = format!("{text}\r\n\r\n").into_bytes();
            out.extend_from_slice(&d[a as usize..b as usize]);
            out
        }),
        ("a 200 with the whole file", |d, r| {
            let mut r = r.clone();
            r.range = None;
            file_answer(d, &r, ETAG, MODIFIED)
        }),
    ];
    for (what, bad) in cases {
        let start = || {
            let d = data.clone();
            Server::start(None, move |req| {
                Reply::Bytes(if req.n < 3 {
                    file_answer(&d, req, ETAG, MODIFIED)
                } else {
                    bad(&d, req)
                })
            })
        };
        let server = start();
        let url = server.url("http", "/t.slog2");
        let e = read_error(&url, &options(10.0));
        let right = match what {
            "a Content-Range one byte off" => matches!(
                &e,
                Error::BadAnswer {
                    problem: Problem::ContentRange(Some(_)),
                    ..
                }
            ),
            "a grown file" => matches!(
                &e,
                Error::Changed { change: Change::Size { before, after }, .. }
                    if *after == before + 4096
            ),
            "a new ETag" => matches!(
                &e,
                Error::Changed {
                    change: Change::ETag { .. },
                    ..
                }
            ),
            "a new Last-Modified" => matches!(
                &e,
                Error::Changed {
                    change: Change::LastModified { .. },
                    ..
                }
            ),
            "a short body" => matches!(
                &e,
                Error::BadAnswer { problem: Problem::Length { expected, got }, .. }
                    if *got + 1 == *expected
            ),
            _ => matches!(&e, Error::NoRanges { .. }),
        };
        assert!(right, "{what}: {e:?}");
        assert!(e.to_string().contains(&url), "{what}: {e}");
        // The command line says so too, and fails.
        let server = start();
        let url = server.url("http", "/t.slog2");
        let o = run(&["window", &url], &[]);
        assert!(!o.status.success(), "{what}");
        assert!(stderr(&o).contains(&url), "{what}: {}", stderr(&o));
        if what.starts_with("a grown") || what.starts_with("a new") {
            assert!(
                stderr(&o).contains("the remote file changed while it was read"),
                "{what}: {}",
                stderr(&o)
            );
        }
    }
}

#[test]
fn redirects_are_followed_once_and_a_loop_is_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let (slog2, data) = trace(dir.path());
    let d = data.clone();
    let server = Server::start(None, move |req| {
        let to = |status: &str, loc: &str| {
            Reply::Bytes(answer(status, &[("Location", loc.to_string())], b""))
        };
        match req.target.as_str() {
            // A chain as object stores and web servers give them: relative
            // and absolute locations, temporary and permanent.
            "/a" => to("302 Found", "/b"),
            "/b" => to("301 Moved Permanently", "b2"),
            "/b2" => to("307 Temporary Redirect", "/files/t.slog2?sig=x"),
            "/files/t.slog2?sig=x" => Reply::Bytes(file_answer(&d, req, ETAG, MODIFIED)),
            // A loop.
            "/x" => to("302 Found", "/y"),
            "/y" => to("302 Found", "/x"),
            _ => Reply::Bytes(answer("404 Not Found", &[], b"")),
        }
    });
    let local = ok(
        run(&["window", slog2.to_str().unwrap(), "--json"], &[]),
        "local",
    );
    let remote = ok(
        run(&["window", &server.url("http", "/a"), "--json"], &[]),
        "remote",
    );
    assert_eq!(drawables(&local), drawables(&remote));
    let seen = server.seen();
    let hits = |t: &str| seen.iter().filter(|r| r.target == t).count();
    // The chain once, at opening; every read after it at the final URL.
    assert_eq!(
        (hits("/a"), hits("/b"), hits("/b2")),
        (1, 1, 1),
        "requests to the redirecting URLs"
    );
    assert_eq!(
        hits("/files/t.slog2?sig=x") as u64,
        cost(&remote, "requests"),
        "requests counted once each"
    );

    let e = read_error(&server.url("http", "/x"), &options(10.0));
    assert!(
        matches!(e, Error::TooManyRedirects { max: 10, .. }),
        "{e:?}"
    );
    let o = run(&["window", &server.url("http", "/x")], &[]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("more than 10 redirects"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_server_without_ranges_is_named_and_its_file_downloaded() {
    let dir = tempfile::tempdir().unwrap();
    let (slog2, data) = trace(dir.path());
    let server = no_ranges_server(data.clone());
    let url = server.url("http", "/t.slog2");
    // Larger than the download limit: refused, and the message says why.
    let o = run(&["window", &url], &[("MPELOG_HTTP_DOWNLOAD_MAX", "1m")]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("does not support HTTP Range requests")
            && err.contains(&format!("{} bytes", data.len()))
            && err.contains("MPELOG_HTTP_DOWNLOAD_MAX"),
        "{err}"
    );
    let mut o1 = Options::default();
    o1.download_max = 1 << 20;
    match HttpFile::open_with(&url, &o1) {
        Err(Error::NoRanges { len, max, .. }) => {
            assert_eq!((len, max), (Some(data.len() as u64), 1 << 20))
        }
        other => panic!("{other:?}"),
    }
    // Within the default limit: downloaded to a temporary file, with progress
    // on stderr, and every command answers as for the local file.
    let before = server.requests();
    let local = ok(
        run(&["window", slog2.to_str().unwrap(), "--json"], &[]),
        "local",
    );
    let o = run(&["window", &url, "--json"], &[]);
    let err = stderr(&o);
    let remote = ok(o, "download");
    assert_eq!(drawables(&local), drawables(&remote));
    assert!(err.contains("downloading the whole file"), "{err}");
    assert!(
        err.contains(&format!("downloaded {} bytes", data.len())),
        "{err}"
    );
    // The probe and the download.
    assert_eq!(server.requests() - before, 2);
    assert_eq!(cost(&remote, "requests"), 2);
    let stats = |input: &str| ok(run(&["stats", input, "--json", "--by", "both"], &[]), input);
    assert_eq!(stats(&url), stats(slog2.to_str().unwrap()));
    let f = HttpFile::open_with(&url, &Options::default()).unwrap();
    assert!(f.is_downloaded());
    assert_eq!(f.len(), data.len() as u64);
}

/// `window`, `stats`, `render` and `export` of `url` give what they give for
/// `local`; the window's requests are its nodes plus the fixed opening cost,
/// which is returned.
fn every_command_equals_the_local_file(
    url: &str,
    local: &Path,
    dir: &Path,
    env: &[(&str, &str)],
) -> u64 {
    let local_s = local.to_str().unwrap();
    let info: serde_json::Value =
        serde_json::from_slice(&ok(run(&["info", local_s, "--json"], &[]), "info")).unwrap();
    let (t0, t1) = (
        info["time_min"].as_f64().unwrap(),
        info["time_max"].as_f64().unwrap(),
    );
    let mut openings = Vec::new();
    for (f, g) in [(0.1, 0.12), (0.5, 0.6), (0.0, 1.0)] {
        let (a, b) = (
            (t0 + f * (t1 - t0)).to_string(),
            (t0 + g * (t1 - t0)).to_string(),
        );
        let l = ok(
            run(
                &["window", local_s, "--from", &a, "--to", &b, "--json"],
                &[],
            ),
            "local window",
        );
        let r = ok(
            run(&["window", url, "--from", &a, "--to", &b, "--json"], env),
            "remote window",
        );
        assert!(!drawables(&l).is_empty());
        assert!(drawables(&l) == drawables(&r), "{url}: window {a}..{b}");
        let (nodes, requests) = (cost(&r, "nodes_read"), cost(&r, "requests"));
        assert_eq!(nodes, cost(&l, "nodes_read"));
        // Opening: the length, then header, legend, line-ID maps and TreeDir.
        assert!(
            requests > nodes && requests <= nodes + 6,
            "{requests} requests for {nodes} nodes"
        );
        openings.push(requests - nodes);
    }
    assert!(openings.iter().all(|o| *o == openings[0]), "{openings:?}");
    let mut outputs = vec!["e.pftrace", "e.json", "e.csv", "r.svg"];
    if cfg!(feature = "parquet") {
        outputs.push("e.parquet");
    }
    for name in outputs {
        let command = if name.starts_with('r') {
            "render"
        } else {
            "export"
        };
        let (a, b) = (dir.join(format!("url-{name}")), dir.join(name));
        ok(
            run(&[command, url, "-o", a.to_str().unwrap()], env),
            command,
        );
        ok(
            run(&[command, local_s, "-o", b.to_str().unwrap()], &[]),
            command,
        );
        let (a, b) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
        assert!(!a.is_empty() && a == b, "{url}: {command} {name}");
    }
    for window in [&[][..], &["--from", "0.1", "--to", "0.3"][..]] {
        let stats = |input: &str, env: &[(&str, &str)]| {
            let mut args = vec!["stats", input, "--json", "--by", "both"];
            args.extend_from_slice(window);
            ok(run(&args, env), "stats")
        };
        assert_eq!(
            stats(url, env),
            stats(local_s, &[]),
            "{url}: stats {window:?}"
        );
    }
    openings[0]
}

#[test]
fn http_and_https_answer_as_the_local_file_and_untrusted_certificates_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (slog2, data) = trace(dir.path());
    let http = file_server(data.clone(), None);
    let (cfg, pem) = tls_config();
    let https = file_server(data.clone(), Some(cfg));
    let cert = dir.path().join("server.pem");
    std::fs::write(&cert, pem).unwrap();
    let trusted = [("SSL_CERT_FILE", cert.to_str().unwrap())];

    let opening_http =
        every_command_equals_the_local_file(&http.url("http", "/t.slog2"), &slog2, dir.path(), &[]);
    let connections = http.connections();
    let opening_https = every_command_equals_the_local_file(
        &https.url("https", "/t.slog2"),
        &slog2,
        dir.path(),
        &trusted,
    );
    assert_eq!(opening_http, opening_https);
    // Keep-alive: one connection per command run (3 windows, 5 exports or
    // renders, 2 stats), not one per request.
    let runs = 3 + 4 + usize::from(cfg!(feature = "parquet")) + 2;
    assert!(
        connections <= runs,
        "{connections} connections for {runs} runs of {} requests",
        http.requests()
    );

    // Untrusted: the system's roots, or another certificate as the only root.
    let (_, other) = tls_config();
    let other_file = dir.path().join("other.pem");
    std::fs::write(&other_file, other).unwrap();
    let url = https.url("https", "/t.slog2");
    for env in [
        &[][..],
        &[("SSL_CERT_FILE", other_file.to_str().unwrap())][..],
    ] {
        let o = run(&["window", &url], env);
        assert!(
            !o.status.success(),
            "{env:?}: an untrusted certificate accepted"
        );
        let err = stderr(&o);
        assert!(err.contains(&url) && err.contains("TLS"), "{env:?}: {err}");
    }
    // A certificate file that holds none is named.
    let empty = dir.path().join("empty.pem");
    std::fs::write(&empty, "").unwrap();
    let o = run(
        &["window", &url],
        &[("SSL_CERT_FILE", empty.to_str().unwrap())],
    );
    assert!(!o.status.success());
    assert!(stderr(&o).contains("SSL_CERT_FILE"), "{}", stderr(&o));
}

#[test]
fn a_connect_proxy_from_the_environment_is_used() {
    let dir = tempfile::tempdir().unwrap();
    let (slog2, data) = trace(dir.path());
    let origin = file_server(data, None);
    // A CONNECT proxy: the tunnels it opened, to where.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let proxy_port = listener.local_addr().unwrap().port();
    let tunnels: Arc<Mutex<Vec<String>>> = Arc::default();
    let t = tunnels.clone();
    std::thread::spawn(move || {
        for c in listener.incoming().take(20) {
            let Ok(c) = c else { continue };
            let _ = c.set_read_timeout(Some(Duration::from_secs(5)));
            let mut r = BufReader::new(c.try_clone().unwrap());
            let mut line = String::new();
            let _ = r.read_line(&mut line);
            let target = line.split(' ').nth(1).unwrap_or("").to_string();
            loop {
                let mut h = String::new();
                if r.read_line(&mut h).unwrap_or(0) <= 2 {
                    break;
                }
            }
            t.lock().unwrap().push(target.clone());
            let Ok(up) = TcpStream::connect(&target) else {
                continue;
            };
            let _ = up.set_read_timeout(Some(Duration::from_secs(5)));
            let mut c2 = c.try_clone().unwrap();
            let _ = c2.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n");
            let (mut up_r, mut up_w) = (up.try_clone().unwrap(), up);
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut up_r, &mut c2);
            });
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut r, &mut up_w);
            });
        }
    });
    let proxy = format!("http://127.0.0.1:{proxy_port}");
    let url = origin.url("http", "/t.slog2");
    let local = ok(
        run(&["window", slog2.to_str().unwrap(), "--json"], &[]),
        "local",
    );
    let remote = ok(
        run(&["window", &url, "--json"], &[("HTTP_PROXY", &proxy)]),
        "through the proxy",
    );
    assert_eq!(drawables(&local), drawables(&remote));
    let tunnels = tunnels.lock().unwrap().clone();
    assert_eq!(
        tunnels,
        vec![format!("127.0.0.1:{}", origin.port)],
        "one kept-alive tunnel"
    );
    assert!(cost(&remote, "requests") > 5);
    // NO_PROXY skips it.
    let direct = ok(
        run(
            &["window", &url, "--json"],
            &[("HTTP_PROXY", &proxy), ("NO_PROXY", "127.0.0.1")],
        ),
        "NO_PROXY",
    );
    assert_eq!(drawables(&local), drawables(&direct));
}

#[test]
fn credentials_come_from_the_environment_and_presigned_urls_pass_as_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let (slog2, data) = trace(dir.path());
    let d = data.clone();
    let query = "?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=900&X-Amz-Signature=0a1b2c%2B3d";
    let server = Server::start(None, move |req| {
        let signed = req.target == format!("/bucket/t.slog2{query}");
        let bearer = req.target == "/private/t.slog2"
            && req.header("authorization") == Some("Bearer s3cr3t");
        if signed || bearer {
            Reply::Bytes(file_answer(&d, req, ETAG, MODIFIED))
        } else {
            Reply::Bytes(answer("403 Forbidden", &[], b""))
        }
    });
    let local = ok(
        run(&["window", slog2.to_str().unwrap(), "--json"], &[]),
        "local",
    );
    let private = server.url("http", "/private/t.slog2");
    let o = run(&["window", &private], &[]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("HTTP 403") && stderr(&o).contains("MPELOG_HTTP_AUTHORIZATION"),
        "{}",
        stderr(&o)
    );
    let with = ok(
        run(
            &["window", &private, "--json"],
            &[("MPELOG_HTTP_AUTHORIZATION", "Bearer s3cr3t")],
        ),
        "with the header",
    );
    assert_eq!(drawables(&local), drawables(&with));
    let signed = server.url("http", &format!("/bucket/t.slog2{query}"));
    let presigned = ok(run(&["window", &signed, "--json"], &[]), "presigned");
    assert_eq!(drawables(&local), drawables(&presigned));
    // An error shows the URL without its signature.
    let o = run(
        &[
            "window",
            &server.url("http", "/bucket/t.slog2?X-Amz-Signature=bad"),
        ],
        &[],
    );
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("/bucket/t.slog2?…") && !stderr(&o).contains("bad"),
        "{}",
        stderr(&o)
    );
}

// ---------------------------------------------------------------------------
// `HttpFile` as `Read + Seek`, against expectations written out by hand.

/// Bytes that differ from their neighbours, so a read off by one shows.
fn numbered(n: u32) -> Arc<Vec<u8>> {
    Arc::new((0..n).map(|i| (i.wrapping_mul(7) % 251) as u8).collect())
}

/// Seeks `f` to `at`, reads at most `n` bytes with one `read`.
fn read_at(f: &mut HttpFile, at: u64, n: usize) -> Vec<u8> {
    use std::io::Seek;
    assert_eq!(f.seek(std::io::SeekFrom::Start(at)).unwrap(), at);
    let mut b = vec![0xee; n];
    let k = f.read(&mut b).unwrap();
    assert_eq!(f.stream_position().unwrap(), at + k as u64, "at {at}");
    b.truncate(k);
    b
}

/// Every read gives exactly the remote bytes (fewer at the end, none past
/// it); a read that one of the last 8 blocks holds whole makes no request, any
/// other makes one for exactly its bytes; `counts` says how many requests and
/// body bytes, exactly; seeks from the end and from the current position land
/// where they say, and before byte 0 is an error.
#[test]
fn reads_seeks_the_cache_and_the_counts_are_exact() {
    use std::io::{Seek, SeekFrom};
    let data = numbered(100_000);
    let server = file_server(data.clone(), None);
    let mut f = HttpFile::open_with(&server.url("http", "/d"), &Options::default()).unwrap();
    let counts = f.counts();
    assert_eq!(f.len(), 100_000);
    assert!(!f.is_empty() && !f.is_downloaded());
    // Opening asks for byte 0 and keeps it.
    assert_eq!((counts.requests(), counts.bytes()), (1, 1));
    // (at, asked, requests and bytes received after the read)
    let steps: [(u64, usize, u64, u64); 12] = [
        (0, 1, 1, 1),          // the opening's block
        (1000, 100, 2, 101),   // a new block 1000..1100
        (1000, 100, 2, 101),   // the same block
        (1050, 50, 2, 101),    // inside it, to its end
        (1050, 51, 3, 152),    // one byte past its end: asked for
        (999, 10, 4, 162),     // one byte before it: asked for
        (99_990, 100, 5, 172), // the last 10 bytes only
        (99_995, 5, 5, 172),   // inside the last block
        (100_000, 10, 5, 172), // at the end: nothing
        (250_000, 10, 5, 172), // past the end: nothing
        (50_000, 0, 5, 172),   // an empty read asks for nothing
        (0, 1, 5, 172),        // byte 0 is still kept (5 blocks)
    ];
    for (at, n, requests, bytes) in steps {
        let from = (at as usize).min(data.len());
        let to = (from + n).min(data.len());
        assert_eq!(read_at(&mut f, at, n), data[from..to], "{at}+{n}");
        assert_eq!(
            (counts.requests(), counts.bytes()),
            (requests, bytes),
            "{at}+{n}"
        );
    }
    // Four more blocks make 9: the oldest (byte 0) goes, the others stay.
    for at in [10_000, 20_000, 30_000, 40_000] {
        assert_eq!(read_at(&mut f, at, 10), data[at as usize..at as usize + 10]);
    }
    assert_eq!(counts.requests(), 9);
    assert_eq!(read_at(&mut f, 1000, 100), data[1000..1100]);
    assert_eq!(counts.requests(), 9, "block 1000 is kept");
    assert_eq!(read_at(&mut f, 0, 1), data[..1]);
    assert_eq!(counts.requests(), 10, "byte 0's block was the oldest");
    assert_eq!(counts.bytes(), 172 + 40 + 1);
    // Seeks.
    assert_eq!(f.seek(SeekFrom::End(-5)).unwrap(), 99_995);
    assert_eq!(f.seek(SeekFrom::Current(-10)).unwrap(), 99_985);
    assert_eq!(f.seek(SeekFrom::Current(15)).unwrap(), 100_000);
    assert_eq!(f.seek(SeekFrom::End(10)).unwrap(), 100_010);
    let before = f.seek(SeekFrom::Start(7)).unwrap();
    assert_eq!(before, 7);
    let e = f.seek(SeekFrom::Current(-8)).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
    let e = f.seek(SeekFrom::End(-100_001)).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
    // The requests the server saw are those counted, each for its bytes.
    let seen = server.seen();
    assert_eq!(seen.len() as u64, counts.requests());
    assert_eq!(seen[1].range, Some((1000, 1099)));
    assert_eq!(seen[4].range, Some((99_990, 99_999)));
}

/// An empty file (its server answers 416 to byte 0) is opened, empty, and
/// reads nothing.
#[test]
fn an_empty_remote_file_is_empty() {
    let server = file_server(Arc::new(Vec::new()), None);
    let mut f = HttpFile::open_with(&server.url("http", "/e"), &Options::default()).unwrap();
    assert_eq!(f.len(), 0);
    assert!(f.is_empty() && !f.is_downloaded());
    assert_eq!(read_at(&mut f, 0, 10), b"");
    assert_eq!(f.counts().requests(), 1);
    let server = file_server(numbered(1), None);
    let mut f = HttpFile::open_with(&server.url("http", "/one"), &Options::default()).unwrap();
    assert!(!f.is_empty());
    assert_eq!(read_at(&mut f, 0, 10), numbered(1)[..]);
}

/// A server without ranges: a file of exactly `download_max` bytes is
/// downloaded, one byte more is refused; the downloaded copy reads as the
/// remote bytes anywhere, with the download's bytes counted.
#[test]
fn a_download_is_allowed_up_to_its_limit_and_reads_as_the_file() {
    let data = numbered(50_000);
    let server = no_ranges_server(data.clone());
    let url = server.url("http", "/whole");
    let mut o = Options::default();
    o.download_max = 50_000 - 1;
    match HttpFile::open_with(&url, &o) {
        Err(Error::NoRanges { len, max, .. }) => assert_eq!((len, max), (Some(50_000), 49_999)),
        other => panic!("{other:?}"),
    }
    o.download_max = 50_000;
    let mut f = HttpFile::open_with(&url, &o).unwrap();
    assert!(f.is_downloaded() && !f.is_empty());
    assert_eq!(f.len(), 50_000);
    // The probe and the download; the probe's body is not read.
    assert_eq!((f.counts().requests(), f.counts().bytes()), (2, 50_000));
    for (at, n) in [(0u64, 10usize), (49_990, 100), (123, 4567), (50_000, 5)] {
        let end = (at as usize + n).min(50_000);
        assert_eq!(read_at(&mut f, at, n), data[at as usize..end], "{at}+{n}");
    }
    // Sequential reads move on by what they read.
    use std::io::Seek;
    f.seek(std::io::SeekFrom::Start(100)).unwrap();
    let mut a = [0u8; 16];
    f.read_exact(&mut a).unwrap();
    f.read_exact(&mut a).unwrap();
    assert_eq!(a[..], data[116..132]);
}

/// A read answered with another status than 206: an error status (400 and
/// up, but 416) is named as such; 416 and a success that is not 206 are a bad
/// answer to the range asked for; 200 is a server that stopped answering
/// ranges.
#[test]
fn a_read_answered_with_another_status_is_named_by_it() {
    let data = numbered(10_000);
    for status in [400u16, 404, 500, 416, 299, 204, 200] {
        let d = data.clone();
        let server = Server::start(None, move |req| {
            Reply::Bytes(if req.n == 0 {
                file_answer(&d, req, ETAG, MODIFIED)
            } else {
                let line = format!("{status} Whatever");
                let validators = [("ETag", ETAG.into()), ("Last-Modified", MODIFIED.into())];
                let body: &[u8] = if status == 200 { &d } else { b"" };
                answer(&line, &validators, body)
            })
        });
        let mut f = HttpFile::open_with(&server.url("http", "/s"), &Options::default()).unwrap();
        let mut b = [0u8; 100];
        let e = std::io::Seek::seek(&mut f, std::io::SeekFrom::Start(10))
            .and_then(|_| f.read(&mut b))
            .expect_err("not a range");
        let e = *e.into_inner().unwrap().downcast::<Error>().unwrap();
        let right = match status {
            400 | 404 | 500 => matches!(e, Error::Status { status: s, .. } if s == status),
            200 => matches!(
                e,
                Error::NoRanges {
                    len: Some(10_000),
                    max: 0,
                    ..
                }
            ),
            _ => matches!(
                e,
                Error::BadAnswer { start: 10, end: 109, problem: Problem::Status(s), .. } if s == status
            ),
        };
        assert!(right, "{status}: {e:?}");
    }
}

/// A download is checked against the probe's answer: another `ETag`,
/// `Last-Modified` or size in the download's answer is a changed file, named
/// by what changed; a body that stops short stops the download with the
/// time limit's error (a read error is not retried).
#[test]
fn a_download_that_is_not_the_probed_file_is_refused() {
    let data = numbered(50_000);
    type Second = fn(&[u8], &Request) -> Vec<u8>;
    let cases: [(&str, Second); 4] = [
        ("etag", |d, r| file_answer(d, r, "\"other\"", MODIFIED)),
        ("modified", |d, r| {
            file_answer(d, r, ETAG, "Wed, 04 Mar 2026 10:00:00 GMT")
        }),
        ("size", |d, r| file_answer(&d[..49_000], r, ETAG, MODIFIED)),
        ("short", |d, r| {
            let full = file_answer(d, r, ETAG, MODIFIED);
            full[..full.len() - 30_000].to_vec()
        }),
    ];
    for (what, second) in cases {
        let d = data.clone();
        let server = Server::start(None, move |req| {
            let mut r = req.clone();
            r.range = None;
            Reply::Bytes(if req.n == 0 {
                file_answer(&d, &r, ETAG, MODIFIED)
            } else {
                second(&d, &r)
            })
        });
        let t = Instant::now();
        let e = HttpFile::open_with(&server.url("http", "/w"), &options(1.0))
            .expect_err("not the probed file");
        let right = match what {
            "etag" => matches!(
                e,
                Error::Changed {
                    change: Change::ETag { .. },
                    ..
                }
            ),
            "modified" => matches!(
                e,
                Error::Changed {
                    change: Change::LastModified { .. },
                    ..
                }
            ),
            "size" => matches!(
                e,
                Error::Changed {
                    change: Change::Size {
                        before: 50_000,
                        after: 49_000
                    },
                    ..
                }
            ),
            _ => matches!(e, Error::Timeout { .. }),
        };
        assert!(right, "{what}: {e:?}");
        assert!(
            t.elapsed() < Duration::from_secs(4),
            "{what}: {:?}",
            t.elapsed()
        );
    }
}

/// A remote error handed through `Read` keeps its kind (a time limit:
/// `TimedOut`; a bad or changed answer: `InvalidData`; a bad URL or
/// setting: `InvalidInput`; anything else: `Other`) and comes back whole from
/// `Error::from_io`; an I/O error of another origin becomes a transport
/// error of the URL.
#[test]
fn remote_errors_as_io_errors_keep_their_kind_and_come_back() {
    use std::io::ErrorKind as K;
    let url = "http://h/f".to_string();
    let u = || url.clone();
    let cases = [
        (
            Error::Timeout {
                url: u(),
                after: Duration::from_secs(1),
                what: "body".into(),
            },
            K::TimedOut,
        ),
        (
            Error::BadAnswer {
                url: u(),
                start: 0,
                end: 9,
                problem: Problem::Status(204),
            },
            K::InvalidData,
        ),
        (
            Error::Changed {
                url: u(),
                change: Change::Size {
                    before: 1,
                    after: 2,
                },
            },
            K::InvalidData,
        ),
        (
            Error::Protocol {
                url: u(),
                message: "x".into(),
            },
            K::InvalidData,
        ),
        (
            Error::BadUrl {
                url: u(),
                reason: "x".into(),
            },
            K::InvalidInput,
        ),
        (
            Error::BadSetting {
                name: "MPELOG_HTTP_TIMEOUT",
                value: "x".into(),
                reason: "x".into(),
            },
            K::InvalidInput,
        ),
        (
            Error::Status {
                url: u(),
                status: 404,
            },
            K::Other,
        ),
        (Error::TooManyRedirects { url: u(), max: 10 }, K::Other),
    ];
    for (e, kind) in cases {
        let was = format!("{e:?}");
        let io: std::io::Error = e.into();
        assert_eq!(io.kind(), kind, "{was}");
        assert_eq!(format!("{:?}", Error::from_io(&url, io)), was);
    }
    let other = Error::from_io(&url, std::io::Error::new(K::ConnectionReset, "reset"));
    assert!(
        matches!(&other, Error::Transport { url: at, source } if *at == url && source.kind() == K::ConnectionReset),
        "{other:?}"
    );
    assert_eq!(
        mpelog::remote::shown_url("https://u:p@host/a/b.slog2?sig=1"),
        "https://host/a/b.slog2?…"
    );
}

/// `MPELOG_HTTP_TIMEOUT` takes a positive, finite number of seconds below
/// 10⁹: 0, a negative, an infinite, a non-number and 10⁹ itself are refused
/// as a bad setting before any request; 0.5 is taken (the request then finds
/// no server).
#[test]
fn the_time_limit_setting_is_checked() {
    let url = "http://127.0.0.1:9/none.slog2";
    for v in ["0", "-1", "inf", "NaN", "1e9", "soon"] {
        let o = run(&["window", url], &[("MPELOG_HTTP_TIMEOUT", v)]);
        assert!(!o.status.success(), "{v}");
        assert!(
            stderr(&o).contains(&format!("MPELOG_HTTP_TIMEOUT={v:?}")),
            "{v}: {}",
            stderr(&o)
        );
    }
    let o = run(&["window", url], &[("MPELOG_HTTP_TIMEOUT", "0.5")]);
    assert!(!o.status.success());
    assert!(
        !stderr(&o).contains("MPELOG_HTTP_TIMEOUT="),
        "{}",
        stderr(&o)
    );
}

/// `SSL_CERT_FILE` naming a file without certificates is a bad setting,
/// named before any request, not a silent fall back to the bundled roots.
#[test]
fn a_certificate_file_without_certificates_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let none = dir.path().join("none.pem");
    std::fs::write(&none, "not a certificate\n").unwrap();
    let o = run(
        &["window", "https://127.0.0.1:9/none.slog2"],
        &[("SSL_CERT_FILE", none.to_str().unwrap())],
    );
    assert!(!o.status.success());
    assert!(stderr(&o).contains("SSL_CERT_FILE="), "{}", stderr(&o));
}

/// Reads one request's head (up to its empty line) from `r`: false when the
/// connection ended first.
fn read_head(r: &mut impl BufRead) -> bool {
    let mut line = String::new();
    loop {
        line.clear();
        match r.read_line(&mut line) {
            Ok(0) | Err(_) => return false,
            Ok(_) if line == "\r\n" => return true,
            Ok(_) => {}
        }
    }
}

/// A server may close a kept-alive connection at any time (its idle timeout)
/// and the client may already be sending on it: the request is sent again
/// once, on a new connection (RFC 9112 §9.3.1: a GET is idempotent), so the
/// read succeeds. Here the server takes the read's request on the opening's
/// connection and closes it without an answer, every time.
#[test]
fn a_request_on_a_connection_the_server_closed_is_sent_again_once() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let data = numbered(1000);
    let server_data = data.clone();
    let connections = Arc::new(Mutex::new(0u32));
    let seen = connections.clone();
    std::thread::spawn(move || {
        for c in listener.incoming() {
            let mut c = c.unwrap();
            *seen.lock().unwrap() += 1;
            let mut r = BufReader::new(c.try_clone().unwrap());
            let mut answered = 0;
            while read_head(&mut r) {
                if answered == 1 {
                    // The second request on this connection: close it unanswered.
                    break;
                }
                let head = format!(
                    "HTTP/1.1 206 Partial\r\nContent-Range: bytes 0-0/{}\r\nContent-Length: 1\r\n\r\n",
                    server_data.len()
                );
                let _ = c.write_all(head.as_bytes());
                let _ = c.write_all(&server_data[..1]);
                answered += 1;
            }
        }
    });
    let mut f = HttpFile::open(&format!("http://127.0.0.1:{port}/x")).unwrap();
    assert_eq!(f.len(), 1000);
    // Every answer is byte 0 (the server ignores the range), so a read of
    // byte 0 is the check: it must come back, after one request sent again.
    assert_eq!(read_at(&mut f, 0, 1), data[..1]);
    assert_eq!(f.counts().requests(), 1, "byte 0 is kept from the opening");
    let e = {
        use std::io::Seek;
        f.seek(std::io::SeekFrom::Start(500)).unwrap();
        let mut b = [0u8; 1];
        f.read(&mut b)
    };
    // The answer to the resent request is byte 0 for byte 500: refused as
    // not the range asked for, which shows that it was received.
    let e = e.expect_err("a 206 for bytes 0-0 is not bytes 500-500");
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidData, "{e}");
    assert_eq!(*connections.lock().unwrap(), 2, "one new connection");
    assert_eq!(
        f.counts().requests(),
        3,
        "the opening, the read, the read again"
    );
}
