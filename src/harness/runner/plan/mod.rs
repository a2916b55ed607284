//! One plan per row: how a row runs, decided once before anything runs, so that a row flows
//! plan -> drive -> judge -> report in one direction. No I/O (builds for `wasm32-wasip1`).
//!
//! [`RowPlan::new`] gates the row first ([`precheck`]: not run, skipped and why, or
//! failed before running). A row that runs gets a [`RunPlan`]: each of its leg runs
//! ([`LegPlan`]: which leg's steps and expectation, which client carries it, its variables from a
//! fresh tag, its steps expanded, the checks judged on it), when the canary is planted
//! ([`Plant`]), whether the legs run in a fresh browser context ([`LegContext`]), and the `as`
//! names the checks read (background loads awaited before a leg ends). After a leg ran, its
//! checks are expanded once with its final variables
//! ([`LegChecks::expand`](super::expand::LegChecks::expand)): the driver makes the observer's
//! reads from that expansion and the judge judges it.

mod gate;

use std::collections::BTreeSet;

use serde_json::Value;

pub use gate::{
    in_scope, precheck, required_capabilities, requirement, skip_capability, skip_no_origin,
    CapabilitySet, ControlVia, Environment, RowSpec, SKIP_NOT_OBSERVABLE, SKIP_OBSERVER,
};
pub(crate) use gate::{leaf_requirement, prefer_origin, unknown_via};

use super::expand::{leg_steps, Leg, LegChecks, LegStep, Vars};
use super::js;
use super::summary::Row;
use crate::vectors::{Check, Step, Vector};

/// When a leg plants the canary outside the guard ([`plants_canary`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plant {
    /// The row does not plant it.
    No,
    /// Before the first step (a check reads the canary, no step says where).
    AtStart,
    /// Where a `text` step says so ([`says_plant`]), in the browser context of the row's page
    /// at that point.
    AtText,
}

/// Whether a `text` step says the runner plants the canary: it names both.
pub fn says_plant(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    t.contains("canary") && t.contains("plant")
}

/// The browser context a row's legs open their tabs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LegContext {
    /// A fresh context per leg (`Target.createBrowserContext`, disposed when the leg ends):
    /// cookies, storage, permissions and the HTTP auth cache of one leg never reach the next.
    Fresh,
    /// The default context: the transport cannot make one, or a step works on the default one
    /// ([`uses_default_context`]).
    Default,
}

/// Which client carries a leg run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LegClient {
    /// The guard.
    Guard,
    /// The unguarded observer (an unguarded control's two runs).
    Observer,
}

/// One run of a leg, planned.
#[derive(Debug, Clone)]
pub struct LegPlan<'v> {
    /// The run's name in records and verdicts: `control`, `controlProtected` or `guarded`.
    pub name: &'static str,
    /// The leg whose steps and expectation the run takes.
    pub leg: Leg,
    /// The leg whose variables the run takes (the guarded leg's for `controlProtected`).
    pub vars_leg: Leg,
    /// The client that carries it.
    pub client: LegClient,
    /// For an unguarded control, which of its two runs: 0 against the ordinary origin, 1
    /// against the protected stand-in (0 otherwise).
    pub run: usize,
    /// The run's variables: [`Vars::for_leg`] with a fresh tag and its canary cookie, `beacon`
    /// and `probe` when `{log}` is mapped, `responseOrigin` (`{ordinary}`).
    pub vars: Vars,
    /// Its steps ([`leg_steps`], expanded with [`LegPlan::vars`]), or why they do not build
    /// (the run then records that error, as `steps: <why>`, and does not connect).
    pub steps: Result<Vec<LegStep>, crate::error::Error>,
    /// The checks judged on it, unexpanded (`leg`'s).
    pub checks: LegChecks<'v>,
}

/// A row that runs, planned.
#[derive(Debug, Clone)]
pub struct RunPlan<'a> {
    /// The row.
    pub spec: RowSpec<'a>,
    /// Its leg runs, in order: `control` (and `controlProtected` for an unguarded control),
    /// then `guarded` (always last).
    pub legs: Vec<LegPlan<'a>>,
    /// When the canary is planted.
    pub plant: Plant,
    /// The browser context the legs run in.
    pub context: LegContext,
    /// The `as` names the checks read ([`names_read`]).
    pub awaited: Vec<String>,
}

/// What happens to a row.
#[derive(Debug, Clone)]
pub enum RowPlan<'a> {
    /// The row does not run: it is reported as this row (not run, skipped and why, or failed).
    Decided(Row),
    /// The row runs.
    Run(RunPlan<'a>),
}

impl<'a> RowPlan<'a> {
    /// The plan of a row: [`precheck`], then for a row that runs its leg runs, each with a tag
    /// from `new_tag`.
    pub fn new(
        spec: RowSpec<'a>,
        env: &Environment,
        mut new_tag: impl FnMut() -> String,
    ) -> RowPlan<'a> {
        if let Some(row) = precheck(&spec, env) {
            return RowPlan::Decided(row);
        }
        let vector = spec.vector;
        // (run name, leg whose steps and expectation, vars leg, client, run index)
        let mut runs: Vec<(&'static str, Leg, Leg, LegClient, usize)> = Vec::new();
        if ControlVia::of(vector) == Some(ControlVia::Unguarded) {
            runs.push((
                "control",
                Leg::Control,
                Leg::Control,
                LegClient::Observer,
                0,
            ));
            runs.push((
                "controlProtected",
                Leg::Control,
                Leg::Guarded,
                LegClient::Observer,
                1,
            ));
        } else {
            runs.push(("control", Leg::Control, Leg::Control, LegClient::Guard, 0));
        }
        runs.push(("guarded", Leg::Guarded, Leg::Guarded, LegClient::Guard, 0));
        let legs = runs
            .into_iter()
            .map(|(name, leg, vars_leg, client, run)| {
                let vars = leg_vars(env, spec.target, vars_leg, &new_tag());
                let steps = leg_steps(vector, leg, &vars);
                LegPlan {
                    name,
                    leg,
                    vars_leg,
                    client,
                    run,
                    vars,
                    steps,
                    checks: LegChecks::new(vector, leg),
                }
            })
            .collect();
        // Every leg runs in a fresh browser context when the transport can make one: cookies,
        // storage, permissions and the HTTP auth cache of one leg never reach the next (a Basic
        // answer cached for an origin would be sent unasked, and no challenge would come).
        let context = if !uses_default_context(vector) && env.capabilities.browser_contexts {
            LegContext::Fresh
        } else {
            LegContext::Default
        };
        RowPlan::Run(RunPlan {
            spec,
            legs,
            plant: plants_canary(vector),
            context,
            awaited: names_read(vector),
        })
    }
}

/// The variables of one leg run with `tag`: [`Vars::for_leg`] with the tag's canary cookie,
/// `beacon` and `probe` (the JS sources) when `{log}` is mapped, and `responseOrigin`.
fn leg_vars(env: &Environment, target: &str, leg: Leg, tag: &str) -> Vars {
    let cookie = cookie_for(tag);
    let mut vars = Vars::for_leg(&env.origins, leg, target, tag, &cookie);
    if let Some(log) = vars.get("log").map(str::to_string) {
        vars.set("beacon", &js::beacon(&log, tag));
        vars.set("probe", &js::probe(&log, tag));
    }
    if let Some(ordinary) = vars.get("ordinary").map(str::to_string) {
        vars.set("responseOrigin", &ordinary);
    }
    vars
}

/// The canary cookie's name for a tag: `canary-<tag>` (what the stand-in's `/plant?n=<tag>`
/// sets when it is given no name).
pub fn cookie_for(tag: &str) -> String {
    format!("canary-{tag}")
}

/// When a row plants the canary outside the guard: where a `text` step says so (it names the
/// canary and planting), else before its steps when a check reads the canary (`state`) or
/// proves liveness by the stand-in's `/plant`; otherwise never.
pub fn plants_canary(vector: &Vector) -> Plant {
    let says = vector
        .all_steps()
        .iter()
        .any(|s| matches!(s, Step::Text(t) if says_plant(&t.text)));
    if says {
        return Plant::AtText;
    }
    let mut checks: Vec<&Check> = vector.live_check.iter().collect();
    for (_, o) in vector.observe.iter().flat_map(|o| o.iter()) {
        checks.push(&o.check);
    }
    if checks
        .iter()
        .any(|c| serde_json::to_value(c).is_ok_and(|v| reads_canary(&v)))
    {
        Plant::AtStart
    } else {
        Plant::No
    }
}

/// Whether a row calls `Storage.getCookies`, `Storage.setCookies` or `Storage.clearCookies`
/// without a `browserContextId`: Chromium runs those on the default browser context whatever
/// session carries them, so such a row runs in the default context.
pub fn uses_default_context(vector: &Vector) -> bool {
    vector.all_steps().iter().any(|s| match s {
        Step::Cdp(c) => {
            matches!(
                c.cdp.as_str(),
                "Storage.getCookies" | "Storage.setCookies" | "Storage.clearCookies"
            ) && !c
                .params
                .as_ref()
                .is_some_and(|p| p.contains_key("browserContextId"))
        }
        _ => false,
    })
}

fn reads_canary(v: &Value) -> bool {
    crate::json::any(v, &mut |node| {
        node.as_object().is_some_and(|map| {
            map.contains_key("state")
                || map
                    .get("served")
                    .and_then(Value::as_str)
                    .is_some_and(|s| s.contains("/plant"))
        })
    })
}

/// The `as` names a vector's checks read (`result`, `cookie.from`, `compare`, `filtered.from`,
/// `reached`, `refused`): the background loads among them are awaited before a leg ends.
pub fn names_read(vector: &Vector) -> Vec<String> {
    fn walk(v: &Value, out: &mut BTreeSet<String>) {
        crate::json::walk(v, &mut |_, node| {
            let crate::json::Node::Value(Value::Object(map)) = node else {
                return;
            };
            let is_cookie = map.contains_key("cookie") && map.contains_key("from");
            for (k, item) in map {
                match (k.as_str(), item) {
                    ("result", Value::String(s)) => {
                        out.insert(s.clone());
                    }
                    ("from", Value::String(s)) if is_cookie => {
                        out.insert(s.clone());
                    }
                    ("compare" | "from" | "reached" | "refused", Value::Array(items)) => {
                        out.extend(items.iter().filter_map(Value::as_str).map(str::to_string));
                    }
                    _ => {}
                }
            }
        });
    }
    let mut out = BTreeSet::new();
    if let Some(live) = &vector.live_check {
        if let Ok(v) = serde_json::to_value(live) {
            walk(&v, &mut out);
        }
    }
    for (_, o) in vector.observe.iter().flat_map(|o| o.iter()) {
        for c in std::iter::once(&o.check).chain(o.either_when.as_ref()) {
            if let Ok(v) = serde_json::to_value(c) {
                walk(&v, &mut out);
            }
        }
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::runner::expand::Origins;
    use crate::vectors::VIA_UNGUARDED;

    #[test]
    fn canary_rows_are_found() {
        let set = crate::vectors::vectors();
        let plants: Vec<&str> = set
            .vectors
            .iter()
            .filter(|v| plants_canary(v) != Plant::No)
            .map(|v| v.id.as_str())
            .collect();
        assert!(plants.contains(&"C6.write-cookie"), "{plants:?}");
        assert!(plants.contains(&"B4.request-cookies"), "{plants:?}");
        assert!(!plants.contains(&"C1.script-nav"), "{plants:?}");
    }

    #[test]
    fn names_read_include_results_and_cookie_sources() {
        let set = crate::vectors::vectors();
        let v = set.vector("C5.guessed-id.fulfill").unwrap();
        let names = names_read(v);
        assert!(names.contains(&"guesses".to_string()) && names.contains(&"victim".to_string()));
        let v = set.vector("C6.read-cookies").unwrap();
        assert!(names_read(v).contains(&"read".to_string()));
    }

    fn env() -> Environment {
        let origins = Origins::from_json(
            r#"{
            "ordinary": "http://ordinary.test:8080", "ordinary-same-site": "http://x.sliccy.ai:8080",
            "seven": "http://seven.sliccy.ai:8080", "vault": "http://vault.sliccy.ai:8080",
            "vault-x": "http://pr-1.vault.sliccy.ai:8080", "apex": "http://sliccy.ai:8080",
            "own": "http://client.test:8080", "client": "http://client.test:8080"
        }"#,
        )
        .unwrap();
        Environment {
            origins,
            capabilities: CapabilitySet::all(),
            observer: true,
            own_static: false,
        }
    }

    /// A row that runs gets its leg runs in order, each with its own tag, the guarded one last;
    /// an unguarded control runs twice on the observer, its second run on the guarded leg's
    /// variables.
    #[test]
    fn plans_legs_in_order_with_fresh_tags() {
        let set = crate::vectors::vectors();
        let mut v = set
            .vector("C1.script-nav")
            .expect("C1.script-nav is shipped")
            .clone();
        v.control.via = VIA_UNGUARDED.to_string();
        let v = &v;
        let target = "seven";
        let spec = RowSpec {
            vector: v,
            target,
            variant: "prompt",
            transport: "cdp",
            transport_variant: false,
        };
        let mut n = 0;
        let plan = match RowPlan::new(spec, &env(), || {
            n += 1;
            format!("t{n}")
        }) {
            RowPlan::Run(plan) => plan,
            RowPlan::Decided(row) => panic!("{} runs: {row:?}", v.id),
        };
        let names: Vec<&str> = plan.legs.iter().map(|l| l.name).collect();
        assert_eq!(names, ["control", "controlProtected", "guarded"]);
        let tags: Vec<&str> = plan.legs.iter().map(|l| l.vars.tag()).collect();
        assert_eq!(tags, ["t1", "t2", "t3"]);
        assert_eq!(plan.legs[1].leg, Leg::Control);
        assert_eq!(plan.legs[1].vars_leg, Leg::Guarded);
        assert_eq!(plan.legs[1].client, LegClient::Observer);
        assert_eq!(plan.legs[2].client, LegClient::Guard);
        assert_eq!(
            plan.legs[1].vars.get("target"),
            env().origins.target(target)
        );
    }

    /// An unknown `control.via` fails the row at plan time, saying so, before any leg runs
    /// (it was found only by the judge, after both legs ran).
    #[test]
    fn an_unknown_via_fails_the_row_before_it_runs() {
        let set = crate::vectors::vectors();
        let mut v = set
            .vector("C1.script-nav")
            .expect("C1.script-nav is shipped")
            .clone();
        v.control.via = "sideways".to_string();
        let spec = RowSpec {
            vector: &v,
            target: "seven",
            variant: "prompt",
            transport: "cdp",
            transport_variant: false,
        };
        let row = match RowPlan::new(spec, &env(), || "t".to_string()) {
            RowPlan::Decided(row) => row,
            RowPlan::Run(plan) => {
                panic!("a row with via \"sideways\" runs {} legs", plan.legs.len())
            }
        };
        assert_eq!(
            row.control,
            crate::harness::runner::summary::Status::Fail,
            "{row:?}"
        );
        assert!(
            row.errors
                .iter()
                .any(|e| e.contains("\"sideways\" is neither guard nor unguarded")),
            "{row:?}"
        );
    }

    /// A text row is decided without running, and takes no tag.
    #[test]
    fn text_rows_are_decided() {
        let set = crate::vectors::vectors();
        let v = set
            .vectors
            .iter()
            .find(|v| !v.is_runnable())
            .expect("a shipped text vector");
        let spec = RowSpec {
            vector: v,
            target: v.targets[0].as_str(),
            variant: "prompt",
            transport: "cdp",
            transport_variant: false,
        };
        let plan = RowPlan::new(spec, &env(), || {
            panic!("no tag for a row that does not run")
        });
        assert!(matches!(plan, RowPlan::Decided(_)));
    }
}
