//! `mpelog export` to Parquet: read back with the `parquet` crate (rows, sort
//! order, row-group time bounds and statistics, typed info columns) and, as a
//! SQL user would, with DuckDB (CI installs it): `count(*)` and a time-filtered
//! count equal to `mpelog window`.
#![cfg(feature = "parquet")]

mod common;

use common::{mpelog, stdout, synth};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::statistics::Statistics;
use parquet::record::Field;
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
