//! The bytes of a wait index (spec/waits.md §3): written whole, read back
//! totally (any bytes give an index or an [`Error`] with the offset of the
//! first byte that is wrong), bound to its trace by size, mtime and a CRC-32
//! of its first and last 64 KiB ([`Binding`]).

use super::{directory, Block, Lane, Segment, Wait, WaitIndex, PATTERNS};
use crate::analysis::Pattern;
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

const HEADER: usize = 80;
const WAIT: usize = 36;
const BLOCK_ENTRY: usize = 24 + 8 * PATTERNS;
const SEGMENT: usize = 24;

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

/// A little-endian cursor that fails with the offset of what is missing.
struct Cur<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Cur<'a> {
    fn err(&self, at: usize, problem: Problem) -> Error {
        Error::Format {
            offset: at as u64,
            problem,
        }
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        match self.at.checked_add(n) {
            Some(end) if end <= self.b.len() => {
                let s = &self.b[self.at..end];
                self.at = end;
                Ok(s)
            }
            _ => Err(self.err(self.at, Problem::Truncated)),
        }
    }
    /// That `count` records of `size` bytes are there (before allocating).
    fn room(&self, count: u64, size: usize) -> Result<usize, Error> {
        let need = count.checked_mul(size as u64);
        match need {
            Some(n) if n <= (self.b.len() - self.at) as u64 => Ok(count as usize),
            _ => Err(self.err(self.at, Problem::Truncated)),
        }
    }
    fn u8(&mut self) -> Result<u8, Error> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> Result<u16, Error> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().expect("2")))
    }
    fn u32(&mut self) -> Result<u32, Error> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4")))
    }
    fn i32(&mut self) -> Result<i32, Error> {
        Ok(i32::from_le_bytes(self.take(4)?.try_into().expect("4")))
    }
    fn u64(&mut self) -> Result<u64, Error> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8")))
    }
    fn i64(&mut self) -> Result<i64, Error> {
        Ok(i64::from_le_bytes(self.take(8)?.try_into().expect("8")))
    }
    fn f64(&mut self) -> Result<f64, Error> {
        Ok(f64::from_le_bytes(self.take(8)?.try_into().expect("8")))
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

    /// Reads an index from its bytes, checking every rule of spec/waits.md
    /// §3 (any bytes: an index or an error with the offset).
    ///
    /// # Errors
    ///
    /// [`Error::Format`] with the offset of the first wrong byte.
    ///
    /// ```
    /// use mpelog::waits::{Problem, WaitIndex, Error};
    /// let ix = WaitIndex::new(vec![], vec![], vec![(3, "MPI_Recv".into())], (0.0, 1.0), 0, 64);
    /// let mut b = ix.to_bytes();
    /// assert_eq!(WaitIndex::from_bytes(&b)?, ix);
    /// b[8] = 9; // the version
    /// assert!(matches!(WaitIndex::from_bytes(&b), Err(Error::Format { offset: 8, problem: Problem::Version })));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<WaitIndex, Error> {
        let mut c = Cur { b: bytes, at: 0 };
        if c.take(8).ok() != Some(&MAGIC[..]) {
            return Err(c.err(0, Problem::Magic));
        }
        if c.u32()? != VERSION {
            return Err(c.err(8, Problem::Version));
        }
        let block = c.u32()? as usize;
        if block == 0 || block > MAX_BLOCK {
            return Err(c.err(12, Problem::Layout));
        }
        let binding = Binding {
            size: c.u64()?,
            mtime_ns: c.i64()?,
            crc: c.u32()?,
        };
        let root = c.i32()?;
        let (from, to) = (c.f64()?, c.f64()?);
        if c.u32()? as usize != PATTERNS {
            return Err(c.err(56, Problem::Layout));
        }
        let ncalls = c.u32()?;
        let nlanes = c.u32()?;
        let bound = c.u32()?;
        if bound > 1 {
            return Err(c.err(68, Problem::Layout));
        }
        let nseg = c.u64()?;
        if bound == 0 && (binding.size, binding.mtime_ns, binding.crc) != (0, 0, 0) {
            return Err(c.err(16, Problem::Layout));
        }
        // The checksum first: damage is reported as damage.
        let body = bytes.len().saturating_sub(4);
        if bytes.len() < HEADER + 4 {
            return Err(c.err(bytes.len(), Problem::Truncated));
        }
        let mut crc = flate2::Crc::new();
        crc.update(&bytes[..body]);
        if crc.sum().to_le_bytes() != bytes[body..] {
            return Err(c.err(body, Problem::Checksum));
        }
        let mut c = Cur {
            b: &bytes[..body],
            at: HEADER,
        };
        let mut calls = Vec::with_capacity(c.room(u64::from(ncalls), 6)?);
        for _ in 0..ncalls {
            let at = c.at;
            let cat = c.i32()?;
            if calls.last().is_some_and(|&(p, _): &(i32, String)| p >= cat) {
                return Err(c.err(at, Problem::Order));
            }
            let n = c.u16()? as usize;
            let name = std::str::from_utf8(c.take(n)?).map_err(|_| c.err(at + 6, Problem::Name))?;
            calls.push((cat, name.to_string()));
        }
        let mut heads = Vec::with_capacity(c.room(u64::from(nlanes), 8)?);
        for _ in 0..nlanes {
            let at = c.at;
            let t = c.i32()?;
            if heads.last().is_some_and(|&(p, _): &(i32, u32)| p >= t) {
                return Err(c.err(at, Problem::TimelineOrder));
            }
            heads.push((t, c.u32()?));
        }
        let mut lanes = Vec::with_capacity(heads.len());
        for (timeline, n) in heads {
            let nb = u64::from(n).div_ceil(block as u64);
            let dir_at = c.at;
            c.room(nb, BLOCK_ENTRY)?;
            let dir_bytes = c.take(nb as usize * BLOCK_ENTRY)?;
            let mut waits = Vec::with_capacity(c.room(u64::from(n), WAIT)?);
            for _ in 0..n {
                let at = c.at;
                let (start, end, cause) = (c.f64()?, c.f64()?, c.f64()?);
                if !(start.is_finite() && end.is_finite() && cause.is_finite() && end > start) {
                    return Err(c.err(at, Problem::Time));
                }
                if waits.last().is_some_and(|w: &Wait| {
                    (w.start, w.end).partial_cmp(&(start, end)) == Some(std::cmp::Ordering::Greater)
                }) {
                    return Err(c.err(at, Problem::Order));
                }
                let partner = c.i32()?;
                let call = c.i32()?;
                let p = c.u8()?;
                let Some(&pattern) = Pattern::ALL.get(p as usize) else {
                    return Err(c.err(at + 32, Problem::Pattern));
                };
                if c.take(3)? != [0, 0, 0] {
                    return Err(c.err(at + 33, Problem::Layout));
                }
                waits.push(Wait {
                    timeline,
                    start,
                    end,
                    pattern,
                    partner: (partner != i32::MIN).then_some(partner),
                    cause,
                    call,
                });
            }
            // The directory must be what the waits give, to the bit.
            let dir = directory(&waits, block);
            for (k, d) in dir.iter().enumerate() {
                let mut e = Vec::with_capacity(BLOCK_ENTRY);
                for x in [d.first, d.reach, d.longest].iter().chain(&d.before) {
                    e.extend_from_slice(&x.to_le_bytes());
                }
                let have = &dir_bytes[k * BLOCK_ENTRY..(k + 1) * BLOCK_ENTRY];
                if let Some(i) = (0..BLOCK_ENTRY).find(|&i| e[i] != have[i]) {
                    return Err(c.err(dir_at + k * BLOCK_ENTRY + i, Problem::Directory));
                }
            }
            let fine = super::fine::Fine::new(&waits);
            lanes.push(Lane {
                timeline,
                waits,
                dir,
                fine,
            });
        }
        let mut path = Vec::with_capacity(c.room(nseg, SEGMENT)?);
        for _ in 0..nseg {
            let at = c.at;
            let timeline = c.i32()?;
            if c.u32()? != 0 {
                return Err(c.err(at + 4, Problem::Layout));
            }
            let (start, end) = (c.f64()?, c.f64()?);
            if !(start.is_finite() && end.is_finite() && end > start) {
                return Err(c.err(at, Problem::Time));
            }
            if path.last().is_some_and(|s: &Segment| s.end > start) {
                return Err(c.err(at, Problem::Order));
            }
            path.push(Segment {
                timeline,
                start,
                end,
            });
        }
        if c.at != body {
            return Err(c.err(c.at, Problem::Trailing));
        }
        Ok(WaitIndex {
            from,
            to,
            root,
            binding: (bound == 1).then_some(binding),
            block,
            calls,
            lanes,
            path_lanes: super::fine::path_lanes(&path),
            path,
        })
    }

    /// Reads the index at `path`.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when it cannot be read, [`Error::Format`] as
    /// [`from_bytes`](Self::from_bytes).
    pub fn read_file(path: &Path) -> Result<WaitIndex, Error> {
        let bytes = std::fs::read(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        WaitIndex::from_bytes(&bytes)
    }

    /// Reads the index of `trace` at `index` when it is fresh: bound to the
    /// trace as it is now.
    ///
    /// # Errors
    ///
    /// [`Error::Stale`] when the trace changed since (or the index names no
    /// trace), and the errors of [`read_file`](Self::read_file) and
    /// [`Binding::of`].
    ///
    /// ```
    /// use mpelog::waits::{Binding, Error, Stale, WaitIndex};
    /// let dir = tempfile::tempdir().unwrap();
    /// let trace = dir.path().join("t.clog2");
    /// std::fs::write(&trace, b"trace bytes").unwrap();
    /// let ix = WaitIndex::new(vec![], vec![], vec![], (0.0, 1.0), 0, 64).bound(Binding::of(&trace)?);
    /// let path = mpelog::waits::index_path(&trace);
    /// ix.write_file(&path, &[&trace])?;
    /// assert_eq!(WaitIndex::open_fresh(&path, &trace)?, ix);
    /// std::fs::write(&trace, b"other bytes, longer").unwrap();
    /// assert!(matches!(WaitIndex::open_fresh(&path, &trace), Err(Error::Stale(Stale::Size))));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn open_fresh(index: &Path, trace: &Path) -> Result<WaitIndex, Error> {
        let ix = WaitIndex::read_file(index)?;
        let now = Binding::of(trace)?;
        match ix.binding.map(|b| b.differs(&now)) {
            None => Err(Error::Stale(Stale::Unbound)),
            Some(Some(s)) => Err(Error::Stale(s)),
            Some(None) => Ok(ix),
        }
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
