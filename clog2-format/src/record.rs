//! CLOG2 records: the on-disk layouts (declarative binrw structs) and the in-memory
//! [`Record`].
//!
//! Every record is a header followed by a body whose size is implied by the record
//! type; there is no length field. Integers and doubles use the file's byte order;
//! strings, cargo bytes, UUID names and pad fields are raw bytes ([`FixedBytes`]) and
//! never swapped. Pad fields keep whatever stale bytes MPE left in them.

use crate::bytes::FixedBytes;
use binrw::binrw;

/// Record type numbers (`rectype`) of CLOG-02.xx.
pub mod rectype {
    /// End of the log (last record of the last block).
    pub const ENDLOG: i32 = 0;
    /// End of a block.
    pub const ENDBLOCK: i32 = 1;
    /// State definition.
    pub const STATEDEF: i32 = 2;
    /// Event definition.
    pub const EVENTDEF: i32 = 3;
    /// Constant definition.
    pub const CONSTDEF: i32 = 4;
    /// Event without payload.
    pub const BAREEVT: i32 = 5;
    /// Event with a 32-byte payload.
    pub const CARGOEVT: i32 = 6;
    /// Point-to-point message send or receive.
    pub const MSGEVT: i32 = 7;
    /// Collective event (never written by MPE2).
    pub const COLLEVT: i32 = 8;
    /// Communicator creation or release.
    pub const COMMEVT: i32 = 9;
    /// Source location (never written by MPE2).
    pub const SRCLOC: i32 = 10;
    /// Clock shift.
    pub const TIMESHIFT: i32 = 11;
}

/// The 24-byte record header of CLOG-02.30 and later.
#[binrw]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RecordHeader {
    /// Seconds since the start of logging.
    pub time: f64,
    /// Local ID of the communicator the event was logged in (MPI_COMM_WORLD is 0).
    pub icomm: i32,
    /// Rank of the logging process in `icomm`.
    pub rank: i32,
    /// MPE-local thread ID.
    pub thread: i32,
    /// Record type, see [`rectype`].
    pub rectype: i32,
}

impl RecordHeader {
    /// Decodes the header from its 24 bytes without going through an I/O cursor: the
    /// hot path of every reader. Equal to the binrw derive's result (tested).
    ///
    /// ```
    /// use clog2_format::record::{Record, RecordHeader};
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut r = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// let first: Record = r.next_record()?.unwrap();
    /// let h = RecordHeader::decode(&bytes[1024..1024 + 24], binrw::Endian::Big);
    /// assert_eq!((h.time, h.rank, h.rectype), (first.time, first.rank, first.rectype()));
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    #[inline]
    pub fn decode(b: &[u8], endian: binrw::Endian) -> RecordHeader {
        let f8 = |i: usize| -> [u8; 8] { b[i..i + 8].try_into().expect("8 bytes") };
        let f4 = |i: usize| -> [u8; 4] { b[i..i + 4].try_into().expect("4 bytes") };
        match endian {
            binrw::Endian::Big => RecordHeader {
                time: f64::from_be_bytes(f8(0)),
                icomm: i32::from_be_bytes(f4(8)),
                rank: i32::from_be_bytes(f4(12)),
                thread: i32::from_be_bytes(f4(16)),
                rectype: i32::from_be_bytes(f4(20)),
            },
            binrw::Endian::Little => RecordHeader {
                time: f64::from_le_bytes(f8(0)),
                icomm: i32::from_le_bytes(f4(8)),
                rank: i32::from_le_bytes(f4(12)),
                thread: i32::from_le_bytes(f4(16)),
                rectype: i32::from_le_bytes(f4(20)),
            },
        }
    }
}

/// The 16-byte record header of CLOG-02.10 and 02.20.
#[binrw]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LegacyRecordHeader {
    /// Seconds since the start of logging.
    pub time: f64,
    /// Record type.
    pub rectype: i32,
    /// World rank of the logging process.
    pub proc_id: i32,
}

/// STATEDEF body (112 bytes): a state and its start and final event IDs.
#[binrw]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateDef {
    /// State ID.
    pub state_id: i32,
    /// Event ID that starts the state.
    pub start_etype: i32,
    /// Event ID that ends the state.
    pub final_etype: i32,
    /// Pad (stale bytes).
    pub pad: FixedBytes<4>,
    /// Colour name, e.g. `red` or `SeaGreen`.
    pub color: FixedBytes<24>,
    /// State name.
    pub name: FixedBytes<32>,
    /// `MPE_Log_pack` format of the cargo (e.g. `val=%d`), may be empty.
    pub format: FixedBytes<40>,
}

/// EVENTDEF body (104 bytes): a solo event.
#[binrw]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventDef {
    /// Event ID.
    pub etype: i32,
    /// Pad (stale bytes).
    pub pad: FixedBytes<4>,
    /// Colour name.
    pub color: FixedBytes<24>,
    /// Event name.
    pub name: FixedBytes<32>,
    /// Cargo format, may be empty.
    pub format: FixedBytes<40>,
}

/// CONSTDEF body (40 bytes): a named constant such as `MPI_ANY_SOURCE`.
#[binrw]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConstDef {
    /// Always -201 in MPE's files.
    pub etype: i32,
    /// The constant's value.
    pub value: i32,
    /// Its name.
    pub name: FixedBytes<32>,
}

/// BAREEVT body (8 bytes): an event without payload.
#[binrw]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BareEvt {
    /// Event ID.
    pub etype: i32,
    /// Pad (stale bytes).
    pub pad: FixedBytes<4>,
}

/// CARGOEVT body (40 bytes): an event with 32 bytes of `MPE_Log_pack` payload, which
/// is big-endian whatever the file's byte order.
#[binrw]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CargoEvt {
    /// Event ID.
    pub etype: i32,
    /// Pad (stale bytes).
    pub pad: FixedBytes<4>,
    /// The payload.
    pub bytes: FixedBytes<32>,
}

/// MSGEVT body (24 bytes) of 02.30 and later.
#[binrw]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MsgEvt {
    /// -101 send, -102 receive.
    pub etype: i32,
    /// Local ID of the partner's (remote) intracommunicator.
    pub icomm: i32,
    /// Partner's rank in `icomm`.
    pub rank: i32,
    /// Message tag.
    pub tag: i32,
    /// Message size in bytes.
    pub size: i32,
    /// Pad (stale bytes).
    pub pad: FixedBytes<4>,
}

/// COLLEVT body (16 bytes) of 02.30 and later.
#[binrw]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CollEvt {
    /// Event ID.
    pub etype: i32,
    /// Root rank.
    pub root: i32,
    /// Data size.
    pub size: i32,
    /// Pad (stale bytes).
    pub pad: FixedBytes<4>,
}

/// A communicator's globally unique ID (32 bytes): made by its rank 0 from a random
/// number, the wall-clock time and the host name.
#[binrw]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Uuid {
    /// `lrand48()` value.
    pub rand: i32,
    /// Absolute `MPI_Wtime()` (stored unaligned, at +4).
    pub time: f64,
    /// Processor name, zero-padded, not NUL-terminated when 20 characters long.
    pub name: FixedBytes<20>,
}

impl Uuid {
    /// The all-zero UUID (used by CommFree records).
    pub const ZERO: Uuid = Uuid {
        rand: 0,
        time: 0.0,
        name: FixedBytes::ZERO,
    };
}

/// COMMEVT body (48 bytes) of 02.30 and later.
#[binrw]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CommEvt {
    /// Communicator event type, see [`comm_etype`].
    pub etype: i32,
    /// Local ID of the communicator being described.
    pub icomm: i32,
    /// This process's rank in it.
    pub rank: i32,
    /// This process's world rank.
    pub wrank: i32,
    /// The communicator's global ID.
    pub gcomm: Uuid,
}

/// SRCLOC body (48 bytes; never written by MPE2).
#[binrw]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SrcLoc {
    /// Source location ID.
    pub srcloc: i32,
    /// Line number.
    pub lineno: i32,
    /// File name.
    pub filename: FixedBytes<40>,
}

/// TIMESHIFT body (8 bytes). Finalized files store the negated shift that was
/// already applied; readers must not apply it again.
#[binrw]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeShift {
    /// The shift in seconds.
    pub timeshift: f64,
}

/// MSGEVT body (24 bytes) of 02.10 and 02.20.
#[binrw]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LegacyMsgEvt {
    /// -101 send, -102 receive.
    pub etype: i32,
    /// Message tag.
    pub tag: i32,
    /// Partner's rank.
    pub partner: i32,
    /// Communicator.
    pub comm: i32,
    /// Message size in bytes.
    pub size: i32,
    /// Pad (stale bytes).
    pub pad: FixedBytes<4>,
}

/// COLLEVT body (16 bytes) of 02.10 and 02.20.
#[binrw]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LegacyCollEvt {
    /// Event ID.
    pub etype: i32,
    /// Root rank.
    pub root: i32,
    /// Communicator.
    pub comm: i32,
    /// Data size.
    pub size: i32,
}

/// COMMEVT body (16 bytes) of 02.10 and 02.20.
#[binrw]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LegacyCommEvt {
    /// Communicator event type.
    pub etype: i32,
    /// Parent communicator.
    pub parent: i32,
    /// New communicator.
    pub newcomm: i32,
    /// Pad (stale bytes).
    pub pad: FixedBytes<4>,
}

/// COMMEVT event types.
pub mod comm_etype {
    /// MPI_COMM_WORLD created.
    pub const WORLD_CREATE: i32 = 0;
    /// MPI_COMM_SELF created.
    pub const SELF_CREATE: i32 = 1;
    /// Communicator freed.
    pub const FREE: i32 = 10;
    /// Intracommunicator created.
    pub const INTRA_CREATE: i32 = 100;
    /// Local intracommunicator of an intercommunicator.
    pub const INTRA_LOCAL: i32 = 101;
    /// Remote intracommunicator of an intercommunicator.
    pub const INTRA_REMOTE: i32 = 102;
    /// Intercommunicator created.
    pub const INTER_CREATE: i32 = 1000;
}

/// MSGEVT event type of a send.
pub const SEND_ETYPE: i32 = -101;
/// MSGEVT event type of a receive.
pub const RECV_ETYPE: i32 = -102;
/// CONSTDEF event type.
pub const CONST_ETYPE: i32 = -201;
/// Time MPE's merger writes in the final ENDLOG record (`CLOG_MAXTIME`).
pub const ENDLOG_TIME: f64 = 1.0e8;

/// A record body, by record type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Body {
    /// ENDLOG (0): header only.
    EndLog,
    /// ENDBLOCK (1): header only.
    EndBlock,
    /// STATEDEF (2).
    StateDef(StateDef),
    /// EVENTDEF (3).
    EventDef(EventDef),
    /// CONSTDEF (4).
    ConstDef(ConstDef),
    /// BAREEVT (5).
    Bare(BareEvt),
    /// CARGOEVT (6).
    Cargo(CargoEvt),
    /// MSGEVT (7), 02.30 and later.
    Msg(MsgEvt),
    /// COLLEVT (8), 02.30 and later.
    Coll(CollEvt),
    /// COMMEVT (9), 02.30 and later.
    Comm(CommEvt),
    /// SRCLOC (10).
    SrcLoc(SrcLoc),
    /// TIMESHIFT (11).
    TimeShift(TimeShift),
    /// MSGEVT (7) of 02.10 / 02.20.
    LegacyMsg(LegacyMsgEvt),
    /// COLLEVT (8) of 02.10 / 02.20.
    LegacyColl(LegacyCollEvt),
    /// COMMEVT (9) of 02.10 / 02.20.
    LegacyComm(LegacyCommEvt),
}

impl Body {
    /// The record type number of this body.
    ///
    /// ```
    /// use clog2_format::record::{rectype, Body};
    /// assert_eq!(Body::EndBlock.rectype(), rectype::ENDBLOCK);
    /// ```
    pub fn rectype(&self) -> i32 {
        use rectype::*;
        match self {
            Body::EndLog => ENDLOG,
            Body::EndBlock => ENDBLOCK,
            Body::StateDef(_) => STATEDEF,
            Body::EventDef(_) => EVENTDEF,
            Body::ConstDef(_) => CONSTDEF,
            Body::Bare(_) => BAREEVT,
            Body::Cargo(_) => CARGOEVT,
            Body::Msg(_) | Body::LegacyMsg(_) => MSGEVT,
            Body::Coll(_) | Body::LegacyColl(_) => COLLEVT,
            Body::Comm(_) | Body::LegacyComm(_) => COMMEVT,
            Body::SrcLoc(_) => SRCLOC,
            Body::TimeShift(_) => TIMESHIFT,
        }
    }

    /// Whether this body uses a layout of 02.10 / 02.20.
    ///
    /// ```
    /// use clog2_format::record::Body;
    /// assert!(!Body::EndLog.is_legacy());
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?; // 02.44: no legacy bodies
    /// let f = clog2_format::Clog2File::parse(&bytes)?;
    /// assert!(f.records().all(|r| !r.body.is_legacy()));
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn is_legacy(&self) -> bool {
        matches!(
            self,
            Body::LegacyMsg(_) | Body::LegacyColl(_) | Body::LegacyComm(_)
        )
    }
}

/// Size of a record body of type `rectype` (without the header), or `None` for an
/// unknown type. The legacy (02.10/02.20) sizes differ only for COMMEVT.
///
/// ```
/// use clog2_format::record::{body_len, rectype};
/// assert_eq!(body_len(rectype::MSGEVT, false), Some(24));
/// assert_eq!(body_len(rectype::ENDLOG, false), Some(0));
/// assert_eq!(body_len(999, false), None);
/// ```
pub fn body_len(rectype: i32, legacy: bool) -> Option<usize> {
    use rectype::*;
    Some(match rectype {
        ENDLOG | ENDBLOCK => 0,
        STATEDEF => 112,
        EVENTDEF => 104,
        CONSTDEF => 40,
        BAREEVT => 8,
        CARGOEVT => 40,
        MSGEVT => 24,
        COLLEVT => 16,
        COMMEVT if legacy => 16,
        COMMEVT => 48,
        SRCLOC => 48,
        TIMESHIFT => 8,
        _ => return None,
    })
}

/// Short name of a record type, as in MPE's C `clog2_print`.
///
/// ```
/// use clog2_format::record::{rectype, rectype_name};
/// assert_eq!(rectype_name(rectype::MSGEVT), "msg");
/// assert_eq!(rectype_name(rectype::TIMESHIFT), "shft");
/// assert_eq!(rectype_name(-5), "unknown");
/// ```
pub fn rectype_name(rectype: i32) -> &'static str {
    use rectype::*;
    match rectype {
        ENDLOG => "elog",
        ENDBLOCK => "eblk",
        STATEDEF => "sdef",
        EVENTDEF => "edef",
        CONSTDEF => "cdef",
        BAREEVT => "bare",
        CARGOEVT => "cago",
        MSGEVT => "msg",
        COLLEVT => "coll",
        COMMEVT => "comm",
        SRCLOC => "loc",
        TIMESHIFT => "shft",
        _ => "unknown",
    }
}

/// One record: the header fields and the body.
///
/// For 02.10/02.20 files, whose header has only a process ID, `rank` holds the
/// process ID and `icomm` and `thread` are 0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Record {
    /// Seconds since the start of logging.
    pub time: f64,
    /// Communicator local ID.
    pub icomm: i32,
    /// Rank in `icomm` (process ID for 02.10/02.20).
    pub rank: i32,
    /// Thread ID.
    pub thread: i32,
    /// The body.
    pub body: Body,
}

impl Record {
    /// A record of `body` logged at `time` by `rank` of MPI_COMM_WORLD (local
    /// communicator 0), thread 0.
    ///
    /// ```
    /// use clog2_format::record::{Body, Record};
    /// let r = Record::new(1.5, 2, Body::EndBlock);
    /// assert_eq!((r.time, r.rank, r.icomm, r.thread), (1.5, 2, 0, 0));
    /// ```
    pub fn new(time: f64, rank: i32, body: Body) -> Record {
        Record {
            time,
            icomm: 0,
            rank,
            thread: 0,
            body,
        }
    }

    /// A BAREEVT record of event `etype` (as `MPE_Log_bare_event` writes it: the
    /// pad bytes zero), logged at `time` by `rank` of MPI_COMM_WORLD.
    ///
    /// ```
    /// use clog2_format::record::{rectype, Record};
    /// let r = Record::bare(0.25, 0, 300);
    /// assert_eq!(r.rectype(), rectype::BAREEVT);
    /// ```
    pub fn bare(time: f64, rank: i32, etype: i32) -> Record {
        Record::new(
            time,
            rank,
            Body::Bare(BareEvt {
                etype,
                pad: crate::bytes::FixedBytes::ZERO,
            }),
        )
    }

    /// The record type number.
    ///
    /// ```
    /// use clog2_format::record::{rectype, Record};
    /// assert_eq!(Record::bare(0.5, 0, 600).rectype(), rectype::BAREEVT);
    /// ```
    pub fn rectype(&self) -> i32 {
        self.body.rectype()
    }

    /// Whether this record ends a block (ENDBLOCK or ENDLOG).
    ///
    /// ```
    /// use clog2_format::record::{Body, Record};
    /// assert!(Record::new(0.0, 0, Body::EndLog).is_terminator());
    /// assert!(!Record::bare(0.0, 0, 600).is_terminator());
    /// ```
    pub fn is_terminator(&self) -> bool {
        matches!(self.body, Body::EndLog | Body::EndBlock)
    }

    /// The size of this record on disk with a header of `header_len` bytes.
    ///
    /// ```
    /// use clog2_format::record::Record;
    /// let r = Record::bare(0.5, 0, 600);
    /// assert_eq!(r.disk_len(24), 24 + 8); // etype and pad
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn disk_len(&self, header_len: usize) -> usize {
        header_len + body_len(self.rectype(), self.body.is_legacy()).unwrap_or(0)
    }
}
