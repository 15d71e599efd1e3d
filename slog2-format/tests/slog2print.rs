//! Our SLOG-2 reader against the Java `slog2print` dumps of the corpus
//! (`logformat.slog2.input.PrintSerially`, stored beside every `.slog2` as
//! `.slog2print.txt` or `.slog2print.txt.gz`).
//!
//! For every file this parses both our [`Slog2File`] and the Java dump and checks that
//! they agree on:
//! * the header: every line (version, NumOfChildrenPerNode, TreeLeafByteSize,
//!   MaxTreeDepth, MaxBufferByteSize, the seven `FBinfo(size @ offset)` pointers);
//! * every category, as a set by index: index, name, topology, colour
//!   `(R,G,B,A,modifiable)` from our ARGB bytes, `isUsed`, width, `info_fmt` rebuilt
//!   from keys and types, methods, `vis`/`search`, the two ratios and the count;
//! * every TreeDir entry, as a sorted list: ID, both times bit-exact (Java's double
//!   text parsed back), size and offset;
//! * every line-ID map, text for text (Java keeps rows in a `TreeMap`, so they are
//!   compared sorted by line ID, a repeated line ID keeping its last row);
//! * every drawable, as a sorted multiset: category, time box bit-exact, vertices
//!   (times as the `f32` Java prints, bit-exact, and line IDs), the info text after
//!   `Category=...: ` (our [`labelled`]), `bsize` (Java's `getByteSize`: 8 bytes of
//!   category and info length + the info bytes + 12 bytes per vertex, primitives
//!   only; Java prints no size for a composite), and for composites every part with
//!   the same fields. The category text embedded in each drawable must be the dump's
//!   own category-map text for that index with `isUsed=true`.
//!
//! Every number text in the dump must also be exactly what our
//! [`java_double_to_string`] / [`java_float_to_string`] print for the parsed value;
//! the only texts allowed to differ are the cases those functions document as
//! different from Java 17 (subnormal numbers and numbers of 2⁶³ or more), and those
//! are counted and printed.
//!
//! What slog2print does not print: `slog2print` walks the leaves' time windows and
//! prints each drawable whose *start* lies in `[window start, window end)`, the first
//! window starting at the root's start and the last ending at the root's end
//! (`InputLog.ItrOfAllRealDobjs`). A drawable starting exactly at the root's end time
//! therefore never appears: in every `mpe/` file that is exactly one drawable, the
//! zero-length `MPE_Comm_finalize` event that ends the trace (which is why the
//! converter logs report one drawable more than the dumps print). In the
//! `historic/*_fromtxt` files (written through the TRACE-API with uninitialised
//! vertex times: zeros and subnormal garbage) some drawables start before the
//! root's start and are not printed either; some of those carry info buffers too
//! short for their formats, which Java never decodes because it never prints them.
//! The test applies the same rule to our drawables, checks the dump against the
//! drawables it keeps, prints the ones it leaves out, and fails if one of those lies
//! between two windows, or if a drawable Java does print has an undecodable info.
//!
//! Parsing of the dump text: the category text inside a drawable is skipped by its
//! known text, and the info text ends at the first `] (`, `] ]` (primitives) or
//! `] Primitive[`, `] ]` (composites) after it; an info string containing one of
//! those sequences would be cut short (and the test would fail, not skip). None of
//! the corpus info strings contains one.

mod common;

use common::corpus;
use flate2::read::GzDecoder;
use slog2_format::info::{format_string, java_double_to_string, java_float_to_string, labelled};
use slog2_format::{
    topology, Category, Composite, Drawable, FileBlock, Primitive, Slog2File, Version,
};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Every SLOG-2 file of the corpus; each has a slog2print dump.
const FILES: &[&str] = &[
    "mpe/colls_n1.slog2",
    "mpe/colls_n2.slog2",
    "mpe/colls_n4.slog2",
    "mpe/colls_n8.slog2",
    "mpe/colls_n16.slog2",
    "mpe/colls_n16_ls4k_nc4.slog2",
    "mpe/comm1_isr_n4.slog2",
    "mpe/comm1_isr_loop_n2.slog2",
    "mpe/cpi_n4.slog2",
    "mpe/cpilog_n1.slog2",
    "mpe/cpilog_n2.slog2",
    "mpe/cpilog_n4.slog2",
    "mpe/cpilog_n4_bs4k.slog2",
    "mpe/cpilog_n4_filtered.slog2",
    "mpe/cpilog_n4_ls1k.slog2",
    "mpe/cpilog_n8.slog2",
    "mpe/cpilog_pack_n4.slog2",
    "mpe/iotest_n2.slog2",
    "mpe/many_events_n4.slog2",
    "mpe/many_events_n4_ls4k_nc4.slog2",
    "mpe/nested_states_n1.slog2",
    "mpe/nested_states_n2.slog2",
    "mpe/nested_states_n4.slog2",
    "mpe/nested_states_n4_ls4k_nc4.slog2",
    "mpe/nested_states_n16.slog2",
    "mpe/p2p_n2.slog2",
    "mpe/p2p_n4.slog2",
    "mpe/p2p_n4_bs4k.slog2",
    "mpe/p2p_n4_ls1k.slog2",
    "mpe/p2p_n8.slog2",
    "mpe/p2p_n8_ls4k_nc4.slog2",
    "mpe/p2p_n16.slog2",
    "mpe/srtest_n2.slog2",
    "historic/fpilog.slog2",
    "historic/fpilog_fromclog.slog2",
    "historic/fpilog_fromclog_ls400.slog2",
    "historic/arrow.slog2",
    "historic/data.slog2",
    "historic/arrow_fromtxt.slog2",
    "historic/arrow_old_fromtxt.slog2",
    "historic/data_fromtxt.slog2",
    "historic/data_old_fromtxt.slog2",
    "historic/data1_fromtxt.slog2",
    "historic/onetimeline_fromtxt.slog2",
];

/// The dump of `slog2` (plain or gzipped), decoded as UTF-8 (the dumps were written
/// with a UTF-8 JVM charset; invalid bytes would show as U+FFFD on both sides).
fn read_dump(slog2: &Path) -> String {
    let stem = slog2.with_extension("");
    let plain = PathBuf::from(format!("{}.slog2print.txt", stem.display()));
    let gz = PathBuf::from(format!("{}.slog2print.txt.gz", stem.display()));
    let bytes = if plain.is_file() {
        std::fs::read(&plain).unwrap()
    } else if gz.is_file() {
        let mut v = Vec::new();
        GzDecoder::new(std::fs::File::open(&gz).unwrap())
            .read_to_end(&mut v)
            .unwrap_or_else(|e| panic!("{}: {e}", gz.display()));
        v
    } else {
        panic!(
            "no slog2print dump for {}: neither {} nor {} exists",
            slog2.display(),
            plain.display(),
            gz.display()
        )
    };
    String::from_utf8_lossy(&bytes).into_owned()
}

// ---------------------------------------------------------------------------------
// Numbers.

fn canon64(x: f64) -> u64 {
    if x.is_nan() {
        f64::NAN.to_bits()
    } else {
        x.to_bits()
    }
}

fn canon32(x: f32) -> u32 {
    if x.is_nan() {
        f32::NAN.to_bits()
    } else {
        x.to_bits()
    }
}

/// Where our Java number formatting is documented to differ from Java 17.
fn known_text_difference_f64(x: f64) -> bool {
    let a = x.abs();
    (a != 0.0 && a < f64::MIN_POSITIVE) || a >= 2f64.powi(63)
}

fn known_text_difference_f32(x: f32) -> bool {
    let a = x.abs();
    (a != 0.0 && a <= f32::MIN_POSITIVE) || a >= 2f32.powi(63)
}

/// What one file's check found besides hard failures.
#[derive(Default)]
struct Notes {
    /// Number texts that differ from our formatting only where documented.
    text_nuances: Vec<String>,
}

/// Parses Java's `Double.toString` text and checks we print the value the same way.
fn java_f64(text: &str, notes: &mut Notes) -> Result<f64, String> {
    let x: f64 = text
        .parse()
        .map_err(|e| format!("bad double text {text:?}: {e}"))?;
    let ours = java_double_to_string(x);
    if ours != text {
        if known_text_difference_f64(x) {
            notes
                .text_nuances
                .push(format!("double {text} (ours {ours})"));
        } else {
            return Err(format!(
                "Java printed the double {text} but java_double_to_string gives {ours}"
            ));
        }
    }
    Ok(x)
}

/// Parses Java's `Float.toString` text and checks we print the value the same way.
fn java_f32(text: &str, notes: &mut Notes) -> Result<f32, String> {
    let x: f32 = text
        .parse()
        .map_err(|e| format!("bad float text {text:?}: {e}"))?;
    let ours = java_float_to_string(x);
    if ours != text {
        if known_text_difference_f32(x) {
            notes
                .text_nuances
                .push(format!("float {text} (ours {ours})"));
        } else {
            return Err(format!(
                "Java printed the float {text} but java_float_to_string gives {ours}"
            ));
        }
    }
    Ok(x)
}

// ---------------------------------------------------------------------------------
// A cursor over dump text.

struct Cur<'a> {
    s: &'a str,
    pos: usize,
    /// Offset of `s` within the whole dump, for line numbers in errors.
    base: usize,
    whole: &'a str,
}

impl<'a> Cur<'a> {
    fn new(whole: &'a str, start: usize, end: usize) -> Cur<'a> {
        Cur {
            s: &whole[start..end],
            pos: 0,
            base: start,
            whole,
        }
    }

    fn rest(&self) -> &'a str {
        &self.s[self.pos..]
    }

    fn at_end(&self) -> bool {
        self.pos >= self.s.len()
    }

    fn line_no(&self) -> usize {
        self.whole[..self.base + self.pos].matches('\n').count() + 1
    }

    fn err(&self, msg: impl std::fmt::Display) -> String {
        let r = self.rest();
        let shown: String = r.chars().take(120).collect();
        format!(
            "dump line {}: {msg}; the dump has {shown:?}",
            self.line_no()
        )
    }

    fn starts(&self, lit: &str) -> bool {
        self.rest().starts_with(lit)
    }

    fn expect(&mut self, lit: &str) -> Result<(), String> {
        if self.starts(lit) {
            self.pos += lit.len();
            Ok(())
        } else {
            Err(self.err(format_args!("expected {lit:?}")))
        }
    }

    /// The text up to the first `lit`, consuming both.
    fn until(&mut self, lit: &str) -> Result<&'a str, String> {
        match self.rest().find(lit) {
            Some(i) => {
                let t = &self.rest()[..i];
                self.pos += i + lit.len();
                Ok(t)
            }
            None => Err(self.err(format_args!("no {lit:?} follows"))),
        }
    }

    /// The text up to the first of `lits` (not consumed) and which one was found.
    /// Scans forward once (each `lits` entry must start with `]`).
    fn until_any(&mut self, lits: &[&str]) -> Result<(&'a str, usize), String> {
        let r = self.rest();
        let mut from = 0;
        while let Some(i) = r[from..].find(']') {
            let at = from + i;
            if let Some(k) = lits.iter().position(|l| r[at..].starts_with(l)) {
                self.pos += at;
                return Ok((&r[..at], k));
            }
            from = at + 1;
        }
        Err(self.err(format_args!("none of {lits:?} follows")))
    }

    fn int<T: std::str::FromStr>(&mut self) -> Result<T, String> {
        let r = self.rest();
        let n = r
            .char_indices()
            .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-')))
            .map_or(r.len(), |(i, _)| i);
        let v = r[..n]
            .parse()
            .map_err(|_| self.err("expected an integer"))?;
        self.pos += n;
        Ok(v)
    }
}

// ---------------------------------------------------------------------------------
// Java's text for our structures.

fn method_name(id: i32) -> &'static str {
    if id == 1 {
        "CONNECT_COMPOSITE_STATE"
    } else {
        "Unknown Method"
    }
}

/// `Category.toString` up to (excluding) `, ratios=`.
fn category_head(c: &Category, used: bool) -> String {
    let [a, r, g, b] = c.argb;
    let mut s = format!(
        "Category[ index={}, name={}, topo={}, color=({r},{g},{b},{a},{}), isUsed={used}, width={}",
        c.index,
        c.name.text(),
        topology::name(c.topology),
        c.modifiable != 0,
        c.width
    );
    if !c.keys.is_empty() || !c.types.is_empty() {
        write!(s, ", info_fmt=< {} >", format_string(&c.keys, &c.types)).unwrap();
    }
    if !c.methods.is_empty() {
        s.push_str(", methods=< ");
        for m in &c.methods {
            s.push_str(method_name(*m));
            s.push(' ');
        }
        s.push('>');
    }
    s.push_str(", vis=true, search=true");
    s
}

/// `Category.toString` in full.
fn category_text(c: &Category, used: bool) -> String {
    let sum = c.summary.expect("2.0.6 categories have summaries");
    format!(
        "{}, ratios={},{}, count={} ]",
        category_head(c, used),
        java_float_to_string(sum.incl),
        java_float_to_string(sum.excl),
        sum.count
    )
}

/// Compares one category text of the dump with ours field by field: everything up
/// to the ratios as text, the ratios as `f32` (bit-exact, text checked separately),
/// the count as text.
fn check_category(
    dump: &str,
    ours: &Category,
    used: bool,
    notes: &mut Notes,
) -> Result<(), String> {
    let want_head = category_head(ours, used);
    let Some(i) = dump.rfind(", ratios=") else {
        return Err(format!("category text without ratios: {dump:?}"));
    };
    let (head, tail) = (&dump[..i], &dump[i + ", ratios=".len()..]);
    if head != want_head {
        return Err(format!(
            "category {}:\n  dump: {head}\n  ours: {want_head}",
            ours.index
        ));
    }
    let sum = ours.summary.expect("2.0.6 categories have summaries");
    let parts: Option<(&str, &str)> = tail
        .strip_suffix(" ]")
        .and_then(|t| t.split_once(", count="));
    let Some((ratios, count)) = parts else {
        return Err(format!("category {}: bad tail {tail:?}", ours.index));
    };
    let Some((incl, excl)) = ratios.split_once(',') else {
        return Err(format!("category {}: bad ratios {ratios:?}", ours.index));
    };
    for (what, text, v) in [("incl", incl, sum.incl), ("excl", excl, sum.excl)] {
        let d = java_f32(text, notes).map_err(|e| format!("category {}: {e}", ours.index))?;
        if canon32(d) != canon32(v) {
            return Err(format!(
                "category {} {what} ratio: dump {text}, ours {} (bits {:08x} vs {:08x})",
                ours.index,
                java_float_to_string(v),
                d.to_bits(),
                v.to_bits()
            ));
        }
    }
    if count != sum.count.to_string() {
        return Err(format!(
            "category {} count: dump {count}, ours {}",
            ours.index, sum.count
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------
// Drawables, as comparable items.

/// One drawable as slog2print shows it, with numbers as bits.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Item {
    category: i32,
    start: u64,
    end: u64,
    info: String,
    /// `(time as f32 bits, line ID)`.
    vertices: Vec<(u32, i32)>,
    /// Java's `getByteSize()`; composites print none.
    bsize: Option<usize>,
    /// A composite's parts, in stored order.
    parts: Vec<Item>,
}

impl Item {
    fn start_f64(&self) -> f64 {
        f64::from_bits(self.start)
    }

    fn show(&self) -> String {
        let mut s = format!(
            "{} cat={} TimeBBox({},{}) info={:?} vertices=[",
            if self.bsize.is_some() {
                "Primitive"
            } else {
                "Composite"
            },
            self.category,
            java_double_to_string(f64::from_bits(self.start)),
            java_double_to_string(f64::from_bits(self.end)),
            self.info
        );
        for (t, l) in &self.vertices {
            write!(s, " ({}, {l})", java_float_to_string(f32::from_bits(*t))).unwrap();
        }
        s.push_str(" ]");
        if let Some(b) = self.bsize {
            write!(s, " bsize={b}").unwrap();
        }
        for p in &self.parts {
            write!(s, "\n      part: {}", p.show()).unwrap();
        }
        s
    }
}

/// Marks the info text of a drawable whose info Java could not decode (Java would
/// print a stack trace and exit if it ever printed that drawable).
const UNDECODABLE: &str = "<undecodable info: ";

fn info_text(cats: &HashMap<i32, &Category>, category: i32, info: &[u8]) -> String {
    // A category missing from the map becomes Java's `UnknownType-N` with no keys
    // and no formats.
    let (keys, types) = match cats.get(&category) {
        Some(c) => (&c.keys[..], &c.types[..]),
        None => (&[][..], &[][..]),
    };
    labelled(keys, types, info).unwrap_or_else(|e| format!("{UNDECODABLE}{e}>"))
}

fn undecodable(i: &Item) -> bool {
    i.info.starts_with(UNDECODABLE) || i.parts.iter().any(undecodable)
}

fn primitive_item(cats: &HashMap<i32, &Category>, p: &Primitive) -> Item {
    // Java's box starts empty (+inf, -inf) and takes every vertex with < and >.
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in &p.vertices {
        if v.time < lo {
            lo = v.time;
        }
        if v.time > hi {
            hi = v.time;
        }
    }
    Item {
        category: p.category,
        start: canon64(lo),
        end: canon64(hi),
        info: info_text(cats, p.category, &p.info.bytes),
        vertices: p
            .vertices
            .iter()
            .map(|v| (canon32(v.time as f32), v.line_id))
            .collect(),
        bsize: Some(4 + 2 + p.info.bytes.len() + 2 + 12 * p.vertices.len()),
        parts: Vec::new(),
    }
}

fn composite_item(cats: &HashMap<i32, &Category>, c: &Composite) -> Item {
    let parts: Vec<Item> = c
        .primitives
        .iter()
        .map(|p| primitive_item(cats, p))
        .collect();
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for p in &parts {
        lo = lo.min(f64::from_bits(p.start));
        hi = hi.max(f64::from_bits(p.end));
    }
    Item {
        category: c.category,
        start: canon64(lo),
        end: canon64(hi),
        info: info_text(cats, c.category, &c.info.bytes),
        vertices: Vec::new(),
        bsize: None,
        parts,
    }
}

/// Parses one drawable of the dump (`Primitive[ ... ] bsize=N` or
/// `Composite[ ... ]`).
fn parse_item(
    cur: &mut Cur,
    dump_cats: &HashMap<i32, String>,
    notes: &mut Notes,
) -> Result<Item, String> {
    let composite = if cur.starts("Primitive[ ") {
        cur.expect("Primitive[ ")?;
        false
    } else {
        cur.expect("Composite[ ")?;
        true
    };
    cur.expect("infobox[ TimeBBox(")?;
    let a = cur.until(",")?;
    let b = cur.until(")")?;
    let start = java_f64(a, notes).map_err(|e| cur.err(e))?;
    let end = java_f64(b, notes).map_err(|e| cur.err(e))?;
    cur.expect(" Category=Category[ index=")?;
    let category: i32 = cur.int()?;
    // The category text must be the dump's own category-map text, used.
    let Some(cat_text) = dump_cats.get(&category) else {
        return Err(cur.err(format_args!(
            "category {category} is not in the dump's category map"
        )));
    };
    let cat_tail = cat_text
        .strip_prefix(&format!("Category[ index={category}"))
        .unwrap();
    cur.expect(cat_tail)?;
    cur.expect(": ")?;
    let info = if composite {
        cur.until_any(&["] Primitive[", "] ]"])?.0
    } else {
        cur.until_any(&["] (", "] ]"])?.0
    }
    .to_string();
    cur.expect("]")?;
    let mut vertices = Vec::new();
    let mut parts = Vec::new();
    let bsize = if composite {
        while cur.starts(" Primitive[") {
            cur.expect(" ")?;
            parts.push(parse_item(cur, dump_cats, notes)?);
        }
        cur.expect(" ]")?;
        None
    } else {
        while cur.starts(" (") {
            cur.expect(" (")?;
            let t = cur.until(", ")?;
            let t = java_f32(t, notes).map_err(|e| cur.err(e))?;
            let l: i32 = cur.int()?;
            cur.expect(")")?;
            vertices.push((canon32(t), l));
        }
        cur.expect(" ] bsize=")?;
        Some(cur.int::<usize>()?)
    };
    Ok(Item {
        category,
        start: canon64(start),
        end: canon64(end),
        info,
        vertices,
        bsize,
        parts,
    })
}

// ---------------------------------------------------------------------------------
// One file.

struct Sections {
    header: (usize, usize),
    categories: (usize, usize),
    tree_dir: (usize, usize),
    maps: (usize, usize),
    drawables: (usize, usize),
}

fn sections(dump: &str) -> Result<Sections, String> {
    let find = |from: usize, lit: &str| -> Result<(usize, usize), String> {
        dump[from..]
            .find(lit)
            .map(|i| (from + i, from + i + lit.len()))
            .ok_or_else(|| format!("the dump has no {lit:?} after byte {from}"))
    };
    let (h0, h1) = find(0, "\t SLOG-2 Header:\n")?;
    if h0 != 0 {
        return Err(format!("the dump starts with {:?}", &dump[..h0.min(80)]));
    }
    let (c0, c1) = find(h1, "\n\t CategoryMap: \n")?;
    let (t0, t1) = find(c1, "\n\t SLOG-2 Tree Directory\n")?;
    let (m0, m1) = find(t1, "\n\t LineIDMapList: \n")?;
    // The first drawable is never flagged out of order (Java starts from -inf).
    let d0 = ["\n1: Primitive[", "\n1: Composite["]
        .iter()
        .filter_map(|l| dump[m1..].find(l).map(|i| m1 + i + 1))
        .min()
        .unwrap_or(dump.len());
    Ok(Sections {
        header: (h1, c0),
        categories: (c1, t0),
        tree_dir: (t1, m0),
        maps: (m1, d0),
        drawables: (d0, dump.len()),
    })
}

fn lines(dump: &str, (a, b): (usize, usize)) -> Vec<&str> {
    dump[a..b].lines().filter(|l| !l.is_empty()).collect()
}

/// Checks one file; returns the hard failures.
fn check_file(rel: &str, data: &[u8], dump: &str) -> Vec<String> {
    let mut fails = Vec::new();
    let mut notes = Notes::default();
    macro_rules! fail {
        ($($t:tt)*) => { fails.push(format!($($t)*)) };
    }
    let f = match Slog2File::parse(data) {
        Ok(f) => f,
        Err(e) => return vec![format!("our reader fails: {e}")],
    };
    if f.version != Version::V206 {
        return vec![format!(
            "version {:?}: the test expects 2.0.6 summaries",
            f.version
        )];
    }
    let sec = match sections(dump) {
        Ok(s) => s,
        Err(e) => return vec![e],
    };
    let mut cat_list: Vec<&Category> = Vec::new();
    let mut maps = None;
    let mut tree_dir = None;
    for b in f.blocks.values() {
        match b {
            FileBlock::Categories(c) => cat_list.extend(c.value.categories.iter()),
            FileBlock::LineIdMaps(m) => maps = Some(&m.value),
            FileBlock::TreeDir(t) => tree_dir = Some(&t.value),
            FileBlock::Node(_) => {}
        }
    }
    // Java keeps categories in a HashMap: a repeated index keeps the last one.
    let cats: HashMap<i32, &Category> = cat_list.iter().map(|c| (c.index, *c)).collect();

    // Header.
    let h = &f.header;
    let fb = |p: slog2_format::FileBlockPtr| format!("FBinfo({} @ {})", p.size, p.offset);
    let want_header = vec![
        format!("version = {}", h.version.text()),
        format!("NumOfChildrenPerNode = {}", h.num_children_per_node),
        format!("TreeLeafByteSize = {}", h.treeleaf_bytesize),
        format!("MaxTreeDepth = {}", h.max_treedepth),
        format!("MaxBufferByteSize = {}", h.max_buffer_bytesize),
        format!("Categories  is {}", fb(h.categories)),
        format!("MethodDefs  is {}", fb(h.methoddefs)),
        format!("LineIDMaps  is {}", fb(h.lineidmaps)),
        format!("TreeRoot    is {}", fb(h.treeroot)),
        format!("TreeDir     is {}", fb(h.treedir)),
        format!("Annotations is {}", fb(h.annotations)),
        format!("Postamble   is {}", fb(h.postamble)),
    ];
    let got_header = lines(dump, sec.header);
    if got_header != want_header {
        let k = (0..want_header.len().max(got_header.len()))
            .find(|&k| got_header.get(k).copied() != want_header.get(k).map(|s| s.as_str()))
            .unwrap_or(0);
        fail!(
            "header line {}:\n  dump: {:?}\n  ours: {:?}",
            k + 1,
            got_header.get(k),
            want_header.get(k)
        );
    }

    // Categories: `k: Category[ ... ]` per line, in Java's HashMap order.
    let mut dump_cats: HashMap<i32, String> = HashMap::new();
    {
        let mut cur = Cur::new(dump, sec.categories.0, sec.categories.1);
        let mut k = 1;
        while !cur.at_end() && !cur.starts("\n") {
            let r = (|| -> Result<(), String> {
                cur.expect(&format!("{k}: "))?;
                let line_start = cur.pos;
                cur.expect("Category[ index=")?;
                let index: i32 = cur.int()?;
                // Skip our exact text when it is there (names may hold newlines);
                // otherwise take the line and compare field by field.
                let exact = cats.get(&index).map(|c| category_text(c, false));
                cur.pos = line_start;
                let text = match exact {
                    Some(t) if cur.starts(&t) => {
                        cur.pos += t.len();
                        t
                    }
                    _ => {
                        let line = cur.rest().split('\n').next().unwrap_or("");
                        cur.pos += line.len();
                        line.to_string()
                    }
                };
                cur.expect("\n")?;
                match cats.get(&index) {
                    Some(c) => check_category(&text, c, false, &mut notes)?,
                    None => return Err(format!("category {index} is in the dump only: {text}")),
                }
                if dump_cats
                    .insert(index, text.replacen("isUsed=false", "isUsed=true", 1))
                    .is_some()
                {
                    return Err(format!("category {index} is printed twice"));
                }
                Ok(())
            })();
            if let Err(e) = r {
                fail!("{e}");
                break;
            }
            k += 1;
        }
        if !cur.rest().trim().is_empty() {
            fail!("{}", cur.err("unexpected text after the categories"));
        }
        let mut missing: Vec<i32> = cats
            .keys()
            .filter(|i| !dump_cats.contains_key(i))
            .copied()
            .collect();
        missing.sort();
        if !missing.is_empty() {
            fail!("categories {missing:?} are ours only (not in the dump)");
        }
    }

    // TreeDir: `ID(d,x) -> DirVal[ TimeBBox(a,b), FBinfo(s @ o) ]`.
    {
        type Entry = (i16, i32, u64, u64, i32, i64);
        let mut got: Vec<Entry> = Vec::new();
        let mut cur = Cur::new(dump, sec.tree_dir.0, sec.tree_dir.1);
        while !cur.at_end() && !cur.starts("\n") {
            let r = (|| -> Result<Entry, String> {
                cur.expect("ID(")?;
                let d: i16 = cur.int()?;
                cur.expect(",")?;
                let x: i32 = cur.int()?;
                cur.expect(") -> DirVal[ TimeBBox(")?;
                let a = cur.until(",")?;
                let b = cur.until("), FBinfo(")?;
                let a = java_f64(a, &mut notes).map_err(|e| cur.err(e))?;
                let b = java_f64(b, &mut notes).map_err(|e| cur.err(e))?;
                let s: i32 = cur.int()?;
                cur.expect(" @ ")?;
                let o: i64 = cur.int()?;
                cur.expect(") ]\n")?;
                Ok((d, x, canon64(a), canon64(b), s, o))
            })();
            match r {
                Ok(e) => got.push(e),
                Err(e) => {
                    fail!("{e}");
                    break;
                }
            }
        }
        // Java's TreeMap: one entry per ID, the last one read.
        let mut ours: BTreeMap<(i16, i32), Entry> = BTreeMap::new();
        for e in tree_dir.map(|t| &t.entries[..]).unwrap_or(&[]) {
            ours.insert(
                (e.id.depth, e.id.xpos),
                (
                    e.id.depth,
                    e.id.xpos,
                    canon64(e.earliest),
                    canon64(e.latest),
                    e.ptr.size,
                    e.ptr.offset,
                ),
            );
        }
        let mut ours: Vec<Entry> = ours.into_values().collect();
        ours.sort();
        got.sort();
        if got != ours {
            let k = (0..got.len().max(ours.len()))
                .find(|&k| got.get(k) != ours.get(k))
                .unwrap_or(0);
            let show = |e: Option<&Entry>| {
                e.map(|&(d, x, a, b, s, o)| {
                    format!(
                        "ID({d},{x}) TimeBBox({},{}) FBinfo({s} @ {o})",
                        java_double_to_string(f64::from_bits(a)),
                        java_double_to_string(f64::from_bits(b))
                    )
                })
            };
            fail!(
                "TreeDir ({} entries in the dump, {} ours), first difference in sorted order:\n  dump: {:?}\n  ours: {:?}",
                got.len(),
                ours.len(),
                show(got.get(k)),
                show(ours.get(k))
            );
        }
    }

    // Line-ID maps, as text.
    {
        let mut want = String::new();
        for (k, m) in maps.map(|m| &m.maps[..]).unwrap_or(&[]).iter().enumerate() {
            writeln!(want, "LineIDMap {}: ", k + 1).unwrap();
            writeln!(want, "Title: {}", m.title.text()).unwrap();
            want.push_str("Column Labels: LineID -> ");
            for l in &m.labels {
                write!(want, "{} ", l.text()).unwrap();
            }
            want.push('\n');
            let rows: BTreeMap<i32, &Vec<i32>> =
                m.rows.iter().map(|r| (r.line_id, &r.values)).collect();
            for (i, (id, vals)) in rows.iter().enumerate() {
                write!(want, "{}, {id}:  ", i + 1).unwrap();
                for v in vals.iter() {
                    write!(want, "{v} ").unwrap();
                }
                want.push('\n');
            }
            if !m.methods.is_empty() {
                want.push_str("methods=< ");
                for id in &m.methods {
                    write!(want, "{} ", method_name(*id)).unwrap();
                }
                want.push_str(">\n");
            }
            want.push('\n');
        }
        let got = &dump[sec.maps.0..sec.maps.1];
        if got.trim_end_matches('\n') != want.trim_end_matches('\n') {
            let (g, w): (Vec<&str>, Vec<&str>) = (got.lines().collect(), want.lines().collect());
            let k = (0..g.len().max(w.len()))
                .find(|&k| g.get(k) != w.get(k))
                .unwrap_or(0);
            fail!(
                "line-ID maps, line {} of the section:\n  dump: {:?}\n  ours: {:?}",
                k + 1,
                g.get(k),
                w.get(k)
            );
        }
    }

    // Drawables.
    let mut ours_all: Vec<Item> = Vec::new();
    for n in f.nodes() {
        for d in n.value.nestless.iter().chain(n.value.nestable.iter()) {
            ours_all.push(match d {
                Drawable::Primitive(p) => primitive_item(&cats, p),
                Drawable::Composite(c) => composite_item(&cats, c),
            });
        }
    }
    // slog2print's windows (see the module comment).
    let root = f
        .nodes()
        .find(|n| n.ptr == f.header.treeroot)
        .map(|n| n.value.header);
    let dir_root = tree_dir.and_then(|t| {
        t.entries
            .iter()
            .max_by_key(|e| (e.id.depth, std::cmp::Reverse(e.id.xpos)))
            .map(|e| (e.earliest, e.latest))
    });
    let (Some(root), Some((frame_lo, frame_hi))) = (root, dir_root) else {
        fails.push("no root node or empty TreeDir".into());
        return fails;
    };
    let mut leaves: Vec<(f64, f64)> = tree_dir
        .unwrap()
        .entries
        .iter()
        .filter(|e| e.id.depth == 0)
        .map(|e| (e.earliest, e.latest))
        .collect();
    leaves.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
    leaves.dedup();
    if let Some(first) = leaves.first_mut() {
        first.0 = root.earliest;
    }
    if let Some(last) = leaves.last_mut() {
        last.1 = root.latest;
    }
    let windows: Vec<(f64, f64)> = leaves
        .iter()
        .filter(|w| w.0 <= frame_hi && frame_lo <= w.1)
        .map(|w| (w.0.max(frame_lo), w.1.min(frame_hi)))
        .collect();
    // Windows are sorted by start; a start lies in the last window starting at or
    // before it, if in any.
    let in_window = |s: f64| {
        let k = windows.partition_point(|w| w.0 <= s);
        k > 0 && s < windows[k - 1].1
    };
    let (mut ours, left_out): (Vec<Item>, Vec<Item>) =
        ours_all.into_iter().partition(|i| in_window(i.start_f64()));
    let (span_lo, span_hi) = (
        windows.first().map_or(f64::INFINITY, |w| w.0),
        windows.last().map_or(f64::NEG_INFINITY, |w| w.1),
    );
    for i in &left_out {
        let s = i.start_f64();
        if span_lo <= s && s < span_hi {
            fail!(
                "our drawable starts between two leaf windows (slog2print would skip it): {}",
                i.show()
            );
        }
    }
    for i in ours.iter().filter(|i| undecodable(i)) {
        fail!(
            "slog2print would have to print a drawable whose info does not decode: {}",
            i.show()
        );
    }

    let mut got: Vec<Item> = Vec::new();
    let mut flagged = 0usize;
    {
        let mut cur = Cur::new(dump, sec.drawables.0, sec.drawables.1);
        let mut k = 1usize;
        loop {
            while cur.starts("\n") {
                cur.pos += 1;
            }
            if cur.at_end() {
                break;
            }
            let r = (|| -> Result<Item, String> {
                if cur.starts("  *****  ") {
                    flagged += 1;
                    cur.pos += "  *****  ".len();
                }
                cur.expect(&format!("{k}: "))?;
                let item = parse_item(&mut cur, &dump_cats, &mut notes)?;
                if !cur.at_end() {
                    cur.expect("\n")?;
                }
                Ok(item)
            })();
            match r {
                Ok(i) => got.push(i),
                Err(e) => {
                    fail!("drawable {k}: {e}");
                    break;
                }
            }
            k += 1;
        }
    }
    if got.len() != ours.len() {
        fail!(
            "the dump prints {} drawables; we have {} in its windows (and {} outside)",
            got.len(),
            ours.len(),
            left_out.len()
        );
    }
    got.sort();
    ours.sort();
    if got != ours {
        // Multiset difference, both ways.
        let (mut only_dump, mut only_ours) = (Vec::new(), Vec::new());
        let (mut a, mut b) = (0, 0);
        while a < got.len() || b < ours.len() {
            match (got.get(a), ours.get(b)) {
                (Some(x), Some(y)) if x == y => {
                    a += 1;
                    b += 1;
                }
                (Some(x), Some(y)) if x < y => {
                    only_dump.push(x);
                    a += 1;
                }
                (Some(_), Some(y)) => {
                    only_ours.push(y);
                    b += 1;
                }
                (Some(x), None) => {
                    only_dump.push(x);
                    a += 1;
                }
                (None, Some(y)) => {
                    only_ours.push(y);
                    b += 1;
                }
                (None, None) => break,
            }
        }
        let mut msg = format!(
            "drawables differ: {} only in the dump, {} only ours",
            only_dump.len(),
            only_ours.len()
        );
        for x in only_dump.iter().take(3) {
            write!(msg, "\n  dump only: {}", x.show()).unwrap();
        }
        for y in only_ours.iter().take(3) {
            write!(msg, "\n  ours only: {}", y.show()).unwrap();
        }
        fails.push(msg);
    }

    eprintln!(
        "{rel}: {} drawables agree ({} flagged out of order by slog2print), {} categories, {} TreeDir entries{}{}",
        got.len(),
        flagged,
        dump_cats.len(),
        tree_dir.map_or(0, |t| t.entries.len()),
        if left_out.is_empty() {
            String::new()
        } else {
            format!(
                "; {} not printed by slog2print (start outside [{}, {})):{}",
                left_out.len(),
                java_double_to_string(span_lo),
                java_double_to_string(span_hi),
                left_out
                    .iter()
                    .map(|i| format!("\n    {}", i.show()))
                    .collect::<String>()
            )
        },
        if notes.text_nuances.is_empty() {
            String::new()
        } else {
            format!(
                "; {} number texts differ from ours only in documented Java 17 digits: {}",
                notes.text_nuances.len(),
                notes.text_nuances.iter().take(4).cloned().collect::<Vec<_>>().join(", ")
            )
        }
    );
    fails
}

#[test]
fn every_corpus_slog2_agrees_with_its_slog2print_dump() {
    let Some(dir) = corpus() else { return };
    let mut failures = Vec::new();
    for rel in FILES {
        let path = dir.join(rel);
        assert!(path.is_file(), "corpus file missing: {}", path.display());
        let data = std::fs::read(&path).unwrap();
        let dump = read_dump(&path);
        for e in check_file(rel, &data, &dump) {
            failures.push(format!("{rel}: {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} disagreement(s) with slog2print:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn window_rule_and_parser_on_a_small_dump() {
    // data.slog2: three composites with 3, 7 and 4 parts, no left-out drawable.
    let Some(dir) = corpus() else { return };
    let path = dir.join("historic/data.slog2");
    let data = std::fs::read(&path).unwrap();
    let dump = read_dump(&path);
    let sec = sections(&dump).unwrap();
    let f = Slog2File::parse(&data).unwrap();
    let mut dump_cats = HashMap::new();
    for c in f
        .blocks
        .values()
        .filter_map(|b| match b {
            FileBlock::Categories(c) => Some(&c.value.categories),
            _ => None,
        })
        .flatten()
    {
        dump_cats.insert(c.index, category_text(c, true));
    }
    let mut cur = Cur::new(&dump, sec.drawables.0, sec.drawables.1);
    let mut notes = Notes::default();
    let mut parts = Vec::new();
    for k in 1..=9 {
        cur.expect(&format!("{k}: ")).unwrap();
        let i = parse_item(&mut cur, &dump_cats, &mut notes).unwrap();
        parts.push(i.parts.len());
        cur.expect("\n").unwrap();
    }
    assert_eq!(parts, [0, 3, 0, 0, 0, 7, 0, 0, 4]);
    assert!(check_file("historic/data.slog2", &data, &dump).is_empty());
}
