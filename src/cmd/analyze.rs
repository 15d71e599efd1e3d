//! `mpelog analyze`: Scalasca's wait states, the critical path and load
//! imbalance ([`mpelog::analysis`]), as a report for people, JSON or CSV.
//! With `-o REPORT.cubex`, the same [`Report`] is also written as CUBE4
//! ([`analysis::to_cube`]).

use super::form::Form;
use crate::error::{CliError, CliResult};
use mpelog::analysis::{self, Options, PatternReport, Report};
use mpelog::waits::{index_path, write_recorded, Binding, WaitIndex, Written};
use std::io::Write;
use std::path::Path;

/// The bytes of wait states `analyze --write-index` holds in memory.
const RECORD_MEMORY: usize = 64 << 20;

/// Runs `mpelog analyze`; with `cube`, also writes the report there as CUBE4.
pub fn run(
    path: &Path,
    trace: Option<&Path>,
    opts: &Options,
    form: Form,
    cube: Option<&Path>,
) -> CliResult {
    let mut t = super::open_trace(path, trace)?;
    // With --write-index (`opts.record`): the file the index binds to, read
    // before the analysis so that a trace changed meanwhile is not bound.
    let bound = match (opts.record, t.requests()) {
        (false, _) => None,
        (true, Some(_)) => {
            return Err(CliError::Usage(format!(
                "{}: --write-index writes beside a local trace",
                crate::input::shown(path)
            )))
        }
        (true, None) => {
            let traced = match t.annotated() {
                Some(annotated) => annotated.to_path_buf(),
                None => t.local_path()?,
            };
            let b = Binding::of(&traced).map_err(CliError::Waits)?;
            Some((traced, b))
        }
    };
    // With --write-index, the waits beyond 64 MiB go to sorted runs in a
    // temporary file and the index is written from them: memory bounded
    // whatever the trace.
    let opts = &opts.clone().record_memory(RECORD_MEMORY);
    let mut r = t.analyze(opts).map_err(super::failed(t.format()))?;
    if let Some((traced, binding)) = bound {
        let out = index_path(&traced);
        let mut inputs = vec![path, traced.as_path()];
        inputs.extend(trace);
        let written = match r.recorded.take() {
            Some(rec) => write_recorded(rec, Some(binding), &out, &inputs),
            None => {
                let ix = WaitIndex::new(vec![], vec![], vec![], (r.from, r.to), opts.root, 64)
                    .bound(binding);
                ix.write_file(&out, &inputs).map(|()| Written::default())
            }
        }
        .map_err(CliError::Waits)?;
        eprintln!(
            "wrote the wait index {}: {} waits on {} timelines, {} critical-path segments",
            crate::input::shown(&out),
            written.waits,
            written.timelines,
            written.segments
        );
    }
    if let Some(out) = cube {
        // Never over the trace (or the annotation's trace): `write_file`
        // refuses its inputs, writes a temporary file and renames it.
        // An annotation's trace, named or by default (its path without `.idx`).
        let default_trace = path
            .to_str()
            .and_then(|p| p.strip_suffix(".idx"))
            .map(std::path::PathBuf::from);
        let mut inputs = vec![path];
        inputs.extend(trace);
        inputs.extend(default_trace.as_deref());
        analysis::to_cube(&r)?.write_file(out, &inputs)?;
    }
    super::form::print(&r, form, |out| csv(&r, out), |out| text(&r, out))
}

/// A time for people: seconds in fixed point to the microsecond.
fn secs(x: f64) -> String {
    format!("{x:.6}")
}

fn partner(p: Option<i32>) -> String {
    p.map_or_else(|| "-".to_string(), |p| p.to_string())
}

/// The patterns as a tree: the top ones by seconds, each followed by its
/// sub-patterns (by seconds), with their depth.
fn tree(r: &Report) -> Vec<(usize, &PatternReport)> {
    fn under<'r>(
        r: &'r Report,
        parent: Option<&str>,
        depth: usize,
        out: &mut Vec<(usize, &'r PatternReport)>,
    ) {
        // `r.patterns` is sorted by seconds already.
        for p in r.patterns.iter().filter(|p| p.parent == parent) {
            out.push((depth, p));
            under(r, Some(p.name), depth + 1, out);
        }
    }
    let mut out = Vec::new();
    under(r, None, 0, &mut out);
    out
}

/// The report for people.
pub fn text<W: Write>(r: &Report, out: &mut W) -> std::io::Result<()> {
    writeln!(
        out,
        "window [{}, {}) ({} s) x {} timelines = {} s",
        secs(r.from),
        secs(r.to),
        secs(r.to - r.from),
        r.timelines.len(),
        secs(r.total_seconds)
    )?;
    writeln!(
        out,
        "{} MPI calls, {} messages, {} collective instances analysed",
        r.counts.mpi_calls, r.counts.messages, r.counts.collectives
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "wait states (Scalasca's patterns; a sub-pattern is indented, its seconds are part of its parent's; shares are of {} s)",
        secs(r.total_seconds)
    )?;
    if r.patterns.is_empty() {
        writeln!(out, "  none found")?;
    } else {
        writeln!(
            out,
            "{:<50} {:>14} {:>8} {:>10}  worst timeline",
            "pattern", "seconds", "%", "instances"
        )?;
        for (depth, p) in tree(r) {
            let worst = p
                .per_timeline
                .iter()
                .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(a.0)))
                .map(|(t, s)| format!("{t} ({} s)", secs(*s)))
                .unwrap_or_default();
            writeln!(
                out,
                "{:<50} {:>14} {:>8.3} {:>10}  {}",
                format!("{}{}", "  ".repeat(depth), p.name),
                secs(p.seconds),
                100.0 * p.share,
                p.count,
                worst
            )?;
        }
        for (_, p) in tree(r) {
            writeln!(out)?;
            writeln!(out, "{}: worst instances", p.name)?;
            writeln!(
                out,
                "{:>14} {:>9} {:>8} {:>12}  call path",
                "enter s", "timeline", "partner", "wait ms"
            )?;
            for i in &p.instances {
                writeln!(
                    out,
                    "{:>14} {:>9} {:>8} {:>12.4}  {}",
                    secs(i.time),
                    i.timeline,
                    partner(i.partner),
                    1e3 * i.seconds,
                    i.call_path
                )?;
            }
            writeln!(out, "{}: per call path", p.name)?;
            for c in p.per_call_path.iter().take(5) {
                writeln!(out, "{:>14}  {}", secs(c.seconds), c.call_path)?;
            }
        }
    }
    let cp = &r.critical_path;
    writeln!(out)?;
    match cp.end_timeline {
        None => writeln!(out, "critical path: none (no states)")?,
        Some(end) => {
            writeln!(
                out,
                "critical path: {} s, ending on timeline {}; critical-path imbalance impact {} s ({:.3}% of the path)",
                secs(cp.seconds),
                end,
                secs(cp.imbalance_impact),
                100.0 * cp.imbalance_share
            )?;
            writeln!(
                out,
                "{:<32} {:>14} {:>8} {:>14} {:>14}",
                "category", "on path s", "%", "mean s", "imbalance s"
            )?;
            for c in cp.per_category.iter().take(12) {
                writeln!(
                    out,
                    "{:<32} {:>14} {:>8.3} {:>14} {:>14}",
                    c.category,
                    secs(c.seconds),
                    100.0 * c.share,
                    secs(c.mean),
                    secs(c.imbalance)
                )?;
            }
            let per: Vec<String> = cp
                .per_timeline
                .iter()
                .map(|(t, s)| format!("{t}={}", secs(*s)))
                .collect();
            writeln!(out, "on the path per timeline (s): {}", per.join(" "))?;
        }
    }
    writeln!(out)?;
    writeln!(
        out,
        "load imbalance (exclusive time per timeline; mean over all {} timelines)",
        r.timelines.len()
    )?;
    writeln!(
        out,
        "{:<32} {:>12} {:>12} {:>9} {:>12} {:>12} {:>12} {:>12}  top timelines (s)",
        "category", "mean s", "max s", "max/mean", "overload", "single", "underload", "non-part."
    )?;
    for i in r.imbalance.iter().take(15) {
        let top: Vec<String> = i
            .top
            .iter()
            .map(|(t, s)| format!("{t}={}", secs(*s)))
            .collect();
        writeln!(
            out,
            "{:<32} {:>12} {:>12} {:>9.3} {:>12} {:>12} {:>12} {:>12}  {}",
            i.category,
            secs(i.mean),
            secs(i.max),
            i.max_over_mean,
            secs(i.overload),
            secs(i.single_participant),
            secs(i.underload),
            secs(i.non_participation),
            top.join(" ")
        )?;
    }
    let u = &r.unmatched;
    writeln!(out)?;
    writeln!(out, "not matched:")?;
    if let (Some(s), Some(rc)) = (u.dropped_sends, u.dropped_receives) {
        writeln!(
            out,
            "  {s} sends without a receive and {rc} receives without a send (dropped when the trace was read)"
        )?;
    }
    writeln!(
        out,
        "  {} message ends outside any MPI call; {} messages received before they were sent (clock condition, waits clamped)",
        u.message_ends_outside_calls, u.p2p_clock_violations
    )?;
    writeln!(
        out,
        "  {} collective instances incomplete (a rank missing), {} mismatched (different calls), {} collective clock violations",
        u.incomplete_collectives, u.mismatched_collectives, u.collective_clock_violations
    )?;
    for e in &u.collective_examples {
        writeln!(
            out,
            "  {} collective #{} of communicator {} ({} of {} ranks: timelines {:?}, calls {:?})",
            e.problem,
            e.position,
            e.communicator,
            e.timelines.len(),
            e.size,
            e.timelines,
            e.calls
        )?;
    }
    Ok(())
}

fn num(x: f64) -> String {
    format!("{x:?}")
}

fn quote(t: &str) -> String {
    format!("\"{}\"", t.replace('"', "\"\""))
}

/// CSV tables, one after the other, with a `table` column.
pub fn csv<W: Write>(r: &Report, out: &mut W) -> std::io::Result<()> {
    writeln!(
        out,
        "table,pattern,key,seconds,share,count,time,timeline,partner,call_path"
    )?;
    for p in &r.patterns {
        writeln!(
            out,
            "pattern,{},,{},{},{},,,,",
            quote(p.name),
            num(p.seconds),
            num(p.share),
            p.count
        )?;
        for (t, s) in &p.per_timeline {
            writeln!(
                out,
                "pattern_timeline,{},{t},{},,,,{t},,",
                quote(p.name),
                num(*s)
            )?;
        }
        for c in &p.per_call_path {
            writeln!(
                out,
                "pattern_call_path,{},,{},,,,,,{}",
                quote(p.name),
                num(c.seconds),
                quote(&c.call_path)
            )?;
        }
        for i in &p.instances {
            writeln!(
                out,
                "instance,{},,{},,,{},{},{},{}",
                quote(p.name),
                num(i.seconds),
                num(i.time),
                i.timeline,
                i.partner.map(|p| p.to_string()).unwrap_or_default(),
                quote(&i.call_path)
            )?;
        }
    }
    for c in &r.critical_path.per_category {
        writeln!(
            out,
            "critical_path_category,,{},{},{},,,,,",
            quote(&c.category),
            num(c.seconds),
            num(c.share)
        )?;
    }
    for (t, s) in &r.critical_path.per_timeline {
        writeln!(out, "critical_path_timeline,,{t},{},,,,{t},,", num(*s))?;
    }
    for i in &r.imbalance {
        writeln!(
            out,
            "imbalance_mean,,{},{},,{},,,,",
            quote(&i.category),
            num(i.mean),
            i.visitors
        )?;
        for (label, v) in [
            ("imbalance_max", i.max),
            ("imbalance_overload", i.overload),
            ("imbalance_single_participant", i.single_participant),
            ("imbalance_underload", i.underload),
            ("imbalance_non_participation", i.non_participation),
        ] {
            writeln!(out, "{label},,{},{},,,,,,", quote(&i.category), num(v))?;
        }
    }
    Ok(())
}

/// The analysis of any input `analyze` reads ([`mpelog::Trace::analyze`]):
/// each run of `analyze A --compare B`.
pub fn of(path: &Path, trace: Option<&Path>, opts: &Options) -> CliResult<Report> {
    let mut t = super::open_trace(path, trace)?;
    t.analyze(opts).map_err(super::failed(t.format()))
}
