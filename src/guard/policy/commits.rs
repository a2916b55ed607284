//! What a session's documents commit: its frame tree judged (and, for a tab whose first
//! document is still under way, waited for), navigations under way when it was made, what
//! commits later (`Page.frameNavigated`, the default execution context), and the back/forward
//! list a history navigation could restore from with no request.

use serde_json::{json, Value};

use super::command::{ClientCommand, Step};
use super::core::Core;
use super::output::Output;
use super::refusal::Refusal;
use super::state::{Kind, Own, Probe};

impl Core {
    /// The client's `Preload.enable` / `Preload.disable`: the policy keeps `Preload` on, and
    /// shows its events to the client only while the client has it on.
    pub(super) fn preload_command(&mut self, cmd: &ClientCommand) -> Step {
        if let Some(s) = self.session_mut(cmd.key) {
            s.client_preload = cmd.method == "Preload.enable";
        }
        Step::Go(None)
    }

    /// The answer to a session's frame-tree check showed no document yet (see
    /// [`FirstCommit`](super::state::FirstCommit)): the check waits, and asks again when the target changes (at once if it
    /// changed while this question was out). Returns whether it waits.
    pub(super) fn await_first_commit(&mut self, sid: &str, hold: u64, out: &mut Output) -> bool {
        let Some(f) = self
            .sessions
            .map
            .get_mut(sid)
            .and_then(|s| s.first_commit.as_mut())
            .filter(|f| f.hold == hold)
        else {
            return false;
        };
        f.asked = f.changed;
        if f.changed {
            f.changed = false;
            self.ask_frame_tree(sid, hold, out);
        }
        true
    }

    /// A session's frame-tree check answered with a document: it no longer waits for one.
    pub(super) fn first_commit_seen(&mut self, sid: &str, hold: u64) {
        if let Some(s) = self.sessions.map.get_mut(sid) {
            if s.first_commit.is_some_and(|f| f.hold == hold) {
                s.first_commit = None;
            }
        }
    }

    /// `Target.targetInfoChanged` (a commit among its causes): every session of the target
    /// whose checks wait for its first document asks for the frame tree again.
    pub(super) fn target_changed(&mut self, target: &str, out: &mut Output) {
        let mut ask = Vec::new();
        for (k, s) in self.sessions.map.iter_mut() {
            if s.target != target || s.closed {
                continue;
            }
            if let Some(f) = s.first_commit.as_mut() {
                if f.asked {
                    f.changed = true;
                } else {
                    f.asked = true;
                    ask.push((k.clone(), f.hold));
                }
            }
        }
        for (sid, hold) in ask {
            self.ask_frame_tree(&sid, hold, out);
        }
    }

    fn ask_frame_tree(&mut self, sid: &str, hold: u64, out: &mut Output) {
        let what = Own::Probe {
            hold,
            what: Probe::FrameTree,
        };
        let msg = self.own_command(sid, "Page.getFrameTree", json!({}), what);
        out.to_browser.push(msg);
    }

    /// Whether a frame tree holds a frame whose URL or origin is protected: `Some(true)` when
    /// it is the main frame.
    pub(super) fn tree_reaches(&self, tree: &Value) -> Option<bool> {
        fn walk(p: &Core, node: &Value, main: bool) -> Option<bool> {
            let f = &node["frame"];
            let hit = ["url", "securityOrigin"]
                .iter()
                .any(|k| f[*k].as_str().is_some_and(|u| p.off_limits(u)));
            if hit {
                return Some(main);
            }
            node["childFrames"]
                .as_array()
                .and_then(|kids| kids.iter().find_map(|k| walk(p, k, false)))
        }
        walk(self, tree, true)
    }

    /// An error frame (an error page's `chrome-error:` document, shown for a blocked load)
    /// stays in the frame trees the client reads: only its `unreachableUrl` is taken out when
    /// that names a protected or browser-internal URL, so a client sees that a frame was
    /// blocked, not where it was going. (Its `Page.frameNavigated` is judged as a commit.)
    /// Returns whether `frame` (a CDP `Page.Frame`) changed.
    pub(super) fn error_frame(&self, frame: &mut Value) -> bool {
        let is_error = frame["url"]
            .as_str()
            .is_some_and(|u| u.starts_with("chrome-error:"));
        let hides = frame["unreachableUrl"]
            .as_str()
            .is_some_and(|u| self.off_limits(u));
        if !(is_error && hides) {
            return false;
        }
        frame
            .as_object_mut()
            .is_some_and(|f| f.remove("unreachableUrl").is_some())
    }

    /// [`Core::error_frame`] on every frame of a `Page.getFrameTree` or
    /// `Page.getResourceTree` answer. Returns whether it changed.
    pub(super) fn error_frames(&self, v: &mut Value) -> bool {
        fn walk(p: &Core, node: &mut Value) -> bool {
            let mut changed = p.error_frame(&mut node["frame"]);
            if let Some(kids) = node.get_mut("childFrames").and_then(Value::as_array_mut) {
                for k in kids {
                    changed |= walk(p, k);
                }
            }
            changed
        }
        match v.pointer_mut("/result/frameTree") {
            Some(tree) if tree.is_object() => walk(self, tree),
            _ => false,
        }
    }

    /// A `Page.getNavigationHistory` result: entries remembered, protected ones blanked.
    /// Returns whether the result changed.
    pub(super) fn history_response(&mut self, v: &mut Value, key: &str) -> bool {
        let mut changed = false;
        if let Some(entries) = v
            .pointer_mut("/result/entries")
            .and_then(Value::as_array_mut)
        {
            for e in entries.iter_mut() {
                let bad = ["url", "userTypedURL"]
                    .iter()
                    .any(|k| e[*k].as_str().is_some_and(|u| self.off_limits(u)));
                if let (Some(eid), Some(s)) = (e["id"].as_i64(), self.sessions.map.get_mut(key)) {
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
        changed
    }

    /// A session showed a protected document: its target is protected when `main`, else the
    /// session alone is detached.
    pub(super) fn session_reached(&mut self, key: &str, main: bool, out: &mut Output) {
        let Some(target) = self.session(key).map(|s| s.target.clone()) else {
            return;
        };
        if main && !target.is_empty() {
            if let Some(t) = self.targets.map.get_mut(&target) {
                t.origin = true;
            }
            self.protect_target(&target, out);
        }
        self.detach(key, out);
    }

    /// A `Page.getFrameTree` / `getResourceTree` result: whether a frame of it is protected
    /// (then the session pays, and the client gets a refusal).
    pub(super) fn frame_tree_response(&mut self, v: &Value, key: &str, out: &mut Output) -> bool {
        self.learn_frames(key, &v["result"]["frameTree"]);
        match self.tree_reaches(&v["result"]["frameTree"]) {
            Some(main) => {
                self.session_reached(key, main, out);
                true
            }
            None => false,
        }
    }

    /// The answer to the policy's own `Page.getNavigationHistory` on a new page session: an
    /// entry other than the current one on a protected or internal URL (one a history
    /// navigation, the page's own `history.back()` included, restores from the back/forward
    /// cache with no request to pause) fails the session's checks, or cuts the session if it
    /// was released already. An error fails closed too.
    pub(super) fn backlist_answer(&mut self, sid: &str, v: &Value, out: &mut Output) {
        let current = v["result"]["currentIndex"].as_i64();
        let mut restorable = v.get("error").is_some() || current.is_none();
        if let Some(entries) = v["result"]["entries"].as_array() {
            for (i, e) in entries.iter().enumerate() {
                let bad = ["url", "userTypedURL"]
                    .iter()
                    .any(|k| e[*k].as_str().is_some_and(|u| self.off_limits(u)));
                if let (Some(eid), Some(s)) = (e["id"].as_i64(), self.sessions.map.get_mut(sid)) {
                    s.history.insert(eid, bad);
                }
                restorable |= bad && i64::try_from(i).ok() != current;
            }
        }
        if !restorable {
            return;
        }
        // Hidden from the client from now on, with the tab holding it: a client shown a
        // target it can never attach to waits for it (Puppeteer's connect waits for every tab
        // it was shown to be attached).
        let withheld: Vec<String> = self
            .sessions
            .map
            .get(sid)
            .map(|s| {
                let tab = self
                    .sessions
                    .map
                    .get(&s.parent)
                    .map(|p| p.target.clone())
                    .filter(|t| self.targets.map.get(t).is_some_and(|t| t.kind == "tab"));
                std::iter::once(s.target.clone()).chain(tab).collect()
            })
            .unwrap_or_default();
        if self.fail_holds(|_, h| h.session == sid, Some(Refusal::Backlist), out) == 0 {
            self.detach(sid, out);
        }
        for t in withheld {
            self.withhold(&t, out);
        }
    }

    /// The policy's own `Network` events of a document session: a document request it saw
    /// start is remembered (its interception was on first, so its redirects are paused too);
    /// a redirect hop or a response of a protected document request it never saw start
    /// belongs to a navigation already under way when the session was made, which the
    /// interception does not see and which would commit under the client's instrumentation
    /// (init scripts, bindings, overrides): the session is cut at once, before the commit
    /// (the protected server's answer and a new renderer come first), and the target with it
    /// for the main frame. A protected document request the interception did pause was
    /// failed there, so a response to one it saw start was served around it (from a
    /// prefetch): that cuts the session too. A prefetch of a protected document (speculation
    /// rules; `Fetch` does not pause prefetches, and a navigation served from one pauses no
    /// request either) makes the page's target protected for the rest of its life. Returns
    /// why the event is withheld, if it is.
    pub(super) fn uncaught_document(
        &mut self,
        v: &Value,
        key: &str,
        method: &str,
        out: &mut Output,
    ) -> Option<&'static str> {
        let p = &v["params"];
        let kind = p["type"].as_str();
        if kind != Some("Document") && kind != Some("Prefetch") {
            return None;
        }
        let s = self.session(key)?;
        if s.kind != Kind::Document || s.closed {
            return None;
        }
        let url = if method == "Network.requestWillBeSent" {
            p["request"]["url"].as_str()
        } else {
            p["response"]["url"].as_str()
        };
        if kind == Some("Prefetch") {
            if !url.is_some_and(|u| self.off_limits(u)) {
                return None;
            }
            let target = s.target.clone();
            if let Some(t) = self.targets.map.get_mut(&target) {
                t.withheld = true;
            }
            self.session_reached(key, true, out);
            return Some("a protected document prefetched by the page");
        }
        let rid = p["requestId"].as_str().unwrap_or_default().to_string();
        let seen = s.network.navigations.contains(&rid);
        let start = method == "Network.requestWillBeSent" && p.get("redirectResponse").is_none();
        if start {
            if let Some(s) = self.session_mut(key) {
                s.network.navigations.insert(rid, ());
            }
            return None;
        }
        if !url.is_some_and(|u| self.off_limits(u)) {
            return None;
        }
        // A redirect hop of a request seen from its start is paused (and failed) by the
        // interception; a response to one was served around it.
        if seen && method == "Network.requestWillBeSent" {
            return None;
        }
        let target = s.target.clone();
        let main = p["frameId"].as_str() == Some(target.as_str());
        self.session_reached(key, main, out);
        Some(if seen {
            "a protected document served around the interception (a prefetch)"
        } else {
            "a protected document already under way when the session was made"
        })
    }

    /// `Preload` events of a document session: a prefetch or prerender of a protected
    /// document (one the page held before the session, reported when the policy enables
    /// `Preload`, or a later one) makes the page's target protected for the rest of its life,
    /// as a protected prefetch request does. Events of the policy's own `Preload` reach the
    /// client only once it enabled the domain. Returns why the event is withheld, if it is.
    pub(super) fn preload_event(
        &mut self,
        v: &Value,
        key: &str,
        method: &str,
        out: &mut Output,
    ) -> Option<&'static str> {
        let s = self.session(key)?;
        if s.kind != Kind::Document || s.closed {
            return None;
        }
        let client = s.client_preload;
        let p = &v["params"];
        let urls = [
            p["prefetchUrl"].as_str(),
            p["prerenderingUrl"].as_str(),
            p["key"]["url"].as_str(),
        ];
        let preloads = matches!(
            method,
            "Preload.prefetchStatusUpdated" | "Preload.prerenderStatusUpdated"
        );
        if preloads && urls.iter().flatten().any(|u| self.off_limits(u)) {
            let target = s.target.clone();
            if let Some(t) = self.targets.map.get_mut(&target) {
                t.withheld = true;
            }
            self.session_reached(key, true, out);
            return Some("a protected document prefetched by the page");
        }
        // A prefetch the page already holds while the session's checks run (reported by the
        // policy's own Preload.enable) may have followed a redirect to a protected origin,
        // which its report does not show: the checks fail. Later prefetches are seen as
        // requests, redirect hops included (uncaught_document).
        let live = !matches!(p["status"].as_str(), Some("Failure" | "NotSupported"));
        if method == "Preload.prefetchStatusUpdated"
            && live
            && self.fail_holds(|_, h| h.session == key, Some(Refusal::Prefetch), out) > 0
        {
            return Some("a prefetch the page held when the session was made");
        }
        (!client).then_some("the guard's own Preload domain")
    }

    /// `Page.frameNavigated` and `Runtime.executionContextCreated`: a document that
    /// committed on a protected origin costs the session (and the target, for the main
    /// frame). Returns why the event is withheld, if it is.
    pub(super) fn commit_event(
        &mut self,
        v: &Value,
        key: &str,
        method: &str,
        out: &mut Output,
    ) -> Option<&'static str> {
        if method == "Page.frameNavigated" {
            let f = &v["params"]["frame"];
            let main = f.get("parentId").is_none();
            let real = ["url", "securityOrigin"]
                .iter()
                .any(|k| f[*k].as_str().is_some_and(|u| self.off_limits(u)));
            if real {
                self.session_reached(key, main, out);
                return Some("frame on a protected origin");
            }
        } else {
            let c = &v["params"]["context"];
            if c["origin"].as_str().is_some_and(|o| self.off_limits(o)) {
                let target = self.session(key).map(|s| s.target.clone());
                let main = c["auxData"]["frameId"].as_str() == target.as_deref();
                self.session_reached(key, main, out);
                return Some("context on a protected origin");
            }
        }
        None
    }
}
