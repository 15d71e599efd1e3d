//! `mpelog analyze` on the command line: the JSON, CSV and text reports, every
//! input `stats` takes, what could not be matched, and the corpus.

#[path = "common/analysis.rs"]
mod analysis_common;
mod common;

use analysis_common::*;
use common::*;
use serde_json::Value;

fn json(args: &[&str]) -> Value {
    serde_json::from_str(&stdout(&mpelog(args))).unwrap()
}

fn pattern<'a>(v: &'a Value, name: &str) -> Option<&'a Value> {
    v["patterns"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
}

fn write(dir: &std::path::Path, name: &str, t: &Trace) -> String {
    let p = dir.join(name);
    std::fs::write(&p, t.bytes()).unwrap();
    p.to_str().unwrap().to_string()
}

/// A late sender (25 ms) and a barrier (8 + 5 + 0 ms) on three ranks.
fn sample() -> Trace {
    let mut t = Trace::new(3);
    t.state(1, "MPI_Recv", 5.0 * MS, 31.0 * MS)
        .state(0, "MPI_Send", 30.0 * MS, 30.5 * MS)
        .message(0, 30.1 * MS, 1, 30.9 * MS, 7)
        .collective(
            "MPI_Barrier",
            &[41.0 * MS, 44.0 * MS, 49.0 * MS],
            &[50.0 * MS, 50.0 * MS, 50.0 * MS],
        );
    t
}

#[test]
fn json_has_patterns_critical_path_and_imbalance() {
    let tmp = tempfile::tempdir().unwrap();
    let f = write(tmp.path(), "s.clog2", &sample());
    let v = json(&["analyze", &f, "--json"]);
    let ls = pattern(&v, "Late Sender").expect("late sender");
    close(ls["seconds"].as_f64().unwrap(), 25.0 * MS, "seconds");
    close(
        ls["per_timeline"]["1"].as_f64().unwrap(),
        25.0 * MS,
        "per timeline",
    );
    assert_eq!(ls["per_call_path"][0]["call_path"], "MPI_Recv");
    assert_eq!(ls["instances"][0]["partner"], 0);
    let w = pattern(&v, "Wait at Barrier").expect("barrier");
    close(w["seconds"].as_f64().unwrap(), 13.0 * MS, "barrier");
    // Ranked by seconds.
    assert_eq!(v["patterns"][0]["name"], "Late Sender");
    assert!(v["critical_path"]["seconds"].as_f64().unwrap() > 0.0);
    assert!(v["imbalance"]
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i["category"] == "MPI_Recv"));
    assert_eq!(v["unmatched"]["dropped_sends"], 0);
}

#[test]
fn csv_and_text_say_the_same() {
    let tmp = tempfile::tempdir().unwrap();
    let f = write(tmp.path(), "s.clog2", &sample());
    let csv = stdout(&mpelog(&["analyze", &f, "--csv"]));
    assert!(csv.starts_with("table,pattern,key,seconds,"));
    let row = csv
        .lines()
        .find(|l| l.starts_with("pattern,\"Late Sender\","))
        .expect("a pattern row");
    let secs: f64 = row.split(',').nth(3).unwrap().parse().unwrap();
    close(secs, 25.0 * MS, "csv");
    let text = stdout(&mpelog(&["analyze", &f]));
    assert!(text.contains("Late Sender"), "{text}");
    assert!(text.contains("0.025000"), "{text}");
    assert!(text.contains("critical path:"), "{text}");
    assert!(text.contains("load imbalance"), "{text}");
}

/// The CLOG2 trace, its SLOG-2 conversion and its annotation give the same
/// patterns.
#[test]
fn every_input_form_gives_the_same_patterns() {
    let tmp = tempfile::tempdir().unwrap();
    let clog2 = synth(
        tmp.path(),
        "g.clog2",
        &["--ranks", "4", "--events", "4000", "--seed", "3"],
    );
    let slog2 = tmp.path().join("g.slog2");
    let slog2 = slog2.to_str().unwrap();
    assert!(
        mpelog(&["convert", &clog2, "-o", slog2, "--leaf-bytes", "2k"])
            .status
            .success()
    );
    assert!(mpelog(&["annotate", &clog2]).status.success());
    let idx = format!("{clog2}.idx");
    let a = json(&["analyze", &clog2, "--json"]);
    assert!(!a["patterns"].as_array().unwrap().is_empty());
    for other in [slog2, idx.as_str()] {
        let b = json(&["analyze", other, "--json"]);
        for p in a["patterns"].as_array().unwrap() {
            let q = pattern(&b, p["name"].as_str().unwrap()).expect("the same pattern");
            close(
                p["seconds"].as_f64().unwrap(),
                q["seconds"].as_f64().unwrap(),
                other,
            );
            assert_eq!(p["count"], q["count"]);
        }
        assert_eq!(
            a["patterns"].as_array().unwrap().len(),
            b["patterns"].as_array().unwrap().len()
        );
        close(
            a["critical_path"]["seconds"].as_f64().unwrap(),
            b["critical_path"]["seconds"].as_f64().unwrap(),
            "critical path",
        );
    }
}

/// A send never received and a rank missing from the last barrier: the
/// report says so, the rest is analysed, the exit status is 0.
#[test]
fn bad_input_gives_a_report_of_what_was_not_matched() {
    let tmp = tempfile::tempdir().unwrap();
    let mut t = sample();
    t.collective(
        "MPI_Barrier",
        &[51.0 * MS, 52.0 * MS],
        &[53.0 * MS, 53.0 * MS],
    )
    .state(0, "MPI_Send", 54.0 * MS, 54.5 * MS)
    .send_only(0, 54.1 * MS, 1, 9);
    let f = write(tmp.path(), "bad.clog2", &t);
    let v = json(&["analyze", &f, "--json"]);
    assert_eq!(v["unmatched"]["dropped_sends"], 1);
    assert_eq!(v["unmatched"]["incomplete_collectives"], 1);
    close(
        pattern(&v, "Wait at Barrier").unwrap()["seconds"]
            .as_f64()
            .unwrap(),
        13.0 * MS,
        "the complete barrier",
    );
    let text = stdout(&mpelog(&["analyze", &f]));
    assert!(text.contains("1 sends without a receive"), "{text}");
    assert!(text.contains("1 collective instances incomplete"), "{text}");
    assert!(
        text.contains("incomplete collective #1 of communicator 0"),
        "{text}"
    );
}

/// A cut CLOG2 file is an error of the reader (as for `stats`), not a panic.
#[test]
fn a_damaged_file_is_an_error_not_a_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let bytes = sample().bytes();
    let p = tmp.path().join("cut.clog2");
    std::fs::write(&p, &bytes[..bytes.len() / 2 + 100]).unwrap();
    let o = mpelog(&["analyze", p.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("mpelog: "), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// Planted waits through the command line: `synth --plant-*`, then `analyze`.
#[test]
fn synth_plants_what_analyze_finds() {
    let tmp = tempfile::tempdir().unwrap();
    let f = synth(
        tmp.path(),
        "p.clog2",
        &[
            "--ranks",
            "4",
            "--events",
            "1000",
            "--plant-late-sender",
            "0.01",
            "--plant-barrier-skew",
            "0.001",
        ],
    );
    let v = json(&["analyze", &f, "--json"]);
    let ls = pattern(&v, "Late Sender").unwrap();
    let count = ls["count"].as_u64().unwrap() as f64;
    close(ls["seconds"].as_f64().unwrap(), 0.01 * count, "late sender");
    let w = pattern(&v, "Wait at Barrier").unwrap()["seconds"]
        .as_f64()
        .unwrap();
    close(
        w,
        0.001 * 6.0 * count,
        "skewed barrier: (3 + 2 + 1) skews per iteration",
    );
}

/// The corpus: every report reads, and a CLOG2 file and its SLOG-2 file agree.
#[test]
fn corpus_traces_analyse_the_same_as_their_conversions() {
    let Some(dir) = corpus() else {
        eprintln!("SKIPPED corpus tests (MPELOG_CORPUS is not set): analysis_cli");
        return;
    };
    for name in ["p2p_n4", "colls_n4", "many_events_n4"] {
        let clog2 = corpus_file(&dir, &format!("mpe/{name}.clog2"));
        let slog2 = corpus_file(&dir, &format!("mpe/{name}.slog2"));
        let a = json(&["analyze", &clog2, "--json"]);
        let b = json(&["analyze", &slog2, "--json"]);
        assert!(a["counts"]["mpi_calls"].as_u64().unwrap() > 0, "{name}");
        for p in a["patterns"].as_array().unwrap() {
            let q = pattern(&b, p["name"].as_str().unwrap()).expect("the same pattern");
            close(
                p["seconds"].as_f64().unwrap(),
                q["seconds"].as_f64().unwrap(),
                name,
            );
        }
        let text = stdout(&mpelog(&["analyze", &clog2]));
        assert!(text.contains("critical path"), "{name}");
    }
}

/// A real OTF2 trace (Score-P's ping-pong): Wait at Finalize and
/// Initialization Completion worked out from the same trace's pipit CSV
/// export (the MPI_Finalize enters and MPI_Init leaves, in ns), independently
/// of the analysis.
#[test]
fn otf2_init_and_finalize_match_the_exported_times() {
    let Some(dir) = corpus() else {
        eprintln!("SKIPPED corpus tests (MPELOG_CORPUS is not set): analysis_cli otf2");
        return;
    };
    let trace = corpus_file(&dir, "otf2/ping-pong-otf2/traces.otf2");
    let tmp = tempfile::tempdir().unwrap();
    let csv = tmp.path().join("pp.csv");
    let csv = csv.to_str().unwrap();
    assert!(mpelog(&["export", &trace, "-o", csv]).status.success());
    let rows = std::fs::read_to_string(csv).unwrap();
    let times = |kind: &str, name: &str| -> Vec<f64> {
        let mut t: Vec<f64> = rows
            .lines()
            .filter(|l| l.contains(&format!(",{kind},{name},")))
            .map(|l| l.split(',').next().unwrap().parse::<f64>().unwrap() * 1e-9)
            .collect();
        t.sort_by(f64::total_cmp);
        t
    };
    let fin = times("Enter", "MPI_Finalize");
    let init = times("Leave", "MPI_Init");
    assert_eq!((fin.len(), init.len()), (2, 2));
    let v = json(&["analyze", &trace, "--json"]);
    let secs = |name: &str| pattern(&v, name).unwrap()["seconds"].as_f64().unwrap();
    // Exported times are whole nanoseconds: 1 ns each way.
    assert!((secs("Wait at Finalize") - (fin[1] - fin[0])).abs() <= 2e-9);
    assert!((secs("Initialization Completion") - (init[1] - init[0])).abs() <= 2e-9);
    assert_eq!(v["unmatched"]["message_ends_outside_calls"], 0);
    assert_eq!(v["counts"]["messages"], 16);
}

/// `--from/--to` is a time window: a wait state counts its part inside it
/// (the late receive waits from 5 ms, before the window; the barrier is
/// entered at 41, 44 and 49 ms, inside it).
#[test]
fn the_window_selects_wait_states() {
    let tmp = tempfile::tempdir().unwrap();
    let f = write(tmp.path(), "s.clog2", &sample());
    let v = json(&["analyze", &f, "--from", "0.040", "--to", "0.060", "--json"]);
    assert!(pattern(&v, "Late Sender").is_none());
    close(
        pattern(&v, "Wait at Barrier").unwrap()["seconds"]
            .as_f64()
            .unwrap(),
        13.0 * MS,
        "barrier in the window",
    );
    close(v["from"].as_f64().unwrap(), 0.040, "from");
    close(
        v["total_seconds"].as_f64().unwrap(),
        0.020 * 3.0,
        "window x timelines",
    );
    let v = json(&["analyze", &f, "--to", "0.040", "--json"]);
    assert!(pattern(&v, "Wait at Barrier").is_none());
    assert!(pattern(&v, "Late Sender").is_some());
}
