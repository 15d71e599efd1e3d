//! `mpelog render`: a picture of a time window ([`mpelog::render`]) as SVG, or
//! as PNG rasterised from the same SVG, written atomically.

use crate::detect::{detect, Format};
use crate::error::{CliError, CliResult};
use crate::input::shown;
use crate::output::Output;
use mpelog::render::{svg, Error, Options};
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
    let copy;
    let input = match super::url(input).map(super::open_url).transpose()? {
        // A remote SLOG-2 file, read with Range requests.
        Some(super::Remote::Slog2(mut r, _)) => {
            let out = Output::create(output, &[], false)?;
            let (text, drawn) = svg(&mut r, opts).map_err(|e| match e {
                Error::Slog2(e) => CliError::slog2(input)(e),
                e => CliError::Render(e),
            })?;
            return write(out, output, png, text, drawn, input);
        }
        Some(super::Remote::Copy(c)) => {
            copy = c;
            &copy
        }
        None => input,
    };
    let out = Output::create(output, &[input], false)?;
    let input = &super::local(input)?;
    let dir;
    let slog2 = match detect(input)? {
        Format::Slog2 | Format::Slog2Compressed => input.to_path_buf(),
        format => {
            // An annotation is drawn as the trace it annotates (opened with it,
            // so a stale one is refused); any trace is converted once into a
            // temporary SLOG-2 file.
            let trace = match format {
                Format::Annotation => super::annotation::open(input, None)?.1,
                _ => input.to_path_buf(),
            };
            dir = tempfile::tempdir().map_err(CliError::io(Path::new("TMPDIR")))?;
            super::convert::to_temp_slog2(&trace, dir.path(), "converted.slog2")?
        }
    };
    let (file, _) = super::open(&slog2)?;
    let mut r = slog2_format::Slog2Reader::new(std::io::BufReader::new(file))
        .map_err(CliError::slog2(&slog2))?;
    let (text, drawn) = svg(&mut r, opts).map_err(|e| match e {
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
