//! The guard's sweep: not a list of attacks but every command the guard's
//! table forwards or judges, with parameters drawn from the browser's own `/json/protocol`
//! ([`sweep::params`]), sent on every kind of session that can reach a protected page
//! ([`sweep::KINDS`]: the protected page's cross-site and sandboxed frames, its shared worker,
//! the popup it opened, an ordinary same-site page, that page's `about:blank` popup, the root),
//! with an unguarded observer reading the protected page before and after ([`sweep::READ_JS`]:
//! URL, DOM digest, cookies, local storage, permissions, emulated values, liveness, input
//! events reaching it).
//!
//! Each (kind, command) that changes anything there, seen twice (once in the sweep, once more
//! alone in a fresh world), is then sent the same way through the crate's proxy on a fresh
//! world: the guard must refuse it, keep the client off that kind of target, or judge it so
//! that it changes nothing. A pair that still changes the protected page through the guard
//! fails the test unless it is on [`OPEN`] (reported, while the policy is being fixed); one on
//! [`OPEN`] that the guard stops now fails the test until it leaves the list.
//!
//! Plain `cargo test` sweeps a fixed subset ([`subset`]); `SWEEP=full` sweeps everything
//! (`SWEEP_KINDS=widget,popup` and `SWEEP_ONLY=Emulation.,Input.` narrow it). The figures end
//! the output (`sweep: …`).
//!
//! Skipped (with the reason printed) without /usr/bin/chromium, unless `CI` is set.
#![cfg(all(feature = "guard-proxy", feature = "guard-runner", unix))]

#[path = "../sweep/mod.rs"]
mod sweep;

use crate::needs;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use slicc_browsers::guard::policy::table::{table, Class};
use slicc_browsers::harness::cdp::{CdpClient, CdpOptions};
use slicc_browsers::harness::runner::CallError;

use sweep::params::{Method, Own, Protocol};
use sweep::{kind_what, refused, Leg, Reading, World, COMMAND_TIMEOUT, KINDS};

/// (kind, command) pairs known to change the protected page through the guard today:
/// reported, not failed, while the policy is being fixed. One the guard refuses or keeps the
/// client from reaching fails the test until it leaves the list. Input reaches the protected
/// page from its frames only when the page's focus is where the event goes: those pairs are
/// found in some runs only.
const OPEN: &[(&str, &str)] = &[];

/// Commands that would end the run (the browser, its GPU process, a browser context): never
/// sent, counted apart.
const ENDS_THE_RUN: &[&str] = &[
    "Browser.close",
    "Browser.crash",
    "Browser.crashGpuProcess",
    "Target.disposeBrowserContext",
];

/// How long after a command the observer reads the protected page.
const SETTLE: Duration = Duration::from_millis(60);

/// Whether the default (CI) subset sweeps `method` on `kind`: the emulation, input and memory
/// domains, the cookie and permission commands and a few page commands, on the protected
/// page's cross-site frame and on the ordinary same-site page.
fn subset(kind: &str, method: &str) -> bool {
    const MORE: [&str; 8] = [
        "Network.setCookie",
        "Network.setCookies",
        "Network.deleteCookies",
        "Browser.setPermission",
        "Browser.grantPermissions",
        "Page.bringToFront",
        "Page.setWebLifecycleState",
        "Page.navigate",
    ];
    matches!(kind, "widget" | "same-site")
        && (["Emulation.", "Memory.", "Input."]
            .iter()
            .any(|d| method.starts_with(d))
            || MORE.contains(&method))
}

/// What one command did on one session.
struct Run {
    /// The session could not be made: why.
    attach: Option<CallError>,
    /// The command's answer.
    answer: Option<Result<Value, CallError>>,
    /// The parameters sent.
    params: Value,
    /// The session made (to detach).
    session: Option<String>,
}

impl Run {
    /// Whether the browser took the command (answered it, or is still at it).
    fn exercised(&self) -> bool {
        matches!(self.answer, Some(Ok(_)) | Some(Err(CallError::Timeout)))
    }
}

/// Sends `method` on a fresh session of `client` to `kind`'s target (the root: no session).
fn run_on(client: &CdpClient, proto: &Protocol, world: &World, kind: &str, method: &Method) -> Run {
    run_in(client, proto, world, kind, method, None)
}

/// Attaches `client` to `kind`'s target (the root: no session) and enables `domain` there.
fn open_session(
    client: &CdpClient,
    proto: &Protocol,
    world: &World,
    kind: &str,
    domain: &str,
) -> Result<Option<String>, CallError> {
    if kind == "root" {
        return Ok(None);
    }
    let target = world.targets.get(kind).cloned().unwrap_or_default();
    let r = client.send_timeout(
        "Target.attachToTarget",
        json!({"targetId": target, "flatten": true}),
        None,
        COMMAND_TIMEOUT,
    )?;
    let session = r["sessionId"].as_str().map(String::from);
    let enable = format!("{domain}.enable");
    if proto.has(&enable) {
        let _ = client.send_timeout(&enable, json!({}), session.as_deref(), COMMAND_TIMEOUT);
    }
    Ok(session)
}

/// Sends `method` on `session` (one of [`open_session`]'s, kept by the caller) or, when
/// `None`, on a session of its own (attached, its domain enabled, left to [`detach`]).
fn run_in(
    client: &CdpClient,
    proto: &Protocol,
    world: &World,
    kind: &str,
    method: &Method,
    session: Option<Option<&str>>,
) -> Run {
    let target = world.targets.get(kind).cloned().unwrap_or_default();
    let mut own = Own {
        target: target.clone(),
        context: world.contexts.get(&target).cloned().unwrap_or_default(),
        ..Own::default()
    };
    let domain = method.name.split('.').next().unwrap_or_default();
    let (s, made): (Option<String>, Option<String>) = match session {
        Some(s) => (s.map(String::from), None),
        None => match open_session(client, proto, world, kind, domain) {
            Ok(s) => (s.clone(), s),
            Err(e) => {
                return Run {
                    attach: Some(e),
                    answer: None,
                    params: Value::Null,
                    session: None,
                }
            }
        },
    };
    own.session = s.clone().unwrap_or_default();
    let names: Vec<&str> = method
        .params
        .iter()
        .filter(|p| p["optional"] != json!(true))
        .filter_map(|p| p["name"].as_str())
        .collect();
    let s = s.as_deref();
    if s.is_some() {
        if names.contains(&"objectId") {
            own.object = client
                .send_timeout(
                    "Runtime.evaluate",
                    json!({"expression": "document"}),
                    s,
                    COMMAND_TIMEOUT,
                )
                .ok()
                .and_then(|r| r["result"]["objectId"].as_str().map(String::from));
        }
        if names.contains(&"nodeId") || names.contains(&"backendNodeId") {
            let _ = client.send_timeout("DOM.getDocument", json!({}), s, COMMAND_TIMEOUT);
        }
    }
    let params = proto.fill(method, &own);
    let answer = client.send_timeout(&method.name, params.clone(), s, COMMAND_TIMEOUT);
    Run {
        attach: None,
        answer: Some(answer),
        params,
        session: made,
    }
}

/// Ends a run's session.
fn detach(client: &CdpClient, run: &Run) {
    if let Some(s) = &run.session {
        let _ = client.send_timeout(
            "Target.detachFromTarget",
            json!({"sessionId": s}),
            None,
            COMMAND_TIMEOUT,
        );
    }
}

/// Ends the sweep's current session, if any.
fn end_session(client: &CdpClient, current: &mut Option<(String, Option<String>)>) {
    if let Some((_, Some(s))) = current.take() {
        let _ = client.send_timeout(
            "Target.detachFromTarget",
            json!({"sessionId": s}),
            None,
            COMMAND_TIMEOUT,
        );
    }
}

/// A fresh world, in a browser launched afresh (a renderer a command hung stays hung for the
/// browser's life), and its reading.
fn fresh(leg: &mut Leg) -> (World, Reading) {
    for attempt in 0..5 {
        if attempt > 0 {
            // A loaded machine: give the new browser time.
            std::thread::sleep(Duration::from_secs(2));
        }
        *leg = Leg::start().expect("the browser relaunches");
        match leg.build() {
            Ok(world) => {
                let r = leg.read(&world);
                if r.live() {
                    return (world, r);
                }
                println!("sweep: a fresh world does not answer (attempt {attempt})");
            }
            Err(e) => println!("sweep: building the world failed (attempt {attempt}): {e}"),
        }
    }
    panic!("no world could be built");
}

/// One (kind, command) that changed the protected page.
struct Found {
    kind: &'static str,
    method: String,
    params: Value,
    changes: Vec<String>,
    guard: Guard,
}

/// What the guard did with a pair.
#[derive(Debug, Clone)]
enum Guard {
    /// Not checked yet.
    Unchecked,
    /// The client could not get a session to that kind of target.
    Unreachable(String),
    /// The command was refused.
    Refused(String),
    /// Forwarded (or judged), and nothing changed on the protected page.
    NoChange(String),
    /// Forwarded, and the protected page changed.
    Through(Vec<String>),
}

impl Guard {
    /// Whether the guard itself stopped it (refused it, or kept the client off the target).
    fn refuses(&self) -> bool {
        matches!(self, Guard::Unreachable(_) | Guard::Refused(_))
    }

    fn stops(&self) -> bool {
        matches!(
            self,
            Guard::Unreachable(_) | Guard::Refused(_) | Guard::NoChange(_)
        )
    }
}

fn answer_text(a: &Option<Result<Value, CallError>>) -> String {
    let s = match a {
        None => "-".to_string(),
        Some(Ok(v)) => format!("ok {v}"),
        Some(Err(e)) => e.to_string(),
    };
    s.chars().take(160).collect()
}

#[test]
fn sweep() {
    if needs::missing("/usr/bin/chromium", needs::chromium()) {
        return;
    }
    let started = Instant::now();
    let full = std::env::var("SWEEP").is_ok_and(|v| v == "full");
    let trace = std::env::var_os("SWEEP_TRACE").is_some();
    let only: Vec<String> = std::env::var("SWEEP_ONLY")
        .unwrap_or_default()
        .split(',')
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect();
    let kinds_only: Vec<String> = std::env::var("SWEEP_KINDS")
        .unwrap_or_default()
        .split(',')
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect();
    let _ = std::fs::create_dir_all("/tmp/slicc-sweep");
    let mut leg = Leg::start().expect("the browser starts");
    let proto = Protocol::parse(&leg.protocol().expect("the browser serves its protocol"));
    let t = table();
    let mut judged = 0;
    let mut ends = 0;
    let methods: Vec<Method> = proto
        .methods
        .iter()
        .filter(|m| {
            matches!(
                t.command(&m.name).map(|c| c.class),
                Some(Class::Forward | Class::Judge)
            )
        })
        .filter(|m| {
            judged += 1;
            let end = ENDS_THE_RUN.contains(&m.name.as_str());
            ends += usize::from(end);
            !end
        })
        .filter(|m| only.is_empty() || only.iter().any(|o| m.name.starts_with(o.as_str())))
        .cloned()
        .collect();
    println!(
        "sweep: the protocol has {} commands, the table forwards or judges {judged}; {ends} would end the run and are not sent",
        proto.methods.len()
    );
    let kinds: Vec<&'static str> = KINDS
        .iter()
        .copied()
        .filter(|k| kinds_only.is_empty() || kinds_only.iter().any(|o| o == k))
        .collect();

    let (mut world, mut before) = fresh(&mut leg);
    println!(
        "sweep: baseline of the protected page: {}",
        serde_json::to_string(&before.fields).unwrap_or_default()
    );
    let mut found: Vec<Found> = Vec::new();
    let mut swept: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut absent: Vec<&str> = Vec::new();
    let mut candidates = 0;
    for &kind in &kinds {
        if !world.targets.contains_key(kind) {
            println!("sweep: no {kind} target ({}): not swept", kind_what(kind));
            absent.push(kind);
            continue;
        }
        let kind_started = Instant::now();
        let mut current: Option<(String, Option<String>)> = None;
        for m in &methods {
            if !full && !subset(kind, &m.name) {
                continue;
            }
            let t0 = Instant::now();
            // One session per domain: commands of one domain follow each other on it.
            let domain = m.name.split('.').next().unwrap_or_default().to_string();
            if current.as_ref().is_none_or(|(d, _)| *d != domain) {
                end_session(&leg.actor, &mut current);
                let mut s = open_session(&leg.actor, &proto, &world, kind, &domain);
                if s.is_err() {
                    // The kind's target went away (a command before closed or crashed it).
                    (world, before) = fresh(&mut leg);
                    s = open_session(&leg.actor, &proto, &world, kind, &domain);
                }
                current = s.ok().map(|s| (domain.clone(), s));
            }
            let run = match &current {
                Some((_, s)) => run_in(&leg.actor, &proto, &world, kind, m, Some(s.as_deref())),
                None => run_on(&leg.actor, &proto, &world, kind, m),
            };
            std::thread::sleep(SETTLE);
            let after = leg.read(&world);
            detach(&leg.actor, &run);
            if trace {
                println!(
                    "sweep: trace {kind} {} {:.0?}: {}",
                    m.name,
                    t0.elapsed(),
                    answer_text(&run.answer)
                );
            }
            let e = swept.entry(kind).or_default();
            e.0 += 1;
            e.1 += usize::from(run.exercised());
            let changes = after.changes(&before);
            if changes.is_empty() {
                before = after;
                continue;
            }
            // Seen once: again, alone, on a world read as before.
            candidates += 1;
            end_session(&leg.actor, &mut current);
            let baseline = if leg.alive() && leg.restored(&world, &before) {
                before.clone()
            } else {
                let b;
                (world, b) = fresh(&mut leg);
                b
            };
            before = baseline;
            let again = run_on(&leg.actor, &proto, &world, kind, m);
            std::thread::sleep(SETTLE);
            let after = leg.read(&world);
            detach(&leg.actor, &again);
            let confirmed = after.changes(&before);
            println!(
                "sweep: {kind} {}: {} (answer: {}){}",
                m.name,
                changes.join("; "),
                answer_text(&run.answer),
                if confirmed.is_empty() {
                    " -- not seen again: noise"
                } else {
                    ""
                }
            );
            if !confirmed.is_empty() {
                found.push(Found {
                    kind,
                    method: m.name.clone(),
                    params: again.params.clone(),
                    changes: confirmed,
                    guard: Guard::Unchecked,
                });
            }
            if !(leg.alive() && leg.restored(&world, &before)) {
                (world, before) = fresh(&mut leg);
            }
        }
        end_session(&leg.actor, &mut current);
        println!(
            "sweep: {kind}: {} commands sent, {} exercised, in {:.0?}",
            swept.get(kind).map_or(0, |e| e.0),
            swept.get(kind).map_or(0, |e| e.1),
            kind_started.elapsed()
        );
    }

    // The guard: each pair again through the proxy, on a fresh world.
    let mut base = before;
    for f in &mut found {
        if !(leg.alive() && leg.restored(&world, &base)) {
            (world, base) = fresh(&mut leg);
        }
        let w = &world;
        let ws = leg.proxy_ws().expect("the proxy starts");
        let client = CdpClient::connect(
            &ws,
            CdpOptions::new()
                .call_timeout(Duration::from_secs(10))
                .max_events(2000),
        )
        .expect("the client connects to the proxy");
        let m = proto
            .methods
            .iter()
            .find(|m| m.name == f.method)
            .expect("a swept command is in the protocol");
        let run = run_on(&client, &proto, w, f.kind, m);
        std::thread::sleep(SETTLE);
        let after = leg.read(w);
        detach(&client, &run);
        client.close();
        let changes = after.changes(&base);
        f.guard = if let Some(e) = &run.attach {
            Guard::Unreachable(e.to_string())
        } else if let Some(Err(e)) = &run.answer {
            if refused(e) {
                Guard::Refused(e.to_string())
            } else if changes.is_empty() {
                Guard::NoChange(e.to_string())
            } else {
                Guard::Through(changes)
            }
        } else if changes.is_empty() {
            Guard::NoChange(answer_text(&run.answer))
        } else {
            Guard::Through(changes)
        };
    }

    let mut failures = Vec::new();
    println!("sweep: what changes the protected page, and what the guard does:");
    for f in &found {
        let open = OPEN.contains(&(f.kind, f.method.as_str()));
        let verdict = match &f.guard {
            Guard::Unchecked => "unchecked".to_string(),
            Guard::Unreachable(e) => format!("stopped: no session ({e})"),
            Guard::Refused(e) => format!("stopped: refused ({e})"),
            Guard::NoChange(a) => format!("stopped: judged, nothing changed ({a})"),
            Guard::Through(c) => format!("GETS THROUGH: {}", c.join("; ")),
        };
        let verdict: String = verdict.chars().take(300).collect();
        println!(
            "  {:<11} {:<45} {} | params {} | unguarded: {}",
            f.kind,
            f.method,
            verdict,
            f.params,
            f.changes.join("; ")
        );
        match (f.guard.stops(), open) {
            (false, false) => failures.push(format!("{} on {} gets through", f.method, f.kind)),
            (true, true) if f.guard.refuses() => failures.push(format!(
                "{} on {} is stopped now: take it off OPEN",
                f.method, f.kind
            )),
            _ => {}
        }
    }
    for (kind, method) in OPEN {
        let swept_here = swept.contains_key(kind) && methods.iter().any(|m| m.name == *method);
        if swept_here && !found.iter().any(|f| f.kind == *kind && f.method == *method) {
            println!("sweep: open {method} on {kind} changed nothing in this run");
        }
    }
    let sent: usize = swept.values().map(|e| e.0).sum();
    let exercised: usize = swept.values().map(|e| e.1).sum();
    let stopped = found.iter().filter(|f| f.guard.stops()).count();
    let mut per_kind: BTreeMap<&str, usize> = BTreeMap::new();
    for f in &found {
        *per_kind.entry(f.kind).or_default() += 1;
    }
    println!(
        "sweep: {} ({}), {} commands forwarded or judged by the table ({} swept), {} sessions kinds ({} absent: {:?}), {sent} (kind, command) pairs sent, {exercised} exercised, {candidates} changed the protected page once, {} twice: {:?}; the guard stops {stopped}, {} get through; {:.0?}",
        if full { "full" } else { "subset" },
        t.chromium,
        judged,
        methods.len(),
        kinds.len() - absent.len(),
        absent.len(),
        absent,
        found.len(),
        per_kind,
        found.len() - stopped,
        started.elapsed()
    );
    assert!(sent > 0, "nothing was swept");
    // Frames and pages take most commands; a worker and the root few (their domains are few).
    for (kind, (sent, exercised)) in &swept {
        if !matches!(*kind, "worker" | "root") {
            assert!(
                exercised * 4 > *sent,
                "{kind} took only {exercised} of {sent} commands: the parameters are wrong"
            );
        }
    }
    assert!(exercised > 0, "the browser took none of {sent} commands");
    assert!(failures.is_empty(), "sweep: {}", failures.join("; "));
}
