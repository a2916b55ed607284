//! The user's own protected sites ([`ProtectPattern`]: `bank.example`, `*.corp.example`,
//! `https://host:port`), read once, by the parsers the matcher reads the catalog with.

use std::fmt;

use url::Host;

use super::host::parse_host;
use crate::catalog::{NotAnOrigin, Origin};

/// A site, host pattern or origin the user protects besides the catalog's (the command line's
/// `--protect`), read once by [`ProtectPattern::parse`] and given to
/// [`Matcher::protecting`](super::Matcher::protecting).
///
/// Three forms, each read with the parsers and amendments the matcher applies to the catalog's
/// own `protectedOrigins`, so that every spelling of a host the matcher closes for `sliccy.ai`
/// (IDNA, case, trailing dots, percent escapes, full-width letters, user info, backslashes,
/// inner schemes) is closed for the user's pattern too:
///
/// - a **site**, `bank.example`: the host and every host under it, on any port, for the
///   catalog's `schemes` (`https`, `http`; and `ws`, `wss` where the matcher reads those as
///   them), as the catalog's `sliccy.ai` domain is read;
/// - a **host pattern**, `*.corp.example`: every host under `corp.example`, but not
///   `corp.example` itself (its cookies are protected all the same: a cookie set on a parent
///   domain is sent to every host under it);
/// - an **origin**, `https://host:port` (anything with `://`): that scheme, host and port
///   only, as an extra origin (`--origin`) is read ([`Origin::parse_extra`]).
///
/// An IP address is not a site (a browser has no subdomains of it, and the matcher's readings
/// of IP spellings are those of origins): give it as an origin, `http://192.168.1.1:8080`.
///
/// ```
/// use slicc_browsers::protected::{Matcher, ProtectPattern};
/// let bank = ProtectPattern::parse("BANK.Example.").unwrap();
/// assert_eq!(bank.to_string(), "bank.example");
/// let m = Matcher::new(&slicc_browsers::shared_catalog().protected_origins, &[] as &[&str])
///     .unwrap()
///     .protecting(&[bank]);
/// assert!(m.url("https://login.bank.example:8443/"));
/// assert!(m.url("http://ｌｏｇｉｎ.%62ank.example./"));
/// assert!(!m.url("https://bank.example.evil.test/"));
/// assert!(ProtectPattern::parse("bank.example/login").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ProtectPattern {
    /// `name` and every host under it (`bank.example`).
    Site {
        /// The host, as the URL Standard's host parser writes it (lower case, IDNA applied,
        /// no trailing dot).
        name: String,
    },
    /// Every host under `domain`, but not `domain` itself (`*.corp.example`).
    Subdomains {
        /// The domain, as for [`ProtectPattern::Site`].
        domain: String,
    },
    /// One origin: scheme, host and port (`https://intranet.example:8443`).
    Origin(Origin),
}

/// Why a text is not a [`ProtectPattern`]; its `Display` names the pattern and says what would
/// be one.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BadPattern {
    /// The pattern is empty or only whitespace.
    Empty,
    /// A pattern with `://` that is not an origin (it has a path, user info, no host, …).
    NotAnOrigin {
        /// The pattern as given.
        pattern: String,
        /// Why it is not an origin.
        why: NotAnOrigin,
    },
    /// A site with a port or a scheme (`bank.example:8443`): a site is every port; one port
    /// is an origin.
    Port {
        /// The pattern as given.
        pattern: String,
    },
    /// A site that is an IP address.
    IpAddress {
        /// The pattern as given.
        pattern: String,
    },
    /// A `*` anywhere but a leading `*.` before a domain (`*bank.example`, `a.*.example`, `*`).
    Wildcard {
        /// The pattern as given.
        pattern: String,
    },
    /// The URL Standard's host parser refuses the host (a `/`, `@`, space or other forbidden
    /// character, an invalid `xn--` label).
    NotAHost {
        /// The pattern as given.
        pattern: String,
        /// The host parser's message.
        why: String,
    },
}

impl fmt::Display for BadPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const FORMS: &str =
            "expected a site (bank.example), a host pattern (*.corp.example) or an origin \
             (https://host:port)";
        match self {
            BadPattern::Empty => write!(f, "an empty pattern: {FORMS}"),
            BadPattern::NotAnOrigin { pattern, why } => {
                write!(f, "{pattern:?}: {why} (an origin is scheme://host[:port])")
            }
            BadPattern::Port { pattern } => write!(
                f,
                "{pattern:?}: a site has no scheme or port (it is every port); give one origin \
                 as scheme://host:port"
            ),
            BadPattern::IpAddress { pattern } => write!(
                f,
                "{pattern:?} is an IP address, not a site: give an origin, such as \
                 http://{pattern}:PORT"
            ),
            BadPattern::Wildcard { pattern } => write!(
                f,
                "{pattern:?}: `*` is allowed only as a leading `*.` before a domain \
                 (*.corp.example)"
            ),
            BadPattern::NotAHost { pattern, why } => {
                write!(f, "{pattern:?} is not a host ({why}): {FORMS}")
            }
        }
    }
}

impl std::error::Error for BadPattern {}

impl ProtectPattern {
    /// Reads a pattern: an origin when it has `://`, a host pattern when it starts with `*.`,
    /// else a site. Whitespace around it is ignored.
    ///
    /// ```
    /// use slicc_browsers::protected::{BadPattern, ProtectPattern};
    /// assert_eq!(
    ///     ProtectPattern::parse("*.Corp.example").unwrap(),
    ///     ProtectPattern::Subdomains { domain: "corp.example".into() }
    /// );
    /// assert_eq!(ProtectPattern::parse("https://h.example:443/").unwrap().to_string(), "https://h.example");
    /// assert!(matches!(ProtectPattern::parse("bank.example:8443"), Err(BadPattern::Port { .. })));
    /// assert!(matches!(ProtectPattern::parse("10.0.0.1"), Err(BadPattern::IpAddress { .. })));
    /// assert!(matches!(ProtectPattern::parse("a.*.example"), Err(BadPattern::Wildcard { .. })));
    /// ```
    pub fn parse(text: &str) -> Result<ProtectPattern, BadPattern> {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(BadPattern::Empty);
        }
        let pattern = || trimmed.to_string();
        if trimmed.contains("://") {
            return Origin::parse_extra(trimmed)
                .map(ProtectPattern::Origin)
                .map_err(|why| BadPattern::NotAnOrigin {
                    pattern: pattern(),
                    why,
                });
        }
        let (subdomains, host) = match trimmed.strip_prefix("*.") {
            Some(rest) => (true, rest),
            None => (false, trimmed),
        };
        if host.contains('*') || host.is_empty() {
            return Err(BadPattern::Wildcard { pattern: pattern() });
        }
        // `bank.example:8443` and `https:bank.example`: the host parser would only say that
        // `:` is forbidden.
        if host.contains(':') && !host.starts_with('[') {
            return Err(BadPattern::Port { pattern: pattern() });
        }
        if host.contains(['/', '\\', '?', '#', '@']) || host.contains(char::is_whitespace) {
            return Err(BadPattern::NotAHost {
                pattern: pattern(),
                why: "a site is a host name alone, with no path, query, user info or space".into(),
            });
        }
        let name = match Host::parse(host) {
            Err(e) => {
                return Err(BadPattern::NotAHost {
                    pattern: pattern(),
                    why: e.to_string(),
                })
            }
            Ok(Host::Ipv4(_) | Host::Ipv6(_)) => {
                return Err(BadPattern::IpAddress { pattern: pattern() })
            }
            // The catalog's reader of its domains: lower case, one trailing dot dropped.
            Ok(Host::Domain(_)) => match parse_host(host) {
                Some(Host::Domain(name)) => name,
                _ => {
                    return Err(BadPattern::NotAHost {
                        pattern: pattern(),
                        why: "empty host".into(),
                    })
                }
            },
        };
        Ok(if subdomains {
            ProtectPattern::Subdomains { domain: name }
        } else {
            ProtectPattern::Site { name }
        })
    }

    /// Reads a file of patterns, one a line; blank lines and lines starting with `#` are
    /// skipped. An error names the line (1-based) and the pattern.
    ///
    /// ```
    /// use slicc_browsers::protected::ProtectPattern;
    /// let list = ProtectPattern::parse_lines("# mine\nbank.example\n\n  *.corp.example  \n").unwrap();
    /// assert_eq!(list.len(), 2);
    /// assert_eq!(ProtectPattern::parse_lines("ok.example\nbad/x\n").unwrap_err().0, 2);
    /// ```
    pub fn parse_lines(text: &str) -> Result<Vec<ProtectPattern>, (usize, BadPattern)> {
        text.lines()
            .enumerate()
            .map(|(i, line)| (i + 1, line.trim()))
            .filter(|(_, line)| !line.is_empty() && !line.starts_with('#'))
            .map(|(n, line)| ProtectPattern::parse(line).map_err(|e| (n, e)))
            .collect()
    }
}

impl fmt::Display for ProtectPattern {
    /// The pattern as it reads after parsing: `bank.example`, `*.corp.example`,
    /// `https://host:8443`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProtectPattern::Site { name } => f.write_str(name),
            ProtectPattern::Subdomains { domain } => write!(f, "*.{domain}"),
            ProtectPattern::Origin(origin) => write!(f, "{origin}"),
        }
    }
}

impl std::str::FromStr for ProtectPattern {
    type Err = BadPattern;
    fn from_str(s: &str) -> Result<ProtectPattern, BadPattern> {
        ProtectPattern::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sites_are_read_as_the_catalog_reads_its_domains() {
        let site = |t: &str| ProtectPattern::parse(t).unwrap().to_string();
        assert_eq!(site("  Bank.EXAMPLE. "), "bank.example");
        assert_eq!(site("%62ank.example"), "bank.example");
        assert_eq!(site("ｂａｎｋ。example"), "bank.example");
        assert_eq!(site("bänk.example"), "xn--bnk-qla.example");
        assert_eq!(site("*.CORP.example"), "*.corp.example");
        assert_eq!(site("localhost"), "localhost");
        assert_eq!(site("http://LOCALHOST:5710/"), "http://localhost:5710");
    }

    #[test]
    fn bad_patterns_name_themselves() {
        for (text, kind) in [
            ("", "Empty"),
            ("   ", "Empty"),
            ("bank.example:8443", "Port"),
            ("https:bank.example", "Port"),
            ("127.0.0.1", "IpAddress"),
            ("0x7f.1", "IpAddress"),
            ("[::1]", "IpAddress"),
            ("*", "Wildcard"),
            ("*.", "Wildcard"),
            ("*bank.example", "Wildcard"),
            ("a.*.example", "Wildcard"),
            ("*.*.example", "Wildcard"),
            ("bank.example/login", "NotAHost"),
            ("user@bank.example", "NotAHost"),
            ("bank example", "NotAHost"),
            ("xn--a.example", "NotAHost"),
            ("https://bank.example/login", "NotAnOrigin"),
            ("https://u@bank.example", "NotAnOrigin"),
        ] {
            let err = ProtectPattern::parse(text).unwrap_err();
            assert!(format!("{err:?}").starts_with(kind), "{text:?}: {err:?}");
            if !text.trim().is_empty() {
                assert!(err.to_string().contains(text.trim()), "{err}");
            }
        }
    }
}
