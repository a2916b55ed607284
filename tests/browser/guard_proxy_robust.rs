//! `guard proxy` as an operator runs it: bad answers from the browser's HTTP endpoint, the
//! connection limit and its slot release, the log, a client that disconnects mid-command
//! (threads and descriptors back to their idle count), a client that stops reading (it stalls
//! only itself), and the browser going away and coming back on the same port.
//!
//! One test function, so that the process's thread and descriptor counts are the proxy's
//! alone. The parts with a browser launch their own headless Chromium (temporary profile,
//! `--remote-debugging-port=0` or the port the first one got, process group killed at the end)
//! and are skipped with the reason printed where /usr/bin/chromium is absent (failed under CI).
#![cfg(all(feature = "guard-proxy", feature = "guard-runner", unix))]

use crate::needs;
use crate::proxy_common;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use slicc_browsers::guard::proxy::{Proxy, ProxyLog, ProxyOptions, DEFAULT_MAX_CONNECTIONS};
use tungstenite::Message;

use proxy_common::{call, counts, eventually, handshake_with_frame, http_get, Sink};

/// A stand-in for a browser's DevTools HTTP endpoint that answers `/json/version` and
/// `/json/list` with whatever the test puts in `answers`, and takes a WebSocket (a
/// `ws://` upstream is tried once when the proxy starts) without saying anything on it.
struct FakeEndpoint {
    port: u16,
    answers: Arc<Mutex<(Vec<u8>, Vec<u8>)>>,
}

impl FakeEndpoint {
    fn start() -> FakeEndpoint {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let answers = Arc::new(Mutex::new((Vec::new(), Vec::new())));
        let shared = Arc::clone(&answers);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                // The whole request head, left in the socket for whoever answers it.
                let mut peeked = [0u8; 2048];
                let mut n = 0;
                let until = Instant::now() + Duration::from_secs(2);
                while Instant::now() < until {
                    n = stream.peek(&mut peeked).unwrap_or(0);
                    if n == 0
                        || n == peeked.len()
                        || peeked[..n].windows(4).any(|w| w == b"\r\n\r\n")
                    {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
                if String::from_utf8_lossy(&peeked[..n])
                    .to_ascii_lowercase()
                    .contains("upgrade: websocket")
                {
                    std::thread::spawn(move || {
                        if let Some(mut ws) = proxy_common::accept_like_chromium(stream) {
                            while ws.read().is_ok() {}
                        }
                    });
                    continue;
                }
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    match stream.read(&mut byte) {
                        Ok(1) => head.push(byte[0]),
                        _ => break,
                    }
                }
                let text = String::from_utf8_lossy(&head);
                let body = {
                    let a = shared.lock().unwrap();
                    if text.starts_with("GET /json/version") {
                        a.0.clone()
                    } else {
                        a.1.clone()
                    }
                };
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(&body);
            }
        });
        FakeEndpoint { port, answers }
    }

    fn answer(&self, version: &[u8], list: &[u8]) {
        *self.answers.lock().unwrap() = (version.to_vec(), list.to_vec());
    }
}

/// A headless Chromium of the test's own on `port` (0: any), in its own process group.
struct Browser {
    child: Child,
    dir: PathBuf,
    port: u16,
}

impl Browser {
    fn launch(port: u16) -> Browser {
        let dir = std::env::temp_dir().join(format!(
            "slicc-proxy-robust-{}-{}",
            std::process::id(),
            Instant::now().elapsed().as_nanos() ^ u128::from(port) ^ rand_tag()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let mut command = Command::new("/usr/bin/chromium");
        command
            .arg("--headless=new")
            .arg(format!("--remote-debugging-port={port}"))
            .arg(format!("--user-data-dir={}", dir.display()))
            .args([
                "--no-first-run",
                "--no-default-browser-check",
                "about:blank",
            ])
            // Chromium makes its singleton socket's folder in TMPDIR; a killed one leaves it.
            .env("TMPDIR", &dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if is_root() {
            command.arg("--no-sandbox");
        }
        use std::os::unix::process::CommandExt;
        command.process_group(0);
        let child = command.spawn().expect("chromium starts");
        // With port 0 Chromium writes the port it got to DevToolsActivePort; with a port of
        // its own it does not, and answers there.
        let file = dir.join("DevToolsActivePort");
        let mut found = 0;
        assert!(
            eventually(Duration::from_secs(30), || {
                found = if port == 0 {
                    std::fs::read_to_string(&file)
                        .ok()
                        .and_then(|t| t.lines().next()?.trim().parse().ok())
                        .unwrap_or(0)
                } else if http_get(&format!("127.0.0.1:{port}"), "/json/version").0 == 200 {
                    port
                } else {
                    0
                };
                found != 0
            }),
            "chromium serves CDP"
        );
        Browser {
            child,
            dir,
            port: found,
        }
    }

    fn kill(&mut self) {
        let pgid = self.child.id();
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{pgid}")])
            .status();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        self.kill();
    }
}

fn rand_tag() -> u128 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u8(0);
    u128::from(h.finish())
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false)
}

#[test]
fn the_proxy_holds_up_as_an_operator_needs() {
    // It compares the process's thread and descriptor counts: no other test may run beside it.
    if !proxy_common::alone(concat!(
        module_path!(),
        "::the_proxy_holds_up_as_an_operator_needs"
    )) {
        return;
    }
    // ---- A browser endpoint that answers badly: errors, never a panic.
    let fake = FakeEndpoint::start();
    let sink = Sink::default();
    let mut options = ProxyOptions::new(&format!(
        "ws://127.0.0.1:{}/devtools/browser/fake",
        fake.port
    ));
    options.max_connections = 2;
    options.log = Some(ProxyLog::new(sink.clone()));
    let proxy = Proxy::start(options).expect("the proxy starts");
    let addr = proxy.addr().to_string();
    let huge = vec![b' '; 9 << 20];
    for (version, why) in [
        (&b"not json"[..], "JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b"{}", "no webSocketDebuggerUrl"),
        (b"{\"webSocketDebuggerUrl\": 5}", "no webSocketDebuggerUrl"),
        (&huge[..], ""),
    ] {
        fake.answer(version, b"[]");
        let (status, body) = http_get(&addr, "/json/version");
        assert_eq!(status, 502, "{body}");
        assert!(body.contains(why), "{why:?} in {body}");
    }
    for (list, why) in [(&b"{}"[..], "not a JSON array"), (b"nope", "JSON")] {
        fake.answer(b"{}", list);
        let (status, body) = http_get(&addr, "/json/list");
        assert_eq!(status, 502, "{body}");
        assert!(body.contains(why), "{why:?} in {body}");
    }
    // (A list that is an array is judged over CDP, which this stand-in does not speak.)

    // ---- The connection limit: over it, the documented 503; a slot comes back when its
    // connection ends.
    assert_eq!(DEFAULT_MAX_CONNECTIONS, 64);
    let idle_a = TcpStream::connect(&addr).unwrap();
    let idle_b = TcpStream::connect(&addr).unwrap();
    // (Once the proxy has taken both: under load that can take a moment.)
    let (mut status, mut body) = (0, String::new());
    eventually(Duration::from_secs(10), || {
        (status, body) = http_get(&addr, "/json/list");
        status == 503
    });
    assert_eq!(status, 503, "{body}");
    assert_eq!(
        body,
        "slicc-browsers guard proxy: too many connections (limit 2)\n"
    );
    drop(idle_a);
    drop(idle_b);
    assert!(
        eventually(Duration::from_secs(5), || http_get(&addr, "/json/version")
            .0
            == 502),
        "the slots came back"
    );
    let log = sink.lines();
    assert!(
        log.iter()
            .any(|l| l["event"] == "over-limit" && l["why"] == "2 connections open"),
        "{log:?}"
    );
    assert!(log.iter().any(|l| l["event"] == "open"));
    assert!(log.iter().any(|l| l["event"] == "close"));
    drop(proxy);

    // ---- With a browser.
    if needs::missing("/usr/bin/chromium", needs::chromium()) {
        return;
    }
    let mut browser = Browser::launch(0);
    let port = browser.port;
    let sink = Sink::default();
    let mut options = ProxyOptions::new(&format!("http://127.0.0.1:{port}"));
    options.log = Some(ProxyLog::new(sink.clone()));
    options.write_timeout = Duration::from_secs(1);
    let proxy = Proxy::start(options).expect("the proxy starts");
    let ws_url = proxy.websocket_url();

    // The log: a refusal, with the method and why.
    let (mut ws, _) = tungstenite::connect(&ws_url).expect("a client");
    // (Commands that come before the policy is ready are judged as it gets ready; the log
    // names refusals judged as they arrive.)
    call(&mut ws, 9, "Browser.getVersion", json!({}), None);
    let refused = call(
        &mut ws,
        1,
        "Target.createTarget",
        json!({"url": "https://seven.sliccy.ai/"}),
        None,
    );
    assert!(refused["error"]["message"]
        .as_str()
        .is_some_and(|m| m.starts_with("slicc: refused")));
    assert!(
        eventually(Duration::from_secs(2), || sink.lines().iter().any(|l| l
            ["event"]
            == "refused"
            && l["method"] == "Target.createTarget"
            && l["id"] == 1
            && l["from"] == "client"
            && l["why"].as_str().is_some_and(|w| !w.is_empty()))),
        "{:?}",
        sink.lines()
    );
    // A refusal of a command that came before the policy was ready (held, then refused):
    // logged too, with its method. The command comes in the same packet as the handshake, so
    // the relay reads it before the browser has answered the policy's discovery.
    let text = handshake_with_frame(
        &ws_url,
        br#"{"id":41,"method":"Target.createTarget","params":{"url":"https://seven.sliccy.ai/"}}"#,
        "slicc: refused",
    );
    assert!(text.contains("slicc: refused"), "{text:?}");
    assert!(
        eventually(Duration::from_secs(2), || sink.lines().iter().any(|l| l
            ["event"]
            == "refused"
            && l["method"] == "Target.createTarget"
            && l["id"] == 41
            && l["why"].as_str().is_some_and(|w| !w.is_empty()))),
        "{:?}",
        sink.lines()
    );
    let early_line = sink
        .lines()
        .into_iter()
        .find(|l| l["event"] == "refused" && l["id"] == 41);
    println!("the early refusal's log line: {early_line:?}");
    let page = call(
        &mut ws,
        2,
        "Target.createTarget",
        json!({"url": "about:blank"}),
        None,
    );
    let target = page["result"]["targetId"].as_str().unwrap().to_string();
    let session = call(
        &mut ws,
        3,
        "Target.attachToTarget",
        json!({"targetId": target, "flatten": true}),
        None,
    )["result"]["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    drop(ws);

    // Idle counts, after one connection came and went.
    let settled = |want: (usize, usize)| {
        eventually(Duration::from_secs(10), || {
            let now = counts();
            now.0 <= want.0 && now.1 <= want.1
        })
    };
    std::thread::sleep(Duration::from_millis(500));
    let idle = counts();

    // ---- A client that disconnects mid-command leaves nothing behind.
    for round in 0..3 {
        let (mut ws, _) = tungstenite::connect(&ws_url).expect("a client");
        let slow = json!({"id": 7, "method": "Runtime.evaluate", "sessionId": session,
            "params": {"expression": "new Promise(r => setTimeout(r, 3000))", "awaitPromise": true}});
        // The session belongs to the earlier connection: attach again on this one.
        let s = call(
            &mut ws,
            1,
            "Target.attachToTarget",
            json!({"targetId": target, "flatten": true}),
            None,
        )["result"]["sessionId"]
            .as_str()
            .unwrap()
            .to_string();
        let mut slow = slow;
        slow["sessionId"] = json!(s);
        ws.send(Message::text(slow.to_string())).unwrap();
        ws.flush().unwrap();
        std::thread::sleep(Duration::from_millis(100));
        drop(ws);
        assert!(
            settled(idle),
            "round {round}: threads and descriptors back to idle {idle:?}, now {:?}",
            counts()
        );
    }

    // ---- A client that stops reading stalls only itself.
    let (mut stuck, _) = tungstenite::connect(&ws_url).expect("a client");
    let s = call(
        &mut stuck,
        1,
        "Target.attachToTarget",
        json!({"targetId": target, "flatten": true}),
        None,
    )["result"]["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    for id in 10..70 {
        let big = json!({"id": id, "method": "Runtime.evaluate", "sessionId": s,
            "params": {"expression": "'x'.repeat(1 << 20)", "returnByValue": true}});
        stuck.send(Message::text(big.to_string())).unwrap();
    }
    stuck.flush().unwrap();
    let (mut other, _) = tungstenite::connect(&ws_url).expect("another client");
    for id in 1..20 {
        let started = Instant::now();
        let v = call(&mut other, id, "Browser.getVersion", json!({}), None);
        assert!(v["result"]["product"].is_string(), "{v}");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the other client waited {:?}",
            started.elapsed()
        );
    }
    // The stuck client's connection ends (its writes time out).
    let conns_closed = || {
        sink.lines()
            .iter()
            .filter(|l| l["event"] == "close")
            .count()
    };
    let before = conns_closed();
    assert!(
        eventually(Duration::from_secs(20), || conns_closed() > before),
        "the stuck client's connection ended"
    );
    drop(stuck);
    drop(other);

    // ---- The browser goes away: its client gets a close frame with the reason; a new client
    // a clear HTTP error.
    let (mut ws, _) = tungstenite::connect(&ws_url).expect("a client");
    call(&mut ws, 1, "Browser.getVersion", json!({}), None);
    browser.kill();
    let mut reason = None;
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        match ws.read() {
            Ok(Message::Close(Some(frame))) => {
                reason = Some(frame.reason.to_string());
                break;
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    let reason = reason.expect("a close frame");
    assert!(reason.contains("the browser"), "{reason}");
    match tungstenite::connect(&ws_url) {
        Err(tungstenite::Error::Http(r)) => {
            assert_eq!(r.status(), 502);
            let body = String::from_utf8_lossy(r.body().as_deref().unwrap_or_default()).to_string();
            assert!(body.contains(&format!("127.0.0.1:{port}")), "{body}");
        }
        other => panic!("a new client with the browser gone: {other:?}"),
    }
    let (status, body) = http_get(&proxy.addr().to_string(), "/json/version");
    assert_eq!(status, 502, "{body}");

    // ---- The browser comes back on the same port: the next client finds its new WebSocket.
    let again = Browser::launch(port);
    assert_eq!(again.port, port);
    let (mut ws, _) = tungstenite::connect(&ws_url).expect("a client after the restart");
    let v = call(&mut ws, 1, "Browser.getVersion", json!({}), None);
    assert!(v["result"]["product"].is_string(), "{v}");
    drop(ws);
    drop(proxy);
    drop(again);
}
