//! Candidates (§0 step 1) and their HTTP check against `/json/version` (§2.1, §2.2, §2.6–§2.8).

use serde_json::{Map, Value};

use super::output::Source;
use crate::http::{Http, Request};

/// The largest `/json/version` body read; a longer one counts as no answer.
pub(crate) const VERSION_LIMIT: usize = 256 * 1024;

/// How a candidate is checked over HTTP. Every check is one GET of `/json/version` on the
/// candidate's host and port, so a run makes that GET once per host and port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Check {
    /// A DevToolsActivePort file: live when the answer's websocket path is `path`, `wsOnly`
    /// when the port is open without an answer.
    ActivePort {
        /// Line 1.
        port: u16,
        /// Line 2.
        path: String,
    },
    /// A `--cdp` URL: listed when answered; `wsOnly` with `ws` when open without an answer
    /// and the URL was a websocket URL.
    Flag {
        /// The normalised host, without brackets.
        host: String,
        /// The port.
        port: u16,
        /// `http` or `https`, the scheme of the endpoint's `cdp`.
        scheme: &'static str,
        /// The `ws://`/`wss://` URL exactly as given.
        ws: Option<String>,
    },
    /// The process scan with a non-zero port, or the probe: listed only when answered.
    Answered {
        /// The port on 127.0.0.1.
        port: u16,
    },
}

/// The loopback address every local source contacts.
pub(crate) const LOOPBACK: &str = "127.0.0.1";

impl Check {
    /// The normalised host and port the check contacts.
    pub(crate) fn target(&self) -> (&str, u16) {
        match self {
            Check::ActivePort { port, .. } | Check::Answered { port } => (LOOPBACK, *port),
            Check::Flag { host, port, .. } => (host, *port),
        }
    }

    /// The `/json/version` request of the check.
    pub(crate) fn request(&self) -> Request {
        let (host, port) = self.target();
        Request {
            host: host.to_string(),
            port,
            path: "/json/version".into(),
            limit: VERSION_LIMIT,
        }
    }
}

/// A candidate endpoint from one source, before its check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Candidate {
    /// The source that found it.
    pub source: Source,
    /// How it is checked.
    pub check: Check,
    /// Its user-data dir, as the source spells it.
    pub user_data_dir: Option<String>,
    /// The catalog browser whose default user-data dir held the file.
    pub browser: Option<String>,
    /// The seven profile's name.
    pub profile: Option<String>,
    /// Whether the source is six's (§2.9).
    pub six: bool,
}

impl Candidate {
    /// A candidate with no dir, browser or profile, not six's.
    pub(crate) fn new(source: Source, check: Check) -> Candidate {
        Candidate {
            source,
            check,
            user_data_dir: None,
            browser: None,
            profile: None,
            six: false,
        }
    }
}

/// What `/json/version` said, reduced to §2.1's three outcomes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Answer {
    /// Nothing listens.
    Refused,
    /// Open, but no 200 with a JSON object.
    Open,
    /// 200 with a JSON object.
    Answered(Map<String, Value>),
}

impl Answer {
    /// Classifies an HTTP outcome.
    pub(crate) fn from_http(http: &Http) -> Answer {
        match http {
            Http::Refused => Answer::Refused,
            Http::NoAnswer => Answer::Open,
            Http::Response { status, body } => {
                if *status != 200 {
                    return Answer::Open;
                }
                match serde_json::from_slice::<Value>(body) {
                    Ok(Value::Object(map)) => Answer::Answered(map),
                    _ => Answer::Open,
                }
            }
        }
    }
}

/// The browser information `/json/version` gave.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct VersionInfo {
    /// `Browser`, when a non-empty string.
    pub browser: Option<String>,
    /// `User-Agent`, when a non-empty string.
    pub user_agent: Option<String>,
}

impl VersionInfo {
    fn from_map(map: &Map<String, Value>) -> VersionInfo {
        let text = |key: &str| {
            map.get(key)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        VersionInfo {
            browser: text("Browser"),
            user_agent: text("User-Agent"),
        }
    }
}

/// A candidate that passed its check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// The candidate.
    pub candidate: Candidate,
    /// The normalised host (no brackets).
    pub host: String,
    /// The port.
    pub port: u16,
    /// `http` or `https`.
    pub scheme: &'static str,
    /// The endpoint's websocket URL.
    pub ws_url: String,
    /// `/json/version`'s information; `None` for `wsOnly`.
    pub info: Option<VersionInfo>,
}

impl Found {
    /// Whether the endpoint is listed without `/json/version`.
    pub(crate) fn ws_only(&self) -> bool {
        self.info.is_none()
    }
}

pub(crate) use crate::http::ws_path;

/// Checks a candidate against its `/json/version` answer; `None` drops it.
pub(crate) fn check(candidate: Candidate, answer: &Answer) -> Option<Found> {
    let (host, port) = candidate.check.target();
    let (host, port) = (host.to_string(), port);
    let scheme = match &candidate.check {
        Check::Flag { scheme, .. } => *scheme,
        _ => "http",
    };
    let answered_ws = |map: &Map<String, Value>| {
        map.get("webSocketDebuggerUrl")
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let (ws_url, info) = match (&candidate.check, answer) {
        (_, Answer::Refused) => return None,
        (Check::ActivePort { path, .. }, Answer::Answered(map)) => {
            let ws = answered_ws(map)?;
            if ws_path(&ws) != Some(path.as_str()) {
                return None; // stale: another browser (or another run) owns the port now
            }
            (ws, Some(VersionInfo::from_map(map)))
        }
        (Check::ActivePort { port, path }, Answer::Open) => {
            (format!("ws://{LOOPBACK}:{port}{path}"), None)
        }
        (Check::Flag { ws, .. }, Answer::Open) => (ws.clone()?, None),
        (Check::Flag { .. } | Check::Answered { .. }, Answer::Answered(map)) => {
            (answered_ws(map)?, Some(VersionInfo::from_map(map)))
        }
        (Check::Answered { .. }, Answer::Open) => return None,
    };
    Some(Found {
        candidate,
        host,
        port,
        scheme,
        ws_url,
        info,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_classified() {
        let ok = Http::Response {
            status: 200,
            body: br#"{"Browser":"Chrome/1"}"#.to_vec(),
        };
        assert!(matches!(Answer::from_http(&ok), Answer::Answered(_)));
        let not_json = Http::Response {
            status: 200,
            body: b"<html>".to_vec(),
        };
        assert_eq!(Answer::from_http(&not_json), Answer::Open);
        let array = Http::Response {
            status: 200,
            body: b"[]".to_vec(),
        };
        assert_eq!(Answer::from_http(&array), Answer::Open);
        let missing = Http::Response {
            status: 404,
            body: Vec::new(),
        };
        assert_eq!(Answer::from_http(&missing), Answer::Open);
        assert_eq!(Answer::from_http(&Http::Refused), Answer::Refused);
    }

    #[test]
    fn a_stale_active_port_is_dropped_and_an_open_one_is_ws_only() {
        let cand = Candidate::new(
            Source::DevtoolsActivePort,
            Check::ActivePort {
                port: 5000,
                path: "/devtools/browser/a".into(),
            },
        );
        let map = |ws: &str| {
            let mut m = Map::new();
            m.insert("webSocketDebuggerUrl".into(), Value::String(ws.into()));
            Answer::Answered(m)
        };
        assert!(check(cand.clone(), &map("ws://127.0.0.1:5000/devtools/browser/b")).is_none());
        let live = check(cand.clone(), &map("ws://127.0.0.1:5000/devtools/browser/a")).unwrap();
        assert!(!live.ws_only());
        let open = check(cand.clone(), &Answer::Open).unwrap();
        assert_eq!(open.ws_url, "ws://127.0.0.1:5000/devtools/browser/a");
        assert!(open.ws_only());
        assert!(check(cand, &Answer::Refused).is_none());
    }
}
