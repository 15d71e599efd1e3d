//! `mpelog analyze --write-index` and `render --waits` with the index beside
//! the trace (spec/waits.md §1): written by the output rules, of the whole
//! trace whatever the window, used only while fresh.

mod common;

use common::mpelog;
use mpelog::waits::{index_path, WaitIndex};
use std::path::Path;

fn trace(dir: &Path) -> String {
    common::synth(
        dir,
        "run.clog2",
        &[
            "--ranks",
            "4",
            "--events",
            "2000",
            "--plant-late-sender",
            "0.001",
        ],
    )
}

#[test]
fn write_index_writes_the_whole_trace_beside_it() {
    let tmp = tempfile::tempdir().unwrap();
    let t = trace(tmp.path());
    let o = mpelog(&["analyze", &t, "--write-index", "--json"]);
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("wrote the wait index"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let path = index_path(Path::new(&t));
    let ix = WaitIndex::open_fresh(&path, Path::new(&t)).unwrap();
    // Late Sender on timeline 1, as the report says.
    let ls = v["patterns"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "mpi_latesender")
        .unwrap();
    let c = ix.cells(ix.from, ix.to, 1);
    let got = c.of_timeline(1)[&mpelog::analysis::Pattern::LateSender];
    assert!((got - ls["per_timeline"]["1"].as_f64().unwrap()).abs() < 1e-9);
    // A window changes the report, not the index.
    let whole = std::fs::read(&path).unwrap();
    let o = mpelog(&[
        "analyze",
        &t,
        "--from",
        "0.1",
        "--to",
        "0.2",
        "--write-index",
    ]);
    assert!(o.status.success());
    assert_eq!(std::fs::read(&path).unwrap(), whole);
    assert_eq!(common::leftovers(tmp.path()), 0);
}

#[test]
fn write_index_never_over_the_trace() {
    let tmp = tempfile::tempdir().unwrap();
    let t = trace(tmp.path());
    let before = std::fs::read(&t).unwrap();
    // TRACE.waits is a link to the trace itself: refused, the trace intact.
    std::os::unix::fs::symlink(&t, index_path(Path::new(&t))).unwrap();
    let o = mpelog(&["analyze", &t, "--write-index"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("this output is the input"), "{err}");
    assert_eq!(std::fs::read(&t).unwrap(), before);
}

#[test]
fn render_ignores_a_stale_index_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let t = trace(tmp.path());
    assert!(mpelog(&["analyze", &t, "--write-index"]).status.success());
    let out = tmp.path().join("w.svg");
    let render = || {
        let o = mpelog(&["render", &t, "--waits", "-o", out.to_str().unwrap()]);
        assert!(o.status.success());
        (
            String::from_utf8_lossy(&o.stderr).to_string(),
            std::fs::read(&out).unwrap(),
        )
    };
    let (err, fresh) = render();
    assert!(err.contains("using the wait index"), "{err}");
    // The trace touched: its mtime differs, the index is not used.
    let f = std::fs::File::options().write(true).open(&t).unwrap();
    f.set_modified(std::time::SystemTime::UNIX_EPOCH).unwrap();
    drop(f);
    let (err, analysed) = render();
    assert!(err.contains("not used") && err.contains("stale"), "{err}");
    assert!(err.contains("analysing"), "{err}");
    assert_eq!(fresh, analysed, "the same picture either way");
    // A damaged index: not used either.
    std::fs::write(index_path(Path::new(&t)), b"MPWAITS\0junk").unwrap();
    let (err, _) = render();
    assert!(err.contains("not used"), "{err}");
    // Bad layers are a usage error.
    let o = mpelog(&["render", &t, "--waits=smoke", "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
}
