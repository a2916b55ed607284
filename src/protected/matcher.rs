//! [`Matcher`]: the protected-origin rules over URLs, targets, cookie domains and storage keys.

use std::borrow::Cow;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use url::{Host, Url};

use super::fallback;
use super::reason::{Divergence, Explain, Quiet, Reason, Record, Rule};
use super::{Opener, MAX_INNER};

/// Whether an inner URL at `depth` is nested past [`MAX_INNER`], so no more inner schemes are
/// unwrapped. Shared by the parsed path and the fallback.
pub(super) fn too_deep(depth: usize) -> bool {
    depth >= MAX_INNER
}

/// The strict reading of nesting past [`MAX_INNER`]: protected, with the reason recorded.
pub(super) fn nested_too_deep<R: Record>(rec: &mut R) -> bool {
    rec.found(|| Rule::FailClosed {
        divergence: Divergence::Nesting,
        host: None,
        could_be: None,
    });
    true
}
use crate::catalog::ProtectedOrigins;
use crate::Error;

/// The protected-origin matcher: the catalog's `protectedOrigins` plus the program's extra
/// origins (slicc-cli's `--origin` and `--page` origins).
///
/// Build it once and share it; every check takes `&self` and allocates nothing for an
/// ordinary `http(s)` URL.
///
/// ```
/// use slicc_browsers::protected::Matcher;
/// let cat = slicc_browsers::shared_catalog();
/// let m = Matcher::new(&cat.protected_origins, &["http://localhost:5710"]).unwrap();
/// assert!(m.url("http://LOCALHOST.:5710/app"));
/// assert!(!m.url("http://localhost:5711/app"));
/// assert!(Matcher::new(&cat.protected_origins, &["localhost:5710"]).is_err());
/// ```
#[derive(Debug, Clone)]
pub struct Matcher {
    pub(super) domains: Vec<String>,
    pub(super) hosts: Vec<String>,
    pub(super) schemes: Vec<String>,
    pub(super) inner_schemes: Vec<String>,
    pub(super) any_schemes: Vec<String>,
    pub(super) inheriting: Vec<Inheriting>,
    pub(super) refusal: String,
    pub(super) extras: Vec<Extra>,
    /// Whether `http:` / `https:` URLs may take the fast path (neither is an inner or any scheme).
    pub(super) fast_http: bool,
    pub(super) fast_https: bool,
    /// The stricter readings of [`Matcher::strict`].
    pub(super) strict: bool,
}

/// An inheriting URL of the catalog, as scheme and path (`about`, `blank`).
#[derive(Debug, Clone)]
pub(super) struct Inheriting {
    scheme: String,
    path: String,
}

/// An extra origin, normalised.
#[derive(Debug, Clone)]
pub(super) struct Extra {
    /// As given, for messages.
    pub(super) text: String,
    pub(super) scheme: String,
    /// Lower case, without a trailing dot; an IPv6 host keeps its brackets.
    pub(super) host: String,
    /// `None` for the scheme's default port.
    pub(super) port: Option<u16>,
}

/// Which entry of `hosts` or `domains` a host matched.
pub(super) enum HostHit<'a> {
    Host,
    Domain(&'a str),
}

impl Matcher {
    /// A matcher for `origins` (the catalog's `protectedOrigins`) and the program's extra
    /// origins, each `scheme://host[:port]` (a trailing `/` is allowed).
    ///
    /// Fails with [`Error::Invalid`] naming the value when an extra origin is not an origin
    /// (no host, a path, query, fragment or user info) or the catalog's lists are unusable.
    pub fn new<S: AsRef<str>>(
        origins: &ProtectedOrigins,
        extra_origins: &[S],
    ) -> Result<Matcher, Error> {
        let schemes = schemes_of("/protectedOrigins/schemes", &origins.schemes)?;
        let inner_schemes = schemes_of("/protectedOrigins/innerSchemes", &origins.inner_schemes)?;
        let any_schemes = schemes_of("/protectedOrigins/anySchemes", &origins.any_schemes)?;
        let mut domains = Vec::with_capacity(origins.domains.len());
        for (i, d) in origins.domains.iter().enumerate() {
            let path = format!("/protectedOrigins/domains/{i}");
            match parse_host(d) {
                Some(Host::Domain(name)) => domains.push(name),
                Some(_) => {
                    return Err(Error::invalid(
                        path,
                        format!("{d:?} is an IP address, not a domain"),
                    ))
                }
                None => return Err(Error::invalid(path, format!("{d:?} is not a domain"))),
            }
        }
        let mut hosts = Vec::with_capacity(origins.hosts.len());
        for (i, h) in origins.hosts.iter().enumerate() {
            match parse_host(h) {
                Some(host) => hosts.push(host.to_string()),
                None => {
                    let path = format!("/protectedOrigins/hosts/{i}");
                    return Err(Error::invalid(path, format!("{h:?} is not a host")));
                }
            }
        }
        let mut inheriting = Vec::with_capacity(origins.inheriting.len());
        for (i, text) in origins.inheriting.iter().enumerate() {
            let path = format!("/protectedOrigins/inheriting/{i}");
            let url =
                Url::parse(text).map_err(|e| Error::invalid(&path, format!("{text:?}: {e}")))?;
            if url.host_str().is_some_and(|h| !h.is_empty()) {
                return Err(Error::invalid(path, format!("{text:?} has a host")));
            }
            inheriting.push(Inheriting {
                scheme: url.scheme().to_string(),
                path: fold_path(url.path()).into_owned(),
            });
        }
        let mut extras = Vec::with_capacity(extra_origins.len());
        for (i, text) in extra_origins.iter().enumerate() {
            extras.push(extra(i, text.as_ref())?);
        }
        let plain = |s: &str| !inner_schemes.iter().chain(&any_schemes).any(|x| x == s);
        Ok(Matcher {
            fast_http: plain("http"),
            fast_https: plain("https"),
            domains,
            hosts,
            schemes,
            inner_schemes,
            any_schemes,
            inheriting,
            refusal: origins.refusal.clone(),
            extras,
            strict: false,
        })
    }

    /// This matcher with readings stricter than the spec's rules, which fail closed where no
    /// Chromium today is known to reach a protected origin (so they are not vectors of
    /// `protected.json`; `tests/data/protected-strict.json` holds theirs):
    ///
    /// - `ws:` and `wss:` URLs are judged as `http:` and `https:` too (see
    ///   [`Matcher::cookie_url`]);
    /// - a host with deviation characters (`ß`, `ẞ`, `ς`, ZWJ, ZWNJ) is also judged as
    ///   transitional IDNA maps them, as Chromium did before it moved to nontransitional
    ///   processing ([`Divergence::Transitional`]);
    /// - inner schemes nested past [`MAX_INNER`] are protected ([`Divergence::Nesting`]);
    /// - an IPv6 literal the parser rejects (`[::1%25eth0]`) is protected when an extra origin
    ///   with its scheme and port is an IPv6 literal;
    /// - a target URL inherits its origin also in any case, with escapes, a trailing `/` or made
    ///   of whitespace (`ABOUT:BLANK`, `about:%62lank`, `about:srcdoc/`);
    /// - a cookie domain loses all its leading and trailing dots and whitespace, an empty one
    ///   is protected, and an IPv6 extra origin's host matches with and without brackets;
    /// - every `^` part of a storage key that is a URL is judged, not only the origin and `^0`.
    ///
    /// ```
    /// use slicc_browsers::protected::{Matcher, Opener};
    /// let cat = slicc_browsers::shared_catalog();
    /// let m = Matcher::new(&cat.protected_origins, &[] as &[&str]).unwrap();
    /// assert!(!m.url("wss://seven.sliccy.ai/"));
    /// assert!(!m.cookie_domain(""));
    /// let strict = m.clone().strict();
    /// assert!(strict.url("wss://seven.sliccy.ai/"));
    /// assert!(strict.cookie_domain(""));
    /// assert!(strict.target("ABOUT:BLANK", true, Opener::None));
    /// ```
    pub fn strict(mut self) -> Matcher {
        self.strict = true;
        self
    }

    /// Whether this matcher has the stricter readings of [`Matcher::strict`].
    pub fn is_strict(&self) -> bool {
        self.strict
    }

    /// Whether a URL given to a cookie command (the `url` or `urls` of `Network.getCookies`,
    /// `setCookie` or `deleteCookies`) reaches a protected origin's cookies: [`Matcher::url`],
    /// and a `ws:` or `wss:` URL also as `http:` or `https:`, since Chromium's cookie store
    /// treats them alike (`kDefaultCookieableSchemes` in `net/cookies/cookie_monster.cc`).
    ///
    /// ```
    /// use slicc_browsers::protected::Matcher;
    /// let m = Matcher::new(&slicc_browsers::shared_catalog().protected_origins, &["http://127.0.0.1:5710"]).unwrap();
    /// assert!(m.cookie_url("wss://seven.sliccy.ai/"));
    /// assert!(m.cookie_url("ws://127.0.0.1:5710/"));
    /// assert!(!m.url("wss://seven.sliccy.ai/"));
    /// assert!(!m.cookie_url("ftp://seven.sliccy.ai/"));
    /// ```
    pub fn cookie_url(&self, url: &str) -> bool {
        self.url(url) || self.websocket_as_http(url, &mut Quiet)
    }

    /// A `ws:` / `wss:` URL judged as the `http:` / `https:` URL with the same rest.
    fn websocket_as_http<R: Record>(&self, url: &str, rec: &mut R) -> bool {
        let cleaned = fallback::clean(url);
        let Some((scheme, rest)) = cleaned.split_once(':') else {
            return false;
        };
        let Some(alias) = websocket_alias(&scheme.to_ascii_lowercase()) else {
            return false;
        };
        let text = format!("{alias}:{rest}");
        let mut inner = Explain::default();
        if !self.judge(&text, 0, &mut inner) {
            return false;
        }
        rec.found(|| Rule::FailClosed {
            divergence: Divergence::WebSocket,
            host: None,
            could_be: inner.rule.map(|r| r.to_string()),
        });
        true
    }

    /// Whether browser control must not reach `url`: the spec's four URL rules, plus the
    /// amendments of `docs/protected-amendments.md` where Chromium reaches a protected origin
    /// through a URL the rules allow (see the module docs). [`Matcher::strict`] adds readings
    /// without such evidence, and [`Matcher::cookie_url`] is for the URLs of cookie commands.
    pub fn url(&self, url: &str) -> bool {
        let answer = match self.fast(url).or_else(|| self.lenient(url)) {
            Some(answer) => answer,
            None => self.judge(url, 0, &mut Quiet),
        };
        answer || (self.strict && self.websocket_as_http(url, &mut Quiet))
    }

    /// [`Matcher::url`] without its fast path for plain `http(s)` URLs: every URL goes through
    /// the `url` crate. The tests and the fuzz target hold the two equal.
    #[doc(hidden)]
    pub fn url_parsed(&self, url: &str) -> bool {
        self.judge(url, 0, &mut Quiet) || (self.strict && self.websocket_as_http(url, &mut Quiet))
    }

    /// Why `url` is protected, or `None` when it is not; `explain(u).is_some() == url(u)`.
    ///
    /// ```
    /// use slicc_browsers::protected::{Matcher, Rule};
    /// let m = Matcher::new(&slicc_browsers::shared_catalog().protected_origins, &[] as &[&str]).unwrap();
    /// let why = m.explain("view-source:https://Vault.Sliccy.AI/").unwrap();
    /// assert_eq!(why.inner, ["view-source"]);
    /// assert_eq!(why.rule, Rule::Host { host: "vault.sliccy.ai".into() });
    /// assert_eq!(why.to_string(), "host vault.sliccy.ai is protected (inside view-source:)");
    /// assert!(m.explain("https://example.test/").is_none());
    /// ```
    pub fn explain(&self, url: &str) -> Option<Reason> {
        let mut rec = Explain::default();
        if self.judge(url, 0, &mut rec) || (self.strict && self.websocket_as_http(url, &mut rec)) {
            let rule = rec.rule.unwrap_or(Rule::FailClosed {
                divergence: Divergence::RejectedHost,
                host: None,
                could_be: None,
            });
            Some(Reason {
                inner: rec.inner,
                rule,
            })
        } else {
            None
        }
    }

    /// Whether a CDP target at `url` is protected. `previous` says whether it counted as
    /// protected before it went to `url`; `opener` is its opener's state.
    ///
    /// A URL that inherits its origin (empty, `about:blank`, `about:srcdoc`, with any query or
    /// fragment, and `about:blank/`, amendment A6) is protected when `previous` is true or the
    /// opener is protected or unknown; any other URL is judged by [`Matcher::url`].
    ///
    /// ```
    /// use slicc_browsers::protected::{Matcher, Opener};
    /// let m = Matcher::new(&slicc_browsers::shared_catalog().protected_origins, &[] as &[&str]).unwrap();
    /// assert!(m.target("about:blank#x", true, Opener::None));
    /// assert!(m.target("", false, Opener::Protected));
    /// assert!(!m.target("about:blank", false, Opener::Unprotected));
    /// assert!(!m.target("https://example.test/", true, Opener::Unknown));
    /// ```
    pub fn target(&self, url: &str, previous: bool, opener: Opener) -> bool {
        // Or-ing the two keeps it closed: a URL read as inheriting that really has an origin of
        // its own is still judged by that origin.
        ((previous || opener.passes_on_protection()) && self.inherits(url)) || self.url(url)
    }

    /// Whether `url` takes its origin from whoever made the document: the empty URL or one of
    /// the catalog's `inheriting` URLs with any query or fragment, and `about:blank/`
    /// (Chromium's `GURL::IsAboutBlank` accepts it; amendment A6).
    ///
    /// A [strict](Matcher::strict) matcher also accepts whitespace, a trailing `/` after any
    /// inheriting URL, any case and percent-escapes in the path: reading too much as inheriting
    /// only adds protection.
    pub fn inherits(&self, url: &str) -> bool {
        if !self.strict {
            return self.inherits_as_written(url);
        }
        let cleaned = fallback::clean(url);
        if cleaned.is_empty() {
            return true;
        }
        // A URL's scheme is its first characters, in any case: most URLs need no parse here.
        let bytes = cleaned.as_bytes();
        let scheme_of = |i: &Inheriting| {
            let n = i.scheme.len();
            bytes.len() > n
                && bytes[n] == b':'
                && bytes[..n].eq_ignore_ascii_case(i.scheme.as_bytes())
        };
        if !self.inheriting.iter().any(scheme_of) {
            return false;
        }
        let Ok(parsed) = Url::parse(&cleaned) else {
            return false;
        };
        if parsed.host_str().is_some_and(|h| !h.is_empty())
            || !parsed.username().is_empty()
            || parsed.password().is_some()
            || parsed.port().is_some()
        {
            return false;
        }
        let path = fold_path(parsed.path());
        let path = path.strip_suffix('/').unwrap_or(&path);
        self.inheriting
            .iter()
            .any(|i| i.scheme == parsed.scheme() && i.path == path)
    }

    /// The target rule's inheriting URLs as the spec writes them, plus `about:blank/`.
    fn inherits_as_written(&self, url: &str) -> bool {
        if url.is_empty() {
            return true;
        }
        let Ok(parsed) = Url::parse(url) else {
            return false;
        };
        let href = parsed.as_str();
        let base = &href[..href.find(['?', '#']).unwrap_or(href.len())];
        let Some((scheme, path)) = base.split_once(':') else {
            return false;
        };
        self.inheriting.iter().any(|i| {
            i.scheme == scheme
                && (i.path == path
                    || (i.path == "blank" && i.scheme == "about" && path == "blank/"))
        })
    }

    /// Whether a cookie domain reaches a protected origin.
    ///
    /// The domain is lower-cased and loses its leading and trailing dots. It is protected when
    /// it is one of `domains` or under one, or when it is one of `hosts`, a protected domain or
    /// an extra origin's host, or a parent of one. An empty domain is protected. CDP reads a
    /// cookie domain as the authority of `http://<domain>`, so the host of that URL is judged
    /// the same way too (`x@sliccy.ai`, `sliccy.ai:443` and `127.1` are protected).
    ///
    /// ```
    /// use slicc_browsers::protected::Matcher;
    /// let m = Matcher::new(&slicc_browsers::shared_catalog().protected_origins, &["https://seven.example.test"]).unwrap();
    /// assert!(m.cookie_domain(".example.test"));
    /// assert!(m.cookie_domain("x.SLICCY.ai."));
    /// assert!(m.cookie_domain("x@sliccy.ai"));
    /// assert!(!m.cookie_domain("other.example.test"));
    /// ```
    pub fn cookie_domain(&self, domain: &str) -> bool {
        if !self.strict {
            return self.cookie_domain_as_written(domain);
        }
        let trimmed = domain.trim_matches(|c: char| c.is_ascii_whitespace() || c == '.');
        if trimmed.is_empty() {
            return true;
        }
        let lower = trimmed.to_ascii_lowercase();
        if self.cookie_name(&lower) {
            return true;
        }
        if plain_name(&lower) {
            return false;
        }
        // CDP's `Network.setCookie` and `Storage.setCookies` make the URL `http://<domain>`
        // and set the cookie on its host (`MakeCookieFromProtocolValues`), so Chromium reads a
        // domain as a URL's authority: `x@sliccy.ai`, `sliccy.ai:443`, `sliccy.ai/x`, `127.1`
        // and `[0::1]` all land on a protected host.
        let text = format!("http://{trimmed}/");
        if let Ok(url) = Url::parse(&text) {
            if url
                .host_str()
                .is_some_and(|h| self.cookie_name(trim_dot(h)))
            {
                return true;
            }
        }
        fallback::cookie(self, &text)
    }

    /// The spec's cookie rule (lower case, one leading and one trailing dot dropped), then
    /// the domain as the host of `http://<domain>` (amendment A5).
    fn cookie_domain_as_written(&self, domain: &str) -> bool {
        let lower = domain.to_lowercase();
        let name = lower.strip_prefix('.').unwrap_or(&lower);
        let name = name.strip_suffix('.').unwrap_or(name);
        if !name.is_empty() && self.cookie_name(name) {
            return true;
        }
        if plain_name(name) {
            return false;
        }
        // CDP's `Network.setCookie` and `Storage.setCookies` make the URL `http://<domain>`
        // (one leading dot dropped) and set the cookie on its host.
        let text = format!("http://{}", domain.strip_prefix('.').unwrap_or(domain));
        match Url::parse(&text) {
            Ok(url) => url
                .host_str()
                .is_some_and(|h| !h.is_empty() && self.cookie_name(trim_dot(h))),
            Err(_) => fallback::cookie(self, &text),
        }
    }

    /// Whether a cookie name (lower case, without its dots) is one of `domains` or under one,
    /// or one of `hosts`, `domains` or the extra origins' hosts, or a parent of one. A strict
    /// matcher compares IPv6 hosts with and without brackets.
    pub(super) fn cookie_name(&self, name: &str) -> bool {
        let strict = self.strict;
        let bare = move |h| if strict { unbracket(h) } else { h };
        if self.domains.iter().any(|d| is_at_or_under(name, d)) {
            return true;
        }
        let name = bare(name);
        let named = self
            .hosts
            .iter()
            .chain(&self.domains)
            .map(String::as_str)
            .chain(self.extras.iter().map(|e| e.host.as_str()));
        named.map(bare).any(|host| is_at_or_under(host, name))
    }

    /// Whether a CDP storage key (Storage, IndexedDB, CacheStorage, FileSystem) is protected:
    /// its origin (up to the first `^`) or its top-level site (the part after `^0`, up to the
    /// next `^`) is a protected URL.
    ///
    /// Every serialisation Chromium has used reads the same: with or without the origin's
    /// trailing `/`, with nonces (`^1`, `^2`) and the ancestor bit (`^3`). A
    /// [strict](Matcher::strict) matcher judges every other `^` part that is a URL too (the
    /// precursor `^6` of an opaque top-level site).
    ///
    /// ```
    /// use slicc_browsers::protected::Matcher;
    /// let m = Matcher::new(&slicc_browsers::shared_catalog().protected_origins, &[] as &[&str]).unwrap();
    /// assert!(m.storage_key("https://seven.sliccy.ai/"));
    /// assert!(m.storage_key("https://example.test/^0https://sliccy.ai"));
    /// assert!(!m.storage_key("https://example.test/^31"));
    /// ```
    pub fn storage_key(&self, key: &str) -> bool {
        let mut parts = key.split('^');
        if self.url(parts.next().unwrap_or_default()) {
            return true;
        }
        if !self.strict {
            let site = parts.find(|part| part.starts_with('0'));
            return site.is_some_and(|site| self.url(&site[1..]));
        }
        parts.any(|part| {
            let mut chars = part.chars();
            let _code = chars.next();
            let rest = chars.as_str();
            (!rest.is_empty() && self.url(rest)) || self.url(part)
        })
    }

    /// The text of a refusal, `slicc: refused: target is on seven's origin`.
    pub fn refusal(&self) -> &str {
        &self.refusal
    }

    /// The extra origins, as given.
    pub fn extra_origins(&self) -> impl Iterator<Item = &str> {
        self.extras.iter().map(|e| e.text.as_str())
    }

    /// The parsed-URL path of [`Matcher::url`]: inner schemes, any schemes, the host and
    /// extra-origin rules, and the fail-closed checks.
    pub(super) fn judge<R: Record>(&self, input: &str, depth: usize, rec: &mut R) -> bool {
        let url = match Url::parse(input) {
            Ok(url) => url,
            Err(_) => return fallback::rejected(self, input, depth, rec),
        };
        let scheme = url.scheme();
        if self.is_any(scheme) {
            rec.found(|| Rule::AnyScheme {
                scheme: scheme.to_string(),
            });
            return true;
        }
        if self.is_inner(scheme) && too_deep(depth) && self.strict {
            return nested_too_deep(rec);
        }
        // Rule 1 unwraps at most 8 times; a URL still inside an inner scheme then takes the
        // other rules as it is.
        if self.is_inner(scheme) && !too_deep(depth) {
            rec.inner(scheme);
            let rest = &url.as_str()[scheme.len() + 1..];
            // Chromium trims C0 controls and spaces before a `filesystem:` URL's inner URL,
            // where the `url` crate percent-encodes them into the opaque path (`%01https:…`).
            // Then the inner URL is read from the text as given, without them.
            if rest.trim_start_matches(' ').starts_with('%') {
                let cleaned = fallback::clean(input);
                let raw = cleaned
                    .get(scheme.len() + 1..)
                    .filter(|_| cleaned.as_bytes().get(scheme.len()) == Some(&b':'))
                    .filter(|raw| raw.trim_start_matches(' ').starts_with(|c: char| c < ' '));
                if let Some(raw) = raw {
                    rec.fail_closed_as(Divergence::InnerTrim);
                    let trimmed = raw.trim_start_matches(|c: char| c <= ' ');
                    return self.judge(trimmed, depth + 1, rec);
                }
            }
            return self.judge(rest, depth + 1, rec);
        }
        if let Some(host) = url.host_str() {
            if self.judge_host(scheme, host, url.port(), rec) {
                return true;
            }
        }
        self.as_standard(scheme, input, rec) || fallback::transitional(self, input, rec)
    }

    /// An extra origin whose scheme the URL Standard does not know (`chrome-extension:`):
    /// Chromium registers such schemes as standard and reads their URLs like special ones
    /// (`chrome-extension:abc/`, `chrome-extension:\\abc/`, `chrome-extension://%61bc/` and
    /// `chrome-extension://ａbc/` are all `chrome-extension://abc/` in Chromium 156), and drops
    /// the port of a scheme without ports, where the `url` crate keeps the URL opaque. Such a
    /// URL is read as an `http:` URL too, and matches an extra origin of its scheme by host on
    /// any port.
    pub(super) fn as_standard<R: Record>(&self, scheme: &str, input: &str, rec: &mut R) -> bool {
        if fallback::is_special(scheme) || !self.extras.iter().any(|e| e.scheme == scheme) {
            return false;
        }
        let cleaned = fallback::clean(input);
        let Some((_, rest)) = cleaned.split_once(':') else {
            return false;
        };
        let text = format!("http:{rest}");
        let found = match Url::parse(&text) {
            Ok(url) => url.host_str().and_then(|host| {
                let host = trim_dot(host);
                self.extras
                    .iter()
                    .find(|e| e.scheme == scheme && host.eq_ignore_ascii_case(&e.host))
                    .map(|e| (host.to_string(), e.text.clone()))
            }),
            Err(_) => fallback::standard(self, scheme, &text),
        };
        match found {
            Some((host, origin)) => {
                rec.found(|| Rule::FailClosed {
                    divergence: Divergence::StandardScheme,
                    host: Some(host),
                    could_be: Some(origin),
                });
                true
            }
            None => false,
        }
    }

    /// Rules 3 and 4 for a parsed host.
    fn judge_host<R: Record>(
        &self,
        scheme: &str,
        host: &str,
        port: Option<u16>,
        rec: &mut R,
    ) -> bool {
        self.judge_host_as(scheme, trim_dot(host), port, rec)
    }

    fn judge_host_as<R: Record>(
        &self,
        scheme: &str,
        host: &str,
        port: Option<u16>,
        rec: &mut R,
    ) -> bool {
        if self.in_schemes(scheme) {
            if let Some(hit) = self.host_match(host.as_bytes()) {
                rec.found(|| match hit {
                    HostHit::Host => Rule::Host {
                        host: host.to_ascii_lowercase(),
                    },
                    HostHit::Domain(domain) => Rule::Domain {
                        host: host.to_ascii_lowercase(),
                        domain: domain.to_string(),
                    },
                });
                return true;
            }
        }
        if let Some(extra) = self.extra_match(scheme, host.as_bytes(), port) {
            rec.found(|| Rule::ExtraOrigin {
                origin: extra.text.clone(),
            });
            return true;
        }
        false
    }

    /// Rule 3's host test: `host` (any case, one trailing dot already dropped) is one of
    /// `hosts`, or one of `domains` or under one.
    pub(super) fn host_match(&self, host: &[u8]) -> Option<HostHit<'_>> {
        if self
            .hosts
            .iter()
            .any(|h| host.eq_ignore_ascii_case(h.as_bytes()))
        {
            return Some(HostHit::Host);
        }
        self.domains
            .iter()
            .find(|d| is_at_or_under_bytes(host, d.as_bytes()))
            .map(|d| HostHit::Domain(d))
    }

    /// Rule 4: the extra origin with this scheme, host (any case, one trailing dot already
    /// dropped) and port (`None` for the default).
    pub(super) fn extra_match(
        &self,
        scheme: &str,
        host: &[u8],
        port: Option<u16>,
    ) -> Option<&Extra> {
        self.extras.iter().find(|e| {
            e.port == port && e.scheme == scheme && host.eq_ignore_ascii_case(e.host.as_bytes())
        })
    }

    pub(super) fn in_schemes(&self, scheme: &str) -> bool {
        self.schemes.iter().any(|s| s == scheme)
    }

    pub(super) fn is_inner(&self, scheme: &str) -> bool {
        self.inner_schemes.iter().any(|s| s == scheme)
    }

    pub(super) fn is_any(&self, scheme: &str) -> bool {
        self.any_schemes.iter().any(|s| s == scheme)
    }
}

/// The scheme Chromium's cookie store treats `ws` and `wss` as.
pub(super) fn websocket_alias(scheme: &str) -> Option<&'static str> {
    match scheme {
        "ws" => Some("http"),
        "wss" => Some("https"),
        _ => None,
    }
}

/// Drops one trailing dot.
pub(super) fn trim_dot(host: &str) -> &str {
    host.strip_suffix('.').unwrap_or(host)
}

/// Drops one trailing dot.
pub(super) fn trim_dot_bytes(host: &[u8]) -> &[u8] {
    host.strip_suffix(b".").unwrap_or(host)
}

/// `name` is `domain` or ends with `.domain` (ASCII case-insensitive).
fn is_at_or_under_bytes(name: &[u8], domain: &[u8]) -> bool {
    if name.len() == domain.len() {
        return name.eq_ignore_ascii_case(domain);
    }
    name.len() > domain.len()
        && name[name.len() - domain.len() - 1] == b'.'
        && name[name.len() - domain.len()..].eq_ignore_ascii_case(domain)
}

fn is_at_or_under(name: &str, domain: &str) -> bool {
    is_at_or_under_bytes(name.as_bytes(), domain.as_bytes())
}

/// A name made of ASCII letters, digits, `-`, `_` and `.` whose last label is not a number and
/// that has no `xn--` label: a browser reads it as it stands.
fn plain_name(name: &str) -> bool {
    let last = name.rsplit('.').next().unwrap_or(name);
    name.bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        && last.starts_with(|c: char| c.is_ascii_alphabetic())
        && !name.contains("xn--")
}

pub(super) fn unbracket(host: &str) -> &str {
    host.strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host)
}

/// A host as the URL Standard's host parser reads it, lower case and without one trailing dot.
fn parse_host(text: &str) -> Option<Host<String>> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    match Host::parse(text).ok()? {
        Host::Domain(d) => {
            let d = trim_dot(&d);
            (!d.is_empty()).then(|| Host::Domain(d.to_ascii_lowercase()))
        }
        ip => Some(ip),
    }
}

/// A path for comparing inheriting URLs: percent-decoded and lower case.
fn fold_path(path: &str) -> Cow<'_, str> {
    if path.contains('%') {
        let bytes = fallback::percent_decode(path.as_bytes());
        Cow::Owned(String::from_utf8_lossy(&bytes).to_lowercase())
    } else if path.bytes().any(|b| b.is_ascii_uppercase()) || !path.is_ascii() {
        Cow::Owned(path.to_lowercase())
    } else {
        Cow::Borrowed(path)
    }
}

fn schemes_of(path: &str, list: &[String]) -> Result<Vec<String>, Error> {
    list.iter()
        .enumerate()
        .map(|(i, s)| {
            let mut chars = s.chars();
            let ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
                && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
            if ok {
                Ok(s.to_ascii_lowercase())
            } else {
                Err(Error::invalid(
                    format!("{path}/{i}"),
                    format!("{s:?} is not a URL scheme"),
                ))
            }
        })
        .collect()
}

/// Parses extra origin number `i`.
fn extra(i: usize, text: &str) -> Result<Extra, Error> {
    let path = format!("extra origin {i} ({text:?})");
    let url = Url::parse(text.trim())
        .map_err(|e| Error::invalid(&path, format!("not an origin: {e}")))?;
    let host = match url.host_str() {
        Some(h) if !h.is_empty() => h,
        _ => return Err(Error::invalid(path, "not an origin: it has no host")),
    };
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Error::invalid(path, "not an origin: it has user info"));
    }
    if !matches!(url.path(), "" | "/") || url.query().is_some() || url.fragment().is_some() {
        return Err(Error::invalid(
            path,
            "not an origin: it has a path, query or fragment",
        ));
    }
    let host = trim_dot(host).to_ascii_lowercase();
    if host.is_empty() {
        return Err(Error::invalid(path, "not an origin: it has no host"));
    }
    Ok(Extra {
        text: text.trim().to_string(),
        scheme: url.scheme().to_string(),
        host,
        port: url.port(),
    })
}

impl Extra {
    /// The host as an IP address, when it is one.
    pub(super) fn ip(&self) -> Option<IpAddr> {
        match unbracket(&self.host).parse::<IpAddr>() {
            Ok(IpAddr::V6(a)) if self.host.starts_with('[') => Some(IpAddr::V6(a)),
            Ok(IpAddr::V4(a)) => Some(IpAddr::V4(a)),
            _ => None,
        }
    }

    /// Whether the host is an IPv4 address.
    pub(super) fn is_ipv4(&self) -> bool {
        self.host.parse::<Ipv4Addr>().is_ok()
    }

    /// Whether the host is an IPv6 literal.
    pub(super) fn is_ipv6(&self) -> bool {
        unbracket(&self.host).parse::<Ipv6Addr>().is_ok() && self.host.starts_with('[')
    }
}
