//! `Trace::scan_until` ends a read once its flag is set, reading no further:
//! while a format without a tree is read and sorted (the legend never comes),
//! and between the pieces of a tree; until then it gives what `scan` gives.

use mpelog::Trace;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

fn generated(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("g.clog2");
    let opts = clog2_format::synth::Options::default().events(20_000);
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
    let clog2 = generated(dir.path());
    let slog2 = dir.path().join("g.slog2");
    Trace::open(&clog2).unwrap().write_slog2(&slog2).unwrap();
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
