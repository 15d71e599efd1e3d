//! Writing CLOG2 files: a lossless block writer (for re-encoding parsed files) and a
//! record writer that packs records into blocks the way MPE's merger does.

use crate::codec::{encode_block, encode_record, Block, Layout};
use crate::commtable::CommTable;
use crate::error::{Error, Result, WriteProblem};
use crate::preamble::{Preamble, PreambleInfo, PREAMBLE_LEN};
use crate::record::{Body, Record, ENDLOG_TIME};
use std::io::{Seek, SeekFrom, Write};

/// An I/O error at `offset`, as the writers of this crate report it.
pub(crate) fn io(offset: u64) -> impl FnOnce(std::io::Error) -> Error {
    move |source| Error::Io { offset, source }
}

/// The output of the record writers (CLOG2 and old CLOG): the records of the
/// block being filled, written padded with zeros to the block size when the
/// writer closes it.
#[derive(Debug)]
pub(crate) struct Blocks<W> {
    pub(crate) out: W,
    /// The block size.
    pub(crate) size: usize,
    /// The encoded records of the open block (its terminator last, once closed).
    pub(crate) block: Vec<u8>,
    /// Bytes written to `out` so far.
    pub(crate) offset: u64,
}

impl<W: Write> Blocks<W> {
    /// Blocks of `size` bytes, written to `out` from `offset`.
    pub(crate) fn new(out: W, size: usize, offset: u64) -> Self {
        Blocks {
            out,
            size,
            block: Vec::with_capacity(size),
            offset,
        }
    }

    /// Bytes written or buffered so far.
    pub(crate) fn written(&self) -> u64 {
        self.offset + self.block.len() as u64
    }

    /// Writes the open block padded with zeros to the block size, and starts
    /// the next.
    pub(crate) fn close(&mut self) -> Result<()> {
        self.block.resize(self.size, 0);
        self.out.write_all(&self.block).map_err(io(self.offset))?;
        self.offset += self.size as u64;
        self.block.clear();
        Ok(())
    }
}

/// Refuses a terminator (ENDBLOCK or ENDLOG) pushed to a writer, which writes
/// them itself.
pub(crate) fn refuse_terminator(is_terminator: bool) -> Result<()> {
    if is_terminator {
        return Err(Error::Write(WriteProblem::Terminator));
    }
    Ok(())
}

/// Writes a parsed file back block by block, exactly as given: preamble tokens and
/// padding, every record with its pad fields, every block's trailing bytes, the comm
/// table.
///
/// ```
/// use clog2_format::{synth, BlockWriter, Clog2File};
/// let bytes = synth::generate_vec(&synth::Options::default().events(500))?;
/// let mut f = Clog2File::parse(&bytes)?;
/// let pad = f.blocks[0].trailing.len();
/// f.blocks[0].trailing[0] = 0xaa; // stale bytes after the terminator are kept
/// let mut w = BlockWriter::new(Vec::new(), &f.preamble)?;
/// for b in &f.blocks {
///     w.write_block(b)?;
/// }
/// let out = w.finish(f.comm_table.as_ref())?;
/// assert_eq!(out.len(), bytes.len());
/// assert_eq!(out[1024 + 65536 - pad], 0xaa);
/// # Ok::<(), clog2_format::Error>(())
/// ```
#[derive(Debug)]
pub struct BlockWriter<W: Write> {
    out: W,
    layout: Layout,
    block_size: usize,
    buf: Vec<u8>,
    offset: u64,
}

impl<W: Write> BlockWriter<W> {
    /// Writes `preamble` to `out`.
    ///
    /// # Errors
    ///
    /// A preamble that cannot be written, and I/O errors.
    ///
    /// ```
    /// use clog2_format::{BlockWriter, Clog2Reader};
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut r = Clog2Reader::from_slice(&bytes)?;
    /// let mut w = BlockWriter::new(Vec::new(), r.preamble())?;
    /// while let Some(block) = r.next_block()? {
    ///     w.write_block(&block)?;
    /// }
    /// let table = r.finish()?;
    /// assert_eq!(w.finish(table.as_ref())?, bytes); // byte for byte
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn new(mut out: W, preamble: &Preamble) -> Result<Self> {
        out.write_all(&preamble.to_bytes()?).map_err(io(0))?;
        Ok(BlockWriter {
            out,
            layout: Layout {
                endian: preamble.endian(),
                version: preamble.info().version,
            },
            block_size: preamble.info().block_size as usize,
            buf: Vec::with_capacity(preamble.info().block_size as usize),
            offset: PREAMBLE_LEN as u64,
        })
    }

    /// Writes one block.
    ///
    /// # Errors
    ///
    /// A block that does not fit the block size, and I/O errors.
    ///
    /// See [`BlockWriter::new`] for an example.
    ///
    /// ```
    /// use clog2_format::{error::WriteProblem, synth, BlockWriter, Clog2File, Error};
    /// let bytes = synth::generate_vec(&synth::Options::default().events(500))?;
    /// let f = Clog2File::parse(&bytes)?;
    /// let mut w = BlockWriter::new(Vec::new(), &f.preamble)?;
    /// let mut big = f.blocks[0].clone();
    /// big.trailing.push(0); // one byte more than the block holds
    /// assert!(matches!(w.write_block(&big), Err(Error::Write(WriteProblem::BlockOverflow { .. }))));
    /// w.write_block(&f.blocks[0])?;
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn write_block(&mut self, block: &Block) -> Result<()> {
        self.buf.clear();
        encode_block(block, self.layout, self.block_size, &mut self.buf)?;
        self.out.write_all(&self.buf).map_err(io(self.offset))?;
        self.offset += self.buf.len() as u64;
        Ok(())
    }

    /// Writes the comm table, if any, and returns the output.
    ///
    /// # Errors
    ///
    /// I/O errors.
    ///
    /// See [`BlockWriter::new`] for an example.
    ///
    /// ```
    /// use clog2_format::{synth, BlockWriter, Clog2File};
    /// let bytes = synth::generate_vec(&synth::Options::default().events(500))?;
    /// let f = Clog2File::parse(&bytes)?;
    /// let mut w = BlockWriter::new(Vec::new(), &f.preamble)?;
    /// for b in &f.blocks {
    ///     w.write_block(b)?;
    /// }
    /// let without_table = w.finish(None)?;
    /// assert_eq!(without_table[..], bytes[..bytes.len() - f.comm_table.unwrap().disk_len() as usize]);
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn finish(mut self, table: Option<&CommTable>) -> Result<W> {
        if let Some(t) = table {
            self.buf.clear();
            t.encode(self.layout.endian, &mut self.buf)?;
            self.out.write_all(&self.buf).map_err(io(self.offset))?;
        }
        self.out.flush().map_err(io(self.offset))?;
        Ok(self.out)
    }
}

/// Writes a new CLOG2 file from records, packing them into blocks as MPE's merger
/// does: a record of length `L` goes at block offset `p` only if
/// `p + L + header < block_size`; otherwise the block is closed with an ENDBLOCK
/// carrying the time of the record that did not fit. [`Clog2Writer::finish`] adds
/// ENDLOG (time 1.0e8), the comm table, and rewrites the preamble with the table's
/// offset. Padding after terminators is zero.
///
/// ```
/// use clog2_format::{record::Record, synth, Clog2Reader, Clog2Writer, Preamble};
/// use std::io::Cursor;
/// let opts = synth::Options::default().events(500).block_size(4096);
/// let info = Clog2Reader::from_slice(&synth::generate_vec(&opts)?)?.preamble().info().clone();
/// let mut w = Clog2Writer::new(Cursor::new(Vec::new()), info)?;
/// for i in 0..3 {
///     w.push(&Record::bare(f64::from(i), 0, 600))?;
/// }
/// let (out, size) = w.finish(None)?;
/// assert_eq!(size, 1024 + 4096 + 4); // one block, an empty comm table
/// let recs: Vec<_> = Clog2Reader::from_slice(out.get_ref())?.records().collect::<Result<_, _>>()?;
/// assert_eq!(recs.len(), 4); // three events and ENDLOG
/// assert_eq!(Preamble::parse(out.get_ref())?.info().commtable_fptr, Some(1024 + 4096));
/// # Ok::<(), clog2_format::Error>(())
/// ```
#[derive(Debug)]
pub struct Clog2Writer<W: Write + Seek> {
    blocks: Blocks<W>,
    preamble: Preamble,
    layout: Layout,
    records: u64,
}

impl<W: Write + Seek> Clog2Writer<W> {
    /// Starts a file with the preamble `info` (its `commtable_fptr` is filled in by
    /// [`Clog2Writer::finish`]).
    ///
    /// # Errors
    ///
    /// A preamble that cannot be written, and I/O errors.
    ///
    /// ```
    /// use clog2_format::{Clog2Reader, Clog2Writer};
    /// use std::io::Cursor;
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut r = Clog2Reader::from_slice(&bytes)?;
    /// let mut w = Clog2Writer::new(Cursor::new(Vec::new()), r.preamble().info().clone())?;
    /// let mut kept = Vec::new();
    /// while let Some(rec) = r.next_record()? {
    ///     if !rec.is_terminator() && rec.rank == 0 {
    ///         w.push(&rec)?;
    ///         kept.push(rec);
    ///     }
    /// }
    /// assert_eq!(w.records_written(), kept.len() as u64);
    /// let (out, size) = w.finish(r.finish()?.as_ref())?;
    /// assert_eq!(size, out.get_ref().len() as u64);
    /// let mut again = Clog2Reader::from_slice(out.get_ref())?;
    /// let read: Vec<_> = again.records().filter(|x| !matches!(x, Ok(x) if x.is_terminator())).collect::<Result<_, _>>()?;
    /// assert_eq!(read, kept);
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn new(mut out: W, info: PreambleInfo) -> Result<Self> {
        let preamble = Preamble::from_info(info)?;
        let layout = Layout {
            endian: preamble.endian(),
            version: preamble.info().version,
        };
        let block_size = preamble.info().block_size as usize;
        out.write_all(&preamble.to_bytes()?).map_err(io(0))?;
        Ok(Clog2Writer {
            blocks: Blocks::new(out, block_size, PREAMBLE_LEN as u64),
            preamble,
            layout,
            records: 0,
        })
    }

    /// Number of records pushed so far.
    ///
    /// See [`Clog2Writer::new`] for an example.
    ///
    /// ```
    /// use clog2_format::{record::Record, Clog2Writer, PreambleInfo};
    /// use std::io::Cursor;
    /// let mut w = Clog2Writer::new(Cursor::new(Vec::new()), PreambleInfo::mpe_default(2))?;
    /// assert_eq!(w.records_written(), 0);
    /// w.push(&Record::bare(0.5, 0, 600))?;
    /// w.push(&Record::bare(0.75, 1, 601))?;
    /// assert_eq!(w.records_written(), 2);
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn records_written(&self) -> u64 {
        self.records
    }

    /// Bytes written or buffered so far.
    ///
    /// ```
    /// use clog2_format::{Clog2Reader, Clog2Writer};
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let r = Clog2Reader::from_slice(&bytes)?;
    /// let w = Clog2Writer::new(std::io::Cursor::new(Vec::new()), r.preamble().info().clone())?;
    /// assert_eq!(w.bytes_written(), 1024); // the preamble
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn bytes_written(&self) -> u64 {
        self.blocks.written()
    }

    fn terminator(time: f64, body: Body) -> Record {
        Record {
            time,
            icomm: 0,
            rank: 0,
            thread: 0,
            body,
        }
    }

    fn flush_block(&mut self, terminator: Record) -> Result<()> {
        encode_record(&terminator, self.layout, &mut self.blocks.block)?;
        self.blocks.close()
    }

    /// Appends a record (not a terminator: blocks are closed automatically).
    ///
    /// # Errors
    ///
    /// A terminator, a record longer than a block, and I/O errors.
    ///
    /// See [`Clog2Writer::new`] for an example.
    ///
    /// ```
    /// use clog2_format::record::{Body, Record};
    /// use clog2_format::{error::WriteProblem, synth, Clog2Reader, Clog2Writer, Error};
    /// let info = Clog2Reader::from_slice(&synth::generate_vec(&Default::default())?)?.preamble().info().clone();
    /// let mut w = Clog2Writer::new(std::io::Cursor::new(Vec::new()), info)?;
    /// w.push(&Record::bare(0.5, 0, 600))?;
    /// let end = Record::new(1.0, 0, Body::EndBlock);
    /// assert!(matches!(w.push(&end), Err(Error::Write(WriteProblem::Terminator))));
    /// assert_eq!(w.records_written(), 1);
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn push(&mut self, rec: &Record) -> Result<()> {
        refuse_terminator(rec.is_terminator())?;
        let hl = self.layout.header_len();
        let len = rec.disk_len(hl);
        if len + hl >= self.blocks.size {
            return Err(Error::Write(WriteProblem::RecordTooLong {
                len,
                block_size: self.blocks.size,
            }));
        }
        if self.blocks.block.len() + len + hl >= self.blocks.size {
            self.flush_block(Self::terminator(rec.time, Body::EndBlock))?;
        }
        encode_record(rec, self.layout, &mut self.blocks.block)?;
        self.records += 1;
        Ok(())
    }

    /// Ends the log: ENDLOG, the comm table (02.43 and later; `None` writes an empty
    /// table) and the final preamble. Returns the output and the file size.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] at the offset written when `out` fails;
    /// [`Error::Write`] with [`WriteProblem::NoCommTable`] for a non-empty `table`
    /// in a version without one (before 02.43), and as
    /// [`Preamble::set_commtable_fptr`] when the final preamble cannot be written.
    ///
    /// See [`Clog2Writer::new`] for an example.
    ///
    /// ```
    /// use clog2_format::{record::Record, synth, Clog2Reader, Clog2Writer};
    /// let bytes = synth::generate_vec(&Default::default())?;
    /// let mut r = Clog2Reader::from_slice(&bytes)?;
    /// let mut w = Clog2Writer::new(std::io::Cursor::new(Vec::new()), r.preamble().info().clone())?;
    /// w.push(&Record::bare(0.5, 0, 600))?;
    /// while r.next_record()?.is_some() {}
    /// let table = r.finish()?;
    /// let (out, size) = w.finish(table.as_ref())?;
    /// let mut again = Clog2Reader::from_slice(out.get_ref())?;
    /// while again.next_record()?.is_some() {}
    /// assert_eq!(again.finish()?, table);
    /// assert_eq!(size, out.get_ref().len() as u64);
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn finish(mut self, table: Option<&CommTable>) -> Result<(W, u64)> {
        self.flush_block(Self::terminator(ENDLOG_TIME, Body::EndLog))?;
        let version = self.preamble.info().version;
        if version.has_comm_table() {
            let fptr = self.blocks.offset;
            let mut buf = Vec::new();
            table
                .cloned()
                .unwrap_or_default()
                .encode(self.layout.endian, &mut buf)?;
            self.blocks
                .out
                .write_all(&buf)
                .map_err(io(self.blocks.offset))?;
            self.blocks.offset += buf.len() as u64;
            self.preamble.set_commtable_fptr(fptr)?;
            self.blocks.out.seek(SeekFrom::Start(0)).map_err(io(0))?;
            self.blocks
                .out
                .write_all(&self.preamble.to_bytes()?)
                .map_err(io(0))?;
            self.blocks.out.seek(SeekFrom::End(0)).map_err(io(0))?;
        } else if table.is_some_and(|t| !t.entries.is_empty()) {
            return Err(Error::Write(WriteProblem::NoCommTable(version)));
        }
        self.blocks.out.flush().map_err(io(self.blocks.offset))?;
        Ok((self.blocks.out, self.blocks.offset))
    }
}
