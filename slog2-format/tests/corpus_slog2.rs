//! SLOG-2 against the real corpus: every file written by the Java slog2sdk reads and
//! writes back byte for byte.

mod common;

use common::corpus;
use slog2_format::{FileBlock, Slog2File, Slog2Reader, Version};

/// Every SLOG-2 file of the corpus, with (children per node, leaf size, depth).
const FILES: &[(&str, i16, i32, i16)] = &[
    ("mpe/colls_n1.slog2", 2, 65536, 0),
    ("mpe/colls_n2.slog2", 2, 65536, 0),
    ("mpe/colls_n4.slog2", 2, 65536, 0),
    ("mpe/colls_n8.slog2", 2, 65536, 0),
    ("mpe/colls_n16.slog2", 2, 65536, 0),
    ("mpe/colls_n16_ls4k_nc4.slog2", 4, 4096, 2),
    ("mpe/comm1_isr_n4.slog2", 2, 65536, 0),
    ("mpe/comm1_isr_loop_n2.slog2", 2, 65536, 5),
    ("mpe/cpi_n4.slog2", 2, 65536, 0),
    ("mpe/cpilog_n1.slog2", 2, 65536, 0),
    ("mpe/cpilog_n2.slog2", 2, 65536, 0),
    ("mpe/cpilog_n4.slog2", 2, 65536, 0),
    ("mpe/cpilog_n4_bs4k.slog2", 2, 65536, 0),
    ("mpe/cpilog_n4_filtered.slog2", 2, 65536, 0),
    ("mpe/cpilog_n4_ls1k.slog2", 2, 1024, 3),
    ("mpe/cpilog_n8.slog2", 2, 65536, 0),
    ("mpe/cpilog_pack_n4.slog2", 2, 65536, 0),
    ("mpe/iotest_n2.slog2", 2, 65536, 0),
    ("mpe/many_events_n4.slog2", 2, 65536, 6),
    ("mpe/many_events_n4_ls4k_nc4.slog2", 4, 4096, 5),
    ("mpe/nested_states_n1.slog2", 2, 65536, 0),
    ("mpe/nested_states_n2.slog2", 2, 65536, 0),
    ("mpe/nested_states_n4.slog2", 2, 65536, 0),
    ("mpe/nested_states_n4_ls4k_nc4.slog2", 4, 4096, 1),
    ("mpe/nested_states_n16.slog2", 2, 65536, 0),
    ("mpe/p2p_n2.slog2", 2, 65536, 0),
    ("mpe/p2p_n4.slog2", 2, 65536, 0),
    ("mpe/p2p_n4_bs4k.slog2", 2, 65536, 0),
    ("mpe/p2p_n4_ls1k.slog2", 2, 1024, 5),
    ("mpe/p2p_n8.slog2", 2, 65536, 0),
    ("mpe/p2p_n8_ls4k_nc4.slog2", 4, 4096, 2),
    ("mpe/p2p_n16.slog2", 2, 65536, 0),
    ("mpe/srtest_n2.slog2", 2, 65536, 3),
    ("historic/fpilog.slog2", 2, 400, 3),
    ("historic/fpilog_fromclog.slog2", 2, 65536, 0),
    ("historic/fpilog_fromclog_ls400.slog2", 2, 400, 3),
    ("historic/arrow.slog2", 2, 65536, 0),
    ("historic/data.slog2", 2, 65536, 0),
    ("historic/arrow_fromtxt.slog2", 2, 65536, 0),
    ("historic/arrow_old_fromtxt.slog2", 2, 65536, 0),
    ("historic/data_fromtxt.slog2", 2, 65536, 0),
    ("historic/data_old_fromtxt.slog2", 2, 65536, 0),
    ("historic/data1_fromtxt.slog2", 2, 65536, 0),
    ("historic/onetimeline_fromtxt.slog2", 2, 65536, 0),
];

#[test]
fn every_corpus_slog2_round_trips_byte_for_byte() {
    let Some(dir) = corpus() else { return };
    for (rel, nc, leaf, depth) in FILES {
        let path = dir.join(rel);
        assert!(path.is_file(), "corpus file missing: {}", path.display());
        let data = std::fs::read(&path).unwrap();
        let f = Slog2File::parse(&data).unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert_eq!(f.version, Version::V206, "{rel}");
        assert_eq!(
            (
                f.header.num_children_per_node,
                f.header.treeleaf_bytesize,
                f.header.max_treedepth
            ),
            (*nc, *leaf, *depth),
            "{rel}"
        );
        assert!(f.gaps.is_empty(), "{rel}: bytes outside every block");
        let tree_dir = f.blocks.values().find_map(|b| match b {
            FileBlock::TreeDir(t) => Some(t),
            _ => None,
        });
        assert_eq!(
            tree_dir.unwrap().value.entries.len(),
            f.nodes().count(),
            "{rel}"
        );
        for n in f.nodes() {
            assert!(
                n.trailing.is_empty(),
                "{rel}: node at {} has trailing bytes",
                n.ptr.offset
            );
            assert_eq!(n.value.header.ptr, n.ptr, "{rel}: node self-pointer");
        }
        let out = f.to_bytes().unwrap();
        assert!(out == data, "{rel}: the rewritten file differs");
    }
}

#[test]
fn opening_reads_only_the_header_and_the_three_directory_blocks() {
    let Some(dir) = corpus() else { return };
    let data = std::fs::read(dir.join("mpe/many_events_n4_ls4k_nc4.slog2")).unwrap();
    let mut r = Slog2Reader::new(std::io::Cursor::new(&data)).unwrap();
    let h = r.header().clone();
    let c = r.counters();
    assert_eq!(c.nodes_read, 0);
    assert_eq!(
        c.bytes_read,
        r.header_len()
            + h.treedir.size as u64
            + h.categories.size as u64
            + h.lineidmaps.size as u64
    );
    // One node costs exactly its block.
    let leaf = r.tree_dir().unwrap().value.entries.last().unwrap().ptr;
    let n = r.read_node(leaf).unwrap();
    assert_eq!(n.value.header.id.depth, 0);
    assert_eq!(r.counters().nodes_read, 1);
    assert_eq!(r.counters().bytes_read, c.bytes_read + leaf.size as u64);
}

/// Every file the real MPE tools wrote is clean. The six `*_fromtxt` files are
/// known to be broken: the TRACE-API text sample converter that wrote them put one
/// uninitialized vertex in each two-vertex drawable (their slog2print dumps show the
/// same garbage times and line IDs), so `check` must flag them.
#[test]
fn check_passes_every_corpus_slog2_and_flags_the_known_broken_ones() {
    let Some(dir) = corpus() else { return };
    for (rel, ..) in FILES {
        let data = std::fs::read(dir.join(rel)).unwrap();
        let findings = slog2_format::check::check(std::io::Cursor::new(&data), 5);
        if rel.ends_with("_fromtxt.slog2") {
            assert!(
                findings
                    .iter()
                    .any(|f| f.problem == slog2_format::check::Problem::VertexCount),
                "{rel}: {findings:#?}"
            );
            assert!(
                findings.iter().any(|f| f.problem.breaks_readers()),
                "{rel}: {findings:#?}"
            );
        } else {
            assert!(findings.is_empty(), "{rel}: {findings:#?}");
        }
    }
}
