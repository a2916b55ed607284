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
//! What an operator can rely on:
//!
//! - **Connections.** At most [`ProxyOptions::max_connections`] client connections (HTTP or
//!   WebSocket) are served at once (default [`DEFAULT_MAX_CONNECTIONS`], `--max-connections`);
//!   one over the limit is answered `503 Service Unavailable` with the body
//!   `slicc-browsers guard proxy: too many connections (limit N)` and closed. A connection's
//!   slot is released when its thread ends, whatever ends it.
//! - **Slow sockets.** No socket is written while the policy's lock is held: what the policy
//!   returns is queued per side, in order, and written after. Every socket has a write timeout
//!   ([`ProxyOptions::write_timeout`]); a client that stops reading stalls only its own
//!   connection, which ends when a write times out or its queue passes
//!   `max_browser_message + max_client_message` bytes.
//! - **Threads.** Each connection has one thread (two for a WebSocket relay: the browser's
//!   side is read on its own); the accept thread owns them, reaps the finished ones and, on
//!   [`Proxy::close`], shuts every open connection down and joins them all.
//! - **The browser.** `/json/version` or `/json/list` answers that are not what CDP promises
//!   (not JSON, not an object or list, no `webSocketDebuggerUrl`, over 8 MiB) are a `502` with
//!   the reason. When the browser restarts on the same port, the next client's connection
//!   finds its new WebSocket URL (`/json/version` again, for an `http://` upstream). When the
//!   browser goes away, its clients get a close frame (`1001`) with the reason, and new ones a
//!   `502` naming the browser's address.
//! - **The log.** [`ProxyOptions::log`] (`--log FILE`, `-` for stderr) gets one JSON line per
//!   connection opened, closed or turned away, and per message the policy refused or found
//!   invalid, with why (see [`ProxyLog`]).
//! - **Memory.** Bounded: message sizes (`max_client_message`, `max_browser_message`), the
//!   write queues (above), the connections, and the policy's own limits
//!   ([`Config`](super::policy::Config)).
//!
//! ```no_run
//! use slicc_browsers::guard::proxy::{Proxy, ProxyOptions};
//! let proxy = Proxy::start(ProxyOptions::new("http://127.0.0.1:9333"))?;
//! println!("cdp {}", proxy.endpoint());
//! println!("webSocketDebuggerUrl {}", proxy.websocket_url());
//! # Ok::<(), slicc_browsers::guard::proxy::ProxyError>(())
//! ```

use std::collections::{HashMap, HashSet, VecDeque};
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tungstenite::protocol::frame::coding::CloseCode;
use tungstenite::protocol::frame::CloseFrame;
use tungstenite::protocol::{Role, WebSocket, WebSocketConfig};
use tungstenite::Message;

use super::policy::{Output, Policy, Verdict};
use crate::http::head::{self, HeadError, HeadLimits, RequestHead};
use crate::http::{GetError, Request};
use crate::protected::{Matcher, Opener};
use crate::ws::{self, ConnectError, ReadHalf, Received, Writer};

/// The bounds of a request head the proxy reads from a client (the crate's one head parser,
/// [`crate::http::head`]).
const HEAD_LIMITS: HeadLimits = HeadLimits {
    max_head: 16 * 1024,
    max_line: 8 * 1024,
    max_headers: 64,
};
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
    /// Client connections served at once; more are answered 503 (see the module docs).
    pub max_connections: usize,
    /// How long one socket write may take before its connection is ended.
    pub write_timeout: Duration,
    /// Where to log connections and refusals as JSON lines (none by default).
    pub log: Option<ProxyLog>,
}

/// The default of [`ProxyOptions::max_connections`].
pub const DEFAULT_MAX_CONNECTIONS: usize = 64;

/// Why [`Proxy::start`] failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum ProxyError {
    /// An extra protected origin ([`ProxyOptions::origins`], `--origin`) is not one the
    /// matcher reads.
    Origin(crate::error::Error),
    /// [`ProxyOptions::upstream`] is not a URL the proxy relays to.
    Upstream {
        /// The upstream as given.
        upstream: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// The browser gave no WebSocket URL to relay to.
    Browser(BrowserError),
    /// The listening socket could not be bound, or its address read.
    Listen {
        /// [`ProxyOptions::listen`].
        listen: String,
        /// The system's error.
        source: io::Error,
    },
    /// The accept thread could not be started.
    Thread(io::Error),
}

impl std::fmt::Display for ProxyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProxyError::Origin(e) => write!(f, "--origin: {e}"),
            ProxyError::Upstream { upstream, why } => write!(f, "--upstream {upstream:?}: {why}"),
            ProxyError::Browser(e) => e.fmt(f),
            ProxyError::Listen { listen, source } => {
                write!(f, "cannot listen on {listen}: {source}")
            }
            ProxyError::Thread(e) => write!(f, "cannot start the accept thread: {e}"),
        }
    }
}

impl std::error::Error for ProxyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ProxyError::Origin(e) => Some(e),
            ProxyError::Browser(e) => Some(e),
            ProxyError::Listen { source, .. } | ProxyError::Thread(source) => Some(source),
            ProxyError::Upstream { .. } => None,
        }
    }
}

/// Callers that report errors as text (`?` into `Result<_, String>`) keep working.
impl From<ProxyError> for String {
    fn from(e: ProxyError) -> String {
        e.to_string()
    }
}

/// Why the browser behind the proxy could not be used: its `/json/*` answers or its
/// WebSocket. A client asking through the proxy gets it as a `502` with this text.
#[derive(Debug)]
#[non_exhaustive]
pub enum BrowserError {
    /// Nothing took the connection to the browser's DevTools HTTP endpoint.
    Refused {
        /// `host:port` of the endpoint.
        addr: String,
        /// The document asked for (`/json/version`).
        path: &'static str,
    },
    /// The endpoint gave no complete, well-formed answer in time (or one over 8 MiB).
    NoAnswer {
        /// `host:port` of the endpoint.
        addr: String,
        /// The document asked for.
        path: &'static str,
    },
    /// The endpoint answered with another status than 200.
    Status {
        /// `host:port` of the endpoint.
        addr: String,
        /// The document asked for.
        path: &'static str,
        /// The status.
        status: u16,
    },
    /// The answer is not JSON.
    NotJson {
        /// `host:port` of the endpoint.
        addr: String,
        /// The document asked for.
        path: &'static str,
        /// The JSON parser's reason.
        why: String,
    },
    /// The answer is JSON but not what CDP promises.
    Shape {
        /// `host:port` of the endpoint.
        addr: String,
        /// The document asked for.
        path: &'static str,
        /// What is wrong (`is not a JSON object`, `has no webSocketDebuggerUrl`, …).
        what: &'static str,
    },
    /// The browser's WebSocket URL is not a `ws://host:port/…` URL.
    NotWs {
        /// The URL.
        url: String,
    },
    /// No TCP connection to the browser's WebSocket.
    Unreachable {
        /// `host:port` of the browser.
        addr: String,
    },
    /// A socket to the browser could not be set up or written.
    Socket(io::Error),
    /// The browser refused the WebSocket handshake.
    Handshake {
        /// The URL.
        url: String,
        /// tungstenite's reason.
        why: String,
    },
    /// The proxy's own look at the browser's targets (for `/json/list`) did not finish.
    Listing(&'static str),
    /// The stored WebSocket URL failed and so did asking the endpoint for a new one.
    Again {
        /// Why the stored URL failed.
        first: Box<BrowserError>,
        /// Why asking again failed.
        then: Box<BrowserError>,
    },
}

impl BrowserError {
    fn get(host: &str, port: u16, path: &'static str, e: GetError) -> BrowserError {
        let addr = crate::http::authority(host, port);
        match e {
            GetError::Refused => BrowserError::Refused { addr, path },
            GetError::NoAnswer => BrowserError::NoAnswer { addr, path },
            GetError::Status(status) => BrowserError::Status { addr, path, status },
            GetError::NotJson(why) => BrowserError::NotJson { addr, path, why },
        }
    }
}

impl std::fmt::Display for BrowserError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BrowserError::Refused { addr, path } => {
                write!(f, "{addr}{path}: {}", GetError::Refused)
            }
            BrowserError::NoAnswer { addr, path } => {
                write!(f, "{addr}{path}: {}", GetError::NoAnswer)
            }
            BrowserError::Status { addr, path, status } => {
                write!(f, "{addr}{path}: {}", GetError::Status(*status))
            }
            BrowserError::NotJson { addr, path, why } => write!(f, "{addr}{path}: not JSON: {why}"),
            BrowserError::Shape { addr, path, what } => write!(f, "{addr}{path} {what}"),
            BrowserError::NotWs { url } => write!(f, "{url}: not ws://"),
            BrowserError::Unreachable { addr } => {
                write!(f, "cannot connect to the browser at {addr}")
            }
            BrowserError::Socket(e) => write!(f, "cannot set up the browser socket: {e}"),
            BrowserError::Handshake { url, why } => {
                write!(
                    f,
                    "WebSocket handshake with the browser ({url}) failed: {why}"
                )
            }
            BrowserError::Listing(why) => f.write_str(why),
            BrowserError::Again { first, then } => write!(f, "{first}; and {then}"),
        }
    }
}

impl std::error::Error for BrowserError {}

/// Why a client's HTTP request gets no document: each with its status.
#[derive(Debug)]
enum Refusal {
    /// The request head is not one the proxy reads.
    Head(HeadError),
    /// The connection ended or failed before the head was complete.
    Read(Option<io::Error>),
    /// A WebSocket upgrade without `Sec-WebSocket-Key`.
    NoKey,
    /// Not `GET`.
    Method,
    /// A path the proxy does not serve.
    NotServed(String),
    /// The browser side failed.
    Browser(BrowserError),
}

impl Refusal {
    fn status(&self) -> u16 {
        match self {
            Refusal::Head(e) => e.status(),
            Refusal::Read(_) | Refusal::NoKey => 400,
            Refusal::Method => 405,
            Refusal::NotServed(_) => 404,
            Refusal::Browser(_) => 502,
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Head(e) => write!(f, "request head: {e}"),
            Refusal::Read(None) => f.write_str("connection closed in the request head"),
            Refusal::Read(Some(e)) => write!(f, "cannot read the request: {e}"),
            Refusal::NoKey => f.write_str("no Sec-WebSocket-Key"),
            Refusal::Method => f.write_str("only GET"),
            Refusal::NotServed(path) => write!(
                f,
                "slicc-browsers guard proxy: {path} is not served (only /json/version, /json/list, /json/protocol and the browser WebSocket)"
            ),
            Refusal::Browser(e) => e.fmt(f),
        }
    }
}

impl From<BrowserError> for Refusal {
    fn from(e: BrowserError) -> Refusal {
        Refusal::Browser(e)
    }
}

/// A sink for the proxy's JSON-lines log ([`ProxyOptions::log`]). Each line is one object:
/// `ms` (since the proxy started), `event` (`open`, `close`, `over-limit`, `refused`,
/// `invalid`, `detached`), `conn` (the connection's number), and as they apply `from`
/// (`client` or `browser`), `method`, `id`, `sessionId`, `why`, `path`. A command the policy
/// held (it came before the policy was ready, or waits for its checks) and refused later is
/// logged when it is refused, with `held: true` and the refusal's text as `why`.
#[derive(Clone)]
pub struct ProxyLog(Arc<Mutex<Box<dyn Write + Send>>>);

impl std::fmt::Debug for ProxyLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProxyLog")
    }
}

impl ProxyLog {
    /// A log written to `sink` (a file, stderr, a buffer).
    pub fn new(sink: impl Write + Send + 'static) -> ProxyLog {
        ProxyLog(Arc::new(Mutex::new(Box::new(sink))))
    }

    /// Writes one line (best effort: a failing log never stops the proxy).
    fn line(&self, value: &Value) {
        let mut sink = lock(&self.0);
        let _ = writeln!(sink, "{value}");
        let _ = sink.flush();
    }
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
            max_connections: DEFAULT_MAX_CONNECTIONS,
            write_timeout: Duration::from_secs(10),
            log: None,
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
    /// The browser's WebSocket URL (found again when the browser restarts).
    upstream_ws: Mutex<String>,
    /// `host:port` of the browser's DevTools HTTP endpoint.
    upstream_host: String,
    upstream_port: u16,
    /// `host:port` the proxy answers on.
    authority: String,
    options: ProxyOptions,
    connections: AtomicUsize,
    started: Instant,
    /// Connections numbered for the log.
    next_conn: AtomicU64,
    /// A clone of every open client socket, to shut them down on close.
    open: Mutex<HashMap<u64, TcpStream>>,
}

impl Context {
    fn log(&self, mut line: Value) {
        if let Some(log) = &self.options.log {
            line["ms"] =
                Value::from(u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX));
            log.line(&line);
        }
    }

    fn upstream_ws(&self) -> String {
        lock(&self.upstream_ws).clone()
    }
}

impl Proxy {
    /// Resolves the browser's WebSocket URL, binds the listening socket and starts serving.
    pub fn start(options: ProxyOptions) -> Result<Proxy, ProxyError> {
        let cat = crate::catalog::shared_catalog();
        // The stricter readings only add protection: right for a guard.
        let matcher = Matcher::new(&cat.protected_origins, &options.origins)
            .map_err(ProxyError::Origin)?
            .strict();
        let (upstream_ws, host, port) = resolve_upstream(&options.upstream)?;
        let listen_error = |source| ProxyError::Listen {
            listen: options.listen.clone(),
            source,
        };
        let listener = TcpListener::bind(&options.listen).map_err(listen_error)?;
        let addr = listener.local_addr().map_err(listen_error)?;
        let browser_path = upstream_ws.find("/devtools/browser/").map_or_else(
            || "/devtools/browser/guard".to_string(),
            |i| upstream_ws[i..].to_string(),
        );
        let context = Arc::new(Context {
            matcher,
            upstream_ws: Mutex::new(upstream_ws),
            upstream_host: host,
            upstream_port: port,
            authority: addr.to_string(),
            options,
            connections: AtomicUsize::new(0),
            started: Instant::now(),
            next_conn: AtomicU64::new(1),
            open: Mutex::new(HashMap::new()),
        });
        let stop = Arc::new(AtomicBool::new(false));
        let stop_accept = Arc::clone(&stop);
        let accept = std::thread::Builder::new()
            .name("guard-proxy-accept".into())
            .spawn(move || accept_loop(listener, context, stop_accept))
            .map_err(ProxyError::Thread)?;
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

    /// Stops serving: no new connections; every open one is shut down and its threads joined.
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
fn resolve_upstream(upstream: &str) -> Result<(String, String, u16), ProxyError> {
    let bad = |why| ProxyError::Upstream {
        upstream: upstream.to_string(),
        why,
    };
    let lower = upstream.to_ascii_lowercase();
    if lower.starts_with("ws://") {
        let (host, port) =
            ws::split_url(upstream, "ws", 80).ok_or_else(|| bad("not a ws://host:port/… URL"))?;
        return Ok((upstream.to_string(), host, port));
    }
    if lower.starts_with("wss://") || lower.starts_with("https://") {
        return Err(bad(
            "only plain http:// and ws:// (CDP listens on loopback)",
        ));
    }
    let (host, port) =
        ws::split_url(upstream, "http", 80).ok_or_else(|| bad("not an http://host:port URL"))?;
    let ws = browser_ws(&host, port).map_err(ProxyError::Browser)?;
    Ok((ws, host, port))
}

/// The browser's WebSocket URL from its `/json/version`.
fn browser_ws(host: &str, port: u16) -> Result<String, BrowserError> {
    let path = "/json/version";
    let version = get_json(host, port, path)?;
    match version.get("webSocketDebuggerUrl").and_then(Value::as_str) {
        Some(ws) if ws.to_ascii_lowercase().starts_with("ws://") => Ok(ws.to_string()),
        _ => Err(BrowserError::Shape {
            addr: crate::http::authority(host, port),
            path,
            what: "has no ws:// webSocketDebuggerUrl",
        }),
    }
}

/// One GET of a JSON document from the browser's DevTools endpoint.
fn get_json(host: &str, port: u16, path: &'static str) -> Result<Value, BrowserError> {
    let request = Request {
        host: host.to_string(),
        port,
        path: path.to_string(),
        limit: JSON_LIMIT,
    };
    crate::http::get_json(&request, Duration::from_secs(5))
        .map_err(|e| BrowserError::get(host, port, path, e))
}

use crate::sys::lock;

/// One client connection's place: counted while it lives, its socket known for [`Proxy::close`].
struct Slot {
    context: Arc<Context>,
    conn: u64,
}

impl Drop for Slot {
    fn drop(&mut self) {
        lock(&self.context.open).remove(&self.conn);
        self.context.connections.fetch_sub(1, Ordering::SeqCst);
        self.context
            .log(json!({"event": "close", "conn": self.conn}));
    }
}

fn accept_loop(listener: TcpListener, context: Arc<Context>, stop: Arc<AtomicBool>) {
    let mut threads: Vec<JoinHandle<()>> = Vec::new();
    for stream in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        // Reap the connections that ended.
        threads.retain(|h| !h.is_finished());
        let Ok(stream) = stream else { continue };
        let _ = stream.set_write_timeout(Some(context.options.write_timeout));
        let conn = context.next_conn.fetch_add(1, Ordering::SeqCst);
        let n = context.connections.fetch_add(1, Ordering::SeqCst);
        if n >= context.options.max_connections {
            context.connections.fetch_sub(1, Ordering::SeqCst);
            let limit = context.options.max_connections;
            context.log(json!({"event": "over-limit", "conn": conn, "why": format!("{limit} connections open")}));
            let body =
                format!("slicc-browsers guard proxy: too many connections (limit {limit})\n");
            let _ = respond(&stream, 503, "text/plain", body.as_bytes());
            continue;
        }
        if let Ok(clone) = stream.try_clone() {
            lock(&context.open).insert(conn, clone);
        }
        let slot = Slot {
            context: Arc::clone(&context),
            conn,
        };
        context.log(json!({"event": "open", "conn": conn}));
        // A failed spawn drops the closure, and the slot with it.
        if let Ok(h) = std::thread::Builder::new()
            .name("guard-proxy-conn".into())
            .spawn(move || serve(stream, &slot))
        {
            threads.push(h);
        }
    }
    // Closing: every open connection is shut down (its relay ends with it), then joined.
    let open: Vec<TcpStream> = lock(&context.open).drain().map(|(_, s)| s).collect();
    for socket in open {
        let _ = socket.shutdown(std::net::Shutdown::Both);
    }
    for h in threads {
        let _ = h.join();
    }
}

fn respond(mut stream: &TcpStream, status: u16, kind: &str, body: &[u8]) -> io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        414 => "URI Too Long",
        431 => "Request Header Fields Too Large",
        502 => "Bad Gateway",
        505 => "HTTP Version Not Supported",
        503 => "Service Unavailable",
        _ => "Error",
    };
    // Head and body in one write: a client that reads only what came with the head (as
    // tungstenite's handshake does for an error answer) still gets the body.
    let mut answer = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    answer.extend_from_slice(body);
    stream.write_all(&answer)?;
    stream.flush()
}

/// Reads a request head (bounded in size and time): the head and the bytes read past it (a
/// WebSocket client's first frames, handed to the relay).
fn read_head(stream: &mut TcpStream) -> Result<(RequestHead, Vec<u8>), Refusal> {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(head) = head::request(&buf, &HEAD_LIMITS).map_err(Refusal::Head)? {
            let rest = buf.split_off(head.len);
            return Ok((head, rest));
        }
        match stream.read(&mut chunk) {
            Ok(0) => return Err(Refusal::Read(None)),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Refusal::Read(Some(e))),
        }
    }
}

/// Answers `refusal` with its status and text. A head refused before its end leaves input
/// unread: that is read and dropped for a moment ([`crate::http::linger`]) so that the answer
/// is not lost to a reset.
fn refuse(stream: &TcpStream, refusal: &Refusal) {
    let _ = respond(
        stream,
        refusal.status(),
        "text/plain",
        format!("{refusal}\n").as_bytes(),
    );
    if matches!(refusal, Refusal::Head(_)) {
        let _ = stream.shutdown(std::net::Shutdown::Write);
        crate::http::linger(stream);
    }
}

fn serve(mut stream: TcpStream, slot: &Slot) {
    let context = &*slot.context;
    let _ = stream.set_nodelay(true);
    let (head, rest) = match read_head(&mut stream) {
        Ok(h) => h,
        Err(refusal) => {
            if !matches!(refusal, Refusal::Read(None)) {
                refuse(&stream, &refusal);
            }
            return;
        }
    };
    let path = head
        .target
        .split('?')
        .next()
        .unwrap_or_default()
        .to_string();
    let upgrade =
        head::header(&head.headers, "upgrade").is_some_and(|u| u.eq_ignore_ascii_case("websocket"));
    if upgrade && path.starts_with("/devtools/browser/") {
        return relay(stream, &head, rest, slot);
    }
    if head.method != "GET" {
        return refuse(&stream, &Refusal::Method);
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
        .map_err(Refusal::from),
        _ => Err(Refusal::NotServed(path)),
    };
    match answer {
        Ok(v) => {
            let _ = respond(
                &stream,
                200,
                "application/json; charset=UTF-8",
                serde_json::to_string_pretty(&v)
                    .unwrap_or_default()
                    .as_bytes(),
            );
        }
        Err(refusal) => refuse(&stream, &refusal),
    }
}

fn json_version(context: &Context) -> Result<Value, Refusal> {
    let path = "/json/version";
    let mut v = get_json(&context.upstream_host, context.upstream_port, path)?;
    let why = |what| {
        Refusal::Browser(BrowserError::Shape {
            addr: crate::http::authority(&context.upstream_host, context.upstream_port),
            path,
            what,
        })
    };
    let Some(obj) = v.as_object_mut() else {
        return Err(why("is not a JSON object"));
    };
    let Some(ws) = obj.get("webSocketDebuggerUrl").and_then(Value::as_str) else {
        return Err(why("has no webSocketDebuggerUrl"));
    };
    // The browser may have restarted: the next WebSocket connection uses its new URL.
    if ws.to_ascii_lowercase().starts_with("ws://") && context.options.upstream.starts_with("http")
    {
        *lock(&context.upstream_ws) = ws.to_string();
    }
    let path = ws
        .find("/devtools/browser/")
        .map_or("/devtools/browser/guard".to_string(), |i| {
            ws[i..].to_string()
        });
    obj.insert(
        "webSocketDebuggerUrl".into(),
        Value::String(format!("ws://{}{path}", context.authority)),
    );
    Ok(v)
}

fn json_list(context: &Context) -> Result<Value, Refusal> {
    let path = "/json/list";
    let list = get_json(&context.upstream_host, context.upstream_port, path)?;
    let Value::Array(items) = list else {
        return Err(Refusal::Browser(BrowserError::Shape {
            addr: crate::http::authority(&context.upstream_host, context.upstream_port),
            path,
            what: "is not a JSON array",
        }));
    };
    // /json/list has no openers: the targets are judged by a policy of their own over CDP,
    // whose Target.getTargets carries them (an about:blank popup of a protected page stays
    // protected), and a target that policy does not show is left out.
    let judged = shown_targets(context)?;
    let shown: Vec<Value> = items
        .into_iter()
        .filter(Value::is_object)
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
fn shown_targets(context: &Context) -> Result<HashSet<String>, BrowserError> {
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
    let failed = BrowserError::Socket;
    let result = loop {
        for f in &out.to_browser {
            writer.text(f.clone()).map_err(failed)?;
        }
        if let Some(list) = out.to_client.iter().find_map(|f| {
            let v: Value = serde_json::from_str(f).ok()?;
            (v["id"] == 1).then(|| v["result"]["targetInfos"].clone())
        }) {
            break Ok(list);
        }
        if started.elapsed() > Duration::from_secs(5) {
            break Err(BrowserError::Listing(
                "the browser did not list its targets in time",
            ));
        }
        let (read, replied) = ws::read(&mut ws, &writer);
        replied.map_err(failed)?;
        out = match read {
            Received::Message(Message::Text(text)) => policy.from_browser(text.as_str(), ms()),
            Received::Message(Message::Close(_)) | Received::Failed(_) => {
                break Err(BrowserError::Listing("the browser closed the connection"))
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

/// Closes one side of a relay with `code` and `reason`, after what is queued for it.
fn close(side: &Side, code: CloseCode, reason: &str) {
    let _ = side.flush();
    side.writer.close(
        Some(CloseFrame {
            code,
            reason: reason.to_string().into(),
        }),
        true,
    );
}

/// One side of a relay: its writer and what the policy returned for it, in order, not yet
/// written. Frames are queued under the policy's lock and written after it is released.
struct Side {
    writer: Writer,
    queue: Mutex<Queue>,
    /// Held by the thread writing the queue out.
    flushing: Mutex<()>,
    /// The most bytes queued before the connection counts as stuck.
    cap: usize,
}

#[derive(Default)]
struct Queue {
    frames: VecDeque<String>,
    bytes: usize,
}

impl Side {
    fn new(writer: Writer, cap: usize) -> Side {
        Side {
            writer,
            queue: Mutex::new(Queue::default()),
            flushing: Mutex::new(()),
            cap,
        }
    }

    /// Queues `frames` (call with the policy's lock held, so that the order is the policy's).
    fn push(&self, frames: Vec<String>) -> io::Result<()> {
        if frames.is_empty() {
            return Ok(());
        }
        let mut q = lock(&self.queue);
        for f in frames {
            q.bytes += f.len();
            q.frames.push_back(f);
        }
        if q.bytes > self.cap {
            return Err(io::Error::other(
                "the peer does not read: write queue over its limit",
            ));
        }
        Ok(())
    }

    /// Writes what is queued, in order. One thread writes at a time; another that finds it
    /// busy leaves its frames to it (the writer looks at the queue again after it lets go).
    fn flush(&self) -> io::Result<()> {
        loop {
            let Ok(guard) = self.flushing.try_lock() else {
                return Ok(());
            };
            loop {
                let batch = {
                    let mut q = lock(&self.queue);
                    q.bytes = 0;
                    std::mem::take(&mut q.frames)
                };
                if batch.is_empty() {
                    break;
                }
                for f in batch {
                    self.writer.text(f)?;
                }
            }
            drop(guard);
            if lock(&self.queue).frames.is_empty() {
                return Ok(());
            }
        }
    }
}

/// The relay of one client connection.
struct Relay<'a> {
    policy: Mutex<Policy>,
    /// The client's side: the proxy is its server and does not mask.
    client: Side,
    /// The browser's side: the proxy is its client and masks.
    browser: Side,
    context: &'a Context,
    conn: u64,
    done: AtomicBool,
    /// With a log: the methods of client commands the policy held, by (sessionId, id), so
    /// that a refusal it answers later is logged with its method (the oldest forgotten past
    /// [`HELD_REMEMBERED`]).
    held: Mutex<VecDeque<(String, i64, String)>>,
}

/// How many held commands' methods a relay remembers for the log.
const HELD_REMEMBERED: usize = 1024;

/// The policy's refusals among `frames` (answers it gave to client commands, its refusal
/// text in an error's message): (sessionId, id, message). Only called with a log.
fn refusals_in(frames: &[String], refusal: &str) -> Vec<(String, i64, String)> {
    frames
        .iter()
        .filter(|f| f.starts_with(r#"{"id":"#) && f.contains(refusal))
        .filter_map(|f| {
            let v: Value = serde_json::from_str(f).ok()?;
            let message = v["error"]["message"].as_str()?;
            if v["error"]["code"] != json!(super::policy::REFUSAL_CODE)
                || !message.starts_with(refusal)
            {
                return None;
            }
            let session = v["sessionId"].as_str().unwrap_or_default().to_string();
            Some((session, v["id"].as_i64()?, message.to_string()))
        })
        .collect()
}

impl Relay<'_> {
    fn now(&self) -> u64 {
        u64::try_from(self.context.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Runs the policy (`run`) under its lock and queues what it returns, in its order; then,
    /// with the lock released, logs and writes it.
    fn step(
        &self,
        run: impl FnOnce(&mut Policy, u64) -> Output,
        from: Option<(&str, bool)>,
    ) -> io::Result<()> {
        let logging = self.context.options.log.is_some();
        let (out, queued, refusals) = {
            let mut policy = lock(&self.policy);
            let mut out = run(&mut policy, self.now());
            let refusals = if logging {
                refusals_in(&out.to_client, self.context.matcher.refusal())
            } else {
                Vec::new()
            };
            let queued = self
                .browser
                .push(std::mem::take(&mut out.to_browser))
                .and_then(|()| self.client.push(std::mem::take(&mut out.to_client)));
            (out, queued, refusals)
        };
        let mut own: Option<(String, i64)> = None;
        if let Some((frame, from_client)) = from {
            own = self.log(frame, from_client, out.verdict, out.why);
        }
        // Refusals of commands the policy held and answered now (a command that came before
        // it was ready, or one waiting for its checks), named by the method they had.
        for (session, id, message) in refusals {
            if own.as_ref() == Some(&(session.clone(), id)) {
                continue;
            }
            let method = {
                let mut held = lock(&self.held);
                let at = held.iter().position(|(s, i, _)| *s == session && *i == id);
                at.and_then(|at| held.remove(at)).map(|(_, _, m)| m)
            };
            self.context.log(json!({
                "event": "refused",
                "conn": self.conn,
                "from": "client",
                "method": method,
                "id": id,
                "sessionId": if session.is_empty() { Value::Null } else { Value::String(session) },
                "why": message,
                "held": true,
            }));
        }
        for session in &out.detached {
            self.context.log(json!({"event": "detached", "conn": self.conn, "sessionId": session, "why": out.why}));
        }
        queued?;
        self.browser.flush()?;
        self.client.flush()
    }

    /// Runs one frame through the policy and sends what it returns.
    fn pass(&self, frame: &str, from_client: bool) -> io::Result<()> {
        self.step(
            |policy, now| {
                if from_client {
                    policy.from_client(frame, now)
                } else {
                    policy.from_browser(frame, now)
                }
            },
            Some((frame, from_client)),
        )
    }

    fn tick(&self) -> io::Result<()> {
        self.step(|policy, now| policy.tick(now), None)
    }

    /// A refused or invalid message, to the log; a held client command remembered (see
    /// [`Relay::held`]). Returns the (sessionId, id) of a client command it logged as refused.
    fn log(
        &self,
        frame: &str,
        from_client: bool,
        verdict: Verdict,
        why: &str,
    ) -> Option<(String, i64)> {
        let event = match verdict {
            Verdict::Refuse => "refused",
            Verdict::Invalid => "invalid",
            Verdict::Hold if from_client => "held",
            _ => return None,
        };
        self.context.options.log.as_ref()?;
        let parsed: Value = serde_json::from_str(frame).unwrap_or(Value::Null);
        let key = || {
            let session = parsed["sessionId"].as_str().unwrap_or_default().to_string();
            Some((session, parsed["id"].as_i64()?))
        };
        if event == "held" {
            if let (Some((session, id)), Some(method)) = (key(), parsed["method"].as_str()) {
                let mut held = lock(&self.held);
                if held.len() >= HELD_REMEMBERED {
                    held.pop_front();
                }
                held.push_back((session, id, method.to_string()));
            }
            return None;
        }
        self.context.log(json!({
            "event": event,
            "conn": self.conn,
            "from": if from_client { "client" } else { "browser" },
            "method": parsed.get("method"),
            "id": parsed.get("id"),
            "sessionId": parsed.get("sessionId"),
            "why": why,
        }));
        if event == "refused" && from_client {
            key()
        } else {
            None
        }
    }

    fn end(&self) {
        if !self.done.swap(true, Ordering::SeqCst) {
            self.client.writer.shutdown();
            self.browser.writer.shutdown();
        }
    }
}

fn relay(mut stream: TcpStream, head: &RequestHead, rest: Vec<u8>, slot: &Slot) {
    let context = &*slot.context;
    let Some(key) = head::header(&head.headers, "sec-websocket-key") else {
        return refuse(&stream, &Refusal::NoKey);
    };
    // The browser first: a client must not be told it is connected when nothing is behind.
    let upstream = match connect_upstream(context) {
        Ok(ws) => ws,
        Err(why) => return refuse(&stream, &Refusal::Browser(why)),
    };
    let accept = tungstenite::handshake::derive_accept_key(key.as_bytes());
    let reply = format!(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {accept}\r\n\r\n"
    );
    if stream.write_all(reply.as_bytes()).is_err() {
        return;
    }
    let (browser_ws, browser_socket) = upstream;
    let _ = browser_socket.set_write_timeout(Some(context.options.write_timeout));
    let _ = stream.set_write_timeout(Some(context.options.write_timeout));
    let Ok(client_read) = stream.try_clone() else {
        return;
    };
    let max = context.options.max_client_message.max(1);
    let config = WebSocketConfig::default()
        .max_message_size(Some(max))
        .max_frame_size(Some(max));
    // Bytes the client sent after its head (its first frames) are read first.
    let client_ws = WebSocket::from_partially_read(
        ReadHalf::new(client_read),
        rest,
        Role::Server,
        Some(config),
    );
    let cap = context
        .options
        .max_browser_message
        .saturating_add(context.options.max_client_message);
    let relay = Relay {
        policy: Mutex::new(Policy::new(context.matcher.clone())),
        client: Side::new(Writer::new(stream, false), cap),
        browser: Side::new(Writer::new(browser_socket, true), cap),
        context,
        conn: slot.conn,
        done: AtomicBool::new(false),
        held: Mutex::new(VecDeque::new()),
    };
    let start = {
        let mut policy = lock(&relay.policy);
        let out = policy.start(relay.now());
        relay.browser.push(out.to_browser)
    };
    if start.and_then(|()| relay.browser.flush()).is_err() {
        relay.end();
        return;
    }
    // The browser's side is read on a thread of its own, joined before this one ends.
    std::thread::scope(|scope| {
        let upstream_thread = std::thread::Builder::new()
            .name("guard-proxy-up".into())
            .spawn_scoped(scope, || browser_loop(browser_ws, &relay));
        if upstream_thread.is_err() {
            relay.end();
            return;
        }
        client_loop(client_ws, &relay);
        relay.end();
    });
}

/// Connects to the browser: its WebSocket (read side) and the socket to write on. When that
/// fails and the upstream is the browser's `http://` endpoint, its `/json/version` is asked
/// again (a restarted browser has a new WebSocket URL) and the new URL tried once.
fn connect_upstream(context: &Context) -> Result<(WebSocket<ReadHalf>, TcpStream), BrowserError> {
    let url = context.upstream_ws();
    match connect_ws(&url, context) {
        Ok(ws) => Ok(ws),
        Err(why)
            if !context
                .options
                .upstream
                .to_ascii_lowercase()
                .starts_with("ws") =>
        {
            let fresh = match browser_ws(&context.upstream_host, context.upstream_port) {
                Ok(fresh) => fresh,
                Err(e) => {
                    return Err(BrowserError::Again {
                        first: Box::new(why),
                        then: Box::new(e),
                    })
                }
            };
            if fresh == url {
                return Err(why);
            }
            *lock(&context.upstream_ws) = fresh.clone();
            connect_ws(&fresh, context)
        }
        Err(why) => Err(why),
    }
}

fn connect_ws(
    url: &str,
    context: &Context,
) -> Result<(WebSocket<ReadHalf>, TcpStream), BrowserError> {
    ws::connect(
        url,
        Duration::from_secs(5),
        Some(context.options.write_timeout),
        context.options.max_browser_message,
    )
    .map_err(|e| match e {
        ConnectError::NotWs => BrowserError::NotWs {
            url: url.to_string(),
        },
        ConnectError::Unreachable(host, port) => BrowserError::Unreachable {
            addr: crate::http::authority(&host, port),
        },
        ConnectError::Setup(e) => BrowserError::Socket(e),
        ConnectError::Handshake(why) => BrowserError::Handshake {
            url: url.to_string(),
            why,
        },
    })
}

fn browser_loop(mut ws: WebSocket<ReadHalf>, relay: &Relay) {
    loop {
        let (read, replied) = ws::read(&mut ws, &relay.browser.writer);
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
                if !relay.done.load(Ordering::SeqCst) {
                    close(
                        &relay.client,
                        CloseCode::Away,
                        "slicc-browsers guard proxy: the browser connection ended",
                    );
                }
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
        let (read, replied) = ws::read(&mut ws, &relay.client.writer);
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

    #[test]
    fn the_policys_refusals_are_found_and_nothing_else() {
        let refusal = "slicc: refused: target is on seven's origin";
        let frames = vec![
            format!(
                r#"{{"id":3,"error":{{"code":-32000,"message":"{refusal}"}},"sessionId":"S"}}"#
            ),
            format!(r#"{{"id":4,"error":{{"code":-32000,"message":"{refusal} (why)"}}}}"#),
            // Chromium's own -32000 error, an event quoting the text, another code.
            r#"{"id":5,"error":{"code":-32000,"message":"Cannot find context"}}"#.to_string(),
            format!(r#"{{"method":"Runtime.consoleAPICalled","params":{{"x":"{refusal}"}}}}"#),
            format!(r#"{{"id":6,"error":{{"code":-32601,"message":"{refusal}"}}}}"#),
            format!(r#"{{"id":7,"result":{{"value":"{refusal}"}}}}"#),
        ];
        assert_eq!(
            refusals_in(&frames, refusal),
            vec![
                ("S".to_string(), 3, refusal.to_string()),
                (String::new(), 4, format!("{refusal} (why)")),
            ]
        );
    }

    #[test]
    fn errors_say_what_and_where() {
        let e = BrowserError::get("127.0.0.1", 9, "/json/version", GetError::Status(404));
        assert_eq!(e.to_string(), "127.0.0.1:9/json/version: answered HTTP 404");
        let again = BrowserError::Again {
            first: Box::new(BrowserError::Unreachable {
                addr: "[::1]:9".into(),
            }),
            then: Box::new(BrowserError::get(
                "::1",
                9,
                "/json/version",
                GetError::Refused,
            )),
        };
        assert_eq!(
            again.to_string(),
            "cannot connect to the browser at [::1]:9; and [::1]:9/json/version: connection refused"
        );
        let start = resolve_upstream("https://x/").unwrap_err();
        assert!(matches!(start, ProxyError::Upstream { .. }), "{start:?}");
        assert_eq!(
            String::from(start),
            "--upstream \"https://x/\": only plain http:// and ws:// (CDP listens on loopback)"
        );
        assert_eq!(Refusal::Head(HeadError::LineTooLong).status(), 414);
        assert_eq!(Refusal::NotServed("/x".into()).status(), 404);
    }
}
