//! A stand-in reached over HTTP.

use std::time::Duration;

use serde_json::Value;

use super::{now_ms, StandIn};
use crate::harness::runner::record::LogEntry;

/// The stand-in's log read over HTTP (`/log?n=<tag>`, whose `hits` are full log entries), for a
/// stand-in this process did not start (`guard fixture` running elsewhere). Its marks are
/// times (ms since the Unix epoch): the stand-in and the runner share a clock.
pub struct RemoteStandIn {
    host: String,
    port: u16,
}

/// Why a stand-in URL is not one [`RemoteStandIn::parse`] reads; each names the URL as given.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StandInUrlError {
    /// It does not start with `http://`.
    NotHttp(String),
    /// Its authority has no `:port`.
    NoPort(String),
    /// Its port is not a number from 0 to 65535.
    BadPort(String),
}

impl std::fmt::Display for StandInUrlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StandInUrlError::NotHttp(url) => write!(f, "{url:?} is not an http://host:port URL"),
            StandInUrlError::NoPort(url) => write!(f, "{url:?} has no port"),
            StandInUrlError::BadPort(url) => write!(f, "{url:?} has a bad port"),
        }
    }
}

impl std::error::Error for StandInUrlError {}

impl RemoteStandIn {
    /// The stand-in at `url` (`http://host:port`, as `guard fixture` prints it).
    pub fn parse(url: &str) -> Result<RemoteStandIn, StandInUrlError> {
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| StandInUrlError::NotHttp(url.to_string()))?;
        let authority = rest.split('/').next().unwrap_or(rest);
        let (host, port) = authority
            .rsplit_once(':')
            .ok_or_else(|| StandInUrlError::NoPort(url.to_string()))?;
        let port = port
            .parse()
            .map_err(|_| StandInUrlError::BadPort(url.to_string()))?;
        Ok(RemoteStandIn {
            host: host.trim_matches(['[', ']']).to_string(),
            port,
        })
    }
}

impl StandIn for RemoteStandIn {
    fn mark(&self) -> u64 {
        now_ms()
    }

    fn since(&self, mark: u64, tag: &str) -> Vec<LogEntry> {
        let request = crate::http::Request {
            host: self.host.clone(),
            port: self.port,
            path: format!("/log?n={tag}"),
            limit: 64 << 20,
        };
        let timeout = Duration::from_secs(5);
        match crate::http::get(&request, timeout, timeout) {
            crate::http::Http::Response { status: 200, body } => {
                serde_json::from_slice::<Value>(&body)
                    .ok()
                    .and_then(|v| v.get("hits").cloned())
                    .and_then(|h| serde_json::from_value::<Vec<LogEntry>>(h).ok())
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|e| e.time >= mark)
                    .collect()
            }
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_stand_in_urls_say_why() {
        let cases = [
            (
                "https://a.test:1",
                StandInUrlError::NotHttp("https://a.test:1".into()),
                r#""https://a.test:1" is not an http://host:port URL"#,
            ),
            (
                "http://a.test/x",
                StandInUrlError::NoPort("http://a.test/x".into()),
                r#""http://a.test/x" has no port"#,
            ),
            (
                "http://a.test:99999",
                StandInUrlError::BadPort("http://a.test:99999".into()),
                r#""http://a.test:99999" has a bad port"#,
            ),
        ];
        for (url, error, text) in cases {
            let got = RemoteStandIn::parse(url).err();
            assert_eq!(got.as_ref(), Some(&error), "{url}");
            assert_eq!(error.to_string(), text);
        }
        let ok = RemoteStandIn::parse("http://[::1]:8080/log").expect("a stand-in URL");
        assert_eq!((ok.host.as_str(), ok.port), ("::1", 8080));
    }
}
