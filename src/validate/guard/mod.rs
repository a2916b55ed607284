//! The rules for `guard-vectors.json`: its schema, every rule the spec lists (V1-V11 in the
//! format note), the cross-field rules its schema enforces (S1-S12, checked here again so each
//! problem names its rule and vector), and a few more that keep the set consistent. Every rule
//! id and format-note section cited here is restated in `docs/rules.md`.
//!
//! Every rule is a row of [`RULES`] with the sentence it comes from. A rule the spec states
//! (the spec's *Guard vectors* and *Reference runner* sections, or the format note, whose
//! schema the spec's "the file matches the schema" refers to) gives errors. A rule of this
//! crate's own gives warnings, which only `validate --strict` reports: a file the spec accepts
//! is never refused for one.
//!
//! Every problem's message starts with `vector <id>:` when it concerns one vector, and its
//! path points into that vector.
//!
//! Decisions where the format leaves a gap:
//! - V4: steps nested in `children` count, for both "a `cdp` row has a `cdp` or `page` step" and
//!   "a `text` row has neither".
//! - V5: the methods of `answer.cdp` and `guess.cdp` count as run, like `cdp` steps; a nested
//!   step runs on its own `on` within its `children` step's legs.
//! - V9: a `page-or-browser` call with a `browserContextId` needs no `requires`: the spec makes
//!   it a runtime skip (`not-supported:browserSession`), not a rule of the file.
//! - V10: a placeholder is `{name}` with `name` matching `[A-Za-z][A-Za-z-]*`, in any string.
//! - V11: a URL's port is the run of digits after a `:` in any string, read as
//!   [`crate::ports`] reads it (leading zeros count: `:09222` is 9222).
//!
//! Size: about 670 lines, of which [`RULES`] (each rule with its sentence) is 170; the checks
//! themselves are in `checks.rs` and `steps.rs`.

mod checks;
mod steps;

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use regex::Regex;
use serde_json::{Map, Value};

use super::{check_schema, Level, Problem};
use crate::json::Node;
use crate::vectors::{self as g, Flat};

/// The file these rules check.
pub const FILE: &str = "guard-vectors.json";

/// One rule `validate` checks on `guard-vectors.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// The rule's name, the [`Problem::rule`] of what breaks it.
    pub name: &'static str,
    /// [`Level::Error`] for a rule the spec states, [`Level::Warning`] for one of this crate's
    /// own.
    pub level: Level,
    /// What the rule checks.
    pub checks: &'static str,
    /// Where it comes from: the spec's sentence, quoted with its place (`spec` is
    /// the project's specification, `note` its guard-vectors format note; both restated by id in
    /// `docs/rules.md`), or for a
    /// warning why the crate checks it.
    pub source: &'static str,
}

const fn error(name: &'static str, checks: &'static str, source: &'static str) -> Rule {
    Rule {
        name,
        level: Level::Error,
        checks,
        source,
    }
}

const fn warning(name: &'static str, checks: &'static str, source: &'static str) -> Rule {
    Rule {
        name,
        level: Level::Warning,
        checks,
        source,
    }
}

/// Every rule, each with its level and the sentence it comes from.
pub const RULES: &[Rule] = &[
    error(
        "schema",
        "V1: the file is valid against schema/guard-vectors.schema.json",
        "spec, Guard vectors: \"npm run validate checks that: the file matches the schema, and ids are unique\"",
    ),
    error(
        "types",
        "V1: the typed module (guard::Vectors) parses the file",
        "spec, Guard vectors: \"the file matches the schema\"; the types mirror the schema, so a file the schema accepts and the types refuse is a bug of this crate, reported so that it cannot go unnoticed",
    ),
    error(
        "unique-ids",
        "V1: no two vectors share an id",
        "spec, Guard vectors: \"the file matches the schema, and ids are unique\"",
    ),
    error(
        "control-and-expected",
        "V2: every vector has control (with expected) and expected",
        "spec, Guard vectors: \"every vector has a control and an expected, text rows included\"",
    ),
    error(
        "id-family",
        "V3: the id belongs to its family",
        "spec, Guard vectors: \"each id is in its family\"",
    ),
    error(
        "step-kinds",
        "V4: a cdp vector has a cdp or page step; a text vector has neither",
        "spec, Guard vectors: \"a cdp vector has a cdp or page step, and a text vector has neither\"",
    ),
    error(
        "control-runs-guarded-methods",
        "V5: every CDP method run on the guarded leg also runs on the control leg",
        "spec, Guard vectors: \"every CDP method on the guarded leg also runs on the control\"",
    ),
    error(
        "skip-target",
        "V6: skip.target is one of the vector's targets",
        "spec, Guard vectors: \"a skip names one of the vector's targets\"",
    ),
    error(
        "observe-defines-expected",
        "V7: every name in expected and control.expected is defined in observe",
        "spec, Guard vectors: \"observe defines every expected name\"",
    ),
    error(
        "depends-on",
        "V8: dependsOn wherever a refusable step can skip an observation, naming refusable steps",
        "spec, Guard vectors: \"in a vector with a refusable step, every observation, except an as of a step before the first refusable one, has dependsOn, and each name in it is a refusable step's refusal name\"",
    ),
    error(
        "requires",
        "V9: the right requires on each step; a vector's requires is the union of its steps' and observations'",
        "spec, Guard vectors: \"every Target.setAutoAttach, children, child-session, browser-session and browser-context step has the matching requires, and a vector's requires is the union of its steps' and observations'\"",
    ),
    error(
        "placeholders",
        "V10: every {name} is a key of placeholders",
        "spec, Guard vectors: \"every {name} is in placeholders\"",
    ),
    error(
        "reserved-ports",
        "V11: no URL uses a port from 9222 to 9229",
        "spec, Guard vectors: \"no URL uses a port from 9222 to 9229\"",
    ),
    error(
        "live-check-required",
        "S1: a cdp vector has a liveCheck",
        "spec, Reference runner: \"Every runnable vector has a declarative liveCheck\"",
    ),
    error(
        "hopped-needs-hops",
        "S2: an observation named hopped needs a step with hops",
        "note §6.2 S2 (a rule of the schema the spec's V1 refers to): \"If observe has a key named hopped, then setup or trigger contains a step with hops, or a children step that contains one\"",
    ),
    error(
        "refusable-refusal",
        "S3: refusable and refusal come together, on cdp steps only",
        "spec, Guard vectors: \"refusable: true with refusal: { \"match\" } ... marks a call that a guard may refuse at registration\"; note §3: \"refusable and refusal must appear together\", \"Only cdp steps can be refusable\"",
    ),
    error(
        "live-check-proofs",
        "S4: a liveCheck has no executed or live check and no on: control",
        "spec, Reference runner: \"The diagnostic executed and live checks are not valid liveness proofs\" and \"liveCheck applies only to the guarded leg\"",
    ),
    error(
        "block-spec",
        "S5: a block spec has exactly one of url and anyOf, and a page or child session",
        "spec, Reference runner: \"blocked accepts either { url } for one exact URL or { anyOf: [url, ...] }\"; note §4.3: \"its session may only be page or child\"",
    ),
    error(
        "children-where",
        "S6: children.where is exactly one of openerId: page and urlPrefix",
        "spec, Guard vectors: \"where scopes them to the row's own target: { \"openerId\": \"page\" } (opened by the row's page) or { \"urlPrefix\": url }\"",
    ),
    error(
        "step-shapes",
        "S7: settle has a key; guess has as and two between URLs; compare has two names",
        "note §6.2 S7: \"A settle object has at least one key. guess steps require as, and between has exactly 2 items. compare has exactly 2 items.\"",
    ),
    error(
        "one-kind",
        "S8: each step and each check has exactly one kind",
        "note §3: \"Each step must match exactly one of the 8 closed shapes\"; note §4.3: \"29 closed alternatives; identified by the key set plus observer\"",
    ),
    error(
        "observers",
        "S8: each check declares its kind's observer; title and expression go via unguarded",
        "spec, Reference runner: \"Each check declares its observer\" and \"Reads of titles and expressions use the unguarded observer\"",
    ),
    error(
        "top-level-names",
        "S12: the seven targets, the prompt and lagging variants, exactly the three capabilities",
        "spec, Guard vectors, Top level: \"targets: the names a runner maps ...: seven, vault, vault-x ..., apex, own ..., ordinary and ordinary-same-site\", \"prompt and lagging are documented\", \"capabilities: ... autoAttach ...; browserSession ...; browserContexts\"",
    ),
    error(
        "either-design-dependent",
        "\"either\" only for names in designDependent",
        "spec, Design-dependent outcomes: \"A key listed in designDependent may expect \"either\"\"; note §7: \"\"either\" is valid only for keys listed in designDependent\"",
    ),
    error(
        "call-names",
        "names a check reads (result, cookie.from, compare, refused, reached, filtered.from) are the as of a step of the vector",
        "note §4.3: \"result: name (a step's as)\", \"cookie ... from R str (a step's as)\", \"CallNames: const \"all\", or an array ... of name, each the as of a step\"",
    ),
    error(
        "refusal-patterns",
        "every refusal.match is a regular expression",
        "spec, Guard vectors: \"refusal: { \"match\" } (a regular expression for the error message or code)\"",
    ),
    error(
        "predicates",
        "predicates are no arrays, $contains takes a string, $encoded is {value, prefix?}, $regex is a regular expression",
        "note §4.4: \"Arrays are not valid predicates; use $some or $every instead\", \"{\"$encoded\": {value R str, prefix O str}}\"; spec, Reference runner: \"Predicates support nested partial objects, $contains, $regex, $some, nonempty $every, and $encoded with { value, prefix }\"",
    ),
    warning(
        "as-unique-per-leg",
        "no two steps that run on a common leg have the same as",
        "this crate's: the spec does not say; a second outcome of one name on a leg hides the first from the checks that read it",
    ),
    warning(
        "settle-depends-on",
        "settle.dependsOn entries are refusal names",
        "this crate's: the spec's V8 names only observations' dependsOn; note §6.1: \"The data is also consistent with settle.dependsOn entries being refusal names, though the README doesn't list that rule\"",
    ),
    warning(
        "design-dependent-defined",
        "every designDependent name is defined in observe",
        "this crate's: the spec does not say; a name observe lacks can never expect \"either\"",
    ),
    warning(
        "predicate-operators",
        "a predicate key starting with $ is a known operator",
        "this crate's: note §4.4: \"an unknown $-prefixed key validates as a plain nested key, so a strict validator should reject it\"",
    ),
    warning(
        "rust-regex",
        "every refusal.match and $regex compiles with the regex crate this crate's runner matches with",
        "this crate's: the spec's patterns are JavaScript regular expressions; look-around and backreferences are valid there but this crate's runner cannot match them",
    ),
    warning(
        "js-regex",
        "every refusal.match and $regex is in the common subset of the regex crate and JavaScript's RegExp: no inline flags like (?i), no (?P<name>, \\A, \\z, \\p, [[:class:]]",
        "this crate's: the spec does not forbid them, but JavaScript guards compile patterns with new RegExp(p), where (?i) is a syntax error and \\A, \\z, \\p and [[: mean something else",
    ),
    warning(
        "refused-refusable",
        "a refused check names only refusable steps",
        "this crate's: the spec lets refused name any step by its as (\"A refused check can declare refusal.match to match protocol errors\"); a step that is not refusable is read from its outcome (docs/guard-vectors.md, issue 29, reading 2), which a guard may answer in its own words",
    ),
    warning(
        "live-by-state",
        "a liveCheck proves liveness by more than a canary state read with a refused or filtered call",
        "this crate's: the spec accepts that proof for cookie and storage rows (\"refused writes require unchanged canary state and a refusal or filtered call response\"); a logged request, a heartbeat or a matched refusal also shows the guard let the row run",
    ),
    warning(
        "reserved-numbers",
        "no number from 9222 to 9229 anywhere, also outside URLs",
        "this crate's: its developers' rule that ports 9222-9229 never appear in a test, fixture or case; the spec bans them from URLs only",
    ),
];

/// The level of the rule named `name` (an error for a name the table lacks, which the tests
/// prove never happens).
fn level_of(name: &str) -> Level {
    RULES
        .iter()
        .find(|r| r.name == name)
        .map_or(Level::Error, |r| r.level)
}

/// A problem breaking `rule`, at the rule's level.
fn problem(path: impl Into<String>, rule: &str, message: String) -> Problem {
    Problem {
        level: level_of(rule),
        ..Problem::new(FILE, path, rule, message)
    }
}

/// Validates `value` (the parsed `guard-vectors.json` of `dir`) against its schema and every
/// rule; the problems are errors and warnings (see [`Problem::level`]).
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

/// Checks the rules beyond the schema on a parsed `guard-vectors.json`: errors and warnings
/// (see [`Problem::level`]).
pub fn guard_rules(value: &Value) -> Vec<Problem> {
    let mut out = Out(Vec::new());
    // types (V1)
    if let Err(e) = g::Vectors::parse(&value.to_string()) {
        // Name the vector the types refuse, when it is one vector.
        let mut named = false;
        for (i, v) in array(&value["vectors"]).iter().enumerate() {
            if let Err(e) = serde_json::from_value::<g::Vector>(v.clone()) {
                let id = v["id"]
                    .as_str()
                    .map_or_else(|| format!("#{i}"), str::to_string);
                out.0.push(problem(
                    format!("/vectors/{i}"),
                    "types",
                    format!("vector {id}: {e}"),
                ));
                named = true;
            }
        }
        if !named {
            out.0.push(problem("", "types", e.to_string()));
        }
    }
    top_level(value, &mut out);
    placeholders_and_ports(value, &mut out);
    let mut ids: HashMap<&str, usize> = HashMap::new();
    for (i, v) in array(&value["vectors"]).iter().enumerate() {
        let cx = Cx::new(v, i);
        // unique-ids (V1)
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

/// The items of a JSON array, none for anything else.
pub(super) fn array(v: &Value) -> &[Value] {
    v.as_array().map_or(&[], Vec::as_slice)
}

/// The strings of a JSON array.
pub(super) fn strings(v: &Value) -> Vec<&str> {
    array(v).iter().filter_map(Value::as_str).collect()
}

/// The problems found so far.
pub(super) struct Out(Vec<Problem>);

impl Out {
    /// Records a problem with vector `cx` at `path`, at its rule's level.
    fn add(&mut self, cx: &Cx, path: String, rule: &str, message: String) {
        self.0
            .push(problem(path, rule, format!("vector {}: {message}", cx.id)));
    }
}

/// One vector being checked: its value, index, id and flattened steps.
pub(super) struct Cx<'a> {
    v: &'a Value,
    base: String,
    id: String,
    steps: Vec<Flat<'a, Value>>,
}

impl<'a> Cx<'a> {
    fn new(v: &'a Value, i: usize) -> Cx<'a> {
        let base = format!("/vectors/{i}");
        let id = v["id"]
            .as_str()
            .map_or_else(|| format!("#{i}"), str::to_string);
        let steps = g::flatten(array(&v["setup"]), array(&v["trigger"]));
        Cx { v, base, id, steps }
    }

    /// The pointer of `segments` inside this vector.
    fn at(&self, segments: &[&str]) -> String {
        format!("{}{}", self.base, crate::json::pointer(segments))
    }

    /// The pointer of a flattened step (and `more` segments inside it).
    fn step_at(&self, step: &Flat<'_, Value>, more: &[&str]) -> String {
        format!(
            "{}{}{}",
            self.base,
            step.pointer,
            crate::json::pointer(more)
        )
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

/// top-level-names (S12): the names the top level must hold.
fn top_level(value: &Value, out: &mut Out) {
    let mut add =
        |path: &str, message: String| out.0.push(problem(path, "top-level-names", message));
    let targets = value["targets"].as_object();
    for name in g::TARGET_NAMES {
        if !targets.is_some_and(|t| t.contains_key(name)) {
            add("/targets", format!("targets has no {name:?}"));
        }
    }
    let variants = value["variants"].as_object();
    for name in [g::VARIANT_PROMPT, g::VARIANT_LAGGING] {
        if !variants.is_some_and(|t| t.contains_key(name)) {
            add("/variants", format!("variants has no {name:?}"));
        }
    }
    let caps = value["capabilities"].as_object();
    let keys: BTreeSet<&str> = caps
        .map(|c| c.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let want: BTreeSet<&str> = g::CAPABILITIES.into_iter().collect();
    if keys != want {
        add(
            "/capabilities",
            format!("capabilities must be exactly {want:?}, found {keys:?}"),
        );
    }
}

/// placeholders (V10), reserved-ports (V11) and reserved-numbers over every string, key and
/// number of the file.
fn placeholders_and_ports(value: &Value, out: &mut Out) {
    let declared = value["placeholders"].as_object();
    crate::json::walk(value, &mut |path, node| {
        let vector = vector_of(value, path)
            .map(|id| format!("vector {id}: "))
            .unwrap_or_default();
        let text = match node {
            Node::Value(Value::String(s)) => {
                for name in placeholder_names(s) {
                    if !declared.is_some_and(|d| d.contains_key(name)) {
                        out.0.push(problem(
                            path,
                            "placeholders",
                            format!("{vector}{{{name}}} is not a key of placeholders"),
                        ));
                    }
                }
                if let Some(port) = crate::ports::port_after_colon(s) {
                    out.0.push(problem(
                        path,
                        "reserved-ports",
                        format!("{vector}{s:?} uses port {port}, one of 9222 to 9229"),
                    ));
                    return;
                }
                s.clone()
            }
            Node::Value(Value::Number(n)) => n.to_string(),
            Node::Key(k) => k.to_string(),
            Node::Value(_) => return,
        };
        if let Some(port) = crate::ports::port_anywhere(&text) {
            out.0.push(problem(
                path,
                "reserved-numbers",
                format!("{vector}{text:?} holds {port}, one of the ports 9222 to 9229"),
            ));
        }
    });
}

/// The names of the `{name}` placeholders in `text` (V10's token: `name` matches
/// `[A-Za-z][A-Za-z-]*`), read as the runner reads them.
pub(super) fn placeholder_names(text: &str) -> impl Iterator<Item = &str> {
    crate::harness::runner::expand::tokens(text).map(|(_, _, name)| name)
}

/// Every rule of one vector.
fn vector_rules(cx: &Cx, out: &mut Out) {
    let v = cx.v;
    // control-and-expected (V2)
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
    // id-family (V3)
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
    // skip-target (V6)
    if let Some(target) = v["skip"]["target"].as_str() {
        if !array(&v["targets"]).iter().any(|x| x == target) {
            out.add(
                cx,
                cx.at(&["skip", "target"]),
                "skip-target",
                format!("skip.target {target:?} is not one of targets"),
            );
        }
    }
    // live-check-required (S1)
    if v["kind"] == g::KIND_CDP && v.get("liveCheck").is_none() {
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
    // live-by-state (warning): the liveCheck's proofs are a canary read with a call only.
    if let Some(live) = v.get("liveCheck") {
        let mut kinds = BTreeSet::new();
        check_kinds(live, &mut kinds);
        let other = ["loaded", "served", "hops", "header", "pre", "registration"];
        if kinds.contains("state") && !other.iter().any(|k| kinds.contains(k)) {
            out.add(
                cx,
                cx.at(&["liveCheck"]),
                "live-by-state",
                "the liveCheck proves liveness only by a canary state read with a refused or filtered call".into(),
            );
        }
    }
}

/// The keys of every check object (an object with `observer`) in `v`, at any depth.
fn check_kinds<'v>(v: &'v Value, out: &mut BTreeSet<&'v str>) {
    match v {
        Value::Object(m) => {
            if m.contains_key("observer") {
                out.extend(m.keys().map(String::as_str));
            }
            m.values().for_each(|x| check_kinds(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| check_kinds(x, out)),
        _ => {}
    }
}

/// observe-defines-expected (V7), either-design-dependent and design-dependent-defined, on
/// `expected` and `control.expected`.
fn expected_rules(cx: &Cx, out: &mut Out) {
    let observe = cx.observe();
    let dd = strings(&cx.v["designDependent"]);
    for (i, name) in dd.iter().enumerate() {
        if !observe.is_some_and(|o| o.contains_key(*name)) {
            out.add(
                cx,
                cx.at(&["designDependent", &i.to_string()]),
                "design-dependent-defined",
                format!("designDependent names {name:?}, which observe does not define"),
            );
        }
    }
    for (segments, label) in [
        (&["expected"][..], "expected"),
        (&["control", "expected"][..], "control.expected"),
    ] {
        let e = segments.iter().fold(cx.v, |e, s| &e[*s]);
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

/// Checks that `pattern` (placeholders expanded first) is a regular expression: an error
/// (`rule`) when it is one in no dialect, the warning `rust-regex` when only the features the
/// regex crate lacks (look-around, backreferences) stop it.
pub(super) fn regular_expression(cx: &Cx, out: &mut Out, pattern: &str, path: String, rule: &str) {
    let mut expanded = String::with_capacity(pattern.len());
    let mut last = 0;
    for (start, end, _) in crate::harness::runner::expand::tokens(pattern) {
        expanded.push_str(&pattern[last..start]);
        expanded.push_str("placeholder");
        last = end;
    }
    expanded.push_str(&pattern[last..]);
    if let Some(what) = javascript_differs(&expanded) {
        out.add(
            cx,
            path.clone(),
            "js-regex",
            format!(
                "{pattern:?} uses {what}, which JavaScript's RegExp rejects or reads differently"
            ),
        );
    }
    if let Err(e) = Regex::new(&expanded) {
        // The regex crate's message ends with the line `error: <what>`.
        let text = e.to_string();
        let what = text
            .lines()
            .rev()
            .find_map(|l| l.strip_prefix("error: "))
            .unwrap_or(text.trim());
        let javascript_only = what.contains("look-around") || what.contains("backreferences");
        out.add(
            cx,
            path,
            if javascript_only { "rust-regex" } else { rule },
            format!("{pattern:?} does not compile: {what}"),
        );
    }
}

/// The first construct of `pattern` that is valid for the regex crate but a syntax error in
/// JavaScript's `new RegExp(p)` or read differently there, or `None`.
fn javascript_differs(pattern: &str) -> Option<&'static str> {
    let b = pattern.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                match b.get(i + 1) {
                    Some(b'A' | b'z') => return Some("\\A or \\z (JavaScript reads a letter)"),
                    Some(b'p' | b'P') => {
                        return Some("\\p (JavaScript without the u flag reads a p)")
                    }
                    _ => {}
                }
                i += 2;
                continue;
            }
            b'[' if b.get(i + 1) == Some(&b'[') && b.get(i + 2) == Some(&b':') => {
                return Some("a [[:class:]] (JavaScript has no POSIX classes)")
            }
            b'(' if b.get(i + 1) == Some(&b'?') => match b.get(i + 2) {
                Some(b':' | b'=' | b'!') => {}
                Some(b'<') if matches!(b.get(i + 3), Some(b'=' | b'!')) => {}
                Some(b'<') => {}
                Some(b'P') => return Some("(?P<name> (JavaScript names groups (?<name>)"),
                _ => return Some("an inline flag group like (?i) (a syntax error in JavaScript)"),
            },
            _ => {}
        }
        i += 1;
    }
    None
}
