//! CLOG2 events to SLOG-2 drawables, as MPE's Java converter (`clog2TOslog2`)
//! makes them (spec/conversion.md §2.1–2.3): states from start/final event pairs,
//! arrows from matched send/receive records, solo events, categories from the
//! definitions, line IDs from communicator, rank and thread.
//!
//! Where Java crashes (an event ID nothing declares, a timeline no COMMEVT
//! declared, a definition that contradicts an earlier one), this module counts the
//! case in [`Unmatched`] and goes on.

use super::event_ids::{Defined, EventIds, Role};
use crate::convert::category::CatDef;
use crate::convert::colors;
use crate::convert::names::{clog2_field, unknown_type};
use crate::convert::pairing::{Message, State, Waiter, Waiting};
use crate::types::{topology, Category, JStr, LineIdMap, LineIdRow};
use crate::write::prim::Prim;
use clog2_format::record::{rectype, Body, Record};
use clog2_format::{PreambleInfo, RecordRef};
use rustc_hash::FxHashMap as HashMap;
use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, VecDeque};

mod legend;
pub use legend::*;

mod carry;
pub use carry::*;

/// What could not be paired or placed, per kind. Nothing here stops a conversion.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Unmatched {
    /// State start events never closed by a final event (dropped, as Java does).
    pub state_starts: u64,
    /// State final events with no open start on their timeline (dropped; Java
    /// prints a stack trace and goes on).
    pub state_finals: u64,
    /// Sends with no matching receive (dropped).
    pub sends: u64,
    /// Receives with no matching send (dropped).
    pub recvs: u64,
    /// Events whose ID no definition or preamble range covers, or whose record
    /// type does not fit the definition (dropped; Java exits with an error).
    pub undeclared_events: u64,
    /// Definitions that contradict an earlier one (ignored, as Java ignores them).
    pub conflicting_definitions: u64,
    /// Timelines drawables use that no COMMEVT declared (kept, with a guessed
    /// world rank; Java crashes).
    pub undeclared_timelines: u64,
    /// The number `clog2TOslog2` prints as "Number of Unmatched Events": open
    /// starts, sends and receives of the categories that were defined.
    pub java_count: u64,
    /// State instances still open at the end of the input, closed at the run's
    /// end time and drawn (ALOG, as upshot draws them; 0 for other inputs).
    pub states_closed_at_end: u64,
    /// Events whose time is not a finite number (dropped; ALOG's huge cycle ×
    /// roll-over; 0 for other inputs).
    pub bad_times: u64,
}

impl Unmatched {
    /// Events dropped for any reason.
    ///
    /// ```
    /// use slog2_format::convert::Unmatched;
    /// let u = Unmatched { sends: 2, recvs: 1, state_starts: 3, undeclared_timelines: 5, ..Default::default() };
    /// assert_eq!(u.total_dropped(), 6); // undeclared timelines are kept, not dropped
    /// ```
    pub fn total_dropped(&self) -> u64 {
        self.state_starts
            + self.state_finals
            + self.sends
            + self.recvs
            + self.undeclared_events
            + self.bad_times
    }
}

/// The name, colour and format fields of a STATEDEF or EVENTDEF as Java reads
/// them ([`clog2_field`]; `None` is Java's `null`).
#[derive(Debug, Clone)]
struct DefFields {
    name: Option<String>,
    color: Option<String>,
    format: Option<String>,
}

impl DefFields {
    fn read(name: &[u8], color: &[u8], format: &[u8]) -> DefFields {
        DefFields {
            name: clog2_field(name),
            color: clog2_field(color),
            format: clog2_field(format),
        }
    }
}

/// One declared timeline (Java's `CommProcThdID`).
#[derive(Debug, Clone, Copy)]
struct Timeline {
    icomm: i32,
    rank: i32,
    thread: i32,
    wrank: i32,
    used: bool,
}

/// A send or receive waiting for its other end, with the origin (leaf or
/// block) of its record.
type HalfArrow = Waiter<u64>;

/// An open state: start time, the primitive as started, the start record's tag.
type OpenState = (f64, Prim, u64);

/// The header fields of the record being pushed.
#[derive(Debug, Clone, Copy)]
struct Hdr {
    time: f64,
    icomm: i32,
    rank: i32,
    thread: i32,
}

/// The waiting items of one pairing key, oldest first. The oldest is stored
/// inline: most keys have one item waiting, so pairing allocates nothing.
#[derive(Debug, Clone)]
struct Queue<V> {
    head: V,
    rest: VecDeque<V>,
}

impl<V> Queue<V> {
    fn len(&self) -> usize {
        1 + self.rest.len()
    }

    fn iter(&self) -> impl Iterator<Item = &V> {
        std::iter::once(&self.head).chain(self.rest.iter())
    }
}

/// Appends `v` to the queue of `key`.
fn push_back<K: std::hash::Hash + Eq, V>(map: &mut HashMap<K, Queue<V>>, key: K, v: V) {
    match map.entry(key) {
        Entry::Occupied(mut e) => e.get_mut().rest.push_back(v),
        Entry::Vacant(e) => {
            e.insert(Queue {
                head: v,
                rest: VecDeque::new(),
            });
        }
    }
}

/// Slots of the event-ID cache (a power of two).
const HANDLER_CACHE: usize = 64;
/// Slots of the cache of timelines already marked used (a power of two).
const LINE_CACHE: usize = 256;

/// A cached event-ID lookup.
#[derive(Debug, Clone, Copy)]
struct Handler {
    etype: i32,
    cat: i32,
    role: Role,
    topo: i32,
    /// The category is known to exist in `cats` (no placeholder needed).
    placed: bool,
}

/// Turns a CLOG2 record stream into primitives. Feed records in file order with
/// [`Clog2Drawables::push`]; each call returns the primitive the record completes,
/// if any. Primitives come out in increasing end time when the records are in
/// time order (as MPE's merged files are).
#[derive(Debug)]
pub struct Clog2Drawables {
    world: i32,
    threads: i32,
    ids: EventIds,
    cats: BTreeMap<i32, CatDef>,
    fallback: colors::Fallback,
    /// Open states per (category, line), oldest first.
    states: HashMap<(i32, i32), Queue<OpenState>>,
    /// Pending sends and receives per (tag, sender process line, receiver process line).
    sends: HashMap<(i32, i32, i32), Queue<HalfArrow>>,
    recvs: HashMap<(i32, i32, i32), Queue<HalfArrow>>,
    timelines: HashMap<i32, Timeline>,
    /// Recent event-ID lookups by `etype mod HANDLER_CACHE` (cleared by every
    /// definition, the only records that change what an ID means).
    handler_cache: [Option<Handler>; HANDLER_CACHE],
    /// Timelines already marked used, by `line mod LINE_CACHE`: the line ID in the
    /// low 32 bits, bit 32 set (0 is an empty slot). A used timeline stays used.
    line_cache: [u64; LINE_CACHE],
    unmatched: Unmatched,
    ended: bool,
    /// The caller's tag of the record being pushed, and of the earlier end of the
    /// primitive it completed.
    origin: u64,
    other_origin: u64,
}

/// The arrow category's index.
pub const ARROW_CATEGORY: i32 = 0;

/// The arrow category every MPE converter makes (spec/conversion.md §2.1 rule 1):
/// index 0, `message`, opaque white, width 3, `msg_tag=%d, msg_size=%d`.
///
/// ```
/// use slog2_format::{convert::{arrow_category, ARROW_CATEGORY}, types::topology};
/// let c = arrow_category();
/// assert_eq!((c.index, c.name.text(), c.topology), (ARROW_CATEGORY, "message".to_string(), topology::ARROW));
/// assert_eq!(c.argb, [255, 255, 255, 255]);
/// ```
pub fn arrow_category() -> Category {
    let (keys, types) = info_keys("msg_tag=%d, msg_size=%d");
    Category {
        index: ARROW_CATEGORY,
        name: JStr::new("message"),
        topology: topology::ARROW,
        argb: [255, 255, 255, 255],
        modifiable: 1,
        width: 3,
        keys,
        types,
        methods: Vec::new(),
        summary: None,
    }
}

impl Clog2Drawables {
    /// Starts a conversion with the preamble's world size, thread count and event
    /// ID ranges (missing values: one thread, a world of 65536, no ranges).
    ///
    /// ```
    /// use clog2_format::{record::{Body, Record}, PreambleInfo};
    /// use slog2_format::convert::Clog2Drawables;
    /// let mut d = Clog2Drawables::new(&PreambleInfo::mpe_default(2));
    /// // Events 0 and 1 start and end the preamble's first state placeholder.
    /// assert!(d.push(&Record::bare(0.5, 0, 0)).is_none());
    /// let state = d.push(&Record::bare(1.5, 0, 1)).unwrap();
    /// assert_eq!((state.earliest(), state.latest(), state.category), (0.5, 1.5, 1));
    /// # let _ = Body::EndLog;
    /// ```
    pub fn new(pre: &PreambleInfo) -> Clog2Drawables {
        let mut cats = BTreeMap::new();
        cats.insert(ARROW_CATEGORY, CatDef::arrow());
        Clog2Drawables {
            world: pre.comm_world_size.filter(|&w| w > 0).unwrap_or(65536),
            threads: pre.max_thread_count.filter(|&t| t > 0).unwrap_or(1),
            ids: EventIds::new(pre),
            cats,
            fallback: colors::Fallback::default(),
            states: HashMap::default(),
            sends: HashMap::default(),
            recvs: HashMap::default(),
            timelines: HashMap::default(),
            handler_cache: [None; HANDLER_CACHE],
            line_cache: [0; LINE_CACHE],
            unmatched: Unmatched::default(),
            ended: false,
            origin: 0,
            other_origin: 0,
        }
    }

    /// The thread line ID `icomm·W·T + rank·T + thread` (Java `int` arithmetic).
    fn thread_line(&self, icomm: i32, rank: i32, thread: i32) -> i32 {
        icomm
            .wrapping_mul(self.world.wrapping_mul(self.threads))
            .wrapping_add(rank.wrapping_mul(self.threads))
            .wrapping_add(thread)
    }

    /// The process line ID `icomm·W + rank` used to pair messages.
    fn process_line(&self, icomm: i32, rank: i32) -> i32 {
        icomm.wrapping_mul(self.world).wrapping_add(rank)
    }

    fn use_line(&mut self, line: i32, icomm: i32, rank: i32, thread: i32) {
        let tag = line as u32 as u64 | 1 << 32;
        let slot = line as u32 as usize & (LINE_CACHE - 1);
        if self.line_cache[slot] == tag {
            return;
        }
        self.line_cache[slot] = tag;
        match self.timelines.get_mut(&line) {
            Some(t) => t.used = true,
            None => {
                self.unmatched.undeclared_timelines += 1;
                self.timelines.insert(
                    line,
                    Timeline {
                        icomm,
                        rank,
                        thread,
                        wrank: if icomm == 0 { rank } else { -1 },
                        used: true,
                    },
                );
            }
        }
    }

    /// True once ENDLOG was seen (later records are ignored, as Java stops there).
    ///
    /// ```
    /// use clog2_format::{record::{Body, Record}, PreambleInfo};
    /// let mut d = slog2_format::convert::Clog2Drawables::new(&PreambleInfo::mpe_default(2));
    /// assert!(!d.ended());
    /// d.push(&Record::new(1e8, 0, Body::EndLog));
    /// assert!(d.ended());
    /// assert!(d.push(&Record::bare(0.5, 0, 0)).is_none()); // later records are ignored
    /// ```
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// Takes one record; returns the primitive it completes, if any.
    ///
    /// ```
    /// # use slog2_format::convert::Clog2Drawables;
    /// # let bytes = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(2_000))?;
    /// # let mut r = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// let mut d = Clog2Drawables::new(r.preamble().info());
    /// let mut prims = Vec::new();
    /// while let Some(rec) = r.next_record()? {
    ///     prims.extend(d.push(&rec));
    /// }
    /// assert!(d.ended());
    /// assert!(prims.len() > 100);
    /// assert!(prims.windows(2).all(|w| w[0].latest() <= w[1].latest())); // in end-time order
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn push(&mut self, r: &Record) -> Option<Prim> {
        self.push_at(r, 0).map(|(p, _)| p)
    }

    /// Like [`push`](Self::push), with a tag for the record (an annotation uses
    /// its leaf number); a completed primitive comes with the tag of the record
    /// that began it (the record's own tag for a solo event).
    ///
    /// ```
    /// use clog2_format::{record::Record, PreambleInfo};
    /// let mut d = slog2_format::convert::Clog2Drawables::new(&PreambleInfo::mpe_default(2));
    /// assert!(d.push_at(&Record::bare(0.5, 0, 0), 7).is_none()); // a state starts, tagged 7
    /// let (state, began) = d.push_at(&Record::bare(1.5, 0, 1), 9).unwrap();
    /// assert_eq!((state.earliest(), began), (0.5, 7)); // the tag of the record that began it
    /// ```
    pub fn push_at(&mut self, r: &Record, origin: u64) -> Option<(Prim, u64)> {
        self.origin = origin;
        self.other_origin = origin;
        self.push_record(r).map(|p| (p, self.other_origin))
    }

    /// Takes one record read in place ([`Clog2Reader::next_ref`]); returns the
    /// primitive it completes, if any. The same as [`push`](Self::push) of the
    /// decoded record, without decoding events and messages into a [`Record`].
    ///
    /// [`Clog2Reader::next_ref`]: clog2_format::Clog2Reader::next_ref
    ///
    /// ```
    /// # use slog2_format::convert::Clog2Drawables;
    /// # let bytes = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(2_000))?;
    /// # let mut r = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// let mut by_ref = Clog2Drawables::new(r.preamble().info());
    /// let mut owned = Clog2Drawables::new(r.preamble().info());
    /// let mut same = 0;
    /// while let Some((rec, _)) = r.next_ref()? {
    ///     let p = by_ref.push_ref(&rec);
    ///     assert_eq!(p, owned.push(&rec.to_record()));
    ///     same += usize::from(p.is_some());
    /// }
    /// assert!(same > 100);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn push_ref(&mut self, r: &RecordRef<'_>) -> Option<Prim> {
        self.origin = 0;
        self.other_origin = 0;
        if self.ended {
            return None;
        }
        let h = Hdr {
            time: r.time,
            icomm: r.icomm,
            rank: r.rank,
            thread: r.thread,
        };
        let legacy = r.layout.version.has_legacy_header();
        match r.rectype {
            rectype::BAREEVT if r.body.len() >= 8 => {
                let line = self.thread_line(h.icomm, h.rank, h.thread);
                let etype = r.body_i32(0).unwrap_or(-1);
                self.event(h, line, etype, None)
            }
            rectype::CARGOEVT if r.body.len() >= 40 => {
                let line = self.thread_line(h.icomm, h.rank, h.thread);
                let etype = r.body_i32(0).unwrap_or(-1);
                let mut cargo = [0u8; 32];
                cargo.copy_from_slice(&r.body[8..40]);
                self.event(h, line, etype, Some(cargo))
            }
            rectype::MSGEVT if !legacy && r.body.len() >= 24 => {
                let line = self.thread_line(h.icomm, h.rank, h.thread);
                let f = |at| r.body_i32(at).unwrap_or(0);
                let (etype, icomm, rank, tag, size) = (f(0), f(4), f(8), f(12), f(16));
                let remote = self.process_line(icomm, rank);
                self.message(h, line, etype, tag, size, remote)
            }
            _ => self.push_record(&r.to_record()),
        }
    }

    fn push_record(&mut self, r: &Record) -> Option<Prim> {
        if self.ended {
            return None;
        }
        let line = self.thread_line(r.icomm, r.rank, r.thread);
        let h = Hdr {
            time: r.time,
            icomm: r.icomm,
            rank: r.rank,
            thread: r.thread,
        };
        if matches!(r.body, Body::StateDef(_) | Body::EventDef(_)) {
            // Definitions change what event IDs mean.
            self.handler_cache = [None; HANDLER_CACHE];
        }
        match &r.body {
            Body::EndLog => {
                self.ended = true;
                None
            }
            Body::StateDef(d) => {
                let f = DefFields::read(&d.name.0, &d.color.0, &d.format.0);
                match self.ids.define_state(d.start_etype, d.final_etype) {
                    Defined::Existing(c) | Defined::New(c) => self.define(c, topology::STATE, &f),
                    Defined::Conflict => self.unmatched.conflicting_definitions += 1,
                }
                None
            }
            Body::EventDef(d) => {
                let f = DefFields::read(&d.name.0, &d.color.0, &d.format.0);
                match self.ids.define_event(d.etype) {
                    Defined::Existing(c) | Defined::New(c) => self.define(c, topology::EVENT, &f),
                    Defined::Conflict => self.unmatched.conflicting_definitions += 1,
                }
                None
            }
            Body::Bare(e) => self.event(h, line, e.etype, None),
            Body::Cargo(e) => self.event(h, line, e.etype, Some(e.bytes.0)),
            Body::Msg(m) => {
                let remote = self.process_line(m.icomm, m.rank);
                self.message(h, line, m.etype, m.tag, m.size, remote)
            }
            Body::LegacyMsg(m) => {
                let remote = self.process_line(0, m.partner);
                self.message(h, line, m.etype, m.tag, m.size, remote)
            }
            Body::Comm(c) => {
                for thd in 0..self.threads.clamp(1, 4096) {
                    let l = self.thread_line(c.icomm, c.rank, thd);
                    self.timelines.entry(l).or_insert(Timeline {
                        icomm: c.icomm,
                        rank: c.rank,
                        thread: thd,
                        wrank: c.wrank,
                        used: false,
                    });
                }
                None
            }
            _ => None,
        }
    }

    /// The cached lookup of `etype` and its cache slot.
    #[inline]
    fn handler(&mut self, etype: i32) -> Option<(Handler, usize)> {
        let slot = etype as u32 as usize & (HANDLER_CACHE - 1);
        if let Some(h) = self.handler_cache[slot] {
            if h.etype == etype {
                return Some((h, slot));
            }
        }
        let (cat, role, topo) = self.ids.lookup(etype)?;
        let h = Handler {
            etype,
            cat,
            role,
            topo,
            placed: false,
        };
        self.handler_cache[slot] = Some(h);
        Some((h, slot))
    }

    /// [`placeholder`](Self::placeholder) for the handler in cache slot `slot`,
    /// once.
    #[inline]
    fn place(&mut self, h: Handler, slot: usize, topo: i32) {
        if !h.placed {
            self.placeholder(h.cat, topo);
            if let Some(c) = &mut self.handler_cache[slot] {
                c.placed = true;
            }
        }
    }

    fn event(&mut self, r: Hdr, line: i32, etype: i32, cargo: Option<[u8; 32]>) -> Option<Prim> {
        if etype == -1 {
            return None;
        }
        let Some((h, slot)) = self.handler(etype) else {
            self.unmatched.undeclared_events += 1;
            return None;
        };
        let (cat, role, topo) = (h.cat, h.role, h.topo);
        let info: &[u8] = cargo.as_ref().map_or(&[], |c| &c[..]);
        let state = State {
            category: cat,
            line,
        };
        match role {
            Role::Solo => {
                self.place(h, slot, topology::EVENT);
                self.use_line(line, r.icomm, r.rank, r.thread);
                Some(Prim::event(cat, r.time, line, info))
            }
            Role::Start => {
                let p = Prim::two(cat, topo, (r.time, line), (r.time, line), info);
                state.start(&mut self.states, (r.time, p, self.origin));
                None
            }
            Role::Final => {
                let open = state.close(&mut self.states);
                match open {
                    Some((start, mut p, origin)) => {
                        self.other_origin = origin;
                        p.times = [start, r.time];
                        if let Some(c) = cargo {
                            p = Prim::two(cat, topo, (start, line), (r.time, line), &c);
                        }
                        self.place(h, slot, topology::STATE);
                        self.use_line(line, r.icomm, r.rank, r.thread);
                        Some(p)
                    }
                    None => {
                        self.unmatched.state_finals += 1;
                        None
                    }
                }
            }
            Role::Send | Role::Recv => {
                self.unmatched.undeclared_events += 1;
                None
            }
        }
    }

    fn message(
        &mut self,
        r: Hdr,
        line: i32,
        etype: i32,
        tag: i32,
        size: i32,
        remote: i32,
    ) -> Option<Prim> {
        if etype == -1 {
            return None;
        }
        let local = self.process_line(r.icomm, r.rank);
        // Only the arrow's IDs are Send and Recv (placeholders never are).
        let send = match self.handler(etype).map(|(h, _)| h.role) {
            Some(Role::Send) => true,
            Some(Role::Recv) => false,
            _ => {
                self.unmatched.undeclared_events += 1;
                return None;
            }
        };
        let m = Message {
            send,
            tag,
            size,
            local,
            remote,
            time: r.time,
            line,
        };
        let origin = self.origin;
        let a = m.pair(&mut self.sends, &mut self.recvs, |size| HalfArrow {
            time: r.time,
            line,
            size,
            keep: origin,
        })?;
        self.other_origin = a.earlier.keep;
        // Each end's timeline is marked used, the send's first.
        if send {
            self.use_line(line, r.icomm, r.rank, r.thread);
            self.use_line_known(a.earlier.line);
        } else {
            self.use_line_known(a.earlier.line);
            self.use_line(line, r.icomm, r.rank, r.thread);
        }
        Some(a.prim(ARROW_CATEGORY, tag))
    }

    /// Marks the line of the other end of an arrow as used; its record was seen
    /// earlier, so an undeclared line is recorded from the line ID alone.
    fn use_line_known(&mut self, line: i32) {
        let tag = line as u32 as u64 | 1 << 32;
        if self.line_cache[line as u32 as usize & (LINE_CACHE - 1)] == tag {
            return;
        }
        if let Some(t) = self.timelines.get_mut(&line) {
            t.used = true;
            return;
        }
        let wt = self.world.wrapping_mul(self.threads);
        let (icomm, rest) = if wt > 0 {
            (line.div_euclid(wt), line.rem_euclid(wt))
        } else {
            (0, line)
        };
        let rank = rest / self.threads;
        let thread = rest % self.threads;
        self.use_line(line, icomm, rank, thread);
    }

    /// What was dropped so far (open states, sends and receives are counted by
    /// [`Clog2Drawables::finish`]).
    ///
    /// ```
    /// use clog2_format::{record::Record, PreambleInfo};
    /// let mut d = slog2_format::convert::Clog2Drawables::new(&PreambleInfo::mpe_default(2));
    /// d.push(&Record::bare(0.5, 0, 1)); // a state's end with no start
    /// d.push(&Record::bare(0.6, 0, 9999)); // an ID nothing declares
    /// let u = d.unmatched();
    /// assert_eq!((u.state_finals, u.undeclared_events), (1, 1));
    /// ```
    pub fn unmatched(&self) -> Unmatched {
        self.unmatched
    }

    /// The earliest time of anything still waiting for its other end: open
    /// states' starts, sends and receives not yet matched (`+∞` when nothing
    /// waits). A primitive completed later starts no earlier than this or than
    /// the record that completes it: when records come in time order, no
    /// primitive still to come starts before `min(low_water, time of the next
    /// record)`. Costs one look at each waiting item.
    ///
    /// ```
    /// use clog2_format::{record::Record, PreambleInfo};
    /// let mut d = slog2_format::convert::Clog2Drawables::new(&PreambleInfo::mpe_default(2));
    /// assert_eq!(d.low_water(), f64::INFINITY);
    /// // Events 0 and 1 start and end the preamble's first state placeholder.
    /// d.push(&Record::bare(0.5, 0, 0));
    /// d.push(&Record::bare(0.7, 1, 0));
    /// assert_eq!(d.low_water(), 0.5); // the oldest open start
    /// d.push(&Record::bare(1.5, 0, 1));
    /// assert_eq!(d.low_water(), 0.7);
    /// d.push(&Record::bare(1.6, 1, 1));
    /// assert_eq!(d.low_water(), f64::INFINITY);
    /// ```
    pub fn low_water(&self) -> f64 {
        let states = self.states.values().flat_map(Queue::iter).map(|s| s.0);
        let halves = self
            .sends
            .values()
            .chain(self.recvs.values())
            .flat_map(Queue::iter)
            .map(|w| w.time);
        states.chain(halves).fold(f64::INFINITY, f64::min)
    }
}

impl<K: std::hash::Hash + Eq, V> Waiting<K, V> for HashMap<K, Queue<V>> {
    fn push(&mut self, key: K, v: V) {
        push_back(self, key, v);
    }

    fn pop(&mut self, key: K) -> Option<V> {
        pop_oldest(self, key)
    }
}

/// Takes the oldest waiting item of `key`, dropping the key once its queue is
/// empty (so the maps hold only keys with waiting events, however many distinct
/// tags and lines a long trace uses).
fn pop_oldest<K: std::hash::Hash + Eq, V>(map: &mut HashMap<K, Queue<V>>, key: K) -> Option<V> {
    match map.entry(key) {
        Entry::Occupied(mut e) => match e.get_mut().rest.pop_front() {
            Some(next) => Some(std::mem::replace(&mut e.get_mut().head, next)),
            None => Some(e.remove().head),
        },
        Entry::Vacant(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_strings_split_like_java() {
        let (k, t) = info_keys("msg_tag=%d, msg_size=%d");
        let k: Vec<String> = k.iter().map(JStr::text).collect();
        assert_eq!(k, ["msg_tag=", ", msg_size=", ""]);
        assert_eq!(t, b"dd");
        let (k, t) = info_keys("source = %s()'s line %d.");
        let k: Vec<String> = k.iter().map(JStr::text).collect();
        assert_eq!(k, ["source = ", "()'s line ", "."]);
        assert_eq!(t, b"sd");
        let (k, t) = info_keys("%d");
        assert_eq!(k.len(), 1);
        assert_eq!(t, b"d");
        assert_eq!(info_keys(""), (vec![], vec![]));
        let (_, t) = info_keys("50%");
        assert!(t.is_empty());
    }
}
