//! [`mpelog::stats::Accumulator`]'s exclusive times when nested states tie:
//! a child that starts exactly at its parent's start, ends exactly at its
//! parent's end, or both a child's start and its sibling's end at one time.
//! Hand-built cases with their exclusive times written out, and a property over
//! generated properly nested states on a small grid of times (so ties are the
//! rule), compared exactly with a brute-force computation: the time in which
//! each state is the innermost state of its timeline. Every state has its own
//! category, so each category's exclusive sum is one state's exclusive time.

use mpelog::stats::{Accumulator, Stats};
use proptest::prelude::*;
use slog2_format::types::{Coord, JStr, Primitive};
use std::collections::BTreeMap;

/// A state of category `category` on `line` from `a` to `b`.
fn state(category: i32, line: i32, a: f64, b: f64) -> Primitive {
    Primitive {
        category,
        info: JStr::new(""),
        vertices: vec![
            Coord {
                time: a,
                line_id: line,
            },
            Coord {
                time: b,
                line_id: line,
            },
        ],
    }
}

/// The statistics of `states` (whole trace, no clipping; an empty legend makes
/// every category a state category), fed in start order: by start, the longer
/// first.
fn stats_of(states: &[Primitive]) -> Stats {
    let mut sorted: Vec<&Primitive> = states.iter().collect();
    sorted.sort_by(|p, q| {
        p.earliest()
            .total_cmp(&q.earliest())
            .then(q.latest().total_cmp(&p.latest()))
            .then(p.category.cmp(&q.category))
    });
    let from = sorted.first().map_or(0.0, |p| p.earliest());
    let to = states.iter().map(Primitive::latest).fold(from, f64::max);
    let mut acc = Accumulator::new(&[], from, to, false, 0);
    for p in sorted {
        acc.push(p);
    }
    acc.finish()
}

/// Exclusive time per category, as computed.
fn exclusive(s: &Stats) -> BTreeMap<i32, f64> {
    s.categories
        .iter()
        .map(|c| (c.index, c.exclusive.sum))
        .collect()
}

/// Per state (its category): the time in which it is the innermost state of
/// its timeline. Between two consecutive times of the trace, the states of a
/// timeline that contain that stretch are nested, and the innermost is the
/// shortest.
fn brute(states: &[Primitive]) -> BTreeMap<i32, f64> {
    let mut times: Vec<f64> = states
        .iter()
        .flat_map(|p| [p.earliest(), p.latest()])
        .collect();
    times.sort_by(f64::total_cmp);
    times.dedup();
    let mut out: BTreeMap<i32, f64> = states.iter().map(|p| (p.category, 0.0)).collect();
    let lines: std::collections::BTreeSet<i32> =
        states.iter().map(|p| p.vertices[0].line_id).collect();
    for line in lines {
        for w in times.windows(2) {
            let (a, b) = (w[0], w[1]);
            let innermost = states
                .iter()
                .filter(|p| p.vertices[0].line_id == line)
                .filter(|p| p.earliest() <= a && b <= p.latest())
                .min_by(|p, q| (p.latest() - p.earliest()).total_cmp(&(q.latest() - q.earliest())));
            if let Some(p) = innermost {
                *out.get_mut(&p.category).unwrap() += b - a;
            }
        }
    }
    out
}

/// Exclusive times per timeline, from per-state ones.
fn per_line(states: &[Primitive], per_state: &BTreeMap<i32, f64>) -> BTreeMap<i32, f64> {
    let mut out = BTreeMap::new();
    for p in states {
        *out.entry(p.vertices[0].line_id).or_insert(0.0) += per_state[&p.category];
    }
    out
}

fn assert_exact(states: &[Primitive], want: &BTreeMap<i32, f64>, what: &str) {
    let s = stats_of(states);
    assert_eq!(&exclusive(&s), want, "{what}: exclusive time per state");
    let lines: BTreeMap<i32, f64> = s
        .timelines
        .iter()
        .map(|t| (t.line, t.exclusive.sum))
        .collect();
    assert_eq!(lines, per_line(states, want), "{what}: per timeline");
}

#[test]
fn a_child_starting_or_ending_with_its_parent_is_nested_in_it() {
    // (case, states, exclusive time per category), times in seconds.
    type Case = (&'static str, Vec<Primitive>, Vec<(i32, f64)>);
    let cases: Vec<Case> = vec![
        (
            "child starts at its parent's start",
            vec![state(1, 0, 0.0, 10.0), state(2, 0, 0.0, 4.0)],
            vec![(1, 6.0), (2, 4.0)],
        ),
        (
            "child ends at its parent's end",
            vec![state(1, 0, 0.0, 10.0), state(2, 0, 6.0, 10.0)],
            vec![(1, 6.0), (2, 4.0)],
        ),
        (
            "a chain tied at both ends in turn",
            vec![
                state(1, 0, 0.0, 10.0),
                state(2, 0, 0.0, 8.0),
                state(3, 0, 2.0, 8.0),
                state(4, 0, 2.0, 5.0),
            ],
            vec![(1, 2.0), (2, 2.0), (3, 3.0), (4, 3.0)],
        ),
        (
            "two children filling their parent, the second starting at the first's end",
            vec![
                state(1, 0, 1.0, 9.0),
                state(2, 0, 1.0, 5.0),
                state(3, 0, 5.0, 9.0),
            ],
            vec![(1, 0.0), (2, 4.0), (3, 4.0)],
        ),
        (
            "a state starting at the end of a nested one, on another timeline too",
            vec![
                state(1, 0, 0.0, 10.0),
                state(2, 0, 0.0, 3.0),
                state(3, 0, 3.0, 4.0),
                state(4, 1, 0.0, 3.0),
                state(5, 1, 0.0, 2.0),
                state(6, 1, 3.0, 4.0),
            ],
            vec![(1, 6.0), (2, 3.0), (3, 1.0), (4, 1.0), (5, 2.0), (6, 1.0)],
        ),
    ];
    for (what, states, want) in cases {
        let want: BTreeMap<i32, f64> = want.into_iter().collect();
        assert_eq!(brute(&states), want, "{what}: the brute force agrees");
        assert_exact(&states, &want, what);
    }
}

/// Properly nested states with distinct boxes on up to 3 timelines, times on a
/// grid of 9 points 0.25 s apart (offset by a power of two, so every sum is exact), so that most children share
/// their start or end with their parent or a sibling. Each state has its own
/// category.
fn nested_states() -> impl Strategy<Value = Vec<Primitive>> {
    (
        prop::collection::vec((0i32..3, 0u32..9, 1u32..9), 1..60),
        prop::sample::select(vec![0.0, 0.0009765625, 1024.0]),
    )
        .prop_map(|(candidates, offset)| {
            let mut kept: Vec<(i32, u32, u32)> = Vec::new();
            for (line, a, len) in candidates {
                let b = (a + len).min(8);
                if a >= b {
                    continue;
                }
                // Keep it when, against every kept state of its timeline, it
                // is nested (either way, not equal) or does not overlap.
                let fits = kept.iter().filter(|k| k.0 == line).all(|&(_, c, d)| {
                    let nested = (c <= a && b <= d) || (a <= c && d <= b);
                    let apart = b <= c || d <= a;
                    (nested || apart) && (a, b) != (c, d)
                });
                if fits {
                    kept.push((line, a, b));
                }
            }
            // 0.25 s steps: sums of these are exact.
            kept.iter()
                .enumerate()
                .map(|(i, &(line, a, b))| {
                    state(
                        i as i32 + 1,
                        line,
                        offset + 0.25 * f64::from(a),
                        offset + 0.25 * f64::from(b),
                    )
                })
                .collect()
        })
}

/// Cases per property: `default`, or `MPELOG_PROPTEST_CASES` when larger.
fn cases(default: u32) -> u32 {
    std::env::var("MPELOG_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(default, |n: u32| n.max(default))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    #[test]
    fn exclusive_time_is_the_time_a_state_is_innermost(states in nested_states()) {
        let want = brute(&states);
        let s = stats_of(&states);
        prop_assert_eq!(exclusive(&s), want.clone());
        let lines: BTreeMap<i32, f64> =
            s.timelines.iter().map(|t| (t.line, t.exclusive.sum)).collect();
        prop_assert_eq!(lines, per_line(&states, &want));
    }
}

/// The generator makes ties: in a sample of its cases, children sharing their
/// parent's start and children sharing its end are both common.
#[test]
fn the_generated_states_tie_often() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut start_ties, mut end_ties) = (0, 0);
    for _ in 0..100 {
        let states = nested_states().new_tree(&mut runner).unwrap().current();
        for p in &states {
            for q in &states {
                let same_line = p.vertices[0].line_id == q.vertices[0].line_id;
                let inside = q.earliest() >= p.earliest() && q.latest() <= p.latest();
                if same_line && inside && p.category != q.category {
                    start_ties += usize::from(q.earliest() == p.earliest());
                    end_ties += usize::from(q.latest() == p.latest());
                }
            }
        }
    }
    assert!(
        start_ties > 100 && end_ties > 100,
        "{start_ties} {end_ties}"
    );
}
