//! The state and message pairing rules of MPE's converters (spec/conversion.md
//! §2.3, spec/slog2.md §16.2), stated once for the CLOG2 converter
//! ([`Clog2Drawables`](super::Clog2Drawables)), the old-CLOG one
//! ([`ClogDrawables`](super::clog::events::ClogDrawables)) and the window
//! queries of the annotation crate, which pair straight from the trace bytes.
//!
//! A state's start event waits on the key (its category, its timeline); a
//! final event closes the oldest start waiting under the same key
//! ([`State`]). A send waits on the key (tag, its own process, the receiver),
//! a receive on (tag, the sender, its own process); a record pairs with the
//! oldest waiting record of the other kind under the same key, or waits
//! itself. The arrow goes
//! from the send to the receive; its size is the send's when the send came
//! first and 0 when the receive did (Java's quirk, kept). Each caller keeps its
//! waiting records in a table of its own ([`Waiting`]) with what it needs to
//! know of them ([`MessageEnd`]).
//!
//! ```
//! use slog2_format::convert::pairing::{Message, MessageEnd};
//! use std::collections::{HashMap, VecDeque};
//!
//! /// A waiting end: time, timeline, size.
//! #[derive(Clone, Copy, Debug, PartialEq)]
//! struct End(f64, i32, i32);
//! impl MessageEnd for End {
//!     fn at(&self) -> (f64, i32) { (self.0, self.1) }
//!     fn size(&self) -> i32 { self.2 }
//! }
//! // Waiting records per key, oldest first (`Waiting` is implemented for such maps).
//! type Table = HashMap<(i32, i32, i32), VecDeque<End>>;
//! let (mut sends, mut recvs) = (Table::new(), Table::new());
//! // Process 0 sends 64 bytes with tag 7 to process 1 at 1 s; 1 receives at 2 s.
//! let send = Message { send: true, tag: 7, size: 64, local: 0, remote: 1, time: 1.0, line: 0 };
//! assert!(send.pair(&mut sends, &mut recvs, |size| End(1.0, 0, size)).is_none());
//! let recv = Message { send: false, tag: 7, size: 0, local: 1, remote: 0, time: 2.0, line: 1 };
//! let a = recv.pair(&mut sends, &mut recvs, |size| End(2.0, 1, size)).unwrap();
//! assert_eq!((a.from, a.to, a.size), ((1.0, 0), (2.0, 1), 64));
//! // A receive logged before its send: the arrow's size is 0.
//! let recv = Message { time: 3.0, ..recv };
//! assert!(recv.pair(&mut sends, &mut recvs, |size| End(3.0, 1, size)).is_none());
//! let a = Message { time: 4.0, ..send }.pair(&mut sends, &mut recvs, |size| End(4.0, 0, size)).unwrap();
//! assert_eq!((a.from, a.to, a.size, a.earlier), ((4.0, 0), (3.0, 1), 0, End(3.0, 1, 0)));
//! ```

use crate::types::topology;
use crate::write::prim::Prim;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, Hash};

/// Records waiting for a partner, per pairing key, oldest first.
pub trait Waiting<K, V> {
    /// Appends `v` to the records waiting under `key`.
    fn push(&mut self, key: K, v: V);
    /// Takes the oldest record waiting under `key`.
    fn pop(&mut self, key: K) -> Option<V>;
}

/// Records waiting per pairing key in a map of queues, oldest first (a key
/// stays when its queue empties), with any hasher.
impl<K: Hash + Eq, V, S: BuildHasher> Waiting<K, V> for HashMap<K, VecDeque<V>, S> {
    fn push(&mut self, key: K, v: V) {
        self.entry(key).or_default().push_back(v);
    }

    fn pop(&mut self, key: K) -> Option<V> {
        self.get_mut(&key).and_then(|q| q.pop_front())
    }
}

/// What the pairing reads of a waiting send or receive.
pub trait MessageEnd {
    /// Its time and timeline: the arrow's end there.
    fn at(&self) -> (f64, i32);
    /// The size it waits with (a send's; 0 for a receive).
    fn size(&self) -> i32;
}

/// A send or receive waiting for its partner: where its end of the arrow
/// lies, the size it waits with, and what its caller keeps of it (`keep`:
/// `()` when nothing).
///
/// ```
/// use slog2_format::convert::pairing::{MessageEnd, Waiter};
/// let w = Waiter { time: 1.5, line: 3, size: 64, keep: 4096_u64 };
/// assert_eq!((w.at(), w.size(), w.keep), ((1.5, 3), 64, 4096));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Waiter<T = ()> {
    /// Its time: the arrow's end there.
    pub time: f64,
    /// Its timeline.
    pub line: i32,
    /// The size it waits with (a send's; 0 for a receive).
    pub size: i32,
    /// What the caller keeps with it (a byte offset, a leaf).
    pub keep: T,
}

impl<T> MessageEnd for Waiter<T> {
    #[inline]
    fn at(&self) -> (f64, i32) {
        (self.time, self.line)
    }

    #[inline]
    fn size(&self) -> i32 {
        self.size
    }
}

/// A send or receive record to pair.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Message {
    /// A send (else a receive).
    pub send: bool,
    /// The message tag.
    pub tag: i32,
    /// The size a send gives (a receive's is not used).
    pub size: i32,
    /// The record's own process (its line in the pairing key).
    pub local: i32,
    /// The other process: a send's receiver, a receive's sender.
    pub remote: i32,
    /// The record's time.
    pub time: f64,
    /// The timeline the arrow's end is drawn on.
    pub line: i32,
}

/// A state's start or final event to pair: its category and timeline, the
/// key it waits on (spec/conversion.md §2.3). Starts and finals pair first in,
/// first out: `S1 S2 E2 E1` gives `[S1, E2]` and `[S2, E1]`. Which info the
/// state keeps (the final's cargo if it has one, else the start's) and what a
/// final with nothing open counts as are the caller's.
///
/// ```
/// use slog2_format::convert::pairing::State;
/// use std::collections::{HashMap, VecDeque};
///
/// // Open starts (their times) per key, oldest first.
/// let mut open: HashMap<(i32, i32), VecDeque<f64>> = HashMap::new();
/// let work = State { category: 3, line: 0 };
/// work.start(&mut open, 1.0); // S1
/// work.start(&mut open, 2.0); // S2
/// State { line: 1, ..work }.start(&mut open, 2.5); // another timeline
/// assert_eq!(work.close(&mut open), Some(1.0)); // E2 closes S1
/// assert_eq!(work.close(&mut open), Some(2.0)); // E1 closes S2
/// assert_eq!(work.close(&mut open), None); // nothing open: the caller counts it
/// assert_eq!(State { line: 1, ..work }.close(&mut open), Some(2.5));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct State {
    /// The state's category index.
    pub category: i32,
    /// The timeline its events are on.
    pub line: i32,
}

impl State {
    /// Makes the start event `start` wait for its final.
    #[inline]
    pub fn start<H, Q: Waiting<(i32, i32), H>>(self, open: &mut Q, start: H) {
        open.push((self.category, self.line), start);
    }

    /// The oldest start a final event closes, if any is open.
    #[inline]
    pub fn close<H, Q: Waiting<(i32, i32), H>>(self, open: &mut Q) -> Option<H> {
        open.pop((self.category, self.line))
    }
}

/// An arrow a record completed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Arrow<H> {
    /// The send's time and timeline.
    pub from: (f64, i32),
    /// The receive's time and timeline.
    pub to: (f64, i32),
    /// The arrow's size: the send's, or 0 when the receive came first.
    pub size: i32,
    /// The waiting record it paired with.
    pub earlier: H,
}

impl Message {
    /// Pairs this record with the oldest waiting record of the other kind
    /// under its key, or makes it wait with `wait(size)` (its own size for a
    /// send, 0 for a receive): the arrow it completes, if any.
    #[inline]
    pub fn pair<H: MessageEnd, Q: Waiting<(i32, i32, i32), H>>(
        self,
        sends: &mut Q,
        recvs: &mut Q,
        wait: impl FnOnce(i32) -> H,
    ) -> Option<Arrow<H>> {
        let at = (self.time, self.line);
        if self.send {
            let key = (self.tag, self.local, self.remote);
            if let Some(h) = recvs.pop(key) {
                // Java's quirk: a receive logged first leaves msg_size 0.
                return Some(Arrow {
                    from: at,
                    to: h.at(),
                    size: 0,
                    earlier: h,
                });
            }
            sends.push(key, wait(self.size));
        } else {
            let key = (self.tag, self.remote, self.local);
            if let Some(h) = sends.pop(key) {
                return Some(Arrow {
                    from: h.at(),
                    to: at,
                    size: h.size(),
                    earlier: h,
                });
            }
            recvs.push(key, wait(0));
        }
        None
    }
}

impl<H> Arrow<H> {
    /// The arrow as a primitive of `category`, with the info MPE's arrow
    /// category reads (`msg_tag=%d, msg_size=%d`: the tag, then the size, as
    /// big-endian 32-bit integers).
    pub fn prim(&self, category: i32, tag: i32) -> Prim {
        let mut info = [0u8; 8];
        info[..4].copy_from_slice(&tag.to_be_bytes());
        info[4..].copy_from_slice(&self.size.to_be_bytes());
        Prim::two(category, topology::ARROW, self.from, self.to, &info)
    }
}
