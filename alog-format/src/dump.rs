//! The text form of `mpelog print` ([`lines`]: one line per record, every field
//! named) and of `mpelog info` ([`summary`]).
//!
//! ```text
//! creator type=-1 process=0 task=0 data=0 cycle=0 timestamp=0 comment="Me"
//! state_def type=-13 process=0 task=11 data=12 cycle=0 timestamp=0 comment="yellow:dimple3 BARRIER" start=11 end=12 color="yellow" bitmap="dimple3" name="BARRIER"
//! event type=11 process=1 task=0 data=1 cycle=0 timestamp=185910 comment="" time=0.18591
//! send type=-101 process=0 task=0 data=1 cycle=0 timestamp=326954 comment="99 12" time=0.326954 sender=0 receiver=1 tag=99 size=12
//! ```
//!
//! The first word is the record's [`Kind`]. `comment=none`
//! means the line ends after the timestamp, `comment=""` that it ends in blanks.
//! Strings are quoted with `"` and `\` escaped, control bytes (0x00 … 0x1F,
//! 0x7F) written `\u00XX` and bytes ≥ 0x80 `\xXX` (spec/README.md §3, strings in text output). Events
//! also show `time=`, their real time in seconds (`(cycle × rollover +
//! timestamp) / 10^6`).

use crate::file::AlogFile;
use crate::record::{rtype, Kind, Record};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::{self, Display, Write};

/// Writes bytes as a quoted string, escaping `"`, `\`, control bytes (`\u00XX`)
/// and bytes ≥ 0x80 (`\xXX`): the notation of [`clog2_format::escape`]
/// (spec/README.md §3, strings in text output).
///
/// ```
/// assert_eq!(alog_format::dump::quoted(b"a\"\x01\xff").to_string(), r#""a\"\u0001\xff""#);
/// ```
pub fn quoted(b: &[u8]) -> Quoted<'_> {
    Quoted(b)
}

pub use clog2_format::escape::QuotedBytes as Quoted;

/// One record as a dump line (without newline); `rollover` (µs) gives the real
/// time of events.
///
/// ```
/// let f = alog_format::AlogFile::parse(b"-11 0 0 0 0 1000\n1 0 0 0 2 10 \n")?;
/// let line = alog_format::dump::record(&f.records[1], f.rollover());
/// assert!(line.starts_with("event type=1 process=0 task=0 data=0 cycle=2 timestamp=10 "));
/// assert!(line.ends_with(" time=0.00201")); // 2 × 1000 µs + 10 µs
/// # Ok::<(), alog_format::Error>(())
/// ```
pub fn record(r: &Record, rollover: f64) -> String {
    let kind = r.kind();
    let mut s = format!(
        "{} type={} process={} task={} data={} cycle={} timestamp={} comment=",
        kind.name(),
        r.etype,
        r.process,
        r.task,
        r.data,
        r.cycle,
        r.timestamp
    );
    match &r.comment {
        Some(c) => {
            let _ = write!(s, "{}", quoted(c.as_bytes()));
        }
        None => s.push_str("none"),
    }
    if r.is_event() {
        let _ = write!(s, " time={}", r.time_us(rollover) / 1e6);
    }
    match kind {
        Kind::StateDef => match r.state_def() {
            Some(d) => {
                let _ = write!(
                    s,
                    " start={} end={} color={} bitmap=",
                    d.start,
                    d.end,
                    quoted(d.text.color())
                );
                match d.text.bitmap() {
                    Some(b) => {
                        let _ = write!(s, "{}", quoted(b));
                    }
                    None => s.push_str("none"),
                }
                let _ = write!(s, " name={}", quoted(&d.text.name));
            }
            None => s.push_str(" invalid=\"no colour word and name\""),
        },
        Kind::Send | Kind::Recv => {
            if let Some(m) = r.message() {
                let _ = write!(
                    s,
                    " sender={} receiver={} tag={} size={}",
                    m.sender, m.receiver, m.tag, m.size
                );
            }
        }
        Kind::EventDesc | Kind::EventFormat => {
            let _ = write!(s, " event={}", r.data);
        }
        _ => {}
    }
    s
}

/// Every record of the file as a dump line, in file order.
///
/// ```
/// let f = alog_format::AlogFile::parse(b"-3 0 0 2 0 0\n1 0 0 0 0 10 \n")?;
/// let lines = alog_format::dump::lines(&f);
/// assert_eq!(lines.len(), 2); // one a record
/// assert!(lines[0].starts_with("num_procs type=-3 "));
/// # Ok::<(), alog_format::Error>(())
/// ```
pub fn lines(f: &AlogFile) -> Vec<String> {
    let roll = f.rollover();
    f.records.iter().map(|r| record(r, roll)).collect()
}

/// What `mpelog info` shows about an ALOG file.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// Records (lines that are records).
    pub records: u64,
    /// Header records (types -100 … -1).
    pub header_records: u64,
    /// Event records (types ≥ 0 and ≤ -101).
    pub event_records: u64,
    /// Records per type.
    pub per_type: BTreeMap<i32, u64>,
    /// Distinct processes of the event records.
    pub processes: u64,
    /// Lowest and highest process of the event records.
    pub process_range: Option<(i32, i32)>,
    /// The number of processes the `-3` record declares.
    pub declared_processes: Option<i32>,
    /// The number of events the `-2` record declares.
    pub declared_events: Option<i32>,
    /// Valid state definitions (`-13` with colour word and name), duplicates
    /// included.
    pub state_defs: u64,
    /// Message sends (`-101` with tag and size).
    pub sends: u64,
    /// Message receives (`-102` with tag and size).
    pub recvs: u64,
    /// The clock roll-over point (`-11`, µs; 0 = none).
    pub rollover_us: f64,
    /// Earliest and latest real time of the event records, in µs (events whose
    /// real time is not finite, from a huge cycle × roll-over, are left out).
    pub time_range_us: Option<(f64, f64)>,
    /// The start (`-6`) and end (`-7`) times the header declares, in µs.
    pub declared_times_us: (Option<f64>, Option<f64>),
    /// Whether every header record precedes the first event.
    pub header_first: bool,
    /// Whether the events are in non-decreasing time.
    pub time_sorted: bool,
}

impl Summary {
    /// [`Summary::time_range_us`] in seconds.
    ///
    /// ```
    /// let f = alog_format::AlogFile::parse(b"1 0 0 0 0 10 \n2 0 0 0 0 2500000 \n")?;
    /// assert_eq!(alog_format::dump::summary(&f).time_range_s(), Some((10e-6, 2.5)));
    /// # Ok::<(), alog_format::Error>(())
    /// ```
    pub fn time_range_s(&self) -> Option<(f64, f64)> {
        self.time_range_us.map(|(a, b)| (a / 1e6, b / 1e6))
    }
}

fn type_name(t: i32) -> &'static str {
    match t {
        rtype::CREATOR => "creator",
        rtype::NUM_EVENTS => "num_events",
        rtype::NUM_PROCS => "num_procs",
        rtype::NUM_TASKS => "num_tasks",
        rtype::NUM_EVENT_TYPES => "num_event_types",
        rtype::START_TIME => "start_time",
        rtype::END_TIME => "end_time",
        rtype::NUM_CYCLES => "num_cycles",
        rtype::EVENT_DESC => "event_desc",
        rtype::EVENT_FORMAT => "event_format",
        rtype::ROLLOVER => "rollover",
        rtype::STATE_DEF => "state_def",
        rtype::MESSAGE_DEF => "message_def",
        rtype::PROCESS_DEF => "process_def",
        rtype::SEND => "send",
        rtype::RECV => "recv",
        t if t >= 0 => "event",
        t if t > rtype::SEND => "header",
        _ => "system",
    }
}

fn opt<T: Display>(v: Option<T>) -> String {
    v.map_or_else(|| "none".to_string(), |v| v.to_string())
}

impl Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "format: ALOG")?;
        writeln!(
            f,
            "records: {} ({} header, {} events)",
            self.records, self.header_records, self.event_records
        )?;
        write!(f, "processes: {}", self.processes)?;
        if let Some((a, b)) = self.process_range {
            write!(f, " ({a}..{b})")?;
        }
        writeln!(f, "; declared (-3): {}", opt(self.declared_processes))?;
        writeln!(f, "events declared (-2): {}", opt(self.declared_events))?;
        match (self.time_range_us, self.time_range_s()) {
            (Some((a, b)), Some((sa, sb))) => {
                writeln!(f, "time range: {a} .. {b} us ({sa} .. {sb} s)")?
            }
            _ => writeln!(f, "time range: none (no events)")?,
        }
        writeln!(
            f,
            "declared times (-6, -7): {} .. {} us",
            opt(self.declared_times_us.0),
            opt(self.declared_times_us.1)
        )?;
        writeln!(f, "rollover (-11): {} us", self.rollover_us)?;
        writeln!(f, "state definitions: {}", self.state_defs)?;
        writeln!(f, "messages: {} sends, {} receives", self.sends, self.recvs)?;
        writeln!(f, "header before events: {}", yes(self.header_first))?;
        writeln!(f, "events in time order: {}", yes(self.time_sorted))?;
        writeln!(f, "records per type:")?;
        for (t, n) in &self.per_type {
            writeln!(f, "  {t:>6} {:<16} {n}", type_name(*t))?;
        }
        Ok(())
    }
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// Counts and ranges of a file.
///
/// ```
/// let text = b"-3 0 0 2 0 0\n-13 0 1 2 0 0 red Work\n1 0 0 0 0 10 \n2 1 0 0 0 5 \n";
/// let s = alog_format::dump::summary(&alog_format::AlogFile::parse(text)?);
/// assert_eq!((s.records, s.header_records, s.event_records), (4, 2, 2));
/// assert_eq!((s.declared_processes, s.processes, s.state_defs), (Some(2), 2, 1));
/// assert!(s.header_first && !s.time_sorted); // 10 µs, then 5 µs
/// # Ok::<(), alog_format::Error>(())
/// ```
pub fn summary(f: &AlogFile) -> Summary {
    let roll = f.rollover();
    let mut per_type = BTreeMap::new();
    let mut procs = BTreeSet::new();
    let mut range: Option<(f64, f64)> = None;
    let (mut header_records, mut event_records) = (0u64, 0u64);
    let (mut state_defs, mut sends, mut recvs) = (0u64, 0u64, 0u64);
    for r in &f.records {
        *per_type.entry(r.etype).or_insert(0u64) += 1;
        if r.is_header() {
            header_records += 1;
        } else {
            event_records += 1;
            procs.insert(r.process);
            let t = r.time_us(roll);
            if t.is_finite() {
                range = Some(match range {
                    None => (t, t),
                    Some((a, b)) => (a.min(t), b.max(t)),
                });
            }
        }
        match r.kind() {
            Kind::StateDef if r.state_def().is_some() => state_defs += 1,
            Kind::Send => sends += 1,
            Kind::Recv => recvs += 1,
            _ => {}
        }
    }
    Summary {
        records: f.records.len() as u64,
        header_records,
        event_records,
        per_type,
        processes: procs.len() as u64,
        process_range: procs.first().zip(procs.last()).map(|(a, b)| (*a, *b)),
        declared_processes: f.header(rtype::NUM_PROCS).map(|r| r.data),
        declared_events: f.header(rtype::NUM_EVENTS).map(|r| r.data),
        state_defs,
        sends,
        recvs,
        rollover_us: roll,
        time_range_us: range,
        declared_times_us: (
            f.header(rtype::START_TIME).map(|r| r.time_us(roll)),
            f.header(rtype::END_TIME).map(|r| r.time_us(roll)),
        ),
        header_first: f.header_first(),
        time_sorted: f.time_sorted(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dump_lines() {
        let f = AlogFile::parse(
            b"-1 0 0 0 0 0 Me\n-13 0 11 12 0 0 yellow:dimple3 BARRIER\n11 1 0 1 0 185910 \n-101 0 0 1 0 326954 99 12\n-9 0 0 1 0 5  Start \"A\"\xff\n",
        )
        .unwrap();
        let l = lines(&f);
        assert_eq!(
            l[0],
            "creator type=-1 process=0 task=0 data=0 cycle=0 timestamp=0 comment=\"Me\""
        );
        assert_eq!(l[1], "state_def type=-13 process=0 task=11 data=12 cycle=0 timestamp=0 comment=\"yellow:dimple3 BARRIER\" start=11 end=12 color=\"yellow\" bitmap=\"dimple3\" name=\"BARRIER\"");
        assert_eq!(l[2], "event type=11 process=1 task=0 data=1 cycle=0 timestamp=185910 comment=\"\" time=0.18591");
        assert_eq!(l[3], "send type=-101 process=0 task=0 data=1 cycle=0 timestamp=326954 comment=\"99 12\" time=0.326954 sender=0 receiver=1 tag=99 size=12");
        assert_eq!(l[4], "event_desc type=-9 process=0 task=0 data=1 cycle=0 timestamp=5 comment=\"Start \\\"A\\\"\\xff\" event=1");
        let s = summary(&f);
        assert_eq!((s.records, s.header_records, s.event_records), (5, 3, 2));
        assert_eq!(s.time_range_us, Some((185910.0, 326954.0)));
        assert_eq!(s.processes, 2);
        assert!(s
            .to_string()
            .contains("time range: 185910 .. 326954 us (0.18591 .. 0.326954 s)"));
    }
}
