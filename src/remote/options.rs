//! How the client connects ([`Options`], read from the environment by
//! [`Options::from_env`]) and the HTTP agent made from them.

use super::{Error, AUTHORIZATION_VAR, DOWNLOAD_MAX_VAR, TIMEOUT_VAR};
use std::time::Duration;
use ureq::tls::{Certificate, RootCerts, TlsConfig};
use ureq::Agent;

/// How the client connects and what it accepts.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Options {
    /// The time limit of each request: connecting, and the whole answer of a
    /// range request (a download's limit is per read: no byte for this long).
    pub timeout: Duration,
    /// The most redirects followed for one request.
    pub max_redirects: u32,
    /// The largest file downloaded whole to a temporary file when its server
    /// does not answer Range requests (0: never).
    pub download_max: u64,
    /// The `Authorization` header sent with every request (not on redirects
    /// to another host).
    pub authorization: Option<String>,
    /// Whether a download says so and shows its progress on stderr.
    pub progress: bool,
}

impl Default for Options {
    /// 30 s, 10 redirects, downloads up to 256 MiB, no credentials, no
    /// progress.
    fn default() -> Options {
        Options {
            timeout: Duration::from_secs(30),
            max_redirects: 10,
            download_max: 256 << 20,
            authorization: None,
            progress: false,
        }
    }
}

impl Options {
    /// The defaults, changed by `MPELOG_HTTP_TIMEOUT` (seconds, fractions
    /// allowed), `MPELOG_HTTP_DOWNLOAD_MAX` (bytes, with `k`, `m`, `g`) and
    /// `MPELOG_HTTP_AUTHORIZATION`; progress on.
    ///
    /// # Errors
    ///
    /// [`Error::BadSetting`] for a timeout or a size that is not a number.
    ///
    /// ```
    /// use mpelog::remote::{Options, DOWNLOAD_MAX_VAR, TIMEOUT_VAR};
    /// std::env::set_var(TIMEOUT_VAR, "2.5");
    /// std::env::set_var(DOWNLOAD_MAX_VAR, "16m");
    /// let o = Options::from_env()?;
    /// assert_eq!((o.timeout.as_millis(), o.download_max, o.progress), (2500, 16 << 20, true));
    /// std::env::set_var(TIMEOUT_VAR, "soon");
    /// assert!(Options::from_env().is_err());
    /// # Ok::<(), mpelog::remote::Error>(())
    /// ```
    pub fn from_env() -> Result<Options, Error> {
        let mut o = Options {
            progress: true,
            ..Options::default()
        };
        let var = |name| std::env::var(name).ok().filter(|v: &String| !v.is_empty());
        if let Some(v) = var(TIMEOUT_VAR) {
            o.timeout = v
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|s| s.is_finite() && *s > 0.0 && *s < 1e9)
                .map(Duration::from_secs_f64)
                .ok_or_else(|| Error::BadSetting {
                    name: TIMEOUT_VAR,
                    value: v.clone(),
                    reason: "give a positive number of seconds".into(),
                })?;
        }
        if let Some(v) = var(DOWNLOAD_MAX_VAR) {
            o.download_max = bytes(&v).ok_or_else(|| Error::BadSetting {
                name: DOWNLOAD_MAX_VAR,
                value: v.clone(),
                reason: "give a number of bytes (k, m, g suffixes allowed; 0: never download)"
                    .into(),
            })?;
        }
        o.authorization = var(AUTHORIZATION_VAR);
        Ok(o)
    }
}

impl Options {
    /// Sets [`timeout`](Self::timeout).
    ///
    /// ```
    /// use mpelog::remote::Options;
    /// use std::time::Duration;
    /// let o = Options::default().timeout(Duration::from_secs(5));
    /// assert_eq!(o.timeout, Duration::from_secs(5));
    /// ```
    pub fn timeout(mut self, timeout: Duration) -> Options {
        self.timeout = timeout;
        self
    }

    /// Sets [`max_redirects`](Self::max_redirects) (0: follow none).
    ///
    /// ```
    /// let o = mpelog::remote::Options::default().max_redirects(0);
    /// assert_eq!(o.max_redirects, 0);
    /// ```
    pub fn max_redirects(mut self, max_redirects: u32) -> Options {
        self.max_redirects = max_redirects;
        self
    }

    /// Sets [`download_max`](Self::download_max) (0: never download whole).
    ///
    /// ```
    /// let o = mpelog::remote::Options::default().download_max(1 << 20);
    /// assert_eq!(o.download_max, 1 << 20);
    /// ```
    pub fn download_max(mut self, download_max: u64) -> Options {
        self.download_max = download_max;
        self
    }

    /// Sets [`authorization`](Self::authorization) (`None`: send none).
    ///
    /// ```
    /// let o = mpelog::remote::Options::default().authorization(Some("Bearer abc".into()));
    /// assert_eq!(o.authorization.as_deref(), Some("Bearer abc"));
    /// ```
    pub fn authorization(mut self, authorization: Option<String>) -> Options {
        self.authorization = authorization;
        self
    }

    /// Sets [`progress`](Self::progress).
    ///
    /// ```
    /// let o = mpelog::remote::Options::default().progress(true);
    /// assert!(o.progress);
    /// ```
    pub fn progress(mut self, progress: bool) -> Options {
        self.progress = progress;
        self
    }
}

/// `N`, `Nk`, `Nm`, `Ng` (powers of 1024).
pub(super) fn bytes(s: &str) -> Option<u64> {
    let s = s.trim().to_ascii_lowercase();
    let (n, shift) = match s.strip_suffix(['k', 'm', 'g']) {
        Some(n) => (
            n,
            [10, 20, 30][s.ends_with('m') as usize + 2 * s.ends_with('g') as usize],
        ),
        None => (s.as_str(), 0),
    };
    n.trim().parse::<u64>().ok()?.checked_mul(1 << shift)
}

/// The trusted roots: the system's (only `SSL_CERT_FILE` / `SSL_CERT_DIR`
/// when set), else the bundled Mozilla roots.
fn roots() -> Result<RootCerts, Error> {
    let found = rustls_native_certs::load_native_certs();
    let named = ["SSL_CERT_FILE", "SSL_CERT_DIR"].into_iter().find_map(|v| {
        std::env::var(v)
            .ok()
            .filter(|p| !p.is_empty())
            .map(|p| (v, p))
    });
    if found.certs.is_empty() {
        if let Some((name, value)) = named {
            return Err(Error::BadSetting {
                name,
                value,
                reason: match found.errors.first() {
                    Some(e) => format!("no certificate loaded: {e}"),
                    None => "no PEM certificate in it".into(),
                },
            });
        }
        return Ok(RootCerts::WebPki);
    }
    Ok(RootCerts::from(
        found
            .certs
            .iter()
            .map(|c| Certificate::from_der(c.as_ref()).to_owned()),
    ))
}

/// The client of `options`.
pub(super) fn agent(options: &Options) -> Result<Agent, Error> {
    let tls = TlsConfig::builder().root_certs(roots()?).build();
    let t = Some(options.timeout);
    Ok(Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(options.max_redirects)
        .redirect_auth_headers(ureq::config::RedirectAuthHeaders::SameHost)
        .user_agent(concat!("mpelog/", env!("CARGO_PKG_VERSION")))
        .accept_encoding(ureq::config::AutoHeaderValue::None)
        .tls_config(tls)
        .timeout_connect(t)
        .timeout_recv_response(t)
        .timeout_per_read(t)
        .timeout_per_call(t)
        .build()
        .new_agent())
}
