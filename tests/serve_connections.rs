//! `mpelog serve` with many keep-alive connections at once, as a browser
//! opens them: every connection must be read and answered while the others
//! stay open.
//!
//! The bug these guard against: tiny_http 0.12.0's connection pool, which
//! `serve` used before, queued a new connection whenever its count of waiting
//! threads was non-zero, a count that still held threads already woken for
//! earlier connections. A burst was queued behind threads that each then
//! served one keep-alive connection for as long as the client kept it open,
//! so a queued connection was never read (the compare page's `/api/compare`
//! seen pending in 2 of 30 runs at load 5-9; 1-12 of these 16 unanswered).
//! The transport (`mpelog::serve::transport`) now reads every connection on
//! its runtime and computes at most `ANSWERING` answers at once: a burst of
//! any size is answered, the answers waiting their turn for a thread.

mod common;
#[path = "common/webdriver.rs"]
mod webdriver;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// Connections opened at once as a browser does: more than tiny_http's 4
/// idle threads and the 8 workers `serve` had.
const AT_ONCE: usize = 16;

/// A burst well beyond every thread count of the server (its
/// `transport::ANSWERING` answers at once and the blocking threads).
const LARGE_BURST: usize = 64;

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

/// `n` keep-alive connections all opened, then each asks `/api/info`, then
/// each must read its answer within 20 s of the last asking while every
/// other one stays open;
/// the count of those not answered `200`.
fn unanswered_of_a_burst(port: u16, n: usize) -> usize {
    let mut conns: Vec<TcpStream> = (0..n)
        .map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap())
        .collect();
    for c in &mut conns {
        c.write_all(b"GET /api/info HTTP/1.1\r\nHost: localhost\r\n\r\n")
            .unwrap();
    }
    // Read in reverse order of connecting: the last connections of a burst
    // are the ones a pool queues.
    // One deadline for the whole burst: a failing run ends in 20 s.
    let deadline = Instant::now() + Duration::from_secs(20);
    conns
        .iter_mut()
        .rev()
        .map(|c| {
            let left = deadline.saturating_duration_since(Instant::now());
            c.set_read_timeout(Some(left.max(Duration::from_millis(1))))
                .unwrap();
            status_line(c)
        })
        .filter(|l| !l.as_ref().is_some_and(|l| l.starts_with("HTTP/1.1 200")))
        .count()
}

#[test]
fn a_burst_of_keep_alive_connections_is_answered_while_all_stay_open() {
    let dir = tempfile::tempdir().unwrap();
    let slog2 = dir.path().join("t.slog2");
    std::fs::write(&slog2, common::generated_slog2(6, 2000, 2048)).unwrap();
    let server = webdriver::serve(&slog2);
    for round in 0..3 {
        // All connected before any asks (the accepting side sees a burst),
        // none closed until every one has its answer.
        let unanswered = unanswered_of_a_burst(server.port, AT_ONCE);
        assert_eq!(
            unanswered, 0,
            "round {round}: {unanswered} of {AT_ONCE} keep-alive connections unanswered in 20 s"
        );
    }
    let unanswered = unanswered_of_a_burst(server.port, LARGE_BURST);
    assert_eq!(
        unanswered, 0,
        "{unanswered} of {LARGE_BURST} keep-alive connections unanswered in 20 s"
    );
}
