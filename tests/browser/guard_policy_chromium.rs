//! The attacks of issue 19 that `guard::policy` closes, each run first straight to a headless
//! Chromium this test launches, where it must work (an attack that never worked unguarded
//! proves nothing), then through `guard proxy` in front of the same browser, where it must
//! fail with a refusal that says why. The stand-in fixture serves every host; evidence comes
//! from the browser (what an unguarded connection reads) or the fixture's log.
//!
//! Skipped (with the reason printed) without /usr/bin/chromium, unless `CI` is set.
#![cfg(all(feature = "guard-proxy", feature = "guard-runner", unix))]

use crate::needs;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use slicc_browsers::guard::proxy::{Proxy, ProxyOptions};
use slicc_browsers::harness::cdp::{CdpClient, CdpOptions};
use slicc_browsers::harness::fixture::{Fixture, FixtureOptions};
use slicc_browsers::harness::runner::{CallError, Transport};
use slicc_browsers::harness::selftest::Chromium;

const CHROMIUM: &str = "/usr/bin/chromium";
const REFUSAL: &str = "slicc: refused: target is on seven's origin";

/// One browser at a time: the machine is small and each test launches its own.
static ONE: Mutex<()> = Mutex::new(());

/// A fixture, a headless Chromium mapped onto it, the proxy in front of it, and one client
/// each way.
struct World {
    fixture: Fixture,
    browser: Chromium,
    proxy: Proxy,
    direct: CdpClient,
    guarded: CdpClient,
    tag: String,
}

fn client(endpoint: &str) -> CdpClient {
    CdpClient::connect_endpoint(
        endpoint,
        CdpOptions::new().call_timeout(Duration::from_secs(20)),
    )
    .unwrap_or_else(|e| panic!("connects to {endpoint}: {e}"))
}

impl World {
    fn start(name: &str) -> Option<World> {
        if needs::missing(CHROMIUM, Path::new(CHROMIUM).exists()) {
            return None;
        }
        let fixture = Fixture::start(FixtureOptions::default()).expect("the fixture serves");
        let hosts = ["*.sliccy.ai", "sliccy.ai", "ordinary.test", "other.test"];
        let browser =
            Chromium::launch(CHROMIUM, &hosts, fixture.port()).expect("chromium serves CDP");
        let upstream = browser.http_url();
        let proxy = Proxy::start(ProxyOptions::new(&upstream)).expect("the proxy starts");
        let direct = client(&upstream);
        let guarded = client(&proxy.endpoint());
        Some(World {
            fixture,
            browser,
            proxy,
            direct,
            guarded,
            tag: format!("{name}{}", std::process::id()),
        })
    }

    /// Waits until the fixture logged a request whose URL contains `needle`.
    fn logged(&self, needle: &str, within: Duration) -> bool {
        let deadline = Instant::now() + within;
        loop {
            if self.fixture.log().iter().any(|e| e.url.contains(needle)) {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// A new tab on `url` through `c`, attached: (target id, session id).
fn open(c: &CdpClient, url: &str) -> Result<(String, String), CallError> {
    let t = c.send("Target.createTarget", json!({"url": url}), None)?;
    let id = t["targetId"].as_str().unwrap_or_default().to_string();
    let s = c.send(
        "Target.attachToTarget",
        json!({"targetId": id, "flatten": true}),
        None,
    )?;
    Ok((id, s["sessionId"].as_str().unwrap_or_default().to_string()))
}

/// `Runtime.evaluate` of `expr` (awaited) on `session`: its string value.
fn eval(c: &CdpClient, session: &str, expr: &str) -> Result<String, CallError> {
    let r = c.send(
        "Runtime.evaluate",
        json!({"expression": expr, "awaitPromise": true, "returnByValue": true}),
        Some(session),
    )?;
    Ok(match &r["result"]["value"] {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    })
}

/// Whether `r` is the catalog's refusal and its message contains `why`.
fn refused_because(r: &Result<impl std::fmt::Debug, CallError>, why: &str) -> bool {
    matches!(r, Err(CallError::Protocol { message, .. }) if message.contains(REFUSAL) && message.contains(why))
}

/// Every link and leaf text of a page, shadow roots included, joined with `|` (WebUI pages
/// render in shadow DOM), after the page had `ms` to load its data.
fn page_text(ms: u64) -> String {
    format!(
        "(async()=>{{await new Promise(r=>setTimeout(r,{ms}));const acc=[];\
         (function walk(n){{if(!n)return;if(n.shadowRoot)walk(n.shadowRoot);\
         for(const k of n.children||[])walk(k);\
         if(n.getAttribute&&n.getAttribute('href'))acc.push(n.getAttribute('href'));\
         if(n.children&&n.children.length===0&&n.textContent)acc.push(n.textContent.trim());}})\
         (document.documentElement);return acc.join('|')}})()"
    )
}

#[test]
fn internal_pages_read_protected_history_unguarded_and_are_refused_through_the_proxy() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let Some(w) = World::start("hist") else {
        return;
    };
    // The user visited a vault URL (straight on Chromium, no client involved).
    let secret = format!("vaulthist-{}", w.tag);
    let vault = format!("http://vault.sliccy.ai/doc?n={secret}");
    w.direct
        .send("Target.createTarget", json!({"url": vault}), None)
        .unwrap();
    assert!(w.logged(&secret, Duration::from_secs(20)));

    // Unguarded: chrome://history's own script shows the visited vault URL with its query.
    let (hist_id, s) = open(&w.direct, "chrome://history").expect("opens chrome://history");
    // The page loads its data asynchronously: look again until it shows (under load, slowly).
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut text = eval(&w.direct, &s, &page_text(500)).unwrap();
    while !text.contains(&secret) && Instant::now() < deadline {
        text = eval(&w.direct, &s, &page_text(500)).unwrap();
    }
    assert!(
        text.contains(&secret),
        "the attack must work unguarded: chrome://history shows {secret}: {text}"
    );

    // Through the proxy: not as a new target, not by navigation, not by attaching to the
    // tab already there, and that tab is not listed.
    let r = w.guarded.send(
        "Target.createTarget",
        json!({"url": "chrome://history"}),
        None,
    );
    assert!(refused_because(&r, "browser-internal page"), "{r:?}");
    let (_, page) = open(
        &w.guarded,
        &format!("http://ordinary.test/doc?n=o-{}", w.tag),
    )
    .expect("an ordinary page opens through the proxy");
    for url in [
        "chrome://history",
        "chrome://inspect/#pages",
        "about:history",
        "view-source:chrome://settings",
    ] {
        let r = w
            .guarded
            .send("Page.navigate", json!({"url": url}), Some(&page));
        assert!(refused_because(&r, "browser-internal page"), "{url}: {r:?}");
    }
    let r = w.guarded.send(
        "Target.attachToTarget",
        json!({"targetId": hist_id, "flatten": true}),
        None,
    );
    assert!(refused_because(&r, "browser-internal page"), "{r:?}");
    let list = w
        .guarded
        .send("Target.getTargets", json!({}), None)
        .unwrap();
    assert!(!list.to_string().contains("chrome://"), "{list}");
    assert!(!list.to_string().contains(&hist_id), "{list}");
    // The ordinary page was never navigated away.
    assert!(eval(&w.guarded, &page, "location.href")
        .unwrap()
        .starts_with("http://ordinary.test/"));
}

#[test]
fn page_session_tracing_sees_a_protected_tab_unguarded_and_is_refused_through_the_proxy() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let Some(w) = World::start("trace") else {
        return;
    };
    let secret = format!("vaulttrace-{}", w.tag);
    let run = |c: &CdpClient, session: &str| -> Result<String, CallError> {
        c.send(
            "Tracing.start",
            json!({"categories": "devtools.timeline,loading,navigation,toplevel", "transferMode": "ReportEvents"}),
            Some(session),
        )?;
        // A protected tab loads while the page session traces (opened straight on Chromium).
        w.direct
            .send(
                "Target.createTarget",
                json!({"url": format!("http://vault.sliccy.ai/doc?n={secret}")}),
                None,
            )
            .unwrap();
        std::thread::sleep(Duration::from_millis(1500));
        let from = c.event_count();
        c.send("Tracing.end", json!({}), Some(session))?;
        c.wait_event(
            from,
            &|e| e.method == "Tracing.tracingComplete",
            Duration::from_secs(20),
        );
        Ok(c.events_since(from)
            .iter()
            .filter(|e| e.method == "Tracing.dataCollected")
            .map(|e| e.params.to_string())
            .collect())
    };
    let (_, s) = open(
        &w.direct,
        &format!("http://ordinary.test/doc?n=d-{}", w.tag),
    )
    .unwrap();
    let trace = run(&w.direct, &s).expect("tracing runs unguarded");
    assert!(
        trace.contains(&secret),
        "the attack must work unguarded: a page session's trace shows the vault tab ({} bytes)",
        trace.len()
    );

    let (_, g) = open(
        &w.guarded,
        &format!("http://ordinary.test/doc?n=g-{}", w.tag),
    )
    .unwrap();
    let r = run(&w.guarded, &g);
    assert!(
        refused_because(&r, "tracing records"),
        "through the proxy (trace bytes, holds the vault URL): {:?}",
        r.as_ref().map(|t| (t.len(), t.contains(&secret)))
    );
}

#[test]
fn a_command_on_an_unknown_session_is_answered_with_an_error_through_the_proxy() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let Some(w) = World::start("nosession") else {
        return;
    };
    let ask = |c: &CdpClient| {
        c.send_timeout(
            "Runtime.evaluate",
            json!({"expression": "1"}),
            Some("0123456789ABCDEF0123456789ABCDEF"),
            Duration::from_secs(5),
        )
    };
    // Chromium answers it; the proxy must too, with the same error, not silence.
    let direct = ask(&w.direct);
    assert!(
        matches!(direct, Err(CallError::Protocol { code: -32001, .. })),
        "{direct:?}"
    );
    let guarded = ask(&w.guarded);
    assert!(
        matches!(guarded, Err(CallError::Protocol { code: -32001, .. })),
        "{guarded:?}"
    );
}

/// An HTTP GET of `path` on `authority` (`host:port`): the body.
fn http_get(authority: &str, path: &str) -> String {
    let mut s = TcpStream::connect(authority).expect("connects");
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    let _ = s.read_to_string(&mut text);
    text.split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default()
}

#[test]
fn json_list_shows_a_protected_pages_blank_popup_unguarded_and_not_through_the_proxy() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let Some(w) = World::start("popup") else {
        return;
    };
    let secret = format!("popuptitle-{}", w.tag);
    // The user's vault tab opens an about:blank popup and titles it (straight on Chromium).
    let (_, vault) = open(
        &w.direct,
        &format!("http://vault.sliccy.ai/doc?n=p-{}", w.tag),
    )
    .unwrap();
    w.direct
        .send(
            "Runtime.evaluate",
            json!({"expression": format!("(()=>{{const p=window.open('about:blank');p.document.title='{secret}';return !!p}})()"), "userGesture": true}),
            Some(&vault),
        )
        .unwrap();
    // Unguarded, /json/list shows it with its title.
    let upstream = w.browser.http_url();
    let authority = upstream.trim_start_matches("http://").trim_end_matches('/');
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut direct = String::new();
    while !direct.contains(&secret) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
        direct = http_get(authority, "/json/list");
    }
    assert!(
        direct.contains(&secret),
        "the attack must work unguarded: /json/list shows the popup: {direct}"
    );
    // Through the proxy, /json/list and /json leave it out, and still list ordinary tabs.
    w.direct
        .send(
            "Target.createTarget",
            json!({"url": format!("http://ordinary.test/doc?n=l-{}", w.tag)}),
            None,
        )
        .unwrap();
    assert!(w.logged(&format!("n=l-{}", w.tag), Duration::from_secs(20)));
    let addr = w.proxy.addr().to_string();
    for path in ["/json/list", "/json"] {
        let body = http_get(&addr, path);
        assert!(!body.contains(&secret), "{path}: {body}");
        assert!(!body.contains("about:blank"), "{path}: {body}");
        assert!(body.contains(&format!("n=l-{}", w.tag)), "{path}: {body}");
    }
}

/// Percent-encodes a URL for a query parameter.
fn encode(url: &str) -> String {
    url.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The unguarded leg of an attack: `leg` run under the tag `d`, and once more under `d2` when
/// `worked` says the first did not work. A starved machine (load 30-40, other work beside the
/// tests) once left the vault's frame uncommitted for 12 s and once timed out a snapshot; that is
/// no reason to call the attack useless. The guarded leg gets one try: there a slow machine must
/// not look like a fix.
fn unguarded<T>(mut leg: impl FnMut(&str) -> T, worked: impl Fn(&T) -> bool) -> T {
    let first = leg("d");
    if worked(&first) {
        return first;
    }
    println!("note: the attack did not work unguarded on its first try; trying once more");
    leg("d2")
}

/// `Page.captureSnapshot` (MHTML) of `session`, or the error.
fn snapshot(c: &CdpClient, session: &str) -> Result<String, CallError> {
    c.send(
        "Page.captureSnapshot",
        json!({"format": "mhtml"}),
        Some(session),
    )
    .map(|r| r["data"].as_str().unwrap_or_default().to_string())
}

#[test]
fn a_pages_own_script_points_its_out_of_process_frame_at_the_vault_only_unguarded() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let Some(w) = World::start("oopif") else {
        return;
    };
    let attack = |c: &CdpClient, leg: &str| -> (bool, String) {
        let frame = format!("http://other.test/doc?n=f{leg}-{}", w.tag);
        let page = format!("http://ordinary.test/framed?src={}", encode(&frame));
        let (_, s) = open(c, &page).expect("the framing page opens");
        assert!(w.logged(&format!("f{leg}-{}", w.tag), Duration::from_secs(20)));
        std::thread::sleep(Duration::from_millis(500));
        let vault = format!("v{leg}-{}", w.tag);
        eval(
            c,
            &s,
            &format!(
                "document.querySelector('iframe').src='http://vault.sliccy.ai/doc?n={vault}';1"
            ),
        )
        .unwrap();
        let reached = w.logged(&vault, Duration::from_secs(12));
        // The frame commits a little after its request: take snapshots until one shows it.
        let deadline = Instant::now() + Duration::from_secs(if reached { 10 } else { 1 });
        let mut snap = snapshot(c, &s).unwrap_or_default();
        while !snap.contains("vault.sliccy.ai/doc") && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(300));
            snap = snapshot(c, &s).unwrap_or_default();
        }
        (reached, snap)
    };
    let (reached, snap) = unguarded(
        |leg| attack(&w.direct, leg),
        |(reached, snap)| *reached && snap.contains("vault.sliccy.ai/doc"),
    );
    assert!(
        reached && snap.contains("vault.sliccy.ai/doc"),
        "the attack must work unguarded: the vault commits in the frame and the page's snapshot holds it (reached {reached})"
    );
    let (reached, snap) = attack(&w.guarded, "g");
    assert!(!reached, "through the proxy the vault request never leaves");
    assert!(!snap.contains("vault.sliccy.ai/doc"), "{snap}");
}

#[test]
fn a_created_page_that_frames_the_vault_is_captured_only_unguarded() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let Some(w) = World::start("framed") else {
        return;
    };
    let attack = |c: &CdpClient, leg: &str| -> Result<String, CallError> {
        let vault = format!("http://vault.sliccy.ai/doc?n=c{leg}-{}", w.tag);
        let page = format!("http://ordinary.test/framed?src={}", encode(&vault));
        let t = c.send("Target.createTarget", json!({"url": page}), None)?;
        // The vault frame loads before the client attaches.
        assert!(w.logged(&format!("c{leg}-{}", w.tag), Duration::from_secs(20)));
        std::thread::sleep(Duration::from_millis(800));
        let s = c.send(
            "Target.attachToTarget",
            json!({"targetId": t["targetId"], "flatten": true}),
            None,
        )?;
        let s = s["sessionId"].as_str().unwrap_or_default().to_string();
        // Under load the frame's document may commit after its request: ask again a while
        // (a guarded snapshot is refused at once, so only the unguarded leg waits).
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let shot = snapshot(c, &s);
            let framed = shot
                .as_ref()
                .is_ok_and(|t| t.contains("vault.sliccy.ai/doc"));
            if shot.is_err() || framed || Instant::now() >= deadline {
                return shot;
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    };
    let direct = unguarded(
        |leg| attack(&w.direct, leg),
        |r| r.as_ref().is_ok_and(|t| t.contains("vault.sliccy.ai/doc")),
    )
    .expect("captures unguarded");
    assert!(
        direct.contains("vault.sliccy.ai/doc"),
        "the attack must work unguarded: the snapshot holds the vault frame"
    );
    let guarded = attack(&w.guarded, "g");
    // Refused by the hosting gate ("in another process") when the guard knows of the vault's
    // frame before the capture; in two clean-clone runs under load (load 15-25) it was refused
    // with the catalog's refusal alone, the words the guard gives when the command's session
    // or its answer names the protected origin. Either way nothing of the vault reaches the
    // client; any other answer fails.
    let bare = matches!(&guarded, Err(CallError::Protocol { message, .. }) if message == REFUSAL);
    assert!(
        refused_because(&guarded, "in another process") || bare,
        "{:?}",
        guarded.as_ref().map(|s| s.contains("vault.sliccy.ai/doc"))
    );
}
