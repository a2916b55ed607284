//! The stand-in: an HTTP/1.1 server serving the guard vectors' routes on every host, and
//! logging every request (the spec's `fixtureServer`).
//!
//! ```no_run
//! use slicc_browsers::guard::fixture::{Fixture, FixtureOptions};
//! let fixture = Fixture::start(FixtureOptions::default())?;
//! println!("serving on {}", fixture.origin()); // http://127.0.0.1:<random port>
//! // … point the browser's host resolution at fixture.port() and run a leg …
//! let start = fixture.len();
//! let window = fixture.log_since(start);
//! fixture.close();
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # Routes
//!
//! Every route is served on every `Host` (the browser maps the protected and ordinary hosts to
//! this one port); the route is chosen by path alone. Every response carries
//! `Cache-Control: no-store`, so a browser asks again and the log sees it.
//!
//! | route | response |
//! |---|---|
//! | `/doc?n=<n>[&csp=1]` (any method) | HTML titled `doc <n>`, `data-canary="<n>"` on `<html>` and `<body>`, an `<img src="/live?n=<n>">` heartbeat on its own origin. `csp=1` adds `Content-Security-Policy: script-src 'none'` and an inline script that sends the beacon `/beacon?tag=inline-<n>&origin=…&href=…` to its own origin (blocked unless CSP is bypassed). |
//! | `/hop?code=<300-399>&to=<url>` | that redirect to `to`; 400 for another code or no `to` |
//! | `/framed?src=<url>` | HTML titled `framed`, with an `<iframe src="<url>">` |
//! | `/data?n=<n>` | `real-<n>` (text/plain) |
//! | `/img`, `/live` | a 1×1 PNG (`/live`: the documents' heartbeat) |
//! | `/auth` | `authed` with `Authorization: Basic dTpw` (`u:p`), else 401 with `WWW-Authenticate: Basic realm="stand-in"` |
//! | `/rewritten` | HTML titled `rewritten` |
//! | `/plant?n=<n>` or `?tag=<n>`, optional `name`, `value` | sets the canary cookie `name=value` (defaults: [`canary_cookie`]`(<n>)` and `<n>`; `Path=/; SameSite=Lax`, readable by scripts) and serves a page storing `localStorage[name] = value` and the IndexedDB canary (see [`super::standin`]); its title becomes `planted <n>` when all are stored |
//! | `/beacon` (GET or POST) | 204 |
//! | `/log?n=<n>` | JSON `{"hits": [entry…], "beacons": [beacon…]}`: the log entries whose URL contains `n` (`/log` requests left out), and of those the `/beacon` ones as `{url, tag, origin, href, method, time}` |
//! | anything else | 404 |
//!
//! CORS: every route but `/doc`, `/framed`, `/rewritten` and `/plant` answers a request that
//! has an `Origin` with `Access-Control-Allow-Origin: <that origin>`,
//! `Access-Control-Allow-Credentials: true` and `Vary: Origin`; an `OPTIONS` with
//! `Access-Control-Request-Method` on any route is a preflight and gets 204 allowing the
//! requested method and headers (and private network access when asked).
//!
//! # The log
//!
//! A request is logged once it is complete (head and body read) and valid HTTP/1.x, before
//! any latency hold: `url` is `http://<Host header><request target>` (an absolute-form target
//! is logged as sent), header names are in lower case, repeated headers are joined with `, `.
//! Bytes that are not an HTTP request (a TLS ClientHello from an HTTPS upgrade, garbage), an
//! oversized or unfinished request, or one with a missing or malformed `Host` get an error
//! status (400, 408, 413, 414, 431, 501, 505) and the connection is closed; none of them is
//! logged.
//!
//! Log indices are absolute: [`Fixture::len`] is how many entries were ever logged, and
//! [`Fixture::log_since`]`(i)` returns the retained entries from index `i` on. They never go
//! back, not even after [`Fixture::reset`] (which drops the retained entries), so a driver can
//! take per-leg windows while other legs share the fixture. At most
//! [`FixtureOptions::max_log_entries`] entries are retained; the oldest are dropped first.
//!
//! # Connections and limits
//!
//! One thread per connection, HTTP/1.1 keep-alive (and pipelining) supported: a connection
//! serves requests until the client closes it, sends `Connection: close`, stays idle past
//! [`Limits::idle_timeout`], or has made [`Limits::max_requests_per_connection`] requests.
//! Every request must arrive within [`Limits::request_timeout`] of its first byte, and no single
//! read may wait past [`Limits::read_timeout`] (slowloris). Request line, header section,
//! header count and body are capped ([`Limits`]); past [`Limits::max_connections`] open
//! connections, a new one gets 503 and is closed. Nothing a client sends makes the server
//! panic or hold more than those bounds.
//!
//! No TLS: the stand-in serves plain HTTP only, and its logged URLs are `http://` ones.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt;
use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use super::runner::record::LogEntry;
use super::standin::{
    canary_cookie, CANARY_DB, CANARY_STORE, PLANTED_TITLE_PREFIX, PLANT_FAILED_TITLE_PREFIX,
};

/// How long to hold the response to a URL: called with each logged URL, `None` for no hold.
pub type Latency = Arc<dyn Fn(&str) -> Option<Duration> + Send + Sync>;

/// The remote-debugging ports the stand-in never listens on: 9222 to 9229.
pub const RESERVED_PORTS: std::ops::RangeInclusive<u16> = 9222..=9229;

/// A valid 1×1 transparent PNG: what `/img` and `/live` serve.
pub const PNG_1X1: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, // signature
    0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, // IHDR, 13 bytes
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, // 1 x 1
    0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4, 0x89, // RGBA 8-bit, CRC
    0x00, 0x00, 0x00, 0x0A, 0x49, 0x44, 0x41, 0x54, // IDAT, 10 bytes
    0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0x01, // zlib
    0x0D, 0x0A, 0x2D, 0xB4, // CRC
    0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82, // IEND
];

/// The `Authorization` value `/auth` accepts: Basic `u:p`.
pub const AUTH_BASIC: &str = "Basic dTpw";

/// The bounds the server keeps against clients.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// The longest request line, in bytes (414 past it). Default 16 KiB.
    pub max_request_line: usize,
    /// The largest request head (request line and headers), in bytes (431 past it).
    /// Default 64 KiB.
    pub max_head: usize,
    /// The most header fields in one request (431 past it). Default 100.
    pub max_headers: usize,
    /// The largest request body, in bytes (413 past it). Default 1 MiB.
    pub max_body: usize,
    /// The longest a single read may wait for bytes once a request has started (408 past it).
    /// Default 10 s.
    pub read_timeout: Duration,
    /// The longest a whole request (head and body) may take from its first byte (408 past it).
    /// Default 30 s.
    pub request_timeout: Duration,
    /// How long a connection may wait for the first byte of a request before it is closed.
    /// Default 10 s.
    pub idle_timeout: Duration,
    /// The longest a response write may block. Default 10 s.
    pub write_timeout: Duration,
    /// The most connections served at once (a new one past it gets 503). Default 256.
    pub max_connections: usize,
    /// The most requests one connection serves before it is closed. Default 1000.
    pub max_requests_per_connection: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_request_line: 16 * 1024,
            max_head: 64 * 1024,
            max_headers: 100,
            max_body: 1024 * 1024,
            read_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(10),
            write_timeout: Duration::from_secs(10),
            max_connections: 256,
            max_requests_per_connection: 1000,
        }
    }
}

/// How to start a [`Fixture`] (the spec's `fixtureServer({ host, port, latency })`).
#[derive(Clone)]
pub struct FixtureOptions {
    /// The address to listen on. Default 127.0.0.1.
    pub host: IpAddr,
    /// The port; 0 (the default) picks a random free one. 9222-9229 are refused.
    pub port: u16,
    /// How long to hold each URL's response, for timing tests. Default none.
    pub latency: Option<Latency>,
    /// The bounds against clients.
    pub limits: Limits,
    /// The most log entries retained; the oldest are dropped past it. Default 100,000.
    pub max_log_entries: usize,
}

impl Default for FixtureOptions {
    fn default() -> Self {
        FixtureOptions {
            host: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: 0,
            latency: None,
            limits: Limits::default(),
            max_log_entries: 100_000,
        }
    }
}

impl fmt::Debug for FixtureOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FixtureOptions")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("latency", &self.latency.as_ref().map(|_| "Fn(&str)"))
            .field("limits", &self.limits)
            .field("max_log_entries", &self.max_log_entries)
            .finish()
    }
}

/// A running stand-in. Dropping it closes it.
pub struct Fixture {
    shared: Arc<Shared>,
    addr: SocketAddr,
    accept: Mutex<Option<JoinHandle<()>>>,
}

impl fmt::Debug for Fixture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fixture")
            .field("addr", &self.addr)
            .field("logged", &self.len())
            .finish()
    }
}

impl Fixture {
    /// Binds and starts serving. Fails when the port is one of 9222-9229 (the remote-debugging
    /// ports) or cannot be bound.
    pub fn start(options: FixtureOptions) -> io::Result<Fixture> {
        if RESERVED_PORTS.contains(&options.port) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "port {} is reserved for browsers' remote debugging (9222-9229): \
                     the stand-in never listens there; choose another port or 0 for a random one",
                    options.port
                ),
            ));
        }
        let listener = bind(options.host, options.port)?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            log: Mutex::new(LogState::default()),
            logged: Condvar::new(),
            stop: AtomicBool::new(false),
            stop_lock: Mutex::new(()),
            stopped: Condvar::new(),
            conns: Mutex::new(HashMap::new()),
            conns_empty: Condvar::new(),
            next_id: AtomicU64::new(0),
            active: AtomicUsize::new(0),
            latency: options.latency,
            limits: options.limits,
            max_log_entries: options.max_log_entries.max(1),
            own_authority: authority(addr),
        });
        let for_accept = Arc::clone(&shared);
        let accept = thread::Builder::new()
            .name(format!("stand-in accept {}", addr.port()))
            .spawn(move || accept_loop(listener, for_accept))?;
        Ok(Fixture {
            shared,
            addr,
            accept: Mutex::new(Some(accept)),
        })
    }

    /// `http://<host>:<port>` of the listening socket, such as `http://127.0.0.1:41234`.
    pub fn origin(&self) -> String {
        format!("http://{}", self.shared.own_authority)
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every retained log entry, oldest first.
    pub fn log(&self) -> Vec<LogEntry> {
        self.shared.lock_log().entries.iter().cloned().collect()
    }

    /// How many entries were ever logged: the index the next entry gets. It never decreases,
    /// not even on [`reset`](Self::reset).
    pub fn len(&self) -> usize {
        self.shared.lock_log().next
    }

    /// Whether nothing was ever logged.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The retained entries whose index is `index` or more (take `index` from [`len`](Self::len)
    /// before a leg starts).
    pub fn log_since(&self, index: usize) -> Vec<LogEntry> {
        self.shared.lock_log().since(index)
    }

    /// Waits until an entry with index `index` or more is logged, or `timeout` passes, or the
    /// fixture closes. Returns the retained entries from `index` on, with the index of the first
    /// one: more than `index` when older entries were dropped past
    /// [`FixtureOptions::max_log_entries`]. The next index to wait for is that index plus the
    /// number of entries. On timeout the entries are empty.
    pub fn wait_log(&self, index: usize, timeout: Duration) -> (usize, Vec<LogEntry>) {
        let deadline = Instant::now() + timeout;
        let mut log = self.shared.lock_log();
        loop {
            if log.next > index || self.shared.stopping() {
                return (index.max(log.first), log.since(index));
            }
            let now = Instant::now();
            if now >= deadline {
                return (index, Vec::new());
            }
            log = match self.shared.logged.wait_timeout(log, deadline - now) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }

    /// Drops every retained entry (indices keep counting).
    pub fn reset(&self) {
        let mut log = self.shared.lock_log();
        log.first = log.next;
        log.entries.clear();
    }

    /// Stops accepting, closes every open connection and waits (at most 5 s) for their threads.
    /// Idempotent; dropping the fixture does the same.
    pub fn close(&self) {
        let accept = match self.accept.lock() {
            Ok(mut guard) => guard.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        let Some(accept) = accept else {
            return;
        };
        self.shared.stop.store(true, Ordering::SeqCst);
        {
            let _guard = self.shared.stop_lock.lock();
            self.shared.stopped.notify_all();
        }
        self.shared.logged.notify_all();
        // Wake the blocking accept with a connection of our own.
        let wake = match self.addr.ip() {
            ip if ip.is_unspecified() => match ip {
                IpAddr::V4(_) => SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), self.addr.port()),
                IpAddr::V6(_) => {
                    SocketAddr::new(IpAddr::V6(std::net::Ipv6Addr::LOCALHOST), self.addr.port())
                }
            },
            _ => self.addr,
        };
        if TcpStream::connect_timeout(&wake, Duration::from_secs(2)).is_ok() {
            let _ = accept.join();
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut conns = self.shared.lock_conns();
        for stream in conns.values() {
            let _ = stream.shutdown(Shutdown::Both);
        }
        while !conns.is_empty() {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            conns = match self.shared.conns_empty.wait_timeout(conns, deadline - now) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        self.close();
    }
}

fn bind(host: IpAddr, port: u16) -> io::Result<TcpListener> {
    if port != 0 {
        return TcpListener::bind((host, port));
    }
    // A random port is never one of the reserved ones (the OS's ephemeral range is far from
    // them, but make sure).
    for _ in 0..16 {
        let listener = TcpListener::bind((host, 0))?;
        if !RESERVED_PORTS.contains(&listener.local_addr()?.port()) {
            return Ok(listener);
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AddrNotAvailable,
        "no free port outside 9222-9229",
    ))
}

fn authority(addr: SocketAddr) -> String {
    match addr {
        SocketAddr::V4(a) => format!("{}:{}", a.ip(), a.port()),
        SocketAddr::V6(a) => format!("[{}]:{}", a.ip(), a.port()),
    }
}

#[derive(Default)]
struct LogState {
    entries: VecDeque<LogEntry>,
    /// The absolute index of `entries[0]`.
    first: usize,
    /// The absolute index the next entry gets.
    next: usize,
}

impl LogState {
    fn since(&self, index: usize) -> Vec<LogEntry> {
        let skip = index.saturating_sub(self.first);
        self.entries.iter().skip(skip).cloned().collect()
    }
}

struct Shared {
    log: Mutex<LogState>,
    logged: Condvar,
    stop: AtomicBool,
    stop_lock: Mutex<()>,
    stopped: Condvar,
    conns: Mutex<HashMap<u64, TcpStream>>,
    conns_empty: Condvar,
    next_id: AtomicU64,
    active: AtomicUsize,
    latency: Option<Latency>,
    limits: Limits,
    max_log_entries: usize,
    own_authority: String,
}

impl Shared {
    fn lock_log(&self) -> MutexGuard<'_, LogState> {
        self.log.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lock_conns(&self) -> MutexGuard<'_, HashMap<u64, TcpStream>> {
        self.conns.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn stopping(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    fn push(&self, entry: LogEntry) {
        let mut log = self.lock_log();
        log.entries.push_back(entry);
        log.next += 1;
        while log.entries.len() > self.max_log_entries {
            log.entries.pop_front();
            log.first += 1;
        }
        drop(log);
        self.logged.notify_all();
    }

    /// Sleeps `duration`, or less when the fixture closes.
    fn hold(&self, duration: Duration) {
        let deadline = Instant::now() + duration;
        let mut guard = self.stop_lock.lock().unwrap_or_else(|p| p.into_inner());
        while !self.stopping() {
            let now = Instant::now();
            if now >= deadline {
                return;
            }
            guard = match self.stopped.wait_timeout(guard, deadline - now) {
                Ok((g, _)) => g,
                Err(p) => p.into_inner().0,
            };
        }
    }
}

fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    loop {
        let stream = match listener.accept() {
            Ok((stream, _)) => stream,
            Err(_) if shared.stopping() => return,
            Err(_) => {
                // Out of descriptors or a reset before accept: back off instead of spinning.
                thread::sleep(Duration::from_millis(20));
                continue;
            }
        };
        if shared.stopping() {
            return;
        }
        if shared.active.load(Ordering::SeqCst) >= shared.limits.max_connections {
            refuse_busy(stream);
            continue;
        }
        let id = shared.next_id.fetch_add(1, Ordering::SeqCst);
        let Ok(clone) = stream.try_clone() else {
            continue;
        };
        shared.active.fetch_add(1, Ordering::SeqCst);
        shared.lock_conns().insert(id, clone);
        let for_conn = Arc::clone(&shared);
        let spawned = thread::Builder::new()
            .name("stand-in conn".into())
            .stack_size(256 * 1024)
            .spawn(move || {
                serve_connection(stream, &for_conn);
                for_conn.finish_conn(id);
            });
        if spawned.is_err() {
            shared.finish_conn(id);
        }
    }
}

impl Shared {
    fn finish_conn(&self, id: u64) {
        let mut conns = self.lock_conns();
        if let Some(stream) = conns.remove(&id) {
            let _ = stream.shutdown(Shutdown::Both);
        }
        self.active.fetch_sub(1, Ordering::SeqCst);
        if conns.is_empty() {
            self.conns_empty.notify_all();
        }
    }
}

fn refuse_busy(stream: TcpStream) {
    // Never block the accept loop: the kernel buffer takes this small answer or it is lost.
    let _ = stream.set_nonblocking(true);
    let mut stream = stream;
    let _ = stream.write_all(&error_response(503, "too many connections"));
    let _ = stream.shutdown(Shutdown::Both);
}

/// A parsed, complete request.
struct Request {
    method: String,
    /// The path part of the target (`/doc`).
    path: String,
    /// The decoded query parameters, in order.
    query: Vec<(String, String)>,
    /// Lower-case names; repeated ones joined with `, `.
    headers: BTreeMap<String, String>,
    /// The logged URL.
    url: String,
    keep_alive: bool,
}

impl Request {
    fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }
}

/// Why a request could not be read: the status to answer with (0: close without answering).
struct Reject {
    status: u16,
    why: &'static str,
}

impl Reject {
    fn new(status: u16, why: &'static str) -> Reject {
        Reject { status, why }
    }
    fn silent() -> Reject {
        Reject { status: 0, why: "" }
    }
}

/// Reads from the stream into a buffer under the limits.
struct Conn<'a> {
    stream: &'a TcpStream,
    buf: Vec<u8>,
    limits: &'a Limits,
}

enum Fill {
    Data,
    Eof,
    Timeout,
}

impl Conn<'_> {
    /// Reads more bytes, waiting until `deadline` at most (and at most one read timeout).
    fn fill(&mut self, deadline: Instant) -> Fill {
        let now = Instant::now();
        if now >= deadline {
            return Fill::Timeout;
        }
        let wait = (deadline - now)
            .min(self.limits.read_timeout)
            .max(Duration::from_millis(1));
        if self.stream.set_read_timeout(Some(wait)).is_err() {
            return Fill::Eof;
        }
        let mut chunk = [0u8; 8192];
        loop {
            let mut reader = self.stream;
            match reader.read(&mut chunk) {
                Ok(0) => return Fill::Eof,
                Ok(n) => {
                    self.buf.extend_from_slice(&chunk[..n]);
                    return Fill::Data;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e)
                    if e.kind() == io::ErrorKind::WouldBlock
                        || e.kind() == io::ErrorKind::TimedOut =>
                {
                    return Fill::Timeout
                }
                Err(_) => return Fill::Eof,
            }
        }
    }

    /// Reads one request, or `Ok(None)` when the connection ends (or idles out) between
    /// requests.
    fn read_request(
        &mut self,
        idle: Duration,
        own_authority: &str,
    ) -> Result<Option<Request>, Reject> {
        // Between requests: blank lines are allowed (RFC 9112 §2.2), then wait for a first byte.
        let idle_deadline = Instant::now() + idle;
        loop {
            let blank = self
                .buf
                .iter()
                .take_while(|b| **b == b'\r' || **b == b'\n')
                .count();
            self.buf.drain(..blank);
            if !self.buf.is_empty() {
                break;
            }
            match self.fill(idle_deadline) {
                Fill::Data => {}
                Fill::Eof | Fill::Timeout => return Ok(None),
            }
        }
        let deadline = Instant::now() + self.limits.request_timeout;
        let head_end = loop {
            // Anything that does not start like a method token is not HTTP (a TLS
            // ClientHello starts with 0x16): answer at once, never wait for more.
            let token = self.buf.iter().take_while(|b| is_tchar(**b)).count();
            if token == 0 || (token < self.buf.len() && self.buf[token] != b' ') {
                return Err(Reject::new(400, "not an HTTP request"));
            }
            if token > 32 {
                return Err(Reject::new(400, "not an HTTP request (method too long)"));
            }
            if let Some(end) = find_head_end(&self.buf) {
                break end;
            }
            let line_done = self.buf.contains(&b'\n');
            if !line_done && self.buf.len() > self.limits.max_request_line {
                return Err(Reject::new(414, "request line too long"));
            }
            if self.buf.len() > self.limits.max_head {
                return Err(Reject::new(431, "request head too large"));
            }
            match self.fill(deadline) {
                Fill::Data => {}
                Fill::Eof => return Err(Reject::silent()),
                Fill::Timeout => return Err(Reject::new(408, "request not completed in time")),
            }
        };
        if head_end > self.limits.max_head {
            return Err(Reject::new(431, "request head too large"));
        }
        let head: Vec<u8> = self.buf.drain(..head_end).collect();
        let request = parse_head(&head, self.limits, own_authority)?;
        self.read_body(&request.headers, deadline)?;
        Ok(Some(request))
    }

    fn read_body(
        &mut self,
        headers: &BTreeMap<String, String>,
        deadline: Instant,
    ) -> Result<(), Reject> {
        let length = headers.get("content-length");
        let coding = headers.get("transfer-encoding");
        match (length, coding) {
            (Some(_), Some(_)) => Err(Reject::new(
                400,
                "both Content-Length and Transfer-Encoding",
            )),
            (None, None) => Ok(()),
            (Some(length), None) => {
                let length = parse_length(length)?;
                if length > self.limits.max_body {
                    return Err(Reject::new(413, "request body too large"));
                }
                self.discard(length, deadline)
            }
            (None, Some(coding)) => {
                if !coding.trim().eq_ignore_ascii_case("chunked") {
                    return Err(Reject::new(501, "unsupported Transfer-Encoding"));
                }
                self.discard_chunked(deadline)
            }
        }
    }

    fn discard(&mut self, mut length: usize, deadline: Instant) -> Result<(), Reject> {
        loop {
            let take = length.min(self.buf.len());
            self.buf.drain(..take);
            length -= take;
            if length == 0 {
                return Ok(());
            }
            match self.fill(deadline) {
                Fill::Data => {}
                Fill::Eof => return Err(Reject::silent()),
                Fill::Timeout => {
                    return Err(Reject::new(408, "request body not completed in time"))
                }
            }
        }
    }

    /// Reads one line (without its line end), at most `max` bytes.
    fn line(&mut self, max: usize, deadline: Instant) -> Result<Vec<u8>, Reject> {
        loop {
            if let Some(i) = self.buf.iter().position(|b| *b == b'\n') {
                if i > max {
                    return Err(Reject::new(400, "chunk line too long"));
                }
                let mut line: Vec<u8> = self.buf.drain(..=i).collect();
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                return Ok(line);
            }
            if self.buf.len() > max {
                return Err(Reject::new(400, "chunk line too long"));
            }
            match self.fill(deadline) {
                Fill::Data => {}
                Fill::Eof => return Err(Reject::silent()),
                Fill::Timeout => {
                    return Err(Reject::new(408, "request body not completed in time"))
                }
            }
        }
    }

    fn discard_chunked(&mut self, deadline: Instant) -> Result<(), Reject> {
        let mut total = 0usize;
        loop {
            let line = self.line(1024, deadline)?;
            let size = line.split(|b| *b == b';').next().unwrap_or(&[]);
            let size = std::str::from_utf8(size)
                .ok()
                .map(str::trim)
                .filter(|s| !s.is_empty() && s.len() <= 8)
                .and_then(|s| usize::from_str_radix(s, 16).ok())
                .ok_or(Reject::new(400, "bad chunk size"))?;
            total = total.saturating_add(size);
            if total > self.limits.max_body {
                return Err(Reject::new(413, "request body too large"));
            }
            if size == 0 {
                // Trailers, up to the blank line; counted against the head limit.
                let mut trailers = 0usize;
                loop {
                    let line = self.line(self.limits.max_head, deadline)?;
                    if line.is_empty() {
                        return Ok(());
                    }
                    trailers += line.len();
                    if trailers > self.limits.max_head {
                        return Err(Reject::new(431, "trailers too large"));
                    }
                }
            }
            self.discard(size, deadline)?;
            if !self.line(2, deadline)?.is_empty() {
                return Err(Reject::new(400, "chunk not followed by a line end"));
            }
        }
    }
}

fn parse_length(value: &str) -> Result<usize, Reject> {
    // Repeated identical values ("5, 5") are allowed by RFC 9110 §8.6.
    let mut found: Option<usize> = None;
    for part in value.split(',') {
        let part = part.trim();
        if part.is_empty() || part.len() > 19 || !part.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Reject::new(400, "bad Content-Length"));
        }
        let n: usize = part
            .parse()
            .map_err(|_| Reject::new(400, "bad Content-Length"))?;
        if found.is_some_and(|f| f != n) {
            return Err(Reject::new(400, "conflicting Content-Length"));
        }
        found = Some(n);
    }
    found.ok_or(Reject::new(400, "bad Content-Length"))
}

/// The index just past the blank line that ends the head, if it is there.
fn find_head_end(buf: &[u8]) -> Option<usize> {
    let mut i = 0;
    while let Some(p) = buf[i..].iter().position(|b| *b == b'\n') {
        let at = i + p;
        let rest = &buf[at + 1..];
        if rest.starts_with(b"\r\n") {
            return Some(at + 3);
        }
        if rest.starts_with(b"\n") {
            return Some(at + 2);
        }
        i = at + 1;
    }
    None
}

fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

fn parse_head(head: &[u8], limits: &Limits, own_authority: &str) -> Result<Request, Reject> {
    let mut lines = head
        .split(|b| *b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l));
    let request_line = lines.next().unwrap_or(&[]);
    if request_line.len() > limits.max_request_line {
        return Err(Reject::new(414, "request line too long"));
    }
    let request_line =
        std::str::from_utf8(request_line).map_err(|_| Reject::new(400, "bad request line"))?;
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(Reject::new(400, "bad request line"));
    };
    if method.is_empty() || !method.bytes().all(is_tchar) {
        return Err(Reject::new(400, "bad method"));
    }
    if target.is_empty() || !target.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(Reject::new(400, "bad request target"));
    }
    let http10 = match version {
        "HTTP/1.1" => false,
        "HTTP/1.0" => true,
        v if v.starts_with("HTTP/") => return Err(Reject::new(505, "HTTP version not supported")),
        _ => return Err(Reject::new(400, "bad HTTP version")),
    };

    let mut headers: BTreeMap<String, String> = BTreeMap::new();
    let mut hosts = 0usize;
    let mut count = 0usize;
    for line in lines {
        if line.is_empty() {
            break;
        }
        count += 1;
        if count > limits.max_headers {
            return Err(Reject::new(431, "too many header fields"));
        }
        if line[0] == b' ' || line[0] == b'\t' {
            return Err(Reject::new(400, "obsolete header line folding"));
        }
        let colon = line
            .iter()
            .position(|b| *b == b':')
            .ok_or(Reject::new(400, "header line without a colon"))?;
        let name = &line[..colon];
        if name.is_empty() || !name.iter().all(|b| is_tchar(*b)) {
            return Err(Reject::new(400, "bad header name"));
        }
        let value = &line[colon + 1..];
        if value.iter().any(|b| *b == 0 || *b == b'\r' || *b == b'\n') {
            return Err(Reject::new(400, "bad header value"));
        }
        let name = String::from_utf8_lossy(name).to_ascii_lowercase();
        let value = String::from_utf8_lossy(value)
            .trim_matches([' ', '\t'])
            .to_string();
        if name == "host" {
            hosts += 1;
        }
        headers
            .entry(name)
            .and_modify(|v| {
                v.push_str(", ");
                v.push_str(&value);
            })
            .or_insert(value);
    }

    if hosts > 1 {
        return Err(Reject::new(400, "more than one Host"));
    }
    let host = match headers.get("host") {
        Some(h) if valid_host(h) => h.clone(),
        Some(_) => return Err(Reject::new(400, "bad Host")),
        None if http10 => own_authority.to_string(),
        None => return Err(Reject::new(400, "no Host")),
    };
    let (url, path_and_query) = if target.starts_with('/') {
        (format!("http://{host}{target}"), target.to_string())
    } else if let Some(rest) = target
        .strip_prefix("http://")
        .or_else(|| target.strip_prefix("https://"))
    {
        let path = rest.find(['/', '?']).map_or("/", |i| &rest[i..]);
        let path = if path.starts_with('?') {
            format!("/{path}")
        } else {
            path.to_string()
        };
        (target.to_string(), path)
    } else {
        return Err(Reject::new(400, "unsupported request target form"));
    };
    let path_and_query = path_and_query
        .split('#')
        .next()
        .unwrap_or_default()
        .to_string();
    let (path, query) = match path_and_query.split_once('?') {
        Some((p, q)) => (p.to_string(), parse_query(q)),
        None => (path_and_query.clone(), Vec::new()),
    };
    let connection = headers
        .get("connection")
        .map(|c| c.to_ascii_lowercase())
        .unwrap_or_default();
    let has = |token: &str| connection.split(',').any(|t| t.trim() == token);
    let keep_alive = if http10 {
        has("keep-alive")
    } else {
        !has("close")
    };
    Ok(Request {
        method: method.to_string(),
        path,
        query,
        headers,
        url,
        keep_alive,
    })
}

/// A Host value a URL can carry: a host name or IP literal, with an optional port.
fn valid_host(host: &str) -> bool {
    !host.is_empty()
        && host.len() <= 255
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._:[]".contains(&b))
}

fn parse_query(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| match pair.split_once('=') {
            Some((k, v)) => (percent_decode(k), percent_decode(v)),
            None => (percent_decode(pair), String::new()),
        })
        .collect()
}

/// `application/x-www-form-urlencoded` decoding: `+` is a space, `%XX` a byte; invalid
/// escapes stay as they are, invalid UTF-8 becomes U+FFFD.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h * 16 + l);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// `encodeURIComponent`: every byte but `A-Z a-z 0-9 - _ . ! ~ * ' ( )` percent-encoded.
fn encode_component(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Text safe in HTML content and quoted attributes.
fn html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A JavaScript string literal safe inside a `<script>` element: every character outside a
/// small safe set is a `\uXXXX` escape.
fn js_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if c.is_ascii_alphanumeric() || " -_.,:/?=&%+@!~*()".contains(c) {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out.push('"');
    out
}

/// A response to write.
struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Response {
    fn new(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Response {
        let mut r = Response {
            status,
            headers: Vec::new(),
            body: body.into(),
        };
        if !content_type.is_empty() {
            r.header("Content-Type", content_type);
        }
        r
    }

    fn html(body: String) -> Response {
        Response::new(200, "text/html; charset=utf-8", body)
    }

    fn text(status: u16, body: impl Into<String>) -> Response {
        Response::new(status, "text/plain; charset=utf-8", body.into())
    }

    fn header(&mut self, name: &str, value: &str) {
        self.headers.push((name.to_string(), value.to_string()));
    }

    fn bytes(&self, head_only: bool, keep_alive: bool) -> Vec<u8> {
        let mut out = format!("HTTP/1.1 {} {}\r\n", self.status, reason(self.status));
        for (name, value) in &self.headers {
            out.push_str(name);
            out.push_str(": ");
            out.push_str(value);
            out.push_str("\r\n");
        }
        out.push_str("Cache-Control: no-store\r\n");
        out.push_str(&format!("Content-Length: {}\r\n", self.body.len()));
        out.push_str(if keep_alive {
            "Connection: keep-alive\r\n\r\n"
        } else {
            "Connection: close\r\n\r\n"
        });
        let mut bytes = out.into_bytes();
        if !head_only {
            bytes.extend_from_slice(&self.body);
        }
        bytes
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        300 => "Multiple Choices",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        408 => "Request Timeout",
        413 => "Content Too Large",
        414 => "URI Too Long",
        431 => "Request Header Fields Too Large",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        s if (300..=399).contains(&s) => "Redirect",
        _ => "Status",
    }
}

fn error_response(status: u16, why: &str) -> Vec<u8> {
    Response::text(status, format!("{status} {}: {why}\n", reason(status))).bytes(false, false)
}

fn serve_connection(stream: TcpStream, shared: &Shared) {
    let limits = &shared.limits;
    let _ = stream.set_nodelay(true);
    let _ = stream.set_write_timeout(Some(limits.write_timeout));
    let mut conn = Conn {
        stream: &stream,
        buf: Vec::new(),
        limits,
    };
    for served in 0..limits.max_requests_per_connection {
        if shared.stopping() {
            return;
        }
        let idle = if served == 0 {
            limits.request_timeout.min(limits.idle_timeout)
        } else {
            limits.idle_timeout
        };
        let request = match conn.read_request(idle, &shared.own_authority) {
            Ok(Some(request)) => request,
            Ok(None) => return,
            Err(reject) => {
                if reject.status != 0 {
                    let mut writer = &stream;
                    let _ = writer.write_all(&error_response(reject.status, reject.why));
                    let _ = writer.flush();
                }
                let _ = stream.shutdown(Shutdown::Write);
                linger(&stream);
                return;
            }
        };
        shared.push(LogEntry {
            url: request.url.clone(),
            method: request.method.clone(),
            headers: request.headers.clone(),
            time: now_ms(),
        });
        if let Some(hold) = shared.latency.as_ref().and_then(|f| f(&request.url)) {
            shared.hold(hold);
            if shared.stopping() {
                return;
            }
        }
        let response = route(&request, shared);
        let keep_alive = request.keep_alive && served + 1 < limits.max_requests_per_connection;
        let mut writer = &stream;
        if writer
            .write_all(&response.bytes(request.method == "HEAD", keep_alive))
            .and_then(|_| writer.flush())
            .is_err()
        {
            return;
        }
        if !keep_alive {
            let _ = stream.shutdown(Shutdown::Write);
            return;
        }
    }
}

/// Reads and drops what a rejected client still sends, for at most 1 s and 1 MiB, so that
/// closing with unread input (which makes the kernel send a reset) does not destroy the
/// error answer before the client reads it.
fn linger(stream: &TcpStream) {
    let deadline = Instant::now() + Duration::from_secs(1);
    let mut budget = 1024 * 1024usize;
    let mut chunk = [0u8; 8192];
    while budget > 0 {
        let now = Instant::now();
        if now >= deadline || stream.set_read_timeout(Some(deadline - now)).is_err() {
            return;
        }
        let mut reader = stream;
        match reader.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => budget = budget.saturating_sub(n),
        }
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// The routes that answer CORS requests (see the module docs).
const CORS_ROUTES: &[&str] = &["/data", "/img", "/live", "/auth", "/beacon", "/log", "/hop"];

const KNOWN_ROUTES: &[&str] = &[
    "/doc",
    "/hop",
    "/framed",
    "/data",
    "/img",
    "/auth",
    "/rewritten",
    "/plant",
    "/beacon",
    "/log",
    "/live",
];

fn route(req: &Request, shared: &Shared) -> Response {
    let path = req.path.as_str();
    if !KNOWN_ROUTES.contains(&path) {
        return Response::text(404, format!("no stand-in route {path}\n"));
    }
    if req.method == "OPTIONS" && req.header("access-control-request-method").is_some() {
        return preflight(req);
    }
    let mut response = match path {
        "/doc" => doc(req),
        "/hop" => hop(req),
        "/framed" => framed(req),
        "/data" => Response::text(200, format!("real-{}", req.param("n").unwrap_or(""))),
        "/img" | "/live" => Response::new(200, "image/png", PNG_1X1),
        "/auth" => auth(req),
        "/rewritten" => Response::html(
            "<!doctype html><html><head><meta charset=\"utf-8\"><title>rewritten</title>\
             </head><body>rewritten</body></html>"
                .to_string(),
        ),
        "/plant" => plant(req),
        "/beacon" => Response::new(204, "", Vec::new()),
        "/log" => log_route(req, shared),
        _ => Response::text(404, format!("no stand-in route {path}\n")),
    };
    if CORS_ROUTES.contains(&path) {
        cors(req, &mut response);
    }
    response
}

fn cors(req: &Request, response: &mut Response) {
    if let Some(origin) = req.header("origin") {
        response.header("Access-Control-Allow-Origin", origin);
        response.header("Access-Control-Allow-Credentials", "true");
        response.header("Vary", "Origin");
    }
}

fn preflight(req: &Request) -> Response {
    let mut r = Response::new(204, "", Vec::new());
    cors(req, &mut r);
    if let Some(method) = req.header("access-control-request-method") {
        r.header("Access-Control-Allow-Methods", method);
    }
    if let Some(headers) = req.header("access-control-request-headers") {
        r.header("Access-Control-Allow-Headers", headers);
    }
    if req
        .header("access-control-request-private-network")
        .is_some()
    {
        r.header("Access-Control-Allow-Private-Network", "true");
    }
    r.header("Access-Control-Max-Age", "0");
    r
}

fn doc(req: &Request) -> Response {
    let n = req.param("n").unwrap_or("");
    let csp = req.param("csp") == Some("1");
    let h = html(n);
    let script = if csp {
        let tag = format!("inline-{n}");
        format!(
            "<script>(function(){{var u=\"/beacon?tag=\"+encodeURIComponent({tag})\
             +\"&origin=\"+encodeURIComponent(location.origin)\
             +\"&href=\"+encodeURIComponent(location.href);\
             try{{if(navigator.sendBeacon&&navigator.sendBeacon(u))return}}catch(e){{}}\
             try{{fetch(u,{{method:\"POST\",keepalive:true,mode:\"no-cors\"}})}}catch(e){{}}\
             }})();</script>",
            tag = js_string(&tag)
        )
    } else {
        String::new()
    };
    let body = format!(
        "<!doctype html><html data-canary=\"{h}\"><head><meta charset=\"utf-8\">\
         <title>doc {h}</title></head><body data-canary=\"{h}\"><p>doc {h}</p>\
         <img src=\"/live?n={live}\" width=\"1\" height=\"1\" alt=\"\">{script}</body></html>",
        live = encode_component(n)
    );
    let mut r = Response::html(body);
    if csp {
        r.header("Content-Security-Policy", "script-src 'none'");
    }
    r
}

fn hop(req: &Request) -> Response {
    let code = req.param("code").and_then(|c| c.parse::<u16>().ok());
    let Some(code) = code.filter(|c| (300..=399).contains(c)) else {
        return Response::text(400, "hop needs code=300..399\n");
    };
    let Some(to) = req.param("to").filter(|t| !t.is_empty()) else {
        return Response::text(400, "hop needs to=<url>\n");
    };
    if to.chars().any(|c| c.is_control()) {
        return Response::text(400, "hop's to has control characters\n");
    }
    let mut r = Response::text(code, format!("hop {code} to {to}\n"));
    r.header("Location", to);
    r
}

fn framed(req: &Request) -> Response {
    let Some(src) = req.param("src").filter(|s| !s.is_empty()) else {
        return Response::text(400, "framed needs src=<url>\n");
    };
    Response::html(format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>framed</title></head>\
         <body><iframe src=\"{}\" width=\"600\" height=\"400\"></iframe></body></html>",
        html(src)
    ))
}

fn auth(req: &Request) -> Response {
    let ok = req.header("authorization").is_some_and(|v| {
        let mut parts = v.splitn(2, ' ');
        let scheme = parts.next().unwrap_or("");
        let token = parts.next().unwrap_or("").trim();
        scheme.eq_ignore_ascii_case("basic") && base64_decode(token).as_deref() == Some(b"u:p")
    });
    if ok {
        return Response::text(200, "authed");
    }
    let mut r = Response::text(401, "auth needed\n");
    r.header("WWW-Authenticate", "Basic realm=\"stand-in\"");
    r
}

fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let s = s.trim_end_matches('=');
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for b in s.bytes() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

fn is_cookie_name(s: &str) -> bool {
    !s.is_empty() && s.len() <= 256 && s.bytes().all(is_tchar)
}

fn is_cookie_value(s: &str) -> bool {
    s.len() <= 4096
        && s.bytes()
            .all(|b| b.is_ascii_graphic() && !matches!(b, b'"' | b',' | b';' | b'\\'))
}

fn plant(req: &Request) -> Response {
    let Some(n) = req
        .param("tag")
        .or_else(|| req.param("n"))
        .filter(|n| !n.is_empty())
    else {
        return Response::text(400, "plant needs n=<tag> (or tag=<tag>)\n");
    };
    let name = req
        .param("name")
        .map_or_else(|| canary_cookie(n), str::to_string);
    let value = req.param("value").unwrap_or(n).to_string();
    if !is_cookie_name(&name) {
        return Response::text(400, "plant's cookie name is not a cookie token\n");
    }
    if !is_cookie_value(&value) {
        return Response::text(
            400,
            "plant's cookie value has characters a cookie cannot hold\n",
        );
    }
    let h = html(n);
    let body = format!(
        "<!doctype html><html data-canary=\"{hv}\"><head><meta charset=\"utf-8\">\
         <title>plant {h}</title></head><body data-canary=\"{hv}\"><p>plant {h}</p><script>\
         (function(){{var name={name},value={value},n={n};\
         function done(ok){{document.title=(ok?{planted}:{failed})+\" \"+n;\
         document.documentElement.setAttribute(\"data-planted\",ok?\"1\":\"0\")}}\
         try{{localStorage.setItem(name,value)}}catch(e){{return done(false)}}\
         try{{var open=indexedDB.open({db},1);\
         open.onupgradeneeded=function(){{var db=open.result;\
         if(!db.objectStoreNames.contains({store}))db.createObjectStore({store})}};\
         open.onerror=function(){{done(false)}};\
         open.onsuccess=function(){{var db=open.result;\
         try{{var tx=db.transaction({store},\"readwrite\");\
         tx.objectStore({store}).put(value,name);\
         tx.oncomplete=function(){{db.close();done(true)}};\
         tx.onerror=function(){{db.close();done(false)}}}}catch(e){{done(false)}}}}}}\
         catch(e){{done(false)}}}})();</script></body></html>",
        hv = html(&value),
        name = js_string(&name),
        value = js_string(&value),
        n = js_string(n),
        planted = js_string(PLANTED_TITLE_PREFIX),
        failed = js_string(PLANT_FAILED_TITLE_PREFIX),
        db = js_string(CANARY_DB),
        store = js_string(CANARY_STORE),
    );
    let mut r = Response::html(body);
    r.header(
        "Set-Cookie",
        &format!("{name}={value}; Path=/; SameSite=Lax"),
    );
    r
}

fn log_route(req: &Request, shared: &Shared) -> Response {
    let n = req.param("n").unwrap_or("");
    let entries: Vec<LogEntry> = shared
        .lock_log()
        .entries
        .iter()
        .filter(|e| e.url.contains(n) && path_of(&e.url) != "/log")
        .cloned()
        .collect();
    let beacons: Vec<Value> = entries
        .iter()
        .filter(|e| path_of(&e.url) == "/beacon")
        .map(|e| {
            let query = e.url.split_once('?').map(|(_, q)| parse_query(q));
            let get = |k: &str| {
                query
                    .as_ref()
                    .and_then(|q| q.iter().find(|(key, _)| key == k))
                    .map(|(_, v)| v.clone())
            };
            json!({
                "url": e.url,
                "tag": get("tag"),
                "origin": get("origin"),
                "href": get("href"),
                "method": e.method,
                "time": e.time,
            })
        })
        .collect();
    let body = json!({ "hits": entries, "beacons": beacons });
    Response::new(
        200,
        "application/json",
        serde_json::to_vec(&body).unwrap_or_else(|_| b"{}".to_vec()),
    )
}

/// The path of a logged URL (`http://host/path?query` → `/path`).
fn path_of(url: &str) -> &str {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .unwrap_or(url);
    let start = rest.find('/').unwrap_or(rest.len());
    let path = &rest[start..];
    let end = path.find(['?', '#']).unwrap_or(path.len());
    &path[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_queries() {
        assert_eq!(
            parse_query("a=1&to=http%3A%2F%2Fx%2Fy%3Fn%3D2&b=x+y&c&d=%zz"),
            vec![
                ("a".into(), "1".into()),
                ("to".into(), "http://x/y?n=2".into()),
                ("b".into(), "x y".into()),
                ("c".into(), String::new()),
                ("d".into(), "%zz".into()),
            ]
        );
        assert_eq!(percent_decode("%4"), "%4");
        assert_eq!(percent_decode("%41"), "A");
        assert_eq!(percent_decode("a%"), "a%");
    }

    #[test]
    fn finds_the_end_of_a_head() {
        assert_eq!(find_head_end(b"GET / HTTP/1.1\r\n\r\nrest"), Some(18));
        assert_eq!(find_head_end(b"GET / HTTP/1.1\n\nrest"), Some(16));
        assert_eq!(find_head_end(b"GET / HTTP/1.1\r\nHost: x\r\n"), None);
    }

    #[test]
    fn escapes() {
        assert_eq!(
            js_string("a</script>\"'"),
            "\"a\\u003c/script\\u003e\\u0022\\u0027\""
        );
        assert_eq!(
            html("<a href=\"x\">'&"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;"
        );
        assert_eq!(encode_component("a b/é"), "a%20b%2F%C3%A9");
        assert_eq!(base64_decode("dTpw").as_deref(), Some(&b"u:p"[..]));
        assert_eq!(base64_decode("d?pw"), None);
        assert_eq!(path_of("http://h:1/beacon?x=/y"), "/beacon");
        assert_eq!(path_of("http://h:1"), "");
    }

    #[test]
    fn content_lengths() {
        assert_eq!(parse_length("5").ok(), Some(5));
        assert_eq!(parse_length("5, 5").ok(), Some(5));
        assert!(parse_length("5, 6").is_err());
        assert!(parse_length("-1").is_err());
        assert!(parse_length("99999999999999999999999").is_err());
    }
}
