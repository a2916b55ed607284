//! The driver (not on `wasm32-wasip1`): runs a leg's steps over a guarded [`Transport`], with an
//! optional unguarded observer, and fills the [`Record`] the judge decides on.
//!
//! One leg, in order:
//!
//! 1. A background event pump starts on the guarded transport. It answers paused requests and
//!    auth challenges (`answer` steps; every other paused request is continued untouched),
//!    runs `children` steps on auto-attached targets and resumes them, notes detached
//!    sessions and the row page's popups (`{popupTarget}`).
//! 2. For rows that plant the canary, the observer opens the stand-in's
//!    `{target}/plant?tag=&name=&value=` in the leg's browser context and stores the storage
//!    canary there ([`js::canary_plant`]), outside the guard.
//! 3. Setup, then trigger: every step kind of the format (§3), placeholders expanded just
//!    before each step runs, so that values the leg learns (`{pageTarget}`, `{popupTarget}`,
//!    `{context}`) are known.
//! 4. The leg's data is collected: background loads an observation reads (up to 10 s), the
//!    client's events, the stand-in's log from the leg's start, and the observer's reads.
//!
//! Every session's role is recorded: `page` (the row's page: a `tab` step's, or an
//! `about:blank` tab the driver opens when a step needs a page before any `tab`), `child`
//! (an auto-attached target a `children` step ran on) and `attached` (an explicit
//! `Target.attachToTarget`).
#![cfg(not(target_os = "wasi"))]

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use regex::Regex;
use serde_json::{json, Map, Value};

use super::js;
use super::record::{LogEntry, Outcome, Read, Record, SessionRecord};
use super::transport::{CallError, Event, Transport};
use crate::guard::{
    AnswerStep, CdpStep, ChildrenStep, GuessStep, Hop, PageStep, SettleStep, Step, Vector, Where,
};

/// How long a page navigation, a page's load or a tab's first load may take.
const LOAD_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a step waits for a child session to exist, or for a popup's target id.
const CHILD_WAIT: Duration = Duration::from_secs(5);
/// How long an observation that reads a background step's outcome waits for it.
pub const BACKGROUND_WAIT: Duration = Duration::from_secs(10);
/// What a `settle` adds after its wait.
const SETTLE_EXTRA: Duration = Duration::from_millis(600);
/// A `settle`'s default wait.
const SETTLE_DEFAULT_MS: u64 = 10_000;
/// How often polled conditions are looked at.
const POLL: Duration = Duration::from_millis(50);
/// The most `guess` attempts one step makes.
const MAX_GUESSES: u64 = 64;

/// Milliseconds since the Unix epoch (the stand-in log's clock).
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Where the driver reads the stand-in's request log.
pub trait StandIn: Send + Sync {
    /// Every request logged at or after `since` (milliseconds since the Unix epoch), oldest
    /// first.
    fn log_since(&self, since: u64) -> Vec<LogEntry>;
}

/// What one leg runs with.
#[derive(Clone)]
pub struct LegSetup {
    /// The client the steps run on (the guard; the observer for an unguarded control).
    pub client: Arc<dyn Transport>,
    /// The unguarded observer, when there is one.
    pub observer: Option<Arc<dyn Transport>>,
    /// The leg's placeholder values: origins, `target`, `targetHost`, `tag`, `cookie`, `log`,
    /// `beacon`, `probe`, … The driver adds `pageTarget`, `popupTarget` and `context` as it
    /// learns them.
    pub vars: BTreeMap<String, String>,
    /// The delay of the row's variant, in ms (before an explicit `Target.detachFromTarget` and
    /// for `settle.variant`).
    pub detach_delay: u64,
    /// The browser context the leg's tabs open in (`None`: the default one).
    pub context: Option<String>,
    /// Plant the canary through the observer before the steps run.
    pub plant: bool,
    /// The `as` names an observation or the liveness check reads (their background loads are
    /// awaited before the leg ends).
    pub reads_names: BTreeSet<String>,
}

/// One step with its flat index in the vector (§3.2: counted before `on` filtering), so that a
/// refusable step without `as` gets its name `refused.<i>`.
#[derive(Debug, Clone)]
pub struct Indexed {
    /// The step as written (placeholders not expanded).
    pub step: Step,
    /// Its index among all of the vector's steps, setup then trigger, depth-first.
    pub index: usize,
    /// A `children` step's nested steps, indexed likewise.
    pub children: Vec<Indexed>,
}

/// The steps of `vector` that run on `leg` (`control` or `guarded`), as `(setup, trigger)`,
/// each with its flat index (computed before filtering). A nested step runs on its own `on`,
/// else on its `children` step's.
pub fn leg_steps(vector: &Vector, leg: &str) -> (Vec<Indexed>, Vec<Indexed>) {
    fn walk(steps: &[Step], leg: &str, next: &mut usize) -> Vec<Indexed> {
        let mut out = Vec::new();
        for step in steps {
            let index = *next;
            *next += 1;
            let children = walk(step.children(), leg, next);
            if step.runs_on(leg) {
                out.push(Indexed {
                    step: step.clone(),
                    index,
                    children,
                });
            }
        }
        out
    }
    let mut next = 0;
    let setup = walk(&vector.setup, leg, &mut next);
    let trigger = walk(&vector.trigger, leg, &mut next);
    (setup, trigger)
}

/// The refusal name of a step: its `as`, else `refused.<index>`.
pub fn refusal_name(step: &Step, index: usize) -> String {
    step.name()
        .map_or_else(|| format!("refused.{index}"), str::to_string)
}

/// Replaces every `{name}` token whose name is in `vars`; other tokens stay as they are.
pub fn expand_str(text: &str, vars: &BTreeMap<String, String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let name_len = after
            .char_indices()
            .take_while(|(i, c)| {
                if *i == 0 {
                    c.is_ascii_alphabetic()
                } else {
                    c.is_ascii_alphabetic() || *c == '-'
                }
            })
            .map(|(i, c)| i + c.len_utf8())
            .last()
            .unwrap_or(0);
        let name = &after[..name_len];
        match (after[name_len..].starts_with('}'), vars.get(name)) {
            (true, Some(value)) if name_len > 0 => {
                out.push_str(value);
                rest = &after[name_len + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// [`expand_str`] on every string of a JSON value (object keys stay as they are).
pub fn expand_json(value: &Value, vars: &BTreeMap<String, String>) -> Value {
    match value {
        Value::String(s) => Value::String(expand_str(s, vars)),
        Value::Array(items) => Value::Array(items.iter().map(|v| expand_json(v, vars)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), expand_json(v, vars)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// A step with its placeholders expanded.
fn expand_step(step: &Step, vars: &BTreeMap<String, String>) -> Result<Step, String> {
    let value = serde_json::to_value(step).map_err(|e| format!("step to JSON: {e}"))?;
    serde_json::from_value(expand_json(&value, vars))
        .map_err(|e| format!("expanded step no longer parses: {e}"))
}

/// The URL that routes `to` through the stand-in's `/hop` on each hop's origin in turn:
/// `<hop0>/hop?code=<c0>&to=<encoded: <hop1>/hop?code=<c1>&to=<encoded: to>>`.
pub fn hop_url(hops: &[Hop], to: &str) -> String {
    hops.iter().rev().fold(to.to_string(), |inner, hop| {
        format!(
            "{}/hop?code={}&to={}",
            hop.origin,
            hop.code,
            js::encode_component(&inner)
        )
    })
}

/// Decodes `%XX` escapes and `+` (as a space) of a query component.
pub fn decode_component(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(b) => {
                        out.push(b);
                        i += 3;
                    }
                    None => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A logged URL's path (`/beacon`) and decoded query parameters.
pub fn split_url(url: &str) -> (String, Vec<(String, String)>) {
    let after_scheme = url.split_once("://").map_or(url, |(_, r)| r);
    let path_and_query = after_scheme.find('/').map_or("/", |i| &after_scheme[i..]);
    let path_and_query = path_and_query
        .split_once('#')
        .map_or(path_and_query, |(p, _)| p);
    let (path, query) = path_and_query
        .split_once('?')
        .unwrap_or((path_and_query, ""));
    let params = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode_component(k), decode_component(v))
        })
        .collect();
    (path.to_string(), params)
}

/// Whether a logged request is a beacon tagged `tag` from `origin`.
pub fn is_beacon(entry: &LogEntry, tag: &str, origin: &str) -> bool {
    let (path, params) = split_url(&entry.url);
    path == "/beacon"
        && params.iter().any(|(k, v)| k == "tag" && v == tag)
        && params.iter().any(|(k, v)| k == "origin" && v == origin)
}

/// A session the leg knows.
#[derive(Debug, Clone)]
struct Session {
    session_id: String,
    target_id: String,
}

/// An `answer` step, registered.
#[derive(Debug, Clone)]
struct AnswerRule {
    url: String,
    stage: Option<String>,
    cdp: Option<String>,
    params: Map<String, Value>,
    hold: bool,
}

/// A request the pump saw paused.
#[derive(Debug, Clone)]
struct Paused {
    url: String,
    request_id: String,
    session: Option<String>,
}

/// A `children` step, registered at an event index.
#[derive(Debug, Clone)]
struct ChildRule {
    from_event: usize,
    steps: Vec<Indexed>,
    r#where: Option<Where>,
}

/// A background load's outcome, once it has one.
#[derive(Default)]
struct Background {
    done: Mutex<Option<Outcome>>,
    cond: Condvar,
}

/// The last page action: when it started and, for a redirect chain, its final destination.
#[derive(Debug, Clone)]
struct ActionMark {
    time: u64,
    final_url: Option<String>,
}

/// The state one leg's threads share.
struct Leg {
    client: Arc<dyn Transport>,
    observer: Option<Arc<dyn Transport>>,
    stand_in: Arc<dyn StandIn>,
    vars: Mutex<BTreeMap<String, String>>,
    record: Mutex<Record>,
    page: Mutex<Option<Session>>,
    children: Mutex<Vec<Session>>,
    rules: Mutex<Vec<ChildRule>>,
    answers: Mutex<Vec<AnswerRule>>,
    paused: Mutex<Vec<Paused>>,
    /// Targets the driver opened or attached itself: the pump leaves their attach events alone.
    own_targets: Mutex<BTreeSet<String>>,
    /// Targets to close when the leg ends (on the client), and on the observer.
    opened: Mutex<Vec<String>>,
    observer_opened: Mutex<Vec<String>>,
    child_threads: Mutex<Vec<JoinHandle<()>>>,
    background: Mutex<BTreeMap<String, Arc<Background>>>,
    action: Mutex<Option<ActionMark>>,
    /// The observer's session on each origin the canary was planted on.
    plant_sessions: Mutex<BTreeMap<String, String>>,
    stop: AtomicBool,
    detach_delay: u64,
    context: Option<String>,
    start_event: usize,
    start_time: u64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A CDP answer as an outcome value: `{ok: true, result}` or `{ok: false, error: {code,
/// message}}`; a timeout or a broken transport is no value.
fn call_outcome(answer: &Result<Value, CallError>) -> Outcome {
    match answer {
        Ok(result) => Outcome::Value(json!({ "ok": true, "result": result })),
        Err(CallError::Protocol { code, message }) => Outcome::Value(json!({
            "ok": false,
            "error": { "code": code, "message": message },
        })),
        Err(e) => Outcome::Failed(e.to_string()),
    }
}

/// The outcome of a `Runtime.evaluate` by value: its value, or no value for an exception, a
/// timeout or an error.
fn eval_outcome(answer: Result<Value, CallError>) -> Outcome {
    match answer {
        Ok(result) => {
            if let Some(details) = result.get("exceptionDetails") {
                let text = details
                    .pointer("/exception/description")
                    .and_then(Value::as_str)
                    .or_else(|| details.get("text").and_then(Value::as_str))
                    .unwrap_or("exception");
                Outcome::Failed(format!("evaluation threw: {text}"))
            } else {
                Outcome::Value(
                    result
                        .pointer("/result/value")
                        .cloned()
                        .unwrap_or(Value::Null),
                )
            }
        }
        Err(e) => Outcome::Failed(e.to_string()),
    }
}

/// Whether an error reads like the session is gone.
fn session_gone(error: &CallError) -> bool {
    match error {
        CallError::Protocol { message, .. } => {
            let m = message.to_ascii_lowercase();
            m.contains("session with given id not found")
                || m.contains("no session with given id")
                || m.contains("target closed")
                || m.contains("session closed")
        }
        _ => false,
    }
}

/// Runs one leg's `setup` and `trigger` over `setup.client` and returns what it recorded.
/// `extra_reads` lists the observer reads the judge needs (placeholders expanded with the
/// leg's final variables by `reads`).
pub fn run_leg(
    setup: &LegSetup,
    stand_in: Arc<dyn StandIn>,
    steps: (&[Indexed], &[Indexed]),
    reads: &dyn Fn(&BTreeMap<String, String>) -> Vec<Read>,
) -> (Record, BTreeMap<String, String>) {
    let start_time = now_ms();
    let tag = setup.vars.get("tag").cloned().unwrap_or_default();
    let leg = Arc::new(Leg {
        client: Arc::clone(&setup.client),
        observer: setup.observer.clone(),
        stand_in,
        vars: Mutex::new(setup.vars.clone()),
        record: Mutex::new(Record {
            tag,
            observer: setup.observer.is_some(),
            ..Record::default()
        }),
        page: Mutex::new(None),
        children: Mutex::new(Vec::new()),
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
        stop: AtomicBool::new(false),
        detach_delay: setup.detach_delay,
        context: setup.context.clone(),
        start_event: setup.client.event_count(),
        start_time,
    });
    let pump = {
        let leg = Arc::clone(&leg);
        std::thread::spawn(move || pump(&leg))
    };

    if setup.plant {
        if let Err(e) = leg.plant() {
            lock(&leg.record).errors.push(format!("plant: {e}"));
        }
    }
    let (setup_steps, trigger_steps) = steps;
    leg.run_steps(setup_steps, None);
    lock(&leg.record).executed.insert("setup".into());
    leg.join_children();
    leg.run_steps(trigger_steps, None);
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
        if setup.reads_names.contains(&name) {
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
        let outcome = done.clone().unwrap_or(Outcome::Pending);
        lock(&leg.record).outcomes.insert(name, outcome);
    }

    leg.refresh_session_urls();
    let vars = lock(&leg.vars).clone();
    let wanted = reads(&vars);
    let answers: Vec<(Read, Outcome)> = wanted
        .into_iter()
        .map(|r| {
            let outcome = leg.read(&r);
            (r, outcome)
        })
        .collect();

    leg.stop.store(true, Ordering::SeqCst);
    let _ = pump.join();
    let events = leg.client.events_since(leg.start_event);
    let log = leg.stand_in.log_since(leg.start_time.saturating_sub(50));
    leg.close();

    let mut record = lock(&leg.record).clone();
    record.reads = answers;
    record.events = events;
    record.log = log;
    (record, vars)
}

impl Leg {
    fn var(&self, name: &str) -> Option<String> {
        lock(&self.vars).get(name).cloned()
    }

    fn set_var(&self, name: &str, value: &str) {
        lock(&self.vars).insert(name.to_string(), value.to_string());
    }

    fn error(&self, text: String) {
        lock(&self.record).errors.push(text);
    }

    fn set_outcome(&self, name: Option<&str>, outcome: Outcome) {
        if let Some(name) = name {
            lock(&self.record)
                .outcomes
                .insert(name.to_string(), outcome);
        }
    }

    /// Runs steps in order; `child` is the session nested steps run on.
    fn run_steps(self: &Arc<Self>, steps: &[Indexed], child: Option<&Session>) {
        for indexed in steps {
            // `{popupTarget}` is looked up when a step needs it.
            if serde_json::to_string(&indexed.step).is_ok_and(|s| s.contains("{popupTarget}")) {
                self.find_popup();
            }
            let vars = lock(&self.vars).clone();
            let step = match expand_step(&indexed.step, &vars) {
                Ok(step) => step,
                Err(e) => {
                    self.error(format!("step {}: {e}", indexed.index));
                    continue;
                }
            };
            match &step {
                Step::Text(_) => {}
                Step::Wait(w) => std::thread::sleep(Duration::from_millis(w.wait)),
                Step::Cdp(s) => self.cdp_step(s, indexed.index, child),
                Step::Page(s) => self.page_step(s, child),
                Step::Answer(s) => self.answer_step(s),
                Step::Children(s) => self.children_step(s, &indexed.children),
                Step::Settle(s) => self.settle_step(s),
                Step::Guess(s) => self.guess_step(s),
            }
        }
    }

    /// The session id a step's `session` names (`None`: the browser session).
    fn session_for(
        self: &Arc<Self>,
        session: Option<&str>,
        child: Option<&Session>,
    ) -> Result<Option<String>, String> {
        match session.unwrap_or("page") {
            "browser" => Ok(None),
            "child" => {
                if let Some(child) = child {
                    return Ok(Some(child.session_id.clone()));
                }
                self.join_children();
                let deadline = Instant::now() + CHILD_WAIT;
                loop {
                    if let Some(s) = lock(&self.children).last() {
                        return Ok(Some(s.session_id.clone()));
                    }
                    if Instant::now() >= deadline {
                        return Err("no child session within 5000ms".into());
                    }
                    std::thread::sleep(POLL);
                }
            }
            _ => self.page_session().map(Some),
        }
    }

    /// The row page's session, opening an `about:blank` page when there is none yet.
    fn page_session(self: &Arc<Self>) -> Result<String, String> {
        if let Some(page) = lock(&self.page).as_ref() {
            return Ok(page.session_id.clone());
        }
        self.open_tab("about:blank", self.context.clone(), true)?;
        lock(&self.page)
            .as_ref()
            .map(|p| p.session_id.clone())
            .ok_or_else(|| "no page".to_string())
    }

    /// Opens a tab at `url` (via `about:blank`, then a tracked navigation) in `context`, makes it
    /// the page and records its session.
    fn open_tab(
        self: &Arc<Self>,
        url: &str,
        context: Option<String>,
        background: bool,
    ) -> Result<(), String> {
        let mut params = json!({ "url": "about:blank", "background": background });
        if let Some(ctx) = context.filter(|c| !c.is_empty()) {
            params["browserContextId"] = Value::String(ctx);
        }
        let created = self
            .client
            .send("Target.createTarget", params, None)
            .map_err(|e| format!("Target.createTarget: {e}"))?;
        let target_id = created
            .get("targetId")
            .and_then(Value::as_str)
            .ok_or("Target.createTarget gave no targetId")?
            .to_string();
        lock(&self.own_targets).insert(target_id.clone());
        lock(&self.opened).push(target_id.clone());
        let attached = self
            .client
            .send(
                "Target.attachToTarget",
                json!({ "targetId": target_id, "flatten": true }),
                None,
            )
            .map_err(|e| format!("Target.attachToTarget: {e}"))?;
        let session_id = attached
            .get("sessionId")
            .and_then(Value::as_str)
            .ok_or("Target.attachToTarget gave no sessionId")?
            .to_string();
        lock(&self.record).sessions.push(SessionRecord {
            role: "page".into(),
            session_id: session_id.clone(),
            target_id: target_id.clone(),
            url: url.to_string(),
        });
        *lock(&self.page) = Some(Session {
            session_id: session_id.clone(),
            target_id: target_id.clone(),
        });
        self.set_var("pageTarget", &target_id);
        self.client
            .send("Page.enable", json!({}), Some(&session_id))
            .map_err(|e| format!("Page.enable on the new tab: {e}"))?;
        if url != "about:blank" {
            self.navigate(&session_id, url)?;
        }
        Ok(())
    }

    /// `Page.navigate` and a wait for that navigation's own main-frame commit and load.
    fn navigate(&self, session: &str, url: &str) -> Result<Value, String> {
        let from = self.client.event_count();
        let answer = self
            .client
            .send("Page.navigate", json!({ "url": url }), Some(session))
            .map_err(|e| format!("Page.navigate {url}: {e}"))?;
        if let Some(error) = answer.get("errorText").and_then(Value::as_str) {
            return Err(format!("Page.navigate {url}: {error}"));
        }
        let loader = answer
            .get("loaderId")
            .and_then(Value::as_str)
            .map(str::to_string);
        self.wait_load(session, from, loader.as_deref(), LOAD_TIMEOUT)?;
        Ok(answer)
    }

    /// Waits for a main-frame `Page.frameNavigated` on `session` (with `loader` when given)
    /// at event `from` or later, then a `Page.loadEventFired` after it.
    fn wait_load(
        &self,
        session: &str,
        from: usize,
        loader: Option<&str>,
        timeout: Duration,
    ) -> Result<(), String> {
        let deadline = Instant::now() + timeout;
        let session_owned = session.to_string();
        let loader_owned = loader.map(str::to_string);
        let committed = self.client.wait_event(
            from,
            &|e: &Event| {
                e.method == "Page.frameNavigated"
                    && e.session_id.as_deref() == Some(session_owned.as_str())
                    && e.params.pointer("/frame/parentId").is_none()
                    && loader_owned.as_deref().is_none_or(|l| {
                        e.params.pointer("/frame/loaderId").and_then(Value::as_str) == Some(l)
                    })
            },
            timeout,
        );
        let Some((index, _)) = committed else {
            return Err(format!(
                "no main-frame commit within {}ms",
                timeout.as_millis()
            ));
        };
        let left = deadline.saturating_duration_since(Instant::now());
        self.client
            .wait_event(
                index + 1,
                &|e: &Event| {
                    e.method == "Page.loadEventFired"
                        && e.session_id.as_deref() == Some(session_owned.as_str())
                },
                left,
            )
            .map(|_| ())
            .ok_or_else(|| format!("no load event within {}ms", timeout.as_millis()))
    }

    fn cdp_step(self: &Arc<Self>, step: &CdpStep, index: usize, child: Option<&Session>) {
        let session = match self.session_for(step.session.as_deref(), child) {
            Ok(s) => s,
            Err(e) => {
                self.set_outcome(step.name.as_deref(), Outcome::Failed(e.clone()));
                self.error(format!("{} (step {index}): {e}", step.cdp));
                return;
            }
        };
        if step.cdp == "Target.detachFromTarget" && self.detach_delay > 0 {
            std::thread::sleep(Duration::from_millis(self.detach_delay));
        }
        let params = Value::Object(step.params.clone().unwrap_or_default());
        let explicit_attach = (step.cdp == "Target.attachToTarget")
            .then(|| {
                params
                    .get("targetId")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .flatten();
        if let Some(target) = &explicit_attach {
            lock(&self.own_targets).insert(target.clone());
        }
        let answer = self.client.send(&step.cdp, params, session.as_deref());
        if let (Some(target), Ok(result)) = (&explicit_attach, &answer) {
            if let Some(sid) = result.get("sessionId").and_then(Value::as_str) {
                lock(&self.record).sessions.push(SessionRecord {
                    role: "attached".into(),
                    session_id: sid.to_string(),
                    target_id: target.clone(),
                    url: String::new(),
                });
            }
        }
        if step.cdp == "Target.createBrowserContext" {
            if let Ok(result) = &answer {
                if let (Some(name), Some(id)) = (
                    step.name.as_deref(),
                    result.get("browserContextId").and_then(Value::as_str),
                ) {
                    self.set_var(name, id);
                }
            }
        }
        // A child's step that fails once its session is gone: the child detached.
        if let (Err(e), Some(sid)) = (&answer, session.as_deref()) {
            let role = self.role_of(sid);
            let known_detached = role
                .as_deref()
                .is_some_and(|r| lock(&self.record).detached.contains(r));
            if role.as_deref() == Some("child") && (known_detached || session_gone(e)) {
                lock(&self.record).detached.insert("child".into());
                self.set_outcome(step.name.as_deref(), call_outcome(&answer));
                return;
            }
        }
        if step.refusable == Some(true) {
            let name = step
                .name
                .clone()
                .unwrap_or_else(|| format!("refused.{index}"));
            if let Err(e) = &answer {
                let (code, text) = match e {
                    CallError::Protocol { code, message } => (code.to_string(), message.clone()),
                    other => (String::new(), other.to_string()),
                };
                let matched = step.refusal.as_ref().is_some_and(|r| {
                    Regex::new(&r.pattern)
                        .map(|re| re.is_match(&text) || (!code.is_empty() && re.is_match(&code)))
                        .unwrap_or(false)
                });
                let mut record = lock(&self.record);
                record.refusal_errors.insert(name.clone(), text);
                if matched && matches!(e, CallError::Protocol { .. }) {
                    record.refused.insert(name);
                }
            }
        }
        self.set_outcome(step.name.as_deref(), call_outcome(&answer));
    }

    /// The role of a session id (`page`, `child`, `attached`).
    fn role_of(&self, session: &str) -> Option<String> {
        if lock(&self.page)
            .as_ref()
            .is_some_and(|p| p.session_id == session)
        {
            return Some("page".into());
        }
        if lock(&self.children).iter().any(|c| c.session_id == session) {
            return Some("child".into());
        }
        lock(&self.record)
            .sessions
            .iter()
            .find(|s| s.session_id == session)
            .map(|s| s.role.clone())
    }

    fn page_step(self: &Arc<Self>, step: &PageStep, child: Option<&Session>) {
        let name = step.name.as_deref();
        let url = step.url.clone().unwrap_or_default();
        let url = match &step.hops {
            Some(hops) if !hops.is_empty() => hop_url(hops, &url),
            _ => url,
        };
        let final_url = step
            .hops
            .as_ref()
            .filter(|h| !h.is_empty())
            .and(step.url.clone());
        let action = step.page.as_str();
        if action == "tab" {
            let context = step.context.clone().or_else(|| self.context.clone());
            if let Err(e) = self.open_tab(&url, context, step.background.unwrap_or(true)) {
                self.error(format!("tab {url}: {e}"));
            }
            return;
        }
        let session = match self.session_for(step.session.as_deref(), child) {
            Ok(Some(s)) => s,
            Ok(None) => match self.page_session() {
                Ok(s) => s,
                Err(e) => {
                    self.error(format!("page {action}: {e}"));
                    return;
                }
            },
            Err(e) => {
                self.set_outcome(name, Outcome::Failed(e.clone()));
                self.error(format!("page {action}: {e}"));
                return;
            }
        };
        let log = self.var("log").unwrap_or_default();
        let tag = self.var("tag").unwrap_or_default();
        match action {
            "navigate" => {
                self.mark_action(final_url);
                match self.navigate(&session, &url) {
                    Ok(answer) => self.set_outcome(name, call_outcome(&Ok(answer))),
                    Err(e) => {
                        self.set_outcome(name, Outcome::Failed(e.clone()));
                        self.error(format!("navigate: {e}"));
                    }
                }
            }
            "href" | "replace" | "form" | "post" | "open" => {
                let Some(src) = js::page_action(action, &url, &log, &tag) else {
                    return;
                };
                self.mark_action(final_url);
                let answer = self.client.send(
                    "Runtime.evaluate",
                    json!({ "expression": src, "userGesture": true, "returnByValue": true }),
                    Some(&session),
                );
                let outcome = eval_outcome(answer);
                if let Outcome::Failed(e) = &outcome {
                    self.note_session_failure(&session);
                    self.error(format!("page {action} {url}: {e}"));
                }
                self.set_outcome(name, outcome);
            }
            "iframe" | "framed" => {
                let (src, nav) = if action == "iframe" {
                    (js::iframe(&url), None)
                } else {
                    let from = step.from.clone().unwrap_or_default();
                    let framed = js::framed_url(&from, &url);
                    (String::new(), Some(framed))
                };
                self.mark_action(final_url);
                // The pre-action heartbeat names the framed URL itself.
                let pre = js::pre_url(&log, &tag, &url);
                let _ = self.client.send(
                    "Runtime.evaluate",
                    json!({
                        "expression": format!(
                            "fetch({}, {{ mode: 'no-cors', keepalive: true }}).then(function () {{ return true; }}, function () {{ return false; }})",
                            Value::String(pre)
                        ),
                        "awaitPromise": true,
                        "returnByValue": true,
                    }),
                    Some(&session),
                );
                std::thread::sleep(Duration::from_millis(50));
                let outcome = match nav {
                    Some(framed) => match self.navigate(&session, &framed) {
                        Ok(answer) => call_outcome(&Ok(answer)),
                        Err(e) => {
                            self.error(format!("framed: {e}"));
                            Outcome::Failed(e)
                        }
                    },
                    None => eval_outcome(self.client.send(
                        "Runtime.evaluate",
                        json!({ "expression": src, "returnByValue": true }),
                        Some(&session),
                    )),
                };
                self.set_outcome(name, outcome);
            }
            "fetch" | "xhr" | "image" => {
                let Some(src) = js::load(
                    action,
                    &url,
                    step.status == Some(true),
                    step.credentials.as_deref(),
                ) else {
                    return;
                };
                let params = json!({
                    "expression": src, "awaitPromise": true, "returnByValue": true,
                });
                if step.background == Some(true) {
                    let bg = Arc::new(Background::default());
                    if let Some(name) = name {
                        lock(&self.background).insert(name.to_string(), Arc::clone(&bg));
                    }
                    let client = Arc::clone(&self.client);
                    std::thread::spawn(move || {
                        let outcome =
                            eval_outcome(client.send("Runtime.evaluate", params, Some(&session)));
                        *lock(&bg.done) = Some(outcome);
                        bg.cond.notify_all();
                    });
                } else {
                    let outcome =
                        eval_outcome(self.client.send("Runtime.evaluate", params, Some(&session)));
                    self.set_outcome(name, outcome);
                }
            }
            "eval" => {
                let expression = step.expression.clone().unwrap_or_default();
                let outcome = eval_outcome(self.client.send(
                    "Runtime.evaluate",
                    json!({ "expression": expression, "awaitPromise": true, "returnByValue": true }),
                    Some(&session),
                ));
                if matches!(outcome, Outcome::Failed(_)) {
                    self.note_session_failure(&session);
                }
                self.set_outcome(name, outcome);
            }
            other => self.error(format!("unknown page action {other:?}")),
        }
    }

    /// A call on a child session failed: when that session is gone, the child detached.
    fn note_session_failure(&self, session: &str) {
        if self.role_of(session).as_deref() == Some("child") {
            let gone = self
                .client
                .send(
                    "Runtime.evaluate",
                    json!({ "expression": "1" }),
                    Some(session),
                )
                .is_err_and(|e| session_gone(&e));
            if gone {
                lock(&self.record).detached.insert("child".into());
            }
        }
    }

    fn mark_action(&self, final_url: Option<String>) {
        *lock(&self.action) = Some(ActionMark {
            time: now_ms(),
            final_url,
        });
    }

    fn answer_step(&self, step: &AnswerStep) {
        let a = &step.answer;
        lock(&self.answers).push(AnswerRule {
            url: a.url.clone(),
            stage: a.stage.clone(),
            cdp: a.cdp.clone(),
            params: a.params.clone().unwrap_or_default(),
            hold: a.hold == Some(true),
        });
    }

    fn children_step(&self, step: &ChildrenStep, nested: &[Indexed]) {
        let vars = lock(&self.vars).clone();
        let r#where = step.r#where.as_ref().map(|w| Where {
            opener_id: w.opener_id.clone(),
            url_prefix: w.url_prefix.as_ref().map(|p| expand_str(p, &vars)),
            extra: w.extra.clone(),
        });
        lock(&self.rules).push(ChildRule {
            from_event: self.client.event_count(),
            steps: nested.to_vec(),
            r#where,
        });
    }

    fn settle_step(self: &Arc<Self>, step: &SettleStep) {
        let s = &step.settle;
        if s.variant == Some(true) {
            std::thread::sleep(Duration::from_millis(self.detach_delay));
            return;
        }
        let ms = s.ms.unwrap_or(SETTLE_DEFAULT_MS);
        let deadline = Instant::now() + Duration::from_millis(ms);
        let met = if let Some(origin) = &s.beacon {
            let tag = self.var("tag").unwrap_or_default();
            let mark = lock(&self.action).clone();
            let since = mark.as_ref().map_or(self.start_time, |m| m.time);
            let final_url = mark.and_then(|m| m.final_url);
            let mut met = false;
            while !met && Instant::now() < deadline {
                let log = self.stand_in.log_since(since);
                met = log.iter().any(|e| is_beacon(e, &tag, origin))
                    && final_url
                        .as_deref()
                        .is_none_or(|u| log.iter().any(|e| e.url == u));
                if !met {
                    std::thread::sleep(POLL);
                }
            }
            if !met && s.required == Some(true) {
                let excused = s.depends_on.as_ref().is_some_and(|names| {
                    let record = lock(&self.record);
                    names.iter().any(|n| record.refused.contains(n))
                });
                if !excused {
                    self.error(format!("settle: no beacon from {origin} within {ms}ms"));
                }
            }
            met
        } else if let Some(title) = &s.title {
            let mut met = false;
            while !met && Instant::now() < deadline {
                met = self.page_session().ok().is_some_and(|sid| {
                    self.client
                        .send(
                            "Runtime.evaluate",
                            json!({ "expression": "document.title", "returnByValue": true }),
                            Some(&sid),
                        )
                        .ok()
                        .and_then(|r| r.pointer("/result/value").cloned())
                        == Some(Value::String(title.clone()))
                });
                if !met {
                    std::thread::sleep(POLL);
                }
            }
            met
        } else if let Some(role) = &s.session {
            let mut met = false;
            while !met && Instant::now() < deadline {
                met = lock(&self.record).detached.contains(role);
                if !met {
                    std::thread::sleep(POLL);
                }
            }
            met
        } else {
            // A main-frame commit followed by its load, on the page.
            match self.page_session() {
                Ok(sid) => {
                    let from = self.client.event_count();
                    self.wait_load(&sid, from, None, Duration::from_millis(ms))
                        .is_ok()
                }
                Err(_) => false,
            }
        };
        let _ = met;
        std::thread::sleep(SETTLE_EXTRA);
    }

    fn guess_step(self: &Arc<Self>, step: &GuessStep) {
        let g = &step.guess;
        let find = |url: &str| lock(&self.paused).iter().find(|p| p.url == url).cloned();
        let (Some(a), Some(b)) = (
            g.between.first().and_then(|u| find(u)),
            g.between.get(1).and_then(|u| find(u)),
        ) else {
            self.set_outcome(
                Some(&step.name),
                Outcome::Failed(format!(
                    "guess: no paused request for {}",
                    g.between.join(" or ")
                )),
            );
            return;
        };
        let attempts: Vec<Value> = ids_between(&a.request_id, &b.request_id)
            .into_iter()
            .map(|id| {
                let mut params = g.params.clone();
                params.insert("requestId".into(), Value::String(id.clone()));
                let answer = self
                    .client
                    .send(&g.cdp, Value::Object(params), a.session.as_deref());
                let mut value = match call_outcome(&answer) {
                    Outcome::Value(v) => v,
                    Outcome::Failed(e) => json!({ "ok": false, "error": { "message": e } }),
                    Outcome::Pending => json!({ "ok": false }),
                };
                value["requestId"] = Value::String(id);
                value
            })
            .collect();
        self.set_outcome(Some(&step.name), Outcome::Value(Value::Array(attempts)));
    }

    /// Waits for the nested steps of every child started so far.
    fn join_children(&self) {
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
    fn find_popup(&self) {
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
    fn refresh_session_urls(&self) {
        let sessions = lock(&self.record).sessions.clone();
        for (i, s) in sessions.iter().enumerate() {
            if s.role == "page" || !(s.url.is_empty() || s.url == "about:blank") {
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

    /// Closes what the leg opened.
    fn close(&self) {
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

    /// Plants the canary on `{target}` through the observer: the stand-in's `/plant` in a tab of
    /// the leg's context, then the storage canary stored by that page.
    fn plant(&self) -> Result<(), String> {
        let observer = self
            .observer
            .as_ref()
            .ok_or("no unguarded observer to plant with")?;
        let target = self.var("target").ok_or("no {target}")?;
        let tag = self.var("tag").unwrap_or_default();
        let cookie = self.var("cookie").ok_or("no {cookie}")?;
        let url = format!(
            "{target}/plant?tag={}&name={}&value={}",
            js::encode_component(&tag),
            js::encode_component(&cookie),
            js::encode_component(&tag)
        );
        let session = self.observer_tab(observer.as_ref(), &url)?;
        let answer = observer.send(
            "Runtime.evaluate",
            json!({
                "expression": js::canary_plant(&cookie, &tag),
                "awaitPromise": true,
                "returnByValue": true,
            }),
            Some(&session),
        );
        if let Outcome::Failed(e) = eval_outcome(answer) {
            return Err(format!("storage canary on {target}: {e}"));
        }
        lock(&self.plant_sessions).insert(target, session);
        Ok(())
    }

    /// Opens a tab at `url` through the observer, in the leg's context, and waits for its load;
    /// returns the observer's session on it.
    fn observer_tab(&self, observer: &dyn Transport, url: &str) -> Result<String, String> {
        let mut params = json!({ "url": "about:blank", "background": true });
        if let Some(ctx) = &self.context {
            params["browserContextId"] = Value::String(ctx.clone());
        }
        let created = observer
            .send("Target.createTarget", params, None)
            .map_err(|e| format!("observer Target.createTarget: {e}"))?;
        let target_id = created
            .get("targetId")
            .and_then(Value::as_str)
            .ok_or("observer: no targetId")?
            .to_string();
        lock(&self.observer_opened).push(target_id.clone());
        let session = observer
            .send(
                "Target.attachToTarget",
                json!({ "targetId": target_id, "flatten": true }),
                None,
            )
            .map_err(|e| format!("observer Target.attachToTarget: {e}"))?
            .get("sessionId")
            .and_then(Value::as_str)
            .ok_or("observer: no sessionId")?
            .to_string();
        observer
            .send("Page.enable", json!({}), Some(&session))
            .map_err(|e| format!("observer Page.enable: {e}"))?;
        let from = observer.event_count();
        let answer = observer
            .send("Page.navigate", json!({ "url": url }), Some(&session))
            .map_err(|e| format!("observer Page.navigate {url}: {e}"))?;
        if let Some(error) = answer.get("errorText").and_then(Value::as_str) {
            return Err(format!("observer Page.navigate {url}: {error}"));
        }
        let sid = session.clone();
        observer
            .wait_event(
                from,
                &|e: &Event| {
                    e.method == "Page.loadEventFired"
                        && e.session_id.as_deref() == Some(sid.as_str())
                },
                LOAD_TIMEOUT,
            )
            .ok_or_else(|| format!("observer: {url} did not load within 10000ms"))?;
        Ok(session)
    }

    /// The observer's flat session on `target_id` (attached on demand).
    fn observer_session(
        &self,
        observer: &dyn Transport,
        target_id: &str,
    ) -> Result<String, String> {
        observer
            .send(
                "Target.attachToTarget",
                json!({ "targetId": target_id, "flatten": true }),
                None,
            )
            .map_err(|e| format!("observer Target.attachToTarget {target_id}: {e}"))?
            .get("sessionId")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| "observer: no sessionId".to_string())
    }

    /// The target a read's `session` (`page` or `child`) names.
    fn read_target(&self, session: &str) -> Option<String> {
        if session == "child" {
            lock(&self.children).last().map(|c| c.target_id.clone())
        } else {
            lock(&self.page).as_ref().map(|p| p.target_id.clone())
        }
    }

    /// One read through the observer.
    fn read(&self, read: &Read) -> Outcome {
        let Some(observer) = self.observer.as_ref() else {
            return Outcome::Failed("no unguarded observer".into());
        };
        let observer = observer.as_ref();
        match read {
            Read::Title { session } => {
                let Some(target) = self.read_target(session) else {
                    return Outcome::Failed(format!("no {session} target"));
                };
                match observer.send("Target.getTargetInfo", json!({ "targetId": target }), None) {
                    Ok(info) => Outcome::Value(
                        info.pointer("/targetInfo/title")
                            .cloned()
                            .unwrap_or(Value::Null),
                    ),
                    Err(e) => Outcome::Failed(e.to_string()),
                }
            }
            Read::Expression {
                expression,
                session,
            } => {
                let Some(target) = self.read_target(session) else {
                    return Outcome::Failed(format!("no {session} target"));
                };
                match self.observer_session(observer, &target) {
                    Ok(sid) => {
                        let out = eval_outcome(observer.send(
                            "Runtime.evaluate",
                            json!({ "expression": expression, "awaitPromise": true, "returnByValue": true }),
                            Some(&sid),
                        ));
                        let _ = observer.send(
                            "Target.detachFromTarget",
                            json!({ "sessionId": sid }),
                            None,
                        );
                        out
                    }
                    Err(e) => Outcome::Failed(e),
                }
            }
            Read::History { session } => {
                let Some(target) = self.read_target(session) else {
                    return Outcome::Failed(format!("no {session} target"));
                };
                match self.observer_session(observer, &target) {
                    Ok(sid) => {
                        let out =
                            match observer.send("Page.getNavigationHistory", json!({}), Some(&sid))
                            {
                                Ok(h) => Outcome::Value(Value::Array(
                                    h.get("entries")
                                        .and_then(Value::as_array)
                                        .map(|entries| {
                                            entries
                                                .iter()
                                                .filter_map(|e| e.get("url").cloned())
                                                .collect()
                                        })
                                        .unwrap_or_default(),
                                )),
                                Err(e) => Outcome::Failed(e.to_string()),
                            };
                        let _ = observer.send(
                            "Target.detachFromTarget",
                            json!({ "sessionId": sid }),
                            None,
                        );
                        out
                    }
                    Err(e) => Outcome::Failed(e),
                }
            }
            Read::Errors { session, frame } => {
                let Some(target) = self.read_target(session) else {
                    return Outcome::Failed(format!("no {session} target"));
                };
                self.read_errors(observer, &target, *frame)
            }
            Read::State {
                origin,
                cookie,
                storage,
            } => self.read_state(observer, origin, cookie, *storage),
        }
    }

    /// The error frames of `target` (and, with `frame`, of its out-of-process iframes).
    fn read_errors(&self, observer: &dyn Transport, target: &str, frame: bool) -> Outcome {
        let sid = match self.observer_session(observer, target) {
            Ok(s) => s,
            Err(e) => return Outcome::Failed(e),
        };
        let mut out = Vec::new();
        let mut frame_ids = BTreeSet::new();
        match observer.send("Page.getFrameTree", json!({}), Some(&sid)) {
            Ok(tree) => {
                if let Some(root) = tree.get("frameTree") {
                    collect_error_frames(root, false, &mut out, &mut frame_ids);
                }
            }
            Err(e) => {
                let _ = observer.send("Target.detachFromTarget", json!({ "sessionId": sid }), None);
                return Outcome::Failed(format!("Page.getFrameTree: {e}"));
            }
        }
        let _ = observer.send("Target.detachFromTarget", json!({ "sessionId": sid }), None);
        if frame {
            let targets = observer
                .send("Target.getTargets", json!({}), None)
                .ok()
                .and_then(|t| t.get("targetInfos").cloned())
                .and_then(|t| t.as_array().cloned())
                .unwrap_or_default();
            for info in targets {
                if info.get("type").and_then(Value::as_str) != Some("iframe") {
                    continue;
                }
                let parent_frame = info.get("parentFrameId").and_then(Value::as_str);
                if parent_frame.is_some_and(|p| !frame_ids.contains(p)) {
                    continue;
                }
                let Some(tid) = info.get("targetId").and_then(Value::as_str) else {
                    continue;
                };
                let Ok(fsid) = self.observer_session(observer, tid) else {
                    continue;
                };
                if let Ok(tree) = observer.send("Page.getFrameTree", json!({}), Some(&fsid)) {
                    if let Some(root) = tree.get("frameTree") {
                        let mut inner = Vec::new();
                        collect_error_frames(root, true, &mut inner, &mut BTreeSet::new());
                        for mut f in inner {
                            if f.get("parentId").is_none() {
                                if let Some(p) = parent_frame {
                                    f["parentId"] = Value::String(p.to_string());
                                }
                            }
                            out.push(f);
                        }
                    }
                }
                let _ = observer.send(
                    "Target.detachFromTarget",
                    json!({ "sessionId": fsid }),
                    None,
                );
            }
        }
        Outcome::Value(Value::Array(out))
    }

    /// The canary on `origin`, read through the observer's plant tab.
    fn read_state(
        &self,
        observer: &dyn Transport,
        origin: &str,
        cookie: &str,
        storage: bool,
    ) -> Outcome {
        let Some(session) = lock(&self.plant_sessions).get(origin).cloned() else {
            return Outcome::Failed(format!("no canary was planted on {origin}"));
        };
        if storage {
            match eval_outcome(observer.send(
                "Runtime.evaluate",
                json!({ "expression": js::canary_read(cookie), "awaitPromise": true, "returnByValue": true }),
                Some(&session),
            )) {
                Outcome::Value(v) => Outcome::Value(v.get("storage").cloned().unwrap_or(Value::String(String::new()))),
                other => other,
            }
        } else {
            match observer.send(
                "Network.getCookies",
                json!({ "urls": [format!("{origin}/")] }),
                Some(&session),
            ) {
                Ok(r) => Outcome::Value(Value::String(
                    r.get("cookies")
                        .and_then(Value::as_array)
                        .and_then(|cs| {
                            cs.iter()
                                .find(|c| c.get("name").and_then(Value::as_str) == Some(cookie))
                        })
                        .and_then(|c| c.get("value").and_then(Value::as_str))
                        .unwrap_or("")
                        .to_string(),
                )),
                Err(e) => Outcome::Failed(format!("Network.getCookies: {e}")),
            }
        }
    }
}

/// The frames of a frame tree showing an error page (`unreachableUrl` set), as
/// `{url, unreachableUrl, frameId, parentId?, oopif}`; every frame id goes into `ids`.
fn collect_error_frames(
    node: &Value,
    oopif: bool,
    out: &mut Vec<Value>,
    ids: &mut BTreeSet<String>,
) {
    if let Some(frame) = node.get("frame") {
        if let Some(id) = frame.get("id").and_then(Value::as_str) {
            ids.insert(id.to_string());
        }
        if let Some(unreachable) = frame.get("unreachableUrl").and_then(Value::as_str) {
            let mut entry = json!({
                "url": frame.get("url").cloned().unwrap_or(Value::Null),
                "unreachableUrl": unreachable,
                "frameId": frame.get("id").cloned().unwrap_or(Value::Null),
                "oopif": oopif,
            });
            if let Some(parent) = frame.get("parentId") {
                entry["parentId"] = parent.clone();
            }
            out.push(entry);
        }
    }
    if let Some(children) = node.get("childFrames").and_then(Value::as_array) {
        for child in children {
            collect_error_frames(child, oopif, out, ids);
        }
    }
}

/// The request ids strictly between `a` and `b`: the two must differ in one run of digits
/// (Chromium's `interception-job-<n>.0`), and each number between them gives an id. At most
/// [`MAX_GUESSES`].
pub fn ids_between(a: &str, b: &str) -> Vec<String> {
    fn runs(s: &str) -> Vec<(bool, &str)> {
        let mut out = Vec::new();
        let mut start = 0;
        let bytes = s.as_bytes();
        for i in 1..=bytes.len() {
            if i == bytes.len() || bytes[i].is_ascii_digit() != bytes[start].is_ascii_digit() {
                out.push((bytes[start].is_ascii_digit(), &s[start..i]));
                start = i;
            }
        }
        out
    }
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    let (ra, rb) = (runs(a), runs(b));
    if ra.len() != rb.len() {
        return Vec::new();
    }
    let differing: Vec<usize> = (0..ra.len()).filter(|&i| ra[i] != rb[i]).collect();
    let [i] = differing.as_slice() else {
        return Vec::new();
    };
    let (Ok(x), Ok(y)) = (ra[*i].1.parse::<u64>(), rb[*i].1.parse::<u64>()) else {
        return Vec::new();
    };
    if !ra[*i].0 {
        return Vec::new();
    }
    let (lo, hi) = (x.min(y), x.max(y));
    (lo + 1..hi)
        .take(usize::try_from(MAX_GUESSES).unwrap_or(64))
        .map(|n| {
            ra.iter()
                .enumerate()
                .map(|(j, (_, text))| {
                    if j == *i {
                        n.to_string()
                    } else {
                        (*text).to_string()
                    }
                })
                .collect()
        })
        .collect()
}

/// The pump: answers paused requests, runs `children` steps on attached targets, notes
/// detaches and popups, until the leg stops.
fn pump(leg: &Arc<Leg>) {
    let mut cursor = leg.start_event;
    let interesting = |e: &Event| {
        matches!(
            e.method.as_str(),
            "Fetch.requestPaused"
                | "Fetch.authRequired"
                | "Target.attachedToTarget"
                | "Target.detachedFromTarget"
                | "Inspector.detached"
        )
    };
    while !leg.stop.load(Ordering::SeqCst) {
        let Some((index, event)) =
            leg.client
                .wait_event(cursor, &interesting, Duration::from_millis(100))
        else {
            continue;
        };
        cursor = index + 1;
        match event.method.as_str() {
            "Fetch.requestPaused" => leg.on_paused(&event, false),
            "Fetch.authRequired" => leg.on_paused(&event, true),
            "Target.attachedToTarget" => leg.on_attached(&event, index),
            "Target.detachedFromTarget" => {
                if let Some(sid) = event.params.get("sessionId").and_then(Value::as_str) {
                    if let Some(role) = leg.role_of(sid) {
                        lock(&leg.record).detached.insert(role);
                    }
                }
            }
            "Inspector.detached" => {
                if let Some(sid) = event.session_id.as_deref() {
                    if let Some(role) = leg.role_of(sid) {
                        lock(&leg.record).detached.insert(role);
                    }
                }
            }
            _ => {}
        }
    }
}

impl Leg {
    fn on_paused(&self, event: &Event, auth: bool) {
        let p = &event.params;
        let Some(id) = p.get("requestId").and_then(Value::as_str) else {
            return;
        };
        let url = p
            .pointer("/request/url")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let response_stage =
            p.get("responseStatusCode").is_some() || p.get("responseErrorReason").is_some();
        let session = event.session_id.clone();
        lock(&self.paused).push(Paused {
            url: url.clone(),
            request_id: id.to_string(),
            session: session.clone(),
        });
        let rule = lock(&self.answers)
            .iter()
            .find(|r| {
                r.url == url
                    && if auth {
                        r.hold || r.cdp.as_deref() == Some("Fetch.continueWithAuth")
                    } else {
                        r.cdp.as_deref() != Some("Fetch.continueWithAuth")
                            && r.stage
                                .as_deref()
                                .is_none_or(|s| (s == "Response") == response_stage)
                    }
            })
            .cloned();
        let (method, mut params) = match rule {
            Some(r) if r.hold => return,
            Some(AnswerRule {
                cdp: Some(cdp),
                params,
                ..
            }) => (cdp, params),
            _ if auth => (
                "Fetch.continueWithAuth".to_string(),
                json!({ "authChallengeResponse": { "response": "Default" } })
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            ),
            _ => ("Fetch.continueRequest".to_string(), Map::new()),
        };
        params.insert("requestId".into(), Value::String(id.to_string()));
        let _ = self
            .client
            .send(&method, Value::Object(params), session.as_deref());
    }

    fn on_attached(self: &Arc<Self>, event: &Event, index: usize) {
        let p = &event.params;
        let (Some(sid), Some(info)) = (
            p.get("sessionId").and_then(Value::as_str),
            p.get("targetInfo"),
        ) else {
            return;
        };
        let target_id = info.get("targetId").and_then(Value::as_str).unwrap_or("");
        if lock(&self.own_targets).contains(target_id) {
            return;
        }
        let url = info.get("url").and_then(Value::as_str).unwrap_or("");
        let opener = info.get("openerId").and_then(Value::as_str);
        let page_target = self.var("pageTarget");
        let waiting = p
            .get("waitingForDebugger")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let rules: Vec<ChildRule> = lock(&self.rules)
            .iter()
            .filter(|r| r.from_event <= index)
            .filter(|r| match &r.r#where {
                None => true,
                Some(w) => {
                    w.opener_id
                        .as_deref()
                        .is_none_or(|_| opener.is_some() && opener == page_target.as_deref())
                        && w.url_prefix
                            .as_deref()
                            .is_none_or(|pre| url.starts_with(pre))
                }
            })
            .cloned()
            .collect();
        let client = Arc::clone(&self.client);
        let sid = sid.to_string();
        if rules.is_empty() {
            if waiting {
                std::thread::spawn(move || {
                    let _ = client.send("Runtime.runIfWaitingForDebugger", json!({}), Some(&sid));
                });
            }
            return;
        }
        let child = Session {
            session_id: sid.clone(),
            target_id: target_id.to_string(),
        };
        lock(&self.children).push(child.clone());
        lock(&self.record).sessions.push(SessionRecord {
            role: "child".into(),
            session_id: sid.clone(),
            target_id: target_id.to_string(),
            url: url.to_string(),
        });
        let leg = Arc::clone(self);
        let handle = std::thread::spawn(move || {
            for rule in &rules {
                leg.run_steps(&rule.steps, Some(&child));
            }
            lock(&leg.record).executed.insert("child".into());
            let page_enabled = rules
                .iter()
                .flat_map(|r| r.steps.iter())
                .any(|s| s.step.method() == Some("Page.enable"));
            let from = client.event_count();
            let _ = client.send("Runtime.runIfWaitingForDebugger", json!({}), Some(&sid));
            if page_enabled {
                // The child's first document: commit and load, bounded at 5 s.
                let _ = leg.wait_load(&sid, from, None, CHILD_WAIT);
            }
        });
        lock(&self.child_threads).push(handle);
    }
}
