//! SLOG-1: the three real files of the corpus (counts, time ranges, warnings,
//! byte-identical round trips, conversion to SLOG-2 that passes `check`), files
//! built here (round trips, frames with every kind of sector, the converter's
//! categories, lines and info), and malformed input (errors with byte offsets,
//! never a panic).

mod common;

use mpelog_conformance::strategies::slog1::{arrow, state};
use slog2_format::check::check;
use slog2_format::slog1::error::{ReadProblem, RecordProblem, WriteProblem};
use slog2_format::slog1::*;
use slog2_format::write::TreeOptions;
use slog2_format::{Drawable, Slog2File, Slog2Reader};
use std::io::Cursor;

fn corpus_file(name: &str) -> Option<Vec<u8>> {
    let dir = common::corpus()?;
    let p = dir.join("mpich1/slog1").join(name);
    Some(std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
}

/// What the reference notes (shared/reference/slog1-layout.md §2, §8, §14) say
/// about one corpus file, and what we read.
struct Expected {
    name: &'static str,
    len: usize,
    frame_bytesize: u32,
    max_ndirframe: u32,
    frames: usize,
    threads: usize,
    profile: usize,
    /// cur, inc, pas, out copies.
    copies: [u64; 4],
    records: u64,
    states: u64,
    arrows: u64,
    /// By bebits code: middle, begin, final, whole.
    by_bebits: [u64; 4],
    /// Earliest start, latest end.
    time_range: (f64, f64),
    /// Frame boundaries: start of each frame, then the end of the last.
    boundaries: &'static [f64],
    statistics: (u32, u32),
    /// Section offsets: preview, threads, profile, recdefs, framedata, statistics.
    pointers: [u64; 6],
}

const SAMPLE: Expected = Expected {
    name: "sample.slog",
    len: 11692,
    frame_bytesize: 320,
    max_ndirframe: 64,
    frames: 3,
    threads: 19,
    profile: 17,
    copies: [17, 2, 0, 2],
    records: 19,
    states: 16,
    arrows: 3,
    by_bebits: [0, 0, 0, 19],
    // 0.02 as the C test writer computed it (0.020000000000000004), 1.6
    time_range: (0.020000000000000004, 1.6),
    boundaries: &[0.020000000000000004, 0.5, 1.0, 1.6],
    statistics: (17, 20),
    pointers: [74, 78, 424, 5523, 5667, 8183],
};

const SPPM: Expected = Expected {
    name: "sppm_ic2a.slog",
    len: 985187,
    frame_bytesize: 131072,
    max_ndirframe: 4,
    frames: 3,
    threads: 12,
    profile: 30,
    copies: [7956, 14, 0, 14],
    records: 7970,
    states: 7490,
    arrows: 480,
    by_bebits: [1840, 153, 153, 5824],
    time_range: (0.005203, 146.867195),
    boundaries: &[0.005203, 59.074884999999995, 116.844515, 146.867195],
    statistics: (13, 512),
    pointers: [74, 78, 298, 523154, 537998, 931330],
};

const INVALID: Expected = Expected {
    name: "invalid.slog",
    len: 685546,
    frame_bytesize: 131072,
    max_ndirframe: 2,
    frames: 1,
    threads: 2,
    profile: 7,
    copies: [24, 0, 0, 0],
    records: 24,
    states: 22,
    arrows: 2,
    by_bebits: [0, 2, 1, 21],
    time_range: (0.009228, 0.031365000000000004),
    boundaries: &[0.009228, 0.031365000000000004],
    statistics: (4, 512),
    pointers: [74, 78, 118, 522974, 537818, 668958],
};

fn check_expected(e: &Expected) {
    let Some(data) = corpus_file(e.name) else {
        return;
    };
    assert_eq!(data.len(), e.len, "{}", e.name);
    let f = Slog1File::parse(&data).unwrap_or_else(|err| panic!("{}: {err}", e.name));
    let h = &f.header;
    assert_eq!(h.version, [0, 9]);
    assert_eq!(
        (
            h.frame_bytesize,
            h.max_ndirframe,
            h.is_increasing_starttime,
            h.is_increasing_endtime
        ),
        (e.frame_bytesize, e.max_ndirframe, 0, 1),
        "{}",
        e.name
    );
    assert_eq!(
        [
            h.fptr2preview,
            h.fptr2threadtable,
            h.fptr2profile,
            h.fptr2recdefs,
            h.fptr2framedata,
            h.fptr2statistics
        ],
        e.pointers,
        "{}",
        e.name
    );
    let s = dump::summary(&f);
    assert_eq!(s.frames, e.frames, "{}", e.name);
    assert_eq!(s.threads, e.threads, "{}", e.name);
    assert_eq!(
        (s.profile_entries, s.recdefs),
        (e.profile, e.profile),
        "{}",
        e.name
    );
    assert_eq!(s.copies, e.copies, "{}", e.name);
    assert_eq!(
        (s.records, s.states, s.arrows),
        (e.records, e.states, e.arrows),
        "{}",
        e.name
    );
    assert_eq!(s.by_bebits, e.by_bebits, "{}", e.name);
    let (t0, t1) = s.time_range.unwrap();
    assert_eq!(
        (t0.to_bits(), t1.to_bits()),
        (e.time_range.0.to_bits(), e.time_range.1.to_bits()),
        "{}: {t0:?} {t1:?}",
        e.name
    );
    assert_eq!(s.frame_range, Some((t0, t1)), "{}", e.name);
    let mut bounds: Vec<f64> = f.directory.entries.iter().map(|d| d.starttime).collect();
    bounds.push(f.directory.entries.last().unwrap().endtime);
    assert_eq!(bounds, e.boundaries, "{}", e.name);
    assert_eq!(s.statistics, e.statistics, "{}", e.name);
    let b = f.statistics.body.as_ref().unwrap();
    assert_eq!((b.starttime, b.endtime), (t0, t1), "{}", e.name);
    // Frames follow the directory's slots back to back.
    for (i, d) in f.directory.entries.iter().enumerate() {
        assert_eq!(
            d.fptr2framehdr,
            h.fptr2framedata
                + 20
                + 24 * h.max_ndirframe as u64
                + i as u64 * h.frame_bytesize as u64
        );
    }
    // Every inc/pas copy is a copy of a home record of an earlier frame, and only
    // rules about split pieces can fire.
    assert!(
        s.warnings
            .iter()
            .all(|w| w.problem == slog2_format::slog1::check::Problem::BrokenSplit),
        "{}: {:?}",
        e.name,
        s.warnings
    );
}

#[test]
fn sample_slog_counts_and_times() {
    check_expected(&SAMPLE);
}

#[test]
fn sppm_ic2a_slog_counts_and_times() {
    check_expected(&SPPM);
    let Some(data) = corpus_file("sppm_ic2a.slog") else {
        return;
    };
    let f = Slog1File::parse(&data).unwrap();
    let s = dump::summary(&f);
    // Split pieces (IBM UTE): MPI_Wait 282 has every kind, 515 only begin/final.
    let count = |t: u16, b: u8| {
        s.by_type
            .iter()
            .find(|c| (c.intvltype, c.bebits) == (t, b))
            .map_or(0, |c| c.records)
    };
    assert_eq!(
        [count(282, 1), count(282, 0), count(282, 2), count(282, 3)],
        [2, 1, 2, 958]
    );
    assert_eq!([count(515, 1), count(515, 0), count(515, 2)], [20, 0, 20]);
    assert_eq!(count(999, 3), 480);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
}

/// `invalid.slog` is structurally valid — Jumpshot-3's reader and the C reader
/// both read it, and so do we, byte for byte — but its last record is the begin
/// piece of an MPI_Recv (type 14) on node 0 thread 1 whose final piece never
/// comes: the traced program (task 1 sends four messages, two of them to itself
/// and two to task 0, whose thread only runs; task 1 then enters a third
/// MPI_Recv) had not finished that call when the trace ended. We read it with
/// exactly one warning, S1-SPLIT-001, at that record.
#[test]
fn invalid_slog_reads_with_one_warning() {
    check_expected(&INVALID);
    let Some(data) = corpus_file("invalid.slog") else {
        return;
    };
    let f = Slog1File::parse(&data).unwrap();
    let w = f.warnings();
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(
        w[0].problem,
        slog2_format::slog1::check::Problem::BrokenSplit
    );
    assert_eq!(w[0].offset, 538850);
    assert!(
        w[0].what.contains("interval type 14 on (node 0, thread 1)"),
        "{}",
        w[0]
    );
    assert!(
        w[0].what.contains("begin piece without a final piece"),
        "{}",
        w[0]
    );
    let r = f.records().find(|r| r.offset == 538850).unwrap();
    assert_eq!(
        (r.record.intvltype, r.record.bebits, r.record.starttime),
        (14, 1, 0.030051)
    );
    assert_eq!(
        r.record.endtime(),
        f.directory.entries[0].endtime,
        "it is the last record"
    );
    // The two arrows go from task 1 to itself (legal MPI: sends to self).
    let arrows: Vec<_> = f.home_records().filter(|r| r.record.is_arrow()).collect();
    assert_eq!(arrows.len(), 2);
    assert!(arrows
        .iter()
        .all(|a| a.record.destination == Some(a.record.origin) && a.record.origin.thread == 1));
    // The other two files raise nothing.
    for name in ["sample.slog", "sppm_ic2a.slog"] {
        let f = Slog1File::parse(&corpus_file(name).unwrap()).unwrap();
        assert!(f.warnings().is_empty(), "{name}: {:?}", f.warnings());
    }
    // The summary carries the warning; the print leaves warnings to its caller
    // (`mpelog print` adds each with its rule).
    assert_eq!(dump::summary(&f).warnings, w);
    assert!(!dump::lines(&f).iter().any(|l| l.starts_with("warning")));
}

#[test]
fn corpus_round_trips_byte_for_byte() {
    for name in ["sample.slog", "sppm_ic2a.slog", "invalid.slog"] {
        let Some(data) = corpus_file(name) else {
            return;
        };
        let f = Slog1File::parse(&data).unwrap();
        let out = f.to_bytes().unwrap();
        assert!(out == data, "{name}: not byte-identical");
        assert_eq!(Slog1File::parse(&out).unwrap(), f, "{name}");
        // The model without its gaps (reserved/stale slots, unused directory
        // slots) and with zeroed frame tails reads back as itself too.
        let mut g = f.clone();
        g.lay_out();
        let out = g.to_bytes().unwrap();
        let back = Slog1File::parse(&out).unwrap();
        assert_eq!(back, g, "{name}");
        assert!(back
            .home_records()
            .map(|r| r.record)
            .eq(f.home_records().map(|r| r.record)));
    }
}

#[test]
fn corpus_print_lists_every_record_copy() {
    for e in [&SAMPLE, &SPPM, &INVALID] {
        let Some(data) = corpus_file(e.name) else {
            return;
        };
        let f = Slog1File::parse(&data).unwrap();
        let lines = dump::lines(&f);
        let copies: u64 = e.copies.iter().sum();
        assert_eq!(
            lines.iter().filter(|l| l.starts_with("  ")).count() as u64,
            copies,
            "{}",
            e.name
        );
        assert_eq!(lines[0], "SLOG-1 version 0.9");
    }
    let Some(data) = corpus_file("sample.slog") else {
        return;
    };
    let lines = dump::lines(&Slog1File::parse(&data).unwrap());
    assert!(lines.contains(
        &"  cur @7255 size=34 rectype=64 (state) type=100 bebits=3 (whole) start=0.020000000000000004 dur=0.08 end=0.1 orig=(0,1,0) iaddr=0x22b8 assocs=[] args=[]"
            .to_string()
    ));
    assert!(lines
        .iter()
        .any(|l| l.starts_with("profile 15 type=998 bebits=3 (whole) class=\"Message\" label=\"Forward Arrow\" color=\"white\"")));
}

/// Converts and checks: `check` finds no error, a whole-file window returns every
/// drawable, and there is one drawable per record (home copy).
fn convert_and_check(f: &Slog1File, opts: TreeOptions, what: &str) -> (Vec<u8>, u64) {
    let (out, stats) =
        slog2_format::convert::slog1_to_slog2(f, Cursor::new(Vec::new()), opts, |_| {}).unwrap();
    let bytes = out.into_inner();
    let errors: Vec<_> = check(Cursor::new(&bytes), 10)
        .into_iter()
        .filter(|x| x.problem.breaks_readers())
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:?}");
    let records = f.home_records().count() as u64;
    assert_eq!(stats.tree.drawables, records, "{what}");
    assert_eq!(stats.records, records, "{what}");
    let mut r = Slog2Reader::new(Cursor::new(&bytes)).unwrap();
    let (t0, t1) = stats.tree.time_range;
    let a = r.window(t0, t1).unwrap();
    assert_eq!(a.drawables.len() as u64, stats.tree.drawables, "{what}");
    (bytes, stats.tree.drawables)
}

#[test]
fn corpus_converts_to_slog2_that_checks_clean() {
    for e in [&SAMPLE, &SPPM, &INVALID] {
        let Some(data) = corpus_file(e.name) else {
            return;
        };
        let f = Slog1File::parse(&data).unwrap();
        for opts in [
            TreeOptions::default(),
            TreeOptions::default().leaf_bytes(512).children(3),
        ] {
            let (bytes, n) = convert_and_check(&f, opts, e.name);
            assert_eq!(n, e.records);
            let s2 = Slog2File::parse(&bytes).unwrap();
            let arrows = s2
                .nodes()
                .flat_map(|n| n.value.nestless.iter())
                .filter(|d| matches!(d, Drawable::Primitive(p) if p.vertices.len() == 2))
                .count() as u64;
            assert_eq!(arrows, e.arrows, "{}", e.name);
        }
    }
    let Some(data) = corpus_file("sppm_ic2a.slog") else {
        return;
    };
    let d = slog2_format::convert::slog1::drawables(&Slog1File::parse(&data).unwrap()).unwrap();
    let names: Vec<String> = d.categories.iter().map(|c| c.name.text()).collect();
    for n in [
        "MPI_Wait",
        "MPI_Wait (begin)",
        "MPI_Wait (middle)",
        "MPI_Wait (final)",
        "Forward Arrow",
        "Running",
    ] {
        assert!(names.contains(&n.to_string()), "{n} not in {names:?}");
    }
    let wait = d
        .categories
        .iter()
        .find(|c| c.name.text() == "MPI_Wait")
        .unwrap();
    let keys: Vec<String> = wait.keys.iter().map(|k| k.text()).collect();
    assert_eq!(
        keys,
        [
            "request=",
            ", reqAssoc=",
            ", commID=",
            ", src=",
            ", seqID=",
            ", msgTag=",
            ""
        ]
    );
    assert_eq!(wait.types, b"dddddd");
    assert_eq!(wait.argb, [255, 160, 32, 240], "purple");
    assert_eq!(d.undeclared_threads, 0);
    assert_eq!(d.maps[0].rows.len(), 12);
}

// ---------------------------------------------------------------------------
// Files built here (no corpus needed).

/// Three ranks, a state of every frame's length on rank 0 (pas copies), short
/// states, a split interval (begin, middle, final), arrows with an association,
/// and a variable-size record.
fn input() -> BuildInput {
    let mut records = vec![state(1, 3, 0.0, 10.0, 0, vec![])];
    for i in 0..20 {
        let t = 0.5 * i as f64;
        records.push(state(2, 3, t, 0.25, 1 + (i % 2) as u16, vec![i, 2 * i]));
        if i % 4 == 0 {
            records.push(arrow(t + 0.1, 0.3, 1, 2, i));
        }
    }
    records.push(state(3, 1, 2.0, 0.5, 2, vec![11]));
    records.push(state(3, 0, 2.5, 0.5, 2, vec![]));
    records.push(state(3, 2, 3.0, 0.5, 2, vec![12, 13]));
    records.push(IntervalRecord {
        rectype: 5,
        intvltype: 4,
        args: RecordArgs::Variable(vec![
            ArgGroup {
                values: vec![1, 2, 3],
            },
            ArgGroup { values: vec![] },
        ]),
        ..state(4, 3, 4.0, 1.0, 1, vec![])
    });
    BuildInput {
        preview: b"preview".to_vec(),
        threads: (0..3)
            .map(|n| ThreadInfo {
                node_id: n,
                thread_id: 0,
                os_process_id: 100 + n as u32,
                os_thread_id: 7,
                app_id: n as u32,
            })
            .collect(),
        profile: vec![
            ProfileEntry::new(1, 3, "state", "Running", "DimGrey", &[]),
            ProfileEntry::new(2, 3, "state", "Compute", "green", &["i", "twice"]),
            ProfileEntry::new(3, 1, "MPI_state", "MPI_Wait", "purple", &["req"]),
            ProfileEntry::new(3, 0, "MPI_state", "MPI_Wait", "purple", &[]),
            ProfileEntry::new(3, 2, "MPI_state", "MPI_Wait", "purple", &["src", "tag"]),
            ProfileEntry::new(
                3,
                3,
                "MPI_state",
                "MPI_Wait",
                "purple",
                &["req", "src", "tag"],
            ),
            ProfileEntry::new(
                4,
                3,
                "state",
                "Variable",
                "no such colour",
                &["a", "b", "c"],
            ),
            ProfileEntry::new(10001, 3, "message", "forward arrow", "white", &["tag"]),
        ],
        recdefs: vec![
            RecDef {
                intvltype: 1,
                bebits: 3,
                nassocs: 0,
                nargs: 0,
            },
            RecDef {
                intvltype: 2,
                bebits: 3,
                nassocs: 0,
                nargs: 2,
            },
            RecDef {
                intvltype: 3,
                bebits: 1,
                nassocs: 0,
                nargs: 1,
            },
            RecDef {
                intvltype: 3,
                bebits: 0,
                nassocs: 0,
                nargs: 0,
            },
            RecDef {
                intvltype: 3,
                bebits: 2,
                nassocs: 0,
                nargs: 2,
            },
            RecDef {
                intvltype: 3,
                bebits: 3,
                nassocs: 0,
                nargs: 3,
            },
            RecDef {
                intvltype: 4,
                bebits: 3,
                nassocs: 0,
                nargs: 3,
            },
            RecDef {
                intvltype: 10001,
                bebits: 3,
                nassocs: 1,
                nargs: 1,
            },
        ],
        records,
    }
}

fn built(frame_bytesize: u32) -> Slog1File {
    build(
        &input(),
        BuildOptions::default()
            .frame_bytesize(frame_bytesize)
            .max_ndirframe(40)
            .nbin(16),
    )
    .unwrap()
}

#[test]
fn built_file_round_trips_and_has_every_sector() {
    let f = built(300);
    let bytes = f.to_bytes().unwrap();
    let back = Slog1File::parse(&bytes).unwrap();
    assert_eq!(back, f);
    assert_eq!(back.to_bytes().unwrap(), bytes);
    assert!(back.frames.len() > 5, "{} frames", back.frames.len());
    let s = dump::summary(&back);
    assert_eq!(s.records, input().records.len() as u64);
    assert!(
        s.copies.iter().all(|&n| n > 0),
        "every sector used: {:?}",
        s.copies
    );
    assert!(back.warnings().is_empty(), "{:?}", back.warnings());
    // Each record: home copy in the frame its start falls in, a copy in every
    // later frame it reaches, nowhere else.
    let dir = &back.directory.entries;
    for rec in &input().records {
        let home = dir
            .iter()
            .rposition(|d| d.starttime <= rec.starttime)
            .unwrap();
        let found: Vec<(usize, Sector)> = back
            .records()
            .filter(|r| r.record == rec)
            .map(|r| (r.frame, r.sector))
            .collect();
        let want: Vec<(usize, Sector)> = (home..dir.len())
            .filter(|&i| i == home || rec.endtime() > dir[i].starttime)
            .map(|i| {
                let ends = rec.endtime() <= dir[i].endtime;
                let s = match (i == home, ends) {
                    (true, true) => Sector::Cur,
                    (true, false) => Sector::Out,
                    (false, true) => Sector::Inc,
                    (false, false) => Sector::Pas,
                };
                (i, s)
            })
            .collect();
        assert_eq!(found, want, "{rec:?}");
    }
    // Frames tile time; every frame fits.
    for w in dir.windows(2) {
        assert_eq!(w[0].endtime, w[1].starttime);
    }
    assert_eq!(dir[0].starttime, 0.0);
    assert_eq!(dir.last().unwrap().endtime, 10.0);
    // Statistics: Running (one state over the whole range) is 1 in every bin.
    let b = back.statistics.body.as_ref().unwrap();
    assert_eq!(b.sets.len(), 5, "one set per whole profile entry");
    assert!(
        b.sets[0].bins.iter().all(|&v| (v - 1.0).abs() < 1e-9),
        "{:?}",
        b.sets[0].bins
    );
    assert_eq!(b.sets[0].label_text(), "Running");
}

#[test]
fn built_header_and_sections_sit_where_the_layout_says() {
    let f = built(300);
    let bytes = f.to_bytes().unwrap();
    assert!(looks_like(&bytes));
    assert_eq!(&bytes[..8], &[0, 0, 0, 0, 0, 0, 0, 9]);
    assert_eq!(u32::from_be_bytes(bytes[8..12].try_into().unwrap()), 300);
    assert_eq!(u32::from_be_bytes(bytes[16..20].try_into().unwrap()), 40);
    assert_eq!(&bytes[20..26], &[0, 0, 0, 1, 0, 0]);
    let ptr = |o: usize| u64::from_be_bytes(bytes[o..o + 8].try_into().unwrap());
    assert_eq!(ptr(34), 74, "preview first");
    assert_eq!(&bytes[74..78], &[0, 0, 0, 7]);
    assert_eq!(&bytes[78..85], b"preview");
    assert_eq!(ptr(50), 85, "thread table after the preview");
    assert_eq!(ptr(42), 85 + 4 + 3 * 18, "profile after the thread table");
    let prof = ptr(42) as usize;
    assert_eq!(
        &bytes[prof + 4..prof + 4 + 35],
        b"1\0                                \t"
    );
    assert_eq!(
        &bytes[prof + 4 + 3 * 35..prof + 4 + 3 * 35 + 10],
        b"Running\0\0\0"
    );
    assert_eq!(bytes[prof + 4 + 6 * 35], b'\n');
    let dir = ptr(66) as usize;
    let nframe = u32::from_be_bytes(bytes[dir + 16..dir + 20].try_into().unwrap()) as usize;
    assert_eq!(nframe, f.frames.len());
    // Unused slots: pointer 0, times -1.0.
    let slot = dir + 20 + 24 * nframe;
    assert_eq!(&bytes[slot..slot + 8], &[0; 8]);
    assert_eq!(
        f64::from_be_bytes(bytes[slot + 8..slot + 16].try_into().unwrap()),
        -1.0
    );
    let frame0 = u64::from_be_bytes(bytes[dir + 20..dir + 28].try_into().unwrap()) as usize;
    assert_eq!(frame0, slot + 24 * (40 - nframe));
    assert_eq!(ptr(26), (frame0 + 300 * nframe) as u64, "statistics last");
    assert_eq!(f.gaps.len(), 1, "the unused directory slots");
}

#[test]
fn built_file_converts_once_per_record() {
    let f = Slog1File::parse(&built(300).to_bytes().unwrap()).unwrap();
    let n = input().records.len() as u64;
    for opts in [
        TreeOptions::default(),
        TreeOptions::default().leaf_bytes(128),
    ] {
        let (bytes, drawn) = convert_and_check(&f, opts, "built");
        assert_eq!(drawn, n);
        let s2 = Slog2File::parse(&bytes).unwrap();
        let total: usize = s2
            .nodes()
            .map(|n| n.value.nestless.len() + n.value.nestable.len())
            .sum();
        assert_eq!(total as u64, n);
    }
    // One frame or many: the same drawables.
    let one = build(&input(), BuildOptions::default()).unwrap();
    assert_eq!(one.frames.len(), 1);
    assert_eq!(
        slog2_format::convert::slog1::drawables(&one).unwrap(),
        slog2_format::convert::slog1::drawables(&f).unwrap()
    );

    let d = slog2_format::convert::slog1::drawables(&f).unwrap();
    let names: Vec<String> = d.categories.iter().map(|c| c.name.text()).collect();
    assert_eq!(
        names,
        [
            "Running",
            "Compute",
            "MPI_Wait (begin)",
            "MPI_Wait (middle)",
            "MPI_Wait (final)",
            "Variable",
            "forward arrow"
        ]
    );
    let compute = &d.categories[1];
    let keys: Vec<String> = compute.keys.iter().map(|k| k.text()).collect();
    assert_eq!(keys, ["i=", ", twice=", ""]);
    assert_eq!(compute.argb, [255, 0, 255, 0]);
    let var = &d.categories[5];
    assert_eq!(
        var.types, b"ddd",
        "the first group's three values (the second is empty)"
    );
    let arrow_cat = &d.categories[6];
    assert_eq!((arrow_cat.topology, arrow_cat.width), (2, 3));
    let arrows: Vec<_> = d.prims.iter().filter(|p| p.category == 6).collect();
    assert_eq!(arrows.len(), 5);
    assert_eq!(arrows[0].lines, [1, 2]);
    assert_eq!(arrows[0].times, [0.1, 0.1 + 0.3]);
    assert_eq!(
        arrows[1].info(),
        &4u32.to_be_bytes(),
        "the tag, not the association"
    );
    let first_compute = d.prims.iter().find(|p| p.category == 1).unwrap();
    assert_eq!(first_compute.info(), &[0, 0, 0, 0, 0, 0, 0, 0]);
    assert!(d.prims.windows(2).all(|w| w[0].latest() <= w[1].latest()));
    assert_eq!(d.maps.len(), 3);
    assert_eq!(d.maps[2].rows[1].values, [101, 7]);
    assert_eq!(d.undeclared_threads, 0);
}

#[test]
fn undeclared_threads_get_lines_and_a_warning() {
    let mut inp = input();
    inp.records.push(state(1, 3, 9.0, 0.5, 9, vec![]));
    let f = build(&inp, BuildOptions::default()).unwrap();
    let w = f.warnings();
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(
        w[0].problem,
        slog2_format::slog1::check::Problem::UnknownThread
    );
    let d = slog2_format::convert::slog1::drawables(&f).unwrap();
    assert_eq!(d.undeclared_threads, 1);
    assert_eq!(d.maps[0].rows[3].values, [9, 0]);
    assert_eq!(d.maps[1].rows[3].values, [-1, 9, 0]);
    convert_and_check(&f, TreeOptions::default(), "undeclared");
}

#[test]
fn a_non_finite_time_is_refused_with_the_record_offset() {
    let mut f = built(300);
    let home = f.home_records().nth(3).unwrap();
    let (frame, sector, at) = (home.frame, home.sector, home.offset);
    let idx = f
        .records()
        .filter(|r| r.frame == frame && r.sector == sector && r.offset < at)
        .count();
    f.frames[frame].sector_mut(sector)[idx].duration = f64::NAN;
    let e = slog2_format::convert::slog1_to_slog2(
        &f,
        Cursor::new(Vec::new()),
        TreeOptions::default(),
        |_| {},
    )
    .unwrap_err();
    assert_eq!(e.offset(), Some(at), "{e}");
    // An empty file has nothing to draw.
    let empty = build(&BuildInput::default(), BuildOptions::default()).unwrap();
    assert!(Slog1File::parse(&empty.to_bytes().unwrap())
        .unwrap()
        .frames
        .is_empty());
    assert!(matches!(
        slog2_format::convert::slog1_to_slog2(
            &empty,
            Cursor::new(Vec::new()),
            TreeOptions::default(),
            |_| {}
        ),
        Err(slog2_format::Error::Empty)
    ));
}

// ---------------------------------------------------------------------------
// Malformed input.

fn bytes() -> Vec<u8> {
    built(300).to_bytes().unwrap()
}

fn err(data: &[u8]) -> Error {
    Slog1File::parse(data).expect_err("must not parse")
}

/// The typed problem of a bad value (the section it was found in, the problem)
/// and its spec row; panics on any other error.
fn problem(e: &Error) -> (Option<Part>, &ReadProblem, u8) {
    match e {
        Error::BadValue { part, problem, .. } => (*part, problem, e.spec_row().unwrap()),
        other => panic!("not a bad value: {other:?}"),
    }
}

fn put32(d: &mut [u8], at: usize, v: u32) {
    d[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

fn ptr(d: &[u8], o: usize) -> usize {
    u64::from_be_bytes(d[o..o + 8].try_into().unwrap()) as usize
}

#[test]
fn truncated_files_are_errors_at_or_before_the_cut() {
    let data = bytes();
    let e = err(&data[..50]);
    assert!(
        matches!(
            e,
            Error::Truncated {
                offset: 50,
                part: Part::Header,
                end: 50
            }
        ),
        "{e}"
    );
    assert_eq!(e.spec_row(), Some(1));
    for cut in 0..data.len() {
        let e = err(&data[..cut]);
        let at = e.offset().expect("an offset");
        assert!(at <= cut as u64, "cut {cut}: {e}");
    }
    // The statistics section is last: cutting into it names its start.
    let stats = ptr(&data, 26);
    let e = err(&data[..stats + 30]);
    assert_eq!(e.offset(), Some(stats as u64), "{e}");
    // Its set count is checked against the 6 bytes left after the 24-byte head.
    let (part, p, row) = problem(&e);
    assert_eq!((part, row), (Some(Part::Statistics), 5));
    assert!(
        matches!(p, ReadProblem::StatSetsTooMany { have: 6, .. }),
        "{p:?}"
    );
    // A cut through the statistics' 24-byte head runs past the end (row 6).
    let e = err(&data[..stats + 10]);
    assert!(
        matches!(e, Error::Truncated { part: Part::Statistics, end, .. } if end == stats as u64 + 10),
        "{e:?}"
    );
    assert_eq!((e.offset(), e.spec_row()), (Some(stats as u64), Some(6)));
}

#[test]
fn bad_header_values_name_their_fields() {
    let data = bytes();
    let mut d = data.clone();
    d[7] = 8;
    let e = err(&d);
    assert_eq!(e.offset(), Some(0));
    let version = [0, 8];
    assert_eq!(problem(&e), (None, &ReadProblem::NotSlog1 { version }, 2));
    let names = [
        "fptr2statistics",
        "fptr2preview",
        "fptr2profile",
        "fptr2threadtable",
        "fptr2recdefs",
        "fptr2framedata",
    ];
    for (field, pointer) in [26usize, 34, 42, 50, 58, 66].into_iter().zip(names) {
        let mut d = data.clone();
        d[field..field + 8].fill(0);
        let e = err(&d);
        assert_eq!(e.offset(), Some(field as u64), "null pointer at {field}");
        assert_eq!(problem(&e), (None, &ReadProblem::NoSection { pointer }, 3));
        d[field..field + 8].copy_from_slice(&(data.len() as u64).to_be_bytes());
        let e = err(&d);
        assert_eq!(e.offset(), Some(field as u64), "past the end at {field}");
        let (at, file_len) = (data.len() as u64, data.len() as u64);
        let past = ReadProblem::SectionPastEnd {
            pointer,
            at,
            file_len,
        };
        assert_eq!(problem(&e), (None, &past, 3));
    }
    let mut d = data.clone();
    put32(&mut d, 8, 16);
    let e = err(&d);
    assert_eq!(e.offset(), Some(8), "frame smaller than its header");
    let small = ReadProblem::FrameSizeTooSmall { frame_bytesize: 16 };
    assert_eq!(problem(&e), (None, &small, 4));
    // Sections overlapping: the preview moved onto the thread table.
    let mut d = data.clone();
    let at = ptr(&data, 50) as u64 + 18;
    d[34..42].copy_from_slice(&at.to_be_bytes());
    let e = err(&d);
    let (part, p, row) = problem(&e);
    assert_eq!((part, row), (None, 14));
    assert!(
        matches!(p, ReadProblem::Overlap { part: Part::Preview, at: a, .. } if *a == at),
        "{p:?}"
    );
}

#[test]
fn counts_that_cannot_fit_are_refused_before_allocating() {
    let data = bytes();
    let cases: [(usize, &str); 5] = [
        (ptr(&data, 50), "thread-table entries"),
        (ptr(&data, 42), "profile entries"),
        (ptr(&data, 58), "record definitions"),
        (ptr(&data, 66) + 16, "directory entries"),
        (ptr(&data, 34), "preview bytes"),
    ];
    for (at, what) in cases {
        let mut d = data.clone();
        put32(&mut d, at, u32::MAX);
        let e = err(&d);
        assert_eq!(e.offset(), Some(at as u64), "{what}: {e}");
        let (_, p, row) = problem(&e);
        assert!(
            matches!(p, ReadProblem::CountTooLarge { count: u32::MAX, items, .. } if *items == what),
            "{p:?}"
        );
        assert_eq!(row, 5);
    }
    // Statistics: Nset × (45 + 8·Nbin) bytes.
    let stats = ptr(&data, 26);
    let mut d = data.clone();
    put32(&mut d, stats, 1 << 30);
    let e = err(&d);
    assert_eq!(e.offset(), Some(stats as u64));
    let (part, p, row) = problem(&e);
    assert_eq!((part, row), (Some(Part::Statistics), 5));
    assert!(
        matches!(
            p,
            ReadProblem::StatSetsTooMany {
                sets: 0x4000_0000,
                bins: 16,
                ..
            }
        ),
        "{p:?}"
    );
    // Nset × (45 + 8·Nbin) overflows 64 bits (found by the fuzzer).
    put32(&mut d, stats, u32::MAX);
    put32(&mut d, stats + 4, u32::MAX);
    assert_eq!(err(&d).offset(), Some(stats as u64));
    // A statistics set whose bin count differs from the section's.
    let mut d = data.clone();
    put32(&mut d, stats + 24 + 41, 15);
    let e = err(&d);
    assert_eq!(e.offset(), Some(stats as u64 + 24), "the set: {e}");
    let bins = ReadProblem::StatBins {
        bins: 15,
        section: 16,
    };
    assert_eq!(problem(&e), (Some(Part::Statistics), &bins, 9));
    // Nset or Nbin 0: nothing more is read, the file parses with a warning.
    let mut d = data.clone();
    put32(&mut d, stats, 0);
    let f = Slog1File::parse(&d).unwrap();
    assert!(f.statistics.body.is_none());
    assert_eq!(
        f.warnings()[0].problem,
        slog2_format::slog1::check::Problem::NoStatistics
    );
    assert_eq!(f.to_bytes().unwrap(), d);
}

#[test]
fn bad_frames_and_records_name_their_bytes() {
    let data = bytes();
    let f = Slog1File::parse(&data).unwrap();
    let dir = ptr(&data, 66);
    let frame0 = ptr(&data, dir + 20);
    // A frame pointer past the end, or null.
    let mut d = data.clone();
    d[dir + 20..dir + 28].copy_from_slice(&(data.len() as u64 - 10).to_be_bytes());
    let e = err(&d);
    assert_eq!(e.offset(), Some(dir as u64 + 20));
    let (part, p, row) = problem(&e);
    assert_eq!((part, row), (None, 10));
    assert!(
        matches!(p, ReadProblem::FramePastEnd { entry: 0, at, .. } if *at == data.len() as u64 - 10),
        "{p:?}"
    );
    let mut d = data.clone();
    d[dir + 20..dir + 28].fill(0);
    let e = err(&d);
    assert_eq!(e.offset(), Some(dir as u64 + 20));
    assert_eq!(
        problem(&e),
        (None, &ReadProblem::NullFrame { entry: 0 }, 10)
    );
    // Sector counts: more records than bytes allow, or bytes that do not add up.
    let mut d = data.clone();
    put32(&mut d, frame0 + 4, 1000);
    let e = err(&d);
    assert_eq!(e.offset(), Some(frame0 as u64 + 32), "{e}");
    let (part, p, row) = problem(&e);
    assert_eq!((part, row), (Some(Part::Frame(0)), 12));
    assert!(
        matches!(
            p,
            ReadProblem::SectorRecords {
                sector: "cur",
                records: 1000,
                ..
            }
        ),
        "{p:?}"
    );
    let mut d = data.clone();
    let n = u32::from_be_bytes(d[frame0..frame0 + 4].try_into().unwrap());
    put32(&mut d, frame0, n + 4);
    let e = err(&d);
    assert_eq!(e.offset(), Some(frame0 as u64 + 32), "{e}");
    let (part, p, row) = problem(&e);
    assert_eq!((part, row), (Some(Part::Frame(0)), 12));
    assert!(
        matches!(p, ReadProblem::SectorLength { sector: "cur", used, bytes, .. } if *used + 4 == u64::from(*bytes)),
        "{p:?}"
    );
    let mut d = data.clone();
    put32(&mut d, frame0, 1 << 20);
    let e = err(&d);
    let (part, p, row) = problem(&e);
    assert_eq!((part, row), (Some(Part::Frame(0)), 11));
    assert!(matches!(p, ReadProblem::FrameOverfull { .. }), "{p:?}");
    // Records: the first record of frame 0.
    let rec = frame0 + 32;
    assert_eq!(f.records().next().unwrap().offset, rec as u64);
    let mut d = data.clone();
    d[rec + 6] = 7; // bebits
    let e = err(&d);
    let bebits = ReadProblem::RecordBebits { code: 7 };
    assert_eq!(problem(&e), (Some(Part::Frame(0)), &bebits, 13));
    assert_eq!(e.offset(), Some(rec as u64 + 6), "{e}");
    let mut d = data.clone();
    d[rec + 4..rec + 6].copy_from_slice(&999u16.to_be_bytes()); // no definition
    let e = err(&d);
    let (part, p, row) = problem(&e);
    assert_eq!((part, row), (Some(Part::Frame(0)), 13));
    assert!(
        matches!(p, ReadProblem::NoRecDef { intvltype: 999, .. }),
        "{p:?}"
    );
    let mut d = data.clone();
    d[rec..rec + 2].copy_from_slice(&38u16.to_be_bytes()); // byte size 34 → 38
    let e = err(&d);
    let (part, p, row) = problem(&e);
    assert_eq!((part, row), (Some(Part::Frame(0)), 13));
    assert!(
        matches!(p, ReadProblem::RecordSize { bytesize: 38, .. }),
        "{p:?}"
    );
    let mut d = data.clone();
    d[rec..rec + 2].copy_from_slice(&10u16.to_be_bytes());
    let e = err(&d);
    assert_eq!(e.offset(), Some(rec as u64));
    let small = ReadProblem::RecordTooSmall {
        sector: "cur",
        index: 0,
        size: 10,
    };
    assert_eq!(problem(&e), (Some(Part::Frame(0)), &small, 12));
}

#[test]
fn malformed_profile_fields_are_refused() {
    let data = bytes();
    let prof = ptr(&data, 42) + 4;
    // (byte, value, message): field 0 without its TAB, a non-numeric type, bebits
    // 5, a label flag of 2, entry 0 not ending with an LF.
    type Is = fn(&ReadProblem) -> bool;
    let cases: [(usize, u8, Is); 5] = [
        (
            prof + 34,
            b' ',
            |p| matches!(p, ReadProblem::ProfileField { text } if text.ends_with(' ')),
        ),
        (
            prof,
            b'x',
            |p| matches!(p, ReadProblem::ProfileIntervalType { text } if text.starts_with('x')),
        ),
        (
            prof + 35,
            b'5',
            |p| matches!(p, ReadProblem::ProfileBebits { text } if text == "5"),
        ),
        (
            prof + 5 * 35,
            b'2',
            |p| matches!(p, ReadProblem::ProfileLabelFlag { text } if text == "2"),
        ),
        (prof + 6 * 35, b'x', |p| {
            *p == ReadProblem::ProfileEntryEnd { byte: b'x' }
        }),
    ];
    for (at, v, is) in cases {
        let mut d = data.clone();
        d[at] = v;
        let e = err(&d);
        let (part, p, row) = problem(&e);
        assert!(is(p), "{p:?}");
        assert_eq!((part, row), (Some(Part::Profile), 7));
        assert_eq!(
            e.offset(),
            Some(prof as u64),
            "the entry (or its first field): {e}"
        );
    }
}

#[test]
fn no_byte_flip_panics_and_whatever_parses_writes_back() {
    let data = bytes();
    for i in 0..data.len() {
        for x in [0xff, 0x01, 0x80] {
            let mut d = data.clone();
            d[i] ^= x;
            if let Ok(f) = Slog1File::parse(&d) {
                assert!(f.to_bytes().unwrap() == d, "byte {i} ^ {x:#x}");
                let _ = dump::lines(&f);
                let _ = slog2_format::convert::slog1::drawables(&f);
            }
        }
    }
}

#[test]
fn to_bytes_refuses_models_that_would_not_read_back() {
    let f = built(300);
    let mut g = f.clone();
    g.frames.pop();
    let (frames, entries) = (f.frames.len() - 1, f.frames.len());
    assert!(matches!(
        g.to_bytes(),
        Err(Error::Write(WriteProblem::FramesAndEntries { frames: a, entries: b })) if (a, b) == (frames, entries)
    ));
    let mut g = f.clone();
    g.frames[0].tail.push(0);
    let size = f.header.frame_bytesize;
    assert!(matches!(
        g.to_bytes(),
        Err(Error::Write(WriteProblem::FrameSize { frame: 0, len, frame_bytesize, .. }))
            if len == u64::from(size) + 1 && frame_bytesize == size
    ));
    let mut g = f.clone();
    g.frames[0].cur[0].intvltype = 999;
    let e = g.to_bytes().unwrap_err();
    assert!(
        matches!(&e, Error::Write(WriteProblem::WouldNotReadBack(_))),
        "{e}"
    );
    let mut g = f.clone();
    g.header.fptr2preview = g.header.fptr2threadtable;
    let at = g.header.fptr2threadtable;
    match g.to_bytes().unwrap_err() {
        // The preview and the thread table start at one byte; sorted by
        // offset, the later one in the list overlaps the other.
        Error::Write(WriteProblem::Overlap {
            part,
            at: a,
            previous,
            ..
        }) => {
            assert_eq!(a, at);
            let mut both = [part, previous];
            both.sort();
            assert_eq!(both, [Part::Preview, Part::ThreadTable]);
        }
        e => panic!("{e}"),
    }
}

#[test]
fn build_names_what_it_cannot_place() {
    let base = input();
    let refused = |inp: &BuildInput, opts: BuildOptions| match build(inp, opts) {
        Err(Error::Write(p)) => p,
        other => panic!("{other:?}"),
    };
    let opts = BuildOptions::default();
    assert!(matches!(
        refused(&base, opts.nbin(0)),
        WriteProblem::Bins(0)
    ));
    assert!(matches!(
        refused(&base, opts.nbin(513)),
        WriteProblem::Bins(513)
    ));
    assert!(build(&base, opts.nbin(512)).is_ok() && build(&base, opts.nbin(1)).is_ok());
    assert!(matches!(
        refused(&base, opts.frame_bytesize(65)),
        WriteProblem::FrameTooSmall(65)
    ));
    // Each record problem names the record's index in the input.
    let record = |i: usize, change: &dyn Fn(&mut IntervalRecord)| {
        let mut inp = base.clone();
        change(&mut inp.records[i]);
        match refused(&inp, opts) {
            WriteProblem::Record { index, problem } => {
                assert_eq!(index, i);
                problem
            }
            p => panic!("{p}"),
        }
    };
    assert_eq!(
        record(3, &|r| r.starttime = f64::INFINITY),
        RecordProblem::NotFinite
    );
    assert_eq!(
        record(5, &|r| r.duration = -0.5),
        RecordProblem::NegativeDuration(-0.5)
    );
    assert_eq!(
        record(1, &|r| r.bebits = 2),
        RecordProblem::NoDefinition {
            intvltype: 2,
            bebits: 2
        }
    );
    assert_eq!(
        record(1, &|r| r.args = RecordArgs::Fixed(vec![1])),
        RecordProblem::Mismatch
    );
    // A record longer than the frame: 66 bytes hold a frame header and a
    // 34-byte record, not one with two arguments more.
    let len = base.records[1].disk_len();
    assert!(len > 34 && base.records[0].disk_len() == 34);
    let mut inp = base.clone();
    inp.records.truncate(2);
    assert_eq!(
        match refused(&inp, opts.frame_bytesize(66)) {
            WriteProblem::Record { index, problem } => (index, problem),
            p => panic!("{p}"),
        },
        (
            1,
            RecordProblem::TooLong {
                len,
                frame_bytesize: 66
            }
        )
    );
    // Records that each fit but start at one time and together do not.
    let mut inp = base.clone();
    inp.records = (0..4).map(|n| state(1, 3, 1.0, 0.5, n, vec![])).collect();
    let one = inp.records[0].disk_len();
    let frame = 32 + 3 * one;
    match refused(&inp, opts.frame_bytesize(frame as u32)) {
        WriteProblem::ActiveRecordsOverflow {
            time,
            frame_bytesize,
        } => assert_eq!((time, frame_bytesize), (1.0, frame)),
        p => panic!("{p}"),
    }
    assert!(build(&inp, opts.frame_bytesize(frame as u32 + one as u32)).is_ok());
}
