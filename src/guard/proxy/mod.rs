//! `slicc-browsers guard proxy`: a CDP relay around [`Policy`](super::policy::Policy) (feature `guard-proxy`, not on
//! `wasm32-wasip1`).
//!
//! [`Proxy::start`] listens on a loopback port and serves what a CDP client looks for:
//! `/json/version` (the browser's, with the proxy's `webSocketDebuggerUrl`), `/json/protocol`
//! (the browser's schema), a filtered `/json/list` (protected targets left out, every URL pointing at the proxy, no DevTools front
//! end links) and a WebSocket at `/devtools/browser/<id>`. Each client connection gets one
//! upstream connection to the browser and one [`Policy`](super::policy::Policy); every frame either way goes through
//! the policy, and only what it returns is sent on, in order. Bad client input gets a protocol
//! error or a closed connection: text that is not JSON is answered by the policy, a binary
//! frame that is not UTF-8 (`1003`), a text frame that is not UTF-8 (`1007`) or a message over
//! the size limit (`1009`) closes the connection with the reason, and a client
//! that goes away mid-call closes its upstream connection. Nothing reaches the browser that the
//! policy did not see, and nothing the client sends makes the proxy panic.
//!
//! What an operator can rely on:
//!
//! - **Connections.** At most [`ProxyOptions::max_connections`] client connections (HTTP or
//!   WebSocket) are served at once (default [`DEFAULT_MAX_CONNECTIONS`], `--max-connections`);
//!   one over the limit is answered `503 Service Unavailable` with the body
//!   `slicc-browsers guard proxy: too many connections (limit N)` and closed. A connection's
//!   slot is released when its thread ends, whatever ends it. A request head must come whole
//!   within 10 s (a trickle is answered `408 Request Timeout` and closed), so slow clients
//!   cannot keep the slots.
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
//! - **Memory.** Bounded per connection: message sizes (`max_client_message`, 16 MiB, and
//!   `max_browser_message`, 256 MiB; a client message over its limit, whole or in fragments,
//!   closes the connection with `1009`), the write queues (above), and the policy's own
//!   limits (its module docs' *What it remembers, and its bounds*: commands in flight,
//!   messages waiting behind a session's checks, per-session ids, each with what a client
//!   over it gets). Log lines quote a client's strings cut short ([`ProxyLog`]), so a line
//!   stays small whatever a client sends. `tests/offline/guard_proxy_hostile.rs` and
//!   `tests/offline/guard_policy_hostile.rs` hold a hostile client to this.
//!
//! ```no_run
//! use slicc_browsers::guard::proxy::{Proxy, ProxyOptions};
//! let proxy = Proxy::start(ProxyOptions::new("http://127.0.0.1:9333"))?;
//! println!("cdp {}", proxy.endpoint());
//! println!("webSocketDebuggerUrl {}", proxy.websocket_url());
//! # Ok::<(), slicc_browsers::guard::proxy::ProxyError>(())
//! ```

use std::collections::HashMap;

use crate::http::head::HeadLimits;
use crate::protected::Matcher;
use crate::sys::lock;
use crate::ws::{self};
use serde_json::{json, Value};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

mod answer;
mod error;
mod fs_paths;
mod http;
mod log;
mod relay;
mod upstream;

use answer::respond;
pub use error::{BrowserError, ProxyError};
pub use fs_paths::FsPaths;
use http::serve;
pub use log::ProxyLog;
use upstream::browser_ws;

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
    /// The user's own protected sites, host patterns and origins (`--protect`), added to the
    /// matcher ([`Matcher::protecting`]) and to each connection's policy
    /// ([`Config::protect`](super::policy::Config::protect)).
    pub protect: Vec<crate::protected::ProtectPattern>,
    /// Local folders no client command may name a file in (`--protect-path`): the browser's
    /// user-data dir, whose files hold every site's storage, cookies and history in the clear.
    /// A relative one is taken from the proxy's working directory. The proxy resolves paths
    /// on its own machine ([`FsPaths`]): the browser's, when both run on one machine. See
    /// [`Config::protected_paths`](super::policy::Config::protected_paths).
    pub protect_paths: Vec<String>,
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
    /// Origins of pages that may open the browser WebSocket (`--remote-allow-origins`, as
    /// Chromium's flag of that name): a WebSocket upgrade carrying an `Origin` header is
    /// refused (403) unless it is the proxy's own origin, one of these, or these hold `*`.
    /// Empty by default: clients that are not pages send no `Origin`.
    pub allow_origins: Vec<String>,
}

/// The default of [`ProxyOptions::max_connections`].
pub const DEFAULT_MAX_CONNECTIONS: usize = 64;

impl ProxyOptions {
    /// Options for `upstream`, listening on `127.0.0.1:0`, without extra origins.
    pub fn new(upstream: &str) -> ProxyOptions {
        ProxyOptions {
            upstream: upstream.to_string(),
            listen: "127.0.0.1:0".into(),
            origins: Vec::new(),
            protect: Vec::new(),
            protect_paths: Vec::new(),
            max_client_message: 16 << 20,
            max_browser_message: 256 << 20,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            write_timeout: Duration::from_secs(10),
            log: None,
            allow_origins: Vec::new(),
        }
    }
}

/// A running proxy; dropping it stops it.
#[derive(Debug)]
pub struct Proxy {
    addr: SocketAddr,
    /// The browser's host and port, as the proxy reaches it.
    upstream: (String, u16),
    browser_path: String,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

/// What every connection needs.
#[derive(Debug)]
struct Context {
    matcher: Matcher,
    /// Each connection's policy's settings (the protected paths).
    policy: crate::guard::policy::Config,
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
            .protecting(&options.protect)
            .strict();
        let mut policy = policy_config(&options.protect_paths);
        policy.protect = options.protect.clone();
        let (upstream_ws, host, port) = resolve_upstream(&options.upstream)?;
        // A browser that lets pages drive it needs no proxy to be driven around.
        if upstream::lets_pages_in(&upstream_ws) {
            return Err(ProxyError::PagesAllowed { url: upstream_ws });
        }
        // The browser's own DevTools endpoint is no page for a client's tab: on its own
        // origin a page opens the browser WebSocket with no guard in between.
        let bracketed = if host.contains(':') && !host.starts_with('[') {
            format!("[{host}]")
        } else {
            host.clone()
        };
        policy.devtools_endpoints = vec![format!("{bracketed}:{port}")];
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
        let upstream = (host.clone(), port);
        let context = Arc::new(Context {
            matcher,
            policy,
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
            upstream,
            browser_path,
            stop,
            accept: Some(accept),
        })
    }

    /// Whether the browser still takes connections on its DevTools port (a TCP connect,
    /// within `timeout`): `false` once it has gone away.
    pub fn upstream_alive(&self, timeout: Duration) -> bool {
        use std::net::ToSocketAddrs;
        let (host, port) = &self.upstream;
        let host = host.trim_start_matches('[').trim_end_matches(']');
        (host, *port)
            .to_socket_addrs()
            .map(|mut addrs| addrs.any(|a| TcpStream::connect_timeout(&a, timeout).is_ok()))
            .unwrap_or(false)
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

/// The policy's settings for `protect_paths`: each made absolute (from the working
/// directory), resolved on this machine's file system.
fn policy_config(protect_paths: &[String]) -> crate::guard::policy::Config {
    let cwd = std::env::current_dir().unwrap_or_default();
    let protected_paths: Vec<String> = protect_paths
        .iter()
        .map(|p| cwd.join(p).to_string_lossy().into_owned())
        .collect();
    let local_paths: Option<Arc<dyn crate::guard::policy::LocalPaths>> =
        (!protected_paths.is_empty()).then(|| Arc::new(FsPaths) as _);
    crate::guard::policy::Config {
        protected_paths,
        local_paths,
        ..crate::guard::policy::Config::default()
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
        // Something must answer there as a DevTools WebSocket does, or every client would
        // find out one connection at a time.
        let five = Duration::from_secs(5);
        ws::connect_as(upstream, None, five, Some(five), 1 << 16).map_err(|_| {
            bad("no DevTools WebSocket answers there (is the browser running, with --remote-debugging-port?)")
        })?;
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

/// One client connection's place: counted while it lives, its socket known for [`Proxy::close`].
struct Slot {
    context: Arc<Context>,
    conn: u64,
    /// Why the connection ended, when the relay knows (for the log's `close` line).
    why: Mutex<Option<String>>,
}

impl Slot {
    /// Records why the connection ends (the first reason given counts).
    fn ended(&self, why: String) {
        lock(&self.why).get_or_insert(why);
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        lock(&self.context.open).remove(&self.conn);
        self.context.connections.fetch_sub(1, Ordering::SeqCst);
        let why = lock(&self.why).take();
        self.context
            .log(json!({"event": "close", "conn": self.conn, "why": why}));
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
            why: Mutex::new(None),
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
#[cfg(test)]
mod tests {
    use super::answer::Refusal;
    use super::*;
    use crate::http::head::HeadError;
    use crate::http::GetError;

    #[test]
    fn urls() {
        assert!(resolve_upstream("wss://x/").is_err());
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
