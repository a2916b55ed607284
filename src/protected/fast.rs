//! The fast path of [`Matcher::url`]: a plain `http(s)://host[:port]` URL is judged from its
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

use super::matcher::{trim_dot_bytes, Matcher};

impl Matcher {
    /// The answer for a plain `http(s)` URL, or `None` to take the full parse.
    #[inline]
    pub(super) fn fast(&self, input: &str) -> Option<bool> {
        let bytes = input.as_bytes();
        let (https, rest) = if starts_with_ignore_case(bytes, b"https://") {
            (true, &bytes[8..])
        } else if starts_with_ignore_case(bytes, b"http://") {
            (false, &bytes[7..])
        } else {
            return None;
        };
        if !(if https {
            self.fast_https
        } else {
            self.fast_http
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
        let (scheme, default) = if https { ("https", 443) } else { ("http", 80) };
        let port = port.filter(|&p| p != default);
        let by_host = self.in_schemes(scheme) && self.host_match(host).is_some();
        Some(by_host || self.extra_match(scheme, host, port).is_some())
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
