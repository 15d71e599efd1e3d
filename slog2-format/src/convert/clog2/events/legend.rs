//! The legend: categories from STATEDEFs and EVENTDEFs (names, colours, info keys
//! as Java reads them), placeholders named as drawables use them, and the line-ID
//! maps of the timelines used, when the conversion ends.

use super::*;

/// Splits an MPE format string into SLOG-2 info keys and types the way Java's
/// `Category.setInfoKeys` does: tokens are runs without `%` and single `%`; after
/// a `%` the next token's first character is the type and its rest a key.
pub fn info_keys(format: &str) -> (Vec<JStr>, Vec<u8>) {
    let bytes = format.as_bytes();
    let mut tokens: Vec<&[u8]> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            tokens.push(&bytes[i..i + 1]);
            i += 1;
        } else {
            let j = bytes[i..]
                .iter()
                .position(|&b| b == b'%')
                .map_or(bytes.len(), |p| i + p);
            tokens.push(&bytes[i..j]);
            i = j;
        }
    }
    let mut keys = Vec::new();
    let mut types = Vec::new();
    let mut it = tokens.into_iter();
    while let Some(t) = it.next() {
        if t == b"%" {
            match it.next() {
                Some(next) => {
                    types.push(next[0]);
                    keys.push(jstr(&next[1..]));
                }
                None => break, // Java throws here; we drop the dangling '%'
            }
        } else {
            keys.push(jstr(t));
        }
    }
    (keys, types)
}

pub(super) fn jstr(b: &[u8]) -> JStr {
    let b = &b[..b.len().min(i16::MAX as usize)];
    JStr {
        len: b.len() as i16,
        bytes: b.to_vec(),
    }
}

impl Clog2Drawables {
    /// The colour of a definition's colour field: the table's, or the next
    /// default colour for a name the table lacks or an empty field
    /// (spec/conversion.md §2.1 item 5).
    pub(super) fn color(&mut self, name: Option<&str>) -> [u8; 4] {
        let rgb = name
            .and_then(colors::lookup)
            .unwrap_or_else(|| self.fallback.next_rgb());
        colors::argb(rgb, 255)
    }

    /// Gives category `index` a definition's name, colour and format (Java's
    /// `new ObjDef`, or `setName`, `setColor`, `setInfoKeys` on the category the
    /// IDs already map to: the last definition wins). Fields as [`clog2_field`]
    /// reads them; a used category keeps its flag.
    pub(super) fn define(&mut self, index: i32, topo: i32, d: &DefFields) {
        let argb = self.color(d.color.as_deref());
        let old = self.cats.remove(&index);
        let used = old.as_ref().is_some_and(|c| c.used);
        let (keys, types) = match d.format.as_deref() {
            None => (Vec::new(), Vec::new()),
            // Java's setInfoKeys keeps the previous keys when the format has no
            // token (a format of blanks, trimmed to "").
            Some("") => old.map(|c| (c.keys, c.types)).unwrap_or_default(),
            Some(f) => info_keys(f),
        };
        self.cats.insert(
            index,
            CatDef {
                topology: topo,
                name: d.name.clone(),
                argb,
                width: 1,
                keys,
                types,
                defined: true,
                used,
            },
        );
    }

    /// Marks category `index` used as a drawable of it is made, making the
    /// placeholder if it does not exist; the first use of a category without a
    /// name names it `UnknownType-N` with the next default colour (Java's
    /// `InfoBox.resolveCategory`).
    pub(super) fn placeholder(&mut self, index: i32, topo: i32) {
        let c = self
            .cats
            .entry(index)
            .or_insert(CatDef::placeholder(topo, [255, 255, 192, 203]));
        if c.used {
            return;
        }
        c.used = true;
        if c.name.is_none() {
            c.name = Some(unknown_type(index));
            let rgb = self.fallback.next_rgb();
            if let Some(c) = self.cats.get_mut(&index) {
                c.argb = colors::argb(rgb, 255);
            }
        }
    }

    /// Ends the conversion: counts what is still open, and returns the categories
    /// (every category drawables may use; one without a name is `UnknownType-N`,
    /// says so) and the "Process View" and "Communicator View" line-ID maps (the
    /// "-Thread" views when threads > 1) of the timelines drawables used.
    ///
    /// ```
    /// # use slog2_format::convert::Clog2Drawables;
    /// # let bytes = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(2_000))?;
    /// # let mut r = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// let mut d = Clog2Drawables::new(r.preamble().info());
    /// while let Some(rec) = r.next_record()? {
    ///     d.push(&rec);
    /// }
    /// let (categories, maps, unmatched) = d.finish();
    /// assert_eq!(categories[0].name.text(), "message"); // the arrow category first
    /// assert!(maps.iter().any(|m| m.title.text() == "Process View"));
    /// assert_eq!(unmatched.total_dropped(), 0); // a well-formed trace
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn finish(mut self) -> (Vec<Category>, Vec<LineIdMap>, Unmatched) {
        let mut u = self.unmatched;
        u.state_starts = self.states.values().map(|q| q.len() as u64).sum();
        // Java counts open objects of the categories it was told about.
        let defined = |c: &i32| self.cats.get(c).is_some_and(|d| d.defined);
        u.java_count += self
            .states
            .iter()
            .filter(|((c, _), _)| defined(c))
            .map(|(_, q)| q.len() as u64)
            .sum::<u64>();
        u.sends = self.sends.values().map(|q| q.len() as u64).sum();
        u.recvs = self.recvs.values().map(|q| q.len() as u64).sum();
        u.java_count += u.sends + u.recvs;

        let cats = std::mem::take(&mut self.cats)
            .into_iter()
            .map(|(index, d)| d.into_category(index))
            .collect();
        let mut used: Vec<(i32, Timeline)> = self
            .timelines
            .iter()
            .filter(|(_, t)| t.used)
            .map(|(&l, &t)| (l, t))
            .collect();
        used.sort_by_key(|(l, _)| *l);
        let threaded = self.threads > 1;
        let (t1, l1, t2, l2): (&str, Vec<&str>, &str, Vec<&str>) = if threaded {
            (
                "Process-Thread View",
                vec!["world_rank", "thread"],
                "Communicator-Thread View",
                vec!["commID", "comm_rank", "thread"],
            )
        } else {
            (
                "Process View",
                vec!["world_rank"],
                "Communicator View",
                vec!["commID", "comm_rank"],
            )
        };
        let map = |title: &str, labels: &[&str], f: &dyn Fn(&Timeline) -> Vec<i32>| LineIdMap {
            title: JStr::new(title),
            ncols: labels.len() as i32,
            labels: labels.iter().map(|l| JStr::new(l)).collect(),
            rows: used
                .iter()
                .map(|(l, t)| LineIdRow {
                    line_id: *l,
                    values: f(t),
                })
                .collect(),
            methods: Vec::new(),
        };
        let maps = if threaded {
            vec![
                map(t1, &l1, &|t| vec![t.wrank, t.thread]),
                map(t2, &l2, &|t| vec![t.icomm, t.rank, t.thread]),
            ]
        } else {
            vec![
                map(t1, &l1, &|t| vec![t.wrank]),
                map(t2, &l2, &|t| vec![t.icomm, t.rank]),
            ]
        };
        (cats, maps, u)
    }
}
