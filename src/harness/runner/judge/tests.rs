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

// Issue 29: a guarded leg read as the format writes it. Each record below is a leg as our
// driver records it through `guard proxy`: the proxy's refusal text, a guess's attempts, the
// stand-in's log of a redirect chain whose destination the guard blocked.

/// The refusal `guard proxy` answers with (the catalog's text and the reason in brackets).
const PROXY_REFUSAL: &str =
    "slicc: refused: target is on seven's origin (request id the client was not shown)";

fn refusal_answer(message: &str) -> Value {
    json!({ "ok": false, "error": { "code": -32000, "message": message } })
}

/// A vector whose calls are named by `as` without `refusable`, with a `guess`.
fn named_vector() -> Vector {
    serde_json::from_value(json!({
        "id": "C9.named", "family": "C", "kind": "cdp", "scope": "any",
        "setup": [ { "page": "tab", "url": "{ordinary}/doc?n={tag}" } ],
        "trigger": [
            { "cdp": "Storage.clearCookies", "as": "wipe" },
            { "cdp": "Storage.getCookies", "as": "read" },
            { "guess": { "between": ["{ordinary}/data?n=a-{tag}", "{ordinary}/data?n=b-{tag}"],
                         "cdp": "Fetch.continueWithAuth",
                         "params": { "authChallengeResponse": { "response": "Default" } } },
              "as": "guesses" },
        ],
        "targets": ["seven"],
        "observe": { "x": { "means": "m", "check": { "reached": ["wipe"], "observer": "client" } } },
        "live": "l",
        "liveCheck": { "all": [
            { "state": { "origin": "{target}", "cookie": "{cookie}", "value": "{cookie}" }, "observer": "unguarded" },
            { "any": [
                { "refused": ["wipe"], "observer": "client" },
                { "filtered": { "from": ["read"], "cookie": "{cookie}" }, "observer": "client" },
            ], "observer": "client" },
        ], "observer": "client" },
        "control": { "origin": "ordinary", "via": "guard", "expected": { "x": true } },
        "expected": { "x": false },
    }))
    .expect("a vector")
}

fn judge_named(record: &Record, check: Value) -> Truth {
    let v = named_vector();
    let vars = vars();
    let check: Check = serde_json::from_value(check).expect("a check");
    let run = LegRun {
        vars: &vars,
        record,
    };
    evaluate(&v, Leg::Guarded, &run, true, &check).expect("evaluates")
}

/// Reading 1: `hops` holds when each exact nested redirect URL was logged; the destination,
/// which the guard blocked before any request, is judged by its own observation.
#[test]
fn hops_hold_on_the_redirect_urls_without_the_destination() {
    use crate::harness::runner::expand::chain_urls;
    use crate::vectors::Hop;
    let hops: Vec<Hop> = serde_json::from_value(json!([
        { "origin": "http://ordinary.test", "code": 302 },
        { "origin": "http://cross.test", "code": 307 },
    ]))
    .expect("hops");
    let to = "http://seven.test/doc?n=dest-T1";
    let chain = chain_urls(&hops, to);
    assert_eq!(chain.len(), 3);
    // The guarded leg through the proxy: both hops served, the destination never requested.
    let record = Record {
        tag: "T1".into(),
        log: vec![entry(&chain[0]), entry(&chain[1])],
        ..Record::default()
    };
    let check = json!({ "hops": [
        { "origin": "http://ordinary.test", "code": 302 },
        { "origin": "http://cross.test", "code": 307 },
    ], "to": to, "observer": "fixture" });
    assert_eq!(judge(&record, check.clone()), Truth::True, "hopped");
    let loaded = json!({ "loaded": to, "observer": "fixture" });
    assert_eq!(judge(&record, loaded.clone()), Truth::False, "not arrived");
    // A missing nested hop is no chain.
    let only_first = Record {
        log: vec![entry(&chain[0])],
        ..record.clone()
    };
    assert_eq!(judge(&only_first, check.clone()), Truth::False);
    // With the destination too (no guard), both hold.
    let all = Record {
        log: chain.iter().map(|u| entry(u)).collect(),
        ..record
    };
    assert_eq!(judge(&all, check), Truth::True);
    assert_eq!(judge(&all, loaded), Truth::True);
}

/// Reading 2: `refused` and `reached` name a step by its `as`, refusable or not: a protocol
/// error matching the check's `refusal.match`, else the catalog's refusal, is refused (and not
/// reached); a browser error is reached.
#[test]
fn refused_and_reached_read_steps_that_are_not_refusable() {
    let mut record = Record {
        tag: "T1".into(),
        ..Record::default()
    };
    record.outcomes.insert(
        "wipe".into(),
        Recorded::Value(refusal_answer(PROXY_REFUSAL)),
    );
    let refused = |names: Value| json!({ "refused": names, "observer": "client" });
    let reached = |names: Value| json!({ "reached": names, "observer": "client" });
    // No refusal.match anywhere: the catalog's refusal.
    assert_eq!(judge_named(&record, refused(json!(["wipe"]))), Truth::True);
    assert_eq!(judge_named(&record, reached(json!(["wipe"]))), Truth::False);
    // The check's own match decides when it has one.
    let own = json!({ "refused": ["wipe"], "refusal": { "match": "slicc: refused" }, "observer": "client" });
    assert_eq!(judge_named(&record, own), Truth::True);
    let other =
        json!({ "refused": ["wipe"], "refusal": { "match": "^denied" }, "observer": "client" });
    assert_eq!(judge_named(&record, other), Truth::False);
    let by_code =
        json!({ "refused": ["wipe"], "refusal": { "match": "^-32000$" }, "observer": "client" });
    assert_eq!(judge_named(&record, by_code), Truth::True);
    // A browser error is no refusal: reached.
    record.outcomes.insert(
        "wipe".into(),
        Recorded::Value(refusal_answer(
            "Browser context management is not supported.",
        )),
    );
    assert_eq!(judge_named(&record, refused(json!(["wipe"]))), Truth::False);
    assert_eq!(judge_named(&record, reached(json!(["wipe"]))), Truth::True);
    // An answer is reached; no answer is neither.
    record.outcomes.insert(
        "wipe".into(),
        Recorded::Value(json!({ "ok": true, "result": {} })),
    );
    assert_eq!(judge_named(&record, reached(json!(["wipe"]))), Truth::True);
    assert_eq!(judge_named(&record, refused(json!(["wipe"]))), Truth::False);
    record.outcomes.insert(
        "wipe".into(),
        Recorded::Failed("the transport closed".into()),
    );
    assert_eq!(judge_named(&record, reached(json!(["wipe"]))), Truth::False);
    assert_eq!(judge_named(&record, refused(json!(["wipe"]))), Truth::False);
}

/// Reading 2, for `guess`: each attempt is judged; the guess is refused when every attempt was
/// refused, reached when one attempt reached the browser.
#[test]
fn a_guess_is_judged_attempt_by_attempt() {
    let attempt = |id: &str, answer: Value| {
        let mut a = answer;
        a["requestId"] = json!(id);
        a
    };
    let guess = |attempts: Vec<Value>| {
        let ok = attempts.iter().any(|a| a["ok"] == json!(true));
        Recorded::Value(json!({ "ok": ok, "result": attempts.clone(), "value": attempts }))
    };
    let mut record = Record {
        tag: "T1".into(),
        ..Record::default()
    };
    let refused = json!({ "refused": ["guesses"], "observer": "client" });
    let reached = json!({ "reached": ["guesses"], "observer": "client" });
    // Through the proxy: every candidate id refused (it was never shown to the client).
    record.outcomes.insert(
        "guesses".into(),
        guess(vec![
            attempt("interception-job-6.0", refusal_answer(PROXY_REFUSAL)),
            attempt("interception-job-7.0", refusal_answer(PROXY_REFUSAL)),
        ]),
    );
    assert_eq!(judge_named(&record, refused.clone()), Truth::True);
    assert_eq!(judge_named(&record, reached.clone()), Truth::False);
    // One candidate answered by the browser: reached, not refused.
    record.outcomes.insert(
        "guesses".into(),
        guess(vec![
            attempt("interception-job-6.0", refusal_answer(PROXY_REFUSAL)),
            attempt("interception-job-7.0", json!({ "ok": true, "result": {} })),
        ]),
    );
    assert_eq!(judge_named(&record, refused.clone()), Truth::False);
    assert_eq!(judge_named(&record, reached.clone()), Truth::True);
    // No candidate at all: neither.
    record.outcomes.insert("guesses".into(), guess(vec![]));
    assert_eq!(judge_named(&record, refused), Truth::False);
    assert_eq!(judge_named(&record, reached), Truth::False);
}

/// Reading 3: the canary read outside the guard, unchanged, together with a refused or
/// filtered call, proves a cookie row's liveness; either alone does not.
#[test]
fn canary_state_with_a_refused_or_filtered_call_proves_liveness() {
    use super::judge_live;
    use crate::harness::runner::record::Read;
    use crate::harness::runner::summary::Status;
    let v = named_vector();
    let vars = vars();
    let state = (
        Read::State {
            origin: "http://seven.test".into(),
            cookie: "canary-T1".into(),
            storage: false,
        },
        Recorded::Value(json!("canary-T1")),
    );
    let live = |record: &Record| {
        judge_live(
            &v,
            &LegRun {
                vars: &vars,
                record,
            },
            true,
        )
    };
    // The proxy refused the wipe, the canary is still there.
    let mut record = Record {
        tag: "T1".into(),
        observer: true,
        reads: vec![state.clone()],
        ..Record::default()
    };
    record.outcomes.insert(
        "wipe".into(),
        Recorded::Value(refusal_answer(PROXY_REFUSAL)),
    );
    let verdict = live(&record);
    assert_eq!(verdict.status, Status::Pass, "{:?}", verdict.errors);
    // The read answered without the protected cookie (filtered), the wipe reached nothing.
    record.outcomes.insert(
        "wipe".into(),
        Recorded::Value(json!({ "ok": true, "result": {} })),
    );
    record.outcomes.insert(
        "read".into(),
        Recorded::Value(json!({ "ok": true, "result": { "cookies": [
            { "name": "other", "value": "v", "domain": "ordinary.test" }
        ] } })),
    );
    let verdict = live(&record);
    assert_eq!(verdict.status, Status::Pass, "{:?}", verdict.errors);
    // The state alone (the call reached and returned the canary) proves nothing.
    record.outcomes.insert(
        "read".into(),
        Recorded::Value(json!({ "ok": true, "result": { "cookies": [
            { "name": "canary-T1", "value": "canary-T1", "domain": "seven.test" }
        ] } })),
    );
    assert_eq!(live(&record).status, Status::Fail);
    // A refusal with the canary gone (or unread) proves nothing either.
    record.outcomes.insert(
        "wipe".into(),
        Recorded::Value(refusal_answer(PROXY_REFUSAL)),
    );
    record.reads = vec![(state.0, Recorded::Value(json!("")))];
    assert_eq!(live(&record).status, Status::Fail);
}
