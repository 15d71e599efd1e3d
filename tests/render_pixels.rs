//! `mpelog render` pixel by pixel: hand-made SLOG-2 traces whose states,
//! events and arrows sit on known pixel columns, rendered to PNG and decoded,
//! each pixel compared with what the layout says it must be (80 px of labels,
//! rows 40 px tall from y = 30, a state's bar 2 px inside its row and nested
//! ones 12 % of the row thinner on each side, a summarised cell's bands as
//! tall as their shares, events, arrows and message ticks as `render`'s
//! module documents).
//!
//! 356 px wide, the plot is 256 columns; over [0, 0.5) s a column is 1/512 s,
//! so that every time and share below is exact in binary.

mod common;

use common::mpelog;
use mpelog::summary::ArrowStyle;
use slog2_format::types::{topology, Category};
use slog2_format::write::{identity_map, Prim, TreeOptions, TreeWriter};
use slog2_format::Slog2Reader;
use std::io::Cursor;

const LEFT: u32 = 80;
const TOP: u32 = 30;
const ROW: u32 = 40;
const COLUMNS: u32 = 256;
/// One pixel column, in seconds.
const U: f64 = 1.0 / 512.0;
const BLACK: [u8; 3] = [0, 0, 0];
const YELLOW: [u8; 3] = [255, 255, 0];

/// A legend entry of `topo` drawn in `rgb`.
fn cat(index: i32, topo: i32, rgb: [u8; 3]) -> Category {
    let mut c = common::category(index, topo);
    c.argb = [255, rgb[0], rgb[1], rgb[2]];
    c
}

/// A state of `category` on `line` over columns `[a, b)` (fractions allowed).
fn state(category: i32, line: i32, a: f64, b: f64) -> Prim {
    Prim::two(category, topology::STATE, (a * U, line), (b * U, line), &[])
}

/// The decoded PNG and the SVG it was drawn from.
struct Picture {
    width: u32,
    rgba: Vec<u8>,
    svg: String,
    summarised: u64,
    summary: mpelog::summary::Summary,
}

impl Picture {
    /// The colour of plot column `column`, `dy` pixels below the top of `row`.
    fn at(&self, column: u32, row: u32, dy: u32) -> [u8; 3] {
        let (x, y) = (LEFT + column, TOP + ROW * row + dy);
        let i = ((y * self.width + x) * 4) as usize;
        [self.rgba[i], self.rgba[i + 1], self.rgba[i + 2]]
    }
}

/// `prims` on the timelines `lines` (one row each, in order), drawn by
/// `mpelog render` over [0, 0.5) s as a PNG 356 px wide.
fn draw(prims: Vec<Prim>, categories: &[Category], lines: &[i32]) -> Picture {
    draw_tree(prims, categories, lines, TreeOptions::default())
}

/// [`draw`] of a file written with `tree` (small leaves: more previews).
fn draw_tree(
    mut prims: Vec<Prim>,
    categories: &[Category],
    lines: &[i32],
    tree: TreeOptions,
) -> Picture {
    // The writer takes primitives by their latest time.
    let latest = |p: &Prim| {
        p.times[..usize::from(p.nv)]
            .iter()
            .copied()
            .fold(f64::MIN, f64::max)
    };
    prims.sort_by(|a, b| latest(a).total_cmp(&latest(b)));
    let mut w = TreeWriter::new(Cursor::new(Vec::new()), tree).unwrap();
    for p in prims {
        w.add(p).unwrap();
    }
    let (out, _) = w
        .finish(categories, vec![identity_map(lines.iter().copied())])
        .unwrap();
    let bytes = out.into_inner();
    let dir = tempfile::tempdir().unwrap();
    let (input, png) = (dir.path().join("t.slog2"), dir.path().join("t.png"));
    std::fs::write(&input, &bytes).unwrap();
    let o = mpelog(&[
        "render",
        input.to_str().unwrap(),
        "-o",
        png.to_str().unwrap(),
        "--width",
        "356",
        "--from",
        "0",
        "--to",
        "0.5",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut rgba = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut rgba).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgba);
    assert_eq!(info.width, 356);
    // The same picture from the library: its SVG and what it counted.
    let mut r = Slog2Reader::new(Cursor::new(&bytes[..])).unwrap();
    let opts = mpelog::render::Options::default()
        .window(Some(0.0), Some(0.5))
        .width(356);
    let (svg, drawn) = mpelog::render::svg(&mut r, &opts).unwrap();
    let (summary, _, _) = mpelog::render::summary(&mut r, &opts).unwrap();
    Picture {
        width: info.width,
        rgba,
        svg,
        summarised: drawn.summarised,
        summary,
    }
}

/// Checks pixels `dy` (of `dys`) of a plot column against `want`.
fn expect(p: &Picture, column: u32, row: u32, dys: std::ops::RangeInclusive<u32>, want: [u8; 3]) {
    for dy in dys {
        assert_eq!(
            p.at(column, row, dy),
            want,
            "column {column}, row {row}, {dy} px below its top"
        );
    }
}

/// The `<rect>`s of the summary group (a run's background and its bands)
/// whose top is inside `row`.
fn summary_rects(svg: &str, row: u32) -> usize {
    let group = svg
        .split(r#"<g class="summary">"#)
        .nth(1)
        .unwrap()
        .split("</g>")
        .next()
        .unwrap();
    let rows = f64::from(TOP + ROW * row)..f64::from(TOP + ROW * (row + 1));
    group
        .lines()
        .filter(|l| l.starts_with("<rect"))
        .filter(|l| rows.contains(&common::svg_number(l, "y")))
        .count()
}

const RED: [u8; 3] = [255, 0, 0];
const BLUE: [u8; 3] = [0, 0, 255];
const GREEN: [u8; 3] = [0, 255, 0];
/// The four nested states of the last row, outermost first.
const NESTED: [[u8; 3]; 4] = [[255, 255, 0], [0, 255, 255], [255, 0, 255], [128, 64, 0]];
/// The three narrow states inside them.
const INNER: [[u8; 3]; 3] = [[255, 128, 128], [64, 128, 255], [200, 200, 200]];

/// Summarised cells: their region, inset as deep as the wide states around
/// them, filled by bands as tall as their shares (scaled down when states
/// overlap), the stack kept inside the region; wide states as bars 2 px
/// inside the row, nested ones thinner by 12 % of the row on each side.
#[test]
fn summarised_cells_are_bands_as_tall_as_their_shares() {
    let mut cats = vec![
        cat(1, topology::STATE, RED),
        cat(2, topology::STATE, BLUE),
        cat(3, topology::STATE, GREEN),
    ];
    cats.extend((0..4).map(|i| cat(4 + i, topology::STATE, NESTED[i as usize])));
    cats.extend((0..3).map(|i| cat(8 + i, topology::STATE, INNER[i as usize])));
    let mut prims = Vec::new();
    // Row 0: ten states one column wide, back to back over columns 10-19.
    prims.extend((10..20).map(|c| state(1, 0, f64::from(c), f64::from(c + 1))));
    // And a wide one from column 240 to past the window's end.
    prims.push(state(1, 0, 240.0, 300.0));
    // Row 1: two overlapping states, neither inside the other: column 40
    // holds a whole column of red and half a column of blue.
    prims.push(state(1, 1, 40.0, 41.0));
    prims.push(state(2, 1, 40.5, 41.5));
    // Row 2: narrow red states over columns 20-29 inside a wide green one.
    prims.push(state(3, 2, 0.0, 100.0));
    prims.extend((20..30).map(|c| state(1, 2, f64::from(c), f64::from(c + 1))));
    // Row 3: four nested wide states, and inside the innermost one column
    // 50 split 7 : 5 : 4 between three narrow states.
    for d in 0..4 {
        prims.push(state(4 + d, 3, f64::from(d), f64::from(100 - d)));
    }
    prims.push(state(8, 3, 50.0, 50.0 + 7.0 / 16.0));
    prims.push(state(9, 3, 50.0 + 7.0 / 16.0, 50.0 + 12.0 / 16.0));
    prims.push(state(10, 3, 50.0 + 12.0 / 16.0, 51.0));
    let p = draw(prims, &cats, &[0, 1, 2, 3]);

    // Row 0: each column's one share fills the region, 2 px inside the row
    // (pixels 2-37 of 40); the ten columns are one run, one background and
    // one band.
    for c in 10..20 {
        expect(&p, c, 0, 1..=1, BLACK);
        expect(&p, c, 0, 2..=37, RED);
        expect(&p, c, 0, 38..=38, BLACK);
    }
    for c in [9, 20] {
        expect(&p, c, 0, 1..=38, BLACK);
    }
    assert_eq!(summary_rects(&p.svg, 0), 2, "one run of ten alike columns");
    // The wide state stops at the plot's edge; right of it, the white page.
    expect(&p, 255, 0, 2..=37, RED);
    expect(&p, COLUMNS, 0, 2..=37, [255, 255, 255]);

    // Row 1: 1.5 columns of state in column 40, scaled to the 36 px region:
    // red 36 / 1.5 = 24 px on the middle, moved up to keep blue's 12 px
    // below it inside the region.
    expect(&p, 40, 1, 2..=25, RED);
    expect(&p, 40, 1, 26..=37, BLUE);
    // Column 41: half a column of blue, 18 px on the middle (11-28).
    expect(&p, 41, 1, 1..=10, BLACK);
    expect(&p, 41, 1, 11..=28, BLUE);
    expect(&p, 41, 1, 29..=38, BLACK);

    // Row 2: the green bar over pixels 2-37; inside it the red cells of
    // columns 20-29, inset 12 % of the row (4.8 px): 6.8 to 33.2, bands
    // rounded to quarter pixels (6.75, 33.25).
    for c in [0, 19, 30, 99] {
        expect(&p, c, 2, 1..=1, BLACK);
        expect(&p, c, 2, 2..=37, GREEN);
        expect(&p, c, 2, 38..=38, BLACK);
    }
    for c in 20..30 {
        expect(&p, c, 2, 2..=5, GREEN);
        expect(&p, c, 2, 7..=32, RED);
        expect(&p, c, 2, 34..=37, GREEN);
    }
    expect(&p, 100, 2, 1..=38, BLACK);

    // Row 3: bars inset 0, 4.8, 9.6 and 14.4 px from pixel 2 (to 38), so
    // pixels 2-5, 7-10, 12-15 and 17-22 in each colour; column 50 holds a
    // 4 px region (the inset is at most 40 % of the row: 2 + 16 = 18 to 22)
    // with 7/16 of it (1.75 px) on the middle moved up 0.125 px to keep the
    // 5/16 (1.25 px) below it inside: 19-20.75; 4/16 above it, 18-19; 5/16
    // below, 20.75-22.
    for c in [3, 49, 51, 96] {
        expect(&p, c, 3, 2..=5, NESTED[0]);
        expect(&p, c, 3, 7..=10, NESTED[1]);
        expect(&p, c, 3, 12..=15, NESTED[2]);
        expect(&p, c, 3, 17..=22, NESTED[3]);
        expect(&p, c, 3, 24..=27, NESTED[2]);
    }
    expect(&p, 50, 3, 17..=17, NESTED[3]);
    expect(&p, 50, 3, 18..=18, INNER[2]);
    expect(&p, 50, 3, 19..=19, INNER[0]);
    expect(&p, 50, 3, 21..=21, INNER[1]);
    expect(&p, 50, 3, 22..=22, NESTED[3]);

    // Cells drawn from their shares: 10 + 2 + 10 + 1.
    assert_eq!(p.summarised, 23);
}

const ORANGE: [u8; 3] = [255, 128, 0];
const TEAL: [u8; 3] = [0, 128, 128];

/// Events of category 11 (orange) or 12 (teal) on rows 0 and 1, one in
/// the middle of each listed column: `(row, column, category)`.
fn events(marks: &[(u32, u32, i32)]) -> Picture {
    let cats = [
        cat(11, topology::EVENT, ORANGE),
        cat(12, topology::EVENT, TEAL),
    ];
    let prims = marks
        .iter()
        .map(|&(row, c, k)| Prim::event(k, (f64::from(c) + 0.5) * U, row as i32, &[]))
        .collect();
    draw(prims, &cats, &[0, 1])
}

fn colour(category: i32) -> [u8; 3] {
    if category == 11 {
        ORANGE
    } else {
        TEAL
    }
}

/// Up to an eighth of the cells with events (64 of 2 × 256), each is a
/// stalk and a circle at the top of its row; one more, and each is a strip
/// 3 px tall at the top of its row (pixels 1-3), neighbours of one category
/// in one rectangle.
#[test]
fn events_are_marks_up_to_an_eighth_of_the_cells_then_strips() {
    // 64 marks: 32 orange on row 0 every 4 columns, 32 teal on row 1.
    let marks: Vec<(u32, u32, i32)> = (0..32)
        .map(|i| (0, 4 * i, 11))
        .chain((0..32).map(|i| (1, 4 * i + 2, 12)))
        .collect();
    let p = events(&marks);
    for row in 0..2 {
        for c in 0..COLUMNS {
            let mark = marks.iter().find(|m| (m.0, m.1) == (row, c));
            // The stalk runs from 2 to 12 px below the row's top; no strip.
            expect(&p, c, row, 1..=1, BLACK);
            expect(&p, c, row, 10..=10, mark.map_or(BLACK, |m| colour(m.2)));
        }
    }

    // 86 marks: strips. Runs of one category on consecutive columns of a
    // row are one rectangle; a run stops at another category (column 10),
    // at a gap (11, 34, 36), and at the row's end (row 0's last run ends
    // at column 100, row 1's first starts at 101).
    let mut marks: Vec<(u32, u32, i32)> = (0..10).map(|c| (0, c, 11)).collect();
    marks.extend([
        (0, 10, 12),
        (0, 11, 11),
        (0, 34, 11),
        (0, 36, 11),
        (0, 37, 12),
    ]);
    marks.extend((90..=100).map(|c| (0, c, 11)));
    marks.extend((101..=150).map(|c| (1, c, 11)));
    marks.extend((200..210).map(|c| (1, c, 12)));
    assert_eq!(marks.len(), 86);
    let p = events(&marks);
    for row in 0..2 {
        for c in 0..COLUMNS {
            let mark = marks.iter().find(|m| (m.0, m.1) == (row, c));
            expect(&p, c, row, 1..=3, mark.map_or(BLACK, |m| colour(m.2)));
            expect(&p, c, row, 4..=38, BLACK);
        }
    }
    // One rectangle per run: row 0's 0-9, 10, 11, 34, 36, 37 and 90-100,
    // row 1's 101-150 and 200-209.
    let strips = p.svg.matches(r#" height="3" "#).count();
    assert_eq!(strips, 9, "{}", p.svg);
}

/// Many messages (more than 256 / 8 touch a row): no lines, but ticks
/// (spec/queries.md §6.4 step 3), one per row, edge and 4-column bin (more
/// arrows than columns), yellow, at the edge of the row that faces the
/// messages' other row, from 2 px (one message end) to 6 px (15 % of the
/// 40 px row; the picture's largest tick) tall on a log scale, and nothing
/// on the rows' middle lines; an end after the window makes no tick.
#[test]
fn many_arrows_are_ticks_at_the_rows_edges() {
    let cats = [cat(13, topology::ARROW, [255, 255, 255])];
    let at = |c: f64| c * U;
    let arrow = |a: f64, from: i32, b: f64, to: i32| {
        Prim::two(13, topology::ARROW, (a, from), (b, to), &[])
    };
    // 300 arrows from row 0 to row 1, sent and received at once in column
    // 4k + 1 (k = 0..64): 5 in the bins k < 44, 4 in the others.
    let mut prims: Vec<Prim> = (0..300)
        .map(|i| {
            let t = at(f64::from(i % 64) * 4.0 + 1.5);
            arrow(t, 0, t, 1)
        })
        .collect();
    // Row 2 to 3: sent from the bins 28-36, all received in bin 32; row 4
    // to 5: the other way round (9 ends in bin 32: the tallest ticks).
    for j in 28..=36 {
        let c = at(f64::from(j) * 4.0 + 1.5);
        prims.push(arrow(c, 2, at(129.5), 3));
        prims.push(arrow(at(129.5), 4, c, 5));
    }
    // Row 6 to itself, from column 250 to after the window's end.
    prims.push(arrow(at(250.5), 6, 0.6, 6));
    let p = draw(prims, &cats, &[0, 1, 2, 3, 4, 5, 6]);
    let s = &p.summary;
    assert_eq!(s.arrow_style, ArrowStyle::Ticks);
    assert_eq!(s.arrow_columns, 4);
    assert!(!p.svg.contains("marker-end") && !p.svg.contains("stroke=\"#ffff00\""));
    let sent: u64 = s.ticks.iter().map(|t| t.sent).sum();
    let received: u64 = s.ticks.iter().map(|t| t.received).sum();
    assert_eq!(
        (sent, received),
        (319, 318),
        "the last one is received after the window"
    );
    // Heights: 2 + 4 ln n / ln 9 px: 4.93 (n = 5), 4.52 (4), 6 (9), 2 (1).
    for k in 0..64 {
        for c in 4 * k..4 * k + 4 {
            // Row 0's bottom edge, row 1's top edge: at least 4.5 px.
            expect(&p, c, 0, 36..=39, YELLOW);
            expect(&p, c, 0, 1..=33, BLACK);
            expect(&p, c, 1, 0..=3, YELLOW);
            expect(&p, c, 1, 6..=38, BLACK);
        }
    }
    let title =
        |sent: u64, received: u64| format!("<title>{sent} messages sent, {received} received");
    assert_eq!(p.svg.matches(&title(5, 0)).count(), 44);
    assert_eq!(p.svg.matches(&title(4, 0)).count(), 20);
    assert_eq!(p.svg.matches(&title(0, 5)).count(), 44);
    // Rows 2 and 5: one message end per bin, 2 px; rows 3 and 4: nine in
    // bin 32, 6 px.
    for j in 0..64 {
        // Without a tick, a row's first and last pixels hold half the
        // separator line between rows.
        let (one, nine) = ((28..=36).contains(&j), j == 32);
        let edge = |tick: bool, dys: std::ops::RangeInclusive<u32>, inner: u32| {
            for c in 4 * j..4 * j + 4 {
                match tick {
                    true => expect(&p, c, inner, dys.clone(), YELLOW),
                    false => {
                        let (a, b) = (*dys.start().max(&1), *dys.end().min(&38));
                        expect(&p, c, inner, a..=b, BLACK)
                    }
                }
            }
        };
        edge(one, 38..=39, 2);
        edge(one, 0..=1, 5);
        edge(nine, 0..=5, 3);
        edge(nine, 34..=39, 4);
        for c in 4 * j..4 * j + 4 {
            expect(&p, c, 2, 1..=36, BLACK);
            expect(&p, c, 5, 3..=38, BLACK);
            expect(&p, c, 3, 7..=38, BLACK);
            expect(&p, c, 4, 1..=32, BLACK);
        }
    }
    // Row 6: the send in bin 62 (columns 248-251), at the bottom edge (the
    // other end is the row itself); nothing for the receive after the
    // window, nor on the page right of the plot.
    for c in 0..COLUMNS {
        match (248..252).contains(&c) {
            // (Its last pixel holds half the time axis.)
            true => expect(&p, c, 6, 38..=38, YELLOW),
            false => expect(&p, c, 6, 38..=38, BLACK),
        }
        expect(&p, c, 6, 1..=36, BLACK);
    }
    expect(&p, COLUMNS, 6, 20..=39, [255, 255, 255]);
    // The legend says what a tick stands for.
    let legend = "messages: 319 sent in the window, drawn as ticks at the rows' edges, \
                  each 4 px wide, from 1 (short) to 9 (tall) message ends each";
    assert!(p.svg.contains(legend), "{}", p.svg);
}

/// Arrows that shadows summarise count their `num_real_objs` toward the
/// style and the ticks: 3000 arrows in each of the columns 10, 11 and 30,
/// in a file of leaves so small that the picture reads shadows for most of
/// them, are ticks near those columns only, and every one of the 9000
/// messages is counted in them.
#[test]
fn shadow_arrows_count_all_their_messages_in_ticks() {
    let cats = [cat(13, topology::ARROW, [255, 255, 255])];
    let n = 3000;
    let prims = [10.0, 11.0, 30.0]
        .into_iter()
        .flat_map(|c| {
            (0..n).map(move |i| {
                let t = (c + f64::from(i) / f64::from(n)) * U;
                Prim::two(13, topology::ARROW, (t, 0), (t + U / f64::from(n), 1), &[])
            })
        })
        .collect();
    let p = draw_tree(
        prims,
        &cats,
        &[0, 1],
        TreeOptions::default().leaf_bytes(1024),
    );
    let s = &p.summary;
    assert!(s.shadows > 0, "the picture reads shadows");
    assert_eq!(s.arrow_style, ArrowStyle::Ticks);
    let sent: u64 = s.ticks.iter().map(|t| t.sent).sum();
    let received: u64 = s.ticks.iter().map(|t| t.received).sum();
    assert_eq!((sent, received), (9000, 9000));
    // Row 0's bottom edge is yellow near columns 10-11 and 30 only, and no
    // middle line is crossed.
    let yellow: Vec<u32> = (0..COLUMNS).filter(|&c| p.at(c, 0, 39) == YELLOW).collect();
    assert!(
        yellow.iter().any(|c| (8..13).contains(c)) && yellow.iter().any(|c| (28..33).contains(c)),
        "ticks at the shadows' columns: {yellow:?}"
    );
    assert!(
        yellow
            .iter()
            .all(|c| (8..13).contains(c) || (28..33).contains(c)),
        "{yellow:?}"
    );
    for c in 0..COLUMNS {
        expect(&p, c, 0, 18..=22, BLACK);
        expect(&p, c, 1, 18..=22, BLACK);
    }
}

/// Lines (Jumpshot's look) while no row is touched by more than 256 / 8 =
/// 32 messages: 32 arrows from row 0 to row 2 (touching rows 0, 1 and 2)
/// are 32 white lines with heads, crossing row 1's middle line; one more,
/// and they are ticks.
#[test]
fn an_eighth_of_the_columns_is_the_most_lines_a_row_meets() {
    let cats = [cat(13, topology::ARROW, [255, 255, 255])];
    let arrows = |n: u32| -> Vec<Prim> {
        (0..n)
            .map(|i| {
                let c = f64::from(i * 7 + 5) + 0.5;
                Prim::two(13, topology::ARROW, (c * U, 0), ((c + 4.0) * U, 2), &[])
            })
            .collect()
    };
    let p = draw(arrows(32), &cats, &[0, 1, 2]);
    assert_eq!(p.summary.arrow_style, ArrowStyle::Lines);
    assert_eq!(p.svg.matches("marker-end").count(), 32);
    // Row 1's middle line: each line crosses it near column 7i + 7.5.
    for i in 0..32 {
        let lit = (7 * i + 6..7 * i + 10)
            .filter(|&c| p.at(c, 1, 20) != BLACK)
            .count();
        assert!(lit > 0, "line {i} crosses row 1's middle");
    }
    let p = draw(arrows(33), &cats, &[0, 1, 2]);
    assert_eq!(p.summary.arrow_style, ArrowStyle::Ticks);
    assert!(!p.svg.contains("marker-end"));
    for c in 0..COLUMNS {
        expect(&p, c, 1, 2..=37, BLACK);
    }
}

/// The time axis over [0, 0.5) s: ticks every 0.1 s from the plot's left
/// edge to its right edge, the last one included (at the window's end), and
/// only a label within 30 px of the right edge anchored at its end, so that
/// it does not run past the picture.
#[test]
fn tick_labels_end_at_the_plots_right_edge() {
    let red = cat(1, slog2_format::types::topology::STATE, RED);
    let p = draw(vec![state(1, 0, 0.0, 256.0)], &[red], &[0]);
    let ticks: Vec<(f64, String)> = p
        .svg
        .lines()
        .filter(|l| l.starts_with("<line") && l.contains("<text"))
        .map(|l| {
            let text = &l[l.find("<text").unwrap()..];
            let anchor = text.split("text-anchor=\"").nth(1).unwrap();
            let anchor = anchor[..anchor.find('"').unwrap()].to_string();
            (common::svg_number(l, "x1"), anchor)
        })
        .collect();
    let want: Vec<(f64, String)> = (0..=5)
        .map(|i| {
            let x = f64::from(LEFT) + f64::from(i) * f64::from(COLUMNS) / 5.0;
            let edge = f64::from(LEFT + COLUMNS);
            let anchor = if x > edge - 30.0 { "end" } else { "middle" };
            (x, anchor.to_string())
        })
        .collect();
    assert_eq!(ticks, want);
    assert_eq!(want.iter().filter(|(_, a)| a == "end").count(), 1);
}
