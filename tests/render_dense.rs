//! Messages never hide the states (spec/queries.md §6.4 step 3): `mpelog
//! render` of a dense generated trace (`synth --dense`: every rank almost
//! always in MPI_Sendrecv with its ring neighbours, messages in every column),
//! whole and zoomed in, as PNG. On each row's middle line at least 90 % of the
//! pixels show the colours of the states on that row, and the messages are
//! still seen: yellow ticks at the rows' edges in most columns while they are
//! many, lines with heads (one per message) once they are few. The ticks count
//! every message of the window, as `stats` does. `p2p_n8` at full detail keeps
//! one arrow with a head per message.
//!
//! `MPELOG_SHOTS_DIR=DIR` keeps the PNGs there.

mod common;

use common::{mpelog, stdout};
use mpelog::summary::{ArrowStyle, Summary};
use slog2_format::types::{topology, Category};
use slog2_format::Slog2Reader;
use std::collections::BTreeSet;
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const LEFT: u32 = 80;
const TOP: u32 = 30;
const ROW: u32 = 40;
const WIDTH: u32 = 1200;
const YELLOW: [u8; 3] = [255, 255, 0];

/// The dense trace as SLOG-2 (300 000 records, 4 ranks: 75 000 messages), in
/// a directory kept for the test run.
fn dense() -> &'static Path {
    static FILE: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &FILE
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let clog2 = common::synth(
                dir.path(),
                "dense.clog2",
                &["--dense", "--events", "300000", "--seed", "42"],
            );
            let slog2 = dir.path().join("dense.slog2");
            stdout(&mpelog(&["convert", &clog2, "-o", slog2.to_str().unwrap()]));
            (dir, slog2)
        })
        .1
}

/// A PNG decoded, with the summary it was drawn from and the legend.
struct Picture {
    width: u32,
    rgba: Vec<u8>,
    svg: String,
    summary: Summary,
    legend: Vec<Category>,
}

impl Picture {
    fn at(&self, x: u32, y: u32) -> [u8; 3] {
        let i = ((y * self.width + x) * 4) as usize;
        [self.rgba[i], self.rgba[i + 1], self.rgba[i + 2]]
    }

    fn colour(&self, category: i32) -> [u8; 3] {
        let c = self.legend.iter().find(|c| c.index == category).unwrap();
        [c.argb[1], c.argb[2], c.argb[3]]
    }

    /// Per row: the share of its middle line's pixels in the colour of a
    /// state category with exclusive time on that row.
    fn middle_lines(&self) -> Vec<f64> {
        let plot = self.summary.columns;
        (0..self.summary.rows.len())
            .map(|r| {
                let colours: BTreeSet<[u8; 3]> = self
                    .summary
                    .exclusive_of_row(r)
                    .into_iter()
                    .filter(|(_, s)| *s > 0.0)
                    .map(|(k, _)| self.colour(k))
                    .collect();
                let y = TOP + ROW * r as u32 + ROW / 2;
                let hits = (0..plot)
                    .filter(|&c| colours.contains(&self.at(LEFT + c, y)))
                    .count();
                hits as f64 / f64::from(plot)
            })
            .collect()
    }

    /// Yellow pixels in the `dy`-pixel band around the edge `edge` (0 the
    /// top of row 0, 1 between rows 0 and 1, …), and the columns that hold
    /// one.
    fn yellow_at_edge(&self, edge: u32, dy: u32) -> (usize, usize) {
        let y0 = TOP + ROW * edge;
        let ys = y0.saturating_sub(dy).max(TOP)
            ..(y0 + dy).min(TOP + ROW * self.summary.rows.len() as u32);
        let mut pixels = 0;
        let mut columns = 0;
        for c in 0..self.summary.columns {
            let n = ys
                .clone()
                .filter(|&y| self.at(LEFT + c, y) == YELLOW)
                .count();
            pixels += n;
            columns += usize::from(n > 0);
        }
        (pixels, columns)
    }
}

/// `mpelog render FILE -o X.png [--from A --to B]` 1200 px wide, decoded.
fn render(file: &Path, window: Option<(f64, f64)>, name: &str) -> Picture {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join(format!("{name}.png"));
    let mut args = vec![
        "render".to_string(),
        file.to_str().unwrap().to_string(),
        "-o".into(),
        png.to_str().unwrap().to_string(),
        "--width".into(),
        WIDTH.to_string(),
    ];
    if let Some((a, b)) = window {
        args.extend(["--from".into(), a.to_string(), "--to".into(), b.to_string()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = mpelog(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    if let Some(keep) = std::env::var_os("MPELOG_SHOTS_DIR") {
        std::fs::create_dir_all(&keep).unwrap();
        std::fs::copy(&png, Path::new(&keep).join(format!("{name}.png"))).unwrap();
    }
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut rgba = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut rgba).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgba);
    let bytes = std::fs::read(file).unwrap();
    let mut r = Slog2Reader::new(Cursor::new(&bytes[..])).unwrap();
    let opts = mpelog::render::Options::default()
        .window(window.map(|w| w.0), window.map(|w| w.1))
        .width(WIDTH);
    let (summary, legend, _) = mpelog::render::summary(&mut r, &opts).unwrap();
    let (svg, _) = mpelog::render::svg(&mut r, &opts).unwrap();
    Picture {
        width: info.width,
        rgba,
        svg,
        summary,
        legend,
    }
}

fn time_range(file: &Path) -> (f64, f64) {
    let bytes = std::fs::read(file).unwrap();
    let r = Slog2Reader::new(Cursor::new(&bytes[..])).unwrap();
    let root = r.tree_dir().unwrap().value.root().copied().unwrap();
    (root.earliest, root.latest)
}

/// Messages sent in `[a, b]` by `mpelog stats` (its communication matrix).
fn stats_messages(file: &Path, a: f64, b: f64) -> u64 {
    let v: serde_json::Value = serde_json::from_str(&stdout(&mpelog(&[
        "stats",
        file.to_str().unwrap(),
        "--from",
        &a.to_string(),
        "--to",
        &b.to_string(),
        "--json",
    ])))
    .unwrap();
    v["messages"]
        .as_array()
        .unwrap_or_else(|| panic!("no messages in {v}"))
        .iter()
        .map(|m| m["messages"].as_u64().unwrap())
        .sum()
}

/// The whole dense trace: ticks, not lines; every middle line keeps its
/// states' colours on at least 90 % of its pixels; between neighbouring rows
/// the ticks show in nearly every column; their sends add up to the messages
/// `stats` counts.
#[test]
fn the_whole_dense_trace_shows_its_states_and_its_messages() {
    let file = dense();
    let p = render(file, None, "dense-whole");
    let s = &p.summary;
    assert_eq!(s.rows.len(), 4);
    assert_eq!(s.arrow_style, ArrowStyle::Ticks);
    assert!(!p.svg.contains("marker-end"), "no arrow heads");
    let middles = p.middle_lines();
    eprintln!("whole trace: middle lines {middles:?}");
    for (r, m) in middles.iter().enumerate() {
        assert!(*m >= 0.9, "row {r}: {:.1} % of its middle line", 100.0 * m);
    }
    // The ticks: a bar across each gap between neighbours (the ring's wrap
    // from rank 3 to rank 0 too: each end faces the other row), in nearly
    // every column; none on the outer edges.
    let plot = s.columns as usize;
    for edge in 0..=4 {
        let (pixels, columns) = p.yellow_at_edge(edge, 8);
        eprintln!("edge {edge}: {pixels} yellow pixels in {columns} of {plot} columns");
        if edge == 0 || edge == 4 {
            assert_eq!(pixels, 0, "edge {edge}");
        } else {
            assert!(
                columns * 10 >= plot * 9,
                "edge {edge}: ticks in {columns} of {plot} columns"
            );
        }
    }
    // What a tick stands for: the legend says it.
    let sent: u64 = s.ticks.iter().map(|t| t.sent).sum();
    let received: u64 = s.ticks.iter().map(|t| t.received).sum();
    assert_eq!(sent, received);
    let (a, b) = time_range(file);
    assert_eq!(sent, stats_messages(file, a, b));
    assert!(sent > 70_000, "{sent} messages");
    assert!(
        p.svg
            .contains(&format!("messages: {sent} sent in the window")),
        "the legend counts them"
    );
    assert_eq!(p.svg.matches("<title>").count(), s.ticks.len());
}

/// Zoomed in: a window of 1/50 of the trace is still ticks and keeps the
/// middle lines; one of 1/500 is lines, a sixth of the columns' worth; one
/// of 1/20 000 holds a few messages, drawn as Jumpshot draws them (a line
/// with a head each), and the middle lines still show their states.
#[test]
fn zoomed_in_the_messages_become_arrows() {
    let file = dense();
    let (a, b) = time_range(file);
    let mid = a + 0.37 * (b - a);
    // (Near the switch, at 1/500, the lines are as many as P / 8 allows:
    // each inks a few pixels of the middle lines it meets, arrow heads
    // more, so they keep at least three quarters.)
    for (n, want, least) in [
        (50.0, ArrowStyle::Ticks, 0.9),
        (500.0, ArrowStyle::Lines, 0.75),
        (20_000.0, ArrowStyle::Lines, 0.9),
    ] {
        let w = (b - a) / n;
        let p = render(file, Some((mid, mid + w)), &format!("dense-zoom-{n}"));
        let s = &p.summary;
        assert_eq!(s.arrow_style, want, "1/{n} of the trace");
        let middles = p.middle_lines();
        eprintln!("1/{n} of the trace: middle lines {middles:?}");
        for (r, m) in middles.iter().enumerate() {
            assert!(*m >= least, "1/{n}: row {r}: {:.1} %", 100.0 * m);
        }
        let messages = stats_messages(file, mid, mid + w);
        match want {
            ArrowStyle::Lines => {
                let arrows: u64 = s.arrows.iter().map(|m| m.count).sum();
                assert!(arrows > 0);
                assert!(s.ticks.is_empty());
                // One line with a head per mark of real arrows.
                assert_eq!(
                    p.svg.matches("marker-end").count(),
                    s.arrows.iter().filter(|m| !m.summary).count()
                );
                assert!(s.arrows.iter().all(|m| !m.summary));
            }
            ArrowStyle::Ticks => {
                // The sends in the window; `stats` also counts the
                // messages in flight at its start (at most one per pair of
                // neighbours).
                let sent: u64 = s.ticks.iter().map(|t| t.sent).sum();
                assert!(
                    sent <= messages && messages <= sent + 8,
                    "{sent} of {messages}"
                );
                let (_, columns) = p.yellow_at_edge(1, 8);
                assert!(
                    columns * 2 > s.columns as usize,
                    "ticks between rows 0 and 1"
                );
            }
        }
    }
}

/// `p2p_n8` (corpus) at full detail: lines, one with a head per message
/// (per pixel: messages between the same rows in the same columns coincide).
#[test]
fn p2p_n8_keeps_one_arrow_with_a_head_per_message() {
    let Some(root) = common::corpus() else {
        eprintln!(
            "SKIPPED p2p_n8_keeps_one_arrow_with_a_head_per_message: no corpus (MPELOG_CORPUS)"
        );
        return;
    };
    let file = PathBuf::from(common::corpus_file(&root, "mpe/p2p_n8.slog2"));
    let p = render(&file, None, "p2p_n8-whole");
    let s = &p.summary;
    assert_eq!(s.arrow_style, ArrowStyle::Lines);
    let bytes = std::fs::read(&file).unwrap();
    let mut r = Slog2Reader::new(Cursor::new(&bytes[..])).unwrap();
    let arrow_cats: BTreeSet<i32> = r
        .category_list()
        .iter()
        .filter(|c| c.topology == topology::ARROW)
        .map(|c| c.index)
        .collect();
    let arrows = r
        .window(f64::NEG_INFINITY, f64::INFINITY)
        .unwrap()
        .drawables
        .iter()
        .filter(|d| match &d.value {
            slog2_format::types::Drawable::Primitive(p) => arrow_cats.contains(&p.category),
            _ => false,
        })
        .count();
    assert!(arrows > 0);
    // Messages between the same rows in the same pixel columns are one
    // mark (their lines would coincide): one line with a head per mark, the
    // marks counting every message.
    assert!(s.arrows.iter().all(|m| !m.summary));
    assert_eq!(s.arrows.iter().map(|m| m.count).sum::<u64>(), arrows as u64);
    assert_eq!(p.svg.matches("marker-end").count(), s.arrows.len());
    assert!(s.ticks.is_empty());
}
