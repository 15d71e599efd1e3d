//! An index written straight from an analysis's record, its waits read in
//! the index's order from memory and the runs they were spilled to
//! ([`super::log`]), twice: once for the lanes' sizes and directories, once
//! for the waits. The bytes are those of [`WaitIndex::from_report`] and
//! [`WaitIndex::write_file`], without the index in memory.
//!
//! [`WaitIndex::from_report`]: super::WaitIndex::from_report
//! [`WaitIndex::write_file`]: super::WaitIndex::write_file

use super::file::{Head, Summed};
use super::log::merged;
use super::{Binding, Block, Error, Segment, Wait, BLOCK, PATTERNS};
use crate::analysis::Recorded;
use std::path::Path;

/// What [`write_recorded`] wrote (what `analyze --write-index` tells).
///
/// ```
/// let w = mpelog::waits::Written::default();
/// assert_eq!((w.waits, w.timelines, w.segments), (0, 0, 0));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Written {
    /// The waits.
    pub waits: u64,
    /// The timelines with a wait.
    pub timelines: usize,
    /// The critical path's segments.
    pub segments: usize,
}

/// A lane's directory as its waits go by (what [`super::directory`] makes
/// of them all).
struct Lane {
    timeline: i32,
    waits: u32,
    dir: Vec<Block>,
    before: [f64; PATTERNS],
    reach: f64,
}

impl Lane {
    fn new(timeline: i32) -> Lane {
        Lane {
            timeline,
            waits: 0,
            dir: Vec::new(),
            before: [0.0; PATTERNS],
            reach: f64::NEG_INFINITY,
        }
    }

    fn add(&mut self, w: &Wait) {
        if self.waits as usize % BLOCK == 0 {
            self.dir.push(Block {
                first: w.start,
                reach: self.reach,
                longest: 0.0,
                before: self.before,
            });
        }
        self.waits += 1;
        self.reach = self.reach.max(w.end);
        let b = self.dir.last_mut().expect("a block");
        b.reach = self.reach;
        b.longest = b.longest.max(w.seconds());
        self.before[w.pattern.index()] += w.seconds();
    }
}

/// Writes the wait index of the analysis record `rec` to `path`, bound to
/// `binding`, by the output rules ([`crate::output`]: never over one of
/// `inputs`, a temporary file renamed at the end): the same bytes as
/// [`WaitIndex::from_report`](super::WaitIndex::from_report) then
/// [`write_file`](super::WaitIndex::write_file), but holding only the
/// directories (about 3 bytes a wait), not the waits.
///
/// # Errors
///
/// [`Error::Output`] when it cannot be written or the spilled waits cannot
/// be read back.
///
/// ```
/// use mpelog::analysis::{one_pass, Options};
/// use mpelog::waits::{write_recorded, WaitIndex};
/// let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
/// let analysis = |opts: &Options| -> Result<_, Box<dyn std::error::Error>> {
///     let mut r = clog2_format::Clog2Reader::from_slice(&clog2)?;
///     let sink = mpelog::export::sorted::StartOrder::new();
///     let (mut sorted, _) = slog2_format::convert::clog2_into(&mut r, sink, |_| {})?;
///     Ok(one_pass(&mut sorted, opts)?)
/// };
/// let dir = tempfile::tempdir()?;
/// // Spilled one wait at a time, the same bytes as the index built in memory.
/// let rec = analysis(&Options::default().record(true).record_memory(1))?.recorded.unwrap();
/// let written = write_recorded(rec, None, &dir.path().join("a.waits"), &[])?;
/// let ix = WaitIndex::from_report(&mut analysis(&Options::default().record(true))?).unwrap();
/// assert_eq!(std::fs::read(dir.path().join("a.waits"))?, ix.to_bytes());
/// assert_eq!(written.waits as usize, ix.len());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_recorded(
    rec: Recorded,
    binding: Option<Binding>,
    path: &Path,
    inputs: &[&Path],
) -> Result<Written, Error> {
    let Recorded {
        mut waits,
        spilled,
        path: mut segments,
        mut calls,
        root,
        span: (from, to),
        ..
    } = rec;
    let io = |source| {
        Error::Output(crate::output::Error::Io {
            path: path.to_path_buf(),
            source,
        })
    };
    calls.sort();
    calls.dedup_by_key(|c| c.0);
    segments.retain(|s: &Segment| s.start.is_finite() && s.end.is_finite() && s.end > s.start);
    segments.sort_by(|a, b| a.start.total_cmp(&b.start));
    // Pass 1: each lane's size and directory.
    let mut lanes: Vec<Lane> = Vec::new();
    merged(&mut waits, spilled.as_ref().map(|s| &*s.0), &mut |w| {
        if lanes.last().is_none_or(|l| l.timeline != w.timeline) {
            lanes.push(Lane::new(w.timeline));
        }
        lanes.last_mut().expect("a lane").add(w);
        Ok(())
    })
    .map_err(io)?;
    let sizes: Vec<(i32, u32)> = lanes.iter().map(|l| (l.timeline, l.waits)).collect();
    // Pass 2: the bytes, each lane's directory before its waits.
    let out = crate::output::Output::create(path, inputs, false)?;
    let mut file = out.writer()?;
    let mut o = Summed::new(&mut file);
    o.head(&Head {
        block: BLOCK,
        binding,
        root,
        from,
        to,
        calls: &calls,
        lanes: &sizes,
        segments: segments.len() as u64,
    })
    .map_err(io)?;
    let mut lane = 0;
    let mut left = 0u32;
    merged(&mut waits, spilled.as_ref().map(|s| &*s.0), &mut |w| {
        if left == 0 {
            o.dir(&lanes[lane].dir)?;
            left = lanes[lane].waits;
            lane += 1;
        }
        left -= 1;
        o.wait(w)
    })
    .map_err(io)?;
    o.path(&segments).map_err(io)?;
    o.finish().map_err(io)?;
    out.finish(file)?;
    Ok(Written {
        waits: sizes.iter().map(|l| u64::from(l.1)).sum(),
        timelines: sizes.len(),
        segments: segments.len(),
    })
}
