//! Window and preview queries never panic or loop, whatever the bytes, strict
//! and lenient. The input is a file followed by 17 bytes that choose the window
//! (two big-endian f64) and the pixel count; `seed.sh` seeds it with real files
//! so followed. A query that succeeds on a strict reader returns only drawables
//! whose categories the file defines. A reader with a node cache (asked twice,
//! so that the second time finds the upper nodes scanned) answers as one
//! without. The raw query (drawables left in the nodes' bytes) answers as the
//! owned one: the same nodes and drawables, or an error at the same offset.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "shared/query.rs"]
mod query;
use slog2_format::window::RawWindowBuf;
use slog2_format::{NodeCache, Slog2Reader, WindowAnswer};
use std::io::Cursor;
use std::sync::Arc;

/// What a query found, not what it cost.
fn found(a: &slog2_format::Result<WindowAnswer>) -> Result<String, Option<u64>> {
    match a {
        Ok(a) => Ok(format!("{:?} {:?} {:?}", a.drawables, a.shadows, a.nodes)),
        Err(e) => Err(e.offset()),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((file, a, b, q)) = query::file_and_query(data) else {
        return;
    };
    let Ok(mut r) = Slog2Reader::new(Cursor::new(file)) else {
        return;
    };
    let categories: std::collections::HashSet<i32> = r
        .categories()
        .map(|c| c.value.categories.iter().map(|c| c.index).collect())
        .unwrap_or_default();
    for lenient in [false, true] {
        r.set_lenient(lenient);
        let answers = [
            r.window(a, b),
            r.window(f64::NEG_INFINITY, f64::INFINITY),
            r.window_preview(a, b, q as u32),
        ];
        for w in answers.iter().flatten() {
            for d in &w.drawables {
                assert!(categories.contains(&d.value.category()), "{d:?}");
            }
        }
        for e in answers.iter().filter_map(|w| w.as_ref().err()) {
            assert!(e.offset().is_some(), "{e}");
        }
        let mut raw = RawWindowBuf::new();
        let got = r.window_raw_into(&mut raw, a, b).map(|()| {
            let drawables: Vec<_> = raw.drawables().map(|d| d.to_owned()).collect();
            format!("{:?} {:?}", raw.nodes(), drawables)
        });
        let want = answers[0].as_ref().map(|w| {
            let drawables: Vec<_> = w.drawables.iter().map(|d| Some(d.value.clone())).collect();
            format!("{:?} {:?}", w.nodes, drawables)
        });
        match (got, want) {
            (Ok(g), Ok(w)) => assert_eq!(g, w),
            (Err(g), Err(w)) => assert_eq!(g.offset(), w.offset()),
            (g, w) => panic!("raw {g:?}, owned {w:?}"),
        }
        let Ok(mut cached) = Slog2Reader::new(Cursor::new(file)) else {
            return;
        };
        cached.set_lenient(lenient);
        cached.set_node_cache(Arc::new(NodeCache::new(1 << 24)));
        for _ in 0..2 {
            let again = [
                cached.window(a, b),
                cached.window(f64::NEG_INFINITY, f64::INFINITY),
                cached.window_preview(a, b, q as u32),
            ];
            for (x, y) in answers.iter().zip(&again) {
                assert_eq!(found(x), found(y));
            }
        }
    }
});
