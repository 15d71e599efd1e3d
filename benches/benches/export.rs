//! `mpelog export` throughput (MB/s of CLOG2 input) on a generated trace of
//! about 100 MB, per output format, side by side: in one pass from the CLOG2
//! trace (events paired, primitives put in start order in memory and sorted
//! runs) and from its SLOG-2 conversion (read in slices of leaves). The output
//! goes to memory; the Perfetto, JSON and CSV writers run on a thread of their
//! own, as in the CLI.
//!
//! `cargo bench -p mpelog-benches --bench export`. `MPELOG_BENCH_MB` sets the
//! size (default 100); `MPELOG_BENCH_SORT_MB` the one-pass sort memory
//! (default 64, as the CLI's `--sort-memory`).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use mpelog::export::{self, chrome::ChromeJson, perfetto::PerfettoTrace, pipit::PipitCsv};
use mpelog::export::{sorted::Sorted, threaded::on_a_thread, Options, Sink};
use std::hint::black_box;
use std::io::Cursor;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Where an export reads from.
enum Source<'a> {
    /// A CLOG2 trace, exported in one pass.
    Clog2(&'a [u8]),
    /// A SLOG-2 file.
    Slog2(&'a [u8]),
}

impl Source<'_> {
    fn sorted(clog2: &[u8], opts: &Options) -> Sorted {
        let mut r = clog2_format::Clog2Reader::from_slice(clog2).unwrap();
        slog2_format::convert::clog2_into(&mut r, opts.start_order(), |_| {})
            .unwrap()
            .0
    }

    fn reader(slog2: &[u8]) -> slog2_format::Slog2Reader<Cursor<&[u8]>> {
        slog2_format::Slog2Reader::new(Cursor::new(slog2)).unwrap()
    }

    /// Exports to `sink` on a thread of its own, as the CLI does; returns
    /// the number of states.
    fn run<S: Sink + Send>(&self, opts: &Options, sink: &mut S) -> u64 {
        let (counts, written) = on_a_thread(sink, |h| match self {
            Source::Clog2(b) => export::one_pass(&mut Self::sorted(b, opts), opts, h).unwrap(),
            Source::Slog2(b) => export::slog2(&mut Self::reader(b), opts, h).unwrap(),
        });
        written.unwrap();
        counts.states
    }

    /// Exports to Parquet in `out`; returns the number of rows.
    fn parquet(&self, opts: &Options, out: &mut Vec<u8>) -> u64 {
        match self {
            Source::Clog2(b) => {
                let mut s = Self::sorted(b, opts);
                let cats = s.categories().to_vec();
                export::parquet::export(&mut s, &cats, opts, out).unwrap().0
            }
            Source::Slog2(b) => {
                let mut r = Self::reader(b);
                let cats = r.categories().unwrap().value.categories.clone();
                export::parquet::export(&mut r, &cats, opts, out).unwrap().0
            }
        }
    }

    /// Exports in `format` into `out` (cleared first).
    fn export(&self, format: &str, opts: &Options, out: &mut Vec<u8>) -> u64 {
        out.clear();
        match format {
            "pftrace" => self.run(opts, &mut PerfettoTrace::new(out)),
            "json" => self.run(opts, &mut ChromeJson::new(out)),
            "csv" => self.run(opts, &mut PipitCsv::new(out)),
            _ => self.parquet(opts, out),
        }
    }
}

fn bench(c: &mut Criterion) {
    let mb: u64 = env_or("MPELOG_BENCH_MB", 100);
    let sort_mb: usize = env_or("MPELOG_BENCH_SORT_MB", 64);
    let clog2 = std::fs::read(mpelog_benches::clog2_trace(mb)).unwrap();
    let slog2 = std::fs::read(mpelog_benches::slog2_file(mb)).unwrap();
    let opts = Options::default().sort_memory(sort_mb << 20);
    let mut g = c.benchmark_group("export");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(clog2.len() as u64));
    let mut out = Vec::new();
    for format in ["pftrace", "json", "csv", "parquet"] {
        for (name, source) in [
            ("from CLOG2, one pass", Source::Clog2(&clog2)),
            ("from SLOG-2", Source::Slog2(&slog2)),
        ] {
            g.bench_function(BenchmarkId::new(format, name), |b| {
                b.iter(|| black_box(source.export(format, &opts, &mut out)))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
