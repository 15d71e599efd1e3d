//! `mpelog print --tree` (slog2printrecur's node view): every node of the
//! TreeDir once, depth first from the root, each child after its parent and
//! indented one level deeper; `--depth D` reads no node below D.

mod common;

use common::{mpelog, stdout, synth};

/// `(indent, depth, xpos, earliest, latest)` of every `node` line.
fn nodes(text: &str) -> Vec<(usize, i16, i32, f64, f64)> {
    text.lines()
        .filter(|l| l.trim_start().starts_with("node ("))
        .map(|l| {
            let indent = l.len() - l.trim_start().len();
            let rest = l.trim_start().strip_prefix("node (").unwrap();
            let (id, rest) = rest.split_once(") [").unwrap();
            let (d, x) = id.split_once(',').unwrap();
            let (times, _) = rest.split_once(']').unwrap();
            let (t0, t1) = times.split_once(',').unwrap();
            (
                indent,
                d.parse().unwrap(),
                x.parse().unwrap(),
                t0.parse().unwrap(),
                t1.parse().unwrap(),
            )
        })
        .collect()
}

/// Checks the tree shape of `tree` against the serial dump `serial` (TreeDir
/// order) and returns the depths printed.
fn check_tree(tree: &str, serial: &str, lowest: i16) -> Vec<i16> {
    let t = nodes(tree);
    let mut s: Vec<_> = nodes(serial)
        .into_iter()
        .filter(|n| n.1 >= lowest)
        .map(|n| (n.1, n.2))
        .collect();
    let mut ids: Vec<_> = t.iter().map(|n| (n.1, n.2)).collect();
    ids.sort();
    s.sort();
    assert_eq!(ids, s, "every node at or above depth {lowest}, once");
    let root = t[0];
    assert_eq!(root.0, 0, "the root first, not indented");
    for (i, n) in t.iter().enumerate() {
        assert_eq!(
            n.0,
            2 * (root.1 - n.1) as usize,
            "indent of ({},{})",
            n.1,
            n.2
        );
        if i > 0 {
            // Its parent is the nearest earlier node one level up, and its box
            // lies inside the parent's.
            let parent = t[..i].iter().rev().find(|p| p.1 == n.1 + 1).unwrap();
            assert!(
                parent.3 <= n.3 && n.4 <= parent.4,
                "({},{}) inside its parent",
                n.1,
                n.2
            );
        }
    }
    // Lines that are not node lines keep the node's indentation plus two.
    for l in tree
        .lines()
        .filter(|l| !l.trim_start().starts_with("node ("))
    {
        assert!(l.starts_with("  "), "{l}");
    }
    t.iter().map(|n| n.1).collect()
}

#[test]
fn print_tree_walks_every_node_depth_first() {
    let dir = tempfile::tempdir().unwrap();
    let clog2 = synth(dir.path(), "t.clog2", &["--events", "20000"]);
    let slog2 = dir.path().join("t.slog2");
    let slog2 = slog2.to_str().unwrap();
    let o = mpelog(&["convert", &clog2, "-o", slog2, "--leaf-bytes", "4096"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let serial = stdout(&mpelog(&["print", slog2]));
    let tree = stdout(&mpelog(&["print", "--tree", slog2]));
    let depths = check_tree(&tree, &serial, 0);
    let top = depths[0];
    assert!(top >= 2, "a tree of several levels (root depth {top})");
    // Every drawable line of the serial dump is in the tree dump too.
    let strip = |t: &str| {
        let mut v: Vec<String> = t.lines().map(|l| l.trim_start().to_string()).collect();
        v.sort();
        v
    };
    let serial_nodes: Vec<String> = serial
        .lines()
        .skip_while(|l| !l.starts_with("node ("))
        .map(str::to_string)
        .collect();
    assert_eq!(strip(&tree), strip(&serial_nodes.join("\n")));

    let cut = stdout(&mpelog(&["print", "--tree", "--depth", "1", slog2]));
    let depths = check_tree(&cut, &serial, 1);
    assert!(depths.iter().all(|&d| d >= 1) && depths.contains(&1));
}

#[test]
fn print_tree_of_a_trace_that_is_not_slog2_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let clog2 = synth(dir.path(), "t.clog2", &["--events", "1000"]);
    let o = mpelog(&["print", "--tree", &clog2]);
    assert_eq!(o.status.code(), Some(2));
    let o = mpelog(&["print", "--depth", "1", &clog2]);
    assert_eq!(o.status.code(), Some(2), "--depth needs --tree");
}

#[test]
fn window_depth_reads_no_node_below_it() {
    let dir = tempfile::tempdir().unwrap();
    let clog2 = synth(dir.path(), "t.clog2", &["--events", "20000"]);
    let slog2 = dir.path().join("t.slog2");
    let slog2 = slog2.to_str().unwrap();
    let o = mpelog(&["convert", &clog2, "-o", slog2, "--leaf-bytes", "2k"]);
    assert!(o.status.success());
    let all = stdout(&mpelog(&["window", slog2]));
    let last = |t: &str| t.lines().last().unwrap().to_string();
    let nodes = |t: &str| -> u64 {
        last(t)
            .split("nodes_read=")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    // --depth 0: every node, the same answer.
    let d0 = stdout(&mpelog(&["window", slog2, "--depth", "0"]));
    let body = |t: &str| {
        t.lines()
            .filter(|l| !l.starts_with("shadows="))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(body(&d0), body(&all));
    for d in [1, 2, 3] {
        let t = stdout(&mpelog(&["window", slog2, "--depth", &d.to_string()]));
        assert!(nodes(&t) < nodes(&all), "depth {d}: fewer nodes read");
        // Every drawable and shadow comes from a node at depth >= d (a shadow
        // names the child its stub describes: depth d - 1).
        for l in t.lines().filter(|l| l.contains(" node=(")) {
            let depth: i16 = l
                .rsplit(" node=(")
                .next()
                .unwrap()
                .split(',')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            let min = if l.starts_with("shadow") { d - 1 } else { d };
            assert!(depth >= min, "depth {d}: {l}");
        }
        assert!(
            t.lines().any(|l| l.starts_with("shadow ")),
            "depth {d}: the rest as shadows"
        );
    }
    let o = mpelog(&["window", slog2, "--depth", "1", "--pixels", "100"]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "--depth and --pixels exclude each other"
    );
}
