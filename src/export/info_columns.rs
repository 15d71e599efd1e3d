//! The typed info columns of a table of drawables: one column per info label
//! of the legend, typed as its values (`msg_tag`, `msg_size`, ...), as the
//! Parquet export (spec/export.md section 7) and the Python package's Arrow
//! tables lay them out.
//!
//! ```
//! use mpelog::export::info_columns::{info_columns, InfoType};
//! use mpelog::export::Cat;
//! let legend = [slog2_format::convert::arrow_category()];
//! let cols = info_columns(&legend);
//! let names: Vec<_> = cols.iter().map(|c| (c.name.as_str(), c.kind)).collect();
//! assert_eq!(names, [("info_msg_tag", InfoType::Int), ("info_msg_size", InfoType::Int)]);
//! // The arrow's first info value goes to column 0, its second to column 1.
//! assert_eq!(mpelog::export::info_columns::fills(&Cat::of(&legend[0]), &cols), [vec![0], vec![1]]);
//! ```

use super::Cat;
use slog2_format::types::Category;

/// The type of a typed info column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InfoType {
    /// 64-bit integers (info formats `h`, `d`, `l`, `x`, `X`).
    Int,
    /// 64-bit floats (`e`, `E`).
    Float,
    /// UTF-8 text (`s`).
    Text,
}

impl InfoType {
    /// The suffix a column of this type takes when another type has its label.
    fn suffix(self) -> &'static str {
        match self {
            InfoType::Int => "int",
            InfoType::Float => "float",
            InfoType::Text => "text",
        }
    }
}

/// A typed info column: its name and type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InfoColumn {
    /// `info_` and the label (`info_msg_size`), `_int`/`_float`/`_text`
    /// appended when an earlier column of another type has the name.
    pub name: String,
    /// Its values' type.
    pub kind: InfoType,
}

/// The typed info columns the legend calls for, in legend order: a column per
/// label and type.
///
/// ```
/// let cols = mpelog::export::info_columns::info_columns(&[]);
/// assert!(cols.is_empty());
/// ```
pub fn info_columns(categories: &[Category]) -> Vec<InfoColumn> {
    let mut out: Vec<InfoColumn> = Vec::new();
    for c in categories {
        let cat = Cat::of(c);
        for (i, &t) in c.types.iter().enumerate() {
            let kind = match t {
                b'h' | b'd' | b'l' | b'x' | b'X' => InfoType::Int,
                b'e' | b'E' => InfoType::Float,
                b's' => InfoType::Text,
                _ => continue,
            };
            let label = label(cat.keys.get(i).map(String::as_str), i);
            let name = if out.iter().any(|c| c.name == label && c.kind != kind) {
                format!("{label}_{}", kind.suffix())
            } else {
                label
            };
            if !out.iter().any(|c| c.name == name) {
                out.push(InfoColumn { name, kind });
            }
        }
    }
    out
}

/// A column name from an info label (`", msg_size="` → `info_msg_size`;
/// `arg<i>` when nothing is left).
fn label(key: Option<&str>, i: usize) -> String {
    let base: String = key
        .unwrap_or("")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    let base = base.trim_matches('_').to_string();
    if base.is_empty() {
        format!("arg{i}")
    } else {
        format!("info_{base}")
    }
}

/// For each info value of `cat` (in [`Cat::each_arg`] order), the columns of
/// `columns` that take it: a column takes the last value whose label is its
/// name, else the last whose label is its name without the
/// `_int`/`_float`/`_text` suffix (a value of another type leaves it null).
///
/// ```
/// use mpelog::export::info_columns::fills;
/// let cat = mpelog::export::Cat::of(&slog2_format::convert::arrow_category());
/// assert_eq!(fills(&cat, &[]), [Vec::<usize>::new(), vec![]]);
/// ```
pub fn fills(cat: &Cat, columns: &[InfoColumn]) -> Vec<Vec<usize>> {
    let labels: Vec<String> = (0..cat.types.len())
        .map(|i| label(cat.keys.get(i).map(String::as_str), i))
        .collect();
    let last = |name: &str| labels.iter().rposition(|l| l == name);
    let mut by_arg = vec![Vec::new(); labels.len()];
    for (col, c) in columns.iter().enumerate() {
        let base = c
            .name
            .trim_end_matches("_int")
            .trim_end_matches("_float")
            .trim_end_matches("_text");
        if let Some(i) = last(&c.name).or_else(|| last(base)) {
            by_arg[i].push(col);
        }
    }
    by_arg
}
