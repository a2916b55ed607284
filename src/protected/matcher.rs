//! [`Matcher`]: the public face of the protected-origin rules, over URLs, targets, cookie
//! domains and storage keys.
//!
//! The top of the matcher's layers: it reads targets, cookie domains and storage keys, and
//! judges URLs by rules 1 to 4 ([`judge`], the parsed path), after the fast paths of `fast`,
//! with the fail-closed readings of `divergence` where the parse fails or may differ.

use url::Url;

use super::divergence;
use super::fast;
use super::host::plain_name;
use super::reason::{Divergence, Explain, Quiet, Reason, Record, Rule};
use super::rules::{too_deep, Inheriting, Rules};
use super::syntax::{clean, fold_path, trim_dot};
use super::Opener;
use super::ProtectPattern;
use crate::catalog::ProtectedOrigins;
use crate::error::Error;

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
    /// The compiled rules and whether the stricter readings apply.
    pub(super) rules: Rules,
}

impl Matcher {
    /// A matcher for `origins` (the catalog's `protectedOrigins`) and the program's extra
    /// origins, each `scheme://host[:port]` (a trailing `/` is allowed), read by
    /// [`Origin::parse_extra`](crate::catalog::Origin::parse_extra), the crate's one reader of
    /// extra origins (a launch's discard exceptions use it too).
    ///
    /// Fails with [`Error::Invalid`] naming the value when an extra origin is not an origin
    /// (no host, a path, query, fragment or user info) or the catalog's lists are unusable.
    pub fn new<S: AsRef<str>>(
        origins: &ProtectedOrigins,
        extra_origins: &[S],
    ) -> Result<Matcher, Error> {
        Rules::new(origins, extra_origins).map(|rules| Matcher { rules })
    }

    /// This matcher protecting the user's own sites, host patterns and origins too
    /// ([`ProtectPattern`], the command line's `--protect`), with every reading and amendment
    /// it applies to the catalog's domains and extra origins. A pattern already given is not
    /// added again, so calling it twice with the same patterns changes nothing.
    ///
    /// ```
    /// use slicc_browsers::protected::{Matcher, ProtectPattern};
    /// let cat = slicc_browsers::shared_catalog();
    /// let patterns: Vec<ProtectPattern> = ["bank.example", "*.corp.example", "http://nas.example:5000"]
    ///     .iter()
    ///     .map(|p| p.parse().unwrap())
    ///     .collect();
    /// let m = Matcher::new(&cat.protected_origins, &[] as &[&str]).unwrap().protecting(&patterns);
    /// assert!(m.url("blob:https://LOGIN.bank.example/x"));
    /// assert!(m.url("https://wiki.corp.example/"));
    /// assert!(!m.url("https://corp.example/"));
    /// assert!(m.url("http://nas.example:5000/"));
    /// assert!(!m.url("http://nas.example:5001/"));
    /// assert!(m.cookie_domain(".corp.example"));
    /// assert_eq!(
    ///     m.explain("https://login.bank.example/").unwrap().to_string(),
    ///     "host login.bank.example is under the protected pattern bank.example"
    /// );
    /// ```
    pub fn protecting(mut self, patterns: &[ProtectPattern]) -> Matcher {
        self.rules.protect(patterns);
        self
    }

    /// The user's patterns this matcher protects ([`Matcher::protecting`]), in order.
    pub fn protect_patterns(&self) -> &[ProtectPattern] {
        &self.rules.patterns
    }

    /// This matcher with readings stricter than the spec's rules, which fail closed where no
    /// Chromium today is known to reach a protected origin (so they are not vectors of
    /// `protected.json`; `tests/data/protected-strict.json` holds theirs):
    ///
    /// - `ws:` and `wss:` URLs are judged as `http:` and `https:` too (see
    ///   [`Matcher::cookie_url`]);
    /// - a host with deviation characters (`ß`, `ẞ`, `ς`, ZWJ, ZWNJ) is also judged as
    ///   transitional IDNA maps them, as Chromium did before it moved to nontransitional
    ///   processing, which also reads capital `ẞ` as `ss` as UTS 46 tables before Unicode 15.1
    ///   do (Node 20's `URL`); the default reading follows the current table, as Chromium 156
    ///   does ([`Divergence::Transitional`]; the module docs, "Which Unicode version");
    /// - inner schemes nested past [`MAX_INNER`](super::MAX_INNER) are protected ([`Divergence::Nesting`]);
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
        self.rules.strict = true;
        self
    }

    /// Whether this matcher has the stricter readings of [`Matcher::strict`].
    pub fn is_strict(&self) -> bool {
        self.rules.strict
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
        divergence::websocket(url, rec, |text, inner| judge(&self.rules, text, 0, inner))
    }

    /// Whether browser control must not reach `url`: the spec's four URL rules, plus the
    /// amendments of `docs/protected-amendments.md` where Chromium reaches a protected origin
    /// through a URL the rules allow (see the module docs). [`Matcher::strict`] adds readings
    /// without such evidence, and [`Matcher::cookie_url`] is for the URLs of cookie commands.
    pub fn url(&self, url: &str) -> bool {
        quick(&self.rules, url) || (self.rules.strict && self.websocket_as_http(url, &mut Quiet))
    }

    /// [`Matcher::url`] without its fast paths: every URL goes through the `url` crate's full
    /// parse. The tests and the fuzz target hold the two equal.
    #[doc(hidden)]
    pub fn url_parsed(&self, url: &str) -> bool {
        judge(&self.rules, url, 0, &mut Quiet)
            || (self.rules.strict && self.websocket_as_http(url, &mut Quiet))
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
        if judge(&self.rules, url, 0, &mut rec)
            || (self.rules.strict && self.websocket_as_http(url, &mut rec))
        {
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
        if !self.rules.strict {
            return self.inherits_as_written(url);
        }
        let cleaned = clean(url);
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
        if !self.rules.inheriting.iter().any(scheme_of) {
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
        self.rules
            .inheriting
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
        self.rules.inheriting.iter().any(|i| {
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
        if !self.rules.strict {
            return self.cookie_domain_as_written(domain);
        }
        let trimmed = domain.trim_matches(|c: char| c.is_ascii_whitespace() || c == '.');
        if trimmed.is_empty() {
            return true;
        }
        let lower = trimmed.to_ascii_lowercase();
        if self.rules.cookie_name(&lower) {
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
                .is_some_and(|h| self.rules.cookie_name(trim_dot(h)))
            {
                return true;
            }
        }
        divergence::cookie(&self.rules, &text)
    }

    /// The spec's cookie rule (lower case, one leading and one trailing dot dropped), then
    /// the domain as the host of `http://<domain>` (amendment A5).
    fn cookie_domain_as_written(&self, domain: &str) -> bool {
        let lower = domain.to_lowercase();
        let name = lower.strip_prefix('.').unwrap_or(&lower);
        let name = name.strip_suffix('.').unwrap_or(name);
        if !name.is_empty() && self.rules.cookie_name(name) {
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
                .is_some_and(|h| !h.is_empty() && self.rules.cookie_name(trim_dot(h))),
            Err(_) => divergence::cookie(&self.rules, &text),
        }
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
        if !self.rules.strict {
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
        &self.rules.refusal
    }

    /// The extra origins, as given (not the user's origin patterns: see
    /// [`Matcher::protect_patterns`]).
    pub fn extra_origins(&self) -> impl Iterator<Item = &str> {
        self.rules
            .extras
            .iter()
            .filter(|e| !e.protect)
            .map(|e| e.text.as_str())
    }

    /// The host texts a protected URL's host is or ends with, as a browser writes a URL it
    /// loads (lower case, IDNA and number forms resolved, no trailing dot): the catalog's
    /// domains and hosts, the user's sites and host patterns' domains, and the extra origins'
    /// hosts (an IPv6 one in brackets). Every
    /// `http(s)` URL [`Matcher::url`] protects, in the canonical form a browser reports,
    /// contains one of them; the guard's interception patterns are built on that.
    #[cfg_attr(not(feature = "guard"), allow(dead_code))]
    pub(crate) fn host_texts(&self) -> impl Iterator<Item = &str> {
        let rules = &self.rules;
        rules
            .domains
            .iter()
            .chain(&rules.under)
            .chain(&rules.hosts)
            .map(String::as_str)
            .chain(rules.extras.iter().map(|e| e.host.as_str()))
    }

    /// The schemes whose every URL is protected (the catalog's `anySchemes`) or carries an
    /// inner URL that may be (`innerSchemes`: a browser leaves the inner URL as written).
    #[cfg_attr(not(feature = "guard"), allow(dead_code))]
    pub(crate) fn scheme_texts(&self) -> impl Iterator<Item = &str> {
        let rules = &self.rules;
        rules
            .any_schemes
            .iter()
            .chain(&rules.inner_schemes)
            .map(String::as_str)
    }

    /// Whether `url`'s host may be same-site with a protected host, domain or extra origin,
    /// so that one renderer process may hold a page of each (Chromium gives each site its own
    /// processes, and a page and the same-site popup it opens share one). A superset of the
    /// registrable domain, as the crate carries no public suffix list: a host's site is its last
    /// two labels, or the whole host for an IP address or a single label; the scheme and the
    /// port are not compared. A URL with no host (`about:blank`, `data:`) is `false`.
    ///
    /// ```
    /// use slicc_browsers::protected::Matcher;
    /// let cat = slicc_browsers::shared_catalog();
    /// let m = Matcher::new(&cat.protected_origins, &["http://client.example", "http://127.0.0.1:5710"]).unwrap();
    /// assert!(m.shares_site("http://other.client.example/page"));
    /// assert!(m.shares_site("https://www.sliccy.ai/"));
    /// assert!(m.shares_site("http://127.0.0.1:3000/"));
    /// assert!(!m.shares_site("http://ordinary.test/"));
    /// assert!(!m.shares_site("http://example/"));
    /// assert!(!m.shares_site("about:blank"));
    /// ```
    pub fn shares_site(&self, url: &str) -> bool {
        let Some(host) = Url::parse(url).ok().and_then(|u| u.host_str().map(site_of)) else {
            return false;
        };
        let rules = &self.rules;
        let protected = rules.domains.iter().chain(&rules.under).chain(&rules.hosts);
        protected
            .map(String::as_str)
            .chain(self.rules.extras.iter().map(|e| e.host.as_str()))
            .any(|p| site_of(p) == host)
    }
}

/// A host's site as [`Matcher::shares_site`] reads it: lower case, no trailing dot, its last
/// two labels (the whole host for an IP address or a single label).
fn site_of(host: &str) -> String {
    let host = trim_dot(host).to_ascii_lowercase();
    let ip = host.starts_with('[') || host.parse::<std::net::Ipv4Addr>().is_ok();
    if ip {
        return host;
    }
    let labels: Vec<&str> = host.rsplitn(3, '.').collect();
    match labels.as_slice() {
        [last, second, ..] => format!("{second}.{last}"),
        _ => host,
    }
}

/// [`judge`] without a record, through the fast paths of `fast` where they answer: an inner
/// URL they hand back is judged at the next depth, and where they decline the full parse
/// judges the text at the depth reached.
fn quick(rules: &Rules, input: &str) -> bool {
    let mut text = input;
    let mut depth = 0;
    loop {
        match fast::read(rules, text, depth) {
            fast::Quick::Answer(answer) => return answer,
            fast::Quick::Inner(rest) => {
                text = rest;
                depth += 1;
            }
            fast::Quick::Rejected => {
                let next = |text: &str, rec: &mut Quiet| judge(rules, text, depth + 1, rec);
                return divergence::rejected(rules, text, depth, &mut Quiet, next);
            }
            fast::Quick::Transitional => return divergence::transitional(rules, text, &mut Quiet),
            fast::Quick::Parse => return judge(rules, text, depth, &mut Quiet),
        }
    }
}

/// Rules 1 to 4 over the URL `input` at `depth` inner schemes, recorded: the `url` crate's
/// parse, inner schemes unwrapped, any schemes, the host and extra-origin rules, and the
/// fail-closed readings of `divergence` where the parse fails or Chromium may read it
/// otherwise. [`Matcher::url_parsed`] without the `ws:` reading.
pub(super) fn judge<R: Record>(rules: &Rules, input: &str, depth: usize, rec: &mut R) -> bool {
    let next = |text: &str, rec: &mut R| judge(rules, text, depth + 1, rec);
    let url = match Url::parse(input) {
        Ok(url) => url,
        Err(_) => return divergence::rejected(rules, input, depth, rec, next),
    };
    let scheme = url.scheme();
    if rules.is_any(scheme) {
        rec.found(|| Rule::AnyScheme {
            scheme: scheme.to_string(),
        });
        return true;
    }
    if rules.is_inner(scheme) && too_deep(depth) && rules.strict {
        return divergence::nested_too_deep(rec);
    }
    // Rule 1 unwraps at most 8 times; a URL still inside an inner scheme then takes the
    // other rules as it is.
    if rules.is_inner(scheme) && !too_deep(depth) {
        rec.inner(scheme);
        let rest = &url.as_str()[scheme.len() + 1..];
        return divergence::inner_trim(input, scheme, rest, rec, next)
            .unwrap_or_else(|| next(rest, rec));
    }
    if let Some(host) = url.host_str() {
        if rules.judge_host(scheme, host, url.port(), rec) {
            return true;
        }
    }
    divergence::as_standard(rules, scheme, input, rec)
        || divergence::transitional(rules, input, rec)
}
