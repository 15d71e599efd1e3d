//! One module per subcommand.

pub mod analyze;
pub mod annotate;
pub mod annotation;
pub mod check;
pub mod compare_text;
pub mod convert;
pub mod export;
pub mod filter;
pub mod form;
pub mod info;
pub mod print;
pub mod raster;
pub mod render;
pub mod repair;
pub mod serve;
pub mod stats;
pub mod synth;
pub mod window;

use crate::error::{CliError, CliResult};
use mpelog::trace::Step;
use std::fs::File;
use std::path::Path;

/// Opens the input `path` (a path, `-` or a URL; `trace` names the trace of
/// an annotation not named after it) as a [`mpelog::Trace`]: the one
/// detection and opening of the command line. A one-pass read shows a
/// progress bar on a terminal.
pub fn open_trace(path: &Path, trace: Option<&Path>) -> CliResult<mpelog::Trace> {
    let mut t = mpelog::Trace::open_with_trace(path, trace)?;
    let (given, format) = (path.to_path_buf(), t.format());
    let bar = crate::progress::bytes_bar(0, "reading");
    t.set_progress(Box::new(move |step| match step {
        Step::Read { at, total } => {
            bar.set_length(total);
            bar.set_position(at);
        }
        Step::Events { at } => crate::progress::count_events(&bar, at),
        Step::Sorted { drawables, runs } => {
            bar.finish_and_clear();
            if runs > 0 {
                eprintln!(
                    "put {drawables} drawables in time order through {runs} sorted runs in a temporary file (--sort-memory)"
                );
            }
        }
        Step::Converted(stats) => {
            eprintln!(
                "converted {} ({}) to a temporary SLOG-2 file",
                crate::input::shown(&given),
                format.name()
            );
            eprintln!("{}", mpelog::convert::tree_line(&stats.tree));
            // An OTF2 archive's lines, as `convert` prints them; the others'
            // dropped events against MPE's Java converter's count.
            match &stats.otf2 {
                Some(counts) => {
                    for line in mpelog::convert::otf2_lines(counts, &stats.unmatched) {
                        eprintln!("{line}");
                    }
                }
                None => eprintln!(
                    "{}",
                    mpelog::convert::unmatched_line(&stats.unmatched, java(format))
                ),
            }
        }
        _ => {}
    }));
    Ok(t)
}

/// The name of the Java converter of MPE for `format` (what the unmatched
/// line compares its count with).
fn java(format: crate::detect::Format) -> &'static str {
    match format {
        crate::detect::Format::Clog => "clogTOslog2",
        _ => "clog2TOslog2",
    }
}

/// The CLI's error for an error of `trace` (`format`'s: an old CLOG file's
/// errors never suggest `mpelog repair`, which reads CLOG2).
pub fn failed(format: crate::detect::Format) -> impl FnOnce(mpelog::trace::Error) -> CliError {
    move |e| match (format, e) {
        (crate::detect::Format::Clog, mpelog::trace::Error::Clog2 { path, source }) => {
            CliError::input(&path)(source)
        }
        (_, e) => CliError::from(e),
    }
}

/// Opens an input file for streaming (blocks are read whole, so no extra buffering).
pub fn open(path: &Path) -> CliResult<(File, u64)> {
    let f = File::open(path).map_err(CliError::io(path))?;
    let len = f.metadata().map_err(CliError::io(path))?.len();
    Ok((f, len))
}
