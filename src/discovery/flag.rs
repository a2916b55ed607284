//! Source §2.6: `--cdp` URLs.

use crate::catalog::split_host_port;

use super::candidate::{Candidate, Check, LOOPBACK};
use super::output::Source;

/// What a `--cdp` value points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CdpTarget {
    /// The host: lower case, `localhost` and `::1` as `127.0.0.1`, IPv6 without brackets.
    pub host: String,
    /// The port.
    pub port: u16,
    /// The scheme of the endpoint's `cdp`: `https` for `https://` and `wss://` (our choice),
    /// `http` otherwise.
    pub scheme: &'static str,
    /// For a `ws://` or `wss://` URL, the URL exactly as given.
    pub ws: Option<String>,
}

/// Normalises a host as every endpoint's `cdp` writes it: lower case, brackets removed, and
/// `localhost` and `::1` as `127.0.0.1`.
pub(crate) fn normalise_host(host: &str) -> String {
    let host = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase();
    match host.as_str() {
        "localhost" | "::1" => LOOPBACK.to_string(),
        _ => host,
    }
}

/// A port from 1 to 65535 in decimal digits.
fn parse_port(text: &str) -> Option<u16> {
    if text.is_empty() || text.len() > 5 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse::<u16>().ok().filter(|p| *p != 0)
}

/// Parses a `--cdp` value: a bare port, `host:port`, `[v6]:port`, or an `http`, `https`, `ws`
/// or `wss` URL. `None` for anything else, including port 0 and ports above 65535.
///
/// ```
/// use slicc_browsers::discovery::parse_cdp;
/// let t = parse_cdp("http://LOCALHOST:5000/json").unwrap();
/// assert_eq!((t.host.as_str(), t.port, t.scheme), ("127.0.0.1", 5000, "http"));
/// assert_eq!(parse_cdp("5001").unwrap().host, "127.0.0.1");
/// assert_eq!(parse_cdp("[::1]:5002").unwrap().host, "127.0.0.1");
/// assert_eq!(parse_cdp("ws://localhost:5003/devtools/browser/x").unwrap().ws.as_deref(), Some("ws://localhost:5003/devtools/browser/x"));
/// assert!(parse_cdp("ftp://host:21").is_none());
/// ```
pub fn parse_cdp(value: &str) -> Option<CdpTarget> {
    let text = value.trim();
    if text.is_empty() {
        return None;
    }
    if let Some((scheme, rest)) = text.split_once("://") {
        let scheme = scheme.to_ascii_lowercase();
        let (out_scheme, default_port, ws) = match scheme.as_str() {
            "http" => ("http", 80, false),
            "ws" => ("http", 80, true),
            "https" => ("https", 443, false),
            "wss" => ("https", 443, true),
            _ => return None,
        };
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let authority = &rest[..end];
        let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let (host, port) = split_host_port(authority)?;
        let port = match port {
            None => default_port,
            Some(p) => parse_port(p)?,
        };
        if host.is_empty() {
            return None;
        }
        return Some(CdpTarget {
            host: normalise_host(host),
            port,
            scheme: out_scheme,
            ws: ws.then(|| value.to_string()),
        });
    }
    if text.bytes().all(|b| b.is_ascii_digit()) {
        return Some(CdpTarget {
            host: LOOPBACK.to_string(),
            port: parse_port(text)?,
            scheme: "http",
            ws: None,
        });
    }
    let authority = &text[..text.find('/').unwrap_or(text.len())];
    let (host, port) = split_host_port(authority)?;
    if host.is_empty() {
        return None;
    }
    Some(CdpTarget {
        host: normalise_host(host),
        port: parse_port(port?)?,
        scheme: "http",
        ws: None,
    })
}

/// Each `--cdp` value that parses, in the order given.
pub(crate) fn collect(urls: &[String], out: &mut Vec<Candidate>) {
    for url in urls {
        if let Some(t) = parse_cdp(url) {
            out.push(Candidate::new(
                Source::Flag,
                Check::Flag {
                    host: t.host,
                    port: t.port,
                    scheme: t.scheme,
                    ws: t.ws,
                },
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::authority;

    #[test]
    fn forms_parse() {
        let t = parse_cdp("10.0.0.5:6000").unwrap();
        assert_eq!((t.host.as_str(), t.port), ("10.0.0.5", 6000));
        let t = parse_cdp("https://Example.COM:7000/x").unwrap();
        assert_eq!((t.host.as_str(), t.scheme), ("example.com", "https"));
        let t = parse_cdp("wss://h:7001/devtools").unwrap();
        assert_eq!(t.scheme, "https");
        let t = parse_cdp("http://[fe80::1]:7002").unwrap();
        assert_eq!(authority(&t.host, t.port), "[fe80::1]:7002");
        assert_eq!(parse_cdp("http://h").unwrap().port, 80);
    }

    #[test]
    fn bad_values_are_refused() {
        for bad in [
            "",
            "0",
            "70000",
            "host",
            "host:",
            "host:x",
            ":5000",
            "http://:5000",
            "a:b:c",
            "http://h:0",
        ] {
            assert!(parse_cdp(bad).is_none(), "{bad}");
        }
    }
}
