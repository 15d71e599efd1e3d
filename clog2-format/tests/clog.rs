//! Tests of the old-CLOG (MPE1) codec: the real MPICH-1 files of the corpus (when
//! `MPELOG_CORPUS` is set), generated files, every error, and property tests.

use clog2_format::clog::*;
use clog2_format::error::{Expected, NotInferable, ValueProblem};
use clog2_format::{Error, FixedBytes};
use mpelog_conformance::strategies::clog;
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------
// Corpus
// ---------------------------------------------------------------------------

/// The corpus directory from `MPELOG_CORPUS` (relative paths are relative to the
/// workspace root), or `None` (after printing why) if it is not set.
fn corpus_dir() -> Option<PathBuf> {
    mpelog_conformance::corpus::root()
}

fn read_corpus(dir: &Path, rel: &str) -> Vec<u8> {
    let path = dir.join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("corpus file {}: {e}", path.display()))
}

struct Expect {
    path: &'static str,
    size: usize,
    block_size: usize,
    blocks: usize,
    /// Record counts by type name, terminators included.
    counts: &'static [(&'static str, usize)],
    /// Non-terminator records by procid.
    ranks: &'static [(i32, usize)],
    /// Offset of the ENDLOG record.
    endlog_at: u64,
}

/// Counts found by this codec and cross-checked with an independent Python walk of
/// the files (struct.unpack('>diiii') per header, skipping by length * 8).
const CORPUS: &[Expect] = &[
    Expect {
        path: "mpich1/clog1/simple.clog",
        size: 12288,
        block_size: 1024,
        blocks: 12,
        counts: &[
            ("raw", 160),
            ("srcloc", 9),
            ("comm", 4),
            ("statedef", 4),
            ("endblock", 11),
            ("endlog", 1),
        ],
        ranks: &[(0, 48), (1, 43), (2, 43), (3, 43)],
        endlog_at: 11488,
    },
    Expect {
        path: "mpich1/clog1/arrowtest.clog",
        size: 4096,
        block_size: 1024,
        blocks: 4,
        counts: &[
            ("raw", 32),
            ("srcloc", 9),
            ("comm", 4),
            ("statedef", 3),
            ("endblock", 3),
            ("endlog", 1),
        ],
        ranks: &[(0, 15), (1, 11), (2, 11), (3, 11)],
        endlog_at: 3232,
    },
    Expect {
        path: "mpich1/clog1/nesttest.clog",
        size: 23552,
        block_size: 1024,
        blocks: 23,
        counts: &[
            ("raw", 238),
            ("srcloc", 3),
            ("comm", 1),
            ("statedef", 77),
            ("endblock", 22),
            ("endlog", 1),
        ],
        ranks: &[(0, 319)],
        endlog_at: 22640,
    },
    Expect {
        path: "mpich1/clog1/fpilog.clog",
        size: 65536,
        block_size: 65536,
        blocks: 1,
        counts: &[
            ("raw", 306),
            ("srcloc", 9),
            ("statedef", 10),
            ("comm", 4),
            ("endlog", 1),
        ],
        ranks: &[(0, 98), (1, 72), (2, 87), (3, 72)],
        endlog_at: 18744,
    },
    Expect {
        path: "historic/fpilog.clog",
        size: 65536,
        block_size: 65536,
        blocks: 1,
        counts: &[
            ("raw", 306),
            ("srcloc", 9),
            ("statedef", 10),
            ("comm", 4),
            ("endlog", 1),
        ],
        ranks: &[(0, 98), (1, 72), (2, 87), (3, 72)],
        endlog_at: 18744,
    },
];

#[test]
fn corpus_files_parse_count_and_round_trip() {
    let Some(dir) = corpus_dir() else { return };
    for e in CORPUS {
        let data = read_corpus(&dir, e.path);
        assert_eq!(data.len(), e.size, "{}", e.path);
        assert!(looks_like(&data), "{}", e.path);
        assert_eq!(infer_block_size(&data).unwrap(), e.block_size, "{}", e.path);
        let f = ClogFile::parse(&data).unwrap_or_else(|err| panic!("{}: {err}", e.path));
        assert_eq!(f.block_size, e.block_size, "{}", e.path);
        assert_eq!(f.blocks.len(), e.blocks, "{}", e.path);

        let mut counts = BTreeMap::new();
        let mut ranks = BTreeMap::new();
        for r in f.records() {
            *counts.entry(r.body.type_name()).or_insert(0usize) += 1;
            if !r.is_terminator() {
                *ranks.entry(r.procid).or_insert(0usize) += 1;
            }
        }
        let want: BTreeMap<_, _> = e.counts.iter().copied().collect();
        assert_eq!(counts, want, "{}", e.path);
        let want: BTreeMap<_, _> = e.ranks.iter().copied().collect();
        assert_eq!(ranks, want, "{}", e.path);

        // Structure: one terminator per block, ENDLOG only last, terminators by rank 0.
        for (i, b) in f.blocks.iter().enumerate() {
            assert_eq!(b.is_last(), i + 1 == f.blocks.len(), "{} block {i}", e.path);
            let used: usize = b.records.iter().map(Record::disk_len).sum();
            assert_eq!(used + b.trailing.len(), f.block_size);
            let t = b.records.last().unwrap();
            assert_eq!(t.procid, 0);
        }
        let last = f.records().last().unwrap();
        assert_eq!(last.body, Body::EndLog);
        assert_eq!(last.time, ENDLOG_TIME);

        // The iterator agrees with the whole-file parse, and gives the offsets.
        let it: Vec<_> = ClogRecords::new(&data)
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let flat: Vec<_> = f.records().cloned().collect();
        assert_eq!(it.iter().map(|(r, _)| r.clone()).collect::<Vec<_>>(), flat);
        assert_eq!(it.last().unwrap().1, e.endlog_at, "{}", e.path);

        // Lossless.
        assert_eq!(f.to_bytes().unwrap(), data, "{}: round trip", e.path);
        assert_eq!(
            ClogFile::parse_with_block_size(&data, e.block_size).unwrap(),
            f
        );
    }
}

#[test]
fn corpus_stale_bytes_are_kept() {
    let Some(dir) = corpus_dir() else { return };
    // fpilog: 3 RAW strings with garbage after the NUL (at 6504, 7512, 7960).
    let data = read_corpus(&dir, "historic/fpilog.clog");
    let mut garbage = Vec::new();
    for item in ClogRecords::new(&data).unwrap() {
        let (r, off) = item.unwrap();
        if let Body::Raw(b) = &r.body {
            let n = b.string.c_bytes().len();
            if b.string.0[n..].iter().any(|&c| c != 0) {
                garbage.push(off);
                assert!(r.display().to_string().contains(" string.raw="));
            }
        }
    }
    assert_eq!(garbage, [6504, 7512, 7960]);
    // simple.clog: nonzero bytes after block terminators, and nonzero header pads.
    let data = read_corpus(&dir, "mpich1/clog1/simple.clog");
    let f = ClogFile::parse(&data).unwrap();
    assert!(f.blocks.iter().any(|b| b.trailing.iter().any(|&c| c != 0)));
    assert!(f.records().any(|r| !r.pad.is_zero()));
}

#[test]
fn corpus_fpilog_display() {
    let Some(dir) = corpus_dir() else { return };
    let data = read_corpus(&dir, "historic/fpilog.clog");
    let f = ClogFile::parse(&data).unwrap();
    let lines: Vec<String> = f.records().map(|r| r.display().to_string()).collect();
    assert_eq!(
        lines[0],
        r#"ts=0.0007189999996626284 proc=2 type=srcloc srcloc=900 line=295 file="/sandbox/chan/mpich_work/mpich_tmp/mpe/""#
    );
    assert_eq!(
        lines[1],
        "ts=0.0007249999998748535 proc=2 type=comm etype=101 parent=-1 newcomm=91 srcloc=900"
    );
    assert!(lines.contains(
        &"ts=0.0022189999999682186 proc=2 type=raw etype=-101 data=3 srcloc=901 string=\"1 0\""
            .to_string()
    ));
    assert_eq!(lines.last().unwrap(), "ts=1000000.0 proc=0 type=endlog");
}

/// Re-packing the records of MPICH-1's files with [`BlockFill::Mpe1`] gives the same
/// blocks, and for fpilog (zero pads and trailing bytes) the same bytes.
#[test]
fn corpus_repack_with_mpe1_fill() {
    let Some(dir) = corpus_dir() else { return };
    for e in CORPUS {
        let data = read_corpus(&dir, e.path);
        let f = ClogFile::parse(&data).unwrap();
        let mut w = ClogWriter::new(Vec::new(), f.block_size).unwrap();
        for r in f.records().filter(|r| !r.is_terminator()) {
            w.push(r).unwrap();
        }
        let bytes = w.finish().unwrap();
        assert_eq!(bytes.len(), data.len(), "{}", e.path);
        let g = ClogFile::parse(&bytes).unwrap();
        assert_eq!(g.blocks.len(), f.blocks.len());
        for (a, b) in f.blocks.iter().zip(&g.blocks) {
            assert_eq!(a.records.len(), b.records.len(), "{}", e.path);
            for (x, y) in a.records.iter().zip(&b.records) {
                if x.is_terminator() {
                    // The corpus terminators carry stale header pads.
                    assert_eq!((x.time, x.procid, &x.body), (y.time, y.procid, &y.body));
                } else {
                    assert_eq!(x, y);
                }
            }
        }
        if e.path.ends_with("fpilog.clog") {
            assert_eq!(bytes, data, "{}", e.path);
        }
    }
}

/// Java's `String.trim()` of the whole field decoded as UTF-8, as the old Java
/// reader (`logformat.clog`) prints strings.
fn java_str(b: &[u8]) -> String {
    String::from_utf8_lossy(b)
        .trim_matches(|c: char| c <= ' ')
        .to_string()
}

/// The values of `names` in a dump line `Prefix[ a=1, b=2, c=text ]`.
fn java_fields(line: &str, prefix: &str, names: &[&str]) -> Vec<String> {
    let inner = line
        .strip_prefix(prefix)
        .and_then(|s| s.strip_prefix("[ "))
        .and_then(|s| s.strip_suffix(" ]").or_else(|| s.strip_suffix("]")))
        .unwrap_or_else(|| panic!("bad dump line {line:?}"));
    let mut rest = inner;
    let mut out = Vec::new();
    for (i, name) in names.iter().enumerate() {
        rest = rest
            .strip_prefix(&format!("{name}="))
            .unwrap_or_else(|| panic!("{line:?}: expected {name}="));
        if let Some(next) = names.get(i + 1) {
            let sep = format!(", {next}=");
            let at = rest
                .find(&sep)
                .unwrap_or_else(|| panic!("{line:?}: no {sep}"));
            out.push(rest[..at].to_string());
            rest = &rest[at + 2..];
        } else {
            out.push(rest.to_string());
        }
    }
    out
}

fn int(s: &str) -> i32 {
    s.parse().unwrap_or_else(|_| panic!("not an int: {s:?}"))
}

/// Every record of fpilog.clog against the Java `logformat.clog` dump
/// (`historic/fpilog.clogprint.txt`): a `RecHeader[...]` line per record and a body
/// line for everything but ENDLOG.
#[test]
fn corpus_fpilog_matches_java_dump() {
    let Some(dir) = corpus_dir() else { return };
    let data = read_corpus(&dir, "historic/fpilog.clog");
    let dump = String::from_utf8(read_corpus(&dir, "historic/fpilog.clogprint.txt")).unwrap();
    let f = ClogFile::parse(&data).unwrap();
    let recs: Vec<&Record> = f.records().collect();

    let mut lines = dump.lines().filter(|l| !l.trim().is_empty()).peekable();
    let mut n = 0;
    let mut total = None;
    while let Some(line) = lines.next() {
        if line == "End Of File" {
            continue;
        }
        if let Some(t) = line.strip_prefix("Total ByteSize of the logfile = ") {
            total = Some(t.trim().parse::<u64>().unwrap());
            continue;
        }
        let h = java_fields(
            line,
            "RecHeader",
            &["timestamp", "rectype", "length", "taskID"],
        );
        let r = recs
            .get(n)
            .unwrap_or_else(|| panic!("dump has more records than the file"));
        n += 1;
        let ctx = format!("record {n}: {}", r.display());
        let t: f64 = h[0].parse().unwrap();
        assert_eq!(t.to_bits(), r.time.to_bits(), "{ctx}");
        assert_eq!(int(&h[1]), r.rectype(), "{ctx}");
        assert_eq!(int(&h[2]), r.length().unwrap(), "{ctx}");
        assert_eq!(int(&h[3]), r.procid, "{ctx}");
        if r.is_terminator() {
            continue;
        }
        let body = lines.next().expect("body line");
        match &r.body {
            Body::SrcLoc(b) => {
                let v = java_fields(body, "RecSrc", &["srcloc", "lineno", "filename"]);
                assert_eq!((int(&v[0]), int(&v[1])), (b.srcloc, b.lineno), "{ctx}");
                assert_eq!(v[2], java_str(&b.filename.0), "{ctx}");
            }
            Body::Comm(b) => {
                let v = java_fields(body, "RecComm", &["etype", "parent", "newcomm", "srcloc"]);
                let got: Vec<i32> = v.iter().map(|s| int(s)).collect();
                assert_eq!(got, [b.etype, b.parent, b.newcomm, b.srcloc], "{ctx}");
            }
            Body::Raw(b) if b.etype == SEND_ETYPE || b.etype == RECV_ETYPE => {
                let v = java_fields(
                    body,
                    "RecRaw",
                    &["etype", "data", "srcloc", "msg_tag", "msg_size"],
                );
                let got: Vec<i32> = v.iter().map(|s| int(s)).collect();
                let s = java_str(&b.string.0);
                let ts: Vec<i32> = s.split_whitespace().map(int).collect();
                assert_eq!(got, [b.etype, b.data, b.srcloc, ts[0], ts[1]], "{ctx}");
            }
            Body::Raw(b) => {
                let v = java_fields(body, "RecRaw", &["etype", "data", "srcloc", "string"]);
                let got: Vec<i32> = v[..3].iter().map(|s| int(s)).collect();
                assert_eq!(got, [b.etype, b.data, b.srcloc], "{ctx}");
                assert_eq!(v[3], java_str(&b.string.0), "{ctx}");
            }
            Body::StateDef(b) => {
                let v = java_fields(
                    body,
                    "RecDefState",
                    &[
                        "stateID",
                        "startetype",
                        "endetype",
                        "pad",
                        "color",
                        "description",
                    ],
                );
                let got: Vec<i32> = v[..4].iter().map(|s| int(s)).collect();
                let pad = i32::from_be_bytes(b.pad.0);
                assert_eq!(got, [b.stateid, b.startetype, b.endetype, pad], "{ctx}");
                assert_eq!(v[4], java_str(&b.color.0), "{ctx}");
                assert_eq!(v[5], java_str(&b.description.0), "{ctx}");
            }
            other => panic!("{ctx}: the dump has no {} records", other.type_name()),
        }
    }
    assert_eq!(n, 330);
    assert_eq!(n, recs.len());
    // The Java reader counts the bytes up to and including ENDLOG.
    assert_eq!(total, Some(18744 + 24));
}

// ---------------------------------------------------------------------------
// Generated files
// ---------------------------------------------------------------------------

fn raw(time: f64, procid: i32, etype: i32, data: i32, s: &str) -> Record {
    Record::new(
        time,
        procid,
        Body::Raw(RawEvent {
            etype,
            data,
            srcloc: 901,
            pad: FixedBytes::ZERO,
            string: FixedBytes::from_str_truncated(s),
        }),
    )
}

/// One record of every known type, then RAW events.
fn sample_records(n: usize) -> Vec<Record> {
    let mut v = vec![
        Record::new(
            0.000719,
            2,
            Body::SrcLoc(SrcLoc {
                srcloc: 900,
                lineno: 295,
                filename: FixedBytes::from_str_truncated("/sandbox/mpe/src/log_wrap.c"),
            }),
        ),
        Record::new(
            0.000725,
            2,
            Body::Comm(CommEvent {
                etype: comm_etype::INIT,
                parent: -1,
                newcomm: 91,
                srcloc: 900,
            }),
        ),
        Record::new(
            0.0028,
            0,
            Body::StateDef(StateDef {
                stateid: 200,
                startetype: 500,
                endetype: 501,
                pad: FixedBytes::ZERO,
                color: FixedBytes::from_str_truncated("red"),
                description: FixedBytes::from_str_truncated("User_Broadcast"),
            }),
        ),
        Record::new(
            0.0029,
            0,
            Body::EventDef(EventDef {
                etype: 600,
                pad: FixedBytes::ZERO,
                description: FixedBytes::from_str_truncated("tick"),
            }),
        ),
        Record::new(
            0.003,
            1,
            Body::Msg(MsgEvent {
                etype: SEND_ETYPE,
                tag: 5,
                partner: 2,
                comm: 91,
                size: 1024,
                srcloc: 902,
            }),
        ),
        Record::new(
            0.004,
            1,
            Body::Coll(CollEvent {
                etype: 13,
                root: 0,
                comm: 91,
                size: 8,
                srcloc: 903,
                pad: FixedBytes::ZERO,
            }),
        ),
        Record::new(0.005, 3, Body::Shift(Shift { timeshift: -1.5e-4 })),
    ];
    for i in 0..n {
        let t = 0.01 + i as f64 * 1e-4;
        v.push(raw(
            t,
            (i % 4) as i32,
            500 + (i % 8) as i32,
            0,
            "start broadcast",
        ));
    }
    v
}

fn write(records: &[Record], block_size: usize, fill: BlockFill) -> Vec<u8> {
    let mut w = ClogWriter::with_fill(Vec::new(), block_size, fill).unwrap();
    for r in records {
        w.push(r).unwrap();
    }
    assert_eq!(w.records_written(), records.len() as u64);
    w.finish().unwrap()
}

fn payload(f: &ClogFile) -> Vec<Record> {
    f.records()
        .filter(|r| !r.is_terminator())
        .cloned()
        .collect()
}

#[test]
fn writer_parser_round_trip() {
    for fill in [BlockFill::Mpe1, BlockFill::Tight] {
        for bs in [1024, 2048, 65536] {
            let recs = sample_records(300);
            let bytes = write(&recs, bs, fill);
            assert_eq!(bytes.len() % bs, 0);
            let f = ClogFile::parse(&bytes).unwrap();
            assert_eq!(f.block_size, bs);
            assert_eq!(payload(&f), recs, "{fill:?} {bs}");
            assert_eq!(f.to_bytes().unwrap(), bytes);
            // Terminators: rank 0, zero pad; ENDBLOCK has the block's last time.
            for b in &f.blocks {
                let n = b.records.len();
                let t = &b.records[n - 1];
                assert_eq!((t.procid, t.pad), (0, FixedBytes::ZERO));
                if b.is_last() {
                    assert_eq!(t.time, ENDLOG_TIME);
                } else {
                    assert_eq!(t.time, b.records[n - 2].time);
                }
                assert!(b.trailing.iter().all(|&c| c == 0));
                let used: usize = b.records.iter().map(Record::disk_len).sum();
                match fill {
                    // MPE1 closes once fewer than 160 bytes would remain.
                    BlockFill::Mpe1 if !b.is_last() => assert!(used - 24 + 160 >= bs),
                    _ => {}
                }
            }
        }
    }
    // 300 RAW records of 56 bytes do not fit one 1024-byte block.
    let bytes = write(&sample_records(300), 1024, BlockFill::Tight);
    assert!(bytes.len() > 1024);
}

#[test]
fn tight_fill_packs_to_the_last_byte() {
    // 17 RAW records of 56 bytes = 952 bytes; + 24 = 976; an 18th would need 1032.
    let recs: Vec<_> = (0..40).map(|i| raw(i as f64, 0, 1, i, "")).collect();
    let f = ClogFile::parse(&write(&recs, 1024, BlockFill::Tight)).unwrap();
    assert_eq!(f.blocks[0].records.len(), 18);
    assert_eq!(f.blocks[0].trailing.len(), 1024 - 976);
    // MPE1: 952 + 160 >= 1024 already after 16 records (896 + 160 = 1056).
    let f = ClogFile::parse(&write(&recs, 1024, BlockFill::Mpe1)).unwrap();
    assert_eq!(f.blocks[0].records.len(), 16 + 1);
}

#[test]
fn empty_log_is_one_endlog_block() {
    let bytes = ClogWriter::new(Vec::new(), 1024).unwrap().finish().unwrap();
    assert_eq!(bytes.len(), 1024);
    let f = ClogFile::parse(&bytes).unwrap();
    assert_eq!(f.block_size, 1024);
    assert_eq!(f.records().count(), 1);
    assert!(f.blocks[0].is_last());
}

#[test]
fn block_size_inference() {
    // Single block ending with ENDLOG: B is the file length, even an odd one.
    let mut bytes = write(&sample_records(3), 1024, BlockFill::Mpe1);
    bytes.truncate(1001);
    assert_eq!(infer_block_size(&bytes).unwrap(), 1001);
    assert_eq!(ClogFile::parse(&bytes).unwrap().to_bytes().unwrap(), bytes);
    // Multi-block files: the block size written.
    for bs in [1024, 2048, 4096, 8192] {
        let bytes = write(&sample_records(400), bs, BlockFill::Mpe1);
        assert!(bytes.len() > bs);
        assert_eq!(infer_block_size(&bytes).unwrap(), bs);
    }
    // 65536-byte blocks, several of them.
    let bytes = write(&sample_records(3000), 65536, BlockFill::Tight);
    assert_eq!(bytes.len(), 3 * 65536);
    assert_eq!(infer_block_size(&bytes).unwrap(), 65536);
}

#[test]
fn explicit_block_size() {
    let bytes = write(&sample_records(100), 512, BlockFill::Tight);
    // 512 is below the smallest inferred size: inference cannot find it (it may
    // find a multiple of it, which still round-trips), an explicit size works.
    if let Ok(f) = ClogFile::parse(&bytes) {
        assert_ne!(f.block_size, 512);
        assert_eq!(f.to_bytes().unwrap(), bytes);
    }
    let f = ClogFile::parse_with_block_size(&bytes, 512).unwrap();
    assert_eq!(payload(&f), sample_records(100));
    assert_eq!(f.to_bytes().unwrap(), bytes);
    let n = ClogRecords::with_block_size(&bytes, 512).unwrap().count();
    // 107 records plus one terminator per block.
    assert_eq!(n, 107 + f.blocks.len());
}

#[test]
fn record_iterator_offsets() {
    let bytes = write(&sample_records(50), 1024, BlockFill::Mpe1);
    let it = ClogRecords::new(&bytes).unwrap();
    assert_eq!(
        (it.block_size(), it.block_count()),
        (1024, bytes.len() / 1024)
    );
    let mut expect = 0u64;
    for item in it {
        let (r, off) = item.unwrap();
        assert_eq!(off, expect);
        expect = if matches!(r.body, Body::EndBlock) {
            (off / 1024 + 1) * 1024
        } else {
            off + r.disk_len() as u64
        };
    }
}

#[test]
fn unknown_record_types_are_kept() {
    let mut recs = sample_records(5);
    let unknown = Record::new(
        0.5,
        1,
        Body::Unknown {
            rectype: 42,
            bytes: (0..16).collect(),
        },
    );
    recs.insert(3, unknown.clone());
    // UNDEF (0) is opaque too; a bare header is allowed.
    recs.insert(
        4,
        Record::new(
            0.6,
            1,
            Body::Unknown {
                rectype: 0,
                bytes: vec![],
            },
        ),
    );
    let bytes = write(&recs, 1024, BlockFill::Mpe1);
    let f = ClogFile::parse(&bytes).unwrap();
    assert_eq!(payload(&f), recs);
    assert_eq!(f.to_bytes().unwrap(), bytes);
    assert_eq!(unknown.length().unwrap(), 5);
    assert_eq!(
        unknown.display().to_string(),
        "ts=0.5 proc=1 type=unknown rectype=42 bytes=000102030405060708090a0b0c0d0e0f"
    );
}

#[test]
fn display_every_type() {
    let mut recs = sample_records(0);
    recs[0].pad = FixedBytes([0, 0, 0, 7]);
    let mut s = FixedBytes::<16>::from_str_truncated("a \"q\"\\");
    s.0[10] = 0xfe;
    recs.push(Record::new(
        1.0,
        0,
        Body::Raw(RawEvent {
            etype: -101,
            data: 1,
            srcloc: 2,
            pad: FixedBytes([1, 2, 3, 4]),
            string: s,
        }),
    ));
    let lines: Vec<String> = recs.iter().map(|r| r.display().to_string()).collect();
    let want = [
        r#"ts=0.000719 proc=2 hpad=00000007 type=srcloc srcloc=900 line=295 file="/sandbox/mpe/src/log_wrap.c""#,
        "ts=0.000725 proc=2 type=comm etype=101 parent=-1 newcomm=91 srcloc=900",
        r#"ts=0.0028 proc=0 type=statedef stateid=200 startetype=500 endetype=501 color="red" desc="User_Broadcast""#,
        r#"ts=0.0029 proc=0 type=eventdef etype=600 desc="tick""#,
        "ts=0.003 proc=1 type=msg etype=-101 tag=5 partner=2 comm=91 size=1024 srcloc=902",
        "ts=0.004 proc=1 type=coll etype=13 root=0 comm=91 size=8 srcloc=903",
        "ts=0.005 proc=3 type=shift shift=-0.00015",
        r#"ts=1.0 proc=0 type=raw etype=-101 data=1 srcloc=2 pad=01020304 string="a \"q\"\\" string.raw=61202271225c00000000fe0000000000"#,
    ];
    assert_eq!(lines, want);
    assert_eq!(
        Record::new(1.0e6, 0, Body::EndLog).display().to_string(),
        "ts=1000000.0 proc=0 type=endlog"
    );
    assert_eq!(
        Record::new(2.5, 0, Body::EndBlock).display().to_string(),
        "ts=2.5 proc=0 type=endblock"
    );
}

#[test]
fn detection() {
    let bytes = write(&sample_records(5), 1024, BlockFill::Mpe1);
    assert!(looks_like(&bytes));
    assert!(looks_like(&bytes[..24]));
    assert!(!looks_like(&bytes[..23]));
    assert!(!looks_like(b""));
    assert!(!looks_like(
        b"CLOG-02.44\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
    ));
    let mut b = bytes.clone();
    // Negative times occur (clock shifts): MPICH-1's simple.clog starts at -0.247 s.
    b[..8].copy_from_slice(&(-0.247f64).to_be_bytes());
    assert!(looks_like(&b));
    b[..8].copy_from_slice(&(-2.0e9f64).to_be_bytes());
    assert!(!looks_like(&b));
    b[..8].copy_from_slice(&f64::INFINITY.to_be_bytes());
    assert!(!looks_like(&b));
    b[..8].copy_from_slice(&f64::NAN.to_be_bytes());
    assert!(!looks_like(&b));
    let mut b = bytes.clone();
    b[12..16].copy_from_slice(&8i32.to_be_bytes()); // SRCLOC has length 9
    assert!(!looks_like(&b));
    let mut b = bytes;
    b[8..12].copy_from_slice(&9i32.to_be_bytes());
    assert!(!looks_like(&b));
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

fn set_i32(b: &mut [u8], at: usize, v: i32) {
    b[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

/// A 3-block file (1024-byte blocks) and the offsets of its records.
fn three_blocks() -> (Vec<u8>, Vec<u64>) {
    let recs: Vec<_> = (0..40).map(|i| raw(i as f64, 0, 1, i, "x")).collect();
    let bytes = write(&recs, 1024, BlockFill::Mpe1);
    assert_eq!(bytes.len(), 3 * 1024);
    let offs = ClogRecords::new(&bytes)
        .unwrap()
        .map(|r| r.unwrap().1)
        .collect();
    (bytes, offs)
}

#[test]
fn error_empty_and_short() {
    for len in [0, 1, 23] {
        let e = ClogFile::parse(&vec![0u8; len]).unwrap_err();
        assert!(
            matches!(e, Error::Truncated { offset: 0, .. }),
            "{len}: {e}"
        );
        let e = ClogFile::parse_with_block_size(&vec![0u8; len], 1024).unwrap_err();
        assert!(
            matches!(e, Error::Truncated { offset: 0, .. }),
            "{len}: {e}"
        );
    }
}

#[test]
fn error_unknown_first_record() {
    let (mut b, _) = three_blocks();
    set_i32(&mut b, 8, 42);
    let e = ClogFile::parse(&b).unwrap_err();
    assert!(
        matches!(
            e,
            Error::UnknownRecordType {
                offset: 0,
                rectype: 42,
                ..
            }
        ),
        "{e}"
    );
    let e = ClogFile::parse_with_block_size(&b, 1024).unwrap_err();
    assert!(
        matches!(
            e,
            Error::UnknownRecordType {
                offset: 0,
                rectype: 42,
                ..
            }
        ),
        "{e}"
    );
    // Random text is rejected the same way.
    let e = ClogFile::parse(b"#!/bin/sh\necho this is not a trace file\n").unwrap_err();
    assert!(
        matches!(e, Error::UnknownRecordType { offset: 0, .. }),
        "{e}"
    );
}

#[test]
fn error_length_mismatch() {
    let (b0, offs) = three_blocks();
    // In block 0 (found during inference) and in block 1 (found while parsing).
    for &at in &[offs[3], offs[offs.len() - 3]] {
        let mut b = b0.clone();
        set_i32(&mut b, at as usize + 12, 8);
        let e = ClogFile::parse_with_block_size(&b, 1024).unwrap_err();
        match &e {
            Error::BadValue {
                offset,
                field: "length",
                value: 8,
                problem,
            } => {
                assert_eq!(*offset, at);
                let fixed = 7; // a RAWEVENT's length
                let record = "a RAWEVENT record";
                assert_eq!(*problem, ValueProblem::RecordLength { record, fixed });
            }
            _ => panic!("{e}"),
        }
        assert_eq!(e.offset(), Some(at));
        let e = ClogFile::parse(&b).unwrap_err();
        assert_eq!(e.offset(), Some(at), "{e}");
    }
    // A wrong length on a terminator.
    let mut b = b0.clone();
    let term = offs[offs.len() - 1] as usize;
    set_i32(&mut b, term + 12, 4);
    let e = ClogFile::parse(&b).unwrap_err();
    assert!(
        matches!(
            e,
            Error::BadValue {
                field: "length",
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(e.offset(), Some(term as u64));
}

#[test]
fn error_unknown_type_with_bad_length() {
    let (b0, offs) = three_blocks();
    let at = offs[offs.len() - 4] as usize;
    for len in [2, 0, -5] {
        let mut b = b0.clone();
        set_i32(&mut b, at + 8, 77);
        set_i32(&mut b, at + 12, len);
        let e = ClogFile::parse(&b).unwrap_err();
        assert!(
            matches!(e, Error::BadValue { field: "length", value, problem: ValueProblem::UnknownTypeLength { rectype: 77 }, .. } if value == len as i64),
            "{e}"
        );
        assert_eq!(e.offset(), Some(at as u64));
    }
    // A length that runs past the block end.
    let mut b = b0.clone();
    set_i32(&mut b, at + 8, 77);
    set_i32(&mut b, at + 12, 1000);
    let e = ClogFile::parse(&b).unwrap_err();
    assert!(
        matches!(e, Error::BlockOverrun { offset, block: 2, len: 8000, block_end: 3072, .. } if offset == at as u64),
        "{e}"
    );
    let mut b = b0;
    set_i32(&mut b, at + 12, i32::MAX);
    set_i32(&mut b, at + 8, i32::MIN);
    let e = ClogFile::parse(&b).unwrap_err();
    assert!(matches!(e, Error::BlockOverrun { .. }), "{e}");
    assert_eq!(e.offset(), Some(at as u64));
}

#[test]
fn error_not_a_multiple_of_the_block_size() {
    let (b0, _) = three_blocks();
    let b = &b0[..3000];
    let e = ClogFile::parse_with_block_size(b, 1024).unwrap_err();
    let expected = Expected::WholeBlocks {
        block_size: 1024,
        len: 3000,
    };
    assert!(
        matches!(e, Error::Truncated { offset: 3000, expected: ref x } if *x == expected),
        "{e}"
    );
    // Inference cannot find a block size either; 1024 would have a record
    // header at its start.
    let e = ClogFile::parse(b).unwrap_err();
    match e {
        Error::BadValue {
            offset: 0,
            field: "block size",
            value: 3000,
            problem: ValueProblem::NotInferable(NotInferable::NoPowerOfTwo { plausible, min, .. }),
        } => assert_eq!((plausible, min), (Some(1024), 1024)),
        e => panic!("{e}"),
    }
}

#[test]
fn error_bad_explicit_block_size() {
    let (b, _) = three_blocks();
    for bs in [0, 8, 16, 1001, 1020] {
        let e = ClogFile::parse_with_block_size(&b, bs).unwrap_err();
        assert!(
            matches!(
                e,
                Error::BadValue {
                    offset: 0,
                    field: "block size",
                    problem: ValueProblem::ClogBlockSize,
                    ..
                }
            ),
            "{bs}: {e}"
        );
        assert!(ClogRecords::with_block_size(&b, bs).is_err());
    }
}

#[test]
fn error_no_terminator_in_first_block() {
    // A single-block file cut before its ENDLOG: the walk reaches the file end.
    let bytes = write(&sample_records(10), 4096, BlockFill::Mpe1);
    let f = ClogFile::parse(&bytes).unwrap();
    assert_eq!(f.blocks.len(), 1);
    let cut = &bytes[..312];
    let e = ClogFile::parse(cut).unwrap_err();
    assert!(
        matches!(
            e,
            Error::BadValue {
                offset: 0,
                field: "block size",
                problem: ValueProblem::NotInferable(NotInferable::NoTerminator { .. }),
                ..
            }
        ),
        "{e}"
    );
    // With an explicit block size: a header runs past the block end.
    // The COLLEVENT at 288 (48 bytes) runs past the end of a 312-byte block.
    let e = ClogFile::parse_with_block_size(cut, 312).unwrap_err();
    assert!(
        matches!(
            e,
            Error::BlockOverrun {
                offset: 288,
                block: 0,
                len: 48,
                block_end: 312,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn error_records_fill_the_block_without_terminator() {
    // Two RAW records of 56 bytes in a 112-byte block: the search for the terminator
    // stops at the block end.
    let mut b = Vec::new();
    raw(0.0, 0, 1, 0, "").encode(&mut b).unwrap();
    raw(0.1, 0, 1, 0, "").encode(&mut b).unwrap();
    assert_eq!(b.len(), 112);
    let e = ClogFile::parse_with_block_size(&b, 112).unwrap_err();
    assert!(
        matches!(
            e,
            Error::BlockOverrun {
                offset: 112,
                block: 0,
                block_end: 112,
                ..
            }
        ),
        "{e}"
    );
    // 16 bytes left: the header runs past the block end, reported at the record.
    b.truncate(56);
    b.extend_from_slice(&[0; 16]);
    let e = ClogFile::parse_with_block_size(&b, 72).unwrap_err();
    assert!(
        matches!(
            e,
            Error::BlockOverrun {
                offset: 56,
                len: 24,
                ..
            }
        ),
        "{e}"
    );
    // A header fits but the body does not.
    b.truncate(56);
    raw(0.1, 0, 1, 0, "").encode(&mut b).unwrap();
    b.truncate(80);
    let e = ClogFile::parse_with_block_size(&b, 80).unwrap_err();
    assert!(
        matches!(
            e,
            Error::BlockOverrun {
                offset: 56,
                len: 56,
                block_end: 80,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn error_missing_endlog() {
    let (b, _) = three_blocks();
    let cut = &b[..2048];
    let e = ClogFile::parse(cut).unwrap_err();
    assert!(matches!(e, Error::MissingEndLog { offset: 2048 }), "{e}");
    let items: Vec<_> = ClogRecords::new(cut).unwrap().collect();
    assert!(matches!(
        items.last(),
        Some(Err(Error::MissingEndLog { offset: 2048 }))
    ));
    assert!(items[..items.len() - 1].iter().all(Result::is_ok));
}

#[test]
fn error_blocks_after_endlog() {
    let (mut b, _) = three_blocks();
    let first = b[..1024].to_vec();
    b.extend_from_slice(&first);
    let e = ClogFile::parse(&b).unwrap_err();
    assert!(
        matches!(e, Error::DataAfterEndLog { offset: 3072, .. }),
        "{e}"
    );
    // A file of ENDLOG-first blocks with an explicit block size.
    let one = ClogWriter::new(Vec::new(), 64).unwrap().finish().unwrap();
    let two = [one.clone(), one].concat();
    let e = ClogFile::parse_with_block_size(&two, 64).unwrap_err();
    assert!(
        matches!(e, Error::DataAfterEndLog { offset: 64, .. }),
        "{e}"
    );
    // Inferred, the same bytes are one 128-byte block with trailing bytes.
    let f = ClogFile::parse(&two).unwrap();
    assert_eq!((f.block_size, f.blocks[0].trailing.len()), (128, 104));
}

#[test]
fn writer_errors() {
    let mut w = ClogWriter::new(Vec::new(), 1024).unwrap();
    for t in [Body::EndLog, Body::EndBlock] {
        assert!(matches!(
            w.push(&Record::new(0.0, 0, t)),
            Err(Error::Write(_))
        ));
    }
    let big = Record::new(
        0.0,
        0,
        Body::Unknown {
            rectype: 99,
            bytes: vec![0; 1000],
        },
    );
    assert!(matches!(w.push(&big), Err(Error::Write(_))));
    let odd = Record::new(
        0.0,
        0,
        Body::Unknown {
            rectype: 99,
            bytes: vec![0; 7],
        },
    );
    assert!(matches!(w.push(&odd), Err(Error::Write(_))));
    let known = Record::new(
        0.0,
        0,
        Body::Unknown {
            rectype: 1,
            bytes: vec![0; 32],
        },
    );
    assert!(matches!(w.push(&known), Err(Error::Write(_))));
    assert_eq!(w.records_written(), 0);
    assert_eq!(w.bytes_written(), 0);
    for bs in [0, 16, 1020] {
        assert!(matches!(
            ClogWriter::new(Vec::new(), bs),
            Err(Error::Write(_))
        ));
    }
    // A block that does not end with a terminator cannot be written.
    let mut f = ClogFile::parse(&write(&sample_records(3), 1024, BlockFill::Mpe1)).unwrap();
    f.blocks[0].records.pop();
    assert!(matches!(f.to_bytes(), Err(Error::Write(_))));
    // Nor one whose records and trailing bytes overflow it.
    let mut f = ClogFile::parse(&write(&sample_records(3), 1024, BlockFill::Mpe1)).unwrap();
    f.blocks[0].trailing.push(0);
    assert!(matches!(f.to_bytes(), Err(Error::Write(_))));
}

// ---------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------

/// Records compare with `==`, so NaN shifts are compared by bits instead.
fn same(a: &[Record], b: &[Record]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (&x.body, &y.body) {
            (Body::Shift(p), Body::Shift(q)) => {
                p.timeshift.to_bits() == q.timeshift.to_bits()
                    && (x.time, x.procid, x.pad) == (y.time, y.procid, y.pad)
            }
            _ => x == y,
        })
}

fn first_is_opaque(recs: &[Record]) -> bool {
    matches!(recs.first().map(|r| &r.body), Some(Body::Unknown { .. }))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// write -> parse gives the records back; parse -> write gives the bytes back.
    #[test]
    fn write_parse_round_trip(
        recs in clog::records(0..120),
        bs in prop_oneof![Just(1024usize), Just(2048), Just(200), Just(4096)],
        fill in clog::block_fill(),
    ) {
        let bytes = write(&recs, bs, fill);
        prop_assert_eq!(bytes.len() % bs, 0);
        match ClogFile::parse_with_block_size(&bytes, bs) {
            Ok(f) => {
                prop_assert!(!first_is_opaque(&recs));
                prop_assert!(same(&payload(&f), &recs));
                prop_assert_eq!(f.to_bytes().unwrap(), bytes.clone());
            }
            Err(e) => {
                // The only way to fail: an opaque record first in the file.
                prop_assert!(first_is_opaque(&recs));
                let unknown_first = matches!(e, Error::UnknownRecordType { offset: 0, .. });
                prop_assert!(unknown_first, "{}", e);
            }
        }
        // Inference: lossless whenever it succeeds, and right when the second block
        // starts with a known record type.
        if let Ok(f) = ClogFile::parse(&bytes) {
            prop_assert_eq!(f.to_bytes().unwrap(), bytes.clone());
            let second_known = bytes.len() == bs
                || record_len(i32::from_be_bytes(bytes[bs + 8..bs + 12].try_into().unwrap())).is_some();
            if bs >= 1024 && second_known {
                prop_assert_eq!(f.block_size, bs);
                prop_assert!(same(&payload(&f), &recs));
            }
        }
    }

    /// Stale bytes after terminators survive parse -> write.
    #[test]
    fn trailing_bytes_survive(
        recs in clog::records(1..80),
        noise in proptest::collection::vec(any::<u8>(), 64),
    ) {
        let mut recs = recs;
        if let Body::Unknown { .. } = recs[0].body {
            // An opaque first record makes the file unreadable; replace it.
            recs[0].body = Body::Shift(Shift { timeshift: 0.0 });
        }
        let bytes = write(&recs, 1024, BlockFill::Tight);
        let mut f = ClogFile::parse_with_block_size(&bytes, 1024).unwrap();
        for (i, b) in f.blocks.iter_mut().enumerate() {
            for (j, c) in b.trailing.iter_mut().enumerate() {
                *c = noise[(i + j) % noise.len()];
            }
        }
        let dirty = f.to_bytes().unwrap();
        let g = ClogFile::parse_with_block_size(&dirty, 1024).unwrap();
        prop_assert!(same(&payload(&g), &recs));
        prop_assert_eq!(g.to_bytes().unwrap(), dirty);
    }

    /// Any input parses or fails with an error naming an offset inside (or at the end
    /// of) the input; whatever parses writes back byte for byte.
    #[test]
    fn corrupted_files_never_panic(
        recs in clog::records(1..60),
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in any::<prop::sample::Index>(),
        do_cut in any::<bool>(),
    ) {
        let mut bytes = write(&recs, 1024, BlockFill::Mpe1);
        for (at, v) in flips {
            let i = at.index(bytes.len());
            bytes[i] = v;
        }
        if do_cut {
            let n = cut.index(bytes.len());
            bytes.truncate(n);
        }
        for res in [ClogFile::parse(&bytes), ClogFile::parse_with_block_size(&bytes, 1024)] {
            match res {
                Ok(f) => prop_assert_eq!(f.to_bytes().unwrap(), bytes.clone()),
                Err(e) => {
                    let off = e.offset().unwrap();
                    prop_assert!(off <= bytes.len() as u64, "{}", e);
                }
            }
        }
        let _ = looks_like(&bytes);
        for (r, _) in ClogRecords::new(&bytes).into_iter().flatten().flatten() {
            let _ = r.display().to_string();
        }
    }

    /// Random bytes never panic the parser.
    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        if let Ok(f) = ClogFile::parse(&bytes) {
            prop_assert_eq!(f.to_bytes().unwrap(), bytes.clone());
        }
        if let Ok(f) = ClogFile::parse_with_block_size(&bytes, 200) {
            prop_assert_eq!(f.to_bytes().unwrap(), bytes);
        }
    }
}
