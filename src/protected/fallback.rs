//! Failing closed where the `url` crate and Chromium could read a host differently.
//!
//! When the `url` crate rejects a URL, [`rejected`] splits it the WHATWG way (trimming, tabs
//! and newlines, scheme, slashes and backslashes, user info) and splits host and port both the
//! URL Standard's way and Chromium's (the last `:` after the last `]`). It reads each host the
//! way Chromium might: percent-decoded, each character mapped by UTS 46 on its own, `％` and
//! `﹪` as `%` and the full-width and small brackets and colons as `[`, `]` and `:`, then
//! percent-decoded again (Chromium unescapes after IDNA). A character the `url` crate cannot
//! map on its own becomes "any text". The URL is protected when the resulting host pattern
//! could be a protected host, a host under a protected domain, or an extra origin's host, or
//! when it is an IP address that an IP extra origin has. [`transitional`] judges a host with
//! deviation characters (`ß`, `ẞ`, `ς`, ZWJ, ZWNJ) as Chromium's transitional IDNA maps them.
//! [`cookie`] and [`standard`] apply the same readings to a cookie domain's URL and to a URL
//! of a standard (non-special) scheme.

use std::borrow::Cow;
use std::net::{IpAddr, Ipv6Addr};

use url::Host;

use super::matcher::{nested_too_deep, too_deep, unbracket, Extra, Matcher};
use super::reason::{Divergence, Record, Rule};
use crate::catalog::default_port;

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

/// Percent-decodes bytes; a `%` not followed by two hex digits stays.
pub(super) fn percent_decode(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    let mut i = 0;
    while i < input.len() {
        if input[i] == b'%' && i + 2 < input.len() {
            if let (Some(h), Some(l)) = (hex(input[i + 1]), hex(input[i + 2])) {
                out.push(h << 4 | l);
                i += 3;
                continue;
            }
        }
        out.push(input[i]);
        i += 1;
    }
    out
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
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
type PortText<'a> = Option<&'a str>;

pub(super) fn is_special(scheme: &str) -> bool {
    matches!(scheme, "http" | "https" | "ws" | "wss" | "ftp" | "file")
}

pub(super) fn split(s: &str) -> Option<Split<'_>> {
    let colon = s.find(':')?;
    let scheme = &s[..colon];
    let mut chars = scheme.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !valid {
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
fn readings(host_port: &str) -> [Option<(&str, PortText<'_>)>; 2] {
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
fn port(text: PortText<'_>) -> Result<Option<u16>, ()> {
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

/// The URL `input` that the `url` crate rejected, judged as Chromium might read it.
pub(super) fn rejected<R: Record>(m: &Matcher, input: &str, depth: usize, rec: &mut R) -> bool {
    let cleaned = clean(input);
    let Some(split) = split(&cleaned) else {
        return false;
    };
    let scheme = &*split.scheme;
    if m.is_any(scheme) {
        // Chromium registers `devtools` as a standard scheme and reads its host leniently
        // (a space, an `xn--` label), where the `url` crate fails an opaque host.
        rec.found(|| Rule::FailClosed {
            divergence: Divergence::RejectedHost,
            host: split.authority.map(str::to_string),
            could_be: Some(format!("{scheme}: (always protected)")),
        });
        return true;
    }
    if m.is_inner(scheme) {
        if too_deep(depth) {
            // Past 8 unwraps the rest is not a URL the rules judge; the strict reading protects it.
            return m.strict && nested_too_deep(rec);
        }
        rec.inner(scheme);
        return m.judge(split.rest, depth + 1, rec);
    }
    if m.as_standard(scheme, input, rec) {
        return true;
    }
    let Some(host_port) = split.authority else {
        return false;
    };
    for (host, port_text) in readings(host_port).into_iter().flatten() {
        let Ok(port) = port(port_text) else {
            continue;
        };
        let port = port.filter(|p| Some(*p) != default_port(scheme));
        let decoded = percent_decode(host.as_bytes());
        let text = String::from_utf8_lossy(&decoded);
        // Chromium reads the hosts of its standard schemes (`chrome-extension:`) like special
        // hosts, so every host is mapped, also for a scheme the URL Standard keeps opaque.
        let pattern = pattern(&text);
        if let Some(could_be) = could_be(m, scheme, &pattern, port) {
            rec.found(|| Rule::FailClosed {
                divergence: Divergence::RejectedHost,
                host: Some(text.to_string()),
                could_be: Some(could_be),
            });
            return true;
        }
        if let Some(could_be) = could_be_ip(m, scheme, host, &pattern, port) {
            rec.found(|| Rule::FailClosed {
                divergence: Divergence::NumericHost,
                host: Some(text.to_string()),
                could_be: Some(could_be),
            });
            return true;
        }
    }
    false
}

/// The deviation characters, mapped differently by transitional IDNA.
const DEVIATIONS: [char; 5] = ['ß', 'ẞ', 'ς', '\u{200C}', '\u{200D}'];

/// The one deviation UTS 46 itself mapped differently before Unicode 15.1: capital `ẞ` was
/// `ss`, as WHATWG parsers with older tables (Node 20's) still read it.
const OLDER_UNICODE: [char; 1] = ['ẞ'];

/// A parsed URL whose host has deviation characters, judged as transitional IDNA maps them
/// (a strict matcher), or with `ẞ` as `ss` as UTS 46 before Unicode 15.1 maps it (every matcher).
pub(super) fn transitional<R: Record>(m: &Matcher, input: &str, rec: &mut R) -> bool {
    // Deviation characters are non-ASCII, or percent-escaped.
    if input.is_ascii() && !input.contains('%') {
        return false;
    }
    let cleaned = clean(input);
    let Some(split) = split(&cleaned) else {
        return false;
    };
    let scheme = &*split.scheme;
    if !is_special(scheme) {
        return false;
    }
    // The `url` crate parsed the URL, so the URL Standard's reading is the one.
    let Some((host, port_text)) = split.authority.and_then(|a| readings(a)[0]) else {
        return false;
    };
    let Ok(port) = port(port_text) else {
        return false;
    };
    // Deviation characters are non-ASCII, or percent-escaped (the query may have been).
    if host.is_ascii() && !host.contains('%') {
        return false;
    }
    let port = port.filter(|p| Some(*p) != default_port(scheme));
    let decoded = percent_decode(host.as_bytes());
    let text = String::from_utf8_lossy(&decoded);
    let deviations: &[char] = if m.strict {
        &DEVIATIONS
    } else {
        &OLDER_UNICODE
    };
    if !text.contains(deviations) {
        return false;
    }
    let variant = transitional_form(&text, deviations);
    let pattern = match Host::parse(&variant) {
        Ok(host) => literal(&host.to_string()),
        Err(_) => pattern(&variant),
    };
    match could_be(m, scheme, &pattern, port) {
        Some(could_be) => {
            rec.found(|| Rule::FailClosed {
                divergence: Divergence::Transitional,
                host: Some(text.to_string()),
                could_be: Some(could_be),
            });
            true
        }
        None => false,
    }
}

/// A host as transitional IDNA maps the deviation characters among `which`: `ß` and `ẞ` to
/// `ss`, `ς` to `σ`, ZWJ and ZWNJ to nothing.
fn transitional_form(text: &str, which: &[char]) -> String {
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

/// One unit of a host pattern: a byte, or any text at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece {
    Byte(u8),
    Any,
}

/// The host text as it stands, lower case.
fn literal(text: &str) -> Vec<Piece> {
    text.bytes()
        .map(|b| Piece::Byte(b.to_ascii_lowercase()))
        .collect()
}

/// What Chromium might make of a (percent-decoded) special host the `url` crate rejected.
fn pattern(text: &str) -> Vec<Piece> {
    let mut mapped = Vec::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            mapped.push(Piece::Byte(c as u8));
        } else if let Some(ascii) = std3_mapped(c) {
            mapped.push(Piece::Byte(ascii));
        } else {
            match map_char(c) {
                Some(ascii) => mapped.extend(ascii.bytes().map(Piece::Byte)),
                None => push_any(&mut mapped),
            }
        }
    }
    // The second unescape. An unknown character might itself become `%`, so the two hex
    // digits after one are unknown too.
    let mut out = Vec::with_capacity(mapped.len());
    let mut i = 0;
    while i < mapped.len() {
        match mapped[i] {
            Piece::Byte(b'%') => {
                let next: Vec<Piece> = mapped[i + 1..].iter().take(2).copied().collect();
                match next.as_slice() {
                    [Piece::Byte(h), Piece::Byte(l)] if hex(*h).is_some() && hex(*l).is_some() => {
                        let byte = hex(*h).unwrap_or(0) << 4 | hex(*l).unwrap_or(0);
                        if byte.is_ascii() {
                            out.push(Piece::Byte(byte.to_ascii_lowercase()));
                        } else {
                            push_any(&mut out);
                        }
                        i += 3;
                    }
                    n if n.contains(&Piece::Any) => {
                        push_any(&mut out);
                        i += 1 + n.len();
                    }
                    _ => {
                        out.push(Piece::Byte(b'%'));
                        i += 1;
                    }
                }
            }
            Piece::Any => {
                push_any(&mut out);
                i += 1;
                let mut eaten = 0;
                while eaten < 2
                    && matches!(mapped.get(i), Some(Piece::Byte(b)) if hex(*b).is_some())
                {
                    i += 1;
                    eaten += 1;
                }
            }
            Piece::Byte(b) => {
                out.push(Piece::Byte(b.to_ascii_lowercase()));
                i += 1;
            }
        }
    }
    out
}

/// The characters UTS 46 maps to an ASCII character that the URL Standard forbids in a host
/// (so the `url` crate rejects them) but Chromium keeps: `％` and `﹪` become `%`, which
/// Chromium unescapes again after IDNA (`DoIDNHost` in `url/url_canon_host.cc`); the full-width
/// and small forms of `[`, `]` and `:` survive into the host, where Chromium then finds an
/// IPv6 literal (`http://［::1］:5712/` is `http://[::1]:5712/` in Chromium 156). The list was
/// found by running every code point through Chromium 156's `new URL()`.
fn std3_mapped(c: char) -> Option<u8> {
    match c {
        '\u{FF05}' | '\u{FE6A}' => Some(b'%'),
        '\u{FF3B}' | '\u{FE47}' => Some(b'['),
        '\u{FF3D}' | '\u{FE48}' => Some(b']'),
        '\u{FF1A}' | '\u{FE55}' | '\u{FE13}' => Some(b':'),
        _ => None,
    }
}

fn push_any(pieces: &mut Vec<Piece>) {
    if pieces.last() != Some(&Piece::Any) {
        pieces.push(Piece::Any);
    }
}

/// The UTS 46 mapping of one non-ASCII character when it is ASCII (`Ａ` → `a`, `。` → `.`,
/// a soft hyphen → nothing), by the `url` crate's own tables; `None` when it maps to non-ASCII,
/// is rejected, or needs a context.
fn map_char(c: char) -> Option<String> {
    let mut probe = String::with_capacity(6);
    probe.push('a');
    probe.push(c);
    probe.push('a');
    match Host::parse(&probe) {
        Ok(Host::Domain(d)) if d.is_ascii() && !d.contains("xn--") && d.len() >= 2 => {
            let inner = d.strip_prefix('a')?.strip_suffix('a')?;
            Some(inner.to_string())
        }
        _ => None,
    }
}

/// A byte-pattern for a literal, optionally after any text and a dot, optionally with one
/// trailing dot.
fn target(name: &str, under: bool, dot: bool) -> Vec<Piece> {
    let mut q = Vec::with_capacity(name.len() + 3);
    if under {
        q.push(Piece::Any);
        q.push(Piece::Byte(b'.'));
    }
    q.extend(name.bytes().map(Piece::Byte));
    if dot {
        q.push(Piece::Byte(b'.'));
    }
    q
}

/// The protected domain, host or extra origin a host pattern could be, if any.
fn could_be(m: &Matcher, scheme: &str, pattern: &[Piece], port: Option<u16>) -> Option<String> {
    if m.in_schemes(scheme) {
        for d in &m.domains {
            let hit = [(false, false), (false, true), (true, false), (true, true)]
                .iter()
                .any(|&(under, dot)| intersects(pattern, &target(d, under, dot)));
            if hit {
                return Some(format!("{d} or under it"));
            }
        }
        for h in &m.hosts {
            if intersects(pattern, &target(h, false, false))
                || intersects(pattern, &target(h, false, true))
            {
                return Some(h.clone());
            }
        }
    }
    for e in &m.extras {
        if e.scheme == scheme
            && e.port == port
            && (intersects(pattern, &target(&e.host, false, false))
                || intersects(pattern, &target(&e.host, false, true)))
        {
            return Some(e.text.clone());
        }
    }
    None
}

/// An IP extra origin with this scheme and port that a rejected host could be. Chromium looks
/// for an IP address after unescaping and IDNA (`DoHost` in `url/url_canon_host.cc`), so a
/// host that maps to `[::1]` is an IPv6 literal there, wherever its brackets came from.
fn could_be_ip(
    m: &Matcher,
    scheme: &str,
    raw: &str,
    pattern: &[Piece],
    port: Option<u16>,
) -> Option<String> {
    let same = |e: &&Extra| e.scheme == scheme && e.port == port;
    if let Some(text) = known_text(pattern) {
        let found = match ip_of(&text) {
            Some(ip) => m.extras.iter().filter(same).find(|e| e.ip() == Some(ip)),
            // An IPv6 literal the `url` crate rejects (`[::1%25eth0]`): the strict reading
            // fails closed.
            None if m.strict && raw.starts_with('[') => {
                m.extras.iter().filter(same).find(|e| e.is_ipv6())
            }
            None => None,
        };
        return found.map(|e| e.text.clone());
    }
    let ipv6 = raw.contains('[')
        || pattern
            .iter()
            .any(|p| matches!(p, Piece::Byte(b'[' | b']' | b':')));
    let ipv4 = !pattern.is_empty()
        && pattern.iter().all(|p| match p {
            Piece::Any => true,
            Piece::Byte(b) => b.is_ascii_hexdigit() || matches!(b, b'x' | b'.'),
        });
    m.extras
        .iter()
        .filter(same)
        .find(|e| (ipv6 && e.is_ipv6()) || (ipv4 && e.is_ipv4()))
        .map(|e| e.text.clone())
}

/// The text of a pattern without unknown parts.
fn known_text(pattern: &[Piece]) -> Option<String> {
    pattern
        .iter()
        .map(|p| match p {
            Piece::Byte(b) => Some(char::from(*b)),
            Piece::Any => None,
        })
        .collect()
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

/// The host and the extra origin of `scheme` that a rejected URL `text` (`http:` in place of
/// a standard scheme) could have, on any port.
pub(super) fn standard(m: &Matcher, scheme: &str, text: &str) -> Option<(String, String)> {
    let cleaned = clean(text);
    let host_port = split(&cleaned)?.authority?;
    for (host, _) in readings(host_port).into_iter().flatten() {
        let decoded = percent_decode(host.as_bytes());
        let text = String::from_utf8_lossy(&decoded);
        let pattern = pattern(&text);
        let ip = known_text(&pattern).and_then(|t| ip_of(&t));
        let hit = m.extras.iter().filter(|e| e.scheme == scheme).find(|e| {
            (ip.is_some() && e.ip() == ip)
                || intersects(&pattern, &target(&e.host, false, false))
                || intersects(&pattern, &target(&e.host, false, true))
        });
        if let Some(e) = hit {
            return Some((text.into_owned(), e.text.clone()));
        }
    }
    None
}

/// Whether the host Chromium might read from `url` (`http://<cookie domain>/`) could be a
/// protected cookie name: a protected domain or under one, or a protected host, domain or
/// extra origin's host or a parent of one. The port does not matter to cookies.
pub(super) fn cookie(m: &Matcher, url: &str) -> bool {
    let cleaned = clean(url);
    let Some(host_port) = split(&cleaned).and_then(|s| s.authority) else {
        return false;
    };
    for (host, _) in readings(host_port).into_iter().flatten() {
        let decoded = percent_decode(host.as_bytes());
        let text = String::from_utf8_lossy(&decoded);
        let variant =
            (m.strict && text.contains(DEVIATIONS)).then(|| transitional_form(&text, &DEVIATIONS));
        for text in std::iter::once(&*text).chain(variant.as_deref()) {
            let pattern = match Host::parse(text) {
                Ok(host) => literal(&host.to_string()),
                Err(_) => pattern(text),
            };
            if could_be_cookie(m, &pattern) {
                return true;
            }
        }
    }
    false
}

fn could_be_cookie(m: &Matcher, pattern: &[Piece]) -> bool {
    if let Some(text) = known_text(pattern) {
        if let Some(ip) = ip_of(&text) {
            return m.extras.iter().any(|e| e.ip() == Some(ip));
        }
        let name = text.trim_matches('.');
        return !name.is_empty() && m.cookie_name(name);
    }
    let under = m.domains.iter().any(|d| {
        [(false, false), (false, true), (true, false), (true, true)]
            .iter()
            .any(|&(under, dot)| intersects(pattern, &target(d, under, dot)))
    });
    let names = m
        .hosts
        .iter()
        .chain(&m.domains)
        .map(String::as_str)
        .chain(m.extras.iter().map(|e| unbracket(&e.host)));
    let parent = names.into_iter().any(|name| {
        let suffixes =
            std::iter::once(name).chain(name.match_indices('.').map(|(i, _)| &name[i + 1..]));
        suffixes.filter(|s| !s.is_empty()).any(|s| {
            intersects(pattern, &target(s, false, false))
                || intersects(pattern, &target(s, false, true))
        })
    });
    let ipv6 = pattern
        .iter()
        .any(|p| matches!(p, Piece::Byte(b'[' | b']' | b':')));
    let ipv4 = pattern.iter().all(|p| match p {
        Piece::Any => true,
        Piece::Byte(b) => b.is_ascii_hexdigit() || matches!(b, b'x' | b'.'),
    });
    under
        || parent
        || m.extras
            .iter()
            .any(|e| (ipv6 && e.is_ipv6()) || (ipv4 && e.is_ipv4()))
}

/// Whether some text matches both patterns (each `Any` matching any text).
fn intersects(p: &[Piece], q: &[Piece]) -> bool {
    let (n, m) = (p.len(), q.len());
    let width = m + 1;
    let mut seen = vec![false; (n + 1) * width];
    let mut stack = vec![(0usize, 0usize)];
    while let Some((i, j)) = stack.pop() {
        let cell = i * width + j;
        if seen[cell] {
            continue;
        }
        seen[cell] = true;
        if i == n && j == m {
            return true;
        }
        let (a, b) = (p.get(i), q.get(j));
        if a == Some(&Piece::Any) {
            stack.push((i + 1, j));
        }
        if b == Some(&Piece::Any) {
            stack.push((i, j + 1));
        }
        match (a, b) {
            (Some(Piece::Byte(x)), Some(Piece::Byte(y))) if x == y => stack.push((i + 1, j + 1)),
            (Some(Piece::Byte(_)), Some(Piece::Any)) => stack.push((i + 1, j)),
            (Some(Piece::Any), Some(Piece::Byte(_))) => stack.push((i, j + 1)),
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(s: &str) -> Vec<Piece> {
        literal(s)
    }

    #[test]
    fn intersection_of_patterns() {
        let q = target("sliccy.ai", true, false);
        assert!(intersects(&lit("seven.sliccy.ai"), &q));
        assert!(!intersects(&lit("sliccy.ai.evil.test"), &q));
        assert!(!intersects(&lit("evil-sliccy.ai"), &q));
        let mut p = lit("seven.s");
        p.push(Piece::Any);
        p.extend(lit("iccy.ai"));
        assert!(intersects(&p, &q));
        let mut p = lit("evil.t");
        p.push(Piece::Any);
        p.extend(lit("st"));
        assert!(!intersects(&p, &q));
    }

    #[test]
    fn patterns_map_and_unescape() {
        assert_eq!(pattern("SEVEN.sliccy.\u{FF05}61i"), lit("seven.sliccy.ai"));
        assert_eq!(
            pattern("seven\u{3002}sliccy\u{FF0E}ai"),
            lit("seven.sliccy.ai")
        );
        assert_eq!(pattern("se\u{AD}ven"), lit("seven"));
        assert_eq!(
            pattern("a\u{1F4A9}z"),
            vec![Piece::Byte(b'a'), Piece::Any, Piece::Byte(b'z')]
        );
        // An unknown character might become `%`: the hex digits after it are unknown too.
        assert_eq!(
            pattern("a\u{1F4A9}bcz"),
            vec![Piece::Byte(b'a'), Piece::Any, Piece::Byte(b'z')]
        );
        assert_eq!(percent_decode(b"a%2Eb%zz%4"), b"a.b%zz%4".to_vec());
    }

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
