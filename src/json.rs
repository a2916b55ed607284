//! Reading the crate's versioned JSON documents, and the JSON pointers and tree walks every
//! problem path of `validate`, the corpus diff and the guard runner's searches are written with.
// Each helper serves some features only (`validate`, the corpus diff, the guard runner).
#![cfg_attr(not(feature = "validate"), allow(dead_code))]

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::Error;

/// Parses `text` (the document `what`) as `T` after checking that its `key` member (`schema`,
/// or `schemaVersion` for the guard vectors) is [`SCHEMA`](crate::files::SCHEMA).
///
/// The version is checked first, so a schema 2 file is reported as such and not as whatever
/// shape difference schema 2 brings; the shape is then read from the text, not the parsed
/// value, so its errors keep their line and column.
#[cfg_attr(not(feature = "corpus"), allow(dead_code))]
pub(crate) fn parse_versioned<T: DeserializeOwned>(
    what: &'static str,
    text: &str,
    key: &str,
) -> Result<T, Error> {
    check_version(what, text, key)?;
    serde_json::from_str(text).map_err(|e| Error::json(what, &e))
}

/// Parses `text` (the document `what`) as `T` in one pass, then checks the version `T` read
/// (`version`). Only when the typed parse fails is the text read a second time, as a
/// [`Value`], to tell a wrong or missing `key` (an [`Error::Schema`]) from a shape error, so
/// the errors are those of [`parse_versioned`] while a good document is parsed once.
pub(crate) fn parse_typed<T: DeserializeOwned>(
    what: &'static str,
    text: &str,
    key: &str,
    version: impl Fn(&T) -> u32,
) -> Result<T, Error> {
    match serde_json::from_str::<T>(text) {
        Ok(doc) => match version(&doc) {
            crate::files::SCHEMA => Ok(doc),
            other => Err(Error::Schema {
                what,
                found: other.to_string(),
            }),
        },
        Err(e) => {
            check_version(what, text, key)?;
            Err(Error::json(what, &e))
        }
    }
}

/// Whether `text` is a JSON object whose `key` member is [`SCHEMA`](crate::files::SCHEMA).
fn check_version(what: &'static str, text: &str, key: &str) -> Result<(), Error> {
    let value: Value = serde_json::from_str(text).map_err(|e| Error::json(what, &e))?;
    let Some(object) = value.as_object() else {
        return Err(Error::invalid("/", format!("{what} must be a JSON object")));
    };
    match object.get(key) {
        Some(Value::Number(n)) if n.as_u64() == Some(u64::from(crate::files::SCHEMA)) => Ok(()),
        Some(other) => Err(Error::Schema {
            what,
            found: other.to_string(),
        }),
        None => Err(Error::Schema {
            what,
            found: "missing".into(),
        }),
    }
}

/// The JSON pointer of `segments`, each escaped as RFC 6901 says (`~` as `~0`, `/` as `~1`):
/// the one escaping every message and problem path of the crate uses.
pub(crate) fn pointer<I, S>(segments: I) -> String
where
    I: IntoIterator<Item = S>,
    S: std::fmt::Display,
{
    let mut out = String::new();
    for segment in segments {
        out.push('/');
        push_escaped(&mut out, &segment.to_string());
    }
    out
}

/// `parent` followed by the segment `segment`, escaped.
pub(crate) fn child(parent: &str, segment: &str) -> String {
    let mut out = String::with_capacity(parent.len() + segment.len() + 1);
    out.push_str(parent);
    out.push('/');
    push_escaped(&mut out, segment);
    out
}

fn push_escaped(out: &mut String, segment: &str) {
    for c in segment.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}

/// What [`walk`] visits: an object's key, or a value.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Node<'a> {
    /// A member's key; the pointer is the member's.
    Key(&'a str),
    /// A value (the root, a member's value or an array item).
    Value(&'a Value),
}

/// Calls `f(pointer, node)` on `value` and everything under it, depth-first in document order:
/// each value, and each object key just before its value, with the pointer of the value.
pub(crate) fn walk<'a>(value: &'a Value, f: &mut dyn FnMut(&str, Node<'a>)) {
    fn go<'a>(value: &'a Value, path: &mut String, f: &mut dyn FnMut(&str, Node<'a>)) {
        f(path, Node::Value(value));
        let len = path.len();
        match value {
            Value::Object(members) => {
                for (k, v) in members {
                    path.push('/');
                    push_escaped(path, k);
                    f(path, Node::Key(k));
                    go(v, path, f);
                    path.truncate(len);
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    path.push('/');
                    path.push_str(&i.to_string());
                    go(v, path, f);
                    path.truncate(len);
                }
            }
            _ => {}
        }
    }
    go(value, &mut String::new(), f)
}

/// Whether `f` holds for `value` or anything under it, depth-first in document order,
/// stopping at the first value it holds for: the search form of [`walk`], for the questions
/// "does any object at any depth ..." that need no pointer.
pub(crate) fn any(value: &Value, f: &mut dyn FnMut(&Value) -> bool) -> bool {
    f(value)
        || match value {
            Value::Object(members) => members.values().any(|v| any(v, f)),
            Value::Array(items) => items.iter().any(|v| any(v, f)),
            _ => false,
        }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointer_escapes_tilde_before_slash() {
        assert_eq!(pointer(["a/b", "m~n", "~1"]), "/a~1b/m~0n/~01");
        assert_eq!(pointer::<[&str; 0], &str>([]), "");
        assert_eq!(child("/x", "a/~"), "/x/a~1~0");
        // The pointer resolves back to the member.
        let v = serde_json::json!({"a/b": {"m~n": [1, 2]}});
        assert_eq!(
            v.pointer(&format!("{}/1", pointer(["a/b", "m~n"]))),
            Some(&serde_json::json!(2))
        );
    }

    #[test]
    fn any_searches_every_depth_and_stops_at_the_first() {
        let v = serde_json::json!({"a": [1, {"b": {"c": 2}}], "d": 3});
        let mut seen = Vec::new();
        assert!(any(&v, &mut |x| {
            seen.push(x.clone());
            x == &serde_json::json!(2)
        }));
        // The root, "a", 1, {"b":..}, {"c":2}, 2: "d" is never reached.
        assert_eq!(seen.len(), 6);
        assert!(!any(&v, &mut |x| x == &serde_json::json!(4)));
        assert!(any(&v, &mut |x| x.get("c").is_some()));
    }

    #[test]
    fn walk_visits_every_key_and_value_with_its_pointer() {
        let v = serde_json::json!({"a/b": [1, {"c": "d"}]});
        let mut seen = Vec::new();
        walk(&v, &mut |p, n| {
            seen.push(match n {
                Node::Key(k) => format!("{p} key {k}"),
                Node::Value(v) => format!("{p} = {v}"),
            })
        });
        assert_eq!(
            seen,
            [
                r#" = {"a/b":[1,{"c":"d"}]}"#,
                "/a~1b key a/b",
                r#"/a~1b = [1,{"c":"d"}]"#,
                "/a~1b/0 = 1",
                r#"/a~1b/1 = {"c":"d"}"#,
                "/a~1b/1/c key c",
                r#"/a~1b/1/c = "d""#,
            ]
        );
        for line in &seen {
            let path = line.split(' ').next().unwrap();
            assert!(v.pointer(path).is_some(), "{path} does not resolve");
        }
    }
}
