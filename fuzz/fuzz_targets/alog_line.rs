//! One ALOG line: parsing never panics, and a parsed record written canonically
//! parses back to the same record.
#![no_main]

use alog_format::Record;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|line: &[u8]| {
    if let Ok(r) = Record::parse_line(line) {
        let f = alog_format::AlogFile {
            records: vec![r.clone()],
        };
        let bytes = f.to_bytes().unwrap();
        let back = alog_format::AlogFile::parse(&bytes).expect("canonical text parses");
        assert_eq!(back.records, vec![r]);
    }
});
