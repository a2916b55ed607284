//! A leg's variables and `{name}` expansion: the values a leg's placeholders take, the null
//! origins a row skips on, and the expansion of text, JSON, steps and checks.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::leg::Leg;
use super::origins::{host_of, Origins, OPTIONAL_ORIGINS, REQUIRED_ORIGINS};
use crate::error::Error;
use crate::vectors::{Check, Step};

/// One variable's value: a string, or a null origin (with the origin name a skip reports).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", untagged)]
enum Var {
    Value(String),
    Null { null: String },
}

/// A leg's variables: what each `{name}` expands to.
///
/// [`Vars::for_leg`] sets the origins, `target`, `targetHost`, `tag` and `cookie`. The driver
/// sets the rest with [`Vars::set`] as it learns them: `beacon` and `probe` (the JS sources),
/// `pageTarget`, `popupTarget` (our extension, see `docs/guard-vectors.md`), `context` (the
/// `as: "context"` call's `browserContextId`) and `responseOrigin`. A token whose name is not
/// set is left as it is, so a step can be expanded again once more is known.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Vars {
    vars: BTreeMap<String, Var>,
}

impl Vars {
    /// No variables.
    pub fn new() -> Vars {
        Vars::default()
    }

    /// The variables of one leg of a row on protected target `target` (`seven`, `vault`,
    /// `vault-x`, `apex` or `own`): every origin name, `target` (`{plain}` on the control leg,
    /// the target's origin on the guarded leg), `targetHost` (its host without the port),
    /// `tag` and `cookie`.
    ///
    /// For the unguarded control's second run, against the protected stand-in, take the guarded
    /// leg's variables (a fresh tag) and the control leg's steps and expectation.
    pub fn for_leg(origins: &Origins, leg: Leg, target: &str, tag: &str, cookie: &str) -> Vars {
        let mut vars = Vars::new();
        for name in REQUIRED_ORIGINS
            .into_iter()
            .chain(OPTIONAL_ORIGINS.map(|(n, _)| n))
        {
            let (origin, report) = origins.resolve(name);
            vars.put_origin(name, origin, report);
        }
        let (origin, report) = match leg {
            Leg::Control => origins.resolve("plain"),
            Leg::Guarded => origins.resolve(target),
        };
        vars.put_origin("target", origin, report);
        let host = origin.and_then(host_of);
        vars.put_origin("targetHost", host, report);
        vars.set("tag", tag);
        vars.set("cookie", cookie);
        vars
    }

    fn put_origin(&mut self, name: &str, value: Option<&str>, report: &str) {
        let var = match value {
            Some(v) => Var::Value(v.to_string()),
            None => Var::Null {
                null: report.to_string(),
            },
        };
        self.vars.insert(name.to_string(), var);
    }

    /// Sets `{name}` to `value` (replacing a value or a null).
    pub fn set(&mut self, name: &str, value: &str) -> &mut Vars {
        self.vars
            .insert(name.to_string(), Var::Value(value.to_string()));
        self
    }

    /// Marks `{name}` as a null origin; rows that need it skip with
    /// `not-applicable:no-<report>-origin`.
    pub fn set_null(&mut self, name: &str, report: &str) -> &mut Vars {
        self.vars.insert(
            name.to_string(),
            Var::Null {
                null: report.to_string(),
            },
        );
        self
    }

    /// The value of `{name}`, or `None` when it is null or not set.
    pub fn get(&self, name: &str) -> Option<&str> {
        match self.vars.get(name) {
            Some(Var::Value(v)) => Some(v),
            _ => None,
        }
    }

    /// The leg's tag (empty when not set).
    pub fn tag(&self) -> &str {
        self.get("tag").unwrap_or("")
    }

    /// The origin name to report when `{name}` needs a null origin, or `None` when it does
    /// not. `{beacon}` and `{probe}` send to `{log}`, so they need it even before the driver sets
    /// them.
    pub fn null_reason(&self, name: &str) -> Option<&str> {
        match self.vars.get(name) {
            Some(Var::Null { null }) => Some(null),
            Some(Var::Value(_)) => None,
            None if matches!(name, "beacon" | "probe") => self.null_reason("log"),
            None => None,
        }
    }

    /// Expands every `{name}` token (`\{[A-Za-z][A-Za-z-]*\}`) whose name has a value; other
    /// tokens and other braces stay as they are.
    pub fn expand_str(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for (start, end, name) in tokens(text) {
            if let Some(v) = self.get(name) {
                out.push_str(&text[last..start]);
                out.push_str(v);
                last = end;
            }
        }
        out.push_str(&text[last..]);
        out
    }

    /// Expands every string in a JSON value, at any depth (object keys stay as they are).
    pub fn expand_value(&self, value: &Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.expand_str(s)),
            Value::Array(items) => {
                Value::Array(items.iter().map(|v| self.expand_value(v)).collect())
            }
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), self.expand_value(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// A step with every placeholder expanded (nested `children` steps too).
    pub fn expand_step(&self, step: &Step) -> Result<Step, Error> {
        self.expand_typed(step, "step")
    }

    /// A check with every placeholder expanded.
    pub fn expand_check(&self, check: &Check) -> Result<Check, Error> {
        self.expand_typed(check, "check")
    }

    fn expand_typed<T: Serialize + serde::de::DeserializeOwned>(
        &self,
        item: &T,
        what: &str,
    ) -> Result<T, Error> {
        let value = serde_json::to_value(item)
            .map_err(|e| Error::invalid(what, format!("cannot be written as JSON: {e}")))?;
        serde_json::from_value(self.expand_value(&value)).map_err(|e| {
            Error::invalid(
                what,
                format!("no longer reads after expanding its placeholders: {e}"),
            )
        })
    }

    /// The origin name reported for the first null origin `text` references, if any.
    pub fn null_reason_in_str(&self, text: &str) -> Option<String> {
        tokens(text).find_map(|(_, _, name)| self.null_reason(name).map(str::to_string))
    }

    /// Whether some variable is a null origin (when none is, nothing needs one).
    pub fn has_nulls(&self) -> bool {
        self.vars.values().any(|v| matches!(v, Var::Null { .. }))
    }

    /// The origin name reported for the first null origin a JSON value references, if any.
    pub fn null_reason_in_value(&self, value: &Value) -> Option<String> {
        if !self.has_nulls() {
            return None;
        }
        match value {
            Value::String(s) => self.null_reason_in_str(s),
            Value::Array(items) => items.iter().find_map(|v| self.null_reason_in_value(v)),
            Value::Object(map) => map.values().find_map(|v| self.null_reason_in_value(v)),
            _ => None,
        }
    }

    /// The origin name reported for the first null origin a step references (nested steps
    /// included), if any.
    pub fn null_reason_in_step(&self, step: &Step) -> Option<String> {
        if !self.has_nulls() {
            return None;
        }
        serde_json::to_value(step)
            .ok()
            .and_then(|v| self.null_reason_in_value(&v))
    }

    /// The origin name reported for the first null origin a check itself references, if any.
    /// This is the plain reading: `any` is not special here (the judge drops an `any`
    /// alternative that needs a null origin, see [`judge`](crate::harness::runner::judge)).
    pub fn null_reason_in_check(&self, check: &Check) -> Option<String> {
        if !self.has_nulls() {
            return None;
        }
        serde_json::to_value(check)
            .ok()
            .and_then(|v| self.null_reason_in_value(&v))
    }
}

/// The `{name}` tokens of `text`: `(start, end, name)` byte ranges, `name` matching
/// `[A-Za-z][A-Za-z-]*`.
pub fn tokens(text: &str) -> impl Iterator<Item = (usize, usize, &str)> {
    let bytes = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            if bytes[i] == b'{' && i + 1 < bytes.len() && bytes[i + 1].is_ascii_alphabetic() {
                let mut j = i + 2;
                while j < bytes.len() && (bytes[j].is_ascii_alphabetic() || bytes[j] == b'-') {
                    j += 1;
                }
                if j < bytes.len() && bytes[j] == b'}' {
                    let found = (i, j + 1, &text[i + 1..j]);
                    i = j + 1;
                    return Some(found);
                }
                // `{` followed by a non-token: go on after the `{`
                i += 1;
            } else {
                i += 1;
            }
        }
        None
    })
}
