//! `test/integration/layout.json` pins what [`Layout`] answers for several homes on all three
//! OSes, with and without the variables that move each location. The answers were written by
//! hand from catalog.json and the discovery rules' §6.3 (`docs/rules.md`). The Go module's
//! `test/integration/layout_test.go` checks its own `Layout` against the same file.
#![cfg(feature = "corpus")]

use std::collections::BTreeMap;

use serde::Deserialize;
use slicc_browsers::corpus::Layout;

#[derive(Deserialize)]
struct File {
    layouts: Vec<Pinned>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Pinned {
    description: String,
    os: String,
    home: String,
    env: BTreeMap<String, String>,
    config: String,
    seven_profiles: String,
    six_profiles: String,
    user_data_dirs: BTreeMap<String, Vec<String>>,
    tokens: BTreeMap<String, Option<String>>,
    expand: Vec<Expansion>,
}

#[derive(Deserialize)]
struct Expansion {
    text: String,
    expanded: String,
}

#[test]
fn layout_answers_match_tests_layout_json() {
    let file: File = serde_json::from_str(include_str!("../../test/integration/layout.json"))
        .expect("test/integration/layout.json parses");
    let cat = slicc_browsers::catalog();
    let mut failures = Vec::new();
    let mut checked = 0;
    for p in &file.layouts {
        let env = |k: &str| p.env.get(k).cloned();
        let l = Layout {
            os: &p.os,
            home: &p.home,
            env: &env,
            catalog: &cat,
        };
        let mut check = |what: String, got: String, want: &str| {
            checked += 1;
            if got != want {
                failures.push(format!(
                    "{} ({}): {what}: got {got:?}, want {want:?}",
                    p.description, p.os
                ));
            }
        };
        check("config".into(), l.config(), &p.config);
        check(
            "sevenProfiles".into(),
            l.seven_profiles(),
            &p.seven_profiles,
        );
        check("sixProfiles".into(), l.six_profiles(), &p.six_profiles);
        for (id, dirs) in &p.user_data_dirs {
            check(
                format!("userDataDirs({id})"),
                format!("{:?}", l.user_data_dirs(id)),
                &format!("{dirs:?}"),
            );
        }
        for (name, value) in &p.tokens {
            check(
                format!("token({name})"),
                format!("{:?}", l.token(name)),
                &format!("{value:?}"),
            );
        }
        // The methods and their tokens agree.
        check("{config}".into(), l.expand("{config}"), &p.config);
        check(
            "{sevenProfiles}".into(),
            l.expand("{sevenProfiles}"),
            &p.seven_profiles,
        );
        check(
            "{sixProfiles}".into(),
            l.expand("{sixProfiles}"),
            &p.six_profiles,
        );
        for e in &p.expand {
            check(
                format!("expand({:?})", e.text),
                l.expand(&e.text),
                &e.expanded,
            );
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} layout answers differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked > 80, "only {checked} answers checked");
}

#[test]
fn layout_json_covers_every_os_with_and_without_env() {
    let file: File =
        serde_json::from_str(include_str!("../../test/integration/layout.json")).unwrap();
    for os in ["darwin", "linux", "windows"] {
        let of_os: Vec<_> = file.layouts.iter().filter(|p| p.os == os).collect();
        assert!(
            of_os.iter().any(|p| p.env.is_empty()),
            "{os}: no layout without env"
        );
        assert!(
            of_os.iter().any(|p| !p.env.is_empty()),
            "{os}: no layout with env"
        );
    }
}

#[test]
fn an_unknown_os_has_no_tokens() {
    let cat = slicc_browsers::catalog();
    let env = |_: &str| None;
    let l = Layout {
        os: "plan9",
        home: "/usr/ada",
        env: &env,
        catalog: &cat,
    };
    assert_eq!(l.token("home"), None);
    assert_eq!(l.config(), "");
    assert_eq!(l.expand("{home}/x"), "{home}/x");
    assert!(l.user_data_dirs("chrome").is_empty());
}
