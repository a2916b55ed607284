//! URL text split the way the URL Standard and Chromium split it, before any host is judged.
//!
//! The lowest layer of the matcher: it knows URL syntax (the WHATWG pre-processing, scheme
//! syntax, special schemes, slashes and backslashes, user info, host and port) and nothing of
//! the rules. Where the two parsers split differently ([`readings`]: the host's `:`), both
//! ways are given and the layers above judge each.

use std::borrow::Cow;

/// The WHATWG pre-processing: leading and trailing C0 controls and spaces removed, and every
/// tab, line feed and carriage return.
pub(super) fn clean(input: &str) -> Cow<'_, str> {
    let trimmed = input.trim_matches(|c: char| c <= ' ');
    if trimmed.contains(['\t', '\n', '\r']) {
        Cow::Owned(
            trimmed
                .chars()
                .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
                .collect(),
        )
    } else {
        Cow::Borrowed(trimmed)
    }
}

// The one percent-decoder of the crate (`+` stays `+` here: these are paths and hosts).
pub(super) use crate::percent::{decode as percent_decode, hex};

/// A path for comparing inheriting URLs: percent-decoded and lower case.
pub(super) fn fold_path(path: &str) -> Cow<'_, str> {
    if path.contains('%') {
        let bytes = percent_decode(path.as_bytes());
        Cow::Owned(String::from_utf8_lossy(&bytes).to_lowercase())
    } else if path.bytes().any(|b| b.is_ascii_uppercase()) || !path.is_ascii() {
        Cow::Owned(path.to_lowercase())
    } else {
        Cow::Borrowed(path)
    }
}

/// Whether `text` has the URL Standard's scheme syntax: an ASCII letter, then ASCII letters,
/// digits, `+`, `-` and `.`.
pub(super) fn is_scheme(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// Whether the URL Standard treats `scheme` (lower case) as special.
pub(super) fn is_special(scheme: &str) -> bool {
    matches!(scheme, "http" | "https" | "ws" | "wss" | "ftp" | "file")
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

/// The host without the brackets of an IPv6 literal.
pub(super) fn unbracket(host: &str) -> &str {
    host.strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host)
}

/// A URL split the WHATWG way, without judging its host.
pub(super) struct Split<'a> {
    /// Lower case.
    pub(super) scheme: Cow<'a, str>,
    /// Everything after `<scheme>:`.
    pub(super) rest: &'a str,
    /// The host and port text after the user info (the last `@`), for a special scheme or a
    /// `//` authority.
    pub(super) authority: Option<&'a str>,
}

/// The text after the host's `:`, if any.
pub(super) type PortText<'a> = Option<&'a str>;

/// Splits a cleaned URL (see [`clean`]) into scheme, rest and authority; `None` without a
/// scheme.
pub(super) fn split(s: &str) -> Option<Split<'_>> {
    let colon = s.find(':')?;
    let scheme = &s[..colon];
    if !is_scheme(scheme) {
        return None;
    }
    let scheme = if scheme.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(scheme.to_ascii_lowercase())
    } else {
        Cow::Borrowed(scheme)
    };
    let rest = &s[colon + 1..];
    let special = is_special(&scheme);
    let after = if special {
        Some(rest.trim_start_matches(['/', '\\']))
    } else {
        rest.strip_prefix("//")
    };
    let authority = after.map(|after| {
        let end = after
            .find(|c: char| matches!(c, '/' | '?' | '#') || (special && c == '\\'))
            .unwrap_or(after.len());
        let auth = &after[..end];
        auth.rsplit_once('@').map_or(auth, |(_, h)| h)
    });
    Some(Split {
        scheme,
        rest,
        authority,
    })
}

/// The ways a browser might split `host[:port]`: the URL Standard's (the first `:` outside
/// brackets) and, when it differs, Chromium's (`ParseServerInfo` in `url/url_parse.cc`: the
/// last `:` after the last `]`, so `%5B::1]:5712` and `\u{AD}[::1]:5712` have the port 5712).
pub(super) fn readings(host_port: &str) -> [Option<(&str, PortText<'_>)>; 2] {
    let whatwg = if host_port.starts_with('[') {
        match host_port.find(']') {
            Some(close) => {
                let (host, tail) = host_port.split_at(close + 1);
                match tail.strip_prefix(':') {
                    Some(port) => (host, Some(port)),
                    // Text after `]` that is not a port: no browser reads this.
                    None if !tail.is_empty() => (host, Some(tail)),
                    None => (host, None),
                }
            }
            None => (host_port, None),
        }
    } else {
        match host_port.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (host_port, None),
        }
    };
    let terminator = match host_port.rfind(']') {
        Some(close) => Some(close),
        None if host_port.starts_with('[') => Some(host_port.len()),
        None => None,
    };
    let chromium = match host_port.rfind(':') {
        Some(colon) if terminator.is_none_or(|t| colon > t) => {
            (&host_port[..colon], Some(&host_port[colon + 1..]))
        }
        _ => (host_port, None),
    };
    [Some(whatwg), (chromium != whatwg).then_some(chromium)]
}

/// A port as the URL Standard and Chromium read it: `Ok(None)` when absent or empty, `Err`
/// when not all ASCII digits or above 65535 (both refuse the URL then).
pub(super) fn port(text: PortText<'_>) -> Result<Option<u16>, ()> {
    match text {
        None | Some("") => Ok(None),
        Some(t) if t.bytes().all(|b| b.is_ascii_digit()) => {
            let digits = t.trim_start_matches('0');
            if digits.len() > 5 {
                return Err(());
            }
            let value: u32 = if digits.is_empty() {
                0
            } else {
                digits.parse().map_err(|_| ())?
            };
            u16::try_from(value).map(Some).map_err(|_| ())
        }
        Some(_) => Err(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_as_browsers_read_them() {
        assert_eq!(port(None), Ok(None));
        assert_eq!(port(Some("")), Ok(None));
        assert_eq!(port(Some("000443")), Ok(Some(443)));
        assert_eq!(port(Some("65535")), Ok(Some(65535)));
        assert!(port(Some("65536")).is_err());
        assert!(port(Some("１")).is_err());
        assert!(port(Some("8a")).is_err());
    }
}
