//! Category names, colours and formats of a CLOG2 conversion as MPE's
//! `clog2TOslog2` makes them (spec/conversion.md §2.1 items 5 and 9–12): a
//! CLOG2 trace written with our writer holds every naming case, and the
//! converted file's categories and info texts are the ones Java gives,
//! written out below (checked once against `clog2TOslog2` of MPICH
//! `5c7991838a` on JDK 17, built by hand: the same names, colours and texts).

use clog2_format::record::*;
use clog2_format::{Clog2Writer, FixedBytes, PreambleInfo, Record};
use slog2_format::convert::clog2_to_slog2;
use slog2_format::info::labelled;
use slog2_format::types::{topology, Category, Drawable};
use slog2_format::write::TreeOptions;
use slog2_format::Slog2Reader;
use std::collections::BTreeMap;
use std::io::Cursor;

/// 2 ranks; known states from event 0 (300), user states from 600 (10), no
/// solo ranges: new categories are numbered from 311.
fn preamble() -> PreambleInfo {
    let mut p = PreambleInfo::mpe_default(2);
    p.known_event_id_start = Some(0);
    p.known_state_id_count = Some(300);
    p.user_event_id_start = Some(600);
    p.user_state_id_count = Some(10);
    p.known_solo_event_id_start = Some(-10);
    p.known_solo_event_id_count = Some(0);
    p.user_solo_event_id_start = Some(5000);
    p.user_solo_event_id_count = Some(0);
    p.max_thread_count = Some(1);
    p
}

/// A field holding exactly `b`, zero-filled.
fn field<const N: usize>(b: &[u8]) -> FixedBytes<N> {
    let mut out = [0u8; N];
    out[..b.len()].copy_from_slice(b);
    FixedBytes(out)
}

fn statedef(rank: i32, start: i32, name: FixedBytes<32>, color: &[u8], format: &[u8]) -> Record {
    Record::new(
        0.0,
        rank,
        Body::StateDef(StateDef {
            state_id: 0,
            start_etype: start,
            final_etype: start + 1,
            pad: FixedBytes::ZERO,
            color: field(color),
            name,
            format: field(format),
        }),
    )
}

fn eventdef(etype: i32, name: &[u8], color: &[u8], format: &[u8]) -> Record {
    Record::new(
        0.0,
        0,
        Body::EventDef(EventDef {
            etype,
            pad: FixedBytes::ZERO,
            color: field(color),
            name: field(name),
            format: field(format),
        }),
    )
}

fn cargo(time: f64, etype: i32, bytes: [u8; 32]) -> Record {
    Record::new(
        time,
        0,
        Body::Cargo(CargoEvt {
            etype,
            pad: FixedBytes::ZERO,
            bytes: FixedBytes(bytes),
        }),
    )
}

fn comm(rank: i32) -> Record {
    Record::new(
        0.0,
        rank,
        Body::Comm(CommEvt {
            etype: 0,
            icomm: 0,
            rank,
            wrank: rank,
            gcomm: Uuid::ZERO,
        }),
    )
}

/// The trace: one definition per naming case, then one drawable of each
/// category but the unused one.
fn trace() -> Vec<u8> {
    // A name MPE cuts at 31 bytes in the middle of the first "€" (E2 82 AC).
    let cut = FixedBytes::<32>::from_str_truncated("abcdefghijklmnopqrstuvwxyz123€€");
    let mut v = vec![
        comm(0),
        comm(1),
        // 311: blanks around name, colour and format.
        statedef(0, 1000, field(b"  Compute \t"), b" red ", b" v=%d "),
        // 312: empty name (the field starts with NUL).
        statedef(0, 1002, field(b""), b"blue", b""),
        // 313: a colour name the table lacks.
        statedef(0, 1004, field(b"Odd colour"), b"no such colour", b""),
        // 314: a colour with MPE's ":dimple" suffix.
        statedef(0, 1006, field(b"Dimple"), b"green:dimple3", b""),
        // 315: an event whose format is blanks only.
        eventdef(2000, b"Tick", b"yellow", b"   "),
        // 316: a name cut inside a UTF-8 character.
        statedef(0, 1008, cut, b"gray", b""),
        // 317: the same IDs defined on each rank: the last definition wins.
        statedef(0, 1010, field(b"First"), b"blue", b""),
        statedef(1, 1010, field(b"Second"), b"bogus", b""),
        // 318: defined, never used.
        statedef(0, 1012, field(b"Unused"), b"red", b""),
        // 319: a name of blanks only.
        statedef(0, 1014, field(b"    "), b"red", b""),
        // 320: a name field without NUL.
        statedef(0, 1016, FixedBytes([b'X'; 32]), b"red", b""),
        // 321: control characters around a name.
        statedef(0, 1018, field(b"\x01Ctl\x02"), b"red", b""),
        // 322: an event without a format, logged with data.
        eventdef(2001, b"Data", b"orange", b""),
    ];
    let mut t = 1.0;
    let mut state = |v: &mut Vec<Record>, start: i32, info: Option<[u8; 32]>| {
        v.push(Record::bare(t, 0, start));
        v.push(match info {
            Some(b) => cargo(t + 0.5, start + 1, b),
            None => Record::bare(t + 0.5, 0, start + 1),
        });
        t += 1.0;
    };
    let mut seven = [0u8; 32];
    seven[..4].copy_from_slice(&7i32.to_be_bytes());
    state(&mut v, 1000, Some(seven));
    for s in [1002, 1004, 1006] {
        state(&mut v, s, None);
    }
    v.push(cargo(4.75, 2000, [1; 32]));
    for s in [1008, 1010, 1014, 1016, 1018] {
        state(&mut v, s, None);
    }
    v.push(cargo(9.75, 2001, [2; 32]));
    // A known-state placeholder (events 0 and 1, index 1) no record defines.
    state(&mut v, 0, None);

    let mut w = Clog2Writer::new(Cursor::new(Vec::new()), preamble()).unwrap();
    for r in &v {
        w.push(r).unwrap();
    }
    w.finish(None).unwrap().0.into_inner()
}

/// The converted file's categories (index ≥ 0) and the info text of each
/// drawable, by category.
fn convert(clog2: &[u8]) -> (BTreeMap<i32, Category>, BTreeMap<i32, Vec<String>>) {
    let mut r = clog2_format::Clog2Reader::from_slice(clog2).unwrap();
    let (out, _) = clog2_to_slog2(
        &mut r,
        Cursor::new(Vec::new()),
        TreeOptions::default(),
        |_| {},
    )
    .unwrap();
    let mut s = Slog2Reader::new(Cursor::new(out.into_inner())).unwrap();
    let cats: BTreeMap<i32, Category> = s
        .categories()
        .unwrap()
        .value
        .categories
        .iter()
        .filter(|c| c.index >= 0)
        .map(|c| (c.index, c.clone()))
        .collect();
    let mut infos: BTreeMap<i32, Vec<String>> = BTreeMap::new();
    for d in s.window(f64::MIN, f64::MAX).unwrap().drawables {
        let Drawable::Primitive(p) = d.value else {
            panic!("no composites here")
        };
        let c = &cats[&p.category];
        let text = labelled(&c.keys, &c.types, &p.info.bytes).unwrap();
        infos.entry(p.category).or_default().push(text);
    }
    (cats, infos)
}

/// Java's default colours in its order (`ColorAlpha.getNextDefaultColor`).
const DEFAULT: [[u8; 3]; 5] = [
    [0, 51, 255],
    [153, 51, 255],
    [0, 102, 51],
    [153, 102, 51],
    [0, 102, 153],
];

#[test]
fn names_colours_and_formats_are_javas() {
    let (cats, infos) = convert(&trace());
    let got: Vec<(i32, String, [u8; 3])> = cats
        .values()
        .map(|c| (c.index, c.name.text(), [c.argb[1], c.argb[2], c.argb[3]]))
        .collect();
    let expected: Vec<(i32, String, [u8; 3])> = vec![
        // A placeholder no record defines, named at its first drawable.
        (1, "UnknownType-1".into(), DEFAULT[4]),
        (311, "Compute".into(), [255, 0, 0]),
        // Named when its first drawable is made, after the unknown colours
        // of 313 and 317 took the first two default colours.
        (312, "UnknownType-312".into(), DEFAULT[2]),
        (313, "Odd colour".into(), DEFAULT[0]),
        (314, "Dimple".into(), [0, 255, 0]),
        (315, "Tick".into(), [255, 255, 0]),
        (
            316,
            "abcdefghijklmnopqrstuvwxyz123\u{fffd}".into(),
            [192, 192, 192],
        ),
        (317, "Second".into(), DEFAULT[1]),
        (319, String::new(), [255, 0, 0]),
        (320, "UnknownType-320".into(), DEFAULT[3]),
        (321, "Ctl".into(), [255, 0, 0]),
        (322, "Data".into(), [255, 165, 0]),
    ];
    assert_eq!(got, expected);
    assert!(cats.values().all(|c| c.argb[0] == 255));

    // The trimmed format of 311; none for the others.
    let c = &cats[&311];
    let keys: Vec<String> = c.keys.iter().map(|k| k.text()).collect();
    assert_eq!(
        (keys, c.types.clone()),
        (vec!["v=".into(), String::new()], b"d".to_vec())
    );
    assert_eq!(infos[&311], ["v=7"]);
    for i in [315, 322] {
        assert!(cats[&i].keys.is_empty() && cats[&i].types.is_empty());
        assert_eq!(cats[&i].topology, topology::EVENT);
        assert_eq!(
            infos[&i],
            [" **** Can't decode user byte[] with Missing format chars! **** "]
        );
    }
}
