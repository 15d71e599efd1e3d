//! Canonical writing: random records written canonically read back identically,
//! and a small hand-written file (no corpus needed) goes through every step:
//! parse, dump, summary, canonical bytes, SLOG-2 conversion and check.

use alog_format::dump::{lines, summary};
use alog_format::record::Kind;
use alog_format::AlogFile;
use mpelog_conformance::strategies::alog;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Records written canonically parse back identically, and the canonical
    /// bytes are a fixed point.
    #[test]
    fn canonical_records_read_back(records in alog::records(1..40)) {
        let f = AlogFile { records };
        let bytes = f.to_bytes().unwrap();
        let back = AlogFile::parse(&bytes).unwrap();
        prop_assert_eq!(back.records.len(), f.records.len());
        for (a, b) in back.records.iter().zip(&f.records) {
            prop_assert_eq!(a.timestamp.to_bits(), b.timestamp.to_bits());
        }
        prop_assert_eq!(&back, &f);
        prop_assert_eq!(back.to_bytes().unwrap(), bytes.clone());
        prop_assert!(AlogFile::is_canonical(&bytes));
    }

    /// The same records with every separator widened (TAU columns, p4 double
    /// spaces, tabs, CRLF) read back to the same records.
    #[test]
    fn any_separators_read_the_same(
        records in alog::records(1..20),
        seps in prop::collection::vec("[ \t]{1,4}", 7),
        lead in "[ \t]{0,3}",
        crlf in any::<bool>(),
    ) {
        let mut text = Vec::new();
        for r in &records {
            text.extend_from_slice(lead.as_bytes());
            let fields = [
                r.etype.to_string(), r.process.to_string(), r.task.to_string(),
                r.data.to_string(), r.cycle.to_string(), format!("{}", r.timestamp),
            ];
            for (i, f) in fields.iter().enumerate() {
                if i > 0 { text.extend_from_slice(seps[i].as_bytes()); }
                text.extend_from_slice(f.as_bytes());
            }
            if let Some(c) = &r.comment {
                text.extend_from_slice(seps[6].as_bytes());
                text.extend_from_slice(c.as_bytes());
            }
            text.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
        }
        let back = AlogFile::parse(&text).unwrap();
        prop_assert_eq!(back.records, records);
    }
}

#[test]
fn small_file_every_step() {
    let f = AlogFile::parse(alog::SMALL.as_bytes()).unwrap();
    assert_eq!(f.records.len(), 21);
    assert!(!AlogFile::is_canonical(alog::SMALL.as_bytes()));
    let canon = f.to_bytes().unwrap();
    assert!(AlogFile::is_canonical(&canon));
    let text = String::from_utf8(canon.clone()).unwrap();
    assert!(text.contains("\n1 1 0 0 0 12\n-101 0 0 1 0 20 7 64\n3 1 0 0 0 21 \n"));
    assert_eq!(AlogFile::parse(&canon).unwrap(), f);

    assert_eq!(f.records[12].kind(), Kind::Send);
    assert_eq!(f.records[14].kind(), Kind::Recv);
    assert!(!f.time_sorted());
    let s = summary(&f);
    assert_eq!((s.records, s.header_records, s.event_records), (21, 10, 11));
    assert_eq!(s.declared_events, Some(11));
    assert_eq!((s.processes, s.process_range), (2, Some((0, 1))));
    assert_eq!(s.time_range_us, Some((10.0, 80.0)));
    assert_eq!(s.time_range_s(), Some((10e-6, 80e-6)));
    assert_eq!((s.state_defs, s.sends, s.recvs), (3, 1, 1));
    assert_eq!(s.per_type.get(&-13), Some(&3));

    let l = lines(&f);
    assert_eq!(l.len(), 21);
    assert_eq!(
        l[8],
        "state_def type=-13 process=0 task=3 data=4 cycle=0 timestamp=0 comment=\": Wait\" start=3 end=4 color=\"\" bitmap=\"\" name=\"Wait\""
    );
    assert_eq!(
        l[11],
        "event type=1 process=1 task=0 data=0 cycle=0 timestamp=12 comment=none time=0.000012"
    );
}
