//! Origins as discovery compares them, and the seven-origin rule (feature `patterns`).

use std::fmt;

#[cfg(feature = "patterns")]
use super::Catalog;
use super::Seven;

/// A `scheme://host[:port]` origin, normalised: scheme and host in lower case, the scheme's
/// default port (443 for https and wss, 80 for http and ws) left out.
///
/// This reads the canonical URLs a browser reports (`/json/list`) and the origins a user passes;
/// it is not a WHATWG parser (the `protected` feature has one for security decisions).
///
/// ```
/// use slicc_browsers::catalog::Origin;
/// let o = Origin::parse("https://Seven.Sliccy.AI:443/path?q#f").unwrap();
/// assert_eq!(o.to_string(), "https://seven.sliccy.ai");
/// assert_eq!(Origin::parse("https://seven.sliccy.ai:8443/").unwrap().port, Some(8443));
/// assert!(Origin::parse("about:blank").is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Origin {
    /// The scheme, lower case.
    pub scheme: String,
    /// The host, lower case; an IPv6 host keeps its brackets.
    pub host: String,
    /// The port, absent when it is the scheme's default.
    pub port: Option<u16>,
}

/// Splits an authority written `host`, `host:port`, `[v6]` or `[v6]:port` into the host
/// (without brackets) and the port text, which is `None` when there is no `:port`. `None` for
/// a colon in a host outside brackets or text after `]` that is not `:port`. The port is not
/// checked here: each caller has its own rule for it.
///
/// This is the crate's one host:port splitter: `--cdp` values, origins, endpoints' `cdp`
/// URLs, the corpus's fake servers and validate all use it.
///
/// ```
/// use slicc_browsers::catalog::split_host_port;
/// assert_eq!(split_host_port("h:5000"), Some(("h", Some("5000"))));
/// assert_eq!(split_host_port("[fe80::1]:5000"), Some(("fe80::1", Some("5000"))));
/// assert_eq!(split_host_port("[::1]"), Some(("::1", None)));
/// assert_eq!(split_host_port("h"), Some(("h", None)));
/// assert_eq!(split_host_port("a:b:5000"), None);
/// assert_eq!(split_host_port("[::1]x"), None);
/// ```
pub fn split_host_port(authority: &str) -> Option<(&str, Option<&str>)> {
    if let Some(rest) = authority.strip_prefix('[') {
        let close = rest.find(']')?;
        let host = &rest[..close];
        return match &rest[close + 1..] {
            "" => Some((host, None)),
            tail => Some((host, Some(tail.strip_prefix(':')?))),
        };
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if !host.contains(':') => Some((host, Some(port))),
        Some(_) => None,
        None => Some((authority, None)),
    }
}

/// The default port of a scheme, if it has one.
pub(crate) fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "https" | "wss" => Some(443),
        "http" | "ws" => Some(80),
        "ftp" => Some(21),
        _ => None,
    }
}

impl Origin {
    /// The origin of `url`, or `None` when it has no `scheme://host` authority or a bad port.
    pub fn parse(url: &str) -> Option<Origin> {
        let url = url.trim();
        let colon = url.find(':')?;
        let scheme = &url[..colon];
        let mut chars = scheme.chars();
        if !chars.next()?.is_ascii_alphabetic()
            || !chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        {
            return None;
        }
        let scheme = scheme.to_ascii_lowercase();
        let rest = url[colon + 1..].strip_prefix("//")?;
        let end = rest.find(['/', '?', '#', '\\']).unwrap_or(rest.len());
        let authority = &rest[..end];
        // Userinfo is not part of the origin.
        let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let (host, port) = split_host_port(authority)?;
        if host.is_empty() {
            return None;
        }
        // An IPv6 host keeps its brackets in an origin.
        let host = if authority.starts_with('[') {
            format!("[{host}]")
        } else {
            host.to_string()
        };
        let port = match port {
            None | Some("") => None,
            Some(p) => {
                if !p.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                let n: u16 = p.parse().ok()?;
                Some(n)
            }
        };
        let port = port.filter(|p| Some(*p) != default_port(&scheme));
        Some(Origin {
            scheme,
            host: host.to_ascii_lowercase(),
            port,
        })
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://{}", self.scheme, self.host)?;
        if let Some(port) = self.port {
            write!(f, ":{port}")?;
        }
        Ok(())
    }
}

#[cfg(feature = "patterns")]
impl Catalog {
    /// Whether the URL's origin is one of seven's: `https://<label>.sliccy.ai` (by
    /// `seven.originHostPattern`, without the excluded labels and label prefixes, never the bare
    /// apex) on the default port, or one of `extra_origins`, compared without the default port.
    ///
    /// ```
    /// let cat = slicc_browsers::shared_catalog();
    /// let none: &[&str] = &[];
    /// assert!(cat.is_seven_origin("https://seven.sliccy.ai/x?y#z", none));
    /// assert!(cat.is_seven_origin("https://seven.sliccy.ai:443", none));
    /// assert!(!cat.is_seven_origin("https://seven.sliccy.ai:8443", none));
    /// assert!(!cat.is_seven_origin("https://www.sliccy.ai", none));
    /// assert!(!cat.is_seven_origin("https://vault-feature-x.sliccy.ai", none));
    /// assert!(!cat.is_seven_origin("https://sliccy.ai", none));
    /// assert!(!cat.is_seven_origin("http://seven.sliccy.ai", none));
    /// assert!(cat.is_seven_origin("http://127.0.0.1:5710/", &["http://127.0.0.1:5710"]));
    /// ```
    pub fn is_seven_origin<S: AsRef<str>>(&self, url: &str, extra_origins: &[S]) -> bool {
        let Some(origin) = Origin::parse(url) else {
            return false;
        };
        if self.is_seven_host_origin(&origin) {
            return true;
        }
        extra_origins
            .iter()
            .filter_map(|extra| Origin::parse(extra.as_ref()))
            .any(|extra| extra == origin)
    }

    /// The catalog rule alone: scheme, default port, host pattern and exclusions.
    fn is_seven_host_origin(&self, origin: &Origin) -> bool {
        if origin.scheme != self.seven.origin_scheme || origin.port.is_some() {
            return false;
        }
        let Some(re) = self.origin_host_regex() else {
            return false;
        };
        let Some(caps) = re.captures(&origin.host) else {
            return false;
        };
        // The pattern is anchored by convention; insist on a whole-host match regardless.
        if caps.get(0).map(|m| m.as_str()) != Some(origin.host.as_str()) {
            return false;
        }
        self.seven
            .is_seven_label(caps.get(1).map_or("", |m| m.as_str()))
    }
}

impl Seven {
    /// Whether a subdomain label (group 1 of `originHostPattern`) may name seven: it is not
    /// empty (the bare apex is never seven), not one of `excludedLabels` and starts with none
    /// of `excludedLabelPrefixes`. The host pattern itself is not checked here.
    ///
    /// ```
    /// let seven = &slicc_browsers::shared_catalog().seven;
    /// assert!(seven.is_seven_label("seven"));
    /// assert!(seven.is_seven_label("vaulted")); // the prefix is `vault-`
    /// assert!(!seven.is_seven_label(""));
    /// assert!(!seven.is_seven_label("www"));
    /// assert!(!seven.is_seven_label("vault"));
    /// assert!(!seven.is_seven_label("vault-feature-x"));
    /// ```
    pub fn is_seven_label(&self, label: &str) -> bool {
        !label.is_empty()
            && !self.excluded_labels.iter().any(|l| l == label)
            && !self
                .excluded_label_prefixes
                .iter()
                .any(|p| label.starts_with(p.as_str()))
    }
}
