//! One escape notation for control characters in every text output
//! (spec/README.md §3, strings in text output): a CLOG2 trace whose state name
//! and `%s` info value hold control bytes, converted, then shown by `print`,
//! `window` (text and `--json`) and exported to JSON and CSV. Each output
//! writes them `\u00XX` and no other way (`\u{1}`, `\x01`, `\n`, raw bytes).

mod common;

use clog2_format::record::*;
use clog2_format::{Clog2Writer, FixedBytes, PreambleInfo, Record};
use common::*;
use std::io::Cursor;

fn field<const N: usize>(b: &[u8]) -> FixedBytes<N> {
    let mut out = [0u8; N];
    out[..b.len()].copy_from_slice(b);
    FixedBytes(out)
}

/// A state `Ab<SOH>cd` (Java trims only the ends) whose end carries the
/// string `x<STX><LF>y` (`s=%s`).
fn trace() -> Vec<u8> {
    let mut p = PreambleInfo::mpe_default(1);
    p.user_event_id_start = Some(600);
    p.user_state_id_count = Some(1);
    p.known_state_id_count = Some(0);
    p.known_solo_event_id_count = Some(0);
    p.user_solo_event_id_count = Some(0);
    p.max_thread_count = Some(1);
    let mut cargo = [0u8; 32];
    cargo[..6].copy_from_slice(&[0, 4, b'x', 2, b'\n', b'y']);
    let recs = [
        Record::new(
            0.0,
            0,
            Body::Comm(CommEvt {
                etype: 0,
                icomm: 0,
                rank: 0,
                wrank: 0,
                gcomm: Uuid::ZERO,
            }),
        ),
        Record::new(
            0.0,
            0,
            Body::StateDef(StateDef {
                state_id: 0,
                start_etype: 600,
                final_etype: 601,
                pad: FixedBytes::ZERO,
                color: field(b"red"),
                name: field(b"Ab\x01cd"),
                format: field(b"s=%s"),
            }),
        ),
        Record::bare(1.0, 0, 600),
        Record::new(
            2.0,
            0,
            Body::Cargo(CargoEvt {
                etype: 601,
                pad: FixedBytes::ZERO,
                bytes: FixedBytes(cargo),
            }),
        ),
    ];
    let mut w = Clog2Writer::new(Cursor::new(Vec::new()), p).unwrap();
    for r in &recs {
        w.push(r).unwrap();
    }
    w.finish(None).unwrap().0.into_inner()
}

/// No control byte, and no escape of one other than `\u00XX`.
fn one_notation(what: &str, text: &str) {
    for bad in ["\u{1}", "\u{2}", "\\u{", "\\x01", "\\x02", "\\n"] {
        assert!(!text.contains(bad), "{what} holds {bad:?}:\n{text}");
    }
}

#[test]
fn control_bytes_are_written_u00xx_everywhere() {
    let dir = std::env::temp_dir().join(format!("mpelog-escapes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let clog2 = dir.join("t.clog2");
    std::fs::write(&clog2, trace()).unwrap();
    let slog2 = dir.join("t.slog2");
    let p = |x: &std::path::Path| x.to_str().unwrap().to_string();
    stdout(&mpelog(&["convert", &p(&clog2), "-o", &p(&slog2)]));

    let print = stdout(&mpelog(&["print", &p(&clog2)]));
    one_notation("print of the CLOG2", &print);
    assert!(print.contains(r#""Ab\u0001cd""#), "{print}");

    let print = stdout(&mpelog(&["print", &p(&slog2)]));
    one_notation("print of the SLOG-2", &print);
    assert!(print.contains(r#""Ab\u0001cd""#), "{print}");

    let window = stdout(&mpelog(&["window", &p(&slog2)]));
    one_notation("window", &window);
    assert!(window.contains(r#"name="Ab\u0001cd""#), "{window}");
    assert!(window.contains(r#"info="s=x\u0002\u000ay""#), "{window}");

    let json = stdout(&mpelog(&["window", &p(&slog2), "--json"]));
    one_notation("window --json", &json);
    assert!(json.contains(r#""Ab\u0001cd""#), "{json}");
    assert!(json.contains(r#"x\u0002\u000ay"#), "{json}");

    for ext in ["json", "csv"] {
        let out = dir.join(format!("t.{ext}"));
        stdout(&mpelog(&["export", &p(&slog2), "-o", &p(&out)]));
        let text = std::fs::read_to_string(&out).unwrap();
        one_notation(ext, &text);
        assert!(text.contains(r#"Ab\u0001cd"#), "{ext}:\n{text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
