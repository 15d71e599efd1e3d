//! Per-location definitions (`traces/N.def`): mapping tables from the
//! location's own references to global ones, and clock offsets
//! (spec/otf2.md §6).

use crate::error::{Error, Problem, Result};
use crate::limits::Limits;
use crate::source::Source;
use crate::stream::each_definition;
use std::collections::BTreeMap;

/// Number of mapping types (string 0 … location group 14).
pub const MAPPING_TYPES: usize = 15;

/// Mapping types used by the event reader.
pub mod mapping {
    /// Strings.
    pub const STRING: u8 = 0;
    /// Attributes.
    pub const ATTRIBUTE: u8 = 1;
    /// Locations.
    pub const LOCATION: u8 = 2;
    /// Regions.
    pub const REGION: u8 = 3;
    /// Groups.
    pub const GROUP: u8 = 4;
    /// Metrics.
    pub const METRIC: u8 = 5;
    /// Communicators.
    pub const COMM: u8 = 6;
}

/// A local → global identifier map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdMap {
    /// Local `i` is global `items[i]`.
    Dense(Vec<u64>),
    /// Sorted (local, global) pairs.
    Sparse(Vec<(u64, u64)>),
}

impl IdMap {
    /// The global identifier of `local` (itself when the map has no entry).
    ///
    /// ```
    /// use otf2_format::local::IdMap;
    /// let dense = IdMap::Dense(vec![7, 9]);
    /// assert_eq!((dense.global(1), dense.global(5)), (9, 5)); // no entry: itself
    /// let sparse = IdMap::Sparse(vec![(2, 20), (4, 40)]);
    /// assert_eq!((sparse.global(4), sparse.global(3)), (40, 3));
    /// ```
    pub fn global(&self, local: u64) -> u64 {
        match self {
            IdMap::Dense(v) => usize::try_from(local)
                .ok()
                .and_then(|i| v.get(i))
                .copied()
                .unwrap_or(local),
            IdMap::Sparse(v) => match v.binary_search_by_key(&local, |p| p.0) {
                Ok(i) => v[i].1,
                Err(_) => local,
            },
        }
    }
}

/// One clock-correction interval: between two ClockOffset records.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClockInterval {
    /// Time of the first offset.
    pub begin: u64,
    /// Time of the second offset.
    pub end: u64,
    /// Offset at `begin`.
    pub offset: i64,
    /// Offset change per tick.
    pub slope: f64,
}

/// What a location's definition file says.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct LocalDefs {
    /// Mapping tables by mapping type.
    pub maps: BTreeMap<u8, IdMap>,
    /// Clock-correction intervals in time order (one fewer than the
    /// ClockOffset records; none for zero or one record).
    pub intervals: Vec<ClockInterval>,
    /// ClockOffset records read: (time, offset, standard deviation).
    pub clock_offsets: Vec<(u64, i64, f64)>,
    /// Records of other types, by record type.
    pub skipped: BTreeMap<u8, u64>,
}

impl LocalDefs {
    /// Maps a local reference of mapping type `kind` to the global one.
    ///
    /// ```
    /// use otf2_format::{local::mapping, LocalDefs};
    /// let none = LocalDefs::default();
    /// assert_eq!(none.map(mapping::REGION, 3), 3); // no mapping table: the same id
    /// let a = otf2_format::Archive::open(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny"))?;
    /// assert_eq!(a.local_defs(0)?.map(mapping::REGION, 0), a.local_defs(0)?.map(mapping::REGION, 0));
    /// # Ok::<(), otf2_format::Error>(())
    /// ```
    pub fn map(&self, kind: u8, local: u64) -> u64 {
        match self.maps.get(&kind) {
            Some(m) => m.global(local),
            None => local,
        }
    }

    /// Reads a location's definition file.
    ///
    /// # Errors
    /// Bytes that are not a definitions file (error with file and offset);
    /// two ClockOffset records at the same time or out of order.
    ///
    /// ```
    /// use otf2_format::{FileSource, Limits, LocalDefs};
    /// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny");
    /// let a = otf2_format::Archive::open(dir)?;
    /// let path = a.location_file(0, "def");
    /// let d = LocalDefs::read(FileSource::new(&path).unwrap(), path, a.anchor.chunk_size_defs, &Limits::default())?;
    /// assert_eq!(d.map(0, 3), a.local_defs(0)?.map(0, 3));
    /// # Ok::<(), otf2_format::Error>(())
    /// ```
    pub fn read<S: Source>(
        src: S,
        file: std::path::PathBuf,
        chunk_size: u64,
        limits: &Limits,
    ) -> Result<LocalDefs> {
        let mut d = LocalDefs::default();
        each_definition(src, file, chunk_size, limits, |s, rtype, offset| {
            match rtype {
                5 => {
                    let mut c = s.cursor(offset);
                    let kind = c.u8("mapping type")?;
                    let n = c.u64c("id map size")?;
                    let at = c.offset();
                    let mode = c.u8("id map mode")?;
                    let cap = usize::try_from(n).unwrap_or(usize::MAX).min(c.remaining());
                    let map = match mode {
                        0 => {
                            let mut v = Vec::with_capacity(cap);
                            for _ in 0..n {
                                v.push(c.u64c("id map entry")?);
                            }
                            IdMap::Dense(v)
                        }
                        1 => {
                            let mut v = Vec::with_capacity(cap / 2);
                            for _ in 0..n {
                                v.push((c.u64c("id map entry")?, c.u64c("id map entry")?));
                            }
                            v.sort_unstable();
                            IdMap::Sparse(v)
                        }
                        m => return Err(Error::invalid(&s.file, at, Problem::IdMapMode(m))),
                    };
                    if usize::from(kind) < MAPPING_TYPES {
                        d.maps.insert(kind, map);
                    }
                }
                6 => {
                    let mut c = s.cursor(offset);
                    let time = c.u64_full("clock offset time")?;
                    let off = c.i64c("clock offset")?;
                    let sd = f64::from_bits(c.u64_full("standard deviation")?);
                    if let Some(&(t0, o0, _)) = d.clock_offsets.last() {
                        if t0 >= time {
                            return Err(Error::invalid(&s.file, offset, Problem::ClockOffsets));
                        }
                        d.intervals.push(ClockInterval {
                            begin: t0,
                            end: time,
                            offset: o0,
                            slope: off.wrapping_sub(o0) as f64 / (time - t0) as f64,
                        });
                    }
                    d.clock_offsets.push((time, off, sd));
                }
                _ => *d.skipped.entry(rtype).or_insert(0) += 1,
            }
            Ok(())
        })?;
        Ok(d)
    }
}

/// Applies clock correction to a location's timestamps, which must come in
/// nondecreasing order (libotf2's interpolation, spec/otf2.md §6.2).
#[derive(Debug, Clone, Default)]
pub(crate) struct ClockCorrector {
    current: usize,
}

impl ClockCorrector {
    pub fn apply(&mut self, intervals: &[ClockInterval], time: u64) -> u64 {
        if intervals.is_empty() {
            return time;
        }
        while self.current + 1 < intervals.len() && time > intervals[self.current].end {
            self.current += 1;
        }
        let iv = &intervals[self.current];
        let diff = if time >= iv.begin {
            (time - iv.begin) as f64
        } else {
            -((iv.begin - time) as f64)
        };
        let off = iv
            .offset
            .wrapping_add((iv.slope * diff).round_ties_even() as i64);
        time.wrapping_add(off as u64)
    }
}
