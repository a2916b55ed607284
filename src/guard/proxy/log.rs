//! The proxy's JSON-lines log ([`ProxyLog`]).

use crate::sys::lock;
use serde_json::Value;
use std::io::Write;
use std::sync::{Arc, Mutex};

/// A sink for the proxy's JSON-lines log ([`ProxyOptions::log`](super::ProxyOptions::log)). Each line is one object:
/// `ms` (since the proxy started), `event` (`open`, `close`, `over-limit`, `refused`,
/// `invalid`, `detached`), `conn` (the connection's number), and as they apply `from`
/// (`client` or `browser`), `method`, `id`, `sessionId`, `why`, `path`. A `close` line says
/// `why` the connection ended: an HTTP one how it was answered (`answered 200`, `answered
/// 408: …`), a WebSocket one how it ended: the client or the browser closed it, a
/// message too big or a WebSocket protocol error, a side that does not read (`the client does
/// not read: N bytes waiting to be written (limit M)`), a write that failed or timed out. A command the policy
/// held (it came before the policy was ready, or waits for its checks) and refused later is
/// logged when it is refused, with `held: true` and the refusal's text as `why`. What a
/// client sent is quoted short: a string (a method, a session id) cut to 200 characters
/// followed by `… (N bytes)`, a non-string `method` or `sessionId` given as its kind and size
/// (`(an object of N bytes)`), so a line stays under about 1 KiB whatever the message.
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
    pub(super) fn line(&self, value: &Value) {
        let mut sink = lock(&self.0);
        let _ = writeln!(sink, "{value}");
        let _ = sink.flush();
    }
}

/// The most characters of a client's string (a method, a session id) a log line quotes.
pub(super) const LOG_CLIP: usize = 200;

/// A member of a client's message as a log line quotes it: a string cut to [`LOG_CLIP`]
/// characters (with how long it was), an object or a list as its kind and size, so that a log
/// line stays small whatever the client sent.
pub(super) fn clip(v: Option<&Value>) -> Value {
    match v {
        None => Value::Null,
        Some(Value::String(s)) if s.chars().count() > LOG_CLIP => {
            let head: String = s.chars().take(LOG_CLIP).collect();
            Value::String(format!("{head}… ({} bytes)", s.len()))
        }
        Some(v @ (Value::Object(_) | Value::Array(_))) => {
            let kind = if v.is_object() { "an object" } else { "a list" };
            let size = serde_json::to_string(v).map_or(0, |t| t.len());
            Value::String(format!("({kind} of {size} bytes)"))
        }
        Some(v) => v.clone(),
    }
}
