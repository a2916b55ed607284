//! The judge's view of one leg run: the run's log entries (those carrying its tag), events,
//! outcomes, reads and sessions, and the lookups the check evaluator asks of them; the errors and
//! notes it collects.

use std::cell::{OnceCell, RefCell};
use std::collections::BTreeSet;

use serde_json::Value;

use super::error::CheckError;
use super::log::{same_url, Entry};
use super::LegRun;
use crate::harness::runner::expand::{origin_of, read_for, url_ref_urls, Leg, Vars};
use crate::harness::runner::predicate;
use crate::harness::runner::record::{LogEntry, Read, Record, Recorded};
use crate::vectors::{BlockSpec, CallNames, Check, Step, Vector, SESSION_CHILD, SESSION_PAGE};

/// How a named call reads for `refused` and `reached`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CallRead {
    /// A protocol error that is a refusal.
    Refused,
    /// An answer from the browser (a result, or a protocol error that is no refusal).
    Reached,
    /// No answer: no outcome, a transport failure, a pending step, a guess with no attempt.
    Unanswered,
}

pub(super) struct Sess<'a> {
    pub(super) role: &'a str,
    pub(super) session_id: &'a str,
    pub(super) target_id: &'a str,
    pub(super) url: &'a str,
}

pub(super) struct Ctx<'a> {
    pub(super) vector: &'a Vector,
    pub(super) leg: Leg,
    pub(super) vars: &'a Vars,
    pub(super) record: &'a Record,
    pub(super) observer: bool,
    pub(super) log: Vec<Entry<'a>>,
    pub(super) events: OnceCell<Vec<Value>>,
    pub(super) errors: RefCell<Vec<CheckError>>,
    pub(super) notes: RefCell<Vec<String>>,
}

impl<'a> Ctx<'a> {
    pub(super) fn new(vector: &'a Vector, leg: Leg, run: &LegRun<'a>, observer: bool) -> Ctx<'a> {
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

    pub(super) fn error(&self, e: CheckError) {
        self.errors.borrow_mut().push(e);
    }

    pub(super) fn note(&self, n: String) {
        let mut notes = self.notes.borrow_mut();
        if !notes.contains(&n) {
            notes.push(n);
        }
    }

    pub(super) fn beacon(&self, origin: &str) -> bool {
        self.log.iter().any(|e| e.is_beacon_from(origin))
    }

    pub(super) fn logged(&self, url: &str) -> bool {
        self.log.iter().any(|e| same_url(e.url, url))
    }

    pub(super) fn pre(&self, url: Option<&str>) -> bool {
        let Some(url) = url else { return false };
        self.log.iter().any(|e| {
            e.path == "/live"
                && e.param("step") == Some("pre")
                && e.param("to").is_some_and(|t| same_url(t, url))
        })
    }

    /// The origin of a `/live` heartbeat for `url`'s document, if one was logged.
    pub(super) fn heartbeat(&self, url: &str) -> Option<String> {
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

    pub(super) fn events(&self) -> &[Value] {
        self.events.get_or_init(|| {
            self.record
                .events
                .iter()
                .map(|e| serde_json::to_value(e).unwrap_or(Value::Null))
                .collect()
        })
    }

    pub(super) fn event(&self, method: &str, predicate: Option<&Value>) -> bool {
        if let Some(p) = predicate {
            if let Err(e) = predicate::validate(p) {
                self.error(CheckError::EventWhere {
                    method: method.to_string(),
                    error: e,
                });
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

    pub(super) fn predicate(&self, predicate: &Value, actual: Option<&Value>) -> bool {
        match predicate::matches_opt(predicate, actual) {
            Ok(b) => b,
            Err(e) => {
                self.error(CheckError::Predicate(e));
                false
            }
        }
    }

    /// A named outcome's value; `None` (with a note) when it failed, is pending or is absent.
    pub(super) fn outcome(&self, name: &str) -> Option<&'a Value> {
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
    pub(super) fn read(&self, check: &Check) -> Option<Value> {
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
    pub(super) fn leg_steps(&self) -> Vec<(usize, &'a Step)> {
        crate::vectors::flatten(&self.vector.setup, &self.vector.trigger)
            .into_iter()
            .filter(|f| f.legs.has(self.leg.as_str()))
            .map(|f| (f.index, f.step))
            .collect()
    }

    /// The refusal names of the leg's refusable steps.
    pub(super) fn refusal_names(&self) -> Vec<String> {
        self.leg_steps()
            .into_iter()
            .filter(|(_, s)| s.is_refusable())
            .map(|(i, s)| crate::vectors::refusal_name(s.name(), i))
            .collect()
    }

    /// Named calls: the names, or for `"all"` the leg's refusal names (`refusable`) or the `as`
    /// of its `cdp` steps.
    pub(super) fn names(&self, names: &CallNames, refusable: bool) -> Vec<String> {
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

    /// The `refusal.match` of the leg's step named `name` (its `as`), placeholders expanded.
    fn step_refusal(&self, name: &str) -> Option<String> {
        self.leg_steps().into_iter().find_map(|(_, s)| match s {
            Step::Cdp(c) if c.name.as_deref() == Some(name) => {
                c.refusal.as_ref().map(|r| self.vars.expand_str(&r.pattern))
            }
            _ => None,
        })
    }

    /// Whether the leg's step named `name` is a `guess`.
    fn is_guess(&self, name: &str) -> bool {
        self.leg_steps()
            .into_iter()
            .any(|(_, s)| matches!(s, Step::Guess(g) if g.name == name))
    }

    /// How one answer reads (issue 29, reading 2): a protocol error (`ok: false` with a numeric
    /// `error.code`) is a refusal when its message or code matches `pattern`, else (no pattern)
    /// when its message contains the catalog's refusal text; any other protocol error and any
    /// `ok: true` answer reached the browser; anything else (a transport failure) is neither.
    fn answer_reads(&self, answer: &Value, pattern: Option<&str>) -> CallRead {
        match answer.get("ok") {
            Some(Value::Bool(true)) => return CallRead::Reached,
            Some(Value::Bool(false)) => {}
            _ => return CallRead::Unanswered,
        }
        let Some(code) = answer.pointer("/error/code").filter(|c| c.is_number()) else {
            return CallRead::Unanswered;
        };
        let message = answer
            .pointer("/error/message")
            .and_then(Value::as_str)
            .unwrap_or("");
        let refused = match pattern {
            Some(p) => predicate::with_regex(p, |re| {
                re.is_match(message) || re.is_match(&code.to_string())
            })
            .unwrap_or_else(|err| {
                self.error(CheckError::Refusal(err));
                false
            }),
            None => {
                let text = &crate::catalog::shared_catalog().protected_origins.refusal;
                !text.is_empty() && message.contains(text.as_str())
            }
        };
        if refused {
            CallRead::Refused
        } else {
            CallRead::Reached
        }
    }

    /// How the call named `name` reads for `refused` and `reached` (issue 29, reading 2): a
    /// name with an outcome is judged by that outcome, whether or not its step is refusable,
    /// with `pattern` (the check's `refusal.match`), else the step's `refusal.match`, else the
    /// catalog's refusal; a `guess` is judged by its attempts: refused when it made at least one
    /// and every one was refused, reached when one of them reached the browser. A name with no
    /// outcome (a refusable step without `as`, `refused.<i>`) reads from the recorded refusal.
    pub(super) fn call_reads(&self, name: &str, pattern: Option<&str>) -> CallRead {
        let recorded = || match pattern {
            Some(p) => self.record.refusal_errors.get(name).is_some_and(|e| {
                predicate::with_regex(p, |re| re.is_match(e)).unwrap_or_else(|err| {
                    self.error(CheckError::Refusal(err));
                    false
                })
            }),
            None => self.record.refused.contains(name),
        };
        let Some(Recorded::Value(outcome)) = self.record.outcomes.get(name) else {
            if self.record.outcomes.contains_key(name) {
                // A failed or pending outcome: no answer.
                self.outcome(name);
                return CallRead::Unanswered;
            }
            return if recorded() {
                CallRead::Refused
            } else {
                self.note(format!("no outcome named {name}"));
                CallRead::Unanswered
            };
        };
        // A refusable step the driver recorded refused with its own match stays refused.
        if pattern.is_none() && self.record.refused.contains(name) {
            return CallRead::Refused;
        }
        let step_pattern;
        let pattern = match pattern {
            Some(p) => Some(p),
            None => {
                step_pattern = self.step_refusal(name);
                step_pattern.as_deref()
            }
        };
        if self.is_guess(name) {
            let attempts = outcome
                .get("result")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            let reads: Vec<CallRead> = attempts
                .iter()
                .map(|a| self.answer_reads(a, pattern))
                .collect();
            return if reads.contains(&CallRead::Reached) {
                CallRead::Reached
            } else if !reads.is_empty() && reads.iter().all(|r| *r == CallRead::Refused) {
                CallRead::Refused
            } else {
                CallRead::Unanswered
            };
        }
        self.answer_reads(outcome, pattern)
    }

    pub(super) fn block_urls(&self, spec: &BlockSpec) -> Vec<String> {
        let mut urls: Vec<String> = spec.url.iter().flat_map(url_ref_urls).collect();
        urls.extend(spec.any_of.iter().flatten().flat_map(url_ref_urls));
        if urls.is_empty() {
            self.error(CheckError::BlockSpec);
        }
        urls
    }

    pub(super) fn sessions(&self) -> Vec<Sess<'a>> {
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

    pub(super) fn session_ids(&self, role: Option<&str>, frame: bool) -> Option<Vec<&'a str>> {
        let role = role?;
        Some(
            self.sessions()
                .into_iter()
                .filter(|s| s.role == role || (frame && s.role == SESSION_CHILD))
                .map(|s| s.session_id)
                .collect(),
        )
    }

    pub(super) fn attached(&self, place: &str, role: Option<&str>) -> bool {
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

    pub(super) fn client_blocked(&self, spec: &BlockSpec, urls: &[String]) -> bool {
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
    pub(super) fn unguarded_blocked(&self, check: &Check, urls: &[String], oopif: bool) -> bool {
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
