//! Percent-decoding, in one place for the crate: the URL Standard's *percent-decode* (used on
//! paths and hosts, where `+` is a `+`) and the `application/x-www-form-urlencoded` parser (used on
//! query strings, where `+` is a space), as a browser's `URLSearchParams` reads them.
//!
//! The guard harness reads the stand-in's logged URLs (beacons, heartbeats) with [`form_pairs`],
//! like a JavaScript runner reading `new URL(u).searchParams`; the protected-origin matcher reads
//! hosts and paths with [`decode`].

/// The URL Standard's percent-decode of bytes: `%XX` becomes the byte; a `%` not followed by two
/// hex digits stays as it is; `+` stays `+`.
pub(crate) fn decode(input: &[u8]) -> Vec<u8> {
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

/// The value of a hex digit.
pub(crate) fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// One name or value of an `application/x-www-form-urlencoded` string: `+` is a space, then
/// percent-decoded; bytes that are not UTF-8 become U+FFFD.
#[cfg_attr(not(feature = "guard-runner"), allow(dead_code))]
pub(crate) fn decode_form(text: &str) -> String {
    let plus_as_space: Vec<u8> = text
        .bytes()
        .map(|b| if b == b'+' { b' ' } else { b })
        .collect();
    String::from_utf8_lossy(&decode(&plus_as_space)).into_owned()
}

/// The name-value pairs of a query string (without its `?`), as `URLSearchParams` reads them:
/// split on `&`, empty pieces skipped, each split at its first `=` (none: an empty value), both
/// sides [`decode_form`]ed.
#[cfg_attr(not(feature = "guard-runner"), allow(dead_code))]
pub(crate) fn form_pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (decode_form(k), decode_form(v))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_keeps_plus_and_bad_escapes() {
        assert_eq!(decode(b"a%2Eb%zz%4"), b"a.b%zz%4".to_vec());
        assert_eq!(decode(b"x+y%2B"), b"x+y+".to_vec());
        assert_eq!(decode(b"%41"), b"A".to_vec());
        assert_eq!(decode(b"a%"), b"a%".to_vec());
        assert_eq!(decode(b"%"), b"%".to_vec());
    }

    #[test]
    fn form_reads_plus_as_space_like_url_search_params() {
        // new URLSearchParams("a=1&to=http%3A%2F%2Fx%2Fy%3Fn%3D2&b=x+y&c&d=%zz&e=%2B")
        assert_eq!(
            form_pairs("a=1&to=http%3A%2F%2Fx%2Fy%3Fn%3D2&b=x+y&c&d=%zz&e=%2B&&f=g=h"),
            vec![
                ("a".into(), "1".into()),
                ("to".into(), "http://x/y?n=2".into()),
                ("b".into(), "x y".into()),
                ("c".into(), String::new()),
                ("d".into(), "%zz".into()),
                ("e".into(), "+".into()),
                ("f".into(), "g=h".into()),
            ]
        );
        assert_eq!(decode_form("%ff"), "\u{fffd}");
    }
}
