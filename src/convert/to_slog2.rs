//! Every format to SLOG-2 through the one-pass tree writer: CLOG2 and old
//! CLOG as clog2TOslog2 and clogTOslog2 do, ALOG (spec/conversion.md §6),
//! SLOG-1 (spec/slog1.md), OTF2 (spec/otf2.md §9).

use super::lines::{alog_unmatched_line, tree_line, unmatched_line};
use super::{done, finish, size, slog2_name, writer, Summary};
use crate::output::{OutWriter, Output};
use crate::trace::stop::{into_stopping_tree, open as stoppable};
use crate::trace::{Error, Result, Step};
use slog2_format::convert::ConvertStats;
use slog2_format::write::TreeOptions;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// CLOG2 to SLOG-2 in one pass (what clog2TOslog2 does), reading no further
/// once `stop` is set.
pub(super) fn clog2(
    input: &Path,
    out: &Output,
    opts: TreeOptions,
    stop: &Arc<AtomicBool>,
    progress: &mut dyn FnMut(Step),
) -> Result<Summary> {
    let len = size(input)?;
    let file = stoppable(input, stop)?;
    let mut r = clog2_format::Clog2Reader::new(file).map_err(|source| Error::Clog2 {
        path: input.to_path_buf(),
        source,
    })?;
    paired(input, out, len, "clog2TOslog2", opts, |w| {
        slog2_format::convert::clog2_to_slog2(&mut r, w, opts, |at| {
            progress(Step::Read { at, total: len })
        })
    })
}

/// Old CLOG (MPE1) to SLOG-2 (what clogTOslog2 does), ending at the next
/// drawable once `stop` is set.
pub(super) fn clog(
    input: &Path,
    out: &Output,
    opts: TreeOptions,
    stop: &Arc<AtomicBool>,
    progress: &mut dyn FnMut(Step),
) -> Result<Summary> {
    let data = std::fs::read(input).map_err(Error::io(input))?;
    let len = data.len() as u64;
    paired(input, out, len, "clogTOslog2", opts, |w| {
        let records = clog2_format::clog::ClogRecords::new(&data)?;
        into_stopping_tree(w, opts, stop, |t| {
            slog2_format::convert::clog_into(records, t, |at| {
                progress(Step::Read { at, total: len })
            })
        })
    })
}

/// A CLOG2 or old-CLOG conversion: the reader's errors are the input's, the
/// rest the output's.
fn paired(
    input: &Path,
    out: &Output,
    len: u64,
    java: &str,
    opts: TreeOptions,
    convert: impl FnOnce(OutWriter) -> slog2_format::Result<(OutWriter, ConvertStats)>,
) -> Result<Summary> {
    let (w, stats) = convert(writer(out)?).map_err(|e| match e {
        slog2_format::Error::Clog2(source) => Error::Clog2 {
            path: input.to_path_buf(),
            source: *source,
        },
        source => Error::Slog2 {
            path: out.path().to_path_buf(),
            source,
        },
    })?;
    let output_bytes = finish(w, out)?;
    let details = vec![
        tree_line(&stats.tree),
        unmatched_line(&stats.unmatched, java),
    ];
    Ok(Summary {
        stats: Some(stats.clone()),
        ..done(
            "converted",
            len,
            Some(stats.records),
            slog2_name(&opts),
            output_bytes,
            details,
        )
    })
}

/// The error of a conversion whose input was parsed whole (ALOG, SLOG-1):
/// the input's.
fn bad_input(input: &Path) -> impl Fn(slog2_format::Error) -> Error + '_ {
    move |source| Error::Slog2 {
        path: input.to_path_buf(),
        source,
    }
}

/// ALOG to SLOG-2 through the one-pass tree writer (spec/conversion.md §6),
/// ending at the next drawable once `stop` is set.
pub(super) fn alog(
    input: &Path,
    out: &Output,
    opts: TreeOptions,
    stop: &Arc<AtomicBool>,
) -> Result<Summary> {
    let len = size(input)?;
    let f = crate::trace::read::alog(input)?;
    let (w, stats) = into_stopping_tree(writer(out)?, opts, stop, |t| {
        slog2_format::convert::alog_into(&f, t, |_| {})
    })
    .map_err(bad_input(input))?;
    let output_bytes = finish(w, out)?;
    let details = vec![
        tree_line(&stats.tree),
        alog_unmatched_line(&stats.unmatched),
    ];
    Ok(Summary {
        stats: Some(stats),
        ..done(
            "converted",
            len,
            Some(f.records.len() as u64),
            slog2_name(&opts),
            output_bytes,
            details,
        )
    })
}

/// SLOG-1 to SLOG-2: each interval once, as a state or arrow (spec/slog1.md),
/// ending at the next drawable once `stop` is set.
pub(super) fn slog1(
    input: &Path,
    out: &Output,
    opts: TreeOptions,
    stop: &Arc<AtomicBool>,
) -> Result<Summary> {
    let len = size(input)?;
    let f = crate::trace::read::slog1(input)?;
    let mut details = Vec::new();
    for w in f.warnings() {
        details.push(format!(
            "{}: warning {} at byte {}: {}",
            crate::input::shown(input),
            mpelog_conformance::check::slog1::rule(w.problem).id,
            w.offset,
            w.what
        ));
    }
    let (w, stats) = into_stopping_tree(writer(out)?, opts, stop, |t| {
        slog2_format::convert::slog1_into(&f, t, |_| {})
    })
    .map_err(bad_input(input))?;
    let output_bytes = finish(w, out)?;
    details.insert(0, tree_line(&stats.tree));
    let records = slog2_format::slog1::dump::summary(&f).records;
    Ok(Summary {
        stats: Some(stats),
        ..done(
            "converted",
            len,
            Some(records),
            slog2_name(&opts),
            output_bytes,
            details,
        )
    })
}

/// An OTF2 archive (its anchor file or directory) to SLOG-2 in one pass
/// (spec/otf2.md §9). Its summary's numbers are in [`Summary::stats`], and
/// told in its details ([`otf2_lines`](super::otf2_lines)); its input bytes
/// are the archive's ([`otf2_format::Archive::bytes`]). It tells
/// [`Step::Events`] and ends at the next drawable once `stop` is set.
pub(super) fn otf2(
    input: &Path,
    out: &Output,
    opts: TreeOptions,
    stop: &Arc<AtomicBool>,
    progress: &mut dyn FnMut(Step),
) -> Result<Summary> {
    let archive = crate::trace::read::otf2(input)?;
    let (w, stats) = into_stopping_tree(writer(out)?, opts, stop, |t| {
        slog2_format::convert::otf2_into(&archive, t, |at| progress(Step::Events { at }))
    })
    .map_err(|e| match e {
        slog2_format::Error::Otf2(source) => Error::Otf2 {
            path: input.to_path_buf(),
            source: *source,
        },
        source => Error::Slog2 {
            path: input.to_path_buf(),
            source,
        },
    })?;
    let output_bytes = finish(w, out)?;
    let records = stats.otf2.as_ref().map(|c| c.events);
    let details = stats
        .otf2
        .as_ref()
        .map(|c| super::otf2_lines(c, &stats.unmatched))
        .unwrap_or_default();
    Ok(Summary {
        stats: Some(stats),
        ..done(
            "converted",
            archive.bytes(),
            records,
            "SLOG-2",
            output_bytes,
            details,
        )
    })
}
