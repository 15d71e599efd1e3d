//! OTF2 → SLOG-2: the corpus's Score-P archives convert into files that pass
//! the conformance checks, with one state per Enter/Leave pair and one arrow
//! per matched send/receive; random archives written by libotf2 (the `otf2`
//! Python package) give exactly the states and arrows that libotf2's reading
//! of their events defines.

mod common;

use common::compare::{category_defs, drawables};
use mpelog_conformance::check::{check_bytes, Options};
use otf2_format::Archive;
use serde_json::Value as J;
use slog2_format::convert::otf2::{otf2_to_slog2, ARROW_CATEGORY};
use slog2_format::types::topology;
use slog2_format::write::TreeOptions;
use slog2_format::Slog2File;
use std::collections::{BTreeMap, HashMap};
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::process::Command;

fn convert(archive: &Archive, leaf: u32) -> (Vec<u8>, slog2_format::convert::otf2::Otf2Counts) {
    let opts = TreeOptions::default().leaf_bytes(leaf);
    let (out, stats) = otf2_to_slog2(archive, Cursor::new(Vec::new()), opts, |_| {}).unwrap();
    let counts = stats.otf2.clone().unwrap();
    assert_eq!(
        stats.tree.drawables,
        counts.states + counts.arrows + counts.collectives + counts.metrics
    );
    (out.into_inner(), counts)
}

/// (state count, arrow count) by the category topology of the file.
fn by_topology(bytes: &[u8]) -> (u64, u64, u64) {
    let f = Slog2File::parse(bytes).unwrap();
    let cats = category_defs(&f);
    let (mut s, mut a, mut e) = (0, 0, 0);
    for ((c, _, _), n) in drawables(&f) {
        match cats[&c].1 {
            topology::STATE => s += u64::from(n),
            topology::ARROW => a += u64::from(n),
            _ => e += u64::from(n),
        }
    }
    (s, a, e)
}

#[test]
fn corpus_archives_convert_and_pass_check() {
    let Some(corpus) = mpelog_conformance::corpus::root() else {
        return;
    };
    for (name, metrics) in [("ping-pong-otf2", 0u64), ("ping-pong-otf2-papi", 84)] {
        let archive = Archive::open(Path::new(&corpus).join("otf2").join(name)).unwrap();
        // Small leaves, so the tree has several levels.
        let (bytes, counts) = convert(&archive, 4096);
        assert_eq!(
            (counts.states, counts.arrows, counts.metrics),
            (42, 16, metrics),
            "{name}"
        );
        assert_eq!(counts.counted["ProgramBegin"], 2);
        let report = check_bytes(&bytes, &Options::default());
        assert!(report.passes(), "{name}: {:?}", report.rule_ids());
        assert_eq!(report.warnings(), 0, "{name}: {:?}", report.rule_ids());
        let (s, a, e) = by_topology(&bytes);
        assert_eq!((s, a, e), (42 + counts.collectives, 16, metrics), "{name}");
    }
}

fn have_oracle() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import otf2"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but `python3 -c 'import otf2'` fails: pip install otf2"
        );
        eprintln!("skipped: python3 cannot import otf2 (pip install otf2)");
    }
    ok
}

fn oracle(args: &[&std::ffi::OsStr]) -> Vec<u8> {
    let script: PathBuf =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../otf2-format/tests/oracle/otf2_oracle.py");
    let out = Command::new("python3")
        .arg(script)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

type StateKey = (i32, u64, u64, String);
type ArrowKey = (i32, u64, i32, u64, Vec<u8>);
/// Communicator, source location, destination location, tag.
type MsgKey = (u64, u64, u64, u64);

/// The states and arrows libotf2's reading of the events defines: Enter/Leave
/// pairs by a stack per location; the k-th send and the k-th receive of each
/// (communicator, source, destination, tag) paired.
fn expected(dump: &J) -> (BTreeMap<StateKey, u32>, BTreeMap<ArrowKey, u32>) {
    let clock = dump["clock"].as_array().unwrap();
    let (res, off) = (
        clock[0].as_u64().unwrap() as f64,
        clock[1].as_u64().unwrap(),
    );
    let secs = |t: u64| ((i128::from(t) - i128::from(off)) as f64 / res).to_bits();
    let line: HashMap<u64, i32> = dump["locations"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, l)| (l[0].as_u64().unwrap(), i as i32))
        .collect();
    let region: HashMap<u64, String> = dump["regions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r[0].as_u64().unwrap(), r[1].as_str().unwrap().to_string()))
        .collect();
    // Communicator → locations by rank (comm groups index the comm-locations group).
    let groups: HashMap<u64, &J> = dump["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g[0].as_u64().unwrap(), g))
        .collect();
    let world: Vec<u64> = groups
        .values()
        .find(|g| g[2] == 4)
        .map(|g| {
            g[5].as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_u64().unwrap())
                .collect()
        })
        .unwrap_or_default();
    let ranks: HashMap<u64, Vec<u64>> = dump["comms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let g = groups[&c[2].as_u64().unwrap()];
            let v = g[5]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| world[m.as_u64().unwrap() as usize]);
            (c[0].as_u64().unwrap(), v.collect())
        })
        .collect();
    let mut states = BTreeMap::new();
    let mut stacks: HashMap<u64, Vec<(u64, u64)>> = HashMap::new();
    let mut sends: BTreeMap<MsgKey, Vec<(u64, u64, u64)>> = BTreeMap::new();
    let mut recvs: BTreeMap<MsgKey, Vec<(u64, u64)>> = BTreeMap::new();
    for e in dump["events"].as_array().unwrap() {
        let loc = e[0].as_u64().unwrap();
        let t = e[1].as_u64().unwrap();
        let u = |i: usize| e[i].as_u64().unwrap();
        match e[2].as_str().unwrap() {
            "Enter" => stacks.entry(loc).or_default().push((u(3), t)),
            "Leave" => {
                let (r, start) = stacks.get_mut(&loc).unwrap().pop().unwrap();
                assert_eq!(r, u(3));
                *states
                    .entry((line[&loc], secs(start), secs(t), region[&r].clone()))
                    .or_insert(0) += 1;
            }
            "MpiSend" | "MpiIsend" => {
                if let Some(&dst) = ranks[&u(4)].get(u(3) as usize) {
                    sends
                        .entry((u(4), loc, dst, u(5)))
                        .or_default()
                        .push((t, loc, u(6)));
                }
            }
            "MpiRecv" | "MpiIrecv" => {
                if let Some(&src) = ranks[&u(4)].get(u(3) as usize) {
                    recvs
                        .entry((u(4), src, loc, u(5)))
                        .or_default()
                        .push((t, loc));
                }
            }
            _ => {}
        }
    }
    let mut arrows = BTreeMap::new();
    for (key, s) in &sends {
        for (&(st, sl, size), &(rt, rl)) in s.iter().zip(recvs.get(key).into_iter().flatten()) {
            let mut info = Vec::new();
            info.extend((key.3 as i32).to_be_bytes());
            info.extend((size as i64).to_be_bytes());
            info.extend((key.0 as i32).to_be_bytes());
            *arrows
                .entry((line[&sl], secs(st), line[&rl], secs(rt), info))
                .or_insert(0) += 1;
        }
    }
    (states, arrows)
}

#[test]
fn random_archives_give_the_states_and_arrows_libotf2_events_define() {
    if !have_oracle() {
        return;
    }
    for (seed, events) in [(11u64, 2000u32), (12, 20_000), (13, 300)] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a");
        oracle(&[
            "write".as_ref(),
            seed.to_string().as_ref(),
            path.as_os_str(),
            events.to_string().as_ref(),
        ]);
        let anchor = path.join("traces.otf2");
        let dump: J =
            serde_json::from_slice(&oracle(&["dump".as_ref(), anchor.as_os_str()])).unwrap();
        let (want_states, want_arrows) = expected(&dump);
        let archive = Archive::open(&anchor).unwrap();
        let (bytes, _) = convert(&archive, 8192);
        assert!(
            check_bytes(&bytes, &Options::default()).passes(),
            "seed {seed}"
        );
        let f = Slog2File::parse(&bytes).unwrap();
        let cats = category_defs(&f);
        let mut states = BTreeMap::new();
        let mut arrows = BTreeMap::new();
        for ((c, v, info), n) in drawables(&f) {
            if c == ARROW_CATEGORY {
                *arrows
                    .entry((v[0].1, v[0].0, v[1].1, v[1].0, info))
                    .or_insert(0) += n;
            } else if cats[&c].1 == topology::STATE && !cats[&c].0.starts_with("collective ") {
                *states
                    .entry((v[0].1, v[0].0, v[1].0, cats[&c].0.clone()))
                    .or_insert(0) += n;
            }
        }
        assert_eq!(states, want_states, "seed {seed}: states");
        assert_eq!(arrows, want_arrows, "seed {seed}: arrows");
        assert!(!want_arrows.is_empty() && !want_states.is_empty());
    }
}
