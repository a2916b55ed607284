//! Extra seven origins have one reader, `catalog::Origin::parse_extra`, which the
//! protected-origin matcher (`Matcher::new`) and a launch's discard exceptions
//! (`launch::seven_sites`) both call. Before, launch read them with the lenient
//! `Origin::parse` (meant for the canonical URLs of `/json/list`), so it accepted values the
//! matcher refused (user info, a path, a query, a fragment) and wrote hosts the matcher and the
//! browser read otherwise (trailing dot, IPv4 number forms, IDNA, escapes). These cases are
//! the inputs where the two disagreed, and a few where they always agreed.
#![cfg(all(feature = "protected", feature = "launch"))]

use slicc_browsers::catalog::{NotAnOrigin, Origin};
use slicc_browsers::launch::{seven_sites, Error};
use slicc_browsers::protected::Matcher;

/// What the one reader gives: the origin, or why it is not one.
type Strict = Result<&'static str, NotAnOrigin>;

/// Each input, what `Origin::parse_extra` (and so the matcher and launch) reads, and what the
/// lenient `Origin::parse` reads, which is kept for URLs and no longer reads extra origins.
fn cases() -> Vec<(&'static str, Strict, Option<&'static str>)> {
    use NotAnOrigin::*;
    vec![
        // Where the two disagreed: not an origin, which launch used to accept.
        (
            "http://user@127.0.0.1:5710",
            Err(UserInfo),
            Some("http://127.0.0.1:5710"),
        ),
        (
            "http://u:p@localhost:5710/",
            Err(UserInfo),
            Some("http://localhost:5710"),
        ),
        (
            "http://127.0.0.1:5710/app",
            Err(PathQueryOrFragment),
            Some("http://127.0.0.1:5710"),
        ),
        (
            "http://127.0.0.1:5710?",
            Err(PathQueryOrFragment),
            Some("http://127.0.0.1:5710"),
        ),
        (
            "http://127.0.0.1:5710/#top",
            Err(PathQueryOrFragment),
            Some("http://127.0.0.1:5710"),
        ),
        // Where the two disagreed: the host, as the URL Standard (and Chromium) reads it.
        (
            "http://LOCALHOST.:5710",
            Ok("http://localhost:5710"),
            Some("http://localhost.:5710"),
        ),
        (
            "http://0x7f.1:5710",
            Ok("http://127.0.0.1:5710"),
            Some("http://0x7f.1:5710"),
        ),
        (
            "https://Bücher.example",
            Ok("https://xn--bcher-kva.example"),
            Some("https://bücher.example"),
        ),
        (
            "http://%6Cocalhost:5710",
            Ok("http://localhost:5710"),
            Some("http://%6cocalhost:5710"),
        ),
        (
            "http://[0:0::1]:5712",
            Ok("http://[::1]:5712"),
            Some("http://[0:0::1]:5712"),
        ),
        (
            "http://local\thost:5710",
            Ok("http://localhost:5710"),
            Some("http://local\thost:5710"),
        ),
        // Where the two disagreed: a special URL without `//`, which the URL Standard reads.
        ("http:127.0.0.1:5710", Ok("http://127.0.0.1:5710"), None),
        ("http:\\\\127.0.0.1:5710", Ok("http://127.0.0.1:5710"), None),
        // Where they always agreed.
        (
            "http://127.0.0.1:5710",
            Ok("http://127.0.0.1:5710"),
            Some("http://127.0.0.1:5710"),
        ),
        (
            " http://127.0.0.1:5710/ ",
            Ok("http://127.0.0.1:5710"),
            Some("http://127.0.0.1:5710"),
        ),
        (
            "HTTPS://Seven.Example:443",
            Ok("https://seven.example"),
            Some("https://seven.example"),
        ),
        (
            "http://localhost:05710",
            Ok("http://localhost:5710"),
            Some("http://localhost:5710"),
        ),
        (
            "chrome-extension://ABC",
            Ok("chrome-extension://abc"),
            Some("chrome-extension://abc"),
        ),
        ("localhost:5710", Err(NoHost), None),
        ("file:///tmp/x", Err(NoHost), None),
    ]
}

#[test]
fn one_reader_for_extra_origins() {
    let cat = slicc_browsers::shared_catalog();
    for (input, strict, lenient) in cases() {
        let read = Origin::parse_extra(input);
        assert_eq!(
            read.as_ref().map(Origin::to_string).map_err(Clone::clone),
            strict.clone().map(str::to_string),
            "Origin::parse_extra({input:?})"
        );
        assert_eq!(
            Origin::parse(input).map(|o| o.to_string()).as_deref(),
            lenient,
            "Origin::parse({input:?})"
        );

        let matcher = Matcher::new(&cat.protected_origins, &[input]);
        let sites = seven_sites(cat, &[input]);
        match read {
            Ok(origin) => {
                let m = matcher.unwrap_or_else(|e| panic!("Matcher::new({input:?}): {e}"));
                assert!(m.url(&format!("{origin}/")), "{input:?} protects {origin}");
                assert_eq!(m.extra_origins().collect::<Vec<_>>(), [input.trim()]);
                let sites = sites.unwrap_or_else(|e| panic!("seven_sites({input:?}): {e}"));
                assert_eq!(
                    sites,
                    [cat.seven.site_pattern.clone(), origin.host],
                    "{input:?}"
                );
            }
            Err(why) => {
                let e = matcher.expect_err(input);
                assert!(e.to_string().contains(&why.to_string()), "{input:?}: {e}");
                assert!(
                    matches!(sites, Err(Error::InvalidOrigin { ref origin }) if origin == input),
                    "seven_sites({input:?}): {sites:?}"
                );
            }
        }
    }
}

#[test]
fn unparsable_origins_carry_the_parsers_message() {
    let cat = slicc_browsers::shared_catalog();
    for input in ["http://localhost:99999", "not an origin", "http://[::1/"] {
        let Err(NotAnOrigin::Unparsable(message)) = Origin::parse_extra(input) else {
            panic!("{input:?} is not a URL");
        };
        let e = Matcher::new(&cat.protected_origins, &[input]).expect_err(input);
        assert!(e.to_string().contains(&message), "{e}");
        assert!(seven_sites(cat, &[input]).is_err());
    }
}

/// Discovery marks seven tabs by the extra origins as `Origin::parse_extra` reads them, as the
/// matcher does: `http://0x7f.1:5710` is `http://127.0.0.1:5710`, and a value with user info
/// is no origin. It used to read them with the lenient `Origin::parse` (the opposite answers).
#[test]
fn discovery_reads_extra_origins_as_the_matcher_does() {
    use slicc_browsers::catalog::Os;
    use slicc_browsers::discovery::{discover, FakeHost, Options, Sources};
    const VERSION: &str = r#"{"Browser":"Chrome/156.0.8078.114","Protocol-Version":"1.3","User-Agent":"Mozilla/5.0 Chrome/156.0.0.0","webSocketDebuggerUrl":"ws://127.0.0.1:5123/devtools/browser/abc"}"#;
    const LIST: &str =
        r#"[{"id":"T1","type":"page","url":"http://127.0.0.1:5710/app","title":"seven"}]"#;
    let tabs = |origin: &str| {
        let mut host = FakeHost::new(Os::Linux, "/home/u");
        host.add_server("127.0.0.1:5123", Some(VERSION), Some(LIST));
        let mut options = Options::new(Os::Linux);
        options.sources = Sources {
            flag: true,
            ..Sources::NONE
        };
        options.cdp = vec!["5123".into()];
        options.origins = vec![origin.into()];
        let out = discover(&host, &options);
        let endpoint = out.entries[0]
            .endpoint
            .clone()
            .expect("the endpoint is listed");
        endpoint.seven_tabs.len()
    };
    assert_eq!(tabs("http://127.0.0.1:5710"), 1);
    assert_eq!(tabs("http://0x7f.1:5710"), 1, "the URL Standard's host");
    assert_eq!(tabs("http://LOCALHOST.:5710"), 0, "another host");
    assert_eq!(tabs("http://user@127.0.0.1:5710"), 0, "not an origin");
    assert_eq!(tabs("http://127.0.0.1:5710/app"), 0, "not an origin");
}
