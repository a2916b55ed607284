//! Client-set request headers on protected subresource requests (issue 19, class 6): kept
//! off.
//!
//! `Network.setExtraHTTPHeaders`, `Network.setUserAgentOverride` and
//! `Emulation.setUserAgentOverride` on a document session make the page's requests carry
//! values the client chose (a custom header on a no-cors request, which a page alone could not
//! send without a CORS preflight; a `Cookie` header, which injects cookies into a protected
//! server's session; a user agent, `Accept-Language` or client hints). Once a client sets
//! one on a session, the policy's own interception there takes every request (not only
//! documents), and a protected one is continued with the client's values taken out: the
//! header names it set, and `User-Agent`, `Accept-Language` and `Sec-CH-UA*` when it
//! overrode them. Chromium's network stack puts its own `User-Agent`, `Accept-Language` and
//! cookies back on a request that has none.
//!
//! The same holds on a worker's session (whose requests the page's settings do not reach, but
//! its own do): the policy's `Fetch` there is on only while the client has set headers.

use serde_json::{json, Value};

use super::fetch::{guard_pattern, guard_patterns};
use super::state::{Kind, Own};
use super::{Output, Policy};

/// What a client set on a session that reaches the page's requests.
#[derive(Debug, Clone, Default)]
pub(crate) struct Overrides {
    /// The header names of its `Network.setExtraHTTPHeaders`, lower case.
    pub(crate) headers: Vec<String>,
    /// `Network.setUserAgentOverride`: (a user agent, with its client hints; an
    /// `Accept-Language`).
    pub(crate) network: (bool, bool),
    /// `Emulation.setUserAgentOverride`, kept apart (Chromium keeps both).
    pub(crate) emulation: (bool, bool),
}

impl Overrides {
    /// Whether anything is overridden (the policy then intercepts every request).
    pub(crate) fn any(&self) -> bool {
        !self.headers.is_empty() || self.agent() || self.language()
    }

    fn agent(&self) -> bool {
        self.network.0 || self.emulation.0
    }

    fn language(&self) -> bool {
        self.network.1 || self.emulation.1
    }

    /// Whether a request header `name` may carry a value the client chose.
    fn taints(&self, name: &str) -> bool {
        let name = name.to_ascii_lowercase();
        self.headers.contains(&name)
            || (self.agent() && (name == "user-agent" || name.starts_with("sec-ch-ua")))
            || (self.language() && name == "accept-language")
    }

    /// The headers of a paused request without the client's values, as `Fetch.continueRequest`
    /// takes them; `None` when nothing is taken out.
    pub(crate) fn clean(&self, headers: &Value) -> Option<Value> {
        let map = headers.as_object()?;
        if !map.keys().any(|k| self.taints(k)) {
            return None;
        }
        Some(Value::Array(
            map.iter()
                .filter(|(k, _)| !self.taints(k))
                .map(|(k, v)| json!({"name": k, "value": v.as_str().unwrap_or_default()}))
                .collect(),
        ))
    }
}

/// Whether a user-agent override's `userAgent` sets one (an empty one takes it off).
fn sets(params: &Value, key: &str) -> bool {
    params
        .get(key)
        .and_then(Value::as_str)
        .is_some_and(|s| !s.is_empty())
}

impl Policy {
    /// A client command that sets request headers on a document session: remembered, and the
    /// policy's interception there widened to every request first (its own `Fetch.enable`,
    /// sent before the command).
    pub(super) fn override_command(
        &mut self,
        key: &str,
        method: &str,
        params: &Value,
        out: &mut Output,
    ) {
        let Some(s) = self.session_mut(key) else {
            return;
        };
        // Documents and workers (a worker's own session sets headers on its requests).
        if s.kind == Kind::Browser {
            return;
        }
        let parent = s.parent.clone();
        let before = (self.effective(key).any(), self.effective(&parent).any());
        let Some(s) = self.session_mut(key) else {
            return;
        };
        match method {
            "Network.setExtraHTTPHeaders" => {
                s.overrides.headers = params
                    .get("headers")
                    .and_then(Value::as_object)
                    .map(|h| h.keys().map(|k| k.to_ascii_lowercase()).collect())
                    .unwrap_or_default();
            }
            "Network.setUserAgentOverride" => {
                s.overrides.network = (sets(params, "userAgent"), sets(params, "acceptLanguage"));
            }
            "Emulation.setUserAgentOverride" => {
                s.overrides.emulation = (sets(params, "userAgent"), sets(params, "acceptLanguage"));
            }
            _ => return,
        }
        // The session itself, and the page that attached it (a worker's requests may be
        // paused on its page's session): each widened once it has overrides to keep off.
        for (k, was) in [(key.to_string(), before.0), (parent, before.1)] {
            let ready = self.session(&k).is_some_and(|s| {
                (s.kind == Kind::Document && s.guarded) || (s.kind == Kind::Other && k == key)
            });
            if ready && !was && self.effective(&k).any() {
                let params = self.fetch_params(&k);
                let msg = self.own_command(&k, "Fetch.enable", params, Own::Widen);
                out.to_browser.push(msg);
            }
        }
    }

    /// The overrides that may reach requests paused on session `key`: its own, those of the
    /// sessions it attached (its workers) and of the session that attached it.
    pub(super) fn effective(&self, key: &str) -> Overrides {
        let mut all = Overrides::default();
        let Some(s) = self.session(key) else {
            return all;
        };
        let mut add = |o: &Overrides| {
            all.headers.extend(o.headers.iter().cloned());
            all.network.0 |= o.network.0;
            all.network.1 |= o.network.1;
            all.emulation.0 |= o.emulation.0;
            all.emulation.1 |= o.emulation.1;
        };
        add(&s.overrides);
        if !key.is_empty() {
            if let Some(p) = self.session(&s.parent) {
                add(&p.overrides);
            }
            for c in self.sessions.values().filter(|c| c.parent == key) {
                add(&c.overrides);
            }
        }
        all
    }

    /// The policy's `Fetch.enable` params on a document session: the client's patterns (if
    /// it enabled `Fetch`) and the policy's own.
    pub(super) fn fetch_params(&self, key: &str) -> Value {
        let s = self.session(key);
        let mut patterns: Vec<Value> = s
            .and_then(|s| s.fetch.as_ref())
            .map(|f| f.raw.clone())
            .unwrap_or_default();
        match s {
            Some(_) => patterns.extend(guard_patterns(&self.effective(key))),
            None => patterns.push(guard_pattern()),
        }
        let mut params = json!({"patterns": patterns});
        if s.and_then(|s| s.fetch.as_ref())
            .is_some_and(|f| f.handle_auth)
        {
            params["handleAuthRequests"] = Value::Bool(true);
        }
        params
    }
}
