//! The critical path (spec/analysis.md §6; Böhme et al., IPDPS 2012): the
//! path that runs backwards from the end of the last timeline, on each
//! timeline through what it executes, and at the end of each wait state over
//! to the timeline that caused the wait, at the time the wait ended.
//!
//! It is computed forwards in one pass: each timeline carries the profile of
//! the critical path that ends at its current time (seconds per state
//! category and per timeline); at the end of a wait state the waiting
//! timeline's profile becomes its causer's at that time. A timeline is swept
//! only up to a time before which every wait state is known (the stream's
//! time, held back by the calls still waiting for a message end and the
//! collective instances not yet complete), so its states wait in a queue until
//! then.

use rustc_hash::FxHashMap;
use serde::Serialize;
use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeMap, BinaryHeap, VecDeque};

/// The critical path's profile.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CriticalPath {
    /// Its length in seconds (inside the window).
    pub seconds: f64,
    /// The timeline it ends on (the one whose last state ends last).
    pub end_timeline: Option<i32>,
    /// Seconds per state category (the innermost state on the path; time
    /// outside every state is `(no state)`), the most first.
    pub per_category: Vec<CriticalCategory>,
    /// Seconds on the path per timeline.
    pub per_timeline: BTreeMap<i32, f64>,
    /// Σ over categories of their critical-path imbalance: the time the path
    /// would lose if every category took its mean time.
    pub imbalance_impact: f64,
    /// `imbalance_impact` over the path's length (0 for an empty path).
    pub imbalance_share: f64,
}

/// One category on the critical path.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CriticalCategory {
    /// The category's name.
    pub category: String,
    /// Seconds on the path.
    pub seconds: f64,
    /// Share of the path's length.
    pub share: f64,
    /// Its mean exclusive seconds per timeline.
    pub mean: f64,
    /// Critical-path imbalance: `max(0, seconds − mean)`.
    pub imbalance: f64,
}

/// A wait state's end: `waiter` takes `cause`'s path at `time`.
#[derive(Debug, Clone, Copy)]
struct Jump {
    time: f64,
    seq: u64,
    waiter: usize,
    cause: usize,
}

impl PartialEq for Jump {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Jump {}
impl PartialOrd for Jump {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Jump {
    fn cmp(&self, o: &Self) -> Ordering {
        self.time.total_cmp(&o.time).then(self.seq.cmp(&o.seq))
    }
}

/// One timeline's sweep.
#[derive(Debug, Default)]
struct Lane {
    /// States not yet swept: start, end, dense category.
    queue: VecDeque<(f64, f64, usize)>,
    /// Open states: end, dense category.
    stack: Vec<(f64, usize)>,
    /// Swept up to here (`None`: nothing yet).
    at: Option<f64>,
    /// The profile of the path ending at `at`: per dense category, then per
    /// timeline index (from `ncat + 1` on).
    profile: Vec<f64>,
    /// The latest end of its states.
    last: f64,
    /// The earliest start of its states (its clock starts there).
    first: f64,
}

/// The critical-path pass.
#[derive(Debug)]
pub(crate) struct Cp {
    cats: FxHashMap<i32, usize>,
    cat_ids: Vec<i32>,
    locs: FxHashMap<i32, usize>,
    loc_ids: Vec<i32>,
    lanes: Vec<Lane>,
    jumps: BinaryHeap<Reverse<Jump>>,
    seq: u64,
    from: f64,
    to: f64,
    /// The jumps taken, in the order taken (time, then arrival), when the
    /// path's segments are wanted: (time, waiter lane, cause lane).
    taken: Option<super::taken::Taken>,
}

impl Cp {
    pub fn new(state_categories: &[i32], from: f64, to: f64) -> Cp {
        let cats = state_categories
            .iter()
            .enumerate()
            .map(|(i, &c)| (c, i))
            .collect();
        Cp {
            cats,
            cat_ids: state_categories.to_vec(),
            locs: FxHashMap::default(),
            loc_ids: Vec::new(),
            lanes: Vec::new(),
            jumps: BinaryHeap::new(),
            seq: 0,
            from,
            to,
            taken: None,
        }
    }

    /// States queued for the sweep and wait ends not yet reached (memory
    /// the pass holds).
    pub fn held(&self) -> usize {
        self.lanes.iter().map(|l| l.queue.len()).sum::<usize>() + self.jumps.len()
    }

    /// Keeps the jumps taken, for [`finish`](Self::finish) to give the
    /// path's segments: `held` of them in memory, the earlier ones in a
    /// temporary file.
    pub fn record(&mut self, held: usize) {
        self.taken = Some(super::taken::Taken::new(held));
    }

    /// The slot of time outside every state.
    fn outside(&self) -> usize {
        self.cat_ids.len()
    }

    fn lane(&mut self, loc: i32) -> usize {
        if let Some(&i) = self.locs.get(&loc) {
            return i;
        }
        let i = self.lanes.len();
        self.locs.insert(loc, i);
        self.loc_ids.push(loc);
        self.lanes.push(Lane {
            last: f64::NEG_INFINITY,
            first: f64::INFINITY,
            ..Lane::default()
        });
        i
    }

    /// A state of timeline `loc`, in start order.
    pub fn state(&mut self, loc: i32, category: i32, start: f64, end: f64) {
        let c = match self.cats.get(&category) {
            Some(&c) => c,
            None => {
                let c = self.cat_ids.len();
                // A category outside the legend: appended (rare).
                self.cat_ids.push(category);
                self.cats.insert(category, c);
                for l in &mut self.lanes {
                    if !l.profile.is_empty() {
                        l.profile.insert(c, 0.0);
                    }
                }
                c
            }
        };
        let i = self.lane(loc);
        let lane = &mut self.lanes[i];
        lane.queue.push_back((start, end, c));
        lane.last = lane.last.max(end);
        lane.first = lane.first.min(start);
    }

    /// The end of a wait state of `waiter` at `time`, caused by `cause`.
    pub fn jump(&mut self, time: f64, waiter: i32, cause: i32) {
        if waiter == cause || !time.is_finite() {
            return;
        }
        let (waiter, cause) = (self.lane(waiter), self.lane(cause));
        self.seq += 1;
        self.jumps.push(Reverse(Jump {
            time,
            seq: self.seq,
            waiter,
            cause,
        }));
    }

    /// Every wait state ending before `safe` is known: sweep up to it.
    pub fn step(&mut self, safe: f64) {
        while let Some(Reverse(j)) = self.jumps.peek().copied() {
            if j.time > safe {
                break;
            }
            self.jumps.pop();
            if let Some(t) = self.taken.as_mut() {
                // Lanes are counted in u32 (a timeline each).
                t.push((j.time, j.waiter as u32, j.cause as u32));
            }
            self.advance(j.waiter, j.time);
            self.advance(j.cause, j.time);
            let n = self.lanes[j.waiter]
                .profile
                .len()
                .max(self.lanes[j.cause].profile.len());
            let (w, c) = pair(&mut self.lanes, j.waiter, j.cause);
            w.profile.resize(n, 0.0);
            c.profile.resize(n, 0.0);
            w.profile.copy_from_slice(&c.profile);
        }
        if safe.is_finite() {
            // Not past a timeline's last known end: the path ends there when
            // nothing follows.
            for i in 0..self.lanes.len() {
                let until = safe.min(self.lanes[i].last);
                self.advance(i, until);
            }
        }
    }

    /// Sweeps lane `i` up to `t`.
    fn advance(&mut self, i: usize, t: f64) {
        let outside = self.outside();
        let own = outside + 1 + i;
        let (from, to) = (self.from, self.to);
        let lane = &mut self.lanes[i];
        if lane.profile.len() <= own {
            lane.profile.resize(own + 1, 0.0);
        }
        if lane.at.is_none() {
            // The timeline's clock starts at its first state.
            match lane.queue.front() {
                Some(q) if q.0 <= t => lane.at = Some(q.0),
                _ => return,
            }
        }
        let attribute = |lane: &mut Lane, until: f64| {
            let Some(at) = lane.at else {
                lane.at = Some(until);
                return;
            };
            if until > at {
                let dt = (until.min(to) - at.max(from)).max(0.0);
                let c = lane.stack.last().map_or(outside, |s| s.1);
                lane.profile[c] += dt;
                lane.profile[own] += dt;
                lane.at = Some(until);
            }
        };
        loop {
            let next = lane.queue.front().map(|q| q.0).filter(|&s| s <= t);
            let limit = next.unwrap_or(t);
            while let Some(&(end, _)) = lane.stack.last() {
                if end <= limit {
                    attribute(lane, end);
                    lane.stack.pop();
                } else {
                    break;
                }
            }
            match next {
                Some(s) => {
                    attribute(lane, s);
                    let (_, end, c) = lane.queue.pop_front().expect("checked");
                    lane.stack.push((end, c));
                }
                None => {
                    attribute(lane, t);
                    break;
                }
            }
        }
    }

    /// The path: everything swept to the end of each timeline, the profile
    /// of the timeline that ends last; and, when recording, its segments
    /// (of the whole trace) in time order.
    pub fn finish(
        mut self,
        name: impl Fn(i32) -> String,
        mean: impl Fn(i32) -> f64,
    ) -> (CriticalPath, Option<Vec<crate::waits::Segment>>) {
        let profile = self.profile(name, mean);
        let segments = match (&profile.end_timeline, &self.taken) {
            (Some(_), Some(_)) => Some(self.segments()),
            (None, Some(_)) => Some(Vec::new()),
            _ => None,
        };
        (profile, segments)
    }

    /// The lane that ends last (ties: the smaller timeline).
    fn end_lane(&self) -> Option<usize> {
        (0..self.lanes.len())
            .filter(|&i| self.lanes[i].last.is_finite())
            .max_by(|&a, &b| {
                self.lanes[a]
                    .last
                    .total_cmp(&self.lanes[b].last)
                    .then(self.loc_ids[b].cmp(&self.loc_ids[a]))
            })
    }

    /// The path walked backwards from the end of the last timeline: on a
    /// timeline back to the latest jump into it taken before the current
    /// one (or to its first state), then over to that jump's cause. The
    /// segments of the whole trace (whatever the window), in time order,
    /// empty ones left out and neighbours on one timeline joined. The walk
    /// reads the jumps taken once, from the last to the first (a read of
    /// the spilled ones that fails ends it there).
    fn segments(&self) -> Vec<crate::waits::Segment> {
        use crate::waits::Segment;
        let Some(mut lane) = self.end_lane() else {
            return Vec::new();
        };
        let Some(taken) = self.taken.as_ref() else {
            return Vec::new();
        };
        let mut back = taken.backward();
        let mut out: Vec<Segment> = Vec::new();
        let mut push = |timeline: i32, a: f64, b: f64| {
            if b <= a {
                return;
            }
            match out.last_mut() {
                Some(last) if last.timeline == timeline && last.start <= b => {
                    last.start = last.start.min(a)
                }
                _ => out.push(Segment {
                    timeline,
                    start: a,
                    end: b,
                }),
            }
        };
        let mut at = self.lanes[lane].last;
        loop {
            let first = self.lanes[lane].first;
            // The latest jump into `lane` before the one that left it.
            let into = loop {
                match back.next() {
                    Ok(Some((time, waiter, cause))) if waiter as usize == lane => {
                        break Some((time, cause as usize))
                    }
                    Ok(Some(_)) => {}
                    Ok(None) | Err(_) => break None,
                }
            };
            match into {
                Some((time, cause)) => {
                    push(self.loc_ids[lane], time.max(first), at);
                    at = time;
                    lane = cause;
                }
                None => {
                    push(self.loc_ids[lane], first, at);
                    break;
                }
            }
        }
        out.reverse();
        out
    }

    fn profile(&mut self, name: impl Fn(i32) -> String, mean: impl Fn(i32) -> f64) -> CriticalPath {
        self.step(f64::INFINITY);
        for i in 0..self.lanes.len() {
            let last = self.lanes[i].last;
            if last.is_finite() {
                self.advance(i, last);
            }
        }
        let Some(end) = self.end_lane() else {
            return CriticalPath::default();
        };
        let p = &self.lanes[end].profile;
        let outside = self.outside();
        let seconds: f64 = p.iter().take(outside + 1).sum();
        let share = |s: f64| if seconds > 0.0 { s / seconds } else { 0.0 };
        let mut per_category: Vec<CriticalCategory> = (0..=outside)
            .filter(|&c| p.get(c).is_some_and(|&s| s > 0.0))
            .map(|c| {
                let s = p[c];
                let (category, mean) = if c == outside {
                    ("(no state)".to_string(), 0.0)
                } else {
                    (name(self.cat_ids[c]), mean(self.cat_ids[c]))
                };
                CriticalCategory {
                    category,
                    seconds: s,
                    share: share(s),
                    mean,
                    imbalance: (s - mean).max(0.0),
                }
            })
            .collect();
        per_category.sort_by(|a, b| {
            b.seconds
                .total_cmp(&a.seconds)
                .then_with(|| a.category.cmp(&b.category))
        });
        let per_timeline = self
            .loc_ids
            .iter()
            .enumerate()
            .filter_map(|(i, &l)| {
                let s = p.get(outside + 1 + i).copied().unwrap_or(0.0);
                (s > 0.0).then_some((l, s))
            })
            .collect();
        let imbalance_impact = per_category
            .iter()
            .filter(|c| c.category != "(no state)")
            .map(|c| c.imbalance)
            .sum();
        CriticalPath {
            seconds,
            end_timeline: Some(self.loc_ids[end]),
            per_category,
            per_timeline,
            imbalance_impact,
            imbalance_share: share(imbalance_impact),
        }
    }
}

/// Two distinct lanes, the first mutable.
fn pair(lanes: &mut [Lane], w: usize, c: usize) -> (&mut Lane, &mut Lane) {
    if w < c {
        let (a, b) = lanes.split_at_mut(c);
        (&mut a[w], &mut b[0])
    } else {
        let (a, b) = lanes.split_at_mut(w);
        (&mut b[0], &mut a[c])
    }
}
