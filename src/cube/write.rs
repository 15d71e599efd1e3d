//! The bytes of a `.cubex` file (spec/cube.md): a tar of `anchor.xml` and,
//! per metric, its `.index` and `.data` members.

use super::items::{CnodeId, MetricId, MetricKind, SystemNodeId};
use super::model::Cube;
use super::{Error, Result};
use crate::output::{is_dash, Output};
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The `version` of `<cube>` and of the anchor syntax we write.
const CUBE_VERSION: &str = "4.4";
/// The first bytes of an index member.
const INDEX_MARKER: &[u8] = b"CUBEX.INDEX";
/// The first bytes of an uncompressed data member.
const DATA_MARKER: &[u8] = b"CUBEX.DATA";
/// The index format code of a sparse index (CubeW's `CUBE_INDEX_FORMAT_SPARSE`).
const SPARSE: u8 = 1;

/// The numbering the file uses: each tree in depth-first order.
struct Numbering {
    /// Metric arena index → file id (depth-first, parents first).
    metric: Vec<u32>,
    /// Metrics in file-id order.
    metric_order: Vec<MetricId>,
    /// Call-node arena index → file id (depth-first, parents first); also
    /// the row position of the call node in an exclusive metric.
    cnode: Vec<u32>,
    /// Call-node arena index → row position in an inclusive metric
    /// (CubeW's "wide" enumeration: a node's children numbered together,
    /// then each child's subtree in turn).
    cnode_wide: Vec<u32>,
    /// System-node arena index → file id (depth-first, parents first).
    system: Vec<u32>,
    /// Location arena index → file id and data column.
    location: Vec<u32>,
}

impl Numbering {
    fn of(cube: &Cube) -> Numbering {
        let mut metric = vec![0; cube.metrics.len()];
        let mut metric_order = Vec::with_capacity(cube.metrics.len());
        let mut stack: Vec<MetricId> = cube.metric_roots.iter().rev().copied().collect();
        while let Some(m) = stack.pop() {
            metric[m.0 as usize] = metric_order.len() as u32;
            metric_order.push(m);
            stack.extend(cube.metrics[m.0 as usize].children.iter().rev());
        }

        let mut cnode = vec![0; cube.cnodes.len()];
        let mut next = 0u32;
        let mut stack: Vec<CnodeId> = cube.cnode_roots.iter().rev().copied().collect();
        while let Some(c) = stack.pop() {
            cnode[c.0 as usize] = next;
            next += 1;
            stack.extend(cube.cnodes[c.0 as usize].children.iter().rev());
        }

        let mut cnode_wide = vec![0; cube.cnodes.len()];
        let mut next = 0u32;
        for &root in &cube.cnode_roots {
            cnode_wide[root.0 as usize] = next;
            next += 1;
            // Each popped node numbers all its children, then their subtrees
            // follow in order (the stack holds them in reverse).
            let mut stack = vec![root];
            while let Some(c) = stack.pop() {
                let children = &cube.cnodes[c.0 as usize].children;
                for &child in children {
                    cnode_wide[child.0 as usize] = next;
                    next += 1;
                }
                stack.extend(children.iter().rev());
            }
        }

        let mut system = vec![0; cube.system_nodes.len()];
        let mut location = vec![0; cube.locations.len()];
        let (mut next_system, mut next) = (0u32, 0u32);
        let mut stack: Vec<SystemNodeId> = cube.system_roots.iter().rev().copied().collect();
        while let Some(s) = stack.pop() {
            system[s.0 as usize] = next_system;
            next_system += 1;
            let node = &cube.system_nodes[s.0 as usize];
            for &p in &node.processes {
                for &l in &cube.processes[p.0 as usize].locations {
                    location[l.0 as usize] = next;
                    next += 1;
                }
            }
            stack.extend(node.children.iter().rev());
        }

        Numbering {
            metric,
            metric_order,
            cnode,
            cnode_wide,
            system,
            location,
        }
    }
}

/// `text` for XML character data or an attribute value: `&`, `<`, `>`,
/// `"` and `'` as entities, control characters (U+0000 … U+001F, U+007F;
/// XML 1.0 has no form for most of them) as the text `\u00XX`
/// (spec/README.md §3), everything else as it is.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// `anchor.xml`: the three trees, in the element order of CubeW.
fn anchor(cube: &Cube, n: &Numbering) -> String {
    let mut x = String::new();
    x.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\n");
    let _ = writeln!(x, "<cube version=\"{CUBE_VERSION}\">");
    // As CubeW writes it; CubeLib selects its CubePL engine by it.
    x.push_str("<attr key=\"CubePL Version\" value=\"1.1\"/>\n");
    let _ = writeln!(
        x,
        "<attr key=\"Cube anchor.xml syntax version\" value=\"{CUBE_VERSION}\"/>"
    );
    let _ = writeln!(
        x,
        "<attr key=\"Creator\" value=\"mpelog {}\"/>",
        env!("CARGO_PKG_VERSION")
    );
    for (k, v) in &cube.attrs {
        let _ = writeln!(x, "<attr key=\"{}\" value=\"{}\"/>", escape(k), escape(v));
    }
    x.push_str("<doc>\n<mirrors>\n");
    for m in &cube.mirrors {
        let _ = writeln!(x, "<murl>{}</murl>", escape(m));
    }
    x.push_str("</mirrors>\n</doc>\n");

    x.push_str("<metrics>\n");
    for &root in &cube.metric_roots {
        metric_xml(cube, n, root, &mut x);
    }
    x.push_str("</metrics>\n");

    x.push_str("<program>\n");
    for (id, r) in cube.regions.iter().enumerate() {
        let _ = writeln!(
            x,
            "<region id=\"{id}\" mod=\"{}\" begin=\"{}\" end=\"{}\">",
            escape(&r.file),
            r.lines.0,
            r.lines.1
        );
        let _ = writeln!(x, "<name>{}</name>", escape(&r.name));
        let _ = writeln!(x, "<mangled_name>{}</mangled_name>", escape(&r.name));
        let _ = writeln!(x, "<paradigm>{}</paradigm>", escape(&r.paradigm));
        let _ = writeln!(x, "<role>{}</role>", escape(&r.role));
        x.push_str("<url></url>\n");
        let _ = writeln!(x, "<descr>{}</descr>", escape(&r.description));
        x.push_str("</region>\n");
    }
    for &root in &cube.cnode_roots {
        cnode_xml(cube, n, root, &mut x);
    }
    x.push_str("</program>\n");

    x.push_str("<system>\n");
    let mut group = 0u32;
    for &root in &cube.system_roots {
        system_xml(cube, n, root, &mut group, &mut x);
    }
    x.push_str("<topologies>\n</topologies>\n</system>\n</cube>\n");
    x
}

fn metric_xml(cube: &Cube, n: &Numbering, id: MetricId, x: &mut String) {
    let e = &cube.metrics[id.0 as usize];
    let m = &e.metric;
    let _ = writeln!(
        x,
        "<metric id=\"{}\" type=\"{}\">",
        n.metric[id.0 as usize],
        m.kind.as_str()
    );
    let _ = writeln!(x, "<disp_name>{}</disp_name>", escape(&m.display_name));
    let _ = writeln!(x, "<uniq_name>{}</uniq_name>", escape(&m.unique_name));
    x.push_str("<dtype>DOUBLE</dtype>\n");
    let _ = writeln!(x, "<uom>{}</uom>", escape(&m.unit));
    let _ = writeln!(x, "<url>{}</url>", escape(&m.url));
    let _ = writeln!(x, "<descr>{}</descr>", escape(&m.description));
    for &c in &e.children {
        metric_xml(cube, n, c, x);
    }
    x.push_str("</metric>\n");
}

fn cnode_xml(cube: &Cube, n: &Numbering, id: CnodeId, x: &mut String) {
    let e = &cube.cnodes[id.0 as usize];
    let _ = writeln!(
        x,
        "<cnode id=\"{}\" calleeId=\"{}\">",
        n.cnode[id.0 as usize], e.region.0
    );
    for &c in &e.children {
        cnode_xml(cube, n, c, x);
    }
    x.push_str("</cnode>\n");
}

fn system_xml(cube: &Cube, n: &Numbering, id: SystemNodeId, group: &mut u32, x: &mut String) {
    let node = &cube.system_nodes[id.0 as usize];
    let _ = writeln!(x, "<systemtreenode Id=\"{}\">", n.system[id.0 as usize]);
    let _ = writeln!(x, "<name>{}</name>", escape(&node.name));
    let _ = writeln!(x, "<class>{}</class>", escape(&node.class));
    for &p in &node.processes {
        let proc = &cube.processes[p.0 as usize];
        let _ = writeln!(x, "<locationgroup Id=\"{group}\">");
        *group += 1;
        let _ = writeln!(x, "<name>{}</name>", escape(&proc.name));
        let _ = writeln!(x, "<rank>{}</rank>", proc.rank);
        x.push_str("<type>process</type>\n");
        for &l in &proc.locations {
            let loc = &cube.locations[l.0 as usize];
            let _ = writeln!(x, "<location Id=\"{}\">", n.location[l.0 as usize]);
            let _ = writeln!(x, "<name>{}</name>", escape(&loc.name));
            let _ = writeln!(x, "<rank>{}</rank>", loc.rank);
            x.push_str("<type>thread</type>\n</location>\n");
        }
        x.push_str("</locationgroup>\n");
    }
    for &c in &node.children {
        system_xml(cube, n, c, group, x);
    }
    x.push_str("</systemtreenode>\n");
}

/// The `.index` and `.data` members of metric `id`: the row positions that
/// hold a nonzero value (at least the first, so that no index is empty),
/// ascending, and for each a row of one little-endian `f64` per location.
fn metric_members(cube: &Cube, n: &Numbering, id: MetricId) -> (Vec<u8>, Vec<u8>) {
    let positions = match cube.metrics[id.0 as usize].metric.kind {
        MetricKind::Inclusive => &n.cnode_wide,
        MetricKind::Exclusive => &n.cnode,
    };
    let mut cells: Vec<(u32, u32, f64)> = cube
        .values_of(id)
        .filter(|&(_, _, v)| v != 0.0)
        .map(|(c, l, v)| (positions[c.0 as usize], n.location[l.0 as usize], v))
        .collect();
    cells.sort_unstable_by_key(|&(p, l, _)| (p, l));
    let mut rows: Vec<u32> = cells.iter().map(|&(p, _, _)| p).collect();
    rows.dedup();
    if rows.is_empty() {
        rows.push(0);
    }

    let mut index = Vec::with_capacity(INDEX_MARKER.len() + 11 + 4 * rows.len());
    index.extend_from_slice(INDEX_MARKER);
    index.extend_from_slice(&1i32.to_le_bytes());
    index.extend_from_slice(&0u16.to_le_bytes());
    index.push(SPARSE);
    index.extend_from_slice(&(rows.len() as u32).to_le_bytes());
    for &r in &rows {
        index.extend_from_slice(&r.to_le_bytes());
    }

    let width = cube.locations.len();
    let mut data = Vec::with_capacity(DATA_MARKER.len() + 8 * width * rows.len());
    data.extend_from_slice(DATA_MARKER);
    let mut cells = cells.into_iter().peekable();
    for &r in &rows {
        let mut row = vec![0f64; width];
        while let Some(&(p, l, v)) = cells.peek() {
            if p != r {
                break;
            }
            row[l as usize] = v;
            cells.next();
        }
        for v in row {
            data.extend_from_slice(&v.to_le_bytes());
        }
    }
    (index, data)
}

/// Appends one member to the tar: a ustar header with fixed owner, mode and
/// time, so the same cube is always the same bytes.
fn member<W: Write>(tar: &mut tar::Builder<W>, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    let mut h = tar::Header::new_ustar();
    h.set_path(name)?;
    h.set_size(bytes.len() as u64);
    h.set_mode(0o644);
    h.set_uid(0);
    h.set_gid(0);
    h.set_mtime(0);
    h.set_entry_type(tar::EntryType::Regular);
    h.set_cksum();
    tar.append(&h, bytes)
}

impl Cube {
    /// Writes the cube as a `.cubex` file (spec/cube.md) to `w`, and gives
    /// `w` back.
    ///
    /// # Errors
    ///
    /// [`Error::Empty`] for a cube without call nodes or locations;
    /// [`Error::TooMany`] past CUBE's 32-bit ids; [`Error::Io`] (with an
    /// empty path) when `w` fails.
    ///
    /// ```
    /// use mpelog::cube::{Cube, Error};
    /// // A cube needs a call node and a location to hold values.
    /// assert!(matches!(Cube::new().write_to(Vec::new()), Err(Error::Empty { .. })));
    /// ```
    pub fn write_to<W: Write>(&self, w: W) -> Result<W> {
        self.write_tar(w).map_err(|source| match source {
            WriteError::Cube(e) => e,
            WriteError::Io(source) => Error::Io {
                path: PathBuf::new(),
                source,
            },
        })
    }

    fn write_tar<W: Write>(&self, w: W) -> Result<W, WriteError> {
        if self.cnodes.is_empty() || self.locations.is_empty() {
            return Err(WriteError::Cube(Error::Empty {
                cnodes: self.cnodes.len(),
                locations: self.locations.len(),
            }));
        }
        if self.regions.len() > i32::MAX as usize {
            return Err(WriteError::Cube(Error::TooMany("regions")));
        }
        let n = Numbering::of(self);
        let mut tar = tar::Builder::new(w);
        member(&mut tar, "anchor.xml", anchor(self, &n).as_bytes())?;
        for (file_id, &m) in n.metric_order.iter().enumerate() {
            let (index, data) = metric_members(self, &n, m);
            member(&mut tar, &format!("{file_id}.index"), &index)?;
            member(&mut tar, &format!("{file_id}.data"), &data)?;
        }
        Ok(tar.into_inner()?)
    }

    /// Writes the cube as a `.cubex` file to `path` by the rules of
    /// [`crate::output`]: never over one of `inputs`, `-` is standard
    /// output, a regular file appears whole or not at all.
    ///
    /// # Errors
    ///
    /// As [`Cube::write_to`]; [`Error::Output`] when the output is an input
    /// or cannot be made or committed; [`Error::Io`] naming `path`.
    ///
    /// ```
    /// use mpelog::cube::{Cube, Metric, Region};
    /// let mut cube = Cube::new();
    /// let m = cube.add_metric(None, Metric::new("time", "Time", "sec"))?;
    /// let main = cube.add_region(Region::function("main"));
    /// let c = cube.add_cnode(None, main)?;
    /// let node = cube.add_system_node(None, "node", "node")?;
    /// let p = cube.add_process(node, "rank 0", 0)?;
    /// let l = cube.add_location(p, "thread 0", 0)?;
    /// cube.set(m, c, l, 1.0)?;
    /// let dir = tempfile::tempdir().unwrap();
    /// let trace = dir.path().join("run.clog2");
    /// std::fs::write(&trace, b"trace").unwrap();
    /// // Never over the trace it was made from.
    /// assert!(cube.write_file(&trace, &[&trace]).is_err());
    /// let out = dir.path().join("run.cubex");
    /// cube.write_file(&out, &[&trace])?;
    /// assert!(std::fs::metadata(&out).unwrap().len() > 0);
    /// # Ok::<(), mpelog::cube::Error>(())
    /// ```
    pub fn write_file(&self, path: &Path, inputs: &[&Path]) -> Result {
        let out = Output::create(path, inputs, false)?;
        let w = out.writer()?;
        let w = self.write_tar(w).map_err(|e| match e {
            WriteError::Cube(e) => e,
            WriteError::Io(source) => Error::Io {
                path: if is_dash(path) {
                    PathBuf::from("-")
                } else {
                    path.to_path_buf()
                },
                source,
            },
        })?;
        out.finish(w)?;
        Ok(())
    }
}

/// What `write_tar` can fail with, before the path is known.
enum WriteError {
    Cube(Error),
    Io(std::io::Error),
}

impl From<std::io::Error> for WriteError {
    fn from(e: std::io::Error) -> Self {
        WriteError::Io(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cube::{Metric, Region};

    #[test]
    fn escapes_markup_and_control_characters() {
        assert_eq!(escape("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&apos;");
        assert_eq!(escape("x\ny\u{7f}"), "x\\u000ay\\u007f");
        assert_eq!(escape("Zeit μs"), "Zeit μs");
    }

    #[test]
    fn wide_enumeration_numbers_siblings_together() {
        // root ⊃ (a ⊃ (a1, a2), b ⊃ b1): depth-first root a a1 a2 b b1,
        // wide root a b a1 a2 b1 (CubeW's and pycubexr's order).
        let mut cube = Cube::new();
        let r = cube.add_region(Region::function("f"));
        let root = cube.add_cnode(None, r).unwrap();
        let a = cube.add_cnode(Some(root), r).unwrap();
        let b = cube.add_cnode(Some(root), r).unwrap();
        let a1 = cube.add_cnode(Some(a), r).unwrap();
        let b1 = cube.add_cnode(Some(b), r).unwrap();
        let a2 = cube.add_cnode(Some(a), r).unwrap();
        cube.add_metric(None, Metric::new("m", "m", "sec")).unwrap();
        let n = Numbering::of(&cube);
        let order = |v: &Vec<u32>, ids: &[CnodeId]| -> Vec<u32> {
            ids.iter().map(|c| v[c.0 as usize]).collect()
        };
        let all = [root, a, a1, a2, b, b1];
        assert_eq!(order(&n.cnode, &all), [0, 1, 2, 3, 4, 5]);
        assert_eq!(order(&n.cnode_wide, &all), [0, 1, 3, 4, 2, 5]);
    }

    #[test]
    fn locations_are_numbered_as_the_tree_lists_them() {
        // Added out of tree order: rank 1's thread first.
        let mut cube = Cube::new();
        let machine = cube.add_system_node(None, "m", "machine").unwrap();
        let node = cube.add_system_node(Some(machine), "n", "node").unwrap();
        let p0 = cube.add_process(node, "rank 0", 0).unwrap();
        let p1 = cube.add_process(node, "rank 1", 1).unwrap();
        let l1 = cube.add_location(p1, "t", 0).unwrap();
        let l0 = cube.add_location(p0, "t", 0).unwrap();
        let n = Numbering::of(&cube);
        assert_eq!(n.location[l0.0 as usize], 0);
        assert_eq!(n.location[l1.0 as usize], 1);
    }
}
