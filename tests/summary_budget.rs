//! The whole answer of `/api/window?…&format=bin&waits=1` is bounded by the
//! screen, not by the rows or the trace (spec/queries.md §6.2, §6.3): on a
//! generated trace of 64 timelines, 64 rows at 1,600 columns with the waits,
//! every window's binary summary stays under 1 MB; a crowded window keeps at
//! most `max(4·P, 4096)` wide states (the narrowest summarised in their
//! cells, which still show every state's time) and writes no arrow marks when
//! its messages are drawn as ticks. Sizes, not times: nothing here depends on
//! the machine's speed.

mod common;

use clog2_format::synth;
use mpelog::analysis::{self, Options};
use mpelog::summary::{ArrowStyle, Summary, MAX_STATES_PER_COLUMN, MIN_STATES};
use mpelog::waits::WaitIndex;
use slog2_format::{Slog2Reader, WindowBuf};
use std::io::Cursor;

const PX: u32 = 1600;
const ROWS: u32 = 64;

/// The summary `/api/window` answers for `[from, to]`, 64 rows, with waits.
fn answer(slog2: &[u8], from: f64, to: f64, ix: &WaitIndex) -> Summary {
    let mut r = Slog2Reader::new(Cursor::new(slog2)).unwrap();
    let legend = r.category_list().to_vec();
    let view = r.line_id_maps().and_then(|m| m.value.maps.first().cloned());
    let mut buf = WindowBuf::new();
    mpelog::summary::query(&mut r, &mut buf, from, to, PX).unwrap();
    let mut s = Summary::of_window_rows(
        &buf,
        &legend,
        view.as_ref(),
        from,
        to,
        PX,
        Some((0, ROWS - 1)),
    );
    s.add_waits(ix);
    s
}

#[test]
fn answers_at_64_rows_stay_under_a_megabyte() {
    let clog2 = synth::generate_vec(
        &synth::Options::default()
            .ranks(ROWS)
            .events(600_000)
            .seed(44),
    )
    .unwrap();
    let slog2 = common::slog2_bytes(&clog2);
    let mut r = Slog2Reader::new(Cursor::new(&slog2[..])).unwrap();
    let mut report = analysis::slog2(&mut r, &Options::default().record(true)).unwrap();
    let ix = WaitIndex::from_report(&mut report).unwrap();
    let (a, b) = (report.from, report.to);
    let cap = (MAX_STATES_PER_COLUMN * PX as usize).max(MIN_STATES);
    let (mut capped, mut ticks_dropped, mut largest) = (0, 0, 0);
    for (f0, f1) in [
        (0.0, 1.0),
        (0.3, 0.4),
        (0.3, 0.31),
        (0.5, 0.503),
        (0.5, 0.501),
        (0.7, 0.7003),
        (0.2, 0.2001),
    ] {
        let (from, to) = (a + f0 * (b - a), a + f1 * (b - a));
        let s = answer(&slog2, from, to, &ix);
        let mut bin = Vec::new();
        s.write_bin(&mut bin);
        let mut json = Vec::new();
        s.write_json(&mut json);
        let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
        eprintln!(
            "[{f0}, {f1}]: {} bytes, {} states, {} arrows ({:?}), {} ticks",
            bin.len(),
            s.states.len(),
            s.arrows.len(),
            s.arrow_style,
            s.ticks.len()
        );
        largest = largest.max(bin.len());
        // MPELOG_DUMP=DIR keeps each answer there (to see its parts).
        if let Ok(d) = std::env::var("MPELOG_DUMP") {
            std::fs::write(format!("{d}/{f0}-{f1}.bin"), &bin).unwrap();
        }
        assert!(bin.len() <= 1_000_000, "[{f0}, {f1}]: {} bytes", bin.len());
        assert!(s.states.len() <= cap, "{} states", s.states.len());
        capped += usize::from(s.states.len() == cap);
        let written = v["arrows"].as_array().unwrap().len();
        if s.arrow_style == ArrowStyle::Ticks {
            assert_eq!(
                written, 0,
                "[{f0}, {f1}]: arrows written in the ticks style"
            );
            ticks_dropped += usize::from(!s.arrows.is_empty());
        } else {
            assert_eq!(written, s.arrows.len());
        }
        // Truthful: a cell with a share is drawn by a wide state over its
        // column or is summarised (its shares drawn); so a state dropped
        // from the list still shows, in its cells.
        let mut by_row: Vec<Vec<(f64, f64)>> = vec![Vec::new(); s.rows.len()];
        let w = s.column_width();
        for st in &s.states {
            let (x0, x1) = ((st.start - from) / w, (st.end - from) / w);
            by_row[st.row as usize].push((x0, x1));
        }
        for run in v["cells"].as_array().unwrap() {
            let run = run.as_array().unwrap();
            let (row, col, len) = (
                run[0].as_u64().unwrap() as usize,
                run[1].as_u64().unwrap() as f64,
                run[2].as_u64().unwrap() as f64,
            );
            let summarised = run[3].as_u64().unwrap() & 1 == 1;
            if summarised || run.len() <= 4 {
                continue;
            }
            for c in 0..len as usize {
                let x = col + c as f64;
                assert!(
                    by_row[row].iter().any(|&(x0, x1)| x0 < x + 1.0 && x1 > x),
                    "[{f0}, {f1}]: row {row} column {x}: shares, not summarised, no wide state"
                );
            }
        }
    }
    assert!(capped > 0, "no window reached the cap of {cap} states");
    assert!(ticks_dropped > 0, "no window had its arrow marks dropped");
    eprintln!("largest: {largest} bytes");
}
