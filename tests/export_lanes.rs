//! The items every exporter writes (spec/export.md §3): for any states,
//! events and arrows, the stream is in time order, every track is properly
//! nested (a leave closes the state entered last on its track), each state
//! enters at its start and leaves at its end on a lane of its own line, a
//! state overlapping another without nesting goes to another lane, and every
//! arrow gives a send and a receive joined by one flow.

mod common;

use mpelog::export::{self, Cat, Flow, Options, Ordered, Piece, Sink, Track};
use mpelog::slices::Span;
use proptest::prelude::*;
use slog2_format::types::{topology, Category, JStr, LineIdMap, LineIdRow};
use std::collections::HashMap;

/// A primitive: category, first and last vertex `(time, line)`.
type Prim = (i32, (f64, i32), (f64, i32));

/// Primitives held in memory, given in start order (spec/export.md §3.1).
struct Pieces(Vec<Prim>);

impl Ordered for Pieces {
    type Error = std::convert::Infallible;
    fn span(&self, from: Option<f64>, to: Option<f64>) -> Span {
        let lo = self
            .0
            .iter()
            .map(|p| p.1 .0.min(p.2 .0))
            .fold(f64::INFINITY, f64::min);
        let hi = self
            .0
            .iter()
            .map(|p| p.1 .0.max(p.2 .0))
            .fold(f64::NEG_INFINITY, f64::max);
        mpelog::slices::span_of(Some((lo, hi)), from, to)
    }
    fn pieces(&mut self, _span: Span, f: &mut dyn FnMut(Piece<'_>)) -> Result<(), Self::Error> {
        let mut v: Vec<Piece<'_>> = self
            .0
            .iter()
            .map(|&(category, first, last)| Piece {
                category,
                first,
                last,
                start: first.0.min(last.0),
                end: first.0.max(last.0),
                info: &[],
            })
            .collect();
        v.sort_by(mpelog::slices::order);
        v.into_iter().for_each(f);
        Ok(())
    }
}

/// What a sink was called with: `(what, time, track, lane, flow)`.
#[derive(Default)]
struct Record {
    calls: Vec<(&'static str, f64, u32, u32, u64)>,
    lines: HashMap<u32, i32>,
    /// Each entered state's legend entry: index, name, colour.
    entered: Vec<(i32, String, String)>,
    /// Each declared track: ID, name, lane, place among the rows.
    tracks: Vec<(u32, String, u32, u32)>,
}

impl Sink for Record {
    fn start(&mut self, _: f64, _: f64, _: f64) -> std::io::Result<()> {
        Ok(())
    }
    fn track(&mut self, t: &Track) -> std::io::Result<()> {
        self.lines.insert(t.id, t.row[0]);
        self.tracks.push((t.id, t.name.clone(), t.lane, t.order));
        Ok(())
    }
    fn enter(&mut self, time: f64, t: &Track, cat: &Cat, _: &[u8]) -> std::io::Result<()> {
        self.calls.push(("enter", time, t.id, t.lane, 0));
        self.entered
            .push((cat.index, cat.name.clone(), cat.color.clone()));
        Ok(())
    }
    fn leave(&mut self, time: f64, t: &Track, _: &Cat) -> std::io::Result<()> {
        self.calls.push(("leave", time, t.id, t.lane, 0));
        Ok(())
    }
    fn instant(&mut self, time: f64, t: &Track, _: &Cat, _: &[u8]) -> std::io::Result<()> {
        self.calls.push(("instant", time, t.id, t.lane, 0));
        Ok(())
    }
    fn send(&mut self, f: &Flow<'_>) -> std::io::Result<()> {
        self.calls
            .push(("send", f.time, f.track.id, f.track.lane, f.flow));
        Ok(())
    }
    fn receive(&mut self, f: &Flow<'_>) -> std::io::Result<()> {
        self.calls
            .push(("receive", f.time, f.track.id, f.track.lane, f.flow));
        Ok(())
    }
    fn finish(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn category(index: i32, topo: i32) -> Category {
    let mut c = common::category(index, topo);
    c.argb = [255, 1, 2, 3];
    c
}

/// Exports `prims` (category 1 states, 2 events, 0 arrows) and records it.
fn run(prims: Vec<Prim>) -> Record {
    run_in(prims, &[]).0
}

/// [`run`] with the views `maps`; with the counts the export returns.
fn run_in(prims: Vec<Prim>, maps: &[LineIdMap]) -> (Record, export::Counts) {
    let cats = [
        category(0, topology::ARROW),
        category(1, topology::STATE),
        category(2, topology::EVENT),
    ];
    let mut rec = Record::default();
    let counts = export::export(
        &mut Pieces(prims),
        &cats,
        maps,
        &Options::default(),
        &mut rec,
    )
    .unwrap();
    (rec, counts)
}

#[test]
fn overlapping_states_take_a_second_lane_and_nested_ones_share_one() {
    let rec = run(vec![
        (1, (0.0, 7), (10.0, 7)),
        (1, (2.0, 7), (4.0, 7)),
        (1, (5.0, 7), (15.0, 7)),
        (1, (6.0, 7), (10.0, 7)),
    ]);
    let calls: Vec<_> = rec.calls.iter().map(|c| (c.0, c.1, c.3)).collect();
    assert_eq!(
        calls,
        [
            ("enter", 0.0, 0),
            ("enter", 2.0, 0),
            ("leave", 4.0, 0),
            // Overlaps [0, 10] without nesting in it: lane 1.
            ("enter", 5.0, 1),
            // Nests in [0, 10] (ends with it): lane 0, and leaves first.
            ("enter", 6.0, 0),
            ("leave", 10.0, 0),
            ("leave", 10.0, 0),
            ("leave", 15.0, 1),
        ]
    );
}

#[test]
fn categories_the_legend_lacks_are_grey_states_each_entered_once() {
    // Categories 5 and 8 are not in the legend; 5 comes back after 8 and 1.
    let rec = run(vec![
        (5, (0.0, 7), (1.0, 7)),
        (8, (2.0, 7), (3.0, 7)),
        (1, (4.0, 7), (5.0, 7)),
        (5, (6.0, 7), (7.0, 7)),
    ]);
    let calls: Vec<_> = rec.calls.iter().map(|c| (c.0, c.1)).collect();
    assert_eq!(
        calls,
        [
            ("enter", 0.0),
            ("leave", 1.0),
            ("enter", 2.0),
            ("leave", 3.0),
            ("enter", 4.0),
            ("leave", 5.0),
            ("enter", 6.0),
            ("leave", 7.0),
        ]
    );
    let grey = |i: i32| (i, format!("category {i}"), "#808080".to_string());
    assert_eq!(
        rec.entered,
        [
            grey(5),
            grey(8),
            (1, "c1".to_string(), "#010203".to_string()),
            grey(5),
        ]
    );
}

/// A view of lines 7 and 8 with two columns (line 9 is not in it).
fn two_column_view() -> LineIdMap {
    let row = |line_id, values: [i32; 2]| LineIdRow {
        line_id,
        values: values.to_vec(),
    };
    LineIdMap {
        title: JStr::new("process view"),
        ncols: 2,
        labels: vec![JStr::new("world_rank"), JStr::new("thread")],
        rows: vec![row(7, [1, 0]), row(8, [0, 2])],
        methods: vec![],
    }
}

#[test]
fn tracks_are_named_by_the_view_and_counted() {
    // Line 7 has two overlapping states (two lanes); line 9 is not in the
    // view; an event and an arrow use the lanes 0 already there.
    let (rec, counts) = run_in(
        vec![
            (1, (0.0, 7), (4.0, 7)),
            (1, (1.0, 8), (2.0, 8)),
            (2, (1.5, 8), (1.5, 8)),
            (1, (2.0, 7), (6.0, 7)),
            (0, (2.5, 8), (3.5, 7)),
            (1, (3.0, 9), (5.0, 9)),
        ],
        &[two_column_view()],
    );
    // spec/export.md §3.3: labels with the row's values, `line V` for a row
    // the view lacks; the order of the view's rows by their values ([0, 2]
    // before [1, 0]), rows the view lacks after them.
    let named = |id, name: &str, lane, order| (id, name.to_string(), lane, order);
    assert_eq!(
        rec.tracks,
        [
            named(0, "world_rank 1, thread 0", 0, 1),
            named(1, "world_rank 0, thread 2", 0, 0),
            named(2, "world_rank 1, thread 0", 1, 1),
            named(3, "line 9", 0, 2),
        ]
    );
    assert_eq!(
        counts,
        export::Counts {
            states: 4,
            events: 1,
            arrows: 1,
            tracks: 4,
        }
    );
}

#[test]
fn a_pending_leave_at_the_next_start_waits_for_its_enter() {
    // spec/export.md §3.2: pending items leave when the next start is later
    // than their time; a state of another line starting as one ends enters
    // first (on its own lane the ending one leaves first).
    let rec = run(vec![
        (1, (0.0, 7), (4.0, 7)),
        (1, (4.0, 8), (6.0, 8)),
        (1, (4.0, 7), (5.0, 7)),
    ]);
    let calls: Vec<_> = rec.calls.iter().map(|c| (c.0, c.1, c.2)).collect();
    assert_eq!(
        calls,
        [
            ("enter", 0.0, 0),
            ("enter", 4.0, 1),
            ("leave", 4.0, 0),
            ("enter", 4.0, 0),
            ("leave", 5.0, 0),
            ("leave", 6.0, 1),
        ]
    );
}

#[test]
fn a_state_of_no_length_at_the_end_of_another_nests_in_it() {
    // [4, 4] is contained in [0, 4] (spec/export.md §3.2): it enters on the
    // same lane while [0, 4] is open and, made later, leaves first.
    let rec = run(vec![(1, (0.0, 7), (4.0, 7)), (1, (4.0, 7), (4.0, 7))]);
    let calls: Vec<_> = rec.calls.iter().map(|c| (c.0, c.1, c.3)).collect();
    assert_eq!(
        calls,
        [
            ("enter", 0.0, 0),
            ("enter", 4.0, 0),
            ("leave", 4.0, 0),
            ("leave", 4.0, 0),
        ]
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_track_nests_and_every_primitive_is_there(
        states in prop::collection::vec((0u32..40, 0u32..12, 0i32..3), 0..60),
        events in prop::collection::vec((0u32..50, 0i32..3), 0..10),
        arrows in prop::collection::vec((0u32..50, 0u32..50, 0i32..3, 0i32..3), 0..10),
    ) {
        let mut prims = Vec::new();
        for &(s, d, line) in &states {
            prims.push((1, (f64::from(s), line), (f64::from(s + d), line)));
        }
        for &(t, line) in &events {
            prims.push((2, (f64::from(t), line), (f64::from(t), line)));
        }
        for &(a, b, from, to) in &arrows {
            prims.push((0, (f64::from(a), from), (f64::from(b), to)));
        }
        let rec = run(prims);
        // Time order.
        for w in rec.calls.windows(2) {
            prop_assert!(w[0].1 <= w[1].1, "{:?} then {:?}", w[0], w[1]);
        }
        // Nesting per track; each state's enter and leave on its own line.
        let mut open: HashMap<u32, Vec<f64>> = HashMap::new();
        let mut got_states = Vec::new();
        for &(what, time, track, _, _) in &rec.calls {
            match what {
                "enter" => open.entry(track).or_default().push(time),
                "leave" => {
                    let start = open.get_mut(&track).and_then(Vec::pop);
                    prop_assert!(start.is_some(), "a leave closes an open state");
                    got_states.push((start.unwrap() as u32, (time - start.unwrap()) as u32, rec.lines[&track]));
                }
                _ => {}
            }
        }
        prop_assert!(open.values().all(Vec::is_empty));
        let mut want = states.clone();
        want.sort_unstable();
        got_states.sort_unstable();
        prop_assert_eq!(got_states, want);
        // Events, and one send and one receive per arrow, joined by a flow.
        let instants = rec.calls.iter().filter(|c| c.0 == "instant").count();
        prop_assert_eq!(instants, events.len());
        let mut flows: HashMap<u64, (usize, usize)> = HashMap::new();
        for c in &rec.calls {
            match c.0 {
                "send" => flows.entry(c.4).or_default().0 += 1,
                "receive" => flows.entry(c.4).or_default().1 += 1,
                _ => {}
            }
        }
        prop_assert_eq!(flows.len(), arrows.len());
        prop_assert!(flows.values().all(|&f| f == (1, 1)));
    }
}
