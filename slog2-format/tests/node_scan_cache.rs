//! A reader with a [`NodeCache`] keeps what its window queries found in upper
//! nodes (spec/queries.md §2.2) and later reads only what a window shows of
//! them: its answers must be exactly those of a reader without the cache, in
//! every validation mode, for plain and compressed files, intact or damaged.

use slog2_format::convert::clog2_to_slog2;
use slog2_format::frame::Compression;
use slog2_format::write::TreeOptions;
use slog2_format::{NodeCache, Result, Slog2Reader, Validation, WindowAnswer, WindowBuf};
use std::io::Cursor;
use std::sync::Arc;

/// A 32-rank generated trace in small leaves with two children per node: a
/// deep tree whose upper nodes carry a shadow per timeline and category.
fn trace(compression: Compression) -> Vec<u8> {
    let opts = clog2_format::synth::Options::default()
        .ranks(32)
        .events(30_000)
        .seed(5);
    let clog2 = clog2_format::synth::generate_vec(&opts).unwrap();
    let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    let tree = TreeOptions::default()
        .leaf_bytes(4096)
        .children(2)
        .compression(compression);
    let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), tree, |_| {}).unwrap();
    out.into_inner()
}

/// The end of the trace (its root's latest time).
fn end_of(bytes: &[u8]) -> f64 {
    let r = Slog2Reader::new(Cursor::new(bytes)).unwrap();
    r.tree_dir().unwrap().value.root().unwrap().latest
}

/// Windows of every width from a millionth of the trace to all of it, at
/// positions spread over it (a fixed pseudo-random sequence).
fn windows(end: f64, n: usize) -> Vec<(f64, f64, u32)> {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as f64 / (1u64 << 53) as f64
    };
    (0..n)
        .map(|i| {
            let width = end * 10f64.powf(-6.0 * next());
            let from = (end - width) * next();
            (from, from + width, [1600, 200, 7][i % 3])
        })
        .collect()
}

/// What a query found (not what it cost: the cached reader reads less).
fn found(a: &Result<WindowAnswer>) -> std::result::Result<String, Option<u64>> {
    match a {
        Ok(a) => Ok(format!(
            "{:?} {:?} {:?} {}",
            a.drawables, a.shadows, a.nodes, a.counters.nodes_read
        )),
        Err(e) => Err(e.offset()),
    }
}

/// The three queries of a window, into answers.
fn queries<R: std::io::Read + std::io::Seek>(
    r: &mut Slog2Reader<R>,
    (from, to, pixels): (f64, f64, u32),
) -> [Result<WindowAnswer>; 3] {
    let mut buf = WindowBuf::new();
    let picture = r
        .window_picture_into(&mut buf, from, to, pixels)
        .map(|()| buf.to_answer());
    [
        r.window(from, to),
        r.window_preview(from, to, pixels),
        picture,
    ]
}

/// Runs `windows` on a reader without a cache and on two readers sharing one
/// (the second finds every upper node scanned already) and compares.
fn answers_alike(
    bytes: &[u8],
    validation: Validation,
    windows: &[(f64, f64, u32)],
    cache: &Arc<NodeCache>,
) {
    let open = |cache: Option<&Arc<NodeCache>>| {
        let mut r = Slog2Reader::new(Cursor::new(bytes))?;
        r.set_validation(validation);
        if let Some(c) = cache {
            r.set_node_cache(Arc::clone(c));
        }
        Ok::<_, slog2_format::Error>(r)
    };
    let (Ok(mut plain), Ok(mut first)) = (open(None), open(Some(cache))) else {
        return;
    };
    let mut second = open(Some(cache)).unwrap();
    for &w in windows {
        let want = queries(&mut plain, w).map(|a| found(&a));
        for (who, r) in [("first", &mut first), ("second", &mut second)] {
            let got = queries(r, w).map(|a| found(&a));
            assert_eq!(
                got, want,
                "{who} cached reader, window {w:?}, {validation:?}"
            );
        }
    }
}

#[test]
fn a_reader_with_a_node_cache_answers_as_one_without() {
    for compression in [Compression::None, Compression::Deflate(1)] {
        let bytes = trace(compression);
        let end = end_of(&bytes);
        let ws = windows(end, 60);
        for v in [Validation::Strict, Validation::Lenient, Validation::Off] {
            answers_alike(&bytes, v, &ws, &Arc::new(NodeCache::new(64 << 20)));
        }
    }
}

#[test]
fn a_cached_upper_node_is_read_only_where_the_window_shows_it() {
    let bytes = trace(Compression::None);
    let mut r = Slog2Reader::new(Cursor::new(&bytes)).unwrap();
    let end = end_of(&bytes);
    let (a, b) = (end * 0.4, end * 0.4 + end * 1e-4);
    let mut buf = WindowBuf::new();
    r.window_picture_into(&mut buf, a, b, 1600).unwrap();
    let uncached = buf.counters().bytes_read;
    r.set_node_cache(Arc::new(NodeCache::new(64 << 20)));
    // The first query scans the upper nodes and reads them whole.
    r.window_picture_into(&mut buf, a, b, 1600).unwrap();
    assert_eq!(buf.counters().bytes_read, uncached);
    let want = buf.to_answer();
    // The next reads only the drawables shown of them (and the leaves).
    r.window_picture_into(&mut buf, a, b, 1600).unwrap();
    let cached = buf.counters().bytes_read;
    assert!(
        cached * 4 < uncached,
        "{cached} bytes read with the cache, {uncached} without"
    );
    assert_eq!(
        (&buf.to_answer().drawables, &buf.to_answer().shadows),
        (&want.drawables, &want.shadows)
    );
}

#[test]
fn a_damaged_file_gives_the_same_answer_or_error_with_a_node_cache() {
    let clean = trace(Compression::None);
    let end = end_of(&clean);
    let ws = windows(end, 6);
    // Bytes changed all over the file, nodes included (most of the file).
    let mut x = 7u64;
    for _ in 0..40 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let at = (x >> 33) as usize % clean.len();
        let mut bytes = clean.clone();
        bytes[at] ^= 1 << ((x >> 20) % 8);
        // One cache for every mode: what a node passed unchecked is no
        // answer for a checking reader.
        let cache = Arc::new(NodeCache::new(64 << 20));
        for v in [Validation::Off, Validation::Lenient, Validation::Strict] {
            answers_alike(&bytes, v, &ws, &cache);
        }
    }
}
