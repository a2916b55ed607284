//! Cookies and network: `Network` events of protected requests withheld, protected cookies
//! taken out of `*ExtraInfo` events, and the client's cookie commands judged.

use std::collections::HashSet;

use serde_json::{json, Value};

use super::command::{ClientCommand, Step};
use super::core::Core;
use super::output::{Output, Verdict};
use super::refusal::Refusal;
use super::scrub::{host_of, set_cookie_domain, strip_cookie_header};
use super::state::Kind;
/// The host remembered for a protected document request shown to the client as blocked
/// (no host is a NUL): its `loadingFailed` reaches the client too.
pub(super) const SHOWN_BLOCKED: &str = "\u{0}blocked document";

/// A protected document request's `requestWillBeSent` as the client sees it: its URLs
/// redacted to their origin, no headers, and the `Location` of a redirect that led there
/// redacted too.
fn redact_blocked_request(v: &mut Value) {
    let p = &mut v["params"];
    for ptr in ["/request/url", "/documentURL"] {
        if let Some(u) = p.pointer_mut(ptr) {
            if let Some(text) = u.as_str() {
                *u = Value::String(super::scrub::redacted(text));
            }
        }
    }
    if let Some(req) = p.get_mut("request").and_then(Value::as_object_mut) {
        req.remove("urlFragment");
        req.insert("headers".into(), Value::Object(Default::default()));
    }
    if let Some(headers) = p
        .pointer_mut("/redirectResponse/headers")
        .and_then(Value::as_object_mut)
    {
        for (k, val) in headers.iter_mut() {
            if k.eq_ignore_ascii_case("location") {
                if let Some(text) = val.as_str() {
                    *val = Value::String(super::scrub::redacted(text));
                }
            }
        }
    }
}

impl Core {
    /// Whether `v` is a `requestWillBeSent` the client is shown as a blocked document request.
    pub(super) fn shown_blocked(&self, v: &Value, key: &str) -> bool {
        let Some(rid) = v["params"]["requestId"].as_str() else {
            return false;
        };
        self.session(key)
            .and_then(|s| s.network.requests.get(&rid.to_string()))
            .is_some_and(|(p, h)| *p && h == SHOWN_BLOCKED)
    }

    /// `Network` events: `None` when the event must be withheld, else whether it changed.
    pub(super) fn network_event(&mut self, v: &mut Value, key: &str, method: &str) -> Option<bool> {
        let rid = v["params"]["requestId"].as_str().map(str::to_string);
        let known = rid
            .as_ref()
            .and_then(|r| self.session(key)?.network.requests.get(r).cloned());
        let mut changed = false;
        match method {
            "Network.requestWillBeSent" => {
                let url = v["params"]["request"]["url"].as_str().unwrap_or_default();
                let doc = v["params"]["documentURL"].as_str().unwrap_or_default();
                let protected = self.rules.m.cookie_url(url) || self.rules.m.cookie_url(doc);
                // A protected document request on a document session is failed by the
                // interception before it is sent (fetch.rs; one it missed costs the session):
                // the client sees it start and fail, as any blocked navigation, with its URL
                // redacted to the origin, so its library reports a failed navigation instead
                // of waiting for one that never comes.
                let shown = protected
                    && v["params"]["type"].as_str() == Some("Document")
                    && self
                        .session(key)
                        .is_some_and(|s| s.kind == super::state::Kind::Document);
                let host = if shown {
                    SHOWN_BLOCKED.to_string()
                } else {
                    host_of(url).to_string()
                };
                if let (Some(r), Some(s)) = (rid.clone(), self.session_mut(key)) {
                    s.network.requests.insert(r, (protected, host));
                }
                if shown {
                    redact_blocked_request(v);
                    return Some(true);
                }
                if protected {
                    return None;
                }
                let redirect_bad = v["params"]["redirectResponse"]["url"]
                    .as_str()
                    .is_some_and(|u| self.rules.m.cookie_url(u));
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
                let protected = self.rules.m.cookie_url(url);
                if let (Some(r), Some(s)) = (rid.clone(), self.session_mut(key)) {
                    s.network.requests.insert(r, (protected, String::new()));
                }
                if protected {
                    return None;
                }
            }
            "Network.responseReceived" => {
                let url = v["params"]["response"]["url"].as_str().unwrap_or_default();
                if self.rules.m.cookie_url(url) || known.as_ref().is_some_and(|(p, _)| *p) {
                    if let (Some(r), Some(s)) = (rid.clone(), self.session_mut(key)) {
                        s.network.requests.insert(r, (true, String::new()));
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
                                        .is_some_and(|d| self.rules.m.cookie_domain(d))
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
                                .is_some_and(|d| self.rules.m.cookie_domain(d))
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
            "Network.loadingFailed"
                if known
                    .as_ref()
                    .is_some_and(|(p, h)| *p && h == SHOWN_BLOCKED) => {}
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
    pub(super) fn filter_set_cookies(&self, v: &mut Value, host: &str) -> bool {
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
                    .filter(|line| !self.rules.m.cookie_domain(set_cookie_domain(line, host)))
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
                    !(is_set && self.rules.m.cookie_domain(set_cookie_domain(value, host)))
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
                    !c["cookieLine"].as_str().is_some_and(|line| {
                        self.rules.m.cookie_domain(set_cookie_domain(line, host))
                    })
                });
                changed |= items.len() != before;
            }
        }
        changed
    }
    /// The client's `Network.enable`/`disable` and `setBypassServiceWorker` on a document
    /// session, where the policy keeps `Network` on and service workers bypassed: enabling is
    /// remembered (its events reach the client from then on), disabling is answered by the
    /// policy, and a bypass turned off is kept on.
    pub(super) fn network_command(&mut self, cmd: &ClientCommand, out: &mut Output) -> Step {
        let (key, id, v) = (cmd.key, cmd.id, cmd.v);
        if self.session(key).map(|s| s.kind) != Some(Kind::Document) {
            return Step::Go(None);
        }
        match cmd.method {
            "Network.enable" => {
                if let Some(s) = self.session_mut(key) {
                    s.network.client = true;
                }
                Step::Go(None)
            }
            "Network.disable" => {
                if let Some(s) = self.session_mut(key) {
                    s.network.client = false;
                }
                let mut answer = json!({"id": id, "result": {}});
                if !key.is_empty() {
                    answer["sessionId"] = json!(key);
                }
                out.to_client.push(answer.to_string());
                out.set(Verdict::Answer, "the guard keeps Network on");
                Step::Done
            }
            _ => {
                let mut nv = v.clone();
                nv["params"]["bypass"] = Value::Bool(true);
                Step::Go(if nv == *v { None } else { Some(nv) })
            }
        }
    }

    /// `Network.getCookies` naming protected URLs: the ordinary ones are read, the protected
    /// (and those of a protected origin's host on another port or scheme, whose cookies are
    /// that origin's) taken out of `urls`; the answer's protected cookies are filtered as in
    /// every result. With no ordinary URL left the policy answers with no cookies, as every
    /// other cookie read is answered: filtered, never refused.
    pub(super) fn cookie_read(&self, cmd: &ClientCommand, out: &mut Output) -> Step {
        let Some(urls) = cmd.params.get("urls").and_then(Value::as_array) else {
            return Step::Go(None);
        };
        let off_limits = |u: &Value| {
            u.as_str().is_none_or(|s| {
                self.rules.m.cookie_url(s)
                    || self.names_internal(u)
                    || self.rules.m.cookie_domain(&super::deny::cookie_host(s))
            })
        };
        let kept: Vec<Value> = urls.iter().filter(|u| !off_limits(u)).cloned().collect();
        if kept.len() == urls.len() {
            return Step::Go(None);
        }
        if kept.is_empty() {
            let mut answer = json!({"id": cmd.id, "result": {"cookies": []}});
            if !cmd.key.is_empty() {
                answer["sessionId"] = json!(cmd.key);
            }
            out.to_client.push(answer.to_string());
            out.set(Verdict::Answer, "cookie read of protected URLs only: none");
            return Step::Done;
        }
        let mut nv = cmd.v.clone();
        nv["params"]["urls"] = Value::Array(kept);
        Step::Go(Some(nv))
    }

    /// Cookie reads (answered filtered, [`Core::cookie_read`]) and deletes (refused when
    /// they would reach every domain).
    pub(super) fn cookie_command(&self, cmd: &ClientCommand, out: &mut Output) -> Step {
        let params = cmd.params;
        match cmd.method {
            // A cookie read naming protected and ordinary URLs: read for the ordinary ones.
            "Network.getCookies" => self.cookie_read(cmd, out),
            // Without a URL or domain it deletes that name on every domain.
            "Network.deleteCookies"
                if params.get("url").is_none() && params.get("domain").is_none() =>
            {
                Step::Refuse(Refusal::CookieDeleteEverywhere)
            }
            _ => Step::Go(None),
        }
    }

    /// Permission commands: a grant or setting without an origin (it reaches every origin)
    /// is refused; a reset of every origin's permissions only in a context the client
    /// created (Playwright's `context.clearPermissions()`): the user's contexts hold what the
    /// user (or the user's own DevTools client) granted protected origins. A clipboard read
    /// granted is refused before (clipboard.rs).
    pub(super) fn permission_command(&self, cmd: &ClientCommand) -> Step {
        match cmd.method {
            "Browser.resetPermissions" if !self.client_created(cmd) => {
                Step::Refuse(Refusal::ResetPermissions)
            }
            "Browser.setPermission" | "Browser.grantPermissions"
                if cmd.params.get("origin").is_none() =>
            {
                Step::Refuse(Refusal::PermissionEverywhere)
            }
            _ => Step::Go(None),
        }
    }

    /// A `Network` or `Audits` command naming a request id must name one the client was shown
    /// as ordinary. Why it is refused, if it is.
    pub(super) fn request_id_command(&self, cmd: &ClientCommand) -> Option<Refusal<'static>> {
        let (method, params) = (cmd.method, cmd.params);
        if !((method.starts_with("Network.") || method.starts_with("Audits."))
            && params.get("requestId").is_some())
        {
            return None;
        }
        let rid = params
            .get("requestId")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let ordinary = self
            .session(cmd.key)
            .and_then(|s| s.network.requests.get(&rid.to_string()))
            .is_some_and(|(p, _)| !p);
        (!ordinary).then_some(Refusal::UnshownRequest)
    }
}
