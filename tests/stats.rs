//! `mpelog stats` and [`mpelog::stats`]: on generated traces the counts and
//! durations equal a brute-force computation over every drawable of the file
//! (whole file and windows, with slices of leaves in play); on the corpus the
//! ratios equal the legend's `incl` (and, where Java computes it exactly, `excl`);
//! golden text, JSON and CSV of one corpus file.

mod common;

use common::{mpelog, stdout};
use mpelog::stats::{self, Options, Stats};
use slog2_format::convert::clog2_to_slog2;
use slog2_format::types::{topology, Drawable, Primitive};
use slog2_format::write::TreeOptions;
use slog2_format::{Slog2File, Slog2Reader};
use std::collections::BTreeMap;
use std::io::Cursor;

/// A generated trace converted with small leaves (many slices of 64 leaves).
fn generated(seed: u64, events: u64) -> Vec<u8> {
    let clog2 = clog2_format::synth::generate_vec(
        &clog2_format::synth::Options::default()
            .ranks(4)
            .events(events)
            .seed(seed),
    )
    .unwrap();
    let mut r = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    let opts = TreeOptions::default().leaf_bytes(1024);
    let (out, _) = clog2_to_slog2(&mut r, Cursor::new(Vec::new()), opts, |_| {}).unwrap();
    out.into_inner()
}

fn of(bytes: &[u8], opts: &Options) -> Stats {
    let mut r = Slog2Reader::new(Cursor::new(bytes)).unwrap();
    stats::slog2(&mut r, opts).unwrap()
}

/// Every real primitive of the file (the parts of composites one by one).
fn primitives(bytes: &[u8]) -> (Vec<Primitive>, BTreeMap<i32, i32>) {
    let f = Slog2File::parse(bytes).unwrap();
    let mut all = Vec::new();
    for n in f.nodes() {
        for d in n.value.nestless.iter().chain(&n.value.nestable) {
            match d {
                Drawable::Primitive(p) => all.push(p.clone()),
                Drawable::Composite(c) => all.extend(c.primitives.iter().cloned()),
            }
        }
    }
    let mut r = Slog2Reader::new(Cursor::new(bytes)).unwrap();
    let topo = r
        .categories()
        .unwrap()
        .value
        .categories
        .iter()
        .map(|c| (c.index, c.topology))
        .collect();
    let _ = &mut r;
    (all, topo)
}

/// Per category: (count, inclusive sum, exclusive sum), by brute force. A state
/// `q` is directly nested in `p` when both are on the same timeline, `q` lies
/// inside `p`, and no third state lies between them.
fn brute(bytes: &[u8], window: Option<(f64, f64)>) -> BTreeMap<i32, (u64, f64, f64)> {
    let (all, topo) = primitives(bytes);
    let (a, b) = window.unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
    let clip = |p: &Primitive| (p.latest().min(b) - p.earliest().max(a)).max(0.0);
    let meets = |p: &Primitive| p.earliest() < b && p.latest() >= a;
    let shown: Vec<&Primitive> = all.iter().filter(|p| meets(p)).collect();
    let states: Vec<&Primitive> = shown
        .iter()
        .copied()
        .filter(|p| topo[&p.category] == topology::STATE)
        .collect();
    let line = |p: &Primitive| p.vertices[0].line_id;
    let inside = |q: &Primitive, p: &Primitive| {
        line(q) == line(p)
            && p.earliest() <= q.earliest()
            && q.latest() <= p.latest()
            && !std::ptr::eq(p, q)
    };
    let mut out: BTreeMap<i32, (u64, f64, f64)> = BTreeMap::new();
    for p in &shown {
        let e = out.entry(p.category).or_default();
        e.0 += 1;
        if topo[&p.category] != topology::EVENT {
            e.1 += clip(p);
        }
    }
    for p in &states {
        let mut excl = clip(p);
        for q in states.iter().filter(|q| inside(q, p)) {
            let between = states.iter().any(|r| inside(q, r) && inside(r, p));
            if !between {
                excl -= clip(q);
            }
        }
        out.get_mut(&p.category).unwrap().2 += excl;
    }
    out
}

fn close(x: f64, y: f64) -> bool {
    (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1e-6)
}

fn assert_matches(s: &Stats, expected: &BTreeMap<i32, (u64, f64, f64)>, what: &str) {
    let got: BTreeMap<i32, (u64, f64, f64)> = s
        .categories
        .iter()
        .map(|c| (c.index, (c.count, c.inclusive.sum, c.exclusive.sum)))
        .collect();
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>(),
        "{what}: categories"
    );
    for (k, e) in expected {
        let g = got[k];
        assert_eq!(g.0, e.0, "{what}: count of category {k}");
        assert!(
            close(g.1, e.1),
            "{what}: inclusive of {k}: {} vs {}",
            g.1,
            e.1
        );
        assert!(
            close(g.2, e.2),
            "{what}: exclusive of {k}: {} vs {}",
            g.2,
            e.2
        );
    }
}

#[test]
fn whole_file_and_windows_equal_brute_force() {
    for seed in 1..=3 {
        let bytes = generated(seed, 10_000);
        let s = of(&bytes, &Options::default());
        assert_matches(
            &s,
            &brute(&bytes, None),
            &format!("seed {seed}, whole file"),
        );
        let leaves = Slog2File::parse(&bytes)
            .unwrap()
            .nodes()
            .filter(|n| n.value.header.id.depth == 0)
            .count();
        assert!(leaves > 128, "several slices of 64 leaves ({leaves})");
        let (t0, t1) = (s.from, s.to);
        for (i, (f, g)) in [(0.1, 0.2), (0.0, 0.5), (0.33, 0.9), (0.5, 0.5001)]
            .into_iter()
            .enumerate()
        {
            let (a, b) = (t0 + f * (t1 - t0), t0 + g * (t1 - t0));
            let w = of(&bytes, &Options::default().window(Some(a), Some(b)));
            assert_eq!((w.from, w.to), (a, b));
            assert_matches(
                &w,
                &brute(&bytes, Some((a, b))),
                &format!("seed {seed}, window {i}"),
            );
        }
        // Per timeline: the states' inclusive sums add up to the categories'.
        let by_line: f64 = s.timelines.iter().map(|t| t.inclusive.sum).sum();
        let by_cat: f64 = s
            .categories
            .iter()
            .filter(|c| c.topology == "state")
            .map(|c| c.inclusive.sum)
            .sum();
        assert!(close(by_line, by_cat));
        // Messages: one per arrow, and the matrix adds up.
        let arrows: u64 = s
            .categories
            .iter()
            .filter(|c| c.topology == "arrow")
            .map(|c| c.count)
            .sum();
        assert_eq!(s.messages.iter().map(|m| m.messages).sum::<u64>(), arrows);
        assert!(arrows > 0);
        let sized: u64 = s.message_sizes.iter().map(|m| m.1).sum();
        assert_eq!(sized, arrows, "every MPE arrow has msg_size");
    }
}

#[test]
fn bins_cover_the_inclusive_time_of_states() {
    let bytes = generated(7, 4_000);
    let s = of(&bytes, &Options::default().bins(10));
    assert_eq!(s.bins.len(), 10);
    assert_eq!(s.bins[0].start, s.from);
    assert_eq!(s.bins[9].end, s.to);
    for c in s.categories.iter().filter(|c| c.topology == "state") {
        let binned: f64 = s
            .bins
            .iter()
            .filter_map(|b| b.categories.get(&c.index))
            .sum();
        assert!(
            close(binned, c.inclusive.sum),
            "category {}: {binned} vs {}",
            c.index,
            c.inclusive.sum
        );
    }
    for c in s.categories.iter().filter(|c| c.topology == "event") {
        let binned: f64 = s
            .bins
            .iter()
            .filter_map(|b| b.categories.get(&c.index))
            .sum();
        assert_eq!(
            binned as u64, c.count,
            "events of {} counted where they happen",
            c.index
        );
    }
}

#[test]
fn ratios_equal_the_legend_of_the_corpus() {
    let Some(root) = common::corpus() else {
        return;
    };
    let mut checked = 0;
    for path in mpelog_conformance::corpus::listing(&root.join("mpe"), ".slog2", 33) {
        if path.to_string_lossy().contains("_filtered") {
            // slog2filter rewrote the legend's counts (the corpus README says so).
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let mut r = Slog2Reader::new(Cursor::new(&bytes[..])).unwrap();
        let Some(cats) = r.categories().map(|c| c.value.categories.clone()) else {
            continue;
        };
        let single_node = r.tree_dir().is_some_and(|t| t.value.entries.len() == 1);
        let s = stats::slog2(&mut r, &Options::default()).unwrap();
        for c in cats.iter().filter(|c| c.index >= 0) {
            let Some(legend) = c.summary else { continue };
            let mine = s.categories.iter().find(|m| m.index == c.index);
            let (count, incl, excl) = mine.map_or((0, 0.0, 0.0), |m| {
                (m.count as i64, m.inclusive_share, m.exclusive_share)
            });
            let what = format!("{} category {}", path.display(), c.index);
            assert_eq!(count, legend.count, "{what}: count");
            if c.topology == topology::STATE {
                let near = |a: f64, b: f32| (a as f32 - b).abs() <= 1e-6 * b.abs().max(1e-3);
                assert!(
                    near(incl, legend.incl),
                    "{what}: incl {incl} vs {}",
                    legend.incl
                );
                if single_node {
                    assert!(
                        near(excl, legend.excl),
                        "{what}: excl {excl} vs {}",
                        legend.excl
                    );
                }
            }
        }
        checked += 1;
    }
    assert!(checked > 20, "corpus SLOG-2 files checked: {checked}");
}

#[test]
fn text_json_and_csv_of_a_corpus_file_match_the_golden_output() {
    let Some(root) = common::corpus() else {
        return;
    };
    let f = common::corpus_file(&root, "mpe/comm1_isr_n4.slog2");
    for (name, extra) in [
        ("text", vec![]),
        ("json", vec!["--json"]),
        ("csv", vec!["--csv"]),
    ] {
        let mut args = vec!["stats", f.as_str(), "--by", "both", "--bins", "4"];
        args.extend(extra);
        insta::assert_snapshot!(format!("stats_comm1_isr_n4_{name}"), stdout(&mpelog(&args)));
    }
}

#[test]
fn an_annotation_gives_the_statistics_of_the_converted_trace() {
    let dir = tempfile::tempdir().unwrap();
    let clog2 = common::synth(dir.path(), "t.clog2", &["--events", "20000", "--seed", "5"]);
    let idx = format!("{clog2}.idx");
    let slog2 = dir.path().join("t.slog2");
    let slog2 = slog2.to_str().unwrap();
    for args in [
        vec!["annotate", clog2.as_str(), "--leaf-bytes", "4k"],
        vec!["convert", clog2.as_str(), "-o", slog2],
    ] {
        let o = mpelog(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    for window in [vec![], vec!["--from", "0.2", "--to", "0.4"]] {
        let json = |f: &str| -> serde_json::Value {
            let mut args = vec!["stats", f, "--json", "--by", "both"];
            args.extend(window.iter().copied());
            serde_json::from_str(&stdout(&mpelog(&args))).unwrap()
        };
        let (a, s) = (json(&idx), json(slog2));
        if !window.is_empty() {
            assert_eq!((&a["from"], &a["to"]), (&s["from"], &s["to"]));
        }
        let counts = |v: &serde_json::Value| -> Vec<(i64, u64)> {
            v["categories"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| (c["index"].as_i64().unwrap(), c["count"].as_u64().unwrap()))
                .collect()
        };
        assert_eq!(counts(&a), counts(&s), "window {window:?}");
        assert!(!counts(&s).is_empty());
        for (x, y) in a["categories"]
            .as_array()
            .unwrap()
            .iter()
            .zip(s["categories"].as_array().unwrap())
        {
            for key in ["inclusive", "exclusive"] {
                let (p, q) = (
                    x[key]["sum"].as_f64().unwrap(),
                    y[key]["sum"].as_f64().unwrap(),
                );
                assert!(close(p, q), "{key} of {}: {p} vs {q}", x["index"]);
            }
        }
        assert_eq!(a["messages"], s["messages"]);
    }
    // Any trace convert reads: the CLOG2 itself, read in one pass, whole and
    // in a window.
    for window in [vec![], vec!["--from", "0.2", "--to", "0.4"]] {
        let json = |f: &str| -> serde_json::Value {
            let mut args = vec!["stats", f, "--json", "--by", "both"];
            args.extend(window.iter().copied());
            serde_json::from_str(&stdout(&mpelog(&args))).unwrap()
        };
        assert_eq!(json(&clog2), json(slog2), "window {window:?}");
    }
}

/// Old CLOG, ALOG and SLOG-1 traces, read in one pass, give the statistics of
/// their converted files.
#[test]
fn every_trace_gives_the_statistics_of_its_converted_file() {
    let Some(root) = common::corpus() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for f in [
        "mpich1/clog1/nesttest.clog",
        "mpich1/alog/cpilog.alog",
        "mpich1/slog1/sample.slog",
        "mpe/cpilog_n4.clog2",
    ] {
        let input = common::corpus_file(&root, f);
        let slog2 = dir.path().join("c.slog2");
        let slog2 = slog2.to_str().unwrap();
        let o = mpelog(&["convert", &input, "-o", slog2]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let json = |f: &str| -> serde_json::Value {
            serde_json::from_str(&stdout(&mpelog(&["stats", f, "--json", "--by", "both"]))).unwrap()
        };
        let (a, b) = (json(&input), json(slog2));
        assert!(
            a["categories"].as_array().is_some_and(|c| !c.is_empty()),
            "{f}"
        );
        assert_eq!(a, b, "{f}");
        std::fs::remove_file(slog2).unwrap();
    }
}
