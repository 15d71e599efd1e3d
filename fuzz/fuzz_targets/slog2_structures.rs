//! Each SLOG-2 structure parsed on its own from arbitrary bytes, as the reader
//! parses a block: the header, the TreeDir, a tree node (2.0.5 and 2.0.6 layouts),
//! the CategoryMap and the LineIDMapList. The first byte picks the structure.
//! Nothing may panic; a structure that parses writes back to the bytes it used.
#![no_main]

use binrw::BinWrite;
use libfuzzer_sys::fuzz_target;
use slog2_format::read::{parse_block, parse_header};
use slog2_format::*;

fn round_trip<T: for<'a> BinWrite<Args<'a> = ()>>(v: &T, used: &[u8]) {
    let mut c = std::io::Cursor::new(Vec::new());
    v.write_be(&mut c).expect("a parsed structure writes");
    assert_eq!(c.into_inner(), used, "written bytes differ from the parsed ones");
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, b)) = data.split_first() else {
        return;
    };
    let ptr = FileBlockPtr {
        offset: 0,
        size: b.len() as i32,
    };
    match pick % 6 {
        0 => {
            let _ = parse_header(b);
        }
        1 => {
            if let Ok(p) = parse_block::<TreeDir>(b, ptr, "the TreeDir", ()) {
                round_trip(&p.value, &b[..b.len() - p.trailing.len()]);
            }
        }
        2 => {
            if let Ok(p) = parse_block::<TreeNodeBody>(b, ptr, "a tree node", (true,)) {
                round_trip(&p.value, &b[..b.len() - p.trailing.len()]);
            }
        }
        3 => {
            let _ = parse_block::<TreeNodeBody>(b, ptr, "a tree node", (false,));
        }
        4 => {
            if let Ok(p) = parse_block::<CategoryMap>(b, ptr, "the CategoryMap", (true,)) {
                round_trip(&p.value, &b[..b.len() - p.trailing.len()]);
            }
        }
        _ => {
            if let Ok(p) = parse_block::<LineIdMapList>(b, ptr, "the LineIDMapList", ()) {
                round_trip(&p.value, &b[..b.len() - p.trailing.len()]);
            }
        }
    }
});
