//! The rules about the file as a whole: header, legend, line-ID maps, tree
//! directory and the places of the blocks (spec/slog2.md).

use super::*;

pub(super) fn file_rules(r: &FileParts, cx: &mut Ctx) {
    let h = r.header.clone();
    let v206 = r.version.is_v206();
    let at = |a: u64| r.pointer_at(a);
    if !v206 {
        cx.add(
            Problem::OldVersion,
            2,
            None,
            "version is \"SLOG 2.0.5\"; convert it with `mpelog convert FILE -o NEW.slog2`".into(),
        );
    }
    if h.num_children_per_node < 2 {
        cx.add(
            Problem::FewChildren,
            12,
            None,
            format!("num_children_per_node is {}", h.num_children_per_node),
        );
    }
    for (name, p, field) in [
        ("categories", h.categories, CATEGORIES_AT),
        ("lineidmaps", h.lineidmaps, LINEIDMAPS_AT),
        ("treeroot", h.treeroot, TREEROOT_AT),
        ("treedir", h.treedir, TREEDIR_AT),
    ] {
        if p.is_null() {
            cx.add(
                Problem::NullPointer,
                at(field),
                None,
                format!("the {name} pointer is NULL; Jumpshot-4 exits"),
            );
        }
    }
    for (p, t) in [
        (
            r.categories.map(|c| (c.ptr, c.trailing.len())),
            "CategoryMap",
        ),
        (
            r.line_id_maps.map(|c| (c.ptr, c.trailing.len())),
            "LineIDMapList",
        ),
        (r.tree_dir.map(|c| (c.ptr, c.trailing.len())), "TreeDir"),
    ] {
        if let Some((ptr, n)) = p.filter(|p| p.1 > 0) {
            cx.add(
                Problem::TrailingBytes,
                ptr.offset as u64 + ptr.size as u64 - n as u64,
                None,
                format!("the {t} block has {n} bytes after its content"),
            );
        }
    }
    for (name, p, field) in [
        ("methoddefs", h.methoddefs, 36u64),
        ("annotations", h.annotations, 84),
        ("postamble", h.postamble, 96),
    ] {
        if !p.is_null() {
            cx.add(
                Problem::UnusedPointer,
                at(field),
                None,
                format!("the {name} pointer is not NULL; no reader uses it"),
            );
        }
    }
    if let Some(c) = r.categories {
        let mut seen = HashSet::new();
        let mut at = c.ptr.offset as u64 + 4;
        for cat in &c.value.categories {
            if !seen.insert(cat.index) {
                cx.add(
                    Problem::DuplicateCategory,
                    at,
                    None,
                    format!("category index {} appears twice", cat.index),
                );
            }
            if !(0..=2).contains(&cat.topology) {
                cx.add(
                    Problem::BadTopology,
                    at,
                    None,
                    format!("category {} has topology code {}", cat.index, cat.topology),
                );
            }
            if !cat.types.is_empty() && cat.keys.len() != cat.types.len() + 1 {
                cx.add(
                    Problem::KeyCount,
                    at,
                    None,
                    format!(
                        "category {} has {} keys for {} types",
                        cat.index,
                        cat.keys.len(),
                        cat.types.len()
                    ),
                );
            }
            at += category_len(cat);
        }
    }
    match r.line_id_maps {
        None => {}
        Some(m) if m.value.maps.is_empty() => {
            cx.add(
                Problem::NoLineIdMap,
                m.ptr.offset as u64,
                None,
                "the LineIDMapList holds no map".into(),
            );
        }
        Some(m) => {
            for map in &m.value.maps {
                let mut ids = HashSet::new();
                let dup = map.rows.iter().any(|r| !ids.insert(r.line_id));
                if dup || map.ncols < 1 {
                    cx.add(
                        Problem::BadLineIdMap,
                        m.ptr.offset as u64,
                        None,
                        format!(
                            "line-ID map {:?} has {} columns{}",
                            map.title.text(),
                            map.ncols,
                            if dup { " and duplicate rows" } else { "" }
                        ),
                    );
                }
            }
        }
    }
    let entries: Vec<TreeDirEntry> = r
        .tree_dir
        .map(|t| t.value.entries.clone())
        .unwrap_or_default();
    let by_id: BTreeMap<NodeId, TreeDirEntry> = entries.iter().map(|e| (e.id, *e)).collect();
    let dir_at = (h.treedir.offset.max(0) as u64).saturating_add(4);
    if by_id.len() != entries.len() {
        cx.add(
            Problem::BadDirId,
            dir_at,
            None,
            format!(
                "{} TreeDir entries share an ID",
                entries.len() - by_id.len()
            ),
        );
    }
    for (i, e) in entries.iter().enumerate() {
        if e.id.depth < 0 || e.id.xpos < 0 {
            cx.add(
                Problem::BadDirId,
                dir_at + 34 * i as u64,
                Some(e.id),
                format!(
                    "TreeDir entry ({},{}) has a negative depth or xpos",
                    e.id.depth, e.id.xpos
                ),
            );
        }
    }
    // Blocks that overlap: a TreeDir pointer into another block cannot be the
    // pointer of a node (S2-DIR-003; the later-starting block's entry is blamed, at
    // its pointer field; ties: the later entry).
    let mut blocks: Vec<(u64, u64, Option<usize>)> = entries
        .iter()
        .enumerate()
        .filter(|(_, e)| !e.ptr.is_null() && e.ptr.offset >= 0)
        .map(|(i, e)| {
            let start = e.ptr.offset as u64;
            (start, start.saturating_add(e.ptr.size as u64), Some(i))
        })
        .collect();
    for p in [h.categories, h.lineidmaps, h.treedir] {
        if !p.is_null() && p.offset >= 0 {
            let start = p.offset as u64;
            blocks.push((start, start.saturating_add(p.size as u64), None));
        }
    }
    blocks.sort_unstable();
    let mut reach: Option<(u64, Option<usize>)> = None;
    for &(start, end, entry) in &blocks {
        if let Some((until, holder)) = reach.filter(|r| start < r.0) {
            if let Some(i) = entry.or(holder) {
                let e = &entries[i];
                cx.add(
                    Problem::DirMismatch,
                    dir_at + 34 * i as u64 + 22,
                    Some(e.id),
                    format!(
                        "the block of node ({},{}) at {}@{} overlaps another block (which ends at byte {until})",
                        e.id.depth, e.id.xpos, e.ptr.size, e.ptr.offset
                    ),
                );
            }
        }
        if reach.is_none_or(|r| end > r.0) {
            reach = Some((end, entry));
        }
    }
    if !entries.is_empty() && !entries.iter().any(|e| e.id.depth == 0) {
        cx.add(
            Problem::NoRoot,
            dir_at,
            None,
            "no TreeDir entry has depth 0".into(),
        );
    }
    if let Some(root) = entries
        .iter()
        .max_by_key(|e| (e.id.depth, std::cmp::Reverse(e.id.xpos)))
    {
        if root.ptr != h.treeroot {
            cx.add(
                Problem::RootMismatch,
                at(TREEROOT_AT),
                Some(root.id),
                format!(
                    "treeroot points at {}@{} but the TreeDir's root ({},{}) is at {}@{}",
                    h.treeroot.size,
                    h.treeroot.offset,
                    root.id.depth,
                    root.id.xpos,
                    root.ptr.size,
                    root.ptr.offset
                ),
            );
        }
        if root.id.depth != h.max_treedepth {
            cx.add(
                Problem::MaxTreeDepth,
                18,
                Some(root.id),
                format!(
                    "max_treedepth is {} but the root has depth {}",
                    h.max_treedepth, root.id.depth
                ),
            );
        }
    }
    // Same-depth nodes: xpos in time order, no overlap.
    let mut prev: Option<&TreeDirEntry> = None;
    for (i, e) in by_id.values().enumerate() {
        if let Some(p) = prev.filter(|p| p.id.depth == e.id.depth) {
            if e.earliest < p.latest || e.earliest < p.earliest {
                let at =
                    dir_at + 34 * entries.iter().position(|x| x.id == e.id).unwrap_or(i) as u64;
                cx.add(
                    Problem::NodesOverlap,
                    at,
                    Some(e.id),
                    format!(
                        "node ({},{}) starts at {:?}, before node ({},{}) ends at {:?}",
                        e.id.depth, e.id.xpos, e.earliest, p.id.depth, p.id.xpos, p.latest
                    ),
                );
            }
        }
        prev = Some(e);
    }
}
