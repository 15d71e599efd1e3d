//! How `--compare` prints two runs side by side ([`mpelog::compare`]): aligned
//! tables, largest change first, or CSV rows with a `table` column.

use super::form::Form;
use crate::error::CliResult;
use crate::input::shown;
use mpelog::compare::{Comparison, Row};
use std::io::Write;
use std::path::Path;

/// What the rows of a comparison are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rows {
    /// State categories (`stats --compare`): their exclusive time.
    Categories,
    /// Wait-state patterns (`analyze --compare`): their seconds.
    Patterns,
}

impl Rows {
    fn word(self) -> &'static str {
        match self {
            Rows::Categories => "category",
            Rows::Patterns => "pattern",
        }
    }
}

/// Runs `mpelog stats A --compare B` or `mpelog analyze A --compare B`: reads
/// each run with `of` (`a` with `trace`, the annotated trace if it is an
/// annotation), compares them with `compare` ([`mpelog::compare`]: the
/// largest change first) and prints the comparison in `form`.
pub fn run<T>(
    (a, trace, b): (&Path, Option<&Path>, &Path),
    rows: Rows,
    form: Form,
    of: impl Fn(&Path, Option<&Path>) -> CliResult<T>,
    compare: impl FnOnce(&T, &T) -> Comparison,
) -> CliResult {
    let c = compare(&of(a, trace)?, &of(b, None)?);
    print(&c, rows, a, b, form)
}

/// Prints the comparison of runs `a` and `b` to standard output in `form`.
fn print(c: &Comparison, rows: Rows, a: &Path, b: &Path, form: Form) -> CliResult {
    super::form::print(
        c,
        form,
        |out| csv(c, rows, out),
        |out| text(c, rows, a, b, out),
    )
}

/// The aligned tables: per category (pattern) on all timelines, then per
/// category (pattern) and timeline.
pub fn text<W: Write>(
    c: &Comparison,
    rows: Rows,
    a: &Path,
    b: &Path,
    out: &mut W,
) -> std::io::Result<()> {
    for (run, path, (from, to)) in [("A", a, c.a_window), ("B", b, c.b_window)] {
        writeln!(
            out,
            "run {run}: {} window [{from:.6}, {to:.6}) ({:.6} s)",
            shown(path),
            to - from
        )?;
    }
    writeln!(out)?;
    let what = match rows {
        Rows::Categories => "exclusive time per state category",
        Rows::Patterns => "seconds per wait-state pattern (each with its sub-patterns)",
    };
    writeln!(
        out,
        "{what}, largest change first; shares are of each run's window (on all timelines: up to the number of timelines x 100%)"
    )?;
    table(out, rows.word(), "all", &c.totals)?;
    writeln!(out)?;
    writeln!(
        out,
        "per {} and timeline, largest change first",
        rows.word()
    )?;
    table(out, rows.word(), "timeline", &c.timelines)
}

fn table<W: Write>(out: &mut W, word: &str, timeline: &str, rows: &[Row]) -> std::io::Result<()> {
    writeln!(
        out,
        "{:<40} {:>8} {:>14} {:>14} {:>14} {:>8} {:>8} {:>9}",
        word, timeline, "A s", "B s", "change s", "A %", "B %", "change %"
    )?;
    for r in rows {
        writeln!(
            out,
            "{:<40} {:>8} {:>14.6} {:>14.6} {:>+14.6} {:>8.3} {:>8.3} {:>+9.3}",
            r.name,
            r.timeline.map_or("all".to_string(), |t| t.to_string()),
            r.a,
            r.b,
            r.change(),
            100.0 * r.a_share,
            100.0 * r.b_share,
            100.0 * r.share_change()
        )?;
    }
    Ok(())
}

/// CSV: one row per category or pattern on all timelines (`table` =
/// `total`) and per category (pattern) and timeline (`timeline`), times in
/// seconds, shares as fractions.
pub fn csv<W: Write>(c: &Comparison, rows: Rows, out: &mut W) -> std::io::Result<()> {
    writeln!(
        out,
        "table,{},timeline,a,b,change,a_share,b_share,share_change",
        rows.word()
    )?;
    let quote = |t: &str| format!("\"{}\"", t.replace('"', "\"\""));
    for (table, rows) in [("total", &c.totals), ("timeline", &c.timelines)] {
        for r in rows {
            writeln!(
                out,
                "{table},{},{},{:?},{:?},{:?},{:?},{:?},{:?}",
                quote(&r.name),
                r.timeline.map_or(String::new(), |t| t.to_string()),
                r.a,
                r.b,
                r.change(),
                r.a_share,
                r.b_share,
                r.share_change()
            )?;
        }
    }
    Ok(())
}
