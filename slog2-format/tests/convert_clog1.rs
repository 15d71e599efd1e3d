//! Our old-CLOG (MPE1) → SLOG-2 converter against the real `clogTOslog2` output
//! in the corpus (the same drawables as multisets, categories, line-ID maps and
//! tree shape, a clean `check`), the MPICH-1 CLOG files of the corpus (convert and
//! check clean), and a small hand-built file whose drawables are known exactly.

mod common;

use common::compare::*;

use clog2_format::clog::{
    Body, ClogRecords, ClogWriter, CommEvent, RawEvent, Record, SrcLoc, StateDef,
};
use clog2_format::FixedBytes;
use slog2_format::check::check;
use slog2_format::convert::{clog_to_slog2, ClogDrawables, ConvertStats};
use slog2_format::error::OrderProblem;
use slog2_format::write::{Prim, TreeOptions};
use slog2_format::*;
use std::collections::BTreeMap;
use std::io::Cursor;

fn convert(data: &[u8], leaf_bytes: u32, children: u16) -> (Vec<u8>, ConvertStats) {
    let opts = TreeOptions::default()
        .leaf_bytes(leaf_bytes)
        .children(children);
    let records = ClogRecords::new(data).unwrap();
    let (out, stats) = clog_to_slog2(records, Cursor::new(Vec::new()), opts, |_| {})
        .unwrap_or_else(|e| panic!("conversion failed: {e}"));
    (out.into_inner(), stats)
}

fn check_errors(bytes: &[u8]) -> Vec<String> {
    check(Cursor::new(bytes), 5)
        .into_iter()
        .filter(|f| f.problem.breaks_readers())
        .map(|f| format!("{f:?}"))
        .collect()
}

#[test]
fn fpilog_equals_the_real_converters() {
    let Some(dir) = common::corpus() else { return };
    let hist = dir.join("historic");
    let data = std::fs::read(hist.join("fpilog.clog")).unwrap();
    for (slog, ls, nc) in [
        ("fpilog_fromclog", 65536, 2),
        ("fpilog_fromclog_ls400", 400, 2),
    ] {
        let real_path = hist.join(format!("{slog}.slog2"));
        let real_bytes = std::fs::read(&real_path).unwrap();
        let real = Slog2File::parse(&real_bytes).unwrap();
        let (ours, stats) = convert(&data, ls, nc);
        let mine =
            Slog2File::parse(&ours).unwrap_or_else(|e| panic!("{slog}: ours does not parse: {e}"));

        let (a, b) = (drawables(&mine), drawables(&real));
        let only_ours: Vec<_> = a.iter().filter(|(k, n)| b.get(*k) != Some(n)).collect();
        let only_real: Vec<_> = b.iter().filter(|(k, n)| a.get(*k) != Some(n)).collect();
        assert!(
            only_ours.is_empty() && only_real.is_empty(),
            "{slog}: drawables differ: ours e.g. {:?}; real e.g. {:?}",
            &only_ours[..only_ours.len().min(3)],
            &only_real[..only_real.len().min(3)]
        );
        assert_eq!(
            stats.tree.drawables, 153,
            "{slog}: 114 states and 39 arrows"
        );
        assert_eq!(
            stats.unmatched,
            Default::default(),
            "{slog}: nothing is left unmatched"
        );

        assert_eq!(
            category_defs(&mine),
            category_defs(&real),
            "{slog}: categories"
        );
        // Summaries: the same counts; the float ratios are summed in HashMap order
        // by Java, so they may differ in the last place.
        let sums = summaries(&real);
        for (i, (incl, excl, count)) in summaries(&mine) {
            let (ri, re, rc) = sums[&i];
            assert_eq!(count, rc, "{slog}: category {i} count");
            for (x, y) in [(incl, ri), (excl, re)] {
                assert!(
                    (x - y).abs() <= 1e-6 * y.abs().max(1e-3),
                    "{slog}: category {i} ratio {x} vs {y}"
                );
            }
        }
        assert_eq!(line_maps(&mine), line_maps(&real), "{slog}: line-ID maps");
        assert_eq!(shape(&mine), shape(&real), "{slog}: tree shape");
        assert_eq!(
            mine.header.max_treedepth, real.header.max_treedepth,
            "{slog}: depth"
        );
        assert_eq!(ours.len(), real_bytes.len(), "{slog}: file size");
        assert_eq!(mine.header, real.header, "{slog}: header");

        let errors = check_errors(&ours);
        assert!(errors.is_empty(), "{slog}: check errors {errors:?}");
        eprintln!(
            "{slog}: {} drawables, {} nodes, depth {}, {} bytes (real {})",
            stats.tree.drawables,
            stats.tree.nodes,
            stats.tree.depth,
            ours.len(),
            real_bytes.len()
        );
    }
}

/// The node blocks of the fpilog conversions are byte-identical to Java's, except
/// for the order of shadow weights with equal inclusive ratios (HashMap order in
/// Java, spec/conversion.md §4).
#[test]
fn fpilog_node_blocks_match_the_real_converters() {
    let Some(dir) = common::corpus() else { return };
    let hist = dir.join("historic");
    let data = std::fs::read(hist.join("fpilog.clog")).unwrap();
    let (mut same, mut total) = (0, 0);
    for (slog, ls, nc) in [
        ("fpilog_fromclog", 65536, 2),
        ("fpilog_fromclog_ls400", 400, 2),
    ] {
        let real_bytes = std::fs::read(hist.join(format!("{slog}.slog2"))).unwrap();
        let (ours, _) = convert(&data, ls, nc);
        let (s, t) = node_blocks_match(slog, &ours, &real_bytes);
        same += s;
        total += t;
    }
    eprintln!("{same} of {total} node blocks byte-identical");
}

#[test]
fn mpich1_clog_files_convert_and_check_clean() {
    let Some(dir) = common::corpus() else { return };
    for stem in ["simple", "arrowtest", "nesttest", "fpilog"] {
        let path = dir
            .join("mpich1")
            .join("clog1")
            .join(format!("{stem}.clog"));
        let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for (ls, nc) in [(65536, 2), (400, 2), (1024, 4)] {
            let (ours, stats) = convert(&data, ls, nc);
            let f = Slog2File::parse(&ours)
                .unwrap_or_else(|e| panic!("{stem} -ls {ls}: ours does not parse: {e}"));
            assert_eq!(
                drawables(&f).values().map(|&n| n as u64).sum::<u64>(),
                stats.tree.drawables,
                "{stem}"
            );
            let errors = check_errors(&ours);
            assert!(
                errors.is_empty(),
                "{stem} -ls {ls}: check errors {errors:?}"
            );
            // Every drawable's category is in the legend.
            let cats = category_defs(&f);
            assert!(
                drawables(&f).keys().all(|k| cats.contains_key(&k.0)),
                "{stem}: a drawable without its category"
            );
            if ls == 65536 {
                eprintln!(
                    "{stem}: {} records, {} drawables, {} categories, unmatched {:?}",
                    stats.records, stats.tree.drawables, stats.tree.categories, stats.unmatched
                );
            }
        }
    }
}

fn raw(time: f64, procid: i32, etype: i32, data: i32, string: &str) -> Record {
    Record::new(
        time,
        procid,
        Body::Raw(RawEvent {
            etype,
            data,
            srcloc: 901,
            pad: FixedBytes::ZERO,
            string: FixedBytes::from_str_truncated(string),
        }),
    )
}

fn statedef(time: f64, start: i32, end: i32, color: &str, name: &str) -> Record {
    Record::new(
        time,
        0,
        Body::StateDef(StateDef {
            stateid: 200,
            startetype: start,
            endetype: end,
            pad: FixedBytes::ZERO,
            color: FixedBytes::from_str_truncated(color),
            description: FixedBytes::from_str_truncated(name),
        }),
    )
}

/// A small old-CLOG file exercising each rule of spec/conversion.md §5.
fn small_clog() -> Vec<u8> {
    let mut recs = vec![
        Record::new(
            0.0,
            0,
            Body::SrcLoc(SrcLoc {
                srcloc: 900,
                lineno: 1,
                filename: FixedBytes::from_str_truncated("a.c"),
            }),
        ),
        Record::new(
            0.0,
            0,
            Body::Comm(CommEvent {
                etype: 101,
                parent: -1,
                newcomm: 91,
                srcloc: 900,
            }),
        ),
        // Names user placeholder 181 (events 500/501).
        statedef(0.0, 500, 501, "red", "Work"),
        // Events nothing covers: a new category, 211; the colour is unknown.
        statedef(0.0, 1000, 1001, "no such colour:x", " Extra   "),
    ];
    recs.extend([
        raw(1.0, 0, 500, 0, "start"),
        raw(1.5, 0, 500, 0, "start again"),
        // A send logged before its receive: the send's size.
        raw(2.0, 0, -101, 1, "7 64"),
        raw(2.5, 1, -102, 0, "7 64"),
        // A receive logged before its send: size 0 (Java's quirk).
        raw(3.0, 1, -102, 0, "8 16"),
        raw(3.5, 0, -101, 1, "8 16"),
        // FIFO: the oldest open Work closes first.
        raw(4.0, 0, 501, 0, ""),
        raw(4.5, 0, 501, 0, ""),
        // MPI placeholder 6 (events 11/12), named only at the end.
        raw(5.0, 1, 11, 0, ""),
        raw(5.5, 1, 12, 0, ""),
        // MPI placeholder 7 (events 13/14), never named.
        raw(5.6, 1, 13, 0, ""),
        raw(5.7, 1, 14, 0, ""),
        raw(6.0, 1, 1000, 0, ""),
        raw(6.5, 1, 1001, 0, ""),
        // Ignored: a constant definition and event 0.
        raw(7.0, 0, -201, 0, ""),
        raw(7.0, 0, 0, 0, ""),
        // An event ID nothing declares (Java exits): dropped, counted.
        raw(7.1, 0, 400, 0, ""),
        // A final with nothing open on its line: dropped, counted.
        raw(7.5, 1, 503, 0, ""),
        // Left open at the end.
        raw(8.0, 0, -101, 1, "9 1"),
        raw(8.0, 0, 500, 0, ""),
        // Contradicting: events of two different categories (Java: "**** Error!").
        statedef(9.0, 11, 500, "blue", "Mixed"),
        statedef(9.0, 11, 12, "blue", "Late"),
    ]);
    let mut w = ClogWriter::new(Vec::new(), 1024).unwrap();
    for r in &recs {
        w.push(r).unwrap();
    }
    w.finish().unwrap()
}

#[test]
fn small_file_gives_the_expected_drawables() {
    let data = small_clog();
    let arrow_info = |tag: i32, size: i32| {
        let mut v = tag.to_be_bytes().to_vec();
        v.extend_from_slice(&size.to_be_bytes());
        v
    };
    let st = |cat: i32, a: f64, b: f64, line: i32| {
        Prim::two(cat, topology::STATE, (a, line), (b, line), &[])
    };
    let ar = |from: (f64, i32), to: (f64, i32), tag: i32, size: i32| {
        Prim::two(0, topology::ARROW, from, to, &arrow_info(tag, size))
    };
    let expected = vec![
        ar((2.0, 0), (2.5, 1), 7, 64),
        ar((3.5, 0), (3.0, 1), 8, 0),
        st(181, 1.0, 4.0, 0),
        st(181, 1.5, 4.5, 0),
        st(6, 5.0, 5.5, 1),
        st(7, 5.6, 5.7, 1),
        st(211, 6.0, 6.5, 1),
    ];

    // The drawables, in the order they complete.
    let mut events = ClogDrawables::new();
    let mut got = Vec::new();
    for item in clog2_format::clog::ClogRecords::new(&data).unwrap() {
        let (rec, _) = item.unwrap();
        got.extend(events.push(&rec));
    }
    assert!(events.ended());
    assert_eq!(got, expected);
    let (cats, maps, u) = events.finish();
    assert!(
        maps.is_empty(),
        "only the identity map, which the tree adds"
    );
    assert_eq!(u.state_starts, 1);
    assert_eq!(u.state_finals, 1);
    assert_eq!(u.sends, 1);
    assert_eq!(u.recvs, 0);
    assert_eq!(u.undeclared_events, 1);
    assert_eq!(u.conflicting_definitions, 1);
    assert_eq!(u.undeclared_timelines, 0);
    // Java's count: the open send, and the open Work state (its category was
    // handed out by one STATEDEF).
    assert_eq!(u.java_count, 2);
    let names: BTreeMap<i32, String> = cats.iter().map(|c| (c.index, c.name.text())).collect();
    assert_eq!(names.get(&6).map(String::as_str), Some("Late"));
    assert_eq!(names.get(&7).map(String::as_str), Some("UnknownType-7"));
    assert_eq!(names.get(&181).map(String::as_str), Some("Work"));
    assert_eq!(names.get(&211).map(String::as_str), Some("Extra"));

    // The file: the same drawables, the categories, the identity map.
    let (ours, stats) = convert(&data, 65536, 2);
    assert_eq!(stats.tree.drawables, expected.len() as u64);
    assert_eq!(stats.unmatched, u);
    let f = Slog2File::parse(&ours).unwrap();
    let mut want = BTreeMap::new();
    for p in &expected {
        let q = p.to_primitive();
        let k: Key = (
            q.category,
            q.vertices
                .iter()
                .map(|v| (v.time.to_bits(), v.line_id))
                .collect(),
            q.info.bytes,
        );
        *want.entry(k).or_insert(0) += 1;
    }
    assert_eq!(drawables(&f), want);
    let cats = category_defs(&f);
    let keys: Vec<i32> = cats.keys().copied().collect();
    assert_eq!(keys, [-3, -2, 0, 6, 7, 181, 211]);
    let state = |name: &str, argb: [u8; 4]| -> CategoryDef {
        (name.into(), topology::STATE, argb, 1, vec![], vec![])
    };
    assert_eq!(
        cats[&0],
        (
            "message".into(),
            topology::ARROW,
            [255, 255, 255, 255],
            3,
            vec!["msg_tag=".into(), ", msg_size=".into(), "".into()],
            b"dd".to_vec()
        )
    );
    assert_eq!(cats[&6], state("Late", [255, 0, 0, 255]));
    assert_eq!(cats[&181], state("Work", [255, 255, 0, 0]));
    assert_eq!(cats[&7].0, "UnknownType-7");
    assert_eq!(cats[&211].0, "Extra");
    // Java's default colours in the order it asks (spec/conversion.md §2.1
    // item 5): 211's unknown colour at its STATEDEF, then UnknownType-6 (later
    // renamed and recoloured by "Late") and UnknownType-7 at their first drawables.
    assert_eq!(cats[&211].2, [255, 0, 51, 255]);
    assert_eq!(cats[&7].2, [255, 0, 102, 51]);
    let maps = line_maps(&f);
    assert_eq!(maps.maps.len(), 1);
    assert_eq!(maps.maps[0].title.text(), "Identity Map");
    let lines: Vec<i32> = maps.maps[0].rows.iter().map(|r| r.line_id).collect();
    assert_eq!(lines, [0, 1]);
    let errors = check_errors(&ours);
    assert!(errors.is_empty(), "check errors {errors:?}");
}

#[test]
fn bad_inputs_give_clear_errors() {
    let opts = TreeOptions::default().leaf_bytes(65536).children(2);
    let convert = |data: &[u8]| {
        let records = ClogRecords::new(data).unwrap();
        clog_to_slog2(records, Cursor::new(Vec::new()), opts, |_| {})
    };
    // A structure error met while converting: the last block cut off, so the
    // records end with an ENDBLOCK.
    let mut w = ClogWriter::new(Vec::new(), 1024).unwrap();
    for i in 0..60 {
        w.push(&raw(f64::from(i), 0, 1 + i % 2, 0, "")).unwrap();
    }
    let data = w.finish().unwrap();
    assert!(data.len() >= 3 * 1024);
    let cut = &data[..data.len() - 1024];
    let e = convert(cut).unwrap_err();
    assert!(
        matches!(&e, Error::Clog2(c) if matches!(**c, clog2_format::Error::MissingEndLog { offset } if offset == cut.len() as u64)),
        "{e}"
    );
    // A valid file without drawables.
    let mut w = ClogWriter::new(Vec::new(), 1024).unwrap();
    w.push(&statedef(0.0, 1, 2, "red", "X")).unwrap();
    let data = w.finish().unwrap();
    let e = convert(&data).unwrap_err();
    assert!(matches!(e, slog2_format::Error::Empty), "{e}");
    // Drawables out of end-time order are refused, not reordered.
    let mut w = ClogWriter::new(Vec::new(), 1024).unwrap();
    for r in [
        raw(1.0, 0, 1, 0, ""),
        raw(3.0, 0, 2, 0, ""),
        raw(0.5, 1, 1, 0, ""),
        raw(2.0, 1, 2, 0, ""),
    ] {
        w.push(&r).unwrap();
    }
    let data = w.finish().unwrap();
    let e = convert(&data).unwrap_err();
    // The fourth record (at byte 3·56) closes [0.5, 2.0] after [1.0, 3.0].
    let Error::OutOfOrder { offset, .. } = &e else {
        panic!("{e}")
    };
    assert_eq!(*offset, 3 * 56, "{e}");
    let Error::OutOfOrder { problem, .. } = &e else {
        unreachable!()
    };
    assert_eq!(
        *problem,
        OrderProblem::BeforePrevious { previous_end: 3.0 },
        "{e}"
    );
}
