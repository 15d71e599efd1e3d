//! Hand-worked OTF2 traces written by libotf2: tests/otf2_scenarios.py
//! writes each scenario below as an archive with the `otf2` Python package,
//! and `mpelog analyze --json` on it gives, pattern by pattern and timeline
//! by timeline, the answer worked out here from the pattern's definition
//! (spec/analysis.md §5), to 1 ns; no other pattern has a wait state. The
//! archive's SLOG-2 conversion (`mpelog convert`) gives the same. Skips with
//! a message when python3 or the `otf2` package is missing, unless `CI` is
//! set.
//!
//! Scalasca 2.6's `scout`, built by hand outside the repository (never
//! committed) and run on archives of the same scenarios (the same
//! definitions and events), is the independent oracle. Its per-rank values
//! (ms, summed over call paths), which all equal the worked answers:
//!
//! | scenario | scout |
//! |---|---|
//! | late sender | mpi_latesender [25, 0] |
//! | wrong order, different source | mpi_latesender = mpi_latesender_wo = mpi_lswo_different [15, 0, 0] |
//! | wrong order, same source | mpi_latesender = mpi_latesender_wo = mpi_lswo_same [15, 0] |
//! | barrier 1/4/9 ms | mpi_barrier_wait [8, 5, 0] (no completion) |
//! | Allreduce | mpi_wait_nxn [8, 4, 0], mpi_nxn_completion [0, 1, 2] |
//! | Bcast, root late | mpi_latebroadcast [0, 15, 8] |
//! | clock violation | mpi_latesender [2, 0] (clamped to the receive's leave) |
//! | Early Reduce | mpi_earlyreduce [8, 0, 0] |
//! | Late Receiver | mpi_latereceiver [0, 25] |
//! | Early Scan | mpi_earlyscan [0, 7, 3] |
//! | Init/Finalize | mpi_init_completion [0, 0.5, 1.5], mpi_finalize_wait [10, 5, 0] |
//! | sub-communicators A = [2, 0], B = [1, 3] | mpi_barrier_wait [15, 10, 1, 0], mpi_latebroadcast [3, 0, 0, 0] |

mod common;

use common::*;
use serde_json::Value as J;
use std::collections::BTreeMap;
use std::path::Path;

const MS: f64 = 1e-3;

/// A scenario's worked answer: (pattern id, seconds per timeline 0, 1, …).
struct Worked {
    name: &'static str,
    answer: Vec<(&'static str, Vec<f64>)>,
    clock_violations: u64,
}

fn ms(v: &[f64]) -> Vec<f64> {
    v.iter().map(|x| x * MS).collect()
}

/// The worked answers (times as tests/otf2_scenarios.py writes them, in ms).
fn worked() -> Vec<Worked> {
    let w = |name, answer: Vec<(&'static str, Vec<f64>)>| Worked {
        name,
        answer,
        clock_violations: 0,
    };
    vec![
        // Rank 0 receives from 5 ms; rank 1's send enters at 30 ms.
        w(
            "late_sender",
            vec![("mpi_latesender", ms(&[30.0 - 5.0, 0.0]))],
        ),
        // Rank 0 waits in its first receive (5..21) for rank 1's send at 20
        // ms while rank 2's message, sent at 2 ms, is already there: all of
        // it wrong order, from a different source.
        w(
            "wrong_order_different_source",
            ["mpi_latesender", "mpi_latesender_wo", "mpi_lswo_different"]
                .into_iter()
                .map(|p| (p, ms(&[20.0 - 5.0, 0.0, 0.0])))
                .collect(),
        ),
        // The same, the earlier message (tag 1, sent at 2 ms) from the same
        // source.
        w(
            "wrong_order_same_source",
            ["mpi_latesender", "mpi_latesender_wo", "mpi_lswo_same"]
                .into_iter()
                .map(|p| (p, ms(&[20.0 - 5.0, 0.0])))
                .collect(),
        ),
        // Entered at 1, 4, 9 ms, all leave at 10: the last enter minus each.
        w(
            "barrier",
            vec![("mpi_barrier_wait", ms(&[9.0 - 1.0, 9.0 - 4.0, 0.0]))],
        ),
        // Entered at 2, 6, 10, left at 11, 12, 13: waits until 10; then
        // completion = leave − max(earliest leave 11, min(latest enter, leave)).
        w(
            "allreduce",
            vec![
                ("mpi_wait_nxn", ms(&[10.0 - 2.0, 10.0 - 6.0, 0.0])),
                ("mpi_nxn_completion", ms(&[0.0, 12.0 - 11.0, 13.0 - 11.0])),
            ],
        ),
        // The root (0) enters at 20 ms; the others at 5 and 12.
        w(
            "late_broadcast",
            vec![("mpi_latebroadcast", ms(&[0.0, 20.0 - 5.0, 20.0 - 12.0]))],
        ),
        // The receive (10..12) ends before its send enters (15): one
        // violation, the wait clamped to the receive's leave.
        Worked {
            name: "clock_violation",
            answer: vec![("mpi_latesender", ms(&[12.0 - 10.0, 0.0]))],
            clock_violations: 1,
        },
        // The root enters at 1 and leaves at 10; the last sender enters at 9.
        w(
            "early_reduce",
            vec![("mpi_earlyreduce", ms(&[9.0_f64.min(10.0) - 1.0, 0.0, 0.0]))],
        ),
        // The send enters at 5 ms and leaves at 31, after the receive is
        // posted at 30.
        w(
            "late_receiver",
            vec![("mpi_latereceiver", ms(&[0.0, 30.0 - 5.0]))],
        ),
        // Rank r waits for the last of ranks 0..r to enter (9, 2, 6 ms).
        w(
            "early_scan",
            vec![("mpi_earlyscan", ms(&[0.0, 9.0 - 2.0, 9.0 - 6.0]))],
        ),
        // MPI_Init leaves at 0.5, 1, 2 ms; MPI_Finalize entered at 10, 15,
        // 20, all leave at 21.
        w(
            "init_finalize",
            vec![
                ("mpi_init_completion", ms(&[0.0, 1.0 - 0.5, 2.0 - 0.5])),
                ("mpi_finalize_wait", ms(&[20.0 - 10.0, 20.0 - 15.0, 0.0])),
            ],
        ),
        // Barriers on A = world ranks [2, 0] (entered 1/6, then 12/19 ms)
        // and B = [1, 3] (2/7, then 11/14 ms) interleave; each is matched
        // with its own members, then the world barrier (22, 23, 24, 25 ms).
        // A's Bcast root is A's rank 0, world rank 2 (entered at 30 ms);
        // world rank 0 enters at 27. Taken as world barriers, the first four
        // calls would be one instance (latest enter 7 ms).
        w(
            "sub_communicators",
            vec![
                (
                    "mpi_barrier_wait",
                    ms(&[
                        (6.0 - 1.0) + (19.0 - 12.0) + (25.0 - 22.0),
                        (7.0 - 2.0) + (14.0 - 11.0) + (25.0 - 23.0),
                        25.0 - 24.0,
                        0.0,
                    ]),
                ),
                ("mpi_latebroadcast", ms(&[30.0 - 27.0, 0.0, 0.0, 0.0])),
            ],
        ),
    ]
}

/// Writes the scenarios' archives into `dir`; `None` (after saying why)
/// when python3 or the `otf2` package is missing outside CI.
fn write_scenarios(dir: &Path) -> Option<Vec<String>> {
    common::python_script(
        "tests/otf2_scenarios.py",
        &[dir.as_os_str()],
        "NO-OTF2",
        "otf2",
    )
    .map(|text| text.lines().map(str::to_string).collect())
}

/// Pattern id → seconds per timeline, of an `analyze --json` report.
fn patterns(v: &J) -> BTreeMap<String, BTreeMap<i64, f64>> {
    v["patterns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["id"].as_str().unwrap().to_string(),
                p["per_timeline"]
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(t, s)| (t.parse().unwrap(), s.as_f64().unwrap()))
                    .collect(),
            )
        })
        .collect()
}

fn json(file: &str) -> J {
    serde_json::from_str(&stdout(&mpelog(&["analyze", file, "--json"]))).unwrap()
}

/// `have` is the worked answer to 1 ns, and has no other pattern.
fn assert_worked(have: &J, w: &Worked, what: &str) {
    let got = patterns(have);
    let names: Vec<&str> = got.keys().map(String::as_str).collect();
    let mut want_names: Vec<&str> = w.answer.iter().map(|(p, _)| *p).collect();
    want_names.sort_unstable();
    assert_eq!(names, want_names, "{what}: the patterns found");
    for (p, per_rank) in &w.answer {
        for (rank, want) in per_rank.iter().enumerate() {
            let have = got[*p].get(&(rank as i64)).copied().unwrap_or(0.0);
            assert!(
                (have - want).abs() <= 1e-9,
                "{what}: {p} on timeline {rank}: {have} != {want}"
            );
        }
        assert!(
            got[*p].keys().all(|&t| (t as usize) < per_rank.len()),
            "{what}: {p} on a timeline the scenario does not have"
        );
    }
    assert_eq!(
        have["unmatched"]["p2p_clock_violations"], w.clock_violations,
        "{what}: clock violations"
    );
    assert_eq!(have["unmatched"]["incomplete_collectives"], 0, "{what}");
    assert_eq!(have["unmatched"]["mismatched_collectives"], 0, "{what}");
}

#[test]
fn libotf2_scenarios_give_the_worked_answers() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(written) = write_scenarios(tmp.path()) else {
        return;
    };
    let worked = worked();
    assert_eq!(
        written,
        worked
            .iter()
            .map(|w| w.name.to_string())
            .collect::<Vec<_>>(),
        "a worked answer per scenario"
    );
    for w in &worked {
        let anchor = tmp.path().join(w.name).join("traces.otf2");
        let anchor = anchor.to_str().unwrap();
        assert_worked(&json(anchor), w, w.name);
        // Its SLOG-2 conversion: the same.
        let slog2 = tmp.path().join(format!("{}.slog2", w.name));
        let slog2 = slog2.to_str().unwrap();
        let o = mpelog(&["convert", anchor, "-o", slog2]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_worked(&json(slog2), w, &format!("{} (SLOG-2)", w.name));
    }
}
