//! `guard-vectors.json` validation: the shipped file has no problems, and each rule refuses a
//! broken copy with the rule's name and the vector's id.
#![cfg(feature = "cli-full")]

use std::path::Path;

use serde_json::{json, Value};
use slicc_browsers::validate::{validate_dir, validate_dir_strict, Level, Problem, GUARD_RULES};

const FILE: &str = "guard-vectors.json";

fn shipped() -> Value {
    serde_json::from_str(slicc_browsers::GUARD_VECTORS).unwrap()
}

/// Copies the crate's catalog, schemas and vectors into a temp dir, with `vectors` as the vector
/// file, and validates it: the errors.
fn validate_copy(vectors: &Value) -> Vec<Problem> {
    validate_copy_with(vectors, validate_dir)
}

/// [`validate_copy`] with the warnings too (`validate --strict`).
fn validate_copy_strict(vectors: &Value) -> Vec<Problem> {
    validate_copy_with(vectors, validate_dir_strict)
}

fn validate_copy_with(vectors: &Value, validate: fn(&Path) -> Vec<Problem>) -> Vec<Problem> {
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
    validate(dir.path())
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
    ("reserved-ports", Some("C5.fetch"), |s| {
        // A leading zero is the same port to a URL parser.
        vector(s, "C5.fetch")["trigger"][0]["url"] =
            json!(format!("http://127.0.0.1:0{}/data", 9220 + 3))
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
    ("call-names", Some("C3.activate-target"), |s| {
        vector(s, "C3.activate-target")["observe"]["activated"]["check"]["result"] = json!("nope")
    }),
    ("call-names", Some("C6.get-all-cookies"), |s| {
        vector(s, "C6.get-all-cookies")["observe"]["withheld"]["check"]["any"][0]["refused"] =
            json!(["read", "nope"])
    }),
    ("refusal-patterns", Some("C1.init-script-nav"), |s| {
        vector(s, "C1.init-script-nav")["setup"][2]["refusal"]["match"] = json!("(unclosed")
    }),
    ("predicates", Some("C3.get-target-info"), |s| {
        vector(s, "C3.get-target-info")["observe"]["pathShown"]["check"]["equals"] =
            json!(["n=dest-{tag}"])
    }),
    ("predicates", Some("B5.response-cookies"), |s| {
        vector(s, "B5.response-cookies")["observe"]["setCookieSeen"]["check"]["where"]["params"]
            ["headers"] = json!({"$regex": "[{cookie}"})
    }),
];

/// Each rule of this crate's own, the vector a copy breaks it in, and the edit: a warning under
/// `validate --strict`, never an error.
const WARNING_CASES: &[(&str, &str, Edit)] = &[
    ("as-unique-per-leg", "C5.guessed-id.fulfill", |s| {
        vector(s, "C5.guessed-id.fulfill")["trigger"][0]["as"] = json!("victim")
    }),
    ("settle-depends-on", "C3.self-navigating", |s| {
        push(
            &mut vector(s, "C3.self-navigating")["trigger"],
            json!({"settle": {"beacon": "{target}", "required": true, "dependsOn": ["refused.0"]}}),
        )
    }),
    ("design-dependent-defined", "C1.replace", |s| {
        vector(s, "C1.replace")["designDependent"] = json!(["detached", "nope"])
    }),
    ("predicate-operators", "B6.target-listing", |s| {
        vector(s, "B6.target-listing")["observe"]["pathListed"]["check"]["equals"] =
            json!({"$any": {}})
    }),
    ("rust-regex", "C1.init-script-nav", |s| {
        // Look-ahead: a JavaScript regular expression the regex crate lacks.
        vector(s, "C1.init-script-nav")["setup"][2]["refusal"]["match"] = json!("(?=refused)ref")
    }),
    ("rust-regex", "B5.response-cookies", |s| {
        vector(s, "B5.response-cookies")["observe"]["setCookieSeen"]["check"]["where"]["params"]
            ["headers"] = json!({"$regex": "(a)\\1"})
    }),
    ("js-regex", "C1.init-script-nav", |s| {
        // Valid for the regex crate, a syntax error in JavaScript's RegExp.
        vector(s, "C1.init-script-nav")["setup"][2]["refusal"]["match"] = json!("(?i)refused")
    }),
    ("refused-refusable", "C5.guessed-id.fulfill", |s| {
        vector(s, "C5.guessed-id.fulfill")["observe"]["refusedAll"] = json!({
            "means": "every guess refused",
            "check": {"refused": ["guesses"], "observer": "client"}
        })
    }),
    ("live-by-state", "C6.clear-cookies", |s| {
        vector(s, "C6.clear-cookies")["liveCheck"] = json!({"all": [
            {"state": {"origin": "{target}", "cookie": "{cookie}", "value": "{tag}"}, "observer": "unguarded"},
            {"refused": ["clear"], "observer": "client"}
        ], "observer": "client"})
    }),
    ("reserved-numbers", "B1.create-target", |s| {
        vector(s, "B1.create-target")["trigger"][0]["params"]["port"] = json!(9220 + 9)
    }),
    ("reserved-numbers", "C1.form", |s| {
        vector(s, "C1.form")["live"] = json!(format!("a tag n={} is no URL", 9220 + 4))
    }),
];

#[test]
fn each_rule_of_our_own_only_warns_under_strict() {
    let mut failures = Vec::new();
    for (rule, id, edit) in WARNING_CASES {
        let mut set = shipped();
        edit(&mut set);
        let errors: Vec<Problem> = validate_copy(&set)
            .into_iter()
            .filter(|p| p.file == FILE)
            .collect();
        if !errors.is_empty() {
            failures.push(format!(
                "{rule} on {id}: the copy has errors:\n  {}",
                errors
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("\n  ")
            ));
        }
        let strict = validate_copy_strict(&set);
        let hit = strict.iter().any(|p| {
            p.file == FILE
                && p.rule == *rule
                && p.level == Level::Warning
                && p.message.starts_with(&format!("vector {id}: "))
        });
        if !hit {
            failures.push(format!(
                "{rule} on {id} was not warned about; got:\n  {}",
                strict
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
fn every_rule_cites_where_it_comes_from_and_its_level_follows() {
    for rule in GUARD_RULES {
        match rule.level {
            Level::Error => assert!(
                (rule.source.starts_with("spec, ") || rule.source.starts_with("note "))
                    && rule.source.contains(": \""),
                "{}: an error rule quotes the spec or the format note, not {:?}",
                rule.name,
                rule.source
            ),
            Level::Warning => assert!(
                rule.source.starts_with("this crate's: "),
                "{}: a warning says it is this crate's own, not {:?}",
                rule.name,
                rule.source
            ),
        }
        assert!(!rule.checks.is_empty());
    }
    let mut names: Vec<&str> = GUARD_RULES.iter().map(|r| r.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), GUARD_RULES.len(), "a rule name is used twice");
}

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
    // Not even a warning: the crate's own file keeps the crate's own rules.
    let warnings: Vec<String> = validate_copy_strict(&shipped())
        .iter()
        .filter(|p| p.file == FILE)
        .map(ToString::to_string)
        .collect();
    assert!(warnings.is_empty(), "{}", warnings.join("\n"));
}

#[test]
fn each_rule_refuses_its_broken_copy_naming_the_rule_and_the_vector() {
    let mut failures = Vec::new();
    for (rule, id, edit) in CASES {
        let mut set = shipped();
        edit(&mut set);
        let problems = validate_copy(&set);
        for p in problems.iter().filter(|p| p.file == FILE) {
            assert!(
                GUARD_RULES.iter().any(|r| r.name == p.rule),
                "{p} names a rule GUARD_RULES lacks"
            );
        }
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
    for rule in GUARD_RULES {
        let covered = match rule.level {
            Level::Error => CASES.iter().any(|(r, _, _)| *r == rule.name),
            Level::Warning => WARNING_CASES.iter().any(|(r, _, _)| *r == rule.name),
        };
        assert!(
            covered,
            "rule {} ({:?}) has no broken copy",
            rule.name, rule.level
        );
    }
    for (rule, _, _) in CASES {
        assert!(
            GUARD_RULES
                .iter()
                .any(|r| r.name == *rule && r.level == Level::Error),
            "{rule} is not an error rule of GUARD_RULES"
        );
    }
    for (rule, _, _) in WARNING_CASES {
        assert!(
            GUARD_RULES
                .iter()
                .any(|r| r.name == *rule && r.level == Level::Warning),
            "{rule} is not a warning rule of GUARD_RULES"
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

/// A hand-written, spec-conforming vector file of `tests/data/guard-vectors/`.
fn conforming(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/guard-vectors")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// The rules `validate --strict` warns about on a copy with `vectors`, sorted; fails on any
/// error.
fn only_warnings(name: &str, vectors: &Value) -> Vec<String> {
    let errors: Vec<String> = validate_copy(vectors)
        .iter()
        .filter(|p| p.file == FILE)
        .map(ToString::to_string)
        .collect();
    assert!(
        errors.is_empty(),
        "{name} conforms to the spec, yet:\n{}",
        errors.join("\n")
    );
    let mut rules: Vec<String> = validate_copy_strict(vectors)
        .into_iter()
        .filter(|p| p.file == FILE)
        .inspect(|p| assert_eq!(p.level, Level::Warning, "{p}"))
        .map(|p| p.rule)
        .collect();
    rules.sort();
    rules.dedup();
    rules
}

#[test]
fn every_spec_conforming_file_validates() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/guard-vectors");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    assert!(names.len() >= 3, "{names:?}");
    for name in &names {
        only_warnings(name, &conforming(name));
        // The types read it too, as the runner will.
        let text = serde_json::to_string(&conforming(name)).unwrap();
        slicc_browsers::guard::Vectors::parse(&text)
            .unwrap_or_else(|e| panic!("{name}: the types refuse it: {e}"));
    }
}

#[test]
fn an_as_name_may_be_split_across_legs_but_not_shared_on_one() {
    let split = conforming("split-names.json");
    assert_eq!(
        only_warnings("split-names.json", &split),
        Vec::<String>::new()
    );
    // The same file with the two `probe` steps on one leg: a warning, still no error.
    let mut one_leg = split.clone();
    vector(&mut one_leg, "C3.split-names")["setup"][2]["on"] = json!("control");
    assert_eq!(
        only_warnings("split-names.json, one leg", &one_leg),
        ["as-unique-per-leg"]
    );
    // Nested steps run only where their children step runs: `inside` under a guarded and a
    // control children step never meets itself, not even when the nested steps say nothing.
    let mut nested = split.clone();
    vector(&mut nested, "C3.split-names")["setup"][2]["as"] = json!("other");
    assert_eq!(
        only_warnings("split-names.json, nested", &nested),
        Vec::<String>::new()
    );
    // Without `on` on the second children step, both children steps run on the guarded leg.
    let mut both = split;
    vector(&mut both, "C3.split-names")["setup"][5]
        .as_object_mut()
        .unwrap()
        .remove("on");
    assert_eq!(
        only_warnings("split-names.json, both", &both),
        ["as-unique-per-leg"]
    );
}

#[test]
fn a_page_or_browser_call_with_a_browser_context_needs_no_requires() {
    let set = conforming("browser-context.json");
    assert_eq!(
        only_warnings("browser-context.json", &set),
        Vec::<String>::new()
    );
    let typed =
        slicc_browsers::guard::Vectors::parse(&serde_json::to_string(&set).unwrap()).unwrap();
    let v = typed.vector("C6.context-read").unwrap();
    let call = v
        .all_steps()
        .into_iter()
        .find(|s| s.method() == Some("Storage.getCookies"))
        .unwrap();
    assert!(call.requires().is_empty());
    // Still, a browser-session call without its requires is an error (V9).
    let mut broken = set.clone();
    vector(&mut broken, "C6.context-read")["setup"][2]
        .as_object_mut()
        .unwrap()
        .remove("requires");
    assert!(validate_copy(&broken)
        .iter()
        .any(|p| p.rule == "requires" && p.message.starts_with("vector C6.context-read: ")));
}

#[test]
fn what_the_spec_accepts_and_we_do_not_only_warns() {
    let set = conforming("strict-warnings.json");
    assert_eq!(
        only_warnings("strict-warnings.json", &set),
        [
            "as-unique-per-leg",
            "design-dependent-defined",
            "predicate-operators",
            "reserved-numbers",
            "rust-regex",
            "settle-depends-on",
        ]
    );
}
