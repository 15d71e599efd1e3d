//! `Trace::window_columns` on SLOG-2 files built here to hold what the tree's
//! order alone does not settle: composites whose parts are out of start
//! order, drawables whose keys tie (the same box, category and lines, told
//! apart by their first vertex's time or their info bytes, or not at all),
//! events on the leaves' edges, backward arrows, and long states in the root.
//! Every window's rows are those of the whole trace's drawables that meet the
//! window, split into their parts and put in `slices::order` (stably), and
//! those `Trace::pieces` gives (the Parquet export's rows): row for row, info
//! values included.

mod common;

use common::built::{category, file, header, prim};
use mpelog::slices::{order, Piece};
use mpelog::trace::TypedColumn;
use mpelog::Trace;
use proptest::prelude::*;
use slog2_format::window::drawable_order;
use slog2_format::*;

/// A row: category, start, end, start line, end line (times as bits), info
/// text, and the `info_tick` cell.
type Row = (i32, u64, u64, i32, i32, Option<String>, Option<i64>);

const ARROW: i32 = 0;
const STATE: i32 = 1;
const LONG: i32 = 2;
const TICK: i32 = 3;
const GROUP: i32 = 10;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    /// A time in `[a, b]` on a grid of eighths, so that times meet and tie.
    fn time(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.below(9) as f64 / 8.0
    }
}

fn shadow(category: i32, e: f64, l: f64, of: i32) -> Shadow {
    Shadow {
        category,
        info: JStr::default(),
        vertices: vec![Coord {
            time: e,
            line_id: 0,
        }],
        earliest: e,
        latest: l,
        num_real_objs: 1,
        weights: vec![CategoryWeight {
            category: of,
            incl: 0.5,
            excl: 0.25,
            count: Some(1),
        }],
    }
}

/// The drawables of leaf `[a, a + 1]`: nestless (ticks, arrows) and
/// nestable (states, composites), each list in start order.
fn leaf_drawables(a: f64, rng: &mut Rng) -> (Vec<Drawable>, Vec<Drawable>) {
    let b = a + 1.0;
    let d = Drawable::Primitive;
    let line = |rng: &mut Rng| rng.below(3) as i32;
    let (mut nestless, mut nestable) = (Vec::new(), Vec::new());
    for _ in 0..1 + rng.below(6) {
        // Ticks, on the edges too, some twice (with the same info or not).
        let t = rng.time(a, b);
        let l = line(rng);
        let info = (rng.below(3) as i32).to_be_bytes();
        nestless.push(d(prim(TICK, &info, &[(t, l)])));
        if rng.below(3) == 0 {
            let again = (rng.below(3) as i32).to_be_bytes();
            nestless.push(d(prim(TICK, &again, &[(t, l)])));
        }
    }
    for _ in 0..rng.below(4) {
        // Arrows, some backward; a forward and a backward one of one box tie
        // but for their first vertex's time.
        let (s, e) = (rng.time(a, b), rng.time(a, b));
        let (l0, l1) = (line(rng), line(rng));
        let info = [0, 0, 0, rng.below(2) as u8, 0, 0, 0, 8];
        nestless.push(d(prim(ARROW, &info, &[(s, l0), (e, l1)])));
        if rng.below(2) == 0 {
            nestless.push(d(prim(ARROW, &info, &[(e, l0), (s, l1)])));
        }
    }
    for _ in 0..rng.below(5) {
        let (s, e) = (rng.time(a, b), rng.time(a, b));
        let l = line(rng);
        nestable.push(d(prim(STATE, &[], &[(s.min(e), l), (s.max(e), l)])));
        if rng.below(4) == 0 {
            nestable.push(d(prim(STATE, &[], &[(s.min(e), l), (s.max(e), l)])));
        }
    }
    if rng.below(2) == 0 {
        // A composite whose second part starts first.
        let (s, e) = (rng.time(a, a + 0.5), rng.time(a + 0.5, b));
        let l = line(rng);
        nestable.push(Drawable::Composite(Composite {
            category: GROUP,
            info: JStr::default(),
            primitives: vec![
                prim(STATE, &[], &[((s + e) / 2.0, l), (e, l)]),
                prim(ARROW, &[0, 0, 0, 5, 0, 0, 0, 6], &[(s, l), (e, 2)]),
                prim(TICK, &9i32.to_be_bytes(), &[(s, l)]),
            ],
        }));
    }
    nestless.sort_by(drawable_order);
    nestable.sort_by(drawable_order);
    (nestless, nestable)
}

/// A file of `leaves` leaves `[i, i + 1]` under one root that holds long
/// states over several leaves.
fn built(leaves: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed | 1);
    let mut nodes = Vec::new();
    let mut stubs = Vec::new();
    for i in 0..leaves {
        let a = i as f64;
        let (nestless, nestable) = leaf_drawables(a, &mut rng);
        let h = header(0, i as i32, a, a + 1.0, i as i64);
        stubs.push(Stub {
            header: h,
            nestless: vec![shadow(-1, a, a + 1.0, TICK)],
            nestable: vec![shadow(-3, a, a + 1.0, STATE)],
        });
        nodes.push(TreeNodeBody {
            header: h,
            nestless,
            nestable,
            stubs: vec![],
        });
    }
    let end = leaves as f64;
    let mut long = Vec::new();
    for _ in 0..rng.below(4) {
        let s = rng.time(0.0, end - 1.0);
        let e = (s + 1.0 + rng.below(3) as f64 * 0.75).min(end);
        let l = rng.below(3) as i32;
        long.push(Drawable::Primitive(prim(LONG, &[], &[(s, l), (e, l)])));
    }
    long.sort_by(drawable_order);
    let root_at = leaves as i64;
    let root = TreeNodeBody {
        header: header(1, 0, 0.0, end, root_at),
        nestless: vec![],
        nestable: long,
        stubs,
    };
    nodes.push(root);
    let categories = vec![
        category(ARROW, "message", 2, &["msg_tag=", ", msg_size=", ""], b"dd"),
        category(STATE, "Compute", 1, &[], b""),
        category(LONG, "Phase", 1, &[], b""),
        category(TICK, "Tick", 0, &["tick=", ""], b"d"),
        category(GROUP, "Group", 1, &[], b""),
        category(-1, "Preview_Event", 0, &[], b""),
        category(-2, "Preview_Arrow", 2, &[], b""),
        category(-3, "Preview_State", 1, &[], b""),
    ];
    file(nodes, root_at, categories, 3, leaves.max(2) as i16, 65536)
}

/// The `info_tick` cells of the columns.
fn ticks(c: &mpelog::trace::Columns) -> Vec<Option<i64>> {
    let (_, col) = c
        .typed
        .iter()
        .find(|(col, _)| col.name == "info_tick")
        .expect("a tick column");
    match col {
        TypedColumn::Int(v, ok) => (0..c.len())
            .map(|i| (ok.bits[i / 8] & (1 << (i % 8)) != 0).then_some(v[i]))
            .collect(),
        other => panic!("{other:?}"),
    }
}

fn rows_of_columns(t: &mut Trace, from: f64, to: f64) -> Vec<Row> {
    let c = t.window_columns(Some(from), Some(to)).unwrap();
    let ticks = ticks(&c);
    (0..c.len())
        .map(|i| {
            (
                c.category[i],
                c.start[i].to_bits(),
                c.end[i].to_bits(),
                c.start_line[i],
                c.end_line[i],
                c.info.get(i).map(str::to_string),
                ticks[i],
            )
        })
        .collect()
}

/// The row of a piece (its info text as the columns write it).
fn row_of(p: &Piece<'_>) -> Row {
    let int = |b: &[u8]| i64::from(i32::from_be_bytes(b[..4].try_into().unwrap()));
    let (info, tick) = match p.category {
        TICK => (Some(format!("tick={}", int(p.info))), Some(int(p.info))),
        ARROW => (
            Some(format!(
                "msg_tag={}, msg_size={}",
                int(p.info),
                int(&p.info[4..])
            )),
            None,
        ),
        _ => (None, None),
    };
    (
        p.category,
        p.start.to_bits(),
        p.end.to_bits(),
        p.first.1,
        p.last.1,
        info,
        tick,
    )
}

/// The drawables of the whole trace (`Trace::window` of no bounds) whose
/// box meets `[from, to)` by the rule written out (spec/queries.md §2.1),
/// split into parts, in `order` (stably).
fn rows_of_window(t: &mut Trace, from: f64, to: f64) -> Vec<Row> {
    let w = t.window(None, None).unwrap();
    let prims: Vec<&Primitive> = w
        .drawables
        .iter()
        .filter(|d| d.value.earliest() < to && d.value.latest() >= from)
        .flat_map(|d| match &d.value {
            Drawable::Primitive(p) => std::slice::from_ref(p),
            Drawable::Composite(c) => &c.primitives[..],
        })
        .collect();
    let mut pieces: Vec<Piece<'_>> = prims
        .iter()
        .map(|p| Piece::of_primitive(p).unwrap())
        .collect();
    pieces.sort_by(order);
    pieces.iter().map(row_of).collect()
}

fn rows_of_pieces(t: &mut Trace, from: f64, to: f64) -> Vec<Row> {
    let mut rows = Vec::new();
    let opts = mpelog::export::Options::default().window(Some(from), Some(to));
    t.pieces(&opts, &mut |_, p| rows.push(row_of(&p))).unwrap();
    rows
}

fn check(leaves: usize, seed: u64) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ties.slog2");
    std::fs::write(&path, built(leaves, seed)).unwrap();
    let mut t = Trace::open(&path).unwrap();
    let end = leaves as f64;
    let mut windows = vec![(-1.0, end + 1.0), (0.0, end), (0.5, 0.5 + 1e-9)];
    for i in 0..leaves {
        let a = i as f64;
        windows.extend([(a, a + 1.0), (a + 0.125, a + 0.875), (a + 1.0, a + 2.5)]);
    }
    let mut rng = Rng(seed ^ 0x9e37_79b9);
    for _ in 0..8 {
        let a = rng.time(-0.5, end);
        windows.push((a, a + rng.time(0.0, 2.0) + 1e-6));
    }
    let mut seen = 0;
    for (from, to) in windows {
        let got = rows_of_columns(&mut t, from, to);
        let want = rows_of_window(&mut t, from, to);
        assert_eq!(got, want, "seed {seed}, leaves {leaves}: [{from}, {to})");
        assert_eq!(
            rows_of_pieces(&mut t, from, to),
            want,
            "seed {seed}: [{from}, {to}) pieces"
        );
        seen += got.len();
    }
    assert!(seen > 0, "seed {seed}: every window empty");
}

#[test]
fn a_file_of_ties_and_composites_gives_the_rows_of_its_window() {
    for seed in 1..12 {
        check(1 + seed as usize % 5, seed);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Any such file: the columns are the window's pieces in order.
    #[test]
    fn generated_ties_and_composites_come_out_in_order(leaves in 1usize..6, seed in any::<u64>()) {
        check(leaves, seed);
    }
}
