//! Reading old-CLOG files from memory: block-size inference, a record iterator
//! ([`ClogRecords`]) and the whole-file parse ([`ClogFile::parse`]).

use super::record::*;
use crate::error::{Error, Expected, NotInferable, Result, ValueProblem};
use binrw::BinRead;
use std::io::Cursor;

/// The smallest block size [`infer_block_size`] tries when the first block ends with
/// ENDBLOCK (MPICH up to 1.1.2 used 1024 bytes, later versions 65536).
pub const MIN_INFERRED_BLOCK_SIZE: usize = 1024;

/// Reads a fixed-size structure from `bytes` (which the caller sized to hold it).
fn read_at<T: for<'a> BinRead<Args<'a> = ()>>(
    bytes: &[u8],
    offset: usize,
    what: &'static str,
) -> Result<T> {
    T::read_be(&mut Cursor::new(bytes)).map_err(|e| Error::from_binrw(e, offset as u64, what))
}

/// A phrase naming a record of type `rectype` for error messages.
fn record_phrase(rectype: i32) -> &'static str {
    use rectype::*;
    match rectype {
        ENDLOG => "an ENDLOG record",
        ENDBLOCK => "an ENDBLOCK record",
        RAWEVENT => "a RAWEVENT record",
        MSGEVENT => "a MSGEVENT record",
        COLLEVENT => "a COLLEVENT record",
        COMMEVENT => "a COMMEVENT record",
        EVENTDEF => "an EVENTDEF record",
        STATEDEF => "a STATEDEF record",
        SRCLOC => "a SRCLOC record",
        SHIFT => "a SHIFT record",
        _ => "a record of unknown type",
    }
}

const SEARCH: &str = "the search for the block's ENDBLOCK or ENDLOG record; a record header";

/// Decodes the record at `pos` of `data`; the record must end by `block_end`.
///
/// `block` is the block's index (for error messages). Returns the record and its
/// length on disk. A record of unknown type as the file's very first record is
/// rejected: the input is then not an old-CLOG file.
pub(crate) fn decode_record(
    data: &[u8],
    pos: usize,
    block_end: usize,
    block: u64,
) -> Result<(Record, usize)> {
    let offset = pos as u64;
    let overrun = |what: &'static str, len: u64| Error::BlockOverrun {
        offset,
        block,
        what,
        len,
        block_end: block_end as u64,
    };
    let block_end = block_end.min(data.len());
    if pos >= block_end {
        return Err(overrun(SEARCH, HEADER_LEN as u64));
    }
    if block_end - pos < HEADER_LEN {
        return Err(overrun("a record header", HEADER_LEN as u64));
    }
    let h: RecordHeader = read_at(&data[pos..pos + HEADER_LEN], pos, "a record header")?;
    let len: u64 = match record_len(h.rectype) {
        Some(fixed) if h.length != fixed => {
            return Err(Error::BadValue {
                offset,
                field: "length",
                value: h.length.into(),
                problem: ValueProblem::RecordLength {
                    record: record_phrase(h.rectype),
                    fixed,
                },
            })
        }
        Some(fixed) => fixed as u64 * 8,
        None if pos == 0 => {
            return Err(Error::UnknownRecordType {
                offset,
                block,
                rectype: h.rectype,
            })
        }
        None if h.length < 3 => {
            return Err(Error::BadValue {
                offset,
                field: "length",
                value: h.length.into(),
                problem: ValueProblem::UnknownTypeLength { rectype: h.rectype },
            })
        }
        None => h.length as u64 * 8,
    };
    if len > (block_end - pos) as u64 {
        return Err(overrun(record_phrase(h.rectype), len));
    }
    // Fits in the block, so in usize.
    let len = len as usize;
    let b = &data[pos + HEADER_LEN..pos + len];
    let at = pos + HEADER_LEN;
    let what = record_phrase(h.rectype);
    use rectype::*;
    let body = match h.rectype {
        ENDLOG => Body::EndLog,
        ENDBLOCK => Body::EndBlock,
        RAWEVENT => Body::Raw(read_at(b, at, what)?),
        MSGEVENT => Body::Msg(read_at(b, at, what)?),
        COLLEVENT => Body::Coll(read_at(b, at, what)?),
        COMMEVENT => Body::Comm(read_at(b, at, what)?),
        EVENTDEF => Body::EventDef(read_at(b, at, what)?),
        STATEDEF => Body::StateDef(read_at(b, at, what)?),
        SRCLOC => Body::SrcLoc(read_at(b, at, what)?),
        SHIFT => Body::Shift(read_at(b, at, what)?),
        rectype => Body::Unknown {
            rectype,
            bytes: b.to_vec(),
        },
    };
    Ok((
        Record {
            time: h.time,
            procid: h.procid,
            pad: h.pad,
            body,
        },
        len,
    ))
}

/// Whether the 24 bytes at `pos` form a plausible header: a known record type (a
/// terminator included) with its fixed length.
fn plausible_header(data: &[u8], pos: usize) -> bool {
    let Some(h) = data.get(pos..pos.saturating_add(HEADER_LEN)) else {
        return false;
    };
    let Ok(h) = RecordHeader::read_be(&mut Cursor::new(h)) else {
        return false;
    };
    record_len(h.rectype) == Some(h.length)
}

fn not_inferable(len: usize, why: NotInferable) -> Error {
    Error::BadValue {
        offset: 0,
        field: "block size",
        value: len as i64,
        problem: ValueProblem::NotInferable(why),
    }
}

fn check_not_empty(data: &[u8]) -> Result<()> {
    if data.len() < HEADER_LEN {
        return Err(Error::Truncated {
            offset: 0,
            expected: Expected::ClogHeader {
                have: data.len() as u64,
            },
        });
    }
    Ok(())
}

/// Infers the block size of an old-CLOG file (see the [module docs](super) for the
/// rule): the file length if the first block ends with ENDLOG, otherwise the smallest
/// power of two `B >= 1024`, `B >= e + 24` (`e` = offset of the first ENDBLOCK) that
/// divides the file length and has a plausible record header at offset `B`.
///
/// # Errors
///
/// [`Error::Truncated`] (offset 0) for a file shorter than one header;
/// [`Error::UnknownRecordType`] (offset 0) if the first record's type is unknown;
/// [`Error::BadValue`] for a record with a bad length (at the record) or when no
/// block size qualifies (field `block size`, offset 0).
///
/// ```
/// use clog2_format::clog::{infer_block_size, Body, ClogWriter, Record, Shift};
/// let mut w = ClogWriter::new(Vec::new(), 1024)?;
/// for i in 0..40 {
///     w.push(&Record::new(f64::from(i), 0, Body::Shift(Shift { timeshift: 0.0 })))?;
/// }
/// let bytes = w.finish()?;
/// assert_eq!(infer_block_size(&bytes)?, 1024);
/// assert!(infer_block_size(&bytes[..8]).is_err()); // shorter than a header
/// # Ok::<(), clog2_format::Error>(())
/// ```
pub fn infer_block_size(data: &[u8]) -> Result<usize> {
    check_not_empty(data)?;
    let mut pos = 0;
    let (term_pos, endlog) = loop {
        match decode_record(data, pos, data.len(), 0) {
            Ok((rec, len)) => {
                if rec.is_terminator() {
                    break (pos, matches!(rec.body, Body::EndLog));
                }
                pos += len;
            }
            Err(Error::BlockOverrun { offset, .. }) => {
                return Err(not_inferable(
                    data.len(),
                    NotInferable::NoTerminator { at: offset },
                ))
            }
            Err(e) => return Err(e),
        }
    };
    if endlog {
        return Ok(data.len());
    }
    let need = term_pos + HEADER_LEN;
    let Some(mut b) = need
        .max(MIN_INFERRED_BLOCK_SIZE)
        .checked_next_power_of_two()
    else {
        return Err(not_inferable(data.len(), NotInferable::TooLarge));
    };
    let mut first_plausible = None;
    while b.checked_add(HEADER_LEN).is_some_and(|e| e <= data.len()) {
        if plausible_header(data, b) {
            if data.len() % b == 0 {
                return Ok(b);
            }
            first_plausible.get_or_insert(b);
        }
        match b.checked_mul(2) {
            Some(n) => b = n,
            None => break,
        }
    }
    Err(not_inferable(
        data.len(),
        NotInferable::NoPowerOfTwo {
            endblock: term_pos as u64,
            need: need as u64,
            min: MIN_INFERRED_BLOCK_SIZE as u64,
            len: data.len() as u64,
            plausible: first_plausible.map(|p| p as u64),
        },
    ))
}

/// Checks an explicit block size: a multiple of 8, at least 24.
fn check_block_size(block_size: usize) -> Result<()> {
    if block_size < HEADER_LEN || block_size % 8 != 0 {
        return Err(Error::BadValue {
            offset: 0,
            field: "block size",
            value: i64::try_from(block_size).unwrap_or(i64::MAX),
            problem: ValueProblem::ClogBlockSize,
        });
    }
    Ok(())
}

/// Iterates over every record of an old-CLOG file held in memory, block by block,
/// terminators (ENDBLOCK, ENDLOG) included, checking the file's structure as it goes.
///
/// Each item is the record and the offset of its first byte. After an error the
/// iterator ends. After ENDLOG it yields [`Error::DataAfterEndLog`] if blocks follow;
/// if the last block ends with ENDBLOCK it yields [`Error::MissingEndLog`].
///
/// ```
/// use clog2_format::clog::{Body, ClogRecords, ClogWriter, Record, Shift};
/// let mut w = ClogWriter::new(Vec::new(), 1024)?;
/// w.push(&Record::new(0.5, 3, Body::Shift(Shift { timeshift: 0.25 })))?;
/// let bytes = w.finish()?;
/// let mut it = ClogRecords::new(&bytes)?;
/// assert_eq!((it.block_size(), it.block_count()), (1024, 1));
/// let (first, at) = it.next().unwrap()?;
/// assert_eq!((first.time, first.procid, at), (0.5, 3, 0));
/// assert_eq!(it.next().unwrap()?.0.body.type_name(), "endlog");
/// assert!(it.next().is_none());
/// # Ok::<(), clog2_format::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct ClogRecords<'a> {
    data: &'a [u8],
    block_size: usize,
    block: usize,
    pos: usize,
    state: State,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Records,
    AfterEndBlock,
    AfterEndLog,
    Done,
}

impl<'a> ClogRecords<'a> {
    /// Records of `data`, whose block size is inferred with [`infer_block_size`].
    ///
    /// # Errors
    ///
    /// An empty file, a first record of an unknown type, a block size that
    /// cannot be inferred, a length that is not whole blocks. Each item of the
    /// iterator may then be an error too (the table of the [module](crate::clog)).
    ///
    /// # Examples
    ///
    /// ```
    /// use clog2_format::clog::{Body, ClogRecords, ClogWriter, Record, Shift};
    /// let mut w = ClogWriter::new(Vec::new(), 1024)?;
    /// w.push(&Record::new(0.5, 3, Body::Shift(Shift { timeshift: 0.25 })))?;
    /// let bytes = w.finish()?;
    /// let recs: Vec<_> = ClogRecords::new(&bytes)?.collect::<Result<_, _>>()?;
    /// assert_eq!(recs.len(), 2); // the SHIFT and the ENDLOG
    /// assert_eq!((recs[0].0.procid, recs[0].1), (3, 0)); // record, offset
    /// assert_eq!((recs[1].0.body.type_name(), recs[1].1), ("endlog", 32));
    /// assert!(ClogRecords::new(&bytes[..8]).is_err());
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn new(data: &'a [u8]) -> Result<Self> {
        let bs = infer_block_size(data)?;
        Self::start(data, bs)
    }

    /// Records of `data` with an explicit block size (a multiple of 8, at least 24).
    ///
    /// # Errors
    ///
    /// As [`ClogRecords::new`], and a block size that is not a multiple of 8 of
    /// at least 24.
    ///
    /// # Examples
    ///
    /// ```
    /// use clog2_format::clog::{Body, ClogRecords, ClogWriter, Record, Shift};
    /// let mut w = ClogWriter::new(Vec::new(), 64)?;
    /// for i in 0..3 {
    ///     w.push(&Record::new(f64::from(i), 0, Body::Shift(Shift { timeshift: 0.0 })))?;
    /// }
    /// let bytes = w.finish()?;
    /// let it = ClogRecords::with_block_size(&bytes, 64)?;
    /// assert_eq!((it.block_size(), it.block_count()), (64, 4)); // a record a block, and ENDLOG's
    /// assert_eq!(it.filter(|r| matches!(r, Ok((r, _)) if !r.is_terminator())).count(), 3);
    /// assert!(ClogRecords::with_block_size(&bytes, 20).is_err());
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn with_block_size(data: &'a [u8], block_size: usize) -> Result<Self> {
        check_block_size(block_size)?;
        Self::start(data, block_size)
    }

    fn start(data: &'a [u8], block_size: usize) -> Result<Self> {
        check_not_empty(data)?;
        if data.len() % block_size != 0 {
            return Err(Error::Truncated {
                offset: data.len() as u64,
                expected: Expected::WholeBlocks {
                    block_size: block_size as u64,
                    len: data.len() as u64,
                },
            });
        }
        Ok(ClogRecords {
            data,
            block_size,
            block: 0,
            pos: 0,
            state: State::Records,
        })
    }

    /// The block size in use.
    ///
    /// ```
    /// use clog2_format::clog::{Body, ClogRecords, ClogWriter, Record, Shift};
    /// // 40 SHIFT records of 32 bytes in blocks of 1024 bytes, then ENDLOG.
    /// let mut w = ClogWriter::new(Vec::new(), 1024)?;
    /// for i in 0..40 {
    ///     w.push(&Record::new(i as f64, 0, Body::Shift(Shift { timeshift: 0.0 })))?;
    /// }
    /// let bytes = w.finish()?;
    /// let mut recs = ClogRecords::new(&bytes)?;
    /// assert_eq!((recs.block_size(), recs.block_count()), (1024, 2));
    /// let (_, first) = recs.next().unwrap()?;
    /// assert_eq!((first, recs.position(), recs.block_index()), (0, 32, 0));
    /// // MPICH-1's fill rule leaves the first block 27 records and its
    /// // ENDBLOCK; the next record is the second block's first.
    /// let (_, offset) = recs.nth(27).unwrap()?;
    /// assert_eq!((offset, recs.block_index()), (1024, 1));
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn block_size(&self) -> usize {
        self.block_size
    }

    /// The number of blocks in the file.
    ///
    /// ```
    /// use clog2_format::clog::{Body, ClogRecords, ClogWriter, Record, Shift};
    /// let mut w = ClogWriter::new(Vec::new(), 1024)?;
    /// for i in 0..40 {
    ///     w.push(&Record::new(f64::from(i), 0, Body::Shift(Shift { timeshift: 0.0 })))?;
    /// }
    /// let bytes = w.finish()?;
    /// assert_eq!(ClogRecords::new(&bytes)?.block_count(), bytes.len() / 1024);
    /// assert_eq!(ClogRecords::new(&bytes)?.block_count(), 2);
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn block_count(&self) -> usize {
        self.data.len() / self.block_size
    }

    /// The index of the block being read.
    ///
    /// ```
    /// use clog2_format::clog::{Body, ClogRecords, ClogWriter, Record, Shift};
    /// let mut w = ClogWriter::new(Vec::new(), 1024)?;
    /// for i in 0..40 {
    ///     w.push(&Record::new(f64::from(i), 0, Body::Shift(Shift { timeshift: 0.0 })))?;
    /// }
    /// let bytes = w.finish()?;
    /// let mut recs = ClogRecords::new(&bytes)?;
    /// assert_eq!(recs.block_index(), 0);
    /// // The first block holds 27 records and its ENDBLOCK; the 29th record is in block 1.
    /// recs.nth(28).unwrap()?;
    /// assert_eq!(recs.block_index(), 1);
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn block_index(&self) -> usize {
        self.block
    }

    /// The offset just after the last record returned (for a terminator: where the
    /// block's trailing bytes start).
    ///
    /// ```
    /// use clog2_format::clog::{Body, ClogRecords, ClogWriter, Record, Shift};
    /// let mut w = ClogWriter::new(Vec::new(), 1024)?;
    /// w.push(&Record::new(0.5, 0, Body::Shift(Shift { timeshift: 0.0 })))?;
    /// let bytes = w.finish()?;
    /// let mut recs = ClogRecords::new(&bytes)?;
    /// assert_eq!(recs.position(), 0);
    /// let (rec, at) = recs.next().unwrap()?;
    /// assert_eq!((at, recs.position()), (0, rec.disk_len())); // 32 bytes: header and SHIFT body
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn position(&self) -> usize {
        self.pos
    }

    fn block_end(&self) -> usize {
        (self.block + 1) * self.block_size
    }
}

impl Iterator for ClogRecords<'_> {
    type Item = Result<(Record, u64)>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.state {
            State::Done => None,
            State::AfterEndBlock => {
                self.state = State::Done;
                Some(Err(Error::MissingEndLog {
                    offset: self.data.len() as u64,
                }))
            }
            State::AfterEndLog => {
                self.state = State::Done;
                let next = self.block_end() as u64;
                Some(Err(Error::DataAfterEndLog {
                    offset: next,
                    expected_end: next,
                }))
            }
            State::Records => {
                let end = self.block_end();
                match decode_record(self.data, self.pos, end, self.block as u64) {
                    Ok((rec, len)) => {
                        let off = self.pos as u64;
                        self.pos += len;
                        let last = end == self.data.len();
                        match rec.body {
                            Body::EndLog if last => self.state = State::Done,
                            Body::EndLog => self.state = State::AfterEndLog,
                            Body::EndBlock if last => self.state = State::AfterEndBlock,
                            Body::EndBlock => {
                                // The caller may read `position()` for the trailing
                                // bytes before the next call moves to the next block.
                                self.block += 1;
                                self.pos = end;
                            }
                            _ => {}
                        }
                        Some(Ok((rec, off)))
                    }
                    Err(e) => {
                        self.state = State::Done;
                        Some(Err(e))
                    }
                }
            }
        }
    }
}

/// One block: its records (the last one is ENDBLOCK or ENDLOG) and the bytes after
/// the terminator up to the block's end, kept verbatim (stale data in MPICH's files).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClogBlock {
    /// The records, terminator included.
    pub records: Vec<Record>,
    /// Bytes after the terminator.
    pub trailing: Vec<u8>,
}

impl ClogBlock {
    /// Whether the block ends with ENDLOG.
    ///
    /// ```
    /// use clog2_format::clog::{Body, ClogFile, ClogWriter, Record, Shift};
    /// let mut w = ClogWriter::new(Vec::new(), 1024)?;
    /// for i in 0..40 {
    ///     w.push(&Record::new(f64::from(i), 0, Body::Shift(Shift { timeshift: 0.0 })))?;
    /// }
    /// let f = ClogFile::parse(&w.finish()?)?;
    /// let last: Vec<bool> = f.blocks.iter().map(|b| b.is_last()).collect();
    /// assert_eq!(last, [false, true]); // ENDBLOCK, then ENDLOG
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn is_last(&self) -> bool {
        matches!(self.records.last().map(|r| &r.body), Some(Body::EndLog))
    }
}

/// A whole old-CLOG file in memory: every block with its records and trailing bytes,
/// so that [`ClogFile::to_bytes`] gives back the input byte for byte.
#[derive(Debug, Clone, PartialEq)]
pub struct ClogFile {
    /// Block size in bytes (inferred or given).
    pub block_size: usize,
    /// The blocks; the last one holds ENDLOG.
    pub blocks: Vec<ClogBlock>,
}

impl ClogFile {
    /// What `mpelog info` reports: records per type, time range, processes.
    ///
    /// ```
    /// # fn file() -> Result<Vec<u8>, clog2_format::Error> {
    /// #     use clog2_format::clog::{Body, ClogWriter, Record, SrcLoc};
    /// #     let mut w = ClogWriter::new(Vec::new(), 1024)?;
    /// #     for i in 0..40 {
    /// #         let filename = clog2_format::FixedBytes::from_str_truncated("a.c");
    /// #         let body = Body::SrcLoc(SrcLoc { srcloc: 900 + i, lineno: 10, filename });
    /// #         w.push(&Record::new(f64::from(i) * 0.001, i % 4, body))?;
    /// #     }
    /// #     w.finish()
    /// # }
    /// let s = clog2_format::clog::ClogFile::parse(&file()?)?.summary();
    /// assert_eq!((s.blocks, s.processes), (4, Some(4)));
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn summary(&self) -> crate::dump::Summary {
        let mut s = crate::dump::Summary {
            block_size: self.block_size as u64,
            blocks: self.blocks.len() as u64,
            ..Default::default()
        };
        let mut procs = std::collections::BTreeSet::new();
        for rec in self.blocks.iter().flat_map(|b| b.records.iter()) {
            s.add(rec.body.type_name(), rec.time, rec.is_terminator());
            if !rec.is_terminator() {
                procs.insert(rec.procid);
            }
        }
        s.processes = Some(procs.len() as u64);
        s
    }

    /// Parses a whole file, inferring the block size ([`infer_block_size`]).
    ///
    /// # Errors
    ///
    /// The first problem in the bytes, with its byte offset (the table of the
    /// [module](crate::clog)), among them a block size that cannot be inferred.
    ///
    /// # Examples
    ///
    /// ```
    /// # fn file() -> Result<Vec<u8>, clog2_format::Error> {
    /// #     use clog2_format::clog::{Body, ClogWriter, Record, SrcLoc};
    /// #     let mut w = ClogWriter::new(Vec::new(), 1024)?;
    /// #     for i in 0..40 {
    /// #         let filename = clog2_format::FixedBytes::from_str_truncated("a.c");
    /// #         let body = Body::SrcLoc(SrcLoc { srcloc: 900 + i, lineno: 10, filename });
    /// #         w.push(&Record::new(f64::from(i) * 0.001, i % 4, body))?;
    /// #     }
    /// #     w.finish()
    /// # }
    /// let bytes = file()?;
    /// let f = clog2_format::clog::ClogFile::parse(&bytes)?;
    /// assert_eq!((f.block_size, f.blocks.len()), (1024, 4));
    /// assert!(f.blocks[3].is_last() && !f.blocks[2].is_last());
    /// assert!(clog2_format::clog::ClogFile::parse(&bytes[..1000]).is_err());
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn parse(data: &[u8]) -> Result<ClogFile> {
        Self::collect(ClogRecords::new(data)?, data)
    }

    /// Parses a whole file from a reader (read to its end, then
    /// [`parse`](Self::parse)d).
    ///
    /// # Errors
    ///
    /// As [`ClogFile::parse`], and the reader's I/O errors.
    ///
    /// # Examples
    ///
    /// ```
    /// # fn file() -> Result<Vec<u8>, clog2_format::Error> {
    /// #     use clog2_format::clog::{Body, ClogWriter, Record, SrcLoc};
    /// #     let mut w = ClogWriter::new(Vec::new(), 1024)?;
    /// #     for i in 0..40 {
    /// #         let filename = clog2_format::FixedBytes::from_str_truncated("a.c");
    /// #         let body = Body::SrcLoc(SrcLoc { srcloc: 900 + i, lineno: 10, filename });
    /// #         w.push(&Record::new(f64::from(i) * 0.001, i % 4, body))?;
    /// #     }
    /// #     w.finish()
    /// # }
    /// let bytes = file()?;
    /// let f = clog2_format::clog::ClogFile::read(&bytes[..])?;
    /// assert_eq!(f.to_bytes()?, bytes);
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn read<R: std::io::Read>(inner: R) -> Result<ClogFile> {
        let data = crate::io::read_all(inner, |offset, source| Error::Io { offset, source })?;
        Self::parse(&data)
    }

    /// Parses a whole file with an explicit block size (a multiple of 8, at least 24).
    ///
    /// # Errors
    ///
    /// As [`ClogFile::parse`]; a block size that is not a multiple of 8 of at
    /// least 24, or that the file's length is not a multiple of.
    ///
    /// # Examples
    ///
    /// ```
    /// # fn file() -> Result<Vec<u8>, clog2_format::Error> {
    /// #     use clog2_format::clog::{Body, ClogWriter, Record, SrcLoc};
    /// #     let mut w = ClogWriter::new(Vec::new(), 1024)?;
    /// #     for i in 0..40 {
    /// #         let filename = clog2_format::FixedBytes::from_str_truncated("a.c");
    /// #         let body = Body::SrcLoc(SrcLoc { srcloc: 900 + i, lineno: 10, filename });
    /// #         w.push(&Record::new(f64::from(i) * 0.001, i % 4, body))?;
    /// #     }
    /// #     w.finish()
    /// # }
    /// let bytes = file()?;
    /// use clog2_format::clog::ClogFile;
    /// assert_eq!(ClogFile::parse_with_block_size(&bytes, 1024)?, ClogFile::parse(&bytes)?);
    /// assert!(ClogFile::parse_with_block_size(&bytes, 1000).is_err());
    /// assert!(ClogFile::parse_with_block_size(&bytes, 512).is_err()); // a block without terminator
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn parse_with_block_size(data: &[u8], block_size: usize) -> Result<ClogFile> {
        Self::collect(ClogRecords::with_block_size(data, block_size)?, data)
    }

    fn collect(it: ClogRecords<'_>, data: &[u8]) -> Result<ClogFile> {
        let block_size = it.block_size();
        let mut blocks = Vec::new();
        let mut cur = ClogBlock::default();
        for r in it {
            let (rec, off) = r?;
            if rec.is_terminator() {
                // The terminator is 24 bytes; the trailing bytes run to the block end.
                let start = off as usize + HEADER_LEN;
                let end = (blocks.len() + 1) * block_size;
                cur.trailing = data.get(start..end).map(<[u8]>::to_vec).unwrap_or_default();
                cur.records.push(rec);
                blocks.push(std::mem::take(&mut cur));
            } else {
                cur.records.push(rec);
            }
        }
        Ok(ClogFile { block_size, blocks })
    }

    /// Every record, terminators included, in file order.
    ///
    /// ```
    /// # fn file() -> Result<Vec<u8>, clog2_format::Error> {
    /// #     use clog2_format::clog::{Body, ClogWriter, Record, SrcLoc};
    /// #     let mut w = ClogWriter::new(Vec::new(), 1024)?;
    /// #     for i in 0..40 {
    /// #         let filename = clog2_format::FixedBytes::from_str_truncated("a.c");
    /// #         let body = Body::SrcLoc(SrcLoc { srcloc: 900 + i, lineno: 10, filename });
    /// #         w.push(&Record::new(f64::from(i) * 0.001, i % 4, body))?;
    /// #     }
    /// #     w.finish()
    /// # }
    /// let f = clog2_format::clog::ClogFile::parse(&file()?)?;
    /// let names: Vec<_> = f.records().map(|r| r.body.type_name()).collect();
    /// assert_eq!(names.len(), 44); // 40 records, 3 ENDBLOCKs and the ENDLOG
    /// assert_eq!(names[names.len() - 1], "endlog");
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn records(&self) -> impl Iterator<Item = &Record> {
        self.blocks.iter().flat_map(|b| b.records.iter())
    }
}

/// The largest time magnitude [`looks_like`] accepts in the first record
/// (about 31 years, in seconds).
pub const MAX_PLAUSIBLE_TIME: f64 = 1.0e9;

/// Whether `data` (the start of a file) looks like an old-CLOG file: at least 24 bytes,
/// not a CLOG2 preamble (`CLOG-02.`), and a first record header with a known record
/// type, that type's fixed length and a finite time of magnitude at most
/// [`MAX_PLAUSIBLE_TIME`].
///
/// Negative times are accepted: the merge adds each process's clock shift, and
/// MPICH-1's `simple.clog` starts with a record at -0.247 s.
///
/// ```
/// use clog2_format::clog::{looks_like, Body, ClogWriter, Record, Shift};
/// let mut w = ClogWriter::new(Vec::new(), 1024)?;
/// w.push(&Record::new(0.5, 3, Body::Shift(Shift { timeshift: 0.25 })))?;
/// let bytes = w.finish()?;
/// assert!(looks_like(&bytes));
/// assert!(!looks_like(&bytes[..23])); // shorter than a record header
/// let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
/// assert!(!looks_like(&clog2));
/// # Ok::<(), clog2_format::Error>(())
/// ```
pub fn looks_like(data: &[u8]) -> bool {
    if data.starts_with(b"CLOG-02.") || data.len() < HEADER_LEN {
        return false;
    }
    let Ok(h) = RecordHeader::read_be(&mut Cursor::new(&data[..HEADER_LEN])) else {
        return false;
    };
    record_len(h.rectype) == Some(h.length)
        && h.time.is_finite()
        && h.time.abs() <= MAX_PLAUSIBLE_TIME
}
