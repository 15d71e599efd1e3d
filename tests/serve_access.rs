//! Who can reach `mpelog serve` (README, "Who can reach `mpelog serve`"):
//! real requests to the server on loopback. A foreign `Host` or `Origin` is
//! refused; off loopback every page, API and `/trace` request needs the token
//! (query, `Authorization: Bearer`, or the cookie the first visit sets); the
//! remote reader sends it; `--no-token` serves openly and says so; HTTPS with
//! a private CA gives the same answers as plain HTTP.

mod common;
#[path = "common/webdriver.rs"]
mod webdriver;

use common::http::{raw, Answer};
use common::{mpelog, stdout, synth};
use mpelog::serve::Service;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use webdriver::Killed;

/// A running `mpelog serve`: its port, its start line and the token in it.
struct Served {
    _child: Killed,
    port: u16,
    line: String,
    token: Option<String>,
}

/// `mpelog serve FILE --port 0 ARGS` with `env`, once it has printed its
/// start line.
fn serve(file: &Path, args: &[&str], env: &[(&str, &str)]) -> Served {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mpelog"));
    cmd.arg("serve")
        .arg(file)
        .args(["--port", "0"])
        .args(args)
        .env_remove("MPELOG_SERVE_TOKEN")
        .stderr(Stdio::piped())
        .stdout(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let child = Killed(child);
    let line = loop {
        let l = lines.next().expect("a start line").expect("stderr is text");
        if l.starts_with("serving ") {
            break l;
        }
    };
    // Whatever it says later is read and dropped, so it never blocks.
    std::thread::spawn(move || lines.for_each(drop));
    let url = line.split(" at ").nth(1).unwrap();
    let after_scheme = &url[url.find("://").unwrap() + 3..];
    let authority = &after_scheme[..after_scheme.find('/').unwrap()];
    let port = authority.rsplit(':').next().unwrap().parse().unwrap();
    let token = url
        .split_once("?token=")
        .map(|(_, t)| t.split(' ').next().unwrap().to_string());
    Served {
        _child: child,
        port,
        line,
        token,
    }
}

fn text(a: &Answer) -> String {
    String::from_utf8_lossy(&a.body).into_owned()
}

/// `GET target` to the server at `port` with these header lines (a `Host`
/// naming 127.0.0.1 unless `headers` has one), on a connection of its own.
fn get(port: u16, target: &str, headers: &[&str]) -> Answer {
    let mut head = format!("GET {target} HTTP/1.1\r\nConnection: close\r\n");
    if !headers
        .iter()
        .any(|h| h.to_ascii_lowercase().starts_with("host:"))
    {
        head.push_str(&format!("Host: 127.0.0.1:{port}\r\n"));
    }
    for h in headers {
        head.push_str(h);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    raw(port, head.as_bytes()).unwrap_or_else(|| panic!("an answer to {target}"))
}

fn trace(dir: &Path) -> PathBuf {
    let clog2 = synth(dir, "t.clog2", &["--events", "20000", "--seed", "8"]);
    let slog2 = dir.join("t.slog2");
    stdout(&mpelog(&["convert", &clog2, "-o", slog2.to_str().unwrap()]));
    slog2
}

/// A window answer's JSON without what it cost (timings differ).
fn without_cost(body: &[u8]) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_slice(body).unwrap();
    v.as_object_mut().unwrap().remove("cost");
    v
}

#[test]
fn a_foreign_host_is_refused_and_allow_host_accepts_it() {
    let dir = tempfile::tempdir().unwrap();
    let slog2 = trace(dir.path());
    let s = serve(&slog2, &[], &[]);
    assert!(s.token.is_none(), "no token on loopback: {}", s.line);
    let p = s.port;
    for host in [
        format!("127.0.0.1:{p}"),
        format!("localhost:{p}"),
        format!("[::1]:{p}"),
    ] {
        let a = get(p, "/api/info", &[&format!("Host: {host}")]);
        assert_eq!(a.status, 200, "{host}");
    }
    let evil = format!("Host: evil.example.com:{p}");
    for path in [
        "/",
        "/api/info",
        "/api/window?from=0&to=1&pixels=10",
        "/trace",
    ] {
        let a = get(p, path, &[&evil]);
        assert_eq!(a.status, 403, "{path}");
        assert!(
            text(&a).contains("--allow-host evil.example.com"),
            "{}",
            text(&a)
        );
    }
    let allowed = serve(&slog2, &["--allow-host", "evil.example.com"], &[]);
    let a = get(
        allowed.port,
        "/api/info",
        &[&format!("Host: evil.example.com:{}", allowed.port)],
    );
    assert_eq!(a.status, 200);
    let other = get(allowed.port, "/api/info", &["Host: other.example.com"]);
    assert_eq!(other.status, 403);
}

#[test]
fn a_foreign_origin_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let s = serve(&trace(dir.path()), &[], &[]);
    let p = s.port;
    let own = get(p, "/api/info", &[&format!("Origin: http://127.0.0.1:{p}")]);
    assert_eq!(own.status, 200);
    assert!(own.header("Access-Control-Allow-Origin").is_none());
    for origin in [
        "http://evil.example.com".to_string(),
        format!("http://evil.example.com:{p}"),
        "null".to_string(),
        // The server's name with another port is another site.
        format!("http://127.0.0.1:{}", p.wrapping_add(1)),
    ] {
        let a = get(p, "/api/info", &[&format!("Origin: {origin}")]);
        assert_eq!(a.status, 403, "{origin}");
        assert!(a.header("Access-Control-Allow-Origin").is_none());
    }
}

#[test]
fn off_loopback_every_path_needs_the_token_and_answers_as_before_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let slog2 = trace(dir.path());
    let direct = Service::new(std::slice::from_ref(&slog2)).unwrap();
    // Without waits, as the service made here (whose answers it compares).
    let s = serve(&slog2, &["--bind", "0.0.0.0", "--no-waits"], &[]);
    let (p, token) = (s.port, s.token.clone().expect("a token off loopback"));
    assert!(
        s.line.contains("every request needs the token"),
        "{}",
        s.line
    );
    assert_eq!(token.len(), 48, "24 random bytes in hex");
    assert!(token.bytes().all(|b| b.is_ascii_hexdigit()));
    let window = "/api/window?from=0&to=0.5&pixels=300";
    let paths = ["/", "/api/info", window, "/trace"];
    let range = "Range: bytes=100-1099";
    // Without the token, or with a wrong one: 401 everywhere.
    let mut wrong = token.clone().into_bytes();
    let last = wrong.len() - 1;
    wrong[last] = if wrong[last] == b'0' { b'1' } else { b'0' };
    let wrong = String::from_utf8(wrong).unwrap();
    let prefix = &token[..token.len() - 1];
    let cookie_name = format!("mpelog_token_{p}");
    for path in paths {
        let sep = if path.contains('?') { '&' } else { '?' };
        for (how, target, headers) in [
            ("none", path.to_string(), vec![]),
            ("wrong", format!("{path}{sep}token={wrong}"), vec![]),
            ("prefix", format!("{path}{sep}token={prefix}"), vec![]),
            ("longer", format!("{path}{sep}token={token}0"), vec![]),
            (
                "bearer",
                path.to_string(),
                vec![format!("Authorization: Bearer {wrong}")],
            ),
            (
                "cookie",
                path.to_string(),
                vec![format!("Cookie: {cookie_name}={wrong}")],
            ),
            (
                "cookie prefix",
                path.to_string(),
                vec![format!("Cookie: {cookie_name}={prefix}")],
            ),
        ] {
            let mut h: Vec<&str> = headers.iter().map(String::as_str).collect();
            h.push(range);
            let a = get(p, &target, &h);
            assert_eq!(a.status, 401, "{how} {path}");
            assert!(!text(&a).contains(&token[..8]), "no token in a refusal");
        }
    }
    // With it, each way: the same answers as the service itself gives.
    let bearer = format!("Authorization: Bearer {token}");
    let cookie = format!("Cookie: other=1; {cookie_name}={token}");
    for way in ["query", "bearer", "cookie"] {
        let with = |path: &str, extra: &[&str]| {
            let sep = if path.contains('?') { '&' } else { '?' };
            let target = match way {
                "query" => format!("{path}{sep}token={token}"),
                _ => path.to_string(),
            };
            let mut h = extra.to_vec();
            match way {
                "bearer" => h.push(&bearer),
                "cookie" => h.push(&cookie),
                _ => {}
            }
            get(p, &target, &h)
        };
        let info = with("/api/info", &[]);
        assert_eq!(info.status, 200, "{way}");
        assert_eq!(
            info.body,
            direct.handle("GET", "/api/info", None).read_body().unwrap(),
            "{way}"
        );
        let w = with(window, &[]);
        assert_eq!(w.status, 200, "{way}");
        assert_eq!(
            without_cost(&w.body),
            without_cost(&direct.handle("GET", window, None).read_body().unwrap())
        );
        let t = with("/trace", &[range]);
        assert_eq!(t.status, 206, "{way}");
        assert_eq!(t.body, std::fs::read(&slog2).unwrap()[100..1100]);
        if way != "query" {
            let page = with("/", &[]);
            assert_eq!(page.status, 200, "{way}");
            assert!(text(&page).contains("<canvas"));
        }
    }
    // The first visit with the token: the cookie, and the page without it.
    let first = get(p, &format!("/?token={token}&view=0"), &[]);
    assert_eq!(first.status, 303);
    assert_eq!(first.header("Location"), Some("/?view=0"));
    assert_eq!(
        first.header("Set-Cookie"),
        Some(format!("{cookie_name}={token}; Path=/; HttpOnly; SameSite=Strict").as_str())
    );
}

#[test]
fn the_token_can_be_chosen_on_loopback_too() {
    let dir = tempfile::tempdir().unwrap();
    let slog2 = trace(dir.path());
    for (args, env) in [
        (vec!["--token", "my-token.1"], vec![]),
        (vec![], vec![("MPELOG_SERVE_TOKEN", "my-token.1")]),
    ] {
        let s = serve(&slog2, &args, &env);
        assert_eq!(s.token.as_deref(), Some("my-token.1"), "{}", s.line);
        assert_eq!(get(s.port, "/api/info", &[]).status, 401);
        assert_eq!(get(s.port, "/api/info?token=my-token.1", &[]).status, 200);
    }
    let bad = mpelog(&[
        "serve",
        slog2.to_str().unwrap(),
        "--port",
        "0",
        "--token",
        "a b",
    ]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--token"));
}

#[test]
fn no_token_serves_openly_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let s = serve(
        &trace(dir.path()),
        &["--bind", "0.0.0.0", "--no-token"],
        &[],
    );
    assert!(s.token.is_none());
    assert!(
        s.line.contains("WITHOUT a token (--no-token)"),
        "{}",
        s.line
    );
    assert_eq!(get(s.port, "/api/info", &[]).status, 200);
    assert_eq!(get(s.port, "/", &[]).status, 200);
}

/// `mpelog ARGS` with `env`; its output.
fn mpelog_env(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mpelog"));
    c.args(args).env_remove("MPELOG_HTTP_AUTHORIZATION");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// `window URL --json`'s drawables (the cost line left out).
fn drawables(o: &std::process::Output) -> Vec<String> {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| !l.contains("\"cost\""))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_remote_reader_sends_the_token_from_the_url_or_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let slog2 = trace(dir.path());
    let local = drawables(&mpelog(&[
        "window",
        slog2.to_str().unwrap(),
        "--from",
        "0.1",
        "--to",
        "0.4",
        "--json",
    ]));
    assert!(local.len() > 10);
    let s = serve(&slog2, &["--bind", "0.0.0.0"], &[]);
    let token = s.token.clone().unwrap();
    let url = format!("http://127.0.0.1:{}/trace", s.port);
    let args =
        |u: &str| ["window", u, "--from", "0.1", "--to", "0.4", "--json"].map(str::to_string);
    let run = |u: &str, env: &[(&str, &str)]| {
        let a = args(u);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        mpelog_env(&a, env)
    };
    assert_eq!(drawables(&run(&format!("{url}?token={token}"), &[])), local);
    let bearer = format!("Bearer {token}");
    assert_eq!(
        drawables(&run(&url, &[("MPELOG_HTTP_AUTHORIZATION", &bearer)])),
        local
    );
    let refused = run(&url, &[]);
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("401"), "{err}");
    assert!(!err.contains(&token), "the token is never shown");
}

/// A private CA and a certificate for 127.0.0.1 and localhost signed by it,
/// written to `dir` as `ca.pem`, `cert.pem` and `key.pem`.
fn private_ca(dir: &Path) {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca, ca_key);
    let key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()])
        .unwrap()
        .signed_by(&key, &issuer)
        .unwrap();
    std::fs::write(dir.join("ca.pem"), ca_cert.pem()).unwrap();
    std::fs::write(dir.join("cert.pem"), leaf.pem()).unwrap();
    std::fs::write(dir.join("key.pem"), key.serialize_pem()).unwrap();
}

#[test]
fn https_with_a_private_ca_gives_the_same_answers_as_plain_http() {
    let dir = tempfile::tempdir().unwrap();
    let slog2 = trace(dir.path());
    private_ca(dir.path());
    let (cert, key, ca) = (
        dir.path().join("cert.pem"),
        dir.path().join("key.pem"),
        dir.path().join("ca.pem"),
    );
    let plain = serve(&slog2, &["--bind", "0.0.0.0"], &[]);
    let tls = serve(
        &slog2,
        &[
            "--bind",
            "0.0.0.0",
            "--tls-cert",
            cert.to_str().unwrap(),
            "--tls-key",
            key.to_str().unwrap(),
        ],
        &[],
    );
    assert!(tls.line.contains(" at https://"), "{}", tls.line);
    let ca_env = [("SSL_CERT_FILE", ca.to_str().unwrap())];
    for cmd in [
        vec!["window", "URL", "--from", "0.1", "--to", "0.4", "--json"],
        vec!["window", "URL", "--pixels", "200", "--summary"],
        vec!["stats", "URL"],
        vec!["info", "URL"],
    ] {
        let run = |s: &Served| {
            let url = format!(
                "{}://127.0.0.1:{}/trace?token={}",
                if s.line.contains("https://") {
                    "https"
                } else {
                    "http"
                },
                s.port,
                s.token.as_deref().unwrap()
            );
            let args: Vec<&str> = cmd
                .iter()
                .map(|a| if *a == "URL" { url.as_str() } else { a })
                .collect();
            mpelog_env(&args, &ca_env)
        };
        let (a, b) = (run(&plain), run(&tls));
        assert!(
            b.status.success(),
            "{cmd:?}: {}",
            String::from_utf8_lossy(&b.stderr)
        );
        // Line by line, a JSON object without what it cost (timings differ),
        // and no line that names the URL.
        let strip = |o: &std::process::Output| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .filter(|l| !l.contains("://"))
                .map(|l| match serde_json::from_str::<serde_json::Value>(l) {
                    Ok(serde_json::Value::Object(mut m)) => {
                        m.remove("cost");
                        m.remove("micros");
                        serde_json::Value::Object(m).to_string()
                    }
                    _ => l.to_string(),
                })
                .filter(|l| l != "{}")
                .collect::<Vec<_>>()
        };
        assert_eq!(strip(&a), strip(&b), "{cmd:?}");
    }
    // The page and the token rules over TLS are the plain ones.
    let url = format!("https://127.0.0.1:{}/trace", tls.port);
    let untrusted = mpelog_env(
        &[
            "info",
            &format!("{url}?token={}", tls.token.as_deref().unwrap()),
        ],
        &[],
    );
    assert!(
        !untrusted.status.success(),
        "a certificate of an unknown CA is refused"
    );
    let no_token = mpelog_env(&["info", &url], &ca_env);
    assert!(String::from_utf8_lossy(&no_token.stderr).contains("401"));
}

#[test]
fn the_cookie_lets_the_page_load_without_the_token_in_chromium() {
    let Some((driver, chromium)) = webdriver::programs_or_skip("the_cookie_lets_the_page_load")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let s = serve(&trace(dir.path()), &["--bind", "0.0.0.0"], &[]);
    let token = s.token.clone().unwrap();
    let b = webdriver::Browser::start(&driver, &chromium, (1000, 700));
    let loaded = "return !!(window.mpelog && window.mpelog.state && window.mpelog.state.info \
                  && window.mpelog.state.answer && window.mpelog.state.answer.rows.length > 0);";
    // Without the token (and no cookie yet) the page is refused.
    b.goto(&format!("http://127.0.0.1:{}/", s.port));
    let text = b.js("return document.body.innerText;", serde_json::json!([]));
    assert!(text.as_str().unwrap().contains("token"), "{text}");
    // The printed address, then the page without the query.
    b.goto(&format!("http://127.0.0.1:{}/?token={token}", s.port));
    b.wait_for("the page with the token", loaded, 60);
    let href = b.js("return location.href;", serde_json::json!([]));
    assert!(
        !href.as_str().unwrap().contains(&token),
        "the token leaves the address: {href}"
    );
    b.goto(&format!("http://127.0.0.1:{}/", s.port));
    b.wait_for("the page by its cookie", loaded, 60);
    let rows = b.js(
        "return window.mpelog.state.answer.rows.length;",
        serde_json::json!([]),
    );
    assert!(rows.as_u64().unwrap() >= 2, "{rows}");
    // On loopback the page works by either name, with no token.
    let open = serve(&dir.path().join("t.slog2"), &[], &[]);
    for host in ["127.0.0.1", "localhost"] {
        b.goto(&format!("http://{host}:{}/", open.port));
        b.wait_for(host, loaded, 60);
    }
}
