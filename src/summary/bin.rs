//! [`Summary::write_bin`]: the compact binary form the viewer reads
//! (spec/queries.md §6.6).

use super::sweep::{round, Dense};
use super::*;

/// The first bytes of [`Summary::write_bin`]'s form.
pub const BIN_MAGIC: &[u8; 4] = b"MPLS";

/// The version of [`Summary::write_bin`]'s form, its fifth byte (2: with the
/// arrow style and the ticks), for a summary without waits.
pub const BIN_VERSION: u8 = 2;

/// The version of a summary with [`Summary::waits`]: version 2's form and,
/// after the ticks, the waits, the critical path and its jumps
/// (spec/queries.md §6.7).
pub const BIN_VERSION_WAITS: u8 = 3;

impl Summary {
    /// The summary in the compact binary form the viewer reads
    /// (spec/queries.md §6.6): little-endian, the same content as
    /// [`write_json`](Self::write_json) (its shares, small ones summed, in
    /// 1/250 of the column), with categories as indexes into a table, arrows
    /// by column and no event times, in about a fifth of the bytes; the arrow
    /// style in the byte after the version, the ticks last.
    ///
    /// ```
    /// # use mpelog::summary::{Summary, BIN_MAGIC};
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::write::TreeOptions;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), TreeOptions::default(), |_| {})?;
    /// # let mut r = slog2_format::Slog2Reader::new(Cursor::new(out.into_inner()))?;
    /// # let legend = r.category_list().to_vec();
    /// # let mut buf = slog2_format::WindowBuf::new();
    /// # mpelog::summary::query(&mut r, &mut buf, 0.0, 1.0, 400)?;
    /// let s = Summary::of_window(&buf, &legend, None, 0.0, 1.0, 400);
    /// let (mut bin, mut json) = (Vec::new(), Vec::new());
    /// s.write_bin(&mut bin);
    /// s.write_json(&mut json);
    /// assert_eq!(&bin[..4], BIN_MAGIC);
    /// assert!(bin.len() < json.len());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_bin(&self, out: &mut Vec<u8>) {
        fn u16_(out: &mut Vec<u8>, v: usize) {
            out.extend_from_slice(&(v.min(u16::MAX as usize) as u16).to_le_bytes());
        }
        fn u32_(out: &mut Vec<u8>, v: usize) {
            out.extend_from_slice(&(v.min(u32::MAX as usize) as u32).to_le_bytes());
        }
        out.extend_from_slice(BIN_MAGIC);
        let style = u8::from(self.arrow_style == ArrowStyle::Ticks);
        let version = if self.waits.is_some() {
            BIN_VERSION_WAITS
        } else {
            BIN_VERSION
        };
        out.extend_from_slice(&[version, style, 0, 0]);
        out.extend_from_slice(&self.from.to_le_bytes());
        out.extend_from_slice(&self.to.to_le_bytes());
        u32_(out, self.columns as usize);
        u32_(out, self.arrow_columns as usize);
        out.extend_from_slice(&self.drawables.to_le_bytes());
        out.extend_from_slice(&self.shadows.to_le_bytes());
        u32_(out, self.rows.len());
        for r in &self.rows {
            u16_(out, r.key.len());
            for v in &r.key {
                out.extend_from_slice(&v.to_le_bytes());
            }
            u16_(out, r.lines.len());
            for l in &r.lines {
                out.extend_from_slice(&l.to_le_bytes());
            }
        }
        // The category table: every category named below, by first use.
        let mut table: Vec<i32> = Vec::new();
        let mut slot = Dense::default();
        let mut slot_of = |c: i32, table: &mut Vec<i32>| -> u16 {
            if c == OTHER {
                return u16::MAX;
            }
            let i = slot.index(c) as usize;
            if i == table.len() {
                table.push(c);
            }
            i.min(u16::MAX as usize - 1) as u16
        };
        let mut body = Vec::with_capacity(1 << 16);
        let w = self.column_width();
        // Cells, as runs: shares as (u8 slot, u8 share in 1/250 of the
        // column), slot 255 the null share and any category past the 255th.
        let mut runs = 0usize;
        let mut cells = Vec::with_capacity(1 << 16);
        let mut shares = Vec::new();
        self.for_each_run(
            |now, q: &mut Vec<(u8, u8)>| {
                self.rounded(now, &mut shares);
                q.clear();
                for (k, f) in &shares {
                    let units = round(f64::from(*f) * 250.0 / 1e4).min(255.0) as u8;
                    if units > 0 {
                        let s = slot_of(*k, &mut table);
                        q.push((if s < 255 { s as u8 } else { 255 }, units));
                    }
                }
            },
            |r, c, len, cell, q| {
                if !cell.summarised && q.is_empty() {
                    return;
                }
                runs += 1;
                u16_(&mut cells, r);
                u16_(&mut cells, c);
                u16_(&mut cells, len);
                cells.push(u8::from(cell.summarised) | (cell.covered.min(127) as u8) << 1);
                cells.push(q.len().min(255) as u8);
                for (slot, units) in q.iter().take(255) {
                    cells.push(*slot);
                    cells.push(*units);
                }
            },
        );
        u32_(&mut body, runs);
        body.extend_from_slice(&cells);
        u32_(&mut body, self.states.len());
        for s in &self.states {
            u16_(&mut body, s.row as usize);
            u16_(&mut body, usize::from(s.depth));
            let k = slot_of(s.category, &mut table);
            body.extend_from_slice(&k.to_le_bytes());
            let info = s.info.as_deref().map(str::as_bytes);
            u16_(
                &mut body,
                info.map_or(u16::MAX as usize, |b| b.len().min(u16::MAX as usize - 1)),
            );
            body.extend_from_slice(&s.start.to_le_bytes());
            body.extend_from_slice(&s.end.to_le_bytes());
            body.extend_from_slice(&s.line.to_le_bytes());
            if let Some(b) = info {
                body.extend_from_slice(&b[..b.len().min(u16::MAX as usize - 1)]);
            }
        }
        u32_(&mut body, self.events.len());
        for e in &self.events {
            u16_(&mut body, e.row as usize);
            u16_(&mut body, e.column as usize);
            let k = slot_of(e.category, &mut table);
            body.extend_from_slice(&k.to_le_bytes());
            body.push(u8::from(e.summary));
            body.push(0);
            u32_(&mut body, e.count as usize);
            u32_(&mut body, e.top as usize);
        }
        let arrows = self.written_arrows();
        u32_(&mut body, arrows.len());
        for a in arrows {
            u16_(&mut body, a.from_row as usize);
            u16_(&mut body, a.to_row as usize);
            let k = slot_of(a.category, &mut table);
            body.extend_from_slice(&k.to_le_bytes());
            body.push(u8::from(a.summary));
            body.push(0);
            for t in [a.start, a.end] {
                let c = ((t - self.from) / w).floor().clamp(-1e9, 1e9) as i32;
                body.extend_from_slice(&c.to_le_bytes());
            }
            u32_(&mut body, a.count as usize);
        }
        u32_(&mut body, self.ticks.len());
        for t in &self.ticks {
            u16_(&mut body, t.row as usize);
            u16_(&mut body, t.column as usize);
            body.push(u8::from(t.bottom));
            body.push(0);
            u32_(&mut body, t.sent.min(u64::from(u32::MAX)) as usize);
            u32_(&mut body, t.received.min(u64::from(u32::MAX)) as usize);
        }
        if self.waits.is_some() {
            // Shares in 1/250 of the column, by pattern code.
            let units = |x: f64| round(x / w * 250.0).clamp(0.0, 255.0) as u8;
            let mut runs = 0usize;
            let mut cells = Vec::new();
            self.for_each_wait_run(
                |shares| super::waits::wait_key(shares, |x| u32::from(units(x))),
                |r, c, len, (shares, n)| {
                    let shares = &shares[..*n];
                    if shares.is_empty() {
                        return;
                    }
                    runs += 1;
                    u16_(&mut cells, r as usize);
                    u16_(&mut cells, c as usize);
                    u16_(&mut cells, len as usize);
                    cells.push(shares.len() as u8);
                    cells.push(0);
                    for (k, f) in shares {
                        cells.extend_from_slice(&[*k, *f as u8]);
                    }
                },
            );
            u32_(&mut body, runs);
            body.extend_from_slice(&cells);
            let (mut runs, mut cells) = (0usize, Vec::new());
            self.for_each_path_run(units, |r, c, len, f| {
                if *f == 0 {
                    return;
                }
                runs += 1;
                u16_(&mut cells, r as usize);
                u16_(&mut cells, c as usize);
                u16_(&mut cells, len as usize);
                cells.extend_from_slice(&[*f, 0]);
            });
            u32_(&mut body, runs);
            body.extend_from_slice(&cells);
            let jumps = self.written_jumps();
            u32_(&mut body, jumps.len());
            for j in jumps {
                u16_(&mut body, j.column as usize);
                u16_(&mut body, j.from_row as usize);
                u16_(&mut body, j.to_row as usize);
                u16_(&mut body, 0);
            }
        }
        u32_(out, table.len());
        for c in &table {
            out.extend_from_slice(&c.to_le_bytes());
        }
        out.extend_from_slice(&body);
    }
}
