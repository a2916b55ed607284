//! The policy's own `Fetch` patterns: what every document session's checks pause (every
//! document, and images, media and `Other` requests whose URL may be off limits: `loads.rs`),
//! built once from the matcher.

use serde_json::{json, Value};

use super::state::Overrides;

/// The policy's own `Fetch` patterns on every document session, paused before they are
/// sent: every document, and what a page shows but cannot read (images, media, `<object>` and
/// `<embed>` of an image: `loads.rs`) when its URL may be off limits: [`shown_texts`].
/// The patterns of those texts, and the parameters of the `Fetch.enable` that opens
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
        let texts = shown_texts(m);
        let patterns = patterns_of(&texts);
        // `{"patterns": guard_pattern(patterns)}` as serde_json writes it (members in order,
        // no spaces), written from the texts: the patterns are not cloned into a value and
        // serialised (that was most of what making a policy cost).
        let encoded: Vec<String> = texts
            .iter()
            .map(|t| Value::from(t.as_str()).to_string())
            .collect();
        let mut check = String::from(r#"{"patterns":["#);
        check.push_str(DOCUMENT_PATTERN);
        for rtype in SHOWN_TYPES {
            for text in &encoded {
                check.push_str(r#",{"urlPattern":"#);
                check.push_str(text);
                check.push_str(r#","resourceType":""#);
                check.push_str(rtype);
                check.push_str(r#"","requestStage":"Request"}"#);
            }
        }
        check.push_str("]}");
        Shown {
            patterns,
            check: check.into(),
        }
    }
}

/// The resource types of the shown patterns, in their order.
const SHOWN_TYPES: [&str; 3] = ["Image", "Media", "Other"];

/// The document pattern of [`guard_pattern`], encoded.
const DOCUMENT_PATTERN: &str =
    r#"{"urlPattern":"*","resourceType":"Document","requestStage":"Request"}"#;

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

/// The shown patterns the policy's checks set for `m` (what [`Shown::new`] keeps).
#[cfg(test)]
pub(super) fn shown_patterns(m: &crate::protected::Matcher) -> Vec<Value> {
    patterns_of(&shown_texts(m))
}

/// The URL patterns of images, media and `Other` requests the policy pauses, sorted, each
/// once: only URLs that may be off limits (`Core::off_limits`), so a page's ordinary images
/// never wait for the guard. A superset, judged again when paused: Chromium matches a pattern against the
/// canonical URL of each request and of each redirect hop on its own (measured on Chromium
/// 156: an ordinary image URL redirecting to a protected one is paused at the protected hop),
/// and a canonical URL on a protected origin contains its host text
/// ([`Matcher::host_texts`](crate::protected::Matcher)) in its host; a browser-internal,
/// `anySchemes` or `innerSchemes` URL (`blob:`, `filesystem:`, `view-source:`, whose inner
/// URL a browser leaves as written) starts with its scheme.
fn shown_texts(m: &crate::protected::Matcher) -> Vec<String> {
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
    texts
}

/// The shown patterns of `texts`: each for images, media and `Other` requests.
fn patterns_of(texts: &[String]) -> Vec<Value> {
    let mut patterns = Vec::with_capacity(texts.len() * SHOWN_TYPES.len());
    for rtype in SHOWN_TYPES {
        for text in texts {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protected::{Matcher, ProtectPattern};

    /// The check written from the texts reads as the patterns serialised: for the catalog's
    /// origins, and with extra origins and protected sites whose texts need escaping.
    #[test]
    fn the_check_is_the_patterns_encoded() {
        let origins = &crate::catalog::shared_catalog().protected_origins;
        let plain = Matcher::new(origins, &[] as &[&str]).unwrap();
        let extra = Matcher::new(
            origins,
            &["https://xn--bcher-kva.example:8443", "http://a-b.test"],
        )
        .unwrap()
        .protecting(&[
            ProtectPattern::parse("bank.example").unwrap(),
            ProtectPattern::parse("*.corp.example").unwrap(),
        ]);
        for m in [plain, extra] {
            let shown = Shown::new(&m);
            let expected = json!({"patterns": guard_pattern(&shown.patterns)}).to_string();
            assert_eq!(&*shown.check, expected);
            assert_eq!(shown.patterns, shown_patterns(&m));
        }
    }
}
