//! Load imbalance per state category (spec/analysis.md §7): the exclusive
//! time of each category on each timeline, its mean over all timelines, its
//! maximum, and Scalasca's heuristic classes.

use super::report::ImbalanceRow;
use rustc_hash::FxHashMap;

/// Exclusive seconds and visits per (category, timeline).
#[derive(Debug, Default)]
pub(crate) struct Exclusive {
    pub per: FxHashMap<(i32, i32), (f64, u64)>,
}

impl Exclusive {
    pub fn add(&mut self, category: i32, timeline: i32, seconds: f64) {
        let e = self.per.entry((category, timeline)).or_insert((0.0, 0));
        e.0 += seconds;
        e.1 += 1;
    }

    /// One row per category with any visit, over `timelines`, the largest
    /// overload first.
    pub fn rows(&self, timelines: &[i32], name: impl Fn(i32) -> String) -> Vec<ImbalanceRow> {
        let mut by_cat: FxHashMap<i32, Vec<(i32, f64)>> = FxHashMap::default();
        for (&(c, t), &(s, _)) in &self.per {
            by_cat.entry(c).or_default().push((t, s));
        }
        let n = timelines.len().max(1) as f64;
        let mut rows: Vec<ImbalanceRow> = by_cat
            .into_iter()
            .map(|(c, mut v)| {
                v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                let sum: f64 = v.iter().map(|x| x.1).sum();
                let mean = sum / n;
                let max = v.first().map_or(0.0, |x| x.1);
                let overload: f64 = v.iter().map(|x| (x.1 - mean).max(0.0)).sum();
                let below: f64 = v.iter().map(|x| (mean - x.1).max(0.0)).sum();
                let absent = timelines.len().saturating_sub(v.len()) as f64;
                ImbalanceRow {
                    category: name(c),
                    mean,
                    max,
                    max_over_mean: if mean > 0.0 { max / mean } else { 0.0 },
                    top: v.iter().take(3).copied().collect(),
                    overload,
                    single_participant: if v.len() == 1 { overload } else { 0.0 },
                    underload: below + absent * mean,
                    non_participation: absent * mean,
                    visitors: v.len(),
                }
            })
            .collect();
        rows.sort_by(|a, b| {
            b.overload
                .total_cmp(&a.overload)
                .then_with(|| a.category.cmp(&b.category))
        });
        rows
    }
}
