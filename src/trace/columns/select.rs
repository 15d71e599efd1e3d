//! Which info columns a window's or a batch's rows are made with
//! ([`Select`]): the info values are the most of a row's cost, decoded and
//! formatted only for the columns asked for.

use crate::export::info_columns::InfoColumn;

/// Which info columns [`Trace::window_columns_with`](crate::Trace::window_columns_with)
/// and [`ColumnsBuilder::with_select`](super::ColumnsBuilder::with_select)
/// make. The other columns are made always (they cost little); a row's info
/// values are decoded only when a typed column is asked for, and formatted
/// only for the `info` text. By default every column is made.
///
/// ```
/// use mpelog::trace::Select;
/// let s = Select::default().info(false).typed(["info_msg_size"]);
/// assert!(!s.makes_info());
/// assert!(s.makes_typed("info_msg_size") && !s.makes_typed("info_msg_tag"));
/// assert!(Select::default().makes_typed("anything"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Select {
    info: bool,
    typed: Option<Vec<String>>,
}

impl Default for Select {
    fn default() -> Select {
        Select {
            info: true,
            typed: None,
        }
    }
}

impl Select {
    /// Whether to make the `info` text column (without it, `info` is null
    /// in every row).
    ///
    /// ```
    /// assert!(!mpelog::trace::Select::default().info(false).makes_info());
    /// ```
    pub fn info(mut self, on: bool) -> Select {
        self.info = on;
        self
    }

    /// The typed info columns to make, by name (`info_msg_size`, ...), in
    /// the legend's order whatever the order here; a name the legend does
    /// not call for is no column. Without this call: every one.
    ///
    /// ```
    /// let s = mpelog::trace::Select::default().typed(["info_msg_tag"]);
    /// assert!(s.makes_typed("info_msg_tag") && !s.makes_typed("info_msg_size"));
    /// ```
    pub fn typed<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Select {
        self.typed = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Whether the `info` text column is made.
    ///
    /// ```
    /// assert!(mpelog::trace::Select::default().makes_info());
    /// ```
    pub fn makes_info(&self) -> bool {
        self.info
    }

    /// Whether the typed column `name` is made (if the legend calls for it).
    ///
    /// ```
    /// let none = mpelog::trace::Select::default().typed::<&str>([]);
    /// assert!(!none.makes_typed("info_msg_tag"));
    /// ```
    pub fn makes_typed(&self, name: &str) -> bool {
        self.typed
            .as_ref()
            .is_none_or(|names| names.iter().any(|n| n == name))
    }

    /// The columns of `all` this selection makes, in their order.
    pub(super) fn of(&self, all: Vec<InfoColumn>) -> Vec<InfoColumn> {
        all.into_iter()
            .filter(|c| self.makes_typed(&c.name))
            .collect()
    }
}
