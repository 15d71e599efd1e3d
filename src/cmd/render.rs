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
    if let Some(url) = super::url(input) {
        // A remote SLOG-2 file, read with Range requests.
        let out = Output::create(output, &[], false)?;
        let mut r = super::open_remote(url)?;
        let (text, drawn) = svg(&mut r, opts).map_err(|e| match e {
            Error::Slog2(e) => CliError::slog2(input)(e),
            e => CliError::Usage(e.to_string()),
        })?;
        return write(out, output, png, text, drawn, input);
    }
    let out = Output::create(output, &[input], false)?;
    let input = &crate::input::resolve(input)?;
    let dir;
    let slog2 = match detect(input)? {
        Format::Slog2 => input.to_path_buf(),
        Format::Annotation => {
            return Err(CliError::Usage(
                "render draws SLOG-2 files: render the annotated trace itself".into(),
            ))
        }
        _ => {
            dir = tempfile::tempdir().map_err(CliError::io(Path::new("TMPDIR")))?;
            let tmp = super::convert::to_temp_slog2(input, dir.path(), "converted.slog2")?;
            tmp
        }
    };
    let (file, _) = super::open(&slog2)?;
    let mut r = slog2_format::Slog2Reader::new(std::io::BufReader::new(file))
        .map_err(CliError::slog2(&slog2))?;
    let (text, drawn) = svg(&mut r, opts).map_err(|e| match e {
        Error::Slog2(e) => CliError::slog2(&slog2)(e),
        e => CliError::Usage(e.to_string()),
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
