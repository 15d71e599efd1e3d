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
    Send(WaitingMessage),
    /// A receive waiting for its send (its `size` is 0: the size is the send's).
    Recv(WaitingMessage),
}

/// A send or receive waiting for its other end (the fields both share).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WaitingMessage {
    /// Tag, sender process line, receiver process line.
    pub key: [i32; 3],
    /// Send or receive time.
    pub time: f64,
    /// The thread line of this end.
    pub line: i32,
    /// Message size (0 for a receive).
    pub size: i32,
    /// The caller's tag of the send or receive record.
    pub origin: u64,
}

impl Partial {
    /// The caller's tag of the record that began the waiting event.
    ///
    /// ```
    /// use slog2_format::convert::{Partial, WaitingMessage};
    /// let m = WaitingMessage { key: [1, 0, 1], time: 0.5, line: 0, size: 8, origin: 40 };
    /// assert_eq!(Partial::Send(m).origin(), 40);
    /// ```
    pub fn origin(&self) -> u64 {
        match *self {
            Partial::State { origin, .. } => origin,
            Partial::Send(m) | Partial::Recv(m) => m.origin,
        }
    }
}

impl Clog2Drawables {
    /// Every event still waiting for its partner, oldest first within each
    /// pairing key, keys in ascending order (a deterministic order).
    ///
    /// ```
    /// use clog2_format::{record::Record, PreambleInfo};
    /// use slog2_format::convert::{Clog2Drawables, Partial};
    /// let mut d = Clog2Drawables::new(&PreambleInfo::mpe_default(2));
    /// d.push_at(&Record::bare(0.5, 0, 0), 3); // a state starts
    /// let open = d.partials();
    /// assert_eq!(open.len(), 1);
    /// assert!(matches!(open[0], Partial::State { origin: 3, .. }));
    /// ```
    pub fn partials(&self) -> Vec<Partial> {
        let mut out = Vec::new();
        let mut keys: Vec<_> = self.states.keys().copied().collect();
        keys.sort_unstable();
        for k in keys {
            for &(_, prim, origin) in self.states[&k].iter() {
                out.push(Partial::State { prim, origin });
            }
        }
        for (map, end) in [
            (&self.sends, Partial::Send as fn(WaitingMessage) -> Partial),
            (&self.recvs, Partial::Recv),
        ] {
            let mut keys: Vec<_> = map.keys().copied().collect();
            keys.sort_unstable();
            for k in keys {
                for h in map[&k].iter() {
                    out.push(end(WaitingMessage {
                        key: [k.0, k.1, k.2],
                        time: h.time,
                        line: h.line,
                        size: h.size,
                        origin: h.keep,
                    }));
                }
            }
        }
        out
    }

    /// Replaces the waiting events by `partials` (as [`partials`](Self::partials)
    /// gave them), e.g. to resume pairing in the middle of a trace.
    ///
    /// ```
    /// use clog2_format::{record::Record, PreambleInfo};
    /// use slog2_format::convert::Clog2Drawables;
    /// let pre = PreambleInfo::mpe_default(2);
    /// let mut first = Clog2Drawables::new(&pre);
    /// first.push(&Record::bare(0.5, 0, 0)); // a state starts in the first half of a trace
    /// // A second pass over the second half picks up what the first left open.
    /// let mut second = Clog2Drawables::new(&pre);
    /// second.restore(&first.partials());
    /// let state = second.push(&Record::bare(1.5, 0, 1)).unwrap();
    /// assert_eq!((state.earliest(), state.latest()), (0.5, 1.5));
    /// ```
    pub fn restore(&mut self, partials: &[Partial]) {
        self.states.clear();
        self.sends.clear();
        self.recvs.clear();
        for p in partials {
            let (map, m) = match *p {
                Partial::State { prim, origin } => {
                    push_back(
                        &mut self.states,
                        (prim.category, prim.lines[0]),
                        (prim.times[0], prim, origin),
                    );
                    continue;
                }
                Partial::Send(m) => (&mut self.sends, m),
                Partial::Recv(m) => (&mut self.recvs, m),
            };
            let half = HalfArrow {
                time: m.time,
                line: m.line,
                size: m.size,
                keep: m.origin,
            };
            push_back(map, (m.key[0], m.key[1], m.key[2]), half);
        }
    }
}
