//! The viewer's tools in a real headless Chromium (spec/queries.md §6,
//! `mpelog serve`): search and scan zoom to the drawable `mpelog window`
//! finds; the duration ruler shows the time between the points dragged; the
//! statistics panel equals `mpelog stats` for the window; a link (the URL
//! fragment) reopens the same view; a 1,024-timeline trace scrolls, asking
//! only for the rows on screen, with a first frame from `api/info` at once.
//!
//! Without `chromedriver` and `chromium` the tests say they skipped, unless
//! `CI` is set: then they fail. `MPELOG_SHOTS_DIR=DIR` saves screenshots.

mod common;
#[path = "common/webdriver.rs"]
mod webdriver;

use common::{mpelog, stdout};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use webdriver::{programs_or_skip, serve, settled, Browser};

fn shot(b: &Browser, name: &str) {
    if let Some(dir) = std::env::var_os("MPELOG_SHOTS_DIR") {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(Path::new(&dir).join(format!("{name}.png")), b.screenshot()).unwrap();
    }
}

fn corpus_p2p(test: &str) -> Option<PathBuf> {
    let Some(root) = common::corpus() else {
        eprintln!("SKIPPED {test}: no corpus (MPELOG_CORPUS)");
        return None;
    };
    Some(common::corpus_file(&root, "mpe/p2p_n8.slog2").into())
}

/// The viewer showing `file`, drawn: the server, the browser, and the
/// programs (to start another browser); `None` after saying why the test is
/// skipped.
struct Viewer {
    _server: webdriver::Server,
    b: Browser,
    programs: (PathBuf, PathBuf),
    file: PathBuf,
}

fn open(test: &str, file: Option<&Path>) -> Option<Viewer> {
    let programs = programs_or_skip(test)?;
    let p2p;
    let file = match file {
        Some(f) => f,
        None => {
            p2p = corpus_p2p(test)?;
            &p2p
        }
    };
    let server = serve(file);
    let b = Browser::start(&programs.0, &programs.1, (1400, 800));
    b.goto(&format!("http://127.0.0.1:{}/", server.port));
    settled(&b, 0);
    Some(Viewer {
        _server: server,
        b,
        programs,
        file: file.to_path_buf(),
    })
}

fn seq(b: &Browser) -> u64 {
    b.js("return window.mpelog.state.seq;", json!([]))
        .as_u64()
        .unwrap()
}

fn window_of(b: &Browser) -> (f64, f64) {
    let v = b.js(
        "const s = window.mpelog.state; return [s.from, s.to];",
        json!([]),
    );
    (v[0].as_f64().unwrap(), v[1].as_f64().unwrap())
}

/// Every state primitive of `file` (composites' parts one by one) as
/// (category, start, end, line), from `mpelog window --json`.
fn states(file: &Path) -> Vec<(i64, f64, f64, i64)> {
    let text = stdout(&mpelog(&["window", file.to_str().unwrap(), "--json"]));
    let mut out = Vec::new();
    for line in text.lines().filter(|l| l.starts_with('{')) {
        let v: Value = serde_json::from_str(line).unwrap();
        let parts = match v["parts"].as_array() {
            Some(p) => p.clone(),
            None => vec![v.clone()],
        };
        for p in parts {
            if p["topology"] == "State" {
                out.push((
                    p["category"].as_i64().unwrap(),
                    p["start"].as_f64().unwrap(),
                    p["end"].as_f64().unwrap(),
                    p["vertices"][0][1].as_i64().unwrap(),
                ));
            }
        }
    }
    out
}

#[test]
fn search_zooms_to_the_next_and_previous_drawable() {
    let Some(v) = open("search_zooms_to_the_next_and_previous_drawable", None) else {
        return;
    };
    let (b, file) = (&v.b, &v.file);
    let info: Value = b.js("return window.mpelog.state.info;", json!([]));
    let recv = info["legend"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "MPI_Recv")
        .expect("p2p_n8 has MPI_Recv")["index"]
        .as_i64()
        .unwrap();
    let t0 = info["time_min"].as_f64().unwrap();
    // The MPI_Recv states in start order (the longer first on ties).
    let mut recvs: Vec<(i64, f64, f64, i64)> =
        states(file).into_iter().filter(|s| s.0 == recv).collect();
    recvs.sort_by(|a, b| {
        a.1.total_cmp(&b.1)
            .then(b.2.total_cmp(&a.2))
            .then(a.3.cmp(&b.3))
    });
    recvs.dedup_by(|a, b| a.1 == b.1);
    assert!(recvs.len() >= 3 && recvs[0].1 > t0);
    b.js(
        "document.getElementById('find').value = 'MPI_Recv';",
        json!([]),
    );
    let check = |want: &(i64, f64, f64, i64), what: &str| {
        let found = b.js("return window.mpelog.state.found;", json!([]));
        assert_eq!(found["category"].as_i64(), Some(recv), "{what}");
        assert_eq!(found["start"].as_f64(), Some(want.1), "{what}: {found}");
        assert_eq!(found["end"].as_f64(), Some(want.2), "{what}: {found}");
        assert_eq!(found["line"].as_i64(), Some(want.3), "{what}: {found}");
        // Zoomed to it: the window holds it, about four times its length.
        let (f, t) = window_of(b);
        assert!(f <= want.1 && want.2 <= t, "{what}: [{f}, {t}] holds it");
        let d = want.2 - want.1;
        assert!(
            (t - f) <= 4.0 * d * (1.0 + 1e-9) + 1e-9,
            "{what}: zoomed to it"
        );
    };
    let search = |button: &str| {
        let before = b
            .js("return window.mpelog.state.searchDone || 0;", json!([]))
            .as_u64()
            .unwrap();
        let s = seq(b);
        b.click(button);
        b.wait_for(
            "the search",
            &format!("return (window.mpelog.state.searchDone || 0) > {before};"),
            60,
        );
        settled(b, s);
    };
    search("#findnext");
    check(&recvs[0], "next from the start");
    shot(b, "features-search");
    search("#findnext");
    check(&recvs[1], "next again");
    search("#findnext");
    check(&recvs[2], "and again");
    search("#findprev");
    check(&recvs[1], "previous");
}

#[test]
fn the_ruler_shows_the_duration_between_the_points_dragged() {
    let Some(v) = open(
        "the_ruler_shows_the_duration_between_the_points_dragged",
        None,
    ) else {
        return;
    };
    let b = &v.b;
    let g = b.js(
        "const m = window.mpelog, L = m.layout(), r = document.getElementById('canvas').getBoundingClientRect(); \
         return {left: m.LEFT, plot: L.plot, cx: r.left, cy: r.top, from: m.state.from, to: m.state.to};",
        json!([]),
    );
    let f = |k: &str| g[k].as_f64().unwrap();
    let (x0, x1) = (f("left") + 100.0, f("left") + 400.0);
    let y = 60.0;
    b.alt_drag(
        ((f("cx") + x0) as i64, (f("cy") + y) as i64),
        ((f("cx") + x1) as i64, (f("cy") + y) as i64),
    );
    let shown = b.js("return document.body.dataset.ruler || null;", json!([]));
    let dt: f64 = shown
        .as_str()
        .expect("the ruler shows a duration")
        .parse()
        .unwrap();
    let per_px = (f("to") - f("from")) / f("plot");
    let want = (x1 - x0) * per_px;
    assert!(
        (dt - want).abs() <= 2.0 * per_px,
        "the ruler says {dt} s, 300 pixels are {want} s"
    );
    // The window did not move (a ruler is not a pan).
    assert_eq!(window_of(b), (f("from"), f("to")));
    shot(b, "features-ruler");
    // Escape takes it away.
    b.js(
        "window.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape'}));",
        json!([]),
    );
    assert_eq!(
        b.js("return document.body.dataset.ruler || null;", json!([])),
        Value::Null
    );
}

/// Per state category, the exclusive seconds the statistics panel shows.
fn panel(b: &Browser) -> BTreeMap<i64, f64> {
    let v = b.js(
        "return [...document.querySelectorAll('#stats tr')].map(tr => [Number(tr.dataset.category), Number(tr.dataset.seconds)]);",
        json!([]),
    );
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_i64().unwrap(), p[1].as_f64().unwrap()))
        .collect()
}

#[test]
fn the_statistics_panel_equals_stats() {
    let Some(v) = open("the_statistics_panel_equals_stats", None) else {
        return;
    };
    let (b, file) = (&v.b, &v.file);
    for step in 0..3 {
        if step > 0 {
            let s = seq(b);
            b.click("#zoomin");
            settled(b, s);
        }
        let (from, to) = window_of(b);
        let rows = b
            .js("return window.mpelog.state.answer.rows.length;", json!([]))
            .as_f64()
            .unwrap();
        let shown = panel(b);
        assert!(!shown.is_empty(), "the panel lists categories");
        let st: Value = serde_json::from_str(&stdout(&mpelog(&[
            "stats",
            file.to_str().unwrap(),
            "--from",
            &from.to_string(),
            "--to",
            &to.to_string(),
            "--json",
        ])))
        .unwrap();
        let tolerance = 0.01 * (to - from) * rows;
        let mut compared = 0;
        for c in st["categories"].as_array().unwrap() {
            if c["topology"] != "state" {
                continue;
            }
            let k = c["index"].as_i64().unwrap();
            let want = c["exclusive"]["sum"].as_f64().unwrap();
            let got = shown.get(&k).copied().unwrap_or(0.0);
            assert!(
                (got - want).abs() <= tolerance,
                "[{from}, {to}]: category {k} panel {got} s, stats {want} s"
            );
            compared += 1;
        }
        assert!(compared > 3, "{compared} categories compared");
        if step == 1 {
            shot(b, "features-stats");
        }
    }
}

#[test]
fn a_link_reopens_the_same_view() {
    let Some(v) = open("a_link_reopens_the_same_view", None) else {
        return;
    };
    let b = &v.b;
    for button in ["#zoomin", "#zoomin"] {
        let s = seq(b);
        b.click(button);
        settled(b, s);
    }
    let s = seq(b);
    b.js(
        "window.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight'}));",
        json!([]),
    );
    settled(b, s);
    // Hide a category and a timeline, move timeline 3 up.
    b.click("#cats input[type=checkbox]");
    b.click("#rowlist .row[data-key='5'] input");
    b.click("#rowlist .row[data-key='3'] .up");
    let state = |b: &Browser| {
        b.js(
            "const s = window.mpelog.state; return {from: s.from, to: s.to, hidden: [...s.hidden].sort(), rows: window.mpelog.displayed()};",
            json!([]),
        )
    };
    let before = state(b);
    assert_eq!(
        before["rows"],
        json!(["0", "1", "3", "2", "4", "6", "7"]),
        "timeline 5 hidden, 3 moved up"
    );
    let url = b
        .js("return location.href;", json!([]))
        .as_str()
        .unwrap()
        .to_string();
    assert!(url.contains('#'), "{url}");
    // A new page at that address shows the same view.
    let b2 = Browser::start(&v.programs.0, &v.programs.1, (1400, 800));
    b2.goto(&url);
    settled(&b2, 0);
    assert_eq!(state(&b2), before, "{url}");
    shot(&b2, "features-link");
}

#[test]
fn a_thousand_timelines_scroll_and_the_first_frame_comes_at_once() {
    if programs_or_skip("a_thousand_timelines_scroll_and_the_first_frame_comes_at_once").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let clog2 = common::synth(
        dir.path(),
        "wide.clog2",
        &["--ranks", "1024", "--events", "400000", "--seed", "3"],
    );
    let slog2 = dir.path().join("wide.slog2");
    let o = mpelog(&["convert", &clog2, "-o", slog2.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let Some(v) = open(
        "a_thousand_timelines_scroll_and_the_first_frame_comes_at_once",
        Some(&slog2),
    ) else {
        return;
    };
    let b = &v.b;
    let g = b.js(
        "const m = window.mpelog, s = m.state, L = m.layout(); \
         return {rows: L.r.labels.length, rh: L.rh, first: L.first, last: L.last, \
                 answered: [...new Set(s.answer.cells.map(c => c[0]))].sort((a, b) => a - b), \
                 firstFrame: s.firstFrameAt - s.startedAt, frames: s.frames, \
                 scrollable: document.getElementById('view').scrollHeight > document.getElementById('view').clientHeight};",
        json!([]),
    );
    assert_eq!(g["rows"], 1024);
    assert_eq!(g["scrollable"], true, "{g}");
    assert!(g["rh"].as_f64().unwrap() >= 12.0, "{g}");
    // The first frame came from api/info's summary, before the window's
    // answer (how soon is measured by the serve_latency bench, not here).
    assert!(g["frames"].as_u64().unwrap() >= 2, "{g}");
    eprintln!("first frame {} ms after the page started", g["firstFrame"]);
    // Only the rows on screen were asked for.
    let answered: Vec<u64> = g["answered"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    let (first, last) = (g["first"].as_u64().unwrap(), g["last"].as_u64().unwrap());
    assert!(!answered.is_empty());
    assert!(
        answered.iter().all(|r| (first..=last).contains(r)),
        "rows {first}..={last} on screen, the answer has {answered:?}"
    );
    shot(b, "features-wide-top");
    // Scroll to the middle: the rows there are asked for and drawn.
    let s = seq(b);
    b.js(
        "const v = document.getElementById('view'); v.scrollTop = v.scrollHeight / 2;",
        json!([]),
    );
    settled(b, s);
    let g = b.js(
        "const m = window.mpelog, s = m.state, L = m.layout(); \
         return {first: L.first, last: L.last, answered: [...new Set(s.answer.cells.map(c => c[0]))]};",
        json!([]),
    );
    let (first, last) = (g["first"].as_u64().unwrap(), g["last"].as_u64().unwrap());
    assert!(first > 400 && last < 700, "{g}");
    let answered: Vec<u64> = g["answered"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert!(
        answered.iter().any(|r| (first..=last).contains(r))
            && answered.iter().all(|r| (first..=last).contains(r)),
        "rows {first}..={last} on screen, the answer has {answered:?}"
    );
    shot(b, "features-wide-middle");
    // The statistics panel's shares are of the row-time of the rows the
    // answer holds (those on screen), not of all 1,024: the generated trace
    // spends most of each timeline's time in states.
    let shares: f64 = b
        .js(
            "return [...document.querySelectorAll('#stats tr')].map(tr => parseFloat(tr.children[3].textContent));",
            json!([]),
        )
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .sum();
    assert!(
        shares > 50.0 && shares < 101.0,
        "the shares of the rows on screen add up to {shares}%"
    );
}
