//! ALOG rules (spec/conformance.md §6).
//!
//! A `.Z` file is unpacked first ([`alog_format::z::decompress`], at most
//! [`Z_LIMIT`] bytes); a stream that does not unpack is `AL-Z-001` or
//! `AL-Z-002`, with an offset in the compressed file. Every other offset is in
//! the (unpacked) text: parse errors of [`alog_format::AlogFile::parse`] become
//! the `AL-REJ-NNN` finding of the spec §3 row they break
//! ([`alog_format::Error::spec_row`]), at the byte of the offending token (or of
//! the line end when the token is missing), with `line L, column C` as place. A
//! file that parses is then checked for what the viewers (upshot, nupshot) and
//! `mpelog convert` do with it: the header against the body, time order, state
//! definitions, and pairing of states and messages exactly as
//! [`slog2_format::convert::alog_to_slog2`] pairs them. Those findings are warnings (the
//! spec forbids readers to reject such files) at the first byte of the offending
//! line, with `line L` as place.

use crate::report::Collector;
use crate::rule::Rule;
use crate::Format;
use alog_format::record::{rtype, Kind, Record};
use alog_format::z::{self, ZError};
use alog_format::{AlogFile, Error};
use clog2_format::escape::quoted_text;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

/// The largest unpacked size of a `.Z` file the checker accepts (64 MiB; the
/// largest known sample unpacks to 242 KiB). Larger files are `AL-Z-002`.
pub const Z_LIMIT: usize = 64 << 20;

crate::rule::rule_table! {
    Some(Format::Alog);
    /// The ALOG rules: the rows of spec/alog.md §3, the `.Z` rules, then the checks
    /// beyond parsing.
    AL_REJ_001 = "AL-REJ-001", Error,
        "a record line has fewer than six fields";
    AL_REJ_002 = "AL-REJ-002", Error,
        "one of fields 1-5 (type, process, task, data, cycle) is not a decimal integer";
    AL_REJ_003 = "AL-REJ-003", Error,
        "one of fields 1-5 is an integer outside the C int range [-2147483648, 2147483647]";
    AL_REJ_004 = "AL-REJ-004", Error,
        "the timestamp (field 6) is not a finite decimal number";
    AL_REJ_005 = "AL-REJ-005", Error,
        "the file holds no record (it is empty, or has only blank and # lines)";
    AL_Z_001 = "AL-Z-001", Error,
        "a Unix compress (.Z) file that does not unpack (no flags byte, a code width outside 9-16, or a code beyond the table)";
    AL_Z_002 = "AL-Z-002", Error,
        "a .Z file that unpacks to more than the checker's limit (64 MiB): not checked";
    AL_LINE_001 = "AL-LINE-001", Warning,
        "a blank or # line: nupshot and mpelog skip it, upshot aborts the file";
    AL_HDR_001 = "AL-HDR-001", Warning,
        "no -3 (number of processes) record, or its value is below 1: upshot refuses the file";
    AL_HDR_002 = "AL-HDR-002", Warning,
        "no -6 (start) or -7 (end) record, or the end is not after the start, or is 0: upshot refuses the file";
    AL_HDR_003 = "AL-HDR-003", Warning,
        "the -2 record's number of events differs from the number of event records";
    AL_HDR_004 = "AL-HDR-004", Warning,
        "an event's process is outside 0 ... n-1 (n = the -3 value): upshot draws it outside its rows";
    AL_HDR_005 = "AL-HDR-005", Warning,
        "an event's time is outside the -6 ... -7 range: upshot draws it off the time axis";
    AL_HDR_006 = "AL-HDR-006", Warning,
        "a header record (type -100 ... -1) after the first event: nupshot ignores it";
    AL_TIME_001 = "AL-TIME-001", Warning,
        "an event is earlier than the event before it: upshot pairs in file order, mpelog convert in time order";
    AL_TIME_002 = "AL-TIME-002", Warning,
        "an event has a cycle other than 0 but the file has no roll-over point (-11): the cycle does not count";
    AL_TIME_003 = "AL-TIME-003", Warning,
        "an event's time cycle x roll-over + timestamp is not a finite number: mpelog convert drops it";
    AL_DEF_001 = "AL-DEF-001", Warning,
        "a -13 record without a colouring word or a state name defines nothing: its events are point events";
    AL_DEF_002 = "AL-DEF-002", Warning,
        "a -13 record repeats a state name with other event types: upshot keeps the first definition";
    AL_DEF_003 = "AL-DEF-003", Warning,
        "a -13 record gives an event type that already starts or ends another state, or starts and ends the same one";
    AL_DEF_004 = "AL-DEF-004", Warning,
        "state definitions whose start event never occurs: upshot drops them (reported once per file)";
    AL_MSG_001 = "AL-MSG-001", Warning,
        "a -101/-102 record whose comment does not start with `tag size`: a plain event, not a message (nupshot refuses it)";
    AL_PAIR_001 = "AL-PAIR-001", Warning,
        "a state end event with no open instance of its state on its process: dropped";
    AL_PAIR_002 = "AL-PAIR-002", Warning,
        "a state start event never ended: the state is drawn to the end of the run";
    AL_PAIR_003 = "AL-PAIR-003", Warning,
        "a send (-101) without a matching receive: no arrow is drawn";
    AL_PAIR_004 = "AL-PAIR-004", Warning,
        "a receive (-102) without a matching send: no arrow is drawn";
    AL_CONV_001 = "AL-CONV-001", Warning,
        "no event makes a drawable: mpelog convert refuses the file";
}

/// Checks an ALOG file (text, or `.Z`).
///
/// ```
/// use mpelog_conformance::check::alog::check;
/// use mpelog_conformance::{report::Collector, Format};
/// // A state (events 1 and 2) on process 0, from 0 to 10 ticks.
/// let alog = "-13 0 1 2 0 0 red:gray Work\n1 0 0 0 0 0 \n2 0 0 0 0 10 \n";
/// let mut c = Collector::new(Format::Alog, 10);
/// check(alog.as_bytes(), &mut c);
/// let report = c.finish();
/// assert!(report.passes()); // warnings only: the header lines are missing
/// assert_eq!(report.rule_ids(), ["AL-HDR-001", "AL-HDR-002"]);
/// // The state's end is missing: it is drawn to the end of the run.
/// let mut c = Collector::new(Format::Alog, 10);
/// let cut = alog.rsplit_once("2 0").unwrap().0;
/// check(cut.as_bytes(), &mut c);
/// assert_eq!(c.finish().rule_ids(), ["AL-HDR-001", "AL-HDR-002", "AL-PAIR-002"]);
/// ```
pub fn check(bytes: &[u8], c: &mut Collector) {
    let text = match z::unpack(bytes, Z_LIMIT) {
        Ok(text) => text,
        Err(e) => return unpack_error(&e, bytes.len(), c),
    };
    let lines = Lines::index(&text);
    match AlogFile::parse(&text) {
        Ok(f) => Checker::new(&f, &lines, c).run(),
        Err(e) => reject(&e, c),
    }
}

fn unpack_error(e: &ZError, len: usize, c: &mut Collector) {
    match e {
        ZError::TooLarge { limit, .. } => c.add(
            AL_Z_002,
            e.offset(),
            None,
            format!(
                "the {len}-byte .Z file unpacks to more than {} MiB, the checker's limit, so it was not checked ({e}); unpack it (`uncompress`) and check the plain file",
                limit >> 20
            ),
        ),
        _ => c.add(
            AL_Z_001,
            e.offset(),
            None,
            format!(
                "the .Z file does not unpack: {e}; the file is damaged or not made by Unix compress: get it again, or unpack it with `uncompress` and check the result"
            ),
        ),
    }
}

/// Where the lines of the text are, split as [`AlogFile::parse`] splits them.
struct Lines {
    /// Byte offset of the first byte of each line (1-based line L is at L - 1).
    starts: Vec<u64>,
    /// Per record (file order): its line index.
    records: Vec<usize>,
    /// The skipped (blank or `#`) lines.
    skipped: Vec<usize>,
}

impl Lines {
    fn index(text: &[u8]) -> Lines {
        let mut l = Lines {
            starts: Vec::new(),
            records: Vec::new(),
            skipped: Vec::new(),
        };
        let mut at = 0usize;
        while at < text.len() {
            let end = text[at..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(text.len(), |i| at + i);
            let line = &text[at..end];
            let i = l.starts.len();
            l.starts.push(at as u64);
            match line.iter().find(|&&b| !alog_format::text::is_space(b)) {
                None | Some(b'#') => l.skipped.push(i),
                Some(_) => l.records.push(i),
            }
            at = end + 1;
        }
        l
    }

    /// The offset and place of record `i`'s line.
    fn record(&self, i: usize) -> (u64, Option<String>) {
        let line = self.records[i];
        (self.starts[line], Some(format!("line {}", line + 1)))
    }

    /// The 1-based line number of record `i`.
    fn line_of(&self, i: usize) -> usize {
        self.records[i] + 1
    }
}

/// A parse error as the finding of its spec row.
fn reject(e: &Error, c: &mut Collector) {
    let rule = match e.spec_row() {
        Some(1) => AL_REJ_001,
        Some(2) => AL_REJ_002,
        Some(3) => AL_REJ_003,
        Some(4) => AL_REJ_004,
        // Row 5, and (not raised by parsing) output errors.
        _ => AL_REJ_005,
    };
    match (e.line(), e.column()) {
        (Some(line), Some(column)) => c.add(
            rule,
            e.offset().unwrap_or(0),
            Some(format!("line {line}, column {column}")),
            format!(
                "{e}; every record line is six decimal numbers `type process task data cycle timestamp`, then an optional comment: fix or remove the line"
            ),
        ),
        _ => c.add(
            rule,
            0,
            None,
            format!("{e}; the file is empty or not ALOG"),
        ),
    }
}

/// A kept state definition (spec/alog.md §4.2).
struct State {
    /// Its `-13` record.
    record: usize,
    name: String,
    start: i32,
    /// Whether a start event of the state occurred.
    started: bool,
}

/// The checks of a file that parses.
struct Checker<'a, 'c> {
    f: &'a AlogFile,
    lines: &'a Lines,
    c: &'c mut Collector,
    roll: f64,
}

/// A pending message end: its record.
type Pending = usize;

impl<'a, 'c> Checker<'a, 'c> {
    fn new(f: &'a AlogFile, lines: &'a Lines, c: &'c mut Collector) -> Checker<'a, 'c> {
        Checker {
            f,
            lines,
            c,
            roll: f.rollover(),
        }
    }

    fn add(&mut self, rule: Rule, record: usize, message: String) {
        let (offset, place) = self.lines.record(record);
        self.c.add(rule, offset, place, message);
    }

    /// The first record of a type, with its index.
    fn header(&self, etype: i32) -> Option<(usize, &'a Record)> {
        let f: &'a AlogFile = self.f;
        f.records.iter().enumerate().find(|(_, r)| r.etype == etype)
    }

    fn run(mut self) {
        self.skipped_lines();
        self.header_records();
        self.times();
        let mut states = self.definitions();
        self.messages();
        self.pairing(&mut states);
        self.unused_definitions(&states);
        if slog2_format::convert::alog::drawables(self.f)
            .prims
            .is_empty()
        {
            self.c.add(
                AL_CONV_001,
                0,
                None,
                format!(
                    "none of the file's {} event records makes a drawable (no point event, no paired state or message): `mpelog convert` refuses it and the viewers show nothing; check that the file holds the run's events",
                    self.f.events().count()
                ),
            );
        }
    }

    fn skipped_lines(&mut self) {
        for &i in &self.lines.skipped {
            self.c.add(
                AL_LINE_001,
                self.lines.starts[i],
                Some(format!("line {}", i + 1)),
                "a blank or `#` line: nupshot and mpelog skip it, but upshot stops reading the file there; remove the line (`mpelog convert FILE OUT.alog` writes the file without such lines)".to_string(),
            );
        }
    }

    fn header_records(&mut self) {
        let f = self.f;
        // -3: number of processes.
        let nprocs = match self.header(rtype::NUM_PROCS) {
            Some((i, r)) if r.data < 1 => {
                self.add(
                    AL_HDR_001,
                    i,
                    format!(
                        "the -3 record says {} processes: upshot needs at least 1 and refuses the file; set it to the number of processes (timelines) the events use",
                        r.data
                    ),
                );
                None
            }
            Some((_, r)) => Some(r.data),
            None => {
                self.c.add(
                    AL_HDR_001,
                    0,
                    None,
                    "the file has no -3 record (number of processes): upshot refuses the file; add `-3 0 0 N 0 0` to the header, N = the number of processes".to_string(),
                );
                None
            }
        };
        // -6 / -7: start and end of the run.
        let start = self.header(rtype::START_TIME);
        let end = self.header(rtype::END_TIME);
        let (s_us, e_us) = match (start, end) {
            (Some((_, s)), Some((ei, e))) => {
                let (s_us, e_us) = (s.time_us(self.roll), e.time_us(self.roll));
                let bad = e_us <= s_us || e_us == 0.0;
                if bad {
                    let why = if e_us == 0.0 {
                        "is 0".to_string()
                    } else {
                        format!("is not after the -6 start time {s_us} µs")
                    };
                    self.add(
                        AL_HDR_002,
                        ei,
                        format!(
                            "the -7 end time {e_us} µs {why}: upshot needs an end after the start and not 0, and refuses the file; set -6 and -7 to the earliest and latest event times"
                        ),
                    );
                }
                // Only a valid range is compared with the events.
                if bad {
                    (None, None)
                } else {
                    (Some(s_us), Some(e_us))
                }
            }
            _ => {
                let missing = match (start, end) {
                    (None, None) => "-6 and -7 records",
                    (None, _) => "-6 record",
                    _ => "-7 record",
                };
                self.c.add(
                    AL_HDR_002,
                    0,
                    None,
                    format!(
                        "the file has no {missing} (start and end time of the run): upshot refuses it; add `-6 0 0 0 0 T0` and `-7 0 0 0 0 T1` with the earliest and latest event times in µs"
                    ),
                );
                (None, None)
            }
        };
        // -2: number of events.
        let nevents = f.events().count();
        if let Some((i, r)) = self.header(rtype::NUM_EVENTS) {
            if i64::from(r.data) != nevents as i64 {
                self.add(
                    AL_HDR_003,
                    i,
                    format!(
                        "the -2 record says {} events, the file has {nevents} event records (types ≥ 0 and ≤ -101); set it to {nevents}",
                        r.data
                    ),
                );
            }
        }
        // Processes and times of the events against the header.
        let mut bad_procs = HashSet::new();
        let mut first_event = None;
        for (i, r) in f.records.iter().enumerate() {
            if r.is_header() {
                if let Some(first) = first_event {
                    self.add(
                        AL_HDR_006,
                        i,
                        format!(
                            "a header record of type {} after the first event (line {}): nupshot stops reading the header at the first event and ignores it; move the header records before the events",
                            r.etype,
                            self.lines.line_of(first)
                        ),
                    );
                }
                continue;
            }
            first_event.get_or_insert(i);
            if let Some(n) = nprocs {
                if !(0..n).contains(&r.process) && bad_procs.insert(r.process) {
                    self.add(
                        AL_HDR_004,
                        i,
                        format!(
                            "an event of process {} (first of that process), but the -3 record says {n} processes (0 … {}): upshot draws it outside the timelines; number the processes 0 … n-1 or correct -3",
                            r.process,
                            n - 1
                        ),
                    );
                }
            }
            if let (Some(s), Some(e)) = (s_us, e_us) {
                let t = r.time_us(self.roll);
                if t.is_finite() && (t < s || t > e) {
                    self.add(
                        AL_HDR_005,
                        i,
                        format!(
                            "an event at {t} µs, outside the run's range {s} … {e} µs that -6 and -7 give: upshot draws it off the time axis; set -6 and -7 to the earliest and latest event times"
                        ),
                    );
                }
            }
        }
    }

    fn times(&mut self) {
        let f = self.f;
        let mut prev: Option<(usize, f64)> = None;
        for (i, r) in f.records.iter().enumerate().filter(|(_, r)| r.is_event()) {
            let t = r.time_us(self.roll);
            if r.cycle != 0 && self.roll == 0.0 {
                self.add(
                    AL_TIME_002,
                    i,
                    format!(
                        "the event has cycle {} but the file has no roll-over point (no -11 record, or 0), so the cycle adds nothing to its time {} µs; add the -11 record with the clock's roll-over value, or fold the cycles into the timestamps",
                        r.cycle, r.timestamp
                    ),
                );
            }
            if !t.is_finite() {
                self.add(
                    AL_TIME_003,
                    i,
                    format!(
                        "the event's time cycle × roll-over + timestamp = {} × {} + {} is not a finite number: `mpelog convert` drops it; correct the cycle or the -11 roll-over point",
                        r.cycle, self.roll, r.timestamp
                    ),
                );
                continue;
            }
            if let Some((pi, pt)) = prev {
                if t < pt {
                    self.add(
                        AL_TIME_001,
                        i,
                        format!(
                            "the event at {t} µs comes after one at {pt} µs (line {}): the events are not in time order; upshot pairs states and messages in file order, `mpelog convert` in time order, so they can differ; sort the events by (cycle, timestamp)",
                            self.lines.line_of(pi)
                        ),
                    );
                }
            }
            prev = Some((i, t));
        }
    }

    /// The `-13` records as upshot keeps them (spec/alog.md §4.2): returns the
    /// kept states.
    fn definitions(&mut self) -> Vec<State> {
        let f = self.f;
        let mut states: Vec<State> = Vec::new();
        let mut by_name: HashMap<Vec<u8>, (i32, i32, usize)> = HashMap::new();
        let mut starts: HashMap<i32, usize> = HashMap::new();
        let mut ends: HashMap<i32, usize> = HashMap::new();
        for (i, r) in f.records.iter().enumerate() {
            if r.etype != rtype::STATE_DEF {
                continue;
            }
            let Some(d) = r.state_def() else {
                self.add(
                    AL_DEF_001,
                    i,
                    format!(
                        "the state definition's comment {} lacks {}: it defines nothing, and events {} and {} are point events; write the comment as `color:bitmap name` (`: name` for default colours)",
                        alog_format::dump::quoted(r.comment_bytes()),
                        if r.comment_bytes().is_empty() { "the colouring word and the name" } else { "the name after the colouring word" },
                        r.task,
                        r.data
                    ),
                );
                continue;
            };
            let name = String::from_utf8_lossy(&d.text.name).into_owned();
            if let Some(&(s, e, first)) = by_name.get(&d.text.name) {
                if (s, e) != (d.start, d.end) {
                    self.add(
                        AL_DEF_002,
                        i,
                        format!(
                            "state {} is defined again with events {} and {}; the first definition (line {}, events {s} and {e}) is kept, so these events are point events unless another state uses them; give the state another name or drop this record",
                            quoted_text(&name),
                            d.start,
                            d.end,
                            self.lines.line_of(first)
                        ),
                    );
                }
                continue;
            }
            by_name.insert(d.text.name.clone(), (d.start, d.end, i));
            let index = states.len();
            let mut clashes = Vec::new();
            if d.start == d.end {
                clashes.push(format!(
                    "event type {} both starts and ends it (it is always a start, so the state never ends)",
                    d.start
                ));
            }
            for (t, what) in [(d.start, "starts"), (d.end, "ends")] {
                for (map, role) in [(&starts, "starts"), (&ends, "ends")] {
                    if let Some(&other) = map.get(&t) {
                        clashes.push(format!(
                            "event type {t}, which {what} it, already {role} state {} (line {})",
                            quoted_text(&states[other].name),
                            self.lines.line_of(states[other].record)
                        ));
                    }
                }
            }
            if !clashes.is_empty() {
                self.add(
                    AL_DEF_003,
                    i,
                    format!(
                        "state {}: {}; an event type that starts any state is a start, and the last definition of a type wins, so states get mixed up; give each state its own pair of event types",
                        quoted_text(&name),
                        clashes.join("; ")
                    ),
                );
            }
            starts.insert(d.start, index);
            ends.insert(d.end, index);
            states.push(State {
                record: i,
                name,
                start: d.start,
                started: false,
            });
        }
        states
    }

    fn messages(&mut self) {
        let f = self.f;
        for (i, r) in f.records.iter().enumerate() {
            if (r.etype == rtype::SEND || r.etype == rtype::RECV) && r.message_text().is_none() {
                self.add(
                    AL_MSG_001,
                    i,
                    format!(
                        "a {} record whose comment {} does not start with two integers `tag size`: upshot and `mpelog convert` show it as a plain event, not a message, and nupshot refuses the file; write `tag size` in the comment (p4 clock-sync records should have been removed by adjlogs)",
                        r.etype,
                        alog_format::dump::quoted(r.comment_bytes())
                    ),
                );
            }
        }
    }

    /// Pairs states and messages in time order as [`slog2_format::convert::alog_to_slog2`]
    /// does (spec/alog.md §7, spec/conversion.md §6 item 3) and reports what stays unpaired.
    fn pairing(&mut self, states: &mut [State]) {
        let f = self.f;
        let mut starts: HashMap<i32, usize> = HashMap::new();
        let mut ends: HashMap<i32, usize> = HashMap::new();
        for (k, s) in states.iter().enumerate() {
            let d = f.records[s.record]
                .state_def()
                .expect("kept definitions parse");
            starts.insert(d.start, k);
            ends.insert(d.end, k);
        }
        let mut events: Vec<(f64, usize)> = f
            .records
            .iter()
            .enumerate()
            .filter(|(_, r)| r.is_event())
            .map(|(i, r)| (r.time_us(self.roll), i))
            .filter(|(t, _)| t.is_finite())
            .collect();
        events.sort_by(|a, b| a.0.total_cmp(&b.0));

        // Per process, the slots of open states: (state, start record).
        let mut slots: BTreeMap<i32, Vec<Option<(usize, usize)>>> = BTreeMap::new();
        let mut sends: HashMap<(i32, i32, i32), VecDeque<Pending>> = HashMap::new();
        let mut recvs: HashMap<(i32, i32, i32), VecDeque<Pending>> = HashMap::new();
        for &(_, i) in &events {
            let r = &f.records[i];
            if matches!(r.kind(), Kind::Send | Kind::Recv) {
                let m = r.message().expect("sends and receives have a message");
                let key = (m.sender, m.receiver, m.tag);
                let (mine, theirs) = if m.send {
                    (&mut sends, &mut recvs)
                } else {
                    (&mut recvs, &mut sends)
                };
                let matched = theirs.get_mut(&key).and_then(VecDeque::pop_front);
                if matched.is_none() {
                    mine.entry(key).or_default().push_back(i);
                }
            } else if let Some(&state) = starts.get(&r.etype) {
                states[state].started = true;
                let s = slots.entry(r.process).or_default();
                match s.iter().position(Option::is_none) {
                    Some(k) => s[k] = Some((state, i)),
                    None => s.push(Some((state, i))),
                }
            } else if let Some(&state) = ends.get(&r.etype) {
                let s = slots.entry(r.process).or_default();
                match s
                    .iter()
                    .rposition(|x| matches!(x, Some((st, _)) if *st == state))
                {
                    Some(k) => {
                        s[k] = None;
                        if k + 1 == s.len() {
                            s.pop();
                        }
                    }
                    None => self.add(
                        AL_PAIR_001,
                        i,
                        format!(
                            "an end of state {} (event type {}) on process {} with no open instance of the state there: upshot and `mpelog convert` drop it; check that the start event was logged (and precedes the end in time)",
                            quoted_text(&states[state].name), r.etype, r.process
                        ),
                    ),
                }
            }
        }
        let mut open: Vec<(usize, usize)> = slots
            .values()
            .flat_map(|s| s.iter().rev().flatten().copied())
            .collect();
        open.sort_by_key(|&(_, i)| i);
        for (state, i) in open {
            let r = &f.records[i];
            self.add(
                AL_PAIR_002,
                i,
                format!(
                    "a start of state {} (event type {}) on process {} that no end event closes: it is drawn up to the end of the run; check that the end event (type {}) was logged",
                    quoted_text(&states[state].name),
                    r.etype,
                    r.process,
                    f.records[states[state].record].data
                ),
            );
        }
        for (rule, queues, what) in [
            (AL_PAIR_003, &sends, "send"),
            (AL_PAIR_004, &recvs, "receive"),
        ] {
            let mut left: Vec<usize> = queues.values().flatten().copied().collect();
            left.sort_unstable();
            for i in left {
                let m = f.records[i].message().expect("queued records are messages");
                let (other, other_type) = if m.send {
                    ("receive", "-102")
                } else {
                    ("send", "-101")
                };
                self.add(
                    rule,
                    i,
                    format!(
                        "a {what} from process {} to process {} with tag {} that no {other} ({other_type} with the same sender, receiver and tag) matches: no arrow is drawn; check that the partner record was logged",
                        m.sender, m.receiver, m.tag
                    ),
                );
            }
        }
    }

    fn unused_definitions(&mut self, states: &[State]) {
        let unused: Vec<&State> = states.iter().filter(|s| !s.started).collect();
        let Some(first) = unused.first() else {
            return;
        };
        let names: Vec<String> = unused
            .iter()
            .take(5)
            .map(|s| format!("{} (event {})", quoted_text(&s.name), s.start))
            .collect();
        let more = if unused.len() > 5 { ", …" } else { "" };
        self.add(
            AL_DEF_004,
            first.record,
            format!(
                "{} of the {} state definitions never start (no event of their start type): {}{more}; upshot drops them and the SLOG-2 legend lacks them; nothing to do unless a state is missing from the view (then its start events were not logged)",
                unused.len(),
                states.len(),
                names.join(", ")
            ),
        );
    }
}
