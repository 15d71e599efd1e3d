//! `mpelog export`: Chrome trace-event JSON and pipit CSV, read back by
//! independent readers (serde_json; Python's `csv` and pandas), against the
//! drawables of the file: one slice per state, one flow per arrow, one instant
//! per event, times within 1 ns, every track properly nested. Chrome JSON times
//! are exactly the spec's `round((t − from) × 10⁹)` nanoseconds, computed here
//! from the drawables (whole files and windows); Perfetto flows run from the
//! arrow's send (its first vertex: time and timeline) to its receive.

mod common;

/// `(kind, name, start ns, end ns)` of one exported item or drawable.
type Item = (i32, String, i64, i64);

use common::{mpelog, synth};
use serde_json::Value;
use slog2_format::types::{topology, Drawable, Primitive};
use slog2_format::{Slog2File, Slog2Reader};
use std::collections::HashMap;
use std::io::Cursor;
use std::path::Path;

/// `(kind, name, start ns, end ns)` of every real primitive meeting `[a, b)`,
/// times from `t0`, sorted.
fn drawables(path: &str, window: Option<(f64, f64)>) -> (Vec<Item>, f64) {
    drawables_named(path, window, false)
}

/// [`drawables`], each name followed by `#` and the category index when
/// `with_index`.
fn drawables_named(path: &str, window: Option<(f64, f64)>, with_index: bool) -> (Vec<Item>, f64) {
    let bytes = std::fs::read(path).unwrap();
    let f = Slog2File::parse(&bytes).unwrap();
    let r = Slog2Reader::new(Cursor::new(&bytes[..])).unwrap();
    let cats: HashMap<i32, (String, i32)> = r
        .categories()
        .unwrap()
        .value
        .categories
        .iter()
        .map(|c| {
            let name = if with_index {
                format!("{}#{}", c.name.text(), c.index)
            } else {
                c.name.text()
            };
            (c.index, (name, c.topology))
        })
        .collect();
    let root = r
        .tree_dir()
        .unwrap()
        .value
        .entries
        .iter()
        .max_by_key(|e| (e.id.depth, std::cmp::Reverse(e.id.xpos)))
        .copied()
        .unwrap();
    let (a, b) = window.unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
    let t0 = window.map_or(root.earliest, |w| w.0);
    let mut all: Vec<Primitive> = Vec::new();
    for n in f.nodes() {
        for d in n.value.nestless.iter().chain(&n.value.nestable) {
            match d {
                Drawable::Primitive(p) => all.push(p.clone()),
                Drawable::Composite(c) => all.extend(c.primitives.iter().cloned()),
            }
        }
    }
    let ns = |t: f64| ((t - t0) * 1e9).round() as i64;
    let mut out: Vec<_> = all
        .iter()
        .filter(|p| p.earliest() < b && p.latest() >= a)
        .map(|p| {
            let (name, topo) = cats[&p.category].clone();
            (topo, name, ns(p.earliest()), ns(p.latest()))
        })
        .collect();
    out.sort();
    (out, t0)
}

fn export(input: &str, out: &Path, extra: &[&str]) {
    let mut args = vec!["export", input, "-o", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = mpelog(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// The slices, instants and flows of a Chrome JSON export, checked for nesting.
fn read_chrome(path: &Path) -> Vec<Item> {
    let text = if path.to_string_lossy().ends_with(".gz") {
        let mut s = String::new();
        use std::io::Read;
        flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
            .read_to_string(&mut s)
            .unwrap();
        s
    } else {
        std::fs::read_to_string(path).unwrap()
    };
    let v: Value = serde_json::from_str(&text).unwrap();
    let ns = |e: &Value| (e["ts"].as_f64().unwrap() * 1e3).round() as i64;
    let mut open: HashMap<i64, Vec<(String, i64)>> = HashMap::new();
    let mut last: HashMap<i64, i64> = HashMap::new();
    let mut out = Vec::new();
    let mut flows: HashMap<u64, (Option<i64>, Option<i64>)> = HashMap::new();
    let mut sends: HashMap<(i64, i64), Vec<String>> = HashMap::new();
    for e in v["traceEvents"].as_array().unwrap() {
        let tid = e["tid"].as_i64().unwrap_or(-1);
        let ph = e["ph"].as_str().unwrap();
        if ph != "M" {
            let t = ns(e);
            let prev = last.insert(tid, t).unwrap_or(i64::MIN);
            assert!(t >= prev, "track {tid}: time goes back at {e}");
        }
        match ph {
            "B" => open
                .entry(tid)
                .or_default()
                .push((e["name"].as_str().unwrap().to_string(), ns(e))),
            "E" => {
                let (name, start) = open.get_mut(&tid).unwrap().pop().expect("E after B");
                out.push((topology::STATE, name, start, ns(e)));
            }
            "i" => out.push((
                topology::EVENT,
                e["name"].as_str().unwrap().into(),
                ns(e),
                ns(e),
            )),
            "X" => {
                assert_eq!(e["dur"].as_f64(), Some(0.0));
                sends
                    .entry((tid, ns(e)))
                    .or_default()
                    .push(e["name"].as_str().unwrap().into());
            }
            "s" | "f" => {
                assert!(
                    sends.contains_key(&(tid, ns(e))),
                    "a flow end sits on a slice"
                );
                let f = flows.entry(e["id"].as_u64().unwrap()).or_default();
                let end = if ph == "s" { &mut f.0 } else { &mut f.1 };
                assert!(end.is_none(), "one {ph} per flow");
                *end = Some(ns(e));
            }
            _ => {}
        }
    }
    assert!(open.values().all(Vec::is_empty), "every B has its E");
    for (id, (s, f)) in &flows {
        let (s, f) = (
            s.expect("an s"),
            f.unwrap_or_else(|| panic!("flow {id} has no f")),
        );
        // The drawable's box is its earliest and latest vertex.
        out.push((topology::ARROW, String::new(), s.min(f), s.max(f)));
    }
    out
}

/// Compares exported items with the drawables: same counts per kind, the same
/// multiset of times within 1 ns (arrows by times only).
fn compare(got: Vec<Item>, want: &[Item], what: &str) {
    for kind in [topology::STATE, topology::EVENT, topology::ARROW] {
        let mut g: Vec<_> = got.iter().filter(|x| x.0 == kind).cloned().collect();
        let mut w: Vec<_> = want.iter().filter(|x| x.0 == kind).cloned().collect();
        if kind == topology::ARROW {
            g.iter_mut().chain(w.iter_mut()).for_each(|x| x.1.clear());
        }
        g.sort();
        w.sort();
        assert_eq!(g.len(), w.len(), "{what}: kind {kind} count");
        for (x, y) in g.iter().zip(&w) {
            assert!(
                x.1 == y.1 && (x.2 - y.2).abs() <= 1 && (x.3 - y.3).abs() <= 1,
                "{what}: {x:?} vs {y:?}"
            );
        }
    }
}

#[test]
fn chrome_json_has_every_drawable_properly_nested() {
    let dir = tempfile::tempdir().unwrap();
    let clog2 = synth(dir.path(), "t.clog2", &["--events", "20000", "--seed", "3"]);
    let slog2 = dir.path().join("t.slog2");
    let slog2 = slog2.to_str().unwrap();
    let o = mpelog(&["convert", &clog2, "-o", slog2, "--leaf-bytes", "2k"]);
    assert!(o.status.success());
    let mut inputs = vec![slog2.to_string()];
    if let Some(root) = common::corpus() {
        for f in [
            "mpe/comm1_isr_n4.slog2",
            "mpe/cpilog_n4.slog2",
            "mpe/p2p_n4_bs4k.slog2",
        ] {
            inputs.push(common::corpus_file(&root, f));
        }
    }
    for input in &inputs {
        let (want, t0) = drawables(input, None);
        assert!(want.iter().any(|x| x.0 == topology::STATE));
        for name in ["a.json", "a.json.gz"] {
            let out = dir.path().join(name);
            export(input, &out, &[]);
            compare(read_chrome(&out), &want, &format!("{input} {name}"));
            let v: Value = if name.ends_with(".gz") {
                continue;
            } else {
                serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap()
            };
            // serde_json reads numbers to within an ulp or so.
            let start = v["otherData"]["start_seconds"].as_f64().unwrap();
            assert!(
                (start - t0).abs() <= 1e-15 * t0.abs().max(1.0),
                "{start} vs {t0}"
            );
        }
    }
    // A window: what meets it, times from its start.
    let bytes = std::fs::read(slog2).unwrap();
    let r = Slog2Reader::new(Cursor::new(&bytes[..])).unwrap();
    let root = r.tree_dir().unwrap().value.entries[0];
    let span = root.latest - root.earliest;
    let (a, b) = (root.earliest + 0.3 * span, root.earliest + 0.5 * span);
    let (want, _) = drawables(slog2, Some((a, b)));
    let out = dir.path().join("w.json");
    export(
        slog2,
        &out,
        &["--from", &a.to_string(), "--to", &b.to_string()],
    );
    compare(read_chrome(&out), &want, "window");
}

#[test]
fn pipit_csv_reads_back_with_python() {
    let dir = tempfile::tempdir().unwrap();
    let clog2 = synth(dir.path(), "t.clog2", &["--events", "20000", "--seed", "4"]);
    let slog2 = dir.path().join("t.slog2");
    let slog2 = slog2.to_str().unwrap();
    assert!(mpelog(&["convert", &clog2, "-o", slog2]).status.success());
    let (want, _) = drawables(slog2, None);
    let count = |k| want.iter().filter(|x| x.0 == k).count();
    let out = dir.path().join("a.csv");
    export(slog2, &out, &[]);
    // Python's csv module: counts per row kind, Enter/Leave matched per
    // (Process, Thread) by name, timestamps never going back on a track.
    let script = r#"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert list(rows[0].keys()) == ["Timestamp (ns)", "Event Type", "Name", "Thread", "Process", "Attributes"]
stacks, last = {}, {}
n = {"Enter": 0, "Leave": 0, "Instant": 0, "MpiSend": 0, "MpiRecv": 0}
for r in rows:
    loc, t = (r["Process"], r["Thread"]), int(r["Timestamp (ns)"])
    assert t >= last.get(loc, t), r
    last[loc] = t
    kind = r["Event Type"]
    if kind == "Enter":
        stacks.setdefault(loc, []).append(r["Name"])
    elif kind == "Leave":
        assert stacks[loc].pop() == r["Name"], r
    if r["Name"] in ("MpiSend", "MpiRecv"):
        n[r["Name"]] += 1
        a = json.loads(r["Attributes"])
        assert ("receiver" if r["Name"] == "MpiSend" else "sender") in a
        assert a["msg_length"] is not None
    else:
        n[kind] += 1
assert all(not s for s in stacks.values())
print(n["Enter"], n["Leave"], n["Instant"], n["MpiSend"], n["MpiRecv"])
"#;
    let o = std::process::Command::new("python3")
        .args(["-c", script, out.to_str().unwrap()])
        .output()
        .expect("python3 runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let got: Vec<usize> = String::from_utf8(o.stdout)
        .unwrap()
        .split_whitespace()
        .map(|x| x.parse().unwrap())
        .collect();
    let (states, events, arrows) = (
        count(topology::STATE),
        count(topology::EVENT),
        count(topology::ARROW),
    );
    assert!(states > 0 && events > 0 && arrows > 0);
    assert_eq!(got, vec![states, states, events, arrows, arrows]);

    // pandas, as a data-frame user loads it (CI installs pandas), and pipit's
    // communication matrix computed the way pipit computes it from these
    // columns: ranks 0..n-1 index an n-by-n array, the sender's `Process` and
    // the `receiver` attribute, summing `msg_length` (and counting messages).
    let pandas = r#"
import json, sys
import numpy as np
import pandas as pd
df = pd.read_csv(sys.argv[1])
print(len(df), int((df["Event Type"] == "Enter").sum()))
df["Attributes"] = df["Attributes"].map(lambda s: json.loads(s) if isinstance(s, str) else None)
sends = df[df["Name"] == "MpiSend"]
n = len(set(df["Process"]))
size, count = np.zeros((n, n)), np.zeros((n, n))
for p, a in zip(sends["Process"], sends["Attributes"]):
    size[p, a["receiver"]] += a["msg_length"]
    count[p, a["receiver"]] += 1
print(json.dumps([[int(i), int(j), int(count[i, j]), int(size[i, j])] for i, j in zip(*np.nonzero(count))]))
"#;
    let o = std::process::Command::new("python3")
        .args(["-c", pandas, out.to_str().unwrap()])
        .output()
        .expect("python3 runs");
    if !o.status.success()
        && String::from_utf8_lossy(&o.stderr).contains("No module named 'pandas'")
    {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI installs pandas (.ci/run)"
        );
        eprintln!("pandas is not installed: the pandas read was skipped");
        return;
    }
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    let mut lines = text.lines();
    let got: Vec<usize> = lines
        .next()
        .unwrap()
        .split_whitespace()
        .map(|x| x.parse().unwrap())
        .collect();
    assert_eq!(got, vec![2 * states + events + 2 * arrows, states]);
    // The matrix equals `mpelog stats`' (messages and bytes per pair of
    // timelines), its line IDs taken to world ranks by the process view.
    let matrix: Vec<Vec<u64>> = serde_json::from_str(lines.next().unwrap()).unwrap();
    let stats: Value =
        serde_json::from_str(&common::stdout(&mpelog(&["stats", slog2, "--json"]))).unwrap();
    let r = Slog2Reader::new(std::fs::File::open(slog2).unwrap()).unwrap();
    let rank: HashMap<u64, u64> = r.line_id_maps().unwrap().value.maps[0]
        .rows
        .iter()
        .map(|row| (row.line_id as u64, row.values[0] as u64))
        .collect();
    let mut pairs: std::collections::BTreeMap<(u64, u64), (u64, u64)> = Default::default();
    for m in stats["messages"].as_array().unwrap() {
        let n = |k: &str| m[k].as_u64().unwrap();
        let e = pairs
            .entry((rank[&n("sender")], rank[&n("receiver")]))
            .or_default();
        e.0 += n("messages");
        e.1 += n("bytes");
    }
    let want: Vec<Vec<u64>> = pairs
        .into_iter()
        .map(|((s, r), (c, b))| vec![s, r, c, b])
        .collect();
    assert!(!want.is_empty());
    assert_eq!(matrix, want, "pipit's communication matrix");
}

#[test]
fn export_refuses_what_it_cannot_write() {
    let dir = tempfile::tempdir().unwrap();
    let clog2 = synth(dir.path(), "t.clog2", &["--events", "2000"]);
    for out in ["x.txt", "x.pdf"] {
        let o = mpelog(&[
            "export",
            &clog2,
            "-o",
            dir.path().join(out).to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{out}");
        assert!(!dir.path().join(out).exists());
    }
    // A CLOG2 trace exports (converted on the way) like its SLOG-2.
    let slog2 = dir.path().join("t.slog2");
    assert!(mpelog(&["convert", &clog2, "-o", slog2.to_str().unwrap()])
        .status
        .success());
    export(&clog2, &dir.path().join("c.json"), &[]);
    export(slog2.to_str().unwrap(), &dir.path().join("s.json"), &[]);
    assert_eq!(
        std::fs::read(dir.path().join("c.json")).unwrap(),
        std::fs::read(dir.path().join("s.json")).unwrap()
    );
}

/// Decodes a Perfetto export with the protobuf classes of Perfetto's own Python
/// package and returns `(kind, name, start ns, end ns)` per exported item and
/// the start time the export recorded, after checking that every track's
/// slices nest and every flow has both ends on a zero-length slice.
fn read_perfetto(path: &Path) -> Option<(Vec<Item>, f64)> {
    let script = r##"
import json, sys
try:
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb
except ImportError:
    print("NO-PERFETTO"); sys.exit(0)
t = pb.Trace(); t.ParseFromString(open(sys.argv[1], "rb").read())
names, stacks, last, out, flows, start = {}, {}, {}, [], {}, None
cats, args, tracks = {}, {}, []
for p in t.packet:
    if p.HasField("track_descriptor") and p.track_descriptor.uuid == 1:
        start = float(p.track_descriptor.name.split("start ")[1].split(" s")[0])
        assert p.track_descriptor.child_ordering == pb.TrackDescriptor.EXPLICIT
    elif p.HasField("track_descriptor"):
        d = p.track_descriptor
        assert d.parent_uuid == 1, d
        tracks.append((d.sibling_order_rank, d.name))
    for n in p.interned_data.event_names:
        names[n.iid] = n.name
    for n in p.interned_data.event_categories:
        cats[n.iid] = n.name
    for n in p.interned_data.debug_annotation_names:
        args[n.iid] = n.name
    if not p.HasField("track_event"):
        continue
    e, ts = p.track_event, p.timestamp
    tr = e.track_uuid
    assert ts >= last.get(tr, 0), "time goes back on a track"
    last[tr] = ts
    if e.type != pb.TrackEvent.TYPE_SLICE_END:
        # The category (interned) and the legend index (an interned argument).
        kind = [cats[i] for i in e.category_iids]
        a = {args[d.name_iid]: d for d in e.debug_annotations}
        flow = bool(e.flow_ids or e.terminating_flow_ids)
        want = "arrow" if flow else ("event" if e.type == pb.TrackEvent.TYPE_INSTANT else "state")
        assert kind == [want], (kind, want)
        assert a["color"].string_value.startswith("#"), a
        label = "%s#%d" % (names[e.name_iid], a["category"].int_value)
    if e.type == pb.TrackEvent.TYPE_SLICE_BEGIN:
        stacks.setdefault(tr, []).append((label, ts, list(e.flow_ids), list(e.terminating_flow_ids)))
    elif e.type == pb.TrackEvent.TYPE_SLICE_END:
        name, t0, fl, term = stacks[tr].pop()
        for f in fl:
            assert ts == t0 and flows.setdefault(f, [None, None])[0] is None
            flows[f][0] = t0
        for f in term:
            assert ts == t0 and flows.setdefault(f, [None, None])[1] is None
            flows[f][1] = t0
        if not fl and not term:
            out.append((1, name, t0, ts))
    elif e.type == pb.TrackEvent.TYPE_INSTANT:
        out.append((0, label, ts, ts))
assert all(not s for s in stacks.values()), "every slice ends"
# Tracks in rank order: "world_rank R" (and "world_rank R (lane)") by R.
tracks.sort()
ranks = [int(n.split(" ")[1]) for _, n in tracks]
assert ranks == sorted(ranks), tracks
assert len(set(r for r, _ in tracks)) == len(tracks), "distinct order ranks"
for f, (s, r) in flows.items():
    assert s is not None and r is not None, f
    out.append((2, "", min(s, r), max(s, r)))
print(json.dumps({"items": out, "start": start}))
"##;
    let o = std::process::Command::new("python3")
        .args(["-c", script, path.to_str().unwrap()])
        .output()
        .expect("python3 runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    if text.trim() == "NO-PERFETTO" {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI installs perfetto (.ci/run)"
        );
        eprintln!("Python package perfetto is not installed: the Perfetto decode was skipped");
        return None;
    }
    let v: Value = serde_json::from_str(&text).unwrap();
    let items = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x[0].as_i64().unwrap() as i32,
                x[1].as_str().unwrap().to_string(),
                x[2].as_i64().unwrap(),
                x[3].as_i64().unwrap(),
            )
        })
        .collect();
    Some((items, v["start"].as_f64().unwrap()))
}

#[test]
fn perfetto_trace_decodes_with_perfettos_protos() {
    let dir = tempfile::tempdir().unwrap();
    let clog2 = synth(dir.path(), "t.clog2", &["--events", "20000", "--seed", "8"]);
    let slog2 = dir.path().join("t.slog2");
    let slog2 = slog2.to_str().unwrap();
    assert!(
        mpelog(&["convert", &clog2, "-o", slog2, "--leaf-bytes", "2k"])
            .status
            .success()
    );
    let mut inputs = vec![slog2.to_string()];
    if let Some(root) = common::corpus() {
        for f in [
            "mpe/comm1_isr_n4.slog2",
            "mpe/cpilog_n4.slog2",
            "mpe/p2p_n4_bs4k.slog2",
        ] {
            inputs.push(common::corpus_file(&root, f));
        }
    }
    for input in &inputs {
        let out = dir.path().join("a.pftrace");
        export(input, &out, &[]);
        let Some((got, start)) = read_perfetto(&out) else {
            return;
        };
        let (want, t0) = drawables_named(input, None, true);
        // (serde_json reads numbers to within an ulp or so)
        assert!(
            (start - t0).abs() <= 1e-15 * t0.abs().max(1.0),
            "{input}: start {start} vs {t0}"
        );
        compare(got, &want, &format!("{input} perfetto"));
    }
}

/// Chrome JSON times, exactly: every state's begin and end, every instant and
/// both ends of every arrow are `round((t − from) × 10⁹)` nanoseconds (`from`
/// the span's start: the first primitive's start for a whole file, the
/// window's start otherwise), computed here from the file's drawables; no
/// nanosecond of tolerance. `otherData.start_seconds` is `from` in Rust's
/// shortest round-trip form.
#[test]
fn chrome_json_times_are_exactly_the_specs_nanoseconds() {
    let dir = tempfile::tempdir().unwrap();
    let clog2 = synth(dir.path(), "t.clog2", &["--events", "20000", "--seed", "5"]);
    let slog2 = dir.path().join("t.slog2");
    let slog2 = slog2.to_str().unwrap();
    let o = mpelog(&["convert", &clog2, "-o", slog2, "--leaf-bytes", "2k"]);
    assert!(o.status.success());
    let mut inputs = vec![slog2.to_string()];
    if let Some(root) = common::corpus() {
        for f in [
            "mpe/comm1_isr_n4.slog2",
            "mpe/cpilog_n4.slog2",
            "mpe/p2p_n4_bs4k.slog2",
            "mpe/nested_states_n16.slog2",
            "mpe/colls_n16.slog2",
            "mpe/srtest_n2.slog2",
        ] {
            inputs.push(common::corpus_file(&root, f));
        }
    }
    let out = dir.path().join("a.json");
    for input in &inputs {
        let all = primitives_of(input);
        let first = all
            .iter()
            .map(Primitive::earliest)
            .fold(f64::INFINITY, f64::min);
        let last = all
            .iter()
            .map(Primitive::latest)
            .fold(f64::NEG_INFINITY, f64::max);
        let span = last - first;
        // The whole file; windows at fractions of it; a window starting
        // exactly at a primitive's start in the middle of the file.
        let mut windows = vec![None];
        for (f, g) in [(0.3, 0.5), (0.01, 0.99), (0.5, 0.5000001)] {
            windows.push(Some((first + f * span, first + g * span)));
        }
        let mid = all[all.len() / 2].earliest();
        windows.push(Some((mid, mid + 0.1 * span)));
        let mut compared = 0;
        for window in windows {
            let (want, t0) = drawables_exact(input, &all, window, first);
            if want.is_empty() {
                // A window in a gap of the trace.
                continue;
            }
            compared += 1;
            let mut extra = vec![];
            let (a, b) = window.map_or((String::new(), String::new()), |(a, b)| {
                (a.to_string(), b.to_string())
            });
            if window.is_some() {
                extra = vec!["--from", a.as_str(), "--to", b.as_str()];
            }
            export(input, &out, &extra);
            let text = std::fs::read_to_string(&out).unwrap();
            assert!(
                text.contains(&format!("\"start_seconds\":{t0:?}}}")),
                "{input} {window:?}: start_seconds is {t0:?}"
            );
            let what = format!("{input} {window:?}");
            let got = read_chrome(&out);
            for kind in [topology::STATE, topology::EVENT, topology::ARROW] {
                let mut g: Vec<_> = got.iter().filter(|x| x.0 == kind).cloned().collect();
                let mut w: Vec<_> = want.iter().filter(|x| x.0 == kind).cloned().collect();
                if kind == topology::ARROW {
                    g.iter_mut().chain(w.iter_mut()).for_each(|x| x.1.clear());
                }
                g.sort();
                w.sort();
                assert_eq!(g.len(), w.len(), "{what}: kind {kind} count");
                if g != w {
                    let extra: Vec<&Item> =
                        g.iter().filter(|x| w.binary_search(x).is_err()).collect();
                    let missing: Vec<&Item> =
                        w.iter().filter(|x| g.binary_search(x).is_err()).collect();
                    panic!(
                        "{what}: {} of {} items of kind {kind} are not the drawables' (first {:?}); \
                         {} drawables have no item (first {:?})",
                        extra.len(),
                        g.len(),
                        extra.first(),
                        missing.len(),
                        missing.first()
                    );
                }
            }
        }
        assert!(compared >= 3, "{input}: {compared} windows had drawables");
    }
}

/// Every real primitive of a SLOG-2 file (the parts of composites one by one).
fn primitives_of(path: &str) -> Vec<Primitive> {
    let f = Slog2File::parse(&std::fs::read(path).unwrap()).unwrap();
    let mut all = Vec::new();
    for n in f.nodes() {
        for d in n.value.nestless.iter().chain(&n.value.nestable) {
            match d {
                Drawable::Primitive(p) => all.push(p.clone()),
                Drawable::Composite(c) => all.extend(c.primitives.iter().cloned()),
            }
        }
    }
    all
}

/// `(kind, name, start ns, end ns)` of the primitives of `all` meeting the
/// window, times `round((t − from) × 10⁹)` with `from` the window's start
/// (or `first`, the first start, for the whole file), and `from`.
fn drawables_exact(
    path: &str,
    all: &[Primitive],
    window: Option<(f64, f64)>,
    first: f64,
) -> (Vec<Item>, f64) {
    let r = Slog2Reader::new(Cursor::new(std::fs::read(path).unwrap())).unwrap();
    let cats: HashMap<i32, (String, i32)> = r
        .categories()
        .unwrap()
        .value
        .categories
        .iter()
        .map(|c| (c.index, (c.name.text(), c.topology)))
        .collect();
    let (a, b) = window.unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
    let from = window.map_or(first, |w| w.0);
    let ns = |t: f64| ((t - from) * 1e9).round() as i64;
    let out = all
        .iter()
        .filter(|p| p.earliest() < b && p.latest() >= a)
        .map(|p| {
            let (name, topo) = cats[&p.category].clone();
            (topo, name, ns(p.earliest()), ns(p.latest()))
        })
        .collect();
    (out, from)
}

/// One flow: `(begin ns, begin track, to, end ns, end track, from)`.
type Flow = (i64, String, String, i64, String, String);

/// The flows of a Perfetto export, decoded with Perfetto's Python protos:
/// `(begin ns, begin track, to, end ns, end track, from)` per flow, where
/// the begin is the slice holding the flow in `flow_ids`, the end the slice
/// holding it in `terminating_flow_ids`, and `to`/`from` their annotations.
fn perfetto_flows(path: &Path) -> Option<Vec<Flow>> {
    let script = r##"
import json, sys
try:
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb
except ImportError:
    print("NO-PERFETTO"); sys.exit(0)
t = pb.Trace(); t.ParseFromString(open(sys.argv[1], "rb").read())
tracks, args, flows = {}, {}, {}
for p in t.packet:
    if p.HasField("track_descriptor"):
        tracks[p.track_descriptor.uuid] = p.track_descriptor.name
    for n in p.interned_data.debug_annotation_names:
        args[n.iid] = n.name
    if not p.HasField("track_event"):
        continue
    e = p.track_event
    if e.type != pb.TrackEvent.TYPE_SLICE_BEGIN:
        continue
    a = {args[d.name_iid]: d.string_value for d in e.debug_annotations}
    for f in e.flow_ids:
        assert f not in flows or flows[f][0] is None, f
        flows.setdefault(f, [None, None])[0] = (p.timestamp, tracks[e.track_uuid], a.get("to"))
    for f in e.terminating_flow_ids:
        assert f not in flows or flows[f][1] is None, f
        flows.setdefault(f, [None, None])[1] = (p.timestamp, tracks[e.track_uuid], a.get("from"))
out = []
for f, (b, e) in sorted(flows.items()):
    assert b is not None and e is not None, f
    out.append([b[0], b[1], b[2], e[0], e[1], e[2]])
print(json.dumps(out))
"##;
    let o = std::process::Command::new("python3")
        .args(["-c", script, path.to_str().unwrap()])
        .output()
        .expect("python3 runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    if text.trim() == "NO-PERFETTO" {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI installs perfetto (.ci/run)"
        );
        eprintln!("Python package perfetto is not installed: the Perfetto decode was skipped");
        return None;
    }
    let v: Value = serde_json::from_str(&text).unwrap();
    let s = |x: &Value| x.as_str().unwrap_or("(none)").to_string();
    Some(
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| {
                (
                    x[0].as_i64().unwrap(),
                    s(&x[1]),
                    s(&x[2]),
                    x[3].as_i64().unwrap(),
                    s(&x[4]),
                    s(&x[5]),
                )
            })
            .collect(),
    )
}

/// Perfetto flows have a direction: each arrow's flow begins (`flow_ids`) on
/// a slice at its send time (first vertex) on its sender's track and ends
/// (`terminating_flow_ids`) at its receive time (last vertex) on its
/// receiver's track; the send names the receiver's track (`to`), the receive
/// the sender's (`from`). Exported in the identity view (a track per line ID,
/// `line V`-like names built from the line ID here) and compared with the
/// arrows of the file, times exactly `round((t − first start) × 10⁹)`.
#[test]
fn perfetto_flows_run_from_the_send_to_the_receive() {
    let dir = tempfile::tempdir().unwrap();
    let clog2 = synth(dir.path(), "t.clog2", &["--events", "20000", "--seed", "9"]);
    let slog2 = dir.path().join("t.slog2");
    let slog2 = slog2.to_str().unwrap();
    assert!(
        mpelog(&["convert", &clog2, "-o", slog2, "--leaf-bytes", "2k"])
            .status
            .success()
    );
    let mut inputs = vec![slog2.to_string()];
    if let Some(root) = common::corpus() {
        for f in [
            "mpe/comm1_isr_n4.slog2",
            "mpe/p2p_n4_bs4k.slog2",
            "mpe/colls_n8.slog2",
        ] {
            inputs.push(common::corpus_file(&root, f));
        }
    }
    for input in &inputs {
        let r = Slog2Reader::new(Cursor::new(std::fs::read(input).unwrap())).unwrap();
        let legend = &r.categories().unwrap().value.categories;
        let arrows: Vec<i32> = legend
            .iter()
            .filter(|c| c.topology == topology::ARROW)
            .map(|c| c.index)
            .collect();
        let maps = &r.line_id_maps().unwrap().value.maps;
        let identity = maps
            .iter()
            .position(|m| m.title.text().eq_ignore_ascii_case("Identity Map"))
            .expect("an identity map");
        let label = maps[identity].labels[0].text();
        let all = primitives_of(input);
        let first = all
            .iter()
            .map(Primitive::earliest)
            .fold(f64::INFINITY, f64::min);
        let ns = |t: f64| ((t - first) * 1e9).round() as i64;
        let track = |line: i32| format!("{label} {line}");
        let mut want: Vec<_> = all
            .iter()
            .filter(|p| arrows.contains(&p.category))
            .map(|p| {
                let (s, r) = (p.vertices[0], p.vertices[p.vertices.len() - 1]);
                (
                    ns(s.time),
                    track(s.line_id),
                    track(r.line_id),
                    ns(r.time),
                    track(r.line_id),
                    track(s.line_id),
                )
            })
            .collect();
        assert!(!want.is_empty(), "{input} has arrows");
        // Arrows whose direction the times alone cannot give.
        let backwards = all
            .iter()
            .filter(|p| arrows.contains(&p.category))
            .filter(|p| p.vertices[0].time >= p.vertices[1].time)
            .count();
        let out = dir.path().join("f.pftrace");
        export(input, &out, &["--view", &identity.to_string()]);
        let Some(mut got) = perfetto_flows(&out) else {
            return;
        };
        want.sort();
        got.sort();
        assert_eq!(got.len(), want.len(), "{input}: one flow per arrow");
        let off: Vec<_> = got.iter().zip(&want).filter(|(g, w)| g != w).collect();
        assert!(
            off.is_empty(),
            "{input}: {} of {} flows differ (got, want): first {:?} ({backwards} arrows \
             do not go forward in time)",
            off.len(),
            got.len(),
            off.first()
        );
    }
}

/// CLOG2, old CLOG, ALOG and SLOG-1 traces export in one pass (events paired
/// as `convert` pairs them, drawables put in time order in memory or through
/// sorted runs in an unnamed temporary file): every format's output is byte
/// for byte the export of the converted SLOG-2 file, whole and in a window,
/// and the temporary directory is left empty.
#[test]
fn one_pass_export_equals_the_export_of_the_converted_file() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let synth = synth(
        dir.path(),
        "s.clog2",
        &["--events", "30000", "--ranks", "6", "--seed", "3"],
    );
    let mut inputs = vec![synth];
    if let Some(root) = common::corpus() {
        for f in [
            "mpe/cpilog_n4.clog2",
            "mpe/nested_states_n4.clog2",
            "mpe/p2p_n8.clog2",
            "mpich1/clog1/fpilog.clog",
            "mpich1/clog1/nesttest.clog",
            "mpich1/alog/cpilog.alog",
            "mpich1/alog/srtest.alog",
            "mpich1/slog1/sample.slog",
        ] {
            inputs.push(common::corpus_file(&root, f));
        }
    }
    let run = |args: &[&str]| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_mpelog"))
            .args(args)
            .env("TMPDIR", tmp.path())
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let mut spilled = 0;
    for (i, input) in inputs.iter().enumerate() {
        let converted = dir.path().join(format!("c{i}.slog2"));
        let converted = converted.to_str().unwrap();
        run(&["convert", input, "-o", converted]);
        // A window around the middle of the converted file's time span.
        let r = Slog2Reader::new(std::fs::File::open(converted).unwrap()).unwrap();
        let whole = mpelog::export::Ordered::span(&r, None, None);
        let span = whole.to - whole.from;
        let (a, b) = (
            (whole.from + 0.3 * span).to_string(),
            (whole.from + 0.6 * span).to_string(),
        );
        for &ext in FORMATS {
            for window in [&[][..], &["--from", &a, "--to", &b][..]] {
                let out = |name: &str| dir.path().join(format!("{name}.{ext}"));
                let (want, one, spill) = (out("want"), out("one"), out("spill"));
                let with = |input: &str, out: &Path, extra: &[&str]| {
                    let mut args = vec!["export", input, "-o", out.to_str().unwrap()];
                    args.extend_from_slice(window);
                    args.extend_from_slice(extra);
                    run(&args)
                };
                with(converted, &want, &[]);
                let said = with(input, &one, &[]);
                assert!(!said.contains("sorted runs"), "{input}: {said}");
                let said = with(input, &spill, &["--sort-memory", "1k"]);
                spilled += usize::from(said.contains("sorted runs"));
                let want = std::fs::read(&want).unwrap();
                assert!(!want.is_empty());
                for got in [&one, &spill] {
                    assert!(
                        std::fs::read(got).unwrap() == want,
                        "{input} {ext} {window:?}: {} differs from the export of the converted file",
                        got.display()
                    );
                }
            }
        }
    }
    // The generated trace is in time order, read in two passes and never
    // sorted: the corpus's older formats are what spill.
    if inputs.len() > 1 {
        assert!(
            spilled >= 8,
            "a 1 KiB sort memory spills ({spilled} exports did)"
        );
    }
    // The same trace as a compressed SLOG-2 file and through its annotation.
    let (trace, plain) = (&inputs[0], dir.path().join("c0.slog2"));
    let z = dir.path().join("z.slog2");
    run(&[
        "convert",
        trace,
        "-o",
        z.to_str().unwrap(),
        "--compress",
        "deflate",
        "--leaf-bytes",
        "4k",
    ]);
    let idx = format!("{trace}.idx");
    run(&["annotate", trace, "--leaf-bytes", "8k"]);
    for &ext in FORMATS {
        let out = |name: &str| dir.path().join(format!("{name}.{ext}"));
        let mut bytes = Vec::new();
        for (input, name) in [
            (plain.to_str().unwrap(), "p"),
            (z.to_str().unwrap(), "z"),
            (&idx[..], "a"),
        ] {
            run(&["export", input, "-o", out(name).to_str().unwrap()]);
            bytes.push((name, std::fs::read(out(name)).unwrap()));
        }
        for (name, b) in &bytes[1..] {
            if ext == "parquet" && *name == "a" {
                // The same rows; the row groups follow the annotation's box.
                assert_eq!(parquet_rows(&out("a")), parquet_rows(&out("p")));
                continue;
            }
            assert!(
                *b == bytes[0].1,
                "{ext}: export of {name} differs from the plain file's"
            );
        }
    }
    assert_eq!(
        std::fs::read_dir(tmp.path()).unwrap().count(),
        0,
        "nothing is left in TMPDIR"
    );
}

/// The output formats (Parquet when built with it).
const FORMATS: &[&str] = if cfg!(feature = "parquet") {
    &["pftrace", "json", "csv", "parquet"]
} else {
    &["pftrace", "json", "csv"]
};

/// The rows of a Parquet file as text, in order.
#[cfg(feature = "parquet")]
fn parquet_rows(path: &Path) -> Vec<String> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let r = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    let rows: Vec<String> = r
        .get_row_iter(None)
        .unwrap()
        .map(|row| row.unwrap().to_string())
        .collect();
    assert!(!rows.is_empty());
    rows
}

#[cfg(not(feature = "parquet"))]
fn parquet_rows(_path: &Path) -> Vec<String> {
    Vec::new()
}

/// A one-pass export whose sorted runs cannot be written (no temporary
/// directory) fails naming that directory, and leaves no output behind.
#[test]
fn a_temporary_directory_that_fails_fails_the_export_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let clog2 = synth(dir.path(), "t.clog2", &["--events", "20000", "--seed", "2"]);
    let missing = dir.path().join("no-such-dir");
    let out = dir.path().join("t.json");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_mpelog"))
        .args([
            "export",
            &clog2,
            "-o",
            out.to_str().unwrap(),
            "--sort-memory",
            "1k",
        ])
        .env("TMPDIR", &missing)
        .output()
        .unwrap();
    assert!(!o.status.success());
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(said.contains(missing.to_str().unwrap()), "{said}");
    assert!(!out.exists());
    assert_eq!(common::leftovers(dir.path()), 0);
    // With memory enough, nothing is written there and the export succeeds.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_mpelog"))
        .args(["export", &clog2, "-o", out.to_str().unwrap()])
        .env("TMPDIR", &missing)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// `--view` picks the line-ID map whose rows are the tracks, by title (any
/// case) or position; every drawable is exported whatever the view; an
/// unknown view is refused, naming the file's views, and writes nothing.
#[test]
fn the_view_picks_the_timelines() {
    let dir = tempfile::tempdir().unwrap();
    let clog2 = synth(
        dir.path(),
        "t.clog2",
        &["--events", "20000", "--ranks", "5", "--seed", "6"],
    );
    let names = |extra: &[&str]| -> (Vec<String>, usize) {
        let out = dir.path().join("v.json");
        export(&clog2, &out, extra);
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        let events = v["traceEvents"].as_array().unwrap();
        let names = events
            .iter()
            .filter(|e| e["name"] == "thread_name")
            .map(|e| e["args"]["name"].as_str().unwrap().to_string())
            .collect();
        let begins = events.iter().filter(|e| e["ph"] == "B").count();
        (names, begins)
    };
    let (process, states) = names(&[]);
    assert!(
        !process.is_empty() && process.iter().all(|n| n.starts_with("world_rank ")),
        "{process:?}"
    );
    let (comm, comm_states) = names(&["--view", "communicator VIEW"]);
    assert!(
        comm.iter()
            .all(|n| n.starts_with("commID ") && n.contains(", comm_rank ")),
        "{comm:?}"
    );
    assert!(
        comm.len() > process.len(),
        "communicators give more timelines"
    );
    assert_eq!(comm_states, states, "every state, whatever the view");
    assert_eq!(names(&["--view", "1"]).0, comm, "by position");
    assert_eq!(names(&["--view", "0"]).0, process);
    // Unknown: refused, naming the views, nothing written.
    let out = dir.path().join("none.json");
    let o = mpelog(&[
        "export",
        &clog2,
        "-o",
        out.to_str().unwrap(),
        "--view",
        "Thread View",
    ]);
    assert!(!o.status.success());
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(
        said.contains("Process View") && said.contains("Communicator View"),
        "{said}"
    );
    assert!(!out.exists());
    assert_eq!(common::leftovers(dir.path()), 0);
}
