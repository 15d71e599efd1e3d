//! A read ends once its flag is set, reading no further. `Trace::scan_until`:
//! while a format without a tree is read and sorted (the legend never comes),
//! and between the pieces of a tree; until then it gives what `scan` gives.
//! `Trace::set_stop`: a two-pass read in its first pass, a one-pass read, the
//! conversion of a first window, a tree's next node; a fresh flag then reads
//! as if nothing had been stopped.

mod common;

use mpelog::Trace;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

fn generated(dir: &std::path::Path) -> std::path::PathBuf {
    generated_with(dir, 20_000)
}

/// The generated trace in `dir` and its SLOG-2 conversion.
fn generated_pair(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let clog2 = generated(dir);
    let slog2 = dir.join("g.slog2");
    Trace::open(&clog2).unwrap().write_slog2(&slog2).unwrap();
    (clog2, slog2)
}

/// A generated CLOG2 trace of `events` events in `dir`.
fn generated_with(dir: &std::path::Path, events: u64) -> std::path::PathBuf {
    let path = dir.join("g.clog2");
    let opts = clog2_format::synth::Options::default().events(events);
    std::fs::write(&path, clog2_format::synth::generate_vec(&opts).unwrap()).unwrap();
    path
}

#[test]
fn a_stop_before_the_sort_ends_it_before_the_legend() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Trace::open(generated(dir.path())).unwrap();
    let stop = Arc::new(AtomicBool::new(true));
    let (mut legends, mut pieces) = (0, 0);
    let e = t
        .scan_until(
            &Default::default(),
            &stop,
            &mut |_| legends += 1,
            &mut |_| pieces += 1,
        )
        .unwrap_err();
    assert_eq!(e.kind(), "stopped");
    assert!(matches!(e, mpelog::trace::Error::Stopped { .. }));
    // The conversion stopped at its first primitive: never sorted, no legend.
    assert_eq!((legends, pieces), (0, 0));
}

#[test]
fn a_stop_midway_ends_a_tree_read_and_unset_reads_it_all() {
    let dir = tempfile::tempdir().unwrap();
    let (clog2, slog2) = generated_pair(dir.path());
    for path in [&clog2, &slog2] {
        let mut t = Trace::open(path).unwrap();
        let mut all = Vec::new();
        let n = t
            .scan(&Default::default(), &mut |_| {}, &mut |p| all.push(p.start))
            .unwrap();
        // Unset, the flag changes nothing.
        let stop = Arc::new(AtomicBool::new(false));
        let mut same = Vec::new();
        let m = t
            .scan_until(&Default::default(), &stop, &mut |_| {}, &mut |p| {
                same.push(p.start)
            })
            .unwrap();
        assert_eq!((m, &same), (n, &all), "{}", path.display());
        // Set after 10 pieces: no 11th.
        let mut seen = 0;
        let e = t
            .scan_until(&Default::default(), &stop.clone(), &mut |_| {}, &mut |_| {
                seen += 1;
                if seen == 10 {
                    stop.store(true, Ordering::Relaxed);
                }
            })
            .unwrap_err();
        assert_eq!((e.kind(), seen), ("stopped", 10), "{}", path.display());
    }
}

/// `mpelog stats --json`'s text of `t`'s statistics.
fn stats_text(t: &mut Trace) -> mpelog::trace::Result<String> {
    Ok(mpelog::json_text::to_string(&t.stats(&Default::default())?))
}

/// A flag not set, given to `t`.
fn fresh(t: &mut Trace) -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    t.set_stop(flag.clone());
    flag
}

/// What [`stop_at_a_quarter`] saw: the offset read when it set the flag,
/// and the furthest read at all.
#[derive(Default)]
struct Seen {
    set_at: std::sync::atomic::AtomicU64,
    furthest: std::sync::atomic::AtomicU64,
}

impl Seen {
    /// The bytes read after the flag was set.
    fn after(&self) -> u64 {
        let set_at = self.set_at.load(Ordering::Relaxed);
        assert!(set_at > 0, "the flag was never set");
        self.furthest.load(Ordering::Relaxed) - set_at
    }

    fn clear(&self) {
        self.set_at.store(0, Ordering::Relaxed);
        self.furthest.store(0, Ordering::Relaxed);
    }
}

/// A progress that sets `flag` once a quarter of the input is read, and
/// tells `seen` what it saw.
fn a_quarter_in(
    flag: Arc<AtomicBool>,
    seen: Arc<Seen>,
) -> impl FnMut(mpelog::trace::Step) + Send + 'static {
    move |step| {
        if let mpelog::trace::Step::Read { at, total } = step {
            seen.furthest.fetch_max(at, Ordering::Relaxed);
            if at > total / 4 && !flag.swap(true, Ordering::Relaxed) {
                seen.set_at.store(at, Ordering::Relaxed);
            }
        }
    }
}

/// A flag given to `t` that its read's own progress sets a quarter of the
/// way in, and what the progress saw.
fn stop_at_a_quarter(t: &mut Trace) -> (Arc<AtomicBool>, Arc<Seen>) {
    let flag = fresh(t);
    let seen = Arc::new(Seen::default());
    t.set_progress(Box::new(a_quarter_in(flag.clone(), seen.clone())));
    (flag, seen)
}

/// `convert` of a generated CLOG2 trace to `target` in `dir`, stopped a
/// quarter of the way in: it reads little further and leaves nothing but
/// the input. Gives the input and the output's path.
fn convert_stopped_at_a_quarter(
    dir: &std::path::Path,
    target: mpelog::trace::Format,
    name: &str,
) -> (std::path::PathBuf, std::path::PathBuf) {
    use mpelog::{convert::convert, output::Output};
    let clog2 = generated_with(dir, 250_000);
    let len = std::fs::metadata(&clog2).unwrap().len();
    let path = dir.join(name);
    let flag = Arc::new(AtomicBool::new(false));
    let seen = Arc::new(Seen::default());
    let mut progress = a_quarter_in(flag.clone(), seen.clone());
    let out = Output::create(&path, &[&clog2], false).unwrap();
    let opts = mpelog::convert::Options::default().stop(flag);
    let e = convert(&clog2, target, &out, &opts, &mut progress).unwrap_err();
    assert_eq!(e.kind(), "stopped", "{e}");
    assert!(
        seen.after() < len / 8,
        "{} of {len} bytes read after the stop",
        seen.after()
    );
    drop(out);
    // Nothing but the input is left: no output, no temporary file.
    assert_eq!(std::fs::read_dir(dir).unwrap().count(), 1);
    (clog2, path)
}

#[test]
fn set_stop_ends_a_one_pass_read_or_a_conversion_midway_and_a_fresh_flag_reads_it_all() {
    let dir = tempfile::tempdir().unwrap();
    // Large enough for the first pass of the statistics' two, which looks at
    // the flag every 65,536 records (about 2.6 MB), to stop before its end.
    let clog2 = generated_with(dir.path(), 250_000);
    let len = std::fs::metadata(&clog2).unwrap().len();
    let want_stats = stats_text(&mut Trace::open(&clog2).unwrap()).unwrap();
    let want_analysis = mpelog::json_text::to_string(
        &Trace::open(&clog2)
            .unwrap()
            .analyze(&Default::default())
            .unwrap(),
    );
    let mut t = Trace::open(&clog2).unwrap();
    let (flag, seen) = stop_at_a_quarter(&mut t);
    // Statistics: the two-pass read stops in its first pass (the flag is
    // set halfway through it), not at the start of the second: within the
    // 2.6 MB it reads between two looks at the flag.
    let e = t.stats(&Default::default()).unwrap_err();
    assert!(matches!(e, mpelog::trace::Error::Stopped { .. }), "{e}");
    assert!(
        seen.after() < len * 2 / 5,
        "{} of {len} bytes read after the stop",
        seen.after()
    );
    // A fresh flag: the same statistics as a trace never stopped.
    fresh(&mut t);
    assert_eq!(stats_text(&mut t).unwrap(), want_stats);
    // The analysis (paired and sorted in one pass) stops the same way.
    flag.store(false, Ordering::Relaxed);
    seen.clear();
    t.set_stop(flag.clone());
    let e = t.analyze(&Default::default()).unwrap_err();
    assert_eq!(e.kind(), "stopped", "{e}");
    assert!(
        seen.after() < len / 8,
        "{} of {len} bytes read after the stop",
        seen.after()
    );
    fresh(&mut t);
    let again = mpelog::json_text::to_string(&t.analyze(&Default::default()).unwrap());
    assert_eq!(again, want_analysis);
    // A CLOG2 trace's first window converts it: stopped midway, nothing is
    // kept.
    let mut c = Trace::open(&clog2).unwrap();
    let (_, seen) = stop_at_a_quarter(&mut c);
    assert_eq!(c.window(None, None).unwrap_err().kind(), "stopped");
    assert!(!c.is_converted());
    assert!(
        seen.after() < len / 8,
        "{} of {len} bytes read after the stop",
        seen.after()
    );
    fresh(&mut c);
    let got = c.window(None, None).unwrap().drawables.len();
    let want = Trace::open(&clog2)
        .unwrap()
        .window(None, None)
        .unwrap()
        .drawables
        .len();
    assert_eq!(got, want);
    assert!(got > 0);
}

#[test]
fn set_stop_ends_a_tree_read_at_its_next_node() {
    let dir = tempfile::tempdir().unwrap();
    // Small leaves: more than one slice of 64 leaves (what an export reads
    // before it hands out their pieces).
    let slog2 = dir.path().join("g.slog2");
    std::fs::write(&slog2, common::generated_slog2(1, 20_000, 2048)).unwrap();
    let mut t = Trace::open(&slog2).unwrap();
    let all = t
        .scan(&Default::default(), &mut |_| {}, &mut |_| {})
        .unwrap();
    // Set after the 10th piece: the pieces of the leaf in hand still come,
    // the next leaf is never read.
    let flag = fresh(&mut t);
    let mut seen = 0;
    let e = t
        .scan(&Default::default(), &mut |_| {}, &mut |_| {
            seen += 1;
            if seen == 10 {
                flag.store(true, Ordering::Relaxed);
            }
        })
        .unwrap_err();
    assert_eq!(e.kind(), "stopped", "{e}");
    assert!(10 <= seen && seen < all, "{seen} of {all}");
    // Every query of the tree stops while the flag is set, and reads as
    // before once another is given.
    let want_stats = stats_text(&mut Trace::open(&slog2).unwrap()).unwrap();
    assert_eq!(stats_text(&mut t).unwrap_err().kind(), "stopped");
    assert_eq!(t.window(None, None).unwrap_err().kind(), "stopped");
    fresh(&mut t);
    assert_eq!(stats_text(&mut t).unwrap(), want_stats);
    assert_eq!(
        t.scan(&Default::default(), &mut |_| {}, &mut |_| {})
            .unwrap(),
        all
    );
}

#[test]
fn set_stop_ends_a_check_and_a_fresh_flag_checks_it_all() {
    let dir = tempfile::tempdir().unwrap();
    let (clog2, slog2) = generated_pair(dir.path());
    for path in [&clog2, &slog2] {
        let mut t = Trace::open(path).unwrap();
        t.set_stop(Arc::new(AtomicBool::new(true)));
        let e = t.check(&Default::default()).unwrap_err();
        assert_eq!(e.kind(), "stopped", "{}: {e}", path.display());
        fresh(&mut t);
        let r = t.check(&Default::default()).unwrap();
        assert!(r.passes(), "{}: {:?}", path.display(), r.rule_ids());
        // A flag of the check's own wins over the trace's.
        let own =
            mpelog_conformance::Options::default().stop(Some(Arc::new(AtomicBool::new(true))));
        assert_eq!(t.check(&own).unwrap_err().kind(), "stopped");
    }
}

#[test]
fn set_stop_ends_an_annotations_reads_and_a_fresh_flag_reads_it_all() {
    let dir = tempfile::tempdir().unwrap();
    let clog2 = generated(dir.path());
    let idx = format!("{}.idx", clog2.display());
    assert!(
        common::mpelog(&["annotate", clog2.to_str().unwrap(), "-o", &idx])
            .status
            .success()
    );
    let want = stats_text(&mut Trace::open(&idx).unwrap()).unwrap();
    let mut t = Trace::open(&idx).unwrap();
    assert_eq!(t.format().name(), "annotation");
    t.set_stop(Arc::new(AtomicBool::new(true)));
    let answers = [
        stats_text(&mut t).map(drop),
        t.window(None, None).map(drop),
        t.analyze(&Default::default()).map(drop),
    ];
    for a in answers {
        assert_eq!(a.unwrap_err().kind(), "stopped");
    }
    fresh(&mut t);
    assert_eq!(stats_text(&mut t).unwrap(), want);
    assert!(!t.window(None, None).unwrap().drawables.is_empty());
}

#[test]
fn a_stopped_conversion_reads_no_further_and_leaves_no_output() {
    use mpelog::{convert::convert, output::Output, trace::Format};
    let dir = tempfile::tempdir().unwrap();
    let (clog2, path) = convert_stopped_at_a_quarter(dir.path(), Format::Slog2, "g.slog2");
    // Not set, the flag changes nothing.
    let out = Output::create(&path, &[&clog2], false).unwrap();
    let opts = mpelog::convert::Options::default().stop(Arc::new(AtomicBool::new(false)));
    convert(&clog2, Format::Slog2, &out, &opts, &mut |_| {}).unwrap();
    out.commit().unwrap();
    assert!(!Trace::open(&path)
        .unwrap()
        .window(None, None)
        .unwrap()
        .drawables
        .is_empty());
}

/// A progress that sets `flag` at the first count of events it is told, and
/// counts those it is told.
fn stop_at_the_first_count(
    flag: Arc<AtomicBool>,
    counts: Arc<std::sync::atomic::AtomicU64>,
) -> impl FnMut(mpelog::trace::Step) + Send + 'static {
    move |step| {
        if let mpelog::trace::Step::Events { .. } = step {
            counts.fetch_add(1, Ordering::Relaxed);
            flag.store(true, Ordering::Relaxed);
        }
    }
}

#[test]
fn an_otf2_archives_conversion_stops_at_its_next_drawable() {
    if !common::have_otf2() {
        return;
    }
    use mpelog::{convert::convert, output::Output, trace::Format};
    let dir = tempfile::tempdir().unwrap();
    // Events are counted every 65,536: this archive is told at least 4 times.
    let archive = common::python_archive(dir.path(), "archive", 7, 300_000).join("traces.otf2");
    let counts = Arc::new(std::sync::atomic::AtomicU64::new(0));
    // Unstopped, the conversion of its first window is told each count.
    let mut t = Trace::open(&archive).unwrap();
    let flag = Arc::new(AtomicBool::new(false));
    let c = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let told = stop_at_the_first_count(Arc::new(AtomicBool::new(false)), c.clone());
    t.set_progress(Box::new(told));
    let want = t.window(None, None).unwrap().drawables.len();
    let all: u64 = c.load(Ordering::Relaxed);
    assert!(all >= 4, "told {all} counts");
    // Stopped at the first count, it makes no further drawable: no count
    // after the first.
    let mut t = Trace::open(&archive).unwrap();
    t.set_stop(flag.clone());
    t.set_progress(Box::new(stop_at_the_first_count(flag, counts.clone())));
    assert_eq!(t.window(None, None).unwrap_err().kind(), "stopped");
    assert_eq!(counts.load(Ordering::Relaxed), 1);
    assert!(!t.is_converted());
    fresh(&mut t);
    assert_eq!(t.window(None, None).unwrap().drawables.len(), want);
    // `convert` the same way, and it leaves no output.
    let path = dir.path().join("a.slog2");
    let out = Output::create(&path, &[&archive], false).unwrap();
    let flag = Arc::new(AtomicBool::new(false));
    let counts = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let opts = mpelog::convert::Options::default().stop(flag.clone());
    let mut progress = stop_at_the_first_count(flag, counts.clone());
    let e = convert(&archive, Format::Slog2, &out, &opts, &mut progress).unwrap_err();
    assert_eq!(e.kind(), "stopped", "{e}");
    assert_eq!(counts.load(Ordering::Relaxed), 1);
    drop(out);
    assert!(!path.exists());
}

#[test]
fn a_stopped_rewrite_reads_no_further_and_leaves_no_output() {
    let dir = tempfile::tempdir().unwrap();
    convert_stopped_at_a_quarter(dir.path(), mpelog::trace::Format::Clog2, "again.clog2");
}

#[test]
fn a_scan_without_a_tree_stops_at_the_traces_flag_too() {
    let dir = tempfile::tempdir().unwrap();
    let clog2 = generated(dir.path());
    let mut t = Trace::open(&clog2).unwrap();
    // The trace's flag, set before the first pass: the legend is never
    // learnt, and the scan (whose own flag is not set) hands out nothing.
    fresh(&mut t).store(true, Ordering::Relaxed);
    assert_eq!(t.scan_legend().unwrap_err().kind(), "stopped");
    let mut pieces = 0;
    let own = Arc::new(AtomicBool::new(false));
    let e = t
        .scan_until(&Default::default(), &own, &mut |_| {}, &mut |_| pieces += 1)
        .unwrap_err();
    assert_eq!((e.kind(), pieces), ("stopped", 0));
    // A fresh flag: the legend and every piece.
    fresh(&mut t);
    assert!(!t.scan_legend().unwrap().is_empty());
    let n = t
        .scan_until(&Default::default(), &own, &mut |_| {}, &mut |_| {})
        .unwrap();
    assert!(n > 0);
}

#[test]
fn set_stop_ends_write_slog2_midway_and_leaves_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let clog2 = generated_with(dir.path(), 250_000);
    let len = std::fs::metadata(&clog2).unwrap().len();
    let out = dir.path().join("g.slog2");
    let mut t = Trace::open(&clog2).unwrap();
    let (_, seen) = stop_at_a_quarter(&mut t);
    assert_eq!(t.write_slog2(&out).unwrap_err().kind(), "stopped");
    assert!(
        seen.after() < len / 8,
        "{} of {len} bytes read after the stop",
        seen.after()
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    fresh(&mut t);
    t.write_slog2(&out).unwrap();
    assert!(!Trace::open(&out)
        .unwrap()
        .window(None, None)
        .unwrap()
        .drawables
        .is_empty());
}

#[test]
fn a_sorted_scan_stops_at_the_callers_flag_or_the_traces() {
    // An OTF2 archive is read whole and sorted before its first piece.
    let tiny = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("otf2-format/tests/data/tiny");
    for traces in [false, true] {
        let mut t = Trace::open(&tiny).unwrap();
        let own = Arc::new(AtomicBool::new(!traces));
        fresh(&mut t).store(traces, Ordering::Relaxed);
        let (mut legends, mut pieces) = (0, 0);
        let e = t
            .scan_until(
                &Default::default(),
                &own,
                &mut |_| legends += 1,
                &mut |_| pieces += 1,
            )
            .unwrap_err();
        assert_eq!(
            (e.kind(), legends, pieces),
            ("stopped", 0, 0),
            "the trace's flag: {traces}"
        );
        // Neither set: every piece.
        fresh(&mut t);
        let n = t
            .scan_until(
                &Default::default(),
                &Arc::default(),
                &mut |_| {},
                &mut |_| {},
            )
            .unwrap();
        assert!(n > 0);
    }
}
