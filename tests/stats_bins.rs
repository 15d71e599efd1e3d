//! [`mpelog::stats`] slice by slice and pair by pair, against a brute-force
//! computation over every primitive of a generated trace: each slice's events
//! and arrows are those that start in it (by the slice's own bounds), each
//! slice's state time is what the states overlap of it (no category listed
//! for a slice it only touches), each message pair has its sender, receiver
//! and count, each timeline its events, sends and receives; whole file and a
//! window that starts mid-trace.

mod common;

use mpelog::stats::{self, Accumulator, Options, Stats};
use slog2_format::types::{topology, Coord, Drawable, JStr, Primitive};
use slog2_format::{Slog2File, Slog2Reader};
use std::collections::BTreeMap;
use std::io::Cursor;

fn generated(seed: u64) -> Vec<u8> {
    common::generated_slog2(seed, 3_000, 1024)
}

/// Every real primitive with its category's topology.
fn primitives(bytes: &[u8]) -> Vec<(Primitive, i32)> {
    let topo: BTreeMap<i32, i32> = common::topologies(bytes).into_iter().collect();
    let mut all = Vec::new();
    for n in Slog2File::parse(bytes).unwrap().nodes() {
        for d in n.value.nestless.iter().chain(&n.value.nestable) {
            let ps = match d {
                Drawable::Primitive(p) => vec![p.clone()],
                Drawable::Composite(c) => c.primitives.clone(),
            };
            all.extend(ps.into_iter().map(|p| {
                let t = topo[&p.category];
                (p, t)
            }));
        }
    }
    all
}

fn span(p: &Primitive) -> (f64, f64) {
    (p.vertices[0].time, p.vertices[p.vertices.len() - 1].time)
}

/// The slices as brute force sees them: for each slice, each category's count
/// (events, arrows, by start) or overlapped time (states).
fn brute_bins(all: &[(Primitive, i32)], s: &Stats) -> Vec<BTreeMap<i32, f64>> {
    let n = s.bins.len();
    let mut out = vec![BTreeMap::new(); n];
    for (p, topo) in all {
        let (a, b) = span(p);
        // A state counts where it overlaps a slice (so only if it meets the
        // window); an event or arrow where it starts, if inside the window.
        if *topo == topology::STATE {
            for (k, bin) in s.bins.iter().enumerate() {
                let covered = b.min(bin.end) - a.max(bin.start);
                if covered > 0.0 {
                    *out[k].entry(p.category).or_insert(0.0) += covered;
                }
            }
        } else if a >= s.from && a <= s.to {
            let k = s
                .bins
                .iter()
                .position(|bin| bin.start <= a && a < bin.end)
                .unwrap_or(n - 1);
            *out[k].entry(p.category).or_insert(0.0) += 1.0;
        }
    }
    out
}

fn assert_bins(s: &Stats, all: &[(Primitive, i32)], what: &str) {
    let want = brute_bins(all, s);
    assert_eq!(s.bins.len(), want.len());
    for (k, (got, want)) in s.bins.iter().zip(&want).enumerate() {
        let keys = |m: &BTreeMap<i32, f64>| m.keys().copied().collect::<Vec<_>>();
        assert_eq!(
            keys(&got.categories),
            keys(want),
            "{what}: slice {k}'s categories"
        );
        for (c, w) in want {
            let g = got.categories[c];
            assert!(
                (g - w).abs() <= 1e-9 * w.abs().max(1e-6),
                "{what}: slice {k}, category {c}: {g} vs {w}"
            );
        }
    }
}

#[test]
fn each_slice_holds_what_starts_or_lies_in_it() {
    for seed in [3, 11] {
        let bytes = generated(seed);
        let all = primitives(&bytes);
        let mut r = Slog2Reader::new(Cursor::new(&bytes[..])).unwrap();
        let s = stats::slog2(&mut r, &Options::default().bins(16)).unwrap();
        assert_bins(&s, &all, &format!("seed {seed}, whole file"));
        let (t0, t1) = (s.from, s.to);
        let (a, b) = (t0 + 0.37 * (t1 - t0), t0 + 0.81 * (t1 - t0));
        let mut r = Slog2Reader::new(Cursor::new(&bytes[..])).unwrap();
        let w = stats::slog2(&mut r, &Options::default().window(Some(a), Some(b)).bins(7)).unwrap();
        assert_eq!((w.from, w.to), (a, b));
        assert_bins(&w, &all, &format!("seed {seed}, window"));
    }
}

#[test]
fn message_pairs_and_timelines_count_each_arrow_and_event() {
    let bytes = generated(5);
    let all = primitives(&bytes);
    let mut r = Slog2Reader::new(Cursor::new(&bytes[..])).unwrap();
    let s = stats::slog2(&mut r, &Options::default()).unwrap();
    let mut pairs: BTreeMap<(i32, i32), u64> = BTreeMap::new();
    // line -> (events, sent, received)
    let mut lines: BTreeMap<i32, (u64, u64, u64)> = BTreeMap::new();
    for (p, topo) in &all {
        let first = p.vertices[0].line_id;
        let last = p.vertices[p.vertices.len() - 1].line_id;
        match *topo {
            topology::ARROW => {
                *pairs.entry((first, last)).or_default() += 1;
                lines.entry(first).or_default().1 += 1;
                lines.entry(last).or_default().2 += 1;
            }
            topology::EVENT => lines.entry(first).or_default().0 += 1,
            _ => {
                lines.entry(first).or_default();
            }
        }
    }
    assert!(pairs.len() > 4, "{pairs:?}");
    let got: BTreeMap<(i32, i32), u64> = s
        .messages
        .iter()
        .map(|m| ((m.sender, m.receiver), m.messages))
        .collect();
    assert_eq!(got, pairs);
    let got: BTreeMap<i32, (u64, u64, u64)> = s
        .timelines
        .iter()
        .map(|t| (t.line, (t.events, t.sent, t.received)))
        .collect();
    assert_eq!(got, lines);
}

/// A primitive of `category` with these (time, line) vertices.
fn prim(category: i32, vertices: &[(f64, i32)]) -> Primitive {
    Primitive {
        category,
        info: JStr::new(""),
        vertices: vertices
            .iter()
            .map(|&(time, line_id)| Coord { time, line_id })
            .collect(),
    }
}

/// Slices `[0, 1)`, `[1, 2)`, `[2, 3)`, `[3, 4]` (exact in binary): a state
/// that ends exactly where a slice starts is not listed in that slice, an
/// event exactly on a boundary is in the slice it starts, one at the end of
/// the whole file in the last.
#[test]
fn slices_on_exact_boundaries() {
    let legend = [
        common::category(0, topology::EVENT),
        common::category(1, topology::STATE),
    ];
    let mut acc = Accumulator::new(&legend, 0.0, 4.0, false, 4);
    for p in [
        prim(1, &[(0.5, 0), (2.0, 0)]),
        prim(0, &[(1.0, 0)]),
        prim(1, &[(3.0, 1), (3.5, 1)]),
        prim(0, &[(4.0, 1)]),
    ] {
        acc.push(&p);
    }
    let s = acc.finish();
    let got: Vec<Vec<(i32, f64)>> = s
        .bins
        .iter()
        .map(|b| b.categories.iter().map(|(&c, &v)| (c, v)).collect())
        .collect();
    assert_eq!(
        got,
        [
            vec![(1, 0.5)],
            vec![(0, 1.0), (1, 1.0)],
            vec![],
            vec![(0, 1.0), (1, 0.5)],
        ]
    );
}

/// Message sizes come from the info value whose label names a size, wherever
/// it is among the values, in each integer format (16, 32 and 64 bits).
#[test]
fn message_sizes_come_from_the_size_value_wherever_it_is() {
    let arrow = |index: i32, keys: &[&str], types: &[u8]| {
        let mut c = common::category(index, topology::ARROW);
        c.keys = keys.iter().map(|k| JStr::new(k)).collect();
        c.types = types.to_vec();
        c
    };
    let legend = [
        arrow(2, &["msg_size", "msg_tag"], b"hd"),
        arrow(3, &["msg_tag", "msg_size"], b"dd"),
        arrow(4, &["size"], b"l"),
    ];
    let info = |parts: &[&[u8]]| parts.concat();
    let sent = [
        (2, info(&[&1000i16.to_be_bytes(), &7i32.to_be_bytes()])),
        (3, info(&[&7i32.to_be_bytes(), &40i32.to_be_bytes()])),
        (4, info(&[&5_000_000_000i64.to_be_bytes()])),
    ];
    let mut acc = Accumulator::new(&legend, 0.0, 4.0, false, 0);
    for (k, (category, bytes)) in sent.iter().enumerate() {
        let mut p = prim(*category, &[(k as f64, 0), (k as f64 + 0.5, 1)]);
        p.info = JStr {
            len: bytes.len() as i16,
            bytes: bytes.clone(),
        };
        acc.push(&p);
    }
    let s = acc.finish();
    assert_eq!(s.messages.len(), 1);
    assert_eq!(
        (s.messages[0].messages, s.messages[0].bytes),
        (3, 1000 + 40 + 5_000_000_000)
    );
    assert_eq!(s.message_sizes, [(64, 1), (1024, 1), (1 << 33, 1)]);
}

/// A window of no width (one instant) has shares of 0, not 0/0.
#[test]
fn a_window_of_no_width_has_shares_of_zero() {
    let mut acc = Accumulator::new(&[], 1.0, 1.0, true, 0);
    acc.push(&prim(1, &[(1.0, 0), (1.0, 0)]));
    let s = acc.finish();
    let c = &s.categories[0];
    assert_eq!(
        (c.count, c.inclusive_share, c.exclusive_share),
        (1, 0.0, 0.0)
    );
    assert_eq!(s.timelines[0].inclusive_share, 0.0);
}
