//! Old CLOG (MPE1) records to SLOG-2 drawables, as MPE's Java converter
//! `clogTOslog2` (`logformat.clogTOdrawable`) makes them (spec/conversion.md §5):
//! states from RAWEVENT start/final pairs, arrows from RAWEVENT sends (−101) and
//! receives (−102), one timeline per `procid`, categories from STATEDEFs over
//! placeholders for the MPI and user event pairs MPE1 reserves.
//!
//! Where Java crashes (an event ID nothing declares, a STATEDEF naming the
//! message events, an unknown colour, an unparsable message string), this module
//! counts the case in [`Unmatched`] or takes a stated default, and goes on.

use crate::convert::category::{state_placeholder, CatDef};
use crate::convert::clog2::events::{Unmatched, ARROW_CATEGORY};
use crate::convert::colors;
use crate::convert::pairing::{Message, State, Waiter};
use crate::types::{topology, Category, LineIdMap};
use crate::write::prim::Prim;
use clog2_format::clog::{Body, RawEvent, Record, CONST_ETYPE, RECV_ETYPE, SEND_ETYPE};
use rustc_hash::FxHashMap as HashMap;
use std::collections::{BTreeMap, VecDeque};

/// Number of MPI placeholder states (`MPE_MAX_STATES`): events 1,2 … 359,360.
pub const MPI_PLACEHOLDER_STATES: i32 = 180;
/// First event of the user placeholder states (`CLOG_MAXEVENT`).
pub const USER_FIRST_EVENT: i32 = 500;
/// Number of user placeholder states (`MPE_USER_MAX_STATES`): events 500 … 559.
pub const USER_PLACEHOLDER_STATES: i32 = 30;
/// The first category index after the arrow and the placeholders.
pub const FIRST_NEW_INDEX: i32 = 1 + MPI_PLACEHOLDER_STATES + USER_PLACEHOLDER_STATES;

/// The value Java leaves in a message tag or size the string does not give
/// (`Const.INVALID_int`).
pub const INVALID_INT: i32 = i32::MIN;

/// What an event ID does (spec/conversion.md §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// It starts a state.
    Start,
    /// It ends a state.
    Final,
    /// It is the send end of an arrow.
    Send,
    /// It is the receive end of an arrow.
    Recv,
}

/// Turns old-CLOG records into primitives. Feed records in file order with
/// [`ClogDrawables::push`]; each call returns the primitive the record completes,
/// if any. Primitives come out in increasing end time when the records are in
/// time order (as MPE's merged files are).
#[derive(Debug)]
pub struct ClogDrawables {
    /// Event IDs bound by STATEDEFs (and the message events), over the placeholders.
    handlers: EventBindings,
    cats: BTreeMap<i32, CatDef>,
    next_index: i64,
    fallback: colors::Fallback,
    /// Open state starts per (category, line), oldest first.
    states: HashMap<(i32, i32), VecDeque<f64>>,
    /// Pending sends and receives per (tag, sender line, receiver line).
    sends: HashMap<(i32, i32, i32), VecDeque<Waiter>>,
    recvs: HashMap<(i32, i32, i32), VecDeque<Waiter>>,
    /// How often each category was handed to Java's writer as a STATEDEF's
    /// category (Java counts the open states of each once per time).
    returned: HashMap<i32, u64>,
    /// The category Java's `statedef` variable holds (a conflicting STATEDEF
    /// hands it out again): initially the last placeholder.
    last_statedef: i32,
    unmatched: Unmatched,
    ended: bool,
}

impl Default for ClogDrawables {
    fn default() -> Self {
        Self::new()
    }
}

/// The category and role of each old-CLOG event ID, as MPE1's converter
/// binds them: the send and receive events to the arrow category, the start
/// and final events of each STATEDEF to its state, any other ID to its
/// [`placeholder`]. The converter and the checker both pair through it.
///
/// ```
/// use slog2_format::convert::clog::events::{EventBindings, Role};
/// let mut b = EventBindings::new();
/// assert_eq!(b.lookup(-101), Some((0, Role::Send)));
/// assert_eq!(b.lookup(1), Some((1, Role::Start))); // MPI state 0's placeholder
/// b.bind_state(211, 1, 2);
/// assert_eq!((b.lookup(1), b.lookup(2)), (Some((211, Role::Start)), Some((211, Role::Final))));
/// assert_eq!(b.lookup(400), None);
/// ```
#[derive(Debug, Clone)]
pub struct EventBindings(HashMap<i32, (i32, Role)>);

impl Default for EventBindings {
    fn default() -> Self {
        Self::new()
    }
}

impl EventBindings {
    /// The message events bound; every state event on its placeholder.
    ///
    /// ```
    /// use slog2_format::convert::clog::events::{EventBindings, Role};
    /// let b = EventBindings::new();
    /// assert_eq!(b.lookup(-102), Some((0, Role::Recv))); // the message events are bound
    /// ```
    pub fn new() -> EventBindings {
        let mut map = HashMap::default();
        map.insert(SEND_ETYPE, (ARROW_CATEGORY, Role::Send));
        map.insert(RECV_ETYPE, (ARROW_CATEGORY, Role::Recv));
        EventBindings(map)
    }

    /// Binds a STATEDEF's start and final event IDs to the state `index`
    /// (the final binding wins when the two IDs are the same).
    ///
    /// ```
    /// use slog2_format::convert::clog::events::{EventBindings, Role};
    /// let mut b = EventBindings::new();
    /// b.bind_state(211, 700, 701);
    /// assert_eq!(b.lookup(701), Some((211, Role::Final)));
    /// b.bind_state(212, 702, 702); // one ID for both ends: the final binding wins
    /// assert_eq!(b.lookup(702), Some((212, Role::Final)));
    /// ```
    pub fn bind_state(&mut self, index: i32, start: i32, end: i32) {
        self.0.insert(start, (index, Role::Start));
        self.0.insert(end, (index, Role::Final));
    }

    /// The category index and role of `etype`: its binding, else its
    /// placeholder; `None` for an ID neither names.
    ///
    /// ```
    /// use slog2_format::convert::clog::events::{EventBindings, Role};
    /// let b = EventBindings::new();
    /// assert_eq!(b.lookup(500), Some((181, Role::Start))); // user state 0's placeholder
    /// assert_eq!(b.lookup(-5), None);
    /// ```
    pub fn lookup(&self, etype: i32) -> Option<(i32, Role)> {
        self.0.get(&etype).copied().or_else(|| placeholder(etype))
    }
}

/// The placeholder (category index, role) of an event ID: MPI state `i`
/// (0-based) has events `2i+1`, `2i+2` and index `1+i`; user state `j` has events
/// `500+2j`, `501+2j` and index `181+j` (spec/conversion.md §5 item 1).
///
/// ```
/// use slog2_format::convert::clog::events::{placeholder, Role};
/// assert_eq!(placeholder(1), Some((1, Role::Start)));
/// assert_eq!(placeholder(4), Some((2, Role::Final)));
/// assert_eq!(placeholder(501), Some((181, Role::Final)));
/// assert_eq!(placeholder(0), None);
/// ```
pub fn placeholder(etype: i32) -> Option<(i32, Role)> {
    let role = |off: i32| {
        if off % 2 == 0 {
            Role::Start
        } else {
            Role::Final
        }
    };
    let mpi = etype.checked_sub(1)?;
    if (0..2 * MPI_PLACEHOLDER_STATES).contains(&mpi) {
        return Some((1 + mpi / 2, role(mpi)));
    }
    let user = etype.checked_sub(USER_FIRST_EVENT)?;
    if (0..2 * USER_PLACEHOLDER_STATES).contains(&user) {
        return Some((1 + MPI_PLACEHOLDER_STATES + user / 2, role(user)));
    }
    None
}

/// A CLOG string field as Java reads it for names, colours and message strings:
/// the text before the first NUL, without leading and trailing bytes ≤ space
/// (`String.trim`).
///
/// ```
/// use slog2_format::convert::clog::events::field_text;
/// assert_eq!(field_text(b"  MPI_Send \0stale"), "MPI_Send");
/// assert_eq!(field_text(b"\0"), "");
/// ```
pub fn field_text(field: &[u8]) -> String {
    let b = clog2_format::bytes::c_bytes(field);
    let start = b.iter().position(|&c| c > b' ').unwrap_or(b.len());
    let end = b.iter().rposition(|&c| c > b' ').map_or(start, |e| e + 1);
    String::from_utf8_lossy(&b[start..end]).into_owned()
}

/// The message tag and size of a send or receive string `"<tag> <size>"`:
/// space-separated tokens; a missing or unparsable one is [`INVALID_INT`].
///
/// ```
/// use slog2_format::convert::clog::events::message_params;
/// assert_eq!(message_params(b"7 1024\0"), (7, 1024));
/// let (tag, size) = message_params(b"7\0");
/// assert_eq!(tag, 7);
/// assert_ne!(size, 1024); // missing: Java's INVALID_INT
/// ```
pub fn message_params(string: &[u8]) -> (i32, i32) {
    let text = field_text(string);
    let mut it = text.split(' ').filter(|t| !t.is_empty());
    let mut next = || {
        it.next()
            .and_then(|t| t.parse::<i32>().ok())
            .unwrap_or(INVALID_INT)
    };
    let tag = next();
    let size = next();
    (tag, size)
}

impl ClogDrawables {
    /// Starts a conversion: the arrow category `message` (index 0) bound to events
    /// −101/−102, and the 210 placeholder states (indexes 1 … 210).
    ///
    /// ```
    /// use slog2_format::convert::ClogDrawables;
    /// let d = ClogDrawables::new();
    /// assert!(!d.ended());
    /// assert_eq!(d.unmatched().total_dropped(), 0);
    /// let (categories, maps, _) = d.finish();
    /// assert_eq!(categories[0].name.text(), "message");
    /// assert!(maps.is_empty());
    /// ```
    pub fn new() -> ClogDrawables {
        let mut cats = BTreeMap::new();
        cats.insert(ARROW_CATEGORY, CatDef::arrow());
        let handlers = EventBindings::new();
        let mut returned = HashMap::default();
        returned.insert(ARROW_CATEGORY, 1);
        ClogDrawables {
            handlers,
            cats,
            next_index: FIRST_NEW_INDEX as i64,
            fallback: colors::Fallback::default(),
            states: HashMap::default(),
            sends: HashMap::default(),
            recvs: HashMap::default(),
            returned,
            last_statedef: FIRST_NEW_INDEX - 1,
            unmatched: Unmatched::default(),
            ended: false,
        }
    }

    fn lookup(&self, etype: i32) -> Option<(i32, Role)> {
        self.handlers.lookup(etype)
    }

    fn topology_of(&self, cat: i32) -> i32 {
        self.cats.get(&cat).map_or(topology::STATE, |c| c.topology)
    }

    fn color(&mut self, name: &str) -> [u8; 4] {
        let rgb = colors::lookup(name).unwrap_or_else(|| self.fallback.next_rgb());
        colors::argb(rgb, 255)
    }

    /// Names a state category (a placeholder or a new one) from a STATEDEF.
    fn define(&mut self, index: i32, name: String, color: &str) {
        let argb = self.color(color);
        let c = self
            .cats
            .entry(index)
            .or_insert(CatDef::placeholder(topology::STATE, argb));
        c.name = Some(name);
        c.argb = argb;
    }

    /// Marks a category used; a placeholder no STATEDEF named yet becomes
    /// `UnknownType-N` with a palette colour (Java's `resolveCategory`).
    fn use_category(&mut self, index: i32) {
        let c = self.cats.entry(index).or_insert_with(state_placeholder);
        if c.used {
            return;
        }
        c.used = true;
        if c.name.is_none() {
            c.name = Some(format!("UnknownType-{index}"));
            let rgb = self.fallback.next_rgb();
            if let Some(c) = self.cats.get_mut(&index) {
                c.argb = colors::argb(rgb, 255);
            }
        }
    }

    /// True once ENDLOG was seen (later records are ignored, as Java stops there).
    ///
    /// ```
    /// use clog2_format::clog::{Body, Record};
    /// let mut d = slog2_format::convert::ClogDrawables::new();
    /// assert!(!d.ended());
    /// d.push(&Record::new(0.0, 0, Body::EndLog));
    /// assert!(d.ended());
    /// ```
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// Takes one record; returns the primitive it completes, if any.
    ///
    /// ```
    /// use clog2_format::clog::{Body, RawEvent, Record};
    /// use clog2_format::FixedBytes;
    /// let raw = |t: f64, etype: i32| Record::new(t, 0, Body::Raw(RawEvent {
    ///     etype, data: 0, srcloc: 0, pad: FixedBytes::ZERO, string: FixedBytes::ZERO,
    /// }));
    /// let mut d = slog2_format::convert::ClogDrawables::new();
    /// assert!(d.push(&raw(0.5, 1)).is_none()); // MPI state 0 starts
    /// let state = d.push(&raw(2.0, 2)).unwrap(); // and ends
    /// assert_eq!((state.earliest(), state.latest(), state.category), (0.5, 2.0, 1));
    /// ```
    pub fn push(&mut self, r: &Record) -> Option<Prim> {
        if self.ended {
            return None;
        }
        match &r.body {
            Body::EndLog => {
                self.ended = true;
                None
            }
            Body::StateDef(d) => {
                let name = field_text(&d.description.0);
                let color = field_text(&d.color.0);
                let h1 = self.lookup(d.startetype);
                let h2 = self.lookup(d.endetype);
                match (h1, h2) {
                    (Some((c1, _)), Some((c2, _)))
                        if c1 == c2 && self.topology_of(c1) == topology::STATE =>
                    {
                        self.define(c1, name, &color);
                        self.last_statedef = c1;
                    }
                    // Java prints "**** Error!" (or, for the message events, throws).
                    (Some(_), Some(_)) => self.unmatched.conflicting_definitions += 1,
                    _ => {
                        let idx = i32::try_from(self.next_index).unwrap_or(i32::MAX);
                        self.next_index += 1;
                        self.define(idx, name, &color);
                        self.handlers.bind_state(idx, d.startetype, d.endetype);
                        self.last_statedef = idx;
                    }
                }
                *self.returned.entry(self.last_statedef).or_insert(0) += 1;
                None
            }
            Body::Raw(e) => self.raw(r, e),
            _ => None,
        }
    }

    fn raw(&mut self, r: &Record, e: &RawEvent) -> Option<Prim> {
        if e.etype == CONST_ETYPE || e.etype == 0 {
            return None;
        }
        let Some((cat, role)) = self.lookup(e.etype) else {
            self.unmatched.undeclared_events += 1;
            return None;
        };
        let line = r.procid;
        let state = State {
            category: cat,
            line,
        };
        match role {
            Role::Start => {
                state.start(&mut self.states, r.time);
                None
            }
            Role::Final => {
                let open = state.close(&mut self.states);
                match open {
                    Some(start) => {
                        self.use_category(cat);
                        let topo = self.topology_of(cat);
                        Some(Prim::two(cat, topo, (start, line), (r.time, line), &[]))
                    }
                    None => {
                        self.unmatched.state_finals += 1;
                        None
                    }
                }
            }
            Role::Send | Role::Recv => {
                // Java parses the string only for the message event IDs.
                let (tag, size) = if e.etype == SEND_ETYPE || e.etype == RECV_ETYPE {
                    message_params(&e.string.0)
                } else {
                    (INVALID_INT, INVALID_INT)
                };
                // The partner's rank is the record's data.
                let m = Message {
                    send: role == Role::Send,
                    tag,
                    size,
                    local: line,
                    remote: e.data,
                    time: r.time,
                    line,
                };
                let p = m
                    .pair(&mut self.sends, &mut self.recvs, |size| Waiter {
                        time: r.time,
                        line,
                        size,
                        keep: (),
                    })
                    .map(|a| a.prim(cat, tag));
                if p.is_some() {
                    self.use_category(cat);
                }
                p
            }
        }
    }

    /// What was dropped so far (open states, sends and receives are counted by
    /// [`ClogDrawables::finish`]).
    ///
    /// ```
    /// use clog2_format::clog::{Body, RawEvent, Record};
    /// use clog2_format::FixedBytes;
    /// let raw = |t: f64, etype: i32| Record::new(t, 0, Body::Raw(RawEvent {
    ///     etype, data: 0, srcloc: 0, pad: FixedBytes::ZERO, string: FixedBytes::ZERO,
    /// }));
    /// let mut d = slog2_format::convert::ClogDrawables::new();
    /// d.push(&raw(0.5, 2)); // an end with no start
    /// assert_eq!(d.unmatched().state_finals, 1);
    /// ```
    pub fn unmatched(&self) -> Unmatched {
        self.unmatched
    }

    /// Ends the conversion: counts what is still open, and returns the categories
    /// (every one defined or used; a used placeholder no STATEDEF named is
    /// `UnknownType-N`) and no line-ID maps (Java writes only the identity map,
    /// which the tree writer adds).
    ///
    /// ```
    /// use clog2_format::clog::{Body, RawEvent, Record};
    /// use clog2_format::FixedBytes;
    /// let raw = |t: f64, etype: i32| Record::new(t, 0, Body::Raw(RawEvent {
    ///     etype, data: 0, srcloc: 0, pad: FixedBytes::ZERO, string: FixedBytes::ZERO,
    /// }));
    /// let mut d = slog2_format::convert::ClogDrawables::new();
    /// d.push(&raw(0.5, 1));
    /// d.push(&raw(1.0, 2));
    /// d.push(&raw(1.5, 1)); // left open
    /// let (categories, _, unmatched) = d.finish();
    /// assert!(categories.iter().any(|c| c.name.text() == "UnknownType-1")); // used, never named
    /// assert_eq!(unmatched.state_starts, 1);
    /// ```
    pub fn finish(self) -> (Vec<Category>, Vec<LineIdMap>, Unmatched) {
        let mut u = self.unmatched;
        u.state_starts = self.states.values().map(|q| q.len() as u64).sum();
        u.sends = self.sends.values().map(|q| q.len() as u64).sum();
        u.recvs = self.recvs.values().map(|q| q.len() as u64).sum();
        // Java sums the partial objects over the topologies it handed out: the
        // arrow once (its open sends and receives), and each STATEDEF's category
        // once per STATEDEF.
        let times = |c: i32| self.returned.get(&c).copied().unwrap_or(0);
        u.java_count = times(ARROW_CATEGORY) * (u.sends + u.recvs)
            + self
                .states
                .iter()
                .map(|((c, _), q)| times(*c) * q.len() as u64)
                .sum::<u64>();
        let cats = self
            .cats
            .into_iter()
            .map(|(index, d)| d.into_category(index))
            .collect();
        (cats, Vec::new(), u)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_follow_mpe1_numbering() {
        assert_eq!(placeholder(1), Some((1, Role::Start)));
        assert_eq!(placeholder(2), Some((1, Role::Final)));
        assert_eq!(placeholder(11), Some((6, Role::Start)));
        assert_eq!(placeholder(164), Some((82, Role::Final)));
        assert_eq!(placeholder(360), Some((180, Role::Final)));
        assert_eq!(placeholder(361), None);
        assert_eq!(placeholder(0), None);
        assert_eq!(placeholder(500), Some((181, Role::Start)));
        assert_eq!(placeholder(559), Some((210, Role::Final)));
        assert_eq!(placeholder(560), None);
        assert_eq!(placeholder(i32::MIN), None);
        assert_eq!(placeholder(i32::MAX), None);
    }

    #[test]
    fn strings_read_like_java() {
        assert_eq!(field_text(b"MatMult        \0"), "MatMult");
        assert_eq!(field_text(b" red\0\x15\xfe"), "red");
        assert_eq!(message_params(b"11 8\0\0\0\0\0\0\0\0\0\0\0\0"), (11, 8));
        assert_eq!(message_params(b"  7   -3 \0"), (7, -3));
        assert_eq!(message_params(b"5\0"), (5, INVALID_INT));
        assert_eq!(message_params(b"x 4\0"), (INVALID_INT, 4));
        assert_eq!(message_params(b"\0"), (INVALID_INT, INVALID_INT));
    }
}
