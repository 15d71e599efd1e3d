//! The `mpelog` command line: golden dumps (insta), exit statuses, lossless convert,
//! atomic outputs.

mod common;

use common::*;

#[test]
fn print_of_corpus_files_matches_the_golden_dumps() {
    let Some(dir) = corpus() else { return };
    for (name, rel) in [
        ("cpilog_n1", "mpe/cpilog_n1.clog2"),
        ("nested_states_n1", "mpe/nested_states_n1.clog2"),
        ("cpi_n4", "mpe/cpi_n4.clog2"),
        ("cpilog_pack_n4", "mpe/cpilog_pack_n4.clog2"),
    ] {
        let text = stdout(&mpelog(&["print", &corpus_file(&dir, rel)]));
        insta::assert_snapshot!(format!("print_{name}"), text);
    }
}

#[test]
fn print_and_info_of_a_generated_trace_match_the_golden_dumps() {
    let tmp = tempfile::tempdir().unwrap();
    let f = synth(
        tmp.path(),
        "g.clog2",
        &["--ranks", "3", "--events", "400", "--seed", "11"],
    );
    insta::assert_snapshot!("print_synth_r3_e400_s11", stdout(&mpelog(&["print", &f])));
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&mpelog(&["info", "--json", &f]))).unwrap();
    insta::assert_json_snapshot!("info_synth_r3_e400_s11", json);
}

#[test]
fn info_json_reports_the_corpus_files_facts() {
    let Some(dir) = corpus() else { return };
    let o = mpelog(&[
        "info",
        "--json",
        &corpus_file(&dir, "mpe/cpilog_n4_bs4k.clog2"),
    ]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["format"], "CLOG2");
    assert_eq!(v["version"], "CLOG-02.44");
    assert_eq!(v["byte_order"], "big");
    assert_eq!(v["block_size"], 4096);
    assert_eq!(v["blocks"], 4);
    assert_eq!(v["ranks"], 4);
    // 400 records: 396 data records, 3 ENDBLOCK, 1 ENDLOG.
    assert_eq!(v["records"], 400);
    assert_eq!(v["record_counts"]["eblk"], 3);
    assert_eq!(v["record_counts"]["elog"], 1);
    let (t0, t1) = (
        v["time_min"].as_f64().unwrap(),
        v["time_max"].as_f64().unwrap(),
    );
    assert!(t0 > 0.0 && t0 < 1e-3 && t1 > t0 && t1 < 10.0, "{t0} {t1}");
    insta::assert_json_snapshot!("info_cpilog_n4_bs4k", v);
}

#[test]
fn convert_clog2_to_clog2_reproduces_every_corpus_byte() {
    let Some(dir) = corpus() else { return };
    let tmp = tempfile::tempdir().unwrap();
    for rel in [
        "mpe/p2p_n4_bs4k.clog2",
        "mpe/srtest_n2.clog2",
        "mpe/colls_n16.clog2",
    ] {
        let input = corpus_file(&dir, rel);
        let out = tmp.path().join("copy.clog2");
        stdout(&mpelog(&["convert", &input, "-o", out.to_str().unwrap()]));
        assert!(
            std::fs::read(&input).unwrap() == std::fs::read(&out).unwrap(),
            "{rel}"
        );
    }
}

#[test]
fn convert_of_a_generated_trace_is_byte_identical() {
    let tmp = tempfile::tempdir().unwrap();
    let f = synth(
        tmp.path(),
        "g.clog2",
        &["--events", "5000", "--block-size", "4096"],
    );
    let out = tmp.path().join("out.bin");
    stdout(&mpelog(&[
        "convert",
        &f,
        "-o",
        out.to_str().unwrap(),
        "--format",
        "clog2",
    ]));
    assert!(std::fs::read(&f).unwrap() == std::fs::read(&out).unwrap());
}

#[test]
fn bad_input_exits_1_with_the_offset_and_leaves_no_output() {
    let tmp = tempfile::tempdir().unwrap();
    let f = synth(
        tmp.path(),
        "g.clog2",
        &["--events", "2000", "--block-size", "1024"],
    );
    let mut bytes = std::fs::read(&f).unwrap();
    // An unknown record type in the first record of block 1.
    let at = 1024 + 1024;
    bytes[at + 20..at + 24].copy_from_slice(&77i32.to_be_bytes());
    let bad = tmp.path().join("bad.clog2");
    std::fs::write(&bad, &bytes).unwrap();
    let out = tmp.path().join("out.clog2");
    let out_slog2 = tmp.path().join("out.slog2");
    for args in [
        vec!["info", bad.to_str().unwrap()],
        vec!["print", bad.to_str().unwrap()],
        vec![
            "convert",
            bad.to_str().unwrap(),
            "-o",
            out_slog2.to_str().unwrap(),
        ],
        vec![
            "convert",
            bad.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
    ] {
        let o = mpelog(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("byte 2048") && err.contains("unknown record type 77"),
            "{err}"
        );
    }
    assert!(!out.exists(), "a failed convert left its output");
    assert!(
        !out_slog2.exists(),
        "a failed conversion to SLOG-2 left its output"
    );
    assert_eq!(leftovers(tmp.path()), 0, "temporary files left");
}

#[test]
fn a_file_that_is_no_trace_exits_1() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("x.clog2");
    std::fs::write(&p, b"hello, world\n").unwrap();
    let o = mpelog(&["info", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a trace format"));
}

#[test]
fn wrong_usage_exits_2() {
    assert_eq!(mpelog(&["info"]).status.code(), Some(2));
    assert_eq!(mpelog(&["frobnicate"]).status.code(), Some(2));
    let tmp = tempfile::tempdir().unwrap();
    let f = synth(tmp.path(), "g.clog2", &["--events", "100"]);
    let o = mpelog(&[
        "convert",
        &f,
        "-o",
        tmp.path().join("x.unknown").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--format"));
    let o = mpelog(&[
        "synth",
        "-o",
        tmp.path().join("y.clog2").to_str().unwrap(),
        "--ranks",
        "0",
    ]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn help_teaches_every_command() {
    let top = stdout(&mpelog(&["--help"]));
    let commands = [
        "info", "print", "check", "convert", "window", "annotate", "repair", "synth",
    ];
    for cmd in commands {
        assert!(top.contains(cmd), "{cmd} missing from --help");
        let h = stdout(&mpelog(&["help", cmd]));
        assert!(h.len() > 200, "help for {cmd} is too thin:\n{h}");
        // `mpelog help X` is the long help, the same as `mpelog X --help`.
        assert_eq!(h, stdout(&mpelog(&[cmd, "--help"])), "{cmd}");
    }
    // Commands that read any trace name every format they read.
    for cmd in ["info", "print", "convert"] {
        let h = stdout(&mpelog(&["help", cmd]));
        for format in [
            "CLOG2",
            "old CLOG",
            "SLOG-2",
            "ALOG",
            "SLOG-1",
            "compressed",
        ] {
            assert!(h.contains(format), "help {cmd} does not name {format}");
        }
    }
    assert!(top.contains("Exit status"));
    // The file rules are stated once, in the top-level help.
    for rule in [
        "`-` is standard input or output",
        "symlink",
        "FIFOs",
        "130/143/129",
    ] {
        assert!(top.contains(rule), "--help does not say {rule:?}");
    }
}

#[cfg(unix)]
#[test]
fn outputs_are_readable_by_others_like_any_new_file() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let f = synth(tmp.path(), "g.clog2", &["--events", "100"]);
    let mode = std::fs::metadata(&f).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o644);
}

#[test]
fn slog2_print_and_info_of_corpus_files_match_the_golden_dumps() {
    let Some(dir) = corpus() else { return };
    for (name, rel) in [
        ("arrow", "historic/arrow.slog2"),
        ("data", "historic/data.slog2"),
    ] {
        let text = stdout(&mpelog(&["print", &corpus_file(&dir, rel)]));
        insta::assert_snapshot!(format!("print_slog2_{name}"), text);
    }
    let o = mpelog(&[
        "info",
        "--json",
        &corpus_file(&dir, "historic/fpilog.slog2"),
    ]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["format"], "SLOG-2");
    assert_eq!(v["version"], "SLOG 2.0.6");
    assert_eq!(v["tree"]["nodes"], 15);
    assert_eq!(v["tree"]["depth"], 3);
    assert_eq!(v["record_counts"]["primitives"], 153);
    assert_eq!(v["record_counts"]["shadows"], 113);
    assert_eq!(v["time_min"], 0.002090999999381893);
    assert_eq!(v["time_max"], 0.15782399999989138);
    insta::assert_json_snapshot!("info_slog2_fpilog", v);
}

#[test]
fn convert_updates_slog2_2_0_5_and_rewrites_2_0_6_byte_for_byte() {
    let Some(dir) = corpus() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let input = corpus_file(&dir, "historic/fpilog.slog2");
    let same = tmp.path().join("same.slog2");
    stdout(&mpelog(&["convert", &input, "-o", same.to_str().unwrap()]));
    assert!(std::fs::read(&input).unwrap() == std::fs::read(&same).unwrap());

    let mut f = slog2_format::Slog2File::parse(&std::fs::read(&input).unwrap()).unwrap();
    slog2_format::write::update::downgrade_206_to_205(&mut f).unwrap();
    let old = tmp.path().join("old.slog2");
    std::fs::write(&old, f.to_bytes().unwrap()).unwrap();
    let o = mpelog(&["check", old.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "2.0.5 is only a warning");
    assert!(String::from_utf8_lossy(&o.stdout).contains("S2-HDR-003"));
    let new = tmp.path().join("new.slog2");
    stdout(&mpelog(&[
        "convert",
        old.to_str().unwrap(),
        "-o",
        new.to_str().unwrap(),
    ]));
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&mpelog(&["info", "--json", new.to_str().unwrap()]))).unwrap();
    assert_eq!(v["version"], "SLOG 2.0.6");
    assert_eq!(v["record_counts"]["primitives"], 153);
    assert_eq!(
        stdout(&mpelog(&["check", new.to_str().unwrap()])).trim_end(),
        format!("{}: SLOG-2: ok", new.display())
    );
    assert_eq!(std::fs::metadata(&new).unwrap().len(), 19690);
}

#[test]
fn check_reports_rule_ids_and_exits_1_on_errors() {
    let Some(dir) = corpus() else { return };
    let good = corpus_file(&dir, "mpe/p2p_n8_ls4k_nc4.slog2");
    let bad = corpus_file(&dir, "historic/onetimeline_fromtxt.slog2");
    assert_eq!(mpelog(&["check", &good]).status.code(), Some(0));
    let o = mpelog(&["check", "--json", &good, &bad]);
    assert_eq!(o.status.code(), Some(1));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["errors"], 0);
    assert!(lines[1]["errors"].as_u64().unwrap() > 0);
    let first = &lines[1]["findings"][0];
    assert_eq!(first["rule"], "S2-DRW-003");
    assert_eq!(first["offset"], 150);
    assert_eq!(first["place"], "node (0,0)");
}

#[test]
fn convert_clog2_to_slog2_builds_what_clog2toslog2_builds() {
    let Some(dir) = corpus() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("p2p.slog2");
    let o = mpelog(&[
        "convert",
        &corpus_file(&dir, "mpe/p2p_n8.clog2"),
        "-o",
        out.to_str().unwrap(),
        "--leaf-bytes",
        "4096",
        "--children",
        "4",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    // The summary names drawables, nodes, depth, bytes and unmatched events.
    assert!(err.contains("drawables 1305"), "{err}");
    assert!(err.contains("tree: 14 nodes, depth 2"), "{err}");
    assert!(err.contains("(SLOG 2.0.6, 92879 bytes)"), "{err}");
    assert!(err.contains("unmatched events: none dropped"), "{err}");
    let real = std::fs::metadata(corpus_file(&dir, "mpe/p2p_n8_ls4k_nc4.slog2")).unwrap();
    assert_eq!(std::fs::metadata(&out).unwrap().len(), real.len());
    let o = mpelog(&["check", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
}

#[test]
fn convert_of_a_generated_trace_to_slog2_checks_clean() {
    let tmp = tempfile::tempdir().unwrap();
    let f = synth(
        tmp.path(),
        "g.clog2",
        &["--events", "20000", "--ranks", "3"],
    );
    let out = tmp.path().join("g.slog2");
    let o = mpelog(&[
        "convert",
        &f,
        "-o",
        out.to_str().unwrap(),
        "--leaf-bytes",
        "2048",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = mpelog(&["check", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    let info = stdout(&mpelog(&["info", "--json", out.to_str().unwrap()]));
    assert!(info.contains("\"SLOG 2.0.6\""), "{info}");
    // Tree options are checked before any work.
    let bad = tmp.path().join("x.slog2");
    let o = mpelog(&[
        "convert",
        &f,
        "-o",
        bad.to_str().unwrap(),
        "--children",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!bad.exists());
}
