//! The window columns that the Python package hands to Arrow
//! (`mpelog::Trace::window_columns`, `t.window()`) never panic, whatever the
//! bytes, and every answer is valid Arrow: each column as long as the
//! answer, the text offsets rising from 0 to the text's end over UTF-8, the
//! validity bitmaps as long as the rows with their null counts right. A
//! selection of columns (`Select`, `t.window(columns=...)`) gives the whole
//! answer's columns it keeps, with `info` null throughout when it is left
//! out. The input is a file of any format mpelog detects, followed by 17
//! bytes: the window (two big-endian f64) and the selection (bit 0: the
//! `info` text; the other bits: which typed columns, in turn). `seed.sh`
//! seeds it with real files so followed. The batches of the stream
//! (`ColumnsBuilder` over `Trace::scan`, `t.batches()`, in batches of a size
//! the selection byte chooses) are valid Arrow too, and pipit's event
//! columns (`PipitColumns`, `t.events()`) are made of the same file.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "shared/query.rs"]
mod query;
use mpelog::trace::{Columns, Select, TextColumn, TypedColumn, Validity};
use std::sync::OnceLock;

/// Where the inputs are written for `Trace::open` (one file per process).
fn scratch() -> &'static std::path::Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().expect("a temporary directory"))
        .path()
}

/// The bitmap says `rows` rows with the null count it gives.
fn valid_bits(v: &Validity, rows: usize) {
    assert!(
        v.bits.len() >= rows.div_ceil(8),
        "{} bitmap bytes for {rows} rows",
        v.bits.len()
    );
    let set = (0..rows)
        .filter(|&i| v.bits[i / 8] & (1 << (i % 8)) != 0)
        .count();
    assert_eq!(v.nulls, rows - set, "null count");
}

fn valid_text(c: &TextColumn, rows: usize) {
    assert_eq!(c.offsets.len(), rows + 1, "offsets");
    assert_eq!(c.offsets.first(), Some(&0));
    assert!(c.offsets.windows(2).all(|w| w[0] <= w[1]), "offsets fall");
    assert_eq!(c.offsets.last().map(|&o| o as usize), Some(c.bytes.len()));
    assert!(std::str::from_utf8(&c.bytes).is_ok(), "not UTF-8");
    valid_bits(&c.valid, rows);
}

fn valid(c: &Columns) {
    let n = c.len();
    for v in [&c.start, &c.end, &c.duration] {
        assert_eq!(v.len(), n);
    }
    for v in [&c.start_line, &c.end_line] {
        assert_eq!(v.len(), n);
    }
    for t in [&c.kind, &c.name, &c.info] {
        valid_text(t, n);
    }
    for (_, t) in &c.typed {
        match t {
            TypedColumn::Int(v, ok) => {
                assert_eq!(v.len(), n);
                valid_bits(ok, n);
            }
            TypedColumn::Float(v, ok) => {
                assert_eq!(v.len(), n);
                valid_bits(ok, n);
            }
            TypedColumn::Text(t) => valid_text(t, n),
            _ => {}
        }
    }
}

/// `x` as text to compare by: `Debug` writes a NaN (an info value may be
/// one) as `NaN`, where `==` would call two alike answers different.
fn shown<T: std::fmt::Debug>(x: T) -> String {
    format!("{x:?}")
}

fuzz_target!(|data: &[u8]| {
    let Some((file, a, b, q)) = query::file_and_query(data) else {
        return;
    };
    let path = scratch().join("input");
    std::fs::write(&path, file).expect("the scratch file");
    let Ok(mut t) = mpelog::Trace::open(&path) else {
        return;
    };
    if let Ok(whole) = t.window_columns(None, None) {
        valid(&whole);
    }
    let Ok(all) = t.window_columns(Some(a), Some(b)) else {
        return;
    };
    valid(&all);
    let names: Vec<String> = all
        .typed
        .iter()
        .enumerate()
        .filter(|(i, _)| q & (2 << (i % 7)) != 0)
        .map(|(_, (c, _))| c.name.clone())
        .collect();
    let select = Select::default().info(q & 1 != 0).typed(names.clone());
    let some = t
        .window_columns_with(Some(a), Some(b), &select)
        .expect("the window answered whole");
    valid(&some);
    assert_eq!(some.len(), all.len());
    assert_eq!(
        (&some.kind, &some.name, &some.category),
        (&all.kind, &all.name, &all.category)
    );
    assert_eq!(
        shown((&some.start, &some.end, &some.start_line)),
        shown((&all.start, &all.end, &all.start_line))
    );
    match q & 1 != 0 {
        true => assert_eq!(some.info, all.info),
        false => assert_eq!(some.info.valid.nulls, some.len()),
    }
    let kept: Vec<_> = all
        .typed
        .iter()
        .filter(|(c, _)| names.contains(&c.name))
        .collect();
    assert_eq!(shown(some.typed.iter().collect::<Vec<_>>()), shown(kept));
    // The whole answer again, after the selection: the plan made again.
    assert_eq!(
        shown(t.window_columns(Some(a), Some(b)).ok()),
        shown(Some(&all))
    );
    // The stream `t.batches()` builds its batches of: every batch valid.
    let (mut legend, mut pieces, mut infos) = (Vec::new(), Vec::new(), Vec::new());
    let window = mpelog::export::Options::default().window(Some(a), Some(b));
    let streamed = t.scan(&window, &mut |l| legend = l.to_vec(), &mut |p| {
        infos.push(p.info.to_vec());
        pieces.push(mpelog::slices::Piece { info: &[], ..p });
    });
    if streamed.is_ok() {
        let pieces: Vec<_> = pieces
            .iter()
            .zip(&infos)
            .map(|(p, i)| mpelog::slices::Piece { info: i, ..*p })
            .collect();
        let mut batches = mpelog::trace::ColumnsBuilder::with_select(&legend, &select);
        for chunk in pieces.chunks(1 + usize::from(q) * 4) {
            valid(&batches.columns(chunk).expect("a small batch fits"));
        }
    }
    let mut events = mpelog::export::pipit_columns::PipitColumns::default();
    let _ = t.drawables(&window, &mut events);
});
