//! What the proxy answers a client over HTTP: a response, and each refusal with its status.

use super::{BrowserError, HEAD_LIMITS};
use crate::http::head::{self, HeadError, RequestHead};
use serde_json::Value;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// Why a client's HTTP request gets no document: each with its status.
#[derive(Debug)]
pub(super) enum Refusal {
    /// The request head is not one the proxy reads.
    Head(HeadError),
    /// The connection ended or failed before the head was complete.
    Read(Option<io::Error>),
    /// The head did not come whole within [`HEAD_TIME`].
    Slow,
    /// A WebSocket upgrade without `Sec-WebSocket-Key`.
    NoKey,
    /// Not `GET`.
    Method,
    /// A path the proxy does not serve.
    NotServed(String),
    /// The browser side failed.
    Browser(BrowserError),
    /// A `Host` that is neither an IP address nor a localhost name (a DNS name pointed at the
    /// proxy by a page on another site: DNS rebinding), as Chromium refuses it.
    Host,
    /// A WebSocket upgrade from a page (its `Origin`) the proxy was not told to allow, as
    /// Chromium refuses it.
    Origin(String),
}

impl Refusal {
    pub(super) fn status(&self) -> u16 {
        match self {
            Refusal::Head(e) => e.status(),
            Refusal::Read(_) | Refusal::NoKey => 400,
            Refusal::Slow => 408,
            Refusal::Method => 405,
            Refusal::NotServed(_) => 404,
            Refusal::Browser(_) => 502,
            // Chromium's own statuses for these (measured on Chromium 156).
            Refusal::Host => 500,
            Refusal::Origin(_) => 403,
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Head(e) => write!(f, "request head: {e}"),
            Refusal::Read(None) => f.write_str("connection closed in the request head"),
            Refusal::Read(Some(e)) => write!(f, "cannot read the request: {e}"),
            Refusal::Slow => write!(
                f,
                "slicc-browsers guard proxy: the request head took longer than {} s",
                HEAD_TIME.as_secs()
            ),
            Refusal::NoKey => f.write_str("no Sec-WebSocket-Key"),
            Refusal::Method => f.write_str("only GET"),
            Refusal::NotServed(path) => write!(
                f,
                "slicc-browsers guard proxy: {path} is not served (only /json/version, /json/list, /json/protocol and the browser WebSocket)"
            ),
            Refusal::Browser(e) => e.fmt(f),
            Refusal::Host => f.write_str(
                "slicc-browsers guard proxy: Host header is specified and is not an IP address or localhost.",
            ),
            Refusal::Origin(origin) => write!(
                f,
                "slicc-browsers guard proxy: rejected an incoming WebSocket connection from the {origin} origin. Use the option --remote-allow-origins={origin} to allow connections from this origin or --remote-allow-origins=* to allow all origins."
            ),
        }
    }
}

impl From<BrowserError> for Refusal {
    fn from(e: BrowserError) -> Refusal {
        Refusal::Browser(e)
    }
}

pub(super) fn respond(
    mut stream: &TcpStream,
    status: u16,
    kind: &str,
    body: &[u8],
) -> io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        414 => "URI Too Long",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
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

/// How long a client may take to send its request head, whole (a slow trickle would hold a
/// connection slot for as long as it likes otherwise).
pub(super) const HEAD_TIME: Duration = Duration::from_secs(10);

/// Reads a request head (bounded in size and time): the head and the bytes read past it (a
/// WebSocket client's first frames, handed to the relay).
pub(super) fn read_head(stream: &mut TcpStream) -> Result<(RequestHead, Vec<u8>), Refusal> {
    let deadline = Instant::now() + HEAD_TIME;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(head) = head::request(&buf, &HEAD_LIMITS).map_err(Refusal::Head)? {
            let rest = buf.split_off(head.len);
            return Ok((head, rest));
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Refusal::Slow);
        }
        let _ = stream.set_read_timeout(Some(left));
        match stream.read(&mut chunk) {
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                return Err(Refusal::Slow);
            }
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
pub(super) fn refuse(stream: &TcpStream, refusal: &Refusal) {
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

/// How an HTTP connection ended, for the log's `close` line (a client's path cut short).
pub(super) fn answered(refusal: &Refusal) -> String {
    let text = refusal.to_string();
    let text = match super::log::clip(Some(&Value::String(text.clone()))) {
        Value::String(s) => s,
        _ => text,
    };
    match refusal {
        Refusal::Read(None) => "the client closed the connection in the request head".into(),
        _ => format!("answered {}: {text}", refusal.status()),
    }
}
