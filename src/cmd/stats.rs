//! `mpelog stats`: per-category and per-timeline durations, the communication
//! matrix, message sizes and a time histogram ([`mpelog::stats`]), as text, JSON
//! or CSV.

use super::form::Form;
use crate::error::CliResult;
use mpelog::stats::{Durations, Options, Stats};
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

/// Which tables `--by` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum By {
    /// Per category.
    Category,
    /// Per timeline.
    Timeline,
    /// Both.
    Both,
}

/// Runs `mpelog stats`.
pub fn run(path: &Path, trace: Option<&Path>, opts: &Options, by: By, form: Form) -> CliResult {
    let s = of(path, trace, opts)?;
    super::form::print(&s, form, |out| csv(&s, by, out), |out| text(&s, by, out))
}

/// The statistics of any input `stats` reads ([`mpelog::Trace::stats`]).
pub fn of(path: &Path, trace: Option<&Path>, opts: &Options) -> CliResult<Stats> {
    let mut t = super::trace(path, trace)?;
    t.stats(opts).map_err(super::failed(t.format()))
}

/// A number as the shortest text that reads back to it.
fn num(x: f64) -> String {
    format!("{x:?}")
}

/// A time for people: seconds in fixed point to the microsecond.
fn secs(x: f64) -> String {
    format!("{x:.6}")
}

/// How the bins name a category: its name, with its index when another
/// category has the same name.
fn bin_names(s: &Stats) -> HashMap<i32, (String, &'static str)> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for c in &s.categories {
        *seen.entry(c.name.as_str()).or_default() += 1;
    }
    s.categories
        .iter()
        .map(|c| {
            let name = if seen[c.name.as_str()] > 1 {
                format!("{}#{}", c.name, c.index)
            } else {
                c.name.clone()
            };
            (
                c.index,
                (name.replace(char::is_whitespace, "_"), c.topology),
            )
        })
        .collect()
}

fn text<W: Write>(s: &Stats, by: By, out: &mut W) -> std::io::Result<()> {
    writeln!(
        out,
        "window [{}, {}) ({} s)",
        secs(s.from),
        secs(s.to),
        secs(s.to - s.from)
    )?;
    if by != By::Timeline {
        writeln!(out)?;
        writeln!(
            out,
            "times in s (means, minima and maxima in ms); shares are of the window's time summed over the {} timelines (up to {}%)",
            s.timelines.len(),
            100 * s.timelines.len().max(1)
        )?;
        writeln!(
            out,
            "{:>6} {:<24} {:<6} {:>10} {:>14} {:>12} {:>12} {:>12} {:>8} {:>14} {:>8}",
            "index",
            "category",
            "kind",
            "count",
            "incl sum s",
            "incl mean ms",
            "incl min ms",
            "incl max ms",
            "incl %",
            "excl sum s",
            "excl %"
        )?;
        for c in &s.categories {
            writeln!(
                out,
                "{:>6} {:<24} {:<6} {:>10} {:>14.6} {:>12.4} {:>12.4} {:>12.4} {:>8.3} {:>14.6} {:>8.3}",
                c.index,
                c.name,
                c.topology,
                c.count,
                c.inclusive.sum,
                1e3 * c.inclusive.mean(),
                1e3 * c.inclusive.min,
                1e3 * c.inclusive.max,
                100.0 * c.inclusive_share,
                c.exclusive.sum,
                100.0 * c.exclusive_share
            )?;
        }
    }
    if by != By::Category {
        writeln!(out)?;
        writeln!(
            out,
            "{:>8} {:>10} {:>14} {:>12} {:>14} {:>8} {:>8} {:>8} {:>8}",
            "timeline",
            "states",
            "incl sum s",
            "incl mean ms",
            "excl sum s",
            "incl %",
            "events",
            "sent",
            "received"
        )?;
        for t in &s.timelines {
            writeln!(
                out,
                "{:>8} {:>10} {:>14.6} {:>12.4} {:>14.6} {:>8.3} {:>8} {:>8} {:>8}",
                t.line,
                t.inclusive.count,
                t.inclusive.sum,
                1e3 * t.inclusive.mean(),
                t.exclusive.sum,
                100.0 * t.inclusive_share,
                t.events,
                t.sent,
                t.received
            )?;
        }
    }
    if !s.messages.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "{:>8} {:>8} {:>10} {:>14}",
            "sender", "receiver", "messages", "bytes"
        )?;
        for m in &s.messages {
            writeln!(
                out,
                "{:>8} {:>8} {:>10} {:>14}",
                m.sender, m.receiver, m.messages, m.bytes
            )?;
        }
    }
    if !s.message_sizes.is_empty() {
        writeln!(out)?;
        writeln!(out, "{:>14} {:>10}", "size below", "messages")?;
        for (below, n) in &s.message_sizes {
            writeln!(out, "{below:>14} {n:>10}")?;
        }
    }
    if !s.bins.is_empty() {
        writeln!(out)?;
        writeln!(out, "histogram: per bin, seconds covered by each state category, summed over timelines (events and arrows: how many start there)")?;
        let names = bin_names(s);
        for b in &s.bins {
            let cells: Vec<String> = b
                .categories
                .iter()
                .map(|(c, v)| match names.get(c) {
                    Some((name, "state")) => format!("{name}={}", secs(*v)),
                    Some((name, _)) => format!("{name}={}", v.round()),
                    None => format!("{c}={}", secs(*v)),
                })
                .collect();
            writeln!(
                out,
                "[{}, {}) {}",
                secs(b.start),
                secs(b.end),
                cells.join(" ")
            )?;
        }
    }
    Ok(())
}

/// The five CSV cells of a duration column group: sum, mean, min, max and the
/// share (empty where the table has none).
fn duration_cells(d: &Durations, share: Option<f64>) -> String {
    format!(
        "{},{},{},{},{}",
        num(d.sum),
        num(d.mean()),
        num(d.min),
        num(d.max),
        share.map(num).unwrap_or_default()
    )
}

fn csv<W: Write>(s: &Stats, by: By, out: &mut W) -> std::io::Result<()> {
    writeln!(
        out,
        "table,key,name,kind,count,incl_sum,incl_mean,incl_min,incl_max,incl_share,excl_sum,excl_mean,excl_min,excl_max,excl_share,events,sent,received,bytes,bin_start,bin_end"
    )?;
    let quote = |t: &str| format!("\"{}\"", t.replace('"', "\"\""));
    if by != By::Timeline {
        for c in &s.categories {
            writeln!(
                out,
                "category,{},{},{},{},{},{},,,,,,",
                c.index,
                quote(&c.name),
                c.topology,
                c.count,
                duration_cells(&c.inclusive, Some(c.inclusive_share)),
                duration_cells(&c.exclusive, Some(c.exclusive_share))
            )?;
        }
    }
    if by != By::Category {
        for t in &s.timelines {
            writeln!(
                out,
                "timeline,{},,state,{},{},{},{},{},{},,,",
                t.line,
                t.inclusive.count,
                duration_cells(&t.inclusive, Some(t.inclusive_share)),
                duration_cells(&t.exclusive, None),
                t.events,
                t.sent,
                t.received
            )?;
        }
    }
    for m in &s.messages {
        writeln!(
            out,
            "message,{}->{},,arrow,{},,,,,,,,,,,,,,{},,",
            m.sender, m.receiver, m.messages, m.bytes
        )?;
    }
    for (below, n) in &s.message_sizes {
        writeln!(out, "message_size,<{below},,arrow,{n},,,,,,,,,,,,,,,,")?;
    }
    for b in &s.bins {
        for (c, v) in &b.categories {
            writeln!(
                out,
                "bin,{c},,,,{},,,,,,,,,,,,,,{},{}",
                num(*v),
                num(b.start),
                num(b.end)
            )?;
        }
    }
    Ok(())
}
