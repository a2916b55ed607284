//! The relay's cost on loopback, direct and through `guard proxy` side by side in one run,
//! against a headless Chromium of the bench's own:
//!
//! - **latency**: a command's round trip (`Browser.getVersion` on the browser session,
//!   `Runtime.evaluate("1 + 1")` on a page session) from a plain synchronous WebSocket client:
//!   the median and 90th percentile of 2,000 round trips each way, printed as a table, then
//!   criterion's own measurement of the same calls;
//! - **event throughput**: a busy page (500 `fetch`es to a local HTTP server, with
//!   `Network.enable`: about 3,000 `Network` events) timed from the command until the last
//!   `Network.loadingFinished` has arrived, and a burst of 5,000 `console.log` calls (with
//!   `Runtime.enable`: 5,000 `Runtime.consoleAPICalled` events, no network in the way) timed
//!   until the last event; five runs each of three arms, alternating: direct, direct with the
//!   guard's own document interception (the `Fetch.enable` and service-worker bypass
//!   `guard::policy` sends on every document session, so Chromium's cost of intercepting
//!   documents shows apart from the relay's), and through the proxy; events per second and the
//!   ratios of the medians;
//! - **image page**: 300 `<img>` elements, each its own URL on the local server, timed until
//!   every one has loaded (or failed to decode), the same three arms: images per second (the
//!   guard pauses only images whose URL may be off limits, so ordinary ones never wait).
//!
//! Needs Debian's Chromium (`/usr/bin/chromium`); without it the benchmark prints why and
//! measures nothing. The browser is the bench's own: a temporary profile,
//! `--remote-debugging-port=0`, its process group killed at the end.
//!
//! - **connect in a lived-in browser**: the time a library's connect takes (a new WebSocket,
//!   `Target.setDiscoverTargets`, `Target.getTargets`, `Target.setAutoAttach` waiting for the
//!   debugger, until every page it is shown is attached or withdrawn, as Puppeteer's connect
//!   waits), direct and through the proxy, with tabs on ordinary pages, a tab whose history
//!   holds a protected page, a protected tab and an internal page open: medians of 20
//!   connects each way.
//!
//! `cargo bench --features cli-full --bench guard_proxy`

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};
use slicc_browsers::guard::proxy::{Proxy, ProxyOptions};
use slicc_browsers::harness::selftest::{Chromium, CHROMIUM};
use tungstenite::Message;

type Ws = tungstenite::WebSocket<tungstenite::stream::MaybeTlsStream<TcpStream>>;

/// A plain synchronous CDP client: one command at a time, events skipped or counted.
struct Client {
    ws: Ws,
    next: i64,
}

impl Client {
    fn connect(url: &str) -> Client {
        let (ws, _) = tungstenite::connect(url).expect("connects");
        if let tungstenite::stream::MaybeTlsStream::Plain(s) = ws.get_ref() {
            s.set_nodelay(true).expect("nodelay");
        }
        Client { ws, next: 1 }
    }

    /// Sends a command; reads until its answer, calling `event` on every other text frame.
    fn call_with(
        &mut self,
        method: &str,
        params: Value,
        session: Option<&str>,
        mut event: impl FnMut(&str),
    ) -> String {
        let id = self.next;
        self.next += 1;
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        self.ws.send(Message::text(msg.to_string())).expect("sent");
        let want = format!("{{\"id\":{id},");
        loop {
            match self.ws.read().expect("read") {
                Message::Text(t) => {
                    if t.as_str().starts_with(&want) {
                        return t.as_str().to_string();
                    }
                    event(t.as_str());
                }
                Message::Close(c) => panic!("closed: {c:?}"),
                _ => {}
            }
        }
    }

    fn call(&mut self, method: &str, params: Value, session: Option<&str>) -> Value {
        let text = self.call_with(method, params, session, |_| {});
        serde_json::from_str(&text).expect("JSON")
    }

    /// A page session on a new tab at `url`.
    fn page(&mut self, url: &str) -> String {
        let target = self.call("Target.createTarget", json!({"url": url}), None);
        let target_id = target["result"]["targetId"]
            .as_str()
            .expect("a target")
            .to_string();
        let attached = self.call(
            "Target.attachToTarget",
            json!({"targetId": target_id, "flatten": true}),
            None,
        );
        attached["result"]["sessionId"]
            .as_str()
            .expect("a session")
            .to_string()
    }
}

/// A keep-alive HTTP server on loopback: `/` a page, anything else a two-byte answer.
fn serve() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("binds");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                let _ = stream.set_nodelay(true);
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                loop {
                    let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
                        match stream.read(&mut chunk) {
                            Ok(0) | Err(_) => return,
                            Ok(n) => buf.extend_from_slice(&chunk[..n]),
                        }
                        continue;
                    };
                    let head = String::from_utf8_lossy(&buf[..end]).to_string();
                    buf.drain(..end + 4);
                    let (kind, body): (&str, &[u8]) = if head.starts_with("GET / ") {
                        ("text/html", b"<!doctype html><title>busy</title>")
                    } else {
                        ("text/plain", b"ok")
                    };
                    let reply = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\n\r\n",
                        body.len()
                    );
                    if stream.write_all(reply.as_bytes()).is_err()
                        || stream.write_all(body).is_err()
                    {
                        return;
                    }
                }
            });
        }
    });
    port
}

/// Median and 90th percentile of `n` round trips of `f`, in microseconds.
fn percentiles(n: usize, mut f: impl FnMut()) -> (f64, f64) {
    for _ in 0..n / 10 {
        f();
    }
    let mut times: Vec<f64> = (0..n)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    times.sort_by(f64::total_cmp);
    (times[n / 2], times[n * 9 / 10])
}

const FETCHES: usize = 500;
/// `<img>` elements in one image-page run.
const IMAGES: usize = 300;
/// `console.log` calls in one burst run.
const BURST: usize = 5000;
/// Throughput runs each way.
const RUNS: usize = 5;

/// One console-burst run: (events, seconds) from the command to the last
/// `Runtime.consoleAPICalled` (with `Runtime.enable`, each call is one event).
fn burst(client: &mut Client, session: &str) -> (usize, f64) {
    let script = format!("for (let i = 0; i < {BURST}; i++) console.log('event', i); {BURST}");
    let mut events = 0usize;
    let started = Instant::now();
    let count = |t: &str, events: &mut usize| {
        if t.starts_with("{\"method\":\"Runtime.consoleAPICalled\"") {
            *events += 1;
        }
    };
    client.call_with(
        "Runtime.evaluate",
        json!({"expression": script, "returnByValue": true}),
        Some(session),
        |t| count(t, &mut events),
    );
    while events < BURST {
        match client.ws.read().expect("read") {
            Message::Text(t) => count(t.as_str(), &mut events),
            Message::Close(c) => panic!("closed: {c:?}"),
            _ => {}
        }
    }
    (events, started.elapsed().as_secs_f64())
}

/// One image-page run: (images, seconds) from the command until every one of [`IMAGES`]
/// `<img>` elements (each its own URL on the local server) has loaded or failed to decode.
fn images(client: &mut Client, session: &str) -> (usize, f64) {
    let script = format!(
        "Promise.all(Array.from({{length: {IMAGES}}}, (_, i) => new Promise((done) => {{ const img = new Image(); img.onload = img.onerror = done; img.src = '/i?' + i + '-' + Math.random(); document.body.append(img); }}))).then((a) => {{ document.body.replaceChildren(); return a.length; }})"
    );
    let started = Instant::now();
    let answer = client.call(
        "Runtime.evaluate",
        json!({"expression": script, "awaitPromise": true, "returnByValue": true}),
        Some(session),
    );
    let secs = started.elapsed().as_secs_f64();
    assert_eq!(
        answer["result"]["result"]["value"],
        json!(IMAGES),
        "{answer}"
    );
    (IMAGES, secs)
}

/// One busy-page run: (Network events, seconds) from the command to the last
/// `Network.loadingFinished`.
fn busy(client: &mut Client, session: &str) -> (usize, f64) {
    let script = format!(
        "Promise.all(Array.from({{length: {FETCHES}}}, (_, i) => fetch('/f?' + i + '-' + Math.random()).then(r => r.text()))).then(a => a.length)"
    );
    let mut events = 0usize;
    let mut finished = 0usize;
    let started = Instant::now();
    let count = |t: &str, events: &mut usize, finished: &mut usize| {
        if t.starts_with("{\"method\":\"Network.") {
            *events += 1;
            if t.starts_with("{\"method\":\"Network.loadingFinished\"") {
                *finished += 1;
            }
        }
    };
    client.call_with(
        "Runtime.evaluate",
        json!({"expression": script, "awaitPromise": true, "returnByValue": true}),
        Some(session),
        |t| count(t, &mut events, &mut finished),
    );
    // The last events may follow the answer.
    while finished < FETCHES {
        match client.ws.read().expect("read") {
            Message::Text(t) => count(t.as_str(), &mut events, &mut finished),
            Message::Close(c) => panic!("closed: {c:?}"),
            _ => {}
        }
    }
    (events, started.elapsed().as_secs_f64())
}

fn relay(c: &mut Criterion) {
    if !Path::new(CHROMIUM).exists() {
        eprintln!("guard_proxy bench: {CHROMIUM} is not installed; nothing measured");
        return;
    }
    let chromium = Chromium::launch(CHROMIUM, &[], 1).expect("headless Chromium starts");
    let mut proxy =
        Proxy::start(ProxyOptions::new(&chromium.http_url())).expect("the proxy starts");
    let mut direct = Client::connect(chromium.ws_url());
    let mut relayed = Client::connect(&proxy.websocket_url());
    let direct_page = direct.page("about:blank");
    let relayed_page = relayed.page("about:blank");
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();

    // Latency: medians of plain round trips.
    println!(
        "guard_proxy latency (2,000 round trips each; loadavg {})",
        load.trim()
    );
    println!("| command | direct median (p90) | proxy median (p90) | added median |");
    println!("| --- | --- | --- | --- |");
    for (name, session) in [("Browser.getVersion", None), ("Runtime.evaluate", Some(()))] {
        let params = |s: Option<()>| {
            s.map_or(
                json!({}),
                |_| json!({"expression": "1 + 1", "returnByValue": true}),
            )
        };
        let (d50, d90) = percentiles(2000, || {
            direct.call(name, params(session), session.map(|_| direct_page.as_str()));
        });
        let (p50, p90) = percentiles(2000, || {
            relayed.call(
                name,
                params(session),
                session.map(|_| relayed_page.as_str()),
            );
        });
        println!(
            "| {name} | {d50:.0} µs ({d90:.0}) | {p50:.0} µs ({p90:.0}) | {:.0} µs |",
            p50 - d50
        );
    }

    // Event throughput: a busy page on a local server, and a burst of console events. Three
    // arms: direct, direct with the guard's own interception (the `Fetch.enable` for
    // documents and the service-worker bypass the policy sends on every document session:
    // what Chromium costs once any guard intercepts documents), and through the proxy. Runs
    // alternate the arms (so that a load change on the machine hits all alike), five each; the
    // ratios of the medians are the figures.
    let port = serve();
    let url = format!("http://127.0.0.1:{port}/");
    let mut sessions = Vec::new();
    for arm in 0..3 {
        let client = if arm == 2 { &mut relayed } else { &mut direct };
        let session = client.page(&url);
        client.call("Network.enable", json!({}), Some(&session));
        client.call("Runtime.enable", json!({}), Some(&session));
        if arm == 1 {
            // As `guard::policy` does on each document session (its `fetch.rs`).
            // Documents, and images, media and `Other` whose URL may be off limits (the
            // policy's `shown_patterns`, here for the catalog's protected hosts only).
            let mut patterns = vec![
                json!({"urlPattern": "*", "resourceType": "Document", "requestStage": "Request"}),
            ];
            for rtype in ["Image", "Media", "Other"] {
                for text in ["*sliccy.ai*", "*vault.sliccy.ai*", "chrome:*", "file:*"] {
                    patterns.push(json!({"urlPattern": text, "resourceType": rtype, "requestStage": "Request"}));
                }
            }
            client.call(
                "Fetch.enable",
                json!({ "patterns": patterns }),
                Some(&session),
            );
            client.call(
                "Network.setBypassServiceWorker",
                json!({"bypass": true}),
                Some(&session),
            );
        }
        // Until the page has loaded (its origin serves the fetches).
        loop {
            let ready = client.call(
                "Runtime.evaluate",
                json!({"expression": "document.readyState === 'complete' && location.href", "returnByValue": true}),
                Some(&session),
            );
            if ready["result"]["result"]["value"] == json!(url) {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        // One run each to warm up.
        busy(client, &session);
        burst(client, &session);
        images(client, &session);
        sessions.push(session);
    }
    let mut rates: [[Vec<(f64, usize, f64)>; 3]; 3] = Default::default();
    for _ in 0..RUNS {
        for (arm, session) in sessions.iter().enumerate() {
            let client = if arm == 2 { &mut relayed } else { &mut direct };
            let (events, secs) = busy(client, session);
            rates[0][arm].push((events as f64 / secs, events, secs));
            let (events, secs) = burst(client, session);
            rates[1][arm].push((events as f64 / secs, events, secs));
            let (count, secs) = images(client, session);
            rates[2][arm].push((count as f64 / secs, count, secs));
        }
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    for (k, what) in [
        format!("busy page: {FETCHES} fetches a run, Network events"),
        format!("console burst: {BURST} console.log calls a run, Runtime.consoleAPICalled events"),
        format!("image page: {IMAGES} <img> a run, images"),
    ]
    .iter()
    .enumerate()
    {
        println!(
            "guard_proxy event throughput, {what} (runs alternate; loadavg after {})",
            load.trim()
        );
        println!("| run | direct per s | direct + guard's interception per s | proxy per s | proxy/direct | proxy/(direct + interception) |");
        println!("| --- | --- | --- | --- | --- | --- |");
        let cell = |x: &(f64, usize, f64)| format!("{:.0} ({} in {:.3} s)", x.0, x.1, x.2);
        let runs = rates[k][0].iter().zip(&rates[k][1]).zip(&rates[k][2]);
        for (n, ((d, i), p)) in runs.enumerate() {
            println!(
                "| {} | {} | {} | {} | {:.0}% | {:.0}% |",
                n + 1,
                cell(d),
                cell(i),
                cell(p),
                100.0 * p.0 / d.0,
                100.0 * p.0 / i.0
            );
        }
        let median = |v: &[(f64, usize, f64)]| {
            let mut r: Vec<f64> = v.iter().map(|x| x.0).collect();
            r.sort_by(f64::total_cmp);
            r[r.len() / 2]
        };
        let (d, i, p) = (
            median(&rates[k][0]),
            median(&rates[k][1]),
            median(&rates[k][2]),
        );
        println!(
            "| median | {d:.0} | {i:.0} | {p:.0} | {:.0}% | {:.0}% |",
            100.0 * p / d,
            100.0 * p / i
        );
    }

    let mut group = c.benchmark_group("relay");
    for (name, client) in [("direct", &mut direct), ("proxy", &mut relayed)] {
        group.bench_function(format!("Browser.getVersion/{name}"), |b| {
            b.iter(|| client.call("Browser.getVersion", json!({}), None))
        });
    }
    for (name, client, session) in [
        ("direct", &mut direct, &direct_page),
        ("proxy", &mut relayed, &relayed_page),
    ] {
        group.bench_function(format!("Runtime.evaluate/{name}"), |b| {
            b.iter(|| {
                client.call(
                    "Runtime.evaluate",
                    json!({"expression": "1 + 1", "returnByValue": true}),
                    Some(session),
                )
            })
        });
    }
    group.finish();
    drop(direct);
    drop(relayed);
    proxy.close();
    drop(chromium);
}

/// One library-like connect to `ws`: until every page target it is shown is attached or
/// destroyed (a tab the proxy finds to hold a protected page in its history is withdrawn
/// with `Target.targetDestroyed`, and Puppeteer stops waiting for it), or 10 s pass. Returns
/// how long it took and how many pages were attached.
fn library_connect(ws: &str) -> (Duration, usize) {
    let started = Instant::now();
    let mut c = Client::connect(ws);
    c.call("Target.setDiscoverTargets", json!({"discover": true}), None);
    let listed = c.call("Target.getTargets", json!({}), None);
    let mut waiting: Vec<String> = listed["result"]["targetInfos"]
        .as_array()
        .map(|t| {
            t.iter()
                .filter(|t| t["type"] == "page")
                .filter_map(|t| t["targetId"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let mut attached = 0;
    let settle = |frame: &str, waiting: &mut Vec<String>, attached: &mut usize| {
        let Ok(v) = serde_json::from_str::<Value>(frame) else {
            return;
        };
        let id = match v["method"].as_str() {
            Some("Target.attachedToTarget") => {
                let id = &v["params"]["targetInfo"]["targetId"];
                if waiting.iter().any(|w| id == w.as_str()) {
                    *attached += 1;
                }
                id
            }
            Some("Target.targetDestroyed") => &v["params"]["targetId"],
            _ => return,
        };
        waiting.retain(|w| id != w.as_str());
    };
    c.call_with(
        "Target.setAutoAttach",
        json!({"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true}),
        None,
        |frame| settle(frame, &mut waiting, &mut attached),
    );
    if let tungstenite::stream::MaybeTlsStream::Plain(s) = c.ws.get_ref() {
        s.set_read_timeout(Some(Duration::from_millis(50)))
            .expect("timeout");
    }
    let deadline = started + Duration::from_secs(10);
    while !waiting.is_empty() && Instant::now() < deadline {
        if let Ok(Message::Text(t)) = c.ws.read() {
            settle(t.as_str(), &mut waiting, &mut attached);
        }
    }
    (started.elapsed(), attached)
}

/// Connects like a library, direct and through the proxy, in front of a lived-in browser.
fn connect(c: &mut Criterion) {
    if !Path::new(CHROMIUM).exists() {
        eprintln!("guard_proxy bench: {CHROMIUM} is not installed; nothing measured");
        return;
    }
    let port = serve();
    let chromium = Chromium::launch(CHROMIUM, &["*.sliccy.ai", "ordinary.test"], port)
        .expect("headless Chromium starts");
    let mut proxy =
        Proxy::start(ProxyOptions::new(&chromium.http_url())).expect("the proxy starts");
    // Lived in, straight: ordinary tabs, one whose history holds seven, seven itself, an
    // internal page.
    let mut user = Client::connect(chromium.ws_url());
    for _ in 0..3 {
        user.page("http://ordinary.test/");
    }
    let went = user.page("http://seven.sliccy.ai/");
    std::thread::sleep(Duration::from_millis(500));
    user.call(
        "Page.navigate",
        json!({"url": "http://ordinary.test/"}),
        Some(&went),
    );
    user.page("http://seven.sliccy.ai/");
    let internal = user.page("about:blank");
    user.call(
        "Page.navigate",
        json!({"url": "chrome://version/"}),
        Some(&internal),
    );
    std::thread::sleep(Duration::from_millis(1000));
    drop(user);

    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "guard_proxy connect in a lived-in browser (20 connects each; loadavg {})",
        load.trim()
    );
    println!("| arm | median | slowest | pages attached |");
    println!("| --- | --- | --- | --- |");
    let proxy_ws = proxy.websocket_url();
    for (name, ws) in [("direct", chromium.ws_url()), ("proxy", proxy_ws.as_str())] {
        let mut times = Vec::new();
        let mut pages = 0;
        for _ in 0..20 {
            let (t, n) = library_connect(ws);
            times.push(t.as_secs_f64() * 1000.0);
            pages = n;
        }
        times.sort_by(|a, b| a.total_cmp(b));
        println!(
            "| {name} | {:.1} ms | {:.1} ms | {pages} |",
            times[times.len() / 2],
            times[times.len() - 1]
        );
    }
    let mut group = c.benchmark_group("connect");
    group.sample_size(10);
    for (name, ws) in [("direct", chromium.ws_url()), ("proxy", proxy_ws.as_str())] {
        group.bench_function(format!("lived-in/{name}"), |b| {
            b.iter(|| library_connect(ws))
        });
    }
    group.finish();
    proxy.close();
    drop(chromium);
}

criterion_group!(benches, relay, connect);
criterion_main!(benches);
