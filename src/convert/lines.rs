//! The lines of a conversion's summary that tell what the tree writer and
//! the pairing did.

/// The tree line: drawables, nodes, depth, largest block.
///
/// ```
/// let t = slog2_format::write::TreeStats::default();
/// assert!(mpelog::convert::tree_line(&t).starts_with("drawables 0; tree: "));
/// ```
pub fn tree_line(t: &slog2_format::write::TreeStats) -> String {
    format!(
        "drawables {}; tree: {} nodes, depth {}, largest block {} bytes",
        t.drawables, t.nodes, t.depth, t.max_block
    )
}

/// The lines of an OTF2 conversion (spec/otf2.md §9): what was drawn, what
/// was left unmatched, and the events neither drawn nor paired, by name.
///
/// ```
/// let c = slog2_format::convert::otf2::Otf2Counts::default();
/// let u = slog2_format::convert::Unmatched::default();
/// let lines = mpelog::convert::otf2_lines(&c, &u);
/// assert_eq!(lines[0], "0 states, 0 arrows, 0 collectives, 0 metric events");
/// assert_eq!(lines[2], "not drawn: none");
/// ```
pub fn otf2_lines(
    c: &slog2_format::convert::otf2::Otf2Counts,
    u: &slog2_format::convert::Unmatched,
) -> Vec<String> {
    let not_drawn = if c.counted.is_empty() {
        "none".to_string()
    } else {
        c.counted
            .iter()
            .map(|(k, v)| format!("{v} {k}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    vec![
        format!(
            "{} states, {} arrows, {} collectives, {} metric events",
            c.states, c.arrows, c.collectives, c.metrics
        ),
        format!(
            "unmatched: {} leaves, {} sends, {} receives, {} states closed at the end",
            u.state_finals, u.sends, u.recvs, u.states_closed_at_end
        ),
        format!("not drawn: {not_drawn}"),
    ]
}

/// The unmatched-event line of a CLOG2 or old-CLOG conversion: what was
/// dropped, and how it relates to the number MPE's Java converter `java`
/// (clog2TOslog2, clogTOslog2) prints.
///
/// ```
/// let u = slog2_format::convert::Unmatched::default();
/// assert_eq!(mpelog::convert::unmatched_line(&u, "clog2TOslog2"), "unmatched events: none dropped");
/// ```
pub fn unmatched_line(u: &slog2_format::convert::Unmatched, java: &str) -> String {
    let mut s = if u.total_dropped() == 0 {
        "unmatched events: none dropped".to_string()
    } else {
        format!(
            "unmatched events: {} dropped (state starts never ended {}, state ends without a start {}, sends without a receive {}, receives without a send {}, undeclared event IDs {})",
            u.total_dropped(),
            u.state_starts,
            u.state_finals,
            u.sends,
            u.recvs,
            u.undeclared_events
        )
    };
    if u.java_count != u.total_dropped() {
        s.push_str(&format!(
            "; {java} reports {} (it counts only the starts, sends and receives of defined categories)",
            u.java_count
        ));
    }
    note(
        &mut s,
        u.conflicting_definitions,
        "conflicting definitions ignored",
    );
    note(
        &mut s,
        u.undeclared_timelines,
        "timelines no COMMEVT declared (kept)",
    );
    s
}

/// The unmatched-event line of an ALOG conversion.
pub(super) fn alog_unmatched_line(u: &slog2_format::convert::Unmatched) -> String {
    let mut s = if u.total_dropped() == 0 {
        "unmatched events: none dropped".to_string()
    } else {
        format!(
            "unmatched events: {} dropped (state ends without a start {}, sends without a receive {}, receives without a send {}, events at a time that is not a number {})",
            u.total_dropped(),
            u.state_finals,
            u.sends,
            u.recvs,
            u.bad_times
        )
    };
    note(
        &mut s,
        u.states_closed_at_end,
        "states still open at the end closed there (as upshot draws them)",
    );
    note(
        &mut s,
        u.conflicting_definitions,
        "state definitions ignored",
    );
    s
}

/// Appends `; N what` to a summary line when `n` is not 0.
fn note(line: &mut String, n: u64, what: &str) {
    if n > 0 {
        line.push_str(&format!("; {n} {what}"));
    }
}
