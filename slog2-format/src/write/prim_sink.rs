//! Where a conversion's primitives go: the one-pass tree writer for a SLOG-2
//! file, or anything else that takes primitives in end-time order (an exporter
//! that reorders them, a counter in a test). Every converter of
//! [`crate::convert`] has a twin `*_into` that pairs events with the same code
//! and feeds any [`PrimSink`].

use super::prim::Prim;
use super::tree::{TreeStats, TreeWriter};
use crate::error::Result;
use crate::types::{Category, LineIdMap};
use std::io::{Seek, Write};

/// Takes a conversion's primitives, in increasing end time, then the legend
/// and the line-ID maps.
///
/// ```
/// use slog2_format::convert::clog2_into;
/// use slog2_format::write::{Prim, PrimSink};
/// use slog2_format::types::{Category, LineIdMap};
///
/// /// Counts primitives and categories.
/// #[derive(Default)]
/// struct Count(u64);
/// impl PrimSink for Count {
///     type Output = (u64, usize);
///     fn add(&mut self, _p: Prim) -> slog2_format::Result<()> {
///         self.0 += 1;
///         Ok(())
///     }
///     fn finish(self, cats: &[Category], _maps: Vec<LineIdMap>) -> slog2_format::Result<(u64, usize)> {
///         Ok((self.0, cats.len()))
///     }
/// }
///
/// let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(500))?;
/// let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// let ((prims, cats), stats) = clog2_into(&mut reader, Count::default(), |_| {})?;
/// assert!(prims > 0 && cats > 1);
/// assert!(stats.records > 0 && stats.input_bytes <= clog2.len() as u64);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait PrimSink {
    /// What [`finish`](PrimSink::finish) gives.
    type Output;
    /// Takes the next primitive (its end is not before the previous one's).
    ///
    /// # Errors
    ///
    /// The sink's own: writing its output failed, or it cannot take the
    /// primitive (the tree writer's [`Error::Write`](crate::Error::Write)).
    /// The converter then stops and returns this error.
    ///
    /// ```
    /// use slog2_format::types::topology;
    /// use slog2_format::write::{Prim, PrimSink, TreeOptions, TreeWriter};
    /// let mut w = TreeWriter::new(std::io::Cursor::new(Vec::new()), TreeOptions::default())?;
    /// PrimSink::add(&mut w, Prim::two(1, topology::STATE, (0.0, 0), (1.0, 0), &[]))?;
    /// // The tree writer takes primitives in end-time order only.
    /// assert!(PrimSink::add(&mut w, Prim::event(1, 0.5, 0, &[])).is_err());
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    fn add(&mut self, p: Prim) -> Result<()>;
    /// Takes the legend (every category the primitives may use) and the
    /// line-ID maps, after the last primitive.
    ///
    /// # Errors
    ///
    /// The sink's own, as for [`add`](PrimSink::add).
    ///
    /// ```
    /// use slog2_format::types::topology;
    /// use slog2_format::write::{Prim, PrimSink, TreeOptions, TreeWriter};
    /// let mut w = TreeWriter::new(std::io::Cursor::new(Vec::new()), TreeOptions::default())?;
    /// PrimSink::add(&mut w, Prim::two(0, topology::ARROW, (0.0, 0), (1.0, 1), &[]))?;
    /// let (out, stats) = PrimSink::finish(w, &[slog2_format::convert::arrow_category()], vec![])?;
    /// assert_eq!(stats.drawables, 1);
    /// assert!(slog2_format::looks_like(out.get_ref()));
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    fn finish(self, categories: &[Category], maps: Vec<LineIdMap>) -> Result<Self::Output>;

    /// Told now and then, between primitives, that no primitive added from
    /// now on starts before `time` (`-∞`: nothing is known, as when the input's
    /// records are not in time order). A sink that gives primitives back in
    /// start order may hand out those starting before `time`. The converters
    /// that know it call it ([`crate::convert::clog2_into`]); the others never
    /// do, and the default ignores it.
    ///
    /// # Errors
    ///
    /// The sink's own, as for [`add`](PrimSink::add).
    ///
    /// ```
    /// use slog2_format::write::{Prim, PrimSink};
    /// use slog2_format::types::{Category, LineIdMap};
    /// /// The lowest mark told.
    /// struct Marks(Vec<f64>);
    /// impl PrimSink for Marks {
    ///     type Output = Vec<f64>;
    ///     fn add(&mut self, _p: Prim) -> slog2_format::Result<()> { Ok(()) }
    ///     fn finish(self, _: &[Category], _: Vec<LineIdMap>) -> slog2_format::Result<Vec<f64>> { Ok(self.0) }
    ///     fn low_water(&mut self, t: f64) -> slog2_format::Result<()> { self.0.push(t); Ok(()) }
    /// }
    /// let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(20_000))?;
    /// let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// let (marks, _) = slog2_format::convert::clog2_into(&mut reader, Marks(vec![]), |_| {})?;
    /// assert!(marks.len() > 1 && marks.windows(2).all(|w| w[0] <= w[1]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn low_water(&mut self, time: f64) -> Result<()> {
        let _ = time;
        Ok(())
    }
}

/// The tree writer as a sink: its output is the writer and its figures.
impl<W: Write + Seek> PrimSink for TreeWriter<W> {
    type Output = (W, TreeStats);
    fn add(&mut self, p: Prim) -> Result<()> {
        TreeWriter::add(self, p)
    }
    fn finish(self, categories: &[Category], maps: Vec<LineIdMap>) -> Result<(W, TreeStats)> {
        TreeWriter::finish(self, categories, maps)
    }
}
