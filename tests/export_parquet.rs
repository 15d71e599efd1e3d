//! `mpelog export` to Parquet: read back with the `parquet` crate (rows, sort
//! order, row-group time bounds and statistics, typed info columns) and, as a
//! SQL user would, with DuckDB (CI installs it): `count(*)` and a time-filtered
//! count equal to `mpelog window`; and a file made by hand whose every cell,
//! column type and row group is compared with what it must be.
#![cfg(feature = "parquet")]

mod common;

use common::{mpelog, stdout, synth};
use parquet::basic::{ConvertedType, Repetition, Type as PhysicalType};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::statistics::Statistics;
use parquet::record::Field;
use slog2_format::types::{topology, Category, JStr};
use slog2_format::Slog2Reader;
use std::io::Cursor;
use std::path::Path;

/// A generated trace converted to SLOG-2 in `dir`.
fn trace(dir: &Path) -> String {
    let clog2 = synth(dir, "t.clog2", &["--events", "60000", "--seed", "9"]);
    let slog2 = dir.join("t.slog2");
    let slog2 = slog2.to_str().unwrap().to_string();
    assert!(mpelog(&["convert", &clog2, "-o", &slog2]).status.success());
    slog2
}

/// The drawable count `mpelog window` gives for `[from, to)` (whole file when
/// both are `None`).
fn window_count(slog2: &str, from: Option<f64>, to: Option<f64>) -> u64 {
    let (f, t) = (from.map(|x| x.to_string()), to.map(|x| x.to_string()));
    let mut args = vec!["window", slog2];
    if let (Some(f), Some(t)) = (&f, &t) {
        args.extend(["--from", f.as_str(), "--to", t.as_str()]);
    }
    let text = stdout(&mpelog(&args));
    let last = text.lines().last().unwrap();
    last.rsplit("drawables=").next().unwrap().parse().unwrap()
}

/// Runs the Python `body` with `import duckdb` done and `arg` as `sys.argv[1]`,
/// and gives what it printed; `None` (after saying so) when DuckDB is not
/// installed, which fails under CI (`.ci/run` installs it).
fn duckdb(body: &str, arg: &Path) -> Option<String> {
    let script = format!(
        "import sys\ntry:\n    import duckdb\nexcept ImportError:\n    print(\"NO-DUCKDB\"); sys.exit(0)\n{body}"
    );
    let o = std::process::Command::new("python3")
        .args(["-c", &script, arg.to_str().unwrap()])
        .output()
        .expect("python3 runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    if text.trim() == "NO-DUCKDB" {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI installs duckdb (.ci/run)"
        );
        eprintln!("duckdb is not installed: the DuckDB read was skipped");
        return None;
    }
    Some(text)
}

#[test]
fn rows_sorted_in_bounded_row_groups_with_statistics() {
    let dir = tempfile::tempdir().unwrap();
    let slog2 = trace(dir.path());
    let out = dir.path().join("t.parquet");
    let o = mpelog(&["export", &slog2, "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let r = SerializedFileReader::new(std::fs::File::open(&out).unwrap()).unwrap();
    let meta = r.metadata();
    let rows = meta.file_metadata().num_rows() as u64;
    assert_eq!(
        rows,
        window_count(&slog2, None, None),
        "one row per drawable"
    );
    assert!(
        meta.num_row_groups() > 4,
        "several row groups ({})",
        meta.num_row_groups()
    );
    let schema = meta.file_metadata().schema_descr();
    let col = |name: &str| {
        (0..schema.num_columns())
            .find(|&i| schema.column(i).name() == name)
            .unwrap_or_else(|| panic!("column {name}"))
    };
    let start = col("start");
    assert!(col("info_msg_size") > start);
    let mut previous_max = f64::NEG_INFINITY;
    let mut span = (f64::INFINITY, f64::NEG_INFINITY);
    for g in meta.row_groups() {
        let Some(Statistics::Double(s)) = g.column(start).statistics() else {
            panic!("start has statistics in every row group");
        };
        let (lo, hi) = (*s.min_opt().unwrap(), *s.max_opt().unwrap());
        assert!(lo >= previous_max, "row groups in start order");
        previous_max = hi;
        span = (span.0.min(lo), span.1.max(hi));
    }
    // Time-bounded groups: none spans more than 1/256 of the trace (plus the
    // gap to its first row).
    for g in meta.row_groups() {
        let Some(Statistics::Double(s)) = g.column(start).statistics() else {
            unreachable!()
        };
        assert!(s.max_opt().unwrap() - s.min_opt().unwrap() <= (span.1 - span.0) / 256.0 * 1.0001);
    }
    // Rows in start order; arrows carry their size typed.
    let mut last = f64::NEG_INFINITY;
    let (mut arrows, mut sized) = (0, 0);
    for row in r.get_row_iter(None).unwrap() {
        let row = row.unwrap();
        let mut kind = String::new();
        for (name, value) in row.get_column_iter() {
            match (name.as_str(), value) {
                ("start", Field::Double(t)) => {
                    assert!(*t >= last);
                    last = *t;
                }
                ("kind", Field::Str(k)) => kind = k.clone(),
                ("info_msg_size", Field::Long(n)) => {
                    assert!(*n >= 0);
                    sized += 1;
                }
                _ => {}
            }
        }
        arrows += u64::from(kind == "arrow");
    }
    assert!(arrows > 0);
    assert_eq!(sized, arrows, "every MPE arrow has msg_size, typed");
}

#[test]
fn duckdb_counts_equal_mpelog_window() {
    let dir = tempfile::tempdir().unwrap();
    let slog2 = trace(dir.path());
    let out = dir.path().join("t.parquet");
    assert!(mpelog(&["export", &slog2, "-o", out.to_str().unwrap()])
        .status
        .success());
    let r = SerializedFileReader::new(std::fs::File::open(&out).unwrap()).unwrap();
    let rows = r.metadata().file_metadata().num_rows() as u64;
    // A window in the middle of the trace.
    let text = stdout(&mpelog(&["info", &slog2, "--json"]));
    let info: serde_json::Value = serde_json::from_str(&text).unwrap();
    let (t0, t1) = (
        info["time_min"].as_f64().unwrap(),
        info["time_max"].as_f64().unwrap(),
    );
    let (a, b) = (t0 + 0.4 * (t1 - t0), t0 + 0.45 * (t1 - t0));
    let want = window_count(&slog2, Some(a), Some(b));
    assert!(want > 0);
    let body = format!(
        r#"f = sys.argv[1]
total = duckdb.sql(f"select count(*) from '{{f}}'").fetchall()[0][0]
inside = duckdb.sql(f"select count(*) from '{{f}}' where start < {b:?} and \"end\" >= {a:?}").fetchall()[0][0]
print(total, inside)
"#
    );
    let Some(text) = duckdb(&body, &out) else {
        return;
    };
    let got: Vec<u64> = text
        .split_whitespace()
        .map(|x| x.parse().unwrap())
        .collect();
    assert_eq!(got, vec![rows, want]);
}

/// The `start` column of a Parquet file, in row order.
fn starts(path: &Path) -> Vec<f64> {
    let r = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    let schema = r.metadata().file_metadata().schema_descr();
    let i = (0..schema.num_columns())
        .find(|&i| schema.column(i).name() == "start")
        .unwrap();
    r.get_row_iter(None)
        .unwrap()
        .map(
            |row| match row.unwrap().get_column_iter().nth(i).unwrap().1 {
                Field::Double(x) => *x,
                other => panic!("start is {other:?}"),
            },
        )
        .collect()
}

#[test]
fn a_directory_output_is_a_dataset_of_parts_in_time_order() {
    let dir = tempfile::tempdir().unwrap();
    let slog2 = trace(dir.path());
    let total = window_count(&slog2, None, None);
    let ds = dir.path().join("ds");
    let arg = format!("{}/", ds.display());
    let part_rows = (total / 3).to_string();
    let o = mpelog(&["export", &slog2, "-o", &arg, "--part-rows", &part_rows]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut parts: Vec<_> = std::fs::read_dir(&ds)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    parts.sort();
    assert_eq!(
        parts,
        [
            "part-00000.parquet",
            "part-00001.parquet",
            "part-00002.parquet",
            "part-00003.parquet"
        ][..parts.len()]
    );
    assert!(parts.len() >= 3, "{parts:?}");
    let mut all = Vec::new();
    for p in &parts {
        let s = starts(&ds.join(p));
        assert!(
            !s.is_empty() && s.len() as u64 <= total / 3 + 1,
            "{p}: {} rows",
            s.len()
        );
        all.extend(s);
    }
    assert_eq!(
        all.len() as u64,
        total,
        "every drawable once across the parts"
    );
    assert!(
        all.windows(2).all(|w| w[0] <= w[1]),
        "start order across the parts"
    );
    // No temporary directory is left beside it.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.contains("mpelog-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");

    // A non-empty directory is never written into; an empty one is filled.
    let o = mpelog(&["export", &slog2, "-o", ds.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(std::fs::read_dir(&ds).unwrap().count(), parts.len());
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let o = mpelog(&["export", &slog2, "-o", empty.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        starts(&empty.join("part-00000.parquet")).len() as u64,
        total
    );

    // DuckDB reads the dataset as one table.
    let body =
        "print(duckdb.sql(f\"select count(*) from '{sys.argv[1]}/*.parquet'\").fetchall()[0][0])";
    let Some(text) = duckdb(body, &ds) else {
        return;
    };
    assert_eq!(text.trim().parse::<u64>().unwrap(), total);
}

/// A big-endian info buffer: `i32` values for `d`, `i16` for `h`, `i64` for
/// `l`, `f32` for `e`, `f64` for `E`, a 2-byte length and the bytes for `s`.
fn info(values: &[Info]) -> Vec<u8> {
    let mut out = Vec::new();
    for v in values {
        match v {
            Info::H(x) => out.extend(x.to_be_bytes()),
            Info::D(x) => out.extend(x.to_be_bytes()),
            Info::L(x) => out.extend(x.to_be_bytes()),
            Info::E(x) => out.extend(x.to_be_bytes()),
            Info::BigE(x) => out.extend(x.to_be_bytes()),
            Info::S(s) => {
                out.extend((s.len() as i16).to_be_bytes());
                out.extend(s.as_bytes());
            }
        }
    }
    out
}

/// One info value of [`info`].
enum Info {
    H(i16),
    D(i32),
    L(i64),
    E(f32),
    BigE(f64),
    S(&'static str),
}

/// A legend entry with info labels and formats.
fn labelled(index: i32, topo: i32, keys: &[&str], types: &[u8]) -> Category {
    let mut c = common::category(index, topo);
    c.keys = keys.iter().map(|k| JStr::new(k)).collect();
    c.types = types.to_vec();
    c
}

/// The legend of [`made`]: labels that clash (`count` twice as an integer,
/// `load` as a float and as text, `x` as a float and an integer), labels
/// that need cleaning (`Count: `, ` who=`), one without a label, and every
/// integer and float width.
fn legend() -> Vec<Category> {
    vec![
        labelled(1, topology::STATE, &["count=", ", load="], b"dE"),
        labelled(2, topology::STATE, &["Count: ", " who="], b"hs"),
        labelled(3, topology::EVENT, &["load="], b"s"),
        labelled(4, topology::ARROW, &["", " Tag="], b"ld"),
        labelled(5, topology::EVENT, &["x="], b"e"),
        labelled(6, topology::STATE, &["X "], b"d"),
    ]
}

/// A SLOG-2 file of nine drawables from 100 s to 356 s (a 256 s span: row
/// groups of 1 s), one per category of [`legend`], one of a category the
/// legend lacks, one whose info does not decode and one without info. Their
/// starts are 0.5, 1 (exactly a row group's span: no new group), 1.25, 2.25,
/// 2.5, 3, 4 and 5 + 1/512 s after the first.
fn made() -> Vec<u8> {
    use slog2_format::write::{identity_map, Prim, TreeOptions, TreeWriter};
    let state = |k: i32, line: i32, a: f64, b: f64, i: &[u8]| {
        Prim::two(k, topology::STATE, (a, line), (b, line), i)
    };
    let mut prims = vec![
        state(1, 0, 100.0, 356.0, &info(&[Info::D(7), Info::BigE(0.5)])),
        Prim::event(3, 100.5, 1, &info(&[Info::S("high")])),
        Prim::two(
            4,
            topology::ARROW,
            (101.0, 1),
            (101.75, 2),
            &info(&[Info::L(-5_000_000_000), Info::D(31)]),
        ),
        state(
            2,
            2,
            101.25,
            101.5,
            &info(&[Info::H(3), Info::S("rank two")]),
        ),
        Prim::event(5, 102.25, 0, &info(&[Info::E(0.25)])),
        state(6, 1, 102.5, 110.0, &info(&[Info::D(-2)])),
        state(7, 2, 103.0, 104.0, &[0xab, 0x01]),
        state(1, 2, 104.0, 105.0, &[1, 2, 3]),
        state(2, 0, 105.001953125, 106.0, &[]),
    ];
    prims.sort_by(|p, q| p.latest().total_cmp(&q.latest()));
    let mut w = TreeWriter::new(Cursor::new(Vec::new()), TreeOptions::default()).unwrap();
    for p in prims {
        w.add(p).unwrap();
    }
    // Category 7 is in the file (which must name every category) but not
    // in the legend the exports below are given.
    let mut file_legend = legend();
    file_legend.push(common::category(7, topology::STATE));
    let (out, _) = w
        .finish(&file_legend, vec![identity_map([0, 1, 2])])
        .unwrap();
    out.into_inner()
}

/// The columns [`made`]'s file exports to: (name, physical type, text,
/// nullable).
fn made_schema() -> Vec<(String, PhysicalType, bool, bool)> {
    use PhysicalType::{BYTE_ARRAY, DOUBLE, INT32, INT64};
    [
        ("kind", BYTE_ARRAY, true, false),
        ("category", INT32, false, false),
        ("name", BYTE_ARRAY, true, false),
        ("start", DOUBLE, false, false),
        ("end", DOUBLE, false, false),
        ("duration", DOUBLE, false, false),
        ("start_line", INT32, false, false),
        ("end_line", INT32, false, false),
        ("info", BYTE_ARRAY, true, true),
        // Category 1's labels, then 2's `who` (its `Count` is the same
        // integer column), 3's `load` as text, 4's unlabelled value and
        // `Tag`, 5's float `x` and 6's integer `X`.
        ("info_count", INT64, false, true),
        ("info_load", DOUBLE, false, true),
        ("info_who", BYTE_ARRAY, true, true),
        ("info_load_text", BYTE_ARRAY, true, true),
        ("arg0", INT64, false, true),
        ("info_tag", INT64, false, true),
        ("info_x", DOUBLE, false, true),
        ("info_x_int", INT64, false, true),
    ]
    .into_iter()
    .map(|(n, t, text, null)| (n.to_string(), t, text, null))
    .collect()
}

/// [`made`]'s drawables as rows, in start order: every column's value.
fn made_rows() -> Vec<Vec<Field>> {
    let s = |x: &str| Field::Str(x.to_string());
    let n = || Field::Null;
    // kind, category, name, start, end, line of each end, info text, then the
    // typed columns of [`made_schema`].
    let row = |kind: &str,
               k: i32,
               name: &str,
               (a, b): (f64, f64),
               (la, lb): (i32, i32),
               text: Option<&str>,
               typed: [Field; 8]| {
        let mut r = vec![
            s(kind),
            Field::Int(k),
            s(name),
            Field::Double(a),
            Field::Double(b),
            Field::Double(b - a),
            Field::Int(la),
            Field::Int(lb),
            text.map_or(Field::Null, s),
        ];
        r.extend(typed);
        r
    };
    use Field::{Double as F, Long as I};
    vec![
        row(
            "state",
            1,
            "c1",
            (100.0, 356.0),
            (0, 0),
            Some("count=7, load=0.5"),
            [I(7), F(0.5), n(), n(), n(), n(), n(), n()],
        ),
        row(
            "event",
            3,
            "c3",
            (100.5, 100.5),
            (1, 1),
            Some("load=high"),
            [n(), n(), n(), s("high"), n(), n(), n(), n()],
        ),
        row(
            "arrow",
            4,
            "c4",
            (101.0, 101.75),
            (1, 2),
            Some("arg0=-5000000000, Tag=31"),
            [n(), n(), n(), n(), I(-5_000_000_000), I(31), n(), n()],
        ),
        row(
            "state",
            2,
            "c2",
            (101.25, 101.5),
            (2, 2),
            Some("Count=3, who=rank two"),
            [I(3), n(), s("rank two"), n(), n(), n(), n(), n()],
        ),
        row(
            "event",
            5,
            "c5",
            (102.25, 102.25),
            (0, 0),
            Some("x=0.25"),
            [n(), n(), n(), n(), n(), n(), F(0.25), n()],
        ),
        row(
            "state",
            6,
            "c6",
            (102.5, 110.0),
            (1, 1),
            Some("X=-2"),
            [n(), n(), n(), n(), n(), n(), n(), I(-2)],
        ),
        row(
            "state",
            7,
            "category 7",
            (103.0, 104.0),
            (2, 2),
            Some("info=ab01"),
            [n(), n(), n(), n(), n(), n(), n(), n()],
        ),
        row(
            "state",
            1,
            "c1",
            (104.0, 105.0),
            (2, 2),
            Some("info=010203"),
            [n(), n(), n(), n(), n(), n(), n(), n()],
        ),
        row(
            "state",
            2,
            "c2",
            (105.001953125, 106.0),
            (0, 0),
            None,
            [n(), n(), n(), n(), n(), n(), n(), n()],
        ),
    ]
}

/// A Parquet file's columns (as [`made_schema`]), its row groups' row counts
/// and its rows, read back with the `parquet` crate's record reader.
type Read = (
    Vec<(String, PhysicalType, bool, bool)>,
    Vec<i64>,
    Vec<Vec<Field>>,
);

fn read_back(bytes: Vec<u8>) -> Read {
    let mut file = tempfile::tempfile().unwrap();
    std::io::Write::write_all(&mut file, &bytes).unwrap();
    let r = SerializedFileReader::new(file).unwrap();
    let meta = r.metadata();
    let schema = meta.file_metadata().schema_descr();
    let columns = (0..schema.num_columns())
        .map(|i| {
            let c = schema.column(i);
            let t = c.self_type();
            (
                c.name().to_string(),
                c.physical_type(),
                t.get_basic_info().converted_type() == ConvertedType::UTF8,
                t.get_basic_info().repetition() == Repetition::OPTIONAL,
            )
        })
        .collect();
    let groups = meta.row_groups().iter().map(|g| g.num_rows()).collect();
    let rows = r
        .get_row_iter(None)
        .unwrap()
        .map(|row| {
            row.unwrap()
                .get_column_iter()
                .map(|(_, v)| v.clone())
                .collect()
        })
        .collect();
    (columns, groups, rows)
}

/// Every cell of a hand-made file's export, its columns' names and types
/// (labels cleaned, clashing ones split by type) and its row groups: 1/256 of
/// the trace from its first start each (a start exactly that far stays in
/// the group).
#[test]
fn every_value_and_row_group_of_a_made_file() {
    let bytes = made();
    let mut r = Slog2Reader::new(Cursor::new(&bytes[..])).unwrap();
    let cats = legend();
    let (rows, out) = mpelog::export::parquet::export(
        &mut r,
        &cats,
        &mpelog::export::Options::default(),
        Vec::new(),
    )
    .unwrap();
    assert_eq!(rows, 9);
    let (columns, groups, got) = read_back(out);
    assert_eq!(columns, made_schema());
    assert_eq!(groups, [3, 2, 2, 1, 1]);
    let want = made_rows();
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "row {i}");
    }
}

/// A window's export: the drawables that meet it (whole, not clipped), in
/// row groups of 1/256 of the window.
#[test]
fn a_windows_row_groups_are_its_span_over_256() {
    let bytes = made();
    let mut r = Slog2Reader::new(Cursor::new(&bytes[..])).unwrap();
    let cats = legend();
    // [101, 357): 1 s row groups; all but the event at 100.5 s meet it.
    let opts = mpelog::export::Options::default().window(Some(101.0), Some(357.0));
    let (rows, out) = mpelog::export::parquet::export(&mut r, &cats, &opts, Vec::new()).unwrap();
    assert_eq!(rows, 8);
    let (columns, groups, got) = read_back(out);
    assert_eq!(columns, made_schema());
    let mut want = made_rows();
    want.remove(1);
    assert_eq!(got, want);
    // 100 and 101; 101.25 and 102.25; 102.5 and 103; 104; 105 + 1/512.
    assert_eq!(groups, [2, 2, 2, 1, 1]);
}

/// A dataset of parts of 4 rows: parts opened and closed in turn (0, 1, 2),
/// each part's rows the next 4 in start order, a part's last row group cut
/// short where the part ends.
#[test]
fn parts_of_a_made_file_hold_the_rows_in_turn() {
    let bytes = made();
    let mut r = Slog2Reader::new(Cursor::new(&bytes[..])).unwrap();
    let cats = legend();
    let mut opened = Vec::new();
    let mut closed: Vec<(usize, Vec<u8>)> = Vec::new();
    let rows = mpelog::export::parquet::write_parts(
        &mut r,
        &cats,
        &mpelog::export::Options::default(),
        4,
        |i| {
            opened.push(i);
            Ok(Vec::new())
        },
        |i, w| {
            closed.push((i, w));
            Ok(())
        },
    )
    .unwrap();
    assert_eq!(rows, 9);
    assert_eq!(opened, [0, 1, 2]);
    assert_eq!(closed.iter().map(|c| c.0).collect::<Vec<_>>(), [0, 1, 2]);
    let want = made_rows();
    let groups: [&[i64]; 3] = [&[3, 1], &[3, 1], &[1]];
    for (((_, part), want), groups) in closed.into_iter().zip(want.chunks(4)).zip(groups) {
        let (columns, g, got) = read_back(part);
        assert_eq!(columns, made_schema());
        assert_eq!(g, groups);
        assert_eq!(got, want);
    }
}

/// A CLOG2 trace (read in two passes, no SLOG-2 file in between) exports
/// the same Parquet file, byte for byte, as its conversion to SLOG-2, for
/// the whole trace, a middle window, and with a sort memory so small that
/// the reading falls back to sorted runs.
#[test]
fn a_clog2_exports_the_parquet_of_its_converted_file() {
    let dir = tempfile::tempdir().unwrap();
    let slog2 = trace(dir.path());
    let clog2 = dir.path().join("t.clog2");
    let clog2 = clog2.to_str().unwrap();
    let (t0, t1) = {
        use mpelog::export::Ordered;
        let r = Slog2Reader::new(std::fs::File::open(&slog2).unwrap()).unwrap();
        let whole = r.span(None, None);
        (whole.from, whole.to)
    };
    let (a, b) = (t0 + (t1 - t0) * 0.3, t0 + (t1 - t0) * 0.6);
    let (a, b) = (a.to_string(), b.to_string());
    let window: &[&str] = &["--from", &a, "--to", &b];
    for extra in [&[][..], window, &["--sort-memory", "4096"][..]] {
        let export = |input: &str, name: &str| {
            let out = dir.path().join(name);
            let mut args = vec!["export", input, "-o", out.to_str().unwrap()];
            args.extend_from_slice(extra);
            let o = mpelog(&args);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            std::fs::read(out).unwrap()
        };
        let from_clog2 = export(clog2, "c.parquet");
        let from_slog2 = export(&slog2, "s.parquet");
        assert!(from_clog2.len() > 1000);
        assert!(
            from_clog2 == from_slog2,
            "{extra:?}: the CLOG2's Parquet differs from its SLOG-2's"
        );
    }
}
