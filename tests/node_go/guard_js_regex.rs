//! Every `refusal.match` and `$regex` of the shipped `guard-vectors.json` compiles both with the
//! Rust `regex` crate this crate's runner matches with and with JavaScript's `new RegExp(p)`,
//! which the JavaScript guards (guard-runner.mjs, slicc-extension, bios) use. `(?i)` is valid in
//! the first and a syntax error in the second, so the file uses the common subset only.
#![cfg(feature = "guard-runner")]

use crate::needs;

use serde_json::Value;

/// Refusal texts the refusal patterns must match: this crate's own refusal and the words other
/// guards refuse with, in several cases.
const REFUSALS: [&str; 5] = [
    "slicc: refused: target is on seven's origin",
    "SLICC: REFUSED",
    "Access denied",
    "Not Allowed",
    "origin is PROTECTED",
];

/// `(json path, pattern with placeholders expanded, is a refusal.match)` for every pattern of
/// the shipped file.
fn patterns() -> Vec<(String, String, bool)> {
    fn walk(v: &Value, path: &str, out: &mut Vec<(String, String, bool)>) {
        match v {
            Value::Object(m) => {
                for (k, child) in m {
                    let here = format!("{path}/{k}");
                    if k == "$regex" {
                        if let Some(s) = child.as_str() {
                            out.push((here.clone(), expand(s), false));
                        }
                    }
                    if k == "refusal" {
                        if let Some(s) = child.get("match").and_then(Value::as_str) {
                            out.push((format!("{here}/match"), expand(s), true));
                        }
                    }
                    walk(child, &here, out);
                }
            }
            Value::Array(a) => {
                for (i, child) in a.iter().enumerate() {
                    walk(child, &format!("{path}/{i}"), out);
                }
            }
            _ => {}
        }
    }
    let file: Value = serde_json::from_str(slicc_browsers::GUARD_VECTORS).unwrap();
    let mut out = Vec::new();
    walk(&file, "", &mut out);
    out
}

/// `pattern` with every `{placeholder}` replaced by a plain word, as the runners expand them
/// before compiling.
fn expand(pattern: &str) -> String {
    let mut expanded = String::new();
    let mut last = 0;
    for (start, end, _) in slicc_browsers::harness::runner::expand::tokens(pattern) {
        expanded.push_str(&pattern[last..start]);
        expanded.push_str("placeholder");
        last = end;
    }
    expanded.push_str(&pattern[last..]);
    expanded
}

#[test]
fn the_shipped_file_has_refusal_and_regex_patterns() {
    let all = patterns();
    let refusals = all.iter().filter(|p| p.2).count();
    assert!(refusals >= 50, "only {refusals} refusal.match patterns");
    assert!(all.len() > refusals, "no $regex predicate found");
}

#[test]
fn every_pattern_compiles_in_rust_and_refusals_match_refusal_texts() {
    for (path, pattern, refusal) in patterns() {
        assert!(
            !pattern.contains("(?"),
            "{path}: {pattern:?} uses a (?...) group, which JavaScript's RegExp lacks or reads differently"
        );
        let re = regex::Regex::new(&pattern)
            .unwrap_or_else(|e| panic!("{path}: {pattern:?} does not compile in Rust: {e}"));
        if refusal {
            for text in REFUSALS {
                assert!(re.is_match(text), "{path}: {pattern:?} misses {text:?}");
            }
            assert!(!re.is_match("ok"), "{path}: {pattern:?} matches \"ok\"");
        }
    }
}

#[test]
fn every_pattern_compiles_in_javascript_and_refusals_match_refusal_texts() {
    if needs::missing("node", needs::node()) {
        return;
    }
    let all = patterns();
    let input = serde_json::json!({
        "patterns": all.iter().map(|(p, s, r)| serde_json::json!([p, s, r])).collect::<Vec<_>>(),
        "refusals": REFUSALS,
    });
    const SCRIPT: &str = r#"
        const { patterns, refusals } = JSON.parse(process.argv[1]);
        const bad = [];
        let compiled = 0;
        for (const [path, pattern, refusal] of patterns) {
            let re;
            try { re = new RegExp(pattern); compiled++; }
            catch (e) { bad.push(`${path}: ${JSON.stringify(pattern)} does not compile: ${e.message}`); continue; }
            if (refusal) {
                for (const t of refusals) if (!re.test(t)) bad.push(`${path}: misses ${JSON.stringify(t)}`);
                if (re.test('ok')) bad.push(`${path}: matches "ok"`);
            }
        }
        console.log(JSON.stringify({ compiled, bad }));
    "#;
    let out = std::process::Command::new("node")
        .arg("-e")
        .arg(SCRIPT)
        .arg(input.to_string())
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "node failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("node prints JSON");
    let bad: Vec<&str> = report["bad"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(bad.is_empty(), "JavaScript RegExp:\n{}", bad.join("\n"));
    assert_eq!(report["compiled"].as_u64(), Some(all.len() as u64));
}
