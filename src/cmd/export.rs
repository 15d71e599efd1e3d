//! `mpelog export`: a trace as a Perfetto trace, Chrome trace-event JSON or
//! pipit's CSV ([`mpelog::export`]), written atomically.

use crate::detect::{detect, Format};
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
    let out = Output::create(output, &[input], false)?;
    let input = &crate::input::resolve(input)?;
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

fn write<S: Sink>(
    input: &Path,
    trace: Option<&Path>,
    opts: &Options,
    sink: &mut S,
) -> CliResult<Counts> {
    let out_err = |e: std::io::Error| CliError::io(Path::new("<output>"))(e);
    match detect(input)? {
        Format::Slog2 => slog2(input, opts, sink),
        Format::Annotation => {
            let (mut ann, trace) = super::annotation::open(input, trace)?;
            export::annotation(&mut ann, opts, sink).map_err(|e| match e {
                export::Error::Read(e) => super::annotation::error(input, &trace, e),
                export::Error::Write(e) => out_err(e),
                e => CliError::Usage(e.to_string()),
            })
        }
        _ => {
            // Any other trace: converted to SLOG-2 in a temporary directory first.
            let dir = tempfile::tempdir().map_err(CliError::io(Path::new("TMPDIR")))?;
            let tmp = super::convert::to_temp_slog2(input, dir.path(), "converted.slog2")?;
            slog2(&tmp, opts, sink)
        }
    }
}

fn slog2<S: Sink>(path: &Path, opts: &Options, sink: &mut S) -> CliResult<Counts> {
    let (file, _) = super::open(path)?;
    let mut r = slog2_format::Slog2Reader::new(std::io::BufReader::new(file))
        .map_err(CliError::slog2(path))?;
    export::slog2(&mut r, opts, sink).map_err(|e| match e {
        export::Error::Read(e) => CliError::slog2(path)(e),
        export::Error::Write(e) => CliError::io(Path::new("<output>"))(e),
        e => CliError::Usage(e.to_string()),
    })
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
    use mpelog::export::parquet::{export as write, Error};
    let done = |r: (u64, crate::output::OutWriter)| {
        let counts = Counts {
            states: r.0,
            ..Counts::default()
        };
        (r.1, counts)
    };
    match detect(input)? {
        Format::Annotation => {
            let (mut ann, trace) = super::annotation::open(input, trace)?;
            let cats = ann.categories().categories.clone();
            write(&mut ann, &cats, opts, w)
                .map(done)
                .map_err(|e| match e {
                    Error::Read(e) => super::annotation::error(input, &trace, e),
                    e => CliError::io(output)(std::io::Error::other(e)),
                })
        }
        Format::Slog2 => {
            let (file, _) = super::open(input)?;
            let mut r = slog2_format::Slog2Reader::new(std::io::BufReader::new(file))
                .map_err(CliError::slog2(input))?;
            let cats = r
                .categories()
                .map(|c| c.value.categories.clone())
                .unwrap_or_default();
            write(&mut r, &cats, opts, w)
                .map(done)
                .map_err(|e| match e {
                    Error::Read(e) => CliError::slog2(input)(e),
                    e => CliError::io(output)(std::io::Error::other(e)),
                })
        }
        _ => {
            let dir = tempfile::tempdir().map_err(CliError::io(Path::new("TMPDIR")))?;
            let tmp = super::convert::to_temp_slog2(input, dir.path(), "converted.slog2")?;
            parquet(&tmp, None, opts, w, output)
        }
    }
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
