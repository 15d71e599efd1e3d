//! `check` and the info decoder never panic, whatever the bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = slog2_format::check::check(std::io::Cursor::new(data), 5);
    if let Some((&n, rest)) = data.split_first() {
        let (types, bytes) = rest.split_at((n as usize).min(rest.len()));
        let _ = slog2_format::info::decode(types, bytes);
    }
});
