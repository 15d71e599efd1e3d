//! What a check finds: [`Finding`]s gathered in a [`Report`] per file.

use crate::rule::{Rule, Severity};
use crate::Format;

/// One broken rule at one place in a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// The rule's stable ID (see [`crate::rules`]), e.g. `C2-REJ-011`.
    pub rule: &'static str,
    /// How bad it is.
    pub severity: Severity,
    /// Byte offset in the file of the offending structure (for ALOG, of the
    /// offending token).
    pub offset: u64,
    /// Where inside the file's structure, when the offset alone does not say it:
    /// a SLOG-2 tree node `(depth,xpos)`, an ALOG `line L, column C`.
    pub place: Option<String>,
    /// What is wrong and what to do about it.
    pub message: String,
}

/// Everything a check found in one file.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The format the file was checked as, or `None` when no format matched
    /// (then the only finding is `FORMAT-001`).
    pub format: Option<Format>,
    /// The findings, in the order they were found.
    pub findings: Vec<Finding>,
}

impl Report {
    /// An empty report for `format`.
    ///
    /// ```
    /// use mpelog_conformance::{Format, Report};
    /// let r = Report::new(Format::Alog);
    /// assert_eq!((r.format, r.findings.len()), (Some(Format::Alog), 0));
    /// assert!(r.passes());
    /// ```
    pub fn new(format: Format) -> Report {
        Report {
            format: Some(format),
            findings: Vec::new(),
        }
    }

    /// How many findings are errors.
    ///
    /// ```
    /// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default()
    /// #     .ranks(2).events(300).seed(1).block_size(1024)).unwrap();
    /// use mpelog_conformance::{check_bytes, Options};
    /// assert_eq!(check_bytes(&clog2, &Options::default()).errors(), 0);
    /// assert!(check_bytes(&clog2[..clog2.len() - 5], &Options::default()).errors() > 0); // cut
    /// ```
    pub fn errors(&self) -> usize {
        self.count(Severity::Error)
    }

    /// How many findings are warnings.
    ///
    /// ```
    /// use mpelog_conformance::{check::slog1::S1_REJ_001, report::Collector, Format, Severity};
    /// let mut c = Collector::new(Format::Slog1, 10);
    /// c.add(S1_REJ_001, 0, None, "cut".into());
    /// let r = c.finish();
    /// assert_eq!((r.errors(), r.warnings()), (1, 0)); // S1-REJ-001 is an error
    /// assert_eq!(r.findings[0].severity, Severity::Error);
    /// ```
    pub fn warnings(&self) -> usize {
        self.count(Severity::Warning)
    }

    fn count(&self, s: Severity) -> usize {
        self.findings.iter().filter(|f| f.severity == s).count()
    }

    /// Whether the file has no error finding (warnings allowed).
    ///
    /// ```
    /// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default()
    /// #     .ranks(2).events(300).seed(1).block_size(1024)).unwrap();
    /// use mpelog_conformance::{check_bytes, Options};
    /// assert!(check_bytes(&clog2, &Options::default()).passes());
    /// assert!(!check_bytes(b"not a trace", &Options::default()).passes());
    /// ```
    pub fn passes(&self) -> bool {
        self.errors() == 0
    }

    /// The IDs of the findings, in order (handy in tests).
    ///
    /// ```
    /// use mpelog_conformance::{check_bytes, Options};
    /// assert_eq!(check_bytes(b"not a trace", &Options::default()).rule_ids(), ["FORMAT-001"]);
    /// ```
    pub fn rule_ids(&self) -> Vec<&'static str> {
        self.findings.iter().map(|f| f.rule).collect()
    }
}

/// Collects findings for one file, keeping at most `limit` per rule and taking
/// each rule's severity from the rule table.
#[derive(Debug)]
pub struct Collector {
    report: Report,
    limit: usize,
    per_rule: std::collections::HashMap<&'static str, usize>,
}

impl Collector {
    /// A collector for a file of `format` keeping at most `limit` (≥ 1) findings
    /// per rule.
    ///
    /// ```
    /// use mpelog_conformance::check::slog1::S1_REJ_001;
    /// use mpelog_conformance::{report::Collector, Format};
    /// let mut c = Collector::new(Format::Slog1, 2);
    /// for at in [10, 20, 30] {
    ///     c.add(S1_REJ_001, at, None, "cut".into());
    /// }
    /// assert_eq!((c.seen(S1_REJ_001), c.errors(), c.limit()), (3, 2, 2));
    /// let report = c.finish();
    /// assert_eq!(report.findings.len(), 2); // the third is counted, not kept
    /// assert_eq!((report.findings[1].offset, report.findings[1].rule), (20, "S1-REJ-001"));
    /// ```
    pub fn new(format: Format, limit: usize) -> Collector {
        Collector {
            report: Report::new(format),
            limit: limit.max(1),
            per_rule: Default::default(),
        }
    }

    /// Adds a finding of `rule` (its severity comes with it). The message does
    /// not repeat the offset or the place, which the finding shows (a reader
    /// error gives it without its position: `detail()`).
    ///
    /// ```
    /// use mpelog_conformance::{check::slog1::S1_REJ_001, report::Collector, Format};
    /// let mut c = Collector::new(Format::Slog1, 1);
    /// c.add(S1_REJ_001, 8, Some("frame 0".into()), "cut".into());
    /// let f = &c.finish().findings[0];
    /// assert_eq!((f.rule, f.offset, f.place.as_deref()), ("S1-REJ-001", 8, Some("frame 0")));
    /// ```
    pub fn add(&mut self, rule: Rule, offset: u64, place: Option<String>, message: String) {
        let severity = rule.severity;
        let rule = rule.id;
        let n = self.per_rule.entry(rule).or_insert(0);
        *n += 1;
        if *n <= self.limit {
            self.report.findings.push(Finding {
                rule,
                severity,
                offset,
                place,
                message,
            });
        }
    }

    /// How many error findings were kept so far.
    ///
    /// ```
    /// use mpelog_conformance::{check::slog1::S1_REJ_001, report::Collector, Format};
    /// let mut c = Collector::new(Format::Slog1, 1);
    /// c.add(S1_REJ_001, 8, None, "cut".into());
    /// c.add(S1_REJ_001, 9, None, "cut".into());
    /// assert_eq!(c.errors(), 1); // the second is over the limit: counted, not kept
    /// ```
    pub fn errors(&self) -> usize {
        self.report.errors()
    }

    /// The most findings kept per rule.
    ///
    /// ```
    /// use mpelog_conformance::{report::Collector, Format};
    /// assert_eq!(Collector::new(Format::Clog2, 5).limit(), 5);
    /// assert_eq!(Collector::new(Format::Clog2, 0).limit(), 1); // at least one
    /// ```
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// How many findings of `rule` were added (kept or not).
    ///
    /// ```
    /// use mpelog_conformance::{check::slog1::S1_REJ_001, report::Collector, rules::FORMAT_001, Format};
    /// let mut c = Collector::new(Format::Slog1, 1);
    /// for at in 0..4 {
    ///     c.add(S1_REJ_001, at, None, "cut".into());
    /// }
    /// assert_eq!((c.seen(S1_REJ_001), c.seen(FORMAT_001)), (4, 0));
    /// ```
    pub fn seen(&self, rule: Rule) -> usize {
        self.per_rule.get(rule.id).copied().unwrap_or(0)
    }

    /// The report.
    ///
    /// ```
    /// use mpelog_conformance::{check::slog1::S1_REJ_001, report::Collector, Format};
    /// let mut c = Collector::new(Format::Slog1, 3);
    /// c.add(S1_REJ_001, 30, None, "b".into());
    /// c.add(S1_REJ_001, 10, None, "a".into());
    /// let r = c.finish();
    /// assert_eq!(r.format, Some(Format::Slog1));
    /// assert_eq!(r.findings.iter().map(|f| f.offset).collect::<Vec<_>>(), [30, 10]); // in the order found
    /// ```
    pub fn finish(self) -> Report {
        self.report
    }
}
