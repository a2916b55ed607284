//! `validate` on `protected.json`: the shipped file passes, and a broken copy for each rule is
//! reported with the rule's name and the JSON path.
#![cfg(feature = "cli-full")]

use crate::common;

use serde_json::{json, Value};
use slicc_browsers::validate::{validate_dir, Problem};

fn problems_after(edit: impl FnOnce(&mut Value)) -> Vec<Problem> {
    let dir = common::copy_of_crate_files();
    common::edit_json(dir.path(), "protected.json", edit);
    validate_dir(dir.path())
}

fn assert_reports(problems: &[Problem], rule: &str, path: &str) {
    assert!(
        problems
            .iter()
            .any(|p| p.file == "protected.json" && p.rule == rule && p.path == path),
        "expected [{rule}] at {path}, got:\n{}",
        problems
            .iter()
            .map(|p| format!("  {p}\n"))
            .collect::<String>()
    );
}

#[test]
fn shipped_vectors_have_no_problems() {
    let problems: Vec<Problem> = validate_dir(&common::crate_dir())
        .into_iter()
        .filter(|p| p.file.starts_with("protected") || p.file.contains("protected.schema"))
        .collect();
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn a_wrong_answer_fails_vectors_pass() {
    for kind in ["urls", "targets", "cookieDomains", "storageKeys"] {
        for i in [0, 1] {
            let p = problems_after(|v| {
                let answer = &mut v[kind][i]["protected"];
                *answer = json!(!answer.as_bool().unwrap());
            });
            assert_reports(&p, "vectors-pass", &format!("/{kind}/{i}/protected"));
        }
    }
}

#[test]
fn a_reserved_port_is_reported() {
    // The catalog's probe ports are the reserved ones; they are never written in a test.
    let reserved = slicc_browsers::shared_catalog().discovery.probe_ports[0];
    let p = problems_after(|v| {
        v["urls"][3]["url"] = json!(format!("https://example.test:{reserved}/"))
    });
    assert_reports(&p, "reserved-ports", "/urls/3/url");
    let p = problems_after(|v| {
        v["storageKeys"][0]["key"] = json!(format!("http://127.0.0.1:0{}/", reserved + 7))
    });
    assert_reports(&p, "reserved-ports", "/storageKeys/0/key");
    // A tab inside the port: a WHATWG parser removes it, so the URL's port is reserved, and the
    // text reading agrees with the URL parser's.
    let split = format!("http://a.test:{}\t{}/", reserved / 100, reserved % 100);
    assert_eq!(url::Url::parse(&split).unwrap().port(), Some(reserved));
    assert_eq!(
        slicc_browsers::ports::port_after_colon(&split),
        Some(reserved)
    );
    let p = problems_after(|v| v["urls"][2]["url"] = json!(split));
    assert_reports(&p, "reserved-ports", "/urls/2/url");
}

#[test]
fn a_bad_origin_is_reported() {
    let p = problems_after(|v| v["origins"][1] = json!("localhost:5710"));
    assert_reports(&p, "origins", "/origins/1");
}

#[test]
fn the_schema_is_closed() {
    let p = problems_after(|v| v["urls"][0]["note"] = json!("x"));
    assert_reports(&p, "schema", "/urls/0");
    let p = problems_after(|v| v["targets"][0]["opener"] = Value::Null);
    assert_reports(&p, "schema", "/targets/0/opener");
    let p = problems_after(|v| v["schema"] = json!(2));
    assert_reports(&p, "schema", "/schema");
    let p = problems_after(|v| {
        v.as_object_mut().unwrap().remove("storageKeys");
    });
    assert_reports(&p, "schema", "");
    let p = problems_after(|v| v["origins"][0] = json!(""));
    assert_reports(&p, "schema", "/origins/0");
}

/// An `opener` outside the format's three names is a schema error, and the vector cannot be
/// run: `vectors-pass` reports it at the same member (it used to run as `unknown`, so a vector
/// expecting `true` passed).
#[test]
fn an_opener_outside_the_format_fails_vectors_pass() {
    let p = problems_after(|v| {
        let targets = v["targets"].as_array_mut().unwrap();
        let t = targets
            .iter_mut()
            .find(|t| t["url"] == "" && t["opener"] == "unknown" && t["protected"] == true)
            .expect("an inheriting target with an unknown opener");
        t["opener"] = json!("none");
    });
    let at = p
        .iter()
        .find(|p| p.rule == "vectors-pass")
        .map(|p| p.path.clone())
        .expect("vectors-pass reports the opener");
    assert!(
        at.starts_with("/targets/") && at.ends_with("/opener"),
        "{at}"
    );
    assert_reports(&p, "schema", &at);
}
