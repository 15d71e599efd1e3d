//! Properties over generated files: for every version and byte order, records written
//! by `Clog2Writer` read back identically, and parsing then re-writing any file gives
//! the same bytes. The files come from `mpelog_conformance::strategies::clog2::case`.

use clog2_format::record::*;
use clog2_format::{
    Body, Clog2File, Clog2Reader, Clog2Writer, CommTable, FixedBytes, PreambleInfo, Record,
};
use mpelog_conformance::strategies::clog2;
use proptest::prelude::*;
use std::io::Cursor;

fn same(a: &Record, b: &Record) -> bool {
    // Compare floats by bits so that NaNs and -0.0 count as preserved.
    format!("{a:?}") == format!("{b:?}") && a.time.to_bits() == b.time.to_bits()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn written_records_read_back_and_files_rewrite_identically(
        (version, big, block_size, records, table) in clog2::case()
    ) {
        let mut info = PreambleInfo::mpe_default(4).for_version(version);
        info.big_endian = big;
        info.block_size = block_size;
        let mut w = Clog2Writer::new(Cursor::new(Vec::new()), info).unwrap();
        for r in &records {
            w.push(r).unwrap();
        }
        let t = CommTable::new(table.clone());
        let (cur, size) = w.finish(version.has_comm_table().then_some(&t)).unwrap();
        let bytes = cur.into_inner();
        prop_assert_eq!(bytes.len() as u64, size);
        prop_assert_eq!((bytes.len() as u64 - 1024 - if version.has_comm_table() { t.disk_len() } else { 0 }) % block_size as u64, 0);

        // Records read back in order, with one ENDBLOCK per full block and ENDLOG last.
        let mut reader = Clog2Reader::from_slice(&bytes).unwrap();
        let mut got = Vec::new();
        while let Some(r) = reader.next_record().unwrap() {
            got.push(r);
        }
        let table_back = reader.finish().unwrap();
        let data: Vec<&Record> = got.iter().filter(|r| !r.is_terminator()).collect();
        prop_assert_eq!(data.len(), records.len());
        for (a, b) in data.iter().zip(&records) {
            prop_assert!(same(a, b), "{:?} != {:?}", a, b);
        }
        prop_assert!(matches!(got.last().unwrap().body, Body::EndLog));
        if version.has_comm_table() {
            prop_assert_eq!(table_back.unwrap().entries.len(), table.len());
        }

        // Lossless: parse and write back.
        let file = Clog2File::parse(&bytes).unwrap();
        prop_assert!(file.to_bytes().unwrap() == bytes);
        // The `Read` path agrees with the slice path.
        prop_assert_eq!(Clog2File::read(Cursor::new(&bytes)).unwrap().to_bytes().unwrap(), bytes);
    }

    /// Whatever bytes follow terminators and whatever the pads hold, a parsed file
    /// writes back identically.
    #[test]
    fn stale_bytes_after_terminators_survive(seed in any::<u64>(), junk in proptest::collection::vec(any::<u8>(), 1..64)) {
        let mut info = PreambleInfo::mpe_default(2);
        info.block_size = 512;
        let mut w = Clog2Writer::new(Cursor::new(Vec::new()), info).unwrap();
        for k in 0..40u64 {
            w.push(&Record { time: (seed % 1000) as f64 + k as f64, icomm: 0, rank: (k % 2) as i32, thread: 0,
                body: Body::Bare(BareEvt { etype: k as i32, pad: FixedBytes([k as u8; 4]) }) }).unwrap();
        }
        let mut bytes = w.finish(None).unwrap().0.into_inner();
        // Overwrite the tail of every block after its terminator with junk.
        let file = Clog2File::parse(&bytes).unwrap();
        for (i, b) in file.blocks.iter().enumerate() {
            let end = 1024 + (i + 1) * 512;
            let n = junk.len().min(b.trailing.len());
            bytes[end - n..end].copy_from_slice(&junk[..n]);
        }
        let file = Clog2File::parse(&bytes).unwrap();
        prop_assert!(file.to_bytes().unwrap() == bytes);
    }
}

#[test]
fn fresh_files_have_zero_padding_and_follow_mpes_block_rule() {
    let mut info = PreambleInfo::mpe_default(1);
    info.block_size = 256;
    let mut w = Clog2Writer::new(Cursor::new(Vec::new()), info).unwrap();
    let rec = |t: f64| Record {
        time: t,
        icomm: 0,
        rank: 0,
        thread: 0,
        body: Body::Bare(BareEvt {
            etype: 5,
            pad: FixedBytes::ZERO,
        }),
    };
    for k in 0..20 {
        w.push(&rec(k as f64)).unwrap();
    }
    let bytes = w.finish(None).unwrap().0.into_inner();
    let file = Clog2File::parse(&bytes).unwrap();
    // 32-byte records in 256-byte blocks: p + 32 + 24 < 256 admits 7 per block.
    let per_block: Vec<usize> = file.blocks.iter().map(|b| b.records.len() - 1).collect();
    assert_eq!(per_block, vec![7, 7, 6]);
    // ENDBLOCK carries the time of the first record of the next block; ENDLOG 1e8.
    assert_eq!(file.blocks[0].records[7].time, 7.0);
    assert_eq!(file.blocks[1].records[7].time, 14.0);
    assert_eq!(file.blocks[2].records.last().unwrap().time, ENDLOG_TIME);
    assert!(file
        .blocks
        .iter()
        .all(|b| b.trailing.iter().all(|&x| x == 0)));
    assert!(file.preamble.raw().padding.iter().all(|&x| x == 0));
    assert_eq!(file.preamble.info().commtable_fptr, Some(1024 + 3 * 256));
}

proptest! {
    /// The hand-written header decoder of the hot path equals the binrw layout.
    #[test]
    fn fast_header_decoder_equals_the_binrw_layout(bytes in proptest::collection::vec(any::<u8>(), 24), big in any::<bool>()) {
        use binrw::BinRead;
        let endian = if big { binrw::Endian::Big } else { binrw::Endian::Little };
        let a = RecordHeader::decode(&bytes, endian);
        let b = RecordHeader::read_options(&mut Cursor::new(&bytes), endian, ()).unwrap();
        prop_assert_eq!(a.time.to_bits(), b.time.to_bits());
        prop_assert_eq!((a.icomm, a.rank, a.thread, a.rectype), (b.icomm, b.rank, b.thread, b.rectype));
    }
}
