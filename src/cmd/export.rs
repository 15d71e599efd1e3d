//! `mpelog export`: a trace as a Perfetto trace, Chrome trace-event JSON or
//! pipit's CSV ([`mpelog::export`]), written atomically.

use super::Input;
use crate::detect::Format;
use crate::error::{CliError, CliResult};
use crate::input::shown;
use crate::output::Output;
use mpelog::export::sorted::Sorted;
use mpelog::export::{
    self, chrome::ChromeJson, perfetto::PerfettoTrace, pipit::PipitCsv, Counts, Options, Sink,
};
use slog2_format::convert;
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
    let remote = super::url(input).is_some();
    let local = [input];
    let out = Output::create(output, if remote { &[] } else { &local[..] }, false)?;
    let input = &if remote {
        input.to_path_buf()
    } else {
        super::local(input)?
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
    let (input, format) = match super::input(input)? {
        Input::Remote(mut r, _) => {
            return export::slog2(&mut r, opts, sink)
                .map_err(CliError::export(CliError::slog2(input)))
        }
        Input::Local(path, format) => (path, format),
    };
    let input = &input;
    match format {
        Format::Slog2 | Format::Slog2Compressed => slog2(input, opts, sink),
        Format::Annotation => {
            let (mut ann, trace) = super::annotation::open(input, trace)?;
            export::annotation(&mut ann, opts, sink).map_err(CliError::export(|e| {
                super::annotation::error(input, &trace, e)
            }))
        }
        format => {
            // Any other trace: its events paired as `convert` pairs them, the
            // primitives put in start order (no SLOG-2 file in between).
            let mut sorted = sorted_input(input, format, opts)?;
            export::one_pass(&mut sorted, opts, sink).map_err(CliError::export(CliError::io(
                Path::new("<temporary run file>"),
            )))
        }
    }
}

/// The primitives of a CLOG2, old CLOG, ALOG, SLOG-1 or OTF2 trace that meet the
/// window of `opts`, paired with the converters' code and put in start order
/// with bounded memory ([`mpelog::export::sorted::StartOrder`]), with a
/// progress bar while the input
/// is read.
pub fn sorted_input(input: &Path, format: Format, opts: &Options) -> CliResult<Sorted> {
    sorted_input_counted(input, format, opts).map(|(sorted, _)| sorted)
}

/// [`sorted_input`], with what the pairing could not match (sends without a
/// receive, receives without a send: `analyze` reports them).
pub fn sorted_input_counted(
    input: &Path,
    format: Format,
    opts: &Options,
) -> CliResult<(Sorted, convert::Unmatched)> {
    let sink = opts.start_order();
    let (file, len) = super::open(input)?;
    let bar = crate::progress::bytes_bar(len, "reading");
    let progress = |at: u64| bar.set_position(at);
    let slog2_err = |clog2: bool| {
        move |e: slog2_format::Error| match e {
            slog2_format::Error::Clog2(e) if clog2 => CliError::clog2(input)(*e),
            slog2_format::Error::Clog2(e) => CliError::input(input)(*e),
            // The sorter's runs: named after the temporary directory.
            slog2_format::Error::Sink(e) => match e.downcast::<std::io::Error>() {
                Ok(e) => CliError::io(&std::env::temp_dir())(*e),
                Err(e) => CliError::slog2(input)(slog2_format::Error::Sink(e)),
            },
            e => CliError::slog2(input)(e),
        }
    };
    let (sorted, stats) = match format {
        Format::Clog2 => {
            let mut r = clog2_format::Clog2Reader::new(file).map_err(CliError::clog2(input))?;
            convert::clog2_into(&mut r, sink, progress).map_err(slog2_err(true))?
        }
        Format::Clog => {
            drop(file);
            let data = std::fs::read(input).map_err(CliError::io(input))?;
            clog2_format::clog::ClogRecords::new(&data)
                .map_err(slog2_format::Error::from)
                .and_then(|records| convert::clog_into(records, sink, progress))
                .map_err(slog2_err(false))?
        }
        Format::Alog => {
            let (f, _) = super::alog::read(input)?;
            convert::alog_into(&f, sink, |_| {}).map_err(slog2_err(false))?
        }
        Format::Slog1 => {
            let (f, _) = super::slog1::read(input)?;
            convert::slog1_into(&f, sink, |_| {}).map_err(slog2_err(false))?
        }
        Format::Otf2 => {
            drop(file);
            let archive = super::otf2::open(input)?;
            let (sorted, stats) =
                convert::otf2::otf2_into(&archive, sink, |_| {}).map_err(|e| match e {
                    slog2_format::Error::Otf2(_) => super::otf2::conversion_error(input)(e),
                    e => slog2_err(false)(e),
                })?;
            (sorted, stats)
        }
        other => {
            return Err(CliError::Usage(format!(
                "{}: cannot export a {} file",
                shown(input),
                other.name()
            )))
        }
    };
    bar.finish_and_clear();
    if sorted.runs() > 0 {
        eprintln!(
            "put {} drawables in time order through {} sorted runs in a temporary file (--sort-memory)",
            sorted.len(),
            sorted.runs()
        );
    }
    Ok((sorted, stats.unmatched))
}

fn slog2<S: Sink>(path: &Path, opts: &Options, sink: &mut S) -> CliResult<Counts> {
    let (file, _) = super::open(path)?;
    let mut r = slog2_format::Slog2Reader::new(std::io::BufReader::new(file))
        .map_err(CliError::slog2(path))?;
    export::slog2(&mut r, opts, sink).map_err(CliError::export(CliError::slog2(path)))
}

/// A Parquet export's input, open: an annotation with its trace, a SLOG-2
/// reader, or a conversion in start order.
#[cfg(feature = "parquet")]
enum ParquetInput {
    Annotation(
        Box<mpelog_annotate::Annotation<std::fs::File, std::fs::File>>,
        std::path::PathBuf,
    ),
    /// A local or a remote SLOG-2 file.
    Slog2(
        Box<slog2_format::Slog2Reader<Box<dyn ReadSeek>>>,
        std::path::PathBuf,
    ),
    Sorted(Box<Sorted>),
}

/// A source a SLOG-2 reader reads: a local file or a remote one.
#[cfg(feature = "parquet")]
trait ReadSeek: std::io::Read + std::io::Seek {}
#[cfg(feature = "parquet")]
impl<T: std::io::Read + std::io::Seek> ReadSeek for T {}

#[cfg(feature = "parquet")]
fn parquet_input(input: &Path, trace: Option<&Path>, opts: &Options) -> CliResult<ParquetInput> {
    let slog2 = |source: Box<dyn ReadSeek>| -> CliResult<ParquetInput> {
        let r = slog2_format::Slog2Reader::new(source).map_err(CliError::slog2(input))?;
        Ok(ParquetInput::Slog2(Box::new(r), input.to_path_buf()))
    };
    let (input, format) = match super::url(input) {
        // A remote SLOG-2 file is read with Range requests, any other trace
        // at a URL through a local copy.
        Some(url) => {
            let f: Box<dyn ReadSeek> = Box::new(super::open_http(url)?);
            match slog2_format::Slog2Reader::new(f) {
                Ok(r) => return Ok(ParquetInput::Slog2(Box::new(r), input.to_path_buf())),
                Err(slog2_format::Error::NotSlog2 { .. }) => super::local_input(input)?,
                Err(e) => return Err(CliError::slog2(input)(e)),
            }
        }
        None => super::local_input(input)?,
    };
    let input = &input;
    match format {
        Format::Annotation => {
            let (ann, trace) = super::annotation::open(input, trace)?;
            Ok(ParquetInput::Annotation(Box::new(ann), trace))
        }
        Format::Slog2 | Format::Slog2Compressed => {
            let (file, _) = super::open(input)?;
            slog2(Box::new(std::io::BufReader::new(file)))
        }
        format => Ok(ParquetInput::Sorted(Box::new(sorted_input(
            input, format, opts,
        )?))),
    }
}

/// Runs `$body` with `$tree` the open input and `$cats` its legend, mapping
/// the Parquet export's errors to the CLI's.
#[cfg(feature = "parquet")]
macro_rules! with_tree {
    ($opened:expr, $input:expr, $output:expr, |$tree:ident, $cats:ident| $body:expr) => {{
        use mpelog::export::parquet::Error;
        match $opened {
            ParquetInput::Annotation(mut ann, trace) => {
                let $cats = ann.categories().categories.clone();
                let $tree = &mut *ann;
                $body.map_err(|e| match e {
                    Error::Read(e) => super::annotation::error($input, &trace, e),
                    e => CliError::io($output)(std::io::Error::other(e)),
                })
            }
            ParquetInput::Slog2(mut r, path) => {
                let $cats = r.category_list().to_vec();
                let $tree = &mut *r;
                $body.map_err(|e| match e {
                    Error::Read(e) => CliError::slog2(&path)(e),
                    e => CliError::io($output)(std::io::Error::other(e)),
                })
            }
            ParquetInput::Sorted(mut sorted) => {
                let $cats = sorted.categories().to_vec();
                let $tree = &mut *sorted;
                $body.map_err(|e| match e {
                    Error::Read(e) => CliError::io(Path::new("<temporary run file>"))(e),
                    e => CliError::io($output)(std::io::Error::other(e)),
                })
            }
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
    let opened = parquet_input(input, trace, opts)?;
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
    let remote = super::url(input).is_some();
    let local = [input];
    let target = crate::output::Dataset::create(output, if remote { &[] } else { &local[..] })?;
    let input = &if remote {
        input.to_path_buf()
    } else {
        super::local(input)?
    };
    let started = std::time::Instant::now();
    let opened = parquet_input(input, trace, opts)?;
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
