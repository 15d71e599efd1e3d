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
//! The cache also keeps, for any file, what the window query found in each
//! upper node it read (the places of its drawables and stubs, a few hundred
//! bytes where the node may hold megabytes of shadows): a later query then
//! reads from the file only what it shows of that node (spec/queries.md §2.2).
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

use crate::window::node_scan::NodeScan;
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
    /// Scanned upper nodes by offset and the checks they passed.
    scans: HashMap<(i64, u8), (Arc<NodeScan>, u64)>,
    bytes: usize,
    tick: u64,
}

impl Inner {
    /// Drops the least recently used entries until a quarter of `limit` is
    /// free, when over it.
    fn shrink(&mut self, limit: usize) {
        if self.bytes <= limit {
            return;
        }
        /// What an entry is: a node's bytes or a node's scan.
        #[derive(PartialEq, Eq, PartialOrd, Ord)]
        enum Held {
            Bytes(i64),
            Scan(i64, u8),
        }
        let mut by_age: Vec<(u64, Held)> = Vec::new();
        by_age.extend(self.nodes.iter().map(|(&k, v)| (v.1, Held::Bytes(k))));
        by_age.extend(
            self.scans
                .iter()
                .map(|(&(k, l), v)| (v.1, Held::Scan(k, l))),
        );
        by_age.sort_unstable();
        for (_, held) in by_age {
            if self.bytes <= limit - limit / 4 {
                break;
            }
            match held {
                Held::Bytes(k) => {
                    if let Some((b, _)) = self.nodes.remove(&k) {
                        self.bytes -= b.len();
                    }
                }
                Held::Scan(k, l) => {
                    if let Some((s, _)) = self.scans.remove(&(k, l)) {
                        self.bytes -= s.size();
                    }
                }
            }
        }
    }
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

    /// How many nodes it holds (their bytes, or what a query found in them).
    pub fn len(&self) -> usize {
        self.inner
            .lock()
            .map_or(0, |i| i.nodes.len() + i.scans.len())
    }

    /// Whether it holds no node.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of the nodes it holds (and of what queries found in them).
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
        i.shrink(self.limit);
    }

    /// The scan of the upper node at `offset` made with checks `level`, if
    /// held.
    pub(crate) fn get_scan(&self, offset: i64, level: u8) -> Option<Arc<NodeScan>> {
        let mut i = self.inner.lock().ok()?;
        i.tick += 1;
        let tick = i.tick;
        let (scan, used) = i.scans.get_mut(&(offset, level))?;
        *used = tick;
        Some(Arc::clone(scan))
    }

    /// Keeps `scan` as the scan of the node at `offset` with checks `level`,
    /// within the limit as [`put`](Self::put) keeps bytes.
    pub(crate) fn put_scan(&self, offset: i64, level: u8, scan: Arc<NodeScan>) {
        let size = scan.size();
        if size > self.limit / 4 {
            return;
        }
        let Ok(mut i) = self.inner.lock() else { return };
        i.tick += 1;
        let tick = i.tick;
        if let Some((old, _)) = i.scans.insert((offset, level), (scan, tick)) {
            i.bytes -= old.size();
        }
        i.bytes += size;
        i.shrink(self.limit);
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
