//! Runs window queries in a loop, for profiling (`valgrind --tool=callgrind`):
//! `cargo run --release -p mpelog-annotate --example window_profile -- TRACE.clog2
//! TRACE.clog2.idx TRACE.slog2 annotation|annotation_buf|slog2|slog2_buf N`. The window is the one the
//! `annotate` bench uses: about 10,000 drawables around the middle of the trace.

use mpelog_annotate::Annotation;
use slog2_format::Slog2Reader;
use std::fs::File;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a.len() != 6 {
        eprintln!(
            "usage: window_profile TRACE IDX SLOG2 annotation|annotation_buf|slog2|slog2_buf N"
        );
        std::process::exit(2);
    }
    let n: usize = a[5].parse().expect("N");
    let mut s = Slog2Reader::new(File::open(&a[3]).expect("slog2")).expect("open slog2");
    let root = s.tree_dir().expect("treedir").value.entries[0];
    let mid = (root.earliest + root.latest) / 2.0;
    let mut width = (root.latest - root.earliest) / 1000.0;
    let want = 10_000usize;
    let mut got = 0;
    for _ in 0..30 {
        got = s
            .window(mid - width / 2.0, mid + width / 2.0)
            .expect("window")
            .drawables
            .len();
        if got.abs_diff(want) * 50 < want {
            break;
        }
        width *= want as f64 / got.max(1) as f64;
    }
    let (t0, t1) = (mid - width / 2.0, mid + width / 2.0);
    let mut ann = Annotation::new(
        File::open(&a[2]).expect("idx"),
        File::open(&a[1]).expect("trace"),
    )
    .expect("open annotation");
    let mut total = 0;
    let mut buf = slog2_format::WindowBuf::new();
    let t = std::time::Instant::now();
    for _ in 0..n {
        total += match a[4].as_str() {
            "annotation" => ann.window(t0, t1).expect("window").drawables.len(),
            "annotation_buf" => {
                ann.window_into(&mut buf, t0, t1).expect("window");
                buf.drawables_len()
            }
            "slog2_buf" => {
                s.window_into(&mut buf, t0, t1).expect("window");
                buf.drawables_len()
            }
            _ => s.window(t0, t1).expect("window").drawables.len(),
        };
    }
    eprintln!(
        "{} x {}: {} drawables per window ({got} in SLOG-2), {:.3} ms each",
        a[4],
        n,
        total / n.max(1),
        t.elapsed().as_secs_f64() * 1e3 / n.max(1) as f64
    );
}
