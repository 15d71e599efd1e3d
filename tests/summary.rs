//! The one summary model behind every picture (spec/queries.md §6):
//! - summed over its columns, a window's summary gives per category the
//!   exclusive time `mpelog stats` gives for the same window: exactly where
//!   the preview read every drawable, within 1% of the window's row-time where
//!   shadows stand in for subtrees (generated traces with states nested four
//!   deep, and every SLOG-2 file of the corpus);
//! - `render`, `/api/window` and `window --summary` give the same summary;
//! - along the middle line of each row, the SVG shows the state categories in
//!   the order of their exclusive time (whole trace, a medium and a narrow
//!   window of `many_events_n4`, `p2p_n8` and a generated trace).

mod common;

use common::{mpelog, stdout};
use mpelog::stats::{self, Options, Stats};
use mpelog::summary::Summary;
use serde_json::json;
use slog2_format::types::{topology, Category};
use slog2_format::{Slog2Reader, WindowBuf};
use std::collections::BTreeMap;
use std::io::Cursor;

/// A generated trace (4 ranks, states nested up to four deep: Outer, Middle,
/// Inner and the MPI calls inside them) converted with small leaves, so that
/// previews stop above the leaves.
fn generated(seed: u64, events: u64, leaf: u32) -> Vec<u8> {
    common::generated_slog2(seed, events, leaf)
}

fn legend(r: &Slog2Reader<Cursor<&[u8]>>) -> Vec<Category> {
    r.categories()
        .map(|c| c.value.categories.clone())
        .unwrap_or_default()
}

/// The root's time box.
fn root(bytes: &[u8]) -> (f64, f64) {
    let r = Slog2Reader::new(Cursor::new(bytes)).unwrap();
    let e = r.tree_dir().unwrap().value.root().copied().unwrap();
    (e.earliest, e.latest)
}

fn summary_of(bytes: &[u8], from: f64, to: f64, columns: u32) -> Summary {
    let mut r = Slog2Reader::new(Cursor::new(bytes)).unwrap();
    let legend = legend(&r);
    let view = r.line_id_maps().and_then(|m| m.value.maps.first().cloned());
    let mut buf = WindowBuf::new();
    mpelog::summary::query(&mut r, &mut buf, from, to, columns).unwrap();
    Summary::of_window(&buf, &legend, view.as_ref(), from, to, columns)
}

fn stats_of(bytes: &[u8], window: Option<(f64, f64)>) -> Stats {
    let mut r = Slog2Reader::new(Cursor::new(bytes)).unwrap();
    let opts = match window {
        Some((a, b)) => Options::default().window(Some(a), Some(b)),
        None => Options::default(),
    };
    stats::slog2(&mut r, &opts).unwrap()
}

/// A window as `stats` takes it (`None`: the whole file) and its bounds.
type Window = (Option<(f64, f64)>, (f64, f64));

/// The windows a test looks at: the whole trace, 30–60% and 50–50.5%.
fn windows(bytes: &[u8]) -> Vec<Window> {
    let (a, b) = root(bytes);
    let at = |f: f64| a + f * (b - a);
    vec![
        (None, (a, b)),
        (Some((at(0.3), at(0.6))), (at(0.3), at(0.6))),
        (Some((at(0.5), at(0.505))), (at(0.5), at(0.505))),
    ]
}

/// Compares the summary's exclusive time per state category with the
/// statistics; returns whether the summary used shadows.
fn assert_agrees(
    bytes: &[u8],
    window: Option<(f64, f64)>,
    (from, to): (f64, f64),
    px: u32,
    what: &str,
) -> bool {
    let s = summary_of(bytes, from, to, px);
    let st = stats_of(bytes, window);
    let got = s.exclusive_by_category();
    let row_time = (to - from) * s.rows.len().max(1) as f64;
    // Exact (rounding aside) without shadows; 1% of the row-time with them.
    let tolerance = if s.shadows == 0 { 1e-9 } else { 0.01 } * row_time;
    let mut seen = 0;
    for c in st.categories.iter().filter(|c| c.topology == "state") {
        let g = got.get(&c.index).copied().unwrap_or(0.0);
        assert!(
            (g - c.exclusive.sum).abs() <= tolerance,
            "{what} [{from}, {to}] at {px} px ({} shadows): category {} ({}) summary {g} s, stats {} s",
            s.shadows,
            c.index,
            c.name,
            c.exclusive.sum
        );
        seen += 1;
    }
    // Nothing in the summary that stats lacks.
    for (k, g) in &got {
        if !st.categories.iter().any(|c| c.index == *k) {
            assert!(
                *g <= tolerance,
                "{what}: category {k} only in the summary ({g} s)"
            );
        }
    }
    assert!(
        seen > 0 || st.categories.is_empty(),
        "{what}: no state compared"
    );
    s.shadows > 0
}

#[test]
fn summary_equals_stats_on_generated_deeply_nested_traces() {
    let (mut exact, mut shadowed) = (0, 0);
    for (seed, leaf) in [(1, 1024), (2, 4096), (3, 65536)] {
        let bytes = generated(seed, 60_000, leaf);
        for (window, w) in windows(&bytes) {
            for px in [16, 200, 1600] {
                if assert_agrees(&bytes, window, w, px, &format!("seed {seed} leaf {leaf}")) {
                    shadowed += 1;
                } else {
                    exact += 1;
                }
            }
        }
    }
    assert!(
        exact > 0 && shadowed > 0,
        "{exact} exact, {shadowed} with shadows"
    );
}

#[test]
fn summary_equals_stats_on_every_corpus_slog2_file() {
    let Some(root) = common::corpus() else {
        eprintln!("SKIPPED: MPELOG_CORPUS is not set");
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(root.join("mpe"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "slog2"))
        .collect();
    files.sort();
    assert!(files.len() > 10, "the corpus has its SLOG-2 files");
    for f in ["many_events_n4.slog2", "p2p_n8.slog2"] {
        assert!(
            files.iter().any(|p| p.ends_with(f)),
            "corpus file missing: {f}"
        );
    }
    let mut shadowed = 0;
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let name = f.file_name().unwrap().to_string_lossy();
        for (window, w) in windows(&bytes) {
            for px in [50, 1600] {
                if assert_agrees(&bytes, window, w, px, &name) {
                    shadowed += 1;
                }
            }
        }
    }
    assert!(shadowed > 0, "some corpus summaries stood on shadows");
}

/// The same summary from `render`'s query, `/api/window` and `window
/// --summary`: the JSON of each, without the cost.
#[test]
fn render_serve_and_window_give_the_same_summary() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.slog2");
    let bytes = generated(5, 30_000, 2048);
    std::fs::write(&path, &bytes).unwrap();
    let service = mpelog::serve::Service::new(std::slice::from_ref(&path)).unwrap();
    let strip = |mut v: serde_json::Value| {
        v.as_object_mut().unwrap().remove("cost");
        v
    };
    let (a, b) = root(&bytes);
    for (from, to, width) in [
        (a, b, 1000u32),
        (a + 0.37 * (b - a), a + 0.41 * (b - a), 800),
        (a + 0.5 * (b - a), a + 0.5001 * (b - a), 1300),
    ] {
        let opts = mpelog::render::Options::default()
            .window(Some(from), Some(to))
            .width(width);
        let mut r = Slog2Reader::new(std::fs::File::open(&path).unwrap()).unwrap();
        let (s, _, _) = mpelog::render::summary(&mut r, &opts).unwrap();
        let px = mpelog::render::plot_columns(width);
        assert_eq!(s.columns, px);
        let mut rendered = Vec::new();
        s.write_json(&mut rendered);
        let rendered: serde_json::Value = serde_json::from_slice(&rendered).unwrap();

        let resp = service.handle(
            "GET",
            &format!("/api/window?from={from}&to={to}&pixels={px}"),
            None,
        );
        assert_eq!(resp.status, 200);
        let served: serde_json::Value = serde_json::from_slice(&resp.read_body().unwrap()).unwrap();
        assert_eq!(strip(served), rendered, "[{from}, {to}] at {px} px");

        let cli = stdout(&mpelog(&[
            "window",
            path.to_str().unwrap(),
            "--from",
            &from.to_string(),
            "--to",
            &to.to_string(),
            "--pixels",
            &px.to_string(),
            "--summary",
        ]));
        let cli: serde_json::Value = serde_json::from_str(&cli).expect("pure JSON");
        assert_eq!(strip(cli), rendered, "window --summary [{from}, {to}]");
    }
}

/// The plot's geometry in `render`'s SVG (render.rs: LEFT, TOP, row height).
const LEFT: f64 = 80.0;
const TOP: f64 = 30.0;
const ROW: f64 = 40.0;

/// Along the middle line of each row of an SVG picture, how many pixel
/// columns show each fill colour, painting its rectangles in document order.
fn middle_colours(svg: &str, rows: usize, columns: usize) -> BTreeMap<String, u64> {
    let attr = |line: &str, k: &str| -> Option<String> {
        Some(
            line.split(&format!(" {k}=\""))
                .nth(1)?
                .split('"')
                .next()?
                .to_string(),
        )
    };
    let mut painted = vec![vec![String::new(); columns]; rows];
    for line in svg.lines().filter(|l| l.starts_with("<rect x=")) {
        let num = |k: &str| attr(line, k).and_then(|v| v.parse::<f64>().ok());
        let (Some(x), Some(y), Some(w), Some(h), Some(fill)) = (
            num("x"),
            num("y"),
            num("width"),
            num("height"),
            attr(line, "fill"),
        ) else {
            continue;
        };
        for (r, row) in painted.iter_mut().enumerate() {
            let mid = TOP + ROW * r as f64 + ROW / 2.0;
            if !(y <= mid && mid < y + h) {
                continue;
            }
            for (c, px) in row.iter_mut().enumerate() {
                let centre = LEFT + c as f64 + 0.5;
                if x <= centre && centre < x + w {
                    *px = fill.clone();
                }
            }
        }
    }
    let mut out = BTreeMap::new();
    for px in painted.into_iter().flatten() {
        *out.entry(px).or_insert(0) += 1;
    }
    out
}

/// Every rectangle of the summary group lies inside its row (between the
/// row's top and bottom, less the 2-pixel gaps); how many there are.
fn assert_bands_in_rows(svg: &str, what: &str) -> usize {
    let group = svg
        .split("<g class=\"summary\">")
        .nth(1)
        .and_then(|g| g.split("</g>").next())
        .expect("a summary group");
    let mut n = 0;
    for line in group.lines().filter(|l| l.starts_with("<rect ")) {
        let num = |k: &str| -> f64 {
            line.split(&format!(" {k}=\""))
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        let (y, h) = (num("y"), num("height"));
        let row = ((y - TOP) / ROW).floor();
        let (lo, hi) = (TOP + ROW * row + 2.0, TOP + ROW * (row + 1.0) - 2.0);
        assert!(
            y >= lo - 0.26 && y + h <= hi + 0.26,
            "{what}: a band [{y}, {}] leaves row {row} [{lo}, {hi}]: {line}",
            y + h
        );
        n += 1;
    }
    n
}

fn colour(c: &Category) -> String {
    format!("#{:02x}{:02x}{:02x}", c.argb[1], c.argb[2], c.argb[3])
}

/// Renders `[from, to]` of `path` and checks the middle lines against the
/// statistics: a state category's colour (one no other category has) with
/// at least 2% of the row-time and over 1.25 times another's exclusive time
/// covers more of the middle lines than that one.
/// Returns how many summary bands the picture has.
fn assert_middle_order(path: &std::path::Path, window: Option<(f64, f64)>, what: &str) -> usize {
    let bytes = std::fs::read(path).unwrap();
    let (a, b) = root(&bytes);
    let (from, to) = window.unwrap_or((a, b));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p.svg");
    let mut args = vec![
        "render".to_string(),
        path.to_str().unwrap().into(),
        "-o".into(),
        out.to_str().unwrap().into(),
        "--width".into(),
        "1000".into(),
    ];
    if let Some((f, t)) = window {
        args.extend(["--from".into(), f.to_string(), "--to".into(), t.to_string()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = mpelog(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let svg = std::fs::read_to_string(&out).unwrap();
    let bands = assert_bands_in_rows(&svg, what);

    let r = Slog2Reader::new(Cursor::new(&bytes[..])).unwrap();
    let legend = legend(&r);
    let st = stats_of(&bytes, window);
    let rows = summary_of(&bytes, from, to, 920).rows.len();
    // Colours of one state category only (a colour two categories share
    // cannot tell them apart).
    let mut excl: BTreeMap<String, f64> = BTreeMap::new();
    let mut owners: BTreeMap<String, usize> = BTreeMap::new();
    for c in st.categories.iter().filter(|c| c.topology == "state") {
        let cat = legend.iter().find(|l| l.index == c.index).unwrap();
        assert_eq!(cat.topology, topology::STATE);
        *excl.entry(colour(cat)).or_insert(0.0) += c.exclusive.sum;
        *owners.entry(colour(cat)).or_insert(0) += 1;
    }
    excl.retain(|c, _| owners[c] == 1);
    let seen = middle_colours(&svg, rows, 920);
    let row_time = (to - from) * rows as f64;
    let shown = |c: &str| seen.get(c).copied().unwrap_or(0);
    let mut compared = 0;
    for (ca, ea) in &excl {
        for (cb, eb) in &excl {
            if *ea >= 0.02 * row_time && *ea > 1.25 * eb {
                assert!(
                    shown(ca) > shown(cb),
                    "{what}: {ca} has {ea:.6} s of exclusive time, {cb} {eb:.6} s, but the middle lines show {} and {} pixels ({seen:?})",
                    shown(ca),
                    shown(cb)
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 0, "{what}: nothing to compare ({excl:?})");
    bands
}

#[test]
fn middle_lines_show_states_in_the_order_of_their_exclusive_time() {
    let dir = tempfile::tempdir().unwrap();
    let gen = dir.path().join("g.slog2");
    std::fs::write(&gen, generated(7, 200_000, 65536)).unwrap();
    let mut files = vec![gen];
    match common::corpus() {
        Some(root) => {
            for f in ["mpe/many_events_n4.slog2", "mpe/p2p_n8.slog2"] {
                files.push(common::corpus_file(&root, f).into());
            }
        }
        None => eprintln!("SKIPPED the corpus files: MPELOG_CORPUS is not set"),
    }
    let mut bands = 0;
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let (a, b) = root(&bytes);
        let at = |x: f64| a + x * (b - a);
        for w in [None, Some((at(0.3), at(0.6))), Some((at(0.5), at(0.51)))] {
            bands += assert_middle_order(f, w, &format!("{} {w:?}", f.display()));
        }
    }
    assert!(
        bands > 100,
        "{bands} summary bands checked to stay in their rows"
    );
}

/// A cell's flags and shares (category or the null share, 1/250 of the column).
type CellAt = (u64, Vec<(Option<i64>, u64)>);

/// A reader of the binary form, written from spec/queries.md §6.6.
struct Bin<'a> {
    b: &'a [u8],
    p: usize,
}

impl Bin<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let v = self.b[self.p..self.p + N].try_into().unwrap();
        self.p += N;
        v
    }
    fn u8(&mut self) -> u64 {
        u64::from(self.take::<1>()[0])
    }
    fn u16(&mut self) -> u64 {
        u64::from(u16::from_le_bytes(self.take()))
    }
    fn u32(&mut self) -> u64 {
        u64::from(u32::from_le_bytes(self.take()))
    }
    fn i32(&mut self) -> i64 {
        i64::from(i32::from_le_bytes(self.take()))
    }
    fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.take())
    }
    fn f64(&mut self) -> f64 {
        f64::from_le_bytes(self.take())
    }
}

/// The binary form holds what the JSON form holds, at its resolution: rows,
/// every cell's shares (1/250 of the column), states, events (without time),
/// arrows (by column), the arrow style and the ticks.
#[test]
fn the_binary_form_holds_the_json_forms_summary() {
    let bytes = generated(9, 40_000, 2048);
    let (a, b) = root(&bytes);
    for (from, to, px) in [(a, b, 700), (a + 0.4 * (b - a), a + 0.45 * (b - a), 1000)] {
        let s = summary_of(&bytes, from, to, px);
        let (mut bin, mut json) = (Vec::new(), Vec::new());
        s.write_bin(&mut bin);
        s.write_json(&mut json);
        let j: serde_json::Value = serde_json::from_slice(&json).unwrap();
        let mut r = Bin { b: &bin, p: 0 };
        assert_eq!(&r.take::<4>(), b"MPLS");
        let style = u8::from(j["arrow_style"] == "ticks");
        assert_eq!(r.take::<4>(), [2, style, 0, 0]);
        assert_eq!((r.f64(), r.f64()), (from, to));
        let columns = r.u32();
        assert_eq!(columns, u64::from(px));
        assert_eq!(r.u32(), j["arrow_columns"].as_u64().unwrap());
        assert_eq!((r.u64(), r.u64()), (s.drawables, s.shadows));
        let nrows = r.u32() as usize;
        assert_eq!(nrows, j["rows"].as_array().unwrap().len());
        for row in j["rows"].as_array().unwrap() {
            let key: Vec<i64> = (0..r.u16()).map(|_| r.i32()).collect();
            let lines: Vec<i64> = (0..r.u16()).map(|_| r.i32()).collect();
            assert_eq!(json!(key), row["key"]);
            assert_eq!(json!(lines), row["lines"]);
        }
        let table: Vec<i64> = (0..r.u32()).map(|_| r.i32()).collect();
        // Cells, expanded per (row, column), from both forms.
        let mut from_bin: BTreeMap<(u64, u64), CellAt> = BTreeMap::new();
        for _ in 0..r.u32() {
            let (row, col, len, flags) = (r.u16(), r.u16(), r.u16(), r.u8());
            let shares: Vec<(Option<i64>, u64)> = (0..r.u8())
                .map(|_| {
                    let slot = r.u8() as usize;
                    ((slot < 255).then(|| table[slot]), r.u8())
                })
                .collect();
            for c in col..col + len {
                from_bin.insert((row, c), (flags, shares.clone()));
            }
        }
        let mut from_json = BTreeMap::new();
        for cell in j["cells"].as_array().unwrap() {
            let c: Vec<&serde_json::Value> = cell.as_array().unwrap().iter().collect();
            let (row, col, len, flags) = (
                c[0].as_u64().unwrap(),
                c[1].as_u64().unwrap(),
                c[2].as_u64().unwrap(),
                c[3].as_u64().unwrap(),
            );
            let shares: Vec<(Option<i64>, u64)> = c[4..]
                .chunks(2)
                .map(|p| {
                    (
                        p[0].as_i64(),
                        (p[1].as_f64().unwrap() * 250.0 / 1e4).round() as u64,
                    )
                })
                .filter(|(_, u)| *u > 0)
                .collect();
            for col in col..col + len {
                if flags & 1 == 1 || !shares.is_empty() {
                    from_json.insert((row, col), (flags, shares.clone()));
                }
            }
        }
        assert_eq!(from_bin, from_json, "[{from}, {to}] at {px}");
        assert!(!from_bin.is_empty());
        let nstates = r.u32() as usize;
        assert_eq!(nstates, j["states"].as_array().unwrap().len());
        for (st, lib) in j["states"].as_array().unwrap().iter().zip(&s.states) {
            let (row, depth, slot, infolen) = (r.u16(), r.u16(), r.u16() as usize, r.u16());
            let (start, end, line) = (r.f64(), r.f64(), r.i32());
            let info = (infolen != 65535).then(|| {
                let t = String::from_utf8(r.b[r.p..r.p + infolen as usize].to_vec()).unwrap();
                r.p += infolen as usize;
                t
            });
            // Times against the library's values (serde_json's default float
            // parser is not exact to the last digit).
            assert_eq!((start, end), (lib.start, lib.end));
            assert_eq!(
                json!([row, depth, table[slot], line, info]),
                json!([st[0], st[1], st[2], st[5], st[6]])
            );
        }
        let nevents = r.u32() as usize;
        assert_eq!(nevents, j["events"].as_array().unwrap().len());
        for e in j["events"].as_array().unwrap() {
            let (row, col, slot, summary) = (r.u16(), r.u16(), r.u16() as usize, r.u8());
            r.u8();
            let (count, top) = (r.u32(), r.u32());
            assert_eq!(
                json!([row, col, table[slot], count, top, summary]),
                json!([e[0], e[1], e[2], e[4], e[5], e[6]])
            );
        }
        let w = (to - from) / f64::from(px);
        let narrows = r.u32() as usize;
        assert_eq!(narrows, j["arrows"].as_array().unwrap().len());
        for (a, lib) in j["arrows"].as_array().unwrap().iter().zip(&s.arrows) {
            let (fr, tr, slot, summary) = (r.u16(), r.u16(), r.u16() as usize, r.u8());
            r.u8();
            let (c0, c1, count) = (r.i32(), r.i32(), r.u32());
            let col = |t: f64| ((t - from) / w).floor() as i64;
            assert_eq!(
                json!([fr, tr, c0, c1, table[slot], count, summary]),
                json!([a[0], a[1], col(lib.start), col(lib.end), a[4], a[5], a[6]])
            );
        }
        let nticks = r.u32() as usize;
        assert_eq!(nticks, j["ticks"].as_array().unwrap().len());
        for t in j["ticks"].as_array().unwrap() {
            let (row, col, bottom) = (r.u16(), r.u16(), r.u8());
            r.u8();
            let (sent, received) = (r.u32(), r.u32());
            assert_eq!(json!([row, bottom, col, sent, received]), *t);
        }
        assert_eq!(r.p, bin.len(), "nothing after the ticks");
        assert!(bin.len() < json.len(), "{} < {}", bin.len(), json.len());
    }
}

/// A summary is at most `MAX_COLUMNS` wide: `window --summary` refuses a
/// wider `--pixels` (exit 2) instead of allocating rows × columns cells, and
/// the library clamps.
#[test]
fn a_summary_is_at_most_max_columns_wide() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.slog2");
    let bytes = generated(4, 5_000, 65536);
    std::fs::write(&path, &bytes).unwrap();
    let wide = (mpelog::summary::MAX_COLUMNS + 1).to_string();
    let o = mpelog(&[
        "window",
        path.to_str().unwrap(),
        "--pixels",
        &wide,
        "--summary",
    ]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.stdout.is_empty());
    let (a, b) = root(&bytes);
    let s = summary_of(&bytes, a, b, u32::MAX);
    assert_eq!(s.columns, mpelog::summary::MAX_COLUMNS);
}

/// A summary of some rows (`serve`'s `rows=`, which a 1,024-rank trace needs
/// to cost what it shows) has exactly the whole summary's cells in those rows
/// and empty ones elsewhere, in windows other than the whole trace.
#[test]
fn a_summary_of_some_rows_has_the_whole_summarys_cells_there() {
    let bytes = generated(5, 20_000, 2048);
    let (t0, t1) = root(&bytes);
    let mut r = Slog2Reader::new(Cursor::new(&bytes[..])).unwrap();
    let legend = legend(&r);
    let view = r.line_id_maps().and_then(|m| m.value.maps.first().cloned());
    let mut buf = WindowBuf::new();
    for (a, b, columns) in [(0.0, 1.0, 300), (0.31, 0.37, 500), (0.5, 0.5004, 200)] {
        let (from, to) = (t0 + (t1 - t0) * a, t0 + (t1 - t0) * b);
        mpelog::summary::query(&mut r, &mut buf, from, to, columns).unwrap();
        let whole = Summary::of_window(&buf, &legend, view.as_ref(), from, to, columns);
        let rows = whole.rows.len() as u32;
        assert!(rows >= 4, "{rows} rows");
        for only in [(0, 0), (1, 2), (rows - 1, rows - 1), (2, rows + 5)] {
            let part = Summary::of_window_rows(
                &buf,
                &legend,
                view.as_ref(),
                from,
                to,
                columns,
                Some(only),
            );
            assert_eq!(part.rows, whole.rows);
            let mut filled = 0;
            for row in 0..rows as usize {
                for c in 0..columns as usize {
                    let (p, w) = (part.cell(row, c).unwrap(), whole.cell(row, c).unwrap());
                    if (only.0 as usize..=only.1 as usize).contains(&row) {
                        assert_eq!(p, w, "window {a}–{b}, rows {only:?}: row {row} column {c}");
                        filled += usize::from(!p.shares.is_empty());
                    } else {
                        assert!(p.shares.is_empty() && !p.summarised && p.covered == 0);
                    }
                }
            }
            assert!(
                filled > 0,
                "window {a}–{b}, rows {only:?}: nothing to compare"
            );
        }
    }
}

/// Each cell of the JSON form holds its own cell's shares as spec/queries.md
/// §6.3 rounds them (units of 1/10000 of the column, the largest first), in a
/// window where wide shadows make many neighbouring cells alike: a writer that
/// reused a neighbour's shares for a different cell would show here.
#[test]
fn the_json_forms_cells_are_their_own_cells_shares() {
    let bytes = generated(9, 40_000, 2048);
    let (a, b) = root(&bytes);
    for (from, to, px) in [(a, b, 700), (a + 0.4 * (b - a), a + 0.45 * (b - a), 1000)] {
        let s = summary_of(&bytes, from, to, px);
        let mut json = Vec::new();
        s.write_json(&mut json);
        let j: serde_json::Value = serde_json::from_slice(&json).unwrap();
        let w = s.column_width();
        let mut checked = 0;
        for run in j["cells"].as_array().unwrap() {
            let run = run.as_array().unwrap();
            let (row, column, len) = (
                run[0].as_u64().unwrap() as usize,
                run[1].as_u64().unwrap() as usize,
                run[2].as_u64().unwrap() as usize,
            );
            for c in column..column + len {
                let cell = s.cell(row, c).unwrap();
                // The largest share, rounded as the spec says.
                let Some(top) = cell.shares.first() else {
                    assert_eq!(
                        run.len(),
                        4,
                        "row {row} column {c}: an empty cell with shares"
                    );
                    continue;
                };
                let units = (top.seconds / w * 1e4).round();
                if units >= 1.0 {
                    assert_eq!(
                        (run[4].as_i64(), run[5].as_f64()),
                        (Some(i64::from(top.category)), Some(units)),
                        "row {row} column {c} of the run at {column}"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > px, "{checked} cells checked");
    }
}

/// A cell's shares rounded as spec/queries.md §6.3 says, computed here from
/// the spec's words: in units of 1/10000 of the column, the four largest and
/// any other of at least 50 units each rounded (kept when at least 1), the
/// rest summed and rounded as one share of no category (`None`).
fn spec_rounded(shares: &[mpelog::summary::Share], w: f64) -> Rounded {
    let mut out = Vec::new();
    let mut rest = 0.0;
    for (i, s) in shares.iter().enumerate() {
        let f = s.seconds / w * 1e4;
        if i < 4 || f >= 50.0 {
            if f.round() >= 1.0 {
                out.push((Some(i64::from(s.category)), f.round()));
            }
        } else {
            rest += f;
        }
    }
    if rest.round() >= 1.0 {
        out.push((None, rest.round()));
    }
    out
}

/// A cell's rounded shares: (category, or `None` for the small ones summed;
/// units of 1/10000 of the column).
type Rounded = Vec<(Option<i64>, f64)>;

/// The JSON form's cells by row and column: each run's flags and shares.
fn json_cells(s: &Summary) -> BTreeMap<(usize, usize), (u64, Rounded)> {
    let mut json = Vec::new();
    s.write_json(&mut json);
    let j: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let mut cells = BTreeMap::new();
    let mut last_run: Option<(usize, usize, (u64, Rounded))> = None;
    for run in j["cells"].as_array().unwrap() {
        let run = run.as_array().unwrap();
        let n = |i: usize| run[i].as_u64().unwrap() as usize;
        let (row, column, len, flags) = (n(0), n(1), n(2), n(3) as u64);
        let shares: Rounded = run[4..]
            .chunks(2)
            .map(|p| (p[0].as_i64(), p[1].as_f64().unwrap()))
            .collect();
        assert!(len >= 1);
        // Runs are maximal: a run right after another in its row differs.
        if let Some((r, end, prev)) = &last_run {
            if *r == row && *end == column {
                assert_ne!(
                    prev,
                    &(flags, shares.clone()),
                    "row {row}: runs at {column} not merged"
                );
            }
        }
        for c in column..column + len {
            assert!(
                cells.insert((row, c), (flags, shares.clone())).is_none(),
                "({row},{c}) twice"
            );
        }
        last_run = Some((row, column + len, (flags, shares)));
    }
    cells
}

/// Every cell of the JSON form (and so of the binary form, which
/// `the_binary_form_holds_the_json_forms_summary` checks against it) holds
/// its own cell's shares rounded as the spec says, the small ones summed,
/// with its flags; runs are maximal; a cell left out is empty and not
/// summarised. A summary of some rows gives the whole summary's cells there.
#[test]
fn the_json_forms_cells_are_every_cells_rounded_shares_in_maximal_runs() {
    let bytes = generated(9, 40_000, 2048);
    let (a, b) = root(&bytes);
    let mut others = 0;
    for (from, to, px) in [
        (a, b, 120),
        (a, b, 700),
        (a + 0.4 * (b - a), a + 0.45 * (b - a), 1000),
    ] {
        let s = summary_of(&bytes, from, to, px);
        let w = s.column_width();
        let cells = json_cells(&s);
        for row in 0..s.rows.len() {
            for c in 0..px as usize {
                let cell = s.cell(row, c).unwrap();
                let want = spec_rounded(cell.shares, w);
                others += usize::from(want.iter().any(|(k, _)| k.is_none()));
                let flags = u64::from(cell.summarised) + 2 * u64::from(cell.covered);
                match cells.get(&(row, c)) {
                    Some(got) => assert_eq!(
                        got,
                        &(flags, want),
                        "window {from}–{to} at {px} px, cell ({row},{c})"
                    ),
                    None => assert!(
                        want.is_empty() && !cell.summarised,
                        "cell ({row},{c}) left out"
                    ),
                }
            }
        }
        // Some rows only: the same cells there.
        let mut r = Slog2Reader::new(Cursor::new(&bytes[..])).unwrap();
        let legend = legend(&r);
        let view = r.line_id_maps().and_then(|m| m.value.maps.first().cloned());
        let mut buf = WindowBuf::new();
        mpelog::summary::query(&mut r, &mut buf, from, to, px).unwrap();
        let rows = s.rows.len();
        let part =
            Summary::of_window_rows(&buf, &legend, view.as_ref(), from, to, px, Some((1, 2)));
        let want: BTreeMap<_, _> = cells
            .into_iter()
            .filter(|((r, _), _)| (1..=2).contains(r))
            .collect();
        assert_eq!(json_cells(&part), want, "rows 1–2 of {rows}");
    }
    assert!(others > 0, "no cell had small shares summed");
}

/// A run holds cells of one covering depth: a state nested in a state of its
/// own category gives columns of equal shares (all of that category) whose
/// depth differs where the inner one starts, and the JSON form says so.
#[test]
fn cells_of_equal_shares_and_other_depths_make_two_runs() {
    use slog2_format::write::{identity_map, Prim, TreeOptions, TreeWriter};
    let mut w = TreeWriter::new(Cursor::new(Vec::new()), TreeOptions::default()).unwrap();
    // Ordered by end time: the inner state [5, 10] ends with the outer [0, 10].
    w.add(Prim::two(1, topology::STATE, (5.0, 0), (10.0, 0), &[]))
        .unwrap();
    w.add(Prim::two(1, topology::STATE, (0.0, 0), (10.0, 0), &[]))
        .unwrap();
    let compute = common::category(1, topology::STATE);
    let (out, _) = w.finish(&[compute], vec![identity_map([0])]).unwrap();
    let s = summary_of(out.get_ref(), 0.0, 10.0, 10);
    let cells = json_cells(&s);
    let flags: Vec<u64> = (0..10).map(|c| cells[&(0, c)].0).collect();
    // Not summarised; covered once, then twice.
    assert_eq!(flags, [2, 2, 2, 2, 2, 4, 4, 4, 4, 4]);
    assert!((0..10).all(|c| cells[&(0, c)].1 == [(Some(1), 10000.0)]));
}
