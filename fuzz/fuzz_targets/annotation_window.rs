//! Opening an annotation and querying it never panics or loops, whatever its
//! bytes: the input is the annotation (after a byte choosing the window), over a
//! fixed, valid generated trace; one in four inputs also corrupts the trace.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mpelog_annotate::Annotation;
use std::io::Cursor;
use std::sync::OnceLock;

fn trace() -> &'static Vec<u8> {
    static T: OnceLock<Vec<u8>> = OnceLock::new();
    T.get_or_init(|| {
        clog2_format::synth::generate_vec(
            &clog2_format::synth::Options::default()
                .ranks(3)
                .events(3000)
                .seed(5)
                .block_size(1024),
        )
        .unwrap()
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&q, idx)) = data.split_first() else {
        return;
    };
    let mut t = trace().clone();
    if q & 3 == 0 && !idx.is_empty() {
        let i = idx[0] as usize * 37 % t.len();
        t[i] ^= 0x5a;
    }
    let Ok(mut a) = Annotation::new(Cursor::new(idx), Cursor::new(&t)) else {
        return;
    };
    let (t0, t1) = (a.header().earliest, a.header().latest);
    let _ = a.window(f64::NEG_INFINITY, f64::INFINITY);
    let mid = t0 + (t1 - t0) * (q as f64 / 255.0);
    let _ = a.window(mid, mid + (t1 - t0) / 16.0);
});
