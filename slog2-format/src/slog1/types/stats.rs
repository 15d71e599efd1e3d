//! The statistics section: one time histogram per interval type.

use super::*;

/// One statistics set: the time histogram of one interval type.
#[binrw]
#[brw(big)]
#[br(import(nbin: u32))]
#[derive(Debug, Clone, PartialEq)]
pub struct StatSet {
    /// Record type (the writer always puts 0).
    pub rectype: u16,
    /// Interval type.
    pub intvltype: u16,
    #[br(temp, assert(label_size == FIELD_LEN as u16, ReadProblem::StatLabelSize { size: label_size }))]
    #[bw(calc = FIELD_LEN as u16)]
    label_size: u16,
    /// Label: 34 bytes of NUL-padded text and an LF.
    pub label: [u8; FIELD_LEN],
    #[br(temp, assert(n == nbin, ReadProblem::StatBins { bins: n, section: nbin }))]
    #[bw(try_calc = u32::try_from(bins.len()))]
    n: u32,
    /// Average number of active intervals of the type in each bin.
    #[br(count = n)]
    pub bins: Vec<f64>,
}

impl StatSet {
    /// The label text (up to the first NUL or LF, trimmed).
    pub fn label_text(&self) -> String {
        let b = &self.label[..FIELD_LEN - 1];
        let b = &b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())];
        String::from_utf8_lossy(b).trim().to_string()
    }

    /// A label field holding `s` (at most 34 bytes, NUL padded, LF).
    pub fn label_field(s: &str) -> [u8; FIELD_LEN] {
        let mut l = [0u8; FIELD_LEN];
        for (d, &c) in l.iter_mut().zip(s.as_bytes().iter().take(FIELD_LEN - 2)) {
            *d = c;
        }
        l[FIELD_LEN - 1] = b'\n';
        l
    }
}

/// Reads `nset` statistics sets of `nbin` bins after checking that they fit.
#[binrw::parser(reader, endian)]
pub(super) fn stat_sets(nset: u32, nbin: u32) -> BinResult<Vec<StatSet>> {
    let pos = reader.stream_position()?;
    let each = STAT_SET_FIXED_LEN + 8 * nbin as u64;
    // Report the Nset field: the sets start 24 bytes after it.
    let bytes = (nset as u64).saturating_mul(each);
    need(reader, pos.saturating_sub(24), bytes, |need, have| {
        ReadProblem::StatSetsTooMany {
            sets: nset,
            bins: nbin,
            need,
            have,
        }
    })?;
    (0..nset)
        .map(|_| StatSet::read_options(reader, endian, (nbin,)))
        .collect()
}

/// The body of the statistics: present when both counts are non-zero.
#[binrw]
#[brw(big)]
#[br(import(nset: u32, nbin: u32))]
#[derive(Debug, Clone, PartialEq)]
pub struct StatBody {
    /// Start of the histogram range.
    pub starttime: f64,
    /// End of the histogram range.
    pub endtime: f64,
    /// One set per whole profile entry, in profile order.
    #[br(parse_with = stat_sets, args(nset, nbin))]
    pub sets: Vec<StatSet>,
}

/// The preview statistics (Jumpshot-3's time histogram).
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Statistics {
    /// Number of sets (0 in the writer's placeholder).
    pub nset: u32,
    /// Bins per set (0 in the writer's placeholder).
    pub nbin: u32,
    /// Times and sets; absent when `nset` or `nbin` is 0 (the C reader then reads
    /// nothing more; Jumpshot-3 refuses the file).
    #[br(if(nset > 0 && nbin > 0), args(nset, nbin))]
    pub body: Option<StatBody>,
}

impl Statistics {
    /// Bytes on disk.
    pub fn disk_len(&self) -> u64 {
        8 + self.body.as_ref().map_or(0, |b| {
            16 + b
                .sets
                .iter()
                .map(|s| STAT_SET_FIXED_LEN + 8 * s.bins.len() as u64)
                .sum::<u64>()
        })
    }
}
