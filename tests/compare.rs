//! Two runs compared (`mpelog::compare`, `mpelog stats A --compare B`),
//! worked by hand: three ranks compute, then meet in a barrier; run B plants
//! a slowdown of 20 ms in rank 2's `Compute`.
//!
//! | rank | A: Compute | A: Barrier | B: Compute | B: Barrier |
//! |------|-----------:|-----------:|-----------:|-----------:|
//! | 0    | 0–10 ms    | 10–12 ms   | 0–10 ms    | 10–27 ms   |
//! | 1    | 0–10 ms    | 10–12 ms   | 0–10 ms    | 10–27 ms   |
//! | 2    | 0–5 ms     | 5–12 ms    | 0–25 ms    | 25–27 ms   |
//!
//! So B − A: Compute on rank 2 +20 ms (the slowdown), Barrier on ranks 0 and 1
//! +15 ms each (they now wait for rank 2), Barrier on rank 2 −5 ms; Compute on
//! all timelines +20 ms, Barrier on all +25 ms. Windows: A 12 ms, B 27 ms.

use mpelog::compare::{self, Row};
use mpelog::slices::Piece;
use mpelog::stats::{Accumulator, Stats};
use slog2_format::types::{topology, Category, JStr};

const COMPUTE: i32 = 1;
const BARRIER: i32 = 2;

fn legend() -> Vec<Category> {
    let state = |index, name| Category {
        index,
        name: JStr::new(name),
        topology: topology::STATE,
        ..slog2_format::convert::arrow_category()
    };
    vec![state(COMPUTE, "Compute"), state(BARRIER, "MPI_Barrier")]
}

/// A run of states `(category, rank, start ms, end ms)`, fed in start order,
/// over the window `[0, end ms)`.
fn run(states: &[(i32, i32, f64, f64)], end_ms: f64) -> Stats {
    let mut sorted = states.to_vec();
    sorted.sort_by(|a, b| a.2.total_cmp(&b.2).then(b.3.total_cmp(&a.3)));
    let mut acc = Accumulator::new(&legend(), 0.0, end_ms / 1e3, true, 0);
    for &(category, line, a, b) in &sorted {
        let (a, b) = (a / 1e3, b / 1e3);
        acc.push_piece(Piece {
            category,
            first: (a, line),
            last: (b, line),
            start: a,
            end: b,
            info: &[],
        });
    }
    acc.finish()
}

fn a() -> Stats {
    run(
        &[
            (COMPUTE, 0, 0.0, 10.0),
            (BARRIER, 0, 10.0, 12.0),
            (COMPUTE, 1, 0.0, 10.0),
            (BARRIER, 1, 10.0, 12.0),
            (COMPUTE, 2, 0.0, 5.0),
            (BARRIER, 2, 5.0, 12.0),
        ],
        12.0,
    )
}

fn b() -> Stats {
    run(
        &[
            (COMPUTE, 0, 0.0, 10.0),
            (BARRIER, 0, 10.0, 27.0),
            (COMPUTE, 1, 0.0, 10.0),
            (BARRIER, 1, 10.0, 27.0),
            (COMPUTE, 2, 0.0, 25.0),
            (BARRIER, 2, 25.0, 27.0),
        ],
        27.0,
    )
}

fn ms(r: &Row) -> (String, Option<i32>, i64) {
    (
        r.name.clone(),
        r.timeline,
        (r.change() * 1e6).round() as i64,
    )
}

#[test]
fn the_planted_slowdown_is_listed_first_then_what_it_caused() {
    let c = compare::stats(&a(), &b());
    let rows: Vec<_> = c.timelines.iter().map(ms).collect();
    assert_eq!(
        rows,
        vec![
            ("Compute".to_string(), Some(2), 20_000),
            ("MPI_Barrier".to_string(), Some(0), 15_000),
            ("MPI_Barrier".to_string(), Some(1), 15_000),
            ("MPI_Barrier".to_string(), Some(2), -5_000),
            ("Compute".to_string(), Some(0), 0),
            ("Compute".to_string(), Some(1), 0),
        ],
        "microseconds"
    );
    let all: Vec<_> = c.totals.iter().map(ms).collect();
    assert_eq!(
        all,
        vec![
            ("MPI_Barrier".to_string(), None, 25_000),
            ("Compute".to_string(), None, 20_000),
        ]
    );
    // Shares of each run's own window.
    let slowed = &c.timelines[0];
    assert!((slowed.a_share - 5.0 / 12.0).abs() < 1e-12);
    assert!((slowed.b_share - 25.0 / 27.0).abs() < 1e-12);
    assert_eq!((c.a_window, c.b_window), ((0.0, 0.012), (0.0, 0.027)));
}

#[test]
fn categories_are_matched_by_name_and_missing_rows_count_zero() {
    // B numbers its categories the other way round and has a third.
    let mut legend_b = legend();
    legend_b[0].index = BARRIER;
    legend_b[1].index = COMPUTE;
    legend_b.push(Category {
        index: 3,
        name: JStr::new("MPI_Wait"),
        topology: topology::STATE,
        ..slog2_format::convert::arrow_category()
    });
    let mut acc = Accumulator::new(&legend_b, 0.0, 0.012, true, 0);
    for (category, a, b) in [
        (BARRIER, 0.0, 0.010),
        (COMPUTE, 0.010, 0.011),
        (3, 0.011, 0.012),
    ] {
        acc.push_piece(Piece {
            category,
            first: (a, 0),
            last: (b, 0),
            start: a,
            end: b,
            info: &[],
        });
    }
    let c = compare::stats(&a(), &acc.finish());
    let row = |name: &str, t| {
        c.timelines
            .iter()
            .find(|r| r.name == name && r.timeline == Some(t))
            .map(ms)
            .unwrap()
            .2
    };
    // "Compute" (index 1 in A, 2 in B) on rank 0: 10 ms in both.
    assert_eq!(row("Compute", 0), 0);
    assert_eq!(row("MPI_Barrier", 0), -1_000);
    assert_eq!(row("MPI_Wait", 0), 1_000);
    // Ranks 1 and 2 are missing from B: all their time is lost.
    assert_eq!(row("Compute", 2), -5_000);
    assert_eq!(row("MPI_Barrier", 2), -7_000);
}
