//! Window and preview queries never panic or loop, whatever the bytes. The last
//! 17 bytes choose the window (two f64) and the pixel count.
#![no_main]

use libfuzzer_sys::fuzz_target;
use slog2_format::Slog2Reader;
use std::io::Cursor;

fuzz_target!(|data: &[u8]| {
    if data.len() < 17 {
        return;
    }
    let (file, q) = data.split_at(data.len() - 17);
    let a = f64::from_be_bytes(q[0..8].try_into().unwrap());
    let b = f64::from_be_bytes(q[8..16].try_into().unwrap());
    let Ok(mut r) = Slog2Reader::open(Cursor::new(file)) else {
        return;
    };
    let _ = r.window(a, b);
    let _ = r.window(f64::NEG_INFINITY, f64::INFINITY);
    let _ = r.window_preview(a, b, q[16] as u32);
});
