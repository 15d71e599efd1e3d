//! The text form of `mpelog print`: one line per record with every field.
//!
//! The form follows MPE's C `clog2_print` (same keys, same record-type tags) but
//! loses nothing: times print in the shortest form that reads back to the same
//! double, strings are quoted with the escapes of [`crate::escape`], cargo payloads print as hex.
//!
//! ```text
//! ts=0.000256 icomm=0 rank=0 thd=0 type=bare et=600
//! ts=1.659925 icomm=2 rank=5 thd=0 type=msg et=send icomm=2 rank=6 tag=5 sz=4
//! ts=0.000003 icomm=0 rank=0 thd=0 type=comm et=CommWorldCreate icomm=0 rank=0 wrank=0 gcomm=1505715403-85.50160576-"vm"
//! ```
//!
//! Body keys by type: `sdef` state s_et e_et color name fmt; `edef` et color name fmt;
//! `cdef` et name value; `bare` et; `cago` et bytes (64 hex digits); `msg` et
//! (send/recv/number) icomm rank tag sz; `coll` et root sz; `comm` et icomm rank wrank
//! gcomm (rand-time-"name"); `loc` srcid line file; `shft` shift; `elog` and `eblk`
//! none. Legacy (02.10/02.20) bodies: `msg` et tag partner comm sz; `coll` et root
//! comm sz; `comm` et parent newcomm.

use crate::bytes::c_bytes;
use crate::commtable::{comm_kind, CommEntry};
pub use crate::escape::QuotedBytes;
use crate::preamble::PreambleInfo;
use crate::record::*;
use std::fmt::{self, Display};

/// Writes `b` (up to its first NUL) as a quoted string in the notation of
/// [`crate::escape`]: `"` and `\` escaped, control bytes `\u00XX`, bytes ≥ 0x80
/// `\xXX`.
///
/// ```
/// use clog2_format::dump::quoted;
/// assert_eq!(quoted(b"say \"hi\"\0stale").to_string(), r#""say \"hi\"""#);
/// assert_eq!(quoted(b"\x01\xff").to_string(), r#""\u0001\xff""#);
/// ```
pub fn quoted(b: &[u8]) -> QuotedBytes<'_> {
    QuotedBytes(c_bytes(b))
}

/// Lowercase hex of all bytes.
///
/// ```
/// assert_eq!(clog2_format::dump::hex(&[0, 0xab, 7]).to_string(), "00ab07");
/// ```
pub fn hex(b: &[u8]) -> Hex<'_> {
    Hex(b)
}

/// See [`hex`].
#[derive(Debug, Clone, Copy)]
pub struct Hex<'a>(&'a [u8]);

impl Display for Hex<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

/// A UUID as `rand-time-"name"`.
///
/// ```
/// use clog2_format::{record::Uuid, FixedBytes};
/// let u = Uuid { rand: 42, time: 1.5, name: FixedBytes::from_str_truncated("node1") };
/// assert_eq!(clog2_format::dump::uuid(&u).to_string(), r#"42-1.5-"node1""#);
/// ```
pub fn uuid(u: &Uuid) -> impl Display + '_ {
    UuidDisplay(u)
}

struct UuidDisplay<'a>(&'a Uuid);

impl Display for UuidDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}-{:?}-{}",
            self.0.rand,
            self.0.time,
            quoted(&self.0.name.0)
        )
    }
}

/// The name `clog2_print` uses for a COMMEVT event type.
///
/// ```
/// use clog2_format::{dump::comm_etype_name, record::comm_etype};
/// assert_eq!(comm_etype_name(comm_etype::WORLD_CREATE), "CommWorldCreate");
/// assert_eq!(comm_etype_name(5), "unknown(5)");
/// ```
pub fn comm_etype_name(etype: i32) -> String {
    match etype {
        comm_etype::WORLD_CREATE => "CommWorldCreate".into(),
        comm_etype::SELF_CREATE => "CommSelfCreate".into(),
        comm_etype::FREE => "CommFree".into(),
        comm_etype::INTRA_CREATE => "IntraCommCreate".into(),
        comm_etype::INTER_CREATE => "InterCommCreate".into(),
        comm_etype::INTRA_LOCAL => "LocalIntraComm".into(),
        comm_etype::INTRA_REMOTE => "RemoteIntraComm".into(),
        other => format!("unknown({other})"),
    }
}

fn msg_etype_name(etype: i32) -> String {
    match etype {
        SEND_ETYPE => "send".into(),
        RECV_ETYPE => "recv".into(),
        other => other.to_string(),
    }
}

/// Formats a record as one line (without the newline).
///
/// ```
/// use clog2_format::record::{Body, Record};
/// let line = clog2_format::dump::record(&Record::new(0.5, 1, Body::EndBlock)).to_string();
/// assert_eq!(line, "ts=0.5 icomm=0 rank=1 thd=0 type=eblk");
/// ```
pub fn record(rec: &Record) -> RecordLine<'_> {
    RecordLine(rec)
}

/// See [`record`].
#[derive(Debug, Clone, Copy)]
pub struct RecordLine<'a>(&'a Record);

impl Display for RecordLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self.0;
        write!(
            f,
            "ts={:?} icomm={} rank={} thd={} type={}",
            r.time,
            r.icomm,
            r.rank,
            r.thread,
            rectype_name(r.rectype())
        )?;
        match &r.body {
            Body::EndLog | Body::EndBlock => Ok(()),
            Body::StateDef(b) => write!(
                f,
                " state={} s_et={} e_et={} color={} name={} fmt={}",
                b.state_id,
                b.start_etype,
                b.final_etype,
                quoted(&b.color.0),
                quoted(&b.name.0),
                quoted(&b.format.0)
            ),
            Body::EventDef(b) => write!(
                f,
                " et={} color={} name={} fmt={}",
                b.etype,
                quoted(&b.color.0),
                quoted(&b.name.0),
                quoted(&b.format.0)
            ),
            Body::ConstDef(b) => write!(
                f,
                " et={} name={} value={}",
                b.etype,
                quoted(&b.name.0),
                b.value
            ),
            Body::Bare(b) => write!(f, " et={}", b.etype),
            Body::Cargo(b) => write!(f, " et={} bytes={}", b.etype, hex(&b.bytes.0)),
            Body::Msg(b) => write!(
                f,
                " et={} icomm={} rank={} tag={} sz={}",
                msg_etype_name(b.etype),
                b.icomm,
                b.rank,
                b.tag,
                b.size
            ),
            Body::Coll(b) => write!(f, " et={} root={} sz={}", b.etype, b.root, b.size),
            Body::Comm(b) => write!(
                f,
                " et={} icomm={} rank={} wrank={} gcomm={}",
                comm_etype_name(b.etype),
                b.icomm,
                b.rank,
                b.wrank,
                uuid(&b.gcomm)
            ),
            Body::SrcLoc(b) => write!(
                f,
                " srcid={} line={} file={}",
                b.srcloc,
                b.lineno,
                quoted(&b.filename.0)
            ),
            Body::TimeShift(b) => write!(f, " shift={:?}", b.timeshift),
            Body::LegacyMsg(b) => write!(
                f,
                " et={} tag={} partner={} comm={} sz={}",
                msg_etype_name(b.etype),
                b.tag,
                b.partner,
                b.comm,
                b.size
            ),
            Body::LegacyColl(b) => write!(
                f,
                " et={} root={} comm={} sz={}",
                b.etype, b.root, b.comm, b.size
            ),
            Body::LegacyComm(b) => write!(
                f,
                " et={} parent={} newcomm={}",
                b.etype, b.parent, b.newcomm
            ),
        }
    }
}

/// Formats a comm-table entry as one line.
///
/// ```
/// use clog2_format::{record::Uuid, CommEntry};
/// let e = CommEntry { gcomm: Uuid::ZERO, local_id: 3, kind: 1 };
/// assert_eq!(clog2_format::dump::comm_entry(&e).to_string(), r#"GID=0-0.0-"" LID=3 kind=IntraComm"#);
/// ```
pub fn comm_entry(e: &CommEntry) -> impl Display + '_ {
    CommLine(e)
}

struct CommLine<'a>(&'a CommEntry);

impl Display for CommLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "GID={} LID={} kind={}",
            uuid(&self.0.gcomm),
            self.0.local_id,
            comm_kind::name(self.0.kind)
        )
    }
}

/// The preamble as `key = value` lines, in the order and with the names of
/// `clog2_print`.
///
/// ```
/// let lines = clog2_format::dump::preamble_lines(&clog2_format::PreambleInfo::mpe_default(4));
/// assert_eq!(lines[0], "CLOG-02.44");
/// assert_eq!(lines[1], "is_big_endian = TRUE");
/// assert!(lines.contains(&"max_comm_world_size = 4".to_string()));
/// ```
pub fn preamble_lines(info: &PreambleInfo) -> Vec<String> {
    let mut v = vec![info.version.to_string()];
    let b = |x: bool| if x { "TRUE" } else { "FALSE" };
    v.push(format!("is_big_endian = {}", b(info.big_endian)));
    if let Some(x) = info.finalized {
        v.push(format!("is_finalized = {}", b(x)));
    }
    v.push(format!(
        "num_buffered_blocks = {}",
        info.num_buffered_blocks
    ));
    v.push(format!("block_size = {}", info.block_size));
    let opt = [
        ("max_comm_world_size", info.comm_world_size),
        ("max_thread_count", info.max_thread_count),
        ("known_eventID_start", info.known_event_id_start),
        ("user_eventID_start", info.user_event_id_start),
        ("known_solo_eventID_start", info.known_solo_event_id_start),
        ("user_solo_eventID_start", info.user_solo_event_id_start),
        ("known_stateID_count", info.known_state_id_count),
        ("user_stateID_count", info.user_state_id_count),
        ("known_solo_eventID_count", info.known_solo_event_id_count),
        ("user_solo_eventID_count", info.user_solo_event_id_count),
    ];
    for (k, val) in opt {
        if let Some(x) = val {
            v.push(format!("{k} = {x}"));
        }
    }
    if let Some(x) = info.commtable_fptr {
        v.push(format!("commIDs_table_file_offset = {x}"));
    }
    v
}

/// What `mpelog info` reports about a CLOG2 file (or old CLOG file: see
/// [`crate::clog::ClogFile::summary`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// Block size in bytes.
    pub block_size: u64,
    /// Whole blocks read.
    pub blocks: u64,
    /// Records read, terminators included.
    pub records: u64,
    /// Records per type name ([`rectype_name`]).
    pub per_type: std::collections::BTreeMap<&'static str, u64>,
    /// Earliest and latest record time, terminators excluded (seconds).
    pub time_range: Option<(f64, f64)>,
    /// Distinct process IDs of the records: old CLOG only, whose files have no
    /// other count of processes (CLOG2 has `comm_world_size` in its preamble).
    pub processes: Option<u64>,
    /// Entries of the comm table, when the file has one and it was read.
    pub comm_table_entries: Option<usize>,
}

impl Summary {
    /// Counts one record.
    pub(crate) fn add(&mut self, name: &'static str, time: f64, terminator: bool) {
        self.records += 1;
        *self.per_type.entry(name).or_insert(0) += 1;
        if !terminator {
            self.time_range = Some(match self.time_range {
                None => (time, time),
                Some((a, b)) => (a.min(time), b.max(time)),
            });
        }
    }
}

/// Reads `reader` to its end (records, then the comm table) and summarises
/// it. On damaged input the summary of the records before the damage comes
/// with the error.
///
/// ```
/// use clog2_format::{dump, synth, Clog2Reader};
/// let bytes = synth::generate_vec(&synth::Options::default().ranks(2).events(500)).unwrap();
/// let (s, error) = dump::summary(&mut Clog2Reader::from_slice(&bytes).unwrap());
/// assert!(error.is_none());
/// assert!(s.records > 400 && s.per_type["elog"] == 1);
/// ```
pub fn summary<S: crate::read::Source>(
    reader: &mut crate::Clog2Reader<S>,
) -> (Summary, Option<crate::Error>) {
    let mut s = Summary {
        block_size: reader.preamble().info().block_size as u64,
        ..Summary::default()
    };
    let mut failure = None;
    loop {
        match reader.next_record() {
            Ok(Some(rec)) => s.add(rectype_name(rec.rectype()), rec.time, rec.is_terminator()),
            Ok(None) => break,
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    s.blocks = reader.blocks_read();
    if failure.is_none() {
        match reader.finish() {
            Ok(t) => s.comm_table_entries = t.map(|t| t.entries.len()),
            Err(e) => failure = Some(e),
        }
    }
    (s, failure)
}
