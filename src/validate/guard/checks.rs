//! The check rules: S4, S5, the check half of S8, compare's two names (S7), the names checks
//! read, refusal patterns and predicates.

use regex::Regex;
use serde_json::Value;

use super::{Cx, Out};
use crate::guard::{CheckKind, Observer};

/// Every check rule of one vector.
pub(super) fn rules(cx: &Cx, out: &mut Out) {
    if let Some(observe) = cx.observe() {
        for (name, o) in observe {
            visit(
                cx,
                out,
                &o["check"],
                cx.at(&["observe", name, "check"]),
                false,
            );
            if let Some(when) = o.get("eitherWhen") {
                visit(
                    cx,
                    out,
                    when,
                    cx.at(&["observe", name, "eitherWhen"]),
                    false,
                );
            }
        }
    }
    if let Some(live) = cx.v.get("liveCheck") {
        visit(cx, out, live, cx.at(&["liveCheck"]), true);
    }
}

/// Checks one check and its operands; `live` is true inside a liveCheck.
fn visit(cx: &Cx, out: &mut Out, check: &Value, path: String, live: bool) {
    let Some(map) = check.as_object() else {
        out.add(cx, path, "one-kind", "a check must be an object".into());
        return;
    };
    let kinds = CheckKind::kinds_in(map);
    let [kind] = kinds.as_slice() else {
        let names: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
        out.add(
            cx,
            path,
            "one-kind",
            format!("a check needs exactly one kind key, found {names:?}"),
        );
        return;
    };
    let kind = *kind;
    let key = kind.as_str();
    let at = |member: &str| format!("{path}{}", super::pointer([member]));

    // S8: the kind's observer, and via: unguarded where the kind needs it.
    let observer = check
        .get("observer")
        .and_then(|o| o.as_str().and_then(Observer::from_key));
    if !observer.is_some_and(|o| kind.observers().contains(&o)) {
        let allowed: Vec<String> = kind
            .observers()
            .iter()
            .map(|o| o.as_str().to_string())
            .collect();
        out.add(
            cx,
            at("observer"),
            "observers",
            format!("a {key} check declares observer {}", allowed.join(" or ")),
        );
    }
    if matches!(kind, CheckKind::Title | CheckKind::Expression) && check["via"] != "unguarded" {
        out.add(
            cx,
            at("via"),
            "observers",
            format!("a {key} check needs via: \"unguarded\""),
        );
    }
    // S4
    if live {
        if kind.is_diagnostic() {
            out.add(
                cx,
                path.clone(),
                "live-check-proofs",
                format!("{key} is diagnostic, never a liveness proof"),
            );
        }
        if check["on"] == "control" {
            out.add(
                cx,
                at("on"),
                "live-check-proofs",
                "a liveCheck node never has on: control".into(),
            );
        }
    }
    // S5
    if matches!(
        kind,
        CheckKind::Blocked | CheckKind::History | CheckKind::FrameBlocked
    ) {
        let spec = &check[key];
        if spec.get("url").is_some() == spec.get("anyOf").is_some() {
            out.add(
                cx,
                at(key),
                "block-spec",
                "a block spec has exactly one of url and anyOf".into(),
            );
        }
        if spec
            .get("session")
            .is_some_and(|s| s != "page" && s != "child")
        {
            out.add(
                cx,
                at(key),
                "block-spec",
                "a block spec's session is page or child".into(),
            );
        }
    }
    // S7: compare names two outcomes.
    if kind == CheckKind::Compare && check[key].as_array().is_none_or(|a| a.len() != 2) {
        out.add(
            cx,
            at(key),
            "step-shapes",
            "compare needs exactly two names".into(),
        );
    }
    // The names a check reads are `as` names of the vector's steps.
    let names = cx.names();
    let mut read: Vec<(String, &str)> = Vec::new();
    fn call_names<'v>(read: &mut Vec<(String, &'v str)>, v: &'v Value, p: String) {
        if let Some(a) = v.as_array() {
            for (i, n) in a.iter().enumerate() {
                if let Some(n) = n.as_str() {
                    read.push((format!("{p}/{i}"), n));
                }
            }
        }
    }
    match kind {
        CheckKind::Refused | CheckKind::Reached | CheckKind::Compare => {
            call_names(&mut read, &check[key], at(key))
        }
        CheckKind::Filtered => {
            call_names(&mut read, &check[key]["from"], format!("{}/from", at(key)))
        }
        CheckKind::Result => {
            if let Some(n) = check[key].as_str() {
                read.push((at(key), n));
            }
        }
        CheckKind::Cookie => {
            if let Some(n) = check["from"].as_str() {
                read.push((at("from"), n));
            }
        }
        _ => {}
    }
    for (p, n) in read {
        if !names.contains(n) {
            out.add(
                cx,
                p,
                "call-names",
                format!("{n:?} is not the as of a step of this vector"),
            );
        }
    }
    if let Some(pattern) = check["refusal"]["match"].as_str() {
        if let Err(e) = Regex::new(pattern) {
            out.add(
                cx,
                format!("{}/match", at("refusal")),
                "refusal-patterns",
                format!("{pattern:?} does not compile: {e}"),
            );
        }
    }
    for member in ["equals", "where"] {
        if let Some(p) = check.get(member) {
            predicate(cx, out, p, at(member));
        }
    }
    match kind {
        CheckKind::All | CheckKind::Any => {
            for (i, operand) in check[key]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or(&[])
                .iter()
                .enumerate()
            {
                visit(cx, out, operand, format!("{}/{i}", at(key)), live);
            }
        }
        CheckKind::Not => visit(cx, out, &check[key], at(key), live),
        _ => {}
    }
}

/// A `{name}` placeholder, compiled once.
fn placeholder_token() -> &'static Regex {
    static TOKEN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    TOKEN.get_or_init(|| Regex::new(r"\{[A-Za-z][A-Za-z-]*\}").expect("a valid pattern"))
}

/// The operators a predicate object may use.
const OPERATORS: [&str; 5] = ["$contains", "$regex", "$some", "$every", "$encoded"];

/// Checks a predicate: no arrays, known operators, compiling `$regex`, a well-formed `$encoded`.
fn predicate(cx: &Cx, out: &mut Out, p: &Value, path: String) {
    match p {
        Value::Array(_) => out.add(
            cx,
            path,
            "predicates",
            "an array is not a predicate: use $some or $every".into(),
        ),
        Value::Object(m) => {
            for (k, v) in m {
                let here = format!("{path}{}", super::pointer([k]));
                match k.as_str() {
                    "$contains" if !v.is_string() => {
                        out.add(cx, here, "predicates", "$contains takes a string".into())
                    }
                    "$regex" => match v.as_str() {
                        Some(r) => {
                            // Placeholders are expanded before the pattern is used.
                            let expanded = placeholder_token().replace_all(r, "placeholder");
                            if let Err(e) = Regex::new(&expanded) {
                                out.add(
                                    cx,
                                    here,
                                    "predicates",
                                    format!("$regex {r:?} does not compile: {e}"),
                                );
                            }
                        }
                        None => out.add(cx, here, "predicates", "$regex takes a string".into()),
                    },
                    "$encoded" => {
                        let ok = v.as_object().is_some_and(|e| {
                            e["value"].is_string()
                                && e.get("prefix").is_none_or(Value::is_string)
                                && e.keys().all(|k| k == "value" || k == "prefix")
                        });
                        if !ok {
                            out.add(
                                cx,
                                here,
                                "predicates",
                                "$encoded is {value, prefix?} with strings".into(),
                            );
                        }
                    }
                    k if k.starts_with('$') && !OPERATORS.contains(&k) => out.add(
                        cx,
                        here,
                        "predicates",
                        format!("{k} is not a predicate operator ({OPERATORS:?})"),
                    ),
                    _ => predicate(cx, out, v, here),
                }
            }
        }
        _ => {}
    }
}
