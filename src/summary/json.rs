//! [`Summary::write_json`]: the summary as JSON (spec/queries.md §6.5), each
//! cell's shares rounded once per run of equal cells.

use super::sweep::round;
use super::*;

/// Writes a time as JSON: the shortest text that reads back exactly.
pub(super) fn time(out: &mut Vec<u8>, t: f64) {
    if t.is_finite() {
        let _ = serde_json::to_writer(&mut *out, &t);
    } else {
        out.push(b'0');
    }
}

impl Summary {
    /// A cell's `shares` in units of 1/10000 of its column, as
    /// [`write_json`](Self::write_json) writes them, into `out`: the
    /// [`JSON_SHARES`] largest and any other of at least [`JSON_SMALL`] units,
    /// then the rest summed as one share of category [`OTHER`] (zeros left
    /// out).
    pub(super) fn rounded(&self, shares: &[Share], out: &mut Vec<(i32, u32)>) {
        out.clear();
        let w = self.column_width();
        let mut rest = 0.0;
        for (i, s) in shares.iter().enumerate() {
            let f = s.seconds / w * 1e4;
            if i < JSON_SHARES || f >= JSON_SMALL {
                let f = round(f);
                if f >= 1.0 {
                    out.push((s.category, f.min(1e9) as u32));
                }
            } else {
                rest += f;
            }
        }
        let rest = round(rest);
        if rest >= 1.0 {
            out.push((OTHER, rest.min(1e9) as u32));
        }
    }

    /// Calls `run(row, column, length, first cell, key)` for each run of
    /// equal neighbouring cells of every row: equal in whether they are
    /// summarised, their covering depth, and the `key` that `key_of(shares,
    /// &mut key)` makes of their shares (made once for cells that share one
    /// range of shares).
    pub(super) fn for_each_run<K: PartialEq + Default>(
        &self,
        mut key_of: impl FnMut(&[Share], &mut K),
        mut run: impl FnMut(usize, usize, usize, Cell<'_>, &K),
    ) {
        let n = self.columns as usize;
        let (mut key, mut next) = (K::default(), K::default());
        let same =
            |a: Cell<'_>, b: Cell<'_>| a.summarised == b.summarised && a.covered == b.covered;
        // Empty unsummarised cells make no run that is written: the rows
        // without cells are left out.
        for r in self.cell_rows.clone() {
            // The shares whose key `key` is.
            let mut key_id = None;
            let mut c = 0;
            while c < n {
                let cell = self.cell(r, c).expect("in range");
                let id = self.shares_id(r, c);
                if key_id != Some(id) {
                    key_of(cell.shares, &mut key);
                    key_id = Some(id);
                }
                let mut len = 1;
                let mut next_id = None;
                while c + len < n {
                    let other = self.cell(r, c + len).expect("in range");
                    if !same(cell, other) {
                        break;
                    }
                    let other_id = self.shares_id(r, c + len);
                    if other_id != id {
                        key_of(other.shares, &mut next);
                        if next != key {
                            next_id = Some(other_id);
                            break;
                        }
                    }
                    len += 1;
                }
                run(r, c, len, cell, &key);
                if next_id.is_some() {
                    // The next run's key is made already.
                    std::mem::swap(&mut key, &mut next);
                    key_id = next_id;
                }
                c += len;
            }
        }
    }

    /// The summary as one compact JSON object (spec/queries.md §6.3): the
    /// window, the rows, the cells as runs `[row, column, length, flags,
    /// category, share, …]` (shares in units of 1/10000 of the column; `flags`
    /// is 1 for a summarised cell plus twice the covering depth; empty
    /// unsummarised cells are left out), the wide states `[row, depth,
    /// category, start, end, line, info]`, the events `[row, column, category,
    /// time, count, top, summary]`, the arrows `[from_row, to_row, start, end,
    /// category, count, summary]`, the ticks `[row, bottom, column, sent,
    /// received]` and the `arrow_style` (`"lines"` or `"ticks"`).
    ///
    /// ```
    /// # use mpelog::summary::Summary;
    /// # use slog2_format::{convert::clog2_to_slog2, Slog2Reader, WindowBuf};
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let mut r = Slog2Reader::new(Cursor::new(out.into_inner()))?;
    /// # let legend = r.categories().map(|c| c.value.categories.clone()).unwrap_or_default();
    /// # let view = r.line_id_maps().and_then(|m| m.value.maps.first().cloned());
    /// # let root = *r.tree_dir().unwrap().value.root().unwrap();
    /// # let (from, to) = (root.earliest, root.latest);
    /// # let mut buf = WindowBuf::new();
    /// # mpelog::summary::query(&mut r, &mut buf, from, to, 100)?;
    /// # let s = Summary::of_window(&buf, &legend, view.as_ref(), from, to, 100);
    /// let mut out = Vec::new();
    /// s.write_json(&mut out);
    /// let v: serde_json::Value = serde_json::from_slice(&out)?;
    /// assert_eq!(v["columns"], 100);
    /// assert_eq!(v["rows"].as_array().map(Vec::len), Some(s.rows.len()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_json(&self, out: &mut Vec<u8>) {
        use std::io::Write as _;
        out.extend_from_slice(b"{\"from\":");
        time(out, self.from);
        out.extend_from_slice(b",\"to\":");
        time(out, self.to);
        let _ = write!(out, ",\"columns\":{},\"rows\":[", self.columns);
        for (i, r) in self.rows.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            let _ = crate::json_text::to_writer(&mut *out, r);
        }
        out.extend_from_slice(b"],\"cells\":[");
        let mut first = true;
        self.for_each_run(
            |shares, out: &mut Vec<(i32, u32)>| self.rounded(shares, out),
            |r, c, len, cell, shares| {
                if !cell.summarised && shares.is_empty() {
                    return;
                }
                if !first {
                    out.push(b',');
                }
                first = false;
                let flags = u32::from(cell.summarised) + 2 * u32::from(cell.covered);
                let _ = write!(out, "[{r},{c},{len},{flags}");
                for (k, f) in shares {
                    if *k == OTHER {
                        let _ = write!(out, ",null,{f}");
                    } else {
                        let _ = write!(out, ",{k},{f}");
                    }
                }
                out.push(b']');
            },
        );
        json_rows(out, b"],\"states\":[", &self.states, |out, s| {
            let _ = write!(out, "{},{},{},", s.row, s.depth, s.category);
            time(out, s.start);
            out.push(b',');
            time(out, s.end);
            let _ = write!(out, ",{},", s.line);
            let _ = crate::json_text::to_writer(&mut *out, &s.info);
        });
        json_rows(out, b"],\"events\":[", &self.events, |out, e| {
            let _ = write!(out, "{},{},{},", e.row, e.column, e.category);
            time(out, e.time);
            let _ = write!(out, ",{},{},{}", e.count, e.top, u8::from(e.summary));
        });
        json_rows(out, b"],\"arrows\":[", self.written_arrows(), |out, a| {
            let _ = write!(out, "{},{},", a.from_row, a.to_row);
            time(out, a.start);
            out.push(b',');
            time(out, a.end);
            let _ = write!(out, ",{},{},{}", a.category, a.count, u8::from(a.summary));
        });
        json_rows(out, b"],\"ticks\":[", &self.ticks, |out, t| {
            let _ = write!(
                out,
                "{},{},{},{},{}",
                t.row,
                u8::from(t.bottom),
                t.column,
                t.sent,
                t.received
            );
        });
        let _ = write!(
            out,
            "],\"arrow_columns\":{},\"arrow_style\":\"{}\",\"drawables\":{},\"shadows\":{}",
            self.arrow_columns,
            self.arrow_style.name(),
            self.drawables,
            self.shadows
        );
        self.write_json_waits(out);
        out.push(b'}');
    }

    /// With [`Summary::waits`], the keys of spec/queries.md §6.7:
    /// `wait_patterns` (the patterns' ids by code), `waits` as runs `[row,
    /// column, length, code, share, …]` (shares in 1/10000 of the column),
    /// `critical_path` as runs `[row, column, length, share]` and `jumps`
    /// `[column, from_row, to_row, time]`.
    fn write_json_waits(&self, out: &mut Vec<u8>) {
        use std::io::Write as _;
        if self.waits.is_none() {
            return;
        }
        let cw = self.column_width();
        let units = |x: f64| round(x / cw * 1e4).clamp(0.0, 1e9) as u32;
        out.extend_from_slice(b",\"wait_patterns\":[");
        for (i, p) in crate::analysis::Pattern::ALL.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            let _ = write!(out, "\"{}\"", p.id());
        }
        out.extend_from_slice(b"],\"waits\":[");
        let mut first = true;
        self.for_each_wait_run(
            |shares| super::waits::wait_key(shares, units),
            |r, c, len, (shares, n)| {
                let shares = &shares[..*n];
                if shares.is_empty() {
                    return;
                }
                if !first {
                    out.push(b',');
                }
                first = false;
                let _ = write!(out, "[{r},{c},{len}");
                for (k, f) in shares {
                    let _ = write!(out, ",{k},{f}");
                }
                out.push(b']');
            },
        );
        out.extend_from_slice(b"],\"critical_path\":[");
        let mut first = true;
        self.for_each_path_run(units, |r, c, len, f| {
            if *f == 0 {
                return;
            }
            if !first {
                out.push(b',');
            }
            first = false;
            let _ = write!(out, "[{r},{c},{len},{f}]");
        });
        json_rows(out, b"],\"jumps\":[", self.written_jumps(), |out, j| {
            let _ = write!(out, "{},{},{},", j.column, j.from_row, j.to_row);
            time(out, j.time);
        });
        out.push(b']');
    }
}

/// Writes `name` (the text before the array), then `items` as the JSON
/// array's elements, each `[…]` around what `item` writes.
pub(super) fn json_rows<T>(
    out: &mut Vec<u8>,
    name: &[u8],
    items: &[T],
    mut item: impl FnMut(&mut Vec<u8>, &T),
) {
    out.extend_from_slice(name);
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.push(b'[');
        item(out, x);
        out.push(b']');
    }
}
