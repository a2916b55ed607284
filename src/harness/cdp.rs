//! A CDP client over the browser's WebSocket, with flat sessions (feature `guard-runner`, not on
//! `wasm32-wasip1`).
//!
//! [`CdpClient`] implements the runner's [`Transport`]: [`send`](Transport::send) waits for the
//! answer to one command (its `result`, or the protocol error with its code and message), and
//! every event the browser sends lands in an append-only log that
//! [`wait_event`](Transport::wait_event) and [`events_since`](Transport::events_since) read.
//!
//! One reader thread owns the WebSocket's read side: it routes each answer by its `id` to the
//! caller waiting for it, appends events to the log, and answers pings and the close handshake.
//! A caller writes its own command frame on the shared socket (under a lock, one whole frame at
//! a time), so a command goes out at once, without waiting for a polling loop. When the
//! connection ends (the browser closes it, sends a malformed frame, or [`CdpClient::close`] is
//! called), every pending call and every later one fails with [`CallError::Transport`] saying
//! why. Dropping the client closes the socket and joins the thread.
//!
//! Bounded: incoming messages and frames are capped ([`CdpOptions::max_message_size`]), the
//! event log keeps at most [`CdpOptions::max_events`] events, and the list of anomalies
//! ([`CdpClient::errors`]: text that is not JSON, answers nobody waits for, …) at most
//! [`MAX_ERRORS`] entries. Nothing the browser sends makes the client panic.
//!
//! ```no_run
//! use serde_json::json;
//! use slicc_browsers::harness::cdp::{CdpClient, CdpOptions};
//! use slicc_browsers::harness::runner::Transport;
//!
//! let cdp = CdpClient::connect_endpoint("http://127.0.0.1:9333", CdpOptions::new())?;
//! let version = cdp.send("Browser.getVersion", json!({}), None)?;
//! println!("{}", version["product"]);
//! let target = cdp.send("Target.createTarget", json!({"url": "about:blank"}), None)?;
//! let session = cdp.attach(target["targetId"].as_str().unwrap_or_default())?;
//! let two = cdp.send("Runtime.evaluate", json!({"expression": "1 + 1"}), Some(&session))?;
//! assert_eq!(two["result"]["value"], 2);
//! # Ok::<(), slicc_browsers::harness::runner::CallError>(())
//! ```
//!
//! Size: about 730 lines before its tests, kept in one file on purpose (issue 18 item 5): the
//! client, its reader thread and its [`Transport`] implementation share the private `Shared`
//! state (pending calls, the event log, the close reason) whose locking they must agree on; the
//! WebSocket plumbing is already apart, in `crate::ws`.

use std::collections::HashMap;
use std::io;
use std::sync::mpsc::{self, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use tungstenite::protocol::WebSocket;
use tungstenite::Message;

use super::runner::{
    CallError, Closed, ConnectFault, Event, Transport, TransportError, VersionFault,
};
use crate::http::Request;
use crate::ws::{self, ConnectError, ReadHalf, Received, Writer};

/// The most anomalies [`CdpClient::errors`] keeps; later ones are counted in a last entry.
pub const MAX_ERRORS: usize = 100;

/// The largest `/json/version` answer [`websocket_url`] reads.
const VERSION_LIMIT: usize = 1 << 20;

/// How a [`CdpClient`] connects and how long it waits.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CdpOptions {
    /// How long [`Transport::send`] waits for an answer (default 30 s).
    pub call_timeout: Duration,
    /// How long the TCP connection and the WebSocket handshake may take (default 10 s).
    pub connect_timeout: Duration,
    /// The largest message (and frame) accepted from the browser, in bytes (default 64 MiB); a
    /// larger one ends the connection.
    pub max_message_size: usize,
    /// The most events the log keeps (default 1,000,000); later events are dropped and counted
    /// ([`CdpClient::dropped_events`]).
    pub max_events: usize,
}

impl Default for CdpOptions {
    fn default() -> Self {
        CdpOptions {
            call_timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(10),
            max_message_size: 64 << 20,
            max_events: 1_000_000,
        }
    }
}

impl CdpOptions {
    /// The defaults.
    pub fn new() -> Self {
        CdpOptions::default()
    }

    /// Sets [`CdpOptions::call_timeout`].
    pub fn call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = timeout;
        self
    }

    /// Sets [`CdpOptions::connect_timeout`].
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Sets [`CdpOptions::max_message_size`].
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// Sets [`CdpOptions::max_events`].
    pub fn max_events(mut self, events: usize) -> Self {
        self.max_events = events;
        self
    }
}

/// A CDP connection to a browser's WebSocket endpoint (`ws://…/devtools/browser/<id>`, or a
/// page's), with flat sessions. See the [module docs](self).
pub struct CdpClient {
    shared: Arc<Shared>,
    reader: Mutex<Option<JoinHandle<()>>>,
    options: CdpOptions,
    url: String,
    /// The browser's commands from its `/json/protocol`, read on first use (`None`: it could
    /// not be read).
    protocol: std::sync::OnceLock<Option<std::collections::BTreeSet<String>>>,
}

impl std::fmt::Debug for CdpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CdpClient")
            .field("url", &self.url)
            .field("closed", &self.closed_reason())
            .finish_non_exhaustive()
    }
}

/// What the callers and the reader thread share.
struct Shared {
    /// The socket's write side: callers write whole (masked) frames on it; `close` shuts the
    /// socket down.
    out: Writer,
    state: Mutex<State>,
    /// Signalled when an event is appended or the connection ends.
    changed: Condvar,
    max_events: usize,
}

#[derive(Default)]
struct State {
    next_id: u64,
    pending: HashMap<u64, SyncSender<Result<Value, CallError>>>,
    /// Why the connection ended, once it has.
    closed: Option<Closed>,
    events: Vec<Event>,
    dropped_events: usize,
    errors: Vec<String>,
    more_errors: usize,
}

use crate::sys::lock;

impl Shared {
    /// Ends the connection (first reason wins): every pending call fails with the reason.
    fn fail(&self, why: Closed) {
        let pending = {
            let mut state = lock(&self.state);
            if state.closed.is_none() {
                state.closed = Some(why.clone());
            }
            std::mem::take(&mut state.pending)
        };
        let why = lock(&self.state).closed.clone().unwrap_or(why);
        for (_, tx) in pending {
            let _ = tx.try_send(Err(CallError::Transport(TransportError::Closed(
                why.clone(),
            ))));
        }
        self.changed.notify_all();
    }

    /// Records an anomaly (bounded).
    fn log_error(&self, what: String) {
        let mut state = lock(&self.state);
        if state.errors.len() < MAX_ERRORS {
            state.errors.push(what);
        } else {
            state.more_errors += 1;
        }
    }

    /// Writes bytes that form whole frames, under the write lock; a failed write ends the
    /// connection (a partial frame would corrupt the stream).
    fn write_text(&self, text: String) -> Result<(), Closed> {
        self.out
            .send(Message::Text(text.into()))
            .map_err(|e| self.write_failed(&e))
    }

    /// Ends the connection after a failed write (a partial frame would corrupt the stream).
    fn write_failed(&self, e: &io::Error) -> Closed {
        let why = Closed::Write(e.to_string());
        self.fail(why.clone());
        self.out.shutdown();
        why
    }

    /// Routes one text message: an answer to its caller, an event to the log.
    fn dispatch(&self, text: &str) {
        let mut message = match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(m)) => m,
            Ok(_) => {
                self.log_error(format!(
                    "a message that is not a JSON object: {}",
                    clip(text)
                ));
                return;
            }
            Err(e) => {
                self.log_error(format!("a message that is not JSON ({e}): {}", clip(text)));
                return;
            }
        };
        if let Some(id) = message.get("id") {
            let Some(id) = id.as_u64() else {
                self.log_error(format!("an answer with a bad id: {}", clip(text)));
                return;
            };
            let answer = match message.remove("error") {
                Some(error) => Err(protocol_error(&error)),
                None => Ok(message
                    .remove("result")
                    .unwrap_or_else(|| Value::Object(Map::new()))),
            };
            let waiting = lock(&self.state).pending.remove(&id);
            match waiting {
                Some(tx) => {
                    let _ = tx.try_send(answer);
                }
                None => self.log_error(format!(
                    "an answer to id {id}, which nobody waits for (timed out or never sent)"
                )),
            }
            return;
        }
        let Some(Value::String(method)) = message.remove("method") else {
            self.log_error(format!(
                "a message that is neither an answer nor an event: {}",
                clip(text)
            ));
            return;
        };
        let event = Event {
            method,
            params: message
                .remove("params")
                .unwrap_or_else(|| Value::Object(Map::new())),
            session_id: match message.remove("sessionId") {
                Some(Value::String(s)) => Some(s),
                _ => None,
            },
        };
        let mut state = lock(&self.state);
        if state.events.len() < self.max_events {
            state.events.push(event);
            drop(state);
            self.changed.notify_all();
        } else {
            state.dropped_events += 1;
            if state.dropped_events == 1 {
                drop(state);
                self.log_error(format!(
                    "the event log is full ({} events): later events are dropped",
                    self.max_events
                ));
            }
        }
    }
}

/// A CDP `error` object as a [`CallError::Protocol`]: its code, and its message with its `data`
/// (if any) after a newline.
fn protocol_error(error: &Value) -> CallError {
    let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
    let mut message = match error.get("message") {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    match error.get("data") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => {
            message.push('\n');
            message.push_str(s);
        }
        Some(other) => {
            message.push('\n');
            message.push_str(&other.to_string());
        }
    }
    CallError::Protocol { code, message }
}

/// The first 200 characters of `text`, for an error message.
fn clip(text: &str) -> String {
    match text.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// The browser's WebSocket URL: `webSocketDebuggerUrl` from `<endpoint>/json/version`, where
/// `endpoint` is `http://host:port` (a trailing path is ignored).
pub fn websocket_url(endpoint: &str, timeout: Duration) -> Result<String, CallError> {
    let fail = |fault| TransportError::Version {
        endpoint: endpoint.to_string(),
        fault,
    };
    let (host, port) = ws::split_url(endpoint, "http", 80)
        .ok_or_else(|| TransportError::NotHttpEndpoint(endpoint.to_string()))?;
    let request = Request {
        host,
        port,
        path: "/json/version".into(),
        limit: VERSION_LIMIT,
    };
    let version = crate::http::get_json(&request, timeout)
        .map_err(|e| fail(VersionFault::Get(e.to_string())))?;
    match version.get("webSocketDebuggerUrl") {
        Some(Value::String(url)) => Ok(url.clone()),
        _ => Err(fail(VersionFault::NoWebSocketUrl).into()),
    }
}

/// The largest `/json/protocol` read (Chromium 156's is about 1 MiB).
const PROTOCOL_LIMIT: usize = 16 << 20;

/// Every command (`Domain.method`) in the protocol the browser at `ws_url` (its host and port)
/// serves at `/json/protocol`; `None` when it cannot be read or is not a protocol.
fn protocol_commands(
    ws_url: &str,
    timeout: Duration,
) -> Option<std::collections::BTreeSet<String>> {
    let (host, port) = ws::split_url(ws_url, "ws", 80)?;
    let request = Request {
        host,
        port,
        path: "/json/protocol".into(),
        limit: PROTOCOL_LIMIT,
    };
    let protocol = crate::http::get_json(&request, timeout).ok()?;
    commands_of(&protocol)
}

/// The commands (`Domain.method`) a protocol description lists; `None` when it lists no domain.
fn commands_of(protocol: &Value) -> Option<std::collections::BTreeSet<String>> {
    let domains = protocol.get("domains")?.as_array()?;
    let mut commands = std::collections::BTreeSet::new();
    for d in domains {
        let Some(domain) = d.get("domain").and_then(Value::as_str) else {
            continue;
        };
        for c in d
            .get("commands")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(name) = c.get("name").and_then(Value::as_str) {
                commands.insert(format!("{domain}.{name}"));
            }
        }
    }
    (!domains.is_empty()).then_some(commands)
}

impl CdpClient {
    /// Connects to a WebSocket endpoint such as `ws://127.0.0.1:9333/devtools/browser/<id>`
    /// (plain `ws://` only: CDP listens on loopback) and starts the reader thread.
    pub fn connect(ws_url: &str, options: CdpOptions) -> Result<CdpClient, CallError> {
        let fail = |fault| {
            CallError::Transport(TransportError::Connect {
                url: ws_url.to_string(),
                fault,
            })
        };
        if ws_url
            .get(..6)
            .is_some_and(|s| s.eq_ignore_ascii_case("wss://"))
        {
            return Err(fail(ConnectFault::Wss));
        }
        let connect_timeout = options.connect_timeout.max(Duration::from_millis(1));
        let (ws, stream) = ws::connect(
            ws_url,
            connect_timeout,
            Some(connect_timeout),
            options.max_message_size,
        )
        .map_err(|e| match e {
            ConnectError::NotWs => fail(ConnectFault::NotWs),
            ConnectError::Unreachable(host, port) => fail(ConnectFault::Unreachable { host, port }),
            ConnectError::Setup(e) => fail(ConnectFault::Socket(e.to_string())),
            ConnectError::Handshake(e) => fail(ConnectFault::Handshake(e.to_string())),
        })?;
        // From here the reader blocks until data comes or the socket is shut down; a caller's
        // write may block at most one call timeout.
        stream
            .set_write_timeout(Some(options.call_timeout.max(Duration::from_millis(1))))
            .map_err(|e| fail(ConnectFault::Socket(e.to_string())))?;
        let shared = Arc::new(Shared {
            out: Writer::new(stream, true),
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
            max_events: options.max_events,
        });
        let for_reader = Arc::clone(&shared);
        let reader = std::thread::Builder::new()
            .name("cdp-reader".into())
            .spawn(move || read_loop(ws, &for_reader))
            .map_err(|e| fail(ConnectFault::Thread(e.to_string())))?;
        Ok(CdpClient {
            shared,
            reader: Mutex::new(Some(reader)),
            options,
            url: ws_url.to_string(),
            protocol: std::sync::OnceLock::new(),
        })
    }

    /// Connects to `url`: a `ws://` URL as [`CdpClient::connect`] does, or an `http://host:port`
    /// DevTools endpoint through its [`websocket_url`].
    pub fn connect_endpoint(url: &str, options: CdpOptions) -> Result<CdpClient, CallError> {
        if url
            .get(..7)
            .is_some_and(|s| s.eq_ignore_ascii_case("http://"))
        {
            let ws = websocket_url(url, options.connect_timeout)?;
            CdpClient::connect(&ws, options)
        } else {
            CdpClient::connect(url, options)
        }
    }

    /// The WebSocket URL this client connected to.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The options this client was made with.
    pub fn options(&self) -> &CdpOptions {
        &self.options
    }

    /// [`Transport::send`] with its own timeout instead of [`CdpOptions::call_timeout`].
    pub fn send_timeout(
        &self,
        method: &str,
        params: Value,
        session: Option<&str>,
        timeout: Duration,
    ) -> Result<Value, CallError> {
        let (tx, rx) = mpsc::sync_channel(1);
        let id = {
            let mut state = lock(&self.shared.state);
            if let Some(why) = &state.closed {
                return Err(TransportError::Closed(why.clone()).into());
            }
            state.next_id += 1;
            let id = state.next_id;
            state.pending.insert(id, tx);
            id
        };
        let mut command = Map::new();
        command.insert("id".into(), Value::from(id));
        command.insert("method".into(), Value::String(method.to_string()));
        if !params.is_null() {
            command.insert("params".into(), params);
        }
        if let Some(session) = session {
            command.insert("sessionId".into(), Value::String(session.to_string()));
        }
        let payload = match serde_json::to_string(&Value::Object(command)) {
            Ok(p) => p,
            Err(e) => {
                lock(&self.shared.state).pending.remove(&id);
                return Err(TransportError::Encode {
                    method: method.to_string(),
                    message: e.to_string(),
                }
                .into());
            }
        };
        if let Err(why) = self.shared.write_text(payload) {
            lock(&self.shared.state).pending.remove(&id);
            return Err(TransportError::Closed(why).into());
        }
        match rx.recv_timeout(timeout) {
            Ok(answer) => answer,
            Err(RecvTimeoutError::Timeout) => {
                let removed = lock(&self.shared.state).pending.remove(&id);
                match removed {
                    Some(_) => Err(CallError::Timeout),
                    // The answer (or the end of the connection) came just now.
                    None => rx.try_recv().unwrap_or_else(|_| Err(CallError::Timeout)),
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                let why = lock(&self.shared.state).closed.clone();
                Err(TransportError::Closed(why.unwrap_or(Closed::Ended)).into())
            }
        }
    }

    /// Attaches to a target with a flat session (`Target.attachToTarget` with `flatten`) and
    /// returns the session id.
    pub fn attach(&self, target_id: &str) -> Result<String, CallError> {
        let result = self.send(
            "Target.attachToTarget",
            serde_json::json!({"targetId": target_id, "flatten": true}),
            None,
        )?;
        match result.get("sessionId") {
            Some(Value::String(s)) => Ok(s.clone()),
            _ => Err(TransportError::NoSessionId(clip(&result.to_string())).into()),
        }
    }

    /// Whether the connection has ended.
    pub fn is_closed(&self) -> bool {
        lock(&self.shared.state).closed.is_some()
    }

    /// Why the connection ended, once it has, as text ([`CdpClient::closed`] as a type).
    pub fn closed_reason(&self) -> Option<String> {
        self.closed().map(|why| why.to_string())
    }

    /// Why the connection ended, once it has.
    pub fn closed(&self) -> Option<Closed> {
        lock(&self.shared.state).closed.clone()
    }

    /// Anomalies seen so far, oldest first, at most [`MAX_ERRORS`] (then a last entry counts
    /// the rest): messages that are not JSON, answers nobody waits for, a malformed frame or an
    /// oversized message (these two end the connection), a full event log.
    pub fn errors(&self) -> Vec<String> {
        let state = lock(&self.shared.state);
        let mut out = state.errors.clone();
        if state.more_errors > 0 {
            out.push(format!("… and {} more", state.more_errors));
        }
        out
    }

    /// How many events were dropped because the log was full ([`CdpOptions::max_events`]).
    pub fn dropped_events(&self) -> usize {
        lock(&self.shared.state).dropped_events
    }

    /// Closes the connection (a close frame, then the socket) and joins the reader thread.
    /// Pending and later calls fail with [`CallError::Transport`]. Closing twice is harmless.
    pub fn close(&self) {
        let first = !self.is_closed();
        self.shared.fail(Closed::ByClient);
        if first {
            // Best effort, and never wait for a caller stuck in a write.
            self.shared.out.close(None, false);
        } else {
            self.shared.out.shutdown();
        }
        let handle = lock(&self.reader).take();
        if let Some(handle) = handle {
            if handle.thread().id() != std::thread::current().id() {
                let _ = handle.join();
            }
        }
    }
}

impl Drop for CdpClient {
    fn drop(&mut self) {
        self.close();
    }
}

impl Transport for CdpClient {
    fn send(&self, method: &str, params: Value, session: Option<&str>) -> Result<Value, CallError> {
        self.send_timeout(method, params, session, self.options.call_timeout)
    }

    fn has_method(&self, method: &str) -> Option<bool> {
        self.protocol
            .get_or_init(|| protocol_commands(&self.url, self.options.connect_timeout))
            .as_ref()
            .map(|commands| commands.contains(method))
    }

    fn events_since(&self, from: usize) -> Vec<Event> {
        let state = lock(&self.shared.state);
        state.events.get(from..).unwrap_or_default().to_vec()
    }

    fn event_count(&self) -> usize {
        lock(&self.shared.state).events.len()
    }

    /// Waits for a matching event. `predicate` runs with the log locked: it must not call back
    /// into this client. Returns `None` at once when no match is logged and the connection has
    /// ended (no event can come any more).
    fn wait_event(
        &self,
        from: usize,
        predicate: &dyn Fn(&Event) -> bool,
        timeout: Duration,
    ) -> Option<(usize, Event)> {
        let deadline = Instant::now().checked_add(timeout);
        let mut next = from;
        let mut state = lock(&self.shared.state);
        loop {
            if let Some(found) = state
                .events
                .iter()
                .enumerate()
                .skip(next)
                .find(|(_, e)| predicate(e))
            {
                return Some((found.0, found.1.clone()));
            }
            next = next.max(state.events.len());
            if state.closed.is_some() {
                return None;
            }
            let now = Instant::now();
            let left = match deadline {
                Some(d) if d <= now => return None,
                Some(d) => d - now,
                None => Duration::from_secs(3600),
            };
            state = self
                .shared
                .changed
                .wait_timeout(state, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

/// The reader thread: reads messages until the connection ends, then fails what is pending.
fn read_loop(mut ws: WebSocket<ReadHalf>, shared: &Shared) {
    let why = loop {
        let (read, replied) = ws::read(&mut ws, &shared.out);
        if let Err(e) = replied {
            // Pongs and the close reply; a failure here ends the connection like any other.
            shared.write_failed(&e);
        }
        match read {
            Received::Message(Message::Text(text)) => shared.dispatch(text.as_str()),
            Received::Message(Message::Binary(bytes)) => match std::str::from_utf8(&bytes) {
                Ok(text) => shared.dispatch(text),
                Err(_) => shared.log_error("a binary message that is not UTF-8".into()),
            },
            Received::Message(Message::Close(frame)) => {
                shared.fail(match frame {
                    Some(f) => Closed::Frame {
                        code: Some(u16::from(f.code)),
                        reason: f.reason.as_str().to_string(),
                    },
                    None => Closed::Frame {
                        code: None,
                        reason: String::new(),
                    },
                });
            }
            Received::Message(_) | Received::Idle => {}
            Received::Failed(
                tungstenite::Error::ConnectionClosed | tungstenite::Error::AlreadyClosed,
            ) => {
                break Closed::Connection;
            }
            Received::Failed(tungstenite::Error::Io(e)) => {
                break Closed::Read(e.to_string());
            }
            Received::Failed(tungstenite::Error::Protocol(
                tungstenite::error::ProtocolError::ResetWithoutClosingHandshake,
            )) => {
                break Closed::Dropped;
            }
            Received::Failed(
                e @ (tungstenite::Error::Protocol(_)
                | tungstenite::Error::Capacity(_)
                | tungstenite::Error::Utf8(_)
                | tungstenite::Error::AttackAttempt),
            ) => {
                let why = Closed::Malformed(e.to_string());
                shared.log_error(why.to_string());
                break why;
            }
            Received::Failed(e) => break Closed::WebSocket(e.to_string()),
        }
    };
    shared.fail(why);
    shared.out.shutdown();
}

/// One leg's clients for the runner: `guarded` carries the leg, `observer` is the unguarded
/// observer; both are closed when the runner releases the leg.
pub fn leg_clients(guarded: CdpClient, observer: CdpClient) -> super::runner::drive::Clients {
    let guarded = Arc::new(guarded);
    let observer = Arc::new(observer);
    let (g, o) = (Arc::clone(&guarded), Arc::clone(&observer));
    super::runner::drive::Clients {
        guarded,
        observer: Some(observer),
        transport_variant: false,
        close: Some(Box::new(move || {
            g.close();
            o.close();
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocol_errors_keep_code_message_and_data() {
        let e = protocol_error(&serde_json::json!({
            "code": -32602, "message": "Invalid parameters", "data": "Failed to deserialize params.url"
        }));
        assert_eq!(
            e,
            CallError::Protocol {
                code: -32602,
                message: "Invalid parameters\nFailed to deserialize params.url".into()
            }
        );
        let e =
            protocol_error(&serde_json::json!({"code": -32601, "message": "'X.y' wasn't found"}));
        assert_eq!(
            e,
            CallError::Protocol {
                code: -32601,
                message: "'X.y' wasn't found".into()
            }
        );
    }

    /// Connection errors are typed, and read as the former text.
    #[test]
    fn transport_errors_are_typed() {
        let options = CdpOptions::new().connect_timeout(Duration::from_secs(2));
        let wss = CdpClient::connect("wss://127.0.0.1:1/x", options.clone()).err();
        assert_eq!(
            wss,
            Some(CallError::Transport(TransportError::Connect {
                url: "wss://127.0.0.1:1/x".into(),
                fault: ConnectFault::Wss,
            }))
        );
        assert_eq!(
            wss.map(|e| e.to_string()).unwrap_or_default(),
            "transport: wss://127.0.0.1:1/x: wss:// is not supported (CDP endpoints are plain \
             ws:// on loopback)"
        );
        let not_ws = CdpClient::connect("http://127.0.0.1:1/x", options.clone()).err();
        assert_eq!(
            not_ws,
            Some(CallError::Transport(TransportError::Connect {
                url: "http://127.0.0.1:1/x".into(),
                fault: ConnectFault::NotWs,
            }))
        );
        let endpoint = websocket_url("ws://127.0.0.1:1", Duration::from_secs(2)).err();
        assert_eq!(
            endpoint,
            Some(CallError::Transport(TransportError::NotHttpEndpoint(
                "ws://127.0.0.1:1".into()
            )))
        );
        assert_eq!(
            endpoint.map(|e| e.to_string()).unwrap_or_default(),
            "transport: ws://127.0.0.1:1: not an http://host:port URL"
        );
        let texts = [
            (Closed::ByClient, "closed by the client"),
            (
                Closed::Frame {
                    code: Some(1001),
                    reason: "going".into(),
                },
                "the browser closed the WebSocket (1001: going)",
            ),
            (
                Closed::Frame {
                    code: Some(1000),
                    reason: String::new(),
                },
                "the browser closed the WebSocket (1000)",
            ),
            (
                Closed::Frame {
                    code: None,
                    reason: String::new(),
                },
                "the browser closed the WebSocket",
            ),
            (Closed::Connection, "the browser closed the connection"),
            (
                Closed::Dropped,
                "the browser dropped the connection (no closing handshake)",
            ),
            (
                Closed::Malformed("x".into()),
                "malformed or oversized data from the browser: x",
            ),
            (
                Closed::Write("x".into()),
                "cannot write to the WebSocket: x",
            ),
            (Closed::Ended, "the connection ended"),
        ];
        for (why, text) in texts {
            assert_eq!(why.to_string(), text);
        }
        assert_eq!(
            TransportError::Version {
                endpoint: "http://a:1".into(),
                fault: VersionFault::NoWebSocketUrl,
            }
            .to_string(),
            "http://a:1/json/version: no webSocketDebuggerUrl"
        );
    }

    #[test]
    fn clip_cuts_on_characters() {
        let long = "é".repeat(300);
        let c = clip(&long);
        assert_eq!(c.chars().count(), 201);
        assert_eq!(clip("short"), "short");
    }

    #[test]
    fn a_protocol_lists_its_commands() {
        let protocol = serde_json::json!({"domains": [
            {"domain": "Page", "commands": [{"name": "navigate"}, {"name": "reload"}]},
            {"domain": "Network", "events": []},
            {"commands": [{"name": "orphan"}]},
        ]});
        let commands = commands_of(&protocol).expect("a protocol");
        assert_eq!(
            commands.into_iter().collect::<Vec<_>>(),
            vec!["Page.navigate".to_string(), "Page.reload".to_string()]
        );
        assert_eq!(commands_of(&serde_json::json!({"domains": []})), None);
        assert_eq!(commands_of(&serde_json::json!([1, 2])), None);
    }
}
