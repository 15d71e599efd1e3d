//! The rules about each tree node: its bytes, its drawables (times in the node's
//! box, categories and lines that resolve, order) and its children's shadows.

use super::*;

pub(super) fn node_rules<R: Read + Seek>(
    r: &mut Slog2Reader<R>,
    cx: &mut Ctx,
) -> Result<(), Error> {
    let h = r.header().clone();
    let v206 = r.version().is_v206();
    let cats: HashMap<i32, (i32, usize)> = r
        .categories()
        .map(|c| {
            c.value
                .categories
                .iter()
                .map(|c| (c.index, (c.topology, c.types.len())))
                .collect()
        })
        .unwrap_or_default();
    let formats: HashMap<i32, Vec<u8>> = r
        .categories()
        .map(|c| {
            c.value
                .categories
                .iter()
                .map(|c| (c.index, c.types.clone()))
                .collect()
        })
        .unwrap_or_default();
    let maps: Vec<(String, HashSet<i32>)> = r
        .line_id_maps()
        .map(|m| {
            m.value
                .maps
                .iter()
                .map(|m| (m.title.text(), m.rows.iter().map(|r| r.line_id).collect()))
                .collect()
        })
        .unwrap_or_default();
    let entries: Vec<TreeDirEntry> = r
        .tree_dir()
        .map(|t| t.value.entries.clone())
        .unwrap_or_default();
    let by_id: BTreeMap<NodeId, TreeDirEntry> = entries.iter().map(|e| (e.id, *e)).collect();
    let mut largest = [h.categories, h.lineidmaps, h.treedir]
        .iter()
        .filter(|p| !p.is_null())
        .map(|p| p.size)
        .max()
        .unwrap_or(0);
    // A root pointer that is not the TreeDir's root: Jumpshot and window queries
    // read that block, so it must parse (the mismatch itself is S2-DIR-002).
    if !h.treeroot.is_null() && !entries.iter().any(|e| e.ptr == h.treeroot) {
        r.read_node(h.treeroot)?;
    }
    let k = h.num_children_per_node.max(1) as i32;
    let preview = |cat: i32| cats.contains_key(&cat) && cat < 0;
    for e in &entries {
        let node = r.read_node(e.ptr)?;
        let n = &node.value;
        largest = largest.max(e.ptr.size);
        if r.version().is_compressed() {
            // max_buffer_bytesize bounds the inflated node too.
            let plain = 34
                + 4
                + n.nestless.iter().map(Drawable::disk_len).sum::<u64>()
                + 4
                + n.nestable.iter().map(Drawable::disk_len).sum::<u64>()
                + 4
                + n.stubs.iter().map(|s| s.disk_len(v206)).sum::<u64>()
                + node.trailing.len() as u64;
            largest = largest.max(i32::try_from(plain).unwrap_or(i32::MAX));
        }
        let base = e.ptr.offset as u64;
        let id = Some(e.id);
        if !node.trailing.is_empty() {
            cx.add(
                Problem::TrailingBytes,
                base + e.ptr.size as u64 - node.trailing.len() as u64,
                id,
                format!("{} bytes after the node's content", node.trailing.len()),
            );
        }
        if n.header.ptr != e.ptr {
            cx.add(
                Problem::DirMismatch,
                base + 22,
                id,
                format!(
                    "the node says it is {}@{} but was read from {}@{}",
                    n.header.ptr.size, n.header.ptr.offset, e.ptr.size, e.ptr.offset
                ),
            );
        }
        if n.header.id != e.id
            || n.header.earliest.to_bits() != e.earliest.to_bits()
            || n.header.latest.to_bits() != e.latest.to_bits()
        {
            // At the ID field when the ID differs, else at the box.
            cx.add(
                Problem::DirMismatch,
                if n.header.id != e.id { base + 16 } else { base },
                id,
                format!(
                    "TreeDir says ({},{}) [{:?},{:?}], the node header says ({},{}) [{:?},{:?}]",
                    e.id.depth,
                    e.id.xpos,
                    e.earliest,
                    e.latest,
                    n.header.id.depth,
                    n.header.id.xpos,
                    n.header.earliest,
                    n.header.latest
                ),
            );
        }
        // Real drawables.
        let mut off = base + 34;
        for list in [&n.nestless, &n.nestable] {
            off += 4;
            let mut last = None;
            for d in list.iter() {
                let key = drawable_key(d);
                in_start_order(cx, &mut last, key, off, id, "drawable");
                let (ne, nl) = (n.header.earliest, n.header.latest);
                let outside = |p: &Primitive| {
                    p.vertices
                        .iter()
                        .any(|v| !crate::validate::inside(v.time, ne, nl))
                };
                let out = match d {
                    Drawable::Primitive(p) => outside(p),
                    Drawable::Composite(c) => c.primitives.iter().any(outside),
                };
                if out {
                    cx.add(
                        Problem::OutsideNode,
                        off,
                        id,
                        format!(
                            "drawable [{:?},{:?}] lies outside the node's box [{:?},{:?}]",
                            key.0, key.1, n.header.earliest, n.header.latest
                        ),
                    );
                }
                let prims: Vec<&Primitive> = match d {
                    Drawable::Primitive(p) => vec![p],
                    Drawable::Composite(c) => {
                        if c.primitives.is_empty() {
                            cx.add(Problem::Empty, off, id, "a composite has no parts".into());
                        }
                        if !cats.contains_key(&c.category) {
                            cx.add(
                                Problem::UnknownCategory,
                                off + 1,
                                id,
                                format!(
                                    "composite category {} is not in the CategoryMap",
                                    c.category
                                ),
                            );
                        }
                        c.primitives.iter().collect()
                    }
                };
                let infos: Vec<(i32, &JStr)> = match d {
                    Drawable::Primitive(p) => vec![(p.category, &p.info)],
                    Drawable::Composite(c) => std::iter::once((c.category, &c.info))
                        .chain(c.primitives.iter().map(|p| (p.category, &p.info)))
                        .collect(),
                };
                for (cat, info) in infos {
                    let Some(types) = formats.get(&cat) else {
                        continue;
                    };
                    match (types.is_empty(), info.bytes.is_empty()) {
                        (true, true) => {}
                        (false, false) => match crate::info::decode(types, &info.bytes) {
                            Ok(_) => {}
                            Err(e @ crate::info::InfoError::UnknownFormat { .. }) => cx.add(
                                Problem::BadFormat,
                                off + 1,
                                id,
                                format!("category {cat}: {e}"),
                            ),
                            Err(e) => cx.add(
                                Problem::ShortInfo,
                                off + 1,
                                id,
                                format!("category {cat}: {e}"),
                            ),
                        },
                        (false, true) => cx.add(
                            Problem::InfoMismatch,
                            off + 1,
                            id,
                            format!("category {cat} has formats but the drawable has no info"),
                        ),
                        (true, false) => cx.add(
                            Problem::InfoMismatch,
                            off + 1,
                            id,
                            format!(
                                "the drawable has {} info bytes but category {cat} has no formats",
                                info.bytes.len()
                            ),
                        ),
                    }
                }
                for p in prims {
                    if p.vertices.is_empty() {
                        cx.add(
                            Problem::Empty,
                            off,
                            id,
                            format!("a primitive of category {} has no vertices", p.category),
                        );
                    }
                    match cats.get(&p.category) {
                        None => cx.add(Problem::UnknownCategory, off + 1, id, format!("category {} is not in the CategoryMap (Jumpshot invents an \"UnknownType\" state)", p.category)),
                        Some(&(topo, _)) => {
                            let want = if topo == topology::EVENT { 1 } else { 2 };
                            if p.vertices.len() != want {
                                cx.add(Problem::VertexCount, off + 1, id, format!("a {} of category {} has {} vertices", topology::name(topo), p.category, p.vertices.len()));
                            }
                        }
                    }
                    for c in &p.vertices {
                        for (title, rows) in &maps {
                            if !rows.contains(&c.line_id) {
                                cx.add(
                                    Problem::UnknownLineId,
                                    off + 1,
                                    id,
                                    format!(
                                        "line ID {} is missing from the line-ID map {title:?}",
                                        c.line_id
                                    ),
                                );
                            }
                        }
                    }
                }
                off += d.disk_len();
            }
        }
        // Stubs.
        off += 4;
        if e.id.depth > 0 && n.stubs.is_empty() {
            cx.add(
                Problem::NoStubs,
                off - 4,
                id,
                format!(
                    "node ({},{}) has depth {} but no child stubs",
                    e.id.depth, e.id.xpos, e.id.depth
                ),
            );
        }
        if e.id.depth == 0 && !n.stubs.is_empty() {
            cx.add(
                Problem::BadStub,
                off - 4,
                id,
                "a leaf has child stubs".into(),
            );
        }
        for s in &n.stubs {
            let sid = s.header.id;
            if Some(sid.depth) != e.id.depth.checked_sub(1)
                || sid.xpos.checked_div(k) != Some(e.id.xpos)
            {
                cx.add(
                    Problem::BadStub,
                    off + 16,
                    id,
                    format!(
                        "stub ({},{}) is not a child of node ({},{}) with {k} children per node",
                        sid.depth, sid.xpos, e.id.depth, e.id.xpos
                    ),
                );
            } else {
                match by_id.get(&sid) {
                    None => cx.add(
                        Problem::BadStub,
                        off + 16,
                        id,
                        format!("stub ({},{}) has no TreeDir entry", sid.depth, sid.xpos),
                    ),
                    Some(c) if c.ptr != s.header.ptr => cx.add(
                        Problem::BadStub,
                        off + 22,
                        id,
                        format!(
                            "stub ({},{}) points at {}@{} but the child is at {}@{}",
                            sid.depth,
                            sid.xpos,
                            s.header.ptr.size,
                            s.header.ptr.offset,
                            c.ptr.size,
                            c.ptr.offset
                        ),
                    ),
                    _ => {}
                }
            }
            let mut so = off + 34;
            for list in [&s.nestless, &s.nestable] {
                so += 4;
                let mut last = None;
                for sh in list.iter() {
                    in_start_order(cx, &mut last, shadow_key(sh), so, id, "shadow");
                    if !preview(sh.category) {
                        cx.add(
                            Problem::ShadowCategory,
                            so,
                            id,
                            format!(
                                "shadow category {} is not a preview category of the map",
                                sh.category
                            ),
                        );
                    }
                    if v206 {
                        let sum: i64 = sh
                            .weights
                            .iter()
                            .filter_map(|w| w.count)
                            .fold(0i64, |a, c| a.saturating_add(c));
                        if !sh.weights.is_empty() && sum != sh.num_real_objs {
                            cx.add(
                                Problem::WeightCounts,
                                so,
                                id,
                                format!(
                                    "weight counts add up to {sum}, num_real_objs is {}",
                                    sh.num_real_objs
                                ),
                            );
                        }
                    }
                    if sh.weights.is_empty() {
                        cx.add(
                            Problem::NoWeights,
                            so,
                            id,
                            "a shadow has no category weights".into(),
                        );
                    }
                    for w in &sh.weights {
                        if !cats.contains_key(&w.category) {
                            cx.add(Problem::WeightCategory, so, id, format!("a shadow weight names category {}, which is not in the CategoryMap", w.category));
                        }
                    }
                    so += sh.disk_len(v206);
                }
            }
            off += s.disk_len(v206);
        }
    }
    if h.max_buffer_bytesize > largest && !entries.is_empty() {
        cx.add(
            Problem::BufferTooLarge,
            20,
            None,
            format!(
                "max_buffer_bytesize is {} but the largest block has {} bytes",
                h.max_buffer_bytesize, largest
            ),
        );
    }
    Ok(())
}

/// Finds [`Problem::Unsorted`] at `at` when the item of `key` (a `what`: a
/// drawable or a shadow of one list) comes before the one of `last` in
/// [`start_order`], and makes `key` the last.
fn in_start_order(
    cx: &mut Ctx,
    last: &mut Option<OrderKey>,
    key: OrderKey,
    at: u64,
    id: Option<NodeId>,
    what: &str,
) {
    if let Some(l) = last.replace(key) {
        if start_order(l, key) == Ordering::Greater {
            cx.add(
                Problem::Unsorted,
                at,
                id,
                format!(
                    "a {what} starting at {:?} follows one starting at {:?}",
                    key.0, l.0
                ),
            );
        }
    }
}
