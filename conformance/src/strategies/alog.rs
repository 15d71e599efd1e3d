//! ALOG (spec/alog.md): timestamps, comments, records and whole canonical files.
//!
//! * [`record()`] gives any record: any event type (often a header type, -120 to
//!   19), process, task, data and cycle, a [`timestamp`] and a [`comment`].
//! * [`file()`] gives the canonical bytes (`AlogFile::to_bytes`) of 1 to 39
//!   [`record()`]s and one point event, so that the file parses and converts to
//!   SLOG-2 (`slog2_format::convert::alog_to_slog2`). (ALOG files may be in any order;
//!   the converter sorts them.)

use alog_format::record::{Comment, Record};
use alog_format::AlogFile;
use proptest::prelude::*;
use std::ops::Range;

/// Records per file in [`file()`], before the point event.
pub const RECORDS: Range<usize> = 1..40;

/// The event type of the point event every [`file()`] holds: a plain event type
/// no header record uses.
pub const EVENT_ETYPE: i32 = 1_000_000;

/// A timestamp (microseconds) as writers print them: mostly 32-bit integers,
/// sometimes up to 2^53, any finite value, or values with a fractional part.
pub fn timestamp() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => (0u64..=u32::MAX as u64).prop_map(|v| v as f64),
        1 => (0u64..(1u64 << 53)).prop_map(|v| v as f64),
        1 => any::<f64>().prop_filter("finite", |v| v.is_finite()),
        1 => (0u32..10_000_000, 1u32..1000).prop_map(|(a, b)| a as f64 + 1.0 / b as f64),
    ]
}

/// A comment: none, empty, arbitrary bytes made valid (`Comment::sanitized`),
/// or printable ASCII.
pub fn comment() -> impl Strategy<Value = Option<Comment>> {
    prop_oneof![
        1 => Just(None),
        1 => Just(Some(Comment::default())),
        3 => prop::collection::vec(any::<u8>(), 0..24).prop_map(|b| Some(Comment::sanitized(&b))),
        2 => "[ -~]{0,20}".prop_map(|s| Some(Comment::sanitized(s.as_bytes()))),
    ]
}

/// Any record: an event type that is any number or one of -120 to 19 (the
/// header records and the common events), any process, task and data, a cycle
/// of 0 or any number, a [`timestamp`] and a [`comment`].
pub fn record() -> impl Strategy<Value = Record> {
    (
        prop_oneof![any::<i32>(), -120i32..20],
        any::<i32>(),
        any::<i32>(),
        any::<i32>(),
        prop_oneof![Just(0i32), any::<i32>()],
        timestamp(),
        comment(),
    )
        .prop_map(
            |(etype, process, task, data, cycle, timestamp, comment)| Record {
                comment,
                ..Record::new(etype, process, task, data, cycle, timestamp)
            },
        )
}

/// `n` [`record()`]s.
pub fn records(n: Range<usize>) -> impl Strategy<Value = Vec<Record>> {
    prop::collection::vec(record(), n)
}

/// A point event of type [`EVENT_ETYPE`] in cycle 0 at a [`timestamp`] (its
/// time is finite whatever the roll-over).
pub fn point_event() -> impl Strategy<Value = Record> {
    (record(), timestamp()).prop_map(|(r, timestamp)| Record {
        etype: EVENT_ETYPE,
        cycle: 0,
        timestamp,
        ..r
    })
}

/// A whole file: [`RECORDS`] [`record()`]s with a [`point_event`] inserted at a
/// random position.
pub fn alog_file() -> impl Strategy<Value = AlogFile> {
    (
        records(RECORDS),
        point_event(),
        any::<prop::sample::Index>(),
    )
        .prop_map(|(mut records, event, at)| {
            let i = at.index(records.len() + 1);
            records.insert(i, event);
            AlogFile { records }
        })
}

/// The canonical bytes of an [`alog_file`].
pub fn file() -> impl Strategy<Value = Vec<u8>> {
    alog_file().prop_map(|f| f.to_bytes().expect("writing to memory"))
}

/// A small file with what the real writers do: MPE 1.0 header, colour-less and
/// coloured states, messages, a point event named by -9, events out of time order,
/// TAU-style padded columns, a CRLF line, a blank and a `#` line (not canonical).
pub const SMALL: &str = "-1 0 0 0 0 0 Me
-2 0 0 11 0 0
-3 0 0 2 0 0
-6 0 0 0 0 0
-7 0 0 0 0 120
-9 0 0 9 0 0 Checkpoint
-11 0 0 0 0 0
-13 0 1 2 0 0 red:gray3 Compute
-13 0 3 4 0 0 : Wait
-13 0 5 6 0 0 blue Compute

# a note
1 0 0 0 0 10 start
  1   1 0          0 0         12
-101 0 0 1 0 20 7 64
3 1 0 0 0 21 \r
-102 1 0 0 0 30 7 64
4 1 0 0 0 31 
9 0 0 0 0 40 
2 1 0 0 0 60 
2 0 0 0 0 50 
3 0 0 0 0 70 
2 0 0 0 0 80 
";
