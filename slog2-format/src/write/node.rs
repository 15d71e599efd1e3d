//! Building a closed tree node's bytes: category weights, the children's
//! shadows merged in, both drawable lists sorted, exclusive ratios sealed, the
//! drawables and the children's stubs serialised. The tree writer hands closed
//! nodes over as [`NodeTask`]s; a [`Builder`] runs on the writer's thread or on
//! the sink's (so building overlaps placing the next drawables).

use super::prim::Prim;
use super::shadow::{order_key, ordered, SealScratch, ShadowBuf, WeightPool, STUB_PTR_AT};
use super::sink::NodeJob;
use crate::types::{topology, NodeId};

/// A closed node: everything its bytes depend on.
#[derive(Debug)]
pub(crate) struct NodeTask {
    /// Trunk level (0 for a leaf).
    pub level: usize,
    pub id: NodeId,
    pub earliest: f64,
    pub latest: f64,
    /// The file position written into the node's own pointer field until the
    /// sink fills it in.
    pub pos: u64,
    /// The node's sequence number (its stub names it).
    pub seq: u32,
    /// Java's node byte size (for the buffer).
    pub bytes: u64,
    pub prims: Vec<Prim>,
    /// The shadow of each primitive.
    pub shadow_of: Vec<u32>,
    /// The node's shadows, box end set.
    pub shadows: ShadowBuf,
}

/// Builds nodes in the order they close, keeping each level's sealed children
/// until their parent is built.
#[derive(Debug, Default)]
pub(crate) struct Builder {
    /// A node's primitives being sorted (earliest time in the high 64 bits,
    /// index in the low 32): arrows and events, states.
    keys: [Vec<u128>; 2],
    /// Order keys of a stub's shadows being sorted.
    stub_keys: Vec<(u128, u128)>,
    seal: SealScratch,
    /// Weight lists of written stubs, for new shadows.
    pool: WeightPool,
    /// Per level: the sealed buffers of the nodes built since the parent at the
    /// next level was last built (that parent's stubs).
    stubs: Vec<Vec<ShadowBuf>>,
}

impl Builder {
    /// Builds `t`: returns its bytes and stub pointers; keeps its sealed shadow
    /// buffer as a stub of the next level.
    pub fn build(&mut self, t: NodeTask) -> NodeJob {
        let NodeTask {
            level,
            id,
            earliest,
            latest,
            pos,
            seq,
            bytes,
            prims,
            shadow_of,
            mut shadows,
        } = t;
        if self.stubs.len() < level + 2 {
            self.stubs.resize_with(level + 2, Vec::new);
        }
        shadows.init_weights(&prims, &shadow_of, &mut self.seal, &mut self.pool);
        let mut stubs = std::mem::take(&mut self.stubs[level]);
        for s in &stubs {
            shadows.merge(s, &mut self.pool);
        }
        // Both drawable lists in INCRE_STARTTIME_ORDER (ties in arrival order, as
        // Java's stable sort leaves them): sorted on the earliest time and the
        // index, then each run of equal earliest times on the whole key.
        let [others, states] = &mut self.keys;
        others.clear();
        states.clear();
        for (j, p) in prims.iter().enumerate() {
            let list = if p.topology == topology::STATE {
                &mut *states
            } else {
                &mut *others
            };
            list.push((ordered(p.earliest()) as u128) << 64 | j as u128);
        }
        for list in [&mut *others, &mut *states] {
            list.sort_unstable();
            let mut i = 0;
            while i < list.len() {
                let t = list[i] >> 64;
                let mut k = i + 1;
                while k < list.len() && list[k] >> 64 == t {
                    k += 1;
                }
                if k - i > 1 {
                    list[i..k].sort_unstable_by_key(|&x| {
                        let j = x as u32;
                        order_key(&prims[j as usize], j)
                    });
                }
                i = k;
            }
        }
        shadows.seal(&prims, &shadow_of, states, &mut self.seal);

        // The drawables (Java's node size counts only them), then the stubs.
        let stub_bytes: usize = 4 + stubs.iter().map(ShadowBuf::stub_len).sum::<usize>();
        let mut buf = Vec::with_capacity(bytes as usize + stub_bytes);
        buf.extend_from_slice(&earliest.to_be_bytes());
        buf.extend_from_slice(&latest.to_be_bytes());
        buf.extend_from_slice(&id.depth.to_be_bytes());
        buf.extend_from_slice(&id.xpos.to_be_bytes());
        buf.extend_from_slice(&(pos as i64).to_be_bytes());
        buf.extend_from_slice(&0i32.to_be_bytes()); // size, filled in when placed
        for list in [&*others, &*states] {
            buf.extend_from_slice(&(list.len() as i32).to_be_bytes());
            for &x in list {
                prims[x as u32 as usize].write_tagged(&mut buf);
            }
        }
        buf.extend_from_slice(&(stubs.len() as i32).to_be_bytes());
        let mut stub_ptrs = Vec::with_capacity(stubs.len());
        for s in &mut stubs {
            stub_ptrs.push((buf.len() + STUB_PTR_AT, s.seq));
            s.write_stub(&mut buf, &mut self.stub_keys);
        }
        for s in stubs.drain(..) {
            self.pool.give(s);
        }
        self.stubs[level] = stubs;
        shadows.id = id;
        shadows.seq = seq;
        self.stubs[level + 1].push(shadows);
        NodeJob {
            bytes: buf,
            stubs: stub_ptrs,
        }
    }

    /// The sealed buffer of the last node built at `level` (after the root:
    /// the root's, at the level above it).
    pub fn take_sealed(&mut self, level: usize) -> Option<ShadowBuf> {
        self.stubs.get_mut(level)?.pop()
    }
}
