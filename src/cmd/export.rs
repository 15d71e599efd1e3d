//! `mpelog export`: a trace as a Perfetto trace, Chrome trace-event JSON or
//! pipit's CSV ([`mpelog::export`]), written atomically.

use crate::error::{CliError, CliResult};
use crate::input::shown;
use crate::output::Output;
use mpelog::export::{
    self, chrome::ChromeJson, perfetto::PerfettoTrace, pipit::PipitCsv, Counts, Options, Sink,
};
use std::path::Path;

/// The output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum To {
    /// Perfetto's protobuf trace (`.pftrace`).
    Perfetto,
    /// Chrome trace-event JSON (`.json`, gzipped as `.json.gz`).
    ChromeJson,
    /// pipit's CSV layout (`.csv`).
    Csv,
    /// Parquet, one row per drawable (`.parquet`).
    Parquet,
}

/// The format asked for, or the one `output`'s name says, and whether to gzip.
fn target(output: &Path, format: Option<To>) -> CliResult<(To, bool)> {
    let name = output.to_string_lossy().to_ascii_lowercase();
    let gz = name.ends_with(".gz");
    if let Some(f) = format {
        return Ok((f, gz && f == To::ChromeJson));
    }
    if name.ends_with(".json") || name.ends_with(".json.gz") {
        Ok((To::ChromeJson, gz))
    } else if name.ends_with(".csv") {
        Ok((To::Csv, false))
    } else if name.ends_with(".pftrace") || name.ends_with(".perfetto-trace") {
        Ok((To::Perfetto, false))
    } else if name.ends_with(".parquet") {
        Ok((To::Parquet, false))
    } else {
        Err(CliError::Usage(format!(
            "cannot tell the export format from {:?}: give --format perfetto, chrome-json, csv or parquet, or name the output .pftrace, .json, .json.gz, .csv or .parquet",
            shown(output)
        )))
    }
}

/// Runs `mpelog export`.
pub fn run(
    input: &Path,
    output: &Path,
    format: Option<To>,
    trace: Option<&Path>,
    opts: &Options,
) -> CliResult {
    let (to, gz) = target(output, format)?;
    // A remote SLOG-2 file has no local path to keep the output away from.
    let remote = mpelog::trace::url(input).is_some();
    let local = [input];
    let out = Output::create(output, if remote { &[] } else { &local[..] }, false)?;
    let input = &if remote {
        input.to_path_buf()
    } else {
        mpelog::trace::local_copy(input)?
    };
    let started = std::time::Instant::now();
    let w = out.writer()?;
    let (w, counts) = match to {
        To::ChromeJson if gz => {
            let mut sink = ChromeJson::new(flate2::write::GzEncoder::new(
                w,
                flate2::Compression::default(),
            ));
            let counts = write(input, trace, opts, &mut sink)?;
            let w = sink.into_inner().finish().map_err(CliError::io(output))?;
            (w, counts)
        }
        To::ChromeJson => {
            let mut sink = ChromeJson::new(w);
            let counts = write(input, trace, opts, &mut sink)?;
            (sink.into_inner(), counts)
        }
        To::Perfetto => {
            let mut sink = PerfettoTrace::new(w);
            let counts = write(input, trace, opts, &mut sink)?;
            (sink.into_inner(), counts)
        }
        To::Parquet => parquet(input, trace, opts, w, output)?,
        To::Csv => {
            let mut sink = PipitCsv::new(w);
            let counts = write(input, trace, opts, &mut sink)?;
            (sink.into_inner(), counts)
        }
    };
    let shown_out = crate::output::name(&out);
    out.finish(w)?;
    let what = if to == To::Parquet {
        format!("{} rows (one per drawable)", counts.states)
    } else {
        format!(
            "{} states, {} events, {} arrows on {} tracks",
            counts.states, counts.events, counts.arrows, counts.tracks
        )
    };
    eprintln!(
        "exported {} to {}: {what} in {:.2} s",
        shown(input),
        shown_out,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// [`write_here`] with `sink` on a thread of its own: reading and ordering on
/// this thread, encoding and writing on that one (the same bytes).
fn write<S: Sink + Send>(
    input: &Path,
    trace: Option<&Path>,
    opts: &Options,
    sink: &mut S,
) -> CliResult<Counts> {
    let (counts, written) =
        export::threaded::on_a_thread(sink, |h| write_here(input, trace, opts, h));
    // A writing error first: the reading side only saw the writer stop.
    written.map_err(CliError::io(Path::new("<output>")))?;
    counts
}

fn write_here<S: Sink>(
    input: &Path,
    trace: Option<&Path>,
    opts: &Options,
    sink: &mut S,
) -> CliResult<Counts> {
    // Any trace without a tree: its events paired as `convert` pairs them,
    // the primitives put in start order (no SLOG-2 file in between).
    let mut t = super::open_trace(input, trace)?;
    t.drawables(opts, sink).map_err(super::failed(t.format()))
}

/// Runs `$body` with `$tree` the open input and `$cats` its legend, mapping
/// the Parquet export's errors to the CLI's.
#[cfg(feature = "parquet")]
macro_rules! with_tree {
    ($opened:expr, $input:expr, $output:expr, |$tree:ident, $cats:ident| $body:expr) => {{
        use mpelog::export::parquet::Error;
        use mpelog::trace::InOrder;
        match $opened {
            InOrder::Annotation(ann, trace) => {
                let $cats = ann.categories().categories.clone();
                let $tree = ann;
                $body.map_err(|e| match e {
                    Error::Read(e) => super::annotation::error($input, trace, e),
                    e => CliError::io($output)(std::io::Error::other(e)),
                })
            }
            InOrder::Slog2(r) => {
                let $cats = r.category_list().to_vec();
                let $tree = r;
                $body.map_err(|e| match e {
                    Error::Read(e) => CliError::slog2($input)(e),
                    e => CliError::io($output)(std::io::Error::other(e)),
                })
            }
            InOrder::Sorted(mut sorted) => {
                let $cats = sorted.categories().to_vec();
                let $tree = &mut *sorted;
                $body.map_err(|e| match e {
                    Error::Read(e) => CliError::io(Path::new("<temporary run file>"))(e),
                    e => CliError::io($output)(std::io::Error::other(e)),
                })
            }
            InOrder::TwoPass(mut two) => {
                let $cats = two.categories().to_vec();
                let $tree = &mut *two;
                $body.map_err(|e| match e {
                    Error::Read(e) => CliError::from(e),
                    e => CliError::io($output)(std::io::Error::other(e)),
                })
            }
            _ => unreachable!("a trace is read through a tree, sorted or in two passes"),
        }
    }};
}

/// Writes the Parquet file: one row per drawable, not the timed items of
/// [`Sink`].
#[cfg(feature = "parquet")]
fn parquet(
    input: &Path,
    trace: Option<&Path>,
    opts: &Options,
    w: crate::output::OutWriter,
    output: &Path,
) -> CliResult<(crate::output::OutWriter, Counts)> {
    let mut t = super::open_trace(input, trace)?;
    let format = t.format();
    let opened = t.in_order(opts).map_err(super::failed(format))?;
    let (rows, w) = with_tree!(opened, input, output, |tree, cats| {
        mpelog::export::parquet::export(tree, &cats, opts, w)
    })?;
    Ok((
        w,
        Counts {
            states: rows,
            ..Counts::default()
        },
    ))
}

#[cfg(not(feature = "parquet"))]
fn parquet(
    _input: &Path,
    _trace: Option<&Path>,
    _opts: &Options,
    _w: crate::output::OutWriter,
    output: &Path,
) -> CliResult<(crate::output::OutWriter, Counts)> {
    Err(CliError::Usage(format!(
        "{}: this mpelog was built without the `parquet` feature",
        shown(output)
    )))
}

/// Whether `output` names a dataset directory: a name ending in `/`, or an
/// existing directory.
pub fn is_dataset(output: &Path) -> bool {
    output.as_os_str().as_encoded_bytes().ends_with(b"/") || output.is_dir()
}

/// Runs `mpelog export IN -o DIR/`: a Parquet dataset of parts of at most
/// `part_rows` rows, built in a temporary directory beside DIR and renamed to
/// DIR when complete (DIR must not exist, or be empty): whole or not at all.
#[cfg(feature = "parquet")]
pub fn dataset(
    input: &Path,
    output: &Path,
    format: Option<To>,
    part_rows: u64,
    trace: Option<&Path>,
    opts: &Options,
) -> CliResult {
    if format.is_some_and(|f| f != To::Parquet) {
        return Err(CliError::Usage(format!(
            "{}: a directory output is a Parquet dataset; name a file for other formats",
            shown(output)
        )));
    }
    let remote = mpelog::trace::url(input).is_some();
    let local = [input];
    let target = crate::output::Dataset::create(output, if remote { &[] } else { &local[..] })?;
    let input = &if remote {
        input.to_path_buf()
    } else {
        mpelog::trace::local_copy(input)?
    };
    let started = std::time::Instant::now();
    let mut t = super::open_trace(input, trace)?;
    let format = t.format();
    let opened = t.in_order(opts).map_err(super::failed(format))?;
    let dir = target.path().to_path_buf();
    let mut parts = 0usize;
    let rows = with_tree!(opened, input, output, |tree, cats| {
        mpelog::export::parquet::write_parts(
            tree,
            &cats,
            opts,
            part_rows,
            |i| {
                parts = i + 1;
                std::fs::File::create(dir.join(format!("part-{i:05}.parquet")))
                    .map(std::io::BufWriter::new)
            },
            |_, w| {
                let f = w.into_inner().map_err(|e| e.into_error())?;
                f.sync_all()
            },
        )
    })?;
    target.commit()?;
    eprintln!(
        "exported {} to {}: {rows} rows (one per drawable) in {parts} files in {:.2} s",
        shown(input),
        shown(output),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

#[cfg(not(feature = "parquet"))]
pub fn dataset(
    _input: &Path,
    output: &Path,
    _format: Option<To>,
    _part_rows: u64,
    _trace: Option<&Path>,
    _opts: &Options,
) -> CliResult {
    Err(CliError::Usage(format!(
        "{}: this mpelog was built without the `parquet` feature",
        shown(output)
    )))
}
