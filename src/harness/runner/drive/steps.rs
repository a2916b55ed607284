//! The step executors: `cdp`, `page` (every page action), `answer`, `children`, `settle` and
//! `guess`, each on the leg's shared state.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use regex::Regex;
use serde_json::{json, Value};

use super::error::TabError;
use super::state::{
    ActionMark, AnswerRule, Background, ChildRule, LegSession, LegState, PageAction, SessionRole,
};
use super::util::{
    answered, call_outcome, failure_text, ids_between, lock, page_outcome, session_gone,
};
use super::{POLL, SETTLE_DEFAULT_MS, SETTLE_EXTRA};
use crate::harness::runner::expand::{chain_start, LegStep};
use crate::harness::runner::js;
use crate::harness::runner::logurl::is_beacon;
use crate::harness::runner::record::{Recorded, SessionRecord};
use crate::harness::runner::transport::CallError;
use crate::vectors::{AnswerStep, CdpStep, ChildrenStep, GuessStep, PageStep, SettleStep, Where};

/// Numbers the background loads a page keeps (see [`js::load_started`]).
static BACKGROUND_KEYS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl LegState {
    /// A `cdp` step answered "method not found": a skip (`not-supported:<method>`) when the
    /// browser lacks the method, as far as anything can tell; a leg error when the unguarded
    /// observer's browser has it (the guard answered so itself, which must not turn a failing
    /// row into a skip).
    fn method_not_found(&self, method: &str, message: &str) {
        let browser_has = self.observer.as_ref().and_then(|o| o.has_method(method));
        let mut record = lock(&self.record);
        if browser_has == Some(true) {
            record.errors.push(format!(
                "{method}: answered \"{message}\", but the browser has it (its /json/protocol)"
            ));
        } else {
            record.unsupported.insert(method.to_string());
        }
    }

    pub(super) fn cdp_step(
        self: &Arc<Self>,
        step: &CdpStep,
        index: usize,
        refusal_name: Option<&str>,
        child: Option<&LegSession>,
    ) {
        let session = match self.session_for(step.session.as_deref(), child) {
            Ok(s) => s,
            // No such session (a guard kept the client off the child): the call has no value.
            Err(e) => {
                self.set_outcome(step.name.as_deref(), Recorded::Failed(e.to_string()));
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
        let detaching = self.mark_self_detached(&step.cdp, &params, session.as_deref());
        if !detaching.is_empty() {
            // What those sessions show, read while the client still holds them (`attached`
            // reads a session's URL; a popup attached before its first navigation has none).
            self.refresh_session_urls();
        }
        let answer = self.client.send(&step.cdp, params, session.as_deref());
        if let Err(CallError::Protocol { code, message }) = &answer {
            if crate::harness::runner::record::method_not_found(*code, message) {
                self.method_not_found(&step.cdp, message);
            }
        }
        if answer.is_err() {
            let mut marked = lock(&self.self_detached);
            for s in &detaching {
                marked.remove(s);
            }
        }
        if let (Some(target), Ok(result)) = (&explicit_attach, &answer) {
            if let Some(sid) = result.get("sessionId").and_then(Value::as_str) {
                lock(&self.record).sessions.push(SessionRecord {
                    role: SessionRole::Attached.as_str().into(),
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
            let known_detached =
                role.is_some_and(|r| lock(&self.record).detached.contains(r.as_str()));
            let by_client = lock(&self.self_detached).contains(sid);
            if role == Some(SessionRole::Child) && !by_client && (known_detached || session_gone(e))
            {
                lock(&self.record)
                    .detached
                    .insert(SessionRole::Child.as_str().into());
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

    pub(super) fn page_step(self: &Arc<Self>, step: &PageStep, child: Option<&LegSession>) {
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
        let action_name = step.page.as_str();
        let action = PageAction::parse(action_name);
        if action == Some(PageAction::Tab) {
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
                    self.set_outcome(name, Recorded::Failed(e.to_string()));
                    self.error(format!("page {action_name}: {e}"));
                    return;
                }
            },
            // No such session (a guard kept the client off the child): nothing to act on.
            Err(e) => {
                self.set_outcome(name, Recorded::Failed(e.to_string()));
                return;
            }
        };
        let log = self.var("log").unwrap_or_default();
        let tag = self.var("tag").unwrap_or_default();
        match action {
            Some(PageAction::Navigate) => {
                self.mark_action(&session, final_url);
                match self.navigate(&session, &url) {
                    Ok(answer) => self.set_outcome(name, call_outcome(&Ok(answer))),
                    Err(e) => {
                        let e = e.to_string();
                        self.nav_error(&session, &url, &e);
                        self.set_outcome(name, Recorded::Failed(e));
                    }
                }
            }
            Some(
                action @ (PageAction::Href
                | PageAction::Replace
                | PageAction::Form
                | PageAction::Post
                | PageAction::Open),
            ) => {
                let Some(src) = js::page_action(action.as_str(), &url, &log, &tag) else {
                    return;
                };
                self.mark_action(&session, final_url);
                let answer = self.client.send(
                    "Runtime.evaluate",
                    json!({ "expression": src, "userGesture": true, "returnByValue": true }),
                    Some(&session),
                );
                let outcome = page_outcome(answer);
                if !answered(&outcome) {
                    self.note_session_failure(&session);
                    self.nav_error(&session, &url, &failure_text(&outcome));
                }
                self.set_outcome(name, outcome);
            }
            Some(action @ (PageAction::Iframe | PageAction::Framed)) => {
                let (src, nav) = if action == PageAction::Iframe {
                    (js::iframe(&url), None)
                } else {
                    let from = step.from.clone().unwrap_or_default();
                    let framed = js::framed_url(&from, &url);
                    (String::new(), Some(framed))
                };
                self.mark_action(&session, final_url);
                // The pre-action heartbeat names the framed URL itself.
                self.pre_heartbeat(&session, &log, &tag, &url);
                std::thread::sleep(Duration::from_millis(50));
                let outcome = match nav {
                    Some(framed) => match self.navigate(&session, &framed) {
                        Ok(answer) => call_outcome(&Ok(answer)),
                        Err(e) => {
                            let e = e.to_string();
                            self.nav_error(&session, &framed, &e);
                            Recorded::Failed(e)
                        }
                    },
                    None => page_outcome(self.client.send(
                        "Runtime.evaluate",
                        json!({ "expression": src, "returnByValue": true }),
                        Some(&session),
                    )),
                };
                self.set_outcome(name, outcome);
            }
            Some(action @ (PageAction::Fetch | PageAction::Xhr | PageAction::Image)) => {
                let status = step.status == Some(true);
                let credentials = step.credentials.as_deref();
                let Some(src) = js::load(action.as_str(), &url, status, credentials) else {
                    return;
                };
                // The pre-action heartbeat, as for navigations, so that `pre` with a `blocked`
                // load proves liveness (issue 21, reading 11).
                self.pre_heartbeat(&session, &log, &tag, &url);
                if step.background == Some(true) {
                    let bg = Arc::new(Background::default());
                    if let Some(name) = name {
                        lock(&self.background).insert(name.to_string(), Arc::clone(&bg));
                    }
                    // The step returns once the page has issued the request (its `fetch()`,
                    // `send()` or `src` ran), so background loads go out in step order however
                    // late a thread would be scheduled; a thread then awaits the result.
                    let key = format!("L{}", BACKGROUND_KEYS.fetch_add(1, Ordering::Relaxed));
                    let start = js::load_started(action.as_str(), &url, status, credentials, &key)
                        .unwrap_or_default();
                    let started = page_outcome(self.client.send(
                        "Runtime.evaluate",
                        json!({ "expression": start, "returnByValue": true }),
                        Some(&session),
                    ));
                    if !answered(&started) {
                        self.nav_error(&session, &url, &failure_text(&started));
                        *lock(&bg.done) = Some(started);
                        bg.cond.notify_all();
                        return;
                    }
                    let params = json!({
                        "expression": js::load_result(&key),
                        "awaitPromise": true,
                        "returnByValue": true,
                    });
                    let leg = Arc::clone(self);
                    std::thread::spawn(move || {
                        let outcome = page_outcome(leg.client.send(
                            "Runtime.evaluate",
                            params,
                            Some(&session),
                        ));
                        if !answered(&outcome) {
                            leg.nav_error(&session, &url, &failure_text(&outcome));
                        }
                        *lock(&bg.done) = Some(outcome);
                        bg.cond.notify_all();
                    });
                } else {
                    let params = json!({
                        "expression": src, "awaitPromise": true, "returnByValue": true,
                    });
                    let outcome =
                        page_outcome(self.client.send("Runtime.evaluate", params, Some(&session)));
                    if !answered(&outcome) {
                        self.nav_error(&session, &url, &failure_text(&outcome));
                    }
                    self.set_outcome(name, outcome);
                }
            }
            Some(PageAction::Eval) => {
                let expression = step.expression.clone().unwrap_or_default();
                let outcome = page_outcome(self.client.send(
                    "Runtime.evaluate",
                    json!({ "expression": expression, "awaitPromise": true, "returnByValue": true }),
                    Some(&session),
                ));
                if !answered(&outcome) {
                    self.note_session_failure(&session);
                } else if js::is_probe(&expression) {
                    self.probes.fetch_add(1, Ordering::SeqCst);
                }
                self.set_outcome(name, outcome);
            }
            // handled above
            Some(PageAction::Tab) => {}
            None => self.error(format!("unknown page action {action_name:?}")),
        }
    }

    pub(super) fn mark_action(&self, session: &str, final_url: Option<String>) {
        *lock(&self.action) = Some(ActionMark {
            mark: self.stand_in.mark(),
            event: self.client.event_count(),
            session: Some(session.to_string()),
            final_url,
        });
    }

    /// The sessions a call will detach itself, marked before it is sent so that the pump never
    /// reads their detach as a guard's (issue 21, reading 6): an explicit
    /// `Target.detachFromTarget` or `Target.closeTarget`, and `Target.setAutoAttach` with
    /// `autoAttach: false`, which detaches every session auto-attached on the session it is
    /// sent on.
    pub(super) fn mark_self_detached(
        &self,
        method: &str,
        params: &Value,
        session: Option<&str>,
    ) -> Vec<String> {
        let param = |k: &str| params.get(k).and_then(Value::as_str);
        let attached: Vec<(String, String)> = lock(&self.record)
            .sessions
            .iter()
            .map(|s| (s.session_id.clone(), s.target_id.clone()))
            .collect();
        let mut out: Vec<String> = match method {
            "Target.detachFromTarget" => match (param("sessionId"), param("targetId")) {
                (Some(sid), _) => vec![sid.to_string()],
                (None, Some(tid)) => attached
                    .iter()
                    .filter(|(_, t)| t == tid)
                    .map(|(s, _)| s.clone())
                    .collect(),
                (None, None) => Vec::new(),
            },
            "Target.closeTarget" => param("targetId").map_or_else(Vec::new, |tid| {
                attached
                    .iter()
                    .filter(|(_, t)| t == tid)
                    .map(|(s, _)| s.clone())
                    .collect()
            }),
            "Target.setAutoAttach"
                if params.get("autoAttach").and_then(Value::as_bool) == Some(false) =>
            {
                lock(&self.children)
                    .iter()
                    .filter(|c| c.parent.as_deref() == session)
                    .map(|c| c.session_id.clone())
                    .collect()
            }
            _ => Vec::new(),
        };
        out.sort();
        out.dedup();
        lock(&self.self_detached).extend(out.iter().cloned());
        out
    }

    /// Sends the pre-action heartbeat `<log>/live?tag=&step=pre&to=<url>` from the page and
    /// waits for its answer (or its failure).
    fn pre_heartbeat(&self, session: &str, log: &str, tag: &str, url: &str) {
        let pre = js::pre_url(log, tag, url);
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
            Some(session),
        );
    }

    pub(super) fn answer_step(&self, step: &AnswerStep) {
        let a = &step.answer;
        lock(&self.answers).push(AnswerRule {
            url: a.url.clone(),
            stage: a.stage.clone(),
            cdp: a.cdp.clone(),
            params: a.params.clone().unwrap_or_default(),
            hold: a.hold == Some(true),
        });
    }

    pub(super) fn children_step(&self, step: &ChildrenStep, nested: &[LegStep]) {
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

    pub(super) fn settle_step(self: &Arc<Self>, step: &SettleStep) {
        let s = &step.settle;
        if s.variant == Some(true) {
            // The run's detach variant instead of the fixed `ms`, then, like every settle, a
            // main-frame commit followed by its load, then 600 ms (issue 21, reading 1).
            std::thread::sleep(Duration::from_millis(self.detach_delay));
            let _ = self.wait_action_document(Duration::from_millis(SETTLE_DEFAULT_MS));
            std::thread::sleep(SETTLE_EXTRA);
            return;
        }
        let ms = s.ms.unwrap_or(SETTLE_DEFAULT_MS);
        let deadline = crate::sys::deadline(Duration::from_millis(ms));
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

    /// Waits for a main-frame commit followed by its load that came after the last page action
    /// started, on the session it ran on or on a child (a popup it opened); without a page
    /// action, one from now on the page.
    fn wait_action_document(self: &Arc<Self>, timeout: Duration) -> Result<(), TabError> {
        let action = lock(&self.action).clone();
        let (from, session) = match action {
            Some(ActionMark {
                event,
                session: Some(session),
                ..
            }) => (event, session),
            _ => (self.client.event_count(), self.page_session()?),
        };
        let mut sessions = vec![session];
        sessions.extend(lock(&self.children).iter().map(|c| c.session_id.clone()));
        self.wait_document(&sessions, from, None, true, timeout)
    }

    pub(super) fn guess_step(self: &Arc<Self>, step: &GuessStep) {
        let g = &step.guess;
        let find = |url: &str| lock(&self.paused).iter().find(|p| p.url == url).cloned();
        let (Some(a), Some(b)) = (
            g.between.first().and_then(|u| find(u)),
            g.between.get(1).and_then(|u| find(u)),
        ) else {
            self.set_outcome(
                Some(&step.name),
                Recorded::Failed(format!(
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
                    Recorded::Value(v) => v,
                    Recorded::Failed(e) => json!({ "ok": false, "error": { "message": e } }),
                    Recorded::Pending => json!({ "ok": false }),
                };
                value["requestId"] = Value::String(id);
                value
            })
            .collect();
        // The `cdp` step's shape (issue 21, reading 2): `result` is the attempts, `ok` whether
        // one of them was answered, and `value` (what a check with no `path` reads) the
        // attempts too.
        let ok = attempts
            .iter()
            .any(|a| a.get("ok") == Some(&Value::Bool(true)));
        self.set_outcome(
            Some(&step.name),
            Recorded::Value(json!({ "ok": ok, "result": attempts, "value": attempts })),
        );
    }
}
