//! Opening an archive on disk: the anchor file, the global definitions, and
//! per-location readers (spec/otf2.md §1).

use crate::anchor::{Anchor, MAX_ANCHOR_BYTES};
use crate::defs::Definitions;
use crate::error::{Error, Result};
use crate::events::LocationEvents;
use crate::limits::Limits;
use crate::local::LocalDefs;
use crate::merge::Merged;
use crate::source::FileSource;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// An OTF2 archive: its anchor and global definitions in memory, its event
/// files read on demand.
///
/// ```
/// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny");
/// let a = otf2_format::Archive::open(dir)?;
/// assert!(a.anchor_path().ends_with("traces.otf2"));
/// assert_eq!(a.defs.locations.len(), 2);
/// assert_eq!(a.events()?.count(), a.location_events(0)?.count() + a.location_events(1)?.count());
/// # Ok::<(), otf2_format::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Archive {
    /// The anchor file's contents.
    pub anchor: Anchor,
    /// The global definitions.
    pub defs: Definitions,
    anchor_path: PathBuf,
    dir: PathBuf,
    name: String,
    limits: Limits,
}

/// The anchor file `path` names: itself, or in a directory the one `*.otf2`
/// file (`traces.otf2` when there are several). `None` if there is none.
///
/// ```
/// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny");
/// assert!(otf2_format::archive::find_anchor(dir.as_ref()).unwrap().ends_with("traces.otf2"));
/// ```
pub fn find_anchor(path: &Path) -> Option<PathBuf> {
    if !path.is_dir() {
        return Some(path.to_path_buf());
    }
    let preferred = path.join("traces.otf2");
    if preferred.is_file() {
        return Some(preferred);
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(path)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "otf2") && p.is_file())
        .collect();
    found.sort();
    (found.len() == 1).then(|| found.remove(0))
}

impl Archive {
    /// Opens the archive whose anchor file is `path` (or the directory that
    /// holds it), with default [`Limits`].
    ///
    /// # Errors
    /// Missing or unreadable files; bytes that are not OTF2 (error with the
    /// file and byte offset); archives this crate does not read
    /// ([`Error::Unsupported`]).
    ///
    /// ```
    /// let a = otf2_format::Archive::open(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny"))?;
    /// assert_eq!(a.defs.locations.len(), 2);
    /// let events: Vec<_> = a.events()?.collect::<Result<_, _>>()?;
    /// assert!(events.windows(2).all(|w| w[0].time <= w[1].time));
    /// # Ok::<(), otf2_format::Error>(())
    /// ```
    pub fn open(path: impl AsRef<Path>) -> Result<Archive> {
        Archive::with_limits(path, Limits::default())
    }

    /// As [`Archive::open`], with `limits`.
    ///
    /// # Errors
    /// As [`Archive::open`]; [`Error::Limit`] for a chunk size or a number of
    /// definitions above `limits`.
    ///
    /// ```
    /// use otf2_format::{Archive, Error, Limits};
    /// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny");
    /// assert!(Archive::with_limits(dir, Limits::default()).is_ok());
    /// let tight = Limits::default().max_chunk_bytes(16);
    /// assert!(matches!(Archive::with_limits(dir, tight), Err(Error::Limit { .. })));
    /// ```
    pub fn with_limits(path: impl AsRef<Path>, limits: Limits) -> Result<Archive> {
        let path = path.as_ref();
        let anchor_path = find_anchor(path).ok_or_else(|| {
            Error::io(
                path,
                0,
                std::io::Error::new(std::io::ErrorKind::NotFound, "no anchor file (*.otf2) here"),
            )
        })?;
        let len = std::fs::metadata(&anchor_path)
            .map_err(|e| Error::io(&anchor_path, 0, e))?
            .len();
        if len > MAX_ANCHOR_BYTES {
            return Err(Error::Limit {
                file: anchor_path,
                offset: 0,
                what: "anchor file size",
                value: len,
                limit: MAX_ANCHOR_BYTES,
            });
        }
        let bytes = std::fs::read(&anchor_path).map_err(|e| Error::io(&anchor_path, 0, e))?;
        let anchor = Anchor::parse(&bytes, &anchor_path)?;
        for (what, v) in [
            ("event chunk size", anchor.chunk_size_events),
            ("definition chunk size", anchor.chunk_size_defs),
        ] {
            if v == 0 || v > limits.chunk_bytes {
                return Err(Error::Limit {
                    file: anchor_path,
                    offset: 12,
                    what,
                    value: v,
                    limit: limits.chunk_bytes,
                });
            }
        }
        let dir = anchor_path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let name = anchor_path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "traces".into());
        let def_path = dir.join(format!("{name}.def"));
        let src = FileSource::new(&def_path).map_err(|e| Error::io(&def_path, 0, e))?;
        let defs = Definitions::read(src, def_path, anchor.chunk_size_defs, &limits)?;
        Ok(Archive {
            anchor,
            defs,
            anchor_path,
            dir,
            name,
            limits,
        })
    }

    /// The anchor file's path.
    ///
    /// ```
    /// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny");
    /// let a = otf2_format::Archive::open(dir)?; // a directory: its anchor file is found
    /// assert_eq!(a.anchor_path(), std::path::Path::new(dir).join("traces.otf2"));
    /// # Ok::<(), otf2_format::Error>(())
    /// ```
    pub fn anchor_path(&self) -> &Path {
        &self.anchor_path
    }

    /// The archive's size in bytes: its anchor file, its global definitions,
    /// and the definition and event files of its locations (those there are;
    /// a file that cannot be looked at counts 0).
    ///
    /// ```
    /// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny");
    /// let a = otf2_format::Archive::open(dir)?;
    /// let evt = std::fs::metadata(a.location_file(1, "evt"))?.len();
    /// let anchor = std::fs::metadata(a.anchor_path())?.len();
    /// assert!(a.bytes() >= anchor + evt);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn bytes(&self) -> u64 {
        let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
        let files = [
            self.anchor_path.clone(),
            self.dir.join(format!("{}.def", self.name)),
        ];
        let locations = self
            .defs
            .locations
            .iter()
            .flat_map(|(id, _)| ["def", "evt"].map(|ext| self.location_file(*id, ext)));
        files.iter().map(|p| size(p)).sum::<u64>() + locations.map(|p| size(&p)).sum::<u64>()
    }

    /// Path of a location's file with extension `ext` (`def` or `evt`).
    ///
    /// ```
    /// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny");
    /// let a = otf2_format::Archive::open(dir)?;
    /// assert!(a.location_file(1, "evt").ends_with("traces/1.evt"));
    /// # Ok::<(), otf2_format::Error>(())
    /// ```
    pub fn location_file(&self, location: u64, ext: &str) -> PathBuf {
        self.dir.join(&self.name).join(format!("{location}.{ext}"))
    }

    /// A location's definitions (empty when it has no definition file).
    ///
    /// # Errors
    /// An unreadable or malformed file (error with file and offset).
    ///
    /// ```
    /// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny");
    /// let a = otf2_format::Archive::open(dir)?;
    /// assert!(a.local_defs(0).is_ok());
    /// // A location without a definition file has no local definitions.
    /// assert_eq!(a.local_defs(99)?.map(0, 7), 7);
    /// # Ok::<(), otf2_format::Error>(())
    /// ```
    pub fn local_defs(&self, location: u64) -> Result<LocalDefs> {
        let p = self.location_file(location, "def");
        if !p.exists() {
            return Ok(LocalDefs::default());
        }
        let src = FileSource::new(&p).map_err(|e| Error::io(&p, 0, e))?;
        LocalDefs::read(src, p, self.anchor.chunk_size_defs, &self.limits)
    }

    /// A reader of one location's events (none when it has no event file).
    ///
    /// # Errors
    /// As [`Archive::local_defs`].
    ///
    /// ```
    /// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny");
    /// let a = otf2_format::Archive::open(dir)?;
    /// let mut ev = a.location_events(0)?;
    /// let first = ev.next_event()?.expect("location 0 has events");
    /// assert_eq!(first.location, 0);
    /// assert!(a.location_events(99)?.next_event()?.is_none()); // no event file
    /// # Ok::<(), otf2_format::Error>(())
    /// ```
    pub fn location_events(&self, location: u64) -> Result<LocationEvents<FileSource>> {
        let local = Arc::new(self.local_defs(location)?);
        let p = self.location_file(location, "evt");
        let src = if p.exists() {
            Some(FileSource::new(&p).map_err(|e| Error::io(&p, 0, e))?)
        } else {
            None
        };
        Ok(LocationEvents::new(
            src,
            p,
            location,
            self.anchor.chunk_size_events,
            self.limits.window_bytes,
            local,
        ))
    }

    /// Every location's events merged in time order (locations in definition
    /// order).
    ///
    /// # Errors
    /// As [`Archive::local_defs`], for any location.
    ///
    /// ```
    /// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny");
    /// let a = otf2_format::Archive::open(dir)?;
    /// let mut m = a.events()?;
    /// assert_eq!(m.readers().len(), 2);
    /// let mut last = 0;
    /// while let Some(e) = m.next_event()? {
    ///     assert!(e.time >= last);
    ///     last = e.time;
    /// }
    /// # Ok::<(), otf2_format::Error>(())
    /// ```
    pub fn events(&self) -> Result<Merged<FileSource>> {
        let readers = self
            .defs
            .locations
            .iter()
            .map(|(id, _)| self.location_events(*id))
            .collect::<Result<Vec<_>>>()?;
        Ok(Merged::new(readers))
    }
}
