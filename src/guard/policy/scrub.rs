//! What in a CDP message names a protected origin, and taking it out.
//!
//! Every judgement goes through [`Matcher`]: URL-like members through [`Matcher::cookie_url`]
//! ([`Matcher::url`], and `ws:`/`wss:` read as `http:`/`https:`: a WebSocket or a cookie
//! command on seven reaches seven's cookies),
//! storage keys through [`Matcher::storage_key`], cookies (an object with a string `name` and
//! `domain`) through [`Matcher::cookie_domain`]. Target ids are judged by the policy's own
//! target table (the spec's *Targets* rule, see `super::Policy`).

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::table::Judge;
use crate::protected::Matcher;

/// Whether a `CacheStorage` cache id (`<storage key>|<name>`) is a protected storage key's.
pub(crate) fn cache_id_protected(m: &Matcher, id: &str) -> bool {
    let key = id.split('|').next().unwrap_or_default();
    m.storage_key(key) || m.storage_key(id)
}

/// The judge of a member named `key` of an answer or event, in the table's vocabulary
/// ([`Judge`]): chosen by its name wherever it stands, so that a field the table does not list
/// yet is judged all the same (`the_walker_judges_every_event_field_the_table_names` holds
/// every field the table's events name to be one of these). `cookie_params`: a `domain` is a
/// cookie's (the answers of cookie commands).
pub(crate) fn filter_of(key: &str, cookie_params: bool) -> Option<Judge> {
    Some(match key {
        "url"
        | "origin"
        | "securityOrigin"
        | "documentURL"
        | "unreachableUrl"
        | "scopeURL"
        | "scriptURL"
        | "ownerOrigin"
        | "issuerOrigin"
        | "topLevelSite"
        | "manifestId"
        | "installUrlOrBundleUrl"
        | "requestingOrigin"
        | "embeddingOrigin"
        | "frameURL"
        // A service worker's error (`ServiceWorker.workerErrorReported`): its script's URL.
        | "sourceURL" => Judge::Url,
        "urls" => Judge::Urls,
        "storageKey" => Judge::StorageKey,
        "cacheId" => Judge::CacheId,
        "targetId" => Judge::Target,
        "domain" if cookie_params => Judge::CookieDomain,
        _ => return None,
    })
}

/// The CDP domains whose responses and events describe targets, frames, requests, cookies or
/// storage, and so are scrubbed. Runtime values, DOM trees and the like are page data and are
/// not touched.
pub(crate) fn scrubbed_domain(method: &str) -> bool {
    let domain = method.split('.').next().unwrap_or_default();
    matches!(
        domain,
        "Target"
            | "Network"
            | "Page"
            | "Fetch"
            | "Storage"
            | "DOMStorage"
            | "IndexedDB"
            | "CacheStorage"
            | "ServiceWorker"
            | "Browser"
            | "FileSystem"
            | "BackgroundService"
            | "PWA"
            | "Preload"
            | "Audits"
    )
}

/// The judging context: the matcher plus a way to tell hidden (protected) targets.
pub(crate) struct Judging<'a, F: Fn(&str) -> bool> {
    pub(crate) m: &'a Matcher,
    /// Whether a target id is protected (for commands: also unknown).
    pub(crate) hidden: F,
    /// Judge a bare `domain` member as a cookie domain.
    pub(crate) cookie_params: bool,
    /// The browser's own DevTools endpoints, judged as browser-internal.
    pub(crate) endpoints: &'a super::endpoints::Endpoints,
}

impl<F: Fn(&str) -> bool> Judging<'_, F> {
    /// [`internal_url`], or a page of the browser's DevTools endpoint.
    fn internal(&self, url: &str) -> bool {
        internal_url(url) || self.endpoints.url(url)
    }

    /// Whether `v`, judged by `how` (one of [`filter_of`]'s judges), names something
    /// protected.
    fn judge(&self, how: &Judge, v: &Value) -> bool {
        match (how, v) {
            (Judge::Url, Value::String(s)) => self.m.cookie_url(s) || self.internal(s),
            (Judge::Urls, Value::Array(items)) => items.iter().any(|i| {
                i.as_str()
                    .is_some_and(|s| self.m.cookie_url(s) || self.internal(s))
            }),
            (Judge::Urls, Value::String(s)) => self.m.cookie_url(s) || self.internal(s),
            (Judge::StorageKey, Value::String(s)) => self.m.storage_key(s),
            (Judge::CacheId, Value::String(s)) => cache_id_protected(self.m, s),
            (Judge::CookieDomain, Value::String(s)) => self.m.cookie_domain(s),
            (Judge::Target, Value::String(s)) => (self.hidden)(s),
            _ => false,
        }
    }

    /// Whether an object is a cookie on a protected domain.
    fn protected_cookie(&self, map: &Map<String, Value>) -> bool {
        match (map.get("name"), map.get("domain")) {
            (Some(Value::String(_)), Some(Value::String(d))) => self.m.cookie_domain(d),
            _ => false,
        }
    }

    /// Takes out of `v` every array element that names a protected origin, and every
    /// `openerId`/`openerFrameId` naming a protected target. Returns whether `v` still names
    /// one outside any array (then the whole message must go), and sets `changed`.
    pub(crate) fn scrub(&self, v: &mut Value, changed: &mut bool) -> bool {
        match v {
            Value::Object(map) => {
                let mut names = self.protected_cookie(map);
                let mut drop_keys = Vec::new();
                for (k, child) in map.iter_mut() {
                    if (k == "openerId" || k == "openerFrameId")
                        && child.as_str().is_some_and(|id| (self.hidden)(id))
                    {
                        drop_keys.push(k.clone());
                        continue;
                    }
                    if let Some(how) = filter_of(k, self.cookie_params) {
                        if self.judge(&how, child) {
                            // An error page's failed URL: nothing protected committed there
                            // (a load the guard, or anything else, failed); the frame stays,
                            // without the URL (as in frame trees: `Core::error_frame`).
                            if k == "unreachableUrl" {
                                drop_keys.push(k.clone());
                                continue;
                            }
                            names = true;
                            continue;
                        }
                    }
                    if self.scrub(child, changed) {
                        names = true;
                    }
                }
                for k in drop_keys {
                    map.remove(&k);
                    *changed = true;
                }
                names
            }
            Value::Array(items) => {
                let before = items.len();
                items.retain_mut(|item| !self.scrub(item, changed));
                if items.len() != before {
                    *changed = true;
                }
                false
            }
            _ => false,
        }
    }
}

/// The schemes of browser-internal pages: Chromium's WebUI (`chrome:`, `chrome-untrusted:`,
/// `chrome-search:`), extension pages (`chrome-extension:`, which run with the extension's
/// host permissions), the DevTools front end (`devtools:`, `chrome-devtools:`) and the other
/// Chromium browsers' aliases of `chrome:`, and local files (`file:`: the browser reads them
/// with its own rights, its profile too, where every site's storage, cookies and history are).
pub const INTERNAL_SCHEMES: &[&str] = &[
    "file",
    "chrome",
    "chrome-untrusted",
    "chrome-search",
    "chrome-extension",
    "chrome-devtools",
    "devtools",
    "edge",
    "brave",
    "opera",
    "vivaldi",
    "arc",
    "comet",
];

/// Whether `url` is a browser-internal page: a scheme of [`INTERNAL_SCHEMES`] (ASCII case
/// and tabs or newlines ignored, as the URL parser does), an `about:` URL other than
/// `about:blank` and `about:srcdoc` (Chromium rewrites `about:<page>` to its internal page),
/// or `view-source:` of one. Such pages run with the browser's privileges and show or change
/// every site's data (history, permissions, service workers, site data), and a `file:` URL
/// shows the files the browser keeps that data in: a guarded client has no business on them,
/// whatever the protected origins.
pub fn internal_url(url: &str) -> bool {
    let cleaned: String = url
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let Some((scheme, rest)) = cleaned.split_once(':') else {
        return false;
    };
    let scheme = scheme.to_ascii_lowercase();
    if scheme == "view-source" {
        return internal_url(rest);
    }
    if scheme == "about" {
        let page = rest
            .split(['?', '#'])
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        return !matches!(page.as_str(), "blank" | "srcdoc");
    }
    INTERNAL_SCHEMES.contains(&scheme.as_str())
}

/// What a client is shown of a protected URL where it may see that something protected is
/// there (a listing of its own tab on the error page of a blocked load, an error frame): the
/// URL's origin (`https://seven.sliccy.ai`), or `about:blank#blocked` where it has none.
pub(crate) fn redacted(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(u) if u.origin().is_tuple() => u.origin().ascii_serialization(),
        _ => "about:blank#blocked".to_string(),
    }
}

/// Removes from a `Cookie` request header value the pairs whose name is in `names`.
pub(crate) fn strip_cookie_header(value: &str, names: &HashSet<String>) -> String {
    value
        .split(';')
        .map(str::trim)
        .filter(|pair| {
            let name = pair.split('=').next().unwrap_or_default().trim();
            !pair.is_empty() && !names.contains(name)
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The cookie domain a `Set-Cookie` line sets: its `Domain` attribute (without a leading dot),
/// else `host` (a host-only cookie).
pub(crate) fn set_cookie_domain<'a>(line: &'a str, host: &'a str) -> &'a str {
    for attr in line.split(';').skip(1) {
        let mut kv = attr.splitn(2, '=');
        let k = kv.next().unwrap_or_default().trim();
        if k.eq_ignore_ascii_case("domain") {
            let d = kv.next().unwrap_or_default().trim();
            if !d.is_empty() {
                return d;
            }
        }
    }
    host
}

/// The host of a URL, for host-only cookies: what lies between `//` and the next `/`, `?`,
/// `#`, without user info and port. Empty when there is none.
pub(crate) fn host_of(url: &str) -> &str {
    let rest = match url.find("//") {
        Some(i) => &url[i + 2..],
        None => return "",
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let host = authority.rsplit('@').next().unwrap_or_default();
    if host.starts_with('[') {
        return host
            .split(']')
            .next()
            .map_or(host, |h| &host[..h.len() + 1]);
    }
    host.split(':').next().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Event fields the table says carry a URL, a storage key or a cookie that the walker does
    /// not judge by name, each filtered elsewhere: cookies of `*ExtraInfo` events (cookies.rs),
    /// and device-bound sessions (`Network.enableDeviceBoundSessions` is refused; a request's
    /// session usages go with its request, withheld when it is protected).
    const ELSEWHERE: [&str; 8] = [
        "Network.requestWillBeSentExtraInfo associatedCookies.cookie",
        "Network.requestWillBeSentExtraInfo deviceBoundSessionUsages.sessionKey.site",
        "Network.responseReceivedExtraInfo blockedCookies.cookie",
        "Network.responseReceivedExtraInfo exemptedCookies.cookie",
        "Network.deviceBoundSessionEventOccurred site",
        "Network.deviceBoundSessionEventOccurred creationEventDetails.newSession.key.site",
        "Network.deviceBoundSessionEventOccurred refreshEventDetails.newSession.key.site",
        "Network.deviceBoundSessionsAdded sessions.key.site",
    ];

    fn unjudged(path: &str, judge: &super::super::table::Judge, out: &mut Vec<String>) {
        use super::super::table::Judge as T;
        let name = path.rsplit('.').next().unwrap_or_default();
        match judge {
            T::Members(members) => {
                for (k, j) in members {
                    let sub = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    unjudged(&sub, j, out);
                }
            }
            T::Url | T::Urls | T::StorageKey | T::CacheId | T::Cookie
                if filter_of(name, true).is_none() =>
            {
                out.push(path.to_string())
            }
            _ => {}
        }
    }

    /// Every event field of a filtered domain that the table says names an origin is one the
    /// walker judges (or is filtered elsewhere): a new field under a new name fails here.
    #[test]
    fn the_walker_judges_every_event_field_the_table_names() {
        let mut missing = Vec::new();
        for (name, event) in super::super::table::table().events() {
            if !scrubbed_domain(name) {
                continue;
            }
            let mut out = Vec::new();
            for (field, judge) in &event.filter {
                unjudged(field, judge, &mut out);
            }
            missing.extend(
                out.into_iter()
                    .map(|f| format!("{name} {f}"))
                    .filter(|f| !ELSEWHERE.contains(&f.as_str())),
            );
        }
        missing.sort();
        assert!(missing.is_empty(), "not judged by name: {missing:#?}");
    }

    #[test]
    fn cookie_header() {
        let names: HashSet<String> = ["a".to_string()].into();
        assert_eq!(strip_cookie_header("a=1; b=2;c=3", &names), "b=2; c=3");
        assert_eq!(strip_cookie_header("a=1", &names), "");
    }

    #[test]
    fn set_cookie() {
        assert_eq!(
            set_cookie_domain("a=1; Path=/; Domain=.x.test", "h"),
            ".x.test"
        );
        assert_eq!(set_cookie_domain("a=1; Path=/", "h"), "h");
    }

    #[test]
    fn internal_pages() {
        for u in [
            "chrome://history",
            "CHROME://settings/",
            " chrome:inspect",
            "ch\trome://process-internals",
            "chrome-untrusted://print/",
            "devtools://devtools/bundled/inspector.html",
            "edge://settings",
            "brave://settings",
            "opera://settings",
            "vivaldi://settings",
            "chrome-extension://abc/page.html",
            "view-source:chrome://history",
            "about:history",
            "about:settings",
            "file:///tmp/profile/Default/Local%20Storage/leveldb/000003.log",
            "FILE:///etc/passwd",
            " file:/etc/passwd",
            "view-source:file:///etc/passwd",
        ] {
            assert!(internal_url(u), "{u}");
        }
        for u in [
            "about:blank",
            "about:srcdoc",
            "ABOUT:BLANK?x#y",
            "https://chrome.test/",
            "http://example.test/chrome://history",
            "chrome-error://chromewebdata/",
            "data:text/html,chrome://",
            "",
            "view-source:https://example.test/",
            "https://file.test/file:///etc/passwd",
        ] {
            assert!(!internal_url(u), "{u}");
        }
    }

    #[test]
    fn hosts() {
        assert_eq!(host_of("http://u:p@Seven.x:80/a?b"), "Seven.x");
        assert_eq!(host_of("https://[::1]:5/"), "[::1]");
        assert_eq!(host_of("about:blank"), "");
    }
}
