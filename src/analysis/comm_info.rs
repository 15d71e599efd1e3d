//! The communicator of a collective call read from the trace's own collective
//! records (spec/analysis.md §3.1): an OTF2 conversion puts a `collective
//! <op>` state, whose info names the communicator, the location's rank in it
//! and its size (otf2.md §9.3), inside the MPI call's state. The call is
//! held until that state arrives on its timeline, so that collectives are
//! matched per communicator with its own members.

use super::collective::Part;
use rustc_hash::FxHashMap;
use slog2_format::types::{topology, Category};

/// A collective call's communicator as its collective record names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CommOf {
    /// The communicator's ID (the OTF2 definition's reference).
    pub comm: i32,
    /// The timeline's rank in it.
    pub rank: i32,
    /// Its number of ranks.
    pub size: usize,
}

/// Whether a category is a collective record with the communicator's rank
/// and size in its info: a state named `collective …` whose info is
/// `comm=%d, root=%d, sent=%l, received=%l, rank=%d, size=%d`.
pub(crate) fn is_record(c: &Category) -> bool {
    c.topology == topology::STATE
        && c.name.text().starts_with("collective ")
        && c.types.starts_with(b"ddlldd")
}

/// The communicator an info of a collective record names (`None`: too short,
/// or rank or size unknown).
pub(crate) fn parse(info: &[u8]) -> Option<CommOf> {
    let i32_at = |at: usize| -> Option<i32> {
        let b: [u8; 4] = info.get(at..at + 4)?.try_into().ok()?;
        Some(i32::from_be_bytes(b))
    };
    let (comm, rank, size) = (i32_at(0)?, i32_at(24)?, i32_at(28)?);
    let size = usize::try_from(size).ok().filter(|&s| s > 0)?;
    (rank >= 0 && (rank as usize) < size).then_some(CommOf { comm, rank, size })
}

/// A collective call ready to be matched: its communicator, the call (with
/// its rank there) and the communicator's size when its record gave it.
pub(crate) type Ready = (i32, Part, Option<usize>);

/// Per timeline, the collective call waiting for its record, or a record
/// that came first (a record spanning its call exactly may come before it in
/// start order): at most one of each, released by the next state of the
/// timeline not inside it.
#[derive(Debug, Default)]
pub(crate) struct Pending {
    /// Whether the trace has collective records at all (else nothing waits).
    pub active: bool,
    calls: FxHashMap<i32, (i32, Part)>,
    records: FxHashMap<i32, (f64, f64, CommOf)>,
}

impl Pending {
    /// Nothing held; `active` when the trace has collective records.
    pub fn new(active: bool) -> Pending {
        Pending {
            active,
            ..Pending::default()
        }
    }

    /// A state `[s, e]` on `timeline`: the call held there when the state is
    /// not inside it (to be pushed, with the communicator of the line maps,
    /// before the state is taken); a record held there is dropped unless the
    /// state contains it.
    pub fn state(&mut self, timeline: i32, s: f64, e: f64) -> Option<Ready> {
        if let Some(&(rs, re, _)) = self.records.get(&timeline) {
            if !(s <= rs && re <= e) {
                self.records.remove(&timeline);
            }
        }
        let &(_, p) = self.calls.get(&timeline)?;
        if p.enter <= s && e <= p.leave {
            return None;
        }
        self.calls.remove(&timeline).map(|(c, p)| (c, p, None))
    }

    /// A collective record `[s, e]` on `timeline`: the call it belongs to, on
    /// the record's communicator with the record's rank, when that call is
    /// held; else the record waits for its call.
    pub fn record(&mut self, timeline: i32, s: f64, e: f64, c: CommOf) -> Option<Ready> {
        match self.calls.get(&timeline) {
            Some(&(_, p)) if p.enter <= s && e <= p.leave => {
                self.calls.remove(&timeline);
                Some((c.comm, Part { rank: c.rank, ..p }, Some(c.size)))
            }
            _ => {
                self.records.insert(timeline, (s, e, c));
                None
            }
        }
    }

    /// A collective call on `comm` (by the line maps): the call to push now,
    /// on its record's communicator, when its record came first; else it is
    /// held.
    pub fn call(&mut self, comm: i32, part: Part) -> Option<Ready> {
        let tl = part.timeline;
        if let Some(&(s, e, c)) = self.records.get(&tl) {
            if part.enter <= s && e <= part.leave {
                self.records.remove(&tl);
                return Some((
                    c.comm,
                    Part {
                        rank: c.rank,
                        ..part
                    },
                    Some(c.size),
                ));
            }
        }
        self.calls.insert(tl, (comm, part));
        None
    }

    /// The earliest enter of a held call (no collective wait ends before it
    /// is known).
    pub fn low_bound(&self) -> f64 {
        self.calls
            .values()
            .map(|(_, p)| p.enter)
            .fold(f64::INFINITY, f64::min)
    }

    /// Every call still held, in timeline order (the end of the trace).
    pub fn drain(&mut self) -> Vec<Ready> {
        self.records.clear();
        let mut v: Vec<Ready> = self.calls.drain().map(|(_, (c, p))| (c, p, None)).collect();
        v.sort_by_key(|(_, p, _)| p.timeline);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(comm: i32, rank: i32, size: i32) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend(comm.to_be_bytes());
        v.extend((-1i32).to_be_bytes());
        v.extend(8i64.to_be_bytes());
        v.extend(8i64.to_be_bytes());
        v.extend(rank.to_be_bytes());
        v.extend(size.to_be_bytes());
        v
    }

    #[test]
    fn parses_rank_and_size_and_refuses_unknown_ones() {
        assert_eq!(
            parse(&info(3, 1, 2)),
            Some(CommOf {
                comm: 3,
                rank: 1,
                size: 2
            })
        );
        assert_eq!(parse(&info(3, -1, 2)), None); // not a member
        assert_eq!(parse(&info(3, 0, -1)), None); // undefined communicator
        assert_eq!(parse(&info(3, 2, 2)), None); // rank past the size
        assert_eq!(parse(&info(3, 0, 2)[..24]), None); // old info, no rank
    }
}
