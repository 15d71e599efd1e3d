//! `check` passes every trace of the real corpus (`MPELOG_CORPUS`) except the six
//! known-broken historic `*_fromtxt.slog2` files, which fail with the rules the
//! spec (spec/conformance.md §8, informative note) says they break. The findings of
//! every file are printed (run with `--nocapture` to see them).

use mpelog_conformance::{check_path, Format, Options, Severity};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Trace files of the corpus: (path under the corpus root, format).
const FILES: &[(&str, Format)] = &[
    ("historic/arrow.slog2", Format::Slog2),
    ("historic/data.slog2", Format::Slog2),
    ("historic/fpilog.clog", Format::Clog),
    ("historic/fpilog.slog2", Format::Slog2),
    ("historic/fpilog_fromclog.slog2", Format::Slog2),
    ("historic/fpilog_fromclog_ls400.slog2", Format::Slog2),
    ("mpich1/alog/cpilog.alog", Format::Alog),
    ("mpich1/alog/cpilog.log", Format::Alog),
    ("mpich1/alog/fpilog_profile.log", Format::Alog),
    ("mpich1/alog/gmm.log", Format::Alog),
    ("mpich1/alog/gmmlog_profile.log.Z", Format::Alog),
    ("mpich1/alog/monte.log", Format::Alog),
    ("mpich1/alog/sam_hyp.16.log", Format::Alog),
    ("mpich1/alog/srtest.alog", Format::Alog),
    ("mpich1/alog/systest_profile.log", Format::Alog),
    ("mpich1/clog1/arrowtest.clog", Format::Clog),
    ("mpich1/clog1/fpilog.clog", Format::Clog),
    ("mpich1/clog1/nesttest.clog", Format::Clog),
    ("mpich1/clog1/simple.clog", Format::Clog),
    ("mpich1/slog1/invalid.slog", Format::Slog1),
    ("mpich1/slog1/sample.slog", Format::Slog1),
    ("mpich1/slog1/sppm_ic2a.slog", Format::Slog1),
];

/// The known-broken files and the error rules each must be reported under (at
/// least these; spec/conformance.md §8).
const BROKEN: &[(&str, &[&str])] = &[
    ("historic/arrow_fromtxt.slog2", &["S2-DRW-002"]),
    ("historic/arrow_old_fromtxt.slog2", &["S2-DRW-002"]),
    ("historic/data1_fromtxt.slog2", &["S2-DRW-002"]),
    ("historic/data_fromtxt.slog2", &["S2-DRW-002"]),
    ("historic/data_old_fromtxt.slog2", &["S2-DRW-002"]),
    (
        "historic/onetimeline_fromtxt.slog2",
        &["S2-DRW-002", "S2-DRW-003"],
    ),
];

/// Base names of the traces in corpus/mpe (the `.clog2` files and every
/// `.slog2` made from them).
fn mpe_files(root: &Path) -> Vec<(String, Format)> {
    let dir = root.join("mpe");
    let mut v: Vec<(String, Format)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|n| {
            let f = if n.ends_with(".clog2") {
                Format::Clog2
            } else if n.ends_with(".slog2") {
                Format::Slog2
            } else {
                return None;
            };
            Some((format!("mpe/{n}"), f))
        })
        .collect();
    v.sort();
    v
}

fn root() -> Option<PathBuf> {
    mpelog_conformance::corpus::root()
}

#[test]
fn every_corpus_trace_passes_except_the_known_broken_ones() {
    let Some(root) = root() else { return };
    let mpe = mpe_files(&root);
    assert_eq!(
        mpe.iter().filter(|(_, f)| *f == Format::Clog2).count(),
        26,
        "corpus/mpe should hold 26 CLOG2 traces"
    );
    assert_eq!(
        mpe.iter().filter(|(_, f)| *f == Format::Slog2).count(),
        33,
        "corpus/mpe should hold 33 SLOG-2 files"
    );
    let all: Vec<(String, Format)> = FILES
        .iter()
        .map(|(p, f)| (p.to_string(), *f))
        .chain(mpe)
        .collect();
    let opts = Options::default();
    let mut warned = 0;
    for (name, format) in &all {
        let path = root.join(name);
        assert!(path.is_file(), "{} is missing", path.display());
        let r = check_path(&path, &opts).unwrap();
        assert_eq!(r.format, Some(*format), "{name}");
        assert!(r.passes(), "{name} fails the check: {:#?}", r.findings);
        let rules: BTreeSet<&str> = r.findings.iter().map(|f| f.rule).collect();
        if !rules.is_empty() {
            warned += 1;
            eprintln!("{name}: {} warnings: {rules:?}", r.warnings());
        }
    }
    eprintln!(
        "{} corpus traces pass the check ({warned} with warnings)",
        all.len()
    );
}

#[test]
fn the_known_broken_files_fail_with_their_rules() {
    let Some(root) = root() else { return };
    for (name, must) in BROKEN {
        let path = root.join(name);
        assert!(path.is_file(), "{} is missing", path.display());
        let r = check_path(&path, &Options::default()).unwrap();
        assert!(!r.passes(), "{name} passes");
        let errors: BTreeSet<&str> = r
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .map(|f| f.rule)
            .collect();
        for rule in *must {
            assert!(errors.contains(rule), "{name}: no {rule} in {errors:?}");
        }
        eprintln!("{name}: errors {errors:?}");
    }
}
