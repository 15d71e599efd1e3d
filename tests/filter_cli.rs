//! `mpelog filter` (slog2filter): `--remove` gives the drawables of the real
//! slog2filter's output; filtering commutes with window queries; re-treed files
//! check clean and answer every window as the original; a time cut `[from, to)`
//! whose bounds sit exactly on primitives' times keeps exactly the primitives
//! that meet it (`start < to && end >= from`, computed here over every
//! primitive of the input), on a generated trace and on the corpus.

mod common;

use common::{mpelog, stdout, synth};
use slog2_format::types::{Drawable, Primitive};
use slog2_format::{Slog2File, Slog2Reader};
use std::io::Cursor;

/// Every real primitive of a file (the parts of composites one by one).
fn all_primitives(path: &str) -> Vec<Primitive> {
    let f = Slog2File::parse(&std::fs::read(path).unwrap()).unwrap();
    let mut out = Vec::new();
    for n in f.nodes() {
        for d in n.value.nestless.iter().chain(&n.value.nestable) {
            match d {
                Drawable::Primitive(p) => out.push(p.clone()),
                Drawable::Composite(c) => out.extend(c.primitives.iter().cloned()),
            }
        }
    }
    out
}

/// A primitive as comparable text.
fn text(p: &Primitive) -> String {
    format!("{} {:?} {:?}", p.category, p.vertices, p.info.bytes)
}

/// Every real primitive of a file as comparable text, sorted.
fn primitives(path: &str) -> Vec<String> {
    let mut out: Vec<String> = all_primitives(path).iter().map(text).collect();
    out.sort();
    out
}

fn legend(path: &str) -> Vec<i32> {
    let r = Slog2Reader::new(Cursor::new(std::fs::read(path).unwrap())).unwrap();
    let mut v: Vec<i32> = r
        .categories()
        .unwrap()
        .value
        .categories
        .iter()
        .map(|c| c.index)
        .collect();
    v.sort();
    v
}

/// `mpelog window` lines of the drawables (the summary line dropped), sorted.
fn window(path: &str, a: f64, b: f64) -> Vec<String> {
    let text = stdout(&mpelog(&[
        "window",
        path,
        "--from",
        &a.to_string(),
        "--to",
        &b.to_string(),
    ]));
    let mut lines: Vec<String> = text
        .lines()
        .filter(|l| !l.starts_with("nodes_read="))
        // The node a drawable sits in depends on the tree.
        .map(|l| l.split(" node=").next().unwrap().to_string())
        .collect();
    lines.sort();
    lines
}

fn filter(input: &str, output: &str, extra: &[&str]) {
    let mut args = vec!["filter", input, "-o", output];
    args.extend_from_slice(extra);
    let o = mpelog(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn remove_gives_the_drawables_of_slog2filter() {
    let Some(root) = common::corpus() else {
        return;
    };
    let input = common::corpus_file(&root, "mpe/cpilog_n4.slog2");
    let historic = common::corpus_file(&root, "mpe/cpilog_n4_filtered.slog2");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("f.slog2");
    let out = out.to_str().unwrap();
    // The historic tool loses one drawable: the event at the file's very
    // start (MPE_Comm_init on line 0 at 9.3029e-5 s, the root box's earliest
    // time); we keep it (spec/conversion.md, filtering).
    let start_event = "305 [Coord { time: 9.302899999852343e-5, line_id: 0 }] []";
    for remove in ["6,7", "MPI_Barrier,MPI_Bcast"] {
        filter(&input, out, &["--remove", remove]);
        let (ours, theirs) = (primitives(out), primitives(&historic));
        let extra: Vec<&String> = ours.iter().filter(|p| !theirs.contains(p)).collect();
        let missing: Vec<&String> = theirs.iter().filter(|p| !ours.contains(p)).collect();
        assert!(missing.is_empty(), "--remove {remove}: we lack {missing:?}");
        assert_eq!(
            extra,
            vec![start_event],
            "--remove {remove}: only the start event differs"
        );
        assert_eq!(ours.len(), theirs.len() + 1);
        assert_eq!(
            legend(out),
            legend(&historic),
            "the legend loses the removed categories"
        );
    }
    assert!(primitives(out).len() < primitives(&input).len());
}

#[test]
fn filter_commutes_with_windows_and_re_treeing_keeps_every_answer() {
    let dir = tempfile::tempdir().unwrap();
    for seed in [1u64, 2, 3] {
        let clog2 = synth(
            dir.path(),
            "t.clog2",
            &["--events", "20000", "--seed", &seed.to_string()],
        );
        let slog2 = dir.path().join("t.slog2");
        let slog2 = slog2.to_str().unwrap();
        assert!(mpelog(&["convert", &clog2, "-o", slog2]).status.success());
        let r = Slog2Reader::new(Cursor::new(std::fs::read(slog2).unwrap())).unwrap();
        let root = r.tree_dir().unwrap().value.entries[0];
        let cats: Vec<i32> = r
            .categories()
            .unwrap()
            .value
            .categories
            .iter()
            .map(|c| c.index)
            .filter(|&i| i >= 0)
            .collect();
        let span = root.latest - root.earliest;
        let at = |f: f64| root.earliest + f * span;

        // Re-tree with other options: clean, and every window answers alike.
        for (ls, nc, z) in [
            ("1k", "2", "none"),
            ("4k", "4", "deflate"),
            ("64k", "3", "none"),
        ] {
            let out = dir.path().join(format!("re-{ls}-{nc}-{z}.slog2"));
            let out = out.to_str().unwrap();
            filter(
                slog2,
                out,
                &["--leaf-bytes", ls, "--children", nc, "--compress", z],
            );
            assert!(
                mpelog(&["check", out]).status.success(),
                "{out} checks clean"
            );
            assert!(
                primitives(out) == primitives(slog2),
                "{out}: same drawables"
            );
            for (f, g) in [(0.0, 1.0), (0.2, 0.3), (0.5, 0.5001), (0.9, 1.0)] {
                let (x, y) = (window(out, at(f), at(g)), window(slog2, at(f), at(g)));
                assert!(
                    x == y,
                    "{out} [{f}, {g}): {} vs {} drawables",
                    x.len(),
                    y.len()
                );
            }
        }

        // Filter then window = window then filter, for a category choice and a
        // time cut.
        let removed = &cats[..cats.len() / 2];
        let list: Vec<String> = removed.iter().map(|c| c.to_string()).collect();
        let (a, b) = (at(0.25), at(0.6));
        let out = dir.path().join("f.slog2");
        let out = out.to_str().unwrap();
        filter(
            slog2,
            out,
            &[
                "--remove",
                &list.join(","),
                "--from",
                &a.to_string(),
                "--to",
                &b.to_string(),
            ],
        );
        for (f, g) in [(0.2, 0.3), (0.3, 0.35), (0.55, 0.7)] {
            let kept_then: Vec<String> = window(slog2, at(f).max(a), at(g).min(b))
                .into_iter()
                .filter(|l| {
                    let cat: i32 = l
                        .split("cat=")
                        .nth(1)
                        .unwrap()
                        .split(' ')
                        .next()
                        .unwrap()
                        .parse()
                        .unwrap();
                    !removed.contains(&cat)
                })
                .collect();
            let got = window(out, at(f).max(a), at(g).min(b));
            assert!(
                got == kept_then,
                "seed {seed} [{f}, {g}): {} vs {}",
                got.len(),
                kept_then.len()
            );
            assert!(!got.is_empty());
        }
    }
}

#[test]
fn filter_refuses_what_it_cannot_do() {
    let dir = tempfile::tempdir().unwrap();
    let clog2 = synth(dir.path(), "t.clog2", &["--events", "2000"]);
    let out = dir.path().join("o.slog2");
    let out = out.to_str().unwrap();
    // An annotation (not a trace), an unknown category, everything removed.
    assert!(mpelog(&["annotate", &clog2]).status.success());
    let o = mpelog(&["filter", &format!("{clog2}.idx"), "-o", out]);
    assert_eq!(o.status.code(), Some(2));
    let slog2 = dir.path().join("t.slog2");
    let slog2 = slog2.to_str().unwrap();
    assert!(mpelog(&["convert", &clog2, "-o", slog2]).status.success());
    let o = mpelog(&["filter", slog2, "-o", out, "--remove", "no such state"]);
    assert_eq!(o.status.code(), Some(2));
    let o = mpelog(&["filter", slog2, "-o", out, "--keep=-999"]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        !std::path::Path::new(out).exists(),
        "a failed filter leaves nothing"
    );
}

#[test]
fn convert_slog2_with_tree_options_re_trees() {
    let dir = tempfile::tempdir().unwrap();
    let clog2 = synth(dir.path(), "t.clog2", &["--events", "20000"]);
    let slog2 = dir.path().join("t.slog2");
    let slog2 = slog2.to_str().unwrap();
    assert!(mpelog(&["convert", &clog2, "-o", slog2]).status.success());
    let nodes = |p: &str| {
        Slog2Reader::new(Cursor::new(std::fs::read(p).unwrap()))
            .unwrap()
            .tree_dir()
            .unwrap()
            .value
            .entries
            .len()
    };
    // No tree option: byte for byte.
    let same = dir.path().join("same.slog2");
    let same = same.to_str().unwrap();
    assert!(mpelog(&["convert", slog2, "-o", same]).status.success());
    assert_eq!(std::fs::read(same).unwrap(), std::fs::read(slog2).unwrap());
    // --leaf-bytes: a new tree, the same drawables.
    let small = dir.path().join("small.slog2");
    let small = small.to_str().unwrap();
    let o = mpelog(&["convert", slog2, "-o", small, "--leaf-bytes", "1k"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        nodes(small) > 4 * nodes(slog2),
        "{} vs {}",
        nodes(small),
        nodes(slog2)
    );
    assert!(primitives(small) == primitives(slog2));
    // And what convert from the CLOG2 with the same options builds.
    let direct = dir.path().join("direct.slog2");
    let direct = direct.to_str().unwrap();
    assert!(
        mpelog(&["convert", &clog2, "-o", direct, "--leaf-bytes", "1k"])
            .status
            .success()
    );
    assert_eq!(nodes(direct), nodes(small));
}

/// Filters `input` with the time cut `[from, to)` (a `None` bound is not
/// given) and compares what is kept, exactly, with the primitives of `all`
/// whose box meets the cut (spec/conversion.md §11 step 1: `earliest < to &&
/// latest >= from`). Returns how many were kept.
fn cut_keeps_what_meets_it(
    input: &str,
    all: &[Primitive],
    out: &str,
    from: Option<f64>,
    to: Option<f64>,
) -> usize {
    let (a, b) = (
        from.unwrap_or(f64::NEG_INFINITY),
        to.unwrap_or(f64::INFINITY),
    );
    let mut want: Vec<String> = all
        .iter()
        .filter(|p| p.earliest() < b && p.latest() >= a)
        .map(text)
        .collect();
    want.sort();
    let mut args = vec![];
    let (f, t) = (from.map(|x| x.to_string()), to.map(|x| x.to_string()));
    if let Some(f) = &f {
        args.extend(["--from", f.as_str()]);
    }
    if let Some(t) = &t {
        args.extend(["--to", t.as_str()]);
    }
    if want.is_empty() {
        // Nothing meets the cut: the filter fails and writes nothing.
        let mut all_args = vec!["filter", input, "-o", out];
        all_args.extend_from_slice(&args);
        let o = mpelog(&all_args);
        assert_eq!(o.status.code(), Some(1), "{input} {args:?} keeps nothing");
        return 0;
    }
    filter(input, out, &args);
    let got = primitives(out);
    if got != want {
        let extra: Vec<&String> = got.iter().filter(|p| !want.contains(p)).collect();
        let missing: Vec<&String> = want.iter().filter(|p| !got.contains(p)).collect();
        panic!(
            "{input} cut {args:?}: kept {} drawables, {} meet the cut; kept but outside: {extra:?}; \
             missing: {missing:?}",
            got.len(),
            want.len()
        );
    }
    std::fs::remove_file(out).unwrap();
    want.len()
}

/// Cuts whose bounds are exactly the start or end of primitives of `all`
/// (`picks` of them): `--to` at a start leaves the primitive out, `--from` at
/// an end keeps it, and both at once.
fn cuts_on_boundaries(input: &str, dir: &std::path::Path, picks: usize) {
    let all = all_primitives(input);
    let out = dir.join("cut.slog2");
    let out = out.to_str().unwrap();
    // States first (both ends differ), then arrows and events, spread over the
    // file.
    let mut chosen: Vec<&Primitive> = all.iter().filter(|p| p.vertices.len() == 2).collect();
    chosen.sort_by(|x, y| x.earliest().total_cmp(&y.earliest()));
    let step = (chosen.len() / picks).max(1);
    let mut chosen: Vec<&Primitive> = chosen.into_iter().step_by(step).collect();
    chosen.extend(
        all.iter()
            .filter(|p| p.vertices.len() == 1)
            .step_by((all.len() / picks).max(1)),
    );
    let mut checked = 0;
    let mut left_out_at_to = 0;
    for (i, p) in chosen.iter().enumerate() {
        let (start, end) = (p.earliest(), p.latest());
        // The primitive starting exactly at the cut's end is not kept.
        cut_keeps_what_meets_it(input, &all, out, None, Some(start));
        // The primitive ending exactly at the cut's start is kept.
        cut_keeps_what_meets_it(input, &all, out, Some(end), None);
        // Both bounds on boundaries: from this primitive's end (or start) to a
        // later one's start.
        let later = chosen[(i + 1 + chosen.len() / 3) % chosen.len()];
        for from in [start, end] {
            let to = later.earliest();
            if from < to {
                cut_keeps_what_meets_it(input, &all, out, Some(from), Some(to));
                left_out_at_to += all.iter().filter(|q| q.earliest() == to).count();
            }
        }
        // An empty cut at a start: only what spans it.
        cut_keeps_what_meets_it(input, &all, out, Some(start), Some(start));
        checked += 1;
    }
    assert!(checked >= picks.min(10), "{input}: {checked} cuts");
    assert!(left_out_at_to > 0, "{input}: some cut ends at a start");
}

#[test]
fn a_cut_on_primitives_times_keeps_exactly_what_meets_it() {
    let dir = tempfile::tempdir().unwrap();
    let clog2 = synth(dir.path(), "t.clog2", &["--events", "5000", "--seed", "11"]);
    let slog2 = dir.path().join("t.slog2");
    let slog2 = slog2.to_str().unwrap();
    let o = mpelog(&["convert", &clog2, "-o", slog2, "--leaf-bytes", "1k"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    cuts_on_boundaries(slog2, dir.path(), 12);
    let Some(root) = common::corpus() else {
        return;
    };
    for f in ["mpe/cpilog_n4.slog2", "mpe/nested_states_n4_ls4k_nc4.slog2"] {
        let input = common::corpus_file(&root, f);
        cuts_on_boundaries(&input, dir.path(), 40);
    }
    // The case of issue 25: a cut ending at the start of a state of
    // cpilog_n4 keeps the 7 primitives that meet it.
    let input = common::corpus_file(&root, "mpe/cpilog_n4.slog2");
    let all = all_primitives(&input);
    let out = dir.path().join("c.slog2");
    let mut seven = 0;
    for p in all.iter().filter(|p| p.vertices.len() == 2) {
        let from = all
            .iter()
            .map(|q| q.earliest())
            .filter(|&t| t < p.earliest())
            .fold(f64::NEG_INFINITY, f64::max);
        if from.is_finite() {
            let n = cut_keeps_what_meets_it(
                &input,
                &all,
                out.to_str().unwrap(),
                Some(from),
                Some(p.earliest()),
            );
            seven += usize::from(n == 7);
        }
    }
    assert!(seven > 0, "some cut keeps 7 drawables");
}
