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

impl RemoteStandIn {
    /// The stand-in at `url` (`http://host:port`, as `guard fixture` prints it).
    pub fn parse(url: &str) -> Result<RemoteStandIn, String> {
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| format!("{url:?} is not an http://host:port URL"))?;
        let authority = rest.split('/').next().unwrap_or(rest);
        let (host, port) = authority
            .rsplit_once(':')
            .ok_or_else(|| format!("{url:?} has no port"))?;
        let port = port
            .parse()
            .map_err(|_| format!("{url:?} has a bad port"))?;
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
