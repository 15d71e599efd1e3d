//! CSV in pipit's event layout, `Timestamp (ns),Event Type,Name,Thread,Process,
//! Attributes`, which pipit's readers build and `pandas.read_csv` loads: `Enter`
//! and `Leave` rows for states, `Instant` rows for events, and for arrows an
//! `Instant` row `MpiSend` on the sender (attributes `receiver`, `msg_length`,
//! `msg_tag`) and `MpiRecv` on the receiver (`sender`, ...), as pipit's MPI
//! analyses (communication matrix, message histogram) expect. Timestamps are
//! whole nanoseconds from the start of the export; `Process` is the timeline's
//! first row value (the rank in the process view), `Thread` the track.
//! Attributes are a JSON object of the decoded info values.

use super::chrome::args_into;
use super::{ArgRef, Cat, Flow, Sink, Track};
use std::fmt::Write as _;
use std::io::{self, Write};

/// A [`Sink`] writing CSV rows to `W`.
#[derive(Debug)]
pub struct PipitCsv<W: Write> {
    out: W,
    from: f64,
    /// The row and its attributes being written (reused).
    line: String,
    attrs: String,
}

impl<W: Write> PipitCsv<W> {
    /// A writer to `out`.
    ///
    /// ```
    /// use mpelog::export::{pipit::PipitCsv, Sink};
    /// let mut c = PipitCsv::new(Vec::new());
    /// c.start(0.0, 1.0, 0.0)?;
    /// c.finish()?;
    /// assert_eq!(c.into_inner(), b"Timestamp (ns),Event Type,Name,Thread,Process,Attributes\n");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn new(out: W) -> PipitCsv<W> {
        PipitCsv {
            out,
            from: 0.0,
            line: String::new(),
            attrs: String::new(),
        }
    }

    /// The writer, after [`Sink::finish`].
    ///
    /// ```
    /// use mpelog::export::{pipit::PipitCsv, Sink};
    /// let mut c = PipitCsv::new(Vec::new());
    /// c.start(0.0, 1.0, 0.0)?;
    /// c.finish()?;
    /// assert!(c.into_inner().starts_with(b"Timestamp (ns),"));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn into_inner(self) -> W {
        self.out
    }

    fn ns(&self, t: f64) -> i64 {
        nanos(self.from, t)
    }

    /// Writes a row whose attributes are in `self.attrs`.
    fn row(&mut self, time: f64, kind: &str, name: &str, t: &Track) -> io::Result<()> {
        let ns = self.ns(time);
        let line = &mut self.line;
        line.clear();
        let _ = write!(line, "{ns},{kind},");
        quote(line, name);
        let _ = write!(line, ",{},{},", t.id, process(t));
        quote(line, &self.attrs);
        line.push('\n');
        self.out.write_all(line.as_bytes())
    }

    /// A row whose attributes are the info values (none for no info).
    fn with_info(
        &mut self,
        time: f64,
        kind: &str,
        t: &Track,
        cat: &Cat,
        info: &[u8],
    ) -> io::Result<()> {
        self.attrs.clear();
        if !info.is_empty() {
            args_into(&mut self.attrs, cat, info, None);
        }
        self.row(time, kind, &cat.name, t)
    }

    /// An `MpiSend` (`partner` = `receiver`) or `MpiRecv` (`sender`) row.
    fn message(&mut self, f: &Flow<'_>, name: &str, partner: &str) -> io::Result<()> {
        let Flow {
            time,
            track: t,
            other,
            cat,
            info,
            ..
        } = *f;
        let (size, tag) = message(cat, info);
        self.attrs.clear();
        let _ = write!(
            self.attrs,
            "{{\"{partner}\": {}, \"msg_length\": ",
            process(other)
        );
        or_null(&mut self.attrs, size);
        self.attrs.push_str(", \"msg_tag\": ");
        or_null(&mut self.attrs, tag);
        self.attrs.push('}');
        self.row(time, "Instant", name, t)
    }
}

/// Appends `s` as a CSV field: `\` and control characters escaped as in every
/// text output (`\\`, `\u00XX`; spec/README.md §3, strings in text output), then quoted (with `"`
/// doubled) when it holds a comma or a quote.
fn quote(out: &mut String, s: &str) {
    let e = escaped(s);
    if e.contains([',', '"']) {
        out.push('"');
        for (i, part) in e.split('"').enumerate() {
            if i > 0 {
                out.push_str("\"\"");
            }
            out.push_str(part);
        }
        out.push('"');
    } else {
        out.push_str(&e);
    }
}

/// `s` with `\` and control characters escaped as in every text output
/// (`\\`, `\u00XX`): a CSV field's text before its quoting.
fn escaped(s: &str) -> std::borrow::Cow<'_, str> {
    if !s
        .chars()
        .any(|c| c == '\\' || clog2_format::escape::is_control(c))
    {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut e = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\\' => e.push_str("\\\\"),
            c if clog2_format::escape::is_control(c) => {
                let _ = clog2_format::escape::write_control(&mut e, c as u8);
            }
            c => e.push(c),
        }
    }
    std::borrow::Cow::Owned(e)
}

/// `Timestamp (ns)` of time `t`: whole nanoseconds after `from`.
pub(super) fn nanos(from: f64, t: f64) -> i64 {
    ((t - from) * 1e9).round() as i64
}

fn or_null(out: &mut String, v: Option<i64>) {
    match v {
        Some(v) => {
            let _ = write!(out, "{v}");
        }
        None => out.push_str("null"),
    }
}

pub(super) fn process(t: &Track) -> i64 {
    t.row.first().map_or(0, |&v| i64::from(v))
}

/// Whether `k` holds `word`, in any case.
fn holds(k: &str, word: &str) -> bool {
    k.as_bytes()
        .windows(word.len())
        .any(|w| w.eq_ignore_ascii_case(word.as_bytes()))
}

/// The message's size and tag from an arrow's info (`msg_size`, `msg_tag` in
/// MPE's traces).
pub(super) fn message(cat: &Cat, info: &[u8]) -> (Option<i64>, Option<i64>) {
    let mut size = None;
    let mut tag = None;
    cat.each_arg(info, |k, v| {
        if let ArgRef::Int(i) = v {
            if holds(k, "size") {
                size = Some(i);
            } else if holds(k, "tag") {
                tag = Some(i);
            }
        }
    });
    (size, tag)
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
        self.with_info(time, "Enter", t, cat, info)
    }

    fn leave(&mut self, time: f64, t: &Track, cat: &Cat) -> io::Result<()> {
        self.attrs.clear();
        self.row(time, "Leave", &cat.name, t)
    }

    fn instant(&mut self, time: f64, t: &Track, cat: &Cat, info: &[u8]) -> io::Result<()> {
        self.with_info(time, "Instant", t, cat, info)
    }

    fn send(&mut self, f: &Flow<'_>) -> io::Result<()> {
        self.message(f, "MpiSend", "receiver")
    }

    fn receive(&mut self, f: &Flow<'_>) -> io::Result<()> {
        self.message(f, "MpiRecv", "sender")
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{compute, rank_track};
    use super::*;

    #[test]
    fn rows_are_whole_nanoseconds_from_the_start_with_quoted_fields() {
        // A name with a comma, quotes, a tab and a backslash; an enter with
        // info, a leave before the start, an instant without info.
        let t = rank_track(3, 7, 0);
        let mut cat = compute(&["x="], b"E");
        cat.name = "a,\"b\"\tc\\".into();
        let mut out = PipitCsv::new(Vec::new());
        out.start(10.0, 20.0, 10.0).unwrap();
        out.enter(10.000_001_5, &t, &cat, &1.5f64.to_be_bytes())
            .unwrap();
        out.leave(9.999_999_5, &t, &cat).unwrap();
        out.instant(11.234_567_891, &t, &cat, &[]).unwrap();
        out.finish().unwrap();
        let text = String::from_utf8(out.into_inner()).unwrap();
        let want = [
            "Timestamp (ns),Event Type,Name,Thread,Process,Attributes",
            r##"1500,Enter,"a,""b""\u0009c\\",3,7,"{""x"":1.5}""##,
            r##"-500,Leave,"a,""b""\u0009c\\",3,7,"##,
            r##"1234567891,Instant,"a,""b""\u0009c\\",3,7,"##,
        ];
        assert_eq!(text.lines().collect::<Vec<_>>(), want);
    }
    #[test]
    fn a_message_has_its_size_and_tag_by_label() {
        let cat = compute(&["msg_tag=", ", msg_size="], b"dd");
        let info = [0, 0, 0, 9, 0, 0, 1, 0];
        assert_eq!(message(&cat, &info), (Some(256), Some(9)));
        assert_eq!(message(&cat, &[]), (None, None));
    }

    #[test]
    fn finish_flushes_the_writer() {
        super::super::assert_finish_flushes(PipitCsv::new, |t| &t.out);
    }
}
