//! The driver read as the format is written (issue 21), on a scripted browser ([`super::fake`]).
//! One test per reading and per error the driver records; about 680 lines, tests only.

use std::time::Duration;

use serde_json::{json, Value};

use super::fake::{event, judge, run, run_observed, vector, Fake, Log, Protocol};
use crate::harness::runner::judge::Truth;

fn expression(params: &Value) -> &str {
    params
        .get("expression")
        .and_then(Value::as_str)
        .unwrap_or("")
}

const CHILD: &str = "C1";

/// `Target.attachedToTarget` of a popup `child-1` on session `C1` (browser-level auto-attach).
fn attach_event(waiting: bool) -> crate::harness::runner::transport::Event {
    event(
        "Target.attachedToTarget",
        json!({
            "sessionId": CHILD,
            "targetInfo": { "targetId": "child-1", "type": "page", "url": "http://seven.test/doc?n=T1" },
            "waitingForDebugger": waiting,
        }),
        None,
    )
}

fn attach(fake: &Fake, waiting: bool) {
    let e = attach_event(waiting);
    fake.push(&e.method, e.params, None);
}

/// Reading 1: `settle: {variant: true}` waits the variant's delay *and then*, like every settle,
/// for a main-frame commit followed by its load: the step after it runs only once the page
/// action's delayed navigation has loaded (here 300 ms after the action, with `prompt`'s 0 ms).
#[test]
fn settle_variant_waits_for_the_commit_and_its_load() {
    let v = vector(
        json!([{ "page": "tab", "url": "{ordinary}/doc?n=start" }]),
        json!([
            { "page": "href", "url": "{target}/doc?n=dest" },
            { "settle": { "variant": true } },
            { "page": "eval", "expression": "document.title", "as": "after" },
        ]),
        json!({ "result": "after", "equals": "x", "observer": "client" }),
    );
    let fake = Fake::new(|fake, method, params, session| {
        if method == "Runtime.evaluate" && expression(params).contains("location.href = to") {
            let s = session.map(str::to_string);
            fake.push_later(
                Duration::from_millis(300),
                vec![
                    event(
                        "Page.frameNavigated",
                        json!({ "frame": { "id": "F", "loaderId": "L2", "url": "http://seven.test/doc?n=dest" } }),
                        s.as_deref(),
                    ),
                    event("Page.loadEventFired", json!({}), s.as_deref()),
                ],
            );
        }
        None
    });
    let log = std::sync::Arc::new(Log::default());
    run(&v, &fake, &log, 0);
    // Whatever the driver did, the destination has committed and loaded by now.
    std::thread::sleep(Duration::from_millis(500));
    let loaded = fake
        .index_of("Page.frameNavigated", Some("S-page-1"), |p| {
            p.pointer("/frame/url") == Some(&json!("http://seven.test/doc?n=dest"))
        })
        .expect("the destination committed");
    let after = fake
        .calls("Runtime.evaluate")
        .into_iter()
        .find(|(p, ..)| expression(p) == "document.title")
        .expect("the step after the settle ran");
    assert!(
        after.2 > loaded + 1,
        "the step after settle.variant ran at event {}, before the destination's commit ({loaded}) and load",
        after.2
    );
}

/// Reading 4: steps nested in `children` run on the child by default, without `session`.
#[test]
fn nested_steps_run_on_the_child_by_default() {
    let v = vector(
        json!([
            { "page": "tab", "url": "{ordinary}/doc?n=start" },
            { "children": [ { "cdp": "Runtime.enable" } ], "requires": ["autoAttach"] },
        ]),
        json!([{ "page": "eval", "expression": "open()" }, { "wait": 300 }]),
        json!({ "detached": "child", "observer": "client" }),
    );
    let fake = Fake::new(|fake, method, params, _| {
        if method == "Runtime.evaluate" && expression(params) == "open()" {
            attach(fake, true);
        }
        None
    });
    let log = std::sync::Arc::new(Log::default());
    run(&v, &fake, &log, 0);
    let sessions: Vec<Option<String>> = fake
        .calls("Runtime.enable")
        .into_iter()
        .map(|(_, s, _)| s)
        .collect();
    assert_eq!(
        sessions,
        [Some(CHILD.to_string())],
        "Runtime.enable ran on {sessions:?}"
    );
}

/// Reading 5: an auto-attached target with no `children` step is still the current child:
/// `session: "child"` steps go to it, and `attached` with `session: "child"` sees it.
#[test]
fn an_auto_attached_target_is_the_child_without_a_children_step() {
    let v = vector(
        json!([{ "page": "tab", "url": "{ordinary}/doc?n=start" }]),
        json!([
            { "page": "eval", "expression": "open()" },
            { "wait": 300 },
            { "cdp": "Runtime.evaluate", "params": { "expression": "2" }, "session": "child", "as": "r", "requires": ["autoAttach"] },
        ]),
        json!({ "attached": "{target}", "session": "child", "observer": "client" }),
    );
    let fake = Fake::new(|fake, method, params, _| {
        if method == "Runtime.evaluate" && expression(params) == "open()" {
            attach(fake, false);
        }
        None
    });
    let log = std::sync::Arc::new(Log::default());
    let (record, vars) = run(&v, &fake, &log, 0);
    let on: Vec<Option<String>> = fake
        .calls("Runtime.evaluate")
        .into_iter()
        .filter(|(p, ..)| expression(p) == "2")
        .map(|(_, s, _)| s)
        .collect();
    assert_eq!(
        on,
        [Some(CHILD.to_string())],
        "the child step ran on {on:?}"
    );
    let attached = json!({ "attached": "{target}", "session": "child", "observer": "client" });
    assert_eq!(judge(&v, &record, &vars, attached), Truth::True);
}

/// Reading 6: a detach the client caused itself (a browser-session `Target.setAutoAttach
/// {autoAttach: false}`, which detaches every auto-attached session) is not a guard's `detached`;
/// one the client did not cause still is.
#[test]
fn detaches_the_client_caused_are_not_detached() {
    let v = vector(
        json!([
            { "page": "tab", "url": "{ordinary}/doc?n=start" },
            { "children": [ { "cdp": "Runtime.enable" } ], "requires": ["autoAttach"] },
        ]),
        json!([
            { "page": "eval", "expression": "open()" },
            { "wait": 100 },
            { "cdp": "Target.setAutoAttach", "session": "browser", "params": { "autoAttach": false, "waitForDebuggerOnStart": false, "flatten": true }, "requires": ["autoAttach", "browserSession"] },
            { "wait": 200 },
        ]),
        json!({ "detached": "child", "observer": "client" }),
    );
    let detach = |fake: &Fake| {
        fake.push(
            "Target.detachedFromTarget",
            json!({ "sessionId": CHILD, "targetId": "child-1" }),
            None,
        );
    };
    let fake = Fake::new(move |fake, method, params, _| {
        if method == "Runtime.evaluate" && expression(params) == "open()" {
            attach(fake, false);
        }
        if method == "Target.setAutoAttach" && params.get("autoAttach") == Some(&json!(false)) {
            detach(fake);
        }
        None
    });
    let log = std::sync::Arc::new(Log::default());
    let (record, vars) = run(&v, &fake, &log, 0);
    let check = json!({ "detached": "child", "observer": "client" });
    assert_eq!(
        judge(&v, &record, &vars, check.clone()),
        Truth::False,
        "{:?}",
        record.detached
    );

    // The same detach with no call of the client's before it: the guard's.
    let v2 = vector(
        json!([
            { "page": "tab", "url": "{ordinary}/doc?n=start" },
            { "children": [ { "cdp": "Runtime.enable" } ], "requires": ["autoAttach"] },
        ]),
        json!([
            { "page": "eval", "expression": "open()" },
            { "wait": 100 },
            { "page": "eval", "expression": "guard()" },
            { "wait": 200 },
        ]),
        check.clone(),
    );
    let fake2 = Fake::new(move |fake, method, params, _| {
        if method == "Runtime.evaluate" && expression(params) == "open()" {
            attach(fake, false);
        }
        if method == "Runtime.evaluate" && expression(params) == "guard()" {
            detach(fake);
        }
        None
    });
    let (record, vars) = run(&v2, &fake2, &log, 0);
    assert_eq!(judge(&v2, &record, &vars, check), Truth::True);
}

/// Reading 11: `fetch`, `xhr` and `image` page actions send the pre-action heartbeat for their
/// URL before they load it, as navigations do.
#[test]
fn loads_send_the_pre_action_heartbeat_first() {
    for action in ["fetch", "xhr", "image"] {
        let v = vector(
            json!([{ "page": "tab", "url": "{ordinary}/doc?n=start" }]),
            json!([{ "page": action, "url": "{target}/data?n={tag}", "as": "body" }]),
            json!({ "pre": "{target}/data?n={tag}", "observer": "fixture" }),
        );
        let fake = Fake::new(|_, _, _, _| None);
        let log = std::sync::Arc::new(Log::default());
        run(&v, &fake, &log, 0);
        let pre = "step=pre&to=http%3A%2F%2Fseven.test%2Fdata%3Fn%3DT1";
        let evaluations: Vec<String> = fake
            .calls("Runtime.evaluate")
            .into_iter()
            .map(|(p, ..)| expression(&p).to_string())
            .collect();
        let pre_at = evaluations.iter().position(|e| e.contains(pre));
        let load_at = evaluations
            .iter()
            .position(|e| e.contains("http://seven.test/data?n=T1") && !e.contains(pre));
        assert!(
            pre_at.is_some() && pre_at < load_at,
            "{action}: no pre-action heartbeat before the load in {evaluations:#?}"
        );
    }
}

/// Reading 12: the first-document wait of a child (after its `children` steps enabled Page) is
/// not satisfied by the popup's initial `about:blank` commit: a later child step runs only after
/// the popup's own document committed and loaded. The popup attaches 100 ms after the page
/// action that opens it returned (as `open` acts 50 ms later), while the later step is already
/// waiting for a child: it must wait for that child's `children` steps too.
#[test]
fn a_childs_first_document_is_not_its_initial_about_blank() {
    let v = vector(
        json!([
            { "page": "tab", "url": "{ordinary}/doc?n=start" },
            { "children": [ { "cdp": "Page.enable", "session": "child" } ], "requires": ["autoAttach"] },
        ]),
        json!([
            { "page": "eval", "expression": "open()" },
            { "cdp": "Runtime.evaluate", "params": { "expression": "later" }, "session": "child", "requires": ["autoAttach"] },
        ]),
        json!({ "detached": "child", "observer": "client" }),
    );
    let fake = Fake::new(|fake, method, params, session| {
        if method == "Runtime.evaluate" && expression(params) == "open()" {
            fake.push_later(Duration::from_millis(100), vec![attach_event(true)]);
        }
        if method == "Page.enable" && session == Some(CHILD) {
            // The child's `children` steps take a while.
            std::thread::sleep(Duration::from_millis(200));
        }
        if method == "Runtime.runIfWaitingForDebugger" && session == Some(CHILD) {
            fake.push(
                "Page.frameNavigated",
                json!({ "frame": { "id": "P", "loaderId": "A", "url": "about:blank" } }),
                Some(CHILD),
            );
            fake.push("Page.loadEventFired", json!({}), Some(CHILD));
            fake.push_later(
                Duration::from_millis(300),
                vec![
                    event(
                        "Page.frameNavigated",
                        json!({ "frame": { "id": "P", "loaderId": "B", "url": "http://seven.test/doc?n=T1" } }),
                        Some(CHILD),
                    ),
                    event("Page.loadEventFired", json!({}), Some(CHILD)),
                ],
            );
        }
        None
    });
    let log = std::sync::Arc::new(Log::default());
    run(&v, &fake, &log, 0);
    // Whatever the driver did, the popup's document has committed and loaded by now.
    std::thread::sleep(Duration::from_millis(500));
    let committed = fake
        .index_of("Page.frameNavigated", Some(CHILD), |p| {
            p.pointer("/frame/url") == Some(&json!("http://seven.test/doc?n=T1"))
        })
        .expect("the popup's document committed");
    let later = fake
        .calls("Runtime.evaluate")
        .into_iter()
        .find(|(p, ..)| expression(p) == "later")
        .expect("the later child step ran");
    assert!(
        later.2 > committed + 1,
        "the later child step ran at event {}, before the popup's document ({committed}) loaded",
        later.2
    );
}

/// Reading 2: every named outcome looks like `{ok, result, …}`, and a `result` check's `path`
/// resolves against it: `result.result.value` is a fetch's body, `ok` whether it answered; a
/// check with no path keeps reading the body.
#[test]
fn page_outcomes_have_the_cdp_shape() {
    let body = json!({ "result": "body", "equals": "real-{tag}", "observer": "client" });
    let v = vector(
        json!([{ "page": "tab", "url": "{ordinary}/doc?n=start" }]),
        json!([{ "page": "fetch", "url": "{target}/data?n={tag}", "as": "body" }]),
        body.clone(),
    );
    let fake = Fake::new(|_, method, params, _| {
        (method == "Runtime.evaluate" && expression(params).starts_with("fetch(\"http://seven"))
            .then(|| Ok(json!({ "result": { "type": "string", "value": "real-T1" } })))
    });
    let log = std::sync::Arc::new(Log::default());
    let (record, vars) = run(&v, &fake, &log, 0);
    for (path, equals) in [
        ("result.result.value", json!("real-{tag}")),
        ("ok", json!(true)),
    ] {
        let check =
            json!({ "result": "body", "path": path, "equals": equals, "observer": "client" });
        assert_eq!(
            judge(&v, &record, &vars, check),
            Truth::True,
            "path {path} on {:?}",
            record.outcomes.get("body")
        );
    }
    assert_eq!(
        judge(&v, &record, &vars, body),
        Truth::True,
        "no path: the body"
    );
}

/// Reading 2, for `guess`: its outcome is `{ok, result: [attempts]}`, so `path: "result"` reads
/// the attempts (each with `ok`); with no path the check reads the attempts as before.
#[test]
fn a_guess_outcome_holds_its_attempts_under_result() {
    let v = vector(
        json!([
            { "page": "tab", "url": "{ordinary}/doc?n=start" },
            { "cdp": "Fetch.enable" },
        ]),
        json!([
            { "page": "eval", "expression": "go()" },
            { "wait": 200 },
            { "guess": { "between": ["http://a.test/a", "http://a.test/b"], "cdp": "Fetch.continueRequest", "params": {} }, "as": "guesses" },
        ]),
        json!({ "result": "guesses", "equals": { "$some": { "ok": true } }, "observer": "client" }),
    );
    let fake = Fake::new(|fake, method, params, session| {
        if method == "Runtime.evaluate" && expression(params) == "go()" {
            for (id, url) in [
                ("job-1.0", "http://a.test/a"),
                ("job-4.0", "http://a.test/b"),
            ] {
                fake.push(
                    "Fetch.requestPaused",
                    json!({ "requestId": id, "request": { "url": url } }),
                    session,
                );
            }
        }
        if method == "Fetch.continueRequest" && params.get("requestId") == Some(&json!("job-3.0")) {
            return Some(Err(
                crate::harness::runner::transport::CallError::Protocol {
                    code: -32602,
                    message: "Invalid InterceptionId.".into(),
                },
            ));
        }
        None
    });
    let log = std::sync::Arc::new(Log::default());
    let (record, vars) = run(&v, &fake, &log, 0);
    let some_ok = json!({ "$some": { "ok": true } });
    let with_path =
        json!({ "result": "guesses", "path": "result", "equals": some_ok, "observer": "client" });
    assert_eq!(
        judge(&v, &record, &vars, with_path),
        Truth::True,
        "{:?}",
        record.outcomes.get("guesses")
    );
    let no_path = json!({ "result": "guesses", "equals": some_ok, "observer": "client" });
    assert_eq!(judge(&v, &record, &vars, no_path), Truth::True);
    let every = json!({ "result": "guesses", "path": "result", "equals": { "$every": { "ok": true } }, "observer": "client" });
    assert_eq!(
        judge(&v, &record, &vars, every),
        Truth::False,
        "job-3.0 was refused"
    );
}

/// Reading 5, its limits: a leg *with* a `children` step leaves a target its `where` does not
/// cover alone (it is not the child), and without one, a browser UI target (which a
/// browser-level auto-attach attaches too) is never the child.
#[test]
fn the_implicit_child_is_a_page_of_a_leg_without_children_steps() {
    let ui = |fake: &Fake| {
        fake.push(
            "Target.attachedToTarget",
            json!({
                "sessionId": "UI",
                "targetInfo": { "targetId": "ui-1", "type": "browser_ui", "url": "chrome://omnibox-popup.top-chrome/" },
                "waitingForDebugger": false,
            }),
            None,
        );
    };
    let child_step = json!({ "cdp": "Runtime.evaluate", "params": { "expression": "2" }, "session": "child", "as": "r", "requires": ["autoAttach"] });
    let check = json!({ "detached": "child", "observer": "client" });

    // No children step: the page is the child, the browser UI target attached after it is not.
    let v = vector(
        json!([{ "page": "tab", "url": "{ordinary}/doc?n=start" }]),
        json!([{ "page": "eval", "expression": "open()" }, { "wait": 300 }, child_step.clone()]),
        check.clone(),
    );
    let fake = Fake::new(move |fake, method, params, _| {
        if method == "Runtime.evaluate" && expression(params) == "open()" {
            attach(fake, false);
            ui(fake);
        }
        None
    });
    let log = std::sync::Arc::new(Log::default());
    run(&v, &fake, &log, 0);
    let on: Vec<Option<String>> = fake
        .calls("Runtime.evaluate")
        .into_iter()
        .filter(|(p, ..)| expression(p) == "2")
        .map(|(_, s, _)| s)
        .collect();
    assert_eq!(
        on,
        [Some(CHILD.to_string())],
        "the child step ran on {on:?}"
    );

    // A children step for popups of the page: the target (no opener) is not the child.
    let v = vector(
        json!([
            { "page": "tab", "url": "{ordinary}/doc?n=start" },
            { "children": [ { "cdp": "Runtime.enable" } ], "where": { "openerId": "page" }, "requires": ["autoAttach"] },
        ]),
        json!([{ "page": "eval", "expression": "open()" }, { "wait": 300 }, child_step]),
        check,
    );
    let fake = Fake::new(|fake, method, params, _| {
        if method == "Runtime.evaluate" && expression(params) == "open()" {
            attach(fake, false);
        }
        None
    });
    let (record, _) = run(&v, &fake, &log, 0);
    assert!(
        fake.calls("Runtime.evaluate")
            .iter()
            .all(|(p, ..)| expression(p) != "2"),
        "the child step ran on a target the children step left alone"
    );
    assert!(
        matches!(
            record.outcomes.get("r"),
            Some(crate::harness::runner::record::Recorded::Failed(_))
        ),
        "{:?}",
        record.outcomes.get("r")
    );
}

/// Background loads go out in step order: a background `fetch` step returns only once the page
/// has issued its request, however slowly the browser answers. Here the browser is slow to run
/// the first load's script (it holds it until the second load's script arrives, or 2 s): the
/// first request must still be issued before the second.
#[test]
fn background_loads_are_issued_in_step_order() {
    let v = vector(
        json!([{ "page": "tab", "url": "{ordinary}/doc?n=start" }]),
        json!([
            { "page": "fetch", "url": "{ordinary}/data?n=a-{tag}", "background": true, "as": "first" },
            { "page": "fetch", "url": "{ordinary}/data?n=b-{tag}", "background": true, "as": "last" },
        ]),
        json!({ "result": "first", "equals": "x", "observer": "client" }),
    );
    let issued = std::sync::Arc::new((
        std::sync::Mutex::new(Vec::<&str>::new()),
        std::sync::Condvar::new(),
    ));
    let seen = std::sync::Arc::clone(&issued);
    let fake = Fake::new(move |_, method, params, _| {
        if method != "Runtime.evaluate" {
            return None;
        }
        let (list, cond) = &*seen;
        let src = expression(params);
        if src.contains("fetch(\"http://ordinary.test/data?n=a-T1\"") {
            let list = crate::sys::lock(list);
            let (mut list, _) = cond
                .wait_timeout_while(list, Duration::from_secs(2), |l| !l.contains(&"b"))
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            list.push("a");
        } else if src.contains("fetch(\"http://ordinary.test/data?n=b-T1\"") {
            crate::sys::lock(list).push("b");
            cond.notify_all();
        }
        None
    });
    let log = std::sync::Arc::new(Log::default());
    run(&v, &fake, &log, 0);
    let order = crate::sys::lock(&issued.0).clone();
    assert_eq!(
        order,
        ["a", "b"],
        "the background loads were issued as {order:?}"
    );
}

/// The driver's tab and observer errors are typed, and a leg records them as the text they
/// always had: a navigation the browser refuses, a tab that never commits, a plant with no
/// observer.
#[test]
fn tab_and_observer_errors_are_typed_and_recorded_as_text() {
    use super::error::{NavigateFault, ObserverError, TabError};
    use super::state::LegState;
    use super::{LegSetup, Plant, StandIn};
    use crate::harness::runner::expand::{Leg, Vars};
    use crate::harness::runner::record::Recorded;
    use crate::harness::runner::transport::Transport;
    use std::sync::Arc;

    const REFUSED: &str = "http://seven.test/doc?n=refused";
    const SILENT: &str = "http://seven.test/doc?n=silent";
    let fake = Fake::new(|_, method, params, _| {
        let url = params.get("url").and_then(Value::as_str);
        match (method, url) {
            ("Page.navigate", Some(REFUSED)) => Some(Ok(
                json!({ "frameId": "F", "errorText": "net::ERR_BLOCKED_BY_CLIENT" }),
            )),
            // answered, but no commit or load ever follows
            ("Page.navigate", Some(SILENT)) => {
                Some(Ok(json!({ "frameId": "F", "loaderId": "L9" })))
            }
            _ => None,
        }
    });
    let log = Arc::new(Log::default());
    let setup = LegSetup {
        client: Arc::clone(&fake) as Arc<dyn Transport>,
        observer: None,
        vars: Vars::for_leg(&super::fake::origins(), Leg::Guarded, "seven", "T1", "c"),
        steps: Vec::new(),
        detach_delay: 0,
        context: None,
        plant: Plant::No,
        awaited: Vec::new(),
    };
    let leg = LegState::new(&setup, Arc::clone(&log) as Arc<dyn StandIn>);
    let page = leg.page_session().expect("the fake opens a page");
    let refused = leg
        .navigate(&page, REFUSED)
        .expect_err("a refused navigation");
    assert_eq!(
        refused,
        TabError::Navigate {
            url: REFUSED.into(),
            fault: NavigateFault::Refused("net::ERR_BLOCKED_BY_CLIENT".into()),
        }
    );
    assert_eq!(
        refused.to_string(),
        format!("Page.navigate {REFUSED}: net::ERR_BLOCKED_BY_CLIENT")
    );
    let from = fake.event_count();
    let silent = leg
        .wait_load(&page, from, None, Duration::from_millis(120))
        .expect_err("no commit");
    assert_eq!(silent, TabError::NoCommit(Duration::from_millis(120)));
    assert_eq!(silent.to_string(), "no main-frame commit within 120ms");
    let plant = leg.plant().expect_err("no observer to plant with");
    assert_eq!(plant, ObserverError::NoObserver);
    assert_eq!(plant.to_string(), "no unguarded observer to plant with");

    // A whole leg keeps the text: the navigation error and the failed outcome.
    let v = vector(
        json!([{ "page": "tab", "url": "{ordinary}/doc?n=start" }]),
        json!([{ "page": "navigate", "url": "{target}/doc?n=refused", "as": "nav" }]),
        json!({ "result": "nav", "equals": "x", "observer": "client" }),
    );
    let (record, _) = run(&v, &fake, &log, 0);
    let text = format!("Page.navigate {REFUSED}: net::ERR_BLOCKED_BY_CLIENT");
    assert_eq!(
        record.outcomes.get("nav"),
        Some(&Recorded::Failed(text.clone()))
    );
    assert!(
        record
            .navigation_errors
            .iter()
            .any(|n| n.url == REFUSED && n.error == text && n.session == "page"),
        "{:?}",
        record.navigation_errors
    );
}

#[test]
fn method_not_found_is_a_skip_only_when_the_browser_lacks_the_method() {
    use crate::harness::runner::transport::{CallError, Transport};
    use std::sync::Arc;

    const METHOD: &str = "Network.overrideNetworkState";
    let fake = Fake::new(|_, method, _, _| {
        (method == METHOD).then(|| {
            Err(CallError::Protocol {
                code: -32601,
                message: format!("'{METHOD}' wasn't found"),
            })
        })
    });
    let log = Arc::new(Log::default());
    let v = vector(
        json!([{ "page": "tab", "url": "{ordinary}/doc?n=start" }]),
        json!([{ "cdp": METHOD, "params": { "offline": true }, "session": "page", "as": "state" }]),
        json!({ "result": "state", "path": "ok", "equals": true, "observer": "client" }),
    );
    let observed = |commands: Option<Vec<&'static str>>| {
        let observer = commands.map(|c| Arc::new(Protocol(Some(c))) as Arc<dyn Transport>);
        run_observed(&v, &fake, observer, &log, 0).0
    };
    // The observer's browser lacks it too: a skip, no error.
    let lacks = observed(Some(vec!["Page.navigate"]));
    assert!(
        lacks.unsupported.contains(METHOD),
        "{:?}",
        lacks.unsupported
    );
    assert!(lacks.errors.is_empty(), "{:?}", lacks.errors);
    // No observer to ask: taken at its word, as before.
    let unknown = observed(None);
    assert!(unknown.unsupported.contains(METHOD));
    // The browser has it: the guard said so itself; a leg error, never a skip.
    let has = observed(Some(vec![METHOD]));
    assert!(has.unsupported.is_empty(), "{:?}", has.unsupported);
    assert_eq!(
        has.errors,
        vec![format!(
            "{METHOD}: answered \"'{METHOD}' wasn't found\", but the browser has it (its /json/protocol)"
        )]
    );
}
