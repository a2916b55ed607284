//! The leg's event pump: paused requests, auth challenges, auto-attached targets, detaches.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::state::{AnswerRule, ChildRule, LegSession, LegState, Paused, SessionRole};
use super::util::lock;
use super::CHILD_WAIT;
use crate::harness::runner::record::SessionRecord;
use crate::harness::runner::transport::Event;

/// The pump: answers paused requests, runs `children` steps on attached targets, notes
/// detaches and popups, until the leg stops.
pub(super) fn pump(leg: &Arc<LegState>) {
    let mut cursor = leg.start_event;
    let interesting = |e: &Event| {
        matches!(
            e.method.as_str(),
            "Fetch.requestPaused"
                | "Fetch.authRequired"
                | "Target.attachedToTarget"
                | "Target.detachedFromTarget"
                | "Inspector.detached"
        )
    };
    while !leg.stop.load(Ordering::SeqCst) {
        let Some((index, event)) =
            leg.client
                .wait_event(cursor, &interesting, Duration::from_millis(100))
        else {
            continue;
        };
        cursor = index + 1;
        match event.method.as_str() {
            "Fetch.requestPaused" => leg.on_paused(&event, false),
            "Fetch.authRequired" => leg.on_paused(&event, true),
            "Target.attachedToTarget" => leg.on_attached(&event, index),
            "Target.detachedFromTarget" => {
                if let Some(sid) = event.params.get("sessionId").and_then(Value::as_str) {
                    leg.on_detached(sid);
                }
            }
            "Inspector.detached" => {
                if let Some(sid) = event.session_id.as_deref() {
                    leg.on_detached(sid);
                }
            }
            _ => {}
        }
    }
}

impl LegState {
    /// A session detached: the guard's `detached` for its role, unless the client's own call
    /// detached it (issue 21, reading 6).
    fn on_detached(&self, session: &str) {
        if lock(&self.self_detached).contains(session) {
            return;
        }
        if let Some(role) = self.role_of(session) {
            lock(&self.record).detached.insert(role.as_str().into());
        }
    }

    fn on_paused(&self, event: &Event, auth: bool) {
        let p = &event.params;
        let Some(id) = p.get("requestId").and_then(Value::as_str) else {
            return;
        };
        let url = p
            .pointer("/request/url")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let response_stage =
            p.get("responseStatusCode").is_some() || p.get("responseErrorReason").is_some();
        let session = event.session_id.clone();
        lock(&self.paused).push(Paused {
            url: url.clone(),
            request_id: id.to_string(),
            session: session.clone(),
        });
        let rule = lock(&self.answers)
            .iter()
            .find(|r| {
                r.url == url
                    && if auth {
                        r.hold || r.cdp.as_deref() == Some("Fetch.continueWithAuth")
                    } else {
                        r.cdp.as_deref() != Some("Fetch.continueWithAuth")
                            && r.stage
                                .as_deref()
                                .is_none_or(|s| (s == "Response") == response_stage)
                    }
            })
            .cloned();
        let (method, mut params) = match rule {
            Some(r) if r.hold => return,
            Some(AnswerRule {
                cdp: Some(cdp),
                params,
                ..
            }) => (cdp, params),
            _ if auth => (
                "Fetch.continueWithAuth".to_string(),
                json!({ "authChallengeResponse": { "response": "Default" } })
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            ),
            _ => ("Fetch.continueRequest".to_string(), Map::new()),
        };
        params.insert("requestId".into(), Value::String(id.to_string()));
        let _ = self
            .client
            .send(&method, Value::Object(params), session.as_deref());
    }

    /// The URL the frame `frame_id` is navigating to, from the Page events delivered before
    /// event `before` (`frameStartedNavigating`, `frameRequestedNavigation`, `frameNavigated`).
    fn frame_url(&self, frame_id: &str, before: usize) -> Option<String> {
        let events = self.client.events_since(self.start_event);
        let upto = before.saturating_sub(self.start_event).min(events.len());
        events[..upto].iter().rev().find_map(|e| {
            let p = &e.params;
            let (id, url) = match e.method.as_str() {
                "Page.frameStartedNavigating" | "Page.frameRequestedNavigation" => {
                    (p.get("frameId"), p.get("url"))
                }
                "Page.frameNavigated" => (p.pointer("/frame/id"), p.pointer("/frame/url")),
                _ => return None,
            };
            (id.and_then(Value::as_str) == Some(frame_id))
                .then(|| url.and_then(Value::as_str).map(str::to_string))
                .flatten()
        })
    }

    fn on_attached(self: &Arc<Self>, event: &Event, index: usize) {
        let p = &event.params;
        let (Some(sid), Some(info)) = (
            p.get("sessionId").and_then(Value::as_str),
            p.get("targetInfo"),
        ) else {
            return;
        };
        let target_id = info.get("targetId").and_then(Value::as_str).unwrap_or("");
        if lock(&self.own_targets).contains(target_id) {
            return;
        }
        let url = match info.get("url").and_then(Value::as_str) {
            Some(u) if !u.is_empty() => u.to_string(),
            // An out-of-process iframe attaches before it commits, with an empty URL: its
            // navigation is in the parent session's Page events (frame id = target id).
            _ => self.frame_url(target_id, index).unwrap_or_default(),
        };
        let url = url.as_str();
        let opener = info.get("openerId").and_then(Value::as_str);
        let page_target = self.var("pageTarget");
        let waiting = p
            .get("waitingForDebugger")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let rules: Vec<ChildRule> = lock(&self.rules)
            .iter()
            .filter(|r| r.from_event <= index)
            .filter(|r| match &r.r#where {
                None => true,
                Some(w) => {
                    w.opener_id
                        .as_deref()
                        .is_none_or(|_| opener.is_some() && opener == page_target.as_deref())
                        && w.url_prefix
                            .as_deref()
                            .is_none_or(|pre| url.starts_with(pre))
                }
            })
            .cloned()
            .collect();
        let client = Arc::clone(&self.client);
        let sid = sid.to_string();
        let child = LegSession {
            session_id: sid.clone(),
            target_id: target_id.to_string(),
            parent: event.session_id.clone(),
        };
        let record_session = |leg: &LegState| {
            lock(&leg.record).sessions.push(SessionRecord {
                role: SessionRole::Child.as_str().into(),
                session_id: sid.clone(),
                target_id: target_id.to_string(),
                url: url.to_string(),
            });
        };
        if rules.is_empty() {
            // In a leg with no `children` step, an auto-attached page or iframe is still the
            // current child (`session: "child"`, child reads, `attached`), resumed at once; in
            // one with a `children` step, a target it does not cover is resumed and otherwise
            // left alone (issue 21, reading 5). Browser UI and worker targets are never the
            // child.
            let kind = info.get("type").and_then(Value::as_str);
            let implicit = !self.has_children_step && matches!(kind, Some("page" | "iframe"));
            if implicit {
                record_session(self);
                lock(&self.children).push(child);
            }
            if waiting || implicit {
                std::thread::spawn(move || {
                    let _ = client.send("Runtime.runIfWaitingForDebugger", json!({}), Some(&sid));
                });
            }
            return;
        }
        record_session(self);
        let leg = Arc::clone(self);
        let current = child.clone();
        let handle = std::thread::spawn(move || {
            for rule in &rules {
                leg.run_steps(&rule.steps, Some(&child));
            }
            lock(&leg.record).executed.insert("child".into());
            let page_enabled = rules
                .iter()
                .flat_map(|r| r.steps.iter())
                .any(|s| s.step.method() == Some("Page.enable"));
            let from = client.event_count();
            let _ = client.send("Runtime.runIfWaitingForDebugger", json!({}), Some(&sid));
            if page_enabled {
                // The child's first document: commit and load, bounded at 5 s. A popup's
                // initial `about:blank` is not its first document (issue 21, reading 12).
                let _ = leg.wait_document(std::slice::from_ref(&sid), from, None, true, CHILD_WAIT);
            }
        });
        // The thread is joinable before the child is visible, so that a step that finds the
        // child (`session: "child"`) can wait for its `children` steps and first document
        // (issue 21, reading 12).
        lock(&self.child_threads).push(handle);
        lock(&self.children).push(current);
    }
}
