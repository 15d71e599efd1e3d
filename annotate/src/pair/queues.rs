//! The pairing tables: waiting items per pairing key, oldest first ([`Queues`]),
//! found through a direct-mapped cache of recent keys ([`SlotKey`]).

use rustc_hash::FxHashMap;
use slog2_format::convert::pairing::Waiting;

/// A pairing key with a cheap slot number for [`Queues`]' direct-mapped cache.
pub(super) trait SlotKey: Copy + Eq + std::hash::Hash {
    fn slot(&self) -> usize;
}

impl SlotKey for (i32, i32) {
    #[inline(always)]
    fn slot(&self) -> usize {
        ((self.0 as u32).wrapping_mul(0x9e37_79b9) ^ (self.1 as u32).wrapping_mul(0x85eb_ca6b))
            as usize
            >> 22
    }
}

impl SlotKey for (i32, i32, i32) {
    #[inline(always)]
    fn slot(&self) -> usize {
        ((self.0 as u32).wrapping_mul(0x9e37_79b9)
            ^ (self.1 as u32).wrapping_mul(0x85eb_ca6b)
            ^ (self.2 as u32).wrapping_mul(0xc2b2_ae35)) as usize
            >> 22
    }
}

/// Slots of a [`Queues`] cache (the top 10 bits of a 32-bit slot hash).
const SLOTS: usize = 1 << 10;
/// A free cache slot.
const FREE: u32 = u32::MAX;
/// Queues kept past this many keys are dropped when a leaf starts (every leaf
/// starts from its carry-in block, so nothing is lost).
const MAX_KEYS: usize = 1 << 14;

/// Waiting items per pairing key, oldest first: the queues in one vector,
/// found through a map from key to queue and, first, a direct-mapped cache of
/// recent keys. Queues stay when they empty (a leaf allocates nothing once the
/// tables have grown).
#[derive(Debug)]
pub(super) struct Queues<K, V> {
    cache: Vec<(K, u32)>,
    index: FxHashMap<K, u32>,
    queues: Vec<Fifo<V>>,
    /// The queues pushed to since the last [`clear`](Self::clear) (each
    /// once: when it was empty).
    used: Vec<u32>,
}

/// A first-in first-out queue of small `Copy` items: a vector and the index
/// of its oldest item (simpler than a ring buffer; emptied whenever its last
/// item is taken, compacted when most of it has been taken).
#[derive(Debug)]
struct Fifo<V> {
    items: Vec<V>,
    head: usize,
}

impl<V> Default for Fifo<V> {
    fn default() -> Self {
        Fifo {
            items: Vec::new(),
            head: 0,
        }
    }
}

impl<V: Copy> Fifo<V> {
    #[inline]
    fn is_empty(&self) -> bool {
        self.head >= self.items.len()
    }

    #[inline]
    fn push_back(&mut self, v: V) {
        if self.head > 64 && self.head * 2 > self.items.len() {
            self.items.drain(..self.head);
            self.head = 0;
        }
        self.items.push(v);
    }

    #[inline]
    fn pop_front(&mut self) -> Option<V> {
        let v = *self.items.get(self.head)?;
        self.head += 1;
        if self.head == self.items.len() {
            self.items.clear();
            self.head = 0;
        }
        Some(v)
    }

    pub(super) fn clear(&mut self) {
        self.items.clear();
        self.head = 0;
    }
}

impl<K: SlotKey + Default, V: Copy> Queues<K, V> {
    pub(super) fn new() -> Self {
        Queues {
            cache: vec![(K::default(), FREE); SLOTS],
            index: FxHashMap::default(),
            queues: Vec::new(),
            used: Vec::new(),
        }
    }

    /// The index of the queue of `key` (made empty if new).
    #[inline]
    pub(super) fn queue(&mut self, key: K) -> usize {
        let slot = &mut self.cache[key.slot() & (SLOTS - 1)];
        let q = if slot.1 != FREE && slot.0 == key {
            slot.1
        } else {
            let n = self.queues.len() as u32;
            let q = *self.index.entry(key).or_insert(n);
            if q == n {
                self.queues.push(Fifo::default());
            }
            *slot = (key, q);
            q
        };
        q as usize
    }

    #[inline]
    pub(super) fn push(&mut self, key: K, v: V) {
        let i = self.queue(key);
        let q = &mut self.queues[i];
        if q.is_empty() {
            self.used.push(i as u32);
        }
        q.push_back(v);
    }

    #[inline]
    pub(super) fn pop(&mut self, key: K) -> Option<V> {
        let i = self.queue(key);
        self.queues[i].pop_front()
    }

    /// Empties every queue, and drops them all when there are many.
    pub(super) fn clear(&mut self) {
        if self.queues.len() > MAX_KEYS {
            self.queues = Vec::new();
            self.index = FxHashMap::default();
            self.cache.fill((K::default(), FREE));
        } else {
            for &i in &self.used {
                if let Some(q) = self.queues.get_mut(i as usize) {
                    q.clear();
                }
            }
        }
        self.used.clear();
    }
}

impl<K: SlotKey + Default, V: Copy> Waiting<K, V> for Queues<K, V> {
    #[inline]
    fn push(&mut self, key: K, v: V) {
        Queues::push(self, key, v);
    }

    #[inline]
    fn pop(&mut self, key: K) -> Option<V> {
        Queues::pop(self, key)
    }
}
