//! Targets: the policy's target table and the spec's *Targets* rule, both ways (discovery
//! answered to the client, target events and listings judged and filtered).

use serde_json::{json, Value};

use super::command::{ClientCommand, Step};
use super::core::Core;
use super::output::{Output, Verdict};
use super::pattern::TargetFilter;
use super::refusal::Refusal;
use super::scrub::Judging;
use super::state::TargetRecord;
use super::table::Concern;
use crate::protected::Opener;
impl Core {
    /// Whether a target is protected (a destroyed one as it was; one the policy never saw is
    /// not): for what the browser reports.
    pub(super) fn hidden(&self, id: &str) -> bool {
        self.protected_or(id, false)
    }

    /// Whether a target is protected, or one the policy never saw: for what the client names.
    pub(super) fn hidden_or_unknown(&self, id: &str) -> bool {
        self.protected_or(id, true)
    }

    fn protected_or(&self, id: &str, unknown: bool) -> bool {
        self.owner_protected(id).unwrap_or(unknown)
    }

    pub(super) fn opener_of(&self, info: &Value) -> Opener {
        let opener = info
            .get("openerId")
            .and_then(Value::as_str)
            .or_else(|| info.get("openerFrameId").and_then(Value::as_str));
        match opener {
            None => Opener::None,
            Some(o) => match self.targets.map.get(o) {
                Some(t) if t.protected => Opener::Protected,
                Some(_) => Opener::Unprotected,
                None => match self.targets.gone.get(&o.to_string()) {
                    Some(true) => Opener::Protected,
                    Some(false) => Opener::Unprotected,
                    None => Opener::Unknown,
                },
            },
        }
    }

    /// A protected frame in another process marks every page holding it (its host, and
    /// theirs): commands that would read or drive it through them are refused.
    pub(super) fn mark_hosts(&mut self, id: &str) {
        let mut at = id.to_string();
        for _ in 0..64 {
            let Some(host) = self.targets.frame_hosts.get(&at).cloned() else {
                return;
            };
            self.targets.hosting.insert(host.clone());
            at = host;
        }
    }

    /// A destroyed target leaves the frame hosts: a frame it hosted is hosted by its own host
    /// now (so a protected frame still marks every page above it), and it hosts nothing.
    fn forget_frame(&mut self, id: &str) {
        let host = self.targets.frame_hosts.remove(id);
        for h in self.targets.frame_hosts.values_mut() {
            if h == id {
                match &host {
                    Some(above) => h.clone_from(above),
                    None => h.clear(),
                }
            }
        }
        self.targets.frame_hosts.retain(|_, h| !h.is_empty());
        self.targets.hosting.remove(id);
        self.targets.showing.remove(id);
    }

    /// Whether a command on a page hosting a protected frame (see [`Core::mark_hosts`])
    /// would read or drive that frame: captures, input (editing commands included) and any
    /// command naming a frame other than the page's own main frame.
    pub(super) fn reaches_hosted(&self, cmd: &ClientCommand) -> bool {
        let params = cmd.params;
        let Some(target) = self.session(cmd.key).map(|s| s.target.as_str()) else {
            return false;
        };
        if target.is_empty() || !self.targets.hosting.contains(target) {
            return false;
        }
        let captures = matches!(cmd.concern, Some(Concern::Captures | Concern::FrameOwner));
        let names_frame = params
            .get("frameId")
            .and_then(Value::as_str)
            .is_some_and(|f| f != target);
        captures || cmd.domain() == "Input" || names_frame
    }

    /// Closing a browser context (`Target.disposeBrowserContext`, which names no target)
    /// closes every tab in it, protected ones included (the whole browser's close is judged by
    /// its reach). A context the client made holds no tab of the user's: a protected page in
    /// it is one the client's pages opened (a popup onto a protected origin, which the client
    /// is not shown), and the client may close what it made.
    pub(super) fn context_command(&self, cmd: &ClientCommand) -> Step {
        let closes = cmd.method == "Target.disposeBrowserContext"
            && self.closes_protected(cmd.params.get("browserContextId"));
        if closes && !self.client_created(cmd) {
            return Step::Refuse(Refusal::Closes);
        }
        Step::Go(None)
    }

    /// `Target.setDiscoverTargets` on the root: the policy's own discovery is always on, so it
    /// answers the client itself and replays the targets the client may see.
    pub(super) fn answer_discover(&mut self, cmd: &ClientCommand, out: &mut Output) -> Step {
        if !cmd.key.is_empty() {
            return Step::Go(None);
        }
        let (id, params) = (cmd.id, cmd.params);
        let on = params
            .get("discover")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        if on {
            let filter = TargetFilter::of(params);
            let mut shown: Vec<(u64, String)> = self
                .targets
                .map
                .iter()
                .filter(|(_, t)| !t.protected && filter.passes(&t.kind))
                .map(|(k, t)| (t.seq, k.clone()))
                .collect();
            shown.sort();
            for (_, k) in shown {
                let mut info = self.targets.map[&k].info.clone();
                let mut changed = self.redact_shown(&mut info);
                let judging = Judging {
                    m: &self.rules.m,
                    endpoints: &self.rules.endpoints,
                    hidden: |t: &str| self.hidden(t),
                    cookie_params: false,
                };
                judging.scrub(&mut info, &mut changed);
                out.to_client.push(
                    json!({"method": "Target.targetCreated", "params": {"targetInfo": info}})
                        .to_string(),
                );
                if let Some(t) = self.targets.map.get_mut(&k) {
                    t.announced = true;
                }
            }
            self.sessions.root.discover = Some(filter);
        } else {
            self.sessions.root.discover = None;
            for t in self.targets.map.values_mut() {
                t.announced = false;
            }
        }
        out.to_client
            .push(json!({"id": id, "result": {}}).to_string());
        out.set(Verdict::Answer, "discovery answered by the guard");
        Step::Done
    }
    /// `Target.targetDestroyed` / `targetCrashed`: a destroyed target is remembered (for
    /// openers); the event reaches the client when the target was shown to it.
    pub(super) fn destroyed_event(
        &mut self,
        frame: &str,
        v: &Value,
        key: &str,
        method: &str,
        out: &mut Output,
    ) {
        let id = v["params"]["targetId"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let hidden = self.hidden(&id);
        let announced = self.targets.map.get(&id).is_some_and(|t| t.announced);
        if method == "Target.targetDestroyed" {
            if let Some(t) = self.targets.map.remove(&id) {
                self.targets.gone.insert(id.clone(), t.protected);
            }
            self.forget_frame(&id);
        }
        if hidden {
            return out.set(Verdict::Drop, "protected target");
        }
        if key.is_empty() && !(self.sessions.root.discover.is_some() && announced) {
            return out.set(Verdict::Drop, "the guard's own discovery");
        }
        out.to_client.push(frame.to_string());
        out.set(Verdict::Forward, "");
    }

    /// A target's info as the client may see it: a target on the error page of a load the
    /// policy failed shows the failed URL as its URL and title, which are redacted to the
    /// origin. Returns whether `info` changed.
    pub(super) fn redact_shown(&self, info: &mut Value) -> bool {
        let error_page = info["targetId"]
            .as_str()
            .and_then(|id| self.targets.map.get(id))
            .is_some_and(|t| t.error_page);
        if !error_page {
            return false;
        }
        let Some(url) = info["url"].as_str() else {
            return false;
        };
        let shown = super::scrub::redacted(url);
        info["url"] = json!(shown);
        info["title"] = json!(shown);
        true
    }

    /// The pointers (under `base`) of the `url` and `title` of every info in `infos` that
    /// [`Core::redact_shown`] redacted: kept as they are by the scrub.
    pub(super) fn redacted_infos(&self, infos: &Value, base: &str) -> Vec<String> {
        let mut kept = Vec::new();
        for (i, info) in infos.as_array().into_iter().flatten().enumerate() {
            let error_page = info["targetId"]
                .as_str()
                .and_then(|id| self.targets.map.get(id))
                .is_some_and(|t| t.error_page);
            if error_page {
                kept.push(format!("{base}/{i}/url"));
                kept.push(format!("{base}/{i}/title"));
            }
        }
        kept
    }

    /// Marks a target protected and detaches every session to it; what belongs to it turns
    /// protected too (belonging.rs).
    pub(super) fn protect_target(&mut self, id: &str, out: &mut Output) {
        if let Some(t) = self.targets.map.get_mut(id) {
            t.protected = true;
        } else {
            return;
        }
        self.cut_sessions(id, out);
        self.protect_belongings(id, out);
    }

    /// Detaches every session to target `id`.
    pub(super) fn cut_sessions(&mut self, id: &str, out: &mut Output) {
        let keys: Vec<String> = self
            .sessions
            .map
            .iter()
            .filter(|(_, s)| s.target == id && !s.closed)
            .map(|(k, _)| k.clone())
            .collect();
        for k in keys {
            self.detach(&k, out);
        }
    }

    /// After the first discovery: a target listed before its opener was judged with an unknown
    /// opener; judge inheriting targets again now that every opener is known.
    pub(super) fn rejudge(&mut self, out: &mut Output) {
        for _ in 0..8 {
            let mut changed = Vec::new();
            for (id, t) in &self.targets.map {
                let url = t.url();
                let opener = self.opener_of(&t.info);
                // A page (or its tab) listed at the first discovery whose document inherited its origin
                // from an opener that is ordinary now: the opener may have been protected when
                // it made the document (a vault page's about:blank popup, its opener gone on
                // to an ordinary page before the client connected: the suite's
                // `c5.get-targets-opener-left`), and the listing does not say. Protected,
                // failing closed: its title is the protected page's to set.
                let made_before = (t.kind == "page" || t.kind == "tab")
                    && !url.is_empty()
                    && opener == Opener::Unprotected
                    && self.rules.m.inherits(url);
                let belonging = self.belonging(&t.info);
                let now = self.rules.m.target(url, t.previous, opener)
                    || belonging.protected
                    || made_before
                    || t.origin
                    || t.withheld
                    || self.internal(url);
                // A protection judged with a known opener stays: that opener was protected
                // then, and a document it made keeps its origin whatever the opener does
                // later.
                if now != t.protected && (now || t.unknown_opener) {
                    changed.push((id.clone(), now));
                }
            }
            if changed.is_empty() {
                break;
            }
            for (id, p) in changed {
                if p {
                    self.protect_target(&id, out);
                } else if let Some(t) = self.targets.map.get_mut(&id) {
                    t.protected = false;
                    t.unknown_opener = false;
                }
            }
        }
    }

    /// Takes in a `TargetInfo` and judges its target by the spec's *Targets* rule; returns
    /// whether it is protected. A target that turns protected loses every session.
    pub(super) fn learn(&mut self, info: &Value, out: &mut Output) -> bool {
        let Some(id) = info.get("targetId").and_then(Value::as_str) else {
            return true;
        };
        let url = info.get("url").and_then(Value::as_str).unwrap_or_default();
        let kind = info.get("type").and_then(Value::as_str).unwrap_or_default();
        let opener = self.opener_of(info);
        let belonging = self.belonging(info);
        let unknown_opener = opener == Opener::Unknown || belonging.unknown;
        let (previous, origin, prefetched, error_page) =
            self.targets
                .map
                .get(id)
                .map_or((false, false, false, false), |t| {
                    (
                        t.protected,
                        t.origin,
                        t.withheld,
                        t.blocked
                            .iter()
                            .any(|b| b == url.split('#').next().unwrap_or(url)),
                    )
                });
        let origin = origin && self.rules.m.inherits(url);
        // The error page of a load the policy failed shows the failed URL; it is the client's
        // page still (nothing protected committed: the request never left the browser).
        let error_page = error_page && !previous && !origin && !prefetched;
        let protected = belonging.protected
            || (!error_page
                && (self.rules.m.target(url, previous, opener)
                    || origin
                    || prefetched
                    || self.internal(url)));
        match self.targets.map.get_mut(id) {
            Some(t) => {
                t.error_page = error_page;
                t.info = info.clone();
                t.kind = kind.to_string();
                t.origin = origin;
                t.previous = previous;
                t.protected = protected;
                t.unknown_opener = unknown_opener;
            }
            None => {
                self.targets.seq += 1;
                self.targets.map.insert(
                    id.to_string(),
                    TargetRecord {
                        info: info.clone(),
                        kind: kind.to_string(),
                        protected,
                        previous,
                        origin,
                        unknown_opener,
                        withheld: false,
                        seq: self.targets.seq,
                        announced: false,
                        blocked: Vec::new(),
                        error_page: false,
                    },
                );
            }
        }
        if protected {
            self.mark_hosts(id);
        }
        if protected && !previous {
            let id = id.to_string();
            self.protect_target(&id, out);
        }
        protected
    }
    pub(super) fn target_event(
        &mut self,
        frame: &str,
        mut v: Value,
        key: &str,
        method: &str,
        out: &mut Output,
    ) {
        let info = v["params"]["targetInfo"].clone();
        if self.learn(&info, out) {
            return out.set(Verdict::Drop, "protected target");
        }
        let id = info["targetId"].as_str().unwrap_or_default().to_string();
        if method == "Target.targetInfoChanged" {
            self.target_changed(&id, out);
        }
        let mut changed = self.redact_shown(&mut v["params"]["targetInfo"]);
        if key.is_empty() {
            let kind = self
                .targets
                .map
                .get(&id)
                .map(|t| t.kind.clone())
                .unwrap_or_default();
            let shown = self
                .sessions
                .root
                .discover
                .as_ref()
                .is_some_and(|f| f.passes(&kind));
            if !shown {
                return out.set(Verdict::Drop, "the guard's own discovery");
            }
            if let Some(t) = self.targets.map.get_mut(&id) {
                if method == "Target.targetInfoChanged" && !t.announced {
                    v["method"] = json!("Target.targetCreated");
                    changed = true;
                }
                t.announced = true;
            }
        }
        let kept: Vec<String> = if changed {
            vec!["/targetInfo/url".into(), "/targetInfo/title".into()]
        } else {
            Vec::new()
        };
        match self.scrub_member_keeping(&mut v, "params", &kept) {
            Err(()) => out.set(Verdict::Drop, "names a protected origin"),
            Ok(more) => self.deliver(frame, &v, changed || more, out),
        }
    }

    /// Withholds target `id` for the rest of its life (see `TargetRecord::withheld`): it is
    /// protected from now on, every session to it is cut, and a client told of it is told it is
    /// gone (`Target.targetDestroyed`), so that no client waits for it (Puppeteer's connect
    /// waits for every page it was shown).
    pub(super) fn withhold(&mut self, id: &str, out: &mut Output) {
        let Some(t) = self.targets.map.get_mut(id) else {
            return;
        };
        if t.withheld {
            return;
        }
        t.withheld = true;
        let told = t.announced;
        self.protect_target(id, out);
        if told {
            out.to_client.push(
                json!({"method": "Target.targetDestroyed", "params": {"targetId": id}}).to_string(),
            );
        }
    }

    /// A `Target.getTargets` result: every target learnt, protected ones taken out. Returns
    /// whether the result changed.
    pub(super) fn targets_response(&mut self, v: &mut Value, out: &mut Output) -> bool {
        let infos = v["result"]["targetInfos"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for info in &infos {
            self.learn(info, out);
        }
        let mut changed = false;
        if let Some(items) = v
            .pointer_mut("/result/targetInfos")
            .and_then(Value::as_array_mut)
        {
            let before = items.len();
            let targets = &self.targets.map;
            items.retain(|i| {
                i["targetId"]
                    .as_str()
                    .is_some_and(|t| targets.get(t).is_some_and(|t| !t.protected))
            });
            changed = items.len() != before;
        }
        let n = v["result"]["targetInfos"].as_array().map_or(0, Vec::len);
        for i in 0..n {
            let mut info = v["result"]["targetInfos"][i].take();
            changed |= self.redact_shown(&mut info);
            v["result"]["targetInfos"][i] = info;
        }
        changed
    }

    /// A `Target.getTargetInfo` result: learnt; whether the target is protected (then the
    /// client gets a refusal instead).
    pub(super) fn target_info_response(&mut self, v: &Value, out: &mut Output) -> bool {
        let info = v["result"]["targetInfo"].clone();
        self.learn(&info, out)
    }
}
