//! The browser's side: its `/json/*` endpoints read, and the upstream WebSocket connected.

use super::{BrowserError, Context, JSON_LIMIT};
use crate::http::Request;
use crate::sys::lock;
use crate::ws::{self, ConnectError, ReadHalf};
use serde_json::Value;
use std::net::TcpStream;
use std::time::Duration;
use tungstenite::protocol::WebSocket;

/// The browser's WebSocket URL from its `/json/version`.
pub(super) fn browser_ws(host: &str, port: u16) -> Result<String, BrowserError> {
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
pub(super) fn get_json(host: &str, port: u16, path: &'static str) -> Result<Value, BrowserError> {
    let request = Request {
        host: host.to_string(),
        port,
        path: path.to_string(),
        limit: JSON_LIMIT,
    };
    crate::http::get_json(&request, Duration::from_secs(5))
        .map_err(|e| BrowserError::get(host, port, path, e))
}
/// Connects to the browser: its WebSocket (read side) and the socket to write on. When that
/// fails and the upstream is the browser's `http://` endpoint, its `/json/version` is asked
/// again (a restarted browser has a new WebSocket URL) and the new URL tried once.
pub(super) fn connect_upstream(
    context: &Context,
) -> Result<(WebSocket<ReadHalf>, TcpStream), BrowserError> {
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

pub(super) fn connect_ws(
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

/// The `Origin` of the probe [`lets_pages_in`] sends: a page origin no browser is told to allow
/// (`.invalid` names nothing).
const PROBE_ORIGIN: &str = "http://slicc-guard-probe.invalid";

/// Whether the browser at `ws_url` opens its DevTools WebSocket to a web page: a handshake
/// with [`PROBE_ORIGIN`] answered `101` (Chromium answers `403` unless it was started with
/// `--remote-allow-origins` naming that origin or `*`; measured on Chromium 156). A browser
/// that cannot be reached, or answers anything else, counts as not (the relay reports what is
/// wrong when a client connects).
pub(super) fn lets_pages_in(ws_url: &str) -> bool {
    let five = Duration::from_secs(5);
    // The crate's one client handshake (`ws::connect_as`), with a page's Origin.
    ws::connect_as(ws_url, Some(PROBE_ORIGIN), five, Some(five), 1 << 16).is_ok()
}
