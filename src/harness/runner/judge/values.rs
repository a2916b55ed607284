//! JSON helpers of the checks: a value at a dotted path, a cookie with a matching domain, a URL
//! with a prefix, at any depth.

use serde_json::Value;

/// The value a named outcome is read at: at a dotted `path`, resolved against the whole outcome
/// `{ok, result, …}` ([`at_path`]); without a path, the outcome's `value` when it carries one
/// (a page action's evaluated value, a guess's attempts), else the whole outcome (issue 21,
/// reading 2: "a check with no path keeps today's meaning").
pub(super) fn outcome_at<'v>(outcome: &'v Value, path: Option<&str>) -> Option<&'v Value> {
    if path.is_some_and(|p| !p.is_empty()) {
        return at_path(outcome, path);
    }
    match outcome {
        Value::Object(m) if m.contains_key("ok") && m.contains_key("value") => m.get("value"),
        other => Some(other),
    }
}

/// The value at a dotted path (numbers index arrays); the whole value without a path.
pub(super) fn at_path<'v>(value: &'v Value, path: Option<&str>) -> Option<&'v Value> {
    let Some(path) = path.filter(|p| !p.is_empty()) else {
        return Some(value);
    };
    path.split('.').try_fold(value, |v, seg| match v {
        Value::Object(m) => m.get(seg),
        Value::Array(a) => seg.parse::<usize>().ok().and_then(|i| a.get(i)),
        _ => None,
    })
}

/// Whether a value holds, at any depth, an object named `name` with a `domain` matching `on`'s
/// host (any domain without `on`).
pub(super) fn has_cookie(value: &Value, name: &str, on: Option<&str>) -> bool {
    crate::json::any(value, &mut |v| {
        v.as_object().is_some_and(|m| {
            m.get("name").and_then(Value::as_str) == Some(name)
                && m.get("domain").and_then(Value::as_str).is_some_and(|d| {
                    on.is_none_or(|o| {
                        crate::harness::runner::expand::host_of(o)
                            .is_some_and(|host| domain_matches(d, host))
                    })
                })
        })
    })
}

pub(super) fn domain_matches(domain: &str, host: &str) -> bool {
    let domain = domain.to_ascii_lowercase();
    let host = host.to_ascii_lowercase();
    match domain.strip_prefix('.') {
        Some(d) => host == d || host.ends_with(&format!(".{d}")),
        None => host == domain,
    }
}

/// Whether a value holds, at any depth, a `url` or `documentURL` string starting with `prefix`.
pub(super) fn has_url_with_prefix(value: &Value, prefix: &str) -> bool {
    crate::json::any(value, &mut |v| {
        v.as_object().is_some_and(|m| {
            ["url", "documentURL"].iter().any(|k| {
                m.get(*k)
                    .and_then(Value::as_str)
                    .is_some_and(|s| s.starts_with(prefix))
            })
        })
    })
}
