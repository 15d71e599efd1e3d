//! `mpelog check`: validate traces against the rules of `spec/`.

use crate::detect::{detect, Format};
use crate::error::{CliError, CliResult};
use serde::Serialize;
use slog2_format::check::Severity;
use std::path::Path;

/// One finding, as printed.
#[derive(Debug, Serialize)]
pub struct Finding {
    /// Rule ID.
    pub rule: String,
    /// `error` or `warning`.
    pub severity: &'static str,
    /// Byte offset.
    pub offset: u64,
    /// Node `(depth,xpos)` for SLOG-2 findings inside the tree.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// What is wrong and what to do.
    pub message: String,
}

/// The report for one file.
#[derive(Debug, Serialize)]
pub struct Report {
    /// The file.
    pub file: String,
    /// Its detected format, if any.
    pub format: Option<&'static str>,
    /// Number of error findings.
    pub errors: usize,
    /// Number of warning findings.
    pub warnings: usize,
    /// The findings.
    pub findings: Vec<Finding>,
}

/// Checks one file.
pub fn check_file(path: &Path, limit: usize) -> CliResult<Report> {
    let format = match detect(path) {
        Ok(f) => f,
        Err(CliError::Unrecognized { message, .. }) => {
            return Ok(report(
                path,
                None,
                vec![finding("FORMAT", Severity::Error, 0, None, message)],
            ))
        }
        Err(e) => return Err(e),
    };
    let findings = match format {
        Format::Slog1 => match super::slog1::read(path) {
            Ok((f, _)) => f
                .warnings()
                .into_iter()
                .map(|w| finding(w.rule, Severity::Warning, w.offset, None, w.what))
                .collect(),
            Err(e) => vec![finding("S1-PARSE", Severity::Error, 0, None, e.to_string())],
        },
        Format::Alog => match super::alog::read(path) {
            Ok(_) => Vec::new(),
            Err(e) => vec![finding(
                "ALOG-PARSE",
                Severity::Error,
                0,
                None,
                e.to_string(),
            )],
        },
        Format::Annotation => {
            // Every node and every trace range, checksums included: a whole-file
            // window through the annotation.
            let res = super::annotation::open(path, None).and_then(|(mut a, trace)| {
                a.window(f64::NEG_INFINITY, f64::INFINITY)
                    .map(|_| ())
                    .map_err(|e| super::annotation::error(path, &trace, e))
            });
            match res {
                Ok(()) => Vec::new(),
                Err(e) => vec![finding("IDX-READ", Severity::Error, 0, None, e.to_string())],
            }
        }
        Format::Slog2 => {
            let (file, _) = super::open(path)?;
            slog2_format::check::check(std::io::BufReader::new(file), limit)
                .into_iter()
                .map(|f| {
                    finding(
                        f.rule,
                        f.severity,
                        f.offset,
                        f.node.map(|n| format!("({},{})", n.depth, n.xpos)),
                        f.message,
                    )
                })
                .collect()
        }
        Format::Clog2 => {
            let (file, _) = super::open(path)?;
            parse_only(
                "C2-PARSE",
                (|| {
                    let mut r = clog2_format::Clog2Reader::new(file)?;
                    while r.next_record()?.is_some() {}
                    r.finish().map(|_| ())
                })(),
            )
        }
        Format::Clog => {
            let data = std::fs::read(path).map_err(CliError::io(path))?;
            parse_only(
                "C1-PARSE",
                clog2_format::clog1::ClogFile::parse(&data).map(|_| ()),
            )
        }
    };
    Ok(report(path, Some(format.name()), findings))
}

fn parse_only(rule: &str, r: Result<(), clog2_format::Error>) -> Vec<Finding> {
    match r {
        Ok(()) => Vec::new(),
        Err(e) => vec![finding(
            rule,
            Severity::Error,
            e.offset().unwrap_or(0),
            None,
            e.to_string(),
        )],
    }
}

fn finding(rule: &str, s: Severity, offset: u64, node: Option<String>, message: String) -> Finding {
    Finding {
        rule: rule.to_string(),
        severity: match s {
            Severity::Error => "error",
            Severity::Warning => "warning",
        },
        offset,
        node,
        message,
    }
}

fn report(path: &Path, format: Option<&'static str>, findings: Vec<Finding>) -> Report {
    Report {
        file: path.display().to_string(),
        format,
        errors: findings.iter().filter(|f| f.severity == "error").count(),
        warnings: findings.iter().filter(|f| f.severity == "warning").count(),
        findings,
    }
}

/// Runs `mpelog check`; fails (exit 1) when any file has an error finding.
pub fn run(files: &[std::path::PathBuf], json: bool, limit: usize) -> CliResult {
    let mut bad = 0;
    for path in files {
        let r = check_file(path, limit)?;
        if r.errors > 0 {
            bad += 1;
        }
        if json {
            println!(
                "{}",
                serde_json::to_string(&r).map_err(|e| CliError::Usage(e.to_string()))?
            );
        } else {
            let fmt = r.format.unwrap_or("unknown format");
            if r.findings.is_empty() {
                println!("{}: {fmt}: ok", r.file);
            } else {
                println!(
                    "{}: {fmt}: {} errors, {} warnings",
                    r.file, r.errors, r.warnings
                );
                for f in &r.findings {
                    let node = f
                        .node
                        .as_deref()
                        .map(|n| format!(" node {n}"))
                        .unwrap_or_default();
                    println!(
                        "  {} {} byte {}{node}: {}",
                        f.severity, f.rule, f.offset, f.message
                    );
                }
            }
        }
    }
    if bad > 0 {
        Err(CliError::CheckFailed(bad))
    } else {
        Ok(())
    }
}
