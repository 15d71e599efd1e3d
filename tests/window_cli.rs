//! `mpelog window`: the output of a small file built here and of corpus windows
//! (insta), the last line `nodes_read=N bytes_read=B drawables=D`, and the exit
//! statuses for wrong usage and bad input.

use slog2_format::*;
mod common;

use common::built::{category, file, header, prim};
use common::*;
use std::path::Path;
use std::process::{Command, Stdio};

/// The last line's three numbers, checked to be exactly
/// `nodes_read=N bytes_read=B drawables=D`, or with `--json` the object
/// `{"cost":{"nodes_read":N,"bytes_read":B,"drawables":D}}`.
fn totals(text: &str) -> (u64, u64, u64) {
    assert!(text.ends_with('\n'), "no final newline");
    let last = text.lines().last().expect("no output");
    if last.starts_with('{') {
        let v: serde_json::Value = serde_json::from_str(last).unwrap();
        let cost = v["cost"].as_object().expect("a cost object");
        assert_eq!(cost.len(), 3, "last line: {last:?}");
        let n = |k: &str| cost[k].as_u64().unwrap_or_else(|| panic!("{k}: {last:?}"));
        return (n("nodes_read"), n("bytes_read"), n("drawables"));
    }
    let fields: Vec<&str> = last.split(' ').collect();
    assert_eq!(fields.len(), 3, "last line: {last:?}");
    let mut v = [0u64; 3];
    for (i, (field, key)) in fields
        .iter()
        .zip(["nodes_read", "bytes_read", "drawables"])
        .enumerate()
    {
        let (k, n) = field.split_once('=').expect("key=value");
        assert_eq!(k, key, "last line: {last:?}");
        assert!(
            !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()),
            "last line: {last:?}"
        );
        v[i] = n.parse().unwrap();
    }
    (v[0], v[1], v[2])
}

/// The lines before the last, split into drawables, shadows and a `shadows=` line.
fn items(text: &str) -> (Vec<&str>, Vec<&str>, Option<u64>) {
    let lines: Vec<&str> = text.lines().collect();
    let body = &lines[..lines.len() - 1];
    let mut drawables = Vec::new();
    let mut shadows = Vec::new();
    let mut count = None;
    for l in body {
        if let Some(n) = l.strip_prefix("shadows=") {
            count = Some(n.parse().unwrap());
        } else if l.starts_with("shadow ") || l.contains(r#""kind":"shadow""#) {
            shadows.push(*l);
        } else {
            drawables.push(*l);
        }
    }
    (drawables, shadows, count)
}

// ---------------------------------------------------------------------------------
// A two-leaf file built here, laid out by the codec.

fn shadow(category: i32, e: f64, l: f64, n: i64, of: i32) -> Shadow {
    Shadow {
        category,
        info: JStr::default(),
        vertices: vec![Coord {
            time: e,
            line_id: 0,
        }],
        earliest: e,
        latest: l,
        num_real_objs: n,
        weights: vec![CategoryWeight {
            category: of,
            incl: 0.25,
            excl: 0.125,
            count: Some(n),
        }],
    }
}

/// Leaves (0,0) = [0, 1] and (0,1) = [1, 2] under the root (1,0) = [0, 2]; a state,
/// an event with info, an arrow, a composite, a long state in the root and an event
/// whose info bytes do not decode by its category's format.
fn built() -> Vec<u8> {
    built_with(4)
}

/// [`built`], with the undecodable event in category `odd` (4 is in the legend,
/// any other is not: such a file is damaged).
fn built_with(odd: i32) -> Vec<u8> {
    let d = Drawable::Primitive;
    let leaf0 = TreeNodeBody {
        header: header(0, 0, 0.0, 1.0, 0),
        nestless: vec![
            d(prim(3, &[0, 0, 0, 3], &[(0.75, 1)])),
            d(prim(odd, &[0xab, 0xcd], &[(0.875, 0)])),
        ],
        nestable: vec![d(prim(1, &[], &[(0.25, 0), (0.5, 0)]))],
        stubs: vec![],
    };
    let leaf1 = TreeNodeBody {
        header: header(0, 1, 1.0, 2.0, 1),
        nestless: vec![d(prim(
            0,
            &[0, 0, 0, 7, 0, 0, 0, 64],
            &[(1.5, 1), (1.25, 0)],
        ))],
        nestable: vec![
            Drawable::Composite(Composite {
                category: 10,
                info: JStr::default(),
                primitives: vec![
                    prim(1, &[], &[(1.0625, 0), (1.125, 0)]),
                    prim(0, &[0, 0, 0, 1, 0, 0, 0, 2], &[(1.1, 0), (1.2, 1)]),
                ],
            }),
            d(prim(1, &[], &[(1.5, 1), (1.75, 1)])),
        ],
        stubs: vec![],
    };
    let root = TreeNodeBody {
        header: header(1, 0, 0.0, 2.0, 2),
        nestless: vec![],
        nestable: vec![d(prim(2, &[], &[(0.5, 0), (1.5, 0)]))],
        stubs: vec![
            Stub {
                header: leaf0.header,
                nestless: vec![shadow(-1, 0.75, 0.875, 2, 3)],
                nestable: vec![shadow(-3, 0.25, 0.5, 1, 1)],
            },
            Stub {
                header: leaf1.header,
                nestless: vec![shadow(-2, 1.1, 1.5, 2, 0)],
                nestable: vec![shadow(-3, 1.0625, 1.75, 2, 1)],
            },
        ],
    };
    let categories = vec![
        category(0, "message", 2, &["msg_tag=", ", msg_size=", ""], b"dd"),
        category(1, "Compute", 1, &[], b""),
        category(2, "Phase", 1, &[], b""),
        category(3, "Tick", 0, &["tick ", ""], b"d"),
        category(4, "Odd", 0, &["odd ", ""], b"d"),
        category(10, "Group", 1, &[], b""),
        category(-1, "Preview_Event", 0, &[], b""),
        category(-2, "Preview_Arrow", 2, &[], b""),
        category(-3, "Preview_State", 1, &[], b""),
    ];
    file(vec![leaf0, leaf1, root], 2, categories, 2, 2, 4096)
}

fn built_file(dir: &Path) -> (String, u64) {
    let bytes = built();
    let p = dir.join("built.slog2");
    std::fs::write(&p, &bytes).unwrap();
    (p.to_str().unwrap().to_string(), bytes.len() as u64)
}

#[test]
fn a_drawable_of_a_category_missing_from_the_legend_is_an_error_with_its_offset() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("damaged.slog2");
    std::fs::write(&p, built_with(99)).unwrap();
    let o = mpelog(&["window", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty(), "no impossible drawable is printed");
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("byte ") && e.contains("99"), "{e}");
    // --lenient drops it, says so, and answers with the rest.
    let o = mpelog(&["window", p.to_str().unwrap(), "--lenient"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(!text.contains("cat=99"), "{text}");
    let whole = built_file(tmp.path()).0;
    let (_, _, all) = totals(&stdout(&mpelog(&["window", &whole])));
    assert_eq!(totals(&text).2, all - 1);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("dropped 1 drawables and 0 shadows"), "{e}");
    // print and convert (plain and compressed) refuse it too, writing nothing.
    let out = tmp.path().join("copy.slog2");
    for args in [
        vec!["print", p.to_str().unwrap()],
        vec!["convert", p.to_str().unwrap(), "-o", out.to_str().unwrap()],
        vec![
            "convert",
            p.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--compress",
            "deflate",
        ],
    ] {
        let o = mpelog(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains("byte ") && e.contains("99"), "{args:?}: {e}");
        assert!(!out.exists(), "{args:?}");
    }
}

#[test]
fn window_of_a_built_file_matches_the_golden_output() {
    let tmp = tempfile::tempdir().unwrap();
    let (f, len) = built_file(tmp.path());
    let text = stdout(&mpelog(&["window", &f, "--from", "0.5", "--to", "1.25"]));
    insta::assert_snapshot!("window_built_text", text);
    // Root and both leaves: the state ending at 0.5, both events, the composite and
    // the root's long state; the arrow starting at 1.25 and the state at 1.5 are out.
    let (n, b, d) = totals(&text);
    assert_eq!((n, d), (3, 5));
    assert_eq!(b, len, "every byte of the file read once");
    let json = stdout(&mpelog(&[
        "window", &f, "--from", "0.5", "--to", "1.25", "--json",
    ]));
    insta::assert_snapshot!("window_built_json", json);
    assert_eq!(totals(&json), (n, b, d));
    let (objects, shadows, count) = items(&json);
    assert!(shadows.is_empty() && count.is_none());
    assert_eq!(objects.len() as u64, d);
    for o in objects {
        let v: serde_json::Value = serde_json::from_str(o).unwrap();
        for key in [
            "kind", "category", "name", "topology", "start", "end", "vertices", "info",
        ] {
            assert!(v.get(key).is_some(), "{key} missing: {o}");
        }
    }
}

#[test]
fn preview_of_a_built_file_prints_shadows_before_the_totals() {
    let tmp = tempfile::tempdir().unwrap();
    let (f, len) = built_file(tmp.path());
    // A pixel of 2 s: both leaves (1 s) are narrower, so only the root is read.
    let text = stdout(&mpelog(&[
        "window", &f, "--from", "0", "--to", "2", "--pixels", "1",
    ]));
    insta::assert_snapshot!("window_built_preview", text);
    let (n, b, d) = totals(&text);
    let (drawables, shadows, count) = items(&text);
    assert_eq!(n, 1);
    assert!(b < len);
    assert_eq!(d, 1, "the root's state");
    assert_eq!(drawables.len() as u64, d);
    assert_eq!(shadows.len(), 4);
    assert_eq!(count, Some(4));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[lines.len() - 2], "shadows=4");
    // Two pixels of 1 s: no leaf is narrower, the full answer.
    let two = stdout(&mpelog(&[
        "window", &f, "--from", "0", "--to", "2", "--pixels", "2",
    ]));
    let full = stdout(&mpelog(&["window", &f, "--from", "0", "--to", "2"]));
    assert_eq!(two.replace("shadows=0\n", ""), full);
    let json = stdout(&mpelog(&[
        "window", &f, "--from", "0", "--to", "2", "--pixels", "1", "--json",
    ]));
    let (objects, shadows, count) = items(&json);
    assert_eq!((objects.len(), shadows.len(), count), (1, 4, None));
    for s in shadows {
        let v: serde_json::Value = serde_json::from_str(s).unwrap();
        assert!(v["num_real_objs"].as_i64().unwrap() > 0);
    }
}

#[test]
fn windows_outside_the_file_print_only_the_totals() {
    let tmp = tempfile::tempdir().unwrap();
    let (f, _) = built_file(tmp.path());
    for (from, to) in [("-5", "-1"), ("3", "4"), ("-1", "0")] {
        let text = stdout(&mpelog(&["window", &f, "--from", from, "--to", to]));
        assert_eq!(text.lines().count(), 1, "{text}");
        let (n, _, d) = totals(&text);
        assert_eq!((n, d), (1, 0), "only the root is read");
    }
}

#[test]
fn wrong_usage_exits_2() {
    let tmp = tempfile::tempdir().unwrap();
    let (f, _) = built_file(tmp.path());
    let f = f.as_str();
    for args in [
        vec!["window", &f, "--from", "1", "--to", "1"],
        vec!["window", &f, "--from", "2", "--to", "1"],
        vec!["window", &f, "--from", "nan", "--to", "1"],
        vec!["window", &f, "--from", "0", "--to", "inf"],
        vec!["window", &f, "--from", "-inf", "--to", "0"],
        vec!["window", &f, "--from", "0", "--to", "1", "--pixels", "0"],
        vec!["window", &f, "--from", "0", "--to", "1", "--pixels", "-3"],
        vec!["window", &f, "--to", "-1e300"],
        vec!["window", &f, "--from", "x", "--to", "1"],
        vec!["window", "--from", "0", "--to", "1"],
    ] {
        let o = mpelog(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
        assert!(!o.stderr.is_empty(), "{args:?}");
    }
    // Usage is checked before the file is opened.
    let o = mpelog(&["window", "/nonexistent", "--from", "1", "--to", "0"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn bad_input_exits_1() {
    let tmp = tempfile::tempdir().unwrap();
    let (f, _) = built_file(tmp.path());
    let window = |p: &str| mpelog(&["window", p, "--from", "0", "--to", "2"]);
    // Not a trace, and not SLOG-2.
    let text = tmp.path().join("x.slog2");
    std::fs::write(&text, b"hello, world\n").unwrap();
    let o = window(text.to_str().unwrap());
    assert_eq!(o.status.code(), Some(1));
    let clog2 = tmp.path().join("g.clog2");
    let s = mpelog(&["synth", "-o", clog2.to_str().unwrap(), "--events", "100"]);
    assert!(s.status.success());
    // A CLOG2 trace is converted for the window (issue 26: it was refused).
    let o = window(clog2.to_str().unwrap());
    assert_eq!(o.status.code(), Some(0));
    // Missing.
    let o = window(tmp.path().join("missing.slog2").to_str().unwrap());
    assert_eq!(o.status.code(), Some(1));
    // Truncated (the TreeDir, last, runs past the end): the message names a byte
    // offset.
    let bytes = std::fs::read(&f).unwrap();
    let cut = tmp.path().join("cut.slog2");
    std::fs::write(&cut, &bytes[..bytes.len() - 1]).unwrap();
    let o = window(cut.to_str().unwrap());
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("byte "));
    // A root pointer past the end of the file.
    let mut bad = bytes.clone();
    bad[60..68].copy_from_slice(&(1i64 << 40).to_be_bytes());
    let p = tmp.path().join("bad.slog2");
    std::fs::write(&p, &bad).unwrap();
    let o = window(p.to_str().unwrap());
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("byte 60") && err.contains("treeroot"), "{err}");
    assert!(o.stdout.is_empty());
}

#[test]
fn help_explains_window() {
    let h = stdout(&mpelog(&["help", "window"]));
    for word in ["--from", "--to", "--pixels", "--json", "nodes_read="] {
        assert!(h.contains(word), "{word} missing from help:\n{h}");
    }
}

// ---------------------------------------------------------------------------------
// The corpus.

#[test]
fn corpus_windows_match_the_golden_output_and_the_reader() {
    let Some(dir) = corpus() else { return };
    let f = corpus_file(&dir, "mpe/p2p_n8_ls4k_nc4.slog2");
    let text = stdout(&mpelog(&["window", &f, "--from", "0.3", "--to", "0.302"]));
    insta::assert_snapshot!("window_p2p_n8_ls4k_nc4_0.3_0.302", text);
    // A 3-pixel overview of fpilog: the root's drawables and its stubs' shadows.
    let f = corpus_file(&dir, "historic/fpilog.slog2");
    let text = stdout(&mpelog(&[
        "window", &f, "--from", "0", "--to", "1", "--pixels", "3",
    ]));
    insta::assert_snapshot!("window_fpilog_0_1_px3", text);
    let (n, _, d) = totals(&text);
    let (drawables, shadows, count) = items(&text);
    assert_eq!((n, drawables.len() as u64), (1, d));
    assert_eq!(Some(shadows.len() as u64), count);
    // The counts agree with the library, and the bytes with the nodes read.
    for (rel, t0, t1) in [
        ("mpe/p2p_n8_ls4k_nc4.slog2", 0.1, 0.14),
        ("mpe/many_events_n4_ls4k_nc4.slog2", 0.5, 0.505),
        ("historic/fpilog.slog2", 0.0, 1.0),
        ("historic/data.slog2", 0.0, 1.0),
    ] {
        let f = corpus_file(&dir, rel);
        let text = stdout(&mpelog(&[
            "window",
            &f,
            "--from",
            &t0.to_string(),
            "--to",
            &t1.to_string(),
        ]));
        let (n, b, d) = totals(&text);
        let (drawables, _, _) = items(&text);
        assert_eq!(drawables.len() as u64, d, "{rel}");
        let mut r = Slog2Reader::new(std::fs::File::open(&f).unwrap()).unwrap();
        let a = r.window(t0, t1).unwrap();
        assert_eq!(
            (n, b, d),
            (
                r.counters().nodes_read,
                r.counters().bytes_read,
                a.drawables.len() as u64
            ),
            "{rel}"
        );
        let json = stdout(&mpelog(&[
            "window",
            &f,
            "--from",
            &t0.to_string(),
            "--to",
            &t1.to_string(),
            "--json",
        ]));
        assert_eq!(totals(&json), (n, b, d), "{rel}");
    }
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    // A generated file whose window listing (about 1.8 MB) is far larger than
    // a pipe's buffer, so the writer must meet the closed pipe. No corpus.
    let tmp = tempfile::tempdir().unwrap();
    let clog2 = synth(
        tmp.path(),
        "t.clog2",
        &["--ranks", "4", "--events", "20000", "--seed", "3"],
    );
    let f = tmp.path().join("t.slog2").to_str().unwrap().to_string();
    let o = mpelog(&["convert", &clog2, "-o", &f]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let all = mpelog(&["window", &f, "--from=0", "--to=1e9"]);
    assert!(all.status.success());
    assert!(all.stdout.len() > 1 << 20, "{} bytes", all.stdout.len());
    let mut child = Command::new(env!("CARGO_BIN_EXE_mpelog"))
        .args(["window", &f, "--from=0", "--to=1e9"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut buf = [0u8; 100];
    std::io::Read::read_exact(&mut out, &mut buf).unwrap();
    drop(out);
    let o = child.wait_with_output().unwrap();
    assert!(
        o.status.success(),
        "{:?}: {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(&buf[..], &all.stdout[..100]);
}

/// A file whose header breaks an error rule of `check` (here a tree of one
/// child per node, S2-HDR-004) is refused by `window` at the offset `check`
/// gives, naming the rule so that the user can look it up: the format crate
/// reports a typed problem and the command line names its rule.
#[test]
fn a_window_refused_for_a_broken_rule_names_the_rule() {
    let dir = tempfile::tempdir().unwrap();
    // One leaf: no stub for the walk to refuse first.
    let mut bytes = generated_slog2(5, 100, 1 << 20);
    let (_, _, len) = slog2_format::read::parse_header(&bytes).unwrap();
    // num_children_per_node: the i16 after the version string.
    let at = (len as usize) - slog2_format::read::HEADER_FIXED_LEN;
    assert_eq!(i16::from_be_bytes([bytes[at], bytes[at + 1]]), 2);
    bytes[at..at + 2].copy_from_slice(&1i16.to_be_bytes());
    let path = dir.path().join("k1.slog2");
    std::fs::write(&path, &bytes).unwrap();
    let o = mpelog(&["window", path.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!(
            "byte {at}: num_children_per_node is 1 (rule S2-HDR-004 of `mpelog check`)"
        )),
        "{err}"
    );
}
