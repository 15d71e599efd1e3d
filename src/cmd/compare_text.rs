//! How `--compare` prints two runs side by side ([`mpelog::compare`]): aligned
//! tables, largest change first, or CSV rows with a `table` column.

use crate::input::shown;
use mpelog::compare::{Comparison, Row};
use std::io::Write;
use std::path::Path;

/// The aligned tables: per category on all timelines, then per category and
/// timeline.
pub fn text<W: Write>(c: &Comparison, a: &Path, b: &Path, out: &mut W) -> std::io::Result<()> {
    for (run, path, (from, to)) in [("A", a, c.a_window), ("B", b, c.b_window)] {
        writeln!(
            out,
            "run {run}: {} window [{from:.6}, {to:.6}) ({:.6} s)",
            shown(path),
            to - from
        )?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "exclusive time per state category, largest change first; shares are of each run's window (on all timelines: up to the number of timelines x 100%)"
    )?;
    table(out, "all", &c.categories)?;
    writeln!(out)?;
    writeln!(out, "per category and timeline, largest change first")?;
    table(out, "timeline", &c.timelines)
}

fn table<W: Write>(out: &mut W, timeline: &str, rows: &[Row]) -> std::io::Result<()> {
    writeln!(
        out,
        "{:<24} {:>8} {:>14} {:>14} {:>14} {:>8} {:>8} {:>9}",
        "category", timeline, "A s", "B s", "change s", "A %", "B %", "change %"
    )?;
    for r in rows {
        writeln!(
            out,
            "{:<24} {:>8} {:>14.6} {:>14.6} {:>+14.6} {:>8.3} {:>8.3} {:>+9.3}",
            r.category,
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

/// CSV: one row per category (`table` = `category`) and per category and
/// timeline (`timeline`), times in seconds, shares as fractions.
pub fn csv<W: Write>(c: &Comparison, out: &mut W) -> std::io::Result<()> {
    writeln!(
        out,
        "table,category,timeline,a,b,change,a_share,b_share,share_change"
    )?;
    let quote = |t: &str| format!("\"{}\"", t.replace('"', "\"\""));
    for (table, rows) in [("category", &c.categories), ("timeline", &c.timelines)] {
        for r in rows {
            writeln!(
                out,
                "{table},{},{},{:?},{:?},{:?},{:?},{:?},{:?}",
                quote(&r.category),
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
