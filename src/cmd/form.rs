//! How `stats`, `analyze` and their `--compare` print a report: aligned text,
//! one JSON object, or CSV rows with a `table` column ([`Form`], [`print`]).

use crate::error::{CliError, CliResult};
use std::io::{BufWriter, StdoutLock, Write};
use std::path::Path;

/// How to print a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// Aligned tables.
    Text,
    /// One JSON object.
    Json,
    /// CSV rows with a `table` column.
    Csv,
}

impl Form {
    /// The form `--json` and `--csv` ask for (`--json` first; text when neither).
    pub fn of(json: bool, csv: bool) -> Form {
        match (json, csv) {
            (true, _) => Form::Json,
            (_, true) => Form::Csv,
            _ => Form::Text,
        }
    }
}

/// Where a report is printed: standard output, buffered.
pub type Out<'a> = BufWriter<StdoutLock<'a>>;

/// Prints `report` to standard output in `form`: as pretty JSON, or through
/// `csv` or `text`.
pub fn print<T: serde::Serialize>(
    report: &T,
    form: Form,
    csv: impl FnOnce(&mut Out) -> std::io::Result<()>,
    text: impl FnOnce(&mut Out) -> std::io::Result<()>,
) -> CliResult {
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let o = CliError::io(Path::new("<stdout>"));
    match form {
        Form::Json => {
            mpelog::json_text::to_writer_pretty(&mut out, report)
                .map_err(|e| CliError::io(Path::new("<stdout>"))(e.into()))?;
            writeln!(out).map_err(o)?;
        }
        Form::Csv => csv(&mut out).map_err(o)?,
        Form::Text => text(&mut out).map_err(o)?,
    }
    out.flush().map_err(CliError::io(Path::new("<stdout>")))
}
