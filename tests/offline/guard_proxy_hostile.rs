//! `guard proxy` against a hostile client, with a stand-in browser (a WebSocket server that
//! answers every command with an empty result): what the client puts in its messages never
//! makes a log line large, and odd WebSocket framing (a message in a thousand fragments,
//! fragments past the size limit, a flood of pings, a binary frame that is not UTF-8, JSON
//! nested past any parser's depth) gets an answer or a close with the reason, never a panic,
//! and leaves the proxy serving with its threads and descriptors back to idle.
//!
//! One test function, so that the process's thread and descriptor counts are the proxy's and
//! the stand-in's alone. No browser needed.
#![cfg(all(feature = "guard-proxy", unix))]

use crate::proxy_common;

use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use serde_json::{json, Value};
use slicc_browsers::guard::proxy::{Proxy, ProxyLog, ProxyOptions};
use tungstenite::protocol::frame::coding::{CloseCode, Data, OpCode};
use tungstenite::protocol::frame::Frame;
use tungstenite::Message;

use proxy_common::{call, counts, eventually, Sink, Ws};

/// A stand-in browser: a WebSocket server at `ws://127.0.0.1:<port>/devtools/browser/fake`
/// answering each command `{"id": n, "result": {}}` (on its session), one thread per
/// connection.
fn fake_browser() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            std::thread::spawn(move || {
                let Some(mut ws) = proxy_common::accept_like_chromium(stream) else {
                    return;
                };
                while let Ok(m) = ws.read() {
                    let Message::Text(t) = m else { continue };
                    let Ok(v) = serde_json::from_str::<Value>(t.as_str()) else {
                        continue;
                    };
                    let mut answer = json!({"id": v["id"], "result": {}});
                    if let Some(s) = v.get("sessionId") {
                        answer["sessionId"] = s.clone();
                    }
                    if ws.send(Message::text(answer.to_string())).is_err() {
                        return;
                    }
                }
            });
        }
    });
    format!("ws://127.0.0.1:{port}/devtools/browser/fake")
}

fn connect(url: &str) -> Ws {
    let (ws, _) = tungstenite::connect(url).expect("the proxy's WebSocket");
    ws
}

/// Sends a raw frame (tungstenite masks it as a client must) and flushes it.
fn frame(ws: &mut Ws, f: Frame) {
    ws.write(Message::Frame(f)).expect("written");
    ws.flush().expect("flushed");
}

/// Reads until an answer with `id` (skipping events and pongs); `None` when the connection
/// closes first.
fn answer(ws: &mut Ws, id: i64) -> Option<Value> {
    loop {
        match ws.read() {
            Ok(Message::Text(t)) => {
                let v: Value = serde_json::from_str(t.as_str()).unwrap();
                if v["id"] == json!(id) {
                    return Some(v);
                }
            }
            Ok(Message::Close(_)) | Err(_) => return None,
            Ok(_) => {}
        }
    }
}

/// Reads until the connection closes: the close frame's code and reason, if one came.
fn close_of(ws: &mut Ws) -> Option<(CloseCode, String)> {
    loop {
        match ws.read() {
            Ok(Message::Close(c)) => return c.map(|c| (c.code, c.reason.to_string())),
            Ok(_) => {}
            Err(_) => return None,
        }
    }
}

#[test]
fn hostile_clients_get_answers_or_closes_and_leave_nothing_behind() {
    // It compares the process's thread and descriptor counts: no other test may run beside it.
    if !proxy_common::alone(concat!(
        module_path!(),
        "::hostile_clients_get_answers_or_closes_and_leave_nothing_behind"
    )) {
        return;
    }
    let upstream = fake_browser();
    let sink = Sink::default();
    let mut options = ProxyOptions::new(&upstream);
    options.log = Some(ProxyLog::new(sink.clone()));
    let proxy = Proxy::start(options).expect("the proxy starts");
    let url = proxy.websocket_url();
    let idle = {
        let mut ws = connect(&url);
        call(&mut ws, 1, "Browser.getVersion", json!({}), None);
        drop(ws);
        std::thread::sleep(Duration::from_millis(200));
        counts()
    };

    // 1. What a client puts in a refused or invalid message is quoted in the log cut short:
    // a 1 MiB session id or method made a 1 MiB log line before.
    let mut ws = connect(&url);
    let mib = 1 << 20;
    let big = "S".repeat(mib);
    let sent = [
        json!({"id": 10, "method": "Runtime.evaluate", "sessionId": big}),
        json!({"id": 11, "method": {"name": big}}),
        json!({"id": 12, "method": big.clone(), "params": []}),
        json!({"id": 13, "method": "Target.sendMessageToTarget", "params": {"message": big}}),
    ];
    for (i, m) in sent.iter().enumerate() {
        ws.send(Message::text(m.to_string())).unwrap();
        let a = answer(&mut ws, 10 + i as i64).expect("an answer");
        assert!(a["error"]["message"].is_string(), "{:.200}", a.to_string());
    }
    let log = sink.text();
    let lines: Vec<&str> = log
        .lines()
        .filter(|l| l.contains(r#""event":"invalid""#) || l.contains(r#""event":"refused""#))
        .collect();
    assert_eq!(lines.len(), 4, "{:.2000}", log);
    for l in &lines {
        assert!(
            l.len() < 1024,
            "a log line of {} bytes: {:.300}",
            l.len(),
            l
        );
    }
    assert!(
        lines[0].contains(&format!("… ({mib} bytes)")),
        "{}",
        lines[0]
    );
    assert!(lines[1].contains(r#""method":null"#), "{}", lines[1]);
    assert!(
        lines[3].contains("Target.sendMessageToTarget"),
        "{}",
        lines[3]
    );

    // 2. A command in a thousand fragments is one message.
    let command = json!({"id": 20, "method": "Browser.getVersion",
        "params": {"pad": "x".repeat(9_000)}})
    .to_string();
    let chunks: Vec<&[u8]> = command.as_bytes().chunks(10).collect();
    assert!(chunks.len() > 900);
    for (i, c) in chunks.iter().enumerate() {
        let opcode = if i == 0 { Data::Text } else { Data::Continue };
        let fin = i + 1 == chunks.len();
        frame(
            &mut ws,
            Frame::message(c.to_vec(), OpCode::Data(opcode), fin),
        );
    }
    assert!(answer(&mut ws, 20).expect("answered")["result"].is_object());

    // 3. Ten thousand pings: each answered, and the connection still serves.
    let mut pongs = 0;
    for batch in 0..100 {
        for i in 0..100 {
            frame(&mut ws, Frame::ping(vec![(batch + i) as u8; 125]));
        }
        ws.send(Message::text(
            json!({"id": 1000 + batch, "method": "Browser.getVersion"}).to_string(),
        ))
        .unwrap();
        loop {
            match ws.read().expect("open") {
                Message::Pong(_) => pongs += 1,
                Message::Text(t) if t.contains(&format!(r#""id":{}"#, 1000 + batch)) => break,
                _ => {}
            }
        }
    }
    assert!(pongs >= 9_000, "{pongs} pongs for 10,000 pings");

    // 4. JSON nested past any parser's depth: an error answer, the connection stays.
    let deep_list = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep_params = format!(
        r#"{{"id":31,"method":"Runtime.evaluate","params":{}1{}}}"#,
        r#"{"a":"#.repeat(100_000),
        "}".repeat(100_000)
    );
    for (deep, code) in [(deep_list, -32600), (deep_params, -32700)] {
        ws.send(Message::text(deep)).unwrap();
        let a = loop {
            let Message::Text(t) = ws.read().expect("an answer") else {
                continue;
            };
            break serde_json::from_str::<Value>(t.as_str()).unwrap();
        };
        assert_eq!(a["error"]["code"], json!(code), "{a}");
    }
    call(&mut ws, 30, "Browser.getVersion", json!({}), None);

    // 5. Fragments past the 16 MiB message limit: closed as too big.
    for i in 0..20 {
        let opcode = if i == 0 { Data::Text } else { Data::Continue };
        if ws
            .write(Message::Frame(Frame::message(
                vec![b' '; mib],
                OpCode::Data(opcode),
                false,
            )))
            .and_then(|()| ws.flush())
            .is_err()
        {
            break;
        }
    }
    let (code, why) = close_of(&mut ws).expect("a close frame");
    assert_eq!(code, CloseCode::Size, "{why}");
    assert!(why.contains("message too big"), "{why}");

    // 6. A binary frame that is not UTF-8: closed with the reason.
    drop(ws);
    let mut ws = connect(&url);
    ws.send(Message::binary(vec![0xff, 0xfe, b'{'])).unwrap();
    let (code, why) = close_of(&mut ws).expect("a close frame");
    assert_eq!(code, CloseCode::Unsupported, "{why}");

    // 6b. A text frame that is not UTF-8: closed 1007 with the reason (was dropped without a
    // close frame).
    drop(ws);
    let mut ws = connect(&url);
    frame(
        &mut ws,
        Frame::message(vec![b'{', 0xff, 0xfe, b'}'], OpCode::Data(Data::Text), true),
    );
    let (code, why) = close_of(&mut ws).expect("a close frame");
    assert_eq!(code, CloseCode::Invalid, "{why}");
    assert!(why.contains("not UTF-8"), "{why}");

    // 7. A frame the protocol forbids (a fragmented ping): closed as a protocol error.
    drop(ws);
    let mut ws = connect(&url);
    let mut ping = Frame::ping(vec![1]);
    ping.header_mut().is_final = false;
    frame(&mut ws, ping);
    let (code, why) = close_of(&mut ws).expect("a close frame");
    assert_eq!(code, CloseCode::Protocol, "{why}");

    // 8. A request head sent a line every half second: answered 408 and closed once it has
    // taken 10 s (before, each read had 10 s, so a trickle held its slot for as long as it
    // liked; 64 of them and every client got 503).
    let mut s = TcpStream::connect(proxy.addr()).unwrap();
    s.write_all(b"GET /json/version HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    let mut got = Vec::new();
    let mut lines = 0;
    while lines < 60 {
        std::thread::sleep(Duration::from_millis(500));
        if s.write_all(b"X-Slow: 1\r\n").is_err() {
            break;
        }
        lines += 1;
        s.set_read_timeout(Some(Duration::from_millis(1))).unwrap();
        let mut chunk = [0u8; 1024];
        match s.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == ErrorKind::WouldBlock || e.kind() == ErrorKind::TimedOut => {}
            Err(_) => break,
        }
        if !got.is_empty() {
            break;
        }
    }
    assert!(
        lines < 60,
        "the proxy still read a head after {lines} slow lines"
    );
    let answer = String::from_utf8_lossy(&got).to_string();
    assert!(answer.starts_with("HTTP/1.1 408 "), "{answer:?}");
    assert!(
        answer.contains("the request head took longer than 10 s"),
        "{answer:?}"
    );
    drop(s);

    // The proxy still serves, and every connection's threads and descriptors are gone.
    drop(ws);
    let mut ws = connect(&url);
    call(&mut ws, 40, "Browser.getVersion", json!({}), None);
    drop(ws);
    let settled = eventually(Duration::from_secs(20), || counts() == idle);
    assert!(
        settled,
        "threads and descriptors {:?}, idle {idle:?}",
        counts()
    );
    drop(proxy);

    // Each connection's close line says why it ended.
    let log = sink.text();
    let whys: Vec<String> = log
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["event"] == "close")
        .map(|v| v["why"].as_str().expect("a why on every close").to_string())
        .collect();
    assert_eq!(whys.len(), 7, "{whys:#?}");
    for want in [
        "message too big",
        "a binary frame that is not UTF-8 JSON",
        "a text frame that is not UTF-8",
        "WebSocket protocol error (Fragmented control frame)",
        "the client went away without closing",
    ] {
        assert!(
            whys.iter().any(|w| w.starts_with(want)),
            "{want}: {whys:#?}"
        );
    }
}
