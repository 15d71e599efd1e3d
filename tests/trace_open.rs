//! `mpelog::Trace` gives what the CLI prints: for every format (generated
//! traces always; the corpus when `MPELOG_CORPUS` is set), the statistics
//! equal `mpelog stats --json` byte for byte and the window drawables equal
//! `mpelog window --json` line for line, the analysis equals `mpelog analyze
//! --json` byte for byte, through the one library `open`.

mod common;

use common::{mpelog, stdout};
use mpelog::items::Lines;
use mpelog::Trace;
use std::collections::HashMap;
use std::path::Path;

/// `mpelog stats --json` of `path` with `args`.
fn cli_stats(path: &Path, args: &[&str]) -> String {
    let mut a = vec!["stats", "--json", path.to_str().unwrap()];
    a.extend_from_slice(args);
    stdout(&mpelog(&a))
}

/// The drawable lines of `mpelog window --json` (without the cost line).
fn cli_window(path: &Path, from: Option<f64>, to: Option<f64>) -> Vec<String> {
    let (f, t) = (from.map(|x| format!("{x:?}")), to.map(|x| format!("{x:?}")));
    let mut a = vec!["window", "--json", path.to_str().unwrap()];
    if let Some(f) = &f {
        a.extend(["--from", f]);
    }
    if let Some(t) = &t {
        a.extend(["--to", t]);
    }
    let out = stdout(&mpelog(&a));
    let mut lines: Vec<String> = out.lines().map(str::to_string).collect();
    let cost = lines.pop().expect("a cost line");
    assert!(cost.starts_with("{\"cost\""), "{cost}");
    lines
}

/// The window of `t` as `mpelog window --json` prints its drawables.
fn lib_window(t: &mut Trace, from: Option<f64>, to: Option<f64>) -> Vec<String> {
    let legend = t.legend().unwrap();
    let w = t.window(from, to).unwrap();
    let lines = Lines {
        categories: legend
            .iter()
            .map(|c| (c.index, c))
            .collect::<HashMap<_, _>>(),
    };
    w.drawables
        .iter()
        .map(|d| mpelog::json_text::to_string(&lines.drawable_json(d)))
        .collect()
}

/// The statistics of `t` as `mpelog stats --json` prints them.
fn lib_stats(t: &mut Trace, opts: &mpelog::stats::Options) -> String {
    let s = t.stats(opts).unwrap();
    let mut out = Vec::new();
    mpelog::json_text::to_writer_pretty(&mut out, &s).unwrap();
    out.push(b'\n');
    String::from_utf8(out).unwrap()
}

/// `mpelog analyze --json` of `path` with `args`.
fn cli_analyze(path: &Path, args: &[&str]) -> String {
    let mut a = vec!["analyze", "--json", path.to_str().unwrap()];
    a.extend_from_slice(args);
    stdout(&mpelog(&a))
}

/// The analysis of `t` as `mpelog analyze --json` prints it.
fn lib_analyze(t: &mut Trace, opts: &mpelog::analysis::Options) -> String {
    let r = t.analyze(opts).unwrap();
    let mut out = Vec::new();
    mpelog::json_text::to_writer_pretty(&mut out, &r).unwrap();
    out.push(b'\n');
    String::from_utf8(out).unwrap()
}

/// Asserts two lists of lines are equal, showing only the first difference.
fn same_lines(ours: &[String], cli: &[String], what: &str) {
    let first = ours.iter().zip(cli).position(|(a, b)| a != b);
    assert!(
        first.is_none() && ours.len() == cli.len(),
        "{what}: {} lines against the CLI's {}; first difference at {first:?}: {:?} against {:?}",
        ours.len(),
        cli.len(),
        first.map(|i| &ours[i]),
        first.map(|i| &cli[i]),
    );
}

/// Checks `path` through `Trace` against the CLI: whole-trace statistics,
/// windowed statistics with bins, the whole window and a middle one.
fn same_as_cli(path: &Path, format: mpelog::trace::Format) {
    let shown = path.display();
    let mut t = Trace::open(path).unwrap_or_else(|e| panic!("{shown}: {e}"));
    assert_eq!(t.format(), format, "{shown}");
    assert_eq!(
        lib_stats(&mut t, &Default::default()),
        cli_stats(path, &[]),
        "{shown}: stats"
    );
    let info = t.info().unwrap();
    let (a, b) = (info.start, info.end);
    let (from, to) = (a + (b - a) * 0.4, a + (b - a) * 0.6);
    let opts = mpelog::stats::Options::default()
        .window(Some(from), Some(to))
        .bins(5);
    let (f, tt) = (format!("{from:?}"), format!("{to:?}"));
    assert_eq!(
        lib_stats(&mut t, &opts),
        cli_stats(path, &["--from", &f, "--to", &tt, "--bins", "5"]),
        "{shown}: windowed stats"
    );
    assert_eq!(
        lib_analyze(&mut t, &Default::default()),
        cli_analyze(path, &[]),
        "{shown}: analysis"
    );
    let opts = mpelog::analysis::Options::default()
        .window(Some(from), Some(to))
        .root(1)
        .instances(3);
    assert_eq!(
        lib_analyze(&mut t, &opts),
        cli_analyze(
            path,
            &["--from", &f, "--to", &tt, "--root", "1", "--instances", "3"]
        ),
        "{shown}: windowed analysis"
    );
    let whole = lib_window(&mut t, None, None);
    assert!(!whole.is_empty(), "{shown}: an empty trace checks nothing");
    same_lines(
        &whole,
        &cli_window(path, None, None),
        &format!("{shown}: whole window"),
    );
    same_lines(
        &lib_window(&mut t, Some(from), Some(to)),
        &cli_window(path, Some(from), Some(to)),
        &format!("{shown}: middle window"),
    );
    assert!(t.check(&Default::default()).is_ok(), "{shown}: check runs");
}

/// The formats made from a generated trace: CLOG2, SLOG-2 plain and
/// compressed, and the CLOG2's annotation.
#[test]
fn generated_traces_match_the_cli() {
    use mpelog::trace::Format;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let clog2 = common::synth(d, "g.clog2", &["--ranks", "4", "--events", "20000"]);
    let slog2 = d.join("g.slog2");
    let z = d.join("z.slog2");
    for (out, extra) in [(&slog2, None), (&z, Some("deflate"))] {
        let mut a = vec!["convert", &clog2, "-o", out.to_str().unwrap()];
        if let Some(c) = extra {
            a.extend(["--compress", c]);
        }
        stdout(&mpelog(&a));
    }
    let copy = d.join("a.clog2");
    std::fs::copy(&clog2, &copy).unwrap();
    stdout(&mpelog(&["annotate", copy.to_str().unwrap()]));
    same_as_cli(Path::new(&clog2), Format::Clog2);
    same_as_cli(&slog2, Format::Slog2);
    same_as_cli(&z, Format::Slog2Compressed);
    same_as_cli(&d.join("a.clog2.idx"), Format::Annotation);
}

/// Every format of the corpus.
#[test]
fn corpus_formats_match_the_cli() {
    use mpelog::trace::Format;
    let Some(root) = common::corpus() else {
        eprintln!("SKIPPED: MPELOG_CORPUS is not set");
        return;
    };
    let file = |rel: &str| mpelog_conformance::corpus::file(&root, rel);
    for (rel, format) in [
        ("mpe/cpilog_n4.clog2", Format::Clog2),
        ("mpe/p2p_n4.clog2", Format::Clog2),
        ("mpe/p2p_n4.slog2", Format::Slog2),
        ("historic/arrow.slog2", Format::Slog2),
        ("historic/fpilog.clog", Format::Clog),
        ("mpich1/clog1/arrowtest.clog", Format::Clog),
        ("mpich1/alog/cpilog.alog", Format::Alog),
        ("mpich1/alog/gmmlog_profile.log.Z", Format::Alog),
        ("mpich1/slog1/sample.slog", Format::Slog1),
        ("otf2/ping-pong-otf2/traces.otf2", Format::Otf2),
    ] {
        same_as_cli(&file(rel), format);
    }
    // An OTF2 archive given as its directory.
    let dir = file("otf2/ping-pong-otf2-papi/traces.otf2");
    same_as_cli(dir.parent().unwrap(), Format::Otf2);
}

/// A bad input is a typed error with its byte offset.
#[test]
fn errors_are_typed_with_offsets() {
    let dir = tempfile::tempdir().unwrap();
    let clog2 = common::synth(dir.path(), "g.clog2", &["--events", "3000"]);
    let slog2 = dir.path().join("g.slog2");
    stdout(&mpelog(&["convert", &clog2, "-o", slog2.to_str().unwrap()]));
    let bytes = std::fs::read(&slog2).unwrap();
    let cut = dir.path().join("cut.slog2");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let e = match Trace::open(&cut) {
        Err(e) => e,
        Ok(mut t) => t.window(None, None).unwrap_err(),
    };
    assert_eq!(e.kind(), "slog2", "{e}");
    assert!(e.offset().is_some(), "{e}");
    let missing = dir.path().join("gone.clog2.idx");
    assert_eq!(Trace::open(&missing).unwrap_err().kind(), "io");
}

/// A SLOG-2 file at a URL is read where it is (Range requests), any other
/// trace at a URL through a local copy: both give what their local file gives.
#[test]
fn urls_give_what_local_files_give() {
    use mpelog::trace::Format;
    let dir = tempfile::tempdir().unwrap();
    let clog2 = common::synth(dir.path(), "g.clog2", &["--events", "5000"]);
    let slog2 = dir.path().join("g.slog2");
    stdout(&mpelog(&["convert", &clog2, "-o", slog2.to_str().unwrap()]));
    for (local, format) in [(Path::new(&clog2), Format::Clog2), (&slog2, Format::Slog2)] {
        let data = std::sync::Arc::new(std::fs::read(local).unwrap());
        let server = common::http::file_server(data, None);
        let url = server.url("http", "/trace");
        let mut remote = Trace::open(&url).unwrap_or_else(|e| panic!("{url}: {e}"));
        let mut here = Trace::open(local).unwrap();
        assert_eq!(remote.format(), format, "{url}");
        let opts = mpelog::stats::Options::default().bins(3);
        assert_eq!(
            lib_stats(&mut remote, &opts),
            lib_stats(&mut here, &opts),
            "{url}: stats"
        );
        same_lines(
            &lib_window(&mut remote, None, None),
            &lib_window(&mut here, None, None),
            &format!("{url}: window"),
        );
    }
}

/// An annotation opened with a trace not named after it is checked with that
/// trace, as `mpelog check IDX --trace TRACE` checks it (with `check --json`'s
/// findings), and without it finds no trace.
#[test]
fn an_annotation_is_checked_with_the_trace_it_was_opened_with() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let clog2 = common::synth(d, "g.clog2", &["--ranks", "2", "--events", "2000"]);
    stdout(&mpelog(&["annotate", &clog2]));
    let idx = d.join("elsewhere.idx");
    std::fs::rename(d.join("g.clog2.idx"), &idx).unwrap();
    let mut t = Trace::open_with_trace(&idx, Some(Path::new(&clog2))).unwrap();
    let ours = t.check(&Default::default()).unwrap();
    assert!(ours.passes(), "{:?}", ours.findings);
    let cli = common::json_of(&["check", "--json", idx.to_str().unwrap(), "--trace", &clog2]);
    assert_eq!(cli["errors"], serde_json::json!(0), "{cli}");
    assert_eq!(
        cli["findings"].as_array().map(Vec::len),
        Some(ours.findings.len())
    );
    // Another trace named in the options wins, and finds the annotation stale.
    let other = common::synth(d, "other.clog2", &["--ranks", "3", "--events", "500"]);
    let opts = mpelog_conformance::Options::default().trace(Some(other.into()));
    assert!(!t.check(&opts).unwrap().passes());
    // The annotation alone names no trace.
    assert!(Trace::open(&idx).is_err());
}
