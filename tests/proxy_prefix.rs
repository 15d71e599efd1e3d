//! `mpelog serve` behind a reverse proxy under a path prefix: nginx (Debian's
//! `nginx-light`), started here on loopback with a configuration of its own in
//! a temporary directory, passes `location /mpelog/` to the server; the viewer
//! page loads and draws in headless Chromium through it (its API URLs are
//! relative), and `mpelog window` reads the file through it with Range
//! requests.
//!
//! Without nginx, chromedriver or chromium the test says it skipped, unless
//! `CI` is set: then it fails (`.ci/run` installs them).

mod common;
#[path = "common/webdriver.rs"]
mod webdriver;

use common::{mpelog, synth};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use webdriver::{free_port, http, programs_or_skip, Browser, Killed};

/// nginx on PATH (or in /usr/sbin, which a user's PATH may lack).
fn nginx_or_skip(test: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin")])
        .map(|d| d.join("nginx"))
        .find(|p| p.is_file());
    match found {
        Some(p) => Some(p),
        None if std::env::var_os("CI").is_some() => {
            panic!("{test}: no nginx (CI is set: .ci/run installs nginx-light)")
        }
        None => {
            eprintln!("SKIPPED {test}: no nginx (apt-get install nginx-light)");
            None
        }
    }
}

/// Waits until `GET path` on `port` answers 200.
fn wait_200(port: u16, path: &str, what: &str) {
    let t = Instant::now();
    while !matches!(http(port, "GET", path, None), Ok((200, _))) {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "{what} did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// nginx in the foreground, one process, everything it writes under `dir`,
/// proxying `/mpelog/` on `port` to `upstream`.
fn nginx(binary: &Path, dir: &Path, port: u16, upstream: u16) -> Killed {
    let d = dir.display();
    let conf = format!(
        "daemon off;\nmaster_process off;\nworker_processes 1;\npid {d}/nginx.pid;\n\
         error_log {d}/error.log;\nevents {{ worker_connections 64; }}\n\
         http {{\n  access_log {d}/access.log;\n\
           client_body_temp_path {d}/body;\n  proxy_temp_path {d}/proxy;\n\
           fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n\
           server {{\n    listen 127.0.0.1:{port};\n\
             location /mpelog/ {{ proxy_pass http://127.0.0.1:{upstream}/; }}\n  }}\n}}\n"
    );
    let path = dir.join("nginx.conf");
    std::fs::write(&path, conf).unwrap();
    let child = std::process::Command::new(binary)
        .arg("-p")
        .arg(dir)
        .arg("-e")
        .arg(dir.join("error.log"))
        .arg("-c")
        .arg(&path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start nginx");
    Killed(child)
}

#[test]
fn the_page_works_behind_nginx_under_a_path_prefix() {
    const TEST: &str = "the_page_works_behind_nginx_under_a_path_prefix";
    let Some(nginx_bin) = nginx_or_skip(TEST) else {
        return;
    };
    let Some((driver, chromium)) = programs_or_skip(TEST) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let clog2 = synth(dir.path(), "t.clog2", &["--events", "20000", "--seed", "6"]);
    let slog2 = dir.path().join("t.slog2");
    assert!(mpelog(&["convert", &clog2, "-o", slog2.to_str().unwrap()])
        .status
        .success());

    let serve_port = free_port();
    let _serve = Killed(
        std::process::Command::new(env!("CARGO_BIN_EXE_mpelog"))
            .args(["serve", slog2.to_str().unwrap(), "--port"])
            .arg(serve_port.to_string())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    wait_200(serve_port, "/api/info", "mpelog serve");
    let conf_dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let _nginx = nginx(&nginx_bin, conf_dir.path(), port, serve_port);
    wait_200(port, "/mpelog/api/info", "nginx");

    // The page, through the proxy: its info and a drawn window.
    let b = Browser::start(&driver, &chromium, (1200, 700));
    b.goto(&format!("http://127.0.0.1:{port}/mpelog/"));
    b.wait_for(
        "the page to draw its first window through the proxy",
        "const s = window.mpelog && window.mpelog.state; \
         return !!s && s.seq > 0 && s.done === s.seq && s.error === null && s.frames > 0;",
        60,
    );
    let drawn = b.js(
        "const a = window.mpelog.state.answer; \
         return a.cells.length + a.states.length + a.events.length + a.arrows.length;",
        serde_json::json!([]),
    );
    assert!(drawn.as_u64().unwrap() > 0, "{drawn}");
    let export = b.js(
        "return document.getElementById('export').getAttribute('href');",
        serde_json::json!([]),
    );
    assert!(
        export.as_str().unwrap().starts_with("api/export?"),
        "{export}"
    );
    let log = std::fs::read_to_string(conf_dir.path().join("access.log")).unwrap();
    for path in ["GET /mpelog/api/info", "GET /mpelog/api/window"] {
        assert!(log.contains(path), "{path} in nginx's log:\n{log}");
    }
    assert!(
        !log.contains("GET /api/"),
        "a request outside the prefix:\n{log}"
    );

    // The file itself, through the proxy, with Range requests.
    let url = format!("http://127.0.0.1:{port}/mpelog/trace");
    let local = mpelog(&["window", slog2.to_str().unwrap(), "--json"]);
    let remote = mpelog(&["window", &url, "--json"]);
    assert!(
        remote.status.success(),
        "{}",
        String::from_utf8_lossy(&remote.stderr)
    );
    let body = |o: &std::process::Output| {
        let t = String::from_utf8_lossy(&o.stdout).into_owned();
        t.trim_end().rsplit_once('\n').map(|b| b.0.to_string())
    };
    assert_eq!(body(&local), body(&remote));
}
