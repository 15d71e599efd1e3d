//! `mpelog repair`: cut or damaged CLOG2 files become proper files that `check`
//! accepts and `convert` turns into SLOG-2; the report, exit codes and atomic
//! output. The corpus test cuts every MPE-written CLOG2 file at 100 offsets.

mod common;

/// The CLOG2 corpus file list of clog2-format's tests (`CLOG2_FILES`).
#[path = "../clog2-format/tests/common/mod.rs"]
mod clog2_corpus;

use clog2_corpus::CLOG2_FILES;

use clog2_format::repair::repair;
use clog2_format::{Clog2Reader, Record};
use common::{corpus, corpus_file, leftovers, mpelog, synth};
use slog2_format::check::check;
use slog2_format::convert::clog2_to_slog2;
use slog2_format::write::TreeOptions;
use std::collections::BTreeSet;
use std::io::Cursor;
use std::path::Path;

/// Runs mpelog, asserts success, returns stderr.
fn ok(args: &[&str]) -> String {
    let o = mpelog(args);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(
        o.status.success(),
        "mpelog {args:?} failed: {err}{}",
        String::from_utf8_lossy(&o.stdout)
    );
    err
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The records of a CLOG2 file (terminators aside), read with every check.
fn records(bytes: &[u8]) -> Vec<(Record, u64)> {
    let mut r = Clog2Reader::from_slice(bytes).unwrap();
    let hl = r.layout().header_len() as u64;
    let mut v = Vec::new();
    while let Some((rec, at)) = r.next_record_at().unwrap() {
        if !rec.is_terminator() {
            v.push((rec, at + rec.disk_len(hl as usize) as u64));
        }
    }
    r.finish().unwrap();
    v
}

/// Repairs, converts and checks `dir/name` with the command-line tool.
fn repair_convert_check(dir: &Path, input: &Path) -> String {
    let fixed = dir.join("fixed.clog2");
    let slog = dir.join("fixed.slog2");
    let report = ok(&["repair", s(input), "-o", s(&fixed)]);
    ok(&["check", s(&fixed)]);
    ok(&["convert", s(&fixed), "-o", s(&slog)]);
    ok(&["check", s(&slog)]);
    assert_eq!(leftovers(dir), 0);
    report
}

#[test]
fn cut_trace_is_repaired_converted_and_checked() {
    let tmp = tempfile::tempdir().unwrap();
    let f = synth(
        tmp.path(),
        "g.clog2",
        &["--events", "20000", "--ranks", "3", "--block-size", "4096"],
    );
    let data = std::fs::read(&f).unwrap();
    let cut_at = data.len() * 2 / 3 + 13;
    let cut = tmp.path().join("cut.clog2");
    std::fs::write(&cut, &data[..cut_at]).unwrap();
    let err = repair_convert_check(tmp.path(), &cut);
    for want in [
        "recovered ",
        " records (",
        "; lost ",
        &format!("the input ends at byte {cut_at}, inside block"),
        "comm table rebuilt from ",
        " COMMEVT records",
        "the file now ends with ENDLOG",
        "wrote ",
    ] {
        assert!(err.contains(want), "{want:?} missing from: {err}");
    }
    // Exactly the records that lay wholly before the cut.
    let orig = records(&data);
    let fixed = records(&std::fs::read(tmp.path().join("fixed.clog2")).unwrap());
    let k = orig.iter().take_while(|r| r.1 <= cut_at as u64).count();
    assert_eq!(fixed.len(), k);
    assert!(fixed.iter().map(|r| r.0).eq(orig[..k].iter().map(|r| r.0)));
    assert!(err.contains(&format!("recovered {k} records")), "{err}");
}

#[test]
fn damaged_trace_is_repaired() {
    let tmp = tempfile::tempdir().unwrap();
    let f = synth(
        tmp.path(),
        "g.clog2",
        &["--events", "5000", "--block-size", "2048"],
    );
    let mut data = std::fs::read(&f).unwrap();
    let at = data.len() / 2;
    for b in &mut data[at..] {
        *b = 0xee;
    }
    let bad = tmp.path().join("bad.clog2");
    std::fs::write(&bad, &data).unwrap();
    let err = repair_convert_check(tmp.path(), &bad);
    assert!(err.contains("unknown record type"), "{err}");
}

#[test]
fn intact_file_comes_out_identical() {
    let tmp = tempfile::tempdir().unwrap();
    let f = synth(tmp.path(), "g.clog2", &["--events", "3000"]);
    let out = tmp.path().join("same.clog2");
    let err = ok(&["repair", &f, "-o", s(&out)]);
    assert!(err.contains("nothing lost"), "{err}");
    assert!(err.contains("identical to the input"), "{err}");
    assert!(std::fs::read(&f).unwrap() == std::fs::read(&out).unwrap());
}

#[test]
fn repair_in_place() {
    let tmp = tempfile::tempdir().unwrap();
    let f = synth(tmp.path(), "g.clog2", &["--events", "3000"]);
    let len = std::fs::metadata(&f).unwrap().len();
    let file = std::fs::OpenOptions::new().write(true).open(&f).unwrap();
    file.set_len(len - 1000).unwrap();
    drop(file);
    ok(&["repair", &f, "-o", &f]);
    ok(&["check", &f]);
    assert_eq!(leftovers(tmp.path()), 0);
}

#[test]
fn unreadable_preamble_exits_1_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let f = synth(tmp.path(), "g.clog2", &["--events", "1000"]);
    let data = std::fs::read(&f).unwrap();
    let cut = tmp.path().join("cut.clog2");
    let out = tmp.path().join("out.clog2");
    for (bytes, want) in [
        (&data[..1000], "byte 1000"),
        (&b"not a trace at all, just text\n"[..], "byte 0"),
    ] {
        std::fs::write(&cut, bytes).unwrap();
        let o = mpelog(&["repair", s(&cut), "-o", s(&out)]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains(want), "{err}");
        assert!(!out.exists());
        assert_eq!(leftovers(tmp.path()), 0);
    }
    let o = mpelog(&[
        "repair",
        s(&tmp.path().join("missing.clog2")),
        "-o",
        s(&out),
    ]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn usage_and_help() {
    let o = mpelog(&["repair", "x.clog2"]);
    assert_eq!(o.status.code(), Some(2));
    let help = String::from_utf8(mpelog(&["help", "repair"]).stdout).unwrap();
    for want in [
        "clog2_repair",
        "ENDLOG",
        "comm table",
        "Exit status",
        "lost",
    ] {
        assert!(help.contains(want), "{want:?} missing from: {help}");
    }
}

/// 100 distinct cut offsets after the preamble: the start of the blocks, block
/// boundaries, inside the comm table, the whole file, spread offsets for the rest.
fn cut_offsets(data: &[u8], block_size: usize, stream_end: usize, seed: u64) -> Vec<usize> {
    let len = data.len();
    let mut set = BTreeSet::new();
    for x in [
        1024,
        1025,
        1024 + 24,
        stream_end,
        stream_end + 5,
        len - 1,
        len,
    ] {
        set.insert(x.min(len));
    }
    let mut b = 1024 + block_size;
    while b < stream_end && set.len() < 20 {
        set.insert(b);
        set.insert(b + 1);
        b += block_size;
    }
    let mut x = seed;
    while set.len() < 100 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        set.insert(1024 + (x >> 33) as usize % (len - 1024));
    }
    set.into_iter().collect()
}

#[test]
fn corpus_files_cut_at_100_offsets_convert_to_slog2() {
    let Some(dir) = corpus() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (mut variants, mut recovered, mut converted, mut too_early) = (0, 0u64, 0u64, 0);
    for (i, (f, bs)) in CLOG2_FILES.iter().enumerate() {
        let path = corpus_file(&dir, f);
        let data = std::fs::read(&path).unwrap();
        let orig = records(&data);
        let stream_end = {
            let mut r = Clog2Reader::from_slice(&data).unwrap();
            r.finish().unwrap();
            r.preamble().info().commtable_fptr.unwrap() as usize
        };
        let cuts = cut_offsets(&data, *bs as usize, stream_end, i as u64 + 1);
        assert_eq!(cuts.len(), 100);
        // Big files: convert a sample of the cuts (every record check still runs).
        let convert_every = if data.len() > 1 << 20 { 10 } else { 1 };
        for (j, &cut) in cuts.iter().enumerate() {
            let (out, rep) = repair(&data[..cut]).unwrap_or_else(|e| panic!("{f} at {cut}: {e}"));
            let got = records(&out);
            let k = orig.iter().take_while(|r| r.1 <= cut as u64).count();
            assert_eq!(got.len(), k, "{f} cut at {cut}: {rep}");
            assert!(got.iter().map(|r| r.0).eq(orig[..k].iter().map(|r| r.0)));
            recovered += rep.records;
            variants += 1;
            if j % convert_every == 0 {
                let mut r = Clog2Reader::from_slice(&out).unwrap();
                let conv = clog2_to_slog2(
                    &mut r,
                    Cursor::new(Vec::new()),
                    TreeOptions::default(),
                    |_| {},
                );
                let (slog, stats) = match conv {
                    Ok(x) => x,
                    // A cut in the first records (the run's start: communicator
                    // creations, MPI_Init), before any state, arrow or event was
                    // complete: the converter has nothing to write.
                    Err(slog2_format::Error::Empty) => {
                        too_early += 1;
                        assert!(got.len() < 16, "{f} cut at {cut}: {rep}");
                        continue;
                    }
                    Err(e) => panic!("{f} cut at {cut}: convert: {e}"),
                };
                // Records read, ENDBLOCKs and ENDLOG included.
                assert!(stats.records > rep.records, "{f} cut at {cut}");
                let errors: Vec<_> = check(Cursor::new(slog.into_inner()), 5)
                    .into_iter()
                    .filter(|x| x.problem.breaks_readers())
                    .collect();
                assert!(errors.is_empty(), "{f} cut at {cut}: {errors:?}");
                converted += 1;
            }
        }
        // Through the command-line tool: a cut inside a block and one inside the
        // comm table.
        for cut in [1024 + (stream_end - 1024) / 2 + 3, stream_end + 7] {
            let input = tmp.path().join("cut.clog2");
            std::fs::write(&input, &data[..cut]).unwrap();
            let err = repair_convert_check(tmp.path(), &input);
            assert!(err.contains("the file now ends with ENDLOG"), "{f}: {err}");
        }
    }
    assert!(recovered > 0);
    eprintln!(
        "{variants} cut variants, {recovered} records recovered, {converted} converted to SLOG-2 and checked, {too_early} too early to hold a drawable"
    );
}
