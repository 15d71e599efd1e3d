//! The jumps the critical-path sweep took, kept when its segments are
//! recorded: in memory up to a bound, the earlier ones appended to a
//! temporary file, and read back from the last to the first, which is how
//! the path is walked (spec/analysis.md §6).

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

/// Bytes of a jump in the file: time, waiter lane, cause lane.
const RECORD: usize = 16;

/// Jumps read back from the file at a time.
const READ: usize = 4096;

/// A jump taken: when, the waiting lane, the lane that caused it.
pub(crate) type Jump = (f64, u32, u32);

/// The jumps taken, in the order taken.
#[derive(Debug)]
pub(crate) struct Taken {
    mem: Vec<Jump>,
    /// Jumps held before the older ones go to the file.
    limit: usize,
    file: Option<File>,
    /// Jumps in the file (the first ones taken).
    spilled: usize,
    /// Set once a write to the file failed: then every later jump is held.
    failed: bool,
}

impl Taken {
    /// Jumps held up to `limit` (at least 1; `usize::MAX`: never spilled).
    pub(crate) fn new(limit: usize) -> Taken {
        Taken {
            mem: Vec::new(),
            limit: limit.max(1),
            file: None,
            spilled: 0,
            failed: false,
        }
    }

    pub(crate) fn push(&mut self, j: Jump) {
        self.mem.push(j);
        if self.mem.len() >= self.limit && !self.failed {
            if let Err(()) = self.spill() {
                self.failed = true;
            }
        }
    }

    fn spill(&mut self) -> Result<(), ()> {
        if self.file.is_none() {
            self.file = Some(tempfile::tempfile().map_err(drop)?);
        }
        let f = self.file.as_ref().expect("made above");
        let mut buf = Vec::with_capacity(self.mem.len() * RECORD);
        for &(t, w, c) in &self.mem {
            buf.extend_from_slice(&t.to_le_bytes());
            buf.extend_from_slice(&w.to_le_bytes());
            buf.extend_from_slice(&c.to_le_bytes());
        }
        let at = (self.spilled * RECORD) as u64;
        f.write_all_at(&buf, at).map_err(drop)?;
        self.spilled += self.mem.len();
        self.mem.clear();
        Ok(())
    }

    /// The jumps from the last taken to the first.
    pub(crate) fn backward(&self) -> Backward<'_> {
        Backward {
            taken: self,
            mem_left: self.mem.len(),
            file_left: self.spilled,
            buf: Vec::new(),
        }
    }
}

/// [`Taken::backward`]'s reader.
pub(crate) struct Backward<'a> {
    taken: &'a Taken,
    mem_left: usize,
    file_left: usize,
    /// Jumps read from the file, the last one last.
    buf: Vec<Jump>,
}

impl Backward<'_> {
    /// The jump before the last one given.
    ///
    /// # Errors
    ///
    /// The file's read error.
    pub(crate) fn next(&mut self) -> io::Result<Option<Jump>> {
        if self.mem_left > 0 {
            self.mem_left -= 1;
            return Ok(Some(self.taken.mem[self.mem_left]));
        }
        if self.buf.is_empty() {
            if self.file_left == 0 {
                return Ok(None);
            }
            let f = self.taken.file.as_ref().expect("jumps in a file");
            let n = self.file_left.min(READ);
            self.file_left -= n;
            let mut bytes = vec![0u8; n * RECORD];
            f.read_exact_at(&mut bytes, (self.file_left * RECORD) as u64)?;
            self.buf.extend(bytes.chunks_exact(RECORD).map(|r| {
                let t = f64::from_le_bytes(r[..8].try_into().expect("8 bytes"));
                let w = u32::from_le_bytes(r[8..12].try_into().expect("4 bytes"));
                let c = u32::from_le_bytes(r[12..].try_into().expect("4 bytes"));
                (t, w, c)
            }));
        }
        Ok(self.buf.pop())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jumps_come_back_last_first_wherever_they_were_held() {
        let jumps: Vec<Jump> = (0..10_000u32)
            .map(|i| (f64::from(i) * 0.5, i % 7, i % 3))
            .collect();
        for limit in [1, 3, 4096, 4097, usize::MAX] {
            let mut t = Taken::new(limit);
            for &j in &jumps {
                t.push(j);
            }
            let mut back = t.backward();
            let mut got = Vec::new();
            while let Some(j) = back.next().unwrap() {
                got.push(j);
            }
            got.reverse();
            assert_eq!(got, jumps, "held {limit}");
        }
    }
}
