//! The catalog rules a schema cannot say.

use std::collections::HashMap;

use regex::Regex;
use serde_json::Value;

use super::{pointer, Problem};

/// The rule and the word for bundle ids, unique across browsers and Electron apps together.
const BUNDLE_IDS: (&str, &str) = ("unique-bundle-ids", "bundle id");

/// Checks `catalog` (the parsed contents of `file`) against the rules beyond its schema:
/// unique ids, bundle ids and names; Windows roots that exist; `rank.chromeId` naming a
/// browser; rising tiers in the ranges output schema 1 allows; patterns that compile; known
/// `{placeholders}`; and that the typed catalog parses it.
pub fn catalog_rules(file: &str, catalog: &Value) -> Vec<Problem> {
    let mut out = static_rules(file, catalog);
    out.extend(typed_rules(file, &catalog.to_string(), true));
    out
}

/// [`catalog_rules`] but the typed catalog's.
pub(super) fn static_rules(file: &str, catalog: &Value) -> Vec<Problem> {
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
    let mut ids = HashMap::new();
    let mut names = HashMap::new();
    let mut bundles = HashMap::new();
    for (i, b) in browsers.iter().enumerate() {
        let here = |keys: &[&str]| {
            pointer(
                ["browsers", &i.to_string()]
                    .into_iter()
                    .chain(keys.iter().copied()),
            )
        };
        if let Some(id) = b["id"].as_str() {
            let at = here(&["id"]);
            unique(&mut ids, id, at, "unique-ids", "browser id", &mut problem);
        }
        if let Some(name) = b["name"].as_str() {
            let at = here(&["name"]);
            unique(&mut names, name, at, "unique-names", "name", &mut problem);
        }
        if let Some(bundle) = b["macos"]["bundleId"].as_str() {
            let at = here(&["macos", "bundleId"]);
            let (rule, what) = BUNDLE_IDS;
            unique(&mut bundles, bundle, at, rule, what, &mut problem);
        }
    }
    let mut app_names = HashMap::new();
    for (i, app) in apps.iter().enumerate() {
        let here = |key: &str| pointer(["electron", "macosApps", &i.to_string(), key]);
        if let Some(bundle) = app["bundleId"].as_str() {
            let at = here("bundleId");
            let (rule, what) = BUNDLE_IDS;
            unique(&mut bundles, bundle, at, rule, what, &mut problem);
        }
        if let Some(name) = app["name"].as_str() {
            let at = here("name");
            let what = "Electron app name";
            unique(&mut app_names, name, at, "unique-names", what, &mut problem);
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

    out
}

/// That the typed catalog reads `text` (the contents of `file`) and compiles its patterns.
/// With `shape_errors` false, a text whose shape the types do not read is not reported (the
/// schema's problems already name that fault, with its place); its patterns are then not
/// checked either.
pub(super) fn typed_rules(file: &str, text: &str, shape_errors: bool) -> Vec<Problem> {
    match crate::catalog::Catalog::parse(text) {
        Ok(typed) => match typed.check_patterns() {
            Ok(()) => Vec::new(),
            Err(e) => vec![Problem::new(file, "", "typed", e.to_string())],
        },
        Err(crate::error::Error::Json { .. }) if !shape_errors => Vec::new(),
        Err(e) => vec![Problem::new(file, "", "typed", e.to_string())],
    }
}

/// Records `value`, found at `here`, in `seen`; when an earlier place already holds it, a
/// problem at `here` breaking `rule`: "`what` `value` is also `<the earlier place>`". The one
/// uniqueness check of every unique key of the catalog.
fn unique<'a>(
    seen: &mut HashMap<&'a str, String>,
    value: &'a str,
    here: String,
    rule: &str,
    what: &str,
    problem: &mut impl FnMut(String, &str, String),
) {
    if let Some(first) = seen.insert(value, here.clone()) {
        problem(here, rule, format!("{what} {value:?} is also {first}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_key_is_reported_with_its_first_place() {
        let catalog = serde_json::json!({
            "browsers": [
                {"id": "a", "name": "A", "macos": {"bundleId": "x"}},
                {"id": "a", "name": "A"},
            ],
            "electron": {"macosApps": [{"bundleId": "x", "name": "E"}, {"name": "E"}]},
        });
        let unique: Vec<String> = catalog_rules("catalog.json", &catalog)
            .into_iter()
            .filter(|p| p.rule.starts_with("unique-"))
            .map(|p| format!("{} [{}] {}", p.path, p.rule, p.message))
            .collect();
        assert_eq!(
            unique,
            [
                r#"/browsers/1/id [unique-ids] browser id "a" is also /browsers/0/id"#,
                r#"/browsers/1/name [unique-names] name "A" is also /browsers/0/name"#,
                r#"/electron/macosApps/0/bundleId [unique-bundle-ids] bundle id "x" is also /browsers/0/macos/bundleId"#,
                r#"/electron/macosApps/1/name [unique-names] Electron app name "E" is also /electron/macosApps/0/name"#,
            ]
        );
    }
}
