//! Client to browser: commands.

use serde_json::{json, Value};

use super::pattern::{FetchPattern, TargetFilter};
use super::scrub::{cookie_method, scrubbed_domain, Judging};
use super::state::{Check, ClientFetch, Kind, Pending, Then};
use super::{int_id, session_of, Output, Policy, Verdict, RESERVED_IDS};

/// The policy's own `Fetch` pattern on every document session: document requests, paused
/// before they are sent.
pub(super) fn guard_pattern() -> Value {
    json!({"urlPattern": "*", "resourceType": "Document", "requestStage": "Request"})
}

/// The members a CDP command may have (Chromium refuses others).
const COMMAND_KEYS: [&str; 4] = ["id", "method", "params", "sessionId"];

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

impl Policy {
    /// Answers a frame the policy cannot take with a protocol error (with its id, if any).
    pub(super) fn client_error(&self, frame: &str, code: i64, message: &str, out: &mut Output) {
        let parsed: Option<Value> = serde_json::from_str(frame).ok();
        let mut msg = json!({"error": {"code": code, "message": message}});
        if let Some(id) = parsed.as_ref().and_then(|v| v.get("id")) {
            if id.is_i64() || id.is_u64() {
                msg["id"] = id.clone();
            }
        }
        if let Some(s) = parsed
            .as_ref()
            .and_then(|v| v.get("sessionId"))
            .filter(|s| s.is_string())
        {
            msg["sessionId"] = s.clone();
        }
        out.to_client.push(msg.to_string());
    }

    fn refuse(&self, key: &str, id: i64, message: &str, why: &'static str, out: &mut Output) {
        out.to_client
            .push(self.refusal_frame(key, &Value::from(id), message));
        out.set(Verdict::Refuse, why);
    }

    pub(super) fn client_frame(&mut self, frame: &str, out: &mut Output) {
        let v: Value = match serde_json::from_str(frame) {
            Ok(v) => v,
            Err(_) => {
                self.client_error(frame, -32700, "Message must be in JSON format", out);
                return out.set(Verdict::Invalid, "not JSON");
            }
        };
        let Some(obj) = v.as_object() else {
            self.client_error(frame, -32600, "Message must be an object", out);
            return out.set(Verdict::Invalid, "not an object");
        };
        let Some(id) = int_id(&v) else {
            self.client_error(
                frame,
                -32600,
                "Message must have integer 'id' property",
                out,
            );
            return out.set(Verdict::Invalid, "no integer id");
        };
        let Some(method) = v.get("method").and_then(Value::as_str) else {
            self.client_error(
                frame,
                -32600,
                "Message must have string 'method' property",
                out,
            );
            return out.set(Verdict::Invalid, "no method");
        };
        if obj.keys().any(|k| !COMMAND_KEYS.contains(&k.as_str())) {
            self.client_error(
                frame,
                -32600,
                "Message has property other than 'id', 'method', 'sessionId', 'params'",
                out,
            );
            return out.set(Verdict::Invalid, "unknown member");
        }
        if v.get("params").is_some_and(|p| !p.is_object()) {
            self.client_error(
                frame,
                -32602,
                "Invalid parameters: params must be an object",
                out,
            );
            return out.set(Verdict::Invalid, "params not an object");
        }
        if v.get("sessionId").is_some_and(|s| !s.is_string()) {
            self.client_error(
                frame,
                -32600,
                "Message must have string 'sessionId' property",
                out,
            );
            return out.set(Verdict::Invalid, "sessionId not a string");
        }
        if RESERVED_IDS.contains(&id) {
            self.client_error(
                frame,
                -32600,
                "slicc: guard: command ids from 2000000000 are reserved for the guard",
                out,
            );
            return out.set(Verdict::Invalid, "reserved id");
        }
        let key = session_of(&v);
        if self.pending.contains_key(&(key.clone(), id)) {
            self.client_error(
                frame,
                -32600,
                "slicc: guard: a command with this id is already in flight on this session",
                out,
            );
            return out.set(Verdict::Invalid, "duplicate id");
        }
        if self.pending.len() >= self.cfg.max_pending {
            self.client_error(
                frame,
                -32000,
                "slicc: guard: too many commands in flight",
                out,
            );
            return out.set(Verdict::Refuse, "too many in flight");
        }
        if !key.is_empty() {
            if let Some(s) = self.sessions.get(&key) {
                if s.closed || !s.visible || self.hidden(&s.target, false) {
                    let refusal = self.m.refusal().to_string();
                    return self.refuse(&key, id, &refusal, "session on a protected target", out);
                }
            }
        }
        let method = method.to_string();
        self.command(&key, id, &method, &v, frame, out);
    }

    /// One well-formed client command on session `key`.
    fn command(
        &mut self,
        key: &str,
        id: i64,
        method: &str,
        v: &Value,
        frame: &str,
        out: &mut Output,
    ) {
        static EMPTY: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
        let params = v
            .get("params")
            .unwrap_or_else(|| EMPTY.get_or_init(|| json!({})));
        let refusal = self.m.refusal().to_string();
        let kind = self.session(key).map(|s| s.kind);
        let mut rewritten: Option<Value> = None;
        let mut consume: Option<String> = None;

        match method {
            // Browser-wide wipes reach seven's cookies whatever the origin.
            "Network.clearBrowserCookies" | "Storage.clearCookies" => {
                return self.refuse(key, id, &refusal, "browser-wide cookie wipe", out);
            }
            // Ways around the policy: CDP handed to a page, nested non-flat sessions, the
            // deprecated interception, extensions (which reach every origin).
            "Target.exposeDevToolsProtocol"
            | "Target.sendMessageToTarget"
            | "Network.setRequestInterception"
            | "Network.continueInterceptedRequest"
            | "Extensions.loadUnpacked" => {
                return self.refuse(key, id, &refusal, "bypasses the guard", out);
            }
            // Browser-wide tracing records every tab (B8).
            "Tracing.start" if kind == Some(Kind::Browser) => {
                return self.refuse(key, id, &refusal, "browser-wide tracing", out);
            }
            // Without a URL or domain it deletes that name on every domain.
            "Network.deleteCookies"
                if params.get("url").is_none() && params.get("domain").is_none() =>
            {
                return self.refuse(key, id, &refusal, "cookie delete on every domain", out);
            }
            // Without an origin it grants every origin.
            "Browser.setPermission" | "Browser.grantPermissions"
                if params.get("origin").is_none() =>
            {
                return self.refuse(key, id, &refusal, "permission for every origin", out);
            }
            "Target.attachToTarget"
                if params.get("flatten").and_then(Value::as_bool) != Some(true) =>
            {
                return self.refuse(
                    key,
                    id,
                    "slicc: guard: only flat sessions are supported (flatten: true)",
                    "non-flat session",
                    out,
                );
            }
            "Target.setAutoAttach" | "Target.autoAttachRelated" => {
                let auto = method == "Target.autoAttachRelated"
                    || params.get("autoAttach").and_then(Value::as_bool) == Some(true);
                if auto
                    && method == "Target.setAutoAttach"
                    && params.get("flatten").and_then(Value::as_bool) != Some(true)
                {
                    return self.refuse(
                        key,
                        id,
                        "slicc: guard: only flat sessions are supported (flatten: true)",
                        "non-flat auto-attach",
                        out,
                    );
                }
                let wait = params
                    .get("waitForDebuggerOnStart")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                if let Some(s) = self.session_mut(key) {
                    s.auto_wait = Some(wait);
                }
                if !wait {
                    let mut nv = v.clone();
                    nv["params"]["waitForDebuggerOnStart"] = Value::Bool(true);
                    rewritten = Some(nv);
                }
            }
            "Target.setDiscoverTargets" if key.is_empty() => {
                return self.answer_discover(id, params, out);
            }
            "Page.navigateToHistoryEntry" => {
                let entry = params.get("entryId").and_then(Value::as_i64);
                let known = entry.and_then(|e| self.session(key)?.history.get(&e).copied());
                match (entry, known) {
                    (_, Some(true)) | (None, _) => {
                        return self.refuse(key, id, &refusal, "protected history entry", out);
                    }
                    (Some(_), Some(false)) => {}
                    (Some(e), None) => {
                        return self.hold_history(key, id, method, e, frame, out);
                    }
                }
            }
            "Fetch.enable" => {
                let client = ClientFetch {
                    patterns: FetchPattern::list(params),
                    handle_auth: params
                        .get("handleAuthRequests")
                        .and_then(Value::as_bool)
                        .unwrap_or(false),
                };
                if kind == Some(Kind::Document) {
                    let mut patterns = params
                        .get("patterns")
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_else(|| vec![json!({"urlPattern": "*"})]);
                    patterns.push(guard_pattern());
                    let mut nv = v.clone();
                    nv["params"]["patterns"] = Value::Array(patterns);
                    rewritten = Some(nv);
                }
                if let Some(s) = self.session_mut(key) {
                    s.fetch = Some(client);
                }
            }
            "Fetch.disable" => {
                if let Some(s) = self.session_mut(key) {
                    s.fetch = None;
                }
                if kind == Some(Kind::Document) {
                    let mut nv = json!({"id": id, "method": "Fetch.enable", "params": {"patterns": [guard_pattern()]}});
                    if !key.is_empty() {
                        nv["sessionId"] = Value::String(key.to_string());
                    }
                    rewritten = Some(nv);
                }
            }
            _ => {}
        }

        if let Some(ends) = fetch_answer(method) {
            let rid = params
                .get("requestId")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let shown = self
                .session(key)
                .is_some_and(|s| s.paused.contains(&rid.to_string()));
            if !shown {
                return self.refuse(
                    key,
                    id,
                    &refusal,
                    "request id the client was not shown",
                    out,
                );
            }
            if ends {
                consume = Some(rid.to_string());
            }
        }
        if (method.starts_with("Network.") || method.starts_with("Audits."))
            && params.get("requestId").is_some()
        {
            let rid = params
                .get("requestId")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let ordinary = self
                .session(key)
                .and_then(|s| s.requests.get(&rid.to_string()))
                .is_some_and(|(p, _)| !p);
            if !ordinary {
                return self.refuse(key, id, &refusal, "request id not shown to the client", out);
            }
        }

        if scrubbed_domain(method)
            && !matches!(
                method,
                "Network.setBlockedURLs" | "Fetch.enable" | "Fetch.disable"
            )
        {
            let judging = Judging {
                m: &self.m,
                hidden: |t: &str| self.hidden(t, true),
                cookie_params: cookie_method(method),
            };
            if judging.names(params) {
                return self.refuse(key, id, &refusal, "names a protected origin", out);
            }
        }

        if let Some(rid) = consume {
            if let Some(s) = self.session_mut(key) {
                s.paused.remove(&rid);
            }
        }
        let target = params
            .get("targetId")
            .and_then(Value::as_str)
            .map(str::to_string);
        self.pending.insert(
            (key.to_string(), id),
            Pending {
                method: method.to_string(),
                target,
            },
        );
        match rewritten {
            Some(nv) => {
                out.to_browser.push(nv.to_string());
                out.set(Verdict::Rewrite, "guard settings kept");
            }
            None => {
                out.to_browser.push(frame.to_string());
                out.set(Verdict::Forward, "");
            }
        }
    }

    /// `Target.setDiscoverTargets` on the root: the policy's own discovery is always on, so it
    /// answers the client itself and replays the targets the client may see.
    fn answer_discover(&mut self, id: i64, params: &Value, out: &mut Output) {
        let on = params
            .get("discover")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        if on {
            let filter = TargetFilter::of(params);
            let mut shown: Vec<(u64, String)> = self
                .targets
                .iter()
                .filter(|(_, t)| !t.protected && filter.passes(&t.kind))
                .map(|(k, t)| (t.seq, k.clone()))
                .collect();
            shown.sort();
            for (_, k) in shown {
                let mut info = self.targets[&k].info.clone();
                let mut changed = false;
                let judging = Judging {
                    m: &self.m,
                    hidden: |t: &str| self.hidden(t, false),
                    cookie_params: false,
                };
                judging.scrub(&mut info, &mut changed);
                out.to_client.push(
                    json!({"method": "Target.targetCreated", "params": {"targetInfo": info}})
                        .to_string(),
                );
                if let Some(t) = self.targets.get_mut(&k) {
                    t.announced = true;
                }
            }
            self.root.discover = Some(filter);
        } else {
            self.root.discover = None;
            for t in self.targets.values_mut() {
                t.announced = false;
            }
        }
        out.to_client
            .push(json!({"id": id, "result": {}}).to_string());
        out.set(Verdict::Answer, "discovery answered by the guard");
    }

    /// Holds a `Page.navigateToHistoryEntry` for an entry the policy has not seen until its own
    /// `Page.getNavigationHistory` shows where it goes.
    fn hold_history(
        &mut self,
        key: &str,
        id: i64,
        method: &str,
        entry: i64,
        frame: &str,
        out: &mut Output,
    ) {
        let then = vec![Then::Command {
            frame: frame.to_string(),
            session: key.to_string(),
            id,
            method: method.to_string(),
        }];
        let checks = vec![(
            "Page.getNavigationHistory",
            json!({}),
            Check::History { entry },
        )];
        self.hold(key, checks, then, out);
        out.set(Verdict::Hold, "history entry checked first");
    }
}
