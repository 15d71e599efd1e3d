//! The summary with waits (spec/queries.md §6.7): per row the picture's wait
//! seconds equal `analyze --from --to`'s per timeline, within 1% of the
//! row's time, zoomed out and in, on generated runs with planted late
//! senders and barrier skew and on corpus files; the JSON and binary forms
//! carry them.

mod common;

use clog2_format::synth::{self, Plant};
use mpelog::analysis::{self, Options, Report};
use mpelog::summary::{Summary, BIN_VERSION, BIN_VERSION_WAITS};
use mpelog::waits::WaitIndex;
use slog2_format::{Slog2Reader, WindowBuf};
use std::io::Cursor;

fn slog2_of(clog2: &[u8]) -> Vec<u8> {
    common::slog2_bytes(clog2)
}

fn analyse(slog2: &[u8], opts: &Options) -> Report {
    let mut r = Slog2Reader::new(Cursor::new(slog2)).unwrap();
    analysis::slog2(&mut r, opts).unwrap()
}

fn summary(slog2: &[u8], from: f64, to: f64, px: u32, ix: &WaitIndex) -> Summary {
    let mut r = Slog2Reader::new(Cursor::new(slog2)).unwrap();
    let legend = r.category_list().to_vec();
    let view = r.line_id_maps().and_then(|m| m.value.maps.first().cloned());
    let mut buf = WindowBuf::new();
    mpelog::summary::query(&mut r, &mut buf, from, to, px).unwrap();
    let mut s = Summary::of_window(&buf, &legend, view.as_ref(), from, to, px);
    s.add_waits(ix);
    s
}

fn planted(plant: Plant) -> Vec<u8> {
    let opts = synth::Options::default()
        .ranks(4)
        .events(4000)
        .seed(11)
        .plant(plant);
    synth::generate(Cursor::new(Vec::new()), &opts)
        .unwrap()
        .0
        .into_inner()
}

/// The run with both plants: a Late Sender of 3 ms and a barrier skew of
/// 1 ms per iteration.
fn both_planted() -> Vec<u8> {
    planted(Plant {
        late_sender_ns: 3_000_000,
        barrier_skew_ns: 1_000_000,
        ..Plant::default()
    })
}

/// Per row, the summary's wait seconds against the windowed analysis's per
/// timeline (top-level patterns), whole and zoomed; returns the waits seen.
fn check(name: &str, clog2: &[u8]) -> f64 {
    let slog2 = slog2_of(clog2);
    let mut whole = analyse(&slog2, &Options::default().record(true));
    let ix = WaitIndex::from_report(&mut whole).unwrap();
    let (a, b) = (whole.from, whole.to);
    let span = b - a;
    let mut seen = 0.0;
    for (from, to, px) in [
        (a, b, 1100),
        (a, b, 300),
        (a + 0.2 * span, a + 0.3 * span, 1100),
        (a + 0.61 * span, a + 0.6102 * span, 800),
    ] {
        let r = analyse(&slog2, &Options::default().window(Some(from), Some(to)));
        let s = summary(&slog2, from, to, px, &ix);
        let waits = s.waits.as_ref().unwrap();
        for (row, rr) in s.rows.iter().enumerate() {
            let got: f64 = waits.of_row(row as u32).values().sum();
            let want: f64 = r
                .patterns
                .iter()
                .filter(|p| p.parent.is_none())
                .filter_map(|p| rr.lines.iter().find_map(|l| p.per_timeline.get(l)))
                .sum();
            assert!(
                (got - want).abs() <= 0.01 * (to - from),
                "{name} [{from}, {to}] x {px}, row {row}: {got} != {want}"
            );
            seen += got;
            // Never more waiting than the column holds.
            let w = s.column_width();
            for sh in waits.shares.iter().filter(|x| x.row == row as u32) {
                assert!(sh.seconds <= w * (1.0 + 1e-9));
            }
        }
    }
    seen
}

#[test]
fn summary_waits_equal_analyze_on_planted_runs() {
    let late_sender = Plant {
        late_sender_ns: 3_000_000,
        ..Plant::default()
    };
    let barrier_skew = Plant {
        barrier_skew_ns: 1_000_000,
        ..Plant::default()
    };
    for (what, plant) in [("late sender", late_sender), ("barrier skew", barrier_skew)] {
        assert!(check(what, &planted(plant)) > 0.0, "{what}");
    }
}

#[test]
fn summary_waits_equal_analyze_on_the_corpus() {
    let Some(dir) = common::corpus() else {
        eprintln!("skipped: MPELOG_CORPUS is not set");
        return;
    };
    for f in ["mpe/p2p_n4.clog2", "mpe/colls_n4.clog2"] {
        let path = common::corpus_file(&dir, f);
        let seen = check(f, &std::fs::read(path).unwrap());
        assert!(seen > 0.0, "{f} has waits");
    }
}

/// The JSON and binary forms hold the waits at their resolution: the
/// binary form is version 2's with version 3 and the waits after the ticks.
#[test]
fn json_and_binary_forms_carry_the_waits() {
    let clog2 = both_planted();
    let slog2 = slog2_of(&clog2);
    let mut whole = analyse(&slog2, &Options::default().record(true));
    let ix = WaitIndex::from_report(&mut whole).unwrap();
    let (a, b) = (whole.from, whole.to);
    let s = summary(&slog2, a, a + 0.3 * (b - a), 600, &ix);
    let w = s.column_width();
    let mut plain = s.clone();
    plain.waits = None;
    let (mut bin, mut old) = (Vec::new(), Vec::new());
    s.write_bin(&mut bin);
    plain.write_bin(&mut old);
    assert_eq!((bin[4], old[4]), (BIN_VERSION_WAITS, BIN_VERSION));
    assert_eq!(bin[5..old.len()], old[5..]);
    // Decode the tail as spec/queries.md §6.7 says.
    let rd = |b: &[u8], p: &mut usize, n: usize| -> u64 {
        let mut v = 0u64;
        for i in 0..n {
            v |= u64::from(b[*p + i]) << (8 * i);
        }
        *p += n;
        v
    };
    let mut p = old.len();
    let mut from_bin = std::collections::BTreeMap::new();
    for _ in 0..rd(&bin, &mut p, 4) {
        let (row, col, len) = (
            rd(&bin, &mut p, 2),
            rd(&bin, &mut p, 2),
            rd(&bin, &mut p, 2),
        );
        let n = rd(&bin, &mut p, 1);
        rd(&bin, &mut p, 1);
        for _ in 0..n {
            let (k, f) = (rd(&bin, &mut p, 1), rd(&bin, &mut p, 1));
            for c in col..col + len {
                *from_bin.entry((row, c, k)).or_insert(0) += f;
            }
        }
    }
    let npath = rd(&bin, &mut p, 4);
    p += npath as usize * 8;
    let njumps = rd(&bin, &mut p, 4);
    p += njumps as usize * 8;
    assert_eq!(p, bin.len(), "nothing after the jumps");
    assert!(npath > 0);
    // Against the library's shares, at 1/250 of the column.
    let mut want = std::collections::BTreeMap::new();
    for sh in &s.waits.as_ref().unwrap().shares {
        let u = (sh.seconds / w * 250.0).round() as u64;
        if u > 0 {
            want.insert(
                (
                    u64::from(sh.row),
                    u64::from(sh.column),
                    u64::from(sh.pattern.code()),
                ),
                u,
            );
        }
    }
    assert_eq!(from_bin, want);
    // JSON: runs in 1/10000 of the column.
    let mut json = Vec::new();
    s.write_json(&mut json);
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(v["wait_patterns"][0], "mpi_latesender");
    let mut total = 0.0;
    for run in v["waits"].as_array().unwrap() {
        let r = run.as_array().unwrap();
        let len = r[2].as_f64().unwrap();
        for pair in r[3..].chunks(2) {
            total += len * pair[1].as_f64().unwrap() / 1e4 * w;
        }
    }
    let lib: f64 = s
        .waits
        .as_ref()
        .unwrap()
        .shares
        .iter()
        .map(|x| x.seconds)
        .sum();
    assert!((total - lib).abs() <= 1e-4 * w * s.waits.as_ref().unwrap().shares.len() as f64);
    assert!(!v["critical_path"].as_array().unwrap().is_empty());
}

/// The critical path per cell and its jumps (one pass over the segments in
/// `add_waits`) equal a plain reference: every segment of
/// `critical_path(from, to)` spread over the columns it covers, summed per
/// row and column; the first jump per column and pair of rows. Whole and
/// zoomed windows, the jumps' columns included.
#[test]
fn critical_path_marks_equal_the_segments_per_cell() {
    use mpelog::waits::Segment;
    let slog2 = slog2_of(&both_planted());
    let whole = analyse(&slog2, &Options::default());
    let (a, b) = (whole.from, whole.to);
    // A path that moves between the 4 timelines 3,000 times, in segments
    // of uneven lengths (several per column and several columns long).
    let mut segs = Vec::new();
    let mut t = a;
    for i in 0..3000u32 {
        let len = (b - a) / 3000.0 * f64::from(1 + (i * 7) % 5) / 3.0;
        let end = (t + len).min(b);
        segs.push(Segment {
            timeline: ((i * 5 + i / 3) % 4) as i32,
            start: t,
            end,
        });
        t = end;
    }
    let ix = WaitIndex::new(vec![], segs, vec![], (a, b), 0, 64);
    let (mut checked, mut fews) = (0, Vec::new());
    for (f0, f1, px) in [
        (0.0, 1.0, 3),
        (0.0, 1.0, 300),
        (0.1, 0.4, 600),
        (0.5, 0.52, 1600),
    ] {
        let (from, to) = (a + f0 * (b - a), a + f1 * (b - a));
        let s = summary(&slog2, from, to, px, &ix);
        let waits = s.waits.as_ref().unwrap();
        let row_of = |t: i32| s.rows.iter().position(|r| r.lines.contains(&t)).unwrap() as u32;
        let w = s.column_width();
        let n = px as usize;
        let edge = |c: usize| if c == n { to } else { from + c as f64 * w };
        let mut want = std::collections::BTreeMap::new();
        let path = ix.critical_path(from, to);
        for seg in &path.segments {
            for c in 0..n {
                let part = seg.end.min(edge(c + 1)) - seg.start.max(edge(c));
                if part > 0.0 {
                    *want.entry((row_of(seg.timeline), c as u32)).or_insert(0.0) += part;
                }
            }
        }
        let got: Vec<_> = waits.path.iter().map(|m| (m.row, m.column)).collect();
        assert_eq!(got, want.keys().copied().collect::<Vec<_>>(), "{px}: cells");
        for (m, (_, v)) in waits.path.iter().zip(&want) {
            assert!(
                (m.seconds - v).abs() <= 1e-12 * (b - a),
                "{px}: {m:?} against {v}"
            );
        }
        let mut jumps = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for j in &path.jumps {
            let c = (((j.time - from) / w).max(0.0) as u32).min(px - 1);
            let (r0, r1) = (row_of(j.from), row_of(j.to));
            if seen.insert((c, r0, r1)) {
                jumps.push((c, r0, r1, j.time));
            }
        }
        jumps.sort_by_key(|x| (x.0, x.1, x.2));
        let got: Vec<_> = waits
            .jumps
            .iter()
            .map(|j| (j.column, j.from_row, j.to_row, j.time))
            .collect();
        // Kept only while at most one per 8 columns (spec/queries.md §6.7).
        let few = jumps.len() <= px as usize / mpelog::summary::JUMP_COLUMNS;
        assert_eq!(
            got,
            if few { jumps.clone() } else { Vec::new() },
            "{px}: jumps"
        );
        // Written (JSON) only while at most one per 8 columns.
        let mut json = Vec::new();
        s.write_json(&mut json);
        let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
        let written = v["jumps"].as_array().unwrap().len();
        assert_eq!(
            written,
            if few { jumps.len() } else { 0 },
            "{px}: written jumps"
        );
        fews.push(few && !jumps.is_empty());
        checked += want.len() + jumps.len();
    }
    assert!(checked > 100, "{checked} marks and jumps checked");
    assert!(fews.contains(&true) && fews.contains(&false), "{fews:?}");
}

/// A crowded cell (8 patterns) is written with its 4 largest patterns and
/// one share of code 255 summing the rest (spec/queries.md §6.7), in both
/// forms; no run has more than 5 shares, and the written area is the
/// library's within rounding, so the answer is bounded by rows × columns.
#[test]
fn crowded_cells_keep_four_patterns_and_the_rest_summed() {
    use mpelog::analysis::Pattern;
    use mpelog::summary::{OTHER_WAITS, WAIT_SHARES};
    use mpelog::waits::Wait;
    let slog2 = slog2_of(&both_planted());
    let whole = analyse(&slog2, &Options::default());
    let (from, to, px) = (whole.from, whole.to, 400u32);
    let w = (to - from) / f64::from(px);
    // In every column of every timeline, 8 disjoint waits of 8 patterns,
    // the k-th (k+1)/80 of the column long.
    let mut all = Vec::new();
    for timeline in 0..4 {
        for c in 0..px {
            for k in 0..8usize {
                let start = from + f64::from(c) * w + k as f64 * w / 8.0 + w / 100.0;
                all.push(Wait {
                    timeline,
                    start,
                    end: start + (k + 1) as f64 * w / 80.0,
                    pattern: Pattern::ALL[k],
                    partner: Some((timeline + 1) % 4),
                    cause: start,
                    call: 1,
                });
            }
        }
    }
    let ix = WaitIndex::new(all, vec![], vec![], (from, to), 0, 64);
    let s = summary(&slog2, from, to, px, &ix);
    let rows = s
        .waits
        .as_ref()
        .unwrap()
        .shares
        .iter()
        .map(|x| x.row)
        .max()
        .unwrap()
        + 1;
    assert_eq!(rows, 4);
    // JSON: every cell the same, so one run per row.
    let mut json = Vec::new();
    s.write_json(&mut json);
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let runs = v["waits"].as_array().unwrap();
    assert_eq!(runs.len(), 4, "one run per row: {runs:?}");
    let unit = |k: f64| (k / 80.0 * 1e4).round();
    for r in runs {
        let r: Vec<f64> = r
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert_eq!((r[1], r[2]), (0.0, f64::from(px)));
        let pairs: Vec<(f64, f64)> = r[3..].chunks(2).map(|p| (p[0], p[1])).collect();
        assert_eq!(pairs.len(), WAIT_SHARES + 1);
        let code = |k: usize| f64::from(Pattern::ALL[k].code());
        assert_eq!(
            pairs,
            [
                (code(4), unit(5.0)),
                (code(5), unit(6.0)),
                (code(6), unit(7.0)),
                (code(7), unit(8.0)),
                (f64::from(OTHER_WAITS), unit(1.0 + 2.0 + 3.0 + 4.0)),
            ]
        );
    }
    // Binary: the wait runs after the version-2 bytes, n ≤ 5, area kept.
    let (mut bin, mut old) = (Vec::new(), Vec::new());
    s.write_bin(&mut bin);
    let mut plain = s.clone();
    plain.waits = None;
    plain.write_bin(&mut old);
    let mut p = old.len();
    let u32_at = |p: usize| u32::from_le_bytes(bin[p..p + 4].try_into().unwrap());
    let nruns = u32_at(p);
    p += 4;
    let mut area = 0.0;
    for _ in 0..nruns {
        let len = u16::from_le_bytes([bin[p + 4], bin[p + 5]]);
        let n = bin[p + 6] as usize;
        assert!(n <= WAIT_SHARES + 1);
        assert_eq!(bin[p + 8 + 2 * (n - 1)], OTHER_WAITS);
        for i in 0..n {
            area += f64::from(len) * f64::from(bin[p + 9 + 2 * i]) / 250.0 * w;
        }
        p += 8 + 2 * n;
    }
    assert_eq!(nruns, 4);
    let exact: f64 = s
        .waits
        .as_ref()
        .unwrap()
        .shares
        .iter()
        .map(|x| x.seconds)
        .sum();
    assert!(
        (area - exact).abs() <= 0.01 * 4.0 * (to - from),
        "{area} against {exact}"
    );
}
