//! `Trace::window_columns` gives the rows of `Trace::pieces` (the Parquet
//! export's rows): the same rows in the same order, for windows anywhere in
//! a tree of many levels, asked again and again of one `Trace` (whose query
//! buffer is reused) and of a format without a tree.

mod common;

use mpelog::export::Options;
use mpelog::Trace;
use std::path::Path;

/// One row as the columns hold it: category, name, start, end, duration,
/// start and end line, whether it has info.
type Row = (i32, String, f64, f64, f64, i32, i32, bool);

fn rows_of_columns(t: &mut Trace, from: f64, to: f64) -> Vec<Row> {
    let c = t.window_columns(Some(from), Some(to)).unwrap();
    assert_eq!(c.kind.offsets.len(), c.len() + 1);
    assert_eq!(c.info.valid.bits.len(), c.len().div_ceil(8));
    for (_, typed) in &c.typed {
        let n = match typed {
            mpelog::trace::TypedColumn::Int(v, ok) => (v.len(), ok.bits.len()),
            mpelog::trace::TypedColumn::Float(v, ok) => (v.len(), ok.bits.len()),
            mpelog::trace::TypedColumn::Text(t) => (t.offsets.len() - 1, t.valid.bits.len()),
            _ => unreachable!(),
        };
        assert_eq!(
            n,
            (c.len(), c.len().div_ceil(8)),
            "every typed column has every row"
        );
    }
    (0..c.len())
        .map(|i| {
            (
                c.category[i],
                c.name.get(i).unwrap().to_string(),
                c.start[i],
                c.end[i],
                c.duration[i],
                c.start_line[i],
                c.end_line[i],
                c.info.get(i).is_some(),
            )
        })
        .collect()
}

fn rows_of_pieces(t: &mut Trace, from: f64, to: f64) -> Vec<Row> {
    let mut rows = Vec::new();
    let opts = Options::default().window(Some(from), Some(to));
    t.pieces(&opts, &mut |legend, p| {
        let name = legend
            .iter()
            .rev()
            .find(|c| c.index == p.category)
            .map_or(format!("category {}", p.category), |c| c.name.text());
        rows.push((
            p.category,
            name,
            p.start,
            p.end,
            p.end - p.start,
            p.first.1,
            p.last.1,
            !p.info.is_empty(),
        ));
    })
    .unwrap();
    rows
}

/// Windows of every size, from a sliver to the whole trace, and the same
/// windows again in the other order.
fn windows(t: &mut Trace) -> Vec<(f64, f64)> {
    let info = t.info().unwrap();
    let (a, b) = (info.start, info.end);
    let mut w: Vec<(f64, f64)> = [
        (0.0, 1.01),
        (0.5, 0.0001),
        (0.1, 0.05),
        (0.97, 0.2),
        (0.33, 0.3),
    ]
    .iter()
    .map(|&(x, width)| (a + (b - a) * x, a + (b - a) * (x + width)))
    .collect();
    w.push((a - 1.0, a - 0.5)); // before the start: no rows
    let back: Vec<_> = w.iter().rev().copied().collect();
    w.extend(back);
    w
}

fn same_rows(path: &Path) {
    let mut t = Trace::open(path).unwrap();
    let mut total = 0;
    for (from, to) in windows(&mut t) {
        let got = rows_of_columns(&mut t, from, to);
        let want = rows_of_pieces(&mut Trace::open(path).unwrap(), from, to);
        assert_eq!(got, want, "{} [{from}, {to})", path.display());
        total += got.len();
    }
    assert!(total > 1000, "{total} rows in all");
}

#[test]
fn a_deep_trees_windows_are_the_pieces() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deep.slog2");
    // Small leaves: many levels, drawables in upper nodes.
    std::fs::write(&path, common::generated_slog2(11, 20_000, 2048)).unwrap();
    same_rows(&path);
}

#[test]
fn a_format_without_a_tree_gives_the_same_rows() {
    let dir = tempfile::tempdir().unwrap();
    let clog2 = common::synth(dir.path(), "s.clog2", &["--events", "8000"]);
    same_rows(Path::new(&clog2));
    let mut t = Trace::open(&clog2).unwrap();
    t.window_columns(None, None).unwrap();
    assert!(!t.is_converted(), "read in one pass, not converted");
}

#[test]
fn a_bad_window_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.slog2");
    std::fs::write(&path, common::generated_slog2(3, 2000, 65536)).unwrap();
    let mut t = Trace::open(&path).unwrap();
    for (from, to) in [
        (Some(1.0), Some(1.0)),
        (Some(f64::NAN), None),
        (None, Some(f64::INFINITY)),
    ] {
        let e = t.window_columns(from, to).unwrap_err();
        assert!(matches!(e, mpelog::trace::Error::BadWindow { .. }), "{e}");
    }
}

/// Columns of a selection ([`mpelog::trace::Select`]) are the full columns
/// less those left out: the same rows, `info` null throughout without it,
/// the typed columns asked for and no other; selections changing from query
/// to query of one `Trace`.
fn selected_are_the_full_columns(path: &Path) {
    use mpelog::trace::Select;
    let selects = [
        Select::default().info(false),
        Select::default().typed::<&str>([]),
        Select::default()
            .info(false)
            .typed(["info_msg_size", "no such column"]),
        Select::default().typed(["info_msg_tag", "info_msg_size"]),
        Select::default(),
    ];
    let mut full = Trace::open(path).unwrap();
    let mut t = Trace::open(path).unwrap();
    let (mut typed_seen, mut info_seen) = (0, 0);
    for (k, (from, to)) in windows(&mut full).into_iter().enumerate() {
        let select = &selects[k % selects.len()];
        let all = full.window_columns(Some(from), Some(to)).unwrap();
        let got = t.window_columns_with(Some(from), Some(to), select).unwrap();
        let at = format!("{} [{from}, {to}) {select:?}", path.display());
        assert_eq!(
            (&got.kind, &got.category, &got.name, &got.start, &got.end),
            (&all.kind, &all.category, &all.name, &all.start, &all.end),
            "{at}"
        );
        assert_eq!(
            (&got.duration, &got.start_line, &got.end_line),
            (&all.duration, &all.start_line, &all.end_line),
            "{at}"
        );
        if select.makes_info() {
            assert_eq!(got.info, all.info, "{at}");
            info_seen += (0..all.len())
                .filter(|&i| all.info.get(i).is_some())
                .count();
        } else {
            assert_eq!(got.info.offsets, vec![0; got.len() + 1], "{at}");
            assert_eq!(got.info.valid.nulls, got.len(), "{at}");
        }
        let want: Vec<_> = all
            .typed
            .iter()
            .filter(|(c, _)| select.makes_typed(&c.name))
            .cloned()
            .collect();
        assert!(got.typed == want, "{at}: typed columns differ");
        typed_seen += want.len() * got.len();
    }
    assert!(typed_seen > 0 && info_seen > 0, "nothing compared");
}

#[test]
fn a_selection_gives_the_full_columns_it_keeps() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deep.slog2");
    std::fs::write(&path, common::generated_slog2(11, 20_000, 2048)).unwrap();
    selected_are_the_full_columns(&path);
    let clog2 = common::synth(dir.path(), "s.clog2", &["--events", "8000"]);
    selected_are_the_full_columns(Path::new(&clog2));
}
