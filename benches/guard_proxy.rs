//! The relay's added latency per command on loopback: the same CDP commands sent straight to a
//! headless Chromium and through `guard proxy` in front of it, side by side in one run.
//!
//! Needs Debian's Chromium (`/usr/bin/chromium`); without it the benchmark prints why and
//! measures nothing. The browser is the bench's own: a temporary profile,
//! `--remote-debugging-port=0`, its process group killed at the end.
//!
//! `cargo bench --features cli --bench guard_proxy`

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};
use slicc_browsers::guard::proxy::{Proxy, ProxyOptions};
use slicc_browsers::harness::cdp::{CdpClient, CdpOptions};
use slicc_browsers::harness::runner::transport::Transport;
use slicc_browsers::harness::selftest::{Chromium, CHROMIUM};

/// A client's page session on `client`: a new `about:blank` tab, attached with flat sessions.
fn page_session(client: &CdpClient) -> String {
    let target = client
        .send("Target.createTarget", json!({"url": "about:blank"}), None)
        .expect("Target.createTarget");
    let target_id = target["targetId"].as_str().expect("a targetId").to_string();
    let attached = client
        .send(
            "Target.attachToTarget",
            json!({"targetId": target_id, "flatten": true}),
            None,
        )
        .expect("Target.attachToTarget");
    attached["sessionId"]
        .as_str()
        .expect("a sessionId")
        .to_string()
}

fn relay(c: &mut Criterion) {
    if !Path::new(CHROMIUM).exists() {
        eprintln!("guard_proxy bench: {CHROMIUM} is not installed; nothing measured");
        return;
    }
    let chromium = Chromium::launch(CHROMIUM, &[], 1).expect("headless Chromium starts");
    let mut proxy =
        Proxy::start(ProxyOptions::new(&chromium.http_url())).expect("the proxy starts");
    let options = CdpOptions::new();
    let direct = CdpClient::connect(chromium.ws_url(), options.clone()).expect("direct client");
    let relayed = CdpClient::connect(&proxy.websocket_url(), options).expect("relayed client");
    let direct_page = page_session(&direct);
    let relayed_page = page_session(&relayed);

    let mut group = c.benchmark_group("relay");
    for (name, client) in [("direct", &direct), ("proxy", &relayed)] {
        group.bench_function(format!("Browser.getVersion/{name}"), |b| {
            b.iter(|| {
                client
                    .send("Browser.getVersion", Value::Null, None)
                    .expect("Browser.getVersion")
            })
        });
    }
    for (name, client, session) in [
        ("direct", &direct, &direct_page),
        ("proxy", &relayed, &relayed_page),
    ] {
        group.bench_function(format!("Runtime.evaluate/{name}"), |b| {
            b.iter(|| {
                client
                    .send(
                        "Runtime.evaluate",
                        json!({"expression": "1 + 1", "returnByValue": true}),
                        Some(session),
                    )
                    .expect("Runtime.evaluate")
            })
        });
    }
    group.finish();
    direct.close();
    relayed.close();
    proxy.close();
    drop(chromium);
}

criterion_group!(benches, relay);
criterion_main!(benches);
