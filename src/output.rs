//! Output files written atomically, and progress bars for long work.

use crate::error::{CliError, CliResult};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::BufWriter;
use std::path::Path;
use tempfile::NamedTempFile;

/// A temporary file beside `path`; [`commit`] renames it over `path`. Dropping it
/// without committing deletes it, so `path` is never half-written.
pub fn temp_beside(path: &Path) -> CliResult<NamedTempFile> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    tempfile::Builder::new()
        .prefix(".mpelog-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(CliError::io(path))
}

/// A buffered writer over the temporary file.
pub fn buffered(tmp: &NamedTempFile, path: &Path) -> CliResult<BufWriter<std::fs::File>> {
    Ok(BufWriter::with_capacity(
        1 << 20,
        tmp.reopen().map_err(CliError::io(path))?,
    ))
}

/// Renames the finished temporary file to `path`, with the usual `rw-r--r--`
/// permissions (temporary files are created private).
pub fn commit(tmp: NamedTempFile, path: &Path) -> CliResult {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))
            .map_err(CliError::io(path))?;
    }
    tmp.as_file().sync_all().map_err(CliError::io(path))?;
    tmp.persist(path).map_err(|e| CliError::Io {
        path: path.to_path_buf(),
        source: e.error,
    })?;
    Ok(())
}

/// A byte-counting progress bar on stderr, drawn only when stderr is a terminal.
pub fn bytes_bar(total: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "{msg} [{bar:40}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    bar
}
