//! `mpelog serve A B --compare` in a real headless Chromium (spec/queries.md
//! §7.2): two generated runs that differ by a planted slowdown on one
//! timeline → the page's table lists that category and timeline first, with
//! the change `mpelog stats A --compare B` gives for the windows; zooming or
//! panning one run moves the other to the same window relative to its
//! anchor; aligning at chosen events puts them at the same place, and then
//! a zoom in run B moves run A by the offset the other way.
//!
//! The runs are CLOG2 (so `serve` converts them once): `mpelog synth --ranks
//! 4 --seed 7`, one seed so both have the same iterations; run A plants
//! `--plant-imbalance 0.001` (rank 3 spends 1 ms longer in `Inner` per
//! iteration than the other ranks), run B `0.004`: B − A is `Inner` on
//! timeline 3, +3 ms per iteration; both plant `--plant-late-sender` (rank 0's
//! send to rank 1 enters late each iteration), A 1 ms, B 2 ms: B − A is also
//! `MPI_Recv` on timeline 1, +1 ms per iteration, and so the first of the
//! wait-state patterns' table is Late Sender on timeline 1.
//!
//! Without `chromedriver` and `chromium` the test says it skipped, unless `CI`
//! is set: then it fails. `MPELOG_SHOTS_DIR=DIR` saves screenshots.

mod common;
#[path = "common/webdriver.rs"]
mod webdriver;

use common::{mpelog, stdout, synth};
use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, Instant};
use webdriver::{free_port, http, programs_or_skip, Browser, Killed};

fn shot(b: &Browser, name: &str) {
    if let Some(dir) = std::env::var_os("MPELOG_SHOTS_DIR") {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(Path::new(&dir).join(format!("{name}.png")), b.screenshot()).unwrap();
    }
}

/// The two viewers' windows and the table's, once all three have answered
/// their latest requests (the table after request number `after`).
fn settled(b: &Browser, after: u64) -> Value {
    b.wait_for(
        "both runs and the table",
        &format!(
            "const c = window.mpelogCompare; if (!c || !c.cmp.ready) return false; \
             const ok = i => {{ const s = c.viewer(i).state; return s.seq > 0 && s.done === s.seq && s.error === null; }}; \
             return ok(0) && ok(1) && c.cmp.timer === null && c.cmp.seq > {after} && c.cmp.done === c.cmp.seq && c.cmp.error === null;"
        ),
        120,
    );
    b.js(
        "const c = window.mpelogCompare, a = c.viewer(0).state, b = c.viewer(1).state; \
         const first = document.querySelector('#timelines tr[data-name]'); \
         return { a: [a.from, a.to], b: [b.from, b.to], offset: c.cmp.offset, seq: c.cmp.seq, \
                  answer: c.cmp.answer, chosen: c.cmp.chosen, \
                  first: { name: first.dataset.name, timeline: first.dataset.timeline, change: Number(first.dataset.change) }, \
                  a_frames: a.frames, b_frames: b.frames };",
        json!([]),
    )
}

fn pair(v: &Value) -> (f64, f64) {
    (v[0].as_f64().unwrap(), v[1].as_f64().unwrap())
}

/// B's window is A's moved by the offset.
fn assert_coupled(st: &Value) {
    let ((a0, a1), (b0, b1)) = (pair(&st["a"]), pair(&st["b"]));
    let off = st["offset"].as_f64().unwrap();
    let tol = 1e-9 * (a1 - a0).abs().max(1e-3);
    assert!(
        (b0 - (a0 + off)).abs() < tol && (b1 - (a1 + off)).abs() < tol,
        "B {:?} is not A {:?} moved by {off}",
        (b0, b1),
        (a0, a1)
    );
    // The table is that of the windows shown.
    assert_eq!(pair(&st["answer"]["a_window"]), (a0, a1));
    assert_eq!(pair(&st["answer"]["b_window"]), (b0, b1));
}

#[test]
fn the_planted_slowdown_is_listed_first_and_the_runs_move_together() {
    let test = "the_planted_slowdown_is_listed_first_and_the_runs_move_together";
    let Some((driver, chromium)) = programs_or_skip(test) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, imbalance: &str, late: &str| {
        synth(
            dir.path(),
            name,
            &[
                "--ranks",
                "4",
                "--events",
                "4000",
                "--seed",
                "7",
                "--plant-imbalance",
                imbalance,
                "--plant-late-sender",
                late,
            ],
        )
    };
    let (a, b) = (
        run("a.clog2", "0.001", "0.001"),
        run("b.clog2", "0.004", "0.002"),
    );
    let port = free_port();
    let _server = Killed(
        std::process::Command::new(env!("CARGO_BIN_EXE_mpelog"))
            .args(["serve", &a, &b, "--compare", "--port", &port.to_string()])
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    let t = Instant::now();
    while !matches!(http(port, "GET", "/api/info?file=1", None), Ok((200, _))) {
        assert!(t.elapsed().as_secs() < 120, "mpelog serve did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    let br = Browser::start(&driver, &chromium, (1680, 900));
    br.goto(&format!("http://127.0.0.1:{port}/"));
    let st = settled(&br, 0);
    shot(&br, "compare-whole");

    // At their starts: the runs begin at the same time, so no offset; the
    // whole of the longer run B is shown in both.
    assert_coupled(&st);
    let first = &st["first"];
    assert_eq!(
        (first["name"].as_str(), first["timeline"].as_str()),
        (Some("Inner"), Some("3")),
        "{st}"
    );
    let (from, to) = pair(&st["a"]);
    let cli: Value = serde_json::from_str(&stdout(&mpelog(&[
        "stats",
        &a,
        "--compare",
        &b,
        "--from",
        &from.to_string(),
        "--to",
        &to.to_string(),
        "--json",
    ])))
    .unwrap();
    let top = &cli["timelines"][0];
    assert_eq!(
        (&top["name"], &top["timeline"]),
        (&json!("Inner"), &json!(3))
    );
    let change = top["b"].as_f64().unwrap() - top["a"].as_f64().unwrap();
    assert!(
        (first["change"].as_f64().unwrap() - change).abs() < 1e-9,
        "the page's change {} against stats --compare's {change}",
        first["change"]
    );
    assert!(change > 0.0);

    // The wait-state patterns, as /api/compare gives them: the later send
    // of B first (Late Sender on timeline 1), each swatch hatched (a
    // gradient, not a plain colour).
    let p = br.js(
        "const rows = [...document.querySelectorAll('#ptimelines tr[data-name]')]; \
         return { shown: document.getElementById('patternsbox').style.display, \
                  rows: rows.map(r => [r.dataset.name, r.dataset.timeline, Number(r.dataset.change)]), \
                  swatch: rows.length ? rows[0].querySelector('.swatch').style.background : '' };",
        json!([]),
    );
    let api = &st["answer"]["patterns"]["timelines"];
    let shown = p["rows"].as_array().unwrap();
    assert_eq!(p["shown"], "", "the patterns' tables are shown: {p}");
    assert_eq!(shown.len(), api.as_array().unwrap().len(), "{p}");
    for (r, x) in shown.iter().zip(api.as_array().unwrap()) {
        assert_eq!(r[0], x["name"]);
        assert_eq!(r[1].as_str().unwrap(), x["timeline"].to_string());
        let change = x["b"].as_f64().unwrap() - x["a"].as_f64().unwrap();
        assert!((r[2].as_f64().unwrap() - change).abs() < 1e-12);
    }
    assert_eq!(
        (&shown[0][0], &shown[0][1]),
        (&json!("Late Sender"), &json!("1")),
        "{p}"
    );
    assert!(
        p["swatch"]
            .as_str()
            .unwrap()
            .contains("repeating-linear-gradient"),
        "{p}"
    );

    // Shift-drag over run A from 5% to 20% of its window (a range zoom, in
    // the part where run A has states): run B follows, the table anew.
    let at = |t: f64| {
        br.js(
            "const f = document.getElementById('run0'), r = f.getBoundingClientRect(), w = f.contentWindow; \
             const m = w.mpelog, L = m.layout(), c = w.document.getElementById('canvas').getBoundingClientRect(); \
             return [Math.round(r.left + c.left + m.xOf(arguments[0], L)), Math.round(r.top + c.top + m.TOP + L.rh / 2)];",
            json!([t]),
        )
    };
    let (x0, x1) = (at(from + 0.05 * (to - from)), at(from + 0.2 * (to - from)));
    let xy = |v: &Value| (v[0].as_i64().unwrap(), v[1].as_i64().unwrap());
    br.shift_drag(xy(&x0), xy(&x1));
    let zoomed = settled(&br, st["seq"].as_u64().unwrap());
    assert_coupled(&zoomed);
    let (z0, z1) = pair(&zoomed["b"]);
    assert!(
        ((z1 - z0) / (to - from) - 0.15).abs() < 0.005,
        "B zoomed to 15% of the window with A: {:?}",
        (z0, z1)
    );
    assert!(
        zoomed["b_frames"].as_u64() > st["b_frames"].as_u64(),
        "B drawn again"
    );
    shot(&br, "compare-zoomed");

    // Pan run B (its right arrow key): run A follows.
    br.js(
        "document.getElementById('run1').contentWindow.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight' }));",
        json!([]),
    );
    let panned = settled(&br, zoomed["seq"].as_u64().unwrap());
    assert_coupled(&panned);
    let (p0, _) = pair(&panned["a"]);
    let (q0, _) = pair(&zoomed["a"]);
    assert!(
        ((p0 - q0) - (z1 - z0) / 4.0).abs() < 1e-9,
        "A panned a quarter with B"
    );

    // Choose an MPI_Barrier in each run (the viewer's find), then align at
    // them: B's window is A's moved by the barriers' difference.
    for i in [0, 1] {
        br.js(
            &format!(
                "const w = document.getElementById('run{i}').contentWindow; \
                 w.document.getElementById('find').value = 'MPI_Barrier'; return w.mpelog.find('next');"
            ),
            json!([]),
        );
    }
    let before = settled(&br, panned["seq"].as_u64().unwrap());
    let chosen: Vec<f64> = (0..2)
        .map(|i| {
            before["chosen"][i]["start"]
                .as_f64()
                .expect("a chosen barrier")
        })
        .collect();
    br.click("#alignchosen");
    let aligned = settled(&br, before["seq"].as_u64().unwrap());
    assert_coupled(&aligned);
    assert!(
        (aligned["offset"].as_f64().unwrap() - (chosen[1] - chosen[0])).abs() < 1e-12,
        "{aligned}"
    );
    let (a0, a1) = pair(&aligned["a"]);
    assert!(
        a0 <= chosen[0] && chosen[0] <= a1,
        "A's chosen barrier in view"
    );
    shot(&br, "compare-aligned");

    // Aligned, a zoom out in run B (its − button) keeps the barriers
    // together: run A follows with the offset the other way.
    br.js(
        "document.getElementById('run1').contentWindow.document.getElementById('zoomout').click();",
        json!([]),
    );
    let out = settled(&br, aligned["seq"].as_u64().unwrap());
    assert_coupled(&out);
    let (o0, o1) = pair(&out["a"]);
    assert!(
        ((o1 - o0) - 2.0 * (a1 - a0)).abs() < 1e-9 * (o1 - o0),
        "A zoomed out 2x with B"
    );
}
