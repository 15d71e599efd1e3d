//! `mpelog print`: every record, one line each ([`mpelog::Trace::print`]),
//! or the tree of a SLOG-2 file ([`mpelog::Trace::print_tree`]).

use crate::error::{CliError, CliResult};
use mpelog::trace::Error;
use std::io::{BufWriter, Write};
use std::path::Path;

/// Runs `mpelog print`, writing to stdout; `tree` is `--tree`'s lowest depth.
pub fn run(path: &Path, tree: Option<i16>) -> CliResult {
    let mut t = super::open_trace(path, None)?;
    let format = t.format();
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let res = match tree {
        Some(depth) => t.print_tree(depth, &mut out),
        None => t.print(&mut out),
    }
    .and_then(|()| {
        out.flush().map_err(|source| Error::Io {
            path: mpelog::trace::OUTPUT.into(),
            source,
        })
    });
    match res {
        Ok(()) => Ok(()),
        // A closed pipe (`mpelog print x | head`) is not an error.
        Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(Error::Io { path, source }) if path == Path::new(mpelog::trace::OUTPUT) => {
            Err(CliError::io(Path::new("<stdout>"))(source))
        }
        Err(Error::Unsupported { what, .. }) => Err(CliError::Usage(what)),
        Err(e) => Err(super::failed(format)(e)),
    }
}
