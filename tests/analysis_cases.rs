//! `mpelog::analysis` on hand-worked CLOG2 traces: each answer is worked out
//! here from the pattern's definition (spec/analysis.md §5–7) and must hold to
//! 1 ns, from the CLOG2 file and from its SLOG-2 conversion alike.

#[path = "common/analysis.rs"]
mod analysis_common;

use analysis_common::*;
use mpelog::analysis::{Options, Pattern};

/// A receive entered at 5 ms whose send enters at 30 ms: Late Sender 25 ms.
#[test]
fn late_sender_is_the_time_from_the_receive_to_the_send() {
    let mut t = Trace::new(2);
    t.state(1, "MPI_Recv", 5.0 * MS, 31.0 * MS)
        .state(0, "MPI_Send", 30.0 * MS, 30.5 * MS)
        .message(0, 30.1 * MS, 1, 30.9 * MS, 7);
    let r = analyze(&t, &Options::default());
    close(r.seconds(Pattern::LateSender), 25.0 * MS, "late sender");
    close(on(&r, Pattern::LateSender, 1), 25.0 * MS, "on the receiver");
    let ls = r.pattern(Pattern::LateSender).unwrap();
    assert_eq!(ls.count, 1);
    let i = &ls.instances[0];
    assert_eq!(
        (i.timeline, i.partner, i.call.as_str()),
        (1, Some(0), "MPI_Recv")
    );
    close(i.time, 5.0 * MS, "instance time");
    assert_eq!(ls.per_call_path[0].call_path, "MPI_Recv");
    // The send left before the receive... no: it entered after the receive was
    // posted, so it is no Late Receiver.
    assert_eq!(r.seconds(Pattern::LateReceiver), 0.0);
    assert_eq!(r.seconds(Pattern::LateSenderWrongOrder), 0.0);
    assert_eq!(r.counts.messages, 1);
}

/// The wait is attributed to the call path of the receive: the user states it
/// is nested in, outer first.
#[test]
fn late_sender_names_the_call_path() {
    let mut t = Trace::new(2);
    t.state(1, "Solver", 1.0 * MS, 40.0 * MS)
        .state(1, "Exchange", 2.0 * MS, 35.0 * MS)
        .state(1, "MPI_Recv", 5.0 * MS, 31.0 * MS)
        .state(0, "MPI_Send", 30.0 * MS, 30.5 * MS)
        .message(0, 30.1 * MS, 1, 30.9 * MS, 7);
    let r = analyze(&t, &Options::default());
    let ls = r.pattern(Pattern::LateSender).unwrap();
    assert_eq!(
        ls.per_call_path[0].call_path,
        "Solver > Exchange > MPI_Recv"
    );
    close(ls.per_call_path[0].seconds, 25.0 * MS, "per call path");
}

/// Rank 2 receives from rank 1 first (sent at 10 ms: it waits 8 ms), then
/// from rank 0, whose message was sent at 1 ms, earlier: the 8 ms were a
/// Late Sender, wrong order (different source). Late Sender keeps them.
#[test]
fn wrong_order_from_different_sources() {
    let mut t = Trace::new(3);
    t.state(0, "MPI_Send", 1.0 * MS, 1.2 * MS)
        .message(0, 1.1 * MS, 2, 11.2 * MS, 1)
        .state(1, "MPI_Send", 10.0 * MS, 10.2 * MS)
        .message(1, 10.1 * MS, 2, 10.4 * MS, 1)
        .state(2, "MPI_Recv", 2.0 * MS, 10.5 * MS)
        .state(2, "MPI_Recv", 11.0 * MS, 11.3 * MS);
    let r = analyze(&t, &Options::default());
    close(r.seconds(Pattern::LateSender), 8.0 * MS, "late sender");
    close(
        r.seconds(Pattern::LateSenderWrongOrder),
        8.0 * MS,
        "wrong order",
    );
    close(
        r.seconds(Pattern::LswoDifferentSource),
        8.0 * MS,
        "different source",
    );
    assert_eq!(r.seconds(Pattern::LswoSameSource), 0.0);
}

/// The same from one source: tag 2 (sent at 10 ms) received before tag 1
/// (sent at 1 ms).
#[test]
fn wrong_order_from_the_same_source() {
    let mut t = Trace::new(2);
    t.state(0, "MPI_Send", 1.0 * MS, 1.2 * MS)
        .message(0, 1.1 * MS, 1, 11.2 * MS, 1)
        .state(0, "MPI_Send", 10.0 * MS, 10.2 * MS)
        .message(0, 10.1 * MS, 1, 10.4 * MS, 2)
        .state(1, "MPI_Recv", 2.0 * MS, 10.5 * MS)
        .state(1, "MPI_Recv", 11.0 * MS, 11.3 * MS);
    let r = analyze(&t, &Options::default());
    close(r.seconds(Pattern::LateSender), 8.0 * MS, "late sender");
    close(r.seconds(Pattern::LswoSameSource), 8.0 * MS, "same source");
    assert_eq!(r.seconds(Pattern::LswoDifferentSource), 0.0);
}

/// Messages received in the order they were sent are no wrong order.
#[test]
fn in_order_messages_are_no_wrong_order() {
    let mut t = Trace::new(2);
    t.state(0, "MPI_Send", 10.0 * MS, 10.2 * MS)
        .message(0, 10.1 * MS, 1, 10.4 * MS, 2)
        .state(0, "MPI_Send", 12.0 * MS, 12.2 * MS)
        .message(0, 12.1 * MS, 1, 12.4 * MS, 1)
        .state(1, "MPI_Recv", 2.0 * MS, 10.5 * MS)
        .state(1, "MPI_Recv", 11.0 * MS, 12.5 * MS);
    let r = analyze(&t, &Options::default());
    close(r.seconds(Pattern::LateSender), 9.0 * MS, "8 + 1 ms");
    assert_eq!(r.seconds(Pattern::LateSenderWrongOrder), 0.0);
}

/// `MPI_Waitall` completing two late messages counts the larger wait once.
#[test]
fn waitall_counts_its_latest_sender_once() {
    let mut t = Trace::new(3);
    t.state(0, "MPI_Send", 4.0 * MS, 4.2 * MS)
        .message(0, 4.1 * MS, 2, 8.0 * MS, 1)
        .state(1, "MPI_Send", 7.0 * MS, 7.2 * MS)
        .message(1, 7.1 * MS, 2, 9.0 * MS, 1)
        .state(2, "MPI_Waitall", 1.0 * MS, 10.0 * MS);
    let r = analyze(&t, &Options::default());
    close(r.seconds(Pattern::LateSender), 6.0 * MS, "max(3, 6) ms");
    assert_eq!(r.pattern(Pattern::LateSender).unwrap().count, 1);
    assert_eq!(
        r.pattern(Pattern::LateSender).unwrap().instances[0].partner,
        Some(1)
    );
}

/// A receive logged before its send (5.9 ms before 8.1 ms): a clock
/// violation, counted; the wait is clamped to the receive's end (6 ms): 1 ms.
#[test]
fn a_receive_before_its_send_is_counted_and_clamped() {
    let mut t = Trace::new(2);
    t.state(1, "MPI_Recv", 5.0 * MS, 6.0 * MS)
        .state(0, "MPI_Send", 8.0 * MS, 8.5 * MS)
        .message(0, 8.1 * MS, 1, 5.9 * MS, 3);
    let r = analyze(&t, &Options::default());
    assert_eq!(r.unmatched.p2p_clock_violations, 1);
    close(
        r.seconds(Pattern::LateSender),
        1.0 * MS,
        "clamped to the receive's end",
    );
}

/// A blocking send entered at 1 ms, its receive posted at 5 ms, the send
/// still blocked then (it leaves at 6 ms): Late Receiver 4 ms on the sender.
#[test]
fn late_receiver_is_the_time_from_the_send_to_the_receive() {
    let mut t = Trace::new(2);
    t.state(0, "MPI_Send", 1.0 * MS, 6.0 * MS)
        .message(0, 1.1 * MS, 1, 6.1 * MS, 3)
        .state(1, "MPI_Recv", 5.0 * MS, 6.2 * MS);
    let r = analyze(&t, &Options::default());
    close(r.seconds(Pattern::LateReceiver), 4.0 * MS, "late receiver");
    close(on(&r, Pattern::LateReceiver, 0), 4.0 * MS, "on the sender");
    assert_eq!(r.seconds(Pattern::LateSender), 0.0);
    // A send that returned before the receive was posted did not wait.
    let mut t = Trace::new(2);
    t.state(0, "MPI_Send", 1.0 * MS, 1.5 * MS)
        .message(0, 1.1 * MS, 1, 6.1 * MS, 3)
        .state(1, "MPI_Recv", 5.0 * MS, 6.2 * MS);
    assert_eq!(
        analyze(&t, &Options::default()).seconds(Pattern::LateReceiver),
        0.0
    );
}

/// A barrier entered at 1, 4 and 9 ms: waits 8, 5 and 0 ms. Left at 10, 10.2
/// and 10.4 ms: completion 0, 0.2 and 0.4 ms after the first left.
#[test]
fn wait_at_barrier_and_completion() {
    let mut t = Trace::new(3);
    t.collective(
        "MPI_Barrier",
        &[1.0 * MS, 4.0 * MS, 9.0 * MS],
        &[10.0 * MS, 10.2 * MS, 10.4 * MS],
    );
    let r = analyze(&t, &Options::default());
    close(on(&r, Pattern::WaitAtBarrier, 0), 8.0 * MS, "rank 0");
    close(on(&r, Pattern::WaitAtBarrier, 1), 5.0 * MS, "rank 1");
    close(on(&r, Pattern::WaitAtBarrier, 2), 0.0, "rank 2");
    close(r.seconds(Pattern::WaitAtBarrier), 13.0 * MS, "total");
    close(
        r.seconds(Pattern::BarrierCompletion),
        0.6 * MS,
        "completion",
    );
    let w = r.pattern(Pattern::WaitAtBarrier).unwrap();
    assert!(w.instances.iter().all(|i| i.partner == Some(2)));
    assert_eq!(r.counts.collectives, 1);
}

/// An n-to-n collective entered at 2, 3 and 7 ms, left at 8, 8.5 and 9 ms:
/// waits 5, 4, 0; completion 0, 0.5, 1 ms.
#[test]
fn wait_at_nxn_and_completion() {
    let mut t = Trace::new(3);
    t.collective(
        "MPI_Allreduce",
        &[2.0 * MS, 3.0 * MS, 7.0 * MS],
        &[8.0 * MS, 8.5 * MS, 9.0 * MS],
    );
    let r = analyze(&t, &Options::default());
    close(r.seconds(Pattern::WaitAtNxN), 9.0 * MS, "wait");
    close(r.seconds(Pattern::NxNCompletion), 1.5 * MS, "completion");
    assert_eq!(r.seconds(Pattern::WaitAtBarrier), 0.0);
}

/// A broadcast whose root (rank 0) enters at 6 ms, ranks 1 and 2 at 2 and 4
/// ms: Late Broadcast 4 + 2 ms. With `--root 1` the root entered first: none.
#[test]
fn late_broadcast_waits_for_the_root() {
    let mut t = Trace::new(3);
    t.collective(
        "MPI_Bcast",
        &[6.0 * MS, 2.0 * MS, 4.0 * MS],
        &[7.0 * MS, 7.5 * MS, 8.0 * MS],
    );
    let r = analyze(&t, &Options::default());
    close(r.seconds(Pattern::LateBroadcast), 6.0 * MS, "root 0");
    close(on(&r, Pattern::LateBroadcast, 1), 4.0 * MS, "rank 1");
    let r = analyze(&t, &Options::default().root(1));
    assert_eq!(r.seconds(Pattern::LateBroadcast), 0.0);
}

/// A reduction whose root enters at 1 ms and leaves at 6 ms, its senders
/// entering at 3 and 5 ms: Early Reduce 4 ms on the root only.
#[test]
fn early_reduce_waits_on_the_root_for_the_last_sender() {
    let mut t = Trace::new(3);
    t.collective(
        "MPI_Reduce",
        &[1.0 * MS, 3.0 * MS, 5.0 * MS],
        &[6.0 * MS, 5.5 * MS, 5.6 * MS],
    );
    let r = analyze(&t, &Options::default());
    close(r.seconds(Pattern::EarlyReduce), 4.0 * MS, "early reduce");
    close(on(&r, Pattern::EarlyReduce, 0), 4.0 * MS, "on the root");
    let i = &r.pattern(Pattern::EarlyReduce).unwrap().instances[0];
    assert_eq!(i.partner, Some(2));
}

/// A scan entered at 4, 1 and 2 ms by ranks 0, 1, 2: rank 1 waits for rank 0
/// (3 ms), rank 2 for the latest of ranks 0 and 1 (4 − 2 = 2 ms).
#[test]
fn early_scan_waits_for_the_lower_ranks() {
    let mut t = Trace::new(3);
    t.collective(
        "MPI_Scan",
        &[4.0 * MS, 1.0 * MS, 2.0 * MS],
        &[5.0 * MS, 5.0 * MS, 5.0 * MS],
    );
    let r = analyze(&t, &Options::default());
    close(on(&r, Pattern::EarlyScan, 1), 3.0 * MS, "rank 1");
    close(on(&r, Pattern::EarlyScan, 2), 2.0 * MS, "rank 2");
    close(r.seconds(Pattern::EarlyScan), 5.0 * MS, "total");
}

/// `MPI_Init` left at 1, 1.5 and 2 ms: completion 0, 0.5, 1 ms (no wait is
/// counted at init). `MPI_Finalize` entered at 11, 12, 13 ms: waits 2, 1, 0.
#[test]
fn init_completion_and_wait_at_finalize() {
    let mut t = Trace::new(3);
    t.collective(
        "MPI_Init",
        &[0.1 * MS, 0.2 * MS, 0.3 * MS],
        &[1.0 * MS, 1.5 * MS, 2.0 * MS],
    )
    .collective(
        "MPI_Finalize",
        &[11.0 * MS, 12.0 * MS, 13.0 * MS],
        &[14.0 * MS, 14.0 * MS, 14.0 * MS],
    );
    let r = analyze(&t, &Options::default());
    close(
        r.seconds(Pattern::InitCompletion),
        1.5 * MS,
        "init completion",
    );
    close(
        r.seconds(Pattern::WaitAtFinalize),
        3.0 * MS,
        "wait at finalize",
    );
    // Init and finalize do not shift the communicator's collective order.
    assert_eq!(r.counts.collectives, 2);
}

/// Collectives are matched per communicator by call order: the second
/// barrier of every rank is one instance, whatever its time.
#[test]
fn collectives_match_by_call_order() {
    let mut t = Trace::new(2);
    t.collective("MPI_Barrier", &[1.0 * MS, 2.0 * MS], &[3.0 * MS, 3.0 * MS])
        .collective(
            "MPI_Barrier",
            &[4.0 * MS, 9.0 * MS],
            &[10.0 * MS, 10.0 * MS],
        );
    let r = analyze(&t, &Options::default());
    close(r.seconds(Pattern::WaitAtBarrier), 6.0 * MS, "1 + 5 ms");
    assert_eq!(r.counts.collectives, 2);
}

/// Rank 0 computes 10 ms then sends; rank 1 computes 2 ms, waits in
/// MPI_Recv until 10 ms, receives until 11 ms, computes 1 ms. Backwards from
/// rank 1's end (12 ms): Work 1 ms, MPI_Recv 10–11 ms, then over to rank 0
/// at 10 ms: Work 10 ms. Path 12 ms: Work 11, MPI_Recv 1; rank 0 10, rank 1 2.
#[test]
fn critical_path_moves_to_the_late_sender() {
    let mut t = Trace::new(2);
    t.state(0, "Work", 0.0, 10.0 * MS)
        .state(0, "MPI_Send", 10.0 * MS, 10.5 * MS)
        .message(0, 10.1 * MS, 1, 10.9 * MS, 1)
        .state(1, "Work", 0.0, 2.0 * MS)
        .state(1, "MPI_Recv", 2.0 * MS, 11.0 * MS)
        .state(1, "Work", 11.0 * MS, 12.0 * MS);
    let r = analyze(&t, &Options::default());
    let cp = &r.critical_path;
    close(cp.seconds, 12.0 * MS, "length");
    assert_eq!(cp.end_timeline, Some(1));
    let cat = |name: &str| {
        cp.per_category
            .iter()
            .find(|c| c.category == name)
            .map_or(0.0, |c| c.seconds)
    };
    close(cat("Work"), 11.0 * MS, "Work on the path");
    close(cat("MPI_Recv"), 1.0 * MS, "MPI_Recv on the path");
    close(cat("MPI_Send"), 0.0, "MPI_Send is not on the path");
    close(cp.per_timeline[&0], 10.0 * MS, "rank 0");
    close(cp.per_timeline[&1], 2.0 * MS, "rank 1");
    // Work's mean over the two ranks is (10 + 3) / 2 = 6.5 ms: imbalance 4.5.
    let work = cp
        .per_category
        .iter()
        .find(|c| c.category == "Work")
        .unwrap();
    close(work.mean, 6.5 * MS, "mean");
    close(work.imbalance, 4.5 * MS, "critical-path imbalance");
    close(
        cp.imbalance_impact,
        4.5 * MS,
        "impact: MPI_Recv's 1 ms is below its mean 4.5",
    );
}

/// Work: 10 ms on rank 0, 3 on rank 1 (mean 6.5, max/mean 10/6.5, overload
/// and underload 3.5). Setup only on rank 0 (1 ms): single participant 0.5,
/// non-participation 0.5.
#[test]
fn load_imbalance_per_category() {
    let mut t = Trace::new(2);
    t.state(0, "Work", 0.0, 10.0 * MS)
        .state(0, "Setup", 12.0 * MS, 13.0 * MS)
        .state(1, "Work", 0.0, 2.0 * MS)
        .state(1, "Work", 11.0 * MS, 12.0 * MS);
    let r = analyze(&t, &Options::default());
    let row = |name: &str| r.imbalance.iter().find(|i| i.category == name).unwrap();
    let w = row("Work");
    close(w.mean, 6.5 * MS, "mean");
    close(w.max, 10.0 * MS, "max");
    close(w.max_over_mean, 10.0 / 6.5, "max/mean");
    close(w.overload, 3.5 * MS, "overload");
    close(w.underload, 3.5 * MS, "underload");
    assert_eq!(w.top[0].0, 0);
    assert_eq!(w.single_participant, 0.0);
    let s = row("Setup");
    close(s.single_participant, 0.5 * MS, "single participant");
    close(s.non_participation, 0.5 * MS, "non-participation");
    assert_eq!(s.visitors, 1);
}

/// A wait state counts its part inside the window (spec/analysis.md §8):
/// the barrier waits [1, 9) and [4, 9) ms count 6 and 5 ms in [3, 20) ms.
/// (Until issue 44 a wait counted whole when its call entered in the
/// window: 5 ms here.)
#[test]
fn the_window_decides_what_counts() {
    let mut t = Trace::new(3);
    t.collective(
        "MPI_Barrier",
        &[1.0 * MS, 4.0 * MS, 9.0 * MS],
        &[10.0 * MS, 10.0 * MS, 10.0 * MS],
    );
    let r = analyze(
        &t,
        &Options::default().window(Some(3.0 * MS), Some(20.0 * MS)),
    );
    close(r.seconds(Pattern::WaitAtBarrier), 11.0 * MS, "clipped");
    let p = r.pattern(Pattern::WaitAtBarrier).unwrap();
    close(p.per_timeline[&0], 6.0 * MS, "rank 0's part in the window");
    close(p.per_timeline[&1], 5.0 * MS, "rank 1 whole");
    // Listed when they overlap the window, with their whole interval.
    let i = &p.instances[0];
    assert_eq!((i.timeline, i.start, i.end), (0, 1.0 * MS, 9.0 * MS));
    close(
        i.seconds,
        6.0 * MS,
        "the worst instance's part in the window",
    );
    // A window of the barrier's last millisecond: every wait ends at 9 ms.
    close(r.to - r.from, 17.0 * MS, "the window");
    let r = analyze(&t, &Options::default().window(Some(9.0 * MS), None));
    assert_eq!(r.seconds(Pattern::WaitAtBarrier), 0.0);
}

/// A rank missing from the last barrier (a cut trace) and a send never
/// received: reported, the rest analysed.
#[test]
fn what_cannot_be_matched_is_reported() {
    let mut t = Trace::new(3);
    t.collective(
        "MPI_Barrier",
        &[1.0 * MS, 4.0 * MS, 9.0 * MS],
        &[10.0 * MS, 10.0 * MS, 10.0 * MS],
    )
    .collective(
        "MPI_Barrier",
        &[11.0 * MS, 12.0 * MS],
        &[13.0 * MS, 13.0 * MS],
    )
    .state(0, "MPI_Send", 14.0 * MS, 14.5 * MS)
    .send_only(0, 14.1 * MS, 1, 9);
    let r = analyze(&t, &Options::default());
    close(
        r.seconds(Pattern::WaitAtBarrier),
        13.0 * MS,
        "the complete barrier",
    );
    assert_eq!(r.unmatched.incomplete_collectives, 1);
    let e = &r.unmatched.collective_examples[0];
    assert_eq!((e.problem, e.position, e.size), ("incomplete", 1, 3));
    assert_eq!(e.timelines, [0, 1]);
}

/// Different calls at the same place of the call order are reported, not
/// measured.
#[test]
fn mismatched_collectives_are_reported() {
    let mut t = Trace::new(2);
    t.state(0, "MPI_Barrier", 1.0 * MS, 3.0 * MS)
        .state(1, "MPI_Bcast", 2.0 * MS, 3.0 * MS);
    let r = analyze(&t, &Options::default());
    assert_eq!(r.unmatched.mismatched_collectives, 1);
    assert!(r.patterns.is_empty());
}
