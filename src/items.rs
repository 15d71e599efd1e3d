//! The text and JSON forms of window answers, shared by `mpelog window` and
//! `mpelog serve`'s `/api/window`: one line or one JSON object per drawable or
//! shadow, with the category's name and topology and the info decoded by the
//! category's formats (see `mpelog window --help` for the keys).

use clog2_format::escape::quoted_text;
use serde_json::{json, Value};
use slog2_format::window::Located;
use slog2_format::{info, topology, Category, Coord, Drawable, JStr, Primitive, Shadow};
use std::collections::HashMap;
use std::fmt::Write as _;

/// Formats drawables and shadows with the file's legend.
pub struct Lines<'a> {
    /// The legend, by index.
    pub categories: HashMap<i32, &'a Category>,
}

/// An info buffer, decoded with its category's formats when possible.
struct Info {
    text: Option<String>,
    error: Option<String>,
    hex: String,
}

fn hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        let _ = write!(s, "{x:02x}");
    }
    s
}

fn vertices_text(v: &[Coord]) -> String {
    v.iter()
        .map(|c| format!("({:?},{})", c.time, c.line_id))
        .collect()
}

fn vertices_json(v: &[Coord]) -> Value {
    Value::Array(v.iter().map(|c| json!([c.time, c.line_id])).collect())
}

/// A time as JSON (non-finite times, which JSON cannot hold, become strings).
fn time_json(t: f64) -> Value {
    if t.is_finite() {
        json!(t)
    } else {
        json!(format!("{t:?}"))
    }
}

/// An f32 ratio as JSON, with the digits of its shortest f32 text.
/// A shadow's weight ratio in JSON: the number, or `null` for one that is
/// not a number (an event shadow's inclusive ratio, 0 over 0).
fn ratio_json(x: f32) -> Value {
    match format!("{x:?}").parse::<f64>() {
        Ok(v) if v.is_finite() => json!(v),
        _ => Value::Null,
    }
}

/// A shadow's weight ratio in text: the shortest form that reads back, or `-`
/// for one that is not a number.
fn ratio_text(x: f32) -> String {
    if x.is_finite() {
        format!("{x:?}")
    } else {
        "-".to_string()
    }
}

impl Lines<'_> {
    fn name(&self, category: i32) -> Option<String> {
        self.categories.get(&category).map(|c| c.name.text())
    }

    fn topology(&self, category: i32) -> Option<String> {
        self.categories
            .get(&category)
            .map(|c| topology::name(c.topology))
    }

    fn info(&self, category: i32, bytes: &JStr) -> Info {
        let hex = hex(&bytes.bytes);
        match self.categories.get(&category) {
            None if bytes.bytes.is_empty() => Info {
                text: Some(String::new()),
                error: None,
                hex,
            },
            None => Info {
                text: None,
                error: Some(format!("category {category} is not in the CategoryMap")),
                hex,
            },
            Some(c) => match info::labelled(&c.keys, &c.types, &bytes.bytes) {
                Ok(t) => Info {
                    text: Some(t),
                    error: None,
                    hex,
                },
                Err(e) => Info {
                    text: None,
                    error: Some(e.to_string()),
                    hex,
                },
            },
        }
    }

    /// `cat=.. name=.. topo=..`
    fn head_text(&self, category: i32) -> String {
        format!(
            "cat={category} name={} topo={}",
            self.name(category)
                .map_or_else(|| "?".to_string(), |n| quoted_text(&n)),
            self.topology(category).unwrap_or_else(|| "?".into())
        )
    }

    fn info_text(&self, category: i32, bytes: &JStr) -> String {
        let i = self.info(category, bytes);
        match (i.text, i.error) {
            (Some(t), _) => format!("info={}", quoted_text(&t)),
            (None, e) => format!(
                "info_hex={} info_error={}",
                i.hex,
                quoted_text(&e.unwrap_or_default())
            ),
        }
    }

    fn part_text(&self, p: &Primitive) -> String {
        format!(
            "{} vertices={} {}",
            self.head_text(p.category),
            vertices_text(&p.vertices),
            self.info_text(p.category, &p.info)
        )
    }

    /// The drawable text form of one item.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// use mpelog::items::Lines;
    /// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// let legend = r.categories().unwrap().value.categories.clone();
    /// let lines = Lines { categories: legend.iter().map(|c| (c.index, c)).collect() };
    /// let answer = r.window(0.0, 0.01)?;
    /// let text = lines.drawable_text(&answer.drawables[0]);
    /// let d = &answer.drawables[0];
    /// assert!(text.starts_with(&format!("primitive cat={} name=", d.value.category())));
    /// assert!(text.ends_with(&format!(" node=({},{})", d.node.depth, d.node.xpos)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn drawable_text(&self, d: &Located<Drawable>) -> String {
        let v = &d.value;
        let node = format!("node=({},{})", d.node.depth, d.node.xpos);
        let bx = format!("box=[{:?},{:?}]", v.earliest(), v.latest());
        match v {
            Drawable::Primitive(p) => format!(
                "primitive {} {bx} vertices={} {} {node}",
                self.head_text(p.category),
                vertices_text(&p.vertices),
                self.info_text(p.category, &p.info)
            ),
            Drawable::Composite(c) => {
                let parts: Vec<String> = c.primitives.iter().map(|p| self.part_text(p)).collect();
                format!(
                    "composite {} {bx} {} parts=[{}] {node}",
                    self.head_text(c.category),
                    self.info_text(c.category, &c.info),
                    parts.join("; ")
                )
            }
        }
    }

    /// The shadow text form of one item.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// use mpelog::items::Lines;
    /// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// let legend = r.categories().unwrap().value.categories.clone();
    /// let lines = Lines { categories: legend.iter().map(|c| (c.index, c)).collect() };
    /// let depth = r.header().max_treedepth;
    /// let answer = r.window_to_depth(f64::NEG_INFINITY, f64::INFINITY, depth)?; // the root alone
    /// let text = lines.shadow_text(&answer.shadows[0]);
    /// let s = &answer.shadows[0];
    /// assert!(text.starts_with(&format!("shadow cat={} name=", s.value.category)));
    /// assert!(text.contains(&format!(" num_real_objs={} weights=[", s.value.num_real_objs)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn shadow_text(&self, s: &Located<Shadow>) -> String {
        let v = &s.value;
        let w: Vec<String> = v
            .weights
            .iter()
            .map(|w| {
                let (incl, excl) = (ratio_text(w.incl), ratio_text(w.excl));
                match w.count {
                    Some(c) => format!("{}:{incl}/{excl}/{c}", w.category),
                    None => format!("{}:{incl}/{excl}", w.category),
                }
            })
            .collect();
        format!(
            "shadow {} box=[{:?},{:?}] vertices={} num_real_objs={} weights=[{}] node=({},{})",
            self.head_text(v.category),
            v.earliest,
            v.latest,
            vertices_text(&v.vertices),
            v.num_real_objs,
            w.join(","),
            s.node.depth,
            s.node.xpos
        )
    }

    /// The keys every object has.
    fn object(
        &self,
        kind: &str,
        category: i32,
        (start, end): (f64, f64),
        vertices: Value,
        info: &JStr,
    ) -> serde_json::Map<String, Value> {
        let mut m = serde_json::Map::new();
        m.insert("kind".into(), json!(kind));
        m.insert("category".into(), json!(category));
        m.insert("name".into(), json!(self.name(category)));
        m.insert("topology".into(), json!(self.topology(category)));
        m.insert("start".into(), time_json(start));
        m.insert("end".into(), time_json(end));
        m.insert("vertices".into(), vertices);
        let i = self.info(category, info);
        m.insert("info".into(), json!(i.text));
        if let Some(e) = i.error {
            m.insert("info_hex".into(), json!(i.hex));
            m.insert("info_error".into(), json!(e));
        }
        m
    }

    /// The drawable json form of one item.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// use mpelog::items::Lines;
    /// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// let legend = r.categories().unwrap().value.categories.clone();
    /// let lines = Lines { categories: legend.iter().map(|c| (c.index, c)).collect() };
    /// let answer = r.window(0.0, 0.01)?;
    /// let d = &answer.drawables[0];
    /// let v = lines.drawable_json(d);
    /// assert_eq!(v["category"], d.value.category());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn drawable_json(&self, d: &Located<Drawable>) -> Value {
        let v = &d.value;
        let bx = (v.earliest(), v.latest());
        let mut m = match v {
            Drawable::Primitive(p) => self.object(
                "primitive",
                p.category,
                bx,
                vertices_json(&p.vertices),
                &p.info,
            ),
            Drawable::Composite(c) => {
                let all: Vec<Coord> = c
                    .primitives
                    .iter()
                    .flat_map(|p| p.vertices.iter().copied())
                    .collect();
                let mut m = self.object("composite", c.category, bx, vertices_json(&all), &c.info);
                let parts: Vec<Value> = c
                    .primitives
                    .iter()
                    .map(|p| {
                        Value::Object(self.object(
                            "primitive",
                            p.category,
                            (p.earliest(), p.latest()),
                            vertices_json(&p.vertices),
                            &p.info,
                        ))
                    })
                    .collect();
                m.insert("parts".into(), Value::Array(parts));
                m
            }
        };
        m.insert("node".into(), json!([d.node.depth, d.node.xpos]));
        Value::Object(m)
    }

    /// The shadow json form of one item.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// use mpelog::items::Lines;
    /// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// let legend = r.categories().unwrap().value.categories.clone();
    /// let lines = Lines { categories: legend.iter().map(|c| (c.index, c)).collect() };
    /// let depth = r.header().max_treedepth;
    /// let answer = r.window_to_depth(f64::NEG_INFINITY, f64::INFINITY, depth)?;
    /// let s = &answer.shadows[0];
    /// let v = lines.shadow_json(s);
    /// assert_eq!(v["category"], s.value.category);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn shadow_json(&self, s: &Located<Shadow>) -> Value {
        let v = &s.value;
        let mut m = self.object(
            "shadow",
            v.category,
            (v.earliest, v.latest),
            vertices_json(&v.vertices),
            &v.info,
        );
        m.insert("num_real_objs".into(), json!(v.num_real_objs));
        let weights: Vec<Value> = v
            .weights
            .iter()
            .map(|w| {
                json!({
                    "category": w.category,
                    "incl": ratio_json(w.incl),
                    "excl": ratio_json(w.excl),
                    "count": w.count,
                })
            })
            .collect();
        m.insert("weights".into(), Value::Array(weights));
        m.insert("node".into(), json!([s.node.depth, s.node.xpos]));
        Value::Object(m)
    }
}
