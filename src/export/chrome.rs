//! Chrome trace-event JSON (the format Perfetto's UI, `chrome://tracing` and
//! Trace Compass open): states as `B`/`E` pairs, events as `i` instants, arrows
//! as zero-length `X` slices at both ends joined by an `s`/`f` flow. Times are
//! microseconds from the start of the export (three decimals: whole
//! nanoseconds, rounded as the CSV and Perfetto exports round them); the
//! absolute start, in seconds, is `otherData.start_seconds`. `pid` is the
//! timeline's first row value (the rank in the process view), `tid` the track;
//! processes sort by `pid`, a process's tracks by [`Track::sort_key`].

use super::{ArgRef, Cat, Flow, Sink, Track};
use std::fmt::Write as _;
use std::io::{self, Write};

/// A [`Sink`] writing one JSON object to `W` (wrap `W` in a gzip encoder for
/// `.json.gz`).
#[derive(Debug)]
pub struct ChromeJson<W: Write> {
    out: W,
    from: f64,
    first: bool,
    /// The event being written (reused).
    line: String,
}

impl<W: Write> ChromeJson<W> {
    /// A writer to `out`.
    ///
    /// ```
    /// use mpelog::export::{chrome::ChromeJson, Sink};
    /// let mut j = ChromeJson::new(Vec::new());
    /// j.start(1.5, 2.0, 1.5)?;
    /// j.finish()?;
    /// let v: serde_json::Value = serde_json::from_slice(&j.into_inner()).unwrap();
    /// assert_eq!(v["otherData"]["start_seconds"], 1.5);
    /// assert_eq!(v["traceEvents"].as_array().map(Vec::len), Some(0));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn new(out: W) -> ChromeJson<W> {
        ChromeJson {
            out,
            from: 0.0,
            first: true,
            line: String::new(),
        }
    }

    /// The writer, after [`Sink::finish`].
    ///
    /// ```
    /// use mpelog::export::{chrome::ChromeJson, Sink};
    /// let mut j = ChromeJson::new(Vec::new());
    /// j.start(0.0, 1.0, 0.0)?;
    /// j.finish()?;
    /// let bytes = j.into_inner();
    /// assert!(serde_json::from_slice::<serde_json::Value>(&bytes).is_ok()); // a whole JSON document
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn into_inner(self) -> W {
        self.out
    }

    /// Starts an event in `self.line`: the separator and `{`.
    fn open(&mut self) -> &mut String {
        self.line.clear();
        self.line.push_str(if self.first { "\n{" } else { ",\n{" });
        self.first = false;
        &mut self.line
    }

    /// Writes a metadata event (`"ph":"M"`) named `name`, of process `p`
    /// (and thread `tid`), whose one argument `key` has the JSON value that
    /// `value` writes.
    fn metadata(
        &mut self,
        name: &str,
        (p, tid): (i64, Option<u32>),
        key: &str,
        value: impl FnOnce(&mut String),
    ) -> io::Result<()> {
        let line = self.open();
        let _ = write!(line, "\"ph\":\"M\",\"name\":\"{name}\",\"pid\":{p}");
        if let Some(id) = tid {
            let _ = write!(line, ",\"tid\":{id}");
        }
        let _ = write!(line, ",\"args\":{{\"{key}\":");
        value(line);
        line.push('}');
        self.close()
    }

    /// Ends the event in `self.line` and writes it.
    fn close(&mut self) -> io::Result<()> {
        self.line.push('}');
        self.out.write_all(self.line.as_bytes())
    }

    /// Writes `"ts":T,"pid":P,"tid":I` of an event at `time` on `t`.
    /// The time is `round((time − from) × 10⁹)` nanoseconds, written as
    /// microseconds with three decimals (the nanoseconds CSV and Perfetto
    /// write), by integer formatting.
    fn place(line: &mut String, from: f64, time: f64, t: &Track) {
        let ns = ((time - from) * 1e9).round() as i64;
        let (sign, a) = (if ns < 0 { "-" } else { "" }, ns.unsigned_abs());
        let _ = write!(
            line,
            "\"ts\":{sign}{}.{:03},\"pid\":{},\"tid\":{}",
            a / 1000,
            a % 1000,
            pid(t),
            t.id
        );
    }

    /// One end of an arrow: a zero-length slice (`kind`, with the other end's
    /// track as argument `side`) and the flow event `ph` of `flow` bound to it.
    fn flow_end(&mut self, f: &Flow<'_>, (kind, side): (&str, &str), ph: &str) -> io::Result<()> {
        let Flow {
            time,
            track: t,
            other,
            flow,
            cat,
            info,
        } = *f;
        let from = self.from;
        let line = self.open();
        line.push_str("\"ph\":\"X\",\"dur\":0,\"name\":");
        json_str(line, &cat.name);
        let _ = write!(line, ",\"cat\":\"{kind}\",");
        Self::place(line, from, time, t);
        line.push_str(",\"args\":");
        args_into(line, cat, info, Some((side, Extra::Str(&other.name))));
        self.close()?;
        let line = self.open();
        let _ = write!(line, "{ph},\"id\":{flow},\"name\":");
        json_str(line, &cat.name);
        line.push_str(",\"cat\":\"arrow\",");
        Self::place(line, from, time, t);
        self.close()
    }

    /// A `B` or `i` event (`head` up to the name) of category `cat`.
    fn with_args(
        &mut self,
        head: &str,
        kind: &str,
        time: f64,
        t: &Track,
        cat: &Cat,
        info: &[u8],
    ) -> io::Result<()> {
        let from = self.from;
        let line = self.open();
        line.push_str(head);
        json_str(line, &cat.name);
        let _ = write!(line, ",\"cat\":\"{kind}\",");
        Self::place(line, from, time, t);
        line.push_str(",\"args\":");
        args_into(
            line,
            cat,
            info,
            Some(("category", Extra::Int(i64::from(cat.index)))),
        );
        self.close()
    }
}

/// Appends `s` as a JSON string, control characters as `\u00XX`
/// ([`crate::json_text`], spec/README.md §3, strings in text output).
pub(crate) fn json_str(out: &mut String, s: &str) {
    out.push('"');
    clog2_format::escape::push_escaped(out, s);
    out.push('"');
}

/// An argument added after the info values.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Extra<'a> {
    /// A JSON string.
    Str(&'a str),
    /// A JSON number.
    Int(i64),
}

/// Appends the info values of `info` (and `extra`) as a JSON object.
pub(crate) fn args_into(out: &mut String, cat: &Cat, info: &[u8], extra: Option<(&str, Extra)>) {
    out.push('{');
    let mut first = true;
    let mut key = |out: &mut String, k: &str| {
        if !first {
            out.push(',');
        }
        first = false;
        json_str(out, k);
        out.push(':');
    };
    cat.each_arg(info, |k, v| {
        key(out, k);
        match v {
            ArgRef::Int(i) => {
                let _ = write!(out, "{i}");
            }
            ArgRef::Float(f) if f.is_finite() => {
                let _ = write!(out, "{f:?}");
            }
            ArgRef::Float(f) => json_str(out, &f.to_string()),
            ArgRef::Text(t) => json_str(out, &t),
        }
    });
    if let Some((k, v)) = extra {
        key(out, k);
        match v {
            Extra::Str(s) => json_str(out, s),
            Extra::Int(i) => {
                let _ = write!(out, "{i}");
            }
        }
    }
    out.push('}');
}

fn pid(t: &Track) -> i64 {
    t.row.first().map_or(0, |&v| i64::from(v))
}

impl<W: Write> Sink for ChromeJson<W> {
    fn start(&mut self, from: f64, _to: f64, _first: f64) -> io::Result<()> {
        self.from = from;
        write!(
            self.out,
            "{{\"displayTimeUnit\":\"ns\",\"otherData\":{{\"source\":\"mpelog\",\"start_seconds\":{from:?}}},\"traceEvents\":["
        )
    }

    fn track(&mut self, t: &Track) -> io::Result<()> {
        let (p, id) = (pid(t), t.id);
        let name = if t.lane == 0 {
            t.name.clone()
        } else {
            format!("{} ({})", t.name, t.lane + 1)
        };
        self.metadata("process_name", (p, None), "name", |l| {
            json_str(l, &format!("process {p}"))
        })?;
        self.metadata("thread_name", (p, Some(id)), "name", |l| json_str(l, &name))?;
        self.metadata("process_sort_index", (p, None), "sort_index", |l| {
            let _ = write!(l, "{p}");
        })?;
        let key = t.sort_key();
        self.metadata("thread_sort_index", (p, Some(id)), "sort_index", |l| {
            let _ = write!(l, "{key}");
        })
    }

    fn enter(&mut self, time: f64, t: &Track, cat: &Cat, info: &[u8]) -> io::Result<()> {
        self.with_args("\"ph\":\"B\",\"name\":", "state", time, t, cat, info)
    }

    fn leave(&mut self, time: f64, t: &Track, _cat: &Cat) -> io::Result<()> {
        let from = self.from;
        let line = self.open();
        line.push_str("\"ph\":\"E\",");
        Self::place(line, from, time, t);
        self.close()
    }

    fn instant(&mut self, time: f64, t: &Track, cat: &Cat, info: &[u8]) -> io::Result<()> {
        self.with_args(
            "\"ph\":\"i\",\"s\":\"t\",\"name\":",
            "event",
            time,
            t,
            cat,
            info,
        )
    }

    fn send(&mut self, f: &Flow<'_>) -> io::Result<()> {
        self.flow_end(f, ("send", "to"), "\"ph\":\"s\"")
    }

    fn receive(&mut self, f: &Flow<'_>) -> io::Result<()> {
        self.flow_end(f, ("receive", "from"), "\"ph\":\"f\",\"bp\":\"e\"")
    }

    fn finish(&mut self) -> io::Result<()> {
        writeln!(self.out, "\n]}}")?;
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{compute, rank_track};
    use super::*;

    #[test]
    fn times_are_whole_nanoseconds_as_microseconds() {
        let t = rank_track(3, 7, 0);
        for (time, want) in [
            (10.0, "\"ts\":0.000,"),
            (10.000_001_5, "\"ts\":1.500,"),
            (10.000_000_000_4, "\"ts\":0.000,"),
            (9.999_999_5, "\"ts\":-0.500,"),
            (9.998, "\"ts\":-2000.000,"),
            (11.234_567_891, "\"ts\":1234567.891,"),
        ] {
            let mut line = String::new();
            ChromeJson::<Vec<u8>>::place(&mut line, 10.0, time, &t);
            assert!(line.starts_with(want), "{time}: {line}");
            assert!(line.ends_with("\"pid\":7,\"tid\":3"), "{line}");
        }
    }

    #[test]
    fn strings_escape_as_json_text_escapes_them() {
        for s in [
            "plain",
            "a\"b\\c",
            "tab\there\nnew\r\u{8}\u{c}",
            "\u{1}\u{1f} é \u{7f}",
            "",
        ] {
            let mut out = String::new();
            json_str(&mut out, s);
            assert_eq!(out, crate::json_text::to_string(s), "{s:?}");
            assert_eq!(serde_json::from_str::<String>(&out).unwrap(), s);
        }
    }

    #[test]
    fn float_args_are_json_numbers_or_text_when_not_finite() {
        let cat = compute(&["x=", ", y="], b"EE");
        for (x, y, want) in [
            (1.5, -0.25, r#"{"x":1.5,"y":-0.25,"category":2}"#),
            (f64::INFINITY, 2.0, r#"{"x":"inf","y":2.0,"category":2}"#),
            (
                f64::NAN,
                f64::NEG_INFINITY,
                r#"{"x":"NaN","y":"-inf","category":2}"#,
            ),
        ] {
            let mut info = x.to_be_bytes().to_vec();
            info.extend_from_slice(&f64::to_be_bytes(y));
            let mut out = String::new();
            args_into(&mut out, &cat, &info, Some(("category", Extra::Int(2))));
            assert_eq!(out, want, "{x} {y}");
            assert!(
                serde_json::from_str::<serde_json::Value>(&out).is_ok(),
                "{out}"
            );
        }
    }

    #[test]
    fn a_lane_after_the_first_adds_its_number_to_the_thread_name() {
        // spec/export.md §3.3: lane k > 0 adds ` (k+1)`; lane 0 adds nothing.
        let mut out = ChromeJson::new(Vec::new());
        for lane in [0, 1, 4] {
            out.track(&rank_track(lane, 7, lane)).unwrap();
        }
        let text = String::from_utf8(out.into_inner()).unwrap();
        let names: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("\"thread_name\""))
            .map(|l| {
                l.split("\"args\":{\"name\":")
                    .nth(1)
                    .unwrap()
                    .trim_end_matches(',')
            })
            .collect();
        assert_eq!(
            names,
            [
                "\"world_rank 7\"}}",
                "\"world_rank 7 (2)\"}}",
                "\"world_rank 7 (5)\"}}",
            ]
        );
    }
}
