//! Reading CLOG2 files block by block, from any [`Read`] or from a byte slice (for
//! example a memory map) without copying.
//!
//! Both readers parse a whole block from memory at a time, so the memory they use is
//! bounded by the block size, and they apply the same structural checks: whole
//! blocks, a terminator in every block, ENDLOG in the last block only, the comm
//! table where the preamble says, and nothing after it.

use crate::codec::{decode_block, decode_head, Block, Layout, RecordHead, RecordRef};
use crate::commtable::{CommTable, ENTRY_LEN};
use crate::error::{Error, Expected, Result, ValueProblem, WriteProblem};
use crate::preamble::{Preamble, PREAMBLE_LEN};
use crate::record::{rectype, Record};
use std::io::Read;
use std::ops::ControlFlow;

/// Where a reader gets its bytes from: whole blocks at a time.
pub trait Source {
    /// Loads up to `len` more bytes and returns how many were loaded (fewer only at
    /// the end of the input). They are then available from [`Source::loaded`].
    ///
    /// # Errors
    ///
    /// Those of the underlying reader; the [`Clog2Reader`]
    /// reports them as [`Error::Io`] at the offset of the block it was loading.
    ///
    /// ```
    /// use clog2_format::{SliceSource, Source};
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut src = SliceSource::new(&bytes);
    /// assert_eq!(src.load(1024)?, 1024); // the preamble
    /// assert_eq!(src.load(usize::MAX)?, bytes.len() - 1024); // fewer only at the end
    /// assert_eq!(src.load(10)?, 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn load(&mut self, len: usize) -> std::io::Result<usize>;
    /// The bytes of the last [`Source::load`].
    ///
    /// ```
    /// use clog2_format::{ReadSource, Source};
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut src = ReadSource::new(&bytes[..]);
    /// src.load(10)?;
    /// assert_eq!(src.loaded(), b"CLOG-02.44");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn loaded(&self) -> &[u8];
}

/// A [`Source`] over any [`Read`]: one buffer, reused for every block.
#[derive(Debug)]
pub struct ReadSource<R> {
    inner: R,
    buf: Vec<u8>,
}

impl<R: Read> ReadSource<R> {
    /// Wraps a reader. For files, no extra buffering is needed: blocks are read whole.
    ///
    /// ```
    /// use clog2_format::{Clog2Reader, ReadSource};
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut r = Clog2Reader::with_source(ReadSource::new(std::io::Cursor::new(&bytes)))?;
    /// assert!(r.next_record()?.is_some());
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn new(inner: R) -> Self {
        ReadSource {
            inner,
            buf: Vec::new(),
        }
    }
}

impl<R: Read> Source for ReadSource<R> {
    fn load(&mut self, len: usize) -> std::io::Result<usize> {
        self.buf.clear();
        // `take` + `read_to_end` grows the buffer only as data arrives, so a huge
        // length from a corrupt preamble cannot force a huge allocation.
        (&mut self.inner)
            .take(len as u64)
            .read_to_end(&mut self.buf)
    }

    fn loaded(&self) -> &[u8] {
        &self.buf
    }
}

/// A zero-copy [`Source`] over a byte slice (or memory map).
#[derive(Debug, Clone)]
pub struct SliceSource<'a> {
    data: &'a [u8],
    pos: usize,
    cur: std::ops::Range<usize>,
}

impl<'a> SliceSource<'a> {
    /// Reads from `data`.
    ///
    /// ```
    /// use clog2_format::{Clog2Reader, SliceSource};
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut r = Clog2Reader::with_source(SliceSource::new(&bytes))?;
    /// assert!(r.next_record()?.is_some());
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn new(data: &'a [u8]) -> Self {
        SliceSource {
            data,
            pos: 0,
            cur: 0..0,
        }
    }
}

impl Source for SliceSource<'_> {
    fn load(&mut self, len: usize) -> std::io::Result<usize> {
        let end = self.pos.saturating_add(len).min(self.data.len());
        self.cur = self.pos..end;
        self.pos = end;
        Ok(end - self.cur.start)
    }

    fn loaded(&self) -> &[u8] {
        &self.data[self.cur.clone()]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Between blocks, more expected.
    BlockStart,
    /// Inside the loaded block at this position.
    InBlock(usize),
    /// ENDLOG seen; the comm table (if any) comes next.
    AfterEndLog,
    /// Everything read.
    Done,
}

/// A CLOG2 reader. Use [`Clog2Reader::new`] for a [`Read`] and
/// [`Clog2Reader::from_slice`] for bytes in memory.
///
/// Read records one at a time with [`Clog2Reader::next_record`] (or
/// [`Clog2Reader::records`]), or whole blocks, trailing bytes included, with
/// [`Clog2Reader::next_block`]; then call [`Clog2Reader::finish`] for the comm table.
/// Do not mix records and blocks within one block.
///
/// ```
/// use clog2_format::{synth, Clog2Reader};
/// let bytes = synth::generate_vec(&synth::Options::default().events(500).block_size(4096))?;
/// let mut r = Clog2Reader::from_slice(&bytes)?;
/// let mut blocks = 0;
/// while let Some(b) = r.next_block()? {
///     assert!(b.records.last().is_some_and(|t| t.is_terminator()));
///     blocks += 1;
/// }
/// let table = r.finish()?.expect("02.44 has a comm table");
/// assert_eq!(1024 + blocks * 4096 + table.disk_len(), bytes.len() as u64);
/// # Ok::<(), clog2_format::Error>(())
/// ```
#[derive(Debug)]
pub struct Clog2Reader<S> {
    src: S,
    preamble: Preamble,
    layout: Layout,
    block_size: usize,
    /// File offset of the next byte to load.
    offset: u64,
    /// File offset of the loaded block.
    block_base: u64,
    /// Index of the loaded block (or of the next one, between blocks).
    block_index: u64,
    /// Whole blocks loaded so far.
    loaded: u64,
    state: State,
}

/// The default of [`ReadOptions::max_block_bytes`]: the largest block size the
/// format allows ([`crate::preamble::MAX_BLOCK_SIZE`], 1 GiB), so that by
/// default every valid file reads; lower it to bound memory.
pub const DEFAULT_MAX_BLOCK_BYTES: u64 = crate::preamble::MAX_BLOCK_SIZE as u64;

/// How a [`Clog2Reader`] over a [`Read`] reads: the largest block it allocates
/// a buffer for (image-png's `Limits`). A reader over a slice allocates no block.
///
/// ```
/// let opts = clog2_format::ReadOptions::default().max_block_bytes(1 << 20);
/// assert_eq!(opts.max_block_bytes, 1 << 20);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReadOptions {
    /// The largest `block_size` the reader accepts (it reads one whole block
    /// at a time); a larger one is an [`Error::LimitExceeded`] before anything
    /// is allocated. Default [`DEFAULT_MAX_BLOCK_BYTES`].
    pub max_block_bytes: u64,
}

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        ReadOptions {
            max_block_bytes: DEFAULT_MAX_BLOCK_BYTES,
        }
    }
}

impl ReadOptions {
    /// Sets [`max_block_bytes`](Self::max_block_bytes).
    ///
    /// ```
    /// let bytes = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(500))?;
    /// // A limit below the file's block size is refused before any block is read.
    /// let opts = clog2_format::ReadOptions::default().max_block_bytes(1024);
    /// assert!(clog2_format::Clog2Reader::with_options(&bytes[..], opts).is_err());
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn max_block_bytes(mut self, max_block_bytes: u64) -> Self {
        self.max_block_bytes = max_block_bytes;
        self
    }
}

impl<R: Read> Clog2Reader<ReadSource<R>> {
    /// Reads the preamble from `inner`; blocks follow on demand, one whole
    /// block per read.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] at offset 0 when the preamble cannot be read, then as
    /// [`Preamble::parse`]; [`Error::LimitExceeded`] at the `block_size=` value when
    /// the block size is over [`ReadOptions::max_block_bytes`]; [`Error::BadValue`] at
    /// the `commtable_fptr` value when the comm table does not start after whole blocks.
    ///
    /// # Examples
    ///
    /// ```
    /// use clog2_format::{synth, Clog2Reader};
    /// let bytes = synth::generate_vec(&synth::Options::default().events(500)).unwrap();
    /// let mut r = Clog2Reader::new(&bytes[..])?;
    /// assert!(r.records().count() > 400);
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn new(inner: R) -> Result<Self> {
        Self::with_options(inner, ReadOptions::default())
    }

    /// Reads as [`new`](Self::new) does, within the limits of `opts`.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new), with `opts`' limit.
    ///
    /// # Examples
    ///
    /// ```
    /// use clog2_format::{synth, Clog2Reader, Error, ReadOptions};
    /// let bytes = synth::generate_vec(&synth::Options::default().block_size(65536)).unwrap();
    /// let small = ReadOptions::default().max_block_bytes(4096);
    /// assert!(matches!(Clog2Reader::with_options(&bytes[..], small), Err(Error::LimitExceeded { .. })));
    /// ```
    pub fn with_options(inner: R, opts: ReadOptions) -> Result<Self> {
        Self::with_source_limited(ReadSource::new(inner), opts.max_block_bytes)
    }
}

impl<'a> Clog2Reader<SliceSource<'a>> {
    /// Reads the preamble from `data`; records are parsed in place.
    ///
    /// # Errors
    ///
    /// A bad preamble, with its byte offset.
    ///
    /// # Examples
    ///
    /// ```
    /// let bytes = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(500))?;
    /// let mut r = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// assert!(r.records().count() > 400);
    /// assert!(clog2_format::Clog2Reader::from_slice(b"not a trace").is_err());
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn from_slice(data: &'a [u8]) -> Result<Self> {
        Self::with_source(SliceSource::new(data))
    }
}

impl<S: Source> Clog2Reader<S> {
    /// Reads the preamble from `src`.
    ///
    /// # Errors
    ///
    /// A bad preamble, with its byte offset, or a read error.
    ///
    /// # Examples
    ///
    /// ```
    /// use clog2_format::{Clog2Reader, SliceSource};
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let r = Clog2Reader::with_source(SliceSource::new(&bytes))?;
    /// assert_eq!(r.offset(), 1024);
    /// assert!(Clog2Reader::with_source(SliceSource::new(b"short")).is_err());
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn with_source(src: S) -> Result<Self> {
        Self::with_source_limited(src, u64::MAX)
    }

    fn with_source_limited(mut src: S, max_block_bytes: u64) -> Result<Self> {
        let n = src
            .load(PREAMBLE_LEN)
            .map_err(|source| Error::Io { offset: 0, source })?;
        let preamble = Preamble::parse(&src.loaded()[..n])?;
        let info = preamble.info();
        let layout = Layout {
            endian: preamble.endian(),
            version: info.version,
        };
        let block_size = info.block_size as usize;
        if block_size as u64 > max_block_bytes {
            return Err(Error::LimitExceeded {
                offset: preamble.field_offset(crate::preamble::Field::BlockSize),
                size: block_size as u64,
                limit: max_block_bytes,
            });
        }
        if let Some(f) = info.commtable_fptr.filter(|&f| f != 0) {
            let k = f.checked_sub(PREAMBLE_LEN as u64);
            // k = 0 is allowed (spec/clog2.md §3.3): the block stream is then empty,
            // which the block reader reports as a missing ENDLOG.
            if k.is_none_or(|k| k % block_size as u64 != 0) {
                return Err(Error::BadValue {
                    offset: preamble.field_offset(crate::preamble::Field::CommtableFptr),
                    field: "commtable_fptr",
                    value: f as i64,
                    problem: ValueProblem::CommTableNotAfterBlocks {
                        block_size: block_size as u64,
                    },
                });
            }
        }
        Ok(Clog2Reader {
            src,
            preamble,
            layout,
            block_size,
            offset: PREAMBLE_LEN as u64,
            block_base: PREAMBLE_LEN as u64,
            block_index: 0,
            loaded: 0,
            state: State::BlockStart,
        })
    }

    /// The preamble.
    ///
    /// ```
    /// let bytes = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().ranks(8))?;
    /// let r = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// assert_eq!(r.preamble().info().comm_world_size, Some(8));
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn preamble(&self) -> &Preamble {
        &self.preamble
    }

    /// Byte order and version of the records.
    ///
    /// ```
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let r = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// assert_eq!(r.layout().version, r.preamble().info().version);
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// File offset of the next byte the reader will load.
    ///
    /// ```
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut r = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// assert_eq!(r.offset(), 1024); // after the preamble
    /// r.next_record()?;
    /// assert_eq!(r.offset(), 1024 + 65536); // after the first block
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The bytes of the block loaded last (the block of the record returned last),
    /// and its file offset; empty before the first block.
    ///
    /// ```
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut r = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// assert!(r.loaded_block().0.is_empty());
    /// r.next_record()?;
    /// let (block, at) = r.loaded_block();
    /// assert_eq!((block.len(), at), (65536, 1024));
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn loaded_block(&self) -> (&[u8], u64) {
        match self.state {
            State::BlockStart if self.block_index == 0 => (&[], self.block_base),
            _ => (self.src.loaded(), self.block_base),
        }
    }

    /// Number of blocks loaded so far.
    ///
    /// ```
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut r = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// r.finish()?;
    /// assert_eq!(r.blocks_read(), (bytes.len() as u64 - 1024) / 65536);
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn blocks_read(&self) -> u64 {
        self.loaded
    }

    /// Where the block stream must end, if the preamble says.
    fn blocks_end(&self) -> Option<u64> {
        self.preamble.info().commtable_fptr.filter(|&f| f != 0)
    }

    fn load_block(&mut self) -> Result<()> {
        if let Some(end) = self.blocks_end() {
            if self.offset >= end {
                return Err(Error::MissingEndLog {
                    offset: self.offset,
                });
            }
        }
        let base = self.offset;
        let n = self.src.load(self.block_size).map_err(|source| Error::Io {
            offset: base,
            source,
        })?;
        self.offset += n as u64;
        if n == 0 {
            return Err(Error::MissingEndLog { offset: base });
        }
        if n < self.block_size {
            return Err(Error::Truncated {
                offset: base + n as u64,
                expected: Expected::Block {
                    index: self.block_index,
                    size: self.block_size as u64,
                    have: n as u64,
                },
            });
        }
        self.block_base = base;
        self.loaded += 1;
        self.state = State::InBlock(0);
        Ok(())
    }

    /// The next record (terminators included), or `None` after ENDLOG.
    ///
    /// # Errors
    ///
    /// A record or block that cannot be read, at its byte offset.
    ///
    /// # Examples
    ///
    /// ```
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut r = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// let mut n = 0;
    /// while let Some(rec) = r.next_record()? {
    ///     assert!(rec.time >= 0.0);
    ///     n += 1;
    /// }
    /// assert!(n > 9_000);
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn next_record(&mut self) -> Result<Option<Record>> {
        Ok(self.next_record_at()?.map(|(r, _)| r))
    }

    /// The next record with its file offset, or `None` after ENDLOG. After an error
    /// the reader is exhausted.
    ///
    /// # Errors
    ///
    /// As [`next_record`](Self::next_record).
    ///
    /// # Examples
    ///
    /// ```
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut r = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// let (_, at) = r.next_record_at()?.unwrap();
    /// assert_eq!(at, 1024); // the first block's first record
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn next_record_at(&mut self) -> Result<Option<(Record, u64)>> {
        let r = self.step_record();
        if r.is_err() {
            self.state = State::Done;
        }
        r
    }

    fn step_record(&mut self) -> Result<Option<(Record, u64)>> {
        Ok(self.next_ref()?.map(|(r, at)| (r.to_record(), at)))
    }

    /// The next record read in place (header fields decoded, body bytes borrowed
    /// from the loaded block; nothing copied or allocated), with its file offset,
    /// or `None` after ENDLOG. The fastest way through a file: the record lives
    /// until the next call. After an error the reader is exhausted.
    ///
    /// # Errors
    ///
    /// As [`next_record`](Self::next_record).
    ///
    /// # Examples
    ///
    /// ```
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut by_ref = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// let mut owned = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// while let Some((rec, _)) = by_ref.next_ref()? {
    ///     assert_eq!(rec.to_record(), owned.next_record()?.unwrap());
    /// }
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn next_ref(&mut self) -> Result<Option<(RecordRef<'_>, u64)>> {
        match self.step_head() {
            Ok(Some((head, at))) => Ok(Some((head.view(self.src.loaded(), self.layout), at))),
            Ok(None) => Ok(None),
            Err(e) => {
                self.state = State::Done;
                Err(e)
            }
        }
    }

    /// Calls `f` with each remaining record read in place (as
    /// [`Clog2Reader::next_ref`] gives them, ENDLOG included) and its file
    /// offset, until ENDLOG or until `f` breaks; returns what `f` broke with.
    /// The same records as a loop over `next_ref`, without its per-record state
    /// handling: the fastest way through a file. After an error the reader is
    /// exhausted.
    ///
    /// # Errors
    ///
    /// As [`next_record`](Self::next_record): the first record or block that cannot be
    /// read, at its byte offset.
    ///
    /// # Examples
    ///
    /// ```
    /// use clog2_format::{synth, Clog2Reader};
    /// use std::ops::ControlFlow;
    /// let bytes = synth::generate_vec(&synth::Options::default().events(500)).unwrap();
    /// let mut r = Clog2Reader::from_slice(&bytes).unwrap();
    /// let mut n = 0;
    /// let stop: Option<()> = r
    ///     .for_each_ref(|_rec, _offset| {
    ///         n += 1;
    ///         ControlFlow::Continue(())
    ///     })
    ///     .unwrap();
    /// assert!(stop.is_none());
    /// let mut again = Clog2Reader::from_slice(&bytes).unwrap();
    /// let mut m = 0;
    /// while again.next_ref().unwrap().is_some() {
    ///     m += 1;
    /// }
    /// assert_eq!(n, m);
    /// ```
    pub fn for_each_ref<B>(
        &mut self,
        mut f: impl FnMut(&RecordRef<'_>, u64) -> ControlFlow<B>,
    ) -> Result<Option<B>> {
        loop {
            let mut pos = match self.state {
                State::AfterEndLog | State::Done => return Ok(None),
                State::BlockStart => {
                    if let Err(e) = self.load_block() {
                        self.state = State::Done;
                        return Err(e);
                    }
                    0
                }
                State::InBlock(p) => p,
            };
            let block = self.src.loaded();
            let (layout, base, index) = (self.layout, self.block_base, self.block_index);
            loop {
                let head = match decode_head(block, pos, layout, base, index) {
                    Ok(h) => h,
                    Err(e) => {
                        self.state = State::Done;
                        return Err(e);
                    }
                };
                let at = base + pos as u64;
                pos = head.body.1;
                let flow = f(&head.view(block, layout), at);
                let ended = match head.rectype {
                    rectype::ENDBLOCK => {
                        self.block_index += 1;
                        self.state = State::BlockStart;
                        true
                    }
                    rectype::ENDLOG => {
                        self.state = State::AfterEndLog;
                        true
                    }
                    _ => {
                        self.state = State::InBlock(pos);
                        false
                    }
                };
                if let ControlFlow::Break(b) = flow {
                    return Ok(Some(b));
                }
                if ended {
                    break;
                }
            }
        }
    }

    /// Decodes the next record's header and moves past the record.
    #[inline]
    fn step_head(&mut self) -> Result<Option<(RecordHead, u64)>> {
        let pos = match self.state {
            State::AfterEndLog | State::Done => return Ok(None),
            State::BlockStart => {
                self.load_block()?;
                0
            }
            State::InBlock(p) => p,
        };
        let head = decode_head(
            self.src.loaded(),
            pos,
            self.layout,
            self.block_base,
            self.block_index,
        )?;
        self.state = match head.rectype {
            rectype::ENDBLOCK => {
                self.block_index += 1;
                State::BlockStart
            }
            rectype::ENDLOG => State::AfterEndLog,
            _ => State::InBlock(head.body.1),
        };
        Ok(Some((head, self.block_base + pos as u64)))
    }

    /// The next whole block (records and trailing bytes), or `None` after the block
    /// that holds ENDLOG. After an error the reader is exhausted.
    ///
    /// # Errors
    ///
    /// A block that cannot be read, at its byte offset, and a call in the
    /// middle of a block (after [`next_record`](Self::next_record)).
    ///
    /// # Examples
    ///
    /// ```
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut r = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// let mut blocks = 0;
    /// while let Some(b) = r.next_block()? {
    ///     blocks += 1;
    ///     assert!(!b.records.is_empty());
    /// }
    /// assert_eq!(blocks, r.blocks_read());
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn next_block(&mut self) -> Result<Option<Block>> {
        let r = self.step_block();
        if r.is_err() {
            self.state = State::Done;
        }
        r
    }

    fn step_block(&mut self) -> Result<Option<Block>> {
        match self.state {
            State::AfterEndLog | State::Done => return Ok(None),
            State::InBlock(_) => return Err(Error::Write(WriteProblem::MidBlock)),
            State::BlockStart => self.load_block()?,
        }
        let block = decode_block(
            self.src.loaded(),
            self.layout,
            self.block_base,
            self.block_index,
        )?;
        if block.is_last() {
            self.state = State::AfterEndLog;
        } else {
            self.block_index += 1;
            self.state = State::BlockStart;
        }
        Ok(Some(block))
    }

    /// An iterator over the remaining records.
    ///
    /// ```
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut r = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// let ranks: std::collections::BTreeSet<i32> = r.records().map(|x| x.map(|x| x.rank)).collect::<Result<_, _>>()?;
    /// assert_eq!(ranks.len(), 4);
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn records(&mut self) -> Records<'_, S> {
        Records { reader: self }
    }

    /// Reads what follows the block stream: checks that the stream ended where the
    /// preamble says, reads the comm table (versions 02.43 on, when the pointer is
    /// not 0) and checks that nothing follows it. Reads the remaining records first
    /// if ENDLOG has not been reached.
    ///
    /// # Errors
    ///
    /// A record that cannot be read, a block stream that does not end where the
    /// preamble says, a bad comm table, bytes after it, and a second call.
    ///
    /// # Examples
    ///
    /// ```
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut r = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// let table = r.finish()?.expect("02.43 on has a comm table");
    /// assert!(!table.entries.is_empty());
    /// assert!(r.finish().is_err());
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn finish(&mut self) -> Result<Option<CommTable>> {
        while self.next_record()?.is_some() {}
        if self.state == State::Done {
            return Err(Error::Write(WriteProblem::FinishedTwice));
        }
        self.state = State::Done;
        let table = match self.blocks_end() {
            Some(end) if self.preamble.info().version.has_comm_table() => {
                if self.offset < end {
                    // Blocks follow ENDLOG (#14), unless the input ends here: then
                    // the pointer is past the end of the file (#8).
                    let n = self.src.load(1).map_err(|source| Error::Io {
                        offset: self.offset,
                        source,
                    })?;
                    if n == 0 {
                        return Err(Error::BadValue {
                            offset: self
                                .preamble
                                .field_offset(crate::preamble::Field::CommtableFptr),
                            field: "commtable_fptr",
                            value: end as i64,
                            problem: ValueProblem::CommTablePastEnd { len: self.offset },
                        });
                    }
                    return Err(Error::DataAfterEndLog {
                        offset: self.offset,
                        expected_end: end,
                    });
                }
                let n = self.src.load(4).map_err(|source| Error::Io {
                    offset: self.offset,
                    source,
                })?;
                if n < 4 {
                    // Reported at the table's start (spec/clog2.md §10 #15).
                    return Err(Error::Truncated {
                        offset: self.offset,
                        expected: Expected::CommTable { at: end },
                    });
                }
                let count_bytes: [u8; 4] = self.src.loaded()[..4].try_into().expect("4 bytes");
                let count = match self.layout.endian {
                    binrw::Endian::Big => i32::from_be_bytes(count_bytes),
                    binrw::Endian::Little => i32::from_le_bytes(count_bytes),
                };
                if count < 0 {
                    return Err(Error::BadValue {
                        offset: self.offset,
                        field: "comm table count",
                        value: count as i64,
                        problem: ValueProblem::Negative,
                    });
                }
                let want = count as u64 * ENTRY_LEN;
                let mut bytes = count_bytes.to_vec();
                let mut got = 0u64;
                // Read in bounded chunks so that a corrupt count cannot allocate more
                // than the input actually holds.
                while got < want {
                    let chunk = (want - got).min(1 << 20) as usize;
                    let n = self.src.load(chunk).map_err(|source| Error::Io {
                        offset: self.offset,
                        source,
                    })?;
                    bytes.extend_from_slice(&self.src.loaded()[..n]);
                    got += n as u64;
                    if n < chunk {
                        break;
                    }
                }
                if got < want {
                    return Err(Error::BadValue {
                        offset: self.offset,
                        field: "comm table count",
                        value: count as i64,
                        problem: ValueProblem::CommTableCut {
                            need: 4 + want,
                            have: 4 + got,
                        },
                    });
                }
                let t = CommTable::parse(&bytes, self.layout.endian, self.offset)?;
                self.offset += bytes.len() as u64;
                Some(t)
            }
            _ => None,
        };
        let n = self.src.load(1 << 16).map_err(|source| Error::Io {
            offset: self.offset,
            source,
        })?;
        if n > 0 {
            return Err(match (table.is_some(), self.blocks_end()) {
                (false, None) => Error::DataAfterEndLog {
                    offset: self.offset,
                    expected_end: self.offset,
                },
                _ => Error::TrailingBytes {
                    offset: self.offset,
                    count: n as u64,
                    after: if table.is_some() {
                        "comm table"
                    } else {
                        "block stream"
                    },
                },
            });
        }
        Ok(table)
    }
}

/// Iterator over a reader's records; see [`Clog2Reader::records`].
#[derive(Debug)]
pub struct Records<'r, S> {
    reader: &'r mut Clog2Reader<S>,
}

impl<S: Source> Iterator for Records<'_, S> {
    type Item = Result<Record>;

    fn next(&mut self) -> Option<Self::Item> {
        self.reader.next_record().transpose()
    }
}
