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
                Detail::NodeTrailingBytes {
                    bytes: node.trailing.len(),
                },
            );
        }
        if n.header.ptr != e.ptr {
            cx.add(
                Problem::DirMismatch,
                base + 22,
                id,
                Detail::NodePointer {
                    says: n.header.ptr,
                    read_from: e.ptr,
                },
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
                Detail::NodeHeader {
                    dir_id: e.id,
                    dir_box: [e.earliest, e.latest],
                    node_id: n.header.id,
                    node_box: [n.header.earliest, n.header.latest],
                },
            );
        }
        // Real drawables.
        let mut off = base + 34;
        for list in [&n.nestless, &n.nestable] {
            off += 4;
            let mut last = None;
            for d in list.iter() {
                let key = drawable_key(d);
                in_start_order(cx, &mut last, key, off, id, Drawn::Drawable);
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
                        Detail::OutsideNode {
                            drawable: [key.0, key.1],
                            node_box: [n.header.earliest, n.header.latest],
                        },
                    );
                }
                let prims: Vec<&Primitive> = match d {
                    Drawable::Primitive(p) => vec![p],
                    Drawable::Composite(c) => {
                        if c.primitives.is_empty() {
                            cx.add(Problem::Empty, off, id, Detail::EmptyComposite);
                        }
                        if !cats.contains_key(&c.category) {
                            cx.add(
                                Problem::UnknownCategory,
                                off + 1,
                                id,
                                Detail::UnknownCompositeCategory {
                                    category: c.category,
                                },
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
                            Err(error @ crate::info::InfoError::UnknownFormat { .. }) => cx.add(
                                Problem::BadFormat,
                                off + 1,
                                id,
                                Detail::Info {
                                    category: cat,
                                    error,
                                },
                            ),
                            Err(error) => cx.add(
                                Problem::ShortInfo,
                                off + 1,
                                id,
                                Detail::Info {
                                    category: cat,
                                    error,
                                },
                            ),
                        },
                        (false, true) => cx.add(
                            Problem::InfoMismatch,
                            off + 1,
                            id,
                            Detail::NoInfo { category: cat },
                        ),
                        (true, false) => cx.add(
                            Problem::InfoMismatch,
                            off + 1,
                            id,
                            Detail::UnexpectedInfo {
                                category: cat,
                                bytes: info.bytes.len(),
                            },
                        ),
                    }
                }
                for p in prims {
                    if p.vertices.is_empty() {
                        cx.add(
                            Problem::Empty,
                            off,
                            id,
                            Detail::NoVertices {
                                category: p.category,
                            },
                        );
                    }
                    match cats.get(&p.category) {
                        None => cx.add(
                            Problem::UnknownCategory,
                            off + 1,
                            id,
                            Detail::UnknownCategory {
                                category: p.category,
                            },
                        ),
                        Some(&(topo, _)) => {
                            let want = if topo == topology::EVENT { 1 } else { 2 };
                            if p.vertices.len() != want {
                                cx.add(
                                    Problem::VertexCount,
                                    off + 1,
                                    id,
                                    Detail::VertexCount {
                                        topology: topo,
                                        category: p.category,
                                        vertices: p.vertices.len(),
                                    },
                                );
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
                                    Detail::UnknownLineId {
                                        line_id: c.line_id,
                                        map: title.clone(),
                                    },
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
            cx.add(Problem::NoStubs, off - 4, id, Detail::NoStubs { id: e.id });
        }
        if e.id.depth == 0 && !n.stubs.is_empty() {
            cx.add(Problem::BadStub, off - 4, id, Detail::LeafWithStubs);
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
                    Detail::NotAChild {
                        stub: sid,
                        node: e.id,
                        children: k,
                    },
                );
            } else {
                match by_id.get(&sid) {
                    None => cx.add(
                        Problem::BadStub,
                        off + 16,
                        id,
                        Detail::StubNotInTreeDir { stub: sid },
                    ),
                    Some(c) if c.ptr != s.header.ptr => cx.add(
                        Problem::BadStub,
                        off + 22,
                        id,
                        Detail::StubPointer {
                            stub: sid,
                            ptr: s.header.ptr,
                            child: c.ptr,
                        },
                    ),
                    _ => {}
                }
            }
            let mut so = off + 34;
            for list in [&s.nestless, &s.nestable] {
                so += 4;
                let mut last = None;
                for sh in list.iter() {
                    in_start_order(cx, &mut last, shadow_key(sh), so, id, Drawn::Shadow);
                    if !preview(sh.category) {
                        cx.add(
                            Problem::ShadowCategory,
                            so,
                            id,
                            Detail::ShadowCategory {
                                category: sh.category,
                            },
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
                                Detail::WeightCounts {
                                    sum,
                                    num_real_objs: sh.num_real_objs,
                                },
                            );
                        }
                    }
                    if sh.weights.is_empty() {
                        cx.add(Problem::NoWeights, so, id, Detail::NoWeights);
                    }
                    for w in &sh.weights {
                        if !cats.contains_key(&w.category) {
                            cx.add(
                                Problem::WeightCategory,
                                so,
                                id,
                                Detail::WeightCategory {
                                    category: w.category,
                                },
                            );
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
            Detail::BufferTooLarge {
                max_buffer_bytesize: h.max_buffer_bytesize,
                largest,
            },
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
    drawn: Drawn,
) {
    if let Some(l) = last.replace(key) {
        if start_order(l, key) == Ordering::Greater {
            cx.add(
                Problem::Unsorted,
                at,
                id,
                Detail::Unsorted {
                    drawn,
                    start: key.0,
                    previous_start: l.0,
                },
            );
        }
    }
}
