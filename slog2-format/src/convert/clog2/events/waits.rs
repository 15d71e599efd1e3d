//! The records waiting for a partner, per pairing key ([`Waits`]).

use crate::convert::pairing::Waiting;
use rustc_hash::FxHashMap as HashMap;
use std::collections::VecDeque;
use std::hash::Hash;

/// Keys without waiting items kept at least, before they are dropped.
const EMPTY_KEYS: usize = 4096;

/// The items waiting per pairing key, oldest first.
///
/// A key whose queue empties stays, with its queue's memory: the next item
/// under it (a state's next start on the same timeline, the next message
/// between the same two processes) is neither hashed into the map again nor
/// allocated for, the pairing's most frequent case. The empty keys go once the
/// map holds twice the keys it held after the last such sweep (and at least
/// 4096), so the map stays within twice the keys with waiting items (or 4096)
/// however many distinct tags and lines a long trace uses, at an amortised
/// constant cost per key.
#[derive(Debug, Clone)]
pub(super) struct Waits<K, V> {
    map: HashMap<K, VecDeque<V>>,
    /// The map's size at which empty keys are dropped.
    limit: usize,
}

impl<K, V> Default for Waits<K, V> {
    fn default() -> Self {
        Waits {
            map: HashMap::default(),
            limit: EMPTY_KEYS,
        }
    }
}

impl<K: Hash + Eq + Copy, V> Waits<K, V> {
    /// The queues of every key (some may be empty), in no order.
    pub(super) fn queues(&self) -> impl Iterator<Item = &VecDeque<V>> {
        self.map.values()
    }

    /// The keys with waiting items and their queues, in no order.
    pub(super) fn waiting(&self) -> impl Iterator<Item = (&K, &VecDeque<V>)> {
        self.map.iter().filter(|(_, q)| !q.is_empty())
    }

    /// The queue of `key` (empty when nothing waits under it).
    pub(super) fn get(&self, key: &K) -> impl Iterator<Item = &V> {
        self.map.get(key).into_iter().flatten()
    }

    /// Drops every waiting item.
    pub(super) fn clear(&mut self) {
        self.map.clear();
        self.limit = EMPTY_KEYS;
    }
}

impl<K: Hash + Eq + Copy, V> Waiting<K, V> for Waits<K, V> {
    #[inline]
    fn push(&mut self, key: K, v: V) {
        if let Some(q) = self.map.get_mut(&key) {
            q.push_back(v);
            return;
        }
        if self.map.len() >= self.limit {
            self.map.retain(|_, q| !q.is_empty());
            self.limit = (2 * self.map.len()).max(EMPTY_KEYS);
        }
        self.map.insert(key, VecDeque::from([v]));
    }

    #[inline]
    fn pop(&mut self, key: K) -> Option<V> {
        self.map.get_mut(&key)?.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oldest_first_and_empty_keys_bounded() {
        let mut w: Waits<i32, u32> = Waits::default();
        w.push(1, 10);
        w.push(1, 11);
        w.push(2, 20);
        assert_eq!(w.pop(1), Some(10));
        assert_eq!(w.pop(1), Some(11));
        assert_eq!(w.pop(1), None);
        assert_eq!(w.waiting().count(), 1);
        // A long trace of distinct keys, each paired at once: the map keeps
        // no more than the limit of empty keys.
        for k in 3..100_000 {
            w.push(k, 0);
            assert_eq!(w.pop(k), Some(0));
        }
        assert!(w.map.len() <= 2 * EMPTY_KEYS, "{}", w.map.len());
        assert_eq!(w.get(&2).copied().collect::<Vec<_>>(), [20]);
        // Many keys waiting at once: all kept.
        for k in 0..10_000 {
            w.push(-k - 1, 1);
        }
        assert_eq!(w.waiting().count(), 10_001);
        assert!(w.map.len() <= 2 * 10_001 + EMPTY_KEYS);
    }
}
