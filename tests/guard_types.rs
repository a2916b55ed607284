//! The typed guard vectors: the shipped file parses, and parsing then writing gives it back.
#![cfg(feature = "corpus")]

use serde_json::Value;
use slicc_browsers::guard::{self, Check, CheckKind, Expected, Outcome, Step, StepKind, Vectors};
use slicc_browsers::{Error, GUARD_VECTORS};

#[test]
fn round_trip_gives_back_the_same_json() {
    let original: Value = serde_json::from_str(GUARD_VECTORS).unwrap();
    let typed = guard::vectors();
    let written = serde_json::to_value(&typed).unwrap();
    assert_eq!(
        written, original,
        "parse then serialise changed the JSON value"
    );
    // Keys keep their file order too: the compact texts are identical.
    let (a, b) = (
        serde_json::to_string(&typed).unwrap(),
        serde_json::to_string(&original).unwrap(),
    );
    if let Some(at) = a.bytes().zip(b.bytes()).position(|(x, y)| x != y) {
        let from = at.saturating_sub(120);
        panic!(
            "parse then serialise changed the order of keys at byte {at}:\n written: {}\n file:    {}",
            &a[from..(at + 80).min(a.len())],
            &b[from..(at + 80).min(b.len())]
        );
    }
    assert_eq!(a.len(), b.len());
}

#[test]
fn round_trip_keeps_members_the_format_does_not_name_and_empty_arrays() {
    let mut value: Value = serde_json::from_str(GUARD_VECTORS).unwrap();
    value["futureTopLevel"] = serde_json::json!({"a": [1, 2]});
    let v = &mut value["vectors"][0];
    v["futureField"] = Value::Bool(true);
    v["designDependent"] = serde_json::json!([]);
    v["setup"][0]["futureStepField"] = serde_json::json!("x");
    v["setup"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"settle": {"dependsOn": []}}));
    v["setup"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"page": "fetch", "url": "{ordinary}/data", "status": false}));
    let obs = v["observe"]
        .as_object_mut()
        .unwrap()
        .values_mut()
        .next()
        .unwrap();
    obs["check"]["futureCheckField"] = serde_json::json!(7);
    let text = serde_json::to_string(&value).unwrap();
    let typed = Vectors::parse(&text).unwrap();
    assert_eq!(serde_json::to_value(&typed).unwrap(), value);
}

#[test]
fn steps_and_checks_are_typed() {
    let set = guard::vectors();
    let v = set.vector("C1.script-nav").unwrap();
    assert!(matches!(v.setup[0], Step::Page(ref p) if p.page == "tab"));
    assert_eq!(v.refusal_names(), vec!["initScript".to_string()]);
    let detached = v.observation("detached").unwrap();
    assert_eq!(detached.check.kind(), CheckKind::Detached);
    assert!(matches!(detached.either_when, Some(Check::All(_))));
    match &v.expected {
        Expected::Checks(c) => assert_eq!(c.get("beaconed"), Some(&Outcome::Is(false))),
        Expected::Text(_) => panic!("C1.script-nav is a cdp row"),
    }
    // Every step kind appears in the set.
    let mut kinds = std::collections::HashSet::new();
    for v in &set.vectors {
        for s in v.all_steps() {
            kinds.insert(s.kind());
        }
    }
    for k in StepKind::ALL {
        assert!(kinds.contains(&k), "no {} step in the set", k.as_str());
    }
}

#[test]
fn a_step_or_check_with_two_kinds_is_an_error_naming_them() {
    let mut value: Value = serde_json::from_str(GUARD_VECTORS).unwrap();
    value["vectors"][0]["setup"][0]["cdp"] = Value::String("Page.enable".into());
    let err = Vectors::parse(&value.to_string()).unwrap_err();
    assert!(
        err.to_string().contains("more than one kind: cdp, page"),
        "{err}"
    );

    let mut value: Value = serde_json::from_str(GUARD_VECTORS).unwrap();
    value["vectors"][0]["liveCheck"]["beacon"] = Value::String("{target}".into());
    let err = Vectors::parse(&value.to_string()).unwrap_err();
    assert!(
        err.to_string().contains("more than one kind: beacon, any"),
        "{err}"
    );
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    assert!(matches!(
        Vectors::parse("{\"schemaVersion\": 2}"),
        Err(Error::Schema { .. })
    ));
    assert!(matches!(Vectors::parse("{}"), Err(Error::Schema { .. })));
    assert!(matches!(Vectors::parse("[1]"), Err(Error::Invalid { .. })));
    match Vectors::parse("{\"schemaVersion\": 1,\n \"setVersion\": 3}") {
        Err(Error::Json { line, .. }) => assert!(line > 0),
        other => panic!("expected a JSON error with a line, got {other:?}"),
    }
    let mut value: Value = serde_json::from_str(GUARD_VECTORS).unwrap();
    value["vectors"][0]["expected"]["beaconed"] = Value::String("maybe".into());
    let err = Vectors::parse(&value.to_string()).unwrap_err();
    assert!(
        err.to_string().contains("true, false or \"either\""),
        "{err}"
    );
}
