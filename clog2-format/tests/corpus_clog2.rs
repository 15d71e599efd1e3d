//! The CLOG2 codec against the real MPE corpus: lossless round trips, and every
//! record compared with the dumps of MPE's own printers (C `clog2_print`, Java
//! `clog2print`).

mod common;

use clog2_format::bytes::c_bytes;
use clog2_format::commtable::comm_kind;
use clog2_format::dump::comm_etype_name;
use clog2_format::record::*;
use clog2_format::{Clog2File, Clog2Reader, PreambleInfo};
use std::io::Write;

#[test]
fn every_corpus_clog2_round_trips_byte_for_byte() {
    let Some(dir) = common::corpus() else { return };
    for (rel, block_size) in common::CLOG2_FILES {
        let data = common::read(&dir, rel);
        let file = Clog2File::parse(&data).unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert_eq!(file.preamble.info().block_size, *block_size, "{rel}");
        assert_eq!(
            data.len() as u64,
            1024 + file.blocks.len() as u64 * *block_size as u64
                + file.comm_table.as_ref().unwrap().disk_len(),
            "{rel}"
        );
        let out = file.to_bytes().unwrap();
        assert!(out == data, "{rel}: the rewritten file differs");
        // The streaming reader over a `Read` sees the same blocks.
        let mut r = Clog2Reader::new(std::io::Cursor::new(&data)).unwrap();
        let mut n = 0;
        while let Some(b) = r.next_block().unwrap() {
            assert_eq!(b, file.blocks[n], "{rel} block {n}");
            n += 1;
        }
        assert_eq!(r.finish().unwrap(), file.comm_table, "{rel}");
    }
}

/// The C `clog2_print` rendering of the preamble (CLOG_Preamble_print).
fn c_preamble(info: &PreambleInfo, out: &mut Vec<u8>) {
    for line in clog2_format::dump::preamble_lines(info) {
        writeln!(out, "{line}").unwrap();
    }
}

fn c_str(b: &[u8]) -> &[u8] {
    c_bytes(b)
}

fn c_uuid(u: &Uuid, out: &mut Vec<u8>) {
    write!(out, "{}-{:.6}-", u.rand, u.time).unwrap();
    out.extend_from_slice(c_str(&u.name.0));
}

/// One record as MPE's C `CLOG_Rec_print` prints it (`%f` times, `%s` strings,
/// `%.32s` cargo).
fn c_record(r: &Record, out: &mut Vec<u8>) {
    write!(
        out,
        "ts={:.6} icomm={} rank={} thd={} type={:<4} ",
        r.time,
        r.icomm,
        r.rank,
        r.thread,
        rectype_name(r.rectype())
    )
    .unwrap();
    let s = |out: &mut Vec<u8>, k: &str, v: &[u8], sep: &str| {
        out.extend_from_slice(k.as_bytes());
        out.extend_from_slice(c_str(v));
        out.extend_from_slice(sep.as_bytes());
    };
    match &r.body {
        Body::StateDef(b) => {
            write!(
                out,
                "state={} s_et={} e_et={} ",
                b.state_id, b.start_etype, b.final_etype
            )
            .unwrap();
            s(out, "color=", &b.color.0, " ");
            s(out, "name=", &b.name.0, " ");
            s(out, "fmt=", &b.format.0, "\n");
        }
        Body::EventDef(b) => {
            write!(out, "et={} ", b.etype).unwrap();
            s(out, "color=", &b.color.0, " ");
            s(out, "name=", &b.name.0, " ");
            s(out, "fmt=", &b.format.0, "\n");
        }
        Body::ConstDef(b) => {
            write!(out, "et={} ", b.etype).unwrap();
            s(out, "name=", &b.name.0, " ");
            writeln!(out, "value={}", b.value).unwrap();
        }
        Body::Bare(b) => writeln!(out, "et={}", b.etype).unwrap(),
        Body::Cargo(b) => {
            write!(out, "et={} ", b.etype).unwrap();
            s(out, "bytes=", &b.bytes.0, "\n");
        }
        Body::Msg(b) => {
            let et = match b.etype {
                SEND_ETYPE => "send ".to_string(),
                RECV_ETYPE => "recv ".to_string(),
                e => format!("unk({e}) "),
            };
            writeln!(
                out,
                "et={et}icomm={} rank={} tag={} sz={}",
                b.icomm, b.rank, b.tag, b.size
            )
            .unwrap();
        }
        Body::Comm(b) => {
            // clog2_print pads the type names to 16 characters.
            write!(
                out,
                "et={:<16}icomm={} rank={} wrank={} gcomm=",
                comm_etype_name(b.etype) + " ",
                b.icomm,
                b.rank,
                b.wrank
            )
            .unwrap();
            c_uuid(&b.gcomm, out);
            out.push(b'\n');
        }
        Body::TimeShift(b) => writeln!(out, "shift={:.6}", b.timeshift).unwrap(),
        other => panic!("record type not seen in MPE2 files: {other:?}"),
    }
}

fn c_dump(file: &Clog2File) -> Vec<u8> {
    let mut out = Vec::new();
    c_preamble(file.preamble.info(), &mut out);
    for e in &file.comm_table.as_ref().unwrap().entries {
        out.extend_from_slice(b"GID=");
        c_uuid(&e.gcomm, &mut out);
        // clog2_print ends the line with a space for three of the five kinds.
        let sep = match e.kind {
            comm_kind::INTER | comm_kind::INTRA | comm_kind::LOCAL => " ",
            _ => "",
        };
        writeln!(
            out,
            " LID={} kind={}{sep}",
            e.local_id,
            comm_kind::name(e.kind)
        )
        .unwrap();
    }
    let table = &file.comm_table.as_ref().unwrap().entries;
    for r in file.records().filter(|r| !r.is_terminator()) {
        c_record(&c_patch_comm(r, table), &mut out);
    }
    out
}

/// What MPE's C reader does to communicator IDs before printing
/// (`CLOG_BlockData_patch_comm`): every ID is mapped through the table's local IDs;
/// events logged on an intercommunicator move to its local intracommunicator (the
/// next table entry), and a message's body `icomm` is replaced by the (mapped)
/// header communicator, or for intercommunicators by the remote intracommunicator
/// (two entries on).
fn c_patch_comm(r: &Record, table: &[clog2_format::CommEntry]) -> Record {
    let lid = |i: i32| table.get(i as usize).map_or(i, |e| e.local_id);
    let inter = |i: i32| {
        table
            .get(i as usize)
            .is_some_and(|e| e.kind == comm_kind::INTER)
    };
    let mut r = *r;
    match &mut r.body {
        Body::Bare(_) | Body::Cargo(_) if inter(r.icomm) => r.icomm = lid(r.icomm + 1),
        Body::Msg(m) => {
            if inter(r.icomm) {
                m.icomm = lid(r.icomm + 2);
                r.icomm = lid(r.icomm + 1);
            } else {
                m.icomm = lid(r.icomm);
                r.icomm = m.icomm;
            }
        }
        Body::Comm(c) => {
            if c.icomm != -999_999_999 {
                c.icomm = lid(c.icomm);
            }
            r.icomm = lid(r.icomm);
        }
        _ => r.icomm = lid(r.icomm),
    }
    r
}

#[test]
fn every_record_agrees_with_the_c_clog2_print_dump() {
    let Some(dir) = common::corpus() else { return };
    for (rel, _) in common::CLOG2_FILES {
        let file = Clog2File::parse(&common::read(&dir, rel)).unwrap();
        let expected = common::read_dump(&dir, &rel.replace(".clog2", ".clog2_print.txt"));
        let ours = c_dump(&file);
        if ours != expected {
            let (a, b) = (
                String::from_utf8_lossy(&ours),
                String::from_utf8_lossy(&expected),
            );
            for (i, (x, y)) in a.lines().zip(b.lines()).enumerate() {
                assert_eq!(x, y, "{rel}: line {} differs", i + 1);
            }
            panic!(
                "{rel}: dumps differ in length ({} vs {} lines)",
                a.lines().count(),
                b.lines().count()
            );
        }
        // Per-type counts, parsed from the dump itself.
        let mut theirs = std::collections::BTreeMap::new();
        for line in String::from_utf8_lossy(&expected).lines() {
            if let Some(t) = line.split(" type=").nth(1) {
                *theirs
                    .entry(t.split(' ').next().unwrap().to_string())
                    .or_insert(0u64) += 1;
            }
        }
        let mut mine = std::collections::BTreeMap::new();
        for r in file.records().filter(|r| !r.is_terminator()) {
            *mine
                .entry(rectype_name(r.rectype()).to_string())
                .or_insert(0u64) += 1;
        }
        assert_eq!(mine, theirs, "{rel}: record counts per type");
    }
}

/// Header fields of the Java `clog2print` dump: `RecHeader[ time=..., icomm=..,
/// rank=.., thread=.., rectype=.. ]`, with times in full precision.
fn java_headers(dump: &[u8]) -> Vec<(f64, i32, i32, i32, i32)> {
    let text = String::from_utf8_lossy(dump);
    text.lines()
        .filter_map(|l| l.strip_prefix("RecHeader[ "))
        .map(|l| {
            let v: Vec<&str> = l
                .trim_end_matches(" ]")
                .split(", ")
                .map(|kv| kv.split('=').nth(1).unwrap())
                .collect();
            (
                v[0].parse().unwrap(),
                v[1].parse().unwrap(),
                v[2].parse().unwrap(),
                v[3].parse().unwrap(),
                v[4].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn every_header_agrees_bit_for_bit_with_the_java_clog2print_dump() {
    let Some(dir) = common::corpus() else { return };
    let mut compared = 0;
    for (rel, _) in common::CLOG2_FILES {
        // The Java dump is omitted for the two multi-MB traces (corpus README).
        if rel.contains("many_events") || rel.contains("comm1_isr_loop") {
            continue;
        }
        let file = Clog2File::parse(&common::read(&dir, rel)).unwrap();
        let dump = common::read_dump(&dir, &rel.replace(".clog2", ".clog2print_java.txt"));
        let theirs = java_headers(&dump);
        let ours: Vec<_> = file
            .records()
            .map(|r| (r.time, r.icomm, r.rank, r.thread, r.rectype()))
            .collect();
        assert_eq!(ours.len(), theirs.len(), "{rel}: record count");
        for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            assert_eq!(
                a.0.to_bits(),
                b.0.to_bits(),
                "{rel}: record {i} time {} vs {}",
                a.0,
                b.0
            );
            assert_eq!(
                (a.1, a.2, a.3, a.4),
                (b.1, b.2, b.3, b.4),
                "{rel}: record {i}"
            );
        }
        compared += 1;
    }
    assert_eq!(compared, 24);
}
