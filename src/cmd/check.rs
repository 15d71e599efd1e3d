//! `mpelog check`: validate traces against the rules of `spec/`, through the
//! conformance library (`mpelog_conformance::check_path`).

use crate::error::{CliError, CliResult};
use mpelog_conformance::{check_path, rules, Finding, Options, Report};
use serde::Serialize;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// One finding, as printed by `--json`.
#[derive(Debug, Serialize)]
struct JsonFinding<'a> {
    rule: &'a str,
    severity: &'a str,
    offset: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    place: Option<&'a str>,
    message: &'a str,
}

/// The report for one file, as printed by `--json`.
#[derive(Debug, Serialize)]
struct JsonReport<'a> {
    file: String,
    format: Option<&'static str>,
    errors: usize,
    warnings: usize,
    findings: Vec<JsonFinding<'a>>,
}

/// The findings in offset order (those at one offset in the order found).
fn in_order(r: &Report) -> Vec<&Finding> {
    let mut f: Vec<&Finding> = r.findings.iter().collect();
    f.sort_by_key(|f| f.offset);
    f
}

/// What a finding says after its offset, which the report names once in its
/// own field (some checks also begin their text with it).
fn message(f: &Finding) -> &str {
    let at = format!("byte {}: ", f.offset);
    f.message.strip_prefix(at.as_str()).unwrap_or(&f.message)
}

fn json_report<'a>(path: &Path, r: &'a Report) -> JsonReport<'a> {
    JsonReport {
        file: crate::input::shown(path),
        format: r.format.map(|f| f.name()),
        errors: r.errors(),
        warnings: r.warnings(),
        findings: in_order(r)
            .into_iter()
            .map(|f| JsonFinding {
                rule: f.rule,
                severity: f.severity.name(),
                offset: f.offset,
                place: f.place.as_deref(),
                message: message(f),
            })
            .collect(),
    }
}

fn text(path: &Path, r: &Report) -> String {
    let fmt = r.format.map_or("unknown format", |f| f.name());
    if r.findings.is_empty() {
        return format!("{}: {fmt}: ok\n", crate::input::shown(path));
    }
    let mut t = format!(
        "{}: {fmt}: {} errors, {} warnings\n",
        crate::input::shown(path),
        r.errors(),
        r.warnings()
    );
    for f in in_order(r) {
        let place = f
            .place
            .as_deref()
            .map(|p| format!(" ({p})"))
            .unwrap_or_default();
        t += &format!(
            "  {} {} byte {}{place}: {}\n",
            f.severity,
            f.rule,
            f.offset,
            message(f)
        );
    }
    t
}

/// Writes `text` to standard output; `Ok(false)` when the reader has gone (a
/// closed pipe, as in `mpelog check … | head`), which is not an error.
fn emit(text: &str) -> CliResult<bool> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(false),
        r => r
            .map(|()| true)
            .map_err(CliError::io(Path::new("<stdout>"))),
    }
}

/// Runs `mpelog check`; fails (exit 1) when any file has an error finding.
pub fn run(files: &[PathBuf], json: bool, limit: usize, trace: Option<PathBuf>) -> CliResult {
    let opts = Options::default().limit(limit).trace(trace);
    let mut bad = 0;
    for path in files {
        let path = &mpelog::trace::local_copy(path)?;
        let r = check_path(path, &opts).map_err(CliError::io(path))?;
        if !r.passes() {
            bad += 1;
        }
        let shown = if json {
            let line = mpelog::json_text::to_string(&json_report(path, &r));
            emit(&(line + "\n"))?
        } else {
            emit(&text(path, &r))?
        };
        if !shown {
            break;
        }
    }
    if bad > 0 {
        Err(CliError::CheckFailed(bad))
    } else {
        Ok(())
    }
}

/// `mpelog check --list-rules`: every rule, one per line (or JSON lines).
pub fn list_rules(json: bool) -> CliResult {
    let mut t = String::new();
    for r in rules::all() {
        let format = r.format.map_or("any", |f| f.name());
        if json {
            let v = serde_json::json!({
                "rule": r.id,
                "format": format,
                "severity": r.severity.name(),
                "summary": r.summary,
            });
            t += &format!("{v}\n");
        } else {
            t += &format!(
                "{:<13} {:<10} {:<7} {}\n",
                r.id, format, r.severity, r.summary
            );
        }
    }
    emit(&t).map(drop)
}
