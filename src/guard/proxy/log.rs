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
/// held (it came before the policy was ready, or waits for its checks) and refused later, or
/// answered later with a protocol error (a session nobody has...), is logged then, as
/// `refused` or `invalid`, with `held: true` and the answer's text as `why`. What a
/// client sent is quoted short: a string (a method, a session id) cut to 200 characters
/// followed by `… (N bytes)`, a non-string `method` or `sessionId` given as its kind and size
/// (`(an object of N bytes)`), so a line stays under about 1 KiB whatever the message.
/// A `human` log writes, instead, one line of words for each refusal and each session the
/// proxy cut (`guard proxy: refused Page.navigate (connection 2): slicc: refused: …`), and
/// nothing else; [`ProxyLog::and`] writes to both.
#[derive(Clone)]
pub struct ProxyLog(Vec<Arc<Sink>>);

/// One sink and how lines are written to it.
struct Sink {
    out: Mutex<Box<dyn Write + Send>>,
    human: bool,
}

impl std::fmt::Debug for ProxyLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProxyLog")
    }
}

impl ProxyLog {
    /// A JSON-lines log written to `sink` (a file, stderr, a buffer).
    pub fn new(sink: impl Write + Send + 'static) -> ProxyLog {
        ProxyLog(vec![Arc::new(Sink {
            out: Mutex::new(Box::new(sink)),
            human: false,
        })])
    }

    /// A log for the operator, written to `sink`: one line of words per refusal and per
    /// session the proxy cut (the method, what was protected, why), nothing else.
    pub fn human(sink: impl Write + Send + 'static) -> ProxyLog {
        ProxyLog(vec![Arc::new(Sink {
            out: Mutex::new(Box::new(sink)),
            human: true,
        })])
    }

    /// This log and `other`, each line written to both.
    pub fn and(mut self, other: ProxyLog) -> ProxyLog {
        self.0.extend(other.0);
        self
    }

    /// Writes one line (best effort: a failing log never stops the proxy).
    pub(super) fn line(&self, value: &Value) {
        for sink in &self.0 {
            let text = if sink.human {
                match words(value) {
                    Some(text) => text,
                    None => continue,
                }
            } else {
                value.to_string()
            };
            let mut out = lock(&sink.out);
            let _ = writeln!(out, "{text}");
            let _ = out.flush();
        }
    }
}

/// A log line in words, for a refusal or a cut session; `None` for the rest.
fn words(v: &Value) -> Option<String> {
    let text = |k: &str| v[k].as_str().map(str::to_string);
    let conn = v["conn"].as_u64().unwrap_or_default();
    match v["event"].as_str()? {
        "refused" if v["from"] == "client" => {
            let method = text("method").unwrap_or_else(|| "a command".into());
            let why = text("message").or_else(|| text("why")).unwrap_or_default();
            Some(format!(
                "guard proxy: refused {method} (connection {conn}): {why}"
            ))
        }
        "detached" => {
            let session = text("sessionId").unwrap_or_default();
            let why = text("why").unwrap_or_default();
            Some(format!(
                "guard proxy: cut session {session} (connection {conn}): {why}"
            ))
        }
        _ => None,
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
