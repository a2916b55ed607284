//! Real CDP clients through `guard proxy`: Playwright (`playwright-core`,
//! `chromium.connectOverCDP`), Puppeteer (`puppeteer-core`, `connect`) and
//! `chrome-remote-interface` run the same script (tests/clients/clients.cjs) once straight
//! against a headless Chromium this test launches and once through the proxy in front of it.
//! Every ordinary step must come out the same both ways; the protected navigation must work
//! straight (the attack is real) and fail through the proxy with the catalog's refusal, and the
//! page must stay usable after it.
//!
//! The packages come from npm: `.ci/run` installs them into a temporary folder and names its
//! `node_modules` in `SLICC_CDP_CLIENTS`. Without Chromium, Node or that folder the test prints
//! why and passes; with `CI` set it fails.
#![cfg(all(feature = "guard-proxy", feature = "guard-runner", unix))]

use crate::needs;
use crate::proxy_common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use slicc_browsers::guard::proxy::{Proxy, ProxyLog, ProxyOptions};
use slicc_browsers::harness::fixture::{Fixture, FixtureOptions};
use slicc_browsers::harness::selftest::Chromium;

use proxy_common::{CHROMIUM, REFUSAL};

/// The step whose outcome differs on purpose.
const PROTECTED: &str = "protected navigation";
/// The packages the script loads from `SLICC_CDP_CLIENTS`.
const PACKAGES: [&str; 3] = [
    "playwright-core",
    "puppeteer-core",
    "chrome-remote-interface",
];

/// The `node_modules` folder with the three clients, or `None` with the reason printed.
fn clients_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("SLICC_CDP_CLIENTS").map(PathBuf::from);
    let present = dir.as_ref().is_some_and(|d| {
        PACKAGES
            .iter()
            .all(|p| d.join(p).join("package.json").exists())
    });
    if needs::missing(
        "SLICC_CDP_CLIENTS (a node_modules folder with playwright-core, puppeteer-core and chrome-remote-interface)",
        present,
    ) {
        return None;
    }
    dir
}

/// One step's outcome: `Ok(value)` or `Err(error message)`.
type Steps = BTreeMap<String, Result<Value, String>>;

/// Runs the script for `client` against `endpoint`; its steps in order of their names, and
/// the order they ran in.
fn run(modules: &Path, endpoint: &str, protected_url: &str, client: &str) -> (Steps, Vec<String>) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/clients.cjs");
    let output = Command::new("node")
        .arg(&script)
        .arg(modules)
        .arg(endpoint)
        .arg(protected_url)
        .arg(client)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut steps = Steps::new();
    let mut order = Vec::new();
    for line in stdout.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let name = v["step"].as_str().unwrap_or_default().to_string();
        let outcome = if v["ok"] == Value::Bool(true) {
            Ok(v["value"].clone())
        } else {
            Err(v["error"].as_str().unwrap_or_default().to_string())
        };
        order.push(name.clone());
        steps.insert(name, outcome);
    }
    assert!(
        steps.contains_key("end"),
        "{client} against {endpoint} did not finish:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    (steps, order)
}

/// The step listing what the library shows at connect.
const LISTING: &str = "listing";
/// What a way a page moves onto a protected origin may end as through the guard: the
/// library's failed navigation, the page left where it was, the frame not on the protected
/// origin, the popup not on it or not the client's at all.
const BLOCKED: [&str; 5] = [
    "failed net::ERR_BLOCKED_BY_CLIENT",
    "not loaded",
    "frame not loaded",
    "popup not loaded",
    "no popup",
];

/// Judges one client's run through the proxy (`through`), step by step in `order`, against
/// its straight run when there is one: every ordinary step the same (or, without a straight
/// run, not failed), the protected navigation refused, each way onto the protected origin
/// ending as blocked (and loading straight: the attack is real), and nothing protected or
/// internal in what the library lists (no `hidden` text either).
fn judge(
    client: &str,
    straight: Option<&Steps>,
    through: &Steps,
    order: &[String],
    hidden: &[&str],
    failures: &mut Vec<String>,
) {
    for step in order {
        let a = straight.and_then(|s| s.get(step));
        let b = through.get(step);
        if step == PROTECTED {
            match b {
                Some(Err(e)) if e.contains(REFUSAL) => {}
                other => failures.push(format!(
                    "{client} through the proxy: {step} should fail with the refusal, got {other:?}"
                )),
            }
            continue;
        }
        if step == LISTING {
            let text = format!("{b:?}");
            let bad = [
                "://seven.sliccy.ai",
                "://vault.sliccy.ai",
                "://sliccy.ai",
                "chrome://",
                "chrome-untrusted:",
                "chrome-extension:",
            ]
            .iter()
            .chain(hidden)
            .find(|n| text.contains(**n));
            if let Some(n) = bad {
                failures.push(format!("{client} through the proxy lists {n:?}: {text}"));
            }
            if !matches!(b, Some(Ok(_))) {
                failures.push(format!("{client} through the proxy: {step}: {b:?}"));
            }
            continue;
        }
        if step.starts_with("way: ") {
            if let Some(a) = a {
                let loaded = matches!(a, Ok(Value::String(v)) if v.ends_with("loaded") && !v.ends_with("not loaded"));
                if !loaded {
                    failures.push(format!(
                        "{client} straight: {step} did not reach the protected origin: {a:?}"
                    ));
                }
            }
            match b {
                Some(Ok(Value::String(v))) if BLOCKED.contains(&v.as_str()) => {}
                other => failures.push(format!(
                    "{client} through the proxy: {step} should end blocked, got {other:?}"
                )),
            }
            continue;
        }
        match a {
            Some(a) if b != Some(a) => failures.push(format!(
                "{client}: {step}: straight {a:?}, through the proxy {b:?}"
            )),
            None if !matches!(b, Some(Ok(_))) => {
                failures.push(format!("{client} through the proxy: {step}: {b:?}"))
            }
            _ => {}
        }
    }
}

#[test]
fn real_clients_work_through_the_proxy_as_straight() {
    if needs::missing("/usr/bin/chromium", needs::chromium())
        || needs::missing("node", needs::node())
    {
        return;
    }
    let Some(modules) = clients_dir() else {
        return;
    };
    let fixture = Fixture::start(FixtureOptions::default()).expect("the fixture serves");
    let ui = proxy_common::with_browser_ui();
    let browser = Chromium::launch_with(
        CHROMIUM,
        &["*.sliccy.ai", "sliccy.ai"],
        fixture.port(),
        &[&ui],
    )
    .expect("chromium serves CDP");
    let direct = browser.http_url();
    // With the browser's profile protected, as slicc-cli runs it: uploads and downloads of
    // the user's own files still work.
    let mut options = ProxyOptions::new(&direct);
    options.protect_paths = vec![browser.profile_dir().display().to_string()];
    let lines = proxy_common::Sink::default();
    options.log = Some(ProxyLog::new(lines.clone()));
    let proxy = Proxy::start(options).expect("the proxy starts");
    let guarded = proxy.endpoint();
    let protected_url = "http://seven.sliccy.ai/doc?n=clients";

    let mut failures = Vec::new();
    for client in ["playwright", "puppeteer", "cri"] {
        let reached = || {
            fixture
                .log()
                .iter()
                .filter(|e| e.url.contains("n=clients"))
                .count()
        };
        let before = reached();
        let (straight, order) = run(&modules, &direct, protected_url, client);
        let after_straight = reached();
        let (through, _) = run(&modules, &guarded, protected_url, client);
        // Straight, the protected page is reached (the attack is real); through the proxy not.
        if after_straight <= before {
            failures.push(format!(
                "{client} straight: the protected page was not reached"
            ));
        }
        if reached() != after_straight {
            failures.push(format!(
                "{client} through the proxy: the protected page was reached"
            ));
        }
        // The script must really work straight, or comparing proves nothing.
        for (step, outcome) in &straight {
            if let Err(e) = outcome {
                failures.push(format!("{client} straight: {step} failed: {e}"));
            }
        }
        assert!(
            order.len() > 10 || client == "cri",
            "{client}: too few steps ran: {order:?}"
        );
        judge(
            client,
            Some(&straight),
            &through,
            &order,
            &[],
            &mut failures,
        );
        assert!(
            straight.contains_key(PROTECTED) && straight.contains_key("usable after protected"),
            "{client}: the protected steps ran"
        );
        println!("{client}: {} steps compared", order.len());
    }
    drop(proxy);
    drop(browser);
    // Every command the clients sent is classified by the guard's table, and none of them is
    // one the table refuses: a refusal of either kind is in the proxy's log.
    let log = lines.text();
    for line in log.lines() {
        let v: Value = serde_json::from_str(line).unwrap_or_default();
        if v["event"] == "refused"
            && matches!(
                v["why"].as_str(),
                Some("unclassified command" | "refused by the table")
            )
        {
            failures.push(format!(
                "a client sent {} ({}), which the guard's table does not classify as forwarded or judged",
                v["method"], v["why"]
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The app's pages, on the protected hosts (`tests/attacks/app.rs`); tests/browser/guard_mcp.rs
/// serves its bank from it too.
#[path = "../attacks/app.rs"]
#[allow(dead_code)]
pub(crate) mod app;

/// The hosts the lived-in browser maps to the app.
const LIVED_IN_HOSTS: [&str; 4] = [
    "seven.sliccy.ai",
    "vault.sliccy.ai",
    "sliccy.ai",
    "ordinary.test",
];

/// The same clients through the proxy in front of a browser that has been lived in (see
/// tests/clients/lived-in.cjs: protected history, a protected tab and its titled popup, an
/// internal page, an ordinary page framing a protected one, another context, a protected
/// service worker): each connects, lists nothing protected or internal, and does every step
/// as on a fresh browser, every way onto the protected origin ending blocked.
#[test]
fn real_clients_work_in_a_lived_in_browser() {
    if needs::missing("/usr/bin/chromium", needs::chromium())
        || needs::missing("node", needs::node())
    {
        return;
    }
    let Some(modules) = clients_dir() else {
        return;
    };
    let app = app::App::start();
    let ui = proxy_common::with_browser_ui();
    let browser =
        Chromium::launch_with(CHROMIUM, &LIVED_IN_HOSTS, app.port(), &[&ui]).expect("chromium");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/lived-in.cjs");
    let setup = Command::new("node")
        .arg(&script)
        .arg(&modules)
        .arg(browser.http_url())
        .args([
            "http://seven.sliccy.ai",
            "http://vault.sliccy.ai",
            "http://ordinary.test",
        ])
        .output()
        .expect("node runs");
    let listed = String::from_utf8_lossy(&setup.stdout).into_owned();
    assert!(
        setup.status.success(),
        "the browser could not be lived in: {}",
        String::from_utf8_lossy(&setup.stderr)
    );
    // The lived-in state is really there, straight.
    for (what, needle) in [
        (
            "the protected service worker",
            "\"service_worker\",\"url\":\"http://seven.sliccy.ai/sw.js",
        ),
        ("the internal page", "chrome://version/"),
        (
            "the vault's popup titled by it",
            &format!("popup {}", app.secret()),
        ),
        (
            "the frame on seven",
            "\"iframe\",\"url\":\"http://seven.sliccy.ai/app?t=framed",
        ),
        (
            "the other context's vault tab",
            "vault.sliccy.ai/app?t=context",
        ),
        (
            "the tab that went on from seven",
            "ordinary.test/page?t=after",
        ),
    ] {
        assert!(listed.contains(needle), "lived-in: no {what} in {listed}");
    }
    let mut options = ProxyOptions::new(&browser.http_url());
    options.protect_paths = vec![browser.profile_dir().display().to_string()];
    let proxy = Proxy::start(options).expect("the proxy starts");
    let protected_url = "http://seven.sliccy.ai/app?t=clients&n=clients";
    let reached = || {
        app.log()
            .iter()
            .filter(|h| h.target.contains("n=clients"))
            .count()
    };
    let mut failures = Vec::new();
    for client in ["playwright", "puppeteer", "cri"] {
        let before = reached();
        let (through, order) = run(&modules, &proxy.endpoint(), protected_url, client);
        if reached() != before {
            failures.push(format!(
                "{client} through the proxy: the protected page was reached"
            ));
        }
        assert!(
            order.len() > 10,
            "{client}: too few steps ran in the lived-in browser: {order:?}"
        );
        judge(
            client,
            None,
            &through,
            &order,
            &[app.secret()],
            &mut failures,
        );
        println!("{client}: {} steps in the lived-in browser", order.len());
    }
    drop(proxy);
    drop(browser);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
