//! Default deny: a client command goes on only when the table (table.rs) classifies it, and
//! each of its parameters is judged as the table says; a parameter the table does not list is
//! judged as if it named an origin.
//!
//! Ids of requests, scripts, objects and sessions, and local paths, are judged by their own
//! concerns (cookies.rs, scripts.rs, sessions.rs, local_paths.rs); this walk judges what names an
//! origin (URLs, sites, storage keys, cache ids, cookie domains, cookies) and the target and
//! frame ids, wherever the table puts them.

use serde_json::Value;

use super::core::Core;
use super::table::{Command, Judge, Reach};

/// What a command's parameters name that the client may not reach.
pub(super) enum Named {
    /// A protected origin (or a protected or unknown target, a protected frame).
    Protected,
    /// A browser-internal page or the browser's own DevTools endpoint.
    Internal,
    /// A protected origin in a parameter the table does not list: (the parameter's name).
    Unlisted(String),
    /// A grant of reach over every origin (`Judge::Grant`).
    Grant,
}

impl Core {
    /// Judges a classified command's parameters by the table; `None` when nothing in them is
    /// off limits.
    pub(super) fn table_judges(&self, entry: &Command, params: &Value) -> Option<Named> {
        let map = params.as_object()?;
        let host = entry.reach == Reach::Host;
        for (name, value) in map {
            match entry.param(name) {
                Some(judge) => {
                    if let Some(named) = self.judge_value(judge, value, host) {
                        return Some(named);
                    }
                }
                // Not in the protocol the table covers: judged as if it named an origin.
                None => {
                    if self.names_anything(value) {
                        return Some(Named::Unlisted(name.clone()));
                    }
                }
            }
        }
        None
    }

    /// Whether `url` is off limits, and how; with `host`, a URL is read as cookies read it:
    /// by its host (as the WHATWG parser reads it), whatever its scheme and port, so that a
    /// cookie set or deleted for another port or scheme of a protected origin's host is
    /// refused (cookies do not keep to an origin).
    fn judge_url(&self, url: &str, host: bool) -> Option<Named> {
        if self.internal(url) {
            Some(Named::Internal)
        } else if self.rules.m.cookie_url(url)
            || (host && self.rules.m.cookie_domain(&cookie_host(url)))
        {
            Some(Named::Protected)
        } else {
            None
        }
    }

    fn judge_value(&self, judge: &Judge, v: &Value, host: bool) -> Option<Named> {
        if let Judge::Grant = judge {
            let empty = match v {
                Value::Null => true,
                Value::Array(items) => items.is_empty(),
                Value::String(s) => s.is_empty(),
                _ => false,
            };
            return (!empty).then_some(Named::Grant);
        }
        // A judge on a list applies to each item.
        if let (Value::Array(items), false) = (v, matches!(judge, Judge::Any)) {
            return items.iter().find_map(|i| self.judge_value(judge, i, host));
        }
        let s = v.as_str();
        let protected = |yes: bool| yes.then_some(Named::Protected);
        match judge {
            Judge::Url | Judge::Urls => s.and_then(|u| self.judge_url(u, host)),
            Judge::StorageKey => protected(s.is_some_and(|k| self.rules.m.storage_key(k))),
            Judge::CacheId => {
                protected(s.is_some_and(|id| super::scrub::cache_id_protected(&self.rules.m, id)))
            }
            Judge::CookieDomain => protected(s.is_some_and(|d| self.rules.m.cookie_domain(d))),
            Judge::Cookie => {
                let domain = v.get("domain").and_then(Value::as_str);
                if domain.is_some_and(|d| self.rules.m.cookie_domain(d)) {
                    return Some(Named::Protected);
                }
                if let Some(n) = v
                    .get("url")
                    .and_then(Value::as_str)
                    .and_then(|u| self.judge_url(u, host))
                {
                    return Some(n);
                }
                v.pointer("/partitionKey/topLevelSite")
                    .and_then(Value::as_str)
                    .and_then(|u| self.judge_url(u, false))
            }
            Judge::Target => {
                let t = s?;
                let internal = self
                    .targets
                    .map
                    .get(t)
                    .is_some_and(|r| self.internal(r.url()));
                if internal {
                    Some(Named::Internal)
                } else {
                    protected(self.hidden_or_unknown(t))
                }
            }
            Judge::Frame => protected(s.is_some_and(|f| self.hidden(f))),
            Judge::Any => self.names_anything(v).then_some(Named::Protected),
            Judge::Members(members) => {
                let map = v.as_object()?;
                members.iter().find_map(|(name, j)| {
                    map.get(name)
                        .and_then(|child| self.judge_value(j, child, host))
                })
            }
            // Judged above, by their own concerns, or naming nothing.
            Judge::Grant
            | Judge::None
            | Judge::Pattern
            | Judge::Session
            | Judge::Request
            | Judge::Script
            | Judge::Object
            | Judge::Path
            | Judge::Context => None,
        }
    }

    /// Whether any string in `v` (at any depth) is a protected or internal URL, a protected
    /// storage key, or a protected target's id: how a value the table does not describe is
    /// judged.
    fn names_anything(&self, v: &Value) -> bool {
        super::walk::any_string(v, |_, s| {
            self.off_limits(s) || self.rules.m.storage_key(s) || self.hidden(s)
        })
    }
}

/// The host a cookie command's URL sets or deletes cookies for, as the WHATWG parser (and so
/// Chromium) reads it; empty when the URL has none (an empty cookie domain is protected).
pub(super) fn cookie_host(url: &str) -> String {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_default()
}
