//! Naming the format of a local input: the workspace's one detection
//! ([`mpelog_conformance::detect`], which `mpelog check` and the CLI use), over
//! a file's first bytes or, for a directory, its OTF2 anchor file's; and the
//! local file of any input ([`local_copy`], [`locate`]) for the tools that
//! read a file whole (`info`, `print`, `check`, `convert`, `filter`).

use super::error::{Error, Result};
use mpelog_conformance::Format;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The local file to read for the input `path_or_url`: itself, a copy of
/// standard input for `-`, or a downloaded copy of a URL (made once, removed
/// by [`crate::input::cleanup`]; messages name the input as given).
///
/// # Errors
///
/// [`Error::Io`] when standard input cannot be copied, [`Error::Remote`]
/// when the URL cannot be read.
///
/// ```
/// let p = std::path::Path::new("trace.clog2");
/// assert_eq!(mpelog::trace::local_copy(p)?, p); // a path is read as it is
/// # Ok::<(), mpelog::trace::Error>(())
/// ```
pub fn local_copy(path_or_url: impl AsRef<Path>) -> Result<PathBuf> {
    let given = path_or_url.as_ref();
    match super::url(given) {
        Some(u) => Ok(crate::input::download(u)?),
        None => crate::input::resolve(given).map_err(|e| match e {
            crate::output::Error::Io { path, source } => Error::Io { path, source },
            e => Error::Io {
                path: given.to_path_buf(),
                source: std::io::Error::other(e.to_string()),
            },
        }),
    }
}

/// The local file of the input `path_or_url` ([`local_copy`]) and its
/// format ([`detect`]): what a tool that reads the file whole starts from.
///
/// # Errors
///
/// As [`local_copy`] and [`detect`].
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("t.clog2");
/// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
/// let (local, format) = mpelog::trace::locate(&path)?;
/// assert_eq!((local, format.name()), (path, "CLOG2"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn locate(path_or_url: impl AsRef<Path>) -> Result<(PathBuf, Format)> {
    let local = local_copy(path_or_url)?;
    let format = detect(&local)?;
    Ok((local, format))
}

/// Reads the start of `path` and names its format. A directory is an OTF2
/// archive's when it holds an anchor file
/// ([`otf2_format::archive::find_anchor`]), whose start is read instead.
///
/// # Errors
///
/// [`Error::Io`] when the file cannot be read, [`Error::Unrecognized`] when
/// no format matches.
///
/// ```
/// use mpelog_conformance::Format;
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("t.clog2");
/// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
/// assert_eq!(mpelog::trace::detect(&path)?, Format::Clog2);
/// std::fs::write(&path, b"hello")?;
/// assert_eq!(mpelog::trace::detect(&path).unwrap_err().kind(), "unrecognized");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn detect(path: &Path) -> Result<Format> {
    let mut head = Vec::with_capacity(1024);
    let file = match path.is_dir() {
        true => otf2_format::archive::find_anchor(path).ok_or_else(|| Error::Unrecognized {
            path: path.to_path_buf(),
            message: "a directory that holds no OTF2 anchor file (`traces.otf2`, or one `*.otf2` file); give a trace file or an OTF2 archive".into(),
        })?,
        false => path.to_path_buf(),
    };
    std::fs::File::open(&file)
        .and_then(|f| f.take(1024).read_to_end(&mut head))
        .map_err(Error::io(path))?;
    if let Some(format) = mpelog_conformance::detect(&head) {
        return Ok(format);
    }
    let shown: String = String::from_utf8_lossy(&head[..head.len().min(16)])
        .chars()
        .map(|c| if c.is_control() { '.' } else { c })
        .collect();
    Err(Error::Unrecognized {
        path: path.to_path_buf(),
        message: format!(
            "not a trace format mpelog knows (it starts with {shown:?}; expected a CLOG2 preamble \"CLOG-02.xx\", a SLOG-2 header \"SLOG 2.0.x\", an old CLOG record header, ALOG text, a SLOG-1 header or an OTF2 anchor file)"
        ),
    })
}
