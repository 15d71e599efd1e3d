//! The rules about the file as a whole: header, legend, line-ID maps, tree
//! directory and the places of the blocks (spec/slog2.md).

use super::*;

pub(super) fn file_rules(r: &FileParts, cx: &mut Ctx) {
    let h = r.header.clone();
    let v206 = r.version.is_v206();
    let at = |a: u64| r.pointer_at(a);
    if !v206 {
        cx.add(Problem::OldVersion, 2, None, Detail::OldVersion);
    }
    if h.num_children_per_node < 2 {
        cx.add(
            Problem::FewChildren,
            12,
            None,
            Detail::FewChildren {
                children: h.num_children_per_node,
            },
        );
    }
    for (pointer, p, field) in [
        (HeaderPointer::Categories, h.categories, CATEGORIES_AT),
        (HeaderPointer::LineIdMaps, h.lineidmaps, LINEIDMAPS_AT),
        (HeaderPointer::TreeRoot, h.treeroot, TREEROOT_AT),
        (HeaderPointer::TreeDir, h.treedir, TREEDIR_AT),
    ] {
        if p.is_null() {
            cx.add(
                Problem::NullPointer,
                at(field),
                None,
                Detail::NullPointer { pointer },
            );
        }
    }
    for (p, t) in [
        (
            r.categories.map(|c| (c.ptr, c.trailing.len())),
            Part::CategoryMap,
        ),
        (
            r.line_id_maps.map(|c| (c.ptr, c.trailing.len())),
            Part::LineIdMaps,
        ),
        (r.tree_dir.map(|c| (c.ptr, c.trailing.len())), Part::TreeDir),
    ] {
        if let Some((ptr, n)) = p.filter(|p| p.1 > 0) {
            cx.add(
                Problem::TrailingBytes,
                ptr.offset as u64 + ptr.size as u64 - n as u64,
                None,
                Detail::TrailingBytes { block: t, bytes: n },
            );
        }
    }
    for (pointer, p, field) in [
        (HeaderPointer::MethodDefs, h.methoddefs, 36u64),
        (HeaderPointer::Annotations, h.annotations, 84),
        (HeaderPointer::Postamble, h.postamble, 96),
    ] {
        if !p.is_null() {
            cx.add(
                Problem::UnusedPointer,
                at(field),
                None,
                Detail::UnusedPointer { pointer },
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
                    Detail::DuplicateCategory { index: cat.index },
                );
            }
            if !(0..=2).contains(&cat.topology) {
                cx.add(
                    Problem::BadTopology,
                    at,
                    None,
                    Detail::BadTopology {
                        index: cat.index,
                        topology: cat.topology,
                    },
                );
            }
            if !cat.types.is_empty() && cat.keys.len() != cat.types.len() + 1 {
                cx.add(
                    Problem::KeyCount,
                    at,
                    None,
                    Detail::KeyCount {
                        index: cat.index,
                        keys: cat.keys.len(),
                        types: cat.types.len(),
                    },
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
                Detail::NoLineIdMap,
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
                        Detail::BadLineIdMap {
                            title: map.title.text(),
                            columns: map.ncols,
                            duplicate_rows: dup,
                        },
                    );
                }
            }
        }
    }
    let entries: &[TreeDirEntry] = r.tree_dir.map_or(&[][..], |t| &t.value.entries[..]);
    // The entries by ID, one per ID (the last of the TreeDir's with that ID),
    // in ID order: a copy of a TreeDir in Java's order, its depths reversed.
    let by_id = crate::window::tree_index::by_id(entries);
    let dir_at = (h.treedir.offset.max(0) as u64).saturating_add(4);
    if by_id.len() != entries.len() {
        cx.add(
            Problem::BadDirId,
            dir_at,
            None,
            Detail::SharedDirIds {
                entries: entries.len() - by_id.len(),
            },
        );
    }
    for (i, e) in entries.iter().enumerate() {
        if e.id.depth < 0 || e.id.xpos < 0 {
            cx.add(
                Problem::BadDirId,
                dir_at + 34 * i as u64,
                Some(e.id),
                Detail::NegativeDirId { id: e.id },
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
    // Stable (the same order: equal tuples are alike), and near linear over
    // the few ascending runs of a TreeDir's pointers.
    blocks.sort();
    let mut reach: Option<(u64, Option<usize>)> = None;
    for &(start, end, entry) in &blocks {
        if let Some((until, holder)) = reach.filter(|r| start < r.0) {
            if let Some(i) = entry.or(holder) {
                let e = &entries[i];
                cx.add(
                    Problem::DirMismatch,
                    dir_at + 34 * i as u64 + 22,
                    Some(e.id),
                    Detail::BlocksOverlap {
                        id: e.id,
                        ptr: e.ptr,
                        other_end: until,
                    },
                );
            }
        }
        if reach.is_none_or(|r| end > r.0) {
            reach = Some((end, entry));
        }
    }
    if !entries.is_empty() && !entries.iter().any(|e| e.id.depth == 0) {
        cx.add(Problem::NoRoot, dir_at, None, Detail::NoRoot);
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
                Detail::RootMismatch {
                    treeroot: h.treeroot,
                    root: root.id,
                    root_ptr: root.ptr,
                },
            );
        }
        if root.id.depth != h.max_treedepth {
            cx.add(
                Problem::MaxTreeDepth,
                18,
                Some(root.id),
                Detail::MaxTreeDepth {
                    header: h.max_treedepth,
                    root: root.id.depth,
                },
            );
        }
    }
    // Same-depth nodes: xpos in time order, no overlap.
    let mut prev: Option<&TreeDirEntry> = None;
    for (i, e) in by_id.iter().enumerate() {
        if let Some(p) = prev.filter(|p| p.id.depth == e.id.depth) {
            if e.earliest < p.latest || e.earliest < p.earliest {
                let at =
                    dir_at + 34 * entries.iter().position(|x| x.id == e.id).unwrap_or(i) as u64;
                cx.add(
                    Problem::NodesOverlap,
                    at,
                    Some(e.id),
                    Detail::NodesOverlap {
                        id: e.id,
                        earliest: e.earliest,
                        previous: p.id,
                        previous_latest: p.latest,
                    },
                );
            }
        }
        prev = Some(e);
    }
}
