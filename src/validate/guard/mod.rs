//! The rules for `guard-vectors.json`: its schema, every rule the spec lists (V1-V11 in the
//! format note), the cross-field rules its schema enforces (S1-S12, checked here again so each
//! problem names its rule and vector), and a few more that keep the set consistent.
//!
//! Every problem's message starts with `vector <id>:` when it concerns one vector, and its
//! path points into that vector.
//!
//! Decisions where the format leaves a gap:
//! - V4: steps nested in `children` count, for both "a `cdp` row has a `cdp` or `page` step" and
//!   "a `text` row has neither".
//! - V5: the methods of `answer.cdp` and `guess.cdp` count as run, like `cdp` steps; a nested
//!   step runs on its own `on`, else its `children` step's.
//! - V8: `settle.dependsOn` entries must be refusal names too.
//! - V10: a placeholder is `{name}` with `name` matching `[A-Za-z][A-Za-z-]*`, in any string.
//! - V11: a string holding `:9222` to `:9229` not followed by a digit, or a number 9222 to 9229
//!   inside a vector, is a reserved port.

mod checks;
mod steps;

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use regex::Regex;
use serde_json::{Map, Value};

use super::{check_schema, pointer, Problem};

/// The file these rules check.
pub const FILE: &str = "guard-vectors.json";

/// The rule names, each with what it checks (the rule of a [`Problem`] is one of these).
pub const RULES: &[(&str, &str)] = &[
    ("schema", "V1: the file is valid against schema/guard-vectors.schema.json"),
    ("types", "the typed module (guard::Vectors) parses the file"),
    ("unique-ids", "V1: no two vectors share an id"),
    ("control-and-expected", "V2: every vector has control (with expected) and expected"),
    ("id-family", "V3: the id belongs to its family"),
    ("step-kinds", "V4: a cdp vector has a cdp or page step; a text vector has neither"),
    ("control-runs-guarded-methods", "V5: every CDP method run on the guarded leg also runs on the control leg"),
    ("skip-target", "V6: skip.target is one of the vector's targets"),
    ("observe-defines-expected", "V7: every name in expected and control.expected is defined in observe"),
    ("depends-on", "V8: dependsOn wherever a refusable step can skip an observation, naming refusable steps"),
    ("requires", "V9: the right requires on each step; a vector's requires is the union of its steps' and observations'"),
    ("placeholders", "V10: every {name} is a key of placeholders"),
    ("reserved-ports", "V11: no port from 9222 to 9229"),
    ("live-check-required", "S1: a cdp vector has a liveCheck"),
    ("hopped-needs-hops", "S2: an observation named hopped needs a step with hops"),
    ("refusable-refusal", "S3: refusable and refusal come together, on cdp steps only"),
    ("live-check-proofs", "S4: a liveCheck has no executed or live check and no on: control"),
    ("block-spec", "S5: a block spec has exactly one of url and anyOf, and a page or child session"),
    ("children-where", "S6: children.where is exactly one of openerId: page and urlPrefix"),
    ("step-shapes", "S7: settle has a key; guess has as and two between URLs; compare has two names"),
    ("one-kind", "S8: each step and each check has exactly one kind"),
    ("observers", "S8: each check declares its kind's observer; title and expression go via unguarded"),
    ("top-level-names", "S12: the seven targets, the prompt and lagging variants, exactly the three capabilities"),
    ("either-design-dependent", "\"either\" only for names in designDependent, which observe defines"),
    ("call-names", "names a check reads are the as of a step in the vector, and as names are unique"),
    ("refusal-patterns", "every refusal.match compiles as a regular expression"),
    ("predicates", "predicates are no arrays, use only known $ operators, and their $regex compiles"),
];

/// The seven names `targets` must hold.
const TARGET_NAMES: [&str; 7] = [
    "seven",
    "vault",
    "vault-x",
    "apex",
    "own",
    "ordinary",
    "ordinary-same-site",
];

/// Validates `value` (the parsed `guard-vectors.json` of `dir`) against its schema and every rule.
pub fn guard_problems(dir: &Path, value: &Value) -> Vec<Problem> {
    let mut out = Vec::new();
    for mut p in check_schema(dir, FILE, "guard-vectors.schema.json", value) {
        if let Some(id) = vector_of(value, &p.path) {
            p.message = format!("vector {id}: {}", p.message);
        }
        out.push(p);
    }
    out.extend(guard_rules(value));
    out
}

/// Checks the rules beyond the schema on a parsed `guard-vectors.json`.
pub fn guard_rules(value: &Value) -> Vec<Problem> {
    let mut out = Out(Vec::new());
    if let Err(e) = crate::guard::Vectors::parse(&value.to_string()) {
        // Name the vector the types refuse, when it is one vector.
        let mut named = false;
        for (i, v) in value["vectors"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or(&[])
            .iter()
            .enumerate()
        {
            if let Err(e) = serde_json::from_value::<crate::guard::Vector>(v.clone()) {
                let id = v["id"]
                    .as_str()
                    .map_or_else(|| format!("#{i}"), str::to_string);
                out.0.push(Problem::new(
                    FILE,
                    format!("/vectors/{i}"),
                    "types",
                    format!("vector {id}: {e}"),
                ));
                named = true;
            }
        }
        if !named {
            out.0.push(Problem::new(FILE, "", "types", e.to_string()));
        }
    }
    top_level(value, &mut out);
    placeholders_and_ports(value, &mut out);
    let vectors = value["vectors"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let mut ids: HashMap<&str, usize> = HashMap::new();
    for (i, v) in vectors.iter().enumerate() {
        let cx = Cx::new(v, i);
        if let Some(id) = v["id"].as_str() {
            if let Some(first) = ids.insert(id, i) {
                out.add(
                    &cx,
                    cx.at(&["id"]),
                    "unique-ids",
                    format!("the id is also /vectors/{first}/id"),
                );
            }
        }
        vector_rules(&cx, &mut out);
    }
    out.0
}

/// The problems found so far.
pub(super) struct Out(Vec<Problem>);

impl Out {
    /// Records a problem with vector `cx` at `path`.
    fn add(&mut self, cx: &Cx, path: String, rule: &str, message: String) {
        self.0.push(Problem::new(
            FILE,
            path,
            rule,
            format!("vector {}: {message}", cx.id),
        ));
    }
}

/// One vector being checked: its value, index, id and flattened steps.
pub(super) struct Cx<'a> {
    v: &'a Value,
    base: String,
    id: String,
    steps: Vec<steps::Flat<'a>>,
}

impl<'a> Cx<'a> {
    fn new(v: &'a Value, i: usize) -> Cx<'a> {
        let base = format!("/vectors/{i}");
        let id = v["id"]
            .as_str()
            .map_or_else(|| format!("#{i}"), str::to_string);
        let steps = steps::flatten(v, &base);
        Cx { v, base, id, steps }
    }

    /// The pointer of `segments` inside this vector.
    fn at(&self, segments: &[&str]) -> String {
        format!("{}{}", self.base, pointer(segments))
    }

    /// The observations, by name.
    fn observe(&self) -> Option<&'a Map<String, Value>> {
        self.v["observe"].as_object()
    }

    /// The `as` names of the vector's steps.
    fn names(&self) -> BTreeSet<&'a str> {
        self.steps
            .iter()
            .filter_map(|s| s.step["as"].as_str())
            .collect()
    }
}

/// The id of the vector a problem path points into, if any.
fn vector_of<'a>(value: &'a Value, path: &str) -> Option<&'a str> {
    let rest = path.strip_prefix("/vectors/")?;
    let index: usize = rest.split('/').next()?.parse().ok()?;
    value["vectors"][index]["id"].as_str()
}

/// S12: the names the top level must hold.
fn top_level(value: &Value, out: &mut Out) {
    let mut add = |path: &str, message: String| {
        out.0
            .push(Problem::new(FILE, path, "top-level-names", message))
    };
    let targets = value["targets"].as_object();
    for name in TARGET_NAMES {
        if !targets.is_some_and(|t| t.contains_key(name)) {
            add("/targets", format!("targets has no {name:?}"));
        }
    }
    let variants = value["variants"].as_object();
    for name in ["prompt", "lagging"] {
        if !variants.is_some_and(|t| t.contains_key(name)) {
            add("/variants", format!("variants has no {name:?}"));
        }
    }
    let caps = value["capabilities"].as_object();
    let keys: BTreeSet<&str> = caps
        .map(|c| c.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let want: BTreeSet<&str> = steps::CAPS.into_iter().collect();
    if keys != want {
        add(
            "/capabilities",
            format!("capabilities must be exactly {want:?}, found {keys:?}"),
        );
    }
}

/// V10 and V11 over every string and number of the file.
fn placeholders_and_ports(value: &Value, out: &mut Out) {
    let token = Regex::new(r"\{([A-Za-z][A-Za-z-]*)\}").expect("a valid pattern");
    let port = Regex::new(r":922[2-9](?:[^0-9]|$)").expect("a valid pattern");
    let declared = value["placeholders"].as_object();
    let visit = |path: &str, v: &Value, out: &mut Out| {
        let vector = vector_of(value, path)
            .map(|id| format!("vector {id}: "))
            .unwrap_or_default();
        match v {
            Value::String(s) => {
                for c in token.captures_iter(s) {
                    if !declared.is_some_and(|d| d.contains_key(&c[1])) {
                        out.0.push(Problem::new(
                            FILE,
                            path,
                            "placeholders",
                            format!("{vector}{{{}}} is not a key of placeholders", &c[1]),
                        ));
                    }
                }
                if port.is_match(s) {
                    out.0.push(Problem::new(
                        FILE,
                        path,
                        "reserved-ports",
                        format!("{vector}{s:?} uses a port from 9222 to 9229"),
                    ));
                }
            }
            Value::Number(n)
                if path.starts_with("/vectors/")
                    && n.as_u64().is_some_and(|n| (9222..=9229).contains(&n)) =>
            {
                out.0.push(Problem::new(
                    FILE,
                    path,
                    "reserved-ports",
                    format!("{vector}{n} is a port from 9222 to 9229"),
                ));
            }
            _ => {}
        }
    };
    walk_values(value, String::new(), &mut |p, v| visit(p, v, out));
}

/// Calls `f` on every value of `value` with its pointer.
fn walk_values(value: &Value, path: String, f: &mut dyn FnMut(&str, &Value)) {
    f(&path, value);
    match value {
        Value::Object(m) => {
            for (k, v) in m {
                walk_values(v, format!("{path}{}", pointer([k])), f);
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                walk_values(v, format!("{path}/{i}"), f);
            }
        }
        _ => {}
    }
}

/// Every rule of one vector.
fn vector_rules(cx: &Cx, out: &mut Out) {
    let v = cx.v;
    // V2
    if v.get("control").is_none() {
        out.add(
            cx,
            cx.base.clone(),
            "control-and-expected",
            "the vector has no control".into(),
        );
    } else if v["control"].get("expected").is_none() {
        out.add(
            cx,
            cx.at(&["control"]),
            "control-and-expected",
            "the control has no expected".into(),
        );
    }
    if v.get("expected").is_none() {
        out.add(
            cx,
            cx.base.clone(),
            "control-and-expected",
            "the vector has no expected".into(),
        );
    }
    // V3
    let family = v["family"].as_str().unwrap_or("");
    let family_ok = matches!(family, "C" | "E" | "B")
        && Regex::new(&format!(r"^{family}[1-9](\.[A-Za-z0-9-]+)*$"))
            .expect("a valid pattern")
            .is_match(&cx.id);
    if !family_ok {
        out.add(
            cx,
            cx.at(&["id"]),
            "id-family",
            format!("the id is not in family {family:?}"),
        );
    }
    // V6
    if let Some(target) = v["skip"]["target"].as_str() {
        let listed = v["targets"]
            .as_array()
            .is_some_and(|t| t.iter().any(|x| x == target));
        if !listed {
            out.add(
                cx,
                cx.at(&["skip", "target"]),
                "skip-target",
                format!("skip.target {target:?} is not one of targets"),
            );
        }
    }
    // S1
    if v["kind"] == "cdp" && v.get("liveCheck").is_none() {
        out.add(
            cx,
            cx.base.clone(),
            "live-check-required",
            "a cdp vector needs a liveCheck".into(),
        );
    }
    expected_rules(cx, out);
    steps::rules(cx, out);
    checks::rules(cx, out);
}

/// V7 and the `"either"` rule, on `expected` and `control.expected`.
fn expected_rules(cx: &Cx, out: &mut Out) {
    let observe = cx.observe();
    let dd: Vec<&str> = cx.v["designDependent"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (i, name) in dd.iter().enumerate() {
        if !observe.is_some_and(|o| o.contains_key(*name)) {
            out.add(
                cx,
                cx.at(&["designDependent", &i.to_string()]),
                "either-design-dependent",
                format!("designDependent names {name:?}, which observe does not define"),
            );
        }
    }
    for (segments, label) in [
        (&["expected"][..], "expected"),
        (&["control", "expected"][..], "control.expected"),
    ] {
        let mut e = cx.v;
        for s in segments {
            e = &e[*s];
        }
        let Some(map) = e.as_object() else { continue };
        for (name, outcome) in map {
            let mut path: Vec<&str> = segments.to_vec();
            path.push(name);
            if !observe.is_some_and(|o| o.contains_key(name)) {
                out.add(
                    cx,
                    cx.at(&path),
                    "observe-defines-expected",
                    format!("{label} names {name:?}, which observe does not define"),
                );
            }
            if outcome == "either" && !dd.contains(&name.as_str()) {
                out.add(
                    cx,
                    cx.at(&path),
                    "either-design-dependent",
                    format!(
                        "{label} expects \"either\" for {name:?}, which is not in designDependent"
                    ),
                );
            }
        }
    }
}
