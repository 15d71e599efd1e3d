//! Filtering and re-treeing a SLOG-2 file (`mpelog filter`, MPE's
//! `slog2filter`): keep or remove categories, cut a time window, and write the
//! kept drawables into a new tree with the one-pass tree writer, so any choice
//! of leaf size, children per node and node compression gives a new tree.
//!
//! The input is read in end-time order with bounded memory (slices of leaves,
//! [`crate::slices`]), as the tree writer takes drawables; shadows, category
//! summaries and the legend are recomputed for what is kept (categories
//! without a kept drawable leave the legend); the line-ID maps are kept.
//!
//! ```
//! use mpelog::filter::{filter, Options};
//! use slog2_format::convert::clog2_to_slog2;
//! use slog2_format::write::TreeOptions;
//! use std::io::Cursor;
//! let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
//! let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
//! let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), TreeOptions::default(), |_| {})?;
//! let mut r = slog2_format::Slog2Reader::new(Cursor::new(out.into_inner()))?;
//! let arrows = r.categories().unwrap().value.categories.iter()
//!     .filter(|c| c.topology == slog2_format::types::topology::ARROW)
//!     .map(|c| c.index).collect::<Vec<_>>();
//! let (_, stats) = filter(&mut r, Cursor::new(Vec::new()), &Options::default().remove(arrows))?;
//! assert!(stats.kept > 0 && stats.removed > 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::slices::{self, Order};
use slog2_format::types::{topology, Category, Primitive};
use slog2_format::write::tree::{TreeOptions, TreeStats, TreeWriter};
use slog2_format::write::Prim;
use slog2_format::Slog2Reader;
use std::collections::HashSet;
use std::io::{Read, Seek, Write};

/// What to keep and how to build the new tree.
///
/// ```
/// let o = mpelog::filter::Options::default().keep(vec![2]).window(Some(1.0), Some(2.0));
/// assert_eq!((o.keep, o.from, o.to), (Some(vec![2]), Some(1.0), Some(2.0)));
/// assert!(o.remove.is_empty());
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Options {
    /// Categories (legend indices) to remove.
    pub remove: Vec<i32>,
    /// When set, only these categories are kept.
    pub keep: Option<Vec<i32>>,
    /// Start of the time cut (drawables that meet `[from, to)` are kept).
    pub from: Option<f64>,
    /// End of the time cut.
    pub to: Option<f64>,
    /// Leaf size, children per node and node compression of the new tree.
    pub tree: TreeOptions,
}

impl Options {
    /// Removes these categories.
    ///
    /// ```
    /// let opts = mpelog::filter::Options::default().remove(vec![0, 3]);
    /// assert_eq!((opts.remove, opts.keep), (vec![0, 3], None));
    /// ```
    pub fn remove(mut self, categories: Vec<i32>) -> Options {
        self.remove = categories;
        self
    }
    /// Keeps only these categories.
    ///
    /// ```
    /// let opts = mpelog::filter::Options::default().keep(vec![2]);
    /// assert_eq!((opts.remove, opts.keep), (vec![], Some(vec![2])));
    /// ```
    pub fn keep(mut self, categories: Vec<i32>) -> Options {
        self.keep = Some(categories);
        self
    }
    /// Keeps only the drawables that meet `[from, to)` (a missing bound is the
    /// file's start or end).
    ///
    /// ```
    /// let opts = mpelog::filter::Options::default().window(None, Some(2.0));
    /// assert_eq!((opts.from, opts.to), (None, Some(2.0)));
    /// ```
    pub fn window(mut self, from: Option<f64>, to: Option<f64>) -> Options {
        self.from = from;
        self.to = to;
        self
    }
    /// The new tree's options.
    ///
    /// ```
    /// use slog2_format::write::TreeOptions;
    /// let opts = mpelog::filter::Options::default().tree(TreeOptions::default().children(4));
    /// assert_eq!(opts.tree.children, 4);
    /// ```
    pub fn tree(mut self, tree: TreeOptions) -> Options {
        self.tree = tree;
        self
    }
}

/// What a filter did.
#[derive(Debug, Clone, PartialEq)]
pub struct FilterStats {
    /// Real primitives written.
    pub kept: u64,
    /// Real primitives of the window left out by the category choice.
    pub removed: u64,
    /// The new tree.
    pub tree: TreeStats,
}

/// Why a filter failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading the input or writing the output failed.
    #[error(transparent)]
    Slog2(#[from] slog2_format::Error),
    /// A drawable the one-pass tree writer cannot take: more than two vertices,
    /// or an info buffer longer than it stores (MPE's converters never make
    /// either).
    #[error("a drawable of category {category} cannot be written into a new tree: {why}")]
    Unsupported {
        /// Its category.
        category: i32,
        /// Why.
        why: String,
    },
    /// Nothing is left to write.
    #[error("the filter keeps no drawable")]
    Empty,
}

fn prim(p: &Primitive, topo: i32) -> Result<Prim, Error> {
    let unsupported = |why: String| Error::Unsupported {
        category: p.category,
        why,
    };
    if p.info.bytes.len() > slog2_format::write::prim::MAX_INFO {
        return Err(unsupported(format!(
            "{} info bytes (the tree writer stores {})",
            p.info.bytes.len(),
            slog2_format::write::prim::MAX_INFO
        )));
    }
    match (topo, &p.vertices[..]) {
        (topology::EVENT, [v]) => Ok(Prim::event(p.category, v.time, v.line_id, &p.info.bytes)),
        (_, [a, b]) => Ok(Prim::two(
            p.category,
            topo,
            (a.time, a.line_id),
            (b.time, b.line_id),
            &p.info.bytes,
        )),
        (_, v) => Err(unsupported(format!("{} vertices", v.len()))),
    }
}

/// Writes the drawables of `r` that the options keep into a new SLOG-2 file on
/// `out`.
///
/// ```
/// use slog2_format::{convert::clog2_to_slog2, write::TreeOptions};
/// use slog2_format::Slog2Reader;
/// use std::io::Cursor;
///
/// let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
/// let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// let (slog2, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), TreeOptions::default(), |_| {})?;
/// let mut r = Slog2Reader::new(Cursor::new(slog2.into_inner()))?;
/// // Drop the arrows (category 0, "message", in MPE's traces).
/// let opts = mpelog::filter::Options::default().remove(vec![0]);
/// let (_, kept) = mpelog::filter::filter(&mut r, Cursor::new(Vec::new()), &opts)?;
/// assert!(kept.removed > 0 && kept.kept > 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`Error::Slog2`] when the input cannot be read or the output written,
/// [`Error::Unsupported`] for a drawable the new file cannot hold,
/// [`Error::Empty`] when nothing is kept.
pub fn filter<R: Read + Seek, W: Write + Seek>(
    r: &mut Slog2Reader<R>,
    out: W,
    opts: &Options,
) -> Result<(W, FilterStats), Error> {
    let categories: Vec<Category> = r.category_list().to_vec();
    let mut maps = r
        .line_id_maps()
        .map(|m| m.value.maps.clone())
        .unwrap_or_default();
    // The writer appends its own identity map.
    if maps
        .last()
        .is_some_and(|m| m.title.text().eq_ignore_ascii_case("Identity Map"))
    {
        maps.pop();
    }
    let remove: HashSet<i32> = opts.remove.iter().copied().collect();
    let keep: Option<HashSet<i32>> = opts.keep.as_ref().map(|k| k.iter().copied().collect());
    let wanted = |c: i32| !remove.contains(&c) && keep.as_ref().is_none_or(|k| k.contains(&c));
    let topo = |c: i32| {
        categories
            .iter()
            .find(|x| x.index == c)
            .map_or(topology::STATE, |x| x.topology)
    };
    let mut w = TreeWriter::new(out, opts.tree)?;
    let span = slices::span(&slices::Tree::entries(r), opts.from, opts.to);
    let (mut kept, mut removed) = (0u64, 0u64);
    let mut failed: Option<Error> = None;
    slices::visit_in(r, span, Order::End, |p| {
        if failed.is_some() {
            return;
        }
        if !wanted(p.category) {
            removed += 1;
            return;
        }
        match prim(p, topo(p.category)).and_then(|x| w.add(x).map_err(Error::from)) {
            Ok(()) => kept += 1,
            Err(e) => failed = Some(e),
        }
    })?;
    if let Some(e) = failed {
        return Err(e);
    }
    if kept == 0 {
        return Err(Error::Empty);
    }
    let legend: Vec<Category> = categories
        .into_iter()
        .filter(|c| c.index < 0 || wanted(c.index))
        .collect();
    let (out, tree) = w.finish(&legend, maps)?;
    Ok((
        out,
        FilterStats {
            kept,
            removed,
            tree,
        },
    ))
}
