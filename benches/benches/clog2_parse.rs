//! CLOG2 parsing throughput on a generated trace of at least 100 MB.
//!
//! `cargo bench -p mpelog-benches --bench clog2_parse`. Set `MPELOG_BENCH_MB` to
//! change the size (default 120).

use clog2_format::{synth, Clog2File, Clog2Reader};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::io::Write;

fn trace() -> Vec<u8> {
    let mb: u64 = std::env::var("MPELOG_BENCH_MB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(120);
    // About 45 bytes per record in an MPE-like mix.
    let opts = synth::Options::default()
        .ranks(16)
        .events(mb * 1_000_000 / 45)
        .seed(7)
        .block_size(65536);
    synth::generate_vec(&opts).expect("synth")
}

fn parse(c: &mut Criterion) {
    let data = trace();
    eprintln!("trace: {} bytes", data.len());
    let mut g = c.benchmark_group("clog2_parse");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(data.len() as u64));

    // In place: header fields decoded, body bytes borrowed (no copy, no allocation).
    g.bench_function("refs_from_slice", |b| {
        b.iter(|| {
            let mut r = Clog2Reader::from_slice(black_box(&data)).unwrap();
            let mut n = 0u64;
            while let Some((rec, _)) = r.next_ref().unwrap() {
                n += rec.rectype as u64 + rec.body.len() as u64;
            }
            r.finish().unwrap();
            n
        })
    });

    g.bench_function("records_from_slice", |b| {
        b.iter(|| {
            let mut r = Clog2Reader::from_slice(black_box(&data)).unwrap();
            let mut n = 0u64;
            while let Some(rec) = r.next_record().unwrap() {
                n += rec.rectype() as u64;
            }
            r.finish().unwrap();
            n
        })
    });

    let path = std::env::temp_dir().join(format!("mpelog-bench-{}.clog2", std::process::id()));
    std::fs::File::create(&path)
        .unwrap()
        .write_all(&data)
        .unwrap();
    g.bench_function("records_from_file_read", |b| {
        b.iter(|| {
            let f = std::fs::File::open(&path).unwrap();
            let mut r = Clog2Reader::new(f).unwrap();
            let mut n = 0u64;
            while let Some(rec) = r.next_record().unwrap() {
                n += rec.rectype() as u64;
            }
            r.finish().unwrap();
            n
        })
    });

    g.bench_function("refs_from_file_read", |b| {
        b.iter(|| {
            let f = std::fs::File::open(&path).unwrap();
            let mut r = Clog2Reader::new(f).unwrap();
            let mut n = 0u64;
            while let Some((rec, _)) = r.next_ref().unwrap() {
                n += rec.rectype as u64 + rec.body.len() as u64;
            }
            r.finish().unwrap();
            n
        })
    });

    g.bench_function("lossless_round_trip", |b| {
        b.iter(|| {
            let f = Clog2File::parse(black_box(&data)).unwrap();
            f.to_bytes().unwrap().len()
        })
    });
    g.finish();
    let _ = std::fs::remove_file(&path);
}

criterion_group!(benches, parse);
criterion_main!(benches);
