//! A small W3C WebDriver client over `std::net` and `serde_json` (WebDriver is
//! JSON over HTTP), for the browser tests: starts `chromedriver` on a free
//! loopback port, one headless Chromium session with a fresh profile, and ends
//! both when dropped.
#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The programs a browser test needs, or why they are missing.
pub fn programs() -> Result<(PathBuf, PathBuf), String> {
    let find = |names: &[&str]| -> Option<PathBuf> {
        let path = std::env::var_os("PATH")?;
        names.iter().find_map(|n| {
            std::env::split_paths(&path)
                .map(|d| d.join(n))
                .find(|p| p.is_file())
        })
    };
    let driver = find(&["chromedriver"]).ok_or("no chromedriver on PATH")?;
    let browser = std::env::var_os("MPELOG_CHROMIUM")
        .map(PathBuf::from)
        .or_else(|| find(&["chromium", "chromium-browser", "google-chrome"]))
        .ok_or("no chromium on PATH")?;
    Ok((driver, browser))
}

/// The programs, or `None` after saying the test is skipped; with `CI` set a
/// missing browser fails the test instead.
pub fn programs_or_skip(test: &str) -> Option<(PathBuf, PathBuf)> {
    match programs() {
        Ok(p) => Some(p),
        Err(why) if std::env::var_os("CI").is_some() => {
            panic!("{test}: {why} (CI is set: .ci/run installs chromium and chromium-driver)")
        }
        Err(why) => {
            eprintln!("SKIPPED {test}: {why} (apt-get install chromium chromium-driver)");
            None
        }
    }
}

/// A free loopback port (bound, read, let go).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// One HTTP/1.1 request to `127.0.0.1:port`; the status and the body.
pub fn http(
    port: u16,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> std::io::Result<(u16, Vec<u8>)> {
    let mut c = TcpStream::connect(("127.0.0.1", port))?;
    c.set_read_timeout(Some(Duration::from_secs(120)))?;
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    write!(
        c,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\
         Content-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )?;
    let mut r = BufReader::new(c);
    let mut line = String::new();
    r.read_line(&mut line)?;
    let status: u16 = line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("bad status line {line:?}")))?;
    let (mut len, mut chunked) = (None, false);
    loop {
        line.clear();
        if r.read_line(&mut line)? == 0 || line == "\r\n" {
            break;
        }
        let (k, v) = line.split_once(':').unwrap_or((&line, ""));
        let (k, v) = (k.trim().to_ascii_lowercase(), v.trim().to_ascii_lowercase());
        if k == "content-length" {
            len = v.parse::<usize>().ok();
        } else if k == "transfer-encoding" && v.contains("chunked") {
            chunked = true;
        }
    }
    let mut out = Vec::new();
    if chunked {
        loop {
            line.clear();
            r.read_line(&mut line)?;
            let n = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                .map_err(std::io::Error::other)?;
            if n == 0 {
                break;
            }
            let at = out.len();
            out.resize(at + n, 0);
            r.read_exact(&mut out[at..])?;
            line.clear();
            r.read_line(&mut line)?;
        }
    } else if let Some(n) = len {
        out.resize(n, 0);
        r.read_exact(&mut out)?;
    } else {
        r.read_to_end(&mut out)?;
    }
    Ok((status, out))
}

/// Decodes standard base64 (screenshots).
pub fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let digits: Vec<u32> = s.bytes().filter_map(val).collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let mut n = 0u32;
        for (i, d) in chunk.iter().enumerate() {
            n |= d << (18 - 6 * i);
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..chunk.len().saturating_sub(1)]);
    }
    out
}

/// A child process killed when dropped (also when a test fails).
pub struct Killed(pub Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `mpelog serve FILE` on a free loopback port, killed when dropped.
pub struct Server {
    _child: Killed,
    /// Its port on 127.0.0.1.
    pub port: u16,
}

/// Starts `mpelog serve FILE` and waits until it answers.
pub fn serve(file: &std::path::Path) -> Server {
    let port = free_port();
    let child = Command::new(env!("CARGO_BIN_EXE_mpelog"))
        .args(["serve", file.to_str().unwrap(), "--port", &port.to_string()])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let server = Server {
        _child: Killed(child),
        port,
    };
    let t = Instant::now();
    while !matches!(http(port, "GET", "/api/info", None), Ok((200, _))) {
        assert!(t.elapsed().as_secs() < 600, "mpelog serve did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    server
}

/// Waits until the page has answered and drawn its latest request (one
/// after request number `after`).
pub fn settled(b: &Browser, after: u64) {
    b.wait_for(
        "the window to be drawn",
        &format!(
            "const s = window.mpelog && window.mpelog.state; \
             return !!s && s.seq > {after} && s.done === s.seq && s.error === null && s.frames > 0;"
        ),
        300,
    );
}

/// A chromedriver with one headless Chromium session.
pub struct Browser {
    port: u16,
    session: String,
    // Dropped after the session is deleted (see Drop).
    _driver: Killed,
    _profile: tempfile::TempDir,
}

impl Browser {
    /// Starts chromedriver and a headless Chromium of `width` x `height` CSS
    /// pixels.
    pub fn start(driver: &std::path::Path, chromium: &std::path::Path, size: (u32, u32)) -> Self {
        let port = free_port();
        let child = Command::new(driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let driver_guard = Killed(child);
        let t = Instant::now();
        loop {
            if let Ok((200, b)) = http(port, "GET", "/status", None) {
                let v: Value = serde_json::from_slice(&b).unwrap_or(Value::Null);
                if v["value"]["ready"] == true {
                    break;
                }
            }
            assert!(
                t.elapsed() < Duration::from_secs(30),
                "chromedriver did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let profile = tempfile::tempdir().unwrap();
        let args = [
            "--headless".to_string(),
            "--no-sandbox".into(),
            "--disable-gpu".into(),
            "--disable-quic".into(),
            "--no-first-run".into(),
            "--disable-background-networking".into(),
            "--disable-component-update".into(),
            "--disable-sync".into(),
            "--disable-dev-shm-usage".into(),
            "--hide-scrollbars".into(),
            "--force-device-scale-factor=1".into(),
            format!("--window-size={},{}", size.0, size.1),
            format!("--user-data-dir={}", profile.path().display()),
        ];
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": chromium, "args": args},
        }}});
        let (status, body) =
            http(port, "POST", "/session", Some(&caps)).expect("new WebDriver session");
        let v: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        assert_eq!(status, 200, "new session: {v}");
        let session = v["value"]["sessionId"]
            .as_str()
            .expect("a session id")
            .to_string();
        Browser {
            port,
            session,
            _driver: driver_guard,
            _profile: profile,
        }
    }

    /// A command of this session: `method` on `/session/ID/path`; its value.
    pub fn cmd(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let url = format!("/session/{}{path}", self.session);
        let (status, b) = http(self.port, method, &url, body.as_ref())
            .unwrap_or_else(|e| panic!("WebDriver {method} {path}: {e}"));
        let v: Value = serde_json::from_slice(&b).unwrap_or(Value::Null);
        assert_eq!(status, 200, "WebDriver {method} {path}: {v}");
        v["value"].clone()
    }

    /// Opens `url`.
    pub fn goto(&self, url: &str) {
        self.cmd("POST", "/url", Some(json!({ "url": url })));
    }

    /// Runs `script` (a function body; `arguments` holds `args`) and returns
    /// its value (a promise is awaited).
    pub fn js(&self, script: &str, args: Value) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": args})),
        )
    }

    /// Polls `script` until it returns `true` (at most `secs` seconds).
    pub fn wait_for(&self, what: &str, script: &str, secs: u64) {
        let t = Instant::now();
        loop {
            if self.js(script, json!([])) == Value::Bool(true) {
                return;
            }
            assert!(
                t.elapsed() < Duration::from_secs(secs),
                "timed out waiting for {what}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The first element matching a CSS selector (its WebDriver reference).
    pub fn element(&self, css: &str) -> String {
        let v = self.cmd(
            "POST",
            "/element",
            Some(json!({"using": "css selector", "value": css})),
        );
        v.as_object()
            .and_then(|o| o.values().next())
            .and_then(|v| v.as_str())
            .expect("an element reference")
            .to_string()
    }

    /// Clicks the element matching `css`.
    pub fn click(&self, css: &str) {
        let e = self.element(css);
        self.cmd("POST", &format!("/element/{e}/click"), Some(json!({})));
    }

    /// A real mouse click at viewport point (x, y).
    pub fn click_at(&self, x: i64, y: i64) {
        let actions = json!({"actions": [{
            "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
            "actions": [
                {"type": "pointerMove", "duration": 0, "origin": "viewport", "x": x, "y": y},
                {"type": "pointerDown", "button": 0},
                {"type": "pointerUp", "button": 0},
            ],
        }]});
        self.cmd("POST", "/actions", Some(actions));
        self.cmd("DELETE", "/actions", None);
    }

    /// A real mouse drag from viewport point `a` to `b` with the Alt key held.
    pub fn alt_drag(&self, a: (i64, i64), b: (i64, i64)) {
        self.drag_with("\u{E00A}", a, b);
    }

    /// A real mouse drag from viewport point `a` to `b` with the Shift key
    /// held.
    #[allow(dead_code)] // not every test binary drags with Shift
    pub fn shift_drag(&self, a: (i64, i64), b: (i64, i64)) {
        self.drag_with("\u{E008}", a, b);
    }

    /// A real mouse drag from viewport point `a` to `b` with `key` (a
    /// WebDriver key code) held.
    fn drag_with(&self, key: &str, a: (i64, i64), b: (i64, i64)) {
        let actions = json!({"actions": [
            {"type": "key", "id": "keyboard", "actions": [
                {"type": "keyDown", "value": key},
                {"type": "pause", "duration": 0},
                {"type": "pause", "duration": 0},
                {"type": "pause", "duration": 0},
                {"type": "pause", "duration": 0},
                {"type": "keyUp", "value": key},
            ]},
            {"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": [
                {"type": "pause", "duration": 0},
                {"type": "pointerMove", "duration": 0, "origin": "viewport", "x": a.0, "y": a.1},
                {"type": "pointerDown", "button": 0},
                {"type": "pointerMove", "duration": 100, "origin": "viewport", "x": b.0, "y": b.1},
                {"type": "pointerUp", "button": 0},
                {"type": "pause", "duration": 0},
            ]},
        ]});
        self.cmd("POST", "/actions", Some(actions));
        self.cmd("DELETE", "/actions", None);
    }

    /// A PNG screenshot of the viewport.
    pub fn screenshot(&self) -> Vec<u8> {
        let v = self.cmd("GET", "/screenshot", None);
        base64_decode(v.as_str().expect("base64 PNG"))
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = http(
            self.port,
            "DELETE",
            &format!("/session/{}", self.session),
            None,
        );
    }
}

/// Decodes a PNG into (width, height, RGBA bytes).
pub fn decode_png(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut d = png::Decoder::new(std::io::Cursor::new(bytes));
    d.set_transformations(png::Transformations::EXPAND | png::Transformations::ALPHA);
    let mut r = d.read_info().expect("a PNG");
    let mut buf = vec![0; r.output_buffer_size().expect("size")];
    let info = r.next_frame(&mut buf).expect("a frame");
    buf.truncate(info.buffer_size());
    let rgba = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf
            .chunks(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        other => panic!("screenshot colour type {other:?}"),
    };
    (info.width, info.height, rgba)
}
