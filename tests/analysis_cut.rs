//! A cut trace (spec/analysis.md §3.3): one rank's trace stops while the
//! others go on with their barriers. Each barrier after the cut lacks that
//! rank, so it can never complete; the analysis gives it up once a rank has
//! made 256 more collective calls on the communicator, and reports it as
//! incomplete. What the analysis holds (calls in open instances, states
//! queued for the critical path) stays bounded: the same for a trace twice
//! as long.

use mpelog::analysis::{Analyzer, Options, Pattern, Report};
use mpelog::slices::{order, Piece};
use slog2_format::convert::arrow_category;
use slog2_format::types::{topology, Category, JStr};

const MS: f64 = 1e-3;

/// Work [10i, 10i + 5) ms then MPI_Barrier entered at 10i + 5 + r ms, left
/// at 10i + 9 ms, on 4 ranks, for `iterations`; rank 3 stops after `cut`.
/// Returns the report and the most items held at once.
fn run(iterations: u32, cut: u32) -> (Report, usize) {
    let state = |index, name: &str| Category {
        index,
        name: JStr::new(name),
        topology: topology::STATE,
        ..arrow_category()
    };
    let cats = [arrow_category(), state(1, "MPI_Barrier"), state(2, "Work")];
    let mut states: Vec<(i32, i32, f64, f64)> = Vec::new();
    for i in 0..iterations {
        let t = f64::from(i) * 10.0 * MS;
        for r in 0..4 {
            if r == 3 && i >= cut {
                continue;
            }
            states.push((2, r, t, t + 5.0 * MS));
            states.push((1, r, t + (5.0 + f64::from(r)) * MS, t + 9.0 * MS));
        }
    }
    let mut pieces: Vec<Piece<'_>> = states
        .iter()
        .map(|&(category, line, start, end)| Piece {
            category,
            first: (start, line),
            last: (end, line),
            start,
            end,
            info: &[],
        })
        .collect();
    pieces.sort_by(order);
    // A process view of the 4 ranks: the world's size is known.
    let maps = [slog2_format::write::one_column_map(
        "Process View",
        "world_rank",
        0..4,
    )];
    let mut a = Analyzer::new(&cats, &maps, Options::default().sweep_every(1));
    let mut most = 0;
    for p in pieces {
        a.push_piece(p);
        most = most.max(a.held());
    }
    (a.finish(), most)
}

#[test]
fn a_cut_rank_is_given_up_and_memory_stays_bounded() {
    let (short, most_short) = run(1000, 100);
    let (long, most_long) = run(2000, 100);
    // Bounded: the longer trace holds no more than the shorter one: what the
    // last 256 iterations made (per iteration 3 barrier calls, 6 states
    // queued for the critical path and 3 wait ends) before the oldest
    // instance is given up.
    assert_eq!(most_short, most_long, "held items grow with the file");
    assert!(most_long <= 256 * (3 + 6 + 3), "held {most_long}");
    for (r, n) in [(&short, 1000u64), (&long, 2000)] {
        // Every barrier after the cut is incomplete, and reported so.
        assert_eq!(r.unmatched.incomplete_collectives, n - 100);
        assert_eq!(r.counts.collectives, 100);
        let ex = &r.unmatched.collective_examples[0];
        assert_eq!(ex.position, 100);
        assert_eq!(ex.timelines.len(), 3);
        assert_eq!(ex.size, 4);
        // Only the complete barriers are measured: rank r waits 3 − r ms.
        let wait = r.pattern(Pattern::WaitAtBarrier).unwrap();
        for (t, s) in &wait.per_timeline {
            let want = 100.0 * f64::from(3 - t) * MS;
            assert!((s - want).abs() < 1e-9, "timeline {t}: {s} != {want}");
        }
    }
}

#[test]
fn a_whole_trace_holds_little_and_gives_nothing_up() {
    let (r, most) = run(1000, 1000);
    assert_eq!(r.unmatched.incomplete_collectives, 0);
    assert_eq!(r.counts.collectives, 1000);
    assert!(most < 64, "held {most}");
}
