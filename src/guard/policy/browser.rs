//! Browser to client: responses and events.

use std::collections::HashSet;

use serde_json::{json, Value};

use super::client::guard_pattern;
use super::scrub::{host_of, scrubbed_domain, set_cookie_domain, strip_cookie_header, Judging};
use super::state::{Check, Kind, Own, Pending, Session, Target, Then};
use crate::protected::Opener;

use super::{int_id, session_of, Output, Policy, Verdict, RESERVED_IDS};

impl Policy {
    pub(super) fn browser_frame(&mut self, frame: &str, out: &mut Output) {
        let v: Value = match serde_json::from_str(frame) {
            Ok(v @ Value::Object(_)) => v,
            _ => return out.set(Verdict::Invalid, "browser frame is not a JSON object"),
        };
        if v.get("id").is_some() {
            self.response(frame, v, out);
        } else if let Some(method) = v.get("method").and_then(Value::as_str) {
            let method = method.to_string();
            self.event(frame, v, &method, out);
        } else {
            out.set(Verdict::Invalid, "neither a response nor an event");
        }
    }

    /// Scrubs `v[member]` of what names a protected origin: `Err` when the message names one
    /// outside any list (then it must not reach the client), `Ok(changed)` otherwise.
    fn scrub_member(&self, v: &mut Value, member: &str) -> Result<bool, ()> {
        let Some(part) = v.get_mut(member) else {
            return Ok(false);
        };
        let mut changed = false;
        let judging = Judging {
            m: &self.m,
            hidden: |t: &str| self.hidden(t, false),
            cookie_params: false,
        };
        if judging.scrub(part, &mut changed) {
            Err(())
        } else {
            Ok(changed)
        }
    }

    /// Sends `v` to the client: the original frame when nothing changed.
    fn deliver(&self, frame: &str, v: &Value, changed: bool, out: &mut Output) {
        if changed {
            out.to_client.push(v.to_string());
            out.set(Verdict::Rewrite, "protected parts taken out");
        } else {
            out.to_client.push(frame.to_string());
            out.set(Verdict::Forward, "");
        }
    }

    // ---------------------------------------------------------------- responses

    fn response(&mut self, frame: &str, mut v: Value, out: &mut Output) {
        let key = session_of(&v);
        let Some(id) = int_id(&v) else {
            return out.set(Verdict::Invalid, "response without an integer id");
        };
        if RESERVED_IDS.contains(&id) {
            return self.own_response(id, &v, out);
        }
        let Some(p) = self.pending.remove(&(key.clone(), id)) else {
            return out.set(Verdict::Drop, "response to no command the client sent");
        };
        if let Some(s) = self.sessions.get(&key) {
            if s.closed || self.hidden(&s.target, false) {
                let refusal = self.m.refusal().to_string();
                out.to_client
                    .push(self.refusal_frame(&key, &Value::from(id), &refusal));
                return out.set(Verdict::Refuse, "session turned protected");
            }
        }
        if v.get("error").is_some() {
            out.to_client.push(frame.to_string());
            return out.set(Verdict::Forward, "");
        }
        let mut changed = false;
        match p.method.as_str() {
            "Target.attachToTarget" => return self.attach_response(frame, v, &key, id, &p, out),
            "Target.attachToBrowserTarget" => {
                if let Some(sid) = v["result"]["sessionId"].as_str() {
                    let mut s = Session::new("", Kind::Browser, &key, self.cfg.per_session);
                    s.visible = true;
                    self.sessions.insert(sid.to_string(), s);
                }
            }
            "Target.getTargets" => {
                let infos = v["result"]["targetInfos"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                for info in &infos {
                    self.learn(info, out);
                }
                if let Some(items) = v
                    .pointer_mut("/result/targetInfos")
                    .and_then(Value::as_array_mut)
                {
                    let before = items.len();
                    let targets = &self.targets;
                    items.retain(|i| {
                        i["targetId"]
                            .as_str()
                            .is_some_and(|t| targets.get(t).is_some_and(|t| !t.protected))
                    });
                    changed = items.len() != before;
                }
            }
            "Target.getTargetInfo" => {
                let info = v["result"]["targetInfo"].clone();
                if self.learn(&info, out) {
                    let refusal = self.m.refusal().to_string();
                    out.to_client
                        .push(self.refusal_frame(&key, &Value::from(id), &refusal));
                    return out.set(Verdict::Refuse, "target is protected");
                }
            }
            "Page.getNavigationHistory" => {
                if let Some(entries) = v
                    .pointer_mut("/result/entries")
                    .and_then(Value::as_array_mut)
                {
                    for e in entries.iter_mut() {
                        let bad = ["url", "userTypedURL"]
                            .iter()
                            .any(|k| e[*k].as_str().is_some_and(|u| self.m.cookie_url(u)));
                        if let (Some(eid), Some(s)) =
                            (e["id"].as_i64(), self.sessions.get_mut(&key))
                        {
                            s.history.insert(eid, bad);
                        }
                        if bad {
                            e["url"] = json!("about:blank");
                            e["userTypedURL"] = json!("about:blank");
                            e["title"] = json!("");
                            changed = true;
                        }
                    }
                }
            }
            "Page.getFrameTree" | "Page.getResourceTree" => {
                if let Some(main) = self.tree_reaches(&v["result"]["frameTree"]) {
                    let refusal = self.m.refusal().to_string();
                    out.to_client
                        .push(self.refusal_frame(&key, &Value::from(id), &refusal));
                    self.session_reached(&key, main, out);
                    return out.set(Verdict::Refuse, "frame on a protected origin");
                }
            }
            _ => {}
        }
        match self.scrub_member(&mut v, "result") {
            Err(()) => {
                let refusal = self.m.refusal().to_string();
                out.to_client
                    .push(self.refusal_frame(&key, &Value::from(id), &refusal));
                out.set(Verdict::Refuse, "result names a protected origin");
            }
            Ok(more) => self.deliver(frame, &v, changed || more, out),
        }
    }

    /// Whether a frame tree holds a frame whose URL or origin is protected: `Some(true)` when
    /// it is the main frame.
    fn tree_reaches(&self, tree: &Value) -> Option<bool> {
        fn walk(p: &Policy, node: &Value, main: bool) -> Option<bool> {
            let f = &node["frame"];
            let hit = ["url", "securityOrigin"]
                .iter()
                .any(|k| f[*k].as_str().is_some_and(|u| p.m.cookie_url(u)));
            if hit {
                return Some(main);
            }
            node["childFrames"]
                .as_array()
                .and_then(|kids| kids.iter().find_map(|k| walk(p, k, false)))
        }
        walk(self, tree, true)
    }

    /// A session showed a protected document: its target is protected when `main`, else the
    /// session alone is detached.
    fn session_reached(&mut self, key: &str, main: bool, out: &mut Output) {
        let Some(target) = self.session(key).map(|s| s.target.clone()) else {
            return;
        };
        if main && !target.is_empty() {
            if let Some(t) = self.targets.get_mut(&target) {
                t.origin = true;
            }
            self.protect_target(&target, out);
        }
        self.detach(key, out);
    }

    fn attach_response(
        &mut self,
        frame: &str,
        v: Value,
        key: &str,
        id: i64,
        p: &Pending,
        out: &mut Output,
    ) {
        let Some(sid) = v["result"]["sessionId"].as_str().map(str::to_string) else {
            out.to_client.push(frame.to_string());
            return out.set(Verdict::Forward, "");
        };
        let then = Then::Attached {
            response: v,
            client_session: key.to_string(),
            id,
        };
        if !self.sessions.contains_key(&sid) {
            // No attachedToTarget event came first: judge the target as the command named it.
            let target = p.target.clone().unwrap_or_default();
            let kind = self
                .targets
                .get(&target)
                .map_or(Kind::Document, |t| Kind::of(&t.kind));
            self.sessions.insert(
                sid.clone(),
                Session::new(&target, kind, key, self.cfg.per_session),
            );
            if self.hidden(&target, true) {
                self.detach(&sid, out);
            } else {
                return self.check_session(&sid, vec![then], out);
            }
        }
        let (closed, visible) = self
            .sessions
            .get(&sid)
            .map_or((true, false), |s| (s.closed, s.visible));
        if closed {
            let refusal = self.m.refusal().to_string();
            out.to_client
                .push(self.refusal_frame(key, &Value::from(id), &refusal));
            return out.set(Verdict::Refuse, "target is protected");
        }
        if visible {
            return self.release(then, out);
        }
        if let Some(h) = self.holds.values_mut().find(|h| h.session == sid) {
            h.then.push(then);
            return out.set(Verdict::Hold, "session checked first");
        }
        self.release(then, out)
    }

    /// Starts the policy's checks on a new session (document interception, frame tree) and
    /// holds `then` until they are answered. Sessions that hold no documents are released now.
    fn check_session(&mut self, sid: &str, then: Vec<Then>, out: &mut Output) {
        let kind = self.sessions.get(sid).map(|s| s.kind);
        if kind != Some(Kind::Document) {
            if let Some(s) = self.sessions.get_mut(sid) {
                s.visible = true;
            }
            for t in then {
                self.release(t, out);
            }
            return;
        }
        let checks = vec![
            (
                "Fetch.enable",
                json!({"patterns": [guard_pattern()]}),
                Check::Fetch,
            ),
            ("Page.getFrameTree", json!({}), Check::FrameTree),
        ];
        self.hold(sid, checks, then, out);
        out.set(Verdict::Hold, "session checked first");
    }

    /// Sends on what a settled hold kept back.
    fn release(&mut self, then: Then, out: &mut Output) {
        match then {
            Then::Attached { response, .. } => {
                out.to_client.push(response.to_string());
                out.set(Verdict::Forward, "");
            }
            Then::AutoAttached { mut event, resume } => {
                let sid = event["params"]["sessionId"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                // The target was judged unprotected; only opener ids are taken out here.
                let _ = self.scrub_member(&mut event, "params");
                out.to_client.push(event.to_string());
                if resume {
                    let msg = self.own_command(
                        &sid,
                        "Runtime.runIfWaitingForDebugger",
                        json!({}),
                        Own::Ignore,
                    );
                    out.to_browser.push(msg);
                }
                out.set(Verdict::Forward, "");
            }
            Then::Command {
                frame,
                session,
                id,
                method,
            } => {
                self.pending.insert(
                    (session, id),
                    Pending {
                        method,
                        target: None,
                    },
                );
                out.to_browser.push(frame);
                out.set(Verdict::Forward, "");
            }
        }
    }

    /// Ends a hold: releases what it kept, or fails it closed.
    pub(super) fn settle_hold(&mut self, hid: u64, out: &mut Output) {
        let Some(h) = self.holds.remove(&hid) else {
            return;
        };
        let open = self
            .session(&h.session)
            .is_some_and(|s| !s.closed && !self.hidden(&s.target, false));
        let blocked = h.blocked || !open;
        if blocked {
            self.detach(&h.session, out);
            let refusal = self.m.refusal().to_string();
            for t in h.then {
                match t {
                    Then::Attached {
                        client_session, id, ..
                    }
                    | Then::Command {
                        session: client_session,
                        id,
                        ..
                    } => {
                        out.to_client.push(self.refusal_frame(
                            &client_session,
                            &Value::from(id),
                            &refusal,
                        ));
                    }
                    Then::AutoAttached { .. } => {}
                }
            }
            return;
        }
        if let Some(s) = self.sessions.get_mut(&h.session) {
            s.visible = true;
        }
        for t in h.then {
            self.release(t, out);
        }
    }

    fn own_response(&mut self, id: i64, v: &Value, out: &mut Output) {
        out.set(Verdict::Own, "answer to the guard's own command");
        let Some((session, why)) = self.own.remove(&id) else {
            return;
        };
        match why {
            Own::Ignore => {}
            Own::Discover => {
                self.ready = true;
                self.rejudge(out);
                let queued: Vec<String> = self.queue.drain(..).collect();
                for frame in queued {
                    self.client_frame(&frame, out);
                }
                out.set(Verdict::Own, "guard ready");
            }
            Own::Check { hold, what } => {
                let ok = v.get("error").is_none();
                let blocked = match what {
                    Check::Fetch => {
                        if ok {
                            if let Some(s) = self.sessions.get_mut(&session) {
                                s.guarded = true;
                            }
                        }
                        !ok
                    }
                    Check::FrameTree => {
                        !ok || match self.tree_reaches(&v["result"]["frameTree"]) {
                            Some(main) => {
                                if main {
                                    self.session_reached(&session, true, out);
                                }
                                true
                            }
                            None => false,
                        }
                    }
                    Check::History { entry } => {
                        let mut found = None;
                        if let Some(entries) = v["result"]["entries"].as_array() {
                            for e in entries {
                                let bad = ["url", "userTypedURL"]
                                    .iter()
                                    .any(|k| e[*k].as_str().is_some_and(|u| self.m.cookie_url(u)));
                                if let Some(eid) = e["id"].as_i64() {
                                    if let Some(s) = self.sessions.get_mut(&session) {
                                        s.history.insert(eid, bad);
                                    }
                                    if eid == entry {
                                        found = Some(bad);
                                    }
                                }
                            }
                        }
                        !ok || found != Some(false)
                    }
                };
                if let Some(h) = self.holds.get_mut(&hold) {
                    h.blocked |= blocked;
                    h.waiting = h.waiting.saturating_sub(1);
                    if h.waiting == 0 {
                        self.settle_hold(hold, out);
                    }
                }
                out.set(Verdict::Own, "answer to the guard's own check");
            }
        }
    }

    /// After the first discovery: a target listed before its opener was judged with an unknown
    /// opener; judge inheriting targets again now that every opener is known.
    fn rejudge(&mut self, out: &mut Output) {
        for _ in 0..8 {
            let mut changed = Vec::new();
            for (id, t) in &self.targets {
                let url = t.info["url"].as_str().unwrap_or_default();
                let opener = self.opener_of(&t.info);
                let now = self.m.target(url, t.previous, opener) || t.origin;
                if now != t.protected {
                    changed.push((id.clone(), now));
                }
            }
            if changed.is_empty() {
                break;
            }
            for (id, p) in changed {
                if p {
                    self.protect_target(&id, out);
                } else if let Some(t) = self.targets.get_mut(&id) {
                    t.protected = false;
                }
            }
        }
    }

    fn opener_of(&self, info: &Value) -> Opener {
        let opener = info
            .get("openerId")
            .and_then(Value::as_str)
            .or_else(|| info.get("openerFrameId").and_then(Value::as_str));
        match opener {
            None => Opener::None,
            Some(o) => match self.targets.get(o) {
                Some(t) if t.protected => Opener::Protected,
                Some(_) => Opener::Unprotected,
                None => match self.gone.get(&o.to_string()) {
                    Some(true) => Opener::Protected,
                    Some(false) => Opener::Unprotected,
                    None => Opener::Unknown,
                },
            },
        }
    }

    /// Takes in a `TargetInfo` and judges its target by the spec's *Targets* rule; returns
    /// whether it is protected. A target that turns protected loses every session.
    pub(super) fn learn(&mut self, info: &Value, out: &mut Output) -> bool {
        let Some(id) = info.get("targetId").and_then(Value::as_str) else {
            return true;
        };
        let url = info.get("url").and_then(Value::as_str).unwrap_or_default();
        let kind = info.get("type").and_then(Value::as_str).unwrap_or_default();
        let opener = self.opener_of(info);
        let (previous, origin) = self
            .targets
            .get(id)
            .map_or((false, false), |t| (t.protected, t.origin));
        let origin = origin && self.m.inherits(url);
        let protected = self.m.target(url, previous, opener) || origin;
        match self.targets.get_mut(id) {
            Some(t) => {
                t.info = info.clone();
                t.kind = kind.to_string();
                t.origin = origin;
                t.previous = previous;
                t.protected = protected;
            }
            None => {
                self.seq += 1;
                self.targets.insert(
                    id.to_string(),
                    Target {
                        info: info.clone(),
                        kind: kind.to_string(),
                        protected,
                        previous,
                        origin,
                        seq: self.seq,
                        announced: false,
                    },
                );
            }
        }
        if protected && !previous {
            let id = id.to_string();
            self.protect_target(&id, out);
        }
        protected
    }

    // ---------------------------------------------------------------- events

    fn event(&mut self, frame: &str, mut v: Value, method: &str, out: &mut Output) {
        let key = session_of(&v);
        let (open, visible) = match self.session(&key) {
            Some(s) => (!s.closed, s.visible),
            None => return out.set(Verdict::Drop, "event of a session the guard does not know"),
        };
        if method == "Target.detachedFromTarget" {
            return self.detached_event(frame, v, &key, open && visible, out);
        }
        if !open {
            return out.set(Verdict::Drop, "session is closed");
        }
        match method {
            "Target.targetCreated" | "Target.targetInfoChanged" => {
                return self.target_event(frame, v, &key, method, out)
            }
            "Target.targetDestroyed" | "Target.targetCrashed" => {
                let id = v["params"]["targetId"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                let hidden = self.hidden(&id, false);
                let announced = self.targets.get(&id).is_some_and(|t| t.announced);
                if method == "Target.targetDestroyed" {
                    if let Some(t) = self.targets.remove(&id) {
                        self.gone.insert(id.clone(), t.protected);
                    }
                }
                if hidden {
                    return out.set(Verdict::Drop, "protected target");
                }
                if key.is_empty() && !(self.root.discover.is_some() && announced) {
                    return out.set(Verdict::Drop, "the guard's own discovery");
                }
                out.to_client.push(frame.to_string());
                return out.set(Verdict::Forward, "");
            }
            "Target.attachedToTarget" => return self.attached_event(v, &key, out),
            "Target.receivedMessageFromTarget" => {
                return out.set(Verdict::Drop, "non-flat sessions are not supported")
            }
            "Fetch.requestPaused" => return self.paused_event(frame, v, &key, visible, out),
            "Fetch.authRequired" => return self.auth_event(frame, v, &key, visible, out),
            _ => {}
        }
        if !visible {
            return out.set(Verdict::Drop, "session not shown to the client yet");
        }
        let mut changed = false;
        match method {
            "Page.frameNavigated" => {
                let f = &v["params"]["frame"];
                let main = f.get("parentId").is_none();
                let real = ["url", "securityOrigin"]
                    .iter()
                    .any(|k| f[*k].as_str().is_some_and(|u| self.m.cookie_url(u)));
                if real {
                    self.session_reached(&key, main, out);
                    return out.set(Verdict::Drop, "frame on a protected origin");
                }
            }
            "Runtime.executionContextCreated" => {
                let c = &v["params"]["context"];
                if c["origin"].as_str().is_some_and(|o| self.m.cookie_url(o)) {
                    let target = self.session(&key).map(|s| s.target.clone());
                    let main = c["auxData"]["frameId"].as_str() == target.as_deref();
                    self.session_reached(&key, main, out);
                    return out.set(Verdict::Drop, "context on a protected origin");
                }
            }
            m if m.starts_with("Network.") => match self.network_event(&mut v, &key, m) {
                Some(c) => changed = c,
                None => return out.set(Verdict::Drop, "protected request"),
            },
            _ => {}
        }
        if scrubbed_domain(method) {
            match self.scrub_member(&mut v, "params") {
                Err(()) => return out.set(Verdict::Drop, "names a protected origin"),
                Ok(more) => changed |= more,
            }
        }
        self.deliver(frame, &v, changed, out);
    }

    fn target_event(
        &mut self,
        frame: &str,
        mut v: Value,
        key: &str,
        method: &str,
        out: &mut Output,
    ) {
        let info = v["params"]["targetInfo"].clone();
        if self.learn(&info, out) {
            return out.set(Verdict::Drop, "protected target");
        }
        let id = info["targetId"].as_str().unwrap_or_default().to_string();
        let mut changed = false;
        if key.is_empty() {
            let kind = self
                .targets
                .get(&id)
                .map(|t| t.kind.clone())
                .unwrap_or_default();
            let shown = self.root.discover.as_ref().is_some_and(|f| f.passes(&kind));
            if !shown {
                return out.set(Verdict::Drop, "the guard's own discovery");
            }
            if let Some(t) = self.targets.get_mut(&id) {
                if method == "Target.targetInfoChanged" && !t.announced {
                    v["method"] = json!("Target.targetCreated");
                    changed = true;
                }
                t.announced = true;
            }
        }
        match self.scrub_member(&mut v, "params") {
            Err(()) => out.set(Verdict::Drop, "names a protected origin"),
            Ok(more) => self.deliver(frame, &v, changed || more, out),
        }
    }

    fn attached_event(&mut self, v: Value, key: &str, out: &mut Output) {
        let p = &v["params"];
        let Some(sid) = p["sessionId"].as_str().map(str::to_string) else {
            return out.set(Verdict::Drop, "attachedToTarget without a session");
        };
        let info = p["targetInfo"].clone();
        let protected = self.learn(&info, out);
        let target = info["targetId"].as_str().unwrap_or_default();
        let kind = Kind::of(info["type"].as_str().unwrap_or_default());
        self.sessions.insert(
            sid.clone(),
            Session::new(target, kind, key, self.cfg.per_session),
        );
        if protected {
            self.detach(&sid, out);
            return out.set(Verdict::Drop, "protected target detached");
        }
        let waiting = p["waitingForDebugger"].as_bool().unwrap_or(false);
        let client_wait = self.session(key).and_then(|s| s.auto_wait);
        let resume = waiting && client_wait == Some(false);
        let mut event = v;
        if resume {
            event["params"]["waitingForDebugger"] = Value::Bool(false);
        }
        self.check_session(&sid, vec![Then::AutoAttached { event, resume }], out);
    }

    fn detached_event(
        &mut self,
        frame: &str,
        mut v: Value,
        key: &str,
        parent_shown: bool,
        out: &mut Output,
    ) {
        let sid = v["params"]["sessionId"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let Some(s) = self.sessions.remove(&sid) else {
            return out.set(Verdict::Drop, "session the guard does not know");
        };
        self.forget_session(&sid, out);
        if !(s.visible && parent_shown) {
            return out.set(Verdict::Drop, "session the client never had");
        }
        let _ = key;
        let mut changed = false;
        if self.hidden(&s.target, false) {
            if let Some(params) = v.get_mut("params").and_then(Value::as_object_mut) {
                changed = params.remove("targetId").is_some();
            }
        }
        self.deliver(frame, &v, changed, out);
    }

    /// Forgets a session that is gone, what it attached, its commands and the checks on it.
    fn forget_session(&mut self, sid: &str, out: &mut Output) {
        self.pending.retain(|(k, _), _| k != sid);
        self.own.retain(|_, (k, _)| k != sid);
        let holds: Vec<u64> = self
            .holds
            .iter()
            .filter(|(_, h)| h.session == sid)
            .map(|(k, _)| *k)
            .collect();
        for h in holds {
            if let Some(hold) = self.holds.get_mut(&h) {
                hold.blocked = true;
            }
            self.settle_hold(h, out);
        }
        let children: Vec<String> = self
            .sessions
            .iter()
            .filter(|(_, s)| s.parent == sid)
            .map(|(k, _)| k.clone())
            .collect();
        for c in children {
            self.sessions.remove(&c);
            self.forget_session(&c, out);
        }
    }

    fn paused_event(&mut self, frame: &str, v: Value, key: &str, visible: bool, out: &mut Output) {
        let p = &v["params"];
        let rid = p["requestId"].as_str().unwrap_or_default().to_string();
        let url = p["request"]["url"].as_str().unwrap_or_default();
        let rtype = p["resourceType"].as_str().unwrap_or_default();
        let response =
            p.get("responseStatusCode").is_some() || p.get("responseErrorReason").is_some();
        let frame_hidden = p["frameId"]
            .as_str()
            .is_some_and(|f| self.targets.get(f).is_some_and(|t| t.protected));
        let protected = frame_hidden || self.m.cookie_url(url) || {
            let mut probe = v.clone();
            self.scrub_member(&mut probe, "params").is_err()
        };
        let Some(s) = self.session(key) else {
            return out.set(Verdict::Drop, "no session");
        };
        let document_session = s.kind == Kind::Document;
        let wants = visible
            && s.fetch
                .as_ref()
                .is_some_and(|f| f.patterns.iter().any(|pat| pat.wants(url, rtype, response)));
        if protected {
            let msg = if document_session && rtype == "Document" && !response {
                self.own_command(
                    key,
                    "Fetch.failRequest",
                    json!({"requestId": rid, "errorReason": "BlockedByClient"}),
                    Own::Ignore,
                )
            } else if response {
                self.own_command(
                    key,
                    "Fetch.continueResponse",
                    json!({"requestId": rid}),
                    Own::Ignore,
                )
            } else {
                self.own_command(
                    key,
                    "Fetch.continueRequest",
                    json!({"requestId": rid}),
                    Own::Ignore,
                )
            };
            out.to_browser.push(msg);
            return out.set(Verdict::Drop, "protected request answered by the guard");
        }
        if !wants {
            let method = if response {
                "Fetch.continueResponse"
            } else {
                "Fetch.continueRequest"
            };
            let msg = self.own_command(key, method, json!({"requestId": rid}), Own::Ignore);
            out.to_browser.push(msg);
            return out.set(Verdict::Drop, "paused for the guard only");
        }
        if let Some(s) = self.session_mut(key) {
            s.paused.insert(rid, ());
        }
        out.to_client.push(frame.to_string());
        out.set(Verdict::Forward, "");
    }

    fn auth_event(&mut self, frame: &str, v: Value, key: &str, visible: bool, out: &mut Output) {
        let p = &v["params"];
        let rid = p["requestId"].as_str().unwrap_or_default().to_string();
        let url = p["request"]["url"].as_str().unwrap_or_default();
        let rtype = p["resourceType"].as_str().unwrap_or_default();
        let frame_hidden = p["frameId"]
            .as_str()
            .is_some_and(|f| self.targets.get(f).is_some_and(|t| t.protected));
        let protected = frame_hidden || self.m.cookie_url(url);
        let wants = visible
            && self.session(key).is_some_and(|s| {
                s.fetch.as_ref().is_some_and(|f| {
                    f.handle_auth
                        && f.patterns
                            .iter()
                            .any(|pat| pat.wants(url, rtype, false) || pat.wants(url, rtype, true))
                })
            });
        if protected || !wants {
            let msg = self.own_command(
                key,
                "Fetch.continueWithAuth",
                json!({"requestId": rid, "authChallengeResponse": {"response": "Default"}}),
                Own::Ignore,
            );
            out.to_browser.push(msg);
            return out.set(
                Verdict::Drop,
                if protected {
                    "protected auth challenge answered by the guard"
                } else {
                    "auth challenge for the guard only"
                },
            );
        }
        if let Some(s) = self.session_mut(key) {
            s.paused.insert(rid, ());
        }
        out.to_client.push(frame.to_string());
        out.set(Verdict::Forward, "");
    }

    /// `Network` events: `None` when the event must be withheld, else whether it changed.
    fn network_event(&mut self, v: &mut Value, key: &str, method: &str) -> Option<bool> {
        let rid = v["params"]["requestId"].as_str().map(str::to_string);
        let known = rid
            .as_ref()
            .and_then(|r| self.session(key)?.requests.get(r).cloned());
        let mut changed = false;
        match method {
            "Network.requestWillBeSent" => {
                let url = v["params"]["request"]["url"].as_str().unwrap_or_default();
                let doc = v["params"]["documentURL"].as_str().unwrap_or_default();
                let protected = self.m.cookie_url(url) || self.m.cookie_url(doc);
                let host = host_of(url).to_string();
                if let (Some(r), Some(s)) = (rid.clone(), self.session_mut(key)) {
                    s.requests.insert(r, (protected, host));
                }
                if protected {
                    return None;
                }
                let redirect_bad = v["params"]["redirectResponse"]["url"]
                    .as_str()
                    .is_some_and(|u| self.m.cookie_url(u));
                if redirect_bad {
                    if let Some(params) = v.get_mut("params").and_then(Value::as_object_mut) {
                        params.remove("redirectResponse");
                        params.insert("redirectHasExtraInfo".into(), Value::Bool(false));
                    }
                    changed = true;
                }
            }
            "Network.webSocketCreated" => {
                let url = v["params"]["url"].as_str().unwrap_or_default();
                let protected = self.m.cookie_url(url);
                if let (Some(r), Some(s)) = (rid.clone(), self.session_mut(key)) {
                    s.requests.insert(r, (protected, String::new()));
                }
                if protected {
                    return None;
                }
            }
            "Network.responseReceived" => {
                let url = v["params"]["response"]["url"].as_str().unwrap_or_default();
                if self.m.cookie_url(url) || known.as_ref().is_some_and(|(p, _)| *p) {
                    if let (Some(r), Some(s)) = (rid.clone(), self.session_mut(key)) {
                        s.requests.insert(r, (true, String::new()));
                    }
                    return None;
                }
            }
            "Network.requestWillBeSentExtraInfo" => match &known {
                Some((true, _)) => return None,
                None => {
                    let any_protected =
                        v["params"]["associatedCookies"]
                            .as_array()
                            .is_some_and(|cs| {
                                cs.iter().any(|c| {
                                    c["cookie"]["domain"]
                                        .as_str()
                                        .is_some_and(|d| self.m.cookie_domain(d))
                                })
                            });
                    if any_protected {
                        return None;
                    }
                }
                Some((false, _)) => {
                    let mut names = HashSet::new();
                    if let Some(cs) = v["params"]["associatedCookies"].as_array() {
                        for c in cs {
                            if c["cookie"]["domain"]
                                .as_str()
                                .is_some_and(|d| self.m.cookie_domain(d))
                            {
                                if let Some(n) = c["cookie"]["name"].as_str() {
                                    names.insert(n.to_string());
                                }
                            }
                        }
                    }
                    if !names.is_empty() {
                        if let Some(headers) = v
                            .pointer_mut("/params/headers")
                            .and_then(Value::as_object_mut)
                        {
                            for (k, val) in headers.iter_mut() {
                                if k.eq_ignore_ascii_case("cookie") {
                                    if let Some(text) = val.as_str() {
                                        *val = Value::String(strip_cookie_header(text, &names));
                                        changed = true;
                                    }
                                }
                            }
                        }
                    }
                }
            },
            "Network.responseReceivedExtraInfo" => match &known {
                Some((true, _)) => return None,
                None => {
                    let sets = v["params"]["headers"]
                        .as_object()
                        .is_some_and(|h| h.keys().any(|k| k.eq_ignore_ascii_case("set-cookie")));
                    if sets {
                        return None;
                    }
                }
                Some((false, host)) => {
                    let host = host.clone();
                    changed |= self.filter_set_cookies(v, &host);
                }
            },
            _ => {
                if known.as_ref().is_some_and(|(p, _)| *p) {
                    return None;
                }
            }
        }
        Some(changed)
    }

    /// Takes the `Set-Cookie` lines for protected domains out of a `responseReceivedExtraInfo`
    /// of a request to `host`.
    fn filter_set_cookies(&self, v: &mut Value, host: &str) -> bool {
        let mut changed = false;
        if let Some(headers) = v
            .pointer_mut("/params/headers")
            .and_then(Value::as_object_mut)
        {
            for (k, val) in headers.iter_mut() {
                if !k.eq_ignore_ascii_case("set-cookie") {
                    continue;
                }
                let Some(text) = val.as_str() else { continue };
                let lines: Vec<&str> = text.split('\n').collect();
                let kept: Vec<&str> = lines
                    .iter()
                    .copied()
                    .filter(|line| !self.m.cookie_domain(set_cookie_domain(line, host)))
                    .collect();
                if kept.len() != lines.len() {
                    *val = Value::String(kept.join("\n"));
                    changed = true;
                }
            }
        }
        if let Some(text) = v["params"]["headersText"].as_str() {
            let kept: Vec<&str> = text
                .split("\r\n")
                .filter(|l| {
                    let is_set =
                        l.len() >= 11 && l.as_bytes()[..11].eq_ignore_ascii_case(b"set-cookie:");
                    let value = l.get(11..).unwrap_or_default().trim();
                    !(is_set && self.m.cookie_domain(set_cookie_domain(value, host)))
                })
                .collect();
            let joined = kept.join("\r\n");
            if joined != text {
                v["params"]["headersText"] = Value::String(joined);
                changed = true;
            }
        }
        for list in ["blockedCookies", "exemptedCookies"] {
            if let Some(items) = v
                .pointer_mut(&format!("/params/{list}"))
                .and_then(Value::as_array_mut)
            {
                let before = items.len();
                items.retain(|c| {
                    !c["cookieLine"]
                        .as_str()
                        .is_some_and(|line| self.m.cookie_domain(set_cookie_domain(line, host)))
                });
                changed |= items.len() != before;
            }
        }
        changed
    }
}
