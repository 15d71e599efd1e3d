//! Every SLOG-2 file the real clog2TOslog2 wrote survives compression: plain →
//! SLOG 2.0.6Z (each codec) → plain gives the file back byte for byte, the
//! compressed file checks clean, and a whole-file window reads the same drawables
//! from the same number of nodes with fewer bytes.

mod common;

use slog2_format::check::check;
use slog2_format::frame::Compression;
use slog2_format::write::reframe;
use slog2_format::Slog2Reader;
use std::io::Cursor;

#[test]
fn corpus_files_round_trip_through_every_codec() {
    let Some(dir) = common::corpus() else { return };
    // Every SLOG-2 file of mpe/ (the corpus README lists 33).
    let files = mpelog_conformance::corpus::listing(&dir.join("mpe"), ".slog2", 33);
    let (mut plain_total, mut z_total) = (0usize, 0usize);
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let plain = std::fs::read(path).unwrap();
        for c in [
            Compression::Stored,
            Compression::Deflate(1),
            Compression::Columns(4),
        ] {
            let (z, _) = reframe(Cursor::new(&plain), Cursor::new(Vec::new()), c, |_| {}).unwrap();
            let z = z.into_inner();
            let errors: Vec<_> = check(Cursor::new(&z), 3)
                .into_iter()
                .filter(|f| f.problem.breaks_readers())
                .collect();
            assert!(errors.is_empty(), "{name} {c:?}: {errors:?}");
            let (back, _) = reframe(
                Cursor::new(&z),
                Cursor::new(Vec::new()),
                Compression::None,
                |_| {},
            )
            .unwrap();
            assert!(
                back.into_inner() == plain,
                "{name} {c:?}: not byte-identical after the round trip"
            );
            let mut a = Slog2Reader::new(Cursor::new(&plain)).unwrap();
            let mut b = Slog2Reader::new(Cursor::new(&z)).unwrap();
            let wa = a.window(f64::NEG_INFINITY, f64::INFINITY).unwrap();
            let wb = b.window(f64::NEG_INFINITY, f64::INFINITY).unwrap();
            assert_eq!(
                format!("{:?}", wa.drawables),
                format!("{:?}", wb.drawables),
                "{name}"
            );
            assert_eq!(wa.counters.nodes_read, wb.counters.nodes_read, "{name}");
            if c == Compression::Columns(4) {
                assert!(wb.counters.bytes_read < wa.counters.bytes_read, "{name}");
                plain_total += plain.len();
                z_total += z.len();
            }
        }
    }
    eprintln!(
        "{} files: {plain_total} bytes plain, {z_total} compressed ({:.1}%)",
        files.len(),
        100.0 * z_total as f64 / plain_total as f64
    );
}
