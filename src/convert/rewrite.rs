//! Each format to itself: CLOG2 block by block, old CLOG, ALOG and SLOG-1
//! through their models, SLOG-2 through the codec (updated from 2.0.5, its
//! nodes stored anew, or every drawable put into a new tree).

use super::{done, finish, identical_or_not, size, slog2_name, write_all, writer, Summary};
use crate::output::Output;
use crate::trace::stop::open as stoppable;
use crate::trace::{Error, Result, Step};
use clog2_format::{BlockWriter, Clog2Reader};
use slog2_format::write::TreeOptions;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// CLOG2 streamed block by block through the parser and the block writer,
/// reading no further once `stop` is set.
pub(super) fn clog2(
    input: &Path,
    out: &Output,
    stop: &Arc<AtomicBool>,
    progress: &mut dyn FnMut(Step),
) -> Result<Summary> {
    let len = size(input)?;
    let file = stoppable(input, stop)?;
    let mut told = |at| progress(Step::Read { at, total: len });
    let counted = crate::input::Counted::new(file, &mut told);
    let bad_input = |source| Error::Clog2 {
        path: input.to_path_buf(),
        source,
    };
    let bad_output = |source| Error::Clog2 {
        path: out.path().to_path_buf(),
        source,
    };
    let mut r = Clog2Reader::new(counted).map_err(bad_input)?;
    let mut w = BlockWriter::new(writer(out)?, r.preamble()).map_err(bad_output)?;
    let mut records = 0u64;
    while let Some(block) = r.next_block().map_err(bad_input)? {
        records += block.records.len() as u64;
        w.write_block(&block).map_err(bad_output)?;
    }
    let table = r.finish().map_err(bad_input)?;
    let w = w.finish(table.as_ref()).map_err(bad_output)?;
    let output_bytes = finish(w, out)?;
    Ok(done(
        "rewrote",
        len,
        Some(records),
        "CLOG2",
        output_bytes,
        vec![identical_or_not(len, output_bytes)],
    ))
}

/// Old CLOG through its model.
pub(super) fn clog(input: &Path, out: &Output) -> Result<Summary> {
    let data = std::fs::read(input).map_err(Error::io(input))?;
    let f = clog2_format::clog::ClogFile::parse(&data).map_err(|source| Error::Clog2 {
        path: input.to_path_buf(),
        source,
    })?;
    let bytes = f.to_bytes().map_err(|source| Error::Clog2 {
        path: out.path().to_path_buf(),
        source,
    })?;
    let records = f.blocks.iter().map(|b| b.records.len() as u64).sum();
    let output_bytes = write_all(out, &bytes)?;
    let len = data.len() as u64;
    Ok(done(
        "rewrote",
        len,
        Some(records),
        "CLOG",
        output_bytes,
        vec![identical_or_not(len, output_bytes)],
    ))
}

/// ALOG to ALOG: the canonical form (byte-identical for canonical inputs).
pub(super) fn alog(input: &Path, out: &Output) -> Result<Summary> {
    let len = size(input)?;
    let f = crate::trace::read::alog(input)?;
    let bytes = f.to_bytes().map_err(|source| Error::Alog {
        path: out.path().to_path_buf(),
        source,
    })?;
    let output_bytes = write_all(out, &bytes)?;
    Ok(done(
        "rewrote",
        len,
        Some(f.records.len() as u64),
        "ALOG",
        output_bytes,
        vec![identical_or_not(len, output_bytes)],
    ))
}

/// SLOG-1 to SLOG-1: rewritten through the model (byte-identical).
pub(super) fn slog1(input: &Path, out: &Output) -> Result<Summary> {
    let len = size(input)?;
    let f = crate::trace::read::slog1(input)?;
    let bytes = f.to_bytes().map_err(|source| Error::Slog1 {
        path: out.path().to_path_buf(),
        source,
    })?;
    let output_bytes = write_all(out, &bytes)?;
    let records = slog2_format::slog1::dump::summary(&f).records;
    Ok(done(
        "rewrote",
        len,
        Some(records),
        "SLOG-1",
        output_bytes,
        vec![identical_or_not(len, output_bytes)],
    ))
}

/// SLOG-2 to SLOG-2: a 2.0.5 file is updated to 2.0.6 (weight counts and
/// category summaries computed, pointers laid out again); a plain 2.0.6 file
/// is rewritten through the codec, byte for byte; with a compression, or from
/// a compressed file, the nodes are stored anew (`write::reframe`). Reads no
/// further once `stop` is set.
pub(super) fn slog2(
    input: &Path,
    out: &Output,
    opts: TreeOptions,
    stop: &Arc<AtomicBool>,
    progress: &mut dyn FnMut(Step),
) -> Result<Summary> {
    use slog2_format::write::update;
    use slog2_format::{Slog2File, Version};
    let bad_input = |source| Error::Slog2 {
        path: input.to_path_buf(),
        source,
    };
    let bad_output = |source| Error::Slog2 {
        path: out.path().to_path_buf(),
        source,
    };
    let compression = opts.compression;
    let len = size(input)?;
    let version = slog2_format::Slog2Reader::new(std::io::BufReader::new(stoppable(input, stop)?))
        .map_err(bad_input)?
        .version();
    let file = stoppable(input, stop)?;
    if compression.is_framed() || version.is_compressed() {
        let (w, stats) = slog2_format::write::reframe(
            std::io::BufReader::new(file),
            writer(out)?,
            compression,
            |at| progress(Step::Read { at, total: len }),
        )
        .map_err(bad_input)?;
        let output_bytes = finish(w, out)?;
        return Ok(done(
            "rewrote",
            len,
            None,
            slog2_name(&opts),
            output_bytes,
            vec![format!(
                "{} tree nodes stored as {compression} ({:.1}% of the input size)",
                stats.nodes,
                100.0 * stats.output_bytes as f64 / stats.input_bytes.max(1) as f64,
            )],
        ));
    }
    // Every node checked as it is read: a damaged plain file is refused with
    // the offset of the damage, never copied on.
    let mut f = Slog2File::read_with(
        std::io::BufReader::new(file),
        slog2_format::Validation::Strict,
    )
    .map_err(bad_input)?;
    let mut details = Vec::new();
    if f.version == Version::V205 {
        update::update_205_to_206(&mut f).map_err(bad_output)?;
        details.push("updated from SLOG 2.0.5 to 2.0.6 (what slog2updater does)".to_string());
    }
    let bytes = f.to_bytes().map_err(bad_output)?;
    let output_bytes = write_all(out, &bytes)?;
    if details.is_empty() {
        details.push(identical_or_not(len, output_bytes));
    }
    Ok(done(
        "rewrote",
        len,
        None,
        "SLOG 2.0.6",
        output_bytes,
        details,
    ))
}

/// SLOG-2 to SLOG-2 with a new tree: every drawable into it
/// ([`crate::filter`] with nothing removed), reading no further once `stop`
/// is set.
pub(super) fn retree_slog2(
    input: &Path,
    out: &Output,
    opts: TreeOptions,
    stop: &Arc<AtomicBool>,
) -> Result<Summary> {
    let len = size(input)?;
    let file = stoppable(input, stop)?;
    let bad_input = |source| Error::Slog2 {
        path: input.to_path_buf(),
        source,
    };
    let mut r = slog2_format::Slog2Reader::new(std::io::BufReader::new(file)).map_err(bad_input)?;
    let (w, stats) = crate::filter::filter(
        &mut r,
        writer(out)?,
        &crate::filter::Options::default().tree(opts),
    )
    .map_err(|e| match e {
        crate::filter::Error::Slog2(e) => bad_input(e),
        source => Error::Filter {
            path: input.to_path_buf(),
            source,
        },
    })?;
    let output_bytes = finish(w, out)?;
    Ok(done(
        "re-treed",
        len,
        None,
        slog2_name(&opts),
        output_bytes,
        vec![super::tree_line(&stats.tree)],
    ))
}
