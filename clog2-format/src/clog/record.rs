//! Old-CLOG records: the on-disk layouts (declarative binrw structs, always
//! big-endian) and the in-memory [`Record`].
//!
//! Every record is a 24-byte [`RecordHeader`] followed by a body whose size is fixed by
//! the record type. Unlike CLOG2, the header carries the whole record's length (in
//! 8-byte units), so records of unknown types can be skipped: they become
//! [`Body::Unknown`] with their bytes kept verbatim. Strings and pad fields are raw
//! bytes ([`FixedBytes`]) and keep whatever stale bytes MPE left in them.

use crate::bytes::FixedBytes;
use crate::dump::{hex, quoted};
use binrw::binrw;
use std::fmt;

/// Size of the record header in bytes.
pub const HEADER_LEN: usize = 24;

/// Timestamp of the ENDLOG record MPICH-1's merger writes (`CLOG_MAXTIME`).
pub const ENDLOG_TIME: f64 = 1.0e6;

/// `CLOG_MAX_REC_LEN` of MPICH-1 (160 bytes): the merger closes a block once fewer than
/// this many bytes would be left after a record (see [`super::BlockFill::Mpe1`]).
pub const MAX_REC_LEN: usize = 160;

// The RAWEVENT event types of a message send (`LOG_MESG_SEND`), a receive
// (`LOG_MESG_RECV`) and a constant definition (`LOG_CONST_DEF`): the numbers
// CLOG2 kept for its MSGEVT and CONSTDEF records.
pub use crate::record::{CONST_ETYPE, RECV_ETYPE, SEND_ETYPE};

/// Record type numbers (`rectype`) of old CLOG (`clog.h` of MPICH-1).
pub mod rectype {
    /// End of the log (last record of the last block).
    pub const ENDLOG: i32 = -2;
    /// End of a block.
    pub const ENDBLOCK: i32 = -1;
    /// `CLOG_UNDEF`: defined by `clog.h` but without a layout; read as an opaque record.
    pub const UNDEF: i32 = 0;
    /// Arbitrary event with an integer and a 16-byte string.
    pub const RAWEVENT: i32 = 1;
    /// Message event.
    pub const MSGEVENT: i32 = 2;
    /// Collective event.
    pub const COLLEVENT: i32 = 3;
    /// Communicator creation or release.
    pub const COMMEVENT: i32 = 4;
    /// Event description.
    pub const EVENTDEF: i32 = 5;
    /// State description.
    pub const STATEDEF: i32 = 6;
    /// Source location.
    pub const SRCLOC: i32 = 7;
    /// Clock shift of a process.
    pub const SHIFT: i32 = 8;
}

/// COMMEVENT event types (`clog.h` of MPICH-1).
pub mod comm_etype {
    /// `MPI_Init` (parent is -1).
    pub const INIT: i32 = 101;
    /// `MPI_Comm_dup`.
    pub const DUP: i32 = 102;
    /// `MPI_Comm_split`.
    pub const SPLIT: i32 = 103;
    /// `MPI_Cart_create`.
    pub const CARTCR: i32 = 104;
    /// `MPI_Comm_create`.
    pub const COMMCR: i32 = 105;
    /// `MPI_Comm_free`.
    pub const CFREE: i32 = 106;
}

/// The fixed `length` (whole record size in 8-byte units) of a known record type, or
/// `None` for any other type (including [`rectype::UNDEF`]).
///
/// ```
/// use clog2_format::clog::{record_len, rectype};
/// assert_eq!(record_len(rectype::SHIFT), Some(4)); // 32 bytes
/// assert_eq!(record_len(rectype::ENDLOG), Some(3)); // the 24-byte header alone
/// assert_eq!(record_len(rectype::UNDEF), None);
/// ```
pub fn record_len(rectype: i32) -> Option<i32> {
    use rectype::*;
    Some(match rectype {
        ENDLOG | ENDBLOCK => 3,
        RAWEVENT => 7,
        MSGEVENT => 6,
        COLLEVENT => 6,
        COMMEVENT => 5,
        EVENTDEF => 6,
        STATEDEF => 10,
        SRCLOC => 9,
        SHIFT => 4,
        _ => return None,
    })
}

/// The short name of a record type used by [`Record::display`] and
/// [`Body::type_name`]: `endlog`, `endblock`, `raw`, `msg`, `coll`, `comm`,
/// `eventdef`, `statedef`, `srcloc`, `shift`, or `unknown` for any other number.
///
/// ```
/// use clog2_format::clog::{rectype, rectype_name};
/// assert_eq!(rectype_name(rectype::SHIFT), "shift");
/// assert_eq!(rectype_name(rectype::ENDBLOCK), "endblock");
/// assert_eq!(rectype_name(12345), "unknown");
/// ```
pub fn rectype_name(rectype: i32) -> &'static str {
    use rectype::*;
    match rectype {
        ENDLOG => "endlog",
        ENDBLOCK => "endblock",
        RAWEVENT => "raw",
        MSGEVENT => "msg",
        COLLEVENT => "coll",
        COMMEVENT => "comm",
        EVENTDEF => "eventdef",
        STATEDEF => "statedef",
        SRCLOC => "srcloc",
        SHIFT => "shift",
        _ => "unknown",
    }
}

/// The 24-byte record header.
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RecordHeader {
    /// Seconds, already shifted by the merge.
    pub time: f64,
    /// Record type, see [`rectype`].
    pub rectype: i32,
    /// Whole record size (header included) in 8-byte units: 3 for a bare header.
    pub length: i32,
    /// Rank of the logging process in `MPI_COMM_WORLD`.
    pub procid: i32,
    /// Pad (never written by MPICH; stale bytes).
    pub pad: FixedBytes<4>,
}

/// RAWEVENT body (32 bytes; record length 7).
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawEvent {
    /// Event type ([`SEND_ETYPE`], [`RECV_ETYPE`], [`CONST_ETYPE`] or a state event).
    pub etype: i32,
    /// Uninterpreted data (the partner's rank for sends and receives).
    pub data: i32,
    /// Source location ID.
    pub srcloc: i32,
    /// Pad (stale bytes).
    pub pad: FixedBytes<4>,
    /// Uninterpreted string (`"<tag> <size>"` for sends and receives).
    pub string: FixedBytes<16>,
}

/// MSGEVENT body (24 bytes; record length 6).
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MsgEvent {
    /// Kind of message event.
    pub etype: i32,
    /// Message tag.
    pub tag: i32,
    /// Source or destination rank.
    pub partner: i32,
    /// Communicator.
    pub comm: i32,
    /// Message length in bytes.
    pub size: i32,
    /// Source location ID.
    pub srcloc: i32,
}

/// COLLEVENT body (24 bytes; record length 6).
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CollEvent {
    /// Type of collective event.
    pub etype: i32,
    /// Root of the collective operation.
    pub root: i32,
    /// Communicator.
    pub comm: i32,
    /// Data length in bytes.
    pub size: i32,
    /// Source location ID.
    pub srcloc: i32,
    /// Pad (stale bytes).
    pub pad: FixedBytes<4>,
}

/// COMMEVENT body (16 bytes; record length 5).
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommEvent {
    /// Type of communicator event, see [`comm_etype`].
    pub etype: i32,
    /// Parent communicator (-1 for INIT).
    pub parent: i32,
    /// New communicator.
    pub newcomm: i32,
    /// Source location ID.
    pub srcloc: i32,
}

/// EVENTDEF body (24 bytes; record length 6).
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventDef {
    /// Event type.
    pub etype: i32,
    /// Pad (stale bytes).
    pub pad: FixedBytes<4>,
    /// Description.
    pub description: FixedBytes<16>,
}

/// STATEDEF body (56 bytes; record length 10).
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateDef {
    /// State ID.
    pub stateid: i32,
    /// Event type that starts the state.
    pub startetype: i32,
    /// Event type that ends the state.
    pub endetype: i32,
    /// Pad (stale bytes).
    pub pad: FixedBytes<4>,
    /// Colour, e.g. `red` or `yellow:dimple3` (colour and bitmap).
    pub color: FixedBytes<24>,
    /// Description (the state's name).
    pub description: FixedBytes<16>,
}

/// SRCLOC body (48 bytes; record length 9).
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SrcLoc {
    /// Source location ID.
    pub srcloc: i32,
    /// Line number.
    pub lineno: i32,
    /// Source file name (cut to 39 bytes by MPICH's `strncpy`).
    pub filename: FixedBytes<40>,
}

/// SHIFT body (8 bytes; record length 4).
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shift {
    /// The clock shift (seconds) the merge added to this process's times.
    pub timeshift: f64,
}

/// A record body, by record type.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// ENDLOG (-2): header only.
    EndLog,
    /// ENDBLOCK (-1): header only.
    EndBlock,
    /// RAWEVENT (1).
    Raw(RawEvent),
    /// MSGEVENT (2).
    Msg(MsgEvent),
    /// COLLEVENT (3).
    Coll(CollEvent),
    /// COMMEVENT (4).
    Comm(CommEvent),
    /// EVENTDEF (5).
    EventDef(EventDef),
    /// STATEDEF (6).
    StateDef(StateDef),
    /// SRCLOC (7).
    SrcLoc(SrcLoc),
    /// SHIFT (8).
    Shift(Shift),
    /// A record of any other type (including 0, `CLOG_UNDEF`), skipped by its length
    /// field and kept verbatim.
    Unknown {
        /// The record type.
        rectype: i32,
        /// The bytes after the header: `length * 8 - 24` of them.
        bytes: Vec<u8>,
    },
}

impl Body {
    /// The record type number of this body.
    ///
    /// ```
    /// use clog2_format::clog::{rectype, Body, Shift};
    /// assert_eq!(Body::Shift(Shift { timeshift: 0.5 }).rectype(), rectype::SHIFT);
    /// assert_eq!(Body::Unknown { rectype: 77, bytes: vec![0; 8] }.rectype(), 77);
    /// ```
    pub fn rectype(&self) -> i32 {
        use rectype::*;
        match self {
            Body::EndLog => ENDLOG,
            Body::EndBlock => ENDBLOCK,
            Body::Raw(_) => RAWEVENT,
            Body::Msg(_) => MSGEVENT,
            Body::Coll(_) => COLLEVENT,
            Body::Comm(_) => COMMEVENT,
            Body::EventDef(_) => EVENTDEF,
            Body::StateDef(_) => STATEDEF,
            Body::SrcLoc(_) => SRCLOC,
            Body::Shift(_) => SHIFT,
            Body::Unknown { rectype, .. } => *rectype,
        }
    }

    /// The short type name (see [`rectype_name`]); `unknown` for [`Body::Unknown`].
    ///
    /// ```
    /// use clog2_format::clog::{Body, Shift};
    /// assert_eq!(Body::Shift(Shift { timeshift: 0.5 }).type_name(), "shift");
    /// assert_eq!(Body::EndLog.type_name(), "endlog");
    /// assert_eq!(Body::Unknown { rectype: 8, bytes: vec![] }.type_name(), "unknown");
    /// ```
    pub fn type_name(&self) -> &'static str {
        match self {
            Body::Unknown { .. } => "unknown",
            b => rectype_name(b.rectype()),
        }
    }

    /// The size of the body on disk (without the header).
    ///
    /// ```
    /// use clog2_format::clog::{Body, Shift};
    /// assert_eq!(Body::Shift(Shift { timeshift: 0.5 }).disk_len(), 8); // one double
    /// assert_eq!(Body::EndLog.disk_len(), 0);
    /// assert_eq!(Body::Unknown { rectype: 77, bytes: vec![0; 16] }.disk_len(), 16);
    /// ```
    pub fn disk_len(&self) -> usize {
        match self {
            Body::Unknown { bytes, .. } => bytes.len(),
            b => record_len(b.rectype()).map_or(0, |l| l as usize * 8 - HEADER_LEN),
        }
    }
}

/// One record: the header fields and the body.
///
/// The header's `rectype` and `length` are implied by the body; its pad bytes are kept
/// in [`Record::pad`] so that parsed files write back byte for byte.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// Seconds (ENDLOG carries [`ENDLOG_TIME`]).
    pub time: f64,
    /// Rank of the logging process in `MPI_COMM_WORLD`.
    pub procid: i32,
    /// The header's pad bytes (stale; zero when written fresh).
    pub pad: FixedBytes<4>,
    /// The body.
    pub body: Body,
}

impl Record {
    /// A record with a zero header pad.
    ///
    /// ```
    /// use clog2_format::clog::{Body, Record};
    /// let r = Record::new(1.5, 3, Body::EndBlock);
    /// assert_eq!((r.time, r.procid, r.pad.is_zero()), (1.5, 3, true));
    /// ```
    pub fn new(time: f64, procid: i32, body: Body) -> Record {
        Record {
            time,
            procid,
            pad: FixedBytes::ZERO,
            body,
        }
    }

    /// The record type number.
    ///
    /// ```
    /// use clog2_format::clog::{rectype, Body, Record, Shift};
    /// let r = Record::new(0.5, 0, Body::Shift(Shift { timeshift: 0.0 }));
    /// assert_eq!(r.rectype(), rectype::SHIFT);
    /// ```
    pub fn rectype(&self) -> i32 {
        self.body.rectype()
    }

    /// Whether this record ends a block (ENDBLOCK or ENDLOG).
    ///
    /// ```
    /// use clog2_format::clog::{Body, Record, Shift};
    /// assert!(Record::new(0.0, 0, Body::EndLog).is_terminator());
    /// assert!(Record::new(0.0, 0, Body::EndBlock).is_terminator());
    /// assert!(!Record::new(0.0, 0, Body::Shift(Shift { timeshift: 0.0 })).is_terminator());
    /// ```
    pub fn is_terminator(&self) -> bool {
        matches!(self.body, Body::EndLog | Body::EndBlock)
    }

    /// The size of the record on disk, header included.
    ///
    /// ```
    /// use clog2_format::clog::{Body, Record, Shift};
    /// assert_eq!(Record::new(0.0, 0, Body::Shift(Shift { timeshift: 0.0 })).disk_len(), 32);
    /// assert_eq!(Record::new(0.0, 0, Body::EndLog).disk_len(), 24);
    /// ```
    pub fn disk_len(&self) -> usize {
        HEADER_LEN + self.body.disk_len()
    }

    /// The one-line text form of the record (no newline), for `print`-style output.
    ///
    /// The line is `ts=<time> proc=<procid> type=<name>` followed by the body's fields
    /// as ` key=value` pairs, in on-disk order:
    ///
    /// | type | body keys |
    /// |---|---|
    /// | `endlog`, `endblock` | none |
    /// | `raw` | `etype data srcloc [pad] string` |
    /// | `msg` | `etype tag partner comm size srcloc` |
    /// | `coll` | `etype root comm size srcloc [pad]` |
    /// | `comm` | `etype parent newcomm srcloc` |
    /// | `eventdef` | `etype [pad] desc` |
    /// | `statedef` | `stateid startetype endetype [pad] color desc` |
    /// | `srcloc` | `srcloc line file` |
    /// | `shift` | `shift` |
    /// | `unknown` | `rectype bytes` (lowercase hex of the bytes after the header) |
    ///
    /// * Times (`ts`, `shift`) print in Rust's shortest form that reads back to the
    ///   same double (`0.0007189999996626284`, `1000000.0`).
    /// * Strings print quoted, up to their first NUL, with `"`, `\` and bytes outside
    ///   printable ASCII escaped (`\"`, `\\`, `\xNN`). If a string field holds nonzero
    ///   bytes after its first NUL, a `<key>.raw=<hex>` pair with the whole field
    ///   follows it.
    /// * Pad fields print as `pad=<hex>` only when nonzero; the header pad is
    ///   `hpad=<hex>`, right after `proc`.
    ///
    /// ```text
    /// ts=0.0007189999996626284 proc=2 type=srcloc srcloc=900 line=295 file="/sandbox/chan/mpich_work/mpich_tmp/mpe/"
    /// ts=0.0022189999999682186 proc=2 type=raw etype=-101 data=3 srcloc=901 string="1 0"
    /// ```
    ///
    /// ```
    /// use clog2_format::clog::{Body, Record, Shift};
    /// let r = Record::new(0.5, 2, Body::Shift(Shift { timeshift: 0.25 }));
    /// assert_eq!(r.display().to_string(), "ts=0.5 proc=2 type=shift shift=0.25");
    /// ```
    pub fn display(&self) -> RecordDisplay<'_> {
        RecordDisplay(self)
    }
}

/// The text form of a record; see [`Record::display`].
#[derive(Debug, Clone, Copy)]
pub struct RecordDisplay<'a>(&'a Record);

/// ` pad=<hex>` if the pad is nonzero.
fn pad<const N: usize>(f: &mut fmt::Formatter<'_>, key: &str, p: &FixedBytes<N>) -> fmt::Result {
    if p.is_zero() {
        Ok(())
    } else {
        write!(f, " {key}={}", hex(&p.0))
    }
}

/// ` key="text"` and, if the field has nonzero bytes after its first NUL,
/// ` key.raw=<hex>`.
fn string<const N: usize>(f: &mut fmt::Formatter<'_>, key: &str, s: &FixedBytes<N>) -> fmt::Result {
    write!(f, " {key}={}", quoted(&s.0))?;
    let text = s.c_bytes().len();
    if s.0[text..].iter().any(|&b| b != 0) {
        write!(f, " {key}.raw={}", hex(&s.0))?;
    }
    Ok(())
}

impl fmt::Display for RecordDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self.0;
        write!(f, "ts={:?} proc={}", r.time, r.procid)?;
        pad(f, "hpad", &r.pad)?;
        write!(f, " type={}", r.body.type_name())?;
        match &r.body {
            Body::EndLog | Body::EndBlock => Ok(()),
            Body::Raw(b) => {
                write!(f, " etype={} data={} srcloc={}", b.etype, b.data, b.srcloc)?;
                pad(f, "pad", &b.pad)?;
                string(f, "string", &b.string)
            }
            Body::Msg(b) => write!(
                f,
                " etype={} tag={} partner={} comm={} size={} srcloc={}",
                b.etype, b.tag, b.partner, b.comm, b.size, b.srcloc
            ),
            Body::Coll(b) => {
                write!(
                    f,
                    " etype={} root={} comm={} size={} srcloc={}",
                    b.etype, b.root, b.comm, b.size, b.srcloc
                )?;
                pad(f, "pad", &b.pad)
            }
            Body::Comm(b) => write!(
                f,
                " etype={} parent={} newcomm={} srcloc={}",
                b.etype, b.parent, b.newcomm, b.srcloc
            ),
            Body::EventDef(b) => {
                write!(f, " etype={}", b.etype)?;
                pad(f, "pad", &b.pad)?;
                string(f, "desc", &b.description)
            }
            Body::StateDef(b) => {
                write!(
                    f,
                    " stateid={} startetype={} endetype={}",
                    b.stateid, b.startetype, b.endetype
                )?;
                pad(f, "pad", &b.pad)?;
                string(f, "color", &b.color)?;
                string(f, "desc", &b.description)
            }
            Body::SrcLoc(b) => {
                write!(f, " srcloc={} line={}", b.srcloc, b.lineno)?;
                string(f, "file", &b.filename)
            }
            Body::Shift(b) => write!(f, " shift={:?}", b.timeshift),
            Body::Unknown { rectype, bytes } => {
                write!(f, " rectype={rectype} bytes={}", hex(bytes))
            }
        }
    }
}
