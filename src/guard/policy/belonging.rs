//! What belongs to a protected page is protected with it, whatever its own URL: the frames it
//! holds in other processes (another site's widget, a sandboxed or `srcdoc` frame, which
//! Chromium isolates in a process of its own), the popups it opened that can still script it,
//! and the workers it started whose URL has no origin of its own (`data:`).
//!
//! Read from what Chromium tells the policy (measured on Chromium 156): an iframe target's
//! `TargetInfo.parentId` names the target holding it; a popup's `openerId` names its opener and
//! `canAccessOpener` says whether it can still reach it (a `noopener` popup cannot); a worker
//! attached under a session belongs to that session's target (its host, sessions.rs). A target
//! whose owner the policy has not seen yet is protected until the owner is known (the first
//! discovery judges it again, targets.rs), and a shared worker with no origin of its own, whose
//! maker Chromium does not name, is protected: the policy cannot tell it from a protected
//! page's.

use serde_json::{json, Value};

use super::core::Core;
use super::output::Output;

/// Worker and worklet target types.
const WORKERS: [&str; 5] = [
    "worker",
    "shared_worker",
    "service_worker",
    "worklet",
    "shared_storage_worklet",
];

/// What a target's belonging says about it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Belonging {
    /// It belongs to a protected page (or its owner is unknown: fail closed).
    pub(super) protected: bool,
    /// That rests on an owner the policy has not seen yet.
    pub(super) unknown: bool,
}

/// Whether a worker's URL has no origin of its own (`data:`, or one that does not parse).
fn opaque(url: &str) -> bool {
    url::Url::parse(url).map_or(true, |u| !u.origin().is_tuple())
}

impl Core {
    /// Whether a target the policy saw (or forgot as destroyed) is protected; `None` when it
    /// never saw it.
    pub(super) fn owner_protected(&self, id: &str) -> Option<bool> {
        match self.targets.map.get(id) {
            Some(t) => Some(t.protected),
            None => self.targets.gone.get(&id.to_string()).copied(),
        }
    }

    /// The owner of the target of `info`: the target holding it (an iframe's `parentId`, a
    /// worker's host), or the opener it can still script. `None` when it has none.
    fn owner_of<'a>(&'a self, info: &'a Value) -> Option<&'a str> {
        let id = info["targetId"].as_str().unwrap_or_default();
        let kind = info["type"].as_str().unwrap_or_default();
        if let Some(parent) = info.get("parentId").and_then(Value::as_str) {
            return Some(parent);
        }
        if WORKERS.contains(&kind) {
            return self.targets.frame_hosts.get(id).map(String::as_str);
        }
        if info.get("canAccessOpener").and_then(Value::as_bool) == Some(true) {
            return info.get("openerId").and_then(Value::as_str);
        }
        None
    }

    /// Whether the target of `info` belongs to a protected page.
    pub(super) fn belonging(&self, info: &Value) -> Belonging {
        let kind = info["type"].as_str().unwrap_or_default();
        let url = info["url"].as_str().unwrap_or_default();
        match self.owner_of(info) {
            Some(owner) => match self.owner_protected(owner) {
                Some(protected) => Belonging {
                    protected,
                    unknown: false,
                },
                None => Belonging {
                    protected: true,
                    unknown: true,
                },
            },
            // A worker of no known maker with no origin of its own: any page's, a protected
            // one's included.
            None if WORKERS.contains(&kind) && opaque(url) => Belonging {
                protected: true,
                unknown: false,
            },
            None => Belonging::default(),
        }
    }

    /// The targets that belong to target `id` (see [`Core::belonging`]) and are not
    /// protected yet.
    fn belongings(&self, id: &str) -> Vec<String> {
        self.targets
            .map
            .iter()
            .filter(|(_, t)| !t.protected && self.owner_of(&t.info) == Some(id))
            .map(|(k, _)| k.clone())
            .collect()
    }

    /// Target `id` turned protected: what belongs to it turns protected too (each losing its
    /// sessions), and a client told of one is told it is gone, so that none waits for it.
    pub(super) fn protect_belongings(&mut self, id: &str, out: &mut Output) {
        let mut work = self.belongings(id);
        while let Some(k) = work.pop() {
            let told = match self.targets.map.get_mut(&k) {
                Some(t) if !t.protected => {
                    t.protected = true;
                    t.announced
                }
                _ => continue,
            };
            self.cut_sessions(&k, out);
            if told {
                out.to_client.push(
                    json!({"method": "Target.targetDestroyed", "params": {"targetId": k}})
                        .to_string(),
                );
            }
            work.extend(self.belongings(&k));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::opaque;

    #[test]
    fn opaque_worker_urls() {
        assert!(opaque("data:application/javascript,x"));
        assert!(opaque(""));
        assert!(!opaque("https://vault.sliccy.ai/w.js"));
        assert!(!opaque("blob:https://ordinary.test/1"));
    }
}
