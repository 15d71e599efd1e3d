//! Hand-made byte streams: both byte orders, chunk changes, the errors a
//! damaged file gives (with file and offset), and arbitrary bytes never
//! panicking.

use otf2_format::error::{Feature, Problem};
use otf2_format::{
    Anchor, Definitions, Error, EventKind, Limits, LocalDefs, LocationEvents, MemSource,
};
use std::path::PathBuf;
use std::sync::Arc;

/// One event chunk of `chunk` bytes: header, then `body`, then END_OF_CHUNK
/// padding.
fn chunk(big: bool, body: &[u8], chunk: usize) -> Vec<u8> {
    let mut v = vec![3, if big { 0x23 } else { 0x42 }];
    v.extend([0u8; 16]);
    v.extend_from_slice(body);
    assert!(v.len() <= chunk);
    v.resize(chunk, 0);
    v
}

fn ts(big: bool, t: u64) -> Vec<u8> {
    let mut v = vec![5];
    v.extend(if big {
        t.to_be_bytes()
    } else {
        t.to_le_bytes()
    });
    v
}

/// An Enter at 10 (region 7), an MpiSend at 300 (receiver 1, comm 0, tag
/// 0x1234, 1000 bytes) in one chunk, a Leave at 300 in the next, then EOF.
fn archive(big: bool) -> Vec<u8> {
    let mut a = ts(big, 10);
    a.extend([12, 1, 7]);
    a.extend(ts(big, 300));
    let (tag, len) = if big {
        ([0x12, 0x34], [0x03, 0xe8])
    } else {
        ([0x34, 0x12], [0xe8, 0x03])
    };
    a.extend([14, 9, 1, 1, 0, 2, tag[0], tag[1], 2, len[0], len[1]]);
    let mut b = ts(big, 300);
    b.extend([13, 1, 7, 2]);
    let mut v = chunk(big, &a, 64);
    v.extend(chunk(big, &b, 64));
    v.truncate(64 + 18 + b.len());
    v
}

fn read(bytes: Vec<u8>, chunk: u64) -> Result<Vec<otf2_format::Event>, Error> {
    LocationEvents::new(
        Some(MemSource(bytes.into())),
        PathBuf::from("0.evt"),
        0,
        chunk,
        64,
        Arc::new(LocalDefs::default()),
    )
    .collect()
}

#[test]
fn both_byte_orders_read_the_same() {
    let le = read(archive(false), 64).unwrap();
    let be = read(archive(true), 64).unwrap();
    assert_eq!(le, be);
    let kinds: Vec<_> = le.iter().map(|e| (e.time, e.kind.clone())).collect();
    assert_eq!(
        kinds,
        vec![
            (10, EventKind::Enter { region: 7 }),
            (
                300,
                EventKind::MpiSend {
                    receiver: 1,
                    comm: 0,
                    tag: 0x1234,
                    length: 1000
                }
            ),
            (300, EventKind::Leave { region: 7 }),
        ]
    );
}

#[test]
fn damage_gives_file_and_offset() {
    // Cut inside the MpiSend record (chunk header 18 + ts 9 + enter 3 + ts 9
    // + type 1 + length 1 = 41: the payload starts there).
    let mut v = archive(false);
    v.truncate(45);
    let e = read(v, 64).unwrap_err();
    assert!(matches!(e, Error::Truncated { offset: 41, .. }), "{e}");
    assert_eq!(e.file(), std::path::Path::new("0.evt"));
    // A bad endianness byte.
    let mut v = archive(false);
    v[1] = 7;
    assert!(matches!(
        read(v, 64).unwrap_err(),
        Error::Invalid {
            offset: 1,
            problem: Problem::Endianness(7),
            ..
        }
    ));
    // A compressed value whose length byte is too big.
    let mut v = archive(false);
    v[28] = 9; // Enter's region length byte
    let e = read(v, 64).unwrap_err();
    assert_eq!(e.offset(), 28);
    assert!(
        matches!(
            e,
            Error::Invalid {
                problem: Problem::CompressedLength {
                    byte: 9,
                    max: 4,
                    ..
                },
                ..
            }
        ),
        "{e:?}"
    );
    // The second chunk must start with a chunk header.
    let mut v = archive(false);
    v[64] = 9;
    let e = read(v, 64).unwrap_err();
    assert_eq!(e.offset(), 64);
    assert!(
        matches!(
            e,
            Error::Invalid {
                problem: Problem::ChunkHeader(9),
                ..
            }
        ),
        "{e:?}"
    );
}

/// An anchor file: chunk header, magic, formats, version, chunk sizes,
/// substrate, compression, counts, machine, creator and description (little-endian; strings
/// end with a NUL). The magic is at byte 2, the anchor format at 7, the
/// substrate at 28, the compression at 29.
fn anchor(substrate: u8, compression: u8) -> Vec<u8> {
    let mut v = vec![3, 0x42]; // little-endian
    v.extend(b"OTF2\0");
    v.extend([1, 1, 3, 0, 0]); // anchor format, trace format, version 3.0.0
    v.extend((1u64 << 20).to_le_bytes());
    v.extend((1u64 << 20).to_le_bytes());
    v.extend([substrate, compression]);
    v.extend(1u64.to_le_bytes()); // locations
    v.extend(1u64.to_le_bytes()); // global definitions
    v.extend(b"m\0c\0d\0"); // machine, creator, description
    v
}

#[test]
fn anchor_refusals_are_typed() {
    let parse = |v: &[u8]| Anchor::parse(v, std::path::Path::new("t.otf2"));
    let problem = |v: &[u8]| match parse(v) {
        Err(Error::Invalid {
            offset, problem, ..
        }) => (offset, problem),
        other => panic!("{other:?}"),
    };
    assert_eq!(problem(&[4, 0x42, 0]), (0, Problem::NotAnchor));
    assert_eq!(problem(&[3, b'x', 0]), (1, Problem::Endianness(b'x')));
    parse(&anchor(1, 1)).unwrap();
    let mut v = anchor(1, 1);
    v[5] = b'X';
    assert_eq!(problem(&v), (2, Problem::Magic));
    let mut v = anchor(1, 1);
    v[7] = 0;
    assert_eq!(problem(&v), (7, Problem::AnchorFormat));
    assert_eq!(problem(&anchor(4, 1)), (28, Problem::Substrate(4)));
    assert_eq!(problem(&anchor(1, 3)), (29, Problem::Compression(3)));
    let unsupported = |v: &[u8]| match parse(v) {
        Err(Error::Unsupported { offset, what, .. }) => (offset, what),
        other => panic!("{other:?}"),
    };
    assert_eq!(unsupported(&anchor(2, 1)), (28, Feature::Sion));
    assert_eq!(unsupported(&anchor(1, 2)), (29, Feature::Zlib));
    let e = parse(&anchor(1, 2)).unwrap_err();
    assert_eq!(e.detail(), "unsupported: zlib compression");
    assert_eq!(
        e.to_string(),
        "t.otf2: byte 29: unsupported: zlib compression"
    );
}

#[test]
fn arbitrary_bytes_never_panic() {
    // A small deterministic generator; the fuzz targets go further.
    let mut x: u64 = 0x9e3779b97f4a7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let base = archive(false);
    for _ in 0..20_000 {
        let mut v = base.clone();
        for _ in 0..(next() % 6) {
            let i = (next() as usize) % v.len();
            v[i] = next() as u8;
        }
        let _ = read(v.clone(), 64);
        let _ = read(v.clone(), 1 + next() % 100);
        let src = MemSource(v.into());
        let _ = Definitions::read(src.clone(), "d".into(), 64, &Limits::default());
        let _ = LocalDefs::read(src, "l".into(), 64, &Limits::default());
    }
}
