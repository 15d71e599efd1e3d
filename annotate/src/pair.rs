//! Pairing a leaf's records into drawables straight from the trace bytes.
//!
//! This is the pairing of `slog2_format::convert::Clog2Drawables` (spec/slog2.md
//! §16.1–16.2), cut down to what a window query needs: which primitive each record
//! completes and the leaf its first end came from. It reads each record in place
//! (a [`RecordRef`]: header fields and borrowed body bytes), keeps its tables
//! between leaves and queries (so a leaf allocates nothing once they have grown),
//! and skips what only a conversion needs (category names, colours, info keys,
//! line-ID maps, counts of what was dropped). Tests compare it with
//! `Clog2Drawables` leaf by leaf, on generated traces with every kind of
//! definition and on the corpus.
//!
//! What an event ID means (its category, role and the category's topology)
//! depends only on the preamble's ID ranges and the definitions seen so far: the
//! converter's own table, [`EventIds`], answers here too (the rules stand once).

use crate::format::Def;
use clog2_format::record::rectype;
use clog2_format::{PreambleInfo, RecordRef};
use slog2_format::convert::clog2::event_ids::{Defined, EventIds, Role};
use slog2_format::convert::clog2::events::ARROW_CATEGORY;
use slog2_format::convert::pairing::{Message, State, Waiter};
use slog2_format::convert::{Partial, WaitingMessage};
use slog2_format::types::topology;
use slog2_format::write::Prim;

mod queues;

use queues::Queues;

/// An open state: its start, the topology and info it started with, its leaf.
#[derive(Debug, Clone, Copy)]
struct Open {
    /// The answer slot the caller reserved for it (see [`Pairer::next_slot`]),
    /// or [`NO_SLOT`] for one of the carry-in block.
    slot: u32,
    time: f64,
    topo: i32,
    info_len: u8,
    info: [u8; 32],
    origin: u32,
}

/// What a waiting send or receive keeps: its answer slot (as [`Open::slot`])
/// and the leaf its record is in.
#[derive(Debug, Clone, Copy)]
struct Keep {
    slot: u32,
    origin: u32,
}

/// A send or receive waiting for its partner.
type Half = Waiter<Keep>;

/// A send or receive of a carry-in block (no slot: its drawable began in an
/// earlier leaf).
fn carried(m: WaitingMessage) -> Half {
    Half {
        time: m.time,
        line: m.line,
        size: m.size,
        keep: Keep {
            slot: NO_SLOT,
            origin: m.origin as u32,
        },
    }
}

/// The pairing key of a send or receive as a map key.
fn arrow_key(key: [i32; 3]) -> (i32, i32, i32) {
    (key[0], key[1], key[2])
}

/// Reads a carry-in block (spec/annotation.md §4) into `out` without
/// allocating. `None` when the bytes are not a carry-in block as the binrw
/// layout ([`crate::format::Carry`]) reads them; bytes after the last entry
/// are ignored, as that reader ignores them.
pub(crate) fn parse_carry(b: &[u8], out: &mut Vec<Partial>) -> Option<()> {
    fn take<'a>(b: &'a [u8], at: &mut usize, n: usize) -> Option<&'a [u8]> {
        let s = b.get(*at..at.checked_add(n)?)?;
        *at += n;
        Some(s)
    }
    out.clear();
    let mut at = 0usize;
    let mut take = |n: usize| take(b, &mut at, n);
    let i32_ = |s: &[u8]| i32::from_be_bytes([s[0], s[1], s[2], s[3]]);
    let u32_ = |s: &[u8]| u32::from_be_bytes([s[0], s[1], s[2], s[3]]);
    let f64_ = |s: &[u8]| f64::from_be_bytes([s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]]);
    let count = i32_(take(4)?);
    if count < 0 {
        return None;
    }
    for _ in 0..count {
        let tag = take(1)?[0];
        match tag {
            0 => {
                let s = take(21)?;
                let info_len = s[20];
                if info_len > 32 {
                    return None;
                }
                let info = take(info_len as usize)?;
                let (line, time) = (i32_(&s[4..]), f64_(&s[8..]));
                out.push(Partial::State {
                    prim: Prim::two(
                        i32_(&s[0..]),
                        topology::STATE,
                        (time, line),
                        (time, line),
                        info,
                    ),
                    origin: u64::from(u32_(&s[16..])),
                });
            }
            1 | 2 => {
                // A send, then a receive: the same fields but the size.
                let send = tag == 1;
                let s = take(if send { 32 } else { 28 })?;
                let m = WaitingMessage {
                    key: [i32_(&s[0..]), i32_(&s[4..]), i32_(&s[8..])],
                    time: f64_(&s[12..]),
                    line: i32_(&s[20..]),
                    size: if send { i32_(&s[24..]) } else { 0 },
                    origin: u64::from(u32_(&s[s.len() - 4..])),
                };
                out.push(if send {
                    Partial::Send(m)
                } else {
                    Partial::Recv(m)
                });
            }
            _ => return None,
        }
    }
    Some(())
}

/// The slot of a waiting event of a carry-in block (its drawable, if completed
/// here, began in an earlier leaf).
pub(crate) const NO_SLOT: u32 = u32::MAX;

/// What an event ID means: category, role, the category's topology.
type Meaning = (i32, Role, i32);

/// Slots of the event-ID cache (a power of two).
const CACHE: usize = 64;

/// Pairing state: what event IDs mean, and the events waiting for a partner.
#[derive(Debug)]
pub(crate) struct Pairer {
    world: i32,
    threads: i32,
    /// What each event ID means (the converter's rules).
    ids: EventIds,
    /// Recent lookups by `etype mod CACHE`; cleared by every definition.
    cache: [Option<(i32, Option<Meaning>)>; CACHE],
    /// How many entries of the definitions block the meanings hold, when they
    /// are exactly those (`None` once a definition record of the trace was
    /// applied: the next leaf starts again from the preamble).
    defs_applied: Option<usize>,
    /// Open states per (category, line), oldest first. Keys stay when their
    /// queue empties, so that a leaf allocates nothing once the maps have grown.
    states: Queues<(i32, i32), Open>,
    /// Sends and receives per (tag, sender process line, receiver process line).
    sends: Queues<(i32, i32, i32), Half>,
    recvs: Queues<(i32, i32, i32), Half>,
    ended: bool,
    /// The slot the next drawable begun in this leaf gets.
    next_slot: u32,
}

/// A primitive (what `Prim::event` and `Prim::two` make, built in place;
/// `info_len` is at most 32 and the bytes after it are zero).
#[inline(always)]
fn prim(
    category: i32,
    topology: i32,
    nv: u8,
    times: [f64; 2],
    lines: [i32; 2],
    info: [u8; 32],
    info_len: u8,
) -> Prim {
    Prim {
        category,
        topology,
        nv,
        times,
        lines,
        info_len,
        info,
    }
}

/// Takes the next answer slot (see [`Pairer::next_slot`]).
#[inline]
fn take_slot(next_slot: &mut u32) -> u32 {
    let s = *next_slot;
    *next_slot = s.saturating_add(1);
    s
}

/// The body `i32` at `at` (the caller checked the body's length by its type).
#[inline(always)]
fn i32_at(r: &RecordRef<'_>, at: usize) -> i32 {
    r.body_i32(at).unwrap_or(-1)
}

impl Pairer {
    /// A pairer for a trace with this preamble (world size, threads, ID ranges;
    /// missing values as `Clog2Drawables::new` takes them).
    pub(crate) fn new(pre: &PreambleInfo) -> Pairer {
        let mut p = Pairer {
            world: pre.comm_world_size.filter(|&w| w > 0).unwrap_or(65536),
            threads: pre.max_thread_count.filter(|&t| t > 0).unwrap_or(1),
            ids: EventIds::new(pre),
            cache: [None; CACHE],
            defs_applied: None,
            states: Queues::new(),
            sends: Queues::new(),
            recvs: Queues::new(),
            ended: false,
            next_slot: 0,
        };
        p.reset_meanings();
        p
    }

    /// The meanings of event IDs at the start of a trace.
    fn reset_meanings(&mut self) {
        self.ids.reset();
        self.cache = [None; CACHE];
        self.defs_applied = Some(0);
    }

    /// Sets the pairing up for a leaf: the meanings of event IDs after `defs`
    /// (the definitions block's entries of the leaves before it, which are the
    /// first `defs.len()` entries when `prefix` is true), and the waiting events
    /// of its carry-in block, each tagged with the leaf it came from.
    ///
    /// Every drawable the leaf begins gets a slot when its first record is
    /// pushed, counted from `first_slot`: the slots follow the order of those
    /// records, which is start-time order in a time-ordered trace.
    pub(crate) fn start_leaf(
        &mut self,
        all: &[Def],
        leaf: u32,
        prefix: bool,
        carry: &[Partial],
        first_slot: u32,
    ) {
        self.next_slot = first_slot;
        if prefix {
            let n = all.partition_point(|d| d.leaf < leaf);
            match self.defs_applied {
                Some(m) if m <= n => {}
                _ => self.reset_meanings(),
            }
            let m = self.defs_applied.unwrap_or(0);
            for d in &all[m..n] {
                self.define(d.kind, d.etype, d.final_etype);
            }
            self.defs_applied = Some(n);
        } else {
            self.reset_meanings();
            for d in all.iter().filter(|d| d.leaf < leaf) {
                self.define(d.kind, d.etype, d.final_etype);
            }
            self.defs_applied = None;
        }
        self.ended = false;
        self.states.clear();
        self.sends.clear();
        self.recvs.clear();
        for &w in carry {
            match w {
                Partial::State { prim, origin } => State {
                    category: prim.category,
                    line: prim.lines[0],
                }
                .start(
                    &mut self.states,
                    Open {
                        slot: NO_SLOT,
                        time: prim.times[0],
                        topo: topology::STATE,
                        info_len: prim.info_len,
                        info: prim.info,
                        origin: origin as u32,
                    },
                ),
                Partial::Send(m) => self.sends.push(arrow_key(m.key), carried(m)),
                Partial::Recv(m) => self.recvs.push(arrow_key(m.key), carried(m)),
            }
        }
    }

    /// The slot the next drawable begun in this leaf will get: the caller
    /// keeps one answer slot for each below it.
    #[inline]
    pub(crate) fn next_slot(&self) -> u32 {
        self.next_slot
    }

    /// True once ENDLOG was seen.
    pub(crate) fn ended(&self) -> bool {
        self.ended
    }

    /// The thread line ID `icomm·W·T + rank·T + thread` (Java `int` arithmetic).
    #[inline]
    fn thread_line(&self, icomm: i32, rank: i32, thread: i32) -> i32 {
        icomm
            .wrapping_mul(self.world.wrapping_mul(self.threads))
            .wrapping_add(rank.wrapping_mul(self.threads))
            .wrapping_add(thread)
    }

    /// The process line ID `icomm·W + rank` used to pair messages.
    #[inline]
    fn process_line(&self, icomm: i32, rank: i32) -> i32 {
        icomm.wrapping_mul(self.world).wrapping_add(rank)
    }

    fn lookup_uncached(&self, etype: i32) -> Option<Meaning> {
        self.ids.lookup(etype)
    }

    #[inline]
    fn lookup(&mut self, etype: i32) -> Option<Meaning> {
        let slot = etype as u32 as usize & (CACHE - 1);
        if let Some((e, v)) = self.cache[slot] {
            if e == etype {
                return v;
            }
        }
        let v = self.lookup_uncached(etype);
        self.cache[slot] = Some((etype, v));
        v
    }

    /// A STATEDEF (`kind` 2: `etype` starts, `final_etype` ends) or an EVENTDEF
    /// (any other kind), as `Clog2Drawables` takes them.
    fn define(&mut self, kind: u8, etype: i32, final_etype: i32) {
        self.cache = [None; CACHE];
        let _: Defined = if kind == 2 {
            self.ids.define_state(etype, final_etype)
        } else {
            self.ids.define_event(etype)
        };
    }

    /// Takes one record of leaf `leaf`; returns the primitive it completes, if
    /// any, with the leaf of the record that began it and its slot.
    #[inline]
    pub(crate) fn push(&mut self, r: &RecordRef<'_>, leaf: u32) -> Option<(Prim, u32, u32)> {
        if self.ended {
            return None;
        }
        match r.rectype {
            rectype::BAREEVT => {
                let line = self.thread_line(r.icomm, r.rank, r.thread);
                self.event(r.time, line, i32_at(r, 0), None, leaf)
            }
            rectype::CARGOEVT => {
                let line = self.thread_line(r.icomm, r.rank, r.thread);
                let cargo: Option<&[u8; 32]> = r.body.get(8..40).and_then(|b| b.try_into().ok());
                // A CARGOEVT body is 40 bytes; `None` cannot happen.
                let cargo = cargo.unwrap_or(&[0; 32]);
                self.event(r.time, line, i32_at(r, 0), Some(cargo), leaf)
            }
            rectype::MSGEVT => {
                let line = self.thread_line(r.icomm, r.rank, r.thread);
                let etype = i32_at(r, 0);
                let (remote, tag, size) = if r.layout.version.has_legacy_header() {
                    // etype, tag, partner, comm, size.
                    (
                        self.process_line(0, i32_at(r, 8)),
                        i32_at(r, 4),
                        i32_at(r, 16),
                    )
                } else {
                    // etype, icomm, rank, tag, size.
                    let remote = self.process_line(i32_at(r, 4), i32_at(r, 8));
                    (remote, i32_at(r, 12), i32_at(r, 16))
                };
                let local = self.process_line(r.icomm, r.rank);
                self.message(r.time, line, local, etype, tag, size, remote, leaf)
            }
            rectype::STATEDEF => {
                // state ID, start event, final event.
                self.define(2, i32_at(r, 4), i32_at(r, 8));
                self.defs_applied = None;
                None
            }
            rectype::EVENTDEF => {
                self.define(3, i32_at(r, 0), 0);
                self.defs_applied = None;
                None
            }
            rectype::ENDLOG => {
                self.ended = true;
                None
            }
            _ => None,
        }
    }

    #[inline]
    fn event(
        &mut self,
        time: f64,
        line: i32,
        etype: i32,
        cargo: Option<&[u8; 32]>,
        leaf: u32,
    ) -> Option<(Prim, u32, u32)> {
        if etype == -1 {
            return None;
        }
        let (cat, role, topo) = self.lookup(etype)?;
        // Fixed-size copies: an info is a whole cargo or nothing.
        let (info, info_len) = cargo.map_or(([0u8; 32], 0), |c| (*c, 32));
        let state = State {
            category: cat,
            line,
        };
        match role {
            Role::Solo => Some((
                prim(
                    cat,
                    topology::EVENT,
                    1,
                    [time, time],
                    [line, line],
                    info,
                    info_len,
                ),
                leaf,
                take_slot(&mut self.next_slot),
            )),
            Role::Start => {
                let slot = take_slot(&mut self.next_slot);
                state.start(
                    &mut self.states,
                    Open {
                        slot,
                        time,
                        topo,
                        info_len,
                        info,
                        origin: leaf,
                    },
                );
                None
            }
            Role::Final => {
                let o = state.close(&mut self.states)?;
                let p = match cargo {
                    Some(_) => prim(cat, topo, 2, [o.time, time], [line, line], info, 32),
                    None => prim(
                        cat,
                        o.topo,
                        2,
                        [o.time, time],
                        [line, line],
                        o.info,
                        o.info_len,
                    ),
                };
                Some((p, o.origin, o.slot))
            }
            Role::Send | Role::Recv => None,
        }
    }

    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn message(
        &mut self,
        time: f64,
        line: i32,
        local: i32,
        etype: i32,
        tag: i32,
        size: i32,
        remote: i32,
        leaf: u32,
    ) -> Option<(Prim, u32, u32)> {
        if etype == -1 {
            return None;
        }
        let send = match self.ids.handler_role(etype) {
            Some(Role::Send) => true,
            Some(Role::Recv) => false,
            _ => return None,
        };
        let m = Message {
            send,
            tag,
            size,
            local,
            remote,
            time,
            line,
        };
        let next_slot = &mut self.next_slot;
        let a = m.pair(&mut self.sends, &mut self.recvs, |size| Half {
            time,
            line,
            size,
            keep: Keep {
                slot: take_slot(next_slot),
                origin: leaf,
            },
        })?;
        Some((
            a.prim(ARROW_CATEGORY, tag),
            a.earlier.keep.origin,
            a.earlier.keep.slot,
        ))
    }
}

#[cfg(test)]
mod tests {
    //! What `start_leaf` makes event IDs mean, against an `EventIds` given the
    //! definitions of the leaves before by hand.

    use super::*;

    fn def(leaf: u32, kind: u8, etype: i32, final_etype: i32) -> Def {
        Def {
            leaf,
            kind,
            id: 0,
            etype,
            final_etype,
            color: [0; 24],
            name: [0; 32],
            format: [0; 40],
        }
    }

    /// IDs the definitions below give a meaning or try to change one.
    const ETYPES: [i32; 8] = [5000, 5001, 5002, 5003, 7000, 7001, 0, 1];

    /// A leaf starts from the meanings the definitions of the leaves before
    /// it give, taken as a prefix of a definitions block in leaf order or
    /// picked from one in any order (what the reader does when a block is not
    /// sorted); never those of its own leaf or later ones.
    #[test]
    fn a_leaf_starts_from_the_definitions_of_the_leaves_before_it() {
        let pre = PreambleInfo::mpe_default(4);
        let sorted = [
            def(0, 2, 5000, 5001),
            def(1, 3, 5002, 0),
            def(1, 2, 7000, 7001),
            def(2, 3, 5003, 0),
            def(3, 2, 0, 5002),
        ];
        let mut shuffled = sorted;
        shuffled.reverse();
        let mut p = Pairer::new(&pre);
        for leaf in (0..5u32).chain((0..5).rev()) {
            for (all, prefix) in [(&sorted, true), (&shuffled, false)] {
                // The block's definitions of earlier leaves, in its order.
                let mut ids = EventIds::new(&pre);
                for d in all.iter().filter(|d| d.leaf < leaf) {
                    let _: Defined = if d.kind == 2 {
                        ids.define_state(d.etype, d.final_etype)
                    } else {
                        ids.define_event(d.etype)
                    };
                }
                let want: Vec<_> = ETYPES.iter().map(|&e| ids.lookup(e)).collect();
                p.start_leaf(all, leaf, prefix, &[], 0);
                let got: Vec<_> = ETYPES.iter().map(|&e| p.lookup(e)).collect();
                assert_eq!(got, want, "leaf {leaf}, in leaf order: {prefix}");
            }
        }
    }
}
