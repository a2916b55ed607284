//! Consumer code written against the published 1.x API, as the spec's Rust section and its
//! "Running the corpus" snippet write it: the paths, names and signatures must keep compiling.
//! Types are spelled out (`let x: T = …`, function pointers) so a changed signature is a
//! compile error here, and every value is checked so the test can fail at run time too.

/// Always: the files as `&str` constants and `SCHEMA`.
#[test]
fn constants_without_features() {
    let texts: [&'static str; 6] = [
        slicc_browsers::CATALOG,
        slicc_browsers::CATALOG_SCHEMA,
        slicc_browsers::BROWSERS_SCHEMA,
        slicc_browsers::CORPUS_SCHEMA,
        slicc_browsers::PROTECTED_SCHEMA,
        slicc_browsers::GUARD_VECTORS_SCHEMA,
    ];
    for text in texts {
        assert!(text.trim_start().starts_with('{'), "{}", &text[..40]);
    }
    assert_eq!(slicc_browsers::SCHEMA, 1);
}

/// Feature serde: `Catalog` and the other types at the crate root, `Catalog::parse`,
/// `catalog()`, `Catalog::browser`, `Catalog::priority`, and `Seven::is_seven_label`.
#[cfg(feature = "serde")]
mod serde_1x {
    use slicc_browsers::{
        Browser, Catalog, Channel, Electron, LinuxBrowser, MacosBrowser, Platforms, Profiles,
        ProtectedOrigins, Seven, WindowsBrowser,
    };

    fn protected(c: &Catalog) -> &ProtectedOrigins {
        &c.protected_origins
    }

    fn seven(c: &Catalog) -> &Seven {
        &c.seven
    }

    #[test]
    fn catalog_types_at_the_root() {
        let parse: fn(&str) -> Result<Catalog, slicc_browsers::Error> = Catalog::parse;
        let cat: Catalog = parse(slicc_browsers::CATALOG).expect("the shipped catalog parses");
        let owned: Catalog = slicc_browsers::catalog();
        assert_eq!(owned.browsers.len(), cat.browsers.len());

        let chrome: Option<&Browser> = cat.browser("chrome");
        let chrome = chrome.expect("chrome is in the catalog");
        let channel: &String = &chrome.channel;
        assert_eq!(channel.parse::<Channel>().ok(), Some(Channel::Stable));
        let macos: &MacosBrowser = &chrome.macos;
        assert_eq!(macos.bundle_id, "com.google.Chrome");
        let windows: Option<&WindowsBrowser> = chrome.windows.as_ref();
        assert!(windows.is_some());
        let linux: Option<&LinuxBrowser> = chrome.linux.as_ref();
        assert!(linux.is_some_and(|l| l.bins.iter().any(|b| b == "google-chrome")));

        let first: usize = cat.priority("chrome");
        assert_eq!(first, 0);
        assert_eq!(cat.priority("no-such-browser"), cat.browsers.len());

        let p: &ProtectedOrigins = protected(&cat);
        assert!(p.domains.iter().any(|d| d == "sliccy.ai"));
        let _: &Electron = &cat.electron;
        let _: &Profiles = &cat.profiles;
        let _: &Platforms = &cat.platforms;
    }

    #[test]
    fn seven_labels() {
        let cat = slicc_browsers::catalog();
        let is_label: fn(&Seven, &str) -> bool = Seven::is_seven_label;
        let s = seven(&cat);
        assert!(is_label(s, "seven"));
        assert!(is_label(s, "vaulted"), "vault- is the prefix, not vault");
        assert!(!is_label(s, ""), "the bare apex");
        for label in &s.excluded_labels {
            assert!(!is_label(s, label), "{label}");
        }
        for prefix in &s.excluded_label_prefixes {
            assert!(!is_label(s, &format!("{prefix}feature-x")), "{prefix}");
        }
        // The label rule agrees with the origin rule it is part of (feature `patterns`,
        // which compiles `originHostPattern`).
        #[cfg(feature = "patterns")]
        for label in ["seven", "www", "vault-x", "mcpcat", "get", "a"] {
            let origin = format!("https://{label}.sliccy.ai");
            assert_eq!(
                cat.is_seven_origin(&origin, &[] as &[&str]),
                s.is_seven_label(label),
                "{label}"
            );
        }
    }
}

/// Feature corpus: the spec's "Running the corpus" Rust snippet, nearly verbatim.
#[cfg(feature = "corpus")]
#[test]
fn running_the_corpus_1x() {
    use slicc_browsers::corpus::{corpus, Layout, NEED_PROCESS, NEED_PROFILES};

    let tempdir = tempfile::tempdir().unwrap();
    let cat = slicc_browsers::catalog();
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        other => other,
    };
    let mut ran = 0;
    for case in corpus().cases {
        if !case.runs(os, &[NEED_PROFILES, NEED_PROCESS]) {
            continue;
        }
        let home = tempdir.path().to_str().unwrap();
        let env = |k: &str| case.input.env.get(k).cloned();
        let layout = Layout {
            os,
            home,
            env: &env,
            catalog: &cat,
        };
        let files: Vec<(String, String)> = case.files(&layout);
        assert!(files.iter().all(|(path, _)| path.starts_with(home)));
        let ps: String = case.ps_output(&layout, std::process::id());
        let cim: String = case.cim_output(&layout, std::process::id());
        for line in ps.lines() {
            let pid = line.split_whitespace().next().unwrap_or("");
            assert!(pid.parse::<u32>().is_ok(), "{}: {line}", case.name);
        }
        let rows: serde_json::Value = serde_json::from_str(&cim).expect("CIM output is JSON");
        assert!(rows.is_array(), "{}", case.name);
        for host_port in case.input.http.keys() {
            assert!(case.server(host_port).is_some(), "{host_port}");
            let answer: Option<(u16, String)> = case.http_get(host_port, "/no-such-path");
            assert!(answer.is_none_or(|(status, _)| status == 404));
        }
        let expected: serde_json::Value = case.expected(&layout);
        assert_eq!(expected["schema"], 1);
        let config: String = layout.config();
        let _: String = layout.seven_profiles();
        let _: String = layout.six_profiles();
        let _: Vec<String> = layout.user_data_dirs("chrome");
        let _: Option<String> = layout.token("home");
        assert!(config.starts_with(home) || os == "windows");
        assert!(!layout.expand("{home}").contains('{'));
        ran += 1;
    }
    assert!(ran > 0, "no corpus case ran on {os}");
    let text: &'static str = slicc_browsers::CORPUS;
    assert!(text.contains("\"cases\""));
}

/// Feature corpus: `PROTECTED`, the module `protected` with `vectors()`, `Vectors` and the
/// `OPENER_*` constants.
#[cfg(feature = "corpus")]
#[test]
fn protected_vectors_1x() {
    use slicc_browsers::protected::{
        vectors, Vectors, OPENER_PROTECTED, OPENER_UNKNOWN, OPENER_UNPROTECTED,
    };
    let v: Vectors = vectors();
    let schema: u32 = v.schema;
    assert_eq!(schema, 1);
    let origins: &Vec<String> = &v.origins;
    assert!(!origins.is_empty());
    assert!(v
        .urls
        .iter()
        .any(|u| u.url == "https://seven.sliccy.ai/" && u.protected));
    let openers = [OPENER_PROTECTED, OPENER_UNPROTECTED, OPENER_UNKNOWN];
    for t in &v.targets {
        let previous: bool = t.previous;
        let opener: Option<&str> = t.opener.as_deref();
        assert!(opener.is_none_or(|o| openers.contains(&o)), "{opener:?}");
        let _ = previous;
    }
    assert!(v
        .cookie_domains
        .iter()
        .any(|c| c.domain == "sliccy.ai" && c.protected));
    assert!(
        v.storage_keys.iter().any(|k| k.protected) && v.storage_keys.iter().any(|k| !k.protected)
    );
    let text: &'static str = slicc_browsers::PROTECTED;
    assert!(text.contains("\"cookieDomains\""));
}

/// Feature corpus: `GUARD_VECTORS` and the module `guard` with its types and constants.
#[cfg(feature = "corpus")]
#[test]
fn guard_vectors_1x() {
    use slicc_browsers::guard::{
        vectors, Expected, Observation, Step, Vector, Vectors, CAP_AUTO_ATTACH,
        CAP_BROWSER_CONTEXTS, CAP_BROWSER_SESSION, CONTROL, GUARDED, KIND_CDP, KIND_TEXT, ORDINARY,
        ORDINARY_SAME_SITE, SCOPE_ANY, SESSION_BROWSER, SESSION_CHILD, SESSION_PAGE,
        SESSION_PAGE_OR_BROWSER, TARGET_APEX, TARGET_OWN, TARGET_SEVEN, TARGET_VAULT,
        TARGET_VAULT_X, VIA_GUARD, VIA_UNGUARDED,
    };
    let set: Vectors = vectors();
    // The values the spec's guard-vectors format gives these names.
    let names: [(&str, &str); 21] = [
        (CAP_AUTO_ATTACH, "autoAttach"),
        (CAP_BROWSER_CONTEXTS, "browserContexts"),
        (CAP_BROWSER_SESSION, "browserSession"),
        (CONTROL, "control"),
        (GUARDED, "guarded"),
        (KIND_CDP, "cdp"),
        (KIND_TEXT, "text"),
        (ORDINARY, "ordinary"),
        (ORDINARY_SAME_SITE, "ordinary-same-site"),
        (SCOPE_ANY, "any"),
        (SESSION_BROWSER, "browser"),
        (SESSION_CHILD, "child"),
        (SESSION_PAGE, "page"),
        (SESSION_PAGE_OR_BROWSER, "page-or-browser"),
        (TARGET_APEX, "apex"),
        (TARGET_OWN, "own"),
        (TARGET_SEVEN, "seven"),
        (TARGET_VAULT, "vault"),
        (TARGET_VAULT_X, "vault-x"),
        (VIA_GUARD, "guard"),
        (VIA_UNGUARDED, "unguarded"),
    ];
    for (name, value) in names {
        assert_eq!(name, value);
    }
    let text: &'static str = slicc_browsers::GUARD_VECTORS;
    assert!(text.contains("\"vectors\""));
    let (mut checks, mut words) = (0, 0);
    for v in &set.vectors {
        let v: &Vector = v;
        let steps: &Vec<Step> = &v.setup;
        let _ = steps;
        for (name, _) in v.observe.iter().flat_map(|o| o.iter()) {
            let o: Option<&Observation> = v.observation(name);
            assert!(o.is_some(), "{} {name}", v.id);
        }
        match &v.expected {
            Expected::Checks(_) => checks += 1,
            Expected::Text(_) => words += 1,
        }
    }
    assert!(checks > 0 && words > 0, "{checks} {words}");
}
