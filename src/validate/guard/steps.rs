//! The step rules: V4, V5, V8, V9, S2, S3, S6, S7, the step half of S8, and the warnings
//! `as-unique-per-leg` and `settle-depends-on`.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{strings, Cx, Out};
use crate::vectors::{self as g, Flat, Legs, StepKind};

/// The CDP method a step runs: a `cdp` step's, an `answer`'s `cdp` or a `guess`'s `cdp` (V5
/// counts all three).
fn method(step: &Value) -> Option<&str> {
    step[StepKind::Cdp.as_str()]
        .as_str()
        .or(step[StepKind::Answer.as_str()]["cdp"].as_str())
        .or(step[StepKind::Guess.as_str()]["cdp"].as_str())
}

/// requires (V9): the capabilities a step must list, each with why, from the raw step (the
/// rule itself is [`g::capabilities_needed`]).
fn needed(step: &Value) -> Vec<(&'static str, &'static str)> {
    g::capabilities_needed(
        step[StepKind::Cdp.as_str()].as_str(),
        step.get(StepKind::Children.as_str()).is_some(),
        step["session"].as_str(),
    )
}

/// Whether the step is a `cdp` or `page` step (V4).
fn runnable(step: &Value) -> bool {
    [StepKind::Cdp, StepKind::Page]
        .iter()
        .any(|k| step.get(k.as_str()).is_some())
}

/// Every step rule of one vector.
pub(super) fn rules(cx: &Cx, out: &mut Out) {
    let steps = &cx.steps;
    // one-kind (S8, steps): exactly one kind.
    for s in steps {
        let kinds = s
            .step
            .as_object()
            .map(StepKind::kinds_in)
            .unwrap_or_default();
        if kinds.len() != 1 {
            let all: Vec<&str> = StepKind::ALL.iter().map(|k| k.as_str()).collect();
            let found: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
            out.add(
                cx,
                cx.step_at(s, &[]),
                "one-kind",
                format!("a step needs exactly one kind key of {all:?}, found {found:?}"),
            );
        }
    }
    // step-kinds (V4)
    match cx.v["kind"].as_str() {
        Some(g::KIND_CDP) if !steps.iter().any(|s| runnable(s.step)) => out.add(
            cx,
            cx.at(&["kind"]),
            "step-kinds",
            "a cdp vector needs a cdp or page step".into(),
        ),
        Some(g::KIND_TEXT) => {
            for s in steps.iter().filter(|s| runnable(s.step)) {
                out.add(
                    cx,
                    cx.step_at(s, &[]),
                    "step-kinds",
                    "a text vector has no cdp or page step".into(),
                );
            }
        }
        _ => {}
    }
    // control-runs-guarded-methods (V5)
    let control: BTreeSet<&str> = steps
        .iter()
        .filter(|s| s.legs.has(g::CONTROL))
        .filter_map(|s| method(s.step))
        .collect();
    for s in steps.iter().filter(|s| s.legs.has(g::GUARDED)) {
        if let Some(m) = method(s.step) {
            if !control.contains(m) {
                out.add(
                    cx,
                    cx.step_at(s, &[]),
                    "control-runs-guarded-methods",
                    format!("{m} runs on the guarded leg but never on the control leg"),
                );
            }
        }
    }
    refusals(cx, out);
    requires(cx, out);
    // hopped-needs-hops (S2)
    if cx.observe().is_some_and(|o| o.contains_key("hopped"))
        && !steps.iter().any(|s| s.step.get("hops").is_some())
    {
        out.add(
            cx,
            cx.at(&["observe", "hopped"]),
            "hopped-needs-hops",
            "an observation named hopped needs a step with hops".into(),
        );
    }
    shapes(cx, out);
    unique_names(cx, out);
}

/// refusable-refusal (S3), refusal-patterns, and depends-on (V8) with settle-depends-on.
fn refusals(cx: &Cx, out: &mut Out) {
    let steps = &cx.steps;
    let mut refusal_names = Vec::new();
    let mut first_refusable = None;
    for s in steps {
        let refusable = s.step.get("refusable");
        let refusal = s.step.get("refusal");
        if refusable.is_some() != refusal.is_some() {
            out.add(
                cx,
                cx.step_at(s, &[]),
                "refusable-refusal",
                "refusable and refusal must come together".into(),
            );
        }
        if (refusable.is_some() || refusal.is_some())
            && s.step.get(StepKind::Cdp.as_str()).is_none()
        {
            out.add(
                cx,
                cx.step_at(s, &[]),
                "refusable-refusal",
                "only cdp steps can be refusable".into(),
            );
        }
        if refusable.is_some_and(|r| r != true) {
            out.add(
                cx,
                cx.step_at(s, &[]),
                "refusable-refusal",
                "refusable can only be true".into(),
            );
        }
        if let Some(pattern) = refusal.and_then(|r| r["match"].as_str()) {
            super::regular_expression(
                cx,
                out,
                pattern,
                cx.step_at(s, &["refusal", "match"]),
                "refusal-patterns",
            );
        }
        if refusable == Some(&Value::Bool(true)) {
            first_refusable.get_or_insert(s.index);
            refusal_names.push(g::refusal_name(s.step["as"].as_str(), s.index));
        }
    }
    let known = |name: &str| refusal_names.iter().any(|r| r == name);
    let unknown = |d: &str| {
        format!("{d:?} is not the refusal name of a refusable step (those are {refusal_names:?})")
    };
    if let Some(observe) = cx.observe() {
        let early: BTreeSet<&str> = steps[..first_refusable.unwrap_or(0)]
            .iter()
            .filter_map(|s| s.step["as"].as_str())
            .collect();
        for (name, o) in observe {
            match o.get("dependsOn") {
                None if first_refusable.is_some() && !early.contains(name.as_str()) => out.add(
                    cx,
                    cx.at(&["observe", name]),
                    "depends-on",
                    format!(
                        "observation {name:?} needs dependsOn: the vector has a refusable step"
                    ),
                ),
                Some(list) => {
                    for (j, d) in strings(list).into_iter().enumerate() {
                        if !known(d) {
                            out.add(
                                cx,
                                cx.at(&["observe", name, "dependsOn", &j.to_string()]),
                                "depends-on",
                                unknown(d),
                            );
                        }
                    }
                }
                None => {}
            }
        }
    }
    for s in steps {
        let settle = &s.step[StepKind::Settle.as_str()];
        for (j, d) in strings(&settle["dependsOn"]).into_iter().enumerate() {
            if !known(d) {
                out.add(
                    cx,
                    cx.step_at(s, &["settle", "dependsOn", &j.to_string()]),
                    "settle-depends-on",
                    unknown(d),
                );
            }
        }
    }
}

/// requires (V9)
fn requires(cx: &Cx, out: &mut Out) {
    let mut union: BTreeSet<&str> = BTreeSet::new();
    for s in &cx.steps {
        let listed = strings(&s.step["requires"]);
        union.extend(listed.iter().copied());
        for (cap, why) in needed(s.step) {
            if !listed.contains(&cap) {
                out.add(
                    cx,
                    cx.step_at(s, &[]),
                    "requires",
                    format!("{why} needs requires: [{cap:?}]"),
                );
            }
        }
    }
    if let Some(observe) = cx.observe() {
        for o in observe.values() {
            union.extend(strings(&o["requires"]));
        }
    }
    let declared: BTreeSet<&str> = strings(&cx.v["requires"]).into_iter().collect();
    if declared != union || (cx.v.get("requires").is_some() && union.is_empty()) {
        out.add(
            cx,
            cx.at(&["requires"]),
            "requires",
            format!("requires must be the union of its steps' and observations' requires, {union:?} (absent when empty), not {declared:?}"),
        );
    }
}

/// children-where (S6) and step-shapes (S7).
fn shapes(cx: &Cx, out: &mut Out) {
    for s in &cx.steps {
        if let Some(w) = s.step.get("where") {
            let ok = match (w.get("openerId"), w.get("urlPrefix")) {
                // `openerId: "page"`: the row's page opened it.
                (Some(o), None) => o == "page",
                (None, Some(p)) => p.as_str().is_some_and(|p| !p.is_empty()),
                _ => false,
            };
            if !ok || w.as_object().is_some_and(|m| m.len() != 1) {
                out.add(
                    cx,
                    cx.step_at(s, &["where"]),
                    "children-where",
                    "where must be exactly {\"openerId\": \"page\"} or {\"urlPrefix\": …}".into(),
                );
            }
        }
        if let Some(settle) = s.step.get(StepKind::Settle.as_str()) {
            if settle.as_object().is_none_or(|m| m.is_empty()) {
                out.add(
                    cx,
                    cx.step_at(s, &["settle"]),
                    "step-shapes",
                    "settle needs at least one key".into(),
                );
            }
        }
        if let Some(guess) = s.step.get(StepKind::Guess.as_str()) {
            if s.step.get("as").is_none() {
                out.add(
                    cx,
                    cx.step_at(s, &[]),
                    "step-shapes",
                    "a guess step needs as".into(),
                );
            }
            if guess["between"].as_array().is_none_or(|b| b.len() != 2) {
                out.add(
                    cx,
                    cx.step_at(s, &["guess", "between"]),
                    "step-shapes",
                    "between needs exactly two URLs".into(),
                );
            }
        }
    }
}

/// as-unique-per-leg: two steps that run on a common leg never share an `as`. Steps on
/// different legs (`on: control` and `on: guarded`) may, as tags and cookie names do.
fn unique_names(cx: &Cx, out: &mut Out) {
    let mut seen: Vec<(&str, Legs, &Flat<'_, Value>)> = Vec::new();
    for s in &cx.steps {
        let Some(name) = s.step["as"].as_str() else {
            continue;
        };
        if let Some((_, _, first)) = seen
            .iter()
            .find(|(n, legs, _)| *n == name && legs.overlap(s.legs))
        {
            let legs: Vec<&str> = [g::CONTROL, g::GUARDED]
                .into_iter()
                .filter(|l| first.legs.has(l) && s.legs.has(l))
                .collect();
            out.add(
                cx,
                cx.step_at(s, &["as"]),
                "as-unique-per-leg",
                format!(
                    "{name:?} also names {} on the {} leg{}",
                    cx.step_at(first, &[]),
                    legs.join(" and "),
                    if legs.len() > 1 { "s" } else { "" }
                ),
            );
        }
        seen.push((name, s.legs, s));
    }
}
