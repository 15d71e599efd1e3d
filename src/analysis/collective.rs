//! Collective patterns (spec/analysis.md §3.3, §5.4–5.9): the calls of each
//! communicator are matched by their order (the k-th collective call of every
//! rank of a communicator is one instance), and an instance is measured as
//! soon as every rank of the communicator has reached it.

use super::calls::Call;
use super::report::{CollectiveProblem, Pattern, Patterns, RawInstance};
use rustc_hash::FxHashMap;

/// How many incomplete or mismatched instances the report lists.
const EXAMPLES: usize = 10;

/// One rank's call in a collective instance.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Part {
    pub timeline: i32,
    pub rank: i32,
    pub enter: f64,
    pub leave: f64,
    pub call: Call,
    pub category: i32,
    pub path: u32,
}

/// The collective pass.
#[derive(Debug)]
pub(crate) struct Collectives {
    /// Per (communicator, order class, timeline): calls seen.
    seq: FxHashMap<(i32, u8, i32), u64>,
    /// Instances some rank has not reached yet, by (communicator, class, position).
    open: FxHashMap<(i32, u8, u64), Vec<Part>>,
    /// Ranks per communicator (`None`: unknown, instances wait for the end).
    sizes: FxHashMap<i32, usize>,
    /// The size of a communicator not in `sizes`, if known.
    default_size: Option<usize>,
    pool: Vec<Vec<Part>>,
    /// The root's rank in its communicator for rooted collectives.
    root: i32,
    pub instances: u64,
    pub incomplete: u64,
    pub mismatched: u64,
    pub clock_violations: u64,
    pub examples: Vec<CollectiveProblem>,
    pub names: FxHashMap<i32, String>,
}

impl Collectives {
    pub fn new(
        sizes: FxHashMap<i32, usize>,
        default_size: Option<usize>,
        root: i32,
    ) -> Collectives {
        Collectives {
            seq: FxHashMap::default(),
            open: FxHashMap::default(),
            sizes,
            default_size,
            pool: Vec::new(),
            root,
            instances: 0,
            incomplete: 0,
            mismatched: 0,
            clock_violations: 0,
            examples: Vec::new(),
            names: FxHashMap::default(),
        }
    }

    /// The earliest enter in an instance not yet complete: no collective
    /// wait state ends before it is unknown.
    pub fn low_bound(&self) -> f64 {
        self.open
            .values()
            .flat_map(|v| v.iter().map(|p| p.enter))
            .fold(f64::INFINITY, f64::min)
    }

    fn size(&self, comm: i32) -> Option<usize> {
        self.sizes.get(&comm).copied().or(self.default_size)
    }

    /// A collective call of timeline `p.timeline` on communicator `comm`.
    pub fn push(&mut self, comm: i32, p: Part, pats: &mut Patterns) {
        let class = p.call.order_class();
        let size = self.size(comm);
        let n = self.seq.entry((comm, class, p.timeline)).or_insert(0);
        let key = (comm, class, *n);
        *n += 1;
        let pool = &mut self.pool;
        let parts = self
            .open
            .entry(key)
            .or_insert_with(|| pool.pop().unwrap_or_default());
        parts.push(p);
        if size.is_some_and(|s| parts.len() >= s) {
            let parts = self.open.remove(&key).expect("present");
            self.complete(key, parts, pats);
        }
    }

    /// The end: instances still open are complete when the communicator's
    /// size was unknown and every timeline seen reached them, else incomplete.
    pub fn finish(&mut self, timelines: usize, pats: &mut Patterns) {
        let mut open: Vec<_> = self.open.drain().collect();
        open.sort_by_key(|(k, _)| *k);
        for (key, parts) in open {
            match self.size(key.0) {
                None if parts.len() == timelines => self.complete(key, parts, pats),
                size => self.problem("incomplete", key, &parts, size.unwrap_or(timelines)),
            }
        }
    }

    fn problem(&mut self, what: &'static str, key: (i32, u8, u64), parts: &[Part], size: usize) {
        if what == "incomplete" {
            self.incomplete += 1;
        } else {
            self.mismatched += 1;
        }
        if self.examples.len() < EXAMPLES {
            self.examples.push(CollectiveProblem {
                problem: what,
                communicator: key.0,
                position: key.2,
                calls: parts
                    .iter()
                    .map(|p| self.names.get(&p.category).cloned().unwrap_or_default())
                    .collect(),
                timelines: parts.iter().map(|p| p.timeline).collect(),
                size,
            });
        }
    }

    /// The wait `[start, end)` of participant `p`, caused by `partner` at
    /// `cause`: counted by its part inside the window (spec/analysis.md §8).
    #[allow(clippy::too_many_arguments)]
    fn add(
        &self,
        pats: &mut Patterns,
        pat: Pattern,
        p: &Part,
        (start, end): (f64, f64),
        partner: i32,
        cause: f64,
    ) {
        if end > start {
            let i = RawInstance::new(
                p.timeline,
                (p.enter, p.category, p.path),
                start,
                end,
                partner,
                cause,
            );
            pats.add_wait(pat, i);
        }
    }

    fn complete(&mut self, key: (i32, u8, u64), mut parts: Vec<Part>, pats: &mut Patterns) {
        let call = parts[0].call;
        if parts.iter().any(|p| p.call != call) {
            let size = parts.len();
            self.problem("mismatched", key, &parts, size);
        } else {
            self.instances += 1;
            self.measure(call, &parts, pats);
        }
        parts.clear();
        self.pool.push(parts);
    }

    fn measure(&mut self, call: Call, parts: &[Part], pats: &mut Patterns) {
        // The last to enter and the first to leave.
        let latest = parts
            .iter()
            .max_by(|a, b| a.enter.total_cmp(&b.enter))
            .expect("an instance has a part");
        let first_out = parts
            .iter()
            .min_by(|a, b| a.leave.total_cmp(&b.leave))
            .expect("an instance has a part");
        let earliest_end = first_out.leave;
        let (wait, completion) = match call {
            Call::Barrier => (
                Some(Pattern::WaitAtBarrier),
                Some(Pattern::BarrierCompletion),
            ),
            Call::NxN => (Some(Pattern::WaitAtNxN), Some(Pattern::NxNCompletion)),
            Call::Finalize => (Some(Pattern::WaitAtFinalize), None),
            Call::Init => (None, Some(Pattern::InitCompletion)),
            Call::OneToN => return self.late_broadcast(parts, pats),
            Call::NToOne => return self.early_reduce(parts, pats),
            Call::Scan => return self.early_scan(parts, pats),
            _ => return,
        };
        for p in parts {
            if latest.enter > p.leave {
                self.clock_violations += 1;
            }
            // Wait and completion restricted to the time in the call.
            let latest_begin = latest.enter.min(p.leave);
            let earliest_end = earliest_end.max(latest_begin);
            if let Some(w) = wait {
                let idle = latest_begin - p.enter;
                pats.jump(idle, latest_begin, p.timeline, latest.timeline);
                let span = (p.enter, latest_begin);
                self.add(pats, w, p, span, latest.timeline, latest.enter);
            }
            if let Some(c) = completion {
                let span = (earliest_end, p.leave);
                self.add(pats, c, p, span, first_out.timeline, first_out.leave);
            }
        }
    }

    /// Non-root ranks entering a one-to-n collective before the root.
    fn late_broadcast(&mut self, parts: &[Part], pats: &mut Patterns) {
        let root_rank = self.root;
        let Some(root) = parts.iter().find(|p| p.rank == root_rank) else {
            return;
        };
        for p in parts.iter().filter(|p| p.rank != root_rank) {
            if root.enter > p.leave {
                self.clock_violations += 1;
            }
            let end = root.enter.min(p.leave);
            let idle = end - p.enter;
            pats.jump(idle, p.enter + idle, p.timeline, root.timeline);
            let span = (p.enter, end);
            self.add(
                pats,
                Pattern::LateBroadcast,
                p,
                span,
                root.timeline,
                root.enter,
            );
        }
    }

    /// The root of an n-to-one collective entering before the last sender.
    fn early_reduce(&mut self, parts: &[Part], pats: &mut Patterns) {
        let root_rank = self.root;
        let Some(root) = parts.iter().find(|p| p.rank == root_rank) else {
            return;
        };
        let Some(last) = parts
            .iter()
            .filter(|p| p.rank != root_rank)
            .max_by(|a, b| a.enter.total_cmp(&b.enter))
        else {
            return;
        };
        if last.enter > root.leave {
            self.clock_violations += 1;
        }
        let end = last.enter.min(root.leave);
        let idle = end - root.enter;
        pats.jump(idle, root.enter + idle, root.timeline, last.timeline);
        let span = (root.enter, end);
        self.add(
            pats,
            Pattern::EarlyReduce,
            root,
            span,
            last.timeline,
            last.enter,
        );
    }

    /// Rank n of a scan entering before the last of ranks 0..n.
    fn early_scan(&mut self, parts: &[Part], pats: &mut Patterns) {
        let mut by_rank: Vec<&Part> = parts.iter().collect();
        by_rank.sort_by_key(|p| p.rank);
        // The latest enter among the ranks below, as the ranks go up.
        let mut last: Option<&Part> = None;
        let mut k = 0;
        while k < by_rank.len() {
            // Ranks equal to this one are not below it.
            let mut j = k;
            while j < by_rank.len() && by_rank[j].rank == by_rank[k].rank {
                let p = by_rank[j];
                if let Some(l) = last {
                    if l.enter > p.leave {
                        self.clock_violations += 1;
                    }
                    let end = l.enter.min(p.leave);
                    let idle = end - p.enter;
                    pats.jump(idle, p.enter + idle, p.timeline, l.timeline);
                    let span = (p.enter, end);
                    self.add(pats, Pattern::EarlyScan, p, span, l.timeline, l.enter);
                }
                j += 1;
            }
            for p in &by_rank[k..j] {
                if last.is_none_or(|l| p.enter > l.enter) {
                    last = Some(p);
                }
            }
            k = j;
        }
    }
}
