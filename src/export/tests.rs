//! Unit tests of the export's shared parts: the legend entry's info values, a
//! track's sort key and the `&mut S` sink (mutants cargo-mutants found that no
//! test saw, issue 25).

use super::{ArgValue, Cat, Flow, Sink, Track};
use std::io;

fn message() -> Cat {
    Cat::new(
        4,
        "message".into(),
        "#ffffff".into(),
        vec!["msg_tag=".into(), ", msg_size=".into()],
        b"dd".to_vec(),
    )
}

/// Track `id` of the row of rank `rank` (named as the process view names it),
/// on lane `lane`: for the writers' tests.
pub(super) fn rank_track(id: u32, rank: i32, lane: u32) -> Track {
    Track {
        id,
        row: vec![rank],
        name: format!("world_rank {rank}"),
        lane,
        order: 0,
    }
}

/// Category 2, "compute", with info labels `labels` and types `types` (`E`:
/// 8-byte floats): for the writers' tests.
pub(super) fn compute(labels: &[&str], types: &[u8]) -> Cat {
    Cat::new(
        2,
        "compute".into(),
        "#ffffff".into(),
        labels.iter().map(|l| l.to_string()).collect(),
        types.to_vec(),
    )
}

fn track(order: u32, lane: u32) -> Track {
    Track {
        id: 9,
        row: vec![2],
        name: "world_rank 2".into(),
        lane,
        order,
    }
}

#[test]
fn args_are_the_decoded_values_or_the_whole_buffer_in_hex() {
    let cat = message();
    assert_eq!(
        cat.args(&[0, 0, 0, 9, 0xff, 0xff, 0xff, 0xfe]),
        [
            ("msg_tag".to_string(), ArgValue::Int(9)),
            ("msg_size".to_string(), ArgValue::Int(-2)),
        ]
    );
    // Six bytes for two 4-byte values: the first decodes, the second does
    // not; the buffer is handed out whole as hex, not half decoded.
    assert_eq!(
        cat.args(&[0, 0, 0, 9, 0, 1]),
        [("info".to_string(), ArgValue::Text("000000090001".into()))]
    );
    // No formats: any bytes are hex; no bytes are no values.
    let bare = Cat::unknown(7);
    assert_eq!(
        bare.args(&[0xab, 0x01]),
        [("info".to_string(), ArgValue::Text("ab01".into()))]
    );
    assert_eq!(cat.args(&[]), []);
}

#[test]
fn sort_key_is_order_then_lane() {
    // order × 1024 + lane, computed by hand.
    for (order, lane, want) in [
        (0, 0, 0),
        (0, 5, 5),
        (1, 0, 1024),
        (2, 3, 2051),
        (3, 1023, 4095),
        (3, 5000, 4095),
        (2_097_151, 1023, i32::MAX),
        (2_097_152, 0, i32::MAX),
        (u32::MAX, 7, i32::MAX),
    ] {
        assert_eq!(
            track(order, lane).sort_key(),
            want,
            "order {order} lane {lane}"
        );
    }
    // Lanes of one timeline come before the next timeline.
    assert!(track(4, 1023).sort_key() < track(5, 0).sort_key());
}

/// Records each call as a line.
#[derive(Default)]
struct Calls(Vec<String>);

impl Sink for Calls {
    fn start(&mut self, from: f64, to: f64, first: f64) -> io::Result<()> {
        self.0.push(format!("start {from} {to} {first}"));
        Ok(())
    }
    fn track(&mut self, t: &Track) -> io::Result<()> {
        self.0.push(format!("track {}", t.id));
        Ok(())
    }
    fn enter(&mut self, time: f64, t: &Track, cat: &Cat, info: &[u8]) -> io::Result<()> {
        self.0
            .push(format!("enter {time} {} {} {info:?}", t.id, cat.index));
        Ok(())
    }
    fn leave(&mut self, time: f64, t: &Track, cat: &Cat) -> io::Result<()> {
        self.0.push(format!("leave {time} {} {}", t.id, cat.index));
        Ok(())
    }
    fn instant(&mut self, time: f64, t: &Track, cat: &Cat, info: &[u8]) -> io::Result<()> {
        self.0
            .push(format!("instant {time} {} {} {info:?}", t.id, cat.index));
        Ok(())
    }
    fn send(&mut self, f: &Flow<'_>) -> io::Result<()> {
        self.0
            .push(format!("send {} {} {}", f.time, f.track.id, f.flow));
        Ok(())
    }
    fn receive(&mut self, f: &Flow<'_>) -> io::Result<()> {
        self.0
            .push(format!("receive {} {} {}", f.time, f.track.id, f.flow));
        Ok(())
    }
    fn finish(&mut self) -> io::Result<()> {
        self.0.push("finish".into());
        Ok(())
    }
}

/// Every call, through a sink taken by value.
fn drive<S: Sink>(mut sink: S) -> io::Result<()> {
    let (t, cat) = (track(1, 0), message());
    let flow = |time, flow| Flow {
        time,
        track: &t,
        other: &t,
        flow,
        cat: &cat,
        info: &[],
    };
    sink.start(1.0, 4.0, 0.5)?;
    sink.track(&t)?;
    sink.enter(1.5, &t, &cat, &[1])?;
    sink.instant(2.0, &t, &cat, &[2])?;
    sink.send(&flow(2.5, 11))?;
    sink.receive(&flow(3.0, 11))?;
    sink.leave(3.5, &t, &cat)?;
    sink.finish()
}

#[test]
fn a_borrowed_sink_gets_every_call() {
    let mut calls = Calls::default();
    drive(&mut calls).unwrap();
    drive(&mut calls as &mut dyn Sink).unwrap();
    let once = [
        "start 1 4 0.5",
        "track 9",
        "enter 1.5 9 4 [1]",
        "instant 2 9 4 [2]",
        "send 2.5 9 11",
        "receive 3 9 11",
        "leave 3.5 9 4",
        "finish",
    ];
    let want: Vec<&str> = once.iter().chain(once.iter()).copied().collect();
    assert_eq!(calls.0, want);
}
