//! [`Trace::analyze`]: Scalasca's wait states, the critical path and load
//! imbalance ([`crate::analysis`]) of any input, as `mpelog analyze` finds them.

use super::error::{Error, Result};
use super::{annotation_error, read, Trace, Tree};
use crate::analysis::{Options, Report};

impl Trace {
    /// The analysis of the trace (`mpelog analyze --json` prints the same
    /// [`Report`]): the whole trace is read, since matching needs every call
    /// of each communicator's order; the window of `opts` only decides what
    /// is counted. A format without a tree is read in one pass, put in order
    /// with bounded memory, and the sends and receives its pairing dropped are
    /// reported ([`Report::unmatched`]); it is never converted.
    ///
    /// # Errors
    ///
    /// [`Error::BadWindow`] for bounds that are not finite or not in order,
    /// the format's error where the input is bad (with its byte offset),
    /// [`Error::Io`] when the sorter's temporary runs fail.
    ///
    /// ```
    /// use mpelog::analysis::{Options, Pattern};
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// let opts = clog2_format::synth::Options::default().events(3000);
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&opts)?)?;
    /// let mut t = mpelog::Trace::open(&path)?;
    /// let r = t.analyze(&Options::default())?;
    /// assert_eq!(r.timelines, [0, 1, 2, 3]);
    /// assert!(r.counts.messages > 0 && r.counts.collectives > 0);
    /// assert!(r.seconds(Pattern::LateSender) >= r.seconds(Pattern::LateSenderWrongOrder));
    /// assert_eq!(r.unmatched.dropped_sends, Some(0));
    /// assert!(!t.is_converted());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn analyze(&mut self, opts: &Options) -> Result<Report> {
        super::check_window(opts.from, opts.to)?;
        let given = self.given.clone();
        match self.own_tree() {
            Some(Tree::Slog2(r)) => {
                crate::analysis::slog2(r, opts).map_err(|source| Error::Slog2 {
                    path: given,
                    source,
                })
            }
            Some(Tree::Annotation(a, trace)) => {
                crate::analysis::annotation(a, opts).map_err(|e| annotation_error(&given, trace, e))
            }
            None => {
                let local = self.local()?;
                let whole = crate::export::Options::default();
                let (mut sorted, dropped) = read::sorted_counted(&local, self.format, &whole)?;
                let opts = opts.clone().dropped(dropped.sends, dropped.recvs);
                crate::analysis::one_pass(&mut sorted, &opts)
                    .map_err(Error::io(&std::env::temp_dir()))
            }
        }
    }
}
