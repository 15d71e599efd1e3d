//! `/api/compare` of `mpelog serve A B --compare`: two served files' state
//! categories per timeline over a window of each ([`crate::compare::summaries`]),
//! read as `/api/window` reads the windows, so that it costs what the two
//! pictures cost, and their wait-state patterns from their wait indexes
//! ([`crate::compare::patterns`], as `mpelog analyze A --compare B`)
//! (spec/queries.md §7.2).

use super::{picture_params, Response, Service};
use crate::summary::Summary;
use slog2_format::Category;
use std::collections::HashMap;
use std::time::Instant;

/// The most rows of each table `/api/compare` writes (`limit`).
pub const MAX_COMPARE_ROWS: usize = 10_000;

/// The rows of each table `/api/compare` writes without `limit`.
pub const DEFAULT_COMPARE_ROWS: usize = 200;

/// One run's side: its summary (a row per line ID, one column), its legend,
/// and what reading it cost (nodes, bytes).
type Side = (Summary, Vec<Category>, u64, u64);

impl Service {
    /// `/api/compare`: run A (file `a`, default 0) over `[a_from, a_to]` and
    /// run B (file `b`, default 1) over `[b_from, b_to]`, each read `pixels`
    /// wide as `/api/window` reads it; with `rows=FIRST-LAST`, the timelines
    /// of those rows (line IDs in ascending order) only.
    pub(super) fn compare(&self, q: &HashMap<String, String>) -> Response {
        let num = |key: &str| q.get(key).map(|v| v.parse::<f64>());
        let window = |from: &str, to: &str| match (num(from), num(to)) {
            (Some(Ok(a)), Some(Ok(b))) if a.is_finite() && b.is_finite() && a < b => Some((a, b)),
            _ => None,
        };
        let (Some(wa), Some(wb)) = (window("a_from", "a_to"), window("b_from", "b_to")) else {
            return Response::error(
                400,
                "a_from, a_to, b_from, b_to: finite seconds, a_from < a_to, b_from < b_to",
            );
        };
        let file = |key: &str, default: usize| match q.get(key).map(|v| v.parse::<usize>()) {
            None if default < self.files.len() => Some(default),
            Some(Ok(k)) if k < self.files.len() => Some(k),
            _ => None,
        };
        let (Some(a), Some(b)) = (file("a", 0), file("b", 1)) else {
            return Response::error(400, "a and b: the indexes of two served files");
        };
        let (pixels, _, rows) = match picture_params(q, 1600) {
            Ok(p) => p,
            Err(r) => return r,
        };
        let limit = match q.get("limit").map(|v| v.parse::<usize>()) {
            None => DEFAULT_COMPARE_ROWS,
            Some(Ok(n)) if (1..=MAX_COMPARE_ROWS).contains(&n) => n,
            _ => return Response::error(400, "limit: 1 to 10000 rows"),
        };
        let started = Instant::now();
        // The two runs at once (each reads and summarises its own window).
        let (ra, rb) = std::thread::scope(|scope| {
            let other = scope.spawn(|| self.side(b, wb, pixels, rows));
            let this = self.side(a, wa, pixels, rows);
            (this, other.join())
        });
        let Ok(rb) = rb else {
            return Response::error(500, "the comparison of run B failed");
        };
        let (sa, sb) = match (ra, rb) {
            (Ok(Ok(x)), Ok(Ok(y))) => (x, y),
            (Ok(Err(e)), _) | (_, Ok(Err(e))) | (Err(e), _) | (_, Err(e)) => {
                return Response::error(422, &e.to_string())
            }
        };
        let c = crate::compare::summaries(&sa.0, &sa.1, &sb.0, &sb.1);
        let (totals, timelines) = (c.totals.len(), c.timelines.len());
        let cut = |rows: &[crate::compare::Row]| rows[..rows.len().min(limit)].to_vec();
        // The wait-state patterns, when both runs have a wait index.
        let patterns = match (&self.files[a].waits, &self.files[b].waits) {
            (Some(ia), Some(ib)) => {
                // With `rows`, the timelines of those rows only.
                let shown = |s: &Summary| -> Option<Vec<i32>> {
                    rows.map(|(x, y)| {
                        let (x, y) = (x as usize, (y as usize + 1).min(s.rows.len()));
                        s.rows[x.min(y)..y]
                            .iter()
                            .filter_map(|r| r.lines.first().copied())
                            .collect()
                    })
                };
                let flat = |ix, (from, to), only: Option<Vec<i32>>| {
                    super::waits::pattern_seconds(ix, from, to, only.as_deref())
                        .into_iter()
                        .flat_map(|(p, _, per)| per.into_iter().map(move |(t, s)| (p, t, s)))
                        .collect::<Vec<_>>()
                };
                let p = crate::compare::patterns(
                    wa,
                    &flat(ia, wa, shown(&sa.0)),
                    wb,
                    &flat(ib, wb, shown(&sb.0)),
                );
                serde_json::json!({
                    "totals": cut(&p.totals),
                    "timelines": cut(&p.timelines),
                    "totals_count": p.totals.len(),
                    "timelines_count": p.timelines.len(),
                })
            }
            _ => serde_json::Value::Null,
        };
        let v = serde_json::json!({
            "a": a,
            "b": b,
            "files": [self.files[a].name, self.files[b].name],
            "a_window": c.a_window,
            "b_window": c.b_window,
            "totals": cut(&c.totals),
            "timelines": cut(&c.timelines),
            "totals_count": totals,
            "timelines_count": timelines,
            "shadows": [sa.0.shadows, sb.0.shadows],
            "exact": sa.0.shadows == 0 && sb.0.shadows == 0,
            "patterns": patterns,
            "cost": {
                "nodes_read": sa.2 + sb.2,
                "bytes_read": sa.3 + sb.3,
                "micros": started.elapsed().as_micros() as u64,
            },
        });
        Response::json(&v)
    }

    /// File `k`'s window `[from, to]` read `pixels` wide, summarised in one
    /// column per line ID (the rows `rows` only, in line-ID order: what they
    /// show costs what they hold, not every timeline's states).
    fn side(
        &self,
        k: usize,
        (from, to): (f64, f64),
        pixels: u32,
        rows: Option<(u32, u32)>,
    ) -> slog2_format::Result<slog2_format::Result<Side>> {
        self.with_reader(k, |r| {
            let before = r.counters();
            let legend: Vec<Category> = r.category_list().to_vec();
            let s = self.with_buf(|buf| {
                crate::summary::query(r, buf, from, to, pixels)?;
                // A row's seconds do not depend on the columns: one is enough.
                Ok::<_, slog2_format::Error>(Summary::of_window_rows(
                    buf, &legend, None, from, to, 1, rows,
                ))
            })?;
            let after = r.counters();
            Ok((
                s,
                legend,
                after.nodes_read - before.nodes_read,
                after.bytes_read - before.bytes_read,
            ))
        })
    }
}
