//! Predicates (§4.4 of the format note): the `where` of an `event` check and the `equals` of
//! `result` and `expression` checks. No I/O, no panics on any input.
//!
//! | predicate | matches |
//! | --- | --- |
//! | string, number, bool, null | an equal value of the same type (numbers by value: `1` matches `1.0`) |
//! | object with plain keys | an object whose member of each key matches (a missing member never does); extra members are ignored; `{}` matches any object, and only objects |
//! | `{"$contains": s}` | a string containing `s`; any other value by its JSON text |
//! | `{"$regex": r}` | a string in which `r` finds a match (a search, not anchored); any other value by its JSON text (`{"$regex": "^[1-9]"}` matches the number `12`) |
//! | `{"$some": p}` | an array with at least one element matching `p` |
//! | `{"$every": p}` | a non-empty array whose every element matches `p` |
//! | `{"$encoded": {"value": v, "prefix"?: p}}` | a string that starts with `p` (when given) and whose rest is base64 (standard or URL-safe alphabet, padding optional) decoding to text that **contains** `v` (the values are URL stems, so a containment, not an equality) |
//!
//! An object mixing several keys matches when every key does. Arrays, unknown `$` operators,
//! operands of the wrong type and regular expressions that don't compile make the predicate
//! invalid: [`matches()`] returns the error (the judge then counts the check as false and reports
//! it). Placeholders are expanded before a predicate reaches this module.
//!
//! ```
//! use serde_json::json;
//! use slicc_browsers::harness::runner::predicate::matches;
//! let event = json!({"method": "Log.entryAdded", "params": {"entry": {"text": "Refused: Content Security Policy"}}});
//! assert_eq!(matches(&json!({"params": {"entry": {"text": {"$contains": "Content Security Policy"}}}}), &event), Ok(true));
//! assert_eq!(matches(&json!({"$some": {"ok": true}}), &json!([{"ok": false}, {"ok": true}])), Ok(true));
//! assert_eq!(matches(&json!({"$every": {}}), &json!([])), Ok(false));
//! assert!(matches(&json!([1]), &json!([1])).is_err());
//! ```

use std::cell::RefCell;
use std::collections::HashMap;

use regex::Regex;
use serde_json::{Map, Value};

/// The operators a predicate object may use.
pub const OPERATORS: [&str; 5] = ["$contains", "$regex", "$some", "$every", "$encoded"];

/// Why a predicate is invalid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PredicateFault {
    /// An array where a predicate belongs.
    Array,
    /// `$contains` or `$regex` (the operator) with an operand that is not a string.
    NotAString(String),
    /// A `$regex` that does not compile.
    Regex(RegexError),
    /// `$encoded` with an operand that is not an object.
    EncodedShape,
    /// `$encoded` without a string `value`.
    EncodedValue,
    /// `$encoded` with a `prefix` that is not a string.
    EncodedPrefix,
    /// `$encoded` with a member other than `value` and `prefix`.
    EncodedMember(String),
    /// A `$` key that is not one of [`OPERATORS`].
    UnknownOperator(String),
}

/// An invalid predicate: what is wrong ([`PredicateFault`]) and where (`at`, a JSON pointer into
/// the predicate; empty for its top).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PredicateError {
    /// Where, as a JSON pointer into the predicate (empty: the predicate itself).
    pub at: String,
    /// What.
    pub fault: PredicateFault,
}

impl std::fmt::Display for PredicateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "predicate at {}: ", display(&self.at))?;
        match &self.fault {
            PredicateFault::Array => write!(f, "arrays are not predicates (use $some or $every)"),
            PredicateFault::NotAString(op) => write!(f, "{op} takes a string"),
            PredicateFault::Regex(e) => write!(f, "{e}"),
            PredicateFault::EncodedShape => {
                write!(f, "$encoded takes {{\"value\", \"prefix\"?}}")
            }
            PredicateFault::EncodedValue => write!(f, "$encoded needs a string value"),
            PredicateFault::EncodedPrefix => write!(f, "$encoded's prefix is a string"),
            PredicateFault::EncodedMember(k) => write!(f, "$encoded has an unknown member {k:?}"),
            PredicateFault::UnknownOperator(k) => write!(
                f,
                "unknown operator {k} (the operators are {})",
                OPERATORS.join(", ")
            ),
        }
    }
}

impl std::error::Error for PredicateError {}

/// Whether `actual` matches `predicate`; an error says what makes the predicate invalid and
/// where (a JSON pointer into the predicate).
pub fn matches(predicate: &Value, actual: &Value) -> Result<bool, PredicateError> {
    validate(predicate)?;
    Ok(eval(predicate, Some(actual)))
}

/// Whether a value that may be missing (a path that led nowhere) matches: a missing value
/// matches nothing.
pub fn matches_opt(predicate: &Value, actual: Option<&Value>) -> Result<bool, PredicateError> {
    validate(predicate)?;
    Ok(eval(predicate, actual))
}

/// Checks a predicate without a value: arrays, unknown `$` operators, operands of the wrong
/// type and regular expressions that don't compile are errors.
pub fn validate(predicate: &Value) -> Result<(), PredicateError> {
    validate_at(predicate, "")
}

fn validate_at(predicate: &Value, at: &str) -> Result<(), PredicateError> {
    let here = |rest: &str| crate::json::child(at, rest);
    let fail = |at: &str, fault: PredicateFault| {
        Err(PredicateError {
            at: at.to_string(),
            fault,
        })
    };
    match predicate {
        Value::Array(_) => fail(at, PredicateFault::Array),
        Value::Object(map) => {
            for (key, value) in map {
                let path = here(key);
                match key.as_str() {
                    "$contains" | "$regex" => {
                        let Value::String(s) = value else {
                            return fail(&path, PredicateFault::NotAString(key.clone()));
                        };
                        if key == "$regex" {
                            if let Err(e) = with_regex(s, |_| ()) {
                                return fail(&path, PredicateFault::Regex(e));
                            }
                        }
                    }
                    "$some" | "$every" => validate_at(value, &path)?,
                    "$encoded" => {
                        let Value::Object(enc) = value else {
                            return fail(&path, PredicateFault::EncodedShape);
                        };
                        if !matches!(enc.get("value"), Some(Value::String(_))) {
                            return fail(&path, PredicateFault::EncodedValue);
                        }
                        if let Some(p) = enc.get("prefix") {
                            if !p.is_string() {
                                return fail(&path, PredicateFault::EncodedPrefix);
                            }
                        }
                        if let Some(k) = enc.keys().find(|k| *k != "value" && *k != "prefix") {
                            return fail(&path, PredicateFault::EncodedMember(k.clone()));
                        }
                    }
                    k if k.starts_with('$') => {
                        return fail(&path, PredicateFault::UnknownOperator(k.to_string()))
                    }
                    _ => validate_at(value, &path)?,
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn display(at: &str) -> &str {
    if at.is_empty() {
        "the top"
    } else {
        at
    }
}

fn eval(predicate: &Value, actual: Option<&Value>) -> bool {
    let Some(actual) = actual else {
        return false;
    };
    match predicate {
        Value::Object(map) => eval_object(map, actual),
        Value::Number(p) => match actual {
            Value::Number(a) => numbers_equal(p, a),
            _ => false,
        },
        Value::Array(_) => false,
        scalar => scalar == actual,
    }
}

fn eval_object(map: &Map<String, Value>, actual: &Value) -> bool {
    if map.is_empty() || map.keys().any(|k| !k.starts_with('$')) {
        // plain keys need an object; `{}` matches any object
        if !actual.is_object() {
            return false;
        }
    }
    map.iter().all(|(key, p)| match key.as_str() {
        "$contains" => p
            .as_str()
            .is_some_and(|needle| text_of(actual).contains(needle)),
        "$regex" => p
            .as_str()
            .is_some_and(|re| with_regex(re, |r| r.is_match(&text_of(actual))).unwrap_or(false)),
        "$some" => actual
            .as_array()
            .is_some_and(|items| items.iter().any(|item| eval(p, Some(item)))),
        "$every" => actual
            .as_array()
            .is_some_and(|items| !items.is_empty() && items.iter().all(|item| eval(p, Some(item)))),
        "$encoded" => encoded(p, actual),
        _ => eval(p, actual.get(key)),
    })
}

/// A string as it is; any other value as its JSON text.
fn text_of(value: &Value) -> std::borrow::Cow<'_, str> {
    match value {
        Value::String(s) => std::borrow::Cow::Borrowed(s),
        other => std::borrow::Cow::Owned(other.to_string()),
    }
}

fn numbers_equal(a: &serde_json::Number, b: &serde_json::Number) -> bool {
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        return x == y;
    }
    if let (Some(x), Some(y)) = (a.as_u64(), b.as_u64()) {
        return x == y;
    }
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

fn encoded(spec: &Value, actual: &Value) -> bool {
    let (Some(value), Some(text)) = (spec.get("value").and_then(Value::as_str), actual.as_str())
    else {
        return false;
    };
    let prefix = spec.get("prefix").and_then(Value::as_str).unwrap_or("");
    let Some(rest) = text.strip_prefix(prefix) else {
        return false;
    };
    match base64_decode(rest) {
        Some(bytes) => String::from_utf8_lossy(&bytes).contains(value),
        None => false,
    }
}

/// Decodes base64 in the standard (`+/`) or URL-safe (`-_`) alphabet, with or without `=`
/// padding (at most two); `None` when `text` is not base64. Bits past the last whole byte are
/// ignored, as `atob` ignores them.
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    static LENIENT: std::sync::OnceLock<Option<data_encoding::Encoding>> =
        std::sync::OnceLock::new();
    let body = text.trim_end_matches('=');
    if text.len() - body.len() > 2 {
        return None;
    }
    let encoding = LENIENT
        .get_or_init(|| {
            let mut spec = data_encoding::Specification::new();
            spec.symbols
                .push_str("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/");
            spec.translate.from.push_str("-_");
            spec.translate.to.push_str("+/");
            spec.check_trailing_bits = false;
            spec.encoding().ok()
        })
        .as_ref()?;
    encoding.decode(body.as_bytes()).ok()
}

/// A regular expression (a `$regex` operand, a refusal's `pattern`) that does not compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegexError {
    /// The pattern.
    pub pattern: String,
    /// The compiler's message.
    pub message: String,
}

impl std::fmt::Display for RegexError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the regular expression {:?} does not compile: {}",
            self.pattern, self.message
        )
    }
}

impl std::error::Error for RegexError {}

thread_local! {
    static REGEXES: RefCell<HashMap<String, Result<Regex, RegexError>>> = RefCell::new(HashMap::new());
}

/// Runs `f` on the compiled `pattern` (compiled once per thread and kept, up to 512 patterns);
/// an error when it does not compile.
pub(crate) fn with_regex<T>(pattern: &str, f: impl FnOnce(&Regex) -> T) -> Result<T, RegexError> {
    REGEXES.with(|cache| {
        let mut cache = cache.borrow_mut();
        if cache.len() >= 512 && !cache.contains_key(pattern) {
            cache.clear();
        }
        let compiled = cache.entry(pattern.to_string()).or_insert_with(|| {
            Regex::new(pattern).map_err(|e| RegexError {
                pattern: pattern.to_string(),
                message: e.to_string(),
            })
        });
        match compiled {
            Ok(re) => Ok(f(re)),
            Err(e) => Err(e.clone()),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An invalid predicate's error says what and where, as a type, and reads as before.
    #[test]
    fn invalid_predicates_give_typed_errors() {
        let e = |p: Value| validate(&p).expect_err("invalid");
        let bad = e(serde_json::json!({ "a": { "$some": { "$nope": 1 } } }));
        assert_eq!(bad.at, "/a/$some/$nope");
        assert_eq!(bad.fault, PredicateFault::UnknownOperator("$nope".into()));
        assert_eq!(
            bad.to_string(),
            format!(
                "predicate at /a/$some/$nope: unknown operator $nope (the operators are {})",
                OPERATORS.join(", ")
            )
        );
        let top = e(serde_json::json!([1]));
        assert_eq!((top.at.as_str(), &top.fault), ("", &PredicateFault::Array));
        assert!(
            top.to_string().starts_with("predicate at the top: arrays"),
            "{top}"
        );
        let regex = e(serde_json::json!({ "$regex": "(" }));
        let PredicateFault::Regex(compile) = &regex.fault else {
            panic!("{regex:?}");
        };
        assert_eq!(compile.pattern, "(");
        assert_eq!(
            regex.to_string(),
            format!(
                "predicate at /$regex: the regular expression \"(\" does not compile: {}",
                compile.message
            )
        );
        assert!(
            compile.message.contains("unclosed group"),
            "{}",
            compile.message
        );
        let member = e(serde_json::json!({ "$encoded": { "value": "v", "x": 1 } }));
        assert_eq!(member.fault, PredicateFault::EncodedMember("x".into()));
        assert_eq!(
            e(serde_json::json!({ "$contains": 1 })).fault,
            PredicateFault::NotAString("$contains".into())
        );
    }

    #[test]
    fn base64_both_alphabets() {
        assert_eq!(
            base64_decode("aHR0cDovL2E=").as_deref(),
            Some(&b"http://a"[..])
        );
        assert_eq!(
            base64_decode("aHR0cDovL2E").as_deref(),
            Some(&b"http://a"[..])
        );
        assert_eq!(base64_decode("-_8").as_deref(), Some(&[0xfb, 0xff][..]));
        assert_eq!(base64_decode("a"), None);
        assert_eq!(base64_decode("a b"), None);
        assert_eq!(base64_decode("===="), None);
    }
}
