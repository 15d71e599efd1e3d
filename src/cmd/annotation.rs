//! Naming the file at fault in an annotation's errors: the annotation or
//! the trace it annotates.

use crate::error::CliError;
use std::path::Path;

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
