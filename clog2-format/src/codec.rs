//! Record-level encoding and decoding over in-memory blocks.

use crate::error::{Error, Result, WriteProblem};
use crate::record::*;
use crate::version::Version;
use binrw::{BinRead, BinWrite, Endian};
use std::io::Cursor;

/// How records are laid out: byte order and version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Byte order of integers and doubles.
    pub endian: Endian,
    /// Format version (decides the header size and the legacy bodies).
    pub version: Version,
}

impl Layout {
    /// Size of the record header.
    ///
    /// ```
    /// use clog2_format::{Layout, Version};
    /// let layout = |version| Layout { endian: binrw::Endian::Big, version };
    /// assert_eq!(layout(Version::V2_20).header_len(), 16);
    /// assert_eq!(layout(Version::V2_44).header_len(), 24);
    /// ```
    pub fn header_len(&self) -> usize {
        self.version.header_len()
    }
}

fn body<T: for<'a> BinRead<Args<'a> = ()>>(bytes: &[u8], endian: Endian) -> T {
    // The caller checked that `bytes` holds the whole body, so reading cannot fail:
    // every field type reads a fixed number of bytes and accepts any bit pattern.
    let mut cur = Cursor::new(bytes);
    match T::read_options(&mut cur, endian, ()) {
        Ok(v) => v,
        Err(_) => unreachable!("fixed-size body read from a long-enough slice"),
    }
}

/// A record read in place: its header's fields, and its body's bytes borrowed
/// from the block. Nothing is copied or allocated; [`RecordRef::to_record`]
/// decodes the body when it is wanted.
///
/// ```
/// use clog2_format::{synth, Clog2Reader};
/// let bytes = synth::generate_vec(&synth::Options::default().events(500)).unwrap();
/// let mut r = Clog2Reader::from_slice(&bytes).unwrap();
/// let mut sends = 0;
/// while let Some((rec, _offset)) = r.next_ref().unwrap() {
///     if rec.rectype == clog2_format::record::rectype::MSGEVT {
///         sends += 1;
///         assert_eq!(rec.to_record().rectype(), rec.rectype);
///     }
/// }
/// assert!(sends > 0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RecordRef<'a> {
    /// Seconds since the start of logging.
    pub time: f64,
    /// Communicator local ID (0 in 02.10/02.20 files).
    pub icomm: i32,
    /// Rank in `icomm` (process ID for 02.10/02.20).
    pub rank: i32,
    /// Thread ID (0 in 02.10/02.20 files).
    pub thread: i32,
    /// Record type, see [`rectype`].
    pub rectype: i32,
    /// The body's bytes (their length is implied by the record type).
    pub body: &'a [u8],
    /// Byte order and version, to decode the body.
    pub layout: Layout,
}

impl RecordRef<'_> {
    /// Whether this record ends a block (ENDBLOCK or ENDLOG).
    ///
    /// ```
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut r = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// let (mut records, mut terminators) = (0, 0);
    /// while let Some((rec, _)) = r.next_ref()? {
    ///     records += 1;
    ///     terminators += usize::from(rec.is_terminator());
    /// }
    /// assert_eq!(terminators as u64, r.blocks_read()); // one a block
    /// assert!(records > terminators);
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    #[inline]
    pub fn is_terminator(&self) -> bool {
        self.rectype == rectype::ENDLOG || self.rectype == rectype::ENDBLOCK
    }

    /// The record's size on disk, header included.
    ///
    /// ```
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut r = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// let (first, at) = r.next_ref()?.unwrap();
    /// let len = first.disk_len();
    /// assert_eq!(len, 24 + first.body.len()); // a 02.44 header is 24 bytes
    /// let (_, next) = r.next_ref()?.unwrap();
    /// assert_eq!(next, at + len as u64); // records follow each other
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    #[inline]
    pub fn disk_len(&self) -> usize {
        self.layout.header_len() + self.body.len()
    }

    /// The `i32` at byte `at` of the body, in the file's byte order (`None` past
    /// the body's end).
    ///
    /// ```
    /// use clog2_format::record::{rectype, Body};
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut r = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// while let Some((rec, _)) = r.next_ref()? {
    ///     if rec.rectype == rectype::MSGEVT {
    ///         // The body's first field is the event type, without decoding the body.
    ///         let Body::Msg(m) = rec.to_record().body else { unreachable!() };
    ///         assert_eq!(rec.body_i32(0), Some(m.etype));
    ///         assert_eq!(rec.body_i32(rec.body.len()), None); // past the end
    ///         break;
    ///     }
    /// }
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    #[inline]
    pub fn body_i32(&self, at: usize) -> Option<i32> {
        let b: [u8; 4] = self.body.get(at..at + 4)?.try_into().ok()?;
        Some(match self.layout.endian {
            Endian::Big => i32::from_be_bytes(b),
            Endian::Little => i32::from_le_bytes(b),
        })
    }

    /// The owned record, body decoded.
    ///
    /// ```
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut refs = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// let mut owned = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// for _ in 0..100 {
    ///     let rec = refs.next_ref()?.unwrap().0.to_record();
    ///     assert_eq!(Some(rec), owned.next_record()?);
    /// }
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn to_record(&self) -> Record {
        let legacy = self.layout.version.has_legacy_header();
        let (b, e) = (self.body, self.layout.endian);
        let body = match (self.rectype, legacy) {
            (rectype::ENDLOG, _) => Body::EndLog,
            (rectype::ENDBLOCK, _) => Body::EndBlock,
            (rectype::STATEDEF, _) => Body::StateDef(body(b, e)),
            (rectype::EVENTDEF, _) => Body::EventDef(body(b, e)),
            (rectype::CONSTDEF, _) => Body::ConstDef(body(b, e)),
            (rectype::BAREEVT, _) => Body::Bare(body(b, e)),
            (rectype::CARGOEVT, _) => Body::Cargo(body(b, e)),
            (rectype::MSGEVT, false) => Body::Msg(body(b, e)),
            (rectype::MSGEVT, true) => Body::LegacyMsg(body(b, e)),
            (rectype::COLLEVT, false) => Body::Coll(body(b, e)),
            (rectype::COLLEVT, true) => Body::LegacyColl(body(b, e)),
            (rectype::COMMEVT, false) => Body::Comm(body(b, e)),
            (rectype::COMMEVT, true) => Body::LegacyComm(body(b, e)),
            (rectype::SRCLOC, _) => Body::SrcLoc(body(b, e)),
            (rectype::TIMESHIFT, _) => Body::TimeShift(body(b, e)),
            _ => unreachable!("a RecordRef is made only for known record types"),
        };
        Record {
            time: self.time,
            icomm: self.icomm,
            rank: self.rank,
            thread: self.thread,
            body,
        }
    }
}

/// A record header decoded and checked against its block: the fields and where
/// the body lies. Borrows nothing, so a reader can update its state before
/// lending out the [`RecordRef`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct RecordHead {
    pub time: f64,
    pub icomm: i32,
    pub rank: i32,
    pub thread: i32,
    pub rectype: i32,
    /// Body start and end in the block.
    pub body: (usize, usize),
}

impl RecordHead {
    /// The record, its body borrowed from `block` (the block it was decoded from).
    #[inline]
    pub fn view<'a>(&self, block: &'a [u8], layout: Layout) -> RecordRef<'a> {
        RecordRef {
            time: self.time,
            icomm: self.icomm,
            rank: self.rank,
            thread: self.thread,
            rectype: self.rectype,
            body: &block[self.body.0..self.body.1],
            layout,
        }
    }
}

/// Decodes and checks the header of the record at `pos` in `block`.
#[inline(always)]
pub(crate) fn decode_head(
    block: &[u8],
    pos: usize,
    layout: Layout,
    base: u64,
    index: u64,
) -> Result<RecordHead> {
    let hl = layout.header_len();
    let offset = base + pos as u64;
    let block_end = base + block.len() as u64;
    if pos + hl > block.len() {
        return Err(Error::BlockOverrun {
            offset,
            block: index,
            what: if pos == block.len() {
                "the search for the block's ENDBLOCK or ENDLOG record; a record header"
            } else {
                "a record header"
            },
            len: hl as u64,
            block_end,
        });
    }
    let legacy = layout.version.has_legacy_header();
    let (time, icomm, rank, thread, rt) = if legacy {
        let h: LegacyRecordHeader = body(&block[pos..pos + hl], layout.endian);
        (h.time, 0, h.proc_id, 0, h.rectype)
    } else {
        let h = RecordHeader::decode(&block[pos..pos + 24], layout.endian);
        (h.time, h.icomm, h.rank, h.thread, h.rectype)
    };
    let Some(bl) = body_len(rt, legacy) else {
        return Err(Error::UnknownRecordType {
            offset,
            block: index,
            rectype: rt,
        });
    };
    let start = pos + hl;
    if start + bl > block.len() {
        return Err(Error::BlockOverrun {
            offset,
            block: index,
            what: rectype_name(rt),
            len: (hl + bl) as u64,
            block_end,
        });
    }
    Ok(RecordHead {
        time,
        icomm,
        rank,
        thread,
        rectype: rt,
        body: (start, start + bl),
    })
}

/// Reads the record at `pos` in `block` (a whole block's bytes) in place.
///
/// `base` is the file offset of `block[0]` and `index` the block's index, both used
/// only for error messages. Returns the record and its length on disk.
///
/// # Errors
///
/// [`Error::BlockOverrun`] when the record's header or body runs past the end of
/// the block (also when `pos` is the block's end: no terminator was found), and
/// [`Error::UnknownRecordType`] for a type the format does not define (its length
/// is unknown); both at the record's file offset `base + pos`.
///
/// ```
/// use clog2_format::codec::{decode_record_ref, encode_record, Layout};
/// use clog2_format::{record::Record, Error, Version};
/// let layout = Layout { endian: binrw::Endian::Big, version: Version::V2_44 };
/// let mut block = Vec::new();
/// encode_record(&Record::bare(0.5, 1, 600), layout, &mut block)?;
/// let (rec, len) = decode_record_ref(&block, 0, layout, 1024, 7)?;
/// assert_eq!((rec.to_record(), len), (Record::bare(0.5, 1, 600), 32));
/// // Cut inside the body: the error names the record's offset and block.
/// let cut = decode_record_ref(&block[..28], 0, layout, 1024, 7).unwrap_err();
/// assert!(matches!(cut, Error::BlockOverrun { offset: 1024, block: 7, len: 32, .. }));
/// # Ok::<(), clog2_format::Error>(())
/// ```
pub fn decode_record_ref(
    block: &[u8],
    pos: usize,
    layout: Layout,
    base: u64,
    index: u64,
) -> Result<(RecordRef<'_>, usize)> {
    let head = decode_head(block, pos, layout, base, index)?;
    Ok((head.view(block, layout), head.body.1 - pos))
}

/// Decodes the record at `pos` in `block` (a whole block's bytes).
///
/// `base` is the file offset of `block[0]` and `index` the block's index, both used
/// only for error messages. Returns the record and its length on disk.
///
/// # Errors
///
/// As [`decode_record_ref`].
///
/// ```
/// use clog2_format::codec::{decode_record, encode_record, Layout};
/// use clog2_format::{record::Record, Version};
/// let layout = Layout { endian: binrw::Endian::Little, version: Version::V2_44 };
/// let mut block = vec![0; 8]; // records need not start the block
/// encode_record(&Record::bare(0.5, 1, 600), layout, &mut block)?;
/// assert_eq!(decode_record(&block, 8, layout, 0, 0)?, (Record::bare(0.5, 1, 600), 32));
/// # Ok::<(), clog2_format::Error>(())
/// ```
pub fn decode_record(
    block: &[u8],
    pos: usize,
    layout: Layout,
    base: u64,
    index: u64,
) -> Result<(Record, usize)> {
    decode_record_ref(block, pos, layout, base, index).map(|(r, len)| (r.to_record(), len))
}

/// Appends the encoding of `rec` to `out`.
///
/// Fails if the body's layout does not belong to `layout.version` (a legacy body in
/// a 02.30+ file or the reverse).
///
/// # Errors
///
/// [`Error::Write`] with [`WriteProblem::WrongLayout`] when the body's layout is
/// not the file's (nothing is appended then), or [`WriteProblem::Encode`] when
/// the encoder fails.
///
/// ```
/// use clog2_format::codec::{encode_record, Layout};
/// use clog2_format::{record::Record, Version};
/// let mut out = Vec::new();
/// let old = Layout { endian: binrw::Endian::Big, version: Version::V2_10 };
/// encode_record(&Record::bare(0.5, 1, 600), old, &mut out)?;
/// assert_eq!(out.len(), 16 + 8); // 02.10's header is 16 bytes
/// assert_eq!(out[..8], 0.5f64.to_be_bytes());
/// # Ok::<(), clog2_format::Error>(())
/// ```
pub fn encode_record(rec: &Record, layout: Layout, out: &mut Vec<u8>) -> Result<()> {
    let legacy = layout.version.has_legacy_header();
    let needs_legacy = matches!(
        rec.rectype(),
        rectype::MSGEVT | rectype::COLLEVT | rectype::COMMEVT
    );
    if needs_legacy && rec.body.is_legacy() != legacy {
        return Err(Error::Write(WriteProblem::WrongLayout {
            name: rectype_name(rec.rectype()),
            layout: if rec.body.is_legacy() {
                "02.10"
            } else {
                "02.30+"
            },
            version: layout.version,
        }));
    }
    let mut cur = Cursor::new(out);
    let end = cur.get_ref().len() as u64;
    cur.set_position(end);
    let e = layout.endian;
    let res = if legacy {
        LegacyRecordHeader {
            time: rec.time,
            rectype: rec.rectype(),
            proc_id: rec.rank,
        }
        .write_options(&mut cur, e, ())
    } else {
        RecordHeader {
            time: rec.time,
            icomm: rec.icomm,
            rank: rec.rank,
            thread: rec.thread,
            rectype: rec.rectype(),
        }
        .write_options(&mut cur, e, ())
    };
    res.and_then(|()| match &rec.body {
        Body::EndLog | Body::EndBlock => Ok(()),
        Body::StateDef(b) => b.write_options(&mut cur, e, ()),
        Body::EventDef(b) => b.write_options(&mut cur, e, ()),
        Body::ConstDef(b) => b.write_options(&mut cur, e, ()),
        Body::Bare(b) => b.write_options(&mut cur, e, ()),
        Body::Cargo(b) => b.write_options(&mut cur, e, ()),
        Body::Msg(b) => b.write_options(&mut cur, e, ()),
        Body::Coll(b) => b.write_options(&mut cur, e, ()),
        Body::Comm(b) => b.write_options(&mut cur, e, ()),
        Body::SrcLoc(b) => b.write_options(&mut cur, e, ()),
        Body::TimeShift(b) => b.write_options(&mut cur, e, ()),
        Body::LegacyMsg(b) => b.write_options(&mut cur, e, ()),
        Body::LegacyColl(b) => b.write_options(&mut cur, e, ()),
        Body::LegacyComm(b) => b.write_options(&mut cur, e, ()),
    })
    .map_err(|e| {
        Error::Write(WriteProblem::Encode {
            what: "record encoding",
            message: e.to_string(),
        })
    })
}

/// A block: its records (the last one is ENDBLOCK or ENDLOG) and the bytes that
/// follow the terminator up to the block's end, kept verbatim (MPE leaves stale
/// bytes there).
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// The records, terminator included.
    pub records: Vec<Record>,
    /// Bytes after the terminator.
    pub trailing: Vec<u8>,
}

impl Block {
    /// Whether the block ends with ENDLOG.
    ///
    /// ```
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut r = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// let mut last = Vec::new();
    /// while let Some(block) = r.next_block()? {
    ///     last.push(block.is_last());
    /// }
    /// assert!(last.len() > 1);
    /// assert_eq!(last.iter().filter(|&&l| l).count(), 1);
    /// assert!(last[last.len() - 1]); // only the last block ends with ENDLOG
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn is_last(&self) -> bool {
        matches!(self.records.last().map(|r| &r.body), Some(Body::EndLog))
    }
}

/// Iterates over the records of one block's bytes, stopping after the terminator.
#[derive(Debug, Clone)]
pub struct BlockRecords<'a> {
    bytes: &'a [u8],
    pos: usize,
    layout: Layout,
    base: u64,
    index: u64,
    done: bool,
}

impl<'a> BlockRecords<'a> {
    /// Records of `bytes`, which start at file offset `base` and form block `index`.
    ///
    /// ```
    /// use clog2_format::BlockRecords;
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut r = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// let first = r.next_record()?.unwrap();
    /// let (block, at) = r.loaded_block();
    /// let mut recs = BlockRecords::new(block, r.layout(), at, 0);
    /// let (rec, offset) = recs.next().unwrap()?;
    /// assert_eq!((rec, offset), (first, 1024)); // the first block starts after the preamble
    /// assert!(recs.all(|x| x.is_ok()));
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn new(bytes: &'a [u8], layout: Layout, base: u64, index: u64) -> Self {
        BlockRecords {
            bytes,
            pos: 0,
            layout,
            base,
            index,
            done: false,
        }
    }

    /// Position after the last record returned.
    ///
    /// ```
    /// use clog2_format::BlockRecords;
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut r = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// r.next_record()?;
    /// let (block, at) = r.loaded_block();
    /// let mut recs = BlockRecords::new(block, r.layout(), at, 0);
    /// assert_eq!(recs.position(), 0);
    /// let (rec, _) = recs.next().unwrap()?;
    /// assert_eq!(recs.position(), rec.disk_len(24));
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn position(&self) -> usize {
        self.pos
    }
}

impl Iterator for BlockRecords<'_> {
    type Item = Result<(Record, u64)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match decode_record(self.bytes, self.pos, self.layout, self.base, self.index) {
            Ok((rec, len)) => {
                let off = self.base + self.pos as u64;
                self.pos += len;
                self.done = rec.is_terminator();
                Some(Ok((rec, off)))
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// Parses a whole block into an owned [`Block`].
///
/// # Errors
///
/// As [`decode_record_ref`] for each record up to the terminator: a block without
/// ENDBLOCK or ENDLOG is an [`Error::BlockOverrun`] at its end.
///
/// ```
/// use clog2_format::codec::{decode_block, encode_block, Block, Layout};
/// use clog2_format::record::{Body, Record};
/// use clog2_format::Version;
/// let layout = Layout { endian: binrw::Endian::Big, version: Version::V2_44 };
/// let records = vec![Record::bare(0.5, 1, 600), Record::new(0.5, 1, Body::EndLog)];
/// let mut out = Vec::new();
/// encode_block(&Block { records: records.clone(), trailing: vec![] }, layout, 256, &mut out)?;
/// let b = decode_block(&out, layout, 1024, 0)?;
/// assert_eq!(b.records, records);
/// assert_eq!(b.trailing, vec![0; 256 - 32 - 24]); // the padding after ENDLOG
/// # Ok::<(), clog2_format::Error>(())
/// ```
pub fn decode_block(bytes: &[u8], layout: Layout, base: u64, index: u64) -> Result<Block> {
    let mut it = BlockRecords::new(bytes, layout, base, index);
    let mut records = Vec::new();
    for r in it.by_ref() {
        records.push(r?.0);
    }
    let trailing = bytes[it.position()..].to_vec();
    Ok(Block { records, trailing })
}

/// Appends a block of exactly `block_size` bytes: the records, the trailing bytes,
/// then zeros. Fails if they do not fit, or if the last record is not a terminator.
///
/// # Errors
///
/// [`Error::Write`] with [`WriteProblem::BlockEnd`] when the last record is not a
/// terminator, [`WriteProblem::BlockOverflow`] when the block is too small (`out`
/// is then left as it was), and as [`encode_record`] for each record.
///
/// ```
/// use clog2_format::codec::{encode_block, Block, Layout};
/// use clog2_format::record::{Body, Record};
/// use clog2_format::{error::WriteProblem, Error, Version};
/// let layout = Layout { endian: binrw::Endian::Big, version: Version::V2_44 };
/// let records = vec![Record::bare(0.5, 1, 600), Record::new(0.5, 1, Body::EndBlock)];
/// let block = Block { records, trailing: vec![] };
/// let mut out = Vec::new();
/// let small = encode_block(&block, layout, 48, &mut out).unwrap_err();
/// assert!(matches!(small, Error::Write(WriteProblem::BlockOverflow { used: 56, block_size: 48 })));
/// assert!(out.is_empty());
/// encode_block(&block, layout, 64, &mut out)?;
/// assert_eq!(out.len(), 64);
/// # Ok::<(), clog2_format::Error>(())
/// ```
pub fn encode_block(
    block: &Block,
    layout: Layout,
    block_size: usize,
    out: &mut Vec<u8>,
) -> Result<()> {
    let start = out.len();
    match block.records.last() {
        Some(r) if r.is_terminator() => {}
        _ => return Err(Error::Write(WriteProblem::BlockEnd)),
    }
    for r in &block.records {
        encode_record(r, layout, out)?;
    }
    out.extend_from_slice(&block.trailing);
    let used = out.len() - start;
    if used > block_size {
        out.truncate(start);
        return Err(Error::Write(WriteProblem::BlockOverflow {
            used,
            block_size,
        }));
    }
    out.resize(start + block_size, 0);
    Ok(())
}
