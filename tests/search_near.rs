//! Find next and previous (`mpelog::search::find`, the viewer's ◀ ▶) against
//! a brute-force scan of every drawable `window` returns, from many start
//! times, on dense generated traces (`synth --dense`): the match at the start
//! time itself (excluded: the search is strict), 1 ns and a few ulps away,
//! fractions and multiples of the search's first window (a millionth of the
//! trace) away, starts shared by several drawables (ties), and both ends of
//! the trace and past them.
//!
//! [`find_after`] (the viewer's ◀ ▶ after a first match) steps from a
//! primitive to the one right after or before it, ties included: checked
//! against the scan's order from every kind of primitive and nearby key.
//!
//! A dense trace's Sendrecv states are some microseconds apart, more than its
//! first window; the same trace with one event far after it (its first
//! window then holds about ten Sendrecv starts, as on a real trace of a
//! million events in 35 s) and twins of some states (the same start, longer,
//! shorter or equal on another timeline) puts many matches inside the first
//! window.

mod common;

use mpelog::search::{find, find_after, Direction, Found};
use proptest::prelude::*;
use slog2_format::types::{topology, Drawable, Primitive};
use slog2_format::write::{Prim, TreeOptions, TreeWriter};
use slog2_format::Slog2Reader;
use std::io::Cursor;
use std::sync::OnceLock;

/// A trace to search: its bytes, every primitive (category, start, end,
/// first line), the categories to look for, its time range.
struct Trace {
    bytes: Vec<u8>,
    prims: Vec<Found>,
    /// The primitives that share their start with another of their
    /// category.
    tied: Vec<Found>,
    categories: Vec<i32>,
    lo: f64,
    hi: f64,
}

impl Trace {
    fn new(bytes: Vec<u8>) -> Trace {
        let mut r = Slog2Reader::new(Cursor::new(&bytes[..])).unwrap();
        let root = *r.tree_dir().unwrap().value.root().unwrap();
        let mut prims = Vec::new();
        let found = |p: &Primitive| {
            let times = p.vertices.iter().map(|v| v.time);
            Found {
                category: p.category,
                start: times.clone().fold(f64::INFINITY, f64::min),
                end: times.fold(f64::NEG_INFINITY, f64::max),
                line: p.vertices[0].line_id,
            }
        };
        for d in r
            .window(f64::NEG_INFINITY, f64::INFINITY)
            .unwrap()
            .drawables
        {
            match &d.value {
                Drawable::Primitive(p) => prims.push(found(p)),
                Drawable::Composite(c) => prims.extend(c.primitives.iter().map(found)),
            }
        }
        let mut by_start: Vec<&Found> = prims.iter().collect();
        by_start.sort_by(|a, b| {
            a.category
                .cmp(&b.category)
                .then(a.start.total_cmp(&b.start))
        });
        let tied: Vec<Found> = by_start
            .iter()
            .enumerate()
            .filter(|&(i, p)| {
                let same = |q: &&Found| q.category == p.category && q.start == p.start;
                (i > 0 && same(&by_start[i - 1])) || by_start.get(i + 1).is_some_and(same)
            })
            .map(|(_, p)| **p)
            .collect();
        let mut categories: Vec<i32> = prims.iter().map(|p| p.category).collect();
        categories.sort_unstable();
        categories.dedup();
        Trace {
            bytes,
            tied,
            prims,
            categories,
            lo: root.earliest,
            hi: root.latest,
        }
    }

    /// The first window's width of the search: a millionth of the trace.
    fn first_window(&self) -> f64 {
        (self.hi - self.lo) / 1e6
    }

    /// The brute-force answer: the primitive of `category` starting first
    /// after `t` (last before it); ties to the longer, then the lower line.
    fn scan(&self, category: i32, t: f64, dir: Direction) -> Option<Found> {
        let t = match (t.is_nan(), dir) {
            (false, _) => t,
            (true, Direction::Next) => f64::NEG_INFINITY,
            (true, _) => f64::INFINITY,
        };
        let of = self.prims.iter().filter(|p| p.category == category);
        match dir {
            Direction::Next => of.filter(|p| p.start > t).min_by(|a, b| {
                a.start
                    .total_cmp(&b.start)
                    .then(b.end.total_cmp(&a.end))
                    .then(a.line.cmp(&b.line))
            }),
            _ => of.filter(|p| p.start < t).max_by(|a, b| {
                a.start
                    .total_cmp(&b.start)
                    .then(a.end.total_cmp(&b.end))
                    .then(b.line.cmp(&a.line))
            }),
        }
        .copied()
    }
}

impl Trace {
    /// The brute-force answer of [`find_after`]: the primitive of `from`'s
    /// category right after (before) `from` in the order by start, then end
    /// descending (the longer first), then line (a NaN start: as [`scan`]
    /// from no time).
    fn step(&self, from: &Found, dir: Direction) -> Option<Found> {
        // No start (NaN): from the trace's start (end), as `find`.
        if from.start.is_nan() {
            return self.scan(from.category, f64::NAN, dir);
        }
        let key = |p: &Found| (p.start, -p.end, p.line);
        let k = key(from);
        let of = self.prims.iter().filter(|p| p.category == from.category);
        let cmp = |a: &&Found, b: &&Found| key(a).partial_cmp(&key(b)).unwrap();
        match dir {
            Direction::Next => of.filter(|p| key(p) > k).min_by(cmp),
            _ => of.filter(|p| key(p) < k).max_by(cmp),
        }
        .copied()
    }
}

/// A dense generated trace: `ranks` ranks, `events` records, small leaves.
fn dense(seed: u64, ranks: u32, events: u64) -> Vec<u8> {
    let clog2 = clog2_format::synth::generate_vec(
        &clog2_format::synth::Options::default()
            .ranks(ranks)
            .events(events)
            .seed(seed)
            .dense(true),
    )
    .unwrap();
    let mut r = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    let opts = TreeOptions::default().leaf_bytes(2048);
    let (out, _) =
        slog2_format::convert::clog2_to_slog2(&mut r, Cursor::new(Vec::new()), opts, |_| {})
            .unwrap();
    out.into_inner()
}

/// `bytes` rewritten with twins of every 7th state (the same start on the
/// next timeline: longer, shorter, or the same) and one event far after the
/// trace, 4000 times its length from its start.
fn crowded(bytes: &[u8]) -> Vec<u8> {
    let mut r = Slog2Reader::new(Cursor::new(bytes)).unwrap();
    let categories = r.category_list().to_vec();
    let maps = r.line_id_maps().unwrap().value.maps.clone();
    let root = *r.tree_dir().unwrap().value.root().unwrap();
    let lines: Vec<i32> = maps[0].rows.iter().map(|l| l.line_id).collect();
    let topo = |c: i32| {
        categories
            .iter()
            .find(|k| k.index == c)
            .map_or(topology::EVENT, |k| k.topology)
    };
    let mut prims: Vec<Prim> = Vec::new();
    let mut states = 0;
    let prim = |p: &Primitive| {
        let info = &p.info.bytes[..];
        let v = &p.vertices;
        match v.len() {
            1 => Prim::event(p.category, v[0].time, v[0].line_id, info),
            _ => Prim::two(
                p.category,
                topo(p.category),
                (v[0].time, v[0].line_id),
                (v[v.len() - 1].time, v[v.len() - 1].line_id),
                info,
            ),
        }
    };
    for d in r
        .window(f64::NEG_INFINITY, f64::INFINITY)
        .unwrap()
        .drawables
    {
        let parts = match &d.value {
            Drawable::Primitive(p) => vec![p.clone()],
            Drawable::Composite(c) => c.primitives.clone(),
        };
        for p in parts {
            prims.push(prim(&p));
            if topo(p.category) != topology::STATE {
                continue;
            }
            states += 1;
            if states % 7 != 0 {
                continue;
            }
            let (a, b, line) = (
                p.vertices[0].time,
                p.vertices[1].time,
                p.vertices[0].line_id,
            );
            let next = lines[(lines.iter().position(|l| *l == line).unwrap() + 1) % lines.len()];
            let end = match states % 3 {
                0 => b + (b - a),
                1 => a + (b - a) / 2.0,
                _ => b,
            };
            prims.push(Prim::two(
                p.category,
                topology::STATE,
                (a, next),
                (end, next),
                &[],
            ));
        }
    }
    let far = root.earliest + 4000.0 * (root.latest - root.earliest);
    let event = categories
        .iter()
        .find(|c| c.topology == topology::EVENT)
        .expect("an event category")
        .index;
    prims.push(Prim::event(event, far, lines[0], &[]));
    // The writer takes primitives by their latest time.
    let latest = |p: &Prim| {
        p.times[..usize::from(p.nv)]
            .iter()
            .copied()
            .fold(f64::MIN, f64::max)
    };
    prims.sort_by(|a, b| latest(a).total_cmp(&latest(b)));
    let mut w = TreeWriter::new(
        Cursor::new(Vec::new()),
        TreeOptions::default().leaf_bytes(2048),
    )
    .unwrap();
    for p in prims {
        w.add(p).unwrap();
    }
    // The writer adds the preview categories itself.
    let real: Vec<_> = categories.into_iter().filter(|c| c.index >= 0).collect();
    let (out, _) = w.finish(&real, maps).unwrap();
    out.into_inner()
}

/// The traces: dense (4 ranks, and 3), and the first one crowded.
fn traces() -> &'static [Trace] {
    static TRACES: OnceLock<Vec<Trace>> = OnceLock::new();
    TRACES.get_or_init(|| {
        let a = dense(1, 4, 24_000);
        let b = dense(2, 3, 12_000);
        let c = crowded(&a);
        vec![Trace::new(a), Trace::new(b), Trace::new(c)]
    })
}

/// How a start time is chosen: near a primitive's start, or at or past an
/// end of the trace, or anywhere.
#[derive(Debug, Clone)]
enum At {
    /// A primitive's start, moved by `offset`.
    Near(usize, Offset),
    /// The trace's first or last time, moved by `offset`.
    End(bool, Offset),
    /// A fraction of the trace (below 0 and above 1 too).
    Anywhere(f64),
    /// No time (NaN), minus or plus infinity.
    Special(u8),
}

#[derive(Debug, Clone, Copy)]
enum Offset {
    /// Nothing.
    Zero,
    /// A few ulps either way.
    Ulps(i8),
    /// 1 ns, earlier or later.
    Nano(bool),
    /// This many first windows (negative: earlier).
    Windows(f64),
}

fn offset() -> impl Strategy<Value = Offset> {
    let fractions = prop::sample::select(vec![
        0.01, 0.1, 0.25, 0.49, 0.5, 0.51, 0.75, 0.99, 1.0, 1.01, 1.5, 2.0, 3.99, 4.0, 4.01, 15.9,
        16.0, 64.0, 300.0,
    ]);
    prop_oneof![
        1 => Just(Offset::Zero),
        1 => (-3i8..=3).prop_map(Offset::Ulps),
        1 => any::<bool>().prop_map(Offset::Nano),
        4 => (fractions, any::<bool>()).prop_map(|(f, later)| Offset::Windows(if later { f } else { -f })),
        1 => (-8.0f64..8.0).prop_map(Offset::Windows),
    ]
}

fn at() -> impl Strategy<Value = At> {
    prop_oneof![
        8 => (any::<prop::sample::Index>(), offset()).prop_map(|(i, o)| At::Near(i.index(usize::MAX), o)),
        2 => (any::<bool>(), offset()).prop_map(|(e, o)| At::End(e, o)),
        1 => (-0.05f64..1.05).prop_map(At::Anywhere),
        1 => (0u8..3).prop_map(At::Special),
    ]
}

fn moved(t: f64, o: Offset, w: f64) -> f64 {
    match o {
        Offset::Zero => t,
        Offset::Ulps(k) => {
            let mut t = t;
            for _ in 0..k.unsigned_abs() {
                t = if k > 0 {
                    mpelog::slices::next_up(t)
                } else {
                    -mpelog::slices::next_up(-t)
                };
            }
            t
        }
        Offset::Nano(later) => t + if later { 1e-9 } else { -1e-9 },
        Offset::Windows(f) => t + f * w,
    }
}

/// The start time `at` names in `trace`, looking for `category`: `Near`
/// picks among that category's primitives (or any) by index.
fn time_of(trace: &Trace, category: i32, at: &At) -> f64 {
    let w = trace.first_window();
    match *at {
        At::Near(i, o) => {
            let of: Vec<&Found> = trace
                .prims
                .iter()
                .filter(|p| p.category == category)
                .collect();
            let p = if of.is_empty() {
                &trace.prims[i % trace.prims.len()]
            } else {
                of[i % of.len()]
            };
            moved(p.start, o, w)
        }
        At::End(last, o) => moved(if last { trace.hi } else { trace.lo }, o, w),
        At::Anywhere(f) => trace.lo + f * (trace.hi - trace.lo),
        At::Special(k) => [f64::NAN, f64::NEG_INFINITY, f64::INFINITY][k as usize],
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 768, failure_persistence: None, ..ProptestConfig::default() })]

    /// Next and previous equal the brute-force scan from every start time.
    #[test]
    fn find_equals_a_scan(which in 0usize..3, cat in any::<prop::sample::Index>(), at in at(), next in any::<bool>()) {
        let trace = &traces()[which];
        // A category with primitives, or (one time in 16) one without.
        let category = match cat.index(16 * trace.categories.len()) {
            i if i < trace.categories.len() => 999_999,
            i => trace.categories[i % trace.categories.len()],
        };
        let t = time_of(trace, category, &at);
        let dir = if next { Direction::Next } else { Direction::Previous };
        let mut r = Slog2Reader::new(Cursor::new(&trace.bytes[..])).unwrap();
        let got = find(&mut r, category, t, dir).unwrap();
        let want = trace.scan(category, t, dir);
        prop_assert_eq!(got, want, "trace {} category {} from {:e} ({:?}) {:?}", which, category, t, at, dir);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    /// From a primitive (or any start, end and line near one), the one right
    /// after or before it equals the brute-force scan's: ties (a shared
    /// start, a shared start and end) are stepped through, not skipped.
    #[test]
    fn find_after_equals_a_scan(
        which in 0usize..3,
        cat in any::<prop::sample::Index>(),
        at in at(),
        end in prop_oneof![4 => Just(0.0), 1 => Just(1e-9), 1 => Just(-1e-9), 1 => Just(f64::INFINITY), 1 => Just(f64::NEG_INFINITY)],
        line in -1i32..=1,
        pick in any::<prop::sample::Index>(),
        tie in any::<bool>(),
        next in any::<bool>(),
    ) {
        let trace = &traces()[which];
        // Half the time a primitive that shares its start with another of
        // its category (a tie), else any of a category.
        let p = match trace.tied.is_empty() || !tie {
            false => &trace.tied[pick.index(trace.tied.len())],
            true => {
                let category = trace.categories[cat.index(trace.categories.len())];
                let of: Vec<&Found> = trace.prims.iter().filter(|p| p.category == category).collect();
                of[pick.index(of.len())]
            }
        };
        let category = p.category;
        // Mostly the primitive itself (as the viewer asks), else a key near it.
        let from = match (&at, end, line) {
            (At::Near(_, Offset::Zero), _, _) | (_, 0.0, 0) => *p,
            _ => Found { category, start: time_of(trace, category, &at), end: p.end + end, line: p.line + line },
        };
        let dir = if next { Direction::Next } else { Direction::Previous };
        let mut r = Slog2Reader::new(Cursor::new(&trace.bytes[..])).unwrap();
        let got = find_after(&mut r, &from, dir).unwrap();
        prop_assert_eq!(got, trace.step(&from, dir), "trace {} from {:?} {:?}", which, from, dir);
    }
}

/// The traces are what the property needs: dense (a Sendrecv start every
/// few microseconds), the crowded one with matches inside its first window
/// and ties (the same start on two timelines).
#[test]
fn the_traces_put_matches_inside_the_first_window() {
    let traces = traces();
    for (i, t) in traces.iter().enumerate() {
        let mut starts: Vec<(i32, f64)> = t
            .prims
            .iter()
            .filter(|p| p.end > p.start)
            .map(|p| (p.category, p.start))
            .collect();
        starts.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
        let w = t.first_window();
        let close = starts
            .windows(2)
            .filter(|p| p[0].0 == p[1].0 && p[1].1 - p[0].1 < w)
            .count();
        let ties = starts.windows(2).filter(|p| p[0] == p[1]).count();
        eprintln!(
            "trace {i}: {} primitives over {:e} s, first window {:e} s: {close} consecutive starts of one category closer than it, {ties} ties",
            t.prims.len(),
            t.hi - t.lo,
            w
        );
        if i == 2 {
            assert!(close > 1000 && ties > 100, "{close} close, {ties} ties");
        }
    }
}
