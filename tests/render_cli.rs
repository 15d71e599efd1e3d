//! `mpelog render`: the SVG of a corpus file is a golden snapshot; the PNG
//! decodes to the SVG's size, with the plot's black background and, on every
//! timeline row, the colour of that row's longest state where that state lies.

mod common;

use common::mpelog;
use slog2_format::types::{topology, Drawable};
use slog2_format::Slog2Reader;
use std::io::Cursor;

fn render(input: &str, out: &std::path::Path, extra: &[&str]) {
    let mut args = vec!["render", input, "-o", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = mpelog(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn svg_of_a_corpus_file_matches_the_golden_picture() {
    let Some(root) = common::corpus() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for (name, file) in [
        ("comm1_isr_n4", "mpe/comm1_isr_n4.slog2"),
        ("cpilog_n4", "mpe/cpilog_n4.slog2"),
    ] {
        let out = dir.path().join("a.svg");
        render(&common::corpus_file(&root, file), &out, &["--width", "800"]);
        let svg = std::fs::read_to_string(&out).unwrap();
        insta::assert_snapshot!(format!("render_{name}"), svg);
        // Deterministic: the same picture twice.
        render(&common::corpus_file(&root, file), &out, &["--width", "800"]);
        assert_eq!(std::fs::read_to_string(&out).unwrap(), svg);
    }
}

#[test]
fn png_shows_each_rows_states_in_their_colours() {
    let Some(root) = common::corpus() else {
        return;
    };
    let input = common::corpus_file(&root, "mpe/p2p_n8.slog2");
    let dir = tempfile::tempdir().unwrap();
    let (svg, png) = (dir.path().join("a.svg"), dir.path().join("a.png"));
    render(&input, &svg, &["--width", "1000"]);
    render(&input, &png, &["--width", "1000"]);
    let text = std::fs::read_to_string(&svg).unwrap();
    let attr = |k: &str| -> u32 {
        let v = text
            .split(&format!(" {k}=\""))
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        v.parse::<f64>().unwrap() as u32
    };
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (attr("width"), attr("height")));
    let px = |x: u32, y: u32| {
        let i = ((y * info.width + x) * 4) as usize;
        [buf[i], buf[i + 1], buf[i + 2]]
    };
    assert_eq!(px(5, info.height - 2), [255, 255, 255], "white page");

    // The layout render uses: 80 px of labels, 20 px right margin, 30 px top,
    // 40 px rows, rows in world_rank order.
    let bytes = std::fs::read(&input).unwrap();
    let mut r = Slog2Reader::new(Cursor::new(&bytes[..])).unwrap();
    let cats = r.categories().unwrap().value.categories.clone();
    let root = r.tree_dir().unwrap().value.entries[0];
    let (t0, t1) = (root.earliest, root.latest);
    let plot = 1000.0 - 100.0;
    let answer = r.window(t0, t1 + 1e-9).unwrap();
    let mut checked = 0;
    for rank in 0..8 {
        // This row's longest state not inside another.
        let states: Vec<_> = answer
            .drawables
            .iter()
            .filter_map(|d| match &d.value {
                Drawable::Primitive(p) => Some(p),
                _ => None,
            })
            .filter(|p| {
                cats.iter()
                    .any(|c| c.index == p.category && c.topology == topology::STATE)
                    && p.vertices[0].line_id == rank
            })
            .collect();
        let outer = states
            .iter()
            .filter(|p| {
                !states.iter().any(|q| {
                    !std::ptr::eq(**p, *q)
                        && q.earliest() <= p.earliest()
                        && p.latest() <= q.latest()
                })
            })
            .max_by(|a, b| (a.latest() - a.earliest()).total_cmp(&(b.latest() - b.earliest())))
            .unwrap();
        let c = cats.iter().find(|c| c.index == outer.category).unwrap();
        let want = [c.argb[1], c.argb[2], c.argb[3]];
        let x = 80.0 + ((outer.earliest() + outer.latest()) / 2.0 - t0) / (t1 - t0) * plot;
        let top = 30 + 40 * rank as u32;
        // Most pixels of a vertical strip near the bar's top edge (arrows are
        // one pixel wide and may cross it).
        let hits = (top + 3..top + 9)
            .filter(|&y| px(x as u32, y) == want)
            .count();
        assert!(
            hits >= 4,
            "rank {rank}: {} at x={x:.0} is {want:?} ({hits} of 6)",
            c.name.text()
        );
        checked += 1;
    }
    assert_eq!(checked, 8);
    // Outside the states, the plot is black.
    assert_eq!(
        px(82, 30 + 40 * 7 + 20),
        [0, 0, 0],
        "rank 7 starts late: black before"
    );
}

#[test]
fn a_zoomed_out_picture_draws_shadows_and_stays_small() {
    let dir = tempfile::tempdir().unwrap();
    let clog2 = common::synth(
        dir.path(),
        "t.clog2",
        &["--events", "200000", "--seed", "2"],
    );
    let slog2 = dir.path().join("t.slog2");
    let slog2 = slog2.to_str().unwrap();
    let o = mpelog(&["convert", &clog2, "-o", slog2, "--leaf-bytes", "1k"]);
    assert!(o.status.success());
    let info: serde_json::Value =
        serde_json::from_str(&common::stdout(&mpelog(&["info", slog2, "--json"]))).unwrap();
    let primitives = info["record_counts"]["primitives"].as_u64().unwrap();
    let out = dir.path().join("a.svg");
    let o = mpelog(&[
        "render",
        slog2,
        "-o",
        out.to_str().unwrap(),
        "--width",
        "300",
    ]);
    assert!(o.status.success());
    let said = String::from_utf8_lossy(&o.stderr);
    let shadows: u64 = said
        .split(" shadows")
        .next()
        .unwrap()
        .rsplit(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(shadows > 0, "{said}");
    let svg = std::fs::read_to_string(&out).unwrap();
    let elements = svg.matches("<rect").count() + svg.matches("<line").count();
    // 4 rows, 300 pixels: a few elements per row and pixel (a summary box and
    // its visible parts, a state per nesting depth, arrows, events).
    assert!(
        elements < 4 * 300 * 12 && (elements as u64) < primitives / 5,
        "{elements} elements for {primitives} primitives: the picture is bounded by its pixels"
    );
    // Zoomed in on 1% of the trace: real drawables again.
    let (t0, t1) = (
        info["time_min"].as_f64().unwrap(),
        info["time_max"].as_f64().unwrap(),
    );
    let (a, b) = (t0 + 0.5 * (t1 - t0), t0 + 0.51 * (t1 - t0));
    let o = mpelog(&[
        "render",
        slog2,
        "-o",
        out.to_str().unwrap(),
        "--from",
        &a.to_string(),
        "--to",
        &b.to_string(),
    ]);
    assert!(o.status.success());
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(said.contains(" 0 shadows"), "{said}");
}

/// A generated trace (4 ranks) to draw windows of.
fn small_trace() -> Vec<u8> {
    common::generated_slog2(3, 2000, 4096)
}

/// A window must be finite and wider than nothing: else the picture is
/// refused as empty (infinite bounds would put every time on one column).
#[test]
fn an_empty_or_infinite_window_is_refused() {
    let bytes = small_trace();
    for (from, to) in [
        (f64::NEG_INFINITY, 0.5),
        (0.0, f64::INFINITY),
        (0.25, 0.25),
        (0.5, 0.25),
        (f64::NAN, 0.5),
    ] {
        let mut r = Slog2Reader::new(Cursor::new(&bytes[..])).unwrap();
        let opts = mpelog::render::Options::default().window(Some(from), Some(to));
        let e = mpelog::render::svg(&mut r, &opts).unwrap_err();
        assert!(
            matches!(e, mpelog::render::Error::EmptyWindow(..)),
            "[{from}, {to}): {e:?}"
        );
    }
}

/// The title's window and the axis's tick labels as `render` writes them.
fn title_and_ticks(bytes: &[u8], from: f64, to: f64) -> (String, Vec<String>) {
    let mut r = Slog2Reader::new(Cursor::new(bytes)).unwrap();
    let opts = mpelog::render::Options::default().window(Some(from), Some(to));
    let (svg, _) = mpelog::render::svg(&mut r, &opts).unwrap();
    let text = |l: &str| {
        l.rsplit("\">")
            .next()
            .unwrap()
            .split("</text>")
            .next()
            .unwrap()
            .to_string()
    };
    let title = svg
        .lines()
        .find(|l| l.starts_with("<text x=\"80\" y=\"18\">"))
        .unwrap();
    let window = text(title).split(" — ").nth(1).unwrap().to_string();
    let ticks = svg
        .lines()
        .filter(|l| l.starts_with("<line") && l.contains(r##"stroke="#000000"/><text"##))
        .map(text)
        .collect();
    (window, ticks)
}

/// A time that rounds to zero is written `0`, never `-0`, with as many
/// decimals as the window's width needs; other negative times keep their
/// sign.
#[test]
fn title_and_tick_labels_never_say_minus_zero() {
    let bytes = small_trace();
    // From just below 0: the title's 3 decimals (a window 0.5 s wide) make
    // it 0.000, and the first tick, at -0 × 0.1, is 0.0.
    let (window, ticks) = title_and_ticks(&bytes, -0.0001, 0.5);
    assert_eq!(window, "[0.000, 0.500] s");
    assert_eq!(ticks, ["0.0", "0.1", "0.2", "0.3", "0.4", "0.5"]);
    // From 0 exactly.
    let (window, ticks) = title_and_ticks(&bytes, 0.0, 0.5);
    assert_eq!(window, "[0.000, 0.500] s");
    assert_eq!(ticks[0], "0.0");
    // Negative times.
    let (window, ticks) = title_and_ticks(&bytes, -1.0, 1.0);
    assert_eq!(window, "[-1.00, 1.00] s");
    assert_eq!(ticks, ["-1.0", "-0.5", "0.0", "0.5", "1.0"]);
    // A window wider than the largest number: 6 decimals.
    let (window, _) = title_and_ticks(&bytes, -1e308, 1e308);
    let (a, b) = window.split_once(", ").unwrap();
    assert!(
        a.ends_with(".000000") && b.ends_with(".000000] s"),
        "{window}"
    );
}

/// The picture is at most the widest plot plus its margins wide.
#[test]
fn the_widest_picture_is_the_widest_plot_and_its_margins() {
    let widest = mpelog::summary::MAX_COLUMNS + 100;
    assert_eq!(
        mpelog::render::Options::default().width(u32::MAX).width,
        widest
    );
    let dir = tempfile::tempdir().unwrap();
    let (input, png) = (dir.path().join("t.slog2"), dir.path().join("t.png"));
    std::fs::write(&input, small_trace()).unwrap();
    render(input.to_str().unwrap(), &png, &["--width", "100000"]);
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()));
    let reader = decoder.read_info().unwrap();
    assert_eq!(reader.info().width, widest);
}
