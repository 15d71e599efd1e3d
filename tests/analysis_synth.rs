//! `mpelog analyze` on generated traces with waits of known size
//! (`clog2_format::synth::Plant`): the planted seconds are found, from the
//! CLOG2 trace and from its SLOG-2 conversion.

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

/// The trace and how many iterations it has.
fn planted(ranks: u32, seed: u64, plant: Plant) -> (Vec<u8>, u64) {
    let opts = synth::Options::default()
        .ranks(ranks)
        .events(1500)
        .seed(seed)
        .plant(plant);
    let (out, stats) = synth::generate(std::io::Cursor::new(Vec::new()), &opts).unwrap();
    (out.into_inner(), stats.iterations)
}

/// Checks the planted waits of `plant` in the analysis of the trace.
fn check(ranks: u32, seed: u64, plant: Plant) -> Result<(), TestCaseError> {
    let (bytes, iterations) = planted(ranks, seed, plant);
    prop_assert!(iterations > 0);
    let n = ranks as f64;
    let it = iterations as f64;
    let ns = |v: u64| v as f64 * 1e-9;
    let tol = 1e-9 * it.max(1.0);
    for r in [
        of_clog2(&bytes, &Options::default()),
        of_slog2(&bytes, &Options::default()),
    ] {
        let late = if ranks >= 2 {
            ns(plant.late_sender_ns) * it
        } else {
            0.0
        };
        prop_assert!(
            (r.seconds(Pattern::LateSender) - late).abs() <= tol,
            "late sender {} != {}",
            r.seconds(Pattern::LateSender),
            late
        );
        prop_assert!((on(&r, Pattern::LateSender, 1) - late).abs() <= tol);
        prop_assert_eq!(r.seconds(Pattern::LateReceiver), 0.0);
        prop_assert_eq!(r.seconds(Pattern::LateSenderWrongOrder), 0.0);
        let barrier = ns(plant.barrier_skew_ns) * n * (n - 1.0) / 2.0 * it;
        prop_assert!(
            (r.seconds(Pattern::WaitAtBarrier) - barrier).abs() <= tol * n * n,
            "wait at barrier {} != {}",
            r.seconds(Pattern::WaitAtBarrier),
            barrier
        );
        for rank in 0..ranks {
            let mine = ns(plant.barrier_skew_ns) * (n - 1.0 - rank as f64) * it;
            prop_assert!((on(&r, Pattern::WaitAtBarrier, rank as i32) - mine).abs() <= tol * n);
        }
        prop_assert_eq!(r.seconds(Pattern::BarrierCompletion), 0.0);
        // Inner: the same on every rank but the last, which has `imbalance` more.
        let inner = r.imbalance.iter().find(|i| i.category == "Inner").unwrap();
        let extra = ns(plant.imbalance_ns) * it;
        let overload = extra * (n - 1.0) / n;
        prop_assert!(
            (inner.overload - overload).abs() <= tol,
            "overload {} != {}",
            inner.overload,
            overload
        );
        if plant.imbalance_ns > 0 && ranks > 1 {
            prop_assert_eq!(inner.top[0].0, ranks as i32 - 1);
        }
        prop_assert!((inner.max - inner.mean - (extra - extra / n)).abs() <= tol);
        prop_assert_eq!(r.unmatched.incomplete_collectives, 0);
        prop_assert_eq!(r.unmatched.p2p_clock_violations, 0);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(12)))]

    #[test]
    fn planted_waits_are_found(
        ranks in 1u32..7,
        seed in 0u64..1000,
        late in 0u64..50_000_000,
        skew in 0u64..5_000_000,
        imbalance in 0u64..20_000_000,
    ) {
        let plant = Plant { late_sender_ns: late, barrier_skew_ns: skew, imbalance_ns: imbalance };
        prop_assume!(plant.any());
        check(ranks, seed, plant)?;
    }
}

/// The planted Late Sender moves the critical path: on two ranks whose path
/// ends on rank 1, every iteration's wait in rank 1's MPI_Recv ends when rank
/// 0 enters its late send, so the path goes over to rank 0 there (at least the
/// late time per iteration on rank 0) and the receive's waiting time is not on
/// it (only the microseconds after the send entered).
#[test]
fn a_planted_late_sender_moves_the_critical_path() {
    let plant = Plant {
        late_sender_ns: 20_000_000,
        ..Plant::default()
    };
    let (r, iterations) = (0..50)
        .find_map(|seed| {
            let (bytes, iterations) = planted(2, seed, plant);
            let r = of_clog2(&bytes, &Options::default());
            (r.critical_path.end_timeline == Some(1)).then_some((r, iterations))
        })
        .expect("a trace whose path ends on rank 1");
    let it = iterations as f64;
    let cp = &r.critical_path;
    assert!(cp.per_timeline[&0] >= 0.02 * it - 1e-9, "{cp:?}");
    let recv = cp
        .per_category
        .iter()
        .find(|c| c.category == "MPI_Recv")
        .map_or(0.0, |c| c.seconds);
    assert!(
        recv < 1e-5 * it,
        "the receives' waits are on the path: {recv}"
    );
    close(
        r.seconds(Pattern::LateSender),
        0.02 * it,
        "planted late sender",
    );
}
