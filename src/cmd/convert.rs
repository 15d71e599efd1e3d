//! `mpelog convert`: format conversion, and lossless rewriting through the codecs.

use crate::detect::{detect, Format};
use crate::error::{CliError, CliResult};
use crate::output::{buffered, bytes_bar, commit, temp_beside};
use clog2_format::{BlockWriter, Clog2Reader};
use std::io::Write;
use std::path::Path;

/// Tree options for conversions that write SLOG-2.
#[derive(Debug, Clone)]
pub struct TreeOptions {
    /// Leaf byte size limit.
    pub leaf_bytes: u32,
    /// Children per node.
    pub children: u16,
    /// Node storage: none, stored, deflate or deflate:LEVEL.
    pub compress: String,
}

/// Runs `mpelog convert`.
pub fn run(input: &Path, output: &Path, to: Option<&str>, tree: TreeOptions) -> CliResult {
    let target = match to {
        Some(name) => Format::from_name(name).ok_or_else(|| {
            CliError::Usage(format!(
                "--to {name}: unknown format (known: clog2, clog, slog2)"
            ))
        })?,
        None => {
            let ext = output.extension().and_then(|e| e.to_str()).unwrap_or("");
            Format::from_name(ext).ok_or_else(|| {
                CliError::Usage(format!(
                    "cannot tell the output format from {:?}: give --to clog2, clog or slog2, or use a .clog2, .clog or .slog2 extension",
                    output.display().to_string()
                ))
            })?
        }
    };
    let source = detect(input)?;
    match (source, target) {
        (Format::Clog2, Format::Clog2) => rewrite_clog2(input, output),
        (Format::Clog, Format::Clog) => rewrite_clog(input, output),
        (Format::Slog2, Format::Slog2) => rewrite_slog2(input, output, tree),
        (Format::Clog2, Format::Slog2) => clog2_to_slog2(input, output, tree),
        (Format::Alog, Format::Slog2) => alog_to_slog2(input, output, tree),
        (Format::Slog1, Format::Slog2) => slog1_to_slog2(input, output, tree),
        (Format::Slog1, Format::Slog1) => rewrite_slog1(input, output),
        (Format::Alog, Format::Alog) => rewrite_alog(input, output),
        (Format::Clog, Format::Slog2) => clog_to_slog2(input, output, tree),
        (s, t) => Err(CliError::Usage(format!(
            "converting {} to {} is not supported yet",
            s.name(),
            t.name()
        ))),
    }
}

/// Streams a CLOG2 file block by block through the parser and the block writer.
fn rewrite_clog2(input: &Path, output: &Path) -> CliResult {
    let (file, len) = super::open(input)?;
    let bar = bytes_bar(len, "converting");
    let mut r = Clog2Reader::new(bar.wrap_read(file)).map_err(CliError::input(input))?;
    let tmp = temp_beside(output)?;
    let out = buffered(&tmp, output)?;
    let mut w = BlockWriter::new(out, r.preamble()).map_err(CliError::input(output))?;
    while let Some(block) = r.next_block().map_err(CliError::input(input))? {
        w.write_block(&block).map_err(CliError::input(output))?;
    }
    let table = r.finish().map_err(CliError::input(input))?;
    let mut out = w.finish(table.as_ref()).map_err(CliError::input(output))?;
    out.flush().map_err(CliError::io(output))?;
    drop(out);
    bar.finish_and_clear();
    commit(tmp, output)
}

fn rewrite_clog(input: &Path, output: &Path) -> CliResult {
    let data = std::fs::read(input).map_err(CliError::io(input))?;
    let f = clog2_format::clog1::ClogFile::parse(&data).map_err(CliError::input(input))?;
    let tmp = temp_beside(output)?;
    let mut out = buffered(&tmp, output)?;
    let bytes = f.to_bytes().map_err(CliError::input(output))?;
    out.write_all(&bytes).map_err(CliError::io(output))?;
    out.flush().map_err(CliError::io(output))?;
    drop(out);
    commit(tmp, output)
}

/// SLOG-2 to SLOG-2: a 2.0.5 file is updated to 2.0.6 (weight counts and category
/// summaries computed, pointers laid out again); a plain 2.0.6 file is rewritten
/// through the codec, byte for byte; with --compress, or from a compressed file,
/// the nodes are stored anew (`build::reframe`).
fn rewrite_slog2(input: &Path, output: &Path, tree: TreeOptions) -> CliResult {
    use slog2_format::{update, Slog2File, Version};
    let compression = tree_options(&tree)?.compression;
    let (file, len) = super::open(input)?;
    let version = slog2_format::Slog2Reader::open(std::io::BufReader::new(&file))
        .map_err(CliError::slog2(input))?
        .version();
    if compression.is_framed() || version.is_compressed() {
        let bar = bytes_bar(len, "rewriting");
        let tmp = temp_beside(output)?;
        let out = buffered(&tmp, output)?;
        let (mut out, stats) =
            slog2_format::build::reframe(std::io::BufReader::new(file), out, compression, |_| {})
                .map_err(CliError::slog2(input))?;
        out.flush().map_err(CliError::io(output))?;
        drop(out);
        bar.finish_and_clear();
        commit(tmp, output)?;
        eprintln!(
            "rewrote {} ({} bytes) to {} ({} bytes, {:.1}%): {} nodes stored as {}",
            input.display(),
            stats.input_bytes,
            output.display(),
            stats.output_bytes,
            100.0 * stats.output_bytes as f64 / stats.input_bytes.max(1) as f64,
            stats.nodes,
            tree.compress
        );
        return Ok(());
    }
    let mut f = Slog2File::read(std::io::BufReader::new(file)).map_err(CliError::slog2(input))?;
    if f.version == Version::V205 {
        update::update_205_to_206(&mut f).map_err(CliError::slog2(output))?;
        eprintln!("updated {} from SLOG 2.0.5 to 2.0.6", input.display());
    }
    let bytes = f.to_bytes().map_err(CliError::slog2(output))?;
    let tmp = temp_beside(output)?;
    let mut out = buffered(&tmp, output)?;
    out.write_all(&bytes).map_err(CliError::io(output))?;
    out.flush().map_err(CliError::io(output))?;
    drop(out);
    commit(tmp, output)
}

/// CLOG2 to SLOG-2 in one pass (what clog2TOslog2 does), with a summary on stderr.
fn clog2_to_slog2(input: &Path, output: &Path, tree: TreeOptions) -> CliResult {
    let opts = tree_options(&tree)?;
    let (file, len) = super::open(input)?;
    let mut r = Clog2Reader::new(file).map_err(CliError::input(input))?;
    to_slog2(
        input,
        output,
        len,
        "CLOG2",
        "clog2TOslog2",
        |out, progress| slog2_format::build::clog2_to_slog2(&mut r, out, opts, progress),
    )
}

/// Old CLOG (MPE1) to SLOG-2 (what clogTOslog2 does), with a summary on stderr.
fn clog_to_slog2(input: &Path, output: &Path, tree: TreeOptions) -> CliResult {
    let opts = tree_options(&tree)?;
    let data = std::fs::read(input).map_err(CliError::io(input))?;
    to_slog2(
        input,
        output,
        data.len() as u64,
        "CLOG",
        "clogTOslog2",
        |out, progress| slog2_format::build::clog_to_slog2(&data, out, opts, progress),
    )
}

/// The library's tree options, checked (bad ones are a usage error).
fn tree_options(tree: &TreeOptions) -> CliResult<slog2_format::build::TreeOptions> {
    let compression =
        slog2_format::frame::Compression::parse(&tree.compress).map_err(CliError::Usage)?;
    let opts = slog2_format::build::TreeOptions {
        leaf_bytes: tree.leaf_bytes,
        children: tree.children,
        compression,
    };
    opts.validate()
        .map_err(|e| CliError::Usage(e.to_string().replace("cannot write: ", "")))?;
    Ok(opts)
}

type Out = std::io::BufWriter<std::fs::File>;

/// Runs a conversion to SLOG-2 into a temporary file beside `output` with a
/// progress bar, renames it, and prints the summary.
fn to_slog2(
    input: &Path,
    output: &Path,
    len: u64,
    from: &str,
    java: &str,
    convert: impl FnOnce(
        Out,
        &mut dyn FnMut(u64),
    ) -> slog2_format::Result<(Out, slog2_format::build::ConvertStats)>,
) -> CliResult {
    let started = std::time::Instant::now();
    let bar = bytes_bar(len, "converting");
    let tmp = temp_beside(output)?;
    let out = buffered(&tmp, output)?;
    let (mut out, stats) = convert(out, &mut |at| bar.set_position(at)).map_err(|e| match e {
        slog2_format::Error::Clog2(e) => CliError::input(input)(*e),
        e => CliError::slog2(output)(e),
    })?;
    out.flush().map_err(CliError::io(output))?;
    drop(out);
    bar.finish_and_clear();
    commit(tmp, output)?;
    let secs = started.elapsed().as_secs_f64();
    let u = &stats.unmatched;
    let t = &stats.tree;
    eprintln!(
        "converted {} to {}: {} bytes of {from} ({} records) in {:.2} s, {:.1} MB/s",
        input.display(),
        output.display(),
        stats.input_bytes,
        stats.records,
        secs,
        stats.input_bytes as f64 / 1e6 / secs.max(1e-9)
    );
    eprintln!(
        "drawables {}; tree: {} nodes, depth {}; {} bytes written, largest block {}",
        t.drawables, t.nodes, t.depth, t.bytes, t.max_block
    );
    eprintln!(
        "unmatched events {} ({java} would print {}): state starts {}, state ends {}, sends {}, receives {}, undeclared event IDs {}; conflicting definitions {}, undeclared timelines {}",
        u.total_dropped(),
        u.java_count,
        u.state_starts,
        u.state_finals,
        u.sends,
        u.recvs,
        u.undeclared_events,
        u.conflicting_definitions,
        u.undeclared_timelines
    );
    Ok(())
}

/// ALOG to SLOG-2 through the one-pass tree writer (spec/alog.md §8).
fn alog_to_slog2(input: &Path, output: &Path, tree: TreeOptions) -> CliResult {
    let opts = tree_options(&tree)?;
    let f = super::alog::read(input)?;
    let tmp = temp_beside(output)?;
    let out = buffered(&tmp, output)?;
    let (mut out, stats, unmatched) =
        alog_format::alog_to_slog2(&f, out, opts).map_err(|source| CliError::BadAlog {
            path: input.to_path_buf(),
            source,
        })?;
    out.flush().map_err(CliError::io(output))?;
    drop(out);
    commit(tmp, output)?;
    eprintln!(
        "converted {} ({} records) to {}: drawables {}; tree: {} nodes, depth {}; {} bytes written; unmatched {:?}",
        input.display(),
        f.records.len(),
        output.display(),
        stats.drawables,
        stats.nodes,
        stats.depth,
        stats.bytes,
        unmatched
    );
    Ok(())
}

/// ALOG to ALOG: the canonical form (byte-identical for canonical inputs).
fn rewrite_alog(input: &Path, output: &Path) -> CliResult {
    let f = super::alog::read(input)?;
    let tmp = temp_beside(output)?;
    let mut out = buffered(&tmp, output)?;
    out.write_all(&f.to_bytes()).map_err(CliError::io(output))?;
    out.flush().map_err(CliError::io(output))?;
    drop(out);
    commit(tmp, output)
}

/// SLOG-1 to SLOG-2: each interval once, as a state or arrow (spec/slog1.md).
fn slog1_to_slog2(input: &Path, output: &Path, tree: TreeOptions) -> CliResult {
    let opts = tree_options(&tree)?;
    let (f, _) = super::slog1::read(input)?;
    for w in f.warnings() {
        eprintln!(
            "{}: warning {} at byte {}: {}",
            input.display(),
            w.rule,
            w.offset,
            w.what
        );
    }
    let tmp = temp_beside(output)?;
    let out = buffered(&tmp, output)?;
    let (mut out, stats) = slog2_format::slog1::convert::slog1_to_slog2(&f, out, opts)
        .map_err(CliError::slog2(input))?;
    out.flush().map_err(CliError::io(output))?;
    drop(out);
    commit(tmp, output)?;
    eprintln!(
        "converted {} to {}: drawables {}; tree: {} nodes, depth {}; {} bytes written",
        input.display(),
        output.display(),
        stats.drawables,
        stats.nodes,
        stats.depth,
        stats.bytes
    );
    Ok(())
}

/// SLOG-1 to SLOG-1: rewritten through the model (byte-identical).
fn rewrite_slog1(input: &Path, output: &Path) -> CliResult {
    let (f, _) = super::slog1::read(input)?;
    let bytes = f.to_bytes().map_err(CliError::slog2(output))?;
    let tmp = temp_beside(output)?;
    let mut out = buffered(&tmp, output)?;
    out.write_all(&bytes).map_err(CliError::io(output))?;
    out.flush().map_err(CliError::io(output))?;
    drop(out);
    commit(tmp, output)
}
