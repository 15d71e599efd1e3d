//! 2.0.5 ↔ 2.0.6: a corpus file taken down to 2.0.5 and updated back gets its tree,
//! pointers and weight counts exactly, and its category summaries as spec §11.2
//! computes them.

mod common;

use common::corpus;
use slog2_format::update::{downgrade_206_to_205, update_205_to_206};
use slog2_format::{FileBlock, Slog2File, Version};

fn categories(f: &Slog2File) -> Vec<slog2_format::Category> {
    f.blocks
        .values()
        .find_map(|b| match b {
            FileBlock::Categories(c) => Some(c.value.categories.clone()),
            _ => None,
        })
        .unwrap()
}

#[test]
fn down_and_up_again_restores_every_node_and_count() {
    let Some(dir) = corpus() else { return };
    for rel in [
        "historic/fpilog.slog2",
        "historic/data.slog2",
        "mpe/p2p_n4_ls1k.slog2",
        "mpe/many_events_n4_ls4k_nc4.slog2",
        "mpe/colls_n16_ls4k_nc4.slog2",
    ] {
        let path = dir.join(rel);
        assert!(path.is_file(), "corpus file missing: {}", path.display());
        let data = std::fs::read(&path).unwrap();
        let orig = Slog2File::parse(&data).unwrap();

        let mut old = orig.clone();
        downgrade_206_to_205(&mut old).unwrap();
        let old_bytes = old.to_bytes().unwrap();
        assert!(old_bytes.len() < data.len(), "{rel}");
        let reread = Slog2File::parse(&old_bytes).unwrap();
        assert_eq!(reread.version, Version::V205);
        // (Compared as text: NaN ratios, which real files hold, are never == .)
        assert_eq!(
            format!("{reread:?}"),
            format!("{old:?}"),
            "{rel}: the 2.0.5 file reads back"
        );
        assert!(
            reread.to_bytes().unwrap() == old_bytes,
            "{rel}: 2.0.5 round trip"
        );

        let mut new = reread;
        update_205_to_206(&mut new).unwrap();
        let new_bytes = new.to_bytes().unwrap();
        assert_eq!(new_bytes.len(), data.len(), "{rel}");
        let back = Slog2File::parse(&new_bytes).unwrap();
        // Header, TreeDir, nodes (with every weight count), line-ID maps: identical.
        assert_eq!(back.header, orig.header, "{rel}");
        for (a, b) in back.blocks.values().zip(orig.blocks.values()) {
            if !matches!(a, FileBlock::Categories(_)) {
                assert!(
                    format!("{a:?}") == format!("{b:?}"),
                    "{rel}: a block differs"
                );
            }
        }
        // Category summaries: counts exact, inclusive ratios close to Java's.
        for (a, b) in categories(&back).iter().zip(categories(&orig).iter()) {
            let (sa, sb) = (a.summary.unwrap(), b.summary.unwrap());
            assert_eq!((a.index, sa.count), (b.index, sb.count), "{rel}");
            if sb.incl.is_finite() && sb.incl > 0.0 {
                let rel_err = ((sa.incl - sb.incl) / sb.incl).abs();
                assert!(
                    rel_err < 1e-5,
                    "{rel}: category {} incl {} vs Java {}",
                    a.index,
                    sa.incl,
                    sb.incl
                );
            }
        }
        assert!(
            slog2_format::check::check(std::io::Cursor::new(&new_bytes), 5).is_empty(),
            "{rel}"
        );
    }
}
