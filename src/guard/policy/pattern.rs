//! Small matchers the policy needs: CDP's `Fetch` URL wildcards and `Target` type filters.

use serde_json::Value;

/// Whether `text` matches a CDP `Fetch.RequestPattern.urlPattern`: `*` is any run of
/// characters, `?` any one character, and a backslash escapes the next character.
pub(crate) fn wildcard(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // Iterative matching with one backtrack point (the last `*`): linear in practice, never
    // worse than |p|·|t|.
    let (mut pi, mut ti) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    star = Some((pi, ti));
                    pi += 1;
                    continue;
                }
                '?' => {
                    pi += 1;
                    ti += 1;
                    continue;
                }
                '\\' if pi + 1 < p.len() => {
                    if p[pi + 1] == t[ti] {
                        pi += 2;
                        ti += 1;
                        continue;
                    }
                }
                c => {
                    if c == t[ti] {
                        pi += 1;
                        ti += 1;
                        continue;
                    }
                }
            }
        }
        match star {
            Some((sp, st)) => {
                pi = sp + 1;
                ti = st + 1;
                star = Some((sp, st + 1));
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// One pattern of a client's `Fetch.enable`.
#[derive(Debug, Clone)]
pub(crate) struct FetchPattern {
    url: String,
    resource_type: Option<String>,
    response: bool,
}

impl FetchPattern {
    /// The patterns of `Fetch.enable` params: absent means every request at the request stage,
    /// as Chromium reads it.
    pub(crate) fn list(params: &Value) -> Vec<FetchPattern> {
        match params.get("patterns").and_then(Value::as_array) {
            None => vec![FetchPattern {
                url: "*".into(),
                resource_type: None,
                response: false,
            }],
            Some(items) => items
                .iter()
                .map(|p| FetchPattern {
                    url: p
                        .get("urlPattern")
                        .and_then(Value::as_str)
                        .unwrap_or("*")
                        .to_string(),
                    resource_type: p
                        .get("resourceType")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    response: p.get("requestStage").and_then(Value::as_str) == Some("Response"),
                })
                .collect(),
        }
    }

    /// Whether this pattern asks for a request at `url` of `resource_type`, paused at the
    /// response stage when `response`.
    pub(crate) fn wants(&self, url: &str, resource_type: &str, response: bool) -> bool {
        self.response == response
            && self
                .resource_type
                .as_deref()
                .is_none_or(|t| t == resource_type)
            && wildcard(&self.url, url)
    }
}

/// A `Target.TargetFilter`: the first entry whose `type` matches (or has none) decides, and a
/// type no entry matches is left out.
#[derive(Debug, Clone)]
pub(crate) struct TargetFilter(Vec<(Option<String>, bool)>);

impl TargetFilter {
    /// The filter of `params.filter`, or Chromium's default (every type but `browser` and
    /// `tab`) when there is none.
    pub(crate) fn of(params: &Value) -> TargetFilter {
        match params.get("filter").and_then(Value::as_array) {
            Some(entries) => TargetFilter(
                entries
                    .iter()
                    .map(|e| {
                        (
                            e.get("type").and_then(Value::as_str).map(str::to_string),
                            e.get("exclude").and_then(Value::as_bool).unwrap_or(false),
                        )
                    })
                    .collect(),
            ),
            None => TargetFilter(vec![
                (Some("browser".into()), true),
                (Some("tab".into()), true),
                (None, false),
            ]),
        }
    }

    /// Whether a target of type `kind` passes.
    pub(crate) fn passes(&self, kind: &str) -> bool {
        for (t, exclude) in &self.0 {
            if t.as_deref().is_none_or(|t| t == kind) {
                return !exclude;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards() {
        assert!(wildcard("*", ""));
        assert!(wildcard("*", "https://a/b"));
        assert!(wildcard("https://*/data?n=*", "https://x.test/data?n=1"));
        assert!(!wildcard("https://*/data?n=*", "https://x.test/doc?n=1"));
        assert!(wildcard("a?c", "abc"));
        assert!(!wildcard("a?c", "ac"));
        assert!(wildcard("a\\*c", "a*c"));
        assert!(!wildcard("a\\*c", "abc"));
        assert!(wildcard("*a*b*", "xxaxxbxx"));
        assert!(!wildcard("*a*b", "xxaxxbxx"));
    }

    #[test]
    fn filters() {
        let default = TargetFilter::of(&serde_json::json!({}));
        assert!(default.passes("page"));
        assert!(!default.passes("tab"));
        let all = TargetFilter::of(&serde_json::json!({"filter": [{}]}));
        assert!(all.passes("browser"));
        let none = TargetFilter::of(&serde_json::json!({"filter": []}));
        assert!(!none.passes("page"));
    }
}
