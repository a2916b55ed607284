//! The attacks' web server: a small protected app (on the protected hosts) and ordinary pages
//! (on every other host), on one loopback port that the browser's host-resolver rules point
//! every host at. Every request is logged with its host, target and headers, so an attack is
//! judged by what really reached the server, which the CDP client cannot fake.
//!
//! The app holds a **secret** made fresh for each server (random, never sent to a CDP client by
//! the harness): it is rendered into the app's document, its script, its title only where a
//! route says so, its service worker's URL, its cookie and its local storage. An attack that
//! brings the secret back (in a request to `/exfil`, or in what the client received) has read
//! the protected app.
//!
//! | route | answer |
//! |---|---|
//! | `/app?t=<tag>[&ms=<n>][&csp=1]` | (after `n` ms) the app (with `csp=1`: `Content-Security-Policy: script-src 'self'` and an inline script beaconing `/ev?k=inline`, which runs only where the CSP is bypassed): the secret in `#secret`, an `<input id=box>`, a `<button id=btn>`, a drop zone `#drop`, a draggable `#drag`, a link, `/app.js`; sets the `session` cookie (HttpOnly) |
//! | `/app.js` | the app's script: local storage, `window.__vault`, and a beacon `/ev?t=&k=<kind>&v=` to its own origin for each input, click, touch, key, drop, paste, copy, and at load for its time zone, locale, `navigator.onLine` and `Date.now()` (`tz`, `locale`, `online`, `time`: what renderer-wide overrides reach); `?sw=1` on the page registers `/sw.js?k=<secret>` |
//! | `/secret` | the secret when the request carries the `session` cookie, else `no-session` |
//! | `/secret.js` | a script holding the secret in a closure (no global); `keep=1`: a `message` listener keeps the closure alive |
//! | `/secret.css[?sel=1]` | a stylesheet holding the secret in generated content; `sel=1`: in a selector (`#ta, .never-<secret>`), which the page's computed styles do not show |
//! | `/sw.js` | a service worker answering `/swpage` itself and beaconing pushes |
//! | `/client-sw.js?img=<url>` | an ordinary page's own service worker: answers `/swimg.bmp` with a `no-cors` fetch of `img` (an opaque response) |
//! | `/shared.js` | a shared worker (`?shared=1` on the app page starts it) |
//! | `/secret.bmp` | a 6×1 24-bit BMP whose pixel bytes are the secret (blue, green, red, each pixel; grey without the `session` cookie): an image the app serves only to its user, which a page that shows it cannot read (a cross-origin image taints a canvas) |
//! | `/page?t=<tag>[&frame=<url>][&html=<html>]` | an ordinary page; with `frame`, an `<iframe id=f>` of it at the top left (400×300) and a `<textarea id=ta>` below; `html` goes into its body as it is (what the page's own script could write) |
//! | `/hop?to=<url>[&ms=<n>]` | a 302 to `to`, after `n` ms |
//! | `/popup?t=<tag>` | the app page, whose `openBlank()` opens an `about:blank` popup titled with the secret |
//! | `/download` | an attachment named after the secret, with the secret in it |
//! | `/frames?t=<tag>` | the app page embedding what belongs to it without its URL (issue 36): `#w`, an ordinary widget (`http://plain.example/widget`, out of process), `#sb`, a sandboxed `srcdoc` frame (its own process), `#df`, a sandboxed `data:` frame whose URL holds the secret, and `#sd`, a `srcdoc` frame without sandbox (the page's process, no target of its own) that loads an ordinary third-party script `http://plain.example/lib.js?t=<tag>`, and the page itself loads `http://plain.example/main-lib.js?t=<tag>` at the end of its body; the page posts the secret to `#w` and `#sb` every 300 ms; its `openWidget()` opens the widget as a popup and posts the secret to it too, its `startWorker()` starts a `data:` shared worker and posts the secret to it |
//! | `/widget?t=<tag>[&nest=1]` | an ordinary page that shows in `#secret` what it is posted and posts it on to its own frames; `nest=1`: it frames `http://cross.example/widget` (the vault's `#w` has it) |
//! | `/anon` | the secret with no cookie asked (an intranet page: readable by whoever can reach it, were it not for CORS) |
//! | `/exfil`, `/ev`, `/img`, anything else | 204 (logged) |

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// One request the server saw.
#[derive(Debug, Clone)]
pub struct Hit {
    /// The `Host` header, without the port.
    pub host: String,
    /// The request target (path and query).
    pub target: String,
    /// Header names in lower case, with their values.
    pub headers: Vec<(String, String)>,
}

impl Hit {
    /// The value of header `name` (lower case), if sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The path, without the query.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or_default()
    }

    /// The query parameter `name`, percent-decoded.
    pub fn param(&self, name: &str) -> Option<String> {
        let query = self.target.split_once('?')?.1;
        query.split('&').find_map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (k == name).then(|| decode(v))
        })
    }
}

/// Percent-decoding (and `+` as space), lossy.
pub fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                match u8::from_str_radix(hex, 16) {
                    Ok(b) => {
                        out.push(b);
                        i += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Percent-encodes everything but unreserved characters.
pub fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A random token of 16 hex digits.
pub fn random_token() -> String {
    let mut h = RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default(),
    );
    h.write_u32(std::process::id());
    format!("{:016x}", h.finish())
}

struct Shared {
    log: Mutex<Vec<Hit>>,
    secret: String,
    stop: AtomicBool,
}

/// The running server; dropping it stops it.
pub struct App {
    shared: Arc<Shared>,
    port: u16,
}

impl App {
    /// Binds a random loopback port and serves.
    pub fn start() -> App {
        let listener = TcpListener::bind("127.0.0.1:0").expect("the app binds a loopback port");
        let port = listener.local_addr().expect("a local address").port();
        let shared = Arc::new(Shared {
            log: Mutex::new(Vec::new()),
            secret: format!("S{}", random_token()),
            stop: AtomicBool::new(false),
        });
        let s = Arc::clone(&shared);
        thread::spawn(move || {
            for conn in listener.incoming() {
                if s.stop.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(conn) = conn {
                    let s = Arc::clone(&s);
                    thread::spawn(move || serve(conn, &s));
                }
            }
        });
        App { shared, port }
    }

    /// The port every host is mapped to.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The app's secret (the harness's only: never sent to a CDP client).
    pub fn secret(&self) -> &str {
        &self.shared.secret
    }

    /// Every request so far.
    pub fn log(&self) -> Vec<Hit> {
        self.shared
            .log
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Waits (at most `within`) for a request matching `pred`.
    pub fn wait(&self, within: Duration, pred: impl Fn(&Hit) -> bool) -> Option<Hit> {
        let deadline = Instant::now() + within;
        loop {
            if let Some(hit) = self.log().into_iter().find(|h| pred(h)) {
                return Some(hit);
            }
            if Instant::now() >= deadline {
                return None;
            }
            thread::sleep(Duration::from_millis(40));
        }
    }

    /// Waits for an `/exfil` request tagged `tag` whose `d` carries the secret: a document that
    /// could read the secret ran the attacker's script.
    pub fn exfiltrated(&self, tag: &str, within: Duration) -> Option<Hit> {
        let secret = self.secret().to_string();
        self.wait(within, |h| {
            h.path() == "/exfil"
                && h.param("t").as_deref() == Some(tag)
                && h.param("d").is_some_and(|d| d.contains(&secret))
        })
    }

    /// Waits for the app's own beacon of `kind` for page `tag`, sent by the protected page
    /// itself (same-origin fetch from a protected host), whose value contains `value`.
    pub fn app_event(&self, tag: &str, kind: &str, value: &str, within: Duration) -> Option<Hit> {
        self.wait(within, |h| {
            h.path() == "/ev"
                && is_protected_host(&h.host)
                && h.param("t").as_deref() == Some(tag)
                && h.param("k").as_deref() == Some(kind)
                && h.param("v").unwrap_or_default().contains(value)
                && h.header("sec-fetch-site") == Some("same-origin")
        })
    }
}

/// The protected site the attacks aim at: `sliccy.ai` (the catalog's), or the site named by
/// `ATTACKS_SITE` (say `bank.example`), which the guarded leg's proxy then protects with
/// `--protect` (`ProxyOptions::protect`) while the catalog knows nothing of it: the suite
/// re-targeted at a user's own site.
pub fn site() -> &'static str {
    static SITE: LazyLock<String> = LazyLock::new(|| {
        std::env::var("ATTACKS_SITE")
            .ok()
            .filter(|s| !s.trim().is_empty())
            .map(|s| s.trim().to_ascii_lowercase())
            .unwrap_or_else(|| "sliccy.ai".to_string())
    });
    SITE.as_str()
}

/// `text` with every `sliccy.ai` (`SLICCY.AI` in upper case) written as [`site`].
pub fn on_site(text: &str) -> String {
    text.replace("sliccy.ai", site())
        .replace("SLICCY.AI", &site().to_ascii_uppercase())
}

/// Whether `host` is one the attacks treat as protected: the catalog's `*.sliccy.ai` and the
/// proxy's extra origin's host, `client.example`.
pub fn is_protected_host(host: &str) -> bool {
    let site = site();
    host == site
        || host.strip_suffix(site).is_some_and(|h| h.ends_with('.'))
        || host == "client.example"
}

impl Drop for App {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn serve(conn: TcpStream, shared: &Shared) {
    let _ = conn.set_read_timeout(Some(Duration::from_secs(10)));
    let mut reader = BufReader::new(match conn.try_clone() {
        Ok(c) => c,
        Err(_) => return,
    });
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() || line.is_empty() {
        return;
    }
    let mut parts = line.split_whitespace();
    let _method = parts.next().unwrap_or_default().to_string();
    let target = parts.next().unwrap_or("/").to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).is_err() {
            return;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((n, v)) = h.split_once(':') {
            headers.push((n.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let len: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len.min(1 << 20)];
    let _ = reader.read_exact(&mut body);
    let host = headers
        .iter()
        .find(|(n, _)| n == "host")
        .map(|(_, v)| v.split(':').next().unwrap_or_default().to_ascii_lowercase())
        .unwrap_or_default();
    let hit = Hit {
        host,
        target,
        headers,
    };
    // A flood's requests (long URLs, thousands a second: see the attacks' `flood`) are not
    // kept: the log is scanned on every wait.
    if hit.path() != "/flood" {
        shared
            .log
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(hit.clone());
    }
    let (status, headers, body) = route(&hit, shared);
    let mut out = conn;
    let mut head = format!(
        "HTTP/1.1 {status}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (n, v) in headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let _ = out.write_all(head.as_bytes());
    let _ = out.write_all(&body);
    let _ = out.flush();
}

type Answer = (&'static str, Vec<(&'static str, String)>, Vec<u8>);

fn html(body: String) -> Answer {
    (
        "200 OK",
        vec![("Content-Type", "text/html; charset=utf-8".into())],
        body.into_bytes(),
    )
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The app's document (for `/app`, `/popup` and `/cached`).
fn app_page(tag: &str, secret: &str, extra_head: &str) -> String {
    let tag = escape(tag);
    format!(
        r#"<!doctype html><html><head><meta charset="utf-8"><title>vault {tag}</title>{extra_head}
<script src="/app.js"></script></head>
<body style="margin:0;font:16px sans-serif" data-tag="{tag}">
<p id="secret" style="position:absolute;left:0;top:0;margin:0;height:30px">{secret}</p>
<input id="box" style="position:absolute;left:0;top:40px;width:200px;height:30px">
<button id="btn" style="position:absolute;left:0;top:80px;width:200px;height:40px">go</button>
<div id="drop" style="position:absolute;left:0;top:130px;width:200px;height:60px;background:#ddd">drop</div>
<div id="drag" draggable="true" style="position:absolute;left:220px;top:130px;width:60px;height:60px;background:#c33">{secret}</div>
<a id="link" href="/linked?t={tag}" style="position:absolute;left:0;top:200px">link</a>
<input id="file" type="file" style="position:absolute;left:0;top:230px">
</body></html>"#
    )
}

/// An ordinary page showing in `#secret` whatever it is posted (a widget, a popup).
/// It passes what it is posted on to its own frames; `nest=1` frames another site's widget.
fn widget(hit: &Hit) -> String {
    let nest = if hit.param("nest").is_some() {
        format!(
            r#"<iframe id="n" src="http://cross.example/widget?t={}"></iframe>"#,
            encode(&hit.param("t").unwrap_or_default())
        )
    } else {
        String::new()
    };
    format!(
        r#"<!doctype html><html><head><meta charset="utf-8"><title>widget</title></head>
<body><p id="secret"></p>{nest}<script>addEventListener("message", (e) => {{ document.getElementById("secret").textContent = String(e.data); for (const f of document.querySelectorAll("iframe")) f.contentWindow.postMessage(e.data, "*"); }});</script></body></html>"#
    )
}

/// The app's page with what belongs to it without its URL (see the module's table).
fn frames_page(tag: &str, secret: &str) -> String {
    let t = encode(tag);
    let receiver = "<p id=secret></p><script>addEventListener('message', (e) => { document.getElementById('secret').textContent = String(e.data); });</script>";
    let data = format!(
        "data:text/html,{}",
        encode(&format!("<title>data</title><p id=secret>{secret}</p>"))
    );
    let srcdoc = format!("<script src='http://plain.example/lib.js?t={t}'></script><p>srcdoc</p>");
    let worker = "let got = ''; onconnect = (e) => { const p = e.ports[0]; p.onmessage = (m) => { got = String(m.data); self.got = got; }; p.start(); };";
    let frames = format!(
        r#"<iframe id="w" src="http://plain.example/widget?t={t}&amp;nest=1" style="position:absolute;left:300px;top:0;width:200px;height:100px"></iframe>
<iframe id="sb" sandbox="allow-scripts" srcdoc="{sb}" style="position:absolute;left:300px;top:110px;width:200px;height:60px"></iframe>
<iframe id="df" sandbox="allow-scripts" src="{df}" style="position:absolute;left:300px;top:180px;width:200px;height:60px"></iframe>
<iframe id="sd" srcdoc="{sd}" style="position:absolute;left:300px;top:250px;width:200px;height:60px"></iframe>
<script>
(() => {{
  const secret = document.getElementById("secret").textContent;
  setInterval(() => {{
    for (const id of ["w", "sb"]) {{ try {{ document.getElementById(id).contentWindow.postMessage(secret, "*"); }} catch (e) {{}} }}
    if (window.__popup) {{ try {{ window.__popup.postMessage(secret, "*"); }} catch (e) {{}} }}
    if (window.__worker) {{ try {{ window.__worker.port.postMessage(secret); }} catch (e) {{}} }}
  }}, 300);
  window.openWidget = () => {{ window.__popup = window.open("http://plain.example/widget?t={t}&popup=1", "_blank"); return !!window.__popup; }};
  window.startWorker = () => {{ window.__worker = new SharedWorker("data:text/javascript," + encodeURIComponent({worker})); window.__worker.port.start(); return true; }};
}})();
</script>"#,
        sb = escape(receiver),
        df = escape(&data),
        sd = escape(&srcdoc),
        worker = serde_json::to_string(worker).unwrap_or_default(),
    );
    let main_lib = format!("<script src=\"http://plain.example/main-lib.js?t={t}\"></script>");
    app_page(tag, secret, "").replace("</body>", &format!("{frames}{main_lib}</body>"))
}

/// The app's script: beacons to its own origin, storage, a closure over the secret.
fn app_js(secret: &str) -> String {
    format!(
        r#"(function () {{
  const secret = "{secret}";
  window.__vault = {{ secret: secret }};
  try {{ localStorage.setItem("vault-secret", secret); }} catch (e) {{}}
  const tag = () => document.body ? document.body.dataset.tag : "";
  const ev = (k, v) => fetch("/ev?t=" + encodeURIComponent(tag()) + "&k=" + k + "&v=" + encodeURIComponent(v || ""), {{ credentials: "include" }}).catch(() => {{}});
  window.vaultEvent = ev;
  document.addEventListener("DOMContentLoaded", () => {{
    const box = document.getElementById("box");
    box.addEventListener("input", () => ev("typed", box.value));
    box.addEventListener("paste", (e) => ev("pasted", e.clipboardData ? e.clipboardData.getData("text") : ""));
    document.addEventListener("keydown", (e) => ev("key", e.key));
    document.getElementById("btn").addEventListener("click", () => ev("clicked", "btn"));
    document.addEventListener("touchstart", () => ev("touched", "touch"));
    document.addEventListener("copy", () => ev("copied", String(document.getSelection())));
    const file = document.getElementById("file");
    file.addEventListener("change", () => ev("file", Array.from(file.files).map((f) => f.name).join(",")));
    if (location.search.includes("shared=1")) {{
      try {{ window.__shared = new SharedWorker("/shared.js?k=" + secret); window.__shared.port.start(); }} catch (e) {{ ev("shared", "failed " + e); }}
    }}
    ev("tz", Intl.DateTimeFormat().resolvedOptions().timeZone);
    ev("locale", Intl.NumberFormat().resolvedOptions().locale + " " + navigator.language);
    ev("online", String(navigator.onLine));
    ev("time", String(Date.now()));
    const drop = document.getElementById("drop");
    drop.addEventListener("dragover", (e) => e.preventDefault());
    drop.addEventListener("drop", (e) => {{ e.preventDefault(); ev("dropped", e.dataTransfer.getData("text/plain")); }});
    document.getElementById("drag").addEventListener("dragstart", (e) => e.dataTransfer.setData("text/plain", secret));
    if (location.search.includes("sw=1") && navigator.serviceWorker) {{
      navigator.serviceWorker.register("/sw.js?k=" + secret).then(() => ev("sw", "registered"), (e) => ev("sw", "failed " + e));
    }}
    if (location.search.includes("busy=1")) {{
      const spin = new Function("return function vaultSpin_" + secret + "() {{ let x = 0; for (let i = 0; i < 200000; i++) x += i; return x; }}")();
      setInterval(spin, 5);
    }}
    try {{
      const r = indexedDB.open("vault", 1);
      r.onupgradeneeded = () => r.result.createObjectStore("kv");
      r.onsuccess = () => {{
        const tx = r.result.transaction("kv", "readwrite");
        tx.objectStore("kv").put(secret, "secret");
        tx.oncomplete = () => ev("idb", "stored");
      }};
    }} catch (e) {{}}
    try {{
      caches.open("vault").then((c) => c.put("/cached-secret", new Response(secret))).then(() => ev("cache", "stored"), () => {{}});
    }} catch (e) {{}}
    ev("loaded", location.href);
  }});
  window.makeBlob = () => URL.createObjectURL(new Blob(["<title>blob</title><p id=secret>" + secret + "</p>"], {{ type: "text/html" }}));
  window.openBlank = () => {{
    const w = window.open("about:blank", "_blank");
    w.document.title = "popup " + secret;
    w.document.body.textContent = secret;
    return !!w;
  }};
}})();
"#
    )
}

const SW_JS: &str = r#"
self.addEventListener("install", (e) => self.skipWaiting());
self.addEventListener("activate", (e) => e.waitUntil(self.clients.claim()));
self.addEventListener("fetch", (e) => {
  const u = new URL(e.request.url);
  if (u.pathname === "/swpage") {
    const k = new URL(self.location.href).searchParams.get("k");
    e.respondWith(new Response('<!doctype html><title>sw page</title><body data-tag="' + (u.searchParams.get("t") || "") + '"><p id="secret">' + k + '</p></body>', { headers: { "content-type": "text/html" } }));
  }
  // An app's bug: an error the worker does not catch, its message naming what it held.
  if (u.pathname === "/swerr") {
    throw new Error("vault worker failed on " + new URL(self.location.href).searchParams.get("k"));
  }
});
self.addEventListener("push", (e) => {
  const d = e.data ? e.data.text() : "";
  e.waitUntil(fetch("/ev?t=push&k=pushed&v=" + encodeURIComponent(d)));
});
"#;

/// An ordinary page's own service worker: it answers `/swimg.bmp` with a `no-cors` fetch (the
/// user's cookies go with it) of the URL in its own `img` parameter, an opaque response the
/// page may show but not read.
const CLIENT_SW_JS: &str = r#"
self.addEventListener("install", (e) => self.skipWaiting());
self.addEventListener("activate", (e) => e.waitUntil(self.clients.claim()));
self.addEventListener("fetch", (e) => {
  const u = new URL(e.request.url);
  if (u.pathname === "/swimg.bmp") {
    const img = new URL(self.location.href).searchParams.get("img");
    e.respondWith(fetch(img, { mode: "no-cors", credentials: "include" }));
  }
});
"#;

/// A 24-bit BMP one pixel high whose pixel bytes are `bytes` (padded with zeros to whole
/// pixels): pixel `i` is blue `bytes[3i]`, green `bytes[3i + 1]`, red `bytes[3i + 2]`.
pub fn bmp(bytes: &[u8]) -> Vec<u8> {
    let width = bytes.len().div_ceil(3);
    let row = (width * 3).div_ceil(4) * 4;
    let size = 54 + row;
    let mut b = Vec::with_capacity(size);
    b.extend_from_slice(b"BM");
    b.extend_from_slice(&(size as u32).to_le_bytes());
    b.extend_from_slice(&[0; 4]);
    b.extend_from_slice(&54u32.to_le_bytes());
    b.extend_from_slice(&40u32.to_le_bytes());
    b.extend_from_slice(&(width as i32).to_le_bytes());
    b.extend_from_slice(&1i32.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&24u16.to_le_bytes());
    b.extend_from_slice(&[0; 4]);
    b.extend_from_slice(&(row as u32).to_le_bytes());
    b.extend_from_slice(&[0; 16]);
    b.extend_from_slice(bytes);
    b.resize(size, 0);
    b
}

fn route(hit: &Hit, shared: &Shared) -> Answer {
    let secret = shared.secret.as_str();
    let tag = hit.param("t").unwrap_or_default();
    match hit.path() {
        "/app" | "/cached" => {
            if let Some(ms) = hit.param("ms").and_then(|m| m.parse::<u64>().ok()) {
                thread::sleep(Duration::from_millis(ms.min(20_000)));
            }
            // `csp=1`: scripts from its own origin only, and an inline script that beacons
            // `/ev?k=inline` (what runs only where the CSP is bypassed).
            let csp = hit.param("csp").is_some();
            let extra = if csp {
                format!(
                    "<script>fetch('/ev?t={}&k=inline')</script>",
                    encode(&tag)
                )
            } else {
                String::new()
            };
            let mut a = html(app_page(&tag, secret, &extra));
            if csp {
                a.1.push(("Content-Security-Policy", "script-src 'self'".into()));
            }
            a.1.push(("Set-Cookie", format!("session={secret}; Path=/; HttpOnly")));
            a.1.push(("Set-Cookie", format!("vaultjs={secret}; Path=/")));
            if hit.path() == "/cached" {
                a.1.push(("Cache-Control", "max-age=600".into()));
            } else if hit.param("nostore").is_some() {
                a.1.push(("Cache-Control", "no-store".into()));
            }
            a
        }
        "/popup" => html(app_page(&tag, secret, "")),
        "/frames" => html(frames_page(&tag, secret)),
        "/widget" => html(widget(hit)),
        "/anon" => (
            "200 OK",
            vec![("Content-Type", "text/plain".into())],
            format!("anon {secret}").into_bytes(),
        ),
        "/secret.bmp" => {
            let has = hit
                .header("cookie")
                .is_some_and(|c| c.contains(&format!("session={secret}")));
            let pixels = if has {
                secret.as_bytes().to_vec()
            } else {
                vec![0x80; secret.len()]
            };
            (
                "200 OK",
                vec![("Content-Type", "image/bmp".into())],
                bmp(&pixels),
            )
        }
        "/app.js" => (
            "200 OK",
            vec![("Content-Type", "text/javascript".into())],
            app_js(secret).into_bytes(),
        ),
        "/secret" => {
            let has = hit
                .header("cookie")
                .is_some_and(|c| c.contains(&format!("session={secret}")));
            (
                "200 OK",
                vec![("Content-Type", "text/plain".into())],
                if has {
                    secret.as_bytes().to_vec()
                } else {
                    b"no-session".to_vec()
                },
            )
        }
        // `keep=1`: the closure outlives the script (a `message` listener holds it).
        "/secret.js" if hit.param("keep").is_some() => (
            "200 OK",
            vec![("Content-Type", "text/javascript".into())],
            format!("(function () {{ const k = {{ v: \"{secret}\" }}; window.addEventListener(\"message\", function vaultListener() {{ return k.v.length; }}); }})();\n")
                .into_bytes(),
        ),
        "/secret.js" => (
            "200 OK",
            vec![("Content-Type", "text/javascript".into())],
            format!("(function () {{ const k = \"{secret}\"; return k.length; }})();\n")
                .into_bytes(),
        ),
        // `sel=1`: the secret in a selector, which no computed style shows the page.
        "/secret.css" if hit.param("sel").is_some() => (
            "200 OK",
            vec![("Content-Type", "text/css".into())],
            format!("#ta, .never-{secret} {{ color: red; }}\n").into_bytes(),
        ),
        "/secret.css" => (
            "200 OK",
            vec![("Content-Type", "text/css".into())],
            format!("#vault-note::after {{ content: \"{secret}\"; }}\n").into_bytes(),
        ),
        "/shared.js" => (
            "200 OK",
            vec![("Content-Type", "text/javascript".into())],
            b"self.onconnect = (e) => { e.ports[0].start(); };\n".to_vec(),
        ),
        "/client-sw.js" => (
            "200 OK",
            vec![("Content-Type", "text/javascript".into())],
            CLIENT_SW_JS.as_bytes().to_vec(),
        ),
        "/sw.js" => (
            "200 OK",
            vec![("Content-Type", "text/javascript".into())],
            SW_JS.as_bytes().to_vec(),
        ),
        "/page" => {
            let frame = hit.param("frame").map(|f| {
                format!(
                    r#"<iframe id="f" src="{}" style="position:absolute;left:0;top:0;width:400px;height:300px;border:0"></iframe>"#,
                    escape(&f)
                )
            });
            html(format!(
                r#"<!doctype html><html><head><meta charset="utf-8"><title>page {}</title></head>
<body style="margin:0">{}<textarea id="ta" style="position:absolute;left:0;top:320px;width:300px;height:40px"></textarea>
<p style="position:absolute;top:380px">ordinary</p></body></html>"#,
                escape(&tag),
                frame.unwrap_or_default() + &hit.param("html").unwrap_or_default()
            ))
        }
        "/hop" => {
            if let Some(ms) = hit.param("ms").and_then(|m| m.parse::<u64>().ok()) {
                thread::sleep(Duration::from_millis(ms.min(20_000)));
            }
            let to = hit.param("to").unwrap_or_else(|| "/page".into());
            ("302 Found", vec![("Location", to)], Vec::new())
        }
        "/download" => (
            "200 OK",
            vec![
                ("Content-Type", "application/octet-stream".into()),
                (
                    "Content-Disposition",
                    format!("attachment; filename=\"dl-{secret}.bin\""),
                ),
            ],
            format!("data {secret}").into_bytes(),
        ),
        _ => ("204 No Content", Vec::new(), Vec::new()),
    }
}
