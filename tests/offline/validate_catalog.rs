//! `validate` on the shipped catalog, and on broken copies: every catalog rule has a copy that
//! breaks it, and each must be reported with its rule name and JSON path.
#![cfg(feature = "cli-full")]

use crate::common;

use std::process::Command;

use serde_json::{json, Value};
use slicc_browsers::validate::{validate_dir, Problem};

fn problems_after(edit: impl FnOnce(&mut Value)) -> Vec<Problem> {
    let dir = common::copy_of_crate_files();
    common::edit_json(dir.path(), "catalog.json", edit);
    validate_dir(dir.path())
}

fn assert_reports(problems: &[Problem], rule: &str, path: &str) {
    assert!(
        problems.iter().any(|p| p.rule == rule && p.path == path),
        "expected [{rule}] at {path}, got:\n{}",
        problems
            .iter()
            .map(|p| format!("  {p}\n"))
            .collect::<String>()
    );
}

#[test]
fn shipped_files_have_no_problems() {
    let problems = validate_dir(&common::crate_dir());
    assert!(
        problems.is_empty(),
        "{}",
        problems
            .iter()
            .map(|p| format!("{p}\n"))
            .collect::<String>()
    );
}

#[test]
fn duplicate_browser_id() {
    let p = problems_after(|c| c["browsers"][1]["id"] = "chrome".into());
    assert_reports(&p, "unique-ids", "/browsers/1/id");
}

#[test]
fn duplicate_browser_name() {
    let p = problems_after(|c| c["browsers"][2]["name"] = c["browsers"][0]["name"].clone());
    assert_reports(&p, "unique-names", "/browsers/2/name");
}

#[test]
fn duplicate_bundle_id_across_browsers_and_apps() {
    let p = problems_after(|c| {
        c["electron"]["macosApps"][0]["bundleId"] = c["browsers"][0]["macos"]["bundleId"].clone()
    });
    assert_reports(&p, "unique-bundle-ids", "/electron/macosApps/0/bundleId");
}

#[test]
fn duplicate_electron_app_name() {
    let p = problems_after(|c| {
        c["electron"]["macosApps"][1]["name"] = c["electron"]["macosApps"][0]["name"].clone()
    });
    assert_reports(&p, "unique-names", "/electron/macosApps/1/name");
}

#[test]
fn unknown_windows_root() {
    let p = problems_after(|c| c["browsers"][0]["windows"]["roots"][0] = "SYSTEMDRIVE".into());
    assert_reports(&p, "windows-roots", "/browsers/0/windows/roots/0");
}

#[test]
fn unknown_windows_data_root() {
    let p = problems_after(|c| c["browsers"][0]["windows"]["dataRoot"] = "TEMP".into());
    assert_reports(&p, "windows-roots", "/browsers/0/windows/dataRoot");
}

#[test]
fn chrome_id_not_a_browser() {
    let p = problems_after(|c| c["rank"]["chromeId"] = "netscape".into());
    assert_reports(&p, "chrome-id", "/rank/chromeId");
}

#[test]
fn tier_out_of_order() {
    let p = problems_after(|c| {
        c["rank"]["tiers"]["chrome"] = 4.into();
        c["rank"]["tiers"]["chromium"] = 3.into();
    });
    assert_reports(&p, "rising-tiers", "/rank/tiers/chromium");
}

#[test]
fn tier_outside_its_kind() {
    let p = problems_after(
        |c| c["rank"]["tiers"] = json!({"sevenOpen": 1, "endpoint": 3, "chrome": 2, "chromium": 4, "electron": 5, "six": 6}),
    );
    assert_reports(&p, "tier-range", "/rank/tiers/endpoint");
    assert_reports(&p, "tier-range", "/rank/tiers/chrome");
}

#[test]
fn bad_patterns() {
    for path in [
        "/discovery/chromeMajorPattern",
        "/seven/originHostPattern",
        "/profiles/sixProfilePattern",
        "/profiles/namePattern",
    ] {
        let p = problems_after(|c| *c.pointer_mut(path).unwrap() = "([unclosed".into());
        assert_reports(&p, "patterns", path);
        // The typed catalog refuses it too.
        assert!(p.iter().any(|p| p.rule == "typed"), "{path}");
    }
}

#[test]
fn unknown_placeholders() {
    let p = problems_after(|c| c["launch"]["chromiumArgs"][0] = "--user-data-dir={profle}".into());
    assert_reports(&p, "known-tokens", "/launch/chromiumArgs/0");
    let p = problems_after(|c| {
        c["launch"]["electron"]["portFlag"] = "--remote-debugging-port={prot}".into()
    });
    assert_reports(&p, "known-tokens", "/launch/electron/portFlag");
}

#[test]
fn schema_2_is_refused() {
    let p = problems_after(|c| c["schema"] = 2.into());
    assert!(p.iter().any(|p| p.rule == "typed"), "{p:?}");
}

#[test]
fn unparsable_catalog() {
    let dir = common::copy_of_crate_files();
    std::fs::write(dir.path().join("catalog.json"), "{\"schema\": 1,").unwrap();
    let p = validate_dir(dir.path());
    assert!(
        p.iter()
            .any(|p| p.rule == "json" && p.file == "catalog.json"),
        "{p:?}"
    );
}

/// The command line exits non-zero and names the problem.
#[test]
fn command_line_reports_and_fails() {
    let bin = env!("CARGO_BIN_EXE_slicc-browsers");
    let ok = Command::new(bin).arg("validate").output().unwrap();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stdout)
    );

    let dir = common::copy_of_crate_files();
    common::edit_json(dir.path(), "catalog.json", |c| {
        c["browsers"][1]["id"] = "chrome".into()
    });
    let bad = Command::new(bin)
        .arg("validate")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!bad.status.success());
    let out = String::from_utf8_lossy(&bad.stdout);
    assert!(
        out.contains("catalog.json: /browsers/1/id: [unique-ids]"),
        "{out}"
    );
}

/// One wrong type in the catalog is one problem, at the fault's own line and column: it used to
/// be 61, 58 of them one line repeated for every corpus case (`min-chromium`), and a typed-parse
/// error whose line was of the catalog re-serialised on one line.
#[test]
fn one_wrong_type_is_one_problem_at_its_place() {
    let dir = common::copy_of_crate_files();
    common::edit_json(dir.path(), "catalog.json", |c| {
        c["minChromiumMajor"] = "140".into()
    });
    let text = std::fs::read_to_string(dir.path().join("catalog.json")).unwrap();
    let line = text
        .lines()
        .position(|l| l.contains("\"minChromiumMajor\""))
        .unwrap()
        + 1;
    let column = text.lines().nth(line - 1).unwrap().find("\"140\"").unwrap() + 1;
    let o = Command::new(env!("CARGO_BIN_EXE_slicc-browsers"))
        .arg("validate")
        .arg(dir.path())
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "one problem and the count: {out}");
    assert!(
        lines[0].starts_with("catalog.json: /minChromiumMajor: [schema]")
            && lines[0].ends_with(&format!("(line {line}, column {column})")),
        "{out}"
    );
    assert!(lines[1].starts_with("1 problem(s)"), "{out}");
}
