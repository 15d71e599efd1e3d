//! CSV in pipit's event layout, `Timestamp (ns),Event Type,Name,Thread,Process,
//! Attributes`, which pipit's readers build and `pandas.read_csv` loads: `Enter`
//! and `Leave` rows for states, `Instant` rows for events, and for arrows an
//! `Instant` row `MpiSend` on the sender (attributes `receiver`, `msg_length`,
//! `msg_tag`) and `MpiRecv` on the receiver (`sender`, ...), as pipit's MPI
//! analyses (communication matrix, message histogram) expect. Timestamps are
//! whole nanoseconds from the start of the export; `Process` is the timeline's
//! first row value (the rank in the process view), `Thread` the track.
//! Attributes are a JSON object of the decoded info values.

use super::{ArgValue, Cat, Sink, Track};
use std::io::{self, Write};

/// A [`Sink`] writing CSV rows to `W`.
#[derive(Debug)]
pub struct PipitCsv<W: Write> {
    out: W,
    from: f64,
}

impl<W: Write> PipitCsv<W> {
    /// A writer to `out`.
    pub fn new(out: W) -> PipitCsv<W> {
        PipitCsv { out, from: 0.0 }
    }

    /// The writer, after [`Sink::finish`].
    pub fn into_inner(self) -> W {
        self.out
    }

    fn ns(&self, t: f64) -> i64 {
        ((t - self.from) * 1e9).round() as i64
    }

    fn row(&mut self, time: f64, kind: &str, name: &str, t: &Track, attrs: &str) -> io::Result<()> {
        writeln!(
            self.out,
            "{},{kind},{},{},{},{}",
            self.ns(time),
            quote(name),
            t.id,
            process(t),
            quote(attrs)
        )
    }
}

fn quote(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn process(t: &Track) -> i64 {
    t.row.first().map_or(0, |&v| i64::from(v))
}

/// The message's size and tag from an arrow's info (`msg_size`, `msg_tag` in
/// MPE's traces).
fn message(cat: &Cat, info: &[u8]) -> (Option<i64>, Option<i64>) {
    let mut size = None;
    let mut tag = None;
    for (k, v) in cat.args(info) {
        if let ArgValue::Int(i) = v {
            let k = k.to_ascii_lowercase();
            if k.contains("size") {
                size = Some(i);
            } else if k.contains("tag") {
                tag = Some(i);
            }
        }
    }
    (size, tag)
}

/// The attributes of an `MpiSend` (`partner` = `receiver`) or `MpiRecv`
/// (`sender`) row: the partner's process, the size and the tag.
fn message_attrs(partner: &str, other: &Track, cat: &Cat, info: &[u8]) -> String {
    let (size, tag) = message(cat, info);
    let or_null = |v: Option<i64>| v.map_or("null".into(), |v| v.to_string());
    format!(
        "{{\"{partner}\": {}, \"msg_length\": {}, \"msg_tag\": {}}}",
        process(other),
        or_null(size),
        or_null(tag)
    )
}

impl<W: Write> Sink for PipitCsv<W> {
    fn start(&mut self, from: f64, _to: f64, _first: f64) -> io::Result<()> {
        self.from = from;
        writeln!(
            self.out,
            "Timestamp (ns),Event Type,Name,Thread,Process,Attributes"
        )
    }

    fn track(&mut self, _t: &Track) -> io::Result<()> {
        Ok(())
    }

    fn enter(&mut self, time: f64, t: &Track, cat: &Cat, info: &[u8]) -> io::Result<()> {
        let attrs = if info.is_empty() {
            String::new()
        } else {
            super::chrome::args_json(cat, info, &[])
        };
        self.row(time, "Enter", &cat.name, t, &attrs)
    }

    fn leave(&mut self, time: f64, t: &Track, cat: &Cat) -> io::Result<()> {
        self.row(time, "Leave", &cat.name, t, "")
    }

    fn instant(&mut self, time: f64, t: &Track, cat: &Cat, info: &[u8]) -> io::Result<()> {
        let attrs = if info.is_empty() {
            String::new()
        } else {
            super::chrome::args_json(cat, info, &[])
        };
        self.row(time, "Instant", &cat.name, t, &attrs)
    }

    fn send(
        &mut self,
        time: f64,
        t: &Track,
        to: &Track,
        _flow: u64,
        cat: &Cat,
        info: &[u8],
    ) -> io::Result<()> {
        let attrs = message_attrs("receiver", to, cat, info);
        self.row(time, "Instant", "MpiSend", t, &attrs)
    }

    fn receive(
        &mut self,
        time: f64,
        t: &Track,
        from: &Track,
        _flow: u64,
        cat: &Cat,
        info: &[u8],
    ) -> io::Result<()> {
        let attrs = message_attrs("sender", from, cat, info);
        self.row(time, "Instant", "MpiRecv", t, &attrs)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}
