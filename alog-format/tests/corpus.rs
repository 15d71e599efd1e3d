//! The ALOG samples shipped with MPICH-1 (corpus `mpich1/alog/`, see
//! `reference/alog-layout.md` §10): every file parses, its counts and time range
//! are those of the reference (the `-2`, `-3`, `-6`, `-7` header records agree with
//! the body), canonical files write back byte for byte and the others record for
//! record. (The conversion to SLOG-2 is tested in
//! slog2-format's `convert_alog`.)

mod common;

use alog_format::dump::summary;
use alog_format::AlogFile;

/// Expected facts of one sample.
struct Expect {
    name: &'static str,
    /// Records (lines).
    records: u64,
    /// Event records (types ≥ 0 or ≤ -101); equals the `-2` value.
    events: u64,
    /// Distinct processes of the events, all of 0 … n-1; equals the `-3` value.
    procs: u64,
    /// Earliest and latest event timestamp (µs); the latest equals `-7`.
    range: (f64, f64),
    /// The `-6` start time (µs).
    start: f64,
    /// Valid `-13` records.
    state_defs: u64,
    /// `-101` / `-102` records with tag and size.
    messages: u64,
    /// Whether the file is in canonical form (byte-identical round trip).
    canonical: bool,
}

const EXPECT: &[Expect] = &[
    Expect {
        name: "cpilog.alog",
        records: 173,
        events: 160,
        procs: 4,
        range: (0.0, 2725711.0),
        start: 0.0,
        state_defs: 4,
        messages: 0,
        canonical: true,
    },
    Expect {
        name: "srtest.alog",
        records: 114,
        events: 102,
        procs: 3,
        range: (0.0, 412568.0),
        start: 0.0,
        state_defs: 3,
        messages: 15,
        canonical: true,
    },
    Expect {
        name: "cpilog.log",
        records: 253,
        events: 240,
        procs: 6,
        range: (37508.0, 2790110.0),
        start: 53.0,
        state_defs: 4,
        messages: 0,
        canonical: true,
    },
    Expect {
        name: "monte.log",
        records: 771,
        events: 758,
        procs: 8,
        range: (2565207.0, 12486000.0),
        start: 0.0,
        state_defs: 4,
        messages: 127,
        canonical: true,
    },
    Expect {
        name: "gmm.log",
        records: 74,
        events: 62,
        procs: 2,
        range: (7981913.0, 12100648.0),
        start: 412.0,
        state_defs: 3,
        messages: 0,
        canonical: true,
    },
    Expect {
        name: "fpilog_profile.log",
        records: 198,
        events: 64,
        procs: 4,
        range: (379.0, 5505275.0),
        start: 302.0,
        state_defs: 125,
        messages: 0,
        canonical: true,
    },
    Expect {
        name: "systest_profile.log",
        records: 226,
        events: 192,
        procs: 3,
        range: (0.0, 63590846.0),
        start: 0.0,
        state_defs: 25,
        messages: 0,
        canonical: true,
    },
    Expect {
        name: "sam_hyp.16.log",
        records: 625,
        events: 593,
        procs: 16,
        range: (2025436865.0, 2028176869.0),
        start: 2025436865.0,
        state_defs: 5,
        messages: 0,
        canonical: false,
    },
    Expect {
        name: "gmmlog_profile.log.Z",
        records: 10834,
        events: 10800,
        procs: 6,
        range: (0.0, 21502634.0),
        start: 0.0,
        state_defs: 25,
        messages: 0,
        canonical: true,
    },
];

#[test]
fn every_sample_is_listed() {
    assert_eq!(EXPECT.len(), common::FILES.len());
    for (e, f) in EXPECT.iter().zip(common::FILES) {
        assert_eq!(e.name, *f);
    }
}

#[test]
fn samples_parse_with_the_reference_counts_and_time_ranges() {
    let Some(dir) = common::corpus() else { return };
    for e in EXPECT {
        let data = common::read(&dir, e.name);
        let f = AlogFile::parse(&data).unwrap_or_else(|err| panic!("{}: {err}", e.name));
        let s = summary(&f);
        let n = e.name;
        assert_eq!(s.records, e.records, "{n}: records");
        assert_eq!(s.event_records, e.events, "{n}: events");
        assert_eq!(
            s.header_records,
            e.records - e.events,
            "{n}: header records"
        );
        assert_eq!(s.declared_events, Some(e.events as i32), "{n}: -2 = body");
        assert_eq!(s.processes, e.procs, "{n}: processes");
        assert_eq!(
            s.process_range,
            Some((0, e.procs as i32 - 1)),
            "{n}: process range"
        );
        assert_eq!(s.declared_processes, Some(e.procs as i32), "{n}: -3 = body");
        assert_eq!(s.time_range_us, Some(e.range), "{n}: time range");
        assert_eq!(
            s.time_range_s(),
            Some((e.range.0 / 1e6, e.range.1 / 1e6)),
            "{n}: time range in seconds"
        );
        assert_eq!(
            s.declared_times_us,
            (Some(e.start), Some(e.range.1)),
            "{n}: -6, -7"
        );
        assert!(e.start <= e.range.0, "{n}: -6 before the first event");
        assert_eq!(s.state_defs, e.state_defs, "{n}: state definitions");
        assert_eq!(
            (s.sends, s.recvs),
            (e.messages, e.messages),
            "{n}: messages"
        );
        assert!(s.time_sorted, "{n}: events in time order");
        assert_eq!(
            s.rollover_us,
            if n.starts_with("sam_hyp") {
                4294967295.0
            } else {
                0.0
            }
        );
        // Every cycle is 0 in the samples.
        assert!(f.records.iter().all(|r| r.cycle == 0), "{n}: cycles");
        // nupshot reads the header up to the first event: it is complete there.
        assert!(s.header_first, "{n}: header before events");
        let lines = alog_format::dump::lines(&f);
        assert_eq!(lines.len() as u64, e.records);
    }
}

#[test]
fn canonical_samples_round_trip_byte_for_byte_others_record_for_record() {
    let Some(dir) = common::corpus() else { return };
    for e in EXPECT {
        let data = common::read(&dir, e.name);
        let f = AlogFile::parse(&data).unwrap();
        let out = f.to_bytes().unwrap();
        assert_eq!(AlogFile::is_canonical(&data), e.canonical, "{}", e.name);
        if e.canonical {
            assert!(out == data, "{}: canonical bytes differ", e.name);
        } else {
            assert!(out != data, "{}", e.name);
        }
        let back = AlogFile::parse(&out).unwrap();
        assert_eq!(back, f, "{}: records after a canonical write", e.name);
        assert_eq!(
            back.to_bytes().unwrap(),
            out,
            "{}: canonical form is a fixed point",
            e.name
        );
    }
}

#[test]
fn p4_sample_differs_only_in_separators() {
    let Some(dir) = common::corpus() else { return };
    let data = common::read(&dir, "sam_hyp.16.log");
    let f = AlogFile::parse(&data).unwrap();
    // mergelogs puts two spaces before the comment (three after the -11 record):
    // removing the extra blanks gives the canonical bytes.
    let text = String::from_utf8(data).unwrap();
    let squeezed: String = text
        .lines()
        .map(|l| {
            let mut parts = l.splitn(7, ' ').collect::<Vec<_>>();
            if parts.len() == 7 {
                let c = parts[6].trim_start();
                parts[6] = c;
            }
            parts.join(" ") + "\n"
        })
        .collect();
    assert_eq!(String::from_utf8(f.to_bytes().unwrap()).unwrap(), squeezed);
    // The header is not first in mergelogs order, and carries real times.
    assert_eq!(f.records[0].etype, -2);
    let creator = f.header(-1).unwrap();
    assert_eq!(creator.comment_bytes(), b"P4 May- 9-90");
    assert_eq!(creator.timestamp, 2023363901.0);
    assert_eq!(f.header(-11).unwrap().comment_bytes(), b"");
}

#[test]
fn z_sample_unpacks_like_gzip() {
    let Some(dir) = common::corpus() else { return };
    let data = common::read(&dir, "gmmlog_profile.log.Z");
    // Sizes from the reference (`gzip -dc` gives 247555 bytes in 10834 lines).
    assert_eq!(data.len(), 247555);
    assert_eq!(data.iter().filter(|&&b| b == b'\n').count(), 10834);
    assert!(data.starts_with(b"-1 0 0 0 0 0 Me\n-2 0 0 10800 0 0\n"));
    assert!(data.ends_with(b"\n"));
}
