//! One leg: its shared state, the steps, and what ends it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use regex::Regex;
use serde_json::{json, Value};

use super::pump::pump;
use super::state::{ActionMark, AnswerRule, Background, ChildRule, Leg, Session};
use super::util::{call_outcome, eval_outcome, ids_between, lock, session_gone};
use super::{
    LegSetup, Plant, StandIn, BACKGROUND_WAIT, CHILD_WAIT, LOAD_TIMEOUT, POLL, PROBE_WAIT,
    SETTLE_DEFAULT_MS, SETTLE_EXTRA,
};
use crate::harness::runner::expand::{
    chain_start, ExpandedChecks, LegChecks, LegStep, Phase, Vars,
};
use crate::harness::runner::js;
use crate::harness::runner::logurl::is_beacon;
use crate::harness::runner::record::{
    LogEntry, NavigationError, Outcome, Read, Record, SessionRecord,
};
use crate::harness::runner::transport::{CallError, Event};
use crate::vectors::{
    AnswerStep, CdpStep, ChildrenStep, GuessStep, PageStep, SettleStep, Step, Where,
};

/// See [`super::run_leg`].
pub(super) fn run<'v>(
    setup: &LegSetup,
    stand_in: Arc<dyn StandIn>,
    checks: &LegChecks<'v>,
) -> (Record, Vars, ExpandedChecks<'v>) {
    let start_mark = stand_in.mark();
    let tag = setup.vars.tag().to_string();
    let leg = Arc::new(Leg {
        client: Arc::clone(&setup.client),
        observer: setup.observer.clone(),
        stand_in,
        vars: Mutex::new(setup.vars.clone()),
        record: Mutex::new(Record {
            tag: tag.clone(),
            observer: setup.observer.is_some(),
            ..Record::default()
        }),
        page: Mutex::new(None),
        children: Mutex::new(Vec::new()),
        rules: Mutex::new(Vec::new()),
        answers: Mutex::new(Vec::new()),
        paused: Mutex::new(Vec::new()),
        own_targets: Mutex::new(BTreeSet::new()),
        opened: Mutex::new(Vec::new()),
        observer_opened: Mutex::new(Vec::new()),
        child_threads: Mutex::new(Vec::new()),
        background: Mutex::new(BTreeMap::new()),
        action: Mutex::new(None),
        plant_sessions: Mutex::new(BTreeMap::new()),
        plant: setup.plant,
        page_context: Mutex::new(setup.context.clone()),
        stop: AtomicBool::new(false),
        detach_delay: setup.detach_delay,
        context: setup.context.clone(),
        start_event: setup.client.event_count(),
        start_mark,
        probes: AtomicUsize::new(0),
    });
    let pump = {
        let leg = Arc::clone(&leg);
        std::thread::spawn(move || pump(&leg))
    };

    if setup.plant == Plant::AtStart {
        leg.plant_now();
    }
    let (setup_steps, trigger_steps): (Vec<LegStep>, Vec<LegStep>) = setup
        .steps
        .iter()
        .cloned()
        .partition(|s| s.phase == Phase::Setup);
    leg.run_steps(&setup_steps, None);
    lock(&leg.record).executed.insert("setup".into());
    leg.join_children();
    leg.run_steps(&trigger_steps, None);
    lock(&leg.record).executed.insert("trigger".into());
    leg.join_children();

    // Background loads an observation reads.
    let deadline = Instant::now() + BACKGROUND_WAIT;
    let pending: Vec<(String, Arc<Background>)> = lock(&leg.background)
        .iter()
        .map(|(k, v)| (k.clone(), Arc::clone(v)))
        .collect();
    for (name, bg) in pending {
        let mut done = lock(&bg.done);
        if setup.awaited.contains(&name) {
            while done.is_none() {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break;
                }
                done = bg
                    .cond
                    .wait_timeout(done, left)
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .0;
            }
        }
        let outcome = done.clone().unwrap_or(Outcome::Pending);
        lock(&leg.record).outcomes.insert(name, outcome);
    }

    leg.refresh_session_urls();
    let vars = lock(&leg.vars).clone();
    let checks = checks.expand(&vars);
    let wanted = checks.reads(&vars);
    let answers: Vec<(Read, Outcome)> = wanted
        .into_iter()
        .map(|r| {
            let outcome = leg.read(&r);
            (r, outcome)
        })
        .collect();

    leg.stop.store(true, Ordering::SeqCst);
    let _ = pump.join();
    let events = leg.client.events_since(leg.start_event);
    let log = leg.log_with_probes(&tag);
    leg.close();

    let mut record = lock(&leg.record).clone();
    record.reads = answers;
    record.events = events;
    record.log = log;
    (record, vars, checks)
}

impl Leg {
    /// The stand-in's log since the leg started, once every probe that ran has its beacon in it
    /// (a probe evaluates to its marker as it sends the beacon, so the beacon may still be on
    /// its way; waited for up to [`PROBE_WAIT`]).
    fn log_with_probes(&self, tag: &str) -> Vec<LogEntry> {
        let probes = self.probes.load(Ordering::SeqCst);
        let deadline = Instant::now() + PROBE_WAIT;
        loop {
            let log = self.stand_in.since(self.start_mark, tag);
            let beacons = log
                .iter()
                .filter(|e| e.url.contains("probe=1") && e.url.contains(tag))
                .count();
            if beacons >= probes || Instant::now() >= deadline {
                return log;
            }
            std::thread::sleep(POLL);
        }
    }

    /// Plants the canary once; a failure is a leg error.
    fn plant_now(&self) {
        if !lock(&self.plant_sessions).is_empty() {
            return;
        }
        if let Err(e) = self.plant() {
            self.error(format!("plant: {e}"));
        }
    }

    pub(super) fn var(&self, name: &str) -> Option<String> {
        lock(&self.vars).get(name).map(str::to_string)
    }

    pub(super) fn set_var(&self, name: &str, value: &str) {
        lock(&self.vars).set(name, value);
    }

    fn error(&self, text: String) {
        lock(&self.record).errors.push(text);
    }

    fn set_outcome(&self, name: Option<&str>, outcome: Outcome) {
        if let Some(name) = name {
            lock(&self.record)
                .outcomes
                .insert(name.to_string(), outcome);
        }
    }

    /// Runs steps in order; `child` is the session nested steps run on.
    pub(super) fn run_steps(self: &Arc<Self>, steps: &[LegStep], child: Option<&Session>) {
        for indexed in steps {
            // `{popupTarget}` is looked up when a step needs it.
            if serde_json::to_string(&indexed.step).is_ok_and(|s| s.contains("{popupTarget}")) {
                self.find_popup();
            }
            let expanded = lock(&self.vars).expand_step(&indexed.step);
            let step = match expanded {
                Ok(step) => step,
                Err(e) => {
                    self.error(format!("step {}: {e}", indexed.index));
                    continue;
                }
            };
            match &step {
                Step::Text(t) => {
                    if self.plant == Plant::AtText && super::says_plant(&t.text) {
                        self.plant_now();
                    }
                }
                Step::Wait(w) => std::thread::sleep(Duration::from_millis(w.wait)),
                Step::Cdp(s) => {
                    self.cdp_step(s, indexed.index, indexed.refusal_name.as_deref(), child)
                }
                Step::Page(s) => self.page_step(s, child),
                Step::Answer(s) => self.answer_step(s),
                Step::Children(s) => self.children_step(s, &indexed.children),
                Step::Settle(s) => self.settle_step(s),
                Step::Guess(s) => self.guess_step(s),
            }
        }
    }

    /// The session id a step's `session` names (`None`: the browser session).
    fn session_for(
        self: &Arc<Self>,
        session: Option<&str>,
        child: Option<&Session>,
    ) -> Result<Option<String>, String> {
        match session.unwrap_or("page") {
            "browser" => Ok(None),
            "child" => {
                if let Some(child) = child {
                    return Ok(Some(child.session_id.clone()));
                }
                self.join_children();
                let deadline = Instant::now() + CHILD_WAIT;
                loop {
                    if let Some(s) = lock(&self.children).last() {
                        return Ok(Some(s.session_id.clone()));
                    }
                    if Instant::now() >= deadline {
                        return Err("no child session within 5000ms".into());
                    }
                    std::thread::sleep(POLL);
                }
            }
            _ => self.page_session().map(Some),
        }
    }

    /// The row page's session, opening an `about:blank` page when there is none yet.
    fn page_session(self: &Arc<Self>) -> Result<String, String> {
        if let Some(page) = lock(&self.page).as_ref() {
            return Ok(page.session_id.clone());
        }
        self.open_tab("about:blank", self.context.clone(), true)?;
        lock(&self.page)
            .as_ref()
            .map(|p| p.session_id.clone())
            .ok_or_else(|| "no page".to_string())
    }

    /// Opens a tab at `url` (via `about:blank`, then a tracked navigation) in `context`, makes it
    /// the page and records its session.
    fn open_tab(
        self: &Arc<Self>,
        url: &str,
        context: Option<String>,
        background: bool,
    ) -> Result<(), String> {
        let mut params = json!({ "url": "about:blank", "background": background });
        let context = context.filter(|c| !c.is_empty());
        if let Some(ctx) = &context {
            params["browserContextId"] = Value::String(ctx.clone());
        }
        *lock(&self.page_context) = context;
        let created = self
            .client
            .send("Target.createTarget", params, None)
            .map_err(|e| format!("Target.createTarget: {e}"))?;
        let target_id = created
            .get("targetId")
            .and_then(Value::as_str)
            .ok_or("Target.createTarget gave no targetId")?
            .to_string();
        lock(&self.own_targets).insert(target_id.clone());
        lock(&self.opened).push(target_id.clone());
        let attached = self
            .client
            .send(
                "Target.attachToTarget",
                json!({ "targetId": target_id, "flatten": true }),
                None,
            )
            .map_err(|e| format!("Target.attachToTarget: {e}"))?;
        let session_id = attached
            .get("sessionId")
            .and_then(Value::as_str)
            .ok_or("Target.attachToTarget gave no sessionId")?
            .to_string();
        lock(&self.record).sessions.push(SessionRecord {
            role: "page".into(),
            session_id: session_id.clone(),
            target_id: target_id.clone(),
            url: url.to_string(),
        });
        *lock(&self.page) = Some(Session {
            session_id: session_id.clone(),
            target_id: target_id.clone(),
        });
        self.set_var("pageTarget", &target_id);
        self.client
            .send("Page.enable", json!({}), Some(&session_id))
            .map_err(|e| format!("Page.enable on the new tab: {e}"))?;
        if url != "about:blank" {
            self.navigate(&session_id, url)?;
        }
        Ok(())
    }

    /// `Page.navigate` and a wait for that navigation's own main-frame commit and load.
    fn navigate(&self, session: &str, url: &str) -> Result<Value, String> {
        let from = self.client.event_count();
        let answer = self
            .client
            .send("Page.navigate", json!({ "url": url }), Some(session))
            .map_err(|e| format!("Page.navigate {url}: {e}"))?;
        if let Some(error) = answer.get("errorText").and_then(Value::as_str) {
            return Err(format!("Page.navigate {url}: {error}"));
        }
        let loader = answer
            .get("loaderId")
            .and_then(Value::as_str)
            .map(str::to_string);
        self.wait_load(session, from, loader.as_deref(), LOAD_TIMEOUT)?;
        Ok(answer)
    }

    /// Waits for a main-frame `Page.frameNavigated` on `session` (with `loader` when given)
    /// at event `from` or later, then a `Page.loadEventFired` after it.
    pub(super) fn wait_load(
        &self,
        session: &str,
        from: usize,
        loader: Option<&str>,
        timeout: Duration,
    ) -> Result<(), String> {
        let deadline = Instant::now() + timeout;
        let session_owned = session.to_string();
        let loader_owned = loader.map(str::to_string);
        let committed = self.client.wait_event(
            from,
            &|e: &Event| {
                e.method == "Page.frameNavigated"
                    && e.session_id.as_deref() == Some(session_owned.as_str())
                    && e.params.pointer("/frame/parentId").is_none()
                    && loader_owned.as_deref().is_none_or(|l| {
                        e.params.pointer("/frame/loaderId").and_then(Value::as_str) == Some(l)
                    })
            },
            timeout,
        );
        let Some((index, _)) = committed else {
            return Err(format!(
                "no main-frame commit within {}ms",
                timeout.as_millis()
            ));
        };
        let left = deadline.saturating_duration_since(Instant::now());
        self.client
            .wait_event(
                index + 1,
                &|e: &Event| {
                    e.method == "Page.loadEventFired"
                        && e.session_id.as_deref() == Some(session_owned.as_str())
                },
                left,
            )
            .map(|_| ())
            .ok_or_else(|| format!("no load event within {}ms", timeout.as_millis()))
    }

    fn cdp_step(
        self: &Arc<Self>,
        step: &CdpStep,
        index: usize,
        refusal_name: Option<&str>,
        child: Option<&Session>,
    ) {
        let session = match self.session_for(step.session.as_deref(), child) {
            Ok(s) => s,
            // No such session (a guard kept the client off the child): the call has no value.
            Err(e) => {
                self.set_outcome(step.name.as_deref(), Outcome::Failed(e));
                return;
            }
        };
        // A call whose params name a browser context can only go to the browser target.
        let session = if step.session.as_deref() == Some(crate::vectors::SESSION_PAGE_OR_BROWSER)
            && step
                .params
                .as_ref()
                .is_some_and(|p| p.contains_key("browserContextId"))
        {
            None
        } else {
            session
        };
        if step.cdp == "Target.detachFromTarget" && self.detach_delay > 0 {
            std::thread::sleep(Duration::from_millis(self.detach_delay));
        }
        let params = Value::Object(step.params.clone().unwrap_or_default());
        let explicit_attach = (step.cdp == "Target.attachToTarget")
            .then(|| {
                params
                    .get("targetId")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .flatten();
        if let Some(target) = &explicit_attach {
            lock(&self.own_targets).insert(target.clone());
        }
        let answer = self.client.send(&step.cdp, params, session.as_deref());
        if let (Some(target), Ok(result)) = (&explicit_attach, &answer) {
            if let Some(sid) = result.get("sessionId").and_then(Value::as_str) {
                lock(&self.record).sessions.push(SessionRecord {
                    role: "attached".into(),
                    session_id: sid.to_string(),
                    target_id: target.clone(),
                    url: String::new(),
                });
            }
        }
        if step.cdp == "Target.createBrowserContext" {
            if let Ok(result) = &answer {
                if let (Some(name), Some(id)) = (
                    step.name.as_deref(),
                    result.get("browserContextId").and_then(Value::as_str),
                ) {
                    self.set_var(name, id);
                }
            }
        }
        // A child's step that fails once its session is gone: the child detached.
        if let (Err(e), Some(sid)) = (&answer, session.as_deref()) {
            let role = self.role_of(sid);
            let known_detached = role
                .as_deref()
                .is_some_and(|r| lock(&self.record).detached.contains(r));
            if role.as_deref() == Some("child") && (known_detached || session_gone(e)) {
                lock(&self.record).detached.insert("child".into());
                self.set_outcome(step.name.as_deref(), call_outcome(&answer));
                return;
            }
        }
        if step.refusable == Some(true) {
            let name = refusal_name.map_or_else(
                || crate::vectors::refusal_name(step.name.as_deref(), index),
                str::to_string,
            );
            if let Err(e) = &answer {
                let (code, text) = match e {
                    CallError::Protocol { code, message } => (code.to_string(), message.clone()),
                    other => (String::new(), other.to_string()),
                };
                let matched = step.refusal.as_ref().is_some_and(|r| {
                    Regex::new(&r.pattern)
                        .map(|re| re.is_match(&text) || (!code.is_empty() && re.is_match(&code)))
                        .unwrap_or(false)
                });
                let mut record = lock(&self.record);
                record.refusal_errors.insert(name.clone(), text);
                if matched && matches!(e, CallError::Protocol { .. }) {
                    record.refused.insert(name);
                }
            }
        }
        self.set_outcome(step.name.as_deref(), call_outcome(&answer));
    }

    /// The role of a session id (`page`, `child`, `attached`).
    pub(super) fn role_of(&self, session: &str) -> Option<String> {
        if lock(&self.page)
            .as_ref()
            .is_some_and(|p| p.session_id == session)
        {
            return Some("page".into());
        }
        if lock(&self.children).iter().any(|c| c.session_id == session) {
            return Some("child".into());
        }
        lock(&self.record)
            .sessions
            .iter()
            .find(|s| s.session_id == session)
            .map(|s| s.role.clone())
    }

    fn page_step(self: &Arc<Self>, step: &PageStep, child: Option<&Session>) {
        let name = step.name.as_deref();
        let url = step.url.clone().unwrap_or_default();
        let url = match &step.hops {
            Some(hops) if !hops.is_empty() => chain_start(hops, &url),
            _ => url,
        };
        let final_url = step
            .hops
            .as_ref()
            .filter(|h| !h.is_empty())
            .and(step.url.clone());
        let action = step.page.as_str();
        if action == "tab" {
            let context = step.context.clone().or_else(|| self.context.clone());
            if let Err(e) = self.open_tab(&url, context, step.background.unwrap_or(true)) {
                self.error(format!("tab {url}: {e}"));
            }
            return;
        }
        let session = match self.session_for(step.session.as_deref(), child) {
            Ok(Some(s)) => s,
            Ok(None) => match self.page_session() {
                Ok(s) => s,
                Err(e) => {
                    self.set_outcome(name, Outcome::Failed(e.clone()));
                    self.error(format!("page {action}: {e}"));
                    return;
                }
            },
            // No such session (a guard kept the client off the child): nothing to act on.
            Err(e) => {
                self.set_outcome(name, Outcome::Failed(e));
                return;
            }
        };
        let log = self.var("log").unwrap_or_default();
        let tag = self.var("tag").unwrap_or_default();
        match action {
            "navigate" => {
                self.mark_action(final_url);
                match self.navigate(&session, &url) {
                    Ok(answer) => self.set_outcome(name, call_outcome(&Ok(answer))),
                    Err(e) => {
                        self.nav_error(&session, &url, &e);
                        self.set_outcome(name, Outcome::Failed(e));
                    }
                }
            }
            "href" | "replace" | "form" | "post" | "open" => {
                let Some(src) = js::page_action(action, &url, &log, &tag) else {
                    return;
                };
                self.mark_action(final_url);
                let answer = self.client.send(
                    "Runtime.evaluate",
                    json!({ "expression": src, "userGesture": true, "returnByValue": true }),
                    Some(&session),
                );
                let outcome = eval_outcome(answer);
                if let Outcome::Failed(e) = &outcome {
                    self.note_session_failure(&session);
                    self.nav_error(&session, &url, e);
                }
                self.set_outcome(name, outcome);
            }
            "iframe" | "framed" => {
                let (src, nav) = if action == "iframe" {
                    (js::iframe(&url), None)
                } else {
                    let from = step.from.clone().unwrap_or_default();
                    let framed = js::framed_url(&from, &url);
                    (String::new(), Some(framed))
                };
                self.mark_action(final_url);
                // The pre-action heartbeat names the framed URL itself.
                let pre = js::pre_url(&log, &tag, &url);
                let _ = self.client.send(
                    "Runtime.evaluate",
                    json!({
                        "expression": format!(
                            "fetch({}, {{ mode: 'no-cors', keepalive: true }}).then(function () {{ return true; }}, function () {{ return false; }})",
                            Value::String(pre)
                        ),
                        "awaitPromise": true,
                        "returnByValue": true,
                    }),
                    Some(&session),
                );
                std::thread::sleep(Duration::from_millis(50));
                let outcome = match nav {
                    Some(framed) => match self.navigate(&session, &framed) {
                        Ok(answer) => call_outcome(&Ok(answer)),
                        Err(e) => {
                            self.nav_error(&session, &framed, &e);
                            Outcome::Failed(e)
                        }
                    },
                    None => eval_outcome(self.client.send(
                        "Runtime.evaluate",
                        json!({ "expression": src, "returnByValue": true }),
                        Some(&session),
                    )),
                };
                self.set_outcome(name, outcome);
            }
            "fetch" | "xhr" | "image" => {
                let Some(src) = js::load(
                    action,
                    &url,
                    step.status == Some(true),
                    step.credentials.as_deref(),
                ) else {
                    return;
                };
                let params = json!({
                    "expression": src, "awaitPromise": true, "returnByValue": true,
                });
                if step.background == Some(true) {
                    let bg = Arc::new(Background::default());
                    if let Some(name) = name {
                        lock(&self.background).insert(name.to_string(), Arc::clone(&bg));
                    }
                    let leg = Arc::clone(self);
                    std::thread::spawn(move || {
                        let outcome = eval_outcome(leg.client.send(
                            "Runtime.evaluate",
                            params,
                            Some(&session),
                        ));
                        if let Outcome::Failed(e) = &outcome {
                            leg.nav_error(&session, &url, e);
                        }
                        *lock(&bg.done) = Some(outcome);
                        bg.cond.notify_all();
                    });
                } else {
                    let outcome =
                        eval_outcome(self.client.send("Runtime.evaluate", params, Some(&session)));
                    if let Outcome::Failed(e) = &outcome {
                        self.nav_error(&session, &url, e);
                    }
                    self.set_outcome(name, outcome);
                }
            }
            "eval" => {
                let expression = step.expression.clone().unwrap_or_default();
                let outcome = eval_outcome(self.client.send(
                    "Runtime.evaluate",
                    json!({ "expression": expression, "awaitPromise": true, "returnByValue": true }),
                    Some(&session),
                ));
                if matches!(outcome, Outcome::Failed(_)) {
                    self.note_session_failure(&session);
                } else if js::is_probe(&expression) {
                    self.probes.fetch_add(1, Ordering::SeqCst);
                }
                self.set_outcome(name, outcome);
            }
            other => self.error(format!("unknown page action {other:?}")),
        }
    }

    /// Records an error the client got for a URL a page action loaded (what a `blocked` check
    /// reads on the client side); it does not fail the leg, since a guard may well cause it.
    fn nav_error(&self, session: &str, url: &str, error: &str) {
        let role = self.role_of(session).unwrap_or_else(|| "page".into());
        lock(&self.record).navigation_errors.push(NavigationError {
            session: role,
            url: url.to_string(),
            error: error.to_string(),
        });
    }

    /// A call on a child session failed: when that session is gone, the child detached.
    fn note_session_failure(&self, session: &str) {
        if self.role_of(session).as_deref() == Some("child") {
            let gone = self
                .client
                .send(
                    "Runtime.evaluate",
                    json!({ "expression": "1" }),
                    Some(session),
                )
                .is_err_and(|e| session_gone(&e));
            if gone {
                lock(&self.record).detached.insert("child".into());
            }
        }
    }

    fn mark_action(&self, final_url: Option<String>) {
        *lock(&self.action) = Some(ActionMark {
            mark: self.stand_in.mark(),
            final_url,
        });
    }

    fn answer_step(&self, step: &AnswerStep) {
        let a = &step.answer;
        lock(&self.answers).push(AnswerRule {
            url: a.url.clone(),
            stage: a.stage.clone(),
            cdp: a.cdp.clone(),
            params: a.params.clone().unwrap_or_default(),
            hold: a.hold == Some(true),
        });
    }

    fn children_step(&self, step: &ChildrenStep, nested: &[LegStep]) {
        let vars = lock(&self.vars).clone();
        let r#where = step.r#where.as_ref().map(|w| Where {
            opener_id: w.opener_id.clone(),
            url_prefix: w.url_prefix.as_ref().map(|p| vars.expand_str(p)),
            extra: w.extra.clone(),
        });
        lock(&self.rules).push(ChildRule {
            from_event: self.client.event_count(),
            steps: nested.to_vec(),
            r#where,
        });
    }

    fn settle_step(self: &Arc<Self>, step: &SettleStep) {
        let s = &step.settle;
        if s.variant == Some(true) {
            std::thread::sleep(Duration::from_millis(self.detach_delay));
            return;
        }
        let ms = s.ms.unwrap_or(SETTLE_DEFAULT_MS);
        let deadline = Instant::now() + Duration::from_millis(ms);
        let met = if let Some(origin) = &s.beacon {
            let tag = self.var("tag").unwrap_or_default();
            let mark = lock(&self.action).clone();
            let since = mark.as_ref().map_or(self.start_mark, |m| m.mark);
            let final_url = mark.and_then(|m| m.final_url);
            let mut met = false;
            while !met && Instant::now() < deadline {
                let log = self.stand_in.since(since, &tag);
                met = log.iter().any(|e| is_beacon(e, &tag, origin))
                    && final_url
                        .as_deref()
                        .is_none_or(|u| log.iter().any(|e| e.url == u));
                if !met {
                    std::thread::sleep(POLL);
                }
            }
            if !met && s.required == Some(true) {
                let excused = s.depends_on.as_ref().is_some_and(|names| {
                    let record = lock(&self.record);
                    names.iter().any(|n| record.refused.contains(n))
                });
                if !excused {
                    self.error(format!("settle: no beacon from {origin} within {ms}ms"));
                }
            }
            met
        } else if let Some(title) = &s.title {
            let mut met = false;
            while !met && Instant::now() < deadline {
                met = self.page_session().ok().is_some_and(|sid| {
                    self.client
                        .send(
                            "Runtime.evaluate",
                            json!({ "expression": "document.title", "returnByValue": true }),
                            Some(&sid),
                        )
                        .ok()
                        .and_then(|r| r.pointer("/result/value").cloned())
                        == Some(Value::String(title.clone()))
                });
                if !met {
                    std::thread::sleep(POLL);
                }
            }
            met
        } else if let Some(role) = &s.session {
            let mut met = false;
            while !met && Instant::now() < deadline {
                met = lock(&self.record).detached.contains(role);
                if !met {
                    std::thread::sleep(POLL);
                }
            }
            met
        } else {
            // A main-frame commit followed by its load, on the page.
            match self.page_session() {
                Ok(sid) => {
                    let from = self.client.event_count();
                    self.wait_load(&sid, from, None, Duration::from_millis(ms))
                        .is_ok()
                }
                Err(_) => false,
            }
        };
        let _ = met;
        std::thread::sleep(SETTLE_EXTRA);
    }

    fn guess_step(self: &Arc<Self>, step: &GuessStep) {
        let g = &step.guess;
        let find = |url: &str| lock(&self.paused).iter().find(|p| p.url == url).cloned();
        let (Some(a), Some(b)) = (
            g.between.first().and_then(|u| find(u)),
            g.between.get(1).and_then(|u| find(u)),
        ) else {
            self.set_outcome(
                Some(&step.name),
                Outcome::Failed(format!(
                    "guess: no paused request for {}",
                    g.between.join(" or ")
                )),
            );
            return;
        };
        let attempts: Vec<Value> = ids_between(&a.request_id, &b.request_id)
            .into_iter()
            .map(|id| {
                let mut params = g.params.clone();
                params.insert("requestId".into(), Value::String(id.clone()));
                let answer = self
                    .client
                    .send(&g.cdp, Value::Object(params), a.session.as_deref());
                let mut value = match call_outcome(&answer) {
                    Outcome::Value(v) => v,
                    Outcome::Failed(e) => json!({ "ok": false, "error": { "message": e } }),
                    Outcome::Pending => json!({ "ok": false }),
                };
                value["requestId"] = Value::String(id);
                value
            })
            .collect();
        self.set_outcome(Some(&step.name), Outcome::Value(Value::Array(attempts)));
    }

    /// Waits for the nested steps of every child started so far.
    fn join_children(&self) {
        loop {
            let handles: Vec<JoinHandle<()>> = lock(&self.child_threads).drain(..).collect();
            if handles.is_empty() {
                return;
            }
            for h in handles {
                let _ = h.join();
            }
        }
    }

    /// The latest popup of the row's page, from the events delivered so far (waiting up to 5 s
    /// for one), into `{popupTarget}`.
    fn find_popup(&self) {
        let Some(page) = self.var("pageTarget") else {
            return;
        };
        let opener = |e: &Event| -> Option<String> {
            let info = e.params.get("targetInfo")?;
            (info.get("openerId").and_then(Value::as_str) == Some(page.as_str())
                && info.get("type").and_then(Value::as_str) == Some("page"))
            .then(|| {
                info.get("targetId")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .flatten()
        };
        let deadline = Instant::now() + CHILD_WAIT;
        loop {
            let latest = self
                .client
                .events_since(self.start_event)
                .iter()
                .rev()
                .filter(|e| {
                    matches!(
                        e.method.as_str(),
                        "Target.targetCreated"
                            | "Target.targetInfoChanged"
                            | "Target.attachedToTarget"
                    )
                })
                .find_map(opener);
            if let Some(id) = latest {
                self.set_var("popupTarget", &id);
                return;
            }
            if Instant::now() >= deadline {
                return;
            }
            std::thread::sleep(POLL);
        }
    }

    /// Updates the URLs of child and attached sessions that were attached before their first
    /// navigation (a popup waiting for the debugger shows an empty URL), from the client.
    fn refresh_session_urls(&self) {
        let sessions = lock(&self.record).sessions.clone();
        for (i, s) in sessions.iter().enumerate() {
            if s.role == "page" || !(s.url.is_empty() || s.url == "about:blank") {
                continue;
            }
            let href = self
                .client
                .send(
                    "Runtime.evaluate",
                    json!({ "expression": "location.href", "returnByValue": true }),
                    Some(&s.session_id),
                )
                .ok()
                .and_then(|r| {
                    r.pointer("/result/value")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                });
            if let Some(href) = href {
                if let Some(rec) = lock(&self.record).sessions.get_mut(i) {
                    rec.url = href;
                }
            }
        }
    }

    /// Closes what the leg opened.
    fn close(&self) {
        for target in lock(&self.opened).drain(..) {
            let _ = self
                .client
                .send("Target.closeTarget", json!({ "targetId": target }), None);
        }
        if let Some(observer) = &self.observer {
            for target in lock(&self.observer_opened).drain(..) {
                let _ = observer.send("Target.closeTarget", json!({ "targetId": target }), None);
            }
        }
    }
}
