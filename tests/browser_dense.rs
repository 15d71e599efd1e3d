//! The viewer of `mpelog serve` on a dense generated trace (`synth
//! --dense`: every rank almost always in MPI_Sendrecv with its ring
//! neighbours), in a real headless Chromium: in a screenshot of the canvas,
//! each row's middle line shows the colours of its states on at least 90 %
//! of its pixels, whole and zoomed in, and the messages are still seen:
//! yellow ticks at the rows' edges (their pixels counted), whose popup and
//! the note under the legend say how many messages they stand for, hidden
//! with the arrow category; zoomed in far enough, lines with heads again.
//!
//! Without `chromedriver` and `chromium` the tests say they skipped, unless
//! `CI` is set: then they fail. `MPELOG_SHOTS_DIR=DIR` saves screenshots.

mod common;
#[path = "common/webdriver.rs"]
mod webdriver;

use common::{mpelog, stdout};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::Path;
use webdriver::{programs_or_skip, serve, settled, Browser};

/// A screenshot decoded (saved to `MPELOG_SHOTS_DIR` if set).
fn shot(b: &Browser, name: &str) -> (u32, u32, Vec<u8>) {
    let png = b.screenshot();
    if let Some(dir) = std::env::var_os("MPELOG_SHOTS_DIR") {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(Path::new(&dir).join(format!("{name}.png")), &png).unwrap();
    }
    webdriver::decode_png(&png)
}

/// The page's geometry and, per displayed row, its top, and the colours of
/// the state categories the answer gives it time (its cells' shares and its
/// wide states).
fn geometry(b: &Browser) -> Value {
    b.js(
        "const m = window.mpelog, s = m.state, a = s.answer, L = m.layout(), r = document.getElementById('canvas').getBoundingClientRect(); \
         const disp = a.rows.map(x => L.r.index.has(x.key.join(',')) ? L.r.index.get(x.key.join(',')) : -1); \
         const cats = a.rows.map(() => new Set()); \
         for (const c of a.cells) for (let i = 4; i + 1 < c.length; i += 2) if (c[i] !== null && c[i + 1] > 0) cats[c[0]].add(c[i]); \
         for (const st of a.states) cats[st[0]].add(st[2]); \
         const colour = k => s.legend.get(k).color; \
         const rows = []; \
         a.rows.forEach((x, i) => { if (disp[i] >= 0) rows.push({ top: m.TOP + L.rh * disp[i] - L.scroll, colours: [...cats[i]].filter(k => s.legend.get(k).topology === 'State').map(colour) }); }); \
         return { cx: r.left, cy: r.top, left: m.LEFT, plot: L.plot, rh: L.rh, rows, style: a.arrow_style, ticks: a.ticks.length, \
                  arrows: a.arrows.length, from: s.from, to: s.to, note: document.getElementById('ticksnote').textContent, \
                  noteShown: document.getElementById('ticksnote').style.display !== 'none' };",
        json!([]),
    )
}

fn rgb(hex: &str) -> [u8; 3] {
    let c = u32::from_str_radix(&hex[1..], 16).unwrap();
    [(c >> 16) as u8, (c >> 8) as u8, c as u8]
}

/// Per row, the share of the pixels of its middle line (in the screenshot)
/// in one of its states' colours.
fn middle_lines(g: &Value, (w, _, rgba): &(u32, u32, Vec<u8>)) -> Vec<f64> {
    let f = |v: &Value| v.as_f64().unwrap();
    let (cx, cy, left, plot, rh) = (
        f(&g["cx"]),
        f(&g["cy"]),
        f(&g["left"]),
        f(&g["plot"]),
        f(&g["rh"]),
    );
    let x0 = (cx + left).ceil() as u32;
    let x1 = (cx + left + plot).floor() as u32;
    g["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            let colours: BTreeSet<[u8; 3]> = row["colours"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| rgb(c.as_str().unwrap()))
                .collect();
            let y = (cy + f(&row["top"]) + rh / 2.0).floor() as u32;
            let hits = (x0..x1)
                .filter(|&x| {
                    let k = ((y * w + x) * 4) as usize;
                    colours.contains(&[rgba[k], rgba[k + 1], rgba[k + 2]])
                })
                .count();
            hits as f64 / f64::from(x1 - x0)
        })
        .collect()
}

/// Pure yellow pixels within 8 px of each row edge (the top of the first
/// row, between rows, the bottom of the last), and in how many columns.
fn yellow_edges(g: &Value, (w, _, rgba): &(u32, u32, Vec<u8>)) -> Vec<(usize, usize)> {
    let f = |v: &Value| v.as_f64().unwrap();
    let (cx, cy, left, plot, rh) = (
        f(&g["cx"]),
        f(&g["cy"]),
        f(&g["left"]),
        f(&g["plot"]),
        f(&g["rh"]),
    );
    let rows = g["rows"].as_array().unwrap();
    let first = f(&rows[0]["top"]);
    (0..=rows.len())
        .map(|e| {
            let edge = cy + first + rh * e as f64;
            let (y0, y1) = (
                (edge - 8.0).max(cy + first) as u32,
                (edge + 8.0).min(cy + first + rh * rows.len() as f64) as u32,
            );
            let (mut pixels, mut columns) = (0, 0);
            for x in (cx + left).ceil() as u32..(cx + left + plot).floor() as u32 {
                let n = (y0..y1)
                    .filter(|&y| {
                        let k = ((y * w + x) * 4) as usize;
                        rgba[k..k + 3] == [255, 255, 0]
                    })
                    .count();
                pixels += n;
                columns += usize::from(n > 0);
            }
            (pixels, columns)
        })
        .collect()
}

#[test]
fn the_viewer_shows_the_states_and_the_messages_of_a_dense_trace() {
    let Some((driver, chromium)) =
        programs_or_skip("the_viewer_shows_the_states_and_the_messages_of_a_dense_trace")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let clog2 = common::synth(
        dir.path(),
        "dense.clog2",
        &["--dense", "--events", "300000", "--seed", "42"],
    );
    let slog2 = dir.path().join("dense.slog2");
    stdout(&mpelog(&["convert", &clog2, "-o", slog2.to_str().unwrap()]));
    let server = serve(&slog2);
    let b = Browser::start(&driver, &chromium, (1400, 800));
    b.goto(&format!("http://127.0.0.1:{}/", server.port));
    settled(&b, 0);

    // The whole trace: ticks.
    let g = geometry(&b);
    assert_eq!(g["style"], "ticks", "{g}");
    assert_eq!(g["rows"].as_array().unwrap().len(), 4);
    let png = shot(&b, "dense-viewer-whole");
    let middles = middle_lines(&g, &png);
    eprintln!("whole trace: middle lines {middles:?}");
    for (r, m) in middles.iter().enumerate() {
        assert!(*m >= 0.9, "row {r}: {:.1} % of its middle line", 100.0 * m);
    }
    let edges = yellow_edges(&g, &png);
    eprintln!("whole trace: yellow (pixels, columns) per edge {edges:?}");
    let plot = g["plot"].as_f64().unwrap() as usize;
    // A bar across each gap between neighbours, nothing on the outer edges.
    for (e, (pixels, columns)) in edges.iter().enumerate() {
        if e == 0 || e == edges.len() - 1 {
            assert_eq!(*pixels, 0, "edge {e}");
        } else {
            assert!(
                columns * 10 >= plot * 9,
                "edge {e}: ticks in {columns} of {plot} columns"
            );
        }
    }
    // The note under the legend says what a tick stands for.
    assert_eq!(g["noteShown"], true);
    let note = g["note"].as_str().unwrap();
    assert!(
        note.contains("sent in the window") && note.contains("message ends each"),
        "{note}"
    );
    // A click on a tick between rows 0 and 1 tells its count.
    let f = |v: &Value| v.as_f64().unwrap();
    let rows = g["rows"].as_array().unwrap();
    let (x, y) = (
        f(&g["cx"]) + f(&g["left"]) + f(&g["plot"]) / 2.0,
        f(&g["cy"]) + f(&rows[1]["top"]) + 1.0,
    );
    b.click_at(x.round() as i64, y.round() as i64);
    let popup = b.js(
        "const p = document.getElementById('popup'); return p.style.display === 'block' ? p.textContent : null;",
        json!([]),
    );
    let popup = popup.as_str().expect("a popup on the tick");
    assert!(popup.contains("message ends in this tick"), "{popup}");
    b.js(
        "window.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape'}));",
        json!([]),
    );

    // The arrow category toggled off hides the ticks; on again, back.
    let arrow = b.js(
        "return window.mpelog.state.info.legend.find(c => c.index >= 0 && c.topology === 'Arrow').index;",
        json!([]),
    );
    let cb = format!("#cats input[data-category=\"{arrow}\"]");
    b.click(&cb);
    let hidden = yellow_edges(&g, &shot(&b, "dense-viewer-no-messages"));
    assert!(hidden.iter().all(|(p, _)| *p == 0), "{hidden:?}");
    b.click(&cb);
    assert_eq!(
        yellow_edges(&g, &shot(&b, "dense-viewer-whole-again")),
        edges
    );

    // Zoomed in to 1/50 (ticks) and to 1/20 000 of the trace (lines).
    let (from, to) = (f(&g["from"]), f(&g["to"]));
    let mid = from + 0.37 * (to - from);
    for (n, style) in [(50.0, "ticks"), (20_000.0, "lines")] {
        let seq = b
            .js("return window.mpelog.state.seq;", json!([]))
            .as_u64()
            .unwrap();
        b.js(
            "const s = window.mpelog.state; s.from = arguments[0]; s.to = arguments[1]; window.mpelog.fetchWindow();",
            json!([mid, mid + (to - from) / n]),
        );
        settled(&b, seq);
        let g = geometry(&b);
        assert_eq!(g["style"], style, "1/{n}: {g}");
        let png = shot(&b, &format!("dense-viewer-zoom-{n}"));
        let middles = middle_lines(&g, &png);
        eprintln!("1/{n} of the trace: middle lines {middles:?}");
        for (r, m) in middles.iter().enumerate() {
            assert!(*m >= 0.9, "1/{n}: row {r}: {:.1} %", 100.0 * m);
        }
        if style == "lines" {
            assert!(g["arrows"].as_u64().unwrap() > 0 && g["ticks"] == 0);
            assert_eq!(g["noteShown"], false);
        }
    }
}
