//! `mpelog stats A --compare B` and `mpelog analyze A --compare B` on two
//! hand-made CLOG2 runs (tests/compare.rs works the same case through the
//! library): three ranks compute, then meet in a barrier; run B plants a
//! slowdown of 20 ms in rank 2's `Compute`.
//!
//! | rank | A: Compute | A: MPI_Barrier | B: Compute | B: MPI_Barrier |
//! |------|-----------:|---------------:|-----------:|---------------:|
//! | 0    | 0–10 ms    | 10–12 ms       | 0–10 ms    | 10–27 ms       |
//! | 1    | 0–10 ms    | 10–12 ms       | 0–10 ms    | 10–27 ms       |
//! | 2    | 0–5 ms     | 5–12 ms        | 0–25 ms    | 25–27 ms       |
//!
//! `stats`: Compute on rank 2 +20 ms first, then MPI_Barrier on ranks 0 and 1
//! +15 ms each. `analyze`: Wait at Barrier (the wait for the last to enter,
//! 10 ms in A, 25 ms in B): rank 0 and 1 +15 ms, rank 2 −5 ms; in all +25 ms.

#[path = "common/analysis.rs"]
mod analysis_common;
mod common;

use analysis_common::{Trace, MS};
use common::{mpelog, stdout};
use serde_json::Value;

/// The two runs, written to `dir` as `a.clog2` and `b.clog2`.
fn runs(dir: &std::path::Path) -> (String, String) {
    let write = |name: &str, compute_2: f64, end: f64| {
        let mut t = Trace::new(3);
        t.state(0, "Compute", 0.0, 10.0 * MS)
            .state(1, "Compute", 0.0, 10.0 * MS)
            .state(2, "Compute", 0.0, compute_2)
            .collective(
                "MPI_Barrier",
                &[10.0 * MS, 10.0 * MS, compute_2],
                &[end, end, end],
            );
        let p = dir.join(name);
        std::fs::write(&p, t.bytes()).unwrap();
        p.to_str().unwrap().to_string()
    };
    (
        write("a.clog2", 5.0 * MS, 12.0 * MS),
        write("b.clog2", 25.0 * MS, 27.0 * MS),
    )
}

/// `(name, timeline, change in µs)` of a JSON comparison's rows.
fn rows(v: &Value, table: &str) -> Vec<(String, Option<i64>, i64)> {
    v[table]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let change = r["b"].as_f64().unwrap() - r["a"].as_f64().unwrap();
            (
                r["name"].as_str().unwrap().to_string(),
                r["timeline"].as_i64(),
                (change * 1e6).round() as i64,
            )
        })
        .collect()
}

#[test]
fn stats_compare_lists_the_planted_slowdown_first() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = runs(dir.path());
    let v: Value =
        serde_json::from_str(&stdout(&mpelog(&["stats", &a, "--compare", &b, "--json"]))).unwrap();
    let t = rows(&v, "timelines");
    assert_eq!(t[0], ("Compute".into(), Some(2), 20_000), "{t:?}");
    assert_eq!(t[1], ("MPI_Barrier".into(), Some(0), 15_000));
    assert_eq!(t[2], ("MPI_Barrier".into(), Some(1), 15_000));
    assert_eq!(t[3], ("MPI_Barrier".into(), Some(2), -5_000));
    let all = rows(&v, "totals");
    assert_eq!(all[0], ("MPI_Barrier".into(), None, 25_000));
    assert_eq!(all[1], ("Compute".into(), None, 20_000));
    // The text report's first row of each table is the same.
    let text = stdout(&mpelog(&["stats", &a, "--compare", &b]));
    let firsts: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("MPI_Barrier ") || l.starts_with("Compute "))
        .collect();
    assert!(
        firsts[0].starts_with("MPI_Barrier") && firsts[0].contains("+0.025000"),
        "{text}"
    );
    assert!(
        firsts[2].starts_with("Compute") && firsts[2].contains("+0.020000"),
        "{text}"
    );
    // CSV: a header and a row per total and per timeline.
    let csv = stdout(&mpelog(&["stats", &a, "--compare", &b, "--csv"]));
    assert_eq!(csv.lines().count(), 1 + 2 + 6, "{csv}");
    assert!(csv
        .lines()
        .nth(3)
        .unwrap()
        .starts_with("timeline,\"Compute\",2,"));
}

#[test]
fn analyze_compare_lists_the_waits_that_changed_most_first() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = runs(dir.path());
    let out = stdout(&mpelog(&["analyze", &a, "--compare", &b, "--json"]));
    let v: Value = serde_json::from_str(&out).unwrap();
    let t = rows(&v, "timelines");
    assert_eq!(
        t[..3],
        [
            ("Wait at Barrier".into(), Some(0), 15_000),
            ("Wait at Barrier".into(), Some(1), 15_000),
            ("Wait at Barrier".into(), Some(2), -5_000),
        ],
        "{t:?}"
    );
    let all = rows(&v, "totals");
    assert_eq!(all[0], ("Wait at Barrier".into(), None, 25_000), "{all:?}");
    // The same run against itself: nothing changed.
    let same: Value = serde_json::from_str(&stdout(&mpelog(&[
        "analyze",
        &a,
        "--compare",
        &a,
        "--json",
    ])))
    .unwrap();
    assert!(rows(&same, "timelines").iter().all(|r| r.2 == 0));
}
