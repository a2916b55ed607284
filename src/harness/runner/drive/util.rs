//! Small pieces the driver's parts share: outcomes of calls, the stand-in log's URLs, request
//! ids.

use std::sync::{Mutex, MutexGuard};

use serde_json::{json, Value};

use super::MAX_GUESSES;
use crate::harness::runner::record::{LogEntry, Outcome};
use crate::harness::runner::transport::CallError;

/// Decodes `%XX` escapes and `+` (as a space) of a query component.
pub fn decode_component(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(b) => {
                        out.push(b);
                        i += 3;
                    }
                    None => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A logged URL's path (`/beacon`) and decoded query parameters.
pub fn split_url(url: &str) -> (String, Vec<(String, String)>) {
    let after_scheme = url.split_once("://").map_or(url, |(_, r)| r);
    let path_and_query = after_scheme.find('/').map_or("/", |i| &after_scheme[i..]);
    let path_and_query = path_and_query
        .split_once('#')
        .map_or(path_and_query, |(p, _)| p);
    let (path, query) = path_and_query
        .split_once('?')
        .unwrap_or((path_and_query, ""));
    let params = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode_component(k), decode_component(v))
        })
        .collect();
    (path.to_string(), params)
}

/// Whether a logged request is a beacon tagged `tag` from `origin`.
pub fn is_beacon(entry: &LogEntry, tag: &str, origin: &str) -> bool {
    let (path, params) = split_url(&entry.url);
    path == "/beacon"
        && params.iter().any(|(k, v)| k == "tag" && v == tag)
        && params.iter().any(|(k, v)| k == "origin" && v == origin)
}

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A CDP answer as an outcome value: `{ok: true, result}` or `{ok: false, error: {code,
/// message}}`; a timeout or a broken transport is no value.
pub(super) fn call_outcome(answer: &Result<Value, CallError>) -> Outcome {
    match answer {
        Ok(result) => Outcome::Value(json!({ "ok": true, "result": result })),
        Err(CallError::Protocol { code, message }) => Outcome::Value(json!({
            "ok": false,
            "error": { "code": code, "message": message },
        })),
        Err(e) => Outcome::Failed(e.to_string()),
    }
}

/// The outcome of a `Runtime.evaluate` by value: its value, or no value for an exception, a
/// timeout or an error.
pub(super) fn eval_outcome(answer: Result<Value, CallError>) -> Outcome {
    match answer {
        Ok(result) => {
            if let Some(details) = result.get("exceptionDetails") {
                let text = details
                    .pointer("/exception/description")
                    .and_then(Value::as_str)
                    .or_else(|| details.get("text").and_then(Value::as_str))
                    .unwrap_or("exception");
                Outcome::Failed(format!("evaluation threw: {text}"))
            } else {
                Outcome::Value(
                    result
                        .pointer("/result/value")
                        .cloned()
                        .unwrap_or(Value::Null),
                )
            }
        }
        Err(e) => Outcome::Failed(e.to_string()),
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
    fn beacons_are_read_from_the_query() {
        let entry = |url: &str| LogEntry {
            url: url.into(),
            method: "POST".into(),
            headers: Default::default(),
            time: 0,
        };
        let b = entry("http://log.test/beacon?tag=t1&origin=http%3A%2F%2Fa.test&href=x");
        assert!(is_beacon(&b, "t1", "http://a.test"));
        assert!(!is_beacon(&b, "t2", "http://a.test"));
        assert!(!is_beacon(&b, "t1", "http://b.test"));
        assert!(!is_beacon(
            &entry("http://log.test/live?tag=t1&origin=http%3A%2F%2Fa.test"),
            "t1",
            "http://a.test"
        ));
        assert_eq!(
            split_url("http://h/p?a=%41+b&c").1,
            [("a".into(), "A b".into()), ("c".into(), String::new())]
        );
        assert_eq!(decode_component("%zz%4"), "%zz%4");
    }

    #[test]
    fn outcomes_of_calls_and_evaluations() {
        let ok = call_outcome(&Ok(json!({"x": 1})));
        assert_eq!(ok, Outcome::Value(json!({"ok": true, "result": {"x": 1}})));
        let refused = call_outcome(&Err(CallError::Protocol {
            code: -32000,
            message: "no".into(),
        }));
        assert_eq!(
            refused,
            Outcome::Value(json!({"ok": false, "error": {"code": -32000, "message": "no"}}))
        );
        assert!(matches!(
            call_outcome(&Err(CallError::Timeout)),
            Outcome::Failed(_)
        ));
        let thrown = eval_outcome(Ok(
            json!({"result": {}, "exceptionDetails": {"text": "boom"}}),
        ));
        assert_eq!(thrown, Outcome::Failed("evaluation threw: boom".into()));
        assert_eq!(
            eval_outcome(Ok(json!({"result": {"value": 3}}))),
            Outcome::Value(json!(3))
        );
    }
}
