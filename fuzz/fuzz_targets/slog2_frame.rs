//! Compressed tree-node frames (SLOG 2.0.6Z) never panic, and a frame never
//! makes the decoder allocate much more than its limit, whatever the bytes.
//!
//! The first 16 bytes choose the limit (u32 BE, taken modulo 4 MiB + 1) and the
//! frame's pointer (i64 BE offset, i32 BE size); the frame is `rest[offset..
//! offset + size]` when that lies inside the rest, else the whole rest.
//!
//! (a) `frame::decode` of that frame. A node that decodes re-encodes, with every
//!     codec, to a frame that decodes to it again.
//! (b) The rest as a whole SLOG-2 file: open, the full window, a preview and
//!     `check` (files whose version is "SLOG 2.0.6Z" take the frame path).
//!
//! Seeds: small compressed files with a 16-byte prefix naming their root frame.
#![no_main]

use libfuzzer_sys::fuzz_target;
use slog2_format::frame::{self, Compression};
use slog2_format::{FileBlockPtr, Slog2Reader};
use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Cursor;
use std::sync::atomic::{AtomicIsize, Ordering::Relaxed};

/// The system allocator, counting live and peak bytes.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

fn add(n: isize) {
    let v = LIVE.fetch_add(n, Relaxed) + n;
    PEAK.fetch_max(v, Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            add(l.size() as isize);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(l) };
        if !p.is_null() {
            add(l.size() as isize);
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        add(-(l.size() as isize));
    }

    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            add(new as isize);
            add(-(l.size() as isize));
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Largest limit tried for a lone frame.
const MAX_LIMIT: u64 = 4 << 20;

/// What decoding may allocate: the node (at most `limit`), the column form's
/// buffer (about as much), either doubled once when the payload inflates to more
/// than announced (the Vec grows to hold the byte that tells), old and new block
/// counted together during that realloc; plus the inflater's state.
fn allowance(limit: u64) -> u64 {
    4 * limit + (1 << 20)
}

/// Every way of framing nodes (add new codecs here).
const CODECS: &[Compression] = &[
    Compression::Stored,
    Compression::Deflate(1),
    Compression::Columns(4),
];

fuzz_target!(|data: &[u8]| {
    if data.len() < 16 {
        return;
    }
    let (head, rest) = data.split_at(16);
    let limit = u64::from(u32::from_be_bytes(head[0..4].try_into().unwrap())) % (MAX_LIMIT + 1);
    let ptr = FileBlockPtr {
        offset: i64::from_be_bytes(head[4..12].try_into().unwrap()),
        size: i32::from_be_bytes(head[12..16].try_into().unwrap()),
    };
    let frame_bytes = usize::try_from(ptr.offset)
        .ok()
        .zip(usize::try_from(ptr.size).ok())
        .and_then(|(o, n)| rest.get(o..o.checked_add(n)?))
        .unwrap_or(rest);

    // (a) One frame.
    let mut node = Vec::new();
    let start = LIVE.load(Relaxed);
    PEAK.store(start, Relaxed);
    let decoded = frame::decode(frame_bytes, ptr, limit, &mut node);
    let peak = (PEAK.load(Relaxed) - start).max(0) as u64;
    assert!(
        peak <= allowance(limit),
        "decoding a {}-byte frame with limit {limit} allocated {peak} bytes",
        frame_bytes.len()
    );
    if decoded.is_ok() {
        assert!(node.len() as u64 <= limit && node.len() >= frame::NODE_HEADER_LEN);
        let offset = ptr.offset.max(0) as u64;
        for &c in CODECS {
            let mut plain = node.clone();
            let mut f = Vec::new();
            let p = frame::encode(&mut plain, offset, c, &mut f).unwrap();
            let mut back = Vec::new();
            frame::decode(&f, p, node.len() as u64, &mut back)
                .unwrap_or_else(|e| panic!("{c:?}: a re-encoded node does not decode: {e}"));
            assert!(
                back == plain,
                "{c:?}: a re-encoded node decodes to other bytes"
            );
            assert!(
                back[..22] == node[..22] && back[34..] == node[34..],
                "{c:?}: re-encoding changed the node"
            );
        }
    }

    // (b) A whole file.
    if let Ok(mut r) = Slog2Reader::new(Cursor::new(rest)) {
        let _ = r.window(f64::NEG_INFINITY, f64::INFINITY);
        let _ = r.window_preview(f64::NEG_INFINITY, f64::INFINITY, 64);
        let _ = slog2_format::check::check(Cursor::new(rest), 3);
    }
});
