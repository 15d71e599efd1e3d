//! `mpelog serve` with many keep-alive connections at once, as a browser
//! opens them: every connection must be read and answered while the others
//! stay open.
//!
//! A known bug, not fixed yet: tiny_http 0.12.0's connection pool
//! (`TaskPool::spawn`) queues a new connection whenever its count of waiting
//! threads is non-zero, a count that still holds threads already woken for
//! earlier connections. A burst is queued behind threads that each then serve
//! one keep-alive connection for as long as the client keeps it open, so a
//! queued connection is never read (the compare page's `/api/compare` seen
//! pending in 2 of 30 runs at load 5-9). The fix is one line in tiny_http;
//! a vendored, patched copy would break the workspace's layout, so the test
//! is ignored until the server moves off tiny_http's pool or a release has
//! the fix. Run it with `cargo test --test serve_connections -- --ignored`.

mod common;
#[path = "common/webdriver.rs"]
mod webdriver;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// Connections opened at once: more than the pool's 4 idle threads and the
/// server's 8 workers.
const AT_ONCE: usize = 16;

/// Reads one answer's status line from `c`, `None` when none came in time.
fn status_line(c: &mut TcpStream) -> Option<String> {
    let mut got = Vec::new();
    let mut b = [0u8; 1];
    while !got.ends_with(b"\r\n") {
        match c.read(&mut b) {
            Ok(1) => got.push(b[0]),
            _ => return None,
        }
    }
    Some(String::from_utf8_lossy(&got).trim_end().to_string())
}

#[test]
#[ignore = "tiny_http 0.12.0's connection pool leaves a burst's queued keep-alive connections unread (module doc)"]
fn a_burst_of_keep_alive_connections_is_answered_while_all_stay_open() {
    let dir = tempfile::tempdir().unwrap();
    let slog2 = dir.path().join("t.slog2");
    std::fs::write(&slog2, common::generated_slog2(6, 2000, 2048)).unwrap();
    let server = webdriver::serve(&slog2);
    for round in 0..3 {
        // All connected before any asks (the accepting thread sees a burst),
        // none closed until every one has its answer.
        let mut conns: Vec<TcpStream> = (0..AT_ONCE)
            .map(|_| TcpStream::connect(("127.0.0.1", server.port)).unwrap())
            .collect();
        for c in &mut conns {
            c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
            c.write_all(b"GET /api/info HTTP/1.1\r\nHost: localhost\r\n\r\n")
                .unwrap();
        }
        let unanswered = conns
            .iter_mut()
            .map(status_line)
            .filter(|l| !l.as_ref().is_some_and(|l| l.starts_with("HTTP/1.1 200")))
            .count();
        assert_eq!(
            unanswered, 0,
            "round {round}: {unanswered} of {AT_ONCE} keep-alive connections unanswered in 20 s"
        );
    }
}
