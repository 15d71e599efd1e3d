//! A sink on a thread of its own (`export::threaded::on_a_thread`) writes the
//! same bytes as the sink called directly, for every format; a writer that
//! fails stops the export with the writer's error instead of hanging.

use mpelog::export::threaded::on_a_thread;
use mpelog::export::{
    self, chrome::ChromeJson, perfetto::PerfettoTrace, pipit::PipitCsv, Options, Sink,
};
use slog2_format::convert::clog2_to_slog2;
use slog2_format::write::TreeOptions;
use slog2_format::Slog2Reader;
use std::io::{Cursor, Write};

/// A generated trace converted to SLOG-2 in memory.
fn slog2(events: u64) -> Vec<u8> {
    let clog2 = clog2_format::synth::generate_vec(
        &clog2_format::synth::Options::default()
            .ranks(5)
            .events(events)
            .seed(11),
    )
    .unwrap();
    let mut r = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    let opts = TreeOptions::default().leaf_bytes(4096);
    clog2_to_slog2(&mut r, Cursor::new(Vec::new()), opts, |_| {})
        .unwrap()
        .0
        .into_inner()
}

/// Exports `file` to `sink` directly and through the thread; both outputs.
fn both<S: Sink + Send>(
    file: &[u8],
    opts: &Options,
    mut make: impl FnMut() -> S,
    bytes: impl Fn(S) -> Vec<u8>,
) -> (Vec<u8>, Vec<u8>) {
    let mut direct = make();
    let mut r = Slog2Reader::new(Cursor::new(file)).unwrap();
    export::slog2(&mut r, opts, &mut direct).unwrap();
    let mut threaded = make();
    let mut r = Slog2Reader::new(Cursor::new(file)).unwrap();
    let (counts, written) = on_a_thread(&mut threaded, |h| export::slog2(&mut r, opts, h));
    counts.unwrap();
    written.unwrap();
    (bytes(direct), bytes(threaded))
}

#[test]
fn a_sink_on_a_thread_writes_the_same_bytes() {
    // Enough items for many batches.
    let file = slog2(60_000);
    for opts in [
        Options::default(),
        Options::default().window(Some(0.01), Some(0.05)),
    ] {
        let (a, b) = both(
            &file,
            &opts,
            || PerfettoTrace::new(Vec::new()),
            |s| s.into_inner(),
        );
        assert!(a.len() > 10_000 && a == b, "perfetto");
        let (a, b) = both(
            &file,
            &opts,
            || ChromeJson::new(Vec::new()),
            |s| s.into_inner(),
        );
        assert!(!a.is_empty() && a == b, "chrome json");
        let (a, b) = both(
            &file,
            &opts,
            || PipitCsv::new(Vec::new()),
            |s| s.into_inner(),
        );
        assert!(!a.is_empty() && a == b, "csv");
    }
}

/// A writer that fails after `left` bytes.
#[derive(Debug)]
struct Failing {
    left: usize,
}

impl Write for Failing {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        if b.len() > self.left {
            return Err(std::io::Error::new(
                std::io::ErrorKind::StorageFull,
                "disk full",
            ));
        }
        self.left -= b.len();
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_failing_writer_stops_the_export_with_its_error() {
    let file = slog2(60_000);
    for left in [0usize, 10_000, 1_000_000] {
        let mut sink = ChromeJson::new(Failing { left });
        let mut r = Slog2Reader::new(Cursor::new(&file[..])).unwrap();
        let (counts, written) =
            on_a_thread(&mut sink, |h| export::slog2(&mut r, &Options::default(), h));
        let e = written.expect_err("the writer's error comes back");
        assert_eq!(e.kind(), std::io::ErrorKind::StorageFull, "{e}");
        // The reading side stopped on the writer's stop, or ran to its end.
        if let Err(e) = counts {
            assert!(matches!(e, export::Error::Write(_)), "{e}");
        }
    }
}

/// The Parquet writer encodes row groups on a thread of its own: a failing
/// writer or a part that cannot be opened ends the export with that error.
#[cfg(feature = "parquet")]
#[test]
fn parquet_writing_errors_come_back() {
    let file = slog2(60_000);
    let reader = || Slog2Reader::new(Cursor::new(&file[..])).unwrap();
    let cats = reader().categories().unwrap().value.categories.clone();
    for left in [0usize, 10_000, 100_000] {
        let e =
            export::parquet::export(&mut reader(), &cats, &Options::default(), Failing { left })
                .expect_err("the writer fails");
        assert!(matches!(e, export::parquet::Error::Write(_)), "{e}");
        assert!(e.to_string().contains("disk full"), "{e}");
    }
    // The second part cannot be opened.
    let mut opened = Vec::new();
    let e = export::parquet::write_parts(
        &mut reader(),
        &cats,
        &Options::default(),
        1000,
        |i| {
            opened.push(i);
            if i == 1 {
                Err(std::io::Error::new(
                    std::io::ErrorKind::PermissionDenied,
                    "no part 1",
                ))
            } else {
                Ok(Vec::new())
            }
        },
        |_, _| Ok(()),
    )
    .expect_err("part 1 cannot be opened");
    assert!(e.to_string().contains("no part 1"), "{e}");
    assert_eq!(opened, [0, 1]);
}

/// A reader whose reads fail once `left` is used up (set after opening).
struct Breaking {
    inner: Cursor<Vec<u8>>,
    left: std::rc::Rc<std::cell::Cell<usize>>,
}

impl std::io::Read for Breaking {
    fn read(&mut self, b: &mut [u8]) -> std::io::Result<usize> {
        match self.left.get() {
            0 => Err(std::io::Error::other("the disk went away")),
            n => {
                self.left.set(n - 1);
                self.inner.read(b)
            }
        }
    }
}

impl std::io::Seek for Breaking {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(to)
    }
}

/// A run that stops early (here the file cannot be read past a point) still
/// hands the sink every call made before it stopped, as the direct run does:
/// the part batch left when `f` returns is sent too.
#[test]
fn a_run_that_stops_early_writes_what_the_direct_run_writes() {
    let file = slog2(60_000);
    for reads in [150usize, 250, 400] {
        let mut outputs = Vec::new();
        for threaded in [false, true] {
            let left = std::rc::Rc::new(std::cell::Cell::new(usize::MAX));
            let inner = Cursor::new(file.clone());
            let mut r = Slog2Reader::new(Breaking {
                inner,
                left: left.clone(),
            })
            .unwrap();
            left.set(reads);
            let mut sink = PipitCsv::new(Vec::new());
            let opts = Options::default();
            let counts = if threaded {
                let (counts, written) = on_a_thread(&mut sink, |h| export::slog2(&mut r, &opts, h));
                written.unwrap();
                counts
            } else {
                export::slog2(&mut r, &opts, &mut sink)
            };
            let e = counts.expect_err("the read fails");
            assert!(matches!(e, export::Error::Read(_)), "{e}");
            outputs.push(sink.into_inner());
        }
        assert!(
            outputs[0].len() > 1000,
            "{reads} reads: {} bytes",
            outputs[0].len()
        );

        assert!(outputs[0] == outputs[1], "{reads} reads: the same bytes");
    }
}
