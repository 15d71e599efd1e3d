//! `mpelog serve`: the viewer page and its API over HTTP ([`mpelog::serve`]),
//! through [`mpelog::serve::transport`].

use crate::detect::Format;
use crate::error::{CliError, CliResult};
use crate::input::shown;
use mpelog::serve::tls::Terminator;
use mpelog::serve::transport::{self, Listener};
use mpelog::serve::{Access, Service, Token};
use std::path::{Path, PathBuf};

/// How `mpelog serve` listens and whom it answers.
pub struct Options {
    /// The address to listen on.
    pub bind: String,
    /// The port (0: any free one).
    pub port: u16,
    /// Host names accepted besides loopback and the bound address.
    pub allow_host: Vec<String>,
    /// The token chosen (`--token`); `MPELOG_SERVE_TOKEN` when `None`.
    pub token: Option<String>,
    /// No token even off loopback.
    pub no_token: bool,
    /// The certificate chain and key files of HTTPS.
    pub tls: Option<(PathBuf, PathBuf)>,
    /// Two runs compared (`--compare`): the page of two runs at `/`.
    pub compare: bool,
    /// No waits in the viewer (`--no-waits`): no index read, no analysis.
    pub no_waits: bool,
}

/// The largest served file `serve` analyses at start for its waits when no
/// fresh index lies beside the trace (a larger one: `analyze --write-index`).
const ANALYSE_AT_START: u64 = 512 << 20;

/// Runs `mpelog serve` until interrupted.
pub fn run(files: &[PathBuf], o: &Options) -> CliResult {
    if o.compare && files.len() != 2 {
        return Err(CliError::Usage(format!(
            "--compare: two traces (serve A B --compare), not {}",
            files.len()
        )));
    }
    let tmp = tempfile::tempdir().map_err(CliError::io(Path::new("TMPDIR")))?;
    let mut served = Vec::new();
    let mut originals = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let (f, format) = mpelog::trace::locate(f)?;
        originals.push(f.clone());
        match format {
            Format::Slog2 | Format::Slog2Compressed => served.push((f.clone(), display_name(&f))),
            Format::Annotation => {
                return Err(CliError::Usage(format!(
                    "{}: serve shows SLOG-2 files; serve the annotated trace itself",
                    shown(&f)
                )))
            }
            _ => {
                // Converted once, into a temporary directory removed at exit.
                eprintln!("converting {} for the viewer ...", shown(&f));
                let slog2 = super::convert::to_temp_slog2(&f, tmp.path(), &format!("{i}.slog2"))?;
                served.push((slog2, display_name(&f)));
            }
        }
    }
    let mut service = Service::named(&served).map_err(|e| CliError::slog2(&e.path)(e.source))?;
    if o.compare {
        service = service.comparing();
    }
    if !o.no_waits {
        for (k, (original, (slog2, _))) in originals.iter().zip(&served).enumerate() {
            if let Some(index) = waits_of(original, slog2) {
                service = service.with_waits(k, index);
            }
        }
    }
    let loopback = is_loopback(&o.bind);
    let token = token(o, loopback)?;
    let tls = match &o.tls {
        Some((cert, key)) => Some(
            Terminator::from_pem_files(cert, key).map_err(|e| CliError::Usage(e.to_string()))?,
        ),
        None => None,
    };
    let addr = if o.bind.contains(':') && !o.bind.starts_with('[') {
        format!("[{}]:{}", o.bind, o.port)
    } else {
        format!("{}:{}", o.bind, o.port)
    };
    let listener = std::net::TcpListener::bind(&addr)
        .map_err(|e| CliError::Usage(format!("cannot listen on {addr}: {e}")))?;
    let port = listener.local_addr().map_or(o.port, |a| a.port());
    let mut access = Access::new(&o.bind, port)
        .token(token.clone())
        .tls(tls.is_some());
    for name in &o.allow_host {
        access = access.allow_host(name);
    }
    let cannot =
        |e: &dyn std::fmt::Display| CliError::Usage(format!("cannot listen on {addr}: {e}"));
    let listener = match tls {
        None => Listener::Tcp(listener),
        Some(tls) => {
            // The HTTP server on a Unix socket in the private temporary
            // directory; rustls in front of it on the network socket.
            let socket = tmp.path().join("http.sock");
            let unix = std::os::unix::net::UnixListener::bind(&socket).map_err(|e| cannot(&e))?;
            std::thread::spawn(move || tls.run(listener, socket));
            Listener::Unix(unix)
        }
    };
    eprintln!("{}", start_line(files, o, port, token.as_ref(), loopback));
    transport::run(listener, service, access).map_err(|e| cannot(&e))
}

/// The wait index of a served trace: the fresh one beside `original`
/// (`analyze --write-index`), else the analysis of the served SLOG-2 file
/// when it is at most [`ANALYSE_AT_START`] bytes; `None` (said on stderr)
/// when neither.
fn waits_of(original: &Path, slog2: &Path) -> Option<mpelog::waits::WaitIndex> {
    use mpelog::waits::{index_path, WaitIndex};
    let beside = index_path(original);
    if beside.exists() {
        match WaitIndex::open_fresh(&beside, original) {
            Ok(ix) => return Some(ix),
            Err(e) => eprintln!("{}: not used ({e}); analysing instead", shown(&beside)),
        }
    }
    let len = std::fs::metadata(slog2).map_or(u64::MAX, |m| m.len());
    if len > ANALYSE_AT_START {
        eprintln!(
            "{}: no waits in the viewer (mpelog analyze {} --write-index writes them beside it)",
            shown(original),
            shown(original)
        );
        return None;
    }
    eprintln!("analysing {} for the viewer's waits ...", shown(original));
    let opts = mpelog::analysis::Options::default().record(true);
    let report = std::fs::File::open(slog2)
        .map_err(|e| e.to_string())
        .and_then(|f| {
            let mut r = slog2_format::Slog2Reader::new(std::io::BufReader::new(f))
                .map_err(|e| e.to_string())?;
            mpelog::analysis::slog2(&mut r, &opts).map_err(|e| e.to_string())
        });
    match report {
        Ok(mut report) => Some(WaitIndex::from_report(&mut report).unwrap_or_else(|| {
            WaitIndex::new(vec![], vec![], vec![], (report.from, report.to), 0, 64)
        })),
        Err(e) => {
            eprintln!("{}: no waits in the viewer ({e})", shown(original));
            None
        }
    }
}

/// Whether `bind` is a loopback address or `localhost`.
fn is_loopback(bind: &str) -> bool {
    let b = bind.trim_start_matches('[').trim_end_matches(']');
    b.eq_ignore_ascii_case("localhost")
        || b.parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The server's token: `--token`, else `MPELOG_SERVE_TOKEN`, else a random one
/// off loopback; none with `--no-token`.
fn token(o: &Options, loopback: bool) -> Result<Option<Token>, CliError> {
    if o.no_token {
        return Ok(None);
    }
    let chosen = o.token.clone().or_else(|| {
        std::env::var(mpelog::serve::TOKEN_VAR)
            .ok()
            .filter(|v| !v.is_empty())
    });
    match chosen {
        Some(t) => Token::given(&t).map(Some).ok_or_else(|| {
            CliError::Usage(format!(
                "--token ({}): letters, digits and -._~ only",
                mpelog::serve::TOKEN_VAR
            ))
        }),
        None if loopback => Ok(None),
        None => Token::random()
            .map(Some)
            .map_err(|e| CliError::Usage(format!("no random token: {e}"))),
    }
}

/// The start line: what is served, where, and who can see it (the only place
/// the token is written).
fn start_line(
    files: &[PathBuf],
    o: &Options,
    port: u16,
    token: Option<&Token>,
    loopback: bool,
) -> String {
    let scheme = if o.tls.is_some() { "https" } else { "http" };
    let wildcard = o
        .bind
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<std::net::IpAddr>()
        .is_ok_and(|ip| ip.is_unspecified());
    let host = match o.allow_host.first() {
        Some(name) if wildcard || !loopback => name.clone(),
        _ if o.bind.contains(':') && !o.bind.starts_with('[') => format!("[{}]", o.bind),
        _ => o.bind.clone(),
    };
    let query = token.map_or(String::new(), |t| format!("?token={}", t.as_str()));
    let names = files
        .iter()
        .map(|f| shown(f))
        .collect::<Vec<_>>()
        .join(if o.compare { " compared with " } else { ", " });
    let who = if loopback {
        "loopback only: use an SSH tunnel to reach it from another machine".to_string()
    } else if token.is_none() {
        "reachable from the network WITHOUT a token (--no-token): anyone who can connect \
         sees the traces"
            .to_string()
    } else {
        "reachable from the network; every request needs the token".to_string()
    };
    let wildcard_hint = if wildcard && o.allow_host.is_empty() {
        "; from other machines use this machine's IP address, or a name given with --allow-host"
    } else {
        ""
    };
    format!(
        "serving {names} at {scheme}://{host}:{port}/{query} ({who}{wildcard_hint}; Ctrl-C stops)"
    )
}

/// The name the viewer shows for an input: its file name.
fn display_name(f: &Path) -> String {
    f.file_name()
        .map_or_else(|| shown(f), |n| n.to_string_lossy().into_owned())
}
