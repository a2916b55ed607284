//! The guard policy (`guard::policy`) against a hostile or buggy client: what it keeps for a
//! connection stays within its [`Config`] bounds whatever the client sends, over a bound it
//! refuses or fails closed (never grows), and odd input gets an answer, never a panic or
//! silence.
#![cfg(feature = "guard")]

use crate::policy_traces;
use crate::rng::Rng;

use serde_json::{json, Value};
use slicc_browsers::guard::policy::{Config, Output, Policy, Verdict};
use slicc_browsers::protected::Matcher;

const MIB: usize = 1 << 20;

fn matcher() -> Matcher {
    Matcher::new(
        &slicc_browsers::shared_catalog().protected_origins,
        &[] as &[&str],
    )
    .unwrap()
}

/// The policy's own command of `method` among `out`'s frames for the browser, as JSON.
fn own(out: &Output, method: &str) -> Option<Value> {
    out.to_browser
        .iter()
        .filter_map(|f| serde_json::from_str::<Value>(f).ok())
        .find(|v| v["method"] == method)
}

/// A policy whose discovery the browser answered.
fn ready(config: Config) -> Policy {
    let mut p = Policy::with_config(matcher(), config);
    let start = p.start(0);
    let discover = own(&start, "Target.setDiscoverTargets").unwrap();
    p.from_browser(&json!({"id": discover["id"], "result": {}}).to_string(), 1);
    assert!(p.is_ready());
    p
}

/// The browser auto-attached page `target` as session `sid`: the policy holds the event for its
/// checks (Fetch.enable, frame tree, auto-attach), which nobody answers here.
fn attach_held(p: &mut Policy, target: &str, sid: &str) {
    let info = json!({"targetId": target, "type": "page", "url": "http://plain.test/",
        "attached": true, "browserContextId": "C1"});
    p.from_browser(
        &json!({"method": "Target.targetCreated", "params": {"targetInfo": info}}).to_string(),
        2,
    );
    let out = p.from_browser(
        &json!({"method": "Target.attachedToTarget",
            "params": {"sessionId": sid, "targetInfo": info, "waitingForDebugger": false}})
        .to_string(),
        3,
    );
    assert_eq!(out.verdict, Verdict::Hold, "{out:#?}");
    assert!(own(&out, "Fetch.enable").is_some(), "{out:#?}");
}

/// A client command on a session nobody has, with a `size`-byte session id: the policy
/// answers it with Chromium's error, which quotes the session id.
fn unknown_session_command(id: usize, size: usize) -> String {
    json!({"id": id, "method": "Runtime.evaluate", "sessionId": "S".repeat(size)}).to_string()
}

#[test]
fn what_waits_behind_a_held_session_is_bounded_in_bytes() {
    // Unbounded before: 2,000 such answers of 1 MiB each all waited behind one held
    // session (none reached the client, the test process grew by 2 GB).
    let config = Config {
        max_held_bytes: 8 * MIB,
        ..Config::default()
    };
    let mut p = ready(config);
    attach_held(&mut p, "T1", "S1");
    let mut shown = 0;
    let mut detached = Vec::new();
    let mut detach_sent = false;
    for i in 0..20 {
        let out = p.from_client(&unknown_session_command(i, MIB), 4);
        shown += out.to_client.len();
        // Never more than the bound waits: at most 8 of these 1 MiB answers.
        assert!(i < 8 || shown >= i - 7, "{i} sent, {shown} shown");
        detached.extend(out.detached.clone());
        detach_sent |= out
            .to_browser
            .iter()
            .any(|f| f.contains("Target.detachFromTarget") && f.contains(r#""sessionId":"S1""#));
    }
    assert_eq!(
        shown, 20,
        "every answer reached the client once the hold failed"
    );
    assert_eq!(detached, vec!["S1".to_string()]);
    assert!(detach_sent, "the held session is detached in the browser");
    // Its checks answered late change nothing: the session is gone for the client.
    let out = p.from_client(
        &json!({"id": 100, "method": "Runtime.evaluate", "sessionId": "S1"}).to_string(),
        5,
    );
    assert_eq!(out.verdict, Verdict::Refuse, "{out:#?}");
}

#[test]
fn only_the_oldest_held_session_fails_when_that_is_enough() {
    let config = Config {
        max_held_bytes: 8 * MIB,
        ..Config::default()
    };
    let mut p = ready(config);
    attach_held(&mut p, "T1", "S1");
    let mut detached = Vec::new();
    let mut shown = 0;
    for i in 0..9 {
        let out = p.from_client(&unknown_session_command(i, MIB), 4);
        shown += out.to_client.len();
        detached.extend(out.detached.clone());
    }
    assert_eq!(detached, vec!["S1".to_string()]);
    assert_eq!(shown, 9);
    // A second held session: 2 MiB behind it is within the bound, so it keeps waiting.
    attach_held(&mut p, "T2", "S2");
    for i in 9..11 {
        let out = p.from_client(&unknown_session_command(i, MIB), 4);
        assert!(out.to_client.is_empty(), "{i}: behind S2's checks");
        assert!(out.detached.is_empty(), "{i}: {:?}", out.detached);
    }
}

#[test]
fn the_count_bound_fails_only_the_oldest_hold_too() {
    // Before: past max_pending frames every hold failed, not only as many as it took.
    let config = Config {
        max_pending: 16,
        ..Config::default()
    };
    let mut p = ready(config);
    attach_held(&mut p, "T1", "S1");
    let mut detached = Vec::new();
    let mut shown = 0;
    for i in 0..10 {
        let out = p.from_client(&unknown_session_command(i, 8), 4);
        shown += out.to_client.len();
        detached.extend(out.detached);
    }
    attach_held(&mut p, "T2", "S2");
    for i in 10..17 {
        let out = p.from_client(&unknown_session_command(i, 8), 4);
        shown += out.to_client.len();
        detached.extend(out.detached);
    }
    // 19 places (2 holds, 17 answers) passed 16: S1 failed and the 10 behind it left; the 7
    // behind S2 are within the bound.
    assert_eq!(detached, vec!["S1".to_string()]);
    assert_eq!(shown, 10);
}

#[test]
fn commands_before_the_discovery_answer_are_bounded_in_bytes() {
    let config = Config {
        max_held_bytes: 8 * MIB,
        ..Config::default()
    };
    let mut p = Policy::with_config(matcher(), config);
    p.start(0);
    let mut held = 0;
    let mut refused = Vec::new();
    for i in 0..20 {
        let frame = json!({"id": i, "method": "Runtime.evaluate",
            "params": {"expression": "x".repeat(MIB - 100)}})
        .to_string();
        let out = p.from_client(&frame, 1);
        match out.verdict {
            Verdict::Hold => held += 1,
            Verdict::Refuse => refused.push(out.to_client.concat()),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(held, 8, "8 MiB of 1 MiB commands kept");
    assert_eq!(refused.len(), 12);
    assert!(
        refused[0].contains(r#""id":8"#) && refused[0].contains("too many commands while starting")
    );
}

#[test]
fn commands_chromium_would_answer_without_their_id_are_answered_here() {
    // Chromium 156 answers `{"error":{"code":-32600,"message":"Message must have integer 'id'
    // property"}}`, without an id, to an id outside 32 bits, and a message naming a member
    // twice with the first id ("CBOR: duplicate map key"): forwarded, the client was never
    // answered and the command counted as in flight for good (65,536 of them and every
    // command was refused).
    let mut p = ready(Config::default());
    let frames = [
        r#"{"id":2147483648,"method":"Browser.getVersion"}"#,
        r#"{"id":-2147483649,"method":"Browser.getVersion"}"#,
        r#"{"id":9223372036854775807,"method":"Browser.getVersion"}"#,
        r#"{"id":18446744073709551615,"method":"Browser.getVersion"}"#,
        r#"{"id":1,"id":2,"method":"Browser.getVersion"}"#,
        r#"{"id":3,"method":"Browser.getVersion","method":"Browser.close"}"#,
        r#"{"id":4,"method":"Browser.getVersion","sessionId":"S","sessionId":null}"#,
    ];
    for f in frames {
        let out = p.from_client(f, 2);
        assert_eq!(out.verdict, Verdict::Invalid, "{f}: {out:#?}");
        assert!(out.to_browser.is_empty(), "{f}: {out:#?}");
        assert_eq!(out.to_client.len(), 1, "{f}: {out:#?}");
        let answer: Value = serde_json::from_str(&out.to_client[0]).unwrap();
        assert!(answer["error"]["code"].is_i64(), "{f}: {answer}");
    }
    assert_eq!(p.in_flight(), 0);
    // The ends of Chromium's range still go through, answered as usual.
    for (id, f) in [
        (
            -2147483648_i64,
            r#"{"id":-2147483648,"method":"Browser.getVersion"}"#,
        ),
        (
            1999999999,
            r#"{"id":1999999999,"method":"Browser.getVersion"}"#,
        ),
    ] {
        let out = p.from_client(f, 3);
        assert_eq!(out.verdict, Verdict::Forward, "{f}: {out:#?}");
        assert_eq!(p.in_flight(), 1);
        let out = p.from_browser(&json!({"id": id, "result": {}}).to_string(), 4);
        assert_eq!(out.to_client.len(), 1, "{out:#?}");
        assert_eq!(p.in_flight(), 0);
    }
}

#[test]
fn odd_input_is_answered_and_never_panics() {
    let mut p = ready(Config::default());
    let deep_array = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep_params = format!(
        r#"{{"id":5,"method":"Runtime.evaluate","params":{}1{}}}"#,
        r#"{"a":"#.repeat(10_000),
        "}".repeat(10_000)
    );
    let frames: Vec<String> = vec![
        deep_array.clone(),
        deep_params,
        String::new(),
        "null".into(),
        "1e400".into(),
        r#"{"id":1e400,"method":"X.y"}"#.into(),
        r#"{"id":1.5,"method":"X.y"}"#.into(),
        r#"{"id":"7","method":"X.y"}"#.into(),
        r#"{"id":7,"method":7}"#.into(),
        r#"{"id":7,"method":"X.y","params":[]}"#.into(),
        r#"{"id":7,"method":"X.y","sessionId":{"a":1}}"#.into(),
        r#"{"id":7,"method":"X.y","extra":1}"#.into(),
        r#"{"id":7,"method":"X.y","params":{"s":"\ud800"}}"#.into(),
        "{\"id\":7,\"method\":\"X.y\"".into(),
        "\u{feff}{}".into(),
    ];
    for f in &frames {
        let out = p.from_client(f, 2);
        assert_eq!(out.verdict, Verdict::Invalid, "{:.80}: {out:#?}", f);
        assert!(out.to_browser.is_empty());
        assert_eq!(out.to_client.len(), 1);
        let answer: Value = serde_json::from_str(&out.to_client[0]).unwrap();
        assert!(answer["error"]["message"].is_string(), "{answer}");
    }
    // From the browser: dropped, never a panic.
    for f in frames.iter().chain([&deep_array]) {
        let out = p.from_browser(f, 3);
        assert!(out.to_client.is_empty(), "{:.80}: {out:#?}", f);
    }
    assert_eq!(p.in_flight(), 0);
}

// ------------------------------------------------------------------ lifecycles

/// Answers every command of the policy's own among `frames` as Chromium would for an ordinary
/// page on `http://plain.test/` (and what those answers make it send), returning what reached
/// the client meanwhile.
fn answer_own(p: &mut Policy, frames: Vec<String>, now: u64) -> Vec<String> {
    let mut to_client = Vec::new();
    let mut todo = frames;
    while !todo.is_empty() {
        let mut next = Vec::new();
        for f in todo {
            let v: Value = serde_json::from_str(&f).unwrap();
            let Some(id) = v["id"].as_i64().filter(|id| *id >= 2_000_000_000) else {
                continue;
            };
            let result = match v["method"].as_str().unwrap_or_default() {
                "Page.getFrameTree" => json!({"frameTree": {"frame": {"id": "F",
                    "url": "http://plain.test/", "securityOrigin": "http://plain.test"}}}),
                "Page.getNavigationHistory" => json!({"currentIndex": 0, "entries": [
                    {"id": 1, "url": "http://plain.test/", "userTypedURL": "http://plain.test/"}]}),
                _ => json!({}),
            };
            let mut answer = json!({"id": id, "result": result});
            if let Some(s) = v.get("sessionId") {
                answer["sessionId"] = s.clone();
            }
            let out = p.from_browser(&answer.to_string(), now);
            to_client.extend(out.to_client);
            next.extend(out.to_browser);
        }
        todo = next;
    }
    to_client
}

fn page_info(target: &str) -> Value {
    json!({"targetId": target, "type": "page", "url": "http://plain.test/", "attached": true,
        "browserContextId": "C1"})
}

#[test]
fn attaching_and_detaching_thousands_of_times_leaves_nothing_behind() {
    let mut p = ready(Config::default());
    p.from_browser(
        &json!({"method": "Target.targetCreated", "params": {"targetInfo": page_info("T1")}})
            .to_string(),
        2,
    );
    let idle = p.footprint();
    for i in 0..2_000_i64 {
        let sid = format!("S{i}");
        let now = 10 + i as u64;
        let out = p.from_client(
            &json!({"id": 2 * i, "method": "Target.attachToTarget",
                "params": {"targetId": "T1", "flatten": true}})
            .to_string(),
            now,
        );
        assert_eq!(out.verdict, Verdict::Forward, "{out:#?}");
        let out = p.from_browser(
            &json!({"method": "Target.attachedToTarget", "params": {"sessionId": sid,
                "targetInfo": page_info("T1"), "waitingForDebugger": false}})
            .to_string(),
            now,
        );
        let mut shown = out.to_client;
        shown.extend(answer_own(&mut p, out.to_browser, now));
        let out = p.from_browser(
            &json!({"id": 2 * i, "result": {"sessionId": sid}}).to_string(),
            now,
        );
        shown.extend(out.to_client);
        assert!(
            shown.iter().any(|f| f.contains(r#""result":{"sessionId""#)),
            "{i}: attached: {shown:#?}"
        );
        let out = p.from_client(
            &json!({"id": 2 * i + 1, "method": "Target.detachFromTarget",
                "params": {"sessionId": sid}})
            .to_string(),
            now,
        );
        assert_eq!(out.verdict, Verdict::Forward, "{out:#?}");
        p.from_browser(
            &json!({"method": "Target.detachedFromTarget",
                "params": {"sessionId": sid, "targetId": "T1"}})
            .to_string(),
            now,
        );
        p.from_browser(&json!({"id": 2 * i + 1, "result": {}}).to_string(), now);
    }
    let after = p.footprint();
    assert_eq!(after, idle, "before {idle:?}, after {after:?}");
}

#[test]
fn targets_and_their_frames_made_and_destroyed_leave_nothing_behind() {
    let mut p = ready(Config::default());
    // A page, attached and checked.
    p.from_browser(
        &json!({"method": "Target.targetCreated", "params": {"targetInfo": page_info("P")}})
            .to_string(),
        2,
    );
    let out = p.from_browser(
        &json!({"method": "Target.attachedToTarget", "params": {"sessionId": "SP",
            "targetInfo": page_info("P"), "waitingForDebugger": false}})
        .to_string(),
        3,
    );
    answer_own(&mut p, out.to_browser, 3);
    let idle = p.footprint();
    for i in 0..5_000 {
        let now = 10 + i as u64;
        // A tab made and closed.
        let tab = format!("T{i}");
        p.from_browser(
            &json!({"method": "Target.targetCreated", "params": {"targetInfo": page_info(&tab)}})
                .to_string(),
            now,
        );
        p.from_browser(
            &json!({"method": "Target.targetDestroyed", "params": {"targetId": tab}}).to_string(),
            now,
        );
        // A frame of the page in another process (the policy's own auto-attach), gone again;
        // every fourth on a protected origin.
        let frame = format!("F{i}");
        let url = if i % 4 == 0 {
            "https://secret.sliccy.ai/"
        } else {
            "http://other.test/"
        };
        let info = json!({"targetId": frame, "type": "iframe", "url": url, "attached": true,
            "browserContextId": "C1", "parentFrameId": "P"});
        p.from_browser(
            &json!({"method": "Target.targetCreated", "params": {"targetInfo": info}}).to_string(),
            now,
        );
        let out = p.from_browser(
            &json!({"method": "Target.attachedToTarget", "sessionId": "SP",
                "params": {"sessionId": format!("SF{i}"), "targetInfo": info,
                    "waitingForDebugger": true}})
            .to_string(),
            now,
        );
        answer_own(&mut p, out.to_browser, now);
        p.from_browser(
            &json!({"method": "Target.detachedFromTarget", "sessionId": "SP",
                "params": {"sessionId": format!("SF{i}"), "targetId": frame}})
            .to_string(),
            now,
        );
        p.from_browser(
            &json!({"method": "Target.targetDestroyed", "params": {"targetId": frame}}).to_string(),
            now,
        );
    }
    let after = p.footprint();
    // Destroyed targets are remembered up to Config::gone (4,096), nothing else grows, but
    // the page that hosted a protected frame stays marked while it lives.
    assert_eq!(after.gone, Config::default().gone);
    assert_eq!(after.targets, idle.targets, "{after:?}");
    assert_eq!(after.sessions, idle.sessions, "{after:?}");
    assert_eq!(after.in_flight, 0, "{after:?}");
    assert_eq!(after.holds, 0, "{after:?}");
    assert_eq!(after.held, 0, "{after:?}");
    assert!(after.frames <= 1, "{after:?}");
    assert!(after.own <= idle.own + 1, "{idle:?} -> {after:?}");
    // The page closes: its mark goes too.
    p.from_browser(
        &json!({"method": "Target.targetDestroyed", "params": {"targetId": "P"}}).to_string(),
        99_999,
    );
    assert_eq!(p.footprint().frames, 0);
}

#[test]
fn held_history_navigations_count_as_in_flight() {
    // A `Page.navigateToHistoryEntry` for an entry the policy has not seen waits for its own
    // `Page.getNavigationHistory`. Before, such held commands counted toward no bound and a
    // duplicate id was not noticed (both went to the browser, one answer came back).
    let config = Config {
        max_pending: 4,
        ..Config::default()
    };
    let mut p = ready(config);
    p.from_browser(
        &json!({"method": "Target.targetCreated", "params": {"targetInfo": page_info("T1")}})
            .to_string(),
        2,
    );
    let out = p.from_browser(
        &json!({"method": "Target.attachedToTarget", "params": {"sessionId": "S1",
            "targetInfo": page_info("T1"), "waitingForDebugger": false}})
        .to_string(),
        3,
    );
    let shown = answer_own(&mut p, out.to_browser, 3);
    assert!(
        shown.iter().any(|f| f.contains("Target.attachedToTarget")),
        "{shown:#?}"
    );
    let history = |id: i64| {
        json!({"id": id, "method": "Page.navigateToHistoryEntry", "sessionId": "S1",
            "params": {"entryId": 1000 + id}})
        .to_string()
    };
    let mut verdicts = Vec::new();
    for id in [1, 1, 2, 3, 4, 5] {
        let out = p.from_client(&history(id), 4);
        verdicts.push(out.verdict);
    }
    assert_eq!(
        verdicts,
        vec![
            Verdict::Hold,
            Verdict::Invalid, // the same id again
            Verdict::Hold,
            Verdict::Hold,
            Verdict::Hold,
            Verdict::Refuse, // a fifth in flight
        ]
    );
    assert_eq!(p.in_flight(), 4);
    // The checks fail closed (time): each held command is refused and no longer in flight.
    let out = p.tick(60_000);
    let refused = out
        .to_client
        .iter()
        .filter(|f| f.contains("\"error\""))
        .count();
    assert_eq!(refused, 4, "{out:#?}");
    assert_eq!(p.in_flight(), 0);
}

// ------------------------------------------------------------------ values per message

/// A message of `n` small values (the JSON `[0,0,…]` under `params.a` or `result.a`).
fn zeros(n: usize) -> String {
    let mut a = String::with_capacity(2 * n);
    a.push('[');
    for i in 0..n {
        if i > 0 {
            a.push(',');
        }
        a.push('0');
    }
    a.push(']');
    a
}

#[test]
fn messages_with_too_many_values_are_not_parsed() {
    // Before: a 60 MB answer of 30 million zeros took a proxy from 10 MB to 2.2 GB (Chromium
    // 156, release build); the browser's 256 MiB limit allowed ten times that.
    let config = Config {
        max_values: 100_000,
        ..Config::default()
    };
    let mut p = ready(config);
    let many = zeros(600_000);
    // A client's: refused unread, with its id and session.
    let frame = format!(r#"{{"id":5,"method":"Runtime.evaluate","params":{{"a":{many}}}}}"#);
    let out = p.from_client(&frame, 2);
    assert_eq!(out.verdict, Verdict::Invalid, "{:.300}", format!("{out:?}"));
    assert!(out.to_browser.is_empty());
    assert_eq!(out.to_client.len(), 1);
    assert!(out.to_client[0].starts_with(r#"{"error":{"code":-32600,"message":"slicc: guard: the message holds too many JSON values to judge (600005; limit 100000)"},"id":5}"#), "{}", out.to_client[0]);
    // Within the bound, the same command goes through.
    let out = p.from_client(
        &json!({"id": 6, "method": "Runtime.evaluate", "params": {"expression": "x"}}).to_string(),
        2,
    );
    assert_eq!(out.verdict, Verdict::Forward);
    // The browser's answer to it over the bound: an error for the command.
    let answer = format!(r#"{{"id":6,"result":{{"result":{{"type":"object","value":{many}}}}}}}"#);
    let out = p.from_browser(&answer, 3);
    assert_eq!(out.to_client.len(), 1);
    assert!(out.to_client[0].len() < 300, "{:.300}", out.to_client[0]);
    assert!(
        out.to_client[0].contains(r#""id":6"#) && out.to_client[0].contains("too many JSON values")
    );
    assert_eq!(p.in_flight(), 0);
    // An event over the bound: dropped.
    let event = format!(r#"{{"method":"Runtime.consoleAPICalled","params":{{"args":{many}}}}}"#);
    let out = p.from_browser(&event, 4);
    assert_eq!(out.verdict, Verdict::Drop);
    assert!(out.to_client.is_empty());
    // An answer to the policy's own check over the bound: the check fails closed.
    let info = page_info("T1");
    p.from_browser(
        &json!({"method": "Target.targetCreated", "params": {"targetInfo": info}}).to_string(),
        5,
    );
    let out = p.from_browser(
        &json!({"method": "Target.attachedToTarget",
            "params": {"sessionId": "S1", "targetInfo": info, "waitingForDebugger": false}})
        .to_string(),
        5,
    );
    let check = own(&out, "Fetch.enable").expect("the policy's Fetch.enable");
    let answer = format!(
        r#"{{"id":{},"sessionId":"S1","result":{{"x":{many}}}}}"#,
        check["id"]
    );
    let out = p.from_browser(&answer, 6);
    assert_eq!(
        out.detached,
        vec!["S1".to_string()],
        "{:.500}",
        format!("{out:?}")
    );
}

#[test]
fn sessions_nested_thousands_deep_are_forgotten_without_recursion() {
    // Sessions nest as deep as the browser reports them. Forgetting the outermost forgot the
    // rest by recursion: 100,000 levels overflowed the stack and aborted the process (and,
    // through a release proxy, 30,000 nested browser sessions a client made did). Run on a
    // thread with a small stack, so that recursion would show at 20,000.
    let run = || {
        let mut p = ready(Config::default());
        for i in 0..20_000_i64 {
            let info = json!({"targetId": format!("W{i}"), "type": "worker",
                "url": "http://plain.test/w.js", "attached": true});
            let mut event = json!({"method": "Target.attachedToTarget",
                "params": {"sessionId": format!("B{i}"), "targetInfo": info,
                    "waitingForDebugger": false}});
            if i > 0 {
                event["sessionId"] = json!(format!("B{}", i - 1));
            }
            p.from_browser(&event.to_string(), 3);
        }
        assert_eq!(p.footprint().sessions, 20_000);
        p.from_browser(
            &json!({"method": "Target.detachedFromTarget", "params": {"sessionId": "B0"}})
                .to_string(),
            4,
        );
        p.footprint()
    };
    let after = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(run)
        .unwrap()
        .join()
        .expect("no overflow");
    assert_eq!(after.sessions, 0);
}

#[test]
fn a_client_nests_sessions_at_most_64_deep() {
    // Straight on Chromium 156, a client nested 30,000 browser sessions
    // (`Target.attachToBrowserTarget` from the last one) and detached the outermost: the
    // browser crashed (SIGSEGV), closing the user's tabs, protected ones included, which
    // `Browser.crash` is refused for. 10,000 survived.
    let mut p = ready(Config::default());
    let mut parent: Option<String> = None;
    let mut refused = None;
    for i in 0..100_i64 {
        let mut cmd = json!({"id": i, "method": "Target.attachToBrowserTarget", "params": {}});
        let mut answer = json!({"id": i, "result": {"sessionId": format!("B{i}")}});
        if let Some(s) = &parent {
            cmd["sessionId"] = json!(s);
            answer["sessionId"] = json!(s);
        }
        let out = p.from_client(&cmd.to_string(), 2);
        if out.verdict == Verdict::Refuse {
            refused = Some((i, out.to_client.concat()));
            break;
        }
        assert_eq!(out.verdict, Verdict::Forward);
        assert_eq!(p.from_browser(&answer.to_string(), 3).to_client.len(), 1);
        parent = Some(format!("B{i}"));
    }
    let (at, answer) = refused.expect("refused before 100 levels");
    assert_eq!(at, 64, "{answer}");
    assert!(answer.contains("sessions nest at most 64 deep"), "{answer}");
    // The same from a session less deep still works.
    let out = p.from_client(
        &json!({"id": 1000, "method": "Target.attachToBrowserTarget", "params": {},
            "sessionId": "B10"})
        .to_string(),
        4,
    );
    assert_eq!(out.verdict, Verdict::Forward);
}

#[test]
fn a_clock_at_its_end_is_no_panic() {
    // The embedder's clock is input too: a hold's deadline at u64::MAX ms overflowed (a panic
    // in debug builds).
    let config = Config {
        hold_ms: u64::MAX,
        ..Config::default()
    };
    let mut p = Policy::with_config(matcher(), config);
    let start = p.start(u64::MAX);
    let discover = own(&start, "Target.setDiscoverTargets").unwrap();
    p.from_browser(
        &json!({"id": discover["id"], "result": {}}).to_string(),
        u64::MAX,
    );
    let info = page_info("T1");
    let out = p.from_browser(
        &json!({"method": "Target.attachedToTarget", "params": {"sessionId": "S1",
            "targetInfo": info, "waitingForDebugger": false}})
        .to_string(),
        u64::MAX,
    );
    assert_eq!(out.verdict, Verdict::Hold);
    // Time never passes it: the hold waits for its checks.
    assert!(p.tick(u64::MAX).to_client.is_empty());
}

// ------------------------------------------------------------------ type confusion

/// A value of another kind than CDP promises at that place.
fn odd(r: &mut Rng) -> Value {
    match r.below(14) {
        0 => Value::Null,
        1 => json!(true),
        2 => json!(-1),
        3 => json!(1e300),
        4 => json!(u64::MAX),
        5 => json!(""),
        6 => json!([]),
        7 => json!({}),
        8 => json!([[{"a": []}]]),
        9 => json!("https://secret.sliccy.ai/x"),
        10 => json!(i64::MIN),
        11 => json!(2_000_000_001),
        12 => json!({"url": 5, "targetId": [], "sessionId": {}}),
        _ => json!("chrome://settings"),
    }
}

/// Every JSON pointer in `v`.
fn pointers(v: &Value, at: &mut Vec<String>, out: &mut Vec<String>) {
    out.push(at.iter().map(|s| format!("/{s}")).collect());
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                at.push(k.replace('~', "~0").replace('/', "~1"));
                pointers(x, at, out);
                at.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                at.push(i.to_string());
                pointers(x, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

/// `v` with one to three of its values (the whole included) replaced by odd ones.
fn confused(v: &Value, r: &mut Rng) -> Value {
    let mut v = v.clone();
    let mut all = Vec::new();
    pointers(&v, &mut Vec::new(), &mut all);
    for _ in 0..1 + r.below(3) {
        let at = all[r.below(all.len())].clone();
        match v.pointer_mut(&at) {
            Some(x) => *x = odd(r),
            None if at.is_empty() => v = odd(r),
            None => {}
        }
    }
    v
}

#[test]
fn frames_of_every_trace_with_values_of_the_wrong_kind_never_panic_the_policy() {
    // Every client and browser frame of tests/data/guard_policy, in trace order, each
    // preceded by two copies with values of the wrong kind at random places (ids, session
    // ids, URLs, params, results, the whole frame): 5 seeds here; 200 seeds in a release build
    // (238,800 such frames) found no panic either.
    let mut frames: Vec<(bool, Value)> = Vec::new();
    for f in policy_traces::files() {
        for line in std::fs::read_to_string(&f).unwrap().lines() {
            let Ok(step) = serde_json::from_str::<Value>(line.trim()) else {
                continue;
            };
            for (k, from_client) in [("c", true), ("b", false)] {
                if let Some(x) = step.get(k) {
                    let text = policy_traces::frame_text(x);
                    let x = serde_json::from_str(&text).unwrap_or(Value::String(text));
                    frames.push((from_client, x));
                }
            }
        }
    }
    assert!(frames.len() > 500, "{} frames", frames.len());
    let fresh = || {
        let mut p = Policy::new(
            Matcher::new(
                &slicc_browsers::shared_catalog().protected_origins,
                &["http://127.0.0.1:5710"],
            )
            .unwrap(),
        );
        p.start(0);
        p.from_browser(r#"{"id":2000000000,"result":{}}"#, 1);
        p
    };
    let mut panics = Vec::new();
    for seed in 1..=5_u64 {
        let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let mut p = fresh();
        for (i, (from_client, f)) in frames.iter().enumerate() {
            let now = 10 + i as u64;
            let feed = |p: &mut Policy, frame: &str| {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    if *from_client {
                        p.from_client(frame, now);
                    } else {
                        p.from_browser(frame, now);
                    }
                }))
                .is_ok()
            };
            for _ in 0..2 {
                let odd = confused(f, &mut r).to_string();
                if !feed(&mut p, &odd) {
                    panics.push(format!("seed {seed}: {odd:.300}"));
                    p = fresh();
                }
            }
            if !feed(&mut p, &f.to_string()) {
                p = fresh();
            }
        }
    }
    assert!(panics.is_empty(), "{panics:#?}");
}
