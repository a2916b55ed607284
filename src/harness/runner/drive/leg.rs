//! One leg, orchestrated: its run from start to end (the pump, the canary, setup then trigger,
//! background loads, the observer's reads, the log), running its steps in order, children's
//! threads, popups, and closing what it opened. Sessions and tabs are in `tabs.rs`, the step
//! executors in `steps.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::pump::pump;
use super::state::{Background, LegSession, LegState, SessionRole};
use super::util::lock;
use super::{LegSetup, Plant, StandIn, BACKGROUND_WAIT, CHILD_WAIT, POLL, PROBE_WAIT};
use crate::harness::runner::expand::{ExpandedChecks, LegChecks, LegStep, Phase, Vars};
use crate::harness::runner::record::{LogEntry, Read, Record, Recorded};
use crate::harness::runner::transport::Event;
use crate::vectors::Step;

/// See [`super::run_leg`].
pub(super) fn run<'v>(
    setup: &LegSetup,
    stand_in: Arc<dyn StandIn>,
    checks: &LegChecks<'v>,
) -> (Record, Vars, ExpandedChecks<'v>) {
    let tag = setup.vars.tag().to_string();
    let leg = LegState::new(setup, stand_in);
    let pump = {
        let leg = Arc::clone(&leg);
        std::thread::spawn(move || pump(&leg))
    };

    if setup.plant == Plant::AtStart {
        leg.plant_now();
    }
    let (setup_steps, trigger_steps): (Vec<LegStep>, Vec<LegStep>) = setup
        .steps
        .iter()
        .cloned()
        .partition(|s| s.phase == Phase::Setup);
    leg.run_steps(&setup_steps, None);
    lock(&leg.record).executed.insert("setup".into());
    leg.join_children();
    leg.run_steps(&trigger_steps, None);
    lock(&leg.record).executed.insert("trigger".into());
    leg.join_children();

    // Background loads an observation reads.
    let deadline = Instant::now() + BACKGROUND_WAIT;
    let pending: Vec<(String, Arc<Background>)> = lock(&leg.background)
        .iter()
        .map(|(k, v)| (k.clone(), Arc::clone(v)))
        .collect();
    for (name, bg) in pending {
        let mut done = lock(&bg.done);
        if setup.awaited.contains(&name) {
            while done.is_none() {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break;
                }
                done = bg
                    .cond
                    .wait_timeout(done, left)
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .0;
            }
        }
        let outcome = done.clone().unwrap_or(Recorded::Pending);
        lock(&leg.record).outcomes.insert(name, outcome);
    }

    leg.refresh_session_urls();
    let vars = lock(&leg.vars).clone();
    let checks = checks.expand(&vars);
    let wanted = checks.reads(&vars);
    let answers: Vec<(Read, Recorded)> = wanted
        .into_iter()
        .map(|r| {
            let outcome = leg.read(&r);
            (r, outcome)
        })
        .collect();

    leg.stop.store(true, Ordering::SeqCst);
    let _ = pump.join();
    let events = leg.client.events_since(leg.start_event);
    let log = leg.log_with_probes(&tag);
    leg.close();

    let mut record = lock(&leg.record).clone();
    record.reads = answers;
    record.events = events;
    record.log = log;
    (record, vars, checks)
}

impl LegState {
    /// The state of a leg about to run `setup` (nothing is sent yet).
    pub(super) fn new(setup: &LegSetup, stand_in: Arc<dyn StandIn>) -> Arc<LegState> {
        let start_mark = stand_in.mark();
        Arc::new(LegState {
            client: Arc::clone(&setup.client),
            observer: setup.observer.clone(),
            stand_in,
            vars: Mutex::new(setup.vars.clone()),
            record: Mutex::new(Record {
                tag: setup.vars.tag().to_string(),
                observer: setup.observer.is_some(),
                ..Record::default()
            }),
            page: Mutex::new(None),
            children: Mutex::new(Vec::new()),
            has_children_step: setup
                .steps
                .iter()
                .any(|s| matches!(s.step, Step::Children(_))),
            self_detached: Mutex::new(BTreeSet::new()),
            rules: Mutex::new(Vec::new()),
            answers: Mutex::new(Vec::new()),
            paused: Mutex::new(Vec::new()),
            own_targets: Mutex::new(BTreeSet::new()),
            opened: Mutex::new(Vec::new()),
            observer_opened: Mutex::new(Vec::new()),
            child_threads: Mutex::new(Vec::new()),
            background: Mutex::new(BTreeMap::new()),
            action: Mutex::new(None),
            plant_sessions: Mutex::new(BTreeMap::new()),
            plant: setup.plant,
            page_context: Mutex::new(setup.context.clone()),
            stop: AtomicBool::new(false),
            detach_delay: setup.detach_delay,
            context: setup.context.clone(),
            start_event: setup.client.event_count(),
            start_mark,
            probes: AtomicUsize::new(0),
        })
    }

    /// The stand-in's log since the leg started, once every probe that ran has its beacon in it
    /// (a probe evaluates to its marker as it sends the beacon, so the beacon may still be on
    /// its way; waited for up to [`PROBE_WAIT`]).
    pub(super) fn log_with_probes(&self, tag: &str) -> Vec<LogEntry> {
        let probes = self.probes.load(Ordering::SeqCst);
        let deadline = Instant::now() + PROBE_WAIT;
        loop {
            let log = self.stand_in.since(self.start_mark, tag);
            let beacons = log
                .iter()
                .filter(|e| e.url.contains("probe=1") && e.url.contains(tag))
                .count();
            if beacons >= probes || Instant::now() >= deadline {
                return log;
            }
            std::thread::sleep(POLL);
        }
    }

    /// Plants the canary once; a failure is a leg error.
    pub(super) fn plant_now(&self) {
        if !lock(&self.plant_sessions).is_empty() {
            return;
        }
        if let Err(e) = self.plant() {
            self.error(format!("plant: {e}"));
        }
    }

    pub(super) fn var(&self, name: &str) -> Option<String> {
        lock(&self.vars).get(name).map(str::to_string)
    }

    pub(super) fn set_var(&self, name: &str, value: &str) {
        lock(&self.vars).set(name, value);
    }

    pub(super) fn error(&self, text: String) {
        lock(&self.record).errors.push(text);
    }

    pub(super) fn set_outcome(&self, name: Option<&str>, outcome: Recorded) {
        if let Some(name) = name {
            lock(&self.record)
                .outcomes
                .insert(name.to_string(), outcome);
        }
    }

    /// Runs steps in order; `child` is the session nested steps run on.
    pub(super) fn run_steps(self: &Arc<Self>, steps: &[LegStep], child: Option<&LegSession>) {
        for indexed in steps {
            // `{popupTarget}` is looked up when a step needs it.
            if serde_json::to_string(&indexed.step).is_ok_and(|s| s.contains("{popupTarget}")) {
                self.find_popup();
            }
            let expanded = lock(&self.vars).expand_step(&indexed.step);
            let step = match expanded {
                Ok(step) => step,
                Err(e) => {
                    self.error(format!("step {}: {e}", indexed.index));
                    continue;
                }
            };
            match &step {
                Step::Text(t) => {
                    if self.plant == Plant::AtText && super::says_plant(&t.text) {
                        self.plant_now();
                    }
                }
                Step::Wait(w) => std::thread::sleep(Duration::from_millis(w.wait)),
                Step::Cdp(s) => {
                    self.cdp_step(s, indexed.index, indexed.refusal_name.as_deref(), child)
                }
                Step::Page(s) => self.page_step(s, child),
                Step::Answer(s) => self.answer_step(s),
                Step::Children(s) => self.children_step(s, &indexed.children),
                Step::Settle(s) => self.settle_step(s),
                Step::Guess(s) => self.guess_step(s),
            }
        }
    }

    /// Waits for the nested steps of every child started so far.
    pub(super) fn join_children(&self) {
        loop {
            let handles: Vec<JoinHandle<()>> = lock(&self.child_threads).drain(..).collect();
            if handles.is_empty() {
                return;
            }
            for h in handles {
                let _ = h.join();
            }
        }
    }

    /// The latest popup of the row's page, from the events delivered so far (waiting up to 5 s
    /// for one), into `{popupTarget}`.
    pub(super) fn find_popup(&self) {
        let Some(page) = self.var("pageTarget") else {
            return;
        };
        let opener = |e: &Event| -> Option<String> {
            let info = e.params.get("targetInfo")?;
            (info.get("openerId").and_then(Value::as_str) == Some(page.as_str())
                && info.get("type").and_then(Value::as_str) == Some("page"))
            .then(|| {
                info.get("targetId")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .flatten()
        };
        let deadline = Instant::now() + CHILD_WAIT;
        loop {
            let latest = self
                .client
                .events_since(self.start_event)
                .iter()
                .rev()
                .filter(|e| {
                    matches!(
                        e.method.as_str(),
                        "Target.targetCreated"
                            | "Target.targetInfoChanged"
                            | "Target.attachedToTarget"
                    )
                })
                .find_map(opener);
            if let Some(id) = latest {
                self.set_var("popupTarget", &id);
                return;
            }
            if Instant::now() >= deadline {
                return;
            }
            std::thread::sleep(POLL);
        }
    }

    /// Updates the URLs of child and attached sessions that were attached before their first
    /// navigation (a popup waiting for the debugger shows an empty URL), from the client.
    pub(super) fn refresh_session_urls(&self) {
        let sessions = lock(&self.record).sessions.clone();
        for (i, s) in sessions.iter().enumerate() {
            if s.role == SessionRole::Page.as_str() || !(s.url.is_empty() || s.url == "about:blank")
            {
                continue;
            }
            let href = self
                .client
                .send(
                    "Runtime.evaluate",
                    json!({ "expression": "location.href", "returnByValue": true }),
                    Some(&s.session_id),
                )
                .ok()
                .and_then(|r| {
                    r.pointer("/result/value")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                });
            if let Some(href) = href {
                if let Some(rec) = lock(&self.record).sessions.get_mut(i) {
                    rec.url = href;
                }
            }
        }
    }

    /// Closes what the leg opened, and the popups its pages opened (a browser-level auto-attach
    /// in a later leg would otherwise attach them as that leg's targets).
    pub(super) fn close(&self) {
        let pages: BTreeSet<String> = lock(&self.opened).iter().cloned().collect();
        let mut popups: Vec<String> = Vec::new();
        for e in self.client.events_since(self.start_event) {
            let Some(info) = e.params.get("targetInfo") else {
                continue;
            };
            let opener = info.get("openerId").and_then(Value::as_str);
            let id = info.get("targetId").and_then(Value::as_str);
            if let (Some(opener), Some(id)) = (opener, id) {
                if pages.contains(opener) && !pages.contains(id) && !popups.iter().any(|p| p == id)
                {
                    popups.push(id.to_string());
                }
            }
        }
        for target in popups {
            let _ = self
                .client
                .send("Target.closeTarget", json!({ "targetId": target }), None);
        }
        for target in lock(&self.opened).drain(..) {
            let _ = self
                .client
                .send("Target.closeTarget", json!({ "targetId": target }), None);
        }
        if let Some(observer) = &self.observer {
            for target in lock(&self.observer_opened).drain(..) {
                let _ = observer.send("Target.closeTarget", json!({ "targetId": target }), None);
            }
        }
    }
}
