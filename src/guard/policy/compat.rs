//! What the policy does itself so that ordinary clients keep working where the browser's own
//! command would reach a protected origin.
//!
//! `Storage.clearCookies` wipes every cookie of a browser context, the protected origins'
//! included, so the browser never sees it. On the user's default context (no
//! `browserContextId`, or one the client did not create) it is refused: those are the user's
//! own cookies. Clients still clear the contexts they created with it (Playwright's
//! `context.clearCookies()` does, with its `browserContextId`), so there the policy does what
//! it may of it: its own `Storage.getCookies` for the same context, then its own
//! `Storage.setCookies` with every cookie whose domain is not protected set to expire, which
//! deletes them (partitioned ones with their partition key); the client gets `{}` when that
//! is done, or the browser's error. Protected cookies stay where they are.

use serde_json::{json, Map, Value};

use super::command::{ClientCommand, Step};
use super::core::Core;
use super::output::{Output, Verdict};
use super::refusal::Refusal;
use super::state::{Clear, Clearing, Own};

/// The members of a `Storage.getCookies` cookie that say which cookie it is.
const COOKIE_KEYS: [&str; 6] = [
    "name",
    "domain",
    "path",
    "secure",
    "httpOnly",
    "partitionKey",
];

impl Core {
    /// `Storage.clearCookies` from the client: starts the clear of the ordinary cookies of a
    /// context the client created. The user's default context (no `browserContextId`, or one
    /// the client did not create) holds the user's own cookies: refused.
    pub(super) fn clear_cookies(&mut self, cmd: &ClientCommand, out: &mut Output) -> Step {
        if !self.client_created(cmd) {
            return Step::Refuse(Refusal::UserWipe);
        }
        let (key, id) = (cmd.key, cmd.id);
        let context = cmd.params.get("browserContextId").cloned();
        let mut get = Map::new();
        if let Some(c) = &context {
            get.insert("browserContextId".into(), c.clone());
        }
        let clearing = Clearing {
            step: Clear::Listed,
            session: key.to_string(),
            id,
            context,
        };
        let msg = self.own_command(
            key,
            "Storage.getCookies",
            Value::Object(get),
            Own::Clear(clearing),
        );
        out.to_browser.push(msg);
        out.set(
            Verdict::Answer,
            "cookie wipe done without the protected cookies",
        );
        Step::Done
    }

    /// The browser's answer to a step of a clear.
    pub(super) fn clear_step(&mut self, mut clearing: Clearing, v: &Value, out: &mut Output) {
        if let Some(error) = v.get("error") {
            let mut msg = json!({"id": clearing.id, "error": error});
            if !clearing.session.is_empty() {
                msg["sessionId"] = Value::String(clearing.session.clone());
            }
            out.to_client.push(msg.to_string());
            return;
        }
        match clearing.step {
            Clear::Listed => {
                let cookies = v["result"]["cookies"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                let expired: Vec<Value> = cookies
                    .iter()
                    .filter(|c| {
                        c["domain"]
                            .as_str()
                            .is_some_and(|d| !self.rules.m.cookie_domain(d))
                    })
                    .map(|c| {
                        let mut gone = Map::new();
                        for k in COOKIE_KEYS {
                            if let Some(x) = c.get(k) {
                                gone.insert(k.into(), x.clone());
                            }
                        }
                        gone.insert("value".into(), json!(""));
                        gone.insert("expires".into(), json!(1));
                        Value::Object(gone)
                    })
                    .collect();
                let mut set = Map::new();
                set.insert("cookies".into(), Value::Array(expired));
                if let Some(c) = &clearing.context {
                    set.insert("browserContextId".into(), c.clone());
                }
                let session = clearing.session.clone();
                clearing.step = Clear::Expired;
                let msg = self.own_command(
                    &session,
                    "Storage.setCookies",
                    Value::Object(set),
                    Own::Clear(clearing),
                );
                out.to_browser.push(msg);
            }
            Clear::Expired => {
                let mut msg = json!({"id": clearing.id, "result": {}});
                if !clearing.session.is_empty() {
                    msg["sessionId"] = Value::String(clearing.session.clone());
                }
                out.to_client.push(msg.to_string());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::super::{Policy, Verdict, RESERVED_IDS};
    use crate::protected::Matcher;

    fn ready() -> Policy {
        let m = Matcher::new(
            &crate::catalog::shared_catalog().protected_origins,
            &[] as &[&str],
        )
        .unwrap();
        let mut p = Policy::new(m);
        p.start(0);
        let id = RESERVED_IDS.start();
        p.from_browser(&format!(r#"{{"id":{id},"result":{{}}}}"#), 1);
        p
    }

    /// The ids of the policy's own commands in `frames` with `method`.
    fn own(frames: &[String], method: &str) -> Vec<i64> {
        frames
            .iter()
            .filter_map(|f| serde_json::from_str::<Value>(f).ok())
            .filter(|v| v["method"] == json!(method))
            .filter_map(|v| v["id"].as_i64())
            .collect()
    }

    #[test]
    fn clearing_cookies_keeps_the_protected_ones() {
        let mut p = ready();
        // The context is the client's own.
        let out = p.from_client(r#"{"id":4,"method":"Target.createBrowserContext"}"#, 1);
        assert_eq!(out.verdict, Verdict::Forward);
        p.from_browser(r#"{"id":4,"result":{"browserContextId":"C1"}}"#, 1);
        let out = p.from_client(
            r#"{"id":5,"method":"Storage.clearCookies","params":{"browserContextId":"C1"}}"#,
            2,
        );
        assert_eq!(out.verdict, Verdict::Answer);
        assert!(out.to_client.is_empty());
        let get = own(&out.to_browser, "Storage.getCookies");
        assert_eq!(get.len(), 1, "{:?}", out.to_browser);
        assert!(out.to_browser[0].contains(r#""browserContextId":"C1""#));
        let cookies = json!({"id": get[0], "result": {"cookies": [
            {"name": "a", "value": "1", "domain": "ordinary.test", "path": "/", "secure": false, "httpOnly": false},
            {"name": "s", "value": "secret", "domain": "seven.sliccy.ai", "path": "/", "secure": true, "httpOnly": true},
            {"name": "p", "value": "2", "domain": ".example.com", "path": "/", "secure": true, "httpOnly": false,
             "partitionKey": {"topLevelSite": "https://example.org", "hasCrossSiteAncestor": true}}
        ]}});
        let out = p.from_browser(&cookies.to_string(), 3);
        assert!(out.to_client.is_empty());
        let set = own(&out.to_browser, "Storage.setCookies");
        assert_eq!(set.len(), 1, "{:?}", out.to_browser);
        let sent: Value = serde_json::from_str(&out.to_browser[0]).unwrap();
        let names: Vec<&str> = sent["params"]["cookies"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["a", "p"], "seven's cookie stays");
        assert_eq!(
            sent["params"]["cookies"][1]["partitionKey"]["topLevelSite"],
            "https://example.org"
        );
        assert!(sent["params"]["cookies"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["expires"] == 1));
        assert_eq!(sent["params"]["browserContextId"], "C1");
        let out = p.from_browser(&json!({"id": set[0], "result": {}}).to_string(), 4);
        assert_eq!(out.to_client, [r#"{"id":5,"result":{}}"#]);
        // The browser-wide wipe on a page session is still refused.
        let out = p.from_client(r#"{"id":6,"method":"Network.clearBrowserCookies"}"#, 5);
        assert_eq!(out.verdict, Verdict::Refuse);
    }

    #[test]
    fn the_users_context_is_never_wiped() {
        let mut p = ready();
        for (id, params) in [(5, "{}"), (6, r#"{"browserContextId":"DEFAULT"}"#)] {
            let out = p.from_client(
                &format!(r#"{{"id":{id},"method":"Storage.clearCookies","params":{params}}}"#),
                2,
            );
            assert_eq!(out.verdict, Verdict::Refuse, "{params}");
            assert!(out.to_browser.is_empty(), "{:?}", out.to_browser);
            assert!(out.to_client[0].contains("slicc: refused"));
        }
    }

    #[test]
    fn a_held_session_keeps_chromium_order() {
        let mut p = ready();
        let out = p.from_client(
            r#"{"id":1,"method":"Target.setAutoAttach","params":{"autoAttach":true,"waitForDebuggerOnStart":true,"flatten":true}}"#,
            2,
        );
        p.from_browser(r#"{"id":1,"result":{}}"#, 3);
        assert_eq!(out.to_browser.len(), 1);
        p.from_client(
            r#"{"id":2,"method":"Target.createTarget","params":{"url":"about:blank"}}"#,
            4,
        );
        let event = r#"{"method":"Target.attachedToTarget","params":{"sessionId":"S1","targetInfo":{"targetId":"T9","type":"page","title":"","url":"about:blank","attached":true,"canAccessOpener":false},"waitingForDebugger":true}}"#;
        let out = p.from_browser(event, 5);
        assert_eq!(out.verdict, Verdict::Hold);
        let fetch = own(&out.to_browser, "Fetch.enable");
        assert_eq!(fetch.len(), 1);
        // The frame tree is checked, but a waiting target answers it only once it runs.
        assert_eq!(own(&out.to_browser, "Page.getFrameTree").len(), 1);
        // The response Chromium sent after the event waits behind it...
        let out = p.from_browser(r#"{"id":2,"result":{"targetId":"T9"}}"#, 6);
        assert!(out.to_client.is_empty(), "{:?}", out.to_client);
        // ...and both leave in Chromium's order once the interception is on.
        let out = p.from_browser(&json!({"id": fetch[0], "result": {}}).to_string(), 7);
        assert_eq!(out.to_client.len(), 2, "{:?}", out.to_client);
        assert!(out.to_client[0].contains("Target.attachedToTarget"));
        assert_eq!(out.to_client[1], r#"{"id":2,"result":{"targetId":"T9"}}"#);
        // Nothing waits any more.
        let out = p.from_browser(
            r#"{"method":"Target.targetCrashed","params":{"targetId":"T0"}}"#,
            8,
        );
        assert_eq!(out.to_client.len(), 0);
        let out = p.from_client(r#"{"id":3,"method":"Browser.getVersion"}"#, 9);
        assert_eq!(out.to_browser.len(), 1);
        let out = p.from_browser(r#"{"id":3,"result":{}}"#, 10);
        assert_eq!(out.to_client, [r#"{"id":3,"result":{}}"#]);
    }
}
