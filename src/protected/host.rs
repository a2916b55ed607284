//! Hosts and origins as the matcher reads them: the catalog's hosts and domains, IP addresses
//! in the forms browsers accept, the program's extra origins ([`Extra`]) and the IDNA
//! deviation characters.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use url::Host;

use super::syntax::{trim_dot, unbracket};
use crate::catalog::Origin;
use crate::error::Error;

/// A host as the URL Standard's host parser reads it, lower case and without one trailing dot.
pub(super) fn parse_host(text: &str) -> Option<Host<String>> {
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

/// The IP address a host text is, as a browser reads it: an IPv6 literal in brackets, or an
/// IPv4 address in any of the URL Standard's number forms.
pub(super) fn ip_of(text: &str) -> Option<IpAddr> {
    if let Some(inner) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        return inner.parse::<Ipv6Addr>().ok().map(IpAddr::V6);
    }
    match Host::parse(text).ok()? {
        Host::Ipv4(a) => Some(IpAddr::V4(a)),
        _ => None,
    }
}

/// `name` is `domain` or ends with `.domain` (ASCII case-insensitive).
pub(super) fn is_at_or_under_bytes(name: &[u8], domain: &[u8]) -> bool {
    if name.len() == domain.len() {
        return name.eq_ignore_ascii_case(domain);
    }
    name.len() > domain.len()
        && name[name.len() - domain.len() - 1] == b'.'
        && name[name.len() - domain.len()..].eq_ignore_ascii_case(domain)
}

/// `name` ends with `.domain` (ASCII case-insensitive): a host under `domain`, not `domain`.
pub(super) fn is_strictly_under(name: &[u8], domain: &[u8]) -> bool {
    name.len() > domain.len() && is_at_or_under_bytes(name, domain)
}

/// `name` is `domain` or ends with `.domain` (ASCII case-insensitive).
pub(super) fn is_at_or_under(name: &str, domain: &str) -> bool {
    is_at_or_under_bytes(name.as_bytes(), domain.as_bytes())
}

/// A name made of ASCII letters, digits, `-`, `_` and `.` whose last label is not a number and
/// that has no `xn--` label: a browser reads it as it stands.
pub(super) fn plain_name(name: &str) -> bool {
    let last = name.rsplit('.').next().unwrap_or(name);
    name.bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        && last.starts_with(|c: char| c.is_ascii_alphabetic())
        && !name.contains("xn--")
}

/// The deviation characters, mapped differently by transitional IDNA, and capital `ẞ`, which
/// UTS 46 tables before Unicode 15.1 map to `ss` (WHATWG parsers with such tables, Node 20's
/// among them, still read it so) and later ones to `ß`.
pub(super) const DEVIATIONS: [char; 5] = ['ß', 'ẞ', 'ς', '\u{200C}', '\u{200D}'];

/// A host as transitional IDNA maps the deviation characters among `which`: `ß` and `ẞ` to
/// `ss`, `ς` to `σ`, ZWJ and ZWNJ to nothing.
pub(super) fn transitional_form(text: &str, which: &[char]) -> String {
    let mut variant = String::with_capacity(text.len());
    for c in text.chars() {
        if !which.contains(&c) {
            variant.push(c);
            continue;
        }
        match c {
            'ß' | 'ẞ' => variant.push_str("ss"),
            'ς' => variant.push('σ'),
            '\u{200C}' | '\u{200D}' => {}
            c => variant.push(c),
        }
    }
    variant
}

/// An extra origin, normalised (an [`Origin`] and the text it was read from).
#[derive(Debug, Clone)]
pub(super) struct Extra {
    /// As given, for messages.
    pub(super) text: String,
    pub(super) scheme: String,
    /// Lower case, without a trailing dot; an IPv6 host keeps its brackets.
    pub(super) host: String,
    /// `None` for the scheme's default port.
    pub(super) port: Option<u16>,
    /// Given as a user's pattern (`ProtectPattern::Origin`), not as an extra origin.
    pub(super) protect: bool,
}

impl Extra {
    /// Parses extra origin number `i` by the crate's one reader of extra origins,
    /// [`Origin::parse_extra`].
    pub(super) fn parse(i: usize, text: &str) -> Result<Extra, Error> {
        let origin = Origin::parse_extra(text)
            .map_err(|e| Error::invalid(format!("extra origin {i} ({text:?})"), e.to_string()))?;
        Ok(Extra {
            text: text.trim().to_string(),
            scheme: origin.scheme,
            host: origin.host,
            port: origin.port,
            protect: false,
        })
    }

    /// A user's origin pattern (`ProtectPattern::Origin`), already read.
    pub(super) fn protected(origin: &Origin) -> Extra {
        Extra {
            text: origin.to_string(),
            scheme: origin.scheme.clone(),
            host: origin.host.clone(),
            port: origin.port,
            protect: true,
        }
    }

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
