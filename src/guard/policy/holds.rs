//! Holds: client messages kept back until the policy's own checks are answered (or fail
//! closed at their deadline), and the answers to the policy's own commands.

use serde_json::{json, Value};

use super::command::ClientCommand;
use super::core::Core;
use super::output::{Output, OwnParams, Verdict};
use super::refusal::Refusal;
use super::state::{Hold, Own, Pending, Probe, Then};
impl Core {
    /// Sends on what a settled hold kept back.
    pub(super) fn release(&mut self, then: Then, out: &mut Output) {
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
                // The policy's own children are not announced (the client did not ask).
                if self.sessions.map.get(&sid).is_some_and(|s| !s.own) {
                    out.to_client.push(event.to_string());
                }
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
                self.sessions.pending.insert(
                    (session, id),
                    Pending {
                        concern: super::table::table()
                            .command(&method)
                            .and_then(|e| e.concern),
                        method,
                        target: None,
                        request: None,
                    },
                );
                out.to_browser.push(frame);
                out.set(Verdict::Forward, "");
            }
        }
    }

    /// Holds `then` until the policy's own `checks` on `session` (each a method, its params and
    /// what its answer decides) are answered or the hold times out (`hold_ms` from now): sends
    /// the checks' commands, in order, and counts them.
    pub(super) fn hold(
        &mut self,
        session: &str,
        checks: Vec<(&str, OwnParams, Probe)>,
        then: Vec<Then>,
        out: &mut Output,
    ) -> u64 {
        let hid = self.checks.next_hold;
        self.checks.next_hold += 1;
        let waiting = u32::try_from(checks.len()).unwrap_or(u32::MAX);
        for (method, params, what) in checks {
            let msg = self.own_command(session, method, params, Own::Probe { hold: hid, what });
            out.to_browser.push(msg);
        }
        self.checks.holds.insert(
            hid,
            Hold {
                waiting,
                deadline: self.checks.now.saturating_add(self.rules.cfg.hold_ms),
                blocked: false,
                reason: None,
                session: session.to_string(),
                then,
            },
        );
        hid
    }

    /// Fails closed every hold whose checks are late.
    pub(super) fn expire(&mut self, out: &mut Output) {
        let now = self.checks.now;
        self.fail_holds(|_, h| h.deadline <= now, None, out);
    }

    /// Fails closed the holds `which` picks, oldest first (by id): each, unless settling an
    /// earlier one ended it already, is marked failed (`reason`: why, when the catalog's
    /// refusal alone does not say) and settled ([`Policy::settle_hold`]: its session
    /// detached, what it kept refused). How many it picked.
    pub(super) fn fail_holds(
        &mut self,
        which: impl Fn(u64, &Hold) -> bool,
        reason: Option<Refusal<'static>>,
        out: &mut Output,
    ) -> usize {
        let mut picked: Vec<u64> = self
            .checks
            .holds
            .iter()
            .filter(|(k, h)| which(**k, h))
            .map(|(k, _)| *k)
            .collect();
        picked.sort_unstable();
        for k in &picked {
            if let Some(h) = self.checks.holds.get_mut(k) {
                h.blocked = true;
                h.waiting = 0;
                h.reason = reason.or(h.reason);
                self.settle_hold(*k, out);
            }
        }
        picked.len()
    }

    /// Ends a hold: releases what it kept, or fails it closed (through
    /// [`Policy::settle_hold`], which keeps the client's order).
    pub(super) fn release_hold(&mut self, hid: u64, out: &mut Output) {
        let Some(h) = self.checks.holds.remove(&hid) else {
            return;
        };
        self.first_commit_seen(&h.session, hid);
        let open = self
            .session(&h.session)
            .is_some_and(|s| !s.closed && !self.hidden(&s.target));
        let blocked = h.blocked || !open;
        if blocked {
            self.detach(&h.session, out);
            let refusal = h.reason.unwrap_or(Refusal::ChecksFailed);
            for t in h.then {
                if let Then::Command { session, id, .. } = &t {
                    self.sessions.pending.remove(&(session.clone(), *id));
                }
                match t {
                    Then::Attached {
                        client_session, id, ..
                    }
                    | Then::Command {
                        session: client_session,
                        id,
                        ..
                    } => {
                        self.push_refused(&client_session, id, refusal, out);
                    }
                    Then::AutoAttached { .. } => {}
                }
            }
            return;
        }
        if let Some(s) = self.sessions.map.get_mut(&h.session) {
            s.visible = !s.own;
        }
        for t in h.then {
            self.release(t, out);
        }
    }

    /// After a frame tree showed no protected frame: the real origin of each frame whose URL
    /// inherits one (`about:blank`, `about:srcdoc`), which the tree shows as `://`. A
    /// vault page's `about:blank` popup keeps the vault's origin (its cookies, its storage,
    /// relative URLs on the vault) when its opener later goes to an ordinary page or the
    /// client connects after that, when nothing in the target says so (the suite's
    /// `c5.attach-popup-opener-left`). Each is one more check of `hold`.
    pub(super) fn ask_inherited(
        &mut self,
        session: &str,
        hold: u64,
        tree: &Value,
        out: &mut Output,
    ) {
        let mut frames = Vec::new();
        let mut stack = vec![(tree, true)];
        while let Some((node, main)) = stack.pop() {
            let f = &node["frame"];
            if let (Some(id), Some(url)) = (f["id"].as_str(), f["url"].as_str()) {
                // An empty URL is no document yet: the first commit is waited for.
                if !url.is_empty() && self.rules.m.inherits(url) {
                    frames.push((id.to_string(), main));
                }
            }
            if let Some(kids) = node["childFrames"].as_array() {
                stack.extend(kids.iter().map(|k| (k, false)));
            }
        }
        for (id, main) in frames {
            let what = Own::Probe {
                hold,
                what: Probe::StorageKey { main },
            };
            let msg = self.own_command(
                session,
                "Storage.getStorageKeyForFrame",
                json!({"frameId": id}),
                what,
            );
            out.to_browser.push(msg);
            if let Some(h) = self.checks.holds.get_mut(&hold) {
                h.waiting = h.waiting.saturating_add(1);
            }
        }
    }

    /// Holds a `Page.navigateToHistoryEntry` for an entry the policy has not seen until its own
    /// `Page.getNavigationHistory` shows where it goes.
    pub(super) fn hold_history(&mut self, cmd: &ClientCommand, entry: i64, out: &mut Output) {
        let (key, id, method, frame) = (cmd.key, cmd.id, cmd.method, cmd.frame);
        // In flight from now (a duplicate id is refused, and it counts toward max_pending).
        self.sessions.pending.insert(
            (key.to_string(), id),
            Pending {
                method: method.to_string(),
                concern: cmd.concern,
                target: None,
                request: None,
            },
        );
        let then = vec![Then::Command {
            frame: frame.to_string(),
            session: key.to_string(),
            id,
            method: method.to_string(),
        }];
        let checks = vec![(
            "Page.getNavigationHistory",
            json!({}).into(),
            Probe::History { entry },
        )];
        let _ = self.hold(key, checks, then, out);
        out.set(Verdict::Hold, "history entry checked first");
    }

    /// The browser's answer `v` to the policy's own command `id`: what it was for goes on
    /// (a check's probe, a wipe's next step, the discovery: [`Ids::discovered`]).
    ///
    /// [`Ids::discovered`]: super::core::Ids::discovered
    pub(super) fn own_response(&mut self, id: i64, v: &Value, out: &mut Output) {
        out.set(Verdict::Own, "answer to the guard's own command");
        let Some((session, why)) = self.ids.own.remove(&id) else {
            return;
        };
        match why {
            Own::Ignore | Own::Widen => {}
            Own::Backlist => self.backlist_answer(&session, v, out),
            Own::Resources => self.resources_answer(&session, v),
            Own::Clear(clearing) => self.clear_step(clearing, v, out),
            // The policy (mod.rs) lets the client's kept frames go once this returns.
            Own::Discover => {
                self.rejudge(out);
                self.ids.discovered = true;
            }
            Own::Probe { hold, what } => {
                let ok = v.get("error").is_none();
                let blocked = match what {
                    Probe::AutoAttach => !ok,
                    Probe::Fetch => {
                        if ok {
                            if let Some(s) = self.sessions.map.get_mut(&session) {
                                s.guarded = true;
                            }
                        }
                        !ok
                    }
                    Probe::FrameTree => {
                        let tree = &v["result"]["frameTree"];
                        let none_yet = tree["frame"]["url"].as_str().is_none_or(str::is_empty);
                        if ok
                            && none_yet
                            && self.tree_reaches(tree).is_none()
                            && self.await_first_commit(&session, hold, out)
                        {
                            return out.set(Verdict::Own, "waiting for the first document");
                        }
                        self.first_commit_seen(&session, hold);
                        if ok {
                            self.learn_frames(&session, &v["result"]["frameTree"]);
                        }
                        !ok || match self.tree_reaches(&v["result"]["frameTree"]) {
                            Some(main) => {
                                if main {
                                    self.session_reached(&session, true, out);
                                }
                                true
                            }
                            None => {
                                self.ask_inherited(&session, hold, tree, out);
                                false
                            }
                        }
                    }
                    Probe::StorageKey { main } => {
                        let bad = match v["result"]["storageKey"].as_str() {
                            Some(key) if ok => {
                                self.rules.m.storage_key(key)
                                    || self.internal(key.split('^').next().unwrap_or_default())
                            }
                            // An opaque origin (a new tab's `about:blank`, a `data:` page) has
                            // no storage key: Chromium 156 answers so. A browser without the
                            // command (before Chromium 106) cannot say: its `about:blank`
                            // documents are judged by URL and opener only. Any other error
                            // fails closed.
                            _ => {
                                let e = &v["error"];
                                e["code"].as_i64() != Some(-32601)
                                    && !e["message"]
                                        .as_str()
                                        .is_some_and(|m| m.contains("opaque origin"))
                            }
                        };
                        if bad && main {
                            self.session_reached(&session, true, out);
                        }
                        bad
                    }
                    Probe::History { entry } => {
                        let mut found = None;
                        if let Some(entries) = v["result"]["entries"].as_array() {
                            for e in entries {
                                let bad = ["url", "userTypedURL"]
                                    .iter()
                                    .any(|k| e[*k].as_str().is_some_and(|u| self.off_limits(u)));
                                if let Some(eid) = e["id"].as_i64() {
                                    if let Some(s) = self.sessions.map.get_mut(&session) {
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
                if let Some(h) = self.checks.holds.get_mut(&hold) {
                    h.blocked |= blocked;
                    h.waiting = h.waiting.saturating_sub(1);
                    // A failed check fails the hold at once; the others' answers are moot.
                    if h.waiting == 0 || h.blocked {
                        self.settle_hold(hold, out);
                    }
                }
                out.set(Verdict::Own, "answer to the guard's own check");
            }
        }
    }
}
