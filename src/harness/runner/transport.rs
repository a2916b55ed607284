//! What the runner drives: a CDP transport (the guard, or an unguarded observer).
//!
//! The trait is I/O-free so that the judge and the driver can be tested on fakes; the real
//! WebSocket client is [`crate::harness::cdp::CdpClient`] (not on `wasm32-wasip1`).

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One CDP event a transport delivered: `{method, params, sessionId}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// The event's method, such as `Page.frameNavigated`.
    pub method: String,
    /// The event's parameters (`{}` when it had none).
    #[serde(default)]
    pub params: Value,
    /// The flat session it came on; `None` for the browser session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

/// Why a call gave no result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallError {
    /// The other end answered with a CDP protocol error.
    Protocol {
        /// The error's `code`.
        code: i64,
        /// The error's `message` (with its `data`, when there was one, after a newline).
        message: String,
    },
    /// No answer within the transport's timeout.
    Timeout,
    /// The connection is gone, could not be made, or could not carry the call.
    Transport(TransportError),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Protocol { code, message } => write!(f, "CDP error {code}: {message}"),
            CallError::Timeout => f.write_str("no answer within the timeout"),
            CallError::Transport(why) => write!(f, "transport: {why}"),
        }
    }
}

impl std::error::Error for CallError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CallError::Transport(e) => Some(e),
            _ => None,
        }
    }
}

impl From<TransportError> for CallError {
    fn from(e: TransportError) -> CallError {
        CallError::Transport(e)
    }
}

/// Why a CDP connection (such as [`crate::harness::cdp::CdpClient`]'s) could not carry a call.
/// The texts of other errors it holds (a socket's, a WebSocket library's) are kept as text, so
/// that a call's error can be cloned and compared.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TransportError {
    /// The connection has ended: every pending and later call fails with why.
    Closed(Closed),
    /// The connection to the WebSocket `url` could not be made.
    Connect {
        /// The WebSocket URL.
        url: String,
        /// Why.
        fault: ConnectFault,
    },
    /// An endpoint given to find the WebSocket URL is not an `http://host:port` URL.
    NotHttpEndpoint(String),
    /// The endpoint's `/json/version` named no WebSocket URL.
    Version {
        /// The endpoint (`http://host:port`).
        endpoint: String,
        /// Why.
        fault: VersionFault,
    },
    /// The command could not be written as JSON.
    Encode {
        /// The command's method.
        method: String,
        /// The encoder's message.
        message: String,
    },
    /// `Target.attachToTarget` answered without a `sessionId`: the answer (clipped).
    NoSessionId(String),
}

impl std::fmt::Display for TransportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TransportError::Closed(why) => why.fmt(f),
            TransportError::Connect { url, fault } => write!(f, "{url}: {fault}"),
            TransportError::NotHttpEndpoint(endpoint) => {
                write!(f, "{endpoint}: not an http://host:port URL")
            }
            TransportError::Version { endpoint, fault } => {
                write!(f, "{endpoint}/json/version: {fault}")
            }
            TransportError::Encode { method, message } => {
                write!(f, "{method}: cannot encode the command: {message}")
            }
            TransportError::NoSessionId(answer) => write!(
                f,
                "Target.attachToTarget answered without a sessionId: {answer}"
            ),
        }
    }
}

impl std::error::Error for TransportError {}

/// Why a CDP connection ended (the first reason wins).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Closed {
    /// The client closed it ([`crate::harness::cdp::CdpClient::close`]).
    ByClient,
    /// The browser sent a close frame: its code and reason, when it gave them.
    Frame {
        /// The close code.
        code: Option<u16>,
        /// The reason (empty: none).
        reason: String,
    },
    /// The browser closed the connection.
    Connection,
    /// The browser dropped the connection without a closing handshake.
    Dropped,
    /// Reading from the socket failed: the system's message.
    Read(String),
    /// Writing to the socket failed: the system's message.
    Write(String),
    /// The browser sent a malformed frame or a message over the size limit: the WebSocket
    /// library's message.
    Malformed(String),
    /// The WebSocket failed otherwise: the WebSocket library's message.
    WebSocket(String),
    /// The reader went away without saying why.
    Ended,
}

impl std::fmt::Display for Closed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Closed::ByClient => f.write_str("closed by the client"),
            Closed::Frame {
                code: Some(code),
                reason,
            } if !reason.is_empty() => {
                write!(f, "the browser closed the WebSocket ({code}: {reason})")
            }
            Closed::Frame {
                code: Some(code), ..
            } => write!(f, "the browser closed the WebSocket ({code})"),
            Closed::Frame { code: None, .. } => f.write_str("the browser closed the WebSocket"),
            Closed::Connection => f.write_str("the browser closed the connection"),
            Closed::Dropped => {
                f.write_str("the browser dropped the connection (no closing handshake)")
            }
            Closed::Read(e) => write!(f, "the connection failed: {e}"),
            Closed::Write(e) => write!(f, "cannot write to the WebSocket: {e}"),
            Closed::Malformed(e) => write!(f, "malformed or oversized data from the browser: {e}"),
            Closed::WebSocket(e) => write!(f, "the WebSocket failed: {e}"),
            Closed::Ended => f.write_str("the connection ended"),
        }
    }
}

/// Why a connection to a CDP WebSocket could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConnectFault {
    /// A `wss://` URL: CDP endpoints are plain `ws://` on loopback.
    Wss,
    /// Not a `ws://host:port` URL.
    NotWs,
    /// Nothing took the TCP connection.
    Unreachable {
        /// The host.
        host: String,
        /// The port.
        port: u16,
    },
    /// The socket could not be set up: the system's message.
    Socket(String),
    /// The WebSocket handshake failed: the WebSocket library's message.
    Handshake(String),
    /// The reader thread could not be started: the system's message.
    Thread(String),
}

impl std::fmt::Display for ConnectFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConnectFault::Wss => {
                f.write_str("wss:// is not supported (CDP endpoints are plain ws:// on loopback)")
            }
            ConnectFault::NotWs => f.write_str("not a ws://host:port URL"),
            ConnectFault::Unreachable { host, port } => {
                write!(f, "cannot connect to {host}:{port}")
            }
            ConnectFault::Socket(e) => write!(f, "cannot set up the socket: {e}"),
            ConnectFault::Handshake(e) => write!(f, "WebSocket handshake failed: {e}"),
            ConnectFault::Thread(e) => write!(f, "cannot start the reader thread: {e}"),
        }
    }
}

/// Why an endpoint's `/json/version` gave no WebSocket URL.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum VersionFault {
    /// The document could not be fetched or read as JSON: the HTTP client's message.
    Get(String),
    /// It has no string `webSocketDebuggerUrl`.
    NoWebSocketUrl,
}

impl std::fmt::Display for VersionFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VersionFault::Get(e) => f.write_str(e),
            VersionFault::NoWebSocketUrl => f.write_str("no webSocketDebuggerUrl"),
        }
    }
}

/// A CDP connection with flat sessions, as the spec's runner takes it: `send`, `waitEvent` and an
/// append-only event log.
pub trait Transport: Send + Sync {
    /// Sends `method` with `params` on `session` (`None`: the browser session) and waits for its
    /// answer.
    fn send(&self, method: &str, params: Value, session: Option<&str>) -> Result<Value, CallError>;

    /// Every event delivered so far, starting at index `from` of the append-only log.
    fn events_since(&self, from: usize) -> Vec<Event>;

    /// How many events the log holds now (the index the next event will get).
    fn event_count(&self) -> usize;

    /// Waits until an event at index `from` or later matches `predicate`, for at most `timeout`;
    /// returns its index and the event.
    fn wait_event(
        &self,
        from: usize,
        predicate: &dyn Fn(&Event) -> bool,
        timeout: Duration,
    ) -> Option<(usize, Event)>;

    /// Whether the browser behind this connection has `method` (`Domain.method`) in its
    /// protocol, or `None` when the transport cannot tell (the default). The runner asks its
    /// unguarded observer, so that a browser's "method not found" (an older Chromium: a skip,
    /// `not-supported:<method>`) is told from a guard's answering so for a method the browser
    /// has (a failure). [`CdpClient`](crate::harness::cdp::CdpClient) reads the browser's
    /// `/json/protocol` once.
    fn has_method(&self, method: &str) -> Option<bool> {
        let _ = method;
        None
    }
}
