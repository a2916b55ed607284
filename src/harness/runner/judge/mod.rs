//! The judge: every check kind on a [`Record`], observations and expectations per leg,
//! liveness proofs, skips, and the report row. No I/O.
//!
//! The driver runs a row's legs and hands each leg's [`Record`] with its [`Vars`] to
//! [`judge_row`]; [`precheck`] tells it first whether a row runs at all.
//!
//! This file holds the verdicts (row, leg, liveness); the rest is cut by concern: `ctx.rs` is a
//! leg run as the checks see it and the lookups they make, `eval.rs` the check evaluator with its
//! liveness proofs, `log.rs` the stand-in log's URLs, `values.rs` the JSON helpers. Whether a row
//! runs at all is [`plan`](super::plan)'s.
//!
//! # What the checks read
//!
//! Fixture checks read the log entries whose URL contains the leg's tag. Exact URLs are
//! compared as written, except that an origin with no path counts as its `/`.
//!
//! | check | holds when |
//! | --- | --- |
//! | `beacon: O` | a `/beacon` entry whose `origin` query (decoded) is `O`; an entry without an `origin` query counts for its own origin (the stand-in CSP document's inline beacon) |
//! | `served: U` (`origin`: `O` + path) | an entry with that exact URL; a URL without a query also matches entries with one (`/plant` is `/plant?tag=…`); a bare path with no `origin` matches that path (and query) on any origin |
//! | `header: h, on: U, value?` | an entry for `U` carrying header `h` (with `value`, one of its comma-separated values equal to it) |
//! | `hops: H, to: T` | every redirect URL of the chain ([`chain_urls`](super::expand::chain_urls) without its last, `to`) has an entry; `to` is judged by its own observation (`loaded`, `served`) |
//! | `pre: U` | a `/live` entry with `step=pre` and `to` = the URL: a string, a chain's `index`, else the chain's first URL (the one the page action loads) |
//! | `loaded: U` | an entry for the URL (a string, a chain's `index`, else the chain's `to`), or a `/live` heartbeat (not `step=pre`) on its origin whose `n` is the URL's `n` |
//! | `event: m, where?` | a delivered event `{method, params, sessionId}` with method `m` matching `where` |
//! | `result: a, path?, equals` | outcome `a` (`{ok, result, …}`) is a value and, at `path` (dotted; numbers index arrays; without one, its `value` when it has one, else all of it), matches `equals`; a failed or pending outcome is false |
//! | `cookie: c, from: a, on?` | outcome `a` holds an object named `c` with a `domain` that matches `on`'s host (a leading dot also matches subdomains) |
//! | `filtered: {from, cookie, on?}` | every named call answered (`ok: true`) and no answer holds that cookie; `"all"` is every `as` of the leg's `cdp` steps |
//! | `compare: [a, b], path` | both outcomes are values, equal at `path` |
//! | `refused: names` | every name (`"all"`: every refusable step of the leg) is refused, refusable or not: its outcome is a protocol error (`ok: false`, numeric `error.code`) whose message or code matches the check's `refusal.match`, else the step's, else contains the catalog's refusal text; a `guess` made at least one attempt and every attempt is refused; a name with no outcome (`refused.<i>`) was recorded refused |
//! | `reached: names` | every named outcome is an answer that is no refusal (as `refused` reads it with no check pattern): `ok: true`, or a browser error; a `guess` has one such attempt |
//! | `registration: "any"` | a refusable step of the leg was refused with its `refusal.match` matched |
//! | `attached: X, session?` | a session of that role (without `session`: a child or explicitly attached one, never the row's own page) whose target's URL, at attach time or in later `Target.*` / main-frame `Page.frameNavigated` events, has origin `X` (or starts with `X` when it has a path) |
//! | `delivered: S` | a delivered event holds a `url` or `documentURL` member, at any depth, starting with `S` |
//! | `detached: r`, `executed: p` | the record lists that role / phase |
//! | `blocked` (client) | for a URL of the spec: a `Page.frameNavigated` with that `unreachableUrl` (main frames unless `frame`), a `Network.loadingFailed` whose request's last URL it is, or a recorded [`super::record::NavigationError`]; `session` picks the sessions by role |
//! | `blocked` (unguarded) | the observer's error frames hold that `unreachableUrl` (`frame` adds the out-of-process iframes) |
//! | `frameBlocked` | an out-of-process iframe among the observer's error frames has that `unreachableUrl`, and the client holds no session on it |
//! | `history` | `pre` holds for the spec's URL, the observer's history holds a URL of the spec, and the fixture logged no request for it |
//! | `title`, `expression`, `state` | the observer's read equals the title / matches `equals` / equals `value` (`null` reads as `""`) |
//! | `live` | an observer was supplied (diagnostic) |

mod ctx;
mod error;
mod eval;
mod log;
mod values;

use super::expand::{ExpandedChecks, Leg, LegChecks, Vars};
pub use super::plan::{
    in_scope, precheck, required_capabilities, requirement, skip_capability, skip_no_origin,
    CapabilitySet, Environment, RowSpec, SKIP_NOT_OBSERVABLE, SKIP_OBSERVER,
};
use super::plan::{unknown_via, ControlVia};
use super::record::Record;
use super::summary::{Observed, Row, Status};
use crate::vectors::{Check, Expected, Outcome, Vector};
use ctx::Ctx;
pub use error::{CheckError, EvalError};

/// One run of a leg: the variables it ran with and what it recorded.
#[derive(Debug, Clone, Copy)]
pub struct LegRun<'a> {
    /// The leg's variables (with the tag it ran with).
    pub vars: &'a Vars,
    /// What the leg recorded.
    pub record: &'a Record,
}

/// The result of a check: holds, does not, or can't be judged (with the skip reason).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Truth {
    /// The check holds.
    True,
    /// The check does not hold.
    False,
    /// The check needs a null origin or a missing observer.
    Skip(String),
}

impl Truth {
    fn from_bool(b: bool) -> Truth {
        if b {
            Truth::True
        } else {
            Truth::False
        }
    }
}

/// The judgement of one leg run (or of liveness).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegVerdict {
    /// `pass`, `fail` or `skip`.
    pub status: Status,
    /// Why it skipped.
    pub skip: Option<String>,
    /// Each judged name (`null`: skipped by `dependsOn`) and each recorded refusal (`true`).
    pub observations: Observed,
    /// Why it failed.
    pub errors: Vec<String>,
}

impl LegVerdict {
    fn skipped(reason: String) -> LegVerdict {
        LegVerdict {
            status: Status::Skip,
            skip: Some(reason),
            observations: Observed::new(),
            errors: Vec::new(),
        }
    }
}

/// Judges a row after its legs ran: `control` holds the control's runs (one through the guard;
/// with `via: "unguarded"`, two over the observer: against the ordinary origin, then against
/// the protected stand-in), `guarded` the guarded leg. A row [`precheck`] skips is returned as
/// that skip whatever the records say.
pub fn judge_row(
    spec: &RowSpec<'_>,
    env: &Environment,
    control: &[LegRun<'_>],
    guarded: &LegRun<'_>,
) -> Row {
    if let Some(row) = precheck(spec, env) {
        return row;
    }
    let v = spec.vector;
    let (control_checks, guarded_checks) = (
        LegChecks::new(v, Leg::Control),
        LegChecks::new(v, Leg::Guarded),
    );
    let expanded: Vec<ExpandedChecks<'_>> = control
        .iter()
        .map(|r| control_checks.expand(r.vars))
        .collect();
    let control: Vec<JudgedRun<'_>> = control
        .iter()
        .zip(&expanded)
        .map(|(run, checks)| JudgedRun { run: *run, checks })
        .collect();
    let guarded_expanded = guarded_checks.expand(guarded.vars);
    let guarded = JudgedRun {
        run: *guarded,
        checks: &guarded_expanded,
    };
    judge_runs(spec, env, &control, &guarded)
}

/// One leg run with its checks, expanded once with the run's final variables (the driver's
/// reads came from the same expansion).
#[derive(Debug, Clone, Copy)]
pub struct JudgedRun<'a> {
    /// The run.
    pub run: LegRun<'a>,
    /// The checks judged on its leg ([`LegChecks::expand`] with `run.vars`).
    pub checks: &'a ExpandedChecks<'a>,
}

/// Judges a row whose legs ran: [`judge_row`] for a row already gated (a
/// [`RowPlan`](super::plan::RowPlan) that runs), with each run's checks already expanded.
pub fn judge_runs(
    spec: &RowSpec<'_>,
    env: &Environment,
    control: &[JudgedRun<'_>],
    guarded: &JudgedRun<'_>,
) -> Row {
    let v = spec.vector;
    let mut row = spec.row(Status::Pass, None);
    let mut skip: Option<String> = None;

    let runs_wanted = match ControlVia::of(v) {
        Some(via) => via.runs(),
        None => {
            row.control = Status::Fail;
            // Not from a plan: [`precheck`](super::plan::precheck) fails such a row first.
            row.errors.push(unknown_via(&v.control.via));
            0
        }
    };
    if runs_wanted > 0 && control.len() != runs_wanted {
        row.control = Status::Fail;
        row.errors.push(format!(
            "control: via {} needs {runs_wanted} run(s), got {}",
            v.control.via,
            control.len()
        ));
    }
    for (i, run) in control.iter().enumerate().take(runs_wanted) {
        let name = if i == 0 {
            "control"
        } else {
            "controlProtected"
        };
        let verdict = leg_verdict(v, Leg::Control, run, env.observer);
        merge(&mut row, name, verdict, &mut skip, |r| &mut r.control);
    }
    let verdict = leg_verdict(v, Leg::Guarded, guarded, env.observer);
    merge(&mut row, "guarded", verdict, &mut skip, |r| &mut r.guarded);
    let verdict = live_verdict(v, guarded, env.observer);
    merge(&mut row, "live", verdict, &mut skip, |r| &mut r.live);
    if let Some(reason) = skip {
        return spec.row(Status::Skip, Some(reason));
    }
    // A control that failed where the browser lacks a method the row calls: the row can't be
    // judged on this browser (issue 21, reading 13).
    if row.control == Status::Fail {
        if let Some(method) = control
            .iter()
            .find_map(|run| run.run.record.unsupported.iter().next())
        {
            return spec.row(Status::Skip, Some(format!("not-supported:{method}")));
        }
    }
    row
}

fn merge(
    row: &mut Row,
    name: &str,
    verdict: LegVerdict,
    skip: &mut Option<String>,
    status: impl Fn(&mut Row) -> &mut Status,
) {
    if verdict.status == Status::Skip {
        if skip.is_none() {
            *skip = verdict.skip.clone();
        }
        return;
    }
    if verdict.status == Status::Fail {
        *status(row) = Status::Fail;
    }
    row.errors
        .extend(verdict.errors.into_iter().map(|e| format!("{name}: {e}")));
    if name != "live" {
        row.observations
            .insert(name.to_string(), verdict.observations);
    }
}

/// Judges one leg run against its expectation (`control.expected` on the control leg,
/// `expected` on the guarded leg): every expected name must match. An observation whose
/// `dependsOn` names a refusal the run recorded is skipped (`null`). `"either"` is accepted
/// only for names in `designDependent`; on the guarded leg an `eitherWhen` that holds makes
/// the expectation `"either"`. Errors the record carries fail the leg.
pub fn judge_leg(vector: &Vector, leg: Leg, run: &LegRun<'_>, observer: bool) -> LegVerdict {
    let checks = LegChecks::new(vector, leg).expand(run.vars);
    let run = JudgedRun {
        run: *run,
        checks: &checks,
    };
    leg_verdict(vector, leg, &run, observer)
}

/// [`judge_leg`] on a run whose checks are expanded.
fn leg_verdict(vector: &Vector, leg: Leg, judged: &JudgedRun<'_>, observer: bool) -> LegVerdict {
    let run = &judged.run;
    let ctx = Ctx::new(vector, leg, run, observer);
    let expected = match leg {
        Leg::Control => &vector.control.expected,
        Leg::Guarded => &vector.expected,
    };
    let mut verdict = LegVerdict {
        status: Status::Pass,
        skip: None,
        observations: Observed::new(),
        errors: run.record.errors.clone(),
    };
    let Expected::Checks(expected) = expected else {
        verdict.status = Status::Fail;
        verdict
            .errors
            .push("a runnable vector's expectation must be an object of names".into());
        return verdict;
    };
    let design = vector.design_dependent.as_deref().unwrap_or(&[]);
    let mut mismatch_notes = false;
    for (name, outcome) in expected.iter() {
        let Some(obs) = vector.observation(name) else {
            verdict
                .errors
                .push(format!("{name} is expected but observe does not define it"));
            continue;
        };
        if *outcome == Outcome::Either && !design.iter().any(|d| d == name) {
            verdict.errors.push(format!(
                "{name} expects \"either\" but is not in designDependent"
            ));
            continue;
        }
        let depends = obs.depends_on.as_deref().unwrap_or(&[]);
        if depends.iter().any(|d| run.record.refused.contains(d)) {
            verdict.observations.insert(name.to_string(), None);
            continue;
        }
        let Some((check, either_when)) = judged.checks.observation(name) else {
            verdict
                .errors
                .push(format!("{name}: its check was not expanded for this leg"));
            continue;
        };
        let truth = match check {
            Ok(c) => ctx.node(c).truth,
            Err(e) => {
                verdict.errors.push(format!("{name}: {e}"));
                continue;
            }
        };
        let observed = match truth {
            Truth::True => true,
            Truth::False => false,
            Truth::Skip(reason) => return LegVerdict::skipped(reason),
        };
        verdict
            .observations
            .insert(name.to_string(), Some(observed));
        let mut want = *outcome;
        if leg == Leg::Guarded && want != Outcome::Either {
            if let Some(Ok(when)) = either_when {
                if ctx.node(when).truth == Truth::True {
                    want = Outcome::Either;
                }
            }
        }
        if !want.matches(observed) {
            let want = match want {
                Outcome::Is(b) => b.to_string(),
                Outcome::Either => "either".into(),
            };
            verdict
                .errors
                .push(format!("{name} is {observed}, expected {want}"));
            mismatch_notes = true;
        }
    }
    for name in &run.record.refused {
        verdict
            .observations
            .entry(name.clone())
            .or_insert(Some(true));
    }
    verdict
        .errors
        .extend(ctx.errors.into_inner().iter().map(ToString::to_string));
    if !verdict.errors.is_empty() {
        verdict.status = Status::Fail;
        if mismatch_notes {
            verdict.errors.extend(ctx.notes.into_inner());
        }
    }
    verdict
}

/// Judges liveness on the guarded leg's run. The liveCheck must hold, and hold through a proof
/// §4.6 accepts: an entry for a URL on the target's origin (`loaded`, `served`, `hops`,
/// `header`), a `/live` heartbeat from the target's origin (`loaded`), a `pre` heartbeat
/// together, in one `all`, with an exact-URL `blocked`, `history` or `frameBlocked` for the
/// same URL (a chain's URLs count as the same), a matched refusal (`registration`, or
/// `refused` of names recorded refused), or, in one `all`, an unguarded `state` read of the
/// canary with a `refused` or `filtered` call (the cookie and storage rows' proof). A liveCheck
/// that holds only through anything else
/// (events, results, sessions, a `not`, a beacon) fails. `executed`, `live` and `on: "control"`
/// are not allowed in it.
pub fn judge_live(vector: &Vector, run: &LegRun<'_>, observer: bool) -> LegVerdict {
    let checks = LegChecks::new(vector, Leg::Guarded).expand(run.vars);
    let run = JudgedRun {
        run: *run,
        checks: &checks,
    };
    live_verdict(vector, &run, observer)
}

/// [`judge_live`] on a run whose checks are expanded.
fn live_verdict(vector: &Vector, judged: &JudgedRun<'_>, observer: bool) -> LegVerdict {
    let run = &judged.run;
    let mut verdict = LegVerdict {
        status: Status::Fail,
        skip: None,
        observations: Observed::new(),
        errors: Vec::new(),
    };
    let Some(check) = &vector.live_check else {
        verdict
            .errors
            .push("a runnable vector needs a liveCheck".into());
        return verdict;
    };
    if let Some(bad) = invalid_in_live(check) {
        verdict.errors.push(bad);
        return verdict;
    }
    let ctx = Ctx::new(vector, Leg::Guarded, run, observer);
    let expanded = match judged.checks.live() {
        Some(Ok(c)) => c,
        None => {
            verdict
                .errors
                .push("liveCheck: it was not expanded for this leg".into());
            return verdict;
        }
        Some(Err(e)) => {
            verdict.errors.push(format!("liveCheck: {e}"));
            return verdict;
        }
    };
    let node = ctx.node(expanded);
    let mut errors: Vec<String> = ctx
        .errors
        .into_inner()
        .iter()
        .map(ToString::to_string)
        .collect();
    match node.truth {
        Truth::Skip(reason) => return LegVerdict::skipped(reason),
        Truth::True if node.proves && errors.is_empty() => verdict.status = Status::Pass,
        Truth::True if !node.proves => errors.push(format!(
            "the liveCheck held only through {}, which proves no liveness (§4.6)",
            if node.kinds.is_empty() {
                "nothing".to_string()
            } else {
                node.kinds.join(", ")
            }
        )),
        Truth::True => {}
        Truth::False => {
            errors.push("the liveCheck does not hold".into());
            errors.extend(ctx.notes.into_inner());
        }
    }
    verdict.errors = errors;
    verdict
}

fn invalid_in_live(check: &Check) -> Option<String> {
    match check {
        Check::Executed(_) | Check::Live(_) => Some(format!(
            "the diagnostic check {} is not allowed in a liveCheck",
            check.kind().as_str()
        )),
        Check::Header(h) if h.on == "control" => {
            Some("a liveCheck node has on: \"control\"".into())
        }
        Check::Cookie(c) if c.on.as_deref() == Some("control") => {
            Some("a liveCheck node has on: \"control\"".into())
        }
        _ => check.operands().iter().find_map(invalid_in_live),
    }
}

/// Evaluates one check on a leg run (expanded with the run's variables), as the judge does for
/// an observation; errors (an invalid predicate, a check that does not expand) are returned.
pub fn evaluate(
    vector: &Vector,
    leg: Leg,
    run: &LegRun<'_>,
    observer: bool,
    check: &Check,
) -> Result<Truth, EvalError> {
    let ctx = Ctx::new(vector, leg, run, observer);
    let truth = ctx.evaluate(check)?;
    match ctx.errors.into_inner().into_iter().next() {
        Some(e) => Err(EvalError::Check(e)),
        None => Ok(truth),
    }
}

#[cfg(test)]
mod tests;
