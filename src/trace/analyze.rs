//! [`Trace::analyze`]: Scalasca's wait states, the critical path and load
//! imbalance ([`crate::analysis`]) of any input, as `mpelog analyze` finds them.

use super::error::{Error, Result};
use super::{annotation_error, read, url, Trace, Tree};
use crate::analysis::{Options, Report};
use crate::waits::WaitIndex;

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
        let r = self.analyze_unstopped(opts);
        self.stopped(r)
    }

    fn analyze_unstopped(&mut self, opts: &Options) -> Result<Report> {
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
                let (mut sorted, dropped) = read::sorted_counted(
                    &local,
                    self.format,
                    &whole,
                    &self.stop.flag(),
                    &mut self.progress,
                )?;
                let opts = opts.clone().dropped(dropped.sends, dropped.recvs);
                crate::analysis::one_pass(&mut sorted, &opts)
                    .map_err(Error::io(&std::env::temp_dir()))
            }
        }
    }
}

/// Where [`Trace::wait_index`] took the wait index from.
#[derive(Debug)]
#[non_exhaustive]
pub enum WaitSource {
    /// The fresh index beside the trace (spec/waits.md §1), at this path.
    Beside(std::path::PathBuf),
    /// An analysis of the trace in one pass: why the index beside it was not
    /// used (`None`: there is none, or the trace is remote).
    Analysed(Option<crate::waits::Error>),
}

impl Trace {
    /// The wait states and critical path of the trace ([`WaitIndex`]): the
    /// index `TRACE.waits` beside it when it is fresh (bound to the trace as
    /// it is now; for an annotation, beside the trace it annotates), else one
    /// analysis recorded in memory, and which it was.
    ///
    /// # Errors
    ///
    /// As [`analyze`](Self::analyze).
    ///
    /// ```
    /// use mpelog::trace::WaitSource;
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// let opts = clog2_format::synth::Options::default().events(3000);
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&opts)?)?;
    /// let mut t = mpelog::Trace::open(&path)?;
    /// let (ix, from) = t.wait_index()?;
    /// assert!(matches!(from, WaitSource::Analysed(None)));
    /// let binding = mpelog::waits::Binding::of(&path)?;
    /// ix.clone().bound(binding).write_file(&mpelog::waits::index_path(&path), &[&path])?;
    /// let (again, from) = t.wait_index()?;
    /// assert!(matches!(from, WaitSource::Beside(_)));
    /// assert_eq!(again.len(), ix.len());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn wait_index(&mut self) -> Result<(WaitIndex, WaitSource)> {
        let traced = match (&self.tree, url(&self.given)) {
            (Some(Tree::Annotation(_, trace)), _) => Some(trace.clone()),
            (_, Some(_)) => None,
            _ => Some(self.given.clone()),
        };
        let why = match traced {
            Some(trace) => {
                let path = crate::waits::index_path(&trace);
                match WaitIndex::open_fresh(&path, &trace) {
                    Ok(ix) => return Ok((ix, WaitSource::Beside(path))),
                    Err(crate::waits::Error::Io { source, .. })
                        if source.kind() == std::io::ErrorKind::NotFound =>
                    {
                        None
                    }
                    Err(e) => Some(e),
                }
            }
            None => None,
        };
        let opts = Options::default().record(true);
        let mut r = self.analyze(&opts)?;
        let ix = WaitIndex::from_report(&mut r).unwrap_or_else(|| {
            WaitIndex::new(
                vec![],
                vec![],
                vec![],
                (r.from, r.to),
                0,
                crate::waits::BLOCK,
            )
        });
        Ok((ix, WaitSource::Analysed(why)))
    }
}
