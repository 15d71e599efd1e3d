//! Building a [`Summary`] from a preview answer: the sweep over each
//! timeline's states, shadows, events and arrows (spec/queries.md §6.1–§6.4).

use super::sweep::*;
use super::*;

impl Summary {
    /// The summary of a preview answer in `buf` for the window `[from, to]`
    /// drawn `columns` pixels wide (at most [`MAX_COLUMNS`]), with the file's legend and the view whose
    /// rows are the timelines (`None`: one row per line ID).
    ///
    /// Real states are nested per timeline as `stats` nests them (in start
    /// order, the longer first; a state inside the open one's box is its
    /// child); a state shadow's exclusive ratios are spread evenly over its
    /// box and taken from the states open around it.
    ///
    /// ```
    /// # use mpelog::summary::Summary;
    /// # use slog2_format::{convert::clog2_to_slog2, Slog2Reader, WindowBuf};
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let mut r = Slog2Reader::new(Cursor::new(out.into_inner()))?;
    /// # let legend = r.categories().map(|c| c.value.categories.clone()).unwrap_or_default();
    /// # let view = r.line_id_maps().and_then(|m| m.value.maps.first().cloned());
    /// # let root = *r.tree_dir().unwrap().value.root().unwrap();
    /// # let (from, to) = (root.earliest, root.latest);
    /// # let mut buf = WindowBuf::new();
    /// # mpelog::summary::query(&mut r, &mut buf, from, to, 100)?;
    /// # let s = Summary::of_window(&buf, &legend, view.as_ref(), from, to, 100);
    /// assert_eq!((s.from, s.to, s.columns), (from, to, 100));
    /// // A row per timeline of the view: line IDs with the same values share one.
    /// let mut timelines: Vec<&Vec<i32>> = view.as_ref().unwrap().rows.iter().map(|r| &r.values).collect();
    /// timelines.sort();
    /// timelines.dedup();
    /// assert_eq!(s.rows.len(), timelines.len());
    /// let per_line = Summary::of_window(&buf, &legend, None, from, to, 100);
    /// assert!(!per_line.rows.is_empty()); // without a view: a row per line ID
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn of_window(
        buf: &WindowBuf,
        legend: &[Category],
        view: Option<&LineIdMap>,
        from: f64,
        to: f64,
        columns: u32,
    ) -> Summary {
        Summary::of_window_rows(buf, legend, view, from, to, columns, None)
    }

    /// [`of_window`](Self::of_window) with the cells, states, events and
    /// arrows of the rows `first..=last` only (an arrow when either end is
    /// there); [`rows`](Self::rows) still lists every row, so row indexes are
    /// those of the whole summary.
    ///
    /// ```
    /// # use mpelog::summary::Summary;
    /// # use slog2_format::{convert::clog2_to_slog2, Slog2Reader, WindowBuf};
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let mut r = Slog2Reader::new(Cursor::new(out.into_inner()))?;
    /// # let legend = r.categories().map(|c| c.value.categories.clone()).unwrap_or_default();
    /// # let view = r.line_id_maps().and_then(|m| m.value.maps.first().cloned());
    /// # let root = *r.tree_dir().unwrap().value.root().unwrap();
    /// # let (from, to) = (root.earliest, root.latest);
    /// # let mut buf = WindowBuf::new();
    /// # mpelog::summary::query(&mut r, &mut buf, from, to, 100)?;
    /// # let s = Summary::of_window(&buf, &legend, view.as_ref(), from, to, 100);
    /// let first = Summary::of_window_rows(&buf, &legend, view.as_ref(), from, to, 100, Some((0, 0)));
    /// assert_eq!(first.rows.len(), s.rows.len()); // every row listed ...
    /// assert_eq!(first.exclusive_of_row(0), s.exclusive_of_row(0));
    /// assert!(first.exclusive_of_row(1).is_empty()); // ... the cells of row 0 only
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn of_window_rows(
        buf: &WindowBuf,
        legend: &[Category],
        view: Option<&LineIdMap>,
        from: f64,
        to: f64,
        columns: u32,
        only: Option<(u32, u32)>,
    ) -> Summary {
        let shown = |row: u32| only.is_none_or(|(a, b)| a <= row && row <= b);
        let columns = columns.clamp(1, MAX_COLUMNS);
        let columns = columns.max(1);
        // Categories: their topology and (state categories) their slot; the
        // legend's state categories first.
        let mut cats = Cats::new(legend);

        // Rows: the view's, then any line it lacks.
        let view_rows: HashMap<i32, Vec<i32>> = view
            .map(|m| {
                m.rows
                    .iter()
                    .map(|r| (r.line_id, r.values.clone()))
                    .collect()
            })
            .unwrap_or_default();
        let key_of = |line: i32| view_rows.get(&line).cloned().unwrap_or_else(|| vec![line]);
        let mut lines = Dense::default();
        for &l in view_rows.keys() {
            lines.index(l);
        }

        // First pass: the lines, and per line how many states and state
        // shadows (and shadow weights) it holds, so that the second pass puts
        // each where its line's sweep reads it.
        let mut per_line: Vec<(usize, usize)> = Vec::new();
        let mut count = |lines: &mut Dense, first: i32, last: i32, weights: Option<usize>| {
            let a = lines.index(first) as usize;
            lines.index(last);
            per_line.resize(lines.len(), (0, 0));
            if let Some(w) = weights {
                per_line[a].0 += 1;
                per_line[a].1 += w;
            }
        };
        for d in buf.drawables() {
            for p in d.primitive().into_iter().chain(d.parts()) {
                let v = p.vertices();
                let (Some(a), Some(b)) = (v.first(), v.last()) else {
                    continue;
                };
                let state = cats.topology(p.category()) == topology::STATE;
                count(&mut lines, a.line_id, b.line_id, state.then_some(0));
            }
        }
        for s in buf.shadows() {
            let v = s.vertices();
            let (Some(a), Some(b)) = (v.first(), v.last()) else {
                continue;
            };
            let state = cats.topology(s.category()) == topology::STATE;
            count(
                &mut lines,
                a.line_id,
                b.line_id,
                state.then_some(s.weights().len()),
            );
        }
        per_line.resize(lines.len(), (0, 0));

        // Rows by key; lines per row.
        let mut sorted: Vec<i32> = lines.keys.clone();
        sorted.sort_unstable();
        let mut by_key: BTreeMap<Vec<i32>, Vec<i32>> = BTreeMap::new();
        for &l in &sorted {
            by_key.entry(key_of(l)).or_default().push(l);
        }
        let rows: Vec<Row> = by_key
            .into_iter()
            .map(|(key, lines)| Row { key, lines })
            .collect();
        let mut row_of = vec![0u32; lines.len()];
        // Each shown line's group: its rank in row order, its row and line ID.
        let mut rank = vec![NONE; lines.len()];
        let mut groups: Vec<(u32, i32)> = Vec::new();
        for (r, row) in rows.iter().enumerate() {
            for &l in &row.lines {
                let ix = lines.get(l).expect("every row's line is indexed") as usize;
                row_of[ix] = r as u32;
                if shown(r as u32) {
                    rank[ix] = groups.len() as u32;
                    groups.push((r as u32, l));
                }
            }
        }
        let mut starts = vec![(0usize, 0usize); groups.len() + 1];
        for (ix, &k) in rank.iter().enumerate() {
            if k != NONE {
                starts[k as usize + 1] = per_line[ix];
            }
        }
        for k in 1..starts.len() {
            starts[k].0 += starts[k - 1].0;
            starts[k].1 += starts[k - 1].1;
        }

        // Second pass: states and state shadows into their line's group (a
        // shadow's weights beside its group's), events and arrows as marks.
        let (n_items, n_weights) = starts[groups.len()];
        let mut items: Vec<Item> = vec![Item::EMPTY; n_items];
        // State shadows' weights: (category slot, exclusive ratio, container).
        let mut weights: Vec<(u32, f64, bool)> = vec![(0, 0.0, false); n_weights];
        let mut next = starts.clone();
        let mut events: Vec<(u32, i32, f64, u64, bool)> = Vec::new();
        let mut arrows: Vec<super::arrows::RawArrow> = Vec::new();
        let mut drawables = 0u64;
        let mut order = 0u32;
        let ix = |lines: &Dense, l: i32| lines.get(l).expect("indexed in the first pass");
        for d in buf.drawables() {
            for p in d.primitive().into_iter().chain(d.parts()) {
                if p.vertices().is_empty() {
                    continue;
                }
                let piece = Piece::of(&p);
                drawables += 1;
                order += 1;
                let (a, b) = (ix(&lines, piece.first.1), ix(&lines, piece.last.1));
                match cats.topology(piece.category) {
                    topology::STATE => {
                        let slot = cats.slot(piece.category);
                        let k = rank[a as usize];
                        if k != NONE {
                            let at = &mut next[k as usize].0;
                            items[*at] = Item {
                                start: piece.start,
                                end: piece.end,
                                category: piece.category,
                                order,
                                slot,
                                weights: 0,
                                info: piece.info,
                            };
                            *at += 1;
                        }
                    }
                    topology::ARROW => arrows.push(super::arrows::RawArrow {
                        from: a,
                        to: b,
                        start: piece.first.0,
                        end: piece.last.0,
                        category: piece.category,
                        count: 1,
                        shadow: None,
                    }),
                    _ => events.push((a, piece.category, piece.first.0, 1, false)),
                }
            }
        }
        let mut shadows = 0u64;
        let ratio = |x: f32| {
            let x = f64::from(x);
            if x.is_finite() && x > 0.0 {
                x
            } else {
                0.0
            }
        };
        for s in buf.shadows() {
            let v = s.vertices();
            let (Some(a), Some(b)) = (v.first(), v.last()) else {
                continue;
            };
            shadows += 1;
            let (la, lb) = (ix(&lines, a.line_id), ix(&lines, b.line_id));
            match cats.topology(s.category()) {
                topology::STATE => {
                    let k = rank[la as usize];
                    if k == NONE {
                        continue;
                    }
                    let span = s.latest() - s.earliest();
                    let (at, w_at) = &mut next[k as usize];
                    let first = *w_at;
                    // A member that holds nested states gets an `excl` from
                    // its own subtree only (conversion.md §4 step 4), while
                    // the states nested in it may lie in other subtrees,
                    // whose shadows count them too: such weights (`incl` above
                    // `excl`) are marked as containers, and a column whose
                    // shares add up to more than its width loses the excess
                    // from them (spec/queries.md §6.2).
                    for w in s.weights() {
                        if cats.topology(w.category) != topology::STATE {
                            continue;
                        }
                        let x = ratio(w.excl);
                        if !(x > 0.0 && span > 0.0) {
                            continue;
                        }
                        let container = ratio(w.incl) > x * (1.0 + 1e-6);
                        weights[*w_at] = (cats.slot(w.category), x, container);
                        *w_at += 1;
                    }
                    items[*at] = Item {
                        start: s.earliest(),
                        end: s.latest(),
                        category: s.category(),
                        order: SHADOW,
                        slot: first as u32,
                        weights: (*w_at - first) as u32,
                        info: &[],
                    };
                    *at += 1;
                }
                topology::ARROW => {
                    let heaviest = s
                        .weights()
                        .iter()
                        .filter(|w| w.incl.is_finite())
                        .max_by(|p, q| p.incl.total_cmp(&q.incl).then(q.category.cmp(&p.category)))
                        .map_or(s.category(), |w| w.category);
                    arrows.push(super::arrows::RawArrow {
                        from: la,
                        to: lb,
                        start: a.time,
                        end: b.time,
                        category: heaviest,
                        count: u64::try_from(s.num_real_objs()).unwrap_or(0),
                        shadow: Some((s.earliest(), s.latest())),
                    })
                }
                _ => {
                    for w in s.weights() {
                        let n = w.count.map_or(1, |n| u64::try_from(n).unwrap_or(0)).max(1);
                        events.push((la, w.category, a.time, n, true));
                    }
                }
            }
        }

        let width = to - from;
        let scale = if width > 0.0 {
            f64::from(columns) / width
        } else {
            0.0
        };
        let pos = |t: f64| ((t - from) * scale).clamp(0.0, f64::from(columns));
        let col = |t: f64| (pos(t) as u32).min(columns - 1);
        let col_w = if columns > 0 {
            width / f64::from(columns)
        } else {
            0.0
        };

        // The sweep, row by row (lines of a row each with their own stack),
        // each line's group sorted first. A group is a few runs already in
        // start order (one per node read), which the stable sort merges rather
        // than sorts.
        for k in 0..groups.len() {
            items[starts[k].0..starts[k + 1].0].sort_by(|a, b| {
                a.start
                    .total_cmp(&b.start)
                    .then(b.end.total_cmp(&a.end))
                    .then((a.order == SHADOW).cmp(&(b.order == SHADOW)))
                    .then(a.category.cmp(&b.category))
                    .then(a.order.cmp(&b.order))
            });
        }
        let slot_cat = &cats.slot_cat;
        let slots = slot_cat.len().max(1);
        let n = columns as usize;
        let mut scratch = Scratch::new(n, slots);
        // Cells for the rows shown only: a few rows of a 1,024-rank trace
        // cost what they show.
        let cell_rows = match only {
            None => 0..rows.len(),
            Some((a, b)) => (a as usize).min(rows.len())..(b as usize + 1).min(rows.len()),
        };
        let mut cells: Vec<(u32, u32)> = Vec::with_capacity(cell_rows.len() * n);
        let mut shares: Vec<Share> = Vec::new();
        let mut summarised: Vec<bool> = Vec::with_capacity(cell_rows.len() * n);
        let mut covered: Vec<u16> = Vec::with_capacity(cell_rows.len() * n);
        let mut states: Vec<WideState> = Vec::new();
        let mut stack: Vec<Open> = Vec::new();
        let mut k = 0;
        // A cell's shares with their slots, the last cell's slots in order,
        // and which slots that order holds.
        let mut cell: Vec<(Share, u32)> = Vec::new();
        let mut last_order: Vec<u32> = Vec::new();
        let mut seen = vec![false; slots];
        // Per line: the innermost real state of each stretch of time.
        let mut segments: Vec<(f64, f64, usize)> = Vec::new();
        // Info texts by category and bytes: decoding (Java's number forms)
        // is slow, and ranks often log the same values.
        let mut infos: FxHashMap<(i32, &[u8]), Option<String>> = FxHashMap::default();
        for (r, row) in rows.iter().enumerate() {
            while k < groups.len() && groups[k].0 as usize == r {
                let l = groups[k].1;
                let line_items = &items[starts[k].0..starts[k + 1].0];
                k += 1;
                // Real states: nested as stats nests them, the exclusive time
                // of each, the wide ones, and the innermost segments.
                stack.clear();
                segments.clear();
                let mut cursor = f64::NEG_INFINITY;
                let close = |open: &Open,
                             upto: f64,
                             cursor: &mut f64,
                             segments: &mut Vec<(f64, f64, usize)>| {
                    let from = cursor.max(open.start);
                    if upto > from {
                        segments.push((from, upto, open.slot));
                    }
                    *cursor = cursor.max(upto);
                };
                for it in line_items.iter().filter(|it| it.order != SHADOW) {
                    let (a, b) = (pos(it.start), pos(it.end));
                    while let Some(top) = stack.last() {
                        if top.start <= it.start && it.end <= top.end {
                            break;
                        }
                        let top = stack.pop().expect("checked");
                        close(&top, top.end, &mut cursor, &mut segments);
                    }
                    if let Some(parent) = stack.last() {
                        close(parent, it.start, &mut cursor, &mut segments);
                    }
                    let slot = it.slot as usize;
                    let wide = b - a >= WIDE;
                    scratch.add(slot, a, b, 1.0, !wide);
                    if let Some(parent) = stack.last() {
                        scratch.add(parent.slot, a, b, -1.0, !wide);
                    }
                    let depth = stack.len() as u16;
                    if wide {
                        scratch.cover(a, b, depth + 1);
                        states.push(WideState {
                            row: r as u32,
                            depth,
                            category: it.category,
                            start: it.start,
                            end: it.end,
                            line: l,
                            info: infos
                                .entry((it.category, it.info))
                                .or_insert_with(|| info_text(legend, it.category, it.info))
                                .clone(),
                        });
                    }
                    stack.push(Open {
                        start: it.start,
                        end: it.end,
                        slot,
                    });
                }
                while let Some(top) = stack.pop() {
                    close(&top, top.end, &mut cursor, &mut segments);
                }
                // Shadows: their ratios spread over their boxes, taken from
                // the innermost real state of each stretch they overlap
                // (their members nest in it).
                for it in line_items.iter().filter(|it| it.order == SHADOW) {
                    let (a, b) = (pos(it.start), pos(it.end));
                    let ws = &weights[it.slot as usize..(it.slot + it.weights) as usize];
                    let mut density = 0.0;
                    for &(slot, x, container) in ws {
                        scratch.add(slot as usize, a, b, x, true);
                        if container {
                            scratch.add_container(slot as usize, a, b, x);
                        }
                        density += x;
                    }
                    if density <= 0.0 || it.end <= it.start {
                        continue;
                    }
                    let first = segments.partition_point(|seg| seg.1 <= it.start);
                    for &(s0, s1, slot) in segments[first..].iter().take_while(|seg| seg.0 < it.end)
                    {
                        let (lo, hi) = (s0.max(it.start), s1.min(it.end));
                        if hi > lo {
                            scratch.add(slot, pos(lo), pos(hi), -density, true);
                        }
                    }
                }
            }
            if !cell_rows.contains(&r) {
                continue;
            }
            // The row's cells.
            let mut point_before = true;
            for c in 0..n {
                let same = scratch.settle(c, point_before);
                point_before = std::mem::take(&mut scratch.point[c]);
                if !same {
                    cell.clear();
                }
                if !same && scratch.touched[c] {
                    scratch.cap(c, row.lines.len());
                    let base = c * slots;
                    scratch.container[base..base + slots].fill(0.0);
                    // The slots in the last cell's order first: neighbouring
                    // cells mostly rank their categories alike, so the sort
                    // below finds them nearly in order.
                    let secs = &mut scratch.seconds[base..base + slots];
                    let mut take = |s: usize, cell: &mut Vec<(Share, u32)>| {
                        let v = std::mem::take(&mut secs[s]) * col_w;
                        if v > 0.0 && v > col_w * 1e-12 {
                            let category = slot_cat[s];
                            cell.push((
                                Share {
                                    category,
                                    seconds: v,
                                },
                                s as u32,
                            ));
                        }
                    };
                    for &s in &last_order {
                        seen[s as usize] = true;
                        take(s as usize, &mut cell);
                    }
                    for (s, seen) in seen.iter_mut().enumerate() {
                        if !std::mem::take(seen) {
                            take(s, &mut cell);
                        }
                    }
                    // Categories are unique in a cell: no ties to keep.
                    cell.sort_unstable_by(|(p, _), (q, _)| {
                        q.seconds
                            .total_cmp(&p.seconds)
                            .then(p.category.cmp(&q.category))
                    });
                    last_order.clear();
                    last_order.extend(cell.iter().map(|&(_, s)| s));
                }
                match cells.last() {
                    Some(&last) if same && c > 0 => cells.push(last),
                    _ => {
                        let a = shares.len() as u32;
                        shares.extend(cell.iter().map(|&(s, _)| s));
                        cells.push((a, shares.len() as u32));
                    }
                }
                summarised.push(scratch.summarised[c]);
                covered.push(scratch.covered[c]);
                scratch.touched[c] = false;
                scratch.summarised[c] = false;
                scratch.covered[c] = 0;
            }
            scratch.end_row();
        }
        states.sort_by(|p, q| {
            p.start
                .total_cmp(&q.start)
                .then(q.end.total_cmp(&p.end))
                .then(p.row.cmp(&q.row))
                .then(p.depth.cmp(&q.depth))
        });
        // At most max(MAX_STATES_PER_COLUMN × columns, MIN_STATES) wide
        // states: past that the narrowest (ties: the deeper, then the later)
        // are summarised as a narrow state is (their exclusive time is in
        // the cells already), and the covering depths are those of the
        // states left (spec/queries.md §6.2).
        let cap = (MAX_STATES_PER_COLUMN * n).max(MIN_STATES);
        if states.len() > cap {
            let width = |s: &WideState| pos(s.end) - pos(s.start);
            let mut order: Vec<usize> = (0..states.len()).collect();
            order.sort_unstable_by(|&i, &j| {
                let (p, q) = (&states[i], &states[j]);
                width(p)
                    .total_cmp(&width(q))
                    .then(q.depth.cmp(&p.depth))
                    .then(q.start.total_cmp(&p.start))
                    .then(j.cmp(&i))
            });
            let mut drop = vec![false; states.len()];
            for &i in &order[..states.len() - cap] {
                drop[i] = true;
            }
            for v in covered.iter_mut() {
                *v = 0;
            }
            for (s, &dropped) in states.iter().zip(&drop) {
                let r = s.row as usize;
                if !cell_rows.contains(&r) {
                    continue;
                }
                let at = (r - cell_rows.start) * n;
                let (a, b) = (pos(s.start), pos(s.end));
                if dropped {
                    let first = (a as usize).min(n - 1);
                    let end = (b.ceil() as usize).clamp(first + 1, n);
                    for v in &mut summarised[at + first..at + end] {
                        *v = true;
                    }
                } else {
                    let first = a.ceil().max(0.0) as usize;
                    let end = (b.floor().max(0.0) as usize).min(n);
                    for v in &mut covered[at + first.min(end)..at + end] {
                        *v = (*v).max(s.depth + 1);
                    }
                }
            }
            let mut k = 0;
            states.retain(|_| {
                k += 1;
                !drop[k - 1]
            });
        }

        // Events: one mark per row and column, in the category with the most
        // events there (ties: the lower index), counting them all.
        let mut per_cat: FxHashMap<(u32, u32, i32), (u64, f64, bool)> = FxHashMap::default();
        for (line, category, t, count, summary) in events {
            if !(t >= from && t <= to) {
                continue;
            }
            if !shown(row_of[line as usize]) {
                continue;
            }
            let e = per_cat
                .entry((row_of[line as usize], col(t), category))
                .or_insert((0, t, false));
            e.0 += count;
            e.2 |= summary;
        }
        let mut per_cat: Vec<_> = per_cat.into_iter().collect();
        per_cat.sort_unstable_by_key(|(k, _)| *k);
        let mut events: Vec<EventMark> = Vec::new();
        for ((row, column, category), (count, time, summary)) in per_cat {
            match events.last_mut() {
                Some(m) if m.row == row && m.column == column => {
                    if count > m.top {
                        (m.category, m.time, m.top) = (category, time, count);
                    }
                    m.count += count;
                    m.summary |= summary;
                }
                _ => events.push(EventMark {
                    row,
                    column,
                    category,
                    time,
                    count,
                    top: count,
                    summary,
                }),
            }
        }
        // Arrows: one mark per pair of rows and pair of column bins; the
        // style they are drawn in, and their ticks.
        let marks = super::arrows::marks(
            arrows,
            &super::arrows::Layout {
                row_of: &row_of,
                rows: rows.len(),
                shown: &shown,
                from,
                to,
                columns,
                col: &col,
            },
        );
        Summary {
            from,
            to,
            columns,
            rows,
            cell_rows,
            cells,
            shares,
            summarised,
            covered,
            states,
            events,
            arrows: marks.arrows,
            arrow_columns: marks.arrow_columns,
            arrow_style: marks.style,
            ticks: marks.ticks,
            drawables,
            shadows,
            waits: None,
        }
    }
}
