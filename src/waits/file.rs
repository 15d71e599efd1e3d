//! The bytes of a wait index (spec/waits.md §3): its errors, and its writer
//! (the reader is `read.rs`); bound to its trace by size, mtime and a CRC-32
//! of its first and last 64 KiB ([`Binding`]).

use super::{Block, Segment, Wait, WaitIndex, PATTERNS};
use crate::names::shown;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The first 8 bytes of a wait index.
pub const MAGIC: &[u8; 8] = b"MPWAITS\0";

/// The version this library writes and reads.
pub const VERSION: u32 = 1;

/// The largest block (waits per directory entry) a file may declare.
pub const MAX_BLOCK: usize = 65_536;

/// How many bytes of each end of the trace its CRC covers.
pub const BOUND_BYTES: u64 = 65_536;

/// Bytes of the header.
pub(super) const HEADER: usize = 80;
/// Bytes of one wait.
pub(super) const WAIT: usize = 36;
/// Bytes of one directory entry.
pub(super) const BLOCK_ENTRY: usize = 24 + 8 * PATTERNS;
/// Bytes of one critical-path segment.
pub(super) const SEGMENT: usize = 24;

/// `TRACE.waits`: where `mpelog analyze TRACE --write-index` writes the
/// index of `trace`, and where `render --waits` looks for it.
///
/// ```
/// use std::path::Path;
/// assert_eq!(mpelog::waits::index_path(Path::new("run/a.clog2")), Path::new("run/a.clog2.waits"));
/// ```
pub fn index_path(trace: &Path) -> PathBuf {
    let mut s = trace.as_os_str().to_os_string();
    s.push(".waits");
    PathBuf::from(s)
}

/// What binds an index to its trace: the trace's size, modification time and
/// the CRC-32 of its first and last 64 KiB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Binding {
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: i64,
    /// CRC-32 (IEEE) of the first `min(size, 65536)` bytes followed by the
    /// last `min(size, 65536)`.
    pub crc: u32,
}

impl Binding {
    /// The binding of the file at `path`.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when it cannot be read.
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let p = dir.path().join("t.clog2");
    /// std::fs::write(&p, b"trace bytes").unwrap();
    /// let b = mpelog::waits::Binding::of(&p)?;
    /// assert_eq!(b.size, 11);
    /// assert_eq!(b, mpelog::waits::Binding::of(&p)?);
    /// # Ok::<(), mpelog::waits::Error>(())
    /// ```
    pub fn of(path: &Path) -> Result<Binding, Error> {
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut f = std::fs::File::open(path).map_err(io)?;
        let meta = f.metadata().map_err(io)?;
        let size = meta.len();
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
        let mut crc = flate2::Crc::new();
        let n = size.min(BOUND_BYTES);
        let mut head = vec![0u8; n as usize];
        f.read_exact(&mut head).map_err(io)?;
        crc.update(&head);
        use std::io::Seek;
        f.seek(std::io::SeekFrom::Start(size - n)).map_err(io)?;
        f.read_exact(&mut head).map_err(io)?;
        crc.update(&head);
        Ok(Binding {
            size,
            mtime_ns,
            crc: crc.sum(),
        })
    }

    /// How `self` (the index's) differs from `now` (the trace's), if it does.
    ///
    /// ```
    /// use mpelog::waits::{Binding, Stale};
    /// let a = Binding { size: 10, mtime_ns: 5, crc: 7 };
    /// assert_eq!(a.differs(&a), None);
    /// assert_eq!(a.differs(&Binding { size: 11, ..a }), Some(Stale::Size));
    /// assert_eq!(a.differs(&Binding { crc: 8, ..a }), Some(Stale::Bytes));
    /// ```
    pub fn differs(&self, now: &Binding) -> Option<Stale> {
        if self.size != now.size {
            Some(Stale::Size)
        } else if self.mtime_ns != now.mtime_ns {
            Some(Stale::Mtime)
        } else if self.crc != now.crc {
            Some(Stale::Bytes)
        } else {
            None
        }
    }
}

/// How a trace changed since its index was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Stale {
    /// Its size.
    Size,
    /// Its modification time.
    Mtime,
    /// The bytes at its ends.
    Bytes,
    /// The index records no trace.
    Unbound,
}

impl std::fmt::Display for Stale {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Stale::Size => "the trace's size changed",
            Stale::Mtime => "the trace's modification time changed",
            Stale::Bytes => "the trace's bytes changed",
            Stale::Unbound => "the index names no trace",
        })
    }
}

/// What is wrong with the bytes of an index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Problem {
    /// Not a wait index (its first 8 bytes).
    Magic,
    /// A version this library does not read.
    Version,
    /// The bytes end before what they declare.
    Truncated,
    /// Bytes after the end.
    Trailing,
    /// A block size of 0 or above 65,536, a pattern count not
    /// [`PATTERNS`], binding fields of an unbound index or reserved bytes
    /// that are not 0.
    Layout,
    /// A call name that is not UTF-8.
    Name,
    /// Timelines not strictly ascending.
    TimelineOrder,
    /// A time that is not finite, or a wait or segment that does not end
    /// after it starts.
    Time,
    /// Waits or segments not in time order, or calls not in ascending
    /// category order.
    Order,
    /// A pattern code past the last pattern.
    Pattern,
    /// A directory entry that is not what the waits give.
    Directory,
    /// The CRC-32 at the end does not match the bytes.
    Checksum,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Problem::Magic => "not a wait index",
            Problem::Version => "a version this mpelog does not read",
            Problem::Truncated => "the file ends early",
            Problem::Trailing => "bytes after the end",
            Problem::Layout => "a bad block size or pattern count",
            Problem::Name => "a call name that is not UTF-8",
            Problem::TimelineOrder => "timelines out of order",
            Problem::Time => "a time that is not finite or an empty interval",
            Problem::Order => "intervals out of time order",
            Problem::Pattern => "an unknown pattern",
            Problem::Directory => "a directory entry that disagrees with its waits",
            Problem::Checksum => "the checksum does not match",
        })
    }
}

/// Why a wait index could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be read.
    #[error("{}: {source}", shown(.path))]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The bytes are not a wait index of this version.
    #[error("wait index: {problem} at byte {offset}")]
    Format {
        /// Offset of the first wrong byte.
        offset: u64,
        /// What is wrong.
        problem: Problem,
    },
    /// The trace changed since the index was written.
    #[error("stale wait index: {0}")]
    Stale(Stale),
    /// The index could not be written (the output rules, mpelog::output).
    #[error(transparent)]
    Output(#[from] crate::output::Error),
}

impl Error {
    /// The offset of the first wrong byte, for a [`Error::Format`].
    ///
    /// ```
    /// let e = mpelog::waits::WaitIndex::from_bytes(b"MPWAITS").unwrap_err();
    /// assert_eq!(e.offset(), Some(0));
    /// ```
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Format { offset, .. } => Some(*offset),
            _ => None,
        }
    }
}

/// A writer of an index's bytes that sums them (the trailing CRC-32) and
/// hands them on in pieces of 64 KiB: its parts in the order of
/// spec/waits.md §3 ([`head`](Summed::head), then per lane
/// [`dir`](Summed::dir) and [`wait`](Summed::wait)s, then
/// [`path`](Summed::path)), and [`finish`](Summed::finish).
pub(crate) struct Summed<W> {
    w: W,
    crc: flate2::Crc,
    buf: Vec<u8>,
}

/// What an index's bytes hold before its lanes' directories.
pub(crate) struct Head<'a> {
    pub block: usize,
    pub binding: Option<Binding>,
    pub root: i32,
    pub from: f64,
    pub to: f64,
    /// The calls, sorted and without a repeated index.
    pub calls: &'a [(i32, String)],
    /// Per lane, ascending: its timeline and how many waits it holds.
    pub lanes: &'a [(i32, u32)],
    /// How many critical-path segments follow the lanes.
    pub segments: u64,
}

impl<W: std::io::Write> Summed<W> {
    pub(crate) fn new(w: W) -> Summed<W> {
        Summed {
            w,
            crc: flate2::Crc::new(),
            buf: Vec::with_capacity(1 << 16),
        }
    }

    fn put(&mut self, b: &[u8]) -> std::io::Result<()> {
        self.buf.extend_from_slice(b);
        if self.buf.len() >= 1 << 16 {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.crc.update(&self.buf);
        self.w.write_all(&self.buf)?;
        self.buf.clear();
        Ok(())
    }

    /// The header, the calls and the lane table.
    pub(crate) fn head(&mut self, h: &Head<'_>) -> std::io::Result<()> {
        let b = h.binding.unwrap_or(Binding {
            size: 0,
            mtime_ns: 0,
            crc: 0,
        });
        self.put(MAGIC)?;
        self.put(&VERSION.to_le_bytes())?;
        self.put(&(h.block as u32).to_le_bytes())?;
        self.put(&b.size.to_le_bytes())?;
        self.put(&b.mtime_ns.to_le_bytes())?;
        self.put(&b.crc.to_le_bytes())?;
        self.put(&h.root.to_le_bytes())?;
        self.put(&h.from.to_le_bytes())?;
        self.put(&h.to.to_le_bytes())?;
        self.put(&(PATTERNS as u32).to_le_bytes())?;
        self.put(&(h.calls.len() as u32).to_le_bytes())?;
        self.put(&(h.lanes.len() as u32).to_le_bytes())?;
        self.put(&u32::from(h.binding.is_some()).to_le_bytes())?;
        self.put(&h.segments.to_le_bytes())?;
        for (c, name) in h.calls {
            let name = &name.as_bytes()[..name.len().min(u16::MAX as usize)];
            self.put(&c.to_le_bytes())?;
            self.put(&(name.len() as u16).to_le_bytes())?;
            self.put(name)?;
        }
        for (timeline, waits) in h.lanes {
            self.put(&timeline.to_le_bytes())?;
            self.put(&waits.to_le_bytes())?;
        }
        Ok(())
    }

    /// A lane's directory.
    pub(crate) fn dir(&mut self, dir: &[Block]) -> std::io::Result<()> {
        for d in dir {
            for x in [d.first, d.reach, d.longest].iter().chain(&d.before) {
                self.put(&x.to_le_bytes())?;
            }
        }
        Ok(())
    }

    /// One wait of a lane (after its directory).
    pub(crate) fn wait(&mut self, w: &Wait) -> std::io::Result<()> {
        self.put(&w.start.to_le_bytes())?;
        self.put(&w.end.to_le_bytes())?;
        self.put(&w.cause.to_le_bytes())?;
        self.put(&w.partner.unwrap_or(i32::MIN).to_le_bytes())?;
        self.put(&w.call.to_le_bytes())?;
        self.put(&[w.pattern.index() as u8, 0, 0, 0])
    }

    /// The critical path's segments (after the lanes).
    pub(crate) fn path(&mut self, path: &[Segment]) -> std::io::Result<()> {
        for s in path {
            self.put(&s.timeline.to_le_bytes())?;
            self.put(&0u32.to_le_bytes())?;
            self.put(&s.start.to_le_bytes())?;
            self.put(&s.end.to_le_bytes())?;
        }
        Ok(())
    }

    /// The rest, then the checksum of every byte before it.
    pub(crate) fn finish(mut self) -> std::io::Result<()> {
        self.flush()?;
        self.w.write_all(&self.crc.sum().to_le_bytes())
    }
}

impl WaitIndex {
    /// The index's bytes (spec/waits.md §3).
    ///
    /// ```
    /// let ix = mpelog::waits::WaitIndex::new(vec![], vec![], vec![], (0.0, 1.0), 0, 64);
    /// let b = ix.to_bytes();
    /// assert_eq!(&b[..8], mpelog::waits::MAGIC);
    /// assert_eq!(b.len(), 80 + 4); // header and checksum
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut o = Vec::with_capacity(
            HEADER + self.len() * WAIT + self.path.len() * SEGMENT + self.lanes.len() * 8 + 4,
        );
        self.write_to(&mut o).expect("a Vec takes every write");
        o
    }

    /// Writes the index's bytes ([`to_bytes`](Self::to_bytes)) to `w` as
    /// they are made, the checksum last: no copy of the whole index in
    /// memory (an index of millions of waits is hundreds of MB).
    ///
    /// ```
    /// let ix = mpelog::waits::WaitIndex::new(vec![], vec![], vec![], (0.0, 1.0), 0, 64);
    /// let mut out = Vec::new();
    /// ix.write_to(&mut out)?;
    /// assert_eq!(out, ix.to_bytes());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// The first error of `w`.
    pub fn write_to<W: std::io::Write>(&self, w: W) -> std::io::Result<()> {
        let mut o = Summed::new(w);
        let lanes: Vec<(i32, u32)> = self
            .lanes
            .iter()
            .map(|l| (l.timeline, l.waits.len() as u32))
            .collect();
        o.head(&Head {
            block: self.block,
            binding: self.binding,
            root: self.root,
            from: self.from,
            to: self.to,
            calls: &self.calls,
            lanes: &lanes,
            segments: self.path.len() as u64,
        })?;
        for l in &self.lanes {
            o.dir(&l.dir)?;
            for w in &l.waits {
                o.wait(w)?;
            }
        }
        o.path(&self.path)?;
        o.finish()
    }

    /// Writes the index to `path` by the output rules ([`crate::output`]:
    /// never over one of `inputs`, a temporary file renamed at the end).
    ///
    /// # Errors
    ///
    /// [`Error::Output`] when it cannot be written.
    pub fn write_file(&self, path: &Path, inputs: &[&Path]) -> Result<(), Error> {
        let out = crate::output::Output::create(path, inputs, false)?;
        let mut w = out.writer()?;
        self.write_to(&mut w)
            .map_err(|source| crate::output::Error::Io {
                path: path.to_path_buf(),
                source,
            })?;
        out.finish(w)?;
        Ok(())
    }
}
