//! The stand-in's log as the judge reads it: an entry's URL (read by the runner's one reader,
//! `logurl`), URLs compared with an origin counting as its `/`, and the URLs `pre`, `loaded` and
//! `served` checks look for.

use crate::harness::runner::expand::{chain_urls, origin_of};
use crate::vectors::UrlRef;

// A log entry's URL is read once for the whole runner (`logurl`): the judge's entries are those.
pub(super) use crate::harness::runner::logurl::LogUrl as Entry;

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
