//! The policy's own `Fetch` patterns: what every document session's checks pause (every
//! document, and images, media and `Other` requests whose URL may be off limits: `loads.rs`),
//! built once from the matcher.

use serde_json::{json, Value};

use super::state::Overrides;

/// The policy's own `Fetch` patterns on every document session, paused before they are
/// sent: every document, and what a page shows but cannot read (images, media, `<object>` and
/// `<embed>` of an image: `loads.rs`) when its URL may be off limits: [`shown_patterns`].
/// The patterns of [`shown_patterns`], and the parameters of the `Fetch.enable` that opens
/// every session's checks, encoded once.
#[derive(Debug)]
pub(super) struct Shown {
    /// The patterns.
    pub(super) patterns: Vec<Value>,
    /// `{"patterns": guard_pattern(patterns)}`, encoded.
    pub(super) check: std::sync::Arc<str>,
}

impl Shown {
    /// The patterns the `m` calls for.
    pub(super) fn new(m: &crate::protected::Matcher) -> Shown {
        let patterns = shown_patterns(m);
        let check = json!({"patterns": guard_pattern(&patterns)}).to_string();
        Shown {
            patterns,
            check: check.into(),
        }
    }
}

pub(super) fn guard_pattern(shown: &[Value]) -> Vec<Value> {
    let mut patterns =
        vec![json!({"urlPattern": "*", "resourceType": "Document", "requestStage": "Request"})];
    patterns.extend(shown.iter().cloned());
    patterns
}

/// The policy's own `Fetch` patterns on a document session: [`guard_pattern`], and every
/// request while the client has set request headers there (see `overrides`).
pub(super) fn guard_patterns(shown: &[Value], overrides: &Overrides) -> Vec<Value> {
    let mut patterns = guard_pattern(shown);
    if overrides.any() {
        patterns.push(json!({"urlPattern": "*", "requestStage": "Request"}));
    }
    patterns
}

/// The patterns of images, media and `Other` requests the policy pauses: only URLs that may
/// be off limits (`Core::off_limits`), so a page's ordinary images never wait for the
/// guard. A superset, judged again when paused: Chromium matches a pattern against the
/// canonical URL of each request and of each redirect hop on its own (measured on Chromium
/// 156: an ordinary image URL redirecting to a protected one is paused at the protected hop),
/// and a canonical URL on a protected origin contains its host text
/// ([`Matcher::host_texts`](crate::protected::Matcher)) in its host; a browser-internal,
/// `anySchemes` or `innerSchemes` URL (`blob:`, `filesystem:`, `view-source:`, whose inner
/// URL a browser leaves as written) starts with its scheme.
pub(super) fn shown_patterns(m: &crate::protected::Matcher) -> Vec<Value> {
    let mut texts: Vec<String> = m
        .host_texts()
        .map(|h| format!("*{}*", glob_escape(h)))
        .collect();
    texts.extend(
        super::scrub::INTERNAL_SCHEMES
            .iter()
            .copied()
            .chain(m.scheme_texts())
            .chain(["about", "view-source"])
            .map(|scheme| format!("{}:*", glob_escape(&scheme.to_ascii_lowercase()))),
    );
    texts.sort();
    texts.dedup();
    let mut patterns = Vec::new();
    for rtype in ["Image", "Media", "Other"] {
        for text in &texts {
            patterns.push(
                json!({"urlPattern": text, "resourceType": rtype, "requestStage": "Request"}),
            );
        }
    }
    patterns
}

/// `text` with `Fetch` pattern wildcards (`*`, `?`) and the escape (`\`) escaped.
pub(super) fn glob_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '?' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
