//! Old CLOG (MPE1, MPICH-1): a lossless reader and writer.
//!
//! The normative description is `spec/clog.md` in the mpelog repository. In short:
//!
//! * There is no preamble and no magic number. The file is a sequence of blocks of
//!   a fixed size `B`, **big-endian**. `B` is not stored: MPICH up to 1.1.2 used 1024
//!   bytes, later versions 65536.
//! * Each record is a 24-byte header ([`RecordHeader`]: time f64, rectype i32,
//!   length i32 = whole record size in 8-byte units, procid i32, 4 pad bytes)
//!   followed by a body of a size fixed by the type:
//!
//!   | rectype | name | length | body |
//!   |---|---|---|---|
//!   | -2 | ENDLOG | 3 | none |
//!   | -1 | ENDBLOCK | 3 | none |
//!   | 1 | RAWEVENT | 7 | [`RawEvent`] |
//!   | 2 | MSGEVENT | 6 | [`MsgEvent`] |
//!   | 3 | COLLEVENT | 6 | [`CollEvent`] |
//!   | 4 | COMMEVENT | 5 | [`CommEvent`] |
//!   | 5 | EVENTDEF | 6 | [`EventDef`] |
//!   | 6 | STATEDEF | 10 | [`StateDef`] |
//!   | 7 | SRCLOC | 9 | [`SrcLoc`] |
//!   | 8 | SHIFT | 4 | [`Shift`] |
//!
//!   Records of any other type with a length of at least 3 that fits in the block
//!   are kept as opaque [`Body::Unknown`] records (skippable thanks to the length
//!   field), except as the file's first record.
//! * Every block ends with ENDBLOCK, or with ENDLOG in the file's last block. The
//!   bytes after the terminator are stale data, kept verbatim in
//!   [`ClogBlock::trailing`]; strings and pad fields are kept verbatim too, so
//!   [`ClogFile::to_bytes`] gives back the input byte for byte.
//!
//! # Block-size inference
//!
//! [`ClogFile::parse`], [`ClogRecords::new`] and [`infer_block_size`] infer `B`:
//!
//! 1. Walk the records from offset 0, with the file end as the only bound, up to the
//!    first terminator, at offset `e`. If the walk reaches the end of the file first,
//!    the block size cannot be inferred.
//! 2. If that terminator is ENDLOG, `B` is the file length (a single block).
//! 3. Otherwise `B` is the smallest power of two with `B >= 1024`, `B >= e + 24`,
//!    the file length a multiple of `B`, and a plausible record header at offset `B`
//!    (a known record type, terminators included, with its fixed length). If none
//!    qualifies, the block size cannot be inferred.
//!
//! [`ClogFile::parse_with_block_size`] and [`ClogRecords::with_block_size`] take an
//! explicit `B` instead (a multiple of 8, at least 24).
//!
//! # Errors
//!
//! Every parser is total: any input gives a value or an [`Error`] naming a byte
//! offset, never a panic.
//!
//! | condition | error | offset |
//! |---|---|---|
//! | file shorter than one 24-byte header (or empty) | [`Error::Truncated`] | 0 |
//! | first record of an unknown type (not an old-CLOG file) | [`Error::UnknownRecordType`] | 0 |
//! | explicit `B` not a multiple of 8 or below 24 | [`Error::BadValue`] (`block size`) | 0 |
//! | `B` not inferable (no terminator, or no power of two qualifies) | [`Error::BadValue`] (`block size`) | 0 |
//! | file length not a multiple of `B` | [`Error::Truncated`] | file length |
//! | known type whose `length` is not its fixed length | [`Error::BadValue`] (`length`) | record start |
//! | unknown type with `length` < 3 | [`Error::BadValue`] (`length`) | record start |
//! | a record or a header running past its block's end | [`Error::BlockOverrun`] | record start |
//! | records ending exactly at the block end without a terminator | [`Error::BlockOverrun`] | block end |
//! | last block ends with ENDBLOCK (no ENDLOG) | [`Error::MissingEndLog`] | file length |
//! | blocks after the block holding ENDLOG | [`Error::DataAfterEndLog`] | start of the next block |
//!
//! # Writing
//!
//! [`ClogWriter`] packs new records into blocks like MPICH-1's merger
//! ([`BlockFill::Mpe1`], or [`BlockFill::Tight`]), closes blocks with ENDBLOCK and
//! the log with ENDLOG at time 1.0e6, and pads with zeros.
//!
//! ```
//! use clog2_format::clog::{Body, ClogFile, ClogWriter, Record, SrcLoc};
//! use clog2_format::FixedBytes;
//! let mut w = ClogWriter::new(Vec::new(), 1024).unwrap();
//! for i in 0..40 {
//!     let body = Body::SrcLoc(SrcLoc { srcloc: 900 + i, lineno: 10, filename: FixedBytes::from_str_truncated("a.c") });
//!     w.push(&Record::new(f64::from(i) * 0.001, i % 4, body)).unwrap();
//! }
//! let bytes = w.finish().unwrap();
//! let file = ClogFile::parse(&bytes).unwrap();
//! assert_eq!(file.block_size, 1024);
//! assert_eq!(file.records().filter(|r| !r.is_terminator()).count(), 40);
//! assert_eq!(file.to_bytes().unwrap(), bytes);
//! assert_eq!(
//!     file.blocks[0].records[0].display().to_string(),
//!     r#"ts=0.0 proc=0 type=srcloc srcloc=900 line=10 file="a.c""#
//! );
//! ```
//!
//! [`Error`]: crate::Error
//! [`Error::Truncated`]: crate::Error::Truncated
//! [`Error::UnknownRecordType`]: crate::Error::UnknownRecordType
//! [`Error::BadValue`]: crate::Error::BadValue
//! [`Error::BlockOverrun`]: crate::Error::BlockOverrun
//! [`Error::MissingEndLog`]: crate::Error::MissingEndLog
//! [`Error::DataAfterEndLog`]: crate::Error::DataAfterEndLog

pub mod read;
pub mod record;
pub mod write;

pub use read::{
    infer_block_size, looks_like, ClogBlock, ClogFile, ClogRecords, MAX_PLAUSIBLE_TIME,
    MIN_INFERRED_BLOCK_SIZE,
};
pub use record::{
    comm_etype, record_len, rectype, rectype_name, Body, CollEvent, CommEvent, EventDef, MsgEvent,
    RawEvent, Record, RecordDisplay, RecordHeader, Shift, SrcLoc, StateDef, CONST_ETYPE,
    ENDLOG_TIME, HEADER_LEN, MAX_REC_LEN, RECV_ETYPE, SEND_ETYPE,
};
pub use write::{BlockFill, ClogWriter};
