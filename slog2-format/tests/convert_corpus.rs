//! Our CLOG2 → SLOG-2 converter against the real `clog2TOslog2` output in the
//! corpus: the same drawables (as multisets of category, vertices and info), the
//! same categories and line-ID maps, the same unmatched-event count, a clean
//! `check`, and (with Java's tree options) the same tree shape.

mod common;

use common::compare::*;

use slog2_format::check::check;
use slog2_format::convert::{clog2_to_slog2, ConvertStats};
use slog2_format::write::TreeOptions;
use slog2_format::*;
use std::io::Cursor;
use std::path::Path;

/// (CLOG2 stem, SLOG-2 file, leaf bytes, children).
const PAIRS: &[(&str, &str, u32, u16)] = &[
    ("colls_n1", "colls_n1", 65536, 2),
    ("colls_n2", "colls_n2", 65536, 2),
    ("colls_n4", "colls_n4", 65536, 2),
    ("colls_n8", "colls_n8", 65536, 2),
    ("colls_n16", "colls_n16", 65536, 2),
    ("colls_n16", "colls_n16_ls4k_nc4", 4096, 4),
    ("comm1_isr_n4", "comm1_isr_n4", 65536, 2),
    ("comm1_isr_loop_n2", "comm1_isr_loop_n2", 65536, 2),
    ("cpi_n4", "cpi_n4", 65536, 2),
    ("cpilog_n1", "cpilog_n1", 65536, 2),
    ("cpilog_n2", "cpilog_n2", 65536, 2),
    ("cpilog_n4", "cpilog_n4", 65536, 2),
    ("cpilog_n4", "cpilog_n4_ls1k", 1024, 2),
    ("cpilog_n4_bs4k", "cpilog_n4_bs4k", 65536, 2),
    ("cpilog_n8", "cpilog_n8", 65536, 2),
    ("cpilog_pack_n4", "cpilog_pack_n4", 65536, 2),
    ("iotest_n2", "iotest_n2", 65536, 2),
    ("many_events_n4", "many_events_n4", 65536, 2),
    ("many_events_n4", "many_events_n4_ls4k_nc4", 4096, 4),
    ("nested_states_n1", "nested_states_n1", 65536, 2),
    ("nested_states_n2", "nested_states_n2", 65536, 2),
    ("nested_states_n4", "nested_states_n4", 65536, 2),
    ("nested_states_n4", "nested_states_n4_ls4k_nc4", 4096, 4),
    ("nested_states_n16", "nested_states_n16", 65536, 2),
    ("p2p_n2", "p2p_n2", 65536, 2),
    ("p2p_n4", "p2p_n4", 65536, 2),
    ("p2p_n4", "p2p_n4_ls1k", 1024, 2),
    ("p2p_n4_bs4k", "p2p_n4_bs4k", 65536, 2),
    ("p2p_n8", "p2p_n8", 65536, 2),
    ("p2p_n8", "p2p_n8_ls4k_nc4", 4096, 4),
    ("p2p_n16", "p2p_n16", 65536, 2),
    ("srtest_n2", "srtest_n2", 65536, 2),
];

fn convert(clog2: &Path, leaf_bytes: u32, children: u16) -> (Vec<u8>, ConvertStats) {
    let data = std::fs::read(clog2).unwrap();
    let mut r = clog2_format::Clog2Reader::from_slice(&data).unwrap();
    let opts = TreeOptions::default()
        .leaf_bytes(leaf_bytes)
        .children(children);
    let (out, stats) = clog2_to_slog2(&mut r, Cursor::new(Vec::new()), opts, |_| {}).unwrap();
    (out.into_inner(), stats)
}

/// "Number of Unmatched Events = N" from the converter's log.
fn java_unmatched(log: &str) -> u64 {
    log.lines()
        .find_map(|l| l.strip_prefix("Number of Unmatched Events = "))
        .and_then(|v| v.trim().parse().ok())
        .expect("unmatched count in the log")
}

#[test]
fn drawables_equal_the_real_converters() {
    let Some(dir) = common::corpus() else { return };
    let mut failures = Vec::new();
    for &(stem, slog, ls, nc) in PAIRS {
        let clog2 = dir.join("mpe").join(format!("{stem}.clog2"));
        let real_path = dir.join("mpe").join(format!("{slog}.slog2"));
        let (ours, stats) = convert(&clog2, ls, nc);
        let real = Slog2File::parse(&std::fs::read(&real_path).unwrap()).unwrap();
        let mine =
            Slog2File::parse(&ours).unwrap_or_else(|e| panic!("{slog}: ours does not parse: {e}"));
        let (a, b) = (drawables(&mine), drawables(&real));
        if a != b {
            let only_ours = a.iter().filter(|(k, n)| b.get(*k) != Some(n)).count();
            let only_real = b.iter().filter(|(k, n)| a.get(*k) != Some(n)).count();
            let sample: Vec<_> = b
                .iter()
                .filter(|(k, n)| a.get(*k) != Some(n))
                .take(3)
                .collect();
            let sample2: Vec<_> = a
                .iter()
                .filter(|(k, n)| b.get(*k) != Some(n))
                .take(3)
                .collect();
            failures.push(format!(
                "{slog}: drawables differ: {only_ours} keys only/different in ours, {only_real} in the real file; real e.g. {sample:?}; ours e.g. {sample2:?}"
            ));
        }
        let n_real: u32 = b.values().sum();
        assert_eq!(
            stats.tree.drawables, n_real as u64,
            "{slog}: drawable count"
        );
        if stem == slog {
            let log =
                std::fs::read_to_string(dir.join("mpe").join(format!("{stem}.clog2TOslog2.log")))
                    .unwrap();
            if stats.unmatched.java_count != java_unmatched(&log) {
                failures.push(format!(
                    "{slog}: unmatched {} vs Java's {}",
                    stats.unmatched.java_count,
                    java_unmatched(&log)
                ));
            }
        }
        // Categories: same definitions (the legend's summaries are float sums).
        let (ca, cb) = (category_defs(&mine), category_defs(&real));
        if ca != cb {
            failures.push(format!(
                "{slog}: categories differ:\n ours {ca:?}\n real {cb:?}"
            ));
        }
        // Line-ID maps.
        if line_maps(&mine) != line_maps(&real) {
            failures.push(format!("{slog}: line-ID maps differ"));
        }
        // Tree shape: the same node IDs and time boxes.
        if shape(&mine) != shape(&real) {
            failures.push(format!(
                "{slog}: tree shape differs: ours {} nodes depth {}, real {} nodes depth {}",
                shape(&mine).len(),
                mine.header.max_treedepth,
                shape(&real).len(),
                real.header.max_treedepth
            ));
        }
        eprintln!(
            "{slog}: {} drawables, {} nodes, depth {}, {} bytes (real {}), unmatched {:?}",
            stats.tree.drawables,
            stats.tree.nodes,
            stats.tree.depth,
            ours.len(),
            std::fs::metadata(&real_path).unwrap().len(),
            stats.unmatched
        );
        let findings = check(Cursor::new(&ours), 5);
        let errors: Vec<_> = findings
            .iter()
            .filter(|f| f.problem.breaks_readers())
            .collect();
        if !errors.is_empty() {
            failures.push(format!("{slog}: check errors {errors:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Byte identity with the Java writer: the same file size, header and node block
/// pointers, and every tree node block byte-identical except for the order of
/// shadow weights with equal inclusive ratios, which Java leaves to HashMap order
/// (spec/conversion.md §4). The legend (category order, float summary sums) is
/// compared by definition in the other test.
#[test]
fn node_blocks_match_the_real_converters() {
    let Some(dir) = common::corpus() else { return };
    let (mut same, mut total) = (0, 0);
    for &(stem, slog, ls, nc) in PAIRS {
        let clog2 = dir.join("mpe").join(format!("{stem}.clog2"));
        let real_bytes = std::fs::read(dir.join("mpe").join(format!("{slog}.slog2"))).unwrap();
        let (ours, _) = convert(&clog2, ls, nc);
        assert_eq!(ours.len(), real_bytes.len(), "{slog}: file size");
        let mine = Slog2File::parse(&ours).unwrap();
        let real = Slog2File::parse(&real_bytes).unwrap();
        assert_eq!(mine.header, real.header, "{slog}: header");
        let (s, t) = node_blocks_match(slog, &ours, &real_bytes);
        same += s;
        total += t;
    }
    eprintln!("{same} of {total} node blocks byte-identical");
}
