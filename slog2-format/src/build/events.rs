//! CLOG2 events to SLOG-2 drawables, as MPE's Java converter (`clog2TOslog2`)
//! makes them (spec/conversion.md §2.1–2.3): states from start/final event pairs,
//! arrows from matched send/receive records, solo events, categories from the
//! definitions, line IDs from communicator, rank and thread.
//!
//! Where Java crashes (an event ID nothing declares, a timeline no COMMEVT
//! declared, a definition that contradicts an earlier one), this module counts the
//! case in [`Unmatched`] and goes on.

use super::colors;
use super::names::{clog2_field, unknown_type};
use super::prim::Prim;
use crate::types::{topology, Category, JStr, LineIdMap, LineIdRow};
use clog2_format::record::{rectype, Body, Record, RECV_ETYPE, SEND_ETYPE};
use clog2_format::{PreambleInfo, RecordRef};
use rustc_hash::FxHashMap as HashMap;
use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, VecDeque};

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
    pub fn total_dropped(&self) -> u64 {
        self.state_starts
            + self.state_finals
            + self.sends
            + self.recvs
            + self.undeclared_events
            + self.bad_times
    }
}

/// What an event ID does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Start,
    Final,
    Solo,
    Send,
    Recv,
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

/// A category in the making.
#[derive(Debug, Clone)]
struct CatDef {
    topology: i32,
    name: Option<String>,
    argb: [u8; 4],
    width: i8,
    keys: Vec<JStr>,
    types: Vec<u8>,
    /// Defined by a STATEDEF/EVENTDEF (or the arrow): Java writes only these.
    defined: bool,
    /// A drawable of it was made (Java's `Category.isUsed`): an unnamed one was
    /// named `UnknownType-N` then.
    used: bool,
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
    /// The placeholder (category index, role, topology) of an event ID.
    fn lookup(&self, etype: i32) -> Option<(i32, Role, i32)> {
        let e = etype as i64;
        let mut base = 1i64;
        let pairs = [
            (self.known_event_start, self.known_states),
            (self.user_event_start, self.user_states),
        ];
        for (start, count) in pairs {
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

/// One declared timeline (Java's `CommProcThdID`).
#[derive(Debug, Clone, Copy)]
struct Timeline {
    icomm: i32,
    rank: i32,
    thread: i32,
    wrank: i32,
    used: bool,
}

/// A partial arrow waiting for its other end.
#[derive(Debug, Clone, Copy)]
struct HalfArrow {
    time: f64,
    line: i32,
    size: i32,
    origin: u64,
}

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

/// Turns a CLOG2 record stream into primitives. Feed records in file order with
/// [`Clog2Drawables::push`]; each call returns the primitive the record completes,
/// if any. Primitives come out in increasing end time when the records are in
/// time order (as MPE's merged files are).
#[derive(Debug)]
pub struct Clog2Drawables {
    world: i32,
    threads: i32,
    placeholders: Placeholders,
    next_index: i64,
    handlers: HashMap<i32, (i32, Role)>,
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
    pub fn new(pre: &PreambleInfo) -> Clog2Drawables {
        let c = |v: Option<i32>| v.unwrap_or(0).max(0) as i64;
        let placeholders = Placeholders {
            known_event_start: pre.known_event_id_start.unwrap_or(0) as i64,
            known_states: c(pre.known_state_id_count),
            user_event_start: pre.user_event_id_start.unwrap_or(0) as i64,
            user_states: c(pre.user_state_id_count),
            known_solo_start: pre.known_solo_event_id_start.unwrap_or(0) as i64,
            known_solos: c(pre.known_solo_event_id_count),
            user_solo_start: pre.user_solo_event_id_start.unwrap_or(0) as i64,
            user_solos: c(pre.user_solo_event_id_count),
        };
        let mut cats = BTreeMap::new();
        let a = arrow_category();
        cats.insert(
            ARROW_CATEGORY,
            CatDef {
                topology: a.topology,
                name: Some(a.name.text()),
                argb: a.argb,
                width: a.width,
                keys: a.keys,
                types: a.types,
                defined: true,
                used: false,
            },
        );
        let mut handlers = HashMap::default();
        handlers.insert(SEND_ETYPE, (ARROW_CATEGORY, Role::Send));
        handlers.insert(RECV_ETYPE, (ARROW_CATEGORY, Role::Recv));
        Clog2Drawables {
            world: pre.comm_world_size.filter(|&w| w > 0).unwrap_or(65536),
            threads: pre.max_thread_count.filter(|&t| t > 0).unwrap_or(1),
            placeholders,
            next_index: placeholders.next_index(),
            handlers,
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

    fn lookup(&self, etype: i32) -> Option<(i32, Role, i32)> {
        if let Some(&(cat, role)) = self.handlers.get(&etype) {
            let topo = self.cats.get(&cat).map_or(topology::STATE, |c| c.topology);
            return Some((cat, role, topo));
        }
        self.placeholders.lookup(etype)
    }

    fn new_index(&mut self) -> i32 {
        let i = i32::try_from(self.next_index).unwrap_or(i32::MAX);
        self.next_index += 1;
        i
    }

    /// The colour of a definition's colour field: the table's, or the next
    /// default colour for a name the table lacks or an empty field
    /// (spec/conversion.md §2.1 item 5).
    fn color(&mut self, name: Option<&str>) -> [u8; 4] {
        let rgb = name
            .and_then(colors::lookup)
            .unwrap_or_else(|| self.fallback.next_rgb());
        colors::argb(rgb, 255)
    }

    /// Gives category `index` a definition's name, colour and format (Java's
    /// `new ObjDef`, or `setName`, `setColor`, `setInfoKeys` on the category the
    /// IDs already map to: the last definition wins). Fields as [`clog2_field`]
    /// reads them; a used category keeps its flag.
    fn define(&mut self, index: i32, topo: i32, d: &DefFields) {
        let argb = self.color(d.color.as_deref());
        let old = self.cats.remove(&index);
        let used = old.as_ref().is_some_and(|c| c.used);
        let (keys, types) = match d.format.as_deref() {
            None => (Vec::new(), Vec::new()),
            // Java's setInfoKeys keeps the previous keys when the format has no
            // token (a format of blanks, trimmed to "").
            Some("") => old.map(|c| (c.keys, c.types)).unwrap_or_default(),
            Some(f) => info_keys(f),
        };
        self.cats.insert(
            index,
            CatDef {
                topology: topo,
                name: d.name.clone(),
                argb,
                width: 1,
                keys,
                types,
                defined: true,
                used,
            },
        );
    }

    /// Marks category `index` used as a drawable of it is made, making the
    /// placeholder if it does not exist; the first use of a category without a
    /// name names it `UnknownType-N` with the next default colour (Java's
    /// `InfoBox.resolveCategory`).
    fn placeholder(&mut self, index: i32, topo: i32) {
        let c = self.cats.entry(index).or_insert(CatDef {
            topology: topo,
            name: None,
            argb: [255, 255, 192, 203],
            width: 1,
            keys: Vec::new(),
            types: Vec::new(),
            defined: false,
            used: false,
        });
        if c.used {
            return;
        }
        c.used = true;
        if c.name.is_none() {
            c.name = Some(unknown_type(index));
            let rgb = self.fallback.next_rgb();
            if let Some(c) = self.cats.get_mut(&index) {
                c.argb = colors::argb(rgb, 255);
            }
        }
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
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// Takes one record; returns the primitive it completes, if any.
    pub fn push(&mut self, r: &Record) -> Option<Prim> {
        self.push_at(r, 0).map(|(p, _)| p)
    }

    /// Like [`push`](Self::push), with a tag for the record (an annotation uses
    /// its leaf number); a completed primitive comes with the tag of the record
    /// that began it (the record's own tag for a solo event).
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
                let h1 = self.lookup(d.start_etype);
                let h2 = self.lookup(d.final_etype);
                match (h1, h2) {
                    (Some((c1, _, t1)), Some((c2, _, _))) if c1 == c2 && t1 == topology::STATE => {
                        self.define(c1, topology::STATE, &f);
                    }
                    (Some(_), Some(_)) => self.unmatched.conflicting_definitions += 1,
                    _ => {
                        let idx = self.new_index();
                        self.define(idx, topology::STATE, &f);
                        self.handlers.insert(d.start_etype, (idx, Role::Start));
                        self.handlers.insert(d.final_etype, (idx, Role::Final));
                    }
                }
                None
            }
            Body::EventDef(d) => {
                let f = DefFields::read(&d.name.0, &d.color.0, &d.format.0);
                match self.lookup(d.etype) {
                    Some((c, Role::Solo, _)) => self.define(c, topology::EVENT, &f),
                    Some(_) => self.unmatched.conflicting_definitions += 1,
                    None => {
                        let idx = self.new_index();
                        self.define(idx, topology::EVENT, &f);
                        self.handlers.insert(d.etype, (idx, Role::Solo));
                    }
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
        let (cat, role, topo) = self.lookup(etype)?;
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
        match role {
            Role::Solo => {
                self.place(h, slot, topology::EVENT);
                self.use_line(line, r.icomm, r.rank, r.thread);
                Some(Prim::event(cat, r.time, line, info))
            }
            Role::Start => {
                let p = Prim::two(cat, topo, (r.time, line), (r.time, line), info);
                push_back(&mut self.states, (cat, line), (r.time, p, self.origin));
                None
            }
            Role::Final => {
                let open = pop_oldest(&mut self.states, (cat, line));
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
        let role = self.handler(etype).map(|(h, _)| h.role);
        let arrow = |from: (f64, i32), to: (f64, i32), size: i32| {
            let mut info = [0u8; 8];
            info[..4].copy_from_slice(&tag.to_be_bytes());
            info[4..].copy_from_slice(&size.to_be_bytes());
            Prim::two(ARROW_CATEGORY, topology::ARROW, from, to, &info)
        };
        match role {
            Some(Role::Send) => {
                let key = (tag, local, remote);
                if let Some(h) = pop_oldest(&mut self.recvs, key) {
                    self.other_origin = h.origin;
                    self.use_line(line, r.icomm, r.rank, r.thread);
                    self.use_line_known(h.line);
                    // Java's quirk: a receive logged first leaves msg_size 0.
                    return Some(arrow((r.time, line), (h.time, h.line), 0));
                }
                push_back(
                    &mut self.sends,
                    key,
                    HalfArrow {
                        time: r.time,
                        line,
                        size,
                        origin: self.origin,
                    },
                );
                None
            }
            Some(Role::Recv) => {
                let key = (tag, remote, local);
                if let Some(h) = pop_oldest(&mut self.sends, key) {
                    self.other_origin = h.origin;
                    self.use_line_known(h.line);
                    self.use_line(line, r.icomm, r.rank, r.thread);
                    return Some(arrow((h.time, h.line), (r.time, line), h.size));
                }
                push_back(
                    &mut self.recvs,
                    key,
                    HalfArrow {
                        time: r.time,
                        line,
                        size: 0,
                        origin: self.origin,
                    },
                );
                None
            }
            _ => {
                self.unmatched.undeclared_events += 1;
                None
            }
        }
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

    /// What was dropped so far (open states, sends and receives are counted by
    /// [`Clog2Drawables::finish`]).
    pub fn unmatched(&self) -> Unmatched {
        self.unmatched
    }

    /// Ends the conversion: counts what is still open, and returns the categories
    /// (every category drawables may use; one without a name is `UnknownType-N`,
    /// says so) and the "Process View" and "Communicator View" line-ID maps (the
    /// "-Thread" views when threads > 1) of the timelines drawables used.
    pub fn finish(mut self) -> (Vec<Category>, Vec<LineIdMap>, Unmatched) {
        let mut u = self.unmatched;
        u.state_starts = self.states.values().map(|q| q.len() as u64).sum();
        // Java counts open objects of the categories it was told about.
        let defined = |c: &i32| self.cats.get(c).is_some_and(|d| d.defined);
        u.java_count += self
            .states
            .iter()
            .filter(|((c, _), _)| defined(c))
            .map(|(_, q)| q.len() as u64)
            .sum::<u64>();
        u.sends = self.sends.values().map(|q| q.len() as u64).sum();
        u.recvs = self.recvs.values().map(|q| q.len() as u64).sum();
        u.java_count += u.sends + u.recvs;

        let cats = std::mem::take(&mut self.cats)
            .into_iter()
            .map(|(index, d)| Category {
                index,
                name: JStr::new(&d.name.unwrap_or_else(|| unknown_type(index))),
                topology: d.topology,
                argb: d.argb,
                modifiable: 1,
                width: d.width,
                keys: d.keys,
                types: d.types,
                methods: Vec::new(),
                summary: None,
            })
            .collect();
        let mut used: Vec<(i32, Timeline)> = self
            .timelines
            .iter()
            .filter(|(_, t)| t.used)
            .map(|(&l, &t)| (l, t))
            .collect();
        used.sort_by_key(|(l, _)| *l);
        let threaded = self.threads > 1;
        let (t1, l1, t2, l2): (&str, Vec<&str>, &str, Vec<&str>) = if threaded {
            (
                "Process-Thread View",
                vec!["world_rank", "thread"],
                "Communicator-Thread View",
                vec!["commID", "comm_rank", "thread"],
            )
        } else {
            (
                "Process View",
                vec!["world_rank"],
                "Communicator View",
                vec!["commID", "comm_rank"],
            )
        };
        let map = |title: &str, labels: &[&str], f: &dyn Fn(&Timeline) -> Vec<i32>| LineIdMap {
            title: JStr::new(title),
            ncols: labels.len() as i32,
            labels: labels.iter().map(|l| JStr::new(l)).collect(),
            rows: used
                .iter()
                .map(|(l, t)| LineIdRow {
                    line_id: *l,
                    values: f(t),
                })
                .collect(),
            methods: Vec::new(),
        };
        let maps = if threaded {
            vec![
                map(t1, &l1, &|t| vec![t.wrank, t.thread]),
                map(t2, &l2, &|t| vec![t.icomm, t.rank, t.thread]),
            ]
        } else {
            vec![
                map(t1, &l1, &|t| vec![t.wrank]),
                map(t2, &l2, &|t| vec![t.icomm, t.rank]),
            ]
        };
        (cats, maps, u)
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

/// Splits an MPE format string into SLOG-2 info keys and types the way Java's
/// `Category.setInfoKeys` does: tokens are runs without `%` and single `%`; after
/// a `%` the next token's first character is the type and its rest a key.
pub fn info_keys(format: &str) -> (Vec<JStr>, Vec<u8>) {
    let bytes = format.as_bytes();
    let mut tokens: Vec<&[u8]> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            tokens.push(&bytes[i..i + 1]);
            i += 1;
        } else {
            let j = bytes[i..]
                .iter()
                .position(|&b| b == b'%')
                .map_or(bytes.len(), |p| i + p);
            tokens.push(&bytes[i..j]);
            i = j;
        }
    }
    let mut keys = Vec::new();
    let mut types = Vec::new();
    let mut it = tokens.into_iter();
    while let Some(t) = it.next() {
        if t == b"%" {
            match it.next() {
                Some(next) => {
                    types.push(next[0]);
                    keys.push(jstr(&next[1..]));
                }
                None => break, // Java throws here; we drop the dangling '%'
            }
        } else {
            keys.push(jstr(t));
        }
    }
    (keys, types)
}

fn jstr(b: &[u8]) -> JStr {
    let b = &b[..b.len().min(i16::MAX as usize)];
    JStr {
        len: b.len() as i16,
        bytes: b.to_vec(),
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
