//! The viewer's waits over HTTP (spec/queries.md §7.3): `/api/waits` ranks
//! the patterns of a window as `mpelog analyze --from --to --json` does (the
//! same seconds per pattern and timeline), lists the worst waits or one
//! timeline's; `/api/window?…&waits=1` carries the summary's waits (§6.7);
//! without a wait index neither.
//!
//! The run: `mpelog synth --ranks 4 --events 3000 --seed 3
//! --plant-late-sender 0.002 --plant-barrier-skew 0.001`: every iteration
//! rank 0's send to rank 1 enters 2 ms after rank 1's receive (a Late Sender
//! of 2 ms on timeline 1, partner 0), and rank r enters the barrier r ms
//! after rank 0 (Wait at Barrier of (3 − r) ms on rank r, partner 3).

mod common;

use common::{mpelog, stdout, synth};
use mpelog::serve::Service;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn run(dir: &Path) -> (String, PathBuf) {
    let clog2 = synth(
        dir,
        "ls.clog2",
        &[
            "--ranks",
            "4",
            "--events",
            "3000",
            "--seed",
            "3",
            "--plant-late-sender",
            "0.002",
            "--plant-barrier-skew",
            "0.001",
        ],
    );
    let slog2 = dir.join("ls.slog2");
    let o = mpelog(&["convert", &clog2, "-o", slog2.to_str().unwrap()]);
    assert!(o.status.success());
    (clog2, slog2)
}

/// The service of `slog2` with its wait index (the analysis of the file, as
/// `mpelog serve` makes it without an index beside the trace).
fn service(slog2: &Path) -> Service {
    common::service_with_waits(&[slog2.to_path_buf()])
}

/// (name → (seconds, per timeline)) of a JSON `patterns` list.
fn patterns(v: &Value) -> BTreeMap<String, (f64, BTreeMap<String, f64>)> {
    v["patterns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let per = p["per_timeline"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, x)| (k.clone(), x.as_f64().unwrap()))
                .collect();
            (
                p["name"].as_str().unwrap().to_string(),
                (p["seconds"].as_f64().unwrap(), per),
            )
        })
        .collect()
}

fn assert_same_patterns(ours: &Value, analyze: &Value, what: &str) {
    let (x, y) = (patterns(ours), patterns(analyze));
    assert_eq!(
        x.keys().collect::<Vec<_>>(),
        y.keys().collect::<Vec<_>>(),
        "{what}"
    );
    for (name, (s, per)) in &x {
        let (t, theirs) = &y[name];
        assert!((s - t).abs() < 1e-9, "{what}: {name} {s} against {t}");
        assert_eq!(
            per.keys().collect::<Vec<_>>(),
            theirs.keys().collect::<Vec<_>>()
        );
        for (k, a) in per {
            assert!((a - theirs[k]).abs() < 1e-9, "{what}: {name} on {k}");
        }
    }
    // Ranked by seconds.
    let secs: Vec<f64> = ours["patterns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["seconds"].as_f64().unwrap())
        .collect();
    assert!(secs.windows(2).all(|w| w[0] >= w[1]), "{what}: {secs:?}");
}

#[test]
fn patterns_of_a_window_equal_analyze_and_instances_are_the_worst() {
    let dir = tempfile::tempdir().unwrap();
    let (clog2, slog2) = run(dir.path());
    let s = service(&slog2);
    for (from, to) in [(0.0, 1.0), (0.01, 0.05), (0.0305, 0.0335)] {
        let v = common::served_json(&s, &format!("/api/waits?from={from}&to={to}&instances=5"));
        let analyze: Value = serde_json::from_str(&stdout(&mpelog(&[
            "analyze",
            &clog2,
            "--from",
            &from.to_string(),
            "--to",
            &to.to_string(),
            "--json",
        ])))
        .unwrap();
        let what = format!("[{from}, {to}]");
        assert_same_patterns(&v, &analyze, &what);
        assert!(!v["patterns"].as_array().unwrap().is_empty(), "{what}");
        // The worst waits, largest first, each inside the window.
        let inst = v["instances"].as_array().unwrap();
        assert!(!inst.is_empty() && inst.len() <= 5);
        let secs: Vec<f64> = inst
            .iter()
            .map(|w| w["seconds"].as_f64().unwrap())
            .collect();
        assert!(secs.windows(2).all(|w| w[0] >= w[1]), "{secs:?}");
        for w in inst {
            assert!(w["start"].as_f64().unwrap() < to && w["end"].as_f64().unwrap() > from);
        }
    }
    // The whole run: the planted waits are the worst ones.
    let v = common::served_json(&s, "/api/waits?from=0&to=1&instances=1");
    let worst = &v["instances"][0];
    assert_eq!(worst["pattern"], "Wait at Barrier");
    assert_eq!(
        (&worst["timeline"], &worst["partner"]),
        (&Value::from(0), &Value::from(3))
    );
    assert!((worst["seconds"].as_f64().unwrap() - 0.003).abs() < 1e-9);
    // One timeline's: rank 1's late senders, 2 ms each, caused by rank 0.
    let v = common::served_json(&s, "/api/waits?from=0&to=1&line=1&instances=1000");
    let ls: Vec<&Value> = v["instances"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["pattern"] == "Late Sender")
        .collect();
    assert!(!ls.is_empty());
    for w in &ls {
        assert_eq!(
            (&w["timeline"], &w["partner"]),
            (&Value::from(1), &Value::from(0))
        );
        assert!((w["seconds"].as_f64().unwrap() - 0.002).abs() < 1e-9);
        assert_eq!(w["call"], "MPI_Recv");
    }
    let starts: Vec<f64> = v["instances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["start"].as_f64().unwrap())
        .collect();
    assert!(starts.windows(2).all(|w| w[0] <= w[1]), "in time order");
}

#[test]
fn window_answers_carry_waits_only_when_asked_and_indexed() {
    let dir = tempfile::tempdir().unwrap();
    let (_, slog2) = run(dir.path());
    let with = service(&slog2);
    let without = Service::new(std::slice::from_ref(&slog2)).unwrap();
    let url = "/api/window?from=0.01&to=0.05&pixels=400";
    let v = common::served_json(&with, &format!("{url}&waits=1"));
    assert!(!v["waits"].as_array().unwrap().is_empty());
    assert!(v["wait_patterns"].is_array() && v["critical_path"].is_array());
    for plain in [
        common::served_json(&with, url),
        common::served_json(&without, &format!("{url}&waits=1")),
    ] {
        assert!(plain.get("waits").is_none());
    }
    // The binary form: version 3 with waits, 2 without.
    let bin = |s: &Service, u: &str| s.handle("GET", u, None).read_body().unwrap()[4];
    assert_eq!(bin(&with, &format!("{url}&format=bin&waits=1")), 3);
    assert_eq!(bin(&with, &format!("{url}&format=bin")), 2);
    assert_eq!(bin(&without, &format!("{url}&format=bin&waits=1")), 2);
    // The info says whether there are waits, and names every pattern.
    let info = common::served_json(&with, "/api/info");
    assert_eq!(info["waits"], true);
    assert_eq!(info["patterns"].as_array().unwrap().len(), 14);
    assert_eq!(common::served_json(&without, "/api/info")["waits"], false);
    // Refusals.
    assert_eq!(
        without.handle("GET", "/api/waits?from=0&to=1", None).status,
        404
    );
    for bad in [
        "/api/waits",
        "/api/waits?from=1&to=0",
        "/api/waits?from=0&to=1&instances=1001",
        "/api/waits?from=0&to=1&line=x",
        "/api/waits?from=0&to=1&rows=0-1",
        "/api/window?from=0&to=1&waits=2",
    ] {
        assert_eq!(with.handle("GET", bad, None).status, 400, "{bad}");
    }
}

#[test]
fn causes_are_those_render_marks_and_the_palette_is_renders() {
    let dir = tempfile::tempdir().unwrap();
    let (_, slog2) = run(dir.path());
    let s = service(&slog2);
    // Zoomed out: hundreds of waits a column wide, too many to tell apart.
    let v = common::served_json(&s, "/api/waits?from=0&to=1&pixels=1000");
    assert_eq!(v["causes"], serde_json::json!([]), "none on the whole run");
    assert!(common::served_json(&s, "/api/waits?from=0&to=1")
        .get("causes")
        .is_none());
    // Three iterations: every wait a column wide, each with its cause.
    let (from, to, px) = (0.1, 0.115, 1000);
    let v = common::served_json(&s, &format!("/api/waits?from={from}&to={to}&pixels={px}"));
    let causes = v["causes"].as_array().unwrap();
    let ix = common::wait_index(&slog2);
    let marked = mpelog::render::marked_causes(&ix, from, to, px);
    assert!(!marked.is_empty() && marked.len() <= mpelog::render::CAUSES);
    assert_eq!(causes.len(), marked.len());
    for (c, (secs, w)) in causes.iter().zip(&marked) {
        assert!(*secs >= (to - from) / f64::from(px));
        assert_eq!(c["timeline"], w.timeline);
        assert_eq!(c["partner"], serde_json::json!(w.partner));
        assert_eq!(c["cause"].as_f64().unwrap(), w.cause);
        assert_eq!(c["code"], w.pattern.code());
    }
    let names: Vec<&str> = causes
        .iter()
        .map(|c| c["pattern"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"Late Sender") && names.contains(&"Wait at Barrier"),
        "{names:?}"
    );
    // The palette: render's, pattern by pattern.
    let info = common::served_json(&s, "/api/info");
    for p in info["patterns"].as_array().unwrap() {
        let pat = mpelog::analysis::Pattern::from_code(p["code"].as_u64().unwrap() as u8).unwrap();
        assert_eq!(p["colour"], mpelog::render::pattern_colour(pat));
        assert_eq!(
            p["lean"],
            if mpelog::render::leans_right(pat) {
                "right"
            } else {
                "left"
            }
        );
    }
    assert_eq!(info["palette"]["path"], mpelog::render::PATH_COLOUR);
    for bad in ["pixels=0", "pixels=16385", "pixels=x"] {
        let u = format!("/api/waits?from=0&to=1&{bad}");
        assert_eq!(s.handle("GET", &u, None).status, 400, "{bad}");
    }
}
