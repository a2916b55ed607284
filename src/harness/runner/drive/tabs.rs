//! A leg's sessions and tabs: the session a step's `session` names, the row's page (opened on
//! demand), tabs opened and navigated with a wait for their own commit and load, session roles,
//! and what a failed load or a lost child session records.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::error::{NavigateFault, TabError};
use super::state::{LegSession, LegState, SessionRole};
use super::util::{lock, session_gone};
use super::{CHILD_WAIT, LOAD_TIMEOUT, POLL};
use crate::harness::runner::record::{NavigationError, SessionRecord};
use crate::harness::runner::transport::Event;
use crate::vectors::{SESSION_BROWSER, SESSION_CHILD, SESSION_PAGE};

impl LegState {
    /// The session id a step's `session` names (`None`: the browser session). A step nested in
    /// `children` (`child` is its target) without `session` runs on that child: the spec's
    /// `children` "runs the nested steps on every target auto-attached" (issue 21, reading 4).
    pub(super) fn session_for(
        self: &Arc<Self>,
        session: Option<&str>,
        child: Option<&LegSession>,
    ) -> Result<Option<String>, TabError> {
        let default = if child.is_some() {
            SESSION_CHILD
        } else {
            SESSION_PAGE
        };
        match session.unwrap_or(default) {
            SESSION_BROWSER => Ok(None),
            SESSION_CHILD => {
                if let Some(child) = child {
                    return Ok(Some(child.session_id.clone()));
                }
                self.join_children();
                let deadline = Instant::now() + CHILD_WAIT;
                loop {
                    let found = lock(&self.children).last().map(|s| s.session_id.clone());
                    if let Some(s) = found {
                        // It may have attached while this step waited: its `children` steps
                        // and first document come first (issue 21, reading 12).
                        self.join_children();
                        return Ok(Some(s));
                    }
                    if Instant::now() >= deadline {
                        return Err(TabError::NoChild(CHILD_WAIT));
                    }
                    std::thread::sleep(POLL);
                }
            }
            _ => self.page_session().map(Some),
        }
    }

    /// The row page's session, opening an `about:blank` page when there is none yet.
    pub(super) fn page_session(self: &Arc<Self>) -> Result<String, TabError> {
        if let Some(page) = lock(&self.page).as_ref() {
            return Ok(page.session_id.clone());
        }
        self.open_tab("about:blank", self.context.clone(), true)?;
        lock(&self.page)
            .as_ref()
            .map(|p| p.session_id.clone())
            .ok_or(TabError::NoPage)
    }

    /// Opens a tab at `url` (via `about:blank`, then a tracked navigation) in `context`, makes it
    /// the page and records its session.
    pub(super) fn open_tab(
        self: &Arc<Self>,
        url: &str,
        context: Option<String>,
        background: bool,
    ) -> Result<(), TabError> {
        let mut params = json!({ "url": "about:blank", "background": background });
        let context = context.filter(|c| !c.is_empty());
        if let Some(ctx) = &context {
            params["browserContextId"] = Value::String(ctx.clone());
        }
        *lock(&self.page_context) = context;
        let created = self
            .client
            .send("Target.createTarget", params, None)
            .map_err(|error| TabError::Call {
                method: "Target.createTarget",
                error,
            })?;
        let target_id = created
            .get("targetId")
            .and_then(Value::as_str)
            .ok_or(TabError::Missing {
                method: "Target.createTarget",
                member: "targetId",
            })?
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
            .map_err(|error| TabError::Call {
                method: "Target.attachToTarget",
                error,
            })?;
        let session_id = attached
            .get("sessionId")
            .and_then(Value::as_str)
            .ok_or(TabError::Missing {
                method: "Target.attachToTarget",
                member: "sessionId",
            })?
            .to_string();
        lock(&self.record).sessions.push(SessionRecord {
            role: SessionRole::Page.as_str().into(),
            session_id: session_id.clone(),
            target_id: target_id.clone(),
            url: url.to_string(),
        });
        *lock(&self.page) = Some(LegSession {
            session_id: session_id.clone(),
            target_id: target_id.clone(),
            parent: None,
        });
        self.set_var("pageTarget", &target_id);
        self.client
            .send("Page.enable", json!({}), Some(&session_id))
            .map_err(TabError::EnablePage)?;
        if url != "about:blank" {
            self.navigate(&session_id, url)?;
        }
        Ok(())
    }

    /// `Page.navigate` and a wait for that navigation's own main-frame commit and load.
    pub(super) fn navigate(&self, session: &str, url: &str) -> Result<Value, TabError> {
        let failed = |fault| TabError::Navigate {
            url: url.to_string(),
            fault,
        };
        let from = self.client.event_count();
        let answer = self
            .client
            .send("Page.navigate", json!({ "url": url }), Some(session))
            .map_err(|e| failed(NavigateFault::Call(e)))?;
        if let Some(error) = answer.get("errorText").and_then(Value::as_str) {
            return Err(failed(NavigateFault::Refused(error.to_string())));
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
    ) -> Result<(), TabError> {
        self.wait_document(&[session.to_string()], from, loader, false, timeout)
    }

    /// Waits for a main-frame `Page.frameNavigated` on one of `sessions` (with `loader` when
    /// given; not an `about:blank` commit when `skip_blank`) at event `from` or later, then a
    /// `Page.loadEventFired` on that session after it.
    pub(super) fn wait_document(
        &self,
        sessions: &[String],
        from: usize,
        loader: Option<&str>,
        skip_blank: bool,
        timeout: Duration,
    ) -> Result<(), TabError> {
        let deadline = crate::sys::deadline(timeout);
        let committed = self.client.wait_event(
            from,
            &|e: &Event| {
                e.method == "Page.frameNavigated"
                    && e.session_id.as_ref().is_some_and(|s| sessions.contains(s))
                    && e.params.pointer("/frame/parentId").is_none()
                    && loader.is_none_or(|l| {
                        e.params.pointer("/frame/loaderId").and_then(Value::as_str) == Some(l)
                    })
                    && !(skip_blank
                        && e.params.pointer("/frame/url").and_then(Value::as_str)
                            == Some("about:blank"))
            },
            timeout,
        );
        let Some((index, commit)) = committed else {
            return Err(TabError::NoCommit(timeout));
        };
        let left = deadline.saturating_duration_since(Instant::now());
        self.client
            .wait_event(
                index + 1,
                &|e: &Event| e.method == "Page.loadEventFired" && e.session_id == commit.session_id,
                left,
            )
            .map(|_| ())
            .ok_or(TabError::NoLoad(timeout))
    }

    /// The role of a session id.
    pub(super) fn role_of(&self, session: &str) -> Option<SessionRole> {
        if lock(&self.page)
            .as_ref()
            .is_some_and(|p| p.session_id == session)
        {
            return Some(SessionRole::Page);
        }
        if lock(&self.children).iter().any(|c| c.session_id == session) {
            return Some(SessionRole::Child);
        }
        lock(&self.record)
            .sessions
            .iter()
            .find(|s| s.session_id == session)
            .and_then(|s| SessionRole::parse(&s.role))
    }

    /// Records an error the client got for a URL a page action loaded (what a `blocked` check
    /// reads on the client side); it does not fail the leg, since a guard may well cause it.
    pub(super) fn nav_error(&self, session: &str, url: &str, error: &str) {
        let role = self.role_of(session).unwrap_or(SessionRole::Page);
        lock(&self.record).navigation_errors.push(NavigationError {
            session: role.as_str().to_string(),
            url: url.to_string(),
            error: error.to_string(),
        });
    }

    /// A call on a child session failed: when that session is gone, the child detached.
    pub(super) fn note_session_failure(&self, session: &str) {
        if self.role_of(session) == Some(SessionRole::Child) {
            let gone = self
                .client
                .send(
                    "Runtime.evaluate",
                    json!({ "expression": "1" }),
                    Some(session),
                )
                .is_err_and(|e| session_gone(&e));
            if gone {
                lock(&self.record)
                    .detached
                    .insert(SessionRole::Child.as_str().into());
            }
        }
    }
}
