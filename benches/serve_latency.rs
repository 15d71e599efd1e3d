//! `mpelog serve` latency (issue 18), a measurement program, not a test (it
//! asserts nothing about time): `cargo bench -p mpelog --bench serve_latency`.
//!
//! - p50/p95/p99 of `GET /api/window` at 1,600 pixels for a random walk of
//!   zooms and pans over a large generated SLOG-2 file, timed at the client
//!   over a keep-alive loopback connection until the JSON body's last byte; and
//!   the server's own `cost.micros` (read, summary and JSON) beside it.
//! - The time from starting `mpelog serve` to the first frame drawn by the
//!   page in headless Chromium (when `chromedriver` and `chromium` are there):
//!   the browser is started first and waits on a blank page.
//!
//! - p50/p95/p99 of `GET /api/compare` (`mpelog serve F F --compare`, the
//!   file compared with itself) for the same walk, the two windows moved
//!   apart by a tenth of the window as after aligning at chosen events: the
//!   page's table, asked after every zoom or pan (for the rows
//!   `MPELOG_BENCH_ROWS` when set).
//!
//! - With `MPELOG_BENCH_WAITS=1` (a fresh wait index beside the file:
//!   `mpelog analyze FILE --write-index`), every `/api/window` asks for the
//!   waits (`&waits=1`, the viewer's default), and `GET /api/waits` (the
//!   "where time is lost" panel) is measured over the same walk.
//!
//! `MPELOG_BENCH_SLOG2=FILE` measures that file instead of generating one;
//! `MPELOG_BENCH_BIN=PATH` serves with that `mpelog` binary (say, a copy of
//! the one before a change, measured in the same run as the new one);
//! `MPELOG_BROWSER_MB` sizes the generated file (default 1000);
//! `MPELOG_BENCH_REQUESTS` the number of windows asked (default 1000);
//! `MPELOG_BENCH_ROWS=FIRST-LAST` asks those rows only, as the page does for a
//! trace with more rows than fit its screen.

#[path = "../tests/common/webdriver.rs"]
mod webdriver;

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const BUILT: &str = env!("CARGO_BIN_EXE_mpelog");

/// The `mpelog` binary served: `MPELOG_BENCH_BIN`, else the one built.
fn bin() -> String {
    std::env::var("MPELOG_BENCH_BIN").unwrap_or_else(|_| BUILT.to_string())
}

/// The trace measured, and the directory to delete afterwards.
fn trace() -> (PathBuf, Option<tempfile::TempDir>) {
    if let Some(p) = std::env::var_os("MPELOG_BENCH_SLOG2") {
        return (PathBuf::from(p), None);
    }
    let mb: u64 = std::env::var("MPELOG_BROWSER_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let dir = tempfile::tempdir().unwrap();
    let slog2 = dir.path().join("big.slog2");
    // About 30 bytes of SLOG-2 per record; `synth | convert`, no CLOG2 on disk.
    let events = (mb * 1_000_000 / 30).to_string();
    let t = Instant::now();
    let mut synth = Command::new(bin())
        .args([
            "synth", "-o", "-", "--ranks", "16", "--events", &events, "--seed", "18",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let convert = Command::new(bin())
        .args(["convert", "-", "-o", slog2.to_str().unwrap()])
        .stdin(synth.stdout.take().unwrap())
        .output()
        .unwrap();
    assert!(synth.wait().unwrap().success() && convert.status.success());
    eprintln!("generated in {:.1} s", t.elapsed().as_secs_f64());
    (slog2, Some(dir))
}

struct Server(std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_server(files: &[&Path], compare: bool, port: u16) -> Server {
    let mut args: Vec<String> = vec!["serve".into()];
    args.extend(files.iter().map(|f| f.to_str().unwrap().to_string()));
    if compare {
        args.push("--compare".into());
    }
    args.extend(["--port".into(), port.to_string()]);
    Server(
        Command::new(bin())
            .args(&args)
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    )
}

fn wait_up(port: u16) {
    // A probe that costs little: one row, one pixel (the page asks for the
    // rows on its screen).
    while !matches!(
        webdriver::http(port, "GET", "/api/info?rows=0-0&pixels=1", None),
        Ok((200, _))
    ) {
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A keep-alive GET; the status and the body.
fn get(r: &mut BufReader<TcpStream>, path: &str) -> (u16, Vec<u8>) {
    write!(
        r.get_mut(),
        "GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n"
    )
    .unwrap();
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    let status = line.split(' ').nth(1).unwrap().parse().unwrap();
    let mut len = 0;
    loop {
        line.clear();
        r.read_line(&mut line).unwrap();
        if line == "\r\n" {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                len = v.trim().parse().unwrap();
            }
        }
    }
    let mut body = vec![0; len];
    r.read_exact(&mut body).unwrap();
    (status, body)
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn main() {
    // `cargo bench` passes --bench; a filter that excludes us ends early.
    if std::env::args()
        .skip(1)
        .any(|a| !a.starts_with('-') && !"serve_latency".contains(a.as_str()))
    {
        return;
    }
    let (file, _dir) = trace();
    let bytes = std::fs::metadata(&file).unwrap().len();
    println!("file: {} ({bytes} bytes)", file.display());

    // Serve start to first frame.
    let browser = webdriver::programs().ok().map(|(d, c)| {
        let b = webdriver::Browser::start(&d, &c, (1680, 900));
        b.goto("about:blank");
        b
    });
    let port = webdriver::free_port();
    let t0_unix = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    let t0 = Instant::now();
    let server = start_server(&[&file], false, port);
    wait_up(port);
    let up = t0.elapsed();
    println!(
        "serve start to first answer: {:.1} ms",
        up.as_secs_f64() * 1e3
    );
    if let Some(b) = &browser {
        b.goto(&format!("http://127.0.0.1:{port}/"));
        b.wait_for(
            "the first frame",
            "return !!(window.mpelog && window.mpelog.state.firstFrameAt);",
            300,
        );
        let at = b.js("return window.mpelog.state.firstFrameAt;", json!([]));
        let ms = at.as_f64().unwrap() - t0_unix.as_secs_f64() * 1e3;
        println!("serve start to first drawn frame in Chromium: {ms:.1} ms");
        let px = b.js("return window.mpelog.state.answer.columns;", json!([]));
        println!("  (the page's first window: {px} columns)");
    } else {
        println!("serve start to first drawn frame: skipped (no chromedriver/chromium)");
    }
    drop(browser);

    // Random zooms and pans at 1,600 pixels.
    let c = TcpStream::connect(("127.0.0.1", port)).unwrap();
    c.set_nodelay(true).unwrap();
    let mut r = BufReader::new(c);
    let (_, info) = get(&mut r, "/api/info");
    let info: Value = serde_json::from_slice(&info).unwrap();
    let (tmin, tmax) = (
        info["time_min"].as_f64().unwrap(),
        info["time_max"].as_f64().unwrap(),
    );
    let n: usize = std::env::var("MPELOG_BENCH_REQUESTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    // The rows asked, as the page asks for the ones on screen of a trace
    // with many (`MPELOG_BENCH_ROWS=0-63`); all by default.
    let rows = std::env::var("MPELOG_BENCH_ROWS")
        .map(|r| format!("&rows={r}"))
        .unwrap_or_default();
    let waits = std::env::var("MPELOG_BENCH_WAITS").is_ok_and(|v| v == "1");
    let rows = if waits {
        format!("{rows}&waits=1")
    } else {
        rows
    };
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as f64 / (1u64 << 53) as f64
    };
    let full = tmax - tmin;
    let (mut from, mut to) = (tmin, tmax);
    let mut asked: Vec<(f64, f64)> = Vec::with_capacity(n);
    let mut kb = Vec::with_capacity(n);
    // (share of the trace shown, client milliseconds)
    let mut by_span: Vec<(f64, f64, f64)> = Vec::with_capacity(n);
    let (mut client, mut server_us, mut items, mut nodes) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    for _ in 0..n {
        let span = to - from;
        let centre = from + span * rnd();
        match (rnd() * 6.0) as u32 {
            // Zoom in 2x to 16x around a point.
            0 | 1 => {
                let s = span / 2f64.powi(1 + (rnd() * 4.0) as i32);
                from = centre - s / 2.0;
                to = centre + s / 2.0;
            }
            // Zoom out 2x to 16x.
            2 => {
                let s = (span * 2f64.powi(1 + (rnd() * 4.0) as i32)).min(full);
                from = centre - s / 2.0;
                to = centre + s / 2.0;
            }
            // Pan by up to a window's width.
            3 | 4 => {
                let d = span * (rnd() * 2.0 - 1.0);
                from += d;
                to += d;
            }
            // Jump: a random span (log-uniform from 10^-5 of the trace to all of it) anywhere.
            _ => {
                let s = full * 10f64.powf(-5.0 * rnd());
                from = tmin + rnd() * (full - s);
                to = from + s;
            }
        }
        if to - from < full * 1e-9 {
            to = from + full * 1e-9;
        }
        // What the viewer asks: the binary summary (spec/queries.md §6.6),
        // its cost in the last 24 bytes.
        asked.push((from, to));
        let url = format!("/api/window?from={from}&to={to}&pixels=1600&format=bin{rows}");
        let t = Instant::now();
        let (status, body) = get(&mut r, &url);
        client.push(t.elapsed().as_secs_f64() * 1e3);
        by_span.push((
            (to - from) / full,
            t.elapsed().as_secs_f64() * 1e3,
            body.len() as f64 / 1e3,
        ));
        assert_eq!(status, 200, "{url}: {}", String::from_utf8_lossy(&body));
        kb.push(body.len() as f64 / 1e3);
        let u64_at = |k: usize| {
            let at = body.len() - 24 + 8 * k;
            u64::from_le_bytes(body[at..at + 8].try_into().unwrap()) as f64
        };
        server_us.push(u64_at(2) / 1e3);
        nodes.push(u64_at(0));
        // The summary's drawables and shadows (header fields at 32 and 40).
        let u64_head = |at: usize| u64::from_le_bytes(body[at..at + 8].try_into().unwrap()) as f64;
        items.push(u64_head(32) + u64_head(40));
    }
    drop(server);
    let classes = [
        (0.0, 0.001, "windows under 0.1% of the trace"),
        (0.001, 0.01, "0.1% to 1%"),
        (0.01, 0.1, "1% to 10%"),
        (0.1, 2.0, "over 10%"),
    ];
    for v in [&mut client, &mut server_us, &mut items, &mut nodes, &mut kb] {
        v.sort_by(f64::total_cmp);
    }
    println!("/api/window at 1600 pixels, {n} random zooms and pans:");
    for (lo, hi, what) in classes {
        let mut v: Vec<f64> = by_span
            .iter()
            .filter(|(f, _, _)| *f >= lo && *f < hi)
            .map(|(_, ms, _)| *ms)
            .collect();
        let mut kb: Vec<f64> = by_span
            .iter()
            .filter(|(f, _, _)| *f >= lo && *f < hi)
            .map(|(_, _, kb)| *kb)
            .collect();
        if v.is_empty() {
            continue;
        }
        v.sort_by(f64::total_cmp);
        kb.sort_by(f64::total_cmp);
        println!(
            "  {what:36} {:4} asked: p50 {:8.2} ms  p95 {:8.2} ms  p99 {:8.2} ms  kB p50 {:7.1} max {:7.1}",
            v.len(),
            pct(&v, 0.5),
            pct(&v, 0.95),
            pct(&v, 0.99),
            pct(&kb, 0.5),
            kb.last().copied().unwrap_or(0.0)
        );
    }
    let fast = client.iter().filter(|ms| **ms <= 30.0).count();
    println!("  answered within 30 ms: {fast} of {n}");
    for (what, v, unit) in [
        ("client (request to last byte)", &client, "ms"),
        ("server (cost.micros)", &server_us, "ms"),
        ("drawables+shadows summed", &items, ""),
        ("nodes read per answer", &nodes, ""),
        ("kB per answer (binary)", &kb, ""),
    ] {
        println!(
            "  {what:28} p50 {:9.2}{unit}  p95 {:9.2}{unit}  p99 {:9.2}{unit}  max {:9.2}{unit}",
            pct(v, 0.5),
            pct(v, 0.95),
            pct(v, 0.99),
            pct(v, 1.0)
        );
    }
    compare_walk(&file, &asked, full, &classes);
    if waits {
        waits_walk(&file, &asked, full, &classes);
    }
}

/// `/api/waits` (10 worst waits) for the windows `asked`: client times per
/// width class and answer sizes.
fn waits_walk(file: &Path, asked: &[(f64, f64)], full: f64, classes: &[(f64, f64, &str)]) {
    let port = webdriver::free_port();
    let server = start_server(&[file], false, port);
    wait_up(port);
    let c = TcpStream::connect(("127.0.0.1", port)).unwrap();
    c.set_nodelay(true).unwrap();
    let mut r = BufReader::new(c);
    let (mut by_span, mut kb) = (Vec::new(), Vec::new());
    for &(from, to) in asked {
        let url = format!("/api/waits?from={from}&to={to}&instances=10");
        let t = Instant::now();
        let (status, body) = get(&mut r, &url);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        assert_eq!(status, 200, "{url}: {}", String::from_utf8_lossy(&body));
        kb.push(body.len() as f64 / 1e3);
        by_span.push(((to - from) / full, ms));
    }
    drop(server);
    println!("/api/waits (10 worst), the same {} windows:", asked.len());
    for &(lo, hi, what) in classes {
        let mut v: Vec<f64> = by_span
            .iter()
            .filter(|(f, _)| *f >= lo && *f < hi)
            .map(|(_, ms)| *ms)
            .collect();
        if v.is_empty() {
            continue;
        }
        v.sort_by(f64::total_cmp);
        println!(
            "  {what:36} {:4} asked: p50 {:8.2} ms  p95 {:8.2} ms  p99 {:8.2} ms",
            v.len(),
            pct(&v, 0.5),
            pct(&v, 0.95),
            pct(&v, 0.99)
        );
    }
    kb.sort_by(f64::total_cmp);
    println!(
        "  kB per answer (JSON)         p50 {:9.2}  max {:9.2}",
        pct(&kb, 0.5),
        pct(&kb, 1.0)
    );
}

/// `/api/compare` of the file with itself for the windows `asked` (run B's
/// a tenth of the window later), at 1,600 pixels: client times per width
/// class, the server's `cost.micros`, answer sizes.
fn compare_walk(file: &Path, asked: &[(f64, f64)], full: f64, classes: &[(f64, f64, &str)]) {
    // The rows the page shows (`MPELOG_BENCH_ROWS`), as for the windows.
    let rows = std::env::var("MPELOG_BENCH_ROWS")
        .map(|r| format!("&rows={r}"))
        .unwrap_or_default();
    let port = webdriver::free_port();
    let server = start_server(&[file, file], true, port);
    wait_up(port);
    let c = TcpStream::connect(("127.0.0.1", port)).unwrap();
    c.set_nodelay(true).unwrap();
    let mut r = BufReader::new(c);
    let (mut by_span, mut server_ms, mut kb) = (Vec::new(), Vec::new(), Vec::new());
    for &(from, to) in asked {
        let d = (to - from) / 10.0;
        let url = format!(
            "/api/compare?a_from={from}&a_to={to}&b_from={}&b_to={}&pixels=1600&limit=25{rows}",
            from + d,
            to + d
        );
        let t = Instant::now();
        let (status, body) = get(&mut r, &url);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        assert_eq!(status, 200, "{url}: {}", String::from_utf8_lossy(&body));
        let v: Value = serde_json::from_slice(&body).unwrap();
        server_ms.push(v["cost"]["micros"].as_f64().unwrap() / 1e3);
        kb.push(body.len() as f64 / 1e3);
        by_span.push(((to - from) / full, ms));
    }
    drop(server);
    println!(
        "/api/compare at 1600 pixels (the file with itself), the same {} windows:",
        asked.len()
    );
    for &(lo, hi, what) in classes {
        let mut v: Vec<f64> = by_span
            .iter()
            .filter(|(f, _)| *f >= lo && *f < hi)
            .map(|(_, ms)| *ms)
            .collect();
        if v.is_empty() {
            continue;
        }
        v.sort_by(f64::total_cmp);
        println!(
            "  {what:36} {:4} asked: p50 {:8.2} ms  p95 {:8.2} ms  p99 {:8.2} ms",
            v.len(),
            pct(&v, 0.5),
            pct(&v, 0.95),
            pct(&v, 0.99)
        );
    }
    for v in [&mut server_ms, &mut kb] {
        v.sort_by(f64::total_cmp);
    }
    println!(
        "  server (cost.micros)         p50 {:9.2}ms  p95 {:9.2}ms  max {:9.2}ms",
        pct(&server_ms, 0.5),
        pct(&server_ms, 0.95),
        pct(&server_ms, 1.0)
    );
    println!(
        "  kB per answer (JSON)         p50 {:9.2}  max {:9.2}",
        pct(&kb, 0.5),
        pct(&kb, 1.0)
    );
}
