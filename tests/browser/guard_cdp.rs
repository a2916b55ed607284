//! The guard runner's CDP client: against a headless Chromium this test launches (skipped with
//! the reason printed where /usr/bin/chromium is absent, failed when `CI` is set), and against
//! a small in-test WebSocket server that misbehaves (garbage, closes mid-call, never answers).
#![cfg(all(feature = "guard-runner", unix))]

use crate::needs;

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};
use slicc_browsers::harness::cdp::{websocket_url, CdpClient, CdpOptions};
use slicc_browsers::harness::runner::{CallError, Closed, Event, Transport, TransportError};
use slicc_browsers::harness::selftest::Chromium;
use tungstenite::{Message, WebSocket};

const CHROMIUM: &str = "/usr/bin/chromium";

/// Runs `f` on a thread and fails when it takes longer than `limit` (a hang is a failure,
/// not a stuck test run).
fn within<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    let worker = std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(limit) {
        Ok(value) => {
            let _ = worker.join();
            value
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => match worker.join() {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(()) => unreachable!("the worker neither answered nor panicked"),
        },
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("hung: no result within {limit:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Headless Chromium
// ---------------------------------------------------------------------------------------------

/// Starts Chromium (the crate's own launcher: temp profile, port 0, its process group killed on
/// drop), or `None` with the reason printed when it is not installed; under `CI` its absence is a
/// failure.
fn chromium() -> Option<Chromium> {
    if needs::missing(CHROMIUM, Path::new(CHROMIUM).exists()) {
        return None;
    }
    Some(Chromium::launch(CHROMIUM, &[], 0).expect("chromium serves CDP"))
}

fn connect(browser: &Chromium) -> CdpClient {
    let endpoint = browser.http_url();
    CdpClient::connect_endpoint(
        &endpoint,
        CdpOptions::new().call_timeout(Duration::from_secs(20)),
    )
    .expect("connects to Chromium")
}

#[test]
fn chromium_answers_browser_get_version() {
    let Some(browser) = chromium() else { return };
    let endpoint = browser.http_url();
    let ws = websocket_url(&endpoint, Duration::from_secs(10)).expect("/json/version");
    assert!(
        ws.starts_with(&format!(
            "{}/devtools/browser/",
            browser.http_url().replace("http://", "ws://")
        )),
        "{ws}"
    );
    let cdp = CdpClient::connect(&ws, CdpOptions::new()).expect("connects");
    assert_eq!(cdp.url(), ws);
    let version = cdp
        .send("Browser.getVersion", json!({}), None)
        .expect("Browser.getVersion");
    assert_eq!(version["protocolVersion"], "1.3", "{version}");
    let product = version["product"].as_str().expect("a product");
    assert!(product.contains("Chrome"), "{product}");
    // Params may be omitted (`null`): the command goes without them.
    let again = cdp
        .send("Browser.getVersion", Value::Null, None)
        .expect("Browser.getVersion without params");
    assert_eq!(again["product"], version["product"]);
    assert!(!cdp.is_closed());
    assert!(cdp.errors().is_empty(), "{:?}", cdp.errors());
}

#[test]
fn chromium_target_attach_evaluate_and_the_event_log() {
    let Some(browser) = chromium() else { return };
    let cdp = connect(&browser);
    let start = cdp.event_count();
    cdp.send("Target.setDiscoverTargets", json!({"discover": true}), None)
        .expect("Target.setDiscoverTargets");
    let created = cdp
        .send("Target.createTarget", json!({"url": "about:blank"}), None)
        .expect("Target.createTarget");
    let target = created["targetId"]
        .as_str()
        .expect("a targetId")
        .to_string();

    let is_ours = |e: &Event| {
        e.method == "Target.targetCreated" && e.params["targetInfo"]["targetId"] == target.as_str()
    };
    let (created_at, event) = cdp
        .wait_event(start, &is_ours, Duration::from_secs(10))
        .expect("Target.targetCreated for the new target");
    assert_eq!(event.session_id, None, "a browser-session event");
    assert_eq!(event.params["targetInfo"]["type"], "page");

    let session = cdp.attach(&target).expect("Target.attachToTarget");
    assert!(!session.is_empty());
    let attached = |e: &Event| {
        e.method == "Target.attachedToTarget" && e.params["sessionId"] == session.as_str()
    };
    let (attached_at, _) = cdp
        .wait_event(start, &attached, Duration::from_secs(10))
        .expect("Target.attachedToTarget for the session");
    assert!(
        created_at < attached_at,
        "the target was created (event {created_at}) before it was attached (event {attached_at})"
    );
    // `from` past an event: it is not found again.
    assert_eq!(
        cdp.wait_event(created_at + 1, &is_ours, Duration::from_millis(200)),
        None
    );

    let value = cdp
        .send(
            "Runtime.evaluate",
            json!({"expression": "6 * 7", "returnByValue": true}),
            Some(&session),
        )
        .expect("Runtime.evaluate on the session");
    assert_eq!(value["result"]["value"], 42, "{value}");

    // Session events carry their session id.
    let before = cdp.event_count();
    cdp.send("Runtime.enable", json!({}), Some(&session))
        .expect("Runtime.enable");
    let (_, context) = cdp
        .wait_event(
            before,
            &|e| e.method == "Runtime.executionContextCreated",
            Duration::from_secs(10),
        )
        .expect("Runtime.executionContextCreated");
    assert_eq!(context.session_id.as_deref(), Some(session.as_str()));

    // The log is append-only and consistent: a later read starts where an earlier one ended.
    let all = cdp.events_since(0);
    assert!(all.len() >= cdp.event_count().min(all.len()));
    assert!(all.len() > attached_at);
    assert_eq!(all[created_at], event);
    assert_eq!(cdp.events_since(created_at)[..], all[created_at..]);
    assert!(cdp.events_since(usize::MAX).is_empty());
}

#[test]
fn chromium_protocol_errors_keep_code_and_message() {
    let Some(browser) = chromium() else { return };
    let cdp = connect(&browser);
    match cdp.send("No.suchMethod", json!({}), None) {
        Err(CallError::Protocol { code, message }) => {
            assert_eq!(code, -32601, "{message}");
            assert!(message.contains("No.suchMethod"), "{message}");
        }
        other => panic!("an unknown method is a protocol error, not {other:?}"),
    }
    match cdp.send(
        "Runtime.evaluate",
        json!({"expression": "1"}),
        Some("no-such-session"),
    ) {
        Err(CallError::Protocol { code, message }) => {
            assert_eq!(code, -32001, "{message}");
            assert!(message.to_lowercase().contains("session"), "{message}");
        }
        other => panic!("an unknown session is a protocol error, not {other:?}"),
    }
    // The connection stays usable after protocol errors.
    cdp.send("Browser.getVersion", json!({}), None)
        .expect("still connected");
    // The browser's /json/protocol tells a method it lacks from one it has (how the runner
    // tells a browser's "method not found" from a guard's).
    assert_eq!(cdp.has_method("Page.navigate"), Some(true));
    assert_eq!(cdp.has_method("Network.overrideNetworkState"), Some(true));
    assert_eq!(cdp.has_method("No.suchMethod"), Some(false));
    cdp.close();
    assert!(cdp.is_closed());
    match cdp.send("Browser.getVersion", json!({}), None) {
        Err(CallError::Transport(why)) => {
            assert!(why.to_string().contains("closed by the client"), "{why}")
        }
        other => panic!("a call after close is a transport error, not {other:?}"),
    }
}

/// The launcher's browser keeps its files in its temporary profile: a download no client chose a
/// folder for (Chromium's default, `~/Downloads` on Linux) lands in the profile's own home, not
/// in the user's.
#[test]
fn chromium_downloads_by_default_into_its_own_home() {
    let Some(browser) = chromium() else { return };
    let cdp = connect(&browser);
    let target = cdp
        .send("Target.createTarget", json!({"url": "about:blank"}), None)
        .expect("a tab");
    let session = cdp
        .attach(target["targetId"].as_str().expect("targetId"))
        .expect("attaches");
    let name = format!("slicc-launch-home-{}.txt", std::process::id());
    let click = format!(
        "const a = document.createElement('a'); a.href = 'data:text/plain,home'; \
         a.download = '{name}'; document.body.appendChild(a); a.click(); 1"
    );
    cdp.send(
        "Runtime.evaluate",
        json!({"expression": click}),
        Some(&session),
    )
    .expect("Runtime.evaluate");
    let ours = browser.profile_dir().join("home/Downloads").join(&name);
    let users = std::env::var_os("HOME").map(|h| Path::new(&h).join("Downloads").join(&name));
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !ours.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let leaked = users.as_ref().is_some_and(|p| p.exists());
    if let Some(p) = users.as_ref().filter(|_| leaked) {
        let _ = std::fs::remove_file(p);
    }
    assert!(!leaked, "the download went to the user's {users:?}");
    assert_eq!(
        std::fs::read_to_string(&ours).ok().as_deref(),
        Some("home"),
        "the download is in the profile's own home: {}",
        ours.display()
    );
}

// ---------------------------------------------------------------------------------------------
// A WebSocket server that misbehaves
// ---------------------------------------------------------------------------------------------

/// Serves one WebSocket connection on a loopback port with `script`; returns its URL.
fn serve(script: impl FnOnce(WebSocket<TcpStream>) + Send + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let (stream, _) = listener.accept().expect("a client");
        let ws = tungstenite::accept(stream).expect("a WebSocket handshake");
        script(ws);
    });
    format!("ws://127.0.0.1:{port}/devtools/browser/fake")
}

/// The next command the client sent: `(id, method, whole command)`.
fn next_command(ws: &mut WebSocket<TcpStream>) -> (u64, String, Value) {
    loop {
        match ws.read().expect("a command") {
            Message::Text(text) => {
                let v: Value = serde_json::from_str(text.as_str()).expect("JSON");
                return (
                    v["id"].as_u64().expect("an id"),
                    v["method"].as_str().expect("a method").to_string(),
                    v,
                );
            }
            Message::Close(_) => panic!("the client closed before sending a command"),
            _ => {}
        }
    }
}

fn text(ws: &mut WebSocket<TcpStream>, value: Value) {
    ws.send(Message::text(value.to_string())).expect("send");
}

fn quick() -> CdpOptions {
    CdpOptions::new()
        .call_timeout(Duration::from_secs(5))
        .connect_timeout(Duration::from_secs(5))
}

#[test]
fn answers_route_by_id_and_events_keep_their_order() {
    let url = serve(|mut ws| {
        // Both calls are in flight at once; they may come in either order.
        let mut got = [next_command(&mut ws), next_command(&mut ws)];
        got.sort_by(|a, b| a.1.cmp(&b.1));
        let [(id1, m1, c1), (id2, m2, c2)] = got;
        assert_eq!(m1, "A.first");
        assert_eq!(c1["params"], json!({"x": 1}));
        assert_eq!(c1.get("sessionId"), None);
        assert_eq!(m2, "B.second");
        assert_eq!(c2["sessionId"], "S1");
        for n in 0..3 {
            text(
                &mut ws,
                json!({"method": "E.event", "params": {"n": n}, "sessionId": "S1"}),
            );
        }
        text(&mut ws, json!({"method": "E.bare"}));
        // Answers out of order: each goes to its own caller.
        text(&mut ws, json!({"id": id2, "result": {"which": 2}}));
        text(&mut ws, json!({"id": id1, "result": {"which": 1}}));
        let (id3, _, _) = next_command(&mut ws);
        text(
            &mut ws,
            json!({"id": id3, "error": {"code": -32000, "message": "Nope", "data": {"why": 1}}}),
        );
        let _ = next_command(&mut ws);
    });
    within(Duration::from_secs(30), move || {
        let cdp = std::sync::Arc::new(CdpClient::connect(&url, quick()).expect("connects"));
        let first = {
            let cdp = std::sync::Arc::clone(&cdp);
            std::thread::spawn(move || cdp.send("A.first", json!({"x": 1}), None))
        };
        let second = cdp.send("B.second", json!({}), Some("S1"));
        assert_eq!(second, Ok(json!({"which": 2})));
        assert_eq!(first.join().unwrap(), Ok(json!({"which": 1})));

        let events = cdp.events_since(0);
        let seen: Vec<(String, Value, Option<String>)> = events
            .into_iter()
            .map(|e| (e.method, e.params, e.session_id))
            .collect();
        assert_eq!(
            seen,
            vec![
                ("E.event".into(), json!({"n": 0}), Some("S1".into())),
                ("E.event".into(), json!({"n": 1}), Some("S1".into())),
                ("E.event".into(), json!({"n": 2}), Some("S1".into())),
                ("E.bare".into(), json!({}), None),
            ]
        );
        assert_eq!(cdp.event_count(), 4);
        assert_eq!(cdp.events_since(2).len(), 2);
        let (at, e) = cdp
            .wait_event(0, &|e| e.params["n"] == 1, Duration::from_secs(1))
            .expect("the second event");
        assert_eq!((at, e.params["n"].as_i64()), (1, Some(1)));
        assert_eq!(
            cdp.wait_event(2, &|e| e.params["n"] == 1, Duration::from_millis(100)),
            None
        );

        assert_eq!(
            cdp.send("C.third", json!({}), None),
            Err(CallError::Protocol {
                code: -32000,
                message: "Nope\n{\"why\":1}".into()
            })
        );
        assert!(cdp.errors().is_empty(), "{:?}", cdp.errors());
    });
}

#[test]
fn wait_event_sees_an_event_that_comes_later() {
    let url = serve(|mut ws| {
        let (id, _, _) = next_command(&mut ws);
        text(&mut ws, json!({"id": id, "result": {}}));
        std::thread::sleep(Duration::from_millis(300));
        text(
            &mut ws,
            json!({"method": "Late.event", "params": {"k": "v"}}),
        );
        let _ = ws.read();
    });
    within(Duration::from_secs(30), move || {
        let cdp = CdpClient::connect(&url, quick()).expect("connects");
        let from = cdp.event_count();
        cdp.send("Go.now", json!({}), None).expect("an answer");
        let (at, e) = cdp
            .wait_event(from, &|e| e.method == "Late.event", Duration::from_secs(10))
            .expect("the late event");
        assert_eq!((at, e.params), (0, json!({"k": "v"})));
    });
}

#[test]
fn garbage_from_the_server_fails_the_pending_call_without_a_panic() {
    let url = serve(|mut ws| {
        let (id, _, _) = next_command(&mut ws);
        // Not JSON, and an answer nobody waits for: logged, the connection goes on.
        text(&mut ws, json!("just a string"));
        ws.send(Message::text("{not json")).unwrap();
        text(&mut ws, json!({"id": 999, "result": {}}));
        text(&mut ws, json!({"id": id, "result": {"ok": true}}));
        let _ = next_command(&mut ws);
        // A frame with reserved bits set: a protocol violation, mid-call.
        let stream = ws.get_mut();
        stream.write_all(&[0xF1, 0x02, b'h', b'i']).unwrap();
        stream.flush().unwrap();
        std::thread::sleep(Duration::from_secs(2));
    });
    within(Duration::from_secs(30), move || {
        let cdp = CdpClient::connect(&url, quick()).expect("connects");
        assert_eq!(
            cdp.send("First.call", json!({}), None),
            Ok(json!({"ok": true}))
        );
        let errors = cdp.errors();
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert!(errors[0].contains("not a JSON object"), "{errors:?}");
        assert!(errors[1].contains("not JSON"), "{errors:?}");
        assert!(errors[2].contains("id 999"), "{errors:?}");

        match cdp.send("Second.call", json!({}), None) {
            Err(CallError::Transport(why)) => {
                assert!(why.to_string().contains("malformed"), "{why}")
            }
            other => panic!("a malformed frame fails the call, not {other:?}"),
        }
        assert!(cdp.is_closed());
        assert!(cdp.errors().iter().any(|e| e.contains("malformed")));
        // Later calls fail at once, and waiting for events does not wait.
        assert!(matches!(
            cdp.send("Third.call", json!({}), None),
            Err(CallError::Transport(_))
        ));
        assert_eq!(cdp.wait_event(0, &|_| true, Duration::from_secs(60)), None);
    });
}

#[test]
fn a_connection_closed_mid_call_fails_the_call() {
    let url = serve(|mut ws| {
        let _ = next_command(&mut ws);
        // Drop the TCP connection without a close frame.
        let _ = ws.get_mut().shutdown(std::net::Shutdown::Both);
    });
    within(Duration::from_secs(30), move || {
        let cdp = CdpClient::connect(&url, quick()).expect("connects");
        match cdp.send("Never.answered", json!({}), None) {
            Err(CallError::Transport(why)) => {
                assert!(
                    ["dropped", "closed", "failed"]
                        .iter()
                        .any(|w| why.to_string().contains(w)),
                    "{why}"
                )
            }
            other => panic!("a dropped connection fails the call, not {other:?}"),
        }
        assert!(cdp.is_closed());
    });
}

#[test]
fn a_close_frame_mid_call_fails_the_call_with_its_reason() {
    let url = serve(|mut ws| {
        let _ = next_command(&mut ws);
        let _ = ws.close(Some(tungstenite::protocol::CloseFrame {
            code: tungstenite::protocol::frame::coding::CloseCode::Away,
            reason: "going".into(),
        }));
        let _ = ws.flush();
        std::thread::sleep(Duration::from_millis(500));
    });
    within(Duration::from_secs(30), move || {
        let cdp = CdpClient::connect(&url, quick()).expect("connects");
        match cdp.send("Never.answered", json!({}), None) {
            Err(CallError::Transport(why)) => {
                assert!(why.to_string().contains("1001: going"), "{why}")
            }
            other => panic!("a close frame fails the call, not {other:?}"),
        }
        assert!(cdp.is_closed());
    });
}

#[test]
fn close_fails_a_call_pending_on_another_thread() {
    let url = serve(|mut ws| {
        let _ = next_command(&mut ws); // never answered
        let _ = ws.read();
    });
    within(Duration::from_secs(30), move || {
        let cdp = std::sync::Arc::new(CdpClient::connect(&url, quick()).expect("connects"));
        let from = cdp.event_count();
        let waiter = {
            let cdp = std::sync::Arc::clone(&cdp);
            std::thread::spawn(move || cdp.wait_event(from, &|_| true, Duration::from_secs(60)))
        };
        let caller = {
            let cdp = std::sync::Arc::clone(&cdp);
            std::thread::spawn(move || cdp.send("Never.answered", json!({}), None))
        };
        std::thread::sleep(Duration::from_millis(300));
        cdp.close();
        cdp.close(); // twice is harmless
        assert!(cdp.is_closed());
        assert_eq!(cdp.closed_reason().as_deref(), Some("closed by the client"));
        assert_eq!(
            caller.join().unwrap(),
            Err(CallError::Transport(TransportError::Closed(
                Closed::ByClient
            )))
        );
        assert_eq!(
            waiter.join().unwrap(),
            None,
            "a waiter wakes up when the client closes"
        );
    });
}

#[test]
fn an_oversized_message_ends_the_connection() {
    let url = serve(|mut ws| {
        let (id, _, _) = next_command(&mut ws);
        text(
            &mut ws,
            json!({"id": id, "result": {"big": "x".repeat(4096)}}),
        );
        std::thread::sleep(Duration::from_secs(1));
    });
    within(Duration::from_secs(30), move || {
        let cdp = CdpClient::connect(&url, quick().max_message_size(1024)).expect("connects");
        match cdp.send("Big.answer", json!({}), None) {
            Err(CallError::Transport(why)) => {
                assert!(why.to_string().contains("oversized"), "{why}")
            }
            other => panic!("an oversized answer fails the call, not {other:?}"),
        }
    });
}

#[test]
fn no_answer_is_a_timeout_and_the_client_goes_on() {
    let url = serve(|mut ws| {
        let _ = next_command(&mut ws); // never answered
        let (id, _, _) = next_command(&mut ws);
        text(&mut ws, json!({"id": id, "result": {"second": true}}));
        let _ = ws.read();
    });
    within(Duration::from_secs(30), move || {
        let cdp = CdpClient::connect(&url, quick()).expect("connects");
        assert_eq!(
            cdp.send_timeout("Slow.call", json!({}), None, Duration::from_millis(300)),
            Err(CallError::Timeout)
        );
        assert_eq!(
            cdp.send("Next.call", json!({}), None),
            Ok(json!({"second": true}))
        );
        // Dropping while the server still holds the connection does not hang.
        drop(cdp);
    });
}

#[test]
fn the_event_log_is_bounded() {
    let url = serve(|mut ws| {
        let (id, _, _) = next_command(&mut ws);
        for n in 0..5 {
            text(&mut ws, json!({"method": "E.n", "params": {"n": n}}));
        }
        text(&mut ws, json!({"id": id, "result": {}}));
        let _ = ws.read();
    });
    within(Duration::from_secs(30), move || {
        let cdp = CdpClient::connect(&url, quick().max_events(3)).expect("connects");
        cdp.send("Go.now", json!({}), None).expect("an answer");
        let ns: Vec<Value> = cdp
            .events_since(0)
            .into_iter()
            .map(|e| e.params["n"].clone())
            .collect();
        assert_eq!(ns, vec![json!(0), json!(1), json!(2)]);
        assert_eq!(cdp.dropped_events(), 2);
        assert!(cdp.errors().iter().any(|e| e.contains("event log is full")));
    });
}

#[test]
fn bad_endpoints_are_transport_errors() {
    // Port 0: a connection to it is always refused (a port bound and freed here could be
    // taken at once by another test's server).
    let port = 0;
    let refused = CdpClient::connect(&format!("ws://127.0.0.1:{port}/x"), quick());
    assert!(
        matches!(&refused, Err(CallError::Transport(why)) if why.to_string().contains("cannot connect")),
        "{refused:?}"
    );
    let wss = CdpClient::connect("wss://127.0.0.1:1/x", quick());
    assert!(
        matches!(&wss, Err(CallError::Transport(why)) if why.to_string().contains("wss://")),
        "{wss:?}"
    );
    let http = websocket_url(&format!("http://127.0.0.1:{port}"), Duration::from_secs(2));
    assert!(
        matches!(&http, Err(CallError::Transport(why)) if why.to_string().contains("refused")),
        "{http:?}"
    );
    // Not a WebSocket server: the handshake fails, it does not hang.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let _ = s.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
        std::thread::sleep(Duration::from_secs(1));
    });
    let not_ws = within(Duration::from_secs(30), move || {
        CdpClient::connect(&format!("ws://127.0.0.1:{port}/x"), quick()).map(|_| ())
    });
    assert!(
        matches!(&not_ws, Err(CallError::Transport(why)) if why.to_string().contains("handshake")),
        "{not_ws:?}"
    );
}
