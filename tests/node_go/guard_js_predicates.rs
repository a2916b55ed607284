//! §4.4's predicates read the same in both languages: each (predicate, value) of a table of edge
//! cases (numbers by value, `{}` only for objects, a missing member, `$contains` and `$regex` on
//! non-strings as JSON text, `$some`, a non-empty `$every`, `$encoded` with and without a prefix
//! in both base64 alphabets, arrays and unknown operators invalid) is judged by
//! `predicate::matches` and by `guard-driver.mjs`'s `matches`, and the answers (true, false or
//! invalid) agree. Skipped (with the reason printed) without node, unless `CI` is set.
#![cfg(feature = "guard-runner")]

use crate::needs;

use serde_json::{json, Value};
use slicc_browsers::harness::runner::predicate;

fn cases() -> Vec<(Value, Value)> {
    let b64 = "aHR0cDovL3NldmVuLnNsaWNjeS5haS9kb2M/bj0x"; // http://seven.sliccy.ai/doc?n=1
    let url_safe = "aHR0cDovL2E_Yj0-"; // http://a?b=> in the URL-safe alphabet
    vec![
        (json!(1), json!(1.0)),
        (json!(1), json!("1")),
        (json!("a"), json!("a")),
        (json!(null), json!(null)),
        (json!(true), json!(1)),
        (json!({}), json!({"a": 1})),
        (json!({}), json!([])),
        (json!({}), json!("x")),
        (json!({"a": null}), json!({})),
        (json!({"a": null}), json!({"a": null})),
        (json!({"a": {"b": 2}}), json!({"a": {"b": 2, "c": 3}})),
        (json!({"$contains": "ell"}), json!("hello")),
        (json!({"$contains": "\"a\":1"}), json!({"a": 1})),
        (json!({"$regex": "^[1-9]"}), json!(12)),
        (json!({"$regex": "b+c"}), json!("abbc")),
        (json!({"$regex": "("}), json!("x")),
        (
            json!({"$some": {"ok": true}}),
            json!([{"ok": false}, {"ok": true}]),
        ),
        (json!({"$some": {}}), json!([])),
        (json!({"$every": {}}), json!([])),
        (json!({"$every": {"ok": true}}), json!([{"ok": true}])),
        (
            json!({"$encoded": {"value": "seven.sliccy.ai"}}),
            json!(b64),
        ),
        (
            json!({"$encoded": {"value": "seven", "prefix": "probe:"}}),
            json!(format!("probe:{b64}")),
        ),
        (
            json!({"$encoded": {"value": "seven", "prefix": "probe:"}}),
            json!(b64),
        ),
        (
            json!({"$encoded": {"value": "http://a?b=>"}}),
            json!(url_safe),
        ),
        (json!({"$encoded": {"value": "x"}}), json!("not base64!")),
        (json!({"$encoded": {"value": "x", "extra": 1}}), json!("eA")),
        (json!([1]), json!([1])),
        (json!({"$nope": 1}), json!({"$nope": 1})),
        (
            json!({"a": {"$some": {"$regex": "x"}}}),
            json!({"a": ["y", "zx"]}),
        ),
        (json!({"$contains": "x", "$regex": "y"}), json!("xy")),
        (json!({"a": 1, "$contains": "1"}), json!({"a": 1})),
    ]
}

fn answer(r: Result<bool, predicate::PredicateError>) -> Value {
    match r {
        Ok(b) => json!(b),
        Err(_) => json!("invalid"),
    }
}

#[test]
fn predicates_read_the_same_in_both_languages() {
    if needs::missing("node", needs::node()) {
        return;
    }
    let cases = cases();
    let rust: Vec<Value> = cases
        .iter()
        .map(|(p, v)| answer(predicate::matches(p, v)))
        .collect();
    let driver = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("guard-driver.mjs");
    let script = format!(
        "const d = await import({driver});\n\
         const cases = {cases};\n\
         console.log(JSON.stringify(cases.map(([p, v]) => {{ try {{ return d.matches(p, v); }} catch (e) {{ return 'invalid'; }} }})));",
        driver = json!(format!("file://{}", driver.display())),
        cases = json!(cases.iter().map(|(p, v)| json!([p, v])).collect::<Vec<_>>()),
    );
    let out = needs::succeeded(
        "node",
        std::process::Command::new("node")
            .args(["--input-type=module", "-e", &script])
            .output(),
    );
    let js: Vec<Value> = serde_json::from_slice(&out.stdout).expect("a JSON array");
    let differ: Vec<String> = cases
        .iter()
        .zip(rust.iter().zip(&js))
        .filter(|(_, (a, b))| a != b)
        .map(|((p, v), (a, b))| format!("{p} on {v}: crate {a}, js {b}"))
        .collect();
    assert!(differ.is_empty(), "{}", differ.join("\n"));
    // The table is not trivial: each answer occurs.
    for want in [json!(true), json!(false), json!("invalid")] {
        assert!(rust.contains(&want), "no case answers {want}");
    }
}
