//! Window queries into a reusable [`WindowBuf`] (issue 14): the answer equals a
//! query walked over the whole-file model (every node parsed by `Slog2File`, the
//! tree followed from the root as spec/queries.md §2 says), through the borrowed views and
//! as owned values, on generated traces and on every SLOG-2 file of the corpus;
//! one buffer serves every query, so that nothing of a larger or smaller earlier
//! answer stays. On damaged files the buffer API gives the errors of the owned API
//! and leaves an empty answer. Answers built by hand (`push_*`, `sort`) come out in
//! the order of a window answer.

mod common;
#[path = "common/views.rs"]
mod views;

use common::generated;
use proptest::prelude::*;
use slog2_format::window::{drawable_order, shadow_order, Located};
use slog2_format::*;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::io::Cursor;

fn node_order(a: NodeId, b: NodeId) -> Ordering {
    b.depth.cmp(&a.depth).then(a.xpos.cmp(&b.xpos))
}

/// The answer of a window (`pixels: None`) or preview query, walked over the
/// whole-file model: from the root, every child whose stub box meets the window
/// (for a preview, narrower children give their stub's visible shadows instead),
/// children in file order; drawables sorted by `drawable_order`, shadows by
/// `shadow_order`, ties by node and then file order.
fn model_answer(f: &Slog2File, t0: f64, t1: f64, pixels: Option<u32>) -> WindowAnswer {
    let w = TimeWindow::new(t0, t1);
    let pixel = pixels.map(|p| w.width() / f64::from(p.max(1)));
    let by_ptr: HashMap<FileBlockPtr, &TreeNodeBody> =
        f.nodes().map(|n| (n.ptr, &n.value)).collect();
    let mut drawables = Vec::new();
    let mut shadows = Vec::new();
    let mut nodes = Vec::new();
    let mut bytes_read = 0u64;
    let mut stack = vec![f.header.treeroot];
    while let Some(ptr) = stack.pop() {
        let n = by_ptr[&ptr];
        let id = n.header.id;
        nodes.push(id);
        bytes_read += ptr.size as u64;
        for d in n.nestless.iter().chain(&n.nestable) {
            if w.shows(d) {
                drawables.push(Located {
                    node: id,
                    value: d.clone(),
                });
            }
        }
        let mut children = Vec::new();
        for s in &n.stubs {
            let h = s.header;
            if !w.meets(h.earliest, h.latest) {
                continue;
            }
            match pixel {
                Some(px) if h.latest - h.earliest < px => {
                    for sh in s.nestless.iter().chain(&s.nestable) {
                        if w.shows_shadow(sh) {
                            shadows.push(Located {
                                node: h.id,
                                value: sh.clone(),
                            });
                        }
                    }
                }
                _ => children.push(h.ptr),
            }
        }
        stack.extend(children.into_iter().rev());
    }
    drawables.sort_by(|a, b| drawable_order(&a.value, &b.value).then(node_order(a.node, b.node)));
    shadows.sort_by(|a, b| shadow_order(&a.value, &b.value).then(node_order(a.node, b.node)));
    WindowAnswer {
        window: w,
        drawables,
        shadows,
        counters: Counters {
            nodes_read: nodes.len() as u64,
            bytes_read,
        },
        nodes,
    }
}

/// The root's box.
fn span(f: &Slog2File) -> (f64, f64) {
    let root = f.nodes().find(|n| n.ptr == f.header.treeroot).unwrap();
    (root.value.header.earliest, root.value.header.latest)
}

/// Windows over `[t0, t1]`: fixed ones (everything, nothing, zero width, edges)
/// and `random` pseudo-random ones of widths from the whole span down to 1e-6 of it.
fn windows(t0: f64, t1: f64, random: usize, seed: u64) -> Vec<(f64, f64)> {
    let s = t1 - t0;
    let mut w = vec![
        (f64::NEG_INFINITY, f64::INFINITY),
        (t0, t1),
        (t0 - 2.0, t0 - 1.0),
        (t1 + 1.0, t1 + 2.0),
        (t0 + s / 2.0, t0 + s / 2.0),
        (t0 + s / 3.0, t0 + s / 4.0),
        (f64::NAN, f64::NAN),
        (t0 + s / 4.0, t1 - s / 4.0),
    ];
    let mut x = seed | 1;
    let mut unit = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as f64 / (1u64 << 53) as f64
    };
    for _ in 0..random {
        let a = t0 - s * 0.05 + unit() * s * 1.1;
        let width = s * 10f64.powf(-6.0 * unit());
        w.push((a, a + width));
    }
    w
}

/// Every window of `wins` (full, then previews at a few widths) into `buf`
/// against the model; returns the drawables found.
fn check_file(name: &str, bytes: &[u8], wins: &[(f64, f64)], buf: &mut WindowBuf) -> usize {
    let f = Slog2File::parse(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut r = Slog2Reader::new(Cursor::new(bytes)).unwrap();
    let mut raw = window::RawWindowBuf::new();
    let mut found = 0;
    for (i, &(t0, t1)) in wins.iter().enumerate() {
        r.window_into(buf, t0, t1)
            .unwrap_or_else(|e| panic!("{name}: [{t0:?},{t1:?}): {e}"));
        let want = model_answer(&f, t0, t1, None);
        views::check_views(buf, &want, &format!("{name}: [{t0:?},{t1:?})"));
        found += buf.drawables_len();
        r.window_raw_into(&mut raw, t0, t1)
            .unwrap_or_else(|e| panic!("{name}: [{t0:?},{t1:?}) raw: {e}"));
        views::check_raw(&raw, &want, &format!("{name}: [{t0:?},{t1:?}) raw"));
        let pixels: &[u32] = if i % 3 == 0 { &[0, 16, 1600] } else { &[200] };
        for &px in pixels {
            r.window_preview_into(buf, t0, t1, px)
                .unwrap_or_else(|e| panic!("{name}: [{t0:?},{t1:?}) / {px}: {e}"));
            let want = model_answer(&f, t0, t1, Some(px));
            views::check_views(buf, &want, &format!("{name}: [{t0:?},{t1:?}) / {px}"));
        }
    }
    found
}

fn cases() -> u32 {
    std::env::var("MPELOG_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(24)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// Generated traces of every tree shape: the buffer answers equal the model's.
    #[test]
    fn buffer_answers_equal_the_model_on_generated_traces(
        ranks in 1u32..6,
        events in 20u64..1500,
        leaf_bytes in prop_oneof![Just(512u32), Just(1024), Just(4096), Just(65536)],
        children in 2u16..5,
        seed in any::<u64>(),
    ) {
        let bytes = generated(ranks, events, leaf_bytes, children, seed);
        let f = Slog2File::parse(&bytes).unwrap();
        let (t0, t1) = span(&f);
        let mut buf = WindowBuf::new();
        check_file("generated", &bytes, &windows(t0, t1, 12, seed), &mut buf);
    }
}

#[test]
fn one_buffer_serves_large_and_small_answers_alike() {
    let big = generated(4, 3000, 1024, 2, 5);
    let small = generated(1, 40, 512, 3, 6);
    let mut buf = WindowBuf::new();
    for round in 0..3 {
        for (name, bytes) in [("big", &big), ("small", &small)] {
            let f = Slog2File::parse(bytes).unwrap();
            let (t0, t1) = span(&f);
            let found = check_file(
                &format!("{name} round {round}"),
                bytes,
                &windows(t0, t1, 6, 100 + round),
                &mut buf,
            );
            assert!(found > 0, "{name}: every window empty");
        }
    }
}

#[test]
fn every_corpus_slog2_file_answers_like_the_model() {
    let Some(dir) = common::corpus() else { return };
    let mut files = mpelog_conformance::corpus::listing(&dir.join("mpe"), ".slog2", 33);
    files.extend(mpelog_conformance::corpus::listing(
        &dir.join("historic"),
        ".slog2",
        11,
    ));
    let mut buf = WindowBuf::new();
    let mut answered = 0;
    for (i, path) in files.iter().enumerate() {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).unwrap();
        let Ok(f) = Slog2File::parse(&bytes) else {
            // A file the model cannot read: the buffer API errs as the owned one.
            same_outcome(&name, &bytes, &mut buf);
            continue;
        };
        let (t0, t1) = span(&f);
        let wins = windows(t0, t1, 10, 7 + i as u64);
        let mut r = Slog2Reader::new(Cursor::new(&bytes[..])).unwrap();
        if r.window(f64::NEG_INFINITY, f64::INFINITY).is_err() {
            same_outcome(&name, &bytes, &mut buf);
            continue;
        }
        answered += 1;
        check_file(&name, &bytes, &wins, &mut buf);
    }
    assert!(answered >= 33, "only {answered} corpus files answered");
}

/// The buffer API and the owned API agree on every window of a file that may be
/// damaged: the same answer, or errors at the same offset (with an empty buffer).
fn same_outcome(name: &str, bytes: &[u8], buf: &mut WindowBuf) {
    same_raw_outcome(name, bytes);
    let Ok(mut owned) = Slog2Reader::new(Cursor::new(bytes)) else {
        return;
    };
    let mut r = Slog2Reader::new(Cursor::new(bytes)).unwrap();
    let (t0, t1) = match owned.tree_dir().and_then(|t| t.value.entries.first()) {
        Some(e) => (e.earliest, e.latest),
        None => (0.0, 1.0),
    };
    for (i, (a, b)) in windows(t0, t1, 6, 3).into_iter().enumerate() {
        let px = if i % 2 == 0 { None } else { Some(64) };
        let (want, got) = match px {
            None => (owned.window(a, b), r.window_into(buf, a, b)),
            Some(px) => (
                owned.window_preview(a, b, px),
                r.window_preview_into(buf, a, b, px),
            ),
        };
        match (want, got) {
            (Ok(want), Ok(())) => views::check_views(buf, &want, name),
            (Err(e), Err(g)) => {
                assert_eq!(e.offset(), g.offset(), "{name}: {e} / {g}");
                assert_eq!(
                    std::mem::discriminant(&e),
                    std::mem::discriminant(&g),
                    "{name}: {e} / {g}"
                );
                assert_eq!(buf.drawables_len(), 0, "{name}: left after an error");
                assert_eq!(buf.shadows_len(), 0, "{name}: left after an error");
                assert!(buf.nodes().is_empty(), "{name}: left after an error");
            }
            (want, got) => panic!("{name}: [{a:?},{b:?}): owned {want:?}, buffer {got:?}"),
        }
    }
}

/// The raw query and the owned one agree on every window of a file that may
/// be damaged, read strictly, leniently (a node the fast path refuses is
/// decoded the ordinary way, its drawables written back as bytes) and
/// unchecked: the same answer, or errors at the same offset (with an empty
/// raw answer).
fn same_raw_outcome(name: &str, bytes: &[u8]) {
    let Ok(mut owned) = Slog2Reader::new(Cursor::new(bytes)) else {
        return;
    };
    let (t0, t1) = match owned.tree_dir().and_then(|t| t.value.entries.first()) {
        Some(e) => (e.earliest, e.latest),
        None => (0.0, 1.0),
    };
    let mut raw = window::RawWindowBuf::new();
    for v in [Validation::Strict, Validation::Lenient, Validation::Off] {
        owned.set_validation(v);
        let mut r = Slog2Reader::new(Cursor::new(bytes)).unwrap();
        r.set_validation(v);
        for (a, b) in windows(t0, t1, 4, 5) {
            let what = format!("{name}: {v:?} [{a:?},{b:?}) raw");
            match (owned.window(a, b), r.window_raw_into(&mut raw, a, b)) {
                (Ok(want), Ok(())) => views::check_raw(&raw, &want, &what),
                (Err(e), Err(g)) => {
                    assert_eq!(e.offset(), g.offset(), "{what}: {e} / {g}");
                    assert_eq!(
                        std::mem::discriminant(&e),
                        std::mem::discriminant(&g),
                        "{what}: {e} / {g}"
                    );
                    assert!(raw.is_empty() && raw.nodes().is_empty(), "{what}: left");
                }
                (want, got) => panic!("{what}: owned {want:?}, raw {got:?}"),
            }
        }
    }
}

#[test]
fn damaged_files_give_the_owned_errors_and_an_empty_buffer() {
    let orig = generated(3, 800, 1024, 2, 21);
    let f = Slog2File::parse(&orig).unwrap();
    let (t0, t1) = span(&f);
    let mut buf = WindowBuf::new();
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut errors = 0;
    for round in 0..300 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let mut b = orig.clone();
        let at = (x % b.len() as u64) as usize;
        b[at] ^= 1 + (x >> 32) as u8 % 255;
        if round % 10 == 9 {
            b.truncate(at);
        }
        let name = format!("round {round}: byte {at}");
        same_outcome(&name, &b, &mut buf);
        if let Ok(mut r) = Slog2Reader::new(Cursor::new(&b[..])) {
            if r.window_into(&mut buf, t0, t1 + 1.0).is_err() {
                errors += 1;
                // After an error the same buffer answers the undamaged file.
                let mut good = Slog2Reader::new(Cursor::new(&orig[..])).unwrap();
                good.window_into(&mut buf, t0, t1).unwrap();
                let want = model_answer(&f, t0, t1, None);
                views::check_views(&buf, &want, &name);
            }
        }
    }
    assert!(errors > 20, "only {errors} damaged files gave errors");
}

#[test]
fn pushed_items_come_out_in_window_order() {
    let prim = |category: i32, info: &[u8], v: &[(f64, i32)]| Primitive {
        category,
        info: JStr {
            len: info.len() as i16,
            bytes: info.to_vec(),
        },
        vertices: v
            .iter()
            .map(|&(time, line_id)| Coord { time, line_id })
            .collect(),
    };
    let leaf = |x: i32| NodeId { depth: 0, xpos: x };
    let upper = NodeId { depth: 1, xpos: 0 };
    let items: Vec<Located<Drawable>> = vec![
        Located {
            node: leaf(1),
            value: Drawable::Primitive(prim(3, b"b", &[(2.0, 0), (3.0, 0)])),
        },
        Located {
            node: leaf(0),
            value: Drawable::Primitive(prim(3, b"", &[(1.0, 1), (4.0, 1)])),
        },
        Located {
            node: upper,
            value: Drawable::Primitive(prim(3, b"", &[(1.0, 1), (4.0, 1)])),
        },
        Located {
            node: leaf(0),
            value: Drawable::Composite(Composite {
                category: 9,
                info: JStr::new("c"),
                primitives: vec![
                    prim(1, b"x", &[(1.0, 2)]),
                    prim(2, b"", &[(0.5, 3), (1.5, 4)]),
                ],
            }),
        },
        // Equal to the first: keeps its place after it.
        Located {
            node: leaf(1),
            value: Drawable::Primitive(prim(3, b"b", &[(2.0, 0), (3.0, 0)])),
        },
    ];
    let mut buf = WindowBuf::new();
    buf.clear(TimeWindow::new(0.0, 10.0));
    for d in &items {
        match &d.value {
            Drawable::Primitive(p) if d.node == leaf(1) => buf.push_primitive(d.node, p).unwrap(),
            v => buf.push_drawable(d.node, v).unwrap(),
        }
    }
    buf.sort();
    let mut want = items.clone();
    want.sort_by(|a, b| drawable_order(&a.value, &b.value).then(node_order(a.node, b.node)));
    // The composite starts first (0.5); the upper node's copy before the leaf's.
    assert_eq!(want[0].node, leaf(0));
    assert!(matches!(want[0].value, Drawable::Composite(_)));
    assert_eq!(want[1].node, upper);
    let answer = WindowAnswer {
        window: TimeWindow::new(0.0, 10.0),
        drawables: want,
        shadows: Vec::new(),
        nodes: Vec::new(),
        counters: Counters::default(),
    };
    views::check_views(&buf, &answer, "pushed");
    // What a buffer cannot hold is refused, and nothing of it stays.
    let bad = JStr {
        len: 5,
        bytes: b"ab".to_vec(),
    };
    let p = Primitive {
        category: 1,
        info: bad,
        vertices: Vec::new(),
    };
    assert_eq!(buf.push_primitive(leaf(0), &p), Err(NotStorable));
    let c = Drawable::Composite(Composite {
        category: 1,
        info: JStr::new(""),
        primitives: vec![prim(1, b"", &[(1.0, 0)]), p],
    });
    assert_eq!(buf.push_drawable(leaf(0), &c), Err(NotStorable));
    views::check_views(&buf, &answer, "after refusals");
    buf.clear(TimeWindow::new(1.0, 2.0));
    assert_eq!(buf.drawables_len(), 0);
    assert_eq!(buf.window(), TimeWindow::new(1.0, 2.0));
}

#[test]
fn signed_zero_and_nan_times_give_the_owned_box() {
    // The arrow's times (1.5, 1.75) become each pair of ±0.0 and NaN; an
    // unchecking reader returns it, with the box `Drawable::earliest`/`latest`
    // give its owned value.
    let (orig, _) = common::tiny();
    let find = |b: &[u8], t: f64| {
        b.windows(8)
            .position(|w| w == t.to_be_bytes())
            .expect("time in the file")
    };
    let (a, z) = (find(&orig, 1.5), find(&orig, 1.75));
    let values = [0.0, -0.0, f64::NAN, 1.5];
    let mut buf = WindowBuf::new();
    let mut zeros = 0;
    for x in values {
        for y in values {
            let mut b = orig.clone();
            b[a..a + 8].copy_from_slice(&x.to_be_bytes());
            b[z..z + 8].copy_from_slice(&y.to_be_bytes());
            let mut r = Slog2Reader::new(Cursor::new(&b[..])).unwrap();
            r.set_validation(Validation::Off);
            let want = r.window(f64::NEG_INFINITY, f64::INFINITY).unwrap();
            r.window_into(&mut buf, f64::NEG_INFINITY, f64::INFINITY)
                .unwrap();
            views::check_views(&buf, &want, &format!("({x:?}, {y:?})"));
            let f = Slog2File::parse(&b).unwrap();
            let model: Vec<(u64, u64)> = f
                .nodes()
                .flat_map(|n| n.value.nestless.iter().chain(&n.value.nestable))
                .map(|d| (d.earliest().to_bits(), d.latest().to_bits()))
                .collect();
            for d in buf.drawables() {
                let bx = (d.earliest().to_bits(), d.latest().to_bits());
                assert!(model.contains(&bx), "({x:?}, {y:?}): box {bx:?}");
                if d.earliest() == 0.0 {
                    zeros += 1;
                }
            }
        }
    }
    assert!(zeros > 0);
}
