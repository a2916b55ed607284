//! Sessions: attaching (asked for or automatic), the policy's checks on each new session,
//! what a session's documents commit, and detaching.

use std::collections::{HashMap, HashSet};

use serde_json::{json, Value};

use super::command::{ClientCommand, Step};
use super::config::MAX_NESTING;
use super::core::Core;
use super::output::{Output, OwnParams, Verdict};
use super::pattern::TargetFilter;
use super::refusal::Refusal;
use super::state::{FirstCommit, Kind, Own, Pending, Probe, Session, Then};

/// The policy's own auto-attach on every document session: flat sessions, every child waits
/// for the policy's checks.
pub(super) fn own_auto_attach() -> Value {
    json!({"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true})
}

impl Core {
    /// Answers the client commands still in flight on the sessions cut during this message
    /// (see [`Policy::detach`]) with the refusal.
    pub(super) fn flush_cut(&mut self, out: &mut Output) {
        if self.sessions.cut.is_empty() {
            return;
        }
        let cut: HashSet<String> = self.sessions.cut.drain(..).collect();
        let mut ids: Vec<(String, i64)> = self
            .sessions
            .pending
            .keys()
            .filter(|(k, _)| cut.contains(k))
            .cloned()
            .collect();
        ids.sort_unstable();
        for (key, id) in ids {
            self.sessions.pending.remove(&(key.clone(), id));
            self.push_refused(&key, id, Refusal::Detached, out);
        }
    }

    /// Whether an auto-attached target is a tab whose first navigation Chromium started
    /// before any session existed: a page (no prerender) named by a URL with an origin of its
    /// own. A popup (`window.open`, a link with a target) is announced with an empty URL and
    /// waits for the debugger before it navigates; a frame in another process waits at its
    /// response (measured on Chromium 156).
    fn first_navigation_under_way(&self, info: &Value) -> bool {
        info["type"] == "page"
            && info.get("subtype").is_none()
            && info["url"]
                .as_str()
                .is_some_and(|u| !self.rules.m.inherits(u))
    }

    /// How many sessions lie between session `key` and the root (0 for the root), counted up
    /// to [`MAX_NESTING`].
    fn nesting(&self, key: &str) -> usize {
        let mut at = key;
        let mut depth = 0;
        while !at.is_empty() && depth < MAX_NESTING {
            match self.sessions.map.get(at) {
                Some(s) => at = &s.parent,
                None => break,
            }
            depth += 1;
        }
        depth
    }

    /// A `Target.attachToBrowserTarget` result: the new session is a browser session.
    pub(super) fn browser_session_response(&mut self, v: &Value, key: &str) {
        if let Some(sid) = v["result"]["sessionId"].as_str() {
            let mut s = Session::new("", Kind::Browser, key, self.rules.cfg.per_session);
            s.visible = true;
            self.sessions.map.insert(sid.to_string(), s);
        }
    }

    /// Starts detaching a session and everything it attached; nothing of them reaches the
    /// client afterwards. A client that had the session is told at once
    /// (`Target.detachedFromTarget`, not waiting for the browser's), every command of its in
    /// flight on it is answered with the refusal, and every command held for a check on it
    /// is answered as its check failed: no call is left waiting.
    pub(super) fn detach(&mut self, key: &str, out: &mut Output) {
        if key.is_empty() {
            return;
        }
        let Some(s) = self.sessions.map.get_mut(key) else {
            return;
        };
        if s.closed {
            return;
        }
        s.closed = true;
        let was_visible = std::mem::replace(&mut s.visible, false);
        let target = s.target.clone();
        let parent = s.parent.clone();
        out.detached.push(key.to_string());
        let parent_shown = parent.is_empty() || self.session(&parent).is_some_and(|p| p.visible);
        if was_visible && parent_shown {
            // With its target id even when the target is hidden now: the client was shown it
            // with the session, and a library finds the page to close by it (Playwright).
            let mut event = json!({"method": "Target.detachedFromTarget",
                "params": {"sessionId": key, "targetId": target}});
            if !parent.is_empty() {
                event["sessionId"] = json!(parent);
            }
            out.to_client.push(event.to_string());
        }
        self.answer_in_flight(key, out);
        let parent_open = self.session(&parent).is_some_and(|p| !p.closed);
        if parent_open {
            let msg = self.own_command(
                &parent,
                "Target.detachFromTarget",
                json!({"sessionId": key}),
                Own::Ignore,
            );
            out.to_browser.push(msg);
        }
        let children: Vec<String> = self
            .sessions
            .map
            .iter()
            .filter(|(_, s)| s.parent == key && !s.closed)
            .map(|(k, _)| k.clone())
            .collect();
        for c in children {
            if let Some(s) = self.sessions.map.get_mut(&c) {
                s.closed = true;
            }
        }
    }

    /// Answers every client command in flight on session `key` (forwarded, or held for a
    /// check) with the refusal: the session is gone.
    fn answer_in_flight(&mut self, key: &str, out: &mut Output) {
        // Held first: settling a hold answers its command and ends it in flight.
        self.fail_holds(|_, h| h.session == key, None, out);
        // Forwarded ones once this message is through (a hold being settled now answers its
        // own command after this returns).
        self.sessions.cut.push(key.to_string());
    }

    pub(super) fn attach_response(
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
        if !self.sessions.map.contains_key(&sid) {
            // No attachedToTarget event came first: judge the target as the command named it.
            let target = p.target.clone().unwrap_or_default();
            let kind = self
                .targets
                .map
                .get(&target)
                .map_or(Kind::Document, |t| Kind::of(&t.kind));
            self.sessions.map.insert(
                sid.clone(),
                Session::new(&target, kind, key, self.rules.cfg.per_session),
            );
            if self.hidden_or_unknown(&target) {
                self.detach(&sid, out);
            } else {
                return self.check_session(&sid, vec![then], out);
            }
        }
        let held = self.checks.holds.values().any(|h| h.session == sid);
        if let Some(s) = self.sessions.map.get_mut(&sid) {
            // The client asked for this session itself.
            if s.own {
                s.own = false;
                s.visible = !held && !s.closed;
            }
        }
        let (closed, visible) = self
            .sessions
            .map
            .get(&sid)
            .map_or((true, false), |s| (s.closed, s.visible));
        if closed {
            return self.refuse_id(key, id, Refusal::TargetProtected, out);
        }
        if visible {
            return self.release(then, out);
        }
        if let Some(h) = self.checks.holds.values_mut().find(|h| h.session == sid) {
            h.then.push(then);
            return out.set(Verdict::Hold, "session checked first");
        }
        self.release(then, out)
    }

    pub(super) fn attached_event(&mut self, v: Value, key: &str, out: &mut Output) {
        let p = &v["params"];
        let Some(sid) = p["sessionId"].as_str().map(str::to_string) else {
            return out.set(Verdict::Drop, "attachedToTarget without a session");
        };
        let info = p["targetInfo"].clone();
        let target = info["targetId"].as_str().unwrap_or_default().to_string();
        let type_ = info["type"].as_str().unwrap_or_default().to_string();
        let kind = Kind::of(&type_);
        // A child of a document session (an out-of-process frame, a worker) belongs to the
        // policy's own auto-attach unless the client's auto-attach on that session asks for
        // its type; its host is remembered, so a protected frame marks the page holding it.
        let (parent_kind, parent_target, client_wait, client_wants) = match self.session(key) {
            Some(s) => (
                s.kind,
                s.target.clone(),
                s.auto.wait,
                s.auto.filter.as_ref().is_some_and(|f| f.passes(&type_)),
            ),
            None => (Kind::Browser, String::new(), None, false),
        };
        if parent_kind == Kind::Document && !parent_target.is_empty() && parent_target != target {
            self.targets
                .frame_hosts
                .insert(target.clone(), parent_target);
        }
        let own = parent_kind == Kind::Document && !client_wants;
        let protected = self.learn(&info, out);
        let mut session = Session::new(&target, kind, key, self.rules.cfg.per_session);
        session.own = own;
        self.sessions.map.insert(sid.clone(), session);
        if protected {
            self.detach(&sid, out);
            return out.set(Verdict::Drop, "protected target detached");
        }
        let waiting = p["waitingForDebugger"].as_bool().unwrap_or(false);
        let resume = waiting && (own || client_wait == Some(false));
        let mut event = v;
        if resume {
            event["params"]["waitingForDebugger"] = Value::Bool(false);
        }
        let mut info = event["params"]["targetInfo"].take();
        self.redact_shown(&mut info);
        event["params"]["targetInfo"] = info;
        let mut shown = event.clone();
        shown["params"]["waitingForDebugger"] = Value::Bool(false);
        if let Some(s) = self.sessions.map.get_mut(&sid) {
            s.announce = Some(shown);
        }
        self.check_session(&sid, vec![Then::AutoAttached { event, resume }], out);
    }

    /// Starts the policy's checks on a new session (document interception, frame tree) and
    /// holds `then` until they are answered. Sessions that hold no documents are released now.
    pub(super) fn check_session(&mut self, sid: &str, then: Vec<Then>, out: &mut Output) {
        let kind = self.sessions.map.get(sid).map(|s| s.kind);
        if kind != Some(Kind::Document) {
            if let Some(s) = self.sessions.map.get_mut(sid) {
                s.visible = !s.own;
            }
            for t in then {
                self.release(t, out);
            }
            return;
        }
        // A target waiting for the debugger has no document yet, and Chromium answers
        // `Page.getFrameTree` there only once it runs: its release waits for the interception
        // alone, and the frame tree is checked as it starts (a protected one is detached).
        // A tab made with a URL of its own (`Target.createTarget`, the user's new tab) is the
        // exception: Chromium starts, follows and commits its first navigation and answers
        // its session's commands without waiting for the debugger (measured on Chromium 156),
        // so that navigation began before the interception could see it: its checks wait for
        // the first document, as an attach's do (the suite's `c2.auto-attach-user-tab`).
        let waiting = then.iter().any(|t| {
            matches!(t, Then::AutoAttached { event, resume }
                if (*resume || event["params"]["waitingForDebugger"].as_bool() == Some(true))
                    && !self.first_navigation_under_way(&event["params"]["targetInfo"]))
        });
        // A tab whose back/forward list holds a protected page restores it from the
        // back/forward cache with no request to pause: its history is read first (answered by
        // the browser at once, so before the interception below and the release it waits
        // for), and such an entry costs the session.
        let page = self
            .sessions
            .map
            .get(sid)
            .and_then(|s| self.targets.map.get(&s.target))
            .is_some_and(|t| t.kind == "page");
        if page && !waiting {
            let msg = self.own_command(sid, "Page.getNavigationHistory", json!({}), Own::Backlist);
            out.to_browser.push(msg);
            // A page may hold a prefetch of a protected document (speculation rules, made
            // before the session), which a navigation commits with no request to pause:
            // enabling `Preload` reports the prefetches at once, before the checks below are
            // answered (commits.rs), and such a prefetch costs the session and the target.
            let msg = self.own_command(sid, "Preload.enable", json!({}), Own::Ignore);
            out.to_browser.push(msg);
        }
        // What the page already shows (a protected image loaded before the session): its
        // resource tree, answered before the frame-tree check below (loads.rs).
        let framed = self
            .sessions
            .map
            .get(sid)
            .and_then(|s| self.targets.map.get(&s.target))
            .is_some_and(|t| t.kind == "page" || t.kind == "iframe");
        if framed && !waiting {
            let msg = self.own_command(sid, "Page.getResourceTree", json!({}), Own::Resources);
            out.to_browser.push(msg);
        }
        let mut checks = vec![(
            "Fetch.enable",
            OwnParams::Encoded(self.rules.shown.check.clone()),
            Probe::Fetch,
        )];
        if !waiting {
            checks.push(("Page.getFrameTree", json!({}).into(), Probe::FrameTree));
            // The policy's own auto-attach: every frame of the page in another process
            // becomes a session of the policy's, intercepted and judged like this one. The
            // frames already there are announced before this is answered.
            checks.push((
                "Target.setAutoAttach",
                own_auto_attach().into(),
                Probe::AutoAttach,
            ));
        } else {
            // Sent before the client may resume the target: no child exists yet.
            let msg = self.own_command(sid, "Target.setAutoAttach", own_auto_attach(), Own::Ignore);
            out.to_browser.push(msg);
        }
        // Navigations answered by a service worker commit without a request the interception
        // sees: the policy's own Network domain (no bodies kept) and service-worker bypass
        // send them to the network, where they are paused like any other.
        for (method, params) in [
            (
                "Network.enable",
                json!({"maxTotalBufferSize": 0, "maxResourceBufferSize": 0}),
            ),
            ("Network.setBypassServiceWorker", json!({"bypass": true})),
        ] {
            let msg = self.own_command(sid, method, params, Own::Ignore);
            out.to_browser.push(msg);
        }
        let hid = self.hold(sid, checks, then, out);
        self.keep_place(hid, out);
        if !waiting {
            if let Some(s) = self.sessions.map.get_mut(sid) {
                s.first_commit = Some(FirstCommit {
                    hold: hid,
                    asked: true,
                    changed: false,
                });
            }
        }
        if waiting {
            // No hold counts this check (u64::MAX is never a hold's id).
            let what = Own::Probe {
                hold: u64::MAX,
                what: Probe::FrameTree,
            };
            let msg = self.own_command(sid, "Page.getFrameTree", json!({}), what);
            out.to_browser.push(msg);
        }
        out.set(Verdict::Hold, "session checked first");
    }

    pub(super) fn detached_event(
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
        let Some(s) = self.sessions.map.remove(&sid) else {
            return out.set(Verdict::Drop, "session the guard does not know");
        };
        self.forget_session(&sid, out);
        if !(s.visible && parent_shown) {
            return out.set(Verdict::Drop, "session the client never had");
        }
        let _ = key;
        let mut changed = false;
        if self.hidden(&s.target) {
            if let Some(params) = v.get_mut("params").and_then(Value::as_object_mut) {
                changed = params.remove("targetId").is_some();
            }
        }
        self.deliver(frame, &v, changed, out);
    }

    /// Forgets a session that is gone, what it attached, its commands and the checks on it.
    /// Sessions nest as deep as a client likes (`Target.attachToBrowserTarget` from a browser
    /// session, again and again: Chromium 156 took 2,000 levels), so the ones it attached are
    /// found with one index and a work list, not by recursion (100,000 levels overflowed the
    /// stack and aborted the process) nor a scan of every session per level.
    pub(super) fn forget_session(&mut self, sid: &str, out: &mut Output) {
        let mut children: HashMap<&str, Vec<&str>> = HashMap::new();
        for (k, s) in &self.sessions.map {
            children
                .entry(s.parent.as_str())
                .or_default()
                .push(k.as_str());
        }
        let mut gone: HashSet<String> = HashSet::new();
        let mut todo = vec![sid.to_string()];
        while let Some(k) = todo.pop() {
            // A session id the browser reused could make a loop of parents.
            if gone.contains(&k) {
                continue;
            }
            if let Some(kids) = children.get(k.as_str()) {
                todo.extend(kids.iter().map(|c| c.to_string()));
            }
            gone.insert(k);
        }
        for k in &gone {
            self.sessions.map.remove(k);
        }
        self.sessions.pending.retain(|(k, _), _| !gone.contains(k));
        self.ids.own.retain(|_, (k, _)| !gone.contains(k));
        self.fail_holds(|_, h| gone.contains(&h.session), None, out);
    }

    /// The client's `Target.attachToTarget`, `attachToBrowserTarget`, `setAutoAttach` and
    /// `autoAttachRelated`: flat sessions only, not nested without end, and every
    /// auto-attached target waits for the policy's checks.
    pub(super) fn attach_command(&mut self, cmd: &ClientCommand, out: &mut Output) -> Step {
        let (key, method, params, v) = (cmd.key, cmd.method, cmd.params, cmd.v);
        // Sessions made from sessions, without end: Chromium 156 crashes (SIGSEGV) when the
        // outermost of 30,000 nested browser sessions is detached, which would close the
        // user's protected tabs as `Browser.crash` would.
        let attach = matches!(
            method,
            "Target.attachToTarget" | "Target.attachToBrowserTarget"
        );
        if attach && self.nesting(key) >= MAX_NESTING {
            return Step::Refuse(Refusal::Nesting);
        }
        if method == "Target.attachToBrowserTarget" {
            return Step::Go(None);
        }
        if method == "Target.attachToTarget" {
            if params.get("flatten").and_then(Value::as_bool) != Some(true) {
                return Step::Refuse(Refusal::NonFlat);
            }
            return Step::Go(None);
        }
        let auto = method == "Target.autoAttachRelated"
            || params.get("autoAttach").and_then(Value::as_bool) == Some(true);
        if auto
            && method == "Target.setAutoAttach"
            && params.get("flatten").and_then(Value::as_bool) != Some(true)
        {
            return Step::Refuse(Refusal::NonFlatAuto);
        }
        let wait = params
            .get("waitForDebuggerOnStart")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let document = self.session(key).is_some_and(|s| s.kind == Kind::Document);
        if let Some(s) = self.session_mut(key) {
            if auto || !document {
                s.auto.wait = Some(wait);
                s.auto.filter = Some(TargetFilter::of(params));
            } else {
                s.auto.wait = None;
                s.auto.filter = None;
            }
        }
        if document && method == "Target.setAutoAttach" {
            self.show_children(key, auto, out);
            // The policy's own auto-attach stays on whatever the client asks: every frame in
            // another process, waiting for the policy's checks.
            let mut nv = v.clone();
            nv["params"]["autoAttach"] = Value::Bool(true);
            nv["params"]["flatten"] = Value::Bool(true);
            nv["params"]["waitForDebuggerOnStart"] = Value::Bool(true);
            if let Some(filter) = nv["params"].get_mut("filter").and_then(Value::as_array_mut) {
                filter.insert(0, json!({"type": "iframe"}));
            }
            return Step::Go(if nv == *v { None } else { Some(nv) });
        }
        if !wait {
            let mut nv = v.clone();
            nv["params"]["waitForDebuggerOnStart"] = Value::Bool(true);
            return Step::Go(Some(nv));
        }
        Step::Go(None)
    }

    /// The client turned its auto-attach on a document session on (`auto`) or off: the
    /// policy's own children of that session that the client's filter takes are announced to
    /// it now (Chromium announces children only once, to the policy), or the client's are
    /// taken back (announced as detached; they stay the policy's).
    fn show_children(&mut self, key: &str, auto: bool, out: &mut Output) {
        let filter = self.session(key).and_then(|s| s.auto.filter.clone());
        let mut children: Vec<String> = self
            .sessions
            .map
            .iter()
            .filter(|(_, s)| s.parent == key && !s.closed && s.own == auto)
            .map(|(k, _)| k.clone())
            .collect();
        children.sort();
        for c in children {
            let held = self.checks.holds.values().any(|h| h.session == c);
            let type_ = self
                .sessions
                .map
                .get(&c)
                .and_then(|s| self.targets.map.get(&s.target))
                .map(|t| t.kind.clone())
                .unwrap_or_default();
            let Some(s) = self.sessions.map.get_mut(&c) else {
                continue;
            };
            if auto {
                if !filter.as_ref().is_some_and(|f| f.passes(&type_)) {
                    continue;
                }
                s.own = false;
                if !held {
                    s.visible = true;
                    if let Some(mut event) = s.announce.clone() {
                        let _ = self.scrub_member(&mut event, "params");
                        out.to_client.push(event.to_string());
                    }
                }
            } else {
                let was_visible = s.visible;
                s.own = true;
                s.visible = false;
                let target = s.target.clone();
                if was_visible {
                    let mut event = json!({"method": "Target.detachedFromTarget",
                        "params": {"sessionId": c, "targetId": target}});
                    if !key.is_empty() {
                        event["sessionId"] = json!(key);
                    }
                    out.to_client.push(event.to_string());
                }
            }
        }
    }

    /// The client's `Page.navigateToHistoryEntry`: refused for a protected entry, held for one
    /// the policy has not seen.
    pub(super) fn history_command(&mut self, cmd: &ClientCommand, out: &mut Output) -> Step {
        if cmd.method != "Page.navigateToHistoryEntry" {
            return Step::Go(None);
        }
        let entry = cmd.params.get("entryId").and_then(Value::as_i64);
        let known = entry.and_then(|e| self.session(cmd.key)?.history.get(&e).copied());
        match (entry, known) {
            (_, Some(true)) | (None, _) => Step::Refuse(Refusal::HistoryEntry),
            (Some(_), Some(false)) => Step::Go(None),
            (Some(e), None) => {
                self.hold_history(cmd, e, out);
                Step::Done
            }
        }
    }
}
