//! The log of every wait state an analysis records
//! ([`crate::analysis::Options::record`]), in the order found: in memory up
//! to a bound ([`crate::analysis::Options::record_memory`]), beyond it in
//! sorted runs in a temporary file ([`Spilled`]), read back in the order of
//! an index ([`merged`]) to write one without holding it
//! ([`super::write_recorded`]).

use super::Wait;
use crate::analysis::Pattern;
use rustc_hash::FxHashMap;
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::FileExt;

/// Bytes of a wait in a run: its index in the log, start, end, cause,
/// timeline, partner, call, pattern and whether it has a partner.
const RECORD: usize = 8 + 8 * 3 + 4 * 3 + 2;

/// Bytes read from a run at a time.
const READ: usize = 1 << 16;

/// The log of an analysis that records: the waits found, the first ones
/// spilled once `limit` are held.
#[derive(Debug)]
pub(crate) struct Log {
    /// The waits from `base` on.
    pub(crate) mem: Vec<Wait>,
    base: usize,
    limit: usize,
    pub(crate) spilled: Option<Runs>,
}

impl Log {
    /// A log that holds `limit` waits (at least 1, at most `u32::MAX`)
    /// before it spills them; `usize::MAX`: never.
    pub(crate) fn new(limit: usize) -> Log {
        let limit = match limit {
            usize::MAX => usize::MAX,
            n => n.clamp(1, u32::MAX as usize),
        };
        Log {
            mem: Vec::new(),
            base: 0,
            limit,
            spilled: None,
        }
    }

    /// Adds `w`; its index in the log.
    pub(crate) fn push(&mut self, w: Wait) -> usize {
        let k = self.base + self.mem.len();
        if self.mem.capacity() == 0 && self.limit != usize::MAX {
            // The room of a run at once (up to 4 Mi waits, 192 MiB): grown
            // by doubling, the log would hold up to twice its bound while it
            // copies.
            self.mem.reserve_exact(self.limit.min(1 << 22));
        }
        self.mem.push(w);
        if self.mem.len() >= self.limit {
            self.spill();
        }
        k
    }

    /// Changes the pattern of the wait of index `k` to `p`.
    pub(crate) fn relabel(&mut self, k: usize, p: Pattern) {
        match k.checked_sub(self.base) {
            Some(i) => {
                if let Some(w) = self.mem.get_mut(i) {
                    w.pattern = p;
                }
            }
            None => {
                if let Some(s) = self.spilled.as_mut() {
                    s.late.insert(k, p);
                }
            }
        }
    }

    /// The waits held, written as one more run in the index's order (their
    /// 16-byte keys sorted, not the waits themselves), and their room kept
    /// for the next ones.
    fn spill(&mut self) {
        let s = self.spilled.get_or_insert_with(Runs::new);
        let mem = &self.mem;
        // Sorted by timeline and start in place, each with its place; the
        // rest of the order (rare ties) looked up.
        let mut keys: Vec<(i32, f64, u32)> = mem
            .iter()
            .enumerate()
            .map(|(i, w)| (w.timeline, w.start, i as u32))
            .collect();
        keys.sort_unstable_by(|a, b| {
            a.0.cmp(&b.0)
                .then(a.1.total_cmp(&b.1))
                .then_with(|| Wait::total_order(&mem[a.2 as usize], &mem[b.2 as usize]))
        });
        s.write_run(self.base, mem, keys.iter().map(|k| k.2));
        self.base += mem.len();
        self.mem.clear();
    }
}

/// The waits a recording analysis spilled: sorted runs in a temporary file,
/// and the patterns changed after a run was written
/// ([`crate::analysis::Recorded::spilled`]). A clone shares the file; two
/// are equal when they share it.
#[derive(Debug, Clone)]
pub struct Spilled(pub(crate) std::sync::Arc<Runs>);

impl PartialEq for Spilled {
    fn eq(&self, other: &Spilled) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Spilled {
    /// How many waits were spilled.
    ///
    /// ```
    /// use mpelog::analysis::{one_pass, Options};
    /// let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
    /// let mut r = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// let (mut sorted, _) = slog2_format::convert::clog2_into(&mut r, mpelog::export::sorted::StartOrder::new(), |_| {})?;
    /// let report = one_pass(&mut sorted, &Options::default().record(true).record_memory(1))?;
    /// let rec = report.recorded.unwrap();
    /// let spilled = rec.spilled.as_ref().unwrap();
    /// assert!(spilled.len() > 0 && rec.waits.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn len(&self) -> usize {
        self.0.runs.iter().map(|r| r.1).sum()
    }

    /// Whether no wait was spilled.
    ///
    /// ```
    /// # use mpelog::analysis::{one_pass, Options};
    /// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
    /// # let mut r = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (mut sorted, _) = slog2_format::convert::clog2_into(&mut r, mpelog::export::sorted::StartOrder::new(), |_| {})?;
    /// let report = one_pass(&mut sorted, &Options::default().record(true).record_memory(1))?;
    /// assert!(!report.recorded.unwrap().spilled.unwrap().is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Sorted runs of waits in a temporary file, and the relabels of waits
/// already written.
#[derive(Debug)]
pub(crate) struct Runs {
    file: Option<File>,
    /// Each run's first byte and its count of waits.
    runs: Vec<(u64, usize)>,
    end: u64,
    /// Relabels of spilled waits, by index in the log.
    late: FxHashMap<usize, Pattern>,
    /// The first error met writing a run (the waits are then incomplete).
    error: Option<io::Error>,
}

impl Runs {
    fn new() -> Runs {
        let (file, error) = match tempfile::tempfile() {
            Ok(f) => (Some(f), None),
            Err(e) => (None, Some(e)),
        };
        Runs {
            file,
            runs: Vec::new(),
            end: 0,
            late: FxHashMap::default(),
            error,
        }
    }

    /// Writes `held[i]` (of index `base + i` in the log) for each `i` of
    /// `order`, as one run.
    fn write_run(&mut self, base: usize, held: &[Wait], order: impl Iterator<Item = u32>) {
        if self.error.is_some() {
            return;
        }
        let Some(f) = self.file.as_mut() else { return };
        let mut buf = Vec::with_capacity(READ);
        let start = self.end;
        let put = |buf: &mut Vec<u8>, f: &mut File, last: bool| -> io::Result<()> {
            if buf.len() >= READ || last {
                f.write_all(buf)?;
                buf.clear();
            }
            Ok(())
        };
        let mut r = Ok(());
        for i in order {
            encode(base + i as usize, &held[i as usize], &mut buf);
            r = r.and_then(|_| put(&mut buf, f, false));
        }
        r = r.and_then(|_| put(&mut buf, f, true));
        match r {
            Ok(()) => {
                self.end = start + (held.len() * RECORD) as u64;
                self.runs.push((start, held.len()));
            }
            Err(e) => self.error = Some(e),
        }
    }
}

fn encode(k: usize, w: &Wait, out: &mut Vec<u8>) {
    out.extend_from_slice(&(k as u64).to_le_bytes());
    out.extend_from_slice(&w.start.to_le_bytes());
    out.extend_from_slice(&w.end.to_le_bytes());
    out.extend_from_slice(&w.cause.to_le_bytes());
    out.extend_from_slice(&w.timeline.to_le_bytes());
    out.extend_from_slice(&w.partner.unwrap_or(0).to_le_bytes());
    out.extend_from_slice(&w.call.to_le_bytes());
    out.push(w.pattern.index() as u8);
    out.push(u8::from(w.partner.is_some()));
}

fn decode(b: &[u8]) -> (usize, Wait) {
    let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
    let f64_at = |i: usize| f64::from_bits(u64_at(i));
    let i32_at = |i: usize| i32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
    let pattern = Pattern::ALL[usize::from(b[44]).min(Pattern::ALL.len() - 1)];
    (
        u64_at(0) as usize,
        Wait {
            start: f64_at(8),
            end: f64_at(16),
            cause: f64_at(24),
            timeline: i32_at(32),
            partner: (b[45] == 1).then(|| i32_at(36)),
            call: i32_at(40),
            pattern,
        },
    )
}

/// One run read back a piece at a time.
struct Run<'a> {
    file: &'a File,
    at: u64,
    left: usize,
    buf: Vec<u8>,
    pos: usize,
}

impl Run<'_> {
    fn next(&mut self) -> io::Result<Option<(usize, Wait)>> {
        if self.pos == self.buf.len() {
            if self.left == 0 {
                return Ok(None);
            }
            let n = self.left.min(READ / RECORD);
            self.buf.resize(n * RECORD, 0);
            self.file.read_exact_at(&mut self.buf, self.at)?;
            self.at += (n * RECORD) as u64;
            self.left -= n;
            self.pos = 0;
        }
        let w = decode(&self.buf[self.pos..self.pos + RECORD]);
        self.pos += RECORD;
        Ok(Some(w))
    }
}

/// A run's next wait, ordered for the heap of a merge (least first).
struct Head {
    wait: Wait,
    run: usize,
}

impl PartialEq for Head {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Head {}
impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Head {
    fn cmp(&self, other: &Self) -> Ordering {
        Wait::total_order(&other.wait, &self.wait).then(other.run.cmp(&self.run))
    }
}

/// Every wait of `tail` (the waits held in memory, sorted here) and of
/// `spilled`, with the later relabels, in the order of an index: by
/// timeline, start and end, then the other fields (so that the order and an
/// index's bytes do not depend on where the waits were held). Waits with a
/// time that is not finite, or not positive, are left out, as
/// [`WaitIndex::new`](super::WaitIndex::new) leaves them out. `each` sees
/// them one by one; it may be run again over the same waits.
///
/// # Errors
///
/// The error of a run's write or read.
pub(crate) fn merged(
    tail: &mut [Wait],
    spilled: Option<&Runs>,
    each: &mut dyn FnMut(&Wait) -> io::Result<()>,
) -> io::Result<()> {
    if !tail.is_sorted_by(|a, b| Wait::total_order(a, b).is_le()) {
        tail.sort_unstable_by(Wait::total_order);
    }
    let none = FxHashMap::default();
    let (mut runs, late) = match spilled {
        Some(s) => {
            if let Some(e) = &s.error {
                return Err(io::Error::new(
                    e.kind(),
                    format!("writing the waits to a temporary file: {e}"),
                ));
            }
            let file = s.file.as_ref().expect("a file where there is no error");
            let runs: Vec<Run<'_>> = s
                .runs
                .iter()
                .map(|&(at, left)| Run {
                    file,
                    at,
                    left,
                    buf: Vec::new(),
                    pos: 0,
                })
                .collect();
            (runs, &s.late)
        }
        None => (Vec::new(), &none),
    };
    let relabeled = |(k, mut w): (usize, Wait)| {
        if let Some(&p) = late.get(&k) {
            w.pattern = p;
        }
        w
    };
    let mut heap = BinaryHeap::with_capacity(runs.len() + 1);
    for (i, r) in runs.iter_mut().enumerate() {
        if let Some(w) = r.next()? {
            heap.push(Head {
                wait: relabeled(w),
                run: i,
            });
        }
    }
    let tail_run = runs.len();
    let mut tail = tail.iter();
    if let Some(w) = tail.next() {
        heap.push(Head {
            wait: *w,
            run: tail_run,
        });
    }
    // Waits alike but for their pattern, which a relabel may have changed
    // after their run was sorted: put in pattern order before they leave.
    let mut alike: Vec<Wait> = Vec::new();
    let same_but_pattern = |a: &Wait, b: &Wait| {
        let mut b = *b;
        b.pattern = a.pattern;
        Wait::total_order(a, &b) == Ordering::Equal
    };
    let mut flush = |alike: &mut Vec<Wait>| -> io::Result<()> {
        alike.sort_by_key(|w| w.pattern.index());
        for w in alike.drain(..) {
            if w.start.is_finite() && w.end.is_finite() && w.end > w.start {
                each(&w)?;
            }
        }
        Ok(())
    };
    while let Some(Head { wait, run }) = heap.pop() {
        let next = if run == tail_run {
            tail.next().copied()
        } else {
            runs[run].next()?.map(relabeled)
        };
        if let Some(w) = next {
            heap.push(Head { wait: w, run });
        }
        if alike.last().is_some_and(|l| !same_but_pattern(l, &wait)) {
            flush(&mut alike)?;
        }
        alike.push(wait);
    }
    flush(&mut alike)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(timeline: i32, start: f64, pattern: Pattern) -> Wait {
        Wait {
            timeline,
            start,
            end: start + 1.0,
            pattern,
            partner: (timeline > 0).then_some(timeline - 1),
            cause: start + 1.0,
            call: 3,
        }
    }

    fn all(log: &mut Log) -> Vec<Wait> {
        let mut out = Vec::new();
        merged(&mut log.mem, log.spilled.as_ref(), &mut |w| {
            out.push(*w);
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn a_record_reads_back_as_written() {
        let x = w(-3, -0.5, Pattern::InitCompletion);
        let mut b = Vec::new();
        encode(7, &x, &mut b);
        assert_eq!(b.len(), RECORD);
        assert_eq!(decode(&b), (7, x));
        let y = Wait { partner: None, ..x };
        b.clear();
        encode(8, &y, &mut b);
        assert_eq!(decode(&b), (8, y));
    }

    #[test]
    fn spilled_or_held_the_waits_come_back_alike_with_every_relabel() {
        let found: Vec<Wait> = (0..500)
            .map(|i| w(i % 7, ((i * 37) % 101) as f64, Pattern::LateSender))
            .chain([
                w(1, 0.0, Pattern::LateSender),
                w(1, 0.0, Pattern::LateSender),
            ])
            .collect();
        let run = |limit: usize| {
            let mut log = Log::new(limit);
            let mut ks = Vec::new();
            for x in &found {
                ks.push(log.push(*x));
            }
            // Relabels, of waits spilled long ago and of waits held.
            for &k in ks.iter().step_by(3) {
                log.relabel(k, Pattern::LswoSameSource);
            }
            log.relabel(ks[ks.len() - 1], Pattern::LswoDifferentSource);
            all(&mut log)
        };
        let held = run(usize::MAX);
        assert_eq!(held.len(), found.len());
        assert!(held.is_sorted_by(|a, b| Wait::total_order(a, b).is_le()));
        for limit in [1, 2, 64, 499] {
            assert_eq!(run(limit), held, "spilled every {limit}");
        }
    }
}
