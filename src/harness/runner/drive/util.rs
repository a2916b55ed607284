//! Small pieces the driver's parts share: outcomes of calls, the stand-in log's URLs, request
//! ids.

use serde_json::{json, Value};

use super::MAX_GUESSES;
use crate::harness::runner::record::Recorded;
use crate::harness::runner::transport::CallError;

pub(super) use crate::sys::lock;

/// A CDP answer as an outcome value: `{ok: true, result}` or `{ok: false, error: {code,
/// message}}`; a timeout or a broken transport is no value.
pub(super) fn call_outcome(answer: &Result<Value, CallError>) -> Recorded {
    match answer {
        Ok(result) => Recorded::Value(json!({ "ok": true, "result": result })),
        Err(CallError::Protocol { code, message }) => Recorded::Value(json!({
            "ok": false,
            "error": { "code": code, "message": message },
        })),
        Err(e) => Recorded::Failed(e.to_string()),
    }
}

/// The outcome of a `Runtime.evaluate` by value: its value, or no value for an exception, a
/// timeout or an error.
pub(super) fn eval_outcome(answer: Result<Value, CallError>) -> Recorded {
    match answer {
        Ok(result) => {
            if let Some(details) = result.get("exceptionDetails") {
                let text = details
                    .pointer("/exception/description")
                    .and_then(Value::as_str)
                    .or_else(|| details.get("text").and_then(Value::as_str))
                    .unwrap_or("exception");
                Recorded::Failed(format!("evaluation threw: {text}"))
            } else {
                Recorded::Value(
                    result
                        .pointer("/result/value")
                        .cloned()
                        .unwrap_or(Value::Null),
                )
            }
        }
        Err(e) => Recorded::Failed(e.to_string()),
    }
}

/// The outcome of a page action (`fetch`, `xhr`, `image`, `eval`, and the navigating ones),
/// run as a `Runtime.evaluate` by value: the `cdp` step's shape `{ok: true, result: <the
/// evaluation's answer>, value}`, where `value` is the evaluated value (a fetch's body at
/// `result.result.value`); a protocol error is `{ok: false, error: {code, message}}`. An
/// exception, a timeout or a broken transport is no value (issue 21, reading 2).
pub(super) fn page_outcome(answer: Result<Value, CallError>) -> Recorded {
    match answer {
        Ok(result) => match eval_outcome(Ok(result.clone())) {
            Recorded::Value(value) => {
                Recorded::Value(json!({ "ok": true, "result": result, "value": value }))
            }
            other => other,
        },
        Err(e @ CallError::Protocol { .. }) => call_outcome(&Err(e)),
        Err(e) => Recorded::Failed(e.to_string()),
    }
}

/// Whether an outcome is an answered call (`ok` is not `false`, or a value of another shape).
pub(super) fn answered(outcome: &Recorded) -> bool {
    match outcome {
        Recorded::Value(v) => v.get("ok") != Some(&Value::Bool(false)),
        _ => false,
    }
}

/// The error text of an outcome that is not [`answered`].
pub(super) fn failure_text(outcome: &Recorded) -> String {
    match outcome {
        Recorded::Value(v) => v
            .pointer("/error/message")
            .and_then(Value::as_str)
            .unwrap_or("error")
            .to_string(),
        Recorded::Failed(e) => e.clone(),
        Recorded::Pending => "pending".into(),
    }
}

/// Whether an error reads like the session is gone.
pub(super) fn session_gone(error: &CallError) -> bool {
    match error {
        CallError::Protocol { message, .. } => {
            let m = message.to_ascii_lowercase();
            m.contains("session with given id not found")
                || m.contains("no session with given id")
                || m.contains("target closed")
                || m.contains("session closed")
        }
        _ => false,
    }
}

/// The request ids strictly between `a` and `b`: the two must differ in one run of digits
/// (Chromium's `interception-job-<n>.0`), and each number between them gives an id. At most
/// `MAX_GUESSES`.
pub fn ids_between(a: &str, b: &str) -> Vec<String> {
    fn runs(s: &str) -> Vec<(bool, &str)> {
        let mut out = Vec::new();
        let mut start = 0;
        let bytes = s.as_bytes();
        for i in 1..=bytes.len() {
            if i == bytes.len() || bytes[i].is_ascii_digit() != bytes[start].is_ascii_digit() {
                out.push((bytes[start].is_ascii_digit(), &s[start..i]));
                start = i;
            }
        }
        out
    }
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    let (ra, rb) = (runs(a), runs(b));
    if ra.len() != rb.len() {
        return Vec::new();
    }
    let differing: Vec<usize> = (0..ra.len()).filter(|&i| ra[i] != rb[i]).collect();
    let [i] = differing.as_slice() else {
        return Vec::new();
    };
    let (Ok(x), Ok(y)) = (ra[*i].1.parse::<u64>(), rb[*i].1.parse::<u64>()) else {
        return Vec::new();
    };
    if !ra[*i].0 {
        return Vec::new();
    }
    let (lo, hi) = (x.min(y), x.max(y));
    (lo + 1..hi)
        .take(usize::try_from(MAX_GUESSES).unwrap_or(64))
        .map(|n| {
            ra.iter()
                .enumerate()
                .map(|(j, (_, text))| {
                    if j == *i {
                        n.to_string()
                    } else {
                        (*text).to_string()
                    }
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_between_counts_the_differing_number() {
        assert_eq!(
            ids_between("interception-job-5.0", "interception-job-8.0"),
            ["interception-job-6.0", "interception-job-7.0"]
        );
        assert_eq!(
            ids_between("interception-job-9.0", "interception-job-7.0"),
            ["interception-job-8.0"]
        );
        assert!(ids_between("interception-job-5.0", "interception-job-6.0").is_empty());
        assert!(ids_between("a-1.0", "b-3.0").is_empty(), "two parts differ");
        assert!(ids_between("", "x").is_empty());
        assert_eq!(ids_between("j-1", "j-1000").len(), 64, "bounded");
    }

    #[test]
    fn outcomes_of_calls_and_evaluations() {
        let ok = call_outcome(&Ok(json!({"x": 1})));
        assert_eq!(ok, Recorded::Value(json!({"ok": true, "result": {"x": 1}})));
        let refused = call_outcome(&Err(CallError::Protocol {
            code: -32000,
            message: "no".into(),
        }));
        assert_eq!(
            refused,
            Recorded::Value(json!({"ok": false, "error": {"code": -32000, "message": "no"}}))
        );
        assert!(matches!(
            call_outcome(&Err(CallError::Timeout)),
            Recorded::Failed(_)
        ));
        let thrown = eval_outcome(Ok(
            json!({"result": {}, "exceptionDetails": {"text": "boom"}}),
        ));
        assert_eq!(thrown, Recorded::Failed("evaluation threw: boom".into()));
        assert_eq!(
            eval_outcome(Ok(json!({"result": {"value": 3}}))),
            Recorded::Value(json!(3))
        );
    }
}
