//! The checks of a node that a window query follows, against the TreeDir and
//! the stub that led to it (S2-TREE-002 and S2-DIR-003 of `check`).

use super::*;

/// Offset of each stub inside its node's block (node header, both drawable lists
/// and the counts before them).
pub(super) fn stub_offsets(n: &TreeNodeBody, base: u64, v206: bool) -> Vec<u64> {
    let mut at = base
        + 34
        + 4
        + n.nestless.iter().map(Drawable::disk_len).sum::<u64>()
        + 4
        + n.nestable.iter().map(Drawable::disk_len).sum::<u64>()
        + 4;
    n.stubs
        .iter()
        .map(|s| {
            let here = at;
            at += s.disk_len(v206);
            here
        })
        .collect()
}

impl<R: Read + Seek> Slog2Reader<R> {
    /// Whether a node read at `ptr` (stored at `ptr_at`) fits the tree: the stub
    /// that led to it (if any) names a child of its parent that the TreeDir holds
    /// at `ptr`, and the node agrees with the TreeDir entry of that ID (of the
    /// TreeDir's root for the root). These are the checks of S2-TREE-002 and
    /// S2-DIR-003, at the offsets `check` reports. A file with an empty TreeDir
    /// is not compared with it.
    pub(super) fn check_followed(
        &mut self,
        h: &NodeHeader,
        ptr: FileBlockPtr,
        ptr_at: u64,
        stub: Option<(NodeId, NodeId)>,
        k: i32,
    ) -> Result<()> {
        let h = *h;
        let id = h.id;
        let base = ptr.offset as u64;
        let bad = |offset: u64, problem: TreeProblem| Error::BadTree {
            offset,
            node: id,
            problem,
        };
        let cache = self.tree_index();
        if cache.dir.is_empty() {
            return Ok(());
        }
        let want = match stub {
            Some((parent, sid)) => {
                if sid.xpos.checked_div(k) != Some(parent.xpos) {
                    return Err(bad(
                        ptr_at - 6,
                        TreeProblem::NotAChild {
                            stub: sid,
                            parent,
                            children: k,
                        },
                    ));
                }
                match cache.dir.get(&sid) {
                    None => return Err(bad(ptr_at - 6, TreeProblem::NotInTreeDir { stub: sid })),
                    Some(c) if c.ptr != ptr => {
                        return Err(bad(
                            ptr_at,
                            TreeProblem::PointsElsewhere {
                                stub: sid,
                                ptr,
                                child: c.ptr,
                            },
                        ))
                    }
                    Some(_) => sid,
                }
            }
            None => match cache.root {
                Some(r) => r,
                None => return Ok(()),
            },
        };
        let Some(e) = cache.dir.get(&want) else {
            return Ok(());
        };
        if stub.is_none() && e.ptr != ptr {
            return Err(bad(
                ptr_at,
                TreeProblem::RootElsewhere {
                    ptr,
                    root: want,
                    entry: e.ptr,
                },
            ));
        }
        if id != want {
            return Err(bad(
                base + 16,
                TreeProblem::IdDisagrees {
                    block: base,
                    found: id,
                    want,
                },
            ));
        }
        if e.ptr != ptr || h.ptr != ptr {
            return Err(bad(
                base + 22,
                TreeProblem::PointerDisagrees {
                    node: id,
                    read: ptr,
                    own: h.ptr,
                    entry: e.ptr,
                },
            ));
        }
        if e.earliest.to_bits() != h.earliest.to_bits() || e.latest.to_bits() != h.latest.to_bits()
        {
            return Err(bad(
                base,
                TreeProblem::BoxDisagrees {
                    node: id,
                    own: [h.earliest, h.latest],
                    entry: [e.earliest, e.latest],
                },
            ));
        }
        Ok(())
    }

    /// The stubs of a node read that the query does not follow: the node has stubs
    /// iff it is above the leaves (S2-TREE-001/002, at the stub count), and each
    /// stub not followed names a child that the TreeDir holds (S2-TREE-002, at the
    /// stub's ID field). Its pointer is not looked at.
    pub(super) fn check_stubs(
        &mut self,
        id: NodeId,
        n_stubs: usize,
        count_at: u64,
        unfollowed: &[(NodeHeader, u64)],
        k: i32,
    ) -> Result<()> {
        let bad = |offset: u64, problem: TreeProblem| Error::BadTree {
            offset,
            node: id,
            problem,
        };
        if id.depth > 0 && n_stubs == 0 {
            return Err(bad(count_at, TreeProblem::NoStubs { node: id }));
        }
        if id.depth == 0 && n_stubs > 0 {
            return Err(bad(count_at, TreeProblem::LeafWithStubs { node: id }));
        }
        let dir = &self.tree_index().dir;
        if dir.is_empty() {
            return Ok(());
        }
        for (h, at) in unfollowed {
            let sid = h.id;
            if Some(sid.depth) != id.depth.checked_sub(1)
                || sid.xpos.checked_div(k) != Some(id.xpos)
            {
                return Err(bad(
                    at + 16,
                    TreeProblem::NotAChild {
                        stub: sid,
                        parent: id,
                        children: k,
                    },
                ));
            }
            if dir.get(&sid).is_none() {
                return Err(bad(at + 16, TreeProblem::NotInTreeDir { stub: sid }));
            }
            // The pointer of a stub not followed is not looked at (a query reads
            // nothing it does not need).
        }
        Ok(())
    }
}
