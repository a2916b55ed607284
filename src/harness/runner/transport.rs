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
    /// The connection is gone or could not carry the call; the text says why.
    Transport(String),
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

impl std::error::Error for CallError {}

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
}
