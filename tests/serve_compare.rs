//! `mpelog serve A B --compare` (spec/queries.md §7.2): `/api/compare`
//! equals `mpelog stats A --compare B --from --to --json` for the windows
//! when no shadow went in, stays within 1% of the row-time zoomed out, cuts
//! its tables at `limit`, and refuses what it cannot answer.
//!
//! The runs: `mpelog synth --ranks 4 --seed 7` with one seed, so both have the
//! same iterations; run A plants `--plant-imbalance 0.001` (rank 3 spends
//! 1 ms longer in `Inner` per iteration than the others), run B 0.004 (4 ms
//! longer). So B − A is `Inner` on timeline 3, +3 ms per iteration, and
//! nothing else on any timeline.

mod common;

use common::{mpelog, synth};
use mpelog::serve::{Service, COMPARE_PAGE, PAGE};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Runs A and B of `synth --ranks 4 --events EVENTS --seed 7 PLANT SECS`
/// (`secs` A's and B's) in `dir`, as CLOG2 and as SLOG-2 with leaves of
/// `leaf` bytes.
fn planted_runs(
    dir: &Path,
    events: &str,
    leaf: &str,
    plant: &str,
    secs: [&str; 2],
) -> [(String, PathBuf); 2] {
    let one = |name: &str, secs: &str| {
        let args = [
            "--ranks", "4", "--events", events, "--seed", "7", plant, secs,
        ];
        let clog2 = synth(dir, &format!("{name}.clog2"), &args);
        let slog2 = dir.join(format!("{name}.slog2"));
        let o = mpelog(&[
            "convert",
            &clog2,
            "-o",
            slog2.to_str().unwrap(),
            "--leaf-bytes",
            leaf,
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        (clog2, slog2)
    };
    [one("a", secs[0]), one("b", secs[1])]
}

/// The two runs of `events` events as SLOG-2 with leaves of `leaf` bytes.
fn runs(dir: &Path, events: &str, leaf: &str) -> (PathBuf, PathBuf) {
    let [(_, a), (_, b)] = planted_runs(dir, events, leaf, "--plant-imbalance", ["0.001", "0.004"]);
    (a, b)
}

/// A comparison's rows of `table` by (name, timeline): (a, b, a_share,
/// b_share); rows with no seconds in either run left out (the API has none).
type Rows = BTreeMap<(String, Option<i64>), [f64; 4]>;

fn rows(v: &Value, table: &str) -> Rows {
    v[table]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let f = |k: &str| r[k].as_f64().unwrap();
            (
                (
                    r["name"].as_str().unwrap().to_string(),
                    r["timeline"].as_i64(),
                ),
                [f("a"), f("b"), f("a_share"), f("b_share")],
            )
        })
        .filter(|(_, x)| x[0] != 0.0 || x[1] != 0.0)
        .collect()
}

/// `ours` and `theirs` have the same rows, each value within `tolerance`.
fn assert_rows_equal(ours: &Rows, theirs: &Rows, tolerance: f64, what: &str) {
    let (k1, k2): (Vec<_>, Vec<_>) = (ours.keys().collect(), theirs.keys().collect());
    assert_eq!(k1, k2, "{what}: the rows");
    for (k, x) in ours {
        let y = theirs[k];
        for i in 0..4 {
            assert!(
                (x[i] - y[i]).abs() <= tolerance,
                "{what}: {k:?} field {i}: {} against {}",
                x[i],
                y[i]
            );
        }
    }
}

/// The rows are sorted by the size of their change, the largest first.
fn assert_sorted(v: &Value, table: &str) {
    let changes: Vec<f64> = v[table]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["b"].as_f64().unwrap() - r["a"].as_f64().unwrap()).abs())
        .collect();
    assert!(
        changes.windows(2).all(|w| w[0] >= w[1]),
        "{table} not sorted by change: {changes:?}"
    );
}

fn time_range(s: &Service, file: usize) -> (f64, f64) {
    let info = common::served_json(s, &format!("/api/info?file={file}&rows=0-0&pixels=1"));
    (
        info["time_min"].as_f64().unwrap(),
        info["time_max"].as_f64().unwrap(),
    )
}

/// `mpelog stats A --compare B --from --to --json` for one window of both.
fn stats_compare(a: &Path, b: &Path, window: (f64, f64)) -> Value {
    common::window_json(
        &[
            "stats",
            a.to_str().unwrap(),
            "--compare",
            b.to_str().unwrap(),
        ],
        window,
    )
}

fn compare_url(a: (f64, f64), b: (f64, f64), pixels: u32) -> String {
    format!(
        "/api/compare?a_from={}&a_to={}&b_from={}&b_to={}&pixels={pixels}&limit=10000",
        a.0, a.1, b.0, b.1
    )
}

#[test]
fn the_same_windows_equal_stats_compare_and_the_planted_slowdown_is_first() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = runs(dir.path(), "4000", "64k");
    let s = Service::new(&[a.clone(), b.clone()]).unwrap().comparing();
    let (a_min, _) = time_range(&s, 0);
    let (_, b_max) = time_range(&s, 1);
    // The whole of both runs, then a zoomed-in window in the middle.
    for (from, to) in [(a_min, b_max), (0.05, 0.0625)] {
        let v = common::served_json(&s, &compare_url((from, to), (from, to), 16384));
        assert_eq!(
            v["exact"], true,
            "no shadow at 16384 pixels: {}",
            v["shadows"]
        );
        let cli = stats_compare(&a, &b, (from, to));
        let what = format!("[{from}, {to}]");
        assert_rows_equal(
            &rows(&v, "timelines"),
            &rows(&cli, "timelines"),
            1e-12,
            &what,
        );
        assert_rows_equal(&rows(&v, "totals"), &rows(&cli, "totals"), 1e-12, &what);
        assert_eq!(v["a_window"], cli["a_window"]);
        assert_eq!(v["b_window"], cli["b_window"]);
        assert_sorted(&v, "timelines");
        assert_sorted(&v, "totals");
        if from != a_min {
            // The same times of two runs at other speeds: other iterations.
            continue;
        }
        // Over the whole runs, the planted slowdown first, in both tables.
        let first = &v["timelines"][0];
        assert_eq!(
            (&first["name"], &first["timeline"]),
            (&Value::from("Inner"), &Value::from(3)),
            "{what}"
        );
        assert!(first["b"].as_f64().unwrap() > first["a"].as_f64().unwrap());
        assert_eq!(v["totals"][0]["name"], "Inner");
        // Nothing else changed on any timeline (the runs share their seed).
        for r in v["timelines"].as_array().unwrap().iter().skip(1) {
            let change = r["b"].as_f64().unwrap() - r["a"].as_f64().unwrap();
            assert!(change.abs() < 1e-9, "{what}: {r}");
        }
    }
}

#[test]
fn different_windows_equal_the_stats_of_each_window() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = runs(dir.path(), "4000", "64k");
    let s = Service::new(&[a.clone(), b.clone()]).unwrap();
    // Run B's window later and wider, as after aligning at a chosen event.
    let (wa, wb) = ((0.02, 0.05), (0.03, 0.11));
    let v = common::served_json(&s, &compare_url(wa, wb, 16384));
    assert_eq!(v["exact"], true);
    let stats = |path: &Path, (from, to): (f64, f64)| {
        let mut r = slog2_format::Slog2Reader::new(std::io::BufReader::new(
            std::fs::File::open(path).unwrap(),
        ))
        .unwrap();
        let opts = mpelog::stats::Options::default().window(Some(from), Some(to));
        mpelog::stats::slog2(&mut r, &opts).unwrap()
    };
    let c = mpelog::compare::stats(&stats(&a, wa), &stats(&b, wb));
    let theirs = serde_json::to_value(&c).unwrap();
    assert_rows_equal(
        &rows(&v, "timelines"),
        &rows(&theirs, "timelines"),
        1e-12,
        "timelines",
    );
    assert_rows_equal(
        &rows(&v, "totals"),
        &rows(&theirs, "totals"),
        1e-12,
        "totals",
    );
    assert_eq!(v["a_window"], serde_json::json!([wa.0, wa.1]));
    assert_eq!(v["b_window"], serde_json::json!([wb.0, wb.1]));
    // Files the other way round: every change turns round.
    let swapped = common::served_json(
        &s,
        &format!(
            "/api/compare?a=1&b=0&a_from={}&a_to={}&b_from={}&b_to={}&pixels=16384&limit=10000",
            wb.0, wb.1, wa.0, wa.1
        ),
    );
    let (x, y) = (rows(&v, "timelines"), rows(&swapped, "timelines"));
    assert_eq!(x.len(), y.len());
    for (k, r) in &x {
        let t = y[k];
        assert_eq!((r[0], r[1]), (t[1], t[0]), "{k:?}");
    }
}

#[test]
fn zoomed_out_the_shadows_stay_within_one_percent_of_the_row_time() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = runs(dir.path(), "60000", "1k");
    let s = Service::new(&[a.clone(), b.clone()]).unwrap();
    let (a_min, a_max) = time_range(&s, 0);
    let (b_min, b_max) = time_range(&s, 1);
    let v = common::served_json(&s, &compare_url((a_min, a_max), (b_min, b_max), 200));
    assert_eq!(
        v["exact"], false,
        "200 pixels over 60000 events read shadows"
    );
    assert!(v["shadows"][0].as_u64().unwrap() > 0);
    let cli = stats_compare(&a, &b, (a_min, a_max));
    // Run B's window is another: its own stats.
    let b_stats = stats_compare(&b, &b, (b_min, b_max));
    let (ours, a_exact, b_exact) = (
        rows(&v, "timelines"),
        rows(&cli, "timelines"),
        rows(&b_stats, "timelines"),
    );
    let keys: std::collections::BTreeSet<_> = ours
        .keys()
        .chain(a_exact.keys())
        .chain(b_exact.keys())
        .collect();
    for k in keys {
        let (x, y) = ours.get(k).map_or((0.0, 0.0), |r| (r[0], r[1]));
        let ea = a_exact.get(k).map_or(0.0, |r| r[0]);
        let eb = b_exact.get(k).map_or(0.0, |r| r[0]);
        assert!(
            (x - ea).abs() <= 0.01 * (a_max - a_min),
            "A {k:?}: {x} against {ea}"
        );
        assert!(
            (y - eb).abs() <= 0.01 * (b_max - b_min),
            "B {k:?}: {y} against {eb}"
        );
    }
    // Still the planted slowdown first.
    assert_eq!(v["timelines"][0]["name"], "Inner");
    assert_eq!(v["timelines"][0]["timeline"], 3);
}

#[test]
fn limits_pages_and_refusals() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = runs(dir.path(), "2000", "64k");
    let s = Service::new(&[a.clone(), b.clone()]).unwrap();
    let cut = common::served_json(
        &s,
        "/api/compare?a_from=0&a_to=1&b_from=0&b_to=1&pixels=100&limit=2",
    );
    assert_eq!(cut["timelines"].as_array().unwrap().len(), 2);
    assert!(cut["timelines_count"].as_u64().unwrap() > 2);
    assert!(cut["totals"].as_array().unwrap().len() <= 2);
    assert_eq!(cut["files"], serde_json::json!(["a.slog2", "b.slog2"]));
    let status = |s: &Service, url: &str| s.handle("GET", url, None).status;
    let ok = "a_from=0&a_to=1&b_from=0&b_to=1";
    for bad in [
        "/api/compare",
        "/api/compare?a_from=0&a_to=1",
        "/api/compare?a_from=1&a_to=1&b_from=0&b_to=1",
        "/api/compare?a_from=0&a_to=inf&b_from=0&b_to=1",
        "/api/compare?a_from=NaN&a_to=1&b_from=0&b_to=1",
        &format!("/api/compare?{ok}&b=2"),
        &format!("/api/compare?{ok}&a=x"),
        &format!("/api/compare?{ok}&limit=0"),
        &format!("/api/compare?{ok}&limit=10001"),
        &format!("/api/compare?{ok}&pixels=0"),
        &format!("/api/compare?{ok}&file=1"),
        &format!("/api/compare?{ok}&a_from=0"),
        "/viewer?view=1",
    ] {
        assert_eq!(status(&s, bad), 400, "{bad}");
    }
    // Pages: `/` is the one-run viewer unless comparing; `/viewer` always.
    let page = |s: &Service, url: &str| s.handle("GET", url, None).read_body().unwrap();
    assert_eq!(page(&s, "/"), PAGE.as_bytes());
    assert_eq!(page(&s, "/compare"), COMPARE_PAGE.as_bytes());
    let comparing = Service::new(&[a.clone(), b]).unwrap().comparing();
    assert_eq!(page(&comparing, "/"), COMPARE_PAGE.as_bytes());
    assert_eq!(page(&comparing, "/viewer?file=1&embed=1"), PAGE.as_bytes());
    // One file: nothing to compare with.
    let one = Service::new(&[a]).unwrap();
    assert_eq!(status(&one, &format!("/api/compare?{ok}")), 400);
    assert_eq!(status(&one, "/compare"), 404);
    assert_eq!(status(&one, &format!("/api/compare?{ok}&b=0")), 200);
}

#[test]
fn serve_compare_needs_two_traces() {
    let dir = tempfile::tempdir().unwrap();
    let a = synth(dir.path(), "a.clog2", &["--events", "500"]);
    for files in [vec![a.as_str()], vec![a.as_str(), a.as_str(), a.as_str()]] {
        let mut args = vec!["serve"];
        args.extend(&files);
        args.extend(["--compare", "--port", "0"]);
        let o = mpelog(&args);
        assert!(!o.status.success());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("--compare: two traces"), "{err}");
    }
}

/// `rows=A-B` compares the timelines of those rows only (line IDs in
/// ascending order, spec/queries.md §7.2 step 5): their rows are those of the
/// whole comparison, and the totals sum them alone (the page showing some of
/// many timelines asks for its rows, at the cost of those rows).
#[test]
fn rows_compare_those_timelines_only() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = runs(dir.path(), "4000", "64k");
    let s = Service::new(&[a, b]).unwrap();
    let (a_min, a_max) = time_range(&s, 0);
    let url = compare_url((a_min, a_max), (a_min, a_max), 1600);
    let all = rows(&common::served_json(&s, &url), "timelines");
    let some = common::served_json(&s, &format!("{url}&rows=2-3"));
    let part = rows(&some, "timelines");
    let want: Rows = all
        .iter()
        .filter(|((_, t), _)| matches!(t, Some(2 | 3)))
        .map(|(k, v)| (k.clone(), *v))
        .collect();
    assert!(!want.is_empty());
    assert_rows_equal(&part, &want, 1e-12, "rows 2-3");
    // Totals: per name, the sum of the two timelines' seconds.
    for r in some["totals"].as_array().unwrap() {
        let name = r["name"].as_str().unwrap().to_string();
        let sum: f64 = want
            .iter()
            .filter(|((n, _), _)| *n == name)
            .map(|(_, v)| v[0])
            .sum();
        assert!((r["a"].as_f64().unwrap() - sum).abs() < 1e-9, "{name}");
    }
    let none = common::served_json(&s, &format!("{url}&rows=9-12"));
    assert_eq!(none["timelines_count"], 0);
}

/// The runs of the patterns' comparison: `synth --ranks 4 --events 3000
/// --seed 7 --plant-late-sender SECS` (rank 0's send to rank 1 enters SECS
/// after rank 1's receive each iteration), A 1 ms, B 4 ms: B − A is a Late
/// Sender of +3 ms per iteration on timeline 1.
fn late_sender_runs(dir: &Path) -> (String, String, PathBuf, PathBuf) {
    let [(ca, sa), (cb, sb)] = planted_runs(
        dir,
        "3000",
        "64k",
        "--plant-late-sender",
        ["0.001", "0.004"],
    );
    (ca, cb, sa, sb)
}

#[test]
fn patterns_equal_analyze_compare_and_the_planted_late_sender_is_first() {
    let dir = tempfile::tempdir().unwrap();
    let (ca, cb, a, b) = late_sender_runs(dir.path());
    let cli = common::json_of(&["analyze", &ca, "--compare", &cb, "--json"]);
    // The windows of analyze's reports, each run's whole.
    let window = |k: &str| (cli[k][0].as_f64().unwrap(), cli[k][1].as_f64().unwrap());
    let s = common::service_with_waits(&[a.clone(), b.clone()]);
    let v = common::served_json(
        &s,
        &compare_url(window("a_window"), window("b_window"), 1600),
    );
    let p = &v["patterns"];
    for table in ["timelines", "totals"] {
        assert_rows_equal(&rows(p, table), &rows(&cli, table), 1e-9, table);
        assert_sorted(p, table);
    }
    let first = &p["timelines"][0];
    assert_eq!(
        (&first["name"], &first["timeline"]),
        (&Value::from("Late Sender"), &Value::from(1)),
        "{p}"
    );
    assert!(first["b"].as_f64().unwrap() > first["a"].as_f64().unwrap() + 0.1);
    assert_eq!(p["totals"][0]["name"], "Late Sender");
    assert_eq!(
        p["timelines_count"].as_u64().unwrap() as usize,
        rows(&cli, "timelines").len()
    );
    // Cut at `limit` as the categories are; without wait indexes, none.
    let cut = common::served_json(
        &s,
        &format!(
            "{}&limit=1",
            compare_url((0.0, 1.0), (0.0, 1.0), 100).replace("&limit=10000", "")
        ),
    );
    assert_eq!(cut["patterns"]["timelines"].as_array().unwrap().len(), 1);
    let plain = Service::new(&[a, b]).unwrap();
    assert!(
        common::served_json(&plain, &compare_url((0.0, 1.0), (0.0, 1.0), 100))["patterns"]
            .is_null()
    );
}
