//! `mpelog render`: a picture of a time window ([`mpelog::render`]) as SVG, or
//! as PNG rasterised from the same SVG, written atomically.

use super::Input;
use crate::detect::Format;
use crate::error::{CliError, CliResult};
use crate::input::shown;
use crate::output::Output;
use mpelog::render::{svg_with, Error, Options};
use mpelog::waits::{index_path, WaitIndex};
use std::io::Write;
use std::path::Path;

/// Runs `mpelog render`.
pub fn run(input: &Path, output: &Path, opts: &Options) -> CliResult {
    let name = output.to_string_lossy().to_ascii_lowercase();
    let png = name.ends_with(".png");
    if !png && !name.ends_with(".svg") && output != Path::new("-") {
        return Err(CliError::Usage(format!(
            "{}: render writes .svg or .png",
            shown(output)
        )));
    }
    // The output is checked against a local input before anything is read.
    let local = [input];
    let inputs = if super::url(input).is_some() {
        &[][..]
    } else {
        &local[..]
    };
    let out = Output::create(output, inputs, false)?;
    let (input, format) = match super::input(input)? {
        // A remote SLOG-2 file, read with Range requests.
        Input::Remote(mut r, _) => {
            let index = match opts.waits {
                Some(_) => {
                    eprintln!(
                        "render --waits: {} is remote: analysing it in one pass",
                        shown(input)
                    );
                    Some(analyse(&mut r, input)?)
                }
                None => None,
            };
            let (text, drawn) = svg_with(&mut r, opts, index.as_ref()).map_err(|e| match e {
                Error::Slog2(e) => CliError::slog2(input)(e),
                e => CliError::Render(e),
            })?;
            return write(out, output, png, text, drawn, input);
        }
        Input::Local(path, format) => (path, format),
    };
    let input = &input;
    let dir;
    // The trace a wait index beside it would be of.
    let mut traced = input.to_path_buf();
    let slog2 = match format {
        Format::Slog2 | Format::Slog2Compressed => input.to_path_buf(),
        format => {
            // An annotation is drawn as the trace it annotates (opened with it,
            // so a stale one is refused); any trace is converted once into a
            // temporary SLOG-2 file.
            let trace = match format {
                Format::Annotation => super::annotation::open(input, None)?.1,
                _ => input.to_path_buf(),
            };
            traced = trace.clone();
            dir = tempfile::tempdir().map_err(CliError::io(Path::new("TMPDIR")))?;
            super::convert::to_temp_slog2(&trace, dir.path(), "converted.slog2")?
        }
    };
    let (file, _) = super::open(&slog2)?;
    let mut r = slog2_format::Slog2Reader::new(std::io::BufReader::new(file))
        .map_err(CliError::slog2(&slog2))?;
    let index = match opts.waits {
        Some(_) => Some(beside(&traced).map_or_else(
            |why| {
                eprintln!(
                    "render --waits: {why}: analysing {} in one pass",
                    shown(&traced)
                );
                analyse(&mut r, &slog2)
            },
            Ok,
        )?),
        None => None,
    };
    let (text, drawn) = svg_with(&mut r, opts, index.as_ref()).map_err(|e| match e {
        Error::Slog2(e) => CliError::slog2(&slog2)(e),
        e => CliError::Render(e),
    })?;
    write(out, output, png, text, drawn, input)
}

/// Writes the picture (`text` as SVG, or rasterised to PNG) and says what it
/// drew.
fn write(
    out: Output,
    output: &Path,
    png: bool,
    text: String,
    drawn: mpelog::render::Drawn,
    input: &Path,
) -> CliResult {
    let bytes = if png {
        super::raster::png(&text).map_err(|e| CliError::Usage(format!("{}: {e}", shown(output))))?
    } else {
        text.into_bytes()
    };
    let mut w = out.writer()?;
    w.write_all(&bytes).map_err(CliError::io(output))?;
    let shown_out = crate::output::name(&out);
    out.finish(w)?;
    eprintln!(
        "rendered {} to {}: {} rows, {} drawables, {} shadows, {} cells drawn from their summary",
        shown(input),
        shown_out,
        drawn.rows,
        drawn.drawables,
        drawn.shadows,
        drawn.summarised
    );
    Ok(())
}

/// The fresh wait index beside `trace`, or why there is none to use.
fn beside(trace: &Path) -> Result<WaitIndex, String> {
    let path = index_path(trace);
    match WaitIndex::open_fresh(&path, trace) {
        Ok(ix) => {
            eprintln!("render --waits: using the wait index {}", shown(&path));
            Ok(ix)
        }
        Err(mpelog::waits::Error::Io { source, .. })
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            Err(format!("no wait index {}", shown(&path)))
        }
        Err(e) => Err(format!("{} not used ({e})", shown(&path))),
    }
}

/// The wait index of a SLOG-2 file, from one pass of the analysis.
fn analyse<R: std::io::Read + std::io::Seek>(
    r: &mut slog2_format::Slog2Reader<R>,
    path: &Path,
) -> CliResult<WaitIndex> {
    let opts = mpelog::analysis::Options::default().record(true);
    let mut report = mpelog::analysis::slog2(r, &opts).map_err(CliError::slog2(path))?;
    Ok(WaitIndex::from_report(&mut report)
        .unwrap_or_else(|| WaitIndex::new(vec![], vec![], vec![], (report.from, report.to), 0, 64)))
}
