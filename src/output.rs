//! Where a command's output goes, written so that the user's data is never lost.
//!
//! The rules (the README and `mpelog help convert` say the same):
//!
//! * An output is never an input: before anything is read, an output that is the
//!   same file as an input (the same path, another path, a hard link or a symlink
//!   to it: compared by device and inode, never by name) is refused.
//! * A regular output is built in a temporary file beside it and renamed over it
//!   when complete (after `fsync`), so it is either the old file or the new one,
//!   never half-written. A failed run leaves nothing behind.
//! * An output that is a symlink stays one: the temporary file is made beside the
//!   link's final target and renamed over the target.
//! * `-` is standard output. Character devices, FIFOs and sockets (and the
//!   `/proc` links behind `/dev/stdout`) are opened and written directly, never
//!   renamed over. Formats that seek back while writing (SLOG-2, annotations) are
//!   built in an unnamed temporary file first and copied out when complete.
//! * Temporary files are named `.NAME.mpelog-PID-XXXXXX.tmp` beside NAME. On
//!   SIGINT, SIGTERM or SIGHUP they are removed before exit (status 130, 143,
//!   129). One left by a run that was killed outright (SIGKILL, power loss) is
//!   removed by the next run that writes the same output, once its process is
//!   gone.
//!
//! ```
//! use mpelog::output::{Error, Output};
//! use std::io::Write;
//! let dir = tempfile::tempdir().unwrap();
//! let input = dir.path().join("trace.clog2");
//! std::fs::write(&input, b"old").unwrap();
//! // Writing over an input is refused before anything is written.
//! assert!(matches!(Output::create(&input, &[&input], false), Err(Error::SameFile { .. })));
//! // Any other output appears whole, or not at all.
//! let path = dir.path().join("trace.slog2");
//! let out = Output::create(&path, &[&input], false)?;
//! let mut w = out.writer()?;
//! w.write_all(b"new bytes").unwrap();
//! out.finish(w)?;
//! assert_eq!(std::fs::read(&path).unwrap(), b"new bytes");
//! # Ok::<(), Error>(())
//! ```

use crate::names::shown;
use crate::signals;
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use tempfile::NamedTempFile;

/// Why an output (or the copy of standard input) cannot be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be opened, read or written.
    #[error("{}: {source}", shown(.path))]
    Io {
        /// The file, as named.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The output is one of the inputs: writing it would destroy the input.
    #[error("{}: this output is the input {} (the same file); name another output", shown(.output), shown(.input))]
    SameFile {
        /// The output as named.
        output: PathBuf,
        /// The input it is.
        input: PathBuf,
    },
    /// The output cannot be written there (a directory, a symlink loop).
    #[error("{}: {message}", shown(.path))]
    Output {
        /// The output as named.
        path: PathBuf,
        /// Why.
        message: String,
    },
}

/// A `Result` whose error is [`Error`].
pub type Result<T = (), E = Error> = std::result::Result<T, E>;

/// Wraps an I/O error on `path`.
pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The writer commands write their output through: buffered, seekable.
pub type OutWriter = BufWriter<File>;

/// How many symlinks are followed before giving up (as the kernel's ELOOP).
const MAX_LINKS: usize = 40;

/// A planned output: where the bytes go while they are written, and where they go
/// when [`Output::commit`] is called. Dropping an `Output` without committing
/// removes its temporary file.
#[derive(Debug)]
pub struct Output {
    /// The path the user named (for messages); `-` for standard output.
    shown: PathBuf,
    how: How,
}

#[derive(Debug)]
enum How {
    /// A temporary file beside `target`, renamed over it at the end.
    Rename { tmp: NamedTempFile, target: PathBuf },
    /// An unnamed temporary file, copied to `dest` at the end.
    Copy { tmp: File, dest: Dest },
}

#[derive(Debug)]
enum Dest {
    Stdout,
    /// A device, FIFO, socket or `/proc` link: opened for writing, never renamed.
    Direct(PathBuf),
}

/// The identity of a file: device and inode.
type FileId = (u64, u64);

fn id_of(m: &std::fs::Metadata) -> FileId {
    (m.dev(), m.ino())
}

/// Whether two identities are the same file: the same inode on the same
/// device (inode numbers repeat across file systems).
fn same_file(a: FileId, b: FileId) -> bool {
    a == b
}

/// Whether `path` names standard input or output.
///
/// ```
/// use mpelog::output::is_dash;
/// use std::path::Path;
/// assert!(is_dash(Path::new("-")));
/// assert!(!is_dash(Path::new("./-")));
/// ```
pub fn is_dash(path: &Path) -> bool {
    path.as_os_str() == "-"
}

impl Output {
    /// Plans the output `path` of a command whose inputs are `inputs`: refuses an
    /// output that is one of the inputs, removes stale temporary files of earlier
    /// killed runs, and creates the temporary file.
    ///
    /// `in_place` allows the output to be the same file as an input, for commands
    /// that read their whole input before writing (`repair`): the rename keeps the
    /// old file whole until the new one is complete.
    ///
    /// # Errors
    ///
    /// [`Error::SameFile`] for an output that is one of the inputs (unless
    /// `in_place`); [`Error::Io`] when the output's folder cannot be read or
    /// the temporary file cannot be made.
    ///
    /// ```
    /// use mpelog::output::{Error, Output};
    /// let dir = tempfile::tempdir().unwrap();
    /// let trace = dir.path().join("t.clog2");
    /// std::fs::write(&trace, b"trace").unwrap();
    /// let link = dir.path().join("link.clog2");
    /// std::os::unix::fs::symlink(&trace, &link).unwrap();
    /// // The same file under another name is still the input.
    /// assert!(matches!(Output::create(&link, &[&trace], false), Err(Error::SameFile { .. })));
    /// // In place (as `repair` writes), nothing changes before the commit,
    /// // and an output never committed leaves nothing behind.
    /// let out = Output::create(&trace, &[&trace], true)?;
    /// assert_eq!(std::fs::read(&trace).unwrap(), b"trace");
    /// drop(out);
    /// assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn create(path: &Path, inputs: &[&Path], in_place: bool) -> Result<Output> {
        if !in_place {
            refuse_same_file(path, inputs)?;
        }
        let how = if is_dash(path) {
            How::Copy {
                tmp: tempfile::tempfile().map_err(io(path))?,
                dest: Dest::Stdout,
            }
        } else {
            match resolve(path)? {
                Resolved::Regular(target) => {
                    if let Some(name) = target.file_name() {
                        remove_stale(dir_of(&target), &temp_prefix(name));
                    }
                    let tmp = temp_beside(&target).map_err(io(path))?;
                    signals::register(tmp.path());
                    How::Rename { tmp, target }
                }
                Resolved::Direct(dest) => How::Copy {
                    tmp: tempfile::tempfile().map_err(io(path))?,
                    dest: Dest::Direct(dest),
                },
            }
        };
        Ok(Output {
            shown: path.to_path_buf(),
            how,
        })
    }

    /// The path the user named, for messages.
    ///
    /// ```
    /// use mpelog::output::Output;
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("out.slog2");
    /// let out = Output::create(&path, &[], false)?;
    /// assert_eq!(out.path(), path); // the name given, not the temporary file's
    /// # Ok::<(), mpelog::output::Error>(())
    /// ```
    pub fn path(&self) -> &Path {
        &self.shown
    }

    /// A buffered writer over the temporary file.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the temporary file cannot be opened again.
    ///
    /// ```
    /// use mpelog::output::Output;
    /// use std::io::Write;
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("out.txt");
    /// let out = Output::create(&path, &[], false)?;
    /// let mut w = out.writer()?;
    /// w.write_all(b"hello").unwrap();
    /// w.flush().unwrap();
    /// assert!(!path.exists()); // the bytes are in a temporary file beside it
    /// assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    /// # Ok::<(), mpelog::output::Error>(())
    /// ```
    pub fn writer(&self) -> Result<OutWriter> {
        let file = match &self.how {
            How::Rename { tmp, .. } => tmp.reopen(),
            How::Copy { tmp, .. } => tmp.try_clone(),
        }
        .map_err(io(&self.shown))?;
        Ok(BufWriter::with_capacity(1 << 20, file))
    }

    /// Flushes `writer` (which must come from [`Output::writer`]) and commits.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the flush fails, and as [`Output::commit`].
    ///
    /// ```
    /// use mpelog::output::Output;
    /// use std::io::Write;
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("out.txt");
    /// let out = Output::create(&path, &[], false)?;
    /// let mut w = out.writer()?;
    /// w.write_all(b"hello").unwrap(); // not flushed: finish does it
    /// out.finish(w)?;
    /// assert_eq!(std::fs::read(&path).unwrap(), b"hello");
    /// assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1); // no temporary file left
    /// # Ok::<(), mpelog::output::Error>(())
    /// ```
    pub fn finish(self, mut writer: OutWriter) -> Result {
        writer.flush().map_err(io(&self.shown))?;
        drop(writer);
        self.commit()
    }

    /// Puts the finished output in place: renames the temporary file over the
    /// target (with the target's permissions if it existed, `rw-r--r--` if not),
    /// or copies it to standard output or the device.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when setting the permissions, the `fsync`, the rename or
    /// the copy fails.
    ///
    /// ```
    /// use mpelog::output::Output;
    /// use std::io::Write;
    /// use std::os::unix::fs::PermissionsExt;
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("out.csv");
    /// std::fs::write(&path, b"old").unwrap();
    /// std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    /// let out = Output::create(&path, &[], false)?;
    /// let mut w = out.writer()?;
    /// w.write_all(b"new").unwrap();
    /// w.flush().unwrap();
    /// drop(w);
    /// assert_eq!(std::fs::read(&path).unwrap(), b"old"); // until the commit
    /// out.commit()?;
    /// assert_eq!(std::fs::read(&path).unwrap(), b"new");
    /// assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    /// # Ok::<(), mpelog::output::Error>(())
    /// ```
    pub fn commit(self) -> Result {
        let shown = self.shown;
        match self.how {
            How::Rename { tmp, target } => {
                let mode = std::fs::metadata(&target)
                    .map(|m| m.mode() & 0o7777)
                    .unwrap_or(0o644);
                use std::os::unix::fs::PermissionsExt;
                tmp.as_file()
                    .set_permissions(std::fs::Permissions::from_mode(mode))
                    .map_err(io(&shown))?;
                tmp.as_file().sync_all().map_err(io(&shown))?;
                let tmp_path = tmp.path().to_path_buf();
                let res = tmp.persist(&target);
                signals::unregister(&tmp_path);
                res.map_err(|e| Error::Io {
                    path: shown.clone(),
                    source: e.error,
                })?;
                Ok(())
            }
            How::Copy { mut tmp, dest } => {
                tmp.seek(SeekFrom::Start(0)).map_err(io(&shown))?;
                let copied = match &dest {
                    Dest::Stdout => {
                        let mut out = std::io::stdout().lock();
                        std::io::copy(&mut tmp, &mut out).and_then(|_| out.flush())
                    }
                    Dest::Direct(p) => std::fs::OpenOptions::new()
                        .write(true)
                        .truncate(true)
                        .open(p)
                        .and_then(|mut f| std::io::copy(&mut tmp, &mut f).map(|_| ())),
                };
                copied.map_err(io(&shown))
            }
        }
    }
}

/// What an output path turned out to be.
enum Resolved {
    /// A regular file (or nothing yet) at this path, symlinks followed.
    Regular(PathBuf),
    /// Something to open and write in place.
    Direct(PathBuf),
}

/// A planned output directory (a Parquet dataset): built in a temporary
/// directory beside it, `.NAME.mpelog-PID-XXXXXX.tmp`, and renamed to its name
/// by [`Dataset::commit`], so it appears whole or not at all. The directory
/// must not exist yet, or be empty (nothing in it is ever replaced). Dropping
/// a `Dataset` without committing removes the temporary directory.
///
/// ```
/// use mpelog::output::Dataset;
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("trace.parquet");
/// let ds = Dataset::create(&path, &[])?;
/// std::fs::write(ds.path().join("part-00000.parquet"), b"PAR1").unwrap();
/// assert!(!path.exists(), "nothing under its name until commit");
/// ds.commit()?;
/// assert!(path.join("part-00000.parquet").exists());
/// // A directory that is not empty is never written into.
/// assert!(Dataset::create(&path, &[]).is_err());
/// # Ok::<(), mpelog::output::Error>(())
/// ```
#[derive(Debug)]
pub struct Dataset {
    shown: PathBuf,
    target: PathBuf,
    tmp: tempfile::TempDir,
}

impl Dataset {
    /// Plans the directory `path` (a trailing `/` is allowed); refuses a path
    /// that is a file, a non-empty directory, or one of `inputs`.
    ///
    /// # Errors
    ///
    /// [`Error::SameFile`] when `path` is one of `inputs`, [`Error::Output`] when it
    /// is a file or a non-empty directory, [`Error::Io`] naming `path` when it cannot be
    /// looked at or the temporary directory beside it cannot be made.
    ///
    /// ```
    /// use mpelog::output::{Dataset, Error};
    /// let dir = tempfile::tempdir().unwrap();
    /// let full = dir.path().join("full");
    /// std::fs::create_dir(&full).unwrap();
    /// std::fs::write(full.join("keep.txt"), b"data").unwrap();
    /// assert!(matches!(Dataset::create(&full, &[]), Err(Error::Output { .. })));
    /// let input = dir.path().join("t.clog2");
    /// assert!(matches!(Dataset::create(&input, &[&input]), Err(Error::SameFile { .. })));
    /// assert!(Dataset::create(&dir.path().join("new"), &[]).is_ok());
    /// assert_eq!(std::fs::read(full.join("keep.txt")).unwrap(), b"data");
    /// ```
    pub fn create(path: &Path, inputs: &[&Path]) -> Result<Dataset> {
        let target: PathBuf = path.components().collect();
        for input in inputs {
            if target == input.components().collect::<PathBuf>() {
                return Err(Error::SameFile {
                    output: path.to_path_buf(),
                    input: input.to_path_buf(),
                });
            }
        }
        match std::fs::symlink_metadata(&target) {
            Ok(m) if m.is_dir() => {
                let mut entries = std::fs::read_dir(&target).map_err(io(path))?;
                if entries.next().is_some() {
                    return Err(Error::Output {
                        path: path.to_path_buf(),
                        message: "is a directory that is not empty; name a new or empty directory for the dataset".into(),
                    });
                }
            }
            Ok(_) => return Err(Error::Output {
                path: path.to_path_buf(),
                message:
                    "exists and is not a directory; name a new or empty directory for the dataset"
                        .into(),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io(path)(e)),
        }
        let name = target.file_name().unwrap_or(std::ffi::OsStr::new("output"));
        let dir = dir_of(&target);
        remove_stale(dir, &temp_prefix(name));
        let tmp = tempfile::Builder::new()
            .prefix(&format!("{}{}-", temp_prefix(name), std::process::id()))
            .suffix(".tmp")
            .tempdir_in(dir)
            .map_err(io(path))?;
        signals::register(tmp.path());
        Ok(Dataset {
            shown: path.to_path_buf(),
            target,
            tmp,
        })
    }

    /// Where to write the files: the temporary directory.
    ///
    /// ```
    /// use mpelog::output::Dataset;
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("parts");
    /// let ds = Dataset::create(&path, &[])?;
    /// assert_ne!(ds.path(), path); // a temporary directory beside it
    /// assert!(ds.path().is_dir());
    /// # Ok::<(), mpelog::output::Error>(())
    /// ```
    pub fn path(&self) -> &Path {
        self.tmp.path()
    }

    /// Makes the directory appear under its name, with everything written in
    /// [`path`](Self::path) (synced first).
    ///
    /// # Errors
    ///
    /// [`Error::Io`] naming the directory when the sync, the removal of the empty
    /// directory in its place, or the rename fails; the temporary directory is then
    /// removed, and what was at the name is left as it was (but for that empty
    /// directory).
    ///
    /// ```
    /// use mpelog::output::Dataset;
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("parts");
    /// let ds = Dataset::create(&path, &[])?;
    /// std::fs::write(ds.path().join("part-0.csv"), b"a,b\n").unwrap();
    /// ds.commit()?;
    /// assert_eq!(std::fs::read(path.join("part-0.csv")).unwrap(), b"a,b\n");
    /// assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1); // nothing else left
    /// # Ok::<(), mpelog::output::Error>(())
    /// ```
    pub fn commit(self) -> Result {
        let shown = self.shown;
        let tmp_path = self.tmp.path().to_path_buf();
        File::open(&tmp_path)
            .and_then(|d| d.sync_all())
            .map_err(io(&shown))?;
        if self.target.is_dir() {
            // Empty (checked at create): rename cannot replace a directory.
            std::fs::remove_dir(&self.target).map_err(io(&shown))?;
        }
        let kept = self.tmp.keep();
        let res = std::fs::rename(&kept, &self.target);
        signals::unregister(&tmp_path);
        if let Err(e) = res {
            let _ = std::fs::remove_dir_all(&kept);
            return Err(io(&shown)(e));
        }
        Ok(())
    }
}

/// Follows `path`'s symlinks to the file they name.
fn resolve(path: &Path) -> Result<Resolved> {
    let mut at = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        let meta = match std::fs::symlink_metadata(&at) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Resolved::Regular(at)),
            Err(e) => return Err(io(path)(e)),
        };
        let ft = meta.file_type();
        if ft.is_symlink() {
            let next = std::fs::read_link(&at).map_err(io(path))?;
            // A link into /proc (as /dev/stdout is) names an open file of some
            // process, not a place to rename into: write through it.
            if next.starts_with("/proc") || at.starts_with("/proc") {
                return Ok(Resolved::Direct(path.to_path_buf()));
            }
            at = match at.parent() {
                Some(dir) if next.is_relative() => dir.join(next),
                _ => next,
            };
            continue;
        }
        if ft.is_dir() {
            return Err(Error::Output {
                path: path.to_path_buf(),
                message: "is a directory; name a file".into(),
            });
        }
        if ft.is_char_device() || ft.is_fifo() || ft.is_socket() || ft.is_block_device() {
            return Ok(Resolved::Direct(path.to_path_buf()));
        }
        return Ok(Resolved::Regular(at));
    }
    Err(Error::Output {
        path: path.to_path_buf(),
        message: format!("more than {MAX_LINKS} levels of symbolic links"),
    })
}

/// Refuses an output that is one of the inputs (by device and inode).
fn refuse_same_file(output: &Path, inputs: &[&Path]) -> Result {
    let out_id = if is_dash(output) {
        // `-o - > input` (stdout redirected to an input file) is caught too.
        stdout_id()
    } else {
        std::fs::metadata(output).ok().map(|m| id_of(&m))
    };
    let Some(out_id) = out_id else {
        return Ok(());
    };
    for input in inputs {
        let Ok(m) = std::fs::metadata(input) else {
            continue;
        };
        // Only files hold data that can be lost; a terminal or pipe given twice is not.
        if m.is_file() && same_file(id_of(&m), out_id) {
            return Err(Error::SameFile {
                output: output.to_path_buf(),
                input: input.to_path_buf(),
            });
        }
    }
    Ok(())
}

/// The device and inode of standard output.
fn stdout_id() -> Option<FileId> {
    use std::os::fd::AsFd;
    let fd = std::io::stdout().as_fd().try_clone_to_owned().ok()?;
    let f = File::from(fd);
    f.metadata().ok().map(|m| id_of(&m))
}

/// The prefix of the temporary files of an output named `name`.
fn temp_prefix(name: &std::ffi::OsStr) -> String {
    format!(".{}.mpelog-", name.to_string_lossy())
}

/// The directory a path is in (`.` for a bare name).
fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// A temporary file beside `target`: `.NAME.mpelog-PID-XXXXXX.tmp`.
fn temp_beside(target: &Path) -> std::io::Result<NamedTempFile> {
    let name = target.file_name().unwrap_or(std::ffi::OsStr::new("output"));
    temp_in(dir_of(target), &temp_prefix(name))
}

/// A temporary file `PREFIXPID-XXXXXX.tmp` in `dir`, the name
/// [`remove_stale`] recognizes.
///
/// # Errors
///
/// The I/O error of creating the file in `dir`.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let tmp = mpelog::output::temp_in(dir.path(), ".x.mpelog-").unwrap();
/// let name = tmp.path().file_name().unwrap().to_string_lossy().into_owned();
/// assert!(name.starts_with(&format!(".x.mpelog-{}-", std::process::id())));
/// assert!(name.ends_with(".tmp"));
/// ```
pub fn temp_in(dir: &Path, prefix: &str) -> std::io::Result<NamedTempFile> {
    tempfile::Builder::new()
        .prefix(&format!("{prefix}{}-", std::process::id()))
        .suffix(".tmp")
        .tempfile_in(dir)
}

/// Removes the temporary files `PREFIXPID-XXXXXX.tmp` in `dir` that killed runs
/// left: ours by name and owner, and whose process no longer runs.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let mine = mpelog::output::temp_in(dir.path(), ".x.mpelog-").unwrap().keep().unwrap().1;
/// // A file of a process that is gone (no PID is this high).
/// let stale = dir.path().join(".x.mpelog-2147483646-abcdef.tmp");
/// std::fs::write(&stale, b"").unwrap();
/// mpelog::output::remove_stale(dir.path(), ".x.mpelog-");
/// assert!(!stale.exists());
/// assert!(mine.exists()); // this process still runs
/// ```
pub fn remove_stale(dir: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    // SAFETY: getuid has no preconditions and cannot fail.
    #[allow(unsafe_code)]
    let uid = unsafe { libc::getuid() };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(rest) = file_name
            .to_str()
            .and_then(|n| n.strip_prefix(prefix))
            .and_then(|n| n.strip_suffix(".tmp"))
        else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        if !(meta.is_file() || meta.is_dir()) || meta.uid() != uid || pid <= 0 || process_alive(pid)
        {
            continue;
        }
        let stale = entry.path();
        let removed = if meta.is_dir() {
            std::fs::remove_dir_all(&stale)
        } else {
            std::fs::remove_file(&stale)
        };
        if removed.is_ok() {
            eprintln!(
                "mpelog: removed {}, left by an earlier run that was killed",
                stale.display()
            );
        }
    }
}

/// Whether a process with this ID exists.
fn process_alive(pid: i32) -> bool {
    if pid as u32 == std::process::id() {
        return true;
    }
    // SAFETY: kill with signal 0 only checks whether the process exists.
    #[allow(unsafe_code)]
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// The text shown for an output path in summaries.
///
/// ```
/// use mpelog::output::Output;
/// let dir = tempfile::tempdir().unwrap();
/// let out = Output::create(&dir.path().join("out.slog2"), &[], false)?;
/// assert!(mpelog::output::name(&out).ends_with("out.slog2"));
/// let stdout = Output::create(std::path::Path::new("-"), &[], false)?;
/// assert_eq!(mpelog::output::name(&stdout), mpelog::names::shown(std::path::Path::new("-")));
/// # Ok::<(), mpelog::output::Error>(())
/// ```
pub fn name(o: &Output) -> String {
    shown(o.path())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_its_device_and_inode() {
        // The same inode number on another file system is another file.
        assert!(
            !same_file((1, 4242), (2, 4242)),
            "inode 4242 on devices 1 and 2 are two files"
        );
        assert!(!same_file((2049, 12), (64769, 12)));
        // The same device and inode is the same file; another inode is not.
        assert!(same_file((1, 4242), (1, 4242)));
        assert!(!same_file((1, 4242), (1, 4243)));
    }

    /// `stat(2)` of `path` by libc itself: (st_dev, st_ino), the identity
    /// the kernel gives, independent of `std`'s metadata.
    #[allow(unsafe_code)]
    fn stat_id(path: &Path) -> FileId {
        use std::os::unix::ffi::OsStrExt;
        let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: a NUL-terminated path and room for one stat structure.
        let rc = unsafe { libc::stat(c.as_ptr(), st.as_mut_ptr()) };
        assert_eq!(rc, 0, "stat {}", path.display());
        // SAFETY: stat succeeded, so it filled the structure.
        let st = unsafe { st.assume_init() };
        (st.st_dev, st.st_ino)
    }

    /// Directories on different file systems where a test may write: the
    /// work tree's and, where the machine has one, a tmpfs.
    fn writable_file_systems() -> Vec<tempfile::TempDir> {
        let mut dirs = vec![tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap()];
        if let Ok(shm) = tempfile::tempdir_in("/dev/shm") {
            dirs.push(shm);
        }
        dirs
    }

    #[test]
    fn real_files_get_their_device_and_inode_on_each_file_system() {
        let dirs = writable_file_systems();
        let mut ids = Vec::new();
        for d in &dirs {
            let a = d.path().join("a");
            std::fs::write(&a, b"a").unwrap();
            let id = id_of(&std::fs::metadata(&a).unwrap());
            assert_eq!(
                id,
                stat_id(&a),
                "{}: the kernel's (device, inode)",
                a.display()
            );
            // A hard link is the same file; a copy is not.
            let link = d.path().join("link");
            std::fs::hard_link(&a, &link).unwrap();
            assert!(refuse_same_file(&link, &[&a]).is_err());
            let copy = d.path().join("copy");
            std::fs::copy(&a, &copy).unwrap();
            assert!(refuse_same_file(&copy, &[&a]).is_ok());
            ids.push((d.path().to_path_buf(), id));
        }
        if ids.len() < 2 {
            eprintln!(
                "one file system only (no /dev/shm): the device is checked against stat alone"
            );
            return;
        }
        let ((da, a), (db, b)) = (&ids[0], &ids[1]);
        assert_ne!(
            a.0,
            b.0,
            "{} and {} are on two file systems",
            da.display(),
            db.display()
        );
        assert!(!same_file(*a, *b));
        // Best effort: a file of the other file system with the same inode
        // number as one made here (tmpfs numbers its inodes from 2, and a
        // root file system's first files have small numbers too) is no input
        // of it.
        let shm = dirs[1].path();
        let small: std::collections::HashMap<u64, PathBuf> = ["/etc", "/usr/lib", "/usr/bin"]
            .iter()
            .filter_map(|d| std::fs::read_dir(d).ok())
            .flatten()
            .flatten()
            .filter_map(|e| Some((e.metadata().ok().filter(|m| m.is_file())?, e.path())))
            .filter(|(m, _)| m.dev() == a.0 && m.ino() < 100_000)
            .map(|(m, p)| (m.ino(), p))
            .collect();
        for k in 0..2000 {
            let f = shm.join(format!("f{k}"));
            std::fs::write(&f, b"").unwrap();
            let ino = std::fs::metadata(&f).unwrap().ino();
            if let Some(other) = small.get(&ino) {
                assert!(
                    refuse_same_file(&f, &[other]).is_ok(),
                    "inode {ino} on two file systems is two files: {} and {}",
                    f.display(),
                    other.display()
                );
                return;
            }
        }
        eprintln!("no file of the same inode number found on both file systems");
    }

    /// A process ID that no longer runs: a child that has exited and been
    /// waited for.
    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    #[test]
    fn a_dataset_never_replaces_an_input_a_file_or_a_full_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        let out = d.join("trace.parquet");
        // The same path as an input, spelt with a trailing slash: refused.
        let spelt = d.join("trace.parquet/");
        let same = Dataset::create(&out, &[spelt.as_path()]);
        assert!(matches!(same, Err(Error::SameFile { .. })), "{same:?}");
        // Another input is no reason to refuse.
        let other = d.join("trace.slog2");
        let ds = Dataset::create(&out, &[other.as_path()]).unwrap();
        drop(ds);
        assert!(!out.exists(), "nothing under its name without commit");
        std::fs::write(&out, b"user data").unwrap();
        let file = Dataset::create(&out, &[]);
        assert!(matches!(file, Err(Error::Output { .. })), "{file:?}");
        assert_eq!(std::fs::read(&out).unwrap(), b"user data");
        let full = d.join("full.parquet");
        std::fs::create_dir(&full).unwrap();
        std::fs::write(full.join("keep"), b"kept").unwrap();
        let r = Dataset::create(&full, &[]);
        assert!(matches!(r, Err(Error::Output { .. })), "{r:?}");
        assert_eq!(std::fs::read(full.join("keep")).unwrap(), b"kept");
    }

    #[test]
    fn a_dataset_appears_whole_in_a_new_or_empty_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        for (name, exists) in [("new.parquet", false), ("empty.parquet", true)] {
            let out = d.join(name);
            if exists {
                std::fs::create_dir(&out).unwrap();
            }
            let ds = Dataset::create(&out, &[]).unwrap();
            std::fs::write(ds.path().join("part-0.parquet"), b"PAR1").unwrap();
            ds.commit().unwrap();
            assert_eq!(std::fs::read(out.join("part-0.parquet")).unwrap(), b"PAR1");
        }
        let names: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names.len(), 2, "no temporary directory is left: {names:?}");
    }

    #[test]
    fn a_running_process_is_alive_and_one_that_exited_is_not() {
        let mut sleeper = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let (dead, live) = (dead_pid() as i32, sleeper.id() as i32);
        // The dead one first: its ESRCH is the thread's last error when the
        // live one is asked about.
        assert!(!process_alive(dead));
        assert!(process_alive(live), "a running child is alive");
        assert!(process_alive(std::process::id() as i32));
        sleeper.kill().unwrap();
        sleeper.wait().unwrap();
        assert!(!process_alive(live), "after it is waited for, it is not");
    }

    /// A temporary file of a dead run that belongs to another user is never
    /// removed (needs root to make one; skipped otherwise).
    #[test]
    fn another_user_s_stale_temporary_file_is_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        let prefix = temp_prefix(std::ffi::OsStr::new("out.slog2"));
        let theirs = d.join(format!("{prefix}{}-abcdef.tmp", dead_pid()));
        std::fs::write(&theirs, b"another user's").unwrap();
        if std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).is_err() {
            eprintln!("SKIPPED another_user_s_stale_temporary_file_is_kept: chown needs root");
            return;
        }
        remove_stale(d, &prefix);
        assert!(theirs.exists(), "another user's file is kept");
    }

    #[test]
    fn stale_temporary_files_and_directories_of_dead_runs_are_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        let prefix = temp_prefix(std::ffi::OsStr::new("out.parquet"));
        let dead = dead_pid();
        let stale_dir = d.join(format!("{prefix}{dead}-abcdef.tmp"));
        std::fs::create_dir(&stale_dir).unwrap();
        std::fs::write(stale_dir.join("part-0.parquet"), b"PAR1").unwrap();
        let stale_file = d.join(format!("{prefix}{dead}-ghijkl.tmp"));
        std::fs::write(&stale_file, b"old").unwrap();
        // Ours and running, or not a temporary file of ours: kept.
        let live = d.join(format!("{prefix}{}-mnopqr.tmp", std::process::id()));
        std::fs::write(&live, b"busy").unwrap();
        let user = d.join(format!("{dead}-notes.tmp"));
        std::fs::write(&user, b"user data").unwrap();
        remove_stale(d, &prefix);
        assert!(!stale_dir.exists(), "a stale dataset directory is removed");
        assert!(!stale_file.exists(), "a stale file is removed");
        assert!(live.exists() && user.exists());
    }
}
