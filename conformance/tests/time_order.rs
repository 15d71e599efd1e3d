//! C2-TIME-001 and C2-TIME-002 against their reference, `mpelog convert`: over
//! small random traces of states, arrows and solo events (times on a coarse
//! grid, so that equal times, nested and overlapping drawables are common),
//! `check` reports a C2-TIME rule exactly when the converter refuses the file,
//! and at the converter's byte offset. The oracle is the converter's own
//! decision, not the checker's rule restated.

mod common;

use clog2_format::record::{Body, MsgEvt, Record};
use clog2_format::FixedBytes;
use common::{build, convert_refusal};
use mpelog_conformance::{check_bytes, Options};
use proptest::prelude::*;

/// Cases per whole-trace property: `default`, or `MPELOG_PROPTEST_CASES` when
/// that is larger (CI raises it).
fn cases(default: u32) -> u32 {
    std::env::var("MPELOG_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(default, |n: u32| n.max(default))
}

fn msg(time: f64, rank: i32, etype: i32, partner: i32) -> Record {
    Record::new(
        time,
        rank,
        Body::Msg(MsgEvt {
            etype,
            icomm: 0,
            rank: partner,
            tag: 7,
            size: 8,
            pad: FixedBytes::ZERO,
        }),
    )
}

/// The first C2-TIME finding of `check`, as (rule, offset).
fn check_time(b: &[u8]) -> Option<(String, u64)> {
    check_bytes(b, &Options::default())
        .findings
        .iter()
        .find(|f| f.rule.starts_with("C2-TIME-"))
        .map(|f| (f.rule.to_string(), f.offset))
}

/// One record: kinds 0..=3 are the start/final events of states 0 (events 0/1)
/// and 1 (events 2/3), 4 a known solo event, 5 a send to the other rank, 6 a
/// receive from it.
fn record((tick, rank, kind): (u8, i32, u8)) -> Record {
    let t = f64::from(tick) * 0.5;
    match kind {
        0..=3 => Record::bare(t, rank, i32::from(kind)),
        4 => Record::bare(t, rank, -10),
        5 => msg(t, rank, -101, 1 - rank),
        _ => msg(t, rank, -102, 1 - rank),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(512), ..ProptestConfig::default() })]

    #[test]
    fn check_reports_time_order_exactly_where_convert_refuses(
        recs in prop::collection::vec((0u8..8, 0i32..2, 0u8..7), 1..14)
    ) {
        // A solo event at time 0 first: the file always has a drawable (an
        // empty one is refused for that), and it constrains no later time.
        let body: Vec<Record> = std::iter::once(Record::bare(0.0, 0, -10))
            .chain(recs.into_iter().map(record))
            .collect();
        let b = build(&body);
        let refused = convert_refusal(&b);
        let found = check_time(&b);
        prop_assert_eq!(
            found.as_ref().map(|f| f.1),
            refused,
            "check {:?}, convert refuses at {:?}; records {:?}",
            found,
            refused,
            body
        );
    }
}

/// Hand-picked orders, each with the converter's verdict checked first, so
/// that the property above is known to meet both outcomes.
#[test]
fn both_verdicts_occur() {
    let cases: &[(&[Record], bool)] = &[
        // [1, 3] then [0.5, 2]: overlapping, ends earlier: refused.
        (
            &[
                Record::bare(1.0, 0, 0),
                Record::bare(3.0, 0, 1),
                Record::bare(0.5, 0, 2),
                Record::bare(2.0, 0, 3),
            ],
            true,
        ),
        // [1, 3] then [0.5, 3]: same end: accepted.
        (
            &[
                Record::bare(1.0, 0, 0),
                Record::bare(3.0, 0, 1),
                Record::bare(0.5, 1, 2),
                Record::bare(3.0, 1, 3),
            ],
            false,
        ),
        // Nested on one rank: the inner state ends first, the outer later.
        (
            &[
                Record::bare(1.0, 0, 0),
                Record::bare(2.0, 0, 2),
                Record::bare(3.0, 0, 3),
                Record::bare(4.0, 0, 1),
            ],
            false,
        ),
        // An event at 2.5 after a state ending at 3: refused.
        (
            &[
                Record::bare(1.0, 0, 0),
                Record::bare(3.0, 0, 1),
                Record::bare(2.5, 1, -10),
            ],
            true,
        ),
        // An arrow sent at 0.5 and received at 2, after a state ending at 3.
        (
            &[
                Record::bare(1.0, 0, 0),
                Record::bare(3.0, 0, 1),
                msg(0.5, 0, -101, 1),
                msg(2.0, 1, -102, 0),
            ],
            true,
        ),
    ];
    for (i, (body, refused)) in cases.iter().enumerate() {
        let b = build(body);
        let conv = convert_refusal(&b);
        assert_eq!(conv.is_some(), *refused, "case {i}: convert");
        let found = check_time(&b);
        assert_eq!(found.as_ref().map(|f| f.1), conv, "case {i}: {found:?}");
        if let Some((rule, _)) = found {
            assert_eq!(rule, "C2-TIME-001", "case {i}");
        }
    }
}
