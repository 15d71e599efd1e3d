//! Point-to-point patterns (spec/analysis.md §3.2, §5.1–5.3): each message
//! (an arrow) is matched to the innermost MPI call around each of its ends,
//! then Late Sender, Late Sender / Wrong Order and Late Receiver are measured.
//!
//! Memory is bounded by what is in flight: per timeline the MPI calls that may
//! still hold the end of a message not yet resolved, the message ends not yet
//! resolved (an end is resolved once the stream has passed its time, so every
//! call that may hold it has been seen), and Scalasca's buffer of the last 100
//! Late Sender instances per timeline.

use super::calls::Call;
use super::report::{Pattern, Patterns, RawInstance};
use rustc_hash::FxHashMap;
use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, VecDeque};

/// Scalasca's Late Sender buffer per receiving location (`MPI.pattern`,
/// `MPI_LATESENDER_WO`: `BUFFERSIZE = 100`).
pub(crate) const LS_BUFFER: usize = 100;

/// An MPI call that is not a collective, as the message ends need it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CallRec {
    pub start: f64,
    pub end: f64,
    pub call: Call,
    pub category: i32,
    pub path: u32,
    /// Messages received in it and not yet measured.
    open: u32,
    /// `MPI_Waitall`/`MPI_Waitsome`: the largest Late Sender of its messages
    /// (counted once, when the call is done), with that message's send time
    /// and sender.
    best: Option<(RawInstance, f64, i32)>,
    /// `MPI_Waitall`/`MPI_Waitsome`: the largest wait (in or out of the
    /// window), its end and its sender, for the critical path.
    jump: Option<(f64, f64, i32)>,
}

impl CallRec {
    pub fn new(start: f64, end: f64, call: Call, category: i32, path: u32) -> CallRec {
        CallRec {
            start,
            end,
            call,
            category,
            path,
            open: 0,
            best: None,
            jump: None,
        }
    }
}

/// A Late Sender instance in the wrong-order buffer.
#[derive(Debug, Clone, Copy)]
struct LsEntry {
    send_time: f64,
    sender: i32,
    inst: RawInstance,
    /// Its index among the recorded waits, when recording.
    logged: Option<usize>,
}

#[derive(Debug, Default)]
struct Location {
    calls: VecDeque<CallRec>,
    /// The sequence number of `calls[0]`.
    base: u64,
    ls: VecDeque<LsEntry>,
}

/// One end of a message, resolved to the call around it.
#[derive(Debug, Clone, Copy)]
enum Side {
    Pending,
    Outside,
    In {
        enter: f64,
        leave: f64,
        call: Call,
        category: i32,
        path: u32,
        seq: u64,
    },
}

#[derive(Debug, Clone, Copy)]
struct Msg {
    send_time: f64,
    sender: i32,
    recv_time: f64,
    receiver: i32,
    send: Side,
    recv: Side,
}

/// A message end waiting to be resolved, ordered by time.
#[derive(Debug, Clone, Copy)]
struct EndKey {
    time: f64,
    msg: u32,
    send: bool,
}

impl PartialEq for EndKey {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for EndKey {}
impl PartialOrd for EndKey {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for EndKey {
    fn cmp(&self, o: &Self) -> Ordering {
        self.time
            .total_cmp(&o.time)
            .then(self.msg.cmp(&o.msg))
            .then(self.send.cmp(&o.send))
    }
}

/// The point-to-point pass.
#[derive(Debug)]
pub(crate) struct P2p {
    locs: FxHashMap<i32, Location>,
    ends: BinaryHeap<Reverse<EndKey>>,
    msgs: Vec<Msg>,
    free: Vec<u32>,
    pub messages: u64,
    pub outside: u64,
    pub clock_violations: u64,
}

impl P2p {
    pub fn new() -> P2p {
        P2p {
            locs: FxHashMap::default(),
            ends: BinaryHeap::new(),
            msgs: Vec::new(),
            free: Vec::new(),
            messages: 0,
            outside: 0,
            clock_violations: 0,
        }
    }

    /// A call of timeline `loc` that starts at the stream's time `cur`.
    pub fn push_call(&mut self, loc: i32, rec: CallRec, cur: f64, pats: &mut Patterns) {
        self.prune(loc, cur, pats);
        self.locs.entry(loc).or_default().calls.push_back(rec);
    }

    /// A message from `sender` at `send_time` to `receiver` at `recv_time`.
    pub fn push_message(&mut self, sender: i32, send_time: f64, receiver: i32, recv_time: f64) {
        let m = Msg {
            send_time,
            sender,
            recv_time,
            receiver,
            send: Side::Pending,
            recv: Side::Pending,
        };
        let id = match self.free.pop() {
            Some(i) => {
                self.msgs[i as usize] = m;
                i
            }
            None => {
                self.msgs.push(m);
                (self.msgs.len() - 1) as u32
            }
        };
        self.ends.push(Reverse(EndKey {
            time: send_time,
            msg: id,
            send: true,
        }));
        self.ends.push(Reverse(EndKey {
            time: recv_time,
            msg: id,
            send: false,
        }));
    }

    /// The stream reached `cur`: every call starting before it has been seen,
    /// so the message ends before it are resolved.
    pub fn advance(&mut self, cur: f64, pats: &mut Patterns) {
        while let Some(Reverse(e)) = self.ends.peek().copied() {
            if e.time.total_cmp(&cur) != Ordering::Less && cur.is_finite() {
                break;
            }
            self.ends.pop();
            self.resolve(e, pats);
        }
    }

    /// The end of the stream: everything is resolved and committed.
    pub fn finish(&mut self, pats: &mut Patterns) {
        self.advance(f64::INFINITY, pats);
        let locs: Vec<i32> = self.locs.keys().copied().collect();
        for loc in locs {
            self.prune(loc, f64::INFINITY, pats);
        }
    }

    /// The earliest enter of a call some message end may still be measured
    /// in: no wait state ends before it is unknown. The stream is at `cur`:
    /// the calls that no message end can meet any more are dropped first, on
    /// every timeline (a timeline without new calls would hold the bound back).
    pub fn low_bound(&mut self, cur: f64, pats: &mut Patterns) -> f64 {
        let mut low = f64::INFINITY;
        for (&loc, l) in self.locs.iter_mut() {
            prune(loc, l, cur, pats);
            if let Some(c) = l.calls.front() {
                low = low.min(c.start);
            }
        }
        low
    }

    /// Drops the calls of `loc` that no message end can meet any more.
    fn prune(&mut self, loc: i32, cur: f64, pats: &mut Patterns) {
        if let Some(l) = self.locs.get_mut(&loc) {
            prune(loc, l, cur, pats);
        }
    }

    fn resolve(&mut self, e: EndKey, pats: &mut Patterns) {
        let m = self.msgs[e.msg as usize];
        let (loc, t) = if e.send {
            (m.sender, m.send_time)
        } else {
            (m.receiver, m.recv_time)
        };
        let mut side = Side::Outside;
        if let Some(l) = self.locs.get_mut(&loc) {
            // The innermost call around t: the latest-starting one that holds it.
            for (k, c) in l.calls.iter_mut().enumerate().rev() {
                if c.start <= t && t <= c.end {
                    c.open += 1;
                    side = Side::In {
                        enter: c.start,
                        leave: c.end,
                        call: c.call,
                        category: c.category,
                        path: c.path,
                        seq: l.base + k as u64,
                    };
                    break;
                }
            }
        }
        if matches!(side, Side::Outside) {
            self.outside += 1;
        }
        let m = &mut self.msgs[e.msg as usize];
        if e.send {
            m.send = side;
        } else {
            m.recv = side;
        }
        if !matches!(m.send, Side::Pending) && !matches!(m.recv, Side::Pending) {
            let m = *m;
            self.free.push(e.msg);
            self.measure(&m, pats);
        }
    }

    /// A message end in call `seq` of `loc` is measured.
    fn done(&mut self, loc: i32, seq: u64) {
        if let Some(l) = self.locs.get_mut(&loc) {
            if let Some(c) = l.calls.get_mut((seq - l.base) as usize) {
                c.open -= 1;
            }
        }
    }

    /// Late Sender, wrong order and Late Receiver of a message whose both ends
    /// are resolved.
    fn measure(&mut self, m: &Msg, pats: &mut Patterns) {
        if let (Side::In { seq, .. }, Side::Outside) = (m.send, m.recv) {
            self.done(m.sender, seq);
        }
        let Side::In {
            enter: r_enter,
            leave: r_leave,
            call: r_call,
            category: r_cat,
            path: r_path,
            seq,
        } = m.recv
        else {
            return;
        };
        let Side::In {
            enter: s_enter,
            leave: s_leave,
            call: s_call,
            category: s_cat,
            path: s_path,
            seq: s_seq,
        } = m.send
        else {
            self.done(m.receiver, seq);
            return;
        };
        self.done(m.sender, s_seq);
        self.done(m.receiver, seq);
        let Some(l) = self.locs.get_mut(&m.receiver) else {
            return;
        };
        let idx = (seq - l.base) as usize;
        self.messages += 1;
        if m.send_time > m.recv_time {
            self.clock_violations += 1;
        }
        // Wrong order: buffered late senders whose message was sent after this one.
        let send_time = m.send_time;
        l.ls.retain(|e| {
            if e.send_time > send_time {
                pats.add(Pattern::LateSenderWrongOrder, e.inst);
                let sub = if e.sender == m.sender {
                    Pattern::LswoSameSource
                } else {
                    Pattern::LswoDifferentSource
                };
                pats.add(sub, e.inst);
                // The recorded wait is of its most specific pattern.
                pats.relabel(e.logged, sub);
                false
            } else {
                true
            }
        });
        // Late Sender: the receive waits from its enter to the send's enter,
        // at most until it leaves (a clock violation).
        if r_call.blocks_for_receive() {
            let idle = s_enter.min(r_leave) - r_enter;
            if r_call != Call::WaitMany {
                pats.jump(idle, r_enter + idle, m.receiver, m.sender);
            } else if idle > 0.0 {
                let c = &mut l.calls[idx];
                if c.jump.is_none_or(|b| idle > b.0) {
                    c.jump = Some((idle, r_enter + idle, m.sender));
                }
            }
            // The wait [r_enter, r_enter + idle) counts its part inside the
            // window; every one enters the wrong-order buffer, so that the
            // window only clips what the whole trace finds.
            let end = s_enter.min(r_leave);
            if idle > 0.0 {
                let inst = RawInstance::new(
                    m.receiver,
                    (r_enter, r_cat, r_path),
                    r_enter,
                    end,
                    m.sender,
                    s_enter,
                );
                if r_call == Call::WaitMany {
                    let c = &mut l.calls[idx];
                    if c.best.is_none_or(|b| idle > b.0.seconds) {
                        c.best = Some((inst, m.send_time, m.sender));
                    }
                } else {
                    late_sender(pats, l, inst, m.send_time, m.sender);
                }
            }
        }
        // Late Receiver: a blocking send entered before the receive was posted,
        // and still in the send when it was.
        if s_call == Call::BlockingSend && r_call.posts_at_enter() {
            let idle = if s_leave <= r_enter {
                0.0
            } else {
                r_enter - s_enter
            };
            pats.jump(idle, r_enter, m.sender, m.receiver);
            if idle > 0.0 {
                pats.add_wait(
                    Pattern::LateReceiver,
                    RawInstance::new(
                        m.sender,
                        (s_enter, s_cat, s_path),
                        s_enter,
                        r_enter,
                        m.receiver,
                        r_enter,
                    ),
                );
            }
        }
    }
}

/// Drops the calls of timeline `loc` that end before `cur` (all of them at
/// the end, `cur` infinite) and hold no message end still to measure,
/// counting what a multi wait kept for when it is done.
fn prune(loc: i32, l: &mut Location, cur: f64, pats: &mut Patterns) {
    while let Some(front) = l.calls.front() {
        if !(front.end < cur || cur == f64::INFINITY) || front.open > 0 {
            break;
        }
        let c = l.calls.pop_front().expect("checked");
        l.base += 1;
        if let Some((inst, send_time, sender)) = c.best {
            late_sender(pats, l, inst, send_time, sender);
        }
        if let Some((idle, end, sender)) = c.jump {
            pats.jump(idle, end, loc, sender);
        }
    }
}

/// Counts a Late Sender instance and puts it in the wrong-order buffer.
fn late_sender(
    pats: &mut Patterns,
    l: &mut Location,
    inst: RawInstance,
    send_time: f64,
    sender: i32,
) {
    let logged = pats.add_wait(Pattern::LateSender, inst);
    if l.ls.len() == LS_BUFFER {
        l.ls.pop_front();
    }
    l.ls.push_back(LsEntry {
        send_time,
        sender,
        inst,
        logged,
    });
}
