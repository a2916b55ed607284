//! The typed catalog: the shipped file parses, the spec's API exists with the shape its
//! examples use, bad input is an error (never a panic), and the rules behave as the spec says.
#![cfg(feature = "serde")]

use slicc_browsers::catalog::{join_path, Channel, Engine, Origin, Os, ProtectedOrigins};
use slicc_browsers::{Catalog, Error, CATALOG, SCHEMA};

/// The spec's Rust section, as a consumer with `slicc-browsers = "1"` would write it.
#[test]
fn spec_rust_api() {
    let cat = slicc_browsers::catalog();
    assert_eq!(SCHEMA, 1);
    for text in [
        slicc_browsers::CATALOG,
        slicc_browsers::CATALOG_SCHEMA,
        slicc_browsers::BROWSERS_SCHEMA,
    ] {
        let value: serde_json::Value = serde_json::from_str(text).unwrap();
        assert!(value.is_object());
    }
    let chrome = cat.browser("chrome").unwrap();
    assert_eq!(cat.priority("chrome"), 0);
    assert_eq!(cat.priority(&chrome.id), 0);
    assert_eq!(cat.priority("not-a-browser"), cat.browsers.len());
    assert!(cat.browser("not-a-browser").is_none());
    let protected: &ProtectedOrigins = &cat.protected_origins;
    assert!(protected.domains.iter().any(|d| d == "sliccy.ai"));
    assert!(std::ptr::eq(
        slicc_browsers::shared_catalog(),
        slicc_browsers::shared_catalog()
    ));
}

#[test]
fn rank_order_follows_slicc() {
    // SLICC's rank priority order (facts.md: Sliccstart AppOrdering.swift).
    let order = [
        "chrome",
        "edge",
        "brave",
        "opera",
        "vivaldi",
        "arc",
        "atlas",
        "dia",
        "chrome-beta",
        "chrome-dev",
        "chrome-canary",
        "brave-beta",
        "brave-nightly",
        "edge-beta",
        "edge-dev",
        "edge-canary",
        "vivaldi-snapshot",
        "chrome-for-testing",
        "chromium",
    ];
    let cat = slicc_browsers::shared_catalog();
    let ids: Vec<&str> = cat.browsers.iter().map(|b| b.id.as_str()).collect();
    assert_eq!(&ids[..order.len()], &order[..]);
    for (i, id) in order.iter().enumerate() {
        assert_eq!(cat.priority(id), i, "{id}");
    }
}

#[test]
fn enums_match_the_strings() {
    let cat = slicc_browsers::shared_catalog();
    for b in &cat.browsers {
        let channel = b
            .channel()
            .unwrap_or_else(|| panic!("{}: channel {}", b.id, b.channel));
        assert_eq!(channel.as_str(), b.channel);
        assert_eq!(b.engine(), Some(Engine::Chromium));
    }
    assert_eq!("canary".parse::<Channel>().unwrap(), Channel::Canary);
    assert!("weekly".parse::<Channel>().is_err());
    assert_eq!("darwin".parse::<Os>().unwrap(), Os::Macos);
    assert_eq!("macos".parse::<Os>().unwrap(), Os::Macos);
    assert_eq!(Os::Macos.corpus_name(), "darwin");
    assert_eq!(Os::Macos.catalog_key(), "macos");
    assert!("plan9".parse::<Os>().is_err());
}

/// Twenty malformed inputs: each is an error naming what was wrong, never a panic.
#[test]
fn malformed_catalogs_are_errors() {
    let good: serde_json::Value = serde_json::from_str(CATALOG).unwrap();
    let with = |f: &dyn Fn(&mut serde_json::Value)| {
        let mut v = good.clone();
        f(&mut v);
        v.to_string()
    };
    let truncated = &CATALOG[..CATALOG.len() / 2];
    let cases: Vec<(&str, String)> = vec![
        ("empty", String::new()),
        ("whitespace", "  \n".into()),
        ("truncated", truncated.into()),
        ("null", "null".into()),
        ("array", "[]".into()),
        ("number", "1".into()),
        ("empty object", "{}".into()),
        ("schema 2", with(&|v| v["schema"] = 2.into())),
        ("schema string", with(&|v| v["schema"] = "1".into())),
        (
            "schema missing",
            with(&|v| {
                v.as_object_mut().unwrap().remove("schema");
            }),
        ),
        (
            "browsers missing",
            with(&|v| {
                v.as_object_mut().unwrap().remove("browsers");
            }),
        ),
        (
            "browsers object",
            with(&|v| v["browsers"] = serde_json::json!({})),
        ),
        (
            "browser id number",
            with(&|v| v["browsers"][0]["id"] = 7.into()),
        ),
        (
            "macos missing",
            with(&|v| {
                v["browsers"][0].as_object_mut().unwrap().remove("macos");
            }),
        ),
        (
            "tier string",
            with(&|v| v["rank"]["tiers"]["chrome"] = "3".into()),
        ),
        (
            "tier too big",
            with(&|v| v["rank"]["tiers"]["chrome"] = 300.into()),
        ),
        (
            "probe port too big",
            with(&|v| v["discovery"]["probePorts"] = serde_json::json!([70000])),
        ),
        (
            "bad origin pattern",
            with(&|v| v["seven"]["originHostPattern"] = "([a-z".into()),
        ),
        (
            "bad six pattern",
            with(&|v| v["profiles"]["sixProfilePattern"] = "(?P<x".into()),
        ),
        (
            "segments not a list",
            with(&|v| v["profiles"]["root"] = "slicc/seven-profiles".into()),
        ),
        ("trailing garbage", format!("{CATALOG} }}")),
        (
            "minChromiumMajor negative",
            with(&|v| v["minChromiumMajor"] = (-1).into()),
        ),
    ];
    assert!(cases.len() >= 20);
    for (name, text) in cases {
        // A pattern is compiled on first use, not by `Catalog::parse`: a bad one is found by
        // `check_patterns` (feature `patterns`), which `validate` runs.
        let pattern_case = name.starts_with("bad ") && name.ends_with(" pattern");
        if pattern_case {
            let cat = Catalog::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            #[cfg(not(feature = "patterns"))]
            let _ = cat;
            #[cfg(not(feature = "patterns"))]
            continue;
            #[cfg(feature = "patterns")]
            {
                let err = cat
                    .check_patterns()
                    .err()
                    .unwrap_or_else(|| panic!("{name}: compiled"));
                let message = err.to_string();
                let path = if name == "bad origin pattern" {
                    "/seven/originHostPattern"
                } else {
                    "/profiles/sixProfilePattern"
                };
                assert!(message.contains(path), "{message}");
                continue;
            }
        }
        let result = std::panic::catch_unwind(|| Catalog::parse(&text));
        let result = result.unwrap_or_else(|_| panic!("{name}: Catalog::parse panicked"));
        let err = result.err().unwrap_or_else(|| panic!("{name}: parsed"));
        let message = err.to_string();
        assert!(!message.is_empty(), "{name}");
        match name {
            "schema 2" | "schema string" | "schema missing" | "empty object" => {
                assert!(matches!(err, Error::Schema { .. }), "{name}: {err:?}")
            }
            "bad origin pattern" => {
                assert!(message.contains("/seven/originHostPattern"), "{message}")
            }
            "bad six pattern" => {
                assert!(message.contains("/profiles/sixProfilePattern"), "{message}")
            }
            "browser id number" | "tier string" => {
                assert!(
                    matches!(err, Error::Json { line, .. } if line > 0),
                    "{name}: {err:?}"
                )
            }
            _ => {}
        }
    }
}

/// A catalog is parsed once and its patterns are compiled only when used: a bad pattern does
/// not stop the parse, the rule that uses it answers "no" (never a panic), and
/// `check_patterns` names it by its JSON path.
#[cfg(feature = "patterns")]
#[test]
fn bad_patterns_are_found_on_use_and_by_check_patterns() {
    let good: serde_json::Value = serde_json::from_str(CATALOG).unwrap();
    for path in [
        "/discovery/chromeMajorPattern",
        "/seven/originHostPattern",
        "/profiles/sixProfilePattern",
        "/profiles/namePattern",
    ] {
        let mut v = good.clone();
        *v.pointer_mut(path).unwrap() = "([unclosed".into();
        let cat = Catalog::parse(&v.to_string()).unwrap_or_else(|e| panic!("{path}: {e}"));
        let err = cat.check_patterns().expect_err(path);
        assert!(
            matches!(&err, Error::Invalid { path: p, message } if p == path && message.contains("does not compile")),
            "{path}: {err:?}"
        );
        // Every rule still answers; the one whose pattern is bad answers "no".
        let ua = "Mozilla/5.0 Chrome/154.0.0.0";
        let none: &[&str] = &[];
        let answers = [
            cat.chrome_major(ua) == Some(154),
            cat.is_seven_origin("https://seven.sliccy.ai/", none),
            cat.is_six_profile_name("browser-coding-agent-chrome"),
            cat.valid_profile_name("demo"),
        ];
        let bad = [
            "/discovery/chromeMajorPattern",
            "/seven/originHostPattern",
            "/profiles/sixProfilePattern",
            "/profiles/namePattern",
        ]
        .iter()
        .position(|p| *p == path)
        .unwrap();
        for (i, answer) in answers.iter().enumerate() {
            assert_eq!(*answer, i != bad, "{path}: rule {i}");
        }
    }
    // The shipped catalog's patterns all compile, and compiling twice is harmless.
    let cat = slicc_browsers::catalog();
    assert!(cat.valid_profile_name("demo"));
    cat.check_patterns().unwrap();
    cat.check_patterns().unwrap();
}

#[test]
fn unknown_fields_are_tolerated() {
    let mut v: serde_json::Value = serde_json::from_str(CATALOG).unwrap();
    v["futureField"] = serde_json::json!({"x": 1});
    v["browsers"][0]["futureField"] = true.into();
    v["seven"]["futureField"] = "y".into();
    let cat = Catalog::parse(&v.to_string()).unwrap();
    assert_eq!(cat.browsers[0].id, "chrome");
}

#[cfg(feature = "patterns")]
#[test]
fn seven_origins() {
    let cat = slicc_browsers::shared_catalog();
    let none: &[&str] = &[];
    for (url, seven) in [
        ("https://seven.sliccy.ai", true),
        ("https://seven.sliccy.ai/", true),
        ("https://SEVEN.sliccy.ai/path?q=1#frag", true),
        ("https://seven.sliccy.ai:443/", true),
        ("https://team-7.sliccy.ai/", true),
        ("https://a1.sliccy.ai", true),
        ("https://seven.sliccy.ai:8443/", false),
        ("http://seven.sliccy.ai/", false),
        ("https://sliccy.ai/", false),
        ("https://www.sliccy.ai/", false),
        ("https://vault.sliccy.ai/", false),
        ("https://vault-preview.sliccy.ai/", false),
        ("https://vault-feature-x.sliccy.ai/", false),
        ("https://get.sliccy.ai/", false),
        ("https://mcpcat.sliccy.ai/", false),
        ("https://a.b.sliccy.ai/", false),
        ("https://-x.sliccy.ai/", false),
        ("https://x-.sliccy.ai/", false),
        ("https://seven.sliccy.ai.evil.test/", false),
        ("https://evil-sliccy.ai/", false),
        ("about:blank", false),
        ("", false),
    ] {
        assert_eq!(cat.is_seven_origin(url, none), seven, "{url}");
    }
    let extra = ["http://localhost:5710/", "https://app.example.test:443"];
    assert!(cat.is_seven_origin("http://localhost:5710/x", &extra));
    assert!(!cat.is_seven_origin("http://localhost:5711/x", &extra));
    assert!(cat.is_seven_origin("https://app.example.test/", &extra));
    assert!(!cat.is_seven_origin("http://app.example.test/", &extra));
}

#[test]
fn origin_parse_normalises() {
    let o = Origin::parse("HTTP://LocalHost:80/").unwrap();
    assert_eq!(o.to_string(), "http://localhost");
    assert_eq!(Origin::parse("http://[::1]:5710").unwrap().host, "[::1]");
    assert_eq!(
        Origin::parse("http://user:pw@host.test:81/")
            .unwrap()
            .to_string(),
        "http://host.test:81"
    );
    for bad in [
        "",
        "nothing",
        "http://",
        "http://host:99999/",
        "http://host:1x/",
        "1http://x/",
    ] {
        assert!(Origin::parse(bad).is_none(), "{bad:?}");
    }
}

#[test]
fn filters() {
    let cat = slicc_browsers::shared_catalog();
    let ua = |major: &str| {
        format!("Mozilla/5.0 (X11) AppleWebKit/537.36 Chrome/{major}.0.0.0 Safari/537.36")
    };
    #[cfg(feature = "patterns")]
    {
        assert!(cat.user_agent_passes(&ua("116")));
        assert!(!cat.user_agent_passes(&ua("115")));
        assert!(cat.user_agent_passes("no version here"));
        assert!(cat.user_agent_passes(&ua("99999999999999999999999")));
    }
    let _ = ua;
    assert!(!cat.installed_passes("chrome", Some("115.0.1")));
    assert!(cat.installed_passes("chrome", Some("116")));
    assert!(cat.installed_passes("chrome", Some("dev")));
    assert!(cat.installed_passes("chrome", None));
    assert!(cat.installed_passes("brave", Some("1.60.1")));
    assert!(cat.installed_passes("not-in-catalog", Some("1.0")));
}

#[test]
fn profile_names_and_six() {
    let cat = slicc_browsers::shared_catalog();
    #[cfg(feature = "patterns")]
    {
        assert!(cat.valid_profile_name("demo"));
        assert!(!cat.valid_profile_name(".."));
        assert!(!cat.valid_profile_name("a/b"));
        assert!(!cat.valid_profile_name(""));
        assert!(cat.is_six_profile_name("browser-coding-agent-chrome"));
        assert!(cat.is_six_profile_name("BROWSER-Coding-Agent-Chrome-5720"));
        assert!(!cat.is_six_profile_name("browser-coding-agent-chrome-old"));
        assert!(!cat.is_six_profile_name("leader"));
    }
    assert_eq!(
        cat.electron.app_id("Visual Studio Code - Insiders"),
        "electron:visual-studio-code-insiders"
    );
    assert_eq!(
        cat.electron.app_id("  1Password 7 "),
        "electron:1password-7"
    );
    assert!(cat.electron.is_debug_blocked("claude"));
}

fn env_from(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
    move |k: &str| {
        pairs
            .iter()
            .find(|(n, _)| *n == k)
            .map(|(_, v)| v.to_string())
    }
}

#[test]
fn locations_per_os() {
    let cat = slicc_browsers::shared_catalog();
    let none = env_from(&[]);
    assert_eq!(
        cat.config_dir(Os::Macos, "/Users/me", &none).unwrap(),
        "/Users/me/Library/Application Support"
    );
    assert_eq!(
        cat.config_dir(Os::Linux, "/home/me", &none).unwrap(),
        "/home/me/.config"
    );
    assert_eq!(
        cat.config_dir(Os::Windows, r"C:\Users\me", &none).unwrap(),
        r"C:\Users\me\AppData\Roaming"
    );
    // Linux takes XDG_CONFIG_HOME only when it is absolute; six's bases take any value.
    let rel = env_from(&[
        ("XDG_CONFIG_HOME", "rel/cfg"),
        ("XDG_STATE_HOME", "rel/state"),
    ]);
    assert_eq!(
        cat.config_dir(Os::Linux, "/home/me", &rel).unwrap(),
        "/home/me/.config"
    );
    assert_eq!(
        cat.six_root(Os::Linux, "/home/me", &rel).unwrap(),
        "rel/state/slicc/profiles"
    );
    let abs = env_from(&[
        ("XDG_CONFIG_HOME", "/cfg"),
        ("APPDATA", r"D:\Roaming\"),
        ("SLICC_USER_DATA_DIR", "  /x/six \n"),
    ]);
    assert_eq!(cat.config_dir(Os::Linux, "/home/me", &abs).unwrap(), "/cfg");
    assert_eq!(
        cat.seven_profiles_root(Os::Linux, "/home/me", &abs)
            .unwrap(),
        "/cfg/slicc/seven-profiles"
    );
    assert_eq!(
        cat.seven_profiles_root(Os::Windows, r"C:\Users\me", &abs)
            .unwrap(),
        r"D:\Roaming\slicc\seven-profiles"
    );
    assert_eq!(cat.six_env_dir(&abs).unwrap(), "/x/six");
    assert_eq!(cat.six_env_dir(&none), None);
    let blank = env_from(&[("SLICC_USER_DATA_DIR", " \t ")]);
    assert_eq!(cat.six_env_dir(&blank), None);
    assert_eq!(
        cat.six_root(Os::Macos, "/Users/me", &none).unwrap(),
        "/Users/me/Library/Application Support/Slicc/profiles"
    );
    assert_eq!(
        cat.six_root(Os::Windows, r"C:\Users\me", &none).unwrap(),
        r"C:\Users\me\AppData\Local\Slicc\profiles"
    );
    assert_eq!(
        join_path(Os::Windows, "/tmp/h", &["AppData/Local"]),
        r"/tmp/h\AppData\Local"
    );
}

#[test]
fn user_data_dirs_per_os() {
    let cat = slicc_browsers::shared_catalog();
    let none = env_from(&[]);
    let chromium = cat.browser("chromium").unwrap();
    assert_eq!(
        cat.user_data_dirs(chromium, Os::Linux, "/home/me", &none),
        [
            "/home/me/.config/chromium",
            "/home/me/.var/app/org.chromium.Chromium/config/chromium",
            "/home/me/snap/chromium/common/chromium",
        ]
    );
    let chrome = cat.browser("chrome").unwrap();
    assert_eq!(
        cat.user_data_dirs(chrome, Os::Macos, "/Users/me", &none),
        ["/Users/me/Library/Application Support/Google/Chrome"]
    );
    assert_eq!(
        cat.user_data_dirs(chrome, Os::Windows, r"C:\Users\me", &none),
        [r"C:\Users\me\AppData\Local\Google\Chrome\User Data"]
    );
    let local = env_from(&[("LOCALAPPDATA", r"E:\Local")]);
    assert_eq!(
        cat.user_data_dirs(chrome, Os::Windows, r"C:\Users\me", &local),
        [r"E:\Local\Google\Chrome\User Data"]
    );
    // Atlas has no known data dir: nothing is guessed.
    let atlas = cat.browser("atlas").unwrap();
    assert!(cat
        .user_data_dirs(atlas, Os::Macos, "/Users/me", &none)
        .is_empty());
}

#[test]
fn a_missing_schema_version_says_so() {
    // It read "catalog.json: schema missing is not supported", as if "missing" were a version.
    let err = Catalog::parse(r#"{"browsers": []}"#).unwrap_err();
    assert!(
        matches!(&err, Error::Schema { found, .. } if found == "missing"),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.starts_with("catalog.json: no schema version"),
        "{message}"
    );
    let err = Catalog::parse(r#"{"schema": 2}"#).unwrap_err().to_string();
    assert_eq!(
        err,
        "catalog.json: schema 2 is not supported (this crate reads schema 1)"
    );
}
