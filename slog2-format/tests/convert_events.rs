//! The CLOG2 event-pairing rules of spec/conversion.md §2, one behaviour per test, on
//! hand-made record streams (no corpus needed).

use clog2_format::record::*;
use clog2_format::{Clog2Reader, FixedBytes, PreambleInfo, Record};
use mpelog_conformance::strategies::clog2::{pairing_case, write};
use proptest::prelude::*;
use slog2_format::convert::{Clog2Drawables, Unmatched};
use slog2_format::types::topology;
use slog2_format::write::Prim;

/// 2 ranks, 1 thread; known states from event 0 (count 300), user states from
/// event 600 (count 10), no solo ranges.
fn preamble() -> PreambleInfo {
    let mut p = PreambleInfo::mpe_default(2);
    p.known_event_id_start = Some(0);
    p.known_state_id_count = Some(300);
    p.user_event_id_start = Some(600);
    p.user_state_id_count = Some(10);
    p.known_solo_event_id_start = Some(-10);
    p.known_solo_event_id_count = Some(0);
    p.user_solo_event_id_start = Some(5000);
    p.user_solo_event_id_count = Some(0);
    p.max_thread_count = Some(1);
    p
}

fn cargo(time: f64, rank: i32, etype: i32, byte: u8) -> Record {
    Record::new(
        time,
        rank,
        Body::Cargo(CargoEvt {
            etype,
            pad: FixedBytes::ZERO,
            bytes: FixedBytes([byte; 32]),
        }),
    )
}

fn msg(time: f64, rank: i32, etype: i32, partner: i32, tag: i32, size: i32) -> Record {
    Record::new(
        time,
        rank,
        Body::Msg(MsgEvt {
            etype,
            icomm: 0,
            rank: partner,
            tag,
            size,
            pad: FixedBytes::ZERO,
        }),
    )
}

fn comm(rank: i32) -> Record {
    Record::new(
        0.0,
        rank,
        Body::Comm(CommEvt {
            etype: 0,
            icomm: 0,
            rank,
            wrank: rank,
            gcomm: Uuid::ZERO,
        }),
    )
}

fn statedef(start: i32, fin: i32, name: &str) -> Record {
    Record::new(
        9.0,
        0,
        Body::StateDef(StateDef {
            state_id: 0,
            start_etype: start,
            final_etype: fin,
            pad: FixedBytes::ZERO,
            color: FixedBytes::from_str_truncated("red"),
            name: FixedBytes::from_str_truncated(name),
            format: FixedBytes::from_str_truncated("v=%d"),
        }),
    )
}

/// Feeds the records; returns the primitives completed.
fn run(c: &mut Clog2Drawables, recs: &[Record]) -> Vec<Prim> {
    recs.iter().filter_map(|r| c.push(r)).collect()
}

#[test]
fn states_pair_first_in_first_out_per_timeline() {
    let mut c = Clog2Drawables::new(&preamble());
    let out = run(
        &mut c,
        &[
            comm(0),
            comm(1),
            Record::bare(1.0, 0, 600),
            Record::bare(2.0, 0, 600),
            Record::bare(2.5, 1, 600),
            Record::bare(3.0, 0, 601),
            Record::bare(4.0, 0, 601),
            Record::bare(5.0, 1, 601),
        ],
    );
    // S1 S2 E E on rank 0 gives [1,3] and [2,4] (FIFO), not nested; rank 1 apart.
    let got: Vec<_> = out
        .iter()
        .map(|p| (p.category, p.times, p.lines[0]))
        .collect();
    assert_eq!(
        got,
        [
            (301, [1.0, 3.0], 0),
            (301, [2.0, 4.0], 0),
            (301, [2.5, 5.0], 1)
        ]
    );
    assert!(out.iter().all(|p| p.topology == topology::STATE));
    let (_, _, u) = c.finish();
    assert_eq!(u.total_dropped(), 0);
}

#[test]
fn a_final_cargo_replaces_the_starts_info_and_a_bare_final_keeps_it() {
    let mut c = Clog2Drawables::new(&preamble());
    let out = run(
        &mut c,
        &[
            comm(0),
            cargo(1.0, 0, 600, 7),
            cargo(2.0, 0, 601, 9),
            cargo(3.0, 0, 600, 7),
            Record::bare(4.0, 0, 601),
        ],
    );
    assert_eq!(out[0].info(), &[9u8; 32][..]);
    assert_eq!(out[1].info(), &[7u8; 32][..]);
}

#[test]
fn arrows_pair_on_tag_and_lines_and_a_receive_first_loses_the_size() {
    let mut c = Clog2Drawables::new(&preamble());
    let out = run(
        &mut c,
        &[
            comm(0),
            comm(1),
            msg(1.0, 0, SEND_ETYPE, 1, 5, 100),
            msg(1.5, 0, SEND_ETYPE, 1, 6, 200),
            msg(2.0, 1, RECV_ETYPE, 0, 6, 200), // tag 6 pairs with the second send
            msg(3.0, 1, RECV_ETYPE, 0, 5, 100),
            msg(4.0, 1, RECV_ETYPE, 0, 8, 300), // receive logged before its send
            msg(4.5, 0, SEND_ETYPE, 1, 8, 300),
        ],
    );
    let info = |tag: i32, size: i32| {
        let mut v = tag.to_be_bytes().to_vec();
        v.extend(size.to_be_bytes());
        v
    };
    let got: Vec<_> = out
        .iter()
        .map(|p| (p.times, p.lines, p.info().to_vec()))
        .collect();
    assert_eq!(
        got,
        [
            ([1.5, 2.0], [0, 1], info(6, 200)),
            ([1.0, 3.0], [0, 1], info(5, 100)),
            ([4.5, 4.0], [0, 1], info(8, 0)),
        ]
    );
    assert!(out
        .iter()
        .all(|p| p.category == 0 && p.topology == topology::ARROW));
}

#[test]
fn what_java_crashes_on_is_counted_and_skipped() {
    let mut c = Clog2Drawables::new(&preamble());
    let out = run(
        &mut c,
        &[
            comm(0),
            Record::bare(1.0, 0, 4999),       // no definition, no range
            Record::bare(1.5, 0, 601),        // final without a start
            Record::bare(2.0, 1, 600),        // rank 1 has no COMMEVT
            Record::bare(3.0, 1, 601),        // ... the state is kept
            Record::bare(3.5, 0, SEND_ETYPE), // a message ID in a bare record
            msg(4.0, 0, SEND_ETYPE, 1, 1, 1), // never received
            Record::bare(5.0, 0, 602),        // never ended
        ],
    );
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].lines, [1, 1]);
    let (_, maps, u) = c.finish();
    assert_eq!(u.undeclared_events, 2);
    assert_eq!(u.state_finals, 1);
    assert_eq!(u.undeclared_timelines, 1);
    assert_eq!(u.sends, 1);
    assert_eq!(u.state_starts, 1);
    // The undeclared timeline is in the maps.
    assert!(maps[0].rows.iter().any(|r| r.line_id == 1));
}

#[test]
fn definitions_name_placeholders_or_make_new_categories() {
    let mut c = Clog2Drawables::new(&preamble());
    let out = run(
        &mut c,
        &[
            comm(0),
            statedef(600, 601, "Work"), // names user state 0: index 1 + 300
            statedef(7000, 7001, "New"), // outside every range: the next free index
            statedef(602, 605, "Bad"),  // two different placeholders: ignored
            Record::bare(1.0, 0, 7000),
            Record::bare(2.0, 0, 7001),
        ],
    );
    assert_eq!(out[0].category, 311); // 1 + 300 known + 10 user states
    let (cats, _, u) = c.finish();
    assert_eq!(u.conflicting_definitions, 1);
    let name = |i: i32| cats.iter().find(|c| c.index == i).map(|c| c.name.text());
    assert_eq!(name(301).as_deref(), Some("Work"));
    assert_eq!(name(311).as_deref(), Some("New"));
    let work = cats.iter().find(|c| c.index == 301).unwrap();
    assert_eq!(work.argb, [255, 255, 0, 0]);
    assert_eq!(work.types, b"d");
}

#[test]
fn records_after_endlog_are_ignored() {
    let mut c = Clog2Drawables::new(&preamble());
    let out = run(
        &mut c,
        &[
            comm(0),
            Record::bare(1.0, 0, 600),
            Record::new(1e8, 0, Body::EndLog),
            Record::bare(2.0, 0, 601),
        ],
    );
    assert!(out.is_empty());
    assert!(c.ended());
}

/// Pairing resumes exactly in the middle of a trace from the waiting events and
/// the definitions seen so far (what an annotation file stores per leaf).
#[test]
fn pairing_resumes_from_partials_and_definitions() {
    let clog2 = clog2_format::synth::generate_vec(
        &clog2_format::synth::Options::default()
            .ranks(4)
            .events(20_000)
            .seed(11)
            .block_size(4096),
    )
    .unwrap();
    let mut r = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    let pre = r.preamble().info().clone();
    let mut recs = Vec::new();
    while let Some(rec) = r.next_record().unwrap() {
        recs.push(rec);
    }
    for split in [1, recs.len() / 3, recs.len() / 2, recs.len() - 5] {
        let mut full = Clog2Drawables::new(&pre);
        for (i, rec) in recs[..split].iter().enumerate() {
            full.push_at(rec, i as u64);
        }
        let partials = full.partials();
        let mut resumed = Clog2Drawables::new(&pre);
        for rec in &recs[..split] {
            if matches!(rec.body, Body::StateDef(_) | Body::EventDef(_)) {
                resumed.push(rec);
            }
        }
        resumed.restore(&partials);
        assert_eq!(resumed.partials(), partials);
        for (i, rec) in recs[split..].iter().enumerate() {
            let at = (split + i) as u64;
            assert_eq!(
                full.push_at(rec, at),
                resumed.push_at(rec, at),
                "record {at}"
            );
        }
    }
}

/// `r` logged on local communicator `icomm` by thread `thread`.
fn on(mut r: Record, icomm: i32, thread: i32) -> Record {
    r.icomm = icomm;
    r.thread = thread;
    r
}

/// A message record to or from `partner` of communicator `icomm`.
fn msg_in(time: f64, rank: i32, etype: i32, icomm: i32, partner: i32, tag: i32) -> Record {
    let mut r = msg(time, rank, etype, partner, tag, 10 * tag);
    if let Body::Msg(m) = &mut r.body {
        m.icomm = icomm;
    }
    r
}

/// The rows of a line-ID map: line ID and values.
fn rows(m: &slog2_format::types::LineIdMap) -> Vec<(i32, Vec<i32>)> {
    m.rows
        .iter()
        .map(|r| (r.line_id, r.values.clone()))
        .collect()
}

fn labels(m: &slog2_format::types::LineIdMap) -> (String, Vec<String>) {
    (m.title.text(), m.labels.iter().map(|l| l.text()).collect())
}

/// Timelines no COMMEVT declared are kept with the world rank known only on
/// MPI_COMM_WORLD (local communicator 0; -1 elsewhere), counted once each, in
/// the maps by line ID `icomm·W + rank` (one thread), line IDs past the
/// 256-slot cache of used lines included.
#[test]
fn undeclared_timelines_get_a_world_rank_only_on_the_world() {
    let mut c = Clog2Drawables::new(&preamble());
    let state = |t: f64, rank: i32, icomm: i32| {
        [
            on(Record::bare(t, rank, 600), icomm, 0),
            on(Record::bare(t + 0.5, rank, 601), icomm, 0),
        ]
    };
    let recs: Vec<Record> = [
        state(1.0, 1, 1),   // line 3
        state(2.0, 1, 0),   // line 1
        state(3.0, 0, 200), // line 400 (cache slot 144)
        state(4.0, 1, 128), // line 257 (cache slot 1, as line 1)
        state(5.0, 1, 0),
        state(6.0, 1, 1),
    ]
    .concat();
    let out = run(&mut c, &recs);
    let lines: Vec<_> = out.iter().map(|p| p.lines).collect();
    assert_eq!(
        lines,
        [[3, 3], [1, 1], [400, 400], [257, 257], [1, 1], [3, 3]]
    );
    let (_, maps, u) = c.finish();
    assert_eq!(u.undeclared_timelines, 4);
    assert_eq!(
        labels(&maps[0]),
        ("Process View".into(), vec!["world_rank".into()])
    );
    assert_eq!(
        rows(&maps[0]),
        [
            (1, vec![1]),
            (3, vec![-1]),
            (257, vec![-1]),
            (400, vec![-1])
        ]
    );
    assert_eq!(
        labels(&maps[1]),
        (
            "Communicator View".into(),
            vec!["commID".into(), "comm_rank".into()]
        )
    );
    assert_eq!(
        rows(&maps[1]),
        [
            (1, vec![0, 1]),
            (3, vec![1, 1]),
            (257, vec![128, 1]),
            (400, vec![200, 0])
        ]
    );
}

/// With threads, line IDs are `icomm·W·T + rank·T + thread`; an arrow's
/// earlier end on an undeclared timeline is placed from its line ID alone
/// (communicator, rank and thread recovered), on any communicator.
#[test]
fn an_arrows_earlier_end_on_an_undeclared_thread_is_placed_from_its_line() {
    let mut pre = preamble();
    pre.comm_world_size = Some(4);
    pre.max_thread_count = Some(3);
    let mut c = Clog2Drawables::new(&pre);
    let out = run(
        &mut c,
        &[
            // icomm 1: rank 2 thread 1 (line 12 + 6 + 1 = 19) sends to rank 3,
            // received by its thread 2 (line 12 + 9 + 2 = 23).
            on(msg_in(1.0, 2, SEND_ETYPE, 1, 3, 9), 1, 1),
            on(msg_in(2.0, 3, RECV_ETYPE, 1, 2, 9), 1, 2),
            // icomm 0: the receive (rank 1 thread 2, line 5) logged first.
            on(msg_in(3.0, 1, RECV_ETYPE, 0, 0, 4), 0, 2),
            on(msg_in(3.5, 0, SEND_ETYPE, 0, 1, 4), 0, 1),
        ],
    );
    let got: Vec<_> = out.iter().map(|p| (p.times, p.lines)).collect();
    assert_eq!(got, [([1.0, 2.0], [19, 23]), ([3.5, 3.0], [1, 5])]);
    let (_, maps, u) = c.finish();
    assert_eq!(u.undeclared_timelines, 4);
    assert_eq!(
        labels(&maps[0]),
        (
            "Process-Thread View".into(),
            vec!["world_rank".into(), "thread".into()]
        )
    );
    assert_eq!(
        rows(&maps[0]),
        [
            (1, vec![0, 1]),
            (5, vec![1, 2]),
            (19, vec![-1, 1]),
            (23, vec![-1, 2])
        ]
    );
    assert_eq!(
        labels(&maps[1]),
        (
            "Communicator-Thread View".into(),
            vec!["commID".into(), "comm_rank".into(), "thread".into()]
        )
    );
    assert_eq!(
        rows(&maps[1]),
        [
            (1, vec![0, 0, 1]),
            (5, vec![0, 1, 2]),
            (19, vec![1, 2, 1]),
            (23, vec![1, 3, 2])
        ]
    );
}

/// A world of 65536 processes of 65536 threads: `W·T` wraps to 0 in Java's
/// `int` arithmetic, and the earlier end's line is then taken as `rank·T +
/// thread` (no division by zero).
#[test]
fn lines_whose_world_times_threads_wraps_to_zero_are_placed() {
    let mut pre = preamble();
    pre.comm_world_size = Some(65536);
    pre.max_thread_count = Some(65536);
    let mut c = Clog2Drawables::new(&pre);
    let out = run(
        &mut c,
        &[
            on(msg_in(1.0, 1, SEND_ETYPE, 0, 0, 2), 0, 3),
            on(msg_in(2.0, 0, RECV_ETYPE, 0, 1, 2), 0, 0),
        ],
    );
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].lines, [65539, 0]);
    let (_, maps, _) = c.finish();
    assert_eq!(rows(&maps[0]), [(0, vec![0, 0]), (65539, vec![1, 3])]);
    assert_eq!(rows(&maps[1]), [(0, vec![0, 0, 0]), (65539, vec![0, 1, 3])]);
}

/// Event IDs that share a slot of the lookup cache (64 apart) keep their own
/// meanings: the states of 0/1 and 64/65 pair apart, interleaved.
#[test]
fn event_ids_sharing_a_cache_slot_keep_their_meanings() {
    let mut c = Clog2Drawables::new(&preamble());
    let out = run(
        &mut c,
        &[
            comm(0),
            Record::bare(1.0, 0, 0),
            Record::bare(2.0, 0, 64),
            Record::bare(3.0, 0, 65),
            Record::bare(4.0, 0, 1),
            Record::bare(5.0, 0, 128),
            Record::bare(6.0, 0, 129),
        ],
    );
    let got: Vec<_> = out.iter().map(|p| (p.category, p.times)).collect();
    // Known state k is category 1 + k, its IDs 2k and 2k + 1.
    assert_eq!(got, [(33, [2.0, 3.0]), (1, [1.0, 4.0]), (65, [5.0, 6.0])]);
    assert_eq!(c.unmatched(), Default::default());
}

/// What is still open at the end: every open start is counted, Java's count
/// only those of defined categories, with every unpaired send and receive;
/// several waiting under one pairing key count one each.
#[test]
fn open_events_are_counted_at_the_end_as_java_counts_them() {
    let mut c = Clog2Drawables::new(&preamble());
    run(
        &mut c,
        &[
            comm(0),
            comm(1),
            statedef(600, 601, "Work"),
            Record::bare(1.0, 0, 600), // open, defined
            Record::bare(1.2, 0, 600), // open, defined, on the same line
            Record::bare(1.5, 1, 600), // open, defined
            Record::bare(2.0, 0, 0),   // open, a placeholder
            msg(3.0, 0, SEND_ETYPE, 1, 1, 8),
            msg(3.2, 0, SEND_ETYPE, 1, 1, 8), // the same key
            msg(4.0, 1, RECV_ETYPE, 0, 2, 8),
            msg(4.2, 1, RECV_ETYPE, 0, 2, 8), // the same key
            msg(4.5, 1, RECV_ETYPE, 0, 3, 8),
            msg(5.0, 0, RECV_ETYPE, 1, 3, 8),
        ],
    );
    let (_, _, u) = c.finish();
    assert_eq!(
        (u.state_starts, u.sends, u.recvs, u.java_count),
        (4, 2, 4, 3 + 2 + 4)
    );
    assert_eq!(u.total_dropped(), 4 + 2 + 4);
}

/// `total_dropped` adds the six kinds of dropped events and nothing else.
#[test]
fn total_dropped_adds_the_dropped_kinds() {
    let u = Unmatched {
        state_starts: 1,
        state_finals: 2,
        sends: 4,
        recvs: 8,
        undeclared_events: 16,
        conflicting_definitions: 32,
        undeclared_timelines: 64,
        java_count: 128,
        states_closed_at_end: 256,
        bad_times: 512,
    };
    assert_eq!(u.total_dropped(), 1 + 2 + 4 + 8 + 16 + 512);
}

/// Messages of the same tag pair by sender and receiver process: the receive
/// on rank 3 from rank 2 takes rank 2's send, not the older one of rank 0 to
/// rank 1, and the same ranks on another communicator are other processes. A
/// receive logged first marks its line used when its send comes (line 0, and
/// line 256 of communicator 64); a message record of a state's ID is counted.
#[test]
fn messages_of_one_tag_pair_by_sender_and_receiver() {
    let mut pre = preamble();
    pre.comm_world_size = Some(4);
    let mut c = Clog2Drawables::new(&pre);
    let out = run(
        &mut c,
        &[
            msg_in(1.0, 0, SEND_ETYPE, 0, 1, 5),
            on(msg_in(1.5, 2, SEND_ETYPE, 1, 3, 5), 1, 0),
            msg_in(2.0, 2, SEND_ETYPE, 0, 3, 5),
            msg_in(3.0, 3, RECV_ETYPE, 0, 2, 5),
            on(msg_in(3.5, 3, RECV_ETYPE, 1, 2, 5), 1, 0),
            msg_in(4.0, 1, RECV_ETYPE, 0, 0, 5),
            msg_in(5.0, 0, RECV_ETYPE, 0, 1, 6),
            msg_in(5.5, 1, SEND_ETYPE, 0, 0, 6),
            on(msg_in(6.0, 0, RECV_ETYPE, 64, 1, 7), 64, 0),
            on(msg_in(6.5, 1, SEND_ETYPE, 64, 0, 7), 64, 0),
            msg_in(7.0, 0, 600, 0, 1, 8),
        ],
    );
    assert!(!c.ended());
    let got: Vec<_> = out.iter().map(|p| (p.times, p.lines)).collect();
    assert_eq!(
        got,
        [
            ([2.0, 3.0], [2, 3]),
            ([1.5, 3.5], [6, 7]),
            ([1.0, 4.0], [0, 1]),
            ([5.5, 5.0], [1, 0]),
            ([6.5, 6.0], [257, 256])
        ]
    );
    assert_eq!(c.unmatched().undeclared_events, 1);
    let (_, maps, _) = c.finish();
    let lines: Vec<i32> = maps[0].rows.iter().map(|r| r.line_id).collect();
    assert_eq!(lines, [0, 1, 2, 3, 6, 7, 256, 257]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, .. ProptestConfig::default() })]

    /// `push_ref` of each record read in place gives what `push` of the
    /// decoded record gives (the converter uses the first, annotations and
    /// these tests the second): the same primitives, legend, maps and counts,
    /// for the legacy message layout of 02.10/02.20 too.
    #[test]
    fn records_read_in_place_pair_as_decoded_records(case in pairing_case()) {
        let bytes = write(&case);
        let mut decoded = Clog2Reader::from_slice(&bytes).unwrap();
        let pre = decoded.preamble().info().clone();
        let mut want = Clog2Drawables::new(&pre);
        let mut want_prims = Vec::new();
        while let Some(r) = decoded.next_record().unwrap() {
            want_prims.extend(want.push(&r));
        }
        let mut in_place = Clog2Reader::from_slice(&bytes).unwrap();
        let mut got = Clog2Drawables::new(&pre);
        let mut got_prims = Vec::new();
        while let Some((r, _)) = in_place.next_ref().unwrap() {
            got_prims.extend(got.push_ref(&r));
        }
        prop_assert_eq!(got_prims, want_prims);
        prop_assert_eq!(got.ended(), want.ended());
        prop_assert_eq!(got.finish(), want.finish());
    }
}

/// An EVENTDEF record of `etype`.
fn eventdef(etype: i32, name: &str) -> Record {
    Record::new(
        9.0,
        0,
        Body::EventDef(EventDef {
            etype,
            pad: FixedBytes::ZERO,
            color: FixedBytes::from_str_truncated("blue"),
            name: FixedBytes::from_str_truncated(name),
            format: FixedBytes::ZERO,
        }),
    )
}

/// An EVENTDEF of an ID that starts or ends a state, or is a message's, is
/// counted once per record and changes nothing: the state still pairs.
#[test]
fn event_definitions_of_state_or_message_ids_are_counted_conflicts() {
    let mut c = Clog2Drawables::new(&preamble());
    let out = run(
        &mut c,
        &[
            comm(0),
            eventdef(600, "A"),
            eventdef(601, "B"),
            eventdef(SEND_ETYPE, "C"),
            Record::bare(1.0, 0, 600),
            Record::bare(2.0, 0, 601),
        ],
    );
    let got: Vec<_> = out
        .iter()
        .map(|p| (p.category, p.topology, p.times))
        .collect();
    assert_eq!(got, [(301, topology::STATE, [1.0, 2.0])]);
    assert_eq!(c.unmatched().conflicting_definitions, 3);
}

/// A legacy (02.10/02.20) message record's partner is a rank of the world:
/// the pairs form on tag, sender and receiver as for MSGEVT, whatever its
/// `comm` field holds, and the size comes from the send.
#[test]
fn legacy_messages_pair_on_tag_and_partner() {
    let legacy = |time: f64, rank: i32, etype: i32, partner: i32, tag: i32, size: i32| {
        Record::new(
            time,
            rank,
            Body::LegacyMsg(LegacyMsgEvt {
                etype,
                tag,
                partner,
                comm: 7,
                size,
                pad: FixedBytes::ZERO,
            }),
        )
    };
    let mut c = Clog2Drawables::new(&preamble());
    let out = run(
        &mut c,
        &[
            comm(0),
            comm(1),
            legacy(1.0, 0, SEND_ETYPE, 1, 5, 100),
            legacy(1.5, 0, SEND_ETYPE, 1, 6, 200),
            legacy(2.0, 1, RECV_ETYPE, 0, 6, 200),
            legacy(3.0, 1, RECV_ETYPE, 0, 5, 100),
            legacy(4.0, 1, RECV_ETYPE, 0, 9, 1), // never sent
        ],
    );
    let info = |tag: i32, size: i32| {
        let mut v = tag.to_be_bytes().to_vec();
        v.extend(size.to_be_bytes());
        v
    };
    let got: Vec<_> = out
        .iter()
        .map(|p| (p.topology, p.times, p.lines, p.info().to_vec()))
        .collect();
    assert_eq!(
        got,
        [
            (topology::ARROW, [1.5, 2.0], [0, 1], info(6, 200)),
            (topology::ARROW, [1.0, 3.0], [0, 1], info(5, 100)),
        ]
    );
    let (_, _, u) = c.finish();
    assert_eq!((u.sends, u.recvs), (0, 1));
}

/// A message record of event ID -1 (no event) is skipped without a count; one
/// of a state's ID (1, known state 0's final event) is counted as undeclared,
/// as a bare record of a message ID is.
#[test]
fn message_records_of_no_event_are_skipped_and_of_state_ids_counted() {
    let mut c = Clog2Drawables::new(&preamble());
    let out = run(
        &mut c,
        &[
            comm(0),
            comm(1),
            msg(1.0, 0, -1, 1, 5, 8),
            msg(2.0, 1, -1, 0, 5, 8),
            msg(3.0, 0, 1, 1, 5, 8),
        ],
    );
    assert!(out.is_empty());
    assert_eq!(c.unmatched().undeclared_events, 1);
    let (_, _, u) = c.finish();
    assert_eq!((u.sends, u.recvs, u.undeclared_events), (0, 0, 1));
}
