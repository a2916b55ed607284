//! `guard-vectors.json` validation: the shipped file has no problems, and each rule refuses a
//! broken copy with the rule's name and the vector's id.
#![cfg(feature = "cli")]

use std::path::Path;

use serde_json::{json, Value};
use slicc_browsers::validate::{validate_dir, Problem, GUARD_RULES};

const FILE: &str = "guard-vectors.json";

fn shipped() -> Value {
    serde_json::from_str(slicc_browsers::GUARD_VECTORS).unwrap()
}

/// Copies the crate's catalog, schemas and vectors into a temp dir, with `vectors` as the vector file.
fn validate_copy(vectors: &Value) -> Vec<Problem> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("schema")).unwrap();
    for entry in std::fs::read_dir(root.join("schema")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(
            entry.path(),
            dir.path().join("schema").join(entry.file_name()),
        )
        .unwrap();
    }
    std::fs::copy(root.join("catalog.json"), dir.path().join("catalog.json")).unwrap();
    std::fs::write(
        dir.path().join(FILE),
        serde_json::to_string_pretty(vectors).unwrap(),
    )
    .unwrap();
    validate_dir(dir.path())
}

fn vector<'a>(set: &'a mut Value, id: &str) -> &'a mut Value {
    set["vectors"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|v| v["id"] == id)
        .unwrap_or_else(|| panic!("no vector {id}"))
}

fn push(list: &mut Value, item: Value) {
    list.as_array_mut().unwrap().push(item);
}

type Edit = fn(&mut Value);

/// Each rule, the vector a copy breaks it in, and the edit. `None`: a top-level rule.
const CASES: &[(&str, Option<&str>, Edit)] = &[
    ("schema", Some("C1.replace"), |s| {
        vector(s, "C1.replace")["targets"] = json!(["ordinary"])
    }),
    ("types", Some("C1.form"), |s| {
        vector(s, "C1.form")["expected"]["beaconed"] = json!("maybe")
    }),
    ("unique-ids", Some("C1.post"), |s| {
        vector(s, "C1.form")["id"] = json!("C1.post")
    }),
    ("control-and-expected", Some("C1.post"), |s| {
        vector(s, "C1.post")["control"]
            .as_object_mut()
            .unwrap()
            .remove("expected");
    }),
    ("control-and-expected", Some("C2.301"), |s| {
        vector(s, "C2.301")
            .as_object_mut()
            .unwrap()
            .remove("expected");
    }),
    ("id-family", Some("C1.script-nav"), |s| {
        vector(s, "C1.script-nav")["family"] = json!("E")
    }),
    ("step-kinds", Some("B8.tracing"), |s| {
        push(
            &mut vector(s, "B8.tracing")["trigger"],
            json!({"cdp": "Tracing.start"}),
        )
    }),
    ("step-kinds", Some("E5.console"), |s| {
        let v = vector(s, "E5.console");
        v["setup"] = json!([{"text": "nothing"}]);
        v["trigger"] = json!([{"wait": 10}]);
    }),
    ("control-runs-guarded-methods", Some("C1.eval-href"), |s| {
        push(
            &mut vector(s, "C1.eval-href")["trigger"],
            json!({"cdp": "Page.reload", "on": "guarded"}),
        )
    }),
    ("control-runs-guarded-methods", Some("C5.fulfill"), |s| {
        vector(s, "C5.fulfill")["setup"][3]["on"] = json!("guarded");
    }),
    ("skip-target", Some("C4.static-same-site"), |s| {
        vector(s, "C4.static-same-site")["skip"]["target"] = json!("apex")
    }),
    ("observe-defines-expected", Some("C3.close-target"), |s| {
        vector(s, "C3.close-target")["control"]["expected"]["nope"] = json!(true)
    }),
    ("depends-on", Some("C1.script-nav"), |s| {
        vector(s, "C1.script-nav")["observe"]["beaconed"]
            .as_object_mut()
            .unwrap()
            .remove("dependsOn");
    }),
    ("depends-on", Some("C6.read-cookies"), |s| {
        vector(s, "C6.read-cookies")["observe"]["leaked"]["dependsOn"] = json!(["nope"])
    }),
    ("depends-on", Some("C3.self-navigating"), |s| {
        push(
            &mut vector(s, "C3.self-navigating")["trigger"],
            json!({"settle": {"beacon": "{target}", "required": true, "dependsOn": ["refused.0"]}}),
        )
    }),
    ("requires", Some("C3.self-navigating"), |s| {
        vector(s, "C3.self-navigating")["setup"][1]
            .as_object_mut()
            .unwrap()
            .remove("requires");
    }),
    ("requires", Some("C6.context-cookies"), |s| {
        vector(s, "C6.context-cookies")["requires"] = json!(["browserSession"])
    }),
    ("requires", Some("C1.replace"), |s| {
        vector(s, "C1.replace")["requires"] = json!(["autoAttach"])
    }),
    ("placeholders", Some("C1.form"), |s| {
        vector(s, "C1.form")["trigger"][0]["url"] = json!("{nowhere}/doc")
    }),
    ("reserved-ports", Some("C5.xhr"), |s| {
        vector(s, "C5.xhr")["trigger"][0]["url"] =
            json!(format!("http://127.0.0.1:{}/data", 9220 + 2))
    }),
    ("reserved-ports", Some("B1.create-target"), |s| {
        vector(s, "B1.create-target")["trigger"][0]["params"]["port"] = json!(9220 + 9)
    }),
    ("live-check-required", Some("C5.image"), |s| {
        vector(s, "C5.image")
            .as_object_mut()
            .unwrap()
            .remove("liveCheck");
    }),
    ("hopped-needs-hops", Some("C2.302"), |s| {
        vector(s, "C2.302")["trigger"][0]
            .as_object_mut()
            .unwrap()
            .remove("hops");
    }),
    ("refusable-refusal", Some("C1.page-navigate"), |s| {
        vector(s, "C1.page-navigate")["trigger"][0]
            .as_object_mut()
            .unwrap()
            .remove("refusal");
    }),
    ("refusable-refusal", Some("C5.fetch"), |s| {
        vector(s, "C5.fetch")["trigger"][0]["refusable"] = json!(true)
    }),
    ("live-check-proofs", Some("C2.303"), |s| {
        push(
            &mut vector(s, "C2.303")["liveCheck"]["any"],
            json!({"executed": "trigger", "observer": "client"}),
        )
    }),
    ("live-check-proofs", Some("E6.extra-headers"), |s| {
        vector(s, "E6.extra-headers")["liveCheck"] =
            json!({"header": "x-guard-tag", "on": "control", "observer": "fixture"})
    }),
    ("block-spec", Some("C2.307"), |s| {
        vector(s, "C2.307")["liveCheck"]["any"][1]["all"][1]["any"][0]["blocked"]["anyOf"] =
            json!(["{target}/"])
    }),
    ("block-spec", Some("C2.308"), |s| {
        vector(s, "C2.308")["liveCheck"]["any"][1]["all"][1]["any"][0]["blocked"]["session"] =
            json!("browser")
    }),
    ("children-where", Some("C3.redirect-chain"), |s| {
        vector(s, "C3.redirect-chain")["setup"][2]["where"]["urlPrefix"] = json!("{target}/")
    }),
    ("step-shapes", Some("C4.inserted-cross-site"), |s| {
        vector(s, "C4.inserted-cross-site")["trigger"][1]["settle"] = json!({})
    }),
    ("step-shapes", Some("C5.guessed-id.fulfill"), |s| {
        let v = vector(s, "C5.guessed-id.fulfill");
        let at = v["trigger"]
            .as_array()
            .unwrap()
            .iter()
            .position(|x| x.get("guess").is_some())
            .unwrap();
        v["trigger"][at]["guess"]["between"] = json!(["{ordinary}/data?n=a-{tag}"]);
    }),
    ("one-kind", Some("C1.view-source"), |s| {
        vector(s, "C1.view-source")["setup"][1]["page"] = json!("eval")
    }),
    ("one-kind", Some("C6.write-cookie"), |s| {
        vector(s, "C6.write-cookie")["observe"]["kept"]["check"]["beacon"] = json!("{target}")
    }),
    ("observers", Some("E3.bypass-csp"), |s| {
        vector(s, "E3.bypass-csp")["observe"]["inlineRan"]["check"]["observer"] = json!("client")
    }),
    ("observers", Some("C5.fulfill"), |s| {
        vector(s, "C5.fulfill")["observe"]["rewritten"]["check"]["via"] = json!("guard")
    }),
    ("top-level-names", None, |s| {
        s["targets"].as_object_mut().unwrap().remove("apex");
    }),
    ("top-level-names", None, |s| {
        s["capabilities"]["extra"] = json!("a fourth capability")
    }),
    ("either-design-dependent", Some("E6.locale"), |s| {
        vector(s, "E6.locale")["expected"]["overridden"] = json!("either")
    }),
    ("either-design-dependent", Some("C1.replace"), |s| {
        vector(s, "C1.replace")["designDependent"] = json!(["detached", "nope"])
    }),
    ("call-names", Some("C3.activate-target"), |s| {
        vector(s, "C3.activate-target")["observe"]["activated"]["check"]["result"] = json!("nope")
    }),
    ("call-names", Some("C6.get-all-cookies"), |s| {
        vector(s, "C6.get-all-cookies")["observe"]["withheld"]["check"]["any"][0]["refused"] =
            json!(["read", "nope"])
    }),
    ("call-names", Some("C5.guessed-id.fulfill"), |s| {
        vector(s, "C5.guessed-id.fulfill")["trigger"][0]["as"] = json!("victim")
    }),
    ("refusal-patterns", Some("C1.init-script-nav"), |s| {
        vector(s, "C1.init-script-nav")["setup"][2]["refusal"]["match"] = json!("(unclosed")
    }),
    ("predicates", Some("C3.get-target-info"), |s| {
        vector(s, "C3.get-target-info")["observe"]["pathShown"]["check"]["equals"] =
            json!(["n=dest-{tag}"])
    }),
    ("predicates", Some("B6.target-listing"), |s| {
        vector(s, "B6.target-listing")["observe"]["pathListed"]["check"]["equals"] =
            json!({"$any": {}})
    }),
    ("predicates", Some("B5.response-cookies"), |s| {
        vector(s, "B5.response-cookies")["observe"]["setCookieSeen"]["check"]["where"]["params"]
            ["headers"] = json!({"$regex": "[{cookie}"})
    }),
];

#[test]
fn the_shipped_vectors_have_no_problems() {
    let problems: Vec<Problem> = validate_dir(Path::new(env!("CARGO_MANIFEST_DIR")))
        .into_iter()
        .filter(|p| p.file == FILE || p.file.starts_with("schema/guard"))
        .collect();
    assert!(
        problems.is_empty(),
        "{}",
        problems
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(validate_copy(&shipped()).iter().all(|p| p.file != FILE));
}

#[test]
fn each_rule_refuses_its_broken_copy_naming_the_rule_and_the_vector() {
    let mut failures = Vec::new();
    for (rule, id, edit) in CASES {
        let mut set = shipped();
        edit(&mut set);
        let problems = validate_copy(&set);
        let hit = problems.iter().any(|p| {
            p.file == FILE
                && p.rule == *rule
                && id.is_none_or(|id| p.message.starts_with(&format!("vector {id}: ")))
        });
        if !hit {
            failures.push(format!(
                "{rule} on {id:?} was not reported; got:\n  {}",
                problems
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("\n  ")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_rule_has_a_broken_copy() {
    for (rule, _) in GUARD_RULES {
        assert!(
            CASES.iter().any(|(r, _, _)| r == rule),
            "rule {rule} has no broken copy in CASES"
        );
    }
    for (rule, _, _) in CASES {
        assert!(
            GUARD_RULES.iter().any(|(r, _)| r == rule),
            "{rule} is not in GUARD_RULES"
        );
    }
}

#[test]
fn the_set_covers_every_family_the_issue_names() {
    let set = slicc_browsers::guard::vectors();
    let runnable = set.vectors.iter().filter(|v| v.is_runnable()).count();
    assert!(set.vectors.len() >= 60, "{} vectors", set.vectors.len());
    assert!(runnable >= 40, "{runnable} runnable vectors");
    assert_eq!(set.set_version, "0.0.0");
    for id in [
        "C1.script-nav",
        "C1.replace",
        "C1.form",
        "C1.post",
        "C1.init-script-nav",
        "C2.301",
        "C2.302",
        "C2.303",
        "C2.307",
        "C2.308",
        "C2.post-307",
        "C2.post-308",
        "C2.through-protected",
        "C3.self-navigating",
        "C3.redirect-chain",
        "C3.auto-attach-wait",
        "C3.auto-attach-nowait",
        "C3.attach-to-target",
        "C3.activate-target",
        "C3.close-target",
        "C3.reattach-after-path",
        "C4.static-same-site",
        "C4.static-cross-site",
        "C4.inserted-same-site",
        "C4.inserted-cross-site",
        "C5.document",
        "C5.document.response",
        "C5.fetch",
        "C5.fetch.response",
        "C5.xhr",
        "C5.image",
        "C5.auth",
        "C5.continue-request",
        "C5.continue-response",
        "C5.fulfill",
        "C5.new-url",
        "C5.guessed-id.fulfill",
        "C5.guessed-id.continue-with-auth",
        "C6.read-cookies",
        "C6.write-cookie",
        "C6.clear-cookies",
        "C6.get-all-cookies",
        "C6.storage-set-cookies",
        "C6.delete-cookie",
        "C6.clear-data-for-origin",
        "C6.clear-data-for-storage-key",
        "C6.dom-storage-key-read",
        "E1.onload",
        "E2.binding",
        "E3.bypass-csp",
        "E5.console",
        "E6.extra-headers",
        "E6.user-agent.network",
        "E6.user-agent.emulation",
        "E6.cache-disabled",
        "E6.network-conditions",
        "E6.locale",
        "E6.timezone",
        "E6.network-state",
        "E6.blocked-urls",
        "B2.headers",
    ] {
        let v = set.vector(id).unwrap_or_else(|| panic!("no vector {id}"));
        assert!(v.is_runnable(), "{id} is a text row");
    }
    for v in set.vectors.iter().filter(|v| v.id.starts_with("E6.")) {
        assert_eq!(
            v.applies_to.as_deref(),
            Some(&["href".to_string()][..]),
            "{} applies to href only",
            v.id
        );
    }
}
