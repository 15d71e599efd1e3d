//! Reading a wait index (spec/waits.md §3) totally: any bytes give an index
//! or an [`Error`] with the offset of the first byte that is wrong.
//!
//! One parser over two sources: a slice ([`WaitIndex::from_bytes`]), and a
//! file read in pieces as it is parsed ([`WaitIndex::read_file`]), which
//! holds no copy of the file (an index of millions of waits is a hundred MB
//! and more) and reads no more than the header of an index that is stale
//! ([`WaitIndex::open_fresh`]). Both give the same index, or the same error,
//! for the same bytes.

use super::file::{
    Binding, Error, Problem, Stale, BLOCK_ENTRY, HEADER, MAGIC, MAX_BLOCK, SEGMENT, VERSION, WAIT,
};
use super::{directory, fine, Lane, Segment, Wait, WaitIndex, PATTERNS};
use crate::analysis::Pattern;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

/// What the header holds (its first 80 bytes).
struct Header {
    block: usize,
    binding: Option<Binding>,
    root: i32,
    from: f64,
    to: f64,
    ncalls: u32,
    nlanes: u32,
    nseg: u64,
}

fn format(at: u64, problem: Problem) -> Error {
    Error::Format {
        offset: at,
        problem,
    }
}

/// Where the parser's bytes come from, up to the checksum.
trait Source {
    /// The offset of the next byte.
    fn at(&self) -> u64;
    /// How many bytes are left before the checksum.
    fn left(&self) -> u64;
    /// The next `n` bytes; [`Problem::Truncated`] at [`at`](Self::at) when
    /// fewer are left.
    fn take(&mut self, n: usize) -> Result<&[u8], Error>;

    /// That `count` records of `size` bytes are left (before allocating for
    /// them).
    fn room(&self, count: u64, size: usize) -> Result<usize, Error> {
        match count.checked_mul(size as u64) {
            Some(n) if n <= self.left() => Ok(count as usize),
            _ => Err(format(self.at(), Problem::Truncated)),
        }
    }
    fn u16(&mut self) -> Result<u16, Error> {
        Ok(u16::from_le_bytes(le(self.take(2)?, 0)))
    }
    fn u32(&mut self) -> Result<u32, Error> {
        Ok(u32::from_le_bytes(le(self.take(4)?, 0)))
    }
    fn i32(&mut self) -> Result<i32, Error> {
        Ok(i32::from_le_bytes(le(self.take(4)?, 0)))
    }
    fn u64(&mut self) -> Result<u64, Error> {
        Ok(u64::from_le_bytes(le(self.take(8)?, 0)))
    }
    fn i64(&mut self) -> Result<i64, Error> {
        Ok(i64::from_le_bytes(le(self.take(8)?, 0)))
    }
    fn f64(&mut self) -> Result<f64, Error> {
        Ok(f64::from_le_bytes(le(self.take(8)?, 0)))
    }
}

/// The `N` bytes of `b` at `at` (within a record already taken whole).
fn le<const N: usize>(b: &[u8], at: usize) -> [u8; N] {
    b[at..at + N].try_into().expect("within the record")
}

/// A slice's bytes from an offset, to its end.
struct Slice<'a> {
    b: &'a [u8],
    at: usize,
}

impl Source for Slice<'_> {
    fn at(&self) -> u64 {
        self.at as u64
    }
    fn left(&self) -> u64 {
        (self.b.len() - self.at) as u64
    }
    fn take(&mut self, n: usize) -> Result<&[u8], Error> {
        match self.at.checked_add(n) {
            Some(end) if end <= self.b.len() => {
                let s = &self.b[self.at..end];
                self.at = end;
                Ok(s)
            }
            _ => Err(format(self.at(), Problem::Truncated)),
        }
    }
}

/// A reader that sums (CRC-32) every byte read through it.
struct Summing<R> {
    r: R,
    crc: flate2::Crc,
}

impl<R: Read> Read for Summing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.r.read(buf)?;
        self.crc.update(&buf[..n]);
        Ok(n)
    }
}

/// A file's bytes from the end of its header to its checksum, read in
/// pieces and summed as they are read.
struct Stream<'p, R> {
    r: BufReader<Summing<std::io::Take<R>>>,
    at: u64,
    end: u64,
    buf: Vec<u8>,
    path: &'p Path,
}

impl<R: Read> Stream<'_, R> {
    fn io(&self, source: std::io::Error) -> Error {
        if source.kind() == std::io::ErrorKind::UnexpectedEof {
            // The file got shorter while it was read.
            return format(self.at, Problem::Truncated);
        }
        Error::Io {
            path: self.path.to_path_buf(),
            source,
        }
    }

    /// The CRC-32 of every byte before the checksum (the rest read now),
    /// and the reader, at the checksum.
    fn finish(mut self) -> Result<(u32, R), Error> {
        std::io::copy(&mut self.r, &mut std::io::sink()).map_err(|e| self.io(e))?;
        let summing = self.r.into_inner();
        Ok((summing.crc.sum(), summing.r.into_inner()))
    }
}

impl<R: Read> Source for Stream<'_, R> {
    fn at(&self) -> u64 {
        self.at
    }
    fn left(&self) -> u64 {
        self.end - self.at
    }
    fn take(&mut self, n: usize) -> Result<&[u8], Error> {
        if n as u64 > self.left() {
            return Err(format(self.at, Problem::Truncated));
        }
        if self.buf.len() < n {
            self.buf.resize(n, 0);
        }
        if let Err(e) = self.r.read_exact(&mut self.buf[..n]) {
            return Err(self.io(e));
        }
        self.at += n as u64;
        Ok(&self.buf[..n])
    }
}

/// The header, from the first `min(80, size)` bytes of the file.
fn header(head: &[u8]) -> Result<Header, Error> {
    let mut c = Slice { b: head, at: 0 };
    if c.take(8).ok() != Some(&MAGIC[..]) {
        return Err(format(0, Problem::Magic));
    }
    if c.u32()? != VERSION {
        return Err(format(8, Problem::Version));
    }
    let block = c.u32()? as usize;
    if block == 0 || block > MAX_BLOCK {
        return Err(format(12, Problem::Layout));
    }
    let binding = Binding {
        size: c.u64()?,
        mtime_ns: c.i64()?,
        crc: c.u32()?,
    };
    let root = c.i32()?;
    let (from, to) = (c.f64()?, c.f64()?);
    if c.u32()? as usize != PATTERNS {
        return Err(format(56, Problem::Layout));
    }
    let ncalls = c.u32()?;
    let nlanes = c.u32()?;
    let bound = c.u32()?;
    if bound > 1 {
        return Err(format(68, Problem::Layout));
    }
    let nseg = c.u64()?;
    if bound == 0 && (binding.size, binding.mtime_ns, binding.crc) != (0, 0, 0) {
        return Err(format(16, Problem::Layout));
    }
    Ok(Header {
        block,
        binding: (bound == 1).then_some(binding),
        root,
        from,
        to,
        ncalls,
        nlanes,
        nseg,
    })
}

/// Everything after the header, up to the checksum.
fn body(h: Header, c: &mut impl Source) -> Result<WaitIndex, Error> {
    let mut calls = Vec::with_capacity(c.room(u64::from(h.ncalls), 6)?);
    for _ in 0..h.ncalls {
        let at = c.at();
        let cat = c.i32()?;
        if calls.last().is_some_and(|&(p, _): &(i32, String)| p >= cat) {
            return Err(format(at, Problem::Order));
        }
        let n = c.u16()? as usize;
        let name = std::str::from_utf8(c.take(n)?).map_err(|_| format(at + 6, Problem::Name))?;
        calls.push((cat, name.to_string()));
    }
    let mut heads = Vec::with_capacity(c.room(u64::from(h.nlanes), 8)?);
    for _ in 0..h.nlanes {
        let at = c.at();
        let t = c.i32()?;
        if heads.last().is_some_and(|&(p, _): &(i32, u32)| p >= t) {
            return Err(format(at, Problem::TimelineOrder));
        }
        heads.push((t, c.u32()?));
    }
    let mut lanes = Vec::with_capacity(heads.len());
    for (timeline, n) in heads {
        lanes.push(lane(timeline, n, h.block, c)?);
    }
    let mut path = Vec::with_capacity(c.room(h.nseg, SEGMENT)?);
    for _ in 0..h.nseg {
        // Every segment is there (the room above).
        let at = c.at();
        let r = c.take(SEGMENT)?;
        let timeline = i32::from_le_bytes(le(r, 0));
        if u32::from_le_bytes(le(r, 4)) != 0 {
            return Err(format(at + 4, Problem::Layout));
        }
        let (start, end) = (f64::from_le_bytes(le(r, 8)), f64::from_le_bytes(le(r, 16)));
        if !(start.is_finite() && end.is_finite() && end > start) {
            return Err(format(at, Problem::Time));
        }
        if path.last().is_some_and(|s: &Segment| s.end > start) {
            return Err(format(at, Problem::Order));
        }
        path.push(Segment {
            timeline,
            start,
            end,
        });
    }
    if c.left() != 0 {
        return Err(format(c.at(), Problem::Trailing));
    }
    Ok(WaitIndex {
        from: h.from,
        to: h.to,
        root: h.root,
        binding: h.binding,
        block: h.block,
        calls,
        lanes,
        path_lanes: fine::path_lanes(&path),
        path,
    })
}

/// One timeline's directory and `n` waits.
fn lane(timeline: i32, n: u32, block: usize, c: &mut impl Source) -> Result<Lane, Error> {
    let nb = u64::from(n).div_ceil(block as u64);
    let dir_at = c.at();
    c.room(nb, BLOCK_ENTRY)?;
    let dir_bytes = c.take(nb as usize * BLOCK_ENTRY)?.to_vec();
    let mut waits = Vec::with_capacity(c.room(u64::from(n), WAIT)?);
    for _ in 0..n {
        // Every wait is there (the room above).
        let at = c.at();
        let r = c.take(WAIT)?;
        let f = |i| f64::from_le_bytes(le(r, i));
        let (start, end, cause) = (f(0), f(8), f(16));
        if !(start.is_finite() && end.is_finite() && cause.is_finite() && end > start) {
            return Err(format(at, Problem::Time));
        }
        if waits.last().is_some_and(|w: &Wait| {
            (w.start, w.end).partial_cmp(&(start, end)) == Some(std::cmp::Ordering::Greater)
        }) {
            return Err(format(at, Problem::Order));
        }
        let partner = i32::from_le_bytes(le(r, 24));
        let call = i32::from_le_bytes(le(r, 28));
        let Some(&pattern) = Pattern::ALL.get(r[32] as usize) else {
            return Err(format(at + 32, Problem::Pattern));
        };
        if r[33..36] != [0, 0, 0] {
            return Err(format(at + 33, Problem::Layout));
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
    let mut e = [0u8; BLOCK_ENTRY];
    for (k, (d, have)) in dir
        .iter()
        .zip(dir_bytes.chunks_exact(BLOCK_ENTRY))
        .enumerate()
    {
        for (i, x) in [d.first, d.reach, d.longest]
            .iter()
            .chain(&d.before)
            .enumerate()
        {
            e[i * 8..(i + 1) * 8].copy_from_slice(&x.to_le_bytes());
        }
        if let Some(i) = (0..BLOCK_ENTRY).find(|&i| e[i] != have[i]) {
            return Err(format(
                dir_at + (k * BLOCK_ENTRY + i) as u64,
                Problem::Directory,
            ));
        }
    }
    let fine = fine::Fine::new(&waits);
    Ok(Lane {
        timeline,
        waits,
        dir,
        fine,
    })
}

/// Reads the index whose `size` bytes `r` gives from its start; `fresh`: a
/// trace's binding it must hold, looked at once the header is read.
fn read_stream<R: Read>(
    mut r: R,
    size: u64,
    path: &Path,
    fresh: Option<&Binding>,
) -> Result<WaitIndex, Error> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut head = vec![0; size.min(HEADER as u64) as usize];
    r.read_exact(&mut head).map_err(io)?;
    let h = header(&head)?;
    if let Some(now) = fresh {
        match h.binding.map(|b| b.differs(now)) {
            None => return Err(Error::Stale(Stale::Unbound)),
            Some(Some(s)) => return Err(Error::Stale(s)),
            Some(None) => {}
        }
    }
    if size < (HEADER + 4) as u64 {
        return Err(format(size, Problem::Truncated));
    }
    let end = size - 4;
    let mut crc = flate2::Crc::new();
    crc.update(&head);
    let mut s = Stream {
        r: BufReader::with_capacity(
            1 << 16,
            Summing {
                r: r.take(end - HEADER as u64),
                crc,
            },
        ),
        at: HEADER as u64,
        end,
        buf: Vec::new(),
        path,
    };
    let parsed = body(h, &mut s);
    if let Err(e @ Error::Io { .. }) = parsed {
        return Err(e);
    }
    // The checksum first: damage is reported as damage.
    let (sum, mut r) = s.finish()?;
    let mut have = [0u8; 4];
    if let Err(e) = r.read_exact(&mut have) {
        return Err(match e.kind() {
            std::io::ErrorKind::UnexpectedEof => format(end, Problem::Truncated),
            _ => io(e),
        });
    }
    if sum.to_le_bytes() != have {
        return Err(format(end, Problem::Checksum));
    }
    parsed
}

impl WaitIndex {
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
        let h = header(&bytes[..bytes.len().min(HEADER)])?;
        if bytes.len() < HEADER + 4 {
            return Err(format(bytes.len() as u64, Problem::Truncated));
        }
        // The checksum first: damage is reported as damage.
        let end = bytes.len() - 4;
        let mut crc = flate2::Crc::new();
        crc.update(&bytes[..end]);
        if crc.sum().to_le_bytes() != bytes[end..] {
            return Err(format(end as u64, Problem::Checksum));
        }
        body(
            h,
            &mut Slice {
                b: &bytes[..end],
                at: HEADER,
            },
        )
    }

    /// Reads the index at `path`, as [`from_bytes`](Self::from_bytes) does
    /// its bytes, in pieces: what it holds after is the index, not a copy of
    /// the file too.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when it cannot be read, [`Error::Format`] as
    /// [`from_bytes`](Self::from_bytes).
    ///
    /// ```
    /// use mpelog::waits::WaitIndex;
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("t.clog2.waits");
    /// let ix = WaitIndex::new(vec![], vec![], vec![(3, "MPI_Recv".into())], (0.0, 1.0), 0, 64);
    /// std::fs::write(&path, ix.to_bytes()).unwrap();
    /// assert_eq!(WaitIndex::read_file(&path)?, ix);
    /// # Ok::<(), mpelog::waits::Error>(())
    /// ```
    pub fn read_file(path: &Path) -> Result<WaitIndex, Error> {
        WaitIndex::open(path, None)
    }

    /// Reads the index of `trace` at `index` when it is fresh: bound to the
    /// trace as it is now. Only the index's header is read when it is not.
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
        let now = Binding::of(trace)?;
        WaitIndex::open(index, Some(&now))
    }

    fn open(path: &Path, fresh: Option<&Binding>) -> Result<WaitIndex, Error> {
        let io = |source| Error::Io {
            path: PathBuf::from(path),
            source,
        };
        let file = std::fs::File::open(path).map_err(io)?;
        let size = file.metadata().map_err(io)?.len();
        read_stream(file, size, path, fresh)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both sources give the same index or the same error for any bytes.
    fn same(bytes: &[u8]) {
        let a = WaitIndex::from_bytes(bytes);
        let b = read_stream(bytes, bytes.len() as u64, Path::new("x"), None);
        match (&a, &b) {
            (Ok(x), Ok(y)) => assert_eq!(x, y),
            (Err(x), Err(y)) => assert_eq!(
                (x.offset(), format!("{x}")),
                (y.offset(), format!("{y}")),
                "{bytes:?}"
            ),
            _ => panic!("{a:?} against {b:?}"),
        }
    }

    fn sample() -> Vec<u8> {
        let w = |timeline, start: f64, pattern| Wait {
            timeline,
            start,
            end: start + 0.5,
            pattern,
            partner: Some(1),
            cause: start + 0.5,
            call: 3,
        };
        let waits = (0..40)
            .map(|i| w(i % 3, f64::from(i), Pattern::ALL[i as usize % PATTERNS]))
            .collect();
        let path = vec![Segment {
            timeline: 0,
            start: 0.0,
            end: 2.0,
        }];
        WaitIndex::new(waits, path, vec![(3, "MPI_Recv".into())], (0.0, 41.0), 0, 4).to_bytes()
    }

    #[test]
    fn a_file_read_in_pieces_is_its_bytes_read_whole() {
        let b = sample();
        same(&b);
        for n in 0..b.len() {
            same(&b[..n]);
        }
        let mut t = b.clone();
        t.extend_from_slice(&[0; 9]);
        same(&t);
    }

    proptest::proptest! {
        /// Damage anywhere, with the checksum made good again or not.
        #[test]
        fn damaged_bytes_give_the_same_answer_both_ways(
            at in 0usize..4096, byte: u8, resum: bool, cut in 0usize..64,
        ) {
            let mut b = sample();
            let i = at % b.len();
            b[i] = byte;
            let keep = b.len().saturating_sub(cut);
            b.truncate(keep);
            if resum && b.len() >= 4 {
                let end = b.len() - 4;
                let mut crc = flate2::Crc::new();
                crc.update(&b[..end]);
                b[end..].copy_from_slice(&crc.sum().to_le_bytes());
            }
            same(&b);
        }
    }
}
