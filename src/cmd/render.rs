//! `mpelog render`: a picture of a time window ([`mpelog::render`]) as SVG, or
//! as PNG rasterised from the same SVG, written atomically.

use crate::error::{CliError, CliResult};
use crate::input::shown;
use crate::output::Output;
use mpelog::render::{svg_with, Error, Options};
use mpelog::trace::TreeMut;
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
    let inputs = if mpelog::trace::url(input).is_some() {
        &[][..]
    } else {
        &local[..]
    };
    let out = Output::create(output, inputs, false)?;
    let mut opened = super::trace(input, None)?;
    let remote = opened.requests().is_some();
    // An annotation is drawn as the trace it annotates (opened with it, so a
    // stale one is refused); any trace but SLOG-2 is converted once into a
    // temporary SLOG-2 file.
    let mut annotated = match opened.annotated() {
        Some(trace) => Some(super::trace(trace, None)?),
        None => None,
    };
    // The input as messages name it, and the trace a wait index beside it
    // would be of (none for a remote file).
    let named = match remote {
        true => input.to_path_buf(),
        false => opened.local_path()?,
    };
    let t = annotated.as_mut().unwrap_or(&mut opened);
    let traced = match remote {
        true => None,
        false => Some(t.local_path()?),
    };
    let format = t.format();
    let r = match t.tree_mut().map_err(super::failed(format))? {
        TreeMut::Slog2(r) => r,
        _ => unreachable!("an annotation's trace has no annotation tree"),
    };
    let index = match (opts.waits, &traced) {
        (None, _) => None,
        (Some(_), None) => {
            eprintln!(
                "render --waits: {} is remote: analysing it in one pass",
                shown(input)
            );
            Some(analyse(r, input)?)
        }
        (Some(_), Some(traced)) => Some(beside(traced).map_or_else(
            |why| {
                eprintln!(
                    "render --waits: {why}: analysing {} in one pass",
                    shown(traced)
                );
                analyse(r, &named)
            },
            Ok,
        )?),
    };
    let (text, drawn) = svg_with(r, opts, index.as_ref()).map_err(|e| match e {
        Error::Slog2(e) => CliError::slog2(&named)(e),
        e => CliError::Render(e),
    })?;
    write(out, output, png, text, drawn, &named)
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
