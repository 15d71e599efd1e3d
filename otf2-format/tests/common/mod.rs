//! Shared by the integration tests: the canonical dump our reader makes,
//! the same one `oracle/otf2_oracle.py dump` makes with libotf2.

#![allow(dead_code)]

use otf2_format::defs::{Metric, UNDEFINED};
use otf2_format::{Archive, EventKind, Value};
use serde_json::{json, Value as J};
use std::path::{Path, PathBuf};
use std::process::Command;

pub fn oracle_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/otf2_oracle.py")
}

/// Whether libotf2's Python package is importable; without it the oracle
/// tests skip (with a message), unless `CI` is set, where they fail.
pub fn have_oracle() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import otf2"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        if std::env::var_os("CI").is_some() {
            panic!("CI is set but `python3 -c 'import otf2'` fails: pip install otf2");
        }
        eprintln!("skipped: python3 cannot import otf2 (pip install otf2)");
    }
    ok
}

pub fn python_dump(anchor: &Path) -> J {
    let out = Command::new("python3")
        .arg(oracle_script())
        .arg("dump")
        .arg(anchor)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "oracle dump failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("oracle prints JSON")
}

pub fn python_write(seed: u64, dir: &Path, events: u32) {
    let out = Command::new("python3")
        .arg(oracle_script())
        .arg("write")
        .arg(seed.to_string())
        .arg(dir)
        .arg(events.to_string())
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "oracle write failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn opt(r: u32) -> J {
    if r == UNDEFINED {
        J::Null
    } else {
        json!(r)
    }
}

fn value(v: &Value) -> J {
    match *v {
        Value::Unsigned(u) => json!(u),
        Value::Signed(i) => json!(i),
        Value::Float(f) => json!(f),
        Value::Ref(r) => json!(r),
    }
}

/// Our reader's canonical dump (the shape of `otf2_oracle.py dump`).
pub fn rust_dump(a: &Archive) -> J {
    let d = &a.defs;
    let s = |r: u32| d.string(r).to_string();
    let mut out = serde_json::Map::new();
    out.insert(
        "clock".into(),
        json!([
            d.clock.timer_resolution,
            d.clock.global_offset,
            d.clock.trace_length
        ]),
    );
    out.insert(
        "locations".into(),
        d.locations
            .iter()
            .map(|(id, l)| {
                json!([
                    id,
                    s(l.name),
                    l.location_type,
                    l.number_of_events,
                    l.location_group
                ])
            })
            .collect(),
    );
    out.insert(
        "location_groups".into(),
        d.location_groups
            .iter()
            .map(|(id, g)| json!([id, s(g.name), g.group_type, opt(g.system_tree_parent)]))
            .collect(),
    );
    out.insert(
        "system_tree".into(),
        d.system_tree
            .iter()
            .map(|(id, n)| json!([id, s(n.name), s(n.class_name), opt(n.parent)]))
            .collect(),
    );
    out.insert(
        "regions".into(),
        d.regions
            .iter()
            .map(|(id, r)| {
                json!([
                    id,
                    s(r.name),
                    s(r.canonical_name),
                    s(r.description),
                    r.role,
                    r.paradigm,
                    r.flags,
                    s(r.source_file),
                    r.begin_line,
                    r.end_line
                ])
            })
            .collect(),
    );
    out.insert(
        "groups".into(),
        d.groups
            .iter()
            .map(|(id, g)| json!([id, s(g.name), g.group_type, g.paradigm, g.flags, g.members]))
            .collect(),
    );
    out.insert(
        "comms".into(),
        d.comms
            .iter()
            .map(|(id, c)| json!([id, s(c.name), c.group, opt(c.parent)]))
            .collect(),
    );
    out.insert(
        "attributes".into(),
        d.attributes
            .iter()
            .map(|(id, a)| json!([id, s(a.name), s(a.description), a.type_id]))
            .collect(),
    );
    out.insert(
        "metric_members".into(),
        d.metric_members
            .iter()
            .map(|(id, m)| {
                json!([
                    id,
                    s(m.name),
                    s(m.description),
                    m.metric_type,
                    m.mode,
                    m.value_type,
                    m.base,
                    m.exponent,
                    s(m.unit)
                ])
            })
            .collect(),
    );
    out.insert(
        "metrics".into(),
        d.metrics
            .iter()
            .map(|(id, m)| match m {
                Metric::Class {
                    members,
                    occurrence,
                    recorder_kind,
                } => json!([id, "class", members, occurrence, recorder_kind]),
                Metric::Instance {
                    class,
                    recorder,
                    scope_type,
                    scope,
                } => json!([id, "instance", class, recorder, scope_type, scope]),
            })
            .collect(),
    );
    let mut events = Vec::new();
    for (loc, _) in &d.locations {
        for e in a.location_events(*loc).unwrap() {
            let e = e.unwrap();
            let mut f = vec![json!(e.location), json!(e.time)];
            let name = match &e.kind {
                EventKind::Enter { region } => {
                    f.push(json!("Enter"));
                    f.push(json!(region));
                    None
                }
                EventKind::Leave { region } => {
                    f.push(json!("Leave"));
                    f.push(json!(region));
                    None
                }
                EventKind::MpiSend {
                    receiver,
                    comm,
                    tag,
                    length,
                } => Some((
                    "MpiSend",
                    vec![json!(receiver), json!(comm), json!(tag), json!(length)],
                )),
                EventKind::MpiIsend {
                    receiver,
                    comm,
                    tag,
                    length,
                    request,
                } => Some((
                    "MpiIsend",
                    vec![
                        json!(receiver),
                        json!(comm),
                        json!(tag),
                        json!(length),
                        json!(request),
                    ],
                )),
                EventKind::MpiRecv {
                    sender,
                    comm,
                    tag,
                    length,
                } => Some((
                    "MpiRecv",
                    vec![json!(sender), json!(comm), json!(tag), json!(length)],
                )),
                EventKind::MpiIrecv {
                    sender,
                    comm,
                    tag,
                    length,
                    request,
                } => Some((
                    "MpiIrecv",
                    vec![
                        json!(sender),
                        json!(comm),
                        json!(tag),
                        json!(length),
                        json!(request),
                    ],
                )),
                EventKind::MpiIsendComplete { request } => {
                    Some(("MpiIsendComplete", vec![json!(request)]))
                }
                EventKind::MpiIrecvRequest { request } => {
                    Some(("MpiIrecvRequest", vec![json!(request)]))
                }
                EventKind::MpiRequestTest { request } => {
                    Some(("MpiRequestTest", vec![json!(request)]))
                }
                EventKind::MpiRequestCancelled { request } => {
                    Some(("MpiRequestCancelled", vec![json!(request)]))
                }
                EventKind::MpiCollectiveBegin => Some(("MpiCollectiveBegin", vec![])),
                EventKind::MpiCollectiveEnd {
                    op,
                    comm,
                    root,
                    sent,
                    received,
                } => Some((
                    "MpiCollectiveEnd",
                    vec![
                        json!(op),
                        json!(comm),
                        json!(root),
                        json!(sent),
                        json!(received),
                    ],
                )),
                EventKind::Metric { metric, values } => Some((
                    "Metric",
                    vec![
                        json!(metric),
                        J::Array(values.iter().map(|(_, v)| value(v)).collect()),
                    ],
                )),
                EventKind::ProgramBegin { name, arguments } => Some((
                    "ProgramBegin",
                    vec![
                        json!(s(*name)),
                        J::Array(arguments.iter().map(|a| json!(s(*a))).collect()),
                    ],
                )),
                EventKind::ProgramEnd { exit_status } => {
                    Some(("ProgramEnd", vec![json!(exit_status)]))
                }
                _ => Some(("Other", vec![])),
            };
            if let Some((n, rest)) = name {
                f.push(json!(n));
                f.extend(rest);
            }
            let mut attrs: Vec<(u32, u8, J)> = e
                .attributes
                .iter()
                .map(|a| (a.attribute, a.type_id, value(&a.value)))
                .collect();
            attrs.sort_by_key(|a| a.0);
            f.push(J::Array(
                attrs
                    .into_iter()
                    .map(|(i, t, v)| json!([i, t, v]))
                    .collect(),
            ));
            events.push(J::Array(f));
        }
    }
    out.insert("events".into(), J::Array(events));
    J::Object(out)
}

/// Compares two dumps key by key, naming the first difference.
pub fn assert_same(ours: &J, theirs: &J, what: &str) {
    let (o, t) = (ours.as_object().unwrap(), theirs.as_object().unwrap());
    let mut keys: Vec<_> = t.keys().collect();
    keys.sort();
    for k in keys {
        let (a, b) = (&o[k], &t[k]);
        if a != b {
            if let (Some(a), Some(b)) = (a.as_array(), b.as_array()) {
                for (i, (x, y)) in a.iter().zip(b).enumerate() {
                    assert_eq!(x, y, "{what}: {k}[{i}] differs (ours left, libotf2 right)");
                }
                assert_eq!(a.len(), b.len(), "{what}: {k} lengths differ");
            }
            assert_eq!(a, b, "{what}: {k} differs");
        }
    }
}
