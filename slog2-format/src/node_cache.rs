//! [`NodeCache`]: decompressed tree nodes kept between queries.
//!
//! A compressed SLOG-2 file (SLOG 2.0.6Z, `spec/slog2-compressed.md`) costs an
//! inflate per node read, which is most of a window query's time. A viewer
//! that zooms and pans reads the same nodes again and again, so a server keeps
//! their decompressed bytes in a cache bounded by bytes, shared by every reader
//! of the file ([`Slog2Reader::set_node_cache`](crate::Slog2Reader::set_node_cache)).
//! A plain file's nodes are not cached: the operating system's page cache
//! holds them already, and reading one is a copy.
//!
//! ```
//! use slog2_format::convert::clog2_to_slog2;
//! use slog2_format::write::TreeOptions;
//! use slog2_format::{frame::Compression, NodeCache, Slog2Reader};
//! use std::io::Cursor;
//! use std::sync::Arc;
//! let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
//! let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
//! let options = TreeOptions::default().compression(Compression::Deflate(2));
//! let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), options, |_| {})?;
//! let bytes = out.into_inner();
//! let cache = Arc::new(NodeCache::new(1 << 20));
//! let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
//! r.set_node_cache(Arc::clone(&cache));
//! let first = r.window(f64::NEG_INFINITY, f64::INFINITY)?;
//! assert!(r.counters().bytes_read > 0 && cache.len() > 0);
//! // A second reader of the same file finds the nodes decompressed already.
//! let mut again = Slog2Reader::new(Cursor::new(&bytes))?;
//! again.set_node_cache(cache);
//! let before = again.counters().bytes_read;
//! let second = again.window(f64::NEG_INFINITY, f64::INFINITY)?;
//! assert_eq!((second.drawables, second.shadows), (first.drawables, first.shadows));
//! assert_eq!(again.counters().bytes_read, before);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Decompressed node bytes by the node's file offset, at most
/// [`limit`](Self::limit) bytes of them; the least recently used go first.
#[derive(Debug)]
pub struct NodeCache {
    limit: usize,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    nodes: HashMap<i64, (Arc<[u8]>, u64)>,
    bytes: usize,
    tick: u64,
}

impl NodeCache {
    /// An empty cache holding at most `limit` bytes of nodes.
    ///
    /// ```
    /// let cache = slog2_format::NodeCache::new(64 << 20);
    /// assert_eq!((cache.limit(), cache.len(), cache.bytes()), (64 << 20, 0, 0));
    /// ```
    pub fn new(limit: usize) -> NodeCache {
        NodeCache {
            limit,
            inner: Mutex::new(Inner::default()),
        }
    }

    /// The most bytes of nodes it holds.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// How many nodes it holds.
    pub fn len(&self) -> usize {
        self.inner.lock().map_or(0, |i| i.nodes.len())
    }

    /// Whether it holds no node.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of the nodes it holds.
    pub fn bytes(&self) -> usize {
        self.inner.lock().map_or(0, |i| i.bytes)
    }

    /// The bytes of the node at file offset `offset`, if held.
    pub(crate) fn get(&self, offset: i64) -> Option<Arc<[u8]>> {
        let mut i = self.inner.lock().ok()?;
        i.tick += 1;
        let tick = i.tick;
        let (bytes, used) = i.nodes.get_mut(&offset)?;
        *used = tick;
        Some(Arc::clone(bytes))
    }

    /// Keeps `bytes` as the node at `offset`; when over the limit, drops the
    /// least recently used nodes until a quarter of the limit is free. A node
    /// larger than a quarter of the limit is not kept.
    pub(crate) fn put(&self, offset: i64, bytes: &[u8]) {
        if bytes.len() > self.limit / 4 {
            return;
        }
        let Ok(mut i) = self.inner.lock() else { return };
        i.tick += 1;
        let tick = i.tick;
        if let Some((old, _)) = i.nodes.insert(offset, (Arc::from(bytes), tick)) {
            i.bytes -= old.len();
        }
        i.bytes += bytes.len();
        if i.bytes > self.limit {
            let mut by_age: Vec<(u64, i64)> = i.nodes.iter().map(|(&k, v)| (v.1, k)).collect();
            by_age.sort_unstable();
            for (_, k) in by_age {
                if i.bytes <= self.limit - self.limit / 4 {
                    break;
                }
                if let Some((b, _)) = i.nodes.remove(&k) {
                    i.bytes -= b.len();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_at_most_its_limit_dropping_the_least_recently_used() {
        let c = NodeCache::new(400);
        for k in 0..4 {
            c.put(k, &[k as u8; 100]);
        }
        assert_eq!((c.len(), c.bytes()), (4, 400));
        // Node 0 used again: the next put drops 1 and 2 (down to 300 bytes).
        assert!(c.get(0).is_some());
        c.put(4, &[4; 100]);
        assert!(c.bytes() <= 300, "{}", c.bytes());
        assert!(c.get(0).is_some() && c.get(4).is_some());
        assert!(c.get(1).is_none() && c.get(2).is_none());
        // Too large to keep.
        c.put(9, &[0; 101]);
        assert!(c.get(9).is_none());
        // The same node again replaces its bytes.
        c.put(4, &[7; 50]);
        assert_eq!(&*c.get(4).unwrap(), &[7; 50][..]);
        assert!(c.bytes() <= 300);
    }
}
