//! Unit tests that need the whole matcher (the top layer) to check a lower one.

use super::fast;
use super::Matcher;

/// The lenient path answers the hostile forms itself, as the full parse does, and leaves
/// the rest to it.
#[test]
fn lenient_reads_hostile_forms() {
    let cat = crate::catalog::shared_catalog();
    let m = Matcher::new(&cat.protected_origins, &["http://localhost:5710"]).unwrap();
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
    ];
    for (url, expected) in answered {
        assert_eq!(
            fast::fast(&m.rules, url),
            None,
            "{url:?} is for the lenient path"
        );
        assert_eq!(fast::lenient(&m.rules, url), Some(expected), "{url:?}");
        assert_eq!(m.url_parsed(url), expected, "{url:?}");
    }
    for url in [
        "http://127.0.0.1:5710/",
        "http://127\u{3002}0.0.1:5710/",
        "https://user@seven.sliccy.ai/",
        "https://seven.sliccy.ai:99999/",
        "https://seven.sliccy.ai:4a/",
        "https://%C2%AD.example/",
        "https://seven.sliccy%zz.ai/",
        "https://se ven.sliccy.ai/",
        "https://seven.sliccy.ai../",
        "https://bücher.example/",
        "https://stra\u{DF}e.example/",
        "wss://seven.sliccy.ai/",
        "https://",
    ] {
        assert_eq!(fast::lenient(&m.rules, url), None, "{url:?}");
    }
}
