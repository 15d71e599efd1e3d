//! CLOG2 rules: the rows of spec/clog2.md §10 ("What a reader must reject") and
//! the rules beyond parsing of spec/conformance.md §4.2.
//!
//! The file is streamed once with [`clog2_format::Clog2Reader`]: memory stays
//! bounded by the block size, the events still waiting for their partner (what a
//! conversion holds too) and the definitions. A parse error ends the check with
//! the `C2-REJ-NNN` finding of its row, at the offset the spec gives. The rules
//! beyond parsing are worked out while the records stream by, but reported only
//! when the whole file parses (spec/conformance.md §1); until then at most
//! `limit` findings per rule are held.
//!
//! The pairing, time-order and definition rules run the records through
//! [`slog2_format::convert::clog2::events::Clog2Drawables`], the very code `mpelog
//! convert` uses, so a check flags exactly what a conversion refuses or drops, at
//! the offset of the record concerned.

use crate::report::Collector;
use crate::rule::Rule;
use crate::Format;
use clog2_format::error::ValueProblem;
use clog2_format::preamble::{Field, Preamble, PREAMBLE_LEN};
use clog2_format::record::{comm_etype, Body, Record};
use clog2_format::{Clog2Reader, Error, Version};
use slog2_format::convert::clog2::events::{info_keys, Clog2Drawables, Partial, WaitingMessage};
use slog2_format::convert::names::clog2_field;
use std::collections::HashMap;
use std::io::{self, Read, Seek, SeekFrom};

crate::rule::rule_table! {
    Some(Format::Clog2);
    /// The CLOG2 rules: rows 1–16 of spec/clog2.md §10, then the rules beyond
    /// parsing of spec/conformance.md §4.2.
    C2_REJ_001 = "C2-REJ-001", Error,
        "the file is shorter than its 1024-byte preamble";
    C2_REJ_002 = "C2-REJ-002", Error,
        "the preamble's version token is not one of the seven CLOG2 versions";
    C2_REJ_003 = "C2-REJ-003", Error,
        "a preamble token the version requires is missing";
    C2_REJ_004 = "C2-REJ-004", Error,
        "a preamble value token is longer than 31 bytes";
    C2_REJ_005 = "C2-REJ-005", Error,
        "a preamble integer value is not a 32-bit decimal number";
    C2_REJ_006 = "C2-REJ-006", Error,
        "is_big_endian or is_finalzed is neither TRUE nor FALSE";
    C2_REJ_007 = "C2-REJ-007", Error,
        "block_size is not a multiple of 8 between 24 and 2^30";
    C2_REJ_008 = "C2-REJ-008", Error,
        "commtable_fptr is not 1024 + k*block_size, or points past the end of the file";
    C2_REJ_009 = "C2-REJ-009", Error,
        "the file ends inside a block (it was cut)";
    C2_REJ_010 = "C2-REJ-010", Error,
        "a record has an unknown record type";
    C2_REJ_011 = "C2-REJ-011", Error,
        "a record (or its header) runs past the end of its block";
    C2_REJ_012 = "C2-REJ-012", Error,
        "a block's records end exactly at the block end, without ENDBLOCK or ENDLOG";
    C2_REJ_013 = "C2-REJ-013", Error,
        "the block stream ends without an ENDLOG record";
    C2_REJ_014 = "C2-REJ-014", Error,
        "data blocks follow the block that holds ENDLOG";
    C2_REJ_015 = "C2-REJ-015", Error,
        "the comm table is cut short or has a negative count";
    C2_REJ_016 = "C2-REJ-016", Error,
        "bytes follow the comm table";
    C2_IO_001 = "C2-IO-001", Error,
        "the file could not be read to its end (I/O error); the check is incomplete";
    C2_FIN_001 = "C2-FIN-001", Warning,
        "is_finalzed is FALSE: a local file MPE did not merge (times not clock-corrected)";
    C2_FIN_002 = "C2-FIN-002", Warning,
        "02.43+: commtable_fptr is 0, no comm table was written (an unfinished file)";
    C2_TIME_001 = "C2-TIME-001", Error,
        "a record completes a drawable that ends before the previous drawable (mpelog convert refuses the file)";
    C2_TIME_002 = "C2-TIME-002", Error,
        "a record completes a drawable with a time that is not finite, NaN or infinite (mpelog convert refuses infinite ones)";
    C2_DEF_001 = "C2-DEF-001", Error,
        "an event's ID has no definition and is outside the preamble's ID ranges, or does not fit its record type (clog2TOslog2 exits)";
    C2_DEF_002 = "C2-DEF-002", Error,
        "an EVENTDEF names an ID that is a state's or a message's event (clog2TOslog2 throws)";
    C2_DEF_003 = "C2-DEF-003", Warning,
        "a STATEDEF's start and final IDs belong to different categories or to a solo event (the definition is ignored)";
    C2_DEF_004 = "C2-DEF-004", Warning,
        "an event ID is defined again with another name or format (the earlier one is lost)";
    C2_DEF_005 = "C2-DEF-005", Error,
        "a definition's format has a %-type other than s h d x l X e E (Jumpshot exits showing its info)";
    C2_PAIR_001 = "C2-PAIR-001", Warning,
        "a state start is never closed, or a state final has no open start (the state is dropped)";
    C2_PAIR_002 = "C2-PAIR-002", Warning,
        "a send has no matching receive, or a receive no matching send (the arrow is dropped)";
    C2_COMM_001 = "C2-COMM-001", Warning,
        "02.43+: a record uses a communicator the comm table lacks";
    C2_COMM_002 = "C2-COMM-002", Error,
        "02.30+: a drawable lies on a timeline no COMMEVT declared (clog2TOslog2 crashes)";
}

/// Checks a CLOG2 file read from `r` (from its current position to its end).
///
/// ```
/// use mpelog_conformance::check::clog2::check;
/// use mpelog_conformance::{report::Collector, Format};
/// use std::io::Cursor;
/// let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
/// let mut c = Collector::new(Format::Clog2, 10);
/// check(Cursor::new(&clog2), &mut c);
/// assert!(c.finish().passes());
/// let mut c = Collector::new(Format::Clog2, 10);
/// check(Cursor::new(&clog2[..1000]), &mut c); // inside the 1024-byte preamble
/// assert_eq!(c.finish().rule_ids(), ["C2-REJ-001"]);
/// # Ok::<(), clog2_format::Error>(())
/// ```
pub fn check<R: Read + Seek>(r: R, c: &mut Collector) {
    let mut pending = Pending::new(c.limit());
    if run(r, c, &mut pending) {
        pending.flush(c);
    }
}

/// Where the reader was when it failed: the row of a truncation or a bad value
/// depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Reading the preamble (rows 1–8).
    Preamble,
    /// Reading the blocks (rows 9–13).
    Blocks,
    /// After ENDLOG: the end of the block stream and the comm table (rows 13–16).
    End,
}

/// The rule and offset of a reader error, by spec/clog2.md §10.
fn classify(phase: Phase, e: &Error) -> (Rule, u64) {
    const REJ: [Rule; 16] = [
        C2_REJ_001, C2_REJ_002, C2_REJ_003, C2_REJ_004, C2_REJ_005, C2_REJ_006, C2_REJ_007,
        C2_REJ_008, C2_REJ_009, C2_REJ_010, C2_REJ_011, C2_REJ_012, C2_REJ_013, C2_REJ_014,
        C2_REJ_015, C2_REJ_016,
    ];
    let offset = e.offset().unwrap_or(0);
    if let Error::Io { .. } = e {
        return (C2_IO_001, offset);
    }
    let row: u8 = match (phase, e) {
        (
            _,
            Error::NotClog2 { .. } | Error::UnsupportedVersion { .. } | Error::BadPreamble { .. },
        ) => e.spec_row().unwrap_or(2),
        (Phase::Preamble, Error::BadValue { .. }) => 8, // commtable_fptr off the block grid
        (Phase::Preamble, _) => 1,                      // fewer than 1024 bytes
        (Phase::Blocks, Error::UnknownRecordType { .. }) => 10,
        (
            Phase::Blocks,
            Error::BlockOverrun {
                offset, block_end, ..
            },
        ) => {
            if offset == block_end {
                12
            } else {
                11
            }
        }
        (_, Error::MissingEndLog { .. }) => 13,
        (Phase::Blocks, _) => 9, // the input ends inside a block
        (Phase::End, Error::DataAfterEndLog { .. }) => 14,
        (
            Phase::End,
            Error::BadValue {
                problem: ValueProblem::CommTablePastEnd { .. },
                ..
            },
        ) => 8,
        (Phase::End, Error::TrailingBytes { .. }) => 16,
        (Phase::End, _) => 15, // the table's count: fewer than 4 bytes, negative, too large
    };
    (REJ[row as usize - 1], offset)
}

/// What to do about a parse error of `rule`.
fn advice(rule: Rule) -> &'static str {
    match rule {
        C2_REJ_001 | C2_REJ_002 => {
            "this is not a readable CLOG2 file; nothing can be recovered without its preamble"
        }
        C2_REJ_003 | C2_REJ_004 | C2_REJ_005 | C2_REJ_006 | C2_REJ_007 => {
            "the preamble is damaged; restore the token, or take the file again from its source"
        }
        C2_IO_001 => "check the storage and copy the file again",
        C2_REJ_008 | C2_REJ_014 | C2_REJ_015 | C2_REJ_016 => {
            "`mpelog repair FILE -o NEW.clog2` keeps the blocks up to ENDLOG and writes a valid comm table and pointer"
        }
        _ => "`mpelog repair FILE -o NEW.clog2` keeps every whole record before this point and writes a valid file",
    }
}

fn reject(c: &mut Collector, phase: Phase, e: &Error) {
    let (rule, offset) = classify(phase, e);
    c.add(
        rule,
        offset,
        None,
        format!("{}; {}", e.detail(), advice(rule)),
    );
}

fn io_error(c: &mut Collector, offset: u64, e: io::Error) {
    c.add(
        C2_IO_001,
        offset,
        None,
        format!("byte {offset}: I/O error: {e}; {}", advice(C2_IO_001)),
    );
}

/// Findings beyond parsing, held until the whole file has parsed: at most
/// `limit` per rule are kept, the rest only counted.
#[derive(Debug)]
struct Pending {
    limit: usize,
    kept: Vec<(Rule, u64, String)>,
    counts: HashMap<Rule, u64>,
}

impl Pending {
    fn new(limit: usize) -> Pending {
        Pending {
            limit: limit.max(1),
            kept: Vec::new(),
            counts: HashMap::new(),
        }
    }

    /// Adds a finding; the message is made only if it is kept.
    fn add(&mut self, rule: Rule, offset: u64, message: impl FnOnce() -> String) {
        let n = self.counts.entry(rule).or_insert(0);
        *n += 1;
        if *n <= self.limit as u64 {
            self.kept.push((rule, offset, message()));
        }
    }

    /// Hands the findings to the collector, which counts the ones not kept too.
    fn flush(self, c: &mut Collector) {
        for (rule, offset, message) in self.kept {
            c.add(rule, offset, None, message);
        }
        for (rule, n) in self.counts {
            for _ in self.limit as u64..n {
                c.add(rule, 0, None, String::new());
            }
        }
    }
}

/// The record type's name as spec/clog2.md §6.2 writes it.
fn rec_name(r: &Record) -> &'static str {
    match r.body {
        Body::EndLog => "ENDLOG",
        Body::EndBlock => "ENDBLOCK",
        Body::StateDef(_) => "STATEDEF",
        Body::EventDef(_) => "EVENTDEF",
        Body::ConstDef(_) => "CONSTDEF",
        Body::Bare(_) => "BAREEVT",
        Body::Cargo(_) => "CARGOEVT",
        Body::Msg(_) | Body::LegacyMsg(_) => "MSGEVT",
        Body::Coll(_) | Body::LegacyColl(_) => "COLLEVT",
        Body::Comm(_) | Body::LegacyComm(_) => "COMMEVT",
        Body::SrcLoc(_) => "SRCLOC",
        Body::TimeShift(_) => "TIMESHIFT",
    }
}

/// The event ID of an event record.
fn etype(r: &Record) -> Option<i32> {
    match r.body {
        Body::Bare(e) => Some(e.etype),
        Body::Cargo(e) => Some(e.etype),
        Body::Msg(m) => Some(m.etype),
        Body::LegacyMsg(m) => Some(m.etype),
        _ => None,
    }
}

/// Streams the file; returns whether it parsed (then `p` holds the findings
/// beyond parsing, which the caller reports).
fn run<R: Read + Seek>(mut r: R, c: &mut Collector, p: &mut Pending) -> bool {
    // The preamble and the comm table's entry count (for C2-COMM-001, which the
    // records need before the table is reached). Rule #8's "past the end of the
    // file" and #15 are found where a streaming reader finds them: after ENDLOG
    // (so a cut file is reported as cut, #9 or #13, not as a bad pointer).
    let (start, len) = match (|| {
        let start = r.stream_position()?;
        let end = r.seek(SeekFrom::End(0))?;
        r.seek(SeekFrom::Start(start))?;
        Ok::<_, io::Error>((start, end.saturating_sub(start)))
    })() {
        Ok(v) => v,
        Err(e) => {
            io_error(c, 0, e);
            return false;
        }
    };
    let mut head = Vec::with_capacity(PREAMBLE_LEN);
    if let Err(e) = (&mut r).take(PREAMBLE_LEN as u64).read_to_end(&mut head) {
        io_error(c, 0, e);
        return false;
    }
    let pre = match Preamble::parse(&head) {
        Ok(p) => p,
        Err(e) => {
            reject(c, Phase::Preamble, &e);
            return false;
        }
    };
    let info = pre.info().clone();
    let fptr = info.commtable_fptr.filter(|&f| f != 0);
    let mut table_count = None;
    if let Some(f) = fptr.filter(|&f| len.checked_sub(f).is_some_and(|n| n >= 4)) {
        let mut b = [0u8; 4];
        let read = r
            .seek(SeekFrom::Start(start + f))
            .and_then(|_| r.read_exact(&mut b));
        if let Err(e) = read {
            io_error(c, f, e);
            return false;
        }
        table_count = Some(if info.big_endian {
            i32::from_be_bytes(b)
        } else {
            i32::from_le_bytes(b)
        });
    }
    if let Err(e) = r.seek(SeekFrom::Start(start)) {
        io_error(c, 0, e);
        return false;
    }
    let mut reader = match Clog2Reader::new(r) {
        Ok(reader) => reader,
        Err(e) => {
            reject(c, Phase::Preamble, &e);
            return false;
        }
    };

    if info.finalized == Some(false) {
        let at = pre.field_offset(Field::IsFinalized);
        p.add(C2_FIN_001, at, || format!(
            "byte {at}: is_finalzed is FALSE: this is a local file that MPE's merger did not finish; its times are not clock-corrected (each TIMESHIFT is still to be applied) and its messages name no partner communicator, so timelines of different processes do not line up; use the merged file MPE writes at MPI_Finalize"
        ));
    }
    if info.version.has_comm_table() && fptr.is_none() {
        let at = pre.field_offset(Field::CommtableFptr);
        p.add(C2_FIN_002, at, || format!(
            "byte {at}: commtable_fptr is 0: no comm table was written (an unfinished file), so the communicators' global IDs are lost; `mpelog repair FILE -o NEW.clog2` rebuilds the table from the COMMEVT records"
        ));
    }

    let mut sem = Semantics::new(&info, table_count);
    loop {
        match reader.next_record_at() {
            Ok(Some((rec, at))) => sem.push(&rec, at, p),
            Ok(None) => break,
            Err(e) => {
                reject(c, Phase::Blocks, &e);
                return false;
            }
        }
    }
    if let Err(e) = reader.finish() {
        reject(c, Phase::End, &e);
        return false;
    }
    sem.finish(p);
    true
}

/// A definition seen: its name and format, and where.
#[derive(Debug)]
struct Def {
    name: String,
    format: String,
    at: u64,
}

/// The rules beyond parsing, applied record by record.
#[derive(Debug)]
struct Semantics {
    drawables: Clog2Drawables,
    /// The end of the last drawable in order (as `mpelog convert` tracks it).
    last_end: f64,
    /// 02.30 and later: COMMEVTs declare timelines (C2-COMM-002).
    timelines: bool,
    /// Entries of the comm table, when the file has one (C2-COMM-001).
    table: Option<i32>,
    /// Finalized: MSGEVTs carry their partner's communicator.
    finalized: bool,
    /// Definitions by event ID (C2-DEF-004).
    defs: HashMap<i32, Def>,
}

impl Semantics {
    fn new(info: &clog2_format::PreambleInfo, table: Option<i32>) -> Semantics {
        Semantics {
            drawables: Clog2Drawables::new(info),
            last_end: f64::NEG_INFINITY,
            timelines: info.version >= Version::V2_30,
            table,
            finalized: info.finalized != Some(false),
            defs: HashMap::new(),
        }
    }

    fn push(&mut self, r: &Record, at: u64, p: &mut Pending) {
        let before = self.drawables.unmatched();
        let prim = self.drawables.push_at(r, at).map(|(prim, _)| prim);
        let after = self.drawables.unmatched();
        let name = rec_name(r);

        if after.undeclared_events > before.undeclared_events {
            let e = etype(r).unwrap_or_default();
            p.add(C2_DEF_001, at, || {
                let (why, fix) = match r.body {
                    Body::Msg(_) | Body::LegacyMsg(_) => (
                        "a MSGEVT's ID must be -101 (send) or -102 (receive)",
                        "the record is corrupt or was not written by MPE",
                    ),
                    _ if e == -101 || e == -102 => (
                        "the message IDs -101/-102 belong to MSGEVT records, not to events",
                        "log messages with MPE_Log_send / MPE_Log_receive",
                    ),
                    _ => (
                        "no STATEDEF or EVENTDEF before it defines this ID and it lies outside the preamble's ID ranges",
                        "define the ID (MPE_Describe_state / MPE_Describe_event) before it is logged",
                    ),
                };
                format!(
                    "byte {at}: {name} with event ID {e} at time {}: {why}; Java clog2TOslog2 exits here and mpelog convert drops the event; {fix}",
                    r.time
                )
            });
        }
        if after.conflicting_definitions > before.conflicting_definitions {
            match r.body {
                Body::EventDef(d) => p.add(C2_DEF_002, at, || format!(
                    "byte {at}: EVENTDEF of ID {} ({}) names an ID that is already a state's start or final event or a message event; Java clog2TOslog2 throws ClassCastException, mpelog convert ignores the definition; give the solo event an ID of its own",
                    d.etype,
                    clog2_format::escape::quoted_text(&d.name.to_string_lossy())
                )),
                Body::StateDef(d) => p.add(C2_DEF_003, at, || format!(
                    "byte {at}: STATEDEF of state {} ({}) with events {}/{}: the two IDs already belong to different categories, or to a solo event; clog2TOslog2 prints \"**** Error!\" and, like mpelog convert, ignores the definition; use a fresh pair of event IDs",
                    d.state_id,
                    clog2_format::escape::quoted_text(&d.name.to_string_lossy()),
                    d.start_etype,
                    d.final_etype
                )),
                _ => {}
            }
        } else {
            self.definition(r, at, p);
        }
        if after.state_finals > before.state_finals {
            let e = etype(r).unwrap_or_default();
            p.add(C2_PAIR_001, at, || format!(
                "byte {at}: {name} with state final event {e} at time {} has no open start on its timeline (icomm {}, rank {}, thread {}); converters drop it; the start was not logged (logging off, or the file cut before it)",
                r.time, r.icomm, r.rank, r.thread
            ));
        }
        if self.timelines && after.undeclared_timelines > before.undeclared_timelines {
            p.add(C2_COMM_002, at, || format!(
                "byte {at}: the drawable this {name} completes lies on a timeline (communicator, rank, thread) that no COMMEVT declared (this record's: icomm {}, rank {}, thread {}); Java clog2TOslog2 crashes, mpelog convert guesses the world rank; the file lacks the COMMEVT of that communicator",
                r.icomm, r.rank, r.thread
            ));
        }
        if let Some(prim) = prim {
            let (start, end) = (prim.earliest(), prim.latest());
            let vertices = &prim.times[..usize::from(prim.nv).clamp(1, 2)];
            if vertices.iter().any(|t| !t.is_finite()) || !start.is_finite() || !end.is_finite() {
                p.add(C2_TIME_002, at, || format!(
                    "byte {at}: this {name} at time {} completes a drawable with the vertex times {vertices:?}, which are not all finite (NaN or infinite); mpelog convert refuses an infinite time and copies a NaN one into the SLOG-2 file, where no viewer can place it; the record's time, or its partner's, is corrupt",
                    r.time
                ));
            } else if end < self.last_end {
                let last = self.last_end;
                p.add(C2_TIME_001, at, || format!(
                    "byte {at}: this {name} at time {} completes a drawable ending at {end}, before the end {last} of an earlier one; mpelog convert refuses the file: the records must be in time order, as MPE's merger writes them",
                    r.time
                ));
            } else {
                self.last_end = end;
            }
        }
        self.communicators(r, at, p);
    }

    /// C2-DEF-004 and C2-DEF-005 for a definition the converter accepted.
    fn definition(&mut self, r: &Record, at: u64, p: &mut Pending) {
        // The fields as the converters read them (conversion.md §2.1 item 9):
        // trimmed, an empty field as "".
        let field = |b: &[u8]| clog2_field(b).unwrap_or_default();
        let (ids, name, format) = match r.body {
            Body::StateDef(d) => (
                vec![d.start_etype, d.final_etype],
                field(&d.name.0),
                field(&d.format.0),
            ),
            Body::EventDef(d) => (vec![d.etype], field(&d.name.0), field(&d.format.0)),
            _ => return,
        };
        let kind = rec_name(r);
        let (_, types) = info_keys(&format);
        let q = clog2_format::escape::quoted_text;
        if let Some(t) = types.iter().copied().find(|t| !b"shdxlXeE".contains(t)) {
            let (name, format) = (q(&name), q(&format));
            p.add(C2_DEF_005, at, || format!(
                "byte {at}: {kind} {name} has the format {format}, whose type %{} is not one of s h d x l X e E; Jumpshot exits when it shows the info of this category; fix the format given to MPE_Describe_info_state / MPE_Describe_info_event",
                t as char
            ));
        }
        let mut redefined = None;
        for id in ids {
            let def = Def {
                name: name.clone(),
                format: format.clone(),
                at,
            };
            if let Some(d) = self.defs.insert(id, def) {
                if redefined.is_none() && (d.name != name || d.format != format) {
                    redefined = Some((id, d.name, d.format, d.at));
                }
            }
        }
        if let Some((id, old_name, old_format, old_at)) = redefined {
            let (name, format, old_name, old_format) =
                (q(&name), q(&format), q(&old_name), q(&old_format));
            p.add(C2_DEF_004, at, || format!(
                "byte {at}: {kind} {name} (format {format}) defines event ID {id} again, which the definition at byte {old_at} named {old_name} (format {old_format}); converters keep only the last definition, so the earlier name is lost; give each state and event its own IDs"
            ));
        }
    }

    /// C2-COMM-001: communicators a record uses must be in the comm table.
    fn communicators(&mut self, r: &Record, at: u64, p: &mut Pending) {
        let Some(n) = self.table else { return };
        if r.is_terminator() {
            return;
        }
        let out = |i: i32| i < 0 || i >= n;
        let bad = if out(r.icomm) {
            Some(("its header's icomm", r.icomm))
        } else {
            match r.body {
                Body::Comm(e) if e.etype != comm_etype::FREE && out(e.icomm) => {
                    Some(("the communicator it describes", e.icomm))
                }
                Body::Msg(m) if self.finalized && out(m.icomm) => {
                    Some(("its partner's communicator", m.icomm))
                }
                _ => None,
            }
        };
        if let Some((what, i)) = bad {
            let name = rec_name(r);
            p.add(C2_COMM_001, at, || format!(
                "byte {at}: {name}: {what} is {i}, which is not an index of the comm table ({n} entries); the communicator's global ID and kind are unknown to tools that read the table; the table was not written by MPE's merger for these records"
            ));
        }
    }

    /// The events left waiting for their partner at the end (C2-PAIR-001 and
    /// C2-PAIR-002), in file order.
    fn finish(self, p: &mut Pending) {
        let mut open = self.drawables.partials();
        open.sort_by_key(Partial::origin);
        for part in open {
            let at = part.origin();
            match part {
                Partial::State { prim, .. } => p.add(C2_PAIR_001, at, || format!(
                    "byte {at}: the state started at time {} (category {}, line {}) is never closed: no final event follows on its timeline; converters drop it (the program ended inside the state, or logging was switched off)",
                    prim.times[0], prim.category, prim.lines[0]
                )),
                Partial::Send(WaitingMessage { key, time, .. }) => p.add(C2_PAIR_002, at, || format!(
                    "byte {at}: the send at time {time} (tag {}) has no matching receive (same tag, sender and receiver); converters draw no arrow for it",
                    key[0]
                )),
                Partial::Recv(WaitingMessage { key, time, .. }) => p.add(C2_PAIR_002, at, || format!(
                    "byte {at}: the receive at time {time} (tag {}) has no matching send (same tag, sender and receiver); converters draw no arrow for it",
                    key[0]
                )),
            }
        }
    }
}
