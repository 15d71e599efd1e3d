//! `mpelog serve`'s HTTP API ([`mpelog::serve::Service::handle`], and the
//! server itself on loopback): every endpoint, Range requests, the window
//! answers equal `mpelog window --json`, hostile requests get 4xx.

mod common;

use common::http::{raw, Answer};
use common::{mpelog, stdout, synth};
use mpelog::serve::Service;
use serde_json::Value;
use std::io::{Read, Write};
use std::path::PathBuf;

/// A server child killed when dropped, also when a test fails.
struct Child(std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `mpelog serve FILE --no-waits` on a free loopback port (bind one, read it,
/// let it go, start the server on it), and that port: without waits, as the
/// services the tests make (whose answers they compare) are.
fn serve(file: &std::path::Path) -> (Child, u16) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_mpelog"))
        .args([
            "serve",
            file.to_str().unwrap(),
            "--no-waits",
            "--port",
            &port.to_string(),
        ])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    (Child(child), port)
}

fn trace(dir: &std::path::Path) -> PathBuf {
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
    slog2
}

fn json(s: &Service, url: &str) -> Value {
    common::served_json(s, url)
}

#[test]
fn every_endpoint_answers_and_windows_equal_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let slog2 = trace(dir.path());
    let s = Service::new(std::slice::from_ref(&slog2)).unwrap();

    let page = s.handle("GET", "/", None);
    assert_eq!(
        (page.status, page.content_type),
        (200, "text/html; charset=utf-8")
    );
    // Relative URLs only, so the page works behind a reverse proxy under a
    // path prefix.
    let page = String::from_utf8(page.read_body().unwrap()).unwrap();
    assert!(page.contains("`api/window?"));
    assert!(!page.contains("`/api/") && !page.contains("\"/api/"));

    let info = json(&s, "/api/info");
    let (t0, t1) = (
        info["time_min"].as_f64().unwrap(),
        info["time_max"].as_f64().unwrap(),
    );
    assert!(t1 > t0);
    assert!(!info["legend"].as_array().unwrap().is_empty());
    assert_eq!(info["views"][0]["title"], "Process View");

    // A window's summary equals `mpelog window --summary` (the same query,
    // rows and cells), the cost aside.
    let (a, b) = (t0 + 0.3 * (t1 - t0), t0 + 0.32 * (t1 - t0));
    let mut w = json(&s, &format!("/api/window?from={a}&to={b}&pixels=700"));
    assert!(w["cost"]["nodes_read"].as_u64().unwrap() >= 1);
    let cli = stdout(&mpelog(&[
        "window",
        slog2.to_str().unwrap(),
        "--from",
        &a.to_string(),
        "--to",
        &b.to_string(),
        "--pixels",
        "700",
        "--summary",
    ]));
    let mut cli: Value = serde_json::from_str(&cli).unwrap();
    w.as_object_mut().unwrap().remove("cost");
    cli.as_object_mut().unwrap().remove("cost");
    assert!(!w["states"].as_array().unwrap().is_empty());
    assert_eq!(w, cli);

    // Zoomed out: the summary stands on shadows, and its size is bounded by
    // rows × columns.
    let w = json(&s, &format!("/api/window?from={t0}&to={t1}&pixels=50"));
    assert!(w["shadows"].as_u64().unwrap() > 0);
    let rows = w["rows"].as_array().unwrap().len();
    let cells: u64 = w["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c[2].as_u64().unwrap())
        .sum();
    assert!(cells as usize <= rows * 50, "{cells} cells");

    // Export of the window: a Perfetto trace (packets start with field 1).
    let e = s.handle("GET", &format!("/api/export?from={a}&to={b}"), None);
    assert_eq!(e.status, 200);
    assert_eq!(e.read_body().unwrap()[0], 0x0a);

    // /trace: the file, and Range requests.
    let bytes = std::fs::read(&slog2).unwrap();
    let whole = s.handle("GET", "/trace", None);
    assert_eq!(
        (whole.status, whole.read_body().unwrap()),
        (200, bytes.clone())
    );
    let r = s.handle("GET", "/trace", Some("bytes=10-19"));
    assert_eq!(r.status, 206);
    assert_eq!(r.read_body().unwrap(), bytes[10..20].to_vec());
    assert!(r.headers.contains(&(
        "Content-Range".into(),
        format!("bytes 10-19/{}", bytes.len())
    )));
    let r = s.handle("GET", "/trace", Some("bytes=-5"));
    assert_eq!(
        (r.status, r.read_body().unwrap()),
        (206, bytes[bytes.len() - 5..].to_vec())
    );
    let r = s.handle(
        "GET",
        "/trace",
        Some(&format!("bytes={}-", bytes.len() - 3)),
    );
    assert_eq!(r.read_body().unwrap(), bytes[bytes.len() - 3..].to_vec());
    for bad in [
        format!("bytes={}-", bytes.len()),
        "bytes=5-2".into(),
        "bytes=-0".into(),
        "items=1-2".into(),
    ] {
        let r = s.handle("GET", "/trace", Some(&bad));
        assert_eq!(r.status, 416, "{bad}");
        assert!(r
            .headers
            .contains(&("Content-Range".into(), format!("bytes */{}", bytes.len()))));
    }
}

#[test]
fn hostile_requests_get_4xx() {
    let dir = tempfile::tempdir().unwrap();
    let slog2 = trace(dir.path());
    let s = Service::new(&[slog2]).unwrap();
    for (method, url, status) in [
        ("GET", "/../../etc/passwd", 404),
        ("GET", "/trace/../../etc/passwd", 404),
        ("GET", "/etc/passwd", 404),
        ("POST", "/api/info", 405),
        ("GET", "/api/info?file=1", 400),
        ("GET", "/api/info?file=-1", 400),
        ("GET", "/api/info?bogus=1", 400),
        ("GET", "/api/window?from=1&to=0", 400),
        ("GET", "/api/window?from=nan&to=1", 400),
        ("GET", "/api/window?from=0&to=inf", 400),
        ("GET", "/api/window?from=0&to=1&pixels=0", 400),
        ("GET", "/api/window?from=0&to=1&pixels=99999999", 400),
        ("GET", "/api/window?from=0&from=1&to=2", 400),
        ("GET", "/api/window?from=%zz&to=1", 400),
        ("GET", "/api/window?from=0&to=1e300", 200),
        ("GET", "/api/export?from=0", 400),
    ] {
        let r = s.handle(method, url, None);
        assert_eq!(r.status, status, "{method} {url}");
    }
    let long = format!("/api/info?{}", "a".repeat(10_000));
    assert_eq!(s.handle("GET", &long, None).status, 414);
}

#[test]
fn the_server_answers_on_loopback() {
    let dir = tempfile::tempdir().unwrap();
    let slog2 = trace(dir.path());
    let (_child, port) = serve(&slog2);
    let get = |path: &str| -> Option<String> {
        let mut c = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
        write!(
            c,
            "GET {path} HTTP/1.0\r\nHost: localhost\r\nRange: bytes=0-9\r\n\r\n"
        )
        .ok()?;
        let mut s = String::new();
        c.read_to_string(&mut s).ok()?;
        Some(s)
    };
    let mut answer = None;
    for _ in 0..100 {
        answer = get("/api/info");
        if answer.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let answer = answer.expect("the server answers");
    assert!(
        answer.starts_with("HTTP/1.1 200") || answer.starts_with("HTTP/1.0 200"),
        "{answer}"
    );
    assert!(answer.contains("\"time_min\""));
    let range = get("/trace").unwrap();
    assert!(range.contains(" 206 "), "{range}");
    assert!(
        range.ends_with("\r\n\r\n\u{0}\u{8}SLOG 2.0") || range.contains("SLOG 2.0"),
        "{range:?}"
    );
    let missing = get("/nope").unwrap();
    assert!(missing.contains(" 404 "));
}

#[test]
fn window_of_a_url_reads_with_one_range_request_per_node() {
    let dir = tempfile::tempdir().unwrap();
    let slog2 = trace(dir.path());
    let (_child, port) = serve(&slog2);
    let url = format!("http://127.0.0.1:{port}/trace");
    let info: Value = serde_json::from_str(&stdout(&mpelog(&[
        "info",
        slog2.to_str().unwrap(),
        "--json",
    ])))
    .unwrap();
    let (t0, t1) = (
        info["time_min"].as_f64().unwrap(),
        info["time_max"].as_f64().unwrap(),
    );
    let (mut checked, mut opening) = (0, Vec::new());
    for (f, g) in [(0.1, 0.12), (0.5, 0.6), (0.0, 1.0)] {
        let (a, b) = (
            (t0 + f * (t1 - t0)).to_string(),
            (t0 + g * (t1 - t0)).to_string(),
        );
        let local = stdout(&mpelog(&[
            "window",
            slog2.to_str().unwrap(),
            "--from",
            &a,
            "--to",
            &b,
            "--json",
        ]));
        let mut remote = None;
        for _ in 0..100 {
            let o = mpelog(&["window", &url, "--from", &a, "--to", &b, "--json"]);
            if o.status.success() {
                remote = Some(String::from_utf8(o.stdout).unwrap());
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let remote = remote.expect("the server answers");
        let body = |t: &str| {
            t.trim_end()
                .rsplit_once('\n')
                .map_or(String::new(), |b| b.0.to_string())
        };
        let (lb, rb) = (body(&local), body(&remote));
        assert!(!lb.is_empty());
        assert!(
            lb == rb,
            "the same drawables ({} and {} bytes)",
            lb.len(),
            rb.len()
        );
        let last = remote.trim_end().lines().last().unwrap();
        let field = |k: &str| -> u64 { common::cost_of(last, k).unwrap() };
        let (nodes, requests) = (field("nodes_read"), field("requests"));
        // Opening: the length, then header, legend, line-ID maps and TreeDir.
        assert!(
            requests > nodes && requests <= nodes + 6,
            "{requests} requests for {nodes} nodes"
        );
        opening.push(requests - nodes);
        checked += 1;
    }
    assert_eq!(checked, 3);
    // The opening costs the same requests whatever the window: requests =
    // nodes read + opening, exactly.
    assert!(opening.iter().all(|o| *o == opening[0]), "{opening:?}");
}

#[test]
fn a_hostile_server_cannot_make_the_remote_reader_allocate() {
    use std::io::{BufRead, BufReader};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let answers = [
        // The length probe: a proper 206.
        "HTTP/1.1 206 Partial\r\nContent-Range: bytes 0-0/1000\r\nContent-Length: 1\r\n\r\nX"
            .to_string(),
        // A read of 10 bytes answered with a claimed 1 TB body.
        "HTTP/1.1 206 Partial\r\nContent-Length: 1000000000000\r\n\r\nabc".to_string(),
        // A header line that never ends.
        format!("HTTP/1.1 206 Partial\r\nX-Long: {}", "a".repeat(200_000)),
    ];
    std::thread::spawn(move || {
        for a in answers {
            let (mut c, _) = listener.accept().unwrap();
            let mut r = BufReader::new(c.try_clone().unwrap());
            let mut line = String::new();
            while r.read_line(&mut line).unwrap_or(0) > 2 {
                line.clear();
            }
            let _ = c.write_all(a.as_bytes());
        }
    });
    let mut f = mpelog::remote::HttpFile::open(&format!("http://127.0.0.1:{port}/x")).unwrap();
    assert_eq!(f.len(), 1000);
    let mut buf = [0u8; 10];
    for what in ["a claimed 1 TB body", "an endless header line"] {
        use std::io::Seek;
        f.seek(std::io::SeekFrom::Start(10)).unwrap();
        let e = f.read(&mut buf).expect_err(what);
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData, "{what}: {e}");
    }
}

fn get(port: u16, path: &str, extra: &str) -> Answer {
    raw(
        port,
        format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n{extra}\r\n")
            .as_bytes(),
    )
    .unwrap_or_else(|| panic!("an answer to {path}"))
}

/// `mpelog serve` of [`trace`] in `dir`, once it answers.
fn serving(dir: &std::path::Path) -> (Child, u16) {
    let (child, port) = serve(&trace(dir));
    wait_up(port);
    (child, port)
}

/// Waits until the server at `port` answers.
fn wait_up(port: u16) {
    for _ in 0..400 {
        if raw(port, b"GET /api/info HTTP/1.0\r\n\r\n").is_some_and(|a| a.status == 200) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("the server did not start");
}

/// A window answer without what it cost (timings differ between runs).
fn without_cost(mut v: Value) -> Value {
    v.as_object_mut().unwrap().remove("cost");
    v
}

#[test]
fn every_endpoint_and_range_over_the_socket() {
    let dir = tempfile::tempdir().unwrap();
    let slog2 = trace(dir.path());
    let bytes = std::fs::read(&slog2).unwrap();
    let n = bytes.len();
    let s = Service::new(std::slice::from_ref(&slog2)).unwrap();
    let (_child, port) = serve(&slog2);
    wait_up(port);

    for page in ["/", "/index.html"] {
        let a = get(port, page, "");
        assert_eq!(a.status, 200, "{page}");
        assert!(a.header("Content-Type").unwrap().starts_with("text/html"));
        assert_eq!(a.body, mpelog::serve::PAGE.as_bytes());
    }
    let info = get(port, "/api/info", "");
    assert_eq!(info.status, 200);
    assert_eq!(
        serde_json::from_slice::<Value>(&info.body).unwrap(),
        json(&s, "/api/info")
    );
    let head = raw(
        port,
        b"HEAD /api/info HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
    )
    .unwrap();
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty(), "HEAD has no body");

    let v = serde_json::from_slice::<Value>(&info.body).unwrap();
    let (t0, t1) = (
        v["time_min"].as_f64().unwrap(),
        v["time_max"].as_f64().unwrap(),
    );
    for (f, g, px) in [(0.0, 1.0, 1600), (0.2, 0.21, 16384), (0.5, 0.9, 37)] {
        let url = format!(
            "/api/window?from={}&to={}&pixels={px}",
            t0 + f * (t1 - t0),
            t0 + g * (t1 - t0)
        );
        let a = get(port, &url, "");
        assert_eq!(a.status, 200, "{url}");
        assert_eq!(a.header("Content-Type"), Some("application/json"));
        let remote: Value = serde_json::from_slice(&a.body).unwrap();
        assert!(remote["cost"]["nodes_read"].as_u64().unwrap() >= 1);
        assert_eq!(without_cost(remote), without_cost(json(&s, &url)), "{url}");
    }
    let e = get(
        port,
        &format!("/api/export?from={t0}&to={}", t0 + 0.1 * (t1 - t0)),
        "",
    );
    assert_eq!(e.status, 200);
    assert!(e
        .header("Content-Disposition")
        .unwrap()
        .contains(".pftrace"));
    assert_eq!(e.body[0], 0x0a);

    // /trace whole and in ranges.
    let whole = get(port, "/trace", "");
    assert_eq!((whole.status, &whole.body), (200, &bytes));
    assert_eq!(whole.header("Accept-Ranges"), Some("bytes"));
    for (range, a, b) in [
        ("bytes=10-19".to_string(), 10, 19),
        ("bytes=0-0".into(), 0, 0),
        ("bytes=-5".into(), n - 5, n - 1),
        (format!("bytes=-{}", n + 100), 0, n - 1),
        (format!("bytes={}-", n - 3), n - 3, n - 1),
        (format!("bytes=100-{}", n + 1000), 100, n - 1),
    ] {
        let r = get(port, "/trace", &format!("Range: {range}\r\n"));
        assert_eq!(r.status, 206, "{range}");
        assert_eq!(r.body, &bytes[a..=b], "{range}");
        assert_eq!(
            r.header("Content-Range"),
            Some(format!("bytes {a}-{b}/{n}").as_str()),
            "{range}"
        );
        assert_eq!(
            r.header("Content-Length"),
            Some((b - a + 1).to_string().as_str())
        );
    }
    for range in [
        format!("bytes={n}-"),
        format!("bytes={}-{}", n + 10, n + 20),
        "bytes=-0".into(),
        "bytes=9-3".into(),
        "bytes=1-2,5-6".into(),
        "bytes=x-y".into(),
    ] {
        let r = get(port, "/trace", &format!("Range: {range}\r\n"));
        assert_eq!(r.status, 416, "{range}");
        assert_eq!(
            r.header("Content-Range"),
            Some(format!("bytes */{n}").as_str()),
            "{range}"
        );
    }
}

#[test]
fn hostile_requests_on_the_socket_get_4xx_and_the_server_lives() {
    let dir = tempfile::tempdir().unwrap();
    let slog2 = trace(dir.path());
    let (mut child, port) = serve(&slog2);
    wait_up(port);
    let huge_header = format!("X-Big: {}\r\n", "a".repeat(100_000));
    let many_headers: String = (0..5000).map(|i| format!("X-{i}: v\r\n")).collect();
    let cases: Vec<(String, Vec<u8>)> = vec![
        (
            "traversal".into(),
            b"GET /../../etc/passwd HTTP/1.1\r\nConnection: close\r\n\r\n".to_vec(),
        ),
        (
            "traversal under /trace".into(),
            b"GET /trace/../../../etc/passwd HTTP/1.1\r\nConnection: close\r\n\r\n".to_vec(),
        ),
        (
            "encoded traversal".into(),
            b"GET /%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\nConnection: close\r\n\r\n".to_vec(),
        ),
        (
            "the served file's own name".into(),
            format!(
                "GET /{} HTTP/1.1\r\nConnection: close\r\n\r\n",
                slog2.file_name().unwrap().to_str().unwrap()
            )
            .into_bytes(),
        ),
        (
            "absolute path".into(),
            format!(
                "GET {} HTTP/1.1\r\nConnection: close\r\n\r\n",
                slog2.display()
            )
            .into_bytes(),
        ),
        (
            "bad number".into(),
            b"GET /api/window?from=abc&to=1 HTTP/1.1\r\nConnection: close\r\n\r\n".to_vec(),
        ),
        (
            "negative window".into(),
            b"GET /api/window?from=5&to=-5 HTTP/1.1\r\nConnection: close\r\n\r\n".to_vec(),
        ),
        (
            "huge pixels".into(),
            b"GET /api/window?from=0&to=1&pixels=4294967296 HTTP/1.1\r\nConnection: close\r\n\r\n"
                .to_vec(),
        ),
        (
            "negative pixels".into(),
            b"GET /api/window?from=0&to=1&pixels=-3 HTTP/1.1\r\nConnection: close\r\n\r\n".to_vec(),
        ),
        (
            "file index overflow".into(),
            b"GET /api/info?file=99999999999999999999999 HTTP/1.1\r\nConnection: close\r\n\r\n"
                .to_vec(),
        ),
        (
            "unknown parameter".into(),
            b"GET /trace?x=1 HTTP/1.1\r\nConnection: close\r\n\r\n".to_vec(),
        ),
        (
            "bad percent escape".into(),
            b"GET /api/info?file=%G1 HTTP/1.1\r\nConnection: close\r\n\r\n".to_vec(),
        ),
        (
            "not UTF-8".into(),
            b"GET /api/info?file=%ff%fe HTTP/1.1\r\nConnection: close\r\n\r\n".to_vec(),
        ),
        (
            "long target".into(),
            format!(
                "GET /api/info?{} HTTP/1.1\r\nConnection: close\r\n\r\n",
                "b".repeat(50_000)
            )
            .into_bytes(),
        ),
        (
            "POST".into(),
            b"POST /api/info HTTP/1.1\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc"
                .to_vec(),
        ),
        (
            "DELETE".into(),
            b"DELETE /trace HTTP/1.1\r\nConnection: close\r\n\r\n".to_vec(),
        ),
        (
            "oversized header".into(),
            format!("GET /api/info HTTP/1.1\r\n{huge_header}Connection: close\r\n\r\n")
                .into_bytes(),
        ),
        (
            "many headers".into(),
            format!("GET /api/info HTTP/1.1\r\n{many_headers}Connection: close\r\n\r\n")
                .into_bytes(),
        ),
        (
            "garbage request line".into(),
            b"HELLO THERE\r\n\r\n".to_vec(),
        ),
        ("binary".into(), b"\x00\x01\x02\xff\xfe\r\n\r\n".to_vec()),
        (
            "malformed header".into(),
            b"GET /api/info HTTP/1.1\r\nno colon here\r\n\r\n".to_vec(),
        ),
    ];
    for (what, request) in &cases {
        let a = raw(port, request);
        // Either a 4xx answer or (for bytes that are no request at all) a
        // closed connection; never a 2xx or 5xx.
        match a {
            Some(a) => assert!(
                (400..500).contains(&a.status),
                "{what}: answered {}",
                a.status
            ),
            None => assert!(
                what == "binary" || what == "garbage request line",
                "{what}: no answer"
            ),
        }
        assert!(
            child.0.try_wait().unwrap().is_none(),
            "{what}: the server died"
        );
        let ok = get(port, "/api/info", "");
        assert_eq!(ok.status, 200, "after {what}: the server still answers");
    }
    // A client that sends half a request and goes away.
    {
        let mut c = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        c.write_all(b"GET /api/window?from=0&to=1 HTTP/1.1\r\nHost:")
            .unwrap();
    }
    assert_eq!(get(port, "/api/info", "").status, 200);
    assert!(child.0.try_wait().unwrap().is_none());
}

/// The request headers `mpelog serve` counts: each line's name and value plus
/// 4 bytes (`: ` and CRLF). Headers of exactly
/// [`mpelog::serve::MAX_HEADER_BYTES`] are answered, one byte more is `431`
/// (and a limit of a kilobyte or two would refuse a browser's cookies).
#[test]
fn headers_of_exactly_the_limit_are_read_and_one_byte_more_is_431() {
    let dir = tempfile::tempdir().unwrap();
    let (_child, port) = serving(dir.path());
    let limit = mpelog::serve::MAX_HEADER_BYTES;
    // `Host` and `Connection`, then `X-Pad-K: aaa…` lines of about 1,000
    // bytes each, to `total` bytes counted in all.
    let request = |total: usize| {
        let mut lines = vec![
            "Host: localhost".to_string(),
            "Connection: close".to_string(),
        ];
        let rest = total - lines.iter().map(|l| l.len() + 2).sum::<usize>();
        let per_line = "X-Pad-000: ".len() + 2;
        let m = rest.div_ceil(1000 + per_line);
        let values = rest - m * per_line;
        for k in 0..m {
            let v = values / m + usize::from(k < values % m);
            lines.push(format!("X-Pad-{k:03}: {}", "a".repeat(v)));
        }
        assert_eq!(lines.iter().map(|l| l.len() + 2).sum::<usize>(), total);
        format!("GET /api/info HTTP/1.1\r\n{}\r\n\r\n", lines.join("\r\n")).into_bytes()
    };
    let status = |total| raw(port, &request(total)).map(|a| a.status);
    assert_eq!(status(2048), Some(200));
    assert_eq!(status(limit), Some(200));
    assert_eq!(status(limit + 1), Some(431));
}

/// `VmRSS` of process `pid`, in kB.
fn rss_kb(pid: u32) -> u64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    s.lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

/// A keep-alive HTTP/1.1 connection for the load test.
struct Conn {
    port: u16,
    r: Option<std::io::BufReader<std::net::TcpStream>>,
}

impl Conn {
    fn get(&mut self, path: &str) -> std::io::Result<(u16, Vec<u8>)> {
        use std::io::BufRead;
        if self.r.is_none() {
            let c = std::net::TcpStream::connect(("127.0.0.1", self.port))?;
            c.set_read_timeout(Some(std::time::Duration::from_secs(60)))?;
            self.r = Some(std::io::BufReader::new(c));
        }
        let r = self.r.as_mut().unwrap();
        let out = (|| {
            write!(
                r.get_mut(),
                "GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n"
            )?;
            let mut line = String::new();
            r.read_line(&mut line)?;
            let status = line
                .split(' ')
                .nth(1)
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| std::io::Error::other(format!("status line {line:?}")))?;
            let mut len = None;
            loop {
                line.clear();
                if r.read_line(&mut line)? == 0 || line == "\r\n" {
                    break;
                }
                if let Some((k, v)) = line.split_once(':') {
                    if k.eq_ignore_ascii_case("content-length") {
                        len = v.trim().parse::<usize>().ok();
                    }
                }
            }
            let len = len.ok_or_else(|| std::io::Error::other("no Content-Length"))?;
            let mut body = vec![0; len];
            r.read_exact(&mut body)?;
            Ok((status, body))
        })();
        if out.is_err() {
            self.r = None;
        }
        out
    }
}

#[test]
fn load_test_64_clients_random_windows() {
    let secs: f64 = std::env::var("MPELOG_LOAD_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30.0);
    let max_per_client: u64 = std::env::var("MPELOG_LOAD_REQUESTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let dir = tempfile::tempdir().unwrap();
    let slog2 = trace(dir.path());
    let s = Service::new(std::slice::from_ref(&slog2)).unwrap();
    let info = json(&s, "/api/info");
    let (t0, t1) = (
        info["time_min"].as_f64().unwrap(),
        info["time_max"].as_f64().unwrap(),
    );
    // Random zooms and pans (a fixed xorshift sequence), each with the
    // library's own answer.
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as f64 / (1u64 << 53) as f64
    };
    let windows: Vec<(String, Value)> = (0..96)
        .map(|_| {
            let span = (t1 - t0) * 10f64.powf(-4.0 * rnd());
            let from = t0 - 0.05 * (t1 - t0) + rnd() * (t1 - t0);
            let px = [1, 64, 400, 1600, 4000][(rnd() * 5.0) as usize % 5];
            let url = format!("/api/window?from={from}&to={}&pixels={px}", from + span);
            let want = without_cost(json(&s, &url));
            (url, want)
        })
        .collect();
    let windows = std::sync::Arc::new(windows);

    let (mut child, port) = serve(&slog2);
    wait_up(port);
    let pid = child.0.id();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs_f64(secs);
    let threads: Vec<_> = (0..64u64)
        .map(|i| {
            let windows = std::sync::Arc::clone(&windows);
            std::thread::spawn(move || -> (u64, Vec<String>) {
                let mut conn = Conn { port, r: None };
                let (mut n, mut bad) = (0u64, Vec::new());
                let mut k = i as usize;
                while std::time::Instant::now() < deadline && n < max_per_client {
                    k = (k * 7 + 13) % windows.len();
                    let (url, want) = &windows[k];
                    match conn.get(url) {
                        Ok((200, body)) => match serde_json::from_slice::<Value>(&body) {
                            Ok(v) if without_cost(v.clone()) == *want => {}
                            _ => bad.push(format!("{url}: a different answer")),
                        },
                        Ok((status, _)) => bad.push(format!("{url}: status {status}")),
                        Err(e) => bad.push(format!("{url}: {e}")),
                    }
                    n += 1;
                    if bad.len() > 10 {
                        break;
                    }
                }
                (n, bad)
            })
        })
        .collect();
    // The RSS once every worker and reader is warm, and at the end.
    std::thread::sleep(std::time::Duration::from_secs_f64((secs / 5.0).min(5.0)));
    let rss_warm = rss_kb(pid);
    let mut rss_max = rss_warm;
    while std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(250));
        rss_max = rss_max.max(rss_kb(pid));
    }
    let (mut total, mut bad) = (0, Vec::new());
    for t in threads {
        let (n, b) = t.join().unwrap();
        total += n;
        bad.extend(b);
    }
    let rss_end = rss_kb(pid);
    eprintln!(
        "load: {total} answers from 64 clients in {secs} s; server RSS {rss_warm} kB warm, {rss_max} kB max, {rss_end} kB at the end"
    );
    assert!(
        bad.is_empty(),
        "{} wrong answers: {:?}",
        bad.len(),
        &bad[..bad.len().min(5)]
    );
    assert!(total >= 64, "{total} answers");
    // Flat: no growth beyond a quarter and 16 MB over the warm server.
    assert!(
        rss_end <= rss_warm + rss_warm / 4 + 16 * 1024,
        "server RSS grew from {rss_warm} kB to {rss_end} kB"
    );
    assert!(child.0.try_wait().unwrap().is_none(), "the server lives");
}

/// `export`, `stats` and `render` of a URL read the remote SLOG-2 file with
/// Range requests and give what they give for the local file.
#[test]
fn export_stats_and_render_of_a_url_equal_the_local_files() {
    let dir = tempfile::tempdir().unwrap();
    let slog2 = trace(dir.path());
    let (_child, port) = serve(&slog2);
    wait_up(port);
    let url = format!("http://127.0.0.1:{port}/trace");
    let local = slog2.to_str().unwrap();
    let run = |args: &[&str]| -> Vec<u8> {
        let o = mpelog(args);
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        o.stdout
    };
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
        let (a, b) = (
            dir.path().join(format!("url-{name}")),
            dir.path().join(name),
        );
        run(&[command, &url, "-o", a.to_str().unwrap()]);
        run(&[command, local, "-o", b.to_str().unwrap()]);
        let (a, b) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
        assert!(!a.is_empty() && a == b, "{command} {name}");
    }
    for window in [&[][..], &["--from", "0.1", "--to", "0.3"][..]] {
        let stats = |input: &str| {
            let mut args = vec!["stats", input, "--json", "--by", "both"];
            args.extend_from_slice(window);
            run(&args)
        };
        assert_eq!(stats(&url), stats(local), "stats {window:?}");
    }
}

#[test]
fn a_file_that_cannot_be_served_is_named_not_the_first_one() {
    let dir = tempfile::tempdir().unwrap();
    let good = trace(dir.path());
    // A SLOG-2 file cut after its header: detected as SLOG-2, refused on open.
    let bytes = std::fs::read(&good).unwrap();
    let bad = dir.path().join("broken.slog2");
    std::fs::write(&bad, &bytes[..600]).unwrap();
    let o = mpelog(&[
        "serve",
        good.to_str().unwrap(),
        bad.to_str().unwrap(),
        "--port",
        "0",
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("broken.slog2"), "{err}");
    assert!(!err.contains("t.slog2"), "{err}");
    // The library says which file, too.
    let e = Service::new(&[good.clone(), bad.clone()]).unwrap_err();
    assert_eq!(e.path, bad);
    assert!(
        matches!(e.source, slog2_format::Error::BadPointer { .. }),
        "{}",
        e.source
    );
}
