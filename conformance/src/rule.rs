//! One rule's shape: its [`Severity`], the [`Rule`] itself, and the macro every
//! format module of [`crate::check`] declares its table with; the rules about any
//! file ([`GENERAL`]). The registry of every rule is [`crate::rules`].

use crate::Format;
use std::fmt;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The file breaks the format: a conforming reader rejects it, or the real
    /// tools misread it or crash on it.
    Error,
    /// Legal but suspicious, or information a tool will lose.
    Warning,
}

impl Severity {
    /// `error` or `warning`.
    ///
    /// ```
    /// use mpelog_conformance::Severity;
    /// assert_eq!((Severity::Error.name(), Severity::Warning.name()), ("error", "warning"));
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rule {
    /// Stable ID, e.g. `C2-REJ-011`.
    pub id: &'static str,
    /// The format it applies to (SLOG-2 rules also apply to compressed SLOG-2);
    /// `None` for rules about any file.
    pub format: Option<Format>,
    /// Its severity.
    pub severity: Severity,
    /// What it requires, in one line.
    pub summary: &'static str,
}

/// Declares a module's rules as typed constants (so a misspelt rule does not
/// compile) and its table `RULES`, in the order given.
///
/// `rule_table! { FORMAT; /// doc of RULES
/// NAME = "ID", Error|Warning, "summary"; ... }`
macro_rules! rule_table {
    ($format:expr; $(#[$doc:meta])* $( $name:ident = $id:literal, $severity:ident, $summary:literal; )*) => {
        $(
            #[doc = concat!("`", $id, "` (", stringify!($severity), "): ", $summary, ".")]
            pub const $name: $crate::rule::Rule = $crate::rule::Rule {
                id: $id,
                format: $format,
                severity: $crate::rule::Severity::$severity,
                summary: $summary,
            };
        )*
        $(#[$doc])*
        pub const RULES: &[$crate::rule::Rule] = &[$($name),*];
    };
}
pub(crate) use rule_table;

/// Rules that apply to any file.
pub mod general {
    crate::rule::rule_table! {
        None;
        /// Rules that apply to any file.
        FORMAT_001 = "FORMAT-001", Error,
            "the file is none of the formats mpelog knows (ALOG, CLOG, CLOG2, SLOG-1, SLOG-2, annotation, OTF2)";
    }
}
pub use general::{FORMAT_001, RULES as GENERAL};
