//! Reading each format's input: the whole-file readers (ALOG, SLOG-1), OTF2
//! archives, the one-pass conversion in start order, and the one-time
//! conversion to a SLOG-2 file (as `mpelog convert` makes it, with the
//! default tree) for the window queries of formats without a tree.

use super::error::{Error, Result};
use crate::export::sorted::Sorted;
use mpelog_conformance::Format;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Largest unpacked `.Z` ALOG input accepted (as the CLI).
const MAX_UNPACKED: usize = 1 << 30;

/// Reads and parses an ALOG file, unpacking `.Z` first.
pub(crate) fn alog(path: &Path) -> Result<alog_format::AlogFile> {
    let data = std::fs::read(path).map_err(Error::io(path))?;
    let text = alog_format::z::unpack(&data, MAX_UNPACKED).map_err(|e| Error::Unrecognized {
        path: path.to_path_buf(),
        message: format!("cannot unpack this compress (.Z) file: {e}"),
    })?;
    alog_format::AlogFile::parse(&text).map_err(|source| Error::Alog {
        path: path.to_path_buf(),
        source,
    })
}

/// Reads and parses a SLOG-1 file.
pub(crate) fn slog1(path: &Path) -> Result<slog2_format::slog1::Slog1File> {
    let data = std::fs::read(path).map_err(Error::io(path))?;
    slog2_format::slog1::Slog1File::parse(&data).map_err(|source| Error::Slog1 {
        path: path.to_path_buf(),
        source,
    })
}

/// Opens an OTF2 archive (its anchor file or directory).
pub(crate) fn otf2(path: &Path) -> Result<otf2_format::Archive> {
    otf2_format::Archive::open(path).map_err(|source| Error::Otf2 {
        path: path.to_path_buf(),
        source,
    })
}

/// The primitives of a CLOG2, old CLOG, ALOG, SLOG-1 or OTF2 trace that meet
/// the window of `opts`, paired as `convert` pairs them and put in start
/// order with bounded memory (what `mpelog export` and `stats` read); ends
/// with [`Error::Stopped`] once `stop` is set.
pub(crate) fn sorted(
    path: &Path,
    format: Format,
    opts: &crate::export::Options,
    stop: &Arc<AtomicBool>,
    progress: &mut Option<super::Progress>,
) -> Result<Sorted> {
    Ok(sorted_counted(path, format, opts, stop, progress)?.0)
}

/// [`sorted`], with what the pairing dropped (sends and receives without
/// their other end: what `mpelog analyze` reports as dropped).
pub(crate) fn sorted_counted(
    path: &Path,
    format: Format,
    opts: &crate::export::Options,
    stop: &Arc<AtomicBool>,
    progress: &mut Option<super::Progress>,
) -> Result<(Sorted, slog2_format::convert::Unmatched)> {
    let sink = opts.start_order().stop_when(stop.clone());
    stopped(sorted_into(path, format, sink, progress), stop, path)
}

/// [`sorted`], ending once `stop` or `also` is set (a caller's flag and
/// its trace's).
pub(crate) fn sorted_either(
    path: &Path,
    format: Format,
    opts: &crate::export::Options,
    (stop, also): (&Arc<AtomicBool>, &Arc<AtomicBool>),
    progress: &mut Option<super::Progress>,
) -> Result<Sorted> {
    let sink = opts
        .start_order()
        .stop_when(stop.clone())
        .stop_when(also.clone());
    let r = stopped(sorted_into(path, format, sink, progress), stop, path);
    Ok(stopped(r, also, path)?.0)
}

/// What [`streamed_until`] did: the pieces handed out, or `None` when the
/// input cannot be streamed (its records are not in time order, or its
/// format tells no low-water mark) and nothing was handed out.
pub(crate) type Streamed = Option<crate::export::streamed::Outcome>;

/// What the first pass of a streamed read learns: the legend, the line-ID
/// maps and the time box of the whole conversion, and whether its records
/// came in time order. It does not depend on a window: a [`super::Trace`]
/// keeps it for its next reads ([`survey_kept`]).
pub(crate) struct Survey {
    pub(crate) categories: Vec<slog2_format::Category>,
    pub(crate) maps: Vec<slog2_format::types::LineIdMap>,
    pub(crate) time_box: Option<(f64, f64)>,
    pub(crate) in_time_order: bool,
}

/// `Error::Stopped` for a read that failed because `stop` was set.
fn stopped<T>(r: Result<T>, stop: &AtomicBool, path: &Path) -> Result<T> {
    match r {
        Err(_) if stop.load(Ordering::Relaxed) => Err(Error::Stopped {
            path: path.to_path_buf(),
        }),
        r => r,
    }
}

/// The first pass of a streamed read of the CLOG2 trace at `path`, keeping
/// nothing (only CLOG2 is streamed: its pairing tells a low-water mark).
fn survey(path: &Path, stop: &Arc<AtomicBool>, progress: &mut dyn FnMut(u64)) -> Result<Survey> {
    let file = std::fs::File::open(path).map_err(Error::io(path))?;
    let source = crate::input::ReadAhead::new(file, progress);
    let mut r = clog2_format::Clog2Reader::with_source(source).map_err(|source| Error::Clog2 {
        path: path.to_path_buf(),
        source,
    })?;
    // The pairing alone, on this thread: no primitive is kept, sorted or
    // handed to another thread.
    let survey = stopped(
        slog2_format::convert::clog2_survey(&mut r, stop).map_err(|e| Error::conversion(path, e)),
        stop,
        path,
    )?;
    let Some(survey) = survey else {
        return Err(Error::Stopped {
            path: path.to_path_buf(),
        });
    };
    Ok(Survey {
        categories: survey.categories,
        maps: survey.maps,
        time_box: survey.time_box,
        in_time_order: survey.in_time_order,
    })
}

/// The first pass of the CLOG2 trace at `path`, as [`survey`] makes it, or
/// the one `kept` from an earlier read of the same opened trace (then
/// nothing is read); a finished pass is kept there.
pub(crate) fn survey_kept(
    kept: &Kept,
    path: &Path,
    stop: &Arc<AtomicBool>,
    progress: &mut dyn FnMut(u64),
) -> Result<Arc<Survey>> {
    if let Some(s) = kept.get() {
        return Ok(s.clone());
    }
    let s = Arc::new(survey(path, stop, progress)?);
    Ok(kept.get_or_init(|| s).clone())
}

/// Where an opened trace keeps its first pass, shared with the traces
/// [`super::Trace::reopen`] makes of it (the same file).
pub(crate) type Kept = Arc<std::sync::OnceLock<Arc<Survey>>>;

/// The second pass of a streamed read: the pieces of the CLOG2 trace at
/// `path` (in time order, as `survey` found it) meeting the window of `opts`
/// and `span`, handed to `f` in start order while the input is read; `f`
/// may stop the read by breaking, and so may `stop` (then
/// [`Error::Stopped`]).
pub(crate) fn stream(
    path: &Path,
    span: crate::slices::Span,
    opts: &crate::export::Options,
    stop: &Arc<AtomicBool>,
    progress: &mut dyn FnMut(u64),
    f: &mut dyn FnMut(crate::slices::Piece<'_>) -> std::ops::ControlFlow<()>,
) -> Result<crate::export::streamed::Outcome> {
    use crate::export::streamed::Streamed as Sink;
    let spill = {
        let opts = opts.clone();
        Box::new(move || opts.start_order())
    };
    let sink = Sink::new((opts.from, opts.to), span, spill, stop.clone(), f)
        .held(crate::export::streamed::held_for(opts.sort_memory));
    let file = std::fs::File::open(path).map_err(Error::io(path))?;
    let mut r = clog2_format::Clog2Reader::new(file).map_err(|source| Error::Clog2 {
        path: path.to_path_buf(),
        source,
    })?;
    let out = stopped(
        slog2_format::convert::clog2_into(&mut r, sink, progress)
            .map_err(|e| Error::conversion(path, e)),
        stop,
        path,
    )?
    .0;
    if out.stopped && stop.load(Ordering::Relaxed) {
        return Err(Error::Stopped {
            path: path.to_path_buf(),
        });
    }
    Ok(out)
}

/// The pieces of the CLOG2 trace at `path` meeting the window of `opts`,
/// handed to `f` in start order while the input is read (the legend to
/// `legend` first), as [`sorted`] and a merge of its runs give them;
/// ends with [`Error::Stopped`] once `stop` is set. Two passes: the first
/// keeps nothing and learns the legend, the time box and whether the records
/// are in time order ([`survey`]); the second hands out each piece once no
/// piece still to come can start before it ([`stream`],
/// [`crate::export::streamed`]). `progress` is told the bytes read in each
/// pass.
#[allow(clippy::too_many_arguments)]
pub(crate) fn streamed_until(
    path: &Path,
    format: Format,
    opts: &crate::export::Options,
    stop: &Arc<AtomicBool>,
    kept: &Kept,
    progress: &mut dyn FnMut(u64),
    legend: &mut dyn FnMut(&[slog2_format::Category]),
    f: &mut dyn FnMut(crate::slices::Piece<'_>),
) -> Result<Streamed> {
    if format != Format::Clog2 {
        return Ok(None);
    }
    let survey = survey_kept(kept, path, stop, progress)?;
    if !survey.in_time_order {
        return Ok(None);
    }
    legend(&survey.categories);
    let span = crate::slices::span_of(survey.time_box, opts.from, opts.to);
    let mut emit = |p: crate::slices::Piece<'_>| {
        f(p);
        std::ops::ControlFlow::Continue(())
    };
    let out = stream(path, span, opts, stop, progress, &mut emit)?;
    if out.stopped {
        return Err(Error::Stopped {
            path: path.to_path_buf(),
        });
    }
    Ok(Some(out))
}

/// The primitives of the trace at `path`, paired into `sink`.
fn sorted_into(
    path: &Path,
    format: Format,
    sink: crate::export::sorted::StartOrder,
    progress: &mut Option<super::Progress>,
) -> Result<(Sorted, slog2_format::convert::Unmatched)> {
    let total = match progress {
        Some(_) => std::fs::metadata(path).map_or(0, |m| m.len()),
        None => 0,
    };
    let mut tell = |at: u64| {
        if let Some(p) = progress.as_mut() {
            p(super::Step::Read { at, total })
        }
    };
    let conv = |e| Error::conversion(path, e);
    let sorted = match format {
        Format::Clog2 => {
            let file = std::fs::File::open(path).map_err(Error::io(path))?;
            let mut r = clog2_format::Clog2Reader::new(file).map_err(|source| Error::Clog2 {
                path: path.to_path_buf(),
                source,
            })?;
            slog2_format::convert::clog2_into(&mut r, sink, &mut tell).map_err(conv)?
        }
        Format::Clog => {
            let data = std::fs::read(path).map_err(Error::io(path))?;
            clog2_format::clog::ClogRecords::new(&data)
                .map_err(slog2_format::Error::from)
                .and_then(|records| slog2_format::convert::clog_into(records, sink, &mut tell))
                .map_err(conv)?
        }
        Format::Alog => {
            slog2_format::convert::alog_into(&alog(path)?, sink, |_| {}).map_err(conv)?
        }
        Format::Slog1 => {
            slog2_format::convert::slog1_into(&slog1(path)?, sink, |_| {}).map_err(conv)?
        }
        Format::Otf2 => {
            slog2_format::convert::otf2::otf2_into(&otf2(path)?, sink, |_| {}).map_err(conv)?
        }
        // SLOG-2 and annotations have a tree: never sorted.
        _ => unreachable!("a format with a tree is read through it"),
    };
    if let Some(p) = progress.as_mut() {
        p(super::Step::Sorted {
            drawables: sorted.0.len(),
            runs: sorted.0.runs(),
        })
    }
    Ok((sorted.0, sorted.1.unmatched))
}

/// Converts the trace at `path` to the SLOG-2 file `DIR/converted.slog2`
/// with the default tree, as `mpelog convert` does, and returns its path.
pub(crate) fn to_slog2(
    path: &Path,
    format: Format,
    dir: &Path,
    stop: &Arc<AtomicBool>,
    progress: &mut dyn FnMut(super::Step),
) -> Result<(PathBuf, slog2_format::convert::ConvertStats)> {
    let out = dir.join("converted.slog2");
    let stats = write_slog2(path, format, &out, stop, progress)?;
    Ok((out, stats))
}

/// Converts the trace at `path` to the SLOG-2 file `out` with the default
/// tree, as `mpelog convert` does, and returns what the conversion did. Once
/// `stop` is set it ends with an error: a CLOG2 trace's at its next read, the
/// others' at their next drawable. `progress` is told the input bytes read of
/// a CLOG2 or old CLOG trace ([`Step::Read`](super::Step::Read)), the
/// events read of an OTF2 archive ([`Step::Events`](super::Step::Events)).
pub(crate) fn write_slog2(
    path: &Path,
    format: Format,
    out: &Path,
    stop: &Arc<AtomicBool>,
    progress: &mut dyn FnMut(super::Step),
) -> Result<slog2_format::convert::ConvertStats> {
    use super::stop::into_stopping_tree;
    use super::Step;
    use slog2_format::convert as c;
    use std::io::Write as _;
    let out = out.to_path_buf();
    let opts = slog2_format::write::TreeOptions::default();
    let w = std::io::BufWriter::new(std::fs::File::create(&out).map_err(Error::io(&out))?);
    let conv = |e| Error::conversion(path, e);
    let total = std::fs::metadata(path).map_or(0, |m| m.len());
    let mut read = |at| progress(Step::Read { at, total });
    let (mut w, stats) = match format {
        Format::Clog2 => {
            let file = super::stop::open(path, stop)?;
            let mut r = clog2_format::Clog2Reader::new(file).map_err(|source| Error::Clog2 {
                path: path.to_path_buf(),
                source,
            })?;
            c::clog2_to_slog2(&mut r, w, opts, read).map_err(conv)?
        }
        Format::Clog => {
            let data = std::fs::read(path).map_err(Error::io(path))?;
            clog2_format::clog::ClogRecords::new(&data)
                .map_err(slog2_format::Error::from)
                .and_then(|records| {
                    into_stopping_tree(w, opts, stop, |t| c::clog_into(records, t, &mut read))
                })
                .map_err(conv)?
        }
        Format::Alog => {
            let f = alog(path)?;
            into_stopping_tree(w, opts, stop, |t| c::alog_into(&f, t, |_| {})).map_err(conv)?
        }
        Format::Slog1 => {
            let f = slog1(path)?;
            into_stopping_tree(w, opts, stop, |t| c::slog1::slog1_into(&f, t, |_| {}))
                .map_err(conv)?
        }
        Format::Otf2 => {
            let archive = otf2(path)?;
            let events = |at| progress(Step::Events { at });
            into_stopping_tree(w, opts, stop, |t| c::otf2_into(&archive, t, events))
                .map_err(conv)?
        }
        _ => unreachable!("a format with a tree is read through it"),
    };
    w.flush().map_err(Error::io(&out))?;
    Ok(stats)
}
