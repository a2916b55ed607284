//! The step rules: V4, V5, V8, V9, S2, S3, S6, S7 and the step half of S8.

use std::collections::BTreeSet;

use regex::Regex;
use serde_json::Value;

use super::{Cx, Out};
use crate::guard::StepKind;

/// The capabilities, in the order the format lists them.
pub(super) const CAPS: [&str; 3] = ["autoAttach", "browserSession", "browserContexts"];

/// One step of a vector, flattened in refusal-name order.
pub(super) struct Flat<'a> {
    /// The step.
    pub step: &'a Value,
    /// Its pointer in the file.
    pub path: String,
    /// The leg it runs on: its own `on`, else its `children` step's (`None`: both).
    pub leg: Option<&'a str>,
}

/// The vector's steps: `setup` then `trigger`, each `children` step followed by its own steps.
pub(super) fn flatten<'a>(v: &'a Value, base: &str) -> Vec<Flat<'a>> {
    fn go<'a>(steps: &'a Value, path: String, leg: Option<&'a str>, out: &mut Vec<Flat<'a>>) {
        for (i, step) in steps
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or(&[])
            .iter()
            .enumerate()
        {
            let here = format!("{path}/{i}");
            let leg = step["on"].as_str().or(leg);
            out.push(Flat {
                step,
                path: here.clone(),
                leg,
            });
            if step.get("children").is_some() {
                go(&step["children"], format!("{here}/children"), leg, out);
            }
        }
    }
    let mut out = Vec::new();
    go(&v["setup"], format!("{base}/setup"), None, &mut out);
    go(&v["trigger"], format!("{base}/trigger"), None, &mut out);
    out
}

/// The CDP methods a step runs: a `cdp` step's, an `answer`'s `cdp` and a `guess`'s `cdp`.
fn method(step: &Value) -> Option<&str> {
    step["cdp"]
        .as_str()
        .or(step["answer"]["cdp"].as_str())
        .or(step["guess"]["cdp"].as_str())
}

/// The capabilities a step must list.
fn needed(step: &Value) -> Vec<(&'static str, &'static str)> {
    let mut out = Vec::new();
    let m = step["cdp"].as_str();
    if m == Some("Target.setAutoAttach") {
        out.push(("autoAttach", "Target.setAutoAttach"));
    }
    if step.get("children").is_some() {
        out.push(("autoAttach", "a children step"));
    }
    match step["session"].as_str() {
        Some("child") => out.push(("autoAttach", "session: child")),
        Some("browser") => out.push(("browserSession", "session: browser")),
        Some("page-or-browser")
            if m.is_some() && step["params"].get("browserContextId").is_some() =>
        {
            out.push((
                "browserSession",
                "a page-or-browser call with a browserContextId",
            ))
        }
        _ => {}
    }
    if matches!(
        m,
        Some("Target.createBrowserContext" | "Target.disposeBrowserContext")
    ) {
        out.push((
            "browserContexts",
            "Target.createBrowserContext and Target.disposeBrowserContext",
        ));
    }
    out
}

fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// Every step rule of one vector.
pub(super) fn rules(cx: &Cx, out: &mut Out) {
    let steps = &cx.steps;
    // S8 (steps): exactly one kind.
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
                s.path.clone(),
                "one-kind",
                format!("a step needs exactly one kind key of {all:?}, found {found:?}"),
            );
        }
    }
    // V4
    let runnable = steps
        .iter()
        .any(|s| s.step.get("cdp").is_some() || s.step.get("page").is_some());
    match cx.v["kind"].as_str() {
        Some("cdp") if !runnable => out.add(
            cx,
            cx.at(&["kind"]),
            "step-kinds",
            "a cdp vector needs a cdp or page step".into(),
        ),
        Some("text") => {
            for s in steps
                .iter()
                .filter(|s| s.step.get("cdp").is_some() || s.step.get("page").is_some())
            {
                out.add(
                    cx,
                    s.path.clone(),
                    "step-kinds",
                    "a text vector has no cdp or page step".into(),
                );
            }
        }
        _ => {}
    }
    // V5
    let on_leg = |leg: &str| -> BTreeSet<&str> {
        steps
            .iter()
            .filter(|s| s.leg.is_none_or(|l| l == leg))
            .filter_map(|s| method(s.step))
            .collect()
    };
    let control = on_leg("control");
    for s in steps
        .iter()
        .filter(|s| s.leg.is_none_or(|l| l == "guarded"))
    {
        if let Some(m) = method(s.step) {
            if !control.contains(m) {
                out.add(
                    cx,
                    s.path.clone(),
                    "control-runs-guarded-methods",
                    format!("{m} runs on the guarded leg but never on the control leg"),
                );
            }
        }
    }
    // S3, refusal patterns, and the refusal names (V8).
    let mut refusal_names = Vec::new();
    let mut first_refusable = None;
    for (i, s) in steps.iter().enumerate() {
        let refusable = s.step.get("refusable");
        let refusal = s.step.get("refusal");
        if refusable.is_some() != refusal.is_some() {
            out.add(
                cx,
                s.path.clone(),
                "refusable-refusal",
                "refusable and refusal must come together".into(),
            );
        }
        if (refusable.is_some() || refusal.is_some()) && s.step.get("cdp").is_none() {
            out.add(
                cx,
                s.path.clone(),
                "refusable-refusal",
                "only cdp steps can be refusable".into(),
            );
        }
        if refusable.is_some_and(|r| r != true) {
            out.add(
                cx,
                s.path.clone(),
                "refusable-refusal",
                "refusable can only be true".into(),
            );
        }
        if let Some(pattern) = refusal.and_then(|r| r["match"].as_str()) {
            if let Err(e) = Regex::new(pattern) {
                out.add(
                    cx,
                    format!("{}/refusal/match", s.path),
                    "refusal-patterns",
                    format!("{pattern:?} does not compile: {e}"),
                );
            }
        }
        if refusable == Some(&Value::Bool(true)) {
            first_refusable.get_or_insert(i);
            refusal_names.push(
                s.step["as"]
                    .as_str()
                    .map_or_else(|| format!("refused.{i}"), str::to_string),
            );
        }
    }
    // V8
    let known = |name: &str| refusal_names.iter().any(|r| r == name);
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
                                format!("{d:?} is not the refusal name of a refusable step (those are {refusal_names:?})"),
                            );
                        }
                    }
                }
                None => {}
            }
        }
    }
    for s in steps
        .iter()
        .filter(|s| s.step["settle"].get("dependsOn").is_some())
    {
        for (j, d) in strings(&s.step["settle"]["dependsOn"])
            .into_iter()
            .enumerate()
        {
            if !known(d) {
                out.add(
                    cx,
                    format!("{}/settle/dependsOn/{j}", s.path),
                    "depends-on",
                    format!("{d:?} is not the refusal name of a refusable step (those are {refusal_names:?})"),
                );
            }
        }
    }
    // V9
    let mut union: BTreeSet<&str> = BTreeSet::new();
    for s in steps {
        let listed = strings(&s.step["requires"]);
        union.extend(listed.iter().copied());
        for (cap, why) in needed(s.step) {
            if !listed.contains(&cap) {
                out.add(
                    cx,
                    s.path.clone(),
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
    // S2
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
    // S6, S7 and unique as names.
    let mut names: BTreeSet<&str> = BTreeSet::new();
    for s in steps {
        if let Some(w) = s.step.get("where") {
            let opener = w.get("openerId");
            let prefix = w.get("urlPrefix");
            let ok = match (opener, prefix) {
                (Some(o), None) => o == "page",
                (None, Some(p)) => p.as_str().is_some_and(|p| !p.is_empty()),
                _ => false,
            };
            if !ok || w.as_object().is_some_and(|m| m.len() != 1) {
                out.add(
                    cx,
                    format!("{}/where", s.path),
                    "children-where",
                    "where must be exactly {\"openerId\": \"page\"} or {\"urlPrefix\": …}".into(),
                );
            }
        }
        if let Some(settle) = s.step.get("settle") {
            if settle.as_object().is_none_or(|m| m.is_empty()) {
                out.add(
                    cx,
                    format!("{}/settle", s.path),
                    "step-shapes",
                    "settle needs at least one key".into(),
                );
            }
        }
        if let Some(guess) = s.step.get("guess") {
            if s.step.get("as").is_none() {
                out.add(
                    cx,
                    s.path.clone(),
                    "step-shapes",
                    "a guess step needs as".into(),
                );
            }
            if guess["between"].as_array().is_none_or(|b| b.len() != 2) {
                out.add(
                    cx,
                    format!("{}/guess/between", s.path),
                    "step-shapes",
                    "between needs exactly two URLs".into(),
                );
            }
        }
        if let Some(name) = s.step["as"].as_str() {
            if !names.insert(name) {
                out.add(
                    cx,
                    format!("{}/as", s.path),
                    "call-names",
                    format!("two steps are named {name:?}"),
                );
            }
        }
    }
}
