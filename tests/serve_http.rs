//! `mpelog serve`'s HTTP API ([`mpelog::serve::Service::handle`], and the
//! server itself on loopback): every endpoint, Range requests, the window
//! answers equal `mpelog window --json`, hostile requests get 4xx.

mod common;

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

/// `mpelog serve FILE` on a free loopback port (bind one, read it, let it go,
/// start the server on it), and that port.
fn serve(file: &std::path::Path) -> (Child, u16) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_mpelog"))
        .args(["serve", file.to_str().unwrap(), "--port", &port.to_string()])
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
    let r = s.handle("GET", url, None);
    assert_eq!(
        r.status,
        200,
        "{url}: {}",
        String::from_utf8_lossy(&r.read_body().unwrap())
    );
    serde_json::from_slice(&r.read_body().unwrap()).unwrap()
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
    assert!(String::from_utf8(page.read_body().unwrap())
        .unwrap()
        .contains("/api/window"));

    let info = json(&s, "/api/info");
    let (t0, t1) = (
        info["time_min"].as_f64().unwrap(),
        info["time_max"].as_f64().unwrap(),
    );
    assert!(t1 > t0);
    assert!(!info["legend"].as_array().unwrap().is_empty());
    assert_eq!(info["views"][0]["title"], "Process View");

    // A full-detail window (enough pixels that every node is read) equals
    // `mpelog window --json` item for item.
    let (a, b) = (t0 + 0.3 * (t1 - t0), t0 + 0.32 * (t1 - t0));
    let w = json(&s, &format!("/api/window?from={a}&to={b}&pixels=16384"));
    assert!(w["shadows"].as_array().unwrap().is_empty());
    let cli = stdout(&mpelog(&[
        "window",
        slog2.to_str().unwrap(),
        "--from",
        &a.to_string(),
        "--to",
        &b.to_string(),
        "--json",
    ]));
    let cli_items: Vec<Value> = cli
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!cli_items.is_empty());
    assert_eq!(w["drawables"].as_array().unwrap(), &cli_items);
    assert!(w["cost"]["nodes_read"].as_u64().unwrap() >= 1);

    // Zoomed out: the summary, bounded.
    let w = json(&s, &format!("/api/window?from={t0}&to={t1}&pixels=50"));
    assert!(!w["shadows"].as_array().unwrap().is_empty());

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
            "GET {path} HTTP/1.0\r\nHost: x\r\nRange: bytes=0-9\r\n\r\n"
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
    let mut checked = 0;
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
        let field = |k: &str| -> u64 {
            last.split(&format!("{k}="))
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        let (nodes, requests) = (field("nodes_read"), field("requests"));
        // Opening: the length, then header, legend, line-ID maps and TreeDir.
        assert!(
            requests > nodes && requests <= nodes + 6,
            "{requests} requests for {nodes} nodes"
        );
        checked += 1;
    }
    assert_eq!(checked, 3);
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
