//! [`Trace::info`]: what a trace holds, in a form every format shares.

use super::error::Result;
use super::{Format, Trace, Tree};

/// One category of the legend.
///
/// ```
/// let c = mpelog::trace::CategoryInfo { index: 3, name: "MPI_Send".into(), topology: "state" };
/// assert_eq!(c.topology, "state");
/// ```
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CategoryInfo {
    /// Its index (negative for the preview categories).
    pub index: i32,
    /// Its name.
    pub name: String,
    /// `state`, `event` or `arrow`.
    pub topology: &'static str,
}

/// What [`Trace::info`] says of a trace.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("demo.clog2");
/// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
/// let info = mpelog::Trace::open(&path)?.info()?;
/// assert!(info.start < info.end);
/// assert!(info.views.iter().any(|v| v == "Process View"));
/// assert_eq!(info.lines[0], (0, vec![0])); // line 0: rank 0
/// let json = serde_json::to_value(&info)?;
/// assert_eq!(json["format"], "CLOG2");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct Info {
    /// The input's format.
    #[serde(serialize_with = "format_name")]
    pub format: Format,
    /// The input as given (a path or a URL).
    pub path: String,
    /// Whether the trace was converted to a temporary SLOG-2 file to answer.
    pub converted: bool,
    /// The earliest time of the tree (seconds).
    pub start: f64,
    /// The latest time of the tree (seconds).
    pub end: f64,
    /// The legend.
    pub categories: Vec<CategoryInfo>,
    /// The titles of the views (line-ID maps), the default one first.
    pub views: Vec<String>,
    /// Each line ID and its row in the default view, by ascending line ID:
    /// in MPE's process view, the rank first (what the exports and pipit's
    /// `Process` take a timeline for).
    pub lines: Vec<(i32, Vec<i32>)>,
}

fn format_name<S: serde::Serializer>(f: &Format, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(f.name())
}

/// A topology's name.
fn topology(t: i32) -> &'static str {
    match t {
        0 => "event",
        1 => "state",
        2 => "arrow",
        _ => "unknown",
    }
}

impl Trace {
    /// The trace's format, time range, legend and views. A format without a
    /// tree is converted to SLOG-2 first (once; see [`Trace::is_converted`]).
    ///
    /// # Errors
    ///
    /// The conversion's error, for a format without a tree.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// let info = mpelog::Trace::open(&path)?.info()?;
    /// assert!(info.converted);
    /// assert!(info.categories.iter().any(|c| c.name == "MPI_Send" && c.topology == "state"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn info(&mut self) -> Result<Info> {
        let legend = self.legend()?;
        let tree = self.tree()?;
        let (start, end) = tree.time_box().unwrap_or((0.0, 0.0));
        let maps: &[slog2_format::types::LineIdMap] = match tree {
            Tree::Slog2(r) => r.line_id_maps().map_or(&[], |m| &m.value.maps[..]),
            Tree::Annotation(a, _) => &a.line_id_maps().maps,
        };
        let views = maps.iter().map(|m| m.title.text()).collect();
        let lines = maps.first().map_or_else(Vec::new, |m| {
            m.rows
                .iter()
                .map(|r| (r.line_id, r.values.clone()))
                .collect()
        });
        Ok(Info {
            format: self.format,
            path: self.given.display().to_string(),
            converted: self.converted.is_some(),
            start,
            end,
            categories: legend
                .iter()
                .map(|c| CategoryInfo {
                    index: c.index,
                    name: c.name.text(),
                    topology: topology(c.topology),
                })
                .collect(),
            views,
            lines,
        })
    }
}
