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

use serde_json::Value;

use super::command::{ClientCommand, Step};
use super::core::Core;
use super::output::Output;
use super::state::{Kind, Overrides, Own};

/// Whether a user-agent override's `userAgent` sets one (an empty one takes it off).
fn sets(params: &Value, key: &str) -> bool {
    params
        .get(key)
        .and_then(Value::as_str)
        .is_some_and(|s| !s.is_empty())
}

impl Core {
    /// A client command that sets request headers on a document session: remembered, and the
    /// policy's interception there widened to every request first (its own `Fetch.enable`,
    /// sent before the command). It goes on as the client sent it.
    pub(super) fn override_command(&mut self, cmd: &ClientCommand, out: &mut Output) -> Step {
        let (key, method, params) = (cmd.key, cmd.method, cmd.params);
        let Some(s) = self.session_mut(key) else {
            return Step::Go(None);
        };
        // Documents and workers (a worker's own session sets headers on its requests).
        if s.kind == Kind::Browser {
            return Step::Go(None);
        }
        let parent = s.parent.clone();
        let before = (self.effective(key).any(), self.effective(&parent).any());
        let Some(s) = self.session_mut(key) else {
            return Step::Go(None);
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
            _ => return Step::Go(None),
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
        Step::Go(None)
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
            for c in self.sessions.map.values().filter(|c| c.parent == key) {
                add(&c.overrides);
            }
        }
        all
    }
}
