//! The same patterns from every form of one trace (issue 43): a CLOG2 trace,
//! its SLOG-2 conversion, its annotation and its OTF2 conversion give, pattern
//! by pattern and timeline by timeline, the same seconds and counts.
//!
//! mpelog has no OTF2 writer: tests/clog2_to_otf2.py writes the trace's
//! drawables (`mpelog window --json`, with the line-ID maps of `mpelog
//! print`) as an OTF2 archive through libotf2 (the `otf2` Python package):
//! MPI regions, MpiSend/MpiRecv per arrow, MpiCollectiveBegin/End per
//! collective call in the communicator of its line. OTF2 times are whole
//! nanoseconds (the script rounds each time to the nearest one), so a wait
//! there may differ by 1 ns per instance: the OTF2 form is compared to
//! `count` ns, the other forms (the same doubles) to 1 ns.
//!
//! Skips with a message when python3 or the `otf2` package is missing
//! (unless `CI` is set), and the corpus cases when `MPELOG_CORPUS` is unset.

mod common;

use common::*;
use serde_json::Value as J;
use std::collections::BTreeMap;
use std::path::Path;

/// Pattern id → (count, seconds per timeline).
type Patterns = BTreeMap<String, (u64, BTreeMap<String, f64>)>;

fn patterns(v: &J) -> Patterns {
    v["patterns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["id"].as_str().unwrap().to_string(),
                (p["count"].as_u64().unwrap(), common::per_timeline(p)),
            )
        })
        .collect()
}

fn analyze(file: &str) -> J {
    common::json_of(&["analyze", file, "--json"])
}

/// The OTF2 conversion of `clog2` (in `dir`), or `None` when the `otf2`
/// package is missing.
fn otf2_of(clog2: &str, slog2: &str, dir: &Path) -> Option<String> {
    let drawables = dir.join("drawables.jsonl");
    std::fs::write(&drawables, stdout(&mpelog(&["window", "--json", clog2]))).unwrap();
    let maps = dir.join("maps.txt");
    std::fs::write(&maps, stdout(&mpelog(&["print", slog2]))).unwrap();
    let out = dir.join("otf2");
    let said = python_script(
        "tests/clog2_to_otf2.py",
        &[drawables.as_os_str(), maps.as_os_str(), out.as_os_str()],
        "NO-OTF2",
        "otf2",
    )?;
    assert!(said.contains("left_out=0"), "every state nested: {said}");
    Some(out.join("traces.otf2").to_str().unwrap().to_string())
}

/// `b` has `a`'s patterns, counts and seconds per timeline (to `tol` per
/// instance of the pattern), and its counts and unmatched.
fn assert_same(a: &J, b: &J, tol: f64, what: &str) {
    let (pa, pb) = (patterns(a), patterns(b));
    assert_eq!(
        pa.keys().collect::<Vec<_>>(),
        pb.keys().collect::<Vec<_>>(),
        "{what}: the patterns found"
    );
    for (id, (count, per)) in &pa {
        let (count_b, per_b) = &pb[id];
        assert_eq!(count, count_b, "{what}: {id} instances");
        assert_eq!(
            per.keys().collect::<Vec<_>>(),
            per_b.keys().collect::<Vec<_>>(),
            "{what}: {id} timelines"
        );
        let allowed = tol * (*count as f64) + 1e-12;
        for (t, s) in per {
            let d = (s - per_b[t]).abs();
            assert!(
                d <= allowed,
                "{what}: {id} on timeline {t}: {s} != {} (by {d:e} s)",
                per_b[t]
            );
        }
    }
    assert_eq!(a["counts"], b["counts"], "{what}: counts");
    for k in [
        "message_ends_outside_calls",
        "p2p_clock_violations",
        "collective_clock_violations",
        "incomplete_collectives",
        "mismatched_collectives",
    ] {
        assert_eq!(a["unmatched"][k], b["unmatched"][k], "{what}: {k}");
    }
}

/// Every form of `clog2` gives its patterns; returns its report.
fn check_forms(clog2: &str, dir: &Path) -> Option<J> {
    let slog2 = dir.join("t.slog2");
    let slog2 = slog2.to_str().unwrap();
    let o = mpelog(&["convert", clog2, "-o", slog2]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let idx = dir.join("t.clog2.idx");
    let idx = idx.to_str().unwrap();
    let o = mpelog(&["annotate", clog2, "-o", idx]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let a = analyze(clog2);
    assert_same(&a, &analyze(slog2), 1e-9, "SLOG-2");
    let idx_report: J = serde_json::from_str(&stdout(&mpelog(&[
        "analyze", idx, "--trace", clog2, "--json",
    ])))
    .unwrap();
    assert_same(&a, &idx_report, 1e-9, "annotation");
    let otf2 = otf2_of(clog2, slog2, dir)?;
    assert_same(&a, &analyze(&otf2), 1e-9, "OTF2");
    Some(a)
}

#[test]
fn a_synth_trace_with_planted_waits_gives_the_same_patterns_in_every_form() {
    let tmp = tempfile::tempdir().unwrap();
    let clog2 = synth(
        tmp.path(),
        "t.clog2",
        &[
            "--ranks",
            "4",
            "--events",
            "3000",
            "--plant-late-sender",
            "0.025",
            "--plant-barrier-skew",
            "0.004",
            "--plant-imbalance",
            "0.010",
        ],
    );
    let Some(a) = check_forms(&clog2, tmp.path()) else {
        return;
    };
    let p = patterns(&a);
    // The planted waits are there (so the comparison is not of nothing).
    assert!(p["mpi_latesender"].0 > 0 && p["mpi_barrier_wait"].0 > 0);
}

#[test]
fn corpus_p2p_and_colls_give_the_same_patterns_in_every_form() {
    let Some(c) = corpus() else {
        eprintln!("skipped: MPELOG_CORPUS not set");
        return;
    };
    for name in ["p2p_n4", "colls_n4"] {
        let tmp = tempfile::tempdir().unwrap();
        let clog2 = corpus_file(&c, &format!("mpe/{name}.clog2"));
        let Some(a) = check_forms(&clog2, tmp.path()) else {
            return;
        };
        // Every collective matched, on its own communicator (colls_n4 has
        // collectives on split, dup'd and created communicators).
        assert_eq!(a["unmatched"]["mismatched_collectives"], 0, "{name}");
        assert_eq!(a["unmatched"]["incomplete_collectives"], 0, "{name}");
        assert!(a["counts"]["messages"].as_u64().unwrap() > 0, "{name}");
    }
}
