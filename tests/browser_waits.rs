//! The viewer's waits in a real headless Chromium (spec/queries.md §6.7,
//! §7.3): the "where time is lost" panel equals `mpelog analyze --from --to
//! --json` for the window shown, zoomed out and in; a click on the worst wait
//! zooms to it and outlines it; its hatch lies over the waiting call and
//! leaves the row's middle line to the state's colour; the causes of the
//! window's waits are marked (a triangle at a barrier's latest arrival, a dot
//! beside the late sender's middle line) in their patterns' colours, which
//! the page takes from the server; the popup of the clicked call gives its
//! wait seconds and the partner that caused them.
//!
//! The run: `mpelog synth --ranks 4 --events 3000 --seed 3
//! --plant-late-sender 0.002 --plant-barrier-skew 0.001` (CLOG2: `serve`
//! converts and analyses it at start): every iteration a Late Sender of 2 ms
//! on timeline 1 caused by 0, and Wait at Barrier of (3 − r) ms on rank r
//! caused by rank 3, so the worst waits are rank 0's 3 ms barrier waits.
//!
//! Without `chromedriver` and `chromium` the test says it skipped, unless `CI`
//! is set: then it fails. `MPELOG_SHOTS_DIR=DIR` saves screenshots.

mod common;
#[path = "common/webdriver.rs"]
mod webdriver;

use serde_json::json;
use std::path::Path;
use webdriver::{programs_or_skip, serve, settled, Browser};

fn shot(b: &Browser, name: &str) {
    if let Some(dir) = std::env::var_os("MPELOG_SHOTS_DIR") {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(Path::new(&dir).join(format!("{name}.png")), b.screenshot()).unwrap();
    }
}

/// The window shown and the panel's patterns (name, seconds), once the
/// panel is that of the latest window.
fn panel(b: &Browser) -> ((f64, f64), Vec<(String, f64)>) {
    b.wait_for(
        "the panel of the window",
        "const s = window.mpelog.state; return s.done === s.seq && s.lostSeq > 0 && s.lostDone === s.lostSeq \
         && s.lost && s.lost.from === s.from && s.lost.to === s.to;",
        120,
    );
    let v = b.js(
        "const s = window.mpelog.state; \
         return { w: [s.from, s.to], rows: [...document.querySelectorAll('#lost tr[data-name]')].map(t => [t.dataset.name, Number(t.dataset.seconds)]) };",
        json!([]),
    );
    let rows = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r[0].as_str().unwrap().to_string(), r[1].as_f64().unwrap()))
        .collect();
    (
        (v["w"][0].as_f64().unwrap(), v["w"][1].as_f64().unwrap()),
        rows,
    )
}

/// The panel equals `analyze --from --to --json`'s patterns, in its order.
fn assert_panel_is_analyze(trace: &str, (from, to): (f64, f64), rows: &[(String, f64)]) {
    let v = common::window_json(&["analyze", trace], (from, to));
    let mut theirs: Vec<(String, f64)> = v["patterns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["seconds"].as_f64().unwrap(),
            )
        })
        .filter(|(_, s)| *s > 0.0)
        .collect();
    theirs.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    assert_eq!(
        rows.iter().map(|r| &r.0).collect::<Vec<_>>(),
        theirs.iter().map(|r| &r.0).collect::<Vec<_>>(),
        "[{from}, {to}]"
    );
    for (a, b) in rows.iter().zip(&theirs) {
        assert!((a.1 - b.1).abs() < 1e-9, "{}: {} against {}", a.0, a.1, b.1);
    }
}

#[test]
fn the_panel_equals_analyze_and_a_wait_is_zoomed_to_and_explained() {
    let Some((driver, chromium)) =
        programs_or_skip("the_panel_equals_analyze_and_a_wait_is_zoomed_to_and_explained")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let trace = common::late_sender_run(dir.path());
    let server = serve(Path::new(&trace));
    let b = Browser::start(&driver, &chromium, (1400, 800));
    b.goto(&format!("http://127.0.0.1:{}/", server.port));
    settled(&b, 0);
    // One palette: the page's pattern colours are render's.
    let colours = b.js("return window.mpelog.PATTERN_COLORS;", json!([]));
    for p in mpelog::analysis::Pattern::ALL {
        assert_eq!(
            colours[p.code().to_string()],
            mpelog::render::pattern_colour(p),
            "{p:?}"
        );
    }
    let (whole, rows) = panel(&b);
    assert_eq!(rows[0].0, "Wait at Barrier", "{rows:?}");
    assert_panel_is_analyze(&trace, whole, &rows);
    // The legend's last entry: the critical path, in its colour (render's).
    let path = b.js(
        "const r = [...document.querySelectorAll('#lost tr')].pop(); \
         return [r.dataset.path !== undefined, r.children[1].textContent, r.querySelector('.hatch').style.background];",
        json!([]),
    );
    assert_eq!(path[0], true, "{path}");
    assert_eq!(path[1], "critical path");
    assert_eq!(mpelog::render::PATH_COLOUR, "#ffffff");
    assert!(
        path[2]
            .as_str()
            .unwrap()
            .contains("rgb(255, 255, 255) 3px, rgb(0, 0, 0) 3px"),
        "{path}"
    );
    shot(&b, "waits-whole");

    // Zoomed in twice: the panel of the new window.
    for _ in 0..2 {
        let seq = b
            .js("return window.mpelog.state.seq;", json!([]))
            .as_u64()
            .unwrap();
        b.click("#zoomin");
        settled(&b, seq);
    }
    let (zoomed, rows) = panel(&b);
    assert!((zoomed.1 - zoomed.0) < 0.3 * (whole.1 - whole.0));
    assert_panel_is_analyze(&trace, zoomed, &rows);

    // The worst wait: a click zooms to it and outlines it.
    let seq = b
        .js("return window.mpelog.state.seq;", json!([]))
        .as_u64()
        .unwrap();
    let worst = b.js("return window.mpelog.state.lost.instances[0];", json!([]));
    b.click("#lost .inst");
    settled(&b, seq);
    let st = b.js(
        "const s = window.mpelog.state; return { w: [s.from, s.to], outline: s.outline };",
        json!([]),
    );
    let (ws, we) = (
        worst["start"].as_f64().unwrap(),
        worst["end"].as_f64().unwrap(),
    );
    let (from, to) = (st["w"][0].as_f64().unwrap(), st["w"][1].as_f64().unwrap());
    assert!(
        from < ws && we < to && (to - from) < 4.0 * (we - ws),
        "{st}"
    );
    assert_eq!(st["outline"]["timeline"], worst["timeline"]);
    shot(&b, "waits-worst");

    // Its hatch: over the waiting call, never on the row's middle line
    // (whose pixels there keep the call's colour).
    let px = b.js(
        "const m = window.mpelog, s = m.state, L = m.layout(), a = s.answer, w = arguments[0]; \
         const row = a.rows.findIndex(r => r.lines.includes(w.timeline)), d = L.r.index.get(a.rows[row].key.join(',')); \
         const c = document.getElementById('canvas'), g = c.getContext('2d'); \
         const hex = k => [1, 3, 5].map(i => parseInt(k.slice(i, i + 2), 16)); \
         const want = hex(m.PATTERN_COLORS[w.code]); \
         const x0 = Math.ceil(m.xOf(w.start, L)) + 2, x1 = Math.floor(m.xOf(w.end, L)) - 2, top = m.TOP + L.rh * d; \
         const count = (y0, y1) => { let n = 0; const px = g.getImageData(x0, y0, x1 - x0, y1 - y0).data; \
           for (let i = 0; i < px.length; i += 4) if (px[i] === want[0] && px[i + 1] === want[1] && px[i + 2] === want[2]) n++; return n; }; \
         const mid = Math.floor(top + L.rh / 2); \
         const before = count(Math.floor(top + 3), Math.floor(top + L.rh / 4)); \
         const middle = count(mid - 1, mid + 1); \
         s.showWaits = false; document.getElementById('waitsbox').checked = false; document.getElementById('waitsbox').onchange(); \
         const off = count(Math.floor(top + 3), Math.floor(top + L.rh / 4)); \
         document.getElementById('waitsbox').click(); \
         return { before, middle, off, x: (x0 + x1) / 2, y: mid, rect: c.getBoundingClientRect().toJSON() };",
        json!([worst]),
    );
    assert!(
        px["before"].as_u64().unwrap() > 20,
        "hatch over the wait: {px}"
    );
    assert_eq!(px["middle"], 0, "no hatch on the middle line: {px}");
    assert_eq!(px["off"], 0, "none with waits off: {px}");

    // The causes of the window's waits (at most 64, each at least a column
    // wide): a triangle at the top of the last rank's row at the barrier's
    // latest arrival, a dot beside the late sender's middle line; each pixel
    // in the pattern's colour with waits on, another with waits off.
    panel(&b);
    let marks = b.js(
        "const m = window.mpelog, s = m.state, L = m.layout(), a = s.answer; \
         const c = document.getElementById('canvas'), g = c.getContext('2d'); \
         const hex = k => [1, 3, 5].map(i => parseInt(k.slice(i, i + 2), 16)); \
         const rowOf = t => { const r = a.rows.findIndex(x => x.lines.includes(t)); return L.r.index.get(a.rows[r].key.join(',')); }; \
         const spots = s.lost.causes.map(w => { const by = rowOf(w.partner), me = rowOf(w.timeline), top = m.TOP + L.rh * by - L.scroll; \
           const y = m.PATTERN_LEAN[w.code] === 'right' ? top + L.rh / 2 + (me >= by ? 6 : -6) : top + 3; \
           return { x: Math.floor(m.xOf(w.cause, L)), y: Math.floor(y), want: hex(m.PATTERN_COLORS[w.code]), code: w.code }; }) \
           .filter(p => p.x >= m.LEFT && p.x < m.LEFT + L.plot); \
         const hits = () => spots.map(p => { const d = g.getImageData(p.x, p.y, 1, 1).data; return d[0] === p.want[0] && d[1] === p.want[1] && d[2] === p.want[2]; }); \
         const on = hits(); \
         document.getElementById('waitsbox').click(); const off = hits(); document.getElementById('waitsbox').click(); \
         return { n: s.lost.causes.length, codes: spots.map(p => p.code), on, off };",
        json!([]),
    );
    let on = marks["on"].as_array().unwrap();
    let codes = marks["codes"].as_array().unwrap();
    assert!(
        codes.contains(&json!(0)) && codes.contains(&json!(5)),
        "a Late Sender's and a barrier's causes in the window: {marks}"
    );
    assert!(marks["n"].as_u64().unwrap() <= 64, "{marks}");
    assert!(on.iter().all(|h| h == true), "every cause marked: {marks}");
    assert!(
        marks["off"].as_array().unwrap().iter().all(|h| h == false),
        "no marks with waits off: {marks}"
    );
    shot(&b, "waits-causes");

    // The popup of the waiting call: its wait seconds and the partner.
    let (x, y) = (
        px["rect"]["left"].as_f64().unwrap() + px["x"].as_f64().unwrap(),
        px["rect"]["top"].as_f64().unwrap() + px["y"].as_f64().unwrap(),
    );
    b.click_at(x.round() as i64, y.round() as i64);
    b.wait_for(
        "the popup's waits",
        "return document.getElementById('popup').dataset.waitSeconds !== undefined;",
        30,
    );
    let p = b.js(
        "const p = document.getElementById('popup'); return { secs: Number(p.dataset.waitSeconds), partners: p.dataset.partners, text: p.textContent };",
        json!([]),
    );
    assert!(
        (p["secs"].as_f64().unwrap() - worst["seconds"].as_f64().unwrap()).abs() < 1e-9,
        "{p}"
    );
    assert_eq!(p["partners"], worst["partner"].to_string(), "{p}");
    assert!(
        p["text"].as_str().unwrap().contains("caused by timeline 3"),
        "{p}"
    );
    shot(&b, "waits-popup");
}
