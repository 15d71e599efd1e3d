//! The corruption sweep (issue 8): every reader entry point of every format, run
//! by [`mpelog_conformance::exercise`] on corrupted copies of valid files, must
//! return a value or an error — never panic, hang or make a huge allocation.
//!
//! Inputs: a generated file of each format (always), and every corpus file
//! (`MPELOG_CORPUS`; without it that part says it skipped). Variants of each
//! file: truncations (the first 256 lengths, evenly spaced lengths, and lengths
//! around block, frame and section boundaries) and single-byte flips (pseudo-
//! random positions and bits from a fixed seed; every byte of the headers and
//! of the first bytes of sampled blocks XORed with 0x80, 0x40 and 0x01, which
//! make a big-endian count negative, huge or off by one). Corpus files get
//! fewer variants than generated ones, files of 256 KiB or more fewer still,
//! and files of 1 MiB or more only a handful (see [`Plan`]), to keep the test
//! within about a minute at the workspace's test profile on two cores.
//!
//! Checks, per variant, in a worker thread watched by the test thread:
//!
//! * no panic (`catch_unwind`; the panic message, location and the workspace
//!   frames of its backtrace are reported);
//! * no single exercise runs longer than [`HANG_LIMIT`];
//! * the largest single allocation stays below [`alloc_cap`]: 4 × the input
//!   size + 16 MiB. A reader may hold a whole-file model (a few times the
//!   input) and the in-memory SLOG-2 output of a conversion (smaller than its
//!   CLOG2 input; a `Vec` doubles to at most twice its length); the 16 MiB
//!   covers fixed buffers (64 KiB CLOG2 blocks, the `.Z` tables, the 4 MiB
//!   `.Z` unpacking limit doubled). Anything larger was sized by a corrupted
//!   field. The peak of live bytes is measured and printed, not asserted.
//!
//! A counting global allocator measures both; exercises run one at a time (the
//! tests take a lock) so that the figures belong to one variant.
//!
//! Set `MPELOG_SWEEP_TRACE=1` to print each variant before it runs (to find the
//! input of an abort, e.g. an allocation the system refuses).

use mpelog_conformance::{detect, exercise, exercise_annotation, Format, Outcome};
use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::BTreeMap;
use std::fmt;
use std::io::Cursor;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex, Once};
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------
// Counting allocator.

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK_LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK_SINGLE: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize, size: usize) {
    let live = LIVE.fetch_add(by, SeqCst) + by;
    PEAK_LIVE.fetch_max(live, SeqCst);
    PEAK_SINGLE.fetch_max(size, SeqCst);
}

// SAFETY: every call is forwarded to the system allocator unchanged; the
// counters are only atomics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            grew(l.size(), l.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(l) };
        if !p.is_null() {
            grew(l.size(), l.size());
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size(), SeqCst);
    }

    unsafe fn realloc(&self, p: *mut u8, l: Layout, new_size: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new_size) };
        if !q.is_null() {
            if new_size >= l.size() {
                grew(new_size - l.size(), new_size);
            } else {
                LIVE.fetch_sub(l.size() - new_size, SeqCst);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

// ---------------------------------------------------------------------------
// Limits.

/// Longest a single exercise may run before the sweep calls it a hang. The
/// slowest variants (the 5 MB corpus traces) take well under a second at the
/// test profile; the margin is for a loaded machine.
const HANG_LIMIT: Duration = Duration::from_secs(8);

const MIB: usize = 1 << 20;

/// The largest single allocation a reader may make for an input of `len`
/// bytes: 4 × `len` + 16 MiB (see the file's documentation).
fn alloc_cap(len: usize) -> usize {
    4 * len + 16 * MIB
}

// ---------------------------------------------------------------------------
// Panics: recorded, not printed, while a variant runs.

static SWEEPING: AtomicBool = AtomicBool::new(false);
/// Set by the harness's self-test while it provokes a hang failure (kept quiet).
static EXPECTING_HANG: AtomicBool = AtomicBool::new(false);
static PANICS: Mutex<Vec<String>> = Mutex::new(Vec::new());
static SWEEP_LOCK: Mutex<()> = Mutex::new(());

fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let t = std::thread::current();
            // The worker is named "sweep…"; the converter's reader thread is unnamed.
            let ours = t.name().is_none_or(|n| n.starts_with("sweep"));
            if ours && SWEEPING.load(SeqCst) {
                let bt = std::backtrace::Backtrace::force_capture().to_string();
                let frames: Vec<&str> = bt
                    .lines()
                    .map(str::trim)
                    .filter(|l| {
                        [
                            "clog2_format::",
                            "slog2_format::",
                            "alog_format::",
                            "mpelog_annotate::",
                        ]
                        .iter()
                        .any(|c| l.contains(c))
                    })
                    .take(6)
                    .collect();
                let msg = format!("{info}\n      frames: {}", frames.join(" <- "));
                PANICS.lock().unwrap_or_else(|e| e.into_inner()).push(msg);
            } else if !EXPECTING_HANG.load(SeqCst) {
                default(info);
            }
        }));
    });
}

// ---------------------------------------------------------------------------
// Subjects and variants.

/// What a subject's bytes are.
#[derive(Clone)]
enum Kind {
    /// A self-contained file of a format.
    File(Format),
    /// An annotation; the payload is its (valid) trace.
    AnnotationOver(Arc<Vec<u8>>),
    /// A CLOG2 trace read through its (valid) annotation, the payload.
    TraceUnder(Arc<Vec<u8>>),
    /// The harness's self-test: a function standing for a reader of a format.
    Probe(Format, fn(&[u8]) -> Outcome),
}

impl Kind {
    fn format(&self) -> Format {
        match self {
            Kind::File(f) => *f,
            Kind::AnnotationOver(_) | Kind::TraceUnder(_) => Format::Annotation,
            Kind::Probe(f, _) => *f,
        }
    }

    fn run(&self, bytes: &[u8]) -> Outcome {
        match self {
            Kind::File(f) => exercise(*f, bytes),
            Kind::AnnotationOver(trace) => exercise_annotation(bytes, trace),
            Kind::TraceUnder(idx) => exercise_annotation(idx, bytes),
            Kind::Probe(_, run) => run(bytes),
        }
    }

    /// Bytes of input besides the subject's own (for the allocation cap).
    fn companion_len(&self) -> usize {
        match self {
            Kind::File(_) | Kind::Probe(..) => 0,
            Kind::AnnotationOver(b) | Kind::TraceUnder(b) => b.len(),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Mutation {
    None,
    Truncate(usize),
    Flip(usize, u8),
}

impl fmt::Display for Mutation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mutation::None => write!(f, "unchanged"),
            Mutation::Truncate(n) => write!(f, "truncated to {n} bytes"),
            Mutation::Flip(at, m) => write!(f, "byte {at} ^= 0x{m:02x}"),
        }
    }
}

impl Mutation {
    fn apply(self, bytes: &[u8]) -> Vec<u8> {
        match self {
            Mutation::None => bytes.to_vec(),
            Mutation::Truncate(n) => bytes[..n].to_vec(),
            Mutation::Flip(at, m) => {
                let mut v = bytes.to_vec();
                v[at] ^= m;
                v
            }
        }
    }
}

struct Subject {
    /// E.g. `corpus mpe/p2p_n4.clog2` or `generated CLOG2`.
    name: String,
    kind: Kind,
    bytes: Arc<Vec<u8>>,
    mutations: Vec<Mutation>,
}

/// How many variants a subject gets.
#[derive(Clone, Copy, Debug)]
struct Plan {
    /// Truncations to every length below this.
    first_lengths: usize,
    /// Evenly spaced truncation lengths.
    even_truncations: usize,
    /// Boundaries (block, frame, section starts and ends) used, evenly sampled;
    /// each gives truncations at b - 1, b, b + 1.
    boundaries: usize,
    /// Pseudo-random single-bit flips.
    random_flips: usize,
    /// Masks XORed into every header byte.
    header_masks: &'static [u8],
    /// Blocks (CLOG2 and old-CLOG blocks, SLOG-2 and annotation blocks, SLOG-1
    /// sections and frames, ALOG lines), evenly sampled, whose first
    /// [`BLOCK_HEAD`] bytes are flipped with the header masks too.
    block_heads: usize,
}

/// Bytes at the start of a block flipped for [`Plan::block_heads`].
const BLOCK_HEAD: usize = 48;

/// Generated files: the full sweep.
const FULL: Plan = Plan {
    first_lengths: 256,
    even_truncations: 64,
    boundaries: 32,
    random_flips: 256,
    header_masks: &[0x80, 0x40, 0x01],
    block_heads: 8,
};

/// Corpus files below 256 KiB.
const CORPUS: Plan = Plan {
    first_lengths: 64,
    even_truncations: 24,
    boundaries: 12,
    random_flips: 48,
    header_masks: &[0x80, 0x40],
    block_heads: 2,
};

/// Corpus files from 256 KiB to 1 MiB (four: `srtest_n2.clog2` and `.slog2`,
/// `sppm_ic2a.slog`, `invalid.slog`).
const MID: Plan = Plan {
    first_lengths: 64,
    even_truncations: 16,
    boundaries: 8,
    random_flips: 32,
    header_masks: &[0x40],
    block_heads: 1,
};

/// Corpus files from this size on get [`MID`].
const MID_FILE: usize = 256 << 10;

/// Corpus files of 1 MiB or more (five: the two multi-MB MPE traces and three
/// SLOG-2 files converted from them).
const BIG: Plan = Plan {
    first_lengths: 64,
    even_truncations: 4,
    boundaries: 2,
    random_flips: 6,
    header_masks: &[],
    block_heads: 0,
};

/// Corpus files from this size on get [`BIG`].
const BIG_FILE: usize = 1 << 20;

/// SplitMix64: a fixed-seed generator for flip positions.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Evenly samples at most `n` items of `v`.
fn sample<T: Copy>(v: &[T], n: usize) -> Vec<T> {
    if v.len() <= n {
        return v.to_vec();
    }
    (0..n).map(|i| v[i * v.len() / n]).collect()
}

/// Byte ranges of the headers of a valid file, its blocks' starts and its
/// internal boundaries (block, frame and section starts and ends).
struct Landmarks {
    headers: Vec<Range<usize>>,
    block_starts: Vec<usize>,
    boundaries: Vec<usize>,
}

fn landmarks(kind: &Kind, b: &[u8]) -> Landmarks {
    let mut headers = Vec::new();
    let mut block_starts = Vec::new();
    let mut boundaries = Vec::new();
    match kind {
        Kind::Probe(..) => headers.push(0..4),
        Kind::File(Format::Clog2) | Kind::TraceUnder(_) => {
            // The preamble's tokens (up to the empty token; a trace under an
            // annotation is refused as stale at any preamble change, so there
            // only the blocks), the first records, and the blocks.
            let tokens_end = (0..1024.min(b.len()))
                .find(|&i| b[i] == 0 && b.get(i + 1) == Some(&0))
                .map_or(1024, |i| i + 1);
            if matches!(kind, Kind::File(_)) {
                headers.push(0..tokens_end);
            }
            headers.push(1024..1024 + BLOCK_HEAD);
            let bs = clog2_format::Clog2Reader::from_slice(b)
                .expect("valid CLOG2")
                .preamble()
                .info()
                .block_size as usize;
            let mut at = 1024;
            while at <= b.len() {
                boundaries.push(at);
                at += bs;
            }
            block_starts = boundaries.clone();
        }
        Kind::File(Format::Clog) => {
            headers.push(0..64);
            let f = clog2_format::clog::ClogFile::parse(b).expect("valid old CLOG");
            boundaries.extend((0..=f.blocks.len()).map(|i| i * f.block_size));
            block_starts = boundaries.clone();
        }
        Kind::File(Format::Slog2 | Format::Slog2Compressed) => {
            let (h, _, len) = slog2_format::read::parse_header(b).expect("valid SLOG-2");
            headers.push(0..len as usize);
            for p in [h.categories, h.lineidmaps, h.treeroot, h.treedir] {
                let at = p.offset as usize;
                headers.push(at..at + 16);
            }
            let f = slog2_format::Slog2File::parse(b).expect("valid SLOG-2");
            for block in f.blocks.values() {
                use slog2_format::FileBlock as B;
                let p = match block {
                    B::Node(p) => p.ptr,
                    B::Categories(p) => p.ptr,
                    B::LineIdMaps(p) => p.ptr,
                    B::TreeDir(p) => p.ptr,
                };
                block_starts.push(p.offset as usize);
                boundaries.push(p.offset as usize);
                boundaries.push(p.offset as usize + p.size as usize);
            }
        }
        Kind::File(Format::Annotation) | Kind::AnnotationOver(_) => {
            let len = mpelog_annotate::format::HEADER_LEN as usize;
            headers.push(0..len);
            let Kind::AnnotationOver(trace) = kind else {
                unreachable!("annotations are swept over their trace")
            };
            let a = mpelog_annotate::Annotation::new(Cursor::new(b), Cursor::new(&trace[..]))
                .expect("valid annotation");
            let h = a.header();
            for p in [h.treedir, h.leaf_table, h.defs, h.categories, h.lineidmaps] {
                let at = p.offset as usize;
                headers.push(at..at + 16);
                block_starts.push(at);
                boundaries.push(at);
                boundaries.push(at + p.size as usize);
            }
            // The tree nodes lie between the header and the first of those blocks.
            let first = block_starts.iter().copied().min().unwrap_or(len);
            block_starts.extend((len..first).step_by(256));
        }
        Kind::File(Format::Alog) => {
            if alog_format::z::is_compress(b) {
                headers.push(0..64);
            } else {
                headers.push(0..128);
                boundaries.extend(
                    b.iter()
                        .enumerate()
                        .filter(|(_, &c)| c == b'\n')
                        .map(|(i, _)| i + 1),
                );
                block_starts = boundaries.clone();
            }
        }
        Kind::File(Format::Slog1) => {
            use slog2_format::slog1::Part;
            headers.push(0..slog2_format::slog1::HEADER_LEN as usize);
            let f = slog2_format::slog1::Slog1File::parse(b).expect("valid SLOG-1");
            for (start, end, part) in f.regions() {
                if matches!(part, Part::Frame(_)) {
                    block_starts.push(start as usize);
                } else {
                    headers.push(start as usize..start as usize + 16);
                }
                boundaries.push(start as usize);
                boundaries.push(end as usize);
            }
        }
        Kind::File(f) => panic!("no layout of {f} files for the sweep"),
    }
    for h in &mut headers {
        h.end = h.end.min(b.len());
        h.start = h.start.min(h.end);
    }
    for v in [&mut block_starts, &mut boundaries] {
        v.retain(|&at| at <= b.len());
        v.sort_unstable();
        v.dedup();
    }
    Landmarks {
        headers,
        block_starts,
        boundaries,
    }
}

fn subject(name: String, kind: Kind, bytes: Vec<u8>, plan: Plan) -> Subject {
    let len = bytes.len();
    let marks = landmarks(&kind, &bytes);
    let mut cuts: Vec<usize> = (0..plan.first_lengths.min(len)).collect();
    cuts.extend((0..plan.even_truncations).map(|i| i * len / plan.even_truncations.max(1)));
    for b in sample(&marks.boundaries, plan.boundaries) {
        cuts.extend([b.saturating_sub(1), b, b + 1]);
    }
    let mut mutations = vec![Mutation::None];
    mutations.extend(
        cuts.into_iter()
            .filter(|&n| n < len)
            .map(Mutation::Truncate),
    );
    let mut rng = Rng(0x5eed_0000 ^ len as u64);
    if len > 0 {
        for _ in 0..plan.random_flips {
            let r = rng.next();
            mutations.push(Mutation::Flip((r >> 8) as usize % len, 1 << (r & 7)));
        }
    }
    let mut flipped = marks.headers.clone();
    flipped.extend(
        sample(&marks.block_starts, plan.block_heads)
            .into_iter()
            .map(|at| at..(at + BLOCK_HEAD).min(len)),
    );
    for h in &flipped {
        for at in h.clone() {
            for &m in plan.header_masks {
                mutations.push(Mutation::Flip(at, m));
            }
        }
    }
    mutations.sort_unstable();
    mutations.dedup();
    Subject {
        name,
        kind,
        bytes: Arc::new(bytes),
        mutations,
    }
}

// ---------------------------------------------------------------------------
// Running a sweep.

/// What a sweep found, per format.
#[derive(Default)]
struct Tally {
    variants: u64,
    all_values: u64,
    with_errors: u64,
    time: Duration,
    slowest: (Duration, String),
    peak_single: (usize, String),
    peak_live: (usize, String),
    panics: Vec<String>,
    over_cap: Vec<String>,
}

#[derive(Default)]
struct Report {
    formats: BTreeMap<Format, Tally>,
    /// Per subject: name, variants, time.
    subjects: Vec<(String, usize, Duration)>,
}

impl Report {
    fn problems(&self) -> usize {
        self.formats
            .values()
            .map(|t| t.panics.len() + t.over_cap.len())
            .sum()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mib = |n: usize| n as f64 / MIB as f64;
        for (format, t) in &self.formats {
            writeln!(
                f,
                "  {format}: {} variants ({} all values, {} with errors) in {:.1} s; slowest {:.0} ms ({}); largest allocation {:.2} MiB ({}); peak live {:.2} MiB ({}); {} panics, {} over the allocation cap",
                t.variants,
                t.all_values,
                t.with_errors,
                t.time.as_secs_f64(),
                t.slowest.0.as_secs_f64() * 1e3,
                t.slowest.1,
                mib(t.peak_single.0),
                t.peak_single.1,
                mib(t.peak_live.0),
                t.peak_live.1,
                t.panics.len(),
                t.over_cap.len(),
            )?;
            for p in t.panics.iter().take(20) {
                writeln!(f, "    PANIC {p}")?;
            }
            for p in t.over_cap.iter().take(20) {
                writeln!(f, "    ALLOCATION {p}")?;
            }
        }
        Ok(())
    }
}

/// The variant running now: its start (ns since `EPOCH`, 0 = none) and index.
static RUNNING_SINCE: AtomicU64 = AtomicU64::new(0);
static RUNNING_LABEL: Mutex<String> = Mutex::new(String::new());

fn epoch() -> Instant {
    static EPOCH: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

/// Runs every variant of every subject, one at a time, in a worker thread; fails
/// on a variant that runs longer than `hang_limit`.
fn sweep(subjects: Vec<Subject>, hang_limit: Duration) -> Report {
    install_panic_hook();
    let _ = epoch();
    let trace = std::env::var_os("MPELOG_SWEEP_TRACE").is_some();
    let worker = std::thread::Builder::new()
        .name("sweep-worker".into())
        // The stack of a program's main thread, where `mpelog` runs its readers.
        .stack_size(8 * MIB)
        .spawn(move || {
            let mut report = Report::default();
            for s in &subjects {
                let format = s.kind.format();
                let subject_start = Instant::now();
                for &m in &s.mutations {
                    let label = format!("{}: {m}", s.name);
                    if trace {
                        eprintln!("sweep: {label}");
                    }
                    let input = m.apply(&s.bytes);
                    let cap = alloc_cap(input.len() + s.kind.companion_len());
                    *RUNNING_LABEL.lock().unwrap() = label.clone();
                    PANICS.lock().unwrap().clear();
                    PEAK_SINGLE.store(0, SeqCst);
                    let base = LIVE.load(SeqCst);
                    PEAK_LIVE.store(base, SeqCst);
                    let start = Instant::now();
                    RUNNING_SINCE.store((start - epoch()).as_nanos() as u64 + 1, SeqCst);
                    SWEEPING.store(true, SeqCst);
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        s.kind.run(&input)
                    }));
                    SWEEPING.store(false, SeqCst);
                    RUNNING_SINCE.store(0, SeqCst);
                    let took = start.elapsed();
                    let single = PEAK_SINGLE.load(SeqCst);
                    let live = PEAK_LIVE.load(SeqCst).saturating_sub(base);
                    let t = report.formats.entry(format).or_default();
                    t.variants += 1;
                    t.time += took;
                    if took > t.slowest.0 {
                        t.slowest = (took, label.clone());
                    }
                    if single > t.peak_single.0 {
                        t.peak_single = (single, format!("{label}, input {} bytes", input.len()));
                    }
                    if live > t.peak_live.0 {
                        t.peak_live = (live, label.clone());
                    }
                    if single >= cap {
                        t.over_cap.push(format!(
                            "{label}: one allocation of {single} bytes, cap {cap} for {} input bytes",
                            input.len() + s.kind.companion_len()
                        ));
                    }
                    match r {
                        Ok(o) if o.all_values() => t.all_values += 1,
                        Ok(_) => t.with_errors += 1,
                        Err(_) => {
                            let msgs = std::mem::take(&mut *PANICS.lock().unwrap());
                            t.panics.push(format!("{label}: {}", msgs.join(" | ")));
                        }
                    }
                }
                report
                    .subjects
                    .push((s.name.clone(), s.mutations.len(), subject_start.elapsed()));
            }
            report
        })
        .expect("spawn the sweep worker");
    loop {
        if worker.is_finished() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
        let since = RUNNING_SINCE.load(SeqCst);
        if since != 0 {
            let now = (Instant::now() - epoch()).as_nanos() as u64;
            if now.saturating_sub(since - 1) > hang_limit.as_nanos() as u64 {
                let label = RUNNING_LABEL.lock().unwrap().clone();
                panic!("hang: one exercise has run for more than {hang_limit:?}: {label}");
            }
        }
    }
    match worker.join() {
        Ok(r) => r,
        Err(_) => panic!("the sweep worker itself panicked"),
    }
}

fn summarize(what: &str, report: &Report, took: Duration) -> String {
    let counts: Vec<String> = report
        .formats
        .iter()
        .map(|(f, t)| format!("{f} {}", t.variants))
        .collect();
    let mut slow = report.subjects.clone();
    slow.sort_by_key(|s| std::cmp::Reverse(s.2));
    let slow: Vec<String> = slow
        .iter()
        .take(5)
        .map(|(n, v, t)| format!("{n} ({v} variants, {:.1} s)", t.as_secs_f64()))
        .collect();
    format!(
        "{what}: variants per format: {} (total {}), {:.1} s; slowest files: {}\n{report}",
        counts.join(", "),
        report.formats.values().map(|t| t.variants).sum::<u64>(),
        took.as_secs_f64(),
        slow.join(", ")
    )
}

// ---------------------------------------------------------------------------
// Generated files.

fn gen_clog2() -> Vec<u8> {
    clog2_format::synth::generate_vec(
        &clog2_format::synth::Options::default()
            .ranks(3)
            .events(1500)
            .seed(8)
            .block_size(1024),
    )
    .unwrap()
}

fn to_slog2(clog2: &[u8], compression: slog2_format::frame::Compression) -> Vec<u8> {
    let mut r = clog2_format::Clog2Reader::from_slice(clog2).unwrap();
    let opts = slog2_format::write::TreeOptions::default()
        .leaf_bytes(2048)
        .children(3)
        .compression(compression);
    let (out, _) =
        slog2_format::convert::clog2_to_slog2(&mut r, Cursor::new(Vec::new()), opts, |_| {})
            .unwrap();
    out.into_inner()
}

fn annotation(clog2: &[u8], leaf_bytes: u32) -> Vec<u8> {
    let mut r = clog2_format::Clog2Reader::from_slice(clog2).unwrap();
    let (out, _) = mpelog_annotate::annotate(
        &mut r,
        Cursor::new(Vec::new()),
        mpelog_annotate::AnnotateOptions::default()
            .tree(
                slog2_format::write::TreeOptions::default()
                    .leaf_bytes(leaf_bytes)
                    .children(2),
            )
            .trace(clog2.len() as u64, &clog2[..1024]),
        |_| {},
    )
    .unwrap();
    out.into_inner()
}

/// An old CLOG file of several 1024-byte blocks: definitions, nested states,
/// messages both ways, an event nothing declares.
fn gen_clog() -> Vec<u8> {
    use clog2_format::clog::{
        Body, ClogWriter, CommEvent, MsgEvent, RawEvent, Record, SrcLoc, StateDef,
    };
    use clog2_format::FixedBytes;
    let raw = |t: f64, proc_: i32, etype: i32, data: i32, s: &str| {
        Record::new(
            t,
            proc_,
            Body::Raw(RawEvent {
                etype,
                data,
                srcloc: 900,
                pad: FixedBytes::ZERO,
                string: FixedBytes::from_str_truncated(s),
            }),
        )
    };
    let statedef = |start: i32, end: i32, color: &str, name: &str| {
        Record::new(
            0.0,
            0,
            Body::StateDef(StateDef {
                stateid: 200,
                startetype: start,
                endetype: end,
                pad: FixedBytes::ZERO,
                color: FixedBytes::from_str_truncated(color),
                description: FixedBytes::from_str_truncated(name),
            }),
        )
    };
    let mut recs = vec![
        Record::new(
            0.0,
            0,
            Body::SrcLoc(SrcLoc {
                srcloc: 900,
                lineno: 1,
                filename: FixedBytes::from_str_truncated("gen.c"),
            }),
        ),
        Record::new(
            0.0,
            0,
            Body::Comm(CommEvent {
                etype: 101,
                parent: -1,
                newcomm: 91,
                srcloc: 900,
            }),
        ),
        statedef(500, 501, "red", "Work"),
        statedef(502, 503, "blue", "Inner"),
    ];
    for i in 0..60 {
        let t = 1.0 + i as f64;
        let p = i % 3;
        recs.push(raw(t, p, 500, i, "work"));
        recs.push(raw(t + 0.1, p, 502, i, ""));
        recs.push(raw(t + 0.2, p, -101, (p + 1) % 3, &format!("{i} 64")));
        recs.push(raw(t + 0.3, (p + 1) % 3, -102, p, &format!("{i} 64")));
        recs.push(Record::new(
            t + 0.35,
            p,
            Body::Msg(MsgEvent {
                etype: -101,
                tag: i,
                partner: (p + 2) % 3,
                comm: 91,
                size: 8,
                srcloc: 900,
            }),
        ));
        recs.push(raw(t + 0.4, p, 503, i, ""));
        recs.push(raw(t + 0.5, p, 501, i, ""));
    }
    let mut w = ClogWriter::new(Vec::new(), 1024).unwrap();
    for r in &recs {
        w.push(r).unwrap();
    }
    w.finish().unwrap()
}

/// A small ALOG file: header, state definitions, states, messages.
fn gen_alog() -> Vec<u8> {
    let mut s = String::from(
        "-1 0 0 0 0 0 Me\n-2 0 0 130 0 0\n-3 0 0 3 0 0\n-4 0 0 1 0 0\n-5 0 0 4 0 0\n\
         -6 0 0 0 0 0\n-7 0 0 0 0 99000\n-8 0 0 1 0 0\n-11 0 0 0 0 0\n\
         -13 0 1 2 0 0 red:vlines3 Broadcast\n-13 0 3 4 0 0 blue:gray3 Compute\n",
    );
    for i in 0..20u32 {
        let t = 1000 + 4000 * i;
        for p in 0..3 {
            s += &format!("1 {p} 0 0 0 {} start\n", t + 10 * p);
            s += &format!("2 {p} 0 0 0 {} end\n", t + 500 + 10 * p);
            s += &format!("3 {p} 0 0 0 {} \n", t + 600 + 10 * p);
        }
        s += &format!("-101 0 0 1 0 {} {i} 8\n", t + 700);
        s += &format!("-102 1 0 0 0 {} {i} 8\n", t + 900);
        for p in 0..3 {
            s += &format!("4 {p} 0 0 0 {} \n", t + 3000 + 10 * p);
        }
    }
    s.into_bytes()
}

/// Unix `compress` (LZW, block mode, up to 16 bits), as [`alog_format::z`]
/// reads it: code width grows when the next entry needs it, and the bit
/// position is then rounded up to a whole group of `n_bits` bytes.
fn lzw_compress(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x9d, 0x90];
    let mut bits: Vec<u8> = Vec::new();
    let mut pos = 0u64;
    let mut group_start = 0u64;
    let mut n_bits = 9u32;
    let mut put = |code: u32, n_bits: u32, pos: &mut u64| {
        for k in 0..n_bits {
            let byte = (*pos / 8) as usize;
            if byte >= bits.len() {
                bits.push(0);
            }
            if code >> k & 1 == 1 {
                bits[byte] |= 1 << (*pos % 8);
            }
            *pos += 1;
        }
    };
    let mut dict: std::collections::HashMap<(u32, u8), u32> = Default::default();
    let mut free = 257u32;
    let mut emitted = 0u32;
    let mut w: Option<u32> = None;
    let mut codes = Vec::new();
    for &c in data {
        match w {
            None => w = Some(c as u32),
            Some(p) => {
                if let Some(&code) = dict.get(&(p, c)) {
                    w = Some(code);
                } else {
                    codes.push(p);
                    if free < 1 << 16 {
                        dict.insert((p, c), free);
                        free += 1;
                    }
                    w = Some(c as u32);
                }
            }
        }
    }
    codes.extend(w);
    for code in codes {
        // The decoder's next free entry when it reads this code.
        let f = 257 + emitted.max(1) - 1;
        if f > (1 << n_bits) - 1 && n_bits < 16 {
            let g = u64::from(n_bits) * 8;
            pos = group_start + (pos - group_start).div_ceil(g) * g;
            group_start = pos;
            n_bits += 1;
        }
        put(code, n_bits, &mut pos);
        emitted += 1;
    }
    bits.resize(pos.div_ceil(8) as usize, 0);
    out.extend(bits);
    out
}

/// A SLOG-1 file of several 300-byte frames: states of two types on three
/// nodes, a long state, arrows with an association.
fn gen_slog1() -> Vec<u8> {
    use slog2_format::slog1::*;
    let state = |t: u16, s: f64, d: f64, node: u16, args: Vec<u32>| IntervalRecord {
        rectype: 64,
        intvltype: t,
        bebits: 3,
        starttime: s,
        duration: d,
        origin: TaskLabel {
            node,
            cpu: 0,
            thread: 0,
        },
        destination: None,
        instr_addr: 0x1000,
        assocs: vec![],
        args: RecordArgs::Fixed(args),
    };
    let mut records = vec![state(1, 0.0, 10.0, 0, vec![])];
    for i in 0..24u32 {
        let t = 0.4 * i as f64;
        records.push(state(2, t, 0.25, 1 + (i % 2) as u16, vec![i, 2 * i]));
        if i % 3 == 0 {
            records.push(IntervalRecord {
                rectype: 192,
                intvltype: 10001,
                destination: Some(TaskLabel {
                    node: 2,
                    cpu: 0,
                    thread: 0,
                }),
                assocs: vec![7],
                ..state(10001, t + 0.1, 0.3, 1, vec![i])
            });
        }
    }
    let recdef = |intvltype, nassocs, nargs| RecDef {
        intvltype,
        bebits: 3,
        nassocs,
        nargs,
    };
    let input = BuildInput {
        preview: b"preview".to_vec(),
        threads: (0..3)
            .map(|n| ThreadInfo {
                node_id: n,
                thread_id: 0,
                os_process_id: 100 + n as u32,
                os_thread_id: 7,
                app_id: n as u32,
            })
            .collect(),
        profile: vec![
            ProfileEntry::new(1, 3, "state", "Running", "DimGrey", &[]),
            ProfileEntry::new(2, 3, "state", "Compute", "green", &["i", "twice"]),
            ProfileEntry::new(10001, 3, "message", "forward arrow", "white", &["tag"]),
        ],
        recdefs: vec![recdef(1, 0, 0), recdef(2, 0, 2), recdef(10001, 1, 1)],
        records,
    };
    build(
        &input,
        BuildOptions::default()
            .frame_bytesize(300)
            .max_ndirframe(40)
            .nbin(16),
    )
    .unwrap()
    .to_bytes()
    .unwrap()
}

fn generated_subjects() -> Vec<Subject> {
    use slog2_format::frame::Compression;
    let clog2 = gen_clog2();
    let slog2 = to_slog2(&clog2, Compression::None);
    let slog2z = to_slog2(&clog2, Compression::Columns(4));
    let idx = annotation(&clog2, 4096);
    let alog = gen_alog();
    let alog_z = lzw_compress(&alog);
    assert_eq!(
        alog_format::z::decompress(&alog_z, 1 << 20).unwrap(),
        alog,
        "the test's compressor"
    );
    let clog = gen_clog();
    let slog1 = gen_slog1();
    let files = [
        ("CLOG2", Format::Clog2, clog2.clone()),
        ("SLOG-2", Format::Slog2, slog2),
        ("SLOG-2Z", Format::Slog2Compressed, slog2z),
        ("old CLOG", Format::Clog, clog),
        ("ALOG", Format::Alog, alog),
        ("ALOG .Z", Format::Alog, alog_z),
        ("SLOG-1", Format::Slog1, slog1),
    ];
    let mut subjects = Vec::new();
    for (name, format, bytes) in files {
        assert_eq!(detect(&bytes), Some(format), "generated {name}");
        let o = exercise(format, &bytes);
        assert!(o.all_values(), "generated {name} is valid: {o:?}");
        subjects.push(subject(
            format!("generated {name}"),
            Kind::File(format),
            bytes,
            FULL,
        ));
    }
    let clog2 = Arc::new(clog2);
    assert_eq!(detect(&idx), Some(Format::Annotation));
    let o = exercise_annotation(&idx, &clog2);
    assert!(o.all_values(), "generated annotation is valid: {o:?}");
    subjects.push(subject(
        "generated annotation (over its valid trace)".into(),
        Kind::AnnotationOver(clog2.clone()),
        idx.clone(),
        FULL,
    ));
    subjects.push(subject(
        "generated trace (under its valid annotation)".into(),
        Kind::TraceUnder(Arc::new(idx)),
        clog2.to_vec(),
        Plan {
            first_lengths: 0,
            even_truncations: 16,
            boundaries: 0,
            random_flips: 256,
            header_masks: &[0x80, 0x01],
            block_heads: 8,
        },
    ));
    subjects
}

/// Prints the summary where `cargo test` shows it even for a passing test: the
/// test harness captures `print!`/`eprint!`, not writes to the stderr handle.
fn show(summary: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{summary}");
}

#[test]
fn generated_files_survive_corruption() {
    let _lock = SWEEP_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let start = Instant::now();
    let report = sweep(generated_subjects(), HANG_LIMIT);
    let summary = summarize("generated files", &report, start.elapsed());
    show(&summary);
    assert_eq!(report.problems(), 0, "{summary}");
}

// ---------------------------------------------------------------------------
// Corpus files.

const MPE: &[&str] = &[
    "colls_n1",
    "colls_n2",
    "colls_n4",
    "colls_n8",
    "colls_n16",
    "comm1_isr_n4",
    "comm1_isr_loop_n2",
    "cpi_n4",
    "cpilog_n1",
    "cpilog_n2",
    "cpilog_n4",
    "cpilog_n4_bs4k",
    "cpilog_n8",
    "cpilog_pack_n4",
    "iotest_n2",
    "many_events_n4",
    "nested_states_n1",
    "nested_states_n2",
    "nested_states_n4",
    "nested_states_n16",
    "p2p_n2",
    "p2p_n4",
    "p2p_n4_bs4k",
    "p2p_n8",
    "p2p_n16",
    "srtest_n2",
];

const MPE_SLOG2_VARIANTS: &[&str] = &[
    "colls_n16_ls4k_nc4",
    "cpilog_n4_filtered",
    "cpilog_n4_ls1k",
    "many_events_n4_ls4k_nc4",
    "nested_states_n4_ls4k_nc4",
    "p2p_n4_ls1k",
    "p2p_n8_ls4k_nc4",
];

const HISTORIC_SLOG2: &[&str] = &[
    "arrow",
    "arrow_fromtxt",
    "arrow_old_fromtxt",
    "data",
    "data1_fromtxt",
    "data_fromtxt",
    "data_old_fromtxt",
    "fpilog",
    "fpilog_fromclog",
    "fpilog_fromclog_ls400",
    "onetimeline_fromtxt",
];

const CLOG1: &[&str] = &["simple", "arrowtest", "nesttest", "fpilog"];

const ALOG: &[&str] = &[
    "cpilog.alog",
    "srtest.alog",
    "cpilog.log",
    "monte.log",
    "gmm.log",
    "fpilog_profile.log",
    "systest_profile.log",
    "sam_hyp.16.log",
    "gmmlog_profile.log.Z",
];

const SLOG1: &[&str] = &["sample", "sppm_ic2a", "invalid"];

/// Every corpus file the sweep reads, relative to the corpus root, with its
/// format.
fn corpus_files() -> Vec<(String, Format)> {
    let each = |names: &[&str], pattern: &str, f: Format| -> Vec<(String, Format)> {
        names
            .iter()
            .map(|n| (pattern.replace("{}", n), f))
            .collect()
    };
    let mut v = each(MPE, "mpe/{}.clog2", Format::Clog2);
    v.extend(each(MPE, "mpe/{}.slog2", Format::Slog2));
    v.extend(each(MPE_SLOG2_VARIANTS, "mpe/{}.slog2", Format::Slog2));
    v.extend(each(HISTORIC_SLOG2, "historic/{}.slog2", Format::Slog2));
    v.push(("historic/fpilog.clog".into(), Format::Clog));
    v.extend(each(CLOG1, "mpich1/clog1/{}.clog", Format::Clog));
    v.extend(each(ALOG, "mpich1/alog/{}", Format::Alog));
    v.extend(each(SLOG1, "mpich1/slog1/{}.slog", Format::Slog1));
    v
}

/// Corpus traces also annotated (small, 4 KiB blocks, so several leaves) and
/// converted to compressed SLOG-2, for those two formats, which the corpus
/// does not hold.
const DERIVED: &[&str] = &["cpilog_n4_bs4k", "p2p_n4_bs4k"];

fn corpus_subjects(root: &Path) -> Vec<Subject> {
    let read = |rel: &str| -> Vec<u8> {
        let p: PathBuf = root.join(rel);
        std::fs::read(&p).unwrap_or_else(|e| panic!("corpus file {}: {e}", p.display()))
    };
    let mut subjects = Vec::new();
    for (rel, format) in corpus_files() {
        let bytes = read(&rel);
        assert_eq!(detect(&bytes), Some(format), "{rel}");
        let plan = match bytes.len() {
            n if n >= BIG_FILE => BIG,
            n if n >= MID_FILE => MID,
            _ => CORPUS,
        };
        subjects.push(subject(
            format!("corpus {rel}"),
            Kind::File(format),
            bytes,
            plan,
        ));
    }
    for name in DERIVED {
        let clog2 = read(&format!("mpe/{name}.clog2"));
        let z = to_slog2(&clog2, slog2_format::frame::Compression::Columns(4));
        assert_eq!(detect(&z), Some(Format::Slog2Compressed));
        subjects.push(subject(
            format!("SLOG-2Z converted from corpus mpe/{name}.clog2"),
            Kind::File(Format::Slog2Compressed),
            z,
            CORPUS,
        ));
        let idx = annotation(&clog2, 8192);
        let clog2 = Arc::new(clog2);
        subjects.push(subject(
            format!("annotation of corpus mpe/{name}.clog2"),
            Kind::AnnotationOver(clog2.clone()),
            idx.clone(),
            CORPUS,
        ));
        subjects.push(subject(
            format!("corpus mpe/{name}.clog2 under its annotation"),
            Kind::TraceUnder(Arc::new(idx)),
            clog2.to_vec(),
            Plan {
                first_lengths: 0,
                even_truncations: 4,
                boundaries: 0,
                random_flips: 48,
                header_masks: &[0x80],
                block_heads: 2,
            },
        ));
    }
    subjects
}

#[test]
fn corpus_files_survive_corruption() {
    let Some(root) = mpelog_conformance::corpus::root() else {
        return;
    };
    let _lock = SWEEP_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let start = Instant::now();
    let subjects = corpus_subjects(&root);
    let report = sweep(subjects, HANG_LIMIT);
    let summary = summarize("corpus files", &report, start.elapsed());
    show(&summary);
    assert_eq!(report.problems(), 0, "{summary}");
}

// ---------------------------------------------------------------------------
// The harness itself.

fn probe_panics(b: &[u8]) -> Outcome {
    assert!(b.first() != Some(&(b'a' ^ 0x40)), "probe panic");
    exercise(Format::Alog, b)
}

fn probe_allocates(b: &[u8]) -> Outcome {
    if b.first() == Some(&(b'a' ^ 0x80)) {
        // A "reader" trusting a corrupted count: 64 MiB of capacity, untouched.
        let v: Vec<u8> = Vec::with_capacity(64 * MIB);
        std::hint::black_box(&v);
    }
    exercise(Format::Alog, b)
}

fn probe_hangs(b: &[u8]) -> Outcome {
    if b.len() == 1 {
        std::thread::sleep(Duration::from_millis(900));
    }
    exercise(Format::Alog, b)
}

/// The sweep reports a panicking variant and an allocation over the cap (with
/// the variant), and fails on a variant that runs too long.
#[test]
fn the_harness_catches_panics_big_allocations_and_hangs() {
    let _lock = SWEEP_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let plan = Plan {
        first_lengths: 2,
        even_truncations: 0,
        boundaries: 0,
        random_flips: 0,
        header_masks: &[0x80, 0x40],
        block_heads: 0,
    };
    let text = b"abcd".to_vec();
    let subjects = vec![
        subject(
            "panics".into(),
            Kind::Probe(Format::Alog, probe_panics),
            text.clone(),
            plan,
        ),
        subject(
            "allocates".into(),
            Kind::Probe(Format::Slog1, probe_allocates),
            text.clone(),
            plan,
        ),
    ];
    let report = sweep(subjects, HANG_LIMIT);
    let alog = &report.formats[&Format::Alog];
    // Unchanged, 2 truncations, 4 bytes × 2 masks.
    assert_eq!(alog.variants, 11);
    assert_eq!(alog.panics.len(), 1, "{report}");
    assert!(alog.panics[0].starts_with("panics: byte 0 ^= 0x40: panicked at "));
    assert!(alog.panics[0].contains("probe panic"), "{report}");
    assert!(alog.over_cap.is_empty());
    let slog1 = &report.formats[&Format::Slog1];
    assert!(slog1.panics.is_empty());
    assert_eq!(slog1.over_cap.len(), 1, "{report}");
    assert!(
        slog1.over_cap[0]
            .starts_with("allocates: byte 0 ^= 0x80: one allocation of 67108864 bytes"),
        "{report}"
    );
    assert_eq!(report.problems(), 2);

    let hang = vec![subject(
        "hangs".into(),
        Kind::Probe(Format::Alog, probe_hangs),
        text,
        plan,
    )];
    EXPECTING_HANG.store(true, SeqCst);
    let r = std::panic::catch_unwind(|| sweep(hang, Duration::from_millis(200)));
    EXPECTING_HANG.store(false, SeqCst);
    let msg = r.err().expect("the sweep fails on the slow variant");
    let msg = msg.downcast_ref::<String>().expect("a formatted message");
    assert!(
        msg.contains("hang: one exercise has run for more than 200ms: hangs: truncated to 1 bytes"),
        "{msg}"
    );
    // Let the slow variant end before another sweep starts.
    while RUNNING_SINCE.load(SeqCst) != 0 {
        std::thread::sleep(Duration::from_millis(20));
    }
}
