//! The text form of `mpelog print` for SLOG-2: the header, the legend, the line-ID
//! maps, the tree directory, then every node (in TreeDir order) with every drawable,
//! stub and shadow and all their fields. Times print in the shortest form that reads
//! back to the same double; info buffers print as hex (and decoded where the
//! category's formats allow, after `=>`).

use crate::read::Version;
use crate::types::*;
use std::fmt::Write;

fn ptr(p: &FileBlockPtr) -> String {
    format!("{}@{}", p.size, p.offset)
}

fn hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        let _ = write!(s, "{x:02x}");
    }
    s
}

/// Bytes as a quoted string in the notation of [`clog2_format::escape`].
fn quoted(b: &[u8]) -> String {
    clog2_format::escape::QuotedBytes(b).to_string()
}

fn vertices(v: &[Coord]) -> String {
    v.iter()
        .map(|c| format!("({:?},{})", c.time, c.line_id))
        .collect::<Vec<_>>()
        .join("")
}

/// Header lines.
///
/// ```
/// # use slog2_format::convert::clog2_to_slog2;
/// # use slog2_format::Slog2Reader;
/// # use std::io::Cursor;
/// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
/// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
/// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// # let bytes = out.into_inner();
/// let r = Slog2Reader::new(Cursor::new(&bytes))?;
/// let lines = slog2_format::dump::header(r.header(), r.version());
/// assert_eq!(lines[0], r#"version "SLOG 2.0.6""#);
/// assert!(lines[1].starts_with("header "));
/// # Ok::<(), slog2_format::Error>(())
/// ```
pub fn header(h: &Header, version: Version) -> Vec<String> {
    vec![
        format!("version {}", quoted(&h.version.bytes)),
        format!(
            "header format={} num_children_per_node={} treeleaf_bytesize={} max_treedepth={} max_buffer_bytesize={}",
            version.as_str(),
            h.num_children_per_node,
            h.treeleaf_bytesize,
            h.max_treedepth,
            h.max_buffer_bytesize
        ),
        format!(
            "pointers categories={} methoddefs={} lineidmaps={} treeroot={} treedir={} annotations={} postamble={}",
            ptr(&h.categories),
            ptr(&h.methoddefs),
            ptr(&h.lineidmaps),
            ptr(&h.treeroot),
            ptr(&h.treedir),
            ptr(&h.annotations),
            ptr(&h.postamble)
        ),
    ]
}

/// One category line.
///
/// ```
/// let line = slog2_format::dump::category(&slog2_format::convert::arrow_category());
/// assert!(line.starts_with(r#"category index=0 name="message" topo=Arrow argb=ffffffff"#));
/// ```
pub fn category(c: &Category) -> String {
    let keys: Vec<String> = c.keys.iter().map(|k| quoted(&k.bytes)).collect();
    let mut s = format!(
        "category index={} name={} topo={} argb={} modifiable={} width={} keys=[{}] types={} methods={:?}",
        c.index,
        quoted(&c.name.bytes),
        topology::name(c.topology),
        hex(&c.argb),
        c.modifiable,
        c.width,
        keys.join(","),
        quoted(&c.types),
        c.methods
    );
    if let Some(sum) = &c.summary {
        let _ = write!(s, " summary=({:?},{:?},{})", sum.incl, sum.excl, sum.count);
    }
    s
}

/// Lines of one line-ID map.
///
/// ```
/// use slog2_format::write::identity_map;
/// let lines = slog2_format::dump::line_id_map(&identity_map(0..2));
/// assert_eq!(lines.len(), 3); // the map, then a row per line ID
/// assert!(lines[0].starts_with("linemap title="));
/// assert!(lines[1].starts_with("  row 0 -> "));
/// ```
pub fn line_id_map(m: &LineIdMap) -> Vec<String> {
    let labels: Vec<String> = m.labels.iter().map(|k| quoted(&k.bytes)).collect();
    let mut v = vec![format!(
        "linemap title={} ncols={} labels=[{}] rows={} methods={:?}",
        quoted(&m.title.bytes),
        m.ncols,
        labels.join(","),
        m.rows.len(),
        m.methods
    )];
    for r in &m.rows {
        v.push(format!("  row {} -> {:?}", r.line_id, r.values));
    }
    v
}

/// One TreeDir entry.
///
/// ```
/// # use slog2_format::convert::clog2_to_slog2;
/// # use slog2_format::Slog2Reader;
/// # use std::io::Cursor;
/// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
/// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
/// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// # let bytes = out.into_inner();
/// let r = Slog2Reader::new(Cursor::new(&bytes))?;
/// let root = r.tree_dir().unwrap().value.root().unwrap();
/// let line = slog2_format::dump::tree_dir_entry(root);
/// assert!(line.starts_with(&format!("treedir ({},0) [", r.header().max_treedepth)));
/// # Ok::<(), slog2_format::Error>(())
/// ```
pub fn tree_dir_entry(e: &TreeDirEntry) -> String {
    format!(
        "treedir ({},{}) [{:?},{:?}] {}",
        e.id.depth,
        e.id.xpos,
        e.earliest,
        e.latest,
        ptr(&e.ptr)
    )
}

fn primitive(p: &Primitive, indent: &str, out: &mut Vec<String>) {
    out.push(format!(
        "{indent}primitive cat={} info={} vertices={}",
        p.category,
        hex(&p.info.bytes),
        vertices(&p.vertices)
    ));
}

fn node_header(kind: &str, h: &NodeHeader) -> String {
    format!(
        "{kind} ({},{}) [{:?},{:?}] ptr={}",
        h.id.depth,
        h.id.xpos,
        h.earliest,
        h.latest,
        ptr(&h.ptr)
    )
}

fn shadow(s: &Shadow, out: &mut Vec<String>) {
    let w: Vec<String> = s
        .weights
        .iter()
        .map(|w| match w.count {
            Some(c) => format!("{}:{:?}/{:?}/{}", w.category, w.incl, w.excl, c),
            None => format!("{}:{:?}/{:?}", w.category, w.incl, w.excl),
        })
        .collect();
    out.push(format!(
        "    shadow cat={} info={} vertices={} box=[{:?},{:?}] objs={} weights=[{}]",
        s.category,
        hex(&s.info.bytes),
        vertices(&s.vertices),
        s.earliest,
        s.latest,
        s.num_real_objs,
        w.join(",")
    ));
}

/// The lines of one node: header, drawables, stubs with shadows, trailing bytes.
///
/// ```
/// # use slog2_format::convert::clog2_to_slog2;
/// # use slog2_format::Slog2Reader;
/// # use std::io::Cursor;
/// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
/// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
/// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// # let bytes = out.into_inner();
/// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
/// let root = r.read_root()?;
/// let lines = slog2_format::dump::node(&root.value, &root.trailing);
/// assert!(lines[0].contains(&format!("stubs={}", root.value.stubs.len())));
/// assert!(lines.len() > 1); // its drawables and stubs follow
/// # Ok::<(), slog2_format::Error>(())
/// ```
pub fn node(n: &TreeNodeBody, trailing: &[u8]) -> Vec<String> {
    let mut out = vec![format!(
        "{} nestless={} nestable={} stubs={}",
        node_header("node", &n.header),
        n.nestless.len(),
        n.nestable.len(),
        n.stubs.len()
    )];
    for (list, d) in n
        .nestless
        .iter()
        .map(|d| ("nestless", d))
        .chain(n.nestable.iter().map(|d| ("nestable", d)))
    {
        match d {
            Drawable::Primitive(p) => primitive(p, &format!("  {list} "), &mut out),
            Drawable::Composite(c) => {
                out.push(format!(
                    "  {list} composite cat={} info={} parts={}",
                    c.category,
                    hex(&c.info.bytes),
                    c.primitives.len()
                ));
                for p in &c.primitives {
                    primitive(p, "    part ", &mut out);
                }
            }
        }
    }
    for s in &n.stubs {
        out.push(format!(
            "  {} shadows={}+{}",
            node_header("stub", &s.header),
            s.nestless.len(),
            s.nestable.len()
        ));
        for sh in s.nestless.iter().chain(&s.nestable) {
            shadow(sh, &mut out);
        }
    }
    if !trailing.is_empty() {
        out.push(format!("  trailing {}", hex(trailing)));
    }
    out
}

/// The nodes of the tree depth first from the root, as `slog2printrecur` prints
/// them (`mpelog print --tree`): each node's lines ([`node`]) indented by two
/// spaces per level below the root, its children after it in stub order. Nodes
/// deeper than `lowest_depth` are read; a stub whose child is below it is listed
/// in its parent's lines but not followed (`lowest_depth = 0` reads every node).
///
/// Every child is reached through the TreeDir entry its stub names; a stub that
/// names no TreeDir node, a child whose depth is not one less than its parent's,
/// and a block reached twice are [`Error::BadTree`](crate::Error::BadTree) at the
/// parent's block, so a damaged file cannot make the walk loop.
///
/// # Errors
///
/// As [`Slog2Reader::read_node`](crate::Slog2Reader::read_node) for each node, and
/// [`Error::BadTree`](crate::Error::BadTree) at a node's offset when a node is reached
/// twice or a stub names no node of the TreeDir.
///
/// ```
/// use slog2_format::convert::clog2_to_slog2;
/// use slog2_format::write::TreeOptions;
/// use slog2_format::{dump, Slog2Reader};
/// use std::io::Cursor;
/// let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
/// let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
/// let opts = TreeOptions::default().leaf_bytes(4096);
/// let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), opts, |_| {}).unwrap();
/// let mut r = Slog2Reader::new(Cursor::new(out.into_inner())).unwrap();
/// let mut lines = Vec::new();
/// dump::tree(&mut r, 0, |l| lines.push(l)).unwrap();
/// assert!(lines[0].starts_with("node ("));
/// assert!(lines.iter().any(|l| l.starts_with("  node (")), "children are indented");
/// ```
pub fn tree<R: std::io::Read + std::io::Seek>(
    r: &mut crate::Slog2Reader<R>,
    lowest_depth: i16,
    mut line: impl FnMut(String),
) -> crate::Result<()> {
    use crate::error::{Error, TreeProblem};
    let entries: std::collections::HashMap<NodeId, TreeDirEntry> = r
        .tree_dir()
        .map(|t| t.value.entries.iter().map(|e| (e.id, *e)).collect())
        .unwrap_or_default();
    let Some(root) = r.tree_dir().and_then(|t| t.value.root().copied()) else {
        return Ok(());
    };
    let mut seen = std::collections::HashSet::new();
    // Depth first: a stack of nodes still to print, children pushed in reverse.
    let mut todo = vec![root];
    while let Some(e) = todo.pop() {
        let at = e.ptr.offset as u64;
        let bad = |problem: TreeProblem| Error::BadTree {
            offset: at,
            node: e.id,
            problem,
        };
        if !seen.insert(e.ptr.offset) {
            return Err(bad(TreeProblem::ReachedTwice {
                block: e.ptr.offset,
            }));
        }
        let n = r.read_node(e.ptr)?;
        let levels = (i32::from(root.id.depth) - i32::from(e.id.depth)).max(0);
        let indent = "  ".repeat(levels as usize);
        for l in node(&n.value, &n.trailing) {
            line(format!("{indent}{l}"));
        }
        let mut children = Vec::new();
        for s in &n.value.stubs {
            let id = s.header.id;
            if id.depth < lowest_depth {
                continue;
            }
            if i32::from(id.depth) != i32::from(e.id.depth) - 1 {
                return Err(bad(TreeProblem::StubNotOneLevelDown {
                    parent: e.id,
                    stub: id,
                }));
            }
            let child = entries
                .get(&id)
                .copied()
                .ok_or_else(|| bad(TreeProblem::NotInTreeDir { stub: id }))?;
            children.push(child);
        }
        todo.extend(children.into_iter().rev());
    }
    Ok(())
}

/// What `mpelog info` reports about a SLOG-2 file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// Tree nodes (TreeDir entries).
    pub nodes: u64,
    /// Drawables per kind: `primitives`, `composites`, `composite_parts`,
    /// `shadows`.
    pub per_kind: std::collections::BTreeMap<&'static str, u64>,
    /// The root's time box: the deepest TreeDir entry's (not the header's
    /// `max_treedepth`, which readers do not trust).
    pub time_range: Option<(f64, f64)>,
    /// Categories in the legend.
    pub categories: u64,
    /// Line-ID maps.
    pub line_id_maps: u64,
}

/// Reads every node of the TreeDir (checked as the reader's validation says)
/// and counts the drawables; `progress` is called with the bytes of each node
/// read.
///
/// # Errors
///
/// As [`Slog2Reader::read_node`](crate::Slog2Reader::read_node) for each node of the
/// TreeDir.
///
/// ```
/// use slog2_format::convert::clog2_to_slog2;
/// use slog2_format::write::TreeOptions;
/// use slog2_format::{dump, Slog2Reader};
/// use std::io::Cursor;
/// let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
/// let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
/// let (out, stats) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), TreeOptions::default(), |_| {})?;
/// let mut r = Slog2Reader::new(Cursor::new(out.into_inner()))?;
/// let s = dump::summary(&mut r, |_| {})?;
/// assert_eq!(s.nodes, stats.tree.nodes);
/// assert_eq!(s.per_kind["primitives"], stats.tree.drawables);
/// # Ok::<(), slog2_format::Error>(())
/// ```
pub fn summary<R: std::io::Read + std::io::Seek>(
    r: &mut crate::Slog2Reader<R>,
    mut progress: impl FnMut(u64),
) -> crate::Result<Summary> {
    let entries: Vec<TreeDirEntry> = r
        .tree_dir()
        .map(|t| t.value.entries.clone())
        .unwrap_or_default();
    let root = entries
        .iter()
        .max_by_key(|e| (e.id.depth, std::cmp::Reverse(e.id.xpos)));
    let mut s = Summary {
        nodes: entries.len() as u64,
        time_range: root.map(|e| (e.earliest, e.latest)),
        categories: r
            .categories()
            .map_or(0, |c| c.value.categories.len() as u64),
        line_id_maps: r.line_id_maps().map_or(0, |m| m.value.maps.len() as u64),
        ..Summary::default()
    };
    let mut add = |k: &'static str, n: u64| *s.per_kind.entry(k).or_insert(0) += n;
    for e in &entries {
        let n = r.read_node(e.ptr)?;
        for d in n.value.nestless.iter().chain(&n.value.nestable) {
            match d {
                Drawable::Primitive(_) => add("primitives", 1),
                Drawable::Composite(c) => {
                    add("composites", 1);
                    add("composite_parts", c.primitives.len() as u64);
                }
            }
        }
        for st in &n.value.stubs {
            add("shadows", (st.nestless.len() + st.nestable.len()) as u64);
        }
        progress(e.ptr.size.max(0) as u64);
    }
    Ok(s)
}
