//! The sweep's harness: a headless Chromium (the crate's own launcher) with the sweep's server
//! ([`app::App`]) behind every host, two unguarded connections straight to the browser (the
//! observer, which reads the protected page, and the actor, whose sessions send the swept
//! commands), and on demand the crate's [`Proxy`] in front of the same browser.
//!
//! A [`World`] is what the sweep sweeps from: the protected page (`http://client.example/…`,
//! the proxy's extra origin) with its frames, worker and popup, an ordinary same-site page
//! with its `about:blank` popup, and an ordinary tab (what the root session names).
#![allow(dead_code)]

pub mod app;
pub mod params;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use slicc_browsers::guard::proxy::{Proxy, ProxyOptions};
use slicc_browsers::harness::cdp::{CdpClient, CdpOptions};
use slicc_browsers::harness::runner::{CallError, Transport};
use slicc_browsers::harness::selftest::Chromium;

use app::App;

/// Debian's Chromium.
pub const CHROMIUM: &str = "/usr/bin/chromium";

/// The hosts mapped to the server.
pub const HOSTS: [&str; 5] = [
    "client.example",
    "other.client.example",
    "ordinary.test",
    "plain.example",
    "vault.sliccy.ai",
];

/// The extra protected origin given to the proxy.
pub const EXTRA_ORIGIN: &str = "http://client.example";

/// The protected page.
pub const PROTECTED_URL: &str = "http://client.example/protected";

/// The ordinary same-site page.
pub const SAME_SITE_URL: &str = "http://other.client.example/same";

/// An ordinary tab (the target the root session's commands name).
pub const ORDINARY_TAB_URL: &str = "http://plain.example/blank";

/// How long a swept command may take.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(2);

/// The kinds of session the sweep sends commands on.
pub const KINDS: [&str; 7] = [
    "widget",
    "sandboxed",
    "worker",
    "popup",
    "same-site",
    "blank-popup",
    "root",
];

/// What each kind is.
pub fn kind_what(kind: &str) -> &'static str {
    match kind {
        "widget" => "the protected page's cross-site iframe (http://ordinary.test/widget)",
        "sandboxed" => "the protected page's sandboxed srcdoc iframe",
        "worker" => "the data: shared worker the protected page started",
        "popup" => "the popup the protected page opened (http://ordinary.test/popup, opener kept)",
        "same-site" => "an ordinary same-site page (http://other.client.example/same)",
        "blank-popup" => "the about:blank popup the same-site page opened",
        "root" => "the browser (root) session",
        _ => "?",
    }
}

/// A browser, its server, the observer and the actor.
pub struct Leg {
    /// The server behind every host.
    pub app: App,
    /// Reads the protected page (unguarded).
    pub observer: CdpClient,
    /// Sends the swept commands (unguarded).
    pub actor: CdpClient,
    /// The browser (its process group is killed on drop).
    pub chromium: Chromium,
    /// The proxy in front of the browser, once asked for.
    pub proxy: Option<Proxy>,
}

impl Leg {
    /// Starts the server, the browser and both connections.
    pub fn start() -> Result<Leg, String> {
        let app = App::start();
        let chromium = Chromium::launch(CHROMIUM, &HOSTS, app.port()).map_err(|e| e.to_string())?;
        let connect = |what: &str| {
            CdpClient::connect(
                chromium.ws_url(),
                CdpOptions::new()
                    .call_timeout(Duration::from_secs(10))
                    .max_events(2000),
            )
            .map_err(|e| format!("{what}: {e}"))
        };
        let observer = connect("observer")?;
        let actor = connect("actor")?;
        Ok(Leg {
            app,
            observer,
            actor,
            chromium,
            proxy: None,
        })
    }

    /// Whether the browser still answers.
    pub fn alive(&self) -> bool {
        !self.observer.is_closed()
            && self
                .observer
                .send_timeout("Target.getTargets", json!({}), None, Duration::from_secs(3))
                .is_ok()
    }

    /// The proxy's WebSocket (started on first use).
    pub fn proxy_ws(&mut self) -> Result<String, String> {
        if self.proxy.is_none() {
            let mut options = ProxyOptions::new(&self.chromium.http_url());
            options.origins = vec![EXTRA_ORIGIN.to_string()];
            options.protect_paths = vec![self.chromium.profile_dir().display().to_string()];
            self.proxy = Some(Proxy::start(options).map_err(|e| format!("proxy: {e}"))?);
        }
        Ok(self
            .proxy
            .as_ref()
            .map(|p| p.websocket_url())
            .unwrap_or_default())
    }

    /// The browser's `/json/protocol`.
    pub fn protocol(&self) -> Result<Value, String> {
        let body = http_get(&self.chromium.http_url(), "/json/protocol");
        serde_json::from_str(&body).map_err(|e| format!("/json/protocol: {e}"))
    }

    /// Every target the observer sees.
    pub fn targets(&self) -> Vec<Value> {
        self.observer
            .send("Target.getTargets", json!({}), None)
            .ok()
            .and_then(|r| r["targetInfos"].as_array().cloned())
            .unwrap_or_default()
    }

    /// Closes every page, resets permissions, and builds a fresh [`World`].
    pub fn build(&self) -> Result<World, String> {
        for t in self.targets() {
            if t["type"] == "page" {
                let _ = self.observer.send(
                    "Target.closeTarget",
                    json!({"targetId": t["targetId"]}),
                    None,
                );
            }
        }
        let _ = self
            .observer
            .send("Browser.resetPermissions", json!({}), None);
        let _ = self.observer.send("Storage.clearCookies", json!({}), None);
        let ordinary = self.open(ORDINARY_TAB_URL)?;
        let same_site = self.open(SAME_SITE_URL)?;
        let protected = self.open(PROTECTED_URL)?;
        let session = self
            .observer
            .attach(&protected)
            .map_err(|e| format!("the observer's attach: {e}"))?;
        let _ = self
            .observer
            .send("Network.enable", json!({}), Some(&session));
        let mut world = World {
            protected,
            session,
            targets: BTreeMap::new(),
            contexts: BTreeMap::new(),
        };
        world.targets.insert("root".into(), ordinary.clone());
        world.targets.insert("same-site".into(), same_site.clone());
        let opened = self.eval(&world.session, "openPopup()")?;
        if opened != json!(true) {
            return Err(format!("the protected page's popup did not open: {opened}"));
        }
        let s = self
            .observer
            .attach(&same_site)
            .map_err(|e| format!("attach same-site: {e}"))?;
        let _ = self.observer.send(
            "Runtime.evaluate",
            json!({"expression": "openBlank()", "userGesture": true, "returnByValue": true}),
            Some(&s),
        );
        let _ = self
            .observer
            .send("Target.detachFromTarget", json!({"sessionId": s}), None);
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let targets = self.targets();
            for t in &targets {
                let id = t["targetId"].as_str().unwrap_or_default().to_string();
                let url = t["url"].as_str().unwrap_or_default();
                let kind = match t["type"].as_str().unwrap_or_default() {
                    "iframe" if url.contains("ordinary.test/widget") => "widget",
                    "iframe" if url.starts_with("about:srcdoc") => "sandboxed",
                    "shared_worker" if url.starts_with("data:") => "worker",
                    "page" if url.contains("ordinary.test/popup") => "popup",
                    "page" if t["openerId"] == json!(same_site) => "blank-popup",
                    _ => continue,
                };
                world.targets.insert(kind.into(), id);
            }
            for t in &targets {
                if let (Some(id), Some(c)) =
                    (t["targetId"].as_str(), t["browserContextId"].as_str())
                {
                    world.contexts.insert(id.to_string(), c.to_string());
                }
            }
            let all = KINDS.iter().all(|k| world.targets.contains_key(*k));
            if all || Instant::now() >= deadline {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        // Let the popup and the frames finish loading.
        std::thread::sleep(Duration::from_millis(300));
        Ok(world)
    }

    /// Opens `url` in a new tab (observer) and waits until it loaded: its target id.
    fn open(&self, url: &str) -> Result<String, String> {
        let t = self
            .observer
            .send("Target.createTarget", json!({"url": url}), None)
            .map_err(|e| format!("open {url}: {e}"))?;
        let id = t["targetId"].as_str().unwrap_or_default().to_string();
        let s = self
            .observer
            .attach(&id)
            .map_err(|e| format!("attach {url}: {e}"))?;
        let deadline = Instant::now() + Duration::from_secs(15);
        let check = format!(
            "location.href.startsWith({}) && document.readyState === 'complete'",
            json!(url)
        );
        let mut ok = false;
        while Instant::now() < deadline {
            if self.eval(&s, &check).ok() == Some(json!(true)) {
                ok = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self
            .observer
            .send("Target.detachFromTarget", json!({"sessionId": s}), None);
        if ok {
            Ok(id)
        } else {
            Err(format!("{url} never loaded"))
        }
    }

    /// The observer evaluates `expr` (awaiting promises, with a user gesture) on `session`.
    pub fn eval(&self, session: &str, expr: &str) -> Result<Value, String> {
        let r = self
            .observer
            .send_timeout(
                "Runtime.evaluate",
                json!({"expression": expr, "returnByValue": true, "awaitPromise": true, "userGesture": true}),
                Some(session),
                COMMAND_TIMEOUT,
            )
            .map_err(|e| e.to_string())?;
        if let Some(ex) = r.get("exceptionDetails") {
            return Err(format!("the page threw: {ex}"));
        }
        Ok(r["result"]["value"].clone())
    }

    /// The observer's reading of the protected page; a page that does not answer within
    /// [`COMMAND_TIMEOUT`] is read once more (a loaded machine stalls a renderer now and
    /// then), and counts as not live only when it does not answer twice.
    pub fn read(&self, world: &World) -> Reading {
        let r = self.read_once(world);
        if r.live() {
            return r;
        }
        self.read_once(world)
    }

    fn read_once(&self, world: &World) -> Reading {
        let mut fields = BTreeMap::new();
        match self.eval(&world.session, READ_JS) {
            Ok(Value::Object(map)) => {
                fields.insert("live".into(), json!(true));
                for (k, v) in map {
                    fields.insert(k, v);
                }
            }
            Ok(other) => {
                fields.insert("live".into(), json!(format!("answered {other}")));
            }
            Err(e) => {
                fields.insert("live".into(), json!(format!("no answer: {e}")));
            }
        }
        let cookies = self
            .observer
            .send_timeout(
                "Network.getCookies",
                json!({"urls": [PROTECTED_URL]}),
                Some(&world.session),
                COMMAND_TIMEOUT,
            )
            .map(|r| {
                let mut c: Vec<String> = r["cookies"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
                    .iter()
                    .map(|c| {
                        format!(
                            "{}={};{};{}",
                            c["name"].as_str().unwrap_or_default(),
                            c["value"].as_str().unwrap_or_default(),
                            c["domain"].as_str().unwrap_or_default(),
                            c["path"].as_str().unwrap_or_default()
                        )
                    })
                    .collect();
                c.sort();
                json!(c)
            })
            .unwrap_or_else(|e| json!(format!("error: {e}")));
        fields.insert("cookies".into(), cookies);
        Reading { fields }
    }
}

impl Leg {
    /// Puts back what the observer can (the input counter) and reads again: whether the
    /// protected page now reads as `baseline` (else the world must be built afresh).
    pub fn restored(&self, world: &World, baseline: &Reading) -> bool {
        let _ = self.eval(&world.session, "window.__inputs = 0");
        self.read(world).changes(baseline).is_empty()
    }
}

impl Drop for Leg {
    fn drop(&mut self) {
        self.observer.close();
        self.actor.close();
        if let Some(mut p) = self.proxy.take() {
            p.close();
        }
        self.chromium.kill();
    }
}

/// What the sweep sweeps from.
#[derive(Debug, Clone)]
pub struct World {
    /// The protected page's target.
    pub protected: String,
    /// The observer's session on it.
    pub session: String,
    /// Each kind's target (`root`: the ordinary tab its commands name).
    pub targets: BTreeMap<String, String>,
    /// Each target's browser context.
    pub contexts: BTreeMap<String, String>,
}

/// The observer's script: what the protected page shows of its state.
pub const READ_JS: &str = r#"(async () => {
  const h = s => { let x = 0; for (let i = 0; i < s.length; i++) x = (x * 31 + s.charCodeAt(i)) | 0; return x; };
  const perm = async n => { try { return (await navigator.permissions.query({name: n})).state; } catch (e) { return 'error'; } };
  const geolocationPermission = await perm('geolocation');
  // The position only when it may be read (a prompt would wait).
  const geo = geolocationPermission !== 'granted' ? 'not granted' : await new Promise(r => {
    setTimeout(() => r('timeout'), 150);
    try { navigator.geolocation.getCurrentPosition(p => r(p.coords.latitude + ',' + p.coords.longitude), e => r('error ' + e.code), {timeout: 100}); } catch (e) { r('throws'); }
  });
  const o = Intl.DateTimeFormat().resolvedOptions();
  return {
    url: location.href,
    dom: h(document.documentElement.outerHTML),
    localStorage: JSON.stringify(Object.entries(localStorage).sort()),
    documentCookie: document.cookie,
    geolocationPermission,
    notificationsPermission: await perm('notifications'),
    cameraPermission: await perm('camera'),
    timezone: o.timeZone,
    locale: navigator.language + '|' + o.locale,
    screen: screen.width + 'x' + screen.height,
    devicePixelRatio: devicePixelRatio,
    inner: innerWidth + 'x' + innerHeight,
    online: navigator.onLine,
    userAgent: navigator.userAgent,
    dark: matchMedia('(prefers-color-scheme: dark)').matches,
    hardwareConcurrency: navigator.hardwareConcurrency,
    geolocation: geo,
    inputs: window.__inputs,
    visibility: document.visibilityState,
  };
})()"#;

/// One reading of the protected page.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    /// Each thing read, by name (`live`: `true` when the page answered within 2 s).
    pub fields: BTreeMap<String, Value>,
}

impl Reading {
    /// Whether the page answered.
    pub fn live(&self) -> bool {
        self.fields.get("live") == Some(&json!(true))
    }

    /// What differs from `before`: `field: before -> after`, one per field.
    pub fn changes(&self, before: &Reading) -> Vec<String> {
        let mut out = Vec::new();
        let keys: std::collections::BTreeSet<&String> =
            self.fields.keys().chain(before.fields.keys()).collect();
        for k in keys {
            let a = before.fields.get(k).cloned().unwrap_or(Value::Null);
            let b = self.fields.get(k).cloned().unwrap_or(Value::Null);
            // A page that did not answer shows nothing else.
            if !self.live() && k != "live" && k != "cookies" {
                continue;
            }
            if a != b {
                out.push(format!("{k}: {} -> {}", clip(&a), clip(&b)));
            }
        }
        out
    }
}

fn clip(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 80 {
        format!("{}…", s.chars().take(80).collect::<String>())
    } else {
        s
    }
}

/// Whether `e` is a refusal of the guard.
pub fn refused(e: &CallError) -> bool {
    matches!(e, CallError::Protocol { message, .. } if message.contains("slicc"))
}

/// An HTTP GET on `base` (`http://host:port`): the body.
pub fn http_get(base: &str, path: &str) -> String {
    let addr = base.trim_start_matches("http://");
    let Ok(mut s) = TcpStream::connect(addr) else {
        return String::new();
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(10)));
    let _ = write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    );
    let mut buf = Vec::new();
    let mut chunk = [0u8; 65536];
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
    text.split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default()
}
