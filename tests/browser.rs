//! The viewer page of `mpelog serve` in a real headless Chromium, driven over
//! W3C WebDriver (chromedriver): it loads a corpus file and a large generated
//! file, draws the expected category colours on the expected timeline rows,
//! zooms in four times and out again, opens a popup whose values equal
//! `mpelog window --json` for that drawable, and hides a category's colour when
//! the category is toggled off.
//!
//! Without `chromedriver` and `chromium` the tests say they skipped, unless
//! `CI` is set: then they fail. `MPELOG_SHOTS_DIR=DIR` saves screenshots there;
//! `MPELOG_BROWSER_MB` sets the size of the generated file (default 1000).

mod common;
#[path = "common/webdriver.rs"]
mod webdriver;

use common::{mpelog, stdout};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use webdriver::{programs_or_skip, serve, settled, Browser};

fn page_state(b: &Browser) -> Value {
    b.js(
        "const m = window.mpelog, s = m.state, L = m.layout(), r = document.getElementById('canvas').getBoundingClientRect(); \
         return { from: s.from, to: s.to, seq: s.seq, frames: s.frames, rh: L.rh, plot: L.plot, cw: L.w, ch: L.h, rows: L.r.labels.length, \
                  left: m.LEFT, top: m.TOP, cx: r.left, cy: r.top, lineRow: s.answer.rows.flatMap((r, i) => r.lines.map(l => [l, i])), \
                  ans_from: s.answer.from, ans_to: s.answer.to, items: s.answer.cells.length + s.answer.states.length + s.answer.events.length + s.answer.arrows.length, \
                  columns: s.answer.columns, legend: s.info.legend };",
        json!([]),
    )
}

/// Per timeline row: how many plot pixels have each legend colour.
fn colours_per_row(b: &Browser) -> Vec<BTreeMap<String, u64>> {
    let v = b.js(
        "const m = window.mpelog, s = m.state, L = m.layout(); \
         const want = new Set(s.info.legend.map(c => c.color)); \
         const c = document.getElementById('canvas'); \
         const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; \
         const hex = (r, g, b) => '#' + [r, g, b].map(x => x.toString(16).padStart(2, '0')).join(''); \
         const out = []; \
         for (let i = 0; i < L.r.labels.length; i++) { \
           const counts = {}; \
           const y0 = Math.ceil(m.TOP + L.rh * i), y1 = Math.floor(m.TOP + L.rh * (i + 1)); \
           for (let y = y0; y < y1; y++) for (let x = m.LEFT; x < m.LEFT + L.plot; x++) { \
             const k = (y * c.width + x) * 4, h = hex(d[k], d[k + 1], d[k + 2]); \
             if (want.has(h)) counts[h] = (counts[h] || 0) + 1; } \
           out.push(counts); } \
         return out;",
        json!([]),
    );
    v.as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            r.as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
                .collect()
        })
        .collect()
}

fn total(rows: &[BTreeMap<String, u64>], colour: &str) -> u64 {
    rows.iter()
        .map(|r| r.get(colour).copied().unwrap_or(0))
        .sum()
}

/// Saves a screenshot to `MPELOG_SHOTS_DIR` if set, and returns its pixels.
fn shot(b: &Browser, name: &str) -> (u32, u32, Vec<u8>) {
    let png = b.screenshot();
    if let Some(dir) = std::env::var_os("MPELOG_SHOTS_DIR") {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(Path::new(&dir).join(format!("{name}.png")), &png).unwrap();
    }
    webdriver::decode_png(&png)
}

/// Pixels of `colour` in the canvas's part of a screenshot (the legend's
/// swatches keep every colour).
fn count_in_png((w, h, rgba): &(u32, u32, Vec<u8>), colour: &str, st: &Value) -> usize {
    let c = u32::from_str_radix(&colour[1..], 16).unwrap();
    let want = [(c >> 16) as u8, (c >> 8) as u8, c as u8];
    assert_eq!(rgba.len(), (*w * *h * 4) as usize);
    let at = |k: &str| st[k].as_f64().unwrap().round() as u32;
    let (x0, y0) = (at("cx"), at("cy"));
    let (x1, y1) = ((x0 + at("cw")).min(*w), (y0 + at("ch")).min(*h));
    (y0..y1)
        .flat_map(|y| (x0..x1).map(move |x| ((y * w + x) * 4) as usize))
        .filter(|&k| rgba[k..k + 3] == want)
        .count()
}

/// The items of `mpelog window FILE [--from A --to B] --json`, composites
/// flattened into their parts (as the page draws them).
fn cli_items(file: &Path, window: Option<(f64, f64)>) -> Vec<Value> {
    let mut args = vec!["window".to_string(), file.to_str().unwrap().to_string()];
    if let Some((a, b)) = window {
        args.extend(["--from".into(), a.to_string(), "--to".into(), b.to_string()]);
    }
    args.push("--json".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    stdout(&mpelog(&args))
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        // The last object is the cost.
        .filter(|v| v.get("cost").is_none())
        .flat_map(|v| match v["parts"].as_array() {
            Some(p) => p.clone(),
            None => vec![v],
        })
        .collect()
}

fn lines_of(item: &Value) -> Vec<i64> {
    item["vertices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v[1].as_i64().unwrap())
        .collect()
}

/// Zooms with the page's buttons; checks each step's range.
fn zoom_steps(b: &Browser, button: &str, steps: u32, factor: f64) {
    for _ in 0..steps {
        let before = page_state(b);
        let (f0, t0) = (
            before["from"].as_f64().unwrap(),
            before["to"].as_f64().unwrap(),
        );
        b.click(button);
        settled(b, before["seq"].as_u64().unwrap());
        let after = page_state(b);
        let (f1, t1) = (
            after["from"].as_f64().unwrap(),
            after["to"].as_f64().unwrap(),
        );
        let span = t0 - f0;
        assert!(
            ((t1 - f1) - span * factor).abs() <= 1e-9 * span,
            "{button}: span {} -> {}",
            span,
            t1 - f1
        );
        assert!(
            ((f1 + t1) / 2.0 - (f0 + t0) / 2.0).abs() <= 1e-9 * span,
            "{button}: the centre stays"
        );
        // The drawn answer is the window shown.
        assert_eq!(after["ans_from"], after["from"]);
        assert_eq!(after["ans_to"], after["to"]);
        assert!(after["frames"].as_u64() > before["frames"].as_u64());
        // The answer is bounded by the picture: per row and column at most a
        // cell, a state per nesting depth, an event per category, arrows.
        let bound = after["rows"].as_u64().unwrap() * after["columns"].as_u64().unwrap() * 64;
        assert!(after["items"].as_u64().unwrap() <= bound);
    }
}

#[test]
fn the_page_shows_a_corpus_file() {
    let Some((driver, chromium)) = programs_or_skip("the_page_shows_a_corpus_file") else {
        return;
    };
    let Some(root) = common::corpus() else {
        eprintln!("SKIPPED the_page_shows_a_corpus_file: no corpus (MPELOG_CORPUS)");
        return;
    };
    let file = root.join("mpe/p2p_n8.slog2");
    assert!(file.is_file(), "{}", file.display());
    let server = serve(&file);
    let b = Browser::start(&driver, &chromium, (1400, 800));
    b.goto(&format!("http://127.0.0.1:{}/", server.port));
    settled(&b, 0);

    // The whole trace, each rank on its row.
    let st = page_state(&b);
    let legend = st["legend"].as_array().unwrap().clone();
    let colour_of: BTreeMap<i64, String> = legend
        .iter()
        .map(|c| {
            (
                c["index"].as_i64().unwrap(),
                c["color"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let topo_of: BTreeMap<i64, String> = legend
        .iter()
        .map(|c| {
            (
                c["index"].as_i64().unwrap(),
                c["topology"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let line_row: Vec<(i64, i64)> = st["lineRow"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_i64().unwrap(), p[1].as_i64().unwrap()))
        .collect();
    // Jumpshot's Process View: rank (= line ID) r on row r.
    assert_eq!(st["rows"], 8);
    assert!(line_row.iter().all(|(l, r)| l == r), "{line_row:?}");

    let items = cli_items(&file, None);
    assert!(!items.is_empty());
    // Per line: each state category's total duration; the categories drawn
    // there (anything with a vertex on the line, and arrows, which cross rows).
    let mut durations: BTreeMap<i64, BTreeMap<i64, f64>> = BTreeMap::new();
    let mut allowed: BTreeMap<i64, BTreeSet<String>> = BTreeMap::new();
    let arrows: BTreeSet<String> = legend
        .iter()
        .filter(|c| c["topology"] == "Arrow")
        .map(|c| c["color"].as_str().unwrap().to_string())
        .collect();
    for it in &items {
        let cat = it["category"].as_i64().unwrap();
        for line in lines_of(it) {
            allowed
                .entry(line)
                .or_default()
                .insert(colour_of[&cat].clone());
            if topo_of[&cat] == "State" {
                *durations.entry(line).or_default().entry(cat).or_default() +=
                    it["end"].as_f64().unwrap() - it["start"].as_f64().unwrap();
            }
        }
    }
    let rows = colours_per_row(&b);
    assert_eq!(rows.len(), 8);
    for (line, row) in &line_row {
        let counts = &rows[*row as usize];
        let (top_cat, _) = durations[line]
            .iter()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .unwrap();
        let top = &colour_of[top_cat];
        assert!(
            counts.get(top).copied().unwrap_or(0) > 0,
            "row {row}: the colour {top} of its longest state category {top_cat} is drawn: {counts:?}"
        );
        for (colour, n) in counts {
            assert!(
                *n < 3 || allowed[line].contains(colour) || arrows.contains(colour),
                "row {row} shows {colour} ({n} pixels), a category not on line {line}"
            );
        }
    }
    let whole = shot(&b, "corpus-p2p_n8");
    let (longest, _) = durations[&0]
        .iter()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .unwrap();
    assert!(count_in_png(&whole, &colour_of[longest], &st) > 0);

    // Zoom in four times and out again.
    let (from0, to0) = (st["from"].as_f64().unwrap(), st["to"].as_f64().unwrap());
    zoom_steps(&b, "#zoomin", 4, 0.5);
    shot(&b, "corpus-p2p_n8-zoomed");

    // A popup on a state: click the middle of a state no deeper one covers.
    let st = page_state(&b);
    let hits = b.js(
        "return window.mpelog.state.hits.map(h => ({x0: h.x0, x1: h.x1, y0: h.y0, y1: h.y1, depth: h.depth, \
         state: window.mpelog.state.legend.get(h.d.category).topology === 'State'}));",
        json!([]),
    );
    let hits = hits.as_array().unwrap();
    let f = |h: &Value, k: &str| h[k].as_f64().unwrap();
    let target = hits
        .iter()
        .filter(|h| h["state"] == true && f(h, "x1") - f(h, "x0") >= 6.0)
        .filter(|h| {
            let (x, y) = (
                (f(h, "x0") + f(h, "x1")) / 2.0,
                (f(h, "y0") + f(h, "y1")) / 2.0,
            );
            !hits.iter().any(|o| {
                f(o, "depth") > f(h, "depth")
                    && x >= f(o, "x0") - 1.0
                    && x <= f(o, "x1") + 1.0
                    && y >= f(o, "y0") - 1.0
                    && y <= f(o, "y1") + 1.0
            })
        })
        .max_by(|a, b| (f(a, "x1") - f(a, "x0")).total_cmp(&(f(b, "x1") - f(b, "x0"))))
        .expect("a state wide enough to click");
    let (x, y) = (
        (f(target, "x0") + f(target, "x1")) / 2.0 + st["cx"].as_f64().unwrap(),
        (f(target, "y0") + f(target, "y1")) / 2.0 + st["cy"].as_f64().unwrap(),
    );
    b.click_at(x.round() as i64, y.round() as i64);
    let popup = b.js(
        "const p = document.getElementById('popup'); return p.style.display === 'block' ? p.textContent : null;",
        json!([]),
    );
    let popup = popup.as_str().expect("the popup is open");
    shot(&b, "corpus-p2p_n8-popup");
    let field = |k: &str| -> &str {
        popup
            .lines()
            .find_map(|l| l.strip_prefix(k))
            .unwrap_or_else(|| panic!("{k} in {popup:?}"))
            .trim()
    };
    let head = popup.lines().next().unwrap();
    let (name, rest) = head.rsplit_once(" (category ").unwrap();
    let category: i64 = rest.split(',').next().unwrap().parse().unwrap();
    let start: f64 = field("start").parse().unwrap();
    let timelines: Vec<i64> = field("timelines")
        .split(" -> ")
        .map(|s| s.parse().unwrap())
        .collect();
    let window = (st["from"].as_f64().unwrap(), st["to"].as_f64().unwrap());
    let same: Vec<Value> = cli_items(&file, Some(window))
        .into_iter()
        .filter(|i| {
            i["category"] == category
                && i["start"].as_f64() == Some(start)
                && lines_of(i) == timelines
        })
        .collect();
    assert_eq!(same.len(), 1, "one drawable for the popup {popup:?}");
    let d = &same[0];
    let end = d["end"].as_f64().unwrap();
    assert_eq!(name, d["name"].as_str().unwrap());
    assert_eq!(
        rest.split(", ").nth(1),
        Some(format!("{})", d["topology"].as_str().unwrap()).as_str())
    );
    assert_eq!(field("end").parse::<f64>().unwrap(), end);
    assert_eq!(field("duration").parse::<f64>().unwrap(), end - start);
    assert_eq!(
        popup.lines().find_map(|l| l.strip_prefix("info      ")),
        d["info"].as_str(),
        "{popup:?}"
    );
    b.js(
        "window.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape'}));",
        json!([]),
    );

    zoom_steps(&b, "#zoomout", 4, 2.0);
    let st = page_state(&b);
    let span = to0 - from0;
    assert!((st["from"].as_f64().unwrap() - from0).abs() <= 1e-9 * span);
    assert!((st["to"].as_f64().unwrap() - to0).abs() <= 1e-9 * span);

    // A category toggled off: its colour leaves the canvas; on again: back.
    // The waits go off first: a cause's line, antialiased over another state,
    // can blend into any colour, a category's too (#00e5ff over #0000ff gives
    // #00bfff); browser_waits checks the waits' pixels.
    b.click("#waitsbox");
    let rows = colours_per_row(&b);
    let unique: Vec<&Value> = legend
        .iter()
        .filter(|c| c["topology"] == "State" && c["index"].as_i64().unwrap() >= 0)
        .filter(|c| legend.iter().filter(|o| o["color"] == c["color"]).count() == 1)
        .filter(|c| {
            !["#000000", "#ffffff", "#404040", "#ffff00"].contains(&c["color"].as_str().unwrap())
        })
        .collect();
    let off = unique
        .iter()
        .max_by_key(|c| total(&rows, c["color"].as_str().unwrap()))
        .expect("a state category of its own colour");
    let (index, colour) = (
        off["index"].as_i64().unwrap(),
        off["color"].as_str().unwrap(),
    );
    let shown = total(&rows, colour);
    assert!(shown > 0, "{colour} drawn before the toggle");
    let others: u64 = rows
        .iter()
        .flat_map(|r| r.iter())
        .filter(|(c, _)| *c != colour)
        .map(|(_, n)| n)
        .sum();
    let cb = format!("#cats input[data-category=\"{index}\"]");
    b.click(&cb);
    let rows = colours_per_row(&b);
    assert_eq!(total(&rows, colour), 0, "{colour} gone after the toggle");
    let others_after: u64 = rows
        .iter()
        .flat_map(|r| r.iter())
        .filter(|(c, _)| *c != colour)
        .map(|(_, n)| n)
        .sum();
    assert!(others_after > 0 && others > 0, "the other categories stay");
    let st = page_state(&b);
    assert_eq!(
        count_in_png(&shot(&b, "corpus-p2p_n8-toggled"), colour, &st),
        0
    );
    b.click(&cb);
    assert_eq!(total(&colours_per_row(&b), colour), shown, "{colour} back");
}

/// About `mb` megabytes of SLOG-2 in `dir`: `mpelog synth -o - | mpelog
/// convert - -o`, so no CLOG2 is ever on disk (the peak is the SLOG-2 file).
fn generated(dir: &Path, mb: u64) -> std::path::PathBuf {
    // About 30 bytes of SLOG-2 per CLOG2 record asked for (measured: 33.3
    // million give 1,012,791,169 bytes).
    let events = (mb * 1_000_000 / 30).max(10_000).to_string();
    let slog2 = dir.join("big.slog2");
    let mut synth = std::process::Command::new(env!("CARGO_BIN_EXE_mpelog"))
        .args([
            "synth", "-o", "-", "--ranks", "16", "--events", &events, "--seed", "18",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let convert = std::process::Command::new(env!("CARGO_BIN_EXE_mpelog"))
        .args(["convert", "-", "-o", slog2.to_str().unwrap()])
        .stdin(synth.stdout.take().unwrap())
        .output()
        .unwrap();
    assert!(synth.wait().unwrap().success());
    assert!(
        convert.status.success(),
        "{}",
        String::from_utf8_lossy(&convert.stderr)
    );
    slog2
}

#[test]
fn the_page_shows_a_large_generated_file() {
    let Some((driver, chromium)) = programs_or_skip("the_page_shows_a_large_generated_file") else {
        return;
    };
    let mb: u64 = std::env::var("MPELOG_BROWSER_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let dir = tempfile::tempdir().unwrap();
    let file = generated(dir.path(), mb);
    eprintln!(
        "generated {} bytes of SLOG-2",
        std::fs::metadata(&file).unwrap().len()
    );
    let server = serve(&file);
    let b = Browser::start(&driver, &chromium, (1400, 800));
    b.goto(&format!("http://127.0.0.1:{}/", server.port));
    settled(&b, 0);
    let st = page_state(&b);
    let n = st["rows"].as_u64().unwrap();
    assert_eq!(n, 16);
    let states: BTreeSet<String> = st["legend"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["topology"] == "State")
        .map(|c| c["color"].as_str().unwrap().to_string())
        .collect();
    // Every row shows state colours (the summary's shadows at this zoom).
    let check_rows = |what: &str| {
        let rows = colours_per_row(&b);
        assert_eq!(rows.len() as u64, n);
        for (i, r) in rows.iter().enumerate() {
            let drawn: u64 = r
                .iter()
                .filter(|(c, _)| states.contains(*c))
                .map(|(_, n)| n)
                .sum();
            assert!(drawn > 100, "{what}: row {i} shows state colours: {r:?}");
        }
    };
    check_rows("whole trace");
    shot(&b, "large-whole");
    let (from0, to0) = (st["from"].as_f64().unwrap(), st["to"].as_f64().unwrap());
    zoom_steps(&b, "#zoomin", 4, 0.5);
    check_rows("zoomed in 16 times");
    shot(&b, "large-zoomed");
    zoom_steps(&b, "#zoomout", 4, 2.0);
    let st = page_state(&b);
    let span = to0 - from0;
    assert!((st["from"].as_f64().unwrap() - from0).abs() <= 1e-9 * span);
    assert!((st["to"].as_f64().unwrap() - to0).abs() <= 1e-9 * span);
    check_rows("zoomed out again");
    drop(b);
    drop(server);
    // The tempdir (and the large file) goes here.
}
