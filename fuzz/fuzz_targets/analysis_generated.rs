//! The analysis of generated traces never panics, and its sums add up.
//!
//! The bytes shape a small trace fed to [`mpelog::analysis::Analyzer`] in
//! start order, as every reader feeds it: MPI calls (point-to-point,
//! collectives, Init/Finalize, Waitall) and user states on up to 8
//! timelines at arbitrary times, overlapping or nested or neither, and
//! messages between arbitrary timelines at arbitrary times (receives before
//! sends, ends outside any call, never matched). The options (window, root,
//! instances kept, sweep interval) come from the bytes too, and whether the
//! trace has a process view (the world's size known: instances complete and
//! are given up as the trace goes) and collective records naming a
//! communicator, a rank and a size (as an OTF2 conversion's, any values).
//!
//! Whatever the trace: every pattern's seconds equal the sum of its
//! per-timeline seconds, of its per-call-path seconds and of its cells;
//! none is negative or not finite; a sub-pattern never exceeds its parent;
//! the time per call path is finite; and the report becomes a CUBE file ([`mpelog::analysis::to_cube`]).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mpelog::analysis::{to_cube, Analyzer, Options, Pattern};
use mpelog::slices::Piece;
use slog2_format::convert::arrow_category;
use slog2_format::types::{topology, Category, JStr};

const NAMES: &[&str] = &[
    "MPI_Send",
    "MPI_Recv",
    "MPI_Barrier",
    "MPI_Allreduce",
    "MPI_Bcast",
    "MPI_Reduce",
    "MPI_Scan",
    "MPI_Init",
    "MPI_Finalize",
    "MPI_Waitall",
    "MPI_Isend",
    "work",
    "solve",
];

/// Reads the bytes a little at a time (zeros once they run out).
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    fn u16(&mut self) -> u16 {
        u16::from(self.u8()) << 8 | u16::from(self.u8())
    }
    /// A time in [0, 65.535] ms, on a 1 µs grid (ties are frequent).
    fn time(&mut self) -> f64 {
        f64::from(self.u16()) * 1e-6
    }
}

struct Shape {
    category: i32,
    first: (f64, i32),
    last: (f64, i32),
    info: Vec<u8>,
}

/// The info of a collective record (an OTF2 conversion's `collective <op>`
/// state): comm, root, sent, received, rank, size.
fn record_info(comm: i32, rank: i32, size: i32) -> Vec<u8> {
    let mut v = Vec::with_capacity(32);
    v.extend(comm.to_be_bytes());
    v.extend(0i32.to_be_bytes());
    v.extend(0i64.to_be_bytes());
    v.extend(0i64.to_be_bytes());
    v.extend(rank.to_be_bytes());
    v.extend(size.to_be_bytes());
    v
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes(data);
    let lines = 1 + i32::from(b.u8() % 8);
    let flags = b.u8();
    let mut opts = Options::default()
        .root(i32::from(b.u8() % 4))
        .instances(usize::from(b.u8() % 4))
        .sweep_every(1 + u64::from(b.u8() % 8));
    if flags & 1 != 0 {
        let (from, to) = (b.time(), b.time());
        opts = opts.window(Some(from.min(to)), (flags & 2 != 0).then_some(from.max(to)));
    }
    let mut categories = vec![arrow_category()];
    for (i, name) in NAMES.iter().enumerate() {
        categories.push(Category {
            index: i as i32 + 1,
            name: JStr::new(name),
            topology: topology::STATE,
            ..arrow_category()
        });
    }
    // Collective records naming a communicator, a rank and a size (flag 8).
    let record = NAMES.len() as i32 + 1;
    if flags & 8 != 0 {
        categories.push(Category {
            index: record,
            name: JStr::new("collective BARRIER"),
            topology: topology::STATE,
            types: b"ddlldd".to_vec(),
            ..arrow_category()
        });
    }
    // A process view (flag 4): the world's size is known, so instances
    // complete (and are given up) as the trace goes.
    let maps = if flags & 4 != 0 {
        vec![slog2_format::write::one_column_map(
            "Process View",
            "world_rank",
            0..lines,
        )]
    } else {
        Vec::new()
    };
    // Drawables: 5 bytes a state (category, line, start, length), 6 an
    // arrow; at most 256.
    let mut shapes = Vec::new();
    while !b.0.is_empty() && shapes.len() < 256 {
        let kind = b.u8();
        let line = i32::from(kind >> 4) % lines;
        if kind & 15 == 15 {
            let to = i32::from(b.u8()) % lines;
            let (sent, received) = (b.time(), b.time());
            shapes.push(Shape {
                category: arrow_category().index,
                first: (sent, line),
                last: (received, to),
                info: Vec::new(),
            });
        } else if kind & 15 == 14 && flags & 8 != 0 {
            // A record (comm, rank, size from signed bytes, so some name
            // nothing), often exactly the span of a call.
            let (comm, rank, size) = (b.u8() as i8, b.u8() as i8, b.u8() as i8);
            let start = b.time();
            let end = start + f64::from(b.u8()) * 1e-4;
            shapes.push(Shape {
                category: record,
                first: (start, line),
                last: (end, line),
                info: record_info(comm.into(), rank.into(), size.into()),
            });
        } else {
            let category = 1 + i32::from(kind & 15) % NAMES.len() as i32;
            let start = b.time();
            let end = start + f64::from(b.u8()) * 1e-4;
            shapes.push(Shape {
                category,
                first: (start, line),
                last: (end, line),
                info: Vec::new(),
            });
        }
    }
    fn piece(s: &Shape) -> Piece<'_> {
        Piece {
            category: s.category,
            first: s.first,
            last: s.last,
            start: s.first.0.min(s.last.0),
            end: s.first.0.max(s.last.0),
            info: &s.info,
        }
    }
    // Start order, the longer first at equal starts, as readers feed them.
    shapes.sort_by(|x, y| {
        let (x, y) = (piece(x), piece(y));
        x.start.total_cmp(&y.start).then(y.end.total_cmp(&x.end))
    });
    let mut a = Analyzer::new(&categories, &maps, opts);
    for s in &shapes {
        a.push_piece(piece(s));
    }
    let r = a.finish();

    for p in &r.patterns {
        assert!(
            p.seconds.is_finite() && p.seconds > 0.0,
            "{}: {}",
            p.name,
            p.seconds
        );
        let by_timeline: f64 = p.per_timeline.values().sum();
        let by_path: f64 = p.per_call_path.iter().map(|c| c.seconds).sum();
        let by_cell: f64 = p.cells.iter().map(|c| c.seconds).sum();
        assert!(
            close(by_timeline, p.seconds),
            "{}: per timeline {by_timeline} != {}",
            p.name,
            p.seconds
        );
        assert!(
            close(by_path, p.seconds),
            "{}: per call path {by_path} != {}",
            p.name,
            p.seconds
        );
        assert!(
            close(by_cell, p.seconds),
            "{}: cells {by_cell} != {}",
            p.name,
            p.seconds
        );
        assert!(
            p.per_timeline.keys().all(|t| r.timelines.contains(t)),
            "{}: an unknown timeline",
            p.name
        );
        assert!(p.instances.len() as u64 <= p.count);
        if let Some(parent) = p.parent {
            let q = r
                .patterns
                .iter()
                .find(|q| q.name == parent)
                .expect("the parent has seconds");
            assert!(
                p.seconds <= q.seconds * (1.0 + 1e-9) + 1e-12,
                "{} > {}",
                p.name,
                parent
            );
        }
    }
    for p in Pattern::ALL {
        assert!(r.seconds(p) >= 0.0);
    }
    assert!(r.time.iter().all(|c| c.seconds.is_finite()), "time");
    assert!(r.counts.collectives + r.unmatched.incomplete_collectives <= r.counts.mpi_calls);
    let cube = to_cube(&r).expect("a cube of the report");
    let mut bytes = Vec::new();
    cube.write_to(&mut bytes).expect("written");
});
