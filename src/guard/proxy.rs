//! `slicc-browsers guard proxy`: a CDP relay around [`Policy`] (feature `guard-proxy`, not on
//! `wasm32-wasip1`).
//!
//! [`Proxy::start`] listens on a loopback port and serves what a CDP client looks for:
//! `/json/version` (the browser's, with the proxy's `webSocketDebuggerUrl`), `/json/protocol`
//! (the browser's schema), a filtered `/json/list` (protected targets left out, every URL pointing at the proxy, no DevTools front
//! end links) and a WebSocket at `/devtools/browser/<id>`. Each client connection gets one
//! upstream connection to the browser and one [`Policy`]; every frame either way goes through
//! the policy, and only what it returns is sent on, in order. Bad client input gets a protocol
//! error or a closed connection: text that is not JSON is answered by the policy, a binary
//! frame that is not UTF-8 or a frame over the size limit closes the connection, and a client
//! that goes away mid-call closes its upstream connection. Nothing reaches the browser that the
//! policy did not see, and nothing the client sends makes the proxy panic.
//!
//! ```no_run
//! use slicc_browsers::guard::proxy::{Proxy, ProxyOptions};
//! let proxy = Proxy::start(ProxyOptions::new("http://127.0.0.1:9333"))?;
//! println!("cdp {}", proxy.endpoint());
//! println!("webSocketDebuggerUrl {}", proxy.websocket_url());
//! # Ok::<(), String>(())
//! ```

use std::collections::{HashMap, HashSet};
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::Value;
use tungstenite::protocol::frame::coding::CloseCode;
use tungstenite::protocol::frame::CloseFrame;
use tungstenite::protocol::{Role, WebSocket, WebSocketConfig};
use tungstenite::Message;

use super::policy::Policy;
use crate::http::Request;
use crate::protected::{Matcher, Opener};
use crate::ws::{self, ConnectError, ReadHalf, Received, Writer};

/// The largest request head the proxy reads from a client.
const HEAD_LIMIT: usize = 16 * 1024;
/// The largest `/json/*` answer read from the browser.
const JSON_LIMIT: usize = 8 << 20;

/// How to run a [`Proxy`].
#[derive(Debug, Clone)]
pub struct ProxyOptions {
    /// The browser: `http://host:port` (its DevTools endpoint) or its `ws://…/devtools/browser/…`.
    pub upstream: String,
    /// Where to listen (`127.0.0.1:0` picks a free port).
    pub listen: String,
    /// The program's extra protected origins (slicc-cli's `--origin`).
    pub origins: Vec<String>,
    /// The largest message a client may send, in bytes; a larger one closes its connection.
    pub max_client_message: usize,
    /// The largest message the browser may send, in bytes (screenshots are large).
    pub max_browser_message: usize,
    /// Client connections served at once; more are answered 503.
    pub max_connections: usize,
}

impl ProxyOptions {
    /// Options for `upstream`, listening on `127.0.0.1:0`, without extra origins.
    pub fn new(upstream: &str) -> ProxyOptions {
        ProxyOptions {
            upstream: upstream.to_string(),
            listen: "127.0.0.1:0".into(),
            origins: Vec::new(),
            max_client_message: 16 << 20,
            max_browser_message: 256 << 20,
            max_connections: 64,
        }
    }
}

/// A running proxy; dropping it stops it.
#[derive(Debug)]
pub struct Proxy {
    addr: SocketAddr,
    browser_path: String,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

/// What every connection needs.
#[derive(Debug)]
struct Context {
    matcher: Matcher,
    /// The browser's WebSocket URL.
    upstream_ws: String,
    /// `host:port` of the browser's DevTools HTTP endpoint.
    upstream_host: String,
    upstream_port: u16,
    /// `host:port` the proxy answers on.
    authority: String,
    options: ProxyOptions,
    connections: AtomicUsize,
    started: Instant,
}

impl Proxy {
    /// Resolves the browser's WebSocket URL, binds the listening socket and starts serving.
    pub fn start(options: ProxyOptions) -> Result<Proxy, String> {
        let cat = crate::catalog::shared_catalog();
        // The stricter readings only add protection: right for a guard.
        let matcher = Matcher::new(&cat.protected_origins, &options.origins)
            .map_err(|e| format!("--origin: {e}"))?
            .strict();
        let (upstream_ws, host, port) = resolve_upstream(&options.upstream)?;
        let listener = TcpListener::bind(&options.listen)
            .map_err(|e| format!("cannot listen on {}: {e}", options.listen))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("cannot read the listening address: {e}"))?;
        let browser_path = upstream_ws.find("/devtools/browser/").map_or_else(
            || "/devtools/browser/guard".to_string(),
            |i| upstream_ws[i..].to_string(),
        );
        let context = Arc::new(Context {
            matcher,
            upstream_ws,
            upstream_host: host,
            upstream_port: port,
            authority: addr.to_string(),
            options,
            connections: AtomicUsize::new(0),
            started: Instant::now(),
        });
        let stop = Arc::new(AtomicBool::new(false));
        let stop_accept = Arc::clone(&stop);
        let accept = std::thread::Builder::new()
            .name("guard-proxy-accept".into())
            .spawn(move || accept_loop(listener, context, stop_accept))
            .map_err(|e| format!("cannot start the accept thread: {e}"))?;
        Ok(Proxy {
            addr,
            browser_path,
            stop,
            accept: Some(accept),
        })
    }

    /// The proxy's DevTools endpoint, `http://127.0.0.1:<port>`.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The proxy's browser WebSocket, as its `/json/version` gives it.
    pub fn websocket_url(&self) -> String {
        format!("ws://{}{}", self.addr, self.browser_path)
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops accepting connections (open ones end when either side closes).
    pub fn close(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.close();
    }
}

/// `(ws url, host, port)` of the browser from `--upstream`.
fn resolve_upstream(upstream: &str) -> Result<(String, String, u16), String> {
    let lower = upstream.to_ascii_lowercase();
    if lower.starts_with("ws://") {
        let (host, port) = ws::split_url(upstream, "ws", 80)
            .ok_or_else(|| format!("--upstream {upstream:?}: not a ws://host:port/… URL"))?;
        return Ok((upstream.to_string(), host, port));
    }
    if lower.starts_with("wss://") || lower.starts_with("https://") {
        return Err(format!(
            "--upstream {upstream:?}: only plain http:// and ws:// (CDP listens on loopback)"
        ));
    }
    let (host, port) = ws::split_url(upstream, "http", 80)
        .ok_or_else(|| format!("--upstream {upstream:?}: not an http://host:port URL"))?;
    let version = get_json(&host, port, "/json/version")?;
    match version.get("webSocketDebuggerUrl").and_then(Value::as_str) {
        Some(ws) => Ok((ws.to_string(), host, port)),
        None => Err(format!(
            "{upstream}/json/version has no webSocketDebuggerUrl"
        )),
    }
}

/// One GET of a JSON document from the browser's DevTools endpoint.
fn get_json(host: &str, port: u16, path: &str) -> Result<Value, String> {
    let request = Request {
        host: host.to_string(),
        port,
        path: path.to_string(),
        limit: JSON_LIMIT,
    };
    crate::http::get_json(&request, Duration::from_secs(5))
        .map_err(|why| format!("{host}:{port}{path}: {why}"))
}

use crate::sys::lock;

fn accept_loop(listener: TcpListener, context: Arc<Context>, stop: Arc<AtomicBool>) {
    for stream in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let Ok(stream) = stream else { continue };
        let n = context.connections.fetch_add(1, Ordering::SeqCst);
        if n >= context.options.max_connections {
            context.connections.fetch_sub(1, Ordering::SeqCst);
            let _ = respond(&stream, 503, "text/plain", b"too many connections\n");
            continue;
        }
        let for_thread = Arc::clone(&context);
        let spawned = std::thread::Builder::new()
            .name("guard-proxy-conn".into())
            .spawn(move || {
                serve(stream, &for_thread);
                for_thread.connections.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            // The closure (and the stream) is gone: count it back.
            context.connections.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

fn respond(mut stream: &TcpStream, status: u16, kind: &str, body: &[u8]) -> io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Error",
    };
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    stream.flush()
}

/// A parsed request head.
struct Head {
    method: String,
    path: String,
    headers: HashMap<String, String>,
}

/// Reads a request head (bounded in size and time). `Err` holds what to answer.
fn read_head(stream: &mut TcpStream) -> Result<Head, (u16, String)> {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    // Byte by byte: nothing past the head is consumed, so a WebSocket's first frame stays unread.
    while !buf.ends_with(b"\r\n\r\n") {
        if buf.len() >= HEAD_LIMIT {
            return Err((400, "request head too large".into()));
        }
        match stream.read(&mut byte) {
            Ok(1) => buf.push(byte[0]),
            Ok(_) => return Err((400, "connection closed in the request head".into())),
            Err(e) => return Err((400, format!("cannot read the request: {e}"))),
        }
    }
    let text =
        std::str::from_utf8(&buf).map_err(|_| (400, "request head is not UTF-8".to_string()))?;
    let mut lines = text.split("\r\n");
    let first = lines.next().unwrap_or_default();
    let mut parts = first.split(' ');
    let (Some(method), Some(path), Some(version)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err((400, format!("malformed request line {first:?}")));
    };
    if !version.starts_with("HTTP/1.") {
        return Err((400, format!("not HTTP/1.x: {first:?}")));
    }
    let mut headers = HashMap::new();
    for line in lines.filter(|l| !l.is_empty()) {
        let Some((k, v)) = line.split_once(':') else {
            return Err((400, format!("malformed header line {line:?}")));
        };
        headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
    }
    Ok(Head {
        method: method.to_string(),
        path: path.to_string(),
        headers,
    })
}

fn serve(mut stream: TcpStream, context: &Context) {
    let _ = stream.set_nodelay(true);
    let head = match read_head(&mut stream) {
        Ok(h) => h,
        Err((status, why)) => {
            let _ = respond(&stream, status, "text/plain", format!("{why}\n").as_bytes());
            return;
        }
    };
    let path = head.path.split('?').next().unwrap_or_default().to_string();
    let upgrade = head
        .headers
        .get("upgrade")
        .is_some_and(|u| u.eq_ignore_ascii_case("websocket"));
    if upgrade && path.starts_with("/devtools/browser/") {
        return relay(stream, &head, context);
    }
    if head.method != "GET" {
        let _ = respond(&stream, 405, "text/plain", b"only GET\n");
        return;
    }
    let answer = match path.trim_end_matches('/') {
        "/json/version" => json_version(context),
        "/json" | "/json/list" => json_list(context),
        // The protocol's schema (chrome-remote-interface reads it): no target, no origin.
        "/json/protocol" => get_json(
            &context.upstream_host,
            context.upstream_port,
            "/json/protocol",
        )
        .map_err(|e| (502, e)),
        _ => Err((
            404,
            format!(
                "slicc-browsers guard proxy: {path} is not served (only /json/version, /json/list, /json/protocol and the browser WebSocket)"
            ),
        )),
    };
    let _ = match answer {
        Ok(v) => respond(
            &stream,
            200,
            "application/json; charset=UTF-8",
            serde_json::to_string_pretty(&v)
                .unwrap_or_default()
                .as_bytes(),
        ),
        Err((status, why)) => respond(&stream, status, "text/plain", format!("{why}\n").as_bytes()),
    };
}

fn json_version(context: &Context) -> Result<Value, (u16, String)> {
    let mut v = get_json(
        &context.upstream_host,
        context.upstream_port,
        "/json/version",
    )
    .map_err(|e| (502, e))?;
    let path = context
        .upstream_ws
        .find("/devtools/browser/")
        .map_or("/devtools/browser/guard", |i| &context.upstream_ws[i..]);
    v["webSocketDebuggerUrl"] = Value::String(format!("ws://{}{path}", context.authority));
    Ok(v)
}

fn json_list(context: &Context) -> Result<Value, (u16, String)> {
    let list = get_json(&context.upstream_host, context.upstream_port, "/json/list")
        .map_err(|e| (502, e))?;
    let items = list.as_array().cloned().unwrap_or_default();
    // /json/list has no openers: the targets are judged by a policy of their own over CDP,
    // whose Target.getTargets carries them (an about:blank popup of a protected page stays
    // protected), and a target that policy does not show is left out.
    let judged = shown_targets(context).map_err(|e| (502, e))?;
    let shown: Vec<Value> = items
        .into_iter()
        .filter(|t| {
            let url = t.get("url").and_then(Value::as_str).unwrap_or_default();
            let id = t.get("id").and_then(Value::as_str).unwrap_or_default();
            judged.contains(id) && !context.matcher.target(url, false, Opener::None)
        })
        .map(|mut t| {
            if let Some(obj) = t.as_object_mut() {
                // Front-end links would talk to the browser directly, around the guard.
                obj.remove("devtoolsFrontendUrl");
                obj.remove("devtoolsFrontendUrlCompat");
                // Page endpoints are not relayed: clients use the browser WebSocket.
                obj.remove("webSocketDebuggerUrl");
            }
            t
        })
        .collect();
    Ok(Value::Array(shown))
}

/// The ids of the targets a client may see: a [`Policy`] of their own runs its discovery and
/// a `Target.getTargets` over a connection of the proxy's, within 5 s.
fn shown_targets(context: &Context) -> Result<HashSet<String>, String> {
    let (mut ws, socket) = connect_upstream(context)?;
    let _ = ws
        .get_ref()
        .stream
        .set_read_timeout(Some(Duration::from_millis(200)));
    let writer = Writer::new(socket, true);
    let started = Instant::now();
    let ms = || u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let mut policy = Policy::new(context.matcher.clone());
    let mut out = policy.start(0);
    out.to_browser.extend(
        policy
            .from_client(r#"{"id":1,"method":"Target.getTargets"}"#, 0)
            .to_browser,
    );
    let failed = |e: io::Error| format!("cannot list the browser's targets: {e}");
    let result = loop {
        for f in &out.to_browser {
            writer.text(f).map_err(failed)?;
        }
        if let Some(list) = out.to_client.iter().find_map(|f| {
            let v: Value = serde_json::from_str(f).ok()?;
            (v["id"] == 1).then(|| v["result"]["targetInfos"].clone())
        }) {
            break Ok(list);
        }
        if started.elapsed() > Duration::from_secs(5) {
            break Err("the browser did not list its targets in time".to_string());
        }
        let (read, replied) = ws::read(&mut ws, &writer);
        replied.map_err(failed)?;
        out = match read {
            Received::Message(Message::Text(text)) => policy.from_browser(text.as_str(), ms()),
            Received::Message(Message::Close(_)) | Received::Failed(_) => {
                break Err("the browser closed the connection".to_string())
            }
            Received::Message(_) | Received::Idle => policy.tick(ms()),
        };
    };
    writer.close(None, false);
    let list = result?;
    Ok(list
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i["targetId"].as_str().map(str::to_string))
        .collect())
}

/// Closes one side of a relay with `code` and `reason`, waiting for its writer.
fn close(side: &Writer, code: CloseCode, reason: &str) {
    side.close(
        Some(CloseFrame {
            code,
            reason: reason.to_string().into(),
        }),
        true,
    );
}

/// The relay of one client connection.
struct Relay {
    policy: Mutex<Policy>,
    /// The client's side: the proxy is its server and does not mask.
    client: Writer,
    /// The browser's side: the proxy is its client and masks.
    browser: Writer,
    started: Instant,
    done: AtomicBool,
}

impl Relay {
    fn now(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Runs one frame through the policy and sends what it returns, in order, while holding the
    /// policy (so two directions never interleave their outputs).
    fn pass(&self, frame: &str, from_client: bool) -> io::Result<()> {
        let mut policy = lock(&self.policy);
        let now = self.now();
        let out = if from_client {
            policy.from_client(frame, now)
        } else {
            policy.from_browser(frame, now)
        };
        for f in &out.to_browser {
            self.browser.text(f)?;
        }
        for f in &out.to_client {
            self.client.text(f)?;
        }
        Ok(())
    }

    fn tick(&self) -> io::Result<()> {
        let mut policy = lock(&self.policy);
        let out = policy.tick(self.now());
        for f in &out.to_browser {
            self.browser.text(f)?;
        }
        for f in &out.to_client {
            self.client.text(f)?;
        }
        Ok(())
    }

    fn end(&self) {
        if !self.done.swap(true, Ordering::SeqCst) {
            self.client.shutdown();
            self.browser.shutdown();
        }
    }
}

fn relay(mut stream: TcpStream, head: &Head, context: &Context) {
    let Some(key) = head.headers.get("sec-websocket-key") else {
        let _ = respond(&stream, 400, "text/plain", b"no Sec-WebSocket-Key\n");
        return;
    };
    // The browser first: a client must not be told it is connected when nothing is behind.
    let upstream = match connect_upstream(context) {
        Ok(ws) => ws,
        Err(why) => {
            let _ = respond(&stream, 502, "text/plain", format!("{why}\n").as_bytes());
            return;
        }
    };
    let accept = tungstenite::handshake::derive_accept_key(key.as_bytes());
    let reply = format!(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {accept}\r\n\r\n"
    );
    if stream.write_all(reply.as_bytes()).is_err() {
        return;
    }
    let (browser_ws, browser_socket) = upstream;
    let Ok(client_read) = stream.try_clone() else {
        return;
    };
    let max = context.options.max_client_message.max(1);
    let config = WebSocketConfig::default()
        .max_message_size(Some(max))
        .max_frame_size(Some(max));
    let client_ws =
        WebSocket::from_raw_socket(ReadHalf::new(client_read), Role::Server, Some(config));
    let relay = Arc::new(Relay {
        policy: Mutex::new(Policy::new(context.matcher.clone())),
        client: Writer::new(stream, false),
        browser: Writer::new(browser_socket, true),
        started: context.started,
        done: AtomicBool::new(false),
    });
    {
        let mut policy = lock(&relay.policy);
        let out = policy.start(relay.now());
        for f in &out.to_browser {
            if relay.browser.text(f).is_err() {
                relay.end();
                return;
            }
        }
    }
    let for_browser = Arc::clone(&relay);
    let upstream_thread = std::thread::Builder::new()
        .name("guard-proxy-up".into())
        .spawn(move || browser_loop(browser_ws, &for_browser));
    if upstream_thread.is_err() {
        relay.end();
        return;
    }
    client_loop(client_ws, &relay);
    relay.end();
    if let Ok(h) = upstream_thread {
        let _ = h.join();
    }
}

/// Connects to the browser: its WebSocket (read side) and the socket to write on.
fn connect_upstream(context: &Context) -> Result<(WebSocket<ReadHalf>, TcpStream), String> {
    let url = &context.upstream_ws;
    ws::connect(
        url,
        Duration::from_secs(5),
        None,
        context.options.max_browser_message,
    )
    .map_err(|e| match e {
        ConnectError::NotWs => format!("{url}: not ws://"),
        ConnectError::Unreachable(host, port) => {
            format!("cannot connect to the browser at {host}:{port}")
        }
        ConnectError::Setup(e) => format!("cannot set up the browser socket: {e}"),
        ConnectError::Handshake(e) => {
            format!("WebSocket handshake with the browser failed: {e}")
        }
    })
}

fn browser_loop(mut ws: WebSocket<ReadHalf>, relay: &Relay) {
    loop {
        let (read, replied) = ws::read(&mut ws, &relay.browser);
        if replied.is_err() {
            break;
        }
        match read {
            Received::Message(Message::Text(text)) => {
                if relay.pass(text.as_str(), false).is_err() {
                    break;
                }
            }
            Received::Message(Message::Binary(bytes)) => {
                if let Ok(text) = std::str::from_utf8(&bytes) {
                    if relay.pass(text, false).is_err() {
                        break;
                    }
                }
            }
            Received::Message(Message::Close(_)) => {
                close(
                    &relay.client,
                    CloseCode::Away,
                    "slicc-browsers guard proxy: the browser closed the connection",
                );
                break;
            }
            Received::Message(_) | Received::Idle => {}
            Received::Failed(_) => {
                close(
                    &relay.client,
                    CloseCode::Away,
                    "slicc-browsers guard proxy: the browser connection ended",
                );
                break;
            }
        }
    }
    relay.end();
}

fn client_loop(mut ws: WebSocket<ReadHalf>, relay: &Relay) {
    // A read timeout lets the policy's clock run (held messages fail closed on time).
    let _ = ws
        .get_ref()
        .stream
        .set_read_timeout(Some(Duration::from_millis(500)));
    loop {
        let (read, replied) = ws::read(&mut ws, &relay.client);
        if replied.is_err() {
            break;
        }
        match read {
            Received::Message(Message::Text(text)) => {
                if relay.pass(text.as_str(), true).is_err() {
                    break;
                }
            }
            Received::Message(Message::Binary(bytes)) => match std::str::from_utf8(&bytes) {
                Ok(text) => {
                    if relay.pass(text, true).is_err() {
                        break;
                    }
                }
                Err(_) => {
                    close(
                        &relay.client,
                        CloseCode::Unsupported,
                        "slicc-browsers guard proxy: a binary frame that is not UTF-8 JSON",
                    );
                    break;
                }
            },
            Received::Message(Message::Close(_)) => break,
            Received::Message(_) => {}
            Received::Idle => {
                if relay.done.load(Ordering::SeqCst) || relay.tick().is_err() {
                    break;
                }
            }
            Received::Failed(tungstenite::Error::Capacity(e)) => {
                close(
                    &relay.client,
                    CloseCode::Size,
                    &format!("slicc-browsers guard proxy: message too big ({e})"),
                );
                break;
            }
            Received::Failed(tungstenite::Error::Protocol(e)) => {
                close(
                    &relay.client,
                    CloseCode::Protocol,
                    &format!("slicc-browsers guard proxy: WebSocket protocol error ({e})"),
                );
                break;
            }
            Received::Failed(_) => break,
        }
    }
    relay.end();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        assert!(resolve_upstream("wss://x/").is_err());
    }
}
