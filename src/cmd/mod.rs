//! One module per subcommand.

pub mod alog;
pub mod analyze;
pub mod annotate;
pub mod annotation;
pub mod check;
pub mod compare_text;
pub mod convert;
pub mod export;
pub mod filter;
pub mod info;
pub mod otf2;
pub mod print;
pub mod raster;
pub mod render;
pub mod repair;
pub mod serve;
pub mod slog1;
pub mod stats;
pub mod synth;
pub mod window;

use crate::error::{CliError, CliResult};
use mpelog::trace::Step;
use std::fs::File;
use std::path::{Path, PathBuf};

/// The URL of a remote SLOG-2 file (`http://` or `https://`, as `mpelog
/// serve`, any static web server that answers Range requests and object
/// stores give it), if `path` is one.
pub fn url(path: &Path) -> Option<&str> {
    path.to_str().filter(|p| {
        let p = p.get(..8).unwrap_or(p).to_ascii_lowercase();
        p.starts_with("http://") || p.starts_with("https://")
    })
}

/// Opens the remote file at `url` ([`mpelog::remote::HttpFile`], with the
/// settings of the environment).
pub fn open_http(url: &str) -> CliResult<mpelog::remote::HttpFile> {
    Ok(mpelog::remote::HttpFile::open(url)?)
}

/// Opens the input `path` (a path, `-` or a URL; `trace` names the trace of
/// an annotation not named after it) as a [`mpelog::Trace`]: the one
/// detection and opening of the command line. A one-pass read shows a
/// progress bar on a terminal.
pub fn trace(path: &Path, trace: Option<&Path>) -> CliResult<mpelog::Trace> {
    let mut t = mpelog::Trace::open_with_trace(path, trace).map_err(CliError::from)?;
    let bar = crate::progress::bytes_bar(0, "reading");
    t.set_progress(Box::new(move |step| match step {
        Step::Read { at, total } => {
            bar.set_length(total);
            bar.set_position(at);
        }
        Step::Sorted { drawables, runs } => {
            bar.finish_and_clear();
            if runs > 0 {
                eprintln!(
                    "put {drawables} drawables in time order through {runs} sorted runs in a temporary file (--sort-memory)"
                );
            }
        }
        _ => {}
    }));
    Ok(t)
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

/// An input, opened: where every command starts ([`input`], [`local_input`]).
pub enum Input {
    /// A SLOG-2 file at a URL, read where it is with HTTP Range requests, and
    /// the counts of its requests.
    Remote(
        Box<slog2_format::Slog2Reader<mpelog::remote::HttpFile>>,
        mpelog::remote::Counts,
    ),
    /// A local file of this format: the path given, or the copy of standard
    /// input or of a URL (named as given in messages).
    Local(PathBuf, crate::detect::Format),
}

/// Opens the input `path` (a path, `-` or a URL) for a command that reads a
/// remote SLOG-2 file where it is: such a file is read with Range requests,
/// any other trace at a URL through a local copy (the typed `NotSlog2` error
/// says which, so a SLOG-2 URL costs no extra request).
pub fn input(path: &Path) -> CliResult<Input> {
    let local = |path| local_input(path).map(|(p, f)| Input::Local(p, f));
    let Some(url) = url(path) else {
        return local(path);
    };
    let f = open_http(url)?;
    let counts = f.counts();
    match slog2_format::Slog2Reader::new(f) {
        Ok(r) => Ok(Input::Remote(Box::new(r), counts)),
        Err(slog2_format::Error::NotSlog2 { .. }) => local(path),
        Err(e) => Err(CliError::slog2(path)(e)),
    }
}

/// Opens the input `path` (a path, `-` or a URL) as a local file, and names
/// its format: the one detection of the command line.
pub fn local_input(path: &Path) -> CliResult<(PathBuf, crate::detect::Format)> {
    let path = local(path)?;
    let format = crate::detect::detect(&path)?;
    Ok((path, format))
}

/// The local file to read for the input `path`: itself, a copy of standard
/// input for `-`, or a downloaded copy of a URL (for the commands that read
/// local files; messages name the URL).
pub fn local(path: &Path) -> CliResult<std::path::PathBuf> {
    match url(path) {
        Some(url) => Ok(mpelog::input::download(url)?),
        None => Ok(crate::input::resolve(path)?),
    }
}

/// Opens an input file for streaming (blocks are read whole, so no extra buffering).
pub fn open(path: &Path) -> CliResult<(File, u64)> {
    let f = File::open(path).map_err(CliError::io(path))?;
    let len = f.metadata().map_err(CliError::io(path))?.len();
    Ok((f, len))
}
