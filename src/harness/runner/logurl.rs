//! The stand-in log's URLs read once: origin, path and query (as `URLSearchParams` reads it, so
//! `+` is a space), and the one definition of "a beacon from an origin" that the judge's `beacon`
//! check and the driver's `settle` wait both use.

use super::expand::origin_of;
use super::record::LogEntry;
use crate::percent::form_pairs;

/// A logged request's URL, parsed.
pub(crate) struct LogUrl<'a> {
    /// The whole URL as logged.
    pub(crate) url: &'a str,
    /// Its origin (`scheme://host[:port]`), or `""` when it has none.
    pub(crate) origin: &'a str,
    /// Its path (`/` when empty), without query or fragment.
    pub(crate) path: &'a str,
    /// Its query's name-value pairs, decoded.
    pub(crate) query: Vec<(String, String)>,
    /// The log entry.
    pub(crate) raw: &'a LogEntry,
}

impl<'a> LogUrl<'a> {
    /// Parses a log entry's URL.
    pub(crate) fn parse(raw: &'a LogEntry) -> LogUrl<'a> {
        let url = raw.url.as_str();
        let origin = origin_of(url).unwrap_or("");
        let rest = &url[origin.len()..];
        let rest = rest.split('#').next().unwrap_or("");
        let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
        LogUrl {
            url,
            origin,
            path: if path.is_empty() { "/" } else { path },
            query: form_pairs(query),
            raw,
        }
    }

    /// The first value of the query parameter `name`.
    pub(crate) fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Whether this is a beacon from `origin`: a `/beacon` request whose `origin` parameter is
    /// `origin`, or, with no `origin` parameter, sent from `origin` itself (the stand-in's CSP
    /// document sends its inline beacon to its own origin's `/beacon` without one).
    pub(crate) fn is_beacon_from(&self, origin: &str) -> bool {
        self.path == "/beacon"
            && match self.param("origin") {
                Some(o) => o == origin,
                None => self.origin == origin,
            }
    }
}

/// Whether a logged request is a beacon tagged `tag` from `origin` (see
/// [`LogUrl::is_beacon_from`]).
// Its caller, the driver's settle wait, is not built for wasm32-wasip1 (the judge is).
#[cfg_attr(target_os = "wasi", allow(dead_code))]
pub(crate) fn is_beacon(entry: &LogEntry, tag: &str, origin: &str) -> bool {
    let url = LogUrl::parse(entry);
    url.param("tag") == Some(tag) && url.is_beacon_from(origin)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(url: &str) -> LogEntry {
        LogEntry {
            url: url.into(),
            method: "POST".into(),
            headers: Default::default(),
            time: 0,
        }
    }

    #[test]
    fn beacons_are_read_from_the_query() {
        let b = entry("http://log.test/beacon?tag=t1&origin=http%3A%2F%2Fa.test&href=x");
        assert!(is_beacon(&b, "t1", "http://a.test"));
        assert!(!is_beacon(&b, "t2", "http://a.test"));
        assert!(!is_beacon(&b, "t1", "http://b.test"));
        assert!(!is_beacon(
            &entry("http://log.test/live?tag=t1&origin=http%3A%2F%2Fa.test"),
            "t1",
            "http://a.test"
        ));
    }

    #[test]
    fn a_beacon_without_an_origin_parameter_is_from_its_own_origin() {
        // The stand-in's CSP document: `/beacon?tag=inline-<n>` sent to its own origin.
        let b = entry("http://a.test:5000/beacon?tag=inline-7");
        assert!(is_beacon(&b, "inline-7", "http://a.test:5000"));
        assert!(LogUrl::parse(&b).is_beacon_from("http://a.test:5000"));
        assert!(!is_beacon(&b, "inline-7", "http://b.test"));
    }

    #[test]
    fn queries_read_plus_as_a_space() {
        let u = entry("http://h/p?a=%41+b&c&d=%2B#frag");
        let url = LogUrl::parse(&u);
        assert_eq!(url.path, "/p");
        assert_eq!(url.origin, "http://h");
        assert_eq!(url.param("a"), Some("A b"));
        assert_eq!(url.param("c"), Some(""));
        assert_eq!(url.param("d"), Some("+"));
        assert_eq!(LogUrl::parse(&entry("http://h")).path, "/");
    }
}
