//! `mpelog annotate` and `mpelog window` on annotation files: the trace is never
//! modified, the window equals the converted SLOG-2 file's, a changed trace is
//! refused.

mod common;

use common::*;
use std::time::SystemTime;

fn lines_without_nodes(text: &str) -> Vec<String> {
    let mut v: Vec<String> = text
        .lines()
        .filter(|l| !l.starts_with("nodes_read="))
        .map(|l| l.split(" node=").next().unwrap().to_string())
        .collect();
    v.sort();
    v
}

fn last_drawables(text: &str) -> u64 {
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("nodes_read="), "{last}");
    last.rsplit("drawables=").next().unwrap().parse().unwrap()
}

#[test]
fn annotate_leaves_the_trace_alone_and_windows_match_slog2() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = synth(
        tmp.path(),
        "t.clog2",
        &["--events", "60000", "--ranks", "3", "--block-size", "4096"],
    );
    let before = std::fs::read(&trace).unwrap();
    let mtime = std::fs::metadata(&trace).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let o = mpelog(&["annotate", &trace, "--leaf-bytes", "8192"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("leaves") && err.contains("% of the trace"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(&trace).unwrap(),
        before,
        "the trace was modified"
    );
    let after: SystemTime = std::fs::metadata(&trace).unwrap().modified().unwrap();
    assert_eq!(after, mtime, "the trace's modification time changed");
    let idx = format!("{trace}.idx");
    let slog2 = tmp.path().join("t.slog2");
    let slog2 = slog2.to_str().unwrap();
    assert!(mpelog(&["convert", &trace, "-o", slog2]).status.success());
    for (from, to) in [("0", "0.01"), ("0.2", "0.4"), ("-1", "1000")] {
        let a = stdout(&mpelog(&["window", &idx, "--from", from, "--to", to]));
        let b = stdout(&mpelog(&["window", slog2, "--from", from, "--to", to]));
        assert_eq!(
            lines_without_nodes(&a),
            lines_without_nodes(&b),
            "[{from}, {to})"
        );
        assert_eq!(last_drawables(&a), last_drawables(&b));
    }
    // JSON and an explicit --trace.
    let renamed = tmp.path().join("x.idx");
    std::fs::rename(&idx, &renamed).unwrap();
    let o = mpelog(&[
        "window",
        renamed.to_str().unwrap(),
        "--trace",
        &trace,
        "--from",
        "0",
        "--to",
        "0.01",
        "--json",
    ]);
    let text = stdout(&o);
    assert!(text.lines().next().unwrap().starts_with('{'), "{text}");
    // Without --trace, x.idx names no trace: the check fails and says why.
    let o = mpelog(&["check", renamed.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stdout).contains("--trace"));
    std::fs::rename(&renamed, &idx).unwrap();
    let o = mpelog(&["check", &idx]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    assert_eq!(std::fs::read(&trace).unwrap(), before);
}

#[test]
fn a_changed_trace_makes_queries_fail() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = synth(
        tmp.path(),
        "t.clog2",
        &["--events", "20000", "--block-size", "1024"],
    );
    assert!(mpelog(&["annotate", &trace]).status.success());
    let idx = format!("{trace}.idx");
    let mut bytes = std::fs::read(&trace).unwrap();
    let n = bytes.len();
    bytes[n / 2] ^= 0x40;
    std::fs::write(&trace, &bytes).unwrap();
    let o = mpelog(&["window", &idx, "--from", "-1", "--to", "1e9"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("stale annotation") && err.contains("changed"),
        "{err}"
    );
    assert_eq!(mpelog(&["check", &idx]).status.code(), Some(1));
    bytes.push(0);
    std::fs::write(&trace, &bytes).unwrap();
    let o = mpelog(&["window", &idx, "--from", "0", "--to", "0.001"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("bytes"));
}

#[test]
fn annotate_usage_and_inputs() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = synth(tmp.path(), "t.clog2", &["--events", "2000"]);
    assert_eq!(
        mpelog(&["annotate", &trace, "--children", "1"])
            .status
            .code(),
        Some(2)
    );
    let slog2 = tmp.path().join("t.slog2");
    assert!(mpelog(&["convert", &trace, "-o", slog2.to_str().unwrap()])
        .status
        .success());
    let o = mpelog(&["annotate", slog2.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(leftovers(tmp.path()), 0);
    // A trace that is not annotated is converted for the window (issue 26: it
    // was refused).
    let o = mpelog(&["window", &trace, "--from", "0", "--to", "1"]);
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn corpus_traces_annotate_and_answer_like_convert() {
    let Some(dir) = corpus() else { return };
    let tmp = tempfile::tempdir().unwrap();
    for name in ["p2p_n8", "many_events_n4", "comm1_isr_loop_n2"] {
        let trace = tmp.path().join(format!("{name}.clog2"));
        std::fs::copy(corpus_file(&dir, &format!("mpe/{name}.clog2")), &trace).unwrap();
        let t = trace.to_str().unwrap();
        assert!(mpelog(&["annotate", t, "--leaf-bytes", "65536"])
            .status
            .success());
        let idx = format!("{t}.idx");
        let real = corpus_file(&dir, &format!("mpe/{name}.slog2"));
        let a = stdout(&mpelog(&["window", &idx, "--from", "-1", "--to", "1e9"]));
        let b = stdout(&mpelog(&["window", &real, "--from", "-1", "--to", "1e9"]));
        assert_eq!(lines_without_nodes(&a), lines_without_nodes(&b), "{name}");
    }
}
