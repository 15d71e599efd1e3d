//! The chunked record stream shared by definition and event files: chunk
//! headers, record framing, end-of-chunk and end-of-file markers, read
//! through a window of bounded size (spec/otf2.md §3).

use crate::decode::{compressed_payload, Cur, Endian};
use crate::error::{Error, Problem, Result};
use crate::limits::Limits;
use crate::source::Source;
use std::path::PathBuf;

/// Record type bytes of the buffer layer.
pub mod marker {
    /// Rest of the chunk is padding; the next chunk follows.
    pub const END_OF_CHUNK: u8 = 0;
    /// The file's last record has been read.
    pub const END_OF_FILE: u8 = 2;
    /// First byte of every chunk.
    pub const CHUNK_HEADER: u8 = 3;
    /// An event file's timestamp: 8 fixed bytes follow.
    pub const TIMESTAMP: u8 = 5;
    /// An event's attribute list (a record with a length).
    pub const ATTRIBUTE_LIST: u8 = 6;
}

/// Event record types written without a length: one compressed value.
///
/// ```
/// use otf2_format::stream::is_singleton_event;
/// assert!(is_singleton_event(12)); // Enter: the region alone
/// assert!(!is_singleton_event(14));
/// ```
pub fn is_singleton_event(t: u8) -> bool {
    matches!(t, 12 | 13 | 16 | 17 | 20 | 21 | 24 | 28 | 29 | 30)
}

/// One step of a record stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Raw {
    /// A timestamp record (event files only).
    Time(u64),
    /// A record; its payload is in [`RecordStream::rec`], starting at `offset`.
    Record { rtype: u8, offset: u64 },
    /// The end-of-file marker, or the end of the last chunk.
    End,
}

/// Reads a definitions file (global or a location's: records, no
/// timestamps) to its end, handing each record's type and offset to `record`
/// with the stream (whose [`cursor`](RecordStream::cursor) reads it).
pub(crate) fn each_definition<S: Source>(
    src: S,
    file: PathBuf,
    chunk_size: u64,
    limits: &Limits,
    mut record: impl FnMut(&mut RecordStream<S>, u8, u64) -> Result<()>,
) -> Result<()> {
    let mut s = RecordStream::new(src, file, chunk_size, false, limits.window_bytes);
    loop {
        match s.next()? {
            Raw::End => return Ok(()),
            Raw::Time(_) => unreachable!("definition streams have no timestamps"),
            Raw::Record { rtype, offset } => record(&mut s, rtype, offset)?,
        }
    }
}

pub(crate) struct RecordStream<S: Source> {
    src: S,
    pub file: PathBuf,
    len: u64,
    chunk_size: u64,
    events: bool,
    chunk_start: u64,
    chunk_end: u64,
    started: bool,
    finished: bool,
    pub endian: Endian,
    win: Vec<u8>,
    win_start: u64,
    pos: u64,
    window: usize,
    /// Where the last record's payload is in `win`.
    rec: std::ops::Range<usize>,
    /// Chunks entered so far.
    pub chunks: u64,
}

impl<S: Source> RecordStream<S> {
    pub fn new(src: S, file: PathBuf, chunk_size: u64, events: bool, window: usize) -> Self {
        let len = src.len();
        RecordStream {
            src,
            file,
            len,
            chunk_size: chunk_size.max(1),
            events,
            chunk_start: 0,
            chunk_end: 0,
            started: false,
            finished: false,
            endian: Endian::Little,
            win: Vec::new(),
            win_start: 0,
            pos: 0,
            window: window.max(64),
            rec: 0..0,
            chunks: 0,
        }
    }

    /// Makes `[pos, pos + n)` available in the window.
    fn ensure(&mut self, n: u64, what: &'static str) -> Result<()> {
        if self.pos.saturating_add(n) > self.chunk_end {
            return Err(Error::truncated(&self.file, self.pos, what));
        }
        let have_end = self.win_start + self.win.len() as u64;
        if self.pos >= self.win_start && self.pos + n <= have_end {
            return Ok(());
        }
        let want = (self.window as u64).max(n).min(self.chunk_end - self.pos);
        let want =
            usize::try_from(want).map_err(|_| Error::truncated(&self.file, self.pos, what))?;
        self.win.clear();
        self.win.resize(want, 0);
        let got = self
            .src
            .read_at(self.pos, &mut self.win)
            .map_err(|e| Error::io(&self.file, self.pos, e))?;
        self.win.truncate(got);
        self.win_start = self.pos;
        if (got as u64) < n {
            return Err(Error::truncated(&self.file, self.pos + got as u64, what));
        }
        Ok(())
    }

    fn at(&self, n: u64, len: usize) -> &[u8] {
        let s = (self.pos + n - self.win_start) as usize;
        &self.win[s..s + len]
    }

    fn start_chunk(&mut self) -> Result<()> {
        self.chunk_end = self
            .chunk_start
            .saturating_add(self.chunk_size)
            .min(self.len);
        self.pos = self.chunk_start;
        self.chunks += 1;
        self.ensure(2, "chunk header")?;
        let h = self.at(0, 2);
        let (kind, e) = (h[0], h[1]);
        if kind != marker::CHUNK_HEADER {
            return Err(Error::invalid(
                &self.file,
                self.pos,
                Problem::ChunkHeader(kind),
            ));
        }
        self.endian = Endian::from_byte(e)
            .ok_or_else(|| Error::invalid(&self.file, self.pos + 1, Problem::Endianness(e)))?;
        self.pos += 2;
        self.ensure(16, "chunk header's event numbers")?;
        self.pos += 16;
        Ok(())
    }

    pub fn next(&mut self) -> Result<Raw> {
        if self.finished {
            return Ok(Raw::End);
        }
        if !self.started {
            self.started = true;
            if self.len == 0 {
                return Err(Error::truncated(&self.file, 0, "chunk header"));
            }
            self.start_chunk()?;
        }
        loop {
            self.ensure(1, "record type")?;
            let t = self.at(0, 1)[0];
            match t {
                marker::END_OF_CHUNK => {
                    self.chunk_start = self.chunk_start.saturating_add(self.chunk_size);
                    if self.chunk_start >= self.len {
                        self.finished = true;
                        return Ok(Raw::End);
                    }
                    self.start_chunk()?;
                }
                marker::END_OF_FILE => {
                    self.finished = true;
                    return Ok(Raw::End);
                }
                marker::TIMESTAMP if self.events => {
                    self.ensure(9, "timestamp")?;
                    let b = self.at(1, 8);
                    let mut c = Cur::new(b, self.pos + 1, self.endian, &self.file);
                    let time = c.u64_full("timestamp")?;
                    self.pos += 9;
                    return Ok(Raw::Time(time));
                }
                marker::CHUNK_HEADER => {
                    return Err(Error::invalid(
                        &self.file,
                        self.pos,
                        Problem::ChunkInsideChunk,
                    ));
                }
                _ => {
                    self.pos += 1;
                    let (hdr, len) = if self.events && is_singleton_event(t) {
                        self.ensure(1, "record value")?;
                        (0u64, 1 + compressed_payload(self.at(0, 1)[0]) as u64)
                    } else {
                        self.ensure(1, "record length")?;
                        let l = self.at(0, 1)[0];
                        if l == 0xff {
                            self.ensure(9, "record length")?;
                            let b = self.at(1, 8);
                            let mut c = Cur::new(b, self.pos + 1, self.endian, &self.file);
                            (9, c.u64_full("record length")?)
                        } else {
                            (1, u64::from(l))
                        }
                    };
                    self.pos += hdr;
                    self.ensure(len, "record")?;
                    let offset = self.pos;
                    let s = (self.pos - self.win_start) as usize;
                    // The record stays in the window (nothing moves it before
                    // the next call): the cursor reads it there.
                    self.rec = s..s + len as usize;
                    self.pos += len;
                    return Ok(Raw::Record { rtype: t, offset });
                }
            }
        }
    }

    /// A cursor over the last record's payload.
    pub fn cursor(&self, offset: u64) -> Cur<'_> {
        Cur::new(&self.win[self.rec.clone()], offset, self.endian, &self.file)
    }
}
