//! Hand-made CLOG2 traces for the analysis tests (included by them): states
//! and messages at given times, written with our writer, and their analysis
//! through a one-pass conversion, through the SLOG-2 file and through the
//! annotation.
#![allow(dead_code)]

use clog2_format::commtable::{comm_kind, CommEntry, CommTable};
use clog2_format::record::{
    comm_etype, BareEvt, Body, CommEvt, MsgEvt, Record, StateDef, Uuid, RECV_ETYPE, SEND_ETYPE,
};
use clog2_format::{Clog2Writer, FixedBytes, PreambleInfo};
use mpelog::analysis::{self, Options, Pattern, Report};
use std::io::Cursor;

/// One millisecond.
pub const MS: f64 = 1e-3;

/// A trace being made: ranks of MPI_COMM_WORLD, states by name, messages.
pub struct Trace {
    ranks: i32,
    names: Vec<String>,
    body: Vec<Record>,
}

impl Trace {
    pub fn new(ranks: i32) -> Trace {
        Trace {
            ranks,
            names: Vec::new(),
            body: Vec::new(),
        }
    }

    /// The start event of the state `name` (a STATEDEF per name).
    fn etype(&mut self, name: &str) -> i32 {
        let k = match self.names.iter().position(|n| n == name) {
            Some(k) => k,
            None => {
                self.names.push(name.to_string());
                self.names.len() - 1
            }
        };
        400 + 2 * k as i32
    }

    fn bare(&mut self, rank: i32, time: f64, etype: i32) {
        self.body.push(Record::new(
            time,
            rank,
            Body::Bare(BareEvt {
                etype,
                pad: FixedBytes::ZERO,
            }),
        ));
    }

    /// The state `name` on `rank` from `enter` to `leave` (seconds).
    pub fn state(&mut self, rank: i32, name: &str, enter: f64, leave: f64) -> &mut Trace {
        let e = self.etype(name);
        self.bare(rank, enter, e);
        self.bare(rank, leave, e + 1);
        self
    }

    /// The same state on every rank, entered at `enters[r]`, left at `leaves[r]`.
    pub fn collective(&mut self, name: &str, enters: &[f64], leaves: &[f64]) -> &mut Trace {
        for (r, (&a, &b)) in enters.iter().zip(leaves).enumerate() {
            self.state(r as i32, name, a, b);
        }
        self
    }

    fn msg(&mut self, rank: i32, time: f64, etype: i32, partner: i32, tag: i32) {
        self.body.push(Record::new(
            time,
            rank,
            Body::Msg(MsgEvt {
                etype,
                icomm: 0,
                rank: partner,
                tag,
                size: 64,
                pad: FixedBytes::ZERO,
            }),
        ));
    }

    /// A message from `from` (its send event at `sent`) to `to` (its receive
    /// event at `received`), tag `tag`.
    pub fn message(
        &mut self,
        from: i32,
        sent: f64,
        to: i32,
        received: f64,
        tag: i32,
    ) -> &mut Trace {
        self.msg(from, sent, SEND_ETYPE, to, tag);
        self.msg(to, received, RECV_ETYPE, from, tag);
        self
    }

    /// Only a send event (a message never received).
    pub fn send_only(&mut self, from: i32, sent: f64, to: i32, tag: i32) -> &mut Trace {
        self.msg(from, sent, SEND_ETYPE, to, tag);
        self
    }

    /// The CLOG2 file: WORLD declared by every rank at time 0, the STATEDEFs,
    /// then the records in time order.
    pub fn bytes(&self) -> Vec<u8> {
        let mut info = PreambleInfo::mpe_default(self.ranks);
        info.block_size = 1024;
        let mut w = Clog2Writer::new(Cursor::new(Vec::new()), info).unwrap();
        for r in 0..self.ranks {
            w.push(&Record::new(
                0.0,
                r,
                Body::Comm(CommEvt {
                    etype: comm_etype::WORLD_CREATE,
                    icomm: 0,
                    rank: r,
                    wrank: r,
                    gcomm: Uuid::ZERO,
                }),
            ))
            .unwrap();
        }
        for (k, name) in self.names.iter().enumerate() {
            let start = 400 + 2 * k as i32;
            w.push(&Record::new(
                0.0,
                0,
                Body::StateDef(StateDef {
                    state_id: start / 2,
                    start_etype: start,
                    final_etype: start + 1,
                    pad: FixedBytes::ZERO,
                    color: FixedBytes::from_str_truncated("red"),
                    name: FixedBytes::from_str_truncated(name),
                    format: FixedBytes::ZERO,
                }),
            ))
            .unwrap();
        }
        let mut body = self.body.clone();
        body.sort_by(|a, b| a.time.total_cmp(&b.time));
        for r in &body {
            w.push(r).unwrap();
        }
        let table = CommTable::new(vec![CommEntry {
            gcomm: Uuid::ZERO,
            local_id: 0,
            kind: comm_kind::INTRA,
        }]);
        w.finish(Some(&table)).unwrap().0.into_inner()
    }
}

/// The analysis of a CLOG2 trace converted in one pass.
pub fn of_clog2(bytes: &[u8], opts: &Options) -> Report {
    let mut reader = clog2_format::Clog2Reader::from_slice(bytes).unwrap();
    let sink = mpelog::export::sorted::StartOrder::new();
    let (mut sorted, _) = slog2_format::convert::clog2_into(&mut reader, sink, |_| {}).unwrap();
    analysis::one_pass(&mut sorted, opts).unwrap()
}

/// The analysis of the SLOG-2 conversion of a CLOG2 trace.
pub fn of_slog2(bytes: &[u8], opts: &Options) -> Report {
    let mut reader = clog2_format::Clog2Reader::from_slice(bytes).unwrap();
    let (out, _) = slog2_format::convert::clog2_to_slog2(
        &mut reader,
        Cursor::new(Vec::new()),
        Default::default(),
        |_| {},
    )
    .unwrap();
    let mut r = slog2_format::Slog2Reader::new(Cursor::new(out.into_inner())).unwrap();
    analysis::slog2(&mut r, opts).unwrap()
}

/// The analysis of a CLOG2 trace through its annotation (`mpelog annotate`).
pub fn of_annotation(bytes: &[u8], opts: &Options) -> Report {
    use mpelog_annotate::{annotate, AnnotateOptions, Annotation};
    let mut reader = clog2_format::Clog2Reader::from_slice(bytes).unwrap();
    let head = &bytes[..bytes.len().min(1024)];
    let aopts = AnnotateOptions::default().trace(bytes.len() as u64, head);
    let (idx, _) = annotate(&mut reader, Cursor::new(Vec::new()), aopts, |_| {}).unwrap();
    let mut a = Annotation::new(Cursor::new(idx.into_inner()), Cursor::new(bytes)).unwrap();
    analysis::annotation(&mut a, opts).unwrap()
}

/// Asserts `a == b` to 1 ns.
#[track_caller]
pub fn close(a: f64, b: f64, what: &str) {
    assert!((a - b).abs() <= 1e-9, "{what}: {a} != {b}");
}

/// The analysis of `t` from the CLOG2 file, from its SLOG-2 conversion and
/// from its annotation, which must agree (every pattern, every timeline, the
/// critical path and what was not matched, to 1 ns).
pub fn analyze(t: &Trace, opts: &Options) -> Report {
    let bytes = t.bytes();
    let a = of_clog2(&bytes, opts);
    same(&a, &of_slog2(&bytes, opts));
    same(&a, &of_annotation(&bytes, opts));
    a
}

/// `a` and `b` agree to 1 ns.
#[track_caller]
fn same(a: &Report, b: &Report) {
    for p in Pattern::ALL {
        close(a.seconds(p), b.seconds(p), p.name());
        let (pa, pb) = (a.pattern(p), b.pattern(p));
        if let (Some(pa), Some(pb)) = (pa, pb) {
            assert_eq!(pa.per_timeline.len(), pb.per_timeline.len(), "{}", p.name());
            for (t, s) in &pa.per_timeline {
                close(*s, pb.per_timeline[t], p.name());
            }
        }
    }
    close(
        a.critical_path.seconds,
        b.critical_path.seconds,
        "critical path",
    );
    assert_eq!(a.unmatched, b.unmatched);
}

/// Pattern `p`'s seconds on timeline `t` (0 when none).
pub fn on(r: &Report, p: Pattern, t: i32) -> f64 {
    r.pattern(p)
        .and_then(|x| x.per_timeline.get(&t).copied())
        .unwrap_or(0.0)
}
