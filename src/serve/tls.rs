//! HTTPS for `mpelog serve` (`--tls-cert FILE --tls-key FILE`): rustls in
//! front of the plain HTTP server.
//!
//! The HTTP server ([`super::transport`]) then listens on a Unix socket in a directory
//! only the user can enter, and a [`Terminator`] accepts the TLS connections on
//! the network socket: each is decrypted by rustls (the TLS library the remote
//! reader already uses) and its bytes pumped to a connection of its own to the
//! Unix socket, and the answers back. One thread per connection, at most
//! [`MAX_CONNECTIONS`] at once; a connection idle for [`IDLE`] is closed.
//! The HTTP side sees the same requests as over plain HTTP, so the access
//! rules ([`super::Access`]) apply as they are.

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The most TLS connections served at once; more are closed at once.
pub const MAX_CONNECTIONS: usize = 256;

/// How long a connection may send and receive nothing before it is closed.
pub const IDLE: Duration = Duration::from_secs(120);

/// Plaintext bytes moved at a time each way.
const CHUNK: usize = 16 * 1024;

/// Why the certificate or key cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The file holds no PEM certificate (or cannot be read as PEM).
    #[error("{}: no PEM certificate ({source})", path.display())]
    Certificate {
        /// The file.
        path: PathBuf,
        /// What the PEM reader said.
        source: rustls::pki_types::pem::Error,
    },
    /// The file holds no PEM private key (PKCS#8, PKCS#1 or SEC1).
    #[error("{}: no PEM private key ({source})", path.display())]
    Key {
        /// The file.
        path: PathBuf,
        /// What the PEM reader said.
        source: rustls::pki_types::pem::Error,
    },
    /// rustls refused the pair (the key does not match the certificate, an
    /// unsupported key type, ...).
    #[error("the certificate and key cannot be used: {0}")]
    Rejected(#[from] rustls::Error),
}

/// Accepts TLS connections and pumps them to the HTTP server's Unix socket.
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use mpelog::serve::tls::Terminator;
/// let tls = Terminator::from_pem_files("cert.pem".as_ref(), "key.pem".as_ref())?;
/// let listener = std::net::TcpListener::bind("0.0.0.0:8443")?;
/// std::thread::spawn(move || tls.run(listener, "/run/user/1000/mpelog.sock".into()));
/// # Ok(()) }
/// ```
pub struct Terminator {
    config: Arc<rustls::ServerConfig>,
    active: Arc<AtomicUsize>,
}

impl Terminator {
    /// The certificate chain of `cert` (PEM, the server's certificate first)
    /// and the private key of `key` (PEM).
    ///
    /// # Errors
    ///
    /// [`Error::Certificate`] or [`Error::Key`] when a file cannot be read or
    /// holds none; [`Error::Rejected`] when rustls refuses the pair.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let dir = tempfile::tempdir()?;
    /// let c = rcgen::generate_simple_self_signed(vec!["localhost".into()])?;
    /// std::fs::write(dir.path().join("c.pem"), c.cert.pem())?;
    /// std::fs::write(dir.path().join("k.pem"), c.signing_key.serialize_pem())?;
    /// let t = mpelog::serve::tls::Terminator::from_pem_files(
    ///     &dir.path().join("c.pem"),
    ///     &dir.path().join("k.pem"),
    /// );
    /// assert!(t.is_ok());
    /// // A certificate is not a key.
    /// let wrong = mpelog::serve::tls::Terminator::from_pem_files(
    ///     &dir.path().join("c.pem"),
    ///     &dir.path().join("c.pem"),
    /// );
    /// assert!(matches!(wrong, Err(mpelog::serve::tls::Error::Key { .. })));
    /// # Ok(()) }
    /// ```
    pub fn from_pem_files(cert: &Path, key: &Path) -> Result<Terminator, Error> {
        let certificate = |source| Error::Certificate {
            path: cert.to_path_buf(),
            source,
        };
        let chain = CertificateDer::pem_file_iter(cert)
            .map_err(certificate)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(certificate)?;
        if chain.is_empty() {
            return Err(certificate(rustls::pki_types::pem::Error::NoItemsFound));
        }
        let key = PrivateKeyDer::from_pem_file(key).map_err(|source| Error::Key {
            path: key.to_path_buf(),
            source,
        })?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()?
            .with_no_client_auth()
            .with_single_cert(chain, key)?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Terminator {
            config: Arc::new(config),
            active: Arc::new(AtomicUsize::new(0)),
        })
    }

    /// Accepts connections on `listener` forever, each pumped to the Unix
    /// socket at `backend` on a thread of its own. Returns only when the
    /// listener fails.
    ///
    /// # Errors
    ///
    /// The listener's error.
    ///
    /// ```no_run
    /// # fn run(t: mpelog::serve::tls::Terminator) -> std::io::Result<()> {
    /// t.run(std::net::TcpListener::bind("127.0.0.1:8443")?, "/tmp/x/http.sock".into())
    /// # }
    /// ```
    pub fn run(self, listener: TcpListener, backend: PathBuf) -> io::Result<()> {
        loop {
            let (tcp, _) = match listener.accept() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) if is_transient(&e) => {
                    std::thread::sleep(Duration::from_millis(10));
                    continue;
                }
                Err(e) => return Err(e),
            };
            if self.active.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
                self.active.fetch_sub(1, Ordering::SeqCst);
                continue; // dropped: closed
            }
            let (config, active, backend) = (
                Arc::clone(&self.config),
                Arc::clone(&self.active),
                backend.clone(),
            );
            std::thread::spawn(move || {
                // A connection that fails is closed; the others go on.
                let _ended = pump(tcp, config, &backend);
                active.fetch_sub(1, Ordering::SeqCst);
            });
        }
    }
}

/// Errors of `accept` that concern one connection, or a moment's shortage of
/// descriptors, not the listener.
fn is_transient(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset
    ) || matches!(
        e.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    )
}

/// `poll(2)` on `fds` for at most [`IDLE`]: the number of descriptors ready,
/// 0 on time-out, negative on error (errno set).
#[allow(unsafe_code)]
fn poll(fds: &mut [libc::pollfd; 2]) -> libc::c_int {
    // SAFETY: a valid array of pollfd structures, its length, a timeout in ms.
    unsafe { libc::poll(fds.as_mut_ptr(), 2, IDLE.as_millis() as libc::c_int) }
}

/// Moves one connection's bytes: TLS records from `tcp` decrypted to the Unix
/// socket, its answers encrypted back, until either side ends or the
/// connection is idle for [`IDLE`].
fn pump(mut tcp: TcpStream, config: Arc<rustls::ServerConfig>, backend: &Path) -> io::Result<()> {
    let mut tls = rustls::ServerConnection::new(config).map_err(io::Error::other)?;
    let mut http = UnixStream::connect(backend)?;
    tcp.set_nonblocking(true)?;
    http.set_nonblocking(true)?;
    // Plaintext from the client not yet taken by the HTTP server.
    let mut to_http: Vec<u8> = Vec::with_capacity(CHUNK);
    let mut buf = vec![0u8; CHUNK];
    let (mut client_done, mut http_done) = (false, false);
    loop {
        // Take the client's plaintext only when the last is delivered.
        if to_http.is_empty() && !client_done {
            match tls.reader().read(&mut buf) {
                Ok(0) => client_done = true, // close_notify
                Ok(n) => to_http.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
        if !to_http.is_empty() {
            match http.write(&to_http) {
                Ok(n) => drop(to_http.drain(..n)),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        } else if client_done {
            let _ = http.shutdown(std::net::Shutdown::Write);
        }
        while tls.wants_write() {
            match tls.write_tls(&mut tcp) {
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) => return Err(e),
            }
        }
        if http_done && !tls.wants_write() {
            return Ok(());
        }
        let mut fds = [
            libc::pollfd {
                // A client that has ended is only watched while answers go out.
                fd: if client_done && !tls.wants_write() {
                    -1
                } else {
                    tcp.as_raw_fd()
                },
                events: if tls.wants_write() { libc::POLLOUT } else { 0 }
                    | if to_http.is_empty() && !client_done {
                        libc::POLLIN
                    } else {
                        0
                    },
                revents: 0,
            },
            libc::pollfd {
                fd: http.as_raw_fd(),
                // Take an answer only when the last is sent on.
                events: if !tls.is_handshaking() && !tls.wants_write() && !http_done {
                    libc::POLLIN
                } else {
                    0
                } | if to_http.is_empty() { 0 } else { libc::POLLOUT },
                revents: 0,
            },
        ];
        let ready = poll(&mut fds);
        if ready < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if ready == 0 {
            return Ok(()); // idle
        }
        if fds[0].revents & (libc::POLLIN | libc::POLLHUP | libc::POLLERR) != 0 {
            match tls.read_tls(&mut tcp) {
                Ok(0) => client_done = true,
                Ok(_) => {
                    if let Err(e) = tls.process_new_packets() {
                        // Send the alert, then end.
                        let _ = tls.write_tls(&mut tcp);
                        return Err(io::Error::other(e));
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
        if fds[1].revents & (libc::POLLIN | libc::POLLHUP) != 0 && !http_done {
            match http.read(&mut buf) {
                Ok(0) => {
                    http_done = true;
                    tls.send_close_notify();
                }
                Ok(n) => tls.writer().write_all(&buf[..n])?,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
        if fds[0].revents & (libc::POLLHUP | libc::POLLERR) != 0 && client_done && http_done {
            return Ok(());
        }
    }
}
