//! Chrome trace-event JSON (the format Perfetto's UI, `chrome://tracing` and
//! Trace Compass open): states as `B`/`E` pairs, events as `i` instants, arrows
//! as zero-length `X` slices at both ends joined by an `s`/`f` flow. Times are
//! microseconds from the start of the export (three decimals: nanoseconds); the
//! absolute start, in seconds, is `otherData.start_seconds`. `pid` is the
//! timeline's first row value (the rank in the process view), `tid` the track.

use super::{ArgValue, Cat, Sink, Track};
use std::io::{self, Write};

/// A [`Sink`] writing one JSON object to `W` (wrap `W` in a gzip encoder for
/// `.json.gz`).
#[derive(Debug)]
pub struct ChromeJson<W: Write> {
    out: W,
    from: f64,
    first: bool,
}

impl<W: Write> ChromeJson<W> {
    /// A writer to `out`.
    pub fn new(out: W) -> ChromeJson<W> {
        ChromeJson {
            out,
            from: 0.0,
            first: true,
        }
    }

    /// The writer, after [`Sink::finish`].
    pub fn into_inner(self) -> W {
        self.out
    }

    fn ts(&self, t: f64) -> String {
        format!("{:.3}", (t - self.from) * 1e6)
    }

    /// One end of an arrow: a zero-length slice (`kind`, with the other end's
    /// track as argument `side`) and the flow event `ph` of `flow` bound to it.
    fn flow_end(
        &mut self,
        time: f64,
        t: &Track,
        (kind, side, other): (&str, &str, &Track),
        (ph, flow): (&str, u64),
        cat: &Cat,
        info: &[u8],
    ) -> io::Result<()> {
        let (ts, p) = (self.ts(time), pid(t));
        let args = args_json(cat, info, &[(side, string(&other.name))]);
        let name = string(&cat.name);
        self.event(&format!(
            "\"ph\":\"X\",\"dur\":0,\"name\":{name},\"cat\":\"{kind}\",\"ts\":{ts},\"pid\":{p},\"tid\":{},\"args\":{args}",
            t.id
        ))?;
        self.event(&format!(
            "{ph},\"id\":{flow},\"name\":{name},\"cat\":\"arrow\",\"ts\":{ts},\"pid\":{p},\"tid\":{}",
            t.id
        ))
    }

    fn event(&mut self, body: &str) -> io::Result<()> {
        let sep = if self.first { "\n" } else { ",\n" };
        self.first = false;
        write!(self.out, "{sep}{{{body}}}")
    }
}

fn string(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialize")
}

/// The info values of `info` as a JSON object.
pub(crate) fn args_json(cat: &Cat, info: &[u8], extra: &[(&str, String)]) -> String {
    let mut fields: Vec<String> = cat
        .args(info)
        .into_iter()
        .map(|(k, v)| {
            let value = match v {
                ArgValue::Int(i) => i.to_string(),
                ArgValue::Float(f) if f.is_finite() => format!("{f:?}"),
                ArgValue::Float(f) => string(&f.to_string()),
                ArgValue::Text(t) => string(&t),
            };
            format!("{}:{value}", string(&k))
        })
        .collect();
    fields.extend(extra.iter().map(|(k, v)| format!("{}:{v}", string(k))));
    format!("{{{}}}", fields.join(","))
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
        self.event(&format!(
            "\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{p},\"args\":{{\"name\":{}}}",
            string(&format!("process {p}"))
        ))?;
        self.event(&format!(
            "\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{p},\"tid\":{id},\"args\":{{\"name\":{}}}",
            string(&name)
        ))?;
        self.event(&format!(
            "\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":{p},\"tid\":{id},\"args\":{{\"sort_index\":{id}}}"
        ))
    }

    fn enter(&mut self, time: f64, t: &Track, cat: &Cat, info: &[u8]) -> io::Result<()> {
        let body = format!(
            "\"ph\":\"B\",\"name\":{},\"cat\":\"state\",\"ts\":{},\"pid\":{},\"tid\":{},\"args\":{}",
            string(&cat.name),
            self.ts(time),
            pid(t),
            t.id,
            args_json(cat, info, &[("category", cat.index.to_string())])
        );
        self.event(&body)
    }

    fn leave(&mut self, time: f64, t: &Track, _cat: &Cat) -> io::Result<()> {
        let body = format!(
            "\"ph\":\"E\",\"ts\":{},\"pid\":{},\"tid\":{}",
            self.ts(time),
            pid(t),
            t.id
        );
        self.event(&body)
    }

    fn instant(&mut self, time: f64, t: &Track, cat: &Cat, info: &[u8]) -> io::Result<()> {
        let body = format!(
            "\"ph\":\"i\",\"s\":\"t\",\"name\":{},\"cat\":\"event\",\"ts\":{},\"pid\":{},\"tid\":{},\"args\":{}",
            string(&cat.name),
            self.ts(time),
            pid(t),
            t.id,
            args_json(cat, info, &[("category", cat.index.to_string())])
        );
        self.event(&body)
    }

    fn send(
        &mut self,
        time: f64,
        t: &Track,
        to: &Track,
        flow: u64,
        cat: &Cat,
        info: &[u8],
    ) -> io::Result<()> {
        self.flow_end(
            time,
            t,
            ("send", "to", to),
            ("\"ph\":\"s\"", flow),
            cat,
            info,
        )
    }

    fn receive(
        &mut self,
        time: f64,
        t: &Track,
        from: &Track,
        flow: u64,
        cat: &Cat,
        info: &[u8],
    ) -> io::Result<()> {
        self.flow_end(
            time,
            t,
            ("receive", "from", from),
            ("\"ph\":\"f\",\"bp\":\"e\"", flow),
            cat,
            info,
        )
    }

    fn finish(&mut self) -> io::Result<()> {
        writeln!(self.out, "\n]}}")?;
        self.out.flush()
    }
}
