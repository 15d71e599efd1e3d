//! `Trace::scan_until` hands a CLOG2 trace's pieces out while it reads
//! (issue 45): the same pieces, in the same order, as the sorted path
//! (`Trace::scan`: read whole, sorted in runs, merged), whether the pieces
//! leave at once (a trace in time order with short states), or a state stays
//! open so long that the reorder heap falls back to sorted runs.

use clog2_format::record::Record;
use clog2_format::{Clog2Writer, PreambleInfo};
use mpelog::export::Options;
use mpelog::Trace;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A piece as a row: what the Arrow and Parquet tables hold of it.
type Row = (i32, u64, u64, i32, i32, Vec<u8>);

fn row(p: mpelog::slices::Piece<'_>) -> Row {
    (
        p.category,
        p.start.to_bits(),
        p.end.to_bits(),
        p.first.1,
        p.last.1,
        p.info.to_vec(),
    )
}

/// The rows of one path, and its legend (every field of every category).
type Read = (Vec<Row>, Vec<String>);

/// The rows of the sorted path and of the streamed one, and the legends.
fn both(path: &Path, opts: &Options) -> (Read, Read) {
    let names = |l: &[slog2_format::Category]| l.iter().map(|c| format!("{c:?}")).collect();
    let mut t = Trace::open(path).unwrap();
    let (mut old, mut old_legend) = (Vec::new(), Vec::new());
    t.scan(opts, &mut |l| old_legend = names(l), &mut |p| {
        old.push(row(p))
    })
    .unwrap();
    let (mut new, mut new_legend) = (Vec::new(), Vec::new());
    let stop = Arc::new(AtomicBool::new(false));
    let n = t
        .scan_until(opts, &stop, &mut |l| new_legend = names(l), &mut |p| {
            new.push(row(p))
        })
        .unwrap();
    assert_eq!(n as usize, new.len());
    ((old, old_legend), (new, new_legend))
}

fn generated(dir: &Path, opts: clog2_format::synth::Options) -> PathBuf {
    let path = dir.join("g.clog2");
    std::fs::write(&path, clog2_format::synth::generate_vec(&opts).unwrap()).unwrap();
    path
}

/// Two ranks: rank 0 in one state from the first record to the last (the
/// preamble's first placeholder: events 0 and 1), rank 1 in `n` short states
/// under it, some starting at the same time as others end, two of them
/// nested ones of the same start.
fn long_open(dir: &Path, n: usize) -> PathBuf {
    let path = dir.join("long.clog2");
    let mut w = Clog2Writer::new(
        std::io::Cursor::new(Vec::new()),
        PreambleInfo::mpe_default(2),
    )
    .unwrap();
    w.push(&Record::bare(0.0, 0, 0)).unwrap();
    let mut t = 0.0;
    for i in 0..n {
        t += 0.25;
        w.push(&Record::bare(t, 1, 0)).unwrap();
        if i % 7 == 0 {
            // A second state of the same start, ending first.
            w.push(&Record::bare(t, 1, 0)).unwrap();
            w.push(&Record::bare(t + 0.125, 1, 1)).unwrap();
        }
        t += 0.25;
        w.push(&Record::bare(t, 1, 1)).unwrap();
    }
    w.push(&Record::bare(t + 1.0, 0, 1)).unwrap();
    let (out, _) = w.finish(None).unwrap();
    std::fs::write(&path, out.into_inner()).unwrap();
    path
}

#[test]
fn a_trace_in_time_order_streams_the_sorted_rows() {
    let dir = tempfile::tempdir().unwrap();
    let opts = clog2_format::synth::Options::default()
        .ranks(4)
        .events(30_000);
    let path = generated(dir.path(), opts);
    let mut t = Trace::open(&path).unwrap();
    let (a, b) = t.time_box().unwrap().unwrap();
    let mid = |f: f64| a + (b - a) * f;
    for window in [
        Options::default(),
        Options::default().window(Some(mid(0.4)), Some(mid(0.6))),
        Options::default().window(Some(mid(0.7)), None),
        Options::default().window(None, Some(mid(0.1))),
        // A tiny heap: the streamed path falls back to sorted runs.
        Options::default().sort_memory(4 << 10),
    ] {
        let (old, new) = both(&path, &window);
        assert!(!old.0.is_empty(), "{window:?}");
        assert_eq!(old.1, new.1, "legend, {window:?}");
        assert_eq!(old.0.len(), new.0.len(), "{window:?}");
        assert!(old.0 == new.0, "rows differ, {window:?}");
    }
}

#[test]
fn a_state_open_all_along_falls_back_and_keeps_the_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = long_open(dir.path(), 3000);
    for (opts, least) in [
        (Options::default(), 3000),
        // 3000 states cannot wait among about 40 held.
        (Options::default().sort_memory(4 << 10), 3000),
        (
            Options::default()
                .sort_memory(4 << 10)
                .window(Some(100.0), Some(200.0)),
            200,
        ),
    ] {
        let (old, new) = both(&path, &opts);
        assert!(old.0.len() > least, "{opts:?}: {}", old.0.len());
        assert_eq!(old.1, new.1, "legend, {opts:?}");
        assert!(old.0 == new.0, "rows differ, {opts:?}");
    }
}

#[test]
fn an_abandoned_stream_stops() {
    // Stopped after 100 pieces: no 101st, and the error says stopped.
    let dir = tempfile::tempdir().unwrap();
    let opts = clog2_format::synth::Options::default()
        .ranks(4)
        .events(200_000);
    let path = generated(dir.path(), opts);
    let mut t = Trace::open(&path).unwrap();
    let total = t
        .scan(&Default::default(), &mut |_| {}, &mut |_| {})
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let mut seen = 0u64;
    let e = t
        .scan_until(&Default::default(), &stop, &mut |_| {}, &mut |_| {
            seen += 1;
            if seen == 100 {
                stop.store(true, Ordering::Relaxed);
            }
        })
        .unwrap_err();
    assert_eq!((e.kind(), seen), ("stopped", 100));
    assert!(total > 50_000, "{total}");
}

#[test]
fn records_out_of_time_order_are_sorted_whole() {
    // Rank 0's 3000 short states, then rank 1's start at 0.1 (a record
    // earlier than those before it: the converter takes it, as the ends stay
    // in order), ended last. Streamed pieces would have left before it: the
    // first pass sees the records out of order and the sorted path is taken.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("late.clog2");
    let mut w = Clog2Writer::new(
        std::io::Cursor::new(Vec::new()),
        PreambleInfo::mpe_default(2),
    )
    .unwrap();
    let mut t = 1.0;
    for _ in 0..3000 {
        w.push(&Record::bare(t, 0, 0)).unwrap();
        w.push(&Record::bare(t + 0.25, 0, 1)).unwrap();
        t += 0.5;
    }
    w.push(&Record::bare(0.1, 1, 0)).unwrap();
    w.push(&Record::bare(t, 1, 1)).unwrap();
    let (out, _) = w.finish(None).unwrap();
    std::fs::write(&path, out.into_inner()).unwrap();
    survey_agrees(&path);
    let (old, new) = both(&path, &Options::default());
    assert_eq!(old.0.len(), 3001);
    assert_eq!(old.0[0].1, 0.1f64.to_bits(), "rank 1's state first");
    assert!(old.0 == new.0, "rows differ");
}

/// The corpus's CLOG2 files written by MPE (at least 20), or `None` (and a
/// line saying so) when `MPELOG_CORPUS` is not set.
fn corpus_clog2s() -> Option<Vec<PathBuf>> {
    let Some(root) = mpelog_conformance::corpus::root() else {
        eprintln!("skipped: MPELOG_CORPUS is not set");
        return None;
    };
    let dir = root.join("mpe");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "clog2"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "corpus CLOG2 files missing: {files:?}");
    Some(files)
}

#[test]
fn every_corpus_clog2_streams_the_sorted_rows() {
    let Some(files) = corpus_clog2s() else {
        return;
    };
    for path in &files {
        let mut t = Trace::open(path).unwrap();
        let Ok(Some((a, b))) = t.time_box() else {
            continue;
        };
        let mid = |f: f64| a + (b - a) * f;
        for opts in [
            Options::default(),
            Options::default().window(Some(mid(0.4)), Some(mid(0.6))),
        ] {
            let (old, new) = both(path, &opts);
            assert_eq!(old.1, new.1, "{}: legend", path.display());
            assert!(old.0 == new.0, "{}: rows differ, {opts:?}", path.display());
        }
    }
}

/// The first pass of a streamed read (`clog2_survey`: the pairing alone, on
/// one thread, no primitive kept) learns what the whole pairing into the
/// sorted path's sink learns: the legend (every field), the converter's maps,
/// the time box, the record order and the pairing's figures, or the same
/// error.
fn survey_agrees(path: &Path) {
    use slog2_format::convert::{clog2_into, clog2_survey};
    let bytes = std::fs::read(path).unwrap();
    let reader = || clog2_format::Clog2Reader::from_slice(&bytes).unwrap();
    let old = clog2_into(
        &mut reader(),
        mpelog::export::sorted::StartOrder::survey(),
        |_| {},
    );
    let new = clog2_survey(&mut reader(), &AtomicBool::new(false));
    let at = path.display();
    match (old, new) {
        (Ok((sorted, pairs)), Ok(Some(s))) => {
            assert_eq!(sorted.categories(), &s.categories[..], "{at}: legend");
            assert_eq!(sorted.maps(), &s.maps[..], "{at}: maps");
            let bits = |b: Option<(f64, f64)>| b.map(|(a, b)| (a.to_bits(), b.to_bits()));
            assert_eq!(bits(sorted.time_box()), bits(s.time_box), "{at}: time box");
            assert_eq!(sorted.in_time_order(), s.in_time_order, "{at}: order");
            assert_eq!(pairs, s.stats, "{at}: pairing figures");
        }
        (Err(a), Err(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}"), "{at}"),
        (a, b) => panic!("{at}: the sorted path gave {a:?}, the survey {b:?}"),
    }
}

#[test]
fn the_first_pass_learns_what_the_whole_pairing_does() {
    let dir = tempfile::tempdir().unwrap();
    survey_agrees(&long_open(dir.path(), 500));
    let synth = clog2_format::synth::Options::default;
    for opts in [
        synth().ranks(4).events(30_000),
        synth().ranks(7).events(20_000).seed(5).dense(true),
        synth().ranks(3).events(5_000).seed(9).block_size(1024),
        synth()
            .ranks(5)
            .events(20_000)
            .seed(3)
            .plant(clog2_format::synth::Plant {
                late_sender_ns: 25_000_000,
                barrier_skew_ns: 1_000_000,
                imbalance_ns: 3_000_000,
            }),
    ] {
        survey_agrees(&generated(dir.path(), opts));
    }
    // Only starts (nothing drawn: no legend, no time box), a final with
    // nothing open, an ID nothing declares.
    let path = dir.path().join("open.clog2");
    let mut w = Clog2Writer::new(
        std::io::Cursor::new(Vec::new()),
        PreambleInfo::mpe_default(2),
    )
    .unwrap();
    w.push(&Record::bare(0.5, 0, 0)).unwrap();
    w.push(&Record::bare(0.6, 1, 1)).unwrap();
    w.push(&Record::bare(0.7, 1, 9999)).unwrap();
    let (out, _) = w.finish(None).unwrap();
    std::fs::write(&path, out.into_inner()).unwrap();
    survey_agrees(&path);
}

#[test]
fn the_first_pass_agrees_on_every_corpus_clog2() {
    let Some(files) = corpus_clog2s() else {
        return;
    };
    for path in &files {
        survey_agrees(path);
    }
}

/// An opened CLOG2 trace keeps its first pass: a second read (another
/// window, another kind of read) reads the file once, not twice, and gives
/// what a freshly opened trace gives.
#[test]
fn a_trace_keeps_its_first_pass_for_the_next_read() {
    use std::sync::Mutex;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kept.clog2");
    let opts = clog2_format::synth::Options::default().events(20_000);
    std::fs::write(&path, clog2_format::synth::generate_vec(&opts).unwrap()).unwrap();
    let len = std::fs::metadata(&path).unwrap().len();
    let least = Arc::new(Mutex::new(u64::MAX));
    let seen = least.clone();
    let mut t = Trace::open(&path).unwrap();
    t.set_progress(Box::new(move |step| {
        if let mpelog::trace::Step::Read { at, total } = step {
            assert_eq!(total, 2 * len);
            let mut l = seen.lock().unwrap();
            *l = (*l).min(at);
        }
    }));
    let whole = t.stats(&Default::default()).unwrap();
    assert!(
        *least.lock().unwrap() < len,
        "the first read makes the first pass"
    );
    *least.lock().unwrap() = u64::MAX;
    let (a, b) = (whole.from, whole.to);
    let mid =
        mpelog::stats::Options::default().window(Some(a + (b - a) / 3.0), Some(b - (b - a) / 3.0));
    let again = t.stats(&mid).unwrap();
    assert!(
        *least.lock().unwrap() >= len,
        "the second read skips the first pass"
    );
    let fresh = Trace::open(&path).unwrap().stats(&mid).unwrap();
    assert_eq!(format!("{again:?}"), format!("{fresh:?}"));
    // A trace reopened from it (what t.batches() reads on) shares the pass.
    let mut r = t.reopen().unwrap();
    let seen = least.clone();
    *least.lock().unwrap() = u64::MAX;
    r.set_progress(Box::new(move |step| {
        if let mpelog::trace::Step::Read { at, .. } = step {
            let mut l = seen.lock().unwrap();
            *l = (*l).min(at);
        }
    }));
    r.stats(&mid).unwrap();
    assert!(
        *least.lock().unwrap() >= len,
        "a reopened trace skips the first pass"
    );
    // And t.batches()'s read (scan_until) takes the kept pass too.
    let (mut kept, mut new) = (Vec::new(), Vec::new());
    let stop = Arc::new(AtomicBool::new(false));
    t.scan_until(&Options::default(), &stop, &mut |_| {}, &mut |p| {
        kept.push(row(p))
    })
    .unwrap();
    Trace::open(&path)
        .unwrap()
        .scan_until(&Options::default(), &stop, &mut |_| {}, &mut |p| {
            new.push(row(p))
        })
        .unwrap();
    assert!(!kept.is_empty() && kept == new);
}
