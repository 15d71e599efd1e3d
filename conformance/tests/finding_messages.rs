//! A finding shows its byte offset (and place) once: the message a reader error
//! gives a finding is the error's `detail()`, never text with the position cut
//! off (no code reads an error's message).

use mpelog_conformance::check::{check_bytes, Options};
use slog2_format::convert::clog2_to_slog2;
use slog2_format::write::TreeOptions;
use std::io::Cursor;

/// Every finding of every cut of `bytes`: none starts with a position.
fn assert_no_position_in_messages(bytes: &[u8], what: &str) -> usize {
    let mut findings = 0;
    for cut in (0..bytes.len()).step_by((bytes.len() / 97).max(1)) {
        let mut damaged = bytes[..cut].to_vec();
        // Also a flipped byte past the cut's first half.
        if let Some(b) = damaged.get_mut(cut / 2) {
            *b ^= 0x5a;
        }
        let report = check_bytes(&damaged, &Options::default().limit(5));
        for f in &report.findings {
            findings += 1;
            let m = f.message.as_str();
            assert!(
                !(m.starts_with("byte ") && m[5..].starts_with(|c: char| c.is_ascii_digit())),
                "{what} cut at {cut}: {} at byte {}: {m:?}",
                f.rule,
                f.offset
            );
            if let Some(p) = &f.place {
                assert!(
                    !m.starts_with(&format!("{p}: ")),
                    "{what}: {m:?} repeats {p:?}"
                );
            }
        }
    }
    findings
}

#[test]
fn damaged_clog2_and_slog2_findings_state_their_position_once() {
    let clog2 = clog2_format::synth::generate_vec(
        &clog2_format::synth::Options::default()
            .ranks(2)
            .events(600)
            .block_size(1024),
    )
    .unwrap();
    let mut reader = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    let (out, _) = clog2_to_slog2(
        &mut reader,
        Cursor::new(Vec::new()),
        TreeOptions::default().leaf_bytes(1024),
        |_| {},
    )
    .unwrap();
    let slog2 = out.into_inner();
    let n = assert_no_position_in_messages(&clog2, "CLOG2")
        + assert_no_position_in_messages(&slog2, "SLOG-2");
    assert!(n > 100, "the damaged files gave only {n} findings");
}
