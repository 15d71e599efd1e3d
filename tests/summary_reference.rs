//! Every cell, wide state, event mark, arrow mark and tick of a window's summary
//! against a reference computed here by brute force from the words of
//! spec/queries.md §6.2–§6.3: each state's and shadow's overlap with each
//! column in turn (no rates, no repeated cells, no merged segments), on
//! generated traces at windows and widths other than the whole file, and on
//! traces made by hand whose states sit exactly on column edges, on the
//! 3-column width of a wide state, the 4-column width past which the sweep
//! spreads a span as a rate, and on nesting ties (a child that starts at its
//! parent's start, ends at its end, or has its box).

mod common;

use mpelog::summary::{Summary, MAX_COLUMNS, WIDE};
use slog2_format::types::{topology, Category, LineIdMap, LineIdRow, Shadow};
use slog2_format::write::{identity_map, Prim, TreeOptions, TreeWriter};
use slog2_format::{ReadOptions, Slog2Reader, Validation, WindowBuf};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Cursor;

/// One cell of the reference: seconds per category (and their container
/// part), whether it is summarised, its covering depth.
#[derive(Debug, Default, Clone)]
struct RefCell {
    seconds: BTreeMap<i32, f64>,
    container: BTreeMap<i32, f64>,
    summarised: bool,
    covered: u16,
}

/// A wide state: row, depth, category, start, end, line, info.
type RefState = (u32, u16, i32, f64, f64, i32, Option<String>);
/// An event mark: row, column, category, time, count, top, summary.
type RefEvent = (u32, u32, i32, f64, u64, u64, bool);
/// An arrow mark: from row, to row, start, end, category, count, summary.
type RefArrow = (u32, u32, f64, f64, i32, u64, bool);

struct Reference {
    rows: Vec<(Vec<i32>, Vec<i32>)>,
    cells: Vec<Vec<RefCell>>,
    states: Vec<RefState>,
    events: Vec<RefEvent>,
    arrows: Vec<RefArrow>,
    arrow_columns: u32,
    /// Whether the arrows are drawn as ticks (else as lines).
    ticks_style: bool,
    /// Ticks: row, bottom edge, first column, sent, received.
    ticks: Vec<(u32, bool, u32, u64, u64)>,
    drawables: u64,
    shadows: u64,
}

/// A real state on its line: start, end, category, the order it came in,
/// info bytes.
type RealState = (f64, f64, i32, u64, Vec<u8>);

/// The part of `[a, b]` inside column `c` (positions in columns).
fn overlap(a: f64, b: f64, c: usize) -> f64 {
    (b.min(c as f64 + 1.0) - a.max(c as f64)).max(0.0)
}

/// The columns `[a, b]` may reach (a superset; `overlap` decides).
fn reach(a: f64, b: f64, p: usize) -> std::ops::Range<usize> {
    let lo = (a.floor().max(0.0) as usize).min(p);
    let hi = (b.ceil().max(0.0) as usize + 1).min(p);
    lo..hi.max(lo)
}

/// Adds `weight` × the part of `[a, b]` in each column, in seconds, to
/// category `k` of `row`'s cells (and to its container part when asked),
/// marking the columns reached as summarised when asked.
#[allow(clippy::too_many_arguments)]
fn spread(
    row: &mut [RefCell],
    k: i32,
    (a, b): (f64, f64),
    weight: f64,
    w: f64,
    summarised: bool,
    container: bool,
) {
    for c in reach(a, b, row.len()) {
        let part = overlap(a, b, c);
        if part > 0.0 {
            *row[c].seconds.entry(k).or_insert(0.0) += weight * part * w;
            if container {
                *row[c].container.entry(k).or_insert(0.0) += weight * part * w;
            }
            row[c].summarised |= summarised;
        }
    }
}

/// The summary of §6 for the answer in `buf`, computed column by column.
fn reference(
    buf: &WindowBuf,
    legend: &[Category],
    view: Option<&LineIdMap>,
    from: f64,
    to: f64,
    columns: u32,
) -> Reference {
    let p = columns.clamp(1, MAX_COLUMNS) as usize;
    let width = to - from;
    let w = width / p as f64;
    let scale = if width > 0.0 { p as f64 / width } else { 0.0 };
    let pos = |t: f64| ((t - from) * scale).clamp(0.0, p as f64);
    let col = |t: f64| (pos(t) as u32).min(p as u32 - 1);
    // A category the legend lacks is taken as a state's.
    let topo = |k: i32| {
        legend
            .iter()
            .find(|c| c.index == k)
            .map_or(topology::STATE, |c| c.topology)
    };

    // Rows: every line of the view and every line a first or last vertex
    // names, by their view values.
    let mut lines: BTreeSet<i32> = BTreeSet::new();
    if let Some(m) = view {
        lines.extend(m.rows.iter().map(|r| r.line_id));
    }
    for d in buf.drawables() {
        for pr in d.primitive().into_iter().chain(d.parts()) {
            let v = pr.vertices();
            if let (Some(a), Some(b)) = (v.first(), v.last()) {
                lines.extend([a.line_id, b.line_id]);
            }
        }
    }
    for s in buf.shadows() {
        let v = s.vertices();
        if let (Some(a), Some(b)) = (v.first(), v.last()) {
            lines.extend([a.line_id, b.line_id]);
        }
    }
    let key = |l: i32| {
        view.and_then(|m| m.rows.iter().find(|r| r.line_id == l))
            .map_or_else(|| vec![l], |r| r.values.clone())
    };
    let mut by_key: BTreeMap<Vec<i32>, Vec<i32>> = BTreeMap::new();
    for &l in &lines {
        by_key.entry(key(l)).or_default().push(l);
    }
    let rows: Vec<(Vec<i32>, Vec<i32>)> = by_key.into_iter().collect();
    let row_of: HashMap<i32, usize> = rows
        .iter()
        .enumerate()
        .flat_map(|(r, (_, ls))| ls.iter().map(move |&l| (l, r)))
        .collect();

    // The answer's pieces.
    let mut real: HashMap<i32, Vec<RealState>> = HashMap::new();
    let mut events: Vec<(usize, i32, f64, u64, bool)> = Vec::new();
    let mut arrows: Vec<(usize, usize, f64, f64, i32, u64, bool)> = Vec::new();
    // Each arrow's shadow box (`None` for a real arrow).
    let mut arrow_boxes: Vec<Option<(f64, f64)>> = Vec::new();
    let (mut drawables, mut order) = (0u64, 0u64);
    for d in buf.drawables() {
        for pr in d.primitive().into_iter().chain(d.parts()) {
            let v = pr.vertices();
            let (Some(a), Some(b)) = (v.first(), v.last()) else {
                continue;
            };
            drawables += 1;
            order += 1;
            let start = v.iter().map(|x| x.time).fold(f64::INFINITY, f64::min);
            let end = v.iter().map(|x| x.time).fold(f64::NEG_INFINITY, f64::max);
            let k = pr.category();
            match topo(k) {
                topology::STATE => real.entry(a.line_id).or_default().push((
                    start,
                    end,
                    k,
                    order,
                    pr.info().to_vec(),
                )),
                topology::ARROW => {
                    arrow_boxes.push(None);
                    arrows.push((
                        row_of[&a.line_id],
                        row_of[&b.line_id],
                        a.time,
                        b.time,
                        k,
                        1,
                        false,
                    ));
                }
                _ => events.push((row_of[&a.line_id], k, a.time, 1, false)),
            }
        }
    }
    // State shadows per line: box and (category, excl, container) weights.
    type Weights = Vec<(i32, f64, bool)>;
    let mut shadowed: HashMap<i32, Vec<(f64, f64, Weights)>> = HashMap::new();
    let mut shadows = 0u64;
    // A ratio, or 0 unless finite and positive.
    let positive = |x: f32| {
        Some(f64::from(x))
            .filter(|x| x.is_finite() && *x > 0.0)
            .unwrap_or(0.0)
    };
    for s in buf.shadows() {
        let v = s.vertices();
        let (Some(a), Some(b)) = (v.first(), v.last()) else {
            continue;
        };
        shadows += 1;
        match topo(s.category()) {
            topology::STATE => {
                let span = s.latest() - s.earliest();
                let ws = s
                    .weights()
                    .iter()
                    .filter(|x| topo(x.category) == topology::STATE)
                    .filter(|x| positive(x.excl) > 0.0 && span > 0.0)
                    .map(|x| {
                        let e = positive(x.excl);
                        (x.category, e, positive(x.incl) > e * (1.0 + 1e-6))
                    })
                    .collect();
                shadowed
                    .entry(a.line_id)
                    .or_default()
                    .push((s.earliest(), s.latest(), ws));
            }
            topology::ARROW => {
                // The category of the largest `incl` (ties: the lower index).
                let mut heaviest: Option<(f32, i32)> = None;
                for x in s.weights().iter().filter(|x| x.incl.is_finite()) {
                    heaviest = match heaviest {
                        Some((i, k)) if i > x.incl || (i == x.incl && k < x.category) => {
                            Some((i, k))
                        }
                        _ => Some((x.incl, x.category)),
                    };
                }
                arrow_boxes.push(Some((s.earliest(), s.latest())));
                arrows.push((
                    row_of[&a.line_id],
                    row_of[&b.line_id],
                    a.time,
                    b.time,
                    heaviest.map_or(s.category(), |(_, k)| k),
                    u64::try_from(s.num_real_objs()).unwrap_or(0),
                    true,
                ));
            }
            _ => {
                for x in s.weights() {
                    let n = x.count.map_or(1, |n| u64::try_from(n).unwrap_or(0)).max(1);
                    events.push((row_of[&a.line_id], x.category, a.time, n, true));
                }
            }
        }
    }

    // States: nested per line, each adding its time to its category and
    // taking it from its parent's, column by column.
    let mut cells = vec![vec![RefCell::default(); p]; rows.len()];
    let mut states: Vec<RefState> = Vec::new();
    for (r, (_, row_lines)) in rows.iter().enumerate() {
        for &l in row_lines {
            let mut items = real.remove(&l).unwrap_or_default();
            items.sort_by(|x, y| {
                x.0.total_cmp(&y.0)
                    .then(y.1.total_cmp(&x.1))
                    .then(x.2.cmp(&y.2))
                    .then(x.3.cmp(&y.3))
            });
            // (start, end, category) of the open states; each pushed state's
            // index in `pushed`.
            let mut stack: Vec<(f64, f64, i32, usize)> = Vec::new();
            let mut pushed: Vec<(f64, f64, i32)> = Vec::new();
            for (start, end, k, _, info) in &items {
                while let Some(top) = stack.last() {
                    if top.0 <= *start && *end <= top.1 {
                        break;
                    }
                    stack.pop();
                }
                let depth = stack.len() as u16;
                let (a, b) = (pos(*start), pos(*end));
                let wide = b - a >= WIDE;
                spread(&mut cells[r], *k, (a, b), 1.0, w, !wide, false);
                if let Some(parent) = stack.last() {
                    spread(&mut cells[r], parent.2, (a, b), -1.0, w, !wide, false);
                }
                if wide {
                    let first = a.ceil() as usize;
                    let last = (b.floor() as usize).min(p);
                    for cell in cells[r].iter_mut().take(last).skip(first) {
                        cell.covered = cell.covered.max(depth + 1);
                    }
                    let info = match legend.iter().find(|c| c.index == *k) {
                        None if info.is_empty() => Some(String::new()),
                        None => None,
                        Some(c) => slog2_format::info::labelled(&c.keys, &c.types, info).ok(),
                    };
                    states.push((r as u32, depth, *k, *start, *end, l, info));
                }
                stack.push((*start, *end, *k, pushed.len()));
                pushed.push((*start, *end, *k));
            }
            // The innermost real state of each stretch between two state
            // times: of the states that hold it, the last one pushed.
            let mut times: Vec<f64> = pushed.iter().flat_map(|s| [s.0, s.1]).collect();
            times.sort_by(f64::total_cmp);
            times.dedup();
            let innermost: Vec<(f64, f64, i32)> = times
                .windows(2)
                .filter_map(|t| {
                    let (u, v) = (t[0], t[1]);
                    pushed
                        .iter()
                        .rev()
                        .find(|s| s.0 <= u && v <= s.1)
                        .map(|s| (u, v, s.2))
                })
                .collect();
            // Shadows: their ratios over their boxes, taken from the
            // innermost real state of each stretch they overlap.
            for (start, end, ws) in shadowed.remove(&l).unwrap_or_default() {
                let (a, b) = (pos(start), pos(end));
                let mut density = 0.0;
                for &(k, x, container) in &ws {
                    spread(&mut cells[r], k, (a, b), x, w, true, container);
                    density += x;
                }
                if density <= 0.0 || end <= start {
                    continue;
                }
                for &(u, v, k) in &innermost {
                    let (lo, hi) = (u.max(start), v.min(end));
                    if hi > lo {
                        spread(
                            &mut cells[r],
                            k,
                            (pos(lo), pos(hi)),
                            -density,
                            w,
                            true,
                            false,
                        );
                    }
                }
            }
        }
        // A column whose shares add up to more than its lines' time loses the
        // excess from the container parts, in proportion to them.
        let lines_here = row_lines.len().max(1) as f64;
        for cell in &mut cells[r] {
            let held: f64 = cell.container.values().sum();
            if held <= 0.0 {
                continue;
            }
            let total: f64 = cell.seconds.values().map(|x| x.max(0.0)).sum();
            let excess = total - lines_here * w;
            if excess <= 1e-9 * w {
                continue;
            }
            let f = (excess / held).min(1.0);
            for (k, x) in &cell.container {
                *cell.seconds.get_mut(k).unwrap() -= x * f;
            }
        }
    }
    states.sort_by(|x, y| {
        x.3.total_cmp(&y.3)
            .then(y.4.total_cmp(&x.4))
            .then(x.0.cmp(&y.0))
            .then(x.1.cmp(&y.1))
    });

    // Events: per row and column, per category the count and the first time.
    let mut per_cat: BTreeMap<(u32, u32, i32), (u64, f64, bool)> = BTreeMap::new();
    for (r, k, t, n, summary) in events {
        if from <= t && t <= to {
            let e = per_cat
                .entry((r as u32, col(t), k))
                .or_insert((0, t, false));
            e.0 += n;
            e.2 |= summary;
        }
    }
    let mut marks: BTreeMap<(u32, u32), RefEvent> = BTreeMap::new();
    for ((r, c, k), (n, t, summary)) in per_cat {
        let m = marks.entry((r, c)).or_insert((r, c, k, t, 0, 0, false));
        if n > m.5 || (n == m.5 && k < m.2) {
            (m.2, m.3, m.5) = (k, t, n);
        }
        m.4 += n;
        m.6 |= summary;
    }
    // Arrows: per pair of rows and of columns (bins of 4 when more arrows
    // than columns), the first one's times and category.
    let arrow_columns = if arrows.len() > p { 4 } else { 1 };
    // The style: lines when no row is touched (from the send row to the
    // receive row) by more than P / 8 messages; then the ticks: each end
    // in the window on its row, bin and the edge facing the other row.
    let mut touched = vec![0u64; rows.len()];
    for &(ra, rb, _, _, _, n, _) in &arrows {
        for t in &mut touched[ra.min(rb)..=ra.max(rb)] {
            *t += n;
        }
    }
    let ticks_style = touched.iter().any(|&t| t > (p / 8) as u64);
    let mut ticks: BTreeMap<(u32, bool, u32), (u64, u64)> = BTreeMap::new();
    if ticks_style {
        let ac = arrow_columns;
        let bin = |t: f64| col(t) / ac * ac;
        for (&(ra, rb, t0, t1, _, n, _), shadow) in arrows.iter().zip(&arrow_boxes) {
            // Per bin, the message ends: a real end in its bin when in the
            // window; a shadow's spread evenly over its box: the rounded
            // part in the window, each bin the rounded running total to its
            // end less the bins before it.
            let mut per_bin: Vec<(u32, u64)> = Vec::new();
            match *shadow {
                Some((a, b)) if b > a => {
                    let (lo, hi) = (a.max(from), b.min(to));
                    if hi > lo {
                        let total = (n as f64 * ((hi - lo) / (b - a)).min(1.0) + 0.5).floor();
                        let (first, last) = (bin(lo), bin(hi));
                        let mut before = 0.0;
                        for k in (first..=last).step_by(ac as usize) {
                            let end = from + f64::from(k + ac) * w;
                            let upto = if k + ac > last {
                                total
                            } else {
                                (total * ((end.min(hi) - lo) / (hi - lo)).clamp(0.0, 1.0) + 0.5)
                                    .floor()
                            };
                            if upto > before {
                                per_bin.push((k, (upto - before) as u64));
                                before = upto;
                            }
                        }
                    }
                }
                _ => {}
            }
            let point = match *shadow {
                Some((a, b)) if b > a => None,
                Some((a, _)) => Some((a, a)),
                None => Some((t0, t1)),
            };
            for (row, other, sent) in [(ra, rb, true), (rb, ra, false)] {
                let ends: Vec<(u32, u64)> = match point {
                    Some((s0, s1)) => {
                        let t = if sent { s0 } else { s1 };
                        if from <= t && t <= to {
                            vec![(bin(t), n)]
                        } else {
                            Vec::new()
                        }
                    }
                    None => per_bin.clone(),
                };
                for (k, m) in ends {
                    let e = ticks.entry((row as u32, other >= row, k)).or_default();
                    if sent {
                        e.0 += m;
                    } else {
                        e.1 += m;
                    }
                }
            }
        }
    }
    let mut by_cells: BTreeMap<(u32, u32, u32, u32), RefArrow> = BTreeMap::new();
    for (ra, rb, t0, t1, k, n, summary) in arrows {
        let (ra, rb) = (ra as u32, rb as u32);
        let key = (ra, rb, col(t0) / arrow_columns, col(t1) / arrow_columns);
        let m = by_cells.entry(key).or_insert((ra, rb, t0, t1, k, 0, false));
        m.5 += n;
        m.6 |= summary;
    }
    Reference {
        rows,
        cells,
        states,
        events: marks.into_values().collect(),
        arrows: by_cells.into_values().collect(),
        arrow_columns,
        ticks_style,
        ticks: ticks
            .into_iter()
            .map(|((row, bottom, column), (sent, received))| (row, bottom, column, sent, received))
            .collect(),
        drawables,
        shadows,
    }
}

/// Compares the summary with the reference, cell by cell; returns how many
/// cells held a share, were summarised and were covered.
fn assert_matches(s: &Summary, want: &Reference, what: &str) -> (usize, usize, usize) {
    let w = s.column_width();
    let tolerance = 1e-9 * w.abs().max(f64::MIN_POSITIVE);
    let rows: Vec<(Vec<i32>, Vec<i32>)> = s
        .rows
        .iter()
        .map(|r| (r.key.clone(), r.lines.clone()))
        .collect();
    assert_eq!(rows, want.rows, "{what}: rows");
    let (mut filled, mut summarised, mut covered) = (0, 0, 0);
    for (r, row) in want.cells.iter().enumerate() {
        for (c, cell) in row.iter().enumerate() {
            let got = s.cell(r, c).unwrap();
            let at = format!("{what}: row {r} column {c}");
            assert_eq!(got.summarised, cell.summarised, "{at}: summarised");
            assert_eq!(got.covered, cell.covered, "{at}: covered");
            // Largest first, ties by the lower index; every share positive.
            for pair in got.shares.windows(2) {
                let (a, b) = (pair[0], pair[1]);
                assert!(
                    a.seconds > b.seconds || (a.seconds == b.seconds && a.category < b.category),
                    "{at}: shares out of order {:?}",
                    got.shares
                );
            }
            let mut keys: BTreeSet<i32> = cell.seconds.keys().copied().collect();
            keys.extend(got.shares.iter().map(|x| x.category));
            for k in keys {
                let g = got.shares.iter().find(|x| x.category == k);
                assert!(g.is_none_or(|x| x.seconds > 0.0), "{at}: {g:?}");
                let g = g.map_or(0.0, |x| x.seconds);
                let e = cell.seconds.get(&k).copied().unwrap_or(0.0).max(0.0);
                assert!(
                    (g - e).abs() <= tolerance,
                    "{at}: category {k} has {g} s, the reference {e} s ({:?})",
                    got.shares
                );
            }
            filled += usize::from(!got.shares.is_empty());
            summarised += usize::from(got.summarised);
            covered += usize::from(got.covered > 0);
        }
    }
    let states: Vec<RefState> = s
        .states
        .iter()
        .map(|x| {
            (
                x.row,
                x.depth,
                x.category,
                x.start,
                x.end,
                x.line,
                x.info.clone(),
            )
        })
        .collect();
    assert_eq!(states, want.states, "{what}: wide states");
    let events: Vec<RefEvent> = s
        .events
        .iter()
        .map(|m| {
            (
                m.row, m.column, m.category, m.time, m.count, m.top, m.summary,
            )
        })
        .collect();
    assert_eq!(events, want.events, "{what}: event marks");
    assert_eq!(s.arrow_columns, want.arrow_columns, "{what}: arrow columns");
    let arrows: Vec<RefArrow> = s
        .arrows
        .iter()
        .map(|m| {
            (
                m.from_row, m.to_row, m.start, m.end, m.category, m.count, m.summary,
            )
        })
        .collect();
    assert_eq!(arrows, want.arrows, "{what}: arrow marks");
    assert_eq!(
        s.arrow_style == mpelog::summary::ArrowStyle::Ticks,
        want.ticks_style,
        "{what}: arrow style"
    );
    let ticks: Vec<(u32, bool, u32, u64, u64)> = s
        .ticks
        .iter()
        .map(|t| (t.row, t.bottom, t.column, t.sent, t.received))
        .collect();
    assert_eq!(ticks, want.ticks, "{what}: ticks");
    assert_eq!(
        (s.drawables, s.shadows),
        (want.drawables, want.shadows),
        "{what}: pieces"
    );
    (filled, summarised, covered)
}

fn legend_of<R: std::io::Read + std::io::Seek>(r: &Slog2Reader<R>) -> Vec<Category> {
    r.categories()
        .map(|c| c.value.categories.clone())
        .unwrap_or_default()
}

/// Checks the summary of `[from, to]` at `px` columns against the reference;
/// returns the counts of [`assert_matches`] and whether shadows went in.
fn check(bytes: &[u8], from: f64, to: f64, px: u32, what: &str) -> ((usize, usize, usize), bool) {
    check_read(bytes, ReadOptions::default(), None, from, to, px, what)
}

/// [`check`] with the reader's options `opts` (a small picture budget stops
/// the query at upper nodes, whose shadows span many columns) and rows from
/// `view` instead of the file's first view.
fn check_read(
    bytes: &[u8],
    opts: ReadOptions,
    view: Option<&LineIdMap>,
    from: f64,
    to: f64,
    px: u32,
    what: &str,
) -> ((usize, usize, usize), bool) {
    let mut r = Slog2Reader::with_options(Cursor::new(bytes), opts).unwrap();
    let legend = legend_of(&r);
    let view = view
        .cloned()
        .or_else(|| r.line_id_maps().and_then(|m| m.value.maps.first().cloned()));
    let mut buf = WindowBuf::new();
    mpelog::summary::query(&mut r, &mut buf, from, to, px).unwrap();
    let s = Summary::of_window(&buf, &legend, view.as_ref(), from, to, px);
    let want = reference(&buf, &legend, view.as_ref(), from, to, px);
    let what = format!("{what} [{from}, {to}] at {px} px");
    let counts = assert_matches(&s, &want, &what);
    // Some rows only: the whole summary's states and events there, and its
    // arrows with either end there.
    let rows = s.rows.len() as u32;
    for (a, b) in [(0, 0), (1, 1), (rows.saturating_sub(1), rows + 3)] {
        let part =
            Summary::of_window_rows(&buf, &legend, view.as_ref(), from, to, px, Some((a, b)));
        let inside = |r: u32| a <= r && r <= b;
        let states: Vec<_> = s.states.iter().filter(|x| inside(x.row)).collect();
        assert_eq!(
            part.states.iter().collect::<Vec<_>>(),
            states,
            "{what}: states of rows {a}–{b}"
        );
        let events: Vec<_> = s.events.iter().filter(|m| inside(m.row)).collect();
        assert_eq!(
            part.events.iter().collect::<Vec<_>>(),
            events,
            "{what}: events of rows {a}–{b}"
        );
        let arrows: Vec<_> = s
            .arrows
            .iter()
            .filter(|m| inside(m.from_row) || inside(m.to_row))
            .collect();
        assert_eq!(
            part.arrows.iter().collect::<Vec<_>>(),
            arrows,
            "{what}: arrows of rows {a}–{b}"
        );
    }
    (counts, s.shadows > 0)
}

/// The root's time box.
fn root(bytes: &[u8]) -> (f64, f64) {
    let r = Slog2Reader::new(Cursor::new(bytes)).unwrap();
    let e = r.tree_dir().unwrap().value.root().copied().unwrap();
    (e.earliest, e.latest)
}

#[test]
fn every_cell_of_generated_traces_is_the_references() {
    let (mut filled, mut summarised, mut covered, mut shadowed) = (0, 0, 0, 0);
    for (seed, events, leaf) in [(1, 30_000, 1024), (9, 40_000, 2048), (3, 20_000, 65536)] {
        let bytes = common::generated_slog2(seed, events, leaf);
        let (a, b) = root(&bytes);
        let at = |f: f64| a + f * (b - a);
        for (from, to) in [
            (a, b),
            (at(0.3), at(0.6)),
            (at(0.5), at(0.505)),
            (at(0.1234), at(0.1301)),
        ] {
            for px in [1, 5, 16, 200, 1000] {
                let (n, s) = check(&bytes, from, to, px, &format!("seed {seed} leaf {leaf}"));
                filled += n.0;
                summarised += n.1;
                covered += n.2;
                shadowed += usize::from(s);
            }
        }
    }
    assert!(
        filled > 0 && summarised > 0 && covered > 0 && shadowed > 0,
        "{filled} cells filled, {summarised} summarised, {covered} covered, {shadowed} with shadows"
    );
}

/// A file of the given pieces (ordered here by end time, as the writer
/// wants them), with a legend of states 1–4, event 10, 11 and arrow 20, and
/// `view` (the identity map of the lines when `None`).
fn made(prims: Vec<Prim>, view: Option<LineIdMap>) -> Vec<u8> {
    made_with(prims, view, TreeOptions::default())
}

/// [`made`] with the writer's options (small leaves give previews shadows).
fn made_with(mut prims: Vec<Prim>, view: Option<LineIdMap>, opts: TreeOptions) -> Vec<u8> {
    prims.sort_by(|p, q| p.latest().total_cmp(&q.latest()));
    let mut lines = BTreeSet::new();
    let mut w = TreeWriter::new(Cursor::new(Vec::new()), opts).unwrap();
    for p in prims {
        let (a, b) = p.end_lines();
        lines.extend([a, b]);
        w.add(p).unwrap();
    }
    let mut legend: Vec<Category> = (1..=4)
        .map(|k| common::category(k, topology::STATE))
        .collect();
    legend.push(common::category(10, topology::EVENT));
    legend.push(common::category(11, topology::EVENT));
    legend.push(common::category(20, topology::ARROW));
    let view = view.unwrap_or_else(|| identity_map(lines));
    let (out, _) = w.finish(&legend, vec![view]).unwrap();
    out.into_inner()
}

fn state(k: i32, line: i32, a: f64, b: f64) -> Prim {
    Prim::two(k, topology::STATE, (a, line), (b, line), &[])
}

/// 30 s of states on `line` from `shift` on: every 50 ms a state of
/// category 2 (40 ms) holding one of category 3 and one of category 4
/// (10 and 5 ms).
fn nested_every_50_ms(line: i32, shift: f64) -> Vec<Prim> {
    let mut prims = Vec::new();
    for i in 0..600 {
        let t = shift + f64::from(i) * 0.05;
        prims.push(state(2, line, t, t + 0.04));
        prims.push(state(3, line, t + 0.01, t + 0.02));
        prims.push(state(4, line, t + 0.025, t + 0.03));
    }
    prims
}

/// States on the column edges of a 10-column window of `[0, 10]`: exactly 3
/// columns (wide), just under 3, exactly 4 and 5 (either side of where the
/// sweep spreads a span as a rate), children that start at their parent's
/// start, end at its end or have its box, and states reaching outside the
/// window; at the whole window, at windows cutting columns in halves, and at
/// widths where no state is wide.
#[test]
fn states_on_column_edges_and_nesting_ties_are_the_references() {
    let bytes = made(
        vec![
            // Line 0: a parent over the whole window with children at its
            // edges, one of its box and category 3, nested 3 deep.
            state(1, 0, 0.0, 10.0),
            state(2, 0, 0.0, 3.0),
            state(3, 0, 0.0, 3.0),
            state(4, 0, 1.0, 2.0),
            state(2, 0, 6.0, 10.0),
            state(3, 0, 6.0, 10.0),
            state(4, 0, 9.5, 10.0),
            // Line 1: 5 columns, 2.9 columns, a state past each end.
            state(1, 1, 0.0, 5.0),
            state(2, 1, 5.0, 7.9),
            state(3, 1, -2.0, 0.5),
            state(3, 1, 9.25, 12.0),
            // Line 2: identical boxes of one category (the later one nests),
            // and a child of 4 columns from 1 to 5 inside 0–10.
            state(1, 2, 0.0, 10.0),
            state(1, 2, 0.0, 10.0),
            state(2, 2, 1.0, 5.0),
            state(3, 2, 4.5, 4.5),
        ],
        None,
    );
    let (mut filled, mut summarised, mut covered) = (0, 0, 0);
    for (from, to, px) in [
        (0.0, 10.0, 10),
        (0.0, 10.0, 20),
        (0.0, 10.0, 3),
        (0.0, 10.0, 1),
        (2.5, 7.5, 10),
        (1.0, 9.0, 8),
        (-1.0, 11.0, 24),
        (5.0, 10.0, 5),
        // A window of no width: nothing in any column.
        (4.0, 4.0, 10),
    ] {
        let (n, _) = check(&bytes, from, to, px, "edges");
        filled += n.0;
        summarised += n.1;
        covered += n.2;
    }
    assert!(filled > 0 && summarised > 0 && covered > 0);
}

/// Events and arrows: events at the window's ends and just outside, two
/// categories tied in a cell (the lower index is the mark's), a category
/// with more events than the first one seen; arrows between rows, more
/// arrows than columns (marks per 4-column bins) and fewer.
#[test]
fn event_and_arrow_marks_are_the_references() {
    let ev = |k: i32, t: f64, line: i32| Prim::event(k, t, line, &[]);
    let arrow = |a: (f64, i32), b: (f64, i32)| Prim::two(20, topology::ARROW, a, b, &[]);
    let bytes = made(
        vec![
            state(1, 0, 0.0, 8.0),
            ev(10, 0.0, 0),
            ev(11, 0.5, 0),
            ev(11, 2.2, 0),
            ev(10, 2.4, 0),
            ev(11, 3.1, 1),
            ev(10, 3.2, 1),
            ev(10, 3.3, 1),
            ev(11, 7.9, 1),
            ev(10, 8.0, 1),
            arrow((1.0, 0), (2.0, 1)),
            arrow((1.2, 0), (2.5, 1)),
            arrow((3.0, 1), (3.5, 0)),
            arrow((6.0, 1), (7.9, 0)),
            arrow((6.5, 1), (8.0, 0)),
            // Within a row: ticks on its bottom edge.
            arrow((4.0, 1), (4.5, 1)),
            arrow((5.0, 0), (5.2, 0)),
        ],
        None,
    );
    // 7 arrows: per column at 8 columns or more, per 4 columns at 5 or
    // fewer; ticks (more than P / 8 touch a row) at every width.
    for (from, to, px) in [
        (0.0, 8.0, 8),
        (0.0, 8.0, 5),
        (0.0, 8.0, 4),
        (0.0, 8.0, 2),
        (0.0, 8.0, 16),
        (2.0, 7.9, 10),
        (0.5, 3.2, 3),
    ] {
        check(&bytes, from, to, px, "marks");
    }
}

/// Two lines on one row (a view that maps both to one value): each line has
/// its own stack, and the row's cells hold both lines' time; a line the view
/// lacks has a row of its own.
#[test]
fn lines_sharing_a_row_are_the_references() {
    let view = LineIdMap {
        title: slog2_format::types::JStr::new("Two on one"),
        ncols: 1,
        labels: vec![slog2_format::types::JStr::new("Row")],
        rows: [(0, 7), (1, 7), (2, 3)]
            .into_iter()
            .map(|(line_id, v)| LineIdRow {
                line_id,
                values: vec![v],
            })
            .collect(),
        methods: Vec::new(),
    };
    let bytes = made(
        vec![
            state(1, 0, 0.0, 6.0),
            state(2, 0, 1.0, 2.0),
            state(1, 1, 1.5, 9.0),
            state(3, 1, 2.0, 8.0),
            state(2, 2, 0.0, 10.0),
            state(4, 5, 3.0, 4.0),
        ],
        None,
    );
    for (from, to, px) in [(0.0, 10.0, 10), (0.0, 10.0, 7), (1.5, 8.5, 14)] {
        check_read(
            &bytes,
            ReadOptions::default(),
            Some(&view),
            from,
            to,
            px,
            "shared row",
        );
    }
}

/// A trace at negative times (and across zero) converted with small leaves:
/// zoomed out, shadows stand for most states (their weights, spread over
/// boxes whose times are negative, and taken from the states around them),
/// and events and arrows become shadows too.
#[test]
fn shadows_at_negative_times_are_the_references() {
    let mut prims = Vec::new();
    for line in 0..3 {
        prims.push(state(1, line, -10.0, 10.0));
        for i in 0..400 {
            let t = -10.0 + f64::from(i) * 0.05;
            prims.push(state(2, line, t, t + 0.04));
            prims.push(state(3, line, t + 0.01, t + 0.02 + 0.001 * f64::from(line)));
            if i % 3 == 0 {
                prims.push(Prim::event(10 + i % 2, t + 0.03, line, &[]));
                let to = (line + 1) % 3;
                prims.push(Prim::two(
                    20,
                    topology::ARROW,
                    (t + 0.005, line),
                    (t + 0.035, to),
                    &[],
                ));
            }
        }
    }
    let bytes = made_with(prims, None, TreeOptions::default().leaf_bytes(2048));
    let mut shadowed = 0;
    for (from, to, px) in [
        (-10.0, 10.0, 40),
        (-10.0, 10.0, 300),
        (-7.3, -2.1, 90),
        (-0.6, 0.45, 17),
        (-10.0, -9.0, 1),
    ] {
        let (_, s) = check(&bytes, from, to, px, "negative times");
        shadowed += usize::from(s);
    }
    assert!(shadowed > 0, "no window stood on shadows");
}

/// The state shadows of the answer to `[from, to]` at `px` columns that span
/// more than 4 columns (past which the sweep spreads a span as a rate), and
/// those of them with a container weight (inclusive time above exclusive).
/// A view that draws lines 0 and 1 on one row.
fn lines_0_and_1_on_one_row() -> LineIdMap {
    LineIdMap {
        title: slog2_format::types::JStr::new("Two on one"),
        ncols: 1,
        labels: vec![slog2_format::types::JStr::new("Row")],
        rows: [0, 1]
            .into_iter()
            .map(|line_id| LineIdRow {
                line_id,
                values: vec![7],
            })
            .collect(),
        methods: Vec::new(),
    }
}

/// Windows over a 30-second trace: the whole of it, most of it, and one
/// second.
const THIRTY_SECONDS: [(f64, f64, u32); 3] = [(0.0, 30.0, 300), (2.2, 19.7, 640), (12.5, 13.5, 50)];

/// Checks `bytes` against the references over `windows`, read within the
/// small picture budgets 0 and 4 KiB (so that the shadows of upper nodes span
/// more than 4 columns), and returns how many wide state shadows with a
/// container weight those windows hold.
fn within_small_budgets(
    bytes: &[u8],
    view: Option<&LineIdMap>,
    windows: &[(f64, f64, u32)],
    what: &str,
) -> usize {
    let mut wide = 0;
    for budget in [0, 1 << 12] {
        let opts = ReadOptions::default().picture_budget(budget);
        for &(from, to, px) in windows {
            let what = format!("{what}, budget {budget}");
            check_read(bytes, opts, view, from, to, px, &what);
            wide += wide_state_shadows(bytes, opts, from, to, px).1;
        }
    }
    wide
}

fn wide_state_shadows(
    bytes: &[u8],
    opts: ReadOptions,
    from: f64,
    to: f64,
    px: u32,
) -> (usize, usize) {
    let mut r = Slog2Reader::with_options(Cursor::new(bytes), opts).unwrap();
    let legend = legend_of(&r);
    let state = |k: i32| {
        legend
            .iter()
            .find(|c| c.index == k)
            .is_none_or(|c| c.topology == topology::STATE)
    };
    let mut buf = WindowBuf::new();
    mpelog::summary::query(&mut r, &mut buf, from, to, px).unwrap();
    let column = (to - from) / f64::from(px);
    let (mut wide, mut container) = (0, 0);
    for s in buf.shadows() {
        let span = s.latest().min(to) - s.earliest().max(from);
        if state(s.category()) && span > 4.0 * column {
            wide += 1;
            container += usize::from(
                s.weights()
                    .iter()
                    .any(|x| state(x.category) && x.excl > 0.0 && x.incl > x.excl * (1.0 + 1e-6)),
            );
        }
    }
    (wide, container)
}

/// Generated traces read within small picture budgets: the query stops at
/// upper nodes, so state shadows span many columns (spread as rates, with
/// container weights where states nest) and cover whole columns between
/// their ends; every cell is still the reference's.
#[test]
fn wide_shadows_of_small_picture_budgets_are_the_references() {
    let (mut wide, mut container, mut summarised) = (0, 0, 0);
    for (seed, events, leaf) in [(5, 20_000, 1024), (7, 30_000, 4096)] {
        let bytes = common::generated_slog2(seed, events, leaf);
        let (a, b) = root(&bytes);
        let at = |f: f64| a + f * (b - a);
        for budget in [0, 1 << 14] {
            let opts = ReadOptions::default().picture_budget(budget);
            for (from, to) in [(a, b), (at(0.2), at(0.7)), (at(0.61), at(0.64))] {
                for px in [7, 64, 300] {
                    let what = format!("seed {seed} leaf {leaf} budget {budget}");
                    let (n, _) = check_read(&bytes, opts, None, from, to, px, &what);
                    summarised += n.1;
                    let (w, c) = wide_state_shadows(&bytes, opts, from, to, px);
                    wide += w;
                    container += c;
                }
            }
        }
    }
    assert!(
        wide > 0 && container > 0 && summarised > 0,
        "{wide} wide state shadows, {container} with container weights, {summarised} cells summarised"
    );
}

/// Wide states of a category the legend lacks (a file read without
/// validation, as `check` reads): no info text when they carry info bytes
/// (no formats to decode them with), an empty one when they carry none.
#[test]
fn wide_states_of_a_category_the_legend_lacks_are_the_references() {
    let bytes = made(
        vec![
            Prim::two(9, topology::STATE, (0.0, 0), (6.0, 0), &[1, 2]),
            Prim::two(9, topology::STATE, (6.0, 1), (10.0, 1), &[]),
            state(1, 0, 7.0, 9.0),
        ],
        None,
    );
    let opts = ReadOptions::default().validation(Validation::Off);
    check_read(&bytes, opts, None, 0.0, 10.0, 10, "unknown category");
    let mut r = Slog2Reader::with_options(Cursor::new(&bytes[..]), opts).unwrap();
    let legend = legend_of(&r);
    let mut buf = WindowBuf::new();
    mpelog::summary::query(&mut r, &mut buf, 0.0, 10.0, 10).unwrap();
    let s = Summary::of_window(&buf, &legend, None, 0.0, 10.0, 10);
    let infos: Vec<_> = s
        .states
        .iter()
        .map(|x| (x.category, x.info.clone()))
        .collect();
    // (The state of category 1, 2 columns wide, is not a wide one.)
    assert_eq!(infos, [(9, None), (9, Some(String::new()))]);
}

/// `bytes` with the first three weights (`incl`, `excl`) of each state shadow
/// holding three or more rewritten to `weights(shadow)`.
fn rewrite_weights(bytes: &[u8], weights: impl Fn(&Shadow) -> [(f32, f32); 3]) -> Vec<u8> {
    let mut f = slog2_format::Slog2File::parse(bytes).unwrap();
    let mut rewritten = 0;
    for block in f.blocks.values_mut() {
        let slog2_format::FileBlock::Node(node) = block else {
            continue;
        };
        for stub in &mut node.value.stubs {
            for s in &mut stub.nestable {
                if s.weights.len() < 3 {
                    continue;
                }
                let new = weights(s);
                for (w, (incl, excl)) in s.weights.iter_mut().zip(new) {
                    (w.incl, w.excl) = (incl, excl);
                }
                rewritten += 1;
            }
        }
    }
    assert!(rewritten > 10, "{rewritten} shadows rewritten");
    f.to_bytes().unwrap()
}

/// Shadows whose weights add up to more than their lines' time, as a file
/// gets when a container's nested states lie in other subtrees (each
/// subtree's shadow counts them): the weights of a converted trace are
/// rewritten so that each state shadow has two containers (`incl` above
/// `excl`), a weight that is not one (its `incl` equal to its `excl`, the
/// `10⁻⁶` margin; or infinite, which counts as 0) and exclusive ratios adding
/// up to 1.35, and the summary must take the excess from the containers
/// alone, in proportion to them, as the reference does (spec/queries.md
/// §6.2); read whole and within small picture budgets (shadows wider than 4
/// columns, whose container parts the sweep spreads as rates).
#[test]
fn shadows_holding_more_than_their_time_lose_it_from_containers() {
    let mut prims = Vec::new();
    for line in 0..2 {
        prims.extend(nested_every_50_ms(line, 0.0));
    }
    let bytes = made_with(prims, None, TreeOptions::default().leaf_bytes(2048));
    for second in [(0.5, 0.5), (f32::INFINITY, 0.5)] {
        let bytes = rewrite_weights(&bytes, |_| [(0.9, 0.6), second, (0.5, 0.25)]);
        let mut shadowed = 0;
        for (from, to, px) in [
            (0.0, 30.0, 40),
            (0.0, 30.0, 7),
            (3.3, 17.9, 90),
            (11.0, 12.0, 3),
        ] {
            let what = format!("shadows over their time, second weight {second:?}");
            let (_, s) = check(&bytes, from, to, px, &what);
            shadowed += usize::from(s);
        }
        assert!(shadowed > 0, "no window stood on shadows");
        // Read within small picture budgets, the query stops at upper nodes:
        // the shadows then span more than 4 columns, which the sweep spreads
        // as rates (container rates too).
        let what = format!("wide shadows over their time, {second:?}");
        let wide = within_small_budgets(&bytes, None, &THIRTY_SECONDS, &what);
        assert!(wide > 0, "no wide shadow with a container weight");
    }
}

/// Shadows over their lines' time, as in
/// [`shadows_holding_more_than_their_time_lose_it_from_containers`], inside a
/// real state over the whole trace, and with their containers' proportions
/// alternating every 8 s (categories 4 and 2 at 0.6 and 0.25, then at 0.25
/// and 0.6; the upper nodes' shadows start every 8 s or every 4 s):
/// the enclosing state keeps the row's rates running after a wide shadow
/// ends, so the end of its container rate must stop its container part there;
/// a part left running would change how the next over-full shadow's excess
/// is shared between its containers.
#[test]
fn container_parts_of_wide_shadows_end_with_them() {
    let mut prims = Vec::new();
    for line in 0..2 {
        prims.push(state(1, line, 0.0, 30.0));
        prims.extend(nested_every_50_ms(line, 0.0));
    }
    let bytes = made_with(prims, None, TreeOptions::default().leaf_bytes(2048));
    let bytes = rewrite_weights(&bytes, |s| {
        if (s.earliest / 8.0) as i64 % 2 == 0 {
            [(0.9, 0.6), (0.5, 0.5), (0.5, 0.25)]
        } else {
            [(0.5, 0.25), (0.5, 0.5), (0.9, 0.6)]
        }
    });
    let wide = within_small_budgets(&bytes, None, &THIRTY_SECONDS, "wide shadows inside a state");
    assert!(wide > 0, "no wide shadow with a container weight");
}

/// State shadows wider than 4 columns that end exactly on a column's left
/// edge: states at whole seconds, half a second long, on a window where a
/// second is 2 columns (every time exact in binary), read within small
/// picture budgets; the column past a shadow's end holds none of it and is
/// not summarised (a real state 1 column later starts the next one).
#[test]
fn wide_shadows_ending_on_a_column_edge_reach_no_column_past_it() {
    let mut prims = Vec::new();
    for line in 0..2 {
        for i in 0..1000 {
            let t = f64::from(i);
            prims.push(state(2, line, t, t + 0.5));
            prims.push(state(3, line, t + 0.125, t + 0.25));
        }
    }
    let bytes = made_with(prims, None, TreeOptions::default().leaf_bytes(2048));
    let (mut wide, mut on_edge) = (0, 0);
    for budget in [0, 1 << 12] {
        let opts = ReadOptions::default().picture_budget(budget);
        for (from, to, px) in [(0.0, 1000.0, 2000), (64.0, 576.0, 1024), (300.0, 316.0, 32)] {
            let what = format!("shadows ending on column edges, budget {budget}");
            check_read(&bytes, opts, None, from, to, px, &what);
            wide += wide_state_shadows(&bytes, opts, from, to, px).0;
            // Shadows ending inside the window on a column edge.
            let mut r = Slog2Reader::with_options(Cursor::new(&bytes[..]), opts).unwrap();
            let mut buf = WindowBuf::new();
            mpelog::summary::query(&mut r, &mut buf, from, to, px).unwrap();
            let scale = f64::from(px) / (to - from);
            on_edge += buf
                .shadows()
                .filter(|s| {
                    let (a, b) = ((s.earliest() - from) * scale, (s.latest() - from) * scale);
                    b - a.max(0.0) > 4.0 && b < f64::from(px) && b == b.floor()
                })
                .count();
        }
    }
    assert!(
        wide > 0 && on_edge > 0,
        "{wide} wide shadows, {on_edge} ending on a column edge"
    );
}

/// Shadows over their lines' time (as in
/// [`shadows_holding_more_than_their_time_lose_it_from_containers`]) on two
/// lines that share a row, inside a real state each, the second line's
/// 1.33 s later and with its containers in other proportions (categories 4
/// and 2 at 0.6 and 0.25 on line 0, at 0.25 and 0.6 on line 1): a column
/// holds the container parts of two shadows whose edges fall at different
/// places in it, so the excess is shared by parts that are not in one
/// proportion, and each shadow's part of each column (its head, its tail,
/// the columns between, short spans' parts) must be the reference's. Read
/// whole (short shadows) and within small picture budgets (shadows wider
/// than 4 columns).
#[test]
fn containers_of_lines_sharing_a_row_share_their_excess() {
    let mut prims = Vec::new();
    for line in 0..2 {
        let shift = 1.33 * f64::from(line);
        prims.push(state(1, line, 0.0, 32.0));
        prims.extend(nested_every_50_ms(line, shift));
    }
    let bytes = made_with(prims, None, TreeOptions::default().leaf_bytes(2048));
    let bytes = rewrite_weights(&bytes, |s| {
        if s.vertices[0].line_id == 0 {
            [(0.9, 0.6), (0.5, 0.5), (0.5, 0.25)]
        } else {
            [(0.5, 0.25), (0.5, 0.5), (0.9, 0.6)]
        }
    });
    let view = lines_0_and_1_on_one_row();
    let mut wide = 0;
    for budget in [None, Some(0), Some(1 << 12)] {
        let opts = budget.map_or(ReadOptions::default(), |b| {
            ReadOptions::default().picture_budget(b)
        });
        for (from, to, px) in [
            (0.0, 32.0, 300),
            (2.2, 19.7, 640),
            (12.5, 13.5, 50),
            (3.3, 17.9, 90),
            (0.0, 32.0, 40),
            (0.0, 32.0, 7),
            (11.0, 12.0, 3),
        ] {
            let what = format!("two lines on a row, budget {budget:?}");
            check_read(&bytes, opts, Some(&view), from, to, px, &what);
            wide += wide_state_shadows(&bytes, opts, from, to, px).1;
        }
    }
    assert!(wide > 0, "no wide shadow with a container weight");
}

/// A state shadow with container weights exactly 4 columns wide (the widest
/// span the sweep spreads by its parts rather than as a rate) in a row with
/// no span wider than 4 columns: the rewritten trace of
/// [`shadows_holding_more_than_their_time_lose_it_from_containers`] read
/// within small picture budgets, at 8 columns over windows twice as wide as
/// one of its shadows, which starts or ends the window.
#[test]
fn container_shadows_exactly_4_columns_wide_are_the_references() {
    let prims = nested_every_50_ms(0, 0.0);
    let bytes = made_with(prims, None, TreeOptions::default().leaf_bytes(2048));
    let bytes = rewrite_weights(&bytes, |_| [(0.9, 0.6), (0.5, 0.5), (0.5, 0.25)]);
    let answer = |opts: ReadOptions, from: f64, to: f64, px: u32| {
        let mut r = Slog2Reader::with_options(Cursor::new(&bytes[..]), opts).unwrap();
        let mut buf = WindowBuf::new();
        mpelog::summary::query(&mut r, &mut buf, from, to, px).unwrap();
        buf
    };
    let mut exact = 0;
    for budget in [0, 1 << 10, 1 << 12] {
        let opts = ReadOptions::default().picture_budget(budget);
        let mut boxes: Vec<(f64, f64)> = Vec::new();
        for (from, to) in [(0.0, 30.0), (0.0, 8.0), (7.0, 12.0)] {
            let buf = answer(opts, from, to, 8);
            boxes.extend(buf.shadows().map(|s| (s.earliest(), s.latest())));
        }
        for (e, l) in boxes {
            for (from, to) in [(e, l + (l - e)), (e - (l - e), l)] {
                check_read(&bytes, opts, None, from, to, 8, "a shadow 4 columns wide");
                // As the sweep computes a span's width in columns.
                let scale = 8.0 / (to - from);
                let pos = |t: f64| ((t - from) * scale).clamp(0.0, 8.0);
                let buf = answer(opts, from, to, 8);
                let widths: Vec<f64> = buf
                    .shadows()
                    .map(|s| pos(s.latest()) - pos(s.earliest()))
                    .chain(buf.drawables().filter_map(|d| {
                        let v = d.primitive()?.vertices();
                        Some(pos(v.last()?.time) - pos(v.first()?.time))
                    }))
                    .collect();
                exact += usize::from(widths.contains(&4.0) && widths.iter().all(|&w| w <= 4.0));
            }
        }
    }
    assert!(exact > 0, "no shadow read exactly 4 columns wide");
}

/// Two lines sharing a row whose rates of one category cancel exactly while
/// a container of it runs: on line 0, shadows of category 2 (ratio 1.375,
/// not a container) inside a real state of category 1 over the whole trace,
/// which they take 1.375 from (its rate −0.375); on line 1, 1.33 s later,
/// shadows of containers of categories 1 (0.375) and 3 (1.0). Where both
/// run, category 1's rate over the row is exactly 0 (every ratio is exact
/// in binary) and the row holds 2.375 lines' time: the excess is shared by
/// both containers, category 1's included though none of its time shows.
#[test]
fn a_container_whose_rate_cancels_still_shares_the_excess() {
    let mut prims = Vec::new();
    prims.push(state(1, 0, 0.0, 32.0));
    for i in 0..600 {
        let t = f64::from(i) * 0.05;
        prims.push(state(2, 0, t, t + 0.04));
        let t = t + 1.33;
        prims.push(state(1, 1, t, t + 0.02));
        prims.push(state(3, 1, t + 0.025, t + 0.045));
    }
    let bytes = made_with(prims, None, TreeOptions::default().leaf_bytes(2048));
    let mut f = slog2_format::Slog2File::parse(&bytes).unwrap();
    let mut rewritten = 0;
    for block in f.blocks.values_mut() {
        let slog2_format::FileBlock::Node(node) = block else {
            continue;
        };
        for stub in &mut node.value.stubs {
            for s in &mut stub.nestable {
                let line = s.vertices[0].line_id;
                for w in &mut s.weights {
                    (w.incl, w.excl) = match (line, w.category) {
                        (0, 2) => (1.375, 1.375),
                        (1, 1) => (0.9, 0.375),
                        (1, 3) => (1.5, 1.0),
                        _ => continue,
                    };
                    rewritten += 1;
                }
            }
        }
    }
    assert!(rewritten > 10, "{rewritten} weights rewritten");
    let bytes = f.to_bytes().unwrap();
    let view = lines_0_and_1_on_one_row();
    let windows = [(0.0, 32.0, 300), (2.2, 19.7, 640), (12.5, 13.5, 50)];
    let wide = within_small_budgets(&bytes, Some(&view), &windows, "a cancelled rate");
    assert!(wide > 0, "no wide shadow with a container weight");
}
