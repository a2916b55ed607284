//! Web pages against `guard proxy`'s own endpoint: any site the user opens (in the guarded
//! browser or another one on the machine) can open `ws://127.0.0.1:<port>/...` and, by DNS
//! rebinding, read `http://<its own name>:<port>/json/...`. Chromium's DevTools server refuses
//! both (a WebSocket upgrade whose `Origin` it was not told to allow, with
//! `--remote-allow-origins`; a `Host` that is not an IP address or localhost): the proxy in
//! front of it must not open what it closes, or any page would drive the user's browser.
//!
//! A headless Chromium this test launches (skipped with the reason printed where
//! /usr/bin/chromium is absent, failed when `CI` is set), the stand-in fixture serving the
//! page, the page's own script opening the WebSocket: straight to Chromium (refused: the proof
//! of the browser's rule), through the proxy (refused), and through a proxy told to allow the
//! page's origin (answered: the control).
#![cfg(all(feature = "guard-proxy", feature = "guard-runner", unix))]

use crate::needs;
use crate::proxy_common;

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};
use slicc_browsers::guard::proxy::{Proxy, ProxyError, ProxyOptions};
use slicc_browsers::harness::cdp::{CdpClient, CdpOptions};
use slicc_browsers::harness::fixture::{Fixture, FixtureOptions};
use slicc_browsers::harness::runner::Transport;
use slicc_browsers::harness::selftest::Chromium;

use proxy_common::{raw_http, CHROMIUM};

/// What the page's script saw of a WebSocket to `url` on which it asks `Target.getTargets`:
/// `answered` (with the answer's start), `error`, `closed <code>` or `timeout`.
fn page_opens(browser: &CdpClient, session: &str, url: &str) -> String {
    let script = format!(
        "new Promise((r) => {{ let ws; try {{ ws = new WebSocket({}); }} catch (e) {{ return r('throws ' + e); }} \
         ws.onopen = () => ws.send(JSON.stringify({{id: 1, method: 'Target.getTargets'}})); \
         ws.onmessage = (e) => {{ r('answered ' + String(e.data).slice(0, 40)); ws.close(); }}; \
         ws.onerror = () => r('error'); ws.onclose = (e) => r('closed ' + e.code); \
         setTimeout(() => r('timeout'), 8000); }})",
        json!(url)
    );
    let r = browser
        .send(
            "Runtime.evaluate",
            json!({"expression": script, "awaitPromise": true, "returnByValue": true}),
            Some(session),
        )
        .expect("the page's script runs");
    r["result"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The browser WebSocket path of `http_url`'s `/json/version`.
fn browser_path(addr: &str) -> String {
    let (status, body) = raw_http(
        addr,
        format!("GET /json/version HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n")
            .as_bytes(),
    );
    assert_eq!(status, 200, "{addr}/json/version: {body}");
    let v: Value = serde_json::from_str(&body).expect("JSON");
    let ws = v["webSocketDebuggerUrl"].as_str().expect("a WebSocket URL");
    ws[ws.find("/devtools/").expect("a DevTools path")..].to_string()
}

/// The status of a GET of `path` on `addr` with the `Host` header `host` (read from the
/// status line alone: Chromium keeps the connection open after its answer).
fn status_with_host(addr: &str, host: &str, path: &str) -> u16 {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).expect("connects");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n").as_bytes())
        .expect("sent");
    let mut got = Vec::new();
    let mut chunk = [0u8; 512];
    while !got.windows(2).any(|w| w == b"\r\n") {
        match s.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&chunk[..n]),
        }
    }
    String::from_utf8_lossy(&got)
        .strip_prefix("HTTP/1.1 ")
        .and_then(|t| t.get(..3))
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

/// The user's tab on `origin`'s `/doc?n=page`, loaded, over an unguarded connection:
/// (the connection, the tab, its session).
fn user_page(browser: &Chromium, origin: &str) -> (CdpClient, String, String) {
    let user = CdpClient::connect_endpoint(
        &browser.http_url(),
        CdpOptions::new().call_timeout(Duration::from_secs(20)),
    )
    .expect("an unguarded connection");
    let t = user
        .send(
            "Target.createTarget",
            json!({"url": format!("{origin}/doc?n=page")}),
            None,
        )
        .expect("a tab");
    let tab = t["targetId"].as_str().expect("a target id").to_string();
    let session = user.attach(&tab).expect("attached");
    let loaded = proxy_common::eventually(Duration::from_secs(10), || {
        user.send(
            "Runtime.evaluate",
            json!({"expression": "location.host.startsWith('ordinary.test') && document.readyState === 'complete'", "returnByValue": true}),
            Some(&session),
        )
        .is_ok_and(|r| r["result"]["value"] == json!(true))
    });
    assert!(loaded, "the page loaded");
    (user, tab, session)
}

fn host_only(url: &str) -> String {
    url.trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string()
}

#[test]
fn pages_cannot_open_the_proxy_as_they_cannot_open_the_browser() {
    if needs::missing(CHROMIUM, Path::new(CHROMIUM).exists()) {
        return;
    }
    let fixture = Fixture::start(FixtureOptions::default()).expect("the fixture serves");
    let browser = Chromium::launch(CHROMIUM, &["ordinary.test"], fixture.port())
        .expect("chromium serves CDP");
    let direct = host_only(&browser.http_url());
    let guarded = Proxy::start(ProxyOptions::new(&browser.http_url())).expect("the proxy starts");
    let page_origin = format!("http://ordinary.test:{}", fixture.port());
    let mut allowing = ProxyOptions::new(&browser.http_url());
    allowing.allow_origins = vec![page_origin.clone()];
    let allowing = Proxy::start(allowing).expect("the allowing proxy starts");

    // The user's page on an ordinary site.
    let (user, tab, session) = user_page(&browser, &page_origin);

    let mut failures = Vec::new();
    let straight = page_opens(
        &user,
        &session,
        &format!("ws://{direct}{}", browser_path(&direct)),
    );
    // Chromium's own rule: the page's WebSocket is refused (a 403 ends in an error).
    if straight.starts_with("answered") {
        failures.push(format!("straight to Chromium the page's WebSocket was answered ({straight}): the browser's rule is not what this test proves"));
    }
    let proxy = host_only(&guarded.endpoint());
    let through = page_opens(
        &user,
        &session,
        &format!("ws://{proxy}{}", browser_path(&proxy)),
    );
    if through.starts_with("answered") {
        failures.push(format!(
            "through the proxy the page drove the browser: {through}"
        ));
    }
    // Any path under /devtools/browser/ is relayed: a page need not know the browser's id.
    let guessed = page_opens(
        &user,
        &session,
        &format!("ws://{proxy}/devtools/browser/guessed"),
    );
    if guessed.starts_with("answered") {
        failures.push(format!(
            "through the proxy, with a guessed path, the page drove the browser: {guessed}"
        ));
    }
    println!("the page's WebSocket: straight {straight:?}, through the proxy {through:?}, guessed path {guessed:?}");
    let allowed = host_only(&allowing.endpoint());
    let control = page_opens(
        &user,
        &session,
        &format!("ws://{allowed}{}", browser_path(&allowed)),
    );
    if !control.starts_with("answered") {
        failures.push(format!(
            "a proxy told to allow {page_origin} refused its page: {control}"
        ));
    }

    println!("through a proxy allowing {page_origin}: {control:?}");
    // DNS rebinding: the page's own name, now pointing at the endpoint, in the Host header.
    for (what, addr) in [("Chromium", &direct), ("the proxy", &proxy)] {
        for path in ["/json/version", "/json/list"] {
            let rebound =
                status_with_host(addr, &format!("ordinary.test:{}", fixture.port()), path);
            if rebound == 200 {
                failures.push(format!("{what} served {path} to Host ordinary.test"));
            }
            let local = status_with_host(addr, "localhost", path);
            if local != 200 {
                failures.push(format!("{what} refused {path} to Host localhost ({local})"));
            }
            // An empty Host names nothing: Chromium serves it (measured), so does the proxy.
            let empty = status_with_host(addr, "", path);
            if empty != 200 {
                failures.push(format!("{what} refused {path} to an empty Host ({empty})"));
            }
            println!("{what} {path}: Host ordinary.test {rebound}, Host localhost {local}");
        }
    }
    let _ = user.send("Target.closeTarget", json!({"targetId": tab}), None);
    drop(allowing);
    drop(guarded);
    drop(browser);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A browser started with `--remote-allow-origins=*` (common advice since Chromium 111 broke
/// WebDriver clients) opens its WebSocket to any page straight, proxy or not: the proxy
/// refuses to start in front of it rather than guard nothing.
#[test]
fn the_proxy_will_not_guard_a_browser_that_lets_pages_in() {
    if needs::missing(CHROMIUM, Path::new(CHROMIUM).exists()) {
        return;
    }
    let fixture = Fixture::start(FixtureOptions::default()).expect("the fixture serves");
    let browser = Chromium::launch_with(
        CHROMIUM,
        &["ordinary.test"],
        fixture.port(),
        &["--remote-allow-origins=*"],
    )
    .expect("chromium serves CDP");
    let direct = host_only(&browser.http_url());
    let (user, _tab, session) = user_page(
        &browser,
        &format!("http://ordinary.test:{}", fixture.port()),
    );
    // The premise: straight, the page drives this browser.
    let straight = page_opens(
        &user,
        &session,
        &format!("ws://{direct}{}", browser_path(&direct)),
    );
    println!("the page's WebSocket straight to a browser started with --remote-allow-origins=*: {straight:?}");
    assert!(
        straight.starts_with("answered"),
        "the page could not open this browser's WebSocket ({straight}): the test proves nothing"
    );
    match Proxy::start(ProxyOptions::new(&browser.http_url())) {
        Err(ProxyError::PagesAllowed { url }) => {
            assert!(url.starts_with("ws://"), "{url}");
            let text = ProxyError::PagesAllowed { url }.to_string();
            assert!(text.contains("--remote-allow-origins"), "{text}");
        }
        Err(e) => panic!("the proxy failed otherwise: {e}"),
        Ok(p) => panic!(
            "the proxy started in front of a browser any page drives: {}",
            p.endpoint()
        ),
    }
}
