//! Scripts and style sheets a client's page loaded from a protected origin (issue 19, class
//! 7): a page may run a protected script (`<script src>` of a protected URL) or apply a
//! protected style sheet, whose text the web keeps from the page, and a debugger would not.
//!
//! Each session keeps the `Debugger` script ids and `CSS` style sheet ids it reported, and
//! whether each came from a protected (or browser-internal) URL. Reports of protected ones
//! are withheld; a `Debugger` or `CSS` command may name only ids the client was shown as
//! ordinary (no guessed ids). A `Debugger.paused` with a frame in a script the client was not
//! shown is withheld and resumed by the policy (a pause there shows the script's local
//! scopes), and the `Debugger.resumed` that follows is withheld too. `[[Scopes]]` (a
//! function's closure) is taken out of `Runtime.getProperties` results unless the function's
//! script was shown as ordinary, and `Runtime.queryObjects` (every object of the page's heap,
//! a protected script's private ones included) is refused.

use serde_json::{json, Value};

use super::command::ClientCommand;
use super::core::Core;
use super::output::Output;
use super::refusal::Refusal;
use super::state::Own;
use super::walk;

/// The internal property holding a function's closure scopes.
const SCOPES: &str = "[[Scopes]]";

impl Core {
    /// Whether `id` is a script id this session reported to the client as ordinary.
    fn script_shown(&self, key: &str, id: &str) -> bool {
        self.session(key)
            .and_then(|s| s.code.scripts.get(&id.to_string()))
            .is_some_and(|p| !p)
    }

    /// Whether `id` is a style sheet id this session reported to the client as ordinary.
    fn sheet_shown(&self, key: &str, id: &str) -> bool {
        self.session(key)
            .and_then(|s| s.code.sheets.get(&id.to_string()))
            .is_some_and(|p| !p)
    }

    /// Whether anything under `v` names a protected or internal URL (`url`, `sourceURL`,
    /// `embedderName`, `sourceMapURL`) or a script the client was not shown (`scriptId`).
    fn names_hidden_script(&self, key: &str, v: &Value) -> bool {
        walk::any_string(v, |k, s| match k {
            Some("url" | "sourceURL" | "embedderName" | "sourceMapURL") => self.off_limits(s),
            Some("scriptId") => !self.script_shown(key, s),
            _ => false,
        })
    }

    /// A client command of `Debugger` or `CSS`: the reason it is refused, if it is.
    pub(super) fn script_command(&self, cmd: &ClientCommand) -> Option<Refusal<'static>> {
        let (key, params) = (cmd.key, cmd.params);
        let domain = cmd.method.split('.').next().unwrap_or_default();
        let mut bad = false;
        match domain {
            "Debugger" => walk::each_member(params, |k, s| {
                bad |= match k {
                    "scriptId" => !self.script_shown(key, s),
                    "url" => self.off_limits(s),
                    _ => false,
                };
            }),
            "CSS" => walk::each_member(params, |k, s| {
                bad |= k == "styleSheetId" && !self.sheet_shown(key, s);
            }),
            _ => {}
        }
        bad.then_some(Refusal::Script)
    }

    /// `Debugger` and `CSS` events: scripts and style sheets learnt; protected ones, and
    /// pauses in them, withheld. Returns why the event is withheld, if it is.
    pub(super) fn script_event(
        &mut self,
        v: &Value,
        key: &str,
        method: &str,
        out: &mut Output,
    ) -> Option<&'static str> {
        let p = &v["params"];
        match method {
            "Debugger.scriptParsed" | "Debugger.scriptFailedToParse" => {
                let id = p["scriptId"].as_str().unwrap_or_default().to_string();
                // Its own id is not judged (it is being learnt); its URLs and stack are.
                let mut rest = p.clone();
                if let Some(m) = rest.as_object_mut() {
                    m.remove("scriptId");
                }
                // A script named by a URL the session did not see load and end on an ordinary
                // origin may have come from a protected one through a redirect (loads.rs).
                let protected =
                    self.names_hidden_script(key, &rest) || self.unseen_script(key, &rest);
                if let Some(s) = self.session_mut(key) {
                    s.code.scripts.insert(id, protected);
                }
                protected.then_some("script from a protected origin")
            }
            "Debugger.paused" => {
                if !self.names_hidden_script(key, p) && !self.unseen_script(key, p) {
                    return None;
                }
                let msg = self.own_command(key, "Debugger.resume", json!({}), Own::Ignore);
                out.to_browser.push(msg);
                if let Some(s) = self.session_mut(key) {
                    s.code.resumed_hidden = true;
                }
                Some("paused in a script from a protected origin")
            }
            "Debugger.resumed" => {
                let s = self.session_mut(key)?;
                std::mem::take(&mut s.code.resumed_hidden).then_some("resumed by the guard")
            }
            "Debugger.breakpointResolved" => self
                .names_hidden_script(key, p)
                .then_some("breakpoint in a script from a protected origin"),
            "CSS.styleSheetAdded" => {
                let h = &p["header"];
                let id = h["styleSheetId"].as_str().unwrap_or_default().to_string();
                let protected = h["sourceURL"].as_str().is_some_and(|u| self.off_limits(u));
                if let Some(s) = self.session_mut(key) {
                    let mut forgot = false;
                    s.code
                        .sheets
                        .insert_forgetting(id, protected, |gone| forgot |= gone);
                    s.code.sheets_forgot |= forgot;
                }
                protected.then_some("style sheet from a protected origin")
            }
            "CSS.styleSheetChanged" | "CSS.styleSheetRemoved" => {
                let id = p["styleSheetId"].as_str().unwrap_or_default();
                (!self.sheet_shown(key, id)).then_some("style sheet from a protected origin")
            }
            _ => None,
        }
    }

    /// A `CSS` result (`CSS.getMatchedStylesForNode` and the like): every rule, style or
    /// keyframe from a style sheet reported as protected is taken out (its selectors and
    /// declarations are the sheet's text, which the web keeps from the page; a rule from a
    /// protected sheet matches the page's elements as an ordinary one does). Returns whether it
    /// changed.
    pub(super) fn css_response(&self, v: &mut Value, key: &str) -> bool {
        /// Whether `v` must go: it names a protected sheet and holds no list to prune it from.
        fn prune(p: &Core, key: &str, v: &mut Value, changed: &mut bool) -> bool {
            match v {
                Value::Object(map) => {
                    // A sheet reported protected, or any sheet not known once a protected
                    // one was forgotten (the session's memory of sheets is bounded).
                    let hidden =
                        map.get("styleSheetId")
                            .and_then(Value::as_str)
                            .is_some_and(|id| {
                                p.session(key).is_some_and(|s| {
                                    s.code
                                        .sheets
                                        .get(&id.to_string())
                                        .map_or(s.code.sheets_forgot, |protected| *protected)
                                })
                            });
                    if hidden {
                        return true;
                    }
                    let mut gone = false;
                    for child in map.values_mut() {
                        gone |= prune(p, key, child, changed);
                    }
                    gone
                }
                Value::Array(items) => {
                    let before = items.len();
                    items.retain_mut(|i| !prune(p, key, i, changed));
                    *changed |= items.len() != before;
                    false
                }
                _ => false,
            }
        }
        let mut changed = false;
        if let Some(r) = v.get_mut("result") {
            if prune(self, key, r, &mut changed) {
                *r = serde_json::json!({});
                changed = true;
            }
        }
        changed
    }

    /// A `Runtime.getProperties` result: `[[Scopes]]` kept only when the function's location
    /// names a script the client was shown as ordinary. A `Debugger.setBreakpointByUrl`
    /// result: locations in hidden scripts taken out. Returns whether it changed.
    pub(super) fn script_response(&self, v: &mut Value, key: &str, method: &str) -> bool {
        match method {
            "Runtime.getProperties" => {
                let Some(items) = v
                    .pointer_mut("/result/internalProperties")
                    .and_then(Value::as_array_mut)
                else {
                    return false;
                };
                let ordinary = items.iter().any(|p| {
                    matches!(
                        p["name"].as_str(),
                        Some("[[FunctionLocation]]" | "[[GeneratorLocation]]")
                    ) && p["value"]["value"]["scriptId"]
                        .as_str()
                        .is_some_and(|id| self.script_shown(key, id))
                });
                let before = items.len();
                if !ordinary {
                    items.retain(|p| p["name"].as_str() != Some(SCOPES));
                }
                items.len() != before
            }
            "Debugger.setBreakpointByUrl" => {
                let Some(items) = v
                    .pointer_mut("/result/locations")
                    .and_then(Value::as_array_mut)
                else {
                    return false;
                };
                let before = items.len();
                items.retain(|l| {
                    l["scriptId"]
                        .as_str()
                        .is_some_and(|id| self.script_shown(key, id))
                });
                items.len() != before
            }
            _ => false,
        }
    }
}

/// The members of a command that name a remote object.
const OBJECT_KEYS: [&str; 2] = ["objectId", "prototypeObjectId"];

impl Core {
    /// Remembers every object id in a frame going to the client on its session.
    pub(super) fn learn_objects(&mut self, v: &Value) {
        let key = super::core::session_of(v);
        let mut ids = Vec::new();
        walk::each_member(v, |k, s| {
            if k == "objectId" {
                ids.push(s.to_string());
            }
        });
        if let Some(s) = self.session_mut(&key) {
            for id in ids {
                s.code.objects.touch(&id);
            }
        }
    }

    /// A command naming object ids may name only ones the client was shown on its session
    /// (no guessed ids: V8 numbers them in order, and the closure of a protected script's
    /// function gets one whether the client is shown it or not). Why it is refused, if it is.
    pub(super) fn object_command(&mut self, cmd: &ClientCommand) -> Option<Refusal<'static>> {
        let mut named = Vec::new();
        walk::each_member(cmd.params, |k, s| {
            if OBJECT_KEYS.contains(&k) {
                named.push(s.to_string());
            }
        });
        if named.is_empty() {
            return None;
        }
        let s = self.session_mut(cmd.key)?;
        if named.iter().all(|o| s.code.objects.contains(o)) {
            for o in &named {
                s.code.objects.touch(o);
            }
            return None;
        }
        Some(Refusal::Object)
    }
}
