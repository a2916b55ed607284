//! Unit tests that need the whole matcher (the top layer) to check a lower one.

use super::fast;
use super::Matcher;

/// What `fast::read` answers at depth 0 (`None`: it hands the URL on, to the next depth or
/// the full parse).
fn read(m: &Matcher, url: &str) -> Option<bool> {
    match fast::read(&m.rules, url, 0) {
        fast::Quick::Answer(answer) => Some(answer),
        _ => None,
    }
}

/// The reading after the plain fast path answers the hostile forms itself, as the full parse
/// does, and leaves the rest to it.
#[test]
fn read_answers_hostile_forms() {
    let cat = crate::catalog::shared_catalog();
    let extra = ["http://localhost:5710", "http://127.0.0.1:5710"];
    let m = Matcher::new(&cat.protected_origins, &extra).unwrap();
    let strict = m.clone().strict();
    let answered = [
        ("https:\\\\seven.sliccy.ai\\x", true),
        (" \thttps://www.example.com/", false),
        ("ht\ttps://seven%2Esliccy.ai/", true),
        ("HtTpS:/\\seven%2esliccy%2EAI", true),
        ("https://seven\u{FF0E}sliccy\u{3002}ai/", true),
        ("https://se\u{AD}ven.sliccy\u{FF61}ai./", true),
        ("https://\u{FF33}EVEN.sliccy.ai/", true),
        ("https://xn--a.sliccy.ai/", true),
        ("https://xn--bcher-kva.example/", false),
        ("https://XN--A.example/", false),
        ("https:example.com", false),
        ("https:///seven.sliccy.ai", true),
        ("http:\\\\localhost:5710", true),
        ("http://local\nhost:57\t10/x", true),
        ("http:/localhost.:5711", false),
        ("https:seven.sliccy.ai:/", true),
        ("\u{1}https://seven.sliccy.ai:00443/\u{0}", true),
        // User info, up to the last `@`.
        ("https://user@seven.sliccy.ai/", true),
        ("https://a@b:c@seven.sliccy.ai:443/", true),
        ("https://seven.sliccy.ai@example.test/", false),
        ("https://@seven.sliccy.ai/", true),
        // Hosts the `url` crate's host parser reads.
        ("http://127.0.0.1:5710/", true),
        ("http://0x7f.1:5710/", true),
        ("http://127\u{3002}0.0.1:5710/", true),
        ("https://bücher.example/", false),
        ("https://b\u{FC}cher.sliccy.ai/", true),
        ("https://%C2%AD.example/", false),
        ("https://seven.sliccy.ai../", false),
        ("https://stra\u{DF}e.example/", false),
        ("https://%73even.sliccy.ai%E3%80%82/", true),
        // Schemes: none, any, and one no rule names.
        ("example.test", false),
        ("1http://seven.sliccy.ai/", false),
        ("devtools://devtools/x", true),
        ("DevTools:a b", true),
        ("wss://seven.sliccy.ai/", false),
        ("data:text/html,<b>", false),
        ("javascript:alert(1)", false),
    ];
    for (url, expected) in answered {
        assert_eq!(read(&m, url), Some(expected), "{url:?}");
        assert_eq!(m.url_parsed(url), expected, "{url:?}");
    }
    for url in [
        "https://seven.sliccy.ai:99999/",
        "https://seven.sliccy.ai:4a/",
        "https://seven.sliccy%zz.ai/",
        "https://se ven.sliccy.ai/",
        "https://",
        "https://user@/",
        "https://xn--a.bücher.sliccy.ai/",
        "blob:https://seven.sliccy.ai/",
        "blob:/https://seven.sliccy.ai/",
        "blob: https://seven.sliccy.ai/",
    ] {
        assert_eq!(read(&m, url), None, "{url:?}");
    }
    // A strict matcher reads deviation characters transitionally, and `ws:` as `http:`.
    assert_eq!(read(&strict, "https://stra\u{DF}e.example/"), None);
    assert_eq!(read(&strict, "https://stra%C3%9Fe.example/"), None);
    assert_eq!(read(&strict, "wss://stra\u{DF}e.example/"), None);
    assert_eq!(read(&strict, "wss://seven.sliccy.ai/"), Some(false));
    assert!(strict.url("wss://seven.sliccy.ai/"));
}

/// An inner URL is handed on as the `url` crate writes it, only when that is as written.
#[test]
fn read_hands_on_inner_urls_as_written() {
    let cat = crate::catalog::shared_catalog();
    let m = Matcher::new(&cat.protected_origins, &[] as &[&str]).unwrap();
    let inner = |url: &str, depth| match fast::read(&m.rules, url, depth) {
        fast::Quick::Inner(rest) => Some(rest.to_string()),
        _ => None,
    };
    let rest = "https://seven.sliccy.ai/x?q=1#f";
    for url in [
        format!("blob:{rest}"),
        format!(" BLOB:{rest}\u{1}"),
        format!("view-source:{rest}"),
    ] {
        assert_eq!(inner(&url, 0).as_deref(), Some(rest), "{url:?}");
        let parsed = url::Url::parse(&url).unwrap();
        assert_eq!(&parsed.as_str()[parsed.scheme().len() + 1..], rest);
    }
    assert_eq!(
        inner(&format!("blob:{rest}"), crate::protected::MAX_INNER),
        None
    );
    // What the `url` crate encodes after an `http(s)` inner URL's authority changes nothing
    // that URL's answer depends on.
    for url in [
        "blob:https://a/x y",
        "blob:https://a/\"",
        "blob:https://a?<",
        "blob:https://a#`",
        "blob:https://a\\\u{7F}",
        "blob:HTTP://a/\u{E9}",
        "blob:view-source:https://a/x y",
        "Blob:Blob:https://a?\u{1}x",
    ] {
        assert_eq!(inner(url, 0).as_deref(), Some(&url[5..]), "{url:?}");
    }
    for url in [
        "blob:https://a b/",
        "blob:https://\u{E9}/",
        "blob:https://a é",
        "blob:blob:/https://a/ x",
        "blob:data:https://a/ x",
        "blob:data:x y",
        "bl\tob:https://a/",
    ] {
        assert_eq!(inner(url, 0), None, "{url:?}");
    }
}
