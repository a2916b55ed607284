//! The user's own patterns (`--protect`, `ProtectPattern`) are read as the catalog's
//! `protectedOrigins` are: `protected.json` and `tests/data/protected-strict.json`, re-targeted
//! from the catalog's `sliccy.ai` (and the files' extra origins) to user patterns, give every
//! vector's answer.
//!
//! Three re-targetings, each on a catalog whose `protectedOrigins` no longer names `sliccy.ai`
//! (no domains, no hosts):
//!
//! - the site `sliccy.ai` and the files' origins given as patterns: every vector, hostile
//!   spellings of every kind (IDNA, full-width and outlined letters, `％` escapes, soft hyphens,
//!   trailing dots, user info, backslashes, inner schemes, IP forms, cookie domains as URL
//!   authorities, storage keys);
//! - the host pattern `*.sliccy.ai` beside a catalog that keeps `sliccy.ai` as a host: the
//!   same answers, so the subdomain rule is the domain rule without its apex;
//! - the site `bank.example`, with `sliccy.ai` written `bank.example` in every vector that
//!   spells it literally (any case).
#![cfg(all(feature = "protected", feature = "corpus"))]

use slicc_browsers::catalog::ProtectedOrigins;
use slicc_browsers::conformance::run_protected;
use slicc_browsers::protected::{vectors, Matcher, ProtectPattern, Rule, Vectors};
use slicc_browsers::shared_catalog;

fn strict_vectors() -> Vectors {
    Vectors::parse(include_str!("../data/protected-strict.json")).expect("the strict vectors parse")
}

/// The catalog's `protectedOrigins` with `hosts` as given and no domains.
fn catalog_without_sliccy(hosts: &[&str]) -> ProtectedOrigins {
    let mut origins = shared_catalog().protected_origins.clone();
    assert_eq!(
        origins.domains,
        ["sliccy.ai"],
        "the catalog changed: re-target anew"
    );
    origins.domains.clear();
    origins.hosts = hosts.iter().map(|h| h.to_string()).collect();
    origins
}

fn patterns(texts: &[&str], origins: &[String]) -> Vec<ProtectPattern> {
    texts
        .iter()
        .copied()
        .chain(origins.iter().map(String::as_str))
        .map(|t| ProtectPattern::parse(t).unwrap_or_else(|e| panic!("{t:?}: {e}")))
        .collect()
}

/// The failures of `m` on `v` (`what was asked: expected x, got y`) and how many were asked.
fn failures(m: &Matcher, v: &Vectors) -> (Vec<String>, usize) {
    let report = run_protected(m, v);
    let failed = report.failures().map(|o| o.to_string()).collect();
    (failed, report.outcomes.len())
}

/// Runs the re-targeted matcher (default and strict for protected.json, strict for the strict
/// file) and the same catalog without the patterns, which must fail some vectors (so the
/// patterns do the work); returns the vectors passed.
fn retargeted(hosts: &[&str], texts: &[&str]) -> usize {
    let mut passed = 0;
    for (file, v, strict_only) in [
        ("protected.json", vectors(), false),
        ("protected-strict.json", strict_vectors(), true),
    ] {
        let bare = Matcher::new(&catalog_without_sliccy(hosts), &[] as &[&str]).unwrap();
        let user = bare.clone().protecting(&patterns(texts, &v.origins));
        assert!(user.extra_origins().next().is_none());
        let mut matchers = vec![("strict", user.clone().strict(), bare.clone().strict())];
        if !strict_only {
            matchers.push(("default", user, bare));
        }
        for (name, user, bare) in matchers {
            let (failed, asked) = failures(&user, &v);
            assert!(
                failed.is_empty(),
                "{file}, {name} matcher protecting {texts:?}: {} of {asked} failed:\n{}",
                failed.len(),
                failed.join("\n")
            );
            let (without, _) = failures(&bare, &v);
            let least = if strict_only { 5 } else { 100 };
            println!(
                "{file}, {name}, {texts:?}: {asked} passed; {} fail without the patterns",
                without.len()
            );
            assert!(
                without.len() > least,
                "{file}, {name}: without the patterns only {} vectors fail",
                without.len()
            );
            passed += asked;
        }
    }
    passed
}

#[test]
fn every_vector_holds_for_a_protected_site() {
    let passed = retargeted(&[], &["sliccy.ai"]);
    // protected.json twice (default and strict) and the strict file once.
    let v = vectors();
    let n = v.urls.len() + v.targets.len() + v.cookie_domains.len() + v.storage_keys.len();
    let s = strict_vectors();
    let strict = s.urls.len() + s.targets.len() + s.cookie_domains.len() + s.storage_keys.len();
    assert_eq!(passed, 2 * n + strict);
    println!(
        "site sliccy.ai: {passed} vector answers ({n} vectors x 2 matchers + {strict} strict)"
    );
}

#[test]
fn every_vector_holds_for_a_host_pattern_beside_its_apex() {
    let passed = retargeted(&["sliccy.ai"], &["*.sliccy.ai"]);
    assert!(passed > 1000, "{passed}");
    println!("host pattern *.sliccy.ai: {passed} vector answers");
}

/// `text` with every ASCII-case-insensitive `sliccy.ai` written `bank.example`, or `None`
/// when it has none.
fn renamed(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    if !lower.contains("sliccy.ai") {
        return None;
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut i = 0;
    while let Some(at) = lower[i..].find("sliccy.ai") {
        out.push_str(&text[i..i + at]);
        out.push_str("bank.example");
        i += at + "sliccy.ai".len();
    }
    out.push_str(&text[i..]);
    Some(out)
}

#[test]
fn the_vectors_naming_sliccy_hold_for_bank_example() {
    let mut total = 0;
    for (file, v, strict_only) in [
        ("protected.json", vectors(), false),
        ("protected-strict.json", strict_vectors(), true),
    ] {
        let mut r = Vectors {
            schema: v.schema,
            origins: Vec::new(),
            urls: Vec::new(),
            targets: Vec::new(),
            cookie_domains: Vec::new(),
            storage_keys: Vec::new(),
        };
        for x in &v.urls {
            if let Some(url) = renamed(&x.url) {
                r.urls
                    .push(slicc_browsers::protected::UrlVector { url, ..x.clone() });
            }
        }
        for x in &v.targets {
            if let Some(url) = renamed(&x.url) {
                r.targets
                    .push(slicc_browsers::protected::TargetVector { url, ..x.clone() });
            }
        }
        for x in &v.cookie_domains {
            if let Some(domain) = renamed(&x.domain) {
                r.cookie_domains
                    .push(slicc_browsers::protected::CookieDomainVector {
                        domain,
                        ..x.clone()
                    });
            }
        }
        for x in &v.storage_keys {
            if let Some(key) = renamed(&x.key) {
                r.storage_keys
                    .push(slicc_browsers::protected::StorageKeyVector { key, ..x.clone() });
            }
        }
        let bare = Matcher::new(&catalog_without_sliccy(&[]), &[] as &[&str]).unwrap();
        let user = bare.protecting(&patterns(&["bank.example"], &v.origins));
        let mut matchers = vec![("strict", user.clone().strict())];
        if !strict_only {
            matchers.push(("default", user));
        }
        for (name, m) in matchers {
            let (failed, asked) = failures(&m, &r);
            assert!(
                failed.is_empty(),
                "{file} re-targeted at bank.example, {name}: {} of {asked} failed:\n{}",
                failed.len(),
                failed.join("\n")
            );
            total += asked;
        }
        let protected = r.urls.iter().filter(|x| x.protected).count();
        assert!(protected >= 4, "{file}: {protected} protected URLs renamed");
    }
    assert!(total > 400, "{total}");
    println!("renamed to bank.example: {total} vector answers");
}

#[test]
fn a_host_pattern_leaves_its_apex_and_neighbours_alone() {
    let cat = shared_catalog();
    let m = Matcher::new(&cat.protected_origins, &[] as &[&str])
        .unwrap()
        .protecting(&[ProtectPattern::parse("*.corp.example").unwrap()])
        .strict();
    for url in [
        "https://wiki.corp.example/",
        "http://WIKI.Corp.Example.:8080/x",
        "https://a.b.corp.example/",
        "https://wiki.corp.％65xample/",
        "https://wiki.c%6Frp.example/",
        "https://ｗｉｋｉ。ｃｏｒｐ。ｅｘａｍｐｌｅ/",
        "https://wi\u{AD}ki.corp.example/",
        "https://u:p@wiki.corp.example\\x",
        "https:\\\\wiki.corp.example/",
        "blob:https://wiki.corp.example/0b7c",
        "view-source:http://wiki.corp.example/",
        "wss://wiki.corp.example/",
        "https://xn--a.corp.example/",
    ] {
        assert!(m.url(url), "{url}");
    }
    for url in [
        "https://corp.example/",
        "https://corp.example./",
        "https://xcorp.example/",
        "https://corp.example.evil.test/",
        "https://wiki-corp.example/",
        "ftp://wiki.corp.example/",
    ] {
        assert!(!m.url(url), "{url}");
    }
    for domain in [
        ".corp.example",
        "corp.example",
        "example",
        "x.corp.example",
        "x@wiki.corp.example",
    ] {
        assert!(m.cookie_domain(domain), "{domain}");
    }
    assert!(!m.cookie_domain("othercorp.example"));
    assert!(m.storage_key("https://evil.test/^0https://wiki.corp.example"));
    assert!(m.shares_site("https://corp.example/"));
    match m.explain("https://wiki.corp.example/").map(|r| r.rule) {
        Some(Rule::Protect { matched, pattern }) => {
            assert_eq!(
                (matched.as_str(), pattern.as_str()),
                ("wiki.corp.example", "*.corp.example")
            )
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn patterns_are_added_once() {
    let cat = shared_catalog();
    let p: Vec<ProtectPattern> = ["bank.example", "BANK.example.", "https://x.example:8443"]
        .iter()
        .map(|t| t.parse().unwrap())
        .collect();
    let m = Matcher::new(&cat.protected_origins, &[] as &[&str])
        .unwrap()
        .protecting(&p)
        .protecting(&p);
    assert_eq!(m.protect_patterns().len(), 2);
    assert_eq!(
        m.explain("https://x.example:8443/").unwrap().to_string(),
        "origin https://x.example:8443 is protected by the pattern https://x.example:8443"
    );
    assert_eq!(
        m.explain("https://bank.example/").unwrap().to_string(),
        "host bank.example is the protected site bank.example"
    );
    // The catalog's own rules keep their reasons.
    assert!(matches!(
        m.explain("https://seven.sliccy.ai/").unwrap().rule,
        Rule::Domain { .. }
    ));
}

/// The policy's `Config::protect`: a navigation onto the user's site is refused with the
/// catalog's words, and a target on it is left out of the listing; without it both go
/// through.
#[cfg(feature = "guard")]
#[test]
fn the_policy_keeps_clients_off_a_protected_site() {
    use slicc_browsers::guard::policy::{Config, Policy, Verdict, RESERVED_IDS};
    let run = |protect: Vec<ProtectPattern>| {
        let m = Matcher::new(&shared_catalog().protected_origins, &[] as &[&str])
            .unwrap()
            .strict();
        let mut policy = Policy::with_config(
            m,
            Config {
                protect,
                ..Config::default()
            },
        );
        policy.start(0);
        policy.from_browser(
            r#"{"method":"Target.targetCreated","params":{"targetInfo":{"targetId":"B1","type":"page","title":"","url":"https://login.bank.example/","attached":false,"canAccessOpener":false}}}"#,
            1,
        );
        let id = RESERVED_IDS.start();
        policy.from_browser(&format!(r#"{{"id":{id},"result":{{}}}}"#), 2);
        let nav = policy.from_client(
            r#"{"id":1,"method":"Target.createTarget","params":{"url":"https://WWW.Bank.Example./"}}"#,
            3,
        );
        let list = policy.from_client(r#"{"id":2,"method":"Target.getTargets"}"#, 4);
        (nav, list, policy)
    };
    let (nav, _, policy) = run(vec![ProtectPattern::parse("bank.example").unwrap()]);
    assert_eq!(nav.verdict, Verdict::Refuse);
    assert!(
        nav.to_client[0].contains("slicc: refused"),
        "{:?}",
        nav.to_client
    );
    assert!(policy.matcher().url("https://login.bank.example/"));
    let (nav, _, policy) = run(Vec::new());
    assert_eq!(
        nav.verdict,
        Verdict::Forward,
        "without --protect it goes through"
    );
    assert!(!policy.matcher().url("https://login.bank.example/"));
}
