//! `guard proxy` in front of a headless Chromium this test launches (skipped with the reason
//! printed where /usr/bin/chromium is absent, failed when `CI` is set), with the stand-in
//! fixture serving every host: the attacks through the proxy fail, the controls work, an
//! unguarded connection straight to Chromium sees what really happened, and hostile clients
//! get errors or closed connections.
#![cfg(all(feature = "guard-proxy", feature = "guard-runner", unix))]

use crate::needs;
use crate::proxy_common;

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use slicc_browsers::guard::proxy::{Proxy, ProxyOptions};
use slicc_browsers::harness::cdp::{CdpClient, CdpOptions};
use slicc_browsers::harness::fixture::{Fixture, FixtureOptions};
use slicc_browsers::harness::runner::{CallError, Transport};
use slicc_browsers::harness::selftest::Chromium;
use tungstenite::Message;

use proxy_common::{
    closes, eventually, handshake_with_frame, http_get, raw_http, CHROMIUM, REFUSAL,
};

/// Starts Chromium (the crate's own launcher) with the stand-in's hosts mapped to the fixture,
/// or `None` with the reason printed when it is not installed; under `CI` its absence is a
/// failure.
fn chromium(fixture_port: u16) -> Option<Chromium> {
    if needs::missing(CHROMIUM, Path::new(CHROMIUM).exists()) {
        return None;
    }
    let hosts = ["*.sliccy.ai", "sliccy.ai", "ordinary.test"];
    Some(Chromium::launch(CHROMIUM, &hosts, fixture_port).expect("chromium serves CDP"))
}

fn client(endpoint: &str) -> CdpClient {
    CdpClient::connect_endpoint(
        endpoint,
        CdpOptions::new().call_timeout(Duration::from_secs(20)),
    )
    .unwrap_or_else(|e| panic!("connects to {endpoint}: {e}"))
}

fn refused(r: Result<Value, CallError>) -> bool {
    matches!(r, Err(CallError::Protocol { ref message, .. }) if message.contains(REFUSAL))
}

/// Waits until the fixture logged a request whose URL contains `needle`.
fn logged(fixture: &Fixture, needle: &str, within: Duration) -> bool {
    eventually(within, || {
        fixture.log().iter().any(|e| e.url.contains(needle))
    })
}

/// The stand-in, a Chromium of the test's own with its hosts mapped to it, and a `guard proxy`
/// with the default options in front; `None` (the reason printed) without Chromium.
fn proxied() -> Option<(Fixture, Chromium, Proxy)> {
    let fixture = Fixture::start(FixtureOptions::default()).expect("the fixture serves");
    let browser = chromium(fixture.port())?;
    let proxy = Proxy::start(ProxyOptions::new(&browser.http_url())).expect("the proxy starts");
    Some((fixture, browser, proxy))
}

#[test]
fn proxy_stops_the_attacks_and_keeps_the_controls() {
    let Some((fixture, browser, proxy)) = proxied() else {
        return;
    };
    let upstream = browser.http_url();
    let addr = proxy.addr().to_string();
    let tag = format!("p{}", std::process::id());

    // /json/version points at the proxy.
    let (status, body) = http_get(&addr, "/json/version");
    assert_eq!(status, 200, "{body}");
    let version: Value = serde_json::from_str(&body).unwrap();
    let ws = version["webSocketDebuggerUrl"].as_str().unwrap();
    assert!(
        ws.starts_with(&format!("ws://{addr}/devtools/browser/")),
        "{ws}"
    );
    assert_eq!(ws, proxy.websocket_url());

    // A seven tab the client never touched (opened straight on Chromium).
    let direct = client(&upstream);
    let seven_doc = format!("http://seven.sliccy.ai/doc?n=tab-{tag}");
    let seven_tab = direct
        .send("Target.createTarget", json!({"url": seven_doc}), None)
        .unwrap();
    let seven_id = seven_tab["targetId"].as_str().unwrap().to_string();
    assert!(logged(
        &fixture,
        &format!("tab-{tag}"),
        Duration::from_secs(20)
    ));

    // An ordinary tab, so the lists below are not empty (the browser's own first tab is on
    // chrome://newtab/, a browser-internal page the guard hides).
    direct
        .send(
            "Target.createTarget",
            json!({"url": format!("http://ordinary.test/doc?n=listed-{tag}")}),
            None,
        )
        .unwrap();
    assert!(logged(
        &fixture,
        &format!("listed-{tag}"),
        Duration::from_secs(20)
    ));

    // B6 over HTTP: /json/list leaves it out, and links no front end.
    let (status, body) = http_get(&addr, "/json/list");
    assert_eq!(status, 200, "{body}");
    assert!(!body.contains("sliccy.ai"), "{body}");
    assert!(!body.contains("devtoolsFrontendUrl"), "{body}");
    assert!(body.contains("\"type\""), "the list is not empty: {body}");
    let (status, _) = http_get(&addr, "/json/new?http://seven.sliccy.ai/");
    assert_eq!(
        status, 404,
        "/json/new would open a target around the guard"
    );

    let guarded = client(&proxy.endpoint());
    // B6, C3: not listed, not attachable, not creatable.
    let list = guarded.send("Target.getTargets", json!({}), None).unwrap();
    assert!(!list.to_string().contains("sliccy.ai"), "{list}");
    assert!(list["targetInfos"]
        .as_array()
        .is_some_and(|l| !l.is_empty()));
    assert!(refused(guarded.send(
        "Target.attachToTarget",
        json!({"targetId": seven_id, "flatten": true}),
        None
    )));
    assert!(refused(guarded.send(
        "Target.createTarget",
        json!({"url": "http://vault.sliccy.ai/doc?n=created"}),
        None
    )));

    // C1: a page the client holds navigates itself to seven; the request never leaves.
    let page = guarded
        .send(
            "Target.createTarget",
            json!({"url": format!("http://ordinary.test/doc?n=start-{tag}")}),
            None,
        )
        .unwrap();
    let page_id = page["targetId"].as_str().unwrap().to_string();
    assert!(logged(
        &fixture,
        &format!("start-{tag}"),
        Duration::from_secs(20)
    ));
    let session = guarded
        .send(
            "Target.attachToTarget",
            json!({"targetId": page_id, "flatten": true}),
            None,
        )
        .unwrap()["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    guarded
        .send("Page.enable", json!({}), Some(&session))
        .unwrap();
    guarded
        .send(
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": "document.title = 'instrumented'"}),
            Some(&session),
        )
        .unwrap();
    let from = guarded.event_count();
    guarded
        .send(
            "Runtime.evaluate",
            json!({"expression": format!("location.href = 'http://seven.sliccy.ai/doc?n=dest-{tag}'; true")}),
            Some(&session),
        )
        .unwrap();
    // The load fails before it is sent, and Chromium's error page commits in the client's
    // session: an ordinary failed navigation, the page still the client's.
    let failed = guarded.wait_event(
        from,
        &|e| {
            e.method == "Page.frameNavigated"
                && e.session_id.as_deref() == Some(session.as_str())
                && e.params["frame"]["url"]
                    .as_str()
                    .is_some_and(|u| u.starts_with("chrome-error:"))
        },
        Duration::from_secs(15),
    );
    assert!(
        failed.is_some(),
        "the blocked navigation ends on the error page in the client's session: {:?}",
        guarded.events_since(from)
    );
    let still = guarded
        .send(
            "Runtime.evaluate",
            json!({"expression": "6 * 7", "returnByValue": true}),
            Some(&session),
        )
        .expect("the page stays the client's after the blocked navigation");
    assert_eq!(still["result"]["value"], json!(42));
    assert!(
        !logged(&fixture, &format!("dest-{tag}"), Duration::from_millis(500)),
        "the protected document was requested"
    );
    let after = guarded.events_since(from);
    assert!(
        !serde_json::to_string(&after)
            .unwrap()
            .contains(&format!("dest-{tag}")),
        "an event named the protected URL: {after:?}"
    );
    // The unguarded observer sees the block: an error page for the exact URL.
    let observer = direct
        .send(
            "Target.attachToTarget",
            json!({"targetId": page_id, "flatten": true}),
            None,
        )
        .unwrap()["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    let tree = direct
        .send("Page.getFrameTree", json!({}), Some(&observer))
        .unwrap();
    assert_eq!(
        tree["frameTree"]["frame"]["unreachableUrl"],
        json!(format!("http://seven.sliccy.ai/doc?n=dest-{tag}")),
        "{tree}"
    );

    // Control: the same on an ordinary origin works, instrumented.
    let page2 = guarded
        .send("Target.createTarget", json!({"url": "about:blank"}), None)
        .unwrap();
    let s2 = guarded
        .send(
            "Target.attachToTarget",
            json!({"targetId": page2["targetId"], "flatten": true}),
            None,
        )
        .unwrap()["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    guarded.send("Page.enable", json!({}), Some(&s2)).unwrap();
    guarded
        .send(
            "Page.navigate",
            json!({"url": format!("http://ordinary.test/doc?n=ctl-{tag}")}),
            Some(&s2),
        )
        .unwrap();
    assert!(logged(
        &fixture,
        &format!("ctl-{tag}"),
        Duration::from_secs(20)
    ));
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let r = guarded
            .send(
                "Runtime.evaluate",
                json!({"expression": "location.href"}),
                Some(&s2),
            )
            .unwrap();
        if r["result"]["value"]
            .as_str()
            .is_some_and(|h| h.contains("ctl-"))
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the ordinary navigation did not commit: {r}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(refused(guarded.send(
        "Page.navigate",
        json!({"url": "http://sliccy.ai/doc?n=apex"}),
        Some(&s2)
    )));

    // C6: cookies planted outside the guard; the guarded read leaves seven's out.
    direct
        .send(
            "Storage.setCookies",
            json!({"cookies": [
                {"name": "canary", "value": "SECRET", "domain": "seven.sliccy.ai", "path": "/"},
                {"name": "canary", "value": format!("plain-{tag}"), "domain": "ordinary.test", "path": "/"}
            ]}),
            None,
        )
        .unwrap();
    let cookies = guarded.send("Storage.getCookies", json!({}), None).unwrap();
    let text = cookies.to_string();
    assert!(text.contains(&format!("plain-{tag}")), "{text}");
    assert!(!text.contains("SECRET"), "{text}");
    assert!(refused(guarded.send(
        "Network.setCookie",
        json!({"name": "canary", "value": "written", "url": "http://seven.sliccy.ai/"}),
        Some(&s2)
    )));
    assert!(refused(guarded.send(
        "Network.clearBrowserCookies",
        json!({}),
        Some(&s2)
    )));
    let still = direct.send("Storage.getCookies", json!({}), None).unwrap();
    assert!(
        still.to_string().contains("SECRET"),
        "the canary is untouched"
    );

    // Hostile clients: not JSON, binary garbage, a huge frame, a broken request head.
    let (mut raw, _) = tungstenite::connect(proxy.websocket_url()).expect("a raw WebSocket");
    raw.send(Message::text("this is not json")).unwrap();
    let answer = raw.read().unwrap();
    assert!(answer.to_text().unwrap().contains("-32700"), "{answer:?}");
    raw.send(Message::text(
        r#"{"id":2000000001,"method":"Browser.getVersion"}"#,
    ))
    .unwrap();
    let answer = raw.read().unwrap();
    assert!(answer.to_text().unwrap().contains("reserved"), "{answer:?}");
    raw.send(Message::binary(vec![0xff, 0xfe, 0x00])).unwrap();
    assert!(
        closes(&mut raw),
        "a binary frame that is not UTF-8 closes the connection"
    );

    let (mut big, _) = tungstenite::connect(proxy.websocket_url()).expect("a raw WebSocket");
    let huge = format!(
        r#"{{"id":1,"method":"Runtime.evaluate","params":{{"expression":"'{}'"}}}}"#,
        "x".repeat(17 << 20)
    );
    let _ = big.send(Message::text(huge));
    assert!(
        closes(&mut big),
        "a frame over the limit closes the connection"
    );

    // Request heads that are not HTTP/1.x: the one head parser's status and reason.
    let mut long_line = b"GET /json/version?".to_vec();
    long_line.extend(std::iter::repeat_n(b'a', 9000));
    let mut many = b"GET /json/version HTTP/1.1\r\nHost: x\r\n".to_vec();
    for i in 0..70 {
        many.extend_from_slice(format!("X-{i}: v\r\n").as_bytes());
    }
    many.extend_from_slice(b"\r\n");
    let mut endless = b"GET /json/version HTTP/1.1\r\nX-Pad: ".to_vec();
    endless.extend(std::iter::repeat_n(b'p', 17 * 1024));
    for (raw, status, why) in [
        (
            &b"\x16\x03\x01garbage\r\n\r\n"[..],
            400,
            "not an HTTP request",
        ),
        (
            b"GET /json/version HTTP/2.0\r\nHost: x\r\n\r\n",
            505,
            "HTTP version",
        ),
        (
            b"GET /json/version HTTP/1.1\r\nX: a\r\n folded\r\n\r\n",
            400,
            "folding",
        ),
        (
            b"GET /json/version HTTP/1.1\r\nBad Name: x\r\n\r\n",
            400,
            "header name",
        ),
        (&long_line[..], 414, "line too long"),
        (&many[..], 431, "too many header fields"),
        (&endless[..], 431, "too large"),
    ] {
        let (got, body) = raw_http(&addr, raw);
        assert_eq!(
            got,
            status,
            "{body:?} for {:?}",
            String::from_utf8_lossy(&raw[..40.min(raw.len())])
        );
        assert!(body.contains(why), "{why:?} in {body:?}");
    }
    // A client whose first frame comes in the same packet as its handshake: the frame is
    // read from what came after the head, not lost.
    let text = handshake_with_frame(
        &proxy.websocket_url(),
        br#"{"id":5,"method":"Browser.getVersion"}"#,
        "\"product\"",
    );
    assert!(text.starts_with("HTTP/1.1 101"), "{text:?}");
    assert!(text.contains("\"id\":5"), "{text:?}");

    // The proxy still serves after all that.
    assert!(guarded.send("Target.getTargets", json!({}), None).is_ok());
}

/// `/json/list` is judged with the proxy's own policy settings: a tab on the browser's DevTools
/// endpoint (which the proxy's policy counts as browser-internal) is left out of it as it is
/// left out of `Target.getTargets`. It used to be judged by a policy with the default settings
/// (no DevTools endpoint, no protected paths) and listed such a tab.
#[test]
fn json_list_hides_what_the_proxys_own_policy_hides() {
    let Some((fixture, browser, proxy)) = proxied() else {
        return;
    };
    let upstream = browser.http_url();
    let addr = proxy.addr().to_string();
    let tag = format!("d{}", std::process::id());
    let direct = client(&upstream);
    // A tab on the DevTools endpoint itself, and an ordinary one beside it.
    let devtools_tab = format!("{upstream}/json/version?{tag}");
    direct
        .send("Target.createTarget", json!({"url": devtools_tab}), None)
        .unwrap();
    direct
        .send(
            "Target.createTarget",
            json!({"url": format!("http://ordinary.test/doc?n=beside-{tag}")}),
            None,
        )
        .unwrap();
    assert!(logged(
        &fixture,
        &format!("beside-{tag}"),
        Duration::from_secs(20)
    ));
    // Straight from Chromium the tab is there (the test is not vacuous).
    let (_, all) = http_get(&upstream["http://".len()..], "/json/list");
    assert!(all.contains(&format!("?{tag}")), "{all}");
    // Through the proxy: hidden from CDP clients and from /json/list alike.
    let guarded = client(&proxy.endpoint());
    let list = guarded.send("Target.getTargets", json!({}), None).unwrap();
    assert!(!list.to_string().contains(&format!("?{tag}")), "{list}");
    let (status, body) = http_get(&addr, "/json/list");
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(&format!("beside-{tag}")), "{body}");
    assert!(!body.contains(&format!("?{tag}")), "{body}");
}
