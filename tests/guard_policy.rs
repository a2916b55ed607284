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
/// browser), `{"tick": ms}` or `{"include": file}`, with what must come of it: `expect` (the
/// verdict), and `client`/`browser` (substrings some frame sent that way must contain),
/// `no_client`/`no_browser` (substrings no frame may contain), `clients`/`browsers` (frame
/// counts). Returns the number of steps run.
fn run_trace(name: &str) -> usize {
    let mut policy = Policy::new(matcher());
    let mut now = 0u64;
    run_lines(&mut policy, name, &mut now)
}

fn read_trace(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/guard_policy")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn frame_text(f: &Value) -> String {
    match f.as_str() {
        Some(s) => s.to_string(),
        None => f.to_string(),
    }
}

fn run_lines(policy: &mut Policy, name: &str, now: &mut u64) -> usize {
    let text = read_trace(name);
    let mut steps = 0;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        let at = format!("{name}:{}", n + 1);
        let step: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{at}: {e}"));
        if let Some(inc) = step.get("include").and_then(Value::as_str) {
            steps += run_lines(policy, inc, now);
            continue;
        }
        *now = step.get("t").and_then(Value::as_u64).unwrap_or(*now + 1);
        let out: Output = if let Some(f) = step.get("c") {
            policy.from_client(&frame_text(f), *now)
        } else if let Some(f) = step.get("b") {
            policy.from_browser(&frame_text(f), *now)
        } else if let Some(t) = step.get("tick").and_then(Value::as_u64) {
            *now = t;
            policy.tick(t)
        } else {
            panic!("{at}: a step needs c, b, tick or include");
        };
        check(&at, &step, &out);
        steps += 1;
    }
    steps
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

#[test]
fn c2_redirect_hops_to_a_protected_origin_are_stopped_and_hidden() {
    assert!(run_trace("c2.jsonl") > 20);
}

#[test]
fn c3_protected_targets_are_never_listed_attached_or_named() {
    assert!(run_trace("c3.jsonl") > 40);
}

#[test]
fn c4_frames_on_protected_origins_are_blocked_or_cost_the_session() {
    assert!(run_trace("c4.jsonl") > 15);
}

#[test]
fn c5_protected_requests_are_answered_by_the_guard_and_guessed_ids_refused() {
    assert!(run_trace("c5.jsonl") > 30);
}

#[test]
fn c6_protected_cookies_and_storage_are_refused_or_filtered() {
    assert!(run_trace("c6.jsonl") > 40);
}

#[test]
fn e_instrumentation_never_reaches_a_protected_document() {
    assert!(run_trace("e.jsonl") > 30);
}

#[test]
fn b_browser_level_reads_and_writes_are_refused_or_filtered() {
    assert!(run_trace("b.jsonl") > 25);
}
