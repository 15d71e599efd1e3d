//! The generator's pieces: its random numbers, the kinds of event it logs, the
//! events of one time slot, cargo packing, communicators and the progress sink.

use super::*;

// ---------------------------------------------------------------------------------
// Pseudo-random numbers: SplitMix64.

pub(super) struct Rng(pub(super) u64);

impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub(super) fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [lo, hi).
    pub(super) fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform in 0..n (n > 0).
    pub(super) fn below(&mut self, n: u32) -> u32 {
        (((self.next() >> 32) * n as u64) >> 32) as u32
    }

    pub(super) fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Like `lrand48()`: uniform in [0, 2^31).
    pub(super) fn lrand48(&mut self) -> i32 {
        (self.next() >> 33) as i32
    }
}

// ---------------------------------------------------------------------------------
// Compact buffered events, turned into records only when written.

#[derive(Clone, Copy, Debug)]
pub(super) enum Kind {
    Bare(i32),
    /// A cargo event; `i` and `x` are packed according to the format of `etype`.
    Cargo {
        etype: i32,
        i: i32,
        x: f64,
    },
    Msg {
        etype: i32,
        icomm: i32,
        rank: i32,
        tag: i32,
        size: i32,
    },
    Comm {
        etype: i32,
        icomm: i32,
        rank: i32,
        wrank: i32,
        comm: u32,
    },
    Shift(f64),
    ConstDef(u8),
    MpiStateDef(u8),
    UserStateDef(u8),
    EventDef(u8),
}

impl Kind {
    /// Size on disk (header included).
    pub(super) fn disk_len(&self) -> u64 {
        24 + match self {
            Kind::Bare(_) | Kind::Shift(_) => 8,
            Kind::Cargo { .. } => 40,
            Kind::Msg { .. } => 24,
            Kind::Comm { .. } => 48,
            Kind::ConstDef(_) => 40,
            Kind::MpiStateDef(_) | Kind::UserStateDef(_) => 112,
            Kind::EventDef(_) => 104,
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Ev {
    pub(super) time: f64,
    pub(super) icomm: i32,
    pub(super) rank: i32,
    pub(super) kind: Kind,
}

/// `MPE_Log_pack`: big-endian tokens, at most 32 bytes; the rest stays zero.
pub(super) struct Pack {
    pub(super) b: [u8; 32],
    pub(super) n: usize,
}

impl Pack {
    pub(super) fn new() -> Self {
        Pack { b: [0; 32], n: 0 }
    }
    pub(super) fn put(&mut self, bytes: &[u8]) -> &mut Self {
        let k = bytes.len().min(32 - self.n);
        self.b[self.n..self.n + k].copy_from_slice(&bytes[..k]);
        self.n += k;
        self
    }
    pub(super) fn h(&mut self, v: i16) -> &mut Self {
        self.put(&v.to_be_bytes())
    }
    pub(super) fn d(&mut self, v: i32) -> &mut Self {
        self.put(&v.to_be_bytes())
    }
    pub(super) fn l(&mut self, v: i64) -> &mut Self {
        self.put(&v.to_be_bytes())
    }
    pub(super) fn e(&mut self, v: f32) -> &mut Self {
        self.put(&v.to_be_bytes())
    }
    #[allow(non_snake_case)]
    pub(super) fn E(&mut self, v: f64) -> &mut Self {
        self.put(&v.to_be_bytes())
    }
    pub(super) fn s(&mut self, v: &str) -> &mut Self {
        let room = 32usize.saturating_sub(self.n + 2);
        let bytes = &v.as_bytes()[..v.len().min(room)];
        self.h(bytes.len() as i16).put(bytes)
    }
}

pub(super) fn cargo_bytes(etype: i32, i: i32, x: f64) -> [u8; 32] {
    let mut p = Pack::new();
    let word = |k: i32, list: &[&'static str]| list[k.unsigned_abs() as usize % list.len()];
    match etype {
        // Outer: "iter=%d val=%E"
        601 => p.d(i).E(x),
        // Middle: "sum=%E phase=%s"
        603 => p.E(x).s(word(i, &PHASES)),
        // FileIO: "bytes=%l flags=%x"
        607 => p.l(i as i64 * 4096).d(0x40 | (i & 7)),
        // Marker: "rank %d says %s" (x selects the word)
        MARKER => p.d(i).s(word(x as i32, &WORDS)),
        // Sample: "h=%h x=%x e=%e l=%l"
        SAMPLE => p.h(i as i16).d(i).e(x as f32).l((x * 1e9) as i64),
        _ => &mut p,
    };
    p.b
}

/// A communicator seen from the generator: its LID and its world ranks
/// `base..base+size` (rank in it = world rank - base).
#[derive(Clone, Copy)]
pub(super) struct Ctx {
    pub(super) lid: i32,
    pub(super) base: u32,
    pub(super) size: u32,
}

pub(super) struct Sink<'a> {
    pub(super) next_report: u64,
    pub(super) progress: &'a mut dyn FnMut(u64),
}
