//! The judge: every check kind on a [`Record`], observations and expectations per leg,
//! liveness proofs, skips, and the report row. No I/O.
//!
//! The driver runs a row's legs and hands each leg's [`Record`] with its [`Vars`] to
//! [`judge_row`]; [`precheck`] tells it first whether a row runs at all.
//!
//! # What the checks read
//!
//! Fixture checks read the log entries whose URL contains the leg's tag. Exact URLs are
//! compared as written, except that an origin with no path counts as its `/`.
//!
//! | check | holds when |
//! | --- | --- |
//! | `beacon: O` | a `/beacon` entry whose `origin` query (decoded) is `O`; an entry without an `origin` query counts for its own origin (the stand-in CSP document's inline beacon) |
//! | `served: U` (`origin`: `O` + path) | an entry with that exact URL; a URL without a query also matches entries with one (`/plant` is `/plant?tag=…`) |
//! | `header: h, on: U, value?` | an entry for `U` carrying header `h` (with `value`, one of its comma-separated values equal to it) |
//! | `hops: H, to: T` | every URL of the chain ([`chain_urls`]) has an entry |
//! | `pre: U` | a `/live` entry with `step=pre` and `to` = the URL: a string, a chain's `index`, else the chain's first URL (the one the page action loads) |
//! | `loaded: U` | an entry for the URL (a string, a chain's `index`, else the chain's `to`), or a `/live` heartbeat (not `step=pre`) on its origin whose `n` is the URL's `n` |
//! | `event: m, where?` | a delivered event `{method, params, sessionId}` with method `m` matching `where` |
//! | `result: a, path?, equals` | outcome `a` is a value and, at `path` (dotted; numbers index arrays), matches `equals`; a failed or pending outcome is false |
//! | `cookie: c, from: a, on?` | outcome `a` holds an object named `c` with a `domain` that matches `on`'s host (a leading dot also matches subdomains) |
//! | `filtered: {from, cookie, on?}` | every named call answered (`ok: true`) and no answer holds that cookie; `"all"` is every `as` of the leg's `cdp` steps |
//! | `compare: [a, b], path` | both outcomes are values, equal at `path` |
//! | `refused: names` | every name (`"all"`: every refusable step of the leg) was recorded refused; with the check's own `refusal.match`, its recorded error matches that instead |
//! | `reached: names` | every named outcome is a value, not refused, and `ok` is not `false` |
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

use std::cell::{OnceCell, RefCell};
use std::collections::BTreeSet;

use serde_json::Value;

use super::expand::{
    chain_urls, origin_of, read_for, url_ref_urls, ExpandedChecks, Leg, LegChecks, Vars,
};
pub use super::plan::{
    in_scope, precheck, required_capabilities, requirement, skip_capability, skip_no_origin,
    CapabilitySet, Environment, RowSpec, SKIP_NOT_OBSERVABLE, SKIP_OBSERVER,
};
use super::plan::{leaf_requirement, prefer_origin};
use super::predicate;
use super::record::{LogEntry, Outcome as Recorded, Read, Record};
use super::summary::{Observed, Row, Status};
use crate::vectors::{
    BlockSpec, CallNames, Check, Expected, Observer, Outcome, Step, UrlRef, Vector, SESSION_CHILD,
    SESSION_PAGE, VIA_GUARD, VIA_UNGUARDED,
};

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

    let runs_wanted = match v.control.via.as_str() {
        VIA_GUARD => 1,
        VIA_UNGUARDED => 2,
        other => {
            row.control = Status::Fail;
            row.errors.push(format!(
                "control: via {other:?} is neither guard nor unguarded"
            ));
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
    verdict.errors.extend(ctx.errors.into_inner());
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
/// same URL (a chain's URLs count as the same), or a matched refusal (`registration`, or
/// `refused` of names recorded refused). A liveCheck that holds only through anything else
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
    let mut errors = ctx.errors.into_inner();
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
) -> Result<Truth, String> {
    let ctx = Ctx::new(vector, leg, run, observer);
    let truth = ctx.evaluate(check)?;
    match ctx.errors.into_inner().into_iter().next() {
        Some(e) => Err(e),
        None => Ok(truth),
    }
}

/// A log entry, parsed.
struct Entry<'a> {
    url: &'a str,
    origin: &'a str,
    path: &'a str,
    query: Vec<(String, String)>,
    raw: &'a LogEntry,
}

impl<'a> Entry<'a> {
    fn parse(raw: &'a LogEntry) -> Entry<'a> {
        let url = raw.url.as_str();
        let origin = origin_of(url).unwrap_or("");
        let rest = &url[origin.len()..];
        let rest = rest.split('#').next().unwrap_or("");
        let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
        let query = query
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap_or((p, ""));
                (percent_decode(k), percent_decode(v))
            })
            .collect();
        Entry {
            url,
            origin,
            path: if path.is_empty() { "/" } else { path },
            query,
            raw,
        }
    }

    fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Decodes `%XX` escapes (invalid ones stay as they are; `+` stays `+`, as
/// `encodeURIComponent` never writes a bare `+`).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = |b: u8| (b as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The URL as compared: an origin without a path is its `/`.
fn norm(url: &str) -> std::borrow::Cow<'_, str> {
    if origin_of(url) == Some(url) {
        std::borrow::Cow::Owned(format!("{url}/"))
    } else {
        std::borrow::Cow::Borrowed(url)
    }
}

fn same_url(a: &str, b: &str) -> bool {
    a == b || norm(a) == norm(b)
}

/// How a holding leaf holds, for liveness.
enum Proof {
    /// Nothing §4.6 accepts.
    None,
    /// Logged URLs (a proof when one is on the target's origin).
    Logged(Vec<String>),
    /// A `/live` heartbeat from this origin.
    Heartbeat(String),
    /// The pre-action heartbeat for these URLs.
    Pre(Vec<String>),
    /// An exact-URL block of these URLs.
    Block(Vec<String>),
    /// A matched refusal.
    Refusal,
}

/// A judged check node, with what liveness needs to know.
struct Node {
    truth: Truth,
    proves: bool,
    pre: Vec<String>,
    block: Vec<String>,
    kinds: Vec<&'static str>,
}

struct Sess<'a> {
    role: &'a str,
    session_id: &'a str,
    target_id: &'a str,
    url: &'a str,
}

struct Ctx<'a> {
    vector: &'a Vector,
    leg: Leg,
    vars: &'a Vars,
    record: &'a Record,
    observer: bool,
    log: Vec<Entry<'a>>,
    events: OnceCell<Vec<Value>>,
    errors: RefCell<Vec<String>>,
    notes: RefCell<Vec<String>>,
}

impl<'a> Ctx<'a> {
    fn new(vector: &'a Vector, leg: Leg, run: &LegRun<'a>, observer: bool) -> Ctx<'a> {
        let tag = run.vars.tag();
        Ctx {
            vector,
            leg,
            vars: run.vars,
            record: run.record,
            observer,
            log: run
                .record
                .log
                .iter()
                .filter(|e| tag.is_empty() || e.url.contains(tag))
                .map(Entry::parse)
                .collect(),
            events: OnceCell::new(),
            errors: RefCell::new(Vec::new()),
            notes: RefCell::new(Vec::new()),
        }
    }

    fn error(&self, e: String) {
        self.errors.borrow_mut().push(e);
    }

    fn note(&self, n: String) {
        let mut notes = self.notes.borrow_mut();
        if !notes.contains(&n) {
            notes.push(n);
        }
    }

    /// Expands and evaluates a check; `Err` when it does not expand.
    fn evaluate(&self, check: &Check) -> Result<Truth, String> {
        let expanded = self.vars.expand_check(check).map_err(|e| e.to_string())?;
        Ok(self.node(&expanded).truth)
    }

    fn node(&self, check: &Check) -> Node {
        let mut node = Node {
            truth: Truth::False,
            proves: false,
            pre: Vec::new(),
            block: Vec::new(),
            kinds: Vec::new(),
        };
        match check {
            Check::All(_) => {
                let mut all_true = true;
                for c in check.operands() {
                    let n = self.node(c);
                    match n.truth {
                        Truth::Skip(r) => {
                            node.truth = Truth::Skip(r);
                            return node;
                        }
                        Truth::False => all_true = false,
                        Truth::True => {
                            node.proves |= n.proves;
                            node.pre.extend(n.pre);
                            node.block.extend(n.block);
                            node.kinds.extend(n.kinds);
                        }
                    }
                }
                node.truth = Truth::from_bool(all_true);
                if all_true {
                    let paired = node.pre.iter().any(|p| node.block.contains(p));
                    node.proves |= paired;
                    if !node.proves && !node.pre.is_empty() && !node.block.is_empty() {
                        node.kinds
                            .push("a pre heartbeat and a block for different URLs");
                    }
                } else {
                    node.proves = false;
                }
            }
            Check::Any(_) => {
                let mut reasons = Vec::new();
                let mut available = false;
                for c in check.operands() {
                    if let Some(r) = requirement(c, self.vars, self.observer) {
                        reasons.push(r);
                        continue;
                    }
                    available = true;
                    let n = self.node(c);
                    if n.truth == Truth::True {
                        node.truth = Truth::True;
                        node.proves |= n.proves;
                        node.pre.extend(n.pre);
                        node.block.extend(n.block);
                        node.kinds.extend(n.kinds);
                    }
                }
                if !available {
                    node.truth = Truth::Skip(prefer_origin(reasons).unwrap_or_default());
                }
            }
            Check::Not(c) => {
                let n = self.node(&c.not);
                node.truth = match n.truth {
                    Truth::True => Truth::False,
                    Truth::False => Truth::True,
                    skip => skip,
                };
                node.kinds.push("not");
            }
            leaf => {
                if let Some(r) = leaf_requirement(leaf, self.vars, self.observer) {
                    node.truth = Truth::Skip(r);
                    return node;
                }
                let (holds, proof) = self.leaf(leaf);
                node.truth = Truth::from_bool(holds);
                if holds {
                    let target = self.vars.get("target");
                    let on_target = |u: &str| target.is_some() && origin_of(u) == target;
                    match proof {
                        Proof::None => node.kinds.push(leaf.kind().as_str()),
                        Proof::Logged(urls) => {
                            if urls.iter().any(|u| on_target(u)) {
                                node.proves = true;
                            } else {
                                node.kinds.push("a request logged off the target's origin");
                            }
                        }
                        Proof::Heartbeat(origin) => {
                            if Some(origin.as_str()) == target {
                                node.proves = true;
                            } else {
                                node.kinds.push("a heartbeat off the target's origin");
                            }
                        }
                        Proof::Pre(urls) => {
                            node.pre = urls;
                            node.kinds.push("pre");
                        }
                        Proof::Block(urls) => {
                            node.block = urls;
                            node.kinds.push(leaf.kind().as_str());
                        }
                        Proof::Refusal => node.proves = true,
                    }
                }
            }
        }
        node
    }

    fn leaf(&self, check: &Check) -> (bool, Proof) {
        match check {
            Check::Beacon(c) => (self.beacon(&c.beacon), Proof::None),
            Check::Served(c) => {
                let url = match &c.origin {
                    Some(o) if c.served.starts_with('/') => format!("{o}{}", c.served),
                    _ => c.served.clone(),
                };
                let holds = self.log.iter().any(|e| served_matches(e.url, &url));
                (holds, Proof::Logged(vec![url]))
            }
            Check::Header(c) => {
                let name = c.header.to_ascii_lowercase();
                let holds = self.log.iter().any(|e| {
                    same_url(e.url, &c.on)
                        && e.raw.headers.iter().any(|(k, v)| {
                            k.eq_ignore_ascii_case(&name)
                                && c.value.as_ref().is_none_or(|want| {
                                    v == want || v.split(',').any(|p| p.trim() == want)
                                })
                        })
                });
                (holds, Proof::Logged(vec![c.on.clone()]))
            }
            Check::Hops(c) => {
                let urls = chain_urls(&c.hops, &c.to);
                let holds = urls.iter().all(|u| self.logged(u));
                (holds, Proof::Logged(urls))
            }
            Check::Pre(c) => {
                let url = pre_url(&c.pre);
                (
                    self.pre(url.as_deref()),
                    Proof::Pre(url.into_iter().collect()),
                )
            }
            Check::Loaded(c) => {
                let Some(url) = loaded_url(&c.loaded) else {
                    self.error("loaded: the chain has no URL at that index".into());
                    return (false, Proof::None);
                };
                if self.logged(&url) {
                    return (true, Proof::Logged(vec![url]));
                }
                match self.heartbeat(&url) {
                    Some(origin) => (true, Proof::Heartbeat(origin)),
                    None => (false, Proof::None),
                }
            }
            Check::Event(c) => (self.event(&c.event, c.r#where.as_ref()), Proof::None),
            Check::Result(c) => {
                if let Err(e) = predicate::validate(&c.equals) {
                    self.error(format!("result {}: {e}", c.result));
                    return (false, Proof::None);
                }
                let holds = self.outcome(&c.result).is_some_and(|v| {
                    let at = at_path(v, c.path.as_deref());
                    self.predicate(&c.equals, at)
                });
                (holds, Proof::None)
            }
            Check::Cookie(c) => {
                let holds = self
                    .outcome(&c.from)
                    .is_some_and(|v| has_cookie(v, &c.cookie, c.on.as_deref()));
                (holds, Proof::None)
            }
            Check::Compare(c) => {
                let holds = match c.compare.as_slice() {
                    [a, b] => match (self.outcome(a), self.outcome(b)) {
                        (Some(x), Some(y)) => {
                            let (x, y) = (at_path(x, Some(&c.path)), at_path(y, Some(&c.path)));
                            x.is_some() && x == y
                        }
                        _ => false,
                    },
                    _ => {
                        self.error("compare needs exactly two names".into());
                        false
                    }
                };
                (holds, Proof::None)
            }
            Check::Refused(c) => {
                let names = self.names(&c.refused, true);
                let holds = !names.is_empty()
                    && names.iter().all(|n| match &c.refusal {
                        Some(r) => self.record.refusal_errors.get(n).is_some_and(|e| {
                            predicate::with_regex(&r.pattern, |re| re.is_match(e)).unwrap_or_else(
                                |err| {
                                    self.error(format!("refused: {err}"));
                                    false
                                },
                            )
                        }),
                        None => self.record.refused.contains(n),
                    });
                let matched = holds && names.iter().all(|n| self.record.refused.contains(n));
                (holds, if matched { Proof::Refusal } else { Proof::None })
            }
            Check::Reached(c) => {
                let names = self.names(&c.reached, false);
                let holds = !names.is_empty()
                    && names.iter().all(|n| {
                        !self.record.refused.contains(n)
                            && self
                                .outcome(n)
                                .is_some_and(|v| v.get("ok") != Some(&Value::Bool(false)))
                    });
                (holds, Proof::None)
            }
            Check::Registration(c) => {
                if c.registration != "any" {
                    self.error(format!(
                        "registration takes \"any\", not {:?}",
                        c.registration
                    ));
                    return (false, Proof::None);
                }
                let names = self.refusal_names();
                let holds = names.iter().any(|n| self.record.refused.contains(n));
                (holds, if holds { Proof::Refusal } else { Proof::None })
            }
            Check::Filtered(c) => {
                let names = self.names(&c.filtered.from, false);
                let holds = !names.is_empty()
                    && names.iter().all(|n| {
                        self.outcome(n).is_some_and(|v| {
                            v.get("ok") == Some(&Value::Bool(true))
                                && !has_cookie(v, &c.filtered.cookie, c.filtered.on.as_deref())
                        })
                    });
                (holds, Proof::None)
            }
            Check::Attached(c) => (
                self.attached(&c.attached, c.session.as_deref()),
                Proof::None,
            ),
            Check::Delivered(c) => {
                let holds = self.events().iter().any(|e| {
                    e.get("params")
                        .is_some_and(|p| has_url_with_prefix(p, &c.delivered))
                });
                (holds, Proof::None)
            }
            Check::Detached(c) => (self.record.detached.contains(&c.detached), Proof::None),
            Check::Executed(c) => (self.record.executed.contains(&c.executed), Proof::None),
            Check::Live(_) => (self.observer, Proof::None),
            Check::Blocked(c) => {
                let urls = self.block_urls(&c.blocked);
                let holds = match c.observer {
                    Observer::Unguarded => self.unguarded_blocked(check, &urls, false),
                    _ => self.client_blocked(&c.blocked, &urls),
                };
                (holds, Proof::Block(urls))
            }
            Check::FrameBlocked(c) => {
                let urls = self.block_urls(&c.frame_blocked);
                (
                    self.unguarded_blocked(check, &urls, true),
                    Proof::Block(urls),
                )
            }
            Check::History(c) => {
                let urls = self.block_urls(&c.history);
                let refs: Vec<&UrlRef> = c
                    .history
                    .url
                    .iter()
                    .chain(c.history.any_of.iter().flatten())
                    .collect();
                let pre = refs.iter().any(|r| self.pre(pre_url(r).as_deref()));
                let history: Vec<String> = match self.read(check) {
                    Some(Value::Array(items)) => items
                        .iter()
                        .filter_map(|i| match i {
                            Value::String(s) => Some(s.clone()),
                            other => other.get("url").and_then(Value::as_str).map(str::to_string),
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                let holds = pre
                    && urls
                        .iter()
                        .any(|u| history.iter().any(|h| same_url(h, u)) && !self.logged(u));
                (holds, Proof::Block(urls))
            }
            Check::Title(c) => {
                let holds = matches!(self.read(check), Some(Value::String(t)) if t == c.title);
                (holds, Proof::None)
            }
            Check::Expression(c) => {
                if let Err(e) = predicate::validate(&c.equals) {
                    self.error(format!("expression: {e}"));
                    return (false, Proof::None);
                }
                let holds = self
                    .read(check)
                    .is_some_and(|v| self.predicate(&c.equals, Some(&v)));
                (holds, Proof::None)
            }
            Check::State(c) => {
                let holds = match self.read(check) {
                    Some(Value::String(s)) => s == c.state.value,
                    Some(Value::Null) => c.state.value.is_empty(),
                    _ => false,
                };
                (holds, Proof::None)
            }
            Check::All(_) | Check::Any(_) | Check::Not(_) => {
                (self.node(check).truth == Truth::True, Proof::None)
            }
        }
    }

    fn beacon(&self, origin: &str) -> bool {
        self.log.iter().any(|e| {
            e.path == "/beacon"
                && match e.param("origin") {
                    Some(o) => o == origin,
                    None => e.origin == origin,
                }
        })
    }

    fn logged(&self, url: &str) -> bool {
        self.log.iter().any(|e| same_url(e.url, url))
    }

    fn pre(&self, url: Option<&str>) -> bool {
        let Some(url) = url else { return false };
        self.log.iter().any(|e| {
            e.path == "/live"
                && e.param("step") == Some("pre")
                && e.param("to").is_some_and(|t| same_url(t, url))
        })
    }

    /// The origin of a `/live` heartbeat for `url`'s document, if one was logged.
    fn heartbeat(&self, url: &str) -> Option<String> {
        let origin = origin_of(url)?;
        let n = Entry::parse(&LogEntry {
            url: url.to_string(),
            method: String::new(),
            headers: Default::default(),
            time: 0,
        })
        .param("n")
        .map(str::to_string);
        self.log
            .iter()
            .find(|e| {
                e.origin == origin
                    && e.path == "/live"
                    && e.param("step").is_none()
                    && n.as_deref().is_none_or(|n| e.param("n") == Some(n))
            })
            .map(|e| e.origin.to_string())
    }

    fn events(&self) -> &[Value] {
        self.events.get_or_init(|| {
            self.record
                .events
                .iter()
                .map(|e| serde_json::to_value(e).unwrap_or(Value::Null))
                .collect()
        })
    }

    fn event(&self, method: &str, predicate: Option<&Value>) -> bool {
        if let Some(p) = predicate {
            if let Err(e) = predicate::validate(p) {
                self.error(format!("event {method}: {e}"));
                return false;
            }
        }
        self.record
            .events
            .iter()
            .zip(self.events())
            .any(|(e, json)| {
                e.method == method
                    && predicate.is_none_or(|p| predicate::matches(p, json) == Ok(true))
            })
    }

    fn predicate(&self, predicate: &Value, actual: Option<&Value>) -> bool {
        match predicate::matches_opt(predicate, actual) {
            Ok(b) => b,
            Err(e) => {
                self.error(e);
                false
            }
        }
    }

    /// A named outcome's value; `None` (with a note) when it failed, is pending or is absent.
    fn outcome(&self, name: &str) -> Option<&'a Value> {
        match self.record.outcomes.get(name) {
            Some(Recorded::Value(v)) => Some(v),
            Some(Recorded::Failed(why)) => {
                self.note(format!("{name} failed: {why}"));
                None
            }
            Some(Recorded::Pending) => {
                self.note(format!("{name} did not complete"));
                None
            }
            None => {
                self.note(format!("no outcome named {name}"));
                None
            }
        }
    }

    /// The observer's answer to the read `check` needs.
    fn read(&self, check: &Check) -> Option<Value> {
        let read: Read = read_for(check)?;
        match self.record.reads.iter().find(|(r, _)| *r == read) {
            Some((_, Recorded::Value(v))) => Some(v.clone()),
            Some((_, Recorded::Failed(why))) => {
                self.note(format!("the observer's read {read:?} failed: {why}"));
                None
            }
            Some((_, Recorded::Pending)) | None => {
                self.note(format!("the observer's read {read:?} is missing"));
                None
            }
        }
    }

    /// The leg's steps, flat, with their indexes: the guard module's flattening (§3.2), each
    /// step kept when it runs on this leg (a nested step by its own `on`, inside a `children`
    /// step that runs).
    fn leg_steps(&self) -> Vec<(usize, &'a Step)> {
        crate::vectors::flatten(&self.vector.setup, &self.vector.trigger)
            .into_iter()
            .filter(|f| f.legs.has(self.leg.as_str()))
            .map(|f| (f.index, f.step))
            .collect()
    }

    /// The refusal names of the leg's refusable steps.
    fn refusal_names(&self) -> Vec<String> {
        self.leg_steps()
            .into_iter()
            .filter(|(_, s)| s.is_refusable())
            .map(|(i, s)| crate::vectors::refusal_name(s.name(), i))
            .collect()
    }

    /// Named calls: the names, or for `"all"` the leg's refusal names (`refusable`) or the `as`
    /// of its `cdp` steps.
    fn names(&self, names: &CallNames, refusable: bool) -> Vec<String> {
        match names {
            CallNames::Names(n) => n.clone(),
            CallNames::All if refusable => self.refusal_names(),
            CallNames::All => self
                .leg_steps()
                .into_iter()
                .filter(|(_, s)| matches!(s, Step::Cdp(_)))
                .filter_map(|(_, s)| s.name().map(str::to_string))
                .collect(),
        }
    }

    fn block_urls(&self, spec: &BlockSpec) -> Vec<String> {
        let mut urls: Vec<String> = spec.url.iter().flat_map(url_ref_urls).collect();
        urls.extend(spec.any_of.iter().flatten().flat_map(url_ref_urls));
        if urls.is_empty() {
            self.error("a block spec needs url or anyOf (with a URL)".into());
        }
        urls
    }

    fn sessions(&self) -> Vec<Sess<'a>> {
        let mut out: Vec<Sess<'a>> = self
            .record
            .sessions
            .iter()
            .map(|s| Sess {
                role: &s.role,
                session_id: &s.session_id,
                target_id: &s.target_id,
                url: &s.url,
            })
            .collect();
        for e in &self.record.events {
            if e.method != "Target.attachedToTarget" {
                continue;
            }
            let (Some(sid), Some(info)) = (
                e.params.get("sessionId").and_then(Value::as_str),
                e.params.get("targetInfo"),
            ) else {
                continue;
            };
            if out.iter().any(|s| s.session_id == sid) {
                continue;
            }
            out.push(Sess {
                role: SESSION_CHILD,
                session_id: sid,
                target_id: info.get("targetId").and_then(Value::as_str).unwrap_or(""),
                url: info.get("url").and_then(Value::as_str).unwrap_or(""),
            });
        }
        out
    }

    fn session_ids(&self, role: Option<&str>, frame: bool) -> Option<Vec<&'a str>> {
        let role = role?;
        Some(
            self.sessions()
                .into_iter()
                .filter(|s| s.role == role || (frame && s.role == SESSION_CHILD))
                .map(|s| s.session_id)
                .collect(),
        )
    }

    fn attached(&self, place: &str, role: Option<&str>) -> bool {
        let is_origin = origin_of(place) == Some(place);
        let matches = |url: &str| {
            if is_origin {
                origin_of(url) == Some(place)
            } else {
                !url.is_empty() && url.starts_with(place)
            }
        };
        self.sessions().into_iter().any(|s| {
            let role_ok = match role {
                Some(r) => s.role == r,
                None => s.role != SESSION_PAGE,
            };
            if !role_ok {
                return false;
            }
            if matches(s.url) {
                return true;
            }
            self.record.events.iter().any(|e| {
                let from_target = e.method.starts_with("Target.")
                    && e.params
                        .pointer("/targetInfo/targetId")
                        .and_then(Value::as_str)
                        == Some(s.target_id)
                    && e.params
                        .pointer("/targetInfo/url")
                        .and_then(Value::as_str)
                        .is_some_and(matches);
                let from_frame = e.method == "Page.frameNavigated"
                    && e.session_id.as_deref() == Some(s.session_id)
                    && e.params.pointer("/frame/parentId").is_none()
                    && e.params
                        .pointer("/frame/url")
                        .and_then(Value::as_str)
                        .is_some_and(matches);
                from_target || from_frame
            })
        })
    }

    fn client_blocked(&self, spec: &BlockSpec, urls: &[String]) -> bool {
        let frame = spec.frame == Some(true);
        let ids = self.session_ids(spec.session.as_deref(), frame);
        let in_session = |sid: &Option<String>| match &ids {
            None => true,
            Some(ids) => sid.as_deref().is_some_and(|s| ids.contains(&s)),
        };
        let listed = |u: &str| urls.iter().any(|x| same_url(x, u));
        let events = &self.record.events;
        for (i, e) in events.iter().enumerate() {
            if !in_session(&e.session_id) {
                continue;
            }
            match e.method.as_str() {
                "Page.frameNavigated" => {
                    let main = e.params.pointer("/frame/parentId").is_none();
                    if (frame || main)
                        && e.params
                            .pointer("/frame/unreachableUrl")
                            .and_then(Value::as_str)
                            .is_some_and(listed)
                    {
                        return true;
                    }
                }
                "Network.loadingFailed" => {
                    let Some(id) = e.params.get("requestId") else {
                        continue;
                    };
                    let last = events[..i].iter().rev().find(|s| {
                        s.method == "Network.requestWillBeSent"
                            && s.session_id == e.session_id
                            && s.params.get("requestId") == Some(id)
                    });
                    if last
                        .and_then(|s| s.params.pointer("/request/url"))
                        .and_then(Value::as_str)
                        .is_some_and(listed)
                    {
                        return true;
                    }
                }
                _ => {}
            }
        }
        self.record.navigation_errors.iter().any(|n| {
            spec.session
                .as_deref()
                .is_none_or(|r| n.session == r || (frame && n.session == SESSION_CHILD))
                && listed(&n.url)
        })
    }

    /// The observer's error frames hold one of `urls` (`oopif`: only out-of-process iframes
    /// the client holds no session on).
    fn unguarded_blocked(&self, check: &Check, urls: &[String], oopif: bool) -> bool {
        let frame = match read_for(check) {
            Some(Read::Errors { frame, .. }) => frame,
            _ => false,
        };
        let Some(Value::Array(frames)) = self.read(check) else {
            return false;
        };
        let attached: BTreeSet<&str> = self.sessions().iter().map(|s| s.target_id).collect();
        frames.iter().any(|f| {
            let unreachable = f.get("unreachableUrl").and_then(Value::as_str);
            let is_oopif = f.get("oopif") == Some(&Value::Bool(true));
            let sub = f.get("parentId").is_some_and(|p| !p.is_null());
            if !unreachable.is_some_and(|u| urls.iter().any(|x| same_url(x, u))) {
                return false;
            }
            if oopif {
                let id = f
                    .get("targetId")
                    .or_else(|| f.get("frameId"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                is_oopif && !attached.contains(id)
            } else {
                frame || (!is_oopif && !sub)
            }
        })
    }
}

/// The URL a `pre` check looks for: a string; a chain's `index`; else the chain's first URL.
fn pre_url(url: &UrlRef) -> Option<String> {
    match url {
        UrlRef::Url(u) => Some(u.clone()),
        UrlRef::Chain(c) => {
            let urls = chain_urls(&c.hops, &c.to);
            let i = c.index.and_then(|i| usize::try_from(i).ok()).unwrap_or(0);
            urls.into_iter().nth(i)
        }
    }
}

/// The URL a `loaded` check looks for: a string; a chain's `index`; else the chain's `to`.
fn loaded_url(url: &UrlRef) -> Option<String> {
    match url {
        UrlRef::Url(u) => Some(u.clone()),
        UrlRef::Chain(c) => match c.index {
            Some(i) => usize::try_from(i)
                .ok()
                .and_then(|i| chain_urls(&c.hops, &c.to).into_iter().nth(i)),
            None => Some(c.to.clone()),
        },
    }
}

fn served_matches(logged: &str, want: &str) -> bool {
    if same_url(logged, want) {
        return true;
    }
    !want.contains('?')
        && logged
            .split_once('?')
            .is_some_and(|(base, _)| same_url(base, want))
}

/// The value at a dotted path (numbers index arrays); the whole value without a path.
fn at_path<'v>(value: &'v Value, path: Option<&str>) -> Option<&'v Value> {
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
fn has_cookie(value: &Value, name: &str, on: Option<&str>) -> bool {
    crate::json::any(value, &mut |v| {
        v.as_object().is_some_and(|m| {
            m.get("name").and_then(Value::as_str) == Some(name)
                && m.get("domain").and_then(Value::as_str).is_some_and(|d| {
                    on.is_none_or(|o| {
                        super::expand::host_of(o).is_some_and(|host| domain_matches(d, host))
                    })
                })
        })
    })
}

fn domain_matches(domain: &str, host: &str) -> bool {
    let domain = domain.to_ascii_lowercase();
    let host = host.to_ascii_lowercase();
    match domain.strip_prefix('.') {
        Some(d) => host == d || host.ends_with(&format!(".{d}")),
        None => host == domain,
    }
}

/// Whether a value holds, at any depth, a `url` or `documentURL` string starting with `prefix`.
fn has_url_with_prefix(value: &Value, prefix: &str) -> bool {
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
