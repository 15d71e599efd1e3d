//! What carries over from one part of a trace to the next: the events still waiting for a partner ([`Partial`]), taken out and put back.

use super::*;

/// An event still waiting for its partner: what carries over from one part of a
/// trace to the next (annotation files store it at each leaf boundary).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Partial {
    /// An open state: its category, line, start time and info in `prim`
    /// (both vertices at the start).
    State {
        /// The state as started.
        prim: Prim,
        /// The caller's tag of the start record (see [`Clog2Drawables::push_at`]).
        origin: u64,
    },
    /// A send waiting for its receive.
    Send {
        /// Tag, sender process line, receiver process line.
        key: [i32; 3],
        /// Send time.
        time: f64,
        /// Sender thread line.
        line: i32,
        /// Message size.
        size: i32,
        /// The caller's tag of the send record.
        origin: u64,
    },
    /// A receive waiting for its send.
    Recv {
        /// Tag, sender process line, receiver process line.
        key: [i32; 3],
        /// Receive time.
        time: f64,
        /// Receiver thread line.
        line: i32,
        /// The caller's tag of the receive record.
        origin: u64,
    },
}

impl Clog2Drawables {
    /// Every event still waiting for its partner, oldest first within each
    /// pairing key, keys in ascending order (a deterministic order).
    pub fn partials(&self) -> Vec<Partial> {
        let mut out = Vec::new();
        let mut keys: Vec<_> = self.states.keys().copied().collect();
        keys.sort_unstable();
        for k in keys {
            for &(_, prim, origin) in self.states[&k].iter() {
                out.push(Partial::State { prim, origin });
            }
        }
        for (map, send) in [(&self.sends, true), (&self.recvs, false)] {
            let mut keys: Vec<_> = map.keys().copied().collect();
            keys.sort_unstable();
            for k in keys {
                for h in map[&k].iter() {
                    let key = [k.0, k.1, k.2];
                    out.push(if send {
                        Partial::Send {
                            key,
                            time: h.time,
                            line: h.line,
                            size: h.size,
                            origin: h.origin,
                        }
                    } else {
                        Partial::Recv {
                            key,
                            time: h.time,
                            line: h.line,
                            origin: h.origin,
                        }
                    });
                }
            }
        }
        out
    }

    /// Replaces the waiting events by `partials` (as [`partials`](Self::partials)
    /// gave them), e.g. to resume pairing in the middle of a trace.
    pub fn restore(&mut self, partials: &[Partial]) {
        self.states.clear();
        self.sends.clear();
        self.recvs.clear();
        for p in partials {
            match *p {
                Partial::State { prim, origin } => push_back(
                    &mut self.states,
                    (prim.category, prim.lines[0]),
                    (prim.times[0], prim, origin),
                ),
                Partial::Send {
                    key,
                    time,
                    line,
                    size,
                    origin,
                } => push_back(
                    &mut self.sends,
                    (key[0], key[1], key[2]),
                    HalfArrow {
                        time,
                        line,
                        size,
                        origin,
                    },
                ),
                Partial::Recv {
                    key,
                    time,
                    line,
                    origin,
                } => push_back(
                    &mut self.recvs,
                    (key[0], key[1], key[2]),
                    HalfArrow {
                        time,
                        line,
                        size: 0,
                        origin,
                    },
                ),
            }
        }
    }
}
