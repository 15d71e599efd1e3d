//! A whole CLOG2 file in memory, for lossless round trips of files that fit in RAM.
//! Large files are better streamed with [`crate::Clog2Reader`] and
//! [`crate::BlockWriter`].

use crate::codec::Block;
use crate::commtable::CommTable;
use crate::error::Result;
use crate::preamble::Preamble;
use crate::read::{Clog2Reader, Source};
use crate::record::Record;
use crate::write::BlockWriter;
use std::io::Write;

/// Every structure of a CLOG2 file, as parsed.
///
/// ```
/// use clog2_format::{record::rectype, synth, Clog2File};
/// let bytes = synth::generate_vec(&synth::Options::default().events(500))?;
/// let f = Clog2File::parse(&bytes)?;
/// // One terminator a block, the last one ENDLOG.
/// assert_eq!(f.records().filter(|r| r.is_terminator()).count(), f.blocks.len());
/// assert_eq!(f.records().last().map(|r| r.rectype()), Some(rectype::ENDLOG));
/// # Ok::<(), clog2_format::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Clog2File {
    /// The preamble (tokens and padding verbatim).
    pub preamble: Preamble,
    /// The blocks; the last one holds ENDLOG.
    pub blocks: Vec<Block>,
    /// The comm table (02.43 and later, when written).
    pub comm_table: Option<CommTable>,
}

impl Clog2File {
    /// Parses a whole file held in memory.
    ///
    /// # Errors
    ///
    /// The first problem in the bytes, with its byte offset ([`crate::Error::offset`]).
    ///
    /// ```
    /// let bytes = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(500))?;
    /// let f = clog2_format::Clog2File::parse(&bytes)?;
    /// assert!(f.records().count() > 400);
    /// assert!(clog2_format::Clog2File::parse(&bytes[..bytes.len() - 1]).is_err());
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn parse(data: &[u8]) -> Result<Clog2File> {
        Self::read_from(Clog2Reader::from_slice(data)?)
    }

    /// Parses a whole file from a reader.
    ///
    /// # Errors
    ///
    /// As [`Clog2File::parse`], and the reader's I/O errors.
    ///
    /// ```
    /// let bytes = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(500))?;
    /// let f = clog2_format::Clog2File::read(&bytes[..])?;
    /// assert_eq!(f.to_bytes()?, bytes);
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn read<R: std::io::Read>(r: R) -> Result<Clog2File> {
        Self::read_from(Clog2Reader::new(r)?)
    }

    fn read_from<S: Source>(mut reader: Clog2Reader<S>) -> Result<Clog2File> {
        let mut blocks = Vec::new();
        while let Some(b) = reader.next_block()? {
            blocks.push(b);
        }
        let comm_table = reader.finish()?;
        Ok(Clog2File {
            preamble: reader.preamble().clone(),
            blocks,
            comm_table,
        })
    }

    /// Every record, terminators included, in file order.
    ///
    /// ```
    /// let bytes = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(500))?;
    /// let f = clog2_format::Clog2File::parse(&bytes)?;
    /// let terminators = f.records().filter(|r| r.is_terminator()).count();
    /// assert_eq!(terminators, f.blocks.len()); // one ENDBLOCK or ENDLOG a block
    /// assert!(f.records().count() > 500);
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn records(&self) -> impl Iterator<Item = &Record> {
        self.blocks.iter().flat_map(|b| b.records.iter())
    }

    /// Writes the file.
    ///
    /// # Errors
    ///
    /// The writer's I/O errors ([`crate::Error::Write`]).
    ///
    /// ```
    /// let bytes = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(500))?;
    /// let f = clog2_format::Clog2File::parse(&bytes)?;
    /// assert_eq!(f.write_to(Vec::new())?, bytes); // byte for byte
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn write_to<W: Write>(&self, out: W) -> Result<W> {
        let mut w = BlockWriter::new(out, &self.preamble)?;
        for b in &self.blocks {
            w.write_block(b)?;
        }
        w.finish(self.comm_table.as_ref())
    }

    /// The file's bytes.
    ///
    /// # Errors
    ///
    /// A model that cannot be written (a record that does not fit its block).
    ///
    /// ```
    /// let bytes = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(500))?;
    /// assert_eq!(clog2_format::Clog2File::parse(&bytes)?.to_bytes()?, bytes);
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        self.write_to(Vec::new())
    }
}
