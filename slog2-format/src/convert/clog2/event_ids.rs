//! What a CLOG2 event ID means: its category, its role (a state's start or end,
//! a solo event, a message's send or receive) and the category's topology, as
//! MPE's Java converter decides it (spec/conversion.md §2.1): the preamble's
//! reserved ID ranges give each ID a placeholder category until a STATEDEF or
//! EVENTDEF names it, and the two message IDs belong to the arrow category.
//!
//! These are the pairing rules' first half, kept once: the converter
//! ([`Clog2Drawables`](super::events::Clog2Drawables)) and the annotation crate's
//! window pairing both ask an [`EventIds`].
//!
//! ```
//! use slog2_format::convert::clog2::event_ids::{Defined, EventIds, Role};
//! use slog2_format::types::topology;
//!
//! // MPE's preamble reserves IDs 0..600 for 300 known states (categories 1..=300).
//! let mut ids = EventIds::new(&clog2_format::PreambleInfo::mpe_default(4));
//! assert_eq!(ids.lookup(0), Some((1, Role::Start, topology::STATE)));
//! assert_eq!(ids.lookup(700), None); // outside every range, not defined: dropped
//! let Defined::New(cat) = ids.define_state(700, 701) else { panic!() };
//! assert_eq!(cat, 301); // the first index after the placeholders
//! assert_eq!(ids.lookup(700), Some((cat, Role::Start, topology::STATE)));
//! assert_eq!(ids.lookup(701), Some((cat, Role::Final, topology::STATE)));
//! // A second definition of the same pair names the same category again.
//! assert_eq!(ids.define_state(700, 701), Defined::Existing(cat));
//! // An event definition of a state's ID contradicts it.
//! assert_eq!(ids.define_event(700), Defined::Conflict);
//! ```

use super::events::ARROW_CATEGORY;
use crate::types::topology;
use clog2_format::record::{RECV_ETYPE, SEND_ETYPE};
use clog2_format::PreambleInfo;
use rustc_hash::FxHashMap;

/// What an event ID does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Starts a state.
    Start,
    /// Ends a state.
    Final,
    /// A solo event.
    Solo,
    /// A message's send.
    Send,
    /// A message's receive.
    Recv,
}

/// What a STATEDEF or EVENTDEF did to the ID table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Defined {
    /// Its IDs already meant this category (a placeholder or an earlier
    /// definition), which the definition now names.
    Existing(i32),
    /// Its IDs meant nothing yet: a new category with this index.
    New(i32),
    /// Its IDs already mean something else (Java ignores such a definition).
    Conflict,
}

/// The ranges of event IDs the preamble reserves, giving each ID its placeholder
/// category until a definition names it.
#[derive(Debug, Clone, Copy)]
struct Placeholders {
    known_event_start: i64,
    known_states: i64,
    user_event_start: i64,
    user_states: i64,
    known_solo_start: i64,
    known_solos: i64,
    user_solo_start: i64,
    user_solos: i64,
}

impl Placeholders {
    /// The preamble's ranges (missing values: no range).
    fn new(pre: &PreambleInfo) -> Placeholders {
        let c = |v: Option<i32>| v.unwrap_or(0).max(0) as i64;
        Placeholders {
            known_event_start: pre.known_event_id_start.unwrap_or(0) as i64,
            known_states: c(pre.known_state_id_count),
            user_event_start: pre.user_event_id_start.unwrap_or(0) as i64,
            user_states: c(pre.user_state_id_count),
            known_solo_start: pre.known_solo_event_id_start.unwrap_or(0) as i64,
            known_solos: c(pre.known_solo_event_id_count),
            user_solo_start: pre.user_solo_event_id_start.unwrap_or(0) as i64,
            user_solos: c(pre.user_solo_event_id_count),
        }
    }

    /// The placeholder (category index, role, topology) of an event ID.
    fn lookup(&self, etype: i32) -> Option<(i32, Role, i32)> {
        let e = etype as i64;
        let mut base = 1i64;
        for (start, count) in [
            (self.known_event_start, self.known_states),
            (self.user_event_start, self.user_states),
        ] {
            let off = e - start;
            if off >= 0 && off < 2 * count {
                let role = if off % 2 == 0 {
                    Role::Start
                } else {
                    Role::Final
                };
                return i32::try_from(base + off / 2)
                    .ok()
                    .map(|c| (c, role, topology::STATE));
            }
            base += count;
        }
        for (start, count) in [
            (self.known_solo_start, self.known_solos),
            (self.user_solo_start, self.user_solos),
        ] {
            let off = e - start;
            if off >= 0 && off < count {
                return i32::try_from(base + off)
                    .ok()
                    .map(|c| (c, Role::Solo, topology::EVENT));
            }
            base += count;
        }
        None
    }

    /// The first index after the placeholders.
    fn next_index(&self) -> i64 {
        1 + self.known_states + self.user_states + self.known_solos + self.user_solos
    }
}

/// The meaning of every event ID at one point of a trace: the preamble's
/// placeholders, the message IDs, and what the definitions so far made.
#[derive(Debug, Clone)]
pub struct EventIds {
    placeholders: Placeholders,
    next_index: i64,
    /// Event IDs a definition (or the arrow) gave a category: category, role.
    handlers: FxHashMap<i32, (i32, Role)>,
    /// The topology of each category a definition (or the arrow) made.
    topo: FxHashMap<i32, i32>,
}

impl EventIds {
    /// The meanings at the start of a trace with this preamble.
    ///
    /// ```
    /// use clog2_format::{record::SEND_ETYPE, PreambleInfo};
    /// use slog2_format::{convert::clog2::event_ids::{EventIds, Role}, types::topology};
    /// let ids = EventIds::new(&PreambleInfo::mpe_default(2));
    /// assert_eq!(ids.lookup(SEND_ETYPE), Some((0, Role::Send, topology::ARROW)));
    /// assert_eq!(ids.lookup(0), Some((1, Role::Start, topology::STATE))); // the first placeholder
    /// assert_eq!(ids.lookup(600), None); // no user states reserved
    /// ```
    pub fn new(pre: &PreambleInfo) -> EventIds {
        let mut ids = EventIds {
            placeholders: Placeholders::new(pre),
            next_index: 0,
            handlers: FxHashMap::default(),
            topo: FxHashMap::default(),
        };
        ids.reset();
        ids
    }

    /// Back to the meanings at the start of the trace (keeps the tables' memory).
    ///
    /// ```
    /// use clog2_format::PreambleInfo;
    /// use slog2_format::convert::clog2::event_ids::{Defined, EventIds};
    /// let mut ids = EventIds::new(&PreambleInfo::mpe_default(2));
    /// assert_eq!(ids.define_state(600, 601), Defined::New(301));
    /// assert!(ids.lookup(600).is_some());
    /// ids.reset();
    /// assert_eq!(ids.lookup(600), None);
    /// assert_eq!(ids.define_state(600, 601), Defined::New(301)); // the same index again
    /// ```
    pub fn reset(&mut self) {
        self.next_index = self.placeholders.next_index();
        self.handlers.clear();
        self.handlers
            .insert(SEND_ETYPE, (ARROW_CATEGORY, Role::Send));
        self.handlers
            .insert(RECV_ETYPE, (ARROW_CATEGORY, Role::Recv));
        self.topo.clear();
        self.topo.insert(ARROW_CATEGORY, topology::ARROW);
    }

    /// The (category, role, topology) of `etype`: a definition's (or the
    /// arrow's), else its placeholder's, else `None` (Java drops the event).
    ///
    /// ```
    /// use clog2_format::PreambleInfo;
    /// use slog2_format::{convert::clog2::event_ids::{EventIds, Role}, types::topology};
    /// let mut ids = EventIds::new(&PreambleInfo::mpe_default(2));
    /// assert_eq!(ids.lookup(1), Some((1, Role::Final, topology::STATE))); // a placeholder's end
    /// ids.define_event(5000);
    /// assert_eq!(ids.lookup(5000).map(|(_, role, topo)| (role, topo)), Some((Role::Solo, topology::EVENT)));
    /// ```
    pub fn lookup(&self, etype: i32) -> Option<(i32, Role, i32)> {
        if let Some(&(cat, role)) = self.handlers.get(&etype) {
            let topo = self.topo.get(&cat).copied().unwrap_or(topology::STATE);
            return Some((cat, role, topo));
        }
        self.placeholders.lookup(etype)
    }

    /// The role a definition or the arrow gave `etype` (placeholders have none:
    /// only the arrow's IDs are [`Role::Send`] and [`Role::Recv`]).
    ///
    /// ```
    /// use clog2_format::{record::RECV_ETYPE, PreambleInfo};
    /// use slog2_format::convert::clog2::event_ids::{EventIds, Role};
    /// let mut ids = EventIds::new(&PreambleInfo::mpe_default(2));
    /// assert_eq!(ids.handler_role(RECV_ETYPE), Some(Role::Recv));
    /// assert_eq!(ids.handler_role(0), None); // a placeholder: no handler yet
    /// ids.define_state(0, 1);
    /// assert_eq!(ids.handler_role(0), None); // still the placeholder's category, named
    /// ids.define_state(600, 601);
    /// assert_eq!(ids.handler_role(601), Some(Role::Final));
    /// ```
    pub fn handler_role(&self, etype: i32) -> Option<Role> {
        self.handlers.get(&etype).map(|h| h.1)
    }

    fn new_index(&mut self) -> i32 {
        let i = i32::try_from(self.next_index).unwrap_or(i32::MAX);
        self.next_index += 1;
        i
    }

    /// Takes a STATEDEF whose state starts with `start` and ends with `fin`.
    ///
    /// ```
    /// use clog2_format::PreambleInfo;
    /// use slog2_format::convert::clog2::event_ids::{Defined, EventIds};
    /// let mut ids = EventIds::new(&PreambleInfo::mpe_default(2));
    /// assert_eq!(ids.define_state(0, 1), Defined::Existing(1)); // names the placeholder
    /// assert_eq!(ids.define_state(600, 601), Defined::New(301));
    /// assert_eq!(ids.define_state(600, 3), Defined::Conflict); // IDs of two categories
    /// ```
    pub fn define_state(&mut self, start: i32, fin: i32) -> Defined {
        match (self.lookup(start), self.lookup(fin)) {
            (Some((c1, _, t1)), Some((c2, _, _))) if c1 == c2 && t1 == topology::STATE => {
                self.topo.insert(c1, topology::STATE);
                Defined::Existing(c1)
            }
            (Some(_), Some(_)) => Defined::Conflict,
            _ => {
                let idx = self.new_index();
                self.topo.insert(idx, topology::STATE);
                self.handlers.insert(start, (idx, Role::Start));
                self.handlers.insert(fin, (idx, Role::Final));
                Defined::New(idx)
            }
        }
    }

    /// Takes an EVENTDEF of the solo event `etype`.
    ///
    /// ```
    /// use clog2_format::PreambleInfo;
    /// use slog2_format::convert::clog2::event_ids::{Defined, EventIds};
    /// let mut ids = EventIds::new(&PreambleInfo::mpe_default(2));
    /// let Defined::New(c) = ids.define_event(5000) else { panic!() };
    /// assert_eq!(ids.define_event(5000), Defined::Existing(c));
    /// assert_eq!(ids.define_event(0), Defined::Conflict); // a state's start
    /// ```
    pub fn define_event(&mut self, etype: i32) -> Defined {
        match self.lookup(etype) {
            Some((c, Role::Solo, _)) => {
                self.topo.insert(c, topology::EVENT);
                Defined::Existing(c)
            }
            Some(_) => Defined::Conflict,
            None => {
                let idx = self.new_index();
                self.topo.insert(idx, topology::EVENT);
                self.handlers.insert(etype, (idx, Role::Solo));
                Defined::New(idx)
            }
        }
    }
}
