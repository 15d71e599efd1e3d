//! `mpelog render --waits` pixel by pixel (spec/queries.md §6.7): on a run
//! with planted late senders and a skewed barrier, the hatch lies over the
//! waiting calls and nowhere else, every row's middle line keeps the
//! states' colours whatever is drawn, and the critical path's bar is where
//! the path runs. Pictures 1200 px wide: the plot is 1100 columns from
//! x = 80, rows 40 px tall from y = 30.

mod common;

use common::mpelog;
use mpelog::waits::WaitIndex;
use std::collections::BTreeMap;
use std::path::Path;

const LEFT: usize = 80;
const TOP: usize = 30;
const ROW: usize = 40;
const COLUMNS: usize = 1100;

struct Png {
    width: usize,
    height: usize,
    rgb: Vec<[u8; 3]>,
}

impl Png {
    fn read(path: &Path) -> Png {
        let d = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
        let mut r = d.read_info().unwrap();
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        let info = r.next_frame(&mut buf).unwrap();
        let step = info.color_type.samples();
        let rgb = buf[..info.buffer_size()]
            .chunks(step)
            .map(|p| [p[0], p[1], p[2]])
            .collect();
        Png {
            width: info.width as usize,
            height: info.height as usize,
            rgb,
        }
    }
    fn at(&self, x: usize, y: usize) -> [u8; 3] {
        self.rgb[y * self.width + x]
    }
}

/// The trace, its index beside it, and `render` of the window to PNG.
struct Run {
    dir: tempfile::TempDir,
    trace: String,
}

impl Run {
    fn new() -> Run {
        let dir = tempfile::tempdir().unwrap();
        let trace = common::synth(
            dir.path(),
            "ls.clog2",
            &[
                "--ranks",
                "4",
                "--events",
                "3000",
                "--plant-late-sender",
                "0.002",
                "--plant-barrier-skew",
                "0.0005",
            ],
        );
        Run { dir, trace }
    }

    fn render(&self, name: &str, window: (f64, f64), extra: &[&str]) -> (Png, String) {
        let out = self.dir.path().join(name);
        let (a, b) = (window.0.to_string(), window.1.to_string());
        let mut args = vec![
            "render",
            &self.trace,
            "-o",
            out.to_str().unwrap(),
            "--from",
            &a,
            "--to",
            &b,
        ];
        args.extend_from_slice(extra);
        let o = mpelog(&args);
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert!(o.status.success(), "{err}");
        (Png::read(&out), err)
    }
}

/// Per (row, column) the wait seconds of the index, per (row, column) the
/// critical path's seconds, and the columns of its jumps.
type Layout = (
    BTreeMap<(usize, usize), f64>,
    BTreeMap<(usize, usize), f64>,
    Vec<usize>,
);

fn layout(ix: &WaitIndex, (a, b): (f64, f64)) -> Layout {
    let w = (b - a) / COLUMNS as f64;
    let mut waits = BTreeMap::new();
    for r in ix.cells(a, b, COLUMNS as u32).rows {
        for c in r.cells {
            *waits
                .entry((r.timeline as usize, c.column as usize))
                .or_insert(0.0) += c.seconds;
        }
    }
    let mut path = BTreeMap::new();
    let p = ix.critical_path(a, b);
    for s in &p.segments {
        let c0 = ((s.start - a) / w) as usize;
        for c in c0..COLUMNS {
            let (x0, x1) = (a + c as f64 * w, a + (c + 1) as f64 * w);
            if x0 >= s.end {
                break;
            }
            *path.entry((s.timeline as usize, c)).or_insert(0.0) +=
                (s.end.min(x1) - s.start.max(x0)).max(0.0);
        }
    }
    let jumps = p
        .jumps
        .iter()
        .map(|j| ((j.time - a) / w) as usize)
        .collect();
    (waits, path, jumps)
}

/// The pixel rows of row `r`'s middle line (the 2 pixels around it).
fn middle(r: usize) -> [usize; 2] {
    let mid = TOP + ROW * r + ROW / 2;
    [mid - 1, mid]
}

#[test]
fn hatch_lies_over_waiting_calls_and_middle_lines_keep_their_colours() {
    let run = Run::new();
    let o = mpelog(&["analyze", &run.trace, "--write-index"]);
    assert!(o.status.success());
    let ix = WaitIndex::read_file(&mpelog::waits::index_path(Path::new(&run.trace))).unwrap();
    for window in [(0.1, 0.112), (0.1, 0.16), (0.0, 0.6055)] {
        let (plain, _) = run.render("plain.png", window, &[]);
        let (hatch, err) = run.render("hatch.png", window, &["--waits=hatch"]);
        assert!(err.contains("using the wait index"), "{err}");
        let (waits, _, _) = layout(&ix, window);
        let w = (window.1 - window.0) / COLUMNS as f64;
        let (mut differing, mut strong, mut strong_hatched) = (0, 0, 0);
        for row in 0..4 {
            for c in 0..COLUMNS {
                let x = LEFT + c;
                let near = (c.saturating_sub(1)..=(c + 1).min(COLUMNS - 1))
                    .any(|k| waits.get(&(row, k)).is_some_and(|s| *s > 0.0));
                let mut changed = false;
                for y in TOP + ROW * row..TOP + ROW * (row + 1) {
                    if hatch.at(x, y) != plain.at(x, y) {
                        differing += 1;
                        changed |= y < middle(row)[0] - 1;
                        assert!(
                            near,
                            "{window:?}: hatch at column {c} of row {row} without a wait"
                        );
                        assert!(
                            !middle(row).contains(&y),
                            "hatch on row {row}'s middle line"
                        );
                    }
                }
                if waits.get(&(row, c)).is_some_and(|s| *s >= 0.5 * w) {
                    strong += 1;
                    strong_hatched += usize::from(changed);
                }
            }
        }
        assert!(differing > 0 && strong > 0, "{window:?}");
        assert!(
            strong_hatched * 100 >= strong * 95,
            "{window:?}: {strong_hatched} of {strong} half-waiting columns hatched"
        );
        // The plot is the same size; only the legend below grows.
        assert_eq!(plain.width, hatch.width);
        assert!(hatch.height >= plain.height);
    }
}

#[test]
fn every_layer_keeps_the_middle_lines_and_the_path_is_a_bar_where_it_runs() {
    let run = Run::new();
    // 7 iterations: few enough waits (at most 64) for their causes to be marked.
    let window = (0.1, 0.13);
    // No index beside the trace: one pass, said on stderr.
    let (all, err) = run.render("all.png", window, &["--waits"]);
    assert!(err.contains("analysing"), "{err}");
    let o = mpelog(&["analyze", &run.trace, "--write-index"]);
    assert!(o.status.success());
    let (all2, err) = run.render("all2.png", window, &["--waits"]);
    assert!(err.contains("using the wait index"), "{err}");
    assert_eq!(all.rgb, all2.rgb, "the index draws what the analysis draws");
    let (plain, _) = run.render("plain.png", window, &[]);
    let (no_causes, _) = run.render("nocauses.png", window, &["--waits=hatch,path"]);
    assert_ne!(all.rgb, no_causes.rgb, "the causes are marked");
    for row in 0..4 {
        for y in middle(row) {
            for c in 0..COLUMNS {
                assert_eq!(
                    all.at(LEFT + c, y),
                    plain.at(LEFT + c, y),
                    "row {row} column {c}"
                );
            }
        }
    }
    let ix = WaitIndex::read_file(&mpelog::waits::index_path(Path::new(&run.trace))).unwrap();
    let (_, path, jumps) = layout(&ix, window);
    let (only, _) = run.render("path.png", window, &["--waits=path"]);
    let w = (window.1 - window.0) / COLUMNS as f64;
    let mut on = 0;
    for row in 0..4 {
        let y = TOP + ROW * (row + 1) - 4; // inside the bar (5 to 2 px above the edge)
        for c in 0..COLUMNS {
            let s = path.get(&(row, c)).copied().unwrap_or(0.0);
            let near_jump = jumps.iter().any(|&j| j + 1 >= c && j <= c + 1);
            let near_path = (c.saturating_sub(1)..=(c + 1).min(COLUMNS - 1))
                .any(|k| path.contains_key(&(row, k)));
            if s >= 0.5 * w {
                assert_eq!(
                    only.at(LEFT + c, y),
                    [255, 255, 255],
                    "path on row {row} at {c}"
                );
                on += 1;
            } else if !near_path && !near_jump {
                assert_eq!(
                    only.at(LEFT + c, y),
                    plain.at(LEFT + c, y),
                    "no path on row {row} at {c}"
                );
            }
        }
    }
    assert!(on > COLUMNS / 2, "the path runs through the window: {on}");
}

/// The pixels of the plot that `pic` has white and `plain` has not, outside
/// the critical path's bars (from 5 to 2 pixels above each row's lower edge):
/// the connectors of its jumps.
fn connector_pixels(pic: &Png, plain: &Png) -> usize {
    let mut n = 0;
    for row in 0..4 {
        let bar = TOP + ROW * (row + 1) - 5..TOP + ROW * (row + 1) - 1;
        for y in TOP + ROW * row..TOP + ROW * (row + 1) {
            if bar.contains(&y) {
                continue;
            }
            for c in 0..COLUMNS {
                let x = LEFT + c;
                n += usize::from(
                    pic.at(x, y) == [255, 255, 255] && plain.at(x, y) != [255, 255, 255],
                );
            }
        }
    }
    n
}

#[test]
fn jumps_are_drawn_only_while_at_most_one_per_8_columns() {
    // A dense run: every rank in MPI_Sendrecv with its neighbours nearly all
    // the time, so the critical path moves between the timelines hundreds of
    // times in a few milliseconds.
    let dir = tempfile::tempdir().unwrap();
    let trace = common::synth(
        dir.path(),
        "dense.clog2",
        &["--ranks", "4", "--events", "8000", "--dense"],
    );
    let run = Run { dir, trace };
    let o = mpelog(&["analyze", &run.trace, "--write-index"]);
    assert!(o.status.success());
    let ix = WaitIndex::read_file(&mpelog::waits::index_path(Path::new(&run.trace))).unwrap();
    let p = ix.critical_path(0.0, 1.0);
    let (t0, t1) = (p.segments[0].start, p.segments.last().unwrap().end);
    // The whole path: more than twice one jump per 8 columns (the summary
    // keeps the first of a column's for each pair of rows): no connector,
    // the bars alone, still where the path runs.
    let whole = (t0, t1);
    let (_, bars, jumps) = layout(&ix, whole);
    assert!(jumps.len() > 2 * COLUMNS / 8, "{}", jumps.len());
    let (plain, _) = run.render("plain.png", whole, &[]);
    let (path, _) = run.render("path.png", whole, &["--waits=path"]);
    assert_eq!(
        connector_pixels(&path, &plain),
        0,
        "no connector when crowded"
    );
    let w = (whole.1 - whole.0) / COLUMNS as f64;
    let mut on = 0;
    for (&(row, c), &s) in &bars {
        if s >= 0.5 * w {
            let y = TOP + ROW * (row + 1) - 4;
            assert_eq!(
                path.at(LEFT + c, y),
                [255, 255, 255],
                "bar on row {row} at {c}"
            );
            on += 1;
        }
    }
    assert!(on > 0);
    // Zoomed in to a 30th of it: a few jumps, each a connector.
    let few = (t0 + 0.5 * (t1 - t0), t0 + (0.5 + 1.0 / 30.0) * (t1 - t0));
    let (_, _, jumps) = layout(&ix, few);
    assert!(
        !jumps.is_empty() && jumps.len() <= COLUMNS / 16,
        "{}",
        jumps.len()
    );
    let (plain, _) = run.render("plain.png", few, &[]);
    let (path, _) = run.render("path.png", few, &["--waits=path"]);
    assert!(
        connector_pixels(&path, &plain) > 0,
        "the connectors of few jumps"
    );
}

/// Every stripe between dark edges (§6.7), so that a hatch shows over a
/// state of its own colour: in the bands of the columns that wait all
/// through, a good part of the pixels is near black where the plain picture
/// has a state's colour.
#[test]
fn hatch_stripes_have_dark_edges_over_any_state() {
    let run = Run::new();
    let o = mpelog(&["analyze", &run.trace, "--write-index"]);
    assert!(o.status.success());
    let ix = WaitIndex::read_file(&mpelog::waits::index_path(Path::new(&run.trace))).unwrap();
    let window = (0.1, 0.16);
    let (plain, _) = run.render("plain.png", window, &[]);
    let (hatch, _) = run.render("hatch.png", window, &["--waits=hatch"]);
    let (waits, _, _) = layout(&ix, window);
    let w = (window.1 - window.0) / COLUMNS as f64;
    let dark = |p: [u8; 3]| p.iter().map(|&v| u32::from(v)).sum::<u32>() < 120;
    let (mut band, mut edges) = (0, 0);
    for (&(row, c), &s) in &waits {
        if s < 0.9 * w || row >= 4 {
            continue;
        }
        // The top band's first pixels (it is 16 tall in such a column).
        for y in TOP + ROW * row + 4..TOP + ROW * row + 10 {
            let x = LEFT + c;
            if dark(plain.at(x, y)) {
                continue;
            }
            band += 1;
            edges += usize::from(dark(hatch.at(x, y)));
        }
    }
    eprintln!("{edges} of {band} band pixels dark");
    assert!(band > 100, "{band} band pixels");
    assert!(
        edges * 8 >= band,
        "{edges} of {band} band pixels dark: stripes without edges"
    );
}
