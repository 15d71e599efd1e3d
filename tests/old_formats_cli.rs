//! The older formats on the command line: golden `print` dumps of every ALOG
//! sample (insta), `info`, the canonical rewrite, and conversion to SLOG-2 that
//! `check` accepts and whose whole-file window returns every drawable made.

mod common;

use common::*;

const ALOG: &[&str] = &[
    "cpilog.alog",
    "srtest.alog",
    "cpilog.log",
    "monte.log",
    "gmm.log",
    "fpilog_profile.log",
    "systest_profile.log",
    "sam_hyp.16.log",
    "gmmlog_profile.log.Z",
];

/// FNV-1a, to pin long dumps without storing them whole.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100000001b3)
    })
}

/// The dump, or for long ones its first 300 lines, its length and a hash.
fn golden(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= 2000 {
        return text.to_string();
    }
    format!(
        "{}\n... {} lines, {} bytes, FNV-1a {:016x}\n",
        lines[..300].join("\n"),
        lines.len(),
        text.len(),
        fnv(text)
    )
}

fn last_drawables(text: &str) -> u64 {
    let last = text.lines().last().unwrap();
    last.rsplit("drawables=").next().unwrap().parse().unwrap()
}

#[test]
fn alog_samples_print_info_convert() {
    let Some(dir) = corpus() else { return };
    let tmp = tempfile::tempdir().unwrap();
    for name in ALOG {
        let f = corpus_file(&dir, &format!("mpich1/alog/{name}"));
        let text = stdout(&mpelog(&["print", &f]));
        insta::assert_snapshot!(format!("alog_print_{name}"), golden(&text));
        let info = stdout(&mpelog(&["info", "--json", &f]));
        assert!(info.contains("\"format\":\"ALOG\""), "{info}");
        let out = tmp.path().join(format!("{name}.slog2"));
        let o = mpelog(&["convert", &f, "-o", out.to_str().unwrap()]);
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        let made: u64 = err
            .split("drawables ")
            .nth(1)
            .and_then(|s| s.split(';').next())
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or_else(|| panic!("{name}: no drawable count in {err}"));
        let o = mpelog(&["check", out.to_str().unwrap()]);
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stdout)
        );
        let w = stdout(&mpelog(&[
            "window",
            out.to_str().unwrap(),
            "--from",
            "-1e12",
            "--to",
            "1e12",
        ]));
        assert_eq!(last_drawables(&w), made, "{name}");
    }
}

#[test]
fn alog_canonical_rewrite_is_byte_identical() {
    let Some(dir) = corpus() else { return };
    let tmp = tempfile::tempdir().unwrap();
    for name in ["cpilog.alog", "srtest.alog", "monte.log", "gmm.log"] {
        let f = corpus_file(&dir, &format!("mpich1/alog/{name}"));
        let out = tmp.path().join(name);
        let o = mpelog(&[
            "convert",
            &f,
            "-o",
            out.to_str().unwrap(),
            "--format",
            "alog",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(
            std::fs::read(&out).unwrap(),
            std::fs::read(&f).unwrap(),
            "{name}"
        );
    }
}

#[test]
fn bad_alog_names_the_line() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("bad.alog");
    std::fs::write(&p, "-1 0 0 0 0 0 Me\n-2 0 0 4 0 0\n1 0 0 0 zero 5\n").unwrap();
    let o = mpelog(&["print", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("line 3"), "{err}");
}

#[test]
fn slog1_samples_print_info_convert_rewrite() {
    let Some(dir) = corpus() else { return };
    let tmp = tempfile::tempdir().unwrap();
    for (name, drawables, warnings) in [
        ("sample.slog", 19, 0),
        ("sppm_ic2a.slog", 7970, 0),
        ("invalid.slog", 24, 1),
    ] {
        let f = corpus_file(&dir, &format!("mpich1/slog1/{name}"));
        let text = stdout(&mpelog(&["print", &f]));
        insta::assert_snapshot!(format!("slog1_print_{name}"), golden(&text));
        let info = stdout(&mpelog(&["info", "--json", &f]));
        assert!(info.contains("\"format\":\"SLOG-1\""), "{info}");
        // check: invalid.slog is read with one warning (a begin piece that never ends).
        let o = mpelog(&["check", &f]);
        assert!(o.status.success(), "{name}");
        let report = String::from_utf8_lossy(&o.stdout).to_string();
        assert_eq!(report.matches("S1-SPLIT-001").count(), warnings, "{report}");
        let out = tmp.path().join(format!("{name}.slog2"));
        let o = mpelog(&["convert", &f, "-o", out.to_str().unwrap()]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(mpelog(&["check", out.to_str().unwrap()]).status.success());
        let w = stdout(&mpelog(&[
            "window",
            out.to_str().unwrap(),
            "--from",
            "-1e12",
            "--to",
            "1e12",
        ]));
        assert_eq!(last_drawables(&w), drawables, "{name}");
        let back = tmp.path().join(name);
        let o = mpelog(&[
            "convert",
            &f,
            "-o",
            back.to_str().unwrap(),
            "--format",
            "slog",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(
            std::fs::read(&back).unwrap(),
            std::fs::read(&f).unwrap(),
            "{name}"
        );
    }
}
