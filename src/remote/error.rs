//! Why a remote file cannot be read ([`Error`], with its [`Problem`] and
//! [`Change`] details), and how messages show a URL ([`shown_url`]).

use super::{DOWNLOAD_MAX_VAR, TIMEOUT_VAR};
use std::fmt;
use std::io;
use std::time::Duration;

/// Why a remote file cannot be read. Every variant names the URL (its query
/// string, which may hold a presigned URL's signature, shown as `?…`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Not an `http://` or `https://` URL, or not one the client can use.
    #[error("{}: {reason}", shown(.url))]
    BadUrl {
        /// The URL.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An environment variable of the client holds a value it cannot use.
    #[error("{name}={value:?}: {reason}")]
    BadSetting {
        /// The variable.
        name: &'static str,
        /// Its value.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// No answer (or not all of one) within the time limit.
    #[error("{}: no answer within {} s ({what}; {TIMEOUT_VAR} sets the limit)", shown(.url), .after.as_secs_f64())]
    Timeout {
        /// The URL.
        url: String,
        /// The limit.
        after: Duration,
        /// Which step timed out (connecting, the answer's headers or body).
        what: String,
    },
    /// More redirects than [`Options::max_redirects`](super::Options::max_redirects) (a redirect loop).
    #[error("{}: more than {max} redirects (a redirect loop?)", shown(.url))]
    TooManyRedirects {
        /// The URL.
        url: String,
        /// The limit.
        max: u32,
    },
    /// The TLS connection failed: most often a certificate that no trusted root
    /// vouches for.
    #[error("{}: TLS: {message} (trusted roots: the system's, or SSL_CERT_FILE / SSL_CERT_DIR when set)", shown(.url))]
    Tls {
        /// The URL.
        url: String,
        /// What TLS said.
        message: String,
    },
    /// The server answered with an error status.
    #[error("{}: HTTP {status}{}", shown(.url), status_hint(*.status))]
    Status {
        /// The URL.
        url: String,
        /// The status code.
        status: u16,
    },
    /// The server does not answer Range requests (it sent the whole file), and
    /// the file is larger than [`Options::download_max`](super::Options::download_max) (or its size is
    /// unknown).
    #[error(
        "{}: the server does not support HTTP Range requests (it answered a range with the whole file{}); \
         download the file and give its path, or set {DOWNLOAD_MAX_VAR} to at least its size to let mpelog \
         download it to a temporary file (now {max} bytes)",
        shown(.url), .len.map(|n| format!(", {n} bytes")).unwrap_or_default()
    )]
    NoRanges {
        /// The URL.
        url: String,
        /// The file's length, if the server said.
        len: Option<u64>,
        /// The download limit in force.
        max: u64,
    },
    /// An answer to a range request is not that range.
    #[error("{}: bytes {start}-{end}: {problem}", shown(.url))]
    BadAnswer {
        /// The URL.
        url: String,
        /// The first byte asked for.
        start: u64,
        /// The last byte asked for.
        end: u64,
        /// What is wrong.
        problem: Problem,
    },
    /// The file changed between two answers: its size, `ETag` or
    /// `Last-Modified` differ from the first answer's.
    #[error("{}: the remote file changed while it was read: {change}", shown(.url))]
    Changed {
        /// The URL.
        url: String,
        /// What changed.
        change: Change,
    },
    /// The connection failed (refused, reset, closed early, a name that does
    /// not resolve, a proxy that refused).
    #[error("{}: {source}", shown(.url))]
    Transport {
        /// The URL.
        url: String,
        /// The error.
        #[source]
        source: io::Error,
    },
    /// The HTTP exchange broke the protocol (a malformed answer, headers too
    /// large).
    #[error("{}: {message}", shown(.url))]
    Protocol {
        /// The URL.
        url: String,
        /// What is wrong.
        message: String,
    },
    /// The temporary file of a download could not be written.
    #[error("{}: downloading to a temporary file: {source}", shown(.url))]
    Download {
        /// The URL.
        url: String,
        /// The error.
        #[source]
        source: io::Error,
    },
}

/// How an answer to a range request differs from that range.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Problem {
    /// Another status than `206 Partial Content`.
    Status(u16),
    /// No `Content-Range`, or one that names other bytes (its text).
    ContentRange(Option<String>),
    /// A body of another length than the range's.
    Length {
        /// The range's length.
        expected: u64,
        /// The body's length (or its announced `Content-Length`).
        got: u64,
    },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Status(s) => write!(f, "HTTP {s} instead of 206 Partial Content"),
            Problem::ContentRange(None) => f.write_str("a 206 answer without a Content-Range"),
            Problem::ContentRange(Some(c)) => {
                write!(f, "the answer's Content-Range {c:?} names other bytes")
            }
            Problem::Length { expected, got } => {
                write!(f, "a {got}-byte answer to a {expected}-byte range")
            }
        }
    }
}

/// What changed in a remote file between two answers.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Change {
    /// Its size.
    Size {
        /// The size first seen.
        before: u64,
        /// The size now.
        after: u64,
    },
    /// Its `ETag` (`None`: the header was missing).
    ETag {
        /// The first answer's.
        before: Option<String>,
        /// This answer's.
        after: Option<String>,
    },
    /// Its `Last-Modified` (`None`: the header was missing).
    LastModified {
        /// The first answer's.
        before: Option<String>,
        /// This answer's.
        after: Option<String>,
    },
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let or_none = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".into());
        match self {
            Change::Size { before, after } => {
                write!(f, "its size was {before} bytes, now {after}")
            }
            Change::ETag { before, after } => write!(
                f,
                "its ETag was {}, now {}",
                or_none(before),
                or_none(after)
            ),
            Change::LastModified { before, after } => write!(
                f,
                "its Last-Modified was {}, now {}",
                or_none(before),
                or_none(after)
            ),
        }
    }
}

impl Error {
    /// The kind of [`io::Error`] this error becomes when a read fails.
    pub(super) fn kind(&self) -> io::ErrorKind {
        match self {
            Error::Timeout { .. } => io::ErrorKind::TimedOut,
            Error::BadAnswer { .. } | Error::Changed { .. } | Error::Protocol { .. } => {
                io::ErrorKind::InvalidData
            }
            Error::BadUrl { .. } | Error::BadSetting { .. } => io::ErrorKind::InvalidInput,
            _ => io::ErrorKind::Other,
        }
    }
}

impl Error {
    /// The remote error an I/O error of reading `url` holds (as [`HttpFile`](super::HttpFile)'s
    /// `Read` and `Seek` give them), or a [`Error::Transport`] error of `url`.
    ///
    /// ```
    /// use mpelog::remote::Error;
    /// let e = std::io::Error::other("reset");
    /// assert!(matches!(Error::from_io("http://h/f", e), Error::Transport { .. }));
    /// ```
    pub fn from_io(url: &str, e: io::Error) -> Error {
        if !e.get_ref().is_some_and(|i| i.is::<Error>()) {
            return Error::Transport {
                url: url.to_string(),
                source: e,
            };
        }
        let kind = e.kind();
        match e.into_inner().map(|i| i.downcast::<Error>()) {
            Some(Ok(remote)) => *remote,
            Some(Err(other)) => Error::Transport {
                url: url.to_string(),
                source: io::Error::new(kind, other),
            },
            None => Error::Transport {
                url: url.to_string(),
                source: kind.into(),
            },
        }
    }
}

impl From<Error> for io::Error {
    /// An I/O error holding the remote error (recover it with
    /// [`io::Error::into_inner`] and a downcast).
    fn from(e: Error) -> io::Error {
        io::Error::new(e.kind(), e)
    }
}

/// A URL as messages show it: without a query string (a presigned URL's
/// signature) or user information.
///
/// ```
/// assert_eq!(
///     mpelog::remote::shown_url("https://me:pw@host/f.slog2?X-Sig=1"),
///     "https://host/f.slog2?…"
/// );
/// ```
pub fn shown_url(url: &str) -> String {
    shown(url)
}

pub(super) fn shown(url: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((b, _)) => (b, "?…"),
        None => (url, ""),
    };
    let base = match base.split_once("://") {
        Some((scheme, rest)) => match rest.split('/').next().and_then(|h| h.rsplit_once('@')) {
            Some((_, host)) => format!(
                "{scheme}://{host}{}",
                &rest[rest.find('/').unwrap_or(rest.len())..]
            ),
            None => base.to_string(),
        },
        None => base.to_string(),
    };
    format!("{base}{query}")
}

fn status_hint(status: u16) -> &'static str {
    match status {
        401 | 403 => " (credentials: set MPELOG_HTTP_AUTHORIZATION to the Authorization header's value, or use a presigned URL)",
        404 => " (no such file)",
        _ => "",
    }
}
