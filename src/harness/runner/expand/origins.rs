//! The runner's origin map (`--origins`): the names it maps, how an optional name defaults, and
//! the origin and host of a URL.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Error;

/// The origin names the runner maps, required ones first: a missing or `null` one is null.
pub const REQUIRED_ORIGINS: [&str; 8] = [
    "ordinary",
    "ordinary-same-site",
    "seven",
    "vault",
    "vault-x",
    "apex",
    "own",
    "client",
];

/// The optional origin names and the name each defaults to when absent or `null`.
pub const OPTIONAL_ORIGINS: [(&str, &str); 3] = [
    ("plain", "ordinary"),
    ("cross", "client"),
    ("log", "ordinary"),
];

/// The runner's origin map: every name of [`REQUIRED_ORIGINS`] and [`OPTIONAL_ORIGINS`] to an
/// origin (`scheme://host[:port]`) or null.
///
/// A required name that is missing is null, and a null origin is never replaced by another: a
/// row that needs it skips with `not-applicable:no-<name>-origin`. An optional name that is
/// missing or `null` takes its default's value (and so its default's null).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origins {
    map: BTreeMap<String, Option<String>>,
}

impl Origins {
    /// An origin map with every name null.
    pub fn new() -> Origins {
        Origins::default()
    }

    /// Reads a JSON object of names to origins or `null` (the `--origins` file). Unknown names
    /// and malformed origins are errors naming the key.
    pub fn from_json(text: &str) -> Result<Origins, Error> {
        let value: Value = serde_json::from_str(text).map_err(|e| Error::json("origin map", &e))?;
        let Value::Object(object) = value else {
            return Err(Error::invalid(
                "origin map",
                "must be a JSON object of names to origins or null",
            ));
        };
        let mut origins = Origins::new();
        for (name, v) in object {
            match v {
                Value::Null => origins.set(&name, None)?,
                Value::String(s) => origins.set(&name, Some(&s))?,
                other => {
                    return Err(Error::invalid(
                        format!("origin map/{name}"),
                        format!("must be an origin string or null, not {other}"),
                    ))
                }
            }
        }
        Ok(origins)
    }

    /// Maps `name` to `origin` (`None`: null). The name must be one of [`REQUIRED_ORIGINS`] or
    /// [`OPTIONAL_ORIGINS`]; the origin must look like `scheme://host[:port]` with no path.
    pub fn set(&mut self, name: &str, origin: Option<&str>) -> Result<(), Error> {
        if !is_origin_name(name) {
            return Err(Error::invalid(
                format!("origin map/{name}"),
                format!(
                    "unknown origin name (the names are {} and {})",
                    REQUIRED_ORIGINS.join(", "),
                    OPTIONAL_ORIGINS.map(|(n, _)| n).join(", ")
                ),
            ));
        }
        if let Some(o) = origin {
            check_origin(o)
                .map_err(|m| Error::invalid(format!("origin map/{name}"), m.to_string()))?;
        }
        self.map
            .insert(name.to_string(), origin.map(|o| o.to_string()));
        Ok(())
    }

    /// [`Origins::set`], chained.
    pub fn with(mut self, name: &str, origin: Option<&str>) -> Result<Origins, Error> {
        self.set(name, origin)?;
        Ok(self)
    }

    /// The origin `name` stands for (optional names resolved through their defaults), or `None`
    /// when it is null or not an origin name.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.resolve(name).0
    }

    /// The origin `name` stands for and the name to report when it is null (`plain` that
    /// defaults to a null `ordinary` reports `ordinary`).
    pub(super) fn resolve<'b>(&self, name: &'b str) -> (Option<&str>, &'b str) {
        if let Some((_, default)) = OPTIONAL_ORIGINS.iter().find(|(n, _)| *n == name) {
            match self.map.get(name) {
                Some(Some(o)) => (Some(o.as_str()), name),
                _ => (self.map.get(*default).and_then(|o| o.as_deref()), default),
            }
        } else {
            (self.map.get(name).and_then(|o| o.as_deref()), name)
        }
    }

    /// The origin of a protected target (`seven`, `vault`, `vault-x`, `apex`, `own`), or `None`
    /// when it is null.
    pub fn target(&self, target: &str) -> Option<&str> {
        self.get(target)
    }

    /// The names mapped to null (or missing), required and optional, after defaults.
    pub fn null_names(&self) -> Vec<&'static str> {
        REQUIRED_ORIGINS
            .into_iter()
            .chain(OPTIONAL_ORIGINS.map(|(n, _)| n))
            .filter(|n| self.get(n).is_none())
            .collect()
    }
}

/// Whether `name` is one of the origin names the runner maps.
pub fn is_origin_name(name: &str) -> bool {
    REQUIRED_ORIGINS.contains(&name) || OPTIONAL_ORIGINS.iter().any(|(n, _)| *n == name)
}

/// Why a value of the origin map is not an origin; each holds the value.
#[derive(Debug, Clone, PartialEq, Eq)]
enum BadOrigin {
    /// No `://`.
    NoSeparator(String),
    /// The scheme is empty or has characters a scheme cannot.
    Scheme(String),
    /// No host, or a path, query, fragment, user info or space after it.
    Authority(String),
}

impl std::fmt::Display for BadOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BadOrigin::NoSeparator(o) => {
                write!(f, "{o:?} is not an origin (scheme://host[:port])")
            }
            BadOrigin::Scheme(o) => write!(f, "{o:?} has no valid scheme"),
            BadOrigin::Authority(o) => write!(
                f,
                "{o:?} is not an origin: it must be scheme://host[:port], no path or slash"
            ),
        }
    }
}

fn check_origin(origin: &str) -> Result<(), BadOrigin> {
    let Some((scheme, rest)) = origin.split_once("://") else {
        return Err(BadOrigin::NoSeparator(origin.to_string()));
    };
    let scheme_ok = scheme
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !scheme_ok {
        return Err(BadOrigin::Scheme(origin.to_string()));
    }
    if rest.is_empty() || rest.contains(['/', '?', '#', '@', ' ']) {
        return Err(BadOrigin::Authority(origin.to_string()));
    }
    Ok(())
}

/// The origin (`scheme://host[:port]`) of a URL, or `None` when it has none.
pub fn origin_of(url: &str) -> Option<&str> {
    let (_, rest) = url.split_once("://")?;
    let start = url.len() - rest.len();
    let end = rest.find(['/', '?', '#']).map_or(url.len(), |i| start + i);
    if end == start {
        return None;
    }
    Some(&url[..end])
}

/// The host of an origin or URL, without its port (`http://a.b:8080/x` → `a.b`; IPv6 keeps its
/// brackets).
pub fn host_of(url: &str) -> Option<&str> {
    let origin = origin_of(url)?;
    let authority = &origin[origin.find("://")? + 3..];
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if authority.starts_with('[') {
        return authority.find(']').map(|i| &authority[..=i]);
    }
    Some(authority.split_once(':').map_or(authority, |(h, _)| h))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each malformed origin has its own fault, and the map's error reads as it always did.
    #[test]
    fn malformed_origins_say_why() {
        let cases = [
            (
                "seven.test",
                BadOrigin::NoSeparator("seven.test".into()),
                r#""seven.test" is not an origin (scheme://host[:port])"#,
            ),
            (
                "1http://a.test",
                BadOrigin::Scheme("1http://a.test".into()),
                r#""1http://a.test" has no valid scheme"#,
            ),
            (
                "http://a.test/",
                BadOrigin::Authority("http://a.test/".into()),
                r#""http://a.test/" is not an origin: it must be scheme://host[:port], no path or slash"#,
            ),
        ];
        for (origin, fault, text) in cases {
            assert_eq!(check_origin(origin), Err(fault.clone()), "{origin}");
            assert_eq!(fault.to_string(), text);
            assert_eq!(
                Origins::new().set("seven", Some(origin)),
                Err(Error::invalid("origin map/seven", text))
            );
        }
        assert_eq!(check_origin("http://[::1]:8080"), Ok(()));
    }
}
