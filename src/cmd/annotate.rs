//! `mpelog annotate`: index a CLOG2 trace with an annotation file, without
//! touching the trace.

use crate::detect::Format;
use crate::error::{CliError, CliResult};
use crate::input::shown;
use crate::output::Output;
use crate::progress::bytes_bar;
use mpelog_annotate::{annotate, AnnotateOptions};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Runs `mpelog annotate`.
pub fn run(trace: &Path, output: Option<&Path>, leaf_bytes: u32, children: u16) -> CliResult {
    if children < 2 {
        return Err(CliError::Usage(format!(
            "--children {children}: a node needs at least 2 children"
        )));
    }
    if leaf_bytes == 0 {
        return Err(CliError::Usage("--leaf-bytes must be at least 1".into()));
    }
    if crate::output::is_dash(trace) || mpelog::trace::url(trace).is_some() {
        return Err(CliError::Usage(format!(
            "annotate: {} is not a local file; annotate indexes a local CLOG2 trace, which the annotation names by path",
            mpelog::trace::url(trace).map_or_else(|| "-".to_string(), mpelog::remote::shown_url)
        )));
    }
    let output: PathBuf = match output {
        Some(o) => o.to_path_buf(),
        None => {
            let mut s = trace.as_os_str().to_owned();
            s.push(".idx");
            PathBuf::from(s)
        }
    };
    // The trace is opened read-only and never written; it can never be the output.
    let out = Output::create(&output, &[trace], false)?;
    match mpelog::trace::locate(trace)?.1 {
        Format::Clog2 => {}
        other => {
            return Err(CliError::Unrecognized {
                path: trace.to_path_buf(),
                message: format!(
                    "this is a {} file; annotate indexes CLOG2 traces",
                    other.name()
                ),
            })
        }
    }
    let started = std::time::Instant::now();
    // The trace is opened read-only and never written.
    let (mut file, len) = super::open(trace)?;
    let mut preamble = vec![0u8; 1024.min(len as usize)];
    file.read_exact(&mut preamble)
        .map_err(CliError::io(trace))?;
    let (file, _) = super::open(trace)?;
    let bar = bytes_bar(len, "annotating");
    let mut r = clog2_format::Clog2Reader::new(file).map_err(CliError::clog2(trace))?;
    let opts = AnnotateOptions::default().tree(
        slog2_format::write::TreeOptions::default()
            .leaf_bytes(leaf_bytes)
            .children(children),
    );
    let opts = opts.trace(len, &preamble);
    let (w, stats) = annotate(&mut r, out.writer()?, opts, |at| bar.set_position(at))
        .map_err(|e| super::annotation::error(&output, trace, e))?;
    bar.finish_and_clear();
    out.finish(w)?;
    let secs = started.elapsed().as_secs_f64();
    eprintln!(
        "annotated {} ({} bytes, {} records) in {:.2} s, {:.1} MB/s: {} written, {} bytes ({:.3}% of the trace)",
        shown(trace),
        stats.input_bytes,
        stats.records,
        secs,
        stats.input_bytes as f64 / 1e6 / secs.max(1e-9),
        shown(&output),
        stats.bytes,
        100.0 * stats.bytes as f64 / len.max(1) as f64
    );
    eprintln!(
        "{} leaves, {} nodes above them, depth {}; {} drawables, {} of them stored in the annotation (their ends lie in different leaves)",
        stats.leaves, stats.nodes, stats.depth, stats.drawables, stats.stored
    );
    Ok(())
}
