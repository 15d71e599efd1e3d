//! Old CLOG rules: the rows of spec/clog.md §6 ("What a reader must reject") and
//! the rules beyond parsing of spec/conformance.md §5.2.
//!
//! Old-CLOG files are small (MPICH-1's merger wrote them in memory), so the file
//! is held whole: a first pass over [`clog2_format::clog::ClogRecords`] checks
//! the structure; a parse error ends the check with the `C1-REJ-NNN` finding of
//! its row. A file that parses gets a second pass for the rules beyond parsing.
//! The time-order, undeclared-event and conflicting-definition rules run the
//! records through [`slog2_format::convert::clog::events::ClogDrawables`], the code
//! `mpelog convert` uses; the pairing and colour rules follow the same event ID
//! bindings (spec/conversion.md §5) to name the offending record.

use crate::report::Collector;
use crate::Format;
use clog2_format::clog::{
    Body, ClogRecords, Record, CONST_ETYPE, HEADER_LEN, RECV_ETYPE, SEND_ETYPE,
};
use clog2_format::error::ValueProblem;
use clog2_format::escape::quoted_text;
use clog2_format::Error;
use slog2_format::convert::clog::events::{
    field_text, message_params, ClogDrawables, EventBindings, Role, FIRST_NEW_INDEX,
};
use slog2_format::convert::clog2::events::ARROW_CATEGORY;
use slog2_format::convert::colors;
use slog2_format::convert::pairing::{Message, State, Waiter};
use std::collections::{HashMap, VecDeque};

crate::rule::rule_table! {
    Some(Format::Clog);
    /// The old CLOG rules: rows 1–9 of spec/clog.md §6, then the rules beyond parsing
    /// of spec/conformance.md §5.2.
    C1_REJ_001 = "C1-REJ-001", Error,
        "an explicit block size is not a multiple of 8 or is below 24";
    C1_REJ_002 = "C1-REJ-002", Error,
        "the block size cannot be inferred (no terminator from byte 0, or no power of two fits)";
    C1_REJ_003 = "C1-REJ-003", Error,
        "the file is empty, or its length is not a multiple of the block size";
    C1_REJ_004 = "C1-REJ-004", Error,
        "a known record type has a length other than its fixed length";
    C1_REJ_005 = "C1-REJ-005", Error,
        "a record of unknown type has a length below 3";
    C1_REJ_006 = "C1-REJ-006", Error,
        "a record, or a 24-byte header, runs past the end of its block";
    C1_REJ_007 = "C1-REJ-007", Error,
        "a block's records end exactly at the block end, without a terminator";
    C1_REJ_008 = "C1-REJ-008", Error,
        "the file has no ENDLOG record";
    C1_REJ_009 = "C1-REJ-009", Error,
        "blocks follow the block that holds ENDLOG";
    C1_TIME_001 = "C1-TIME-001", Error,
        "a record completes a drawable that ends before the previous drawable (mpelog convert refuses the file)";
    C1_TIME_002 = "C1-TIME-002", Error,
        "a record completes a drawable with a time that is not finite, NaN or infinite (mpelog convert refuses infinite ones)";
    C1_DEF_001 = "C1-DEF-001", Error,
        "a RAWEVENT's ID is bound to no state and is not a message ID (clogTOslog2 exits)";
    C1_DEF_002 = "C1-DEF-002", Error,
        "a STATEDEF names the message events -101/-102 (clogTOslog2 throws)";
    C1_DEF_003 = "C1-DEF-003", Warning,
        "a STATEDEF's two event IDs belong to different states (the definition is ignored)";
    C1_DEF_004 = "C1-DEF-004", Warning,
        "an event ID is defined again with another name (the earlier name is lost)";
    C1_DEF_005 = "C1-DEF-005", Error,
        "a drawn state's STATEDEF colour is not in Jumpshot's colour table (clogTOslog2 crashes)";
    C1_MSG_001 = "C1-MSG-001", Error,
        "a send/receive RAWEVENT's tag or size token is not a decimal integer (clogTOslog2 crashes)";
    C1_PAIR_001 = "C1-PAIR-001", Warning,
        "a state start is never closed, or a state final has no open start (the state is dropped)";
    C1_PAIR_002 = "C1-PAIR-002", Warning,
        "a send has no matching receive, or a receive no matching send (the arrow is dropped)";
}

/// Checks an old CLOG file, inferring its block size (spec/clog.md §2).
///
/// ```
/// use clog2_format::clog::{Body, ClogWriter, Record, Shift};
/// use mpelog_conformance::check::clog::check;
/// use mpelog_conformance::{report::Collector, Format};
/// let mut w = ClogWriter::new(Vec::new(), 1024)?;
/// w.push(&Record::new(0.5, 0, Body::Shift(Shift { timeshift: 0.0 })))?;
/// let clog = w.finish()?;
/// let mut c = Collector::new(Format::Clog, 10);
/// check(&clog, &mut c);
/// let report = c.finish();
/// assert_eq!(report.errors(), 0, "{:?}", report.findings);
/// let mut c = Collector::new(Format::Clog, 10);
/// check(&[], &mut c); // empty
/// assert_eq!(c.finish().rule_ids(), ["C1-REJ-003"]);
/// # Ok::<(), clog2_format::Error>(())
/// ```
pub fn check(bytes: &[u8], c: &mut Collector) {
    check_with_block_size(bytes, None, c);
}

/// Checks an old CLOG file with an explicit block size (`None`: inferred), as a
/// caller that knows the MPICH-1 version that wrote it may give (rule
/// `C1-REJ-001` is about that size).
///
/// ```
/// use clog2_format::clog::{Body, ClogWriter, Record, Shift};
/// use mpelog_conformance::check::clog::check_with_block_size;
/// use mpelog_conformance::{report::Collector, Format};
/// let mut w = ClogWriter::new(Vec::new(), 256)?;
/// for i in 0..10 {
///     w.push(&Record::new(f64::from(i), 0, Body::Shift(Shift { timeshift: 0.0 })))?;
/// }
/// let clog = w.finish()?; // 4 blocks of 256 bytes: too small to be inferred
/// let mut c = Collector::new(Format::Clog, 10);
/// check_with_block_size(&clog, Some(256), &mut c);
/// assert_eq!(c.finish().errors(), 0);
/// let mut c = Collector::new(Format::Clog, 10);
/// check_with_block_size(&clog, Some(100), &mut c); // not a multiple of 8
/// assert_eq!(c.finish().rule_ids(), ["C1-REJ-001"]);
/// # Ok::<(), clog2_format::Error>(())
/// ```
pub fn check_with_block_size(bytes: &[u8], block_size: Option<usize>, c: &mut Collector) {
    let len = bytes.len() as u64;
    let opened = match block_size {
        None => ClogRecords::new(bytes),
        Some(b) => {
            if b < HEADER_LEN || b % 8 != 0 {
                c.add(
                    C1_REJ_001,
                    0,
                    None,
                    format!("the block size {b} is not a multiple of 8 of at least 24; give the size the file was written with (1024 up to MPICH 1.1.2, 65536 later)"),
                );
                return;
            }
            if bytes.is_empty() || bytes.len() % b != 0 {
                c.add(
                    C1_REJ_003,
                    len,
                    None,
                    format!("byte {len}: the file length {len} is not a positive multiple of the block size {b}: the file was cut, or the block size is wrong"),
                );
                return;
            }
            ClogRecords::with_block_size(bytes, b)
        }
    };
    let records = match opened {
        Ok(r) => r,
        Err(e) => return reject(c, bytes, block_size.is_some(), &e),
    };
    for item in records.clone() {
        if let Err(e) = item {
            return reject(c, bytes, block_size.is_some(), &e);
        }
    }
    let mut sem = Semantics::new();
    for (rec, at) in records.flatten() {
        sem.push(&rec, at, c);
    }
    sem.finish(c);
}

/// Reports a reader error under its row of spec/clog.md §6.
fn reject(c: &mut Collector, bytes: &[u8], explicit: bool, e: &Error) {
    let len = bytes.len() as u64;
    let offset = e.offset().unwrap_or(0);
    let (rule, offset) = match e {
        // The file is empty (offset 0 = its length), not a multiple of the block
        // size (offset = length), or, with the size inferred, shorter than one
        // header: then the walk of §2 step 1 finds no terminator.
        Error::Truncated { .. } if len == 0 || offset == len || explicit => (C1_REJ_003, len),
        Error::Truncated { .. } => (C1_REJ_002, 0),
        Error::BadValue {
            problem: ValueProblem::ClogBlockSize | ValueProblem::NotInferable(_),
            ..
        } if explicit => (C1_REJ_001, 0),
        Error::BadValue {
            problem: ValueProblem::ClogBlockSize | ValueProblem::NotInferable(_),
            ..
        } => (C1_REJ_002, 0),
        Error::BadValue {
            problem: ValueProblem::RecordLength { .. },
            ..
        } => (C1_REJ_004, offset),
        Error::BadValue {
            problem: ValueProblem::UnknownTypeLength { .. },
            ..
        } => (C1_REJ_005, offset),
        Error::BlockOverrun { block_end, .. } if offset == *block_end => (C1_REJ_007, offset),
        Error::BlockOverrun { .. } => (C1_REJ_006, offset),
        Error::MissingEndLog { .. } => (C1_REJ_008, offset),
        Error::DataAfterEndLog { .. } => (C1_REJ_009, offset),
        // The reader takes a first record of unknown type as proof that the
        // bytes are not old CLOG at all (detection never picks such a file).
        Error::UnknownRecordType { .. } => {
            c.add(
                crate::rule::FORMAT_001,
                0,
                None,
                format!("{}: the first record's type is not an old-CLOG record type, so this is not an old-CLOG file", e.detail()),
            );
            return;
        }
        // Not produced by the old-CLOG reader (records are decoded from slices
        // it sized); reported where the structure ended.
        _ => (C1_REJ_006, offset),
    };
    let advice = match rule {
        C1_REJ_001 => {
            "give the size the file was written with (1024 up to MPICH 1.1.2, 65536 later)"
        }
        C1_REJ_002 | C1_REJ_003 | C1_REJ_008 => {
            "the file was cut or is not an old-CLOG file; take it again from its source"
        }
        C1_REJ_009 => "the blocks after ENDLOG's are not part of the log (files joined together, or a damaged terminator); take the file again from its source",
        _ => "the file is damaged at this record; take it again from its source",
    };
    c.add(rule, offset, None, format!("{}; {advice}", e.detail()));
}

/// A state category's colour as its last STATEDEF gave it, and whether a
/// drawable uses it.
#[derive(Debug, Default)]
struct Cat {
    /// An unknown colour name and the STATEDEF that gave it.
    bad_color: Option<(String, u64)>,
    used: bool,
}

/// The rules beyond parsing, applied record by record.
#[derive(Debug)]
struct Semantics {
    drawables: ClogDrawables,
    last_end: f64,
    /// Event ID bindings made by STATEDEFs (over the placeholders), as the
    /// converter makes them.
    handlers: EventBindings,
    next_index: i64,
    cats: HashMap<i32, Cat>,
    /// Names given to event IDs, and where (C1-DEF-004).
    names: HashMap<i32, (String, u64)>,
    /// Open state starts per (category, line), oldest first: their offsets.
    states: HashMap<(i32, i32), VecDeque<u64>>,
    /// Pending sends and receives per (tag, sender, receiver), oldest first.
    sends: HashMap<(i32, i32, i32), VecDeque<Waiter<u64>>>,
    recvs: HashMap<(i32, i32, i32), VecDeque<Waiter<u64>>>,
    ended: bool,
}

impl Semantics {
    fn new() -> Semantics {
        let handlers = EventBindings::new();
        Semantics {
            drawables: ClogDrawables::new(),
            last_end: f64::NEG_INFINITY,
            handlers,
            next_index: FIRST_NEW_INDEX as i64,
            cats: HashMap::new(),
            names: HashMap::new(),
            states: HashMap::new(),
            sends: HashMap::new(),
            recvs: HashMap::new(),
            ended: false,
        }
    }

    fn lookup(&self, etype: i32) -> Option<(i32, Role)> {
        self.handlers.lookup(etype)
    }

    fn push(&mut self, r: &Record, at: u64, c: &mut Collector) {
        let before = self.drawables.unmatched();
        let prim = self.drawables.push(r);
        let after = self.drawables.unmatched();
        if let Some(prim) = prim {
            let (start, end) = (prim.earliest(), prim.latest());
            let vertices = &prim.times[..usize::from(prim.nv).clamp(1, 2)];
            if vertices.iter().any(|t| !t.is_finite()) || !start.is_finite() || !end.is_finite() {
                c.add(C1_TIME_002, at, None, format!(
                    "byte {at}: this RAWEVENT at time {} completes a drawable with the vertex times {vertices:?}, which are not all finite (NaN or infinite); mpelog convert refuses an infinite time and copies a NaN one into the SLOG-2 file, where no viewer can place it; the record's time, or its partner's, is corrupt",
                    r.time
                ));
            } else if end < self.last_end {
                c.add(C1_TIME_001, at, None, format!(
                    "byte {at}: this RAWEVENT at time {} completes a drawable ending at {end}, before the end {} of an earlier one; mpelog convert refuses the file: the records must be in time order, as MPICH-1's merger writes them",
                    r.time, self.last_end
                ));
            } else {
                self.last_end = end;
            }
        }
        if self.ended {
            return;
        }
        match &r.body {
            Body::EndLog => self.ended = true,
            Body::StateDef(d) => {
                let conflicting = after.conflicting_definitions > before.conflicting_definitions;
                self.statedef(d, at, conflicting, c);
            }
            Body::Raw(e) => {
                if after.undeclared_events > before.undeclared_events {
                    c.add(C1_DEF_001, at, None, format!(
                        "byte {at}: RAWEVENT with event ID {} at time {}: no STATEDEF before it binds this ID, and it is neither an MPI (1..360) nor a user (500..559) placeholder event nor a message ID; Java clogTOslog2 exits here and mpelog convert drops the event; log a STATEDEF for it first",
                        e.etype, r.time
                    ));
                }
                if after.state_finals > before.state_finals {
                    c.add(C1_PAIR_001, at, None, format!(
                        "byte {at}: RAWEVENT with state final event {} at time {} has no open start on process {}; converters drop it; the start was not logged",
                        e.etype, r.time, r.procid
                    ));
                }
                self.raw(r, e.etype, e.data, &e.string.0, at, c);
            }
            _ => {}
        }
    }

    fn statedef(
        &mut self,
        d: &clog2_format::clog::StateDef,
        at: u64,
        conflicting: bool,
        c: &mut Collector,
    ) {
        let name = field_text(&d.description.0);
        let color = field_text(&d.color.0);
        let h1 = self.lookup(d.startetype);
        let h2 = self.lookup(d.endetype);
        let index = match (h1, h2) {
            (Some((c1, _)), Some((c2, _))) if c1 == c2 && c1 != ARROW_CATEGORY => c1,
            (Some((c1, _)), Some((c2, _))) => {
                if c1 == c2 {
                    c.add(C1_DEF_002, at, None, format!(
                        "byte {at}: STATEDEF {} binds events {}/{}, the message events; Java clogTOslog2 throws ClassCastException, mpelog convert ignores the definition; give the state its own event IDs",
                        quoted_text(&name), d.startetype, d.endetype
                    ));
                } else {
                    c.add(C1_DEF_003, at, None, format!(
                        "byte {at}: STATEDEF {} binds events {}/{}, which already belong to two different states; clogTOslog2 prints \"**** Error!\" and, like mpelog convert, ignores the definition; use a fresh pair of event IDs",
                        quoted_text(&name), d.startetype, d.endetype
                    ));
                }
                debug_assert!(conflicting);
                return;
            }
            _ => {
                let index = i32::try_from(self.next_index).unwrap_or(i32::MAX);
                self.next_index += 1;
                self.handlers.bind_state(index, d.startetype, d.endetype);
                index
            }
        };
        debug_assert!(!conflicting);
        let cat = self.cats.entry(index).or_default();
        cat.bad_color = colors::lookup(&color).is_none().then_some((color, at));
        let mut earlier = None;
        for id in [d.startetype, d.endetype] {
            if let Some((old, old_at)) = self.names.insert(id, (name.clone(), at)) {
                if old != name && earlier.is_none() {
                    earlier = Some((id, old, old_at));
                }
            }
        }
        if let Some((id, old, old_at)) = earlier {
            let (name, old) = (quoted_text(&name), quoted_text(&old));
            c.add(C1_DEF_004, at, None, format!(
                "byte {at}: STATEDEF {name} defines event ID {id} again, which the STATEDEF at byte {old_at} named {old}; converters keep only the last name, so the earlier one is lost; give each state its own event IDs"
            ));
        }
    }

    fn use_category(&mut self, index: i32) {
        self.cats.entry(index).or_default().used = true;
    }

    fn raw(
        &mut self,
        r: &Record,
        etype: i32,
        data: i32,
        string: &[u8],
        at: u64,
        c: &mut Collector,
    ) {
        if etype == CONST_ETYPE || etype == 0 {
            return;
        }
        let Some((cat, role)) = self.lookup(etype) else {
            return;
        };
        let line = r.procid;
        let state = State {
            category: cat,
            line,
        };
        match role {
            Role::Start => state.start(&mut self.states, at),
            Role::Final => {
                if state.close(&mut self.states).is_some() {
                    self.use_category(cat);
                }
            }
            Role::Send | Role::Recv => {
                let message = etype == SEND_ETYPE || etype == RECV_ETYPE;
                if message {
                    let text = field_text(string);
                    let bad = text
                        .split(' ')
                        .filter(|t| !t.is_empty())
                        .take(2)
                        .find(|t| t.parse::<i32>().is_err());
                    if let Some(bad) = bad {
                        let (text, bad) = (quoted_text(&text), quoted_text(bad));
                        c.add(C1_MSG_001, at, None, format!(
                            "byte {at}: the {} RAWEVENT's string {text} should be \"<tag> <size>\" in decimal, but {bad} is not a decimal integer; Java clogTOslog2 crashes, mpelog convert takes -2^31",
                            if etype == SEND_ETYPE { "send" } else { "receive" }
                        ));
                    }
                }
                let (tag, _) = if message {
                    message_params(string)
                } else {
                    (i32::MIN, i32::MIN)
                };
                // The partner's rank is the record's data, as the converter reads it.
                let m = Message {
                    send: role == Role::Send,
                    tag,
                    size: 0,
                    local: line,
                    remote: data,
                    time: r.time,
                    line,
                };
                // A waiting end keeps its offset, for the finding if none comes.
                let waiter = Waiter {
                    time: r.time,
                    line,
                    size: 0,
                    keep: at,
                };
                if m.pair(&mut self.sends, &mut self.recvs, |_| waiter)
                    .is_some()
                {
                    self.use_category(cat);
                }
            }
        }
    }

    /// The states and messages left open, and the drawn states whose colour
    /// clogTOslog2 cannot resolve, in file order.
    fn finish(self, c: &mut Collector) {
        let mut open: Vec<(u64, bool)> = Vec::new();
        open.extend(self.states.values().flatten().map(|&at| (at, true)));
        for q in self.sends.values().chain(self.recvs.values()) {
            open.extend(q.iter().map(|w| (w.keep, false)));
        }
        open.sort_unstable();
        for (at, state) in open {
            if state {
                c.add(C1_PAIR_001, at, None, format!(
                    "byte {at}: the state started by this RAWEVENT is never closed: no final event follows on its process; converters drop it (the program ended inside the state)"
                ));
            } else {
                c.add(C1_PAIR_002, at, None, format!(
                    "byte {at}: this send or receive RAWEVENT has no partner with the same tag, sender and receiver; converters draw no arrow for it"
                ));
            }
        }
        let mut colors: Vec<(u64, String)> = self
            .cats
            .into_values()
            .filter(|cat| cat.used)
            .filter_map(|cat| cat.bad_color.map(|(name, at)| (at, name)))
            .collect();
        colors.sort_unstable();
        for (at, name) in colors {
            let name = quoted_text(&name);
            c.add(C1_DEF_005, at, None, format!(
                "byte {at}: STATEDEF colour {name} is not in Jumpshot's colour table and the state is drawn; Java clogTOslog2 crashes writing its category (mpelog convert picks a palette colour); use an X11 colour name"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use slog2_format::convert::clog2::events::Unmatched;

    /// What this module's pairing leaves open equals what the converter's
    /// does: (state starts, sends, receives).
    fn open_counts(bytes: &[u8]) -> ((u64, u64, u64), Unmatched) {
        let mut sem = Semantics::new();
        let mut sink = Collector::new(Format::Clog, 1);
        let mut conv = ClogDrawables::new();
        for item in ClogRecords::new(bytes).unwrap() {
            let (rec, at) = item.unwrap();
            sem.push(&rec, at, &mut sink);
            conv.push(&rec);
        }
        let n = |m: &HashMap<(i32, i32, i32), VecDeque<Waiter<u64>>>| -> u64 {
            m.values().map(|q| q.len() as u64).sum()
        };
        let mine = (
            sem.states.values().map(|q| q.len() as u64).sum(),
            n(&sem.sends),
            n(&sem.recvs),
        );
        (mine, conv.finish().2)
    }

    fn raw(time: f64, procid: i32, etype: i32, data: i32, string: &str) -> Record {
        Record::new(
            time,
            procid,
            Body::Raw(clog2_format::clog::RawEvent {
                etype,
                data,
                srcloc: 0,
                pad: Default::default(),
                string: clog2_format::FixedBytes::from_str_truncated(string),
            }),
        )
    }

    #[test]
    fn pairing_leaves_open_what_the_converter_leaves_open() {
        // Starts, finals, sends and receives with some partners missing, on
        // placeholders, a STATEDEF's new category and the message events.
        let recs = [
            raw(0.0, 0, 1, 0, ""),
            raw(0.1, 1, 1, 0, ""),
            raw(0.2, 0, 2, 0, ""),
            raw(0.3, 0, 2, 0, ""),
            raw(0.4, 0, -101, 1, "7 4"),
            raw(0.5, 1, -102, 0, "7 4"),
            raw(0.6, 0, -101, 1, "8 4"),
            raw(0.7, 1, -102, 0, "9 4"),
            raw(0.8, 1, 600, 0, ""),
            raw(0.9, 1, 700, 0, "x"),
            raw(1.0, 1, 500, 0, ""),
        ];
        let mut w = clog2_format::clog::ClogWriter::new(Vec::new(), 1024).unwrap();
        for r in &recs {
            w.push(r).unwrap();
        }
        let bytes = w.finish().unwrap();
        let (mine, conv) = open_counts(&bytes);
        assert_eq!(mine, (conv.state_starts, conv.sends, conv.recvs));
        assert_eq!(mine, (2, 1, 1));
        if let Some(root) = crate::corpus::root() {
            for f in [
                "historic/fpilog.clog",
                "mpich1/clog1/simple.clog",
                "mpich1/clog1/nesttest.clog",
                "mpich1/clog1/arrowtest.clog",
            ] {
                let bytes = std::fs::read(root.join(f)).unwrap();
                let (mine, conv) = open_counts(&bytes);
                assert_eq!(mine, (conv.state_starts, conv.sends, conv.recvs), "{f}");
            }
        }
    }
}
