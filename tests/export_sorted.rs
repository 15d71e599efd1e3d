//! The one-pass export of CLOG2, old CLOG, ALOG and SLOG-1 traces: their
//! events paired by the converters' code (`convert::*_into`) and put in start
//! order by `StartOrder`, which spills sorted runs to a temporary file when
//! its memory is full, give the very primitives, in the very order, that the
//! export of the converted SLOG-2 file reads, whole or in a window, whatever
//! the memory and the tree's shape.

use clog2_format::clog::ClogRecords;
use mpelog::export::sorted::StartOrder;
use mpelog::export::{Ordered, Piece};
use mpelog_conformance::strategies;
use proptest::prelude::*;
use slog2_format::convert;
use slog2_format::write::TreeOptions;
use slog2_format::Slog2Reader;
use std::io::Cursor;

/// A piece, owned, with its times as bits (so equal means identical).
type Owned = (i32, (u64, i32), (u64, i32), u64, u64, Vec<u8>);

fn owned(p: Piece<'_>) -> Owned {
    (
        p.category,
        (p.first.0.to_bits(), p.first.1),
        (p.last.0.to_bits(), p.last.1),
        p.start.to_bits(),
        p.end.to_bits(),
        p.info.to_vec(),
    )
}

/// Every piece `src` gives for `[from, to)`, in its order.
fn pieces<T: Ordered>(src: &mut T, from: Option<f64>, to: Option<f64>) -> Vec<Owned>
where
    T::Error: std::fmt::Debug,
{
    let span = src.span(from, to);
    let mut out = Vec::new();
    src.pieces(span, &mut |p| out.push(owned(p))).unwrap();
    out
}

/// Cases per property: `default`, or `MPELOG_PROPTEST_CASES` when larger.
fn cases(default: u32) -> u32 {
    std::env::var("MPELOG_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(default, |n: u32| n.max(default))
}

/// A window from fractions of the time box: `None` bounds stay open.
fn window(time_box: (f64, f64), w: (Option<f64>, Option<f64>)) -> (Option<f64>, Option<f64>) {
    let at = |f: f64| time_box.0 + f * (time_box.1 - time_box.0);
    (w.0.map(at), w.1.map(at))
}

/// Compares the two paths for one input: `via` converts to SLOG-2 (with
/// `tree`), `direct` pairs into a `StartOrder` of `memory` bytes.
fn same_both_ways(
    via: impl FnOnce(Cursor<Vec<u8>>) -> slog2_format::Result<Cursor<Vec<u8>>>,
    direct: impl FnOnce(StartOrder) -> slog2_format::Result<mpelog::export::sorted::Sorted>,
    memory: usize,
    w: (Option<f64>, Option<f64>),
) -> Result<(), TestCaseError> {
    let converted = via(Cursor::new(Vec::new()));
    let converted = match converted {
        Ok(c) => c,
        Err(slog2_format::Error::Empty) => {
            // Nothing to draw: the direct path has nothing either.
            let mut sorted = direct(StartOrder::new().memory(memory)).unwrap();
            prop_assert!(pieces(&mut sorted, None, None).is_empty());
            return Ok(());
        }
        Err(e) => {
            // A trace the converter refuses is refused the same way.
            let d = direct(StartOrder::new().memory(memory));
            prop_assert!(d.is_err(), "converter: {e}; direct path succeeded");
            prop_assert_eq!(d.unwrap_err().to_string(), e.to_string());
            return Ok(());
        }
    };
    let mut r = Slog2Reader::new(Cursor::new(converted.into_inner())).unwrap();
    let whole = r.span(None, None);
    let (from, to) = window((whole.from, whole.to), w);
    let want = pieces(&mut r, from, to);
    let mut sorted = direct(StartOrder::new().window(from, to).memory(memory)).unwrap();
    let got = pieces(&mut sorted, from, to);
    prop_assert_eq!(got.len(), want.len());
    prop_assert!(got == want, "the same pieces in the same order");
    if memory < 4096 && want.len() > 100 && w == (None, None) {
        prop_assert!(sorted.runs() > 1, "a small memory spills sorted runs");
    }
    Ok(())
}

fn memory() -> impl Strategy<Value = usize> {
    prop_oneof![Just(1usize), 100usize..4096, Just(64usize << 20)]
}

fn windows() -> impl Strategy<Value = (Option<f64>, Option<f64>)> {
    prop_oneof![
        2 => Just((None, None)),
        1 => (0.0f64..0.6, 0.0f64..0.5).prop_map(|(a, w)| (Some(a), Some(a + w))),
        1 => (0.0f64..1.0).prop_map(|a| (Some(a), None)),
        1 => (0.0f64..1.0).prop_map(|b| (None, Some(b))),
    ]
}

fn tree() -> impl Strategy<Value = TreeOptions> {
    (prop::sample::select(vec![256u32, 2048, 65536]), 2u16..5)
        .prop_map(|(l, c)| TreeOptions::default().leaf_bytes(l).children(c))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(24)))]

    #[test]
    fn clog2_one_pass_equals_the_converted_file(
        trace in strategies::clog2::trace(),
        memory in memory(),
        w in windows(),
        tree in tree(),
    ) {
        same_both_ways(
            |out| {
                let mut r = clog2_format::Clog2Reader::from_slice(&trace).unwrap();
                convert::clog2_to_slog2(&mut r, out, tree, |_| {}).map(|x| x.0)
            },
            |sink| {
                let mut r = clog2_format::Clog2Reader::from_slice(&trace).unwrap();
                convert::clog2_into(&mut r, sink, |_| {}).map(|x| x.0)
            },
            memory,
            w,
        )?;
    }

    #[test]
    fn clog2_records_one_pass_equals_the_converted_file(
        trace in strategies::clog2::ordered_file(),
        memory in memory(),
        w in windows(),
    ) {
        let Ok(mut r) = clog2_format::Clog2Reader::from_slice(&trace) else {
            return Ok(());
        };
        let mut r2 = clog2_format::Clog2Reader::from_slice(&trace).unwrap();
        same_both_ways(
            |out| convert::clog2_to_slog2(&mut r, out, TreeOptions::default(), |_| {}).map(|x| x.0),
            |sink| convert::clog2_into(&mut r2, sink, |_| {}).map(|x| x.0),
            memory,
            w,
        )?;
    }

    #[test]
    fn old_clog_one_pass_equals_the_converted_file(
        file in strategies::clog::file(),
        memory in memory(),
        w in windows(),
    ) {
        same_both_ways(
            |out| {
                let records = ClogRecords::new(&file)?;
                convert::clog_to_slog2(records, out, TreeOptions::default(), |_| {}).map(|x| x.0)
            },
            |sink| convert::clog_into(ClogRecords::new(&file)?, sink, |_| {}).map(|x| x.0),
            memory,
            w,
        )?;
    }

    #[test]
    fn alog_one_pass_equals_the_converted_file(
        f in strategies::alog::alog_file(),
        memory in memory(),
        w in windows(),
    ) {
        same_both_ways(
            |out| convert::alog_to_slog2(&f, out, TreeOptions::default(), |_| {}).map(|x| x.0),
            |sink| convert::alog_into(&f, sink, |_| {}).map(|x| x.0),
            memory,
            w,
        )?;
    }

    #[test]
    fn slog1_one_pass_equals_the_converted_file(
        f in strategies::slog1::slog1_file(),
        memory in memory(),
        w in windows(),
    ) {
        same_both_ways(
            |out| convert::slog1_to_slog2(&f, out, TreeOptions::default(), |_| {}).map(|x| x.0),
            |sink| convert::slog1_into(&f, sink, |_| {}).map(|x| x.0),
            memory,
            w,
        )?;
    }
}

/// `window` and `temp_dir` keep the other settings (here a memory of one
/// primitive, which spills a run per primitive held): a narrow window holds
/// only what meets it, so it spills far fewer runs than the whole trace; the
/// runs go in the directory `temp_dir` names, and one that does not exist is
/// reported when the first run is written.
#[test]
fn window_and_temp_dir_keep_the_other_settings() {
    let trace = clog2_format::synth::generate_vec(
        &clog2_format::synth::Options::default()
            .ranks(2)
            .events(2000)
            .seed(4),
    )
    .unwrap();
    let run = |order: StartOrder| {
        let mut r = clog2_format::Clog2Reader::from_slice(&trace).unwrap();
        convert::clog2_into(&mut r, order, |_| {}).map(|x| x.0)
    };
    let mut all = run(StartOrder::new().memory(1)).unwrap();
    let whole = all.span(None, None);
    let every = pieces(&mut all, None, None).len();
    assert!(all.runs() > 100, "{} runs", all.runs());
    // One primitive held: every one kept is spilled as a run of its own.
    assert_eq!(all.len(), all.runs() as u64);
    assert!(!all.is_empty());
    let (a, b) = window((whole.from, whole.to), (Some(0.4), Some(0.42)));
    let mut narrow = run(StartOrder::new().memory(1).window(a, b)).unwrap();
    let shown = pieces(&mut narrow, a, b).len();
    assert!(shown > 1 && shown < every / 5, "{shown} of {every}");
    assert!(
        narrow.runs() > 1 && narrow.runs() < all.runs() / 5,
        "{} runs of {}",
        narrow.runs(),
        all.runs()
    );
    assert_eq!(narrow.len(), narrow.runs() as u64);
    let missing = tempfile::tempdir().unwrap().path().join("gone");
    assert!(run(StartOrder::new().memory(1).temp_dir(&missing)).is_err());
    let dir = tempfile::tempdir().unwrap();
    let ok = run(StartOrder::new().memory(1).temp_dir(dir.path())).unwrap();
    assert_eq!(ok.runs(), all.runs());
}

/// `categories`, `maps` and `time_box` are what the converted file has: its
/// legend without the preview categories (negative indices) and the
/// summaries, its views, and the earliest start and latest end of all its
/// primitives, whatever the window (a narrow one keeps a few, one after the
/// trace none: `is_empty`) and whether runs were spilled or not.
#[test]
fn legend_views_and_time_box_are_the_converted_files() {
    let trace = clog2_format::synth::generate_vec(
        &clog2_format::synth::Options::default()
            .ranks(3)
            .events(1500)
            .seed(9),
    )
    .unwrap();
    let mut r = clog2_format::Clog2Reader::from_slice(&trace).unwrap();
    let (out, _) = convert::clog2_to_slog2(
        &mut r,
        Cursor::new(Vec::new()),
        TreeOptions::default(),
        |_| {},
    )
    .unwrap();
    let mut file = Slog2Reader::new(Cursor::new(out.into_inner())).unwrap();
    let legend: Vec<_> = file
        .categories()
        .unwrap()
        .value
        .categories
        .iter()
        .filter(|c| c.index >= 0)
        .map(|c| slog2_format::Category {
            summary: None,
            ..c.clone()
        })
        .collect();
    let views = file.line_id_maps().unwrap().value.maps.clone();
    assert!(legend.len() > 1 && views.len() > 1);
    // The time box from the file's primitives, read one by one.
    let mut time_box = (f64::INFINITY, f64::NEG_INFINITY);
    let span = file.span(None, None);
    file.pieces(span, &mut |p| {
        time_box = (time_box.0.min(p.start), time_box.1.max(p.end));
    })
    .unwrap();
    let (a, b) = window(time_box, (Some(0.5), Some(0.51)));
    for memory in [1, 64 << 20] {
        for (from, to) in [(None, None), (a, b)] {
            let mut r = clog2_format::Clog2Reader::from_slice(&trace).unwrap();
            let order = StartOrder::new().window(from, to).memory(memory);
            let sorted = convert::clog2_into(&mut r, order, |_| {}).unwrap().0;
            assert_eq!(sorted.categories(), &legend[..], "memory {memory}");
            assert_eq!(sorted.maps(), &views[..], "memory {memory}");
            let got = sorted.time_box().unwrap();
            assert_eq!(
                (got.0.to_bits(), got.1.to_bits()),
                (time_box.0.to_bits(), time_box.1.to_bits()),
                "memory {memory}, window {from:?}..{to:?}"
            );
            assert!(!sorted.is_empty());
        }
        // A window after the trace keeps nothing, and says so.
        let mut r = clog2_format::Clog2Reader::from_slice(&trace).unwrap();
        let after = (Some(time_box.1 + 1.0), Some(time_box.1 + 2.0));
        let order = StartOrder::new().window(after.0, after.1).memory(memory);
        let sorted = convert::clog2_into(&mut r, order, |_| {}).unwrap().0;
        assert!(sorted.is_empty(), "memory {memory}");
        assert_eq!(sorted.len(), 0);
    }
}
