//! The observer's part of a leg: planting the canary and the reads the judge needs, never
//! through the guard.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use super::error::{NavigateFault, ObserverError};
use super::state::{LegState, SessionRole};
use super::util::{eval_outcome, lock};
use super::LOAD_TIMEOUT;
use crate::harness::runner::expand::encode_uri_component;
use crate::harness::runner::js;
use crate::harness::runner::record::{Read, Recorded};
use crate::harness::runner::transport::{Event, Transport};

impl LegState {
    /// Plants the canary on `{target}` through the observer: the stand-in's `/plant` in a tab of
    /// the leg's context, then the storage canary stored by that page.
    pub(super) fn plant(&self) -> Result<(), ObserverError> {
        let observer = self.observer.as_ref().ok_or(ObserverError::NoObserver)?;
        let target = self.var("target").ok_or(ObserverError::NoVar("target"))?;
        let tag = self.var("tag").unwrap_or_default();
        let cookie = self.var("cookie").ok_or(ObserverError::NoVar("cookie"))?;
        let url = format!(
            "{target}/plant?tag={}&name={}&value={}",
            encode_uri_component(&tag),
            encode_uri_component(&cookie),
            encode_uri_component(&tag)
        );
        let session = self.observer_tab(observer.as_ref(), &url)?;
        let answer = observer.send(
            "Runtime.evaluate",
            json!({
                "expression": js::canary_plant(&cookie, &tag),
                "awaitPromise": true,
                "returnByValue": true,
            }),
            Some(&session),
        );
        if let Recorded::Failed(why) = eval_outcome(answer) {
            return Err(ObserverError::Canary { target, why });
        }
        lock(&self.plant_sessions).insert(target, session);
        Ok(())
    }

    /// Opens a tab at `url` through the observer, in the leg's context, and waits for its load;
    /// returns the observer's session on it.
    fn observer_tab(&self, observer: &dyn Transport, url: &str) -> Result<String, ObserverError> {
        let call = |method| {
            move |error| ObserverError::Call {
                method,
                on: None,
                error,
            }
        };
        let navigate = |fault| ObserverError::Navigate {
            url: url.to_string(),
            fault,
        };
        let mut params = json!({ "url": "about:blank", "background": true });
        // The context of the row's page when it has one (a `tab` step may have opened it in a
        // context of its own), else the leg's.
        let context = lock(&self.page_context)
            .clone()
            .or_else(|| self.context.clone());
        if let Some(ctx) = context {
            params["browserContextId"] = Value::String(ctx);
        }
        let created = observer
            .send("Target.createTarget", params, None)
            .map_err(call("Target.createTarget"))?;
        let target_id = created
            .get("targetId")
            .and_then(Value::as_str)
            .ok_or(ObserverError::Missing("targetId"))?
            .to_string();
        lock(&self.observer_opened).push(target_id.clone());
        let session = self.observer_session(observer, &target_id)?;
        observer
            .send("Page.enable", json!({}), Some(&session))
            .map_err(call("Page.enable"))?;
        let from = observer.event_count();
        let answer = observer
            .send("Page.navigate", json!({ "url": url }), Some(&session))
            .map_err(|e| navigate(NavigateFault::Call(e)))?;
        if let Some(error) = answer.get("errorText").and_then(Value::as_str) {
            return Err(navigate(NavigateFault::Refused(error.to_string())));
        }
        let sid = session.clone();
        observer
            .wait_event(
                from,
                &|e: &Event| {
                    e.method == "Page.loadEventFired"
                        && e.session_id.as_deref() == Some(sid.as_str())
                },
                LOAD_TIMEOUT,
            )
            .ok_or_else(|| ObserverError::NoLoad {
                url: url.to_string(),
                wait: LOAD_TIMEOUT,
            })?;
        Ok(session)
    }

    /// The observer's flat session on `target_id` (attached on demand).
    fn observer_session(
        &self,
        observer: &dyn Transport,
        target_id: &str,
    ) -> Result<String, ObserverError> {
        observer
            .send(
                "Target.attachToTarget",
                json!({ "targetId": target_id, "flatten": true }),
                None,
            )
            .map_err(|error| ObserverError::Call {
                method: "Target.attachToTarget",
                on: Some(target_id.to_string()),
                error,
            })?
            .get("sessionId")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or(ObserverError::Missing("sessionId"))
    }

    /// `f` on a flat session of the observer's on `target_id`, detached afterwards.
    fn on_observer_session<T>(
        &self,
        observer: &dyn Transport,
        target_id: &str,
        f: impl FnOnce(&str) -> T,
    ) -> Result<T, ObserverError> {
        let sid = self.observer_session(observer, target_id)?;
        let out = f(&sid);
        let _ = observer.send("Target.detachFromTarget", json!({ "sessionId": sid }), None);
        Ok(out)
    }

    /// The target a read's `session` (`page` or `child`) names.
    fn read_target(&self, session: &str) -> Option<String> {
        if session == SessionRole::Child.as_str() {
            lock(&self.children).last().map(|c| c.target_id.clone())
        } else {
            lock(&self.page).as_ref().map(|p| p.target_id.clone())
        }
    }

    /// One read through the observer.
    pub(super) fn read(&self, read: &Read) -> Recorded {
        let Some(observer) = self.observer.as_ref() else {
            return Recorded::Failed("no unguarded observer".into());
        };
        let observer = observer.as_ref();
        match read {
            Read::Title { session } => {
                let Some(target) = self.read_target(session) else {
                    return Recorded::Failed(format!("no {session} target"));
                };
                match observer.send("Target.getTargetInfo", json!({ "targetId": target }), None) {
                    Ok(info) => Recorded::Value(
                        info.pointer("/targetInfo/title")
                            .cloned()
                            .unwrap_or(Value::Null),
                    ),
                    Err(e) => Recorded::Failed(e.to_string()),
                }
            }
            Read::Expression {
                expression,
                session,
            } => {
                let Some(target) = self.read_target(session) else {
                    return Recorded::Failed(format!("no {session} target"));
                };
                self.on_observer_session(observer, &target, |sid| {
                    eval_outcome(observer.send(
                        "Runtime.evaluate",
                        json!({ "expression": expression, "awaitPromise": true, "returnByValue": true }),
                        Some(sid),
                    ))
                })
                .unwrap_or_else(|e| Recorded::Failed(e.to_string()))
            }
            Read::History { session } => {
                let Some(target) = self.read_target(session) else {
                    return Recorded::Failed(format!("no {session} target"));
                };
                self.on_observer_session(observer, &target, |sid| {
                    match observer.send("Page.getNavigationHistory", json!({}), Some(sid)) {
                        Ok(h) => Recorded::Value(Value::Array(
                            h.get("entries")
                                .and_then(Value::as_array)
                                .map(|entries| {
                                    entries
                                        .iter()
                                        .filter_map(|e| e.get("url").cloned())
                                        .collect()
                                })
                                .unwrap_or_default(),
                        )),
                        Err(e) => Recorded::Failed(e.to_string()),
                    }
                })
                .unwrap_or_else(|e| Recorded::Failed(e.to_string()))
            }
            Read::Errors { session, frame } => {
                let Some(target) = self.read_target(session) else {
                    return Recorded::Failed(format!("no {session} target"));
                };
                self.read_errors(observer, &target, *frame)
            }
            Read::State {
                origin,
                cookie,
                storage,
            } => self.read_state(observer, origin, cookie, *storage),
        }
    }

    /// The error frames of `target` (and, with `frame`, of its out-of-process iframes).
    fn read_errors(&self, observer: &dyn Transport, target: &str, frame: bool) -> Recorded {
        let mut out = Vec::new();
        let mut frame_ids = BTreeSet::new();
        let read = self.on_observer_session(observer, target, |sid| {
            observer.send("Page.getFrameTree", json!({}), Some(sid))
        });
        match read {
            Err(e) => return Recorded::Failed(e.to_string()),
            Ok(Err(e)) => return Recorded::Failed(format!("Page.getFrameTree: {e}")),
            Ok(Ok(tree)) => {
                if let Some(root) = tree.get("frameTree") {
                    collect_error_frames(root, false, &mut out, &mut frame_ids);
                }
            }
        }
        if frame {
            let targets = observer
                .send("Target.getTargets", json!({}), None)
                .ok()
                .and_then(|t| t.get("targetInfos").cloned())
                .and_then(|t| t.as_array().cloned())
                .unwrap_or_default();
            for info in targets {
                if info.get("type").and_then(Value::as_str) != Some("iframe") {
                    continue;
                }
                let parent_frame = info.get("parentFrameId").and_then(Value::as_str);
                if parent_frame.is_some_and(|p| !frame_ids.contains(p)) {
                    continue;
                }
                let Some(tid) = info.get("targetId").and_then(Value::as_str) else {
                    continue;
                };
                let read = self.on_observer_session(observer, tid, |fsid| {
                    observer.send("Page.getFrameTree", json!({}), Some(fsid))
                });
                if let Ok(Ok(tree)) = read {
                    if let Some(root) = tree.get("frameTree") {
                        let mut inner = Vec::new();
                        collect_error_frames(root, true, &mut inner, &mut BTreeSet::new());
                        for mut f in inner {
                            if f.get("parentId").is_none() {
                                if let Some(p) = parent_frame {
                                    f["parentId"] = Value::String(p.to_string());
                                }
                            }
                            out.push(f);
                        }
                    }
                }
            }
        }
        Recorded::Value(Value::Array(out))
    }

    /// The canary on `origin`, read through the observer's plant tab.
    fn read_state(
        &self,
        observer: &dyn Transport,
        origin: &str,
        cookie: &str,
        storage: bool,
    ) -> Recorded {
        let Some(session) = lock(&self.plant_sessions).get(origin).cloned() else {
            return Recorded::Failed(format!("no canary was planted on {origin}"));
        };
        if storage {
            match eval_outcome(observer.send(
                "Runtime.evaluate",
                json!({ "expression": js::canary_read(cookie), "awaitPromise": true, "returnByValue": true }),
                Some(&session),
            )) {
                Recorded::Value(v) => Recorded::Value(v.get("storage").cloned().unwrap_or(Value::String(String::new()))),
                other => other,
            }
        } else {
            match observer.send(
                "Network.getCookies",
                json!({ "urls": [format!("{origin}/")] }),
                Some(&session),
            ) {
                Ok(r) => Recorded::Value(Value::String(
                    r.get("cookies")
                        .and_then(Value::as_array)
                        .and_then(|cs| {
                            cs.iter()
                                .find(|c| c.get("name").and_then(Value::as_str) == Some(cookie))
                        })
                        .and_then(|c| c.get("value").and_then(Value::as_str))
                        .unwrap_or("")
                        .to_string(),
                )),
                Err(e) => Recorded::Failed(format!("Network.getCookies: {e}")),
            }
        }
    }
}

/// The frames of a frame tree showing an error page (`unreachableUrl` set), as
/// `{url, unreachableUrl, frameId, parentId?, oopif}`; every frame id goes into `ids`.
fn collect_error_frames(
    node: &Value,
    oopif: bool,
    out: &mut Vec<Value>,
    ids: &mut BTreeSet<String>,
) {
    if let Some(frame) = node.get("frame") {
        if let Some(id) = frame.get("id").and_then(Value::as_str) {
            ids.insert(id.to_string());
        }
        if let Some(unreachable) = frame.get("unreachableUrl").and_then(Value::as_str) {
            let mut entry = json!({
                "url": frame.get("url").cloned().unwrap_or(Value::Null),
                "unreachableUrl": unreachable,
                "frameId": frame.get("id").cloned().unwrap_or(Value::Null),
                "oopif": oopif,
            });
            if let Some(parent) = frame.get("parentId") {
                entry["parentId"] = parent.clone();
            }
            out.push(entry);
        }
    }
    if let Some(children) = node.get("childFrames").and_then(Value::as_array) {
        for child in children {
            collect_error_frames(child, oopif, out, ids);
        }
    }
}
