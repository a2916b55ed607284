//! The guard policy (`guard::policy`) on CDP message traces, one or more per family of the
//! guard vectors (the attack refused or filtered, the control forwarded), and property tests:
//! no message naming a protected target, cookie or storage key reaches the client unfiltered.
#![cfg(feature = "guard")]

use std::path::Path;

use serde_json::Value;
use slicc_browsers::guard::policy::{Output, Policy, Verdict};
use slicc_browsers::protected::Matcher;

/// The extra origin the traces use for the `own` target (the client page's origin).
const OWN: &str = "http://127.0.0.1:5710";

fn matcher() -> Matcher {
    Matcher::new(&slicc_browsers::shared_catalog().protected_origins, &[OWN]).unwrap()
}

fn verdict(name: &str) -> Verdict {
    match name {
        "Forward" => Verdict::Forward,
        "Rewrite" => Verdict::Rewrite,
        "Refuse" => Verdict::Refuse,
        "Answer" => Verdict::Answer,
        "Drop" => Verdict::Drop,
        "Hold" => Verdict::Hold,
        "Own" => Verdict::Own,
        "Invalid" => Verdict::Invalid,
        other => panic!("unknown verdict {other:?} in a trace"),
    }
}

/// Runs a trace file: each line is `{"c": frame}` (from the client), `{"b": frame}` (from the
/// browser) or `{"tick": ms}`, with what must come of it: `expect` (the verdict), and
/// `client`/`browser` (substrings some frame sent that way must contain), `no_client`/
/// `no_browser` (substrings no frame may contain), `clients`/`browsers` (frame counts).
/// Returns the number of lines run.
fn run_trace(name: &str) -> usize {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/guard_policy")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut policy = Policy::new(matcher());
    let mut now = 0u64;
    let mut lines = 0;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        let at = format!("{name}:{}", n + 1);
        let step: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{at}: {e}"));
        now = step.get("t").and_then(Value::as_u64).unwrap_or(now + 1);
        let out: Output = if let Some(f) = step.get("c") {
            let frame = if let Some(s) = f.as_str() {
                s.to_string()
            } else {
                f.to_string()
            };
            policy.from_client(&frame, now)
        } else if let Some(f) = step.get("b") {
            let frame = if let Some(s) = f.as_str() {
                s.to_string()
            } else {
                f.to_string()
            };
            policy.from_browser(&frame, now)
        } else if let Some(t) = step.get("tick").and_then(Value::as_u64) {
            now = t;
            policy.tick(now)
        } else {
            panic!("{at}: a step needs c, b or tick");
        };
        check(&at, &step, &out);
        lines += 1;
    }
    lines
}

fn strings(step: &Value, key: &str) -> Vec<String> {
    match step.get(key) {
        None => Vec::new(),
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a)) => a.iter().map(|s| s.as_str().unwrap().to_string()).collect(),
        Some(other) => panic!("{key} must be a string or a list, not {other}"),
    }
}

fn check(at: &str, step: &Value, out: &Output) {
    if let Some(v) = step.get("expect").and_then(Value::as_str) {
        assert_eq!(
            out.verdict,
            verdict(v),
            "{at}: verdict ({}); output {out:#?}",
            out.why
        );
    }
    for (key, frames) in [("client", &out.to_client), ("browser", &out.to_browser)] {
        for want in strings(step, key) {
            assert!(
                frames.iter().any(|f| f.contains(&want)),
                "{at}: no {key} frame contains {want:?}; output {out:#?}"
            );
        }
        for bad in strings(step, &format!("no_{key}")) {
            assert!(
                !frames.iter().any(|f| f.contains(&bad)),
                "{at}: a {key} frame contains {bad:?}; output {out:#?}"
            );
        }
        if let Some(n) = step.get(format!("{key}s")).and_then(Value::as_u64) {
            assert_eq!(
                frames.len() as u64,
                n,
                "{at}: {key} frames; output {out:#?}"
            );
        }
    }
}

#[test]
fn c1_navigation_to_a_protected_document_is_blocked_before_it_commits() {
    assert!(run_trace("c1.jsonl") > 20);
}
