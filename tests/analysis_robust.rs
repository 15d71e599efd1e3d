//! `mpelog::analysis` on random hand-made traces (overlapping states, clock
//! violations, unmatched messages, incomplete and mismatched collectives):
//! never a panic, the same answers from the CLOG2 file and its SLOG-2
//! conversion, and the report's invariants.

#[path = "common/analysis.rs"]
mod analysis_common;

use analysis_common::*;
use clog2_format::synth::{self, Plant};
use mpelog::analysis::{Options, Pattern};
use proptest::prelude::*;

fn cases(default: u32) -> u32 {
    std::env::var("MPELOG_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(default, |n: u32| n.max(default))
}

const CALLS: [&str; 12] = [
    "MPI_Send",
    "MPI_Recv",
    "MPI_Ssend",
    "MPI_Waitall",
    "MPI_Wait",
    "MPI_Sendrecv",
    "MPI_Barrier",
    "MPI_Allreduce",
    "MPI_Bcast",
    "MPI_Reduce",
    "MPI_Scan",
    "Work",
];

/// Per rank: (call, gap before it, duration) in µs; messages: (from, to,
/// send µs, receive µs, tag).
type Plan = (
    Vec<Vec<(usize, u32, u32)>>,
    Vec<(usize, usize, u32, u32, i32)>,
);

fn plan() -> impl Strategy<Value = Plan> {
    (1usize..5).prop_flat_map(|ranks| {
        (
            prop::collection::vec(
                prop::collection::vec((0..CALLS.len(), 0u32..2000, 1u32..3000), 1..12),
                ranks,
            ),
            prop::collection::vec(
                (0..ranks, 0..ranks, 0u32..40_000, 0u32..40_000, 0i32..3),
                0..12,
            ),
        )
    })
}

fn trace(p: &Plan) -> Trace {
    let (calls, msgs) = p;
    let mut t = Trace::new(calls.len() as i32);
    for (r, list) in calls.iter().enumerate() {
        let mut now = 1u32;
        for &(c, gap, dur) in list {
            now += gap;
            t.state(
                r as i32,
                CALLS[c],
                now as f64 * 1e-6,
                (now + dur) as f64 * 1e-6,
            );
            now += dur + 1;
        }
    }
    for &(from, to, s, r, tag) in msgs {
        t.message(
            from as i32,
            s as f64 * 1e-6 + 1e-7,
            to as i32,
            r as f64 * 1e-6 + 1e-7,
            tag,
        );
    }
    t
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(24)))]

    #[test]
    fn random_traces_analyse_the_same_both_ways(p in plan()) {
        // `analyze` checks the CLOG2 and SLOG-2 answers agree.
        let r = analyze(&trace(&p), &Options::default());
        for q in &r.patterns {
            prop_assert!(q.seconds > 0.0);
            let sum: f64 = q.per_timeline.values().sum();
            prop_assert!((sum - q.seconds).abs() <= 1e-9, "{}", q.name);
            let paths: f64 = q.per_call_path.iter().map(|c| c.seconds).sum();
            prop_assert!((paths - q.seconds).abs() <= 1e-9, "{}", q.name);
        }
        let ls = r.seconds(Pattern::LateSender);
        let wo = r.seconds(Pattern::LateSenderWrongOrder);
        prop_assert!(ls + 1e-12 >= wo);
        let subs = r.seconds(Pattern::LswoSameSource) + r.seconds(Pattern::LswoDifferentSource);
        prop_assert!((subs - wo).abs() <= 1e-9);
        // The critical path only goes back in time.
        prop_assert!(r.critical_path.seconds <= r.to - r.from + 1e-9,
            "path {} longer than the trace {}", r.critical_path.seconds, r.to - r.from);
        let per: f64 = r.critical_path.per_timeline.values().sum();
        prop_assert!((per - r.critical_path.seconds).abs() <= 1e-9);
        // Sweeping the path after every drawable gives the same path.
        let swept = of_clog2(&trace(&p).bytes(), &Options::default().sweep_every(1));
        same_path(&r, &swept)?;
    }

    /// The same on generated traces with planted waits, large enough for many
    /// sweeps at the default interval.
    #[test]
    fn the_critical_path_does_not_depend_on_the_sweeps(
        ranks in 2u32..9,
        seed in 0u64..1000,
        late in 0u64..5_000_000,
        skew in 0u64..1_000_000,
    ) {
        let opts = synth::Options::default().ranks(ranks).events(30_000).seed(seed)
            .plant(Plant { late_sender_ns: late, barrier_skew_ns: skew, imbalance_ns: 1000 });
        let bytes = synth::generate_vec(&opts).unwrap();
        let a = of_clog2(&bytes, &Options::default());
        let b = of_clog2(&bytes, &Options::default().sweep_every(1));
        let c = of_clog2(&bytes, &Options::default().sweep_every(u64::MAX));
        same_path(&a, &b)?;
        same_path(&a, &c)?;
        let natural = synth::generate_vec(&synth::Options::default().ranks(ranks).events(30_000).seed(seed)).unwrap();
        let a = of_clog2(&natural, &Options::default());
        let c = of_clog2(&natural, &Options::default().sweep_every(u64::MAX));
        same_path(&a, &c)?;
    }
}

fn same_path(
    a: &mpelog::analysis::Report,
    b: &mpelog::analysis::Report,
) -> Result<(), TestCaseError> {
    let (x, y) = (&a.critical_path, &b.critical_path);
    prop_assert!(
        (x.seconds - y.seconds).abs() <= 1e-9,
        "{} != {}",
        x.seconds,
        y.seconds
    );
    prop_assert_eq!(x.per_category.len(), y.per_category.len());
    for (p, q) in x.per_category.iter().zip(&y.per_category) {
        prop_assert_eq!(&p.category, &q.category);
        prop_assert!((p.seconds - q.seconds).abs() <= 1e-9);
    }
    for (t, s) in &x.per_timeline {
        prop_assert!((s - y.per_timeline.get(t).copied().unwrap_or(0.0)).abs() <= 1e-9);
    }
    Ok(())
}
