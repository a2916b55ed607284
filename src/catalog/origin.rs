//! Origins as discovery compares them, and the seven-origin rule (feature `patterns`).

use std::fmt;

#[cfg(feature = "patterns")]
use super::Catalog;
use super::Seven;

/// A `scheme://host[:port]` origin, normalised: scheme and host in lower case, the scheme's
/// default port (443 for https and wss, 80 for http and ws) left out.
///
/// Two readers make one: [`Origin::parse`] takes the origin of a URL leniently (the canonical
/// URLs a browser reports in `/json/list`: any path, query, fragment or user info is dropped,
/// the host is taken as written), and [`Origin::parse_extra`] reads an extra seven origin that
/// a user gives (`--origin`, `--page`) strictly, by the URL Standard, as the protected-origin
/// matcher compares it (features `protected` or `launch`).
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

/// Why a text is not an extra origin ([`Origin::parse_extra`]); its `Display` is the message.
#[cfg(any(feature = "protected", feature = "discovery"))]
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NotAnOrigin {
    /// The URL Standard does not parse it: the `url` crate's message.
    Unparsable(String),
    /// It has no host (`localhost:5710` is the scheme `localhost` with the path `5710`).
    NoHost,
    /// It has user info (`http://user@host`).
    UserInfo,
    /// It has a path other than `/`, a query or a fragment (even an empty `?` or `#`).
    PathQueryOrFragment,
}

#[cfg(any(feature = "protected", feature = "discovery"))]
impl fmt::Display for NotAnOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotAnOrigin::Unparsable(e) => write!(f, "not an origin: {e}"),
            NotAnOrigin::NoHost => write!(f, "not an origin: it has no host"),
            NotAnOrigin::UserInfo => write!(f, "not an origin: it has user info"),
            NotAnOrigin::PathQueryOrFragment => {
                write!(f, "not an origin: it has a path, query or fragment")
            }
        }
    }
}

#[cfg(any(feature = "protected", feature = "discovery"))]
impl std::error::Error for NotAnOrigin {}

impl Origin {
    /// An extra seven origin as a user gives it (slicc-cli's `--origin` and `--page` origins,
    /// a launch's extra origins, the `origins` of `protected.json`): `scheme://host[:port]`,
    /// optionally with a trailing `/`, read by the URL Standard (the `url` crate) after
    /// trimming whitespace. The host is as rule 3 of the protected origins reads it: IDNA
    /// applied, percent escapes decoded, an IPv4 address in its dotted form, an IPv6 literal
    /// compressed in brackets, lower case, one trailing dot dropped; the scheme's default port
    /// is left out.
    ///
    /// This is the one reader of extra origins: the protected-origin matcher
    /// (`protected::Matcher::new`) and a launch's discard exceptions (`launch::seven_sites`)
    /// both call it, so a value one accepts the other accepts, with the same host. Unlike
    /// [`Origin::parse`] it refuses what is not an origin: user info, a path, a query or a
    /// fragment.
    ///
    /// ```
    /// use slicc_browsers::catalog::{NotAnOrigin, Origin};
    /// let o = Origin::parse_extra(" HTTP://LocalHost.:05710/ ").unwrap();
    /// assert_eq!(o.to_string(), "http://localhost:5710");
    /// assert_eq!(Origin::parse_extra("http://0x7f.1:80").unwrap().to_string(), "http://127.0.0.1");
    /// assert_eq!(Origin::parse_extra("http://user@127.0.0.1:5710"), Err(NotAnOrigin::UserInfo));
    /// assert_eq!(Origin::parse_extra("http://127.0.0.1:5710/app"), Err(NotAnOrigin::PathQueryOrFragment));
    /// assert_eq!(Origin::parse_extra("localhost:5710"), Err(NotAnOrigin::NoHost));
    /// ```
    #[cfg(any(feature = "protected", feature = "discovery"))]
    pub fn parse_extra(text: &str) -> Result<Origin, NotAnOrigin> {
        let url =
            url::Url::parse(text.trim()).map_err(|e| NotAnOrigin::Unparsable(e.to_string()))?;
        let host = match url.host_str() {
            Some(h) if !h.is_empty() => h,
            _ => return Err(NotAnOrigin::NoHost),
        };
        if !url.username().is_empty() || url.password().is_some() {
            return Err(NotAnOrigin::UserInfo);
        }
        if !matches!(url.path(), "" | "/") || url.query().is_some() || url.fragment().is_some() {
            return Err(NotAnOrigin::PathQueryOrFragment);
        }
        let host = host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase();
        if host.is_empty() {
            return Err(NotAnOrigin::NoHost);
        }
        Ok(Origin {
            scheme: url.scheme().to_string(),
            host,
            port: url.port(),
        })
    }

    /// The origin of `url`, read leniently, or `None` when it has no `scheme://host` authority
    /// or a bad port.
    ///
    /// For the canonical URLs a browser reports: user info, path, query and fragment are
    /// dropped, and the host is taken as written (lower-cased, no IDNA, escapes or number
    /// forms). An extra origin a user gives is read by [`Origin::parse_extra`] instead.
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
