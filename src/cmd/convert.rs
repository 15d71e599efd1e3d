//! `mpelog convert`: format conversion, and lossless rewriting through the codecs.
//!
//! Every conversion prints one summary on stderr: what was read (format, bytes,
//! records), what was written (format, bytes) and, to SLOG-2, the tree and the
//! events that could not be paired.

use crate::detect::Format;
use crate::error::{CliError, CliResult};
use crate::input::shown;
use crate::output::{OutWriter, Output};
use crate::progress::bytes_bar;
use clog2_format::{BlockWriter, Clog2Reader};
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// Tree options for conversions that write SLOG-2.
#[derive(Debug, Clone)]
pub struct TreeOptions {
    /// Leaf byte size limit.
    pub leaf_bytes: u32,
    /// Children per node.
    pub children: u16,
    /// Node storage: none, stored, deflate or deflate:LEVEL.
    pub compress: String,
    /// SLOG-2 to SLOG-2: build a new tree with these options (`--leaf-bytes`
    /// or `--children` given) instead of keeping the input's.
    pub retree: bool,
}

impl Default for TreeOptions {
    /// clog2TOslog2's defaults: 64 KiB leaves, 2 children, plain nodes.
    fn default() -> TreeOptions {
        TreeOptions {
            leaf_bytes: 64 * 1024,
            children: 2,
            compress: "none".into(),
            retree: false,
        }
    }
}

/// Converts any trace `convert` reads into `DIR/converted.slog2` with the
/// default tree (for commands that read SLOG-2: stats, export, render, serve)
/// and returns that path.
pub fn to_temp_slog2(input: &Path, dir: &Path, name: &str) -> CliResult<std::path::PathBuf> {
    let out = dir.join(name);
    run(input, &out, Some("slog2"), TreeOptions::default())?;
    Ok(out)
}

/// Runs `mpelog convert`.
pub fn run(input: &Path, output: &Path, format: Option<&str>, tree: TreeOptions) -> CliResult {
    let target = match format {
        Some(name) => crate::detect::named(name).ok_or_else(|| {
            CliError::Usage(format!(
                "--format {name}: unknown output format (known: clog2, clog, slog2, alog, slog)"
            ))
        })?,
        None => {
            let ext = output.extension().and_then(|e| e.to_str()).unwrap_or("");
            crate::detect::named(ext).ok_or_else(|| {
                CliError::Usage(format!(
                    "cannot tell the output format from {:?}: give --format clog2, clog, slog2, alog or slog, or use that extension",
                    shown(output)
                ))
            })?
        }
    };
    // Options are checked before anything is read or written.
    let opts = tree_options(&tree)?;
    let out = Output::create(output, &[input], false)?;
    let (input, source) = mpelog::trace::locate(input)?;
    if source == Format::Otf2 {
        return super::otf2::convert(&input, out, target, opts);
    }
    let input = &input;
    let started = Instant::now();
    let done = match (source, target) {
        (Format::Clog2, Format::Clog2) => rewrite_clog2(input, &out)?,
        (Format::Clog, Format::Clog) => rewrite_clog(input, &out)?,
        (Format::Slog2 | Format::Slog2Compressed, Format::Slog2) if tree.retree => retree_slog2(input, &out, opts)?,
        (Format::Slog2 | Format::Slog2Compressed, Format::Slog2) => rewrite_slog2(input, &out, opts, &tree.compress)?,
        (Format::Clog2, Format::Slog2) => clog2_to_slog2(input, &out, opts)?,
        (Format::Alog, Format::Slog2) => alog_to_slog2(input, &out, opts)?,
        (Format::Slog1, Format::Slog2) => slog1_to_slog2(input, &out, opts)?,
        (Format::Slog1, Format::Slog1) => rewrite_slog1(input, &out)?,
        (Format::Alog, Format::Alog) => rewrite_alog(input, &out)?,
        (Format::Clog, Format::Slog2) => clog_to_slog2(input, &out, opts)?,
        (s, t) => {
            return Err(CliError::Usage(format!(
                "converting {} to {} is not supported (to SLOG-2 from every format; each format to itself)",
                s.name(),
                t.name()
            )))
        }
    };
    let output_bytes = done.output_bytes;
    let shown_out = crate::output::name(&out);
    out.commit()?;
    let secs = started.elapsed().as_secs_f64();
    eprintln!(
        "{} {} ({}, {} bytes{}) to {} ({}, {} bytes) in {:.2} s, {:.1} MB/s",
        done.verb,
        shown(input),
        source.name(),
        done.input_bytes,
        done.records
            .map(|r| format!(", {r} records"))
            .unwrap_or_default(),
        shown_out,
        done.output_format,
        output_bytes,
        secs,
        done.input_bytes as f64 / 1e6 / secs.max(1e-9)
    );
    for line in &done.details {
        eprintln!("{line}");
    }
    Ok(())
}

/// What a conversion did, for its summary.
struct Done {
    verb: &'static str,
    input_bytes: u64,
    records: Option<u64>,
    output_format: &'static str,
    output_bytes: u64,
    details: Vec<String>,
}

/// Flushes `w` and returns how many bytes it holds.
pub(super) fn finish_writer(mut w: OutWriter, out: &Output) -> CliResult<u64> {
    w.flush().map_err(CliError::io(out.path()))?;
    let n = w
        .get_ref()
        .metadata()
        .map_err(CliError::io(out.path()))?
        .len();
    Ok(n)
}

/// Writes a whole in-memory result.
fn write_all(out: &Output, bytes: &[u8]) -> CliResult<u64> {
    let mut w = out.writer()?;
    w.write_all(bytes).map_err(CliError::io(out.path()))?;
    finish_writer(w, out)
}

/// Streams a CLOG2 file block by block through the parser and the block writer.
fn rewrite_clog2(input: &Path, out: &Output) -> CliResult<Done> {
    let (file, len) = super::open(input)?;
    let bar = bytes_bar(len, "converting");
    let mut r = Clog2Reader::new(bar.wrap_read(file)).map_err(CliError::clog2(input))?;
    let mut w =
        BlockWriter::new(out.writer()?, r.preamble()).map_err(CliError::input(out.path()))?;
    let mut records = 0u64;
    while let Some(block) = r.next_block().map_err(CliError::clog2(input))? {
        records += block.records.len() as u64;
        w.write_block(&block).map_err(CliError::input(out.path()))?;
    }
    let table = r.finish().map_err(CliError::clog2(input))?;
    let w = w
        .finish(table.as_ref())
        .map_err(CliError::input(out.path()))?;
    bar.finish_and_clear();
    let output_bytes = finish_writer(w, out)?;
    Ok(Done {
        verb: "rewrote",
        input_bytes: len,
        records: Some(records),
        output_format: "CLOG2",
        output_bytes,
        details: vec![identical_or_not(len, output_bytes)],
    })
}

fn identical_or_not(input: u64, output: u64) -> String {
    if input == output {
        "every record parsed and written back (same size as the input)".into()
    } else {
        format!("every record parsed and written back in the canonical layout ({input} -> {output} bytes)")
    }
}

fn rewrite_clog(input: &Path, out: &Output) -> CliResult<Done> {
    let data = std::fs::read(input).map_err(CliError::io(input))?;
    let f = clog2_format::clog::ClogFile::parse(&data).map_err(CliError::input(input))?;
    let bytes = f.to_bytes().map_err(CliError::input(out.path()))?;
    let records = f.blocks.iter().map(|b| b.records.len() as u64).sum();
    let output_bytes = write_all(out, &bytes)?;
    Ok(Done {
        verb: "rewrote",
        input_bytes: data.len() as u64,
        records: Some(records),
        output_format: "CLOG",
        output_bytes,
        details: vec![identical_or_not(data.len() as u64, output_bytes)],
    })
}

/// SLOG-2 to SLOG-2: a 2.0.5 file is updated to 2.0.6 (weight counts and category
/// summaries computed, pointers laid out again); a plain 2.0.6 file is rewritten
/// through the codec, byte for byte; with --compress, or from a compressed file,
/// the nodes are stored anew (`write::reframe`).
fn rewrite_slog2(
    input: &Path,
    out: &Output,
    opts: slog2_format::write::TreeOptions,
    compress_name: &str,
) -> CliResult<Done> {
    use slog2_format::write::update;
    use slog2_format::{Slog2File, Version};
    let compression = opts.compression;
    let (file, len) = super::open(input)?;
    let version = slog2_format::Slog2Reader::new(std::io::BufReader::new(&file))
        .map_err(CliError::slog2(input))?
        .version();
    if compression.is_framed() || version.is_compressed() {
        let bar = bytes_bar(len, "rewriting");
        let (w, stats) = slog2_format::write::reframe(
            std::io::BufReader::new(file),
            out.writer()?,
            compression,
            |_| {},
        )
        .map_err(CliError::slog2(input))?;
        bar.finish_and_clear();
        let output_bytes = finish_writer(w, out)?;
        return Ok(Done {
            verb: "rewrote",
            input_bytes: len,
            records: None,
            output_format: if compression.is_framed() {
                "SLOG 2.0.6Z"
            } else {
                "SLOG 2.0.6"
            },
            output_bytes,
            details: vec![format!(
                "{} tree nodes stored as {compress_name} ({:.1}% of the input size)",
                stats.nodes,
                100.0 * stats.output_bytes as f64 / stats.input_bytes.max(1) as f64,
            )],
        });
    }
    // Every node checked as it is read: a damaged plain file is refused with the
    // offset of the damage, never copied on.
    let mut f = Slog2File::read_with(
        std::io::BufReader::new(file),
        slog2_format::Validation::Strict,
    )
    .map_err(CliError::slog2(input))?;
    let mut details = Vec::new();
    if f.version == Version::V205 {
        update::update_205_to_206(&mut f).map_err(CliError::slog2(out.path()))?;
        details.push("updated from SLOG 2.0.5 to 2.0.6 (what slog2updater does)".to_string());
    }
    let bytes = f.to_bytes().map_err(CliError::slog2(out.path()))?;
    let output_bytes = write_all(out, &bytes)?;
    if details.is_empty() {
        details.push(identical_or_not(len, output_bytes));
    }
    Ok(Done {
        verb: "rewrote",
        input_bytes: len,
        records: None,
        output_format: "SLOG 2.0.6",
        output_bytes,
        details,
    })
}

/// SLOG-2 to SLOG-2 with new tree options: every drawable into a new tree
/// (`mpelog::filter` with nothing removed).
fn retree_slog2(
    input: &Path,
    out: &Output,
    opts: slog2_format::write::TreeOptions,
) -> CliResult<Done> {
    let (file, len) = super::open(input)?;
    let mut r = slog2_format::Slog2Reader::new(std::io::BufReader::new(file))
        .map_err(CliError::slog2(input))?;
    let (w, stats) = mpelog::filter::filter(
        &mut r,
        out.writer()?,
        &mpelog::filter::Options::default().tree(opts),
    )
    .map_err(|e| match e {
        mpelog::filter::Error::Slog2(e) => CliError::slog2(input)(e),
        source => CliError::Filter {
            path: input.to_path_buf(),
            source,
        },
    })?;
    let output_bytes = finish_writer(w, out)?;
    Ok(Done {
        verb: "re-treed",
        input_bytes: len,
        records: None,
        output_format: slog2_name(&opts),
        output_bytes,
        details: vec![tree_line(&stats.tree)],
    })
}

/// CLOG2 to SLOG-2 in one pass (what clog2TOslog2 does).
fn clog2_to_slog2(
    input: &Path,
    out: &Output,
    opts: slog2_format::write::TreeOptions,
) -> CliResult<Done> {
    let (file, len) = super::open(input)?;
    let mut r = Clog2Reader::new(file).map_err(CliError::clog2(input))?;
    to_slog2(
        input,
        out,
        len,
        "clog2TOslog2",
        opts,
        true,
        |w, progress| slog2_format::convert::clog2_to_slog2(&mut r, w, opts, progress),
    )
}

/// Old CLOG (MPE1) to SLOG-2 (what clogTOslog2 does).
fn clog_to_slog2(
    input: &Path,
    out: &Output,
    opts: slog2_format::write::TreeOptions,
) -> CliResult<Done> {
    let data = std::fs::read(input).map_err(CliError::io(input))?;
    to_slog2(
        input,
        out,
        data.len() as u64,
        "clogTOslog2",
        opts,
        false,
        |w, progress| {
            let records = clog2_format::clog::ClogRecords::new(&data)?;
            slog2_format::convert::clog_to_slog2(records, w, opts, progress)
        },
    )
}

/// The library's tree options, checked (bad ones are a usage error).
pub fn tree_options(tree: &TreeOptions) -> CliResult<slog2_format::write::TreeOptions> {
    let compression =
        slog2_format::frame::Compression::parse(&tree.compress).map_err(CliError::Usage)?;
    let opts = slog2_format::write::TreeOptions::default()
        .leaf_bytes(tree.leaf_bytes)
        .children(tree.children)
        .compression(compression);
    if opts.validate().is_err() {
        return Err(CliError::Usage(format!(
            "--leaf-bytes {} --children {}: leaves take 64 to 2147483647 bytes, nodes 2 to 32767 children",
            tree.leaf_bytes, tree.children
        )));
    }
    Ok(opts)
}

/// The format name of a SLOG-2 output written with these options.
fn slog2_name(opts: &slog2_format::write::TreeOptions) -> &'static str {
    if opts.compression.is_framed() {
        "SLOG 2.0.6Z"
    } else {
        "SLOG 2.0.6"
    }
}

/// Runs a CLOG2 or old-CLOG conversion to SLOG-2 with a progress bar.
fn to_slog2(
    input: &Path,
    out: &Output,
    len: u64,
    java: &str,
    opts: slog2_format::write::TreeOptions,
    clog2: bool,
    convert: impl FnOnce(
        OutWriter,
        &mut dyn FnMut(u64),
    ) -> slog2_format::Result<(OutWriter, slog2_format::convert::ConvertStats)>,
) -> CliResult<Done> {
    let bar = bytes_bar(len, "converting");
    let (w, stats) =
        convert(out.writer()?, &mut |at| bar.set_position(at)).map_err(|e| match e {
            slog2_format::Error::Clog2(e) if clog2 => CliError::clog2(input)(*e),
            slog2_format::Error::Clog2(e) => CliError::input(input)(*e),
            e => CliError::slog2(out.path())(e),
        })?;
    bar.finish_and_clear();
    let output_bytes = finish_writer(w, out)?;
    let t = &stats.tree;
    Ok(Done {
        verb: "converted",
        input_bytes: len,
        records: Some(stats.records),
        output_format: slog2_name(&opts),
        output_bytes,
        details: vec![tree_line(t), unmatched_line(&stats.unmatched, java)],
    })
}

fn tree_line(t: &slog2_format::write::TreeStats) -> String {
    format!(
        "drawables {}; tree: {} nodes, depth {}, largest block {} bytes",
        t.drawables, t.nodes, t.depth, t.max_block
    )
}

/// The unmatched-event line: what was dropped, and how it relates to the number
/// MPE's Java converter prints.
pub fn unmatched_line(u: &slog2_format::convert::Unmatched, java: &str) -> String {
    let mut s = if u.total_dropped() == 0 {
        "unmatched events: none dropped".to_string()
    } else {
        format!(
            "unmatched events: {} dropped (state starts never ended {}, state ends without a start {}, sends without a receive {}, receives without a send {}, undeclared event IDs {})",
            u.total_dropped(),
            u.state_starts,
            u.state_finals,
            u.sends,
            u.recvs,
            u.undeclared_events
        )
    };
    if u.java_count != u.total_dropped() {
        s.push_str(&format!(
            "; {java} reports {} (it counts only the starts, sends and receives of defined categories)",
            u.java_count
        ));
    }
    note(
        &mut s,
        u.conflicting_definitions,
        "conflicting definitions ignored",
    );
    note(
        &mut s,
        u.undeclared_timelines,
        "timelines no COMMEVT declared (kept)",
    );
    s
}

/// Appends `; N what` to a summary line when `n` is not 0.
fn note(line: &mut String, n: u64, what: &str) {
    if n > 0 {
        line.push_str(&format!("; {n} {what}"));
    }
}

/// ALOG to SLOG-2 through the one-pass tree writer (spec/conversion.md §6).
fn alog_to_slog2(
    input: &Path,
    out: &Output,
    opts: slog2_format::write::TreeOptions,
) -> CliResult<Done> {
    let (f, len) = super::alog::read(input)?;
    let (w, stats) = slog2_format::convert::alog_to_slog2(&f, out.writer()?, opts, |_| {})
        .map_err(CliError::slog2(input))?;
    let u = stats.unmatched;
    let output_bytes = finish_writer(w, out)?;
    let mut unmatched = if u.total_dropped() == 0 {
        "unmatched events: none dropped".to_string()
    } else {
        format!(
            "unmatched events: {} dropped (state ends without a start {}, sends without a receive {}, receives without a send {}, events at a time that is not a number {})",
            u.total_dropped(),
            u.state_finals,
            u.sends,
            u.recvs,
            u.bad_times
        )
    };
    note(
        &mut unmatched,
        u.states_closed_at_end,
        "states still open at the end closed there (as upshot draws them)",
    );
    note(
        &mut unmatched,
        u.conflicting_definitions,
        "state definitions ignored",
    );
    Ok(Done {
        verb: "converted",
        input_bytes: len,
        records: Some(f.records.len() as u64),
        output_format: slog2_name(&opts),
        output_bytes,
        details: vec![tree_line(&stats.tree), unmatched],
    })
}

/// ALOG to ALOG: the canonical form (byte-identical for canonical inputs).
fn rewrite_alog(input: &Path, out: &Output) -> CliResult<Done> {
    let (f, len) = super::alog::read(input)?;
    let bytes = f.to_bytes().map_err(|source| CliError::BadAlog {
        path: out.path().to_path_buf(),
        source,
    })?;
    let output_bytes = write_all(out, &bytes)?;
    Ok(Done {
        verb: "rewrote",
        input_bytes: len,
        records: Some(f.records.len() as u64),
        output_format: "ALOG",
        output_bytes,
        details: vec![identical_or_not(len, output_bytes)],
    })
}

/// SLOG-1 to SLOG-2: each interval once, as a state or arrow (spec/slog1.md).
fn slog1_to_slog2(
    input: &Path,
    out: &Output,
    opts: slog2_format::write::TreeOptions,
) -> CliResult<Done> {
    let (f, len) = super::slog1::read(input)?;
    let mut details = Vec::new();
    for w in f.warnings() {
        details.push(format!(
            "{}: warning {} at byte {}: {}",
            shown(input),
            mpelog_conformance::check::slog1::rule(w.problem).id,
            w.offset,
            w.what
        ));
    }
    let (w, stats) = slog2_format::convert::slog1::slog1_to_slog2(&f, out.writer()?, opts, |_| {})
        .map_err(CliError::slog2(input))?;
    let output_bytes = finish_writer(w, out)?;
    details.insert(0, tree_line(&stats.tree));
    let records = slog2_format::slog1::dump::summary(&f).records;
    Ok(Done {
        verb: "converted",
        input_bytes: len,
        records: Some(records),
        output_format: slog2_name(&opts),
        output_bytes,
        details,
    })
}

/// SLOG-1 to SLOG-1: rewritten through the model (byte-identical).
fn rewrite_slog1(input: &Path, out: &Output) -> CliResult<Done> {
    let (f, len) = super::slog1::read(input)?;
    let bytes = f.to_bytes().map_err(CliError::slog1(out.path()))?;
    let output_bytes = write_all(out, &bytes)?;
    let records = slog2_format::slog1::dump::summary(&f).records;
    Ok(Done {
        verb: "rewrote",
        input_bytes: len,
        records: Some(records),
        output_format: "SLOG-1",
        output_bytes,
        details: vec![identical_or_not(len, output_bytes)],
    })
}
