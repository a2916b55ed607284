//! The matcher's readings stricter than the spec's rules, which are not vectors of
//! `protected.json` because no Chromium today is known to reach a protected origin through them
//! (docs/protected-amendments.md): `Matcher::strict` and `Matcher::cookie_url`, with their own
//! Rust-only vectors in `tests/data/protected-strict.json` (the format of `protected.json`).
#![cfg(all(feature = "protected", feature = "corpus"))]

use slicc_browsers::conformance::run_protected;
use slicc_browsers::protected::{vectors, Matcher, Vectors};
use slicc_browsers::shared_catalog;

fn strict_vectors() -> Vectors {
    Vectors::parse(include_str!("../data/protected-strict.json")).expect("the strict vectors parse")
}

fn matchers(v: &Vectors) -> (Matcher, Matcher) {
    let m = Matcher::new(&shared_catalog().protected_origins, &v.origins).expect("origins");
    (m.clone(), m.strict())
}

/// Every answer of a matcher over a vector file, as (what was asked, expected, got), through
/// the crate's one runner of protected vectors.
fn answers(m: &Matcher, v: &Vectors) -> Vec<(String, bool, bool)> {
    run_protected(m, v)
        .outcomes
        .into_iter()
        .map(|o| {
            let got = o.got.unwrap_or_else(|| panic!("{o}"));
            (o.asked.to_string(), o.expected, got)
        })
        .collect()
}

#[test]
fn the_strict_matcher_passes_its_vectors_and_the_spec_reading_does_not() {
    let v = strict_vectors();
    let (spec, strict) = matchers(&v);
    assert!(strict.is_strict() && !spec.is_strict());
    let mut failures = Vec::new();
    let mut stricter = 0;
    for ((asked, expected, got), (_, _, spec_got)) in
        answers(&strict, &v).into_iter().zip(answers(&spec, &v))
    {
        if got != expected {
            failures.push(format!("strict {asked}: expected {expected}, got {got}"));
        }
        // Each strict vector is one the spec's reading (url, target, ...) answers otherwise:
        // that is why it is not in protected.json.
        if spec_got == expected {
            failures.push(format!(
                "the spec's reading already gives {asked} {expected}"
            ));
        }
        stricter += usize::from(got && !spec_got);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(stricter, 23, "stricter answers");
}

/// `https://STRAẞE.example.test:8443/` left `protected.json` for the strict set: its answer
/// depends on the reader's UTS 46 table. Tables before Unicode 15.1 (Node 20's `URL`) map
/// capital `ẞ` to `ss`, the extra origin `https://strasse.example.test:8443`; later ones (the
/// `url` crate, Chromium 156) map it to `ß`, `xn--strae-oqa.example.test`. Reading it the old way
/// fails closed, so the strict matcher does and the default reading follows the current table.
#[test]
fn capital_sharp_s_is_read_the_old_way_only_by_the_strict_matcher() {
    let v = strict_vectors();
    let (spec, strict) = matchers(&v);
    for url in [
        "https://STRA\u{1e9e}E.example.test:8443/",
        "https://stra\u{1e9e}e.example.test:8443/",
        "https://STRA%E1%BA%9EE.example.test:8443/",
    ] {
        assert!(strict.url(url), "strict: {url}");
        assert!(!spec.url(url), "default: {url}");
    }
    assert!(v
        .urls
        .iter()
        .any(|u| u.url == "https://STRA\u{1e9e}E.example.test:8443/" && u.protected));
    // Under the current table it is the host Chromium 156 goes to.
    let parsed = url::Url::parse("https://STRA\u{1e9e}E.example.test:8443/").unwrap();
    assert_eq!(parsed.host_str(), Some("xn--strae-oqa.example.test"));
}

#[test]
fn no_strict_vector_is_in_protected_json() {
    let shipped = slicc_browsers::PROTECTED;
    let v = strict_vectors();
    for u in &v.urls {
        let text = serde_json::to_string(&u.url).unwrap();
        assert!(
            !shipped.contains(&format!("\"url\": {text}")),
            "{text} is in protected.json"
        );
    }
    for c in &v.cookie_domains {
        let text = serde_json::to_string(&c.domain).unwrap();
        assert!(
            !shipped.contains(&format!("\"domain\": {text}")),
            "{text} is in protected.json"
        );
    }
}

#[test]
fn the_strict_matcher_protects_all_that_the_spec_reading_does() {
    let v = vectors();
    let (spec, strict) = matchers(&v);
    let mut failures = Vec::new();
    for ((asked, expected, got), (_, _, spec_got)) in
        answers(&strict, &v).into_iter().zip(answers(&spec, &v))
    {
        if spec_got && !got {
            failures.push(format!(
                "{asked}: the spec's reading protects, strict does not"
            ));
        }
        if got != expected {
            failures.push(format!("strict {asked}: expected {expected}, got {got}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `cookie_url`: the `url`/`urls` of CDP's cookie commands, where `ws:`/`wss:` are `http:`/`https:`.
#[test]
fn cookie_urls_take_websocket_schemes_as_http() {
    let v = vectors();
    let (m, _) = matchers(&v);
    let cases: [(&str, bool); 12] = [
        ("wss://seven.sliccy.ai/", true),
        ("ws://sliccy.ai/socket", true),
        ("WSS://VAULT.SLICCY.AI:8443/", true),
        ("ws://127.0.0.1:5710/", true),
        ("wss://seven.example.test/", true),
        ("wss://xn--a.sliccy.ai/", true),
        ("https://seven.sliccy.ai/", true),
        ("ws://127.0.0.1:5711/", false),
        ("wss://example.test/", false),
        ("ftp://seven.sliccy.ai/", false),
        ("wss://sliccy.ai.evil.test/", false),
        ("ws:", false),
    ];
    for (url, expected) in cases {
        assert_eq!(m.cookie_url(url), expected, "cookie_url({url:?})");
        if url.to_ascii_lowercase().starts_with("ws") {
            assert!(
                !m.url(url),
                "url({url:?}) follows rule 3: ws is not in schemes"
            );
        }
    }
}
