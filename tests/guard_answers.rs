//! No call is left unanswered through `guard proxy`: when the policy ends a client's session
//! (its tab committed a protected document: here the user, straight to the browser, takes the
//! client's tab to the vault), the client is told at once (`Target.detachedFromTarget`) and a
//! command it had in flight on that session gets an error answer instead of waiting for ever.
//! Straight to Chromium the same command is never answered (the tab simply moves on), which is
//! what a guard must not add to: the session is its to end.
//!
//! Skipped (with the reason printed) without /usr/bin/chromium, unless `CI` is set.
#![cfg(all(feature = "guard-proxy", feature = "guard-runner", unix))]

mod needs;
mod proxy_common;

use std::time::{Duration, Instant};

use serde_json::json;
use slicc_browsers::guard::proxy::{Proxy, ProxyOptions};
use slicc_browsers::harness::cdp::{CdpClient, CdpOptions};
use slicc_browsers::harness::fixture::{Fixture, FixtureOptions};
use slicc_browsers::harness::runner::{CallError, Transport};
use slicc_browsers::harness::selftest::Chromium;

use proxy_common::{CHROMIUM, REFUSAL};

/// How long a call may stay unanswered before the test calls it left waiting.
const PATIENCE: Duration = Duration::from_secs(15);

#[test]
fn a_session_the_guard_ends_answers_every_call_in_flight() {
    if needs::missing("/usr/bin/chromium", needs::chromium()) {
        return;
    }
    let fixture = Fixture::start(FixtureOptions::default()).expect("the fixture serves");
    let browser = Chromium::launch(
        CHROMIUM,
        &["*.sliccy.ai", "sliccy.ai", "ordinary.test"],
        fixture.port(),
    )
    .expect("chromium serves CDP");
    let proxy = Proxy::start(ProxyOptions::new(&browser.http_url())).expect("the proxy starts");
    let options = || CdpOptions::new().call_timeout(PATIENCE);
    let client = CdpClient::connect_endpoint(&proxy.endpoint(), options()).expect("client");
    let user = CdpClient::connect(browser.ws_url(), options()).expect("user");

    let created = client
        .send(
            "Target.createTarget",
            json!({"url": "http://ordinary.test/doc?n=answers"}),
            None,
        )
        .expect("an ordinary tab");
    let target = created["targetId"].as_str().expect("a target id").to_string();
    let session = client.attach(&target).expect("the client attaches");
    let seen = client.event_count();

    let (answer, waited) = std::thread::scope(|scope| {
        // A command in flight on the session: a promise that never settles.
        let in_flight = scope.spawn(|| {
            client.send(
                "Runtime.evaluate",
                json!({"expression": "new Promise(() => {})", "awaitPromise": true}),
                Some(&session),
            )
        });
        std::thread::sleep(Duration::from_millis(500));
        // The user takes the client's tab to the vault, straight to the browser.
        let user_session = user.attach(&target).expect("the user attaches");
        let moved = Instant::now();
        user.send(
            "Page.navigate",
            json!({"url": "http://vault.sliccy.ai/doc?n=answers-vault"}),
            Some(&user_session),
        )
        .expect("the user navigates");
        let answer = in_flight.join().expect("the caller thread");
        (answer, moved.elapsed())
    });

    let detached = client
        .events_since(seen)
        .iter()
        .any(|e| e.method == "Target.detachedFromTarget" && e.params["sessionId"] == session);
    let answered = match &answer {
        Err(CallError::Protocol { message, .. }) => message.starts_with(REFUSAL),
        Err(CallError::Timeout) => false,
        _ => false,
    };
    println!("in-flight call: {answer:?} after {waited:?}; detachedFromTarget: {detached}");
    assert!(
        answered,
        "the call in flight on the session the guard ended was not answered with the refusal: {answer:?} ({waited:?})"
    );
    assert!(detached, "the client was not told its session ended");
    // The vault's document did reach the tab (the user's doing): the guard's cut was real.
    assert!(
        fixture.log().iter().any(|e| e.url.contains("answers-vault")),
        "the user's navigation never reached the vault"
    );
    drop(proxy);
    drop(browser);
}
