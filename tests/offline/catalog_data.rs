//! The shipped data and its schemas: the catalog validates, the schemas reject what the format
//! notes forbid, and every browser has a recorded source.
#![cfg(feature = "cli-full")]

use crate::common;

use common::crate_dir;
use serde_json::{json, Value};
use slicc_browsers::validate::{schema_problems, validate_dir, Problem};

fn parse(what: &str, text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{what} is not JSON: {e}"))
}

fn catalog() -> Value {
    parse("catalog.json", slicc_browsers::CATALOG)
}

fn catalog_problems(value: &Value) -> Vec<Problem> {
    let schema = parse("catalog.schema.json", slicc_browsers::CATALOG_SCHEMA);
    schema_problems("catalog.json", "schema/catalog.schema.json", &schema, value)
}

fn browsers_problems(value: &Value) -> Vec<Problem> {
    let schema = parse("browsers.schema.json", slicc_browsers::BROWSERS_SCHEMA);
    schema_problems(
        "browsers.json",
        "schema/browsers.schema.json",
        &schema,
        value,
    )
}

fn listed(problems: &[Problem]) -> String {
    problems.iter().map(|p| format!("\n  {p}")).collect()
}

/// The index of a browser id in the shipped catalog.
fn browser_index(cat: &Value, id: &str) -> usize {
    cat["browsers"]
        .as_array()
        .and_then(|b| b.iter().position(|b| b["id"] == id))
        .unwrap_or_else(|| panic!("the catalog has no browser {id:?}"))
}

/// The value at a JSON pointer, which the test expects to exist.
fn at<'a>(value: &'a mut Value, pointer: &str) -> &'a mut Value {
    value
        .pointer_mut(pointer)
        .unwrap_or_else(|| panic!("the fixture has nothing at {pointer}"))
}

fn remove(value: &mut Value, pointer: &str) {
    let (parent, key) = pointer.rsplit_once('/').expect("a pointer with a parent");
    let removed = at(value, parent)
        .as_object_mut()
        .and_then(|o| o.remove(key));
    assert!(removed.is_some(), "the fixture has no member {pointer}");
}

#[test]
fn shipped_files_have_no_problems() {
    let problems = validate_dir(&crate_dir());
    assert!(problems.is_empty(), "validate found:{}", listed(&problems));
}

#[test]
fn shipped_catalog_matches_its_schema() {
    let problems = catalog_problems(&catalog());
    assert!(
        problems.is_empty(),
        "catalog.json against its schema:{}",
        listed(&problems)
    );
}

/// Each broken copy: what it breaks, the edit, and the JSON pointer a problem must name.
type Breakage = (&'static str, fn(&mut Value), &'static str);

#[test]
fn catalog_schema_rejects_broken_copies() {
    let cases: &[Breakage] = &[
        ("schema 2", |c| c["schema"] = json!(2), "/schema"),
        ("no browsers", |c| c["browsers"] = json!([]), "/browsers"),
        (
            "an env-only location",
            |c| c["platforms"]["macos"]["config"] = json!({ "env": "HOME" }),
            "/platforms/macos/config",
        ),
        (
            "a location with both home and absolute",
            |c| {
                c["platforms"]["windows"]["roots"]["LOCALAPPDATA"]["absolute"] =
                    json!("C:\\Users\\x\\AppData\\Local")
            },
            "/platforms/windows/roots/LOCALAPPDATA",
        ),
        (
            "an empty location",
            |c| c["profiles"]["six"]["roots"]["linux"]["base"] = json!({}),
            "/profiles/six/roots/linux/base",
        ),
        (
            "empty segments",
            |c| c["browsers"][0]["macos"]["dataDir"] = json!([]),
            "/browsers/0/macos/dataDir",
        ),
        (
            "an empty segment",
            |c| c["profiles"]["root"] = json!(["slicc", ""]),
            "/profiles/root/1",
        ),
        (
            "a segment with a slash",
            |c| c["profiles"]["root"] = json!(["slicc/seven-profiles"]),
            "/profiles/root/0",
        ),
        (
            "a segment with a backslash",
            |c| c["browsers"][0]["windows"]["dataDir"] = json!(["Google\\Chrome", "User Data"]),
            "/browsers/0/windows/dataDir/0",
        ),
        (
            "an app not ending in .app",
            |c| c["browsers"][0]["macos"]["app"] = json!("Google Chrome"),
            "/browsers/0/macos/app",
        ),
        (
            "an extra member in a browser's macos",
            |c| c["browsers"][0]["macos"]["icon"] = json!("chrome.icns"),
            "/browsers/0/macos",
        ),
        (
            "an extra top-level member",
            |c| c["comment"] = json!("not allowed"),
            "",
        ),
        (
            "launch settings in the electron object",
            |c| c["electron"]["portFlag"] = json!("--remote-debugging-port={port}"),
            "/electron",
        ),
        (
            "an extra member in a pref",
            |c| c["seven"]["prefs"][0]["note"] = json!("x"),
            "/seven/prefs/0",
        ),
        (
            "roots without executables",
            |c| remove(c, "/browsers/0/windows/executables"),
            "/browsers/0/windows",
        ),
        (
            "executables without roots",
            |c| remove(c, "/browsers/0/windows/roots"),
            "/browsers/0/windows",
        ),
        (
            "empty roots",
            |c| c["browsers"][0]["windows"]["roots"] = json!([]),
            "/browsers/0/windows/roots",
        ),
        (
            "windows without a dataDir",
            |c| remove(c, "/browsers/0/windows/dataDir"),
            "/browsers/0/windows",
        ),
        (
            "linux without a configDir",
            |c| remove(c, "/browsers/0/linux/configDir"),
            "/browsers/0/linux",
        ),
        (
            "snapDataDir without snap",
            |c| {
                let i = browser_index(c, "chromium");
                remove(c, &format!("/browsers/{i}/linux/snap"));
            },
            "/browsers",
        ),
        (
            "a browser without macos",
            |c| remove(c, "/browsers/0/macos"),
            "/browsers/0",
        ),
        (
            "an unknown channel",
            |c| c["browsers"][0]["channel"] = json!("weekly"),
            "/browsers/0/channel",
        ),
        (
            "an engine other than chromium",
            |c| c["browsers"][0]["engine"] = json!("gecko"),
            "/browsers/0/engine",
        ),
        (
            "an id with a double hyphen",
            |c| c["browsers"][0]["id"] = json!("chrome--x"),
            "/browsers/0/id",
        ),
        (
            "an id in upper case",
            |c| c["browsers"][0]["id"] = json!("Chrome"),
            "/browsers/0/id",
        ),
        (
            "an empty name",
            |c| c["browsers"][0]["name"] = json!(""),
            "/browsers/0/name",
        ),
        (
            "another Electron id prefix",
            |c| c["electron"]["idPrefix"] = json!("app:"),
            "/electron/idPrefix",
        ),
        (
            "an Electron app without a name",
            |c| remove(c, "/electron/macosApps/0/name"),
            "/electron/macosApps/0",
        ),
        (
            "a tier of 7",
            |c| c["rank"]["tiers"]["six"] = json!(7),
            "/rank/tiers/six",
        ),
        (
            "a missing tier",
            |c| remove(c, "/rank/tiers/electron"),
            "/rank/tiers",
        ),
        (
            "a negative source rank",
            |c| c["discovery"]["sourceRank"]["probe"] = json!(-1),
            "/discovery/sourceRank/probe",
        ),
        (
            "an unknown source rank",
            |c| c["discovery"]["sourceRank"]["guess"] = json!(4),
            "/discovery/sourceRank",
        ),
        (
            "a port of 0",
            |c| c["discovery"]["probePorts"][0] = json!(0),
            "/discovery/probePorts/0",
        ),
        (
            "an empty product name",
            |c| c["discovery"]["names"]["products"]["Edg"] = json!(""),
            "/discovery/names/products/Edg",
        ),
        (
            "a two-character value quote",
            |c| c["discovery"]["process"]["valueQuotes"][0] = json!("''"),
            "/discovery/process/valueQuotes/0",
        ),
        (
            "a process without wrappers",
            |c| remove(c, "/discovery/process/wrappers"),
            "/discovery/process",
        ),
        (
            "a port flag without dashes",
            |c| c["discovery"]["process"]["portFlag"] = json!("remote-debugging-port"),
            "/discovery/process/portFlag",
        ),
        (
            "an origin scheme of http",
            |c| c["seven"]["originScheme"] = json!("http"),
            "/seven/originScheme",
        ),
        (
            "a switch without dashes",
            |c| c["seven"]["switches"][0] = json!("disable-renderer-backgrounding"),
            "/seven/switches/0",
        ),
        (
            "a null pref value",
            |c| c["seven"]["prefs"][0]["value"] = Value::Null,
            "/seven/prefs/0/value",
        ),
        (
            "an object pref value",
            |c| c["seven"]["prefs"][0]["value"] = json!({ "enabled": false }),
            "/seven/prefs/0/value",
        ),
        (
            "an unknown pref form",
            |c| c["seven"]["prefs"][0]["form"] = json!("chrome-999"),
            "/seven/prefs/0/form",
        ),
        (
            "a discard exception without a form",
            |c| remove(c, "/seven/discardExceptions/0/form"),
            "/seven/discardExceptions/0",
        ),
        (
            "an unknown discard exception type",
            |c| c["seven"]["discardExceptions"][0]["type"] = json!("map"),
            "/seven/discardExceptions/0/type",
        ),
        (
            "no protected domains",
            |c| c["protectedOrigins"]["domains"] = json!([]),
            "/protectedOrigins/domains",
        ),
        (
            "an upper-case protected domain",
            |c| c["protectedOrigins"]["domains"][0] = json!("Sliccy.ai"),
            "/protectedOrigins/domains/0",
        ),
        (
            "a single-label protected host",
            |c| c["protectedOrigins"]["hosts"] = json!(["localhost"]),
            "/protectedOrigins/hosts/0",
        ),
        (
            "a repeated protected domain",
            |c| c["protectedOrigins"]["domains"] = json!(["sliccy.ai", "sliccy.ai"]),
            "/protectedOrigins/domains",
        ),
        (
            "no protected schemes",
            |c| c["protectedOrigins"]["schemes"] = json!([]),
            "/protectedOrigins/schemes",
        ),
        (
            "an upper-case scheme",
            |c| c["protectedOrigins"]["innerSchemes"][0] = json!("Blob"),
            "/protectedOrigins/innerSchemes/0",
        ),
        (
            "an inheriting URL that is not about:",
            |c| c["protectedOrigins"]["inheriting"][0] = json!("about:Blank"),
            "/protectedOrigins/inheriting/0",
        ),
        (
            "a six root keyed darwin",
            |c| {
                let macos = c["profiles"]["six"]["roots"]["macos"].take();
                c["profiles"]["six"]["roots"]["darwin"] = macos;
                remove(c, "/profiles/six/roots/macos");
            },
            "/profiles/six/roots",
        ),
        (
            "a port suffix without {port}",
            |c| c["profiles"]["six"]["portSuffix"] = json!("-port"),
            "/profiles/six/portSuffix",
        ),
        (
            "a disable-features flag not ending in =",
            |c| c["launch"]["disableFeaturesFlag"] = json!("--disable-features"),
            "/launch/disableFeaturesFlag",
        ),
        (
            "an Electron port flag without {port}",
            |c| c["launch"]["electron"]["portFlag"] = json!("--remote-debugging-port"),
            "/launch/electron/portFlag",
        ),
        (
            "a headless switch without dashes",
            |c| c["launch"]["headless"] = json!("headless"),
            "/launch/headless",
        ),
        (
            "an unknown hive",
            |c| c["platforms"]["windows"]["registry"]["hives"][0] = json!("HKCR"),
            "/platforms/windows/registry/hives/0",
        ),
        (
            "a platform keyed darwin",
            |c| {
                let macos = c["platforms"]["macos"].take();
                c["platforms"]["darwin"] = macos;
                remove(c, "/platforms/macos");
            },
            "/platforms",
        ),
    ];
    assert!(
        catalog_problems(&catalog()).is_empty(),
        "the unbroken catalog must pass first"
    );
    let mut missed = Vec::new();
    for (what, edit, pointer) in cases {
        let mut broken = catalog();
        edit(&mut broken);
        let problems = catalog_problems(&broken);
        if !problems.iter().any(|p| p.path.starts_with(pointer)) {
            missed.push(format!(
                "{what}: expected a problem at {pointer}, got:{}",
                listed(&problems)
            ));
        }
    }
    assert!(
        missed.is_empty(),
        "broken copies the schema let through:\n{}",
        missed.join("\n")
    );
}

#[test]
fn catalog_schema_marks_the_four_patterns_as_regex() {
    let schema = parse("catalog.schema.json", slicc_browsers::CATALOG_SCHEMA);
    assert_eq!(schema["$defs"]["regex"]["format"], "regex");
    for pointer in [
        "/properties/discovery/properties/chromeMajorPattern",
        "/properties/seven/properties/originHostPattern",
        "/properties/profiles/properties/sixProfilePattern",
        "/properties/profiles/properties/namePattern",
    ] {
        let field = schema
            .pointer(pointer)
            .unwrap_or_else(|| panic!("the schema has no {pointer}"));
        assert_eq!(
            field["$ref"], "#/$defs/regex",
            "{pointer} is not a regex field"
        );
    }
}

/// A valid output schema 1 document: every entry form, no port from 9222 to 9229.
fn browsers_document() -> Value {
    json!({
        "schema": 1,
        "minChromium": 116,
        "entries": [
            {
                "id": "cdp:127.0.0.1:9333",
                "kind": "endpoint",
                "tier": 1,
                "name": "Chrome",
                "version": "154.0.7000.1",
                "endpoint": {
                    "cdp": "http://127.0.0.1:9333",
                    "webSocketDebuggerUrl": "ws://127.0.0.1:9333/devtools/browser/abc",
                    "name": "Chrome",
                    "version": "154.0.7000.1",
                    "product": "Chrome/154.0.7000.1",
                    "userAgent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/154.0.0.0 Safari/537.36",
                    "source": "process",
                    "userDataDir": "/home/x/.config/slicc/seven-profiles/work",
                    "sevenOpen": true,
                    "sevenTabs": [{ "id": "T1", "url": "https://team.sliccy.ai/", "title": "seven" }]
                }
            },
            {
                "id": "cdp:127.0.0.1:9334",
                "kind": "endpoint",
                "tier": 2,
                "name": "Google Chrome",
                "endpoint": {
                    "cdp": "http://127.0.0.1:9334",
                    "webSocketDebuggerUrl": "ws://127.0.0.1:9334/devtools/browser/def",
                    "name": "Google Chrome",
                    "source": "devtools-active-port",
                    "browser": "chrome",
                    "userDataDir": "/home/x/.config/google-chrome",
                    "wsOnly": true,
                    "sevenOpen": false,
                    "sevenTabs": []
                }
            },
            {
                "id": "chrome",
                "kind": "installed",
                "tier": 3,
                "name": "Google Chrome",
                "version": "154.0.7000.1",
                "installed": {
                    "id": "chrome",
                    "name": "Google Chrome",
                    "engine": "chromium",
                    "path": "/opt/google/chrome",
                    "executable": "/opt/google/chrome/chrome",
                    "debugSupport": "supported",
                    "channel": "stable",
                    "version": "154.0.7000.1",
                    "package": "google-chrome-stable"
                }
            },
            {
                "id": "chromium",
                "kind": "installed",
                "tier": 4,
                "name": "Chromium",
                "installed": {
                    "id": "chromium",
                    "name": "Chromium",
                    "engine": "chromium",
                    "path": "/snap/chromium/current",
                    "executable": "/snap/bin/chromium",
                    "debugSupport": "supported",
                    "via": "snap"
                }
            },
            {
                "id": "electron:slack",
                "kind": "installed",
                "tier": 5,
                "name": "Slack",
                "installed": {
                    "id": "electron:slack",
                    "name": "Slack",
                    "engine": "electron",
                    "path": "/Users/x/Applications/Slack Debug.app",
                    "executable": "/Users/x/Applications/Slack Debug.app/Contents/MacOS/Slack",
                    "debugSupport": "disabled",
                    "bundleId": "com.tinyspeck.slackmacgap",
                    "debugBuild": true
                }
            },
            {
                "id": "cdp:127.0.0.1:9335",
                "kind": "endpoint",
                "tier": 6,
                "name": "Chrome",
                "endpoint": {
                    "cdp": "http://127.0.0.1:9335",
                    "webSocketDebuggerUrl": "ws://127.0.0.1:9335/devtools/browser/ghi",
                    "name": "Chrome",
                    "source": "devtools-active-port",
                    "userDataDir": "/home/x/.local/state/slicc/profiles/browser-coding-agent-chrome",
                    "six": true,
                    "sevenOpen": true,
                    "sevenTabs": [{ "id": "T2", "url": "https://team.sliccy.ai/", "title": "seven" }]
                }
            }
        ]
    })
}

#[test]
fn browsers_schema_accepts_a_valid_document() {
    let problems = browsers_problems(&browsers_document());
    assert!(
        problems.is_empty(),
        "a valid document was rejected:{}",
        listed(&problems)
    );
    // Objects are open: a later minor release may add members anywhere.
    let mut extended = browsers_document();
    extended["generatedBy"] = json!("a later release");
    extended["entries"][0]["score"] = json!(1);
    extended["entries"][0]["endpoint"]["pid"] = json!(4242);
    extended["entries"][2]["installed"]["arch"] = json!("arm64");
    let problems = browsers_problems(&extended);
    assert!(
        problems.is_empty(),
        "added members were rejected:{}",
        listed(&problems)
    );
}

#[test]
fn browsers_schema_rejects_broken_documents() {
    let cases: &[Breakage] = &[
        ("schema 2", |d| d["schema"] = json!(2), "/schema"),
        ("no entries", |d| remove(d, "/entries"), ""),
        (
            "an endpoint id without cdp:",
            |d| d["entries"][0]["id"] = json!("127.0.0.1:9333"),
            "/entries/0",
        ),
        (
            "an installed id with cdp:",
            |d| d["entries"][2]["id"] = json!("cdp:chrome"),
            "/entries/2",
        ),
        (
            "tier 6 without six",
            |d| remove(d, "/entries/5/endpoint/six"),
            "/entries/5",
        ),
        (
            "six at tier 2",
            |d| d["entries"][1]["endpoint"]["six"] = json!(true),
            "/entries/1",
        ),
        (
            "an endpoint at tier 3",
            |d| d["entries"][1]["tier"] = json!(3),
            "/entries/1",
        ),
        (
            "an installed entry at tier 2",
            |d| d["entries"][2]["tier"] = json!(2),
            "/entries/2",
        ),
        (
            "an installed entry at tier 6",
            |d| d["entries"][4]["tier"] = json!(6),
            "/entries/4",
        ),
        (
            "a tier of 0",
            |d| d["entries"][0]["tier"] = json!(0),
            "/entries/0",
        ),
        (
            "an endpoint entry with an installed object",
            |d| {
                let installed = d["entries"][2]["installed"].clone();
                d["entries"][0]["installed"] = installed;
            },
            "/entries/0",
        ),
        (
            "an installed entry without its object",
            |d| remove(d, "/entries/3/installed"),
            "/entries/3",
        ),
        (
            "kind installed on an endpoint",
            |d| d["entries"][1]["kind"] = json!("installed"),
            "/entries/1",
        ),
        (
            "wsOnly false",
            |d| d["entries"][1]["endpoint"]["wsOnly"] = json!(false),
            "/entries/1",
        ),
        (
            "six false",
            |d| d["entries"][5]["endpoint"]["six"] = json!(false),
            "/entries/5",
        ),
        (
            "a cdp with a path",
            |d| d["entries"][0]["endpoint"]["cdp"] = json!("http://127.0.0.1:9333/json/version"),
            "/entries/0",
        ),
        (
            "a ws cdp",
            |d| d["entries"][0]["endpoint"]["cdp"] = json!("ws://127.0.0.1:9333"),
            "/entries/0",
        ),
        (
            "an unknown source",
            |d| d["entries"][0]["endpoint"]["source"] = json!("guess"),
            "/entries/0",
        ),
        (
            "an endpoint without sevenTabs",
            |d| remove(d, "/entries/1/endpoint/sevenTabs"),
            "/entries/1",
        ),
        (
            "a tab without a title",
            |d| remove(d, "/entries/0/endpoint/sevenTabs/0/title"),
            "/entries/0",
        ),
        (
            "an empty version",
            |d| d["entries"][0]["version"] = json!(""),
            "/entries/0",
        ),
        (
            "an unknown engine",
            |d| d["entries"][2]["installed"]["engine"] = json!("webkit"),
            "/entries/2",
        ),
        (
            "an unknown debug support",
            |d| d["entries"][4]["installed"]["debugSupport"] = json!("maybe"),
            "/entries/4",
        ),
        (
            "debugBuild false",
            |d| d["entries"][4]["installed"]["debugBuild"] = json!(false),
            "/entries/4",
        ),
        (
            "an unknown via",
            |d| d["entries"][3]["installed"]["via"] = json!("appimage"),
            "/entries/3",
        ),
        (
            "an installed record without an executable",
            |d| remove(d, "/entries/3/installed/executable"),
            "/entries/3",
        ),
    ];
    let mut missed = Vec::new();
    for (what, edit, pointer) in cases {
        let mut broken = browsers_document();
        edit(&mut broken);
        let problems = browsers_problems(&broken);
        if !problems.iter().any(|p| p.path.starts_with(pointer)) {
            missed.push(format!(
                "{what}: expected a problem at {pointer}, got:{}",
                listed(&problems)
            ));
        }
    }
    assert!(
        missed.is_empty(),
        "broken documents the schema let through:\n{}",
        missed.join("\n")
    );
}

#[test]
fn sources_document_names_every_browser() {
    let path = crate_dir().join("docs/catalog-sources.md");
    let doc = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let cat = catalog();
    let missing: Vec<&str> = cat["browsers"]
        .as_array()
        .expect("browsers is an array")
        .iter()
        .filter_map(|b| b["id"].as_str())
        .filter(|id| !doc.contains(&format!("`{id}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/catalog-sources.md names no source for {missing:?}"
    );
}
