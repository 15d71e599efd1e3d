//! Window queries through an annotation equal window queries on the SLOG-2 file
//! converted from the same trace; the trace bytes read are bounded by the visible
//! drawables (spec/queries.md §4.2); a changed trace is refused.

use mpelog_annotate::error::Change;
use mpelog_annotate::{AnnotateOptions, Annotation};
use mpelog_conformance::strategies::annotation::{annotate, annotate_options_with};
use mpelog_conformance::strategies::clog2::{generate, synth_options};
use mpelog_conformance::strategies::slog2::{convert, windows};
use proptest::prelude::*;
use slog2_format::write::TreeOptions;
use slog2_format::{Slog2Reader, WindowBuf};
use std::io::Cursor;
use std::path::PathBuf;

fn trace(ranks: u32, events: u64, seed: u64, block_size: u32) -> Vec<u8> {
    generate(
        &clog2_format::synth::Options::default()
            .ranks(ranks)
            .events(events)
            .seed(seed)
            .block_size(block_size),
    )
}

fn index(clog2: &[u8], opts: AnnotateOptions) -> Vec<u8> {
    annotate(clog2, opts)
}

fn slog2(clog2: &[u8]) -> Vec<u8> {
    convert(clog2, TreeOptions::default()).0
}

fn texts(d: &[slog2_format::Primitive]) -> Vec<String> {
    let mut v: Vec<String> = d.iter().map(|p| format!("{p:?}")).collect();
    v.sort();
    v
}

fn located(d: &[slog2_format::window::Located<slog2_format::Primitive>]) -> Vec<String> {
    let mut v: Vec<String> = d.iter().map(|p| format!("{:?}", p.value)).collect();
    v.sort();
    v
}

/// Cases per whole-trace property: `default`, or `MPELOG_PROPTEST_CASES` when
/// that is larger (CI raises it).
fn cases(default: u32) -> u32 {
    std::env::var("MPELOG_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(default, |n: u32| n.max(default))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(20), .. ProptestConfig::default() })]

    #[test]
    fn annotation_windows_equal_slog2_windows(
        synth in synth_options(1..5, 300..6000, &[512, 1024, 4096]),
        opts in annotate_options_with(prop::sample::select(vec![512u32, 2048, 8192]), 2u16..5),
        windows in windows(0.4, 1..10),
    ) {
        let clog2 = generate(&synth);
        let idx = index(&clog2, opts);
        let s = slog2(&clog2);
        let mut a = Annotation::new(Cursor::new(&idx), Cursor::new(&clog2)).unwrap();
        let mut r = Slog2Reader::new(Cursor::new(&s)).unwrap();
        let (t0, t1) = (a.header().earliest, a.header().latest);
        let largest = a.leaves().iter().map(|l| l.len as u64).max().unwrap();
        let mut buf = WindowBuf::new();
        for w in windows {
            let (start, end) = w.place(t0, t1);
            let x = a.window(start, end).unwrap();
            // The buffer answer: the same drawables in the same order, the same
            // counters.
            let read = a.window_into(&mut buf, start, end).unwrap();
            prop_assert_eq!(read, x.counters);
            let owned: Vec<slog2_format::window::Located<slog2_format::Drawable>> = x
                .drawables
                .iter()
                .map(|d| slog2_format::window::Located {
                    node: d.node,
                    value: slog2_format::Drawable::Primitive(d.value.clone()),
                })
                .collect();
            prop_assert_eq!(buf.to_answer().drawables, owned);
            let y = r.window(start, end).unwrap();
            let ys: Vec<slog2_format::Primitive> = y.drawables.iter().filter_map(|d| match &d.value {
                slog2_format::Drawable::Primitive(p) => Some(p.clone()),
                _ => None,
            }).collect();
            prop_assert_eq!(located(&x.drawables), texts(&ys), "window [{}, {})", start, end);
            // spec/queries.md §4.2: trace bytes <= R (2 + 2D + X + U); the
            // generated traces have no unmatched events (U = 0).
            let d = x.drawables.len() as u64;
            let bound = largest * (2 + 2 * d + x.counters.other_records);
            prop_assert!(x.counters.trace_bytes <= bound,
                "{} trace bytes > bound {} (D {}, R {}, X {})",
                x.counters.trace_bytes, bound, d, largest, x.counters.other_records);
        }
    }
}

#[test]
fn a_changed_trace_is_refused() {
    let clog2 = trace(3, 5000, 4, 1024);
    let idx = index(&clog2, AnnotateOptions::default());
    // Size changed.
    let mut longer = clog2.clone();
    longer.push(0);
    let e = Annotation::new(Cursor::new(&idx), Cursor::new(&longer)).unwrap_err();
    let (now, then) = (longer.len() as u64, clog2.len() as u64);
    match e {
        mpelog_annotate::Error::Stale { offset, change } => {
            assert_eq!((offset, change), (now, Change::TraceSize { now, then }))
        }
        e => panic!("{e}"),
    }
    // Preamble changed.
    let mut pre = clog2.clone();
    pre[1000] ^= 1;
    let e = Annotation::new(Cursor::new(&idx), Cursor::new(&pre)).unwrap_err();
    assert!(
        matches!(
            e,
            mpelog_annotate::Error::Stale {
                offset: 0,
                change: Change::Preamble,
            }
        ),
        "{e}"
    );
    // A range changed: only the window that reads it fails.
    let mut body = clog2.clone();
    let last = body.len() - 1;
    body[last - 300] ^= 1;
    let mut a = Annotation::new(Cursor::new(&idx), Cursor::new(&body)).unwrap();
    let (t0, t1) = (a.header().earliest, a.header().latest);
    // The leaf that holds the changed byte.
    let (leaf, last_leaf) = a
        .leaves()
        .iter()
        .enumerate()
        .find(|(_, l)| (l.offset..l.offset + u64::from(l.len)).contains(&(last as u64 - 300)))
        .map(|(i, l)| (i, *l))
        .unwrap();
    let changed = Change::Leaf {
        leaf,
        offset: last_leaf.offset,
        len: last_leaf.len,
    };
    let e = a.window(t0, t1 + 1.0).unwrap_err();
    match e {
        mpelog_annotate::Error::Stale { offset, change } => {
            assert_eq!((offset, change), (last_leaf.offset, changed.clone()))
        }
        e => panic!("{e}"),
    }
    assert!(a.window(t0, t0 + (t1 - t0) / 100.0).is_ok());
    // The buffer query fails alike and leaves an empty answer.
    let mut buf = WindowBuf::new();
    a.window_into(&mut buf, t0, t0 + (t1 - t0) / 100.0).unwrap();
    assert!(buf.drawables_len() > 0);
    let e = a.window_into(&mut buf, t0, t1 + 1.0).unwrap_err();
    match e {
        mpelog_annotate::Error::Stale { change, .. } => assert_eq!(change, changed),
        e => panic!("{e}"),
    }
    assert_eq!(buf.drawables_len(), 0);
}

/// Every byte of a leaf's trace range is under its checksum: a flipped first,
/// middle or last byte makes exactly that leaf stale (IDX-STALE-003, at the
/// leaf's offset) and leaves its neighbours readable; a flipped preamble byte
/// (first or last) refuses the annotation (IDX-STALE-002). No corpus.
#[test]
fn every_byte_of_a_leaf_is_checksummed() {
    use mpelog_annotate::Error;
    let clog2 = trace(3, 5000, 4, 1024);
    let idx = index(
        &clog2,
        AnnotateOptions::default().tree(
            slog2_format::write::TreeOptions::default()
                .leaf_bytes(2048)
                .children(2),
        ),
    );
    let leaves = Annotation::new(Cursor::new(&idx), Cursor::new(&clog2))
        .unwrap()
        .leaves()
        .to_vec();
    assert!(leaves.len() >= 4, "{} leaves", leaves.len());
    for (i, leaf) in leaves.iter().enumerate() {
        let len = u64::from(leaf.len);
        for at in [leaf.offset, leaf.offset + len / 2, leaf.offset + len - 1] {
            let mut b = clog2.clone();
            b[at as usize] ^= 0x40;
            let mut a = Annotation::new(Cursor::new(&idx), Cursor::new(&b)).unwrap();
            match a.verify_leaf(i) {
                Err(Error::Stale { change, offset }) => {
                    let want = Change::Leaf {
                        leaf: i,
                        offset: leaf.offset,
                        len: leaf.len,
                    };
                    assert_eq!((change, offset), (want, leaf.offset), "byte {at}")
                }
                other => panic!("leaf {i}, byte {at} flipped: {other:?}"),
            }
            for j in [i.wrapping_sub(1), i + 1] {
                if j < leaves.len() {
                    a.verify_leaf(j)
                        .unwrap_or_else(|e| panic!("leaf {j} with byte {at} flipped: {e}"));
                }
            }
        }
    }
    for at in [0, 1023] {
        let mut b = clog2.clone();
        b[at] ^= 0x40;
        match Annotation::new(Cursor::new(&idx), Cursor::new(&b)) {
            Err(Error::Stale { change, .. }) => assert_eq!(change, Change::Preamble, "byte {at}"),
            other => panic!("preamble byte {at} flipped: {:?}", other.err()),
        }
    }
}

fn corpus() -> Option<PathBuf> {
    mpelog_conformance::corpus::root()
}

#[test]
fn corpus_whole_file_windows_equal_the_converted_files() {
    let Some(dir) = corpus() else { return };
    let mut n = 0;
    for e in std::fs::read_dir(dir.join("mpe")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "clog2") {
            continue;
        }
        let clog2 = std::fs::read(&p).unwrap();
        for opts in [
            AnnotateOptions::default(),
            AnnotateOptions::default().tree(
                slog2_format::write::TreeOptions::default()
                    .leaf_bytes(4096)
                    .children(3),
            ),
        ] {
            let idx = index(&clog2, opts);
            let s = slog2(&clog2);
            let mut a = Annotation::new(Cursor::new(&idx), Cursor::new(&clog2)).unwrap();
            let mut r = Slog2Reader::new(Cursor::new(&s)).unwrap();
            let x = a.window(f64::NEG_INFINITY, f64::INFINITY).unwrap();
            let y = r.window(f64::NEG_INFINITY, f64::INFINITY).unwrap();
            let ys: Vec<slog2_format::Primitive> = y
                .drawables
                .iter()
                .filter_map(|d| match &d.value {
                    slog2_format::Drawable::Primitive(p) => Some(p.clone()),
                    _ => None,
                })
                .collect();
            assert_eq!(located(&x.drawables), texts(&ys), "{}", p.display());
        }
        n += 1;
    }
    assert_eq!(n, 26, "corpus CLOG2 files");
}

#[test]
fn options_without_the_trace_stamp_are_refused_before_reading() {
    let clog2 = trace(2, 200, 7, 1024);
    let mut r = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    let opts = AnnotateOptions::default();
    let e = mpelog_annotate::annotate(&mut r, Cursor::new(Vec::new()), opts, |_| {}).unwrap_err();
    assert!(
        matches!(e, mpelog_annotate::Error::InvalidOptions(_)),
        "{e}"
    );
    // With the stamp the same reader's trace is annotated, and the stamp is
    // the one the header records: size, then the preamble's CRC-32.
    let stamp = mpelog_annotate::TraceStamp::new(clog2.len() as u64, &clog2[..1024]);
    assert_eq!(stamp.size, clog2.len() as u64);
    let opts = opts.trace(clog2.len() as u64, &clog2[..1024]);
    assert_eq!(opts.trace, Some(stamp));
    let idx = index(&clog2, opts);
    assert!(mpelog_annotate::looks_like(&idx));
}
