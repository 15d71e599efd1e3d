//! Writing old-CLOG files: the lossless re-encoding of parsed files
//! ([`ClogFile::to_bytes`]) and a writer that packs new records into blocks
//! ([`ClogWriter`]).

use super::read::{ClogBlock, ClogFile};
use super::record::*;
use crate::error::{Error, Result, WriteProblem};
use crate::write::{io, refuse_terminator, Blocks};
use binrw::BinWrite;
use std::io::{Cursor, Write};

impl Record {
    /// The header's `length` field for this record (whole size in 8-byte units).
    ///
    /// Fails for a [`Body::Unknown`] whose type is a known one, whose byte count is
    /// not a multiple of 8, or whose length does not fit an `i32`.
    ///
    /// # Errors
    ///
    /// [`Error::Write`] with [`WriteProblem::OpaqueKnownType`],
    /// [`WriteProblem::OpaqueBodyLen`] or [`WriteProblem::OpaqueTooLong`] for a
    /// [`Body::Unknown`] as described above.
    ///
    /// ```
    /// use clog2_format::clog::{Body, Record, Shift};
    /// let r = Record::new(0.5, 3, Body::Shift(Shift { timeshift: 0.25 }));
    /// assert_eq!(r.length()?, 4); // 32 bytes
    /// assert_eq!(Record::new(1.0, 0, Body::EndLog).length()?, 3); // the 24-byte header alone
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn length(&self) -> Result<i32> {
        match &self.body {
            Body::Unknown { rectype, bytes } => {
                if record_len(*rectype).is_some() {
                    return Err(Error::Write(WriteProblem::OpaqueKnownType {
                        rectype: *rectype,
                        name: rectype_name(*rectype),
                    }));
                }
                if bytes.len() % 8 != 0 {
                    return Err(Error::Write(WriteProblem::OpaqueBodyLen(bytes.len())));
                }
                i32::try_from(bytes.len() / 8 + 3)
                    .map_err(|_| Error::Write(WriteProblem::OpaqueTooLong(bytes.len())))
            }
            b => Ok(record_len(b.rectype()).unwrap_or(3)),
        }
    }

    /// Appends the record's bytes (header and body, big-endian) to `out`. Nothing is
    /// appended if the record cannot be encoded (see [`Record::length`]).
    ///
    /// # Errors
    ///
    /// As [`Record::length`], and [`Error::Write`] with [`WriteProblem::Encode`] when
    /// the encoder fails.
    ///
    /// ```
    /// use clog2_format::clog::{Body, Record, Shift};
    /// let r = Record::new(0.5, 3, Body::Shift(Shift { timeshift: 0.25 }));
    /// let mut out = Vec::new();
    /// r.encode(&mut out)?;
    /// assert_eq!((out.len(), r.length()?), (32, 4)); // 4 eight-byte units
    /// assert_eq!(out[..8], 0.5f64.to_be_bytes());
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<()> {
        let length = self.length()?;
        let end = out.len() as u64;
        let mut cur = Cursor::new(out);
        cur.set_position(end);
        let res = RecordHeader {
            time: self.time,
            rectype: self.rectype(),
            length,
            procid: self.procid,
            pad: self.pad,
        }
        .write(&mut cur)
        .and_then(|()| match &self.body {
            Body::EndLog | Body::EndBlock => Ok(()),
            Body::Raw(b) => b.write(&mut cur),
            Body::Msg(b) => b.write(&mut cur),
            Body::Coll(b) => b.write(&mut cur),
            Body::Comm(b) => b.write(&mut cur),
            Body::EventDef(b) => b.write(&mut cur),
            Body::StateDef(b) => b.write(&mut cur),
            Body::SrcLoc(b) => b.write(&mut cur),
            Body::Shift(b) => b.write(&mut cur),
            Body::Unknown { bytes, .. } => cur.write_all(bytes).map_err(binrw::Error::Io),
        });
        res.map_err(|e| {
            Error::Write(WriteProblem::Encode {
                what: "record encoding",
                message: e.to_string(),
            })
        })
    }
}

impl ClogBlock {
    /// Appends the block as exactly `block_size` bytes: the records, the trailing
    /// bytes, then zeros. Fails if they do not fit, or if the last record (and only
    /// the last) is not a terminator.
    ///
    /// # Errors
    ///
    /// [`Error::Write`] with [`WriteProblem::ClogBlockEnd`] when the terminator rule is
    /// broken, [`WriteProblem::BlockOverflow`] when the block is too small, and as
    /// [`Record::encode`] for each record; `out` is left as it was.
    ///
    /// ```
    /// use clog2_format::clog::{Body, ClogBlock, Record, Shift};
    /// use clog2_format::{error::WriteProblem, Error};
    /// let shift = Record::new(0.5, 3, Body::Shift(Shift { timeshift: 0.25 }));
    /// let end = Record::new(1.0, 3, Body::EndLog);
    /// let block = ClogBlock { records: vec![shift.clone(), end], trailing: vec![] };
    /// let mut out = Vec::new();
    /// block.encode(128, &mut out)?;
    /// assert_eq!(out.len(), 128);
    /// let open = ClogBlock { records: vec![shift], trailing: vec![] };
    /// assert!(matches!(open.encode(128, &mut out), Err(Error::Write(WriteProblem::ClogBlockEnd))));
    /// assert_eq!(out.len(), 128); // nothing appended
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn encode(&self, block_size: usize, out: &mut Vec<u8>) -> Result<()> {
        let n = self.records.len();
        let terminators = self.records.iter().filter(|r| r.is_terminator()).count();
        if n == 0 || !self.records[n - 1].is_terminator() || terminators != 1 {
            return Err(Error::Write(WriteProblem::ClogBlockEnd));
        }
        let used: usize =
            self.records.iter().map(Record::disk_len).sum::<usize>() + self.trailing.len();
        if used > block_size {
            return Err(Error::Write(WriteProblem::BlockOverflow {
                used,
                block_size,
            }));
        }
        let start = out.len();
        for r in &self.records {
            if let Err(e) = r.encode(out) {
                out.truncate(start);
                return Err(e);
            }
        }
        out.extend_from_slice(&self.trailing);
        out.resize(start + block_size, 0);
        Ok(())
    }
}

impl ClogFile {
    /// Writes the file (every block, byte for byte as parsed) and returns the output.
    ///
    /// # Errors
    ///
    /// A block whose records do not fit its size, and the writer's I/O errors.
    ///
    /// ```
    /// # fn file() -> Result<Vec<u8>, clog2_format::Error> {
    /// #     use clog2_format::clog::{Body, ClogWriter, Record, Shift};
    /// #     let mut w = ClogWriter::new(Vec::new(), 1024)?;
    /// #     w.push(&Record::new(0.5, 1, Body::Shift(Shift { timeshift: 0.25 })))?;
    /// #     w.finish()
    /// # }
    /// let bytes = file()?;
    /// let f = clog2_format::clog::ClogFile::parse(&bytes)?;
    /// assert_eq!(f.write_to(Vec::new())?, bytes);
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn write_to<W: Write>(&self, mut out: W) -> Result<W> {
        let mut buf = Vec::new();
        let mut offset = 0u64;
        for b in &self.blocks {
            buf.clear();
            b.encode(self.block_size, &mut buf)?;
            out.write_all(&buf).map_err(io(offset))?;
            offset += buf.len() as u64;
        }
        out.flush().map_err(io(offset))?;
        Ok(out)
    }

    /// The file's bytes.
    ///
    /// # Errors
    ///
    /// As [`ClogFile::write_to`].
    ///
    /// ```
    /// # fn file() -> Result<Vec<u8>, clog2_format::Error> {
    /// #     use clog2_format::clog::{Body, ClogWriter, Record, Shift};
    /// #     let mut w = ClogWriter::new(Vec::new(), 1024)?;
    /// #     w.push(&Record::new(0.5, 1, Body::Shift(Shift { timeshift: 0.25 })))?;
    /// #     w.finish()
    /// # }
    /// let bytes = file()?;
    /// let mut f = clog2_format::clog::ClogFile::parse(&bytes)?;
    /// f.blocks[0].records[0].procid = 2;
    /// let again = clog2_format::clog::ClogFile::parse(&f.to_bytes()?)?;
    /// assert_eq!(again.blocks[0].records[0].procid, 2);
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        self.write_to(Vec::new())
    }
}

/// When [`ClogWriter`] closes a block with ENDBLOCK.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BlockFill {
    /// MPICH-1's merger (`clog_merge.c`): after a record that ends at block offset
    /// `p`, the block is closed if `p + 160 >= B` (`CLOG_MAX_REC_LEN` = 160). The
    /// ENDBLOCK takes the time of that record. Reproduces the block boundaries of
    /// MPICH-1's files (and is what the mpelog spec requires of writers).
    #[default]
    Mpe1,
    /// Close a block only when the next record plus a 24-byte terminator would not
    /// fit. The ENDBLOCK takes the time of the block's last record.
    Tight,
}

/// Writes a new old-CLOG file from records, packing them into blocks of a fixed size.
///
/// Blocks are closed according to a [`BlockFill`] rule (in both rules a record that
/// would leave no room for a 24-byte terminator goes to the next block). Terminators
/// have procid 0 and a zero pad; ENDBLOCK carries the time of the block's last record
/// and the final ENDLOG [`ENDLOG_TIME`] (1.0e6), as MPICH-1's merger did. Bytes after
/// terminators are zero. Records are written as given (their header pad included).
///
/// ```
/// use clog2_format::clog::{Body, ClogFile, ClogWriter, Record, Shift};
/// let mut w = ClogWriter::new(Vec::new(), 256)?;
/// for i in 0..10 {
///     w.push(&Record::new(f64::from(i), 0, Body::Shift(Shift { timeshift: 0.0 })))?;
/// }
/// assert_eq!(w.records_written(), 10);
/// let bytes = w.finish()?;
/// let f = ClogFile::parse_with_block_size(&bytes, 256)?; // parse infers 1024 and up
/// assert_eq!(bytes.len(), 256 * f.blocks.len());
/// assert_eq!(f.blocks.len(), 4); // 3 records a block, and ENDLOG
/// # Ok::<(), clog2_format::Error>(())
/// ```
#[derive(Debug)]
pub struct ClogWriter<W: Write> {
    blocks: Blocks<W>,
    fill: BlockFill,
    records: u64,
    last_time: f64,
}

impl<W: Write> ClogWriter<W> {
    /// A writer with blocks of `block_size` bytes (a multiple of 8, at least 24) and
    /// the MPICH-1 fill rule ([`BlockFill::Mpe1`]).
    ///
    /// A file of more than one block reads back with [`ClogFile::parse`] (which
    /// infers the block size) only when `block_size` is a power of two of at least
    /// [`MIN_INFERRED_BLOCK_SIZE`](crate::clog::MIN_INFERRED_BLOCK_SIZE) (1024), as
    /// MPICH-1 wrote; any other size must be named again to read the file
    /// ([`ClogFile::parse_with_block_size`]).
    ///
    /// # Errors
    ///
    /// A block size that is not a multiple of 8 of at least 24.
    ///
    /// See the [module](crate::clog) for an example.
    ///
    /// ```
    /// assert!(clog2_format::clog::ClogWriter::new(Vec::new(), 1020).is_err());
    /// ```
    pub fn new(out: W, block_size: usize) -> Result<Self> {
        Self::with_fill(out, block_size, BlockFill::default())
    }

    /// A writer with an explicit fill rule.
    ///
    /// # Errors
    ///
    /// As [`ClogWriter::new`].
    ///
    /// ```
    /// use clog2_format::clog::{BlockFill, Body, ClogFile, ClogWriter, Record, Shift};
    /// let blocks = |fill| -> Result<usize, clog2_format::Error> {
    ///     let mut w = ClogWriter::with_fill(Vec::new(), 1024, fill)?;
    ///     for i in 0..60 {
    ///         w.push(&Record::new(f64::from(i), 0, Body::Shift(Shift { timeshift: 0.0 })))?;
    ///     }
    ///     assert_eq!((w.records_written(), w.block_size()), (60, 1024));
    ///     Ok(ClogFile::parse(&w.finish()?)?.blocks.len())
    /// };
    /// // 32-byte records: MPICH-1 closes a block 160 bytes early (27 records a
    /// // block), Tight when the next record and a terminator would not fit (31).
    /// assert_eq!((blocks(BlockFill::Mpe1)?, blocks(BlockFill::Tight)?), (3, 2));
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn with_fill(out: W, block_size: usize, fill: BlockFill) -> Result<Self> {
        if block_size < HEADER_LEN || block_size % 8 != 0 {
            return Err(Error::Write(WriteProblem::ClogBlockSize(block_size)));
        }
        Ok(ClogWriter {
            blocks: Blocks::new(out, block_size, 0),
            fill,
            records: 0,
            last_time: 0.0,
        })
    }

    /// The block size.
    ///
    /// ```
    /// use clog2_format::clog::{Body, ClogWriter, Record, Shift};
    /// let mut w = ClogWriter::new(Vec::new(), 1024)?;
    /// w.push(&Record::new(0.5, 0, Body::Shift(Shift { timeshift: 0.0 })))?;
    /// assert_eq!((w.block_size(), w.records_written()), (1024, 1));
    /// assert_eq!(w.bytes_written(), 32); // the record, not yet its block
    /// assert_eq!(w.finish()?.len(), 1024); // the block, with ENDLOG
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn block_size(&self) -> usize {
        self.blocks.size
    }

    /// Number of records pushed so far (terminators not counted).
    ///
    /// ```
    /// use clog2_format::clog::{Body, ClogWriter, Record, Shift};
    /// let mut w = ClogWriter::new(Vec::new(), 1024)?;
    /// assert_eq!(w.records_written(), 0);
    /// for i in 0..3 {
    ///     w.push(&Record::new(f64::from(i), 0, Body::Shift(Shift { timeshift: 0.0 })))?;
    /// }
    /// assert_eq!(w.records_written(), 3);
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn records_written(&self) -> u64 {
        self.records
    }

    /// Bytes written or buffered so far.
    ///
    /// ```
    /// use clog2_format::clog::{Body, ClogWriter, Record, Shift};
    /// let mut w = ClogWriter::new(Vec::new(), 1024)?;
    /// for i in 0..3 {
    ///     w.push(&Record::new(f64::from(i), 0, Body::Shift(Shift { timeshift: 0.0 })))?;
    /// }
    /// assert_eq!(w.bytes_written(), 3 * 32); // buffered, not yet padded to a block
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn bytes_written(&self) -> u64 {
        self.blocks.written()
    }

    fn close_block(&mut self, time: f64, body: Body) -> Result<()> {
        Record::new(time, 0, body).encode(&mut self.blocks.block)?;
        self.blocks.close()
    }

    /// Appends a record (not a terminator: blocks are closed automatically).
    ///
    /// # Errors
    ///
    /// A terminator, a record that cannot fit a block with its terminator, a
    /// record whose length field is wrong, and I/O errors.
    ///
    /// ```
    /// use clog2_format::clog::{Body, ClogWriter, Record, Shift};
    /// let mut w = ClogWriter::new(Vec::new(), 1024)?;
    /// w.push(&Record::new(0.5, 1, Body::Shift(Shift { timeshift: 0.25 })))?;
    /// assert_eq!(w.bytes_written(), 32);
    /// assert!(w.push(&Record::new(0.6, 1, Body::EndBlock)).is_err());
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn push(&mut self, rec: &Record) -> Result<()> {
        refuse_terminator(rec.is_terminator())?;
        rec.length()?;
        let len = rec.disk_len();
        if len + HEADER_LEN > self.blocks.size {
            return Err(Error::Write(WriteProblem::ClogRecordTooLong {
                len,
                block_size: self.blocks.size,
            }));
        }
        if self.blocks.block.len() + len + HEADER_LEN > self.blocks.size {
            self.close_block(self.last_time, Body::EndBlock)?;
        }
        rec.encode(&mut self.blocks.block)?;
        self.records += 1;
        self.last_time = rec.time;
        if self.fill == BlockFill::Mpe1 && self.blocks.block.len() + MAX_REC_LEN >= self.blocks.size
        {
            self.close_block(rec.time, Body::EndBlock)?;
        }
        Ok(())
    }

    /// Ends the log with ENDLOG, writes the last block and returns the output.
    ///
    /// # Errors
    ///
    /// The writer's I/O errors.
    ///
    /// ```
    /// use clog2_format::clog::{ClogFile, ClogWriter};
    /// let bytes = ClogWriter::new(Vec::new(), 1024)?.finish()?;
    /// assert_eq!(bytes.len(), 1024); // one block: ENDLOG and zeros
    /// assert_eq!(ClogFile::parse(&bytes)?.blocks[0].records[0].time, 1.0e6);
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn finish(mut self) -> Result<W> {
        self.close_block(ENDLOG_TIME, Body::EndLog)?;
        self.blocks.out.flush().map_err(io(self.blocks.offset))?;
        Ok(self.blocks.out)
    }
}
