//! The record reader's block bookkeeping, without the corpus: after every record
//! it knows which block it is in (`blocks_read`, `loaded_block`), and an error
//! names the block it is in. An ENDBLOCK record moves the reader to the next
//! block; a reader that forgot to count it would still return every record (the
//! offsets come from the byte position), so only these counters show it.

use clog2_format::record::rectype;
use clog2_format::synth::{generate_vec, Options};
use clog2_format::{Clog2Reader, Error, Preamble};

const BLOCK: u64 = 1024;

/// A generated 2-rank trace of 1 KiB blocks, and its number of blocks.
fn trace() -> (Vec<u8>, u64) {
    let b = generate_vec(
        &Options::default()
            .ranks(2)
            .events(600)
            .seed(5)
            .block_size(BLOCK as u32),
    )
    .unwrap();
    let end = Preamble::parse(&b).unwrap().info().commtable_fptr.unwrap();
    assert_eq!((end - 1024) % BLOCK, 0);
    let blocks = (end - 1024) / BLOCK;
    assert!(blocks >= 10, "{blocks} blocks");
    (b, blocks)
}

#[test]
fn every_record_is_read_in_its_block() {
    let (b, blocks) = trace();
    let mut r = Clog2Reader::from_slice(&b).unwrap();
    assert_eq!(r.blocks_read(), 0);
    assert_eq!(r.loaded_block().0.len(), 0, "nothing loaded yet");
    // ENDBLOCKs seen so far = the index of the block being read.
    let mut block = 0u64;
    while let Some((rec, at)) = r.next_record_at().unwrap() {
        let base = 1024 + block * BLOCK;
        assert!(
            (base..base + BLOCK).contains(&at),
            "record at {at} outside block {block}"
        );
        let (loaded, loaded_at) = r.loaded_block();
        assert_eq!(loaded_at, base, "block of the record at {at}");
        assert_eq!(loaded.len() as u64, BLOCK, "block of the record at {at}");
        assert_eq!(
            loaded,
            &b[base as usize..(base + BLOCK) as usize],
            "bytes of block {block}"
        );
        assert_eq!(r.blocks_read(), block + 1, "after the record at {at}");
        if rec.rectype() == rectype::ENDBLOCK {
            block += 1;
        }
    }
    // The last block holds ENDLOG, not ENDBLOCK.
    assert_eq!(block + 1, blocks);
    assert_eq!(r.blocks_read(), blocks);
    r.finish().unwrap();
}

#[test]
fn an_error_names_its_block() {
    let (b, blocks) = trace();
    for k in [0, 1, 2, blocks / 2, blocks - 1] {
        // The first record of block k gets an undefined record type.
        let mut bad = b.clone();
        let at = (1024 + k * BLOCK) as usize;
        bad[at + 20..at + 24].copy_from_slice(&999i32.to_be_bytes());
        let mut r = Clog2Reader::from_slice(&bad).unwrap();
        let e = loop {
            match r.next_record_at() {
                Ok(Some(_)) => {}
                Ok(None) => panic!("block {k}: no error"),
                Err(e) => break e,
            }
        };
        match e {
            Error::UnknownRecordType {
                offset,
                block,
                rectype,
            } => {
                assert_eq!((offset, block, rectype), (at as u64, k, 999), "block {k}");
            }
            e => panic!("block {k}: {e:?}"),
        }
        assert_eq!(r.blocks_read(), k + 1, "block {k}");
    }
}

/// A file cut inside a block, however little of the block is missing, is
/// truncated at its end: the reader does not read a short block as a block.
#[test]
fn a_block_cut_anywhere_is_truncated_at_the_cut() {
    let (b, blocks) = trace();
    for k in [0, blocks / 2, blocks - 1] {
        let base = 1024 + k * BLOCK;
        for missing in [1, 8, BLOCK / 4, BLOCK / 2, BLOCK - 1] {
            let cut = (base + BLOCK - missing) as usize;
            let mut r = Clog2Reader::from_slice(&b[..cut]).unwrap();
            let e = loop {
                match r.next_record_at() {
                    Ok(Some(_)) => {}
                    Ok(None) => panic!("block {k} missing {missing} bytes: no error"),
                    Err(e) => break e,
                }
            };
            assert!(
                matches!(e, Error::Truncated { offset, .. } if offset == cut as u64),
                "block {k} missing {missing} bytes: {e:?}"
            );
            // Only the whole blocks before the cut were read.
            assert_eq!(r.blocks_read(), k, "block {k} missing {missing} bytes");
        }
        // Cut at the block's start: the stream ends without ENDLOG after k blocks.
        let mut r = Clog2Reader::from_slice(&b[..base as usize]).unwrap();
        let e = loop {
            match r.next_record_at() {
                Ok(Some(_)) => {}
                Ok(None) => panic!("block {k} cut at its start: no error"),
                Err(e) => break e,
            }
        };
        assert!(
            matches!(e, Error::MissingEndLog { offset } if offset == base),
            "{e:?}"
        );
        assert_eq!(r.blocks_read(), k, "cut at the start of block {k}");
    }
}

/// A block stream without ENDLOG ends where the preamble says (the comm
/// table's offset): the reader does not read the comm table as a block.
#[test]
fn a_stream_without_endlog_stops_at_the_comm_table() {
    let (mut b, blocks) = trace();
    let end = 1024 + blocks * BLOCK;
    // The last block's ENDLOG becomes an ENDBLOCK.
    let mut r = Clog2Reader::from_slice(&b).unwrap();
    let mut endlog = None;
    while let Some((rec, at)) = r.next_record_at().unwrap() {
        if rec.rectype() == rectype::ENDLOG {
            endlog = Some(at as usize);
        }
    }
    let at = endlog.expect("an ENDLOG");
    b[at + 20..at + 24].copy_from_slice(&rectype::ENDBLOCK.to_be_bytes());
    let mut r = Clog2Reader::from_slice(&b).unwrap();
    let e = loop {
        match r.next_record_at() {
            Ok(Some(_)) => {}
            Ok(None) => panic!("no error"),
            Err(e) => break e,
        }
    };
    assert!(
        matches!(e, Error::MissingEndLog { offset } if offset == end),
        "{e:?}"
    );
}
