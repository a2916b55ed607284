//! `validate` on the shipped corpus, and on broken copies: each corpus rule has a copy that
//! breaks it, and the rule must be reported with the file it is in.
#![cfg(feature = "cli-full")]

use crate::common;

use std::path::Path;

use serde_json::{json, Value};
use slicc_browsers::validate::{validate_dir, Problem};

fn show(problems: &[Problem]) -> String {
    problems.iter().map(|p| format!("  {p}\n")).collect()
}

/// Validates a copy of the crate's files after `edit`.
fn after(edit: impl FnOnce(&Path)) -> Vec<Problem> {
    let dir = common::copy_of_crate_files();
    edit(dir.path());
    validate_dir(dir.path())
}

/// Edits `corpus/<case>/<file>` in a copy, rebuilds corpus.json (so only the broken rule
/// fires, not staleness), and validates.
fn after_case_edit(case: &str, file: &str, edit: impl FnOnce(&mut Value)) -> Vec<Problem> {
    after(|dir| {
        common::edit_json(dir, &format!("corpus/{case}/{file}"), edit);
        rebuild(dir);
    })
}

fn rebuild(dir: &Path) {
    let text = slicc_browsers::corpus::build(dir).expect("the copy builds");
    std::fs::write(dir.join("corpus.json"), text).unwrap();
}

fn assert_reports(problems: &[Problem], rule: &str, file: &str, path: &str) {
    assert!(
        problems
            .iter()
            .any(|p| p.rule == rule && p.file == file && p.path == path),
        "expected [{rule}] in {file} at {path}, got:\n{}",
        show(problems)
    );
}

fn assert_only(problems: &[Problem], rules: &[&str]) {
    let other: Vec<_> = problems
        .iter()
        .filter(|p| !rules.contains(&p.rule.as_str()))
        .cloned()
        .collect();
    assert!(
        other.is_empty(),
        "unexpected problems besides {rules:?}:\n{}",
        show(&other)
    );
}

#[test]
fn the_shipped_corpus_has_no_problems() {
    let problems = validate_dir(&common::crate_dir());
    assert!(problems.is_empty(), "{}", show(&problems));
}

#[test]
fn the_corpus_has_at_least_45_cases_on_every_os() {
    let corpus = slicc_browsers::corpus::corpus();
    assert!(corpus.cases.len() >= 45, "{} cases", corpus.cases.len());
    for os in ["darwin", "linux", "windows"] {
        let all = [
            "user-data-dirs",
            "seven-profiles",
            "flag",
            "process",
            "probe",
            "origins",
            "installed",
            "six",
        ];
        let runs = corpus.cases.iter().filter(|c| c.runs(os, &all)).count();
        assert!(runs >= 40, "only {runs} cases run on {os}");
        let own = corpus.cases.iter().filter(|c| c.input.os == [os]).count();
        assert!(own >= 2, "only {own} cases are {os}-only");
    }
}

#[test]
fn a_case_against_the_corpus_schema() {
    let problems = after_case_edit("flag-bare-port", "case.json", |c| c["os"] = json!([]));
    assert_reports(
        &problems,
        "schema",
        "corpus/flag-bare-port/case.json",
        "/os",
    );
    let problems = after_case_edit("six-env-dir", "case.json", |c| {
        c["processes"] = json!([{"pid": 3, "self": true, "command": "x"}]);
        c["needs"].as_array_mut().unwrap().push(json!("process"));
    });
    assert_reports(
        &problems,
        "schema",
        "corpus/six-env-dir/case.json",
        "/processes/0",
    );
    // The whole corpus.json is checked too.
    assert!(
        problems.iter().any(|p| p.rule == "schema"
            && p.file == "corpus.json"
            && p.path.ends_with("/case/processes/0")),
        "{}",
        show(&problems)
    );
}

#[test]
fn an_expected_document_against_output_schema_1() {
    let problems = after_case_edit("flag-bare-port", "expected.json", |e| {
        e["entries"][0]["id"] = json!("127.0.0.1:5101")
    });
    assert_reports(
        &problems,
        "schema",
        "corpus/flag-bare-port/expected.json",
        "/entries/0",
    );
}

#[test]
fn a_stale_corpus_json() {
    let problems = after(|dir| {
        common::edit_json(dir, "corpus/flag-bare-port/case.json", |c| {
            c["description"] = json!("changed")
        })
    });
    assert_reports(&problems, "corpus-stale", "corpus.json", "");
    assert_only(&problems, &["corpus-stale"]);
}

#[test]
fn a_case_dir_that_is_not_kebab_case() {
    let problems = after(|dir| {
        std::fs::rename(
            dir.join("corpus/flag-bare-port"),
            dir.join("corpus/Flag_Bare_Port"),
        )
        .unwrap();
        rebuild(dir);
    });
    assert_reports(
        &problems,
        "case-name",
        "corpus/Flag_Bare_Port/case.json",
        "",
    );
}

#[test]
fn unknown_tokens() {
    let problems = after_case_edit("flag-bare-port", "case.json", |c| {
        c["cdp"] = json!(["{Home}/x", "{userData:nope}/y"])
    });
    assert_reports(
        &problems,
        "known-tokens",
        "corpus/flag-bare-port/case.json",
        "/cdp/0",
    );
    assert_reports(
        &problems,
        "known-tokens",
        "corpus/flag-bare-port/case.json",
        "/cdp/1",
    );
    // Arc has no user-data dir on Linux or Windows, and the case runs everywhere.
    let problems = after_case_edit("user-data-dir-browsers", "expected.json", |e| {
        e["entries"][0]["endpoint"]["userDataDir"] = json!("{userData:arc}")
    });
    assert_reports(
        &problems,
        "known-tokens",
        "corpus/user-data-dir-browsers/expected.json",
        "/entries/0/endpoint/userDataDir",
    );
    assert_only(&problems, &["known-tokens"]);
}

#[test]
fn tokens_where_they_are_not_expanded() {
    let problems = after_case_edit("seven-tabs-extra-origins", "case.json", |c| {
        c["origins"][0] = json!("{home}/x")
    });
    assert_reports(
        &problems,
        "unexpanded-tokens",
        "corpus/seven-tabs-extra-origins/case.json",
        "/origins/0",
    );
}

#[test]
fn seven_open_without_tabs() {
    let problems = after_case_edit("flag-bare-port", "expected.json", |e| {
        e["entries"][0]["endpoint"]["sevenOpen"] = json!(true)
    });
    assert_reports(
        &problems,
        "seven-open",
        "corpus/flag-bare-port/expected.json",
        "/entries/0/endpoint/sevenOpen",
    );
}

#[test]
fn a_tier_that_does_not_fit_its_entry() {
    let problems = after_case_edit("flag-bare-port", "expected.json", |e| {
        e["entries"][0]["tier"] = json!(1)
    });
    assert_reports(
        &problems,
        "tiers",
        "corpus/flag-bare-port/expected.json",
        "/entries/0/tier",
    );
    let problems = after_case_edit("rank-installed-tiers", "expected.json", |e| {
        e["entries"][2]["tier"] = json!(5)
    });
    assert_reports(
        &problems,
        "tiers",
        "corpus/rank-installed-tiers/expected.json",
        "/entries/2/tier",
    );
}

#[test]
fn six_without_tier_6_or_without_the_need() {
    let problems = after_case_edit("six-default-profile", "expected.json", |e| {
        e["entries"][0]["tier"] = json!(2)
    });
    assert_reports(
        &problems,
        "six",
        "corpus/six-default-profile/expected.json",
        "/entries/0/tier",
    );
    let problems = after_case_edit("flag-bare-port", "expected.json", |e| {
        e["entries"][0]["tier"] = json!(6);
        e["entries"][0]["endpoint"]["six"] = json!(true);
    });
    assert_reports(
        &problems,
        "six",
        "corpus/flag-bare-port/expected.json",
        "/entries/0/endpoint/six",
    );
}

#[test]
fn entries_out_of_rank_order() {
    // Two endpoints of one tier swapped: the host order breaks.
    let problems = after_case_edit("rank-endpoints-by-host-then-port", "expected.json", |e| {
        e["entries"].as_array_mut().unwrap().swap(1, 2)
    });
    assert_reports(
        &problems,
        "tier-order",
        "corpus/rank-endpoints-by-host-then-port/expected.json",
        "/entries/2",
    );
    // An installed entry before an endpoint: the tier order breaks.
    let problems = after_case_edit("rank-installed-tiers", "expected.json", |e| {
        e["entries"].as_array_mut().unwrap().swap(0, 1)
    });
    assert_reports(
        &problems,
        "tier-order",
        "corpus/rank-installed-tiers/expected.json",
        "/entries/1",
    );
    // Tier 4 by catalog index: chromium before brave breaks it.
    let problems = after_case_edit("rank-installed-tiers", "expected.json", |e| {
        e["entries"].as_array_mut().unwrap().swap(2, 5)
    });
    assert_reports(
        &problems,
        "tier-order",
        "corpus/rank-installed-tiers/expected.json",
        "/entries/3",
    );
    assert_only(&problems, &["tier-order"]);
}

#[test]
fn entry_fields_that_do_not_copy_the_nested_object() {
    let problems = after_case_edit("flag-bare-port", "expected.json", |e| {
        e["entries"][0]["name"] = json!("Google Chrome");
        e["entries"][0].as_object_mut().unwrap().remove("version");
        e["entries"][0]["id"] = json!("cdp:localhost:5101");
    });
    for path in ["/entries/0/name", "/entries/0/version", "/entries/0/id"] {
        assert_reports(
            &problems,
            "entry-fields",
            "corpus/flag-bare-port/expected.json",
            path,
        );
    }
}

#[test]
fn auto_exactly_in_the_six_cases_and_right() {
    let problems = after_case_edit("six-env-dir", "case.json", |c| {
        c.as_object_mut().unwrap().remove("auto");
    });
    assert_reports(&problems, "auto", "corpus/six-env-dir/case.json", "");
    let problems = after_case_edit("flag-bare-port", "case.json", |c| c["auto"] = Value::Null);
    assert_reports(
        &problems,
        "auto",
        "corpus/flag-bare-port/case.json",
        "/auto",
    );
    let problems = after_case_edit("six-env-dir", "case.json", |c| c["auto"] = Value::Null);
    assert_reports(&problems, "auto", "corpus/six-env-dir/case.json", "/auto");
    let problems = after_case_edit("six-default-profile", "case.json", |c| {
        c["auto"] = json!("cdp:127.0.0.1:5600")
    });
    assert_reports(
        &problems,
        "auto",
        "corpus/six-default-profile/case.json",
        "/auto",
    );
    assert_only(&problems, &["auto"]);
}

#[test]
fn needs_that_miss_a_source() {
    let problems = after_case_edit("merge-source-rank", "case.json", |c| {
        c["needs"] = json!(["seven-profiles", "flag", "process"])
    });
    assert_reports(
        &problems,
        "needs",
        "corpus/merge-source-rank/case.json",
        "/probePorts",
    );
    assert_reports(
        &problems,
        "needs",
        "corpus/merge-source-rank/expected.json",
        "/entries/3",
    );
}

#[test]
fn the_minimum_is_the_catalogs() {
    let problems = after_case_edit("flag-bare-port", "expected.json", |e| {
        e["minChromium"] = json!(115)
    });
    assert_reports(
        &problems,
        "min-chromium",
        "corpus/flag-bare-port/expected.json",
        "/minChromium",
    );
}

#[test]
fn ports_9222_to_9229_nowhere() {
    // The banned ports are computed, so no test file spells one out (the rule this test checks).
    let banned = |n: u16| 9220 + n;
    let problems = after_case_edit("flag-bare-port", "case.json", |c| {
        c["cdp"] = json!([format!("localhost:{}", banned(3))])
    });
    assert_reports(
        &problems,
        "ports",
        "corpus/flag-bare-port/case.json",
        "/cdp/0",
    );
    let problems = after_case_edit("active-port-malformed", "case.json", |c| {
        c["files"]["{userData:chrome}/DevToolsActivePort"] =
            json!(format!("{}\n/devtools/browser/x\n", banned(9)));
    });
    assert_reports(
        &problems,
        "ports",
        "corpus/active-port-malformed/case.json",
        "/files/{userData:chrome}~1DevToolsActivePort",
    );
    let problems = after_case_edit("probe-ports", "case.json", |c| {
        c["probePorts"][0] = json!(banned(2))
    });
    assert_reports(
        &problems,
        "ports",
        "corpus/probe-ports/case.json",
        "/probePorts/0",
    );
    let problems = after_case_edit("flag-bare-port", "expected.json", |e| {
        e["entries"][0]["endpoint"]["webSocketDebuggerUrl"] =
            json!(format!("ws://127.0.0.1:{}/devtools/browser/x", banned(4)))
    });
    assert_reports(
        &problems,
        "ports",
        "corpus/flag-bare-port/expected.json",
        "/entries/0/endpoint/webSocketDebuggerUrl",
    );
    // A leading zero is the same port (the copy this rule had before missed it).
    let problems = after_case_edit("flag-bare-port", "case.json", |c| {
        c["cdp"] = json!([format!("http://127.0.0.1:0{}/", banned(5))])
    });
    assert_reports(
        &problems,
        "ports",
        "corpus/flag-bare-port/case.json",
        "/cdp/0",
    );
    // 19222 and 92220 are other ports.
    let problems = after_case_edit("flag-bare-port", "case.json", |c| {
        c["cdp"] = json!(["19222", "92220"])
    });
    assert!(
        !problems.iter().any(|p| p.rule == "ports"),
        "{}",
        show(&problems)
    );
}

#[test]
fn corpus_json_alone_is_checked_too() {
    let problems = after(|dir| {
        std::fs::remove_dir_all(dir.join("corpus")).unwrap();
        common::edit_json(dir, "corpus.json", |c| {
            c["cases"][0]["case"]["cdp"] = json!([(9220 + 5).to_string()])
        });
    });
    assert!(
        problems.iter().any(|p| p.rule == "ports"
            && p.file == "corpus.json"
            && p.path.starts_with("/cases/0/case")),
        "{}",
        show(&problems)
    );
}
