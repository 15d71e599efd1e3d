//! The viewer's waits (spec/queries.md §7.3): a served file's wait index
//! ([`crate::waits::WaitIndex`]) behind `/api/window?…&waits=1` (the
//! summary with its wait shares and critical path, §6.7) and `/api/waits`
//! (where time is lost in a window: patterns ranked by seconds as `mpelog
//! analyze --from --to` gives them, the worst waits, or one timeline's).

use super::{Response, Service};
use crate::analysis::Pattern;
use crate::render;
use crate::waits::{Wait, WaitIndex};
use std::collections::{BTreeMap, HashMap};

/// The most waits `/api/waits` lists (`instances`).
pub const MAX_INSTANCES: usize = 1000;

/// The waits `/api/waits` lists without `instances`.
pub const DEFAULT_INSTANCES: usize = 10;

/// Every pattern: code, name, id, parent's code, and how it is drawn (its
/// `colour`, stripes that `lean` `"right"` or `"left"`: the palette of
/// `render`, [`crate::render::pattern_colour`]), for `/api/info`.
pub(super) fn patterns_json() -> serde_json::Value {
    Pattern::ALL
        .iter()
        .map(|p| {
            serde_json::json!({
                "code": p.code(),
                "name": p.name(),
                "id": p.id(),
                "parent": p.parent().map(Pattern::code),
                "colour": render::pattern_colour(*p),
                "lean": if render::leans_right(*p) { "right" } else { "left" },
            })
        })
        .collect()
}

/// The rest of the waits' palette for `/api/info`: the critical path's
/// colour, that of the other patterns (code 255) and that of the stripes'
/// dark edges.
pub(super) fn palette_json() -> serde_json::Value {
    serde_json::json!({
        "path": render::PATH_COLOUR,
        "other": render::OTHER_PATTERNS_COLOUR,
        "edge": render::STRIPE_EDGE,
    })
}

/// Per pattern (with its sub-patterns, as `analyze` counts a parent) its
/// seconds inside `[from, to)` and per timeline, the most seconds first
/// (ties: by code); patterns without seconds left out. Of the timelines
/// `only` (every one: `None`).
pub(super) fn pattern_seconds(
    index: &WaitIndex,
    from: f64,
    to: f64,
    only: Option<&[i32]>,
) -> Vec<(Pattern, f64, BTreeMap<i32, f64>)> {
    let mut per: BTreeMap<Pattern, BTreeMap<i32, f64>> = BTreeMap::new();
    for row in &index.cells_of(from, to, 1, only).rows {
        for c in &row.cells {
            let mut p = Some(c.pattern);
            while let Some(q) = p {
                *per.entry(q).or_default().entry(row.timeline).or_insert(0.0) += c.seconds;
                p = q.parent();
            }
        }
    }
    let mut patterns: Vec<(Pattern, f64, BTreeMap<i32, f64>)> = per
        .into_iter()
        .map(|(p, t)| (p, t.values().sum(), t))
        .filter(|(_, s, _)| *s > 0.0)
        .collect();
    patterns.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    patterns
}

impl Service {
    /// The same service with `index` as the wait index of file `k`
    /// (`mpelog serve` reads the index beside each trace, or analyses it):
    /// `/api/window?…&waits=1` then carries the waits (spec/queries.md §6.7)
    /// and `/api/waits` answers for it. An index past the files is ignored.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("t.slog2");
    /// # std::fs::write(&path, out.into_inner())?;
    /// use mpelog::analysis::Pattern;
    /// use mpelog::waits::{Wait, WaitIndex};
    /// let w = Wait { timeline: 1, start: 0.01, end: 0.02, pattern: Pattern::LateSender, partner: Some(0), cause: 0.02, call: 0 };
    /// let index = WaitIndex::new(vec![w], vec![], vec![], (0.0, 1.0), 0, 64);
    /// let s = mpelog::serve::Service::new(&[path])?.with_waits(0, index);
    /// let v: serde_json::Value = serde_json::from_slice(&s.handle("GET", "/api/waits?from=0&to=1", None).read_body()?)?;
    /// assert_eq!(v["patterns"][0]["name"], "Late Sender");
    /// assert!((v["patterns"][0]["seconds"].as_f64().unwrap() - 0.01).abs() < 1e-12);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_waits(mut self, k: usize, index: WaitIndex) -> Service {
        if let Some(f) = self.files.get_mut(k) {
            f.waits = Some(index);
        }
        self
    }

    /// `/api/waits`: the patterns of file `k`'s waits in `[from, to)` ranked
    /// by seconds, and its worst waits (or timeline `line`'s).
    pub(super) fn waits(&self, k: usize, q: &HashMap<String, String>) -> Response {
        let Some(index) = &self.files[k].waits else {
            return Response::error(
                404,
                "no wait index for this file: mpelog serve analyses each trace unless \
                 --no-waits (mpelog analyze TRACE --write-index writes one beside it)",
            );
        };
        let num = |key: &str| q.get(key).map(|v| v.parse::<f64>());
        let (from, to) = match (num("from"), num("to")) {
            (Some(Ok(a)), Some(Ok(b))) if a.is_finite() && b.is_finite() && a < b => (a, b),
            _ => return Response::error(400, "from and to: finite seconds, from < to"),
        };
        let n = match q.get("instances").map(|v| v.parse::<usize>()) {
            None => DEFAULT_INSTANCES,
            Some(Ok(n)) if n <= MAX_INSTANCES => n,
            _ => return Response::error(400, "instances: 0 to 1000"),
        };
        let pixels = match q.get("pixels").map(|v| v.parse::<u32>()) {
            None => None,
            Some(Ok(p)) if (1..=super::MAX_PIXELS).contains(&p) => Some(p),
            _ => return Response::error(400, "pixels: 1 to 16384"),
        };
        let line = match q.get("line").map(|v| v.parse::<i32>()) {
            None => None,
            Some(Ok(l)) => Some(l),
            Some(Err(_)) => return Response::error(400, "line: a line ID"),
        };
        let patterns = pattern_seconds(index, from, to, None);
        let instances: Vec<(f64, Wait)> = match line {
            None => index.instances(from, to, n),
            Some(l) => {
                let waits = index.waits(l);
                // Sorted by start: those from `from` on, and the ones just
                // before it that still reach into the window.
                let mut first = waits.partition_point(|w| w.start < from);
                while first > 0 && waits[first - 1].end > from {
                    first -= 1;
                }
                waits[first..]
                    .iter()
                    .take_while(|w| w.start < to)
                    .filter(|w| w.end > from)
                    .take(n)
                    .map(|w| (w.end.min(to) - w.start.max(from), *w))
                    .collect()
            }
        };
        let wait_json = |(s, w): &(f64, Wait)| {
            serde_json::json!({
                "pattern": w.pattern.name(),
                "code": w.pattern.code(),
                "timeline": w.timeline,
                "start": w.start,
                "end": w.end,
                "seconds": s,
                "partner": w.partner,
                "cause": w.cause,
                "call": index.call_name(w.call),
            })
        };
        let mut v = serde_json::json!({
            "file": k,
            "from": from,
            "to": to,
            "patterns": patterns.iter().map(|(p, s, t)| serde_json::json!({
                "name": p.name(),
                "id": p.id(),
                "code": p.code(),
                "parent": p.parent().map(Pattern::name),
                "seconds": s,
                "per_timeline": t,
            })).collect::<Vec<_>>(),
            "instances": instances.iter().map(wait_json).collect::<Vec<_>>(),
        });
        // The waits whose causes a picture `pixels` wide marks, as `render`
        // marks them (at most CAUSES).
        if let Some(p) = pixels {
            v["causes"] = render::marked_causes(index, from, to, p)
                .iter()
                .map(wait_json)
                .collect();
        }
        Response::json(&v)
    }
}
