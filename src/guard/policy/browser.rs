//! Browser to client: responses and events, each handed to its concern (targets, sessions,
//! holds, fetch, cookies); what no concern takes is scrubbed of protected parts and delivered.

use serde_json::Value;

use super::core::{int_id, session_of, Core, RESERVED_IDS};
use super::downloads::Downloads;
use super::output::{Output, Verdict};
use super::refusal::Refusal;
use super::scrub::{scrubbed_domain, Judging};
use super::table::Concern;

impl Core {
    /// [`Core::scrub_member`] leaving the values at `kept` (JSON pointers into `v[member]`)
    /// as they are: values the policy redacted itself, which still name a protected origin.
    pub(super) fn scrub_member_keeping(
        &self,
        v: &mut Value,
        member: &str,
        kept: &[String],
    ) -> Result<bool, ()> {
        let Some(part) = v.get_mut(member) else {
            return Ok(false);
        };
        let held: Vec<(&str, Value)> = kept
            .iter()
            .filter_map(|p| Some((p.as_str(), part.pointer_mut(p)?.take())))
            .collect();
        let scrubbed = self.scrub_member(v, member);
        if let Some(part) = v.get_mut(member) {
            for (p, value) in held {
                if let Some(slot) = part.pointer_mut(p) {
                    *slot = value;
                }
            }
        }
        scrubbed
    }

    /// Scrubs `v[member]` of what names a protected origin: `Err` when the message names one
    /// outside any list (then it must not reach the client), `Ok(changed)` otherwise.
    pub(super) fn scrub_member(&self, v: &mut Value, member: &str) -> Result<bool, ()> {
        let Some(part) = v.get_mut(member) else {
            return Ok(false);
        };
        let mut changed = false;
        let judging = Judging {
            m: &self.rules.m,
            endpoints: &self.rules.endpoints,
            hidden: |t: &str| self.hidden(t),
            cookie_params: false,
        };
        if judging.scrub(part, &mut changed) {
            Err(())
        } else {
            Ok(changed)
        }
    }

    /// Sends `v` to the client: the original frame when nothing changed.
    pub(super) fn deliver(&mut self, frame: &str, v: &Value, changed: bool, out: &mut Output) {
        if frame.contains("\"objectId\"") {
            self.learn_objects(v);
        }
        if changed {
            out.to_client.push(v.to_string());
            out.set(Verdict::Rewrite, "protected parts taken out");
        } else {
            out.to_client.push(frame.to_string());
            out.set(Verdict::Forward, "");
        }
    }

    pub(super) fn browser_frame(
        &mut self,
        downloads: &mut Downloads,
        frame: &str,
        out: &mut Output,
    ) {
        let v: Value = match serde_json::from_str(frame) {
            Ok(v @ Value::Object(_)) => v,
            _ => return out.set(Verdict::Invalid, "browser frame is not a JSON object"),
        };
        if v.get("id").is_some() {
            self.response(frame, v, out);
        } else if let Some(method) = v.get("method").and_then(Value::as_str) {
            let method = method.to_string();
            self.event(downloads, frame, v, &method, out);
        } else {
            out.set(Verdict::Invalid, "neither a response nor an event");
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
        let Some(p) = self.sessions.pending.remove(&(key.clone(), id)) else {
            return out.set(Verdict::Drop, "response to no command the client sent");
        };
        if let Some(s) = self.sessions.map.get(&key) {
            if s.closed || self.hidden(&s.target) {
                return self.refuse_id(&key, id, Refusal::SessionTurned, out);
            }
        }
        if v.get("error").is_some() {
            out.to_client.push(frame.to_string());
            return out.set(Verdict::Forward, "");
        }
        // A request id forwarded while ordinary whose request a redirect took to a protected
        // origin before the browser answered (its body read meanwhile): the answer is refused.
        if let Some(rid) = &p.request {
            let now_protected = self
                .session(&key)
                .and_then(|s| s.network.requests.get(rid))
                .is_some_and(|(protected, _)| *protected);
            if now_protected {
                return self.refuse_id(&key, id, Refusal::RequestTurned, out);
            }
        }
        // A capture forwarded while its page showed nothing protected, answered after the page
        // came to show a protected image or hold a protected frame in another process: the
        // events that mark the page come before any answer showing what marked it (the image's
        // response, the frame's target), so the answer is judged again, not only the command.
        if let Some(r) = self.capture_answer(&key, p.concern) {
            return self.refuse_id(&key, id, r, out);
        }
        let mut changed = false;
        let mut kept: Vec<String> = Vec::new();
        // The concern the table routes the command to has its answer.
        let method = p.method.as_str();
        match p.concern {
            Some(Concern::Attach) if method == "Target.attachToTarget" => {
                return self.attach_response(frame, v, &key, id, &p, out);
            }
            Some(Concern::Attach) if method == "Target.attachToBrowserTarget" => {
                self.browser_session_response(&v, &key)
            }
            Some(Concern::Listing) if method == "Target.getTargets" => {
                changed = self.targets_response(&mut v, out);
                kept = self.redacted_infos(&v["result"]["targetInfos"], "/targetInfos");
            }
            Some(Concern::Listing) if self.target_info_response(&v, out) => {
                return self.refuse_id(&key, id, Refusal::TargetProtected, out);
            }
            Some(Concern::Listing) => {
                let mut info = v["result"]["targetInfo"].take();
                if self.redact_shown(&mut info) {
                    changed = true;
                    kept = vec!["/targetInfo/url".into(), "/targetInfo/title".into()];
                }
                v["result"]["targetInfo"] = info;
            }
            Some(Concern::Contexts) => {
                if let Some(c) = v["result"]["browserContextId"].as_str() {
                    self.targets.contexts.insert(c.to_string(), ());
                }
            }
            Some(Concern::History) if method == "Page.getNavigationHistory" => {
                changed = self.history_response(&mut v, &key);
            }
            Some(Concern::Frames) if self.frame_tree_response(&v, &key, out) => {
                return self.refuse_id(&key, id, Refusal::FrameProtected, out);
            }
            // An error frame stays in the tree, without a protected unreachableUrl.
            Some(Concern::Frames) => changed = self.error_frames(&mut v),
            Some(Concern::Scripts) => changed = self.script_response(&mut v, &key, method),
            Some(Concern::Captures) if method == "Page.captureSnapshot" => {
                changed = self.snapshot_response(&mut v, &key);
            }
            _ if p.method.starts_with("CSS.") => changed = self.css_response(&mut v, &key),
            _ => {}
        }
        match self.scrub_member_keeping(&mut v, "result", &kept) {
            Err(()) => {
                self.refuse_id(&key, id, Refusal::ResultProtected, out);
            }
            Ok(more) => self.deliver(frame, &v, changed || more, out),
        }
    }

    // ---------------------------------------------------------------- events

    fn event(
        &mut self,
        downloads: &mut Downloads,
        frame: &str,
        mut v: Value,
        method: &str,
        out: &mut Output,
    ) {
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
                return self.destroyed_event(frame, &v, &key, method, out)
            }
            "Target.attachedToTarget" => return self.attached_event(v, &key, out),
            "Target.receivedMessageFromTarget" => {
                return out.set(Verdict::Drop, "non-flat sessions are not supported")
            }
            "Fetch.requestPaused" => return self.paused_event(frame, v, &key, visible, out),
            "Fetch.authRequired" => return self.auth_event(frame, v, &key, visible, out),
            _ => {}
        }
        if matches!(
            method,
            "Network.requestWillBeSent" | "Network.responseReceived"
        ) {
            self.track_load(&v, &key, method);
            if let Some(why) = self.uncaught_document(&v, &key, method, out) {
                return out.set(Verdict::Drop, why);
            }
        }
        // A page showing a protected image: its screencast frames are withheld (loads.rs).
        if method == "Page.screencastFrame" && self.shows_protected(&key) {
            return out.set(Verdict::Drop, "the page shows a protected image");
        }
        if method.starts_with("Preload.") {
            if let Some(why) = self.preload_event(&v, &key, method, out) {
                return out.set(Verdict::Drop, why);
            }
        }
        if matches!(
            method,
            "Browser.downloadWillBegin" | "Browser.downloadProgress"
        ) {
            if let Some(why) = downloads.on_event(self, &v, method, out) {
                return out.set(Verdict::Drop, why);
            }
        }
        if !visible {
            return out.set(Verdict::Drop, "session not shown to the client yet");
        }
        let mut changed = false;
        // Values the policy redacted itself (they still name a protected origin).
        let mut redacted: Vec<String> = Vec::new();
        if method.starts_with("Debugger.") || method.starts_with("CSS.") {
            if let Some(why) = self.script_event(&v, &key, method, out) {
                return out.set(Verdict::Drop, why);
            }
        }
        match method {
            "Page.frameNavigated" | "Runtime.executionContextCreated" => {
                if let Some(why) = self.commit_event(&v, &key, method, out) {
                    return out.set(Verdict::Drop, why);
                }
            }
            m if m.starts_with("Network.")
                && !self
                    .session(&key)
                    .is_none_or(|s| s.kind != super::state::Kind::Document || s.network.client) =>
            {
                return out.set(Verdict::Drop, "the guard's own Network domain");
            }
            m if m.starts_with("Network.") => match self.network_event(&mut v, &key, m) {
                Some(c) => {
                    changed = c;
                    if m == "Network.requestWillBeSent" && self.shown_blocked(&v, &key) {
                        redacted.push("/request/url".into());
                        redacted.push("/documentURL".into());
                    }
                }
                None => return out.set(Verdict::Drop, "protected request"),
            },
            _ => {}
        }
        // A navigation a page starts toward a protected URL is failed by the interception
        // (fetch.rs): the client sees it requested, with the URL redacted to its origin, and
        // then fail, as any blocked navigation.
        if matches!(
            method,
            "Page.frameRequestedNavigation"
                | "Page.frameScheduledNavigation"
                | "Page.frameStartedNavigating"
        ) {
            if let Some(u) = v["params"]["url"].as_str().filter(|u| self.off_limits(u)) {
                v["params"]["url"] = Value::String(super::scrub::redacted(u));
                changed = true;
                redacted.push("/url".into());
            }
        }
        if scrubbed_domain(method) {
            match self.scrub_member_keeping(&mut v, "params", &redacted) {
                Err(()) => return out.set(Verdict::Drop, "names a protected origin"),
                Ok(more) => changed |= more,
            }
        }
        self.deliver(frame, &v, changed, out);
    }
}
