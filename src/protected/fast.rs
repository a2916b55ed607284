//! The fast path of `Matcher::url`: a plain `http(s)://host[:port]` URL is judged from its
//! bytes, without a parse or an allocation.
//!
//! It answers only when the `url` crate would parse the URL and give exactly this host,
//! lower-cased: the scheme is `http` or `https` at the very start, the authority is made of
//! ASCII letters, digits, `-` and `.` with an optional all-digit port up to 65535, the host
//! has no `xn--` label (which the `url` crate checks as Punycode), does not end in a number
//! (an IPv4 address in some form) and has at most one trailing dot. Anything else (whitespace,
//! user info, escapes, non-ASCII, backslashes right after `//`) goes to the full parse. The
//! path, query and fragment never change the origin of a special URL, and never make it fail
//! to parse, so they are not looked at. The tests and the fuzz target hold
//! `url(u) == url_parsed(u)` for every input.
//!
//! When that path declines, [`lenient`] tries the forms hostile input takes before
//! the full parse: it does the URL Standard's pre-processing itself (controls and spaces at
//! either end, tabs and newlines anywhere), reads the scheme in any case, skips any run of `/`
//! and `\` after it, decodes `%XX` escapes of host characters, maps the few non-ASCII
//! characters UTS 46 maps to a host character (soft hyphen, wide and ideographic dots,
//! full-width letters, digits and hyphen; the unit tests check each against the `url`
//! crate), and takes `xn--` labels as they stand. The host it builds is the one the `url`
//! crate would give; an `xn--` label is not decoded because the answer does not depend on
//! it: a valid label is kept as written, and an invalid one makes the `url` crate reject the
//! host, after which the fail-closed reading of the rejected host (the same characters
//! mapped one by one, see `divergence`) gives the same answer for an all-ASCII host. Anything
//! else (user info, other escapes or characters, a host that may be an IP address, a bad
//! port, a host longer than [`HOST_MAX`]) goes to the full parse.

use super::rules::Rules;
use super::syntax::trim_dot_bytes;
use crate::percent::hex;

/// The longest host (after mapping) the lenient path builds on the stack.
pub(super) const HOST_MAX: usize = 256;

/// The answer for a plain `http(s)` URL, or `None` to take the full parse.
#[inline]
pub(super) fn fast(rules: &Rules, input: &str) -> Option<bool> {
    let bytes = input.as_bytes();
    let (https, rest) = if starts_with_ignore_case(bytes, b"https://") {
        (true, &bytes[8..])
    } else if starts_with_ignore_case(bytes, b"http://") {
        (false, &bytes[7..])
    } else {
        return None;
    };
    if !(if https {
        rules.fast_https
    } else {
        rules.fast_http
    }) || input.len() > u32::MAX as usize
    {
        return None;
    }
    let mut end = 0;
    let mut colon = None;
    while end < rest.len() {
        match rest[end] {
            b'/' | b'?' | b'#' | b'\\' => break,
            b':' => {
                if colon.is_none() {
                    colon = Some(end);
                }
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'.' => {}
            _ => return None,
        }
        end += 1;
    }
    let (host, port) = match colon {
        Some(c) => (&rest[..c], port(&rest[c + 1..end])?),
        None => (&rest[..end], None),
    };
    let host = trim_dot_bytes(host);
    let last_label = match host.iter().rposition(|&b| b == b'.') {
        Some(dot) => &host[dot + 1..],
        None => host,
    };
    // An empty host or a second trailing dot, a last label that may be a number, or an
    // `xn--` label: the full parse decides.
    if last_label.is_empty() || last_label[0].is_ascii_digit() || has_xn(host) {
        return None;
    }
    Some(answer(rules, https, host, port))
}

/// The answer for an `http(s)` URL in the forms hostile input takes (see the module docs),
/// or `None` to take the full parse.
pub(super) fn lenient(rules: &Rules, input: &str) -> Option<bool> {
    if input.len() > u32::MAX as usize {
        return None;
    }
    let mut it = Cleaned::new(input.as_bytes());
    let mut scheme = [0u8; 5];
    let mut n = 0;
    loop {
        let b = it.next()?;
        if b == b':' {
            break;
        }
        if n == scheme.len() {
            return None;
        }
        scheme[n] = b.to_ascii_lowercase();
        n += 1;
    }
    let https = match &scheme[..n] {
        b"https" => true,
        b"http" => false,
        _ => return None,
    };
    if !(if https {
        rules.fast_https
    } else {
        rules.fast_http
    }) {
        return None;
    }
    let mut next = it.next();
    while matches!(next, Some(b'/' | b'\\')) {
        next = it.next();
    }
    let mut host = [0u8; HOST_MAX];
    let mut len = 0;
    let mut push = |b: u8| -> Option<()> {
        *host.get_mut(len)? = b;
        len += 1;
        Some(())
    };
    // `Some` after the `:`, with the value of its digits and whether there were any.
    let mut port: Option<(u32, bool)> = None;
    while let Some(b) = next {
        match b {
            b'/' | b'\\' | b'?' | b'#' => break,
            _ if port.is_some() => {
                let digit = u32::from(b.wrapping_sub(b'0'));
                let value = port.map_or(0, |(v, _)| v) * 10 + digit;
                if digit > 9 || value > u32::from(u16::MAX) {
                    return None;
                }
                port = Some((value, true));
            }
            b':' => port = Some((0, false)),
            b'%' => {
                let high = hex(it.next()?)?;
                let low = hex(it.next()?)?;
                push(host_byte(high << 4 | low)?)?;
            }
            0x80.. => {
                // A whole UTF-8 sequence: tabs and newlines are ASCII, so none is inside.
                let width = match b {
                    0xC0..=0xDF => 2,
                    0xE0..=0xEF => 3,
                    _ => 4,
                };
                let mut code = u32::from(b) & (0x7F >> width);
                for _ in 1..width {
                    code = code << 6 | u32::from(it.next()? & 0x3F);
                }
                if let Some(b) = mapped(code)? {
                    push(b)?;
                }
            }
            _ => push(host_byte(b)?)?,
        }
        next = it.next();
    }
    let host = trim_dot_bytes(&host[..len]);
    let last_label = match host.iter().rposition(|&b| b == b'.') {
        Some(dot) => &host[dot + 1..],
        None => host,
    };
    // An empty host or a second trailing dot, or a last label that may be a number: the
    // full parse decides.
    if last_label.is_empty() || last_label[0].is_ascii_digit() {
        return None;
    }
    // An empty port (`host:`) is the default port.
    let port = port.filter(|&(_, digits)| digits).map(|(p, _)| p as u16);
    Some(answer(rules, https, host, port))
}

/// Rules 3 and 4 for an `http(s)` host (lower case, one trailing dot dropped).
fn answer(rules: &Rules, https: bool, host: &[u8], port: Option<u16>) -> bool {
    let (scheme, default) = if https { ("https", 443) } else { ("http", 80) };
    let port = port.filter(|&p| p != default);
    let by_host = rules.in_schemes(scheme) && rules.host_match(host).is_some();
    by_host || rules.extra_match(scheme, host, port).is_some()
}

/// The bytes of a URL as the URL Standard reads them: without the C0 controls and spaces at
/// either end, and without any tab, line feed or carriage return.
struct Cleaned<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cleaned<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        let start = bytes.iter().position(|&b| b > b' ').unwrap_or(bytes.len());
        let end = bytes
            .iter()
            .rposition(|&b| b > b' ')
            .map_or(start, |i| i + 1);
        Cleaned {
            bytes: &bytes[start..end],
            at: 0,
        }
    }
}

impl Iterator for Cleaned<'_> {
    type Item = u8;

    #[inline]
    fn next(&mut self) -> Option<u8> {
        loop {
            let b = *self.bytes.get(self.at)?;
            self.at += 1;
            if !matches!(b, b'\t' | b'\n' | b'\r') {
                return Some(b);
            }
        }
    }
}

/// An ASCII host character the lenient path keeps, lower case: letters, digits, `-` and `.`.
fn host_byte(b: u8) -> Option<u8> {
    match b {
        b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' => Some(b),
        b'A'..=b'Z' => Some(b.to_ascii_lowercase()),
        _ => None,
    }
}

/// What UTS 46 (the `url` crate's tables) maps a non-ASCII code point in a host to, for the
/// few the lenient path knows: `Some(None)` for one it removes (the soft hyphen),
/// `Some(Some(b))` for one it maps to a host character (ideographic, full-width and
/// halfwidth ideographic full stops to `.`; full-width letters, digits and hyphen-minus to
/// their ASCII forms, lower case), `None` for any other.
pub(super) fn mapped(code: u32) -> Option<Option<u8>> {
    let ascii = |offset: u32, base: u8| Some(Some(base + (code - offset) as u8));
    match code {
        0xAD => Some(None),
        0x3002 | 0xFF0E | 0xFF61 => Some(Some(b'.')),
        0xFF0D => Some(Some(b'-')),
        0xFF10..=0xFF19 => ascii(0xFF10, b'0'),
        0xFF21..=0xFF3A => ascii(0xFF21, b'a'),
        0xFF41..=0xFF5A => ascii(0xFF41, b'a'),
        _ => None,
    }
}

fn starts_with_ignore_case(bytes: &[u8], prefix: &[u8]) -> bool {
    bytes.len() >= prefix.len() && bytes[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// The port after `:`: `Some(None)` when empty, `None` (take the full parse) when it is not
/// all digits or is above 65535.
fn port(text: &[u8]) -> Option<Option<u16>> {
    if text.is_empty() {
        return Some(None);
    }
    let mut value: u32 = 0;
    for &b in text {
        if !b.is_ascii_digit() {
            return None;
        }
        value = value * 10 + u32::from(b - b'0');
        if value > u32::from(u16::MAX) {
            return None;
        }
    }
    Some(Some(value as u16))
}

fn has_xn(host: &[u8]) -> bool {
    host.windows(4).any(|w| w.eq_ignore_ascii_case(b"xn--"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use url::Host;

    /// Every code point [`mapped`] knows maps as the `url` crate maps it inside a host.
    #[test]
    fn mapped_agrees_with_the_url_crate() {
        let ranges = [0x80..=0x2FF, 0x3000..=0x303F, 0xFE00..=0xFFEF];
        let mut known = 0;
        for code in ranges.into_iter().flatten() {
            let Some(c) = char::from_u32(code) else {
                continue;
            };
            let parsed = match Host::parse(&format!("a{c}b.test")) {
                Ok(Host::Domain(d)) => Some(d),
                _ => None,
            };
            // A code point `mapped` does not know takes the full parse, whatever it maps to.
            let Some(m) = mapped(code) else {
                continue;
            };
            known += 1;
            let expected = match m {
                Some(b) => format!("a{}b.test", b as char),
                None => "ab.test".to_string(),
            };
            assert_eq!(parsed.as_deref(), Some(expected.as_str()), "U+{code:04X}");
        }
        assert_eq!(known, 1 + 3 + 1 + 10 + 26 + 26);
    }

    #[test]
    fn cleaned_drops_what_the_url_standard_drops() {
        let text: Vec<u8> = Cleaned::new(b" \x01h\tt\ntp\r:/ x \x1f ").collect();
        assert_eq!(text, b"http:/ x");
        assert_eq!(Cleaned::new(b" \t ").count(), 0);
    }
}
