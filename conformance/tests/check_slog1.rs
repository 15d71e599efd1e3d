//! The SLOG-1 rules of `mpelog check` (spec/conformance.md §7): for every rule a file
//! built with `slog1::build` and then patched to break it, checked through
//! `check_bytes`/`check_format`, with the rule ID and the exact byte offset; the
//! unbroken file has no finding; every corpus SLOG-1 file (`MPELOG_CORPUS`) has
//! no error.

use mpelog_conformance::check::slog1::RULES;
use mpelog_conformance::strategies::slog1::{arrow, state};
use mpelog_conformance::{
    check_bytes, check_format, check_path, Finding, Format, Options, Report, Severity,
};
use slog2_format::slog1::*;
use std::collections::BTreeMap;

fn opts() -> Options {
    Options::default().limit(1000)
}

fn def(intvltype: u16, bebits: u8, nassocs: u16, nargs: u16) -> RecDef {
    RecDef {
        intvltype,
        bebits,
        nassocs,
        nargs,
    }
}

/// Three ranks: a state over the whole run on rank 0 (pas copies), short states
/// with arguments, a split interval (begin, middle, final), arrows with an
/// association, and a variable-size record.
fn input() -> BuildInput {
    let mut records = vec![state(1, 3, 0.0, 10.0, 0, vec![])];
    for i in 0..20 {
        let t = 0.5 * i as f64;
        records.push(state(2, 3, t, 0.25, 1 + (i % 2) as u16, vec![i, 2 * i]));
        if i % 4 == 0 {
            records.push(arrow(t + 0.1, 0.3, 1, 2, i));
        }
    }
    records.push(state(3, 1, 2.0, 0.5, 2, vec![11]));
    records.push(state(3, 0, 2.5, 0.5, 2, vec![]));
    records.push(state(3, 2, 3.0, 0.5, 2, vec![12, 13]));
    records.push(IntervalRecord {
        rectype: 5,
        args: RecordArgs::Variable(vec![
            ArgGroup {
                values: vec![1, 2, 3],
            },
            ArgGroup { values: vec![] },
        ]),
        ..state(4, 3, 4.0, 1.0, 1, vec![])
    });
    BuildInput {
        preview: Vec::new(),
        threads: (0..3)
            .map(|n| ThreadInfo {
                node_id: n,
                thread_id: 0,
                os_process_id: 100 + n as u32,
                os_thread_id: 7,
                app_id: n as u32,
            })
            .collect(),
        profile: vec![
            ProfileEntry::new(1, 3, "state", "Running", "DimGrey", &[]),
            ProfileEntry::new(2, 3, "state", "Compute", "green", &["i", "twice"]),
            ProfileEntry::new(3, 1, "MPI_state", "MPI_Wait", "purple", &["req"]),
            ProfileEntry::new(3, 0, "MPI_state", "MPI_Wait", "purple", &[]),
            ProfileEntry::new(3, 2, "MPI_state", "MPI_Wait", "purple", &["src", "tag"]),
            ProfileEntry::new(4, 3, "state", "Variable", "red", &[]),
            ProfileEntry::new(10001, 3, "message", "forward arrow", "white", &["tag"]),
        ],
        recdefs: vec![
            def(1, 3, 0, 0),
            def(2, 3, 0, 2),
            def(3, 1, 0, 1),
            def(3, 0, 0, 0),
            def(3, 2, 0, 2),
            def(4, 3, 0, 0),
            def(10001, 3, 1, 1),
        ],
        records,
    }
}

/// The built model, with 64 spare bytes per frame (room to patch sectors).
fn model(input: &BuildInput) -> Slog1File {
    let mut f = build(
        input,
        BuildOptions::default()
            .frame_bytesize(300)
            .max_ndirframe(40)
            .nbin(16),
    )
    .unwrap();
    f.header.frame_bytesize += 64;
    f.lay_out();
    f
}

/// The bytes of a model (laid out anew).
fn bytes_of(mut f: Slog1File) -> Vec<u8> {
    f.lay_out();
    f.to_bytes().unwrap()
}

fn base() -> Vec<u8> {
    bytes_of(model(&input()))
}

fn parsed(b: &[u8]) -> Slog1File {
    Slog1File::parse(b).unwrap()
}

fn check(b: &[u8]) -> Report {
    let r = check_format(Format::Slog1, b, &opts());
    assert_eq!(r.format, Some(Format::Slog1));
    r
}

/// Asserts that the findings are exactly `rules`, in order, and returns them.
fn exactly(r: &Report, rules: &[&str]) -> Vec<Finding> {
    assert_eq!(r.rule_ids(), rules, "{:#?}", r.findings);
    r.findings.clone()
}

/// Asserts the one finding of `b`: `rule` at `offset`.
fn one(b: &[u8], rule: &str, offset: u64) -> Finding {
    let f = exactly(&check(b), &[rule]).remove(0);
    assert_eq!(f.offset, offset, "{f:#?}");
    let sev = RULES.iter().find(|r| r.id == rule).unwrap().severity;
    assert_eq!(f.severity, sev);
    assert!(f.message.len() > 30, "{f:?}");
    f
}

fn put16(d: &mut [u8], at: u64, v: u16) {
    d[at as usize..at as usize + 2].copy_from_slice(&v.to_be_bytes());
}

fn put32(d: &mut [u8], at: u64, v: u32) {
    d[at as usize..at as usize + 4].copy_from_slice(&v.to_be_bytes());
}

fn put64(d: &mut [u8], at: u64, v: u64) {
    d[at as usize..at as usize + 8].copy_from_slice(&v.to_be_bytes());
}

/// The first copy of a record in `sector` matching `pick`: (frame, index in the
/// sector, offset).
fn find(
    f: &Slog1File,
    sector: Sector,
    pick: impl Fn(&IntervalRecord) -> bool,
) -> (usize, usize, u64) {
    let r = f
        .records()
        .find(|r| r.sector == sector && pick(r.record))
        .expect("such a record");
    let idx = f.frames[r.frame]
        .sector(sector)
        .iter()
        .position(|x| std::ptr::eq(x, r.record))
        .unwrap();
    (r.frame, idx, r.offset)
}

/// Offset of the first home copy (cur or out) matching `pick`.
fn home(f: &Slog1File, pick: impl Fn(&IntervalRecord) -> bool) -> u64 {
    f.home_records()
        .find(|r| pick(r.record))
        .expect("such a record")
        .offset
}

/// Offset of the first copy in file order matching `pick`.
fn any(f: &Slog1File, pick: impl Fn(&IntervalRecord) -> bool) -> u64 {
    f.records()
        .find(|r| pick(r.record))
        .expect("such a record")
        .offset
}

/// The rule IDs the tests below break; compared with the table.
const TESTED: &[&str] = &[
    "S1-REJ-001",
    "S1-REJ-002",
    "S1-REJ-003",
    "S1-REJ-004",
    "S1-REJ-005",
    "S1-REJ-006",
    "S1-REJ-007",
    "S1-REJ-008",
    "S1-REJ-009",
    "S1-REJ-010",
    "S1-REJ-011",
    "S1-REJ-012",
    "S1-REJ-013",
    "S1-REJ-014",
    "S1-STAT-001",
    "S1-DIR-001",
    "S1-DIR-002",
    "S1-DIR-003",
    "S1-SEC-001",
    "S1-SEC-002",
    "S1-SEC-003",
    "S1-THR-001",
    "S1-THR-002",
    "S1-DEF-001",
    "S1-DEF-002",
    "S1-J3-001",
    "S1-J3-002",
    "S1-REC-001",
    "S1-SPLIT-001",
];

#[test]
fn every_rule_is_tested() {
    // (The table's shape, and its agreement with the spec: rules_spec.rs.)
    let ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
    assert_eq!(ids, TESTED);
    // Every warning of the reader has its own warning rule of the table.
    let mut seen = std::collections::BTreeSet::new();
    for &p in slog2_format::slog1::check::Problem::ALL {
        let r = mpelog_conformance::check::slog1::rule(p);
        assert!(RULES.contains(&r), "{p:?}");
        assert_eq!(r.severity, Severity::Warning, "{p:?}");
        assert!(seen.insert(r.id), "{p:?}: {} is another problem's", r.id);
    }
    assert_eq!(seen.len(), 15);
}

#[test]
fn the_built_file_has_no_finding() {
    let b = base();
    let f = parsed(&b);
    assert!(f.frames.len() > 5, "{} frames", f.frames.len());
    assert!(
        Sector::ALL
            .iter()
            .all(|&s| f.records().any(|r| r.sector == s)),
        "every sector is used"
    );
    let r = check_bytes(&b, &Options::default());
    assert_eq!(r.format, Some(Format::Slog1));
    assert_eq!(r.findings, vec![]);
}

// ---------------------------------------------------------------------------
// Rows of spec/slog1.md §13.

#[test]
fn rej_001_shorter_than_the_header() {
    let b = base();
    one(&b[..50], "S1-REJ-001", 50);
    one(&b[..73], "S1-REJ-001", 73);
    one(b"", "S1-REJ-001", 0);
}

#[test]
fn rej_002_not_version_0_9() {
    let mut b = base();
    b[7] = 8;
    let f = one(&b, "S1-REJ-002", 0);
    assert!(f.message.contains("version is 0.8"), "{}", f.message);
}

#[test]
fn rej_003_a_section_pointer_null_or_outside() {
    let b = base();
    for field in [26u64, 34, 42, 50, 58, 66] {
        let mut d = b.clone();
        put64(&mut d, field, 0);
        one(&d, "S1-REJ-003", field);
        put64(&mut d, field, b.len() as u64);
        one(&d, "S1-REJ-003", field);
    }
}

#[test]
fn rej_004_a_frame_smaller_than_its_header() {
    let mut b = base();
    put32(&mut b, 8, 31);
    one(&b, "S1-REJ-004", 8);
}

#[test]
fn rej_005_counts_that_cannot_fit() {
    let b = base();
    let h = parsed(&b).header;
    for at in [
        h.fptr2preview,
        h.fptr2threadtable,
        h.fptr2profile,
        h.fptr2recdefs,
        h.fptr2framedata + 16,
        h.fptr2statistics,
    ] {
        let mut d = b.clone();
        put32(&mut d, at, u32::MAX);
        one(&d, "S1-REJ-005", at);
    }
    // Statistics: Nset × (45 + 8·Nbin) reported at Nset.
    let mut d = b.clone();
    put32(&mut d, h.fptr2statistics + 4, 1 << 28);
    one(&d, "S1-REJ-005", h.fptr2statistics);
    // An argument label count (entry 1 has labels): at the count field.
    let mut d = b.clone();
    let nargs = h.fptr2profile + 4 + 211 + 6 * 35;
    d[nargs as usize..nargs as usize + 11].copy_from_slice(b"4000000000\0");
    one(&d, "S1-REJ-005", nargs);
}

#[test]
fn rej_006_a_structure_past_the_end() {
    let b = base();
    let stats = parsed(&b).header.fptr2statistics;
    // The statistics are last: cut inside their Nbin, or their time range.
    one(&b[..stats as usize + 6], "S1-REJ-006", stats);
    one(&b[..stats as usize + 12], "S1-REJ-006", stats);
    // The display profile moved to the end, with one entry whose label count
    // runs past the end: the count fits (211 bytes each), the entry does not.
    let entry1 = parsed(&b).header.fptr2profile as usize + 4 + 211;
    let mut d = b.clone();
    d.extend_from_slice(&1u32.to_be_bytes());
    d.extend_from_slice(&b[entry1..entry1 + 211]);
    put64(&mut d, 42, b.len() as u64);
    one(&d, "S1-REJ-006", b.len() as u64);
}

#[test]
fn rej_007_a_malformed_profile_entry() {
    let b = base();
    let entry0 = parsed(&b).header.fptr2profile + 4;
    let entry1 = entry0 + 211;
    // (byte, value, offset): field 3 without its TAB (the field); a TAB inside
    // field 4 (the field); interval type not a number, bebits 5, label flag 2, a
    // label count that is not a number, no LF at the end (the entry).
    let cases = [
        (entry0 + 3 * 35 + 34, b' ', entry0 + 3 * 35),
        (entry0 + 4 * 35 + 3, b'\t', entry0 + 4 * 35),
        (entry0, b'x', entry0),
        (entry0 + 35, b'5', entry0),
        (entry0 + 5 * 35, b'2', entry0),
        (entry1 + 6 * 35, b'x', entry1),
        (entry0 + 6 * 35, b'x', entry0),
    ];
    for (at, v, offset) in cases {
        let mut d = b.clone();
        d[at as usize] = v;
        one(&d, "S1-REJ-007", offset);
    }
}

#[test]
fn rej_008_a_definition_with_bebits_above_3() {
    let mut b = base();
    let bebits = parsed(&b).header.fptr2recdefs + 4 + 7 + 2;
    b[bebits as usize] = 4;
    let f = one(&b, "S1-REJ-008", bebits);
    assert!(f.message.contains("bebits code 4"), "{}", f.message);
}

#[test]
fn rej_009_a_bad_statistics_set() {
    let b = base();
    let sets = parsed(&b).header.fptr2statistics + 24;
    let mut d = b.clone();
    put16(&mut d, sets + 4, 34);
    one(&d, "S1-REJ-009", sets);
    // The second set's bin count.
    let mut d = b.clone();
    let set1 = sets + 45 + 8 * 16;
    put32(&mut d, set1 + 41, 15);
    one(&d, "S1-REJ-009", set1);
}

#[test]
fn rej_010_a_directory_entry_null_or_outside() {
    let b = base();
    let entry2 = parsed(&b).header.fptr2framedata + 20 + 2 * 24;
    let mut d = b.clone();
    put64(&mut d, entry2, 0);
    one(&d, "S1-REJ-010", entry2);
    put64(&mut d, entry2, b.len() as u64 - 100);
    one(&d, "S1-REJ-010", entry2);
}

#[test]
fn rej_011_sectors_larger_than_the_frame() {
    let b = base();
    let frame1 = parsed(&b).directory.entries[1].fptr2framehdr;
    let mut d = b.clone();
    put32(&mut d, frame1 + 24, 1000); // Nbytes_out
    one(&d, "S1-REJ-011", frame1);
}

#[test]
fn rej_012_a_sector_that_does_not_add_up() {
    let b = base();
    let f = parsed(&b);
    let frame0 = f.directory.entries[0].fptr2framehdr;
    // More records than bytes allow: the sector.
    let mut d = b.clone();
    put32(&mut d, frame0 + 4, 1000);
    one(&d, "S1-REJ-012", frame0 + 32);
    // Bytes left over after the records: the sector.
    let mut d = b.clone();
    let n = u32::from_be_bytes(d[frame0 as usize..frame0 as usize + 4].try_into().unwrap());
    put32(&mut d, frame0, n + 4);
    one(&d, "S1-REJ-012", frame0 + 32);
    // A record smaller than 34 bytes, or past the sector: the record.
    let rec = any(&f, |r| r.intvltype == 2);
    let mut d = b.clone();
    put16(&mut d, rec, 10);
    one(&d, "S1-REJ-012", rec);
    let mut d = b.clone();
    put16(&mut d, rec, 60_000);
    one(&d, "S1-REJ-012", rec);
}

#[test]
fn rej_013_a_malformed_record() {
    let b = base();
    let f = parsed(&b);
    let rec = any(&f, |r| r.intvltype == 2);
    // bebits above 3: the bebits byte.
    let mut d = b.clone();
    d[rec as usize + 6] = 7;
    one(&d, "S1-REJ-013", rec + 6);
    // No definition: the record.
    let mut d = b.clone();
    put16(&mut d, rec + 4, 999);
    let x = one(&d, "S1-REJ-013", rec);
    assert!(x.message.contains("no record definition"), "{}", x.message);
    // A fixed-size byte size that is not the definition's: the record.
    let mut d = b.clone();
    put16(&mut d, rec, 38);
    one(&d, "S1-REJ-013", rec);
    // An arrow shorter than its 41-byte fixed part: the record.
    let arr = any(&f, |r| r.is_arrow());
    let mut d = b.clone();
    put16(&mut d, arr, 36);
    one(&d, "S1-REJ-013", arr);
    // A variable-size record whose first group does not fit: the group.
    let var = any(&f, |r| r.rectype == 5);
    let mut d = b.clone();
    put16(&mut d, var + 34, 100);
    one(&d, "S1-REJ-013", var + 34);
}

#[test]
fn rej_014_overlapping_extents() {
    let b = base();
    let threads = parsed(&b).header.fptr2threadtable;
    // The preview moved into the thread table, onto entry 0's app_id (0): it
    // parses as an empty preview, and overlaps.
    let mut d = b.clone();
    put64(&mut d, 34, threads + 18);
    one(&d, "S1-REJ-014", threads + 18);
    // Two directory entries naming one frame: the second.
    let mut d = b.clone();
    let dir = parsed(&b).header.fptr2framedata;
    let frame1 = parsed(&b).directory.entries[1].fptr2framehdr;
    put64(&mut d, dir + 20 + 2 * 24, frame1);
    let f = one(&d, "S1-REJ-014", frame1);
    assert!(
        f.message.contains("frame 2 at byte") && f.message.contains("overlaps frame 1"),
        "{}",
        f.message
    );
}

// ---------------------------------------------------------------------------
// Warnings (spec/conformance.md §7.1).

#[test]
fn stat_001_empty_statistics() {
    let mut f = model(&input());
    f.statistics = Statistics {
        nset: 0,
        nbin: 0,
        body: None,
    };
    let b = bytes_of(f);
    let at = parsed(&b).header.fptr2statistics;
    let x = one(&b, "S1-STAT-001", at);
    assert_eq!(x.place.as_deref(), Some("the preview statistics"));
}

#[test]
fn dir_001_a_second_directory() {
    let mut f = model(&input());
    f.directory.nextdir = 5;
    let b = bytes_of(f);
    let at = parsed(&b).header.fptr2framedata;
    let x = one(&b, "S1-DIR-001", at);
    assert_eq!(x.place.as_deref(), Some("the frame directory"));
}

#[test]
fn dir_002_more_frames_than_slots() {
    let mut b = base();
    put32(&mut b, 16, 1);
    let at = parsed(&b).header.fptr2framedata + 16;
    one(&b, "S1-DIR-002", at);
}

#[test]
fn dir_003_frames_that_do_not_tile_time() {
    let mut f = model(&input());
    let e = &mut f.directory.entries;
    e[2].starttime = e[1].endtime - 1e-9;
    let b = bytes_of(f);
    let at = parsed(&b).header.fptr2framedata + 20 + 2 * 24;
    one(&b, "S1-DIR-003", at);
}

#[test]
fn sec_001_a_copy_in_the_wrong_sector() {
    let mut f = model(&input());
    let (frame, idx, _) = find(&f, Sector::Cur, |r| r.intvltype == 2);
    let fe = f.directory.entries[frame].endtime;
    let r = &mut f.frames[frame].cur[idx];
    r.duration = fe - r.starttime + 0.01;
    let b = bytes_of(f);
    let (_, _, at) = find(&parsed(&b), Sector::Cur, |r| r.intvltype == 2);
    let x = one(&b, "S1-SEC-001", at);
    assert_eq!(x.place, Some(format!("frame {frame}")));
}

#[test]
fn sec_002_a_copy_without_home() {
    let mut f = model(&input());
    let (frame, idx, _) = find(&f, Sector::Inc, |_| true);
    f.frames[frame].inc[idx].instr_addr = 0xdead;
    let b = bytes_of(f);
    let (_, _, at) = find(&parsed(&b), Sector::Inc, |_| true);
    one(&b, "S1-SEC-002", at);
}

#[test]
fn sec_003_two_home_copies() {
    // A record starting exactly at the start of frame 2, ending inside it: home
    // in frame 1's out sector and again in frame 2's cur sector (both meet the
    // closed-interval conditions).
    let mut f = model(&input());
    let start = f.directory.entries[2].starttime;
    let end = (start + f.directory.entries[2].endtime) / 2.0;
    let r = state(1, 3, start, end - start, 0, vec![]);
    f.frames[1].out.push(r.clone());
    f.frames[2].cur.push(r);
    let b = bytes_of(f);
    let p = parsed(&b);
    let (_, _, at) = find(&p, Sector::Cur, |r| {
        r.starttime == start && r.intvltype == 1
    });
    one(&b, "S1-SEC-003", at);
}

#[test]
fn thr_001_a_thread_listed_twice() {
    let mut f = model(&input());
    let t = f.threads.entries[1];
    f.threads.entries.push(t);
    let b = bytes_of(f);
    let at = parsed(&b).header.fptr2threadtable + 4 + 3 * 18;
    one(&b, "S1-THR-001", at);
}

#[test]
fn thr_002_a_thread_missing_from_the_table() {
    let mut f = model(&input());
    f.threads.entries.remove(2);
    let b = bytes_of(f);
    let at = home(&parsed(&b), |r| {
        r.origin.node == 2 || r.destination.is_some_and(|d| d.node == 2)
    });
    one(&b, "S1-THR-002", at);
}

#[test]
fn def_001_records_without_a_profile_entry() {
    let mut f = model(&input());
    f.profile.entries.retain(|p| p.itype() != 4);
    let b = bytes_of(f);
    let at = home(&parsed(&b), |r| r.intvltype == 4);
    one(&b, "S1-DEF-001", at);
}

#[test]
fn def_002_labels_that_differ_from_the_definition() {
    let mut inp = input();
    inp.profile[1] = ProfileEntry::new(2, 3, "state", "Compute", "green", &["i"]);
    let b = bytes_of(model(&inp));
    let at = parsed(&b).header.fptr2profile + 4 + 211;
    one(&b, "S1-DEF-002", at);
}

#[test]
fn j3_001_an_interval_type_above_32767() {
    let mut inp = input();
    inp.records.push(state(40000, 3, 5.0, 0.1, 0, vec![]));
    inp.recdefs.push(def(40000, 3, 0, 0));
    inp.profile
        .push(ProfileEntry::new(40000, 3, "state", "Big", "blue", &[]));
    let b = bytes_of(model(&inp));
    let p = parsed(&b);
    let prof_at = p.header.fptr2profile
        + 4
        + p.profile.entries[..7]
            .iter()
            .map(ProfileEntry::disk_len)
            .sum::<u64>();
    let rec_at = home(&p, |r| r.intvltype == 40000);
    let f = exactly(&check(&b), &["S1-J3-001", "S1-J3-001"]);
    assert_eq!((f[0].offset, f[1].offset), (prof_at, rec_at));
    assert_eq!(f[0].place.as_deref(), Some("the display profile"));
}

#[test]
fn j3_002_an_arrow_type_other_than_192() {
    let mut f = model(&input());
    for fr in &mut f.frames {
        for s in Sector::ALL {
            for r in fr.sector_mut(s) {
                if r.is_arrow() {
                    r.rectype = 200;
                }
            }
        }
    }
    let b = bytes_of(f);
    let at = home(&parsed(&b), |r| r.is_arrow());
    one(&b, "S1-J3-002", at);
}

#[test]
fn rec_001_a_negative_duration() {
    let mut f = model(&input());
    let (frame, idx, _) = find(&f, Sector::Cur, |r| r.intvltype == 2);
    f.frames[frame].cur[idx].duration = -0.1;
    let b = bytes_of(f);
    let (_, _, at) = find(&parsed(&b), Sector::Cur, |r| r.duration < 0.0);
    one(&b, "S1-REC-001", at);
}

#[test]
fn split_001_a_begin_piece_without_final() {
    let mut inp = input();
    inp.records.retain(|r| !(r.intvltype == 3 && r.bebits == 2));
    let b = bytes_of(model(&inp));
    let at = home(&parsed(&b), |r| r.intvltype == 3 && r.bebits == 1);
    one(&b, "S1-SPLIT-001", at);
}

#[test]
fn every_warning_counts_towards_the_limit() {
    // Every cur record with a negative duration: one S1-REC-001 each, kept up to
    // the limit, without the reader's "more warnings" summary.
    let mut f = model(&input());
    let mut n = 0;
    for fr in &mut f.frames {
        for r in &mut fr.cur {
            r.duration = -0.1;
            n += 1;
        }
    }
    assert!(n > 25, "{n} cur records");
    let b = bytes_of(f);
    let r = check_bytes(&b, &opts());
    assert_eq!(r.rule_ids(), vec!["S1-REC-001"; n]);
    let r = check_bytes(&b, &Options::default());
    assert_eq!(r.rule_ids(), vec!["S1-REC-001"; 20]);
    assert!(r.findings.iter().all(|f| f.message.starts_with("start ")));
}

// ---------------------------------------------------------------------------
// The corpus.

/// The SLOG-1 files of the corpus (spec/slog1.md §16) and the warnings each gets
/// (rule → count).
const CORPUS: &[(&str, &[(&str, usize)])] = &[
    ("sample.slog", &[]),
    ("sppm_ic2a.slog", &[]),
    ("invalid.slog", &[("S1-SPLIT-001", 1)]),
];

#[test]
fn corpus_files_have_no_error() {
    let Some(root) = mpelog_conformance::corpus::root() else {
        return;
    };
    for (name, want) in CORPUS {
        let p = root.join("mpich1/slog1").join(name);
        assert!(p.is_file(), "{} is missing", p.display());
        let r = check_path(&p, &opts()).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert_eq!(r.format, Some(Format::Slog1), "{name}");
        println!("{name}: {} errors, {} warnings", r.errors(), r.warnings());
        for f in &r.findings {
            println!(
                "  {} {} byte {} {}: {}",
                f.rule,
                f.severity,
                f.offset,
                f.place.as_deref().unwrap_or("-"),
                f.message
            );
        }
        assert!(r.passes(), "{name}: {:#?}", r.findings);
        let mut got: BTreeMap<&str, usize> = BTreeMap::new();
        for f in &r.findings {
            *got.entry(f.rule).or_default() += 1;
        }
        let want: BTreeMap<&str, usize> = want.iter().copied().collect();
        assert_eq!(got, want, "{name}");
        if *name == "invalid.slog" {
            assert_eq!(r.findings[0].offset, 538850);
        }
    }
}
