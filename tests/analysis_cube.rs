//! `mpelog analyze TRACE -o REPORT.cubex`: pycubexr (PyPI, through
//! tests/pycubexr/dump_cubex.py) reads the cube back, and its values equal
//! `analyze --json` of the same run: each pattern's total, its seconds per
//! timeline and per call path; the call tree has one root and the system
//! tree a location per timeline, in its process. On a hand-worked CLOG2
//! trace, on corpus files and on a hybrid MPI + OpenMP archive. Without python3 or pycubexr the read is skipped with a message,
//! unless `CI` is set. The output rules (never over the input) are checked
//! without Python.

#[path = "common/analysis.rs"]
mod analysis_common;
mod common;

use analysis_common::*;
use common::*;
use serde_json::Value as J;
use std::collections::BTreeMap;
use std::path::Path;

/// What pycubexr reads from `path`, or `None` (after saying why) when
/// python3 or pycubexr is missing outside CI.
fn pycubexr(path: &Path) -> Option<J> {
    common::python_script(
        "tests/pycubexr/dump_cubex.py",
        &[path.as_os_str()],
        "NO-PYCUBEXR",
        "pycubexr",
    )
    .map(|text| serde_json::from_str(&text).expect("the dump is JSON"))
}

/// The call nodes of the dump: id → the call path below the root, as
/// `analyze` names it (`Outer > MPI_Recv`; empty for the root).
fn cnode_paths(tree: &J, prefix: Option<&str>, out: &mut BTreeMap<String, String>) {
    let region = tree["region"].as_str().unwrap();
    let path = match prefix {
        None => {
            assert_eq!(region, mpelog::analysis::ROOT_REGION, "the root");
            String::new()
        }
        Some("") => region.to_string(),
        Some(p) => format!("{p} > {region}"),
    };
    out.insert(tree["id"].to_string(), path.clone());
    for c in tree["children"].as_array().unwrap() {
        cnode_paths(c, Some(&path), out);
    }
}

/// Runs `analyze FILE --json -o OUT` and gives the JSON and pycubexr's
/// dump of OUT (`None`: skipped).
fn run(file: &str, out: &Path) -> Option<(J, J)> {
    let json: J = serde_json::from_str(&stdout(&mpelog(&[
        "analyze",
        file,
        "--json",
        "-o",
        out.to_str().unwrap(),
    ])))
    .unwrap();
    let dump = pycubexr(out)?;
    Some((json, dump))
}

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
}

/// The cube's values equal the JSON's: per pattern its total, per timeline
/// and per call path. Gives how many nonzero cube values were compared.
fn assert_cube_is_json(json: &J, dump: &J, what: &str) -> usize {
    let roots = dump["cnodes"].as_array().unwrap();
    assert_eq!(roots.len(), 1, "{what}: one root call node");
    let mut paths = BTreeMap::new();
    cnode_paths(&roots[0], None, &mut paths);
    // Columns: the locations in the dump's order, each a timeline (named
    // `timeline N`), in a process of the process view (a rank: these
    // traces have one timeline per rank).
    let timelines: Vec<i64> = dump["locations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let name = l["name"].as_str().unwrap();
            let t: i64 = name.strip_prefix("timeline ").unwrap().parse().unwrap();
            assert_eq!(
                l["process_rank"].as_i64(),
                Some(t),
                "{what}: {name}'s process"
            );
            assert_eq!(l["process"].as_str(), Some(format!("process {t}").as_str()));
            t
        })
        .collect();
    let want_timelines: Vec<i64> = json["timelines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_i64().unwrap())
        .collect();
    assert_eq!(timelines, want_timelines, "{what}: a location per timeline");
    let mut nonzero = 0;
    let patterns = json["patterns"].as_array().unwrap();
    assert!(!patterns.is_empty(), "{what}: patterns to compare");
    for p in patterns {
        let id = p["id"].as_str().unwrap();
        let values = dump["values"][id]
            .as_object()
            .unwrap_or_else(|| panic!("{what}: metric {id} in the cube"));
        let mut total = 0.0;
        let mut per_timeline: BTreeMap<i64, f64> = BTreeMap::new();
        let mut per_path: BTreeMap<String, f64> = BTreeMap::new();
        for (cnode, row) in values {
            for (col, v) in row.as_array().unwrap().iter().enumerate() {
                let v = v.as_f64().unwrap();
                if v == 0.0 {
                    continue;
                }
                nonzero += 1;
                total += v;
                *per_timeline.entry(timelines[col]).or_default() += v;
                *per_path.entry(paths[cnode].clone()).or_default() += v;
            }
        }
        let seconds = p["seconds"].as_f64().unwrap();
        assert!(
            near(total, seconds),
            "{what}: {id} total {total} != {seconds}"
        );
        let want: BTreeMap<i64, f64> = p["per_timeline"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(t, s)| (t.parse().unwrap(), s.as_f64().unwrap()))
            .collect();
        assert_eq!(
            per_timeline.keys().collect::<Vec<_>>(),
            want.keys().collect::<Vec<_>>(),
            "{what}: {id} timelines"
        );
        for (t, s) in &want {
            assert!(
                near(per_timeline[t], *s),
                "{what}: {id} on timeline {t}: {} != {s}",
                per_timeline[t]
            );
        }
        let want: BTreeMap<String, f64> = p["per_call_path"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["call_path"].as_str().unwrap().to_string(),
                    c["seconds"].as_f64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            per_path.keys().collect::<Vec<_>>(),
            want.keys().collect::<Vec<_>>(),
            "{what}: {id} call paths"
        );
        for (c, s) in &want {
            assert!(
                near(per_path[c], *s),
                "{what}: {id} at {c}: {} != {s}",
                per_path[c]
            );
        }
    }
    nonzero + assert_time_is_json(json, dump, &paths, &timelines, what)
}

/// The sum of `metric` over call nodes and locations.
fn total(dump: &J, metric: &str) -> f64 {
    dump["values"][metric]
        .as_object()
        .unwrap_or_else(|| panic!("metric {metric} in the cube"))
        .values()
        .flat_map(|r| r.as_array().unwrap().iter().map(|v| v.as_f64().unwrap()))
        .sum()
}

/// Time is the exclusive time per call path and timeline: summed over the
/// call nodes of each state category (a call path's last state), it is the
/// JSON imbalance table's `mean` times the number of timelines, its largest
/// timeline the `max`; Computation and MPI split it; Execution equals it.
fn assert_time_is_json(
    json: &J,
    dump: &J,
    paths: &BTreeMap<String, String>,
    timelines: &[i64],
    what: &str,
) -> usize {
    let time = dump["values"]["time"].as_object().unwrap();
    let mut per_cat: BTreeMap<String, BTreeMap<i64, f64>> = BTreeMap::new();
    let mut nonzero = 0;
    for (cnode, row) in time {
        let leaf = paths[cnode].rsplit(" > ").next().unwrap().to_string();
        for (col, v) in row.as_array().unwrap().iter().enumerate() {
            let v = v.as_f64().unwrap();
            if v != 0.0 {
                nonzero += 1;
                *per_cat
                    .entry(leaf.clone())
                    .or_default()
                    .entry(timelines[col])
                    .or_default() += v;
            }
        }
    }
    let n = timelines.len() as f64;
    let rows = json["imbalance"].as_array().unwrap();
    let mut sum = 0.0;
    for row in rows {
        let c = row["category"].as_str().unwrap();
        let mean = row["mean"].as_f64().unwrap();
        let have = per_cat.get(c).map_or(0.0, |m| m.values().sum::<f64>());
        assert!(
            near(have, mean * n),
            "{what}: time of {c}: {have} != {mean} x {n}"
        );
        let max = per_cat
            .get(c)
            .map_or(0.0, |m| m.values().copied().fold(0.0, f64::max));
        assert!(
            near(max, row["max"].as_f64().unwrap()),
            "{what}: largest time of {c}: {max} != {}",
            row["max"]
        );
        sum += mean * n;
    }
    assert!(
        per_cat
            .keys()
            .all(|c| rows.iter().any(|r| r["category"] == *c.as_str())),
        "{what}: a category in the cube's time that the JSON has not"
    );
    let t = total(dump, "time");
    assert!(near(t, sum), "{what}: time {t} != {sum}");
    assert!(near(total(dump, "execution"), t), "{what}: execution");
    let split = total(dump, "comp") + total(dump, "mpi");
    assert!(near(split, t), "{what}: computation + MPI {split} != {t}");
    nonzero
}

/// Late Sender (25 ms, in `solve` on rank 1), Wrong Order, a barrier (8 +
/// 5 + 0 ms) in `sync` and one outside it, on three ranks.
fn worked() -> Trace {
    let mut t = Trace::new(3);
    t.state(1, "solve", 1.0 * MS, 40.0 * MS)
        .state(1, "MPI_Recv", 5.0 * MS, 31.0 * MS)
        .state(0, "MPI_Send", 30.0 * MS, 30.5 * MS)
        .message(0, 30.1 * MS, 1, 30.9 * MS, 7);
    for r in 0..3 {
        t.state(r, "sync", 40.5 * MS, 50.5 * MS);
    }
    t.collective(
        "MPI_Barrier",
        &[41.0 * MS, 44.0 * MS, 49.0 * MS],
        &[50.0 * MS, 50.0 * MS, 50.0 * MS],
    )
    .collective(
        "MPI_Barrier",
        &[62.0 * MS, 61.0 * MS, 60.0 * MS],
        &[63.0 * MS, 63.0 * MS, 63.0 * MS],
    );
    t
}

#[test]
fn the_cube_of_a_hand_worked_trace_is_its_json() {
    let tmp = tempfile::tempdir().unwrap();
    let f = tmp.path().join("w.clog2");
    std::fs::write(&f, worked().bytes()).unwrap();
    let out = tmp.path().join("w.cubex");
    let Some((json, dump)) = run(f.to_str().unwrap(), &out) else {
        return;
    };
    // The worked answer, so that the comparison is of something.
    let ls = json["patterns"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "mpi_latesender")
        .unwrap();
    close(ls["seconds"].as_f64().unwrap(), 25.0 * MS, "late sender");
    assert_eq!(ls["per_call_path"][0]["call_path"], "solve > MPI_Recv");
    let n = assert_cube_is_json(&json, &dump, "hand-worked");
    assert!(n >= 5, "nonzero values compared: {n}");
    // The barrier's waits at their call paths and timelines, from the cube
    // alone: 8 and 5 ms in `sync`, then 2 and 1 ms outside it.
    let mut paths = BTreeMap::new();
    cnode_paths(&dump["cnodes"][0], None, &mut paths);
    let at = |path: &str| {
        let (id, _) = paths.iter().find(|(_, p)| *p == path).unwrap();
        dump["values"]["mpi_barrier_wait"][id]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect::<Vec<_>>()
    };
    let inside = at("sync > MPI_Barrier");
    let outside = at("MPI_Barrier");
    for (have, want) in inside.iter().zip([8.0 * MS, 5.0 * MS, 0.0]) {
        close(*have, want, "sync > MPI_Barrier");
    }
    for (have, want) in outside.iter().zip([0.0, 1.0 * MS, 2.0 * MS]) {
        close(*have, want, "MPI_Barrier");
    }
    // Time is the time in states, worked out: rank 0 MPI_Send 0.5 + sync 10
    // + barrier 1 ms; rank 1 solve 39 + sync 10 + barrier 2; rank 2 sync 10
    // + barrier 3.
    close(total(&dump, "time"), (11.5 + 51.0 + 13.0) * MS, "time");
    // MPI: the send and receive (0.5 + 26 ms), the barriers (9 + 6 + 1
    // and 1 + 2 + 3 ms); Computation: solve outside the receive (13 ms)
    // and sync outside the barriers (1 + 4 + 9 ms).
    close(total(&dump, "mpi_point2point"), 26.5 * MS, "point-to-point");
    close(total(&dump, "mpi_sync_collective"), 22.0 * MS, "barriers");
    close(total(&dump, "mpi"), 48.5 * MS, "MPI");
    close(total(&dump, "comp"), 27.0 * MS, "computation");
}

#[test]
fn the_cube_of_corpus_traces_is_their_json() {
    let Some(dir) = corpus() else {
        eprintln!("SKIPPED corpus tests (MPELOG_CORPUS is not set): analysis_cube");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    for name in [
        "mpe/p2p_n4.clog2",
        "mpe/colls_n4.clog2",
        "mpe/many_events_n4.slog2",
    ] {
        let f = corpus_file(&dir, name);
        let out = tmp.path().join("c.cubex");
        let Some((json, dump)) = run(&f, &out) else {
            return;
        };
        let n = assert_cube_is_json(&json, &dump, name);
        assert!(n > 0, "{name}");
    }
}

/// The output rules: never over the input; a temporary file renamed at the
/// end, so a failed run leaves nothing.
#[test]
fn the_cube_is_never_written_over_the_trace() {
    let tmp = tempfile::tempdir().unwrap();
    let f = tmp.path().join("w.clog2");
    let bytes = worked().bytes();
    std::fs::write(&f, &bytes).unwrap();
    let f = f.to_str().unwrap();
    let o = mpelog(&["analyze", f, "-o", f]);
    assert!(!o.status.success());
    assert_eq!(std::fs::read(f).unwrap(), bytes, "the trace is intact");
    // An annotation's trace (by default its path without .idx) neither.
    assert!(mpelog(&["annotate", f]).status.success());
    let idx = format!("{f}.idx");
    let o = mpelog(&["analyze", &idx, "-o", f]);
    assert!(!o.status.success());
    assert_eq!(std::fs::read(f).unwrap(), bytes, "the trace is intact");
    // A report for people still goes to standard output.
    let out = tmp.path().join("r.cubex");
    let text = stdout(&mpelog(&["analyze", f, "-o", out.to_str().unwrap()]));
    assert!(text.contains("Late Sender"));
    let cube = std::fs::read(&out).unwrap();
    assert_eq!(&cube[..10], b"anchor.xml");
    let names: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names.len(), 3, "no temporary file left: {names:?}");
}

/// An OTF2 archive's cube (tests/otf2_scenarios.py's sub-communicator
/// scenario, libotf2): the conversion's collective records (`collective
/// BARRIER` inside each `MPI_Barrier`) are folded into their call's node, so
/// Time at `main > MPI_Barrier` is the barriers' time: 9 + 8 + 4, 6 + 5 + 3,
/// 4 + 1 + 2 and 1 + 2 + 1 ms on ranks 0 to 3.
#[test]
fn an_otf2_archives_collective_records_fold_into_their_calls() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(names) = common::python_script(
        "tests/otf2_scenarios.py",
        &[tmp.path().as_os_str()],
        "NO-OTF2",
        "otf2",
    ) else {
        return;
    };
    assert!(names.lines().any(|n| n == "sub_communicators"));
    let anchor = tmp.path().join("sub_communicators").join("traces.otf2");
    let out = tmp.path().join("s.cubex");
    let Some((json, dump)) = run(anchor.to_str().unwrap(), &out) else {
        return;
    };
    let mut paths = BTreeMap::new();
    cnode_paths(&dump["cnodes"][0], None, &mut paths);
    assert!(
        paths.values().all(|p| !p.contains("collective ")),
        "no record's node: {paths:?}"
    );
    let (id, _) = paths
        .iter()
        .find(|(_, p)| *p == "main > MPI_Barrier")
        .expect("main > MPI_Barrier");
    let row: Vec<f64> = dump["values"]["time"][id]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    for (have, want) in row.iter().zip([21.0, 14.0, 7.0, 4.0]) {
        close(*have, want * MS, "time at main > MPI_Barrier");
    }
    close(
        total(&dump, "mpi_sync_collective"),
        46.0 * MS,
        "barriers' time",
    );
    // Folding moves time between nodes, not in or out: the total is the
    // JSON's (Σ of the imbalance table's means × 4 timelines), and the
    // patterns are the JSON's.
    let sum: f64 = json["imbalance"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["mean"].as_f64().unwrap() * 4.0)
        .sum();
    close(total(&dump, "time"), sum, "time");
    for p in json["patterns"].as_array().unwrap() {
        let id = p["id"].as_str().unwrap();
        close(total(&dump, id), p["seconds"].as_f64().unwrap(), id);
    }
}

/// A hybrid MPI + OpenMP archive (two ranks of two threads): the cube has a
/// process per rank, its threads its locations, as Scalasca's has them;
/// rank 1's Late Sender (400 ns, worked out in the oracle script's
/// `hybrid`) on rank 1's master thread.
#[test]
fn a_hybrid_archives_threads_are_locations_of_their_rank() {
    if !have_otf2() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let archive = hybrid_archive(dir.path());
    let out = dir.path().join("h.cubex");
    let Some((json, dump)) = run(archive.to_str().unwrap(), &out) else {
        return;
    };
    let locs = cube_locations(&dump);
    let want = [
        ("timeline 0", 0, "process 0", 0),
        ("timeline 1", 1, "process 0", 0),
        ("timeline 2", 0, "process 1", 1),
        ("timeline 3", 1, "process 1", 1),
    ]
    .map(|(n, r, p, pr)| {
        let system = r#"["mpelog","timelines"]"#.to_string();
        (n.to_string(), r, p.to_string(), pr, system)
    });
    assert_eq!(locs, want);
    let ls: f64 = dump["values"]["mpi_latesender"]
        .as_object()
        .unwrap()
        .values()
        .map(|row| row.as_array().unwrap()[2].as_f64().unwrap())
        .sum();
    assert!((ls - 400e-9).abs() < 1e-12, "{ls}");
    assert_eq!(json["timelines"], serde_json::json!([0, 1, 2, 3]));
}
