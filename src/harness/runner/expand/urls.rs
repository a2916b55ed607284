//! URL builders: `encodeURIComponent`, the stand-in's redirect hops and the URLs of a chain, the
//! one builder the driver and the judge share.

use crate::vectors::{Hop, UrlRef};

/// JavaScript's `encodeURIComponent`: every byte of the UTF-8 text except
/// `A-Z a-z 0-9 - _ . ! ~ * ' ( )` as `%XX` (upper-case hex).
pub fn encode_uri_component(text: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(text.len() * 3 / 2);
    for &b in text.as_bytes() {
        if b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'-' | b'_' | b'.' | b'!' | b'~' | b'*' | b'\'' | b'(' | b')'
            )
        {
            out.push(b as char);
        } else {
            out.push('%');
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 15)] as char);
        }
    }
    out
}

/// The URL of one stand-in redirect: `<origin>/hop?code=<code>&to=<encodeURIComponent(to)>`.
pub fn hop_url(origin: &str, code: u16, to: &str) -> String {
    format!("{origin}/hop?code={code}&to={}", encode_uri_component(to))
}

/// Every URL of a redirect chain, in the order the browser requests them: position 0 is the
/// URL a page action loads (the first hop, with the rest nested in its `to`), then each nested
/// hop URL, then `to` itself (position `hops.len()`). With no hops it is just `[to]`.
///
/// This is the one builder the driver (which loads position 0) and the judge (`hops`, `pre`,
/// `loaded` and block checks on a chain) share.
pub fn chain_urls(hops: &[Hop], to: &str) -> Vec<String> {
    let mut urls = vec![to.to_string()];
    for hop in hops.iter().rev() {
        let next = hop_url(&hop.origin, hop.code, &urls[urls.len() - 1]);
        urls.push(next);
    }
    urls.reverse();
    urls
}

/// The URL a page action with `url` and `hops` loads: the chain's position 0.
pub fn chain_start(hops: &[Hop], to: &str) -> String {
    chain_urls(hops, to).swap_remove(0)
}

/// The URLs a [`UrlRef`] stands for, by how a check reads it:
/// a string is that URL; a chain with `index` is the URL at that position (none when out of
/// range); a chain without `index` is every URL of the chain.
pub fn url_ref_urls(url: &UrlRef) -> Vec<String> {
    match url {
        UrlRef::Url(u) => vec![u.clone()],
        UrlRef::Chain(chain) => {
            let urls = chain_urls(&chain.hops, &chain.to);
            match chain.index {
                Some(i) => usize::try_from(i)
                    .ok()
                    .and_then(|i| urls.get(i).cloned())
                    .into_iter()
                    .collect(),
                None => urls,
            }
        }
    }
}
