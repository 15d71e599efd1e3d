//! Input paths: `-` is standard input, and a URL can be read whole.
//!
//! Standard input is copied to a temporary file first (readers seek, and detection
//! reads the start twice) in the temporary directory (`TMPDIR`), and so is a
//! remote file given to a command that reads local files ([`download`]); a
//! copy is removed at exit and on a signal, and one left by a killed run is
//! removed by the next run that makes one. Messages name it `-` or the URL,
//! never the copy's path ([`shown`]).
//!
//! ```
//! use std::path::Path;
//! // A path other than `-` is read as it is.
//! let p = mpelog::input::resolve(Path::new("trace.clog2"))?;
//! assert_eq!(p, Path::new("trace.clog2"));
//! # Ok::<(), mpelog::output::Error>(())
//! ```

mod read_ahead;

pub use crate::names::shown;
use crate::output::{io, Error, Result};
use crate::signals;
pub use read_ahead::ReadAhead;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The name of copies of standard input: `.mpelog-stdin-PID-XXXXXX.tmp`.
const STDIN_PREFIX: &str = ".mpelog-stdin-";

/// The name of copies of remote files: `.mpelog-url-PID-XXXXXX.tmp`.
const URL_PREFIX: &str = ".mpelog-url-";

/// The path to read for the input `path`: itself, or for `-` a copy of standard
/// input (made once; `-` given twice reads the same copy).
///
/// # Errors
///
/// [`Error::Io`] naming `-` when standard input cannot be read or its copy
/// written.
///
/// ```
/// use std::path::Path;
/// let p = Path::new("trace.clog2");
/// assert_eq!(mpelog::input::resolve(p)?, p); // a path is read as it is
/// # Ok::<(), mpelog::output::Error>(())
/// ```
pub fn resolve(path: &Path) -> Result<PathBuf> {
    if !crate::output::is_dash(path) {
        return Ok(path.to_path_buf());
    }
    if let Some(p) = crate::names::copy_of("-") {
        return Ok(p);
    }
    let stdin_err = io(Path::new("-"));
    let dir = std::env::temp_dir();
    crate::output::remove_stale(&dir, STDIN_PREFIX);
    let tmp = crate::output::temp_in(&dir, STDIN_PREFIX).map_err(io(Path::new("-")))?;
    let (mut file, tmp_path) = tmp.keep().map_err(|e| Error::Io {
        path: PathBuf::from("-"),
        source: e.error,
    })?;
    signals::register(&tmp_path);
    let copied = std::io::copy(&mut std::io::stdin().lock(), &mut file);
    crate::names::register(&tmp_path, "-".to_string());
    copied.map_err(stdin_err)?;
    Ok(tmp_path)
}

/// A local copy of the remote file at `url` (read with
/// [`crate::remote::HttpFile`], with the settings of the environment), for
/// the commands that read a local file; made once per URL, and named by the
/// URL in messages.
///
/// # Errors
///
/// The [`crate::remote::Error`] of opening or reading the URL, or
/// [`crate::remote::Error::Download`] when the copy cannot be written.
///
/// ```
/// // Runs without a network: the URL is refused before any request.
/// let e = mpelog::input::download("ftp://example.org/trace.clog2").unwrap_err();
/// assert!(matches!(e, mpelog::remote::Error::BadUrl { .. }));
/// ```
pub fn download(url: &str) -> std::result::Result<PathBuf, crate::remote::Error> {
    let name = crate::remote::shown_url(url);
    if let Some(p) = crate::names::copy_of(&name) {
        return Ok(p);
    }
    let mut remote = crate::remote::HttpFile::open(url)?;
    let failed = |source| crate::remote::Error::Download {
        url: url.to_string(),
        source,
    };
    let dir = std::env::temp_dir();
    crate::output::remove_stale(&dir, URL_PREFIX);
    let tmp = crate::output::temp_in(&dir, URL_PREFIX).map_err(failed)?;
    let (mut file, tmp_path) = tmp.keep().map_err(|e| failed(e.error))?;
    signals::register(&tmp_path);
    crate::names::register(&tmp_path, name);
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = match std::io::Read::read(&mut remote, &mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(crate::remote::Error::from_io(url, e)),
        };
        file.write_all(&buf[..n]).map_err(failed)?;
    }
    Ok(tmp_path)
}

/// Removes the copies of inputs (standard input, remote files) made so far.
///
/// ```no_run
/// // Standard input, copied to a temporary file to be read twice.
/// let copy = mpelog::input::resolve(std::path::Path::new("-"))?;
/// assert!(copy.exists());
/// mpelog::input::cleanup();
/// assert!(!copy.exists());
/// # Ok::<(), mpelog::output::Error>(())
/// ```
pub fn cleanup() {
    for p in crate::names::copies() {
        let _ = std::fs::remove_file(&p);
        signals::unregister(&p);
    }
}

/// A reader that tells `progress` how many bytes it has given so far.
///
/// ```
/// use std::io::Read;
/// let mut seen = 0;
/// let mut told = |at| seen = at;
/// let mut r = mpelog::input::Counted::new(&b"hello"[..], &mut told);
/// let mut s = String::new();
/// r.read_to_string(&mut s)?;
/// drop(r);
/// assert_eq!(seen, 5);
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct Counted<'a, R> {
    inner: R,
    at: u64,
    progress: &'a mut dyn FnMut(u64),
}

impl<'a, R> Counted<'a, R> {
    /// `inner`, telling `progress` the bytes read after each read.
    pub fn new(inner: R, progress: &'a mut dyn FnMut(u64)) -> Counted<'a, R> {
        Counted {
            inner,
            at: 0,
            progress,
        }
    }
}

impl<R: std::io::Read> std::io::Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.at += n as u64;
        (self.progress)(self.at);
        Ok(n)
    }
}
