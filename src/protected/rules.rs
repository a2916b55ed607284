//! The rules: the catalog's `protectedOrigins` and the extra origins, compiled ([`Rules`]),
//! and the questions every reading of a URL asks them.
//!
//! Exact questions ([`Rules::host_match`], [`Rules::extra_match`], [`Rules::cookie_name`],
//! [`Rules::judge_host`], rules 3 and 4 of the spec) take a host as a parser gave it (any case,
//! one trailing dot dropped); pattern questions ([`Rules::could_be`],
//! [`Rules::could_be_cookie`]) take a host pattern with unknown parts (`pattern`), for the
//! fail-closed readings of `divergence`. Nothing here parses a URL.

use url::{Host, Url};

use super::host::{ip_of, is_at_or_under, is_at_or_under_bytes, parse_host, Extra};
use super::pattern::{
    all_ipv4_chars, could_be_name, could_be_under, has_ipv6_chars, known_text, Piece,
};
use super::reason::{Record, Rule};
use super::syntax::{fold_path, is_scheme, trim_dot, unbracket};
use super::MAX_INNER;
use crate::catalog::ProtectedOrigins;
use crate::error::Error;

/// The compiled rules of a matcher: the catalog's `protectedOrigins`, the extra origins and
/// whether the stricter readings apply.
#[derive(Debug, Clone)]
pub(super) struct Rules {
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
    /// The stricter readings of `Matcher::strict`.
    pub(super) strict: bool,
}

/// An inheriting URL of the catalog, as scheme and path (`about`, `blank`).
#[derive(Debug, Clone)]
pub(super) struct Inheriting {
    pub(super) scheme: String,
    /// Folded (see `syntax::fold_path`).
    pub(super) path: String,
}

/// Which entry of `hosts` or `domains` a host matched.
pub(super) enum HostHit<'a> {
    Host,
    Domain(&'a str),
}

/// Whether an inner URL at `depth` is nested past [`MAX_INNER`], so no more inner schemes are
/// unwrapped (rule 1). Shared by the parsed path and the fail-closed readings.
pub(super) fn too_deep(depth: usize) -> bool {
    depth >= MAX_INNER
}

impl Rules {
    /// The rules of `origins` and the extra origins (see `Matcher::new`).
    pub(super) fn new<S: AsRef<str>>(
        origins: &ProtectedOrigins,
        extra_origins: &[S],
    ) -> Result<Rules, Error> {
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
            extras.push(Extra::parse(i, text.as_ref())?);
        }
        let plain = |s: &str| !inner_schemes.iter().chain(&any_schemes).any(|x| x == s);
        Ok(Rules {
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

    /// Whether `scheme` is one of `schemes` (rule 3).
    pub(super) fn in_schemes(&self, scheme: &str) -> bool {
        self.schemes.iter().any(|s| s == scheme)
    }

    /// Whether `scheme` is one of `innerSchemes` (rule 1).
    pub(super) fn is_inner(&self, scheme: &str) -> bool {
        self.inner_schemes.iter().any(|s| s == scheme)
    }

    /// Whether `scheme` is one of `anySchemes` (rule 2).
    pub(super) fn is_any(&self, scheme: &str) -> bool {
        self.any_schemes.iter().any(|s| s == scheme)
    }

    /// Rules 3 and 4 for a parsed host (one trailing dot not yet dropped), recorded.
    pub(super) fn judge_host<R: Record>(
        &self,
        scheme: &str,
        host: &str,
        port: Option<u16>,
        rec: &mut R,
    ) -> bool {
        let host = trim_dot(host);
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

    /// The protected domain, host or extra origin a host pattern could be, if any.
    pub(super) fn could_be(
        &self,
        scheme: &str,
        pattern: &[Piece],
        port: Option<u16>,
    ) -> Option<String> {
        if self.in_schemes(scheme) {
            if let Some(d) = self.domains.iter().find(|d| could_be_under(pattern, d)) {
                return Some(format!("{d} or under it"));
            }
            if let Some(h) = self.hosts.iter().find(|h| could_be_name(pattern, h)) {
                return Some(h.clone());
            }
        }
        self.extras
            .iter()
            .find(|e| e.scheme == scheme && e.port == port && could_be_name(pattern, &e.host))
            .map(|e| e.text.clone())
    }

    /// Whether a host pattern could be a protected cookie name: a protected domain or under
    /// one, or a protected host, domain or extra origin's host or a parent of one, or an IP
    /// extra origin's address.
    pub(super) fn could_be_cookie(&self, pattern: &[Piece]) -> bool {
        if let Some(text) = known_text(pattern) {
            if let Some(ip) = ip_of(&text) {
                return self.extras.iter().any(|e| e.ip() == Some(ip));
            }
            let name = text.trim_matches('.');
            return !name.is_empty() && self.cookie_name(name);
        }
        let under = self.domains.iter().any(|d| could_be_under(pattern, d));
        let names = self
            .hosts
            .iter()
            .chain(&self.domains)
            .map(String::as_str)
            .chain(self.extras.iter().map(|e| unbracket(&e.host)));
        let parent = names.into_iter().any(|name| {
            let suffixes =
                std::iter::once(name).chain(name.match_indices('.').map(|(i, _)| &name[i + 1..]));
            suffixes
                .filter(|s| !s.is_empty())
                .any(|s| could_be_name(pattern, s))
        });
        let ipv6 = has_ipv6_chars(pattern);
        let ipv4 = all_ipv4_chars(pattern);
        under
            || parent
            || self
                .extras
                .iter()
                .any(|e| (ipv6 && e.is_ipv6()) || (ipv4 && e.is_ipv4()))
    }
}

/// The catalog's schemes at `path`, lower case; an error names one that is not a URL scheme.
fn schemes_of(path: &str, list: &[String]) -> Result<Vec<String>, Error> {
    list.iter()
        .enumerate()
        .map(|(i, s)| {
            if is_scheme(s) {
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
