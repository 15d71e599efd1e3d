//! `mpelog check` from the command line: every format detected and checked, one
//! report per file (text or JSON lines), exit status 1 only on an error finding,
//! the rule list, annotations checked against their trace.

mod common;

use common::{mpelog, stdout, synth};
use serde_json::Value;
use std::path::Path;

fn json_lines(o: &std::process::Output) -> Vec<Value> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).to_str().unwrap().to_string()
}

#[test]
fn good_files_of_every_kind_pass_and_a_cut_one_fails_with_its_rule_and_offset() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let clog2 = synth(d, "t.clog2", &["--events", "20000", "--block-size", "4096"]);
    let slog2 = path(d, "t.slog2");
    let z = path(d, "t.z.slog2");
    assert!(mpelog(&["convert", &clog2, "-o", &slog2]).status.success());
    assert!(
        mpelog(&["convert", &clog2, "-o", &z, "--compress", "deflate"])
            .status
            .success()
    );
    assert!(mpelog(&["annotate", &clog2]).status.success());
    let idx = format!("{clog2}.idx");
    let alog = path(d, "t.alog");
    std::fs::write(
        &alog,
        "-3 0 0 1 0 0\n-6 0 0 0 0 10\n-7 0 0 0 0 20\n-13 0 1 2 0 0 red Work\n1 0 0 0 0 10\n2 0 0 0 0 20\n",
    )
    .unwrap();
    let text = stdout(&mpelog(&["check", &clog2, &slog2, &z, &idx, &alog]));
    let want = [
        ("t.clog2", "CLOG2"),
        ("t.slog2", "SLOG-2"),
        ("t.z.slog2", "SLOG-2Z"),
        ("t.clog2.idx", "annotation"),
        ("t.alog", "ALOG"),
    ];
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), want.len(), "{text}");
    for (line, (name, format)) in lines.iter().zip(want) {
        assert!(
            line.ends_with(&format!("{name}: {format}: ok")),
            "{line} ({name})"
        );
    }

    // A CLOG2 file cut inside its second block.
    let bytes = std::fs::read(&clog2).unwrap();
    let cut = path(d, "cut.clog2");
    std::fs::write(&cut, &bytes[..1024 + 4096 + 100]).unwrap();
    let o = mpelog(&["check", "--json", &clog2, &cut]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("1 file(s) failed the check"));
    let r = json_lines(&o);
    assert_eq!(r.len(), 2);
    assert_eq!(
        (r[0]["format"].as_str(), r[0]["errors"].as_u64()),
        (Some("CLOG2"), Some(0))
    );
    assert_eq!(r[1]["errors"], 1);
    let f = &r[1]["findings"][0];
    assert_eq!(
        (f["rule"].as_str(), f["severity"].as_str()),
        (Some("C2-REJ-009"), Some("error"))
    );
    assert_eq!(f["offset"], 1024 + 4096 + 100);
    assert!(
        f["message"].as_str().unwrap().contains("mpelog repair"),
        "{f}"
    );
}

#[test]
fn an_annotation_is_checked_against_its_trace() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let clog2 = synth(d, "t.clog2", &["--events", "20000", "--block-size", "1024"]);
    let idx = path(d, "elsewhere.idx");
    assert!(mpelog(&["annotate", &clog2, "-o", &idx]).status.success());
    // No trace next to it: IDX-TRACE-001, and the message says how to give one.
    let o = mpelog(&["check", "--json", &idx]);
    assert_eq!(o.status.code(), Some(1));
    let f = &json_lines(&o)[0]["findings"][0];
    assert_eq!(f["rule"], "IDX-TRACE-001");
    assert!(f["message"].as_str().unwrap().contains("--trace"), "{f}");
    // With --trace it passes; with a changed trace it is stale.
    assert!(mpelog(&["check", &idx, "--trace", &clog2]).status.success());
    let mut bytes = std::fs::read(&clog2).unwrap();
    let n = bytes.len();
    bytes[n - 2000] ^= 0x10;
    std::fs::write(&clog2, &bytes).unwrap();
    let o = mpelog(&["check", "--json", &idx, "--trace", &clog2]);
    assert_eq!(o.status.code(), Some(1));
    let f = &json_lines(&o)[0]["findings"][0];
    assert_eq!(f["rule"], "IDX-STALE-003");
    assert_eq!(f["place"], "in the trace");
}

#[test]
fn unknown_files_and_the_rule_list() {
    let tmp = tempfile::tempdir().unwrap();
    let junk = path(tmp.path(), "junk.bin");
    std::fs::write(&junk, [0x7fu8; 40]).unwrap();
    let o = mpelog(&["check", "--json", &junk]);
    assert_eq!(o.status.code(), Some(1));
    let r = &json_lines(&o)[0];
    assert_eq!(r["format"], Value::Null);
    assert_eq!(r["findings"][0]["rule"], "FORMAT-001");
    // A file that cannot be opened is an I/O error naming it.
    let gone = path(tmp.path(), "gone.clog2");
    let o = mpelog(&["check", &gone]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("gone.clog2"));
    // Every format's rules are listed, with their severities.
    let rules = json_lines(&mpelog(&["check", "--list-rules", "--json"]));
    for prefix in ["C2-", "C1-", "AL-", "S1-", "S2-", "S2Z-", "IDX-", "FORMAT-"] {
        assert!(
            rules
                .iter()
                .any(|r| r["rule"].as_str().unwrap().starts_with(prefix)),
            "no {prefix} rule"
        );
    }
    assert!(rules
        .iter()
        .all(|r| matches!(r["severity"].as_str(), Some("error" | "warning"))));
    // No file and no --list-rules is a usage error.
    assert_eq!(mpelog(&["check"]).status.code(), Some(2));
}
