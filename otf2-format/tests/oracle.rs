//! libotf2 as the oracle: random archives written by the `otf2` Python
//! package (which bundles libotf2) must read, definition by definition and
//! event by event, exactly as libotf2's own reader reads them; so must the
//! two real Score-P archives of the corpus. Skips with a message when
//! `python3 -c 'import otf2'` fails, unless `CI` is set.

mod common;

use common::*;
use otf2_format::{Archive, EventKind};
use std::path::Path;

#[test]
fn random_archives_read_as_libotf2_reads_them() {
    if !have_oracle() {
        return;
    }
    // Seeded: each seed is one archive; 40k events per location spans several
    // 256 KiB chunks.
    for (seed, events) in [
        (1u64, 3000u32),
        (2, 500),
        (3, 40_000),
        (4, 8000),
        (5, 60_000),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a");
        python_write(seed, &path, events);
        let anchor = path.join("traces.otf2");
        let theirs = python_dump(&anchor);
        let archive = Archive::open(&anchor).unwrap();
        let ours = rust_dump(&archive);
        assert_same(&ours, &theirs, &format!("seed {seed}"));
        // The merged stream: the same events, in nondecreasing time.
        let merged: Vec<_> = archive.events().unwrap().map(|e| e.unwrap()).collect();
        assert_eq!(merged.len(), theirs["events"].as_array().unwrap().len());
        assert!(merged.windows(2).all(|w| w[0].time <= w[1].time));
        if events >= 40_000 {
            let r = archive
                .location_events(archive.defs.locations[0].0)
                .unwrap();
            let chunks = {
                let mut r = r;
                while r.next_event().unwrap().is_some() {}
                r.chunks()
            };
            assert!(chunks > 1, "seed {seed}: only {chunks} chunk");
        }
    }
}

fn corpus() -> Option<std::path::PathBuf> {
    // A relative path is taken from the workspace root, as `.ci/run` gives it
    // (tests run in the crate's directory).
    match std::env::var_os("MPELOG_CORPUS") {
        Some(p) => {
            let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(p);
            assert!(
                root.is_dir(),
                "MPELOG_CORPUS={} is not a directory",
                root.display()
            );
            Some(root.join("otf2"))
        }
        None => {
            eprintln!("skipped: MPELOG_CORPUS is not set");
            None
        }
    }
}

#[test]
fn corpus_archives_read_as_libotf2_reads_them() {
    let Some(dir) = corpus() else { return };
    // The counts of the corpus README's table.
    for (name, metrics) in [("ping-pong-otf2", 0usize), ("ping-pong-otf2-papi", 84)] {
        let archive = Archive::open(dir.join(name)).unwrap();
        assert_eq!(archive.defs.locations.len(), 2);
        assert_eq!(archive.defs.regions.len(), 235);
        let events: Vec<_> = archive.events().unwrap().map(|e| e.unwrap()).collect();
        let count = |f: &dyn Fn(&EventKind) -> bool| events.iter().filter(|e| f(&e.kind)).count();
        assert_eq!(
            count(&|k| matches!(k, EventKind::Enter { .. })),
            42,
            "{name}"
        );
        assert_eq!(
            count(&|k| matches!(k, EventKind::Leave { .. })),
            42,
            "{name}"
        );
        assert_eq!(
            count(&|k| matches!(k, EventKind::MpiSend { .. })),
            16,
            "{name}"
        );
        assert_eq!(
            count(&|k| matches!(k, EventKind::MpiRecv { .. })),
            16,
            "{name}"
        );
        assert_eq!(
            count(&|k| matches!(k, EventKind::Metric { .. })),
            metrics,
            "{name}"
        );
        assert_eq!(
            count(&|k| matches!(k, EventKind::ProgramBegin { .. })),
            2,
            "{name}"
        );
        assert_eq!(
            count(&|k| matches!(k, EventKind::ProgramEnd { .. })),
            2,
            "{name}"
        );
        if have_oracle() {
            let theirs = python_dump(&dir.join(name).join("traces.otf2"));
            assert_same(&rust_dump(&archive), &theirs, name);
        }
    }
}
