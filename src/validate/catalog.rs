//! The catalog rules a schema cannot say.

use std::collections::HashMap;

use regex::Regex;
use serde_json::Value;

use super::{pointer, Problem};

/// Checks `catalog` (the parsed contents of `file`) against the rules beyond its schema:
/// unique ids, bundle ids and names; Windows roots that exist; `rank.chromeId` naming a
/// browser; rising tiers in the ranges output schema 1 allows; patterns that compile; known
/// `{placeholders}`; and that the typed catalog parses it.
pub fn catalog_rules(file: &str, catalog: &Value) -> Vec<Problem> {
    let mut out = Vec::new();
    let mut problem = |path: String, rule: &str, message: String| {
        out.push(Problem::new(file, path, rule, message));
    };
    let browsers = catalog["browsers"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let apps = catalog["electron"]["macosApps"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[]);

    // Unique browser ids and names, and bundle ids unique across browsers and Electron apps.
    let mut ids: HashMap<&str, usize> = HashMap::new();
    let mut names: HashMap<&str, String> = HashMap::new();
    let mut bundles: HashMap<&str, String> = HashMap::new();
    for (i, b) in browsers.iter().enumerate() {
        if let Some(id) = b["id"].as_str() {
            if let Some(first) = ids.insert(id, i) {
                problem(
                    pointer(["browsers".to_string(), i.to_string(), "id".into()]),
                    "unique-ids",
                    format!("browser id {id:?} is also /browsers/{first}/id"),
                );
            }
        }
        if let Some(name) = b["name"].as_str() {
            let here = pointer(["browsers".to_string(), i.to_string(), "name".into()]);
            if let Some(first) = names.insert(name, here.clone()) {
                problem(
                    here,
                    "unique-names",
                    format!("name {name:?} is also {first}"),
                );
            }
        }
        if let Some(bundle) = b["macos"]["bundleId"].as_str() {
            let here = pointer([
                "browsers".to_string(),
                i.to_string(),
                "macos".into(),
                "bundleId".into(),
            ]);
            if let Some(first) = bundles.insert(bundle, here.clone()) {
                problem(
                    here,
                    "unique-bundle-ids",
                    format!("bundle id {bundle:?} is also {first}"),
                );
            }
        }
    }
    let mut app_names: HashMap<&str, String> = HashMap::new();
    for (i, app) in apps.iter().enumerate() {
        let base = ["electron".to_string(), "macosApps".into(), i.to_string()];
        if let Some(bundle) = app["bundleId"].as_str() {
            let here = pointer(base.iter().cloned().chain(["bundleId".to_string()]));
            if let Some(first) = bundles.insert(bundle, here.clone()) {
                problem(
                    here,
                    "unique-bundle-ids",
                    format!("bundle id {bundle:?} is also {first}"),
                );
            }
        }
        if let Some(name) = app["name"].as_str() {
            let here = pointer(base.iter().cloned().chain(["name".to_string()]));
            if let Some(first) = app_names.insert(name, here.clone()) {
                problem(
                    here,
                    "unique-names",
                    format!("Electron app name {name:?} is also {first}"),
                );
            }
        }
    }

    // Windows roots that exist.
    let roots = catalog["platforms"]["windows"]["roots"].as_object();
    let known_root = |name: &str| roots.is_some_and(|r| r.contains_key(name));
    for (i, b) in browsers.iter().enumerate() {
        let w = &b["windows"];
        let listed = w["roots"].as_array().map(Vec::as_slice).unwrap_or(&[]);
        for (j, root) in listed.iter().enumerate() {
            if let Some(root) = root.as_str() {
                if !known_root(root) {
                    problem(
                        pointer([
                            "browsers".to_string(),
                            i.to_string(),
                            "windows".into(),
                            "roots".into(),
                            j.to_string(),
                        ]),
                        "windows-roots",
                        format!("{root:?} is not a key of /platforms/windows/roots"),
                    );
                }
            }
        }
        if let Some(root) = w["dataRoot"].as_str() {
            if !known_root(root) {
                problem(
                    pointer([
                        "browsers".to_string(),
                        i.to_string(),
                        "windows".into(),
                        "dataRoot".into(),
                    ]),
                    "windows-roots",
                    format!("{root:?} is not a key of /platforms/windows/roots"),
                );
            }
        }
    }

    // rank.chromeId names a browser.
    if let Some(chrome) = catalog["rank"]["chromeId"].as_str() {
        if !ids.contains_key(chrome) {
            problem(
                "/rank/chromeId".into(),
                "chrome-id",
                format!("{chrome:?} is not a browser id"),
            );
        }
    }

    // Rising tiers, each in the range output schema 1 allows for its kind of entry.
    const ORDER: [(&str, &[u64]); 6] = [
        ("sevenOpen", &[1, 2, 6]),
        ("endpoint", &[1, 2, 6]),
        ("chrome", &[3, 4, 5]),
        ("chromium", &[3, 4, 5]),
        ("electron", &[3, 4, 5]),
        ("six", &[1, 2, 6]),
    ];
    let tiers = &catalog["rank"]["tiers"];
    let mut previous: Option<(&str, u64)> = None;
    for (name, allowed) in ORDER {
        let Some(tier) = tiers[name].as_u64() else {
            continue;
        };
        let path = format!("/rank/tiers/{name}");
        if !allowed.contains(&tier) {
            problem(
                path.clone(),
                "tier-range",
                format!("tier {tier} is outside {allowed:?}, the tiers output schema 1 allows for {name}"),
            );
        }
        if let Some((prev_name, prev)) = previous {
            if tier <= prev {
                problem(
                    path,
                    "rising-tiers",
                    format!("tier {tier} does not rise above {prev_name}'s {prev}"),
                );
            }
        }
        previous = Some((name, tier));
    }

    // Patterns that compile (six's as it is used, case-insensitively), by the engine the
    // catalog compiles them with.
    for (path, prefix) in [
        ("/discovery/chromeMajorPattern", ""),
        ("/seven/originHostPattern", ""),
        ("/profiles/sixProfilePattern", "(?i)"),
        ("/profiles/namePattern", ""),
    ] {
        if let Some(pattern) = catalog.pointer(path).and_then(Value::as_str) {
            if let Err(e) = regex_lite::Regex::new(&format!("{prefix}{pattern}")) {
                problem(path.into(), "patterns", format!("does not compile: {e}"));
            }
        }
    }

    // Known placeholders: {profile} in the Chromium arguments, {port} in the two port strings.
    let placeholder = Regex::new(r"\{[^{}]*\}").expect("a fixed pattern");
    let mut check_tokens = |path: String, text: &str, known: &str| {
        for m in placeholder.find_iter(text) {
            if m.as_str() != known {
                problem(
                    path.clone(),
                    "known-tokens",
                    format!(
                        "unknown placeholder {} (only {known} is known here)",
                        m.as_str()
                    ),
                );
            }
        }
    };
    if let Some(args) = catalog["launch"]["chromiumArgs"].as_array() {
        for (i, arg) in args.iter().enumerate() {
            if let Some(arg) = arg.as_str() {
                check_tokens(format!("/launch/chromiumArgs/{i}"), arg, "{profile}");
            }
        }
    }
    for path in ["/launch/electron/portFlag", "/profiles/six/portSuffix"] {
        if let Some(text) = catalog.pointer(path).and_then(Value::as_str) {
            check_tokens(path.into(), text, "{port}");
        }
    }

    // The typed catalog reads it, and compiles its patterns.
    let typed = crate::Catalog::parse(&catalog.to_string()).and_then(|c| c.check_patterns());
    if let Err(e) = typed {
        out.push(Problem::new(file, "", "typed", e.to_string()));
    }
    out
}
