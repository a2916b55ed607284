//! Host patterns: what Chromium might make of a host the `url` crate rejected, and whether
//! that could be a given name.
//!
//! A [`Piece`] sequence is a host with unknown parts: [`pattern`] maps each character on its
//! own by UTS 46 (the `url` crate's tables), reads `％` and `﹪` as `%` and the full-width and
//! small brackets and colons as `[`, `]` and `:`, and percent-decodes again (Chromium unescapes
//! after IDNA); a character that cannot be mapped on its own becomes "any text".
//! [`intersects`] says whether some text matches two patterns, [`target`] builds the pattern of
//! a protected name. Nothing here knows the rules; `rules` asks the questions.

use url::Host;

use super::syntax::hex;

/// One unit of a host pattern: a byte, or any text at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Piece {
    /// This byte, lower case.
    Byte(u8),
    /// Any text, possibly empty.
    Any,
}

/// The host text as it stands, lower case.
pub(super) fn literal(text: &str) -> Vec<Piece> {
    text.bytes()
        .map(|b| Piece::Byte(b.to_ascii_lowercase()))
        .collect()
}

/// What Chromium might make of a (percent-decoded) special host the `url` crate rejected.
pub(super) fn pattern(text: &str) -> Vec<Piece> {
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
pub(super) fn target(name: &str, under: bool, dot: bool) -> Vec<Piece> {
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

/// Whether a pattern could be `name`, with or without one trailing dot.
pub(super) fn could_be_name(pattern: &[Piece], name: &str) -> bool {
    intersects(pattern, &target(name, false, false))
        || intersects(pattern, &target(name, false, true))
}

/// Whether a pattern could be `domain` or a name under it, with or without one trailing dot.
pub(super) fn could_be_under(pattern: &[Piece], domain: &str) -> bool {
    [(false, false), (false, true), (true, false), (true, true)]
        .iter()
        .any(|&(under, dot)| intersects(pattern, &target(domain, under, dot)))
}

/// Whether a pattern could be a name under `domain` (not `domain` itself), with or without
/// one trailing dot.
pub(super) fn could_be_strictly_under(pattern: &[Piece], domain: &str) -> bool {
    [false, true]
        .iter()
        .any(|&dot| intersects(pattern, &target(domain, true, dot)))
}

/// The text of a pattern without unknown parts.
pub(super) fn known_text(pattern: &[Piece]) -> Option<String> {
    pattern
        .iter()
        .map(|p| match p {
            Piece::Byte(b) => Some(char::from(*b)),
            Piece::Any => None,
        })
        .collect()
}

/// Whether a pattern has the characters of an IPv6 literal (`[`, `]`, `:`).
pub(super) fn has_ipv6_chars(pattern: &[Piece]) -> bool {
    pattern
        .iter()
        .any(|p| matches!(p, Piece::Byte(b'[' | b']' | b':')))
}

/// Whether every known byte of a pattern is a character of an IPv4 address in some form (hex
/// digits, `x`, `.`); true for an empty pattern.
pub(super) fn all_ipv4_chars(pattern: &[Piece]) -> bool {
    pattern.iter().all(|p| match p {
        Piece::Any => true,
        Piece::Byte(b) => b.is_ascii_hexdigit() || matches!(b, b'x' | b'.'),
    })
}

/// Whether some text matches both patterns (each `Any` matching any text).
pub(super) fn intersects(p: &[Piece], q: &[Piece]) -> bool {
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
    }
}
