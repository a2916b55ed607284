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

/// The schema's `$defs`, and the defs one union (`check`, `step`) is the `oneOf` of.
fn union_defs(union: &str) -> (serde_json::Map<String, Value>, Vec<(String, Value)>) {
    let schema: Value = serde_json::from_str(slicc_browsers::GUARD_VECTORS_SCHEMA).unwrap();
    let defs = schema["$defs"].as_object().unwrap().clone();
    let alternatives = defs[union]["oneOf"]
        .as_array()
        .unwrap_or_else(|| panic!("$defs/{union} is a oneOf"))
        .iter()
        .map(|r| {
            let name = r["$ref"].as_str().unwrap().rsplit('/').next().unwrap();
            (name.to_string(), defs[name].clone())
        })
        .collect();
    (defs, alternatives)
}

/// A JSON value the schema `s` describes, with every property an object may have: the first
/// alternative of a union, the const or the first enum value, one item per array.
fn instance(defs: &serde_json::Map<String, Value>, s: &Value) -> Value {
    if let Some(r) = s["$ref"].as_str() {
        return instance(defs, &defs[r.rsplit('/').next().unwrap()]);
    }
    if let Some(c) = s.get("const") {
        return c.clone();
    }
    if let Some(e) = s["enum"].as_array() {
        return e[0].clone();
    }
    if let Some(first) = s["oneOf"].as_array().or(s["anyOf"].as_array()) {
        if s.get("type").is_none() && s.get("properties").is_none() {
            return instance(defs, &first[0]);
        }
    }
    let ty = match &s["type"] {
        Value::Array(types) => types[0].as_str().unwrap(),
        Value::String(t) => t.as_str(),
        _ if s.get("properties").is_some() => "object",
        other => panic!("no instance for {s} (type {other})"),
    };
    match ty {
        "string" => Value::String("x".into()),
        "integer" | "number" => serde_json::json!(0),
        "boolean" => Value::Bool(true),
        "null" => Value::Null,
        "array" => Value::Array(vec![instance(defs, &s["items"])]),
        "object" => Value::Object(
            s["properties"]
                .as_object()
                .map(|p| {
                    p.iter()
                        .map(|(k, v)| (k.clone(), instance(defs, v)))
                        .collect()
                })
                .unwrap_or_default(),
        ),
        other => panic!("no instance for type {other}"),
    }
}

#[test]
fn the_check_table_agrees_with_the_schema() {
    let (defs, alternatives) = union_defs("check");
    // Each kind key of the schema, with the observers its alternatives declare.
    let mut schema_kinds: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for (name, def) in &alternatives {
        let required: Vec<&str> = def["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap())
            .collect();
        let key = required[0];
        assert!(
            name.starts_with(&format!("check.{key}")),
            "$defs/{name}: its first required member {key:?} is not its kind"
        );
        let observer = def["properties"]["observer"]["const"].as_str().unwrap();
        schema_kinds
            .entry(key.to_string())
            .or_default()
            .push(observer.to_string());

        // Every member the schema gives this alternative lands in a typed field of the
        // table's struct, and writes back the same.
        let full = instance(&defs, def);
        let check: Check = serde_json::from_value(full.clone())
            .unwrap_or_else(|e| panic!("$defs/{name} instance {full} does not parse: {e}"));
        assert_eq!(check.kind().as_str(), key, "$defs/{name}");
        assert_eq!(check.observer().as_str(), observer, "$defs/{name}");
        assert!(
            check.extra().is_empty(),
            "$defs/{name}: the table's struct has no field for {:?}",
            check.extra().keys().collect::<Vec<_>>()
        );
        assert_eq!(serde_json::to_value(&check).unwrap(), full, "$defs/{name}");
    }
    let table: std::collections::BTreeMap<String, Vec<String>> = CheckKind::ALL
        .iter()
        .map(|k| {
            let observers = k.observers().iter().map(|o| o.as_str().to_string());
            (k.as_str().to_string(), observers.collect())
        })
        .collect();
    assert_eq!(
        table, schema_kinds,
        "the check table (left) and the schema's check alternatives (right) differ"
    );
    assert_eq!(CheckKind::COUNT, schema_kinds.len());
    for k in CheckKind::ALL {
        assert_eq!(CheckKind::from_key(k.as_str()), Some(k));
    }
    // Diagnostic kinds are the ones a liveCheck may not hold (the schema's liveProof).
    let banned: Vec<&str> = defs["liveProof"]["not"]["anyOf"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a.get("properties").is_none())
        .map(|a| a["required"][0].as_str().unwrap())
        .collect();
    let diagnostic: Vec<&str> = CheckKind::ALL
        .iter()
        .filter(|k| k.is_diagnostic())
        .map(|k| k.as_str())
        .collect();
    assert_eq!(diagnostic, banned);
}

#[test]
fn the_step_table_agrees_with_the_schema() {
    let (defs, alternatives) = union_defs("step");
    let mut schema_kinds = Vec::new();
    for (name, def) in &alternatives {
        let key = name
            .strip_suffix("Step")
            .unwrap_or_else(|| panic!("$defs/{name} is named <kind>Step"));
        assert!(
            def["required"].as_array().unwrap().iter().any(|r| r == key),
            "$defs/{name} requires its kind key {key:?}"
        );
        schema_kinds.push(key.to_string());
        let full = instance(&defs, def);
        let step: Step = serde_json::from_value(full.clone())
            .unwrap_or_else(|e| panic!("$defs/{name} instance {full} does not parse: {e}"));
        assert_eq!(step.kind().as_str(), key, "$defs/{name}");
        assert!(
            step.extra().is_empty(),
            "$defs/{name}: the table's struct has no field for {:?}",
            step.extra().keys().collect::<Vec<_>>()
        );
        assert_eq!(serde_json::to_value(&step).unwrap(), full, "$defs/{name}");
    }
    let table: Vec<String> = StepKind::ALL
        .iter()
        .map(|k| k.as_str().to_string())
        .collect();
    assert_eq!(
        table, schema_kinds,
        "the step table (left) and the schema's step alternatives (right) differ"
    );
    for k in StepKind::ALL {
        assert_eq!(StepKind::from_key(k.as_str()), Some(k));
    }
}

#[test]
fn an_object_with_no_kind_key_is_an_error_listing_the_table() {
    let err = serde_json::from_value::<Check>(serde_json::json!({"observer": "client"}))
        .unwrap_err()
        .to_string();
    for k in CheckKind::ALL {
        assert!(err.contains(k.as_str()), "{err} does not list {k}");
    }
    assert!(err.contains("found observer"), "{err}");
    let err = serde_json::from_value::<Step>(serde_json::json!({"on": "control"}))
        .unwrap_err()
        .to_string();
    for k in StepKind::ALL {
        assert!(err.contains(k.as_str()), "{err} does not list {k}");
    }
}
