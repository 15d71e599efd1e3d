//! Tests of the synthetic trace generator: determinism, losslessness, size, and the
//! structural properties MPE's tools rely on (time order, state nesting, message
//! matching, declared communicators).

use clog2_format::record::{comm_etype, rectype, RECV_ETYPE, SEND_ETYPE};
use clog2_format::synth::{self, Options, Stats};
use clog2_format::{Body, Clog2File, Clog2Reader, Record};
use std::collections::{HashMap, HashSet, VecDeque};
use std::io::{Seek, SeekFrom, Write};

fn opts(ranks: u32, events: u64, seed: u64) -> Options {
    Options::default().ranks(ranks).events(events).seed(seed)
}

fn records(bytes: &[u8]) -> Vec<Record> {
    let mut r = Clog2Reader::from_slice(bytes).unwrap();
    let v: Vec<Record> = r.records().map(|x| x.unwrap()).collect();
    r.finish().unwrap();
    v.into_iter().filter(|r| !r.is_terminator()).collect()
}

#[test]
fn deterministic() {
    let a = synth::generate_vec(&opts(4, 5000, 7)).unwrap();
    let b = synth::generate_vec(&opts(4, 5000, 7)).unwrap();
    assert_eq!(a, b);
    let c = synth::generate_vec(&opts(4, 5000, 8)).unwrap();
    assert_ne!(a, c);
}

#[test]
fn parses_and_round_trips() {
    for (ranks, events, bs) in [
        (1, 300, 65536),
        (2, 3000, 1024),
        (3, 4000, 168),
        (7, 8000, 4096),
    ] {
        let o = Options::default()
            .ranks(ranks)
            .events(events)
            .seed(3)
            .block_size(bs);
        let (cur, stats) = synth::generate(std::io::Cursor::new(Vec::new()), &o).unwrap();
        let bytes = cur.into_inner();
        let f = Clog2File::parse(&bytes).unwrap();
        assert_eq!(f.to_bytes().unwrap(), bytes, "ranks {ranks} bs {bs}");
        let info = f.preamble.info();
        assert_eq!(info.block_size, bs);
        assert_eq!(info.comm_world_size, Some(ranks as i32));
        assert_eq!(info.user_state_id_count, Some(4));
        assert_eq!(info.known_solo_event_id_count, Some(2));
        assert_eq!(info.user_solo_event_id_count, Some(3));
        assert_eq!(stats.bytes, bytes.len() as u64);
        assert_eq!(stats.blocks, f.blocks.len() as u64);
        let n = f.records().filter(|r| !r.is_terminator()).count() as u64;
        assert_eq!(stats.records, n);
        let table = f.comm_table.as_ref().unwrap();
        assert_eq!(table.entries.len() as u64, stats.communicators);
        assert_eq!(
            table.entries.len(),
            ranks as usize + 2 + usize::from(ranks > 1)
        );
        for (i, e) in table.entries.iter().enumerate() {
            assert_eq!(e.local_id, i as i32);
            assert_eq!(e.gcomm.name.c_bytes(), b"synth");
            assert!(e.gcomm.rand >= 0 && e.gcomm.time > 0.0);
            assert_eq!(e.kind, if i <= 2 { 1 } else { -1 });
        }
        check_structure(&bytes, ranks);
    }
}

#[test]
fn record_count_near_target() {
    for ranks in [1, 4, 16] {
        let bytes = synth::generate_vec(&opts(ranks, 20_000, 1)).unwrap();
        let n = records(&bytes).len() as f64;
        assert!((n - 20_000.0).abs() <= 1000.0, "ranks {ranks}: {n} records");
    }
    // Fewer events than the fixed part: just the start and the end.
    let bytes = synth::generate_vec(&opts(4, 0, 1)).unwrap();
    let n = records(&bytes).len();
    assert!(n > 40 && n < 120, "{n}");
    check_structure(&bytes, 4);
}

#[test]
fn structure_many_seeds() {
    for seed in 0..6 {
        for ranks in [1, 2, 5, 8] {
            let bytes = synth::generate_vec(&opts(ranks, 6000, seed)).unwrap();
            check_structure(&bytes, ranks);
        }
    }
}

/// Dense traces keep every structural property (small ones: the check asks
/// larger traces for messages in the split halves, which a dense one has not).
#[test]
fn dense_structure_many_seeds() {
    for seed in 0..4 {
        for ranks in [1, 2, 3, 4, 7] {
            let bytes = synth::generate_vec(&opts(ranks, 1900, seed).dense(true)).unwrap();
            check_structure(&bytes, ranks);
        }
    }
}

/// A dense trace: after the start, every rank is in `MPI_Sendrecv` (events
/// 162 and 163) at least 99.5 % of the time, and every message goes to a
/// ring neighbour; a quarter of the records are sends.
#[test]
fn dense_ranks_are_almost_always_in_sendrecv_with_their_neighbours() {
    for ranks in [3u32, 4, 8] {
        let o = opts(ranks, 80_000, 5).dense(true);
        let (out, stats) = synth::generate(std::io::Cursor::new(Vec::new()), &o).unwrap();
        let recs = records(out.get_ref());
        let n = ranks as i32;
        // Per world rank: the first Sendrecv start, the last end, the time inside.
        let mut span: HashMap<i32, (f64, f64, f64, Option<f64>)> = HashMap::new();
        let mut sends = 0u64;
        for r in recs.iter().filter(|r| r.icomm == 0) {
            let e = span
                .entry(r.rank)
                .or_insert((f64::INFINITY, f64::NEG_INFINITY, 0.0, None));
            match &r.body {
                Body::Bare(b) if b.etype == 162 => {
                    e.0 = e.0.min(r.time);
                    e.3 = Some(r.time);
                }
                Body::Bare(b) if b.etype == 163 => {
                    let start = e.3.take().expect("a Sendrecv ends after it starts");
                    e.1 = r.time;
                    e.2 += r.time - start;
                }
                Body::Msg(m) if m.etype == SEND_ETYPE => {
                    sends += 1;
                    let d = (m.rank - r.rank).rem_euclid(n);
                    assert!(d == 1 % n || d == (n - 1) % n, "{r:?} to a neighbour");
                }
                _ => {}
            }
        }
        assert_eq!(span.len(), ranks as usize);
        for (rank, (a, b, inside, open)) in span {
            assert!(open.is_none());
            let share = inside / (b - a);
            assert!(
                share >= 0.995,
                "rank {rank}: {:.3} % in Sendrecv",
                100.0 * share
            );
        }
        assert_eq!(sends, stats.messages);
        let quarter = recs.len() as f64 / 4.0;
        assert!(
            (sends as f64 - quarter).abs() < quarter * 0.02,
            "{sends} of {}",
            recs.len()
        );
    }
}

/// Time order, nesting, message matching, declared lines, definitions, cargo.
fn check_structure(bytes: &[u8], ranks: u32) {
    let recs = records(bytes);
    // Times non-decreasing.
    for w in recs.windows(2) {
        assert!(w[0].time <= w[1].time, "{:?} then {:?}", w[0], w[1]);
    }
    assert!(recs[0].time > 0.0);

    // Definitions (MPI states are defined at the end, so collect them first).
    let mut start_of_final = HashMap::new();
    let mut final_of_start = HashMap::new();
    let mut formats = HashMap::new();
    let mut solo = HashSet::new();
    for r in &recs {
        match &r.body {
            Body::StateDef(d) => {
                assert_eq!(d.final_etype, d.start_etype + 1);
                if d.state_id < 300 {
                    assert_eq!(d.start_etype, 2 * d.state_id);
                } else {
                    assert_eq!(d.start_etype, 600 + 2 * (d.state_id - 300));
                }
                assert!(final_of_start
                    .insert(d.start_etype, d.final_etype)
                    .is_none());
                start_of_final.insert(d.final_etype, d.start_etype);
                formats.insert(d.final_etype, d.format.to_string_lossy());
            }
            Body::EventDef(d) => {
                assert!(solo.insert(d.etype));
                formats.insert(d.etype, d.format.to_string_lossy());
            }
            _ => {}
        }
    }
    assert!(solo.contains(&-10) && solo.contains(&-9));
    assert_eq!(final_of_start.get(&560), Some(&561));
    if recs.len() > 2000 {
        assert_eq!(final_of_start.get(&160), Some(&161));
    }
    let consts = recs
        .iter()
        .filter(|r| matches!(r.body, Body::ConstDef(_)))
        .count();
    assert_eq!(consts, 3);

    // Every etype used is defined; states nest per (icomm, rank, thread) line.
    let mut stacks: HashMap<(i32, i32, i32), Vec<i32>> = HashMap::new();
    let mut declared: HashSet<(i32, i32)> = HashSet::new();
    let mut world_of: HashMap<(i32, i32), i32> = HashMap::new();
    // (sender line, receiver line, tag) -> FIFO of (send time, size).
    type Line = (i32, i32);
    let mut pending: HashMap<(Line, Line, i32), VecDeque<(f64, i32)>> = HashMap::new();
    let mut msg_lines = Vec::new();
    let mut sends = 0;
    let mut saw_split_msg = false;
    let mut first_of_rank = HashSet::new();
    for r in &recs {
        let line = (r.icomm, r.rank);
        if let Body::Comm(c) = &r.body {
            if c.etype != comm_etype::FREE {
                declared.insert((c.icomm, c.rank));
                world_of.insert((c.icomm, c.rank), c.wrank);
            } else {
                assert_eq!((c.icomm, c.rank, c.wrank), (-999_999_999, -1, -1));
            }
        }
        // Each process's first record is its TIMESHIFT, logged before WORLD_CREATE.
        let exempt =
            r.rectype() == rectype::TIMESHIFT && r.icomm == 0 && first_of_rank.insert(r.rank);
        assert!(
            exempt || declared.contains(&line),
            "undeclared line in {r:?}"
        );
        assert_eq!(r.thread, 0);
        match &r.body {
            Body::Bare(b) => {
                let e = b.etype;
                if let Some(&f) = final_of_start.get(&e) {
                    stacks
                        .entry((r.icomm, r.rank, r.thread))
                        .or_default()
                        .push(f);
                } else if let Some(&s) = start_of_final.get(&e) {
                    let top = stacks.entry((r.icomm, r.rank, r.thread)).or_default().pop();
                    assert_eq!(top, Some(e), "final {e} (start {s}) badly nested in {r:?}");
                    assert_eq!(formats[&e], "", "state final {e} has a format but no cargo");
                } else {
                    assert!(solo.contains(&e), "undefined etype {e}");
                    assert_eq!(formats[&e], "");
                }
            }
            Body::Cargo(c) => {
                let e = c.etype;
                if start_of_final.contains_key(&e) {
                    let top = stacks.entry((r.icomm, r.rank, r.thread)).or_default().pop();
                    assert_eq!(top, Some(e), "cargo final {e} badly nested");
                } else {
                    assert!(solo.contains(&e) && e >= 5000, "undefined cargo etype {e}");
                }
                let fmt = &formats[&e];
                assert!(!fmt.is_empty());
                check_cargo(fmt, &c.bytes.0);
            }
            Body::Msg(m) => {
                let remote = (m.icomm, m.rank);
                msg_lines.push(remote);
                if r.icomm != 0 {
                    saw_split_msg = true;
                }
                assert_eq!(m.icomm, r.icomm);
                if m.etype == SEND_ETYPE {
                    sends += 1;
                    pending
                        .entry((line, remote, m.tag))
                        .or_default()
                        .push_back((r.time, m.size));
                } else {
                    assert_eq!(m.etype, RECV_ETYPE);
                    let (t, size) = pending
                        .get_mut(&(remote, line, m.tag))
                        .and_then(|q| q.pop_front())
                        .unwrap_or_else(|| panic!("receive before its send: {r:?}"));
                    assert!(t < r.time);
                    assert_eq!(size, m.size);
                }
            }
            _ => {}
        }
    }
    assert_eq!(first_of_rank.len(), ranks as usize);
    for (l, s) in &stacks {
        assert!(s.is_empty(), "unfinished states on {l:?}: {s:?}");
    }
    assert!(pending.values().all(|q| q.is_empty()), "unmatched sends");
    for l in msg_lines {
        assert!(declared.contains(&l), "message partner {l:?} not declared");
    }
    // Every world rank has its WORLD and SELF, and belongs to a split half.
    for w in 0..ranks as i32 {
        assert_eq!(world_of.get(&(0, w)), Some(&w));
        assert_eq!(world_of.values().filter(|&&x| x == w).count(), 3);
    }
    if recs.len() > 2000 {
        assert!(sends > 0 && saw_split_msg);
    }
}

/// Checks that the payload decodes as `MPE_Log_pack` tokens of `fmt` in 32 bytes.
fn check_cargo(fmt: &str, b: &[u8; 32]) {
    let mut pos = 0usize;
    let mut chars = fmt.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            continue;
        }
        let n = match chars.next().unwrap() {
            'd' | 'x' | 'e' => 4,
            'h' => 2,
            'l' | 'X' | 'E' => 8,
            's' => {
                let len = i16::from_be_bytes([b[pos], b[pos + 1]]);
                assert!(len >= 0);
                let s = &b[pos + 2..pos + 2 + len as usize];
                assert!(s.iter().all(|c| c.is_ascii_graphic()));
                2 + len as usize
            }
            other => panic!("unexpected token %{other}"),
        };
        if fmt.contains("val=%E") && pos == 4 {
            let v = f64::from_be_bytes(b[4..12].try_into().unwrap());
            assert!(v > 0.0 && v.is_finite());
        }
        pos += n;
        assert!(pos <= 32);
    }
    assert!(b[pos..].iter().all(|&x| x == 0));
}

#[test]
fn invalid_options_are_errors() {
    let bad = [
        Options::default().ranks(0),
        Options::default().ranks(synth::MAX_RANKS + 1),
        Options::default().ranks(u32::MAX),
        Options::default().block_size(0),
        Options::default().block_size(160),
        Options::default().block_size(1001),
        Options::default().block_size((1 << 30) + 8),
        Options::default().block_size(u32::MAX),
    ];
    for o in bad {
        assert!(o.validate().is_err(), "{o:?}");
        let e = synth::generate_vec(&o).unwrap_err();
        assert!(matches!(e, clog2_format::Error::InvalidOptions(_)), "{e}");
    }
    // Edge values that are fine.
    for o in [
        Options::default()
            .block_size(synth::MIN_BLOCK_SIZE)
            .events(500),
        Options::default().ranks(1).events(0).seed(u64::MAX),
    ] {
        let bytes = synth::generate_vec(&o).unwrap();
        assert_eq!(Clog2File::parse(&bytes).unwrap().to_bytes().unwrap(), bytes);
    }
}

#[test]
fn progress_is_reported() {
    let mut calls = Vec::new();
    let (_, stats) = synth::generate_with_progress(
        std::io::Cursor::new(Vec::new()),
        &opts(4, 200_000, 1),
        &mut |n| calls.push(n),
    )
    .unwrap();
    assert!(calls.len() >= 3, "{calls:?}");
    assert!(calls.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(*calls.last().unwrap(), stats.records);
    assert!(calls[0] >= synth::PROGRESS_INTERVAL && calls[0] < synth::PROGRESS_INTERVAL + 100);
}

/// A `Write + Seek` that keeps only a count of the bytes (and the preamble).
#[derive(Default)]
struct CountingSink {
    pos: u64,
    len: u64,
    head: Vec<u8>,
}

impl Write for CountingSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.pos < 1024 {
            let end = (self.pos as usize + buf.len()).min(1024);
            self.head.resize(self.head.len().max(end), 0);
            let k = end - self.pos as usize;
            self.head[self.pos as usize..end].copy_from_slice(&buf[..k]);
        }
        self.pos += buf.len() as u64;
        self.len = self.len.max(self.pos);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Seek for CountingSink {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        self.pos = match to {
            SeekFrom::Start(p) => p,
            SeekFrom::End(d) => self.len.checked_add_signed(d).unwrap(),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d).unwrap(),
        };
        Ok(self.pos)
    }
}

fn big(events: u64) -> (CountingSink, Stats, std::time::Duration) {
    let t = std::time::Instant::now();
    let (sink, stats) = synth::generate(CountingSink::default(), &opts(8, events, 5)).unwrap();
    (sink, stats, t.elapsed())
}

/// Two million records stream through in bounded memory (only one iteration is
/// buffered; the sink keeps nothing).
#[test]
fn large_output_streams() {
    let (sink, stats, _) = big(2_000_000);
    assert_eq!(sink.len, stats.bytes);
    assert!((stats.records as f64 - 2e6).abs() < 2e4, "{stats:?}");
    assert!(stats.bytes > 60_000_000, "{stats:?}");
    let p = clog2_format::Preamble::parse(&sink.head).unwrap();
    let fptr = p.info().commtable_fptr.unwrap();
    assert_eq!(fptr, 1024 + stats.blocks * 65536);
    assert_eq!(stats.bytes, fptr + 4 + 40 * stats.communicators);
    assert!(stats.time_max > 1.0);
    assert!(stats.messages > 100_000 && stats.collectives > 1000);
}

/// Generation speed in release mode:
/// `cargo test --release -p clog2-format --test synth -- --ignored --nocapture`.
#[test]
#[ignore = "timing; run in release mode"]
fn speed() {
    let _ = big(1_000_000);
    let (_, stats, el) = big(40_000_000);
    let mb = stats.bytes as f64 / 1e6;
    println!(
        "synth: {} records, {:.0} MB in {:.2} s: {:.0} MB/s, {:.1} M records/s",
        stats.records,
        mb,
        el.as_secs_f64(),
        mb / el.as_secs_f64(),
        stats.records as f64 / el.as_secs_f64() / 1e6
    );
    println!("{stats:#?}");
}
