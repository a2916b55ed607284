//! Client to browser: commands, each handed to its concern (targets, sessions, holds, fetch,
//! cookies) after the checks every command gets; what passes has its parameters judged once,
//! each by the judge the table gives it (deny.rs), before it is forwarded.

use serde_json::{json, Value};

use super::deny::{Named, UNCLASSIFIED_WHY};
use super::state::{Kind, Pending};
use super::table::{self, Class};
use super::{int_id, internal_url, session_of, Output, Policy, Verdict, RESERVED_IDS};

/// The members a CDP command may have (Chromium refuses others).
const COMMAND_KEYS: [&str; 4] = ["id", "method", "params", "sessionId"];

/// A client frame read once: a JSON object, unless a member is named twice (Chromium refuses
/// such a message; serde_json alone would keep the last), or any other JSON value.
enum Top {
    Object(serde_json::Map<String, Value>),
    /// The first member named twice.
    Twice(String),
    Other,
}

impl<'de> serde::Deserialize<'de> for Top {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Top, D::Error> {
        d.deserialize_any(TopVisitor)
    }
}

struct TopVisitor;

impl<'de> serde::de::Visitor<'de> for TopVisitor {
    type Value = Top;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Top, A::Error> {
        let mut map = serde_json::Map::new();
        while let Some(key) = a.next_key::<String>()? {
            if map.contains_key(&key) {
                while a
                    .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                    .is_some()
                {}
                return Ok(Top::Twice(key));
            }
            let value: Value = a.next_value()?;
            map.insert(key, value);
        }
        Ok(Top::Object(map))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Top, A::Error> {
        while a.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(Top::Other)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Top, E> {
        Ok(Top::Other)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Top, E> {
        Ok(Top::Other)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Top, E> {
        Ok(Top::Other)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Top, E> {
        Ok(Top::Other)
    }
    fn visit_str<E>(self, _: &str) -> Result<Top, E> {
        Ok(Top::Other)
    }
    fn visit_unit<E>(self) -> Result<Top, E> {
        Ok(Top::Other)
    }
}

/// What a concern decided about a client command.
pub(super) enum Step {
    /// Answered, refused or held by the concern: nothing more to do.
    Done,
    /// Goes on to the common checks, rewritten when `Some`.
    Go(Option<Value>),
}

/// Why a browser-internal page is refused, in the refusal's words.
pub(super) const INTERNAL_WHY: &str =
    "a browser-internal page (chrome:, devtools:, about: and the like, or the browser's own DevTools endpoint) or a local file (file:, such as the profile's storage files) shows and changes every site's data, protected ones included";

/// Why `Browser.resetPermissions` outside a context the client created is refused.
const RESET_PERMISSIONS_WHY: &str = "it resets the permissions of every origin of a browser context the client did not create, protected ones included";

/// Why tracing is refused, in the refusal's words.
const TRACING_WHY: &str =
    "tracing records the browser process's events for every tab, protected ones included";

/// Why capture and input are refused on a page holding a protected frame.
pub(super) const HOSTED_WHY: &str = "the page holds a frame on a protected origin in another process, which capture, input and frame commands would reach";

/// Why closing a browser context or the browser is refused while a protected tab is open.
const CLOSES_WHY: &str = "it closes a protected tab (its browser context, or the whole browser), with what the user had there";

/// Why a renderer-wide override is refused beside a protected site, in the refusal's words.
const SHARED_WHY: &str = "the page is same-site with a protected origin, whose pages may share its renderer process, where this override is process-wide";

/// Overrides Blink applies to the whole renderer process (the ICU time zone and locale, the
/// virtual clock, the network state and CPU speed), so to every same-site page in it: refused
/// on a page a protected origin shares a site with, and a session that set one may not load a
/// document on such a site (fetch.rs).
const RENDERER_WIDE: [&str; 7] = [
    "Emulation.setTimezoneOverride",
    "Emulation.setLocaleOverride",
    "Emulation.setVirtualTimePolicy",
    "Emulation.setCPUThrottlingRate",
    "Network.emulateNetworkConditions",
    "Network.emulateNetworkConditionsByRule",
    "Network.overrideNetworkState",
];

/// Why heap profiling is refused, in the refusal's words.
/// Why a `Storage.clearCookies` of the user's browser context is refused.
const USER_WIPE_WHY: &str = "a wipe of the user's browser context clears the protected origins' cookies; only a context the client created is wiped, without them";

const HEAP_WHY: &str = "a heap snapshot, a profile or a coverage covers the whole renderer process, which a protected same-site page may share";

/// How deep a client may nest sessions it attaches from sessions (see [`Policy::nesting`]).
pub(super) const MAX_NESTING: usize = 64;

impl Policy {
    /// How many sessions lie between session `key` and the root (0 for the root), counted up
    /// to [`MAX_NESTING`].
    fn nesting(&self, key: &str) -> usize {
        let mut at = key;
        let mut depth = 0;
        while !at.is_empty() && depth < MAX_NESTING {
            match self.sessions.get(at) {
                Some(s) => at = &s.parent,
                None => break,
            }
            depth += 1;
        }
        depth
    }

    /// The catalog's refusal with the reason in brackets.
    pub(super) fn refusal_because(&self, because: &str) -> String {
        format!("{} ({because})", self.m.refusal())
    }

    /// What a refused command named that is protected, in the words a refusal gives it: the
    /// origin of a protected URL (or of a storage key), the domain of a protected cookie
    /// (`cookies of <domain>`), "a browser-internal page", or "a protected target" for a
    /// target id (whose origin the client may never have been shown). `None` when the command names none of them (it was
    /// refused for what it would do, not for what it names).
    pub(super) fn refused_what(&self, v: &Value) -> Option<String> {
        let of_url = |u: &str| -> Option<String> {
            if self.internal(u) {
                Some("a browser-internal page".to_string())
            } else if self.m.cookie_url(u) {
                Some(super::scrub::redacted(u))
            } else {
                None
            }
        };
        match v {
            Value::Object(map) => {
                for (k, child) in map {
                    let found = match (k.as_str(), child) {
                        // Not its origin: the client may have guessed an id it was never shown.
                        ("targetId" | "openerId", Value::String(t))
                            if self.hidden_or_unknown(t) =>
                        {
                            Some("a protected target".to_string())
                        }
                        ("storageKey" | "origin" | "securityOrigin", Value::String(k))
                            if self.m.storage_key(k) || self.off_limits(k) =>
                        {
                            Some(of_url(k).unwrap_or_else(|| {
                                super::scrub::redacted(k.split('^').next().unwrap_or(k))
                            }))
                        }
                        ("domain", Value::String(d)) if self.m.cookie_domain(d) => {
                            Some(format!("cookies of {}", d.trim_start_matches('.')))
                        }
                        (_, Value::String(u)) if u.contains(':') => of_url(u),
                        _ => None,
                    };
                    if let Some(w) = found.or_else(|| self.refused_what(child)) {
                        return Some(w);
                    }
                }
                None
            }
            Value::Array(items) => items.iter().find_map(|i| self.refused_what(i)),
            _ => None,
        }
    }

    /// Names, in each refusal of `out` to client command `frame`, what it refused (see
    /// [`Policy::refused_what`]): the catalog's refusal stays the prefix, and the bracket
    /// says which protected thing it was.
    pub(super) fn name_refused(&self, frame: &str, out: &mut Output) {
        let Ok(v) = serde_json::from_str::<Value>(frame) else {
            return;
        };
        let Some(what) = v.get("params").and_then(|p| self.refused_what(p)) else {
            return;
        };
        let refusal = self.m.refusal();
        for f in out.to_client.iter_mut() {
            let Ok(mut answer) = serde_json::from_str::<Value>(f) else {
                continue;
            };
            if answer.get("id") != v.get("id") || answer.get("sessionId") != v.get("sessionId") {
                continue;
            }
            let Some(message) = answer.pointer("/error/message").and_then(Value::as_str) else {
                continue;
            };
            let named = if message == refusal {
                format!("{refusal} ({what})")
            } else if let Some(rest) = message
                .strip_prefix(refusal)
                .and_then(|r| r.strip_prefix(" ("))
            {
                if rest.starts_with(&what) {
                    continue;
                }
                format!("{refusal} ({what}: {rest}")
            } else {
                continue;
            };
            answer["error"]["message"] = Value::String(named);
            *f = answer.to_string();
        }
    }

    /// Whether `v` holds a browser-internal URL or names a target on one.
    pub(super) fn names_internal(&self, v: &Value) -> bool {
        match v {
            Value::String(s) => {
                self.internal(s)
                    || self
                        .targets
                        .get(s)
                        .is_some_and(|t| t.info["url"].as_str().is_some_and(internal_url))
            }
            Value::Array(items) => items.iter().any(|i| self.names_internal(i)),
            Value::Object(map) => map.values().any(|i| self.names_internal(i)),
            _ => false,
        }
    }

    /// Whether a protected tab is open in browser context `context` (in any, for `None`): an
    /// ordinary or internal page is not one, and an unknown context holds none the policy saw.
    fn closes_protected(&self, context: Option<&Value>) -> bool {
        self.targets.values().any(|t| {
            t.protected
                && matches!(t.kind.as_str(), "page" | "tab")
                && !t.info["url"].as_str().is_some_and(internal_url)
                && context.is_none_or(|c| t.info.get("browserContextId") == Some(c))
        })
    }

    /// Answers a frame the policy cannot take with a protocol error (with its id, if any).
    pub(super) fn client_error(&self, frame: &str, code: i64, message: &str, out: &mut Output) {
        // Its top level only (the rest is not read again).
        let head = super::budget::FrameHead::of(frame);
        let mut msg = json!({"error": {"code": code, "message": message}});
        if let Some(id) = head.id.filter(|id| id.is_i64() || id.is_u64()) {
            msg["id"] = id;
        }
        if let Some(s) = head.session {
            msg["sessionId"] = Value::String(s);
        }
        out.to_client.push(msg.to_string());
    }

    pub(super) fn refuse(
        &self,
        key: &str,
        id: i64,
        message: &str,
        why: &'static str,
        out: &mut Output,
    ) {
        out.to_client
            .push(self.refusal_frame(key, &Value::from(id), message));
        out.set(Verdict::Refuse, why);
    }

    pub(super) fn client_frame(&mut self, frame: &str, out: &mut Output) {
        let v: Value = match serde_json::from_str(frame) {
            Ok(Top::Object(map)) => Value::Object(map),
            Ok(Top::Other) => {
                self.client_error(frame, -32600, "Message must be an object", out);
                return out.set(Verdict::Invalid, "not an object");
            }
            // Chromium refuses it and answers the first `id`, the policy would have waited for
            // the last: answered here, without an id (which one would be a guess).
            Ok(Top::Twice(name)) => {
                let message = format!("Message must not name a member twice ({name:?})");
                out.to_client
                    .push(json!({"error": {"code": -32700, "message": message}}).to_string());
                return out.set(Verdict::Invalid, "a member named twice");
            }
            Err(_) => {
                self.client_error(frame, -32700, "Message must be in JSON format", out);
                return out.set(Verdict::Invalid, "not JSON");
            }
        };
        let Some(obj) = v.as_object() else {
            self.client_error(frame, -32600, "Message must be an object", out);
            return out.set(Verdict::Invalid, "not an object");
        };
        // Chromium reads ids as 32-bit integers and answers others without an id: the client
        // would never be answered, and the command would count as in flight for good.
        let Some(id) = int_id(&v).filter(|id| i32::try_from(*id).is_ok()) else {
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
            match self.sessions.get(&key) {
                Some(s) => {
                    if s.closed || !s.visible || self.hidden(&s.target) {
                        let refusal = self.m.refusal().to_string();
                        return self.refuse(
                            &key,
                            id,
                            &refusal,
                            "session on a protected target",
                            out,
                        );
                    }
                }
                // Chromium's own answer: a client never waits for a session nobody has.
                None => {
                    self.client_error(frame, -32001, "Session with given id not found.", out);
                    return out.set(Verdict::Invalid, "unknown session");
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

        // Default deny: only what the table classifies goes on (table.rs, deny.rs).
        let Some(entry) = table::table().command(method) else {
            let message = self.refusal_because(UNCLASSIFIED_WHY);
            return self.refuse(key, id, &message, "unclassified command", out);
        };
        if entry.class == Class::Refuse {
            let message = self.refusal_because(entry.why.as_deref().unwrap_or_default());
            return self.refuse(key, id, &message, "refused by the table", out);
        }

        // A frame on a protected origin in another process of this page: nothing that would
        // read or drive it goes through the page.
        if self.reaches_hosted(key, method, params) {
            let message = self.refusal_because(HOSTED_WHY);
            return self.refuse(key, id, &message, "page hosts a protected frame", out);
        }
        // A capture of a page showing a protected image, a resource read by a URL that may
        // have redirected to a protected origin, a load that follows any redirect (loads.rs).
        if let Some(why) = self.load_command(key, method, params) {
            let message = self.refusal_because(why);
            return self.refuse(key, id, &message, "protected content a page loaded", out);
        }
        // Local files in a protected path (the profile's storage files), by path (paths.rs).
        if let Some(why) = self.paths.command(method, params) {
            let message = self.refusal_because(why);
            return self.refuse(key, id, &message, "names a protected local path", out);
        }
        // The user's clipboard into a page: a paste, a clipboard read permission (clipboard.rs).
        if super::clipboard::reads_clipboard(method, params) {
            let message = self.refusal_because(super::clipboard::CLIPBOARD_WHY);
            return self.refuse(key, id, &message, "reads the user's clipboard", out);
        }
        // A page handed a download folder, or a file or folder above one (downloads.rs).
        if let Some(why) = self.downloads.overlap(method, params) {
            let message = self.refusal_because(why);
            return self.refuse(key, id, &message, "a download folder for a page", out);
        }
        // A frame id of a protected target (an out-of-process frame) is refused anywhere.
        if params
            .get("frameId")
            .and_then(Value::as_str)
            .is_some_and(|f| self.hidden(f))
        {
            return self.refuse(key, id, &refusal, "names a protected frame", out);
        }

        // Scripts and style sheets from protected origins a page loaded (scripts.rs).
        if self.script_refused(key, id, method, params, out)
            || self.object_refused(key, id, params, out)
        {
            return;
        }

        if RENDERER_WIDE.contains(&method) {
            let shared = self
                .session(key)
                .and_then(|s| self.targets.get(&s.target))
                .and_then(|t| t.info["url"].as_str())
                .is_some_and(|u| self.m.shares_site(u));
            if shared {
                let message = self.refusal_because(SHARED_WHY);
                return self.refuse(
                    key,
                    id,
                    &message,
                    "renderer-wide beside a protected site",
                    out,
                );
            }
            if let Some(s) = self.session_mut(key) {
                s.renderer_wide = true;
            }
        }

        if matches!(
            method,
            "Network.setExtraHTTPHeaders"
                | "Network.setUserAgentOverride"
                | "Emulation.setUserAgentOverride"
        ) {
            self.override_command(key, method, params, out);
        }

        let step = match method {
            // A wipe of a context the client created: the policy clears its ordinary cookies
            // itself (compat.rs). The user's default context (no `browserContextId`, or one the
            // client did not create) holds the user's own cookies: refused.
            "Storage.clearCookies" => {
                let created = params
                    .get("browserContextId")
                    .and_then(Value::as_str)
                    .is_some_and(|c| self.client_contexts.contains(&c.to_string()));
                if !created {
                    let message = self.refusal_because(USER_WIPE_WHY);
                    return self.refuse(key, id, &message, "wipe of the user's cookies", out);
                }
                self.clear_cookies(key, id, params, out);
                Step::Done
            }
            // Permissions are reset for every origin of a context: only in a context the client
            // created (Playwright's `context.clearPermissions()`); the user's contexts hold
            // what the user (or the user's own DevTools client) granted protected origins.
            "Browser.resetPermissions" => {
                let created = params
                    .get("browserContextId")
                    .and_then(Value::as_str)
                    .is_some_and(|c| self.client_contexts.contains(&c.to_string()));
                if !created {
                    let message = self.refusal_because(RESET_PERMISSIONS_WHY);
                    return self.refuse(key, id, &message, "reset of the user's permissions", out);
                }
                Step::Go(None)
            }
            // A cookie read naming protected and ordinary URLs: read for the ordinary ones.
            "Network.getCookies" => self.cookie_read(params, v),
            "Network.clearBrowserCookies"
            | "Network.deleteCookies"
            | "Browser.setPermission"
            | "Browser.grantPermissions" => self.cookie_command(key, id, method, params, out),
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
            // Tracing on a page session still records the browser process's events for every
            // tab (a protected tab's URL, in events and in the IO stream); a memory dump
            // covers every process.
            "Tracing.start" | "Tracing.requestMemoryDump" => {
                let message = self.refusal_because(TRACING_WHY);
                return self.refuse(key, id, &message, "tracing sees every tab", out);
            }
            // A heap snapshot, an allocation or CPU profile and a script coverage cover the
            // whole renderer process (one V8 isolate), and a protected same-site page may
            // share it.
            "HeapProfiler.takeHeapSnapshot"
            | "HeapProfiler.startTrackingHeapObjects"
            | "HeapProfiler.startSampling"
            | "HeapProfiler.getSamplingProfile"
            | "HeapProfiler.stopSampling"
            | "HeapProfiler.getObjectByHeapObjectId"
            | "Memory.startSampling"
            | "Memory.getSamplingProfile"
            | "Memory.getAllTimeSamplingProfile"
            | "Memory.getBrowserSamplingProfile"
            | "Profiler.start"
            | "Profiler.startPreciseCoverage"
            | "Profiler.takePreciseCoverage"
            | "Profiler.getBestEffortCoverage" => {
                let message = self.refusal_because(HEAP_WHY);
                return self.refuse(key, id, &message, "heap profile of a shared process", out);
            }
            // Sessions made from sessions, without end: Chromium 156 crashes (SIGSEGV) when
            // the outermost of 30,000 nested browser sessions is detached, which would close
            // the user's protected tabs as `Browser.crash` would.
            "Target.attachToTarget" | "Target.attachToBrowserTarget"
                if self.nesting(key) >= MAX_NESTING =>
            {
                let message = format!(
                    "slicc: guard: sessions nest at most {MAX_NESTING} deep (a browser crashes on deep ones)"
                );
                return self.refuse(key, id, &message, "sessions nested too deep", out);
            }
            "Target.attachToTarget" | "Target.setAutoAttach" | "Target.autoAttachRelated" => {
                self.attach_command(key, id, method, params, v, out)
            }
            // Closing a browser context (which names no target) or the whole browser closes
            // every tab in it, protected ones included. A context the client made holds no
            // tab of the user's: a protected page in it is one the client's pages opened (a
            // popup onto a protected origin, which the client is not shown), and the client
            // may close what it made.
            "Target.disposeBrowserContext" | "Browser.close" | "Browser.crash"
                if self.closes_protected(params.get("browserContextId"))
                    && !(method == "Target.disposeBrowserContext"
                        && params
                            .get("browserContextId")
                            .and_then(Value::as_str)
                            .is_some_and(|c| self.client_contexts.contains(&c.to_string()))) =>
            {
                let message = self.refusal_because(CLOSES_WHY);
                return self.refuse(key, id, &message, "closes a protected tab", out);
            }
            "Target.setDiscoverTargets" if key.is_empty() => {
                return self.answer_discover(id, params, out);
            }
            "Page.navigateToHistoryEntry" => {
                self.history_command(key, id, method, params, frame, out)
            }
            "Fetch.enable" | "Fetch.disable" => self.fetch_command(key, id, method, params, v),
            // Downloads are watched: protected ones are cancelled (downloads.rs).
            "Browser.setDownloadBehavior" | "Page.setDownloadBehavior" => {
                match self.download_command(key, method, params, v) {
                    Ok(step) => step,
                    Err(why) => {
                        let message = self.refusal_because(why);
                        return self.refuse(key, id, &message, "download folder not watched", out);
                    }
                }
            }
            "Preload.enable" | "Preload.disable" => {
                if let Some(s) = self.session_mut(key) {
                    s.client_preload = method == "Preload.enable";
                }
                Step::Go(None)
            }
            "Network.enable" | "Network.disable" | "Network.setBypassServiceWorker"
                if kind == Some(Kind::Document) =>
            {
                self.network_command(key, id, method, v, out)
            }
            _ => Step::Go(None),
        };
        let Step::Go(rewritten) = step else {
            return;
        };

        let Ok(consume) = self.fetch_answer_check(key, id, method, params, out) else {
            return;
        };
        if self.request_id_refused(key, id, method, params, out) {
            return;
        }

        // What goes to the browser is judged: the command as the policy rewrote it, if it did
        // (a cookie read with the protected URLs taken out), unless the policy made it another
        // command of its own (a `Fetch.disable` that keeps the policy's interception on).
        let sent = rewritten
            .as_ref()
            .filter(|nv| nv.get("method").and_then(Value::as_str) == Some(method))
            .and_then(|nv| nv.get("params"))
            .unwrap_or(params);
        match self.table_judges(entry, sent) {
            Some(Named::Internal) => {
                let message = self.refusal_because(INTERNAL_WHY);
                return self.refuse(key, id, &message, "names a browser-internal page", out);
            }
            Some(Named::Protected) => {
                return self.refuse(key, id, &refusal, "names a protected origin", out);
            }
            Some(Named::Unlisted(name)) => {
                let message = self.refusal_because(&format!(
                    "the guard's table does not list the parameter {name:?} of this command, and its value names a protected origin"
                ));
                return self.refuse(
                    key,
                    id,
                    &message,
                    "an unlisted parameter names a protected origin",
                    out,
                );
            }
            None => {}
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
        let request = (method.starts_with("Network.") || method.starts_with("Audits."))
            .then(|| params.get("requestId").and_then(Value::as_str))
            .flatten()
            .map(str::to_string);
        self.pending.insert(
            (key.to_string(), id),
            Pending {
                method: method.to_string(),
                target,
                request,
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
}
