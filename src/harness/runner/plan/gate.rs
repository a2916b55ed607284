//! The gate: whether a row runs at all, decided before anything runs. Text rows are not run;
//! a row skips for the vector's own `skip`, a capability the transport lacks, an unobservable
//! `own`, a null origin it needs or a missing observer (§4.5); what a check needs is
//! [`requirement`], which the judge also asks of each `any` alternative. No I/O.

use std::collections::BTreeSet;

use crate::harness::runner::expand::{judged_names, Leg, Origins, Vars};
use crate::harness::runner::summary::{Row, Status};
use crate::vectors::{
    Check, Observer, Step, Vector, CAP_AUTO_ATTACH, CAP_BROWSER_CONTEXTS, CAP_BROWSER_SESSION,
    KIND_CDP, KIND_TEXT, SESSION_PAGE_OR_BROWSER, TARGET_OWN, VIA_GUARD, VIA_UNGUARDED,
};

pub use crate::harness::runner::summary::SKIP_OBSERVER;
/// The skip reason of a row with `observable.own: false` on `own` when own is a static server.
pub const SKIP_NOT_OBSERVABLE: &str = "not-observable";

/// `not-applicable:no-<name>-origin`.
pub fn skip_no_origin(name: &str) -> String {
    format!("not-applicable:no-{name}-origin")
}

/// `not-supported:<capability>`.
pub fn skip_capability(capability: &str) -> String {
    format!("not-supported:{capability}")
}

/// What the guard's transport supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CapabilitySet {
    /// `Target.setAutoAttach`, `children` steps and child sessions.
    pub auto_attach: bool,
    /// Calls on the browser session.
    pub browser_session: bool,
    /// `Target.createBrowserContext` and `Target.disposeBrowserContext`.
    pub browser_contexts: bool,
}

impl Default for CapabilitySet {
    /// A transport without a capability list has them all (the spec's runner rule).
    fn default() -> Self {
        CapabilitySet::all()
    }
}

impl CapabilitySet {
    /// Every capability.
    pub fn all() -> CapabilitySet {
        CapabilitySet {
            auto_attach: true,
            browser_session: true,
            browser_contexts: true,
        }
    }

    /// No capability.
    pub fn none() -> CapabilitySet {
        CapabilitySet {
            auto_attach: false,
            browser_session: false,
            browser_contexts: false,
        }
    }

    /// The capabilities named (unknown names are ignored).
    pub fn from_names<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> CapabilitySet {
        let mut set = CapabilitySet::none();
        for n in names {
            match n.as_ref() {
                CAP_AUTO_ATTACH => set.auto_attach = true,
                CAP_BROWSER_SESSION => set.browser_session = true,
                CAP_BROWSER_CONTEXTS => set.browser_contexts = true,
                _ => {}
            }
        }
        set
    }

    /// Whether the capability `name` is supported (an unknown name is not).
    pub fn has(&self, name: &str) -> bool {
        match name {
            CAP_AUTO_ATTACH => self.auto_attach,
            CAP_BROWSER_SESSION => self.browser_session,
            CAP_BROWSER_CONTEXTS => self.browser_contexts,
            _ => false,
        }
    }
}

/// What a run is judged against, the same for all its rows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Environment {
    /// The origin map.
    pub origins: Origins,
    /// The guard transport's capabilities.
    pub capabilities: CapabilitySet,
    /// Whether an independent unguarded observer is supplied.
    pub observer: bool,
    /// Whether `own` is a static server (rows with `observable.own: false` then skip on `own`
    /// as `not-observable`).
    pub own_static: bool,
}

/// The row being judged.
#[derive(Debug, Clone, Copy)]
pub struct RowSpec<'a> {
    /// The vector.
    pub vector: &'a Vector,
    /// The protected target (one of the vector's targets).
    pub target: &'a str,
    /// The variant's name.
    pub variant: &'a str,
    /// The transport's name.
    pub transport: &'a str,
    /// Whether the guard's factory acknowledged the variant's delay.
    pub transport_variant: bool,
}

impl RowSpec<'_> {
    /// This row with every status `status`: its key, the control's `via` and whether the
    /// transport took the variant, as every row of it is reported.
    pub(crate) fn row(&self, status: Status, reason: Option<String>) -> Row {
        let v = self.vector;
        let mut r = Row::uniform(
            &v.id,
            self.target,
            self.variant,
            self.transport,
            &v.control.via,
            status,
            reason,
        );
        r.transport_variant = self.transport_variant;
        r
    }
}

/// How a row's control runs: the closed vocabulary of `control.via`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlVia {
    /// Through the guard, once.
    Guard,
    /// Over the unguarded observer, twice: against the ordinary origin, then against the
    /// protected stand-in.
    Unguarded,
}

impl ControlVia {
    /// The vector's `control.via`, or `None` when it is neither `guard` nor `unguarded`
    /// ([`precheck`] then fails the row before it runs, saying so).
    pub fn of(vector: &Vector) -> Option<ControlVia> {
        match vector.control.via.as_str() {
            VIA_GUARD => Some(ControlVia::Guard),
            VIA_UNGUARDED => Some(ControlVia::Unguarded),
            _ => None,
        }
    }

    /// How many control runs it takes.
    pub fn runs(self) -> usize {
        match self {
            ControlVia::Guard => 1,
            ControlVia::Unguarded => 2,
        }
    }
}

/// The error of a row whose `control.via` is neither `guard` nor `unguarded` (the schema's enum;
/// `validate` rejects such a file).
pub(crate) fn unknown_via(via: &str) -> String {
    format!("control: via {via:?} is neither {VIA_GUARD} nor {VIA_UNGUARDED}")
}

/// Every capability a vector needs: its `requires`, its steps' and observations' `requires`,
/// what the steps imply (V9: `Target.setAutoAttach`, `children` and `session: "child"` need
/// `autoAttach`; `session: "browser"` needs `browserSession`; `Target.createBrowserContext` and
/// `Target.disposeBrowserContext` need `browserContexts`), and `browserSession` for a
/// `page-or-browser` call whose params carry a `browserContextId`. In the order
/// `autoAttach`, `browserSession`, `browserContexts`, then other names sorted.
pub fn required_capabilities(vector: &Vector) -> Vec<String> {
    let mut set: BTreeSet<String> = BTreeSet::new();
    set.extend(vector.requires.iter().flatten().cloned());
    for step in vector.all_steps() {
        set.extend(step.requires().iter().cloned());
        // V9: what the step needs whether or not it lists it.
        set.extend(step.needs().into_iter().map(|(cap, _)| cap.to_string()));
        // The runtime rule beside V9: a `page-or-browser` call naming a browser context needs
        // the browser session (the spec's `not-supported:browserSession` skip).
        if let Step::Cdp(s) = step {
            if s.session.as_deref() == Some(SESSION_PAGE_OR_BROWSER)
                && s.params
                    .as_ref()
                    .is_some_and(|p| p.contains_key("browserContextId"))
            {
                set.insert(CAP_BROWSER_SESSION.into());
            }
        }
    }
    for (_, obs) in vector.observe.iter().flat_map(|o| o.iter()) {
        set.extend(obs.requires.iter().flatten().cloned());
    }
    let known = [CAP_AUTO_ATTACH, CAP_BROWSER_SESSION, CAP_BROWSER_CONTEXTS];
    let mut out: Vec<String> = known
        .iter()
        .filter(|k| set.contains(**k))
        .map(|k| k.to_string())
        .collect();
    out.extend(set.into_iter().filter(|n| !known.contains(&n.as_str())));
    out
}

/// Whether a vector is for a guard of `scope` (`any`, or that scope).
pub fn in_scope(vector: &Vector, scope: Option<&str>) -> bool {
    vector.is_for(scope)
}

/// Decides, before anything runs, whether a row is not run, failed or skipped: text rows are
/// `not-run`; a `kind` other than `cdp`/`text` or a `control.via` other than
/// `guard`/`unguarded` fails the row with that error; then, in this order, the vector's own
/// `skip` for the target, a missing capability (`not-supported:<cap>`), `not-observable`, a null
/// origin the row needs (`not-applicable:no-<name>-origin`: the target, an origin a step of
/// either leg references, or one a required check needs, §4.5), and a missing observer
/// (`not-supported:unguarded-observer`: an unguarded control, or a required check that has no
/// available alternative). `None`: run the row.
pub fn precheck(spec: &RowSpec<'_>, env: &Environment) -> Option<Row> {
    let v = spec.vector;
    let row = |status: Status, reason: Option<String>| spec.row(status, reason);
    if v.kind == KIND_TEXT {
        return Some(row(Status::NotRun, None));
    }
    if v.kind != KIND_CDP {
        let mut r = row(Status::Fail, None);
        r.errors
            .push(format!("kind {:?} is neither cdp nor text", v.kind));
        return Some(r);
    }
    if ControlVia::of(v).is_none() {
        let mut r = row(Status::Fail, None);
        r.errors.push(unknown_via(&v.control.via));
        return Some(r);
    }
    if let Some(skip) = v.skip.as_ref().filter(|s| s.target == spec.target) {
        return Some(row(Status::Skip, Some(skip.reason.clone())));
    }
    if let Some(cap) = required_capabilities(v)
        .into_iter()
        .find(|c| !env.capabilities.has(c))
    {
        return Some(row(Status::Skip, Some(skip_capability(&cap))));
    }
    if spec.target == TARGET_OWN
        && env.own_static
        && v.observable.as_ref().and_then(|o| o.own) == Some(false)
    {
        return Some(row(Status::Skip, Some(SKIP_NOT_OBSERVABLE.into())));
    }
    let control = Vars::for_leg(&env.origins, Leg::Control, spec.target, "", "");
    let guarded = Vars::for_leg(&env.origins, Leg::Guarded, spec.target, "", "");
    if guarded.get("target").is_none() {
        return Some(row(Status::Skip, Some(skip_no_origin(spec.target))));
    }
    let unguarded_control = ControlVia::of(v) == Some(ControlVia::Unguarded);
    // (leg filter, vars, checks of which leg)
    let mut runs = vec![
        (Leg::Control, &control, Leg::Control),
        (Leg::Guarded, &guarded, Leg::Guarded),
    ];
    if unguarded_control {
        runs.push((Leg::Control, &guarded, Leg::Control));
    }
    let mut observer_needed = unguarded_control && !env.observer;
    for (leg, vars, checks_of) in runs {
        if let Some(name) = steps_null_reason(v, leg, vars) {
            return Some(row(Status::Skip, Some(skip_no_origin(&name))));
        }
        for check in required_checks(v, checks_of) {
            match requirement(check, vars, env.observer) {
                Some(r) if r == SKIP_OBSERVER => observer_needed = true,
                Some(r) => return Some(row(Status::Skip, Some(r))),
                None => {}
            }
        }
    }
    if observer_needed {
        return Some(row(Status::Skip, Some(SKIP_OBSERVER.into())));
    }
    None
}

/// The checks a leg requires: its judged observations' checks and, on the guarded leg, the
/// liveCheck (`eitherWhen` is not required: when it can't be judged, it does not hold).
fn required_checks(vector: &Vector, leg: Leg) -> Vec<&Check> {
    let mut out: Vec<&Check> = judged_names(vector, leg)
        .into_iter()
        .filter_map(|n| vector.observation(n).map(|o| &o.check))
        .collect();
    if leg == Leg::Guarded {
        out.extend(vector.live_check.as_ref());
    }
    out
}

/// The first null origin a step running on `leg` references (a `children` step's nested
/// steps by their own `on`).
fn steps_null_reason(vector: &Vector, leg: Leg, vars: &Vars) -> Option<String> {
    fn walk(steps: &[Step], leg: Leg, vars: &Vars) -> Option<String> {
        for step in steps {
            if !step.runs_on(leg.as_str()) {
                continue;
            }
            let own = match step {
                Step::Children(c) => serde_json::to_value(&c.r#where)
                    .ok()
                    .and_then(|w| vars.null_reason_in_value(&w)),
                other => vars.null_reason_in_step(other),
            };
            if own.is_some() {
                return own;
            }
            if let Some(n) = walk(step.children(), leg, vars) {
                return Some(n);
            }
        }
        None
    }
    walk(&vector.setup, leg, vars).or_else(|| walk(&vector.trigger, leg, vars))
}

/// What a check needs that is missing, by §4.5: a leaf referencing a null origin needs it
/// (`not-applicable:no-<name>-origin`), an unguarded leaf needs the observer; `all` and `not`
/// need what any operand needs; `any` needs something only when every alternative does (a
/// null origin reported before the observer). `None`: the check can be judged.
pub fn requirement(check: &Check, vars: &Vars, observer: bool) -> Option<String> {
    match check {
        Check::All(_) | Check::Not(_) => check
            .operands()
            .iter()
            .find_map(|c| requirement(c, vars, observer)),
        Check::Any(_) => {
            let mut reasons = Vec::new();
            for c in check.operands() {
                match requirement(c, vars, observer) {
                    None => return None,
                    Some(r) => reasons.push(r),
                }
            }
            prefer_origin(reasons)
        }
        leaf => leaf_requirement(leaf, vars, observer),
    }
}

pub(crate) fn prefer_origin(reasons: Vec<String>) -> Option<String> {
    reasons
        .iter()
        .find(|r| r.starts_with("not-applicable:"))
        .cloned()
        .or_else(|| reasons.into_iter().next())
}

pub(crate) fn leaf_requirement(check: &Check, vars: &Vars, observer: bool) -> Option<String> {
    if let Some(name) = vars.null_reason_in_check(check) {
        return Some(skip_no_origin(&name));
    }
    (check.observer() == Observer::Unguarded && !observer).then(|| SKIP_OBSERVER.to_string())
}
