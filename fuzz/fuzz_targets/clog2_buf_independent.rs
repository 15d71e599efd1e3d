//! The CLOG2 stream reader gives the same records (and the same error) whether its
//! input arrives whole, one byte per read, or in chunks of fuzzer-chosen sizes.
#![no_main]

use clog2_format::{Clog2Reader, Record};
use libfuzzer_sys::fuzz_target;
use std::io::Read;

/// A reader that returns at most the next chunk size per call.
struct Chunked<'a> {
    data: &'a [u8],
    sizes: &'a [u8],
    k: usize,
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let want = if self.sizes.is_empty() {
            1
        } else {
            self.sizes[self.k % self.sizes.len()] as usize + 1
        };
        self.k += 1;
        let n = want.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn collect<S: clog2_format::Source>(mut r: Clog2Reader<S>) -> (Vec<String>, Option<String>) {
    let mut out = Vec::new();
    loop {
        match r.next_record() {
            Ok(Some(rec)) => out.push(show(&rec)),
            Ok(None) => break,
            Err(e) => return (out, Some(e.to_string())),
        }
    }
    (out, r.finish().err().map(|e| e.to_string()))
}

fn show(r: &Record) -> String {
    format!("{r:?} {}", r.time.to_bits())
}

fn run(
    r: Result<Clog2Reader<impl clog2_format::Source>, clog2_format::Error>,
) -> (Vec<String>, Option<String>) {
    match r {
        Ok(r) => collect(r),
        Err(e) => (Vec::new(), Some(e.to_string())),
    }
}

fuzz_target!(|input: &[u8]| {
    // The first byte says how many chunk sizes follow; the rest is the file.
    let (n, rest) = match input.split_first() {
        Some((&n, rest)) => ((n as usize).min(rest.len()), rest),
        None => return,
    };
    let (sizes, data) = rest.split_at(n);
    let whole = run(Clog2Reader::from_slice(data));
    let bytewise = run(Clog2Reader::new(Chunked {
        data,
        sizes: &[],
        k: 0,
    }));
    let chunked = run(Clog2Reader::new(Chunked { data, sizes, k: 0 }));
    assert_eq!(whole, bytewise);
    assert_eq!(whole, chunked);
});
