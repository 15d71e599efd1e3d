//! ALOG records: the line layout (a declarative binrw struct whose fields are
//! decimal tokens), the layouts of the structured comments (state definitions,
//! message tag and size), and the typed view of what a record means.
//!
//! A record is one line:
//!
//! ```text
//! type process task data cycle timestamp [comment]
//! ```
//!
//! Fields are separated by any run of spaces, tabs, vertical tabs, form feeds or
//! carriage returns; a line may start with such separators. The comment is
//! everything after the separators that follow the timestamp, up to the end of the
//! line (trailing blanks kept). A line that ends right after the timestamp has no
//! comment ([`None`]); a line that ends in separators after it has an empty one
//! (`Some`), which the canonical writer writes back as one trailing space.
//!
//! The meaning of a record depends on its type ([`Kind`]): [-100, -1] are header
//! and definition records, ≥ 0 user events, ≤ -101 system events (-101/-102 are
//! message send/receive when their comment holds `tag size`; p4 used -101…-104
//! for clock synchronisation). Records are kept losslessly whatever their type.

use crate::error::Field;
use crate::text;
use binrw::{binrw, BinRead, BinResult, BinWrite};
use std::io::Cursor;

/// Record types with a fixed meaning (spec/alog.md §4).
pub mod rtype {
    /// Creator and date (comment).
    pub const CREATOR: i32 = -1;
    /// Number of event records (data).
    pub const NUM_EVENTS: i32 = -2;
    /// Number of processes (data).
    pub const NUM_PROCS: i32 = -3;
    /// Number of tasks (data).
    pub const NUM_TASKS: i32 = -4;
    /// Number of distinct event types (data; unreliable).
    pub const NUM_EVENT_TYPES: i32 = -5;
    /// Start time of the run (timestamp, µs).
    pub const START_TIME: i32 = -6;
    /// End time of the run (timestamp, µs).
    pub const END_TIME: i32 = -7;
    /// Number of timer cycles (data).
    pub const NUM_CYCLES: i32 = -8;
    /// Event type description: data = event type, comment = name.
    pub const EVENT_DESC: i32 = -9;
    /// Event type printf format: data = event type, comment = format.
    pub const EVENT_FORMAT: i32 = -10;
    /// Clock roll-over point (timestamp, µs; 0 = none).
    pub const ROLLOVER: i32 = -11;
    /// State definition: task = start event, data = end event, comment =
    /// `color[:bitmap] name`.
    pub const STATE_DEF: i32 = -13;
    /// Message definition (documented by nupshot, never implemented).
    pub const MESSAGE_DEF: i32 = -14;
    /// Process name: process = process number, comment = name.
    pub const PROCESS_DEF: i32 = -15;
    /// Internal clock-sync record of MPE 1.0 (never written to files).
    pub const SYNC: i32 = -100;
    /// Message send (process = sender, data = receiver, comment = `tag size`); p4:
    /// clock-sync point.
    pub const SEND: i32 = -101;
    /// Message receive (process = receiver, data = sender, comment = `tag size`);
    /// p4: ping send of a clock-adjustment pair.
    pub const RECV: i32 = -102;
    /// p4: ping reply received (clock adjustment).
    pub const PAIR_A2: i32 = -103;
    /// p4: echo of the partner (clock adjustment).
    pub const PAIR_B1: i32 = -104;
    /// Highest type of the header block range [-100, -1].
    pub const HEADER_MAX: i32 = -1;
    /// Lowest type of the header block range [-100, -1].
    pub const HEADER_MIN: i32 = -100;
}

/// A record's comment: the bytes after the separators that follow the timestamp,
/// up to the end of the line. Any bytes but LF, not starting with a separator, not
/// ending with CR — exactly what a reader can give back, so every `Comment`
/// survives a canonical write and re-read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Comment(Vec<u8>);

/// Why bytes cannot be a [`Comment`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum InvalidComment {
    /// A LF byte (it would end the line).
    #[error("a comment cannot hold a LF byte (at {0})")]
    Newline(usize),
    /// A leading separator (readers skip it).
    #[error("a comment cannot start with a space, tab, VT, FF or CR")]
    LeadingSpace,
    /// A trailing CR (readers remove it as part of a CRLF line end).
    #[error("a comment cannot end with a CR")]
    TrailingCr,
}

impl Comment {
    /// The comment `bytes`, if a reader could give them back.
    ///
    /// # Errors
    ///
    /// [`InvalidComment::Newline`] with the index of the first LF,
    /// [`InvalidComment::LeadingSpace`] when the bytes start with white space (a
    /// reader would drop it), [`InvalidComment::TrailingCr`] when they end with a CR.
    ///
    /// ```
    /// use alog_format::record::{Comment, InvalidComment};
    /// assert_eq!(Comment::new("Compute phase")?.as_bytes(), b"Compute phase");
    /// assert_eq!(Comment::new("\tindented"), Err(InvalidComment::LeadingSpace));
    /// assert_eq!(Comment::new("two\nlines"), Err(InvalidComment::Newline(3)));
    /// assert_eq!(Comment::new("crlf\r"), Err(InvalidComment::TrailingCr));
    /// # Ok::<(), InvalidComment>(())
    /// ```
    pub fn new(bytes: impl Into<Vec<u8>>) -> Result<Comment, InvalidComment> {
        let bytes = bytes.into();
        if let Some(i) = bytes.iter().position(|&b| b == b'\n') {
            return Err(InvalidComment::Newline(i));
        }
        if bytes.first().is_some_and(|&b| text::is_space(b)) {
            return Err(InvalidComment::LeadingSpace);
        }
        if bytes.last() == Some(&b'\r') {
            return Err(InvalidComment::TrailingCr);
        }
        Ok(Comment(bytes))
    }

    /// A comment made from any bytes: LF become spaces, leading separators and
    /// trailing CRs are dropped.
    ///
    /// ```
    /// use alog_format::Comment;
    /// assert_eq!(Comment::sanitized(b" \tline one\nline two\r").as_bytes(), b"line one line two");
    /// ```
    pub fn sanitized(bytes: &[u8]) -> Comment {
        let mut v: Vec<u8> = bytes
            .iter()
            .map(|&b| if b == b'\n' { b' ' } else { b })
            .collect();
        while v.last() == Some(&b'\r') {
            v.pop();
        }
        let start = v
            .iter()
            .position(|&b| !text::is_space(b))
            .unwrap_or(v.len());
        v.drain(..start);
        Comment(v)
    }

    /// The bytes.
    ///
    /// ```
    /// assert_eq!(alog_format::Comment::new("Work")?.as_bytes(), b"Work");
    /// # Ok::<(), alog_format::record::InvalidComment>(())
    /// ```
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The bytes, owned.
    ///
    /// ```
    /// assert_eq!(alog_format::Comment::new("Work")?.into_bytes(), b"Work".to_vec());
    /// # Ok::<(), alog_format::record::InvalidComment>(())
    /// ```
    pub fn into_bytes(self) -> Vec<u8> {
        self.0
    }

    /// The text, lossily decoded.
    ///
    /// ```
    /// assert_eq!(alog_format::Comment::sanitized(b"caf\xc3\xa9 \xff").text(), "café \u{fffd}");
    /// ```
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0).into_owned()
    }

    /// Whether the comment has no bytes.
    ///
    /// ```
    /// use alog_format::Comment;
    /// assert!(Comment::sanitized(b"   ").is_empty());
    /// assert!(!Comment::sanitized(b"x").is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Reads the comment: `None` at the end of the line, else the rest after the
/// separators.
#[binrw::parser(reader)]
fn read_comment() -> BinResult<Option<Comment>> {
    Ok(text::tail(reader, binrw::Endian::Little, ())?.map(Comment))
}

/// Writes `" " + comment` when there is one.
#[binrw::writer(writer)]
fn write_comment(c: &Option<Comment>) -> BinResult<()> {
    if let Some(c) = c {
        writer.write_all(b" ")?;
        writer.write_all(&c.0)?;
    }
    Ok(())
}

/// One ALOG record (one line without its line end), as stored.
///
/// Read from a line by [`Record::parse_line`]; written in canonical form (single
/// spaces, shortest numbers, `" comment"` when there is one) by
/// [`Record::to_line`]. The timestamp is kept as a double so that fractions and
/// values beyond 2^32 read as the C readers read them (`%lf`); integral values up
/// to 2^53 (all real files) are exact and written back without a point. A
/// timestamp must be finite for the written line to read back.
#[binrw]
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// Field 1: the record or event type (see [`rtype`] and [`Kind`]).
    #[br(parse_with = text::int, args(Field::Type))]
    #[bw(write_with = text::write_first_int)]
    pub etype: i32,
    /// Field 2: the process (timeline) where the event happened.
    #[br(parse_with = text::int, args(Field::Process))]
    #[bw(write_with = text::write_int)]
    pub process: i32,
    /// Field 3: the task (normally 0); the start event of a `-13` state definition.
    #[br(parse_with = text::int, args(Field::Task))]
    #[bw(write_with = text::write_int)]
    pub task: i32,
    /// Field 4: the integer datum; a count or value in header records, the end
    /// event of a `-13`, the partner process of a `-101`/`-102`.
    #[br(parse_with = text::int, args(Field::Data))]
    #[bw(write_with = text::write_int)]
    pub data: i32,
    /// Field 5: the timer cycle (roll-over count).
    #[br(parse_with = text::int, args(Field::Cycle))]
    #[bw(write_with = text::write_int)]
    pub cycle: i32,
    /// Field 6: the timestamp in microseconds.
    #[br(parse_with = text::number, args(Field::Timestamp))]
    #[bw(write_with = text::write_number)]
    pub timestamp: f64,
    /// The comment, if the line goes on after the timestamp.
    #[br(parse_with = read_comment)]
    #[bw(write_with = write_comment)]
    pub comment: Option<Comment>,
}

impl Record {
    /// A record without comment.
    ///
    /// ```
    /// use alog_format::{AlogFile, Record};
    /// let r = Record::new(-1, 0, 0, 0, 0, 0.0);
    /// assert_eq!(r.comment, None);
    /// let f = AlogFile { records: vec![r] };
    /// assert_eq!(f.to_bytes()?, b"-1 0 0 0 0 0\n");
    /// # Ok::<(), alog_format::Error>(())
    /// ```
    pub fn new(
        etype: i32,
        process: i32,
        task: i32,
        data: i32,
        cycle: i32,
        timestamp: f64,
    ) -> Record {
        Record {
            etype,
            process,
            task,
            data,
            cycle,
            timestamp,
            comment: None,
        }
    }

    /// The same record with a comment.
    ///
    /// ```
    /// use alog_format::{Comment, Record};
    /// let r = Record::new(-13, 0, 1, 2, 0, 0.0).with_comment(Comment::new("red: Compute").unwrap());
    /// assert_eq!(r.to_line(), b"-13 0 1 2 0 0 red: Compute");
    /// # Ok::<(), alog_format::Error>(())
    /// ```
    pub fn with_comment(mut self, comment: Comment) -> Record {
        self.comment = Some(comment);
        self
    }

    /// Parses one line, given without its LF (anything from a LF on is ignored);
    /// trailing CRs are dropped first. On error, gives the 0-based byte position in
    /// the line and what is wrong.
    ///
    /// # Errors
    ///
    /// The 0-based byte position in the line and the [`text::TokenError`] of
    /// the first field that does not read.
    ///
    /// ```
    /// use alog_format::{Field, Record};
    /// let r = Record::parse_line(b"1 0 0 0 0 10.5 a comment\r")?;
    /// assert_eq!((r.etype, r.timestamp), (1, 10.5));
    /// assert_eq!(r.comment_bytes(), b"a comment");
    /// let (at, e) = Record::parse_line(b"1 0 x 0 0 1").unwrap_err();
    /// assert_eq!((at, e.field), (4, Field::Task));
    /// # Ok::<(), (u64, alog_format::text::TokenError)>(())
    /// ```
    pub fn parse_line(line: &[u8]) -> Result<Record, (u64, text::TokenError)> {
        let line = line.split(|&b| b == b'\n').next().unwrap_or(&[]);
        let mut end = line.len();
        while end > 0 && line[end - 1] == b'\r' {
            end -= 1;
        }
        let mut cur = Cursor::new(&line[..end]);
        Record::read_options(&mut cur, binrw::Endian::Little, ()).map_err(|e| {
            let pos = match e.root_cause() {
                binrw::Error::Custom { pos, .. } => *pos,
                _ => 0,
            };
            let err = e
                .custom_err::<text::TokenError>()
                .cloned()
                .unwrap_or_else(|| {
                    // Only token errors can occur reading from memory.
                    text::TokenError {
                        field: Field::Type,
                        problem: crate::error::TokenProblem::Missing,
                        token: String::new(),
                    }
                });
            (pos, err)
        })
    }

    /// Appends the canonical line (without the LF).
    ///
    /// ```
    /// let mut out = b"x ".to_vec();
    /// alog_format::Record::new(1, 0, 0, 0, 0, 10.0).write_line(&mut out);
    /// assert_eq!(out, b"x 1 0 0 0 0 10");
    /// # Ok::<(), alog_format::Error>(())
    /// ```
    pub fn write_line(&self, out: &mut Vec<u8>) {
        let mut cur = Cursor::new(std::mem::take(out));
        cur.set_position(cur.get_ref().len() as u64);
        self.write_options(&mut cur, binrw::Endian::Little, ())
            .expect("writing to memory cannot fail");
        *out = cur.into_inner();
    }

    /// The canonical line (without the LF).
    ///
    /// ```
    /// let line = b"2 3 0 7 0 12.25";
    /// assert_eq!(alog_format::Record::parse_line(line).unwrap().to_line(), line);
    /// # Ok::<(), alog_format::Error>(())
    /// ```
    pub fn to_line(&self) -> Vec<u8> {
        let mut v = Vec::new();
        self.write_line(&mut v);
        v
    }

    /// Whether the type is in the header range [-100, -1].
    ///
    /// ```
    /// use alog_format::Record;
    /// assert!(Record::new(-13, 0, 0, 0, 0, 0.0).is_header());
    /// assert!(!Record::new(-101, 0, 0, 0, 0, 0.0).is_header()); // a system event
    /// assert!(!Record::new(5, 0, 0, 0, 0, 0.0).is_header());
    /// ```
    pub fn is_header(&self) -> bool {
        (rtype::HEADER_MIN..=rtype::HEADER_MAX).contains(&self.etype)
    }

    /// Whether the record is an event (type ≥ 0 or ≤ -101), which the readers
    /// place in time.
    ///
    /// ```
    /// use alog_format::Record;
    /// assert!(Record::new(0, 0, 0, 0, 0, 0.0).is_event());
    /// assert!(Record::new(-102, 0, 0, 0, 0, 0.0).is_event());
    /// assert!(!Record::new(-1, 0, 0, 0, 0, 0.0).is_event());
    /// ```
    pub fn is_event(&self) -> bool {
        !self.is_header()
    }

    /// The real time in microseconds: `cycle × rollover + timestamp`.
    ///
    /// ```
    /// use alog_format::Record;
    /// assert_eq!(Record::new(1, 0, 0, 0, 3, 25.0).time_us(1000.0), 3025.0);
    /// assert_eq!(Record::new(1, 0, 0, 0, 0, 25.0).time_us(1000.0), 25.0);
    /// ```
    pub fn time_us(&self, rollover: f64) -> f64 {
        if self.cycle == 0 {
            self.timestamp
        } else {
            self.cycle as f64 * rollover + self.timestamp
        }
    }

    /// The comment's bytes (empty when there is none).
    ///
    /// ```
    /// let f = alog_format::AlogFile::parse(b"-1 0 0 0 0 0 Me\n1 0 0 0 0 10\n")?;
    /// assert_eq!(f.records[0].comment_bytes(), b"Me");
    /// assert_eq!(f.records[1].comment_bytes(), b""); // none
    /// # Ok::<(), alog_format::Error>(())
    /// ```
    pub fn comment_bytes(&self) -> &[u8] {
        self.comment.as_ref().map_or(&[], |c| c.as_bytes())
    }

    /// What the record means.
    ///
    /// ```
    /// use alog_format::{AlogFile, Kind};
    /// let f = AlogFile::parse(b"-13 0 1 2 0 0 red:gray Work\n-101 0 0 1 0 14 7 64\n-102 1 0 0 0 20 7 64\n1 0 0 0 0 10\n")?;
    /// let kinds: Vec<Kind> = f.records.iter().map(|r| r.kind()).collect();
    /// assert_eq!(kinds, [Kind::StateDef, Kind::Send, Kind::Recv, Kind::Event]);
    ///
    /// // A state definition: start event 1, end event 2, its colour and name.
    /// let d = f.records[0].state_def().unwrap();
    /// assert_eq!((d.start, d.end, &d.text.name[..]), (1, 2, &b"Work"[..]));
    ///
    /// // The receive names its sender in the data field: 0 sent to 1.
    /// let m = f.records[2].message().unwrap();
    /// assert_eq!((m.send, m.sender, m.receiver, m.tag, m.size), (false, 0, 1, 7, 64));
    /// assert!(f.records[3].message().is_none());
    /// # Ok::<(), alog_format::Error>(())
    /// ```
    pub fn kind(&self) -> Kind {
        match self.etype {
            t if t >= 0 => Kind::Event,
            rtype::CREATOR => Kind::Creator,
            rtype::NUM_EVENTS => Kind::NumEvents,
            rtype::NUM_PROCS => Kind::NumProcs,
            rtype::NUM_TASKS => Kind::NumTasks,
            rtype::NUM_EVENT_TYPES => Kind::NumEventTypes,
            rtype::START_TIME => Kind::StartTime,
            rtype::END_TIME => Kind::EndTime,
            rtype::NUM_CYCLES => Kind::NumCycles,
            rtype::EVENT_DESC => Kind::EventDesc,
            rtype::EVENT_FORMAT => Kind::EventFormat,
            rtype::ROLLOVER => Kind::Rollover,
            rtype::STATE_DEF => Kind::StateDef,
            rtype::MESSAGE_DEF => Kind::MessageDef,
            rtype::PROCESS_DEF => Kind::ProcessDef,
            rtype::SEND if self.message_text().is_some() => Kind::Send,
            rtype::RECV if self.message_text().is_some() => Kind::Recv,
            t if t > rtype::SEND => Kind::OtherHeader,
            _ => Kind::System,
        }
    }

    /// The state definition of a `-13` record whose comment has a colouring word
    /// and a non-empty name (as upshot requires).
    ///
    /// ```
    /// let f = alog_format::AlogFile::parse(b"-13 0 1 2 0 0 red:gray Work\n-13 0 3 4 0 0 red\n")?;
    /// let d = f.records[0].state_def().unwrap();
    /// assert_eq!((d.start, d.end, &d.text.name[..]), (1, 2, &b"Work"[..]));
    /// assert!(f.records[1].state_def().is_none()); // no name
    /// # Ok::<(), alog_format::Error>(())
    /// ```
    pub fn state_def(&self) -> Option<StateDef> {
        if self.etype != rtype::STATE_DEF {
            return None;
        }
        let text = StateDefText::parse(self.comment_bytes())?;
        Some(StateDef {
            process: self.process,
            start: self.task,
            end: self.data,
            text,
        })
    }

    /// Tag and size of a `-101`/`-102` record whose comment starts with two
    /// integers.
    ///
    /// ```
    /// let f = alog_format::AlogFile::parse(b"-101 0 0 1 0 10 7 64\n-101 0 0 1 0 20 hello\n")?;
    /// let m = f.records[0].message_text().unwrap();
    /// assert_eq!((m.tag, m.size), (7, 64));
    /// assert!(f.records[1].message_text().is_none());
    /// # Ok::<(), alog_format::Error>(())
    /// ```
    pub fn message_text(&self) -> Option<MessageText> {
        if self.etype != rtype::SEND && self.etype != rtype::RECV {
            return None;
        }
        MessageText::parse(self.comment_bytes())
    }

    /// The message of a send or receive record (see [`Record::message_text`]).
    ///
    /// ```
    /// let f = alog_format::AlogFile::parse(b"-101 0 0 1 0 10 7 64\n-102 1 0 0 0 30 7 64\n")?;
    /// let (send, recv) = (f.records[0].message().unwrap(), f.records[1].message().unwrap());
    /// assert!(send.send && !recv.send);
    /// assert_eq!((send.sender, send.receiver), (0, 1));
    /// assert_eq!((recv.sender, recv.receiver), (0, 1)); // seen from the other end
    /// # Ok::<(), alog_format::Error>(())
    /// ```
    pub fn message(&self) -> Option<Message> {
        let m = self.message_text()?;
        let (sender, receiver) = if self.etype == rtype::SEND {
            (self.process, self.data)
        } else {
            (self.data, self.process)
        };
        Some(Message {
            send: self.etype == rtype::SEND,
            sender,
            receiver,
            tag: m.tag,
            size: m.size,
        })
    }
}

/// What a record means, by type (and, for -101/-102, by comment shape).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// -1: creator and date in the comment.
    Creator,
    /// -2: number of event records in `data`.
    NumEvents,
    /// -3: number of processes in `data`.
    NumProcs,
    /// -4: number of tasks in `data`.
    NumTasks,
    /// -5: number of event types in `data` (unreliable).
    NumEventTypes,
    /// -6: start time in `timestamp`.
    StartTime,
    /// -7: end time in `timestamp`.
    EndTime,
    /// -8: number of timer cycles in `data`.
    NumCycles,
    /// -9: `data` = event type, comment = its name.
    EventDesc,
    /// -10: `data` = event type, comment = printf format of its datum.
    EventFormat,
    /// -11: clock roll-over point in `timestamp`.
    Rollover,
    /// -13: state definition (see [`Record::state_def`]).
    StateDef,
    /// -14: message definition (never used by a reader).
    MessageDef,
    /// -15: process name (`process`, comment).
    ProcessDef,
    /// Another type in [-100, -1] (-12, -16 … -100).
    OtherHeader,
    /// -101 with `tag size`: message send.
    Send,
    /// -102 with `tag size`: message receive.
    Recv,
    /// Any other type ≤ -101, including -101/-102 without `tag size` (p4 clock
    /// synchronisation, `clog2alog` messages) and -103/-104: a plain event.
    System,
    /// A user event (type ≥ 0).
    Event,
}

impl Kind {
    /// The short name the dump uses.
    ///
    /// ```
    /// use alog_format::{Kind, Record};
    /// assert_eq!(Record::new(-13, 0, 0, 0, 0, 0.0).kind().name(), "state_def");
    /// assert_eq!(Kind::Event.name(), "event");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Kind::Creator => "creator",
            Kind::NumEvents => "num_events",
            Kind::NumProcs => "num_procs",
            Kind::NumTasks => "num_tasks",
            Kind::NumEventTypes => "num_event_types",
            Kind::StartTime => "start_time",
            Kind::EndTime => "end_time",
            Kind::NumCycles => "num_cycles",
            Kind::EventDesc => "event_desc",
            Kind::EventFormat => "event_format",
            Kind::Rollover => "rollover",
            Kind::StateDef => "state_def",
            Kind::MessageDef => "message_def",
            Kind::ProcessDef => "process_def",
            Kind::OtherHeader => "header",
            Kind::Send => "send",
            Kind::Recv => "recv",
            Kind::System => "system",
            Kind::Event => "event",
        }
    }
}

/// The layout of a `-13` comment: a colouring word (`color[:bitmap]`, either part
/// possibly empty) and the state name (the rest of the line, spaces allowed).
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateDefText {
    /// The colouring word, e.g. `red:vlines3`, `yellow` or `:`.
    #[br(parse_with = text::word)]
    #[bw(write_with = text::write_bytes)]
    pub coloring: Vec<u8>,
    /// The state name, trailing blanks kept.
    #[br(parse_with = text::rest)]
    #[bw(write_with = text::write_spaced)]
    pub name: Vec<u8>,
}

impl StateDefText {
    /// Parses a `-13` comment; `None` when the colouring word or the name is
    /// missing.
    ///
    /// ```
    /// use alog_format::record::StateDefText;
    /// let t = StateDefText::parse(b"red:vlines3 My state").unwrap();
    /// assert_eq!((t.color(), t.bitmap(), &t.name[..]), (&b"red"[..], Some(&b"vlines3"[..]), &b"My state"[..]));
    /// assert_eq!(StateDefText::parse(b"red"), None); // no name
    /// ```
    pub fn parse(comment: &[u8]) -> Option<StateDefText> {
        let t = StateDefText::read_le(&mut Cursor::new(comment)).ok()?;
        (!t.coloring.is_empty() && !t.name.is_empty()).then_some(t)
    }

    /// The colour: the colouring word up to the first `:` (empty = the viewer's
    /// next default colour).
    ///
    /// ```
    /// use alog_format::record::StateDefText;
    /// assert_eq!(StateDefText::parse(b"red:vlines3 Work").unwrap().color(), b"red");
    /// assert_eq!(StateDefText::parse(b":vlines3 Work").unwrap().color(), b""); // the viewer picks one
    /// ```
    pub fn color(&self) -> &[u8] {
        self.coloring.split(|&b| b == b':').next().unwrap_or(&[])
    }

    /// The bitmap (stipple): the colouring word after the first `:`, if any.
    ///
    /// ```
    /// use alog_format::record::StateDefText;
    /// assert_eq!(StateDefText::parse(b"red:vlines3 Work").unwrap().bitmap(), Some(&b"vlines3"[..]));
    /// assert_eq!(StateDefText::parse(b"red Work").unwrap().bitmap(), None);
    /// ```
    pub fn bitmap(&self) -> Option<&[u8]> {
        let i = self.coloring.iter().position(|&b| b == b':')?;
        Some(&self.coloring[i + 1..])
    }
}

/// A state definition: a pair of event types.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateDef {
    /// The defining process (MPE 1.0 writes one definition per process).
    pub process: i32,
    /// The event type that starts the state (the record's `task`).
    pub start: i32,
    /// The event type that ends it (the record's `data`).
    pub end: i32,
    /// Colour, bitmap and name.
    pub text: StateDefText,
}

/// The layout of a `-101`/`-102` comment: tag and size (anything after them is
/// ignored).
#[binrw]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageText {
    /// The message tag.
    #[br(parse_with = text::comment_int)]
    #[bw(write_with = text::write_first_int)]
    pub tag: i32,
    /// The message size in bytes.
    #[br(parse_with = text::comment_int)]
    #[bw(write_with = text::write_int)]
    pub size: i32,
}

impl MessageText {
    /// Parses a message comment; `None` unless it starts with two integers.
    ///
    /// ```
    /// use alog_format::record::MessageText;
    /// let m = MessageText::parse(b"7 1024 and more").unwrap();
    /// assert_eq!((m.tag, m.size), (7, 1024));
    /// assert_eq!(MessageText::parse(b"7"), None);
    /// ```
    pub fn parse(comment: &[u8]) -> Option<MessageText> {
        MessageText::read_le(&mut Cursor::new(comment)).ok()
    }
}

/// A message end: a send or a receive with its partner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Message {
    /// True for the send (-101), false for the receive (-102).
    pub send: bool,
    /// The sending process.
    pub sender: i32,
    /// The receiving process.
    pub receiver: i32,
    /// The tag.
    pub tag: i32,
    /// The size in bytes.
    pub size: i32,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(line: &str) -> Record {
        Record::parse_line(line.as_bytes()).unwrap()
    }

    #[test]
    fn every_writer_shape() {
        // MPE 1.0 / clog2alog, empty comment after the separator.
        let r = rec("1 7 0 0 0 2570401 ");
        assert_eq!(r.comment, Some(Comment::default()));
        assert_eq!(r.to_line(), b"1 7 0 0 0 2570401 ");
        // No comment at all.
        let r = rec("-2 0 0 240 0 0");
        assert_eq!((r.etype, r.data, r.comment.clone()), (-2, 240, None));
        assert_eq!(r.to_line(), b"-2 0 0 240 0 0");
        // p4 mergelogs: two spaces before the comment.
        let r = rec("-1 0 0 0 0 2023363901  P4 May- 9-90");
        assert_eq!(r.comment_bytes(), b"P4 May- 9-90");
        assert_eq!(r.timestamp, 2023363901.0);
        // TAU: right-aligned columns.
        let r = rec(" -2   0 0        593 0          0");
        assert_eq!((r.etype, r.data), (-2, 593));
        let r = rec("  1   3 0         17 0 2028176869");
        assert_eq!(
            (r.etype, r.process, r.data, r.timestamp),
            (1, 3, 17, 2028176869.0)
        );
        // Tabs, CRLF.
        let r = rec("3\t1\t0\t0\t0\t5\tx y \r");
        assert_eq!(r.comment_bytes(), b"x y ");
    }

    #[test]
    fn kinds() {
        assert_eq!(rec("-101 0 0 1 0 326954 99 12").kind(), Kind::Send);
        assert_eq!(rec("-102 1 0 0 0 354801 99 12").kind(), Kind::Recv);
        assert_eq!(rec("-101 0 0 0 0 5").kind(), Kind::System);
        assert_eq!(rec("-101 0 0 0 0 5 sync").kind(), Kind::System);
        assert_eq!(rec("-103 0 0 0 0 5").kind(), Kind::System);
        assert_eq!(rec("-12 0 0 0 0 0").kind(), Kind::OtherHeader);
        assert_eq!(rec("-100 0 0 0 0 0").kind(), Kind::OtherHeader);
        assert_eq!(rec("0 0 0 0 0 0").kind(), Kind::Event);
        let m = rec("-102 1 0 0 0 354801 99 12").message().unwrap();
        assert_eq!(
            (m.sender, m.receiver, m.tag, m.size, m.send),
            (0, 1, 99, 12, false)
        );
    }

    #[test]
    fn state_defs() {
        let d = rec("-13 0 11 12 0 0 yellow:dimple3 BARRIER")
            .state_def()
            .unwrap();
        assert_eq!((d.start, d.end), (11, 12));
        assert_eq!(d.text.color(), b"yellow");
        assert_eq!(d.text.bitmap(), Some(&b"dimple3"[..]));
        assert_eq!(d.text.name, b"BARRIER");
        let d = rec("-13 0 1 2 0 0 : Create random data")
            .state_def()
            .unwrap();
        assert_eq!(
            (d.text.color(), d.text.bitmap()),
            (&b""[..], Some(&b""[..]))
        );
        assert_eq!(d.text.name, b"Create random data");
        let d = rec("-13 0 1 2 0 0 blue task_a").state_def().unwrap();
        assert_eq!((d.text.color(), d.text.bitmap()), (&b"blue"[..], None));
        assert!(rec("-13 0 1 2 0 0 blue").state_def().is_none());
        assert!(rec("-13 0 1 2 0 0").state_def().is_none());
    }

    #[test]
    fn comments() {
        assert!(Comment::new(&b"ok  "[..]).is_ok());
        assert_eq!(Comment::new(&b" x"[..]), Err(InvalidComment::LeadingSpace));
        assert_eq!(Comment::new(&b"x\r"[..]), Err(InvalidComment::TrailingCr));
        assert_eq!(Comment::new(&b"a\nb"[..]), Err(InvalidComment::Newline(1)));
        assert_eq!(Comment::sanitized(b" \ta\nb\r\r").as_bytes(), b"a b");
    }

    #[test]
    fn errors_name_the_column() {
        let (pos, e) = Record::parse_line(b"1 2 3").unwrap_err();
        assert_eq!((pos, e.field), (5, Field::Data));
        let (pos, e) = Record::parse_line(b"1 2 x 4 5 6").unwrap_err();
        assert_eq!((pos, e.field, e.token.as_str()), (4, Field::Task, "x"));
    }
}
