//! The proxy's errors: starting it ([`ProxyError`]) and reaching the browser ([`BrowserError`]).

use crate::http::GetError;
use std::io;

/// Why [`Proxy::start`](super::Proxy::start) failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum ProxyError {
    /// An extra protected origin ([`ProxyOptions::origins`](super::ProxyOptions::origins), `--origin`) is not one the
    /// matcher reads.
    Origin(crate::error::Error),
    /// [`ProxyOptions::upstream`](super::ProxyOptions::upstream) is not a URL the proxy relays to.
    Upstream {
        /// The upstream as given.
        upstream: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// The browser gave no WebSocket URL to relay to.
    Browser(BrowserError),
    /// The browser opens its DevTools WebSocket to web pages (it was started with
    /// `--remote-allow-origins`, which lets in the page origins it names, or every one with
    /// `*`): any page it shows could drive it with no guard in between, so the proxy would
    /// guard nothing. Found by a handshake with an `Origin` no browser is told to allow.
    PagesAllowed {
        /// The browser's WebSocket URL.
        url: String,
    },
    /// The listening socket could not be bound, or its address read.
    Listen {
        /// [`ProxyOptions::listen`](super::ProxyOptions::listen).
        listen: String,
        /// The system's error.
        source: io::Error,
    },
    /// The accept thread could not be started.
    Thread(io::Error),
}

impl std::fmt::Display for ProxyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProxyError::Origin(e) => write!(f, "--origin: {e}"),
            ProxyError::Upstream { upstream, why } => write!(f, "--upstream {upstream:?}: {why}"),
            ProxyError::Browser(e) => e.fmt(f),
            ProxyError::PagesAllowed { url } => write!(
                f,
                "the browser at {url} lets web pages open its DevTools WebSocket (it was started with --remote-allow-origins), so any page could drive it around the guard: start it without that flag"
            ),
            ProxyError::Listen { listen, source } => {
                write!(f, "cannot listen on {listen}: {source}")
            }
            ProxyError::Thread(e) => write!(f, "cannot start the accept thread: {e}"),
        }
    }
}

impl std::error::Error for ProxyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ProxyError::Origin(e) => Some(e),
            ProxyError::Browser(e) => Some(e),
            ProxyError::Listen { source, .. } | ProxyError::Thread(source) => Some(source),
            ProxyError::Upstream { .. } | ProxyError::PagesAllowed { .. } => None,
        }
    }
}

/// Callers that report errors as text (`?` into `Result<_, String>`) keep working.
impl From<ProxyError> for String {
    fn from(e: ProxyError) -> String {
        e.to_string()
    }
}

/// Why the browser behind the proxy could not be used: its `/json/*` answers or its
/// WebSocket. A client asking through the proxy gets it as a `502` with this text.
#[derive(Debug)]
#[non_exhaustive]
pub enum BrowserError {
    /// Nothing took the connection to the browser's DevTools HTTP endpoint.
    Refused {
        /// `host:port` of the endpoint.
        addr: String,
        /// The document asked for (`/json/version`).
        path: &'static str,
    },
    /// The endpoint gave no complete, well-formed answer in time (or one over 8 MiB).
    NoAnswer {
        /// `host:port` of the endpoint.
        addr: String,
        /// The document asked for.
        path: &'static str,
    },
    /// The endpoint answered with another status than 200.
    Status {
        /// `host:port` of the endpoint.
        addr: String,
        /// The document asked for.
        path: &'static str,
        /// The status.
        status: u16,
    },
    /// The answer is not JSON.
    NotJson {
        /// `host:port` of the endpoint.
        addr: String,
        /// The document asked for.
        path: &'static str,
        /// The JSON parser's reason.
        why: String,
    },
    /// The answer is JSON but not what CDP promises.
    Shape {
        /// `host:port` of the endpoint.
        addr: String,
        /// The document asked for.
        path: &'static str,
        /// What is wrong (`is not a JSON object`, `has no webSocketDebuggerUrl`, …).
        what: &'static str,
    },
    /// The browser's WebSocket URL is not a `ws://host:port/…` URL.
    NotWs {
        /// The URL.
        url: String,
    },
    /// No TCP connection to the browser's WebSocket.
    Unreachable {
        /// `host:port` of the browser.
        addr: String,
    },
    /// A socket to the browser could not be set up or written.
    Socket(io::Error),
    /// The browser refused the WebSocket handshake.
    Handshake {
        /// The URL.
        url: String,
        /// tungstenite's reason.
        why: String,
    },
    /// The proxy's own look at the browser's targets (for `/json/list`) did not finish.
    Listing(&'static str),
    /// The stored WebSocket URL failed and so did asking the endpoint for a new one.
    Again {
        /// Why the stored URL failed.
        first: Box<BrowserError>,
        /// Why asking again failed.
        then: Box<BrowserError>,
    },
}

impl BrowserError {
    pub(super) fn get(host: &str, port: u16, path: &'static str, e: GetError) -> BrowserError {
        let addr = crate::http::authority(host, port);
        match e {
            GetError::Refused => BrowserError::Refused { addr, path },
            GetError::NoAnswer => BrowserError::NoAnswer { addr, path },
            GetError::Status(status) => BrowserError::Status { addr, path, status },
            GetError::NotJson(why) => BrowserError::NotJson { addr, path, why },
        }
    }
}

impl std::fmt::Display for BrowserError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BrowserError::Refused { addr, path } => {
                write!(f, "{addr}{path}: {}", GetError::Refused)
            }
            BrowserError::NoAnswer { addr, path } => {
                write!(f, "{addr}{path}: {}", GetError::NoAnswer)
            }
            BrowserError::Status { addr, path, status } => {
                write!(f, "{addr}{path}: {}", GetError::Status(*status))
            }
            BrowserError::NotJson { addr, path, why } => write!(f, "{addr}{path}: not JSON: {why}"),
            BrowserError::Shape { addr, path, what } => write!(f, "{addr}{path} {what}"),
            BrowserError::NotWs { url } => write!(f, "{url}: not ws://"),
            BrowserError::Unreachable { addr } => {
                write!(f, "cannot connect to the browser at {addr}")
            }
            BrowserError::Socket(e) => write!(f, "cannot set up the browser socket: {e}"),
            BrowserError::Handshake { url, why } => {
                write!(
                    f,
                    "WebSocket handshake with the browser ({url}) failed: {why}"
                )
            }
            BrowserError::Listing(why) => f.write_str(why),
            BrowserError::Again { first, then } => write!(f, "{first}; and {then}"),
        }
    }
}

impl std::error::Error for BrowserError {}
