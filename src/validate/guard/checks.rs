//! The check rules: S4, S5, the check half of S8, compare's two names (S7), the names checks
//! read, refusal patterns and predicates, and the warning `predicate-operators`.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{Cx, Out};
use crate::json::child;
use crate::vectors::{Check, CheckKind, Observer, CONTROL, SESSION_CHILD, SESSION_PAGE};

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
    let at = |member: &str| child(&path, member);

    // observers (S8): the kind's observer, and via: unguarded where the kind needs it.
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
    if matches!(kind, CheckKind::Title | CheckKind::Expression)
        && check["via"] != Observer::Unguarded.as_str()
    {
        out.add(
            cx,
            at("via"),
            "observers",
            format!("a {key} check needs via: \"unguarded\""),
        );
    }
    // live-check-proofs (S4)
    if live {
        if kind.is_diagnostic() {
            out.add(
                cx,
                path.clone(),
                "live-check-proofs",
                format!("{key} is diagnostic, never a liveness proof"),
            );
        }
        if check["on"] == CONTROL {
            out.add(
                cx,
                at("on"),
                "live-check-proofs",
                "a liveCheck node never has on: control".into(),
            );
        }
    }
    // block-spec (S5)
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
            .is_some_and(|s| s != SESSION_PAGE && s != SESSION_CHILD)
        {
            out.add(
                cx,
                at(key),
                "block-spec",
                "a block spec's session is page or child".into(),
            );
        }
    }
    // step-shapes (S7): compare names two outcomes.
    if kind == CheckKind::Compare && check[key].as_array().is_none_or(|a| a.len() != 2) {
        out.add(
            cx,
            at(key),
            "step-shapes",
            "compare needs exactly two names".into(),
        );
    }
    // call-names: the names a check reads are `as` names of the vector's steps.
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
        CheckKind::Filtered => call_names(&mut read, &check[key]["from"], child(&at(key), "from")),
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
    // refused-refusable (warning): our reading before issue 29 recorded refusals of refusable
    // steps only.
    if kind == CheckKind::Refused {
        let refusable: BTreeSet<&str> = cx
            .steps
            .iter()
            .filter(|s| s.step["refusable"] == true)
            .filter_map(|s| s.step["as"].as_str())
            .collect();
        for (p, n) in &read {
            if names.contains(n) && !refusable.contains(n) {
                out.add(
                    cx,
                    p.clone(),
                    "refused-refusable",
                    format!("{key} names {n:?}, a step that is not refusable"),
                );
            }
        }
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
    // refusal-patterns
    if let Some(pattern) = check["refusal"]["match"].as_str() {
        super::regular_expression(
            cx,
            out,
            pattern,
            child(&at("refusal"), "match"),
            "refusal-patterns",
        );
    }
    for member in ["equals", "where"] {
        if let Some(p) = check.get(member) {
            predicate(cx, out, p, at(member));
        }
    }
    for (under, operand) in Check::json_operands(kind, check) {
        visit(cx, out, operand, format!("{path}{under}"), live);
    }
}

/// The operators a predicate object may use.
const OPERATORS: [&str; 5] = ["$contains", "$regex", "$some", "$every", "$encoded"];

/// predicates: no arrays, `$contains` a string, `$encoded` well formed, `$regex` a regular
/// expression; and the warning predicate-operators for an unknown `$` key.
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
                let here = child(&path, k);
                match k.as_str() {
                    "$contains" if !v.is_string() => {
                        out.add(cx, here, "predicates", "$contains takes a string".into())
                    }
                    "$regex" => match v.as_str() {
                        Some(r) => super::regular_expression(cx, out, r, here, "predicates"),
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
                    k if k.starts_with('$') && !OPERATORS.contains(&k) => {
                        out.add(
                            cx,
                            here.clone(),
                            "predicate-operators",
                            format!("{k} is not a predicate operator ({OPERATORS:?}): it matches a member named {k:?}"),
                        );
                        predicate(cx, out, v, here)
                    }
                    _ => predicate(cx, out, v, here),
                }
            }
        }
        _ => {}
    }
}
