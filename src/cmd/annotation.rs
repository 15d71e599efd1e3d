//! Opening an annotation file together with the trace it annotates.

use crate::error::{CliError, CliResult};
use mpelog_annotate::Annotation;
use std::fs::File;
use std::path::{Path, PathBuf};

/// The trace an annotation belongs to: `trace` if given, else the annotation's
/// path without its `.idx` extension.
pub fn trace_path(idx: &Path, trace: Option<&Path>) -> CliResult<PathBuf> {
    if let Some(t) = trace {
        return Ok(t.to_path_buf());
    }
    match idx.extension() {
        Some(e) if e == "idx" => Ok(idx.with_extension("")),
        _ => Err(CliError::Usage(format!(
            "{}: cannot tell which trace this annotation belongs to: name it TRACE.clog2.idx or give --trace TRACE.clog2",
            idx.display()
        ))),
    }
}

/// Attributes an annotation error to the annotation or to the trace.
pub fn error(idx: &Path, trace: &Path, e: mpelog_annotate::Error) -> CliError {
    use mpelog_annotate::Error as E;
    let path = match &e {
        E::Clog2(_) | E::Io { file: "trace", .. } => trace,
        _ => idx,
    };
    CliError::BadAnnotation {
        path: path.to_path_buf(),
        source: e,
    }
}

/// Opens both files read-only (no read buffers: every block and range is read
/// with one read, so the counters are what was read).
pub fn open(idx: &Path, trace: Option<&Path>) -> CliResult<(Annotation<File, File>, PathBuf)> {
    let given = trace.is_some();
    let trace = trace_path(idx, trace)?;
    if !given && !trace.exists() {
        return Err(CliError::Usage(format!(
            "{}: the trace it annotates should be {}, which does not exist; give --trace TRACE.clog2",
            idx.display(),
            trace.display()
        )));
    }
    let a = File::open(idx).map_err(CliError::io(idx))?;
    let t = File::open(&trace).map_err(CliError::io(&trace))?;
    let ann = Annotation::new(a, t).map_err(|e| error(idx, &trace, e))?;
    Ok((ann, trace))
}
