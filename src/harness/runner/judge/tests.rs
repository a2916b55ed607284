//! The judge read as the format is written (issue 21), on hand-made records.

use serde_json::{json, Value};

use super::{evaluate, LegRun, Truth};
use crate::harness::runner::expand::{Leg, Origins, Vars};
use crate::harness::runner::record::{LogEntry, Record, Recorded};
use crate::vectors::{Check, Vector};

fn vector() -> Vector {
    serde_json::from_value(json!({
        "id": "C9.judge", "family": "C", "kind": "cdp", "scope": "any",
        "setup": [ { "page": "tab", "url": "{ordinary}/doc?n={tag}" } ],
        "trigger": [
            { "cdp": "Storage.getCookies", "as": "call" },
            { "cdp": "Page.setDocumentContent", "params": { "frameId": "F", "html": "x" }, "as": "guarded",
              "refusable": true, "refusal": { "match": "refused" } },
        ],
        "targets": ["seven"],
        "observe": { "x": { "means": "m", "check": { "beacon": "{target}", "observer": "fixture" }, "dependsOn": ["guarded"] } },
        "live": "l", "liveCheck": { "loaded": "{target}/doc", "observer": "fixture" },
        "control": { "origin": "ordinary", "via": "guard", "expected": { "x": true } },
        "expected": { "x": false },
    }))
    .expect("a vector")
}

fn vars() -> Vars {
    let mut o = Origins::new();
    for (n, v) in [
        ("ordinary", "http://ordinary.test"),
        ("seven", "http://seven.test"),
        ("log", "http://log.test"),
    ] {
        o.set(n, Some(v)).expect("an origin");
    }
    Vars::for_leg(&o, Leg::Guarded, "seven", "T1", "canary-T1")
}

fn entry(url: &str) -> LogEntry {
    LogEntry {
        url: url.into(),
        method: "GET".into(),
        headers: Default::default(),
        time: 0,
    }
}

fn judge(record: &Record, check: Value) -> Truth {
    let v = vector();
    let vars = vars();
    let check: Check = serde_json::from_value(check).expect("a check");
    evaluate(
        &v,
        Leg::Guarded,
        &LegRun {
            vars: &vars,
            record,
        },
        false,
        &check,
    )
    .expect("evaluates")
}

/// Reading 3: `served` with a bare path and no `origin` matches that path on any origin (a path
/// with no query also matches the request with one, as a URL does).
#[test]
fn served_with_a_bare_path_matches_on_any_origin() {
    let record = Record {
        tag: "T1".into(),
        log: vec![
            entry("http://seven.test/plant?tag=T1"),
            entry("http://ordinary.test/data?n=T1"),
        ],
        ..Record::default()
    };
    for (path, want) in [
        ("/plant", Truth::True),
        ("/data?n=T1", Truth::True),
        ("/data?n=T2", Truth::False),
        ("/doc", Truth::False),
    ] {
        let check = json!({ "served": path, "observer": "fixture" });
        assert_eq!(judge(&record, check), want, "served {path}");
    }
    // With an origin, the path is on that origin only.
    let check =
        json!({ "served": "/plant", "origin": "http://ordinary.test", "observer": "fixture" });
    assert_eq!(judge(&record, check), Truth::False);
}

/// Reading 10: `reached` means the call got an answer that is not a refusal: a browser error is
/// still reached; a recorded refusal, a timeout or no outcome is not.
#[test]
fn reached_is_an_answer_that_is_not_a_refusal() {
    let error = |m: &str| {
        Recorded::Value(json!({ "ok": false, "error": { "code": -32000, "message": m } }))
    };
    let mut record = Record {
        tag: "T1".into(),
        ..Record::default()
    };
    record.outcomes.insert(
        "call".into(),
        error("Frame not found for the given storage id"),
    );
    let reached = |names: Value| json!({ "reached": names, "observer": "client" });
    assert_eq!(judge(&record, reached(json!(["call"]))), Truth::True);

    record
        .outcomes
        .insert("guarded".into(), error("refused: protected origin"));
    record.refused.insert("guarded".into());
    assert_eq!(judge(&record, reached(json!(["guarded"]))), Truth::False);
    assert_eq!(judge(&record, reached(json!("all"))), Truth::False);

    record.outcomes.insert(
        "call".into(),
        Recorded::Failed("no answer within the timeout".into()),
    );
    assert_eq!(judge(&record, reached(json!(["call"]))), Truth::False);
    record.outcomes.insert(
        "call".into(),
        Recorded::Value(json!({ "ok": true, "result": {} })),
    );
    assert_eq!(judge(&record, reached(json!(["call"]))), Truth::True);
}

/// A check that is invalid as written gives a typed error, whose text is the leg error's.
#[test]
fn invalid_checks_give_typed_errors() {
    use super::{CheckError, EvalError};
    use crate::harness::runner::predicate::{PredicateError, PredicateFault};

    let mut record = Record {
        tag: "T1".into(),
        ..Record::default()
    };
    record
        .refusal_errors
        .insert("guarded".into(), "refused: protected origin".into());
    let v = vector();
    let vars = vars();
    let eval = |check: Value| {
        let check: Check = serde_json::from_value(check).expect("a check");
        let run = LegRun {
            vars: &vars,
            record: &record,
        };
        evaluate(&v, Leg::Guarded, &run, false, &check).expect_err("an invalid check")
    };

    let result = eval(json!({ "result": "call", "equals": [1], "observer": "client" }));
    assert_eq!(
        result,
        EvalError::Check(CheckError::ResultEquals {
            name: "call".into(),
            error: PredicateError {
                at: String::new(),
                fault: PredicateFault::Array,
            },
        })
    );
    assert_eq!(
        result.to_string(),
        "result call: predicate at the top: arrays are not predicates (use $some or $every)"
    );

    let refused = eval(json!({
        "refused": ["guarded"], "refusal": { "match": "(" }, "observer": "client",
    }));
    let EvalError::Check(CheckError::Refusal(regex)) = &refused else {
        panic!("{refused:?}");
    };
    assert_eq!(regex.pattern, "(");
    assert_eq!(
        refused.to_string(),
        format!(
            "refused: the regular expression \"(\" does not compile: {}",
            regex.message
        )
    );

    let compare = eval(json!({ "compare": ["a", "b", "c"], "path": "x", "observer": "client" }));
    assert_eq!(compare, EvalError::Check(CheckError::CompareNames));
    assert_eq!(compare.to_string(), "compare needs exactly two names");

    let registration = eval(json!({ "registration": "some", "observer": "client" }));
    assert_eq!(
        registration,
        EvalError::Check(CheckError::Registration("some".into()))
    );
    assert_eq!(
        registration.to_string(),
        "registration takes \"any\", not \"some\""
    );
}
