//! The stand-in's log as the judge reads it: an entry's URL split into origin, path and decoded
//! query, URLs compared with an origin counting as its `/`, and the URLs `pre`, `loaded` and
//! `served` checks look for.

use crate::harness::runner::expand::{chain_urls, origin_of};
use crate::harness::runner::record::LogEntry;
use crate::vectors::UrlRef;

/// A log entry, parsed.
pub(super) struct Entry<'a> {
    pub(super) url: &'a str,
    pub(super) origin: &'a str,
    pub(super) path: &'a str,
    pub(super) query: Vec<(String, String)>,
    pub(super) raw: &'a LogEntry,
}

impl<'a> Entry<'a> {
    pub(super) fn parse(raw: &'a LogEntry) -> Entry<'a> {
        let url = raw.url.as_str();
        let origin = origin_of(url).unwrap_or("");
        let rest = &url[origin.len()..];
        let rest = rest.split('#').next().unwrap_or("");
        let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
        let query = query
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap_or((p, ""));
                (percent_decode(k), percent_decode(v))
            })
            .collect();
        Entry {
            url,
            origin,
            path: if path.is_empty() { "/" } else { path },
            query,
            raw,
        }
    }

    pub(super) fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Decodes `%XX` escapes (invalid ones stay as they are; `+` stays `+`, as
/// `encodeURIComponent` never writes a bare `+`).
pub(super) fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = |b: u8| (b as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The URL as compared: an origin without a path is its `/`.
pub(super) fn norm(url: &str) -> std::borrow::Cow<'_, str> {
    if origin_of(url) == Some(url) {
        std::borrow::Cow::Owned(format!("{url}/"))
    } else {
        std::borrow::Cow::Borrowed(url)
    }
}

pub(super) fn same_url(a: &str, b: &str) -> bool {
    a == b || norm(a) == norm(b)
}

/// The URL a `pre` check looks for: a string; a chain's `index`; else the chain's first URL.
pub(super) fn pre_url(url: &UrlRef) -> Option<String> {
    match url {
        UrlRef::Url(u) => Some(u.clone()),
        UrlRef::Chain(c) => {
            let urls = chain_urls(&c.hops, &c.to);
            let i = c.index.and_then(|i| usize::try_from(i).ok()).unwrap_or(0);
            urls.into_iter().nth(i)
        }
    }
}

/// The URL a `loaded` check looks for: a string; a chain's `index`; else the chain's `to`.
pub(super) fn loaded_url(url: &UrlRef) -> Option<String> {
    match url {
        UrlRef::Url(u) => Some(u.clone()),
        UrlRef::Chain(c) => match c.index {
            Some(i) => usize::try_from(i)
                .ok()
                .and_then(|i| chain_urls(&c.hops, &c.to).into_iter().nth(i)),
            None => Some(c.to.clone()),
        },
    }
}

pub(super) fn served_matches(logged: &str, want: &str) -> bool {
    if same_url(logged, want) {
        return true;
    }
    !want.contains('?')
        && logged
            .split_once('?')
            .is_some_and(|(base, _)| same_url(base, want))
}
