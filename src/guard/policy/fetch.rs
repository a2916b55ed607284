//! Fetch: the policy's own document interception on every document session and the
//! client's `Fetch` use beside it (paused requests, auth challenges, request ids).

use serde_json::{json, Value};

use super::command::{ClientCommand, Step};
use super::core::Core;
use super::output::{Output, Verdict};
use super::pattern::FetchPattern;
use super::refusal::Refusal;
use super::shown::{guard_pattern, guard_patterns};
use super::state::{ClientFetch, Kind, Own};
use super::table::Concern;

/// `Fetch` commands that answer a paused request, and whether they end its pause.
fn fetch_answer(method: &str) -> Option<bool> {
    match method {
        "Fetch.continueRequest"
        | "Fetch.continueResponse"
        | "Fetch.fulfillRequest"
        | "Fetch.failRequest"
        | "Fetch.continueWithAuth" => Some(true),
        "Fetch.getResponseBody" | "Fetch.takeResponseBodyAsStream" => Some(false),
        _ => None,
    }
}

/// What the policy reads of a `Fetch.requestPaused` or `Fetch.authRequired`.
struct Paused<'a> {
    rid: String,
    url: &'a str,
    rtype: &'a str,
    /// Its URL, its frame or anything else in it names a protected origin.
    protected: bool,
}

impl Core {
    /// Remembers that the policy failed a main-frame document load of `url` in `target`.
    fn remember_blocked(&mut self, target: &str, url: &str) {
        if let Some(t) = self.targets.map.get_mut(target) {
            if !t.blocked.iter().any(|b| b == url) {
                if t.blocked.len() >= super::state::BLOCKED_KEPT {
                    t.blocked.remove(0);
                }
                t.blocked.push(url.to_string());
            }
        }
    }

    /// A protected document request the policy fails: Chromium reports its failure
    /// (`Network.loadingFailed`, `net::ERR_BLOCKED_BY_CLIENT`) but not its start, which a
    /// navigation failed before it was sent never gets. The client, whose library waits for a
    /// navigation's request to end, is shown the start (`Network.requestWillBeSent`, the URL
    /// redacted to its origin) unless it saw one already (a redirect hop of a request it
    /// knows), and then the failure: an ordinary failed navigation.
    fn show_blocked_start(&mut self, key: &str, p: &Value, out: &mut Output) {
        let Some(rid) = p["networkId"].as_str() else {
            return;
        };
        let Some(s) = self.sessions.map.get_mut(key) else {
            return;
        };
        if s.network.requests.get(&rid.to_string()).is_some() {
            return;
        }
        s.network.requests.insert(
            rid.to_string(),
            (true, super::cookies::SHOWN_BLOCKED.to_string()),
        );
        let url = super::scrub::redacted(p["request"]["url"].as_str().unwrap_or_default());
        let mut event = json!({
            "method": "Network.requestWillBeSent",
            "params": {
                "requestId": rid,
                "loaderId": rid,
                "documentURL": url,
                "request": {
                    "url": url,
                    "method": p["request"]["method"].as_str().unwrap_or("GET"),
                    "headers": {},
                    "initialPriority": "VeryHigh",
                    "referrerPolicy": "strict-origin-when-cross-origin",
                },
                "timestamp": 0,
                "wallTime": 0,
                "initiator": {"type": "other"},
                "redirectHasExtraInfo": false,
                "type": "Document",
                "frameId": p["frameId"],
                "hasUserGesture": false,
            },
        });
        if !key.is_empty() {
            event["sessionId"] = json!(key);
        }
        out.to_client.push(event.to_string());
    }

    /// Reads a paused request or auth challenge on session `key`.
    ///
    /// On the browser's own session (the root, or `Target.attachToBrowserTarget`) `Fetch`
    /// reaches every request of the browser, those of a protected page's frames that are no
    /// target of their own among them (a `srcdoc` frame in its process, whose script runs on
    /// the page's origin: fulfilled by the client, it would be the client's script there). Such
    /// a frame's id is one the policy never saw, so there a request is the client's only when
    /// its frame is a target the policy knows as ordinary (a page's main frame, a frame in
    /// another process); any other is the guard's to continue.
    fn paused_request<'a>(&self, v: &'a Value, key: &str) -> Paused<'a> {
        let p = &v["params"];
        let url = p["request"]["url"].as_str().unwrap_or_default();
        let frame = p["frameId"].as_str();
        let frame_hidden =
            frame.is_some_and(|f| self.targets.map.get(f).is_some_and(|t| t.protected));
        let browser_wide = self.session(key).is_some_and(|s| s.kind == Kind::Browser);
        let unplaced = browser_wide
            && frame.is_none_or(|f| self.targets.map.get(f).is_none_or(|t| t.protected));
        let protected = frame_hidden || unplaced || self.off_limits(url) || {
            let mut probe = v.clone();
            self.scrub_member(&mut probe, "params").is_err()
        };
        Paused {
            rid: p["requestId"].as_str().unwrap_or_default().to_string(),
            url,
            rtype: p["resourceType"].as_str().unwrap_or_default(),
            protected,
        }
    }

    /// Shows the client a paused request (or auth challenge) it asked for; it may answer it.
    fn show_paused(&mut self, key: &str, rid: String, frame: &str, out: &mut Output) {
        if let Some(s) = self.session_mut(key) {
            s.fetch.paused.insert(rid, ());
        }
        out.to_client.push(frame.to_string());
        out.set(Verdict::Forward, "");
    }

    pub(super) fn auth_event(
        &mut self,
        frame: &str,
        v: Value,
        key: &str,
        visible: bool,
        out: &mut Output,
    ) {
        let Paused {
            rid,
            url,
            rtype,
            protected,
        } = self.paused_request(&v, key);
        let wants = visible
            && self.session(key).is_some_and(|s| {
                s.fetch.client.as_ref().is_some_and(|f| {
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
        self.show_paused(key, rid, frame, out);
    }
    /// The client's `Fetch.enable` / `Fetch.disable`: remembered, and on a document session
    /// the policy's own document pattern is kept in the browser. Its answers to paused
    /// requests are judged by [`Core::fetch_answer_check`].
    pub(super) fn fetch_command(&mut self, cmd: &ClientCommand) -> Step {
        let (key, id, method, params, v) = (cmd.key, cmd.id, cmd.method, cmd.params, cmd.v);
        if method != "Fetch.enable" && method != "Fetch.disable" {
            return Step::Go(None);
        }
        let kind = self.session(key).map(|s| s.kind);
        if method == "Fetch.enable" {
            let client = ClientFetch {
                patterns: FetchPattern::list(params),
                raw: params
                    .get("patterns")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_else(|| vec![json!({"urlPattern": "*"})]),
                handle_auth: params
                    .get("handleAuthRequests")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            };
            let mut patterns = client.raw.clone();
            if let Some(s) = self.session_mut(key) {
                s.fetch.client = Some(client);
            }
            let overrides = self.effective(key);
            let mut rewritten = None;
            if kind == Some(Kind::Document) || overrides.any() {
                patterns.extend(guard_patterns(&self.rules.shown.patterns, &overrides));
                let mut nv = v.clone();
                nv["params"]["patterns"] = Value::Array(patterns);
                rewritten = Some(nv);
            }
            return Step::Go(rewritten);
        }
        let overridden = self.effective(key).any();
        if let Some(s) = self.session_mut(key) {
            s.fetch.client = None;
        }
        if kind == Some(Kind::Document) || overridden {
            let params = self.fetch_params(key);
            let mut nv = json!({"id": id, "method": "Fetch.enable", "params": params});
            if !key.is_empty() {
                nv["sessionId"] = Value::String(key.to_string());
            }
            return Step::Go(Some(nv));
        }
        Step::Go(None)
    }

    /// Whether `frame` is the main frame of `target`, a popup (a page another page opened:
    /// it has an `openerId`) that has committed no document of its own yet (its URL is empty
    /// or inherits its opener's origin, `about:blank`).
    fn popup_first_document(&self, target: &str, frame: Option<&str>) -> bool {
        let Some(t) = self.targets.map.get(target) else {
            return false;
        };
        let url = t.url();
        t.kind == "page"
            && frame == Some(target)
            && t.info["openerId"].as_str().is_some_and(|o| !o.is_empty())
            && (url.is_empty() || self.rules.m.inherits(url))
    }

    /// A client's answer to a paused request may name only a request id it was shown.
    /// `Err` when refused; else the id whose pause the answer ends, if it does.
    pub(super) fn fetch_answer_check(
        &self,
        cmd: &ClientCommand,
    ) -> Result<Option<String>, Refusal<'static>> {
        let Some(ends) = fetch_answer(cmd.method).filter(|_| cmd.concern == Some(Concern::Fetch))
        else {
            return Ok(None);
        };
        let rid = cmd
            .params
            .get("requestId")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let shown = self
            .session(cmd.key)
            .is_some_and(|s| s.fetch.paused.contains(&rid.to_string()));
        if !shown {
            return Err(Refusal::UnshownPause);
        }
        Ok(ends.then(|| rid.to_string()))
    }

    /// The policy's `Fetch.enable` params on a document session: the client's patterns (if
    /// it enabled `Fetch`) and the policy's own.
    pub(super) fn fetch_params(&self, key: &str) -> Value {
        let s = self.session(key);
        let mut patterns: Vec<Value> = s
            .and_then(|s| s.fetch.client.as_ref())
            .map(|f| f.raw.clone())
            .unwrap_or_default();
        match s {
            Some(_) => patterns.extend(guard_patterns(
                &self.rules.shown.patterns,
                &self.effective(key),
            )),
            None => patterns.extend(guard_pattern(&self.rules.shown.patterns)),
        }
        let mut params = json!({"patterns": patterns});
        if s.and_then(|s| s.fetch.client.as_ref())
            .is_some_and(|f| f.handle_auth)
        {
            params["handleAuthRequests"] = Value::Bool(true);
        }
        params
    }

    pub(super) fn paused_event(
        &mut self,
        frame: &str,
        v: Value,
        key: &str,
        visible: bool,
        out: &mut Output,
    ) {
        let p = &v["params"];
        let Paused {
            rid,
            url,
            rtype,
            protected,
        } = self.paused_request(&v, key);
        let response =
            p.get("responseStatusCode").is_some() || p.get("responseErrorReason").is_some();
        let Some(s) = self.session(key) else {
            return out.set(Verdict::Drop, "no session");
        };
        let document_session = s.kind == Kind::Document;
        let client_network = visible && s.network.client;
        // A session with a renderer-wide override loads no document on a site a protected
        // origin shares: the override would follow it into that site's renderer process.
        let shared = document_session
            && rtype == "Document"
            && !response
            && s.renderer_wide
            && self.rules.m.shares_site(url);
        // A popup a page opened onto a protected origin loads for the user (issue 29, item
        // 4): its first document's request goes on without the client's headers, to pause again
        // at its response, before anything commits; there every session on the popup (the
        // client's, with its init scripts, bindings, CSP bypass and overrides) is detached,
        // which ends their interception and lets the response commit without them.
        let wants = visible
            && s.fetch
                .client
                .as_ref()
                .is_some_and(|f| f.patterns.iter().any(|pat| pat.wants(url, rtype, response)));
        let target = s.target.clone();
        let handoff = format!("{key}\n{rid}");
        if protected && response && self.sessions.handoffs.remove(&handoff).is_some() {
            self.protect_target(&target, out);
            return out.set(
                Verdict::Drop,
                "a popup's protected first document commits for the user, without the client",
            );
        }
        if protected
            && !shared
            && document_session
            && rtype == "Document"
            && !response
            && self.popup_first_document(&target, p["frameId"].as_str())
        {
            let mut params = json!({"requestId": rid, "interceptResponse": true});
            if let Some(h) = self.effective(key).clean(&p["request"]["headers"]) {
                params["headers"] = h;
            }
            let msg = self.own_command(key, "Fetch.continueRequest", params, Own::Ignore);
            out.to_browser.push(msg);
            self.sessions.handoffs.insert(handoff, ());
            // Protected from now on: until its sessions go at the response, the client can
            // neither name the popup (close, activate, attach) nor use its session.
            if let Some(t) = self.targets.map.get_mut(&target) {
                t.protected = true;
            }
            return out.set(
                Verdict::Drop,
                "a popup's protected first document loads for the user, without the client",
            );
        }
        let protected = protected || shared;
        if protected {
            // A protected image, video or `<object>` a page shows loads (the guard vectors'
            // liveness: a guard leaves ordinary pages' subresources alone), and the page is
            // marked before it can show it: no capture reads its pixels (loads.rs).
            if super::loads::rendered(rtype) && !response {
                self.mark_showing(&target);
            }
            // A protected document is failed.
            let failed = rtype == "Document";
            if document_session && failed && !response {
                if p["frameId"].as_str() == Some(target.as_str()) {
                    self.remember_blocked(&target, url);
                }
                if client_network {
                    self.show_blocked_start(key, p, out);
                }
            }
            let msg = if document_session && failed && !response {
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
                // Without the values the client set (class 6, overrides.rs).
                let mut params = json!({"requestId": rid});
                if let Some(h) = self.effective(key).clean(&p["request"]["headers"]) {
                    params["headers"] = h;
                }
                self.own_command(key, "Fetch.continueRequest", params, Own::Ignore)
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
        self.show_paused(key, rid, frame, out);
    }
}

#[cfg(test)]
mod tests {
    use super::super::pattern::FetchPattern;
    use super::super::shown::{glob_escape, shown_patterns};
    use super::*;
    use crate::protected::Matcher;

    /// The shipped `protected.json`: its origins and URL vectors.
    fn vectors() -> (Vec<String>, Vec<(String, bool)>) {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/protected.json");
        let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let origins = v["origins"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o.as_str().unwrap().to_string())
            .collect();
        let urls = v["urls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| {
                (
                    u["url"].as_str().unwrap().to_string(),
                    u["protected"].as_bool().unwrap(),
                )
            })
            .collect();
        (origins, urls)
    }

    #[test]
    fn every_off_limits_url_as_a_browser_writes_it_is_paused() {
        let (origins, urls) = vectors();
        let m = Matcher::new(
            &crate::catalog::shared_catalog().protected_origins,
            &origins,
        )
        .unwrap();
        let patterns = FetchPattern::list(&json!({ "patterns": shown_patterns(&m) }));
        let core = Core::new(m.clone(), super::super::Config::default());
        let mut checked = 0;
        for (url, protected) in urls {
            // The canonical form a browser reports for a load (the `url` crate's WHATWG
            // serialization stands in for Chromium's GURL here).
            let Ok(parsed) = url::Url::parse(&url) else {
                continue;
            };
            let canonical = parsed.as_str();
            if !core.off_limits(canonical) {
                continue;
            }
            for rtype in ["Image", "Media", "Other"] {
                assert!(
                    patterns.iter().any(|p| p.wants(canonical, rtype, false)),
                    "{rtype} {canonical} (vector {url}, protected: {protected}) is off limits but no pattern pauses it"
                );
            }
            checked += 1;
        }
        assert!(checked > 50, "only {checked} off-limits vectors checked");
        // Internal pages, and protected hosts inside other URLs.
        for url in [
            "chrome://favicon/size/16/https://example.test/",
            "file:///etc/passwd",
            "chrome-extension://abcdefghijklmnopabcdefghijklmnop/icon.png",
            "devtools://devtools/bundled/Images/x.svg",
            "blob:https://vault.sliccy.ai/0b1c2d3e-0000-4000-8000-000000000000",
            "filesystem:https://seven.sliccy.ai/temporary/x.png",
            "http://seven.sliccy.ai./x.png",
            "http://[::1]:5712/x.png",
        ] {
            assert!(core.off_limits(url), "{url}");
            assert!(
                patterns.iter().any(|p| p.wants(url, "Image", false)),
                "{url}"
            );
        }
    }

    #[test]
    fn ordinary_images_are_not_paused() {
        let m = Matcher::new(
            &crate::catalog::shared_catalog().protected_origins,
            &["http://client.example"],
        )
        .unwrap();
        let patterns = FetchPattern::list(&json!({ "patterns": shown_patterns(&m) }));
        for url in [
            "https://ordinary.test/a.png",
            "http://sliccy.example/x.png",
            "https://cdn.test/img?x=1",
            "data:image/png;base64,AAAA",
        ] {
            assert!(
                !patterns.iter().any(|p| p.wants(url, "Image", false)),
                "{url} would wait for the guard"
            );
        }
        // Documents are all paused; a pattern text is escaped.
        let all = FetchPattern::list(&json!({ "patterns": guard_pattern(&shown_patterns(&m)) }));
        assert!(all
            .iter()
            .any(|p| p.wants("https://ordinary.test/", "Document", false)));
        assert_eq!(glob_escape(r"a*b?c\d"), r"a\*b\?c\\d");
    }
}
