//! Every divergence judgment: where the `url` crate and Chromium read a URL differently, the
//! matcher fails closed, and each such reading is here (the module docs of `protected` say why
//! for each, with the Chromium sources):
//!
//! | [`Divergence`] | judged by |
//! | --- | --- |
//! | `RejectedHost` | [`rejected`]: a host the `url` crate rejects, read as Chromium might (also a rejected `devtools:` URL) |
//! | `NumericHost` | [`rejected`] through [`could_be_ip`]: a rejected IP-like host and an IP extra origin |
//! | `Transitional` | [`transitional`]: deviation characters as transitional IDNA maps them |
//! | `InnerTrim` | [`inner_trim`]: C0 controls before an inner URL |
//! | `StandardScheme` | [`as_standard`], [`standard`]: an extra origin's non-special scheme read like `http:` |
//! | `Nesting` | [`nested_too_deep`]: inner schemes past `MAX_INNER` (strict) |
//! | `WebSocket` | [`websocket`]: `ws:` / `wss:` as `http:` / `https:` (strict, cookie URLs) |
//!
//! and [`cookie`], the same readings for a cookie domain taken as `http://<domain>` (amendment
//! A5, recorded by no [`Divergence`] since cookie domains have no [`Reason`](super::Reason)).
//!
//! The layers below split the text (`syntax`), read hosts (`host`, `pattern`) and ask the
//! rules (`rules`); these functions decide. Where a reading goes on to judge another URL (an
//! inner URL, the `http:` form of a `ws:` URL) it calls the `judge_inner` it is given, so the
//! recursion stays with the caller (`judge`) and nothing here imports it.

use url::{Host, Url};

use super::host::{ip_of, transitional_form, Extra, DEVIATIONS};
use super::pattern::{
    all_ipv4_chars, could_be_name, has_ipv6_chars, known_text, literal, pattern, Piece,
};
use super::reason::{Divergence, Explain, Record, Rule};
use super::rules::{too_deep, Rules};
use super::syntax::{
    clean, is_special, percent_decode, port, readings, split, trim_dot, websocket_alias,
};
use crate::catalog::default_port;

/// The strict reading of nesting past `MAX_INNER`: protected, with the reason recorded.
pub(super) fn nested_too_deep<R: Record>(rec: &mut R) -> bool {
    rec.found(|| Rule::FailClosed {
        divergence: Divergence::Nesting,
        host: None,
        could_be: None,
    });
    true
}

/// An inner URL (`rest`, after `<scheme>:` of the parsed `input`) that the `url` crate
/// percent-encoded: Chromium trims C0 controls and spaces before a `filesystem:` URL's inner
/// URL, where the `url` crate percent-encodes them into the opaque path (`%01https:…`). Then
/// the inner URL is read from the text as given, without them, by `judge_inner`; `None` when
/// this reading does not apply.
pub(super) fn inner_trim<R: Record>(
    input: &str,
    scheme: &str,
    rest: &str,
    rec: &mut R,
    judge_inner: impl FnOnce(&str, &mut R) -> bool,
) -> Option<bool> {
    if !rest.trim_start_matches(' ').starts_with('%') {
        return None;
    }
    let cleaned = clean(input);
    let raw = cleaned
        .get(scheme.len() + 1..)
        .filter(|_| cleaned.as_bytes().get(scheme.len()) == Some(&b':'))
        .filter(|raw| raw.trim_start_matches(' ').starts_with(|c: char| c < ' '))?;
    rec.fail_closed_as(Divergence::InnerTrim);
    let trimmed = raw.trim_start_matches(|c: char| c <= ' ');
    Some(judge_inner(trimmed, rec))
}

/// The URL `input` that the `url` crate rejected, judged as Chromium might read it; an inner
/// URL goes on to `judge_inner`.
pub(super) fn rejected<R: Record>(
    rules: &Rules,
    input: &str,
    depth: usize,
    rec: &mut R,
    judge_inner: impl FnOnce(&str, &mut R) -> bool,
) -> bool {
    let cleaned = clean(input);
    let Some(split) = split(&cleaned) else {
        return false;
    };
    let scheme = &*split.scheme;
    if rules.is_any(scheme) {
        // Chromium registers `devtools` as a standard scheme and reads its host leniently
        // (a space, an `xn--` label), where the `url` crate fails an opaque host.
        rec.found(|| Rule::FailClosed {
            divergence: Divergence::RejectedHost,
            host: split.authority.map(str::to_string),
            could_be: Some(format!("{scheme}: (always protected)")),
        });
        return true;
    }
    if rules.is_inner(scheme) {
        if too_deep(depth) {
            // Past 8 unwraps the rest is not a URL the rules judge; the strict reading protects it.
            return rules.strict && nested_too_deep(rec);
        }
        rec.inner(scheme);
        return judge_inner(split.rest, rec);
    }
    if as_standard(rules, scheme, input, rec) {
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
        if let Some(could_be) = rules.could_be(scheme, &pattern, port) {
            rec.found(|| Rule::FailClosed {
                divergence: Divergence::RejectedHost,
                host: Some(text.to_string()),
                could_be: Some(could_be),
            });
            return true;
        }
        if let Some(could_be) = could_be_ip(rules, scheme, host, &pattern, port) {
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

/// An IP extra origin with this scheme and port that a rejected host could be. Chromium looks
/// for an IP address after unescaping and IDNA (`DoHost` in `url/url_canon_host.cc`), so a
/// host that maps to `[::1]` is an IPv6 literal there, wherever its brackets came from.
pub(super) fn could_be_ip(
    rules: &Rules,
    scheme: &str,
    raw: &str,
    pattern: &[Piece],
    port: Option<u16>,
) -> Option<String> {
    let same = |e: &&Extra| e.scheme == scheme && e.port == port;
    if let Some(text) = known_text(pattern) {
        let found = match ip_of(&text) {
            Some(ip) => rules
                .extras
                .iter()
                .filter(same)
                .find(|e| e.ip() == Some(ip)),
            // An IPv6 literal the `url` crate rejects (`[::1%25eth0]`): the strict reading
            // fails closed.
            None if rules.strict && raw.starts_with('[') => {
                rules.extras.iter().filter(same).find(|e| e.is_ipv6())
            }
            None => None,
        };
        return found.map(|e| e.text.clone());
    }
    let ipv6 = raw.contains('[') || has_ipv6_chars(pattern);
    let ipv4 = !pattern.is_empty() && all_ipv4_chars(pattern);
    rules
        .extras
        .iter()
        .filter(same)
        .find(|e| (ipv6 && e.is_ipv6()) || (ipv4 && e.is_ipv4()))
        .map(|e| e.text.clone())
}

/// A parsed URL whose host has deviation characters, judged as transitional IDNA maps them,
/// which also reads `ẞ` as `ss` as UTS 46 tables before Unicode 15.1 do (a strict matcher only).
pub(super) fn transitional<R: Record>(rules: &Rules, input: &str, rec: &mut R) -> bool {
    // Only a strict matcher reads them; deviation characters are non-ASCII, or percent-escaped.
    if !rules.strict || (input.is_ascii() && !input.contains('%')) {
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
    if !text.contains(DEVIATIONS) {
        return false;
    }
    let variant = transitional_form(&text, &DEVIATIONS);
    let pattern = match Host::parse(&variant) {
        Ok(host) => literal(&host.to_string()),
        Err(_) => pattern(&variant),
    };
    match rules.could_be(scheme, &pattern, port) {
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

/// An extra origin whose scheme the URL Standard does not know (`chrome-extension:`):
/// Chromium registers such schemes as standard and reads their URLs like special ones
/// (`chrome-extension:abc/`, `chrome-extension:\\abc/`, `chrome-extension://%61bc/` and
/// `chrome-extension://ａbc/` are all `chrome-extension://abc/` in Chromium 156), and drops
/// the port of a scheme without ports, where the `url` crate keeps the URL opaque. Such a
/// URL is read as an `http:` URL too, and matches an extra origin of its scheme by host on
/// any port.
pub(super) fn as_standard<R: Record>(
    rules: &Rules,
    scheme: &str,
    input: &str,
    rec: &mut R,
) -> bool {
    if is_special(scheme) || !rules.extras.iter().any(|e| e.scheme == scheme) {
        return false;
    }
    let cleaned = clean(input);
    let Some((_, rest)) = cleaned.split_once(':') else {
        return false;
    };
    let text = format!("http:{rest}");
    let found = match Url::parse(&text) {
        Ok(url) => url.host_str().and_then(|host| {
            let host = trim_dot(host);
            rules
                .extras
                .iter()
                .find(|e| e.scheme == scheme && host.eq_ignore_ascii_case(&e.host))
                .map(|e| (host.to_string(), e.text.clone()))
        }),
        Err(_) => standard(rules, scheme, &text),
    };
    match found {
        Some((host, origin)) => {
            rec.found(|| Rule::FailClosed {
                divergence: Divergence::StandardScheme,
                host: Some(host),
                could_be: Some(origin),
            });
            true
        }
        None => false,
    }
}

/// The host and the extra origin of `scheme` that a rejected URL `text` (`http:` in place of
/// a standard scheme) could have, on any port.
pub(super) fn standard(rules: &Rules, scheme: &str, text: &str) -> Option<(String, String)> {
    let cleaned = clean(text);
    let host_port = split(&cleaned)?.authority?;
    for (host, _) in readings(host_port).into_iter().flatten() {
        let decoded = percent_decode(host.as_bytes());
        let text = String::from_utf8_lossy(&decoded);
        let pattern = pattern(&text);
        let ip = known_text(&pattern).and_then(|t| ip_of(&t));
        let hit = rules
            .extras
            .iter()
            .filter(|e| e.scheme == scheme)
            .find(|e| (ip.is_some() && e.ip() == ip) || could_be_name(&pattern, &e.host));
        if let Some(e) = hit {
            return Some((text.into_owned(), e.text.clone()));
        }
    }
    None
}

/// A `ws:` / `wss:` URL judged, by `judge`, as the `http:` / `https:` URL with the same rest:
/// Chromium's cookie store treats them alike.
pub(super) fn websocket<R: Record>(
    url: &str,
    rec: &mut R,
    judge: impl FnOnce(&str, &mut Explain) -> bool,
) -> bool {
    // Most URLs are not WebSocket URLs: their scheme (before the first `:`, tabs and newlines
    // skipped) is told without cleaning a copy.
    let mut scheme = [0u8; 3];
    let mut n = 0;
    for &b in url.trim_matches(|c: char| c <= ' ').as_bytes() {
        match b {
            b':' => break,
            b'\t' | b'\n' | b'\r' => continue,
            _ if n == scheme.len() => return false,
            _ => {
                scheme[n] = b.to_ascii_lowercase();
                n += 1;
            }
        }
    }
    if !matches!(&scheme[..n], b"ws" | b"wss") {
        return false;
    }
    let cleaned = clean(url);
    let Some((scheme, rest)) = cleaned.split_once(':') else {
        return false;
    };
    let Some(alias) = websocket_alias(&scheme.to_ascii_lowercase()) else {
        return false;
    };
    let text = format!("{alias}:{rest}");
    let mut inner = Explain::default();
    if !judge(&text, &mut inner) {
        return false;
    }
    rec.found(|| Rule::FailClosed {
        divergence: Divergence::WebSocket,
        host: None,
        could_be: inner.rule.map(|r| r.to_string()),
    });
    true
}

/// Whether the host Chromium might read from `url` (`http://<cookie domain>/`, which the `url`
/// crate rejected) could be a protected cookie name: a protected domain or under one, or a
/// protected host, domain or extra origin's host or a parent of one. The port does not matter
/// to cookies.
pub(super) fn cookie(rules: &Rules, url: &str) -> bool {
    let cleaned = clean(url);
    let Some(host_port) = split(&cleaned).and_then(|s| s.authority) else {
        return false;
    };
    for (host, _) in readings(host_port).into_iter().flatten() {
        let decoded = percent_decode(host.as_bytes());
        let text = String::from_utf8_lossy(&decoded);
        let variant = (rules.strict && text.contains(DEVIATIONS))
            .then(|| transitional_form(&text, &DEVIATIONS));
        for text in std::iter::once(&*text).chain(variant.as_deref()) {
            let pattern = match Host::parse(text) {
                Ok(host) => literal(&host.to_string()),
                Err(_) => pattern(text),
            };
            if rules.could_be_cookie(&pattern) {
                return true;
            }
        }
    }
    false
}
