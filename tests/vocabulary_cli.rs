//! One vocabulary on the command line (issue 26): every command takes every
//! input it can use (a CLOG2 trace, an annotation, a URL), the same option
//! names for the same things, pure JSON, each offset named once and findings in
//! offset order, numbers for people, and an ambiguous category name refused.
//! Each test here failed on the behaviour the issue reported.

mod common;

use clog2_format::commtable::{comm_kind, CommEntry, CommTable};
use clog2_format::record::{comm_etype, Body, CommEvt, Record, StateDef, Uuid};
use clog2_format::{Clog2Writer, FixedBytes, PreambleInfo};
use common::http::{answer, file_server, Reply, Server};
use common::*;
use std::io::Cursor;
use std::path::Path;
use std::sync::Arc;

/// A generated 3-rank CLOG2 trace and its SLOG-2 conversion in 1 KiB leaves
/// (a tree several levels deep, so `--pixels` meets shadows).
fn traces(dir: &Path) -> (String, String) {
    let clog2 = synth(
        dir,
        "g.clog2",
        &["--ranks", "3", "--events", "2000", "--seed", "5"],
    );
    let slog2 = dir.join("g.slog2").to_str().unwrap().to_string();
    let o = mpelog(&["convert", &clog2, "-o", &slog2, "--leaf-bytes", "1k"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (clog2, slog2)
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A static file server with Range answers for the file at `path`, and the
/// file's URL on it (`target`, e.g. `/g.slog2`).
fn served(path: &str, target: &str) -> (Server, String) {
    let server = file_server(Arc::new(std::fs::read(path).unwrap()), None);
    let url = server.url("http", target);
    (server, url)
}

/// Every line of `out` but the last (the cost line of `window`).
fn items(out: &str) -> Vec<&str> {
    let lines: Vec<&str> = out.lines().collect();
    lines[..lines.len() - 1].to_vec()
}

/// A STATEDEF of `name` for the events `start`/`start + 1`.
fn statedef(start: i32, name: &str) -> Record {
    Record::new(
        0.0,
        0,
        Body::StateDef(StateDef {
            state_id: start / 2,
            start_etype: start,
            final_etype: start + 1,
            pad: FixedBytes::ZERO,
            color: FixedBytes::from_str_truncated("red"),
            name: FixedBytes::from_str_truncated(name),
            format: FixedBytes::ZERO,
        }),
    )
}

/// A 2-rank MPE 02.44 CLOG2 file with 1 KiB blocks: both ranks declare
/// MPI_COMM_WORLD, then the records of `body`.
fn clog2_of(body: &[Record]) -> Vec<u8> {
    let mut info = PreambleInfo::mpe_default(2);
    info.block_size = 1024;
    let mut w = Clog2Writer::new(Cursor::new(Vec::new()), info).unwrap();
    let world = |rank| {
        Record::new(
            0.0,
            rank,
            Body::Comm(CommEvt {
                etype: comm_etype::WORLD_CREATE,
                icomm: 0,
                rank,
                wrank: rank,
                gcomm: Uuid::ZERO,
            }),
        )
    };
    for r in [world(0), world(1)].iter().chain(body) {
        w.push(r).unwrap();
    }
    let table = CommTable::new(vec![CommEntry {
        gcomm: Uuid::ZERO,
        local_id: 0,
        kind: comm_kind::INTRA,
    }]);
    w.finish(Some(&table)).unwrap().0.into_inner()
}

#[test]
fn window_reads_a_clog2_trace_as_its_conversion() {
    let tmp = tempfile::tempdir().unwrap();
    let (clog2, slog2) = traces(tmp.path());
    let plain = tmp.path().join("plain.slog2");
    let o = mpelog(&["convert", &clog2, "-o", plain.to_str().unwrap()]);
    assert!(o.status.success());
    let of_clog2 = stdout(&mpelog(&[
        "window", &clog2, "--from", "0.01", "--to", "0.02",
    ]));
    let of_slog2 = stdout(&mpelog(&[
        "window",
        plain.to_str().unwrap(),
        "--from",
        "0.01",
        "--to",
        "0.02",
    ]));
    assert!(items(&of_clog2).len() > 10);
    assert_eq!(items(&of_clog2), items(&of_slog2));
    drop(slog2);
}

#[test]
fn info_check_print_and_filter_read_a_url() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, slog2) = traces(tmp.path());
    let (_server, url) = served(&slog2, "/g.slog2");
    for cmd in ["info", "check", "print"] {
        let remote = mpelog(&[cmd, &url]);
        let local = mpelog(&[cmd, &slog2]);
        assert!(remote.status.success(), "{cmd}: {}", stderr(&remote));
        let (r, l) = (
            String::from_utf8_lossy(&remote.stdout),
            String::from_utf8_lossy(&local.stdout),
        );
        assert_eq!(r.replace(&url, "F"), l.replace(&slog2, "F"), "{cmd}");
    }
    let (a, b) = (tmp.path().join("a.slog2"), tmp.path().join("b.slog2"));
    for (input, out) in [(&url, &a), (&slog2, &b)] {
        let o = mpelog(&[
            "filter",
            input,
            "-o",
            out.to_str().unwrap(),
            "--remove",
            "0",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

#[test]
fn render_draws_an_annotation_as_its_trace() {
    let tmp = tempfile::tempdir().unwrap();
    let (clog2, _) = traces(tmp.path());
    assert!(mpelog(&["annotate", &clog2]).status.success());
    let (a, b) = (tmp.path().join("a.svg"), tmp.path().join("b.svg"));
    let o = mpelog(&["render", &format!("{clog2}.idx"), "-o", a.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(mpelog(&["render", &clog2, "-o", b.to_str().unwrap()])
        .status
        .success());
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

#[test]
fn render_takes_pixels_as_window_does_and_width_only_as_a_hidden_alias() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, slog2) = traces(tmp.path());
    let (a, b) = (tmp.path().join("a.svg"), tmp.path().join("b.svg"));
    let o = mpelog(&[
        "render",
        &slog2,
        "-o",
        a.to_str().unwrap(),
        "--pixels",
        "300",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = mpelog(&[
        "render",
        &slog2,
        "-o",
        b.to_str().unwrap(),
        "--width",
        "300",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert!(String::from_utf8_lossy(&std::fs::read(&a).unwrap()).contains("width=\"300\""));
    let help = stdout(&mpelog(&["help", "render"]));
    assert!(help.contains("--pixels"), "{help}");
    assert!(!help.contains("--width"), "{help}");
}

#[test]
fn window_json_is_json_on_every_line() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, slog2) = traces(tmp.path());
    for extra in [&[][..], &["--pixels", "50"][..]] {
        let mut args = vec!["window", &slog2, "--json"];
        args.extend_from_slice(extra);
        let out = stdout(&mpelog(&args));
        let last = out.lines().last().unwrap();
        for line in out.lines() {
            serde_json::from_str::<serde_json::Value>(line)
                .unwrap_or_else(|e| panic!("{e}: not JSON: {line}"));
        }
        // The counters are in the last object.
        let v: serde_json::Value = serde_json::from_str(last).unwrap();
        assert!(v["cost"]["nodes_read"].as_u64().unwrap() > 0, "{last}");
    }
}

#[test]
fn check_names_each_offset_once_and_lists_findings_in_offset_order() {
    let tmp = tempfile::tempdir().unwrap();
    // State 0 starts and is never closed (a warning found at the end, for an
    // early byte), then event 700, which nothing defines (found at once, at a
    // later byte).
    let b = clog2_of(&[Record::bare(1.0, 0, 0), Record::bare(2.0, 0, 700)]);
    let f = tmp.path().join("pair.clog2");
    std::fs::write(&f, b).unwrap();
    let o = mpelog(&["check", f.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let offsets: Vec<u64> = text
        .lines()
        .skip(1)
        .map(|l| {
            let at = l.split(" byte ").nth(1).unwrap_or_else(|| panic!("{l}"));
            at.split(|c: char| !c.is_ascii_digit())
                .next()
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect();
    assert!(offsets.len() >= 2, "{text}");
    assert!(offsets.windows(2).all(|w| w[0] <= w[1]), "{text}");
    for (line, at) in text.lines().skip(1).zip(&offsets) {
        assert_eq!(line.matches(&format!("byte {at}")).count(), 1, "{line}");
    }
    let o = mpelog(&["check", "--json", f.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let findings = v["findings"].as_array().unwrap();
    let json_offsets: Vec<u64> = findings
        .iter()
        .map(|f| f["offset"].as_u64().unwrap())
        .collect();
    assert_eq!(json_offsets, offsets);
    for f in findings {
        let m = f["message"].as_str().unwrap();
        assert!(!m.starts_with("byte "), "{m}");
    }
}

#[test]
fn a_missing_or_vanishing_url_is_named_once() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, slog2) = traces(tmp.path());
    let data = Arc::new(std::fs::read(&slog2).unwrap());
    // Gone from the start, and gone after the opening requests.
    let missing = Server::start(None, |_| {
        Reply::Bytes(answer("404 Not Found", &[], b"no such file"))
    });
    let d = data.clone();
    let vanishing = Server::start(None, move |req| {
        if req.n < 2 {
            Reply::Bytes(common::http::file_answer(
                &d,
                req,
                "\"e\"",
                "Tue, 03 Mar 2026 10:00:00 GMT",
            ))
        } else {
            Reply::Bytes(answer(
                "404 Not Found",
                &[
                    ("ETag", "\"e\"".to_string()),
                    ("Last-Modified", "Tue, 03 Mar 2026 10:00:00 GMT".to_string()),
                ],
                b"gone",
            ))
        }
    });
    let svg = tmp.path().join("w.svg");
    let json = tmp.path().join("w.json");
    for server in [&missing, &vanishing] {
        let url = server.url("http", "/g.slog2");
        for args in [
            vec!["window", &url],
            vec!["stats", &url],
            vec!["render", &url, "-o", svg.to_str().unwrap()],
            vec!["export", &url, "-o", json.to_str().unwrap()],
        ] {
            let o = mpelog(&args);
            assert!(!o.status.success(), "{args:?}");
            let e = stderr(&o);
            assert_eq!(e.matches(&url).count(), 1, "{args:?}: {e}");
            assert!(e.contains("404"), "{args:?}: {e}");
        }
    }
}

#[test]
fn stats_text_prints_numbers_for_people() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, slog2) = traces(tmp.path());
    let out = stdout(&mpelog(&[
        "stats", &slog2, "--from", "0", "--to", "0.03", "--bins", "3", "--by", "both",
    ]));
    // The window in fixed point, not 0.09999999999999998 or 4.1e-5.
    let head = out.lines().next().unwrap();
    assert_eq!(head, "window [0.000000, 0.030000) (0.030000 s)");
    // No exponents anywhere (9.073838e1), no NaN.
    for word in out.split_whitespace() {
        let exp = word.contains("e-") || word.contains("e1") || word.contains("e0");
        assert!(
            !(exp && word.starts_with(|c: char| c.is_ascii_digit())),
            "{word} in\n{out}"
        );
        assert!(!word.contains("NaN"), "{out}");
    }
    // Category shares are labelled as summed over the timelines the table lists.
    let n = out
        .split("summed over the ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .unwrap_or_else(|| panic!("shares not labelled as summed:\n{out}"));
    let rows = out
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("timeline"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .count();
    assert_eq!(n, rows.to_string(), "{out}");
    // Bins name their categories; events are counted in whole numbers.
    let bins: Vec<&str> = out.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(bins.len(), 3, "{out}");
    let all = bins.join(" ");
    assert!(all.contains("MPI_Send="), "{all}");
    assert!(!all.contains(" 81="), "{all}");
    let ticks = all
        .split_whitespace()
        .find_map(|c| c.strip_prefix("Tick="))
        .unwrap_or_else(|| panic!("{all}"));
    assert!(ticks.parse::<u64>().is_ok(), "{ticks}");
}

#[test]
fn window_pixels_prints_no_nan_weights() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, slog2) = traces(tmp.path());
    for json in [false, true] {
        let mut args = vec!["window", &slog2, "--pixels", "10"];
        if json {
            args.push("--json");
        }
        let out = stdout(&mpelog(&args));
        assert!(out.contains("Preview_Event"), "{out}");
        assert!(
            !out.contains("NaN"),
            "{}",
            out.lines().find(|l| l.contains("NaN")).unwrap()
        );
    }
}

#[test]
fn filter_refuses_an_ambiguous_category_name_and_lists_its_indexes() {
    let tmp = tempfile::tempdir().unwrap();
    let b = clog2_of(&[
        statedef(600, "Solve"),
        statedef(602, "Solve"),
        Record::bare(1.0, 0, 600),
        Record::bare(2.0, 0, 601),
        Record::bare(3.0, 0, 602),
        Record::bare(4.0, 0, 603),
    ]);
    let clog2 = tmp.path().join("two.clog2");
    std::fs::write(&clog2, b).unwrap();
    let slog2 = tmp.path().join("two.slog2");
    let o = mpelog(&[
        "convert",
        clog2.to_str().unwrap(),
        "-o",
        slog2.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = tmp.path().join("out.slog2");
    let o = mpelog(&[
        "filter",
        slog2.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--remove",
        "Solve",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!out.exists());
    let e = stderr(&o);
    let legend = stdout(&mpelog(&["print", slog2.to_str().unwrap()]));
    let indexes: Vec<&str> = legend
        .lines()
        .filter(|l| l.starts_with("category") && l.contains("\"Solve\""))
        .map(|l| {
            l.split(|c: char| !c.is_ascii_digit() && c != '-')
                .find(|w| !w.is_empty())
                .unwrap()
        })
        .collect();
    assert_eq!(indexes.len(), 2, "{legend}");
    for i in indexes {
        assert!(e.contains(i), "{i}: {e}");
    }
}

#[test]
fn window_stats_render_and_export_read_any_trace_at_a_url() {
    let tmp = tempfile::tempdir().unwrap();
    let (clog2, _) = traces(tmp.path());
    let (_server, url) = served(&clog2, "/g.clog2");
    for cmd in ["stats", "window"] {
        let remote = mpelog(&[cmd, &url]);
        assert!(remote.status.success(), "{cmd}: {}", stderr(&remote));
        let (r, l) = (stdout(&remote), stdout(&mpelog(&[cmd, &clog2])));
        assert_eq!(items(&r), items(&l), "{cmd}");
    }
    for ext in ["svg", "json"] {
        let (a, b) = (
            tmp.path().join(format!("a.{ext}")),
            tmp.path().join(format!("b.{ext}")),
        );
        let cmd = if ext == "svg" { "render" } else { "export" };
        let o = mpelog(&[cmd, &url, "-o", a.to_str().unwrap()]);
        assert!(o.status.success(), "{cmd}: {}", stderr(&o));
        assert!(mpelog(&[cmd, &clog2, "-o", b.to_str().unwrap()])
            .status
            .success());
        assert_eq!(
            std::fs::read(&a).unwrap(),
            std::fs::read(&b).unwrap(),
            "{cmd}"
        );
    }
}

#[test]
fn a_command_that_cannot_use_an_input_says_what_it_takes_in_one_sentence() {
    let tmp = tempfile::tempdir().unwrap();
    let (clog2, slog2) = traces(tmp.path());
    let (_server, url) = served(&clog2, "/g.clog2");
    let out = tmp.path().join("o.slog2");
    let out = out.to_str().unwrap();
    // Any trace is filtered through its conversion; an annotation is not one.
    assert!(mpelog(&["annotate", &clog2]).status.success());
    let idx = format!("{clog2}.idx");
    for (args, says) in [
        (
            vec!["annotate", &url],
            "annotate indexes a local CLOG2 trace",
        ),
        (vec!["annotate", &slog2], "annotate indexes CLOG2 traces"),
        (
            vec!["filter", &idx, "-o", out],
            "filter the trace it annotates",
        ),
    ] {
        let o = mpelog(&args);
        assert!(!o.status.success(), "{args:?}");
        let e = stderr(&o);
        assert_eq!(e.trim_end().lines().count(), 1, "{args:?}: {e}");
        assert!(e.contains(says), "{args:?}: {e}");
    }
}
