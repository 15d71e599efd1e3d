//! Tests of `repair`: files cut at many offsets (in the preamble, at block
//! boundaries, inside records, inside the comm table) or damaged after some point
//! give a proper file holding exactly the records that lay wholly before the cut,
//! with an intact file left unchanged. Generated traces always; the MPE-written
//! corpus when `MPELOG_CORPUS` is set.

mod common;

use clog2_format::bytes::FixedBytes;
use clog2_format::record::*;
use clog2_format::repair::{repair, LossKind, RepairReport, TableRepair};
use clog2_format::{synth, Clog2Reader, Clog2Writer, CommTable, PreambleInfo, Version};
use std::collections::BTreeSet;

/// A small deterministic generator (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// An intact file, read with the strict reader.
struct Original {
    /// The records (terminators aside) with their end offsets.
    records: Vec<Record>,
    ends: Vec<u64>,
    /// Offsets of every record, terminators included.
    starts: Vec<u64>,
    block_size: usize,
    /// End of the block stream.
    stream_end: usize,
    table: Option<CommTable>,
}

fn original(data: &[u8]) -> Original {
    let mut r = Clog2Reader::from_slice(data).unwrap();
    let hl = r.layout().header_len();
    let block_size = r.preamble().info().block_size as usize;
    let (mut records, mut ends, mut starts) = (Vec::new(), Vec::new(), Vec::new());
    let mut stream_end = 0;
    while let Some((rec, at)) = r.next_record_at().unwrap() {
        starts.push(at);
        if matches!(rec.body, Body::EndLog) {
            stream_end = (at as usize - 1024) / block_size * block_size + block_size + 1024;
        }
        if !rec.is_terminator() {
            ends.push(at + rec.disk_len(hl) as u64);
            records.push(rec);
        }
    }
    let table = r.finish().unwrap();
    Original {
        records,
        ends,
        starts,
        block_size,
        stream_end,
        table,
    }
}

/// Reads a repaired file with the strict reader (every check, comm table and end of
/// file included): its records without terminators, and its table.
fn read_back(out: &[u8]) -> (Vec<Record>, Option<CommTable>) {
    let mut r = Clog2Reader::from_slice(out).unwrap_or_else(|e| panic!("repaired preamble: {e}"));
    let mut recs = Vec::new();
    while let Some(rec) = r
        .next_record()
        .unwrap_or_else(|e| panic!("repaired file: {e}"))
    {
        if !rec.is_terminator() {
            recs.push(rec);
        }
    }
    let table = r
        .finish()
        .unwrap_or_else(|e| panic!("repaired file's end: {e}"));
    (recs, table)
}

/// 100 distinct cut offsets (fewer only for tiny files): in the preamble, at and
/// around block boundaries, at record starts and inside records, around ENDLOG,
/// inside the comm table, the whole file, and pseudo-random offsets for the rest.
fn cut_offsets(data: &[u8], o: &Original, seed: u64) -> Vec<usize> {
    let len = data.len();
    let mut set = BTreeSet::new();
    let mut add = |x: usize| {
        if x <= len {
            set.insert(x);
        }
    };
    for x in [0, 1, 8, 100, 512, 1023, 1024, 1025, 1048, len - 1, len] {
        add(x);
    }
    let blocks = (o.stream_end - 1024) / o.block_size;
    for k in [1, 2, blocks / 2, blocks.saturating_sub(1), blocks] {
        let b = 1024 + k * o.block_size;
        for x in [b - 1, b, b + 1, b + 24] {
            add(x);
        }
    }
    // The ENDLOG record and what follows it, then the comm table.
    let endlog = *o.starts.last().unwrap() as usize;
    for x in [endlog, endlog + 1, endlog + 24, endlog + 25] {
        add(x);
    }
    let t = o.stream_end;
    for x in [t + 1, t + 3, t + 4, t + 5, t + 44, t + 45] {
        add(x);
    }
    let mut rng = Rng(seed);
    for _ in 0..12 {
        let s = o.starts[rng.below(o.starts.len())] as usize;
        add(s);
        add(s + 1 + rng.below(23));
    }
    let mut set: Vec<usize> = set.into_iter().collect();
    let mut guard = 0;
    while set.len() < 100 && guard < 10_000 {
        let x = 1024 + rng.below(len - 1024);
        if let Err(i) = set.binary_search(&x) {
            set.insert(i, x);
        }
        guard += 1;
    }
    set
}

/// Repairs `data[..cut]` and checks the result: an error naming the offset inside
/// the preamble; otherwise a proper file with exactly the original records that
/// lie wholly before the cut, and a report that adds up.
fn check_cut(data: &[u8], cut: usize, o: &Original, what: &str) -> Option<RepairReport> {
    let input = &data[..cut];
    if cut < 1024 {
        let e = repair(input).expect_err("a cut preamble cannot be repaired");
        assert_eq!(e.offset(), Some(cut as u64), "{what} cut at {cut}: {e}");
        assert!(e.to_string().contains(&format!("byte {cut}")), "{e}");
        return None;
    }
    let (out, rep) = repair(input).unwrap_or_else(|e| panic!("{what} cut at {cut}: {e}"));
    let ctx = format!("{what} cut at {cut}: {rep}");
    let (recs, table) = read_back(&out);
    let k = o.ends.partition_point(|&e| e <= cut as u64);
    assert_eq!(recs.len(), k, "{ctx}");
    assert!(recs == o.records[..k], "{ctx}: records differ");
    assert_eq!(rep.records, k as u64, "{ctx}");
    assert_eq!(rep.output_len, out.len() as u64, "{ctx}");
    assert_eq!(rep.used + rep.lost, cut as u64, "{ctx}");
    assert_eq!(rep.loss.as_ref().map_or(cut as u64, |l| l.offset), rep.used);
    assert_eq!(
        rep.blocks,
        (out.len() as u64 - 1024 - table.as_ref().map_or(0, |t| t.disk_len()))
            / o.block_size as u64,
        "{ctx}"
    );
    assert_eq!(table.is_some(), o.table.is_some(), "{ctx}");
    // The preamble is the input's but for the comm table pointer.
    let (a, b) = (
        clog2_format::Preamble::parse(&out).unwrap(),
        clog2_format::Preamble::parse(data).unwrap(),
    );
    let mut bi = b.info().clone();
    bi.commtable_fptr = a.info().commtable_fptr;
    assert_eq!(a.info(), &bi, "{ctx}");
    if cut == data.len() {
        assert!(rep.is_intact(), "{ctx}");
        assert!(out == data, "{ctx}: an intact file must come out unchanged");
    } else {
        assert!(!rep.is_intact(), "{ctx}");
        assert!(rep.loss.is_some(), "{ctx}");
    }
    if cut >= o.stream_end {
        assert!(rep.had_endlog, "{ctx}");
        assert_eq!(rep.blocks_kept, rep.blocks, "{ctx}");
        // Only the comm table is cut: rebuilt from the COMMEVT records, it is MPE's.
        if cut < data.len() {
            assert!(matches!(rep.table, TableRepair::Rebuilt { .. }), "{ctx}");
        }
    }
    if cut > 1024 && cut < o.stream_end {
        assert!(
            matches!(
                rep.loss.as_ref().unwrap().kind,
                LossKind::Cut | LossKind::NoEndLog
            ),
            "{ctx}"
        );
    }
    Some(rep)
}

fn gen(ranks: u32, events: u64, seed: u64, block_size: u32) -> Vec<u8> {
    synth::generate_vec(
        &synth::Options::default()
            .ranks(ranks)
            .events(events)
            .seed(seed)
            .block_size(block_size),
    )
    .unwrap()
}

#[test]
fn generated_traces_cut_at_many_offsets() {
    let mut variants = 0;
    for (ranks, events, seed, bs) in [(3, 4000, 1, 1024), (4, 3000, 2, 4096), (2, 600, 3, 65536)] {
        let data = gen(ranks, events, seed, bs);
        let o = original(&data);
        let mut cuts: BTreeSet<usize> = cut_offsets(&data, &o, seed).into_iter().collect();
        // Every byte of the first two blocks and of the ENDLOG block's start.
        cuts.extend(1000..(1024 + 2 * bs as usize).min(data.len()).min(1024 + 2048));
        let endlog = *o.starts.last().unwrap() as usize;
        cuts.extend(endlog.saturating_sub(200)..data.len().min(endlog + 100));
        cuts.extend(o.stream_end..=data.len());
        for &cut in &cuts {
            check_cut(&data, cut, &o, "generated");
            variants += 1;
        }
    }
    assert!(variants > 3000, "{variants}");
    eprintln!("{variants} cut variants of 3 generated traces");
}

#[test]
fn comm_table_rebuilt_as_mpe_builds_it() {
    // Cut inside the table of a generated trace: every record is recovered and the
    // rebuilt table names the same communicators wherever a COMMEVT describes one.
    let data = gen(5, 3000, 9, 4096);
    let o = original(&data);
    let orig = o.table.clone().unwrap();
    let (out, rep) = repair(&data[..o.stream_end + 30]).unwrap();
    let (_, table) = read_back(&out);
    let table = table.unwrap();
    let TableRepair::Rebuilt {
        from_commevts,
        described,
        ignored,
        ..
    } = rep.table
    else {
        panic!("{rep}")
    };
    assert!(from_commevts > 0 && described > 0 && ignored == 0, "{rep}");
    for (i, e) in table.entries.iter().enumerate() {
        assert_eq!(e.local_id, i as i32);
        if e.gcomm != Uuid::ZERO {
            assert_eq!(e.gcomm, orig.entries[i].gcomm, "entry {i}");
        }
    }
}

#[test]
fn cut_inside_the_preamble_is_an_error_naming_the_offset() {
    let data = gen(2, 300, 1, 1024);
    for cut in [0, 1, 7, 8, 9, 300, 1000, 1023] {
        let e = repair(&data[..cut]).unwrap_err();
        assert_eq!(e.offset(), Some(cut as u64), "{e}");
        assert!(e.to_string().contains(&format!("byte {cut}")), "{e}");
    }
    // A bad preamble: not CLOG2, or an invalid field.
    let mut bad = data.clone();
    bad[..8].copy_from_slice(b"SLOG-2.0");
    assert_eq!(repair(&bad).unwrap_err().offset(), Some(0));
    let mut bad = data.clone();
    let at = bad.windows(11).position(|w| w == b"block_size=").unwrap() + 12;
    bad[at] = b'x';
    let e = repair(&bad).unwrap_err();
    assert!(e.to_string().contains("block_size"), "{e}");
}

#[test]
fn intact_files_come_out_unchanged() {
    for (ranks, events, seed, bs) in [(1, 100, 4, 65536), (4, 5000, 5, 2048), (7, 2000, 6, 512)] {
        let data = gen(ranks, events, seed, bs);
        let (out, rep) = repair(&data).unwrap();
        assert!(rep.is_intact(), "{rep}");
        assert_eq!(rep.lost, 0);
        assert!(
            matches!(
                rep.table,
                TableRepair::Kept {
                    fptr_fixed: false,
                    ..
                }
            ),
            "{rep}"
        );
        assert!(out == data);
        assert!(rep.to_string().contains("nothing lost"), "{rep}");
    }
}

/// A generated trace without its comm table and with `commtable_fptr` = `fptr`.
fn without_table(data: &[u8], stream_end: usize, fptr: u64) -> Vec<u8> {
    let mut p = clog2_format::Preamble::parse(data).unwrap();
    p.set_commtable_fptr(fptr).unwrap();
    let mut v = p.to_bytes().unwrap().to_vec();
    v.extend_from_slice(&data[1024..stream_end]);
    v
}

#[test]
fn unfinished_file_gets_its_table() {
    // What MPE's clog2_repair fixes: the blocks are complete, ENDLOG included, but the
    // table was never written and commtable_fptr is 0.
    let data = gen(4, 3000, 11, 4096);
    let o = original(&data);
    let broken = without_table(&data, o.stream_end, 0);
    let (out, rep) = repair(&broken).unwrap();
    assert!(
        rep.loss.is_none() && rep.had_endlog && !rep.is_intact(),
        "{rep}"
    );
    assert!(matches!(rep.table, TableRepair::Rebuilt { .. }), "{rep}");
    assert!(rep.to_string().contains("commtable_fptr is 0"), "{rep}");
    let (recs, table) = read_back(&out);
    assert!(recs == o.records);
    assert_eq!(
        table.unwrap().entries.len(),
        o.table.as_ref().unwrap().entries.len()
    );
    assert!(out[1024..o.stream_end] == data[1024..o.stream_end]);

    // The table was written but not the preamble: the table is kept, the pointer
    // fixed, and the file is the finished one.
    let mut broken = without_table(&data, o.stream_end, 0);
    broken.extend_from_slice(&data[o.stream_end..]);
    let (out, rep) = repair(&broken).unwrap();
    assert!(
        matches!(
            rep.table,
            TableRepair::Kept {
                fptr_fixed: true,
                ..
            }
        ),
        "{rep}"
    );
    assert!(out == data, "{rep}");

    // The pointer is set but the file ends where the table should start.
    let broken = without_table(&data, o.stream_end, o.stream_end as u64);
    let (_, rep) = repair(&broken).unwrap();
    assert_eq!(rep.loss.as_ref().unwrap().kind, LossKind::Cut, "{rep}");
    assert_eq!(rep.lost, 0);
}

#[test]
fn bytes_after_the_end_are_dropped() {
    let data = gen(3, 2000, 12, 2048);
    let o = original(&data);
    for tail in [&[0u8; 1][..], &[0u8; 100], b"garbage after the comm table"] {
        let mut broken = data.clone();
        broken.extend_from_slice(tail);
        let (out, rep) = repair(&broken).unwrap();
        let loss = rep.loss.as_ref().unwrap();
        assert_eq!(loss.kind, LossKind::ExtraBytes, "{rep}");
        assert_eq!(loss.offset, o.stream_end as u64, "{rep}");
        assert!(matches!(rep.table, TableRepair::Rebuilt { .. }), "{rep}");
        let (recs, _) = read_back(&out);
        assert!(recs == o.records);
    }
}

#[test]
fn damaged_after_some_point() {
    // Bytes from a point on overwritten (random, all ones, zeros, bit flips): the
    // records wholly before the damage are recovered, the output is a proper file,
    // and nothing panics.
    let data = gen(4, 4000, 13, 2048);
    let o = original(&data);
    let mut rng = Rng(99);
    let mut n = 0;
    for i in 0..240 {
        let x = 1024 + rng.below(data.len() - 1024);
        let mut bad = data.clone();
        for b in &mut bad[x..] {
            *b = match i % 4 {
                0 => rng.next() as u8,
                1 => 0xff,
                2 => 0,
                _ => *b ^ (1 << rng.below(8)),
            };
        }
        let (out, rep) = repair(&bad).unwrap_or_else(|e| panic!("damage at {x}: {e}"));
        let ctx = format!("damage from {x} (mode {}): {rep}", i % 4);
        let (recs, _) = read_back(&out);
        let k = o.ends.partition_point(|&e| e <= x as u64);
        assert!(recs.len() >= k, "{ctx}");
        assert!(recs[..k] == o.records[..k], "{ctx}");
        assert_eq!(rep.records, recs.len() as u64, "{ctx}");
        assert!(rep.loss.is_some(), "{ctx}");
        n += 1;
    }
    assert_eq!(n, 240);
}

#[test]
fn random_corruption_never_panics() {
    // Any bytes give a report or an error, and every report comes with a file the
    // strict reader accepts.
    let small = gen(2, 300, 14, 512);
    let legacy = handmade(Version::V2_10, false, 512);
    let mut rng = Rng(7);
    let mut repaired = 0;
    for i in 0..3000 {
        let base = if i % 2 == 0 { &small } else { &legacy };
        let mut bad = base.clone();
        for _ in 0..1 + rng.below(8) {
            // Mostly in the blocks, sometimes in the preamble's values.
            let at = if rng.below(8) == 0 {
                rng.below(400)
            } else {
                1024 + rng.below(bad.len() - 1024)
            };
            bad[at] = rng.next() as u8;
        }
        if rng.below(3) == 0 {
            bad.truncate(1024 + rng.below(bad.len() - 1024));
        }
        if let Ok((out, _)) = repair(&bad) {
            read_back(&out);
            repaired += 1;
        }
    }
    assert!(repaired > 2000, "{repaired}");
}

fn name<const N: usize>(s: &str) -> FixedBytes<N> {
    FixedBytes::from_str_truncated(s)
}

/// A file written with `Clog2Writer` for `version`, with records of every type the
/// version has.
fn handmade(version: Version, big_endian: bool, block_size: u32) -> Vec<u8> {
    let mut info = PreambleInfo::mpe_default(2).for_version(version);
    info.big_endian = big_endian;
    info.block_size = block_size;
    let mut w = Clog2Writer::new(std::io::Cursor::new(Vec::new()), info).unwrap();
    let legacy = version.has_legacy_header();
    let gid = |r: i32| Uuid {
        rand: r,
        time: 12.5,
        name: name("host"),
    };
    let mut t = 0.0;
    let mut push = |w: &mut Clog2Writer<_>, rank: i32, body: Body| {
        t += 1e-6;
        w.push(&Record {
            time: t,
            icomm: 0,
            rank,
            thread: 0,
            body,
        })
        .unwrap();
    };
    for rank in 0..2 {
        let body = if legacy {
            Body::LegacyComm(LegacyCommEvt {
                etype: 101,
                parent: 0,
                newcomm: 0,
                pad: FixedBytes::ZERO,
            })
        } else {
            Body::Comm(CommEvt {
                etype: comm_etype::WORLD_CREATE,
                icomm: 0,
                rank,
                wrank: rank,
                gcomm: gid(7),
            })
        };
        push(&mut w, rank, body);
        if !legacy {
            let body = Body::Comm(CommEvt {
                etype: comm_etype::SELF_CREATE,
                icomm: 1 + 2 * rank,
                rank: 0,
                wrank: rank,
                gcomm: gid(100 + rank),
            });
            push(&mut w, rank, body);
        }
    }
    for i in 0..150 {
        let rank = i % 2;
        let body = match i % 10 {
            0 => Body::StateDef(StateDef {
                state_id: i,
                start_etype: 2 * i,
                final_etype: 2 * i + 1,
                pad: FixedBytes::ZERO,
                color: name("red"),
                name: name("state"),
                format: name(""),
            }),
            1 => Body::EventDef(EventDef {
                etype: 600 + i,
                pad: FixedBytes::ZERO,
                color: name("blue"),
                name: name("event"),
                format: name("v=%d"),
            }),
            2 => Body::ConstDef(ConstDef {
                etype: CONST_ETYPE,
                value: i,
                name: name("MPI_ANY_TAG"),
            }),
            3 => Body::Cargo(CargoEvt {
                etype: 600 + i,
                pad: FixedBytes::ZERO,
                bytes: FixedBytes::ZERO,
            }),
            4 if legacy => Body::LegacyMsg(LegacyMsgEvt {
                etype: SEND_ETYPE,
                tag: 1,
                partner: 1 - rank,
                comm: 0,
                size: 8,
                pad: FixedBytes::ZERO,
            }),
            4 => Body::Msg(MsgEvt {
                etype: SEND_ETYPE,
                icomm: 0,
                rank: 1 - rank,
                tag: 1,
                size: 8,
                pad: FixedBytes::ZERO,
            }),
            5 if legacy => Body::LegacyColl(LegacyCollEvt {
                etype: 10,
                root: 0,
                comm: 0,
                size: 4,
            }),
            5 => Body::Coll(CollEvt {
                etype: 10,
                root: 0,
                size: 4,
                pad: FixedBytes::ZERO,
            }),
            6 => Body::SrcLoc(SrcLoc {
                srcloc: i,
                lineno: 42,
                filename: name("a.c"),
            }),
            7 => Body::TimeShift(TimeShift { timeshift: -0.0 }),
            _ => Body::Bare(BareEvt {
                etype: i,
                pad: FixedBytes::ZERO,
            }),
        };
        push(&mut w, rank, body);
    }
    let table = version.has_comm_table().then(|| {
        CommTable::new(
            [(0, gid(7)), (1, gid(100)), (2, Uuid::ZERO), (3, gid(101))]
                .into_iter()
                .map(|(lid, gcomm)| clog2_format::CommEntry {
                    gcomm,
                    local_id: lid,
                    kind: if lid == 2 { -1 } else { 1 },
                })
                .collect(),
        )
    });
    w.finish(table.as_ref()).unwrap().0.into_inner()
}

#[test]
fn every_version_and_byte_order() {
    let mut variants = 0;
    for v in Version::ALL {
        for big in [true, false] {
            let data = handmade(v, big, if v.has_legacy_header() { 256 } else { 512 });
            let o = original(&data);
            for cut in cut_offsets(&data, &o, 5) {
                check_cut(&data, cut, &o, v.as_str());
                variants += 1;
            }
        }
    }
    assert_eq!(variants, 14 * 100);
}

#[test]
fn corpus_files_cut_at_100_offsets() {
    let Some(dir) = common::corpus() else {
        return;
    };
    let (mut variants, mut recovered, mut errors) = (0, 0u64, 0);
    for (i, (f, bs)) in common::CLOG2_FILES.iter().enumerate() {
        let data = common::read(&dir, f);
        let o = original(&data);
        assert_eq!(o.block_size, *bs as usize);
        let cuts = cut_offsets(&data, &o, i as u64);
        assert_eq!(cuts.len(), 100, "{f}");
        for cut in cuts {
            match check_cut(&data, cut, &o, f) {
                Some(rep) => recovered += rep.records,
                None => errors += 1,
            }
            variants += 1;
        }
    }
    assert_eq!(variants, 100 * common::CLOG2_FILES.len());
    eprintln!(
        "{variants} cut variants: {errors} cut in the preamble (errors), {recovered} records recovered in the others"
    );
}
