//! `mpelog convert --compress`: compressed SLOG-2 files (SLOG 2.0.6Z) work with
//! every command as the plain file does (same print, same window answers from
//! fewer bytes, a clean check), convert back to the plain file byte for byte, bad
//! codec names are usage errors, and corrupt frames are bad input naming the byte.

mod common;

use common::*;
use std::path::Path;

/// `--compress` values under test, and whether windows must read fewer bytes
/// than from the plain file. Add new codecs here.
const CODECS: &[(&str, bool)] = &[
    ("stored", false),
    ("deflate", true),
    ("deflate:9", true),
    ("raw-deflate", true),
    ("raw-deflate:6", true),
];

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).to_str().unwrap().to_string()
}

/// Runs `mpelog convert IN -o OUT ARGS...` and returns OUT.
fn convert(input: &str, dir: &Path, name: &str, args: &[&str]) -> String {
    let out = path(dir, name);
    let mut a = vec!["convert", input, "-o", &out];
    a.extend_from_slice(args);
    stdout(&mpelog(&a));
    out
}

/// The last line's numbers: nodes_read, bytes_read, drawables.
fn totals(text: &str) -> (u64, u64, u64) {
    let last = text.lines().last().expect("no output");
    let v: Vec<u64> = last
        .split(' ')
        .zip(["nodes_read=", "bytes_read=", "drawables="])
        .map(|(f, k)| {
            f.strip_prefix(k)
                .unwrap_or_else(|| panic!("last line: {last:?}"))
                .parse()
                .unwrap()
        })
        .collect();
    assert_eq!(v.len(), 3, "last line: {last:?}");
    (v[0], v[1], v[2])
}

/// The lines before the last.
fn body(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    lines[..lines.len() - 1].to_vec()
}

/// A `print` dump with block pointers (`SIZE@OFFSET`), the version and
/// max_buffer_bytesize (stored frames are 16 bytes larger than their node) taken
/// out, which are all that differ between a plain and a compressed file.
fn without_pointers(text: &str) -> Vec<String> {
    let is_ptr = |t: &str| {
        t.split_once('@').is_some_and(|(a, b)| {
            let a = a.rsplit('=').next().unwrap();
            !a.is_empty()
                && !b.is_empty()
                && a.bytes().all(|c| c.is_ascii_digit())
                && b.bytes().all(|c| c.is_ascii_digit())
        })
    };
    text.replace("SLOG 2.0.6Z", "SLOG 2.0.6")
        .lines()
        .map(|l| {
            l.split(' ')
                .map(|t| match t {
                    t if is_ptr(t) => "PTR",
                    t if t.starts_with("max_buffer_bytesize=") => "max_buffer_bytesize=N",
                    t => t,
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// Asserts two dumps are equal, showing the first line that differs.
fn assert_same_lines(got: &[String], want: &[String], what: &str) {
    if let Some((i, (g, w))) = got.iter().zip(want).enumerate().find(|(_, (g, w))| g != w) {
        panic!("{what}: line {}: {g:?}, plain {w:?}", i + 1);
    }
    assert_eq!(got.len(), want.len(), "{what}: line counts");
}

/// Windows: (from, to, pixels) as arguments.
const WINDOWS: &[(&str, &str, Option<&str>)] = &[
    ("0", "1000", None),
    ("0.05", "0.06", None),
    ("0.1", "0.1001", None),
    ("0", "1000", Some("800")),
    ("0.02", "0.08", Some("300")),
];

fn window(file: &str, w: &(&str, &str, Option<&str>)) -> String {
    let mut a = vec!["window", file, "--from", w.0, "--to", w.1];
    if let Some(p) = w.2 {
        a.extend(["--pixels", p]);
    }
    stdout(&mpelog(&a))
}

#[test]
fn compressed_files_work_with_every_command() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let clog2 = synth(
        dir,
        "g.clog2",
        &["--ranks", "3", "--events", "6000", "--seed", "5"],
    );
    let tree = ["--leaf-bytes", "4096", "--children", "3"];
    let plain = convert(&clog2, dir, "plain.slog2", &tree);
    let plain_bytes = std::fs::read(&plain).unwrap();
    let plain_print = without_pointers(&stdout(&mpelog(&["print", &plain])));
    let plain_windows: Vec<String> = WINDOWS.iter().map(|w| window(&plain, w)).collect();
    for (i, &(codec, smaller)) in CODECS.iter().enumerate() {
        let mut args = tree.to_vec();
        args.extend(["--compress", codec]);
        let z = convert(&clog2, dir, &format!("z{i}.slog2"), &args);

        let info = stdout(&mpelog(&["info", &z]));
        assert!(info.contains("SLOG 2.0.6Z"), "{codec}: {info}");
        let json: serde_json::Value =
            serde_json::from_str(&stdout(&mpelog(&["info", "--json", &z]))).unwrap();
        assert_eq!(json["version"], "SLOG 2.0.6Z", "{codec}");
        assert_same_lines(
            &without_pointers(&stdout(&mpelog(&["print", &z]))),
            &plain_print,
            &format!("{codec}: print"),
        );
        let o = mpelog(&["check", &z]);
        assert_eq!(o.status.code(), Some(0), "{codec}: {o:?}");
        assert!(stdout(&o).contains(": ok"), "{codec}: {o:?}");

        for (w, plain_text) in WINDOWS.iter().zip(&plain_windows) {
            let text = window(&z, w);
            assert_eq!(body(&text), body(plain_text), "{codec} {w:?}");
            let (pn, pb, pd) = totals(plain_text);
            let (n, b, d) = totals(&text);
            assert_eq!((n, d), (pn, pd), "{codec} {w:?}");
            if smaller {
                assert!(b < pb, "{codec} {w:?}: bytes_read {b}, plain {pb}");
            }
        }

        // Back to plain: the file converted from CLOG2 directly, byte for byte.
        let back = convert(&z, dir, &format!("back{i}.slog2"), &[]);
        assert!(
            std::fs::read(&back).unwrap() == plain_bytes,
            "{codec}: back to plain"
        );
        let back = convert(&z, dir, &format!("back{i}n.slog2"), &["--compress", "none"]);
        assert!(std::fs::read(&back).unwrap() == plain_bytes, "{codec}");
        // Plain SLOG-2 to compressed: as from CLOG2.
        let again = convert(
            &plain,
            dir,
            &format!("again{i}.slog2"),
            &["--compress", codec],
        );
        assert!(
            std::fs::read(&again).unwrap() == std::fs::read(&z).unwrap(),
            "{codec}: SLOG-2 to compressed differs from CLOG2 to compressed"
        );
    }
    assert_eq!(leftovers(dir), 0);
}

#[test]
fn unknown_codecs_are_usage_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let clog2 = synth(dir, "g.clog2", &["--events", "500"]);
    let plain = convert(&clog2, dir, "plain.slog2", &[]);
    for input in [&clog2, &plain] {
        for codec in [
            "zstd",
            "deflate:12",
            "deflate:",
            "raw-deflate:10",
            "gzip",
            "",
        ] {
            let out = path(dir, "x.slog2");
            let o = mpelog(&["convert", input, "-o", &out, "--compress", codec]);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{codec:?}: {err}");
            assert!(err.contains("unknown compression"), "{codec:?}: {err}");
            assert!(!Path::new(&out).exists(), "{codec:?}");
        }
    }
    assert_eq!(leftovers(dir), 0);
}

#[test]
fn corrupt_compressed_files_are_bad_input_naming_the_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let clog2 = synth(dir, "g.clog2", &["--ranks", "2", "--events", "3000"]);
    for (i, &(codec, _)) in CODECS.iter().enumerate() {
        let z = convert(
            &clog2,
            dir,
            &format!("z{i}.slog2"),
            &["--leaf-bytes", "2048", "--compress", codec],
        );
        let bytes = std::fs::read(&z).unwrap();
        let root = slog2_format::read::parse_header(&bytes).unwrap().0.treeroot;
        let frame = root.offset as u64..(root.offset + root.size as i64) as u64;
        for (what, at) in [
            ("codec", 0),
            ("payload", 60),
            ("checksum", 13),
            ("node header", 20),
        ] {
            let mut b = bytes.clone();
            b[root.offset as usize + at] ^= 0x55;
            let bad = path(dir, "bad.slog2");
            std::fs::write(&bad, &b).unwrap();
            let o = mpelog(&["window", &bad, "--from", "0", "--to", "1000"]);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(1), "{codec} {what}: {err}");
            let n: u64 = err
                .split("byte ")
                .nth(1)
                .and_then(|s| s.split(':').next())
                .and_then(|s| s.parse().ok())
                .unwrap_or_else(|| panic!("{codec} {what}: {err}"));
            assert!(frame.contains(&n), "{codec} {what}: byte {n}: {err}");
            assert!(err.contains("tree node ("), "{codec} {what}: {err}");
            assert_eq!(o.stdout, b"", "{codec} {what}");
            let o = mpelog(&["check", &bad]);
            assert_eq!(o.status.code(), Some(1), "{codec} {what}");
        }
        // Cut inside the root's frame.
        let bad = path(dir, "cut.slog2");
        std::fs::write(&bad, &bytes[..frame.start as usize + 30]).unwrap();
        let o = mpelog(&["window", &bad, "--from", "0", "--to", "1000"]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{codec} cut: {err}");
        assert!(err.contains("byte "), "{codec} cut: {err}");
    }
}
