//! The wait index (spec/waits.md, `mpelog::waits`): every wait as an
//! interval, per column seconds equal to `analyze --from --to`'s, the
//! critical path's segments equal to its profile, the bytes read back, and
//! damaged or stale files refused.

#[path = "common/analysis.rs"]
mod analysis_common;

use analysis_common::*;
use clog2_format::synth::{self, Plant};
use mpelog::analysis::{Options, Pattern, Report};
use mpelog::waits::{Error, Problem, Stale, WaitIndex};
use std::collections::BTreeMap;

/// A generated run with late senders, skewed barriers and imbalance.
fn planted() -> Vec<u8> {
    let opts = synth::Options::default()
        .ranks(4)
        .events(3000)
        .seed(7)
        .plant(Plant {
            late_sender_ns: 2_000_000,
            barrier_skew_ns: 500_000,
            imbalance_ns: 1_000_000,
        });
    synth::generate(std::io::Cursor::new(Vec::new()), &opts)
        .unwrap()
        .0
        .into_inner()
}

/// The solver loop of the generator (no plant): every kind of wait it makes.
fn solver() -> Vec<u8> {
    let opts = synth::Options::default().ranks(6).events(6000).seed(3);
    synth::generate(std::io::Cursor::new(Vec::new()), &opts)
        .unwrap()
        .0
        .into_inner()
}

fn index(bytes: &[u8]) -> (Report, WaitIndex) {
    let mut r = of_clog2(bytes, &Options::default().record(true));
    let ix = WaitIndex::from_report(&mut r).expect("recorded");
    (r, ix)
}

/// Per timeline, analyze's seconds of the top-level patterns (sub-patterns
/// are in their parents').
fn per_timeline(r: &Report) -> BTreeMap<i32, f64> {
    let mut out = BTreeMap::new();
    for p in r.patterns.iter().filter(|p| p.parent.is_none()) {
        for (&t, &s) in &p.per_timeline {
            *out.entry(t).or_insert(0.0) += s;
        }
    }
    out
}

/// Per timeline, the index's cells summed.
fn cells_per_timeline(ix: &WaitIndex, from: f64, to: f64, columns: u32) -> BTreeMap<i32, f64> {
    ix.cells(from, to, columns)
        .rows
        .iter()
        .map(|r| (r.timeline, r.cells.iter().map(|c| c.seconds).sum()))
        .collect()
}

#[track_caller]
fn agree(a: &BTreeMap<i32, f64>, b: &BTreeMap<i32, f64>, tol: f64, what: &str) {
    let keys: std::collections::BTreeSet<i32> = a.keys().chain(b.keys()).copied().collect();
    for k in keys {
        let (x, y) = (
            a.get(&k).copied().unwrap_or(0.0),
            b.get(&k).copied().unwrap_or(0.0),
        );
        assert!((x - y).abs() <= tol, "{what}: timeline {k}: {x} != {y}");
    }
}

/// Whole and zoomed windows, few and many columns (both ways of summing a
/// row): the index's seconds per timeline are `analyze --from --to`'s.
#[test]
fn cells_equal_the_windowed_analysis() {
    for bytes in [planted(), solver()] {
        let (whole, ix) = index(&bytes);
        assert!(ix.len() > 100, "{} waits", ix.len());
        let (t0, t1) = (whole.from, whole.to);
        let span = t1 - t0;
        for (a, b) in [
            (t0, t1),
            (t0 + 0.3 * span, t0 + 0.35 * span),
            (t0 + 0.5 * span, t0 + 0.5005 * span),
            (t0 - 1.0, t0 + 0.1 * span),
        ] {
            let r = of_clog2(&bytes, &Options::default().window(Some(a), Some(b)));
            let want = per_timeline(&r);
            for columns in [1, 7, 300, 2000] {
                let got = cells_per_timeline(&ix, a, b, columns);
                agree(&got, &want, 1e-9, &format!("[{a}, {b}) x {columns}"));
            }
            // Per pattern: the most specific patterns add up to the parents.
            let c = ix.cells(a, b, 50);
            for row in &c.rows {
                let of = c.of_timeline(row.timeline);
                let get = |p: Pattern| of.get(&p).copied().unwrap_or(0.0);
                let on = |p: Pattern| {
                    r.pattern(p)
                        .and_then(|x| x.per_timeline.get(&row.timeline).copied())
                        .unwrap_or(0.0)
                };
                let ls = get(Pattern::LateSender)
                    + get(Pattern::LswoDifferentSource)
                    + get(Pattern::LswoSameSource);
                assert!((ls - on(Pattern::LateSender)).abs() < 1e-9);
                assert!((get(Pattern::WaitAtBarrier) - on(Pattern::WaitAtBarrier)).abs() < 1e-9);
                assert_eq!(
                    get(Pattern::LateSenderWrongOrder),
                    0.0,
                    "never most specific"
                );
            }
        }
    }
}

/// Each column holds what the waits overlapping it hold: no second of a
/// wait lands in a column it does not touch.
#[test]
fn columns_hold_the_waits_that_touch_them() {
    let (r, ix) = index(&planted());
    let (a, b) = (r.from, r.from + 0.2 * (r.to - r.from));
    let n = 400u32;
    let w = (b - a) / f64::from(n);
    for row in ix.cells(a, b, n).rows {
        let waits = ix.waits(row.timeline);
        for c in &row.cells {
            let (x0, x1) = (a + f64::from(c.column) * w, a + f64::from(c.column + 1) * w);
            let want: f64 = waits
                .iter()
                .filter(|v| v.pattern == c.pattern)
                .map(|v| (v.end.min(x1) - v.start.max(x0)).max(0.0))
                .sum();
            assert!((c.seconds - want).abs() < 1e-12, "column {}", c.column);
            assert!(c.seconds <= w * (1.0 + 1e-9), "at most the column");
        }
    }
}

/// The waits of the planted run are where the plant puts them: the late
/// receive waits from its enter to the send's enter, the cause is that enter
/// on the sender, barrier waits end at the last enter.
#[test]
fn waits_are_intervals_with_their_cause() {
    let (_, ix) = index(&planted());
    let ls: Vec<_> = ix
        .timelines()
        .into_iter()
        .flat_map(|t| ix.waits(t).to_vec())
        .filter(|w| w.pattern == Pattern::LateSender)
        .collect();
    assert!(!ls.is_empty());
    for w in &ls {
        assert_eq!(w.timeline, 1, "the planted receiver");
        assert_eq!(w.partner, Some(0));
        assert!((w.seconds() - 2e-3).abs() < 1e-9, "{}", w.seconds());
        assert!((w.end - w.cause).abs() < 1e-12, "ends at the send's enter");
        assert_eq!(ix.call_name(w.call), Some("MPI_Recv"));
    }
    for t in ix.timelines() {
        for w in ix
            .waits(t)
            .iter()
            .filter(|w| w.pattern == Pattern::WaitAtBarrier)
        {
            assert_eq!(w.partner, Some(3), "the last to enter");
            assert!(w.end <= w.cause + 1e-12 && w.cause - w.end < 1e-9);
        }
    }
}

/// The critical path's segments add up to its profile, whole and per
/// window, and chain through time.
#[test]
fn critical_path_segments_match_the_profile() {
    for bytes in [planted(), solver()] {
        let (r, ix) = index(&bytes);
        let path = ix.path();
        assert!(!path.is_empty());
        for w in path.windows(2) {
            assert!(w[0].end <= w[1].start + 1e-12);
        }
        let span = r.to - r.from;
        for (a, b) in [
            (r.from, r.to),
            (r.from + 0.25 * span, r.from + 0.5 * span),
            (r.from + 0.6 * span, r.from + 0.601 * span),
        ] {
            let rw = of_clog2(&bytes, &Options::default().window(Some(a), Some(b)));
            let p = ix.critical_path(a, b);
            let mut per: BTreeMap<i32, f64> = BTreeMap::new();
            for s in &p.segments {
                assert!(s.start >= a && s.end <= b);
                *per.entry(s.timeline).or_insert(0.0) += s.end - s.start;
            }
            let total: f64 = per.values().sum();
            assert!(
                (total - rw.critical_path.seconds).abs() < 1e-9,
                "[{a}, {b}): {total} != {}",
                rw.critical_path.seconds
            );
            agree(
                &per,
                &rw.critical_path.per_timeline,
                1e-9,
                "path per timeline",
            );
            for j in &p.jumps {
                assert!(j.from != j.to && j.time >= a && j.time < b);
            }
        }
    }
}

/// The worst instances of a window are analyze's worst, in its order.
#[test]
fn instances_are_the_worst_overlapping_the_window() {
    let (r0, ix) = index(&solver());
    let (a, b) = (
        r0.from + 0.1 * (r0.to - r0.from),
        r0.from + 0.3 * (r0.to - r0.from),
    );
    let r = of_clog2(
        &bytes_solver(),
        &Options::default().window(Some(a), Some(b)).instances(1000),
    );
    let mut all: Vec<f64> = r
        .patterns
        .iter()
        .filter(|p| {
            !matches!(
                p.id,
                "mpi_latesender_wo" | "mpi_lswo_different" | "mpi_lswo_same"
            )
        })
        .flat_map(|p| p.instances.iter().map(|i| i.seconds))
        .collect();
    all.sort_by(|x, y| y.total_cmp(x));
    let got: Vec<f64> = ix.instances(a, b, 5).iter().map(|x| x.0).collect();
    assert_eq!(got.len(), 5);
    for (g, w) in got.iter().zip(&all) {
        assert!((g - w).abs() < 1e-12, "{g} != {w}");
    }
    for (s, w) in ix.instances(a, b, 50) {
        assert!(w.end > a && w.start < b && s <= w.seconds() + 1e-15);
    }
}

fn bytes_solver() -> Vec<u8> {
    solver()
}

/// Written, read back equal; any truncation or flipped byte is an error with
/// an offset inside the file, never a panic.
#[test]
fn bytes_round_trip_and_damage_is_refused() {
    let (_, ix) = index(&planted());
    let b = ix.to_bytes();
    assert_eq!(WaitIndex::from_bytes(&b).unwrap(), ix);
    for n in (0..b.len()).step_by(97) {
        let e = WaitIndex::from_bytes(&b[..n]).unwrap_err();
        assert!(e.offset().is_some_and(|o| o <= n as u64), "{e}");
    }
    for k in (0..b.len()).step_by(41) {
        let mut d = b.clone();
        d[k] ^= 0x5a;
        let e = WaitIndex::from_bytes(&d).unwrap_err();
        assert!(e.offset().is_some_and(|o| o <= b.len() as u64));
    }
    // A directory that lies (checksum recomputed) is found by its offset.
    let mut d = b.clone();
    let at = 80 + ix.timelines().len() * 8 + calls_len(&b) + 8; // first block's `reach`
    d[at] ^= 1;
    recrc(&mut d);
    match WaitIndex::from_bytes(&d) {
        Err(Error::Format {
            offset,
            problem: Problem::Directory,
        }) => assert_eq!(offset, at as u64),
        other => panic!("{other:?}"),
    }
}

/// A reserved byte that is not 0 (the pad after a wait's pattern), the
/// checksum made right: refused at its offset, so that what reads writes
/// back to the same bytes (found by the fuzz target).
#[test]
fn reserved_bytes_must_be_zero() {
    let (_, ix) = index(&planted());
    let mut d = ix.to_bytes();
    let lane0 = ix.waits(ix.timelines()[0]).len();
    let blocks = lane0.div_ceil(64);
    let at = 80 + calls_len(&d) + ix.timelines().len() * 8 + blocks * (24 + 8 * 14) + 33;
    d[at] = 255;
    recrc(&mut d);
    match WaitIndex::from_bytes(&d) {
        Err(Error::Format {
            offset,
            problem: Problem::Layout,
        }) => assert_eq!(offset, at as u64),
        other => panic!("{other:?}"),
    }
}

/// Makes the index's trailing checksum right again after a planted change.
fn recrc(d: &mut [u8]) {
    let body = d.len() - 4;
    let mut crc = flate2::Crc::new();
    crc.update(&d[..body]);
    d[body..].copy_from_slice(&crc.sum().to_le_bytes());
}

/// The bytes of the call table (header's count of calls, each 6 + name).
fn calls_len(b: &[u8]) -> usize {
    let n = u32::from_le_bytes(b[60..64].try_into().unwrap());
    let mut at = 80;
    for _ in 0..n {
        let len = u16::from_le_bytes(b[at + 4..at + 6].try_into().unwrap()) as usize;
        at += 6 + len;
    }
    at - 80
}

/// The index beside a trace is used only while the trace is unchanged.
#[test]
fn stale_index_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = tmp.path().join("run.clog2");
    let bytes = planted();
    std::fs::write(&trace, &bytes).unwrap();
    let (_, ix) = index(&bytes);
    let ix = ix.bound(mpelog::waits::Binding::of(&trace).unwrap());
    let path = mpelog::waits::index_path(&trace);
    ix.write_file(&path, &[&trace]).unwrap();
    assert_eq!(WaitIndex::open_fresh(&path, &trace).unwrap(), ix);
    // Never over the trace.
    assert!(matches!(
        ix.write_file(&trace, &[&trace]),
        Err(Error::Output(_))
    ));
    // Same size, one byte changed at the end, mtime put back: the CRC tells.
    let meta = std::fs::metadata(&trace).unwrap();
    let mut changed = bytes.clone();
    *changed.last_mut().unwrap() ^= 1;
    std::fs::write(&trace, &changed).unwrap();
    let f = std::fs::File::options().write(true).open(&trace).unwrap();
    f.set_modified(meta.modified().unwrap()).unwrap();
    drop(f);
    assert!(matches!(
        WaitIndex::open_fresh(&path, &trace),
        Err(Error::Stale(Stale::Bytes))
    ));
    std::fs::write(&trace, &bytes).unwrap();
    let f = std::fs::File::options().write(true).open(&trace).unwrap();
    f.set_modified(std::time::SystemTime::UNIX_EPOCH).unwrap();
    drop(f);
    assert!(matches!(
        WaitIndex::open_fresh(&path, &trace),
        Err(Error::Stale(Stale::Mtime))
    ));
    // A stale index is told from its header: the rest is not read (here it
    // is cut short: a full read finds its checksum wrong).
    let full = std::fs::read(&path).unwrap();
    std::fs::write(&path, &full[..100]).unwrap();
    assert!(matches!(
        WaitIndex::open_fresh(&path, &trace),
        Err(Error::Stale(Stale::Mtime))
    ));
    assert!(matches!(
        WaitIndex::read_file(&path),
        Err(Error::Format { offset: 96, .. })
    ));
}

/// Overlapping waits (which MPE's traces do not make, but a reader must not
/// rely on it): both ways of summing a row give the brute-force sums, in
/// blocks of 4 so that many blocks reach past a column boundary.
#[test]
fn overlapping_waits_are_summed_exactly() {
    use mpelog::waits::Wait;
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut rnd = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut waits = Vec::new();
    for i in 0..600 {
        let start = rnd() * 100.0;
        let len = if i % 10 == 0 {
            rnd() * 40.0
        } else {
            rnd() * 2.0
        } + 1e-6;
        waits.push(Wait {
            timeline: (i % 3) as i32,
            start,
            end: start + len,
            pattern: Pattern::ALL[i % Pattern::ALL.len()],
            partner: Some(9),
            cause: start + len,
            call: 1,
        });
    }
    let ix = WaitIndex::new(waits.clone(), vec![], vec![], (0.0, 140.0), 0, 4);
    for (a, b) in [(0.0, 140.0), (10.0, 30.0), (55.5, 56.0)] {
        for columns in [3, 50, 1000] {
            let w = (b - a) / f64::from(columns);
            let c = ix.cells(a, b, columns);
            let mut got: BTreeMap<(i32, u32, Pattern), f64> = BTreeMap::new();
            for r in &c.rows {
                for cell in &r.cells {
                    got.insert((r.timeline, cell.column, cell.pattern), cell.seconds);
                }
            }
            for v in &waits {
                for col in 0..columns {
                    let (x0, x1) = (a + f64::from(col) * w, a + f64::from(col + 1) * w);
                    let want = (v.end.min(x1) - v.start.max(x0)).max(0.0);
                    if want > 0.0 {
                        assert!(got.contains_key(&(v.timeline, col, v.pattern)));
                    }
                }
            }
            for (&(t, col, p), &s) in &got {
                let (x0, x1) = (a + f64::from(col) * w, a + f64::from(col + 1) * w);
                let want: f64 = waits
                    .iter()
                    .filter(|v| v.timeline == t && v.pattern == p)
                    .map(|v| (v.end.min(x1) - v.start.max(x0)).max(0.0))
                    .sum();
                assert!(
                    (s - want).abs() < 1e-9,
                    "[{a}, {b}) x {columns}: {s} != {want}"
                );
            }
        }
    }
}

/// On the corpus: every pattern's per-timeline seconds, sub-patterns
/// included (Late Sender, wrong order in p2p_n4), equal the index's most
/// specific cells summed as spec/waits.md §2 says.
#[test]
fn corpus_patterns_per_timeline() {
    let Some(dir) = mpelog_conformance::corpus::root() else {
        eprintln!("skipped: MPELOG_CORPUS is not set");
        return;
    };
    for f in [
        "mpe/p2p_n4.clog2",
        "mpe/colls_n4.clog2",
        "mpe/p2p_n16.clog2",
    ] {
        let p = dir.join(f);
        assert!(p.is_file(), "corpus file missing: {}", p.display());
        let bytes = std::fs::read(p).unwrap();
        let (r, ix) = index(&bytes);
        let c = ix.cells(r.from, r.to, 1);
        for pr in &r.patterns {
            let pat = *Pattern::ALL.iter().find(|p| p.id() == pr.id).unwrap();
            let subs: Vec<Pattern> = Pattern::ALL
                .iter()
                .copied()
                .filter(|q| {
                    let mut x = Some(*q);
                    while let Some(y) = x {
                        if y == pat {
                            return true;
                        }
                        x = y.parent();
                    }
                    false
                })
                .collect();
            for (&t, &s) in &pr.per_timeline {
                let of = c.of_timeline(t);
                let got: f64 = subs.iter().filter_map(|q| of.get(q)).sum();
                assert!(
                    (got - s).abs() < 1e-9,
                    "{f} {} on {t}: {got} != {s}",
                    pr.name
                );
            }
        }
    }
}

/// Waits that tie in (start, end) on a timeline, the rest of them apart, in
/// the order found and reversed: the same bytes, whatever the order the
/// analysis found them in (the index sorts by every field). More than 64 KiB
/// of them, so that the writer's checksum runs over several pieces; read
/// back equal, from memory and from a file.
#[test]
fn bytes_do_not_depend_on_the_order_found() {
    use mpelog::waits::Wait;
    let mut waits = Vec::new();
    for k in 0..6000u32 {
        let start = f64::from(k / 4) * 1e-3;
        waits.push(Wait {
            timeline: (k % 3) as i32,
            start,
            end: start + 5e-4,
            pattern: Pattern::ALL[(k as usize / 3) % Pattern::ALL.len()],
            partner: (k % 5 != 0).then_some((k % 7) as i32),
            cause: start - 1e-4 * f64::from(k % 2),
            call: (k % 4) as i32,
        });
    }
    let found = WaitIndex::new(waits.clone(), vec![], vec![], (0.0, 2.0), 0, 64);
    waits.reverse();
    let reversed = WaitIndex::new(waits, vec![], vec![], (0.0, 2.0), 0, 64);
    let b = found.to_bytes();
    assert!(b.len() > 3 << 16, "{} bytes", b.len());
    assert!(b == reversed.to_bytes(), "the bytes follow the order found");
    assert_eq!(WaitIndex::from_bytes(&b).unwrap(), found);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.waits");
    found.write_file(&path, &[]).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b);
    assert_eq!(WaitIndex::read_file(&path).unwrap(), found);
}

/// Rank 2 receives from rank 1 first, then from rank 0, whose message was
/// sent earlier: its first wait is relabelled Late Sender, wrong order, when
/// the second receive is matched, after more waits were found in between.
fn wrong_order() -> Vec<u8> {
    const MS: f64 = 1e-3;
    let mut t = Trace::new(3);
    t.state(0, "MPI_Send", 1.0 * MS, 1.2 * MS)
        .message(0, 1.1 * MS, 2, 11.2 * MS, 1)
        .state(1, "MPI_Send", 10.0 * MS, 10.2 * MS)
        .message(1, 10.1 * MS, 2, 10.4 * MS, 1)
        .state(2, "MPI_Recv", 2.0 * MS, 10.5 * MS)
        .collective(
            "MPI_Barrier",
            &[10.6 * MS, 10.7 * MS, 10.8 * MS],
            &[10.9 * MS; 3],
        )
        .state(2, "MPI_Recv", 11.0 * MS, 11.3 * MS);
    t.bytes()
}

#[test]
fn an_index_written_from_spilled_waits_is_the_index_built_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let wait_bytes = std::mem::size_of::<mpelog::waits::Wait>();
    for (name, bytes) in [
        ("planted", planted()),
        ("solver", solver()),
        ("wrong order", wrong_order()),
    ] {
        let (_, want) = index(&bytes);
        assert!(want.len() > 2, "{name}: {} waits", want.len());
        for held in [1, 2, 7, 1000] {
            let opts = Options::default()
                .record(true)
                .record_memory(held * wait_bytes);
            let mut r = of_clog2(&bytes, &opts);
            let rec = r.recorded.as_ref().unwrap();
            let spilled = rec.spilled.as_ref().map_or(0, |s| s.len());
            assert_eq!(
                spilled > 0,
                held < want.len(),
                "{name}, {held} held: {spilled} spilled"
            );
            let path = dir.path().join(format!("{name}-{held}.waits"));
            let written =
                mpelog::waits::write_recorded(r.recorded.clone().unwrap(), None, &path, &[])
                    .unwrap();
            assert_eq!(
                std::fs::read(&path).unwrap(),
                want.to_bytes(),
                "{name}, {held} held"
            );
            assert_eq!(
                (written.waits as usize, written.timelines, written.segments),
                (want.len(), want.timelines().len(), want.path().len())
            );
            // Read back into memory, the same index.
            assert_eq!(
                WaitIndex::from_report(&mut r).unwrap(),
                want,
                "{name}, {held} held"
            );
        }
    }
    // The relabel reached the wait spilled before it.
    let (_, ix) = index(&wrong_order());
    assert!(ix
        .waits(2)
        .iter()
        .any(|w| w.pattern == Pattern::LswoDifferentSource));
}
