//! The rules: the catalog's `protectedOrigins` and the extra origins, compiled ([`Rules`]),
//! and the questions every reading of a URL asks them.
//!
//! Exact questions ([`Rules::host_match`], [`Rules::extra_match`], [`Rules::cookie_name`],
//! [`Rules::judge_host`], rules 3 and 4 of the spec) take a host as a parser gave it (any case,
//! one trailing dot dropped); pattern questions ([`Rules::could_be`],
//! [`Rules::could_be_cookie`]) take a host pattern with unknown parts (`pattern`), for the
//! fail-closed readings of `divergence`. Nothing here parses a URL.

use url::{Host, Url};

use super::host::{
    ip_of, is_at_or_under, is_at_or_under_bytes, is_strictly_under, parse_host, Extra,
};
use super::pattern::{
    all_ipv4_chars, could_be_name, could_be_strictly_under, could_be_under, has_ipv6_chars,
    known_text, Piece,
};
use super::protect::ProtectPattern;
use super::reason::{Record, Rule};
use super::syntax::{fold_path, is_scheme, trim_dot, unbracket};
use super::MAX_INNER;
use crate::catalog::ProtectedOrigins;
use crate::error::Error;

/// The compiled rules of a matcher: the catalog's `protectedOrigins`, the extra origins and
/// whether the stricter readings apply.
#[derive(Debug, Clone)]
pub(super) struct Rules {
    /// The catalog's domains, then the user's sites ([`ProtectPattern::Site`]) from
    /// `catalog_domains` on.
    pub(super) domains: Vec<String>,
    /// How many of `domains` are the catalog's.
    pub(super) catalog_domains: usize,
    /// The user's host patterns' domains ([`ProtectPattern::Subdomains`]): every host under
    /// one, not the domain itself.
    pub(super) under: Vec<String>,
    /// The user's patterns, as given to `Matcher::protecting`.
    pub(super) patterns: Vec<ProtectPattern>,
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

/// Which entry of `hosts`, `domains` or `under` a host matched.
pub(super) enum HostHit<'a> {
    Host,
    /// One of the catalog's domains.
    Domain(&'a str),
    /// One of the user's sites.
    Site(&'a str),
    /// Under one of the user's host patterns' domains.
    Under(&'a str),
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
            catalog_domains: domains.len(),
            under: Vec::new(),
            patterns: Vec::new(),
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

    /// Adds the user's patterns: sites to `domains`, host patterns to `under`, origins to the
    /// extra origins; one already there is not added again.
    pub(super) fn protect(&mut self, patterns: &[ProtectPattern]) {
        for pattern in patterns {
            if self.patterns.contains(pattern) {
                continue;
            }
            match pattern {
                ProtectPattern::Site { name } => {
                    if !self.domains[self.catalog_domains..].contains(name) {
                        self.domains.push(name.clone());
                    }
                }
                ProtectPattern::Subdomains { domain } => self.under.push(domain.clone()),
                ProtectPattern::Origin(origin) => self.extras.push(Extra::protected(origin)),
            }
            self.patterns.push(pattern.clone());
        }
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
                    HostHit::Site(name) => Rule::Protect {
                        matched: host.to_ascii_lowercase(),
                        pattern: name.to_string(),
                    },
                    HostHit::Under(domain) => Rule::Protect {
                        matched: host.to_ascii_lowercase(),
                        pattern: format!("*.{domain}"),
                    },
                });
                return true;
            }
        }
        if let Some(extra) = self.extra_match(scheme, host.as_bytes(), port) {
            rec.found(|| match extra.protect {
                true => Rule::Protect {
                    matched: extra.text.clone(),
                    pattern: extra.text.clone(),
                },
                false => Rule::ExtraOrigin {
                    origin: extra.text.clone(),
                },
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
        if let Some(i) = self
            .domains
            .iter()
            .position(|d| is_at_or_under_bytes(host, d.as_bytes()))
        {
            let d = self.domains[i].as_str();
            return Some(match i < self.catalog_domains {
                true => HostHit::Domain(d),
                false => HostHit::Site(d),
            });
        }
        self.under
            .iter()
            .find(|d| is_strictly_under(host, d.as_bytes()))
            .map(|d| HostHit::Under(d))
    }

    /// The domains whose cookies, and whose hosts' cookies, are protected: `domains` and
    /// `under` (a cookie set on a host pattern's domain is sent to every host under it).
    fn cookie_domains(&self) -> impl Iterator<Item = &String> {
        self.domains.iter().chain(&self.under)
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
        if self.cookie_domains().any(|d| is_at_or_under(name, d)) {
            return true;
        }
        let name = bare(name);
        let named = self
            .hosts
            .iter()
            .chain(self.cookie_domains())
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
            if let Some(d) = self
                .under
                .iter()
                .find(|d| could_be_strictly_under(pattern, d))
            {
                return Some(format!("*.{d}"));
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
        let under = self.cookie_domains().any(|d| could_be_under(pattern, d));
        let names = self
            .hosts
            .iter()
            .chain(self.cookie_domains())
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
