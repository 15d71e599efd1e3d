//! All locations' events in one time-ordered stream (spec/otf2.md §8).

use crate::error::Result;
use crate::event::Event;
use crate::events::LocationEvents;
use crate::source::Source;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A k-way merge of per-location streams by timestamp; equal timestamps
/// come in location order (the order of the Location definitions), and each
/// location's own order is kept. Memory: one event and one reader window per
/// location.
pub struct Merged<S: Source> {
    readers: Vec<LocationEvents<S>>,
    heads: Vec<Option<Event>>,
    heap: BinaryHeap<Reverse<(u64, usize)>>,
    started: bool,
    failed: bool,
}

impl<S: Source> Merged<S> {
    /// Merges `readers` (in location order).
    ///
    /// ```
    /// use otf2_format::Merged;
    /// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny");
    /// let a = otf2_format::Archive::open(dir)?;
    /// let mut m = Merged::new(vec![a.location_events(1)?, a.location_events(0)?]);
    /// let times: Vec<u64> = std::iter::from_fn(|| m.next_event().transpose())
    ///     .map(|e| e.map(|e| e.time))
    ///     .collect::<Result<_, _>>()?;
    /// assert!(times.windows(2).all(|w| w[0] <= w[1]));
    /// assert_eq!(times.len(), a.events()?.count());
    /// # Ok::<(), otf2_format::Error>(())
    /// ```
    pub fn new(readers: Vec<LocationEvents<S>>) -> Self {
        let n = readers.len();
        Merged {
            readers,
            heads: (0..n).map(|_| None).collect(),
            heap: BinaryHeap::with_capacity(n),
            started: false,
            failed: false,
        }
    }

    /// The per-location readers (for their counts).
    ///
    /// ```
    /// use otf2_format::Merged;
    /// let a = otf2_format::Archive::open(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny"))?;
    /// let mut m = Merged::new(vec![a.location_events(0)?, a.location_events(1)?]);
    /// while m.next_event()?.is_some() {}
    /// let locations: Vec<u64> = m.readers().iter().map(|r| r.location()).collect();
    /// assert_eq!(locations, [0, 1]);
    /// assert!(m.readers().iter().all(|r| r.chunks() == 1));
    /// # Ok::<(), otf2_format::Error>(())
    /// ```
    pub fn readers(&self) -> &[LocationEvents<S>] {
        &self.readers
    }

    fn fill(&mut self, i: usize) -> Result<()> {
        if let Some(e) = self.readers[i].next_event()? {
            self.heap.push(Reverse((e.time, i)));
            self.heads[i] = Some(e);
        }
        Ok(())
    }

    /// The next event in time order, `None` at the end.
    ///
    /// # Errors
    /// The first error of any location's reader; the merge then ends.
    ///
    /// ```
    /// let a = otf2_format::Archive::open(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny"))?;
    /// let mut m = a.events()?;
    /// let mut seen = std::collections::BTreeSet::new();
    /// let mut last = 0;
    /// while let Some(e) = m.next_event()? {
    ///     assert!(e.time >= last); // every location's events, in time order
    ///     last = e.time;
    ///     seen.insert(e.location);
    /// }
    /// assert_eq!(seen.len(), 2);
    /// # Ok::<(), otf2_format::Error>(())
    /// ```
    pub fn next_event(&mut self) -> Result<Option<Event>> {
        if self.failed {
            return Ok(None);
        }
        let r = self.step();
        if r.is_err() {
            self.failed = true;
        }
        r
    }

    fn step(&mut self) -> Result<Option<Event>> {
        if !self.started {
            self.started = true;
            for i in 0..self.readers.len() {
                self.fill(i)?;
            }
        }
        // The earliest location's event leaves; its next event takes its
        // place at the top and sinks once (one sift, not a pop and a push).
        let Some(mut top) = self.heap.peek_mut() else {
            return Ok(None);
        };
        let i = top.0 .1;
        let e = self.heads[i].take();
        match self.readers[i].next_event()? {
            Some(next) => {
                *top = Reverse((next.time, i));
                self.heads[i] = Some(next);
            }
            None => {
                std::collections::binary_heap::PeekMut::pop(top);
            }
        }
        Ok(e)
    }
}

impl<S: Source> Iterator for Merged<S> {
    type Item = Result<Event>;
    fn next(&mut self) -> Option<Result<Event>> {
        self.next_event().transpose()
    }
}
