//! Each way a compressed node frame fails (spec/slog2-compressed.md §5) is an
//! `Error::BadFrame` whose `FrameProblem` carries the values its message
//! names, at the offset of the field concerned, with the frame's offset and
//! node. No corpus.

use slog2_format::error::FrameProblem;
use slog2_format::frame::{decode, encode, Compression, PREFIX_LEN};
use slog2_format::types::{FileBlockPtr, NodeId};
use slog2_format::Error;

/// Where the frame lies in its (imagined) file.
const AT: u64 = 4096;
/// The node the frames hold.
const NODE: NodeId = NodeId { depth: 1, xpos: 5 };
/// The node's length, header included.
const LEN: usize = 200;

/// A node block of [`LEN`] bytes with ID [`NODE`], framed with `c` at [`AT`].
fn framed(c: Compression) -> (Vec<u8>, FileBlockPtr) {
    let mut node: Vec<u8> = (0..LEN).map(|i| (i * 7 % 251) as u8).collect();
    node[16..18].copy_from_slice(&NODE.depth.to_be_bytes());
    node[18..22].copy_from_slice(&NODE.xpos.to_be_bytes());
    let mut out = Vec::new();
    let ptr = encode(&mut node, AT, c, &mut out).unwrap();
    (out, ptr)
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(b[at..at + 4].try_into().unwrap())
}

fn set_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

/// The frame error's offset, frame offset, node and problem.
fn refusal(
    frame: &[u8],
    ptr: FileBlockPtr,
    limit: u64,
) -> (u64, u64, Option<NodeId>, FrameProblem) {
    match decode(frame, ptr, limit, &mut Vec::new()) {
        Err(Error::BadFrame {
            offset,
            frame,
            node,
            problem,
        }) => (offset, frame, node, problem),
        other => panic!("expected a frame error, got {other:?}"),
    }
}

#[test]
fn the_checks_of_the_frame_header_carry_their_values() {
    let (good, ptr) = framed(Compression::Deflate(6));
    decode(&good, ptr, 1 << 20, &mut Vec::new()).unwrap();
    // Check 1: too short for the headers (no node to name).
    let short = FileBlockPtr { size: 20, ..ptr };
    let (offset, frame, node, p) = refusal(&good[..20], short, 1 << 20);
    assert_eq!((offset, frame, node), (AT, AT, None));
    assert_eq!(p, FrameProblem::TooShort { len: 20 });
    assert_eq!(p.step(), 1);
    // Check 1: an unknown codec; reserved bytes that are not zero.
    let mut b = good.clone();
    b[0] = 9;
    assert_eq!(
        refusal(&b, ptr, 1 << 20),
        (AT, AT, Some(NODE), FrameProblem::UnknownCodec { codec: 9 })
    );
    let mut b = good.clone();
    b[2] = 1;
    let p = FrameProblem::Reserved { bytes: [0, 1, 0] };
    assert_eq!(refusal(&b, ptr, 1 << 20), (AT + 1, AT, Some(NODE), p));
    // Check 2: a payload length the block does not hold.
    let mut b = good.clone();
    let declared = u32_at(&b, 4) + 1;
    set_u32(&mut b, 4, declared);
    let block = good.len() as u64;
    let (offset, _, _, p) = refusal(&b, ptr, 1 << 20);
    assert_eq!(offset, AT + 4);
    assert_eq!(p, FrameProblem::PayloadLength { declared, block });
    assert_eq!(p.step(), 2);
    // Check 3: an uncompressed length over the limit, refused before inflating.
    let (offset, _, _, p) = refusal(&good, ptr, 100);
    assert_eq!(offset, AT + 8);
    let want = FrameProblem::UncompressedLength {
        declared: LEN as u32,
        limit: 100,
    };
    assert_eq!(p, want);
    assert_eq!(p.step(), 3);
}

#[test]
fn the_checks_of_the_payload_carry_their_values() {
    // Check 4, deflate: a length one more than the payload gives, one less.
    let (good, ptr) = framed(Compression::Deflate(6));
    let rest = (LEN - 34) as u64;
    let mut b = good.clone();
    set_u32(&mut b, 8, LEN as u32 + 1);
    let (offset, _, node, p) = refusal(&b, ptr, 1 << 20);
    assert_eq!((offset, node), (AT + 8, Some(NODE)));
    let short = FrameProblem::InflatedLength {
        got: rest,
        want: rest + 1,
    };
    assert_eq!(p, short);
    assert_eq!(p.step(), 4);
    set_u32(&mut b, 8, LEN as u32 - 1);
    let (_, _, _, p) = refusal(&b, ptr, 1 << 20);
    // Inflating stops one byte past what is wanted.
    let long = FrameProblem::InflatedLength {
        got: rest,
        want: rest - 1,
    };
    assert_eq!(p, long);
    assert!(p.to_string().contains(" or more"), "{p}");
    // A stream that is not deflate (block type 3 is reserved).
    let mut b = good.clone();
    b[PREFIX_LEN] = 0xff;
    let (offset, _, _, p) = refusal(&b, ptr, 1 << 20);
    assert_eq!(offset, AT + PREFIX_LEN as u64);
    assert!(matches!(p, FrameProblem::CorruptDeflate { .. }), "{p:?}");
    // Check 4, stored: a declared length that is not the payload's.
    let (stored, sptr) = framed(Compression::Stored);
    let mut b = stored.clone();
    set_u32(&mut b, 8, LEN as u32 - 1);
    let want = FrameProblem::StoredLength {
        payload: rest,
        node: LEN as u64 - 1,
    };
    assert_eq!(refusal(&b, sptr, 1 << 20), (AT + 8, AT, Some(NODE), want));
}

#[test]
fn the_checksum_and_the_own_pointer_carry_their_values() {
    let (good, ptr) = framed(Compression::Deflate(6));
    // Check 5: the frame's CRC-32 is not the node's.
    let mut b = good.clone();
    let computed = u32_at(&b, 12);
    let declared = computed ^ 0x0100;
    set_u32(&mut b, 12, declared);
    let e = decode(&b, ptr, 1 << 20, &mut Vec::new()).unwrap_err();
    let p = FrameProblem::Checksum { computed, declared };
    assert_eq!(
        refusal(&b, ptr, 1 << 20),
        (AT + 12, AT, Some(NODE), p.clone())
    );
    assert_eq!(
        e.to_string(),
        format!("byte {}: tree node (1, 5) at byte {AT}: {p}", AT + 12)
    );
    assert_eq!(p.step(), 5);
    // Check 6: read from elsewhere, the node's own pointer is not its frame's.
    let moved = FileBlockPtr {
        offset: AT as i64 + 64,
        ..ptr
    };
    let p = FrameProblem::OwnPointer {
        own: ptr,
        frame: moved,
    };
    let field = AT + 64 + 16 + 22;
    assert_eq!(
        refusal(&good, moved, 1 << 20),
        (field, AT + 64, Some(NODE), p.clone())
    );
    assert_eq!(p.step(), 6);
    assert_eq!(p.problem(), slog2_format::check::Problem::FramePointer);
}
