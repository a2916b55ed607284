//! A small HTTP/1.1 client over `TcpStream`: one GET, bounded in time and size, and the
//! request and outcome types every caller shares.
//!
//! Discovery checks endpoints with it ([`Host::http_get`](crate::discovery::Host::http_get) on
//! the real machine), launch waits for the browser it started, and the guard's CDP client and
//! proxy read `/json/version` and open their WebSocket connections with it. It sits below all
//! of them (features `discovery`, `guard-runner` and `guard-proxy`), so none of them imports
//! another for it. The types are public as [`discovery::Request`](crate::discovery::Request)
//! and [`discovery::Http`](crate::discovery::Http); the client (`get`, `connect`) is
//! crate-private and not on `wasm32-wasip1`.
//!
//! HTTP/1.x heads, requests and responses, are parsed in one place, [`head`] (on `httparse`),
//! and chunked bodies decoded in one, [`chunked`]:
//! this client's responses, the stand-in fixture's requests and `guard proxy`'s requests.

#[cfg(not(target_os = "wasi"))]
pub(crate) mod chunked;
#[cfg(not(target_os = "wasi"))]
pub(crate) mod head;

#[cfg(not(target_os = "wasi"))]
use std::io::{ErrorKind, Read, Write};
#[cfg(not(target_os = "wasi"))]
use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs};
#[cfg(not(target_os = "wasi"))]
use std::time::{Duration, Instant};

/// An HTTP GET to make: `http://<host>:<port><path>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Request {
    /// The host: an IP address or a name, without brackets for IPv6.
    pub host: String,
    /// The TCP port.
    pub port: u16,
    /// The path, starting with `/`.
    pub path: String,
    /// The largest body accepted; a longer one counts as [`Http::NoAnswer`].
    pub limit: usize,
}

/// The outcome of an HTTP GET (§2.1 of the discovery rules).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Http {
    /// Nothing listens on the port (or it could not be reached).
    Refused,
    /// The port took the connection but gave no usable HTTP answer in time.
    NoAnswer,
    /// An HTTP answer.
    Response {
        /// The status code.
        status: u16,
        /// The body, at most the request's limit.
        body: Vec<u8>,
    },
}

/// The path of a WebSocket URL (`ws://host:port/devtools/browser/<id>`): from the first `/`
/// after the authority, without query or fragment; `None` when there is no `scheme://` or no
/// path. The one reading of it: discovery and launch compare it with a DevToolsActivePort's
/// path.
#[cfg(feature = "discovery")]
pub(crate) fn ws_path(url: &str) -> Option<&str> {
    let rest = &url[url.find("://")? + 3..];
    let rest = &rest[..rest.find(['?', '#']).unwrap_or(rest.len())];
    let start = rest.find('/')?;
    Some(&rest[start..])
}

/// `host:port`, with brackets around an IPv6 host.
pub(crate) fn authority(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

#[cfg(not(target_os = "wasi"))]
/// The largest status line and header block read.
const HEADER_LIMIT: usize = 64 * 1024;

#[cfg(not(target_os = "wasi"))]
/// The addresses of `host:port`: an IP literal as is, a name through the resolver.
fn addresses(host: &str, port: u16) -> Vec<SocketAddr> {
    if let Ok(ip) = host.parse::<IpAddr>() {
        return vec![SocketAddr::new(ip, port)];
    }
    (host, port)
        .to_socket_addrs()
        .map(|a| a.collect())
        .unwrap_or_default()
}

#[cfg(all(
    not(target_os = "wasi"),
    any(feature = "guard-runner", feature = "guard-proxy")
))]
/// Reads and drops what a rejected client still sends, for at most 1 s and 1 MiB, so that
/// closing with unread input (which makes the kernel send a reset) does not destroy the
/// error answer before the client reads it. The stand-in fixture and the proxy call it after
/// answering a request they refuse.
pub(crate) fn linger(stream: &TcpStream) {
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

#[cfg(not(target_os = "wasi"))]
/// A connection to `host:port` within `timeout` per address.
pub(crate) fn connect(host: &str, port: u16, timeout: Duration) -> Option<TcpStream> {
    addresses(host, port)
        .into_iter()
        .find_map(|addr| TcpStream::connect_timeout(&addr, timeout).ok())
}

#[cfg(not(target_os = "wasi"))]
/// One GET: refused when no connection is made, no answer when the whole response does not
/// arrive before `deadline` or is malformed or too large.
pub(crate) fn get(
    request: &Request,
    connect_timeout: Duration,
    response_timeout: Duration,
) -> Http {
    let Some(mut stream) = connect(&request.host, request.port, connect_timeout) else {
        return Http::Refused;
    };
    let deadline = crate::sys::deadline(response_timeout);
    let _ = stream.set_nodelay(true);
    let head = format!(
        "GET {} HTTP/1.1\r\nHost: {}\r\nAccept: application/json\r\nConnection: close\r\n\r\n",
        request.path,
        authority(&request.host, request.port)
    );
    let _ = stream.set_write_timeout(Some(response_timeout));
    if stream.write_all(head.as_bytes()).is_err() {
        return Http::NoAnswer;
    }
    let cap = request.limit.saturating_add(HEADER_LIMIT);
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    loop {
        let now = Instant::now();
        if now >= deadline {
            return Http::NoAnswer;
        }
        let _ = stream.set_read_timeout(Some((deadline - now).max(Duration::from_millis(1))));
        match stream.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                buf.extend_from_slice(&chunk[..n]);
                if buf.len() > cap {
                    return Http::NoAnswer;
                }
                if let Some(Ok(response)) = parse(&buf, request.limit, false) {
                    return response;
                }
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return Http::NoAnswer
            }
            Err(_) => break,
        }
    }
    match parse(&buf, request.limit, true) {
        Some(Ok(response)) => response,
        _ => Http::NoAnswer,
    }
}

// Launch, the CDP client and the proxy read JSON documents; discovery reads its own way.
#[cfg(all(
    not(target_os = "wasi"),
    any(feature = "launch", feature = "guard-runner", feature = "guard-proxy")
))]
/// One GET whose answer must be status 200 with a JSON body, within `timeout` to connect and
/// `timeout` for the response. `Err` says why not, for the caller to put after what it asked
/// for.
pub(crate) fn get_json(
    request: &Request,
    timeout: Duration,
) -> Result<serde_json::Value, GetError> {
    match get(request, timeout, timeout) {
        Http::Refused => Err(GetError::Refused),
        Http::NoAnswer => Err(GetError::NoAnswer),
        Http::Response { status: 200, body } => {
            serde_json::from_slice(&body).map_err(|e| GetError::NotJson(e.to_string()))
        }
        Http::Response { status, .. } => Err(GetError::Status(status)),
    }
}

#[cfg(all(
    not(target_os = "wasi"),
    any(feature = "launch", feature = "guard-runner", feature = "guard-proxy")
))]
/// Why [`get_json`] has no document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum GetError {
    /// No connection was made.
    Refused,
    /// No complete, well-formed answer within the time and size limits.
    NoAnswer,
    /// An answer other than 200.
    Status(u16),
    /// A 200 whose body is not JSON: the parser's reason.
    NotJson(String),
}

#[cfg(all(
    not(target_os = "wasi"),
    any(feature = "launch", feature = "guard-runner", feature = "guard-proxy")
))]
impl std::fmt::Display for GetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GetError::Refused => f.write_str("connection refused"),
            GetError::NoAnswer => f.write_str("no complete HTTP answer in time"),
            GetError::Status(status) => write!(f, "answered HTTP {status}"),
            GetError::NotJson(why) => write!(f, "not JSON: {why}"),
        }
    }
}

#[cfg(all(
    not(target_os = "wasi"),
    any(feature = "launch", feature = "guard-runner", feature = "guard-proxy")
))]
impl std::error::Error for GetError {}

#[cfg(not(target_os = "wasi"))]
/// The bounds of a response head the client reads.
const RESPONSE_HEAD: head::HeadLimits = head::HeadLimits {
    max_head: HEADER_LIMIT,
    max_line: HEADER_LIMIT,
    max_headers: 100,
};

#[cfg(not(target_os = "wasi"))]
/// Parses a response: `None` while incomplete, `Some(Err)` when malformed or too large.
/// With `eof`, a body without a length runs to the end.
fn parse(buf: &[u8], limit: usize, eof: bool) -> Option<Result<Http, ()>> {
    let head = match head::response(buf, &RESPONSE_HEAD) {
        Ok(Some(head)) => head,
        Ok(None) => return eof.then_some(Err(())),
        Err(_) => return Some(Err(())),
    };
    let length = match head::header(&head.headers, "content-length").map(head::content_length) {
        Some(Ok(n)) => Some(n),
        Some(Err(_)) => return Some(Err(())),
        None => None,
    };
    let chunked = head
        .headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.to_ascii_lowercase().contains("chunked"));
    let rest = &buf[head.len..];
    let body = if chunked {
        let limits = chunked::ChunkLimits {
            body: limit,
            trailers: HEADER_LIMIT,
        };
        let mut body = Vec::new();
        match chunked::decode(rest, &limits, Some(&mut body)) {
            Ok(Some(_)) => body,
            Err(_) => return Some(Err(())),
            Ok(None) if eof => return Some(Err(())),
            Ok(None) => return None,
        }
    } else if let Some(n) = length {
        if n > limit {
            return Some(Err(()));
        }
        if rest.len() < n {
            return eof.then_some(Err(()));
        }
        rest[..n].to_vec()
    } else if eof {
        rest.to_vec()
    } else {
        return None;
    };
    if body.len() > limit {
        return Some(Err(()));
    }
    Some(Ok(Http::Response {
        status: head.status,
        body,
    }))
}

#[cfg(all(test, not(target_os = "wasi")))]
mod tests {
    use super::*;

    fn ok(buf: &[u8], eof: bool) -> Option<Result<Http, ()>> {
        parse(buf, 1000, eof)
    }

    #[test]
    #[cfg(feature = "discovery")]
    fn ws_path_takes_the_path_without_query() {
        assert_eq!(
            ws_path("ws://127.0.0.1:5000/devtools/browser/x?y#z"),
            Some("/devtools/browser/x")
        );
        assert_eq!(ws_path("ws://127.0.0.1:5000"), None);
        // A `/` in the query is not a path.
        assert_eq!(ws_path("ws://127.0.0.1:5000?a/b"), None);
        assert_eq!(ws_path("not a url"), None);
    }

    #[test]
    fn responses_parse() {
        let r = ok(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}", false);
        assert_eq!(
            r,
            Some(Ok(Http::Response {
                status: 200,
                body: b"{}".to_vec()
            }))
        );
        assert_eq!(
            ok(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n{}", false),
            None
        );
        assert_eq!(
            ok(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n{}", true),
            Some(Err(()))
        );
        let r = ok(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
            false,
        );
        assert_eq!(
            r,
            Some(Ok(Http::Response {
                status: 200,
                body: b"{}".to_vec()
            }))
        );
        let r = ok(b"HTTP/1.0 404 Not Found\r\n\r\nnope", true);
        assert_eq!(
            r,
            Some(Ok(Http::Response {
                status: 404,
                body: b"nope".to_vec()
            }))
        );
        assert_eq!(ok(b"SSH-2.0-OpenSSH\r\n\r\n", true), Some(Err(())));
        assert_eq!(
            ok(b"HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n", false),
            Some(Err(()))
        );
        assert_eq!(
            ok(
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n",
                false
            ),
            Some(Err(()))
        );
    }

    #[cfg(all(
        not(target_os = "wasi"),
        any(feature = "launch", feature = "guard-runner", feature = "guard-proxy")
    ))]
    #[test]
    fn get_json_says_why_an_answer_is_not_json() {
        use std::net::TcpListener;
        // One answer per listener, then the listener is gone.
        let serve = |answer: &'static str| {
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            let port = listener.local_addr().unwrap().port();
            std::thread::spawn(move || {
                let (mut stream, _) = listener.accept().unwrap();
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
                    head.push(byte[0]);
                }
                let _ = stream.write_all(answer.as_bytes());
            });
            Request {
                host: "127.0.0.1".into(),
                port,
                path: "/json/version".into(),
                limit: 1000,
            }
        };
        let t = Duration::from_secs(5);
        let ok = serve("HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\n{\"a\": 1}");
        assert_eq!(get_json(&ok, t), Ok(serde_json::json!({"a": 1})));
        let missing = serve("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
        assert_eq!(get_json(&missing, t), Err(GetError::Status(404)));
        assert_eq!(GetError::Status(404).to_string(), "answered HTTP 404");
        let text = serve("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi");
        let not_json = get_json(&text, t).unwrap_err();
        assert!(matches!(not_json, GetError::NotJson(_)), "{not_json:?}");
        assert!(not_json.to_string().starts_with("not JSON: "));
        let gone = {
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            let port = listener.local_addr().unwrap().port();
            drop(listener);
            Request { port, ..ok.clone() }
        };
        assert_eq!(get_json(&gone, t), Err(GetError::Refused));
        assert_eq!(GetError::Refused.to_string(), "connection refused");
    }
}
