//! Who may ask `mpelog serve` for anything: the `Host` and `Origin` checks
//! and the token (README, "Who can reach `mpelog serve`").
//!
//! Every request passes [`Access::check`] before [`super::Service::handle`]
//! sees it. The rules, in order:
//! 1. **Host.** A request that names a host (the `Host` header) is answered
//!    only when that host is a loopback name or address (`localhost`,
//!    `127.0.0.0/8`, `::1`), the address the server is bound to, or a name
//!    given with `--allow-host`. When the server is bound to every address
//!    (`0.0.0.0`, `::`), any IP address is accepted as well: an address
//!    cannot be rebound by DNS. Anything else is `403`, with the option that
//!    would allow it. This stops DNS rebinding: a page whose own name
//!    resolves to this machine still sends its own name.
//! 2. **Origin.** A request with an `Origin` header (a browser's fetch from a
//!    page) is answered only when that origin is this server itself (its host
//!    and port equal the `Host` header's, and the host is accepted by rule 1);
//!    any other site, and the opaque origin `null`, is `403`. No CORS headers
//!    are ever sent.
//! 3. **Token.** When the server has a token (always off loopback, unless
//!    `--no-token`), every request must carry it: as the query parameter
//!    `token`, as `Authorization: Bearer TOKEN`, or as the cookie that the
//!    first visit with the token sets (`HttpOnly; SameSite=Strict`, and
//!    `Secure` over TLS). Without it the answer is `401`. The page visited
//!    with `?token=` is answered with a redirect to the same address without
//!    it, which sets the cookie, so the token does not stay in the address
//!    bar or the history. Tokens are compared in constant time.

use super::Response;
use subtle::ConstantTimeEq;

/// The query parameter that carries the token.
pub const TOKEN_PARAM: &str = "token";

/// The environment variable that sets the token (`--token` wins).
pub const TOKEN_VAR: &str = "MPELOG_SERVE_TOKEN";

/// A server's secret: its `Debug` form never shows it.
///
/// ```
/// let t = mpelog::serve::Token::random()?;
/// assert_eq!(t.as_str().len(), 48); // 24 bytes from the OS, in hex
/// assert!(!format!("{t:?}").contains(t.as_str()));
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone)]
pub struct Token(String);

impl Token {
    /// A new token: 24 bytes (192 bits) from the operating system's random
    /// source, as 48 hexadecimal digits.
    ///
    /// # Errors
    ///
    /// The operating system gave no random bytes.
    ///
    /// ```
    /// let (a, b) = (mpelog::serve::Token::random()?, mpelog::serve::Token::random()?);
    /// assert_ne!(a.as_str(), b.as_str());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn random() -> std::io::Result<Token> {
        let mut bytes = [0u8; 24];
        getrandom::fill(&mut bytes).map_err(std::io::Error::other)?;
        Ok(Token(bytes.iter().map(|b| format!("{b:02x}")).collect()))
    }

    /// A token the user chose (`--token`, `MPELOG_SERVE_TOKEN`); `None` when it
    /// is empty or holds characters a cookie, a header or a query cannot carry
    /// as they are (anything but ASCII letters, digits and `-._~`).
    ///
    /// ```
    /// use mpelog::serve::Token;
    /// assert!(Token::given("s3cret-token").is_some());
    /// assert!(Token::given("").is_none());
    /// assert!(Token::given("a b;c").is_none());
    /// ```
    pub fn given(value: &str) -> Option<Token> {
        let ok = |b: u8| b.is_ascii_alphanumeric() || b"-._~".contains(&b);
        (!value.is_empty() && value.bytes().all(ok)).then(|| Token(value.to_string()))
    }

    /// The secret itself (for the start line, which is the only place it is
    /// written).
    ///
    /// ```
    /// assert_eq!(mpelog::serve::Token::given("abc").unwrap().as_str(), "abc");
    /// ```
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `candidate` is this token, in time that does not depend on
    /// where the two first differ.
    fn matches(&self, candidate: &str) -> bool {
        self.0.as_bytes().ct_eq(candidate.as_bytes()).into()
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(…)")
    }
}

/// What [`Access::check`] reads of a request: its target and four headers.
///
/// ```
/// let head = mpelog::serve::Head::new("/api/info").host(Some("127.0.0.1:8080"));
/// assert_eq!(head.url, "/api/info");
/// ```
#[derive(Debug, Clone, Copy, Default)]
#[non_exhaustive]
pub struct Head<'a> {
    /// The request target: path and query.
    pub url: &'a str,
    /// The `Host` header.
    pub host: Option<&'a str>,
    /// The `Origin` header.
    pub origin: Option<&'a str>,
    /// The `Authorization` header.
    pub authorization: Option<&'a str>,
    /// The `Cookie` header.
    pub cookie: Option<&'a str>,
}

impl<'a> Head<'a> {
    /// A request for `url` with no headers.
    ///
    /// ```
    /// assert!(mpelog::serve::Head::new("/").host.is_none());
    /// ```
    pub fn new(url: &'a str) -> Head<'a> {
        Head {
            url,
            ..Head::default()
        }
    }

    /// With this `Host` header.
    ///
    /// ```
    /// assert_eq!(mpelog::serve::Head::new("/").host(Some("localhost")).host, Some("localhost"));
    /// ```
    pub fn host(mut self, host: Option<&'a str>) -> Head<'a> {
        self.host = host;
        self
    }

    /// With this `Origin` header.
    ///
    /// ```
    /// let h = mpelog::serve::Head::new("/").origin(Some("http://localhost:8080"));
    /// assert_eq!(h.origin, Some("http://localhost:8080"));
    /// ```
    pub fn origin(mut self, origin: Option<&'a str>) -> Head<'a> {
        self.origin = origin;
        self
    }

    /// With this `Authorization` header.
    ///
    /// ```
    /// let h = mpelog::serve::Head::new("/").authorization(Some("Bearer abc"));
    /// assert_eq!(h.authorization, Some("Bearer abc"));
    /// ```
    pub fn authorization(mut self, authorization: Option<&'a str>) -> Head<'a> {
        self.authorization = authorization;
        self
    }

    /// With this `Cookie` header.
    ///
    /// ```
    /// let h = mpelog::serve::Head::new("/").cookie(Some("a=b"));
    /// assert_eq!(h.cookie, Some("a=b"));
    /// ```
    pub fn cookie(mut self, cookie: Option<&'a str>) -> Head<'a> {
        self.cookie = cookie;
        self
    }
}

/// What to do with a request. Not `#[non_exhaustive]`: a server must
/// handle every decision there is.
#[derive(Debug)]
pub enum Decision {
    /// Answer it, adding these headers to the answer.
    Serve(Vec<(String, String)>),
    /// Answer this instead: `403`, `401`, or the redirect that sets the cookie.
    Answer(Response),
}

/// The access rules of one server: accepted hosts and the token.
///
/// ```
/// use mpelog::serve::{Access, Decision, Head};
/// let access = Access::new("127.0.0.1", 8080);
/// let ok = access.check(&Head::new("/api/info").host(Some("localhost:8080")));
/// assert!(matches!(ok, Decision::Serve(_)));
/// let Decision::Answer(no) = access.check(&Head::new("/").host(Some("evil.example:8080"))) else {
///     panic!("a foreign host is refused");
/// };
/// assert_eq!(no.status, 403);
/// ```
#[derive(Debug, Clone)]
pub struct Access {
    /// Host names accepted besides the loopback ones (lower case, IPv6
    /// addresses without brackets).
    hosts: Vec<String>,
    /// Bound to every address: any IP address is an accepted host.
    any_address: bool,
    token: Option<Token>,
    /// The cookie's name: one per port, so servers side by side keep theirs.
    cookie_name: String,
    /// Served over TLS: the cookie is `Secure`.
    tls: bool,
}

impl Access {
    /// The rules of a server bound to `bind` (an address or a name) on `port`:
    /// loopback hosts and `bind` accepted, no token.
    ///
    /// ```
    /// use mpelog::serve::{Access, Decision, Head};
    /// let a = Access::new("0.0.0.0", 8080);
    /// assert!(matches!(a.check(&Head::new("/").host(Some("192.0.2.7:8080"))), Decision::Serve(_)));
    /// assert!(matches!(a.check(&Head::new("/").host(Some("lab-node:8080"))), Decision::Answer(_)));
    /// ```
    pub fn new(bind: &str, port: u16) -> Access {
        let bind = normal_host(bind);
        let any_address = matches!(
            bind.parse::<std::net::IpAddr>(),
            Ok(ip) if ip.is_unspecified()
        );
        Access {
            hosts: if any_address { Vec::new() } else { vec![bind] },
            any_address,
            token: None,
            cookie_name: format!("mpelog_token_{port}"),
            tls: false,
        }
    }

    /// Accepts the host `name` too (`--allow-host`).
    ///
    /// ```
    /// use mpelog::serve::{Access, Decision, Head};
    /// let a = Access::new("127.0.0.1", 8080).allow_host("viewer.lab.example");
    /// let head = Head::new("/").host(Some("Viewer.Lab.Example:8080"));
    /// assert!(matches!(a.check(&head), Decision::Serve(_)));
    /// ```
    pub fn allow_host(mut self, name: &str) -> Access {
        self.hosts.push(normal_host(name));
        self
    }

    /// Requires `token` on every request (`None`: no token).
    ///
    /// ```
    /// use mpelog::serve::{Access, Decision, Head, Token};
    /// let a = Access::new("127.0.0.1", 8080).token(Token::given("abc"));
    /// let Decision::Answer(r) = a.check(&Head::new("/api/info")) else { panic!() };
    /// assert_eq!(r.status, 401);
    /// let with = Head::new("/api/info").authorization(Some("Bearer abc"));
    /// assert!(matches!(a.check(&with), Decision::Serve(_)));
    /// ```
    pub fn token(mut self, token: Option<Token>) -> Access {
        self.token = token;
        self
    }

    /// Marks the server as served over TLS: the cookie is `Secure`.
    ///
    /// ```
    /// use mpelog::serve::{Access, Decision, Head, Token};
    /// let a = Access::new("127.0.0.1", 8443).token(Token::given("abc")).tls(true);
    /// let Decision::Answer(r) = a.check(&Head::new("/?token=abc")) else { panic!() };
    /// let cookie = &r.headers.iter().find(|(k, _)| k == "Set-Cookie").unwrap().1;
    /// assert!(cookie.ends_with("; Secure"));
    /// ```
    pub fn tls(mut self, tls: bool) -> Access {
        self.tls = tls;
        self
    }

    /// Whether requests need the token.
    ///
    /// ```
    /// use mpelog::serve::{Access, Token};
    /// assert!(!Access::new("127.0.0.1", 80).needs_token());
    /// assert!(Access::new("127.0.0.1", 80).token(Token::given("x")).needs_token());
    /// ```
    pub fn needs_token(&self) -> bool {
        self.token.is_some()
    }

    /// The decision on one request (the rules of this module's text, in
    /// order).
    ///
    /// ```
    /// use mpelog::serve::{Access, Decision, Head, Token};
    /// let a = Access::new("0.0.0.0", 8080).token(Token::given("abc"));
    /// // The first visit with the token: a redirect without it, with the cookie.
    /// let Decision::Answer(r) = a.check(&Head::new("/?token=abc&view=1")) else { panic!() };
    /// assert_eq!(r.status, 303);
    /// assert!(r.headers.contains(&("Location".into(), "/?view=1".into())));
    /// // Then the cookie is enough.
    /// let again = Head::new("/api/info").cookie(Some("mpelog_token_8080=abc"));
    /// assert!(matches!(a.check(&again), Decision::Serve(_)));
    /// ```
    pub fn check(&self, head: &Head<'_>) -> Decision {
        if let Some(host) = head.host {
            let name = host_of_authority(host);
            if !self.accepts(&name) {
                return Decision::Answer(Response::error(
                    403,
                    &format!(
                        "host {name:?} is not served here: start mpelog serve with \
                         --allow-host {name} if that name is this machine's"
                    ),
                ));
            }
        }
        if let Some(origin) = head.origin {
            if !self.same_origin(origin, head.host) {
                return Decision::Answer(Response::error(
                    403,
                    "requests from other sites are refused: open the viewer itself",
                ));
            }
        }
        let Some(token) = &self.token else {
            return Decision::Serve(Vec::new());
        };
        let (path, query) = head.url.split_once('?').unwrap_or((head.url, ""));
        let in_query = query
            .split('&')
            .filter_map(|p| p.split_once('='))
            .any(|(k, v)| k == TOKEN_PARAM && token.matches(v));
        let in_header = head
            .authorization
            .and_then(|a| a.strip_prefix("Bearer "))
            .is_some_and(|v| token.matches(v.trim()));
        let in_cookie = head.cookie.is_some_and(|c| {
            c.split(';')
                .filter_map(|p| p.trim().split_once('='))
                .any(|(k, v)| k == self.cookie_name && token.matches(v))
        });
        if in_query && (path == "/" || path == "/index.html") {
            // The page visited with the token: the cookie, and the same page
            // without the token in its address.
            let rest: Vec<&str> = query
                .split('&')
                .filter(|p| !p.is_empty() && p.split('=').next() != Some(TOKEN_PARAM))
                .collect();
            let location = if rest.is_empty() {
                path.to_string()
            } else {
                format!("{path}?{}", rest.join("&"))
            };
            let mut r = Response::bytes(303, "text/plain; charset=utf-8", Vec::new());
            r.headers.push(("Location".into(), location));
            r.headers.push(("Set-Cookie".into(), self.cookie(token)));
            r.headers.push(("Cache-Control".into(), "no-store".into()));
            return Decision::Answer(r);
        }
        if in_query || in_header || in_cookie {
            return Decision::Serve(Vec::new());
        }
        let mut r = Response::error(
            401,
            "this server needs its token: open the address printed when it started \
             (…/?token=…), or send Authorization: Bearer TOKEN",
        );
        r.headers
            .push(("WWW-Authenticate".into(), "Bearer realm=\"mpelog\"".into()));
        Decision::Answer(r)
    }

    /// The `Set-Cookie` value that carries `token`.
    fn cookie(&self, token: &Token) -> String {
        format!(
            "{}={}; Path=/; HttpOnly; SameSite=Strict{}",
            self.cookie_name,
            token.as_str(),
            if self.tls { "; Secure" } else { "" }
        )
    }

    /// Whether `name` (lower case, no port, no brackets) is an accepted host.
    fn accepts(&self, name: &str) -> bool {
        if name == "localhost" || self.hosts.iter().any(|h| h == name) {
            return true;
        }
        match name.parse::<std::net::IpAddr>() {
            Ok(ip) => ip.is_loopback() || self.any_address,
            Err(_) => false,
        }
    }

    /// Whether `origin` (`scheme://host[:port]`) is this server as the
    /// request's `Host` header names it.
    fn same_origin(&self, origin: &str, host: Option<&str>) -> bool {
        let Some((scheme, authority)) = origin.split_once("://") else {
            return false; // `null`, or not an origin
        };
        let default_port = match scheme.to_ascii_lowercase().as_str() {
            "http" => "80",
            "https" => "443",
            _ => return false,
        };
        let origin_name = host_of_authority(authority);
        if !self.accepts(&origin_name) {
            return false;
        }
        match host {
            None => true,
            Some(h) => {
                let port = |a: &str| port_of_authority(a).unwrap_or(default_port).to_string();
                origin_name == host_of_authority(h) && port(authority) == port(h)
            }
        }
    }
}

/// A host name as compared: lower case, no trailing dot, an IPv6 address
/// without its brackets.
fn normal_host(name: &str) -> String {
    let n = name.trim().trim_end_matches('.').to_ascii_lowercase();
    n.strip_prefix('[')
        .and_then(|n| n.strip_suffix(']'))
        .map_or(n.clone(), str::to_string)
}

/// The host of an authority `host[:port]` (`[v6]:port` too), as
/// [`normal_host`] gives it.
fn host_of_authority(authority: &str) -> String {
    let a = authority.trim();
    if let Some(rest) = a.strip_prefix('[') {
        return normal_host(rest.split(']').next().unwrap_or(""));
    }
    match a.rsplit_once(':') {
        // One colon: a port. More: an IPv6 address without brackets.
        Some((h, p)) if !h.contains(':') && p.bytes().all(|b| b.is_ascii_digit()) => normal_host(h),
        _ => normal_host(a),
    }
}

/// The port of an authority, if it names one.
fn port_of_authority(authority: &str) -> Option<&str> {
    let a = authority.trim();
    let after_host = match a.strip_prefix('[') {
        Some(rest) => rest.split_once(']').map(|(_, p)| p)?,
        None if a.matches(':').count() == 1 => &a[a.find(':')?..],
        None => return None,
    };
    after_host
        .strip_prefix(':')
        .filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(a: &Access, head: Head<'_>) -> u16 {
        match a.check(&head) {
            Decision::Serve(_) => 200,
            Decision::Answer(r) => r.status,
        }
    }

    #[test]
    fn hosts_are_read_with_ports_brackets_and_case() {
        assert_eq!(host_of_authority("LocalHost:8080"), "localhost");
        assert_eq!(host_of_authority("[::1]:8080"), "::1");
        assert_eq!(host_of_authority("::1"), "::1");
        assert_eq!(host_of_authority("example.org."), "example.org");
        assert_eq!(port_of_authority("[::1]:8080"), Some("8080"));
        assert_eq!(port_of_authority("a:1"), Some("1"));
        assert_eq!(port_of_authority("a"), None);
        assert_eq!(port_of_authority("::1"), None);
    }

    #[test]
    fn loopback_names_and_addresses_are_accepted_and_others_not() {
        let a = Access::new("127.0.0.1", 8080);
        for ok in [
            "127.0.0.1:8080",
            "localhost",
            "[::1]:8080",
            "127.1.2.3",
            "LOCALHOST:1",
        ] {
            assert_eq!(status(&a, Head::new("/").host(Some(ok))), 200, "{ok}");
        }
        for no in [
            "evil.example.com:8080",
            "localhost.evil.example",
            "192.168.1.5:8080",
            "127.0.0.1.evil.example",
            "",
        ] {
            assert_eq!(status(&a, Head::new("/").host(Some(no))), 403, "{no}");
        }
        // No Host header at all (HTTP/1.0 tools): no name to check.
        assert_eq!(status(&a, Head::new("/")), 200);
    }

    #[test]
    fn the_bound_address_and_allowed_names_are_accepted() {
        let a = Access::new("10.1.2.3", 80).allow_host("Node7.Lab");
        assert_eq!(status(&a, Head::new("/").host(Some("10.1.2.3"))), 200);
        assert_eq!(status(&a, Head::new("/").host(Some("node7.lab:80"))), 200);
        assert_eq!(status(&a, Head::new("/").host(Some("10.1.2.4"))), 403);
        let v6 = Access::new("[fd00::5]", 80);
        assert_eq!(status(&v6, Head::new("/").host(Some("[fd00::5]:80"))), 200);
    }

    #[test]
    fn origins_must_be_the_server_itself() {
        let a = Access::new("127.0.0.1", 8080);
        let h = |o| {
            Head::new("/api/info")
                .host(Some("127.0.0.1:8080"))
                .origin(Some(o))
        };
        assert_eq!(status(&a, h("http://127.0.0.1:8080")), 200);
        assert_eq!(status(&a, h("http://evil.example:8080")), 403);
        assert_eq!(status(&a, h("http://127.0.0.1:9999")), 403);
        assert_eq!(status(&a, h("http://localhost:8080")), 403);
        assert_eq!(status(&a, h("null")), 403);
        assert_eq!(status(&a, h("file://")), 403);
        let plain = Access::new("127.0.0.1", 80);
        let d = Head::new("/")
            .host(Some("localhost"))
            .origin(Some("http://localhost"));
        assert_eq!(status(&plain, d), 200);
    }

    #[test]
    fn the_token_is_asked_for_by_query_header_or_cookie() {
        let a = Access::new("0.0.0.0", 8080).token(Token::given("s3cret"));
        assert_eq!(status(&a, Head::new("/api/info")), 401);
        assert_eq!(status(&a, Head::new("/api/info?token=s3cret")), 200);
        assert_eq!(status(&a, Head::new("/api/info?token=s3cre")), 401);
        assert_eq!(status(&a, Head::new("/api/info?token=s3cretX")), 401);
        assert_eq!(status(&a, Head::new("/trace?token=")), 401);
        let bearer = |v| Head::new("/trace").authorization(Some(v));
        assert_eq!(status(&a, bearer("Bearer s3cret")), 200);
        assert_eq!(status(&a, bearer("Bearer s3c")), 401);
        assert_eq!(status(&a, bearer("Basic s3cret")), 401);
        let cookie = |v| Head::new("/").cookie(Some(v));
        assert_eq!(status(&a, cookie("x=1; mpelog_token_8080=s3cret")), 200);
        assert_eq!(status(&a, cookie("mpelog_token_8081=s3cret")), 401);
        assert_eq!(status(&a, cookie("mpelog_token_8080=s3c")), 401);
    }

    #[test]
    fn the_page_with_the_token_redirects_without_it_and_sets_the_cookie() {
        let a = Access::new("0.0.0.0", 8080).token(Token::given("s3cret"));
        let Decision::Answer(r) = a.check(&Head::new("/?token=s3cret")) else {
            panic!("a redirect");
        };
        assert_eq!(r.status, 303);
        let header = |k: &str| {
            r.headers
                .iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.clone())
        };
        assert_eq!(header("Location").as_deref(), Some("/"));
        assert_eq!(
            header("Set-Cookie").as_deref(),
            Some("mpelog_token_8080=s3cret; Path=/; HttpOnly; SameSite=Strict")
        );
        // A wrong token sets nothing.
        assert_eq!(status(&a, Head::new("/?token=nope")), 401);
    }

    #[test]
    fn refusals_never_show_the_token() {
        let a = Access::new("0.0.0.0", 8080).token(Token::given("s3cret"));
        for head in [
            Head::new("/api/info?token=s3cre"),
            Head::new("/").host(Some("evil.example")),
        ] {
            let Decision::Answer(r) = a.check(&head) else {
                panic!()
            };
            let body = String::from_utf8(r.read_body().unwrap()).unwrap();
            assert!(!body.contains("s3cre"), "{body}");
        }
    }
}
