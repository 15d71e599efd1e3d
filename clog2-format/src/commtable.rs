//! The communicator table written after the last block (CLOG-02.43 and later).

use crate::error::{Error, Expected, Result, ValueProblem, WriteProblem};
use crate::record::Uuid;
use binrw::{binrw, BinRead, BinWrite, Endian};
use std::io::Cursor;

/// Size of one table entry on disk.
pub const ENTRY_LEN: u64 = 40;

/// One communicator: its global ID, local ID and kind.
#[binrw]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CommEntry {
    /// Global ID.
    pub gcomm: Uuid,
    /// Local ID (the index records use in `icomm`).
    pub local_id: i32,
    /// Kind, see [`comm_kind`].
    pub kind: i32,
}

/// Communicator kinds of the table.
pub mod comm_kind {
    /// Learned from another rank.
    pub const UNKNOWN: i32 = -1;
    /// Intercommunicator.
    pub const INTER: i32 = 0;
    /// Intracommunicator.
    pub const INTRA: i32 = 1;
    /// Local intracommunicator of an intercommunicator.
    pub const LOCAL: i32 = 2;
    /// Remote intracommunicator of an intercommunicator.
    pub const REMOTE: i32 = 3;

    /// The name `clog2_print` uses for a kind.
    ///
    /// ```
    /// use clog2_format::commtable::comm_kind;
    /// assert_eq!(comm_kind::name(comm_kind::INTRA), "IntraComm");
    /// assert_eq!(comm_kind::name(7), "Unknown(7)");
    /// ```
    pub fn name(kind: i32) -> String {
        match kind {
            INTER => "InterComm".into(),
            INTRA => "IntraComm".into(),
            LOCAL => "LocalComm".into(),
            REMOTE => "RemoteComm".into(),
            k => format!("Unknown({k})"),
        }
    }
}

/// The comm table: a count, then the entries.
#[binrw]
#[br(import(available: u64))]
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CommTable {
    #[br(temp, assert(count >= 0 && 4 + count as u64 * ENTRY_LEN <= available,
        "the table's count {} needs {} bytes but {} remain", count, 4 + count as i64 * 40, available))]
    #[bw(try_calc = i32::try_from(entries.len()))]
    count: i32,
    /// The entries, in table order.
    #[br(count = count)]
    pub entries: Vec<CommEntry>,
}

impl CommTable {
    /// A table with these entries.
    ///
    /// ```
    /// use clog2_format::{record::Uuid, CommEntry, CommTable};
    /// let t = CommTable::new(vec![CommEntry { gcomm: Uuid::ZERO, local_id: 0, kind: 1 }]);
    /// assert_eq!(t.entries.len(), 1);
    /// assert_eq!(t.disk_len(), 4 + 40); // the count, one 40-byte entry
    /// ```
    pub fn new(entries: Vec<CommEntry>) -> Self {
        CommTable { entries }
    }

    /// Size on disk.
    ///
    /// ```
    /// use clog2_format::CommTable;
    /// assert_eq!(CommTable::default().disk_len(), 4); // the count alone
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut r = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// let table = r.finish()?.unwrap();
    /// assert_eq!(r.preamble().info().commtable_fptr, Some(bytes.len() as u64 - table.disk_len()));
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn disk_len(&self) -> u64 {
        4 + ENTRY_LEN * self.entries.len() as u64
    }

    /// Parses a table that must fill `bytes` exactly; `offset` is its file offset.
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`] when `bytes` is too short for the count, at its end;
    /// [`Error::BadValue`] with [`ValueProblem::CommTableLayout`] when the count does
    /// not match the bytes, at `offset`; [`Error::TrailingBytes`] when bytes follow the
    /// last entry, at the first of them.
    ///
    /// ```
    /// use clog2_format::{synth, Clog2Reader, CommTable, Error};
    /// let bytes = synth::generate_vec(&Default::default())?;
    /// let mut r = Clog2Reader::from_slice(&bytes)?;
    /// while r.next_record()?.is_some() {}
    /// let table = r.finish()?.unwrap();
    /// let at = bytes.len() - table.disk_len() as usize;
    /// let endian = r.layout().endian;
    /// assert_eq!(CommTable::parse(&bytes[at..], endian, at as u64)?, table);
    /// let mut extra = bytes[at..].to_vec();
    /// extra.push(0);
    /// let e = CommTable::parse(&extra, endian, at as u64).unwrap_err();
    /// assert!(matches!(e, Error::TrailingBytes { count: 1, .. }));
    /// assert_eq!(e.offset(), Some(bytes.len() as u64));
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn parse(bytes: &[u8], endian: Endian, offset: u64) -> Result<CommTable> {
        if bytes.len() < 4 {
            return Err(Error::Truncated {
                offset: offset + bytes.len() as u64,
                expected: Expected::CommTableCount { at: None },
            });
        }
        let mut cur = Cursor::new(bytes);
        let t =
            CommTable::read_options(&mut cur, endian, (bytes.len() as u64,)).map_err(
                |e| match e {
                    binrw::Error::AssertFail { message, .. } => Error::BadValue {
                        offset,
                        field: "comm table count",
                        value: count_of(bytes, endian) as i64,
                        problem: ValueProblem::CommTableLayout(message),
                    },
                    other => Error::from_binrw(other, offset, "the comm table"),
                },
            )?;
        let used = t.disk_len();
        if used < bytes.len() as u64 {
            return Err(Error::TrailingBytes {
                offset: offset + used,
                count: bytes.len() as u64 - used,
                after: "comm table",
            });
        }
        Ok(t)
    }

    /// Appends the table's bytes to `out`.
    ///
    /// # Errors
    ///
    /// [`Error::Write`] with [`WriteProblem::Encode`] when the encoder fails.
    ///
    /// ```
    /// use clog2_format::{synth, Clog2Reader};
    /// let bytes = synth::generate_vec(&Default::default())?;
    /// let mut r = Clog2Reader::from_slice(&bytes)?;
    /// while r.next_record()?.is_some() {}
    /// let table = r.finish()?.unwrap();
    /// let mut out = Vec::new();
    /// table.encode(r.layout().endian, &mut out)?;
    /// assert_eq!(out.len() as u64, table.disk_len());
    /// assert!(bytes.ends_with(&out));
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn encode(&self, endian: Endian, out: &mut Vec<u8>) -> Result<()> {
        let mut cur = Cursor::new(out);
        let end = cur.get_ref().len() as u64;
        cur.set_position(end);
        self.write_options(&mut cur, endian, ()).map_err(|e| {
            Error::Write(WriteProblem::Encode {
                what: "comm table",
                message: e.to_string(),
            })
        })
    }
}

fn count_of(bytes: &[u8], endian: Endian) -> i32 {
    let b = [bytes[0], bytes[1], bytes[2], bytes[3]];
    match endian {
        Endian::Big => i32::from_be_bytes(b),
        Endian::Little => i32::from_le_bytes(b),
    }
}
