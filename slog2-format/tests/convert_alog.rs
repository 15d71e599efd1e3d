//! ALOG → SLOG-2 (spec/conversion.md §6): the MPICH-1 samples (corpus
//! `mpich1/alog/`) convert to SLOG-2 files that `check` accepts and whose
//! whole-file window holds every drawable the converter made; a small file shows
//! every pairing rule.

use alog_format::AlogFile;
use slog2_format::check::check;
use slog2_format::convert::alog::{alog_to_slog2, drawables};
use slog2_format::types::{topology, Drawable};
use slog2_format::write::TreeOptions;
use slog2_format::Slog2Reader;
use std::collections::HashMap;
use std::io::Cursor;
use std::path::Path;

/// Per sample: drawables made (states, arrows, events) and the events' time
/// range in µs (reference/alog-layout.md §10).
type Made = (&'static str, (u64, u64, u64), (f64, f64));
const MADE: &[Made] = &[
    ("cpilog.alog", (80, 0, 0), (0.0, 2725711.0)),
    ("srtest.alog", (36, 15, 0), (0.0, 412568.0)),
    ("cpilog.log", (120, 0, 0), (37508.0, 2790110.0)),
    ("monte.log", (252, 127, 0), (2565207.0, 12486000.0)),
    ("gmm.log", (31, 0, 0), (7981913.0, 12100648.0)),
    ("fpilog_profile.log", (28, 0, 8), (379.0, 5505275.0)),
    ("systest_profile.log", (93, 0, 6), (0.0, 63590846.0)),
    ("sam_hyp.16.log", (296, 0, 1), (2025436865.0, 2028176869.0)),
    ("gmmlog_profile.log.Z", (5394, 0, 12), (0.0, 21502634.0)),
];

/// A corpus ALOG sample (a `.Z` file unpacked).
fn read(dir: &Path, name: &str) -> Vec<u8> {
    let path = dir.join("mpich1/alog").join(name);
    let data = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("corpus file {} is missing: {e}", path.display()));
    if name.ends_with(".Z") {
        alog_format::z::decompress(&data, 1 << 24).expect("the .Z sample unpacks")
    } else {
        data
    }
}

#[test]
fn samples_convert_to_slog2_that_check_accepts() {
    let Some(dir) = mpelog_conformance::corpus::root() else {
        return;
    };
    for &(n, made, range) in MADE {
        let f = AlogFile::parse(&read(&dir, n)).unwrap();
        let d = drawables(&f);
        assert_eq!((d.states, d.arrows, d.events), made, "{n}: drawables made");
        let u = d.unmatched;
        assert_eq!(u.total_dropped(), 0, "{n}: {u:?}");
        assert_eq!(u.conflicting_definitions, 0, "{n}");
        let topo: HashMap<i32, i32> = d.categories.iter().map(|c| (c.index, c.topology)).collect();

        for opts in [
            TreeOptions::default(),
            TreeOptions::default().leaf_bytes(1024).children(3),
        ] {
            let (out, stats) = alog_to_slog2(&f, Cursor::new(Vec::new()), opts, |_| {}).unwrap();
            assert_eq!(stats.unmatched, u);
            assert_eq!(stats.records, f.records.len() as u64);
            let stats = stats.tree;
            let bytes = out.into_inner();
            assert_eq!(stats.drawables, made.0 + made.1 + made.2, "{n}");
            assert_eq!(stats.bytes, bytes.len() as u64);
            let findings = check(Cursor::new(&bytes), 100);
            let errors: Vec<_> = findings
                .iter()
                .filter(|x| x.problem.breaks_readers())
                .collect();
            assert!(errors.is_empty(), "{n}: {errors:#?}");

            let mut r = Slog2Reader::new(Cursor::new(&bytes)).unwrap();
            let (t0, t1) = stats.time_range;
            let w = r.window(t0 - 1.0, t1 + 1.0).unwrap();
            let mut counts = (0u64, 0u64, 0u64);
            for l in &w.drawables {
                let Drawable::Primitive(p) = &l.value else {
                    panic!("{n}: a composite")
                };
                match topo[&p.category] {
                    topology::STATE => counts.0 += 1,
                    topology::ARROW => counts.1 += 1,
                    _ => counts.2 += 1,
                }
            }
            assert_eq!(counts, made, "{n}: whole-file window");
            // Times are seconds: the tree spans the events' range.
            assert_eq!(t0, range.0 / 1e6, "{n}: tree start");
            assert_eq!(t1, range.1 / 1e6, "{n}: tree end");
        }
    }
}

#[test]
fn small_file_pairs_like_upshot() {
    let f = AlogFile::parse(mpelog_conformance::strategies::alog::SMALL.as_bytes()).unwrap();
    // Drawables: Compute on 0 [10, 50] and 1 [12, 60]; Wait on 1 [21, 31], an open
    // Wait on 0 from 70 closed at the end time 120; the arrow 0 → 1 [20, 30];
    // the point event Checkpoint at 40; the last "end Compute" on 0 is unmatched.
    // The third -13 repeats the name Compute and is ignored.
    let d = drawables(&f);
    assert_eq!((d.states, d.arrows, d.events), (4, 1, 1));
    assert_eq!(d.unmatched.state_finals, 1);
    assert_eq!(d.unmatched.states_closed_at_end, 1);
    assert_eq!(d.unmatched.conflicting_definitions, 1);
    assert_eq!((d.unmatched.sends, d.unmatched.recvs), (0, 0));
    let names: Vec<String> = d.categories.iter().map(|c| c.name.text()).collect();
    assert_eq!(names, ["message", "Compute", "Wait", "Checkpoint"]);
    assert_eq!(d.categories[1].argb, [255, 255, 0, 0]);
    assert_eq!(
        d.categories[2].argb,
        [255, 255, 0, 0],
        "first upshot default: red"
    );
    let spans: Vec<(i32, [f64; 2], i32)> = d
        .prims
        .iter()
        .map(|p| (p.category, p.times, p.lines[0]))
        .collect();
    assert_eq!(
        spans,
        vec![
            (0, [20e-6, 30e-6], 0),
            (2, [21e-6, 31e-6], 1),
            (3, [40e-6, 40e-6], 0),
            (1, [10e-6, 50e-6], 0),
            (1, [12e-6, 60e-6], 1),
            (2, [70e-6, 120e-6], 0),
        ]
    );

    let (out, stats) =
        alog_to_slog2(&f, Cursor::new(Vec::new()), TreeOptions::default(), |_| {}).unwrap();
    assert_eq!(stats.unmatched, d.unmatched);
    assert_eq!(stats.tree.drawables, 6);
    let bytes = out.into_inner();
    let errors: Vec<_> = check(Cursor::new(&bytes), 100)
        .into_iter()
        .filter(|x| x.problem.breaks_readers())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let mut r = Slog2Reader::new(Cursor::new(&bytes)).unwrap();
    let w = r.window(0.0, 1.0).unwrap();
    assert_eq!(w.drawables.len(), 6);
    let maps = r.line_id_maps().unwrap();
    let titles: Vec<String> = maps.value.maps.iter().map(|m| m.title.text()).collect();
    assert_eq!(titles, ["Process View", "Identity Map"]);
}

#[test]
fn a_file_without_events_does_not_convert() {
    let f = AlogFile::parse(b"-3 0 0 1 0 0\n-13 0 1 2 0 0 red A\n").unwrap();
    let e = alog_to_slog2(&f, Cursor::new(Vec::new()), TreeOptions::default(), |_| {}).unwrap_err();
    assert!(matches!(e, slog2_format::Error::Empty), "{e}");
}
