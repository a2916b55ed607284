//! The browser's own DevTools endpoint as a web page.
//!
//! Chromium's DevTools HTTP server answers any page that loads it, and trusts the WebSocket of
//! a page on its own origin (`http://127.0.0.1:<port>`: an upgrade with that `Origin` is
//! accepted, measured on Chromium 156). A client that opens a tab there has the page read
//! `/json/version` and open the browser WebSocket from its script: browser control with no
//! guard in between (tests/browser/guard_proxy_pages.rs). A page on another loopback spelling of the
//! endpoint (`localhost`, a `*.localhost` name) has no WebSocket but reads `/json/list` (every
//! tab's URL and title, protected ones included) and acts on tabs through `/json/new`,
//! `/json/activate` and `/json/close`. So the endpoint counts as browser-internal: any URL on
//! its port whose host reaches it (a loopback or unspecified address, `localhost` and the names
//! under it, the endpoint's own host) is refused like a `chrome:` page.

use url::{Host, Url};

/// The browser's DevTools endpoints ([`Config::devtools_endpoints`](super::config::Config::devtools_endpoints)).
#[derive(Debug, Default, Clone)]
pub(crate) struct Endpoints {
    /// Each endpoint's port, its decimal text (a cheap first test: a URL that does not hold
    /// it names another port, unless the port is its scheme's default) and its host as the
    /// URL parser writes it.
    list: Vec<(u16, String, Option<String>)>,
}

impl Endpoints {
    /// The endpoints of `host:port` texts; one that does not read as that is left out (the
    /// proxy passes what it connects to, which it has read already).
    pub(super) fn new(texts: &[String]) -> Endpoints {
        let list = texts
            .iter()
            .filter_map(|t| {
                let url = Url::parse(&format!("http://{}/", t.trim())).ok()?;
                let port = url.port_or_known_default()?;
                Some((port, port.to_string(), url.host_str().map(str::to_string)))
            })
            .collect();
        Endpoints { list }
    }

    /// Whether `url` loads a page of one of the endpoints (also inside `view-source:` and
    /// `blob:`).
    pub(crate) fn url(&self, url: &str) -> bool {
        if self.list.is_empty() {
            return false;
        }
        // Only a URL holding a port's digits can name it (or one with the default port).
        if !self
            .list
            .iter()
            .any(|(port, text, _)| matches!(port, 80 | 443) || url.contains(text.as_str()))
        {
            return false;
        }
        let mut rest = url.trim_start_matches(|c: char| c <= ' ');
        loop {
            let lower = rest.get(..12).unwrap_or(rest).to_ascii_lowercase();
            if lower.starts_with("view-source:") {
                rest = &rest[12..];
            } else if lower.starts_with("blob:") {
                rest = &rest[5..];
            } else {
                break;
            }
        }
        let Ok(parsed) = Url::parse(rest) else {
            return false;
        };
        if !matches!(parsed.scheme(), "http" | "https" | "ws" | "wss") {
            return false;
        }
        let (Some(port), Some(host)) = (parsed.port_or_known_default(), parsed.host()) else {
            return false;
        };
        self.list.iter().any(|(p, _, own)| {
            *p == port
                && (reaches_this_machine(&host)
                    || own.as_deref().is_some_and(|o| Some(o) == parsed.host_str()))
        })
    }
}

/// Whether a URL's host is this machine whatever DNS says: a loopback or unspecified address
/// (an IPv4-mapped one too), or `localhost` and the names under it (Chromium resolves them
/// to loopback itself, and its DevTools server accepts them as a `Host`).
fn reaches_this_machine(host: &Host<&str>) -> bool {
    match host {
        Host::Ipv4(a) => a.is_loopback() || a.is_unspecified(),
        Host::Ipv6(a) => {
            a.is_loopback()
                || a.is_unspecified()
                || a.to_ipv4_mapped()
                    .is_some_and(|v4| v4.is_loopback() || v4.is_unspecified())
        }
        Host::Domain(d) => {
            let d = d.strip_suffix('.').unwrap_or(d).to_ascii_lowercase();
            d == "localhost" || d.ends_with(".localhost")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Endpoints;

    #[test]
    fn the_endpoint_in_every_spelling_that_reaches_it() {
        let e = Endpoints::new(&["127.0.0.1:41235".to_string()]);
        for url in [
            "http://127.0.0.1:41235/json/version",
            "http://127.0.0.1:41235/",
            "HTTP://127.0.0.1:41235",
            "http://localhost:41235/json/list",
            "http://LOCALHOST.:41235/",
            "http://x.localhost:41235/json/list",
            "http://127.0.0.2:41235/",
            "http://2130706433:41235/",
            "http://0x7f.1:41235/",
            "http://127.1:041235/",
            "http://0.0.0.0:41235/",
            "http://[::1]:41235/",
            "http://[::ffff:127.0.0.1]:41235/",
            "http://[::]:41235/",
            "https://127.0.0.1:41235/",
            "ws://127.0.0.1:41235/devtools/browser/x",
            " view-source:http://127.0.0.1:41235/json",
            "blob:http://127.0.0.1:41235/0f8e",
            "VIEW-SOURCE:blob:http://127.0.0.1:41235/0f8e",
        ] {
            assert!(e.url(url), "{url}");
        }
        for url in [
            "http://127.0.0.1:41236/",
            "http://127.0.0.1/",
            "http://example.test:41235/",
            "http://localhost.example.test:41235/",
            "http://10.0.0.5:41235/",
            "ftp://127.0.0.1:41235/",
            "file:///41235",
            "http://127.0.0.1:4123/",
            "not a url 41235",
        ] {
            assert!(!e.url(url), "{url}");
        }
        assert!(!Endpoints::new(&[]).url("http://127.0.0.1:41235/"));
    }

    #[test]
    fn a_remote_endpoint_by_its_own_host() {
        let e = Endpoints::new(&["Browser.Internal:9333".to_string()]);
        assert!(e.url("http://browser.internal:9333/json/list"));
        assert!(e.url("http://127.0.0.1:9333/json/list"));
        assert!(!e.url("http://browser.internal:9334/"));
        let e = Endpoints::new(&["10.0.0.5:80".to_string()]);
        assert!(e.url("http://10.0.0.5/json/list"));
        assert!(e.url("http://localhost/"));
        assert!(!e.url("http://10.0.0.6/"));
    }
}
