//! The CLOG2 event-pairing rules of spec/conversion.md §2, one behaviour per test, on
//! hand-made record streams (no corpus needed).

use clog2_format::record::*;
use clog2_format::{FixedBytes, PreambleInfo, Record};
use slog2_format::convert::Clog2Drawables;
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
