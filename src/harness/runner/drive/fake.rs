//! A scripted browser for the driver's unit tests: a [`Transport`] whose answers a test writes
//! (with events pushed before an answer, as Chromium does, or later from a thread), a stand-in
//! log a test appends to, and a leg run on both with one vector's checks.

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

use super::{run_leg, LegSetup, Plant, StandIn};
use crate::harness::runner::expand::{leg_steps, Leg, LegChecks, Origins, Vars};
use crate::harness::runner::judge::{evaluate, LegRun, Truth};
use crate::harness::runner::record::{LogEntry, Record};
use crate::harness::runner::transport::{CallError, Event, Transport};
use crate::vectors::{Check, Vector};

/// What a test's handler answers a call with: `None` falls back to the browser's defaults.
pub(super) type Answer = Option<Result<Value, CallError>>;

/// One call the fake saw: method, params, session, and the event count when it arrived.
type Call = (String, Value, Option<String>, usize);

type Handler = dyn Fn(&Fake, &str, &Value, Option<&str>) -> Answer + Send + Sync;

#[derive(Default)]
struct Events {
    list: Mutex<Vec<Event>>,
    cond: Condvar,
}

impl Events {
    fn push(&self, event: Event) {
        crate::sys::lock(&self.list).push(event);
        self.cond.notify_all();
    }
}

/// The scripted browser.
pub(super) struct Fake {
    events: Arc<Events>,
    /// Every call, in order: method, params, session (and the event count when it arrived).
    pub(super) sent: Mutex<Vec<Call>>,
    handler: Box<Handler>,
    targets: Mutex<u32>,
}

impl Fake {
    /// A browser answering with `handler` first, then with the defaults: `Target.createTarget`
    /// gives `page-<n>`, `Target.attachToTarget` the session `S-<target>`, `Page.navigate` a
    /// loader `L1` with its commit and load pushed before the answer, everything else `{}`.
    pub(super) fn new(
        handler: impl Fn(&Fake, &str, &Value, Option<&str>) -> Answer + Send + Sync + 'static,
    ) -> Arc<Fake> {
        Arc::new(Fake {
            events: Arc::new(Events::default()),
            sent: Mutex::new(Vec::new()),
            handler: Box::new(handler),
            targets: Mutex::new(0),
        })
    }

    /// Pushes an event now.
    pub(super) fn push(&self, method: &str, params: Value, session: Option<&str>) {
        self.events.push(event(method, params, session));
    }

    /// Pushes events `delay` from now, from a thread.
    pub(super) fn push_later(&self, delay: Duration, events: Vec<Event>) {
        let sink = Arc::clone(&self.events);
        std::thread::spawn(move || {
            std::thread::sleep(delay);
            for e in events {
                sink.push(e);
            }
        });
    }

    /// The calls made with `method`: (params, session, event count when it arrived).
    pub(super) fn calls(&self, method: &str) -> Vec<(Value, Option<String>, usize)> {
        crate::sys::lock(&self.sent)
            .iter()
            .filter(|(m, ..)| m == method)
            .map(|(_, p, s, n)| (p.clone(), s.clone(), *n))
            .collect()
    }

    /// The index of the first event with `method` on `session` whose params match `pred`.
    pub(super) fn index_of(
        &self,
        method: &str,
        session: Option<&str>,
        pred: impl Fn(&Value) -> bool,
    ) -> Option<usize> {
        crate::sys::lock(&self.events.list).iter().position(|e| {
            e.method == method && e.session_id.as_deref() == session && pred(&e.params)
        })
    }

    fn default_answer(&self, method: &str, params: &Value, session: Option<&str>) -> Value {
        match method {
            "Target.createTarget" => {
                let mut n = crate::sys::lock(&self.targets);
                *n += 1;
                json!({ "targetId": format!("page-{n}") })
            }
            "Target.attachToTarget" => {
                let target = params.get("targetId").and_then(Value::as_str).unwrap_or("");
                json!({ "sessionId": format!("S-{target}") })
            }
            "Page.navigate" => {
                let url = params.get("url").cloned().unwrap_or(Value::Null);
                self.push(
                    "Page.frameNavigated",
                    json!({ "frame": { "id": "F", "loaderId": "L1", "url": url } }),
                    session,
                );
                self.push("Page.loadEventFired", json!({}), session);
                json!({ "frameId": "F", "loaderId": "L1" })
            }
            _ => json!({}),
        }
    }
}

/// An event.
pub(super) fn event(method: &str, params: Value, session: Option<&str>) -> Event {
    Event {
        method: method.to_string(),
        params,
        session_id: session.map(str::to_string),
    }
}

impl Transport for Fake {
    fn send(&self, method: &str, params: Value, session: Option<&str>) -> Result<Value, CallError> {
        let count = self.event_count();
        crate::sys::lock(&self.sent).push((
            method.to_string(),
            params.clone(),
            session.map(str::to_string),
            count,
        ));
        match (self.handler)(self, method, &params, session) {
            Some(answer) => answer,
            None => Ok(self.default_answer(method, &params, session)),
        }
    }

    fn events_since(&self, from: usize) -> Vec<Event> {
        let list = crate::sys::lock(&self.events.list);
        list.get(from..).map(<[Event]>::to_vec).unwrap_or_default()
    }

    fn event_count(&self) -> usize {
        crate::sys::lock(&self.events.list).len()
    }

    fn wait_event(
        &self,
        from: usize,
        predicate: &dyn Fn(&Event) -> bool,
        timeout: Duration,
    ) -> Option<(usize, Event)> {
        let deadline = std::time::Instant::now() + timeout;
        let mut list = crate::sys::lock(&self.events.list);
        loop {
            if let Some((i, e)) = list
                .iter()
                .enumerate()
                .skip(from)
                .find(|(_, e)| predicate(e))
            {
                return Some((i, e.clone()));
            }
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return None;
            }
            list = self
                .events
                .cond
                .wait_timeout(list, left)
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .0;
        }
    }
}

/// A stand-in log (empty: the fake browser requests nothing).
#[derive(Default)]
pub(super) struct Log {
    pub(super) entries: Mutex<Vec<LogEntry>>,
}

impl StandIn for Log {
    fn mark(&self) -> u64 {
        crate::sys::lock(&self.entries).len() as u64
    }
    fn since(&self, mark: u64, _tag: &str) -> Vec<LogEntry> {
        let list = crate::sys::lock(&self.entries);
        list.get(usize::try_from(mark).unwrap_or(0)..)
            .map(<[LogEntry]>::to_vec)
            .unwrap_or_default()
    }
}

/// The tag every fake leg runs with.
pub(super) const TAG: &str = "T1";

/// A `cdp` vector with these steps (JSON arrays) and one observation `seen` checking `check`.
pub(super) fn vector(setup: Value, trigger: Value, check: Value) -> Vector {
    serde_json::from_value(json!({
        "id": "C9.fake", "family": "C", "kind": "cdp", "scope": "any",
        "setup": setup, "trigger": trigger, "targets": ["seven"],
        "observe": { "seen": { "means": "m", "check": check } },
        "live": "l", "liveCheck": { "loaded": "{target}/doc", "observer": "fixture" },
        "control": { "origin": "ordinary", "via": "guard", "expected": { "seen": true } },
        "expected": { "seen": false },
    }))
    .expect("a fake vector")
}

/// The origin map of the fake legs.
pub(super) fn origins() -> Origins {
    let mut o = Origins::new();
    for (name, origin) in [
        ("ordinary", "http://ordinary.test"),
        ("ordinary-same-site", "http://same.seven.test"),
        ("seven", "http://seven.test"),
        ("vault", "http://vault.test"),
        ("vault-x", "http://vault-x.test"),
        ("apex", "http://apex.test"),
        ("own", "http://own.test"),
        ("client", "http://own.test"),
        ("log", "http://log.test"),
    ] {
        o.set(name, Some(origin)).expect("an origin");
    }
    o
}

/// Runs the guarded leg of `vector` on `fake` (variant delay `delay`) and returns the record
/// and the leg's variables.
pub(super) fn run(vector: &Vector, fake: &Arc<Fake>, log: &Arc<Log>, delay: u64) -> (Record, Vars) {
    run_observed(vector, fake, None, log, delay)
}

/// [`run`] with an unguarded observer.
pub(super) fn run_observed(
    vector: &Vector,
    fake: &Arc<Fake>,
    observer: Option<Arc<dyn Transport>>,
    log: &Arc<Log>,
    delay: u64,
) -> (Record, Vars) {
    let mut vars = Vars::for_leg(&origins(), Leg::Guarded, "seven", TAG, "canary-T1");
    let log_origin = vars.get("log").unwrap_or_default().to_string();
    vars.set(
        "beacon",
        &crate::harness::runner::js::beacon(&log_origin, TAG),
    );
    vars.set(
        "probe",
        &crate::harness::runner::js::probe(&log_origin, TAG),
    );
    let steps = leg_steps(vector, Leg::Guarded, &vars).expect("the leg's steps");
    let setup = LegSetup {
        client: Arc::clone(fake) as Arc<dyn Transport>,
        observer,
        vars,
        steps,
        detach_delay: delay,
        context: None,
        plant: Plant::No,
        awaited: Vec::new(),
    };
    let checks = LegChecks::new(vector, Leg::Guarded);
    let (record, vars, _) = run_leg(&setup, Arc::clone(log) as Arc<dyn StandIn>, &checks);
    (record, vars)
}

/// Evaluates `check` (JSON) on a guarded leg's record.
pub(super) fn judge(vector: &Vector, record: &Record, vars: &Vars, check: Value) -> Truth {
    let check: Check = serde_json::from_value(check).expect("a check");
    let run = LegRun { vars, record };
    evaluate(vector, Leg::Guarded, &run, false, &check).expect("the check evaluates")
}

/// An observer that knows only the browser's protocol: [`Transport::has_method`] answers from
/// `commands` (`None`: it cannot tell); nothing else is ever asked of it in these tests.
pub(super) struct Protocol(pub(super) Option<Vec<&'static str>>);

impl Transport for Protocol {
    fn send(&self, _: &str, _: Value, _: Option<&str>) -> Result<Value, CallError> {
        Ok(json!({}))
    }

    fn events_since(&self, _: usize) -> Vec<Event> {
        Vec::new()
    }

    fn event_count(&self) -> usize {
        0
    }

    fn wait_event(
        &self,
        _: usize,
        _: &dyn Fn(&Event) -> bool,
        _: Duration,
    ) -> Option<(usize, Event)> {
        None
    }

    fn has_method(&self, method: &str) -> Option<bool> {
        self.0.as_ref().map(|c| c.contains(&method))
    }
}
