//! [`ReadAhead`]: a file's bytes read on a thread of its own while the
//! caller parses the bytes read before (the kernel's copy of a CLOG2 file,
//! about a tenth of a pass that pairs its events, off the parsing thread).

use std::io::Read;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

/// Bytes the reading thread reads at a time (a load inside one chunk is lent
/// from it; one that spans two is copied).
const CHUNK: usize = 4 << 20;

/// Chunks the reading thread may be ahead of the reader.
const AHEAD: usize = 2;

/// A [`clog2_format::Source`] over a reader read ahead by a
/// thread of its own, 4 MB at a time, at most two chunks ahead
/// (bounded memory, whatever the input's size): a load within one chunk is
/// lent from it without a copy. `progress` is told the bytes loaded so far
/// after each load. The thread ends at the end of the input, at its first
/// error (handed on to the load that meets it), or once this is dropped.
///
/// ```
/// use clog2_format::Clog2Reader;
/// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
/// let mut told = 0;
/// let source = mpelog::input::ReadAhead::new(std::io::Cursor::new(bytes.clone()), |at| told = at);
/// let mut r = Clog2Reader::with_source(source)?;
/// let mut records = 0;
/// while r.next_record()?.is_some() {
///     records += 1;
/// }
/// let read = r.offset(); // up to ENDLOG's block (the comm table is read apart)
/// drop(r);
/// assert!(records > 1000 && told == read);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ReadAhead<P> {
    chunks: Receiver<std::io::Result<Vec<u8>>>,
    /// Chunks given back to the reading thread to fill again.
    spent: SyncSender<Vec<u8>>,
    /// The chunk being lent from, and how much of it was loaded.
    chunk: Vec<u8>,
    used: usize,
    /// A load that spanned chunks, copied.
    joined: Vec<u8>,
    /// What the last load gave: `chunk[range]`, or `joined` when `None`.
    lent: Option<std::ops::Range<usize>>,
    /// Whether the reading thread ended (the input's end or an error).
    ended: bool,
    at: u64,
    progress: P,
}

impl<P> std::fmt::Debug for ReadAhead<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadAhead")
            .field("at", &self.at)
            .field("ended", &self.ended)
            .finish_non_exhaustive()
    }
}

impl<P: FnMut(u64)> ReadAhead<P> {
    /// `inner` read ahead on a thread of its own; `progress` told the bytes
    /// loaded after each load (the reader is [`Send`] when it is).
    pub fn new<R: Read + Send + 'static>(inner: R, progress: P) -> ReadAhead<P> {
        ReadAhead::with_chunk(inner, CHUNK, progress)
    }

    /// As [`ReadAhead::new`], reading `chunk` bytes at a time (at least 1).
    fn with_chunk<R: Read + Send + 'static>(
        mut inner: R,
        chunk: usize,
        progress: P,
    ) -> ReadAhead<P> {
        let chunk = chunk.max(1) as u64;
        let (tx, chunks) = sync_channel::<std::io::Result<Vec<u8>>>(AHEAD);
        let (spent, back) = sync_channel::<Vec<u8>>(AHEAD + 2);
        std::thread::spawn(move || loop {
            let mut buf = back.try_recv().unwrap_or_default();
            buf.clear();
            // `take` + `read_to_end`: a chunk of the input, or less at its end.
            let got = (&mut inner).take(chunk).read_to_end(&mut buf).map(|_| buf);
            let last = !matches!(&got, Ok(b) if !b.is_empty());
            // A failed send: the reader is gone.
            if tx.send(got).is_err() || last {
                return;
            }
        });
        ReadAhead {
            chunks,
            spent,
            chunk: Vec::new(),
            used: 0,
            joined: Vec::new(),
            lent: Some(0..0),
            ended: false,
            at: 0,
            progress,
        }
    }

    /// The next chunk into `chunk` (the spent one given back); `false` at
    /// the end of the input.
    fn next_chunk(&mut self) -> std::io::Result<bool> {
        if self.ended {
            return Ok(false);
        }
        match self.chunks.recv() {
            Ok(Ok(next)) if !next.is_empty() => {
                let spent = std::mem::replace(&mut self.chunk, next);
                self.used = 0;
                // The thread may be gone, or have buffers enough.
                let _ = self.spent.try_send(spent);
                Ok(true)
            }
            Ok(Err(e)) => {
                self.ended = true;
                Err(e)
            }
            _ => {
                self.ended = true;
                Ok(false)
            }
        }
    }
}

impl<P: FnMut(u64)> clog2_format::Source for ReadAhead<P> {
    fn load(&mut self, len: usize) -> std::io::Result<usize> {
        if self.used == self.chunk.len() && len > 0 {
            // The chunk is spent: the next (unless the input ended).
            self.next_chunk()?;
        }
        if len <= self.chunk.len() - self.used {
            self.lent = Some(self.used..self.used + len);
            self.used += len;
        } else {
            // Across chunks (or past the end): copied, growing only as bytes
            // arrive (a huge `len` from a corrupt field allocates no more than
            // the input holds).
            self.joined.clear();
            let mut want = len;
            loop {
                let take = want.min(self.chunk.len() - self.used);
                self.joined
                    .extend_from_slice(&self.chunk[self.used..self.used + take]);
                self.used += take;
                want -= take;
                if want == 0 || !self.next_chunk()? {
                    break;
                }
            }
            self.lent = None;
        }
        let n = self.loaded().len();
        self.at += n as u64;
        (self.progress)(self.at);
        Ok(n)
    }

    fn loaded(&self) -> &[u8] {
        match &self.lent {
            Some(r) => self.chunk.get(r.clone()).unwrap_or_default(),
            None => &self.joined,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clog2_format::{ReadSource, Source};
    use proptest::prelude::*;

    /// Fails with `kind` once `at` bytes were read.
    struct FailsAt {
        data: Vec<u8>,
        pos: usize,
        at: usize,
    }

    impl Read for FailsAt {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.pos >= self.at {
                return Err(std::io::Error::other("disk gone"));
            }
            let n = buf
                .len()
                .min(self.at - self.pos)
                .min(self.data.len() - self.pos);
            buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
            self.pos += n;
            Ok(n)
        }
    }

    proptest! {
        /// Loads of any lengths, across chunks or within, give the bytes a
        /// plain reading source gives, and the progress their sum.
        #[test]
        fn loads_give_what_a_plain_source_gives(
            data in proptest::collection::vec(any::<u8>(), 0..5000),
            chunk in 1usize..700,
            lens in proptest::collection::vec(0usize..1500, 0..30),
        ) {
            let mut told = 0u64;
            let mut ahead = ReadAhead::with_chunk(std::io::Cursor::new(data.clone()), chunk, |at| told = at);
            let mut plain = ReadSource::new(&data[..]);
            let mut sum = 0u64;
            for len in lens {
                let n = ahead.load(len).unwrap();
                prop_assert_eq!(n, plain.load(len).unwrap());
                prop_assert_eq!(ahead.loaded(), plain.loaded());
                sum += n as u64;
            }
            drop(ahead);
            prop_assert_eq!(told, sum);
        }
    }

    #[test]
    fn an_error_reaches_the_load_that_meets_it() {
        let data: Vec<u8> = (0..=255).collect();
        let inner = FailsAt {
            data,
            pos: 0,
            at: 100,
        };
        let mut r = ReadAhead::with_chunk(inner, 40, |_| {});
        assert_eq!(r.load(60).unwrap(), 60);
        assert_eq!(r.loaded()[59], 59);
        assert!(r.load(60).is_err());
        // Ended: nothing more, and no hang.
        assert_eq!(r.load(10).unwrap(), 0);
    }

    #[test]
    fn a_huge_length_takes_what_there_is() {
        let data = vec![7u8; 3000];
        let mut r = ReadAhead::with_chunk(std::io::Cursor::new(data), 1024, |_| {});
        assert_eq!(r.load(usize::MAX).unwrap(), 3000);
        assert_eq!(r.load(1).unwrap(), 0);
    }

    /// Endless input that tells, by dropping its sender, that the reading
    /// thread (its owner) ended.
    struct Endless {
        _alive: std::sync::mpsc::Sender<()>,
    }

    impl Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            buf.fill(1);
            Ok(buf.len())
        }
    }

    #[test]
    fn dropped_early_the_thread_ends() {
        use std::sync::mpsc::{channel, RecvTimeoutError};
        let (alive, ended) = channel();
        let mut r = ReadAhead::with_chunk(Endless { _alive: alive }, 1 << 16, |_| {});
        assert_eq!(r.load(10).unwrap(), 10);
        // Only the dropped reader can end the thread of an endless input.
        drop(r);
        let waited = ended.recv_timeout(std::time::Duration::from_secs(30));
        assert_eq!(waited, Err(RecvTimeoutError::Disconnected));
    }
}
